//! `search_semantic` and `similar_code`: search by embeddings, with the server's warm searcher.

use anyhow::Result;

use super::Lookup;
use crate::error::UserError;
use crate::mcp::catalogue::{SearchSemanticArgs, SimilarCodeArgs};
use crate::mcp::out::{
    Answer, BUDGET_CHARS, OVERHEAD_CHARS, Page, SemanticOut, UpgradeOut, answer, chunk_out,
};
use crate::mcp::state::ServerState;
use crate::search::semantic::{SemanticRequest, SemanticResult, SimilarRequest, SimilarTo};
use crate::search::{ChunkFilter, Scope, bound_line};

/// `search_semantic`: a natural-language query against the chunk vectors,
/// with the server's warm searcher.
pub fn search_semantic(state: &ServerState, args: SearchSemanticArgs) -> Result<Answer> {
    let SearchSemanticArgs {
        query,
        glob,
        threshold,
        limit,
        offset,
    } = args;
    let threshold = threshold.map(|t| t as f32);
    let req = SemanticRequest {
        query: query.clone(),
        filter: ChunkFilter::new(&glob, None, Scope::All)?,
        limit: offset + limit + 1,
        threshold,
        snippet_lines: 6,
    };
    let root = state.root().to_path_buf();
    let look = Lookup::run(state, |store| {
        state.with_semantic(|s| s.search(store, &root, &req))
    })?;
    let target = SemanticTarget::Query(query);
    semantic_answer(target, look, offset, limit, threshold.is_some())
}

/// `similar_code`: chunks close to a snippet or to the chunk at path:line.
pub fn similar_code(state: &ServerState, args: SimilarCodeArgs) -> Result<Answer> {
    const EITHER: &str = "give `code` (a snippet), or `path` + `line` (a line inside the function or class to compare with), not both";
    let (target, shown_as) = match (args.code.as_deref(), args.path.as_deref(), args.line) {
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
    let exclude_path = match &args.exclude_path {
        Some(x) => Some(crate::paths::resolve_in_root(state.root(), x)?.rel),
        None => None,
    };
    let (limit, offset) = (args.limit, args.offset);
    let threshold = args.threshold.map(|t| t as f32);
    let req = SimilarRequest {
        target,
        filter: ChunkFilter::new(&args.glob, None, Scope::All)?,
        limit: offset + limit + 1,
        threshold,
        exclude_path,
        snippet_lines: 6,
    };
    let root = state.root().to_path_buf();
    let look = Lookup::run(state, |store| {
        state.with_semantic(|s| s.similar(store, &root, &req))
    })?;
    let target = SemanticTarget::Similar(shown_as);
    semantic_answer(target, look, offset, limit, threshold.is_some())
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
    mut look: Lookup<SemanticResult>,
    offset: usize,
    limit: usize,
    threshold: bool,
) -> Result<Answer> {
    const FALLBACK: &str = "until then use search (hybrid search works without embeddings), find_symbol or search_keyword";
    let (query, similar_to, what) = match target {
        SemanticTarget::Query(q) => {
            let what = format!("`{}`", bound_line(&q, 100));
            (Some(q), None, what)
        }
        SemanticTarget::Similar(s) => (None, Some(s.clone()), s),
    };
    let Some(result) = look.found.take() else {
        let (reason, hint) = if look.fresh.indexing {
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
        let out = SemanticOut::unavailable(query, similar_to, reason, hint, look.index());
        let summary = unavailable_summary(&out);
        return answer(&out, summary);
    };
    if !result.available {
        let reason = result
            .reason
            .unwrap_or_else(|| "unknown reason".to_string());
        let hint = match result.hint.filter(|h| !h.is_empty()) {
            Some(h) => format!("{}; {FALLBACK}", crate::mcp::hint_in_tool_terms(&h)),
            None => FALLBACK.to_string(),
        };
        let mut out = SemanticOut::unavailable(query, similar_to, reason, hint, look.index());
        out.model = result.model;
        out.embedded = result.embedded;
        out.total = result.total;
        let summary = unavailable_summary(&out);
        return answer(&out, summary);
    }
    let page = Page::new(
        result.hits.into_iter().map(chunk_out),
        offset,
        Some(limit),
        BUDGET_CHARS - OVERHEAD_CHARS,
    );
    let shown = page.shown();
    let truncated = page.cut();
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
        hits: page.items,
        offset: offset as u64,
        truncated,
        hint: (!hints.is_empty()).then(|| hints.join("; ")),
        index: look.index(),
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
