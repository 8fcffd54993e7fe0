//! Owns the daemon's wire format: JSON lines over the local socket, one
//! request line answered by one response line. Only this module (and
//! `ipc`, which moves the bytes) knows the JSON shapes; the rest of the
//! daemon works with plain types such as [`IndexSummary`].
//!
//! Every message carries `version` ([`PROTOCOL_VERSION`]). A daemon refuses
//! requests of another version with a hint to restart it, so an upgraded
//! CLI never misreads an old daemon.
//!
//! Protocol changelog (bump [`PROTOCOL_VERSION`] on every change):
//! - 1: requests `ping`, `status`, `stop`, `reindex {root, paths, full}`,
//!   `watch {root}`, `unwatch {root}`.
//! - 2: `changed {root}`, answered by `changed {trusted, paths}`: what
//!   changed in a watched project since its index's last run, so keyword
//!   search can list the index's files instead of walking.
//!
//! ```text
//! → {"version":2,"request":"reindex","root":"/src/app","paths":["src/a.rs"]}
//! ← {"version":2,"ok":true,"handled":true,"summary":{"files":12,…}}
//! ```

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::index::IndexSummary;

/// Version of the request/response format (see the changelog above).
pub const PROTOCOL_VERSION: u32 = 2;

/// A request with its protocol version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Envelope {
    pub version: u32,
    #[serde(flatten)]
    pub request: Request,
}

impl Envelope {
    pub fn new(request: Request) -> Envelope {
        Envelope {
            version: PROTOCOL_VERSION,
            request,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "request", rename_all = "snake_case")]
pub enum Request {
    /// Is the daemon alive? Answers with its pid and version.
    Ping,
    /// Daemon and per-project state.
    Status,
    /// Finish the current batch and exit.
    Stop,
    /// Index `paths` (root-relative or absolute, files or directories) of a
    /// watched project and answer when done; no paths = reconcile the whole
    /// project; `full` = rebuild from scratch.
    Reindex {
        root: PathBuf,
        #[serde(default)]
        paths: Vec<String>,
        #[serde(default)]
        full: bool,
    },
    /// Turn watching on for a project (registering it) and apply at once.
    Watch { root: PathBuf },
    /// Turn watching off for a project and apply at once.
    Unwatch { root: PathBuf },
    /// What changed in a watched project since its index's last run.
    Changed { root: PathBuf },
}

/// `changed`: whether the index plus `paths` is the project's exact state
/// (`trusted`: watched, reconciled since the watch began, no events lost,
/// no ignore-file or config edit waiting), and the root-relative paths
/// changed since the index last looked at them (files or directories,
/// existing or not).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WireChanged {
    pub trusted: bool,
    #[serde(default)]
    pub paths: Vec<String>,
}

/// The answer to any request; fields not relevant to it are absent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Response {
    pub version: u32,
    pub ok: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// `ping`, `stop`: the daemon's pid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    /// `ping`: the daemon's crate version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub daemon_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<DaemonStatus>,
    /// `reindex`, `watch`, `unwatch`: false when the daemon does not watch
    /// (or know) the project, so the caller should write the index itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handled: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<WireSummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed: Option<WireChanged>,
}

impl Response {
    pub fn ok() -> Response {
        Response {
            version: PROTOCOL_VERSION,
            ok: true,
            ..Response::default()
        }
    }

    pub fn error(message: impl Into<String>, hint: Option<String>) -> Response {
        Response {
            version: PROTOCOL_VERSION,
            ok: false,
            error: Some(message.into()),
            hint,
            ..Response::default()
        }
    }
}

/// `status`: the daemon and every registered project.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DaemonStatus {
    pub running: bool,
    pub pid: u32,
    pub version: String,
    pub protocol: u32,
    /// Unix seconds.
    pub started_at: i64,
    pub uptime_s: u64,
    pub home: PathBuf,
    pub log: PathBuf,
    pub projects: Vec<ProjectStatus>,
}

/// One project as the daemon sees it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProjectStatus {
    pub root: PathBuf,
    pub watch: bool,
    /// `watching` (up to date, waiting for changes), `indexing`, `idle`
    /// (registered, watch off) or `error`.
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<WireProgress>,
    pub files: u64,
    pub symbols: u64,
    pub chunks: u64,
    /// Unix seconds of the last completed run.
    pub last_indexed: Option<i64>,
    /// Changed paths seen by the watcher and not yet indexed (`None` for a
    /// project that is not watched: the daemon does not know).
    pub stale_files: Option<u64>,
    /// Paths waiting for the next run.
    pub queue: u64,
    /// Watcher events (changed paths) in the last 60 seconds.
    pub events_last_minute: u64,
    /// Index runs since the daemon started watching the project.
    pub runs: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run: Option<WireSummary>,
    /// Background embedding (`None` until the embedder first ran).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embeddings: Option<WireEmbed>,
}

/// What the daemon's embedder is doing for a project.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WireEmbed {
    /// `embedding` (a run is going), `pending` (chunks lack vectors; a run
    /// starts when indexing is idle), `done`, `unavailable` (no model: see
    /// each tier's note) or `error`.
    pub state: String,
    /// The running tier and model, and its progress in this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default)]
    pub done: u64,
    #[serde(default)]
    pub total: u64,
    /// Chunks per second in this run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub eta_s: Option<f64>,
    /// Coverage per tier after the last finished run.
    #[serde(default)]
    pub tiers: Vec<WireTier>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One tier's vectors: how many chunks have them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WireTier {
    pub tier: String,
    pub model: String,
    pub with_vectors: u64,
    pub total_chunks: u64,
    /// Why the tier did not run (no weights, deferred, provider error).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct WireProgress {
    pub done: u64,
    pub total: u64,
    pub elapsed_s: f64,
    /// Estimated seconds left, once at least one file is done.
    pub eta_s: Option<f64>,
}

/// [`IndexSummary`] on the wire.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct WireSummary {
    pub root: String,
    pub files: u64,
    pub symbols: u64,
    pub refs: u64,
    pub chunks: u64,
    pub skipped: u64,
    pub changed: u64,
    pub removed: u64,
    pub unchanged: u64,
    pub seconds: f64,
    pub walk_seconds: f64,
}

impl From<&IndexSummary> for WireSummary {
    fn from(s: &IndexSummary) -> WireSummary {
        WireSummary {
            root: s.root.clone(),
            files: s.files,
            symbols: s.symbols,
            refs: s.refs,
            chunks: s.chunks,
            skipped: s.skipped,
            changed: s.changed,
            removed: s.removed,
            unchanged: s.unchanged,
            seconds: s.seconds,
            walk_seconds: s.walk_seconds,
        }
    }
}

impl From<WireSummary> for IndexSummary {
    fn from(s: WireSummary) -> IndexSummary {
        IndexSummary {
            root: s.root,
            files: s.files,
            symbols: s.symbols,
            refs: s.refs,
            chunks: s.chunks,
            skipped: s.skipped,
            changed: s.changed,
            removed: s.removed,
            unchanged: s.unchanged,
            seconds: s.seconds,
            walk_seconds: s.walk_seconds,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_roundtrip_as_flat_json() {
        let r = Envelope::new(Request::Reindex {
            root: "/p".into(),
            paths: vec!["a.rs".into()],
            full: false,
        });
        let line = serde_json::to_string(&r).expect("serialize");
        assert_eq!(
            line,
            r#"{"version":2,"request":"reindex","root":"/p","paths":["a.rs"],"full":false}"#
        );
        assert_eq!(serde_json::from_str::<Envelope>(&line).expect("parse"), r);
        let ping: Envelope =
            serde_json::from_str(r#"{"version":1,"request":"ping"}"#).expect("ping");
        assert_eq!(ping.request, Request::Ping);
        let bare: Envelope =
            serde_json::from_str(r#"{"version":1,"request":"reindex","root":"/p"}"#)
                .expect("defaults");
        assert_eq!(
            bare.request,
            Request::Reindex {
                root: "/p".into(),
                paths: vec![],
                full: false
            }
        );
        assert!(serde_json::from_str::<Envelope>(r#"{"version":1,"request":"explode"}"#).is_err());
    }

    #[test]
    fn responses_omit_absent_fields() {
        let line = serde_json::to_string(&Response::ok()).expect("serialize");
        assert_eq!(line, r#"{"version":2,"ok":true}"#);
        let c = Response {
            changed: Some(WireChanged {
                trusted: true,
                paths: vec!["src/a.rs".into()],
            }),
            ..Response::ok()
        };
        let line = serde_json::to_string(&c).expect("serialize");
        assert_eq!(
            line,
            r#"{"version":2,"ok":true,"changed":{"trusted":true,"paths":["src/a.rs"]}}"#
        );
        let asked: Envelope =
            serde_json::from_str(r#"{"version":2,"request":"changed","root":"/p"}"#)
                .expect("changed");
        assert_eq!(asked.request, Request::Changed { root: "/p".into() });
        let e = Response::error("bad", Some("fix it".into()));
        let back: Response =
            serde_json::from_str(&serde_json::to_string(&e).expect("ser")).expect("parse");
        assert_eq!(back, e);
    }
}
