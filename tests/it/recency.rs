//! Recency as a ranking signal: on a real git repository (built with the
//! `git` binary, fixed dates) two files match a query equally and one was
//! changed much more recently; `--recency on` (or a query about recent work
//! under `auto`) puts the recent one first, `off` keeps the tie's order. A
//! project without git history, or a shallow clone, searches the same with
//! `on`. Through the CLI's JSON and a real MCP client.

use serde_json::{Value, json};

use crate::common::Project;
use crate::history::{commit, git};
use crate::mcp::{Era, Mcp, hit_paths, wait_indexed};

/// The same function in two files: BM25, symbol and keyword arms score
/// them alike, and the tie breaks by path (`cache_one.py` first).
const CACHE_PY: &str = "def evict_stale_entries(cache, now):\n    \"\"\"Evict stale entries from the cache.\"\"\"\n    for key in list(cache):\n        if cache[key].expires < now:\n            del cache[key]\n";

const QUERY: &str = "evict stale entries from the cache";
const RECENT_QUERY: &str = "recently changed code that evicts stale entries from the cache";

fn files(p: &Project) -> &Project {
    p.write("cache_one.py", CACHE_PY)
        .write("cache_two.py", CACHE_PY)
        .write("notes.txt", "unrelated\n")
}

/// `cache_one.py` committed on 1 January, `cache_two.py` on 1 March (the
/// newest commit): two months apart.
fn repo() -> Project {
    let p = Project::new();
    p.git_init();
    files(&p);
    p.remove("cache_two.py");
    git(&p, &["add", "."]);
    commit(&p, "Ann", "2024-01-01T10:00:00+00:00", "cache eviction");
    p.write("cache_two.py", CACHE_PY);
    git(&p, &["add", "."]);
    commit(&p, "Bob", "2024-03-01T10:00:00+00:00", "a second cache");
    p
}

/// The two cache files in the order the search put them.
fn order(found: &[String]) -> Vec<&str> {
    found
        .iter()
        .map(String::as_str)
        .filter(|p| p.starts_with("cache_"))
        .collect()
}

fn search(p: &Project, query: &str, extra: &[&str]) -> Value {
    let mut args = vec!["search", query];
    args.extend_from_slice(extra);
    p.json(&args)
}

#[test]
fn recency_on_prefers_the_recently_changed_file_and_off_keeps_the_tie() {
    let p = repo();
    p.run(&["index"]).ok();

    let off = search(&p, QUERY, &["--recency", "off"]);
    assert_eq!(
        order(&hit_paths(&off)),
        ["cache_one.py", "cache_two.py"],
        "{off}"
    );
    assert!(
        off["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h.get("recency").is_none()),
        "{off}"
    );
    // `auto` is the default; this query does not ask about recent work.
    let auto = search(&p, QUERY, &[]);
    assert_eq!(hit_paths(&auto), hit_paths(&off), "{auto}");

    let on = search(&p, QUERY, &["--recency", "on"]);
    assert_eq!(
        order(&hit_paths(&on)),
        ["cache_two.py", "cache_one.py"],
        "{on}"
    );
    // The boost shows on each hit: the newest commit's file gets the full
    // 0.2; the other was added by the history's first commit, the import
    // of the tree, which is no recent work.
    let boost = |path: &str| {
        on["hits"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| h["path"] == path)
            .and_then(|h| h["recency"].as_f64())
    };
    assert_eq!(boost("cache_two.py"), Some(0.2), "{on}");
    assert_eq!(boost("cache_one.py"), None, "{on}");
    assert!(
        on["query_interpretation"]
            .as_str()
            .is_some_and(|q| q.contains("recently changed files preferred")),
        "{on}"
    );

    // Under `auto`, a question about recent work turns it on...
    let asked = search(&p, RECENT_QUERY, &[]);
    assert_eq!(
        order(&hit_paths(&asked)),
        ["cache_two.py", "cache_one.py"],
        "{asked}"
    );
    // ...unless it is off.
    let asked_off = search(&p, RECENT_QUERY, &["--recency", "off"]);
    assert_eq!(
        order(&hit_paths(&asked_off)),
        ["cache_one.py", "cache_two.py"],
        "{asked_off}"
    );

    // BM25 alone, and one arm alone, re-order the same way.
    for mode in ["bm25", "keyword"] {
        let q = if mode == "keyword" {
            "evict_stale_entries"
        } else {
            QUERY
        };
        let off = search(&p, q, &["--mode", mode, "--recency", "off"]);
        assert_eq!(
            order(&hit_paths(&off)),
            ["cache_one.py", "cache_two.py"],
            "{mode}: {off}"
        );
        let on = search(&p, q, &["--mode", mode, "--recency", "on"]);
        assert_eq!(
            order(&hit_paths(&on)),
            ["cache_two.py", "cache_one.py"],
            "{mode}: {on}"
        );
    }

    // The text output shows it only in detail.
    let text = p.run(&["search", QUERY, "--recency", "on"]).ok().stdout();
    assert!(!text.contains("recency"), "{text}");
    let text = p
        .run(&["search", QUERY, "--recency", "on", "--detail"])
        .ok()
        .stdout();
    assert!(text.contains("recency +0.20"), "{text}");

    // A bad value is refused by the command line, with the choices.
    let r = p.run(&["search", QUERY, "--recency", "sometimes"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("auto"), "{r}");
}

#[test]
fn without_git_history_recency_changes_nothing() {
    // No repository at all.
    let p = Project::new();
    files(&p);
    p.run(&["index"]).ok();
    let off = search(&p, QUERY, &["--recency", "off"]);
    let on = search(&p, QUERY, &["--recency", "on"]);
    assert_eq!(
        order(&hit_paths(&off)),
        ["cache_one.py", "cache_two.py"],
        "{off}"
    );
    assert_eq!(hit_paths(&on), hit_paths(&off), "{on}");
    assert!(
        on["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h.get("recency").is_none()),
        "{on}"
    );

    // A repository without commits yet, and a shallow clone: the same.
    let p = Project::new();
    p.git_init();
    files(&p);
    p.run(&["index"]).ok();
    let on = search(&p, QUERY, &["--recency", "on"]);
    assert_eq!(
        order(&hit_paths(&on)),
        ["cache_one.py", "cache_two.py"],
        "{on}"
    );

    let src = repo();
    let clone = Project::new();
    let url = format!("file://{}", src.root().display());
    let out = std::process::Command::new("git")
        .args(["clone", "-q", "--depth", "1", &url, "."])
        .current_dir(clone.root())
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", clone.home.path())
        .output()
        .expect("run git clone");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    clone.run(&["index"]).ok();
    let on = search(&clone, QUERY, &["--recency", "on"]);
    assert_eq!(
        order(&hit_paths(&on)),
        ["cache_one.py", "cache_two.py"],
        "{on}"
    );
}

#[test]
fn mcp_search_takes_recency_and_a_new_commit_is_seen() {
    let p = repo();
    let m = Mcp::start(&p, Era::Modern);
    wait_indexed(&m, 3);

    let off = m.ok("search", json!({"query": QUERY, "recency": "off"}));
    assert_eq!(
        order(&hit_paths(&off)),
        ["cache_one.py", "cache_two.py"],
        "{off}"
    );
    // Compact answers say nothing new.
    let on = m.ok("search", json!({"query": QUERY, "recency": "on"}));
    assert_eq!(
        order(&hit_paths(&on)),
        ["cache_two.py", "cache_one.py"],
        "{on}"
    );
    assert!(!on.to_string().contains("recency"), "{on}");
    let auto = m.ok("search", json!({"query": RECENT_QUERY}));
    assert_eq!(
        order(&hit_paths(&auto)),
        ["cache_two.py", "cache_one.py"],
        "{auto}"
    );
    // Detail shows the boost.
    let detail = m.ok(
        "search",
        json!({"query": QUERY, "recency": "on", "detail": true}),
    );
    assert_eq!(detail["hits"][0]["path"], "cache_two.py", "{detail}");
    assert_eq!(detail["hits"][0]["recency"], 0.2, "{detail}");
    // Bulk queries share it.
    let bulk = m.ok(
        "search",
        json!({"queries": [QUERY, "stale cache entries"], "recency": "on"}),
    );
    for r in bulk["results"].as_array().unwrap() {
        assert_eq!(
            order(&hit_paths(r)),
            ["cache_two.py", "cache_one.py"],
            "{bulk}"
        );
    }

    // A new commit (only `cache_one.py`'s mode: the text, and so every
    // other signal, stays the same) makes it the recent one; the server
    // reads the history again for the new HEAD.
    let mut perm = std::fs::metadata(p.path("cache_one.py"))
        .unwrap()
        .permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(p.path("cache_one.py"), perm).unwrap();
    commit(
        &p,
        "Cy",
        "2024-06-01T10:00:00+00:00",
        "cache_one is a script",
    );
    let on = m.ok("search", json!({"query": QUERY, "recency": "on"}));
    assert_eq!(
        order(&hit_paths(&on)),
        ["cache_one.py", "cache_two.py"],
        "{on}"
    );

    // A value outside the enum is a tool error with a hint.
    let (error, hint) = m.tool_error("search", json!({"query": QUERY, "recency": "sometimes"}));
    assert!(error.contains("recency"), "{error}");
    assert!(hint.contains("auto"), "{hint}");
}
