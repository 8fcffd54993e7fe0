//! Operating the tool: `stats` — what every surface answered for this
//! project (from the log of [`crate::stats`]), with the index's size per
//! table and its vectors per model; `compact` and `clean`.

use anyhow::Result;
use serde::Serialize;

use super::Service;
use crate::error::{ErrorCode, UserError};
use crate::stats::{self, OpStats};

/// What `stats` covers.
#[derive(Debug, Clone, Default)]
pub struct StatsRequest {
    /// Only operations of the last `since` (`24h`, `30m`, `7d`); all the
    /// log keeps when `None`.
    pub since: Option<String>,
}

/// Figures per operation over the window, and the index's sizes.
#[derive(Debug, Clone, Serialize)]
pub struct StatsAnswer {
    /// The window asked for, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Operations in the window, and the oldest and newest (Unix ms).
    pub records: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_at_ms: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_at_ms: Option<i64>,
    /// Log lines that could not be read (a write cut short).
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub unreadable: usize,
    pub ops: Vec<OpStats>,
    /// Bytes per table; `None` without an index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sizes: Option<crate::store::Sizes>,
    /// Vectors per configured model.
    pub vectors: Vec<crate::status::EmbeddingCoverage>,
    /// This service's own query cache (a long-lived server's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<super::cache::CacheFigures>,
}

impl Service {
    /// The logged operations of `req`'s window, and the unreadable lines.
    fn logged(&self, req: &StatsRequest) -> Result<(Vec<stats::Record>, usize)> {
        let since_ms = match req.since.as_deref() {
            None => None,
            Some(s) => Some(stats::parse_since(s).ok_or_else(|| {
                UserError::with_code(
                    ErrorCode::InvalidArgument,
                    format!("`{s}` is not a time span"),
                )
                .hint("give a number with a unit: `90s`, `30m`, `24h`, `7d`, `2w`")
            })?),
        };
        stats::read(self.root(), since_ms.map(stats::window_start))
    }

    /// Latency figures per operation from the project's log, and what the
    /// index holds (sizes read from every page: about a second on the
    /// Linux kernel).
    pub fn stats(&self, req: &StatsRequest) -> Result<StatsAnswer> {
        let (records, unreadable) = self.logged(req)?;
        let status = self.status(crate::status::StatusDepth {
            stale: false,
            sizes: true,
        })?;
        Ok(StatsAnswer {
            since: req.since.clone(),
            records: records.len(),
            first_at_ms: records.first().map(|r| r.at),
            last_at_ms: records.last().map(|r| r.at),
            unreadable,
            ops: stats::summarize(&records),
            sizes: status.status.sizes,
            vectors: status.status.embeddings,
            cache: self.cache.as_ref().map(|c| c.figures()),
        })
    }
}

/// What `compact` did.
#[derive(Debug, Clone, Serialize)]
pub struct CompactAnswer {
    /// The index's bytes (database and WAL) before and after.
    pub before_bytes: u64,
    pub after_bytes: u64,
    /// Vectors dropped: of models no longer configured, or of chunks gone.
    pub vectors_dropped: u64,
    /// Models whose vectors were dropped.
    pub models_dropped: Vec<String>,
    pub seconds: f64,
}

/// What `clean` removed.
#[derive(Debug, Clone, Serialize)]
pub struct CleanAnswer {
    /// The index directory removed (`None`: there was none).
    pub removed: Option<String>,
    /// Its bytes.
    pub bytes: u64,
    /// Whether the project was in the registry (and is no longer).
    pub unregistered: bool,
    /// Files in it that the user wrote, removed too (relative to it):
    /// `config.toml`, eval cases `evals/*.jsonl`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub user_files: Vec<String>,
}

/// The files in a project's index directory that a person wrote, not
/// repo-search (`config.toml`, eval cases under `evals/`), relative to it:
/// `clean` names them before it removes them.
pub fn user_files(root: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    if crate::store::config_path(root).is_file() {
        out.push(crate::store::CONFIG_FILE.to_string());
    }
    if let Ok(entries) = std::fs::read_dir(crate::store::eval_cases_dir(root)) {
        let mut cases: Vec<String> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".jsonl"))
            .map(|n| format!("evals/{n}"))
            .collect();
        cases.sort();
        out.extend(cases);
    }
    out
}

/// Bytes of the index directory's files (the database, its WAL, logs).
fn dir_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

impl Service {
    /// Shrinks the index (see `Store::compact`): vectors of models the
    /// settings no longer name are dropped. Fails at once, with a hint,
    /// when another process is writing the index.
    pub fn compact(&self) -> Result<CompactAnswer> {
        let root = self.root();
        if !crate::store::db_path(root).exists() {
            return Err(
                UserError::with_code(ErrorCode::NoIndex, "there is no index to compact")
                    .hint("`repo-search index` builds it")
                    .into(),
            );
        }
        let started = std::time::Instant::now();
        let _lock = crate::lock::WriterLock::acquire(root, crate::lock::WhenBusy::Fail, |_| {})?;
        let before_bytes = crate::registry::index_bytes(root);
        let keep: Vec<String> = crate::embed::configured_tiers(&self.embed_settings()?)
            .into_iter()
            .map(|t| t.model_id)
            .collect();
        let keep: Vec<&str> = keep.iter().map(String::as_str).collect();
        let store = crate::store::Store::open_rw(root)?;
        let db = crate::store::db_path(root);
        let (dropped, models_dropped) = store
            .compact(&keep)
            .map_err(|e| crate::store::explain(e, &db))?;
        drop(store);
        Ok(CompactAnswer {
            before_bytes,
            after_bytes: crate::registry::index_bytes(root),
            vectors_dropped: dropped as u64,
            models_dropped,
            seconds: started.elapsed().as_secs_f64(),
        })
    }

    /// Removes the project's index directory (index, vectors, logs) and
    /// its registry entry. Fails when another process is writing the
    /// index. The caller asks the user first.
    pub fn clean(&self) -> Result<CleanAnswer> {
        let root = self.root();
        let dir = crate::store::index_dir(root);
        let registry = crate::registry::Registry::from_env();
        let Some(checked) = crate::store::index_dir_checked(root, crate::store::DirUse::Read)?
        else {
            return Ok(CleanAnswer {
                removed: None,
                bytes: 0,
                unregistered: registry.remove(root)?,
                user_files: Vec::new(),
            });
        };
        // Held while the files go (the lock file among them: the lock is on
        // the open file), so no writer starts on a half-removed directory.
        let _lock = crate::lock::WriterLock::acquire(root, crate::lock::WhenBusy::Fail, |_| {})?;
        let unregistered = registry.remove(root)?;
        let bytes = dir_bytes(&checked);
        let user_files = user_files(root);
        std::fs::remove_dir_all(&checked)
            .map_err(|e| anyhow::anyhow!("cannot remove `{}`: {e}", dir.display()))?;
        Ok(CleanAnswer {
            removed: Some(dir.display().to_string()),
            bytes,
            unregistered,
            user_files,
        })
    }
}

/// `cache stats`: how often the query caches of the project's servers
/// answered, from the operation log.
#[derive(Debug, Clone, Serialize)]
pub struct CacheStatsAnswer {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    pub lookups: u64,
    pub hits: u64,
    /// Time the hits took, and what the same operations took when computed
    /// (medians, ms): what a hit saves.
    pub hit_p50_ms: f64,
    pub miss_p50_ms: f64,
    /// Per operation that looked the cache up.
    pub ops: Vec<OpStats>,
    /// This process's own cache (a one-shot command has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub live: Option<super::cache::CacheFigures>,
}

/// `cache clear`: the marker every server of the project watches.
#[derive(Debug, Clone, Serialize)]
pub struct CacheClearAnswer {
    pub marker: String,
}

impl Service {
    /// Cache figures from the operation log (every server's lookups).
    pub fn cache_stats(&self, req: &StatsRequest) -> Result<CacheStatsAnswer> {
        let (records, _) = self.logged(req)?;
        let looked: Vec<stats::Record> =
            records.into_iter().filter(|r| r.cache.is_some()).collect();
        let hit_ms = looked
            .iter()
            .filter(|r| r.cache == Some(true))
            .map(|r| r.ms)
            .collect();
        let miss_ms = looked
            .iter()
            .filter(|r| r.cache == Some(false))
            .map(|r| r.ms)
            .collect();
        Ok(CacheStatsAnswer {
            since: req.since.clone(),
            lookups: looked.len() as u64,
            hits: looked.iter().filter(|r| r.cache == Some(true)).count() as u64,
            hit_p50_ms: stats::median(hit_ms),
            miss_p50_ms: stats::median(miss_ms),
            ops: stats::summarize(&looked),
            live: self.cache.as_ref().map(|c| c.figures()),
        })
    }

    /// Empties the query cache of every server of this project (each
    /// notices the marker at its next lookup).
    pub fn cache_clear(&self) -> Result<CacheClearAnswer> {
        let dir = crate::store::index_dir_checked(self.root(), crate::store::DirUse::Create)?
            .ok_or_else(|| anyhow::anyhow!("no index directory"))?;
        let marker = dir.join(super::cache::CLEAR_MARKER);
        let mut f = crate::fs_safe::private_nofollow()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&marker)?;
        use std::io::Write;
        writeln!(f, "{}", crate::paths::unix_now())?;
        f.sync_all()?;
        Ok(CacheClearAnswer {
            marker: marker.display().to_string(),
        })
    }
}

/// This process and the daemon, for `status` (the design's "server
/// version, uptime, pid; watcher, events in the last minute, queue;
/// average search time, memory in use").
#[derive(Debug, Clone, Serialize)]
pub struct RuntimeInfo {
    pub version: String,
    pub pid: u32,
    /// Since this process opened its first project service.
    pub uptime_s: u64,
    /// Resident memory of this process (Linux), bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rss_bytes: Option<u64>,
    /// Searches of the last hour from every surface (the operation log).
    pub searches_last_hour: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_mean_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_p50_ms: Option<f64>,
    /// The daemon's view of this project, when one runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub daemon: Option<DaemonView>,
}

#[derive(Debug, Clone, Serialize)]
pub struct DaemonView {
    pub pid: u32,
    pub version: String,
    pub uptime_s: u64,
    /// Whether it watches this project, and its state for it.
    pub watching: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    /// Watcher events (changed paths) in the last minute, and paths
    /// waiting for the next run.
    pub events_last_minute: u64,
    pub queue: u64,
}

/// When this process opened its first service.
pub(super) fn started() -> std::time::Instant {
    static STARTED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    *STARTED.get_or_init(std::time::Instant::now)
}

/// Resident set size from `/proc/self/statm` (Linux only).
fn rss_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * 4096)
}

impl Service {
    /// This process, recent search times and the daemon (see [`RuntimeInfo`]).
    pub fn runtime(&self) -> RuntimeInfo {
        let hour_ago = stats::window_start(3_600_000);
        let searches: Vec<f64> = stats::read(self.root(), Some(hour_ago))
            .map(|(records, _)| {
                records
                    .into_iter()
                    .filter(|r| r.op.starts_with("search.") && r.ok)
                    .map(|r| r.ms)
                    .collect()
            })
            .unwrap_or_default();
        let n = searches.len();
        let mean = (n > 0).then(|| searches.iter().sum::<f64>() / n as f64);
        let p50 = (n > 0).then(|| stats::median(searches));
        let home = crate::daemon_client::DaemonHome::from_env();
        let daemon = crate::daemon_client::status(&home).ok().flatten().map(|d| {
            let mine = d.projects.iter().find(|p| p.root == self.root());
            DaemonView {
                pid: d.pid,
                version: d.version.clone(),
                uptime_s: d.uptime_s,
                watching: mine.is_some_and(|p| p.watch),
                state: mine.map(|p| p.state.clone()),
                events_last_minute: mine.map_or(0, |p| p.events_last_minute),
                queue: mine.map_or(0, |p| p.queue),
            }
        });
        RuntimeInfo {
            version: env!("CARGO_PKG_VERSION").to_string(),
            pid: std::process::id(),
            uptime_s: started().elapsed().as_secs(),
            rss_bytes: rss_bytes(),
            searches_last_hour: n as u64,
            search_mean_ms: mean.map(|m| (m * 100.0).round() / 100.0),
            search_p50_ms: p50,
            daemon,
        }
    }
}
