//! Owns `REPO_SEARCH_HOME/registry.json`: every project that `repo-search
//! init` or `index` touched, with its watch flag, its last counts and its
//! last error. Does not index or watch anything (that is `index` and
//! `daemon`); the daemon reads this file to know what to watch.
//!
//! **Invariant**: every change is a read-modify-write under an exclusive
//! `flock` on `registry.lock`, and lands atomically: a temp file in the same
//! directory, fsync, rename. Readers take no lock; they see the old file or
//! the new one, never half of either. Files are user-only (0600, directory
//! 0700).
//!
//! **Invariant**: a registry that does not parse is never lost silently: it
//! is renamed to `registry.json.corrupt-<unix time>` with a warning (stderr
//! for the CLI, the log for the daemon) and the registry starts empty.
//!
//! Format changelog (bump [`FORMAT_VERSION`] on every change):
//! - 1: `{version, projects: [{root, index_path, watch, added, last_indexed,
//!   files, symbols, chunks, index_bytes, last_error}]}`.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::home_file::{Document, HomeFile, Parsed};
use crate::index::IndexSummary;
// The per-user file helpers live in `paths`; re-exported for their callers.
pub(crate) use crate::paths::{check_home, ensure_private_dir, private_options, unix_now};

pub const REGISTRY_FILE: &str = "registry.json";
const LOCK_FILE: &str = "registry.lock";
/// Version of the registry file format (see the changelog above).
pub const FORMAT_VERSION: u32 = 1;

/// One registered project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectEntry {
    /// Canonical absolute project root: the key.
    pub root: PathBuf,
    /// The project's index database.
    pub index_path: PathBuf,
    /// Whether the daemon keeps this project fresh.
    #[serde(default = "default_watch")]
    pub watch: bool,
    /// Unix seconds when the project was first registered.
    #[serde(default)]
    pub added: i64,
    /// Unix seconds of the last completed index run.
    #[serde(default)]
    pub last_indexed: Option<i64>,
    #[serde(default)]
    pub files: u64,
    #[serde(default)]
    pub symbols: u64,
    #[serde(default)]
    pub chunks: u64,
    /// Bytes of `index.db` plus its WAL.
    #[serde(default)]
    pub index_bytes: u64,
    /// Why the last run (or the watcher) failed, if it did.
    #[serde(default)]
    pub last_error: Option<String>,
}

fn default_watch() -> bool {
    true
}

/// The whole file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RegistryData {
    pub version: u32,
    #[serde(default)]
    pub projects: Vec<ProjectEntry>,
}

impl Default for RegistryData {
    fn default() -> RegistryData {
        RegistryData {
            version: FORMAT_VERSION,
            projects: Vec::new(),
        }
    }
}

impl Document for RegistryData {
    fn stamp(&mut self) {
        self.version = FORMAT_VERSION;
    }
}

impl RegistryData {
    pub fn get(&self, root: &Path) -> Option<&ProjectEntry> {
        self.projects.iter().find(|p| p.root == root)
    }

    pub fn get_mut(&mut self, root: &Path) -> Option<&mut ProjectEntry> {
        self.projects.iter_mut().find(|p| p.root == root)
    }

    /// The entry for `root`, added (watch on) if it is not there yet.
    pub fn upsert(&mut self, root: &Path) -> &mut ProjectEntry {
        let i = match self.projects.iter().position(|p| p.root == root) {
            Some(i) => i,
            None => {
                self.projects.push(ProjectEntry {
                    root: root.to_path_buf(),
                    index_path: crate::store::db_path(root),
                    watch: true,
                    added: unix_now(),
                    last_indexed: None,
                    files: 0,
                    symbols: 0,
                    chunks: 0,
                    index_bytes: 0,
                    last_error: None,
                });
                self.projects.sort_by(|a, b| a.root.cmp(&b.root));
                self.projects
                    .iter()
                    .position(|p| p.root == root)
                    .unwrap_or(0)
            }
        };
        &mut self.projects[i]
    }
}

/// What one index run left in the index, as the registry records it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IndexCounts {
    pub files: u64,
    pub symbols: u64,
    pub chunks: u64,
    pub index_bytes: u64,
    pub last_indexed: i64,
}

impl IndexCounts {
    /// Counts from a run's summary; the index size is read from disk.
    pub fn from_summary(root: &Path, s: &IndexSummary) -> IndexCounts {
        IndexCounts {
            files: s.files,
            symbols: s.symbols,
            chunks: s.chunks,
            index_bytes: index_bytes(root),
            last_indexed: unix_now(),
        }
    }
}

/// Bytes of a project's `index.db` plus its WAL.
pub fn index_bytes(root: &Path) -> u64 {
    let db = crate::store::db_path(root);
    let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
    size(&db) + size(&db.with_extension("db-wal"))
}

/// The registry of one `REPO_SEARCH_HOME`.
#[derive(Debug, Clone)]
pub struct Registry {
    home: PathBuf,
}

impl Registry {
    /// The registry under `$REPO_SEARCH_HOME` (default `~/.repo_search`).
    pub fn from_env() -> Registry {
        Registry::at(crate::paths::home_dir())
    }

    pub fn at(home: impl Into<PathBuf>) -> Registry {
        Registry { home: home.into() }
    }

    pub fn path(&self) -> PathBuf {
        self.file().path()
    }

    fn file(&self) -> HomeFile {
        HomeFile {
            home: self.home.clone(),
            file: REGISTRY_FILE,
            lock: LOCK_FILE,
            noun: "registry",
            title: "the project registry",
            advice: " (re-register projects with `repo-search index`)",
        }
    }

    /// Reads the registry without taking the lock (writes are atomic). A
    /// missing file is an empty registry; a corrupt one is set aside.
    pub fn load(&self) -> Result<RegistryData> {
        if !check_home(&self.home, false)? {
            return Ok(RegistryData::default());
        }
        match self.file().read::<RegistryData>()? {
            Parsed::Missing => Ok(RegistryData::default()),
            Parsed::Ok(data) => Ok(data),
            // Set it aside under the lock, after checking again: a writer
            // may have replaced it in between.
            Parsed::Corrupt(_) => self.update(|_| ()).and_then(|()| self.load_after_repair()),
        }
    }

    fn load_after_repair(&self) -> Result<RegistryData> {
        match self.file().read::<RegistryData>()? {
            Parsed::Ok(data) => Ok(data),
            _ => Ok(RegistryData::default()),
        }
    }

    /// Runs `f` on the registry under the lock and writes the result back
    /// atomically if it changed.
    pub fn update<R>(&self, f: impl FnOnce(&mut RegistryData) -> R) -> Result<R> {
        self.file().update(f)
    }

    /// Registers `root` (watch on) if it is not registered yet.
    pub fn register(&self, root: &Path) -> Result<()> {
        self.update(|d| {
            d.upsert(root);
        })
    }

    /// Records a completed run. `insert` adds the project if missing (an
    /// explicit `repo-search index`); the daemon passes `false` so that a
    /// project removed while it was indexing stays removed.
    pub fn record_index(&self, root: &Path, counts: &IndexCounts, insert: bool) -> Result<()> {
        self.update(|d| {
            let entry = if insert {
                Some(d.upsert(root))
            } else {
                d.get_mut(root)
            };
            if let Some(e) = entry {
                e.files = counts.files;
                e.symbols = counts.symbols;
                e.chunks = counts.chunks;
                e.index_bytes = counts.index_bytes;
                e.last_indexed = Some(counts.last_indexed);
                e.last_error = None;
            }
        })
    }

    /// Sets (or clears) a project's last error; a no-op for unknown roots.
    pub fn set_error(&self, root: &Path, error: Option<&str>) -> Result<()> {
        self.update(|d| {
            if let Some(e) = d.get_mut(root) {
                e.last_error = error.map(String::from);
            }
        })
    }

    /// Turns watching on or off; returns false if `root` is not registered.
    pub fn set_watch(&self, root: &Path, watch: bool) -> Result<bool> {
        self.update(|d| match d.get_mut(root) {
            Some(e) => {
                e.watch = watch;
                true
            }
            None => false,
        })
    }

    /// Forgets a project (its index stays on disk); false if unknown.
    pub fn remove(&self, root: &Path) -> Result<bool> {
        self.update(|d| {
            let before = d.projects.len();
            d.projects.retain(|p| p.root != root);
            d.projects.len() != before
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(files: u64) -> IndexCounts {
        IndexCounts {
            files,
            symbols: 2 * files,
            chunks: 3 * files,
            index_bytes: 100,
            last_indexed: 42,
        }
    }

    #[test]
    fn upsert_update_remove_roundtrip() {
        let home = tempfile::tempdir().expect("tempdir");
        let reg = Registry::at(home.path().join("state"));
        assert!(reg.load().expect("load").projects.is_empty());
        reg.record_index(Path::new("/p/b"), &counts(5), true)
            .expect("record");
        reg.register(Path::new("/p/a")).expect("register");
        let d = reg.load().expect("load");
        let roots: Vec<_> = d.projects.iter().map(|p| p.root.clone()).collect();
        assert_eq!(roots, vec![PathBuf::from("/p/a"), PathBuf::from("/p/b")]);
        assert_eq!(
            d.get(Path::new("/p/b")).map(|p| (p.files, p.watch)),
            Some((5, true))
        );

        assert!(reg.set_watch(Path::new("/p/a"), false).expect("unwatch"));
        assert!(!reg.set_watch(Path::new("/p/zzz"), false).expect("unknown"));
        reg.set_error(Path::new("/p/a"), Some("boom"))
            .expect("error");
        // The daemon does not re-add removed projects.
        assert!(reg.remove(Path::new("/p/b")).expect("remove"));
        reg.record_index(Path::new("/p/b"), &counts(6), false)
            .expect("record");
        let d = reg.load().expect("load");
        assert_eq!(d.projects.len(), 1);
        assert!(!d.projects[0].watch);
        assert_eq!(d.projects[0].last_error.as_deref(), Some("boom"));

        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
            assert_eq!(mode(&reg.path()), 0o600);
            assert_eq!(mode(&home.path().join("state")), 0o700);
        }
        // No temp files left behind.
        let names: Vec<String> = std::fs::read_dir(home.path().join("state"))
            .expect("ls")
            .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
            .collect();
        assert!(
            names.iter().all(|n| !n.starts_with(".registry")),
            "{names:?}"
        );
    }

    #[test]
    fn corrupt_registry_is_set_aside_not_lost() {
        let home = tempfile::tempdir().expect("tempdir");
        let reg = Registry::at(home.path());
        std::fs::write(reg.path(), "{ not json").expect("write");
        assert!(reg.load().expect("load").projects.is_empty());
        let aside: Vec<PathBuf> = std::fs::read_dir(home.path())
            .expect("ls")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().contains("registry.json.corrupt-"))
            .collect();
        assert_eq!(aside.len(), 1, "{aside:?}");
        assert_eq!(
            std::fs::read_to_string(&aside[0]).expect("read"),
            "{ not json"
        );
        // The registry works again afterwards.
        reg.register(Path::new("/x")).expect("register");
        assert_eq!(reg.load().expect("load").projects.len(), 1);
    }

    #[test]
    fn concurrent_updates_are_not_lost() {
        let home = tempfile::tempdir().expect("tempdir");
        let reg = Registry::at(home.path());
        std::thread::scope(|s| {
            for t in 0..4 {
                let reg = reg.clone();
                s.spawn(move || {
                    for i in 0..10 {
                        reg.register(&PathBuf::from(format!("/p/{t}/{i}")))
                            .expect("register");
                    }
                });
            }
        });
        assert_eq!(reg.load().expect("load").projects.len(), 40);
    }
}
