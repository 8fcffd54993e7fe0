//! Owns one watched project inside the daemon: the queue of changed paths,
//! the worker thread that turns the queue into index runs, and the state
//! `status` reports (watching, indexing with progress, error).
//!
//! Batching: the watcher only queues paths. The worker takes everything
//! queued at once, runs one `index_project` over it, and meanwhile new
//! changes pile up for the next run. A burst of thousands of changes thus
//! becomes a few runs, not thousands.
//!
//! **Invariant**: while the daemon watches a project, this worker is its
//! only writer; `repo-search index` and the MCP server send `reindex`
//! requests, which join the queue like watcher events and are answered by
//! the run that covers them.

use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::Result;
use crossbeam_channel::Sender;

use super::watch::{self, ChangeLog, Changes, Sink, Watcher, Work};
use crate::daemon_client::protocol::{
    ProjectStatus, Response, WireEmbed, WireProgress, WireSummary, WireTier,
};
use crate::embed::Tier;
use crate::index::{
    EmbedPlan, EmbedProgress, EmbedSummary, IndexOptions, IndexSummary, Phase, Progress,
};
use crate::registry::{IndexCounts, ProjectEntry, Registry};
use crate::settings::{Overrides, Settings};

/// How long watcher events count for `events_last_minute`.
const EVENT_WINDOW: Duration = Duration::from_secs(60);

/// What the next run must do.
#[derive(Debug, Default)]
struct Pending {
    /// Throw the index away first (`reindex --full`).
    rebuild: bool,
    /// Walk the whole project.
    reconcile: bool,
    paths: BTreeSet<String>,
    /// Reindex requests answered when the run taking this batch ends.
    waiters: Vec<Sender<Response>>,
}

impl Pending {
    fn has_work(&self) -> bool {
        self.rebuild || self.reconcile || !self.paths.is_empty() || !self.waiters.is_empty()
    }
}

#[derive(Debug, Clone, Copy)]
struct Running {
    started: Instant,
    done: u64,
    total: u64,
}

#[derive(Debug, Default)]
struct State {
    pending: Pending,
    running: Option<Running>,
    /// Why the project cannot be kept fresh right now (root gone, watch
    /// failed, last run failed).
    error: Option<String>,
    /// A run found the root missing: whatever the watcher held is gone
    /// with it, even if the directory is back (with the same inode, which
    /// a file system may reuse) before the next health check.
    root_gone: bool,
    watching: bool,
    stop: bool,
    /// (when, how many paths) per watcher batch, for the last minute.
    events: VecDeque<(Instant, u64)>,
    runs: u64,
    last_run: Option<IndexSummary>,
    files: u64,
    symbols: u64,
    chunks: u64,
    last_indexed: Option<i64>,
    /// The index changed since the embedder last looked (or it never did).
    embed_wanted: bool,
    /// A merge of the full-text index may be due or was left half done
    /// ([`merge_fts_when_quiet`]); the embedder's thread comes back to it.
    merge_wanted: bool,
    /// What changed since the index last looked ([`Shared::changed`]).
    log: ChangeLog,
    /// What the embedder is doing or did last, for `status`.
    embed: Option<WireEmbed>,
}

/// The part of a project shared by the daemon's main loop, the watcher
/// callback and the worker.
pub struct Shared {
    root: PathBuf,
    registry: Registry,
    state: Mutex<State>,
    wake: Condvar,
    /// The daemon's warm embedding models, shared by its projects.
    models: crate::embed::Models,
}

impl Shared {
    /// Waits on [`Shared::wake`] for at most `timeout`.
    fn wait_for<'a>(
        &'a self,
        st: MutexGuard<'a, State>,
        timeout: Duration,
    ) -> MutexGuard<'a, State> {
        self.wake
            .wait_timeout(st, timeout)
            .map(|(g, _)| g)
            .unwrap_or_else(|e| e.into_inner().0)
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic in another thread while holding the lock leaves the state
        // usable (plain counters and queues), so carry on with it.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// What changed since the index's last run, for searches that list
    /// the index's files instead of walking: `None` unless the index plus
    /// these paths is known to be the project's exact state (watching, a
    /// reconcile done since the watch began, no events lost, no ignore file
    /// or config edit waiting for its run).
    pub fn changed(&self) -> Option<Vec<String>> {
        let st = self.lock();
        if !st.watching || st.pending.reconcile || st.pending.rebuild {
            return None;
        }
        st.log.changed()
    }

    /// Forgets what a successful run started at `started` (a `heard`
    /// count) covered: every path for a reconcile, else the batch's own.
    fn covered(&self, started: u64, reconcile: bool, paths: &BTreeSet<String>) {
        self.lock().log.covered(started, reconcile, paths);
    }
}

impl Sink for Shared {
    /// Records raw events at once (on the watcher's thread).
    fn heard(&self, paths: &[String], rescan: bool) {
        self.lock().log.heard(paths, rescan);
    }

    fn changes(&self, changes: Changes) {
        self.add_changes(changes);
    }
}

impl Shared {
    /// Queues watcher changes (called on the watcher's thread).
    fn add_changes(&self, changes: Changes) {
        for e in &changes.errors {
            tracing::warn!("watcher error in `{}`: {e}", self.root.display());
        }
        let mut st = self.lock();
        let now = Instant::now();
        st.events.push_back((now, changes.paths.len() as u64));
        trim_events(&mut st.events, now);
        if changes.rescan {
            st.pending.reconcile = true;
        }
        st.pending.paths.extend(changes.paths);
        drop(st);
        self.wake.notify_all();
    }
}

fn trim_events(events: &mut VecDeque<(Instant, u64)>, now: Instant) {
    while events
        .front()
        .is_some_and(|(t, _)| now.duration_since(*t) > EVENT_WINDOW)
    {
        events.pop_front();
    }
}

/// A project the daemon watches: its worker thread and its watcher.
pub struct Project {
    shared: Arc<Shared>,
    watcher: Arc<Watcher>,
    /// Whether the watcher has this root.
    watched: bool,
    /// When to try watching again after a failure.
    retry_at: Option<Instant>,
    /// The root directory the watcher was set on (device, inode): a root
    /// deleted and created again needs a new watch.
    watched_id: Option<(u64, u64)>,
    worker: Option<std::thread::JoinHandle<()>>,
    /// Computes missing vectors in the background, at low priority.
    embedder: Option<std::thread::JoinHandle<()>>,
}

impl Project {
    /// Starts the worker and the watcher, and queues a reconcile so that
    /// changes made while nobody watched are caught.
    pub fn start(
        entry: &ProjectEntry,
        registry: Registry,
        watcher: Arc<Watcher>,
        models: crate::embed::Models,
    ) -> Project {
        let state = State {
            files: entry.files,
            symbols: entry.symbols,
            chunks: entry.chunks,
            last_indexed: entry.last_indexed,
            embed_wanted: true,
            merge_wanted: true,
            ..State::default()
        };
        let shared = Arc::new(Shared {
            root: entry.root.clone(),
            registry,
            state: Mutex::new(state),
            wake: Condvar::new(),
            models,
        });
        let worker_shared = Arc::clone(&shared);
        let worker = std::thread::Builder::new()
            .name(format!("index {}", entry.root.display()))
            .spawn(move || run_worker(&worker_shared))
            .map_err(|e| {
                tracing::error!(
                    "cannot start the index worker for `{}`: {e}",
                    entry.root.display()
                )
            })
            .ok();
        let embed_shared = Arc::clone(&shared);
        let embedder = std::thread::Builder::new()
            .name(format!("embed {}", entry.root.display()))
            .spawn(move || run_embedder(&embed_shared))
            .map_err(|e| {
                tracing::error!(
                    "cannot start the embedding worker for `{}`: {e}",
                    entry.root.display()
                )
            })
            .ok();
        let mut p = Project {
            shared,
            watcher,
            watched: false,
            retry_at: None,
            watched_id: None,
            worker,
            embedder,
        };
        p.check_health();
        p
    }

    pub fn root(&self) -> &Path {
        &self.shared.root
    }

    pub fn is_watching(&self) -> bool {
        self.watched
    }

    /// See [`Shared::changed`], once the watcher heard every change made
    /// before this call ([`Watcher::synced`]).
    pub fn changed(&self) -> Option<Vec<String>> {
        self.watcher
            .synced(&self.shared.root, || self.shared.changed())
    }

    /// Re-checks that the root exists and the watcher runs; starts the
    /// watcher (with a reconcile) when it can, marks an error when not.
    pub fn check_health(&mut self) {
        let root = self.shared.root.clone();
        if !root.is_dir() {
            self.stop_watching();
            let msg = format!("project root `{}` does not exist", root.display());
            if self.set_error(Some(msg.clone())) {
                tracing::warn!("{msg}; not watching it until it is back");
            }
            let mut st = self.lock();
            st.watching = false;
            st.pending = Pending {
                waiters: std::mem::take(&mut st.pending.waiters),
                ..Pending::default()
            };
            return;
        }
        let id = dir_identity(&root);
        let came_back = std::mem::take(&mut self.lock().root_gone);
        if self.watched && (id != self.watched_id || came_back) {
            tracing::info!("`{}` was replaced; watching it again", root.display());
            self.stop_watching();
            self.retry_at = None;
        }
        if self.watched || self.retry_at.is_some_and(|t| Instant::now() < t) {
            return;
        }
        // A new watch knows nothing of what changed before it: the
        // reconcile it queues must finish before the file list is trusted.
        self.lock().log.restart();
        let sink: Arc<dyn Sink> = Arc::clone(&self.shared) as Arc<dyn Sink>;
        match self.watcher.watch(&root, sink) {
            Ok(()) => {
                tracing::info!("watching `{}`", root.display());
                self.watched = true;
                self.watched_id = id;
                self.retry_at = None;
                self.set_error(None);
                let mut st = self.lock();
                st.watching = true;
                st.pending.reconcile = true;
                drop(st);
                self.shared.wake.notify_all();
            }
            Err(e) => {
                let msg = crate::error::find_user_error(&e)
                    .map(|u| u.message.clone())
                    .unwrap_or_else(|| format!("{e:#}"));
                tracing::warn!("{msg}");
                self.retry_at = Some(Instant::now() + Duration::from_secs(30));
                self.set_error(Some(msg));
            }
        }
    }

    fn stop_watching(&mut self) {
        if self.watched {
            self.watcher.unwatch(&self.shared.root);
            self.watched = false;
        }
    }

    /// Sets the project's error (in the registry too); true if it changed.
    fn set_error(&self, error: Option<String>) -> bool {
        let changed = {
            let mut st = self.lock();
            let changed = st.error != error;
            st.error = error.clone();
            changed
        };
        if changed
            && let Err(e) = self
                .shared
                .registry
                .set_error(&self.shared.root, error.as_deref())
        {
            tracing::warn!("cannot update the registry: {e:#}");
        }
        changed
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.shared.lock()
    }

    /// Queues a reindex request; `reply` gets the result of the run that
    /// covers it.
    pub fn request(
        &self,
        paths: Vec<String>,
        reconcile: bool,
        rebuild: bool,
        reply: Sender<Response>,
    ) {
        let mut st = self.lock();
        st.pending.paths.extend(paths);
        st.pending.reconcile |= reconcile;
        st.pending.rebuild |= rebuild;
        st.pending.waiters.push(reply);
        drop(st);
        self.shared.wake.notify_all();
    }

    /// Stops watching and asks the worker to exit after its current run.
    pub fn begin_stop(&mut self) {
        self.stop_watching();
        let mut st = self.lock();
        st.stop = true;
        st.watching = false;
        drop(st);
        self.shared.wake.notify_all();
    }

    /// Waits for the worker until `deadline`; false if it is still running.
    /// Waits for the worker and the embedder until `deadline`; false if
    /// one is still running.
    pub fn join(&mut self, deadline: Instant) -> bool {
        let worker = join_until(&mut self.worker, deadline);
        let embedder = join_until(&mut self.embedder, deadline);
        worker && embedder
    }

    pub fn status(&self, entry: Option<&ProjectEntry>) -> ProjectStatus {
        let mut st = self.lock();
        let now = Instant::now();
        trim_events(&mut st.events, now);
        let queue = st.pending.paths.len() as u64;
        let in_run = st
            .running
            .map(|r| r.total.saturating_sub(r.done))
            .unwrap_or(0);
        let state = if st.running.is_some() {
            "indexing"
        } else if st.error.is_some() {
            "error"
        } else if st.watching {
            "watching"
        } else {
            "idle"
        };
        ProjectStatus {
            root: self.shared.root.clone(),
            watch: entry.is_none_or(|e| e.watch),
            state: state.into(),
            error: st.error.clone(),
            progress: st.running.map(|r| progress(r, now)),
            files: st.files,
            symbols: st.symbols,
            chunks: st.chunks,
            last_indexed: st.last_indexed,
            stale_files: Some(queue + in_run),
            queue,
            events_last_minute: st.events.iter().map(|(_, n)| n).sum(),
            runs: st.runs,
            last_run: st.last_run.as_ref().map(WireSummary::from),
            embeddings: st.embed.clone(),
        }
    }
}

fn join_until(slot: &mut Option<std::thread::JoinHandle<()>>, deadline: Instant) -> bool {
    let Some(handle) = slot.take() else {
        return true;
    };
    while !handle.is_finished() {
        if Instant::now() >= deadline {
            *slot = Some(handle);
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let _ = handle.join();
    true
}

/// (device, inode) of a directory, to notice it was replaced.
fn dir_identity(path: &Path) -> Option<(u64, u64)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        None
    }
}

fn progress(r: Running, now: Instant) -> WireProgress {
    let elapsed = now.duration_since(r.started).as_secs_f64();
    let eta_s = (r.done > 0 && r.total >= r.done)
        .then(|| elapsed / r.done as f64 * (r.total - r.done) as f64);
    WireProgress {
        done: r.done,
        total: r.total,
        elapsed_s: elapsed,
        eta_s,
    }
}

/// Status of a registered project the daemon does not watch.
pub fn unwatched_status(e: &ProjectEntry) -> ProjectStatus {
    ProjectStatus {
        root: e.root.clone(),
        watch: e.watch,
        state: if e.last_error.is_some() {
            "error"
        } else {
            "idle"
        }
        .into(),
        error: e.last_error.clone(),
        files: e.files,
        symbols: e.symbols,
        chunks: e.chunks,
        last_indexed: e.last_indexed,
        ..ProjectStatus::default()
    }
}

fn run_worker(shared: &Shared) {
    loop {
        let (started, batch) = {
            let mut st = shared.lock();
            loop {
                if st.stop {
                    for w in st.pending.waiters.drain(..) {
                        let _ = w.send(stopped());
                    }
                    return;
                }
                if st.pending.has_work() {
                    break;
                }
                st = shared.wake.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            st = coalesce_burst(shared, st);
            st.running = Some(Running {
                started: Instant::now(),
                done: 0,
                total: 0,
            });
            (st.log.clock(), std::mem::take(&mut st.pending))
        };
        let waiters = batch.waiters.len();
        let result =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run_batch(shared, &batch)))
                .unwrap_or_else(|_| {
                    Err(anyhow::anyhow!(
                        "internal error while indexing (see the daemon log)"
                    ))
                });
        if let Ok(done) = &result {
            shared.covered(
                started,
                batch.rebuild || batch.reconcile || done.as_ref().is_some_and(|d| d.1),
                &batch.paths,
            );
        }
        let result = result.map(|done| done.map(|d| d.0));
        finish_batch(shared, batch.waiters, result);
        tracing::debug!(
            "`{}`: run done ({waiters} waiting requests answered)",
            shared.root.display()
        );
    }
}

/// This many changed paths within [`BURST_WINDOW`] make a burst (a
/// checkout, a build, an unpacked archive).
const BURST_PATHS: u64 = 64;
const BURST_WINDOW: Duration = Duration::from_millis(500);
/// During a burst, wait for this much quiet before indexing...
const BURST_QUIET: Duration = Duration::from_millis(100);
/// ...but never longer than this in all.
const BURST_MAX_WAIT: Duration = Duration::from_secs(2);

/// Lets a burst of changes finish arriving so it is indexed in one run
/// instead of many small ones. A single save is not a burst and never
/// waits here.
fn coalesce_burst<'a>(shared: &'a Shared, mut st: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
    let now = Instant::now();
    let recent: u64 = st
        .events
        .iter()
        .rev()
        .take_while(|(t, _)| now.duration_since(*t) <= BURST_WINDOW)
        .map(|(_, n)| n)
        .sum();
    if st.stop || (recent < BURST_PATHS && (st.pending.paths.len() as u64) < BURST_PATHS) {
        return st;
    }
    loop {
        let before = st.pending.paths.len();
        st = shared.wait_for(st, BURST_QUIET);
        if st.stop || st.pending.paths.len() == before || now.elapsed() >= BURST_MAX_WAIT {
            return st;
        }
    }
}

fn stopped() -> Response {
    Response::error(
        "repo-search-daemon is stopping",
        Some("run `repo-search index` again".into()),
    )
}

/// One index run over a batch, and whether it walked the whole project.
/// `Ok(None)`: nothing to do.
fn run_batch(shared: &Shared, batch: &Pending) -> Result<Option<(IndexSummary, bool)>> {
    let root = &shared.root;
    if !root.is_dir() {
        anyhow::bail!("project root `{}` does not exist", root.display());
    }
    // Settings are resolved per run, so an edited `.repo_search/config.toml`
    // applies at once (the watcher turns that edit into a reconcile).
    let settings = Settings::resolve(root.clone(), &Overrides::default())?;
    // An index deleted under the watch (`rm -rf .repo_search`) is built
    // again whole: the batch's few paths alone left an index of one file.
    let gone = !crate::store::db_path(root).is_file();
    if gone {
        tracing::info!("`{}`: the index is gone; building it again", root.display());
    }
    let work = if batch.rebuild || batch.reconcile || gone {
        Work {
            reconcile: true,
            only: Vec::new(),
        }
    } else {
        watch::plan_work(&settings, &batch.paths)
    };
    if work.is_empty() {
        return Ok(None);
    }
    tracing::debug!(
        "`{}`: indexing {}",
        root.display(),
        if work.reconcile {
            "the whole project".to_string()
        } else {
            format!("{} paths", work.only.len())
        }
    );
    let reconcile = work.reconcile;
    let opts = IndexOptions {
        full: batch.rebuild,
        in_place: false,
        no_wait: false,
        only: work.only,
    };
    let on_progress = |p: Progress| {
        if p.phase == Phase::Indexing {
            let mut st = shared.lock();
            if let Some(r) = st.running.as_mut() {
                r.done = p.done;
                r.total = p.total;
            }
        }
    };
    let started = std::time::Instant::now();
    let summary = crate::index::index_project(&settings, &opts, &on_progress, |pid| {
        let who = crate::lock::holder_label(pid);
        tracing::info!("`{}`: waiting for another writer{who}", root.display());
    });
    // The daemon's runs count in `stats` like the CLI's and the server's.
    crate::stats::Recorder::new(root, crate::stats::Surface::Daemon).record(
        "index",
        started.elapsed(),
        summary.is_ok(),
        None,
    );
    Ok(Some((summary?, reconcile)))
}

fn finish_batch(
    shared: &Shared,
    waiters: Vec<Sender<Response>>,
    result: Result<Option<IndexSummary>>,
) {
    let root = &shared.root;
    let mut record = None;
    let response = {
        let mut st = shared.lock();
        st.running = None;
        match &result {
            Ok(Some(s)) => {
                st.runs += 1;
                st.files = s.files;
                st.symbols = s.symbols;
                st.chunks = s.chunks;
                let counts = IndexCounts::from_summary(root, s);
                // When the index last changed, as the index itself keeps
                // it (a run that finds nothing to do leaves it): `status`
                // had said "indexed 1s ago" after the start-up check where
                // `projects` said minutes.
                if s.changed > 0 || s.removed > 0 || st.last_indexed.is_none() {
                    st.last_indexed = Some(counts.last_indexed);
                }
                let had_error = st.error.take().is_some();
                if had_error || s.changed > 0 || s.removed > 0 || st.runs == 1 {
                    record = Some(counts);
                }
                if s.changed > 0 || s.removed > 0 {
                    st.embed_wanted = true;
                }
                st.last_run = Some(s.clone());
                tracing::info!(
                    "`{}`: {} changed, {} removed in {:.3}s ({} files, {} symbols)",
                    root.display(),
                    s.changed,
                    s.removed,
                    s.seconds,
                    s.files,
                    s.symbols
                );
                Response {
                    handled: Some(true),
                    summary: Some(WireSummary::from(s)),
                    ..Response::ok()
                }
            }
            Ok(None) => {
                let mut summary = st.last_run.clone().unwrap_or_default();
                summary.root = root.display().to_string();
                (summary.files, summary.symbols, summary.chunks) =
                    (st.files, st.symbols, st.chunks);
                (
                    summary.changed,
                    summary.removed,
                    summary.seconds,
                    summary.walk_seconds,
                ) = (0, 0, 0.0, 0.0);
                Response {
                    handled: Some(true),
                    summary: Some(WireSummary::from(&summary)),
                    ..Response::ok()
                }
            }
            Err(e) => {
                let msg = format!("{e:#}");
                tracing::warn!("`{}`: index run failed: {msg}", root.display());
                st.error = Some(msg.clone());
                if !root.is_dir() {
                    st.root_gone = true;
                }
                let hint = crate::error::find_user_error(e).and_then(|u| u.hint.clone());
                Response {
                    handled: Some(true),
                    ..Response::error(msg, hint)
                }
            }
        }
    };
    // The embedder waits for the index to be idle.
    shared.wake.notify_all();
    for w in waiters {
        let _ = w.send(response.clone());
    }
    // The registry is written after the answers, off the latency path.
    let registry_result = match (&result, record) {
        (Ok(_), Some(counts)) => shared.registry.record_index(root, &counts, false),
        (Err(_), _) => shared.registry.set_error(root, response.error.as_deref()),
        _ => Ok(()),
    };
    if let Err(e) = registry_result {
        tracing::warn!("cannot update the registry: {e:#}");
    }
}

/// Background embedding: whenever the index changed and no index run is
/// going or queued, computes missing vectors (fast tier first, so new
/// chunks are searchable in seconds, then the full tier). It yields to
/// new changes: a run stops after its current batch when the index changes
/// again, and starts over (fast first) once the index is idle. Runs at the
/// lowest CPU priority, so indexing and searching stay quick meanwhile.
fn run_embedder(shared: &Shared) {
    lower_thread_priority();
    let mut last_merge: Option<Instant> = None;
    loop {
        let embed = {
            let mut st = shared.lock();
            loop {
                if st.stop {
                    return;
                }
                if (st.embed_wanted || st.merge_wanted)
                    && st.running.is_none()
                    && !st.pending.has_work()
                {
                    break;
                }
                st = shared.wake.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            if st.embed_wanted {
                // Changes may have left tombstones to merge.
                st.merge_wanted = true;
            }
            std::mem::take(&mut st.embed_wanted)
        };
        // First, when the project is quiet already: a merge is bounded
        // (seconds), embedding a large project all its vectors is not.
        // After an edit, the edit's few chunks are embedded first, and the
        // merge waits for the quiet after them.
        merge_fts_when_quiet(shared, &mut last_merge, embed);
        if !embed {
            continue;
        }
        if let Some(pid) = crate::index::embedding_elsewhere(&shared.root) {
            // Another process (`repo-search index` that just registered
            // the project, an MCP server) embeds these chunks now: the
            // same work beside it would only halve its speed. Look again
            // shortly; its vectors will be there.
            tracing::debug!(
                "`{}`: process {pid} is computing vectors; waiting for it",
                shared.root.display()
            );
            let mut st = shared.lock();
            st.embed_wanted = true;
            drop(shared.wait_for(st, EMBED_ELSEWHERE_RETRY));
            continue;
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| embed_once(shared)))
            .unwrap_or_else(|_| {
                Err(anyhow::anyhow!(
                    "internal error while embedding (see the daemon log)"
                ))
            });
        let mut st = shared.lock();
        match result {
            Ok(Some(summaries)) => st.embed = Some(WireEmbed::finished(&summaries)),
            Ok(None) => {}
            Err(e) => {
                tracing::warn!("`{}`: embedding failed: {e:#}", shared.root.display());
                st.embed = Some(WireEmbed {
                    state: "error".into(),
                    note: Some(format!("{e:#}")),
                    ..st.embed.clone().unwrap_or_default()
                });
            }
        }
    }
}

/// How often the embedder looks again while another process embeds the
/// project ([`crate::index::embedding_elsewhere`]).
const EMBED_ELSEWHERE_RETRY: Duration = Duration::from_secs(2);

/// How long a project stays without changes before the daemon merges its
/// full-text index ([`merge_fts_when_quiet`]).
const MERGE_QUIET: Duration = Duration::from_secs(10);

/// Merges the full-text index in steps once changes left enough
/// tombstones (`index::merge_fts_idle`), before the embedding they call
/// for, and stops at the next change: an index run on a large project
/// merges only at ten times the tombstones (10%, not 1%), so a 1,000-file
/// checkout on the kernel is indexed in seconds instead of waiting for a
/// minute's merge, and the queries get their speed back in the background.
///
/// It starts only after [`MERGE_QUIET`] without a change: edits come in
/// bursts. A run that comes while the merge is half done does not carry it
/// on (FTS5's automerge is off until it ends, `Store::merge_fts_step`): a
/// one-file save mid-merge on the kernel is indexed in about 0.6 s (it
/// took 6 s when automerge went on with the merge).
///
/// With `then_embed` (vectors are wanted next) it does not wait for the
/// quiet: it merges only if the project is quiet already, else leaves the
/// merge wanted for after the embedding (waiting here held a save's new
/// chunks without vectors for the whole 10 s).
fn merge_fts_when_quiet(shared: &Shared, last_attempt: &mut Option<Instant>, then_embed: bool) {
    let busy =
        |st: &State| st.stop || st.embed_wanted || st.running.is_some() || st.pending.has_work();
    {
        let mut st = shared.lock();
        if !st.merge_wanted {
            return;
        }
        loop {
            // Left wanted: the embedder's loop comes back once idle.
            if busy(&st) {
                return;
            }
            // Not before the first run (the reconcile a watch starts
            // with) has finished; waiting here, not returning, so a first
            // run that fails does not make the loop spin.
            if st.runs == 0 {
                if then_embed {
                    return;
                }
                st = shared.wait_for(st, MERGE_QUIET);
                continue;
            }
            let since = [st.events.back().map(|(t, _)| *t), *last_attempt]
                .into_iter()
                .flatten()
                .map(|t| t.elapsed())
                .min()
                .unwrap_or(MERGE_QUIET);
            if since >= MERGE_QUIET {
                break;
            }
            if then_embed {
                return;
            }
            st = shared.wait_for(st, MERGE_QUIET - since);
        }
    }
    *last_attempt = Some(Instant::now());
    let should_stop = || busy(&shared.lock());
    let merged = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if !crate::store::db_path(&shared.root).is_file() {
            return Ok(crate::index::FtsMergeOutcome::default());
        }
        crate::index::merge_fts_idle(&shared.root, &should_stop)
    }));
    let again = match merged {
        Ok(Ok(outcome)) => outcome.stopped,
        Ok(Err(e)) => {
            tracing::warn!(
                "`{}`: merging the full-text index: {e:#}",
                shared.root.display()
            );
            false
        }
        Err(_) => {
            tracing::warn!(
                "`{}`: internal error while merging the full-text index",
                shared.root.display()
            );
            false
        }
    };
    shared.lock().merge_wanted = again;
}

/// One embedding pass over every configured tier. `None`: no index yet.
fn embed_once(shared: &Shared) -> Result<Option<Vec<EmbedSummary>>> {
    let root = &shared.root;
    if !crate::store::db_path(root).is_file() {
        return Ok(None);
    }
    let settings = Settings::resolve(root.clone(), &Overrides::default())?;
    let (embed_settings, _) = crate::settings::resolve_embed(root)?;
    let should_stop = || {
        let st = shared.lock();
        st.stop || st.embed_wanted
    };
    let plan = EmbedPlan {
        tiers: &[Tier::Fast, Tier::Full],
        defer_full_over: None,
        top_up_full_only: false,
        models: Some(&shared.models),
        should_stop: &should_stop,
    };
    let progress = |p: &EmbedProgress| {
        let mut st = shared.lock();
        let tiers = st
            .embed
            .as_ref()
            .map(|e| e.tiers.clone())
            .unwrap_or_default();
        st.embed = Some(WireEmbed::running(p, tiers));
    };
    let started = Instant::now();
    let summaries =
        crate::index::embed_project(&settings, &embed_settings, &plan, &progress, &|_| {})?;
    let embedded: u64 = summaries.iter().map(|s| s.embedded).sum();
    if embedded > 0 {
        tracing::info!(
            "`{}`: embedded {embedded} chunks in {:.1}s",
            root.display(),
            started.elapsed().as_secs_f64()
        );
    }
    Ok(Some(summaries))
}

/// Background threads run at the lowest priority (Linux: per thread).
#[allow(unsafe_code)] // reviewed: two plain syscalls, see SAFETY below
fn lower_thread_priority() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: plain syscalls on this thread's own id.
        let rc = unsafe {
            let tid = libc::syscall(libc::SYS_gettid) as libc::id_t;
            libc::setpriority(libc::PRIO_PROCESS, tid, 19)
        };
        if rc != 0 {
            tracing::debug!(
                "cannot lower the embedding thread's priority: {}",
                std::io::Error::last_os_error()
            );
        }
    }
}

impl WireEmbed {
    fn running(p: &EmbedProgress, tiers: Vec<WireTier>) -> WireEmbed {
        WireEmbed {
            state: "embedding".into(),
            tier: Some(p.tier.name().into()),
            model: Some(p.model.clone()),
            done: p.done,
            total: p.total,
            rate: Some(p.rate()),
            eta_s: p.eta_s(),
            tiers,
            note: None,
        }
    }

    fn finished(summaries: &[EmbedSummary]) -> WireEmbed {
        let tiers: Vec<WireTier> = summaries
            .iter()
            .map(|s| WireTier {
                tier: s.tier.name().into(),
                model: s.model.clone(),
                with_vectors: s.with_vectors,
                total_chunks: s.total_chunks,
                note: s.skipped.as_ref().map(|r| match &s.hint {
                    Some(h) => format!("{r} (hint: {h})"),
                    None => r.clone(),
                }),
            })
            .collect();
        let interrupted = summaries.iter().any(|s| s.interrupted);
        let complete = tiers
            .iter()
            .filter(|t| t.note.is_none())
            .any(|t| t.with_vectors == t.total_chunks);
        let state = if interrupted {
            "pending"
        } else if tiers.iter().all(|t| t.note.is_some()) {
            "unavailable"
        } else if complete {
            "done"
        } else {
            "pending"
        };
        WireEmbed {
            state: state.into(),
            tiers,
            ..WireEmbed::default()
        }
    }
}
