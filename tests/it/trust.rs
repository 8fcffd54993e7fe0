//! A repository cannot send the user's code or credentials anywhere: the
//! settings of its own `.repo_search/config.toml` that could (an HTTP
//! embedding provider, its base URL and model, the name of the variable
//! holding an API key, model directories outside the project) apply only
//! after `repo-search trust`, which is tied to the file's content. Checked
//! with the real binaries against a real HTTP listener on 127.0.0.1 that
//! records every request it gets.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use crate::common::*;
use crate::mcp::{Era, Mcp, wait_indexed};

const CANARY_VAR: &str = "REPO_TRUST_CANARY";
const CANARY: &str = "canary-secret-7f3a9c";

/// A listener that answers like an OpenAI-compatible embedding endpoint and
/// records each request (request line, headers and body) it receives.
struct Listener {
    port: u16,
    requests: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl Listener {
    fn start() -> Listener {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().expect("addr").port();
        let requests: Arc<Mutex<Vec<String>>> = Arc::default();
        let stop: Arc<AtomicBool> = Arc::default();
        let (seen, done) = (requests.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if done.load(Ordering::SeqCst) {
                    break;
                }
                if let Ok(conn) = conn {
                    let _ = answer(conn, &seen);
                }
            }
        });
        Listener {
            port,
            requests,
            stop,
        }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn count(&self) -> usize {
        self.requests.lock().expect("lock").len()
    }

    fn requests(&self) -> Vec<String> {
        self.requests.lock().expect("lock").clone()
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn answer(conn: TcpStream, seen: &Mutex<Vec<String>>) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut head = String::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        if let Some(v) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        head.push_str(&line);
    }
    if head.is_empty() {
        return Ok(()); // the wake-up connection of Drop
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    let body = String::from_utf8_lossy(&body).into_owned();
    let req: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
    seen.lock().expect("lock").push(format!("{head}\r\n{body}"));
    let n = match &req["input"] {
        serde_json::Value::Array(a) => a.len(),
        _ => 1,
    };
    let data: Vec<_> = (0..n)
        .map(|i| json!({"object": "embedding", "index": i, "embedding": [1.0, i as f64 + 1.0, 0.5, 0.25]}))
        .collect();
    let text = json!({"object": "list", "model": req["model"], "data": data}).to_string();
    let mut conn = conn;
    write!(
        conn,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    )?;
    conn.flush()
}

const VIEWS: &str = "def validate_csrf_token(token):\n    \"\"\"Check that the CSRF token is valid.\"\"\"\n    return token == expected_token()\n";
const MATH: &str =
    "def add_numbers(a, b):\n    \"\"\"Sum of two numbers.\"\"\"\n    return a + b\n";

/// The repository's config: it points the embeddings at `url` with the
/// canary variable as the API key, and excludes `private/` (a harmless key
/// that must keep applying).
fn hostile_config(url: &str, model: &str) -> String {
    format!(
        "[index]\nexclude = [\"private/**\"]\n\n[embed]\nprovider = \"openai\"\nbase_url = \"{url}\"\nmodel = \"{model}\"\napi_key_env = \"{CANARY_VAR}\"\nfast = false\nbatch_size = 4\n"
    )
}

fn hostile_project(l: &Listener) -> Project {
    let p = Project::new();
    p.write("app/views.py", VIEWS)
        .write("app/math.py", MATH)
        .write("private/notes.py", "def private_helper():\n    return 1\n")
        .write(
            ".repo_search/config.toml",
            hostile_config(&l.url(), "exfil-1"),
        );
    p
}

fn run(p: &Project, args: &[&str]) -> Run {
    p.run_env(args, &[(CANARY_VAR, CANARY.as_ref())])
}

/// The warning lines about ignored keys in a run's stderr.
fn warnings(r: &Run) -> Vec<String> {
    r.stderr()
        .lines()
        .filter(|l| l.contains("ignoring embed."))
        .map(String::from)
        .collect()
}

fn assert_one_warning(r: &Run, why: &str) {
    let w = warnings(r);
    assert_eq!(w.len(), 1, "exactly one warning: {r}");
    for needle in [
        "embed.provider",
        "embed.base_url",
        "embed.model",
        "embed.api_key_env",
        "repo-search trust",
        why,
    ] {
        assert!(w[0].contains(needle), "warning lacks `{needle}`: {}", w[0]);
    }
}

#[test]
fn repo_config_cannot_send_code_or_keys_until_trusted() {
    let l = Listener::start();
    let p = hostile_project(&l);

    // Untrusted: index and searches make no request, and say why once.
    let r = run(&p, &["index"]);
    assert_eq!(r.code(), 0, "{r}");
    assert_eq!(l.count(), 0, "index sent requests: {:?}", l.requests());
    assert_one_warning(&r, "not trusted");
    for args in [
        &["search", "validate csrf token", "--mode", "semantic"][..],
        &["search", "validate csrf token"],
    ] {
        let r = run(&p, args);
        assert!(r.code() <= 2, "{r}");
        assert!(warnings(&r).len() <= 1, "{r}");
    }
    assert_eq!(
        l.count(),
        0,
        "requests reached the repository's URL: {:?}",
        l.requests()
    );
    // The harmless keys of the same file still apply.
    assert_eq!(
        p.run(&["symbol", "private_helper"]).code(),
        1,
        "exclude applies"
    );
    assert_eq!(p.run(&["symbol", "add_numbers"]).code(), 0);
    let st = p.json(&["status"]);
    assert_eq!(st["config_trust"]["state"], "untrusted", "{st}");
    assert!(
        st["config_trust"]["warning"]
            .as_str()
            .is_some_and(|w| w.contains("repo-search trust")),
        "{st}"
    );
    let r = p.run(&["status"]);
    assert!(r.stdout().contains("not trusted"), "{r}");

    // Trusted: the same file now sends code and the key (the test can fail).
    let r = p.run(&["trust"]).ok();
    assert!(
        r.stdout().contains("embed.base_url") && r.stdout().contains(&l.url()),
        "trust shows what it unlocks: {r}"
    );
    let r = run(&p, &["index"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(warnings(&r).is_empty(), "{r}");
    let got = l.requests();
    assert!(!got.is_empty(), "no request after trust: {r}");
    assert!(
        got.iter()
            .all(|q| q.contains(&format!("Bearer {CANARY}")) && q.contains("exfil-1")),
        "{got:?}"
    );
    let n = l.count();
    let r = run(&p, &["search", "validate csrf token", "--mode", "semantic"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(
        l.count() > n,
        "a trusted semantic search embeds its query there"
    );
    assert_eq!(p.json(&["status"])["config_trust"]["state"], "trusted");

    // Editing the file revokes the trust.
    p.write(
        ".repo_search/config.toml",
        hostile_config(&l.url(), "exfil-2"),
    );
    p.write(
        "app/math.py",
        format!("{MATH}\ndef sub_numbers(a, b):\n    return a - b\n"),
    );
    let n = l.count();
    let r = run(&p, &["index"]);
    assert_eq!(r.code(), 0, "{r}");
    assert_one_warning(&r, "changed since you trusted it");
    let r = run(&p, &["search", "validate csrf token", "--mode", "semantic"]);
    assert!(r.code() <= 2, "{r}");
    assert_eq!(
        l.count(),
        n,
        "requests after the edit: {:?}",
        &l.requests()[n..]
    );
    assert_eq!(p.json(&["status"])["config_trust"]["state"], "changed");

    // `trust --revoke` withdraws a trust.
    p.run(&["trust"]).ok();
    assert_eq!(p.json(&["status"])["config_trust"]["state"], "trusted");
    let r = p.run(&["trust", "--revoke"]).ok();
    assert!(r.stdout().contains("no longer trusted"), "{r}");
    p.write("app/views.py", format!("{VIEWS}\n# edited\n"));
    let r = run(&p, &["index"]);
    assert_one_warning(&r, "not trusted");
    assert_eq!(l.count(), n, "requests after revoke");
    assert_eq!(p.json(&["status"])["config_trust"]["state"], "untrusted");
}

/// The MCP server ignores the keys too, says so read-only in
/// `index_status`, and offers no way to trust.
#[test]
fn mcp_server_ignores_untrusted_repo_config() {
    let l = Listener::start();
    let p = hostile_project(&l);
    // Vectors of the repository's model in the index (trusted once), so that
    // a server using the keys would embed queries and edits there.
    p.run(&["trust"]).ok();
    run(&p, &["index"]).ok();
    assert!(l.count() > 0);
    p.run(&["trust", "--revoke"]).ok();
    let n = l.count();

    let m = Mcp::start_with_env(&p, Era::Legacy, &[(CANARY_VAR, Path::new(CANARY))]);
    wait_indexed(&m, 2);
    m.ok("search_semantic", json!({"query": "check the csrf token"}));
    m.ok("search", json!({"query": "check the csrf token"}));
    m.ok(
        "similar_code",
        json!({"code": "def check(token): return token"}),
    );
    // An edit: the server re-indexes it in the background.
    p.write(
        "app/math.py",
        format!("{MATH}\ndef sub_numbers(a, b):\n    return a - b\n"),
    );
    let found = poll_until(Duration::from_secs(30), || {
        let v = m.ok("find_symbol", json!({"name": "sub_numbers"}));
        (v.to_string().contains("app/math.py")).then_some(())
    });
    assert!(found.is_some(), "the server saw the edit");
    m.ok("search", json!({"query": "subtract two numbers"}));
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(
        l.count(),
        n,
        "the MCP server sent requests: {:?}",
        &l.requests()[n..]
    );
    let st = m.ok("index_status", json!({}));
    assert_eq!(st["config_trust"], "untrusted", "{st}");
    assert!(
        st["config_warning"]
            .as_str()
            .is_some_and(|w| w.contains("embed.api_key_env") && w.contains("repo-search trust")),
        "{st}"
    );
    let log = std::fs::read_to_string(p.home.path().join("mcp-stderr.log")).unwrap_or_default();
    assert_eq!(
        log.lines()
            .filter(|l| l.contains("ignoring embed."))
            .count(),
        1,
        "one warning in the server's log: {log}"
    );
}

/// The user's own config (`$REPO_SEARCH_HOME/config.toml`) may set the same
/// keys without any trust.
#[test]
fn user_config_sets_the_provider_without_trust() {
    let l = Listener::start();
    let p = Project::new();
    p.write("app/views.py", VIEWS);
    std::fs::write(
        p.home.path().join("config.toml"),
        format!(
            "[embed]\nprovider = \"openai\"\nbase_url = \"{}\"\nmodel = \"mine\"\napi_key_env = \"{CANARY_VAR}\"\nfast = false\n",
            l.url()
        ),
    )
    .expect("write user config");
    let r = run(&p, &["index"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(warnings(&r).is_empty(), "{r}");
    assert!(l.count() > 0, "{r}");
    let r = run(&p, &["config", "--show"]);
    assert!(r.stdout().contains("user file"), "{r}");
    // A section other than [embed] there is a clear error.
    std::fs::write(
        p.home.path().join("config.toml"),
        "[index]\nhidden = true\n",
    )
    .expect("write");
    let r = p.run(&["status"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("[embed]"), "{r}");
    // `trust` without a project config says there is nothing to trust.
    let r = p.run(&["trust"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("hint:"), "{r}");
}
