//! Owns the answer to "what does the index hold and how fresh is it", shared
//! by `repo-search status`, the MCP `index_status` tool and the daemon.

use anyhow::Result;
use serde::Serialize;

use crate::index::EMBED_HEARTBEAT_S;
use crate::settings::Settings;
use crate::store::{self, SkipSummary, Store, meta};

#[derive(Debug, Clone, Serialize)]
pub struct IndexStatus {
    pub root: String,
    pub index_path: String,
    pub exists: bool,
    /// An index of an older schema is there (an earlier repo-search wrote
    /// it); the next index run rebuilds it. `exists` is false then.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub outdated: bool,
    pub files: u64,
    pub symbols: u64,
    pub refs: u64,
    pub chunks: u64,
    pub skipped: u64,
    pub skipped_by_reason: Vec<SkipSummary>,
    /// Unix seconds of the last completed run.
    pub last_indexed: Option<i64>,
    pub last_duration_s: Option<f64>,
    pub generation: u64,
    /// Whether a writer holds the lock right now, and how far it is.
    pub indexing: Option<Indexing>,
    /// Files changed on disk since indexed (`None` when not computed).
    pub stale_files: Option<u64>,
    pub stale_examples: Vec<String>,
    pub index_bytes: u64,
    /// Rows deleted from the full-text index since its last merge: each
    /// leaves a tombstone the queries visiting it check.
    pub fts_deleted: u64,
    /// Enough tombstones for a watching daemon to merge the full-text
    /// index while the project is quiet (`Store::fts_merge_due`).
    pub fts_merge_due: bool,
    /// Vectors per configured embedding model (best tier first).
    pub embeddings: Vec<EmbeddingCoverage>,
    /// The embedding phase, while it runs.
    pub embedding: Option<EmbeddingRun>,
    /// Whether the project's own config may use the settings that need
    /// trust (`repo-search trust`), and which ones it asked for in vain.
    pub config_trust: crate::settings::ConfigTrust,
    /// Bytes per table (only when asked: it reads every page).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sizes: Option<store::Sizes>,
}

/// How many chunks have a vector from one model.
#[derive(Debug, Clone, Serialize)]
pub struct EmbeddingCoverage {
    pub tier: crate::embed::Tier,
    pub model: String,
    /// The model's weights are on disk (or it is an HTTP provider).
    pub ready: bool,
    pub embedded: u64,
    pub total: u64,
}

/// Progress of a running embedding phase.
#[derive(Debug, Clone, Serialize)]
pub struct EmbeddingRun {
    pub model: String,
    pub done: u64,
    pub total: u64,
    /// Chunks per second since the phase started.
    pub rate: f64,
    pub eta_s: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Indexing {
    pub pid: Option<u32>,
    pub done: u64,
    pub total: u64,
}

fn file_size(p: &std::path::Path) -> u64 {
    std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)
}

/// What a status call computes beyond the counts.
#[derive(Debug, Clone, Copy, Default)]
pub struct StatusDepth {
    /// Walk the project to count changed files.
    pub stale: bool,
    /// Read every page of the index for its size per table.
    pub sizes: bool,
}

/// Reads the status of the project's index, as deep as `depth` asks.
pub fn index_status(settings: &Settings, depth: StatusDepth) -> Result<IndexStatus> {
    let root = &settings.root;
    let db = store::db_path(root);
    let writer = crate::lock::current_writer(root);
    let mut st = IndexStatus {
        root: root.display().to_string(),
        index_path: db.display().to_string(),
        exists: false,
        outdated: crate::store::is_outdated(root),
        files: 0,
        symbols: 0,
        refs: 0,
        chunks: 0,
        skipped: 0,
        skipped_by_reason: Vec::new(),
        last_indexed: None,
        last_duration_s: None,
        generation: 0,
        indexing: writer.map(|pid| Indexing {
            pid: (pid != 0).then_some(pid),
            done: 0,
            total: 0,
        }),
        stale_files: None,
        stale_examples: Vec::new(),
        index_bytes: 0,
        fts_deleted: 0,
        fts_merge_due: false,
        embeddings: Vec::new(),
        embedding: None,
        config_trust: settings.trust.clone(),
        sizes: None,
    };
    let Some(store) = Store::open_ro(root)? else {
        return Ok(st);
    };
    st.exists = true;
    st.index_bytes = file_size(&db) + file_size(&db.with_extension("db-wal"));
    let counts = store.counts().map_err(|e| store::explain(e, &db))?;
    st.files = counts.files;
    st.symbols = counts.symbols;
    st.refs = counts.refs;
    st.chunks = counts.chunks;
    st.skipped = counts.skipped;
    st.skipped_by_reason = store
        .skipped_summary(3)
        .map_err(|e| store::explain(e, &db))?;
    let get = |k: &str| store.get_meta(k).ok().flatten();
    st.last_indexed = get(meta::LAST_INDEXED).and_then(|v| v.parse().ok());
    st.last_duration_s = get(meta::LAST_DURATION).and_then(|v| v.parse().ok());
    st.generation = get(meta::GENERATION)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    st.fts_deleted = store.meta_u64(meta::FTS_DELETED).unwrap_or(0);
    st.fts_merge_due = store.fts_merge_due(store::FtsMerge::Idle).unwrap_or(false);
    if let Some(ix) = st.indexing.as_mut() {
        ix.done = get(meta::PROGRESS_DONE)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        ix.total = get(meta::PROGRESS_TOTAL)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
    }
    if let Ok((es, _)) = crate::settings::resolve_embed(root) {
        for spec in crate::embed::configured_tiers(&es) {
            if let Ok((embedded, total)) = store.embedding_coverage(&spec.model_id) {
                st.embeddings.push(EmbeddingCoverage {
                    tier: spec.tier,
                    ready: crate::embed::is_ready(&spec),
                    model: spec.model_id,
                    embedded,
                    total,
                });
            }
        }
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    // The phase holds the writer lock only to commit (every few seconds),
    // so liveness is the lock, or a recent commit by a process that exists.
    let heartbeat: i64 = get(meta::EMBED_UPDATED)
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let pid_alive = get(meta::EMBED_PID)
        .and_then(|v| v.parse().ok())
        .is_none_or(crate::lock::process_alive);
    let alive = st.indexing.is_some() || (now - heartbeat <= EMBED_HEARTBEAT_S && pid_alive);
    if get(meta::EMBED_STATE).as_deref() == Some("running") && alive {
        let done: u64 = get(meta::EMBED_DONE)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let total: u64 = get(meta::EMBED_TOTAL)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let started: i64 = get(meta::EMBED_STARTED)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let secs = (now - started).max(1) as f64;
        let rate = done as f64 / secs;
        st.embedding = Some(EmbeddingRun {
            model: get(meta::EMBED_MODEL).unwrap_or_default(),
            done,
            total,
            rate,
            eta_s: (rate > 0.0).then(|| total.saturating_sub(done) as f64 / rate),
        });
    }
    if depth.sizes {
        st.sizes = Some(store.sizes().map_err(|e| store::explain(e, &db))?);
    }
    if depth.stale {
        let s = crate::index::staleness(settings, &store)?;
        st.stale_files = Some(s.stale_files);
        st.stale_examples = s.examples;
    }
    Ok(st)
}
