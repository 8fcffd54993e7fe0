//! Owns the one-writer-at-a-time rule for an index: an advisory lock on
//! `.repo_search/index.lock` (flock through `std::fs::File::lock`).
//!
//! The lock dies with its process, so a killed writer never leaves a stale
//! lock behind: recovery after a crash needs nothing. The holder writes its
//! pid into the file so a waiting writer can say whom it waits for.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::error::{ErrorCode, UserError};

pub struct WriterLock {
    file: File,
    path: PathBuf,
}

pub fn lock_path(root: &Path) -> PathBuf {
    crate::store::index_dir(root).join("index.lock")
}

fn open(root: &Path, dir: crate::store::DirUse) -> Result<(File, PathBuf)> {
    crate::store::check_index_paths(root)?;
    // Creates the directory 0700 (not the root: a writer whose project
    // root was deleted under it fails) and refuses a planted symlink.
    if crate::store::index_dir_checked(root, dir)?.is_none() {
        return Err(index_gone(root));
    }
    let path = lock_path(root);
    let file = crate::fs_safe::private_nofollow()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|e| cannot_write(&path, e))?;
    Ok((file, path))
}

/// Why the index cannot be written (a read-only file system or checkout, a
/// full disk, permissions), as an error with a hint.
fn cannot_write(path: &Path, e: std::io::Error) -> anyhow::Error {
    use std::io::ErrorKind;
    let (what, hint) = match e.kind() {
        ErrorKind::ReadOnlyFilesystem | ErrorKind::PermissionDenied => (
            "the index cannot be written here",
            "the project or its `.repo_search/` is read-only (a read-only mount or checkout?): searches read the index as it is; make it writable to update it",
        ),
        ErrorKind::StorageFull => (
            "the disk is full",
            "free some space and run `repo-search index` again; the index as it was stays usable",
        ),
        ErrorKind::NotADirectory => (
            "a file is where the index directory belongs",
            "move or remove the file `.repo_search` in the project root",
        ),
        _ => (
            "the index cannot be written",
            "check the permissions of `.repo_search/`",
        ),
    };
    UserError::with_code(ErrorCode::Failed, format!("{what}: `{}`: {e}", path.display()))
        .hint(hint)
        .agent("the index cannot be updated here; answers come from the index as it is; search_keyword and read_file always work")
        .into()
}

/// Who holds the writer lock, for a message: ` (pid N)`, or
/// ` (another task of this process)` when the pid is our own (a daemon's
/// embedding thread holds it while its index thread waits), or nothing.
pub fn holder_label(pid: Option<u32>) -> String {
    match pid {
        Some(p) if p == std::process::id() => " (another task of this process)".to_string(),
        Some(p) => format!(" (pid {p})"),
        None => String::new(),
    }
}

fn holder_pid(file: &mut File) -> Option<u32> {
    let mut s = String::new();
    file.seek(SeekFrom::Start(0)).ok()?;
    file.read_to_string(&mut s).ok()?;
    s.trim().parse().ok()
}

/// How to behave when another writer holds the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenBusy {
    /// Block until the other writer finishes; `on_wait` is told once.
    Wait,
    /// Fail at once with a clear message.
    Fail,
}

/// The index a writer was adding to is gone (`repo-search clean`).
fn index_gone(root: &Path) -> anyhow::Error {
    UserError::with_code(
        ErrorCode::NotFound,
        format!("the index of `{}` was removed", root.display()),
    )
    .hint("run `repo-search index` to build it again")
    .agent("the index tool builds it again")
    .into()
}

impl WriterLock {
    /// Takes the writer lock of the project at `root`.
    pub fn acquire(
        root: &Path,
        busy: WhenBusy,
        on_wait: impl FnOnce(Option<u32>),
    ) -> Result<WriterLock> {
        Self::take(root, crate::store::DirUse::Create, busy, on_wait)
    }

    /// Takes the writer lock to add to an index that exists, and fails
    /// (never creating anything) when it was removed meanwhile: a long
    /// background run that locks per write (vectors) must not bring back
    /// an index `clean` removed.
    pub fn acquire_existing(
        root: &Path,
        busy: WhenBusy,
        on_wait: impl FnOnce(Option<u32>),
    ) -> Result<WriterLock> {
        let lock = Self::take(root, crate::store::DirUse::Read, busy, on_wait)?;
        // `clean` removes the files holding the lock: checked under it.
        if !crate::store::db_path(root).exists() {
            return Err(index_gone(root));
        }
        Ok(lock)
    }

    fn take(
        root: &Path,
        dir: crate::store::DirUse,
        busy: WhenBusy,
        on_wait: impl FnOnce(Option<u32>),
    ) -> Result<WriterLock> {
        let (mut file, path) = open(root, dir)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let pid = holder_pid(&mut file);
                match busy {
                    WhenBusy::Fail => {
                        let who = holder_label(pid);
                        return Err(UserError::with_code(ErrorCode::IndexBusy, format!(
                            "another repo-search process{who} is writing the index of `{}`",
                            root.display()
                        ))
                        .hint("wait for it to finish (`repo-search status` shows its progress), then run this again; `repo-search index` without --no-wait waits by itself")
                        .agent("the index is being written by another process: retry in a few seconds; index_status shows its progress")
                        .into());
                    }
                    WhenBusy::Wait => {
                        on_wait(pid);
                        file.lock()
                            .with_context(|| format!("cannot lock `{}`", path.display()))?;
                    }
                }
            }
            Err(std::fs::TryLockError::Error(e)) => {
                return Err(e).with_context(|| format!("cannot lock `{}`", path.display()));
            }
        }
        file.set_len(0)?;
        file.seek(SeekFrom::Start(0))?;
        write!(file, "{}", std::process::id())?;
        file.flush()?;
        Ok(WriterLock { file, path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

/// The pid of the process writing the index right now, if any writer holds
/// the lock. Does not block.
pub fn current_writer(root: &Path) -> Option<u32> {
    let path = lock_path(root);
    let mut file = crate::fs_safe::private_nofollow()
        .read(true)
        .write(true)
        .open(path)
        .ok()?;
    match file.try_lock_shared() {
        Ok(()) => {
            let _ = file.unlock();
            None
        }
        Err(_) => Some(holder_pid(&mut file).unwrap_or(0)),
    }
}

/// Whether a process with this pid exists (on non-Unix systems: assumed).
#[allow(unsafe_code)] // reviewed: one `kill(pid, 0)`, see SAFETY below
pub fn process_alive(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return false;
        };
        if pid <= 0 {
            return false;
        }
        // SAFETY: signal 0 only checks that the process exists and may be
        // signalled; nothing is sent.
        let r = unsafe { libc::kill(pid, 0) };
        r == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    {
        let _ = pid;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acquire_existing_never_brings_back_a_removed_index() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let gone = |r: Result<WriterLock>| {
            let e = r.err().expect("refused");
            let u = crate::error::find_user_error(&e).expect("a user error");
            assert_eq!(u.code, ErrorCode::NotFound, "{e:#}");
        };
        gone(WriterLock::acquire_existing(root, WhenBusy::Fail, |_| {}));
        assert!(!crate::store::index_dir(root).exists(), "nothing created");
        // The directory without its database (removed meanwhile) is refused too.
        std::fs::create_dir(crate::store::index_dir(root)).expect("dir");
        gone(WriterLock::acquire_existing(root, WhenBusy::Fail, |_| {}));
        std::fs::write(crate::store::db_path(root), b"").expect("db");
        assert!(WriterLock::acquire_existing(root, WhenBusy::Fail, |_| {}).is_ok());
    }
}
