//! Semantic search stays on the full model after an edit (the MCP server's
//! background runs and `repo-search index` embed an edit's few chunks with
//! it), and the first `index` fetches missing models itself (from a real
//! local HTTP server speaking the model hub's protocol), unless offline.
//!
//! Needs the real weights (see `embed::test_models`); skipped without them.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::common::{Project, Run, arm_report, poll_until};
use crate::embed::test_models;
use crate::mcp::{Era, Mcp, wait_indexed};

const MINILM: &str = "sentence-transformers/all-MiniLM-L6-v2";

const RETRY_PY: &str = "def retry_failed_payment(payment, attempts=3):\n    \"\"\"Charge the card again after a failure.\"\"\"\n    for _ in range(attempts):\n        if payment.charge():\n            return True\n    return False\n";
const MATH_PY: &str =
    "def add_numbers(a, b):\n    \"\"\"Return the sum of two numbers.\"\"\"\n    return a + b\n";
const VIEWS_PY: &str = "def validate_csrf_token(token):\n    \"\"\"Check that the CSRF token is valid.\"\"\"\n    return token == SECRET\n";
const THUMBS_PY: &str = "def shrink_uploaded_photos(images):\n    \"\"\"Resize uploaded pictures into small preview thumbnails.\"\"\"\n    return [img.resize((64, 64)) for img in images]\n";
const THUMBS_QUERY: &str = "make small preview thumbnails of uploaded pictures";

fn project() -> Project {
    let p = Project::new();
    p.write("app/retry.py", RETRY_PY)
        .write("app/math.py", MATH_PY)
        .write("app/views.py", VIEWS_PY);
    p
}

fn json_of(r: &Run) -> Value {
    assert!(r.code() <= 1, "{r}");
    serde_json::from_str(&r.stdout()).unwrap_or_else(|e| panic!("bad JSON: {e}\n{r}"))
}

fn full_tier(index_json: &Value) -> Value {
    index_json["embed"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["tier"] == "full"))
        .cloned()
        .unwrap_or_default()
}

/// [`project`] indexed with both tiers, complete (a small tree: the full
/// tier runs in the foreground), and the models' directory; `None` without
/// the test weights.
fn indexed_with_both_tiers() -> Option<(Project, PathBuf)> {
    let models = test_models()?;
    let p = project();
    let env = [("REPO_SEARCH_MODEL_CACHE", models.as_os_str())];
    let s = json_of(&p.run_env(&["index", "--json"], &env));
    let full = full_tier(&s);
    assert_eq!(full["with_vectors"], full["total_chunks"], "{s}");
    Some((p, models))
}

#[test]
fn after_an_edit_mcp_semantic_answers_stay_on_the_full_model() {
    let Some((p, models)) = indexed_with_both_tiers() else {
        return;
    };
    let m = Mcp::start_with_env(
        &p,
        Era::Legacy,
        &[("REPO_SEARCH_MODEL_CACHE", models.as_path())],
    );
    wait_indexed(&m, 3);
    let v = m.ok(
        "search_semantic",
        json!({"query": "retry a payment that failed", "detail": true}),
    );
    assert_eq!(v["model"], MINILM, "{v}");
    assert_eq!(v["partial"], false, "{v}");
    assert_eq!(v["blended_with"], crate::common::FAST_MODEL, "{v}");

    // The agent edits: a new function in a new file and an edited one.
    p.write("app/thumbs.py", THUMBS_PY);
    p.write(
        "app/math.py",
        format!("{MATH_PY}\n\ndef multiply_numbers(a, b):\n    \"\"\"Return the product.\"\"\"\n    return a * b\n"),
    );
    // Every answer from now on comes from the full model, and within
    // seconds it finds the edited text.
    let mut last = Value::Null;
    let found = poll_until(Duration::from_secs(30), || {
        let v = m.ok(
            "search_semantic",
            json!({"query": THUMBS_QUERY, "detail": true}),
        );
        assert_eq!(v["available"], true, "{v}");
        assert_eq!(v["model"], MINILM, "fell back to another model: {v}");
        assert_eq!(v["tier"], "full", "{v}");
        let h = m.ok("search", json!({"query": THUMBS_QUERY, "detail": true}));
        assert_eq!(
            h["semantic_model"], MINILM,
            "hybrid lost its full-tier arm: {h}"
        );
        let hit = v["hits"][0]["path"] == "app/thumbs.py" && v["partial"] == false;
        last = v;
        hit.then_some(())
    });
    assert!(
        found.is_some(),
        "the edited text never got full-model vectors: {last}\n{}",
        std::fs::read_to_string(p.home.path().join("mcp-stderr.log")).unwrap_or_default()
    );
    // The default (compact) answer names the model too.
    let c = m.ok("search_semantic", json!({"query": THUMBS_QUERY}));
    assert_eq!(c["model"], MINILM, "{c}");
    // The edited file too, and `index_status` says the full tier is complete.
    let v = m.ok(
        "search_semantic",
        json!({"query": "multiply two numbers", "limit": 3, "detail": true}),
    );
    assert_eq!(v["model"], MINILM, "{v}");
    let st = m.ok("index_status", json!({}));
    let tiers = st["embeddings"].as_array().cloned().unwrap_or_default();
    assert!(
        tiers
            .iter()
            .any(|t| t["tier"] == "full" && t["embedded"] == t["total"]),
        "{st}"
    );
}

#[test]
fn after_an_edit_cli_index_keeps_semantic_search_on_the_full_model() {
    let Some(models) = test_models() else { return };
    let p = project();
    let env = [("REPO_SEARCH_MODEL_CACHE", models.as_os_str())];
    json_of(&p.run_env(&["index", "--json"], &env));
    p.write("app/thumbs.py", THUMBS_PY);
    let s = json_of(&p.run_env(&["index", "--json"], &env));
    let full = full_tier(&s);
    assert!(full["embedded"].as_u64() >= Some(1), "{s}");
    assert_eq!(full["with_vectors"], full["total_chunks"], "{s}");
    let v = json_of(&p.run_env(
        &["search", "--mode", "semantic", "--json", THUMBS_QUERY],
        &env,
    ));
    assert_eq!(v["model"], MINILM, "{v}");
    assert_eq!(v["partial"], false, "{v}");
    assert_eq!(v["hits"][0]["path"], "app/thumbs.py", "{v}");
    // An edit `index` has not seen yet: the full model still answers (the
    // few chunks it lacks are left out until the next run), and says so.
    p.write("app/mail.py", "def send_welcome_email(user):\n    \"\"\"Email a new user a greeting.\"\"\"\n    return mailer.send(user.email)\n");
    let r = p.run_env(&["index", "--no-embed", "--json"], &env);
    assert_eq!(r.code(), 0, "{r}");
    let v = json_of(&p.run_env(
        &["search", "--mode", "semantic", "--json", THUMBS_QUERY],
        &env,
    ));
    assert_eq!(v["model"], MINILM, "{v}");
    assert_eq!(v["partial"], true, "{v}");
    assert!(
        v["embedded"].as_u64() < v["total"].as_u64(),
        "embedded/total say what is missing: {v}"
    );
}

#[test]
fn full_tier_hybrid_questions_keep_the_word_pair_and_synonym_arms() {
    let Some((p, models)) = indexed_with_both_tiers() else {
        return;
    };
    let env = [("REPO_SEARCH_MODEL_CACHE", models.as_os_str())];
    // "verify" is `validate` in the thesaurus; "csrf token" is a word pair
    // of `validate_csrf_token`.
    let v = json_of(&p.run_env(&["search", "--json", "verify the csrf token"], &env));
    assert_eq!(v["semantic_model"], MINILM, "{v}");
    for name in ["synonym", "phrase"] {
        assert!(
            arm_report(&v, name)["candidates"].as_u64().unwrap_or(0) > 0,
            "{name}: {v}"
        );
    }
    assert_eq!(v["hits"][0]["path"], "app/views.py", "{v}");
    assert!(crate::common::found_by(&v["hits"][0], "synonym"), "{v}");
}

/// A local server with the model hub's download protocol (`GET
/// /{repo}/resolve/{revision}/{file}` with a `Range`, answered with the
/// `etag`, `x-repo-commit` and `content-range` headers the client needs),
/// serving the test weights.
struct Hub {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl Hub {
    fn start(models: PathBuf) -> Hub {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
        let port = listener.local_addr().expect("addr").port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let (seen2, stop2) = (Arc::clone(&seen), Arc::clone(&stop));
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stop2.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (models, seen) = (models.clone(), Arc::clone(&seen2));
                std::thread::spawn(move || {
                    let _ = serve(conn, &models, &seen);
                });
            }
        });
        Hub { port, seen, stop }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().expect("lock").clone()
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn serve(conn: TcpStream, models: &Path, seen: &Mutex<Vec<String>>) -> std::io::Result<()> {
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
    let mut range_start = 0u64;
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':')
            && k.eq_ignore_ascii_case("range")
        {
            let v = v.trim().trim_start_matches("bytes=");
            range_start = v
                .split('-')
                .next()
                .and_then(|s| s.parse().ok())
                .unwrap_or(0);
        }
    }
    seen.lock().expect("lock").push(path.clone());
    let mut out = conn;
    // /{owner}/{name}/resolve/{revision}/{file...}
    let parts: Vec<&str> = path.trim_start_matches('/').splitn(5, '/').collect();
    let file = match parts.as_slice() {
        [_, name, "resolve", _, file] => Some(models.join(name).join(file)),
        _ => None,
    };
    let bytes = file.and_then(|f| std::fs::read(f).ok());
    let Some(bytes) = bytes else {
        return out.write_all(
            b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
        );
    };
    let size = bytes.len() as u64;
    let start = range_start.min(size);
    let body = &bytes[start as usize..];
    let etag: String = path
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let head = format!(
        "HTTP/1.1 206 Partial Content\r\nContent-Length: {}\r\nContent-Range: bytes {start}-{}/{size}\r\nETag: \"{etag}\"\r\nX-Repo-Commit: 0123456789abcdef\r\nConnection: close\r\n\r\n",
        body.len(),
        size.saturating_sub(1)
    );
    out.write_all(head.as_bytes())?;
    out.write_all(body)
}

#[test]
fn the_first_index_fetches_missing_models_unless_offline() {
    let Some(models) = test_models() else { return };
    let hub = Hub::start(models);
    let p = project();
    let cache = tempfile::tempdir().expect("cache");
    let run = |args: &[&str], offline_env: bool| -> Run {
        let mut c = p.cmd(args);
        c.env("REPO_SEARCH_MODEL_CACHE", cache.path())
            .env("HF_ENDPOINT", hub.url())
            .env_remove("HF_HUB_OFFLINE")
            .env_remove("REPO_SEARCH_OFFLINE");
        if offline_env {
            c.env("REPO_SEARCH_OFFLINE", "1");
        }
        let out = c.output().expect("run repo-search");
        Run {
            args: args.iter().map(|s| s.to_string()).collect(),
            out,
        }
    };
    let cached = |dir: &str| cache.path().join(dir).join("model.safetensors").is_file();

    // Offline (the flag, then the environment): nothing is fetched, and the
    // note says semantic search is off and how to turn it on.
    for (args, env) in [(&["index", "--offline"][..], false), (&["index"][..], true)] {
        let r = run(args, env);
        assert_eq!(r.code(), 0, "{r}");
        assert!(r.stderr().contains("not downloading"), "{r}");
        assert!(r.stderr().contains("semantic search is off"), "{r}");
        assert!(r.stderr().contains("repo-search model fetch"), "{r}");
        assert!(hub.seen().is_empty(), "offline fetched: {:?}", hub.seen());
        assert!(!cached("all-MiniLM-L6-v2") && !cached("potion-base-8M"));
    }

    // Online: `index` fetches both models from the server, says from where
    // and how large, and ends with both tiers complete.
    let r = run(&["index"], false);
    assert_eq!(r.code(), 0, "{r}");
    assert!(
        cached("all-MiniLM-L6-v2") && cached("potion-base-8M"),
        "{r}"
    );
    let err = r.stderr();
    assert!(
        err.contains(&format!("downloading {MINILM}")) && err.contains(&hub.url()),
        "{r}"
    );
    assert!(err.contains("MiB"), "the size is shown: {r}");
    assert!(
        hub.seen().iter().any(|s| s.ends_with(
            "all-MiniLM-L6-v2/resolve/c9745ed1d9f207416be6d2e6f8de32d1f16199bf/model.safetensors"
        )),
        "{:?}",
        hub.seen()
    );
    assert!(
        r.stdout().contains(&format!("with {MINILM} (full)")),
        "both tiers in the foreground: {r}"
    );
    let v = json_of(&run(
        &[
            "search",
            "--mode",
            "semantic",
            "--json",
            "retry a payment that failed",
        ],
        false,
    ));
    assert_eq!(v["model"], MINILM, "{v}");
    assert_eq!(v["partial"], false, "{v}");
    assert_eq!(v["hits"][0]["path"], "app/retry.py", "{v}");

    // Cached now: the next `index` fetches nothing.
    let n = hub.seen().len();
    run(&["index"], false).ok();
    assert_eq!(hub.seen().len(), n);
}
