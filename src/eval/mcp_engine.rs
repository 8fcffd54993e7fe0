//! Owns the eval engine that sends every case through a real
//! `repo-search mcp` process over stdio (rmcp's client, child-process
//! transport), one server per corpus root, and reads the answers from the
//! tools' `structuredContent` — exactly what an agent sees.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Map, Value, json};

use crate::eval::cases::{Case, Tool};
use crate::eval::run::{Answer, Engine, Hit};

pub struct McpEngine {
    rt: tokio::runtime::Runtime,
    bin: PathBuf,
    clients: HashMap<PathBuf, RunningService<RoleClient, ()>>,
    /// `search`'s `recency` for cases without their own.
    pub recency: String,
}

impl McpEngine {
    /// Uses the `repo-search` binary next to the running executable.
    pub fn new() -> Result<McpEngine> {
        let exe = std::env::current_exe().context("cannot find the running executable")?;
        let bin = exe.with_file_name(format!("repo-search{}", std::env::consts::EXE_SUFFIX));
        if !bin.exists() {
            bail!(
                "`{}` not found: build it with `cargo build --release`",
                bin.display()
            );
        }
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        Ok(McpEngine {
            rt,
            bin,
            clients: HashMap::new(),
            recency: "auto".into(),
        })
    }

    /// A server for `root`, the one running: the runner asks corpus by
    /// corpus, and a server kept for each of ~400 corpora ran the machine
    /// out of memory (the kernel killed the run).
    fn connect(&mut self, root: &Path) -> Result<()> {
        if !self.clients.contains_key(root) {
            let others: Vec<_> = self.clients.drain().map(|(_, c)| c).collect();
            self.rt.block_on(async {
                for c in others {
                    let _ = c.cancel().await;
                }
            });
            let mut cmd = tokio::process::Command::new(&self.bin);
            cmd.arg("mcp").arg("--root").arg(root).current_dir(root);
            let client = self.rt.block_on(async {
                let (transport, _) = TokioChildProcess::builder(cmd)
                    .stderr(std::process::Stdio::null())
                    .spawn()?;
                ().serve(transport)
                    .await
                    .map_err(|e| anyhow!("cannot connect to repo-search mcp: {e}"))
            })?;
            self.clients.insert(root.to_path_buf(), client);
        }
        Ok(())
    }

    /// Calls a tool; returns its structured content and the characters of
    /// that JSON and of the text content.
    fn call(&mut self, root: &Path, tool: &str, args: Value) -> Result<(Value, Size)> {
        self.connect(root)?;
        let client = self
            .clients
            .get(root)
            .ok_or_else(|| anyhow!("client vanished"))?;
        let mut params = CallToolRequestParams::new(tool.to_string());
        if let Value::Object(o) = args {
            params = params.with_arguments(o);
        }
        let result = self
            .rt
            .block_on(client.call_tool(params))
            .map_err(|e| anyhow!("{tool}: {e}"))?;
        let text: usize = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.len()))
            .sum();
        // An error result may carry its message as text only (a server
        // that cannot open the index says why there).
        if result.is_error == Some(true) && result.structured_content.is_none() {
            let message: Vec<&str> = result
                .content
                .iter()
                .filter_map(|c| c.as_text().map(|t| t.text.as_str()))
                .collect();
            // A name no definition has is an empty answer, as the library
            // gives it.
            if message.iter().any(|m| m.contains("code: NOT_FOUND")) {
                return Ok((Value::Object(Map::new()), Size { json: 0, text }));
            }
            bail!("{tool}: {}", message.join(" "));
        }
        let content = result
            .structured_content
            .ok_or_else(|| anyhow!("{tool}: no structuredContent"))?;
        let chars = serde_json::to_string(&content)
            .map(|s| s.len())
            .unwrap_or(0);
        if result.is_error == Some(true) {
            bail!("{tool}: {content}");
        }
        Ok((content, Size { json: chars, text }))
    }
}

/// The characters of a tool result: `structuredContent` as JSON, and its text content.
#[derive(Debug, Clone, Copy)]
struct Size {
    json: usize,
    text: usize,
}

fn args_of(case: &Case) -> Map<String, Value> {
    case.args.clone()
}

fn hits_from(
    v: &Value,
    list: &str,
    line_key: &str,
    end_key: &str,
    name_key: Option<&str>,
) -> Vec<Hit> {
    v[list]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|h| {
                    // Compact search hits say where as `at`: `path:start-end`.
                    let (path, start, end) = match h["at"].as_str() {
                        Some(at) => parse_at(at)?,
                        None => {
                            let start = h[line_key].as_u64()? as u32;
                            let end = h[end_key].as_u64().unwrap_or(start as u64) as u32;
                            (h["path"].as_str()?.to_string(), start, end)
                        }
                    };
                    let mut name = name_key.and_then(|k| h[k].as_str()).map(String::from);
                    if h.get("at").is_some() {
                        // Compact hits give `kind name` as `symbol`.
                        name = name.map(|s| symbol_name(&s).to_string());
                    }
                    // Further places in the same file: `start-end name`.
                    let also = h["also"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|a| {
                            let a = a.as_str()?;
                            let (span, name) = match a.split_once(' ') {
                                Some((span, name)) => (span, Some(name.to_string())),
                                None => (a, None),
                            };
                            let (s, e) = span.split_once('-')?;
                            Some(Hit {
                                path: path.clone(),
                                start_line: s.parse().ok()?,
                                end_line: e.parse().ok()?,
                                name,
                                also: Vec::new(),
                            })
                        })
                        .collect();
                    Some(Hit {
                        path,
                        start_line: start,
                        end_line: end,
                        name,
                        also,
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The name of a compact hit's `symbol` (`kind name`, or the name alone).
fn symbol_name(symbol: &str) -> &str {
    match symbol.split_once(' ') {
        Some((kind, name)) if kind.chars().all(|c| c.is_ascii_lowercase()) => name,
        _ => symbol,
    }
}

/// `path:start-end` as its parts.
fn parse_at(at: &str) -> Option<(String, u32, u32)> {
    let (path, span) = at.rsplit_once(':')?;
    let (s, e) = span.split_once('-')?;
    Some((path.to_string(), s.parse().ok()?, e.parse().ok()?))
}

impl Engine for McpEngine {
    fn answer(&mut self, root: &Path, case: &Case, mode: &str, limit: usize) -> Result<Answer> {
        let mut args = args_of(case);
        match case.tool {
            Tool::SearchKeyword => {
                args.insert("pattern".into(), json!(case.query));
                args.insert("max_results".into(), json!(500));
                let (v, size) = self.call(root, "search_keyword", Value::Object(args))?;
                let hits = hits_from(&v, "matches", "line", "line", None);
                let matches = hits
                    .iter()
                    .map(|h| format!("{}:{}", h.path, h.start_line))
                    .collect();
                Ok(Answer {
                    hits,
                    matches: Some(matches),
                    chars: size.json,
                    text_chars: Some(size.text),
                })
            }
            Tool::FindSymbol => {
                args.insert("name".into(), json!(case.query));
                args.insert("limit".into(), json!(limit));
                if let Some(k) = args.remove("kind") {
                    // Cases may give a list of kinds; the tool takes one.
                    let first = match k {
                        Value::Array(a) => a.into_iter().next().unwrap_or(Value::Null),
                        other => other,
                    };
                    if !first.is_null() {
                        args.insert("kind".into(), first);
                    }
                }
                let (v, size) = self.call(root, "find_symbol", Value::Object(args))?;
                Ok(Answer {
                    hits: hits_from(&v, "symbols", "start_line", "end_line", Some("name")),
                    matches: None,
                    chars: size.json,
                    text_chars: Some(size.text),
                })
            }
            Tool::FindReferences => {
                args.insert("name".into(), json!(case.query));
                args.insert("limit".into(), json!(limit));
                let (v, size) = self.call(root, "find_references", Value::Object(args))?;
                Ok(Answer {
                    hits: hits_from(&v, "hits", "line", "line", None),
                    matches: None,
                    chars: size.json,
                    text_chars: Some(size.text),
                })
            }
            Tool::ListDefsInFile => {
                args.insert("path".into(), json!(case.query));
                let (v, size) = self.call(root, "list_defs_in_file", Value::Object(args))?;
                let path = v["path"].as_str().unwrap_or(&case.query).to_string();
                let hits = v["definitions"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|d| {
                                Some(Hit {
                                    path: path.clone(),
                                    start_line: d["start_line"].as_u64()? as u32,
                                    end_line: d["end_line"].as_u64()? as u32,
                                    name: d["name"].as_str().map(String::from),
                                    also: Vec::new(),
                                })
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                Ok(Answer {
                    hits,
                    matches: None,
                    chars: size.json,
                    text_chars: Some(size.text),
                })
            }
            Tool::Search => {
                args.insert("query".into(), json!(case.query));
                args.insert("mode".into(), json!(mode));
                args.insert("limit".into(), json!(limit));
                if !args.contains_key("recency") {
                    args.insert("recency".into(), json!(self.recency));
                }
                let (v, size) = self.call(root, "search", Value::Object(args))?;
                Ok(Answer {
                    hits: hits_from(&v, "hits", "start_line", "end_line", Some("symbol")),
                    matches: None,
                    chars: size.json,
                    text_chars: Some(size.text),
                })
            }
        }
    }
}

impl Drop for McpEngine {
    fn drop(&mut self) {
        let clients: Vec<_> = self.clients.drain().map(|(_, c)| c).collect();
        self.rt.block_on(async {
            for c in clients {
                let _ = c.cancel().await;
            }
        });
    }
}
