//! Owns path rules: where per-user state lives (`REPO_SEARCH_HOME`, its
//! files user-only), and how a path given by a user or client is resolved
//! inside a project root.
//!
//! **Invariant**: nothing outside the project root is ever read or returned.
//! Paths are normalised, symlinks resolved, and `..` escapes refused.

use std::fs::OpenOptions;
use std::path::{Component, Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Result;

use crate::error::{ErrorCode, UserError};

/// Per-user state directory: `$REPO_SEARCH_HOME`, else `~/.repo_search`.
pub fn home_dir() -> PathBuf {
    if let Some(h) = std::env::var_os("REPO_SEARCH_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h);
    }
    let base = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    base.join(".repo_search")
}

/// Unix seconds now (0 if the clock is before 1970).
pub fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// Options that create files readable by the user only.
pub fn private_options() -> OpenOptions {
    let mut o = OpenOptions::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        o.mode(0o600);
    }
    o
}

/// Creates the per-user home `dir` (and parents) 0700 if missing, and
/// checks it as ssh checks `~/.ssh`: it must be the user's and writable by
/// nobody else (else another user could plant a registry, or a socket that
/// receives the requests meant for the daemon); one others may read is
/// tightened to 0700.
pub fn ensure_private_dir(dir: &Path) -> Result<()> {
    check_home(dir, true).map(|_| ())
}

/// [`ensure_private_dir`] without creating: `Ok(false)` when `dir` does
/// not exist.
pub fn check_home(dir: &Path, create: bool) -> Result<bool> {
    crate::fs_safe::private_dir(
        dir,
        "REPO_SEARCH_HOME",
        create,
        true,
        crate::fs_safe::Owner::MustBeMine,
    )
}

/// A file inside the project: its canonical absolute path and its
/// root-relative, `/`-separated form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectPath {
    pub abs: PathBuf,
    pub rel: String,
}

/// Resolves `input` (relative to `root`, or absolute) to a path inside
/// `root`, which must already be canonical. Refuses escapes, including
/// through symlinks, and paths that do not exist.
pub fn resolve_in_root(root: &Path, input: &str) -> Result<ProjectPath> {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return Err(UserError::new("empty path")
            .hint("give a path relative to the project root, e.g. `src/main.rs`")
            .into());
    }
    if trimmed.contains('\0') {
        return Err(UserError::new("path contains a NUL byte")
            .hint("give a plain file path")
            .into());
    }
    let candidate = Path::new(trimmed);
    let joined = if candidate.is_absolute() {
        candidate.to_path_buf()
    } else {
        root.join(candidate)
    };
    // Refuse lexical escapes before touching the file system, so a path like
    // `../../etc/passwd` is reported as outside even when it does not exist.
    let lexical = normalize_lexically(&joined);
    if !lexical.starts_with(root) {
        return Err(outside(input, root));
    }
    let abs = match lexical.canonicalize() {
        Ok(p) => p,
        Err(_) => {
            return Err(UserError::with_code(ErrorCode::NotFound, format!("no such file: `{input}`"))
                .hint("paths are relative to the project root; `repo-search search FILE_NAME` finds a file by its name")
                .agent("paths are relative to the project root; use find_symbol or search_keyword with a glob to find the right path")
                .into());
        }
    };
    if !abs.starts_with(root) {
        // A symlink that points out of the project.
        return Err(outside(input, root));
    }
    Ok(ProjectPath {
        rel: rel_string(root, &abs),
        abs,
    })
}

fn outside(input: &str, root: &Path) -> anyhow::Error {
    UserError::with_code(
        ErrorCode::PathOutsideRoot,
        format!(
            "path `{input}` is outside the project root `{}`",
            root.display()
        ),
    )
    .hint("give a path inside the project, relative to its root (e.g. `src/lib.rs`)")
    .into()
}

/// `root`-relative `/`-separated string of `path` (which must be under `root`).
pub fn rel_string(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut out = String::new();
    for c in rel.components() {
        if let Component::Normal(s) = c {
            if !out.is_empty() {
                out.push('/');
            }
            out.push_str(&s.to_string_lossy());
        }
    }
    out
}

/// Removes `.` and resolves `..` without touching the file system.
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_escapes_and_accepts_inside() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(root.join("src")).expect("mkdir");
        std::fs::write(root.join("src/a.rs"), "fn a() {}").expect("write");
        let p = resolve_in_root(&root, "src/../src/a.rs").expect("inside");
        assert_eq!(p.rel, "src/a.rs");
        for bad in ["../../etc/passwd", "/etc/passwd", "src/../../x"] {
            let err = resolve_in_root(&root, bad).expect_err(bad);
            assert!(err.to_string().contains("outside"), "{bad}: {err}");
        }
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", root.join("link")).expect("symlink");
            let err = resolve_in_root(&root, "link/passwd").expect_err("symlink");
            assert!(err.to_string().contains("outside"), "{err}");
        }
        let err = resolve_in_root(&root, "missing.rs").expect_err("missing");
        assert!(err.to_string().contains("no such file"));
    }
}
