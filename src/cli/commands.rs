//! Resolves parsed arguments into service requests, runs them, and hands
//! the typed answers to `render`. Decides nothing a search decides: that
//! is `crate::service`, which the MCP server and the eval runner call too.

use anyhow::Result;

use super::Found;
use super::args::*;
use super::project::{embed_here, overrides, run_index, service};
use super::render;
use crate::error::{ErrorCode, UserError};
use crate::history::{BlameRequest, HistoryRequest};
use crate::index::IndexOptions;
use crate::search::graph::Direction;
use crate::search::keyword::{CaseMode, KeywordRequest, Viewed, Views};
use crate::search::read::ReadRequest;
use crate::search::semantic::SimilarTo;
use crate::search::symbol::{MatchMode, RefType, SymbolQuery};
use crate::service::search::parse_scope;
use crate::service::{
    ContextRequest, GraphRequest, Mode, OnBadConfig, OutlineRequest, Policy, Recency,
    ReferencesRequest, SearchRequest, Service, SimilarRequestSpec, SymbolsRequest,
};
use crate::settings::Overrides;
use crate::walk::WalkOptions;

pub fn run(cli: Cli) -> Result<Found> {
    match cli.command {
        Command::Index(a) => cmd_index(a),
        Command::Keyword(a) => cmd_keyword(a),
        Command::Symbol(a) => cmd_symbol(a),
        Command::Refs(a) => cmd_refs(a),
        Command::Callers(a) => cmd_graph(a, Direction::Callers),
        Command::Callees(a) => cmd_graph(a, Direction::Callees),
        Command::Outline(a) => cmd_outline(a),
        Command::Read(a) => cmd_read(a),
        Command::Context(a) => cmd_context(a),
        Command::Search(a) => cmd_search(a),
        Command::Status(a) => cmd_status(a),
        Command::Stats(a) => cmd_stats(a),
        Command::Compact(a) => cmd_compact(a),
        Command::Cache(a) => cmd_cache(a),
        Command::Clean(a) => cmd_clean(a),
        Command::Config(a) => cmd_config(a),
        Command::Trust(a) => cmd_trust(a),
        Command::Mcp(a) => crate::mcp::run(a.root.as_deref()).map(|()| Found::Yes),
        Command::Init(a) => super::init::cmd_init(a),
        Command::Model(a) => super::embed::cmd_model(a),
        Command::Similar(a) => cmd_similar(a),
        Command::Projects(a) => super::projects::cmd_projects(a),
        Command::History(a) => cmd_history(a),
        Command::Imports(a) => cmd_imports(a),
        Command::Blame(a) => cmd_blame(a),
    }
}

/// A file path as typed in a shell: relative to the working directory
/// when that is a subdirectory of the project and the file is there (as
/// `rg` and `git` take it), else as given (relative to the project root,
/// as the MCP tools take it; or absolute).
fn from_cwd(root: &std::path::Path, path: &str) -> String {
    let typed = std::path::Path::new(path);
    if typed.is_absolute() {
        return path.to_string();
    }
    let Some(cwd) = std::env::current_dir()
        .ok()
        .and_then(|d| d.canonicalize().ok())
    else {
        return path.to_string();
    };
    if cwd == root || !cwd.starts_with(root) {
        return path.to_string();
    }
    let joined = cwd.join(typed);
    match joined.to_str() {
        Some(s) if joined.exists() => s.to_string(),
        _ => path.to_string(),
    }
}

/// `PATH[:A-B]`: the path and, when the part after the last `:` is a line
/// range (`A-B`, `A:B`, `A`), that range.
fn split_target(t: &str) -> Result<(String, Option<u64>, Option<u64>)> {
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    // `PATH:A:B`, the range written as `read --lines` takes it.
    let split = match t.rsplit_once(':') {
        Some((head, b)) if digits(b) => match head.rsplit_once(':') {
            Some((path, a)) if digits(a) && !path.is_empty() => Some((path, format!("{a}-{b}"))),
            _ => Some((head, b.to_string())),
        },
        Some((path, range)) => Some((path, range.to_string())),
        None => None,
    };
    if let Some((path, range)) = split
        && !path.is_empty()
        && !range.is_empty()
        && range.chars().all(|c| c.is_ascii_digit() || c == '-')
    {
        let bad = || -> anyhow::Error {
            UserError::new(format!("invalid line range `{range}`"))
                .hint("use PATH:A-B (e.g. src/lib.rs:10-40) with 1-based line numbers")
                .into()
        };
        let (a, b) = parse_range(&range).map_err(|_| bad())?;
        if a.is_none() || b.is_none() {
            return Err(bad());
        }
        return Ok((path.to_string(), a, b));
    }
    Ok((t.to_string(), None, None))
}

fn cmd_history(a: HistoryArgs) -> Result<Found> {
    let svc = service_as_is(&a.common)?.recording(crate::stats::Surface::Cli);
    let (path, start_line, end_line) = split_target(&a.target)?;
    let path = from_cwd(svc.root(), &path);
    let req = HistoryRequest {
        path,
        start_line,
        end_line,
        since: a.since.clone(),
        limit: a.limit as usize,
        detail: a.detail,
    };
    let r = svc.history(&req)?;
    if a.common.json {
        render::json(&r)?;
    } else {
        render::history(&r, a.detail)?;
        render::redacted_note(r.redacted)?;
        if r.commits.is_empty() {
            let since = a
                .since
                .as_deref()
                .map(|s| format!(" since {s}"))
                .unwrap_or_default();
            eprintln!("no commit changed `{}`{since}", a.target);
        }
    }
    Ok(found(!r.commits.is_empty()))
}

fn cmd_blame(a: BlameArgs) -> Result<Found> {
    let svc = service_as_is(&a.common)?.recording(crate::stats::Surface::Cli);
    let (path, start_line, end_line) = split_target(&a.target)?;
    let path = from_cwd(svc.root(), &path);
    let req = BlameRequest {
        path,
        start_line,
        end_line,
    };
    let r = svc.blame(&req)?;
    if a.common.json {
        render::json(&r)?;
    } else {
        render::blame(&r)?;
        render::redacted_note(r.redacted)?;
    }
    Ok(found(!r.lines.is_empty()))
}

fn cmd_index(a: IndexArgs) -> Result<Found> {
    let over = Overrides {
        max_file_size: a.max_file_size,
        hidden: a.hidden.then_some(true),
        no_ignore: a.no_ignore.then_some(true),
        no_require_git: a.no_require_git.then_some(true),
        redact: None,
    };
    let quiet = a.quiet || a.common.json;
    let svc = service(&a.common, &over, quiet)?;
    let only = svc.index_paths(a.full, &a.paths)?;
    let opts = IndexOptions {
        full: a.full,
        in_place: false,
        no_wait: a.no_wait,
        only,
    };
    let (summary, by_daemon) = run_index(&svc, &opts, quiet)?;
    // The file pass's line as soon as it is done, before the embedding
    // phase's progress (it had come after it).
    if !a.common.json {
        render::index_summary(&summary)?;
    }
    // Symbols and BM25 are committed: embeddings are a second phase.
    let embed = if a.no_embed {
        Vec::new()
    } else {
        // A missing model is fetched first (unless offline), so the first
        // `index` ends with semantic search working (the daemon's too: it
        // never downloads).
        super::embed::fetch_missing_models(&svc, &a.embed_tier, a.offline, quiet)?;
        if embed_here(by_daemon, &summary, quiet) {
            super::embed::run_embed_phase(&svc, &a.embed_tier, quiet)?
        } else {
            Vec::new()
        }
    };
    if a.common.json {
        render::json(&super::embed::IndexOutput {
            summary: &summary,
            embed,
        })?;
    } else {
        render::embed_summaries(&embed)?;
    }
    Ok(Found::Yes)
}

fn found(any: bool) -> Found {
    if any { Found::Yes } else { Found::No }
}

fn cmd_keyword(a: KeywordArgs) -> Result<Found> {
    let svc = service(&a.common, &Overrides::default(), false)?;
    let mut patterns = a.regexp.clone();
    let mut paths = a.paths.clone();
    match (&a.pattern, a.regexp.is_empty()) {
        (Some(p), true) => patterns.push(p.clone()),
        // With -e, the first positional argument is a path, like rg.
        (Some(p), false) => paths.insert(0, p.clone()),
        (None, _) => {}
    }
    let case = if a.ignore_case {
        CaseMode::Insensitive
    } else if a.smart_case {
        CaseMode::Smart
    } else {
        CaseMode::Sensitive
    };
    let mut req = KeywordRequest {
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
            types: a.file_type.clone(),
            types_not: a.type_not.clone(),
            ..WalkOptions::default()
        },
        paths: Vec::new(),
        no_index: a.no_index,
        // The text shows each line's column, not its other matches.
        first_match_only: !a.common.json,
        invert_match: a.invert_match,
    };
    if a.files_with_matches || a.count {
        // Paths or counts only: no context lines; a path needs one match.
        req.before_context = 0;
        req.after_context = 0;
        if a.files_with_matches {
            req.max_count = Some(1);
        }
    }
    let json = a.common.json;
    let context = req.before_context > 0 || req.after_context > 0;
    let text = |path: &str, matches| render::keyword_file(path, matches, context);
    let per_file = |path: &str, matches: Vec<crate::search::keyword::KeywordMatch>| {
        render::keyword_file_summary(path, matches.len(), a.count)
    };
    let views = if json {
        Views::file(&render::keyword_json_file)
    } else if a.files_with_matches || a.count {
        Views::file(&per_file)
    } else {
        Views {
            file: &text,
            lines: Some(&render::KeywordLines),
        }
    };
    // Paths as typed in a shell, like every other command's.
    let paths: Vec<String> = paths.iter().map(|p| from_cwd(svc.root(), p)).collect();
    let mut writer = render::KeywordWriter::new(json);
    let each = &mut |_: String, viewed: Viewed| Ok(writer.file(&viewed)?);
    let result = match svc.keyword_each(&req, &paths, views, each) {
        Ok(r) => r,
        Err(e) if render::is_closed_pipe(&e) => return Ok(found(true)),
        Err(e) => return Err(e),
    };
    let shown = writer.finish(&result)?;
    if !json {
        render::redacted_note(result.redacted)?;
    }
    let matched = shown > 0 || !result.binary_matched.is_empty();
    if !matched && result.files_searched == 0 {
        // As rg: a filter that leaves nothing to search is an error (exit
        // 2), not "no match".
        return Err(UserError::with_code(
            ErrorCode::NotFound,
            "no files were searched: the globs, file types or ignore rules left nothing to search",
        )
        .hint("check the -g globs; --hidden includes dot files and --no-ignore ignored ones")
        .into());
    }
    Ok(found(matched))
}

fn cmd_symbol(a: SymbolArgs) -> Result<Found> {
    let svc = service(&a.common, &Overrides::default(), false)?;
    let mode = if a.exact {
        MatchMode::Exact
    } else if a.prefix {
        MatchMode::Prefix
    } else if a.fuzzy {
        MatchMode::Fuzzy
    } else {
        MatchMode::Auto
    };
    let req = SymbolsRequest {
        query: SymbolQuery {
            name: a.name.clone(),
            kinds: a.kind.clone(),
            lang: a.lang.clone(),
            mode,
            limit: a.limit as usize,
        },
        offset: a.offset as usize,
    };
    let result = svc.require(svc.symbols(&req)?)?;
    // Names spelled like it stand in for one that is defined nowhere ("did
    // you mean"): shown, but nothing was found unless fuzzy was asked for.
    let spelled_like = result.only_spelled_like(mode);
    if a.common.json {
        render::json(&result)?;
    } else {
        render::symbols(&result, a.offset as usize)?;
        render::redacted_note(result.redacted)?;
    }
    // On stderr in either format: `--json` had left a script only an
    // empty list and exit 1, without the reason or what to try.
    if result.total == 0 {
        render::no_symbol_note(&a.name)?;
    } else if spelled_like {
        render::spelled_like_note(&a.name, result.look_alike().0)?;
    }
    if let Some(q) = &result.unplaced_qualifier {
        render::unplaced_qualifier_note(&a.name, q)?;
    }
    if let Some(h) = result.hits.first() {
        // Spelled as asked: the first hit may match it only case-blind.
        let asked = crate::search::split_qualified(&a.name).1;
        render::prefix_left_out_note(&asked, result.prefix_left_out)?;
        render::trait_impls_note(&h.name, &result.trait_impls_left_out)?;
    }
    render::note(
        crate::search::symbol::assoc_types_summary(result.assoc_types_left_out)
            .map(|s| format!("{s}: --kind type lists them")),
    )?;
    render::note(
        result
            .build_output_left_out
            .summary()
            .map(|s| format!("{s}: --exact lists them")),
    )?;
    let (all_gone, gone_files) = note_changed_and_gone(
        &svc,
        result.hits.iter().map(|h| h.path.as_str()),
        result
            .hits
            .iter()
            .map(|h| (h.path.as_str(), h.name.as_str(), h.line)),
    )?;
    if result.total == 0 || spelled_like || all_gone {
        note_stale_beyond(&svc, &gone_files)?;
    }
    Ok(found(!result.hits.is_empty() && !spelled_like && !all_gone))
}

fn cmd_refs(a: RefsArgs) -> Result<Found> {
    let svc = service(&a.common, &Overrides::default(), false)?;
    let req = ReferencesRequest {
        name: a.name.clone(),
        want: match a.ref_type {
            RefTypeArg::Definitions => RefType::Definitions,
            RefTypeArg::References => RefType::References,
            RefTypeArg::All => RefType::All,
        },
        limit: a.limit as usize,
        offset: a.offset as usize,
    };
    let result = match svc.references(&req).and_then(|r| svc.require(r)) {
        Ok(r) => r,
        Err(e) => {
            let empty = || crate::search::symbol::RefResult {
                name: req.name.clone(),
                definitions: 0,
                references: 0,
                name_only: 0,
                hits: Vec::new(),
                total: 0,
                truncated: false,
                redacted: 0,
                build_output_left_out: Default::default(),
            };
            return nothing_named(&svc, e, a.common.json, empty);
        }
    };
    if a.common.json {
        render::json(&result)?;
    } else {
        render::refs(&result, a.offset as usize)?;
        render::redacted_note(result.redacted)?;
    }
    if result.definitions == 0 && result.total == 0 {
        report_nothing_named(&svc, &crate::search::graph::unknown_name(&req.name))?;
    }
    render::note(result.build_output_left_out.explained())?;
    note_changed(&svc, result.hits.iter().map(|h| h.path.as_str()))?;
    Ok(found(!result.hits.is_empty()))
}

/// `refs`, `callers` and `callees` of a name no definition has (a
/// NOT_FOUND error from the lookup): nothing found, exit 1, as `symbol`
/// answers it, with the reason and its hint on stderr and, with `--json`,
/// the empty answer on stdout. Any other error stays one (exit 2).
fn nothing_named<T: serde::Serialize>(
    svc: &Service,
    err: anyhow::Error,
    json: bool,
    empty: impl FnOnce() -> T,
) -> Result<Found> {
    if !crate::error::has_code(&err, ErrorCode::NotFound) {
        return Err(err);
    }
    if json {
        render::json(&empty())?;
    }
    report_nothing_named(svc, &err)?;
    Ok(Found::No)
}

/// On stderr: why nothing was found for a name, its hint, and the files
/// the index has not seen yet.
fn report_nothing_named(svc: &Service, err: &anyhow::Error) -> Result<()> {
    eprintln!("{err}");
    if let Some(h) = crate::error::find_user_error(err).and_then(|u| u.hint.as_deref()) {
        eprintln!("hint: {h}");
    }
    note_stale_when_empty(svc)
}

fn cmd_graph(a: GraphArgs, direction: Direction) -> Result<Found> {
    let svc = service(&a.common, &Overrides::default(), false)?;
    let req = GraphRequest {
        name: a.name.clone(),
        direction,
        depth: a.depth,
        offset: usize::try_from(a.offset).unwrap_or(usize::MAX),
        limit: a.limit as usize,
    };
    let result = match svc.call_graph(&req).and_then(|r| svc.require(r)) {
        Ok(r) => r,
        Err(e) => {
            let empty = || crate::search::graph::GraphResult {
                name: req.name.clone(),
                direction,
                depth: req.depth,
                targets: Vec::new(),
                edges: Vec::new(),
                total: 0,
                resolved: 0,
                via_base: 0,
                name_only: 0,
                truncated: false,
                redacted: 0,
                build_output_left_out: Default::default(),
            };
            return nothing_named(&svc, e, a.common.json, empty);
        }
    };
    if a.common.json {
        render::json(&result)?;
    } else {
        render::call_graph(&result, req.offset)?;
        render::redacted_note(result.redacted)?;
    }
    render::note(result.build_output_left_out.explained())?;
    // The definitions asked about are shown too: a rename in the
    // target's own file had left `callers pop_context` with no note.
    let (all_gone, _) = note_changed_and_gone(
        &svc,
        result
            .edges
            .iter()
            .map(|e| e.path.as_str())
            .chain(result.targets.iter().map(|t| t.path.as_str())),
        result
            .targets
            .iter()
            .map(|t| (t.path.as_str(), t.symbol.as_str(), t.line)),
    )?;
    Ok(found(!result.edges.is_empty() && !all_gone))
}

fn cmd_outline(a: OutlineArgs) -> Result<Found> {
    let svc = service(&a.common, &Overrides::default(), false)?;
    let o = svc.require(svc.outline(&OutlineRequest {
        path: from_cwd(svc.root(), &a.file),
    })?)?;
    if let Some(reason) = &o.skipped {
        eprintln!("note: `{}` was skipped by the indexer: {reason}", o.path);
    }
    if a.common.json {
        render::json(
            &serde_json::json!({"path": o.path, "skipped": o.skipped, "symbols": o.items, "redacted": o.redacted}),
        )?;
    } else {
        render::outline(&o.items)?;
        render::redacted_note(o.redacted)?;
        if o.items.is_empty() && o.skipped.is_none() {
            // As MCP says it: nothing to list is no error, but say so.
            eprintln!(
                "no definitions found in `{}`: read it with `repo-search read {}`",
                o.path, o.path
            );
        }
    }
    note_changed(&svc, [o.path.as_str()])?;
    Ok(found(!o.items.is_empty()))
}

/// On stderr, when files an answer shows changed on disk since they were
/// indexed ([`Service::changed_files`]): their lines may have moved.
fn note_changed<'a>(
    svc: &Service,
    paths: impl IntoIterator<Item = &'a str>,
) -> Result<Vec<String>> {
    let paths: Vec<&str> = paths.into_iter().collect();
    let changed = svc.changed_files(&paths)?;
    render::changed_hits_note(svc.root(), &changed)?;
    Ok(changed)
}

/// On stderr: the files among `paths` changed since they were indexed,
/// and the definitions among `defs` an edit took away (a rename: the
/// changed file no longer holds the name). A file whose shown definitions
/// are gone is named by that note alone (a rename had printed three notes
/// about one file). Returns whether every definition is gone, so nothing
/// was found (`secure_filename` after its rename had exited 0 with its
/// old place), and the files of the gone ones. Each changed file is read
/// once.
fn note_changed_and_gone<'a>(
    svc: &Service,
    paths: impl IntoIterator<Item = &'a str>,
    defs: impl IntoIterator<Item = (&'a str, &'a str, u32)>,
) -> Result<(bool, Vec<String>)> {
    let paths: Vec<&str> = paths.into_iter().collect();
    let changed = svc.changed_files(&paths)?;
    let texts: std::collections::HashMap<&str, String> = changed
        .iter()
        .filter_map(|p| {
            let bytes = std::fs::read(svc.root().join(p)).ok()?;
            Some((p.as_str(), String::from_utf8_lossy(&bytes).into_owned()))
        })
        .collect();
    let mut shown = 0;
    let mut gone: Vec<String> = Vec::new();
    let mut gone_files: Vec<String> = Vec::new();
    for (path, name, line) in defs {
        shown += 1;
        // The name's last part is what the file spells (`Context.invoke`).
        let bare = name.rsplit(['.', ':', '#']).next().unwrap_or(name);
        if texts
            .get(path)
            .is_some_and(|text| !crate::text::holds_identifier(text, bare))
        {
            gone.push(format!("{path}:{line}"));
            if !gone_files.iter().any(|f| f == path) {
                gone_files.push(path.to_string());
            }
        }
    }
    let rest: Vec<String> = changed
        .into_iter()
        .filter(|p| !gone_files.contains(p))
        .collect();
    render::changed_hits_note(svc.root(), &rest)?;
    if !gone.is_empty() {
        render::gone_definitions_note(&gone)?;
    }
    Ok((shown > 0 && gone.len() == shown, gone_files))
}

/// On stderr, when an answer found nothing and files changed since the
/// last index run: what it asked for may be in one of them.
fn note_stale_when_empty(svc: &Service) -> Result<()> {
    note_stale_beyond(svc, &[])
}

/// [`note_stale_when_empty`], unless the changed files are only `told`,
/// which a note has named already.
fn note_stale_beyond(svc: &Service, told: &[String]) -> Result<()> {
    if let Some(s) = svc.staleness()?.filter(|s| s.stale_files > 0) {
        let only_told =
            s.stale_files as usize <= told.len() && s.examples.iter().all(|e| told.contains(e));
        if !only_told {
            render::stale_index_note(s.stale_files, &s.examples)?;
        }
    }
    Ok(())
}

/// `PATH LINE` or `PATH:LINE`.
fn context_target(target: &str, line: Option<u32>) -> Result<(String, u32)> {
    if let Some(line) = line {
        return Ok((target.to_string(), line));
    }
    target
        .rsplit_once(':')
        .and_then(|(p, l)| Some((p.to_string(), l.trim().parse::<u32>().ok()?)))
        .filter(|(p, _)| !p.is_empty())
        .ok_or_else(|| {
            UserError::new(format!("no line given: `{target}`"))
                .hint("give PATH LINE or PATH:LINE, e.g. `repo-search context src/lib.rs 42`")
                .into()
        })
}

fn cmd_context(a: ContextArgs) -> Result<Found> {
    let svc = service(&a.common, &Overrides::default(), false)?;
    let (path, line) = context_target(&a.target, a.line)?;
    let c = svc.require(svc.context(&ContextRequest {
        path: from_cwd(svc.root(), &path),
        line,
        radius: a.radius,
    })?)?;
    if let Some(reason) = &c.skipped {
        eprintln!("note: `{}` was skipped by the indexer: {reason}", c.path);
    }
    if a.common.json {
        render::json(&c)?;
    } else {
        render::context(&c)?;
        render::redacted_note(c.redacted)?;
    }
    note_changed(&svc, [c.path.as_str()])?;
    Ok(Found::Yes)
}

fn cmd_imports(a: ImportsArgs) -> Result<Found> {
    let svc = service(&a.common, &Overrides::default(), false)?;
    let direction = crate::service::ImportDirection::parse(&a.direction).ok_or_else(|| {
        UserError::new(format!("unknown direction `{}`", a.direction))
            .hint("use --direction imports, imported-by or both")
    })?;
    let r = svc.require(svc.imports(&crate::service::ImportsRequest {
        path: from_cwd(svc.root(), &a.file),
        direction,
        limit: a.limit as usize,
        offset: a.offset as usize,
    })?)?;
    if let Some(reason) = &r.skipped {
        eprintln!("note: `{}` was skipped by the indexer: {reason}", r.path);
    }
    if let Some(note) = &r.note {
        eprintln!("note: {note}");
    }
    if a.common.json {
        render::json(&r)?;
    } else {
        render::imports(&r)?;
        render::redacted_note(r.redacted)?;
    }
    Ok(found(!r.imports.is_empty() || !r.imported_by.is_empty()))
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
            // Line numbers start at 1.
            match s.trim().parse::<u64>() {
                Ok(0) | Err(_) => Err(bad()),
                Ok(n) => Ok(Some(n)),
            }
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
    let svc = service(&a.common, &Overrides::default(), false)?;
    let (start_line, end_line) = match &a.lines {
        Some(r) => parse_range(r)?,
        None => (None, None),
    };
    let req = ReadRequest {
        path: from_cwd(svc.root(), &a.file),
        start_line,
        end_line,
        find: a.find.clone(),
        context: a.context,
        max_lines: u64::MAX,
    };
    let result = svc.read(&req)?;
    if a.common.json {
        render::json(&result)?;
    } else {
        render::read(&result)?;
        render::redacted_note(result.redacted)?;
        if result.long_lines_cut > 0 {
            eprintln!(
                "note: {} line(s) longer than {} characters shown cut (…), around the match where they hold it",
                result.long_lines_cut,
                crate::search::read::MAX_LINE_CHARS
            );
        }
    }
    Ok(found(!result.lines.is_empty()))
}

fn cmd_search(a: SearchArgs) -> Result<Found> {
    let svc = service(&a.common, &Overrides::default(), false)?;
    let req = SearchRequest {
        query: a.query.clone(),
        mode: Mode::parse(&a.mode)?,
        globs: a.glob.clone(),
        lang: a.lang.clone(),
        scope: parse_scope(&a.scope)?,
        limit: a.limit as usize,
        offset: a.offset as usize,
        // The default, 0, asks for nothing more (as MCP's `context: 0`).
        context: a.context.filter(|&c| c > 0).map(|c| c as usize),
        snippet_lines: a.snippet_lines as usize,
        threshold: a.threshold,
        rrf_k: a.rrf_k,
        recency: Recency::parse(&a.recency)?,
        no_cache: a.no_cache,
    };
    let answer = svc.search(&req)?;
    let detail = a.detail || a.context.is_some_and(|c| c > 0);
    print_search(&svc, &answer, a.common.json, detail, &a.query)
}

/// Prints a search answer: JSON in full, text compact unless `detail`
/// (each hit's best lines for `words`). An unavailable semantic search: JSON
/// callers get the report (`available: false`, reason, hint) and exit
/// status 1; text callers get an error with the hint.
pub(crate) fn print_search(
    svc: &Service,
    answer: &crate::service::SearchAnswer,
    json: bool,
    detail: bool,
    words: &str,
) -> Result<Found> {
    if json {
        render::search_json(answer)?;
    } else if let Some(sem) = answer.semantic.as_ref().filter(|s| !s.available) {
        return Err(UserError::with_code(
            ErrorCode::ModelMissing,
            format!(
                "semantic search is not available: {}",
                sem.reason.as_deref().unwrap_or("unknown reason")
            ),
        )
        .hint(sem.hint.clone().unwrap_or_default())
        .into());
    } else {
        render::search(answer, detail, words)?;
        render::redacted_note(answer.redacted)?;
        render::changed_hits_note(svc.root(), &answer.changed_since_indexed)?;
        if answer.only_semantic() {
            eprintln!("note: {}", crate::service::ONLY_SEMANTIC_NOTE);
        }
        if let Some(p) = &answer.past_end {
            eprintln!("note: {}", p.note());
        }
        if let Some(p) = &answer.unknown_path {
            eprintln!("note: {}", crate::search::hybrid::unknown_path_note(p));
        }
    }
    Ok(found(!answer.hits.is_empty()))
}

/// `similar`: code like a snippet or an indexed location.
fn cmd_similar(a: SimilarArgs) -> Result<Found> {
    let svc = service(&a.common, &Overrides::default(), false)?;
    let target = match (&a.code, &a.location) {
        (Some(code), _) => SimilarTo::Code(code.clone()),
        (None, Some(loc)) => {
            let (path, line) = loc
                .rsplit_once(':')
                .and_then(|(p, l)| Some((p.to_string(), l.trim().parse::<u32>().ok()?)))
                .ok_or_else(|| {
                    UserError::new(format!("expected PATH:LINE, got `{loc}`"))
                        .hint("e.g. `repo-search similar src/lib.rs:42`")
                })?;
            SimilarTo::Location {
                path: from_cwd(svc.root(), &path),
                line,
            }
        }
        (None, None) => {
            return Err(UserError::new("nothing to compare with")
                .hint("give PATH:LINE or --code CODE")
                .into());
        }
    };
    let req = SimilarRequestSpec {
        target,
        globs: a.glob.clone(),
        exclude_path: a.exclude_path.clone(),
        limit: a.limit as usize,
        offset: a.offset as usize,
        threshold: a.threshold,
        snippet_lines: a.snippet_lines as usize,
    };
    let answer = svc.similar(&req)?;
    // A hit's best lines are those sharing the snippet's words.
    let words = a.code.as_deref().unwrap_or_default();
    print_search(&svc, &answer, a.common.json, a.detail, words)
}

/// The project's service without index runs (`status` and `config` only look).
fn service_as_is(common: &Common) -> Result<Service> {
    Service::open(
        common.root.as_deref(),
        &overrides(common, &Overrides::default()),
        Policy::AsIs,
        OnBadConfig::Fail,
    )
}

fn cmd_status(a: StatusArgs) -> Result<Found> {
    let svc = service_as_is(&a.common)?;
    let st = svc
        .status(crate::status::StatusDepth {
            stale: true,
            sizes: a.sizes,
        })?
        .status;
    let runtime = svc.runtime();
    if a.common.json {
        let mut v = serde_json::to_value(&st)?;
        if let Some(o) = v.as_object_mut() {
            o.insert("runtime".into(), serde_json::to_value(&runtime)?);
        }
        render::json(&v)?;
    } else {
        render::status(&st)?;
        render::runtime(&runtime)?;
    }
    Ok(found(st.exists))
}

fn cmd_stats(a: StatsArgs) -> Result<Found> {
    let svc = service_as_is(&a.common)?;
    let answer = svc.stats(&crate::service::StatsRequest { since: a.since })?;
    if a.common.json {
        render::json(&answer)?;
    } else {
        render::stats(&answer)?;
    }
    Ok(found(!answer.ops.is_empty()))
}

fn cmd_cache(a: CacheArgs) -> Result<Found> {
    let svc = service_as_is(&a.common)?;
    match a.action {
        CacheAction::Stats { since } => {
            let answer = svc.cache_stats(&crate::service::StatsRequest { since })?;
            if a.common.json {
                render::json(&answer)?;
            } else {
                render::cache_stats(&answer)?;
            }
            Ok(found(answer.lookups > 0))
        }
        CacheAction::Clear => {
            let answer = svc.cache_clear()?;
            if a.common.json {
                render::json(&answer)?;
            } else {
                render::cache_clear(&answer)?;
            }
            Ok(Found::Yes)
        }
    }
}

fn cmd_compact(a: CompactArgs) -> Result<Found> {
    let svc = service_as_is(&a.common)?;
    let answer = svc.compact()?;
    if a.common.json {
        render::json(&answer)?;
    } else {
        render::compact(&answer)?;
    }
    Ok(Found::Yes)
}

fn cmd_clean(a: CleanArgs) -> Result<Found> {
    use std::io::{BufRead, IsTerminal, Write};
    let svc = service_as_is(&a.common)?;
    let dir = crate::store::index_dir(svc.root());
    if !a.yes {
        if !std::io::stdin().is_terminal() {
            return Err(UserError::new(format!(
                "`clean` removes `{}` and needs a confirmation",
                dir.display()
            ))
            .hint("run it in a terminal to be asked, or pass --yes")
            .into());
        }
        let mine = crate::service::ops::user_files(svc.root());
        let also = if mine.is_empty() {
            String::new()
        } else {
            format!(", and files you wrote: {}", mine.join(", "))
        };
        eprint!(
            "remove `{}` (the index, its vectors and logs{also}) and forget the project? [y/N] ",
            dir.display()
        );
        let _ = std::io::stderr().flush();
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line)?;
        if !matches!(line.trim(), "y" | "Y" | "yes") {
            eprintln!("nothing removed");
            return Ok(Found::No);
        }
    }
    // The daemon stops watching first, so it does not build it again.
    let home = crate::daemon_client::DaemonHome::from_env();
    super::projects::tell_daemon(&home, svc.root(), false);
    let answer = svc.clean()?;
    if a.common.json {
        render::json(&answer)?;
    } else {
        render::clean(&answer)?;
    }
    Ok(found(answer.removed.is_some() || answer.unregistered))
}

fn cmd_config(a: ConfigArgs) -> Result<Found> {
    use crate::config_edit::{self, Scope};
    let edit = |key: &str, value: Option<&str>, user: bool| -> Result<Found> {
        let root = crate::settings::find_root(a.common.root.as_deref())?;
        let scope = if user { Scope::User } else { Scope::Project };
        let e = config_edit::edit(scope, &root, key, value)?;
        if a.common.json {
            render::json(&e)?;
        } else {
            render::config_edit(&e)?;
        }
        Ok(found(e.changed))
    };
    match &a.action {
        Some(ConfigAction::Set { key, value, user }) => return edit(key, Some(value), *user),
        Some(ConfigAction::Unset { key, user }) => return edit(key, None, *user),
        Some(ConfigAction::Get { .. }) | None => {}
    }
    let svc = service_as_is(&a.common)?;
    let s = svc.settings();
    if let Some(ConfigAction::Get { key: Some(key) }) = &a.action {
        let Some(p) = s.provenance.iter().find(|p| p.key == key.as_str()) else {
            return Err(UserError::new(format!("unknown config key `{key}`"))
                .hint(format!(
                    "the keys are: {}",
                    s.provenance
                        .iter()
                        .map(|p| p.key)
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
                .into());
        };
        if a.common.json {
            render::json(p)?;
        } else {
            render::config_value(&p.value)?;
        }
        return Ok(Found::Yes);
    }
    if a.common.json {
        render::json(
            &serde_json::json!({"root": s.root, "settings": s.provenance, "trust": s.trust}),
        )?;
    } else {
        render::config(s)?;
    }
    Ok(Found::Yes)
}

fn cmd_trust(a: TrustArgs) -> Result<Found> {
    let root = a.common.root.as_deref();
    let answer = if a.revoke {
        crate::service::trust::revoke(root)?
    } else {
        crate::service::trust::trust(root)?
    };
    if a.common.json {
        render::json(&answer)?;
    } else {
        render::trust(&answer)?;
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

    #[test]
    fn parses_context_targets() {
        assert_eq!(
            context_target("src/a.rs:12", None).ok(),
            Some(("src/a.rs".into(), 12))
        );
        assert_eq!(
            context_target("src/a.rs", Some(3)).ok(),
            Some(("src/a.rs".into(), 3))
        );
        assert_eq!(
            context_target("we:ird.rs", Some(3)).ok(),
            Some(("we:ird.rs".into(), 3))
        );
        assert!(context_target("src/a.rs", None).is_err());
        assert!(context_target(":4", None).is_err());
    }
}
