//! Owns the query cache of a long-lived service (the MCP server): ranked
//! search answers kept in memory, keyed by the normalised request and the
//! index's generation and vector generation, so an answer is never served
//! once the index it came from has changed (an edit the server re-indexed,
//! vectors computed since). Bounded by entries and by bytes, least
//! recently used out first.
//!
//! `repo-search cache clear` (another process) writes the marker file
//! [`CLEAR_MARKER`] in the index directory; each lookup compares its
//! modification time with the one last seen (one `stat`) and empties the
//! cache when it moved.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;
use std::time::SystemTime;

use serde::Serialize;

use super::search::SearchAnswer;

/// The marker `cache clear` touches.
pub const CLEAR_MARKER: &str = "cache.clear";
/// Answers kept at most.
pub const MAX_ENTRIES: usize = 256;
/// Their estimated size at most.
pub const MAX_BYTES: usize = 32 << 20;

thread_local! {
    /// The last lookup's outcome on this thread, for the stats log
    /// (`Service::timed` takes it after the operation).
    static OUTCOME: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// Whether the operation that just ran on this thread was answered from the
/// cache (`Some(true)`), looked it up in vain (`Some(false)`) or did not
/// ask it; resets it.
pub(crate) fn take_outcome() -> Option<bool> {
    OUTCOME.with(|o| o.take())
}

fn set_outcome(hit: bool) {
    OUTCOME.with(|o| o.set(Some(hit)));
}

/// The live cache's figures.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CacheFigures {
    pub entries: usize,
    pub bytes: usize,
    pub max_entries: usize,
    pub max_bytes: usize,
    /// Since the server started.
    pub hits: u64,
    pub misses: u64,
}

pub(crate) struct QueryCache {
    marker: PathBuf,
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<String, Entry>,
    bytes: usize,
    tick: u64,
    hits: u64,
    misses: u64,
    /// The clear marker's time when last looked at.
    cleared_at: Option<SystemTime>,
}

struct Entry {
    answer: SearchAnswer,
    bytes: usize,
    used: u64,
}

impl QueryCache {
    pub(crate) fn new(index_dir: PathBuf) -> QueryCache {
        let marker = index_dir.join(CLEAR_MARKER);
        let cleared_at = std::fs::metadata(&marker).and_then(|m| m.modified()).ok();
        QueryCache {
            marker,
            inner: Mutex::new(Inner {
                cleared_at,
                ..Inner::default()
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The answer stored under `key`, if any (counted as a hit or a miss).
    pub(crate) fn get(&self, key: &str) -> Option<SearchAnswer> {
        let cleared_at = std::fs::metadata(&self.marker)
            .and_then(|m| m.modified())
            .ok();
        let mut inner = self.lock();
        if cleared_at != inner.cleared_at {
            inner.entries.clear();
            inner.bytes = 0;
            inner.cleared_at = cleared_at;
        }
        inner.tick += 1;
        let tick = inner.tick;
        let found = inner.entries.get_mut(key).map(|e| {
            e.used = tick;
            e.answer.clone()
        });
        if found.is_some() {
            inner.hits += 1;
        } else {
            inner.misses += 1;
        }
        set_outcome(found.is_some());
        found
    }

    /// Keeps `answer` under `key`, making room by dropping the least
    /// recently used answers.
    pub(crate) fn put(&self, key: String, answer: &SearchAnswer) {
        let bytes = estimate(answer) + key.len();
        if bytes > MAX_BYTES / 4 {
            return;
        }
        let mut inner = self.lock();
        inner.tick += 1;
        let used = inner.tick;
        if let Some(old) = inner.entries.insert(
            key,
            Entry {
                answer: answer.clone(),
                bytes,
                used,
            },
        ) {
            inner.bytes -= old.bytes;
        }
        inner.bytes += bytes;
        while inner.entries.len() > MAX_ENTRIES || inner.bytes > MAX_BYTES {
            let Some(oldest) = inner
                .entries
                .iter()
                .min_by_key(|(_, e)| e.used)
                .map(|(k, _)| k.clone())
            else {
                break;
            };
            if let Some(e) = inner.entries.remove(&oldest) {
                inner.bytes -= e.bytes;
            }
        }
    }

    pub(crate) fn figures(&self) -> CacheFigures {
        let inner = self.lock();
        CacheFigures {
            entries: inner.entries.len(),
            bytes: inner.bytes,
            max_entries: MAX_ENTRIES,
            max_bytes: MAX_BYTES,
            hits: inner.hits,
            misses: inner.misses,
        }
    }
}

/// Roughly what an answer holds in memory: its hits' strings (heap bytes)
/// plus a fixed cost per hit and per answer; counted, not formatted (a
/// miss stores its answer on the search path).
fn estimate(a: &SearchAnswer) -> usize {
    let opt = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    let hits: usize = a
        .hits
        .iter()
        .map(|h| {
            256 + h.path.len()
                + opt(&h.symbol)
                + opt(&h.kind)
                + h.lang.len()
                + h.snippet.len()
                + h.sources.len() * 32
                + h.file_symbols.iter().map(|f| 24 + f.len()).sum::<usize>()
                + h.also
                    .iter()
                    .map(|a| 48 + opt(&a.symbol) + opt(&a.kind))
                    .sum::<usize>()
        })
        .sum();
    1024 + a.query.len() + hits
}

/// The cache key of a search: every field that changes the answer, the
/// query with its whitespace collapsed, and the generations answered from.
pub(crate) fn key(req: &super::SearchRequest, generation: u64, vectors: u64) -> String {
    let query: Vec<&str> = req.query.split_whitespace().collect();
    let mut r = req.clone();
    r.query = query.join(" ");
    r.no_cache = false;
    format!("{generation}/{vectors}/{r:?}")
}
