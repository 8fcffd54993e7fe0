//! `context PATH LINE` (CLI) and the MCP tool `context` on a real project:
//! the lines around a line, its enclosing definition, the file's outline
//! digest and the callers/callees summary; redaction, size bounds, and
//! every bad input's code.

use serde_json::{Value, json};

use crate::common::Project;
use crate::mcp::{Era, Mcp, error_text, wait_indexed};

/// A GitHub token shape the redaction knows (not a real token).
const TOKEN: &str = "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c";

const SESSION_PY: &str = r#"import os

TIMEOUT = 30


class Session:
    """A connection."""

    def __init__(self, url):
        self.url = url
        self.open()

    def open(self):
        return connect(self.url)

    def send(self, data):
        payload = encode(data)
        self.open()
        return transmit(payload)


def encode(data):
    return str(data)


def transmit(payload):
    return len(payload)


def connect(url):
    return url


def main():
    s = Session("x")
    s.send(1)
"#;

const LIB_RS: &str = r#"pub struct Config {
    pub name: String,
}

impl Config {
    pub fn parse(text: &str) -> Config {
        let name = helper(text);
        Config { name }
    }
}

fn helper(t: &str) -> String {
    t.to_string()
}
"#;

fn settings_py() -> String {
    format!(
        "def load():\n    url = \"https://example.com\"\n    github_token = \"{TOKEN}\"\n    return url\n"
    )
}

fn project() -> Project {
    let p = Project::new();
    p.write("app/session.py", SESSION_PY)
        .write("src/lib.rs", LIB_RS)
        .write("app/settings.py", settings_py())
        .write(".ignore", "ignored.py\n")
        .write("ignored.py", "def hidden():\n    return 1\n");
    p
}

fn names(list: &Value, field: &str) -> Vec<String> {
    list.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|e| e[field].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn context_cli_gives_lines_enclosing_definition_outline_and_graph() {
    let p = project();
    p.run(&["index", "--no-embed"]).ok();

    // A method of a class: lines around, the method and its class.
    let v = p.json(&["context", "app/session.py", "17", "--radius", "2"]);
    assert_eq!(v["path"], "app/session.py", "{v}");
    assert_eq!(v["lang"], "python", "{v}");
    assert_eq!(v["total_lines"], 36, "{v}");
    let lines: Vec<u64> = v["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [15, 16, 17, 18, 19], "{v}");
    assert_eq!(
        v["lines"][2]["text"], "        payload = encode(data)",
        "{v}"
    );
    let e = &v["enclosing"];
    assert_eq!(
        (
            e["name"].as_str(),
            e["kind"].as_str(),
            e["qualified"].as_str(),
            e["signature"].as_str(),
            e["start_line"].as_u64(),
            e["end_line"].as_u64()
        ),
        (
            Some("send"),
            Some("method"),
            Some("Session.send"),
            Some("def send(self, data):"),
            Some(16),
            Some(19)
        ),
        "{v}"
    );
    assert_eq!(names(&e["outer"], "qualified"), ["Session"], "{v}");
    assert_eq!(e["outer"][0]["kind"], "class", "{v}");
    // The outline digest: top-level definitions and members, no more.
    assert_eq!(
        names(&v["outline"], "qualified"),
        [
            "TIMEOUT",
            "Session",
            "Session.__init__",
            "Session.open",
            "Session.send",
            "encode",
            "transmit",
            "connect",
            "main"
        ],
        "{v}"
    );
    assert_eq!(v["outline_total"], 9, "{v}");
    // Callers of `Session.send` (resolved: `s = Session(…); s.send(1)`) and what it calls.
    let g = &v["graph"];
    assert_eq!(g["symbol"], "Session.send", "{v}");
    assert_eq!(g["callers_total"], 1, "{v}");
    assert_eq!(
        (
            g["callers"][0]["path"].as_str(),
            g["callers"][0]["line"].as_u64(),
            g["callers"][0]["context"].as_str(),
            g["callers"][0]["resolution"].as_str()
        ),
        (
            Some("app/session.py"),
            Some(36),
            Some("main"),
            Some("resolved")
        ),
        "{v}"
    );
    assert_eq!(
        names(&g["callees"], "name"),
        ["encode", "Session.open", "transmit"],
        "{v}"
    );
    assert_eq!(g["callees_total"], 3, "{v}");
    let encode = &g["callees"][0];
    assert_eq!(encode["defined_at"]["path"], "app/session.py", "{v}");
    assert_eq!(encode["defined_at"]["line"], 22, "{v}");
    assert_eq!(encode["resolution"], "resolved", "{v}");

    // The class itself: its callees are every call in its body.
    let v = p.json(&["context", "app/session.py:8", "--radius", "0"]);
    assert_eq!(v["enclosing"]["qualified"], "Session", "{v}");
    assert!(v["enclosing"].get("outer").is_none(), "{v}");
    assert_eq!(v["graph"]["callers"][0]["line"], 35, "{v}");
    let open = &v["graph"]["callees"][0];
    assert_eq!(
        (open["name"].as_str(), open["calls"].as_u64()),
        (Some("Session.open"), Some(2)),
        "{v}"
    );

    // A Rust method in an impl.
    let v = p.json(&["context", "src/lib.rs:7"]);
    assert_eq!(v["lang"], "rust", "{v}");
    assert_eq!(v["enclosing"]["qualified"], "Config::parse", "{v}");
    assert_eq!(
        v["enclosing"]["signature"], "pub fn parse(text: &str) -> Config {",
        "{v}"
    );
    assert_eq!(v["enclosing"]["outer"][0]["kind"], "impl", "{v}");
    // The default radius (10) clipped at both ends of the 14-line file.
    assert_eq!(v["lines"].as_array().map(Vec::len), Some(14), "{v}");
    assert_eq!(names(&v["graph"]["callees"], "name"), ["helper"], "{v}");
    assert_eq!(v["graph"]["callees"][0]["defined_at"]["line"], 12, "{v}");

    // A line outside any definition: the lines and the outline, no graph.
    let v = p.json(&["context", "app/session.py", "1", "--radius", "1"]);
    assert!(v.get("enclosing").is_none(), "{v}");
    assert!(v.get("graph").is_none(), "{v}");
    assert_eq!(v["lines"].as_array().map(Vec::len), Some(2), "{v}");
    assert_eq!(v["outline_total"], 9, "{v}");

    // The text rendering: header, marked line, outline and graph lines.
    let out = p
        .run(&["context", "app/session.py:17", "-C", "1"])
        .ok()
        .stdout();
    let text: Vec<&str> = out.lines().collect();
    assert_eq!(
        text[0], "app/session.py:17  method Session.send  [16-19]  def send(self, data):",
        "{out}"
    );
    assert_eq!(text[1], "  in class Session  [6-19]", "{out}");
    assert_eq!(text[3], ">    17          payload = encode(data)", "{out}");
    assert!(
        out.contains("\ncallers of Session.send (1, resolved): app/session.py:36 in main\n"),
        "{out}"
    );
    assert!(
        out.contains("\ncallees (3, resolved): encode -> app/session.py:22, Session.open -> app/session.py:13, transmit -> app/session.py:26"),
        "{out}"
    );
    assert!(
        out.contains("\noutline (9): constant TIMEOUT 3-3, class Session 6-19"),
        "{out}"
    );
}

#[test]
fn context_redacts_secrets_on_nearby_lines() {
    let p = project();
    p.run(&["index", "--no-embed"]).ok();
    let v = p.json(&["context", "app/settings.py", "2"]);
    let all = v.to_string();
    assert!(!all.contains(TOKEN), "{v}");
    assert!(
        v["lines"][2]["text"]
            .as_str()
            .is_some_and(|t| t.contains("[redacted: ")),
        "{v}"
    );
    assert_eq!(v["redacted"], 1, "{v}");
    assert_eq!(
        v["lines"][1]["text"], "    url = \"https://example.com\"",
        "{v}"
    );
    let r = p.run(&["context", "app/settings.py", "2"]).ok();
    assert!(!r.stdout().contains(TOKEN), "{r}");
    assert!(r.stderr().contains("redacted"), "{r}");

    let m = Mcp::start(&p, Era::Modern);
    wait_indexed(&m, 3);
    let r = m
        .call("context", json!({"path": "app/settings.py", "line": 2}))
        .unwrap();
    let text = error_text(&r);
    let v = r.structured_content.unwrap();
    assert!(
        !v.to_string().contains(TOKEN) && !text.contains(TOKEN),
        "{v}"
    );
    assert_eq!(v["redacted"], 1, "{v}");
    assert!(text.contains("[redacted: "), "{text}");
}

#[test]
fn context_over_mcp_matches_the_cli_and_stays_in_budget() {
    let p = project();
    // 100 functions; the 60th is 300 lines of 300 characters.
    let mut big = String::new();
    let mut n = 0;
    for i in 0..100 {
        big.push_str(&format!("def f{i}():\n"));
        n += 1;
        if i == 60 {
            for j in 0..300 {
                big.push_str(&format!("    v{j} = \"{}\"\n", "x".repeat(300)));
                n += 1;
            }
        }
        big.push_str("    return 1\n");
        n += 1;
    }
    let target: u64 = 121 + 150; // inside f60's body (121-422)
    p.write("app/big.py", &big);
    let m = Mcp::start(&p, Era::Modern);
    wait_indexed(&m, 4);

    let r = m
        .call(
            "context",
            json!({"path": "app/session.py", "line": 17, "radius": 2}),
        )
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{}", error_text(&r));
    let text = error_text(&r);
    let v = r.structured_content.unwrap();
    assert_eq!(
        v["content"],
        "15\t\n16\t    def send(self, data):\n17\t        payload = encode(data)\n18\t        self.open()\n19\t        return transmit(payload)",
        "{v}"
    );
    assert_eq!(
        (v["start_line"].as_u64(), v["end_line"].as_u64()),
        (Some(15), Some(19))
    );
    assert_eq!(v["enclosing"]["symbol"], "method Session.send", "{v}");
    assert_eq!(v["enclosing"]["signature"], "def send(self, data):", "{v}");
    assert_eq!(
        v["enclosing"]["outer"],
        json!(["class Session 6-19"]),
        "{v}"
    );
    assert_eq!(v["outline"][4], "method Session.send 16-19", "{v}");
    assert_eq!(v["graph"]["callers"][0]["at"], "app/session.py:36", "{v}");
    assert_eq!(v["graph"]["callers"][0]["resolution"], "resolved", "{v}");
    assert_eq!(
        v["graph"]["callees"][0]["defined_at"], "app/session.py:22",
        "{v}"
    );
    assert_eq!(v["truncated"], false, "{v}");
    assert!(
        text.contains("\n>17\t        payload = encode(data)\n"),
        "{text}"
    );
    assert!(
        text.contains("callers of Session.send (1, resolved): app/session.py:36 in main"),
        "{text}"
    );

    // The big function: 201 lines of 300+ characters do not fit; the lines
    // nearest the target stay, and the hint says what was cut.
    assert_eq!(n, 500);
    let r = m
        .call(
            "context",
            json!({"path": "app/big.py", "line": target, "radius": 100}),
        )
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{}", error_text(&r));
    let text = error_text(&r);
    let v = r.structured_content.unwrap();
    let size = v.to_string().len() + text.len();
    assert!(size <= 20_000, "context answer is {size} characters");
    assert_eq!(v["truncated"], true, "{v}");
    let (start, end) = (
        v["start_line"].as_u64().unwrap(),
        v["end_line"].as_u64().unwrap(),
    );
    assert!(
        start < target && target < end && end - start < 200,
        "{start}-{end}"
    );
    assert!(
        v["hint"].as_str().is_some_and(|h| h.contains("read_file")),
        "{v}"
    );
    assert_eq!(v["enclosing"]["symbol"], "function f60", "{v}");
    // The outline digest: at most 20, those nearest the line, with the total.
    assert_eq!(v["outline_total"], 100, "{v}");
    assert_eq!(v["outline"].as_array().map(Vec::len), Some(20), "{v}");
    assert!(
        v["outline"]
            .as_array()
            .unwrap()
            .iter()
            .any(|o| o == "function f60 121-422"),
        "{v}"
    );
    assert!(text.contains("(+80 more)"), "{text}");

    // The CLI gives all 201 lines (each bounded), the same digest.
    let v = p.json(&[
        "context",
        "app/big.py",
        &target.to_string(),
        "--radius",
        "100",
    ]);
    assert_eq!(v["lines"].as_array().map(Vec::len), Some(201));
    assert_eq!(v["outline"].as_array().map(Vec::len), Some(20));
    assert_eq!(v["outline_total"], 100);
}

/// An MCP error's `code:` line, checking it has a hint.
fn mcp_code(m: &Mcp, args: Value) -> String {
    let r = m.call("context", args.clone()).unwrap();
    assert_eq!(r.is_error, Some(true), "{args} should fail");
    let text = error_text(&r);
    assert!(text.contains("\nhint: "), "{args}: no hint: {text}");
    text.lines()
        .find_map(|l| l.strip_prefix("code: "))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn context_bad_input_has_codes_and_hints_and_leaves_the_index_alone() {
    let p = project();
    p.run(&["index", "--no-embed"]).ok();
    for (args, code, hint) in [
        (
            &["context", "../outside.py", "1"][..],
            "PATH_OUTSIDE_ROOT",
            "",
        ),
        (&["context", "/etc/passwd:1"], "PATH_OUTSIDE_ROOT", ""),
        (&["context", "app", "1"], "INVALID_ARGUMENT", "file path"),
        (&["context", "missing.py", "1"], "NOT_FOUND", ""),
        (&["context", "ignored.py", "1"], "NOT_FOUND", "indexed"),
        (
            &["context", "app/session.py", "0"],
            "INVALID_ARGUMENT",
            "1 to 36",
        ),
        (
            &["context", "app/session.py:37"],
            "INVALID_ARGUMENT",
            "1 to 36",
        ),
        (
            &["context", "app/session.py"],
            "INVALID_ARGUMENT",
            "PATH:LINE",
        ),
    ] {
        let r = p.run(args);
        assert_eq!(r.code(), 2, "{r}");
        assert!(
            r.stderr().contains(&format!("code: {code}\n")),
            "{code}: {r}"
        );
        assert!(
            r.stderr().contains("hint: ") && r.stderr().contains(hint),
            "{r}"
        );
        assert!(r.stdout().is_empty(), "{r}");
    }
    let r = p.run(&["context", "app/session.py", "3", "--radius", "101"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("101"), "{r}");

    let m = Mcp::start(&p, Era::Modern);
    wait_indexed(&m, 3);
    for (args, code) in [
        (
            json!({"path": "../outside.py", "line": 1}),
            "PATH_OUTSIDE_ROOT",
        ),
        (json!({"path": "app", "line": 1}), "INVALID_ARGUMENT"),
        (json!({"path": "missing.py", "line": 1}), "NOT_FOUND"),
        (json!({"path": "ignored.py", "line": 1}), "NOT_FOUND"),
        (
            json!({"path": "app/session.py", "line": 37}),
            "INVALID_ARGUMENT",
        ),
        (
            json!({"path": "app/session.py", "line": 0}),
            "INVALID_ARGUMENT",
        ),
        (
            json!({"path": "app/session.py", "line": 3, "radius": 101}),
            "INVALID_ARGUMENT",
        ),
        (json!({"path": "app/session.py"}), "INVALID_ARGUMENT"),
    ] {
        assert_eq!(mcp_code(&m, args.clone()), code, "{args}");
    }
    let r = m
        .call("context", json!({"path": "app/session.py", "line": 99}))
        .unwrap();
    assert!(error_text(&r).contains("1 to 36"), "{}", error_text(&r));
    drop(m);
    // Nothing was written: the index answers as before.
    let v = p.json(&["context", "app/session.py", "17"]);
    assert_eq!(v["enclosing"]["qualified"], "Session.send", "{v}");
    let s = p.json(&["status"]);
    assert_eq!(s["files"], 3, "{s}");
}

/// From a subdirectory, file arguments are taken as a shell gives them
/// (relative to the working directory), and root-relative ones still work.
#[test]
fn file_arguments_resolve_from_the_working_directory() {
    let p = project();
    p.run(&["index", "--no-embed"]).ok();
    let in_app = |args: &[&str]| {
        let mut a = args.to_vec();
        a.push("--json");
        let r = p.run_at("app", &a, &[]).ok();
        serde_json::from_str::<Value>(&r.stdout()).expect("JSON")
    };
    for path in ["session.py", "app/session.py", "./session.py"] {
        let v = in_app(&["outline", path]);
        assert_eq!(v["path"], "app/session.py", "{path}: {v}");
        let v = in_app(&["context", &format!("{path}:17")]);
        assert_eq!(v["path"], "app/session.py", "{path}: {v}");
        let v = in_app(&["read", path, "--lines", "3-3"]);
        assert_eq!(v["path"], "app/session.py", "{path}: {v}");
    }
}

/// A callee the index cannot tell is named as written, not after one of
/// its candidates' classes.
#[test]
fn a_name_only_callee_is_named_as_written() {
    let p = Project::new();
    p.write(
        "app/a.py",
        "class Html:\n    def render(self):\n        return 1\n\n\nclass Text:\n    def render(self):\n        return 2\n",
    )
    .write("app/use.py", "def show(view):\n    return view.render()\n");
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["context", "app/use.py:2"]);
    let callee = &v["graph"]["callees"][0];
    assert_eq!(
        (callee["name"].as_str(), callee["resolution"].as_str()),
        (Some("render"), Some("name_only")),
        "{v}"
    );
}

/// A function only passed around by value has no calls but has uses:
/// `context` lists those as its callers (TanStack Query's
/// `defaultRetryDelay` had shown "callers (0): none", though `refs` finds
/// `config.retryDelay ?? defaultRetryDelay`).
#[test]
fn context_lists_uses_by_value_when_nothing_calls_it() {
    let p = Project::new();
    p.write(
        "app/retry.py",
        "def default_delay(n):\n    return n * 2\n\n\ndef run(config):\n    delay = config.get(\"delay\") or default_delay\n    return delay(1)\n",
    );
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["context", "app/retry.py:2"]);
    let callers = &v["graph"]["callers"];
    assert_eq!(callers[0]["line"], 6, "{v}");
    assert_eq!(callers[0]["context"], "run", "{v}");
}
