//! `history` and `blame` (CLI) and `file_history` and `blame` (MCP) on a
//! real git repository built with the `git` binary, compared with what
//! `git log` and `git blame` say about it.

use std::process::Command;

use serde_json::{Value, json};

use crate::common::Project;
use crate::mcp::{Era, Mcp, error_text};

/// A GitHub token shape the redaction knows (not a real token).
const TOKEN: &str = "ghp_Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb7c";

pub(crate) fn git(p: &Project, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(p.root())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", p.home.path())
        .output()
        .expect("run git");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub(crate) fn commit(p: &Project, author: &str, date: &str, message: &str) {
    let email = format!("{}@example.com", author.to_lowercase());
    let out = Command::new("git")
        .args([
            "-c",
            "commit.gpgsign=false",
            "commit",
            "-q",
            "-a",
            "-m",
            message,
        ])
        .current_dir(p.root())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", p.home.path())
        .env("GIT_AUTHOR_NAME", author)
        .env("GIT_AUTHOR_EMAIL", &email)
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_NAME", author)
        .env("GIT_COMMITTER_EMAIL", &email)
        .env("GIT_COMMITTER_DATE", date)
        .output()
        .expect("run git commit");
    assert!(
        out.status.success(),
        "git commit: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn lines(n: std::ops::RangeInclusive<u32>, tag: &str) -> String {
    n.map(|i| format!("def f{i}():  # {tag}\n")).collect()
}

/// Six commits by three authors: a file written, two of its lines edited,
/// another file changed, lines inserted above, a line set to a secret, the
/// file renamed.
fn repo() -> Project {
    let p = Project::new();
    p.git_init();
    p.write("lib.py", lines(1..=10, "v1"))
        .write("other.txt", "one\n");
    git(&p, &["add", "."]);
    commit(&p, "Ann", "2024-01-01T10:00:00+01:00", "write lib");
    let mut text = lines(1..=2, "v1");
    text.push_str(&lines(3..=4, "v2"));
    text.push_str(&lines(5..=10, "v1"));
    p.write("lib.py", &text);
    commit(
        &p,
        "Bob",
        "2024-02-01T09:30:00-05:00",
        "rework f3 and f4\n\nThey now say v2.",
    );
    p.write("other.txt", "two\n");
    commit(&p, "Cy", "2024-03-01T12:00:00+00:00", "other only");
    p.write("lib.py", format!("import os\nimport sys\n{text}"));
    commit(&p, "Ann", "2024-04-01T08:00:00+02:00", "imports");
    let with_secret = format!("import os\nimport sys\n{text}")
        .replace("def f10():  # v1", &format!("TOKEN = \"{TOKEN}\""));
    p.write("lib.py", with_secret);
    commit(&p, "Bob", "2024-05-01T18:00:00+00:00", "a token");
    git(&p, &["mv", "lib.py", "core.py"]);
    commit(&p, "Cy", "2024-06-01T07:00:00+00:00", "rename lib to core");
    // A side branch edits f9, the main line edits another file, and a
    // merge joins them: the merge is walked through, not listed.
    git(&p, &["checkout", "-q", "-b", "side"]);
    let core = std::fs::read_to_string(p.path("core.py")).unwrap();
    p.write(
        "core.py",
        core.replace("def f9():  # v1", "def f9():  # side"),
    );
    commit(&p, "Dee", "2024-07-01T09:00:00+00:00", "side: tweak f9");
    git(&p, &["checkout", "-q", "-"]);
    p.write("other.txt", "three\n");
    commit(&p, "Ann", "2024-07-02T09:00:00+00:00", "main: other again");
    let out = Command::new("git")
        .args(["merge", "-q", "--no-ff", "-m", "merge side", "side"])
        .current_dir(p.root())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", p.home.path())
        .env("GIT_AUTHOR_NAME", "Cy")
        .env("GIT_AUTHOR_EMAIL", "cy@example.com")
        .env("GIT_AUTHOR_DATE", "2024-07-03T09:00:00+00:00")
        .env("GIT_COMMITTER_NAME", "Cy")
        .env("GIT_COMMITTER_EMAIL", "cy@example.com")
        .env("GIT_COMMITTER_DATE", "2024-07-03T09:00:00+00:00")
        .output()
        .expect("run git merge");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    p
}

/// `git log` lines as (hash, author, date, subject).
fn git_log(p: &Project, extra: &[&str]) -> Vec<[String; 4]> {
    let mut args = vec!["log", "--format=%H%x09%an%x09%aI%x09%s"];
    args.extend_from_slice(extra);
    git(p, &args)
        .lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.splitn(4, '\t').collect();
            [f[0], f[1], f[2], f[3]].map(str::to_string)
        })
        .collect()
}

/// An answer's commits as (hash, author, date, summary); `hash_key` is
/// `commit` (CLI JSON) or `short` (MCP).
fn ours(v: &Value, hash_key: &str) -> Vec<[String; 4]> {
    v["commits"]
        .as_array()
        .unwrap_or_else(|| panic!("no commits: {v}"))
        .iter()
        .map(|c| {
            ["", "author", "date", "summary"].map(|k| {
                let k = if k.is_empty() { hash_key } else { k };
                c[k].as_str().unwrap_or_default().to_string()
            })
        })
        .collect()
}

fn short(log: &[[String; 4]]) -> Vec<[String; 4]> {
    log.iter()
        .map(|[h, a, d, s]| [h[..7].to_string(), a.clone(), d.clone(), s.clone()])
        .collect()
}

/// `git blame --porcelain` as (line, hash, author, summary, text) per line.
fn git_blame(
    p: &Project,
    path: &str,
    a: u32,
    b: u32,
) -> Vec<(u64, String, String, String, String)> {
    let out = git(
        p,
        &["blame", "--porcelain", "-L", &format!("{a},{b}"), path],
    );
    let mut info: std::collections::HashMap<String, (String, String)> = Default::default();
    let mut rows = Vec::new();
    let mut current = (String::new(), 0u64);
    for l in out.lines() {
        if let Some(text) = l.strip_prefix('\t') {
            let (author, summary) = info.get(&current.0).cloned().unwrap_or_default();
            rows.push((
                current.1,
                current.0.clone(),
                author,
                summary,
                text.to_string(),
            ));
            continue;
        }
        let f: Vec<&str> = l.split(' ').collect();
        if f[0].len() == 40 && f[0].chars().all(|c| c.is_ascii_hexdigit()) {
            current = (f[0].to_string(), f[2].parse().unwrap());
            info.entry(f[0].to_string()).or_default();
        } else if let Some(name) = l.strip_prefix("author ") {
            info.get_mut(&current.0).unwrap().0 = name.to_string();
        } else if let Some(s) = l.strip_prefix("summary ") {
            info.get_mut(&current.0).unwrap().1 = s.to_string();
        }
    }
    rows
}

#[test]
fn history_matches_git_log_with_renames_ranges_and_since() {
    let p = repo();
    // The whole file, across the rename: `git log --follow`.
    let expected = git_log(&p, &["--follow", "--", "core.py"]);
    assert_eq!(expected.len(), 6, "{expected:?}");
    let v = p.json(&["history", "core.py"]);
    assert_eq!(ours(&v, "commit"), expected, "{v}");
    assert_eq!(v["truncated"], false);
    // Commits before the rename name the file's old path.
    assert!(!v.to_string().contains("merge side"), "{v}");
    assert_eq!(v["commits"][2]["path"], "lib.py", "{v}");
    assert!(v["commits"][1].get("path").is_none(), "{v}");
    let text = p.run(&["history", "core.py"]).ok().stdout();
    assert_eq!(text.lines().count(), 6, "{text}");
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.starts_with(&expected[0][0][..7])
                && l.contains("Dee")
                && l.contains("side: tweak f9")),
        "{text}"
    );

    // Lines 5-6 are f3 and f4: written by the first commit, edited by the
    // second, moved down by the fourth: `git log -L` lists the same two.
    let expected = git_log(&p, &["-L", "5,6:core.py", "--no-patch"]);
    assert_eq!(expected.len(), 2, "{expected:?}");
    let v = p.json(&["history", "core.py:5-6"]);
    assert_eq!(ours(&v, "commit"), expected, "{v}");
    assert_eq!(
        (v["start_line"].as_u64(), v["end_line"].as_u64()),
        (Some(5), Some(6))
    );
    // The imports at the top: only the commit that added them.
    let v = p.json(&["history", "core.py:1-2"]);
    let expected = git_log(&p, &["-L", "1,2:core.py", "--no-patch"]);
    assert_eq!(ours(&v, "commit"), expected, "{v}");

    // --since (committer date) and --limit, with --detail's whole message.
    let expected = git_log(&p, &["--follow", "--since=2024-03-15", "--", "core.py"]);
    assert_eq!(expected.len(), 4);
    let v = p.json(&["history", "core.py", "--since", "2024-03-15"]);
    assert_eq!(ours(&v, "commit"), expected, "{v}");
    let v = p.json(&["history", "core.py", "--limit", "2"]);
    assert_eq!(v["commits"].as_array().map(Vec::len), Some(2));
    assert_eq!(v["truncated"], true);
    assert!(
        v["hint"].as_str().is_some_and(|h| h.contains("since")),
        "{v}"
    );
    let v = p.json(&["history", "core.py:5-6", "--detail"]);
    assert_eq!(
        v["commits"][0]["message"],
        "rework f3 and f4\n\nThey now say v2."
    );
    let text = p.run(&["history", "core.py:5-6", "--detail"]).ok().stdout();
    assert!(text.contains("    They now say v2."), "{text}");

    // The MCP tool answers the same, through a real client.
    let m = Mcp::start(&p, Era::Modern);
    let v = m.ok("file_history", json!({"path": "core.py"}));
    let full = git_log(&p, &["--follow", "--", "core.py"]);
    assert_eq!(ours(&v, "short"), short(&full), "{v}");
    let v = m.ok(
        "file_history",
        json!({"path": "core.py", "start_line": 5, "end_line": 6, "detail": true}),
    );
    let range = git_log(&p, &["-L", "5,6:core.py", "--no-patch"]);
    assert_eq!(ours(&v, "short"), short(&range), "{v}");
    assert_eq!(
        v["commits"][0]["message"],
        "rework f3 and f4\n\nThey now say v2."
    );
    let v = m.ok(
        "file_history",
        json!({"path": "core.py", "since": "2024-03-15"}),
    );
    assert_eq!(v["commits"].as_array().map(Vec::len), Some(4), "{v}");
}

#[test]
fn a_deleted_file_has_its_history_up_to_the_deleting_commit() {
    let p = repo();
    git(&p, &["rm", "-q", "other.txt"]);
    commit(&p, "Dee", "2024-08-01T09:00:00+00:00", "drop other");
    // `git log -- PATH` lists the deleting commit first, then the file's
    // history; so does a path a rename left behind (`lib.py`).
    for (path, deleter) in [
        ("other.txt", "drop other"),
        ("lib.py", "rename lib to core"),
    ] {
        let expected = git_log(&p, &["--", path]);
        assert_eq!(expected[0][3], deleter, "{expected:?}");
        let v = p.json(&["history", path]);
        assert_eq!(ours(&v, "commit"), expected, "{path}: {v}");
        assert_eq!(v["deleted_in"], expected[0][0][..7], "{v}");
        let r = p.run(&["history", path]).ok();
        assert_eq!(r.stdout().lines().count(), expected.len(), "{r}");
        assert!(r.stderr().contains("no longer in HEAD"), "{r}");
    }
    let m = Mcp::start(&p, Era::Modern);
    let v = m.ok("file_history", json!({"path": "other.txt"}));
    assert_eq!(
        ours(&v, "short"),
        short(&git_log(&p, &["--", "other.txt"])),
        "{v}"
    );
    assert!(v["deleted_in"].is_string(), "{v}");
    // A path no commit ever had is still NOT_FOUND, on both surfaces.
    assert_eq!(
        mcp_error(&m, "file_history", json!({"path": "never.py"})),
        "NOT_FOUND"
    );
    let r = p.run(&["history", "never.py"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("code: NOT_FOUND"), "{r}");
}

#[test]
fn blame_matches_git_blame_line_by_line_and_redacts() {
    let p = repo();
    let expected = git_blame(&p, "core.py", 1, 12);
    assert_eq!(expected.len(), 12);
    let v = p.json(&["blame", "core.py:1-12"]);
    let commits = v["commits"].as_array().unwrap();
    let got = v["lines"].as_array().unwrap();
    assert_eq!(got.len(), 12, "{v}");
    let mut redacted = 0;
    for (g, (line, hash, author, summary, text)) in got.iter().zip(&expected) {
        let c = &commits[g["commit"].as_u64().unwrap() as usize];
        assert_eq!(g["line"].as_u64(), Some(*line), "{g}");
        assert_eq!(c["commit"].as_str(), Some(hash.as_str()), "line {line}");
        assert_eq!(c["author"].as_str(), Some(author.as_str()), "line {line}");
        assert_eq!(c["summary"].as_str(), Some(summary.as_str()), "line {line}");
        if text.contains(TOKEN) {
            // File text passes the redaction: the token never shows.
            redacted += 1;
            let shown = g["text"].as_str().unwrap();
            assert!(shown.contains("[redacted: github-token]"), "{shown}");
            assert!(!shown.contains(TOKEN));
        } else {
            assert_eq!(g["text"].as_str(), Some(text.as_str()), "line {line}");
        }
    }
    assert_eq!(redacted, 1);
    assert_eq!(v["redacted"], 1);
    // Lines that moved keep their first commit (the renamed file's past).
    assert_eq!(
        commits[got[4]["commit"].as_u64().unwrap() as usize]["author"],
        "Bob"
    );
    assert_eq!(
        commits[got[4]["commit"].as_u64().unwrap() as usize]["path"],
        "lib.py"
    );

    // Text: one header per run of lines from one commit.
    let text = p.run(&["blame", "core.py:3-8"]).ok().stdout();
    let headers: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ')).collect();
    assert_eq!(headers.len(), 3, "{text}");
    assert!(
        headers[0].contains("Ann") && headers[0].contains("write lib"),
        "{text}"
    );
    assert!(
        headers[1].contains("Bob") && headers[1].contains("rework f3 and f4"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 9, "{text}");
    // The range as `read --lines` writes it.
    let colon = p.run(&["blame", "core.py:3:8"]).ok().stdout();
    assert_eq!(colon, text);

    // The MCP tool, through a real client.
    let m = Mcp::start(&p, Era::Modern);
    let v = m.ok(
        "blame",
        json!({"path": "core.py", "start_line": 1, "end_line": 12}),
    );
    // Hunks: runs of consecutive lines of one commit, one line each
    // when unrolled, as git says.
    let mut got = Vec::new();
    for h in v["hunks"].as_array().unwrap() {
        let (a, b) = (
            h["start_line"].as_u64().unwrap(),
            h["end_line"].as_u64().unwrap(),
        );
        let lines = h["lines"].as_array().unwrap();
        assert_eq!(lines.len() as u64, b - a + 1, "{h}");
        for line in a..=b {
            got.push((line, h["commit"].as_str().unwrap().to_string()));
        }
    }
    assert_eq!(got.len(), 12, "{v}");
    for (g, (line, hash, _, _, _)) in got.iter().zip(&expected) {
        assert_eq!(g.0, *line);
        assert_eq!(g.1, hash[..7], "line {line}");
    }
    for pair in v["hunks"].as_array().unwrap().windows(2) {
        assert_ne!(pair[0]["commit"], pair[1]["commit"], "{v}");
    }
    assert_eq!(v["redacted"], 1);
    // Without a range, as the CLI: the file's first 500 lines.
    let whole = m.ok("blame", json!({"path": "core.py"}));
    assert_eq!(whole["hunks"], v["hunks"], "{whole}");
    let r = m
        .call(
            "blame",
            json!({"path": "core.py", "start_line": 11, "end_line": 12}),
        )
        .unwrap();
    let text = error_text(&r);
    assert!(
        text.contains("[redacted: github-token]") && !text.contains(TOKEN),
        "{text}"
    );
}

/// An MCP error's `code:` line and whether it has a hint.
fn mcp_error(m: &Mcp, tool: &str, args: Value) -> String {
    let r = m.call(tool, args.clone()).unwrap();
    assert_eq!(r.is_error, Some(true), "{tool} {args} should fail");
    let text = error_text(&r);
    assert!(text.contains("\nhint: "), "{tool} {args}: no hint: {text}");
    text.lines()
        .find_map(|l| l.strip_prefix("code: "))
        .unwrap_or_default()
        .to_string()
}

#[test]
fn history_and_blame_errors_have_codes_and_hints() {
    let p = repo();
    p.write("untracked.py", "x = 1\n");
    for args in [
        &["history", "../outside.py"][..],
        &["blame", "core.py:9-3"],
        &["blame", "core.py:99-120"],
        &["blame", "core.py:0-2"],
        &["history", "missing.py"],
        &["history", "untracked.py"],
        &["history", "core.py", "--since", "not a date"],
    ] {
        let r = p.run(args);
        assert_eq!(r.code(), 2, "{r}");
        assert!(r.stderr().contains("hint: "), "{r}");
        assert!(r.stdout().is_empty(), "{r}");
    }
    let m = Mcp::start(&p, Era::Modern);
    for (tool, args, code) in [
        (
            "file_history",
            json!({"path": "../outside.py"}),
            "PATH_OUTSIDE_ROOT",
        ),
        (
            "blame",
            json!({"path": "/etc/passwd", "start_line": 1, "end_line": 1}),
            "PATH_OUTSIDE_ROOT",
        ),
        (
            "blame",
            json!({"path": "core.py", "start_line": 9, "end_line": 3}),
            "INVALID_ARGUMENT",
        ),
        (
            "blame",
            json!({"path": "core.py", "start_line": 99, "end_line": 120}),
            "INVALID_ARGUMENT",
        ),
        (
            "file_history",
            json!({"path": "core.py", "start_line": 50, "end_line": 60}),
            "INVALID_ARGUMENT",
        ),
        (
            "file_history",
            json!({"path": "core.py", "since": "not a date"}),
            "INVALID_ARGUMENT",
        ),
        ("file_history", json!({"path": "missing.py"}), "NOT_FOUND"),
        ("file_history", json!({"path": "untracked.py"}), "NOT_FOUND"),
    ] {
        assert_eq!(mcp_error(&m, tool, args.clone()), code, "{tool} {args}");
    }
    // A range running past the end is cut to the file, and says so.
    let v = p.json(&["blame", "core.py:2-99"]);
    let total = v["total_lines"].as_u64().unwrap_or(0);
    assert!(total > 2, "{v}");
    assert_eq!(
        (v["start_line"].as_u64(), v["end_line"].as_u64()),
        (Some(2), Some(total)),
        "{v}"
    );
    assert!(
        v["hint"]
            .as_str()
            .is_some_and(|h| h.contains("asked up to 99")),
        "{v}"
    );
    let v = m.ok(
        "blame",
        json!({"path": "core.py", "start_line": 2, "end_line": 99}),
    );
    assert_eq!(v["end_line"].as_u64(), Some(total), "{v}");
    // No next page past the end: MCP had offered `start_line: total + 1`.
    let hint = v["hint"].as_str().unwrap_or("");
    assert!(
        hint.contains("asked up to 99") && !hint.contains("call again"),
        "{v}"
    );
}

#[test]
fn a_project_without_git_says_no_git_and_everything_else_works() {
    let p = Project::new();
    p.write("app.py", "def handler():\n    return 1\n");
    for args in [&["history", "app.py"][..], &["blame", "app.py:1-2"]] {
        let r = p.run(args);
        assert_eq!(r.code(), 2, "{r}");
        assert!(r.stderr().contains("not in a git repository"), "{r}");
        assert!(r.stderr().contains("hint: "), "{r}");
    }
    p.run(&["symbol", "handler"]).ok();
    p.run(&["keyword", "handler"]).ok();
    let m = Mcp::start(&p, Era::Modern);
    assert_eq!(
        mcp_error(&m, "file_history", json!({"path": "app.py"})),
        "NO_GIT"
    );
    assert_eq!(
        mcp_error(
            &m,
            "blame",
            json!({"path": "app.py", "start_line": 1, "end_line": 2})
        ),
        "NO_GIT"
    );
    let v = m.ok("read_file", json!({"path": "app.py"}));
    assert!(v["content"].as_str().is_some_and(|c| c.contains("handler")));
}

/// A token pasted into a commit message is redacted like file text, on
/// both surfaces and in both tools.
#[test]
fn commit_messages_are_redacted() {
    let p = Project::new();
    p.git_init();
    p.write("a.py", "def a():\n    return 1\n");
    git(&p, &["add", "."]);
    commit(
        &p,
        "Ann",
        "2024-01-01T10:00:00+00:00",
        &format!("rotate {TOKEN}\n\nthe old one was {TOKEN}"),
    );
    let v = p.json(&["history", "a.py", "--detail"]);
    assert!(!v.to_string().contains(TOKEN), "{v}");
    let c = &v["commits"][0];
    assert_eq!(c["summary"], "rotate [redacted: github-token]", "{v}");
    assert!(
        c["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("the old one was [redacted: github-token]")),
        "{v}"
    );
    // Counted once each, though the summary is also the message's first line.
    assert_eq!(v["redacted"], 2, "{v}");
    let r = p.run(&["history", "a.py", "--detail"]).ok();
    assert!(!r.stdout().contains(TOKEN), "{r}");
    assert!(r.stderr().contains("2 secret values redacted"), "{r}");
    let r = p.run(&["blame", "a.py:1-2"]).ok();
    assert!(
        !r.stdout().contains(TOKEN) && r.stdout().contains("rotate [redacted"),
        "{r}"
    );

    let m = Mcp::start(&p, Era::Modern);
    for (tool, args) in [
        ("file_history", json!({"path": "a.py", "detail": true})),
        (
            "blame",
            json!({"path": "a.py", "start_line": 1, "end_line": 2}),
        ),
    ] {
        let r = m.call(tool, args).unwrap();
        let text = error_text(&r);
        assert!(
            text.contains("[redacted: github-token]") && !text.contains(TOKEN),
            "{tool}: {text}"
        );
        let structured = r.structured_content.clone().unwrap_or_default();
        assert!(!structured.to_string().contains(TOKEN), "{structured}");
    }
}

/// A checkout's `.git` file naming another repository's git directory does
/// not make history and blame read that repository; a linked worktree,
/// whose git directory names it back, is read as usual.
#[test]
fn a_git_file_pointing_out_of_the_project_is_refused() {
    let p = Project::new();
    p.git_init();
    p.write("a.py", "PRIVATE = 1\n");
    git(&p, &["add", "."]);
    commit(&p, "Ann", "2024-01-01T10:00:00+00:00", "private");

    let evil = Project::new();
    evil.write(".git", format!("gitdir: {}\n", p.path(".git").display()))
        .write("a.py", "\n");
    for args in [&["blame", "a.py:1-1"][..], &["history", "a.py"]] {
        let r = evil.run(args);
        assert_eq!(r.code(), 2, "{r}");
        assert!(r.stderr().contains("code: UNSAFE_PATH"), "{r}");
        assert!(r.stderr().contains("hint: "), "{r}");
        assert!(!r.stdout().contains("PRIVATE"), "{r}");
    }
    let m = Mcp::start(&evil, Era::Modern);
    assert_eq!(
        mcp_error(
            &m,
            "blame",
            json!({"path": "a.py", "start_line": 1, "end_line": 1})
        ),
        "UNSAFE_PATH"
    );
    drop(m);

    let wt = Project::new();
    git(
        &p,
        &[
            "worktree",
            "add",
            "-q",
            "-b",
            "wt",
            &wt.root().display().to_string(),
        ],
    );
    let r = wt.run(&["blame", "a.py:1-1"]).ok();
    assert!(r.stdout().contains("PRIVATE = 1"), "{r}");
}

/// A committed binary file has no lines to blame: refused as `read`
/// refuses it, not printed as raw bytes.
#[test]
fn blame_refuses_a_binary_file() {
    let p = Project::new();
    p.git_init();
    p.write("logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\n");
    git(&p, &["add", "."]);
    commit(&p, "Ann", "2024-01-01T10:00:00+00:00", "logo");
    let r = p.run(&["blame", "logo.png"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("is a binary file"), "{r}");
    assert!(r.stderr().contains("hint: "), "{r}");
    assert!(r.stdout().is_empty(), "{r}");
    p.run(&["history", "logo.png"]).ok();
}
