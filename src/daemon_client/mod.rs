//! Owns what the daemon and the processes that talk to it share, so both
//! sides import it and neither imports the other: where the daemon keeps
//! its state (`files`: lock, pid file, socket, log), the wire format
//! (`protocol`), the local socket (`ipc`), and — in this file — the calls
//! other processes make: the CLI (`repo-search index`, `projects`,
//! `repo-search-daemon start|stop|status`) and the MCP server. Every call
//! says plainly when no daemon runs (`Ok(None)`), so callers fall back to
//! doing the work themselves.

pub mod files;
pub mod ipc;
pub mod protocol;

use std::path::Path;
use std::time::Duration;

use anyhow::Result;

use crate::error::{ErrorCode, UserError};
use crate::index::{IndexOptions, IndexSummary};
pub use files::DaemonHome;
use protocol::{DaemonStatus, Envelope, Request, Response};

/// How long quick requests (ping, status, watch) may take to answer.
const QUICK: Duration = Duration::from_secs(5);

/// Sends `request` to the daemon of `home`. `Ok(None)`: no daemon listens.
/// A daemon's error answer becomes an error (with its hint).
pub fn call(
    home: &DaemonHome,
    request: Request,
    timeout: Option<Duration>,
) -> Result<Option<Response>> {
    // Nothing is sent into a home another user could have planted a
    // socket in, nor to a socket or a process of another user.
    if !crate::registry::check_home(home.dir(), false)? {
        return Ok(None);
    }
    ipc::check_socket_owner(&home.socket())?;
    let stream = match ipc::connect(&home.socket()) {
        Ok(s) => s,
        Err(e) if is_not_listening(&e) => return Ok(None),
        Err(e) => {
            return Err(anyhow::Error::new(e)
                .context(format!("cannot connect to `{}`", home.socket().display())));
        }
    };
    ipc::check_peer(&stream, &home.socket())?;
    let response = match ipc::call(stream, &Envelope::new(request), timeout) {
        Ok(r) => r,
        // It died while answering (or was a leftover being torn down).
        Err(_) if !home.is_locked() => return Ok(None),
        Err(e) => return Err(e),
    };
    if !response.ok {
        let mut err = UserError::with_code(
            ErrorCode::Daemon,
            response
                .error
                .clone()
                .unwrap_or_else(|| "the daemon refused the request".into()),
        );
        if let Some(h) = &response.hint {
            err = err.hint(h.clone());
        }
        return Err(err.into());
    }
    Ok(Some(response))
}

fn is_not_listening(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::NotFound | std::io::ErrorKind::ConnectionRefused
    )
}

/// The pid of the daemon of `home` if it answers.
pub fn ping(home: &DaemonHome) -> Option<u32> {
    match call(home, Request::Ping, Some(QUICK)) {
        Ok(Some(r)) => r.pid,
        _ => None,
    }
}

/// The daemon's status, or `None` if it does not run.
pub fn status(home: &DaemonHome) -> Result<Option<DaemonStatus>> {
    Ok(call(home, Request::Status, Some(QUICK))?.and_then(|r| r.status))
}

/// Asks the daemon to re-index `paths` (root-relative or absolute; none =
/// the whole project) of the project at `root` and waits for the run.
/// `Ok(None)`: no daemon runs or it does not watch this project; the caller
/// writes the index itself.
pub fn request_reindex(root: &Path, paths: &[String]) -> Result<Option<IndexSummary>> {
    request_index(
        &DaemonHome::from_env(),
        root,
        &IndexOptions {
            only: paths.to_vec(),
            ..IndexOptions::default()
        },
    )
}

/// Like [`request_reindex`] with index options (`full` rebuilds; `no_wait`
/// does not apply: the daemon queues the request behind its current run).
pub fn request_index(
    home: &DaemonHome,
    root: &Path,
    opts: &IndexOptions,
) -> Result<Option<IndexSummary>> {
    let request = Request::Reindex {
        root: root.to_path_buf(),
        paths: opts.only.clone(),
        full: opts.full,
    };
    // No timeout: a first index of a large tree takes minutes. If the
    // daemon dies meanwhile the socket closes and the read fails.
    let Some(response) = call(home, request, None)? else {
        return Ok(None);
    };
    if response.handled != Some(true) {
        return Ok(None);
    }
    Ok(response.summary.map(IndexSummary::from))
}

/// Longest wait for a `changed` answer: a search asks on every call, and
/// walking is always a correct answer when the daemon is slow.
const CHANGED_TIMEOUT: Duration = Duration::from_millis(200);

/// What changed in `root` since its index's last run, when a running
/// daemon watches it and can vouch for the index's file list; `None` when
/// it cannot (not running, not watching, not reconciled yet, events lost)
/// or does not answer in time.
pub fn changed(home: &DaemonHome, root: &Path) -> Option<Vec<String>> {
    let request = Request::Changed {
        root: root.to_path_buf(),
    };
    match call(home, request, Some(CHANGED_TIMEOUT)) {
        Ok(Some(Response {
            changed: Some(c), ..
        })) if c.trusted => Some(c.paths),
        _ => None,
    }
}

/// Tells a running daemon that a project's watch flag changed, so it
/// applies at once (it would notice within a second anyway). `Ok(None)`:
/// no daemon runs.
pub fn notify_watch(home: &DaemonHome, root: &Path, watch: bool) -> Result<Option<bool>> {
    let request = if watch {
        Request::Watch {
            root: root.to_path_buf(),
        }
    } else {
        Request::Unwatch {
            root: root.to_path_buf(),
        }
    };
    Ok(call(home, request, Some(QUICK))?.and_then(|r| r.handled))
}
