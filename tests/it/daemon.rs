//! `repo-search-daemon` end to end: the real daemon binary in a private
//! `REPO_SEARCH_HOME`, real temp projects, changes made on disk and checked
//! through `repo-search symbol`. Every wait is a `poll_until` on an
//! observable result; every test stops (or kills) its daemon on the way
//! out, pass or fail, through [`Daemon`]'s `Drop`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common::*;

/// Generous: the suite runs in parallel on small machines.
const WAIT: Duration = Duration::from_secs(30);

/// A daemon in a private home; stopped (or killed) on drop.
struct Daemon {
    home: PathBuf,
}

impl Daemon {
    fn new(home: &Path) -> Daemon {
        Daemon {
            home: home.to_path_buf(),
        }
    }

    /// Starts the daemon and checks it says so.
    fn start(home: &Path) -> Daemon {
        let d = Daemon::new(home);
        let r = d.run(&["start"]);
        assert_eq!(r.code(), 0, "{r}");
        d
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(DAEMON);
        c.args(args)
            .env("REPO_SEARCH_HOME", &self.home)
            .env_remove("REPO_SEARCH_LOG")
            .env_remove("CLAUDE_PROJECT_DIR");
        c
    }

    fn run(&self, args: &[&str]) -> Run {
        let out = self.cmd(args).output().expect("run repo-search-daemon");
        Run {
            args: args.iter().map(|s| s.to_string()).collect(),
            out,
        }
    }

    /// `status --json`, or `None` when it exits 3 (not running).
    fn status(&self) -> Option<Value> {
        let r = self.run(&["status", "--json"]);
        match r.code() {
            0 => Some(
                serde_json::from_str(&r.stdout())
                    .unwrap_or_else(|e| panic!("bad status JSON: {e}\n{r}")),
            ),
            3 => None,
            _ => panic!("{r}"),
        }
    }

    fn project(&self, root: &Path) -> Option<Value> {
        let st = self.status()?;
        st["projects"]
            .as_array()?
            .iter()
            .find(|p| p["root"].as_str() == root.to_str())
            .cloned()
    }

    /// Waits until the daemon watches `root` and its first run is done.
    fn wait_watching(&self, root: &Path) -> Value {
        poll_until(WAIT, || {
            self.project(root)
                .filter(|p| p["state"] == "watching" && p["runs"].as_u64() >= Some(1))
        })
        .unwrap_or_else(|| {
            panic!(
                "`{}` never got watched: {:?}\n{}",
                root.display(),
                self.status(),
                self.log()
            )
        })
    }

    fn pid(&self) -> Option<u32> {
        std::fs::read_to_string(self.home.join("daemon.pid"))
            .ok()?
            .trim()
            .parse()
            .ok()
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.home.join("daemon.log")).unwrap_or_default()
    }

    /// True when no process holds the one-daemon lock.
    fn lock_is_free(&self) -> bool {
        let Ok(f) = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(self.home.join("daemon.lock"))
        else {
            return true;
        };
        f.try_lock().is_ok()
    }

    fn kill9(&self) {
        if let Some(pid) = self.pid() {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        let pid = self.pid();
        let stopped = self
            .cmd(&["stop", "--timeout", "15"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !stopped && let Some(pid) = pid {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
        }
    }
}

/// A `repo-search` command in `p` using the registry and daemon of `home`.
fn rs(p: &Project, home: &Path, args: &[&str]) -> Run {
    // These commands read what the daemon wrote: they do not bring the
    // index up to date themselves first.
    let out = p
        .cmd(args)
        .env("REPO_SEARCH_HOME", home)
        .env("REPO_SEARCH_UPDATE_BEFORE_ANSWER", "false")
        .output()
        .expect("run repo-search");
    Run {
        args: args.iter().map(|s| s.to_string()).collect(),
        out,
    }
}

/// The paths where `name` is defined, per the index (readers must never
/// fail, whatever the daemon is doing).
fn defined_in(p: &Project, home: &Path, name: &str) -> Vec<String> {
    let r = rs(p, home, &["symbol", name, "--exact", "--json"]);
    assert!(r.code() <= 1, "a reader failed: {r}");
    let v: Value =
        serde_json::from_str(&r.stdout()).unwrap_or_else(|e| panic!("bad JSON: {e}\n{r}"));
    v["hits"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|h| h["path"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

/// Polls until `name` is defined exactly in `paths` (empty: nowhere).
fn wait_defined(p: &Project, home: &Path, name: &str, paths: &[&str]) {
    let want: Vec<String> = paths.iter().map(|s| s.to_string()).collect();
    let mut last = Vec::new();
    let ok = poll_until(WAIT, || {
        last = defined_in(p, home, name);
        last.sort();
        (last == want).then_some(())
    });
    assert!(
        ok.is_some(),
        "`{name}` defined in {last:?}, expected {want:?}"
    );
}

fn py(name: &str) -> String {
    format!("def {name}():\n    return 1\n")
}

/// A small project, indexed (which registers it in `home`).
fn indexed_project(home: Option<&Path>) -> Project {
    let p = Project::new();
    p.write("src/app.py", py("app_main"))
        .write("src/util.py", py("helper"));
    let home = home
        .map(Path::to_path_buf)
        .unwrap_or_else(|| p.home.path().to_path_buf());
    rs(&p, &home, &["index", "--quiet"]).ok();
    p
}

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .map(|m| m.permissions().mode() & 0o777)
        .unwrap_or(0)
}

#[test]
fn lifecycle_start_twice_status_stop() {
    let p = indexed_project(None);
    let home = p.home.path();
    let d = Daemon::new(home);
    assert!(d.status().is_none(), "no daemon yet");

    let r = d.run(&["start"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(r.stderr().contains("started repo-search-daemon"), "{r}");
    let r = d.run(&["start"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(r.stderr().contains("already running"), "{r}");

    let st = d.status().expect("running");
    assert_eq!(st["running"], true);
    assert_eq!(st["version"], env!("CARGO_PKG_VERSION"));
    assert_eq!(st["pid"].as_u64().map(|p| p as u32), d.pid());
    let project = d.wait_watching(&p.root());
    assert_eq!(project["files"], 2, "{project}");
    assert!(project["last_indexed"].is_i64(), "{project}");

    let text = d.run(&["status"]).ok();
    assert!(
        text.stdout().contains(p.root().to_str().expect("utf-8")),
        "{text}"
    );
    assert!(text.stdout().contains("watching"), "{text}");
    #[cfg(unix)]
    for f in ["daemon.sock", "daemon.pid", "daemon.log", "registry.json"] {
        assert_eq!(mode(&home.join(f)), 0o600, "{f}");
    }

    #[cfg(target_os = "linux")]
    let pid = d.pid().expect("a pid file");
    let r = d.run(&["stop"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(r.stderr().contains("stopped"), "{r}");
    // "Stopped" means gone: no process of that pid runs any more (an
    // exited one not yet reaped is a zombie, `Z`).
    #[cfg(target_os = "linux")]
    if let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        let state = stat
            .rsplit_once(')')
            .map(|(_, r)| r.trim_start().chars().next());
        assert!(
            matches!(state, Some(Some('Z' | 'X'))),
            "still running: {stat}"
        );
    }
    let r = d.run(&["status"]);
    assert_eq!(r.code(), 3, "{r}");
    let r = d.run(&["status", "--json"]);
    assert_eq!(r.code(), 3, "{r}");
    assert!(r.stdout().contains(r#""running":false"#), "{r}");
    assert!(!home.join("daemon.sock").exists() && !home.join("daemon.pid").exists());
    let r = d.run(&["stop"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(r.stderr().contains("not running"), "{r}");
}

#[test]
fn watcher_follows_creates_modifies_renames_and_deletes() {
    let p = indexed_project(None);
    p.write(".ignore", "ignored_dir/\n");
    let home = p.home.path();
    let d = Daemon::start(home);
    d.wait_watching(&p.root());

    // Create.
    p.write("src/new_mod.py", py("created_fn"));
    wait_defined(&p, home, "created_fn", &["src/new_mod.py"]);
    // Modify.
    p.write("src/new_mod.py", py("modified_fn"));
    wait_defined(&p, home, "modified_fn", &["src/new_mod.py"]);
    wait_defined(&p, home, "created_fn", &[]);
    // Rename.
    std::fs::rename(p.path("src/new_mod.py"), p.path("src/renamed.py")).expect("rename");
    wait_defined(&p, home, "modified_fn", &["src/renamed.py"]);
    // An editor that saves by writing a temp file and renaming it over.
    p.write("src/renamed.py.swp-tmp", py("saved_by_rename"));
    std::fs::rename(p.path("src/renamed.py.swp-tmp"), p.path("src/renamed.py"))
        .expect("rename over");
    wait_defined(&p, home, "saved_by_rename", &["src/renamed.py"]);
    wait_defined(&p, home, "modified_fn", &[]);
    // A new directory tree, and one moved in from outside the project.
    p.write("pkg/sub/deep.py", py("deep_fn"));
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(outside.path().join("moved/inner")).expect("mkdir");
    std::fs::write(outside.path().join("moved/inner/m.py"), py("moved_in_fn")).expect("write");
    std::fs::rename(outside.path().join("moved"), p.path("moved")).expect("move dir in");
    wait_defined(&p, home, "deep_fn", &["pkg/sub/deep.py"]);
    wait_defined(&p, home, "moved_in_fn", &["moved/inner/m.py"]);
    // A directory vanishing, and a file deleted.
    std::fs::remove_dir_all(p.path("pkg")).expect("rm -r");
    wait_defined(&p, home, "deep_fn", &[]);
    p.remove("src/renamed.py");
    wait_defined(&p, home, "saved_by_rename", &[]);
    // Ignored files never reach the index: write one, then a sentinel; once
    // the sentinel is searchable the ignored file's events were handled.
    p.write("ignored_dir/x.py", py("ignored_fn"));
    p.write("src/sentinel.py", py("sentinel_fn"));
    wait_defined(&p, home, "sentinel_fn", &["src/sentinel.py"]);
    assert!(defined_in(&p, home, "ignored_fn").is_empty());
    // The index directory's own writes do not feed back into new runs.
    let runs = |d: &Daemon| {
        d.project(&p.root())
            .and_then(|p| p["runs"].as_u64())
            .unwrap_or(0)
    };
    let before = runs(&d);
    p.write("src/sentinel.py", py("sentinel_two"));
    wait_defined(&p, home, "sentinel_two", &["src/sentinel.py"]);
    let after_settle = poll_until(WAIT, || {
        let a = runs(&d);
        std::thread::sleep(Duration::from_millis(300));
        (runs(&d) == a).then_some(a)
    })
    .expect("runs settle");
    assert!(
        after_settle - before <= 2,
        "runs went from {before} to {after_settle}: the daemon re-indexes its own writes"
    );
    // Its runs count in `stats` with the CLI's lookups.
    let r = rs(&p, home, &["stats", "--json"]).ok();
    let v: Value = serde_json::from_str(&r.stdout()).expect("stats JSON");
    let by = |op: &str, surface: &str| {
        v["ops"]
            .as_array()
            .and_then(|ops| ops.iter().find(|o| o["op"] == op))
            .and_then(|o| o["by"][surface].as_u64())
            .unwrap_or(0)
    };
    assert!(by("index", "daemon") >= 5, "{v}");
    assert!(by("symbol", "cli") >= 10, "{v}");
    // `status` shows the daemon watching this project.
    let r = rs(&p, home, &["status", "--json"]).ok();
    let v: Value = serde_json::from_str(&r.stdout()).expect("status JSON");
    assert_eq!(v["runtime"]["daemon"]["watching"], true, "{v}");
    assert!(
        v["runtime"]["daemon"]["pid"]
            .as_u64()
            .is_some_and(|p| p > 0),
        "{v}"
    );
}

#[test]
fn gitignore_edits_reconcile_the_project() {
    let p = Project::new();
    p.git_init();
    p.write("src/app.py", py("app_main"))
        .write("gen/out.py", py("generated_fn"))
        .write(".gitignore", "");
    let home = p.home.path();
    rs(&p, home, &["index", "--quiet"]).ok();
    let d = Daemon::start(home);
    d.wait_watching(&p.root());
    wait_defined(&p, home, "generated_fn", &["gen/out.py"]);

    p.write(".gitignore", "gen/\n");
    wait_defined(&p, home, "generated_fn", &[]);
    // A change inside a now-ignored directory does nothing.
    p.write("gen/more.py", py("generated_more"));
    p.write(".gitignore", "");
    wait_defined(&p, home, "generated_fn", &["gen/out.py"]);
    wait_defined(&p, home, "generated_more", &["gen/more.py"]);

    // `.gitignore` counts only inside a git repository: moving `.git`
    // away (or `git init`) changes what is ignored, as `rg` sees it.
    p.write(".gitignore", "gen/\n");
    wait_defined(&p, home, "generated_fn", &[]);
    let aside = p.home.path().join("git-aside");
    std::fs::rename(p.path(".git"), &aside).expect("move .git away");
    wait_defined(&p, home, "generated_fn", &["gen/out.py"]);
    std::fs::rename(&aside, p.path(".git")).expect("move .git back");
    wait_defined(&p, home, "generated_fn", &[]);
}

#[test]
fn reconciles_changes_made_while_stopped() {
    let p = indexed_project(None);
    let home = p.home.path();
    let d = Daemon::start(home);
    d.wait_watching(&p.root());
    assert_eq!(d.run(&["stop"]).code(), 0);

    p.write("src/app.py", py("offline_edit"));
    p.remove("src/util.py");
    p.write("src/added.py", py("offline_added"));
    let r = d.run(&["start"]);
    assert_eq!(r.code(), 0, "{r}");
    wait_defined(&p, home, "offline_edit", &["src/app.py"]);
    wait_defined(&p, home, "offline_added", &["src/added.py"]);
    wait_defined(&p, home, "helper", &[]);
}

/// The index deleted while the daemon watches (`rm -rf .repo_search`) is
/// built again whole, at once: the next edit's batch alone used to make an
/// index of that one file.
#[test]
fn an_index_deleted_under_the_watch_is_built_again_whole() {
    let p = indexed_project(None);
    let home = p.home.path();
    let d = Daemon::start(home);
    d.wait_watching(&p.root());
    std::fs::remove_dir_all(p.path(".repo_search")).expect("delete the index");
    p.write("src/added.py", py("added_after"));
    // `status` reads and never builds (a search would build it itself).
    let mut last = Value::Null;
    let whole = poll_until(WAIT, || {
        let r = rs(&p, home, &["status", "--json"]);
        last = serde_json::from_str(&r.stdout()).unwrap_or(Value::Null);
        (last["files"] == 3).then_some(())
    });
    assert!(whole.is_some(), "not rebuilt whole: {last}");
    wait_defined(&p, home, "helper", &["src/util.py"]);
}

#[test]
fn stale_pid_file_and_socket_do_not_block_start() {
    let p = indexed_project(None);
    let home = p.home.path();
    // A pid file naming a live process that is not a daemon (this test),
    // and a socket nobody listens on, as a `kill -9` leaves them.
    std::fs::write(home.join("daemon.pid"), format!("{}\n", std::process::id())).expect("pid file");
    #[cfg(unix)]
    drop(std::os::unix::net::UnixListener::bind(home.join("daemon.sock")).expect("stale socket"));
    assert!(home.join("daemon.sock").exists());

    let d = Daemon::new(home);
    assert!(
        d.status().is_none(),
        "a stale socket is not a running daemon"
    );
    let r = d.run(&["start"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(r.stderr().contains("started"), "{r}");
    let st = d.status().expect("running");
    assert_ne!(st["pid"].as_u64(), Some(u64::from(std::process::id())));
    d.wait_watching(&p.root());
}

#[test]
fn kill_9_during_a_burst_leaves_a_usable_index_and_restart_resumes() {
    let p = indexed_project(None);
    let home = p.home.path();
    let d = Daemon::start(home);
    d.wait_watching(&p.root());
    for i in 0..400 {
        p.write(
            &format!("burst/f{i:03}.py"),
            py(&format!("burst_fn_{i:03}")),
        );
    }
    // Kill it while it is (most likely) in the middle of indexing them.
    poll_until(WAIT, || {
        d.project(&p.root())
            .filter(|p| p["events_last_minute"].as_u64() > Some(0))
    });
    d.kill9();
    // Gone once its lock is free (on a busy disk, exiting can take a while).
    poll_until(Duration::from_secs(120), || d.lock_is_free().then_some(()))
        .expect("daemon gone after kill -9");
    assert!(d.status().is_none(), "status after kill -9");

    // The index is usable as it is.
    let r = rs(&p, home, &["status", "--json"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(defined_in(&p, home, "app_main") == ["src/app.py"]);

    let r = d.run(&["start"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(r.stderr().contains("started"), "{r}");
    let files = poll_until(WAIT, || {
        d.project(&p.root())
            .filter(|p| p["files"] == 402 && p["state"] == "watching")
    });
    assert!(files.is_some(), "{:?}\n{}", d.status(), d.log());
    wait_defined(&p, home, "burst_fn_399", &["burst/f399.py"]);
    wait_defined(&p, home, "burst_fn_000", &["burst/f000.py"]);
}

#[test]
fn a_burst_of_1000_files_is_batched_and_readers_never_fail() {
    let p = indexed_project(None);
    let home = p.home.path().to_path_buf();
    let d = Daemon::start(&home);
    let before = d.wait_watching(&p.root())["runs"].as_u64().unwrap_or(0);
    let root = p.root();
    let writer = std::thread::spawn(move || {
        for i in 0..1000 {
            let path = root.join(format!("checkout/d{}/f{i:04}.py", i % 10));
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, format!("def checkout_fn_{i:04}():\n    return {i}\n"))
                .expect("write");
        }
    });
    // Readers keep working (never an error, never blocked for long) while
    // the daemon writes.
    let deadline = Instant::now() + WAIT;
    let mut reads = 0;
    let done = loop {
        let t = Instant::now();
        let v = rs(&p, &home, &["status", "--json"]);
        assert_eq!(v.code(), 0, "{v}");
        let _ = defined_in(&p, &home, "checkout_fn_0999");
        reads += 1;
        assert!(
            t.elapsed() < Duration::from_secs(10),
            "a reader waited {:?}",
            t.elapsed()
        );
        let st = d.project(&p.root()).expect("project status");
        if st["files"] == 1002 && st["state"] == "watching" {
            break st;
        }
        assert!(
            Instant::now() < deadline,
            "not all files indexed: {st}\n{}",
            d.log()
        );
    };
    writer.join().expect("writer");
    assert!(reads >= 1);
    let runs = done["runs"].as_u64().unwrap_or(0) - before;
    eprintln!("1000 files: {runs} index runs");
    assert!(
        runs <= 100,
        "1000 files took {runs} index runs: not batched"
    );
    wait_defined(&p, &home, "checkout_fn_0000", &["checkout/d0/f0000.py"]);
    wait_defined(&p, &home, "checkout_fn_0999", &["checkout/d9/f0999.py"]);
}

#[test]
fn index_asks_the_daemon_when_it_watches_the_project() {
    let p = indexed_project(None);
    let home = p.home.path();
    let d = Daemon::start(home);
    d.wait_watching(&p.root());
    p.write("src/extra.py", py("extra_fn"));
    let r = rs(&p, home, &["index"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(r.stderr().contains("indexed by repo-search-daemon"), "{r}");
    // Its vectors are the daemon's to compute: `index` does not wait for
    // the writer lock the daemon holds meanwhile. Said so when the run
    // changed files (the daemon's watcher may have been first).
    let note = "repo-search-daemon computes the vectors in the background";
    assert_eq!(
        r.stderr().contains(note),
        !r.stdout().contains("(0 changed"),
        "{r}"
    );
    assert!(r.stdout().starts_with("indexed 3 files"), "{r}");
    // Nothing changed: no vectors to compute, no note.
    let r = rs(&p, home, &["index"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(r.stdout().contains("(0 changed"), "{r}");
    assert!(!r.stderr().contains(note), "{r}");
    let r = rs(&p, home, &["index", "--json"]);
    assert_eq!(r.code(), 0, "{r}");
    let v: Value = serde_json::from_str(&r.stdout()).expect("summary JSON");
    assert_eq!(v["files"], 3, "{v}");
    assert!(v.get("embed").is_none(), "{v}");
    assert_eq!(defined_in(&p, home, "extra_fn"), ["src/extra.py"]);
    drop(d);
    let r = rs(&p, home, &["index"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(!r.stderr().contains("repo-search-daemon"), "{r}");
}

#[test]
fn projects_list_unwatch_watch_remove() {
    let p1 = indexed_project(None);
    let home = p1.home.path();
    let p2 = indexed_project(Some(home));
    let list = |args: &[&str]| -> Value {
        let mut a = vec!["projects"];
        a.extend_from_slice(args);
        a.push("--json");
        let r = rs(&p1, home, &a);
        assert_eq!(r.code(), 0, "{r}");
        serde_json::from_str(&r.stdout()).expect("JSON")
    };
    let v = list(&[]);
    let roots: Vec<&str> = v["projects"]
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|p| p["root"].as_str())
        .collect();
    assert_eq!(roots.len(), 2, "{v}");
    assert!(
        v["projects"]
            .as_array()
            .expect("array")
            .iter()
            .all(|p| p["watch"] == true && p["files"] == 2),
        "{v}"
    );
    assert_eq!(v["daemon_running"], false);

    let d = Daemon::start(home);
    d.wait_watching(&p1.root());
    d.wait_watching(&p2.root());

    let r1 = p1.root();
    let r1s = r1.to_str().expect("utf-8");
    list(&["unwatch", r1s]);
    poll_until(WAIT, || {
        d.project(&r1)
            .filter(|p| p["state"] == "idle" && p["watch"] == false)
    })
    .expect("p1 unwatched");
    p1.write("src/late.py", py("late_fn"));
    p2.write("src/late.py", py("late_fn"));
    wait_defined(&p2, home, "late_fn", &["src/late.py"]);
    assert!(
        defined_in(&p1, home, "late_fn").is_empty(),
        "an unwatched project was indexed"
    );

    list(&["watch", r1s]);
    wait_defined(&p1, home, "late_fn", &["src/late.py"]);
    let text = rs(&p1, home, &["projects"]).ok();
    assert!(text.stdout().contains("[watching]"), "{text}");

    let r2 = p2.root();
    list(&["remove", r2.to_str().expect("utf-8")]);
    poll_until(WAIT, || d.project(&r2).is_none().then_some(())).expect("p2 gone from status");
    let v = list(&[]);
    assert_eq!(v["projects"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v["daemon_running"], true);

    let r = rs(&p1, home, &["projects", "remove", "/no/such/project"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("hint:"), "{r}");
}

#[test]
fn a_vanished_root_is_an_error_not_fatal() {
    let p1 = indexed_project(None);
    let home = p1.home.path();
    let p2 = indexed_project(Some(home));
    let d = Daemon::start(home);
    d.wait_watching(&p1.root());
    d.wait_watching(&p2.root());

    let r1 = p1.root();
    // The daemon sees the files go and writes the index meanwhile, so a
    // removal can meet a file it just wrote: retry until the tree is gone.
    poll_until(WAIT, || match std::fs::remove_dir_all(&r1) {
        Ok(()) => Some(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(()),
        Err(_) => None,
    })
    .expect("remove project 1");
    let st = poll_until(WAIT, || d.project(&r1).filter(|p| p["state"] == "error"))
        .unwrap_or_else(|| panic!("p1 not in error: {:?}\n{}", d.project(&r1), d.log()));
    assert!(
        st["error"]
            .as_str()
            .unwrap_or("")
            .contains("does not exist"),
        "{st}"
    );

    // The other project is still kept fresh.
    p2.write("src/still.py", py("still_fresh"));
    wait_defined(&p2, home, "still_fresh", &["src/still.py"]);

    // When the root comes back, the daemon picks it up again.
    std::fs::create_dir_all(r1.join("src")).expect("recreate");
    std::fs::write(r1.join("src/back.py"), py("back_fn")).expect("write");
    d.wait_watching(&r1);
    wait_defined(&p1, home, "back_fn", &["src/back.py"]);
}

#[test]
fn a_corrupt_registry_is_set_aside_with_a_warning() {
    let p = Project::new();
    std::fs::write(p.home.path().join("registry.json"), "{ this is not json").expect("write");
    let r = p.run(&["projects"]);
    assert_eq!(r.code(), 1, "{r}");
    assert!(r.stderr().contains("corrupt"), "{r}");
    let aside = std::fs::read_dir(p.home.path())
        .expect("ls")
        .filter_map(|e| e.ok())
        .any(|e| {
            e.file_name()
                .to_string_lossy()
                .starts_with("registry.json.corrupt-")
        });
    assert!(aside, "the corrupt registry was not kept");
}

#[test]
fn the_daemon_embeds_new_chunks_in_the_background() {
    let Some(models) = crate::embed::test_models() else {
        return;
    };
    let p = Project::new();
    let home = p.home.path();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&models, home.join("models")).expect("link the model cache");
    // Fast tier only (no full-tier provider): the test takes seconds.
    p.write(".repo_search/config.toml", "[embed]\nprovider = \"none\"\n")
        .write(
            "src/pay.py",
            "def retry_failed_payment(p):\n    \"\"\"Charge the card again.\"\"\"\n    return p.charge()\n",
        );
    let r = rs(&p, home, &["index", "--no-embed", "--quiet"]);
    assert_eq!(r.code(), 0, "{r}");
    let d = Daemon::start(home);
    d.wait_watching(&p.root());
    // The embedder catches up with the vectors `index --no-embed` skipped.
    let done = |d: &Daemon| {
        d.project(&p.root()).and_then(|s| {
            let e = s["embeddings"].clone();
            (e["state"] == "done").then_some(e)
        })
    };
    let e = poll_until(WAIT, || done(&d))
        .unwrap_or_else(|| panic!("never embedded: {:?}\n{}", d.status(), d.log()));
    let fast = &e["tiers"][0];
    assert_eq!(fast["tier"], "fast", "{e}");
    assert!(fast["total_chunks"].as_u64() >= Some(1), "{e}");
    assert_eq!(fast["with_vectors"], fast["total_chunks"], "{e}");
    let text = d.run(&["status"]);
    assert!(
        text.stdout()
            .contains("vectors:  done: fast minishlab/potion-base-8M"),
        "{text}"
    );

    // A new file gets its vector without any command.
    p.write(
        "src/mail.py",
        "def send_welcome_email(user):\n    \"\"\"Email a new user a greeting.\"\"\"\n    return mailer.send(user.email)\n",
    );
    let mut last = Value::Null;
    let found = poll_until(WAIT, || {
        let r = rs(
            &p,
            home,
            &[
                "search",
                "email a greeting to a new user",
                "--mode",
                "semantic",
                "--json",
            ],
        );
        assert!(r.code() <= 1, "{r}");
        last = serde_json::from_str(&r.stdout()).unwrap_or(Value::Null);
        (last["partial"] == false && last["hits"][0]["path"] == "src/mail.py").then_some(())
    });
    assert!(found.is_some(), "{last}\n{}", d.log());
}

#[test]
fn while_the_daemon_watches_an_edit_keeps_semantic_search_on_the_full_model() {
    let Some(models) = crate::embed::test_models() else {
        return;
    };
    let p = Project::new();
    let home = p.home.path();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&models, home.join("models")).expect("link the model cache");
    p.write(
        "src/pay.py",
        "def retry_failed_payment(p):\n    \"\"\"Charge the card again.\"\"\"\n    return p.charge()\n",
    )
    .write(
        "src/math.py",
        "def add_numbers(a, b):\n    \"\"\"Return the sum.\"\"\"\n    return a + b\n",
    );
    // Both tiers, complete (a small tree).
    let r = rs(&p, home, &["index", "--quiet"]);
    assert_eq!(r.code(), 0, "{r}");
    let d = Daemon::start(home);
    d.wait_watching(&p.root());
    p.write(
        "src/mail.py",
        "def send_welcome_email(user):\n    \"\"\"Email a new user a greeting.\"\"\"\n    return mailer.send(user.email)\n",
    );
    // Every answer comes from the full model; within seconds it has the
    // new chunk too.
    let mut last = Value::Null;
    let found = poll_until(WAIT, || {
        let r = rs(
            &p,
            home,
            &[
                "search",
                "email a greeting to a new user",
                "--mode",
                "semantic",
                "--json",
            ],
        );
        assert!(r.code() <= 1, "{r}");
        last = serde_json::from_str(&r.stdout()).unwrap_or(Value::Null);
        assert_eq!(
            last["model"], "sentence-transformers/all-MiniLM-L6-v2",
            "{last}"
        );
        (last["partial"] == false && last["hits"][0]["path"] == "src/mail.py").then_some(())
    });
    assert!(found.is_some(), "{last}\n{}", d.log());
}

/// The call graph is as fresh as the rest: a save that adds a call makes
/// it a resolved caller, one that removes it or deletes the callee's file
/// leaves no edge.
#[test]
fn the_daemon_keeps_callers_fresh() {
    let p = indexed_project(None);
    let home = p.home.path();
    let d = Daemon::start(home);
    d.wait_watching(&p.root());
    let callers = |p: &Project| -> Vec<(String, String)> {
        let r = rs(p, home, &["callers", "helper", "--json"]);
        let v: Value = serde_json::from_str(&r.stdout()).unwrap_or(Value::Null);
        v["edges"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|e| {
                (
                    format!("{}:{}", e["path"].as_str().unwrap_or(""), e["line"]),
                    e["resolution"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect()
    };
    p.write(
        "src/app.py",
        "from .util import helper\n\n\ndef app_main():\n    return helper()\n",
    );
    let want = vec![("src/app.py:5".to_string(), "resolved".to_string())];
    let mut last = Vec::new();
    let got = poll_until(WAIT, || {
        last = callers(&p);
        (last == want).then_some(())
    });
    assert!(got.is_some(), "callers of helper: {last:?}\n{}", d.log());

    p.write("src/app.py", py("app_main"));
    let got = poll_until(WAIT, || {
        last = callers(&p);
        last.is_empty().then_some(())
    });
    assert!(got.is_some(), "a removed call stays an edge: {last:?}");

    p.write("src/app.py", "from .util import helper\n\nhelper()\n");
    poll_until(WAIT, || (!callers(&p).is_empty()).then_some(()))
        .unwrap_or_else(|| panic!("call not seen again"));
    p.remove("src/util.py");
    let r = poll_until(WAIT, || {
        let r = rs(&p, home, &["callers", "helper"]);
        (r.code() == 1).then_some(r)
    })
    .unwrap_or_else(|| panic!("the deleted callee is still defined"));
    assert!(r.stderr().contains("no definition named `helper`"), "{r}");
}

/// `keyword --json -vv` and whether it listed the index's files instead of
/// walking (from the service's debug line).
fn keyword_listed(p: &Project, home: &Path, args: &[&str]) -> (Value, bool) {
    let mut a = vec!["keyword", "--json", "--verbose", "--verbose"];
    a.extend_from_slice(args);
    let r = rs(p, home, &a);
    assert!(r.code() <= 1, "{r}");
    let v: Value =
        serde_json::from_str(&r.stdout()).unwrap_or_else(|e| panic!("bad JSON: {e}\n{r}"));
    (v, r.stderr().contains("listed from the index"))
}

/// While the daemon watches, keyword search lists the index's files and
/// reads only candidates plus what changed since the last run, which the
/// daemon hears at once: right after each change, before any run took it
/// in, the answer is the full scan's.
#[test]
fn keyword_search_trusts_the_watcher_and_is_never_stale() {
    let p = Project::new();
    p.git_init();
    p.write(".gitignore", "build/\n")
        .write("src/app.py", py("app_main"))
        .write("src/util.py", py("helper"))
        .write("docs/guide.md", "How to call app_main.\n")
        .write("build/out.py", py("app_main"));
    for rel in [
        ".gitignore",
        "src/app.py",
        "src/util.py",
        "docs/guide.md",
        "build/out.py",
    ] {
        let f = std::fs::File::options()
            .write(true)
            .open(p.path(rel))
            .expect("open");
        f.set_modified(std::time::SystemTime::now() - Duration::from_secs(3600))
            .expect("age");
    }
    let home = p.home.path();
    rs(&p, home, &["index", "--quiet", "--no-embed"]).ok();
    let d = Daemon::start(home);
    d.wait_watching(&p.root());
    let same = |args: &[&str]| -> (Value, bool) {
        let (with, listed) = keyword_listed(&p, home, args);
        let mut scan = args.to_vec();
        scan.push("--no-index");
        let (without, _) = keyword_listed(&p, home, &scan);
        assert_eq!(with, without, "listed and scanned differ for {args:?}");
        (with, listed)
    };
    let paths = |v: &Value| -> Vec<String> {
        v["matches"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|m| m["path"].as_str().unwrap_or("").to_string())
                    .collect()
            })
            .unwrap_or_default()
    };
    let listed_ok = poll_until(WAIT, || same(&["app_main"]).1.then_some(()));
    assert!(
        listed_ok.is_some(),
        "the watched index is never listed\n{}",
        d.log()
    );
    let (v, _) = same(&["app_main"]);
    assert_eq!(paths(&v), ["docs/guide.md", "src/app.py"]);

    let mut listed_runs = 0;
    let mut check = |args: &[&str], want: &[&str]| {
        let (v, listed) = same(args);
        listed_runs += usize::from(listed);
        assert_eq!(paths(&v), want, "{args:?}");
    };
    // An edit, a new code file, a new text file, a deletion: each searched
    // at once, before the daemon's run.
    p.write("src/util.py", "def helper():\n    return app_main()\n");
    check(
        &["app_main"],
        &["docs/guide.md", "src/app.py", "src/util.py"],
    );
    p.write("src/new.py", py("fresh_fn"));
    check(&["fresh_fn"], &["src/new.py"]);
    p.write("notes.txt", "fresh_fn in a note\n");
    check(&["fresh_fn"], &["notes.txt", "src/new.py"]);
    p.remove("src/new.py");
    check(&["fresh_fn"], &["notes.txt"]);
    // Ignored files stay out; a rename is read under its new name.
    p.write("build/more.py", py("fresh_fn"));
    check(&["fresh_fn"], &["notes.txt"]);
    std::fs::rename(p.path("notes.txt"), p.path("docs/notes.txt")).expect("rename");
    check(&["fresh_fn"], &["docs/notes.txt"]);
    // A directory moved in whole (no event names its files) and an ignore
    // rule changed: answers stay the scan's (by walking until a run).
    let outside = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(outside.path().join("pkg")).expect("mkdir");
    std::fs::write(outside.path().join("pkg/m.py"), py("fresh_fn")).expect("write");
    std::fs::rename(outside.path().join("pkg"), p.path("pkg")).expect("move in");
    check(&["fresh_fn"], &["docs/notes.txt", "pkg/m.py"]);
    p.write(".gitignore", "");
    check(
        &["fresh_fn"],
        &["build/more.py", "docs/notes.txt", "pkg/m.py"],
    );
    // Once the daemon caught up, the list is trusted again.
    let caught_up = poll_until(WAIT, || same(&["fresh_fn"]).1.then_some(()));
    assert!(caught_up.is_some(), "never listed again\n{}", d.log());
    check(
        &["-i", "FRESH_FN"],
        &["build/more.py", "docs/notes.txt", "pkg/m.py"],
    );
    assert!(listed_runs >= 4, "listed only {listed_runs} times");
    // Text output is printed file by file while the search runs when the
    // files are listed: the scan's lines, context separators and cut.
    p.write(
        "src/more.py",
        "x = 1\n# fresh_fn\ny = 2\n\n\nz = fresh_fn\n",
    );
    for args in [
        &["-C", "1", "fresh_fn"][..],
        &["--max-results", "2", "-e", "fresh_fn", "-e", "def"],
    ] {
        let text = |extra: &[&str]| {
            let mut a = vec!["keyword", "--verbose", "--verbose"];
            a.extend_from_slice(args);
            a.extend_from_slice(extra);
            let r = rs(&p, home, &a);
            assert_eq!(r.code(), 0, "{r}");
            let notes: Vec<String> = r
                .stderr()
                .lines()
                .filter(|l| l.starts_with("(the first"))
                .map(str::to_string)
                .collect();
            (
                r.stdout(),
                notes,
                r.stderr().contains("listed from the index"),
            )
        };
        let (listed, listed_notes, was_listed) = text(&[]);
        let (scanned, scanned_notes, _) = text(&["--no-index"]);
        assert!(was_listed, "{args:?} not listed");
        assert_eq!(listed, scanned, "{args:?}");
        assert_eq!(listed_notes, scanned_notes, "{args:?}");
        assert!(listed.lines().count() >= 2, "{args:?}: {listed}");
    }
}

/// With the daemon watching, an MCP call made right after a save answers
/// from the saved file. The server's own watch never vouches while the
/// daemon is the writer, so it asks the daemon what changed at every call
/// (not only every 2 s), and re-checks those files itself or waits for the
/// daemon's run: answers given 3 ms after a save were stale, without a
/// note.
#[test]
fn mcp_with_a_daemon_sees_a_save_made_just_before_the_call() {
    let p = indexed_project(None);
    let d = Daemon::start(p.home.path());
    d.wait_watching(&p.root());
    let m = crate::mcp::Mcp::start(&p, crate::mcp::Era::Legacy);
    m.lookup("find_symbol", serde_json::json!({"name": "app_main"}));
    for i in 0..5 {
        let name = format!("saved_just_now_{i}");
        p.write(&format!("src/saved_{i}.py"), py(&name));
        let v = m.lookup("find_symbol", serde_json::json!({"name": name}));
        assert_eq!(
            v["total"],
            1,
            "save {i} not in the next answer: {v}\n{}",
            d.log()
        );
    }
}
