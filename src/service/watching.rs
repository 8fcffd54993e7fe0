//! Owns a long-lived service's own file watcher (the MCP server's,
//! [`super::Policy::Background`]): without a daemon watching the project,
//! it is what tells the server which files changed since its index last
//! looked, so a call re-checks those few files instead of walking the
//! whole tree (0.4 s on the Linux kernel), and a keyword search reads the
//! index's file list plus them. The watcher and the change log are the
//! daemon's ([`crate::daemon::watch`]); this module only holds them.
//!
//! The log is trusted once a reconcile that started after the watch began
//! has finished (see [`ChangeLog::changed`]); until then, and when the
//! watch cannot be set (the system's limit on watches), calls walk as
//! before.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use crate::daemon::watch::{ChangeLog, Changes, Sink, Watcher};

/// A service's own watch, set once its watcher runs.
#[derive(Default)]
pub(super) struct OwnWatch {
    watching: OnceLock<Watching>,
}

struct Watching {
    /// Kept for its lifetime: dropping it stops the watch.
    watcher: Watcher,
    root: PathBuf,
    log: Arc<Log>,
}

/// The change log, fed by the watcher's threads.
#[derive(Default)]
struct Log(Mutex<ChangeLog>);

impl Log {
    fn lock(&self) -> MutexGuard<'_, ChangeLog> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Sink for Log {
    fn heard(&self, paths: &[String], rescan: bool) {
        self.lock().heard(paths, rescan);
    }

    /// Never called ([`Watcher::heard_only`]): a call's re-check reads the
    /// log instead of queued work.
    fn changes(&self, _changes: Changes) {}
}

impl OwnWatch {
    /// Starts watching `root` on a thread of its own (setting a recursive
    /// watch reads every directory: a second on a large tree), then runs
    /// `ready` there: the log is trusted only after a re-check that started
    /// once the watch ran.
    pub(super) fn start(self: &Arc<Self>, root: PathBuf, ready: impl FnOnce() + Send + 'static) {
        let this = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("repo-search-watch".into())
            .spawn(move || {
                let log = Arc::new(Log::default());
                let watched = Watcher::heard_only().and_then(|w| {
                    w.watch(&root, Arc::clone(&log) as Arc<dyn Sink>)?;
                    Ok(w)
                });
                match watched {
                    Ok(watcher) => {
                        tracing::debug!(root = %root.display(), "watching the project");
                        let _ = this.watching.set(Watching { watcher, root, log });
                        ready();
                    }
                    // Calls walk the tree as they would without a watcher.
                    Err(e) => tracing::info!(
                        "not watching the project ({e:#}); calls re-check by walking it"
                    ),
                }
            });
        if let Err(e) = spawned {
            tracing::info!("cannot start the watch thread: {e}");
        }
    }

    /// The log's clock, to read when a run starts; `None` until the watch runs.
    pub(super) fn clock(&self) -> Option<u64> {
        self.watching.get().map(|w| w.log.lock().clock())
    }

    /// What changed since the index last looked, when the log is trusted
    /// and the watcher heard every change made before this call
    /// ([`Watcher::synced`]).
    pub(super) fn changed(&self) -> Option<Vec<String>> {
        let w = self.watching.get()?;
        w.watcher.synced(&w.root, || w.log.lock().changed())
    }

    /// A successful run that started at `started` covered `paths` (every
    /// path for a `reconcile`).
    pub(super) fn covered(&self, started: u64, reconcile: bool, paths: &[String]) {
        if let Some(w) = self.watching.get() {
            w.log.lock().covered(started, reconcile, paths);
        }
    }
}
