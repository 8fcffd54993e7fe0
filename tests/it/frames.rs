//! Faulty JSON-RPC frames sent to the real `repo-search mcp` over its stdio
//! pipes: each gets the error answer JSON-RPC 2.0 prescribes (code and id),
//! a notification gets none, and the server goes on answering. Also
//! `--max-results` / `max_results` against the real `rg` on a real tree.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::*;

/// How long one answer may take.
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// A `repo-search mcp` fed raw bytes; its stdout read on a thread, so a
/// missing answer fails the test after a while instead of hanging it.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl Server {
    fn start(p: &Project) -> Server {
        let mut child = p
            .cmd(&["mcp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn repo-search mcp");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            stdin,
            lines,
        }
    }

    fn stdin(&mut self) -> &mut ChildStdin {
        self.stdin.as_mut().expect("stdin open")
    }

    fn write(&mut self, bytes: &[u8]) {
        let stdin = self.stdin();
        stdin.write_all(bytes).expect("write to server");
        stdin.write_all(b"\n").expect("write to server");
        stdin.flush().expect("flush");
    }

    /// The next line on stdout, parsed; every line must be JSON.
    fn next(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(ANSWER_WITHIN)
            .expect("an answer in time (the server stopped answering)");
        serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line:?}"))
    }

    /// Every message on stdout up to and including the answer with `id`.
    fn until_id(&self, id: &Value) -> Vec<Value> {
        let mut seen = Vec::new();
        loop {
            let v = self.next();
            let done = v.get("id") == Some(id);
            seen.push(v);
            if done {
                return seen;
            }
        }
    }

    fn initialize(&mut self) {
        self.write(
            json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "frames-test", "version": "1.0.0"}}})
            .to_string()
            .as_bytes(),
        );
        let answers = self.until_id(&json!("init"));
        let init = answers.last().expect("initialize answered");
        assert_eq!(
            init["result"]["serverInfo"]["name"], "repo-search",
            "{init}"
        );
        self.write(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().map(|s| s.is_none()).unwrap_or(false)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn project() -> Project {
    let p = Project::new();
    p.write("src/lib.rs", "pub fn parse_config() {}\n// needle one\n")
        .write("src/other.rs", "// needle two\nfn helper() {}\n");
    p
}

/// What a faulty frame must get: an error with this code and id, or nothing.
enum Expect {
    Error(i64, Value),
    Nothing,
    /// A batch: an array of errors with these ids.
    Batch(Vec<Value>),
    /// A tool result with `isError: true` for this id (bad tool arguments
    /// are the tool's to report).
    ToolError(Value),
}

fn nested(depth: usize) -> String {
    let mut s = String::from(
        r#"{"jsonrpc":"2.0","id":40,"method":"tools/call","params":{"name":"search_keyword","arguments":{"pattern":"#,
    );
    s.push_str(&"[".repeat(depth));
    s.push_str(&"]".repeat(depth));
    s.push_str("}}}");
    s
}

#[test]
fn mcp_every_faulty_frame_gets_its_answer_and_the_next_request_too() {
    let p = project();
    let mut server = Server::start(&p);

    // Before the session: notifications, responses and garbage must not end
    // it (rmcp alone exits on a notification before `initialize`).
    server.write(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    server.write(br#"{"jsonrpc":"2.0","id":77,"result":{}}"#);
    server.write(b"{oops");
    let answers = server.until_id(&Value::Null);
    assert_eq!(answers.len(), 1, "{answers:?}");
    assert_eq!(answers[0]["error"]["code"], -32700, "{answers:?}");
    server.initialize();

    let mut invalid_utf8 =
        br#"{"jsonrpc":"2.0","id":30,"method":"tools/call","params":{"name":"search_keyword","arguments":{"pattern":"ab"#.to_vec();
    invalid_utf8.extend_from_slice(b"\xff\xfe\"}}}");
    let mut huge = br#"{"jsonrpc":"2.0","id":31,"method":"tools/call","params":{"name":"search_keyword","arguments":{"pattern":""#.to_vec();
    huge.extend(std::iter::repeat_n(b'a', 10 << 20));
    huge.extend_from_slice(b"\"}}}");

    let cases: Vec<(&str, Vec<u8>, Expect)> = vec![
        ("invalid JSON", b"{\"jsonrpc\":\"2.0\",\"id\":1,".to_vec(), Expect::Error(-32700, Value::Null)),
        ("not JSON at all", b"hello".to_vec(), Expect::Error(-32700, Value::Null)),
        (
            "trailing garbage",
            br#"{"jsonrpc":"2.0","id":2,"method":"ping"} garbage"#.to_vec(),
            Expect::Error(-32700, Value::Null),
        ),
        (
            "two objects on one line",
            br#"{"jsonrpc":"2.0","id":3,"method":"ping"}{"jsonrpc":"2.0","id":4,"method":"ping"}"#.to_vec(),
            Expect::Error(-32700, Value::Null),
        ),
        ("invalid UTF-8 in a string", invalid_utf8, Expect::Error(-32700, Value::Null)),
        ("nesting 200 deep", nested(200).into_bytes(), Expect::Error(-32700, Value::Null)),
        ("nesting 100,000 deep", nested(100_000).into_bytes(), Expect::Error(-32700, Value::Null)),
        ("a 10 MB line", huge, Expect::Error(-32600, Value::Null)),
        (
            "wrong jsonrpc version",
            br#"{"jsonrpc":"1.0","id":5,"method":"tools/list"}"#.to_vec(),
            Expect::Error(-32600, json!(5)),
        ),
        (
            "no jsonrpc member",
            br#"{"id":"six","method":"tools/list"}"#.to_vec(),
            Expect::Error(-32600, json!("six")),
        ),
        (
            "method not a string",
            br#"{"jsonrpc":"2.0","id":7,"method":7}"#.to_vec(),
            Expect::Error(-32600, json!(7)),
        ),
        (
            "no method",
            br#"{"jsonrpc":"2.0","id":8}"#.to_vec(),
            Expect::Error(-32600, json!(8)),
        ),
        (
            "id of the wrong type",
            br#"{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}"#.to_vec(),
            Expect::Error(-32600, Value::Null),
        ),
        ("a number", b"42".to_vec(), Expect::Error(-32600, Value::Null)),
        ("null", b"null".to_vec(), Expect::Error(-32600, Value::Null)),
        (
            "unknown method",
            br#"{"jsonrpc":"2.0","id":9,"method":"no/such/method"}"#.to_vec(),
            Expect::Error(-32601, json!(9)),
        ),
        (
            "params a string",
            br#"{"jsonrpc":"2.0","id":10,"method":"tools/call","params":"search_keyword"}"#.to_vec(),
            Expect::Error(-32602, json!(10)),
        ),
        (
            "params an array",
            br#"{"jsonrpc":"2.0","id":11,"method":"tools/call","params":["search_keyword"]}"#.to_vec(),
            Expect::Error(-32602, json!(11)),
        ),
        (
            "tool name a number",
            br#"{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":42}}"#.to_vec(),
            Expect::Error(-32602, json!(12)),
        ),
        (
            "arguments a string",
            br#"{"jsonrpc":"2.0","id":"13","method":"tools/call","params":{"name":"search_keyword","arguments":"needle"}}"#.to_vec(),
            Expect::Error(-32602, json!("13")),
        ),
        (
            "initialize with a numeric version",
            br#"{"jsonrpc":"2.0","id":14,"method":"initialize","params":{"protocolVersion":5}}"#.to_vec(),
            Expect::Error(-32602, json!(14)),
        ),
        (
            "unknown tool",
            br#"{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"nope","arguments":{}}}"#.to_vec(),
            Expect::Error(-32602, json!(15)),
        ),
        (
            "an argument of the wrong type",
            br#"{"jsonrpc":"2.0","id":16,"method":"tools/call","params":{"name":"search_keyword","arguments":{"pattern":"x","max_results":"ten"}}}"#.to_vec(),
            Expect::ToolError(json!(16)),
        ),
        (
            "a notification with params of the wrong shape",
            br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}"#.to_vec(),
            Expect::Nothing,
        ),
        (
            "an unknown notification",
            br#"{"jsonrpc":"2.0","method":"no/such/notification"}"#.to_vec(),
            Expect::Nothing,
        ),
        ("an empty line", Vec::new(), Expect::Nothing),
        (
            "a batch",
            br#"[{"jsonrpc":"2.0","id":17,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"},{"jsonrpc":"2.0","id":"18","method":"tools/list"},3]"#.to_vec(),
            Expect::Batch(vec![json!(17), json!("18"), Value::Null]),
        ),
        ("an empty batch", b"[]".to_vec(), Expect::Error(-32600, Value::Null)),
    ];

    for (n, (what, frame, expect)) in cases.into_iter().enumerate() {
        server.write(&frame);
        let probe = json!(format!("probe-{n}"));
        server.write(
            json!({"jsonrpc": "2.0", "id": probe, "method": "tools/call",
                "params": {"name": "search_keyword", "arguments": {"pattern": "needle"}}})
            .to_string()
            .as_bytes(),
        );
        let mut answers = server.until_id(&probe);
        let answer = answers.pop().expect("the probe's answer");
        assert_eq!(
            answer["result"]["structuredContent"]["total"], 2,
            "{what}: the request after it: {answer}"
        );
        match expect {
            Expect::Nothing => assert!(answers.is_empty(), "{what}: {answers:?}"),
            Expect::Error(code, id) => {
                // rmcp's own answers (unknown method or tool) may come after
                // the probe's; ours come before it, in order.
                if !id.is_null() && !answers.iter().any(|a| a["id"] == id) {
                    answers.extend(server.until_id(&id));
                }
                assert_eq!(answers.len(), 1, "{what}: {answers:?}");
                let a = &answers[0];
                assert_eq!(
                    (&a["error"]["code"], &a["id"], &a["jsonrpc"]),
                    (&json!(code), &id, &json!("2.0")),
                    "{what}: {a}"
                );
                assert!(a["error"]["message"].is_string(), "{what}: {a}");
                if what == "a 10 MB line" {
                    let msg = a["error"]["message"].as_str().unwrap_or_default();
                    assert!(msg.contains("4 MiB"), "{what}: {a}");
                }
            }
            Expect::ToolError(id) => {
                // Tool answers may come after the probe's; look for it.
                let a = if answers.is_empty() {
                    server.until_id(&id).pop().expect("answer")
                } else {
                    answers.pop().expect("answer")
                };
                assert_eq!(
                    (&a["id"], &a["result"]["isError"]),
                    (&id, &json!(true)),
                    "{what}: {a}"
                );
            }
            Expect::Batch(ids) => {
                assert_eq!(answers.len(), 1, "{what}: {answers:?}");
                let items = answers[0].as_array().cloned().unwrap_or_default();
                let got: Vec<(Value, Value)> = items
                    .iter()
                    .map(|a| (a["id"].clone(), a["error"]["code"].clone()))
                    .collect();
                let want: Vec<(Value, Value)> =
                    ids.into_iter().map(|id| (id, json!(-32600))).collect();
                assert_eq!(got, want, "{what}: {answers:?}");
            }
        }
    }
    assert!(server.alive(), "the server is still running");
}

/// A small deterministic generator (xorshift64*), so a failure replays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A valid request with id `id`, one of a few kinds.
fn valid_frame(rng: &mut Rng, id: &str) -> Value {
    match rng.below(5) {
        0 => json!({"jsonrpc": "2.0", "id": id, "method": "ping"}),
        1 => json!({"jsonrpc": "2.0", "id": id, "method": "tools/list"}),
        2 => json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "search_keyword", "arguments": {"pattern": "needle", "max_results": 5}}}),
        3 => json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "read_file", "arguments": {"path": "src/lib.rs", "start_line": 1}}}),
        _ => json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "find_symbol", "arguments": {"name": "parse_config"}}}),
    }
}

const ODD_VALUES: &[&str] = &[
    "null",
    "true",
    "-1",
    "1.5",
    "\"\"",
    "[]",
    "{}",
    "[1,[2]]",
    "\"2.0\"",
    "{\"a\":null}",
];

/// One mutation of a valid frame, on the JSON tree or on its bytes.
fn mutate(rng: &mut Rng, frame: &Value) -> Vec<u8> {
    let odd = |rng: &mut Rng| -> Value {
        serde_json::from_str(ODD_VALUES[rng.below(ODD_VALUES.len())]).unwrap_or(Value::Null)
    };
    let mut v = frame.clone();
    match rng.below(10) {
        // Replace a member (top level or in params/arguments) by an odd value.
        0 | 1 => {
            let keys = ["jsonrpc", "method", "params", "id"];
            let key = keys[rng.below(keys.len())];
            if key == "id" && rng.below(2) == 0 {
                // Keep the id usable so the answer can be checked by it.
                v["jsonrpc"] = odd(rng);
            } else {
                v[key] = odd(rng);
            }
        }
        2 => {
            if let Some(params) = v.get_mut("params").and_then(Value::as_object_mut) {
                let key = if rng.below(2) == 0 {
                    "name"
                } else {
                    "arguments"
                };
                params.insert(key.to_string(), odd(rng));
            } else {
                v["params"] = odd(rng);
            }
        }
        3 => {
            if let Some(args) = v
                .get_mut("params")
                .and_then(|p| p.get_mut("arguments"))
                .and_then(Value::as_object_mut)
            {
                let key = args.keys().next().cloned().unwrap_or_default();
                args.insert(key, odd(rng));
            }
        }
        4 => {
            if let Some(obj) = v.as_object_mut() {
                let keys: Vec<String> = obj.keys().filter(|k| *k != "id").cloned().collect();
                if !keys.is_empty() {
                    obj.remove(&keys[rng.below(keys.len())]);
                }
            }
        }
        _ => {}
    }
    let mut bytes = v.to_string().into_bytes();
    match rng.below(10) {
        // Byte damage: flip, delete, insert, cut, append, duplicate.
        5 => {
            let i = rng.below(bytes.len());
            bytes[i] ^= 1 << rng.below(7);
        }
        6 => {
            bytes.remove(rng.below(bytes.len()));
        }
        7 => {
            let inserts = b"{}[]\":,0a \\\xff\xc3\x01";
            bytes.insert(
                rng.below(bytes.len() + 1),
                inserts[rng.below(inserts.len())],
            );
        }
        8 => bytes.truncate(rng.below(bytes.len())),
        9 => {
            let tail = if rng.below(2) == 0 {
                b" x".to_vec()
            } else {
                bytes.clone()
            };
            bytes.extend(tail);
        }
        _ => {}
    }
    // A newline would split the frame in two; keep one frame per line.
    for b in &mut bytes {
        if *b == b'\n' {
            *b = b' ';
        }
    }
    bytes
}

/// What a frame must get, judged from the frame itself: `Some(Some(id))`
/// exactly one answer with that id; `Some(None)` exactly one with id null;
/// `None` at most one with id null (a notification, or a response).
fn expected(bytes: &[u8]) -> Option<Option<Value>> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return None; // an empty line is no frame
    }
    let Ok(v) = serde_json::from_slice::<Value>(bytes) else {
        return Some(None);
    };
    let Value::Object(obj) = &v else {
        // A batch or a scalar: answered, but not with an id of its own.
        return if v.is_array() { None } else { Some(None) };
    };
    match obj.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => {
            let response = !obj.contains_key("method")
                && (obj.contains_key("result") || obj.contains_key("error"));
            if response {
                None
            } else {
                Some(Some(id.clone()))
            }
        }
        Some(_) => Some(None),
        None => None,
    }
}

#[test]
fn mcp_fuzzed_frames_each_get_one_answer_and_the_server_lives() {
    let p = project();
    let mut server = Server::start(&p);
    server.initialize();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut want_id: HashMap<String, usize> = HashMap::new();
    let mut got_id: HashMap<String, usize> = HashMap::new();
    let count = |got: &mut HashMap<String, usize>, a: &Value| {
        assert!(
            a.get("result").is_some() != a.get("error").is_some(),
            "an answer has a result or an error: {a}"
        );
        *got.entry(a["id"].to_string()).or_default() += 1;
    };
    for i in 0..400 {
        let id = format!("fz{i}-{:08x}", rng.next() as u32);
        let valid = valid_frame(&mut rng, &id);
        let frame = mutate(&mut rng, &valid);
        let expect = expected(&frame);
        if let Some(Some(id)) = &expect {
            *want_id.entry(id.to_string()).or_default() += 1;
        }
        // A ping after each frame: the server's own error answers to the
        // frame come before the ping's (rmcp's may come later).
        server.write(&frame);
        let probe = json!(format!("probe-{i}"));
        server.write(
            json!({"jsonrpc": "2.0", "id": probe, "method": "ping"})
                .to_string()
                .as_bytes(),
        );
        let mut nulls = 0;
        for v in server.until_id(&probe) {
            let answers = match v {
                Value::Array(items) => items,
                one => vec![one],
            };
            for a in answers {
                if a.get("method").is_some() || a["id"] == probe {
                    continue; // the server's own message, or the probe's answer
                }
                if a["id"].is_null() {
                    nulls += 1;
                } else {
                    count(&mut got_id, &a);
                }
            }
        }
        let frame_text = String::from_utf8_lossy(&frame);
        match expect {
            Some(None) => assert_eq!(nulls, 1, "one id-null answer to {frame_text}"),
            _ => assert!(nulls <= 1, "at most one id-null answer to {frame_text}"),
        }
    }
    // Answers still running (tool calls) arrive after their probes.
    let deadline = Instant::now() + Duration::from_secs(60);
    while got_id != want_id {
        for (id, n) in &got_id {
            assert!(
                want_id.get(id).is_some_and(|w| n <= w),
                "{n} answers for id {id}, want {:?}",
                want_id.get(id)
            );
        }
        assert!(
            Instant::now() < deadline,
            "answers missing: want {want_id:?}, got {got_id:?}"
        );
        let a = server.next();
        if a.get("method").is_none() {
            count(&mut got_id, &a);
        }
    }
    // Still serving.
    server.write(br#"{"jsonrpc":"2.0","id":"after","method":"tools/call","params":{"name":"search_keyword","arguments":{"pattern":"needle"}}}"#);
    let answers = server.until_id(&json!("after"));
    let a = answers.last().expect("answer");
    assert_eq!(a["result"]["structuredContent"]["total"], 2, "{a}");
    assert!(server.alive());
}

/// `rg -n --sort path` lines as `path:line`, and `rg --count` summed.
fn rg_lines(root: &std::path::Path, args: &[&str]) -> (Vec<String>, usize) {
    let out = Command::new("rg")
        .args(["-n", "--sort", "path", "--no-heading", "--with-filename"])
        .args(args)
        .current_dir(root)
        .output()
        .expect("run rg");
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ':');
            Some(format!("{}:{}", parts.next()?, parts.next()?))
        })
        .collect();
    let count = Command::new("rg")
        .args(["--count", "--no-heading", "--with-filename"])
        .args(args)
        .current_dir(root)
        .output()
        .expect("run rg --count");
    let total = String::from_utf8_lossy(&count.stdout)
        .lines()
        .filter_map(|l| l.rsplit(':').next()?.parse::<usize>().ok())
        .sum();
    (lines, total)
}

/// A tree where the walk's thread timing would pick different files: many
/// files with several matches each, in nested directories.
fn keyword_tree() -> Project {
    let p = Project::new();
    for d in ["a", "b/c", "b/d", "e"] {
        for f in 0..12 {
            let body: String = (1..=40)
                .map(|i| {
                    if i % 7 == 0 || (f % 3 == 0 && i % 5 == 0) {
                        format!("let needle_{i} = {f};\n")
                    } else {
                        format!("let other_{i} = {f};\n")
                    }
                })
                .collect();
            p.write(&format!("{d}/file_{f:02}.rs"), body);
        }
    }
    p.write("b/c/big.txt", "needle\n".repeat(300));
    p
}

#[test]
fn keyword_max_results_is_the_prefix_of_rg_and_the_total_is_exact() {
    if !have("rg") {
        eprintln!("skipped: rg is not installed");
        return;
    }
    let p = keyword_tree();
    let root = p.root();
    for (pattern, extra) in [("needle", &[][..]), ("needle", &["-m", "3"][..])] {
        let mut rg_args = extra.to_vec();
        rg_args.push(pattern);
        let (rg, rg_total) = rg_lines(&root, &rg_args);
        assert!(rg_total > 100, "the fixture has many matches: {rg_total}");
        assert_eq!(rg.len(), rg_total);
        for n in [1usize, 3, 10, 57, 100] {
            let ns = n.to_string();
            let mut args = vec!["keyword", pattern, "--max-results", &ns];
            args.extend_from_slice(extra);
            // Several runs: a timing-dependent pick shows up as a difference.
            for _ in 0..3 {
                let v = p.json(&args);
                let ours: Vec<String> = v["matches"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .map(|m| format!("{}:{}", m["path"].as_str().unwrap_or(""), m["line"]))
                            .collect()
                    })
                    .unwrap_or_default();
                assert_eq!(ours, rg[..n], "{args:?}");
                assert_eq!(v["total_matches"], rg_total, "{args:?}");
                assert_eq!(v["truncated"], true, "{args:?}");
            }
            let r = p.run(&args);
            assert!(
                r.stderr()
                    .contains(&format!("the first {n} of {rg_total} matching lines")),
                "{r}"
            );
        }
        // Without a limit: everything, same order, not truncated.
        let mut args = vec!["keyword", pattern];
        args.extend_from_slice(extra);
        let v = p.json(&args);
        assert_eq!(v["matches"].as_array().map(Vec::len), Some(rg.len()));
        assert_eq!(v["total_matches"], rg_total);
        assert_eq!(v["truncated"], false);
    }
}
