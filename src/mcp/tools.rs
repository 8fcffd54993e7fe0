//! Owns the MCP tools: their names, descriptions (the model's only
//! documentation), input parameters, output shapes and schemas, and the
//! conversion from the library's plain results to those shapes. Does not
//! search (that is `search::*`) or speak the protocol (that is `mod.rs`).
//!
//! Every result is bounded: counts have defaults and hard limits (declared
//! once in [`params`](super::params)), long lines are cut, and a result stays
//! under [`BUDGET_CHARS`] characters; when more exists it says
//! `truncated: true`, how many there are, and how to narrow or page.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use anyhow::Result;
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use rmcp::schemars::{self, JsonSchema};
use serde::Serialize;
use serde_json::Value;

use super::params::{Args, Kind, Param};
use super::state::ServerState;
use crate::error::UserError;
use crate::search::keyword::{CaseMode, KeywordRequest, search_keyword};
use crate::search::read::{ReadRequest, read_file};
use crate::search::semantic::{SemanticRequest, SemanticResult, SimilarRequest, SimilarTo};
use crate::search::symbol::{
    KINDS, MatchMode, SymbolQuery, find_references, find_symbols, outline,
};
use crate::search::{ChunkFilter, Scope, bm25, bound_line};
use crate::service::{Freshness, phase_name};
use crate::walk::WalkOptions;

/// A result's serialized size stays under this many characters by default
/// (Claude Code inlines up to ~50,000; smaller answers leave the model room).
pub const BUDGET_CHARS: usize = 20_000;
/// Characters kept for a result's fixed fields when fitting its list.
const OVERHEAD_CHARS: usize = 1_500;
/// Longest line text shown by the search tools.
const LINE_CHARS: usize = 300;
/// Largest file `read_file` opens (it reads the whole file to count lines).
const MAX_READ_BYTES: u64 = 64 << 20;
/// Most lines `read_file` returns in one call.
const MAX_READ_LINES: u64 = 1_000;

/// The tools, in the order they are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolName {
    FindSymbol,
    FindReferences,
    ListDefsInFile,
    Search,
    SearchSemantic,
    SimilarCode,
    SearchKeyword,
    ReadFile,
    IndexStatus,
}

impl ToolName {
    pub const ALL: [ToolName; 9] = [
        ToolName::FindSymbol,
        ToolName::FindReferences,
        ToolName::ListDefsInFile,
        ToolName::Search,
        ToolName::SearchSemantic,
        ToolName::SimilarCode,
        ToolName::SearchKeyword,
        ToolName::ReadFile,
        ToolName::IndexStatus,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ToolName::FindSymbol => "find_symbol",
            ToolName::FindReferences => "find_references",
            ToolName::ListDefsInFile => "list_defs_in_file",
            ToolName::Search => "search",
            ToolName::SearchSemantic => "search_semantic",
            ToolName::SimilarCode => "similar_code",
            ToolName::SearchKeyword => "search_keyword",
            ToolName::ReadFile => "read_file",
            ToolName::IndexStatus => "index_status",
        }
    }

    pub fn from_name(name: &str) -> Option<ToolName> {
        // `hybrid_search` is the original design's name for `search`.
        let name = if name == "hybrid_search" {
            "search"
        } else {
            name
        };
        ToolName::ALL.into_iter().find(|t| t.name() == name)
    }

    fn title(self) -> &'static str {
        match self {
            ToolName::FindSymbol => "Find definitions by name",
            ToolName::FindReferences => "Find references of a name",
            ToolName::ListDefsInFile => "List the definitions in a file",
            ToolName::Search => "Ranked search for a concept",
            ToolName::SearchSemantic => "Search by meaning (embeddings)",
            ToolName::SimilarCode => "Find code similar to a snippet or location",
            ToolName::SearchKeyword => "Exact text or regex search",
            ToolName::ReadFile => "Read lines of a file",
            ToolName::IndexStatus => "Index status",
        }
    }

    fn description(self) -> &'static str {
        match self {
            ToolName::FindSymbol => {
                "Find where a function, method, class, struct, type, constant or module is DEFINED, by name. \
                 Use this first whenever you know (or can guess) an identifier: it is faster and more precise than text search. \
                 Accepts qualified names (`Config::parse`, `LoginView.post`). Ranking: exact > case-insensitive > prefix > fuzzy, \
                 definitions outside tests first. Returns path, line range and signature; then read the body with read_file. \
                 To find callers/uses, use find_references; for a concept without a known name, use search."
            }
            ToolName::FindReferences => {
                "Find the places that USE a name (calls, type uses, imports) and where it is defined, with the enclosing function and the source line. \
                 Use it for \"who calls X\", \"where is X used\", impact of a change. Matching is by exact identifier (not by type resolution), \
                 so unrelated names that are spelled the same are included. For definitions only, use find_symbol."
            }
            ToolName::ListDefsInFile => {
                "List the definitions (classes, functions, methods, ...) of one file in source order, nested by containment, with line ranges and signatures: \
                 a cheap outline to decide which lines to read with read_file instead of reading the whole file."
            }
            ToolName::Search => {
                "Ranked search over code and docs, split into function/class-sized chunks: by default hybrid (full-text BM25 with stemming and \
                 camelCase/snake_case splitting, embeddings when a model is available, symbol names and exact identifiers fused into one list, \
                 each hit with the arms that found it and a short snippet). Use it for a concept or behaviour when you do not know the identifier, \
                 e.g. \"validate csrf token\" or \"retry with backoff\"; an identifier-like query puts its definition first, a quoted phrase its exact lines. For a known name use find_symbol; \
                 for exact text or a regex use search_keyword. To ask several things at once, pass `queries` (up to 10) instead of `query`: \
                 each is answered on its own (an invalid one gets its own error) and the answer is {results: [...]}, one entry per query."
            }
            ToolName::SearchSemantic => {
                "Natural-language search by meaning over embeddings of function/class-sized chunks: finds code that does what you describe \
                 even when it shares no words with it, e.g. \"where are failed payments retried\" or \"turn a timestamp into a readable date\". \
                 Each hit has its cosine similarity as score and a snippet. Needs an embedding model and computed vectors: when they are missing \
                 the answer says available: false with the reason and how to fix it (every other tool keeps working); while vectors are being \
                 computed it says partial: true with embedded/total. Usually prefer search (hybrid: words, names and embeddings fused)."
            }
            ToolName::SimilarCode => {
                "Find code similar to a snippet (`code`) or to the chunk (function, class...) at `path` + `line` of an indexed file, by embeddings: \
                 duplicated or near-duplicated logic, other implementations of the same pattern, examples of how something similar is done elsewhere. \
                 Give exactly one of `code` or `path` + `line`; the chunk at path:line is left out of its own results, and exclude_path leaves out \
                 a whole file (e.g. the one the snippet came from). Needs embeddings like search_semantic (available: false otherwise)."
            }
            ToolName::SearchKeyword => {
                "Search the files on disk for exact text or a regex, like ripgrep (`rg -n`): same regex syntax, same .gitignore rules, \
                 results sorted by path and line. Use it for string literals, error messages, config keys, TODOs, or any exact pattern; \
                 set fixed_strings for literal text with regex characters. Always up to date (does not use the index). \
                 Narrow big result sets with glob (e.g. [\"*.py\", \"!tests/**\"]) or word."
            }
            ToolName::ReadFile => {
                "Read lines of a text file in the project, with line numbers (`N<TAB>text` per line). Give start_line/end_line for a range, \
                 or match to jump to the first line containing a literal text with `context` lines around it. \
                 Long files are returned in pages: when truncated, call again with the start_line given in the hint."
            }
            ToolName::IndexStatus => {
                "Show what the search index holds (files, symbols, chunks, files skipped and why), when it was last updated, whether indexing is \
                 running and how far it is, and how many files changed since. Use it when symbol or search results look incomplete."
            }
        }
    }

    fn params(self) -> &'static [Param] {
        match self {
            ToolName::FindSymbol => FIND_SYMBOL,
            ToolName::FindReferences => FIND_REFERENCES,
            ToolName::ListDefsInFile => LIST_DEFS,
            ToolName::Search => SEARCH,
            ToolName::SearchSemantic => SEARCH_SEMANTIC,
            ToolName::SimilarCode => SIMILAR_CODE,
            ToolName::SearchKeyword => SEARCH_KEYWORD,
            ToolName::ReadFile => READ_FILE,
            ToolName::IndexStatus => &[],
        }
    }

    fn output_schema(self) -> JsonObject {
        match self {
            ToolName::FindSymbol => output_schema::<SymbolsOut>(),
            ToolName::FindReferences => output_schema::<RefsOut>(),
            ToolName::ListDefsInFile => output_schema::<DefsOut>(),
            ToolName::Search => any_of_schema(&[
                output_schema::<SearchOut>(),
                output_schema::<BulkSearchOut>(),
            ]),
            ToolName::SearchSemantic | ToolName::SimilarCode => output_schema::<SemanticOut>(),
            ToolName::SearchKeyword => output_schema::<KeywordOut>(),
            ToolName::ReadFile => output_schema::<ReadOut>(),
            ToolName::IndexStatus => output_schema::<StatusOut>(),
        }
    }

    /// The tool as listed by `tools/list`.
    pub fn tool(self) -> Tool {
        let mut tool = Tool::new(
            self.name(),
            self.description(),
            Arc::new(super::params::input_schema(self.params())),
        );
        tool.title = Some(self.title().into());
        tool.output_schema = Some(Arc::new(self.output_schema()));
        tool.annotations = Some(
            ToolAnnotations::with_title(self.title())
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false),
        );
        tool
    }
}

const LANGS: &[&str] = &[
    "rust",
    "python",
    "javascript",
    "typescript",
    "tsx",
    "go",
    "java",
    "c",
    "cpp",
    "ruby",
];
const LANGS_AND_DOCS: &[&str] = &[
    "rust",
    "python",
    "javascript",
    "typescript",
    "tsx",
    "go",
    "java",
    "c",
    "cpp",
    "ruby",
    "other",
    "docs",
];

const FIND_SYMBOL: &[Param] = &[
    Param::new("name", Kind::Str { max_chars: 300 }, "Identifier to look up, optionally qualified: `parse_config`, `Config::parse`, `LoginView.post`.")
        .required(),
    Param::new("kind", Kind::Enum { values: KINDS, default: None }, "Only definitions of this kind."),
    Param::new("language", Kind::Enum { values: LANGS, default: None }, "Only definitions in files of this language."),
    Param::new(
        "match",
        Kind::Enum { values: &["auto", "exact", "prefix", "fuzzy"], default: Some("auto") },
        "auto: exact, then case-insensitive, prefix and fuzzy matches to fill the limit; exact: the exact name only; \
         prefix: names starting with it (case-insensitive); fuzzy: subsequence matches for a half-remembered name.",
    ),
    Param::new("limit", Kind::Int { min: 1, max: 200, default: Some(20) }, "Most definitions returned."),
    Param::new("offset", Kind::Int { min: 0, max: 10_000, default: Some(0) }, "Skip this many results (paging)."),
];

const FIND_REFERENCES: &[Param] = &[
    Param::new("name", Kind::Str { max_chars: 300 }, "Identifier whose uses to find, e.g. `parse_config` (a qualified name is reduced to its last part).")
        .required(),
    Param::new("limit", Kind::Int { min: 1, max: 500, default: Some(100) }, "Most references returned."),
    Param::new("offset", Kind::Int { min: 0, max: 1_000_000, default: Some(0) }, "Skip this many results (paging)."),
];

const LIST_DEFS: &[Param] = &[
    Param::new(
        "path",
        Kind::Str { max_chars: 4096 },
        "File path relative to the project root, e.g. `src/lib.rs`.",
    )
    .required(),
    Param::new(
        "offset",
        Kind::Int {
            min: 0,
            max: 1_000_000,
            default: Some(0),
        },
        "Skip this many definitions (paging through very large files).",
    ),
];

/// Most queries one `search` call answers.
const MAX_QUERIES: usize = 10;
/// Longest query `search` accepts.
const MAX_QUERY_CHARS: usize = 1000;

/// Parameters several tools share.
#[rustfmt::skip]
const GLOB: Param = Param::new("glob", Kind::StrList { max_items: 20, max_chars: 500 }, "Only paths matching these globs; `!glob` excludes (e.g. [\"src/**\", \"!**/tests/**\"]).");
#[rustfmt::skip]
const CHUNK_LIMIT: Param = Param::new("limit", Kind::Int { min: 1, max: 50, default: Some(10) }, "Most chunks returned.");
#[rustfmt::skip]
const CHUNK_OFFSET: Param = Param::new("offset", Kind::Int { min: 0, max: 1_000, default: Some(0) }, "Skip this many results (paging).");
#[rustfmt::skip]
const THRESHOLD: Param = Param::new("threshold", Kind::Number { min: 0.0, max: 1.0 }, "Leave out hits whose cosine similarity is below this (0 to 1; by default none are left out).");

const SEARCH: &[Param] = &[
    Param::new("query", Kind::Str { max_chars: MAX_QUERY_CHARS }, "Words, identifiers or a short description of what you look for. Give this or `queries`."),
    Param::new(
        "queries",
        Kind::Batch { max_items: MAX_QUERIES, max_chars: MAX_QUERY_CHARS },
        "Several queries (1 to 10) answered independently with the same other arguments, instead of `query`; \
         the answer is {results: [...]}, one entry per query, each with its hits or its own error.",
    ),
    Param::new(
        "mode",
        Kind::Enum { values: &["hybrid", "bm25", "semantic", "symbol", "keyword"], default: Some("hybrid") },
        "hybrid (default): BM25, embeddings, symbol names and keyword hits fused into one list, each hit saying which found it; \
         bm25: full-text only; semantic: embeddings only; symbol: definitions named in the query; keyword: literal matches of quoted text or identifiers.",
    )
    .hint("leave `mode` out for hybrid search; use find_symbol for a known name and search_keyword for exact text or a regex"),
    GLOB,
    Param::new("lang", Kind::Enum { values: LANGS_AND_DOCS, default: None }, "Only chunks of this language (`docs` = Markdown/RST/text)."),
    Param::new("scope", Kind::Enum { values: &["all", "code", "docs"], default: Some("all") }, "code: source files only; docs: documentation only; all: both."),
    CHUNK_LIMIT,
    CHUNK_OFFSET,
];

const SEARCH_SEMANTIC: &[Param] = &[
    Param::new(
        "query",
        Kind::Str { max_chars: 2000 },
        "What the code does, in words, e.g. \"retry failed payments with backoff\".",
    )
    .required(),
    GLOB,
    THRESHOLD,
    CHUNK_LIMIT,
    CHUNK_OFFSET,
];

const SIMILAR_CODE: &[Param] = &[
    Param::new(
        "code",
        Kind::Str { max_chars: 16_000 },
        "A code snippet to find similar code to. Give this, or `path` + `line`.",
    ),
    Param::new(
        "path",
        Kind::Str { max_chars: 4096 },
        "File relative to the project root holding the code to compare with, e.g. `src/lib.rs`; needs `line`.",
    ),
    Param::new(
        "line",
        Kind::Int {
            min: 1,
            max: 100_000_000,
            default: None,
        },
        "A line (1-based) inside the function or class of `path` to compare with.",
    ),
    Param::new(
        "exclude_path",
        Kind::Str { max_chars: 4096 },
        "Leave out hits in this file (relative to the project root), e.g. the one the snippet came from.",
    ),
    GLOB,
    THRESHOLD,
    CHUNK_LIMIT,
    CHUNK_OFFSET,
];

const SEARCH_KEYWORD: &[Param] = &[
    Param::new(
        "pattern",
        Kind::Str { max_chars: 2000 },
        "Regex (Rust/ripgrep syntax), or literal text with fixed_strings.",
    )
    .required(),
    Param::new(
        "fixed_strings",
        Kind::Bool { default: false },
        "Treat the pattern as literal text, not a regex.",
    ),
    Param::new(
        "case_insensitive",
        Kind::Bool { default: false },
        "Ignore letter case.",
    ),
    Param::new(
        "word",
        Kind::Bool { default: false },
        "Match whole words only.",
    ),
    Param::new(
        "glob",
        Kind::StrList {
            max_items: 20,
            max_chars: 500,
        },
        "Only files matching these globs, rg -g syntax; `!glob` excludes (e.g. [\"*.py\", \"!tests/**\"]).",
    ),
    Param::new(
        "context",
        Kind::Int {
            min: 0,
            max: 10,
            default: Some(0),
        },
        "Lines of context before and after each match.",
    ),
    Param::new(
        "max_results",
        Kind::Int {
            min: 1,
            max: 500,
            default: Some(50),
        },
        "Most matching lines returned.",
    ),
];

const READ_FILE: &[Param] = &[
    Param::new(
        "path",
        Kind::Str { max_chars: 4096 },
        "File path relative to the project root, e.g. `src/lib.rs`.",
    )
    .required(),
    Param::new(
        "start_line",
        Kind::Int {
            min: 1,
            max: 100_000_000,
            default: None,
        },
        "First line to return (1-based).",
    ),
    Param::new(
        "end_line",
        Kind::Int {
            min: 1,
            max: 100_000_000,
            default: None,
        },
        "Last line to return (inclusive).",
    ),
    Param::new(
        "match",
        Kind::Str { max_chars: 1000 },
        "Show the first line containing this literal, case-sensitive text, with `context` lines around it.",
    ),
    Param::new(
        "context",
        Kind::Int {
            min: 0,
            max: 200,
            default: Some(5),
        },
        "Lines of context around `match`.",
    ),
];

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
    fn unavailable(
        query: Option<String>,
        similar_to: Option<String>,
        reason: String,
        hint: String,
        fresh: &Freshness,
        generation: Option<u64>,
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
            index: index_info(fresh, generation),
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

/// The schema of what `T` serializes to, self-contained (no `$ref`) and
/// without the numeric `format`s schemars adds (`uint32`, `double`...),
/// which clients do not know.
fn output_schema<T: JsonSchema>() -> JsonObject {
    let mut settings = schemars::generate::SchemaSettings::draft2020_12().for_serialize();
    settings.inline_subschemas = true;
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut value =
        serde_json::to_value(schema).unwrap_or_else(|_| serde_json::json!({"type": "object"}));
    clean_schema(&mut value);
    match value {
        Value::Object(mut o) => {
            o.remove("title");
            o.remove("description");
            o
        }
        _ => JsonObject::new(),
    }
}

/// A schema for a tool with more than one answer shape: an object matching
/// any of `alternatives` (each an object schema).
fn any_of_schema(alternatives: &[JsonObject]) -> JsonObject {
    let mut out = JsonObject::new();
    let mut alts = Vec::with_capacity(alternatives.len());
    for a in alternatives {
        let mut a = a.clone();
        if let Some(dialect) = a.remove("$schema") {
            out.insert("$schema".into(), dialect);
        }
        alts.push(Value::Object(a));
    }
    out.insert("type".into(), Value::String("object".into()));
    out.insert("anyOf".into(), Value::Array(alts));
    out
}

/// Removes numeric `format`s, and `null` alternatives (every optional output
/// field is left out when empty, never written as `null`).
fn clean_schema(v: &mut Value) {
    match v {
        Value::Object(o) => {
            if let Some(Value::Array(types)) = o.get_mut("type") {
                types.retain(|t| t != "null");
                if types.len() == 1 {
                    let only = types.remove(0);
                    o.insert("type".into(), only);
                }
            }
            for key in ["anyOf", "oneOf"] {
                if let Some(Value::Array(alts)) = o.get_mut(key) {
                    alts.retain(|a| a.get("type").and_then(Value::as_str) != Some("null"));
                    if alts.len() == 1 {
                        let only = alts.remove(0);
                        o.remove(key);
                        if let Value::Object(inner) = only {
                            for (k, val) in inner {
                                o.entry(k).or_insert(val);
                            }
                        }
                    }
                }
            }
            let numeric =
                matches!(o.get("type"), Some(Value::String(t)) if t == "integer" || t == "number");
            if numeric {
                o.remove("format");
            }
            for child in o.values_mut() {
                clean_schema(child);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(clean_schema),
        _ => {}
    }
}

// ---------------------------------------------------------------------------
// Calls.

/// What a successful call returns: the structured result and a one-line
/// summary for clients that show text.
pub struct Answer {
    pub structured: Value,
    pub summary: String,
}

fn answer<T: Serialize>(out: &T, summary: String) -> Result<Answer> {
    Ok(Answer {
        structured: serde_json::to_value(out)?,
        summary,
    })
}

/// Runs a tool. Bad arguments are a [`UserError`] in the error chain.
pub fn call(state: &ServerState, tool: ToolName, raw: Option<&JsonObject>) -> Result<Answer> {
    let args = Args::parse(tool.params(), raw)?;
    match tool {
        ToolName::FindSymbol => call_find_symbol(state, &args),
        ToolName::FindReferences => call_find_references(state, &args),
        ToolName::ListDefsInFile => call_list_defs(state, &args),
        ToolName::Search => call_search(state, &args),
        ToolName::SearchSemantic => call_search_semantic(state, &args),
        ToolName::SimilarCode => call_similar_code(state, &args),
        ToolName::SearchKeyword => call_search_keyword(state, &args),
        ToolName::ReadFile => call_read_file(state, &args),
        ToolName::IndexStatus => call_index_status(state),
    }
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

fn index_info(fresh: &Freshness, generation: Option<u64>) -> IndexInfo {
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

fn generation_of(store: &crate::store::Store) -> u64 {
    store
        .get_meta(crate::store::meta::GENERATION)
        .ok()
        .flatten()
        .and_then(|g| g.parse().ok())
        .unwrap_or(0)
}

fn call_find_symbol(state: &ServerState, args: &Args) -> Result<Answer> {
    let fresh = state.refresh_for_query();
    let name = args.string("name");
    let limit = args.count("limit");
    let offset = args.count("offset");
    let mode = args
        .str("match")
        .and_then(MatchMode::parse)
        .unwrap_or_default();
    let q = SymbolQuery {
        name: name.clone(),
        kinds: args
            .str("kind")
            .map(|k| vec![k.to_string()])
            .unwrap_or_default(),
        lang: args.str("language").map(String::from),
        mode,
        limit: offset + limit,
    };
    let found = state.with_store(|store| Ok((find_symbols(store, &q)?, generation_of(store))))?;
    let (result, generation) = match found {
        Some((r, g)) => (Some(r), Some(g)),
        None => (None, None),
    };
    let (hits, total, capped) = match result {
        Some(r) => (r.hits, r.total, r.truncated && r.total <= offset + limit),
        None => (Vec::new(), 0, false),
    };
    let mut symbols: Vec<SymbolOut> = hits
        .into_iter()
        .skip(offset)
        .map(|h| SymbolOut {
            name: h.name,
            kind: h.kind,
            container: h.container,
            path: h.path,
            line: h.line,
            start_line: h.start_line,
            end_line: h.end_line,
            signature: bound_line(&h.signature, LINE_CHARS),
            lang: h.lang,
            match_kind: serde_json::to_value(h.match_kind)
                .ok()
                .and_then(|v| v.as_str().map(String::from))
                .unwrap_or_default(),
        })
        .collect();
    let dropped = fit(&mut symbols, BUDGET_CHARS - OVERHEAD_CHARS);
    let shown = symbols.len();
    let truncated = offset + shown < total || capped || dropped > 0;
    let hint = if truncated {
        Some(format!(
            "{shown} of {total} definitions shown: call again with offset: {}, or narrow with kind, language or match: \"exact\"",
            offset + shown
        ))
    } else if shown == 0 && generation.is_some() {
        Some(format!(
            "no definition named `{name}` in the index: try match: \"fuzzy\", find_references, search (for a concept) or search_keyword (for text)"
        ))
    } else {
        None
    };
    let out = SymbolsOut {
        symbols,
        total: total as u64,
        offset: offset as u64,
        truncated,
        hint,
        index: index_info(&fresh, generation),
    };
    let summary = format!("{shown} of {total} definitions of `{name}`");
    answer(&out, summary)
}

/// The trimmed text of the given lines of each file, read from disk.
fn source_lines(root: &Path, wanted: &[(String, u32)]) -> HashMap<(String, u32), String> {
    let mut by_file: HashMap<&str, Vec<u32>> = HashMap::new();
    for (path, line) in wanted {
        by_file.entry(path.as_str()).or_default().push(*line);
    }
    let mut out = HashMap::new();
    for (path, lines) in by_file {
        let Ok(p) = crate::paths::resolve_in_root(root, path) else {
            continue;
        };
        let Ok(md) = std::fs::metadata(&p.abs) else {
            continue;
        };
        if md.len() > 8 << 20 {
            continue;
        }
        let Ok(bytes) = std::fs::read(&p.abs) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let all: Vec<&str> = text.lines().collect();
        for n in lines {
            if let Some(l) = n.checked_sub(1).and_then(|i| all.get(i as usize)) {
                out.insert((path.to_string(), n), bound_line(l.trim(), 200));
            }
        }
    }
    out
}

fn call_find_references(state: &ServerState, args: &Args) -> Result<Answer> {
    let fresh = state.refresh_for_query();
    let name = args.string("name");
    let limit = args.count("limit");
    let offset = args.count("offset");
    let found = state.with_store(|store| {
        Ok((
            find_references(store, &name, offset + limit)?,
            generation_of(store),
        ))
    })?;
    let Some((result, generation)) = found else {
        let out = RefsOut {
            name: name.clone(),
            definitions: 0,
            references: 0,
            hits: Vec::new(),
            total: 0,
            offset: offset as u64,
            truncated: false,
            hint: Some("no index yet: use search_keyword with word: true for now".into()),
            index: index_info(&fresh, None),
        };
        return answer(&out, format!("no index yet for references of `{name}`"));
    };
    let page: Vec<_> = result.hits.into_iter().skip(offset).collect();
    let wanted: Vec<(String, u32)> = page.iter().map(|h| (h.path.clone(), h.line)).collect();
    let texts = source_lines(state.root(), &wanted);
    let mut hits: Vec<RefOut> = page
        .into_iter()
        .map(|h| {
            let text = texts.get(&(h.path.clone(), h.line)).cloned();
            RefOut {
                kind: if h.is_definition {
                    "definition".into()
                } else {
                    h.kind
                },
                path: h.path,
                line: h.line,
                column: h.column,
                context: h.context,
                text,
            }
        })
        .collect();
    let dropped = fit(&mut hits, BUDGET_CHARS - OVERHEAD_CHARS);
    let shown = hits.len();
    let total = result.total;
    let truncated = offset + shown < total || dropped > 0;
    let hint = if truncated {
        Some(format!(
            "{shown} of {total} shown: call again with offset: {} for more, or use search_keyword with a glob to look in one part of the tree",
            offset + shown
        ))
    } else if total == 0 {
        Some(format!(
            "no uses of `{}` in the index: check the spelling with find_symbol (match: \"fuzzy\") or try search_keyword",
            result.name
        ))
    } else {
        None
    };
    let out = RefsOut {
        name: result.name.clone(),
        definitions: result.definitions as u64,
        references: result.references as u64,
        hits,
        total: total as u64,
        offset: offset as u64,
        truncated,
        hint,
        index: index_info(&fresh, Some(generation)),
    };
    answer(
        &out,
        format!(
            "{} definitions and {} references of `{}` ({shown} shown)",
            result.definitions, result.references, result.name
        ),
    )
}

fn flatten(items: Vec<crate::search::symbol::OutlineItem>, depth: u32, out: &mut Vec<DefOut>) {
    for i in items {
        out.push(DefOut {
            name: i.name,
            kind: i.kind,
            start_line: i.start_line,
            end_line: i.end_line,
            depth,
            signature: bound_line(&i.signature, LINE_CHARS),
        });
        flatten(i.children, depth + 1, out);
    }
}

fn call_list_defs(state: &ServerState, args: &Args) -> Result<Answer> {
    let p = crate::paths::resolve_in_root(state.root(), &args.string("path"))?;
    if p.abs.is_dir() {
        return Err(UserError::new(format!("`{}` is a directory", p.rel))
            .hint("give a file path; to find files use search_keyword with a glob, e.g. pattern \".\" and glob [\"src/*.rs\"]")
            .into());
    }
    let fresh = state.refresh_for_query();
    let offset = args.count("offset");
    let found = state.with_store(|store| Ok((outline(store, &p.rel)?, generation_of(store))))?;
    let (items, skipped, generation) = match found {
        Some((Some((skip, items)), g)) => (items, skip, Some(g)),
        Some((None, g)) => {
            if fresh.indexing {
                (Vec::new(), None, Some(g))
            } else {
                return Err(UserError::new(format!("`{}` is not in the index", p.rel))
                    .hint("only source files of supported languages (and docs) are indexed, and ignored files are not; read it with read_file")
                    .into());
            }
        }
        None => (Vec::new(), None, None),
    };
    let mut all = Vec::new();
    flatten(items, 0, &mut all);
    let total = all.len();
    let mut definitions: Vec<DefOut> = all.into_iter().skip(offset).collect();
    let dropped = fit(&mut definitions, BUDGET_CHARS - OVERHEAD_CHARS);
    let shown = definitions.len();
    let truncated = dropped > 0;
    let hint = if truncated {
        Some(format!(
            "{shown} of {total} definitions shown: call again with offset: {}",
            offset + shown
        ))
    } else if total == 0 && skipped.is_none() && generation.is_some() && !fresh.indexing {
        Some("no definitions found in this file: read it with read_file".into())
    } else {
        None
    };
    let out = DefsOut {
        path: p.rel.clone(),
        definitions,
        total: total as u64,
        offset: offset as u64,
        truncated,
        skipped,
        hint,
        index: index_info(&fresh, generation),
    };
    answer(&out, format!("{total} definitions in `{}`", p.rel))
}

/// The arguments of a `search` call other than its query.
struct SearchSpec {
    mode: String,
    filter: ChunkFilter,
    scope: Scope,
    limit: usize,
    offset: usize,
}

fn call_search(state: &ServerState, args: &Args) -> Result<Answer> {
    let query = args.str("query");
    let bulk = args.has("queries");
    if query.is_some() && bulk {
        return Err(UserError::new("give either `query` or `queries`, not both")
            .hint("`query` for one search; `queries` (a list of up to 10) to run several at once")
            .into());
    }
    if query.is_none() && !bulk {
        return Err(UserError::new("missing required argument `query`")
            .hint("`query`: words, identifiers or a short description of what you look for; or `queries`: a list of up to 10 of them")
            .into());
    }
    let scope = args.str("scope").and_then(Scope::parse).unwrap_or_default();
    let spec = SearchSpec {
        mode: args.string("mode"),
        filter: ChunkFilter::new(&args.list("glob"), args.str("lang"), scope)?,
        scope,
        limit: args.count("limit"),
        offset: args.count("offset"),
    };
    let Some(query) = query else {
        return call_search_bulk(state, &args.list("queries"), &spec);
    };
    if query.trim().is_empty() {
        return Err(UserError::new("`query` is empty")
            .hint("`query`: words, identifiers or a short description of what you look for")
            .into());
    }
    let (out, summary) = search_one(state, query, &spec, BUDGET_CHARS - OVERHEAD_CHARS)?;
    answer(&out, summary)
}

/// One query of `search`, its hits fitted into `budget` characters.
fn search_one(
    state: &ServerState,
    query: &str,
    spec: &SearchSpec,
    budget: usize,
) -> Result<(SearchOut, String)> {
    if spec.mode != "bm25" {
        return search_hybrid(state, query, spec, budget);
    }
    if crate::text::fts_query(query).is_none() {
        return Err(UserError::new("the query has no searchable words")
            .hint("use words or identifiers, e.g. \"parse config file\"; for punctuation or exact text use search_keyword")
            .into());
    }
    let fresh = state.refresh_for_query();
    let found = state.with_store(|store| {
        Ok((
            bm25::search_bm25(store, query, &spec.filter, spec.offset + spec.limit + 1, 6)?,
            generation_of(store),
        ))
    })?;
    let (hits, generation) = match found {
        Some((h, g)) => (h, Some(g)),
        None => (Vec::new(), None),
    };
    let hits = hits.into_iter().map(chunk_out).collect();
    Ok(search_answer(
        query, spec, hits, &fresh, generation, None, budget,
    ))
}

/// A ranked chunk as the tools show it (no `sources`: one arm found it).
fn chunk_out(h: bm25::ChunkHit) -> ChunkOut {
    ChunkOut {
        path: h.path,
        start_line: h.start_line,
        end_line: h.end_line,
        symbol: h.symbol,
        kind: h.kind,
        score: (h.score * 1000.0).round() / 1000.0,
        snippet_line: h.snippet_line,
        snippet: h.snippet,
        sources: Vec::new(),
    }
}

/// Pages ranked chunks (`hits` holds everything up to `offset + limit + 1`),
/// fits them in `budget` characters and says how to get more.
fn search_answer(
    query: &str,
    spec: &SearchSpec,
    hits: Vec<ChunkOut>,
    fresh: &Freshness,
    generation: Option<u64>,
    query_interpretation: Option<String>,
    budget: usize,
) -> (SearchOut, String) {
    let (offset, limit) = (spec.offset, spec.limit);
    let more = hits.len() > offset + limit;
    let mut out_hits: Vec<ChunkOut> = hits.into_iter().skip(offset).take(limit).collect();
    let dropped = fit(&mut out_hits, budget);
    let shown = out_hits.len();
    let truncated = more || dropped > 0;
    let hint = if truncated {
        Some(format!(
            "more hits exist: call again with offset: {}, or narrow with glob, lang or scope",
            offset + shown
        ))
    } else if shown == 0 && generation.is_some() {
        Some("nothing matched: try other words or synonyms, find_symbol for a name, or search_keyword for exact text".into())
    } else {
        None
    };
    let out = SearchOut {
        query: query.to_string(),
        mode: spec.mode.clone(),
        hits: out_hits,
        offset: offset as u64,
        truncated,
        hint,
        query_interpretation,
        index: index_info(fresh, generation),
    };
    (out, format!("{shown} hits for `{query}`"))
}

/// `search` in hybrid mode (or one arm alone), with the warm searcher.
fn search_hybrid(
    state: &ServerState,
    query: &str,
    spec: &SearchSpec,
    budget: usize,
) -> Result<(SearchOut, String)> {
    use crate::search::hybrid::{Arm, HybridRequest, RRF_K};
    let mode = spec.mode.as_str();
    let only = match mode {
        "semantic" => vec![Arm::Semantic],
        "symbol" => vec![Arm::Symbol],
        "keyword" => vec![Arm::Keyword],
        _ => Vec::new(),
    };
    let fresh = state.refresh_for_query();
    let root = state.root().to_path_buf();
    let req = HybridRequest {
        query: query.to_string(),
        filter: spec.filter.clone(),
        scope: spec.scope,
        limit: spec.offset + spec.limit + 1,
        snippet_lines: 6,
        context: 0,
        with_file_symbols: false,
        only,
        k: RRF_K,
    };
    let found = state.with_store(|store| {
        let result = state.with_hybrid(|hybrid| hybrid.search(store, &root, &req))?;
        Ok((result, generation_of(store)))
    })?;
    let (result, generation) = match found {
        Some((r, g)) => (Some(r), Some(g)),
        None => (None, None),
    };
    if mode == "semantic"
        && let Some(r) = &result
        && let Some(note) = r
            .arms
            .iter()
            .find(|a| a.arm == Arm::Semantic && a.candidates == 0)
            .and_then(|a| a.note.clone())
    {
        return Err(UserError::new(format!("semantic search is not available: {note}"))
            .hint("leave `mode` out for hybrid search (it works without embeddings), or fetch a model with `repo-search model fetch` and re-index")
            .into());
    }
    let (hits, interpretation) = match result {
        Some(r) => (r.hits, Some(r.query_interpretation)),
        None => (Vec::new(), None),
    };
    let hits = hits
        .into_iter()
        .map(|h| ChunkOut {
            path: h.path,
            start_line: h.start_line,
            end_line: h.end_line,
            symbol: h.symbol,
            kind: h.kind,
            score: (h.score * 1000.0).round() / 1000.0,
            snippet_line: h.snippet_line,
            snippet: h.snippet,
            sources: h
                .sources
                .iter()
                .map(|s| format!("{}#{}", s.arm.name(), s.rank))
                .collect(),
        })
        .collect();
    Ok(search_answer(
        query,
        spec,
        hits,
        &fresh,
        generation,
        interpretation,
        budget,
    ))
}

/// Characters an entry of a bulk answer needs besides its hits: the query
/// echoed back, mode, paging fields, hint, interpretation and index block.
const ENTRY_OVERHEAD_CHARS: usize = 700;

/// `search` with `queries`: each query answered on its own with the same
/// other arguments; a query that fails becomes an error entry and the
/// others still answer. The size budget is shared: each query gets an equal
/// part of what the ones before it left over.
fn call_search_bulk(state: &ServerState, queries: &[String], spec: &SearchSpec) -> Result<Answer> {
    let mut left = BUDGET_CHARS - OVERHEAD_CHARS;
    let mut results = Vec::with_capacity(queries.len());
    for (i, query) in queries.iter().enumerate() {
        let share = left / (queries.len() - i);
        let budget = share.saturating_sub(ENTRY_OVERHEAD_CHARS + query.len());
        let entry =
            match check_bulk_query(query).and_then(|()| search_one(state, query, spec, budget)) {
                Ok((out, _)) => BulkEntry::Answer(out),
                Err(e) => BulkEntry::Error(bulk_error(query, &e)),
            };
        let used = serde_json::to_string(&entry).map_or(share, |s| s.len() + 1);
        left = left.saturating_sub(used);
        results.push(entry);
    }
    let mut out = BulkSearchOut {
        results,
        hint: None,
    };
    // The shares are estimates: cut the longest answers until the whole fits.
    let cut_here = shrink_to_budget(&mut out, BUDGET_CHARS - OVERHEAD_CHARS);
    let cut = cut_here
        || out
            .results
            .iter()
            .any(|e| matches!(e, BulkEntry::Answer(a) if a.truncated && a.hits.len() < spec.limit));
    if cut {
        out.hint = Some(
            "answers were cut to share the size budget between the queries: send fewer queries per call, \
             or search one `query` with offset to see more of its hits"
                .into(),
        );
    }
    let text = render_bulk(&out);
    answer(&out, text)
}

/// What `search_one` would refuse before searching, said per query.
fn check_bulk_query(query: &str) -> Result<()> {
    if query.trim().is_empty() {
        return Err(UserError::new("empty query")
            .hint("give words or identifiers, e.g. \"parse config file\"")
            .into());
    }
    let n = query.chars().count();
    if n > MAX_QUERY_CHARS {
        return Err(UserError::new(format!(
            "the query is too long: {n} characters, the limit is {MAX_QUERY_CHARS}"
        ))
        .hint("give a shorter, more specific query")
        .into());
    }
    Ok(())
}

fn bulk_error(query: &str, e: &anyhow::Error) -> BulkError {
    let (error, hint) = match crate::error::find_user_error(e) {
        Some(u) => (
            u.message.clone(),
            u.hint_for_agent()
                .map(String::from)
                .unwrap_or_else(|| "change this query or leave it out".into()),
        ),
        None => {
            tracing::warn!("search failed for one query: {e:#}");
            (
                format!("{e:#}"),
                "this is a failure of the server, not of the query; index_status may say more"
                    .into(),
            )
        }
    };
    BulkError {
        query: bound_line(query, LINE_CHARS),
        error,
        hint,
    }
}

/// Drops the last hit of the answer with the most hits until `out`
/// serializes within `budget` characters. Returns whether it dropped any.
fn shrink_to_budget(out: &mut BulkSearchOut, budget: usize) -> bool {
    let mut dropped = false;
    while serde_json::to_string(out).map_or(0, |s| s.len()) > budget {
        let fullest = out
            .results
            .iter_mut()
            .filter_map(|e| match e {
                BulkEntry::Answer(a) if !a.hits.is_empty() => Some(a),
                _ => None,
            })
            .max_by_key(|a| a.hits.len());
        let Some(a) = fullest else { break };
        a.hits.pop();
        a.truncated = true;
        a.hint = Some(format!(
            "more hits exist: call again with offset: {}, or narrow with glob, lang or scope",
            a.offset as usize + a.hits.len()
        ));
        dropped = true;
    }
    dropped
}

/// The text of a bulk answer: per query its hits as `path:start-end symbol`
/// lines, or its error and hint.
fn render_bulk(out: &BulkSearchOut) -> String {
    use std::fmt::Write as _;
    let answered = out
        .results
        .iter()
        .filter(|e| matches!(e, BulkEntry::Answer(_)))
        .count();
    let mut text = format!("{answered} of {} queries answered", out.results.len());
    for e in &out.results {
        match e {
            BulkEntry::Answer(a) => {
                let more = if a.truncated { " (more exist)" } else { "" };
                let n = a.hits.len();
                let hits = if n == 1 { "hit" } else { "hits" };
                let _ = write!(text, "\n\n`{}`: {n} {hits}{more}", a.query);
                for h in &a.hits {
                    let _ = write!(text, "\n  {}:{}-{}", h.path, h.start_line, h.end_line);
                    if let Some(s) = &h.symbol {
                        let _ = write!(text, " {s}");
                    }
                }
            }
            BulkEntry::Error(b) => {
                let _ = write!(
                    text,
                    "\n\n`{}`: error: {}\n  hint: {}",
                    b.query, b.error, b.hint
                );
            }
        }
    }
    if let Some(h) = &out.hint {
        let _ = write!(text, "\n\nhint: {h}");
    }
    text
}

/// `search_semantic`: a natural-language query against the chunk vectors,
/// with the server's warm searcher.
fn call_search_semantic(state: &ServerState, args: &Args) -> Result<Answer> {
    let query = args.string("query");
    let limit = args.count("limit");
    let offset = args.count("offset");
    let threshold = args.number("threshold").map(|t| t as f32);
    let req = SemanticRequest {
        query: query.clone(),
        filter: ChunkFilter::new(&args.list("glob"), None, Scope::All)?,
        limit: offset + limit + 1,
        threshold,
        snippet_lines: 6,
    };
    let fresh = state.refresh_for_query();
    let root = state.root().to_path_buf();
    let found = state.with_store(|store| {
        let result = state.with_semantic(|s| s.search(store, &root, &req))?;
        Ok((result, generation_of(store)))
    })?;
    let target = SemanticTarget::Query(query);
    semantic_answer(target, found, offset, limit, threshold.is_some(), &fresh)
}

/// `similar_code`: chunks close to a snippet or to the chunk at path:line.
fn call_similar_code(state: &ServerState, args: &Args) -> Result<Answer> {
    const EITHER: &str = "give `code` (a snippet), or `path` + `line` (a line inside the function or class to compare with), not both";
    let code = args.str("code");
    let path = args.str("path");
    let line = args.int("line");
    let (target, shown_as) = match (code, path, line) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(UserError::new("both `code` and `path`/`line` are given")
                .hint(EITHER)
                .into());
        }
        (Some(code), None, None) => {
            if code.trim().is_empty() {
                return Err(UserError::new("`code` is empty").hint(EITHER).into());
            }
            let shown_as = match code.lines().count() {
                1 => "code (1 line)".to_string(),
                n => format!("code ({n} lines)"),
            };
            (SimilarTo::Code(code.to_string()), shown_as)
        }
        (None, Some(path), Some(line)) => {
            let p = crate::paths::resolve_in_root(state.root(), path)?;
            if p.abs.is_dir() {
                return Err(UserError::new(format!("`{}` is a directory", p.rel))
                    .hint("give a file and a line inside the function or class to compare with")
                    .into());
            }
            let line = u32::try_from(line).unwrap_or(u32::MAX);
            let shown_as = format!("{}:{line}", p.rel);
            (SimilarTo::Location { path: p.rel, line }, shown_as)
        }
        (None, Some(_), None) => {
            return Err(UserError::new("`path` needs `line`")
                .hint("give the line (1-based) of a function or class in that file, e.g. path: \"src/lib.rs\", line: 42; or pass the code itself as `code`")
                .into());
        }
        (None, None, Some(_)) => {
            return Err(UserError::new("`line` needs `path`")
                .hint("give the file as `path` (relative to the project root), or pass the code itself as `code`")
                .into());
        }
        (None, None, None) => {
            return Err(UserError::new("nothing to compare with")
                .hint(EITHER)
                .into());
        }
    };
    let exclude_path = match args.str("exclude_path") {
        Some(x) => Some(crate::paths::resolve_in_root(state.root(), x)?.rel),
        None => None,
    };
    let limit = args.count("limit");
    let offset = args.count("offset");
    let threshold = args.number("threshold").map(|t| t as f32);
    let req = SimilarRequest {
        target,
        filter: ChunkFilter::new(&args.list("glob"), None, Scope::All)?,
        limit: offset + limit + 1,
        threshold,
        exclude_path,
        snippet_lines: 6,
    };
    let fresh = state.refresh_for_query();
    let root = state.root().to_path_buf();
    let found = state.with_store(|store| {
        let result = state.with_semantic(|s| s.similar(store, &root, &req))?;
        Ok((result, generation_of(store)))
    })?;
    let target = SemanticTarget::Similar(shown_as);
    semantic_answer(target, found, offset, limit, threshold.is_some(), &fresh)
}

/// What a semantic answer was asked for.
enum SemanticTarget {
    Query(String),
    Similar(String),
}

/// Pages and bounds a semantic result. An unavailable one (no model, no
/// vectors, no index yet) is an answer, not an error: it says why and what
/// to do, so the model can fall back to the other tools.
fn semantic_answer(
    target: SemanticTarget,
    found: Option<(SemanticResult, u64)>,
    offset: usize,
    limit: usize,
    threshold: bool,
    fresh: &Freshness,
) -> Result<Answer> {
    const FALLBACK: &str = "until then use search (hybrid search works without embeddings), find_symbol or search_keyword";
    let (query, similar_to, what) = match target {
        SemanticTarget::Query(q) => {
            let what = format!("`{}`", bound_line(&q, 100));
            (Some(q), None, what)
        }
        SemanticTarget::Similar(s) => (None, Some(s.clone()), s),
    };
    let (result, generation) = match found {
        Some((r, g)) => (r, Some(g)),
        None => {
            let (reason, hint) = if fresh.indexing {
                (
                    "the index is being built".to_string(),
                    format!(
                        "retry when index_status shows it done; vectors are computed after indexing; {FALLBACK}"
                    ),
                )
            } else {
                (
                    "there is no index yet".to_string(),
                    format!("run `repo-search index` (it also computes the vectors); {FALLBACK}"),
                )
            };
            let out = SemanticOut::unavailable(query, similar_to, reason, hint, fresh, None);
            let summary = unavailable_summary(&out);
            return answer(&out, summary);
        }
    };
    if !result.available {
        let hint = match result.hint_for_agent().filter(|h| !h.is_empty()) {
            Some(h) => format!("{h}; {FALLBACK}"),
            None => FALLBACK.to_string(),
        };
        let reason = result
            .reason
            .unwrap_or_else(|| "unknown reason".to_string());
        let mut out = SemanticOut::unavailable(query, similar_to, reason, hint, fresh, generation);
        out.model = result.model;
        out.embedded = result.embedded;
        out.total = result.total;
        let summary = unavailable_summary(&out);
        return answer(&out, summary);
    }
    let more = result.hits.len() > offset + limit;
    let mut hits: Vec<ChunkOut> = result
        .hits
        .into_iter()
        .skip(offset)
        .take(limit)
        .map(chunk_out)
        .collect();
    let dropped = fit(&mut hits, BUDGET_CHARS - OVERHEAD_CHARS);
    let shown = hits.len();
    let truncated = more || dropped > 0;
    let mut hints: Vec<String> = Vec::new();
    if truncated {
        hints.push(format!(
            "more hits exist: call again with offset: {}, or narrow with glob or threshold",
            offset + shown
        ));
    } else if shown == 0 {
        hints.push(if threshold {
            "nothing is similar enough: lower threshold or leave it out".to_string()
        } else {
            "nothing found: try other words, or search for a hybrid search".to_string()
        });
    }
    if result.partial {
        hints.push(format!(
            "only {} of {} chunks have vectors yet, so hits come from those: they are still being computed (by `repo-search index` or the daemon)",
            result.embedded, result.total
        ));
    }
    if let Some(u) = &result.upgrade {
        hints.push(format!("these hits come from the fast model; {}", u.hint()));
    }
    let partial_note = if result.partial {
        format!(
            ", partial: {}/{} chunks embedded",
            result.embedded, result.total
        )
    } else {
        String::new()
    };
    let model = result.model.clone().unwrap_or_default();
    let summary = match &query {
        Some(_) => format!("{shown} hits for {what} (semantic, {model}{partial_note})"),
        None => format!("{shown} chunks similar to {what} ({model}{partial_note})"),
    };
    let out = SemanticOut {
        query,
        similar_to,
        available: true,
        reason: None,
        model: result.model,
        tier: result.tier.map(|t| t.name().to_string()),
        partial: result.partial,
        embedded: result.embedded,
        total: result.total,
        upgrade: result.upgrade.map(|u| UpgradeOut {
            model: u.model,
            embedded: u.embedded,
            total: u.total,
            ready: u.ready,
        }),
        hits,
        offset: offset as u64,
        truncated,
        hint: (!hints.is_empty()).then(|| hints.join("; ")),
        index: index_info(fresh, generation),
    };
    answer(&out, summary)
}

/// The text of an unavailable semantic answer: what is missing and the fix.
fn unavailable_summary(out: &SemanticOut) -> String {
    format!(
        "semantic search is not available: {}\nhint: {}",
        out.reason.as_deref().unwrap_or("unknown reason"),
        out.hint.as_deref().unwrap_or_default()
    )
}

fn call_search_keyword(state: &ServerState, args: &Args) -> Result<Answer> {
    let pattern = args.string("pattern");
    let context = args.count("context");
    let max_results = args.count("max_results");
    let req = KeywordRequest {
        patterns: vec![pattern.clone()],
        fixed_strings: args.bool("fixed_strings"),
        case: if args.bool("case_insensitive") {
            CaseMode::Insensitive
        } else {
            CaseMode::Sensitive
        },
        word: args.bool("word"),
        before_context: context,
        after_context: context,
        max_count: None,
        max_results: Some(max_results),
        walk: WalkOptions {
            globs: args.list("glob"),
            ..WalkOptions::default()
        },
        paths: Vec::new(),
    };
    let result = search_keyword(state.root(), &req)?;
    let ctx = |c: &crate::search::keyword::ContextLine| LineOut {
        line: c.line,
        text: bound_line(&c.text, LINE_CHARS),
    };
    let mut matches: Vec<KeywordMatchOut> = result
        .matches
        .iter()
        .map(|m| KeywordMatchOut {
            path: m.path.clone(),
            line: m.line,
            text: bound_line(&m.text, LINE_CHARS),
            before: m.before.iter().map(ctx).collect(),
            after: m.after.iter().map(ctx).collect(),
        })
        .collect();
    let dropped = fit(&mut matches, BUDGET_CHARS - OVERHEAD_CHARS);
    let shown = matches.len();
    let truncated = result.truncated || dropped > 0;
    let total = result.total_matches.max(shown);
    let hint = if truncated {
        let more = if result.truncated { "at least " } else { "" };
        let raise = if max_results < 500 && dropped == 0 {
            ", or raise max_results (up to 500)"
        } else {
            ""
        };
        Some(format!(
            "{shown} of {more}{total} matching lines shown: narrow with glob (e.g. [\"src/**\", \"*.py\"]), word: true or a more specific pattern{raise}"
        ))
    } else if shown == 0 {
        Some(
            if args.bool("fixed_strings") || args.bool("case_insensitive") {
                "no matches: check the spelling, or widen the glob".to_string()
            } else {
                "no matches: try case_insensitive: true, fixed_strings: true for literal text with regex characters, or search for a concept".to_string()
            },
        )
    } else {
        None
    };
    let out = KeywordOut {
        matches,
        total: total as u64,
        files_matched: result.files_matched as u64,
        files_searched: result.files_searched as u64,
        truncated,
        hint,
    };
    answer(
        &out,
        format!("{shown} matching lines in {} files", result.files_matched),
    )
}

fn call_read_file(state: &ServerState, args: &Args) -> Result<Answer> {
    let start = args.int("start_line").map(|v| v as u64);
    let end = args.int("end_line").map(|v| v as u64);
    if let (Some(s), Some(e)) = (start, end)
        && s > e
    {
        return Err(
            UserError::new(format!("start_line {s} is after end_line {e}"))
                .hint("give start_line <= end_line")
                .into(),
        );
    }
    let path = args.string("path");
    let p = crate::paths::resolve_in_root(state.root(), &path)?;
    let size = std::fs::metadata(&p.abs).map(|m| m.len()).unwrap_or(0);
    if p.abs.is_file() && size > MAX_READ_BYTES {
        return Err(UserError::new(format!(
            "`{}` is too large to read here ({size} bytes, the limit is {MAX_READ_BYTES})",
            p.rel
        ))
        .hint("use search_keyword with a glob for this file to find the lines you need")
        .into());
    }
    let req = ReadRequest {
        path,
        start_line: start,
        end_line: end,
        find: args.str("match").map(String::from),
        context: args.int("context").map(|v| v as u64),
        max_lines: MAX_READ_LINES,
    };
    let r = read_file(state.root(), &req)?;
    let mut content = String::new();
    let mut last = r.start_line.saturating_sub(1);
    let budget = BUDGET_CHARS - OVERHEAD_CHARS;
    let mut cut = false;
    for l in &r.lines {
        let piece = format!("{}\t{}\n", l.line, l.text);
        // JSON escaping can grow a line; count its serialized size.
        let cost = serde_json::to_string(&piece)
            .map(|s| s.len())
            .unwrap_or(piece.len());
        if content.len() + cost > budget && last >= r.start_line {
            cut = true;
            break;
        }
        content.push_str(&piece);
        last = l.line;
    }
    if content.ends_with('\n') {
        content.pop();
    }
    let truncated = cut || r.truncated;
    let end_line = if r.lines.is_empty() { r.end_line } else { last };
    let hint = truncated.then(|| {
        let wanted_end = end.filter(|&e| e > end_line).map(|e| format!(", end_line: {e}")).unwrap_or_default();
        format!("lines {}-{end_line} of {} shown: call again with start_line: {}{wanted_end} for the next page", r.start_line, r.total_lines, end_line + 1)
    });
    let out = ReadOut {
        path: r.path.clone(),
        total_lines: r.total_lines,
        start_line: r.start_line,
        end_line,
        content,
        match_line: r.match_line,
        match_count: r.match_count,
        truncated,
        hint,
    };
    answer(
        &out,
        format!(
            "`{}` lines {}-{end_line} of {}",
            r.path, r.start_line, r.total_lines
        ),
    )
}

fn call_index_status(state: &ServerState) -> Result<Answer> {
    let fresh = state.freshness();
    let own = state.run_state();
    // Counting stale files costs a walk; while indexing the number means little.
    let mut attempt = 0;
    let st = loop {
        match crate::status::index_status(state.settings(), !fresh.indexing) {
            Ok(st) => break st,
            // A first build can make the file readable a moment before its
            // tables exist: ask again shortly.
            Err(e) if attempt < 10 && state.is_transient(&e) => {
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => return Err(e),
        }
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let progress = if own.running {
        Some(ProgressOut {
            phase: phase_name(own.progress.phase).into(),
            done: own.progress.done,
            total: own.progress.total,
        })
    } else {
        st.indexing.as_ref().map(|ix| ProgressOut {
            phase: "indexing".into(),
            done: ix.done,
            total: ix.total,
        })
    };
    let out = StatusOut {
        root: st.root.clone(),
        exists: st.exists,
        files: st.files,
        symbols: st.symbols,
        refs: st.refs,
        chunks: st.chunks,
        skipped: st.skipped,
        skipped_by_reason: st
            .skipped_by_reason
            .iter()
            .take(20)
            .map(|s| SkipOut {
                reason: s.reason.clone(),
                count: s.count,
                examples: s
                    .examples
                    .iter()
                    .map(|e| bound_line(e, LINE_CHARS))
                    .collect(),
            })
            .collect(),
        last_indexed: st.last_indexed,
        last_indexed_ago_s: st.last_indexed.map(|t| (now - t).max(0)),
        generation: st.generation,
        indexing: fresh.indexing,
        progress,
        writer_pid: fresh.other_writer.filter(|&p| p != 0),
        stale_files: st.stale_files,
        stale_examples: st.stale_examples.iter().take(10).cloned().collect(),
        index_bytes: st.index_bytes,
        embeddings: st
            .embeddings
            .iter()
            .map(|e| EmbeddingOut {
                tier: e.tier.name().to_string(),
                model: e.model.clone(),
                ready: e.ready,
                embedded: e.embedded,
                total: e.total,
            })
            .collect(),
        embedding: st.embedding.as_ref().map(|r| EmbeddingRunOut {
            model: r.model.clone(),
            done: r.done,
            total: r.total,
            rate: (r.rate * 10.0).round() / 10.0,
            eta_s: r.eta_s.map(|e| e.round() as u64),
        }),
        last_error: own.last_error.clone(),
        config_error: state.config_error().map(String::from),
    };
    let mut summary = if fresh.indexing {
        format!(
            "indexing: {} files, {} symbols so far",
            st.files, st.symbols
        )
    } else {
        format!(
            "{} files, {} symbols, {} chunks indexed",
            st.files, st.symbols, st.chunks
        )
    };
    for e in &out.embeddings {
        summary.push_str(&format!(
            "; vectors ({}): {}/{}",
            e.tier, e.embedded, e.total
        ));
    }
    if let Some(r) = &out.embedding {
        let eta = r.eta_s.map(|s| format!(", eta {s}s")).unwrap_or_default();
        summary.push_str(&format!(
            "; embedding with {}: {}/{} ({:.1}/s{eta})",
            r.model, r.done, r.total, r.rate
        ));
    }
    answer(&out, summary)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemas_have_no_numeric_formats_or_nullable_types() {
        for t in ToolName::ALL {
            let tool = t.tool();
            let text = serde_json::to_string(&tool).expect("serialize");
            assert!(!text.contains("\"format\""), "{}: {text}", t.name());
            assert!(!text.contains("\"null\""), "{}: {text}", t.name());
            assert!(!text.contains("$ref"), "{}: {text}", t.name());
            assert_eq!(
                tool.annotations.as_ref().and_then(|a| a.read_only_hint),
                Some(true)
            );
            assert_eq!(
                tool.output_schema
                    .as_ref()
                    .and_then(|s| s.get("type"))
                    .and_then(|v| v.as_str()),
                Some("object")
            );
        }
    }

    #[test]
    fn fit_keeps_a_prefix_within_budget() {
        let mut v: Vec<String> = (0..100).map(|i| format!("item number {i}")).collect();
        let dropped = fit(&mut v, 200);
        assert!(dropped > 0);
        assert!(serde_json::to_string(&v).expect("json").len() <= 200 + v.len());
        assert_eq!(v[0], "item number 0");
    }
}
