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
