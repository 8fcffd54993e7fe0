//! Owns the project files that `repo-search init` writes: the `repo-search`
//! server entry in `.mcp.json` (merged into an existing file, other servers
//! untouched), `.repo_search/` in `.gitignore`, and the commented
//! `.repo_search/config.toml` scaffold. Does not build the index or print
//! anything (that is the CLI's `init` command).
//!
//! **Invariant**: idempotent. A file is written only when its content would
//! change (compared as JSON values for `.mcp.json`, so a hand-formatted file
//! that already says the same thing is left alone), so a second run changes
//! nothing.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::UserError;

/// `templates/mcp.json`: the server entry `init` writes.
pub const MCP_TEMPLATE: &str = include_str!("../templates/mcp.json");
/// `templates/config.toml`: the commented project configuration.
pub const CONFIG_TEMPLATE: &str = include_str!("../templates/config.toml");
/// The name of our server in `.mcp.json`.
pub const SERVER_NAME: &str = "repo-search";
/// The `.gitignore` line `init` adds.
pub const GITIGNORE_LINE: &str = ".repo_search/";

/// What happened to one file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileChange {
    Created,
    Updated,
    Unchanged,
}

#[derive(Debug, Clone, Serialize)]
pub struct FileAction {
    /// Relative to the project root.
    pub path: String,
    pub change: FileChange,
    pub detail: String,
}

/// Writes or merges the project files. `exe` is the absolute path of the
/// `repo-search` binary that `.mcp.json` should start.
pub fn write_project_files(root: &Path, exe: &Path) -> Result<Vec<FileAction>> {
    let exe_str = exe.to_str().ok_or_else(|| {
        UserError::new(format!(
            "the path of the repo-search binary is not UTF-8: `{}`",
            exe.display()
        ))
    })?;
    Ok(vec![
        write_mcp_json(root, exe_str)?,
        write_gitignore(root)?,
        write_config(root)?,
    ])
}

fn read_optional(path: &Path) -> Result<Option<String>> {
    match std::fs::read_to_string(path) {
        Ok(s) => Ok(Some(s)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).with_context(|| format!("cannot read `{}`", path.display())),
    }
}

/// Writes through a temporary file and a rename, so a crash never leaves a
/// half-written file behind.
fn write_atomic(path: &Path, content: &str) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create `{}`", dir.display()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("cannot write in `{}`", dir.display()))?;
    std::io::Write::write_all(&mut tmp, content.as_bytes())
        .with_context(|| format!("cannot write `{}`", path.display()))?;
    if let Ok(md) = std::fs::metadata(path) {
        let _ = std::fs::set_permissions(tmp.path(), md.permissions());
    }
    tmp.persist(path)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot write `{}`", path.display()))?;
    Ok(())
}

/// The template's `repo-search` entry with `command` set to `exe`.
fn server_entry(exe: &str) -> Result<Map<String, Value>> {
    let template: Value =
        serde_json::from_str(MCP_TEMPLATE).context("templates/mcp.json is not valid JSON")?;
    let mut entry = template
        .get("mcpServers")
        .and_then(|s| s.get(SERVER_NAME))
        .and_then(Value::as_object)
        .cloned()
        .context("templates/mcp.json has no `mcpServers.repo-search` entry")?;
    entry.insert("command".into(), Value::String(exe.to_string()));
    Ok(entry)
}

/// Merges our server into `existing` (the text of `.mcp.json`, if any).
/// Returns the new JSON value; keys of other servers and of our own entry
/// that the template does not set (e.g. extra `env` variables) are kept,
/// and so are our entry's `args` while they start with `mcp` (the user's
/// own flags); `command` becomes this binary.
pub fn merge_mcp_json(existing: Option<&str>, exe: &str) -> Result<Value> {
    let mut root = match existing.map(str::trim) {
        None | Some("") => Value::Object(Map::new()),
        Some(text) => serde_json::from_str::<Value>(text).map_err(|e| {
            UserError::new(format!("`.mcp.json` is not valid JSON: {e}"))
                .hint("fix or remove `.mcp.json`, then run `repo-search init` again")
        })?,
    };
    let Some(obj) = root.as_object_mut() else {
        return Err(UserError::new("`.mcp.json` does not hold a JSON object")
            .hint("it should look like {\"mcpServers\": {...}}; fix or remove it, then run `repo-search init` again")
            .into());
    };
    let servers = obj
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(servers) = servers.as_object_mut() else {
        return Err(
            UserError::new("`mcpServers` in `.mcp.json` is not an object")
                .hint("fix it by hand, then run `repo-search init` again")
                .into(),
        );
    };
    let wanted = server_entry(exe)?;
    let entry = match servers.get(SERVER_NAME).and_then(Value::as_object) {
        Some(old) => {
            let mut merged = old.clone();
            for (k, v) in wanted {
                match (merged.get_mut(&k), v) {
                    // Keep the user's own environment variables.
                    (Some(Value::Object(old_env)), Value::Object(new_env)) if k == "env" => {
                        for (ek, ev) in new_env {
                            old_env.entry(ek).or_insert(ev);
                        }
                    }
                    // Keep the user's own flags (`["mcp", "-v"]`, `["mcp",
                    // "--root", "sub"]`) while they still start our server.
                    (Some(Value::Array(old_args)), _)
                        if k == "args"
                            && old_args.first().and_then(Value::as_str) == Some("mcp") => {}
                    (_, v) => {
                        merged.insert(k, v);
                    }
                }
            }
            merged
        }
        None => wanted,
    };
    servers.insert(SERVER_NAME.into(), Value::Object(entry));
    Ok(root)
}

/// The template's text with our command in it.
fn template_with_command(exe: &str) -> Option<String> {
    let needle = "\"command\": \"repo-search\"";
    MCP_TEMPLATE.contains(needle).then(|| {
        let quoted = serde_json::to_string(exe).unwrap_or_default();
        MCP_TEMPLATE.replacen(needle, &format!("\"command\": {quoted}"), 1)
    })
}

fn write_mcp_json(root: &Path, exe: &str) -> Result<FileAction> {
    let path = root.join(".mcp.json");
    let existing = read_optional(&path)?;
    let merged = merge_mcp_json(existing.as_deref(), exe)?;
    let old_value = existing
        .as_deref()
        .and_then(|t| serde_json::from_str::<Value>(t).ok());
    let detail = format!("MCP server `{SERVER_NAME}` runs `{exe} mcp`");
    let change = if old_value.as_ref() == Some(&merged) {
        FileChange::Unchanged
    } else {
        let text = match &existing {
            // A new file reads like the template (key order included).
            None => template_with_command(exe)
                .filter(|t| serde_json::from_str::<Value>(t).ok().as_ref() == Some(&merged)),
            Some(_) => None,
        };
        let text = match text {
            Some(t) => t,
            None => serde_json::to_string_pretty(&merged)? + "\n",
        };
        write_atomic(&path, &text)?;
        if existing.is_some() {
            FileChange::Updated
        } else {
            FileChange::Created
        }
    };
    Ok(FileAction {
        path: ".mcp.json".into(),
        change,
        detail,
    })
}

/// Whether a `.gitignore` line already ignores `.repo_search/` at the root.
fn ignores_index_dir(line: &str) -> bool {
    matches!(
        line.trim(),
        ".repo_search"
            | ".repo_search/"
            | "/.repo_search"
            | "/.repo_search/"
            | ".repo_search/*"
            | "/.repo_search/*"
    )
}

/// The new `.gitignore` text, or `None` when it already ignores the index.
pub fn merge_gitignore(existing: Option<&str>) -> Option<String> {
    match existing {
        Some(text) if text.lines().any(ignores_index_dir) => None,
        Some("") => Some(format!("{GITIGNORE_LINE}\n")),
        Some(text) => {
            let sep = if text.ends_with('\n') { "" } else { "\n" };
            Some(format!("{text}{sep}{GITIGNORE_LINE}\n"))
        }
        None => Some(format!("{GITIGNORE_LINE}\n")),
    }
}

fn write_gitignore(root: &Path) -> Result<FileAction> {
    let path = root.join(".gitignore");
    let existing = read_optional(&path)?;
    let (change, detail) = match merge_gitignore(existing.as_deref()) {
        None => (
            FileChange::Unchanged,
            format!("already ignores `{GITIGNORE_LINE}`"),
        ),
        Some(text) => {
            write_atomic(&path, &text)?;
            let change = if existing.is_some() {
                FileChange::Updated
            } else {
                FileChange::Created
            };
            (change, format!("ignores `{GITIGNORE_LINE}` (the index)"))
        }
    };
    Ok(FileAction {
        path: ".gitignore".into(),
        change,
        detail,
    })
}

fn write_config(root: &Path) -> Result<FileAction> {
    let rel = format!("{}/config.toml", crate::store::INDEX_DIR);
    let path: PathBuf = crate::store::config_path(root);
    // Created 0700 (never through a symlink) before anything is written in it.
    crate::store::index_dir_checked(root, crate::store::DirUse::Create)?;
    if path.exists() {
        return Ok(FileAction {
            path: rel,
            change: FileChange::Unchanged,
            detail: "kept as it is".into(),
        });
    }
    write_atomic(&path, CONFIG_TEMPLATE)?;
    Ok(FileAction {
        path: rel,
        change: FileChange::Created,
        detail: "project settings, all at their defaults".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merge_keeps_other_servers_and_user_env() {
        let existing = r#"{"mcpServers": {"other": {"command": "x"}, "repo-search": {"command": "old", "env": {"A": "1"}}}, "extra": true}"#;
        let v = merge_mcp_json(Some(existing), "/bin/rs").expect("merge");
        assert_eq!(v["mcpServers"]["other"], json!({"command": "x"}));
        assert_eq!(v["mcpServers"]["repo-search"]["command"], "/bin/rs");
        assert_eq!(v["mcpServers"]["repo-search"]["args"], json!(["mcp"]));
        assert_eq!(v["mcpServers"]["repo-search"]["type"], "stdio");
        assert_eq!(v["mcpServers"]["repo-search"]["env"], json!({"A": "1"}));
        assert_eq!(v["extra"], true);
        let again = merge_mcp_json(Some(&v.to_string()), "/bin/rs").expect("merge again");
        assert_eq!(again, v);
    }

    #[test]
    fn merge_keeps_the_users_flags_for_our_server() {
        let with = |args: &str| {
            let existing = format!(
                r#"{{"mcpServers": {{"repo-search": {{"command": "old", "args": {args}}}}}}}"#
            );
            merge_mcp_json(Some(&existing), "/bin/rs").expect("merge")["mcpServers"]["repo-search"]
                ["args"]
                .clone()
        };
        assert_eq!(with(r#"["mcp", "-v"]"#), json!(["mcp", "-v"]));
        assert_eq!(
            with(r#"["mcp", "--root", "sub"]"#),
            json!(["mcp", "--root", "sub"])
        );
        // Not our server's arguments: made ours again.
        assert_eq!(with(r#"["serve"]"#), json!(["mcp"]));
        assert_eq!(with(r#"[]"#), json!(["mcp"]));
        assert_eq!(with(r#""mcp""#), json!(["mcp"]));
    }

    #[test]
    fn merge_refuses_broken_json() {
        let err = merge_mcp_json(Some("{not json"), "/bin/rs").expect_err("broken");
        assert!(crate::error::find_user_error(&err).is_some_and(|u| u.hint.is_some()));
        assert!(merge_mcp_json(Some("[]"), "/bin/rs").is_err());
    }

    #[test]
    fn gitignore_is_appended_once() {
        assert_eq!(merge_gitignore(None).as_deref(), Some(".repo_search/\n"));
        assert_eq!(
            merge_gitignore(Some("target")).as_deref(),
            Some("target\n.repo_search/\n")
        );
        assert_eq!(merge_gitignore(Some("a\n/.repo_search\n")), None);
        let once = merge_gitignore(Some("a\n")).expect("added");
        assert_eq!(merge_gitignore(Some(&once)), None);
    }
}
