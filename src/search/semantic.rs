//! Owns semantic search: a query (or a piece of code) embedded with the
//! model whose vectors cover the index best, compared with every stored
//! chunk vector, top-k with path/language/scope filters and a similarity
//! threshold. Brute force, no ANN structure: a scan of int8 codes
//! ([`super::quantized`], the form the index stores vectors in, a quarter of
//! the f32 bytes; split over the cores past [`PARALLEL_ROWS`] rows) with an
//! int8 query picks several times `k` candidates, which are re-scored with
//! the f32 query against their codes, so answers equal an exact scan of the
//! stored vectors (`scripts/bench-embed.sh` times it up to 1M vectors).
//!
//! Which vectors: the best configured tier (full, then fast) whose vectors
//! cover every chunk, or nearly every chunk (an edit's few new chunks are
//! still being embedded: see [`nearly_complete`]; the answer is then
//! `partial` with `embedded/total`, and the missing chunks are left out, so
//! one edited file does not switch every answer to the fast model); if none
//! does, the one covering the most, also `partial`. Vectors of different
//! models are never compared. Nothing here downloads or computes chunk vectors: a missing
//! model or index makes the answer `available: false` with the reason and
//! a hint, and every other search keeps working.
//!
//! Long-lived processes keep a [`SemanticSearcher`]: it holds the matrix and
//! the query model warm and reloads the matrix when the index generation
//! changes.

use std::collections::HashMap;

use anyhow::Result;
use serde::Serialize;

use crate::embed::{self, Embedder, Tier, TierSpec};
use crate::error::{ErrorCode, UserError};
use crate::search::bm25::ChunkHit;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::search::quantized::{self, Quantized};
use crate::search::{ChunkFilter, Snippets, chunk_snippet};
use crate::settings::EmbedSettings;
use crate::store::{self, Store, meta};

/// Largest accepted query or code input, in bytes.
pub const MAX_QUERY_BYTES: usize = 16 * 1024;

/// A natural-language search.
#[derive(Debug, Clone)]
pub struct SemanticRequest {
    pub query: String,
    pub filter: ChunkFilter,
    pub limit: usize,
    /// Hits below this cosine similarity (the blended one when the fast
    /// tier is blended in, see [`FAST_TIER_SHARE`]) are dropped.
    pub threshold: Option<f32>,
    pub snippets: Snippets,
}

/// What to find code similar to.
#[derive(Debug, Clone)]
pub enum SimilarTo {
    /// A piece of code.
    Code(String),
    /// The chunk of an indexed file that holds this line (1-based).
    Location { path: String, line: u32 },
}

#[derive(Debug, Clone)]
pub struct SimilarRequest {
    pub target: SimilarTo,
    pub filter: ChunkFilter,
    pub limit: usize,
    pub threshold: Option<f32>,
    /// Leave out hits in this path (by default, a `Location` request
    /// leaves out the chunk it starts from).
    pub exclude_path: Option<String>,
    pub snippet_lines: usize,
}

/// What semantic search says about its vectors: whether it can answer and
/// why not, which model's vectors it searched, how complete they are.
#[derive(Debug, Clone, Serialize)]
pub struct SemanticInfo {
    /// False when semantic search cannot answer (no model, no vectors).
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// `hint` for an agent calling tools (no shell commands); see
    /// [`crate::error::UserError::agent_hint`].
    #[serde(skip)]
    pub agent_hint: Option<String>,
    /// Model whose vectors were searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    /// Not every chunk has a vector from `model` yet.
    pub partial: bool,
    /// Chunks with a vector from `model`, of all chunks.
    pub embedded: u64,
    pub total: u64,
    /// A better configured model that does not cover every chunk yet, so
    /// `model` (a lower tier) answered; `hint` says how to finish it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upgrade: Option<Upgrade>,
    /// The fast-tier model whose similarities were blended into the full
    /// tier's ([`FAST_TIER_SHARE`]), when both cover the index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blended_with: Option<String>,
}

/// The answer of a semantic search: the vector report and the hits.
#[derive(Debug, Clone, Serialize)]
pub struct SemanticResult {
    #[serde(flatten)]
    pub info: SemanticInfo,
    pub hits: Vec<ChunkHit>,
}

impl std::ops::Deref for SemanticResult {
    type Target = SemanticInfo;
    fn deref(&self) -> &SemanticInfo {
        &self.info
    }
}

impl std::ops::DerefMut for SemanticResult {
    fn deref_mut(&mut self) -> &mut SemanticInfo {
        &mut self.info
    }
}

/// The best configured model, when search had to use another.
#[derive(Debug, Clone, Serialize)]
pub struct Upgrade {
    pub model: String,
    /// Chunks with its vectors, of `total`.
    pub embedded: u64,
    pub total: u64,
    /// Its weights are on disk (else `repo-search model fetch` first).
    pub ready: bool,
}

impl Upgrade {
    /// How to get the better vectors, for an agent: nothing it can run.
    pub fn agent_hint(&self) -> String {
        if self.ready {
            format!(
                "{} vectors cover {}/{} chunks; the rest are computed by `repo-search index --embed-tier full` or the daemon (ask the user)",
                self.model, self.embedded, self.total
            )
        } else {
            format!(
                "{} is configured but not downloaded: the user can run `repo-search model fetch`",
                self.model
            )
        }
    }

    /// How to get the better vectors, in CLI terms.
    pub fn hint(&self) -> String {
        if self.ready {
            format!(
                "{} vectors cover {}/{} chunks: `repo-search index --embed-tier full` computes the rest now (resumable), or `repo-search-daemon start` in the background",
                self.model, self.embedded, self.total
            )
        } else {
            format!(
                "{} is configured but not downloaded: run `repo-search model fetch`, then `repo-search index --embed-tier full`",
                self.model
            )
        }
    }
}

impl SemanticInfo {
    /// Semantic search cannot answer, for `reason`; `hint` says what to do.
    pub fn unavailable(reason: impl Into<String>, hint: impl Into<String>) -> SemanticInfo {
        SemanticInfo {
            available: false,
            reason: Some(reason.into()),
            hint: Some(hint.into()),
            agent_hint: None,
            model: None,
            tier: None,
            partial: false,
            embedded: 0,
            total: 0,
            upgrade: None,
            blended_with: None,
        }
    }

    /// Semantic search failed for a reason that is not a missing model or
    /// missing vectors (an error of the provider or the arm): where to look.
    pub fn failed(reason: impl Into<String>) -> SemanticInfo {
        SemanticInfo::unavailable(
            reason,
            "run `repo-search model status` and `repo-search status`",
        )
        .agent("index_status shows the embedding state")
    }

    /// The same with a hint for agents.
    pub fn agent(mut self, hint: impl Into<String>) -> SemanticInfo {
        self.agent_hint = Some(hint.into());
        self
    }

    /// The hint an agent should read.
    pub fn hint_for_agent(&self) -> Option<&str> {
        self.agent_hint.as_deref().or(self.hint.as_deref())
    }
}

impl SemanticResult {
    fn unavailable(reason: impl Into<String>, hint: impl Into<String>) -> SemanticResult {
        SemanticResult::without_hits(SemanticInfo::unavailable(reason, hint))
    }

    fn without_hits(info: SemanticInfo) -> SemanticResult {
        SemanticResult {
            info,
            hits: Vec::new(),
        }
    }

    /// The same with a hint for agents.
    fn agent(self, hint: impl Into<String>) -> SemanticResult {
        SemanticResult {
            info: self.info.agent(hint),
            hits: self.hits,
        }
    }

    fn from_error(err: &anyhow::Error) -> SemanticResult {
        match crate::error::find_user_error(err) {
            Some(u) => {
                let mut r = SemanticResult::unavailable(
                    u.message.clone(),
                    u.hint.clone().unwrap_or_default(),
                );
                r.agent_hint = u.agent_hint.clone();
                r
            }
            None => SemanticResult::without_hits(SemanticInfo::failed(format!("{err:#}"))),
        }
    }
}

/// Every chunk vector of one model, row-major in one allocation.
pub struct SemanticIndex {
    pub model: String,
    pub dim: usize,
    /// (index generation, vectors generation) when loaded.
    generation: (u64, u64),
    chunk_ids: Vec<i64>,
    /// Per row: index into `files`.
    file_of: Vec<u32>,
    /// (path, language) of each file with vectors.
    files: Vec<(String, String)>,
    /// The stored vectors: what the scan and the re-score read (1M 256-d
    /// vectors are 250 MiB, 1 GiB in f32).
    quant: Quantized,
    /// Each file's rows, built on the first [`SemanticIndex::file_means`].
    rows_of: std::sync::OnceLock<FileRows>,
}

/// The rows of each file of a [`SemanticIndex`]: the slot of each path, and
/// the rows of slot `i` at `rows[start[i]..start[i + 1]]`.
struct FileRows {
    slot_of: HashMap<String, u32>,
    start: Vec<u32>,
    rows: Vec<u32>,
}

impl FileRows {
    fn new(files: &[(String, String)], file_of: &[u32]) -> FileRows {
        let mut count = vec![0u32; files.len() + 1];
        for &f in file_of {
            count[f as usize + 1] += 1;
        }
        for i in 1..count.len() {
            count[i] += count[i - 1];
        }
        let start = count.clone();
        let mut next = count;
        let mut rows = vec![0u32; file_of.len()];
        for (row, &f) in file_of.iter().enumerate() {
            rows[next[f as usize] as usize] = row as u32;
            next[f as usize] += 1;
        }
        let slot_of = files
            .iter()
            .enumerate()
            .map(|(i, (p, _))| (p.clone(), i as u32))
            .collect();
        FileRows {
            slot_of,
            start,
            rows,
        }
    }
}

/// The fast tier's share when its similarities are blended into a
/// full-tier answer ([`SemanticSearcher::search`]): the two models err
/// differently: on the `agent` suite with MiniLM vectors the blend lifted
/// semantic search alone (NDCG@10 files, tuning half .806 → .819,
/// checking .770 → .777) and hybrid (tuning .883 → .884, checking .862 →
/// .873), for one more scan of the smaller matrix. (0.3 and 0.6 measured
/// alike on the tuning half, 1.0 less.)
pub const FAST_TIER_SHARE: f32 = 0.5;

/// From this many rows on, the scan is split over the available cores.
pub const PARALLEL_ROWS: usize = 131_072;

/// Candidates the int8 scan keeps for the re-score, for `k` answers.
fn candidates_for(k: usize) -> usize {
    (k * 4).max(k + 32)
}

/// Widening of a similarity threshold for the int8 scan (its scores are off
/// by well under this), so no row at the threshold is lost before the re-score.
const THRESHOLD_SLACK: f32 = 0.05;

fn generations(store: &Store) -> (u64, u64) {
    let get = |k: &str| store.meta_u64(k).unwrap_or(0);
    (get(meta::GENERATION), get(meta::VECTORS_GENERATION))
}

impl SemanticIndex {
    /// Loads every vector of `model`. Rows of another length than the
    /// first (which would mean a corrupt row) are skipped.
    pub fn load(store: &Store, db: &std::path::Path, model: &str) -> Result<SemanticIndex> {
        let generation = generations(store);
        let paths = store.file_paths().map_err(|e| store::explain(e, db))?;
        let explain = |e| store::explain(e, db);
        // The stored codes, copied as they are: no f32 matrix is held.
        let (quant, chunk_ids, file_ids) = store
            .load_vectors_into(model, Quantized::default())
            .map_err(explain)?;
        let dim = quant.dim();
        let mut file_slot: HashMap<i64, u32> = HashMap::new();
        let mut files = Vec::new();
        let file_of = file_ids
            .iter()
            .map(|file_id| {
                *file_slot.entry(*file_id).or_insert_with(|| {
                    files.push(paths.get(file_id).cloned().unwrap_or_default());
                    (files.len() - 1) as u32
                })
            })
            .collect();
        Ok(SemanticIndex {
            model: model.to_string(),
            dim,
            generation,
            chunk_ids,
            file_of,
            files,
            quant,
            rows_of: std::sync::OnceLock::new(),
        })
    }

    /// Builds an index from raw rows (benchmarks and tests), in chunk-id
    /// order as a loaded one is.
    pub fn from_rows(
        model: &str,
        dim: usize,
        mut rows: Vec<(i64, String, Vec<f32>)>,
    ) -> SemanticIndex {
        rows.sort_by_key(|r| r.0);
        let mut files: Vec<(String, String)> = Vec::new();
        let mut slot_of: HashMap<String, u32> = HashMap::new();
        let mut idx = SemanticIndex {
            model: model.to_string(),
            dim,
            generation: (0, 0),
            chunk_ids: Vec::with_capacity(rows.len()),
            file_of: Vec::with_capacity(rows.len()),
            files: Vec::new(),
            quant: Quantized::from_f32(dim, &[]),
            rows_of: std::sync::OnceLock::new(),
        };
        for (id, path, v) in rows {
            if v.len() != dim {
                continue;
            }
            let slot = *slot_of.entry(path.clone()).or_insert_with(|| {
                files.push((path, String::new()));
                (files.len() - 1) as u32
            });
            idx.chunk_ids.push(id);
            idx.file_of.push(slot);
            idx.quant.push(&v);
        }
        idx.files = files;
        idx
    }

    /// Bytes of the vectors held in memory (int8 codes and scales).
    pub fn memory_bytes(&self) -> usize {
        self.quant.bytes()
    }

    pub fn len(&self) -> usize {
        self.chunk_ids.len()
    }

    /// The exact similarity of `chunk_id`'s stored vector to `query`;
    /// `None` when the chunk has no vector here. (Rows are in chunk-id
    /// order: [`Store::load_vectors_into`] and [`Self::from_rows`] keep it.)
    pub fn score_of(&self, chunk_id: i64, query: &[f32]) -> Option<f32> {
        if query.len() != self.dim || self.dim == 0 {
            return None;
        }
        let row = self.chunk_ids.binary_search(&chunk_id).ok()?;
        Some(self.quant.score_f32(row, query))
    }

    pub fn is_empty(&self) -> bool {
        self.chunk_ids.is_empty()
    }

    /// Each of `paths`' mean similarity to `query` over all its chunks
    /// (those with a vector here; a path without any is left out): how much
    /// of the file is about the query, where the arm's hits say only that
    /// some chunk is. A hub file near many meanings has one close chunk
    /// among many far ones; a file dedicated to the question is close
    /// throughout.
    pub fn file_means(&self, query: &[f32], paths: &[&str]) -> HashMap<String, f64> {
        let mut out = HashMap::new();
        if query.len() != self.dim || self.dim == 0 {
            return out;
        }
        let by_file = self
            .rows_of
            .get_or_init(|| FileRows::new(&self.files, &self.file_of));
        for &path in paths {
            let Some(&slot) = by_file.slot_of.get(path) else {
                continue;
            };
            let (from, to) = (
                by_file.start[slot as usize] as usize,
                by_file.start[slot as usize + 1] as usize,
            );
            if to <= from {
                continue;
            }
            let sum: f64 = by_file.rows[from..to]
                .iter()
                .map(|&row| f64::from(self.quant.score_f32(row as usize, query)))
                .sum();
            out.insert(path.to_string(), sum / (to - from) as f64);
        }
        out
    }

    /// The `k` best (chunk id, cosine) pairs for `query`, best first,
    /// among rows whose file passes `filter`, above `threshold`, and not
    /// excluded by `skip` (called with the chunk id and path).
    ///
    /// Scores are exact for the stored vectors: the int8 scan's candidates
    /// are re-scored with the f32 query against their codes.
    pub fn top_k(
        &self,
        query: &[f32],
        filter: &ChunkFilter,
        k: usize,
        threshold: Option<f32>,
        skip: &(dyn Fn(i64, &str) -> bool + Sync),
    ) -> Vec<(i64, f32)> {
        if query.len() != self.dim || k == 0 || self.dim == 0 {
            return Vec::new();
        }
        // Files are filtered once, not once per chunk.
        let allowed: Vec<bool> = self
            .files
            .iter()
            .map(|(p, l)| filter.accepts(p, l))
            .collect();
        let (qc, qs) = quantized::quantize(query);
        let loose = threshold.map_or(f32::NEG_INFINITY, |t| t - THRESHOLD_SLACK);
        let want = candidates_for(k);
        let rows = self.quant.rows();
        let scan = |from: usize, to: usize| -> Vec<(usize, f32)> {
            let mut heap: BinaryHeap<Reverse<Scored>> = BinaryHeap::with_capacity(want + 1);
            for row in from..to {
                let file = self.file_of[row] as usize;
                if !allowed[file] {
                    continue;
                }
                let s = self.quant.score(row, &qc, qs);
                if s < loose || (heap.len() == want && heap.peek().is_some_and(|w| s <= w.0.score))
                {
                    continue;
                }
                if skip(self.chunk_ids[row], &self.files[file].0) {
                    continue;
                }
                heap.push(Reverse(Scored {
                    score: s,
                    id: row as i64,
                }));
                if heap.len() > want {
                    heap.pop();
                }
            }
            heap.into_iter()
                .map(|r| (r.0.id as usize, r.0.score))
                .collect()
        };
        let threads = if rows >= PARALLEL_ROWS {
            std::thread::available_parallelism()
                .map_or(1, |n| n.get())
                .min(8)
        } else {
            1
        };
        let mut cands: Vec<(usize, f32)> = if threads > 1 {
            let per = rows.div_ceil(threads);
            std::thread::scope(|sc| {
                let parts: Vec<_> = (0..threads)
                    .map(|t| {
                        let scan = &scan;
                        sc.spawn(move || scan(t * per, ((t + 1) * per).min(rows)))
                    })
                    .collect();
                parts
                    .into_iter()
                    .flat_map(|h| h.join().unwrap_or_default())
                    .collect()
            })
        } else {
            scan(0, rows)
        };
        // The exact scores of the candidates (of the stored vectors).
        for (row, s) in &mut cands {
            *s = self.quant.score_f32(*row, query);
        }
        let min = threshold.unwrap_or(f32::NEG_INFINITY);
        let mut out: Vec<(i64, f32)> = cands
            .into_iter()
            .filter(|(_, s)| *s >= min)
            .map(|(row, s)| (self.chunk_ids[row], s))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out.truncate(k);
        out
    }
}

#[derive(Debug, Clone, Copy)]
struct Scored {
    score: f32,
    id: i64,
}

impl PartialEq for Scored {
    fn eq(&self, o: &Self) -> bool {
        self.score.total_cmp(&o.score).is_eq() && self.id == o.id
    }
}
impl Eq for Scored {}
impl PartialOrd for Scored {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Scored {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        // Lower ids win ties, so results are deterministic.
        self.score.total_cmp(&o.score).then(o.id.cmp(&self.id))
    }
}

/// Dot product, unrolled by 8 so the compiler vectorises it.
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0.0f32; 8];
    let chunks = a.len() / 8;
    for i in 0..chunks {
        let (x, y) = (&a[i * 8..i * 8 + 8], &b[i * 8..i * 8 + 8]);
        for j in 0..8 {
            acc[j] += x[j] * y[j];
        }
    }
    let mut s: f32 = acc.iter().sum();
    for i in chunks * 8..a.len().min(b.len()) {
        s += a[i] * b[i];
    }
    s
}

/// The vectors semantic search will use: the best configured tier that
/// covers every chunk, else the one covering the most.
#[derive(Debug, Clone)]
pub struct Choice {
    pub spec: TierSpec,
    pub embedded: u64,
    pub total: u64,
    /// The best configured tier, when it is not the one chosen.
    pub upgrade: Option<Upgrade>,
}

/// A tier that covered every chunk once and now misses at most this many
/// still answers: those are the chunks an edit just changed, embedded
/// within seconds by whoever keeps the index fresh, while a lower tier's
/// answer would be worse for every query. A tier still being computed for
/// the first time, or a large backlog (a branch switch), does not.
pub const NEARLY_COMPLETE_MISSING: u64 = 256;

/// Whether a tier with `embedded` of `total` chunks, complete before if
/// `was_complete`, may answer instead of a lower, complete tier.
pub fn nearly_complete(embedded: u64, total: u64, was_complete: bool) -> bool {
    was_complete && embedded > 0 && total.saturating_sub(embedded) <= NEARLY_COMPLETE_MISSING
}

/// Whether `model`'s vectors (`embedded` of `total` chunks) cover the index
/// well enough for it to answer: all of them, or nearly all once they were
/// complete ([`nearly_complete`]).
fn covers_index(
    store: &Store,
    db: &std::path::Path,
    model: &str,
    embedded: u64,
    total: u64,
) -> Result<bool> {
    let was_complete = embedded < total
        && store
            .get_meta(&meta::complete_once(model))
            .map_err(|e| store::explain(e, db))?
            .is_some();
    Ok(embedded == total || nearly_complete(embedded, total, was_complete))
}

/// An index that a finished run left without chunks (no file of the
/// repository has text to search), as opposed to one not built yet.
fn indexed_empty(store: &Store, db: &std::path::Path) -> Result<bool> {
    let meta = |key: &str| store.get_meta(key).map_err(|e| store::explain(e, db));
    Ok(meta(meta::LAST_INDEXED)?.is_some() && meta(meta::STATE)?.as_deref() != Some("running"))
}

/// Picks the model to search with, or says why there is none.
pub fn choose_model(
    store: &Store,
    db: &std::path::Path,
    s: &EmbedSettings,
) -> Result<std::result::Result<Choice, SemanticResult>> {
    let specs = embed::configured_tiers(s);
    if specs.is_empty() {
        return Ok(Err(SemanticResult::unavailable(
            "semantic search is switched off (embed.provider = \"none\" and embed.fast = false)",
            "set embed.provider (and/or embed.fast = true) in `.repo_search/config.toml`",
        )));
    }
    let coverage = |model: &str| {
        store
            .embedding_coverage(model)
            .map_err(|e| store::explain(e, db))
    };
    // Specs come best first.
    let first = &specs[0];
    let first_ready = embed::is_ready(first);
    let upgrade_from = |chosen: &Choice| -> Result<Option<Upgrade>> {
        if chosen.spec.model_id == first.model_id {
            return Ok(None);
        }
        let (embedded, total) = coverage(&first.model_id)?;
        Ok(Some(Upgrade {
            model: first.model_id.clone(),
            embedded,
            total,
            ready: first_ready,
        }))
    };
    let mut best: Option<Choice> = None;
    for spec in specs.iter().cloned() {
        // A tier whose weights are gone cannot embed the query.
        if !embed::is_ready(&spec) {
            continue;
        }
        let (embedded, total) = coverage(&spec.model_id)?;
        if total == 0 && indexed_empty(store, db)? {
            // Indexed, and nothing in the repository has text to embed:
            // an answer with no hits, not a reason to index again.
            return Ok(Ok(Choice {
                spec,
                embedded,
                total,
                upgrade: None,
            }));
        }
        if total == 0 {
            return Ok(Err(SemanticResult::unavailable(
                "the index has no chunks yet",
                "run `repo-search index`",
            )
            .agent("the index is empty or being built: retry in a few seconds; index_status shows progress")));
        }
        let mut c = Choice {
            spec,
            embedded,
            total,
            upgrade: None,
        };
        if covers_index(store, db, &c.spec.model_id, embedded, total)? {
            c.upgrade = upgrade_from(&c)?;
            return Ok(Ok(c));
        }
        if best.as_ref().is_none_or(|b| embedded > b.embedded) {
            best = Some(c);
        }
    }
    match best {
        Some(mut c) if c.embedded > 0 => {
            c.upgrade = upgrade_from(&c)?;
            Ok(Ok(c))
        }
        _ => {
            let ready = embed::configured_tiers(s).iter().any(embed::is_ready);
            let (reason, hint) = if ready {
                (
                    "no chunk has a vector yet (embeddings are computed after indexing)",
                    "run `repo-search index` (or let the daemon finish embedding); `repo-search status` shows progress",
                )
            } else {
                (
                    "no embedding model is available",
                    "run `repo-search model fetch`, then `repo-search index`",
                )
            };
            let agent = if ready {
                "vectors are computed after indexing: retry later; index_status shows progress"
            } else {
                "no embedding model is downloaded: the user can run `repo-search model fetch`"
            };
            Ok(Err(SemanticResult::unavailable(reason, hint).agent(agent)))
        }
    }
}

/// Keeps the vector matrix and the query models of one project warm across
/// searches. Reloads the matrix when the index (or its vectors) changed.
pub struct SemanticSearcher {
    settings: EmbedSettings,
    /// The matrices the last search read: the answering model's and, when
    /// it blended, the fast tier's.
    indexes: Vec<SemanticIndex>,
    /// Shared with the process's index runs, which embed edited chunks
    /// with the same loaded model.
    models: embed::Models,
    /// The last query vectors, by (model, query): a search that goes on
    /// to a deeper pool asks again for the same query (MiniLM: ~8 ms).
    query_vectors: Vec<(String, String, Vec<f32>)>,
    /// The model whose matrix answered the last search, for
    /// [`SemanticSearcher::file_means`].
    answered_by: Option<String>,
}

/// Query vectors [`SemanticSearcher`] keeps (one query's, both tiers).
const QUERY_VECTORS_KEPT: usize = 2;

impl SemanticSearcher {
    pub fn new(settings: EmbedSettings, models: embed::Models) -> SemanticSearcher {
        SemanticSearcher {
            settings,
            indexes: Vec::new(),
            models,
            query_vectors: Vec::new(),
            answered_by: None,
        }
    }

    /// Loads `model`'s matrix unless the loaded one is current, after
    /// dropping every stale matrix and those of models not in `keep` (a
    /// search reads one model's, or two when it blends). Returns the
    /// matrix's position.
    fn ensure_index(
        &mut self,
        store: &Store,
        db: &std::path::Path,
        model: &str,
        keep: &[&str],
    ) -> Result<usize> {
        let now = generations(store);
        self.indexes
            .retain(|ix| keep.contains(&ix.model.as_str()) && ix.generation == now);
        if let Some(i) = self.indexes.iter().position(|ix| ix.model == model) {
            return Ok(i);
        }
        let t0 = std::time::Instant::now();
        let ix = SemanticIndex::load(store, db, model)?;
        tracing::debug!(
            model,
            rows = ix.chunk_ids.len(),
            now = ?ix.generation,
            ms = t0.elapsed().as_millis() as u64,
            "vectors loaded"
        );
        self.indexes.push(ix);
        Ok(self.indexes.len() - 1)
    }

    /// The fast tier to blend into a full-tier answer: configured, its
    /// weights present, and its vectors covering the index as completely
    /// as a model that answers on its own would. Only the default full
    /// model (MiniLM) is blended, the pair [`FAST_TIER_SHARE`] was measured
    /// on; another full model (a local one, an HTTP provider) answers alone.
    fn blend_partner(
        &self,
        store: &Store,
        db: &std::path::Path,
        choice: &Choice,
    ) -> Result<Option<TierSpec>> {
        if choice.spec.tier != Tier::Full || choice.spec.model_id != embed::MINILM.id {
            return Ok(None);
        }
        let Some(fast) = embed::configured_tiers(&self.settings)
            .into_iter()
            .find(|s| s.tier == Tier::Fast && s.model_id != choice.spec.model_id)
            .filter(embed::is_ready)
        else {
            return Ok(None);
        };
        let (embedded, total) = store
            .embedding_coverage(&fast.model_id)
            .map_err(|e| store::explain(e, db))?;
        Ok(covers_index(store, db, &fast.model_id, embedded, total)?.then_some(fast))
    }

    /// The `limit` best chunks for the query vector `qv` of the answering
    /// model, blended with the fast tier's similarities when `partner`
    /// ([`Self::blend_partner`]) names one: the candidates of both models,
    /// each scored `(full + FAST_TIER_SHARE · fast) / (1 + FAST_TIER_SHARE)`
    /// with both models' exact cosines (a chunk without a fast vector gets
    /// the lowest fast score among the fast candidates). Reads the matrices
    /// [`Self::ensure_indexes`] loaded. Answers the blended model too.
    fn ranked(
        &mut self,
        store: &Store,
        db: &std::path::Path,
        choice: &Choice,
        partner: Option<TierSpec>,
        qv: &[f32],
        req: &SemanticRequest,
    ) -> Result<Ranked> {
        let model = choice.spec.model_id.clone();
        let query = req.query.as_str();
        // The fast model's query vector; a failure answers unblended.
        let fast = partner.and_then(|spec| match self.query_vector(&spec, query) {
            Ok(Some(v)) => Some((spec.model_id, v)),
            Ok(None) => None,
            Err(e) => {
                tracing::debug!("no blending: the fast model failed: {e:#}");
                None
            }
        });
        let at = |me: &Self, m: &str| me.indexes.iter().position(|ix| ix.model == m);
        let alone = |me: &mut Self| -> Result<Ranked> {
            let i = match at(me, &model) {
                Some(i) => i,
                None => me.ensure_index(store, db, &model, &[model.as_str()])?,
            };
            let top = me.indexes[i].top_k(qv, &req.filter, req.limit, req.threshold, &|_, _| false);
            Ok((top, None))
        };
        let Some((fast_model, fv)) = fast else {
            return alone(self);
        };
        let (Some(full_at), Some(fast_at)) = (at(self, &model), at(self, &fast_model)) else {
            return alone(self);
        };
        let top = blend(
            (&self.indexes[full_at], qv),
            (&self.indexes[fast_at], &fv),
            &req.filter,
            req.limit,
            req.threshold,
        );
        Ok((top, Some(fast_model)))
    }

    /// Loads the matrices [`Self::ranked`] reads: the answering model's
    /// and, when it blends, the partner's. (A write between the two loads
    /// makes the first stale and the second drops it: `ranked` then finds
    /// it missing and answers from a fresh load of the answering model's.)
    fn ensure_indexes(
        &mut self,
        store: &Store,
        db: &std::path::Path,
        choice: &Choice,
        partner: Option<&TierSpec>,
    ) -> Result<()> {
        let keep: Vec<&str> = std::iter::once(&choice.spec)
            .chain(partner)
            .map(|s| s.model_id.as_str())
            .collect();
        for model in &keep {
            self.ensure_index(store, db, model, &keep)?;
        }
        Ok(())
    }

    /// Starts loading the query models of `specs` this process has not
    /// loaded on a thread of its own, so that reading the vectors meanwhile
    /// is not followed by the load ([`Self::query_model`] then waits for
    /// it, or loads again and reports the error when it failed). `None`
    /// when nothing is left to load or no thread could start.
    fn load_ahead(&self, specs: Vec<TierSpec>) -> Option<std::thread::JoinHandle<()>> {
        let cold: Vec<TierSpec> = specs
            .into_iter()
            .filter(|spec| !self.models.no_load_ahead(&self.settings, spec))
            .collect();
        if cold.is_empty() {
            return None;
        }
        let (models, settings) = (self.models.clone(), self.settings.clone());
        std::thread::Builder::new()
            .name("repo-search-model-load".into())
            .spawn(move || {
                for spec in cold {
                    if let Err(e) = models.open_for_queries(&settings, &spec) {
                        tracing::debug!(model = spec.model_id, "loading ahead failed: {e:#}");
                    }
                }
            })
            .ok()
    }

    fn query_model(&mut self, spec: &TierSpec) -> Result<std::sync::Arc<dyn Embedder>> {
        self.models.open_for_queries(&self.settings, spec)
    }

    /// `query`'s vector from `spec`'s model (none when the model returns
    /// none), kept for the next call with the same query.
    fn query_vector(&mut self, spec: &TierSpec, query: &str) -> Result<Option<Vec<f32>>> {
        if let Some((_, _, v)) = self
            .query_vectors
            .iter()
            .find(|(m, q, _)| *m == spec.model_id && q == query)
        {
            return Ok(Some(v.clone()));
        }
        let mut v = self.query_model(spec)?.embed(&[query])?;
        if v.is_empty() {
            return Ok(None);
        }
        let v = v.swap_remove(0);
        if self.query_vectors.len() >= QUERY_VECTORS_KEPT {
            self.query_vectors.remove(0);
        }
        self.query_vectors
            .push((spec.model_id.clone(), query.to_string(), v.clone()));
        Ok(Some(v))
    }

    /// The fast tier's query model (loaded once per process), for matching
    /// a question against hybrid's candidates token by token
    /// (`search::token_match`); `None` when no fast tier is configured and
    /// ready, or it fails to load (logged).
    pub fn fast_query_model(&mut self) -> Option<std::sync::Arc<dyn Embedder>> {
        let spec = embed::configured_tiers(&self.settings)
            .into_iter()
            .find(|s| s.tier == Tier::Fast)
            .filter(embed::is_ready)?;
        match self.query_model(&spec) {
            Ok(m) => Some(m),
            Err(e) => {
                tracing::debug!("no fast query model: {e:#}");
                None
            }
        }
    }

    /// Each of `paths`' mean similarity to `query` over its chunks
    /// ([`SemanticIndex::file_means`]), by the model that answered the last
    /// [`Self::search`] for this same query; empty when none did.
    pub fn file_means(&self, query: &str, paths: &[&str]) -> HashMap<String, f64> {
        let Some(model) = self.answered_by.as_deref() else {
            return HashMap::new();
        };
        let vector = self
            .query_vectors
            .iter()
            .find(|(m, q, _)| m == model && q == query);
        match (vector, self.indexes.iter().find(|ix| ix.model == model)) {
            (Some((_, _, v)), Some(ix)) => ix.file_means(v, paths),
            _ => HashMap::new(),
        }
    }

    /// Natural-language search. Provider problems become `available: false`.
    pub fn search(
        &mut self,
        store: &Store,
        root: &std::path::Path,
        req: &SemanticRequest,
    ) -> Result<SemanticResult> {
        if req.query.trim().is_empty() {
            return Err(UserError::with_code(ErrorCode::InvalidQuery, "empty query")
                .hint("describe what the code does, e.g. `retry failed payments`")
                .into());
        }
        if req.query.len() > MAX_QUERY_BYTES {
            return Err(UserError::new(format!(
                "the query is longer than {MAX_QUERY_BYTES} bytes"
            ))
            .hint("shorten it; for code, use similar_code")
            .into());
        }
        self.answered_by = None;
        let db = store::db_path(root);
        let choice = match choose_model(store, &db, &self.settings)? {
            Ok(c) => c,
            Err(unavailable) => return Ok(unavailable),
        };
        let partner = match self.blend_partner(store, &db, &choice) {
            Ok(p) => p,
            Err(e) => {
                tracing::debug!("no blending: {e:#}");
                None
            }
        };
        // Cold, the query models and the vector matrices load side by
        // side: reading potion's vocabulary and the matrix of a 5,000-chunk
        // index take about 10 ms each, MiniLM far longer.
        let loading = self.load_ahead(
            std::iter::once(&choice.spec)
                .chain(&partner)
                .cloned()
                .collect(),
        );
        let matrices = self.ensure_indexes(store, &db, &choice, partner.as_ref());
        if let Some(loading) = loading
            && loading.join().is_err()
        {
            tracing::debug!("loading the query models ahead panicked");
        }
        matrices?;
        let qv = match self.query_vector(&choice.spec, req.query.as_str()) {
            Ok(Some(v)) => v,
            Ok(None) => {
                return Ok(SemanticResult::unavailable(
                    "the model returned no vector",
                    "check the embed settings",
                ));
            }
            Err(e) => return Ok(with_choice(SemanticResult::from_error(&e), &choice)),
        };
        let (top, blended_with) = self.ranked(store, &db, &choice, partner, &qv, req)?;
        self.answered_by = Some(choice.spec.model_id.clone());
        let terms = crate::text::query_terms(&req.query);
        let hits = render_hits(store, root, &top, &terms, req.snippets)?;
        let mut out = found(&choice, hits);
        out.info.blended_with = blended_with;
        Ok(out)
    }

    /// Code similar to a piece of code or to an indexed location.
    pub fn similar(
        &mut self,
        store: &Store,
        root: &std::path::Path,
        req: &SimilarRequest,
    ) -> Result<SemanticResult> {
        let db = store::db_path(root);
        let choice = match choose_model(store, &db, &self.settings)? {
            Ok(c) => c,
            Err(unavailable) => return Ok(unavailable),
        };
        let model = choice.spec.model_id.clone();
        // The file a location is in: its other chunks come after the other
        // files' (monolog's `similar StreamHandler.php:130` had 9 of 10
        // hits in StreamHandler.php, its licence header among them).
        let origin_file = match &req.target {
            SimilarTo::Location { path, .. } => {
                Some(crate::paths::resolve_in_root(root, path)?.rel)
            }
            SimilarTo::Code(_) => None,
        };
        let (qv, origin): (Vec<f32>, Option<i64>) = match &req.target {
            SimilarTo::Code(code) => {
                if code.trim().is_empty() {
                    return Err(UserError::with_code(ErrorCode::InvalidQuery, "empty code")
                        .hint("pass a snippet, or path + line of an indexed file")
                        .into());
                }
                if code.len() > MAX_QUERY_BYTES {
                    return Err(UserError::new(format!(
                        "the code is longer than {MAX_QUERY_BYTES} bytes"
                    ))
                    .hint("pass one function, or path + line")
                    .into());
                }
                match self
                    .query_model(&choice.spec)
                    .and_then(|m| m.embed(&[code.as_str()]))
                {
                    Ok(mut v) if !v.is_empty() => (v.swap_remove(0), None),
                    Ok(_) => {
                        return Ok(SemanticResult::unavailable(
                            "the model returned no vector",
                            "check the embed settings",
                        ));
                    }
                    Err(e) => return Ok(with_choice(SemanticResult::from_error(&e), &choice)),
                }
            }
            SimilarTo::Location { line, .. } => {
                // Resolved above (`origin_file`), once for both uses.
                let rel = origin_file.as_deref().unwrap_or_default();
                let chunks = store
                    .chunks_at(rel, *line)
                    .map_err(|e| store::explain(e, &db))?;
                let Some(c) = chunks.into_iter().next() else {
                    return Err(UserError::with_code(ErrorCode::NotFound, format!(
                        "no indexed chunk of `{rel}` holds line {line}"
                    ))
                    .hint("check the line number; run `repo-search index` if the file is new")
                    .agent("check the line number (a line inside a function or class); a file saved just now is indexed within seconds")
                    .into());
                };
                // The stored vector when there is one; else embed the chunk
                // now (as the file holds it now, when it changed since).
                match store
                    .vector(&model, c.key)
                    .map_err(|e| store::explain(e, &db))?
                {
                    Some(v) => (v, Some(c.chunk_id)),
                    None => {
                        let text = crate::source::Sources::new(root)
                            .shown(&c.path, &c.span, c.start_line, c.end_line)
                            .ok_or_else(|| {
                                UserError::with_code(
                                    ErrorCode::NotFound,
                                    format!(
                                        "`{rel}` changed since it was indexed: line {line} is gone"
                                    ),
                                )
                                .hint("run `repo-search index`, then try again")
                                .agent(
                                    "the file changed since it was indexed; retry in a few seconds",
                                )
                            })?;
                        let input = embed::chunk_input(
                            &c.path,
                            c.symbol.as_deref(),
                            c.kind.as_deref(),
                            &text,
                            c.span.start_byte,
                        );
                        match self
                            .query_model(&choice.spec)
                            .and_then(|m| m.embed(&[input.as_str()]))
                        {
                            Ok(mut v) if !v.is_empty() => (v.swap_remove(0), Some(c.chunk_id)),
                            Ok(_) => {
                                return Ok(SemanticResult::unavailable(
                                    "the model returned no vector",
                                    "check the embed settings",
                                ));
                            }
                            Err(e) => {
                                return Ok(with_choice(SemanticResult::from_error(&e), &choice));
                            }
                        }
                    }
                }
            }
        };
        // The matrices a search blends stay loaded beside this one.
        let loaded: Vec<String> = self.indexes.iter().map(|ix| ix.model.clone()).collect();
        let keep: Vec<&str> = loaded
            .iter()
            .map(String::as_str)
            .chain([model.as_str()])
            .collect();
        let at = self.ensure_index(store, &db, &model, &keep)?;
        let index = &self.indexes[at];
        let exclude = req.exclude_path.as_deref();
        let skip = |id: i64, path: &str| Some(id) == origin || exclude.is_some_and(|x| x == path);
        let top = match origin_file.as_deref() {
            // A snippet: the source's code before a build's copies of it
            // (react-native-svg's `convertInt32Color` had answered with
            // its `lib/module/` copy), which fill the page only after it.
            None => {
                let shipped = |path: &str| crate::search::is_shipped_build(path);
                first_then(
                    index,
                    &qv,
                    req,
                    &|id, path| skip(id, path) || shipped(path),
                    &|id, path| skip(id, path) || !shipped(path),
                )
            }
            Some(own) => {
                // A build's copies of the code asked about are no other
                // code like it (axios's `similar_code lib/adapters/xhr.js:20`
                // led with three bundles' `dispatchXhrRequest`), unless the
                // location is in the build itself.
                let from_build = crate::search::is_shipped_build(own);
                first_then(
                    index,
                    &qv,
                    req,
                    &|id, path| {
                        skip(id, path)
                            || path == own
                            || (!from_build && crate::search::is_shipped_build(path))
                    },
                    &|id, path| skip(id, path) || path != own,
                )
            }
        };
        let hits = render_hits(store, root, &top, &[], Snippets::Read(req.snippet_lines))?;
        Ok(found(&choice, hits))
    }
}

/// `similar`'s page: the best chunks `first` does not skip, then, while
/// the page has room, the best that `then` does not skip.
fn first_then(
    index: &SemanticIndex,
    qv: &[f32],
    req: &SimilarRequest,
    first: &(dyn Fn(i64, &str) -> bool + Sync),
    then: &(dyn Fn(i64, &str) -> bool + Sync),
) -> Vec<(i64, f32)> {
    let mut top = index.top_k(qv, &req.filter, req.limit, req.threshold, first);
    if top.len() < req.limit {
        top.extend(index.top_k(qv, &req.filter, req.limit - top.len(), req.threshold, then));
    }
    top
}

/// The best (chunk id, score) pairs, and the model blended in, if any.
type Ranked = (Vec<(i64, f32)>, Option<String>);

/// The `k` best chunks by the blend of two models' similarities (see
/// [`SemanticSearcher::search`]): the candidates of each, scored
/// `(full + FAST_TIER_SHARE · fast) / (1 + FAST_TIER_SHARE)` with exact
/// cosines; a chunk without a fast vector gets the lowest fast score among
/// the fast candidates, one without a full vector is left out. `threshold`
/// applies to the blended score.
fn blend(
    (full, qv): (&SemanticIndex, &[f32]),
    (fast, fv): (&SemanticIndex, &[f32]),
    filter: &ChunkFilter,
    k: usize,
    threshold: Option<f32>,
) -> Vec<(i64, f32)> {
    let from_full = full.top_k(qv, filter, k, None, &|_, _| false);
    let from_fast = fast.top_k(fv, filter, k, None, &|_, _| false);
    let floor = from_fast
        .iter()
        .map(|h| h.1)
        .reduce(f32::min)
        .unwrap_or(0.0);
    let mut ids: Vec<i64> = from_full.iter().chain(&from_fast).map(|h| h.0).collect();
    ids.sort_unstable();
    ids.dedup();
    let min = threshold.unwrap_or(f32::NEG_INFINITY);
    let mut top: Vec<(i64, f32)> = ids
        .into_iter()
        .filter_map(|id| {
            let a = full.score_of(id, qv)?;
            let b = fast.score_of(id, fv).unwrap_or(floor);
            Some((id, (a + FAST_TIER_SHARE * b) / (1.0 + FAST_TIER_SHARE)))
        })
        .filter(|h| h.1 >= min)
        .collect();
    top.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    top.truncate(k);
    top
}

fn with_choice(mut r: SemanticResult, c: &Choice) -> SemanticResult {
    r.model = Some(c.spec.model_id.clone());
    r.tier = Some(c.spec.tier);
    r.embedded = c.embedded;
    r.total = c.total;
    r
}

fn found(c: &Choice, hits: Vec<ChunkHit>) -> SemanticResult {
    let (hint, agent_hint) = match &c.upgrade {
        Some(u) => (Some(u.hint()), Some(u.agent_hint())),
        None if c.embedded < c.total => (
            Some("embeddings are still being computed: run `repo-search index` (or let the daemon finish); results cover the embedded chunks".to_string()),
            Some("embeddings are still being computed; results cover the embedded chunks".to_string()),
        ),
        None => (None, None),
    };
    SemanticResult {
        info: SemanticInfo {
            available: true,
            reason: None,
            hint,
            agent_hint,
            model: Some(c.spec.model_id.clone()),
            tier: Some(c.spec.tier),
            partial: c.embedded < c.total,
            embedded: c.embedded,
            total: c.total,
            upgrade: c.upgrade.clone(),
            blended_with: None,
        },
        hits,
    }
}

/// The hits of `top` (chunk ids and scores, best first), their snippets
/// read from the files under `root` (each once): a chunk whose file changed
/// since it was indexed shows the lines at its range now, one whose file is
/// gone is left out.
fn render_hits(
    store: &Store,
    root: &std::path::Path,
    top: &[(i64, f32)],
    terms: &[String],
    snippets: Snippets,
) -> Result<Vec<ChunkHit>> {
    let ids: Vec<i64> = top.iter().map(|&(id, _)| id).collect();
    let mut rows = store
        .chunk_rows(&ids)
        .map_err(|e| store::explain(e, &store::db_path(root)))?;
    let mut sources = crate::source::Sources::new(root);
    let mut hits = Vec::with_capacity(top.len());
    for &(id, score) in top {
        let Some(c) = rows.remove(&id) else {
            continue;
        };
        let ((snippet_line, snippet), span) = match snippets {
            Snippets::Read(lines) => {
                let Some(s) = chunk_snippet(
                    &mut sources,
                    &c.path,
                    &c.span,
                    (c.start_line, c.end_line),
                    terms,
                    lines,
                ) else {
                    continue;
                };
                (s, None)
            }
            Snippets::Later => ((c.start_line, String::new()), Some(c.span)),
        };
        hits.push(ChunkHit {
            path: c.path,
            start_line: c.start_line,
            end_line: c.end_line,
            symbol: c.symbol,
            kind: c.kind,
            lang: c.lang,
            score: score as f64,
            snippet_line,
            snippet,
            span,
        });
    }
    Ok(hits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::Scope;

    #[test]
    fn blending_the_fast_tier_reorders_close_full_tier_scores() {
        let unit = |deg: f32| vec![deg.to_radians().cos(), deg.to_radians().sin()];
        // The full model finds 1 a little closer than 2; the fast model
        // finds 2 much closer than 1, and has no vector for 3.
        let full = SemanticIndex::from_rows(
            "full",
            2,
            vec![
                (3, "src/c.rs".into(), unit(30.0)),
                (1, "src/a.rs".into(), unit(10.0)),
                (2, "src/b.rs".into(), unit(12.0)),
            ],
        );
        let fast = SemanticIndex::from_rows(
            "fast",
            2,
            vec![
                (1, "src/a.rs".into(), unit(60.0)),
                (2, "src/b.rs".into(), unit(5.0)),
            ],
        );
        let q = unit(0.0);
        let all = ChunkFilter::default();
        let top = blend((&full, &q), (&fast, &q), &all, 3, None);
        assert_eq!(top.iter().map(|t| t.0).collect::<Vec<_>>(), [2, 1, 3]);
        let mean = |a: f32, b: f32| (a + FAST_TIER_SHARE * b) / (1.0 + FAST_TIER_SHARE);
        let cos = |d: f32| d.to_radians().cos();
        let want = [
            mean(cos(12.0), cos(5.0)),
            mean(cos(10.0), cos(60.0)),
            // No fast vector: the lowest fast candidate's score.
            mean(cos(30.0), cos(60.0)),
        ];
        for (got, want) in top.iter().zip(want) {
            assert!((got.1 - want).abs() < 0.01, "{top:?}");
        }
        // The threshold applies to the blended score.
        let top = blend((&full, &q), (&fast, &q), &all, 3, Some(want[1] + 0.001));
        assert_eq!(top.iter().map(|t| t.0).collect::<Vec<_>>(), [2]);
        // A chunk only the fast model has is left out.
        assert_eq!(fast.score_of(3, &q), None);
        let top = blend((&fast, &q), (&full, &q), &all, 3, None);
        assert_eq!(top.iter().map(|t| t.0).collect::<Vec<_>>(), [2, 1]);
    }

    #[test]
    fn top_k_ranks_filters_and_thresholds() {
        let rows = vec![
            (1, "src/a.rs".to_string(), vec![1.0, 0.0]),
            (2, "src/b.rs".to_string(), vec![0.8, 0.6]),
            (3, "tests/c.rs".to_string(), vec![0.9, 0.435_889_9]),
            (4, "src/d.rs".to_string(), vec![0.0, 1.0]),
        ];
        let ix = SemanticIndex::from_rows("m", 2, rows);
        let all = ChunkFilter::default();
        let top = ix.top_k(&[1.0, 0.0], &all, 2, None, &|_, _| false);
        assert_eq!(top.iter().map(|t| t.0).collect::<Vec<_>>(), [1, 3]);
        let no_tests = ChunkFilter::new(&["!tests/**".into()], None, Scope::All).expect("filter");
        let top = ix.top_k(&[1.0, 0.0], &no_tests, 2, None, &|_, _| false);
        assert_eq!(top.iter().map(|t| t.0).collect::<Vec<_>>(), [1, 2]);
        let top = ix.top_k(&[1.0, 0.0], &all, 10, Some(0.5), &|id, _| id == 1);
        assert_eq!(top.iter().map(|t| t.0).collect::<Vec<_>>(), [3, 2]);
        assert!(
            ix.top_k(&[1.0, 0.0, 0.0], &all, 3, None, &|_, _| false)
                .is_empty(),
            "wrong dimension"
        );
    }

    #[test]
    fn a_files_mean_similarity_covers_all_its_chunks() {
        // hub.rs has the closest chunk and three far ones; start.rs is
        // close throughout. Rows of one file need not be adjacent.
        let rows = vec![
            (1, "src/hub.rs".to_string(), vec![1.0, 0.0]),
            (2, "src/start.rs".to_string(), vec![0.8, 0.6]),
            (3, "src/hub.rs".to_string(), vec![0.0, 1.0]),
            (4, "src/start.rs".to_string(), vec![0.6, 0.8]),
            (5, "src/hub.rs".to_string(), vec![0.0, 1.0]),
            (6, "src/hub.rs".to_string(), vec![0.0, 1.0]),
        ];
        let ix = SemanticIndex::from_rows("m", 2, rows);
        let means = ix.file_means(&[1.0, 0.0], &["src/hub.rs", "src/start.rs", "src/gone.rs"]);
        assert_eq!(means.len(), 2, "a path without vectors is left out");
        assert!((means["src/hub.rs"] - 0.25).abs() < 0.01, "{means:?}");
        assert!((means["src/start.rs"] - 0.7).abs() < 0.01, "{means:?}");
        assert!(
            ix.file_means(&[1.0], &["src/hub.rs"]).is_empty(),
            "wrong dimension"
        );
    }

    #[test]
    fn the_split_scan_equals_the_exact_ranking() {
        // Enough rows for the scan to be split over threads. Rows `[x, 0]`
        // quantize exactly (code 127, up to the last bit of the scale), so
        // this checks the split and merge alone; the best rows are spread
        // over every part.
        let n = PARALLEL_ROWS + 1001;
        let rows: Vec<(i64, String, Vec<f32>)> = (0..n)
            .map(|i| {
                let x = ((i * 7919) % n) as f32 / n as f32;
                (i as i64 + 1, format!("src/f{}.rs", i % 97), vec![x, 0.0])
            })
            .collect();
        let ix = SemanticIndex::from_rows("m", 2, rows.clone());
        let q = [0.6f32, 0.8];
        let mut exact: Vec<(i64, f32)> = rows.iter().map(|(id, _, v)| (*id, dot(&q, v))).collect();
        exact.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let all = ChunkFilter::default();
        let same = |top: &[(i64, f32)], want: &[(i64, f32)]| {
            assert_eq!(top.len(), want.len());
            for (t, w) in top.iter().zip(want) {
                assert!(
                    t.0 == w.0 && (t.1 - w.1).abs() < 1e-6,
                    "{top:?} vs {want:?}"
                );
            }
        };
        let top = ix.top_k(&q, &all, 25, None, &|_, _| false);
        same(&top, &exact[..25]);
        // A filter and a skip hold in every part of the split scan.
        let top = ix.top_k(&q, &all, 25, None, &|id, path| {
            id % 2 == 0 || path == "src/f3.rs"
        });
        let want: Vec<(i64, f32)> = exact
            .iter()
            .filter(|(id, _)| id % 2 == 1 && (id - 1) % 97 != 3)
            .take(25)
            .copied()
            .collect();
        same(&top, &want);
    }

    #[test]
    fn a_tier_complete_once_keeps_answering_through_an_edit() {
        // An edit's few chunks missing: still the better tier.
        assert!(nearly_complete(239, 240, true));
        assert!(nearly_complete(3, 5, true));
        // Never complete (being computed for the first time): not yet.
        assert!(!nearly_complete(239, 240, false));
        // A large backlog (a branch switch), or nothing at all: not either.
        assert!(!nearly_complete(
            10_000,
            10_000 + NEARLY_COMPLETE_MISSING + 1,
            true
        ));
        assert!(!nearly_complete(0, 5, true));
    }

    #[test]
    fn dot_matches_naive() {
        let a: Vec<f32> = (0..19).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..19).map(|i| 1.0 - i as f32 * 0.1).collect();
        let naive: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - naive).abs() < 1e-4);
    }
}
