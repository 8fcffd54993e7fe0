//! Owns the operations every surface offers, once: the CLI (`cli`), the MCP
//! server (`mcp`) and the eval runner (`eval`) parse their input into the
//! request types here, call a [`Service`] method, and render its typed
//! answer. Nothing here knows clap, MCP or JSON output shapes.
//!
//! A [`Service`] is one project: its resolved settings (a broken config file
//! falls back to the defaults when the surface asks for that, and the
//! problem is kept for `status`), a small pool of warm read-only index
//! connections (reopened when `index.db` is replaced), the warm hybrid
//! searcher with its vector matrix and query model, and the index runs
//! that keep answers fresh ([`fresh`]).
//!
//! - [`fresh`] — `index` (the one "ask the daemon, else index here" path),
//!   `ensure_fresh` per [`Policy`], background runs with progress.
//! - [`search`] — ranked search in every mode (one mode → arm mapping) and
//!   similar code.
//! - [`lookup`] — symbols, references, outline, read, keyword, status.
//! - [`context`] — the lines, enclosing definition, file digest and
//!   callers/callees around one line.
//! - [`imports`] — a file's imports and importers (the import graph).
//! - [`trust`] — trusting a project's own config (the command line only).
//! - [`cache`] — the query cache of a long-lived service.
//! - [`jobs`] — index jobs a client queued (the MCP `index` tool).
//! - [`ops`] — operating the tool: `stats` (every operation a recording
//!   service answers is logged through [`Service::timed`]).

pub mod cache;
pub mod context;
pub mod fresh;
pub mod imports;
pub mod jobs;
pub mod lookup;
pub mod ops;
pub mod search;
pub mod trust;
mod watching;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use anyhow::Result;

use crate::error::find_user_error;
use crate::search::hybrid::{Hybrid, SpareStores};
use crate::search::semantic::SemanticSearcher;
use crate::settings::{EmbedSettings, Overrides, Settings, find_root};
use crate::store::{self, Store};

pub use crate::search::semantic::SemanticInfo;
pub use cache::CacheFigures;
pub use context::{ContextAnswer, ContextRequest};
pub use fresh::{
    Freshness, IndexEvent, IndexJob, IndexRun, IndexedBy, REFRESH_INTERVAL, REFRESH_WAIT, RunState,
    Vectors, phase_name,
};
pub use imports::{ImportDirection, ImportsAnswer, ImportsRequest};
pub use jobs::{JobInfo, JobState};
pub use lookup::{
    DefinitionsAnswer, GraphAnswer, GraphRequest, OutlineAnswer, OutlineRequest, ReferencesAnswer,
    ReferencesRequest, StatusAnswer, SymbolsRequest,
};
pub use ops::{
    CacheClearAnswer, CacheStatsAnswer, CleanAnswer, CompactAnswer, DaemonView, RuntimeInfo,
    StatsAnswer, StatsRequest,
};
pub use search::{
    Mode, ONLY_SEMANTIC_NOTE, Recency, SearchAnswer, SearchRequest, SimilarRequestSpec,
};

/// Idle read connections kept open.
const POOL_SIZE: usize = 4;

/// When a service brings the index up to date (see [`fresh`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// A long-lived server: background runs, each answer waits briefly.
    Background,
    /// A one-shot command: before the first answer, a missing index is
    /// built and an existing one is brought up to date with what changed
    /// on disk, in the foreground.
    Foreground,
    /// Search the index as it is (eval runs, fixed corpora).
    AsIs,
}

/// What to do when `.repo_search/config.toml` is invalid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnBadConfig {
    /// Fail with the config error (a person can fix the file and rerun).
    Fail,
    /// Use the defaults and report the problem in `status` (an agent's
    /// tools must keep working).
    UseDefaults,
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
    /// The word postings the connections to the file share (long-lived
    /// services only: a one-shot command would read each word's postings
    /// once more to rank it; see `store::TermCache`).
    terms: Option<Arc<store::TermCache>>,
}

impl Pool {
    fn new(policy: Policy) -> Pool {
        Pool {
            terms: (policy == Policy::Background).then(|| Arc::new(store::TermCache::new())),
            ..Pool::default()
        }
    }

    /// An idle connection to the file `id`, if any; a new file at the same
    /// path first drops the connections to the old one.
    fn take(&mut self, id: FileId) -> Option<Store> {
        self.follow(id);
        self.idle.pop()
    }

    /// Forgets the connections and postings of a file other than `id`.
    fn follow(&mut self, id: FileId) {
        if self.id != Some(id) {
            self.idle.clear();
            self.id = Some(id);
            if self.terms.is_some() {
                self.terms = Some(Arc::new(store::TermCache::new()));
            }
        }
    }

    /// The term cache for a new connection to the file `id`, if this pool
    /// keeps one.
    fn terms_for(&mut self, id: FileId) -> Option<Arc<store::TermCache>> {
        self.follow(id);
        self.terms.clone()
    }

    /// Keeps `store`, a connection to the file `id`, for the next caller,
    /// unless the file was replaced meanwhile or enough are idle.
    fn put(&mut self, id: FileId, store: Store) {
        if self.id == Some(id) && self.idle.len() < POOL_SIZE {
            self.idle.push(store);
        }
    }
}

/// The pool's idle connections to one index file, lent out one at a time
/// (a new one is opened when none is idle) and taken back while the file
/// is the same ([`Service::spares`]).
pub(crate) struct Spares<'a> {
    service: &'a Service,
    id: Option<FileId>,
}

impl SpareStores for Spares<'_> {
    fn take(&self) -> Option<Store> {
        let id = self.id?;
        let reused = self.service.pool().take(id);
        reused.or_else(|| match self.service.open_reader(id) {
            Ok(store) => store,
            Err(e) => {
                tracing::debug!("no spare connection: {e:#}");
                None
            }
        })
    }

    fn give_back(&self, store: Store) {
        if let Some(id) = self.id {
            self.service.pool().put(id, store);
        }
    }
}

/// A foreground index run's observer (a CLI progress bar).
pub type Observer = Box<dyn Fn(IndexEvent) + Send + Sync>;

/// One project's operations; see the module doc.
pub struct Service {
    settings: Settings,
    /// Why `.repo_search/config.toml` was not used, if it is broken.
    config_error: Option<String>,
    on_bad_config: OnBadConfig,
    policy: Policy,
    db: PathBuf,
    pool: Mutex<Pool>,
    runs: Arc<fresh::Runs>,
    /// Hybrid search kept warm across calls (vector matrix, query model);
    /// semantic search and similar code use its `SemanticSearcher` too.
    hybrid: Mutex<Option<Hybrid>>,
    /// Embedding models loaded once: the query model of search is also the
    /// one a background run embeds edited chunks with.
    models: crate::embed::Models,
    observer: Option<Observer>,
    /// When the project's files last changed, read once per `HEAD` commit.
    recency: Mutex<Option<Arc<crate::history::Recency>>>,
    /// Where answered operations are logged for `stats` (none for eval
    /// runs, which measure themselves).
    stats: Option<Arc<crate::stats::Recorder>>,
    /// Ranked answers kept for repeated queries: long-lived services only
    /// ([`Policy::Background`]; see [`cache`]).
    cache: Option<cache::QueryCache>,
    /// Index jobs clients asked for ([`jobs`]).
    jobs: Arc<jobs::Jobs>,
    /// Searches use the fast tier's vectors even where full-tier ones
    /// exist (an eval run scoring the fast tier; [`Service::fast_vectors_only`]).
    fast_vectors_only: bool,
    /// The service's own file watcher, when a surface started it
    /// ([`Service::watch_changes`]).
    own_watch: Arc<watching::OwnWatch>,
    /// A one-shot command's index was brought up to date ([`Policy::Foreground`]):
    /// once per service.
    updated: std::sync::atomic::AtomicBool,
}

impl Service {
    /// The service of the project at `root` (or the one found from the
    /// working directory), with command-line `over`rides.
    pub fn open(
        root: Option<&Path>,
        over: &Overrides,
        policy: Policy,
        on_bad_config: OnBadConfig,
    ) -> Result<Service> {
        let root = find_root(root)?;
        let (settings, config_error) = match Settings::resolve(root.clone(), over) {
            Ok(s) => (s, None),
            Err(e) if on_bad_config == OnBadConfig::UseDefaults => {
                let msg = find_user_error(&e)
                    .map(|u| u.message.clone())
                    .unwrap_or_else(|| format!("{e:#}"));
                tracing::warn!("{msg}; using default settings");
                (Settings::defaults(root), Some(msg))
            }
            Err(e) => return Err(e),
        };
        Ok(Service::new(settings, config_error, policy, on_bad_config))
    }

    pub fn new(
        settings: Settings,
        config_error: Option<String>,
        policy: Policy,
        on_bad_config: OnBadConfig,
    ) -> Service {
        ops::started();
        let db = store::db_path(&settings.root);
        let cache = (policy == Policy::Background)
            .then(|| cache::QueryCache::new(store::index_dir(&settings.root)));
        Service {
            settings,
            config_error,
            on_bad_config,
            policy,
            db,
            pool: Mutex::new(Pool::new(policy)),
            runs: Arc::new(fresh::Runs::default()),
            hybrid: Mutex::new(None),
            models: crate::embed::Models::new(),
            observer: None,
            recency: Mutex::new(None),
            stats: None,
            cache,
            jobs: Arc::default(),
            fast_vectors_only: false,
            own_watch: Arc::default(),
            updated: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Watches the project's files from this process (a long-lived
    /// server's; [`watching`]), so that re-checks and keyword searches know
    /// what changed without walking the tree, with or without a daemon.
    pub fn watch_changes(self: &Arc<Self>) {
        let svc = Arc::clone(self);
        self.own_watch.start(self.root().to_path_buf(), move || {
            // The re-check that makes the watch's log trusted, after the
            // one running (a first build) if any.
            svc.wait_for_runs();
            svc.kick(std::time::Duration::ZERO);
        });
    }

    /// What changed in the project since its index last looked, when this
    /// process's own watcher, else a running daemon's, can vouch for the
    /// index's file list plus these paths; `None` means walk.
    pub(crate) fn changed_since_index(&self) -> Option<Vec<String>> {
        self.own_watch.changed().or_else(|| self.daemon_changed())
    }

    /// What a running daemon that watches the project says changed since
    /// the index last looked, when it vouches for it.
    fn daemon_changed(&self) -> Option<Vec<String>> {
        let home = crate::daemon_client::DaemonHome::from_env();
        crate::daemon_client::changed(&home, self.root())
    }

    /// Semantic and hybrid searches use the fast tier's vectors even where
    /// the full tier's exist: an eval run that scores the fast tier must
    /// not rank some corpora with MiniLM vectors left by an earlier run.
    pub fn fast_vectors_only(mut self) -> Service {
        self.fast_vectors_only = true;
        self
    }

    /// Logs every answered operation for `stats`, as answered by `by`
    /// (unless `REPO_SEARCH_NO_STATS` is set).
    pub fn recording(mut self, by: crate::stats::Surface) -> Service {
        self.stats = Some(Arc::new(crate::stats::Recorder::new(self.root(), by)));
        self
    }

    /// Runs one operation and logs it (see [`Service::recording`]).
    pub(crate) fn timed<T>(&self, op: &str, f: impl FnOnce() -> Result<T>) -> Result<T> {
        let Some(stats) = &self.stats else {
            return f();
        };
        let started = std::time::Instant::now();
        cache::take_outcome();
        let out = f();
        stats.record(op, started.elapsed(), out.is_ok(), cache::take_outcome());
        RECORDED.with(|r| r.set(true));
        out
    }

    /// Starts a surface's call on this thread: [`Service::record_refused`]
    /// then knows whether the call reached an operation.
    pub fn call_started() {
        RECORDED.with(|r| r.set(false));
    }

    /// Logs `op` as failed when the call this thread started
    /// ([`Service::call_started`]) was refused before it reached the
    /// operation (arguments a surface checks itself), so `stats` counts
    /// every failed call the same on every surface.
    pub fn record_refused(&self, op: &str, started: std::time::Instant) {
        if let Some(stats) = &self.stats
            && !RECORDED.with(|r| r.replace(true))
        {
            stats.record(op, started.elapsed(), false, None);
        }
    }

    /// Reports foreground index runs (progress, waiting for a writer).
    pub fn with_observer(mut self, observer: Observer) -> Service {
        self.observer = Some(observer);
        self
    }

    pub fn root(&self) -> &Path {
        &self.settings.root
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// A redactor for one answer (`crate::redact`), on unless the user
    /// turned it off (`settings.redact`).
    pub(crate) fn redactor(&self) -> crate::redact::Redactor {
        crate::redact::Redactor::new(self.root(), self.settings.redact)
    }

    pub fn config_error(&self) -> Option<&str> {
        self.config_error.as_deref()
    }

    pub fn index_exists(&self) -> bool {
        self.db.exists()
    }

    /// The embedding settings. A broken config fails here unless this
    /// service uses the defaults for it ([`OnBadConfig::UseDefaults`]).
    pub fn embed_settings(&self) -> Result<EmbedSettings> {
        if self.config_error.is_some() {
            return Ok(EmbedSettings::defaults());
        }
        match crate::settings::resolve_embed(self.root()) {
            Ok((es, _)) => Ok(es),
            Err(_) if self.on_bad_config == OnBadConfig::UseDefaults => {
                Ok(EmbedSettings::defaults())
            }
            Err(e) => Err(e),
        }
    }

    /// The embedding settings, the defaults when the config is broken (for
    /// background vector work, which must not fail an index run).
    fn embed_settings_lenient(&self) -> EmbedSettings {
        lenient_embed(self.root(), self.config_error.is_some())
    }

    /// Runs `f` on a warm read-only connection, after bringing the index up
    /// to date per the policy. `Ok(None)` when there is no index yet (or it
    /// is being created right now).
    ///
    /// A damaged index (SQLite reports corruption on opening it or inside
    /// `f`) is set aside and rebuilt as if it were missing
    /// ([`Service::repair`]), then `f` runs once more on the new one.
    pub fn with_store<R>(&self, mut f: impl FnMut(&Store) -> Result<R>) -> Result<Option<R>> {
        if self.policy == Policy::AsIs {
            return self.with_store_once(&mut f);
        }
        self.repairing(|| self.with_store_once(&mut f))
    }

    /// Runs `run`, and once more after [`Service::repair`] when it met a
    /// damaged index (a reader's query, an embedding pass).
    pub(crate) fn repairing<R>(&self, mut run: impl FnMut() -> Result<R>) -> Result<R> {
        match run() {
            Err(e) if store::is_damaged(&e) => {
                if !self.repair(&e)? {
                    return Err(e);
                }
                run()
            }
            other => other,
        }
    }

    /// Sets a damaged index aside (under the writer lock) and rebuilds it as
    /// if it were missing: in the foreground for a one-shot command, in the
    /// background for a server (whose answers then say the index is being
    /// built). `Ok(false)` when another process holds the writer lock (it
    /// will meet the damage itself).
    fn repair(&self, e: &anyhow::Error) -> Result<bool> {
        tracing::warn!("the index of `{}` is damaged: {e:#}", self.root().display());
        let lock = match crate::lock::WriterLock::acquire(
            self.root(),
            crate::lock::WhenBusy::Fail,
            |_| {},
        ) {
            Ok(lock) => lock,
            Err(_) => return Ok(false),
        };
        // Another process may have repaired it between our error and the lock.
        let still_damaged = match Store::open_ro(self.root()) {
            Ok(Some(s)) => s.quick_check().is_err(),
            Ok(None) => false,
            Err(e) => store::is_damaged(&e),
        };
        if still_damaged {
            store::set_aside(self.root())?;
        }
        drop(lock);
        self.pool().idle.clear();
        self.ensure_fresh()?;
        Ok(true)
    }

    fn with_store_once<R>(&self, f: &mut dyn FnMut(&Store) -> Result<R>) -> Result<Option<R>> {
        let Some(id) = file_id(&self.db) else {
            self.pool().idle.clear();
            return Ok(None);
        };
        let reused = self.pool().take(id);
        let store = match reused {
            Some(s) => s,
            None => match self.open_reader(id) {
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
        self.pool().put(id, store);
        Ok(Some(out))
    }

    /// A new read connection to the index file `id`, sharing the pool's
    /// term cache.
    fn open_reader(&self, id: FileId) -> Result<Option<Store>> {
        let Some(store) = Store::open_ro(self.root())? else {
            return Ok(None);
        };
        Ok(Some(match self.pool().terms_for(id) {
            Some(terms) => store.with_term_cache(terms),
            None => store,
        }))
    }

    fn pool(&self) -> std::sync::MutexGuard<'_, Pool> {
        self.pool.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Spare read connections to the index [`Service::with_store`] reads,
    /// from the same pool, for an arm a search runs on its own thread.
    pub(crate) fn spares(&self) -> Spares<'_> {
        Spares {
            service: self,
            id: file_id(&self.db),
        }
    }

    /// Runs `f` on the warm hybrid searcher, created on first use with the
    /// project's embedding settings; semantic search and similar code reach
    /// the same `SemanticSearcher` through it, so the vector matrix and the
    /// query model are loaded once per service, not once per call.
    pub(crate) fn with_hybrid<R>(&self, f: impl FnOnce(&mut Hybrid) -> Result<R>) -> Result<R> {
        let mut guard = self.hybrid.lock().unwrap_or_else(|e| e.into_inner());
        if guard.is_none() {
            let mut settings = self.embed_settings()?;
            if self.fast_vectors_only {
                // Without a full-tier provider only the fast tier is configured.
                settings.provider = crate::settings::EmbedProvider::None;
            }
            *guard = Some(Hybrid::new(Some(SemanticSearcher::new(
                settings,
                self.models.clone(),
            ))));
        }
        match guard.as_mut() {
            Some(hybrid) => f(hybrid),
            None => Err(anyhow::anyhow!("hybrid searcher missing")),
        }
    }

    /// When the project's files last changed (`history::recency`), cached
    /// per `HEAD` commit: a search costs a look at `HEAD`, and a new commit
    /// reads the history again. Empty without git.
    pub fn recency(&self) -> Arc<crate::history::Recency> {
        let head = crate::history::head_commit(self.root());
        let mut cached = self.recency.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = cached.as_ref()
            && r.head == head
        {
            return r.clone();
        }
        let r = Arc::new(match head {
            Some(_) => crate::history::recency(self.root(), crate::history::RECENCY_COMMITS),
            None => crate::history::Recency::default(),
        });
        *cached = Some(r.clone());
        r
    }

    pub(crate) fn with_semantic<R>(
        &self,
        f: impl FnOnce(&mut SemanticSearcher) -> Result<R>,
    ) -> Result<R> {
        self.with_hybrid(|h| match h.semantic_mut() {
            Some(s) => f(s),
            None => Err(anyhow::anyhow!("semantic searcher missing")),
        })
    }
}

/// The embedding settings of `root`, the defaults when its config file is
/// broken (`config_broken`, or found broken now).
fn lenient_embed(root: &Path, config_broken: bool) -> EmbedSettings {
    if config_broken {
        return EmbedSettings::defaults();
    }
    crate::settings::resolve_embed(root)
        .map(|(es, _)| es)
        .unwrap_or_else(|_| EmbedSettings::defaults())
}

/// The index generation a store is at (0 when unknown).
fn generation_of(store: &Store) -> u64 {
    meta_u64(store, store::meta::GENERATION)
}

/// How many times vectors were written (see `meta::VECTORS_GENERATION`).
fn vectors_generation_of(store: &Store) -> u64 {
    meta_u64(store, store::meta::VECTORS_GENERATION)
}

fn meta_u64(store: &Store, key: &str) -> u64 {
    store.meta_u64(key).unwrap_or(0)
}

thread_local! {
    /// Whether this thread's current call was logged (see
    /// [`Service::record_refused`]).
    static RECORDED: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}
