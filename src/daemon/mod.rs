//! Owns the running `repo-search-daemon`: one background process per user
//! that keeps every registered project's index fresh. Its command line
//! (`start | stop | status | run`) is [`crate::cli::daemon`]; what it shares
//! with its clients (home files, wire protocol, socket, client calls) is
//! [`crate::daemon_client`]. Split by job:
//!
//! - `server` — the running daemon: main loop, registry sync, shutdown;
//! - `project` — one watched project: queue, worker thread, state;
//! - `watch` — notify + debouncer, and which changed paths matter.

pub mod project;
pub mod server;
pub mod watch;

use anyhow::Result;

use crate::daemon_client::DaemonHome;

/// `info` for the daemon; notify logs every watch it cannot remove (normal
/// when a directory is deleted) at info, so only its warnings.
const DEFAULT_LOG_FILTER: &str = "info,notify=warn";

/// Runs the daemon of `home` in this process until it is told to stop,
/// logging to `daemon.log` (or stderr), filtered by `REPO_SEARCH_LOG`
/// (default `info`).
pub fn run(home: &DaemonHome, log_stderr: bool) -> Result<()> {
    home.ensure_dir()?;
    let log = if log_stderr {
        None
    } else {
        Some(home.open_log()?)
    };
    crate::logging::init_logging_to(log, DEFAULT_LOG_FILTER);
    server::run(home)
}
