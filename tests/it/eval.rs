//! The eval runner as a smoke test: the self suite over this repository,
//! through the real `repo-search-eval` binary, with exact expectations.

use std::process::Command;

const EVAL: &str = env!("CARGO_BIN_EXE_repo-search-eval");

fn eval(args: &[&str]) -> std::process::Output {
    let home = tempfile::tempdir().expect("home");
    Command::new(EVAL)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("REPO_SEARCH_HOME", home.path())
        .output()
        .expect("run repo-search-eval")
}

#[test]
fn self_suite_passes_through_cli_and_mcp() {
    for through in ["cli", "mcp"] {
        let out = eval(&["run", "self", "--no-save", "--json", "--through", through]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "eval run self --through {through} failed:\n{stderr}"
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report JSON");
        let rows = report["rows"].as_array().expect("rows");
        for row in rows.iter().filter(|r| r["category"] == "all") {
            assert_eq!(row["failures"], 0, "{row}");
            let mode = row["mode"].as_str().unwrap_or("");
            if mode == "search_keyword" {
                assert_eq!(
                    row["exact"], 1.0,
                    "keyword sets must be exact ({through}): {row}"
                );
            } else if mode != "find_references" {
                assert_eq!(
                    row["mrr10"], 1.0,
                    "{mode} must rank the answer first ({through}): {row}"
                );
            }
        }
        assert!(rows.iter().any(|r| r["mode"] == "find_symbol"), "{report}");
    }
}

#[test]
fn list_shows_suites_and_corpora_and_bad_cases_name_file_line_field() {
    let out = eval(&["list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for want in ["self", "nl", "nav", "keyword", "django", "rust-crates"] {
        assert!(text.contains(want), "list lacks {want}:\n{text}");
    }
    let dir = tempfile::tempdir().expect("dir");
    std::fs::write(dir.path().join("corpora.toml"), "[self]\nkind = \"self\"\n").expect("corpora");
    std::fs::write(
        dir.path().join("bad.jsonl"),
        "{\"id\":\"a\",\"category\":\"search\",\"corpus\":\"self\",\"tool\":\"find_symbol\",\"query\":\"x\",\"expect\":{\"pathz\":[]}}\n",
    )
    .expect("suite");
    let out = eval(&["--evals", dir.path().to_str().expect("utf-8"), "list"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bad.jsonl:1") && err.contains("pathz"),
        "{err}"
    );
}

/// `repo-search-eval` in a project: the project's own cases, reports kept
/// where nothing is indexed.
fn eval_in(p: &crate::common::Project, args: &[&str]) -> std::process::Output {
    Command::new(EVAL)
        .args(args)
        .current_dir(p.root())
        .env("REPO_SEARCH_HOME", p.home.path())
        .env("REPO_SEARCH_OFFLINE", "1")
        .env_remove("CLAUDE_PROJECT_DIR")
        .output()
        .expect("run repo-search-eval")
}

#[test]
fn a_projects_own_cases_run_on_it_and_their_reports_are_never_indexed() {
    let p = crate::common::Project::new();
    p.write(
        "app/settings.py",
        "import tomllib\n\ndef load_settings(path):\n    with open(path, 'rb') as f:\n        return tomllib.load(f)\n",
    )
    .write(
        "app/plugins.py",
        "PLUGINS = {}\n\ndef discover_plugins(module):\n    for name in dir(module):\n        PLUGINS[name] = getattr(module, name)\n",
    );
    p.git_init();
    // Without cases of its own, --project says where to write them.
    let out = eval_in(&p, &["list", "--project"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(".repo_search/evals") && err.contains("hint:"),
        "{err}"
    );

    p.write(
        ".repo_search/evals/mine.jsonl",
        concat!(
            r#"{"id": "zqxsettings", "category": "concept", "tool": "search", "query": "where are the settings loaded", "expect": {"paths": ["app/settings.py"]}}"#,
            "\n",
            r#"{"id": "plugins-1", "category": "symbol", "tool": "find_symbol", "query": "discover_plugins", "expect": {"paths": ["app/plugins.py"]}}"#,
            "\n",
            r#"{"id": "moved-1", "category": "symbol", "tool": "find_symbol", "query": "load_settings", "expect": {"paths": ["app/config.py"]}}"#,
            "\n",
        ),
    );
    // Found without flags from anywhere in the project.
    let out = eval_in(&p, &["run", "--modes", "bm25", "--embed", "none", "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(
        err.contains("case `moved-1` expects `app/config.py`"),
        "a path the project lacks is named: {err}"
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report JSON");
    let mrr = |mode: &str| {
        report["rows"]
            .as_array()
            .expect("rows")
            .iter()
            .find(|r| r["mode"] == mode && r["category"] == "all")
            .map(|r| r["mrr10"].as_f64().unwrap_or(-1.0))
    };
    assert_eq!(mrr("bm25"), Some(1.0), "{report}");
    assert_eq!(mrr("find_symbol"), Some(0.5), "{report}");
    let results = p.path(".repo_search/evals/results");
    let saved: Vec<_> = std::fs::read_dir(&results)
        .expect("results dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    let text = std::fs::read_to_string(&saved[0]).expect("saved report");
    assert!(text.contains("zqxsettings"), "{text}");

    // The report is not code: searches find the id in the project's notes
    // only, never in the saved report.
    p.write("NOTES.md", "flaky case: zqxsettings\n");
    p.run(&["index"]).ok();
    for (args, list) in [
        (["keyword", "zqxsettings"], "matches"),
        (["search", "zqxsettings"], "hits"),
    ] {
        let answer = p.json(&args);
        let paths: Vec<&str> = answer[list]
            .as_array()
            .expect("hits")
            .iter()
            .filter_map(|h| h["path"].as_str())
            .collect();
        assert_eq!(paths, ["NOTES.md"], "{args:?}: {answer}");
    }

    let out = eval_in(&p, &["report", "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let again: serde_json::Value = serde_json::from_slice(&out.stdout).expect("report JSON");
    assert_eq!(again["rows"], report["rows"]);

    // Cases of a project search the project: a corpus or blanked lines are refused.
    p.write(
        ".repo_search/evals/bad.jsonl",
        r#"{"id": "x", "category": "concept", "corpus": "django", "tool": "search", "query": "q", "expect": {"paths": ["a.py"]}}"#,
    );
    let out = eval_in(&p, &["list"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("bad.jsonl:1") && err.contains("corpus"),
        "{err}"
    );
    p.remove(".repo_search/evals/bad.jsonl");

    // A results directory a repository planted as a symlink is refused.
    std::fs::remove_dir_all(&results).expect("remove results");
    let elsewhere = tempfile::tempdir().expect("elsewhere");
    std::os::unix::fs::symlink(elsewhere.path(), &results).expect("symlink");
    let out = eval_in(&p, &["run", "--modes", "bm25", "--embed", "none"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("symlink"), "{err}");
    assert_eq!(std::fs::read_dir(elsewhere.path()).expect("dir").count(), 0);
    std::fs::remove_file(&results).expect("remove symlink");

    // `clean` names the files the user wrote that it removes with the index.
    let c = p.json(&["clean", "--yes"]);
    assert_eq!(
        c["user_files"],
        serde_json::json!(["evals/mine.jsonl"]),
        "{c}"
    );
    assert!(!p.path(".repo_search").exists());
}
