//! Owns the running daemon (`repo-search-daemon run`): the one-per-user
//! lock, the pid file, the socket listener, the main loop that keeps the
//! set of watched projects equal to the registry's, and shutdown.
//!
//! Threads: the main loop owns the project map and handles one closed
//! [`Event`] enum; an accept thread plus one short-lived thread per
//! connection speak the protocol and hand requests to the main loop; one
//! file watcher (notify's threads) serves all projects; each project has a
//! worker thread (`project`); one thread waits for SIGTERM/SIGINT. The main loop never indexes, so
//! `status` answers while a long run is in progress.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};
use interprocess::local_socket::traits::ListenerExt;

use super::project::{self, Project};
use super::watch::Watcher;
use crate::daemon_client::DaemonHome;
use crate::daemon_client::ipc;
use crate::daemon_client::protocol::{
    DaemonStatus, Envelope, PROTOCOL_VERSION, Request, Response, WireChanged,
};
use crate::error::{ErrorCode, UserError};
use crate::registry::{Registry, unix_now};

/// How often the registry is re-read and project roots re-checked.
const SYNC_EVERY: Duration = Duration::from_secs(1);
/// How long `stop` waits for runs in progress. Each batch of an index run
/// commits on its own, so exiting after this loses at most the batch being
/// written, which the next start re-does.
const STOP_GRACE: Duration = Duration::from_secs(10);

/// Everything the main loop reacts to.
enum Event {
    Request {
        request: Request,
        reply: Sender<Response>,
    },
    Signal(&'static str),
}

struct Daemon {
    home: DaemonHome,
    registry: Registry,
    started: Instant,
    started_at: i64,
    projects: BTreeMap<PathBuf, Project>,
    watcher: Arc<Watcher>,
    /// Embedding models loaded once for every project: a saved file's few
    /// chunks are embedded by a warm full model, not a fresh load.
    models: crate::embed::Models,
    stopping: bool,
}

/// Runs the daemon in this process until `stop` or a signal.
pub fn run(home: &DaemonHome) -> Result<()> {
    home.ensure_dir()?;
    let Some(lock) = home.try_lock()? else {
        let pid = home
            .recorded_pid()
            .map(|p| format!(" (pid {p})"))
            .unwrap_or_default();
        return Err(UserError::with_code(
            ErrorCode::Daemon,
            format!("repo-search-daemon is already running{pid}"),
        )
        .hint("`repo-search-daemon status` shows it; `repo-search-daemon stop` stops it")
        .into());
    };
    // We hold the lock, so a pid file or socket left here belongs to a
    // daemon that died without cleaning up.
    home.remove_runtime_files();
    home.write_pid()?;
    let watcher = Arc::new(Watcher::new()?);
    let listener = ipc::listen(&home.socket())?;
    tracing::info!(
        "repo-search-daemon {} started (pid {}, protocol {PROTOCOL_VERSION}), socket `{}`",
        env!("CARGO_PKG_VERSION"),
        std::process::id(),
        home.socket().display()
    );

    let (tx, rx) = crossbeam_channel::unbounded::<Event>();
    let accept_tx = tx.clone();
    std::thread::Builder::new()
        .name("accept".into())
        .spawn(move || {
            for conn in listener.incoming() {
                match conn {
                    Ok(stream) => {
                        let tx = accept_tx.clone();
                        let spawned = std::thread::Builder::new().name("connection".into()).spawn(
                            move || {
                                if let Err(e) =
                                    ipc::serve_connection(stream, |env| forward(&tx, env))
                                {
                                    tracing::debug!("connection ended: {e}");
                                }
                            },
                        );
                        if let Err(e) = spawned {
                            tracing::warn!("cannot serve a connection: {e}");
                        }
                    }
                    Err(e) => tracing::warn!("cannot accept a connection: {e}"),
                }
            }
        })
        .context("cannot start the socket thread")?;
    spawn_signal_thread(tx.clone());

    let mut daemon = Daemon {
        home: home.clone(),
        registry: Registry::at(home.dir()),
        started: Instant::now(),
        started_at: unix_now(),
        projects: BTreeMap::new(),
        watcher,
        models: crate::embed::Models::new(),
        stopping: false,
    };
    daemon.sync();
    daemon.main_loop(&rx);
    daemon.shutdown();
    home.remove_runtime_files();
    drop(lock);
    tracing::info!("repo-search-daemon stopped");
    Ok(())
}

/// Hands a request to the main loop and waits for its answer.
fn forward(tx: &Sender<Event>, env: Envelope) -> Response {
    if env.version != PROTOCOL_VERSION {
        return Response::error(
            format!(
                "protocol version {} is not supported (this daemon speaks version {PROTOCOL_VERSION})",
                env.version
            ),
            Some(format!(
                "the client and this daemon are different versions of repo-search: speak version {PROTOCOL_VERSION}, or restart the daemon with the installed version (`repo-search-daemon stop && repo-search-daemon start`)"
            )),
        );
    }
    let (reply, answer) = crossbeam_channel::bounded(1);
    if tx
        .send(Event::Request {
            request: env.request,
            reply,
        })
        .is_err()
    {
        return Response::error("repo-search-daemon is stopping", None);
    }
    answer
        .recv()
        .unwrap_or_else(|_| Response::error("repo-search-daemon is stopping", None))
}

fn spawn_signal_thread(tx: Sender<Event>) {
    let spawned = std::thread::Builder::new().name("signals".into()).spawn(move || {
        let rt = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
            Ok(rt) => rt,
            Err(e) => {
                tracing::warn!("cannot handle signals: {e}");
                return;
            }
        };
        rt.block_on(async move {
            use tokio::signal::unix::{SignalKind, signal};
            let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt())) else {
                tracing::warn!("cannot install signal handlers; SIGTERM will stop the daemon without cleanup");
                return;
            };
            let name = tokio::select! {
                _ = term.recv() => "SIGTERM",
                _ = int.recv() => "SIGINT",
            };
            let _ = tx.send(Event::Signal(name));
        });
    });
    if let Err(e) = spawned {
        tracing::warn!("cannot start the signal thread: {e}");
    }
}

impl Daemon {
    fn main_loop(&mut self, rx: &Receiver<Event>) {
        let mut last_sync = Instant::now();
        while !self.stopping {
            match rx.recv_timeout(SYNC_EVERY) {
                Ok(Event::Request { request, reply }) => self.handle(request, reply),
                Ok(Event::Signal(name)) => {
                    tracing::info!("{name} received: stopping");
                    self.stopping = true;
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            if last_sync.elapsed() >= SYNC_EVERY {
                self.sync();
                last_sync = Instant::now();
            }
        }
    }

    fn handle(&mut self, request: Request, reply: Sender<Response>) {
        let response = match request {
            Request::Ping => Response {
                pid: Some(std::process::id()),
                daemon_version: Some(env!("CARGO_PKG_VERSION").into()),
                ..Response::ok()
            },
            Request::Status => Response {
                status: Some(self.status()),
                ..Response::ok()
            },
            Request::Stop => {
                tracing::info!("stop requested");
                self.stopping = true;
                Response {
                    pid: Some(std::process::id()),
                    ..Response::ok()
                }
            }
            Request::Reindex { root, paths, full } => {
                match self.queue_reindex(&root, paths, full, &reply) {
                    Ok(true) => return, // the worker answers when the run is done
                    Ok(false) => Response {
                        handled: Some(false),
                        ..Response::ok()
                    },
                    Err(e) => {
                        let hint = crate::error::find_user_error(&e).and_then(|u| u.hint.clone());
                        Response::error(format!("{e:#}"), hint)
                    }
                }
            }
            Request::Changed { root } => {
                let paths = self
                    .projects
                    .get(&root)
                    .filter(|p| p.is_watching())
                    .and_then(|p| p.changed());
                Response {
                    changed: Some(WireChanged {
                        trusted: paths.is_some(),
                        paths: paths.unwrap_or_default(),
                    }),
                    ..Response::ok()
                }
            }
            Request::Watch { root } => self.set_watch(&root, true),
            Request::Unwatch { root } => self.set_watch(&root, false),
        };
        let _ = reply.send(response);
    }

    /// Queues a reindex on the project's worker; false if not watched here.
    fn queue_reindex(
        &mut self,
        root: &Path,
        paths: Vec<String>,
        full: bool,
        reply: &Sender<Response>,
    ) -> Result<bool> {
        let Some(project) = self.projects.get(root).filter(|p| p.is_watching()) else {
            return Ok(false);
        };
        let mut rel = Vec::with_capacity(paths.len());
        for p in &paths {
            rel.push(relative_in_root(root, p)?);
        }
        let reconcile = rel.is_empty() || rel.iter().any(|p| p.is_empty());
        project.request(rel, reconcile, full, reply.clone());
        Ok(true)
    }

    fn set_watch(&mut self, root: &Path, watch: bool) -> Response {
        let result = self.registry.update(|d| {
            if watch {
                d.upsert(root).watch = true;
                true
            } else {
                d.get_mut(root).map(|e| e.watch = false).is_some()
            }
        });
        match result {
            Ok(known) => {
                self.sync();
                Response {
                    handled: Some(known),
                    ..Response::ok()
                }
            }
            Err(e) => Response::error(format!("cannot update the registry: {e:#}"), None),
        }
    }

    /// Makes the watched set equal to the registry's projects with watch
    /// on, and re-checks every watched root.
    fn sync(&mut self) {
        let data = match self.registry.load() {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!("cannot read the registry: {e:#}");
                return;
            }
        };
        let wanted: BTreeMap<&Path, _> = data
            .projects
            .iter()
            .filter(|p| p.watch)
            .map(|p| (p.root.as_path(), p))
            .collect();
        let gone: Vec<PathBuf> = self
            .projects
            .keys()
            .filter(|r| !wanted.contains_key(r.as_path()))
            .cloned()
            .collect();
        for root in gone {
            if let Some(mut p) = self.projects.remove(&root) {
                tracing::info!("no longer watching `{}`", root.display());
                // The worker finishes its current run on its own and exits.
                p.begin_stop();
            }
        }
        for (root, entry) in wanted {
            match self.projects.get_mut(root) {
                Some(p) => p.check_health(),
                None => {
                    let p = Project::start(
                        entry,
                        self.registry.clone(),
                        Arc::clone(&self.watcher),
                        self.models.clone(),
                    );
                    self.projects.insert(root.to_path_buf(), p);
                }
            }
        }
    }

    fn status(&self) -> DaemonStatus {
        let data = self.registry.load().unwrap_or_default();
        let mut projects = Vec::new();
        for e in &data.projects {
            match self.projects.get(&e.root) {
                Some(p) => projects.push(p.status(Some(e))),
                None => projects.push(project::unwatched_status(e)),
            }
        }
        for (root, p) in &self.projects {
            if data.get(root).is_none() {
                projects.push(p.status(None));
            }
        }
        DaemonStatus {
            running: true,
            pid: std::process::id(),
            version: env!("CARGO_PKG_VERSION").into(),
            protocol: PROTOCOL_VERSION,
            started_at: self.started_at,
            uptime_s: self.started.elapsed().as_secs(),
            home: self.home.dir().to_path_buf(),
            log: self.home.log_file(),
            projects,
        }
    }

    fn shutdown(&mut self) {
        for p in self.projects.values_mut() {
            p.begin_stop();
        }
        let deadline = Instant::now() + STOP_GRACE;
        for p in self.projects.values_mut() {
            if !p.join(deadline) {
                tracing::warn!(
                    "`{}`: the index run did not finish within {}s; exiting anyway (the next start resumes it)",
                    p.root().display(),
                    STOP_GRACE.as_secs()
                );
            }
        }
    }
}

/// A client-given path (absolute, or relative to `root`) as a root-relative
/// string; refuses paths outside the root. `""` is the root itself.
fn relative_in_root(root: &Path, path: &str) -> Result<String> {
    let p = Path::new(path.trim());
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    };
    let normal = crate::paths::normalize_lexically(&joined);
    if !normal.starts_with(root) {
        return Err(UserError::with_code(
            ErrorCode::Daemon,
            format!(
                "path `{path}` is outside the project root `{}`",
                root.display()
            ),
        )
        .hint("give paths inside the project, relative to its root")
        .into());
    }
    Ok(crate::paths::rel_string(root, &normal))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_paths_stay_inside_the_root() {
        let root = Path::new("/src/app");
        assert_eq!(
            relative_in_root(root, "a/b.rs").ok().as_deref(),
            Some("a/b.rs")
        );
        assert_eq!(
            relative_in_root(root, "/src/app/a/./b.rs").ok().as_deref(),
            Some("a/b.rs")
        );
        assert_eq!(relative_in_root(root, ".").ok().as_deref(), Some(""));
        assert!(relative_in_root(root, "../other/x.rs").is_err());
        assert!(relative_in_root(root, "/etc/passwd").is_err());
    }
}
