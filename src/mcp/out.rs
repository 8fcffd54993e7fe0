//! The tools' output shapes (what `structuredContent` holds; their JSON
//! field names are what clients read), and what every answer shares: the
//! size budget and fitting a list into it, the `index` block saying how
//! fresh an index-backed answer is.
//!
//! Every result is bounded: counts have defaults and hard limits (declared
//! once in [`params`](super::params)), long lines are cut, and a result stays
//! under [`BUDGET_CHARS`] characters; when more exists it says
//! `truncated: true`, how many there are, and how to narrow or page.

use anyhow::Result;
use rmcp::schemars::{self, JsonSchema};
use serde::Serialize;
use serde_json::Value;

use crate::search::hybrid::HybridHit;
use crate::service::{Freshness, phase_name};

/// A result's serialized size stays under this many characters by default
/// (Claude Code inlines up to ~50,000; smaller answers leave the model room).
pub const BUDGET_CHARS: usize = 20_000;
/// Characters kept for a result's fixed fields when fitting its list.
pub const OVERHEAD_CHARS: usize = 1_500;
/// Longest line text shown by the search tools.
pub const LINE_CHARS: usize = 300;

// ---------------------------------------------------------------------------
// Output shapes. Optional fields are left out when empty, never `null`.

/// Whether the index-backed answer is complete and fresh.
#[derive(Debug, Serialize, JsonSchema)]
pub struct IndexInfo {
    /// An index run is writing right now (this server's or another process's).
    pub indexing: bool,
    /// How far the running index run is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<ProgressOut>,
    /// Incremented by every committed index batch.
    pub generation: u64,
    /// Anything that makes this answer partial or possibly stale.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ProgressOut {
    /// walking (listing files), indexing, or done.
    pub phase: String,
    pub done: u64,
    pub total: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SymbolOut {
    pub name: String,
    pub kind: String,
    /// Enclosing class, impl, module...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    pub path: String,
    /// Line of the name.
    pub line: u32,
    pub start_line: u32,
    pub end_line: u32,
    pub signature: String,
    pub lang: String,
    /// exact, case-insensitive, prefix or fuzzy.
    #[serde(rename = "match")]
    pub match_kind: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SymbolsOut {
    pub symbols: Vec<SymbolOut>,
    /// Matching definitions found (before limit and offset).
    pub total: u64,
    pub offset: u64,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    pub index: IndexInfo,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RefOut {
    pub path: String,
    pub line: u32,
    pub column: u32,
    /// call, type, ... or definition.
    pub kind: String,
    /// The enclosing definition, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// The source line, trimmed (read from disk now).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RefsOut {
    pub name: String,
    pub definitions: u64,
    pub references: u64,
    /// Definitions first, then references by path and line.
    pub hits: Vec<RefOut>,
    pub total: u64,
    pub offset: u64,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    pub index: IndexInfo,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DefOut {
    pub name: String,
    pub kind: String,
    pub start_line: u32,
    pub end_line: u32,
    /// 0 for top-level definitions, 1 inside one of them, ...
    pub depth: u32,
    pub signature: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DefsOut {
    pub path: String,
    /// In source order; nesting is given by `depth`.
    pub definitions: Vec<DefOut>,
    pub total: u64,
    pub offset: u64,
    pub truncated: bool,
    /// Why the indexer skipped this file, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    pub index: IndexInfo,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ChunkOut {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    /// Enclosing symbol path, e.g. `Config::parse`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub score: f64,
    /// Line number of the snippet's first line.
    pub snippet_line: u32,
    pub snippet: String,
    /// Which search arms found the hit and at what rank (hybrid), e.g. `symbol#1`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<String>,
    /// The other definitions of the hit's file, e.g. `function parse (10-24)` (with `context`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub file_symbols: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchOut {
    pub query: String,
    pub mode: String,
    pub hits: Vec<ChunkOut>,
    pub offset: u64,
    /// More hits exist beyond these.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// What the query was taken to be and which arms ran (hybrid modes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query_interpretation: Option<String>,
    /// The embedding model whose vectors the semantic arm searched, when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic_model: Option<String>,
    pub index: IndexInfo,
}

/// One entry of a bulk `search`: the query's answer, or why it has none.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum BulkEntry {
    Answer(SearchOut),
    Error(BulkError),
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct BulkError {
    pub query: String,
    /// Why this query was not answered (the others were).
    pub error: String,
    /// What to change in this query.
    pub hint: String,
}

/// The answer of `search` with `queries`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BulkSearchOut {
    /// One entry per query, in the order given.
    pub results: Vec<BulkEntry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

/// The answer of `search_semantic` and `similar_code`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SemanticOut {
    /// The query (search_semantic).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    /// What the hits are similar to (similar_code): `path:line` or `code (N lines)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similar_to: Option<String>,
    /// False when semantic search cannot answer now (no model, no vectors, no index yet): `reason` says why and `hint` how to fix it.
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The embedding model whose vectors were searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// fast or full.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tier: Option<String>,
    /// Not every chunk has a vector yet: hits come from `embedded` of `total` chunks.
    pub partial: bool,
    pub embedded: u64,
    pub total: u64,
    /// A better embedding model is configured but does not cover every chunk yet, so `model` (the fast tier) answered; `hint` says how to finish it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upgrade: Option<UpgradeOut>,
    /// Best first; `score` is the cosine similarity.
    pub hits: Vec<ChunkOut>,
    pub offset: u64,
    /// More hits exist beyond these.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    pub index: IndexInfo,
}

/// The better model of a semantic answer that used the fast tier.
#[derive(Debug, Serialize, JsonSchema)]
pub struct UpgradeOut {
    pub model: String,
    /// Chunks with its vectors, of `total`.
    pub embedded: u64,
    pub total: u64,
    /// Its weights are downloaded.
    pub ready: bool,
}

impl SemanticOut {
    pub fn unavailable(
        query: Option<String>,
        similar_to: Option<String>,
        reason: String,
        hint: String,
        index: IndexInfo,
    ) -> SemanticOut {
        SemanticOut {
            query,
            similar_to,
            available: false,
            reason: Some(reason),
            model: None,
            tier: None,
            partial: false,
            embedded: 0,
            total: 0,
            upgrade: None,
            hits: Vec::new(),
            offset: 0,
            truncated: false,
            hint: Some(hint),
            index,
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct LineOut {
    pub line: u64,
    pub text: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct KeywordMatchOut {
    pub path: String,
    pub line: u64,
    pub text: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<LineOut>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<LineOut>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct KeywordOut {
    pub matches: Vec<KeywordMatchOut>,
    /// Matching lines found; a lower bound when `truncated`.
    pub total: u64,
    pub files_matched: u64,
    pub files_searched: u64,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ReadOut {
    pub path: String,
    pub total_lines: u64,
    pub start_line: u64,
    pub end_line: u64,
    /// The lines, each as `N<TAB>text`, joined by newlines.
    pub content: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_line: Option<u64>,
    /// Lines containing `match`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_count: Option<u64>,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SkipOut {
    pub reason: String,
    pub count: u64,
    pub examples: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct StatusOut {
    pub root: String,
    /// An index exists (it may still be partial while `indexing`).
    pub exists: bool,
    pub files: u64,
    pub symbols: u64,
    pub refs: u64,
    pub chunks: u64,
    pub skipped: u64,
    pub skipped_by_reason: Vec<SkipOut>,
    /// Unix seconds of the last completed index run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_indexed: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_indexed_ago_s: Option<i64>,
    pub generation: u64,
    pub indexing: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<ProgressOut>,
    /// Pid of another process writing the index, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub writer_pid: Option<u32>,
    /// Files changed on disk since they were indexed (not counted while indexing).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stale_files: Option<u64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stale_examples: Vec<String>,
    pub index_bytes: u64,
    /// Vectors per configured embedding model, best tier first: semantic search uses the best one that covers every chunk.
    pub embeddings: Vec<EmbeddingOut>,
    /// An embedding phase running now (this server, `repo-search index` or the daemon).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding: Option<EmbeddingRunOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct EmbeddingOut {
    /// fast or full.
    pub tier: String,
    pub model: String,
    /// The model's weights are downloaded (or it is an HTTP provider).
    pub ready: bool,
    /// Chunks with a vector from this model, of `total`.
    pub embedded: u64,
    pub total: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct EmbeddingRunOut {
    pub model: String,
    /// Chunks embedded in this run, of `total` it has to do.
    pub done: u64,
    pub total: u64,
    /// Chunks per second since the run started.
    pub rate: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eta_s: Option<u64>,
}

/// What a successful call returns: the structured result and a one-line
/// summary for clients that show text.
pub struct Answer {
    pub structured: Value,
    pub summary: String,
}

pub fn answer<T: Serialize>(out: &T, summary: String) -> Result<Answer> {
    Ok(Answer {
        structured: serde_json::to_value(out)?,
        summary,
    })
}

/// Keeps the longest prefix of `items` whose serialized size fits `budget`.
/// Returns how many items were dropped.
fn fit<T: Serialize>(items: &mut Vec<T>, budget: usize) -> usize {
    let mut used = 0;
    let mut keep = items.len();
    for (i, item) in items.iter().enumerate() {
        used += serde_json::to_string(item)
            .map(|s| s.len() + 1)
            .unwrap_or(0);
        if used > budget {
            keep = i;
            break;
        }
    }
    let dropped = items.len() - keep;
    items.truncate(keep);
    dropped
}

/// One page of a list: the items after `offset`, at most `limit` of them,
/// cut to the longest prefix that fits a size budget. Every paged tool
/// builds its list this way; what it says about the rest (`truncated`,
/// `hint`) is its own.
pub struct Page<T> {
    pub items: Vec<T>,
    /// Items exist past `offset + limit` (never set without a limit).
    pub more: bool,
    /// Items of the page left out to fit the budget.
    pub dropped: usize,
}

impl<T: Serialize> Page<T> {
    pub fn new(
        all: impl IntoIterator<Item = T>,
        offset: usize,
        limit: Option<usize>,
        budget: usize,
    ) -> Page<T> {
        let mut items: Vec<T> = all.into_iter().skip(offset).collect();
        let more = limit.is_some_and(|l| items.len() > l);
        if let Some(l) = limit {
            items.truncate(l);
        }
        let dropped = fit(&mut items, budget);
        Page {
            items,
            more,
            dropped,
        }
    }

    /// How many items the page shows.
    pub fn shown(&self) -> usize {
        self.items.len()
    }

    /// More items exist than the page shows (past the limit or the budget).
    pub fn cut(&self) -> bool {
        self.more || self.dropped > 0
    }
}

pub fn index_info(fresh: &Freshness, generation: Option<u64>) -> IndexInfo {
    let mut notes: Vec<String> = Vec::new();
    if generation.is_none() {
        if fresh.indexing {
            notes.push("the index is being built: no index-backed results yet; retry in a few seconds, or use search_keyword now".into());
        } else {
            notes.push("there is no index yet and none could be built; see index_status".into());
        }
    } else if fresh.building {
        notes.push("the index is still being built: results cover only the files indexed so far; use search_keyword for complete results now".into());
    } else if fresh.indexing {
        notes.push("the index is being updated: files changed in the last seconds may not be reflected yet".into());
    }
    if let Some(err) = &fresh.last_error {
        notes.push(format!("the last index update failed: {err}"));
    }
    IndexInfo {
        indexing: fresh.indexing,
        progress: fresh
            .progress
            .filter(|_| fresh.indexing)
            .map(|p| ProgressOut {
                phase: phase_name(p.phase).into(),
                done: p.done,
                total: p.total,
            }),
        generation: generation.unwrap_or(0),
        note: (!notes.is_empty()).then(|| notes.join("; ")),
    }
}

/// A ranked hit as the tools show it; `sources` (`arm#rank`) only when
/// asked for (the semantic tools have one arm, and leave them out).
pub fn chunk_out(h: HybridHit, with_sources: bool) -> ChunkOut {
    let sources = if with_sources {
        h.sources
            .iter()
            .map(|s| format!("{}#{}", s.arm.name(), s.rank))
            .collect()
    } else {
        Vec::new()
    };
    ChunkOut {
        path: h.path,
        start_line: h.start_line,
        end_line: h.end_line,
        symbol: h.symbol,
        kind: h.kind,
        score: (h.score * 1000.0).round() / 1000.0,
        snippet_line: h.snippet_line,
        snippet: h.snippet,
        sources,
        file_symbols: h.file_symbols,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fit_keeps_a_prefix_within_budget() {
        let mut v: Vec<String> = (0..100).map(|i| format!("item number {i}")).collect();
        let dropped = fit(&mut v, 200);
        assert!(dropped > 0);
        assert!(serde_json::to_string(&v).expect("json").len() <= 200 + v.len());
        assert_eq!(v[0], "item number 0");
    }

    #[test]
    fn page_skips_limits_and_fits() {
        let p = Page::new(0..10, 3, Some(4), BUDGET_CHARS);
        assert_eq!((p.items, p.more, p.dropped), (vec![3, 4, 5, 6], true, 0));
        let p = Page::new(0..10, 6, Some(4), BUDGET_CHARS);
        assert_eq!((p.items, p.more, p.dropped), (vec![6, 7, 8, 9], false, 0));
        let p = Page::new(0..10, 12, None, BUDGET_CHARS);
        assert!(p.items.is_empty() && !p.cut());
        let long = vec!["x".repeat(100); 10];
        let p = Page::new(long, 0, Some(10), 250);
        assert_eq!((p.shown(), p.more, p.dropped, p.cut()), (2, false, 8, true));
    }
}
