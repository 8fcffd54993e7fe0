//! Helpers for integration tests: temp projects on disk and the real
//! binaries, run as a user would run them.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_repo-search");
pub const DAEMON: &str = env!("CARGO_BIN_EXE_repo-search-daemon");

/// A temporary project directory with its own `REPO_SEARCH_HOME`.
pub struct Project {
    pub dir: tempfile::TempDir,
    pub home: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Project {
        let dir = tempfile::tempdir().expect("temp project dir");
        let home = tempfile::tempdir().expect("temp home dir");
        Project { dir, home }
    }

    /// The canonical root (temp dirs may sit behind a symlink).
    pub fn root(&self) -> PathBuf {
        self.dir.path().canonicalize().expect("canonical root")
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> &Project {
        let p = self.path(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("create parent dirs");
        }
        std::fs::write(&p, content).expect("write file");
        self
    }

    /// Writes the user's own config, `$REPO_SEARCH_HOME/config.toml`: the
    /// place for settings a project's config may not set untrusted (an HTTP
    /// embedding provider, its URL, model and key variable).
    pub fn write_user_config(&self, text: impl AsRef<[u8]>) -> &Project {
        std::fs::write(self.home.path().join("config.toml"), text).expect("write user config");
        self
    }

    pub fn remove(&self, rel: &str) {
        std::fs::remove_file(self.path(rel)).expect("remove file");
    }

    pub fn git_init(&self) {
        let out = Command::new("git")
            .args(["init", "-q"])
            .current_dir(self.root())
            .output()
            .expect("run git init");
        assert!(
            out.status.success(),
            "git init failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A command for the `repo-search` binary, run in the project root with a
    /// private home and no inherited project dir.
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(BIN);
        c.args(args)
            .current_dir(self.root())
            .env("REPO_SEARCH_HOME", self.home.path())
            .env_remove("CLAUDE_PROJECT_DIR")
            .env_remove("REPO_SEARCH_LOG")
            .env_remove("REPO_SEARCH_MAX_FILE_SIZE")
            .env_remove("REPO_SEARCH_NO_REDACT")
            // `index` would download missing models: tests never touch the
            // network unless they say so (and serve it locally).
            .env("REPO_SEARCH_OFFLINE", "1");
        c
    }

    pub fn run(&self, args: &[&str]) -> Run {
        self.run_env(args, &[])
    }

    /// Like [`Project::run`], with extra environment variables.
    pub fn run_env(&self, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Run {
        self.run_at("", args, env)
    }

    /// Like [`Project::run_env`], from `dir` (relative to the root) as
    /// the working directory.
    pub fn run_at(&self, dir: &str, args: &[&str], env: &[(&str, &std::ffi::OsStr)]) -> Run {
        let mut cmd = self.cmd(args);
        cmd.current_dir(self.path(dir));
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.output().expect("run repo-search");
        Run {
            args: args.iter().map(|s| s.to_string()).collect(),
            out,
        }
    }

    /// Runs with `--json` appended and parses stdout.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let mut a = args.to_vec();
        a.push("--json");
        let r = self.run(&a);
        assert!(r.code() <= 1, "{r}");
        serde_json::from_str(&r.stdout())
            .unwrap_or_else(|e| panic!("bad JSON from {a:?}: {e}\n{r}"))
    }
}

pub struct Run {
    pub args: Vec<String>,
    pub out: Output,
}

impl Run {
    pub fn code(&self) -> i32 {
        self.out.status.code().unwrap_or(-1)
    }
    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.out.stdout).into_owned()
    }
    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.out.stderr).into_owned()
    }
    pub fn ok(self) -> Run {
        assert_eq!(self.code(), 0, "{self}");
        self
    }
}

impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "repo-search {:?} exited {}\n--- stdout\n{}\n--- stderr\n{}",
            self.args,
            self.code(),
            self.stdout(),
            self.stderr()
        )
    }
}

/// Polls `f` until it returns `Some` or the deadline passes.
pub fn poll_until<T>(timeout: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() > deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

pub fn have(cmd: &str) -> bool {
    Command::new(cmd)
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

pub fn names(v: &serde_json::Value, field: &str) -> Vec<String> {
    v[field]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|h| h["name"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

pub fn exists(p: &Path) -> bool {
    p.exists()
}

/// The id the built-in fast model's vectors are stored and reported under
/// (potion-base-8M with the code delta of `embed::code_delta::MODEL_ID`):
/// one place to change when a new delta ships.
pub const FAST_MODEL: &str = "minishlab/potion-base-8M+code3";

/// The report of the arm `name` in a hybrid answer's `arms` (JSON);
/// panics, showing the answer, when the answer has none.
pub fn arm_report<'a>(v: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    v["arms"]
        .as_array()
        .and_then(|a| a.iter().find(|r| r["arm"] == name))
        .unwrap_or_else(|| panic!("no {name} arm: {v}"))
}

/// Whether a search hit (JSON) was found by the arm `arm` (`symbol`,
/// `phrase`, …), as its `sources` say.
pub fn found_by(hit: &serde_json::Value, arm: &str) -> bool {
    hit["sources"]
        .as_array()
        .is_some_and(|s| s.iter().any(|a| a["arm"] == arm))
}
