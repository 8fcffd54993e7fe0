//! `search`: ranked search in any mode, one query or a bulk of them, through
//! the library's [`Service::search`] (so it ranks exactly as the CLI does).

use crate::mcp::out::redacted;
use anyhow::Result;

use crate::error::{ErrorCode, UserError};
use crate::mcp::catalogue::MAX_QUERY_CHARS;
use crate::mcp::catalogue::SearchArgs;
use crate::mcp::out::{
    Answer, BUDGET_CHARS, BulkEntry, BulkError, BulkSearchOut, CompactSearchOut, LINE_CHARS,
    OVERHEAD_CHARS, Page, SearchOut, SearchReply, answer, chunk_out, compact_candidates,
    compact_target, fit_compact, index_info,
};
use crate::mcp::render;
use crate::search::bound_line;
use crate::search::hybrid::Arm;
use crate::service::search::{DEFAULT_SNIPPET_LINES, parse_scope};
use crate::service::{Mode, Recency, SearchRequest, Service};

pub fn search(svc: &Service, args: SearchArgs) -> Result<Answer> {
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
    // Context lines are detail: they ask for the whole snippet. The
    // default, 0, asks for nothing more.
    let context = args.context.filter(|&c| c > 0);
    let detail = args.detail || context.is_some();
    let spec = SearchRequest {
        query: String::new(),
        mode: Mode::parse(&args.mode)?,
        globs: args.glob,
        lang: args.lang,
        scope: parse_scope(&args.scope)?,
        limit: args.limit,
        offset: args.offset,
        context,
        snippet_lines: DEFAULT_SNIPPET_LINES,
        threshold: None,
        rrf_k: None,
        recency: Recency::parse(&args.recency)?,
        no_cache: args.no_cache,
    };
    let Some(query) = query else {
        let queries = args.queries.unwrap_or_default();
        return call_search_bulk(svc, &queries, &spec, detail);
    };
    if query.trim().is_empty() {
        return Err(
            UserError::with_code(ErrorCode::InvalidQuery, "`query` is empty")
                .hint("`query`: words, identifiers or a short description of what you look for")
                .into(),
        );
    }
    let out = search_one(
        svc,
        &query,
        &spec,
        detail,
        false,
        BUDGET_CHARS - OVERHEAD_CHARS,
    )?;
    answer(&out, render::search(&out))
}

/// One query of `search`, its hits fitted into `budget` characters; a
/// compact answer (unless `detail`) also into [`COMPACT_CHARS_PER_HIT`] a
/// hit asked for. `in_bulk`: the answer names its query.
fn search_one(
    svc: &Service,
    query: &str,
    spec: &SearchRequest,
    detail: bool,
    in_bulk: bool,
    budget: usize,
) -> Result<SearchReply> {
    let req = SearchRequest {
        query: query.to_string(),
        ..spec.clone()
    };
    let r = svc.search(&req)?;
    if let Some(sem) = r.semantic.as_ref().filter(|s| !s.available) {
        return Err(UserError::with_code(
            ErrorCode::ModelMissing,
            format!(
                "semantic search is not available: {}",
                sem.reason.as_deref().unwrap_or("unknown reason")
            ),
        )
        .hint(match sem.hint_for_agent().filter(|h| !h.is_empty()) {
            Some(h) => {
                format!("{h}; or leave `mode` out for hybrid search (it works without embeddings)")
            }
            None => "leave `mode` out for hybrid search (it works without embeddings)".into(),
        })
        .into());
    }
    if !detail {
        return Ok(SearchReply::Compact(compact_answer(
            r, query, spec, in_bulk, budget,
        )));
    }
    let hits = r.hits.into_iter().map(|h| chunk_out(h, true));
    // The service's hits are the page already; `more` says what lies past it.
    let page = Page::new(hits, 0, None, budget);
    let shown = page.shown();
    let truncated = r.more || page.cut();
    let offset = r.offset;
    let hint = if truncated {
        Some(format!(
            "more hits exist: call again with offset: {}, or narrow with glob, lang or scope",
            offset + shown
        ))
    } else if shown == 0 && r.generation.is_some() {
        Some(nothing_matched(spec))
    } else {
        None
    };
    Ok(SearchReply::Detail(SearchOut {
        query: query.to_string(),
        mode: r.mode.name().to_string(),
        hits: page.items,
        offset: offset as u64,
        truncated,
        hint,
        query_interpretation: r.interpretation,
        semantic_model: r.semantic_model,
        redacted: redacted(r.redacted),
        index: index_info(&r.freshness, r.generation),
    }))
}

/// What nothing matching a query suggests trying: the filters first when
/// it had some (a glob may match no file at all).
fn nothing_matched(spec: &SearchRequest) -> String {
    let filtered =
        !spec.globs.is_empty() || spec.lang.is_some() || spec.scope != crate::search::Scope::All;
    if filtered {
        "nothing matched within the glob, lang or scope given: check them (globs match paths relative to the project root, e.g. `src/**`, `*.py`) or leave them out".into()
    } else {
        "nothing matched: try other words or synonyms, find_symbol for a name, or search_keyword for exact text".into()
    }
}

/// The compact answer of one query: every hit of the page with its best
/// lines, fitted into `COMPACT_CHARS_PER_HIT * limit` characters (and
/// `budget`), measured as the larger of its JSON and its text.
fn compact_answer(
    r: crate::service::SearchAnswer,
    query: &str,
    spec: &SearchRequest,
    in_bulk: bool,
    budget: usize,
) -> CompactSearchOut {
    let limit = spec.limit;
    let index = index_info(&r.freshness, r.generation);
    let mut notes: Vec<String> = index.note.into_iter().collect();
    // The semantic arm said why it did not run or ran on part of the chunks.
    if let Some(n) = r
        .arms
        .iter()
        .find(|a| a.arm == Arm::Semantic)
        .and_then(|a| a.note.as_deref())
    {
        notes.push(format!("semantic arm: {}", bound_line(n, 100)));
    }
    if r.only_semantic() {
        notes.push(crate::service::ONLY_SEMANTIC_NOTE.to_string());
    }
    if let Some(p) = &r.past_end {
        notes.push(p.note());
    }
    if let Some(p) = &r.unknown_path {
        notes.push(crate::search::hybrid::unknown_path_note(p));
    }
    let empty = r.hits.is_empty();
    let mut out = CompactSearchOut {
        query: in_bulk.then(|| query.to_string()),
        hits: Vec::new(),
        next_offset: r.more.then(|| (r.offset + r.hits.len()) as u64),
        hint: (empty && r.generation.is_some()).then(|| nothing_matched(spec)),
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        redacted: redacted(r.redacted),
        offset: r.offset as u64,
    };
    let cands = compact_candidates(r.hits, query, true);
    let target = compact_target(limit, budget);
    let size = |o: &CompactSearchOut| {
        let json = serde_json::to_string(o).map_or(0, |s| s.len());
        json.max(render::compact_search(o).len())
    };
    out.hits = fit_compact(&cands, target, |hits| {
        out.hits = hits.to_vec();
        size(&out)
    });
    // Hits keep their place while lines can shrink; only hits too large
    // for the whole budget (very long paths) make the page shorter.
    while size(&out) > budget && !out.hits.is_empty() {
        out.hits.pop();
        out.next_offset = Some(out.offset + out.hits.len() as u64);
        out.hint = None;
    }
    out
}

/// Characters an entry of a bulk answer needs besides its hits: the query
/// echoed back, mode, paging fields, hint, interpretation and index block.
const ENTRY_OVERHEAD_CHARS: usize = 700;

/// `search` with `queries`: each query answered on its own with the same
/// other arguments; a query that fails becomes an error entry and the
/// others still answer. The size budget is shared: each query gets an equal
/// part of what the ones before it left over.
fn call_search_bulk(
    svc: &Service,
    queries: &[String],
    spec: &SearchRequest,
    detail: bool,
) -> Result<Answer> {
    let mut left = BUDGET_CHARS - OVERHEAD_CHARS;
    let mut results = Vec::with_capacity(queries.len());
    for (i, query) in queries.iter().enumerate() {
        let share = left / (queries.len() - i);
        let budget = share.saturating_sub(ENTRY_OVERHEAD_CHARS + query.len());
        let entry = match check_bulk_query(query)
            .and_then(|()| search_one(svc, query, spec, detail, true, budget))
        {
            Ok(out) => BulkEntry::Answer(out),
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
            .any(|e| matches!(e, BulkEntry::Answer(a) if a.is_cut() && a.hit_count() < spec.limit));
    if cut {
        out.hint = Some(
            "answers were cut to share the size budget between the queries: send fewer queries per call, \
             or search one `query` with offset to see more of its hits"
                .into(),
        );
    }
    let text = render::bulk(&out);
    answer(&out, text)
}

/// What `search_one` would refuse before searching, said per query.
fn check_bulk_query(query: &str) -> Result<()> {
    if query.trim().is_empty() {
        return Err(UserError::with_code(ErrorCode::InvalidQuery, "empty query")
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
                BulkEntry::Answer(a) if a.hit_count() > 0 => Some(a),
                _ => None,
            })
            .max_by_key(|a| a.hit_count());
        let Some(a) = fullest else { break };
        a.pop_hit();
        dropped = true;
    }
    dropped
}
