//! Owns turning file-system events into index work: one recursive `notify`
//! watcher with a short debounce for all watched projects, routing each
//! changed path to the project(s) it belongs to, and [`plan_work`], which
//! decides which changed paths the index must look at, by the same ignore
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
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use anyhow::{Context, Result};
use notify::event::{AccessKind, AccessMode, EventKind};
use notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer_opt};

use crate::error::UserError;
use crate::settings::Settings;

/// Quiet time after a path's last event before it is reported. Short,
/// because save→searchable must stay well under 200 ms; editors that write
/// a file in several steps finish within it.
pub const DEBOUNCE: Duration = Duration::from_millis(50);
/// How often the debouncer looks for expired events.
const TICK: Duration = Duration::from_millis(10);
/// More changed paths than this in one batch (a `git checkout`, a branch
/// switch) are cheaper as one reconcile of the whole project.
pub const MAX_PATHS_PER_RUN: usize = 2048;

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

/// Where a project's changes go. Called on the watcher's thread: it must
/// be quick (queue the work, do not do it).
pub type Sink = Arc<dyn Fn(Changes) + Send + Sync>;

struct Route {
    root: PathBuf,
    sink: Sink,
}

/// The daemon's one file watcher.
pub struct Watcher {
    debouncer: Mutex<Debouncer<RecommendedWatcher, RecommendedCache>>,
    routes: Arc<RwLock<Vec<Route>>>,
}

impl Watcher {
    pub fn new() -> Result<Watcher> {
        let routes: Arc<RwLock<Vec<Route>>> = Arc::new(RwLock::new(Vec::new()));
        let table = Arc::clone(&routes);
        let handler = move |result: DebounceEventResult| {
            let routes = table.read().unwrap_or_else(|e| e.into_inner());
            for (route, changes) in routes.iter().zip(route_changes(&routes, result)) {
                if !changes.is_empty() {
                    (route.sink)(changes);
                }
            }
        };
        // Symlinks are not followed, as in the walk: a link to `/` must
        // not make us watch the whole disk.
        let config = notify::Config::default().with_follow_symlinks(false);
        let debouncer = new_debouncer_opt(
            DEBOUNCE,
            Some(TICK),
            handler,
            RecommendedCache::new(),
            config,
        )
        .context("cannot start the file watcher")?;
        Ok(Watcher {
            debouncer: Mutex::new(debouncer),
            routes,
        })
    }

    /// Watches `root` recursively, sending its changes to `sink`.
    pub fn watch(&self, root: &Path, sink: Sink) -> Result<()> {
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
        let mut debouncer = self.debouncer.lock().unwrap_or_else(|e| e.into_inner());
        // A root deleted and created again: forget the dead watch first.
        let _ = debouncer.unwatch(root);
        if let Err(e) = debouncer.watch(root, RecursiveMode::Recursive) {
            drop(debouncer);
            self.unwatch(root);
            return Err(watch_error(root, e));
        }
        Ok(())
    }

    /// Stops watching `root` (a no-op if it is not watched).
    pub fn unwatch(&self, root: &Path) {
        let (covered, inner): (bool, Vec<PathBuf>) = {
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
        let mut debouncer = self.debouncer.lock().unwrap_or_else(|e| e.into_inner());
        // Fails when the root is gone (the OS dropped the watch): fine.
        let _ = debouncer.unwatch(root);
        // Projects inside it were covered by its watch; they need their own now.
        for r in inner {
            if let Err(e) = debouncer.watch(&r, RecursiveMode::Recursive) {
                tracing::warn!("{:#}", watch_error(&r, e));
            }
        }
    }
}

/// Splits one debounced batch into per-route changes (same order as
/// `routes`). A path under nested roots goes to each of them.
fn route_changes(routes: &[Route], result: DebounceEventResult) -> Vec<Changes> {
    let mut out: Vec<Changes> = routes.iter().map(|_| Changes::default()).collect();
    match result {
        Ok(events) => {
            let mut rescan = false;
            for ev in &events {
                rescan |= ev.event.need_rescan();
                if is_content_event(&ev.event.kind) {
                    for p in &ev.event.paths {
                        add_path(routes, &mut out, p);
                    }
                }
            }
            if rescan {
                out.iter_mut().for_each(|c| c.rescan = true);
            }
        }
        Err(errors) => {
            for e in errors {
                // An error about a path (say, a directory that vanished
                // before it could be watched) is re-examined as a change to
                // that path; ignored directories thus cost nothing. Without
                // a path we cannot know what we missed: reconcile.
                if e.paths.is_empty() {
                    for c in &mut out {
                        c.rescan = true;
                        c.errors.push(e.to_string());
                    }
                } else {
                    tracing::debug!("watcher: {e}");
                    for p in &e.paths {
                        add_path(routes, &mut out, p);
                    }
                }
            }
        }
    }
    out
}

fn add_path(routes: &[Route], out: &mut [Changes], path: &Path) {
    for (route, changes) in routes.iter().zip(out.iter_mut()) {
        if let Some(rel) = relative(&route.root, path)
            && !is_index_dir_noise(&rel)
        {
            changes.paths.push(rel);
        }
    }
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
    let mut vis = Visibility::new(settings);
    let mut only: Vec<String> = Vec::new();
    for rel in changed {
        if rel.is_empty() || rel == CONFIG_REL {
            return Work {
                reconcile: true,
                only: Vec::new(),
            };
        }
        if is_in_index_dir(rel) {
            continue;
        }
        let (parent, name) = rel.rsplit_once('/').unwrap_or(("", rel.as_str()));
        if rel == ".git/info/exclude" {
            return Work {
                reconcile: true,
                only: Vec::new(),
            };
        }
        if IGNORE_FILE_NAMES.contains(&name) {
            // An ignore file inside an ignored directory (say, in
            // `node_modules/`) changes nothing we index.
            if parent.is_empty() || matches!(vis.check(parent), Seen::Visible { .. }) {
                return Work {
                    reconcile: true,
                    only: Vec::new(),
                };
            }
            continue;
        }
        match vis.check(rel) {
            Seen::Ignored => {}
            // An extension-less name may be a script: the index run reads
            // first line (`#!`, Emacs mode line).
            Seen::Visible { is_dir: false }
                if crate::lang::detect_lang(Path::new(name)).is_none()
                    && !crate::lang::may_be_script(Path::new(name)) => {}
            // Deleted paths may have been files or whole directories: the
            // index removes whatever it holds under them.
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

/// Answers "would the walk reach this path" with the walker's own rules.
pub struct Visibility<'a> {
    settings: &'a Settings,
    /// Directory (root-relative) → names the walker yields in it, or `None`
    /// if it is not a directory.
    listings: HashMap<String, Option<HashSet<String>>>,
}

impl<'a> Visibility<'a> {
    pub fn new(settings: &'a Settings) -> Visibility<'a> {
        Visibility {
            settings,
            listings: HashMap::new(),
        }
    }

    pub fn check(&mut self, rel: &str) -> Seen {
        let root = self.settings.root.clone();
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
        let settings = self.settings;
        self.listings
            .entry(dir.to_string())
            .or_insert_with(|| list_dir(settings, dir))
            .as_ref()
    }
}

/// The names the walk yields directly inside `dir` (root-relative).
fn list_dir(settings: &Settings, dir: &str) -> Option<HashSet<String>> {
    let root = &settings.root;
    let abs: PathBuf = if dir.is_empty() {
        root.clone()
    } else {
        root.join(dir)
    };
    if !abs.is_dir() {
        return None;
    }
    let mut builder = crate::walk::walk_builder_for(root, &abs, &settings.walk).ok()?;
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
    use crate::settings::Overrides;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }

    fn set(paths: &[&str]) -> BTreeSet<String> {
        paths.iter().map(|p| p.to_string()).collect()
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
                only: vec!["gone.py".into(), "src/a.py".into()]
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

        let mut vis = Visibility::new(&s);
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
