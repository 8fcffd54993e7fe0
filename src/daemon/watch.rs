//! Owns turning file-system events into index work: one recursive `notify`
//! watcher with a short per-path debounce for all watched projects, routing
//! each changed path to the project(s) it belongs to (at once, so they know
//! what changed since their last run, and debounced, as work), and
//! [`plan_work`], which decides which changed paths the index must look at, by the same ignore
//! rules as the walk. Does not index (that is `project`, through `index`).
//!
//! One watcher for all projects, not one each: every watcher is an inotify
//! instance (Linux allows 128 per user by default) and a debouncer thread.
//!
//! Why the ignore check asks the walker instead of re-implementing the
//! rules: `.gitignore`/`.ignore`/`.rgignore` precedence, whitelists,
//! `require_git`, hidden files and configured excludes are subtle, and the
//! index must agree with `repo-search index` exactly. So for a changed path
//! `a/b/c.rs` we list `""`, `a` and `a/b` one level deep with
//! [`crate::walk::walk_builder_for`] (which applies the root's rules,
//! parents included) and check that each component is among the entries
//! the walker yields. Listings are cached for one batch, so a burst of a
//! thousand files in a few directories costs a few directory reads.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use notify::event::{AccessKind, AccessMode, EventKind};
use notify::{EventKindMask, RecommendedWatcher, RecursiveMode, Watcher as _};

use crate::error::UserError;
use crate::settings::Settings;
use crate::walk::{Seen, Visibility};

/// Quiet time after a path's last event before it is reported. Short,
/// because save→searchable must stay well under 200 ms; editors that write
/// a file in several steps finish within it.
pub const DEBOUNCE: Duration = Duration::from_millis(50);
/// How often the debouncer looks for expired events.
const TICK: Duration = Duration::from_millis(10);
/// More changed paths than this in one batch (a `git checkout`, a branch
/// switch) are cheaper as one reconcile of the whole project.
pub const MAX_PATHS_PER_RUN: usize = 2048;

/// How long [`Watcher::synced`] waits for its cookie before the caller
/// walks instead.
const SYNC_TIMEOUT: Duration = Duration::from_millis(100);

/// Files whose change alters which files belong to the project.
const IGNORE_FILE_NAMES: [&str; 3] = [".gitignore", ".ignore", ".rgignore"];

/// What the watcher reports to one project for one debounced batch.
#[derive(Debug, Default)]
pub struct Changes {
    /// Root-relative, `/`-separated paths (the root itself is `""`).
    pub paths: Vec<String>,
    /// The OS dropped events (queue overflow): only a full reconcile is safe.
    pub rescan: bool,
    pub errors: Vec<String>,
}

impl Changes {
    fn is_empty(&self) -> bool {
        self.paths.is_empty() && !self.rescan && self.errors.is_empty()
    }
}

/// Where a project's changes go. Called on the watcher's threads: both
/// must be quick (record or queue the work, do not do it).
pub trait Sink: Send + Sync {
    /// At once, for every event: these paths may have changed (and with
    /// `rescan`, anything may have). What keeps "changed since the last
    /// run" exact for searches that trust the watcher instead of walking.
    fn heard(&self, paths: &[String], rescan: bool);
    /// A debounced batch: the work to queue.
    fn changes(&self, changes: Changes);
}

/// What changed in one watched project since its index last looked, from
/// every raw watcher event at once ([`Sink::heard`]): what lets a search
/// trust the index's file list plus these paths instead of walking the
/// tree. Kept by the daemon for each project it watches and by an MCP
/// server for its own project.
#[derive(Debug, Default)]
pub struct ChangeLog {
    /// Path → the `heard` count of its latest event. A run that covered a
    /// path and started after that event removes it.
    dirty: HashMap<String, u64>,
    /// Raw events heard so far: the clock `dirty` and runs are read on.
    heard: u64,
    /// A reconcile started after the watch began has finished: from then
    /// on, the index plus `dirty` is the project's exact state.
    reconciled: bool,
    /// The OS dropped events at this count: nothing is known until a
    /// reconcile that started after it.
    lost_at: Option<u64>,
    /// Changed paths that alter which files belong to the project (ignore
    /// files, the config): the file list is not trusted until a run looked
    /// at them.
    unsettled: HashSet<String>,
}

impl ChangeLog {
    /// Records one raw watcher event.
    pub fn heard(&mut self, paths: &[String], rescan: bool) {
        self.heard += 1;
        let at = self.heard;
        for p in paths {
            self.dirty.insert(p.clone(), at);
            if alters_file_set(p) {
                self.unsettled.insert(p.clone());
            }
        }
        if rescan {
            self.lost_at = Some(at);
        }
    }

    /// The clock to read when a run starts, for [`ChangeLog::covered`].
    pub fn clock(&self) -> u64 {
        self.heard
    }

    /// A new watch knows nothing of what changed before it: a reconcile
    /// started after it must finish before the file list is trusted.
    pub fn restart(&mut self) {
        self.reconciled = false;
    }

    /// Forgets what a successful run started at `started` (a
    /// [`ChangeLog::clock`] reading) covered: every path for a reconcile,
    /// else the run's own.
    pub fn covered<'a>(
        &mut self,
        started: u64,
        reconcile: bool,
        paths: impl IntoIterator<Item = &'a String>,
    ) {
        if reconcile {
            self.dirty.retain(|_, at| *at > started);
            self.reconciled = true;
            if self.lost_at.is_some_and(|at| at <= started) {
                self.lost_at = None;
            }
        } else {
            for p in paths {
                if self.dirty.get(p).is_some_and(|at| *at <= started) {
                    self.dirty.remove(p);
                }
            }
        }
        let ChangeLog {
            unsettled, dirty, ..
        } = self;
        unsettled.retain(|p| dirty.contains_key(p));
    }

    /// What changed since the index last looked, when the index plus these
    /// paths is known to be the project's exact state (a reconcile done
    /// since the watch began, no events lost, no ignore file or config edit
    /// waiting for its run); `None` when it is not.
    pub fn changed(&self) -> Option<Vec<String>> {
        let trusted = self.reconciled && self.lost_at.is_none() && self.unsettled.is_empty();
        trusted.then(|| self.dirty.keys().cloned().collect())
    }
}

struct Route {
    root: PathBuf,
    sink: Arc<dyn Sink>,
}

/// Events waiting for their quiet time.
#[derive(Default)]
struct Queue {
    /// Path → when its latest event arrived.
    paths: HashMap<PathBuf, Instant>,
    rescan: bool,
    errors: Vec<String>,
}

/// The daemon's one file watcher: a raw `notify` watcher whose events
/// reach each project twice, at once (`Sink::heard`) and after
/// [`DEBOUNCE`] of quiet per path (`Sink::changes`, from a ticker thread).
pub struct Watcher {
    inner: Mutex<RecommendedWatcher>,
    routes: Arc<RwLock<Vec<Route>>>,
    stop: Arc<AtomicBool>,
    cookies: Arc<Cookies>,
}

/// Cookie files waiting for their event ([`Watcher::sync`]).
#[derive(Default)]
struct Cookies {
    waiting: Mutex<HashSet<PathBuf>>,
    seen: Condvar,
}

impl Cookies {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashSet<PathBuf>> {
        self.waiting.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Called on the watcher's thread for every event's paths.
    fn saw(&self, paths: &[PathBuf]) {
        let mut waiting = self.lock();
        if waiting.is_empty() {
            return;
        }
        let before = waiting.len();
        for p in paths {
            waiting.remove(p);
        }
        if waiting.len() != before {
            drop(waiting);
            self.seen.notify_all();
        }
    }
}

/// Numbers this process's cookie files.
static COOKIE_SEQ: AtomicU64 = AtomicU64::new(0);

impl Drop for Watcher {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

impl Watcher {
    /// A watcher whose events reach each project at once and, debounced,
    /// as work (the daemon's).
    pub fn new() -> Result<Watcher> {
        Watcher::start(true)
    }

    /// A watcher whose events reach each project only at once
    /// ([`Sink::heard`]; [`Sink::changes`] is never called): for a process
    /// that reads its change log on demand (the MCP server's), with no
    /// debounce thread waking every [`TICK`].
    pub fn heard_only() -> Result<Watcher> {
        Watcher::start(false)
    }

    fn start(debounced: bool) -> Result<Watcher> {
        let routes: Arc<RwLock<Vec<Route>>> = Arc::new(RwLock::new(Vec::new()));
        let queue: Arc<Mutex<Queue>> = Arc::new(Mutex::new(Queue::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let cookies = Arc::new(Cookies::default());
        let (table, waiting, heard_cookies) = (
            Arc::clone(&routes),
            Arc::clone(&queue),
            Arc::clone(&cookies),
        );
        let handler = move |result: notify::Result<notify::Event>| {
            let (paths, rescan, error) = match result {
                Ok(ev) => {
                    let rescan = ev.need_rescan();
                    let paths = if is_content_event(&ev.kind) {
                        ev.paths
                    } else {
                        Vec::new()
                    };
                    (paths, rescan, None)
                }
                // An error about a path (say, a directory that vanished
                // before it could be watched) is re-examined as a change to
                // that path; ignored directories thus cost nothing. Without
                // a path we cannot know what we missed: reconcile.
                Err(e) if e.paths.is_empty() => (Vec::new(), true, Some(e.to_string())),
                Err(e) => {
                    tracing::debug!("watcher: {e}");
                    (e.paths, false, None)
                }
            };
            if paths.is_empty() && !rescan {
                return;
            }
            {
                let routes = table.read().unwrap_or_else(|e| e.into_inner());
                for route in routes.iter() {
                    let rel = route_paths(&route.root, &paths);
                    if !rel.is_empty() || rescan {
                        route.sink.heard(&rel, rescan);
                    }
                }
            }
            // After the sinks heard this event's paths, so a waiter wakes to
            // a log that holds them. (The cookie itself is the index
            // directory's noise: no project hears it.)
            heard_cookies.saw(&paths);
            if !debounced {
                return;
            }
            let now = Instant::now();
            let mut q = waiting.lock().unwrap_or_else(|e| e.into_inner());
            for p in paths {
                q.paths.insert(p, now);
            }
            q.rescan |= rescan;
            q.errors.extend(error);
        };
        // Symlinks are not followed, as in the walk: a link to `/` must
        // not make us watch the whole disk. Opening or reading a file is
        // not asked for: every read of the tree (a build, `rg`, our own
        // searches) would wake the watcher once per file, on the kernel
        // half a CPU-second per whole-tree search.
        let config = notify::Config::default()
            .with_follow_symlinks(false)
            .with_event_kinds(EventKindMask::CORE | EventKindMask::ACCESS_CLOSE);
        let inner =
            RecommendedWatcher::new(handler, config).context("cannot start the file watcher")?;
        let watcher = Watcher {
            inner: Mutex::new(inner),
            routes,
            stop,
            cookies,
        };
        if !debounced {
            return Ok(watcher);
        }
        let (table, waiting, stopped) = (
            Arc::clone(&watcher.routes),
            queue,
            Arc::clone(&watcher.stop),
        );
        std::thread::Builder::new()
            .name("debounce".into())
            .spawn(move || {
                while !stopped.load(Ordering::Relaxed) {
                    std::thread::sleep(TICK);
                    let due = take_due(&waiting, Instant::now());
                    if let Some((paths, rescan, errors)) = due {
                        let routes = table.read().unwrap_or_else(|e| e.into_inner());
                        for route in routes.iter() {
                            let changes = Changes {
                                paths: route_paths(&route.root, &paths),
                                rescan,
                                errors: if rescan { errors.clone() } else { Vec::new() },
                            };
                            if !changes.is_empty() {
                                route.sink.changes(changes);
                            }
                        }
                    }
                }
            })
            .context("cannot start the watcher's debounce thread")?;
        Ok(watcher)
    }

    /// Watches `root` recursively, sending its changes to `sink`.
    pub fn watch(&self, root: &Path, sink: Arc<dyn Sink>) -> Result<()> {
        let covered = {
            let mut routes = self.routes.write().unwrap_or_else(|e| e.into_inner());
            routes.retain(|r| r.root != root);
            let covered = routes.iter().any(|r| root.starts_with(&r.root));
            routes.push(Route {
                root: root.to_path_buf(),
                sink,
            });
            covered
        };
        // A project inside another watched project shares its OS watches:
        // watching it again would hand the same directories to the inner
        // project, and unwatching it later would blind the outer one.
        if covered {
            return Ok(());
        }
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        // A root deleted and created again: forget the dead watch first.
        let _ = inner.unwatch(root);
        if let Err(e) = inner.watch(root, RecursiveMode::Recursive) {
            drop(inner);
            self.unwatch(root);
            return Err(watch_error(root, e));
        }
        Ok(())
    }

    /// Waits until every event of a change made before this call has
    /// reached the projects' sinks, by writing a cookie file into the
    /// index directory of `root` (a watched project) and waiting at most
    /// `timeout` for its own event: the OS queues one watcher's events in
    /// order, so what was changed before the cookie was heard before it.
    /// What makes a search right after a save see the save however late the
    /// watcher's thread runs. False when that cannot be known (no index
    /// directory to write into, or the event did not come in time): the
    /// caller must not trust the log then.
    fn sync(&self, root: &Path, timeout: Duration) -> bool {
        let dir = crate::store::index_dir(root);
        let seq = COOKIE_SEQ.fetch_add(1, Ordering::Relaxed);
        let cookie = dir.join(format!(".cookie-{}-{seq}", std::process::id()));
        self.cookies.lock().insert(cookie.clone());
        let created = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&cookie)
            .map(drop);
        let mut seen = false;
        if created.is_ok() {
            let deadline = Instant::now() + timeout;
            let mut waiting = self.cookies.lock();
            loop {
                if !waiting.contains(&cookie) {
                    seen = true;
                    break;
                }
                let now = Instant::now();
                if now >= deadline {
                    break;
                }
                waiting = self
                    .cookies
                    .seen
                    .wait_timeout(waiting, deadline - now)
                    .map(|(g, _)| g)
                    .unwrap_or_else(|e| e.into_inner().0);
            }
            drop(waiting);
            let _ = std::fs::remove_file(&cookie);
        } else if let Err(e) = created {
            tracing::debug!(
                "cannot write the watcher's cookie `{}`: {e}",
                cookie.display()
            );
        }
        self.cookies.lock().remove(&cookie);
        if !seen {
            tracing::debug!(root = %root.display(), "the watcher did not hear its cookie in time");
        }
        seen
    }

    /// `read` (a change log's `changed`) once the watcher heard every
    /// change made before this call ([`Watcher::sync`], at most
    /// [`SYNC_TIMEOUT`]); `None` when the log is not trusted (no cookie is
    /// written then) or the cookie did not come back.
    pub fn synced<T>(&self, root: &Path, read: impl Fn() -> Option<T>) -> Option<T> {
        read()?;
        if !self.sync(root, SYNC_TIMEOUT) {
            return None;
        }
        read()
    }

    /// Stops watching `root` (a no-op if it is not watched).
    pub fn unwatch(&self, root: &Path) {
        let (covered, nested): (bool, Vec<PathBuf>) = {
            let mut routes = self.routes.write().unwrap_or_else(|e| e.into_inner());
            routes.retain(|r| r.root != root);
            (
                routes.iter().any(|r| root.starts_with(&r.root)),
                routes
                    .iter()
                    .filter(|r| r.root.starts_with(root))
                    .map(|r| r.root.clone())
                    .collect(),
            )
        };
        if covered {
            return;
        }
        let mut inner = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        // Fails when the root is gone (the OS dropped the watch): fine.
        let _ = inner.unwatch(root);
        // Projects inside it were covered by its watch; they need their own now.
        for r in nested {
            if let Err(e) = inner.watch(&r, RecursiveMode::Recursive) {
                tracing::warn!("{:#}", watch_error(&r, e));
            }
        }
    }
}

/// The paths quiet for [`DEBOUNCE`] (taken out of the queue), with the
/// rescan flag and errors; `None` when nothing is due.
type Due = (Vec<PathBuf>, bool, Vec<String>);

fn take_due(queue: &Mutex<Queue>, now: Instant) -> Option<Due> {
    let mut q = queue.lock().unwrap_or_else(|e| e.into_inner());
    let due: Vec<PathBuf> = q
        .paths
        .iter()
        .filter(|(_, t)| now.duration_since(**t) >= DEBOUNCE)
        .map(|(p, _)| p.clone())
        .collect();
    for p in &due {
        q.paths.remove(p);
    }
    let rescan = std::mem::take(&mut q.rescan);
    let errors = std::mem::take(&mut q.errors);
    (!due.is_empty() || rescan || !errors.is_empty()).then_some((due, rescan, errors))
}

/// The root-relative forms of `paths` under `root`, without the index
/// directory's own churn; the index deleted is no churn (the project's
/// next run builds it again whole).
fn route_paths(root: &Path, paths: &[PathBuf]) -> Vec<String> {
    paths
        .iter()
        .filter_map(|p| relative(root, p))
        .filter(|rel| !is_index_dir_noise(rel) || index_deleted(root, rel))
        .collect()
}

fn index_deleted(root: &Path, rel: &str) -> bool {
    matches!(rel, ".repo_search" | ".repo_search/index.db") && !crate::store::db_path(root).exists()
}

fn watch_error(root: &Path, e: notify::Error) -> anyhow::Error {
    let limit = matches!(e.kind, notify::ErrorKind::MaxFilesWatch)
        || matches!(&e.kind, notify::ErrorKind::Io(io) if io.raw_os_error() == Some(28));
    if limit {
        return UserError::new(format!(
            "cannot watch `{}`: the system limit on watched directories is reached",
            root.display()
        ))
        .hint("raise it, e.g. `sudo sysctl fs.inotify.max_user_watches=524288`; the daemon tries again every 30 s")
        .into();
    }
    anyhow::Error::new(e).context(format!("cannot watch `{}`", root.display()))
}

/// Events that can change what a file holds or whether it exists. Opening
/// or reading a file (which the indexer itself does) is not one; closing a
/// file written to is.
fn is_content_event(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        EventKind::Create(_)
        | EventKind::Modify(_)
        | EventKind::Remove(_)
        | EventKind::Any
        | EventKind::Other => true,
    }
}

fn relative(root: &Path, path: &Path) -> Option<String> {
    path.starts_with(root)
        .then(|| crate::paths::rel_string(root, path))
}

/// The index directory changes on every run; only its config matters.
fn is_index_dir_noise(rel: &str) -> bool {
    is_in_index_dir(rel) && rel != CONFIG_REL
}

const CONFIG_REL: &str = ".repo_search/config.toml";

fn is_in_index_dir(rel: &str) -> bool {
    crate::walk::is_in_index_dir(Path::new(""), Path::new(rel))
}

/// A change to this path may alter which files belong to the project (the
/// root itself, an ignore file, the config, git's exclude file, `.git`
/// itself: `.gitignore` counts only inside a git repository, so `git init`
/// or moving `.git` away changes what is ignored): until a run has looked
/// at it, the index's file list is not to be trusted.
pub fn alters_file_set(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    rel.is_empty()
        || rel == CONFIG_REL
        || rel == ".git"
        || rel == ".git/info/exclude"
        || IGNORE_FILE_NAMES.contains(&name)
}

/// The index run a batch of changed paths calls for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Work {
    /// Walk the whole project (ignore rules or settings changed, too many
    /// paths, or the root itself changed).
    pub reconcile: bool,
    /// Otherwise: the root-relative files and directories to re-index;
    /// missing ones are removed from the index.
    pub only: Vec<String>,
}

impl Work {
    pub fn is_empty(&self) -> bool {
        !self.reconcile && self.only.is_empty()
    }
}

/// Decides what to re-index for `changed` (root-relative paths).
pub fn plan_work(settings: &Settings, changed: &BTreeSet<String>) -> Work {
    let mut vis = Visibility::new(&settings.root, &settings.walk);
    let mut only: Vec<String> = Vec::new();
    for rel in changed {
        if is_index_dir_noise(rel) {
            continue;
        }
        if alters_file_set(rel) {
            // An ignore file inside an ignored directory (say, in
            // `node_modules/`) changes nothing we index.
            let (parent, name) = rel.rsplit_once('/').unwrap_or(("", rel.as_str()));
            let inert = IGNORE_FILE_NAMES.contains(&name)
                && !parent.is_empty()
                && !matches!(vis.check(parent), Seen::Visible { .. });
            if inert {
                continue;
            }
            return Work {
                reconcile: true,
                only: Vec::new(),
            };
        }
        match vis.check(rel) {
            Seen::Ignored => {}
            // Every visible file, code or not: keyword search's trigram
            // docs list them all. Deleted paths may have been files or
            // whole directories: the index removes whatever it holds under
            // them.
            Seen::Visible { .. } | Seen::Missing => only.push(rel.clone()),
        }
    }
    // `changed` is sorted, so a directory comes right before what it holds;
    // it covers them.
    let mut kept: Vec<String> = Vec::with_capacity(only.len());
    for p in only {
        let covered = kept.last().is_some_and(|d: &String| {
            p.starts_with(d.as_str()) && p.as_bytes().get(d.len()) == Some(&b'/')
        });
        if !covered {
            kept.push(p);
        }
    }
    if kept.len() > MAX_PATHS_PER_RUN {
        return Work {
            reconcile: true,
            only: Vec::new(),
        };
    }
    Work {
        reconcile: false,
        only: kept,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Overrides;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }

    fn set(paths: &[&str]) -> BTreeSet<String> {
        paths.iter().map(|p| p.to_string()).collect()
    }

    /// Records what it heard.
    #[derive(Default)]
    struct Heard(Mutex<Vec<String>>);

    impl Sink for Heard {
        fn heard(&self, paths: &[String], _rescan: bool) {
            self.0.lock().expect("lock").extend_from_slice(paths);
        }
        fn changes(&self, _changes: Changes) {}
    }

    #[test]
    fn sync_returns_once_every_earlier_change_was_heard() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(crate::store::index_dir(&root)).expect("mkdir");
        let w = Watcher::heard_only().expect("watcher");
        let heard = Arc::new(Heard::default());
        w.watch(&root, Arc::clone(&heard) as Arc<dyn Sink>)
            .expect("watch");
        for i in 0..20 {
            let name = format!("f{i}.txt");
            write(&root, &name, "x");
            assert!(w.sync(&root, Duration::from_secs(10)), "cookie {i} unheard");
            let got = heard.0.lock().expect("lock").clone();
            assert!(
                got.contains(&name),
                "{name} not heard before the cookie: {got:?}"
            );
            assert!(
                got.iter().all(|p| !p.starts_with(".repo_search/")),
                "the cookie reached the project: {got:?}"
            );
        }
        let left: Vec<_> = std::fs::read_dir(crate::store::index_dir(&root))
            .expect("ls")
            .collect();
        assert!(left.is_empty(), "cookies left behind: {left:?}");
        // Without an index directory there is nowhere to write: not synced.
        let bare = tempfile::tempdir().expect("tempdir");
        let bare_root = bare.path().canonicalize().expect("canonical");
        w.watch(&bare_root, Arc::new(Heard::default()) as Arc<dyn Sink>)
            .expect("watch");
        assert!(!w.sync(&bare_root, Duration::from_millis(50)));
    }

    /// The log is trusted only after a reconcile that started after the
    /// watch began; a run forgets only what it covered and what was heard
    /// before it started; lost events and ignore-file edits untrust it.
    #[test]
    fn change_log_forgets_only_what_a_run_covered() {
        let s = |v: &[&str]| -> Vec<String> { v.iter().map(|p| p.to_string()).collect() };
        let sorted = |log: &ChangeLog| {
            log.changed().map(|mut v| {
                v.sort();
                v
            })
        };
        let mut log = ChangeLog::default();
        log.heard(&s(&["a.py"]), false);
        assert_eq!(log.changed(), None, "no reconcile yet");
        let started = log.clock();
        log.heard(&s(&["b.py"]), false);
        log.covered(started, true, &Vec::new());
        assert_eq!(
            sorted(&log),
            Some(s(&["b.py"])),
            "heard during the reconcile"
        );
        let started = log.clock();
        log.heard(&s(&["c.py"]), false);
        log.covered(started, false, &s(&["b.py", "c.py"]));
        assert_eq!(
            sorted(&log),
            Some(s(&["c.py"])),
            "c.py changed after the run started"
        );
        log.heard(&s(&["sub/.gitignore"]), false);
        assert_eq!(log.changed(), None, "an ignore file waits for its run");
        let started = log.clock();
        log.covered(started, false, &s(&["sub/.gitignore"]));
        assert_eq!(sorted(&log), Some(s(&["c.py"])));
        log.heard(&[], true);
        assert_eq!(log.changed(), None, "events were lost");
        let started = log.clock();
        log.covered(started, true, &Vec::new());
        assert_eq!(sorted(&log), Some(Vec::new()));
        log.restart();
        assert_eq!(log.changed(), None, "a new watch needs a new reconcile");
    }

    #[test]
    fn plans_follow_the_walk_rules() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        write(&root, ".ignore", "gen/\n*.tmp.py\n");
        write(&root, "src/a.py", "def a(): pass\n");
        write(&root, "src/b.tmp.py", "def b(): pass\n");
        write(&root, "gen/c.py", "def c(): pass\n");
        write(&root, ".hidden/d.py", "def d(): pass\n");
        write(&root, "img.png", "x");
        write(&root, "sub/deep/e.py", "def e(): pass\n");
        let s = Settings::resolve(root.clone(), &Overrides::default()).expect("settings");

        let w = plan_work(
            &s,
            &set(&[
                "src/a.py",
                "src/b.tmp.py",
                "gen/c.py",
                ".hidden/d.py",
                "img.png",
                "gone.py",
                ".repo_search/index.db-wal",
            ]),
        );
        assert_eq!(
            w,
            Work {
                reconcile: false,
                only: vec!["gone.py".into(), "img.png".into(), "src/a.py".into()]
            }
        );

        // An extension-less file may be a script: the index run reads its
        // first line and decides.
        write(&root, "completions/gitx", "#!/bin/bash\n_gitx() { :; }\n");
        let w = plan_work(&s, &set(&["completions/gitx"]));
        assert_eq!(w.only, vec!["completions/gitx".to_string()]);

        // A new directory covers what it holds.
        let w = plan_work(&s, &set(&["sub", "sub/deep", "sub/deep/e.py"]));
        assert_eq!(w.only, vec!["sub".to_string()]);

        // Ignore files and the config trigger a reconcile, unless the
        // ignore file sits in an ignored directory.
        assert!(plan_work(&s, &set(&[".ignore"])).reconcile);
        assert!(plan_work(&s, &set(&["src/.gitignore"])).reconcile);
        assert!(plan_work(&s, &set(&[".repo_search/config.toml"])).reconcile);
        assert!(plan_work(&s, &set(&["gen/.gitignore"])).is_empty());
        // `git init`, or `.git` moved away: `.gitignore` starts or stops
        // counting.
        assert!(plan_work(&s, &set(&[".git"])).reconcile);

        let mut vis = Visibility::new(&s.root, &s.walk);
        assert_eq!(vis.check("gen/c.py"), Seen::Ignored);
        assert_eq!(vis.check("gen/none.py"), Seen::Ignored);
        assert_eq!(vis.check("src/a.py"), Seen::Visible { is_dir: false });
        assert_eq!(vis.check("nowhere/x.py"), Seen::Missing);
    }

    #[test]
    fn content_events_exclude_reads() {
        use notify::event::{CreateKind, ModifyKind};
        assert!(is_content_event(&EventKind::Create(CreateKind::File)));
        assert!(is_content_event(&EventKind::Modify(ModifyKind::Any)));
        assert!(is_content_event(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(!is_content_event(&EventKind::Access(AccessKind::Open(
            AccessMode::Any
        ))));
        assert!(!is_content_event(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(is_index_dir_noise(".repo_search/index.db"));
        assert!(!is_index_dir_noise(".repo_search/config.toml"));
        assert!(!is_index_dir_noise("src/a.rs"));
    }
}
