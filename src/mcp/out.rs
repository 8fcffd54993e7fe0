//! The tools' output shapes (what `structuredContent` holds; their JSON
//! field names are what clients read), and what every answer shares: the
//! size budget and fitting a list into it, the `index` block saying how
//! fresh an index-backed answer is.
//!
//! Every result is bounded: counts have defaults and hard limits (declared
//! once in [`params`](super::params)), long lines are cut, and a result stays
//! under [`BUDGET_CHARS`] characters; when more exists it says
//! `truncated: true`, how many there are, and how to narrow or page.
//!
//! List answers are compact by default: what an agent acts on (where, what,
//! the best lines, `next_offset` when more exist, a `note` when the answer
//! is partial) and nothing else; `detail: true` gives the full shapes
//! (scores, ranks per arm, whole snippets, paging fields, the `index`
//! block). A default 10-hit `search` answer stays within 1,700 characters
//! (the bound is 2,000; the margin keeps the envelope and notes inside it)
//! ([`COMPACT_CHARS_PER_HIT`]).

use anyhow::Result;
use rmcp::schemars::{self, JsonSchema};
use serde::Serialize;
use serde_json::Value;

use crate::search::hybrid::{AlsoSpan, HybridHit};
use crate::search::{BEST_LINE_CHARS, arm_short_name, best_lines_ranked, bound_line};
use crate::service::{Freshness, phase_name};

/// A result's serialized size stays under this many characters by default
/// (Claude Code inlines up to ~50,000; smaller answers leave the model room).
pub const BUDGET_CHARS: usize = 20_000;
/// Characters kept for a result's fixed fields when fitting its list.
pub const OVERHEAD_CHARS: usize = 1_500;
/// Longest line text shown by the search tools.
pub const LINE_CHARS: usize = 300;
/// Characters a compact list answer may use per hit asked for (`limit`):
/// fitting shows fewer and shorter best lines until it fits.
pub const COMPACT_CHARS_PER_HIT: usize = 170;
/// The least a compact list answer may use, however few hits are asked
/// for: a 3-hit answer at 170 characters each cut its best lines to 50
/// characters and dropped the hits' other places.
pub const COMPACT_MIN_CHARS: usize = 850;

/// The characters a compact list answer of `limit` hits may use.
pub fn compact_target(limit: usize, budget: usize) -> usize {
    (COMPACT_CHARS_PER_HIT * limit)
        .max(COMPACT_MIN_CHARS)
        .min(budget)
}
/// Most best lines a compact hit shows.
pub const COMPACT_LINES: usize = 3;
/// Shortest a best line is cut to when fitting a compact answer.
const COMPACT_MIN_LINE_CHARS: usize = 50;
/// The top hits that keep their best line whatever the budget.
const COMPACT_KEEP_LINES_TOP: usize = 3;

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
    /// `name` with its container in the file's language's notation, as
    /// the CLI writes it (text only).
    #[serde(skip)]
    #[schemars(skip)]
    pub label: Option<String>,
    pub path: String,
    /// Line of the name (`detail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    pub start_line: u32,
    pub end_line: u32,
    pub signature: String,
    /// The file's language (`detail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// exact, case-insensitive, prefix or fuzzy (compact answers leave out `exact`).
    #[serde(rename = "match", skip_serializing_if = "Option::is_none")]
    pub match_kind: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SymbolsOut {
    pub symbols: Vec<SymbolOut>,
    /// Matching definitions found (before limit and offset).
    pub total: u64,
    #[serde(flatten)]
    pub paging: Paging,
}

/// How a list answer ends: compact (`next_offset` and a `note` only when
/// there is something to say) or, with `detail`, the full paging fields and
/// the `index` block.
#[derive(Debug, Default, Serialize, JsonSchema)]
pub struct Paging {
    /// More results exist: call again with `offset` set to this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
    /// The offset of this page (`detail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// More results exist than shown (`detail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub truncated: Option<bool>,
    /// What to do next: page, narrow, or other tools to try.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Why the answer may be partial or stale (the index is being built or updated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// How fresh the index is (`detail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index: Option<IndexInfo>,
    /// Secret values this answer shows as `[redacted: <kind>]` (left out when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
}

impl Paging {
    /// The end of a list answer: `next` is the offset of the next page when
    /// more exist; a compact answer keeps only that, the hint when there is
    /// nothing more to page (what else to try) and the index note.
    pub fn new(
        detail: bool,
        offset: usize,
        next: Option<usize>,
        hint: Option<String>,
        index: IndexInfo,
    ) -> Paging {
        if detail {
            return Paging {
                next_offset: None,
                offset: Some(offset as u64),
                truncated: Some(next.is_some()),
                hint,
                note: None,
                index: Some(index),
                redacted: None,
            };
        }
        Paging {
            next_offset: next.map(|n| n as u64),
            offset: None,
            truncated: None,
            hint: hint.filter(|_| next.is_none()),
            note: index.note,
            index: None,
            redacted: None,
        }
    }

    /// Says how many values the answer shows redacted.
    pub fn with_redacted(mut self, count: usize) -> Paging {
        self.redacted = redacted(count);
        self
    }
}

/// The hint of an empty page past the end of a list that has results:
/// `offset` skipped all `total` of them.
pub fn past_end_hint(offset: usize, shown: usize, total: usize) -> Option<String> {
    crate::search::past_the_end(offset, shown, total).then(|| {
        format!("offset {offset} is past the last of the {total} results: call again with a smaller offset")
    })
}

/// A `redacted` field: the count, left out when 0.
pub fn redacted(count: usize) -> Option<u64> {
    (count > 0).then_some(count as u64)
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RefOut {
    pub path: String,
    pub line: u32,
    /// 1-based column of the name (`detail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    /// call, type, ... or definition.
    pub kind: String,
    /// `name_only` for a same-named use nothing resolves to the queried
    /// definition; left out for resolved uses and definitions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<String>,
    /// The enclosing definition, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enclosing: Option<String>,
    /// What the name is reached through (`self`, `session`) (`detail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qualifier: Option<String>,
    /// The source line, trimmed (read from disk now).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct RefsOut {
    pub name: String,
    pub definitions: u64,
    /// Uses resolved to the definitions.
    pub references: u64,
    /// Same-named uses nothing resolves (listed after the resolved ones).
    pub name_only: u64,
    /// Definitions first, then resolved references, then name-only ones,
    /// each by path and line.
    pub hits: Vec<RefOut>,
    pub total: u64,
    #[serde(flatten)]
    pub paging: Paging,
}

/// One call site of `callers` / `callees`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EdgeOut {
    /// `path:line` of the call site.
    pub at: String,
    /// The calling symbol.
    pub from: String,
    /// The called symbol.
    pub to: String,
    /// `resolved`; `via_base` for a call of the method an override
    /// replaces (`to` names it); `name_only` when only the name matches.
    pub resolution: String,
    /// 1 = direct; 2 = a caller's caller (or a callee's callee), …
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Where the callee is defined (`callees`, when known).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub defined_at: Option<String>,
    /// The receiver at the call (`detail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qualifier: Option<String>,
    /// The call site's source line, trimmed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CallGraphOut {
    pub name: String,
    /// `callers` or `callees`.
    pub direction: String,
    /// The definitions the name stands for (`symbol (kind) path:line`).
    pub targets: Vec<String>,
    /// By depth, resolved before name-only, then path and line.
    pub edges: Vec<EdgeOut>,
    pub total: u64,
    pub resolved: u64,
    /// Calls of the method an override replaces (`via_base` edges).
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub via_base: u64,
    pub name_only: u64,
    #[serde(flatten)]
    pub paging: Paging,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DefOut {
    pub name: String,
    pub kind: String,
    /// The type or table it is written on, when the nesting does not say
    /// it (a Go method's receiver, a Lua function's table).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// `name` with its container in the language's notation (text only).
    #[serde(skip)]
    #[schemars(skip)]
    pub label: Option<String>,
    pub start_line: u32,
    pub end_line: u32,
    /// 0 for top-level definitions (left out when 0 unless `detail`), 1 inside one of them, ...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    pub signature: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DefsOut {
    pub path: String,
    /// In source order; nesting is given by `depth`.
    pub definitions: Vec<DefOut>,
    pub total: u64,
    /// Why the indexer skipped this file, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    #[serde(flatten)]
    pub paging: Paging,
}

/// One import of the file (`imports`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct ImportOut {
    pub line: u32,
    /// The module as written (`django.db`, `./util`, `crate::store`).
    pub module: String,
    /// What is imported from it (`a`, `b as c`, `*`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// import, from, require, dynamic, export, use, mod, include, static.
    pub kind: String,
    /// The project file (or package directory) it names; left out when it
    /// is not in the project (standard library, third-party).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved: Option<String>,
    /// The files of a resolved package directory (Go, Java wildcards).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub files: Vec<String>,
}

/// A file that imports the asked one (`imports`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct ImporterOut {
    pub path: String,
    pub line: u32,
    pub module: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ImportsOut {
    pub path: String,
    /// What the file imports, in source order (direction imports or both).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imports: Option<Vec<ImportOut>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_imports: Option<u64>,
    /// The project files that import it, by path (direction imported_by or both).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub imported_by: Option<Vec<ImporterOut>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_imported_by: Option<u64>,
    /// Why the indexer skipped this file, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Said when the index does not read imports in the file's language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    #[serde(flatten)]
    pub paging: Paging,
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
    /// How much recency raised the hit's file (`0.12`: score × 1.12), when recently changed files were preferred.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recency: Option<f64>,
    /// Where else the hit's file matched, best first, each `start-end name` (hybrid shows one hit per file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
}

/// A ranked hit as compact answers show it (the default).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HitOut {
    /// Where: `path:start_line-end_line`, e.g. `src/config.rs:10-24`.
    pub at: String,
    /// The kind and name of the enclosing definition, e.g. `method Config::parse`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// The 1 to 3 lines that best match the query, each `N: text` (N is the line number); left out when fitting the answer's size took them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<String>,
    /// The arms that found it, joined by `+`: sym (symbol names), kw (exact text), bm25 (full text), sem (embeddings), phr (two of the question's words side by side), syn (the question's words or their synonyms).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub arms: String,
    /// Where else the same file matched, best first, each `start-end name` (hybrid shows one hit per file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
}

/// A compact `search` answer (the default; `detail: true` gives [`SearchOut`]).
#[derive(Debug, Serialize, JsonSchema)]
pub struct CompactSearchOut {
    /// The query (in the answers of `queries` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
    pub hits: Vec<HitOut>,
    /// More hits exist: call again with `offset` set to this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
    /// What to try when nothing matched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Why the answer may be partial: the index is being built or updated, the semantic arm did not run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Secret values this answer shows as `[redacted: <kind>]` (left out when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
    /// The offset of this page (not shown: `next_offset` says where the next starts).
    #[serde(skip)]
    pub offset: u64,
}

/// A `search` answer for one query: compact, or in full with `detail`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum SearchReply {
    Compact(CompactSearchOut),
    Detail(SearchOut),
}

impl SearchReply {
    pub fn hit_count(&self) -> usize {
        match self {
            SearchReply::Compact(c) => c.hits.len(),
            SearchReply::Detail(d) => d.hits.len(),
        }
    }

    /// More hits exist than this answer shows.
    pub fn is_cut(&self) -> bool {
        match self {
            SearchReply::Compact(c) => c.next_offset.is_some(),
            SearchReply::Detail(d) => d.truncated,
        }
    }

    /// Drops the last hit (to fit a shared budget) and says how to see it.
    pub fn pop_hit(&mut self) {
        match self {
            SearchReply::Compact(c) => {
                c.hits.pop();
                c.next_offset = Some(c.offset + c.hits.len() as u64);
                c.hint = None;
            }
            SearchReply::Detail(d) => {
                d.hits.pop();
                d.truncated = true;
                d.hint = Some(format!(
                    "more hits exist: call again with offset: {}, or narrow with glob, lang or scope",
                    d.offset as usize + d.hits.len()
                ));
            }
        }
    }
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
    /// Secret values this answer shows as `[redacted: <kind>]` (left out when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
    pub index: IndexInfo,
}

/// One entry of a bulk `search`: the query's answer, or why it has none.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum BulkEntry {
    Answer(SearchReply),
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
    /// The fast-tier model whose similarities were blended into `model`'s (both cover the index); `score` is then their weighted mean.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub blended_with: Option<String>,
    /// Best first; `score` is the cosine similarity.
    pub hits: Vec<ChunkOut>,
    pub offset: u64,
    /// More hits exist beyond these.
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Secret values this answer shows as `[redacted: <kind>]` (left out when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
    pub index: IndexInfo,
}

/// A compact `search_semantic` / `similar_code` answer (the default when
/// semantic search can answer; `detail: true` gives [`SemanticOut`]).
#[derive(Debug, Serialize, JsonSchema)]
pub struct CompactSemanticOut {
    /// What the hits are similar to (similar_code): `path:line` or `code (N lines)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similar_to: Option<String>,
    /// The embedding model whose vectors were searched.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Best first.
    pub hits: Vec<HitOut>,
    /// More hits exist: call again with `offset` set to this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_offset: Option<u64>,
    /// What to try when nothing was found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Why the answer may be partial: vectors still being computed, a better model not complete yet, the index being updated.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Secret values this answer shows as `[redacted: <kind>]` (left out when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
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
            blended_with: None,
            hits: Vec::new(),
            offset: 0,
            truncated: false,
            hint: Some(hint),
            redacted: None,
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
    /// Matching lines in all searched files (also those not shown).
    pub total: u64,
    pub files_matched: u64,
    pub files_searched: u64,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Secret values this answer shows as `[redacted: <kind>]` (left out when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
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
    /// Secret values this answer shows as `[redacted: <kind>]` (left out when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
}

/// The answer of `context`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ContextOut {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// The line asked about.
    pub line: u32,
    pub total_lines: u64,
    /// The lines shown: `start_line..=end_line`.
    pub start_line: u64,
    pub end_line: u64,
    /// The lines, each as `N<TAB>text`, joined by newlines.
    pub content: String,
    /// The innermost definition holding `line` (left out outside any definition).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enclosing: Option<EnclosingOut>,
    /// The file's top-level definitions and members, in source order, each `kind name start-end` (members as `Container.name`).
    pub outline: Vec<String>,
    /// Top-level definitions and members in all (the outline shows at most 40, those nearest `line`).
    pub outline_total: u64,
    /// Who uses the enclosing definition and what it calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphOut>,
    /// Why the indexer skipped this file, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Something was cut to fit the answer (`hint` says what).
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Why the answer may be partial or stale (the index is being built or updated).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Secret values this answer shows as `[redacted: <kind>]` (left out when none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct EnclosingOut {
    /// Kind and qualified name, e.g. `method Session.send`.
    pub symbol: String,
    pub start_line: u32,
    pub end_line: u32,
    pub signature: String,
    /// The definitions around it, outermost first, e.g. `class Session 6-19`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outer: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct GraphOut {
    /// The definition summarised (qualified name).
    pub symbol: String,
    /// Uses of its name, by path and line (at most 10).
    pub callers: Vec<CallerOut>,
    pub callers_total: u64,
    /// Names called inside it, by first call (at most 15).
    pub callees: Vec<CalleeOut>,
    /// Distinct names called in all.
    pub callees_total: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CallerOut {
    /// `path:line` of the use.
    pub at: String,
    /// call, type, ...
    pub kind: String,
    /// The definition the use is in.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// resolved, or name_only (matched by name: may be another definition's).
    pub resolution: String,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CalleeOut {
    pub name: String,
    /// Its first call in the definition.
    pub line: u32,
    /// Calls of it in the definition (left out when 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calls: Option<u64>,
    /// `path:line` of its definition, when the index holds exactly one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub defined_at: Option<String>,
    /// Definitions of the name in the index.
    pub definitions: u64,
    /// resolved, or name_only (matched by name: may be another definition's).
    pub resolution: String,
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
    /// Rows deleted from the full-text index since its last merge (tombstones its queries check).
    pub fts_deleted: u64,
    /// Enough tombstones for a watching daemon to merge the full-text index while the project is quiet.
    pub fts_merge_due: bool,
    /// Vectors per configured embedding model, best tier first: semantic search uses the best one that covers every chunk.
    pub embeddings: Vec<EmbeddingOut>,
    /// An embedding phase running now (this server, `repo-search index` or the daemon).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub embedding: Option<EmbeddingRunOut>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_error: Option<String>,
    /// Whether the project's own `.repo_search/config.toml` may use the settings that send code or credentials off the machine: `no_config`, `not_needed`, `trusted`, `untrusted` or `changed` (edited since trusted). Read-only: only the user can trust a project, from a shell.
    pub config_trust: String,
    /// The settings of the project's config that were ignored because it is not trusted, and what the user can do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_warning: Option<String>,
    /// Bytes per table, when asked with `sizes: true`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sizes: Option<SizesOut>,
    /// This server and the daemon.
    pub server: ServerOut,
    /// Index jobs started with the `index` tool, oldest first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub jobs: Vec<JobOut>,
}

/// An index job (`index`; listed by `index_status`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct JobOut {
    pub id: u64,
    /// incremental or full.
    pub mode: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    /// queued, running, done or failed.
    pub state: String,
    /// Files done and to do.
    pub done: u64,
    pub total: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eta_s: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Files (re)indexed and removed, once done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct ServerOut {
    pub version: String,
    pub pid: u32,
    pub uptime_s: u64,
    /// Resident memory, bytes (Linux).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rss_bytes: Option<u64>,
    /// Searches of the last hour from every surface, and their mean and median time.
    pub searches_last_hour: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_mean_ms: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub search_p50_ms: Option<f64>,
    /// The daemon, when one runs: whether it watches this project, its
    /// watcher's events in the last minute and the paths queued.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub daemon: Option<DaemonOut>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct DaemonOut {
    pub pid: u32,
    pub version: String,
    pub uptime_s: u64,
    pub watching: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    pub events_last_minute: u64,
    pub queue: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SizesOut {
    /// Every page of the database file.
    pub db_bytes: u64,
    /// Bytes of the indexed files.
    pub source_bytes: u64,
    /// Largest first; `(free pages)` is what a VACUUM would return.
    pub tables: Vec<TableSizeOut>,
}

/// `config`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ConfigOut {
    pub root: String,
    pub settings: Vec<SettingOut>,
    /// Whether the project's own config may set what leaves the machine:
    /// no_config, not_needed, trusted, untrusted or changed.
    pub config_trust: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_warning: Option<String>,
    /// Why the project's config file is not used (the defaults are).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_error: Option<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct SettingOut {
    pub key: String,
    pub value: String,
    /// default, a file, or an environment variable.
    pub source: String,
}

/// `stats`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct StatsOut {
    /// The window asked for (`since`), if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Operations in the window.
    pub records: usize,
    /// The oldest and newest of them, seconds ago.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_ago_s: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_ago_s: Option<i64>,
    pub ops: Vec<OpStatsOut>,
    /// Vectors per configured model.
    pub embeddings: Vec<EmbeddingOut>,
    /// Bytes per table; absent without an index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sizes: Option<SizesOut>,
    /// This server's query cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheOut>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct CacheOut {
    pub entries: usize,
    pub bytes: usize,
    pub max_entries: usize,
    pub max_bytes: usize,
    /// Since the server started.
    pub hits: u64,
    pub misses: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct OpStatsOut {
    /// `search.hybrid`, `symbol`, `refs`, `read`, `keyword`, `index`, ...
    pub op: String,
    pub count: u64,
    pub errors: u64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Answers a cache gave, out of `cache_lookups`.
    pub cache_hits: u64,
    pub cache_lookups: u64,
    /// Operations answered by the command line, this kind of server, the daemon.
    pub cli: u64,
    pub mcp: u64,
    pub daemon: u64,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct TableSizeOut {
    pub name: String,
    /// The table's own pages (FTS5 shadow tables count as the FTS table's).
    pub bytes: u64,
    /// Pages of its indexes.
    pub index_bytes: u64,
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

/// A commit as `file_history` and `blame` show it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CommitOut {
    pub short: String,
    pub author: String,
    /// Author date, ISO 8601.
    pub date: String,
    /// The message's first line.
    pub summary: String,
    /// The whole message (`detail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The file's path in this commit, when a rename makes it differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl From<crate::history::CommitInfo> for CommitOut {
    fn from(c: crate::history::CommitInfo) -> CommitOut {
        CommitOut {
            short: c.short,
            author: c.author,
            date: c.date,
            summary: c.summary,
            message: c.message,
            path: c.path,
        }
    }
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct HistoryOut {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u64>,
    /// Newest first.
    pub commits: Vec<CommitOut>,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
    /// For a deleted file: the short hash of the commit that deleted it
    /// (listed first; the rest is the file's history up to then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted_in: Option<String>,
}

/// A run of consecutive lines that one commit last changed.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BlameHunkOut {
    /// The `short` hash of the commit that last changed these lines.
    pub commit: String,
    pub start_line: u64,
    pub end_line: u64,
    /// The lines' text, `start_line` first.
    pub lines: Vec<String>,
}

#[derive(Debug, Serialize, JsonSchema)]
pub struct BlameOut {
    pub path: String,
    pub start_line: u64,
    pub end_line: u64,
    pub total_lines: u64,
    /// The commits the hunks name, by first appearance.
    pub commits: Vec<CommitOut>,
    /// The lines in order, grouped into runs of one commit.
    pub hunks: Vec<BlameHunkOut>,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redacted: Option<u64>,
}

pub struct Answer {
    pub structured: Value,
    pub text: String,
}

pub fn answer<T: Serialize>(out: &T, text: String) -> Result<Answer> {
    Ok(Answer {
        structured: serde_json::to_value(out)?,
        text,
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
        } else if fresh.last_error.is_some() {
            notes.push("there is no index yet and none could be built; see index_status".into());
        } else {
            // Gone under the server (`.repo_search/` removed): the next
            // refresh builds it again.
            notes.push("there is no index at the moment: it is built again within seconds; retry then, or use search_keyword now".into());
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
        recency: h.recency,
        also: h.also.iter().map(ToString::to_string).collect(),
    }
}

/// A hit on its way to a compact answer: everything but its lines, and
/// its best lines (at most [`COMPACT_LINES`], full width, best first) to fit.
pub struct CompactCandidate {
    hit: HitOut,
    best: Vec<(u32, String)>,
}

/// Ranked hits as compact candidates: the best lines of each snippet for
/// `query` (the library's one choice, [`best_lines_ranked`]); `arms` only when
/// asked for (the semantic tools have one arm, and leave them out).
pub fn compact_candidates(
    hits: Vec<HybridHit>,
    query: &str,
    with_arms: bool,
) -> Vec<CompactCandidate> {
    hits.into_iter()
        .map(|h| {
            let best = best_lines_ranked(
                &h.snippet,
                h.snippet_line,
                query,
                COMPACT_LINES,
                BEST_LINE_CHARS,
            );
            let arms = if with_arms {
                h.sources
                    .iter()
                    .map(|s| arm_short_name(s.arm))
                    .collect::<Vec<_>>()
                    .join("+")
            } else {
                String::new()
            };
            let symbol = match (h.kind, h.symbol) {
                (Some(k), Some(s)) if !k.is_empty() => Some(format!("{k} {s}")),
                (_, s) => s,
            };
            let at = format!("{}:{}-{}", h.path, h.start_line, h.end_line);
            let also = h.also.iter().map(|a| compact_also(a, &at)).collect();
            CompactCandidate {
                hit: HitOut {
                    at,
                    symbol,
                    lines: Vec::new(),
                    arms,
                    also,
                },
                best,
            }
        })
        .collect()
}

/// Compact hits whose answer fits `budget` characters as `size` measures
/// it (the larger of its JSON and its text): every hit keeps its place;
/// from the bottom, a symbol drops the qualifier its file's name already
/// says ([`without_file_qualifier`]); then the lowest-ranked hits give up
/// their extra lines, then every line is cut shorter, down to
/// [`COMPACT_MIN_LINE_CHARS`]; then hits below the top
/// [`COMPACT_KEEP_LINES_TOP`] give up their line; then, from the bottom,
/// hits give up their `also` places (a place, `929-954
/// copyInputStreamToFile`, is often the answer itself: the `nl` suite
/// through the MCP server found its function in the top 10 for 44% of
/// questions when `also` went before the lines, 64% after).
pub fn fit_compact(
    cands: &[CompactCandidate],
    budget: usize,
    mut size: impl FnMut(&[HitOut]) -> usize,
) -> Vec<HitOut> {
    let mut shown: Vec<usize> = cands.iter().map(|c| c.best.len()).collect();
    let mut also: Vec<usize> = cands.iter().map(|c| c.hit.also.len()).collect();
    let mut width = BEST_LINE_CHARS;
    // Each symbol without the qualifier its file's name says, if it has
    // one; shown once `short_symbol` says so.
    let shorter: Vec<Option<String>> = cands
        .iter()
        .map(|c| {
            c.hit
                .symbol
                .as_deref()
                .and_then(|s| without_file_qualifier(s, &c.hit.at))
        })
        .collect();
    let mut short_symbol = vec![false; cands.len()];
    loop {
        let hits: Vec<HitOut> = cands
            .iter()
            .zip(shown.iter().zip(&also))
            .zip(short_symbol.iter().zip(&shorter))
            .map(|((c, (&n, &a)), (&short, shorter))| {
                let mut h = c.hit.clone();
                if short && shorter.is_some() {
                    h.symbol.clone_from(shorter);
                }
                h.also.truncate(a);
                // The best `n`, shown in file order.
                let mut best: Vec<&(u32, String)> = c.best[..n].iter().collect();
                best.sort_by_key(|(line, _)| *line);
                h.lines = best
                    .iter()
                    .map(|(line, text)| format!("{line}: {}", bound_line(text, width)))
                    .collect();
                h
            })
            .collect();
        if size(&hits) <= budget {
            return hits;
        }
        if let Some(i) = (0..cands.len())
            .rev()
            .find(|&i| !short_symbol[i] && shorter[i].is_some())
        {
            // First a `method Class.member` in `Class.kt` (or C#'s
            // `Namespace.Class.Member` in `Class.cs`) says `method
            // member`: the path names the class, and the line is worth
            // more than the repetition.
            short_symbol[i] = true;
        } else if let Some(i) = shown.iter().rposition(|&n| n > 1) {
            shown[i] -= 1;
        } else if width > COMPACT_MIN_LINE_CHARS {
            width = (width * 9 / 10).max(COMPACT_MIN_LINE_CHARS);
        } else if let Some(i) = (COMPACT_KEEP_LINES_TOP..shown.len())
            .rev()
            .find(|&i| shown[i] > 0)
        {
            // Long paths and names: the lowest-ranked hits give up their
            // line, so the answer stays within its bound whatever the
            // repository's paths look like.
            shown[i] = 0;
        } else if let Some(i) = also.iter().rposition(|&n| n > 0) {
            // Then the lowest-ranked hits' further places in their file.
            also[i] -= 1;
        } else {
            return hits;
        }
    }
}

/// A further place of a compact hit's file, `start-end name`, its name
/// without the qualifier the file's name already says (`929-954
/// copyInputStreamToFile` in `FileUtils.java`, not `929-954
/// FileUtils.copyInputStreamToFile`): the cheaper an `also` place, the
/// more of them fit.
fn compact_also(a: &AlsoSpan, at: &str) -> String {
    let symbol = a
        .symbol
        .as_deref()
        .map(|s| without_file_qualifier(s, at).unwrap_or_else(|| s.to_string()));
    AlsoSpan {
        symbol,
        ..a.clone()
    }
    .to_string()
}

/// A hit's symbol (`method StripeSdkModule.downloadAndShareFile`) without
/// the qualifier that its file's name (`at`:
/// `…/StripeSdkModule.kt:1733-1787`) already says: `method
/// downloadAndShareFile`. `None` when the symbol has no such qualifier.
fn without_file_qualifier(symbol: &str, at: &str) -> Option<String> {
    let path = at.rsplit_once(':').map_or(at, |(p, _)| p);
    let stem = crate::search::file_stem(path);
    let (kind, name) = symbol.split_once(' ').unwrap_or(("", symbol));
    // The file's name spells its type as its language's files do:
    // `routergroup.go` and `router_group.rb` both say `RouterGroup`.
    let folded = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, '_' | '-'))
            .map(|c| c.to_ascii_lowercase())
            .collect()
    };
    let stem = folded(stem);
    // Each separator with the segment before it; the segment the file
    // names ends the qualifier, a namespace before it included (C#'s
    // `Newtonsoft.Json.Tests.JsonConvertTests.Run` in
    // `JsonConvertTests.cs`).
    let mut segment_start = 0;
    let mut member = None;
    let mut i = 0;
    while i < name.len() {
        let rest = &name[i..];
        if let Some(sep) = [".", "::", "#", "\\"]
            .iter()
            .find(|sep| rest.starts_with(*sep))
        {
            if folded(&name[segment_start..i]) == stem {
                member = Some(&name[i + sep.len()..]);
                break;
            }
            i += sep.len();
            segment_start = i;
            continue;
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    // The class itself under its namespace (`Newtonsoft.Json.JsonConvert`
    // in `JsonConvert.cs`) is its own name.
    let member = match member {
        None if segment_start > 0 && folded(&name[segment_start..]) == stem => {
            Some(&name[segment_start..])
        }
        m => m,
    };
    let member = member.filter(|m| !m.is_empty())?;
    Some(if kind.is_empty() {
        member.to_string()
    } else {
        format!("{kind} {member}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten compact candidates at `at(i)` named `symbol(i)`, each with the
    /// same best lines.
    fn ten_candidates(
        at: impl Fn(usize) -> String,
        symbol: impl Fn(usize) -> String,
        best: Vec<(u32, String)>,
    ) -> Vec<CompactCandidate> {
        (0..10)
            .map(|i| CompactCandidate {
                hit: HitOut {
                    at: at(i),
                    symbol: Some(symbol(i)),
                    lines: Vec::new(),
                    arms: "bm25+sem".into(),
                    also: Vec::new(),
                },
                best: best.clone(),
            })
            .collect()
    }

    fn json_size(h: &[HitOut]) -> usize {
        serde_json::to_string(h).map_or(usize::MAX, |s| s.len())
    }

    /// A hit cut to fewer lines keeps its best ones, shown in file order:
    /// not the first of its snippet (a field on line 321 showed line 320,
    /// its neighbour).
    #[test]
    fn a_hit_cut_to_fewer_lines_keeps_its_best_ones() {
        let snippet = "  config?: Config;\n  transformRequest?: Transformer;\n  transformResponse?: ResponseTransformer;\n  status?: number;";
        let hits: Vec<crate::search::hybrid::HybridHit> = (0..10)
            .map(|i| crate::search::hybrid::HybridHit {
                path: format!("index{i}.d.ts"),
                start_line: 321,
                end_line: 321,
                symbol: Some("transformResponse".into()),
                kind: Some("field".into()),
                lang: "typescript".into(),
                score: 1.0,
                sources: Vec::new(),
                snippet_line: 319,
                snippet: snippet.into(),
                file_symbols: Vec::new(),
                recency: None,
                also: Vec::new(),
            })
            .collect();
        let cands = compact_candidates(hits, "transformResponse", true);
        let three = fit_compact(&cands, usize::MAX, json_size);
        let lines: Vec<u32> = three[0]
            .lines
            .iter()
            .filter_map(|l| l.split(':').next()?.parse().ok())
            .collect();
        assert!(
            lines.windows(2).all(|w| w[0] < w[1]),
            "file order: {lines:?}"
        );
        let mut one_each = usize::MAX;
        for budget in (200..4000).rev().step_by(50) {
            let hits = fit_compact(&cands, budget, json_size);
            if hits.iter().all(|h| h.lines.len() <= 1) {
                one_each = budget;
                assert!(
                    hits[0].lines[0].starts_with("321: transformResponse"),
                    "{:?}",
                    hits[0].lines
                );
                break;
            }
        }
        assert!(one_each < usize::MAX, "no budget cut every hit to one line");
    }

    /// Java-like paths leave room for either the lower hits' lines or
    /// their files' further places: the places stay (each short, and
    /// often the function asked for), the lines below the top three go.
    #[test]
    fn lower_hits_give_up_their_line_before_their_also_places() {
        let mut cands = ten_candidates(
            |i| format!("src/main/java/org/apache/commons/io/FileUtils{i}.java:1023-1045"),
            |i| format!("method FileUtils{i}.copyToFile"),
            vec![(
                1024,
                "* Copies bytes from an InputStream source to a file".into(),
            )],
        );
        for (i, c) in cands.iter_mut().enumerate() {
            let at = c.hit.at.clone();
            c.hit.also = vec![compact_also(
                &AlsoSpan {
                    start_line: 900,
                    end_line: 950,
                    symbol: Some(format!("FileUtils{i}.copyInputStreamToFile")),
                    kind: Some("method".into()),
                },
                &at,
            )];
        }
        assert_eq!(cands[0].hit.also[0], "900-950 copyInputStreamToFile");
        let hits = fit_compact(&cands, COMPACT_CHARS_PER_HIT * 10, json_size);
        assert!(json_size(&hits) <= COMPACT_CHARS_PER_HIT * 10);
        assert!(
            hits[..COMPACT_KEEP_LINES_TOP]
                .iter()
                .all(|h| h.lines.len() == 1)
        );
        // Every hit below the top three lost its line before the first of
        // them lost its place.
        let lower = &hits[COMPACT_KEEP_LINES_TOP];
        assert!(lower.lines.is_empty() && lower.also.len() == 1, "{hits:?}");
        assert!(
            hits[COMPACT_KEEP_LINES_TOP..]
                .iter()
                .all(|h| h.lines.is_empty())
        );
    }

    #[test]
    fn a_symbol_drops_only_the_qualifier_its_file_name_says() {
        let at = "main/java/com/x/StripeSdkModule.kt:1733-1787";
        assert_eq!(
            without_file_qualifier("method StripeSdkModule.downloadAndShareFile", at).as_deref(),
            Some("method downloadAndShareFile")
        );
        assert_eq!(
            without_file_qualifier("method Config::parse", "src/Config.rs:1-9").as_deref(),
            Some("method parse")
        );
        // A namespace before the class the file names goes with it.
        assert_eq!(
            without_file_qualifier(
                "method Newtonsoft.Json.Tests.JsonConvertTests.Run",
                "Src/Tests/JsonConvertTests.cs:1-9"
            )
            .as_deref(),
            Some("method Run")
        );
        assert_eq!(
            without_file_qualifier(
                "method Newtonsoft.Json.Run",
                "Src/Tests/JsonConvertTests.cs:1-9"
            ),
            None
        );
        assert_eq!(
            without_file_qualifier(
                "class Newtonsoft.Json.JsonConvert",
                "Src/JsonConvert.cs:1-9"
            )
            .as_deref(),
            Some("class JsonConvert")
        );
        assert_eq!(
            without_file_qualifier(
                "method Composer\\Installer::isDryRun",
                "src/Installer.php:1-9"
            )
            .as_deref(),
            Some("method isDryRun")
        );
        // A file name spelled the way its language spells files.
        assert_eq!(
            without_file_qualifier("method RouterGroup.StaticFS", "routergroup.go:1-9").as_deref(),
            Some("method StaticFS")
        );
        assert_eq!(
            without_file_qualifier("RouterGroup.handle", "lib/router_group.rb:1-9").as_deref(),
            Some("handle")
        );
        // Another class, a longer name that starts with the stem, the class
        // itself, no kind.
        assert_eq!(without_file_qualifier("method Other.run", at), None);
        assert_eq!(
            without_file_qualifier("class StripeSdkModuleImpl.run", at),
            None
        );
        assert_eq!(without_file_qualifier("class StripeSdkModule", at), None);
        assert_eq!(
            without_file_qualifier("StripeSdkModule#run", at).as_deref(),
            Some("run")
        );
    }

    /// Kotlin-style trees (deep paths, one long-named class per file) whose
    /// paths and symbols alone overflow the budget once every line below
    /// the top hits is gone: the symbols drop their class, which the path
    /// says, from the bottom up.
    #[test]
    fn long_qualified_symbols_give_up_the_class_their_path_names() {
        let cands = ten_candidates(
            |i| format!("main/java/com/reactnativestripesdk/AddressSheetViewManager{i}.kt:23-29"),
            |i| {
                format!(
                    "method AddressSheetViewManager{i}.getExportedCustomDirectEventTypeConstants"
                )
            },
            vec![(
                23,
                "override fun getExportedCustomDirectEventTypeConstants()".into(),
            )],
        );
        let size = json_size;
        let budget = COMPACT_CHARS_PER_HIT * 10;
        let hits = fit_compact(&cands, budget, size);
        // Still above the soft budget (the paths alone are long), but
        // within the 2,000-character bound with its envelope.
        assert!(size(&hits) <= 1_800, "{} > 1800", size(&hits));
        assert_eq!(hits.len(), 10, "every hit keeps its place");
        assert_eq!(
            hits[0].symbol.as_deref(),
            Some("method getExportedCustomDirectEventTypeConstants")
        );
        assert_eq!(
            hits[9].symbol.as_deref(),
            Some("method getExportedCustomDirectEventTypeConstants")
        );
        assert!(
            hits[..COMPACT_KEEP_LINES_TOP]
                .iter()
                .all(|h| h.lines.len() == 1)
        );
        // An empty `lines` is left out of the JSON.
        assert!(
            !serde_json::to_string(&hits[9])
                .unwrap_or_default()
                .contains("\"lines\"")
        );
    }

    #[test]
    fn compact_hits_fit_their_budget_even_with_long_paths() {
        let cands = ten_candidates(
            |i| format!("src/main/java/org/jsoup/parser/HtmlTreeBuilder{i}.java:100-180"),
            |i| format!("method HtmlTreeBuilder{i}.insertForeignElementFor"),
            (0..3).map(|l| (10 + l, "x".repeat(200))).collect(),
        );
        let size = json_size;
        // Java-like paths and names: the hits alone nearly fill the soft
        // budget, so the lower hits give up their lines and the answer stays
        // well inside the 2,000-character bound with its envelope.
        let budget = COMPACT_CHARS_PER_HIT * 10;
        let hits = fit_compact(&cands, budget, size);
        assert!(size(&hits) <= 1_800, "{} > 1800", size(&hits));
        assert_eq!(hits.len(), 10, "every hit keeps its place");
        assert!(
            hits[..COMPACT_KEEP_LINES_TOP]
                .iter()
                .all(|h| h.lines.len() == 1)
        );
    }

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
