//! Operating the tool (issue 18): `stats` through the real CLI and a real
//! MCP client on one project, adding up.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::*;
use crate::mcp::{Era, Mcp, sample, wait_indexed};

fn op<'a>(stats: &'a Value, name: &str) -> &'a Value {
    stats["ops"]
        .as_array()
        .and_then(|ops| ops.iter().find(|o| o["op"] == name))
        .unwrap_or_else(|| panic!("no `{name}` in {stats}"))
}

fn ms(v: &Value, field: &str) -> f64 {
    v[field].as_f64().unwrap_or_else(|| panic!("{field}: {v}"))
}

#[test]
fn stats_add_up_the_cli_and_mcp_operations_with_their_latencies() {
    let p = sample();
    p.run(&["index"]).ok();
    for _ in 0..3 {
        p.run(&["symbol", "parse_config"]).ok();
    }
    p.run(&["search", "validate the CSRF token"]).ok();
    p.run(&["refs", "parse_config"]).ok();
    // An operation that fails is counted as an error.
    assert_eq!(p.run(&["read", "no/such/file.rs"]).code(), 2);

    // A real MCP client on the same project.
    let m = Mcp::start(&p, Era::Legacy);
    wait_indexed(&m, 4);
    for _ in 0..10 {
        m.ok("find_symbol", json!({"name": "parse_config"}));
    }
    m.ok("search", json!({"query": "validate the CSRF token"}));
    // Calls the MCP layer refuses before they reach the operation (its own
    // argument checks) count as errors too, as on the CLI.
    m.tool_error("find_symbol", json!({"name": ""}));
    m.tool_error("search", json!({"query": "x", "limit": 0}));
    m.tool_error("read_file", json!({"path": "no/such/file.rs"}));

    let s = p.json(&["stats"]);
    let sym = op(&s, "symbol");
    assert_eq!(sym["count"], 14, "{s}");
    assert_eq!(
        (sym["by"]["cli"].as_u64(), sym["by"]["mcp"].as_u64()),
        (Some(3), Some(11)),
        "{s}"
    );
    assert_eq!(sym["errors"], 1, "{s}");
    let (p50, p95, p99, max) = (
        ms(sym, "p50_ms"),
        ms(sym, "p95_ms"),
        ms(sym, "p99_ms"),
        ms(sym, "max_ms"),
    );
    assert!(0.0 < p50 && p50 <= p95 && p95 <= p99 && p99 <= max, "{sym}");
    // The MCP tool reads the same log.
    let via_mcp = m.ok("stats", json!({}));
    assert_eq!(op(&via_mcp, "symbol")["count"], 14, "{via_mcp}");
    assert_eq!(op(&s, "search.hybrid")["count"], 3, "{s}");
    assert_eq!(op(&s, "search.hybrid")["errors"], 1, "{s}");
    assert_eq!(op(&s, "refs")["count"], 1, "{s}");
    assert_eq!(op(&s, "read")["errors"], 2, "{s}");
    assert!(op(&s, "index")["count"].as_u64().unwrap_or(0) >= 1, "{s}");
    // The CLI's index run computed vectors: a phase of its own.
    assert_eq!(op(&s, "embed")["by"]["cli"], 1, "{s}");
    assert!(
        s["sizes"]["tables"]
            .as_array()
            .is_some_and(|t| !t.is_empty()),
        "{s}"
    );

    // The text form names the operations and the percentiles.
    let text = p.run(&["stats"]).ok().stdout();
    assert!(text.contains("symbol") && text.contains("p95"), "{text}");

    // A window: everything above happened in the last hour, none in the future.
    let recent = p.json(&["stats", "--since", "1h"]);
    assert_eq!(op(&recent, "symbol")["count"], 14, "{recent}");

    // A bad span is refused with a hint, on both surfaces.
    let bad = p.run(&["stats", "--since", "yesterday"]);
    assert_eq!(bad.code(), 2, "{}", bad.stderr());
    assert!(bad.stderr().contains("hint"), "{}", bad.stderr());
    let (error, hint) = m.tool_error("stats", json!({"since": "soon"}));
    assert!(error.contains("not a time span"), "{error}");
    assert!(hint.contains("24h"), "{hint}");
}

#[test]
fn mcp_stats_latencies_are_within_the_clients_round_trips() {
    let p = sample();
    let m = Mcp::start(&p, Era::Legacy);
    wait_indexed(&m, 4);
    let mut client_ms = Vec::new();
    for _ in 0..20 {
        let t = Instant::now();
        m.ok(
            "read_file",
            json!({"path": "src/config.rs", "start_line": 1, "end_line": 5}),
        );
        client_ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    client_ms.sort_by(f64::total_cmp);
    let s = m.ok("stats", json!({"since": "1h"}));
    let read = op(&s, "read");
    assert_eq!(read["count"], 20, "{s}");
    assert_eq!(read["mcp"], 20, "{s}");
    // Each server-side time is part of one round trip: the n-th fastest
    // server time is at most the n-th fastest round trip.
    assert!(
        ms(read, "max_ms") <= client_ms[19],
        "{read} vs {client_ms:?}"
    );
    assert!(
        ms(read, "p50_ms") <= client_ms[9],
        "{read} vs {client_ms:?}"
    );
    // `stats` itself is not an operation it counts.
    assert!(
        s["ops"]
            .as_array()
            .is_some_and(|o| o.iter().all(|o| o["op"] != "stats")),
        "{s}"
    );
}

#[test]
fn stats_log_is_bounded_and_never_follows_a_planted_symlink() {
    let p = sample();
    p.run(&["index"]).ok();
    let log = p.path(".repo_search/stats.log");
    // Past its limit the log is set aside (once), and both are read.
    let f = std::fs::OpenOptions::new()
        .append(true)
        .open(&log)
        .expect("log");
    f.set_len(1 << 20).expect("grow");
    drop(f);
    p.run(&["symbol", "parse_config"]).ok();
    assert!(exists(&p.path(".repo_search/stats.log.1")));
    assert!(std::fs::metadata(&log).map(|m| m.len()).unwrap_or(0) < 4096);
    let s = p.json(&["stats"]);
    assert!(op(&s, "symbol")["count"].as_u64().unwrap_or(0) >= 1, "{s}");

    // A cloned repository's planted link is refused, its target untouched.
    let q = sample();
    q.run(&["index"]).ok();
    let victim = q.path("victim.txt");
    std::fs::write(&victim, "keep\n").expect("victim");
    let log = q.path(".repo_search/stats.log");
    let _ = std::fs::remove_file(&log);
    #[cfg(unix)]
    std::os::unix::fs::symlink(&victim, &log).expect("symlink");
    let _ = q.run(&["symbol", "parse_config"]);
    assert_eq!(std::fs::read_to_string(&victim).expect("victim"), "keep\n");
}

#[test]
fn config_set_get_unset_round_trip_keeps_comments_and_refuses_bad_values() {
    let p = sample();
    p.write(
        ".repo_search/config.toml",
        "# team settings\n[index]\n# vendored code is noise\nexclude = [\"vendor/**\"]\n",
    );
    p.run(&["config", "set", "index.max_file_size", "2097152"])
        .ok();
    p.run(&["config", "set", "embed.batch_size", "8"]).ok();
    assert_eq!(
        p.run(&["config", "get", "index.max_file_size"])
            .ok()
            .stdout()
            .trim(),
        "2097152"
    );
    let got = p.json(&["config", "get", "embed.batch_size"]);
    assert_eq!(got["value"], "8", "{got}");
    assert!(
        got["source"]
            .as_str()
            .is_some_and(|s| s.contains(".repo_search/config.toml")),
        "{got}"
    );
    let text = std::fs::read_to_string(p.path(".repo_search/config.toml")).expect("config");
    assert!(
        text.starts_with("# team settings\n[index]\n# vendored code is noise\n"),
        "{text}"
    );
    assert!(
        text.contains("exclude = [\"vendor/**\"]\nmax_file_size = 2097152\n"),
        "{text}"
    );
    assert!(text.contains("[embed]\nbatch_size = 8\n"), "{text}");

    // Bad keys and values: exit 2 with a hint, the file untouched.
    for (args, want) in [
        (vec!["config", "set", "embed.batch_size", "0"], "at least 1"),
        (
            vec!["config", "set", "index.hidden", "maybe"],
            "true or false",
        ),
        (
            vec!["config", "set", "embed.provider", "gpt"],
            "embedded, openai, ollama, none",
        ),
        (
            vec!["config", "set", "index.max_file_sise", "1"],
            "index.max_file_size",
        ),
        (
            vec!["config", "set", "index.hidden", "true", "--user"],
            "project setting",
        ),
    ] {
        let r = p.run(&args);
        assert_eq!(r.code(), 2, "{args:?}: {r}");
        assert!(
            r.stderr().contains("hint:") && r.stderr().contains(want),
            "{args:?}: {r}"
        );
    }
    assert_eq!(
        std::fs::read_to_string(p.path(".repo_search/config.toml")).expect("config"),
        text
    );

    // The user's file, then unset back to the default.
    p.run(&["config", "set", "embed.fast", "false", "--user"])
        .ok();
    let got = p.json(&["config", "get", "embed.fast"]);
    assert_eq!(
        (
            got["value"].as_str(),
            got["source"].as_str().map(|s| s.contains("user"))
        ),
        (Some("false"), Some(true)),
        "{got}"
    );
    p.run(&["config", "unset", "embed.fast", "--user"]).ok();
    p.run(&["config", "unset", "embed.batch_size"]).ok();
    let got = p.json(&["config", "get", "embed.batch_size"]);
    assert_eq!(
        (got["value"].as_str(), got["source"].as_str()),
        (Some("16"), Some("default")),
        "{got}"
    );

    // The MCP server shows the settings, read-only.
    let m = Mcp::start(&p, Era::Legacy);
    let c = m.ok("config", json!({"key": "index.max_file_size"}));
    assert_eq!(c["settings"][0]["value"], "2097152", "{c}");
    let (error, hint) = m.tool_error("config", json!({"key": "index.nope"}));
    assert!(error.contains("unknown setting"), "{error}");
    assert!(hint.contains("index.max_file_size"), "{hint}");
}

fn cache_counts(m: &Mcp) -> (u64, u64) {
    let s = m.ok("stats", json!({}));
    let c = &s["cache"];
    (
        c["hits"].as_u64().unwrap_or(u64::MAX),
        c["misses"].as_u64().unwrap_or(u64::MAX),
    )
}

fn paths(v: &Value) -> Vec<String> {
    v["hits"]
        .as_array()
        .map(|h| {
            h.iter()
                .filter_map(|h| {
                    h["at"]
                        .as_str()
                        .map(|a| a.split(':').next().unwrap_or("").to_string())
                })
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn the_query_cache_answers_repeats_and_never_an_answer_from_before_an_edit() {
    let p = sample();
    let m = Mcp::start(&p, Era::Legacy);
    wait_indexed(&m, 4);
    let q = json!({"query": "validate the CSRF token"});
    let first = m.ok("search", q.clone());
    assert_eq!(cache_counts(&m), (0, 1));
    // The same query, and the same with other spacing: answered from the cache.
    assert_eq!(m.ok("search", q.clone()), first);
    m.ok("search", json!({"query": "  validate the   CSRF token "}));
    assert_eq!(cache_counts(&m), (2, 1));
    // Another page or mode is another answer; `no_cache` does not look.
    m.ok(
        "search",
        json!({"query": "validate the CSRF token", "limit": 3}),
    );
    m.ok(
        "search",
        json!({"query": "validate the CSRF token", "no_cache": true}),
    );
    assert_eq!(cache_counts(&m), (2, 2));

    // An edit: once the index has it, the answer is computed again.
    p.write(
        "app/csrf_check.py",
        "def validate_csrf_token_strictly(request):\n    \"\"\"Validate the CSRF token of a request.\"\"\"\n    return request.token == request.session_token\n",
    );
    // Searches re-check the tree (every 2 s at most) and answer from the
    // index as it is: a cached answer is one of the index it came from, so
    // once the index has the new file, the answer has it.
    let after = poll_until(Duration::from_secs(30), || {
        let v = m.ok("search", q.clone());
        paths(&v)
            .iter()
            .any(|p| p == "app/csrf_check.py")
            .then_some(v)
    });
    assert!(after.is_some(), "the edit never reached the answers");
    let status = m.ok("index_status", json!({}));
    assert_eq!(status["files"], 5, "{status}");
    // And it was computed, not taken from before the edit.
    let (hits, misses) = cache_counts(&m);
    assert!(misses >= 3, "{hits} hits {misses} misses");

    // `cache clear` from the command line empties the server's cache.
    m.ok("search", q.clone());
    let hits = cache_counts(&m).0;
    p.run(&["cache", "clear"]).ok();
    m.ok("search", q.clone());
    assert_eq!(cache_counts(&m).0, hits, "a cleared cache answered");

    // The log counts every lookup, and what a hit saved.
    let c = p.json(&["cache", "stats"]);
    assert_eq!(c["hits"], hits, "{c}");
    assert!(c["lookups"].as_u64().unwrap_or(0) >= 7, "{c}");
    let search = op(&p.json(&["stats"]), "search.hybrid").clone();
    assert_eq!(search["cache_hits"], hits, "{search}");
}

#[test]
fn the_registry_shows_indexes_the_mcp_server_built_live_and_prunes_vanished_roots() {
    let p = sample();
    {
        // Never indexed by the CLI: the server's own first build registers it.
        let m = Mcp::start(&p, Era::Legacy);
        wait_indexed(&m, 4);
        m.ok("find_symbol", json!({"name": "parse_config"}));
    }
    let root = p.root().canonicalize().expect("root");
    let find = |v: &Value| -> Value {
        v["projects"]
            .as_array()
            .and_then(|ps| ps.iter().find(|e| e["root"] == root.display().to_string()))
            .cloned()
            .unwrap_or_else(|| panic!("{} not registered: {v}", root.display()))
    };
    let e = find(&p.json(&["projects"]));
    assert_eq!(e["files"], 4, "{e}");
    assert!(e["index_bytes"].as_u64().unwrap_or(0) > 0, "{e}");
    assert!(
        e["vectors"].as_array().is_some_and(|v| !v.is_empty()),
        "{e}"
    );
    // Figures are read from the index at listing time, whoever wrote it.
    p.write("app/more.py", "def more():\n    return 1\n");
    p.run(&["index"]).ok();
    assert_eq!(find(&p.json(&["projects"]))["files"], 5);

    // A vanished root is flagged, then pruned.
    let other = sample();
    other.run(&["index"]).ok();
    let other_root = other.root().canonicalize().expect("root");
    let gone = other_root.display().to_string();
    // Share the registry: index the other project with this one's home.
    let r = other.run_env(
        &["index"],
        &[("REPO_SEARCH_HOME", p.home.path().as_os_str())],
    );
    assert_eq!(r.code(), 0, "{r}");
    drop(other);
    let v = p.json(&["projects"]);
    let flagged = v["projects"]
        .as_array()
        .and_then(|ps| ps.iter().find(|e| e["root"] == gone))
        .cloned()
        .unwrap_or_else(|| panic!("{gone} not listed: {v}"));
    assert_eq!(flagged["root_exists"], false, "{flagged}");
    let text = p.run(&["projects"]).ok().stdout();
    assert!(text.contains("--prune"), "{text}");
    let v = p.json(&["projects", "--prune"]);
    assert!(!v.to_string().contains(&gone), "{v}");
    find(&v);
}

#[test]
fn status_shows_the_server_recent_search_times_and_the_daemon() {
    let p = sample();
    let m = Mcp::start(&p, Era::Legacy);
    wait_indexed(&m, 4);
    m.ok("search", json!({"query": "parse the config"}));
    m.ok("search", json!({"query": "validate the CSRF token"}));
    let s = m.ok("index_status", json!({}));
    let server = &s["server"];
    assert_eq!(server["version"], env!("CARGO_PKG_VERSION"), "{s}");
    assert!(server["pid"].as_u64().is_some_and(|p| p > 0), "{s}");
    assert!(
        server["rss_bytes"].as_u64().is_some_and(|b| b > 1 << 20),
        "{s}"
    );
    assert!(
        server["searches_last_hour"]
            .as_u64()
            .is_some_and(|n| n >= 2),
        "{s}"
    );
    assert!(
        server["search_mean_ms"].as_f64().is_some_and(|ms| ms > 0.0),
        "{s}"
    );
    assert!(server.get("daemon").is_none(), "no daemon runs here: {s}");
    let v = p.json(&["status"]);
    assert!(
        v["runtime"]["searches_last_hour"]
            .as_u64()
            .is_some_and(|n| n >= 2),
        "{v}"
    );
    let text = p.run(&["status"]).ok().stdout();
    assert!(
        text.contains("searches: ") && text.contains("daemon:   not running"),
        "{text}"
    );
}

#[test]
fn mcp_index_jobs_queue_report_progress_and_finish_while_search_answers() {
    let p = sample();
    let m = Mcp::start(&p, Era::Legacy);
    wait_indexed(&m, 4);
    p.write("app/added.py", "def added_later():\n    return 1\n");
    // A full rebuild and an incremental run of one path: ids at once, the
    // second queued behind the first.
    let full = m.ok("index", json!({"mode": "full"}));
    assert!(
        matches!(full["state"].as_str(), Some("queued" | "running")),
        "{full}"
    );
    let part = m.ok("index", json!({"paths": ["app"]}));
    assert_eq!(
        part["id"].as_u64(),
        full["id"].as_u64().map(|i| i + 1),
        "{part}"
    );
    assert_eq!(part["paths"], json!(["app"]), "{part}");
    // Searches keep answering meanwhile.
    m.ok("find_symbol", json!({"name": "parse_config"}));
    let jobs = poll_until(Duration::from_secs(60), || {
        let s = m.ok("index_status", json!({}));
        let jobs = s["jobs"].as_array().cloned().unwrap_or_default();
        (jobs.len() == 2 && jobs.iter().all(|j| j["state"] == "done")).then_some(jobs)
    })
    .unwrap_or_else(|| panic!("jobs never finished: {}", m.ok("index_status", json!({}))));
    assert_eq!(jobs[0]["mode"], "full", "{jobs:?}");
    assert!(
        jobs[0]["changed"].as_u64().is_some_and(|n| n >= 5),
        "{jobs:?}"
    );
    assert!(jobs[0]["seconds"].as_f64().is_some(), "{jobs:?}");
    let found = m.ok("find_symbol", json!({"name": "added_later"}));
    assert_eq!(found["total"], 1, "{found}");
    // Each job is one `index` of the MCP surface in `stats`.
    let s = p.json(&["stats"]);
    assert!(
        op(&s, "index")["by"]["mcp"]
            .as_u64()
            .is_some_and(|n| n >= 2),
        "{s}"
    );
    // The job rebuilt in place (searches meanwhile saw a complete index):
    // it holds what a rebuild from nothing holds.
    let counts = |v: &Value| {
        ["files", "symbols", "refs", "chunks"].map(|k| v[k].as_u64().unwrap_or(u64::MAX))
    };
    let in_place = counts(&p.json(&["status"]));
    p.run(&["index", "--full"]).ok();
    assert_eq!(
        in_place,
        counts(&p.json(&["status"])),
        "in place vs from nothing"
    );

    // Bad jobs are refused with a hint.
    for (args, want) in [
        (json!({"mode": "full", "paths": ["app"]}), "no paths"),
        (json!({"paths": ["../outside"]}), "outside the project root"),
        (json!({"mode": "sometimes"}), "mode"),
        (
            json!({"paths": ["app/nosuch.py"]}),
            "no such file or directory",
        ),
    ] {
        let (error, hint) = m.tool_error("index", args.clone());
        assert!(error.contains(want), "{args}: {error}");
        assert!(!hint.is_empty(), "{args}: no hint");
    }
}
