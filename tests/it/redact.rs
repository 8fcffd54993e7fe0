//! Secrets in a repository's files never come back verbatim: every answer of
//! the CLI and of the MCP server shows `[redacted: <kind>]` in place of each
//! value, on the same lines with the same line numbers, and keyword search
//! still lists the lines `rg` lists. `--no-redact` (or the user's own
//! settings, never the project's) shows them.
//!
//! The fixture's secrets are built from pieces so that this source file does
//! not hold them whole.

use serde_json::{Value, json};

use crate::common::{Project, have};
use crate::mcp::{Era, Mcp, error_text, wait_indexed};

/// Each secret value of the fixture, with the rule expected to redact it.
fn secrets() -> Vec<(&'static str, &'static str)> {
    vec![
        (concat!("AKIA", "QYLPMN5HHHFPZAM2"), "aws-access-key-id"),
        (
            concat!("wJalrXUtnFEMI/K7MDENG/", "bPxRfiCY9x2mQ4kT7z"),
            "aws-secret-access-key",
        ),
        (
            concat!("ghp_", "aBcD1234eFgH5678iJkL9012mNoP3456qRsT"),
            "github-token",
        ),
        (concat!("glpat-", "Ab3dEf6hIj9kLm2nOp5q"), "gitlab-token"),
        (
            concat!(
                "xoxb-",
                "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx"
            ),
            "slack-token",
        ),
        (
            concat!("sk_", "live_", "4eC39HqLyjWDarjtT1zdp7dc"),
            "stripe-key",
        ),
        (
            concat!("AIza", "SyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW"),
            "google-api-key",
        ),
        (
            concat!("sk-", "proj-", "Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56"),
            "openai-key",
        ),
        (
            concat!(
                "eyJhbGciOiJIUzI1NiJ9.",
                "eyJzdWIiOiIxMjM0NTY3ODkwIn0.",
                "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
            ),
            "jwt",
        ),
        ("Zq8rT2vX9pL4", "url-password"),
        ("f3a9c1e7b2d84f60a5e9c3b7d1f2a8e4", "secret-assignment"),
    ]
}

/// The lines of an OpenSSH private key's body.
const KEY_BODY: [&str; 3] = [
    concat!(
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW",
        ""
    ),
    concat!(
        "QyNTUxOQAAACDvb3RzZWNyZXRrZXlub3RhcmVhbG9uZWp1c3RhdGVzdAAAAJgAAAAA",
        "Bw"
    ),
    "AAAAC3NzaC1lZDI1NTE5AAAAIO9vdHNl",
];

fn settings_py() -> String {
    let s: Vec<&str> = secrets().iter().map(|(v, _)| *v).collect();
    format!(
        "import os\n\
         \n\
         AWS_ACCESS_KEY_ID = \"{}\"\n\
         AWS_SECRET_ACCESS_KEY = \"{}\"\n\
         GITHUB_TOKEN = \"{}\"\n\
         GITLAB_TOKEN = \"{}\"\n\
         SLACK_BOT_TOKEN = \"{}\"\n\
         STRIPE_KEY = \"{}\"\n\
         GOOGLE_MAPS_KEY = \"{}\"\n\
         OPENAI_KEY = \"{}\"\n\
         SESSION_JWT = \"{}\"\n\
         DATABASE_URL = \"postgres://app:{}@db.internal:5432/prod\"\n\
         SIGNING_SECRET = \"{}\"\n\
         \n\
         \n\
         def connect_database(request):\n\
         \x20   password = request.POST[\"password\"]\n\
         \x20   TOKEN_TYPE = \"bearer\"\n\
         \x20   return os.environ.get(\"DATABASE_URL\"), password, TOKEN_TYPE\n",
        s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8], s[9], s[10]
    )
}

fn keys_py() -> String {
    format!(
        "DEPLOY_KEY = \"\"\"\n\
         -----BEGIN OPENSSH PRIVATE KEY-----\n\
         {}\n{}\n{}\n\
         -----END OPENSSH PRIVATE KEY-----\n\
         \"\"\"\n\
         \n\
         \n\
         def load_deploy_key():\n\
         \x20   return DEPLOY_KEY\n",
        KEY_BODY[0], KEY_BODY[1], KEY_BODY[2]
    )
}

fn fixture() -> Project {
    let p = Project::new();
    p.git_init();
    p.write("deploy/settings.py", settings_py())
        .write("deploy/keys.py", keys_py())
        .write(
            "deploy/id_ed25519",
            format!(
                "-----BEGIN OPENSSH PRIVATE KEY-----\n{}\n{}\n{}\n-----END OPENSSH PRIVATE KEY-----\n",
                KEY_BODY[0], KEY_BODY[1], KEY_BODY[2]
            ),
        );
    p
}

/// Every secret value (and every key body line) absent from `out`.
fn assert_no_secret(what: &str, out: &str) {
    for (v, _) in secrets() {
        assert!(!out.contains(v), "{what} shows `{v}` verbatim:\n{out}");
    }
    for l in KEY_BODY {
        assert!(!out.contains(&l[..30]), "{what} shows a key line:\n{out}");
    }
}

/// The pattern that matches every secret's line in the fixture.
const SECRET_LINES: &str = "AKIA|AWS_SECRET|ghp_|glpat|xoxb|_live_|AIza|sk-proj|eyJ|postgres://|SIGNING|PRIVATE KEY|^[A-Za-z0-9]{60,}$";

/// `(path, line)` of each line `rg -n` lists for `pattern` in the project.
fn rg_lines(p: &Project, pattern: &str) -> Vec<(String, u64)> {
    let out = std::process::Command::new("rg")
        .args([
            "-n",
            "--no-heading",
            "--with-filename",
            "--sort",
            "path",
            "-e",
            pattern,
            ".",
        ])
        .current_dir(p.root())
        .output()
        .expect("run rg");
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ':');
            let path = parts.next()?.trim_start_matches("./").to_string();
            Some((path, parts.next()?.parse().ok()?))
        })
        .collect()
}

#[test]
fn cli_answers_redact_every_secret_and_keep_lines() {
    let p = fixture();
    p.run(&["index", "--no-embed", "-q"]).ok();

    // Keyword search: the same lines as rg, each value replaced.
    let v = p.json(&["keyword", "-e", SECRET_LINES]);
    let ours: Vec<(String, u64)> = v["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .map(|m| {
            (
                m["path"].as_str().unwrap_or("").to_string(),
                m["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    if have("rg") {
        assert_eq!(ours, rg_lines(&p, SECRET_LINES), "keyword lists rg's lines");
    }
    assert!(ours.len() >= 19, "{v}");
    assert_no_secret("keyword --json", &v.to_string());
    for (_, rule) in secrets() {
        assert!(
            v.to_string().contains(&format!("[redacted: {rule}]")),
            "{rule}: {v}"
        );
    }
    assert!(v.to_string().contains("[redacted: private-key]"), "{v}");
    assert!(v["redacted"].as_u64().unwrap_or(0) >= 13, "{v}");
    // A submatch inside a value covers its marker.
    for m in v["matches"].as_array().expect("matches") {
        let text = m["text"].as_str().unwrap_or("");
        for s in m["submatches"].as_array().into_iter().flatten() {
            let (a, b) = (
                s[0].as_u64().unwrap_or(0) as usize,
                s[1].as_u64().unwrap_or(0) as usize,
            );
            assert!(
                a <= b && b <= text.len() && text.is_char_boundary(a) && text.is_char_boundary(b),
                "{m}"
            );
        }
    }
    let r = p.run(&["keyword", "-e", SECRET_LINES]).ok();
    assert_no_secret("keyword", &r.stdout());
    assert!(r.stderr().contains("secret values redacted"), "{r}");
    assert_eq!(r.stdout().lines().count(), ours.len(), "{r}");

    // Read: every line kept, in place; ordinary code untouched.
    let text = settings_py();
    let v = p.json(&["read", "deploy/settings.py"]);
    let lines = v["lines"].as_array().expect("lines");
    assert_eq!(lines.len(), text.lines().count());
    for (i, (l, orig)) in lines.iter().zip(text.lines()).enumerate() {
        assert_eq!(l["line"], i as u64 + 1);
        let shown = l["text"].as_str().unwrap_or("");
        if !shown.contains("[redacted:") {
            assert_eq!(shown, orig);
        }
    }
    assert_no_secret("read --json", &v.to_string());
    assert_eq!(v["redacted"], 11, "{v}");
    let r = p.run(&["read", "deploy/settings.py"]).ok();
    assert_no_secret("read", &r.stdout());
    assert!(
        r.stdout()
            .contains(r#"password = request.POST["password"]"#),
        "{r}"
    );
    assert!(r.stdout().contains(r#"TOKEN_TYPE = "bearer""#), "{r}");
    assert!(
        r.stdout()
            .contains("postgres://app:[redacted: url-password]@db.internal:5432/prod"),
        "{r}"
    );
    // A slice inside a key block, without its BEGIN line.
    for file in ["deploy/keys.py", "deploy/id_ed25519"] {
        let start = if file.ends_with(".py") { "3:4" } else { "2:3" };
        let r = p.run(&["read", file, "--lines", start]).ok();
        assert_no_secret(file, &r.stdout());
        assert_eq!(
            r.stdout().matches("[redacted: private-key]").count(),
            2,
            "{r}"
        );
        // The short last line of the body alone.
        let last = if file.ends_with(".py") { "5" } else { "4" };
        let r = p.run(&["read", file, "--lines", last]).ok();
        assert_no_secret(file, &r.stdout());
        assert!(r.stdout().contains("[redacted: private-key]"), "{r}");
        let whole = p.run(&["read", file]).ok();
        assert_no_secret(file, &whole.stdout());
        assert!(
            whole.stdout().contains("-----END OPENSSH PRIVATE KEY-----"),
            "{whole}"
        );
    }

    // Symbols: signatures of the assignments.
    for name in [
        "AWS_SECRET_ACCESS_KEY",
        "GITHUB_TOKEN",
        "DATABASE_URL",
        "SIGNING_SECRET",
    ] {
        let v = p.json(&["symbol", name]);
        assert!(
            !v["hits"].as_array().expect("hits").is_empty(),
            "{name}: {v}"
        );
        assert_no_secret("symbol", &v.to_string());
        assert!(v["redacted"].as_u64().unwrap_or(0) >= 1, "{v}");
    }
    let v = p.json(&["outline", "deploy/settings.py"]);
    assert_no_secret("outline", &v.to_string());
    let v = p.json(&["refs", "DEPLOY_KEY"]);
    assert_no_secret("refs", &v.to_string());

    // Ranked search in every mode that reads the index without vectors.
    for mode in ["hybrid", "bm25", "keyword", "symbol"] {
        for q in [
            "AWS secret access key token",
            "DEPLOY_KEY",
            "OPENSSH PRIVATE KEY",
        ] {
            let v = p.json(&["search", q, "--mode", mode, "--snippet-lines", "20"]);
            assert_no_secret(&format!("search {mode} {q}"), &v.to_string());
            let r = p.run(&[
                "search",
                q,
                "--mode",
                mode,
                "--detail",
                "--snippet-lines",
                "20",
            ]);
            assert!(r.code() <= 1, "{r}");
            assert_no_secret(&format!("search {mode} {q} --detail"), &r.stdout());
        }
    }
    let v = p.json(&[
        "search",
        "OPENSSH PRIVATE KEY",
        "--mode",
        "bm25",
        "--snippet-lines",
        "20",
    ]);
    assert!(v["redacted"].as_u64().unwrap_or(0) >= 1, "{v}");
}

#[test]
fn a_long_line_cut_through_a_secret_shows_none_of_it() {
    let p = fixture();
    let (token, _) = secrets()[2];
    // `read` cuts lines at 2,000 characters, `keyword` at 500 around the
    // match: each cut falls inside the token.
    let read_line = format!(
        "{{\"pad\": \"{}\", \"t\": \"{token}\"}}\n",
        "a".repeat(1976)
    );
    let kw_line = format!("MARKER {} {token} tail\n", "b".repeat(480));
    p.write("data/read.json", read_line)
        .write("data/kw.txt", kw_line);
    for args in [&["read", "data/read.json"][..], &["keyword", "MARKER"][..]] {
        let v = p.json(args);
        let out = v.to_string();
        assert!(out.contains("[redacted: cut-value]"), "{args:?}: {out}");
        assert!(
            !out.contains(&token[..8]),
            "{args:?} shows part of a token: {out}"
        );
    }
}

#[test]
fn only_the_user_turns_redaction_off() {
    let p = fixture();
    let (aws, _) = secrets()[1];
    let shows = |args: &[&str], env: &[(&str, &std::ffi::OsStr)]| {
        let r = p.run_env(args, env);
        assert!(r.code() <= 1, "{r}");
        (r.stdout().contains(aws), r)
    };
    let read = ["read", "deploy/settings.py", "--json"];
    assert!(!shows(&read, &[]).0);
    // The flag.
    let (shown, r) = shows(
        &["read", "deploy/settings.py", "--json", "--no-redact"],
        &[],
    );
    assert!(shown, "{r}");
    let v: Value = serde_json::from_str(&r.stdout()).expect("json");
    assert_eq!(v["redacted"], 0);
    let (shown, r) = shows(&["keyword", "AWS_SECRET", "--no-redact"], &[]);
    assert!(shown && !r.stderr().contains("redacted"), "{r}");
    // The environment.
    assert!(shows(&read, &[("REPO_SEARCH_NO_REDACT", "1".as_ref())]).0);
    assert!(!shows(&read, &[("REPO_SEARCH_NO_REDACT", "0".as_ref())]).0);
    // A project's own config cannot; it is told so.
    p.write(".repo_search/config.toml", "redact = false\n");
    let (shown, r) = shows(&read, &[]);
    assert!(!shown, "a repository turned redaction off:\n{r}");
    assert!(r.stderr().contains("redact = false"), "{r}");
    let v = p.json(&["config", "--show"]);
    let redact = v["settings"]
        .as_array()
        .and_then(|a| a.iter().find(|s| s["key"] == "redact"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(redact["value"], "true", "{v}");
    // The user's own config can.
    std::fs::write(p.home.path().join("config.toml"), "redact = false\n").expect("home config");
    let (shown, r) = shows(&read, &[]);
    assert!(shown, "{r}");
}

#[test]
fn mcp_answers_redact_every_secret() {
    let p = fixture();
    let m = Mcp::start(&p, Era::Legacy);
    wait_indexed(&m, 2);
    let calls = [
        ("search_keyword", json!({"pattern": SECRET_LINES})),
        ("search_keyword", json!({"pattern": "KEY", "context": 3})),
        ("read_file", json!({"path": "deploy/settings.py"})),
        (
            "read_file",
            json!({"path": "deploy/keys.py", "start_line": 3, "end_line": 4}),
        ),
        ("read_file", json!({"path": "deploy/id_ed25519"})),
        ("search", json!({"query": "AWS_SECRET_ACCESS_KEY"})),
        (
            "search",
            json!({"query": "OPENSSH PRIVATE KEY", "detail": true}),
        ),
        (
            "search",
            json!({"queries": ["GITHUB_TOKEN", "DATABASE_URL postgres"]}),
        ),
        ("find_symbol", json!({"name": "AWS_SECRET_ACCESS_KEY"})),
        (
            "find_symbol",
            json!({"name": "SIGNING_SECRET", "detail": true}),
        ),
        (
            "list_defs_in_file",
            json!({"path": "deploy/settings.py", "detail": true}),
        ),
        ("find_references", json!({"name": "DEPLOY_KEY"})),
    ];
    for (tool, args) in calls {
        let r = m.call(tool, args.clone()).expect("tool call");
        assert_ne!(r.is_error, Some(true), "{tool} {args}: {}", error_text(&r));
        let text = error_text(&r);
        let structured = r.structured_content.clone().unwrap_or(Value::Null);
        assert_no_secret(&format!("{tool} {args} (text)"), &text);
        assert_no_secret(
            &format!("{tool} {args} (structured)"),
            &structured.to_string(),
        );
        let count = structured["redacted"].as_u64().unwrap_or_else(|| {
            structured["results"]
                .as_array()
                .map(|rs| rs.iter().filter_map(|e| e["redacted"].as_u64()).sum())
                .unwrap_or(0)
        });
        if tool != "find_references" {
            assert!(
                count >= 1,
                "{tool} {args}: no `redacted` count: {structured}"
            );
            assert!(text.contains("redacted"), "{tool}: {text}");
        }
    }
    // Keyword search lists the same lines as rg, redacted or not.
    let v = m.ok(
        "search_keyword",
        json!({"pattern": SECRET_LINES, "max_results": 500}),
    );
    let ours: Vec<(String, u64)> = v["matches"]
        .as_array()
        .expect("matches")
        .iter()
        .map(|h| {
            (
                h["path"].as_str().unwrap_or("").to_string(),
                h["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    if have("rg") {
        assert_eq!(ours, rg_lines(&p, SECRET_LINES));
    }
}
