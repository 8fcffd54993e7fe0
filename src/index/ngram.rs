//! Owns keeping the trigram postings (`store`'s `ngram_docs` and
//! `ngram_postings`) in step with the files on disk, at the end of an index
//! run. The postings cover every file the project's walk yields (not only
//! code: keyword search reads them all), except binary, UTF-16 and too large
//! files, which are recorded as not covered. Does not plan queries or search
//! (that is `search::ngram` and `search::keyword`).
//!
//! **Invariant: never stale.** A doc row names the exact file version (size,
//! mtime) whose trigrams are in the posting lists, written in the same
//! transaction; keyword search skips a file only when its version on disk is
//! that one. A file changed, added or renamed since is simply read at search
//! time, so a run may leave such "dirty" files alone: they are merged once
//! there are [`MERGE_AT`] of them. Until then each has a *pending* row (not
//! covered, no size: read by every search, found dirty by every run), so
//! the docs always list every file the last run walked: a search that
//! trusts a watcher instead of walking (`search::ngram::Listed`) needs
//! that. Doc ids only grow, so a new version is
//! appended to the lists and an old id left in them names no row; the lists
//! are rebuilt when such dead ids outnumber a quarter of the live ones.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Result;

use crate::search::ngram::{RACY_NS, block_map, file_trigrams};
use crate::store::{self, NgramDoc, Store, Trigram, meta};

/// Dirty files (read at search time) tolerated before they are merged into
/// the postings.
pub const MERGE_AT: usize = 128;
/// Text files up to this size are covered even when they are too large for
/// symbols and chunks (`index.max_file_size`): keyword search reads every
/// file it is not told to skip, and the kernel's generated register headers
/// (43 files, 290 MB) were read by every search.
pub const COVER_AT_LEAST: u64 = 64 << 20;
/// The postings' layout (meta `ngram_format`): "2" has block maps for
/// large files (`ngram_blocks`); an index without it gets its postings
/// rebuilt by the next full walk.
const FORMAT: &str = "2";
/// Files read per batch (bounds memory for their trigram sets).
const BATCH_FILES: usize = 1024;
/// Bytes of postings held in memory (encoded, see [`Held`]) before they
/// are appended to the store. Fewer, larger appends: each one reads and
/// rewrites every touched list (on the kernel, 7 flushes of 16M raw ids
/// took 1.7 s).
const FLUSH_BYTES: usize = 64 << 20;

/// What a held posting list costs beyond its bytes (the map entry).
const HELD_OVERHEAD: usize = 48;

/// A walked regular file, as the postings need it.
#[derive(Debug, Clone)]
pub struct WalkedFile {
    pub rel: String,
    pub abs: PathBuf,
    pub size: u64,
    pub mtime_ns: i64,
}

/// What a refresh did.
#[derive(Debug, Clone, Default)]
pub struct NgramSummary {
    /// Files read into the postings.
    pub read: u64,
    /// Files changed since the postings, left to be read at search time.
    pub dirty: u64,
    pub rebuilt: bool,
    pub seconds: f64,
}

/// Brings the postings up to date for the walked files. `walked` holds
/// every file the walk yielded within `in_scope` (all of them when `full_walk`);
/// stored docs in scope that were not walked are forgotten. Writes nothing
/// when nothing is to be merged or forgotten.
pub fn refresh(
    store: &mut Store,
    walked: &[WalkedFile],
    full_walk: bool,
    in_scope: &dyn Fn(&str) -> bool,
    max_size: u64,
    merge_at: usize,
    force_rebuild: bool,
) -> Result<NgramSummary> {
    let started = Instant::now();
    let docs = store.ngram_docs()?;
    let next_doc = store.meta_u64(meta::NGRAM_NEXT_DOC)?;
    let seen: HashSet<&str> = walked.iter().map(|f| f.rel.as_str()).collect();
    let dirty: Vec<&WalkedFile> = walked
        .iter()
        .filter(|f| {
            docs.get(&f.rel).is_none_or(|d| {
                d.size != f.size
                    || d.mtime_ns != f.mtime_ns
                    || d.mtime_ns >= d.indexed_at_ns - RACY_NS
            })
        })
        .collect();
    let gone: Vec<&str> = docs
        .keys()
        .map(String::as_str)
        .filter(|p| in_scope(p) && !seen.contains(p))
        .collect();
    let live = (docs.len() - gone.len()) as u64;
    let dead = next_doc.saturating_sub(live);
    let max_size = max_size.max(COVER_AT_LEAST);
    let limit_changed = store
        .get_meta(meta::NGRAM_MAX_SIZE)?
        .is_none_or(|v| v != max_size.to_string())
        || store.get_meta(meta::NGRAM_FORMAT)?.as_deref() != Some(FORMAT);
    // An empty project has nothing to build (and a run must write nothing
    // when nothing changed).
    let rebuild = full_walk
        && !(docs.is_empty() && walked.is_empty())
        && (force_rebuild || docs.is_empty() || limit_changed || dead > live / 4 + MERGE_AT as u64);
    let todo: Vec<&WalkedFile> = if rebuild {
        walked.iter().collect()
    } else if dirty.len() >= merge_at {
        dirty.clone()
    } else {
        Vec::new()
    };
    // Dirty files left unmerged get a pending row (once per version), so the
    // docs list every walked file and name the ones to read.
    let pending: Vec<&WalkedFile> = if todo.is_empty() {
        dirty
            .iter()
            .copied()
            .filter(|f| {
                docs.get(&f.rel)
                    .is_none_or(|d| !d.is_pending() || d.mtime_ns != f.mtime_ns)
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut summary = NgramSummary {
        dirty: (dirty.len() - if rebuild { dirty.len() } else { todo.len() }) as u64,
        rebuilt: rebuild,
        ..NgramSummary::default()
    };
    if todo.is_empty() && gone.is_empty() && pending.is_empty() && !rebuild {
        return Ok(summary);
    }

    let w = store.begin()?;
    let mut next = next_doc;
    if rebuild {
        w.ngram_clear()?;
        next = 0;
    } else {
        for path in &gone {
            w.ngram_delete_doc(path)?;
        }
    }
    for file in &pending {
        let doc = u32::try_from(next).unwrap_or(u32::MAX);
        next += 1;
        w.ngram_forget_blocks(&file.rel)?;
        w.ngram_put_doc(&file.rel, &NgramDoc::pending(doc, file.mtime_ns))?;
    }
    let mut held = Holding::default();
    // The next batch is read (in parallel) while this thread files the
    // current one's trigrams: on the kernel the two took turns, 9.4 s.
    let (tx, rx) = crossbeam_channel::bounded::<Vec<Read>>(1);
    let batches = std::thread::scope(|scope| -> Result<()> {
        let todo = &todo;
        scope.spawn(move || {
            for batch in todo.chunks(BATCH_FILES) {
                if tx.send(read_batch(batch, max_size)).is_err() {
                    break;
                }
            }
        });
        for (batch, reads) in todo.chunks(BATCH_FILES).zip(rx.iter()) {
            file_batch(
                &w,
                rebuild,
                batch,
                reads,
                &mut next,
                &mut summary,
                &mut held,
            )?;
        }
        Ok(())
    });
    batches?;
    flush(&w, &mut held.grams)?;
    w.set_meta(meta::NGRAM_NEXT_DOC, &next.to_string())?;
    if rebuild {
        w.set_meta(meta::NGRAM_MAX_SIZE, &max_size.to_string())?;
        w.set_meta(meta::NGRAM_FORMAT, FORMAT)?;
    }
    w.commit()?;
    summary.seconds = started.elapsed().as_secs_f64();
    tracing::debug!(?summary, "trigram postings refreshed");
    Ok(summary)
}

/// Files one batch's reads: a doc row per file (numbered from `next`),
/// its trigrams into `held`, flushed to the postings past
/// [`FLUSH_BYTES`].
fn file_batch(
    w: &store::Writer<'_>,
    rebuild: bool,
    batch: &[&WalkedFile],
    reads: Vec<Read>,
    next: &mut u64,
    summary: &mut NgramSummary,
    held: &mut Holding,
) -> Result<()> {
    for (file, (indexed_at_ns, grams)) in batch.iter().zip(reads) {
        let doc = u32::try_from(*next).unwrap_or(u32::MAX);
        *next += 1;
        if !rebuild {
            w.ngram_forget_blocks(&file.rel)?;
        }
        if let Some((blocks, map)) = grams.as_ref().and_then(|g| g.blocks.as_ref()) {
            w.ngram_put_blocks(doc, *blocks, map)?;
        }
        w.ngram_put_doc(
            &file.rel,
            &NgramDoc {
                doc,
                size: file.size,
                mtime_ns: file.mtime_ns,
                indexed_at_ns,
                covered: grams.is_some(),
            },
        )?;
        if let Some(grams) = grams {
            summary.read += 1;
            for g in grams.grams {
                match held.grams.entry(g) {
                    std::collections::hash_map::Entry::Occupied(mut e) => {
                        held.bytes += e.get_mut().push(doc)
                    }
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(Held::new(doc));
                        held.bytes += HELD_OVERHEAD;
                    }
                }
            }
        }
        if held.bytes >= FLUSH_BYTES {
            flush(w, &mut held.grams)?;
            held.bytes = 0;
        }
    }
    Ok(())
}

fn flush(w: &store::Writer<'_>, pending: &mut GramMap) -> Result<()> {
    let mut grams: Vec<(Trigram, Held)> = pending.drain().collect();
    grams.sort_unstable_by_key(|(g, _)| *g);
    for (g, held) in grams {
        w.ngram_append_encoded(g, held.first, &held.rest)?;
    }
    Ok(())
}

/// The posting lists being built and the bytes they take.
#[derive(Default)]
struct Holding {
    grams: GramMap,
    bytes: usize,
}

/// A posting list being built, held encoded (gap varints, mostly one or
/// two bytes an id, against four as `u32`): its first id, its last, and
/// the ids after the first as the store's gap varints
/// ([`store::encode_append`]), so an append copies them as they are.
struct Held {
    first: u32,
    last: u32,
    rest: Vec<u8>,
}

impl Held {
    fn new(doc: u32) -> Held {
        Held {
            first: doc,
            last: doc,
            rest: Vec::new(),
        }
    }

    /// Adds an id above the last; returns the bytes it took.
    fn push(&mut self, doc: u32) -> usize {
        let before = self.rest.len();
        store::encode_append(&mut self.rest, Some(self.last), &[doc]);
        self.last = doc;
        self.rest.len() - before
    }
}

/// Posting lists being built, by trigram. Trigrams are 24-bit keys that
/// need no DoS-resistant hash: SipHash on every (trigram, file) pair was 2%
/// of a kernel index build.
type GramMap = HashMap<Trigram, Held, std::hash::BuildHasherDefault<GramHasher>>;

/// A multiply-rotate hash of one `u32` (a trigram).
#[derive(Default)]
struct GramHasher(u64);

impl std::hash::Hasher for GramHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u32(u32::from(b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.0 = (self.0 ^ u64::from(n))
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(26);
    }
}

/// When a file's content was read, and its trigrams (`None`: not covered).
type Read = (i64, Option<FileGrams>);

/// A covered file's distinct trigrams (sorted) and, for a large one, its
/// block count and block map (`search::ngram::block_map`).
#[derive(Clone)]
struct FileGrams {
    grams: Vec<Trigram>,
    blocks: Option<(u32, Vec<u8>)>,
}

/// Reads a batch in parallel, in the batch's order.
fn read_batch(batch: &[&WalkedFile], max_size: u64) -> Vec<Read> {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 8)
        .min(batch.len().max(1));
    let next = AtomicUsize::new(0);
    let mut out: Vec<Read> = vec![(0, None); batch.len()];
    let parts: Vec<Vec<(usize, Read)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(file) = batch.get(i) else { break };
                        let indexed_at = crate::index::now_ns();
                        mine.push((i, (indexed_at, file_grams(file, max_size))));
                    }
                    mine
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect()
    });
    for (i, read) in parts.into_iter().flatten() {
        out[i] = read;
    }
    out
}

/// The trigrams of a file keyword search would read as text, or `None`
/// for one kept out: too large, unreadable, binary (a NUL byte: the search
/// stops there or converts it) or UTF-16 (the search transcodes it, so its
/// bytes are not the text matched).
fn file_grams(file: &WalkedFile, max_size: u64) -> Option<FileGrams> {
    if file.size > max_size {
        return None;
    }
    let bytes = crate::fs_safe::read_regular(&file.abs).ok()?;
    if bytes.len() as u64 > max_size
        || crate::source::has_utf16_bom(&bytes)
        || memchr::memchr(0, &bytes).is_some()
    {
        return None;
    }
    let mut grams = Vec::new();
    file_trigrams(&bytes, &mut grams);
    let blocks = block_map(&bytes, &grams);
    Some(FileGrams { grams, blocks })
}
