//! `repo-search projects [list | remove | watch | unwatch PATH]`: shows and
//! edits the registry of projects (`REPO_SEARCH_HOME/registry.json`) and
//! tells a running daemon at once when a watch flag changes (it would also
//! notice within a second by itself).

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::Found;
use super::args::{ProjectsAction, ProjectsArgs};
use super::render::{self, ProjectRow};
use crate::daemon_client::{self, DaemonHome};
use crate::error::UserError;
use crate::registry::Registry;

pub fn cmd_projects(a: ProjectsArgs) -> Result<Found> {
    let home = DaemonHome::from_env();
    let registry = Registry::at(home.dir());
    let json = a.common.json;
    if a.prune {
        let gone = registry.update(|d| {
            let gone: Vec<PathBuf> = d
                .projects
                .iter()
                .filter(|p| !p.root.is_dir())
                .map(|p| p.root.clone())
                .collect();
            d.projects.retain(|p| p.root.is_dir());
            gone
        })?;
        for root in &gone {
            tell_daemon(&home, root, false);
            eprintln!("forgot `{}`: its root no longer exists", root.display());
        }
    }
    match a.action.unwrap_or(ProjectsAction::List) {
        ProjectsAction::List => list(&home, &registry, json),
        ProjectsAction::Remove { path } => {
            let root = registered_root(&registry, &path)?;
            registry.remove(&root)?;
            let daemon = tell_daemon(&home, &root, false);
            report(
                json,
                &root,
                "removed",
                daemon,
                "its index stays in `.repo_search/`; delete that directory to free the space",
            )
        }
        ProjectsAction::Watch { path } => {
            let root = match registered_root(&registry, &path) {
                Ok(root) => root,
                Err(_) => crate::settings::find_root(Some(&path))?,
            };
            registry.update(|d| d.upsert(&root).watch = true)?;
            let daemon = tell_daemon(&home, &root, true);
            let note = if daemon {
                "the daemon indexes it now"
            } else {
                "start the daemon to keep it fresh: `repo-search-daemon start`"
            };
            report(json, &root, "watching", daemon, note)
        }
        ProjectsAction::Unwatch { path } => {
            let root = registered_root(&registry, &path)?;
            registry.set_watch(&root, false)?;
            let daemon = tell_daemon(&home, &root, false);
            report(
                json,
                &root,
                "not watching",
                daemon,
                "`repo-search index` updates it by hand",
            )
        }
    }
}

fn list(home: &DaemonHome, registry: &Registry, json: bool) -> Result<Found> {
    let data = registry.load()?;
    let status = daemon_client::status(home).ok().flatten();
    let rows: Vec<ProjectRow> = data
        .projects
        .into_iter()
        .map(|mut entry| {
            let state = status
                .as_ref()
                .and_then(|s| s.projects.iter().find(|p| p.root == entry.root))
                .map(|p| p.state.clone());
            let root_exists = entry.root.is_dir();
            // The figures as the index holds them now, whoever wrote it last.
            let vectors = if root_exists {
                current(&mut entry)
            } else {
                Vec::new()
            };
            ProjectRow {
                root_exists,
                state,
                vectors,
                entry,
            }
        })
        .collect();
    if json {
        render::json(&serde_json::json!({"daemon_running": status.is_some(), "projects": rows}))?;
    } else {
        render::projects(&rows, status.is_some())?;
    }
    Ok(if rows.is_empty() {
        Found::No
    } else {
        Found::Yes
    })
}

/// Refreshes `entry`'s counts from its index (when there is one) and
/// returns its vectors per configured model.
fn current(entry: &mut crate::registry::ProjectEntry) -> Vec<render::VectorsRow> {
    let Ok(settings) = crate::settings::Settings::resolve(
        entry.root.clone(),
        &crate::settings::Overrides::default(),
    ) else {
        return Vec::new();
    };
    let Ok(st) = crate::status::index_status(&settings, crate::status::StatusDepth::default())
    else {
        return Vec::new();
    };
    if !st.exists {
        return Vec::new();
    }
    entry.files = st.files;
    entry.symbols = st.symbols;
    entry.chunks = st.chunks;
    entry.index_bytes = st.index_bytes;
    if st.last_indexed.is_some() {
        entry.last_indexed = st.last_indexed;
    }
    st.embeddings
        .iter()
        .map(|e| render::VectorsRow {
            model: e.model.clone(),
            embedded: e.embedded,
            total: e.total,
        })
        .collect()
}

/// Tells a running daemon about a watch change; true if one runs.
pub(crate) fn tell_daemon(home: &DaemonHome, root: &Path, watch: bool) -> bool {
    match daemon_client::notify_watch(home, root, watch) {
        Ok(Some(_)) => true,
        Ok(None) => false,
        Err(e) => {
            tracing::warn!(
                "repo-search-daemon did not take the change ({e:#}); it re-reads the registry within a second"
            );
            true
        }
    }
}

fn report(json: bool, root: &Path, what: &str, daemon_running: bool, note: &str) -> Result<Found> {
    if json {
        render::json(
            &serde_json::json!({"root": root, "result": what, "daemon_running": daemon_running}),
        )?;
    } else {
        eprintln!("{what} `{}`: {note}", root.display());
    }
    Ok(Found::Yes)
}

/// The registered root that `path` names: the project itself, or the
/// innermost registered project containing it. Works for roots that no
/// longer exist.
fn registered_root(registry: &Registry, path: &Path) -> Result<PathBuf> {
    let abs = match path.canonicalize() {
        Ok(p) => p,
        Err(_) => {
            let cwd = std::env::current_dir().unwrap_or_default();
            crate::paths::normalize_lexically(&cwd.join(path))
        }
    };
    let data = registry.load()?;
    data.projects
        .iter()
        .map(|p| &p.root)
        .filter(|r| abs.starts_with(r))
        .max_by_key(|r| r.as_os_str().len())
        .cloned()
        .ok_or_else(|| {
            UserError::new(format!("`{}` is not a registered project", path.display()))
                .hint("`repo-search projects` lists them; `repo-search index` in a project registers it")
                .into()
        })
}
