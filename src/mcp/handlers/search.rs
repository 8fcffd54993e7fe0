//! `search`: ranked hybrid (or single-arm) search, one query or a bulk of them.

use anyhow::Result;

use super::Lookup;
use crate::error::UserError;
use crate::mcp::catalogue::MAX_QUERY_CHARS;
use crate::mcp::catalogue::SearchArgs;
use crate::mcp::out::{
    Answer, BUDGET_CHARS, BulkEntry, BulkError, BulkSearchOut, ChunkOut, IndexInfo, LINE_CHARS,
    OVERHEAD_CHARS, Page, SearchOut, answer, chunk_out,
};
use crate::mcp::state::ServerState;
use crate::search::{ChunkFilter, Scope, bm25, bound_line};

/// The arguments of a `search` call other than its query.
struct SearchSpec {
    mode: String,
    filter: ChunkFilter,
    scope: Scope,
    /// Lines of context around snippets, and the hits' file symbols (`-C`).
    context: Option<usize>,
    limit: usize,
    offset: usize,
}

pub fn search(state: &ServerState, args: SearchArgs) -> Result<Answer> {
    let query = args.query;
    let bulk = args.queries.is_some();
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
    let scope = Scope::parse(&args.scope).unwrap_or_default();
    let spec = SearchSpec {
        mode: args.mode,
        filter: ChunkFilter::new(&args.glob, args.lang.as_deref(), scope)?,
        scope,
        context: args.context,
        limit: args.limit,
        offset: args.offset,
    };
    let Some(query) = query else {
        let queries = args.queries.unwrap_or_default();
        return call_search_bulk(state, &queries, &spec);
    };
    if query.trim().is_empty() {
        return Err(UserError::new("`query` is empty")
            .hint("`query`: words, identifiers or a short description of what you look for")
            .into());
    }
    let (out, summary) = search_one(state, &query, &spec, BUDGET_CHARS - OVERHEAD_CHARS)?;
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
    let mut look = Lookup::run(state, |store| {
        bm25::search_bm25(store, query, &spec.filter, spec.offset + spec.limit + 1, 6)
    })?;
    let hits = look.found.take().unwrap_or_default();
    let hits = hits.into_iter().map(chunk_out).collect();
    let indexed = look.generation.is_some();
    Ok(search_answer(
        query,
        spec,
        hits,
        look.index(),
        indexed,
        None,
        budget,
    ))
}

/// Pages ranked chunks (`hits` holds everything up to `offset + limit + 1`),
/// fits them in `budget` characters and says how to get more. `indexed`:
/// there is an index (so no hits means nothing matched).
fn search_answer(
    query: &str,
    spec: &SearchSpec,
    hits: Vec<ChunkOut>,
    index: IndexInfo,
    indexed: bool,
    query_interpretation: Option<String>,
    budget: usize,
) -> (SearchOut, String) {
    let offset = spec.offset;
    let page = Page::new(hits, offset, Some(spec.limit), budget);
    let shown = page.shown();
    let truncated = page.cut();
    let hint = if truncated {
        Some(format!(
            "more hits exist: call again with offset: {}, or narrow with glob, lang or scope",
            offset + shown
        ))
    } else if shown == 0 && indexed {
        Some("nothing matched: try other words or synonyms, find_symbol for a name, or search_keyword for exact text".into())
    } else {
        None
    };
    let out = SearchOut {
        query: query.to_string(),
        mode: spec.mode.clone(),
        hits: page.items,
        offset: offset as u64,
        truncated,
        hint,
        query_interpretation,
        index,
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
    let root = state.root().to_path_buf();
    let req = HybridRequest {
        query: query.to_string(),
        filter: spec.filter.clone(),
        scope: spec.scope,
        limit: spec.offset + spec.limit + 1,
        snippet_lines: 6,
        context: spec.context.unwrap_or(0),
        with_file_symbols: spec.context.is_some(),
        only,
        k: RRF_K,
    };
    let mut look = Lookup::run(state, |store| {
        state.with_hybrid(|hybrid| hybrid.search(store, &root, &req))
    })?;
    let result = look.found.take();
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
            file_symbols: h.file_symbols,
        })
        .collect();
    let indexed = look.generation.is_some();
    Ok(search_answer(
        query,
        spec,
        hits,
        look.index(),
        indexed,
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
            u.hint
                .as_deref()
                .map(crate::mcp::hint_in_tool_terms)
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
