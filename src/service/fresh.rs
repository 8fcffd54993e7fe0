//! Owns keeping the index fresh for a [`Service`]: the one "ask the daemon,
//! else index here" path ([`Service::index`]), and the freshness policy that
//! runs before each index-backed answer ([`Service::ensure_fresh`]).
//!
//! Freshness, per [`Policy`]:
//! - `Background` (the MCP server): at start, and on an index-backed call
//!   when the last run started more than [`REFRESH_INTERVAL`] ago, an
//!   incremental run starts in a background thread, unless another process
//!   holds the writer lock (it is writing already). A call waits for a run
//!   at most [`REFRESH_WAIT`] (counted from the run's start), then answers
//!   from what is committed, saying so. A cheap re-check of an unchanged
//!   tree ends well within that, so an edit the agent just made is in the
//!   answer.
//! - `Foreground` (a CLI command): before the first index-backed answer, a
//!   missing index is built (with progress), and an existing one is brought
//!   up to date with the files changed on disk since its last run (a walk
//!   and a stat per file, or what a watching daemon heard; nothing is
//!   written when nothing changed), so an answer after an edit is as fresh
//!   as `rg`'s. Only what changed is redone: a file indexed with
//!   command-line flags (`index --hidden`) stays unless it was deleted. A
//!   bad call fails before it and writes nothing. When another process is
//!   writing, the answer waits for it at most [`REFRESH_WAIT`], then reads
//!   what is committed and says which shown files changed.
//! - `AsIs` (the eval runner): the index is searched as it is.
//!
//! Readers never block the writer: connections are read-only over WAL and
//! see each committed batch.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use anyhow::Result;
use serde::Serialize;

use super::{Policy, Service};
use crate::error::{ErrorCode, UserError, find_user_error, has_code};
use crate::index::{IndexOptions, IndexSummary, Phase, Progress};
use crate::settings::Settings;

/// An index-backed call starts a re-check when the last one started longer
/// ago than this.
pub const REFRESH_INTERVAL: Duration = Duration::from_secs(2);
/// How long a call waits for a running index run (from the run's start)
/// before it answers from what is committed.
pub const REFRESH_WAIT: Duration = Duration::from_millis(1500);
/// After a failed index run, the next one starts no sooner than this.
const RETRY_AFTER_FAILURE: Duration = Duration::from_secs(30);

/// What a foreground index run reports while it works, for a progress bar
/// or notes; surfaces decide how (or whether) to show it.
#[derive(Debug, Clone, Copy)]
pub enum IndexEvent {
    /// There is no index yet: an answer needs it, so it is built now.
    Building,
    /// The index was written by an earlier repo-search (an older schema):
    /// it is rebuilt now.
    Rebuilding,
    Progress(Progress),
    /// Another process (its pid when known) holds the writer lock.
    Waiting(Option<u32>),
    /// This many files changed since the last index run (0: the ignore
    /// rules did, so all are looked at): the index is updated now.
    Updating(usize),
}

/// A foreground update of at least this many files shows its progress
/// ([`IndexEvent::Updating`]).
pub const UPDATE_SHOWN: usize = 200;

/// Who ran an index update.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IndexedBy {
    /// `repo-search-daemon`, which watches the project (it is its writer).
    Daemon,
    /// This process.
    Here,
}

/// The outcome of [`Service::index`].
#[derive(Debug, Clone)]
pub struct IndexRun {
    pub summary: IndexSummary,
    pub by: IndexedBy,
}

/// How [`Service::index`] runs.
#[derive(Debug, Clone, Default)]
pub struct IndexJob {
    pub opts: IndexOptions,
    /// Record the project in the registry (an explicit `index`/`init`).
    pub register: bool,
    pub vectors: Vectors,
}

/// Which vectors a run computes after indexing, when it indexes here:
/// fast-tier vectors for every chunk that lacks them (seconds even for a
/// large tree), and full-tier ones when the full tier was complete and only
/// a few chunks (at most [`FRESH_FULL_MAX`], the ones an edit changed) lack
/// them, so one edited file does not switch search to the fast model. A
/// full tier never computed, or a large backlog (a branch switch), is left
/// to `repo-search index` or the daemon.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Vectors {
    /// None (`repo-search index` runs its own embedding phase).
    #[default]
    None,
    /// When the run changed something, so semantic search and the hybrid's
    /// semantic arm work without a daemon.
    IfChanged,
    /// Whatever lacks them (a server's first run fills in an index built
    /// by `init` or `index --no-embed`, or left a few full-tier vectors to do).
    Always,
}

/// A fresh-keeping run embeds at most this many chunks with the full model:
/// about a second with the model loaded (about 75 chunks/s on two idle
/// cores, fewer on busy ones; `scripts/bench-embed.sh`), which an edit of a
/// file or two never exceeds.
pub const FRESH_FULL_MAX: u64 = 64;

/// What this service's background index runs are doing.
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
    /// The last run found another process writing (`IndexBusy`) and left
    /// the work to it.
    pub left_to_other_writer: bool,
}

/// The background runs and a condition variable to wait for their end.
#[derive(Default)]
pub(super) struct Runs {
    state: Mutex<RunState>,
    changed: Condvar,
}

impl Runs {
    fn lock(&self) -> MutexGuard<'_, RunState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// How an answer relates to the index's freshness.
#[derive(Debug, Clone, Default)]
pub struct Freshness {
    /// A writer (a background run of this process or another process) runs.
    pub indexing: bool,
    /// The first build is running: results hold only what is committed so far.
    pub building: bool,
    pub progress: Option<Progress>,
    /// Another process holds the writer lock (its pid when known).
    pub other_writer: Option<u32>,
    pub last_error: Option<String>,
}

/// A progress phase as a word.
pub fn phase_name(p: Phase) -> &'static str {
    match p {
        Phase::Walking => "walking",
        Phase::Indexing => "indexing",
        Phase::Done => "done",
    }
}

impl Service {
    /// Builds or updates the index: the one place that decides who writes
    /// (see [`run_index`]).
    pub fn index(&self, job: &IndexJob, events: &(dyn Fn(IndexEvent) + Sync)) -> Result<IndexRun> {
        self.timed("index", || self.index_untimed(job, events))
    }

    fn index_untimed(
        &self,
        job: &IndexJob,
        events: &(dyn Fn(IndexEvent) + Sync),
    ) -> Result<IndexRun> {
        run_index(
            &self.settings,
            &|| self.embed_settings_lenient(),
            &self.models,
            job,
            events,
        )
    }

    /// The second phase of an index run: vectors for the chunks that lack
    /// them, per `plan` (tiers, fast first; resumable), with progress.
    pub fn embed(
        &self,
        plan: &crate::index::EmbedPlan<'_>,
        progress: &dyn Fn(&crate::index::EmbedProgress),
        on_wait: &dyn Fn(Option<u32>),
    ) -> Result<Vec<crate::index::EmbedSummary>> {
        self.timed("embed", || {
            let settings = self.embed_settings()?;
            // Damage the index run did not meet (pages only vectors use):
            // set aside, rebuilt, then embedded once more.
            self.repairing(|| {
                crate::index::embed_project(&self.settings, &settings, plan, progress, on_wait)
            })
        })
    }

    /// Before an index-backed answer: bring the index up to date as this
    /// service's [`Policy`] says, and say how fresh the answer will be.
    pub fn ensure_fresh(&self) -> Result<Freshness> {
        // A planted `.repo_search` symlink (or one inside it) is an error
        // for every surface at once, not a background failure to note.
        crate::store::index_dir_checked(self.root(), crate::store::DirUse::Read)?;
        match self.policy {
            Policy::AsIs => Ok(self.freshness()),
            Policy::Background => Ok(self.refresh_in_background()),
            Policy::Foreground => self.build_or_update(),
        }
    }

    /// Builds a missing index, or brings an existing one up to date, in the
    /// foreground (a CLI command; once per service).
    fn build_or_update(&self) -> Result<Freshness> {
        if crate::store::unbuilt(self.root()).is_none() {
            if !self.settings.update_before_answer {
                return Ok(self.freshness());
            }
            // (A flag, not a `Once`: a repair inside the update asks again.)
            if !self.updated.swap(true, std::sync::atomic::Ordering::SeqCst) {
                self.update_here();
            }
            return Ok(self.freshness());
        }
        self.build_if_missing()
    }

    /// Re-indexes what changed on disk since the last index run, here (or
    /// through the daemon when it watches the project): what a watching
    /// daemon heard, else what a walk finds ([`crate::index::changed_paths`]).
    /// Nothing to do writes nothing. A failure is logged and the answer
    /// reads the index as it is (its notes name the changed files it shows).
    fn update_here(&self) {
        let started = Instant::now();
        let only = match self.daemon_changed() {
            Some(heard) => {
                let set: std::collections::BTreeSet<String> = heard.into_iter().collect();
                let work = crate::daemon::watch::plan_work(&self.settings, &set);
                if work.is_empty() {
                    return;
                }
                // A reconcile's empty `only` walks the whole tree.
                work.only
            }
            None => {
                match self.with_store(|store| crate::index::changed_paths(&self.settings, store)) {
                    Ok(Some(paths)) if !paths.is_empty() => paths,
                    Ok(_) => {
                        tracing::debug!(
                            ms = started.elapsed().as_millis() as u64,
                            "index up to date"
                        );
                        return;
                    }
                    Err(e) => {
                        tracing::warn!("cannot tell what changed since the last index run: {e:#}");
                        return;
                    }
                }
            }
        };
        let count = only.len();
        let observer = self.observer.as_deref().unwrap_or(&|_| {});
        // A few files are redone in well under a second: no progress bar.
        let shown = count >= UPDATE_SHOWN || count == 0;
        if shown {
            observer(IndexEvent::Updating(count));
        }
        let quiet = |_: IndexEvent| {};
        let job = IndexJob {
            opts: IndexOptions {
                no_wait: true,
                only,
                ..IndexOptions::default()
            },
            register: false,
            vectors: Vectors::IfChanged,
        };
        match self.index(&job, if shown { observer } else { &quiet }) {
            Ok(run) => tracing::debug!(
                files = count,
                changed = run.summary.changed,
                removed = run.summary.removed,
                ms = started.elapsed().as_millis() as u64,
                "index updated before answering"
            ),
            Err(e) if has_code(&e, ErrorCode::IndexBusy) => {
                // Another process writes (a daemon, a server, `index`):
                // likely this very change. Wait for it, within bounds.
                self.wait_for_other_writer(started + REFRESH_WAIT);
            }
            Err(e) => tracing::warn!("the index was not updated before answering: {e:#}"),
        }
    }

    /// Waits while another process holds the writer lock, until `deadline`
    /// at the latest.
    fn wait_for_other_writer(&self, deadline: Instant) {
        while crate::lock::current_writer(self.root()).is_some() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Builds a missing index in the foreground (a CLI command).
    fn build_if_missing(&self) -> Result<Freshness> {
        if let Some(why) = crate::store::unbuilt(self.root()) {
            let job = IndexJob {
                opts: IndexOptions::default(),
                register: true,
                vectors: Vectors::IfChanged,
            };
            let observer = self.observer.as_deref().unwrap_or(&|_| {});
            observer(if why == crate::store::Unbuilt::Outdated {
                IndexEvent::Rebuilding
            } else {
                IndexEvent::Building
            });
            self.index(&job, observer)?;
        }
        Ok(self.freshness())
    }

    /// Starts a background index run unless one is running, one started
    /// less than `min_interval` ago, or another process is writing. True
    /// when changes were heard that another process (the daemon) is
    /// writing now: the caller may wait for it.
    pub fn kick(&self, min_interval: Duration) -> bool {
        let mut st = self.runs.lock();
        if st.running {
            return false;
        }
        // After a failed run (say, a read-only checkout), retry less often.
        let failing = st.last_error.is_some();
        let interval = if failing {
            min_interval.max(RETRY_AFTER_FAILURE)
        } else {
            min_interval
        };
        // This process's own watcher, once it vouches for the index, says
        // what changed: nothing means no run at all, and a few paths are
        // re-checked now, whatever the interval, so an edit made a moment
        // ago is in the next answer. Until it vouches (while a daemon
        // watches the project, this server runs no re-check of its own
        // that would make it), a daemon that vouches says the same: an
        // edit made 3 ms before the call was missed for up to 2 s.
        // (Its log ignores the index directory: an index removed under the
        // server is rebuilt through the usual path.)
        let exists = self.index_exists();
        let own = self.own_watch.changed();
        let heard_now = match own {
            Some(paths) => Some(paths),
            None if exists => self.daemon_changed(),
            None => None,
        };
        match &heard_now {
            Some(paths) if paths.is_empty() && exists => return false,
            Some(paths) if !paths.is_empty() && exists && !failing => {}
            _ => {
                if st.started.is_some_and(|t| t.elapsed() < interval) {
                    return false;
                }
            }
        }
        if let Some(w) = crate::lock::current_writer(self.root()) {
            tracing::debug!(writer = ?w, "re-check: another process is writing");
            return heard_now.is_some_and(|p| !p.is_empty());
        }
        let initial = !self.index_exists() || crate::store::is_outdated(self.root());
        // While the daemon watches the project and vouches for its index,
        // its watcher is the re-check: only what it heard changed is asked
        // for, and nothing at all when it heard nothing (a reconcile walks
        // the whole tree: 0.7 s on the Linux kernel).
        let heard = if initial {
            None
        } else {
            // (`changed_since_index`, read above.)
            heard_now
        };
        // Read before the run starts: what the run covers is forgotten by
        // the own watcher's log when it succeeds (events after this stay).
        let watch = Arc::clone(&self.own_watch);
        let clock = watch.clock();
        // What a watcher heard is planned as the daemon plans it: ignored
        // paths (build output, `.git/`) are not indexed, and a changed
        // ignore file means walking everything.
        let (only, covers) = match heard {
            None => (Vec::new(), Vec::new()),
            Some(paths) => {
                let set: std::collections::BTreeSet<String> = paths.iter().cloned().collect();
                let work = crate::daemon::watch::plan_work(&self.settings, &set);
                if work.is_empty() {
                    if let Some(clock) = clock {
                        watch.covered(clock, false, &paths);
                    }
                    st.started = Some(Instant::now());
                    return false;
                }
                // A reconcile's empty `only` walks the whole tree.
                let covers = if work.reconcile { Vec::new() } else { paths };
                (work.only, covers)
            }
        };
        // The first run of this server also fills in missing fast-tier
        // vectors (an index built by `init` or `index --no-embed`).
        let first_run = st.runs == 0;
        st.running = true;
        st.initial = initial;
        st.started = Some(Instant::now());
        st.progress = Progress::default();
        drop(st);

        let runs = Arc::clone(&self.runs);
        let runner = self.runner();
        let spawned = std::thread::Builder::new()
            .name("repo-search-index".into())
            .spawn(move || {
                let events = |e: IndexEvent| {
                    if let IndexEvent::Progress(p) = e {
                        runs.lock().progress = p;
                    }
                };
                // `no_wait`: if another writer took the lock in the meantime,
                // it is doing this work already.
                let job = IndexJob {
                    opts: IndexOptions {
                        no_wait: true,
                        only,
                        ..IndexOptions::default()
                    },
                    // The server's first run registers the project; later
                    // ones update its figures when they change something.
                    register: first_run,
                    vectors: if first_run {
                        Vectors::Always
                    } else {
                        Vectors::IfChanged
                    },
                };
                let result = runner.run("refresh", &job, &events);
                let mut st = runs.lock();
                st.running = false;
                st.finished = Some(Instant::now());
                st.runs += 1;
                st.left_to_other_writer = false;
                match result {
                    Ok(Ok(run)) => {
                        tracing::debug!(
                            changed = run.summary.changed,
                            removed = run.summary.removed,
                            "index run finished"
                        );
                        st.last_error = None;
                        st.last_summary = Some(run.summary);
                        if let Some(clock) = clock {
                            // No paths: the run walked the whole tree.
                            watch.covered(clock, covers.is_empty(), &covers);
                        }
                    }
                    Ok(Err(e)) if has_code(&e, ErrorCode::IndexBusy) => {
                        tracing::debug!("index run skipped: {e:#}");
                        st.left_to_other_writer = true;
                    }
                    Ok(Err(e)) => {
                        tracing::warn!("index run failed: {e:#}");
                        st.last_error = Some(error_line(&e));
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
        false
    }

    /// Start a re-check if due, and wait for a running run until
    /// [`REFRESH_WAIT`] after its start; when another process (the
    /// daemon) writes what changed, wait for it as long.
    fn refresh_in_background(&self) -> Freshness {
        let deadline = Instant::now() + REFRESH_WAIT;
        let mut busy = self.kick(REFRESH_INTERVAL);
        loop {
            let own = self.wait_for_own_run();
            // What changed is another process's to write (the daemon's run,
            // or one that took the lock before ours): wait for it, then look
            // again, within the same bound.
            if !(busy || own.left_to_other_writer) {
                return self.freshness_of(&own);
            }
            self.wait_for_other_writer(deadline);
            if Instant::now() >= deadline {
                return self.freshness_of(&own);
            }
            self.runs.lock().left_to_other_writer = false;
            busy = self.kick(REFRESH_INTERVAL);
        }
    }

    /// Waits for a running run of this service until [`REFRESH_WAIT`]
    /// after its start; what the runs are doing then.
    fn wait_for_own_run(&self) -> RunState {
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
        st.clone()
    }

    /// Waits until no background run of this service is running.
    pub fn wait_for_runs(&self) {
        let mut st = self.runs.lock();
        while st.running {
            st = match self.runs.changed.wait(st) {
                Ok(guard) => guard,
                Err(poisoned) => poisoned.into_inner(),
            };
        }
    }

    /// What the background runs are doing.
    pub fn run_state(&self) -> RunState {
        self.runs.lock().clone()
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
            indexing: own.running || other_writer.is_some() || self.job_running(),
            building,
            progress: own.running.then_some(own.progress),
            other_writer,
            last_error: own.last_error.clone(),
        }
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

    /// An error that means "there is no index to answer from".
    pub(super) fn no_index(&self) -> anyhow::Error {
        UserError::with_code(
            ErrorCode::NoIndex,
            format!("there is no index in `{}` yet", self.root().display()),
        )
        .hint("run `repo-search index`")
        .agent("the index is being built; retry in a few seconds (index_status shows progress), or use search_keyword now")
        .into()
    }
}

/// What a background thread needs to run index jobs away from the
/// service: its settings and its warm models (the query model of search
/// embeds the edited chunks too).
pub(super) struct Runner {
    settings: Settings,
    models: crate::embed::Models,
    /// The embedding settings are resolved in the run, and only when it
    /// computes vectors: the defaults when the config is broken.
    config_broken: bool,
    /// Where the service logs its operations for `stats`.
    stats: Option<Arc<crate::stats::Recorder>>,
}

impl Runner {
    /// [`run_index`], a panic caught as the `Err` of the outer result,
    /// logged for `stats` as `op` (`index` for a client's job, `refresh`
    /// for the server's own update).
    pub(super) fn run(
        &self,
        op: &str,
        job: &IndexJob,
        events: &(dyn Fn(IndexEvent) + Sync),
    ) -> std::thread::Result<Result<IndexRun>> {
        let started = std::time::Instant::now();
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_index(
                &self.settings,
                &|| super::lenient_embed(&self.settings.root, self.config_broken),
                &self.models,
                job,
                events,
            )
        }));
        if let Some(stats) = &self.stats {
            let ok = matches!(out, Ok(Ok(_)));
            stats.record(op, started.elapsed(), ok, None);
        }
        out
    }
}

impl Service {
    pub(super) fn runner(&self) -> Runner {
        Runner {
            settings: self.settings.clone(),
            models: self.models.clone(),
            config_broken: self.config_error.is_some(),
            stats: self.stats.clone(),
        }
    }
}

/// Builds or updates the index of `settings.root`. While
/// `repo-search-daemon` watches the project it is the only writer, so the
/// run is handed to it (and waited for); otherwise this process writes,
/// reporting progress through `events`, then computes `job.vectors` with
/// `models` (see [`Vectors`]; a large full-tier backlog is left to the
/// daemon or `repo-search index`: it takes minutes to hours).
pub fn run_index(
    settings: &Settings,
    embed: &dyn Fn() -> crate::settings::EmbedSettings,
    models: &crate::embed::Models,
    job: &IndexJob,
    events: &(dyn Fn(IndexEvent) + Sync),
) -> Result<IndexRun> {
    let home = crate::daemon_client::DaemonHome::from_env();
    match crate::daemon_client::request_index(&home, &settings.root, &job.opts) {
        Ok(Some(summary)) => {
            return Ok(IndexRun {
                summary,
                by: IndexedBy::Daemon,
            });
        }
        Ok(None) => {}
        Err(e) => tracing::warn!(
            "repo-search-daemon could not index the project ({e:#}); indexing directly"
        ),
    }
    let progress = |p: Progress| events(IndexEvent::Progress(p));
    let summary = crate::index::index_project(settings, &job.opts, &progress, |pid| {
        events(IndexEvent::Waiting(pid))
    })
    .map_err(|e| crate::store::explain_write(e, &settings.root))?;
    let changed = summary.changed > 0 || summary.removed > 0;
    if job.register || changed {
        let counts = crate::registry::IndexCounts::from_summary(&settings.root, &summary);
        if let Err(e) =
            crate::registry::Registry::at(home.dir()).record_index(&settings.root, &counts, true)
        {
            tracing::warn!("could not record the project in the registry: {e:#}");
        }
    }
    if job.vectors == Vectors::Always || (job.vectors == Vectors::IfChanged && changed) {
        embed_after_index(settings, &embed(), models);
    }
    Ok(IndexRun {
        summary,
        by: IndexedBy::Here,
    })
}

/// The one-line form of an index run's error, for status answers.
fn error_line(e: &anyhow::Error) -> String {
    find_user_error(e)
        .map(|u| u.message.clone())
        .unwrap_or_else(|| format!("{e:#}"))
}

/// Fast-tier vectors for every chunk that lacks them, then the few
/// full-tier ones an edit needs (see [`Vectors`]); failures (no model
/// downloaded) only logged: the other searches work without them.
fn embed_after_index(
    settings: &Settings,
    embed: &crate::settings::EmbedSettings,
    models: &crate::embed::Models,
) {
    use crate::embed::Tier;
    let plan = crate::index::EmbedPlan {
        tiers: &[Tier::Fast, Tier::Full],
        defer_full_over: Some(FRESH_FULL_MAX),
        top_up_full_only: true,
        models: Some(models),
        should_stop: &|| false,
    };
    match crate::index::embed_project(settings, embed, &plan, &|_| {}, &|_| {}) {
        Ok(s) => {
            for t in &s {
                tracing::debug!(
                    tier = t.tier.name(),
                    embedded = t.embedded,
                    with_vectors = t.with_vectors,
                    total = t.total_chunks,
                    seconds = t.seconds,
                    skipped = t.skipped.as_deref().unwrap_or(""),
                    "vectors after an index run"
                );
            }
        }
        Err(e) => tracing::debug!("no vectors after the index run: {e:#}"),
    }
}
