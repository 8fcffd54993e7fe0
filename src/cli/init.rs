//! `repo-search init`: sets a project up for Claude Code. Writes the files
//! (through [`crate::init`]), builds the index with a progress bar, and says
//! what it did and what to do next.

use std::io::Write;

use anyhow::{Context, Result};

use super::Found;
use super::args::InitArgs;
use super::project::{run_index, service};
use crate::index::IndexOptions;
use crate::init::{FileChange, write_project_files};
use crate::settings::{Overrides, find_root};

const NEXT_STEP: &str = "open Claude Code in this directory (`claude`) and approve the `repo-search` MCP server when asked; \
`/mcp` inside Claude Code shows whether it is connected";

#[allow(clippy::disallowed_methods)] // prints what it wrote (the init report)
pub fn cmd_init(a: InitArgs) -> Result<Found> {
    let root = find_root(a.common.root.as_deref())?;
    let exe = std::env::current_exe()
        .context("cannot find the path of the running repo-search binary")?;
    let exe = exe.canonicalize().unwrap_or(exe);
    let files = write_project_files(&root, &exe)?;
    // Open after writing: the config file may be new.
    let common = super::args::Common {
        root: Some(root.clone()),
        ..a.common.clone()
    };
    let svc = service(&common, &Overrides::default(), a.common.json)?;
    let index = if a.no_index {
        // Registered all the same, so the daemon (if it runs) watches it.
        let home = crate::daemon_client::DaemonHome::from_env();
        if let Err(e) = crate::registry::Registry::at(home.dir()).register(&root) {
            tracing::warn!("could not record the project in the registry: {e:#}");
        }
        None
    } else {
        let (summary, by_daemon) = run_index(&svc, &IndexOptions::default(), a.common.json)?;
        // Vectors too, as `repo-search index` does (missing models fetched
        // unless offline: the MCP server never downloads; fast tier; the
        // full tier when it is quick, else in the background).
        super::embed::fetch_missing_models(&svc, "auto", false, a.common.json)?;
        if super::project::embed_here(by_daemon, &summary, a.common.json) {
            super::embed::run_embed_phase(&svc, "auto", a.common.json)?;
        }
        Some(summary)
    };

    if a.common.json {
        super::render::json(&serde_json::json!({
            "root": root,
            "files": files,
            "index": index,
            "next_step": NEXT_STEP,
        }))?;
        return Ok(Found::Yes);
    }
    let mut out = std::io::stdout().lock();
    let mut lines = vec![format!("repo-search init in `{}`", root.display())];
    for f in &files {
        let verb = match f.change {
            FileChange::Created => "created  ",
            FileChange::Updated => "updated  ",
            FileChange::Unchanged => "unchanged",
        };
        lines.push(format!("  {verb} {}: {}", f.path, f.detail));
    }
    match &index {
        Some(s) => lines.push(format!("  {}", super::render::summary_line(s))),
        None => lines.push("  index not built (--no-index): the MCP server builds it in the background when it starts".into()),
    }
    lines.push(format!("next: {NEXT_STEP}"));
    for l in lines {
        if let Err(e) = writeln!(out, "{l}") {
            if e.kind() == std::io::ErrorKind::BrokenPipe {
                break;
            }
            return Err(e.into());
        }
    }
    Ok(Found::Yes)
}
