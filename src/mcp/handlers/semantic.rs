//! `search_semantic` and `similar_code`: search by embeddings, through the
//! library's [`Service`] (its warm vector matrix and query model).

use crate::mcp::out::redacted;
use anyhow::Result;

use crate::error::UserError;
use crate::mcp::catalogue::{SearchSemanticArgs, SimilarCodeArgs};
use crate::mcp::out::{
    Answer, BUDGET_CHARS, CompactSemanticOut, OVERHEAD_CHARS, Page, SemanticOut, UpgradeOut,
    answer, chunk_out, compact_candidates, compact_target, fit_compact, index_info,
};
use crate::mcp::render;
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
        detail,
    } = args;
    let mut req = SearchRequest::new(query.clone(), Mode::Semantic);
    req.globs = glob;
    req.threshold = threshold.map(|t| t as f32);
    req.limit = limit;
    req.offset = offset;
    let r = svc.search(&req)?;
    semantic_answer(
        SemanticTarget::Query(query),
        r,
        req.threshold.is_some(),
        detail,
        limit,
    )
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
    // The best lines of a hit are those sharing the snippet's words.
    let words = match &req.target {
        SimilarTo::Code(code) => code.clone(),
        SimilarTo::Location { .. } => String::new(),
    };
    semantic_answer(
        SemanticTarget::Similar(shown_as, words),
        r,
        req.threshold.is_some(),
        args.detail,
        args.limit,
    )
}

/// What a semantic answer was asked for: a query, or what the hits are
/// similar to (as shown) and the words to pick their best lines by.
enum SemanticTarget {
    Query(String),
    Similar(String, String),
}

/// Bounds a semantic answer. An unavailable one (no model, no vectors, no
/// index yet) is an answer, not an error: it says why and what to do, so
/// the model can fall back to the other tools.
fn semantic_answer(
    target: SemanticTarget,
    r: SearchAnswer,
    threshold: bool,
    detail: bool,
    limit: usize,
) -> Result<Answer> {
    const FALLBACK: &str = "until then use search (hybrid search works without embeddings), find_symbol or search_keyword";
    let (query, similar_to, words) = match target {
        SemanticTarget::Query(q) => (Some(q.clone()), None, q),
        SemanticTarget::Similar(s, words) => (None, Some(s), words),
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
        let text = render::semantic_detail(&out);
        return answer(&out, text);
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
        let text = render::semantic_detail(&out);
        return answer(&out, text);
    }
    if !detail {
        let out = compact_semantic(r, result, similar_to, &words, threshold, limit);
        return answer(&out, render::compact_semantic(&out));
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
        hints.push(nothing_found(threshold));
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
        blended_with: result.blended_with,
        hits: page.items,
        offset: offset as u64,
        truncated,
        hint: (!hints.is_empty()).then(|| hints.join("; ")),
        redacted: redacted(r.redacted),
        index,
    };
    let text = render::semantic_detail(&out);
    answer(&out, text)
}

/// What nothing found suggests trying.
fn nothing_found(threshold: bool) -> String {
    if threshold {
        "nothing is similar enough: lower threshold or leave it out".to_string()
    } else {
        "nothing found: try other words, or search for a hybrid search".to_string()
    }
}

/// The compact answer of an available semantic search: the hits with their
/// best lines (for `words`), fitted like `search`'s; the model; a note when
/// vectors are partial or a better model is not complete yet.
fn compact_semantic(
    r: SearchAnswer,
    result: crate::search::semantic::SemanticInfo,
    similar_to: Option<String>,
    words: &str,
    threshold: bool,
    limit: usize,
) -> CompactSemanticOut {
    let index = index_info(&r.freshness, r.generation);
    let mut notes: Vec<String> = index.note.into_iter().collect();
    if result.partial {
        notes.push(format!(
            "only {} of {} chunks have vectors yet: hits come from those",
            result.embedded, result.total
        ));
    }
    if let Some(u) = &result.upgrade {
        notes.push(format!(
            "from the fast model; {} covers {}/{} chunks so far",
            u.model, u.embedded, u.total
        ));
    }
    let mut out = CompactSemanticOut {
        similar_to,
        model: result.model,
        hits: Vec::new(),
        next_offset: r.more.then(|| (r.offset + r.hits.len()) as u64),
        hint: r.hits.is_empty().then(|| nothing_found(threshold)),
        note: (!notes.is_empty()).then(|| notes.join("; ")),
        redacted: redacted(r.redacted),
    };
    let cands = compact_candidates(r.hits, words, false);
    let target = compact_target(limit, BUDGET_CHARS - OVERHEAD_CHARS);
    let hits = fit_compact(&cands, target, |hits| {
        out.hits = hits.to_vec();
        let json = serde_json::to_string(&out).map_or(0, |s| s.len());
        json.max(render::compact_semantic(&out).len())
    });
    out.hits = hits;
    out
}
