//! Owns the file-system checks that keep a cloned repository, or another
//! user of the machine, from turning the tool against its user:
//!
//! - files are opened for reading only when they are regular files
//!   ([`open_regular`], [`read_regular`]): a FIFO, socket or device in a
//!   project is refused at once instead of blocking a reader forever;
//! - directories that hold private state are private ([`private_dir`]:
//!   owned by the user, writable by nobody else, created and tightened to
//!   0700; [`tighten_entries`]: the files in them 0600, none a symlink);
//! - [`euid`], the user the checks compare owners and socket peers with.
//!
//! The project's index directory applies these rules in
//! `store::index_dir_checked`, the per-user home in
//! `paths::checked_home`.
//!
//! **Invariant**: nothing here follows a symlink it was not asked to
//! follow: directories and their entries are inspected with `lstat` and
//! opened with `O_NOFOLLOW`.

use std::fs::{File, Metadata, OpenOptions};
use std::io::{self, Read};
use std::path::Path;

use anyhow::{Context, Result};

use crate::error::{ErrorCode, UserError};

#[cfg(unix)]
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt, PermissionsExt};

/// The effective uid of this process (0 where there are no uids).
#[allow(unsafe_code)] // reviewed: one `geteuid()`, see SAFETY below
pub fn euid() -> u32 {
    #[cfg(unix)]
    {
        // SAFETY: geteuid takes no arguments, touches no memory of ours and
        // always succeeds.
        unsafe { libc::geteuid() }
    }
    #[cfg(not(unix))]
    {
        0
    }
}

/// What a non-regular file is, for messages ("a FIFO", "a socket", ...);
/// `None` for a regular file.
pub fn special_kind(md: &Metadata) -> Option<&'static str> {
    let t = md.file_type();
    if t.is_file() {
        return None;
    }
    if t.is_dir() {
        return Some("a directory");
    }
    if t.is_symlink() {
        return Some("a symlink");
    }
    #[cfg(unix)]
    {
        if t.is_fifo() {
            return Some("a FIFO (named pipe)");
        }
        if t.is_socket() {
            return Some("a socket");
        }
        if t.is_block_device() || t.is_char_device() {
            return Some("a device");
        }
    }
    Some("not a regular file")
}

/// The error [`open_regular`] returns for a file that is not regular; find
/// it with [`not_regular`].
#[derive(Debug, Clone, Copy)]
pub struct NotRegular(pub &'static str);

impl std::fmt::Display for NotRegular {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0 == "not a regular file" {
            f.write_str("not a regular file")
        } else {
            write!(f, "{}, not a regular file", self.0)
        }
    }
}

impl std::error::Error for NotRegular {}

/// What kind of non-regular file an error from [`open_regular`] is about.
pub fn not_regular(err: &io::Error) -> Option<&'static str> {
    err.get_ref()
        .and_then(|e| e.downcast_ref::<NotRegular>())
        .map(|n| n.0)
}

/// The user error for reading a non-regular file (`rel` as the user gave it).
pub fn not_regular_error(rel: &str, kind: &'static str) -> UserError {
    UserError::with_code(
        ErrorCode::NotRegularFile,
        format!("`{rel}` is {}", NotRegular(kind)),
    )
    .hint("only regular files can be read; FIFOs, sockets and devices are refused because reading them could block or have side effects")
}

fn not_regular_io(kind: &'static str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, NotRegular(kind))
}

/// Opens `path` (following symlinks) for reading if, and only if, it is a
/// regular file. The path is checked before opening (so a device is never
/// opened), then opened without blocking (a FIFO swapped in meanwhile does
/// not wait for a writer) and without becoming a controlling terminal, and
/// the opened handle is checked again.
pub fn open_regular(path: &Path) -> io::Result<File> {
    let md = std::fs::metadata(path)?;
    if let Some(kind) = special_kind(&md) {
        return Err(not_regular_io(kind));
    }
    open_listed_regular(path)
}

/// [`open_regular`] for a path a directory listing (or the index, checked
/// since by the watcher) just said is a regular file: only the opened
/// handle is checked. Saves a `stat` per file on a whole-tree search (10%
/// of it on the kernel). Only a device node swapped in between the listing
/// and the open is opened before being refused; making one takes
/// privileges no repository has (git and tar as a user cannot create them).
pub fn open_listed_regular(path: &Path) -> io::Result<File> {
    let mut opts = OpenOptions::new();
    opts.read(true);
    #[cfg(unix)]
    opts.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    let file = opts.open(path)?;
    let md = file.metadata()?;
    if let Some(kind) = special_kind(&md) {
        return Err(not_regular_io(kind));
    }
    Ok(file)
}

/// [`open_listed_regular`] for a path a directory listing just said is a
/// regular file and not a symbolic link: opened without following a link
/// (`O_NOFOLLOW`) and without blocking, and not checked again (no `fstat`:
/// on a whole-tree search of the kernel, 78k calls). What could be swapped
/// in since the listing is still harmless: a link is refused by the open, a
/// FIFO opened without blocking reads as empty or as what its writer
/// writes, a socket cannot be opened, and a device node takes privileges
/// no repository has to create.
pub fn open_listed_file(path: &Path) -> io::Result<File> {
    #[cfg(unix)]
    {
        OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_NOFOLLOW)
            .open(path)
    }
    #[cfg(not(unix))]
    {
        open_listed_regular(path)
    }
}

/// The whole content of a regular file (see [`open_regular`]).
pub fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Like [`read_regular`], as UTF-8 text.
pub fn read_regular_to_string(path: &Path) -> io::Result<String> {
    String::from_utf8(read_regular(path)?)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Options that open a file without following a symlink at its last
/// component, creating it readable by the user only.
pub fn private_nofollow() -> OpenOptions {
    let mut o = OpenOptions::new();
    #[cfg(unix)]
    {
        o.mode(0o600);
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    o
}

/// A directory whose state must stay private: how it is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// It must belong to this user and be writable by nobody else (the
    /// per-user home, the daemon's socket directory), as ssh demands of
    /// `~/.ssh`.
    MustBeMine,
    /// Another user's directory is left alone, only read (a project
    /// checked out by someone else): only a directory of this user is
    /// tightened.
    Anyone,
}

/// Why [`private_dir`] refused a directory.
fn refuse(dir: &Path, what: &str, why: String, hint: String) -> anyhow::Error {
    UserError::with_code(
        ErrorCode::UnsafePath,
        format!("{what} `{}` {why}", dir.display()),
    )
    .hint(hint)
    .into()
}

/// Checks (and, with `create`, makes) a private directory: `dir` itself
/// must not be a symlink unless `follow` (a user may point their home
/// elsewhere; a project's index directory may not), it must be a
/// directory, per `owner` it must be the user's and not writable by group
/// or others, and a directory of the user's that others may read is
/// tightened to 0700. Missing parents of a created directory are created
/// 0700 too. Returns whether the directory exists.
pub fn private_dir(
    dir: &Path,
    what: &str,
    create: bool,
    follow: bool,
    owner: Owner,
) -> Result<bool> {
    if create {
        let mut b = std::fs::DirBuilder::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::DirBuilderExt;
            b.mode(0o700);
        }
        // `mkdir` never follows a symlink at the last component: a planted
        // link makes it fail with `AlreadyExists`, and the check below
        // refuses it.
        match b.create(dir) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound && follow => {
                b.recursive(true);
                b.create(dir)
                    .with_context(|| format!("cannot create `{}`", dir.display()))?;
            }
            Err(e) => return Err(e).with_context(|| format!("cannot create `{}`", dir.display())),
        }
    }
    let lmd = match std::fs::symlink_metadata(dir) {
        Ok(md) => md,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(e).with_context(|| format!("cannot inspect `{}`", dir.display())),
    };
    if lmd.file_type().is_symlink() && !follow {
        let target = std::fs::read_link(dir)
            .map(|t| format!(" (to `{}`)", t.display()))
            .unwrap_or_default();
        return Err(refuse(
            dir,
            what,
            format!(
                "is a symlink{target}; repo-search never writes or reads its state through a symlink"
            ),
            format!(
                "remove the symlink `{}` (e.g. `rm {}`); repo-search then creates a private directory there",
                dir.display(),
                dir.display()
            ),
        ));
    }
    #[cfg(unix)]
    {
        // Open the directory itself (no symlink at the last component
        // unless allowed) and check and fix the handle, not the name.
        let mut opts = OpenOptions::new();
        opts.read(true);
        let mut flags = libc::O_DIRECTORY | libc::O_NONBLOCK;
        if !follow {
            flags |= libc::O_NOFOLLOW;
        }
        opts.custom_flags(flags);
        let handle = match opts.open(dir) {
            Ok(h) => h,
            Err(e) if e.raw_os_error() == Some(libc::ENOTDIR) => {
                return Err(UserError::with_code(
                    ErrorCode::UnsafePath,
                    format!("{what} `{}` is not a directory", dir.display()),
                )
                .hint(format!(
                    "move `{}` out of the way; repo-search keeps its state in a directory there",
                    dir.display()
                ))
                .into());
            }
            Err(e) => return Err(e).with_context(|| format!("cannot open `{}`", dir.display())),
        };
        let md = handle
            .metadata()
            .with_context(|| format!("cannot inspect `{}`", dir.display()))?;
        let mine = md.uid() == euid();
        let mode = md.mode() & 0o7777;
        if owner == Owner::MustBeMine {
            if !mine {
                return Err(refuse(
                    dir,
                    what,
                    format!(
                        "belongs to another user (uid {}, you are {})",
                        md.uid(),
                        euid()
                    ),
                    format!(
                        "use a directory of your own: set REPO_SEARCH_HOME to one (e.g. `~/.repo_search`), or fix the owner with `chown $(id -u) {}`",
                        dir.display()
                    ),
                ));
            }
            if mode & 0o022 != 0 {
                return Err(refuse(
                    dir,
                    what,
                    format!(
                        "is writable by group or others (mode {mode:04o}), so another user could plant files or a socket in it"
                    ),
                    format!("run `chmod 700 {}`", dir.display()),
                ));
            }
        }
        if mine
            && mode & 0o077 != 0
            && let Err(e) = handle.set_permissions(std::fs::Permissions::from_mode(mode & 0o700))
        {
            tracing::debug!("cannot make `{}` private: {e}", dir.display());
        }
    }
    #[cfg(not(unix))]
    {
        let _ = owner;
        if !lmd.is_dir() {
            return Err(UserError::with_code(
                ErrorCode::UnsafePath,
                format!("{what} `{}` is not a directory", dir.display()),
            )
            .into());
        }
    }
    Ok(true)
}

/// Checks every entry of a private directory: a symlink (or a FIFO,
/// socket or device) is refused with a hint naming it, and files and
/// directories of the user's that others may read or write are tightened
/// (files to 0600, directories to 0700). `what` names the directory.
pub fn tighten_entries(dir: &Path, what: &str) -> Result<()> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot list `{}`", dir.display())),
    };
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot list `{}`", dir.display()))?;
        let path = entry.path();
        let md = match std::fs::symlink_metadata(&path) {
            Ok(md) => md,
            // Removed meanwhile (a temp file renamed into place).
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => {
                return Err(e).with_context(|| format!("cannot inspect `{}`", path.display()));
            }
        };
        let t = md.file_type();
        if t.is_symlink() || !(t.is_file() || t.is_dir()) {
            let kind = special_kind(&md).unwrap_or("not a regular file");
            return Err(UserError::with_code(
                ErrorCode::UnsafePath,
                format!(
                    "`{}` in {what} is {kind}; repo-search never opens its own files through a symlink or a special file",
                    path.display()
                ),
            )
            .hint(format!("remove `{}` (e.g. `rm {}`)", path.display(), path.display()))
            .into());
        }
        #[cfg(unix)]
        {
            let mode = md.mode() & 0o7777;
            if md.uid() == euid() && mode & 0o077 != 0 {
                let private = if t.is_dir() {
                    mode & 0o700
                } else {
                    mode & 0o600
                };
                // Not a symlink (checked above): chmod changes this entry.
                if let Err(e) =
                    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(private))
                {
                    tracing::debug!("cannot make `{}` private: {e}", path.display());
                }
            }
        }
    }
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// Makes a FIFO at `path` (with the `mkfifo` tool) and answers it.
    fn mkfifo(path: &Path) -> std::path::PathBuf {
        let made = std::process::Command::new("mkfifo")
            .arg(path)
            .status()
            .expect("run mkfifo");
        assert!(made.success(), "mkfifo");
        path.to_path_buf()
    }

    #[test]
    fn open_regular_refuses_a_fifo_at_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let fifo = mkfifo(&dir.path().join("pipe"));
        let err = open_regular(&fifo).expect_err("a FIFO");
        assert_eq!(not_regular(&err), Some("a FIFO (named pipe)"));
        std::os::unix::fs::symlink(&fifo, dir.path().join("link")).expect("symlink");
        let err = open_regular(&dir.path().join("link")).expect_err("a link to a FIFO");
        assert!(not_regular(&err).is_some());
        std::fs::write(dir.path().join("a.txt"), "x").expect("write");
        assert_eq!(read_regular(&dir.path().join("a.txt")).expect("read"), b"x");
    }

    /// What a listing's regular file may have become by the time it is
    /// opened: a link is refused, a FIFO is opened at once and reads as
    /// empty.
    #[test]
    fn open_listed_file_refuses_links_and_does_not_wait_on_a_fifo() {
        use std::io::Read;
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.txt"), "x").expect("write");
        let mut text = String::new();
        open_listed_file(&dir.path().join("a.txt"))
            .expect("a regular file")
            .read_to_string(&mut text)
            .expect("read");
        assert_eq!(text, "x");
        std::os::unix::fs::symlink(dir.path().join("a.txt"), dir.path().join("link"))
            .expect("symlink");
        let err = open_listed_file(&dir.path().join("link")).expect_err("a link");
        assert_eq!(err.raw_os_error(), Some(libc::ELOOP));
        let fifo = mkfifo(&dir.path().join("pipe"));
        let mut bytes = Vec::new();
        open_listed_file(&fifo)
            .expect("a FIFO opens without a writer")
            .read_to_end(&mut bytes)
            .expect("reads");
        assert!(bytes.is_empty());
    }

    #[test]
    fn private_dir_refuses_links_and_loose_modes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let outside = tempfile::tempdir().expect("tempdir");
        let link = dir.path().join(".repo_search");
        std::os::unix::fs::symlink(outside.path(), &link).expect("symlink");
        let err = private_dir(&link, "the index directory", true, false, Owner::Anyone)
            .expect_err("a symlink");
        assert_eq!(crate::error::code_of(&err), "UNSAFE_PATH");

        let home = dir.path().join("home");
        std::fs::create_dir(&home).expect("mkdir");
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o777)).expect("chmod");
        let err = private_dir(&home, "REPO_SEARCH_HOME", true, true, Owner::MustBeMine)
            .expect_err("world-writable");
        assert_eq!(crate::error::code_of(&err), "UNSAFE_PATH");
        std::fs::set_permissions(&home, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        assert!(private_dir(&home, "REPO_SEARCH_HOME", true, true, Owner::MustBeMine).expect("ok"));
        let mode = std::fs::metadata(&home).expect("md").mode() & 0o777;
        assert_eq!(mode, 0o700);
    }
}
