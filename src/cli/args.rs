//! Raw command-line arguments (clap). Resolved into requests in `commands`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "repo-search",
    version,
    about = "Local code search for one repository: keyword, symbol and full-text search, an MCP server for coding agents",
    after_help = "Exit status: 0 when something was found, 1 when nothing was found, 2 on error."
)]
pub struct Cli {
    /// More logging on stderr (-v info, -vv debug); see also REPO_SEARCH_LOG.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Args, Clone, Default)]
pub struct Common {
    /// Project root (default: $CLAUDE_PROJECT_DIR, else the nearest parent
    /// with `.repo_search/` or `.git`, else the working directory).
    #[arg(long, value_name = "DIR", global = true)]
    pub root: Option<PathBuf>,
    /// Print results as JSON.
    #[arg(long, global = true)]
    pub json: bool,
    /// Show secret values verbatim instead of `[redacted: <kind>]` (also
    /// REPO_SEARCH_NO_REDACT=1, or `redact = false` in
    /// $REPO_SEARCH_HOME/config.toml; a project's config cannot).
    #[arg(long, global = true)]
    pub no_redact: bool,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build or update the project's index (.repo_search/index.db).
    Index(IndexArgs),
    /// Regex or literal search over the files on disk (ripgrep's engine and rules).
    #[command(visible_alias = "grep")]
    Keyword(KeywordArgs),
    /// Find definitions by name (exact > case-insensitive > prefix > fuzzy).
    #[command(visible_alias = "sym")]
    Symbol(SymbolArgs),
    /// References of a name: `Class.method` gives those that resolve to it,
    /// then name-only candidates apart (definitions first, marked).
    Refs(RefsArgs),
    /// Who calls a function or method (`Class.method`): call sites with
    /// their enclosing symbol, resolved or name-only; `--depth` expands.
    Callers(GraphArgs),
    /// What a function or method calls, each call resolved to its
    /// definition where the index can tell; `--depth` expands.
    Callees(GraphArgs),
    /// The definitions of one file, nested, in source order.
    Outline(OutlineArgs),
    /// What a file imports (resolved to project files where possible) and
    /// which files import it.
    Imports(ImportsArgs),
    /// Print a slice of a file with line numbers.
    Read(ReadArgs),
    /// What surrounds a line (`PATH LINE` or `PATH:LINE`): the lines around
    /// it, its enclosing definition and signature, the file's other
    /// definitions, and the definition's callers and callees.
    Context(ContextArgs),
    /// Ranked search over code chunks: hybrid by default (full-text, symbols,
    /// embeddings and more, fused), or one arm with --mode.
    Search(SearchArgs),
    /// What the index holds and how fresh it is.
    Status(StatusArgs),
    /// How fast each operation has been (count, errors, P50/P95/P99, cache
    /// hits, from the CLI, the MCP server and the daemon together), with
    /// the index's size per table and vectors per model.
    Stats(StatsArgs),
    /// Shrink the index: drop the vectors of models no longer configured
    /// and of chunks gone, merge the full-text index, rewrite the file
    /// (VACUUM); prints the size before and after
    Compact(CompactArgs),
    /// The query cache of the project's MCP servers: `stats` (hit rate and
    /// time saved, from the operation log) or `clear` (every server empties
    /// its cache at its next lookup)
    Cache(CacheArgs),
    /// Remove the project's index (`.repo_search/`: index, vectors, logs)
    /// and its registry entry; asks first unless --yes
    Clean(CleanArgs),
    /// Show resolved settings and where each value came from.
    Config(ConfigArgs),
    /// Trust this project's own .repo_search/config.toml, as it is now, to
    /// set what can send code or credentials off this machine (an HTTP
    /// embedding provider, base_url, model, api_key_env, model directories
    /// outside the project). Editing the file revokes the trust.
    Trust(TrustArgs),
    /// Run the MCP server on stdin/stdout (started by Claude Code from `.mcp.json`).
    Mcp(McpArgs),
    /// Set a project up for Claude Code: `.mcp.json`, `.gitignore`, config, index.
    Init(InitArgs),
    /// Registered projects (every one `init` or `index` touched) and whether the daemon watches them.
    Projects(ProjectsArgs),
    /// Embedding models: download them once (`model fetch`), see what is cached (`model status`).
    Model(ModelArgs),
    /// Code similar to a snippet (`--code`) or to an indexed location (`PATH:LINE`).
    Similar(SimilarArgs),
    /// The commits that touched a file or a line range (`PATH:A-B`), newest
    /// first, from the repository's git data (renames followed).
    History(HistoryArgs),
    /// Which commit last changed each line (`PATH:A-B`), from the
    /// repository's git data: hash, author, date, summary.
    Blame(BlameArgs),
}

#[derive(Debug, Args)]
pub struct HistoryArgs {
    #[command(flatten)]
    pub common: Common,
    /// A committed file, optionally with a line range: `src/lib.rs` or `src/lib.rs:10-40`.
    #[arg(value_name = "PATH[:A-B]")]
    pub target: String,
    /// Only commits made on or after DATE (`2024-05-01`, ISO 8601, or `2 weeks ago`).
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Most commits listed (1 to 200).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=200))]
    pub limit: u64,
    /// The whole commit message, not just its first line.
    #[arg(long)]
    pub detail: bool,
}

#[derive(Debug, Args)]
pub struct BlameArgs {
    #[command(flatten)]
    pub common: Common,
    /// A committed file and a line range: `src/lib.rs:10-40` (the whole
    /// file, up to 500 lines, without one).
    #[arg(value_name = "PATH:A-B")]
    pub target: String,
}

#[derive(Debug, Args)]
pub struct ModelArgs {
    #[command(subcommand)]
    pub command: ModelCommand,
}

#[derive(Debug, Subcommand)]
pub enum ModelCommand {
    /// Download the embedding models into the cache ($REPO_SEARCH_HOME/models); idempotent.
    Fetch(ModelFetchArgs),
    /// Which models are configured, cached and used by the index.
    Status(ModelStatusArgs),
}

#[derive(Debug, Args)]
pub struct ModelFetchArgs {
    #[command(flatten)]
    pub common: Common,
    /// fast (static potion-base-8M, 30 MB), full (all-MiniLM-L6-v2, 90 MB) or all.
    #[arg(long, default_value = "all", value_parser = ["fast", "full", "all"])]
    pub tier: String,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct TrustArgs {
    #[command(flatten)]
    pub common: Common,
    /// Withdraw the trust: the config's keys that need it are ignored again.
    #[arg(long)]
    pub revoke: bool,
}

#[derive(Debug, Args)]
pub struct ModelStatusArgs {
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct SimilarArgs {
    #[command(flatten)]
    pub common: Common,
    /// `PATH:LINE` of an indexed file (the chunk holding that line is the query).
    #[arg(
        value_name = "PATH:LINE",
        required_unless_present = "code",
        conflicts_with = "code"
    )]
    pub location: Option<String>,
    /// A code snippet to find similar code to.
    #[arg(long, value_name = "CODE")]
    pub code: Option<String>,
    /// Leave out hits in this path.
    #[arg(long, value_name = "PATH")]
    pub exclude_path: Option<String>,
    /// Only paths matching these globs (`!GLOB` excludes); repeatable.
    #[arg(
        short = 'g',
        long = "glob",
        value_name = "GLOB",
        allow_hyphen_values = true
    )]
    pub glob: Vec<String>,
    /// At most N results.
    #[arg(short = 'n', long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub limit: u64,
    /// Skip the first N results (paging).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: u64,
    /// Drop hits below this cosine similarity (-1..1).
    #[arg(long, value_name = "SIM", value_parser = similarity)]
    pub threshold: Option<f32>,
    /// Lines of snippet per hit (text output shows the best 1 to 3 of them unless --detail).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u64).range(1..=200))]
    pub snippet_lines: u64,
    /// Text output: each hit's score, ranks per arm and whole snippet (by
    /// default one line per hit and its best 1 to 3 lines). --json is always in full.
    #[arg(long)]
    pub detail: bool,
}

#[derive(Debug, Args)]
pub struct IndexArgs {
    #[command(flatten)]
    pub common: Common,
    /// Only these files or directories (relative to the project root): what
    /// changed, was added or was deleted under them is brought up to date,
    /// the rest is left as it is. Needs an existing index.
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,
    /// Throw the index away and rebuild it from scratch (also repairs a corrupt index).
    #[arg(long)]
    pub full: bool,
    /// Skip computing embeddings (symbols and BM25 only).
    #[arg(long)]
    pub no_embed: bool,
    /// Embedding tiers to compute after indexing: fast (static model, seconds),
    /// full (the configured model; slow on large trees, resumable), all, or
    /// auto: fast, plus full when few chunks need it (otherwise the daemon
    /// computes them in the background).
    #[arg(long, value_name = "TIER", default_value = "auto", value_parser = ["auto", "fast", "full", "all"])]
    pub embed_tier: String,
    /// Do not download missing embedding models (semantic search stays off
    /// until `repo-search model fetch`); env REPO_SEARCH_OFFLINE, config
    /// `embed.offline`.
    #[arg(long)]
    pub offline: bool,
    /// Exit with an error instead of waiting when another process is writing the index.
    #[arg(long)]
    pub no_wait: bool,
    /// Index hidden files and directories too.
    #[arg(long)]
    pub hidden: bool,
    /// Do not respect .gitignore/.ignore/.rgignore files.
    #[arg(long)]
    pub no_ignore: bool,
    /// Respect .gitignore files even outside a git repository.
    #[arg(long)]
    pub no_require_git: bool,
    /// Skip files larger than this many bytes (default 2 MiB).
    #[arg(long, value_name = "BYTES")]
    pub max_file_size: Option<u64>,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct KeywordArgs {
    #[command(flatten)]
    pub common: Common,
    /// The regex to search for (use -e for patterns starting with `-`, or several).
    #[arg(value_name = "PATTERN", required_unless_present = "regexp")]
    pub pattern: Option<String>,
    /// Paths inside the project to search (default: the whole project).
    #[arg(value_name = "PATH")]
    pub paths: Vec<String>,
    /// A pattern to search for; repeat to search for any of several.
    #[arg(
        short = 'e',
        long = "regexp",
        value_name = "PATTERN",
        allow_hyphen_values = true
    )]
    pub regexp: Vec<String>,
    /// Treat patterns as literal strings, not regexes.
    #[arg(short = 'F', long)]
    pub fixed_strings: bool,
    /// Case-insensitive search.
    #[arg(short = 'i', long)]
    pub ignore_case: bool,
    /// Case-insensitive unless the pattern has an uppercase letter.
    #[arg(short = 'S', long)]
    pub smart_case: bool,
    /// Only match whole words (Unicode-aware, like rg).
    #[arg(short = 'w', long)]
    pub word_regexp: bool,
    /// Include or exclude (`!GLOB`) files; repeatable, rg semantics.
    #[arg(
        short = 'g',
        long = "glob",
        value_name = "GLOB",
        allow_hyphen_values = true
    )]
    pub glob: Vec<String>,
    /// Search hidden files and directories.
    #[arg(long, alias = "hidden")]
    pub hidden: bool,
    /// Do not respect ignore files.
    #[arg(long)]
    pub no_ignore: bool,
    /// Respect .gitignore outside git repositories too.
    #[arg(long)]
    pub no_require_git: bool,
    /// Lines of context after each match.
    #[arg(short = 'A', long, value_name = "N")]
    pub after_context: Option<usize>,
    /// Lines of context before each match.
    #[arg(short = 'B', long, value_name = "N")]
    pub before_context: Option<usize>,
    /// Lines of context before and after each match.
    #[arg(short = 'C', long, value_name = "N")]
    pub context: Option<usize>,
    /// At most N matching lines per file.
    #[arg(short = 'm', long, value_name = "N")]
    pub max_count: Option<u64>,
    /// The first N matching lines in all, in path then line order (the
    /// output says how many there are in all).
    #[arg(long, value_name = "N", value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=100_000_000))]
    pub max_results: Option<usize>,
    /// Read every file, without the index's trigram postings (the result
    /// is the same; for comparisons and benchmarks).
    #[arg(long)]
    pub no_index: bool,
    /// Line numbers: always shown (accepted as rg's `-n`).
    #[arg(short = 'n', long = "line-number")]
    pub line_number: bool,
    /// Columns: always shown (accepted as rg's `--column`).
    #[arg(long)]
    pub column: bool,
    /// Show the lines that do not match (`-v` after `keyword` means this,
    /// as in rg; `--verbose` still asks for logging).
    #[arg(long)]
    pub invert_match: bool,
    /// Print only the paths of files with a match.
    #[arg(short = 'l', long, conflicts_with_all = ["count", "json"])]
    pub files_with_matches: bool,
    /// Print `path:N`, the number of matching lines, per file with a match.
    #[arg(short = 'c', long, conflicts_with = "json")]
    pub count: bool,
    /// Only files of this ripgrep file type (`rg --type-list`: py, rust, js,
    /// ts, go, java, c, cpp, ...); repeatable.
    #[arg(short = 't', long = "type", value_name = "TYPE")]
    pub file_type: Vec<String>,
    /// No files of this ripgrep file type; repeatable.
    #[arg(short = 'T', long = "type-not", value_name = "TYPE")]
    pub type_not: Vec<String>,
}

#[derive(Debug, Args)]
pub struct SymbolArgs {
    #[command(flatten)]
    pub common: Common,
    /// The name to look up; may be qualified (`Config::parse`, `LoginView.post`).
    pub name: String,
    /// Only these kinds (function, method, class, struct, enum, interface, trait, module, constant, variable, type, macro, field, impl); repeatable.
    #[arg(short, long, value_name = "KIND")]
    pub kind: Vec<String>,
    /// Only this language (rust, python, javascript, typescript, tsx, go, java, c, cpp, ruby,
    /// csharp, kotlin, php, swift, scala, lua, bash, elixir, haskell, zig, objc, erlang, ocaml,
    /// julia, r, other; or one read by the line heuristic: perl, dart, nim, clojure, elisp, groovy, …).
    #[arg(short, long, value_name = "LANG")]
    pub lang: Option<String>,
    /// Exact name matches only.
    #[arg(long, conflicts_with_all = ["prefix", "fuzzy"])]
    pub exact: bool,
    /// Names starting with NAME (case-insensitive).
    #[arg(long, conflicts_with = "fuzzy")]
    pub prefix: bool,
    /// Fuzzy (subsequence) matches only.
    #[arg(long)]
    pub fuzzy: bool,
    /// At most N results.
    #[arg(short = 'n', long, default_value_t = 20, value_parser = clap::value_parser!(u64).range(1..=10000))]
    pub limit: u64,
    /// Skip the first N results (paging).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: u64,
}

#[derive(Debug, Args)]
pub struct RefsArgs {
    #[command(flatten)]
    pub common: Common,
    /// A name, optionally qualified: `send`, `Session.send`, `Kind::Foo`.
    pub name: String,
    /// Which hits: definitions, references or all.
    #[arg(long = "type", value_enum, default_value_t = RefTypeArg::All)]
    pub ref_type: RefTypeArg,
    #[arg(short = 'n', long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..=100000))]
    pub limit: u64,
    /// Skip the first N results (paging).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum RefTypeArg {
    Definitions,
    References,
    All,
}

#[derive(Debug, Args)]
pub struct GraphArgs {
    #[command(flatten)]
    pub common: Common,
    /// A function or method, optionally qualified: `send`, `Session.send`.
    pub name: String,
    /// Expand through resolved edges this many levels (1 = direct only).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=5))]
    pub depth: u32,
    #[arg(short = 'n', long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=10000))]
    pub limit: u64,
    /// Skip the first N edges (paging).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: u64,
}

#[derive(Debug, Args)]
pub struct OutlineArgs {
    #[command(flatten)]
    pub common: Common,
    /// A file inside the project.
    pub file: String,
}

#[derive(Debug, Args)]
pub struct ContextArgs {
    #[command(flatten)]
    pub common: Common,
    /// A file inside the project, or `PATH:LINE`.
    #[arg(value_name = "PATH")]
    pub target: String,
    /// The line (1-based), unless given as `PATH:LINE`.
    #[arg(value_name = "LINE")]
    pub line: Option<u32>,
    /// Lines shown on each side of LINE (0 to 100).
    #[arg(short = 'C', long, value_name = "N", default_value_t = 10, value_parser = clap::value_parser!(u32).range(0..=100))]
    pub radius: u32,
}

#[derive(Debug, Args)]
pub struct ImportsArgs {
    #[command(flatten)]
    pub common: Common,
    /// A file inside the project.
    pub file: String,
    /// Which side: what the file imports, which files import it, or both.
    #[arg(long, default_value = "both", value_parser = ["imports", "imported-by", "both"])]
    pub direction: String,
    /// At most N entries in each list.
    #[arg(short = 'n', long, default_value_t = 50, value_parser = clap::value_parser!(u64).range(1..=10000))]
    pub limit: u64,
    /// Skip the first N entries of each list (paging).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: u64,
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    #[command(flatten)]
    pub common: Common,
    /// A file inside the project.
    pub file: String,
    /// Line range `A:B` (1-based, inclusive; `A:` to the end, `:B` from the start).
    #[arg(long, value_name = "A:B")]
    pub lines: Option<String>,
    /// Show the first line containing TEXT (literal) with context.
    #[arg(long = "match", value_name = "TEXT")]
    pub find: Option<String>,
    /// Lines of context around --match (default 5).
    #[arg(short = 'C', long, value_name = "N")]
    pub context: Option<u64>,
}

#[derive(Debug, Args)]
pub struct SearchArgs {
    #[command(flatten)]
    pub common: Common,
    /// Words, identifiers or a question, e.g. "parse the config file".
    pub query: String,
    /// Ranking: hybrid (all arms fused), bm25 (full-text), semantic (embeddings;
    /// needs `repo-search model fetch`), symbol (definitions) or keyword (literal matches).
    #[arg(long, default_value = "hybrid", value_parser = ["hybrid", "bm25", "semantic", "symbol", "keyword"])]
    pub mode: String,
    /// Lines of context around each snippet; also lists the other definitions of each hit's file (implies --detail).
    #[arg(short = 'C', long, value_name = "N", value_parser = clap::value_parser!(u64).range(0..=50))]
    pub context: Option<u64>,
    /// Reciprocal-rank-fusion constant k (hybrid mode; default 60).
    #[arg(long, value_name = "K", hide = true)]
    pub rrf_k: Option<f64>,
    /// Semantic mode: drop hits below this cosine similarity (-1..1).
    #[arg(long, value_name = "SIM", value_parser = similarity)]
    pub threshold: Option<f32>,
    /// Prefer recently changed files (git history): auto (when the query asks
    /// about recent work, e.g. "what changed recently in …"), on, off.
    #[arg(long, default_value = "auto", value_parser = ["auto", "on", "off"])]
    pub recency: String,
    /// Compute the answer afresh, not from the query cache of a long-lived
    /// server (a one-shot command has none; accepted for the same flags on
    /// every surface)
    #[arg(long)]
    pub no_cache: bool,
    /// Only paths matching these globs (`!GLOB` excludes); repeatable.
    #[arg(
        short = 'g',
        long = "glob",
        value_name = "GLOB",
        allow_hyphen_values = true
    )]
    pub glob: Vec<String>,
    /// Only this language.
    #[arg(short, long, value_name = "LANG")]
    pub lang: Option<String>,
    /// code (no docs), docs (Markdown/RST/text only) or all.
    #[arg(long, default_value = "all")]
    pub scope: String,
    /// At most N results.
    #[arg(short = 'n', long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=1000))]
    pub limit: u64,
    /// Skip the first N results (paging).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub offset: u64,
    /// Lines of snippet per hit (text output shows the best 1 to 3 of them unless --detail).
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u64).range(1..=200))]
    pub snippet_lines: u64,
    /// Text output: each hit's score, ranks per arm and whole snippet (by
    /// default one line per hit and its best 1 to 3 lines). --json is always in full.
    #[arg(long)]
    pub detail: bool,
}

#[derive(Debug, Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub common: Common,
    /// Also the index's size per table (data and indexes) against the
    /// indexed source's size; reads every page of the index (seconds on a
    /// multi-GB index)
    #[arg(long)]
    pub sizes: bool,
}

#[derive(Debug, Args)]
pub struct StatsArgs {
    #[command(flatten)]
    pub common: Common,
    /// Only operations of the last SPAN: `90s`, `30m`, `24h`, `7d`, `2w`
    /// (default: all the log keeps, the last ~20,000)
    #[arg(long, value_name = "SPAN")]
    pub since: Option<String>,
}

#[derive(Debug, Args)]
pub struct CacheArgs {
    #[command(flatten)]
    pub common: Common,
    #[command(subcommand)]
    pub action: CacheAction,
}

#[derive(Debug, Subcommand)]
pub enum CacheAction {
    /// Lookups, hits and what a hit saves, per operation.
    Stats {
        /// Only the last SPAN: `90s`, `30m`, `24h`, `7d`
        #[arg(long, value_name = "SPAN")]
        since: Option<String>,
    },
    /// Empty the cache of every server of this project.
    Clear,
}

#[derive(Debug, Args)]
pub struct CompactArgs {
    #[command(flatten)]
    pub common: Common,
}

#[derive(Debug, Args)]
pub struct CleanArgs {
    #[command(flatten)]
    pub common: Common,
    /// Do not ask (needed when stdin is not a terminal)
    #[arg(long, short = 'y')]
    pub yes: bool,
}

#[derive(Debug, Args)]
pub struct ConfigArgs {
    #[command(flatten)]
    pub common: Common,
    /// Print every resolved setting with its source (the default).
    #[arg(long)]
    pub show: bool,
    #[command(subcommand)]
    pub action: Option<ConfigAction>,
}

#[derive(Debug, Subcommand)]
pub enum ConfigAction {
    /// A resolved setting (or all) with where it came from.
    Get {
        /// `index.max_file_size`, `embed.batch_size`, ... (all when omitted)
        key: Option<String>,
    },
    /// Set a key in the project's .repo_search/config.toml (or, with
    /// --user, the user's own config), checked and with the rest of the
    /// file (comments too) kept.
    Set {
        key: String,
        /// The value (a negative number too: checked with a hint).
        #[arg(allow_hyphen_values = true)]
        value: String,
        /// Edit `$REPO_SEARCH_HOME/config.toml` (every project) instead.
        #[arg(long)]
        user: bool,
    },
    /// Remove a key from the project's (or, with --user, the user's)
    /// config file, so the next layer (or the default) applies.
    Unset {
        key: String,
        #[arg(long)]
        user: bool,
    },
}

#[derive(Debug, Args)]
pub struct McpArgs {
    /// Project root (default: $CLAUDE_PROJECT_DIR, else the nearest parent
    /// with `.repo_search/` or `.git`, else the working directory).
    #[arg(long, value_name = "DIR")]
    pub root: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    #[command(flatten)]
    pub common: Common,
    /// Write the files but do not build the index now (the MCP server builds
    /// it in the background when first started).
    #[arg(long)]
    pub no_index: bool,
}

#[derive(Debug, Args)]
pub struct ProjectsArgs {
    #[command(flatten)]
    pub common: Common,
    /// Forget the projects whose root no longer exists (shown as
    /// `missing`), then list the rest
    #[arg(long)]
    pub prune: bool,
    #[command(subcommand)]
    pub action: Option<ProjectsAction>,
}

#[derive(Debug, Subcommand)]
pub enum ProjectsAction {
    /// List registered projects (the default).
    List,
    /// Forget a project (its `.repo_search/` index stays on disk).
    Remove {
        /// The project's root directory.
        path: PathBuf,
    },
    /// Have the daemon keep a project fresh (registers it if needed).
    Watch {
        /// The project's root directory.
        path: PathBuf,
    },
    /// Stop the daemon from watching a project (it stays registered).
    Unwatch {
        /// The project's root directory.
        path: PathBuf,
    },
}

/// A cosine similarity: a number from -1 to 1.
fn similarity(s: &str) -> Result<f32, String> {
    match s.trim().parse::<f32>() {
        Ok(v) if (-1.0..=1.0).contains(&v) => Ok(v),
        Ok(v) => Err(format!("{v} is not a cosine similarity (-1 to 1)")),
        Err(_) => Err(format!(
            "`{s}` is not a number (a cosine similarity, -1 to 1)"
        )),
    }
}
