//! Owns the one file walk that every part of repo-search uses (keyword search
//! now, the indexer too), so that "which files belong to the project" has a
//! single answer. Does not read file contents (that is `search::keyword`'s and
//! `index`'s job).
//!
//! The rules are ripgrep's defaults, applied through the same `ignore` crate
//! with the same knobs ripgrep sets (`crates/core/flags/hiargs.rs`,
//! `walk_builder`):
//!
//! - `.gitignore` (only inside a git repository unless `require_git` is
//!   false), `.git/info/exclude`, the global git excludes file, `.ignore` and
//!   `.rgignore`, in the current directory and in parent directories;
//! - hidden files and directories are skipped unless `hidden`;
//! - `no_ignore` turns off every ignore file, like `rg --no-ignore`;
//! - `globs` are overrides with `rg -g` semantics (`!` negates);
//! - `types` / `types_not` are ripgrep's file types (`rg -t` / `-T`), from
//!   the same built-in table.
//!
//! **Invariant**: the project's own index directory (`.repo_search/`) is never
//! walked, whatever the options (`--hidden`, `--no-ignore`, globs).

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};

use ignore::overrides::{Override, OverrideBuilder};
use ignore::{DirEntry, WalkBuilder};

use crate::error::{UserError, user_err};

/// Name of the project-local index directory, excluded from every walk.
pub const INDEX_DIR_NAME: &str = ".repo_search";

/// How to walk a project. The defaults are ripgrep's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkOptions {
    /// Walk hidden files and directories (`rg --hidden`).
    pub hidden: bool,
    /// Ignore every ignore file: `.gitignore`, `.ignore`, `.rgignore`,
    /// `.git/info/exclude`, global excludes, in parents too (`rg --no-ignore`).
    pub no_ignore: bool,
    /// Apply `.gitignore` rules only inside a git repository (ripgrep's
    /// default). `false` is `rg --no-require-git`.
    pub require_git: bool,
    /// Globs with `rg -g` semantics, relative to the root; a leading `!`
    /// excludes. When any non-negated glob is given, only files matching one
    /// are walked.
    pub globs: Vec<String>,
    /// Skip files larger than this many bytes (`rg --max-filesize`).
    pub max_filesize: Option<u64>,
    /// Walker threads; 0 picks ripgrep's default (available cores, at most 12).
    pub threads: usize,
    /// Follow symbolic links (`rg -L`).
    pub follow_links: bool,
    /// Only files of these ripgrep file types (`rg -t py`); see
    /// `rg --type-list`.
    pub types: Vec<String>,
    /// No files of these ripgrep file types (`rg -T js`).
    pub types_not: Vec<String>,
}

impl Default for WalkOptions {
    fn default() -> WalkOptions {
        WalkOptions {
            hidden: false,
            no_ignore: false,
            require_git: true,
            globs: Vec::new(),
            max_filesize: None,
            threads: 0,
            follow_links: false,
            types: Vec::new(),
            types_not: Vec::new(),
        }
    }
}

/// Returns a walk builder over `root` configured like ripgrep with `opts`.
///
/// `root` should be absolute; globs and the global git excludes are matched
/// relative to it, as ripgrep does when run from the root.
pub fn walk_builder(root: &Path, opts: &WalkOptions) -> anyhow::Result<WalkBuilder> {
    walk_builder_for(root, root, opts)
}

/// Like [`walk_builder`], but the walk starts at `start`, a file or directory
/// inside `root`; add more starting points with `WalkBuilder::add`. Ignore
/// rules (parents' included), globs and the index-directory exclusion are
/// still those of `root`, so a walk restricted to a subdirectory yields the
/// same files as the full walk filtered to it. As in ripgrep, a starting path
/// that is a file is always yielded (ignore rules and globs filter only what
/// is found below a directory), so callers that take paths from users should
/// drop those inside the index directory with [`is_in_index_dir`].
pub fn walk_builder_for(
    root: &Path,
    start: &Path,
    opts: &WalkOptions,
) -> anyhow::Result<WalkBuilder> {
    if !root.is_dir() {
        return user_err(
            format!("`{}` is not a directory", root.display()),
            "pass the project root directory (--root DIR)",
        );
    }
    let mut builder = WalkBuilder::new(start);
    let ignore_files = !opts.no_ignore;
    // The per-user state directory (models, registry, the daemon's log)
    // is never a project's file, even when it lies inside one: indexing
    // the daemon's log from a watched project looped (each run logs a
    // line, which is a change to index).
    let state = std::fs::canonicalize(crate::paths::home_dir())
        .ok()
        .filter(|s| std::fs::canonicalize(root).is_ok_and(|r| s.starts_with(&r)));
    builder
        // Global excludes are matched relative to the working directory;
        // pin it to the root so the daemon (whose cwd is anywhere) sees what
        // `rg` run from the root sees.
        .current_dir(root)
        .follow_links(opts.follow_links)
        .max_filesize(opts.max_filesize)
        .threads(effective_threads(opts.threads))
        .overrides(build_overrides(root, &opts.globs)?)
        .types(build_types(&opts.types, &opts.types_not)?)
        .hidden(!opts.hidden)
        .parents(ignore_files)
        .ignore(ignore_files)
        .git_global(ignore_files)
        .git_ignore(ignore_files)
        .git_exclude(ignore_files)
        .require_git(opts.require_git)
        .filter_entry(move |entry| {
            !is_index_dir_entry(entry) && !state.as_deref().is_some_and(|s| is_dir_at(entry, s))
        });
    if ignore_files {
        builder.add_custom_ignore_filename(".rgignore");
    }
    Ok(builder)
}

/// The number of threads a walk with `threads` requested will use: the
/// request itself, or for 0 ripgrep's default of the available cores capped
/// at 12.
pub fn effective_threads(threads: usize) -> usize {
    if threads > 0 {
        return threads;
    }
    std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(12)
}

/// A glob climbing out of the project (`../*.rs`): paths are matched
/// relative to the project's root, so it can match nothing, and silence
/// (or "no files were searched") would read as "no such code".
pub fn reject_outside_glob(glob: &str) -> anyhow::Result<()> {
    let pat = glob.strip_prefix('!').unwrap_or(glob);
    if pat.split(['/', '\\']).any(|c| c == "..") {
        return Err(crate::error::UserError::with_code(
            crate::error::ErrorCode::PathOutsideRoot,
            format!(
                "glob `{glob}` reaches outside the project: globs match paths relative to its root"
            ),
        )
        .hint("search one project at a time; globs look like `*.py`, `src/**`, `!tests/**`")
        .into());
    }
    Ok(())
}

/// Builds the `-g` overrides. An invalid glob is the user's mistake, so it
/// becomes a `UserError` naming the glob.
fn build_overrides(root: &Path, globs: &[String]) -> anyhow::Result<Override> {
    const HINT: &str = "globs use .gitignore syntax, e.g. `*.py`, `src/**`, `!tests/**`; \
                        escape `[`, `{`, `*` and `?` with `\\` to match them literally";
    if globs.is_empty() {
        return Ok(Override::empty());
    }
    let mut builder = OverrideBuilder::new(root);
    for glob in globs {
        if glob.is_empty() || glob == "!" {
            return user_err(format!("invalid glob `{glob}`: empty glob"), HINT);
        }
        reject_outside_glob(glob)?;
        if let Err(err) = builder.add(glob) {
            return user_err(
                format!("invalid glob `{glob}`: {}", glob_error_summary(&err)),
                HINT,
            );
        }
    }
    match builder.build() {
        Ok(overrides) => Ok(overrides),
        Err(err) => user_err(
            format!("invalid globs {globs:?}: {}", glob_error_summary(&err)),
            HINT,
        ),
    }
}

/// Builds the `-t` / `-T` file-type matcher from ripgrep's built-in
/// table. An unknown type is the user's mistake: a `UserError` naming it,
/// with the known names nearest to it.
fn build_types(select: &[String], negate: &[String]) -> anyhow::Result<ignore::types::Types> {
    let mut builder = ignore::types::TypesBuilder::new();
    builder.add_defaults();
    if select.is_empty() && negate.is_empty() {
        return Ok(ignore::types::Types::empty());
    }
    let known: Vec<String> = builder
        .definitions()
        .iter()
        .map(|d| d.name().to_string())
        .collect();
    for name in select.iter().chain(negate) {
        if !known.iter().any(|k| k == name) {
            let near: Vec<&str> = known
                .iter()
                .filter(|k| {
                    k.starts_with(name.as_str())
                        || name.starts_with(k.as_str())
                        || crate::text::typo_distance(k.as_bytes(), name.as_bytes(), 1).is_some()
                })
                .map(String::as_str)
                .take(6)
                .collect();
            // The agent's hint names no shell command (`rg --type-list`).
            let (hint, agent) = if near.is_empty() {
                let e = "e.g. py, rust, js, ts, go, java, c, cpp";
                (
                    format!("file types are ripgrep's (`rg --type-list`), {e}"),
                    format!("file types are ripgrep's names, {e}"),
                )
            } else {
                let m = format!("did you mean {}?", near.join(", "));
                (
                    format!("file types are ripgrep's (`rg --type-list`); {m}"),
                    format!("file types are ripgrep's names; {m}"),
                )
            };
            return Err(UserError::new(format!("unknown file type `{name}`"))
                .hint(hint)
                .agent(agent)
                .into());
        }
    }
    for name in select {
        builder.select(name);
    }
    for name in negate {
        builder.negate(name);
    }
    match builder.build() {
        Ok(types) => Ok(types),
        Err(e) => Err(UserError::new(format!("invalid file types: {e}"))
            .hint("file types are ripgrep's (`rg --type-list`)")
            .agent("file types are ripgrep's names, e.g. py, rust, js, ts, go")
            .into()),
    }
}

/// The glob parser's own explanation, without the glob repeated around it.
fn glob_error_summary(err: &ignore::Error) -> String {
    match err {
        ignore::Error::Glob { err, .. } => err.clone(),
        ignore::Error::WithLineNumber { err, .. }
        | ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. } => glob_error_summary(err),
        other => other.to_string(),
    }
}

/// True for a directory entry that is `dir` (canonical): its name first,
/// then the entry's own canonical path, so other entries cost no syscall.
fn is_dir_at(entry: &DirEntry, dir: &Path) -> bool {
    dir.file_name() == Some(entry.file_name())
        && entry.file_type().is_some_and(|t| t.is_dir())
        && std::fs::canonicalize(entry.path()).is_ok_and(|p| p == dir)
}

/// True for the index directory itself. Used as the walk's entry filter so
/// the walker never descends into it.
fn is_index_dir_entry(entry: &DirEntry) -> bool {
    entry.file_name() == INDEX_DIR_NAME && entry.file_type().is_some_and(|t| t.is_dir())
}

/// True if `path` is the index directory or lies inside one, judged by the
/// components below `root` (for paths outside `root`, all components). Use it
/// for paths that did not come from the walk: explicit paths, watcher events.
pub fn is_in_index_dir(root: &Path, path: &Path) -> bool {
    let below = path.strip_prefix(root).unwrap_or(path);
    below
        .components()
        .any(|c| matches!(c, Component::Normal(name) if name == INDEX_DIR_NAME))
}

/// True if ripgrep would search this walked entry: a regular file (after
/// following links when the walk follows them), or anything that is not a
/// directory when it was given explicitly (depth 0), as in ripgrep's
/// `crates/core/haystack.rs`.
pub fn is_searchable_file(entry: &DirEntry) -> bool {
    let Some(file_type) = entry.file_type() else {
        return false;
    };
    if file_type.is_file() {
        return true;
    }
    if entry.depth() == 0 && !file_type.is_dir() {
        // An explicit symlink to a directory is still a directory.
        return !(entry.path_is_symlink() && entry.path().is_dir());
    }
    false
}

/// True if the entry was given explicitly (a walk root that is not a
/// directory); ripgrep treats such files differently (binary detection
/// converts instead of quitting).
pub fn is_explicit_file(entry: &DirEntry) -> bool {
    entry.depth() == 0 && is_searchable_file(entry)
}

/// `path` relative to `root` as a `/`-separated string (lossy for names that
/// are not UTF-8). A path outside `root` is returned whole; `root` itself is
/// `"."`.
pub fn rel_path(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    // The walk's usual case, a clean relative UTF-8 path: taken as it is
    // (this runs once per file on a whole-tree search).
    #[cfg(unix)]
    if let Some(text) = rel.to_str()
        && is_clean_relative(text)
    {
        return text.to_owned();
    }
    let mut out = String::with_capacity(rel.as_os_str().len());
    for component in rel.components() {
        let part = match component {
            Component::Normal(name) => name.to_string_lossy(),
            Component::RootDir => {
                out.push('/');
                continue;
            }
            Component::CurDir => continue,
            Component::ParentDir => "..".into(),
            Component::Prefix(prefix) => prefix.as_os_str().to_string_lossy(),
        };
        if !out.is_empty() && !out.ends_with('/') {
            out.push('/');
        }
        out.push_str(&part);
    }
    if out.is_empty() {
        out.push('.');
    }
    out
}

/// `text` is a non-empty relative path whose components are all normal
/// names: no leading `/`, no empty, `.` or `..` component.
#[cfg(unix)]
fn is_clean_relative(text: &str) -> bool {
    !text.is_empty()
        && text
            .split('/')
            .all(|part| !part.is_empty() && part != "." && part != "..")
}

/// Where a path stands with respect to the walk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// The walk reaches it.
    Visible { is_dir: bool },
    /// It exists, but the walk skips it or one of its parent directories.
    Ignored,
    /// It does not exist (any more).
    Missing,
}

/// Answers "would the walk reach this path" with the walker's own rules:
/// for `a/b/c.rs`, lists `""`, `a` and `a/b` one level deep with
/// [`walk_builder_for`] (the root's rules, parents included) and checks
/// that each component is among the entries the walker yields. Listings are
/// cached, so many paths in a few directories cost a few directory reads.
pub struct Visibility<'a> {
    root: &'a Path,
    opts: &'a WalkOptions,
    /// Directory (root-relative) → names the walker yields in it, or `None`
    /// if it is not a directory.
    listings: HashMap<String, Option<HashSet<String>>>,
}

impl<'a> Visibility<'a> {
    pub fn new(root: &'a Path, opts: &'a WalkOptions) -> Visibility<'a> {
        Visibility {
            root,
            opts,
            listings: HashMap::new(),
        }
    }

    pub fn check(&mut self, rel: &str) -> Seen {
        let root = self.root;
        let mut parent = String::new();
        for name in rel.split('/').filter(|c| !c.is_empty()) {
            match self.listing(&parent) {
                None => return Seen::Missing,
                Some(names) if !names.contains(name) => {
                    let abs = root.join(&parent).join(name);
                    return if abs.symlink_metadata().is_ok() {
                        Seen::Ignored
                    } else {
                        Seen::Missing
                    };
                }
                Some(_) => {}
            }
            if !parent.is_empty() {
                parent.push('/');
            }
            parent.push_str(name);
        }
        match std::fs::metadata(root.join(rel)) {
            Ok(md) => Seen::Visible {
                is_dir: md.is_dir(),
            },
            Err(_) => Seen::Missing,
        }
    }

    fn listing(&mut self, dir: &str) -> Option<&HashSet<String>> {
        let (root, opts) = (self.root, self.opts);
        self.listings
            .entry(dir.to_string())
            .or_insert_with(|| list_dir(root, opts, dir))
            .as_ref()
    }
}

/// The names the walk yields directly inside `dir` (root-relative).
fn list_dir(root: &Path, opts: &WalkOptions, dir: &str) -> Option<HashSet<String>> {
    let abs: PathBuf = if dir.is_empty() {
        root.to_path_buf()
    } else {
        root.join(dir)
    };
    if !abs.is_dir() {
        return None;
    }
    let mut builder = walk_builder_for(root, &abs, opts).ok()?;
    builder.max_depth(Some(1)).threads(1);
    Some(
        builder
            .build()
            .filter_map(|e| e.ok())
            .filter(|e| e.depth() == 1)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::process::Command;

    use crate::error::find_user_error;

    fn write(root: &Path, rel: &str, contents: &str) {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create parent dirs");
        }
        fs::write(path, contents).expect("write test file");
    }

    /// The sorted, root-relative files the walk yields.
    fn walked(root: &Path, opts: &WalkOptions) -> Vec<String> {
        let mut out: Vec<String> = walk_builder(root, opts)
            .expect("walk builder")
            .build()
            .filter_map(Result::ok)
            .filter(is_searchable_file)
            .map(|e| rel_path(root, e.path()))
            .collect();
        out.sort();
        out
    }

    /// The sorted files `rg --files` lists with `args`, or `None` when rg is
    /// not installed.
    fn rg_files(root: &Path, args: &[&str]) -> Option<Vec<String>> {
        let output = Command::new("rg")
            .args(["--files", "--no-config", "--no-messages"])
            .args(args)
            .current_dir(root)
            .output()
            .ok()?;
        let mut out: Vec<String> = String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(|l| l.trim_start_matches("./").to_string())
            .collect();
        out.sort();
        Some(out)
    }

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(root, ".gitignore", "ignored_by_git.txt\nbuild/\n");
        write(root, ".ignore", "ignored_by_dot_ignore.txt\n");
        write(root, ".rgignore", "ignored_by_rgignore.txt\n");
        write(root, "kept.txt", "x\n");
        write(root, "ignored_by_git.txt", "x\n");
        write(root, "ignored_by_dot_ignore.txt", "x\n");
        write(root, "ignored_by_rgignore.txt", "x\n");
        write(root, "build/out.txt", "x\n");
        write(root, ".hidden/inside.txt", "x\n");
        write(root, ".hidden_file", "x\n");
        write(root, "src/main.py", "x\n");
        write(root, "src/sub/.gitignore", "*.log\n");
        write(root, "src/sub/a.log", "x\n");
        write(root, "src/sub/b.py", "x\n");
        write(root, "tests/test_a.py", "x\n");
        write(root, ".repo_search/index.db", "x\n");
        write(root, "nested/.repo_search/index.db", "x\n");
        dir
    }

    fn git_init(root: &Path) -> bool {
        Command::new("git")
            .args(["init", "-q"])
            .current_dir(root)
            .status()
            .is_ok_and(|s| s.success())
    }

    fn check_against_rg(root: &Path, opts: &WalkOptions, rg_args: &[&str]) -> Vec<String> {
        let ours = walked(root, opts);
        if let Some(mut theirs) = rg_files(root, rg_args) {
            // rg does not know about our index directory; with --hidden it
            // lists it and we must not.
            theirs.retain(|p| !is_in_index_dir(Path::new(""), Path::new(p)));
            assert_eq!(ours, theirs, "walk differs from `rg --files {rg_args:?}`");
        }
        ours
    }

    #[test]
    fn outside_git_repo_gitignore_is_not_applied() {
        let dir = tree();
        let files = check_against_rg(dir.path(), &WalkOptions::default(), &[]);
        assert!(files.contains(&"ignored_by_git.txt".to_string()));
        assert!(files.contains(&"build/out.txt".to_string()));
        assert!(!files.contains(&"ignored_by_dot_ignore.txt".to_string()));
        assert!(!files.contains(&"ignored_by_rgignore.txt".to_string()));
        assert!(!files.iter().any(|f| f.starts_with(".hidden")));
    }

    #[test]
    fn no_require_git_applies_gitignore_outside_repo() {
        let dir = tree();
        let opts = WalkOptions {
            require_git: false,
            ..WalkOptions::default()
        };
        let files = check_against_rg(dir.path(), &opts, &["--no-require-git"]);
        assert!(!files.contains(&"ignored_by_git.txt".to_string()));
        assert!(!files.contains(&"build/out.txt".to_string()));
        assert!(!files.contains(&"src/sub/a.log".to_string()));
    }

    #[test]
    fn inside_git_repo_gitignore_and_exclude_apply() {
        let dir = tree();
        if !git_init(dir.path()) {
            return;
        }
        write(dir.path(), ".git/info/exclude", "excluded_by_info.txt\n");
        write(dir.path(), "excluded_by_info.txt", "x\n");
        let files = check_against_rg(dir.path(), &WalkOptions::default(), &[]);
        assert_eq!(
            files,
            vec!["kept.txt", "src/main.py", "src/sub/b.py", "tests/test_a.py"]
        );
    }

    #[test]
    fn parent_ignore_files_apply_to_a_subdirectory_root() {
        let dir = tree();
        let sub = dir.path().join("src/sub");
        let opts = WalkOptions {
            require_git: false,
            ..WalkOptions::default()
        };
        // Walking from a subdirectory still honours the ignore file above it.
        write(dir.path(), ".ignore", "b.py\n");
        let files = check_against_rg(&sub, &opts, &["--no-require-git"]);
        assert!(files.is_empty(), "{files:?}");
    }

    #[test]
    fn hidden_and_no_ignore_never_walk_the_index_dir() {
        let dir = tree();
        let opts = WalkOptions {
            hidden: true,
            no_ignore: true,
            ..WalkOptions::default()
        };
        let files = check_against_rg(dir.path(), &opts, &["--hidden", "--no-ignore"]);
        assert!(files.contains(&".hidden/inside.txt".to_string()));
        assert!(files.contains(&"ignored_by_rgignore.txt".to_string()));
        assert!(
            !files.iter().any(|f| f.contains(".repo_search")),
            "{files:?}"
        );
        // Even a glob that whitelists it does not bring it back.
        let opts = WalkOptions {
            globs: vec![".repo_search/**".into()],
            ..opts
        };
        assert!(walked(dir.path(), &opts).is_empty());
    }

    #[test]
    fn globs_with_negation() {
        let dir = tree();
        let opts = WalkOptions {
            globs: vec!["*.py".into()],
            ..WalkOptions::default()
        };
        let files = check_against_rg(dir.path(), &opts, &["-g", "*.py"]);
        assert_eq!(
            files,
            vec!["src/main.py", "src/sub/b.py", "tests/test_a.py"]
        );

        let opts = WalkOptions {
            globs: vec!["*.py".into(), "!tests/**".into()],
            ..WalkOptions::default()
        };
        let files = check_against_rg(dir.path(), &opts, &["-g", "*.py", "-g", "!tests/**"]);
        assert_eq!(files, vec!["src/main.py", "src/sub/b.py"]);

        let opts = WalkOptions {
            globs: vec!["!src".into()],
            ..WalkOptions::default()
        };
        let files = check_against_rg(dir.path(), &opts, &["-g", "!src"]);
        assert!(!files.iter().any(|f| f.starts_with("src/")));
    }

    #[test]
    fn invalid_glob_is_a_user_error_with_hint() {
        let dir = tree();
        for bad in ["src/[a", "{a,b", ""] {
            let opts = WalkOptions {
                globs: vec![bad.into()],
                ..WalkOptions::default()
            };
            let err = walk_builder(dir.path(), &opts).expect_err("invalid glob");
            let user = find_user_error(&err).expect("user error");
            assert!(
                user.message.starts_with(&format!("invalid glob `{bad}`")),
                "{user:?}"
            );
            assert!(user.hint.is_some());
        }
    }

    #[test]
    fn missing_root_is_a_user_error() {
        let err = walk_builder(
            Path::new("/nonexistent/repo-search-root"),
            &WalkOptions::default(),
        )
        .expect_err("missing root");
        assert!(find_user_error(&err).is_some());
    }

    #[test]
    fn explicit_paths_restrict_the_walk() {
        let dir = tree();
        let root = dir.path();
        let mut builder =
            walk_builder_for(root, &root.join("src"), &WalkOptions::default()).expect("builder");
        builder.add(root.join("ignored_by_rgignore.txt"));
        let mut files: Vec<(String, bool)> = builder
            .build()
            .filter_map(Result::ok)
            .filter(is_searchable_file)
            .map(|e| (rel_path(root, e.path()), is_explicit_file(&e)))
            .collect();
        files.sort();
        // An explicit file is searched even though an ignore file names it.
        assert_eq!(
            files,
            vec![
                ("ignored_by_rgignore.txt".to_string(), true),
                ("src/main.py".to_string(), false),
                ("src/sub/a.log".to_string(), false),
                ("src/sub/b.py".to_string(), false),
            ]
        );
    }

    #[test]
    fn rel_path_is_slash_separated() {
        let root = Path::new("/a/b");
        assert_eq!(rel_path(root, Path::new("/a/b/c/d.rs")), "c/d.rs");
        assert_eq!(rel_path(root, Path::new("/a/b")), ".");
        assert_eq!(rel_path(Path::new("."), Path::new("./x/y")), "x/y");
        assert_eq!(rel_path(root, Path::new("/elsewhere/x")), "/elsewhere/x");
        // Not clean: normalized the slow way.
        assert_eq!(rel_path(root, Path::new("/a/b/c//./d.rs")), "c/d.rs");
        assert_eq!(rel_path(root, Path::new("/a/b/c/../d.rs")), "c/../d.rs");
        assert_eq!(rel_path(root, Path::new("/a/b/c/")), "c");
        assert!(is_in_index_dir(
            root,
            Path::new("/a/b/.repo_search/index.db")
        ));
        assert!(is_in_index_dir(root, Path::new("/a/b/x/.repo_search")));
        assert!(!is_in_index_dir(
            root,
            Path::new("/a/b/x/.repo_search_not/y")
        ));
    }
}
