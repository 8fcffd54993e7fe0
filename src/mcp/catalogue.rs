//! The tool catalogue: the tools' names, titles and descriptions (the
//! model's only documentation), their input parameters (declared once, as
//! [`Param`]s; see [`params`](super::params)) and their input and output
//! schemas.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::Value;

use super::out::{
    BlameOut, BulkSearchOut, CallGraphOut, CompactSearchOut, CompactSemanticOut, ConfigOut,
    ContextOut, DefsOut, HistoryOut, ImportsOut, JobOut, KeywordOut, ReadOut, RefsOut, SearchOut,
    SemanticOut, StatsOut, StatusOut, SymbolsOut,
};
use super::params::{Kind, Param};
use crate::search::symbol::KINDS;

/// The tools, in the order they are listed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolName {
    FindSymbol,
    FindReferences,
    ListDefsInFile,
    Imports,
    Search,
    SearchSemantic,
    SimilarCode,
    SearchKeyword,
    ReadFile,
    Callers,
    Callees,
    Context,
    FileHistory,
    Blame,
    IndexStatus,
    Stats,
    Config,
    Index,
}

impl ToolName {
    pub const ALL: [ToolName; 18] = [
        ToolName::FindSymbol,
        ToolName::FindReferences,
        ToolName::ListDefsInFile,
        ToolName::Imports,
        ToolName::Search,
        ToolName::SearchSemantic,
        ToolName::SimilarCode,
        ToolName::SearchKeyword,
        ToolName::ReadFile,
        ToolName::Callers,
        ToolName::Callees,
        ToolName::Context,
        ToolName::FileHistory,
        ToolName::Blame,
        ToolName::IndexStatus,
        ToolName::Stats,
        ToolName::Config,
        ToolName::Index,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ToolName::FindSymbol => "find_symbol",
            ToolName::FindReferences => "find_references",
            ToolName::ListDefsInFile => "list_defs_in_file",
            ToolName::Imports => "imports",
            ToolName::Search => "search",
            ToolName::SearchSemantic => "search_semantic",
            ToolName::SimilarCode => "similar_code",
            ToolName::SearchKeyword => "search_keyword",
            ToolName::ReadFile => "read_file",
            ToolName::Callers => "callers",
            ToolName::Callees => "callees",
            ToolName::Context => "context",
            ToolName::FileHistory => "file_history",
            ToolName::Blame => "blame",
            ToolName::IndexStatus => "index_status",
            ToolName::Stats => "stats",
            ToolName::Config => "config",
            ToolName::Index => "index",
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
            ToolName::Imports => "What a file imports and which files import it",
            ToolName::Search => "Ranked search for a concept",
            ToolName::SearchSemantic => "Search by meaning (embeddings)",
            ToolName::SimilarCode => "Find code similar to a snippet or location",
            ToolName::SearchKeyword => "Exact text or regex search",
            ToolName::ReadFile => "Read lines of a file",
            ToolName::Callers => "Who calls a function or method",
            ToolName::Callees => "What a function or method calls",
            ToolName::Context => "What surrounds a line of code",
            ToolName::FileHistory => "Recent commits of a file or lines",
            ToolName::Blame => "Which commit last changed each line",
            ToolName::IndexStatus => "Index status",
            ToolName::Stats => "Latency and cache figures per operation",
            ToolName::Config => "Resolved settings (read-only)",
            ToolName::Index => "Start an index job",
        }
    }

    fn description(self) -> &'static str {
        match self {
            ToolName::FindSymbol => {
                "Find where a function, method, class, struct, type, constant or module is DEFINED, by name. \
                 Use this first whenever you know (or can guess) an identifier: it is faster and more precise than text search. \
                 Accepts qualified names (`Config::parse`, `LoginView.post`). Ranking: exact > case-insensitive > prefix > fuzzy, \
                 definitions outside tests first. Returns path, line range and signature (`detail: true` adds the name's line, language and match kind); \
                 then read the body with read_file. \
                 To find callers/uses, use find_references; for a concept without a known name, use search."
            }
            ToolName::FindReferences => {
                "Find the places that USE a name (calls, type uses; fields, constants and enum variants too) and where it is defined, with the enclosing \
                 function and the source line. Give a qualified name (`Session.send`, `Kind::Foo`) to get only the uses that resolve to that definition \
                 (through self/this, the class or a subclass, a variable bound to the class, an import of its module); same-named uses nothing resolves \
                 come after them marked `resolution: name_only`, and uses that belong to another definition are left out. \
                 `type`: definitions, references or all. Use it for \"where is X used\", impact of a change; for call chains, callers/callees."
            }
            ToolName::ListDefsInFile => {
                "List the definitions (classes, functions, methods, ...) of one file in source order, nested by containment, with line ranges and signatures: \
                 a cheap outline to decide which lines to read with read_file instead of reading the whole file."
            }
            ToolName::Imports => {
                "The import graph of one file: what it imports (each module as written, the imported names, the line, and `resolved`: \
                 the project file it names, or null for the standard library and third-party code) and which project files import it \
                 (path, line, module, names). Python, JS/TS, Rust (mod/use), Go (a package resolves to its directory and `files`), \
                 Java, Kotlin, C/C++ includes, Ruby require, PHP use. Use it for \"what depends on this file\", the impact of changing a module, or to follow a dependency. \
                 `direction`: imports, imported_by or both (default)."
            }
            ToolName::Search => {
                "Ranked search over code and docs in function/class-sized chunks. Default hybrid: full-text BM25 (stemmed, camelCase/snake_case split), \
                 embeddings, symbol names and exact identifiers fused into one list. Use it for a concept or behaviour when you do not know the identifier, \
                 e.g. \"validate csrf token\"; an identifier puts its definition first, a quoted phrase its exact lines, \
                 `path:line` (as a compiler or stack trace prints it) the code at that line, a file name or path (`config.py`) that file's main chunk. \
                 Each hit: path, start_line-end_line, kind, symbol, `lines` (the best-matching lines as `N: text`) and `arms` that found it \
                 (sym, kw, bm25, sem; phr: two query words side by side; syn: the query's words or their synonyms; loc: the `path:line` or file asked for); hybrid shows each file once, its other matching places as `also` (`start-end name`, up to 3); `next_offset` when more exist. `detail: true` adds scores, ranks and whole snippets. \
                 For a known name use find_symbol; for exact text or a regex, search_keyword. \
                 `queries` (up to 10) instead of `query` answers several at once: {results: [...]}, one entry per query."
            }
            ToolName::SearchSemantic => {
                "Natural-language search by meaning over embeddings of function/class-sized chunks: finds code that does what you describe \
                 even when it shares no words with it, e.g. \"where are failed payments retried\" or \"turn a timestamp into a readable date\". \
                 Hits are compact like search's (`detail: true` adds cosine scores and whole snippets). Needs an embedding model and vectors: \
                 without them the answer says available: false with the reason and the fix; a `note` says when vectors are partial. \
                 Usually prefer search (hybrid: words, names and embeddings fused)."
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
                 set fixed_strings for literal text with regex characters; give several `patterns` to match any of them. Always up to date (does not use the index). \
                 Narrow big result sets with glob (e.g. [\"*.py\", \"!tests/**\"]) or word."
            }
            ToolName::ReadFile => {
                "Read lines of a text file in the project, with line numbers (`N<TAB>text` per line). Give start_line/end_line for a range, \
                 or match to jump to the first line containing a literal text with `context` lines around it. \
                 Long files are returned in pages: when truncated, call again with the start_line given in the hint."
            }
            ToolName::Callers => {
                "Who calls a function or method (`Session.send`, `parse_config`): each call site with its path, line, the calling symbol \
                 and `resolution` (resolved, or name_only when only the name matches). `depth` > 1 follows resolved callers upward \
                 (callers of the callers). Use it for \"who calls X\" and \"what breaks if I change X\"."
            }
            ToolName::Callees => {
                "What a function or method calls: each call inside its body with the callee resolved to its definition (`defined_at`) where the \
                 index can tell (self/this calls, the class's own methods, imported functions), else name_only. `depth` > 1 follows resolved callees. \
                 Use it to understand what a function does before reading its callees."
            }
            ToolName::Context => {
                "Everything around one line of a file in one call: the lines around it (`radius` each side, default 10), the innermost \
                 definition holding it (kind, qualified name, signature, line span) and the definitions around that one (class, impl), \
                 an outline digest of the file's other definitions, and a callers/callees summary of the enclosing definition: \
                 where its name is used (path, line, enclosing symbol) and the names called inside it (with their definition's \
                 path when it resolves). Every edge has a `resolution`: resolved, or name_only when only the name matches. Use it after find_symbol, search or a stack trace gives you path:line."
            }
            ToolName::FileHistory => {
                "List the recent git commits that changed a file, or a line range of it (start_line/end_line: only commits whose changes \
                 touched those lines, followed back through earlier edits), newest first: short hash, author, ISO 8601 date and the message's \
                 first line (`detail: true`: the whole message). Renames are followed. Use it for \"what changed here recently and why\"; \
                 `since` keeps commits from a date on. Reads the committed history (HEAD), not uncommitted edits."
            }
            ToolName::Blame => {
                "For each line of a file (as last committed; start_line..end_line, by default its first 500 lines), the git commit that last changed it: short hash, author, \
                 ISO 8601 date, the commit's summary, and the line's text; lines grouped by commit. Use it for \"why is this line like this\", \
                 then file_history with detail: true for the whole message. At most 500 lines per call."
            }
            ToolName::IndexStatus => {
                "Show what the search index holds (files, symbols, chunks, files skipped and why), when it was last updated, whether indexing is \
                 running and how far it is, and how many files changed since (`sizes: true`: bytes per table). Use it when symbol or search results look incomplete."
            }
            ToolName::Stats => {
                "How this project's searches have performed, from every surface (this server, the command line, the daemon): per operation (search.hybrid, symbol, refs, read, keyword, index, ...) the count, errors, P50/P95/P99 and max milliseconds and the cache hit rate, with the index's bytes per table and vectors per model. `since` limits it to a recent window (`1h`, `24h`, `7d`). Read-only."
            }
            ToolName::Config => {
                "The settings this server runs with, each with where it came from (default, the user's config, the project's .repo_search/config.toml, an environment variable): index.max_file_size, index.exclude, embed.provider, embed.fast, ... and whether the project's config is trusted. `key` narrows to one. Read-only: settings are the user's to change (`repo-search config set`), not an agent's."
            }
            ToolName::Index => {
                "Start bringing the search index up to date in the background and return at once with a job id: `mode: incremental` \
                 (default; with `paths`, only what changed under those files or directories) or `full` (rebuild everything; unchanged \
                 chunks keep their vectors). One job runs at a time, others queue; index_status lists every job with its state \
                 (queued, running, done, failed), progress, ETA and error. Searches keep answering meanwhile. The server already \
                 re-checks the tree before answering, so use this after large changes (a branch switch, generated files) or when asked."
            }
        }
    }

    pub fn params(self) -> &'static [Param] {
        match self {
            ToolName::FindSymbol => FIND_SYMBOL,
            ToolName::FindReferences => FIND_REFERENCES,
            ToolName::ListDefsInFile => LIST_DEFS,
            ToolName::Imports => IMPORTS,
            ToolName::Search => SEARCH,
            ToolName::SearchSemantic => SEARCH_SEMANTIC,
            ToolName::SimilarCode => SIMILAR_CODE,
            ToolName::SearchKeyword => SEARCH_KEYWORD,
            ToolName::ReadFile => READ_FILE,
            ToolName::Callers | ToolName::Callees => CALL_GRAPH,
            ToolName::Context => CONTEXT,
            ToolName::FileHistory => FILE_HISTORY,
            ToolName::Blame => BLAME,
            ToolName::IndexStatus => INDEX_STATUS,
            ToolName::Stats => STATS,
            ToolName::Config => CONFIG,
            ToolName::Index => INDEX,
        }
    }

    fn output_schema(self) -> JsonObject {
        match self {
            ToolName::FindSymbol => output_schema::<SymbolsOut>(),
            ToolName::FindReferences => output_schema::<RefsOut>(),
            ToolName::ListDefsInFile => output_schema::<DefsOut>(),
            ToolName::Imports => output_schema::<ImportsOut>(),
            ToolName::Search => any_of_schema(&[
                output_schema::<CompactSearchOut>(),
                output_schema::<SearchOut>(),
                output_schema::<BulkSearchOut>(),
            ]),
            ToolName::SearchSemantic | ToolName::SimilarCode => any_of_schema(&[
                output_schema::<CompactSemanticOut>(),
                output_schema::<SemanticOut>(),
            ]),
            ToolName::SearchKeyword => output_schema::<KeywordOut>(),
            ToolName::ReadFile => output_schema::<ReadOut>(),
            ToolName::Callers | ToolName::Callees => output_schema::<CallGraphOut>(),
            ToolName::Context => output_schema::<ContextOut>(),
            ToolName::FileHistory => output_schema::<HistoryOut>(),
            ToolName::Blame => output_schema::<BlameOut>(),
            ToolName::IndexStatus => output_schema::<StatusOut>(),
            ToolName::Stats => output_schema::<StatsOut>(),
            ToolName::Config => output_schema::<ConfigOut>(),
            ToolName::Index => output_schema::<JobOut>(),
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
        // `index` writes the index (never the project's files); every other
        // tool only reads.
        let reads_only = self != ToolName::Index;
        tool.annotations = Some(
            ToolAnnotations::with_title(self.title())
                .read_only(reads_only)
                .destructive(false)
                .idempotent(reads_only)
                .open_world(false),
        );
        tool
    }
}

/// Every [`Lang`](crate::model::Lang) name, in [`Lang::ALL`](crate::model::Lang::ALL)
/// order (`languages_are_the_models` checks it), `docs` last.
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
    "csharp",
    "kotlin",
    "php",
    "swift",
    "scala",
    "lua",
    "bash",
    "elixir",
    "haskell",
    "zig",
    "objc",
    "erlang",
    "ocaml",
    "julia",
    "r",
    "other",
    "docs",
];
/// The languages that have definitions: all but `docs`.
const LANGS: &[&str] = match LANGS_AND_DOCS.split_last() {
    Some((_, code)) => code,
    None => &[],
};

/// `names` followed by the languages the definition-line heuristic reads
/// ([`crate::lang::HEURISTIC_LANGS`]): what `language` and `lang` accept.
const fn with_heuristic<const N: usize>(names: &[&'static str]) -> [&'static str; N] {
    let heuristic = crate::lang::HEURISTIC_LANGS;
    let mut out = [""; N];
    let mut i = 0;
    while i < names.len() {
        out[i] = names[i];
        i += 1;
    }
    let mut j = 0;
    while j < heuristic.len() {
        out[i + j] = heuristic[j].0;
        j += 1;
    }
    out
}

const N_HEURISTIC: usize = crate::lang::HEURISTIC_LANGS.len();
const DEF_LANGS: [&str; LANGS.len() + N_HEURISTIC] = with_heuristic(LANGS);
const CHUNK_LANGS: [&str; LANGS_AND_DOCS.len() + N_HEURISTIC] = with_heuristic(LANGS_AND_DOCS);

/// `detail`, on every tool that lists hits.
#[rustfmt::skip]
const DETAIL: Param = Param::new("detail", Kind::Bool { default: false }, "Full results: scores, ranks per arm, whole snippets, paging fields and the index block. By default results are compact.");

// Each tool's parameters, and its typed arguments: a struct with one field
// per parameter, named like it, that the handler receives (see
// `Args::into_typed`; `typed_args_match_the_declared_params` checks the two
// agree). Optional parameters without a default are `Option`s, lists absent
// by default are empty.

const FIND_SYMBOL: &[Param] = &[
    Param::new("name", Kind::Str { max_chars: 300 }, "Identifier to look up, optionally qualified by its container or module: `parse_config`, `Config::parse`, `LoginView.post`, `store::Store`.")
        .required(),
    Param::new("kind", Kind::Enum { values: KINDS, default: None }, "Only definitions of this kind."),
    Param::new("language", Kind::Enum { values: &DEF_LANGS, default: None }, "Only definitions in files of this language (`perl`, `clojure`, … are read by a line heuristic)."),
    Param::new(
        "match",
        Kind::Enum { values: &["auto", "exact", "prefix", "fuzzy"], default: Some("auto") },
        "auto: exact, then case-insensitive and prefix matches; fuzzy matches only when the name exists in no case; exact: the exact name only; \
         prefix: names starting with it (case-insensitive); fuzzy: subsequence matches for a half-remembered name.",
    ),
    Param::new("limit", Kind::Int { min: 1, max: 200, default: Some(20) }, "Most definitions returned."),
    Param::new("offset", Kind::Int { min: 0, max: 10_000, default: Some(0) }, "Skip this many results (paging)."),
    DETAIL,
];

/// The arguments of `find_symbol` (one field per [`FIND_SYMBOL`] param).
#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct FindSymbolArgs {
    pub name: String,
    pub kind: Option<String>,
    pub language: Option<String>,
    pub r#match: String,
    pub limit: usize,
    pub offset: usize,
    pub detail: bool,
}

const FIND_REFERENCES: &[Param] = &[
    Param::new("name", Kind::Str { max_chars: 300 }, "Identifier whose uses to find, bare (`send`: every use of the name) or qualified (`Session.send`, `Kind::Foo`: the uses that resolve to it, then name-only candidates).")
        .required(),
    Param::new("type", Kind::Enum { values: &["all", "definitions", "references"], default: Some("all") }, "Which hits: definitions, references or both."),
    Param::new("limit", Kind::Int { min: 1, max: 500, default: Some(100) }, "Most references returned."),
    paging_offset("Skip this many results (paging)."),
    DETAIL,
];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct FindReferencesArgs {
    pub name: String,
    pub r#type: String,
    pub limit: usize,
    pub offset: usize,
    pub detail: bool,
}

const CALL_GRAPH: &[Param] = &[
    Param::new(
        "name",
        Kind::Str { max_chars: 300 },
        "Function or method, bare (`parse_config`) or qualified (`Session.send`, `Config::parse`).",
    )
    .required(),
    Param::new(
        "depth",
        Kind::Int {
            min: 1,
            max: 5,
            default: Some(1),
        },
        "Levels to follow through resolved edges (1 = direct only).",
    ),
    Param::new(
        "limit",
        Kind::Int {
            min: 1,
            max: 500,
            default: Some(50),
        },
        "Most edges returned.",
    ),
    paging_offset("Skip this many edges (paging: `next_offset` of the previous answer)."),
    DETAIL,
];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct CallGraphArgs {
    pub name: String,
    pub depth: u32,
    pub limit: usize,
    pub offset: usize,
    pub detail: bool,
}

const LIST_DEFS: &[Param] = &[
    Param::new(
        "path",
        Kind::Str { max_chars: 4096 },
        "File path relative to the project root, e.g. `src/lib.rs`.",
    )
    .required(),
    paging_offset("Skip this many definitions (paging through very large files)."),
    DETAIL,
];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct ListDefsArgs {
    pub path: String,
    pub offset: usize,
    pub detail: bool,
}

const IMPORTS: &[Param] = &[
    Param::new(
        "path",
        Kind::Str { max_chars: 4096 },
        "File path relative to the project root, e.g. `src/store/read.rs`.",
    )
    .required(),
    Param::new(
        "direction",
        Kind::Enum {
            values: &["imports", "imported_by", "both"],
            default: Some("both"),
        },
        "imports: what the file imports; imported_by: the files that import it; both.",
    ),
    Param::new(
        "limit",
        Kind::Int {
            min: 1,
            max: 500,
            default: Some(50),
        },
        "Most entries in each list.",
    ),
    paging_offset("Skip this many entries of each list (paging)."),
];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct ImportsArgs {
    pub path: String,
    pub direction: String,
    pub limit: usize,
    pub offset: usize,
}

/// Most queries one `search` call answers.
pub const MAX_QUERIES: usize = 10;
/// Longest query `search` accepts.
pub const MAX_QUERY_CHARS: usize = 1000;

/// Parameters several tools share.
#[rustfmt::skip]
const GLOB: Param = Param::new("glob", Kind::StrList { max_items: 20, max_chars: 500 }, "Only paths matching these globs; `!glob` excludes (e.g. [\"src/**\", \"!**/tests/**\"]).");
#[rustfmt::skip]
const CHUNK_LIMIT: Param = Param::new("limit", Kind::Int { min: 1, max: 50, default: Some(10) }, "Most chunks returned.");
#[rustfmt::skip]
/// An `offset` of up to a million: where a page of a long list starts.
const fn paging_offset(description: &'static str) -> Param {
    Param::new(
        "offset",
        Kind::Int {
            min: 0,
            max: 1_000_000,
            default: Some(0),
        },
        description,
    )
}

const CHUNK_OFFSET: Param = Param::new(
    "offset",
    Kind::Int {
        min: 0,
        max: 1_000,
        default: Some(0),
    },
    "Skip this many results (paging).",
);
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
    Param::new("lang", Kind::Enum { values: &CHUNK_LANGS, default: None }, "Only chunks of this language (`docs` = Markdown/RST/text; `perl`, `clojure`, … are read by a line heuristic)."),
    Param::new("scope", Kind::Enum { values: &["all", "code", "docs"], default: Some("all") }, "code: source files only; docs: documentation only; all: both."),
    Param::new(
        "context",
        Kind::Int { min: 0, max: 10, default: None },
        "Lines of context around each hit's snippet, read from the file; also lists the 12 definitions \
         of the hit's file nearest it as `file_symbols`. Implies `detail`. Not used by mode bm25.",
    ),
    Param::new(
        "recency",
        Kind::Enum { values: &["auto", "on", "off"], default: Some("auto") },
        "Prefer files the project's recent git commits changed: auto (default) only when the query asks about recent work \
         (\"what changed recently in …\", \"latest work on …\"), on always, off never. No effect without git history.",
    ),
    CHUNK_LIMIT,
    CHUNK_OFFSET,
    DETAIL,
    Param::new(
        "no_cache",
        Kind::Bool { default: false },
        "Compute the answer afresh even if this server answered the same query on the same index before (answers are cached per index version, so a cached one is never older than the index).",
    ),
];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    pub query: Option<String>,
    pub queries: Option<Vec<String>>,
    pub mode: String,
    #[serde(default)]
    pub glob: Vec<String>,
    pub lang: Option<String>,
    pub scope: String,
    pub context: Option<usize>,
    pub recency: String,
    pub limit: usize,
    pub offset: usize,
    pub detail: bool,
    pub no_cache: bool,
}

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
    DETAIL,
];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct SearchSemanticArgs {
    pub query: String,
    #[serde(default)]
    pub glob: Vec<String>,
    pub threshold: Option<f64>,
    pub limit: usize,
    pub offset: usize,
    pub detail: bool,
}

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
    DETAIL,
];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct SimilarCodeArgs {
    pub code: Option<String>,
    pub path: Option<String>,
    pub line: Option<u32>,
    pub exclude_path: Option<String>,
    #[serde(default)]
    pub glob: Vec<String>,
    pub threshold: Option<f64>,
    pub limit: usize,
    pub offset: usize,
    pub detail: bool,
}

/// Most patterns one `search_keyword` call takes.
pub const MAX_PATTERNS: usize = 10;
/// Longest pattern `search_keyword` accepts.
const MAX_PATTERN_CHARS: usize = 2000;

const SEARCH_KEYWORD: &[Param] = &[
    Param::new(
        "pattern",
        Kind::Str { max_chars: MAX_PATTERN_CHARS },
        "Regex (Rust/ripgrep syntax), or literal text with fixed_strings. Give this or `patterns`.",
    ),
    Param::new(
        "patterns",
        Kind::StrList {
            max_items: MAX_PATTERNS,
            max_chars: MAX_PATTERN_CHARS,
        },
        "Several patterns (up to 10) instead of `pattern`: a line matches if any one does (rg -e P1 -e P2).",
    )
    .example("[\"TODO\", \"FIXME\"]"),
    Param::new(
        "fixed_strings",
        Kind::Bool { default: false },
        "Treat the patterns as literal text, not regexes.",
    ),
    Param::new(
        "case_insensitive",
        Kind::Bool { default: false },
        "Ignore letter case.",
    ),
    Param::new(
        "smart_case",
        Kind::Bool { default: false },
        "Ignore letter case unless a pattern has an uppercase letter (rg -S).",
    ),
    Param::new(
        "word",
        Kind::Bool { default: false },
        "Match whole words only.",
    ),
    Param::new(
        "invert_match",
        Kind::Bool { default: false },
        "Return the lines that do NOT match (rg -v); they have no column.",
    ),
    Param::new(
        "type",
        Kind::StrList {
            max_items: 20,
            max_chars: 50,
        },
        "Only files of these ripgrep file types (rg -t), e.g. [\"py\"], [\"rust\", \"toml\"]; names as `rg --type-list` gives them.",
    ),
    Param::new(
        "type_not",
        Kind::StrList {
            max_items: 20,
            max_chars: 50,
        },
        "No files of these ripgrep file types (rg -T), e.g. [\"js\"].",
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
        "hidden",
        Kind::Bool { default: false },
        "Search hidden files and directories (names starting with `.`) too.",
    ),
    Param::new(
        "no_ignore",
        Kind::Bool { default: false },
        "Search files excluded by .gitignore and other ignore files too.",
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
        "before_context",
        Kind::Int {
            min: 0,
            max: 10,
            default: None,
        },
        "Lines of context before each match (instead of `context`).",
    ),
    Param::new(
        "after_context",
        Kind::Int {
            min: 0,
            max: 10,
            default: None,
        },
        "Lines of context after each match (instead of `context`).",
    ),
    Param::new(
        "max_count",
        Kind::Int {
            min: 1,
            max: 500,
            default: None,
        },
        "Most matching lines per file (rg -m).",
    ),
    Param::new(
        "max_results",
        Kind::Int {
            min: 1,
            max: 500,
            default: Some(50),
        },
        "Most matching lines returned (the first by path, then line).",
    ),
];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct SearchKeywordArgs {
    pub pattern: Option<String>,
    pub patterns: Option<Vec<String>>,
    pub fixed_strings: bool,
    pub case_insensitive: bool,
    pub smart_case: bool,
    pub word: bool,
    pub invert_match: bool,
    #[serde(default, rename = "type")]
    pub file_type: Vec<String>,
    #[serde(default)]
    pub type_not: Vec<String>,
    #[serde(default)]
    pub glob: Vec<String>,
    pub hidden: bool,
    pub no_ignore: bool,
    pub context: usize,
    pub before_context: Option<usize>,
    pub after_context: Option<usize>,
    pub max_count: Option<u64>,
    pub max_results: usize,
}

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

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    pub path: String,
    pub start_line: Option<u64>,
    pub end_line: Option<u64>,
    pub r#match: Option<String>,
    pub context: u64,
}

const CONTEXT: &[Param] = &[
    Param::new(
        "path",
        Kind::Str { max_chars: 4096 },
        "File path relative to the project root, e.g. `src/lib.rs`.",
    )
    .required(),
    Param::new(
        "line",
        Kind::Int {
            min: 1,
            max: 100_000_000,
            default: None,
        },
        "The line (1-based) to show the context of.",
    )
    .required(),
    Param::new(
        "radius",
        Kind::Int {
            min: 0,
            max: crate::service::context::MAX_RADIUS as i64,
            default: Some(crate::service::context::DEFAULT_RADIUS as i64),
        },
        "Lines shown on each side of `line`.",
    ),
];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct ContextArgs {
    pub path: String,
    pub line: u32,
    pub radius: u32,
}

#[rustfmt::skip]
const HISTORY_PATH: Param = Param::new("path", Kind::Str { max_chars: 4096 }, "A committed file, relative to the project root, e.g. `src/lib.rs`.").required();

const FILE_HISTORY: &[Param] = &[
    HISTORY_PATH,
    Param::new(
        "start_line",
        Kind::Int {
            min: 1,
            max: 100_000_000,
            default: None,
        },
        "First line of a range (1-based): only commits that changed these lines.",
    ),
    Param::new(
        "end_line",
        Kind::Int {
            min: 1,
            max: 100_000_000,
            default: None,
        },
        "Last line of the range (inclusive).",
    ),
    Param::new(
        "since",
        Kind::Str { max_chars: 100 },
        "Only commits made on or after this date: `2024-05-01`, an ISO 8601 time, or `2 weeks ago`.",
    ),
    Param::new(
        "limit",
        Kind::Int {
            min: 1,
            max: 200,
            default: Some(20),
        },
        "Most commits listed.",
    ),
    Param::new(
        "detail",
        Kind::Bool { default: false },
        "The whole commit message instead of its first line.",
    ),
];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct FileHistoryArgs {
    pub path: String,
    pub start_line: Option<u64>,
    pub end_line: Option<u64>,
    pub since: Option<String>,
    pub limit: usize,
    pub detail: bool,
}

const BLAME: &[Param] = &[
    HISTORY_PATH,
    Param::new(
        "start_line",
        Kind::Int {
            min: 1,
            max: 100_000_000,
            default: None,
        },
        "First line (1-based); default 1.",
    ),
    Param::new(
        "end_line",
        Kind::Int {
            min: 1,
            max: 100_000_000,
            default: None,
        },
        "Last line (inclusive); at most 500 lines per call (without it: up to 500 from start_line).",
    ),
];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct BlameArgs {
    pub path: String,
    pub start_line: Option<u64>,
    pub end_line: Option<u64>,
}

const INDEX_STATUS: &[Param] = &[Param::new(
    "sizes",
    Kind::Bool { default: false },
    "Also the index's size per table (data and indexes) against the indexed source's size; reads every page of the index.",
)];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct IndexStatusArgs {
    #[serde(default)]
    pub sizes: bool,
}

const STATS: &[Param] = &[Param::new(
    "since",
    Kind::Str { max_chars: 20 },
    "Only operations of this recent span: `90s`, `30m`, `24h`, `7d`, `2w` (default: all the log keeps, the last ~20,000).",
)];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct StatsArgs {
    pub since: Option<String>,
}

const INDEX: &[Param] = &[
    Param::new(
        "mode",
        Kind::Enum {
            values: &["incremental", "full"],
            default: Some("incremental"),
        },
        "incremental (default): what changed since the last run; full: extract every file again (in place: searches meanwhile answer from a complete index).",
    ),
    Param::new(
        "paths",
        Kind::StrList {
            max_items: 100,
            max_chars: 1000,
        },
        "Incremental only: just these files or directories, relative to the root (deleted ones leave the index).",
    ),
];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct IndexArgs {
    pub mode: String,
    #[serde(default)]
    pub paths: Vec<String>,
}

const CONFIG: &[Param] = &[Param::new(
    "key",
    Kind::Str { max_chars: 100 },
    "One setting, e.g. `index.max_file_size` or `embed.provider` (default: all).",
)];

#[derive(Debug, Deserialize)]
#[cfg_attr(test, derive(serde::Serialize))]
#[serde(deny_unknown_fields)]
pub struct ConfigArgs {
    pub key: Option<String>,
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
    without_descriptions(&mut value, false);
    match value {
        Value::Object(mut o) => {
            o.remove("title");
            o
        }
        _ => JsonObject::new(),
    }
}

/// Drops the schemas' `description`s (the doc comments of the answer
/// types): they were half of `tools/list`'s 85 KB, which a client that
/// shows schemas to its model pays before the first question, and the
/// tools' descriptions and field names already say what comes back.
/// Under `properties` the keys are field names: a field named
/// `description` stays.
fn without_descriptions(v: &mut Value, names: bool) {
    match v {
        Value::Object(o) => {
            if !names && o.get("description").is_some_and(Value::is_string) {
                o.remove("description");
            }
            for (k, child) in o.iter_mut() {
                let holds_names = !names && matches!(k.as_str(), "properties" | "$defs");
                without_descriptions(child, holds_names);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|c| without_descriptions(c, false)),
        _ => {}
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

#[cfg(test)]
mod tests {
    use serde::Serialize;
    use serde::de::DeserializeOwned;

    use super::*;
    use crate::mcp::params::Args;

    #[test]
    fn languages_are_the_models() {
        use crate::model::Lang;
        let all: Vec<&str> = Lang::ALL.iter().map(|l| l.name()).collect();
        assert_eq!(LANGS_AND_DOCS, all.as_slice());
        let code: Vec<&str> = all.into_iter().filter(|&n| n != "docs").collect();
        assert_eq!(LANGS, code.as_slice());
        // Every value the tools accept parses as a filter, and only those.
        for name in DEF_LANGS.iter().chain(CHUNK_LANGS.iter()) {
            assert!(
                crate::search::LangFilter::parse(name, |_| true).is_ok(),
                "{name}"
            );
        }
        assert_eq!(DEF_LANGS.len() + 1, CHUNK_LANGS.len());
        assert!(DEF_LANGS.contains(&"clojure") && !DEF_LANGS.contains(&"docs"));
    }

    /// A valid value of `p`.
    fn sample(p: &Param) -> Value {
        match p.kind {
            Kind::Str { .. } => Value::String("x".into()),
            Kind::Bool { .. } => Value::Bool(true),
            Kind::Int { min, .. } => Value::from(min),
            Kind::Enum { values, .. } => Value::String(values[0].into()),
            Kind::StrList { .. } | Kind::Batch { .. } => serde_json::json!(["x"]),
            Kind::Number { min, .. } => Value::from(min),
        }
    }

    /// Every param of `tool` given, through validation into `T` and back:
    /// the struct's fields are exactly the declared param names.
    fn check<T: DeserializeOwned + Serialize>(tool: ToolName) {
        let raw: JsonObject = tool
            .params()
            .iter()
            .map(|p| (p.name.to_string(), sample(p)))
            .collect();
        let args = Args::parse(tool.params(), Some(&raw))
            .unwrap_or_else(|e| panic!("{}: {}", tool.name(), e.message));
        let typed: T = args
            .into_typed()
            .unwrap_or_else(|e| panic!("{}: {e}", tool.name()));
        let back = serde_json::to_value(&typed).expect("serialize");
        let mut fields: Vec<&str> = back
            .as_object()
            .map(|o| o.keys().map(String::as_str).collect())
            .unwrap_or_default();
        let mut params: Vec<&str> = tool.params().iter().map(|p| p.name).collect();
        fields.sort_unstable();
        params.sort_unstable();
        assert_eq!(fields, params, "{}", tool.name());
    }

    #[test]
    fn typed_args_match_the_declared_params() {
        for t in ToolName::ALL {
            match t {
                ToolName::FindSymbol => check::<FindSymbolArgs>(t),
                ToolName::FindReferences => check::<FindReferencesArgs>(t),
                ToolName::Callers | ToolName::Callees => check::<CallGraphArgs>(t),
                ToolName::ListDefsInFile => check::<ListDefsArgs>(t),
                ToolName::Imports => check::<ImportsArgs>(t),
                ToolName::Search => check::<SearchArgs>(t),
                ToolName::SearchSemantic => check::<SearchSemanticArgs>(t),
                ToolName::SimilarCode => check::<SimilarCodeArgs>(t),
                ToolName::SearchKeyword => check::<SearchKeywordArgs>(t),
                ToolName::ReadFile => check::<ReadFileArgs>(t),
                ToolName::Context => check::<ContextArgs>(t),
                ToolName::FileHistory => check::<FileHistoryArgs>(t),
                ToolName::Blame => check::<BlameArgs>(t),
                ToolName::IndexStatus => check::<IndexStatusArgs>(t),
                ToolName::Stats => check::<StatsArgs>(t),
                ToolName::Config => check::<ConfigArgs>(t),
                ToolName::Index => check::<IndexArgs>(t),
            }
        }
    }

    #[test]
    fn schemas_have_no_numeric_formats_or_nullable_types() {
        for t in ToolName::ALL {
            let tool = t.tool();
            let text = serde_json::to_string(&tool).expect("serialize");
            assert!(!text.contains("\"format\""), "{}: {text}", t.name());
            assert!(!text.contains("\"null\""), "{}: {text}", t.name());
            assert!(!text.contains("$ref"), "{}: {text}", t.name());
            // The answers' field docs stay out of `tools/list` (half its
            // size); the input schemas keep theirs.
            let output = serde_json::to_string(&tool.output_schema).expect("serialize");
            assert!(
                !output.contains("\"description\":\""),
                "{}: {output}",
                t.name()
            );
            let input = serde_json::to_string(&tool.input_schema).expect("serialize");
            assert!(
                input.contains("\"description\":\""),
                "{}: {input}",
                t.name()
            );
            // `index` writes the index; every other tool only reads.
            assert_eq!(
                tool.annotations.as_ref().and_then(|a| a.read_only_hint),
                Some(t != ToolName::Index)
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
}
