//! Owns the embedding phase of indexing: give every chunk a vector from a
//! model, after symbols and BM25 are committed (they never wait for it).
//! Resumable: only chunks whose embedding key (path + symbol + text) has no
//! vector for the model are embedded, and vectors are committed in batches
//! as they are computed, so a killed run loses at most one batch and the
//! next run carries on.
//!
//! Vectors are keyed by content, not by chunk id, so this phase writes only
//! the `embeddings` table and its progress in `meta`; a vector whose chunk
//! vanished meanwhile is harmless and pruned at the end.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::Result;
use serde::Serialize;

use crate::embed::{self, Embedder, Models, Tier, TierSpec};
use crate::lock::{WhenBusy, WriterLock};
use crate::settings::{EmbedSettings, Settings};
use crate::store::{self, Store, meta};

/// Vectors are committed at least this often.
const COMMIT_EVERY: Duration = Duration::from_millis(1000);

/// Chunks whose texts are read together: pending chunks go in file order,
/// this many at a time, each window's files read once (`source::Sources`)
/// and its chunks batched by length ([`spread_order`]).
const WINDOW_CHUNKS: usize = 8192;

/// The order to embed `n` batches of a window in: batches hold chunks of
/// similar lengths (sorted, so padding stays low), but run spread over the
/// range by a golden-ratio stride, so the chunks done so far cost what
/// the rest cost on average and every rate and time left (the CLI's bar,
/// `status`, the daemon's and MCP jobs' `eta_s`) holds from the start.
/// Shortest first, a 24 s run had said "4s left" at a quarter of its
/// chunks.
fn spread_order(n: usize) -> Vec<usize> {
    if n < 3 {
        return (0..n).collect();
    }
    let gcd = |mut a: usize, mut b: usize| {
        while b != 0 {
            (a, b) = (b, a % b);
        }
        a
    };
    let mut k = ((n as f64) * 0.618_034).round() as usize;
    while gcd(k, n) != 1 {
        k += 1;
    }
    (0..n).map(|i| (i * k) % n).collect()
}

/// Where the embedding phase is.
#[derive(Debug, Clone, Serialize)]
pub struct EmbedProgress {
    pub tier: Tier,
    pub model: String,
    /// Chunks embedded in this run, of `total` that needed it.
    pub done: u64,
    pub total: u64,
    pub elapsed_s: f64,
}

impl EmbedProgress {
    /// Chunks per second so far.
    pub fn rate(&self) -> f64 {
        if self.elapsed_s > 0.0 {
            self.done as f64 / self.elapsed_s
        } else {
            0.0
        }
    }

    /// Seconds left at the current rate.
    pub fn eta_s(&self) -> Option<f64> {
        let r = self.rate();
        (r > 0.0).then(|| (self.total.saturating_sub(self.done)) as f64 / r)
    }
}

/// What one tier's embedding run did.
#[derive(Debug, Clone, Serialize)]
pub struct EmbedSummary {
    pub tier: Tier,
    pub model: String,
    /// Chunks embedded in this run.
    pub embedded: u64,
    /// Further chunks that got a vector with them: their text is the same
    /// as an embedded chunk's (vectors are keyed by content), so
    /// `with_vectors` can grow by more than `embedded`.
    pub same_text: u64,
    /// Chunks with a vector from this model after the run, of all chunks.
    pub with_vectors: u64,
    pub total_chunks: u64,
    pub seconds: f64,
    /// Why the tier did not run (no weights, provider error, ...), if it did not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// The code of the error that skipped the tier (`MODEL_MISSING` when its
    /// weights are not downloaded), for callers that branch on it.
    #[serde(skip)]
    pub skip_code: Option<crate::error::ErrorCode>,
    /// Skipped on purpose: too many chunks for the foreground (`auto`).
    #[serde(skip)]
    pub deferred: bool,
    /// The run stopped early (asked to, or the provider failed midway).
    pub interrupted: bool,
}

fn now_s() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// An embedding phase that has not committed for longer than this is taken
/// to be dead (a running one commits every few seconds).
pub const EMBED_HEARTBEAT_S: i64 = 60;

/// The process embedding this project's chunks right now, when it is
/// another one that is alive: its phase says `running`, its pid exists and
/// it committed within [`EMBED_HEARTBEAT_S`]. A daemon that starts watching
/// a project `repo-search index` has just built waits for it instead of
/// embedding the same chunks beside it on the same cores.
pub fn embedding_elsewhere(root: &std::path::Path) -> Option<u32> {
    let store = Store::open_ro(root).ok().flatten()?;
    let get = |k: &str| store.get_meta(k).ok().flatten();
    if get(meta::EMBED_STATE).as_deref() != Some("running") {
        return None;
    }
    let pid: u32 = get(meta::EMBED_PID)?.parse().ok()?;
    let heartbeat: i64 = get(meta::EMBED_UPDATED)?.parse().ok()?;
    (pid != std::process::id()
        && now_s() - heartbeat <= EMBED_HEARTBEAT_S
        && crate::lock::process_alive(pid))
    .then_some(pid)
}

fn read_u64(store: &Store, key: &str) -> u64 {
    store.meta_u64(key).unwrap_or(0)
}

/// Embeds every chunk that has no vector from `embedder` yet. The caller
/// holds the writer lock.
pub fn embed_pending(
    settings: &Settings,
    store: &mut Store,
    embedder: &dyn Embedder,
    tier: Tier,
    progress: &dyn Fn(&EmbedProgress),
) -> Result<EmbedSummary> {
    embed_pending_until(settings, store, embedder, tier, progress, &|| false)
}

/// [`embed_pending`] that returns early (after committing what it has)
/// when `should_stop` says so: the daemon yields to file changes this way.
pub fn embed_pending_until(
    settings: &Settings,
    store: &mut Store,
    embedder: &dyn Embedder,
    tier: Tier,
    progress: &dyn Fn(&EmbedProgress),
    should_stop: &dyn Fn() -> bool,
) -> Result<EmbedSummary> {
    embed_pending_with(
        settings,
        store,
        embedder,
        tier,
        progress,
        should_stop,
        &Locking::CallerHolds,
    )
}

/// Who holds the writer lock during an embedding run.
enum Locking<'a> {
    /// The caller holds it for the whole run.
    CallerHolds,
    /// Taken for each write transaction only, so index runs (the daemon's
    /// re-indexing of saved files) are not kept waiting for the minutes or
    /// hours a full-tier run takes. Safe because this phase writes only
    /// content-keyed vectors and its own progress.
    PerCommit(&'a dyn Fn(Option<u32>)),
}

impl Locking<'_> {
    fn hold(&self, root: &std::path::Path) -> Result<Option<WriterLock>> {
        match self {
            Locking::CallerHolds => Ok(None),
            Locking::PerCommit(on_wait) => Ok(Some(WriterLock::acquire_existing(
                root,
                WhenBusy::Wait,
                on_wait,
            )?)),
        }
    }
}

fn embed_pending_with(
    settings: &Settings,
    store: &mut Store,
    embedder: &dyn Embedder,
    tier: Tier,
    progress: &dyn Fn(&EmbedProgress),
    should_stop: &dyn Fn() -> bool,
    locking: &Locking<'_>,
) -> Result<EmbedSummary> {
    let started = Instant::now();
    let db = store::db_path(&settings.root);
    let model = embedder.model_id().to_string();
    let mut pending = store
        .pending_embeddings(&model)
        .map_err(|e| store::explain(e, &db))?;
    // The texts are read from the files: a window of chunks in file order
    // reads each of its files once; within it, similar lengths batch
    // together (padding drops from ~44% to ~3%).
    pending.sort_by_key(|p| (p.file_id, p.chunk_id));
    for window in pending.chunks_mut(WINDOW_CHUNKS) {
        window.sort_by_key(|p| (p.len, p.chunk_id));
    }
    let total = pending.len() as u64;
    // Keys whose text several chunks share, and how many beyond the first.
    let repeats: HashMap<u64, u64> = pending
        .iter()
        .filter(|p| p.copies > 1)
        .map(|p| (p.key, p.copies - 1))
        .collect();
    let mut same_text = 0u64;
    let mut prog = EmbedProgress {
        tier,
        model: model.clone(),
        done: 0,
        total,
        elapsed_s: 0.0,
    };
    let mut vgen = read_u64(store, meta::VECTORS_GENERATION);
    {
        let _lock = locking.hold(&settings.root)?;
        let w = store.begin().map_err(|e| store::explain(e, &db))?;
        w.set_meta(meta::EMBED_MODEL, &model)?;
        w.set_meta(
            meta::EMBED_STATE,
            if total > 0 { "running" } else { "idle" },
        )?;
        w.set_meta(meta::EMBED_DONE, "0")?;
        w.set_meta(meta::EMBED_TOTAL, &total.to_string())?;
        let now = now_s().to_string();
        w.set_meta(meta::EMBED_STARTED, &now)?;
        w.set_meta(meta::EMBED_UPDATED, &now)?;
        w.set_meta(meta::EMBED_PID, &std::process::id().to_string())?;
        w.commit().map_err(|e| store::explain(e, &db))?;
    }
    progress(&prog);

    let batch = embedder.batch_size().max(1);
    let mut buffer: Vec<(u64, Vec<f32>)> = Vec::new();
    let mut last_commit = Instant::now();
    let mut interrupted = false;
    let mut failure: Option<anyhow::Error> = None;
    let mut committed = 0u64;
    let mut stale = 0u64;
    'windows: for window in pending.chunks(WINDOW_CHUNKS) {
        let mut sources = crate::source::Sources::new(&settings.root);
        let groups: Vec<&[_]> = window.chunks(batch).collect();
        for group in spread_order(groups.len()).into_iter().map(|i| groups[i]) {
            if should_stop() {
                interrupted = true;
                break 'windows;
            }
            let ids: Vec<i64> = group.iter().map(|p| p.chunk_id).collect();
            let chunks = store
                .chunk_sources(&ids)
                .map_err(|e| store::explain(e, &db))?;
            // A chunk whose file changed since it was indexed is left for
            // the next index run, which re-chunks the file.
            let mut keys = Vec::with_capacity(chunks.len());
            let mut inputs = Vec::with_capacity(chunks.len());
            for c in &chunks {
                match sources.chunk(&c.path, &c.span) {
                    Some(text) => {
                        inputs.push(embed::chunk_input(
                            &c.path,
                            c.symbol.as_deref(),
                            c.kind.as_deref(),
                            text,
                            c.span.start_byte,
                        ));
                        keys.push(c.key);
                    }
                    None => stale += 1,
                }
            }
            let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
            if !refs.is_empty() {
                match embedder.embed(&refs) {
                    Ok(vectors) => {
                        same_text += keys.iter().filter_map(|k| repeats.get(k)).sum::<u64>();
                        buffer.extend(keys.into_iter().zip(vectors));
                    }
                    Err(e) => {
                        failure = Some(e);
                        interrupted = true;
                        break 'windows;
                    }
                }
            }
            prog.done += group.len() as u64;
            prog.elapsed_s = started.elapsed().as_secs_f64();
            if last_commit.elapsed() >= COMMIT_EVERY {
                vgen += 1;
                let _lock = locking.hold(&settings.root)?;
                commit_vectors(store, &db, &model, &buffer, prog.done, vgen)?;
                committed += buffer.len() as u64;
                buffer.clear();
                last_commit = Instant::now();
            }
            progress(&prog);
        }
    }
    if stale > 0 {
        tracing::info!(
            stale,
            model,
            "chunks left without a vector: their files changed since they were indexed (the next index run re-reads them)"
        );
    }
    vgen += 1;
    let _lock = locking.hold(&settings.root)?;
    commit_vectors(store, &db, &model, &buffer, prog.done, vgen)?;
    committed += buffer.len() as u64;
    {
        let w = store.begin().map_err(|e| store::explain(e, &db))?;
        w.set_meta(meta::EMBED_STATE, "idle")?;
        w.commit().map_err(|e| store::explain(e, &db))?;
    }
    if let Some(e) = failure {
        return Err(e);
    }
    let (with_vectors, total_chunks) = store
        .embedding_coverage(&model)
        .map_err(|e| store::explain(e, &db))?;
    let flag = meta::complete_once(&model);
    if total_chunks > 0
        && with_vectors == total_chunks
        && store
            .get_meta(&flag)
            .map_err(|e| store::explain(e, &db))?
            .is_none()
    {
        let w = store.begin().map_err(|e| store::explain(e, &db))?;
        w.set_meta(&flag, "1")?;
        w.commit().map_err(|e| store::explain(e, &db))?;
    }
    Ok(EmbedSummary {
        tier,
        model,
        embedded: committed,
        same_text,
        with_vectors,
        total_chunks,
        seconds: started.elapsed().as_secs_f64(),
        skipped: None,
        hint: None,
        skip_code: None,
        deferred: false,
        interrupted,
    })
}

fn commit_vectors(
    store: &mut Store,
    db: &std::path::Path,
    model: &str,
    buffer: &[(u64, Vec<f32>)],
    done: u64,
    vgen: u64,
) -> Result<()> {
    let w = store.begin().map_err(|e| store::explain(e, db))?;
    let rows: Vec<(u64, &[f32])> = buffer.iter().map(|(k, v)| (*k, v.as_slice())).collect();
    w.put_embeddings(model, &rows)?;
    w.set_meta(meta::EMBED_DONE, &done.to_string())?;
    w.set_meta(meta::EMBED_UPDATED, &now_s().to_string())?;
    w.set_meta(meta::VECTORS_GENERATION, &vgen.to_string())?;
    w.commit().map_err(|e| store::explain(e, db))?;
    Ok(())
}

/// A tier that could not run, as a summary saying why.
fn skipped(spec: &TierSpec, err: &anyhow::Error) -> EmbedSummary {
    let (reason, hint, code) = match crate::error::find_user_error(err) {
        Some(u) => (u.message.clone(), u.hint.clone(), Some(u.code)),
        None => (format!("{err:#}"), None, None),
    };
    EmbedSummary {
        tier: spec.tier,
        model: spec.model_id.clone(),
        embedded: 0,
        same_text: 0,
        with_vectors: 0,
        total_chunks: 0,
        seconds: 0.0,
        skipped: Some(reason),
        hint,
        skip_code: code,
        deferred: false,
        interrupted: false,
    }
}

/// Which tiers an embedding run computes, and when it stops.
pub struct EmbedPlan<'a> {
    pub tiers: &'a [Tier],
    /// Leave the full tier to a background run (the daemon) when more than
    /// this many chunks lack its vectors: at ~25 chunks per second on two
    /// cores, a foreground `index` of a large repository (Django: 46k
    /// chunks) would otherwise take half an hour.
    pub defer_full_over: Option<u64>,
    /// Run the full tier only to keep it complete: when it already has
    /// vectors and at most `defer_full_over` chunks lack them (the few an
    /// edit changed), and its weights are on disk. A tier that was never
    /// computed is left alone (quietly), for `repo-search index` or the
    /// daemon: a fresh-keeping run must stay seconds.
    pub top_up_full_only: bool,
    /// Loaded models to reuse (a long-lived process keeps them warm);
    /// `None` loads each tier's model for this run.
    pub models: Option<&'a Models>,
    /// Asked between batches; `true` commits what is done and returns.
    pub should_stop: &'a dyn Fn() -> bool,
}

/// A rough rate for the deferral note: chunks per second of MiniLM on two
/// cores (over each chunk's first 128 tokens: 64-78 measured on jsoup and
/// Sequel by the indexer, 65-120 by the daemon; lower while the machine
/// is busy with other work).
const FULL_TIER_RATE: f64 = 60.0;

/// Runs the embedding phase for the given tiers (fast first, then full),
/// taking the writer lock only to open the store and for each commit. A
/// tier whose model is missing or whose provider fails is reported in its
/// summary; the others still run. At the end, vectors of vanished chunks
/// (and of models no longer configured, once the configured ones are
/// complete) are pruned.
pub fn embed_project(
    settings: &Settings,
    embed_settings: &EmbedSettings,
    plan: &EmbedPlan<'_>,
    progress: &dyn Fn(&EmbedProgress),
    on_wait: &dyn Fn(Option<u32>),
) -> Result<Vec<EmbedSummary>> {
    let tiers = plan.tiers;
    let specs = embed::configured_tiers(embed_settings);
    let mut out = Vec::new();
    let mut order: Vec<&TierSpec> = specs.iter().filter(|s| tiers.contains(&s.tier)).collect();
    order.sort_by_key(|s| s.tier != Tier::Fast);
    let db = store::db_path(&settings.root);
    for spec in order {
        // Another live process (a daemon) embedding this project computes
        // the same vectors: a full run (`repo-search index`) waits for it,
        // then tops up what it left, instead of doubling the CPU beside
        // it. A fresh-keeping run (the few chunks an edit changed) goes on.
        if !plan.top_up_full_only
            && let Some(pid) = embedding_elsewhere(&settings.root)
        {
            on_wait(Some(pid));
            while embedding_elsewhere(&settings.root).is_some() {
                if (plan.should_stop)() {
                    // Told to stop while waiting: stop, as between batches.
                    return Ok(out);
                }
                std::thread::sleep(std::time::Duration::from_millis(250));
            }
        }
        let mut store = {
            let _lock = WriterLock::acquire_existing(&settings.root, WhenBusy::Wait, on_wait)?;
            Store::open_rw(&settings.root)?
        };
        if spec.tier == Tier::Full && plan.top_up_full_only {
            let coverage = store.embedding_coverage(&spec.model_id).unwrap_or((0, 0));
            let (with, total) = coverage;
            let pending = total.saturating_sub(with);
            let few = plan.defer_full_over.is_none_or(|limit| pending <= limit);
            if pending == 0 {
                continue;
            }
            if with == 0 || !few || !embed::is_ready(spec) {
                let mut s = skipped(
                    spec,
                    &anyhow::anyhow!(
                        "left to `repo-search index` or the daemon: {pending} chunks need vectors from {}",
                        spec.model_id
                    ),
                );
                (s.with_vectors, s.total_chunks, s.deferred) = (with, total, true);
                out.push(s);
                continue;
            }
        } else if spec.tier == Tier::Full
            && let Some(limit) = plan.defer_full_over
            && let Ok((with, total)) = store.embedding_coverage(&spec.model_id)
            && total.saturating_sub(with) > limit
        {
            let pending = total.saturating_sub(with);
            let minutes = (pending as f64 / FULL_TIER_RATE / 60.0).ceil();
            let mut s = skipped(
                spec,
                &anyhow::anyhow!(
                    "deferred: {pending} chunks need vectors from {} (~{minutes} min of CPU)",
                    spec.model_id
                ),
            );
            s.hint = Some(
                "`repo-search-daemon start` computes them in the background; \
                 `repo-search index --embed-tier full` computes them now (resumable)"
                    .into(),
            );
            s.with_vectors = with;
            s.total_chunks = total;
            s.deferred = true;
            out.push(s);
            continue;
        }
        let opened = match plan.models {
            Some(models) => models.open(embed_settings, spec),
            None => embed::open(embed_settings, spec).map(std::sync::Arc::from),
        };
        let embedder = match opened {
            Ok(e) => e,
            Err(e) => {
                out.push(skipped(spec, &e));
                continue;
            }
        };
        // Waits for other writers are short (one index batch): no message.
        let locking = Locking::PerCommit(&|_| {});
        match embed_pending_with(
            settings,
            &mut store,
            embedder.as_ref(),
            spec.tier,
            progress,
            plan.should_stop,
            &locking,
        ) {
            Ok(s) => out.push(s),
            Err(e) => {
                let mut s = skipped(spec, &e);
                if let Ok((with, total)) = store.embedding_coverage(&spec.model_id) {
                    s.with_vectors = with;
                    s.total_chunks = total;
                }
                s.interrupted = true;
                out.push(s);
            }
        }
    }
    if !out.is_empty() {
        let _lock = WriterLock::acquire_existing(&settings.root, WhenBusy::Wait, on_wait)?;
        let mut store = Store::open_rw(&settings.root)?;
        // Vectors of a model that is no longer configured go only once every
        // configured tier is complete, and only when a full-tier model is
        // configured (it replaces them): switching providers for one run,
        // or turning the full tier off for one (`provider = "none"`), must
        // not throw away hours of embeddings. `compact` drops them on
        // request.
        // Counted once (a probe per chunk): for the prune and the repack.
        let coverage: Vec<Option<(u64, u64)>> = specs
            .iter()
            .map(|spec| store.embedding_coverage(&spec.model_id).ok())
            .collect();
        let complete = specs.iter().any(|s| s.tier == Tier::Full)
            && coverage
                .iter()
                .all(|c| c.is_some_and(|(with, total)| with == total));
        let keep: Vec<&str> = specs.iter().map(|s| s.model_id.as_str()).collect();
        let w = store.begin().map_err(|e| store::explain(e, &db))?;
        let n = w.prune_embeddings(complete.then_some(keep.as_slice()))?;
        w.commit().map_err(|e| store::explain(e, &db))?;
        if n > 0 {
            tracing::info!("pruned {n} vectors of vanished chunks or unconfigured models");
        }
        // Many new vectors (a first run, a new model): their pages, filled.
        let embedded: u64 = out.iter().map(|s| s.embedded).sum();
        // (Pruning removed only vectors no chunk has: the counts stand.)
        let total: u64 = coverage.iter().flatten().map(|(with, _)| with).sum();
        if embedded >= 1000 && embedded * 10 >= total {
            match store.repack_vectors() {
                Ok(()) => tracing::debug!("vectors repacked"),
                Err(e) => tracing::warn!("the vectors were not repacked: {e}"),
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::Extractor;
    use crate::model::Lang;
    use crate::store::FileUpdate;

    #[test]
    fn batches_run_spread_over_their_lengths_each_once() {
        for n in [0, 1, 2, 3, 10, 64, 100, 1000] {
            let mut order = spread_order(n);
            // The first fifth holds short and long batches alike.
            if n >= 50 {
                let head = &order[..n / 5];
                let mean = head.iter().sum::<usize>() as f64 / head.len() as f64;
                assert!((mean / n as f64 - 0.5).abs() < 0.15, "{n}: {head:?}");
            }
            order.sort_unstable();
            assert_eq!(order, (0..n).collect::<Vec<_>>(), "{n}");
        }
    }

    /// Records what it is asked to embed.
    #[derive(Default)]
    struct Recorder {
        seen: std::sync::Mutex<Vec<String>>,
    }

    impl Embedder for Recorder {
        fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
            if let Ok(mut seen) = self.seen.lock() {
                seen.extend(texts.iter().map(|t| t.to_string()));
            }
            Ok(texts.iter().map(|_| vec![1.0, 0.0]).collect())
        }
        fn dim(&self) -> usize {
            2
        }
        fn model_id(&self) -> &str {
            "recorder"
        }
        fn max_input_tokens(&self) -> usize {
            512
        }
    }

    /// The texts are read from the files: the embedder gets exactly what
    /// the indexer cut (`chunk_input` of each chunk), and a file edited
    /// since it was indexed is skipped, not embedded with another text.
    #[test]
    fn embeds_chunk_texts_read_from_the_files_and_skips_stale_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let files = [
            (
                "a.py",
                "def one():\n    return 1\n\n\nclass K:\n    def two(self):\n        return 2\n",
            ),
            ("b.py", "def three():\n    return 3\n"),
        ];
        let mut store = Store::open_rw(&root).expect("open");
        let mut ex = Extractor::new();
        let mut expected = Vec::new();
        for (path, text) in files {
            std::fs::write(root.join(path), text).expect("write");
            let extracted = ex.extract(path, text, Lang::Python).expect("extract");
            if path == "a.py" {
                expected.extend(extracted.chunks.iter().map(|c| {
                    embed::chunk_input(
                        path,
                        c.symbol.as_deref(),
                        c.kind.as_deref(),
                        &c.text,
                        c.start_byte as u64,
                    )
                }));
            }
            let w = store.begin().expect("begin");
            let update = FileUpdate {
                path,
                lang: Some(Lang::Python),
                size: text.len() as u64,
                mtime_ns: 1,
                hash: 1,
                skip_reason: None,
                extracted: &extracted,
                prepared: None,
                packed: None,
            };
            w.put_file(None, &update, 1).expect("put");
            w.commit().expect("commit");
        }
        std::fs::write(root.join("b.py"), "def three():\n    return 4\n").expect("edit");
        let settings = Settings::defaults(root.clone());
        let rec = Recorder::default();
        let s = embed_pending(&settings, &mut store, &rec, Tier::Fast, &|_| {}).expect("embed");
        let mut seen = rec.seen.lock().expect("lock").clone();
        seen.sort();
        expected.sort();
        assert_eq!(seen, expected);
        assert_eq!(s.embedded, expected.len() as u64);
        assert_eq!(
            (s.with_vectors, s.total_chunks),
            (expected.len() as u64, expected.len() as u64 + 1)
        );
    }
}
