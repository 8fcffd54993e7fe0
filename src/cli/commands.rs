//! Resolves parsed arguments into library requests and runs them.

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

use super::Found;
use super::args::*;
use super::render;
use crate::error::UserError;
use crate::index::{IndexOptions, IndexSummary, Phase, Progress};
use crate::search::keyword::{CaseMode, KeywordRequest, search_keyword};
use crate::search::read::{ReadRequest, read_file};
use crate::search::symbol::{MatchMode, SymbolQuery, find_references, find_symbols, outline};
use crate::search::{ChunkFilter, Scope, bm25};
use crate::settings::{Overrides, Settings, find_root};
use crate::store::Store;
use crate::walk::WalkOptions;

pub fn run(cli: Cli) -> Result<Found> {
    match cli.command {
        Command::Index(a) => cmd_index(a),
        Command::Keyword(a) => cmd_keyword(a),
        Command::Symbol(a) => cmd_symbol(a),
        Command::Refs(a) => cmd_refs(a),
        Command::Outline(a) => cmd_outline(a),
        Command::Read(a) => cmd_read(a),
        Command::Search(a) => cmd_search(a),
        Command::Status(a) => cmd_status(a),
        Command::Config(a) => cmd_config(a),
        Command::Mcp(a) => crate::mcp::run(a.root.as_deref()).map(|()| Found::Yes),
        Command::Init(a) => super::init::cmd_init(a),
        Command::Model(a) => super::embed::cmd_model(a),
        Command::Similar(a) => super::embed::cmd_similar(a, open_index),
        Command::Projects(a) => super::projects::cmd_projects(a),
    }
}

fn settings(common: &Common, over: &Overrides) -> Result<Settings> {
    let root = find_root(common.root.as_deref())?;
    Settings::resolve(root, over)
}

/// A progress bar on stderr when it is a terminal (and not hidden).
fn progress_bar(hidden: bool) -> ProgressBar {
    if hidden || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(0);
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} {msg:10} [{bar:30}] {pos}/{len} files ({per_sec}, eta {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    pb.enable_steady_tick(std::time::Duration::from_millis(120));
    pb
}

/// Builds or updates the index. When `repo-search-daemon` watches the
/// project it is the only writer, so the run is handed to it (and waited
/// for); otherwise this process writes, with a progress bar, and records
/// the project in the registry (a registry failure is only a warning).
pub(crate) fn run_index(
    settings: &Settings,
    opts: &IndexOptions,
    quiet: bool,
) -> Result<IndexSummary> {
    let home = crate::daemon_client::DaemonHome::from_env();
    match crate::daemon_client::request_index(&home, &settings.root, opts) {
        Ok(Some(summary)) => {
            if !quiet {
                eprintln!("indexed by repo-search-daemon, which watches this project");
            }
            if let Some(p) = settings
                .provenance
                .iter()
                .find(|p| p.source == "command line")
            {
                eprintln!(
                    "warning: the daemon indexes with the project's configuration, so `{}` from the command line was not applied",
                    p.key
                );
                eprintln!(
                    "hint: set it in `.repo_search/config.toml`, or `repo-search projects unwatch .` to index by hand"
                );
            }
            return Ok(summary);
        }
        Ok(None) => {}
        Err(e) => tracing::warn!(
            "repo-search-daemon could not index the project ({e:#}); indexing directly"
        ),
    }
    let summary = run_index_here(settings, opts, quiet)?;
    let counts = crate::registry::IndexCounts::from_summary(&settings.root, &summary);
    if let Err(e) =
        crate::registry::Registry::at(home.dir()).record_index(&settings.root, &counts, true)
    {
        tracing::warn!("could not record the project in the registry: {e:#}");
    }
    Ok(summary)
}

/// Runs an index build in this process with a progress bar.
fn run_index_here(settings: &Settings, opts: &IndexOptions, quiet: bool) -> Result<IndexSummary> {
    let pb = progress_bar(quiet);
    let update = |p: Progress| match p.phase {
        Phase::Walking => pb.set_message("walking"),
        Phase::Indexing => {
            pb.set_message("indexing");
            pb.set_length(p.total);
            pb.set_position(p.done);
        }
        Phase::Done => pb.set_position(p.total),
    };
    let result = crate::index::index_project(settings, opts, &update, |pid| {
        let who = pid.map(|p| format!(" (pid {p})")).unwrap_or_default();
        pb.suspend(|| {
            eprintln!("waiting for another repo-search process{who} to finish writing the index...")
        });
    });
    pb.finish_and_clear();
    result
}

fn cmd_index(a: IndexArgs) -> Result<Found> {
    let over = Overrides {
        max_file_size: a.max_file_size,
        hidden: a.hidden.then_some(true),
        no_ignore: a.no_ignore.then_some(true),
        no_require_git: a.no_require_git.then_some(true),
    };
    let s = settings(&a.common, &over)?;
    let opts = IndexOptions {
        full: a.full,
        no_wait: a.no_wait,
        only: Vec::new(),
    };
    let summary = run_index(&s, &opts, a.quiet || a.common.json)?;
    // Symbols and BM25 are committed: embeddings are a second phase.
    let embed = if a.no_embed {
        Vec::new()
    } else {
        super::embed::run_embed_phase(&s, &a.embed_tier, a.quiet || a.common.json)?
    };
    if a.common.json {
        render::json(&super::embed::IndexOutput {
            summary: &summary,
            embed,
        })?;
    } else {
        render::index_summary(&summary)?;
        render::embed_summaries(&embed)?;
    }
    Ok(Found::Yes)
}

/// Opens the index read-only, building it first if there is none yet.
fn open_index(s: &Settings) -> Result<Store> {
    if let Some(store) = Store::open_ro(&s.root)? {
        return Ok(store);
    }
    eprintln!(
        "no index yet in `{}`: building it now (`repo-search index` does this explicitly)",
        s.root.display()
    );
    let summary = run_index(s, &IndexOptions::default(), false)?;
    eprintln!("{}", render::summary_line(&summary));
    Store::open_ro(&s.root)?.ok_or_else(|| {
        UserError::new(format!(
            "the index of `{}` could not be opened after building it",
            s.root.display()
        ))
        .hint("run `repo-search index --full`")
        .into()
    })
}

fn cmd_keyword(a: KeywordArgs) -> Result<Found> {
    let s = settings(&a.common, &Overrides::default())?;
    let mut patterns = a.regexp.clone();
    let mut paths = a.paths.clone();
    match (&a.pattern, a.regexp.is_empty()) {
        (Some(p), true) => patterns.push(p.clone()),
        // With -e, the first positional argument is a path, like rg.
        (Some(p), false) => paths.insert(0, p.clone()),
        (None, _) => {}
    }
    let mut abs_paths: Vec<PathBuf> = Vec::new();
    for p in &paths {
        abs_paths.push(crate::paths::resolve_in_root(&s.root, p)?.abs);
    }
    let case = if a.ignore_case {
        CaseMode::Insensitive
    } else if a.smart_case {
        CaseMode::Smart
    } else {
        CaseMode::Sensitive
    };
    let req = KeywordRequest {
        patterns,
        fixed_strings: a.fixed_strings,
        case,
        word: a.word_regexp,
        before_context: a.before_context.or(a.context).unwrap_or(0),
        after_context: a.after_context.or(a.context).unwrap_or(0),
        max_count: a.max_count,
        max_results: a.max_results,
        walk: WalkOptions {
            hidden: a.hidden,
            no_ignore: a.no_ignore,
            require_git: !a.no_require_git,
            globs: a.glob.clone(),
            ..WalkOptions::default()
        },
        paths: abs_paths,
    };
    let result = search_keyword(&s.root, &req)?;
    if a.common.json {
        render::json(&result)?;
    } else {
        render::keyword(&result)?;
    }
    Ok(if result.matches.is_empty() {
        Found::No
    } else {
        Found::Yes
    })
}

fn cmd_symbol(a: SymbolArgs) -> Result<Found> {
    let s = settings(&a.common, &Overrides::default())?;
    let store = open_index(&s)?;
    let mode = if a.exact {
        MatchMode::Exact
    } else if a.prefix {
        MatchMode::Prefix
    } else if a.fuzzy {
        MatchMode::Fuzzy
    } else {
        MatchMode::Auto
    };
    let q = SymbolQuery {
        name: a.name.clone(),
        kinds: a.kind.clone(),
        lang: a.lang.clone(),
        mode,
        limit: a.limit as usize,
    };
    let result = find_symbols(&store, &q)?;
    if a.common.json {
        render::json(&result)?;
    } else {
        render::symbols(&result)?;
    }
    Ok(if result.hits.is_empty() {
        Found::No
    } else {
        Found::Yes
    })
}

fn cmd_refs(a: RefsArgs) -> Result<Found> {
    let s = settings(&a.common, &Overrides::default())?;
    let store = open_index(&s)?;
    let result = find_references(&store, &a.name, a.limit as usize)?;
    if a.common.json {
        render::json(&result)?;
    } else {
        render::refs(&result)?;
    }
    Ok(if result.hits.is_empty() {
        Found::No
    } else {
        Found::Yes
    })
}

fn cmd_outline(a: OutlineArgs) -> Result<Found> {
    let s = settings(&a.common, &Overrides::default())?;
    let p = crate::paths::resolve_in_root(&s.root, &a.file)?;
    let store = open_index(&s)?;
    let Some((skip, items)) = outline(&store, &p.rel)? else {
        return Err(UserError::new(format!("`{}` is not in the index", p.rel))
            .hint("only source files of supported languages are indexed; run `repo-search index` if the file is new")
            .into());
    };
    if let Some(reason) = &skip {
        eprintln!("note: `{}` was skipped by the indexer: {reason}", p.rel);
    }
    if a.common.json {
        render::json(&serde_json::json!({"path": p.rel, "skipped": skip, "symbols": items}))?;
    } else {
        render::outline(&items)?;
    }
    Ok(if items.is_empty() {
        Found::No
    } else {
        Found::Yes
    })
}

/// Parses `A:B`, `A:`, `:B` or `A`.
fn parse_range(r: &str) -> Result<(Option<u64>, Option<u64>)> {
    let bad = || -> anyhow::Error {
        UserError::new(format!("invalid line range `{r}`"))
            .hint("use A:B (e.g. 10:40), A: or :B, with 1-based line numbers")
            .into()
    };
    let num = |s: &str| -> Result<Option<u64>> {
        if s.trim().is_empty() {
            Ok(None)
        } else {
            s.trim().parse::<u64>().map(Some).map_err(|_| bad())
        }
    };
    match r.split_once([':', '-']) {
        Some((a, b)) => Ok((num(a)?, num(b)?)),
        None => {
            let n = num(r)?;
            Ok((n, n))
        }
    }
}

fn cmd_read(a: ReadArgs) -> Result<Found> {
    let s = settings(&a.common, &Overrides::default())?;
    let (start_line, end_line) = match &a.lines {
        Some(r) => parse_range(r)?,
        None => (None, None),
    };
    let req = ReadRequest {
        path: a.file.clone(),
        start_line,
        end_line,
        find: a.find.clone(),
        context: a.context,
        max_lines: u64::MAX,
    };
    let result = read_file(&s.root, &req)?;
    if a.common.json {
        render::json(&result)?;
    } else {
        render::read(&result)?;
    }
    Ok(if result.lines.is_empty() {
        Found::No
    } else {
        Found::Yes
    })
}

fn cmd_search(a: SearchArgs) -> Result<Found> {
    let s = settings(&a.common, &Overrides::default())?;
    if a.mode == "semantic" {
        let store = open_index(&s)?;
        return super::embed::cmd_search_semantic(&a, &s, &store);
    }
    if a.mode != "bm25" {
        return cmd_search_hybrid(&a, &s);
    }
    let scope = Scope::parse(&a.scope).ok_or_else(|| {
        UserError::new(format!("unknown scope `{}`", a.scope)).hint("use code, docs or all")
    })?;
    let filter = ChunkFilter::new(&a.glob, a.lang.as_deref(), scope)?;
    let store = open_index(&s)?;
    let hits = bm25::search_bm25(
        &store,
        &a.query,
        &filter,
        a.limit as usize,
        a.snippet_lines as usize,
    )?;
    if a.common.json {
        render::json(&serde_json::json!({"query": a.query, "mode": "bm25", "hits": hits}))?;
    } else {
        render::chunks(&hits)?;
    }
    Ok(if hits.is_empty() {
        Found::No
    } else {
        Found::Yes
    })
}

/// Hybrid search, or one of its arms alone (`--mode symbol|keyword`).
fn cmd_search_hybrid(a: &SearchArgs, s: &Settings) -> Result<Found> {
    use crate::search::hybrid::{Arm, Hybrid, HybridRequest, RRF_K};
    let scope = Scope::parse(&a.scope).ok_or_else(|| {
        UserError::new(format!("unknown scope `{}`", a.scope)).hint("use code, docs or all")
    })?;
    let filter = ChunkFilter::new(&a.glob, a.lang.as_deref(), scope)?;
    let store = open_index(s)?;
    let only = match a.mode.as_str() {
        "symbol" => vec![Arm::Symbol],
        "keyword" => vec![Arm::Keyword],
        _ => Vec::new(),
    };
    let semantic = if only.is_empty() {
        let (embed, _) = crate::settings::resolve_embed(&s.root)?;
        Some(crate::search::semantic::SemanticSearcher::new(embed))
    } else {
        None
    };
    let req = HybridRequest {
        query: a.query.clone(),
        filter,
        scope,
        limit: a.limit as usize,
        snippet_lines: a.snippet_lines as usize,
        context: a.context.unwrap_or(0) as usize,
        with_file_symbols: a.context.is_some(),
        only,
        k: a.rrf_k.unwrap_or(RRF_K),
    };
    let result = Hybrid::new(semantic).search(&store, &s.root, &req)?;
    if a.common.json {
        render::json(&serde_json::json!({"mode": a.mode, "result": result}))?;
    } else {
        render::hybrid(&result)?;
    }
    Ok(if result.hits.is_empty() {
        Found::No
    } else {
        Found::Yes
    })
}

fn cmd_status(a: StatusArgs) -> Result<Found> {
    let s = settings(&a.common, &Overrides::default())?;
    let st = crate::status::index_status(&s, true)?;
    if a.common.json {
        render::json(&st)?;
    } else {
        render::status(&st)?;
    }
    Ok(if st.exists { Found::Yes } else { Found::No })
}

fn cmd_config(a: ConfigArgs) -> Result<Found> {
    let s = settings(&a.common, &Overrides::default())?;
    if a.common.json {
        render::json(&serde_json::json!({"root": s.root, "settings": s.provenance}))?;
    } else {
        render::config(&s)?;
    }
    Ok(Found::Yes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_ranges() {
        assert_eq!(parse_range("10:40").ok(), Some((Some(10), Some(40))));
        assert_eq!(parse_range("10:").ok(), Some((Some(10), None)));
        assert_eq!(parse_range(":5").ok(), Some((None, Some(5))));
        assert_eq!(parse_range("7").ok(), Some((Some(7), Some(7))));
        assert!(parse_range("a:b").is_err());
    }
}
