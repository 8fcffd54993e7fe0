//! `search_semantic` and `similar_code`: search by embeddings, through the
//! library's [`Service`] (its warm vector matrix and query model).

use anyhow::Result;

use crate::error::UserError;
use crate::mcp::catalogue::{SearchSemanticArgs, SimilarCodeArgs};
use crate::mcp::out::{
    Answer, BUDGET_CHARS, OVERHEAD_CHARS, Page, SemanticOut, UpgradeOut, answer, chunk_out,
    index_info,
};
use crate::search::bound_line;
use crate::search::semantic::SimilarTo;
use crate::service::search::DEFAULT_SNIPPET_LINES;
use crate::service::{Mode, SearchAnswer, SearchRequest, Service, SimilarRequestSpec};

/// `search_semantic`: a natural-language query against the chunk vectors;
/// the same search as `search` with `mode: "semantic"`.
pub fn search_semantic(svc: &Service, args: SearchSemanticArgs) -> Result<Answer> {
    let SearchSemanticArgs {
        query,
        glob,
        threshold,
        limit,
        offset,
    } = args;
    let mut req = SearchRequest::new(query.clone(), Mode::Semantic);
    req.globs = glob;
    req.threshold = threshold.map(|t| t as f32);
    req.limit = limit;
    req.offset = offset;
    let r = svc.search(&req)?;
    semantic_answer(SemanticTarget::Query(query), r, req.threshold.is_some())
}

/// `similar_code`: chunks close to a snippet or to the chunk at path:line.
pub fn similar_code(svc: &Service, args: SimilarCodeArgs) -> Result<Answer> {
    const EITHER: &str = "give `code` (a snippet), or `path` + `line` (a line inside the function or class to compare with), not both";
    let target = match (args.code.as_deref(), args.path.as_deref(), args.line) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
            return Err(UserError::new("both `code` and `path`/`line` are given")
                .hint(EITHER)
                .into());
        }
        (Some(code), None, None) => {
            if code.trim().is_empty() {
                return Err(UserError::new("`code` is empty").hint(EITHER).into());
            }
            SimilarTo::Code(code.to_string())
        }
        (None, Some(path), Some(line)) => SimilarTo::Location {
            path: path.to_string(),
            line,
        },
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
    let req = SimilarRequestSpec {
        target,
        globs: args.glob,
        exclude_path: args.exclude_path,
        limit: args.limit,
        offset: args.offset,
        threshold: args.threshold.map(|t| t as f32),
        snippet_lines: DEFAULT_SNIPPET_LINES,
    };
    let r = svc.similar(&req)?;
    let shown_as = r.query.clone();
    semantic_answer(
        SemanticTarget::Similar(shown_as),
        r,
        req.threshold.is_some(),
    )
}

/// What a semantic answer was asked for.
enum SemanticTarget {
    Query(String),
    Similar(String),
}

/// Bounds a semantic answer. An unavailable one (no model, no vectors, no
/// index yet) is an answer, not an error: it says why and what to do, so
/// the model can fall back to the other tools.
fn semantic_answer(target: SemanticTarget, r: SearchAnswer, threshold: bool) -> Result<Answer> {
    const FALLBACK: &str = "until then use search (hybrid search works without embeddings), find_symbol or search_keyword";
    let (query, similar_to, what) = match target {
        SemanticTarget::Query(q) => {
            let what = format!("`{}`", bound_line(&q, 100));
            (Some(q), None, what)
        }
        SemanticTarget::Similar(s) => (None, Some(s.clone()), s),
    };
    let index = index_info(&r.freshness, r.generation);
    let Some(result) = r.semantic.clone() else {
        let (reason, hint) = if r.freshness.indexing {
            (
                "the index is being built".to_string(),
                format!(
                    "retry when index_status shows it done; vectors are computed after indexing; {FALLBACK}"
                ),
            )
        } else {
            (
                "there is no index yet".to_string(),
                format!(
                    "the server builds it in the background; index_status shows progress; {FALLBACK}"
                ),
            )
        };
        let out = SemanticOut::unavailable(query, similar_to, reason, hint, index);
        let summary = unavailable_summary(&out);
        return answer(&out, summary);
    };
    if !result.available {
        let hint = match result.hint_for_agent().filter(|h| !h.is_empty()) {
            Some(h) => format!("{h}; {FALLBACK}"),
            None => FALLBACK.to_string(),
        };
        let reason = result
            .reason
            .unwrap_or_else(|| "unknown reason".to_string());
        let mut out = SemanticOut::unavailable(query, similar_to, reason, hint, index);
        out.model = result.model;
        out.embedded = result.embedded;
        out.total = result.total;
        let summary = unavailable_summary(&out);
        return answer(&out, summary);
    }
    let offset = r.offset;
    let hits = r.hits.into_iter().map(|h| chunk_out(h, false));
    // The service's hits are the page already; `more` says what lies past it.
    let page = Page::new(hits, 0, None, BUDGET_CHARS - OVERHEAD_CHARS);
    let shown = page.shown();
    let truncated = r.more || page.cut();
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
            "only {} of {} chunks have vectors yet, so hits come from those: they are still being computed",
            result.embedded, result.total
        ));
    }
    if let Some(u) = &result.upgrade {
        hints.push(format!(
            "these hits come from the fast model; {}",
            u.agent_hint()
        ));
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
        index,
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
