//! The file system cannot be turned against the user (issue 15): a planted
//! `.repo_search` symlink, loose modes, a loose or foreign
//! `REPO_SEARCH_HOME`, a daemon socket of another user, and FIFOs in a
//! project. Real binaries, real files, real sockets and FIFOs.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::net::UnixListener;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::*;

fn sample() -> Project {
    let p = Project::new();
    p.write("src/lib.rs", "pub fn parse_config() -> u32 {\n    42\n}\n")
        .write("app/views.py", "def login_view(request):\n    return 1\n");
    p
}

/// Runs `cmd` and kills it if it takes longer than `limit`: a tool that
/// blocks on a FIFO fails the test instead of hanging it.
fn output_within(mut cmd: Command, limit: Duration, what: &str) -> Output {
    let child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let pid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(limit) {
        Ok(out) => out.expect("wait"),
        Err(_) => {
            let _ = Command::new("kill").args(["-9", &pid.to_string()]).status();
            panic!("{what} did not answer within {limit:?}");
        }
    }
}

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p)
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
        .mode()
        & 0o777
}

fn mkfifo(p: &Path) {
    let ok = Command::new("mkfifo").arg(p).status().expect("run mkfifo");
    assert!(ok.success(), "mkfifo {}", p.display());
}

fn is_root() -> bool {
    repo_search::fs_safe::euid() == 0
}

/// A raw MCP client on the real server's stdio whose reads time out.
struct RawMcp {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: mpsc::Receiver<String>,
}

impl RawMcp {
    fn start(p: &Project) -> RawMcp {
        let mut child = p
            .cmd(&["mcp", "--root"])
            .arg(p.root())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn repo-search mcp");
        let stdin = child.stdin.take().expect("stdin");
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
        let mut m = RawMcp {
            child,
            stdin,
            lines,
        };
        let v = m.request(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "fssafe-test", "version": "1.0.0"}}}),
            Duration::from_secs(30),
        );
        assert!(v["result"].is_object(), "{v}");
        m.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        m
    }

    fn send(&mut self, msg: &str) {
        writeln!(self.stdin, "{msg}").expect("write to server");
        self.stdin.flush().expect("flush");
    }

    fn request(&mut self, msg: Value, limit: Duration) -> Value {
        let id = msg["id"].clone();
        self.send(&msg.to_string());
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer to {msg} within {limit:?}"));
            let v: Value = serde_json::from_str(&line).expect("JSON line");
            if v["id"] == id {
                return v;
            }
        }
    }

    /// A tool call's result text (with its `code:` line for errors).
    fn call(&mut self, id: u64, tool: &str, args: Value, limit: Duration) -> (bool, String) {
        let v = self.request(
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": tool, "arguments": args}}),
            limit,
        );
        let text = v["result"]["content"]
            .as_array()
            .map(|c| {
                c.iter()
                    .filter_map(|x| x["text"].as_str())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default();
        (v["result"]["isError"] == true, text)
    }
}

impl Drop for RawMcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_symlinked_index_dir_is_refused_and_its_target_untouched() {
    let p = sample();
    let outside = tempfile::tempdir().expect("outside dir");
    std::os::unix::fs::symlink(outside.path(), p.path(".repo_search")).expect("symlink");

    for args in [
        &["index"][..],
        &["status"],
        &["symbol", "parse_config"],
        &["search", "parse config"],
    ] {
        let r = p.run(args);
        assert_eq!(r.code(), 2, "{r}");
        assert!(r.stderr().contains("is a symlink"), "{r}");
        assert!(r.stderr().contains("hint: remove the symlink"), "{r}");
    }
    let left: Vec<_> = std::fs::read_dir(outside.path()).expect("list").collect();
    assert!(left.is_empty(), "wrote through the symlink: {left:?}");

    let mut m = RawMcp::start(&p);
    let (err, text) = m.call(1, "index_status", json!({}), Duration::from_secs(20));
    assert!(err && text.contains("code: UNSAFE_PATH"), "{text}");
    let (err, text) = m.call(
        2,
        "find_symbol",
        json!({"name": "parse_config"}),
        Duration::from_secs(20),
    );
    assert!(err && text.contains("code: UNSAFE_PATH"), "{text}");
    drop(m);
    let left: Vec<_> = std::fs::read_dir(outside.path()).expect("list").collect();
    assert!(left.is_empty(), "MCP wrote through the symlink: {left:?}");
}

#[test]
fn symlinked_files_in_the_index_dir_are_refused() {
    for name in ["index.db", "index.db-wal", "index.db-shm", "index.lock"] {
        let p = sample();
        let outside = tempfile::tempdir().expect("outside dir");
        let target = outside.path().join("victim");
        std::fs::write(&target, "precious").expect("write victim");
        std::fs::create_dir(p.path(".repo_search")).expect("mkdir");
        std::os::unix::fs::symlink(&target, p.path(&format!(".repo_search/{name}")))
            .expect("symlink");
        let r = p.run(&["index"]);
        assert_eq!(r.code(), 2, "{name}: {r}");
        assert!(r.stderr().contains("symlink"), "{name}: {r}");
        assert!(r.stderr().contains("hint: remove"), "{name}: {r}");
        assert_eq!(
            std::fs::read_to_string(&target).expect("victim"),
            "precious",
            "{name}: the link's target was written"
        );
        assert_eq!(
            std::fs::read_dir(outside.path()).expect("list").count(),
            1,
            "{name}: files appeared next to the target"
        );
    }
}

#[test]
fn the_index_is_private_whatever_the_umask() {
    let p = sample();
    // A home that does not exist yet: created private too.
    let home = p.home.path().join("fresh-home");
    let out = Command::new("sh")
        .arg("-c")
        .arg("umask 000; exec \"$0\" \"$@\"")
        .arg(BIN)
        .arg("index")
        .current_dir(p.root())
        .env("REPO_SEARCH_HOME", &home)
        .env("REPO_SEARCH_OFFLINE", "1")
        .env_remove("CLAUDE_PROJECT_DIR")
        .output()
        .expect("run index under umask 000");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = p.path(".repo_search");
    assert_eq!(mode(&dir), 0o700, ".repo_search");
    let mut names = Vec::new();
    for e in std::fs::read_dir(&dir).expect("list") {
        let e = e.expect("entry");
        names.push(e.file_name().to_string_lossy().into_owned());
        assert_eq!(mode(&e.path()), 0o600, "{}", e.path().display());
    }
    for want in ["index.db", "index.lock"] {
        assert!(names.iter().any(|n| n == want), "{want} missing: {names:?}");
    }
    assert_eq!(mode(&home), 0o700, "REPO_SEARCH_HOME");
    assert_eq!(mode(&home.join("registry.json")), 0o600, "registry.json");

    // An index an older version left loose is tightened on the next open,
    // a read as well as a write.
    std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let db = dir.join("index.db");
    std::fs::set_permissions(&db, std::fs::Permissions::from_mode(0o644)).expect("chmod");
    p.run(&["symbol", "parse_config"]).ok();
    assert_eq!(mode(&dir), 0o700, ".repo_search after a search");
    assert_eq!(mode(&db), 0o600, "index.db after a search");
}

#[test]
fn a_loose_home_is_refused_and_its_socket_gets_nothing() {
    let p = sample();
    let home = p.home.path();
    std::fs::set_permissions(home, std::fs::Permissions::from_mode(0o777)).expect("chmod");
    // Another user could have planted this socket in a world-writable home.
    let planted = UnixListener::bind(home.join("daemon.sock")).expect("bind planted socket");
    planted.set_nonblocking(true).expect("nonblocking");

    // The project is still indexed, here, and the home is named.
    let out = output_within(p.cmd(&["index"]), Duration::from_secs(60), "index");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("writable by group or others"), "{err}");
    assert!(
        planted.accept().is_err(),
        "the planted socket received a request"
    );
    assert!(!home.join("registry.json").exists(), "wrote a registry");

    let r = p.run(&["projects"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("writable by group or others"), "{r}");
    assert!(r.stderr().contains("hint: run `chmod 700"), "{r}");

    let out = output_within(
        {
            let mut c = Command::new(DAEMON);
            c.args(["run"]).env("REPO_SEARCH_HOME", home);
            c
        },
        Duration::from_secs(20),
        "repo-search-daemon run",
    );
    assert!(!out.status.success(), "the daemon ran in a loose home");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("chmod 700"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(planted.accept().is_err(), "the planted socket was used");
}

/// A tiny socket peer run as another user (uid 65534), in Python, so the
/// uid checks meet a real process of another uid. Root only.
fn as_nobody(script: &str, args: &[&Path]) -> std::process::Child {
    use std::os::unix::process::CommandExt;
    Command::new("/usr/bin/python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .uid(65534)
        .gid(65534)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn python3 as uid 65534")
}

fn can_run_as_nobody() -> bool {
    if !is_root() || !Path::new("/usr/bin/python3").exists() {
        eprintln!("skipped: needs root and /usr/bin/python3 to run a peer as another uid");
        return false;
    }
    true
}

#[test]
fn a_daemon_socket_of_another_user_gets_nothing() {
    if !can_run_as_nobody() {
        return;
    }
    let p = sample();
    // A listener of uid 65534, bound in a directory it may write, then
    // linked into the user's (private) home as the daemon's socket.
    let shared = tempfile::tempdir().expect("shared dir");
    std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let sock = shared.path().join("s");
    let mut listener = as_nobody(
        "import socket,sys\n\
         s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(5)\n\
         print('ready', flush=True)\n\
         c,_=s.accept(); print('GOT', c.recv(65536), flush=True)\n\
         c.sendall(b'{\"ok\":true,\"handled\":true}\\n')\n",
        &[&sock],
    );
    let mut ready = String::new();
    BufReader::new(listener.stdout.as_mut().expect("stdout"))
        .read_line(&mut ready)
        .expect("listener ready");
    assert_eq!(ready.trim(), "ready");
    let in_home = p.home.path().join("daemon.sock");
    std::fs::hard_link(&sock, &in_home).expect("link the socket into the home");

    let index = |want: &str| {
        let out = output_within(p.cmd(&["index"]), Duration::from_secs(60), "index");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success() && err.contains(want), "{err}");
    };
    // Owned by another user: refused before connecting.
    index("belongs to another user");
    // Owned by the user but served by another: refused after connecting,
    // before sending.
    std::os::unix::fs::lchown(&in_home, Some(0), Some(0)).expect("chown");
    index("served by a process of another user");

    let _ = listener.kill();
    let out = listener.wait_with_output().expect("listener output");
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        !said.contains("GOT b'{"),
        "a request reached uid 65534: {said}"
    );
}

#[test]
fn the_daemon_hangs_up_on_another_user() {
    if !can_run_as_nobody() {
        return;
    }
    let p = sample();
    let home = p.home.path();
    let mut daemon = Command::new(DAEMON)
        .args(["run"])
        .env("REPO_SEARCH_HOME", home)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the daemon");
    let sock = home.join("daemon.sock");
    let up = poll_until(Duration::from_secs(20), || sock.exists().then_some(()));
    assert!(up.is_some(), "the daemon never listened");
    // Reachable by uid 65534 through a link in an open directory (the
    // home itself stays private).
    let shared = tempfile::tempdir().expect("shared dir");
    std::fs::set_permissions(shared.path(), std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let link = shared.path().join("s");
    std::fs::hard_link(&sock, &link).expect("link");
    std::fs::set_permissions(&link, std::fs::Permissions::from_mode(0o666)).expect("chmod");

    let client = as_nobody(
        "import socket,sys\n\
         s=socket.socket(socket.AF_UNIX); s.settimeout(10); s.connect(sys.argv[1])\n\
         s.sendall(b'{\"version\":1,\"request\":\"ping\"}\\n')\n\
         print('ANSWER', s.recv(65536), flush=True)\n",
        &[&link],
    );
    let out = client.wait_with_output().expect("client");
    let said = String::from_utf8_lossy(&out.stdout);
    // The same daemon answers this user: the check is not a wall.
    let status = Command::new(DAEMON)
        .args(["status"])
        .env("REPO_SEARCH_HOME", home)
        .output()
        .expect("daemon status");
    let _ = Command::new(DAEMON)
        .args(["stop"])
        .env("REPO_SEARCH_HOME", home)
        .output();
    let _ = daemon.kill();
    let _ = daemon.wait();
    assert!(
        said.contains("ANSWER b''") || !out.status.success(),
        "the daemon answered uid 65534: {said} {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
}

#[test]
fn fifos_in_a_project_never_block_a_tool() {
    let p = sample();
    mkfifo(&p.path("pipe"));
    mkfifo(&p.path("src/pipe.rs"));
    std::os::unix::fs::symlink(p.path("pipe"), p.path("link_to_pipe")).expect("symlink");
    let limit = Duration::from_secs(10);

    for path in ["pipe", "link_to_pipe", "src/pipe.rs"] {
        let out = output_within(p.cmd(&["read", path]), limit, "repo-search read");
        assert_eq!(out.status.code(), Some(2), "read {path}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("FIFO"), "read {path}: {err}");
    }
    // Keyword search skips them, walked or given explicitly.
    for args in [
        &["keyword", "parse_config"][..],
        &["keyword", "x", "pipe", "src"],
    ] {
        let out = output_within(p.cmd(args), limit, "repo-search keyword");
        assert!(
            out.status.code().is_some_and(|c| c <= 1),
            "{args:?}: {out:?}"
        );
    }
    let out = output_within(
        p.cmd(&["index"]),
        Duration::from_secs(60),
        "repo-search index",
    );
    assert!(out.status.success(), "{out:?}");
    let out = output_within(p.cmd(&["symbol", "parse_config"]), limit, "symbol");
    assert!(out.status.success(), "{out:?}");

    let mut m = RawMcp::start(&p);
    for (i, path) in ["pipe", "link_to_pipe"].iter().enumerate() {
        let (err, text) = m.call(i as u64 + 1, "read_file", json!({"path": path}), limit);
        assert!(
            err && text.contains("code: NOT_REGULAR_FILE"),
            "{path}: {text}"
        );
    }
    let (err, text) = m.call(
        9,
        "search_keyword",
        json!({"pattern": "parse_config"}),
        limit,
    );
    assert!(!err && text.contains("src/lib.rs"), "{text}");
}
