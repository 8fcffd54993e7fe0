//! Owns what the MCP server keeps between calls: the resolved settings, a
//! small pool of warm read-only index connections, the warm hybrid and
//! semantic searchers (vector matrix, query model), and the background index
//! runs that keep the index fresh. Does not know MCP (that is `tools` and the
//! handler in `mod.rs`).
//!
//! Freshness, in short:
//! - At start, and on an index-backed call when the last run started more
//!   than [`REFRESH_INTERVAL`] ago, an incremental index run starts in a
//!   background thread, unless another process holds the writer lock (it is
//!   writing already: `repo-search index`, or later the daemon).
//! - A call waits for a run at most [`REFRESH_WAIT`] (counted from the run's
//!   start), then answers from what is committed, saying so. A cheap re-check
//!   of an unchanged tree ends well within that, so an edit the agent just
//!   made is in the answer.
//! - Readers never block the writer: connections are read-only over WAL and
//!   see each committed batch. A database file that was replaced (same path,
//!   new inode, as after `index --full`) is noticed and reopened.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::Result;

use crate::index::{IndexOptions, IndexSummary, Phase, Progress};
use crate::search::hybrid::Hybrid;
use crate::search::semantic::SemanticSearcher;
use crate::settings::Settings;
use crate::store::{self, Store};

/// An index-backed call starts a re-check when the last one started longer
/// ago than this.
pub const REFRESH_INTERVAL: Duration = Duration::from_secs(2);
/// How long a call waits for a running index run (from the run's start)
/// before it answers from what is committed.
pub const REFRESH_WAIT: Duration = Duration::from_millis(1500);
/// After a failed index run, the next one starts no sooner than this.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(30);
/// Idle read connections kept open.
const POOL_SIZE: usize = 4;

/// What this server's background index runs are doing.
#[derive(Debug, Clone, Default)]
pub struct RunState {
    pub running: bool,
    /// The running (or last) run is the first build of a missing index.
    pub initial: bool,
    pub progress: Progress,
    pub started: Option<Instant>,
    pub finished: Option<Instant>,
    pub runs: u64,
    pub last_error: Option<String>,
    pub last_summary: Option<IndexSummary>,
}

/// The background runs and a condition variable to wait for their end.
#[derive(Default)]
struct Runs {
    state: Mutex<RunState>,
    changed: Condvar,
}

impl Runs {
    fn lock(&self) -> MutexGuard<'_, RunState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Identity of the database file, to notice that it was replaced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileId(u64, u64);

fn file_id(path: &Path) -> Option<FileId> {
    let md = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some(FileId(md.dev(), md.ino()))
    }
    #[cfg(not(unix))]
    {
        let created = md
            .created()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        Some(FileId(created, 0))
    }
}

#[derive(Default)]
struct Pool {
    id: Option<FileId>,
    idle: Vec<Store>,
}

/// Server state shared by all calls.
pub struct ServerState {
    pub settings: Settings,
    /// Why `.repo_search/config.toml` was not used, if it is broken.
    pub config_error: Option<String>,
    db: PathBuf,
    pool: Mutex<Pool>,
    runs: Arc<Runs>,
    /// Hybrid search kept warm across calls (vector matrix, query model);
    /// the semantic tools use its `SemanticSearcher` too.
    hybrid: Mutex<Option<Hybrid>>,
}

/// How a call relates to the index's freshness, for the answer's `index` block.
#[derive(Debug, Clone)]
pub struct Freshness {
    /// A writer (this server's background run or another process) is running.
    pub indexing: bool,
    /// The first build is running: results hold only what is committed so far.
    pub building: bool,
    pub progress: Option<Progress>,
    /// Another process holds the writer lock (its pid when known).
    pub other_writer: Option<u32>,
    pub last_error: Option<String>,
}

impl ServerState {
    pub fn new(settings: Settings, config_error: Option<String>) -> ServerState {
        let db = store::db_path(&settings.root);
        ServerState {
            settings,
            config_error,
            db,
            pool: Mutex::new(Pool::default()),
            runs: Arc::new(Runs::default()),
            hybrid: Mutex::new(None),
        }
    }

    pub fn root(&self) -> &Path {
        &self.settings.root
    }

    /// Runs `f` on a warm read-only connection. `Ok(None)` when there is no
    /// index yet (or it is being created right now).
    pub fn with_store<R>(&self, f: impl FnOnce(&Store) -> Result<R>) -> Result<Option<R>> {
        let Some(id) = file_id(&self.db) else {
            self.pool
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .idle
                .clear();
            return Ok(None);
        };
        let reused = {
            let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
            if pool.id != Some(id) {
                // A new file at the same path: drop connections to the old one.
                pool.idle.clear();
                pool.id = Some(id);
            }
            pool.idle.pop()
        };
        let store = match reused {
            Some(s) => s,
            None => match Store::open_ro(self.root()) {
                Ok(Some(s)) => s,
                Ok(None) => return Ok(None),
                Err(e) if self.is_transient(&e) => return Ok(None),
                Err(e) => return Err(e),
            },
        };
        let out = match f(&store) {
            Ok(out) => out,
            Err(e) if self.is_transient(&e) => return Ok(None),
            Err(e) => return Err(e),
        };
        let mut pool = self.pool.lock().unwrap_or_else(|e| e.into_inner());
        if pool.id == Some(id) && pool.idle.len() < POOL_SIZE {
            pool.idle.push(store);
        }
        Ok(Some(out))
    }

    /// Whether `e` is a database error seen while a first build creates the
    /// index: the file can exist before its tables do, and such a reader
    /// should answer "no index yet", not fail.
    pub fn is_transient(&self, e: &anyhow::Error) -> bool {
        let sqlite = e
            .chain()
            .any(|c| c.downcast_ref::<rusqlite::Error>().is_some());
        if !sqlite {
            return false;
        }
        let building = {
            let st = self.runs.lock();
            st.running && st.initial
        };
        let transient = building || crate::lock::current_writer(self.root()).is_some();
        if transient {
            tracing::debug!("index not readable yet while it is being written: {e:#}");
        }
        transient
    }

    /// Runs `f` on the warm hybrid searcher, created on first use with the
    /// project's embedding settings. `search_semantic` and `similar_code`
    /// reach the same `SemanticSearcher` through it, so the vector matrix
    /// and the query model are loaded once per server, not once per call.
    pub fn with_hybrid<R>(&self, f: impl FnOnce(&mut Hybrid) -> Result<R>) -> Result<R> {
        let mut guard = self.hybrid.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            let (embed, _) = crate::settings::resolve_embed(self.root())?;
            *guard = Some(Hybrid::new(Some(SemanticSearcher::new(embed))));
        }
        match guard.as_mut() {
            Some(hybrid) => f(hybrid),
            None => Err(anyhow::anyhow!("hybrid searcher missing")),
        }
    }

    /// Runs `f` on the warm semantic searcher (see [`Self::with_hybrid`]).
    pub fn with_semantic<R>(
        &self,
        f: impl FnOnce(&mut SemanticSearcher) -> Result<R>,
    ) -> Result<R> {
        self.with_hybrid(|h| match h.semantic_mut() {
            Some(s) => f(s),
            None => Err(anyhow::anyhow!("semantic searcher missing")),
        })
    }

    pub fn index_exists(&self) -> bool {
        self.db.exists()
    }

    pub fn run_state(&self) -> RunState {
        self.runs.lock().clone()
    }

    /// Starts a background index run unless one is running, one started less
    /// than `min_interval` ago, or another process is writing.
    pub fn kick(&self, min_interval: Duration) {
        let mut st = self.runs.lock();
        // After a failed run (say, a read-only checkout), retry less often.
        let interval = if st.last_error.is_some() {
            min_interval.max(RETRY_AFTER_FAILURE)
        } else {
            min_interval
        };
        if st.running || st.started.is_some_and(|t| t.elapsed() < interval) {
            return;
        }
        if crate::lock::current_writer(self.root()).is_some() {
            return;
        }
        let initial = !self.index_exists();
        // The first run of this server also fills in missing fast-tier
        // vectors (an index built by `init` or `index --no-embed`).
        let first_run = st.runs == 0;
        st.running = true;
        st.initial = initial;
        st.started = Some(Instant::now());
        st.progress = Progress::default();
        drop(st);

        let runs = Arc::clone(&self.runs);
        let settings = self.settings.clone();
        let spawned = std::thread::Builder::new()
            .name("repo-search-index".into())
            .spawn(move || {
                let progress = |p: Progress| {
                    runs.lock().progress = p;
                };
                // `no_wait`: if another writer took the lock in the meantime, it
                // is doing this work already.
                let opts = IndexOptions {
                    no_wait: true,
                    ..IndexOptions::default()
                };
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    // While the daemon watches this project it is the only
                    // writer: ask it, and write directly only when no daemon
                    // runs (or it does not watch this project).
                    match crate::daemon_client::request_reindex(&settings.root, &[]) {
                        Ok(Some(summary)) => Ok(summary),
                        Ok(None) => index_here(&settings, &opts, &progress, first_run),
                        Err(e) => {
                            tracing::debug!("daemon did not answer ({e:#}); indexing directly");
                            index_here(&settings, &opts, &progress, first_run)
                        }
                    }
                }));
                let mut st = runs.lock();
                st.running = false;
                st.finished = Some(Instant::now());
                st.runs += 1;
                match result {
                    Ok(Ok(summary)) => {
                        tracing::debug!(
                            changed = summary.changed,
                            removed = summary.removed,
                            "index run finished"
                        );
                        st.last_error = None;
                        st.last_summary = Some(summary);
                    }
                    Ok(Err(e)) => {
                        let busy = crate::error::find_user_error(&e)
                            .is_some_and(|u| u.message.contains("is writing the index"));
                        if busy {
                            tracing::debug!("index run skipped: {e:#}");
                        } else {
                            tracing::warn!("index run failed: {e:#}");
                            st.last_error = Some(
                                crate::error::find_user_error(&e)
                                    .map(|u| u.message.clone())
                                    .unwrap_or_else(|| format!("{e:#}")),
                            );
                        }
                    }
                    Err(_) => {
                        tracing::error!("index run panicked");
                        st.last_error = Some("index run failed: internal error (panic)".into());
                    }
                }
                drop(st);
                runs.changed.notify_all();
            });
        if let Err(e) = spawned {
            tracing::warn!("cannot start an index thread: {e}");
            let mut st = self.runs.lock();
            st.running = false;
            st.last_error = Some(format!("cannot start an index thread: {e}"));
        }
    }

    /// Before an index-backed answer: start a re-check if due, and wait for a
    /// running run until [`REFRESH_WAIT`] after its start.
    pub fn refresh_for_query(&self) -> Freshness {
        self.kick(REFRESH_INTERVAL);
        let mut st = self.runs.lock();
        while st.running {
            let Some(deadline) = st.started.map(|t| t + REFRESH_WAIT) else {
                break;
            };
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            st = match self.runs.changed.wait_timeout(st, deadline - now) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        let own = st.clone();
        drop(st);
        self.freshness_of(&own)
    }

    /// The freshness of the index right now, without starting anything.
    pub fn freshness(&self) -> Freshness {
        let own = self.run_state();
        self.freshness_of(&own)
    }

    fn freshness_of(&self, own: &RunState) -> Freshness {
        let other_writer = if own.running {
            None
        } else {
            crate::lock::current_writer(self.root())
        };
        let building =
            (own.running && own.initial) || (other_writer.is_some() && !self.index_exists());
        Freshness {
            indexing: own.running || other_writer.is_some(),
            building,
            progress: own.running.then_some(own.progress),
            other_writer,
            last_error: own.last_error.clone(),
        }
    }
}

/// A progress phase as a word.
/// An index run in this process, followed by fast-tier vectors for what
/// changed (a second or two for a large tree; on the server's first run,
/// for whatever lacks them), so semantic search and the hybrid's semantic
/// arm work without a daemon. The full tier is left to the daemon or
/// `repo-search index`: it takes minutes to hours.
fn index_here(
    settings: &Settings,
    opts: &IndexOptions,
    progress: &(dyn Fn(Progress) + Sync),
    first_run: bool,
) -> Result<IndexSummary> {
    let summary = crate::index::index_project(settings, opts, progress, |_| {})?;
    if first_run || summary.changed > 0 || summary.removed > 0 {
        let embedded = crate::settings::resolve_embed(&settings.root).and_then(|(es, _)| {
            let plan = crate::index::EmbedPlan {
                tiers: &[crate::embed::Tier::Fast],
                defer_full_over: None,
                should_stop: &|| false,
            };
            crate::index::embed_project(settings, &es, &plan, &|_| {}, &|_| {})
        });
        match embedded {
            Ok(s) => tracing::debug!(?s, "fast-tier vectors"),
            Err(e) => tracing::debug!("no fast-tier vectors: {e:#}"),
        }
    }
    Ok(summary)
}

pub fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Walking => "walking",
        Phase::Indexing => "indexing",
        Phase::Done => "done",
    }
}
