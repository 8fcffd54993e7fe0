//! Owns where the daemon keeps its state in `REPO_SEARCH_HOME`: the lock
//! that makes it one per user, its pid file, its socket and its log.
//!
//! **Invariant**: the running daemon holds an exclusive `flock` on
//! `daemon.lock` for its whole life. The lock, not the pid file or the
//! socket, says whether a daemon runs: it dies with its process, so a
//! daemon killed with `kill -9` leaves a pid file and a socket that the
//! next `start` simply replaces.

use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::registry::{ensure_private_dir, private_options};

/// The log is moved to `daemon.log.1` at start when larger than this.
const MAX_LOG_BYTES: u64 = 10 * 1024 * 1024;

/// The daemon's files under one `REPO_SEARCH_HOME`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DaemonHome {
    dir: PathBuf,
}

impl DaemonHome {
    /// The home of `$REPO_SEARCH_HOME` (default `~/.repo_search`).
    pub fn from_env() -> DaemonHome {
        // Absolute, because the detached daemon runs with `/` as its working
        // directory and must find the same home.
        let home = crate::paths::home_dir();
        DaemonHome::at(std::path::absolute(&home).unwrap_or(home))
    }

    pub fn at(dir: impl Into<PathBuf>) -> DaemonHome {
        DaemonHome { dir: dir.into() }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn socket(&self) -> PathBuf {
        self.dir.join("daemon.sock")
    }

    pub fn pid_file(&self) -> PathBuf {
        self.dir.join("daemon.pid")
    }

    pub fn lock_file(&self) -> PathBuf {
        self.dir.join("daemon.lock")
    }

    pub fn log_file(&self) -> PathBuf {
        self.dir.join("daemon.log")
    }

    pub fn ensure_dir(&self) -> Result<()> {
        ensure_private_dir(&self.dir)
    }

    /// Opens the log for appending (0600).
    pub fn open_log(&self) -> Result<File> {
        let path = self.log_file();
        private_options()
            .create(true)
            .append(true)
            .open(&path)
            .with_context(|| format!("cannot open the log `{}`", path.display()))
    }

    /// Moves the log to `daemon.log.1` when it has grown too large.
    pub fn rotate_log(&self) {
        let path = self.log_file();
        if std::fs::metadata(&path).is_ok_and(|m| m.len() > MAX_LOG_BYTES) {
            let _ = std::fs::rename(&path, path.with_extension("log.1"));
        }
    }

    fn open_lock(&self) -> Result<File> {
        self.ensure_dir()?;
        let path = self.lock_file();
        private_options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .with_context(|| format!("cannot open `{}`", path.display()))
    }

    /// Takes the one-daemon-per-user lock, or `None` if a daemon holds it.
    pub fn try_lock(&self) -> Result<Option<File>> {
        let file = self.open_lock()?;
        match file.try_lock() {
            Ok(()) => Ok(Some(file)),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => {
                Err(e).with_context(|| format!("cannot lock `{}`", self.lock_file().display()))
            }
        }
    }

    /// Whether a daemon process holds the lock right now (it may still be
    /// starting up and not answer on the socket yet). Does not block.
    pub fn is_locked(&self) -> bool {
        let Ok(file) = private_options()
            .read(true)
            .write(true)
            .open(self.lock_file())
        else {
            return false;
        };
        match file.try_lock_shared() {
            Ok(()) => {
                let _ = file.unlock();
                false
            }
            Err(_) => true,
        }
    }

    /// The pid recorded in the pid file, if any (it may be stale).
    pub fn recorded_pid(&self) -> Option<u32> {
        std::fs::read_to_string(self.pid_file())
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    pub fn write_pid(&self) -> Result<()> {
        use std::io::Write;
        let path = self.pid_file();
        let mut f = private_options()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .with_context(|| format!("cannot write `{}`", path.display()))?;
        writeln!(f, "{}", std::process::id())
            .with_context(|| format!("cannot write `{}`", path.display()))
    }

    /// Removes the pid file and the socket, if present. Only call this while
    /// holding the lock (or after checking nobody holds it).
    pub fn remove_runtime_files(&self) {
        for p in [self.pid_file(), self.socket()] {
            match std::fs::remove_file(&p) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => tracing::warn!("cannot remove `{}`: {e}", p.display()),
            }
        }
    }
}
