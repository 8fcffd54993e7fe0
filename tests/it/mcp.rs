//! `repo-search mcp` through real clients, against the real binary: rmcp's
//! client over the child-process transport in both protocol eras
//! (`initialize`, and the stateless 2026-07-28 `server/discover` + `_meta`),
//! raw JSON-RPC lines over stdio, and the official Python SDK when
//! `scripts/setup-test-deps.sh` has installed it. Also `repo-search init`.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::Duration;

use rmcp::model::{CallToolRequestParams, CallToolResult, ProtocolVersion, Tool};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientLifecycleMode, ClientServiceExt, RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};

use crate::common::*;

const CONFIG_RS: &str = r#"//! Configuration.

/// Parsed configuration.
pub struct Config {
    pub name: String,
}

impl Config {
    /// Parses the config text.
    pub fn parse_config(text: &str) -> Config {
        Config { name: text.trim().to_string() }
    }
}
"#;

const MAIN_RS: &str = r#"mod config;

fn main() {
    let c = config::Config::parse_config("x");
    println!("{}", c.name);
}
"#;

const VIEWS_PY: &str = r#"import os


class LoginView:
    """Handles the login form."""

    def post(self, request):
        token = request.csrf_token
        return validate_csrf_token(token)


def validate_csrf_token(token):
    """Check that the CSRF token is valid."""
    return token == os.environ.get("SECRET")
"#;

pub(crate) fn sample() -> Project {
    let p = Project::new();
    p.write("src/config.rs", CONFIG_RS)
        .write("src/main.rs", MAIN_RS)
        .write("app/views.py", VIEWS_PY)
        .write("README.md", "# Demo\n\nHow to validate the CSRF token.\n");
    p
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum Era {
    /// `initialize` handshake (2025-11-25 and earlier).
    Legacy,
    /// Stateless 2026-07-28: `server/discover`, `_meta` on every request.
    Modern,
}

/// A running `repo-search mcp` and an rmcp client connected to it.
pub(crate) struct Mcp {
    rt: tokio::runtime::Runtime,
    client: Option<RunningService<RoleClient, ()>>,
}

impl Mcp {
    pub(crate) fn start(p: &Project, era: Era) -> Mcp {
        Mcp::start_with_env(p, era, &[])
    }

    /// Starts the server with extra environment variables.
    pub(crate) fn start_with_env(p: &Project, era: Era, env: &[(&str, &std::path::Path)]) -> Mcp {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        let mut cmd = tokio::process::Command::new(BIN);
        cmd.arg("mcp")
            .arg("--root")
            .arg(p.root())
            .current_dir(p.root())
            .env("REPO_SEARCH_HOME", p.home.path())
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("REPO_SEARCH_LOG")
            .env_remove("REPO_SEARCH_MODEL_CACHE")
            .env_remove("REPO_SEARCH_NO_REDACT")
            .envs(env.iter().copied());
        let log = std::fs::File::create(p.home.path().join("mcp-stderr.log")).expect("stderr log");
        let client = rt.block_on(async {
            let (transport, _) = TokioChildProcess::builder(cmd)
                .stderr(log)
                .spawn()
                .expect("spawn repo-search mcp");
            match era {
                Era::Legacy => ().serve(transport).await,
                Era::Modern => {
                    ().serve_with_lifecycle(
                        transport,
                        ClientLifecycleMode::Discover {
                            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
                        },
                    )
                    .await
                }
            }
            .expect("connect to repo-search mcp")
        });
        Mcp {
            rt,
            client: Some(client),
        }
    }

    fn client(&self) -> &RunningService<RoleClient, ()> {
        self.client.as_ref().expect("client is running")
    }

    fn tools(&self) -> Vec<Tool> {
        self.rt
            .block_on(self.client().list_all_tools())
            .expect("tools/list")
    }

    pub(crate) fn call(&self, name: &str, args: Value) -> Result<CallToolResult, ServiceError> {
        let mut params = CallToolRequestParams::new(name.to_string());
        if let Value::Object(o) = args {
            params = params.with_arguments(o);
        }
        self.rt.block_on(self.client().call_tool(params))
    }

    /// Calls a lookup by name (`find_symbol`, `find_references`): its
    /// structured content, or for a name nothing has (`NOT_FOUND`)
    /// `{total: 0, error, hint}`.
    pub(crate) fn lookup(&self, name: &str, args: Value) -> Value {
        let r = self
            .call(name, args.clone())
            .unwrap_or_else(|e| panic!("{name} {args}: {e}"));
        if r.is_error == Some(true) {
            let text = error_text(&r);
            assert!(
                text.contains("code: NOT_FOUND"),
                "{name} {args} failed: {text}"
            );
            let (error, hint) = split_error(&text);
            return serde_json::json!({"total": 0, "error": error, "hint": hint});
        }
        self.ok(name, args)
    }

    /// Calls a tool that must succeed; returns its structured content.
    pub(crate) fn ok(&self, name: &str, args: Value) -> Value {
        let r = self
            .call(name, args.clone())
            .unwrap_or_else(|e| panic!("{name} {args}: {e}"));
        assert_ne!(
            r.is_error,
            Some(true),
            "{name} {args} failed: {}",
            error_text(&r)
        );
        assert!(!r.content.is_empty(), "{name}: no text content");
        r.structured_content
            .unwrap_or_else(|| panic!("{name}: no structuredContent"))
    }

    /// Calls a tool that must fail as a tool result; returns (error, hint),
    /// read from its text: `error: ...` and `hint: ...` lines.
    pub(crate) fn tool_error(&self, name: &str, args: Value) -> (String, String) {
        let r = self
            .call(name, args.clone())
            .unwrap_or_else(|e| panic!("{name} {args}: JSON-RPC error {e}"));
        assert_eq!(
            r.is_error,
            Some(true),
            "{name} {args} should fail: {:?}",
            r.structured_content
        );
        assert!(
            r.structured_content.is_none(),
            "{name}: an error result must not carry structuredContent"
        );
        let text = error_text(&r);
        let (error, hint) = split_error(&text);
        assert!(
            !error.is_empty() && !hint.is_empty(),
            "{name} {args}: error without message or hint: {text:?}"
        );
        (error, hint)
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        if let Some(c) = self.client.take() {
            let _ = self
                .rt
                .block_on(async { tokio::time::timeout(Duration::from_secs(5), c.cancel()).await });
        }
    }
}

/// The text of a tool result.
pub(crate) fn error_text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Splits `error: X\nhint: Y` into (X, Y).
fn split_error(text: &str) -> (String, String) {
    let field = |prefix: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_default()
            .to_string()
    };
    (field("error: "), field("hint: "))
}

fn paths_lines(v: &Value, list: &str) -> Vec<(String, u64)> {
    v[list]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|h| {
                    (
                        h["path"].as_str().unwrap_or("").to_string(),
                        // Compact definitions give their span, matches their line.
                        h["line"].as_u64().or(h["start_line"].as_u64()).unwrap_or(0),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Waits until the server's index holds `files` files and no run is going on.
pub(crate) fn wait_indexed(m: &Mcp, files: u64) -> Value {
    poll_until(Duration::from_secs(60), || {
        let s = m.ok("index_status", json!({}));
        (s["exists"] == true && s["files"] == files && s["indexing"] == false).then_some(s)
    })
    .unwrap_or_else(|| {
        panic!(
            "index never reached {files} files: {}",
            m.ok("index_status", json!({}))
        )
    })
}

#[test]
fn mcp_lists_tools_with_plain_schemas_in_both_eras() {
    let p = sample();
    for era in [Era::Legacy, Era::Modern] {
        let m = Mcp::start(&p, era);
        let tools = m.tools();
        let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        names.sort();
        assert_eq!(
            names,
            [
                "blame",
                "callees",
                "callers",
                "config",
                "context",
                "file_history",
                "find_references",
                "find_symbol",
                "imports",
                "index",
                "index_status",
                "list_defs_in_file",
                "read_file",
                "search",
                "search_keyword",
                "search_semantic",
                "similar_code",
                "stats"
            ],
            "{era:?}"
        );
        for t in &tools {
            let ann = t
                .annotations
                .as_ref()
                .unwrap_or_else(|| panic!("{}: no annotations", t.name));
            // `index` writes the index; every other tool only reads.
            assert_eq!(ann.read_only_hint, Some(t.name != "index"), "{}", t.name);
            assert!(
                t.description.as_deref().is_some_and(|d| d.len() > 80),
                "{}: description too thin",
                t.name
            );
            let out = t
                .output_schema
                .as_ref()
                .unwrap_or_else(|| panic!("{}: no outputSchema", t.name));
            assert_eq!(out.get("type"), Some(&json!("object")), "{}", t.name);
            let text = serde_json::to_string(t).expect("tool json");
            for banned in ["\"format\"", "uint", "int32", "\"null\"", "$ref"] {
                assert!(!text.contains(banned), "{} has {banned}: {text}", t.name);
            }
            assert_eq!(
                t.input_schema.get("additionalProperties"),
                Some(&json!(false)),
                "{}",
                t.name
            );
        }
        let fs = tools
            .iter()
            .find(|t| t.name == "find_symbol")
            .expect("find_symbol");
        assert_eq!(
            fs.input_schema["properties"]["limit"],
            json!({"type": "integer", "minimum": 1, "maximum": 200, "default": 20, "description": "Most definitions returned."})
        );
        assert_eq!(fs.input_schema["required"], json!(["name"]));
        let kw = tools
            .iter()
            .find(|t| t.name == "search_keyword")
            .expect("search_keyword");
        assert_eq!(kw.input_schema["properties"]["max_results"]["maximum"], 500);
        assert_eq!(kw.input_schema["properties"]["glob"]["type"], "array");
        assert_eq!(kw.input_schema["properties"]["patterns"]["maxItems"], 10);
        for name in [
            "before_context",
            "after_context",
            "max_count",
            "hidden",
            "no_ignore",
            "smart_case",
        ] {
            assert!(
                kw.input_schema["properties"].get(name).is_some(),
                "search_keyword lacks {name}"
            );
        }
        assert!(
            kw.input_schema.get("required").is_none(),
            "pattern or patterns"
        );
        let input = |name: &str| {
            tools
                .iter()
                .find(|t| t.name == name)
                .map(|t| Value::Object(t.input_schema.as_ref().clone()))
                .unwrap_or_else(|| panic!("{name} is not listed"))
        };
        let search = input("search");
        assert_eq!(search["properties"]["queries"]["maxItems"], 10, "{search}");
        assert_eq!(search["properties"]["queries"]["minItems"], 1, "{search}");
        assert_eq!(search["properties"]["context"]["maximum"], 10, "{search}");
        assert!(
            search.get("required").is_none(),
            "query or queries: {search}"
        );
        let sem = input("search_semantic");
        assert_eq!(
            sem["properties"]["limit"],
            json!({"type": "integer", "minimum": 1, "maximum": 50, "default": 10, "description": "Most chunks returned."})
        );
        assert_eq!(sem["properties"]["threshold"]["type"], "number", "{sem}");
        assert_eq!(sem["properties"]["threshold"]["maximum"], 1.0, "{sem}");
        assert_eq!(sem["required"], json!(["query"]));
        let similar = input("similar_code");
        for name in ["code", "path", "line", "exclude_path", "limit"] {
            assert!(
                similar["properties"].get(name).is_some(),
                "similar_code lacks {name}: {similar}"
            );
        }
        assert!(similar.get("required").is_none(), "{similar}");
    }
}

#[test]
fn mcp_every_tool_answers_exactly() {
    let p = sample();
    let m = Mcp::start(&p, Era::Legacy);
    let status = wait_indexed(&m, 4);
    assert!(status["symbols"].as_u64().unwrap_or(0) >= 6, "{status}");
    assert!(status["last_indexed"].as_i64().is_some(), "{status}");

    // Compact by default: where and what, without the name's line,
    // language, an exact match's kind or the index block.
    let v = m.lookup("find_symbol", json!({"name": "parse_config"}));
    assert_eq!(v["total"], 1, "{v}");
    let s = &v["symbols"][0];
    assert_eq!(
        (s["start_line"].as_u64(), s["end_line"].as_u64()),
        (Some(10), Some(12)),
        "{v}"
    );
    for absent in ["line", "lang", "match"] {
        assert!(s.get(absent).is_none(), "{absent}: {v}");
    }
    for absent in ["truncated", "offset", "index", "next_offset"] {
        assert!(v.get(absent).is_none(), "{absent}: {v}");
    }
    let v = m.lookup(
        "find_symbol",
        json!({"name": "parse_config", "detail": true}),
    );
    assert_eq!(v["total"], 1, "{v}");
    assert_eq!(v["truncated"], false, "{v}");
    let s = &v["symbols"][0];
    assert_eq!(
        (
            s["path"].as_str(),
            s["kind"].as_str(),
            s["container"].as_str(),
            s["line"].as_u64(),
            s["start_line"].as_u64(),
            s["end_line"].as_u64()
        ),
        (
            Some("src/config.rs"),
            Some("method"),
            Some("Config"),
            Some(10),
            Some(10),
            Some(12)
        ),
        "{v}"
    );
    assert_eq!(
        s["signature"], "pub fn parse_config(text: &str) -> Config {",
        "{v}"
    );
    assert_eq!(s["match"], "exact", "{v}");
    assert_eq!(v["index"]["indexing"], false, "{v}");

    let v = m.lookup(
        "find_symbol",
        json!({"name": "Config::parse_config", "match": "exact"}),
    );
    assert_eq!(
        paths_lines(&v, "symbols"),
        [("src/config.rs".to_string(), 10)],
        "{v}"
    );
    // A qualifier that names a definition but places nothing: the bare
    // name's definitions, with a note saying so (one naming nothing of the
    // project's, `Settings::parse_config`, finds nothing).
    let (error, _) = m.tool_error("find_symbol", json!({"name": "Settings::parse_config"}));
    assert!(error.contains("no definition named"), "{error}");
    let v = m.lookup("find_symbol", json!({"name": "LoginView::parse_config"}));
    assert_eq!(
        paths_lines(&v, "symbols"),
        [("src/config.rs".to_string(), 10)],
        "{v}"
    );
    assert!(
        v["hint"]
            .as_str()
            .is_some_and(|n| n.contains("nothing named `parse_config` inside `LoginView`")),
        "{v}"
    );
    let v = m.lookup(
        "find_symbol",
        json!({"name": "LoginView", "kind": "class", "language": "python"}),
    );
    assert_eq!(
        paths_lines(&v, "symbols"),
        [("app/views.py".to_string(), 4)],
        "{v}"
    );
    // Every language the index knows is a valid filter (the enum once
    // stopped at Ruby): none of this project's files is Kotlin.
    let v = m.lookup(
        "find_symbol",
        json!({"name": "LoginView", "language": "kotlin"}),
    );
    assert_eq!(v["total"], 0, "{v}");
    // So is a language the line heuristic reads.
    let v = m.lookup(
        "find_symbol",
        json!({"name": "LoginView", "language": "clojure"}),
    );
    assert_eq!(v["total"], 0, "{v}");
    // A name nothing defines is `NOT_FOUND` for find_symbol and
    // find_references, as for callers and callees.
    let (error, hint) = m.tool_error(
        "find_symbol",
        json!({"name": "nothing_like_this_exists_anywhere", "match": "exact"}),
    );
    assert!(error.contains("no definition named"), "{error}");
    assert!(hint.contains("fuzzy"), "{hint}");
    // So is one that only names spelled like it match (the CLI's `symbol`
    // exits 1 on them): they are in the hint; asked for, they are hits.
    let (error, hint) = m.tool_error("find_symbol", json!({"name": "parse_confg"}));
    assert!(
        error.contains("no definition named `parse_confg`"),
        "{error}"
    );
    assert!(hint.contains("parse_config ("), "{hint}");
    let v = m.ok(
        "find_symbol",
        json!({"name": "parse_confg", "match": "fuzzy"}),
    );
    assert_eq!(v["symbols"][0]["name"], "parse_config", "{v}");
    // Names that only start with it, likewise, unless prefixes are asked for.
    let (error, hint) = m.tool_error("find_symbol", json!({"name": "parse_conf"}));
    assert!(
        error.contains("no definition named `parse_conf`"),
        "{error}"
    );
    assert!(
        hint.contains("names starting with it: ")
            && hint.contains("parse_config (")
            && hint.contains("\"prefix\""),
        "{hint}"
    );
    let v = m.ok(
        "find_symbol",
        json!({"name": "parse_conf", "match": "prefix"}),
    );
    assert_eq!(v["symbols"][0]["name"], "parse_config", "{v}");
    // `callers` of a name no definition has names those spelled like it
    // (a rename's new name) and how to list the old one's uses.
    let (error, hint) = m.tool_error("callers", json!({"name": "parse_conf"}));
    assert!(
        error.contains("no definition named `parse_conf`")
            && error.contains("defined names like it: `Config::parse_config` ("),
        "{error}"
    );
    assert!(hint.contains("find_references"), "{hint}");
    let (error, hint) = m.tool_error(
        "callers",
        json!({"name": "nothing_like_this_exists_anywhere"}),
    );
    assert!(!error.contains("like it"), "{error}");
    assert!(hint.contains("check the spelling"), "{hint}");
    let (error, _) = m.tool_error(
        "find_references",
        json!({"name": "nothing_like_this_exists_anywhere"}),
    );
    assert!(error.contains("no definition named"), "{error}");

    let v = m.lookup("find_references", json!({"name": "parse_config"}));
    assert!(v["hits"][0].get("column").is_none(), "compact: {v}");
    assert_eq!(v["definitions"], 1, "{v}");
    let refs: Vec<&Value> = v["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .filter(|h| h["kind"] != "definition")
        .collect();
    assert_eq!(refs.len(), 1, "{v}");
    assert_eq!(
        (refs[0]["path"].as_str(), refs[0]["line"].as_u64()),
        (Some("src/main.rs"), Some(4)),
        "{v}"
    );
    assert_eq!(
        refs[0]["text"], "let c = config::Config::parse_config(\"x\");",
        "{v}"
    );
    assert_eq!(refs[0]["enclosing"], "main", "{v}");

    let v = m.ok(
        "list_defs_in_file",
        json!({"path": "src/config.rs", "detail": true}),
    );
    let defs: Vec<(String, u64, u64)> = v["definitions"]
        .as_array()
        .expect("definitions")
        .iter()
        .map(|d| {
            (
                d["name"].as_str().unwrap_or("").to_string(),
                d["depth"].as_u64().unwrap_or(9),
                d["start_line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert!(defs.contains(&("Config".into(), 0, 4)), "{v}");
    assert!(
        defs.iter().any(|(n, d, _)| n == "parse_config" && *d >= 1),
        "{v}"
    );
    assert_eq!(v["path"], "src/config.rs");

    let v = m.ok("search", json!({"query": "validate_csrf_token"}));
    assert!(v.get("mode").is_none(), "compact: {v}");
    assert_eq!(first_path(&v), "app/views.py", "{v}");
    assert!(
        v["hits"][0]["arms"]
            .as_str()
            .is_some_and(|a| a.split('+').any(|x| x == "sym")),
        "{v}"
    );
    let v = m.ok(
        "search",
        json!({"query": "validate_csrf_token", "detail": true}),
    );
    assert_eq!(first_path(&v), "app/views.py", "{v}");
    assert_eq!(v["mode"], "hybrid", "hybrid is the default: {v}");
    assert!(
        v["hits"][0]["sources"].as_array().is_some_and(|s| s
            .iter()
            .any(|x| x.as_str().is_some_and(|x| x.starts_with("symbol#")))),
        "{v}"
    );
    assert!(
        v["query_interpretation"]
            .as_str()
            .is_some_and(|q| q.contains("identifier")),
        "{v}"
    );
    // The original design's name still works.
    let v = m.ok("hybrid_search", json!({"query": "validate csrf token"}));
    assert_eq!(first_path(&v), "app/views.py", "{v}");
    let v = m.ok(
        "search",
        json!({"query": "validate csrf token", "mode": "bm25"}),
    );
    assert_eq!(first_path(&v), "app/views.py", "{v}");
    assert!(
        v["hits"][0]["lines"].as_array().is_some_and(|l| l
            .iter()
            .any(|l| l.as_str().is_some_and(|l| l.contains("csrf")))),
        "{v}"
    );
    let v = m.ok(
        "search",
        json!({"query": "validate csrf token", "scope": "docs"}),
    );
    assert_eq!(first_path(&v), "README.md", "{v}");
    let v = m.ok("search", json!({"query": "csrf", "glob": ["src/**"]}));
    assert_eq!(v["hits"], json!([]), "{v}");
    // Nothing within a filter points at the filter, not at other words.
    assert!(
        v["hint"]
            .as_str()
            .is_some_and(|h| h.contains("within the glob, lang or scope")),
        "{v}"
    );
    // A glob climbing out of the project is an error, not silence.
    let (error, hint) = m.tool_error("search", json!({"query": "csrf", "glob": ["../**"]}));
    assert!(error.contains("reaches outside the project"), "{error}");
    assert!(hint.contains("src/**"), "{hint}");
    // The same for the keyword search, which had answered "no matches".
    let (error, _) = m.tool_error(
        "search_keyword",
        json!({"pattern": "csrf", "glob": ["!../x/**"]}),
    );
    assert!(error.contains("reaches outside the project"), "{error}");

    let v = m.ok("search_keyword", json!({"pattern": "csrf_token"}));
    assert_eq!(
        paths_lines(&v, "matches"),
        [
            ("app/views.py".to_string(), 8),
            ("app/views.py".to_string(), 9),
            ("app/views.py".to_string(), 12)
        ],
        "{v}"
    );
    assert_eq!(
        v["matches"][0]["text"], "        token = request.csrf_token",
        "{v}"
    );
    assert_eq!(
        (v["total"].as_u64(), v["truncated"].as_bool()),
        (Some(3), Some(false)),
        "{v}"
    );
    let v = m.ok(
        "search_keyword",
        json!({"pattern": "CSRF", "case_insensitive": true, "glob": ["*.md"], "context": 1}),
    );
    assert_eq!(
        paths_lines(&v, "matches"),
        [("README.md".to_string(), 3)],
        "{v}"
    );
    assert_eq!(
        v["matches"][0]["before"],
        json!([{"line": 2, "text": ""}]),
        "{v}"
    );
    let v = m.ok(
        "search_keyword",
        json!({"pattern": "fn main()", "fixed_strings": true}),
    );
    assert_eq!(
        paths_lines(&v, "matches"),
        [("src/main.rs".to_string(), 3)],
        "{v}"
    );
    // rg's -t and -v: only Rust files, and their lines without `fn`,
    // blank lines or `}`.
    let v = m.ok(
        "search_keyword",
        json!({"pattern": "fn main()", "fixed_strings": true, "type": ["py"]}),
    );
    assert_eq!(v["matches"], json!([]), "{v}");
    let v = m.ok(
        "search_keyword",
        json!({"pattern": "fn|^$|\\}", "invert_match": true, "type": ["rust"], "type_not": ["py"]}),
    );
    assert!(
        paths_lines(&v, "matches")
            .iter()
            .all(|(p, _)| p.ends_with(".rs")),
        "{v}"
    );
    assert!(!paths_lines(&v, "matches").is_empty(), "{v}");
    let (error, hint) = m.tool_error(
        "search_keyword",
        json!({"pattern": "x", "type": ["pyhton"]}),
    );
    assert!(error.contains("unknown file type"), "{error}");
    assert!(hint.contains("py"), "{hint}");
    let v = m.ok(
        "search_keyword",
        json!({"pattern": "token", "word": true, "max_results": 2}),
    );
    assert_eq!(v["matches"].as_array().map(Vec::len), Some(2), "{v}");
    assert_eq!(v["truncated"], true, "{v}");
    assert!(
        v["hint"].as_str().is_some_and(|h| h.contains("glob")),
        "{v}"
    );

    let v = m.ok(
        "read_file",
        json!({"path": "src/config.rs", "start_line": 4, "end_line": 6}),
    );
    assert_eq!(
        v["content"], "4\tpub struct Config {\n5\t    pub name: String,\n6\t}",
        "{v}"
    );
    assert_eq!(
        (v["total_lines"].as_u64(), v["truncated"].as_bool()),
        (Some(13), Some(false)),
        "{v}"
    );
    let v = m.ok(
        "read_file",
        json!({"path": "app/views.py", "match": "def post", "context": 1}),
    );
    assert_eq!(v["match_line"], 7, "{v}");
    assert_eq!(
        (v["start_line"].as_u64(), v["end_line"].as_u64()),
        (Some(6), Some(8)),
        "{v}"
    );
    // The text says where the match is and how often, as the CLI does.
    let r = m
        .call(
            "read_file",
            json!({"path": "app/views.py", "match": "def post", "context": 1}),
        )
        .expect("read_file");
    let text = error_text(&r);
    assert!(
        text.starts_with("app/views.py: lines 6-8 of ")
            && text.contains("; first match at line 7 (1 matching line)"),
        "{text}"
    );
    let v = m.ok("read_file", json!({"path": "./src/../src/main.rs"}));
    assert_eq!(v["path"], "src/main.rs", "{v}");
    assert!(
        v["content"]
            .as_str()
            .is_some_and(|c| c.starts_with("1\tmod config;\n")),
        "{v}"
    );
    // A minified file's one long line is shown around the match, cut on
    // both sides and said so (it was its first 2,000 characters, without
    // the match, `truncated: false` and no word of the cut).
    let line = format!(
        "{}new XMLHttpRequest(){}",
        "a=1;".repeat(2000),
        "b=2;".repeat(2000)
    );
    p.write("dist/app.min.js", format!("{line}\n"));
    let v = m.ok(
        "read_file",
        json!({"path": "dist/app.min.js", "match": "XMLHttpRequest", "context": 0}),
    );
    let content = v["content"].as_str().unwrap_or_default();
    assert!(content.contains("new XMLHttpRequest()"), "{v}");
    assert!(content.starts_with("1\t…") && content.ends_with('…'), "{v}");
    assert!(content.len() < 2_200, "{}", content.len());
    assert!(
        v["hint"]
            .as_str()
            .is_some_and(|h| h.contains("longer than 2000")),
        "{v}"
    );
}

#[test]
fn mcp_bad_calls_are_tool_errors_with_hints() {
    let p = sample();
    let m = Mcp::start(&p, Era::Legacy);
    let cases: &[(&str, Value, &str, &str)] = &[
        (
            "search_keyword",
            json!({"pattern": "foo("}),
            "invalid regex",
            "fixed_strings",
        ),
        (
            "search_keyword",
            json!({"pattern": ""}),
            "`pattern` is empty",
            "pattern",
        ),
        (
            "search_keyword",
            json!({"pattern": "x", "max_results": 1_000_000}),
            "`max_results` must be between 1 and 500",
            "500",
        ),
        (
            "search_keyword",
            json!({"pattern": "x", "glob": ["a["]}),
            "glob",
            "",
        ),
        (
            "read_file",
            json!({"path": "../../etc/passwd"}),
            "outside the project root",
            "inside the project",
        ),
        (
            "read_file",
            json!({"path": "/etc/passwd"}),
            "outside the project root",
            "",
        ),
        (
            "read_file",
            json!({"path": "src/missing.rs"}),
            "no such file",
            "relative to the project root",
        ),
        (
            "read_file",
            json!({"path": "src/config.rs", "start_line": 500}),
            "past the end",
            "",
        ),
        (
            "read_file",
            json!({"path": "src/config.rs", "start_line": 9, "end_line": 3}),
            "after end_line",
            "",
        ),
        ("read_file", json!({"path": "src"}), "directory", ""),
        (
            "find_symbol",
            json!({"name": "x", "limit": 100_000}),
            "`limit` must be between 1 and 200",
            "",
        ),
        (
            "find_symbol",
            json!({"name": "x", "limit": -1}),
            "`limit` must be between",
            "",
        ),
        (
            "find_symbol",
            json!({"name": "x", "kind": "gizmo"}),
            "unknown `kind` value `gizmo`",
            "function",
        ),
        (
            "find_symbol",
            json!({}),
            "missing required argument `name`",
            "",
        ),
        (
            "find_symbol",
            json!({"name": "x", "limt": 3}),
            "unknown argument `limt`",
            "limit",
        ),
        (
            "find_references",
            json!({"name": "   "}),
            "`name` is empty",
            "",
        ),
        (
            "find_references",
            json!({"name": "Config.no_such_method"}),
            "no definition of `no_such_method` in `Config`",
            "find_symbol",
        ),
        (
            "callers",
            json!({"name": "Config.no_such_method"}),
            "no definition of `no_such_method` in `Config`",
            "find_symbol",
        ),
        (
            "list_defs_in_file",
            json!({"path": "../outside.rs"}),
            "outside the project root",
            "",
        ),
        (
            "list_defs_in_file",
            json!({"path": "src"}),
            "is a directory",
            "",
        ),
        ("search", json!({"query": ""}), "`query` is empty", ""),
        (
            "search",
            json!({"query": "!!! ???"}),
            "no searchable words",
            "search_keyword",
        ),
        (
            "search",
            json!({"query": "(^.)"}),
            "no searchable words",
            "find_symbol",
        ),
        (
            "search",
            json!({"query": "x", "mode": "semantic"}),
            "semantic search is not available",
            "model fetch",
        ),
        (
            "search",
            json!({"query": "x", "limit": "many"}),
            "`limit` must be an integer",
            "",
        ),
        (
            "index_status",
            json!({"verbose": true}),
            "unknown argument `verbose`",
            "accepted arguments: sizes",
        ),
    ];
    for (tool, args, want_error, want_hint) in cases {
        let (error, hint) = m.tool_error(tool, args.clone());
        assert!(
            error.contains(want_error),
            "{tool} {args}: error {error:?} lacks {want_error:?}"
        );
        assert!(
            hint.contains(want_hint),
            "{tool} {args}: hint {hint:?} lacks {want_hint:?}"
        );
        assert!(
            !hint.contains("--"),
            "{tool} {args}: hint speaks CLI: {hint}"
        );
        // Tools and arguments, never a shell command (fetching a model has
        // no tool, so that hint names both).
        assert!(
            !hint.contains("`repo-search ") || hint.contains("model fetch"),
            "{tool} {args}: hint names a shell command: {hint}"
        );
    }
    // An unknown tool is a JSON-RPC error, not a tool result.
    match m.call("drop_database", json!({})) {
        Err(ServiceError::McpError(e)) => {
            assert_eq!(e.code.0, -32602, "{e:?}");
            assert!(e.message.contains("unknown tool `drop_database`"), "{e:?}");
        }
        other => panic!("unknown tool should be a JSON-RPC error: {other:?}"),
    }
    // The server is still fine.
    let v = m.lookup("find_symbol", json!({"name": "parse_config"}));
    assert_eq!(v["symbols"][0]["path"], "src/config.rs", "{v}");
}

#[test]
fn mcp_stateless_era_through_rmcp_discover() {
    let p = sample();
    let m = Mcp::start(&p, Era::Modern);
    let info = m.client().peer_info().expect("peer info");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2026_07_28);
    assert_eq!(
        info.server_info.as_ref().map(|s| s.name.as_str()),
        Some("repo-search")
    );
    assert!(info.capabilities.tools.is_some());
    wait_indexed(&m, 4);
    let v = m.lookup("find_symbol", json!({"name": "validate_csrf_token"}));
    assert_eq!(
        paths_lines(&v, "symbols"),
        [("app/views.py".to_string(), 12)],
        "{v}"
    );
    let v = m.ok("search_keyword", json!({"pattern": "SECRET"}));
    assert_eq!(
        paths_lines(&v, "matches"),
        [("app/views.py".to_string(), 14)],
        "{v}"
    );
    let (error, _) = m.tool_error("read_file", json!({"path": "../../etc/passwd"}));
    assert!(error.contains("outside"), "{error}");
}

/// A `repo-search mcp` spoken to in raw JSON-RPC lines.
struct Raw {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Raw {
    fn start(p: &Project) -> Raw {
        let mut child = p
            .cmd(&["mcp"])
            .env("CLAUDE_PROJECT_DIR", p.root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn repo-search mcp");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        Raw {
            child,
            stdin,
            stdout,
        }
    }

    fn send(&mut self, msg: &str) {
        writeln!(self.stdin, "{msg}").expect("write to server");
        self.stdin.flush().expect("flush");
    }

    /// Sends a request and returns the response with the same id (every
    /// line on stdout must be JSON).
    fn request(&mut self, msg: Value) -> Value {
        let id = msg["id"].clone();
        self.send(&msg.to_string());
        self.read_until(|v| v["id"] == id)
    }

    fn read_until(&mut self, want: impl Fn(&Value) -> bool) -> Value {
        loop {
            let mut line = String::new();
            let n = self.stdout.read_line(&mut line).expect("read from server");
            assert!(n > 0, "server closed stdout");
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"));
            if want(&v) {
                return v;
            }
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn modern_meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {}
    })
}

#[test]
fn mcp_raw_jsonrpc_in_both_eras() {
    let p = sample();
    p.run(&["index"]).ok();

    // Legacy: initialize, initialized, then session requests without _meta.
    let mut raw = Raw::start(&p);
    let v = raw.request(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "raw-test", "version": "1.0.0"}}}));
    assert_eq!(v["result"]["protocolVersion"], "2025-11-25", "{v}");
    assert_eq!(v["result"]["serverInfo"]["name"], "repo-search", "{v}");
    assert!(
        v["result"]["instructions"]
            .as_str()
            .is_some_and(|s| s.contains("find_symbol")),
        "{v}"
    );
    raw.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    let v = raw.request(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    assert_eq!(
        v["result"]["tools"].as_array().map(Vec::len),
        Some(18),
        "{v}"
    );
    let v = raw.request(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "find_symbol", "arguments": {"name": "LoginView"}}}));
    assert_eq!(
        v["result"]["structuredContent"]["symbols"][0]["path"], "app/views.py",
        "{v}"
    );
    assert_eq!(v["result"]["isError"], false, "{v}");
    assert!(
        v["result"].get("resultType").is_none(),
        "legacy peers get no resultType: {v}"
    );
    // Malformed input: a JSON-RPC error, and the server goes on.
    raw.send(r#"{"foo": "bar"}"#);
    let v = raw.read_until(|v| v.get("error").is_some());
    assert_eq!(v["error"]["code"], -32600, "{v}");
    let v = raw.request(json!({"jsonrpc": "2.0", "id": 4, "method": "no/such/method"}));
    assert_eq!(v["error"]["code"], -32601, "{v}");
    let v = raw.request(json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"name": "nope", "arguments": {}}}));
    assert_eq!(v["error"]["code"], -32602, "{v}");
    let v = raw.request(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
        "params": {"name": "search_keyword", "arguments": {"pattern": "("}}}));
    assert_eq!(v["result"]["isError"], true, "{v}");
    drop(raw);

    // Stateless 2026-07-28: discover, then self-contained requests with _meta.
    let mut raw = Raw::start(&p);
    let v = raw.request(json!({"jsonrpc": "2.0", "id": "d1", "method": "server/discover", "params": {"_meta": modern_meta()}}));
    let versions = v["result"]["supportedVersions"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        versions.contains(&json!("2026-07-28")) && versions.contains(&json!("2025-11-25")),
        "{v}"
    );
    assert!(v["result"]["capabilities"]["tools"].is_object(), "{v}");
    let v = raw.request(json!({"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {"_meta": modern_meta()}}));
    assert_eq!(
        v["result"]["tools"].as_array().map(Vec::len),
        Some(18),
        "{v}"
    );
    let v = raw.request(
        json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call", "params": {
        "_meta": modern_meta(), "name": "search_keyword", "arguments": {"pattern": "def post"}}}),
    );
    assert_eq!(
        v["result"]["structuredContent"]["matches"][0]["line"], 7,
        "{v}"
    );
    assert_eq!(v["result"]["resultType"], "complete", "{v}");
    let v = raw.request(
        json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {
        "_meta": modern_meta(), "name": "read_file", "arguments": {"path": "../../etc/passwd"}}}),
    );
    assert_eq!(v["result"]["isError"], true, "{v}");
    // A stateless request without its _meta is refused (the spec requires it).
    let v = raw.request(json!({"jsonrpc": "2.0", "id": 10, "method": "tools/list"}));
    assert_eq!(v["error"]["code"], -32602, "{v}");
    // A stateless request alone, without discover first, is answered too.
    drop(raw);
    let mut raw = Raw::start(&p);
    let v = raw.request(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "_meta": modern_meta(), "name": "find_symbol", "arguments": {"name": "parse_config"}}}),
    );
    assert_eq!(
        v["result"]["structuredContent"]["symbols"][0]["start_line"], 10,
        "{v}"
    );
}

#[test]
fn mcp_builds_a_missing_index_in_the_background() {
    let p = Project::new();
    let n = 1500u64;
    for i in 0..n {
        p.write(
            &format!("pkg/m{:02}/mod{i}.py", i % 40),
            format!("def function_{i}(x):\n    return helper_{i}(x) + {i}\n\n\nclass Thing{i}:\n    def method(self):\n        return {i}\n"),
        );
    }
    assert!(!p.path(".repo_search/index.db").exists());
    let m = Mcp::start(&p, Era::Legacy);
    // Keyword search never needs the index.
    let v = m.ok("search_keyword", json!({"pattern": "def function_1234\\b"}));
    assert_eq!(
        paths_lines(&v, "matches"),
        [("pkg/m34/mod1234.py".to_string(), 1)],
        "{v}"
    );
    let mut saw_progress = false;
    let status = poll_until(Duration::from_secs(120), || {
        let s = m.ok("index_status", json!({}));
        if s["indexing"] == true && s["progress"]["total"].as_u64().unwrap_or(0) > 0 {
            saw_progress = true;
        }
        (s["exists"] == true && s["files"] == n && s["indexing"] == false).then_some(s)
    })
    .expect("the background build finishes");
    eprintln!("background build: progress observed while indexing: {saw_progress}; {status}");
    assert_eq!(status["symbols"].as_u64(), Some(n * 3), "{status}");
    assert!(
        status.get("sizes").is_none(),
        "sizes only when asked: {status}"
    );
    let sized = m.ok("index_status", json!({"sizes": true}));
    let tables = sized["sizes"]["tables"].as_array().expect("sizes.tables");
    let chunks = tables
        .iter()
        .find(|t| t["name"] == "chunks")
        .expect("chunks row");
    assert!(chunks["bytes"].as_u64().unwrap_or(0) > 0, "{sized}");
    assert!(
        sized["sizes"]["source_bytes"].as_u64().unwrap_or(0) > 0,
        "{sized}"
    );
    let v = m.lookup("find_symbol", json!({"name": "Thing777"}));
    assert_eq!(
        paths_lines(&v, "symbols"),
        [("pkg/m17/mod777.py".to_string(), 5)],
        "{v}"
    );
    // A compact answer has a note only while an index run may change it.
    assert!(v.get("note").is_none(), "{v}");
    let v = m.lookup("find_symbol", json!({"name": "Thing777", "detail": true}));
    assert_eq!(v["index"]["indexing"], false, "{v}");
}

#[test]
fn mcp_sees_edits_and_replaced_indexes_without_restart() {
    let p = sample();
    p.run(&["index"]).ok();
    let m = Mcp::start(&p, Era::Legacy);
    let v = m.lookup(
        "find_symbol",
        json!({"name": "brand_new_function", "match": "exact"}),
    );
    assert_eq!(v["total"], 0, "{v}");

    p.write(
        "src/extra.rs",
        "// added by the agent\n\npub fn brand_new_function() -> u32 {\n    42\n}\n",
    );
    let v = poll_until(Duration::from_secs(20), || {
        let v = m.lookup(
            "find_symbol",
            json!({"name": "brand_new_function", "match": "exact"}),
        );
        (v["total"] == 1).then_some(v)
    })
    .expect("the new function becomes visible");
    assert_eq!(
        paths_lines(&v, "symbols"),
        [("src/extra.rs".to_string(), 3)],
        "{v}"
    );

    p.write(
        "src/extra.rs",
        "// renamed\npub fn renamed_function() -> u32 {\n    42\n}\n",
    );
    poll_until(Duration::from_secs(20), || {
        let old = m.lookup(
            "find_symbol",
            json!({"name": "brand_new_function", "match": "exact"}),
        );
        let new = m.lookup(
            "find_symbol",
            json!({"name": "renamed_function", "match": "exact"}),
        );
        (old["total"] == 0 && paths_lines(&new, "symbols") == [("src/extra.rs".to_string(), 2)])
            .then_some(())
    })
    .expect("the rename becomes visible");

    // Another writer replaces the database file: the server reopens it.
    let before = m.ok("index_status", json!({}))["generation"]
        .as_u64()
        .unwrap_or(0);
    p.run(&["index", "--full"]).ok();
    let v = m.lookup("find_symbol", json!({"name": "parse_config"}));
    assert_eq!(
        paths_lines(&v, "symbols"),
        [("src/config.rs".to_string(), 10)],
        "{v}"
    );
    let after = m.ok("index_status", json!({}));
    assert_ne!(
        after["generation"].as_u64(),
        Some(before),
        "the status reads the new file: {after}"
    );
    assert_eq!(after["files"], 5, "{after}");
}

/// Without a daemon, the server watches the project itself: once a
/// re-check that started after its watch began has finished, a call
/// re-checks only what it heard changed (at once, not after an interval),
/// and `search_keyword` reads the index's file list plus those files
/// instead of walking, with the walk's answers: edits, new and deleted
/// files, ignored files staying out, an ignore rule changed.
#[test]
fn mcp_watches_the_project_itself_without_a_daemon() {
    let p = Project::new();
    p.git_init();
    p.write(".gitignore", "build/\n")
        .write("src/app.py", "def app_main():\n    return 1\n")
        .write("docs/guide.md", "How to call app_main.\n")
        .write("build/out.py", "def app_main():\n    return 1\n");
    p.run(&["index", "--quiet", "--no-embed"]).ok();
    let log_path = p.home.path().join("mcp-stderr.log");
    let m = Mcp::start_with_env(
        &p,
        Era::Legacy,
        &[("REPO_SEARCH_LOG", std::path::Path::new("debug"))],
    );
    let listed = || {
        std::fs::read_to_string(&log_path)
            .unwrap_or_default()
            .matches("keyword: listed from the index")
            .count()
    };
    let paths = |pattern: &str| -> Vec<String> {
        let v = m.ok("search_keyword", json!({"pattern": pattern}));
        let mut out: Vec<String> = keyword_lines(&v).into_iter().map(|l| l.0).collect();
        out.dedup();
        out
    };
    // The watch is trusted after the first re-check that followed it.
    let trusted = poll_until(Duration::from_secs(30), || {
        let before = listed();
        (paths("app_main") == ["docs/guide.md", "src/app.py"] && listed() > before).then_some(())
    });
    assert!(
        trusted.is_some(),
        "search_keyword never listed the index's files\n{}",
        std::fs::read_to_string(&log_path).unwrap_or_default()
    );
    let check = |pattern: &str, want: &[&str]| {
        let got = poll_until(Duration::from_secs(10), || {
            let got = paths(pattern);
            (got == want).then_some(got)
        });
        assert!(
            got.is_some(),
            "{pattern}: want {want:?}, got {:?}",
            paths(pattern)
        );
    };
    p.write("src/util.py", "def helper():\n    return app_main()\n");
    check("app_main", &["docs/guide.md", "src/app.py", "src/util.py"]);
    p.remove("src/util.py");
    check("app_main", &["docs/guide.md", "src/app.py"]);
    p.write("build/more.py", "fresh_fn = 1\n");
    p.write("notes.txt", "fresh_fn in a note\n");
    check("fresh_fn", &["notes.txt"]);
    // The symbol index follows the same heard paths: a new definition is
    // found, an ignored one is not.
    p.write("src/new.py", "def watched_fn():\n    return 2\n");
    p.write("build/gen.py", "def ignored_fn():\n    return 3\n");
    let found = poll_until(Duration::from_secs(10), || {
        let v = m.lookup(
            "find_symbol",
            json!({"name": "watched_fn", "match": "exact"}),
        );
        (paths_lines(&v, "symbols") == [("src/new.py".to_string(), 1)]).then_some(())
    });
    assert!(found.is_some(), "the new definition is never found");
    let v = m.lookup(
        "find_symbol",
        json!({"name": "ignored_fn", "match": "exact"}),
    );
    assert_eq!(v["total"], 0, "an ignored file was indexed: {v}");
    // An ignore rule changed: the ignored files come in.
    p.write(".gitignore", "");
    check("fresh_fn", &["build/more.py", "notes.txt"]);
    let found = poll_until(Duration::from_secs(10), || {
        let v = m.lookup(
            "find_symbol",
            json!({"name": "ignored_fn", "match": "exact"}),
        );
        (v["total"] == 1).then_some(())
    });
    assert!(
        found.is_some(),
        "the file no longer ignored is never indexed"
    );
    assert!(listed() >= 4, "listed only {} times", listed());
    let status = m.ok("index_status", json!({}));
    assert_eq!(status["files"], 7, "git's own files stay out: {status}");
    // The index removed under the server (the watch ignores the index
    // directory): it is built again.
    p.run(&["clean", "--yes"]).ok();
    let rebuilt = poll_until(Duration::from_secs(30), || {
        let v = m
            .call(
                "find_symbol",
                json!({"name": "watched_fn", "match": "exact"}),
            )
            .ok()?;
        let v = v.structured_content?;
        (paths_lines(&v, "symbols") == [("src/new.py".to_string(), 1)]).then_some(())
    });
    assert!(rebuilt.is_some(), "the removed index is never built again");
}

#[test]
fn mcp_results_stay_within_the_size_budget() {
    let p = Project::new();
    let long = "x".repeat(400);
    let mut big = String::new();
    for i in 1..=3000 {
        big.push_str(&format!("needle_{i} = \"{long}\"\n"));
    }
    p.write("data/big.py", &big);
    // Hybrid answers show one hit per file: the bulk search below needs
    // many files where each needle matches to outgrow its budget.
    let mut small = String::new();
    for i in 1..=10 {
        small.push_str(&format!("needle_{i} = \"{long}\"\n"));
    }
    for k in 1..=60 {
        p.write(&format!("data/copies/c{k}.py"), &small);
    }
    let m = Mcp::start(&p, Era::Legacy);

    let v = m.ok(
        "search_keyword",
        json!({"pattern": "needle", "max_results": 500, "context": 2}),
    );
    let size = v.to_string().len();
    assert!(size <= 20_000, "search_keyword result is {size} characters");
    assert_eq!(v["truncated"], true, "{v}");
    assert!(
        v["total"].as_u64().unwrap_or(0)
            > v["matches"].as_array().map(|a| a.len() as u64).unwrap_or(0)
    );
    assert!(
        v["hint"].as_str().is_some_and(|h| h.contains("glob")),
        "{}",
        v["hint"]
    );

    let v = m.ok("read_file", json!({"path": "data/big.py"}));
    let size = v.to_string().len();
    assert!(size <= 20_000, "read_file result is {size} characters");
    assert_eq!(v["truncated"], true);
    let next = v["end_line"].as_u64().expect("end_line") + 1;
    assert!(
        v["hint"]
            .as_str()
            .is_some_and(|h| h.contains(&format!("start_line: {next}"))),
        "{}",
        v["hint"]
    );
    let v2 = m.ok(
        "read_file",
        json!({"path": "data/big.py", "start_line": next}),
    );
    assert!(
        v2["content"]
            .as_str()
            .is_some_and(|c| c.starts_with(&format!("{next}\tneedle_{next} = "))),
        "{}",
        v2["start_line"]
    );

    wait_indexed(&m, 61);
    let v = m.ok("list_defs_in_file", json!({"path": "data/big.py"}));
    assert!(v.to_string().len() <= 20_000);
    assert_eq!(v["total"], 3000, "{}", v["total"]);
    if let Some(next) = v["next_offset"].as_u64() {
        let shown = v["definitions"].as_array().map(Vec::len).unwrap_or(0);
        assert_eq!(next as usize, shown, "{}", v["next_offset"]);
        let page = m.ok(
            "list_defs_in_file",
            json!({"path": "data/big.py", "offset": shown}),
        );
        assert_eq!(
            page["definitions"][0]["name"],
            format!("needle_{}", shown + 1),
            "{}",
            page["definitions"][0]
        );
    }
    let queries: Vec<String> = (1..=10).map(|i| format!("needle_{i}")).collect();
    let v = m.ok("search", json!({"queries": queries, "limit": 50}));
    let size = v.to_string().len();
    assert!(size <= 20_000, "bulk search result is {size} characters");
    assert_eq!(v["results"].as_array().map(Vec::len), Some(10), "{v}");
    assert!(
        v["hint"]
            .as_str()
            .is_some_and(|h| h.contains("fewer queries")),
        "{}",
        v["hint"]
    );
    let v = m.lookup(
        "find_symbol",
        json!({"name": "needle_", "match": "prefix", "limit": 200}),
    );
    assert!(v.to_string().len() <= 20_000);
    let shown = v["symbols"].as_array().map(Vec::len).unwrap_or(0) as u64;
    assert_eq!(v["next_offset"].as_u64(), Some(shown), "{}", v["total"]);
    let v = m.lookup(
        "find_symbol",
        json!({"name": "needle_", "match": "prefix", "limit": 200, "detail": true}),
    );
    assert!(v.to_string().len() <= 20_000);
    assert_eq!(v["truncated"], true, "{}", v["total"]);
    assert!(
        v["hint"].as_str().is_some_and(|h| h.contains("offset")),
        "{}",
        v["hint"]
    );
}

const RETRY_PY: &str = r#"def retry_failed_payment(payment, attempts=3):
    """Charge the card again after a failure."""
    for _ in range(attempts):
        if payment.charge():
            return True
    return False
"#;

const MATH_PY: &str = r#"def add_numbers(a, b):
    """Sum of two numbers."""
    return a + b


def multiply_numbers(a, b):
    return a * b
"#;

/// A function copied from `VIEWS_PY`, as an agent would paste it.
const CSRF_SNIPPET: &str = r#"def validate_csrf_token(token):
    """Check that the CSRF token is valid."""
    return token == os.environ.get("SECRET")
"#;

/// The path of a hit: `path` in full hits, before `:start-end` of `at` in compact ones.
fn hit_path(h: &Value) -> Option<String> {
    h["path"].as_str().map(String::from).or_else(|| {
        h["at"]
            .as_str()
            .and_then(|a| a.rsplit_once(':'))
            .map(|(p, _)| p.to_string())
    })
}

pub(crate) fn hit_paths(v: &Value) -> Vec<String> {
    v["hits"]
        .as_array()
        .map(|a| a.iter().filter_map(hit_path).collect())
        .unwrap_or_default()
}

/// A hit's path and line span, from either shape.
fn hit_span(h: &Value) -> Option<(String, u64, u64)> {
    if let Some(at) = h["at"].as_str() {
        let (path, span) = at.rsplit_once(':')?;
        let (s, e) = span.split_once('-')?;
        return Some((path.to_string(), s.parse().ok()?, e.parse().ok()?));
    }
    Some((
        h["path"].as_str()?.to_string(),
        h["start_line"].as_u64()?,
        h["end_line"].as_u64()?,
    ))
}

fn first_path(v: &Value) -> String {
    hit_paths(v).into_iter().next().unwrap_or_default()
}

#[test]
fn mcp_search_semantic_and_similar_code_with_the_fast_model() {
    let Some(models) = crate::embed::test_models() else {
        return;
    };
    let p = sample();
    p.write("app/retry.py", RETRY_PY)
        .write("app/math.py", MATH_PY);
    // The fast tier only, so the model searched is known (MiniLM, the
    // default full tier, has no vectors yet).
    let r = p.run_env(
        &["index", "--embed-tier", "fast", "--json"],
        &[("REPO_SEARCH_MODEL_CACHE", models.as_os_str())],
    );
    assert_eq!(r.code(), 0, "{r}");
    let m = Mcp::start_with_env(
        &p,
        Era::Legacy,
        &[("REPO_SEARCH_MODEL_CACHE", models.as_path())],
    );
    wait_indexed(&m, 6);

    // A natural-language query finds the function that does it.
    let query = "retry a payment that failed";
    // Compact by default: the model, the hits, a short note on the better
    // model still missing; no scores or vector counts.
    let v = m.ok("search_semantic", json!({"query": query}));
    assert_eq!(v["model"], crate::common::FAST_MODEL, "{v}");
    assert_eq!(
        hit_paths(&v).first().map(String::as_str),
        Some("app/retry.py"),
        "{v}"
    );
    assert!(
        v["note"]
            .as_str()
            .is_some_and(|n| n.contains("sentence-transformers/all-MiniLM-L6-v2")),
        "{v}"
    );
    for absent in ["score", "snippet", "sources"] {
        assert!(v["hits"][0].get(absent).is_none(), "{absent}: {v}");
    }
    assert!(v.get("index").is_none() && v.get("tier").is_none(), "{v}");
    let v = m.ok("search_semantic", json!({"query": query, "detail": true}));
    assert_eq!(v["available"], true, "{v}");
    assert_eq!(v["model"], crate::common::FAST_MODEL, "{v}");
    assert_eq!(v["tier"], "fast", "{v}");
    assert_eq!(v["partial"], false, "{v}");
    assert_eq!(
        v["upgrade"]["model"], "sentence-transformers/all-MiniLM-L6-v2",
        "the answer names the better model still missing: {v}"
    );
    assert_eq!(v["upgrade"]["embedded"], 0, "{v}");
    assert!(
        v["hint"].as_str().is_some_and(|h| h.contains("daemon")),
        "{v}"
    );
    // index_status shows the coverage of both tiers, best first.
    let st = m.ok("index_status", json!({}));
    let tiers = st["embeddings"].as_array().cloned().unwrap_or_default();
    assert_eq!(tiers.len(), 2, "{st}");
    assert_eq!(tiers[0]["tier"], "full", "{st}");
    assert_eq!(tiers[0]["embedded"], 0, "{st}");
    assert_eq!(tiers[1]["tier"], "fast", "{st}");
    assert!(
        tiers[1]["total"].as_u64().is_some_and(|t| t > 0)
            && tiers[1]["embedded"] == tiers[1]["total"],
        "{st}"
    );
    assert_eq!(v["query"], query);
    assert!(
        v["total"].as_u64().unwrap_or(0) > 0 && v["embedded"] == v["total"],
        "{v}"
    );
    assert_eq!(
        hit_paths(&v).first().map(String::as_str),
        Some("app/retry.py"),
        "{v}"
    );
    let score = v["hits"][0]["score"].as_f64().unwrap_or(-1.0);
    assert!(score > 0.0 && score <= 1.0, "cosine score: {v}");
    assert!(v.get("reason").is_none(), "{v}");

    // Paging: limit 1 says how to get the next hit, which offset 1 gives.
    let first = m.ok("search_semantic", json!({"query": query, "limit": 1}));
    assert_eq!(first["hits"].as_array().map(Vec::len), Some(1), "{first}");
    assert_eq!(first["next_offset"], 1, "{first}");
    let first = m.ok(
        "search_semantic",
        json!({"query": query, "limit": 1, "detail": true}),
    );
    assert_eq!(first["truncated"], true, "{first}");
    assert!(
        first["hint"]
            .as_str()
            .is_some_and(|h| h.contains("offset: 1")),
        "{first}"
    );
    let second = m.ok(
        "search_semantic",
        json!({"query": query, "limit": 1, "offset": 1, "detail": true}),
    );
    assert_eq!(second["hits"][0], v["hits"][1], "{second}");

    // Globs narrow; a high threshold leaves nothing and says so.
    let v = m.ok(
        "search_semantic",
        json!({"query": "check the csrf token is valid", "glob": ["app/**", "!app/retry.py"]}),
    );
    let paths = hit_paths(&v);
    assert!(!paths.is_empty(), "{v}");
    assert!(
        paths
            .iter()
            .all(|p| p.starts_with("app/") && p != "app/retry.py"),
        "{paths:?}"
    );
    assert_eq!(paths[0], "app/views.py", "{v}");
    let v = m.ok(
        "search_semantic",
        json!({"query": query, "threshold": 0.99}),
    );
    assert_eq!(hit_paths(&v), Vec::<String>::new(), "{v}");
    assert!(
        v["hint"].as_str().is_some_and(|h| h.contains("threshold")),
        "{v}"
    );

    // A snippet copied from a file finds that file; exclude_path leaves it out.
    let v = m.ok("similar_code", json!({"code": CSRF_SNIPPET}));
    assert_eq!(v["similar_to"], "code (3 lines)", "{v}");
    assert_eq!(
        hit_paths(&v).first().map(String::as_str),
        Some("app/views.py"),
        "{v}"
    );
    let v = m.ok(
        "similar_code",
        json!({"code": CSRF_SNIPPET, "exclude_path": "app/views.py"}),
    );
    let paths = hit_paths(&v);
    assert!(!paths.is_empty(), "{v}");
    assert!(!paths.iter().any(|p| p == "app/views.py"), "{paths:?}");

    // path + line: the chunk itself is not its own hit.
    let v = m.ok("similar_code", json!({"path": "./app/math.py", "line": 2}));
    assert_eq!(v["similar_to"], "app/math.py:2", "{v}");
    let own = v["hits"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(hit_span)
        .any(|(p, s, e)| p == "app/math.py" && s <= 2 && e >= 2);
    assert!(
        !own,
        "the chunk at app/math.py:2 is among its own hits: {v}"
    );
    assert!(!hit_paths(&v).is_empty(), "{v}");
    let (error, _) = m.tool_error("similar_code", json!({"path": "app/math.py", "line": 999}));
    assert!(error.contains("no indexed chunk"), "{error}");

    // A new file indexed without vectors (`index --no-embed`; the server's
    // own runs would embed it): partial, not an error.
    p.write(
        "app/dates.py",
        "def format_date(ts):\n    return ts.strftime('%Y-%m-%d')\n",
    );
    let r = p.run(&["index", "--no-embed"]);
    assert_eq!(r.code(), 0, "{r}");
    let v = poll_until(Duration::from_secs(60), || {
        let v = m.ok("search_semantic", json!({"query": query, "detail": true}));
        (v["partial"] == true).then_some(v)
    })
    .unwrap_or_else(|| panic!("the server never indexed app/dates.py"));
    assert_eq!(v["available"], true, "{v}");
    let (embedded, total) = (
        v["embedded"].as_u64().unwrap_or(0),
        v["total"].as_u64().unwrap_or(0),
    );
    assert!(embedded > 0 && embedded < total, "{v}");
    assert!(
        v["hint"]
            .as_str()
            .is_some_and(|h| h.contains(&format!("{embedded} of {total}"))),
        "{v}"
    );
    assert_eq!(
        hit_paths(&v).first().map(String::as_str),
        Some("app/retry.py"),
        "{v}"
    );
}

#[test]
fn mcp_semantic_tools_without_vectors_answer_unavailable_and_reject_bad_input() {
    let p = sample();
    // No model in this private home: semantic search cannot answer.
    let m = Mcp::start(&p, Era::Legacy);
    wait_indexed(&m, 4);
    let calls = [
        ("search_semantic", json!({"query": "check the csrf token"})),
        ("similar_code", json!({"code": CSRF_SNIPPET})),
        ("similar_code", json!({"path": "app/views.py", "line": 13})),
    ];
    for (tool, args) in calls {
        let v = m.ok(tool, args.clone());
        assert_eq!(v["available"], false, "{tool} {args}: {v}");
        assert!(
            v["reason"].as_str().is_some_and(|r| r.contains("model")),
            "{tool} {args}: {v}"
        );
        let hint = v["hint"].as_str().unwrap_or_default();
        assert!(
            hint.contains("repo-search model fetch") && hint.contains("search_keyword"),
            "{tool} {args}: {v}"
        );
        assert_eq!(v["hits"], json!([]), "{v}");
    }
    let r = m
        .call("search_semantic", json!({"query": "check the csrf token"}))
        .expect("call");
    assert!(
        error_text(&r).contains("semantic search is not available"),
        "{}",
        error_text(&r)
    );
    // Every other tool keeps working.
    let v = m.lookup("find_symbol", json!({"name": "validate_csrf_token"}));
    assert_eq!(v["symbols"][0]["path"], "app/views.py", "{v}");
    let v = m.ok("search", json!({"query": "validate csrf token"}));
    assert_eq!(first_path(&v), "app/views.py", "{v}");

    let cases: &[(&str, Value, &str, &str)] = &[
        (
            "similar_code",
            json!({"code": "x", "path": "app/views.py", "line": 1}),
            "both `code` and `path`",
            "`code`",
        ),
        (
            "similar_code",
            json!({}),
            "nothing to compare with",
            "`path` + `line`",
        ),
        (
            "similar_code",
            json!({"path": "app/views.py"}),
            "`path` needs `line`",
            "line",
        ),
        (
            "similar_code",
            json!({"line": 3}),
            "`line` needs `path`",
            "path",
        ),
        (
            "similar_code",
            json!({"path": "../outside.py", "line": 1}),
            "outside the project root",
            "",
        ),
        (
            "similar_code",
            json!({"path": "/etc/passwd", "line": 1}),
            "outside the project root",
            "",
        ),
        (
            "similar_code",
            json!({"code": "x", "exclude_path": "../../etc/passwd"}),
            "outside the project root",
            "",
        ),
        (
            "similar_code",
            json!({"path": "app", "line": 1}),
            "is a directory",
            "",
        ),
        (
            "similar_code",
            json!({"code": "  \n"}),
            "`code` is empty",
            "`code`",
        ),
        (
            "similar_code",
            json!({"code": "x", "limit": 0}),
            "`limit` must be between 1 and 50, got 0",
            "1 to 50",
        ),
        (
            "search_semantic",
            json!({"query": "x", "limit": 51}),
            "`limit` must be between 1 and 50, got 51",
            "default 10",
        ),
        (
            "search_semantic",
            json!({"query": "x", "threshold": 1.5}),
            "`threshold` must be between 0 and 1",
            "leave it out",
        ),
        (
            "search_semantic",
            json!({"query": " "}),
            "`query` is empty",
            "",
        ),
        (
            "search_semantic",
            json!({}),
            "missing required argument `query`",
            "",
        ),
    ];
    for (tool, args, want_error, want_hint) in cases {
        let (error, hint) = m.tool_error(tool, args.clone());
        assert!(
            error.contains(want_error),
            "{tool} {args}: error {error:?} lacks {want_error:?}"
        );
        assert!(
            hint.contains(want_hint),
            "{tool} {args}: hint {hint:?} lacks {want_hint:?}"
        );
    }
}

#[test]
fn mcp_search_answers_several_queries_in_one_call() {
    let p = sample();
    let m = Mcp::start(&p, Era::Legacy);
    wait_indexed(&m, 4);
    let alone = m.ok("search", json!({"query": "validate csrf token"}));

    // Three queries, one of them invalid: two answers and one error entry.
    let queries = json!(["validate csrf token", "!!! ???", "parse_config"]);
    let r = m
        .call("search", json!({"queries": queries}))
        .expect("search with queries");
    assert_ne!(r.is_error, Some(true), "{}", error_text(&r));
    let v = r.structured_content.clone().expect("structuredContent");
    let results = v["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(results.len(), 3, "{v}");
    assert_eq!(results[0]["query"], "validate csrf token", "{v}");
    assert_eq!(
        results[0]["hits"], alone["hits"],
        "same answer as alone: {v}"
    );
    assert!(results[0].get("index").is_none(), "compact: {v}");
    assert_eq!(results[1]["query"], "!!! ???", "{v}");
    assert!(
        results[1]["error"]
            .as_str()
            .is_some_and(|e| e.contains("no searchable words")),
        "{v}"
    );
    assert!(
        results[1]["hint"]
            .as_str()
            .is_some_and(|h| h.contains("search_keyword")),
        "{v}"
    );
    assert!(results[1].get("hits").is_none(), "{v}");
    assert_eq!(first_path(&results[2]), "src/config.rs", "{v}");
    let text = error_text(&r);
    assert!(text.starts_with("2 of 3 queries answered"), "{text}");
    assert!(text.contains("app/views.py:"), "{text}");
    assert!(
        text.contains("error: the query has no searchable words"),
        "{text}"
    );

    // The other arguments apply to every query; a blank query is its own error.
    let v = m.ok(
        "hybrid_search",
        json!({"queries": ["csrf token", "config", ""], "glob": ["src/**"], "mode": "bm25"}),
    );
    let results = v["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(results.len(), 3, "{v}");
    for r in &results[..2] {
        assert!(hit_paths(r).iter().all(|p| p.starts_with("src/")), "{v}");
    }
    assert!(!hit_paths(&results[1]).is_empty(), "{v}");
    assert_eq!(results[2]["error"], "empty query", "{v}");

    // Bad calls are errors with a hint.
    let eleven: Vec<String> = (1..=11).map(|i| format!("query {i}")).collect();
    let cases: &[(Value, &str, &str)] = &[
        (
            json!({"queries": eleven}),
            "`queries` has 11 items, the limit is 10",
            "at most 10",
        ),
        (
            json!({"query": "csrf", "queries": ["csrf"]}),
            "not both",
            "`queries`",
        ),
        (json!({}), "missing required argument `query`", "`queries`"),
        (json!({"queries": []}), "`queries` is empty", "1 to 10"),
        (
            json!({"queries": ["csrf", 3]}),
            "`queries` must hold strings only",
            "",
        ),
    ];
    for (args, want_error, want_hint) in cases {
        let (error, hint) = m.tool_error("search", args.clone());
        assert!(
            error.contains(want_error),
            "{args}: error {error:?} lacks {want_error:?}"
        );
        assert!(
            hint.contains(want_hint),
            "{args}: hint {hint:?} lacks {want_hint:?}"
        );
    }
    // The single-query form is unchanged.
    let again = m.ok("search", json!({"query": "validate csrf token"}));
    assert_eq!(again["hits"], alone["hits"]);
    assert!(again.get("results").is_none());
}

/// The matched lines of a keyword answer with their before/after context
/// line numbers: the same for the MCP tool and `repo-search keyword --json`.
fn keyword_lines(v: &Value) -> Vec<(String, u64, Vec<u64>, Vec<u64>)> {
    let numbers = |a: &Value| -> Vec<u64> {
        a.as_array()
            .map(|a| a.iter().filter_map(|l| l["line"].as_u64()).collect())
            .unwrap_or_default()
    };
    v["matches"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|m| {
                    (
                        m["path"].as_str().unwrap_or("").to_string(),
                        m["line"].as_u64().unwrap_or(0),
                        numbers(&m["before"]),
                        numbers(&m["after"]),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn mcp_search_and_search_keyword_take_the_cli_parameters() {
    let p = sample();
    // Not indexed and not searched by default: a hidden directory and a
    // directory listed in `.ignore`.
    p.write(".config/settings.txt", "needle_hidden = 1\n")
        .write(".ignore", "build/\n")
        .write("build/gen.txt", "needle_ignored = 1\n");
    let m = Mcp::start(&p, Era::Legacy);
    wait_indexed(&m, 4);

    // search `context` = CLI `search -C N`: context lines around the snippet
    // and the other definitions of the hit's file.
    let plain = m.ok(
        "search",
        json!({"query": "validate_csrf_token", "detail": true}),
    );
    let v = m.ok(
        "search",
        json!({"query": "validate_csrf_token", "context": 2}),
    );
    // `context: 0`, the default, is the compact answer as without it.
    assert_eq!(
        m.ok(
            "search",
            json!({"query": "validate_csrf_token", "context": 0})
        ),
        m.ok("search", json!({"query": "validate_csrf_token"}))
    );
    let (hit, plain_hit) = (&v["hits"][0], &plain["hits"][0]);
    assert_eq!(hit["path"], "app/views.py", "{v}");
    assert!(plain_hit.get("file_symbols").is_none(), "{plain}");
    assert!(
        hit["file_symbols"].as_array().is_some_and(|f| f
            .iter()
            .any(|s| s.as_str().is_some_and(|s| s.contains("LoginView")))),
        "{v}"
    );
    let lines = |h: &Value| h["snippet"].as_str().map_or(0, |s| s.lines().count());
    assert!(lines(hit) > lines(plain_hit), "{v}\n{plain}");
    let cli = p.json(&["search", "validate_csrf_token", "-C", "2"]);
    let cli_hit = cli["hits"]
        .as_array()
        .and_then(|h| {
            h.iter()
                .find(|h| h["path"] == hit["path"] && h["start_line"] == hit["start_line"])
        })
        .unwrap_or_else(|| panic!("CLI lacks the hit: {cli}"));
    for field in ["snippet_line", "snippet", "file_symbols"] {
        assert_eq!(hit[field], cli_hit[field], "{field}: {v}\n{cli}");
    }
    // bm25 takes it too (and ignores it, like the CLI).
    m.ok(
        "search",
        json!({"query": "validate csrf token", "mode": "bm25", "context": 1}),
    );

    // search_keyword against `repo-search keyword --json` with the same flags.
    let cases: &[(Value, &[&str])] = &[
        (
            json!({"patterns": ["csrf_token", "SECRET"]}),
            &["-e", "csrf_token", "-e", "SECRET"],
        ),
        (
            json!({"pattern": "def post", "before_context": 2}),
            &["def post", "-B", "2"],
        ),
        (
            json!({"pattern": "def post", "after_context": 1, "context": 3}),
            &["def post", "-A", "1", "-C", "3"],
        ),
        (
            json!({"pattern": "token", "max_count": 1}),
            &["token", "-m", "1"],
        ),
        (
            json!({"pattern": "needle_", "hidden": true}),
            &["needle_", "--hidden"],
        ),
        (
            json!({"pattern": "needle_", "no_ignore": true}),
            &["needle_", "--no-ignore"],
        ),
        (
            json!({"pattern": "secret", "smart_case": true}),
            &["secret", "-S"],
        ),
        (
            json!({"pattern": "Secret", "smart_case": true}),
            &["Secret", "-S"],
        ),
    ];
    for (args, flags) in cases {
        let v = m.ok("search_keyword", args.clone());
        let mut cli_args = vec!["keyword"];
        cli_args.extend_from_slice(flags);
        let cli = p.json(&cli_args);
        assert_eq!(
            keyword_lines(&v),
            keyword_lines(&cli),
            "{args} vs {flags:?}: {v}\n{cli}"
        );
    }
    // And what they find.
    let found = |args: Value| keyword_lines(&m.ok("search_keyword", args));
    let path_lines = |args: Value| -> Vec<(String, u64)> {
        found(args).into_iter().map(|(p, l, _, _)| (p, l)).collect()
    };
    assert_eq!(
        path_lines(json!({"patterns": ["csrf_token", "SECRET"]})),
        [
            ("app/views.py".to_string(), 8),
            ("app/views.py".to_string(), 9),
            ("app/views.py".to_string(), 12),
            ("app/views.py".to_string(), 14)
        ]
    );
    assert_eq!(
        found(json!({"pattern": "def post", "before_context": 2})),
        [("app/views.py".to_string(), 7, vec![5, 6], vec![])]
    );
    let per_file = path_lines(json!({"pattern": "token", "max_count": 1}));
    assert_eq!(
        per_file,
        [
            ("README.md".to_string(), 3),
            ("app/views.py".to_string(), 8)
        ],
        "{per_file:?}"
    );
    assert_eq!(path_lines(json!({"pattern": "needle_"})), []);
    assert_eq!(
        path_lines(json!({"pattern": "needle_", "hidden": true})),
        [(".config/settings.txt".to_string(), 1)]
    );
    assert_eq!(
        path_lines(json!({"pattern": "needle_", "no_ignore": true})),
        [("build/gen.txt".to_string(), 1)]
    );
    assert_eq!(
        path_lines(json!({"pattern": "secret", "smart_case": true})),
        [("app/views.py".to_string(), 14)]
    );
    assert_eq!(
        path_lines(json!({"pattern": "Secret", "smart_case": true})),
        []
    );
    // case_insensitive wins over smart_case, as -i over -S.
    assert_eq!(
        path_lines(json!({"pattern": "Secret", "smart_case": true, "case_insensitive": true})),
        [("app/views.py".to_string(), 14)]
    );

    let cases: &[(Value, &str, &str)] = &[
        (
            json!({"pattern": "x", "patterns": ["y"]}),
            "not both",
            "`patterns`",
        ),
        (
            json!({}),
            "missing required argument `pattern`",
            "`patterns`",
        ),
        (json!({"patterns": []}), "`patterns` is empty", "1 to 10"),
        (
            json!({"patterns": ["TODO", 3]}),
            "`patterns` must hold strings only",
            "[\"TODO\", \"FIXME\"]",
        ),
        (
            json!({"pattern": "x", "max_count": 0}),
            "`max_count` must be between 1 and 500",
            "",
        ),
        (
            json!({"pattern": "x", "before_context": 11}),
            "`before_context` must be between 0 and 10",
            "",
        ),
    ];
    for (args, want_error, want_hint) in cases {
        let (error, hint) = m.tool_error("search_keyword", args.clone());
        assert!(
            error.contains(want_error),
            "{args}: error {error:?} lacks {want_error:?}"
        );
        assert!(
            hint.contains(want_hint),
            "{args}: hint {hint:?} lacks {want_hint:?}"
        );
    }
    let (error, _) = m.tool_error("search", json!({"query": "x", "context": 11}));
    assert!(
        error.contains("`context` must be between 0 and 10"),
        "{error}"
    );
}

fn read_bytes(p: &Project, rel: &str) -> Vec<u8> {
    std::fs::read(p.path(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

#[test]
fn init_merges_mcp_json_and_is_idempotent() {
    let p = sample();
    p.git_init();
    let other = json!({"mcpServers": {"other-server": {"type": "stdio", "command": "other", "args": ["--x"], "env": {"K": "V"}}}, "note": "keep me"});
    p.write(
        ".mcp.json",
        serde_json::to_string_pretty(&other).expect("json"),
    );
    p.write(".gitignore", "target/");

    let r = p.run(&["init"]).ok();
    let out = r.stdout();
    assert!(out.contains("updated   .mcp.json"), "{r}");
    assert!(out.contains("updated   .gitignore"), "{r}");
    assert!(out.contains("created   .repo_search/config.toml"), "{r}");
    assert!(out.contains("indexed 4 files"), "{r}");
    assert!(out.contains("approve the `repo-search` MCP server"), "{r}");

    let mcp: Value =
        serde_json::from_slice(&read_bytes(&p, ".mcp.json")).expect(".mcp.json is JSON");
    assert_eq!(
        mcp["mcpServers"]["other-server"],
        other["mcpServers"]["other-server"]
    );
    assert_eq!(mcp["note"], "keep me");
    // The user's key order survives the merge.
    let text = String::from_utf8_lossy(&read_bytes(&p, ".mcp.json")).to_string();
    let at = |k: &str| text.find(k).unwrap_or(usize::MAX);
    assert!(
        at("\"type\"") < at("\"command\"") && at("\"command\"") < at("\"args\""),
        "key order kept: {text}"
    );
    let exe = std::path::Path::new(BIN)
        .canonicalize()
        .expect("canonical binary path");
    assert_eq!(
        mcp["mcpServers"]["repo-search"],
        json!({"type": "stdio", "command": exe.to_str(), "args": ["mcp"], "env": {}})
    );
    assert_eq!(
        String::from_utf8_lossy(&read_bytes(&p, ".gitignore")),
        "target/\n.repo_search/\n"
    );
    assert_eq!(
        String::from_utf8_lossy(&read_bytes(&p, ".repo_search/config.toml")),
        include_str!("../../templates/config.toml")
    );

    let files = [".mcp.json", ".gitignore", ".repo_search/config.toml"];
    let before: Vec<Vec<u8>> = files.iter().map(|f| read_bytes(&p, f)).collect();
    let v = p.json(&["init"]);
    let changes: Vec<&str> = v["files"]
        .as_array()
        .expect("files")
        .iter()
        .filter_map(|f| f["change"].as_str())
        .collect();
    assert_eq!(changes, ["unchanged", "unchanged", "unchanged"], "{v}");
    let after: Vec<Vec<u8>> = files.iter().map(|f| read_bytes(&p, f)).collect();
    assert_eq!(before, after, "a second init changed a file");

    // The server `.mcp.json` names starts as Claude Code would start it: the
    // command with its args, in the project, with CLAUDE_PROJECT_DIR set.
    let entry = &mcp["mcpServers"]["repo-search"];
    let mut child = std::process::Command::new(entry["command"].as_str().expect("command"))
        .args(
            entry["args"]
                .as_array()
                .expect("args")
                .iter()
                .filter_map(Value::as_str),
        )
        .current_dir(p.root())
        .env("CLAUDE_PROJECT_DIR", p.root())
        .env("REPO_SEARCH_HOME", p.home.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the configured server");
    let mut raw = Raw {
        stdin: child.stdin.take().expect("stdin"),
        stdout: BufReader::new(child.stdout.take().expect("stdout")),
        child,
    };
    let v = raw.request(
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "_meta": modern_meta(), "name": "find_symbol", "arguments": {"name": "LoginView"}}}),
    );
    assert_eq!(
        v["result"]["structuredContent"]["symbols"][0]["path"], "app/views.py",
        "{v}"
    );
}

#[test]
fn init_creates_files_in_a_fresh_project() {
    let p = sample();
    let v = p.json(&["init", "--no-index"]);
    let changes: Vec<(&str, &str)> = v["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap_or(""),
                f["change"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        changes,
        [
            (".mcp.json", "created"),
            (".gitignore", "created"),
            (".repo_search/config.toml", "created")
        ],
        "{v}"
    );
    assert!(v["index"].is_null(), "{v}");
    assert!(!p.path(".repo_search/index.db").exists());
    // Registered all the same (so a running daemon watches it).
    let list = p.json(&["projects"]);
    assert!(
        list.to_string()
            .contains(&serde_json::to_string(&p.root()).unwrap_or_default()),
        "{list}"
    );
    assert_eq!(
        String::from_utf8_lossy(&read_bytes(&p, ".gitignore")),
        ".repo_search/\n"
    );
    p.write(".mcp.json", "{ not json");
    let r = p.run(&["init"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("`.mcp.json` is not valid JSON"), "{r}");
    assert!(r.stderr().contains("hint:"), "{r}");
    assert_eq!(
        String::from_utf8_lossy(&read_bytes(&p, ".mcp.json")),
        "{ not json",
        "a broken .mcp.json is left alone"
    );
}

/// The official Python SDK (`mcp` on PyPI) in both eras, when
/// `scripts/setup-test-deps.sh` has created `.venv-test`.
#[test]
fn mcp_python_sdk_both_eras() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = repo.join(".venv-test/bin/python");
    if !python.exists() {
        // scripts/setup-test-deps.sh fails under CI when it cannot install
        // the SDK, so a missing venv there is a broken setup, not a skip.
        assert!(
            std::env::var_os("CI").is_none_or(|v| v.is_empty()),
            "{} is missing under CI: run scripts/setup-test-deps.sh",
            python.display()
        );
        eprintln!(
            "skipped: {} is missing; run scripts/setup-test-deps.sh (scripts/test.sh does)",
            python.display()
        );
        return;
    }
    let home = tempfile::tempdir().expect("temp home");
    let out = std::process::Command::new(&python)
        .arg(repo.join("scripts/mcp-python-check.py"))
        .arg("--binary")
        .arg(BIN)
        .env("REPO_SEARCH_HOME", home.path())
        .env_remove("CLAUDE_PROJECT_DIR")
        .output()
        .expect("run the Python check");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "Python SDK check failed\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    assert!(stdout.contains(" passed, 0 failed"), "{stdout}");
}

#[test]
fn mcp_own_index_build_computes_fast_vectors() {
    let Some(models) = crate::embed::test_models() else {
        return;
    };
    let p = sample();
    p.write("app/retry.py", RETRY_PY)
        .write(".repo_search/config.toml", "[embed]\nprovider = \"none\"\n");
    // No `repo-search index`: the server builds the index on its own.
    let m = Mcp::start_with_env(
        &p,
        Era::Legacy,
        &[("REPO_SEARCH_MODEL_CACHE", models.as_path())],
    );
    wait_indexed(&m, 5);
    let v = poll_until(Duration::from_secs(30), || {
        let v = m.ok(
            "search_semantic",
            json!({"query": "retry a payment that failed", "detail": true}),
        );
        (v["available"] == true && v["partial"] == false).then_some(v)
    })
    .expect("fast-tier vectors after the server's own index build");
    assert_eq!(
        hit_paths(&v).first().map(String::as_str),
        Some("app/retry.py"),
        "{v}"
    );
}

/// A syntactically broken `.repo_search/config.toml`: the server falls back
/// to the default settings and says why in `index_status`, and every search
/// tool keeps answering (the semantic ones may say they are unavailable,
/// but none fails by re-reading the broken file).
#[test]
fn mcp_broken_config_falls_back_to_defaults_in_every_search_tool() {
    let p = sample();
    // `repo-search index` refuses a broken config: index first, then break it.
    p.run(&["index"]).ok();
    p.write(
        ".repo_search/config.toml",
        "[embed\nprovider = \"fastembed\n",
    );
    assert_eq!(
        p.run(&["status"]).code(),
        2,
        "the CLI rejects the broken config (else this test tests nothing)"
    );
    let m = Mcp::start(&p, Era::Legacy);
    let st = wait_indexed(&m, 4);
    assert!(
        st["config_error"]
            .as_str()
            .is_some_and(|e| e.contains("invalid config") && e.contains("config.toml")),
        "index_status reports the broken config: {st}"
    );
    let calls = [
        ("search", json!({"query": "validate csrf token"})),
        (
            "search",
            json!({"query": "validate csrf token", "mode": "bm25"}),
        ),
        ("search", json!({"query": "LoginView", "mode": "symbol"})),
        ("search_semantic", json!({"query": "check the csrf token"})),
        ("similar_code", json!({"code": CSRF_SNIPPET})),
        ("similar_code", json!({"path": "app/views.py", "line": 13})),
    ];
    for (tool, args) in calls {
        let r = m
            .call(tool, args.clone())
            .unwrap_or_else(|e| panic!("{tool} {args}: JSON-RPC error {e}"));
        assert_ne!(
            r.is_error,
            Some(true),
            "{tool} {args} fails on the broken config instead of using the defaults: {}",
            error_text(&r)
        );
        let v = r
            .structured_content
            .unwrap_or_else(|| panic!("{tool} {args}: no structuredContent"));
        if tool == "search" {
            assert_eq!(
                hit_paths(&v).first().map(String::as_str),
                Some("app/views.py"),
                "{tool} {args}: {v}"
            );
        } else if v["available"] == false {
            assert!(
                v["reason"].as_str().is_some_and(|r| !r.is_empty()),
                "{tool} {args}: unavailable without a reason: {v}"
            );
        }
    }
}

/// A project holding `tests/fixtures/python-corpus` (a small shop in Python).
fn python_corpus() -> Project {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/python-corpus");
    let p = Project::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).expect("read fixture dir") {
            let path = e.expect("fixture entry").path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let rel = path.strip_prefix(&src).expect("inside the fixture");
                p.write(
                    &rel.to_string_lossy(),
                    std::fs::read(&path).expect("read fixture file"),
                );
            }
        }
    }
    p
}

/// The hits a result's text content lists: its `path:start-end` lines.
fn text_hits(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.starts_with(' ') && l.contains(':'))
        .filter(|l| !["more:", "note:", "hint:"].iter().any(|p| l.starts_with(p)))
        .map(|l| l.split("  ").next().unwrap_or_default().to_string())
        .collect()
}

/// Each hit as `path:start-end`, from either shape.
fn struct_hits(v: &Value) -> Vec<String> {
    v["hits"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|h| match hit_span(h) {
                    Some((p, s, e)) => format!("{p}:{s}-{e}"),
                    None => format!("?: {h}"),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Issue: an agent's default `search` answer for 10 hits is at most 2,000
/// characters, as JSON and as text, and both list the same hits; `detail`
/// gives the full hits (scores, ranks, snippets, index block) in the same
/// order.
#[test]
fn mcp_default_search_answers_are_compact_and_detail_is_full() {
    let p = python_corpus();
    let m = Mcp::start(&p, Era::Legacy);
    wait_indexed(&m, 7);
    let queries = [
        "add a product to the cart",
        "cancel an order and record the reason",
        "money in different currencies cannot be added",
        "emit an event to its subscribers",
        "total price with tax for a country",
        "Cart",
        "OrderStatus.is_final",
        "\"DEFAULT_CURRENCY\"",
    ];
    for q in queries {
        let r = m.call("search", json!({"query": q})).expect("search");
        assert_ne!(r.is_error, Some(true), "{q}: {}", error_text(&r));
        let v = r.structured_content.clone().expect("structuredContent");
        let text = error_text(&r);
        let json_size = v.to_string().len();
        assert!(
            json_size <= 2000,
            "{q}: JSON is {json_size} characters: {v}"
        );
        assert!(
            text.len() <= 2000,
            "{q}: text is {} characters:\n{text}",
            text.len()
        );
        let hits = v["hits"].as_array().cloned().unwrap_or_default();
        // One hit per file (their further places as `also`): the corpus
        // has 7 files.
        assert!(hits.len() >= 3, "{q}: {v}");
        assert_eq!(
            text_hits(&text),
            struct_hits(&v),
            "{q}: text vs JSON:\n{text}\n{v}"
        );
        // Hybrid shows each file once; its further places are `also`
        // (`start-end name`), in the text as an `also:` line under the hit.
        let paths: Vec<String> = hits
            .iter()
            .filter_map(|h| hit_span(h).map(|(p, _, _)| p))
            .collect();
        let distinct: std::collections::HashSet<&String> = paths.iter().collect();
        assert_eq!(distinct.len(), paths.len(), "{q}: a file twice: {v}");
        for h in &hits {
            let also: Vec<&str> = h["also"]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            assert!(also.len() <= 3, "{q}: {h}");
            for a in &also {
                let span = a.split(' ').next().unwrap_or_default();
                let ok = span
                    .split_once('-')
                    .is_some_and(|(s, e)| s.parse::<u32>().is_ok() && e.parse::<u32>().is_ok());
                assert!(ok, "{q}: also {a:?} is not `start-end name`");
            }
            if !also.is_empty() {
                let line = format!("  also: {}", also.join("; "));
                assert!(text.contains(&line), "{q}: {line:?} not in\n{text}");
            }
        }
        if q == "add a product to the cart" {
            assert!(
                hits.iter().any(|h| h["also"].is_array()),
                "{q}: no also: {v}"
            );
        }
        for h in &hits {
            let lines = h["lines"].as_array().cloned().unwrap_or_default();
            assert!((1..=3).contains(&lines.len()), "{q}: {h}");
            for l in &lines {
                let l = l.as_str().unwrap_or_default();
                let (n, body) = l
                    .split_once(": ")
                    .unwrap_or_else(|| panic!("{q}: line {l:?}"));
                let n: u64 = n
                    .parse()
                    .unwrap_or_else(|_| panic!("{q}: line number in {l:?}"));
                let (_, start, end) =
                    hit_span(h).unwrap_or_else(|| panic!("{q}: no path:start-end: {h}"));
                assert!(start <= n && n <= end, "{q}: line {n} outside its hit: {h}");
                assert!(body.chars().count() <= 161, "{q}: {l}");
                // Each line is shown in the text too, under its hit.
                assert!(
                    text.contains(&format!("  {l}")),
                    "{q}: {l:?} not in\n{text}"
                );
            }
            assert!(
                !h["arms"].as_str().unwrap_or_default().is_empty(),
                "{q}: {h}"
            );
            for absent in [
                "path",
                "score",
                "snippet",
                "snippet_line",
                "sources",
                "file_symbols",
            ] {
                assert!(h.get(absent).is_none(), "{q}: {absent} in {h}");
            }
        }
        for absent in [
            "query",
            "mode",
            "offset",
            "truncated",
            "index",
            "query_interpretation",
        ] {
            assert!(v.get(absent).is_none(), "{q}: {absent} in {v}");
        }

        let d = m.ok("search", json!({"query": q, "detail": true}));
        assert_eq!(struct_hits(&d), struct_hits(&v), "{q}: detail ranks alike");
        for field in [
            "query",
            "mode",
            "offset",
            "truncated",
            "index",
            "query_interpretation",
        ] {
            assert!(d.get(field).is_some(), "{q}: detail lacks {field}: {d}");
        }
        for h in d["hits"].as_array().into_iter().flatten() {
            for field in ["score", "snippet_line", "snippet", "sources"] {
                assert!(h.get(field).is_some(), "{q}: detail hit lacks {field}: {h}");
            }
        }
    }

    // The best lines are those with the query's words, not the chunk's first.
    let v = m.ok("search", json!({"query": "DEFAULT_CURRENCY"}));
    let first = v["hits"][0]["lines"].to_string();
    assert!(first.contains("DEFAULT_CURRENCY"), "{v}");

    // Paging: `next_offset` in JSON, `more: offset=N` in text.
    let r = m
        .call("search", json!({"query": "cart total", "limit": 3}))
        .expect("search");
    let v = r.structured_content.clone().expect("structuredContent");
    assert_eq!(v["next_offset"], 3, "{v}");
    assert!(
        error_text(&r).contains("\nmore: offset=3"),
        "{}",
        error_text(&r)
    );
    let next = m.ok(
        "search",
        json!({"query": "cart total", "limit": 3, "offset": 3}),
    );
    let all = m.ok("search", json!({"query": "cart total", "limit": 6}));
    let mut paged = struct_hits(&v);
    paged.extend(struct_hits(&next));
    assert_eq!(paged, struct_hits(&all));

    // The other list tools: compact text lines for the same results.
    let r = m
        .call("find_symbol", json!({"name": "total"}))
        .expect("find_symbol");
    let v = r.structured_content.clone().expect("structuredContent");
    let text = error_text(&r);
    for s in v["symbols"].as_array().into_iter().flatten() {
        let at = format!(
            "{}:{}-{}",
            s["path"].as_str().unwrap_or("?"),
            s["start_line"],
            s["end_line"]
        );
        assert!(text.contains(&at), "{at} not in\n{text}");
    }
    let r = m
        .call("list_defs_in_file", json!({"path": "shop/models.py"}))
        .expect("list_defs_in_file");
    assert!(error_text(&r).contains("class Cart"), "{}", error_text(&r));
    let r = m
        .call("find_references", json!({"name": "Money"}))
        .expect("find_references");
    assert!(
        error_text(&r).contains("shop/money.py:"),
        "{}",
        error_text(&r)
    );
}

/// `find_symbol` leaves out the names that only start with the one found,
/// as the CLI's `symbol` does, and says how many in its hint.
#[test]
fn find_symbol_counts_the_prefix_tail_it_leaves_out() {
    let p = Project::new();
    p.write(
        "echo.go",
        "package echo\n\nfunc New() {}\n\nfunc NewRouter() {}\n\nfunc newNode() {}\n",
    );
    let m = Mcp::start(&p, Era::Modern);
    wait_indexed(&m, 1);
    let v = m.lookup("find_symbol", json!({"name": "New"}));
    assert_eq!(v["total"], 1, "{v}");
    assert!(
        v["hint"].as_str().is_some_and(
            |h| h.contains("2 more names start with `New`: call again with match: \"prefix\"")
        ),
        "{v}"
    );
    let v = m.lookup("find_symbol", json!({"name": "New", "match": "prefix"}));
    assert_eq!(v["total"], 3, "{v}");
}
