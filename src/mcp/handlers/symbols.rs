//! `find_symbol`, `find_references`, `list_defs_in_file`: index lookups by name or file.

use anyhow::Result;

use super::Lookup;
use crate::error::{ErrorCode, UserError};
use crate::mcp::catalogue::{FindReferencesArgs, FindSymbolArgs, ListDefsArgs};
use crate::mcp::out::{
    Answer, BUDGET_CHARS, DefOut, DefsOut, LINE_CHARS, OVERHEAD_CHARS, Page, Paging, RefOut,
    RefsOut, SymbolOut, SymbolsOut, answer, past_end_hint,
};
use crate::mcp::render;
use crate::search::graph::Resolution;
use crate::search::symbol::{MatchMode, RefType, SymbolQuery};
use crate::search::{BEST_LINE_CHARS, bound_line};
use crate::service::{OutlineRequest, ReferencesRequest, Service, SymbolsRequest};

pub fn find_symbol(svc: &Service, args: FindSymbolArgs) -> Result<Answer> {
    let FindSymbolArgs {
        name,
        kind,
        language,
        r#match,
        limit,
        offset,
        detail,
    } = args;
    let width = if detail { LINE_CHARS } else { BEST_LINE_CHARS };
    let req = SymbolsRequest {
        query: SymbolQuery {
            name: name.clone(),
            kinds: kind.into_iter().collect(),
            lang: language,
            mode: MatchMode::parse(&r#match).unwrap_or_default(),
            limit,
        },
        offset,
    };
    let mut look = Lookup::from(svc.symbols(&req)?);
    // Names spelled like it or starting with it are no answer, as the
    // CLI's `symbol` exits 1 on them: `NOT_FOUND`, with them in the hint.
    if let Some(r) = look
        .found
        .as_ref()
        .filter(|r| r.only_spelled_like(req.query.mode))
    {
        let like: Vec<String> = r
            .hits
            .iter()
            .take(5)
            .map(|h| format!("{} ({}:{})", h.qualified_name(), h.path, h.start_line))
            .collect();
        let (how, mode) = r.look_alike();
        return Err(UserError::with_code(
            ErrorCode::NotFound,
            format!("no definition named `{name}` in the index"),
        )
        .hint(format!(
            "names {how}: {}; call again with match: \"{mode}\" to list them, or try find_references, search or search_keyword",
            like.join(", ")
        ))
        .into());
    }
    // What the answer left out beside the definitions found (names only
    // starting with it, a type's trait impls), and how to list it.
    let mut left_out: Vec<String> = Vec::new();
    if let Some(r) = look.found.as_ref()
        && let Some(first) = r.hits.first()
    {
        if r.prefix_left_out > 0 {
            left_out.push(format!(
                "{}: call again with match: \"prefix\" to list them",
                crate::search::symbol::prefix_left_out_summary(
                    &crate::search::split_qualified(&name).1,
                    r.prefix_left_out
                )
            ));
        }
        if let Some(summary) = r.build_output_left_out.summary() {
            left_out.push(format!(
                "{summary}: call again with match: \"exact\" to list them"
            ));
        }
        if let Some(summary) = crate::search::symbol::assoc_types_summary(r.assoc_types_left_out) {
            left_out.push(format!(
                "{summary}: call again with kind: \"type\" to list them"
            ));
        }
        if !r.trait_impls_left_out.is_empty() {
            left_out.push(format!(
                "{}: call again with kind: \"impl\" to list them",
                crate::search::symbol::trait_impls_summary(&first.name, &r.trait_impls_left_out)
            ));
        }
    }
    let (hits, total, capped, redacted, unplaced) = match look.found.take() {
        Some(r) => (
            r.hits,
            r.total,
            r.truncated && r.total <= offset + limit,
            r.redacted,
            r.unplaced_qualifier,
        ),
        None => (Vec::new(), 0, false, 0, None),
    };
    let all = hits.into_iter().map(|h| {
        let match_kind = h.match_kind.as_str().to_string();
        SymbolOut {
            label: h.container.is_some().then(|| h.qualified_name()),
            name: h.name,
            kind: h.kind,
            container: h.container,
            path: h.path,
            line: detail.then_some(h.line),
            start_line: h.start_line,
            end_line: h.end_line,
            signature: bound_line(h.signature.trim(), width),
            lang: detail.then_some(h.lang),
            // Compact answers name the match only when it is not exact.
            match_kind: (detail || match_kind != "exact").then_some(match_kind),
        }
    });
    // The service's hits are the page already.
    let page = Page::new(all, 0, None, BUDGET_CHARS - OVERHEAD_CHARS);
    let shown = page.shown();
    let truncated = offset + shown < total || capped || page.cut();
    let hint = if truncated {
        Some(format!(
            "{shown} of {total} definitions shown: call again with offset: {}, or narrow with kind, language or match: \"exact\"",
            offset + shown
        ))
    } else if shown == 0 && total > 0 {
        Some(format!(
            "offset {offset} is past the end: {total} found for `{name}`; call again with a smaller offset"
        ))
    } else if shown == 0 && look.generation.is_some() {
        // Nothing found is `NOT_FOUND`, as callers and callees answer it
        // and the CLI's `symbol` exits 1.
        let mut hint = String::from(
            "try match: \"fuzzy\", find_references, search (for a concept) or search_keyword (for text)",
        );
        if let Some(q) = &unplaced {
            hint = format!("{}; {hint}", crate::search::symbol::unplaced_note(&name, q));
        }
        let filters: Vec<String> = req
            .query
            .kinds
            .iter()
            .map(|k| format!("kind {k}"))
            .chain(req.query.lang.iter().map(|l| format!("language {l}")))
            .collect();
        let filters = if filters.is_empty() {
            String::new()
        } else {
            format!(" of {}", filters.join(", "))
        };
        return Err(UserError::with_code(
            ErrorCode::NotFound,
            format!("no definition named `{name}`{filters} in the index"),
        )
        .hint(hint)
        .into());
    } else {
        None
    };
    let parts: Vec<String> = unplaced
        .map(|q| crate::search::symbol::unplaced_note(&name, &q))
        .into_iter()
        .chain(hint)
        .chain(left_out)
        .collect();
    let hint = (!parts.is_empty()).then(|| parts.join("; "));
    let out = SymbolsOut {
        symbols: page.items,
        total: total as u64,
        paging: Paging::new(
            detail,
            offset,
            truncated.then_some(offset + shown),
            hint.or_else(|| past_end_hint(offset, shown, total)),
            look.index(),
        )
        .with_redacted(redacted),
    };
    answer(&out, render::symbols(&out))
}

pub fn find_references(svc: &Service, args: FindReferencesArgs) -> Result<Answer> {
    let FindReferencesArgs {
        name,
        r#type,
        limit,
        offset,
        detail,
    } = args;
    let req = ReferencesRequest {
        name: name.clone(),
        want: RefType::parse(&r#type).unwrap_or_default(),
        limit,
        offset,
    };
    let mut look = Lookup::from(svc.references(&req)?);
    let Some(result) = look.found.take() else {
        let out = RefsOut {
            name: name.clone(),
            definitions: 0,
            references: 0,
            name_only: 0,
            hits: Vec::new(),
            total: 0,
            paging: Paging::new(
                detail,
                offset,
                None,
                Some("no index yet: use search_keyword with word: true for now".into()),
                look.index(),
            ),
        };
        return answer(&out, render::refs(&out));
    };
    let all = result.hits.into_iter().map(|h| RefOut {
        kind: if h.is_definition {
            "definition".into()
        } else {
            h.kind
        },
        path: h.path,
        line: h.line,
        column: detail.then_some(h.column),
        resolution: (h.resolution == Some(Resolution::NameOnly)).then(|| "name_only".to_string()),
        enclosing: h.enclosing,
        qualifier: h.qualifier.filter(|_| detail),
        text: h.text.map(|t| {
            if detail {
                t
            } else {
                bound_line(&t, BEST_LINE_CHARS)
            }
        }),
    });
    // A name no definition has and no line uses is `NOT_FOUND`, as the
    // CLI's `refs` exits 1.
    if result.definitions == 0 && result.total == 0 {
        return Err(crate::search::graph::unknown_name(&result.name));
    }
    let page = Page::new(all, 0, None, BUDGET_CHARS - OVERHEAD_CHARS);
    let shown = page.shown();
    let total = result.total;
    let truncated = offset + shown < total || page.cut();
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
        result.build_output_left_out.explained()
    };
    let out = RefsOut {
        name: result.name.clone(),
        definitions: result.definitions as u64,
        references: result.references as u64,
        name_only: result.name_only as u64,
        hits: page.items,
        total: total as u64,
        paging: Paging::new(
            detail,
            offset,
            truncated.then_some(offset + shown),
            hint.or_else(|| past_end_hint(offset, shown, total)),
            look.index(),
        )
        .with_redacted(result.redacted),
    };
    answer(&out, render::refs(&out))
}

/// The outline in source order; compact answers leave out depth 0 and cut
/// signatures shorter.
fn flatten(
    items: Vec<crate::search::symbol::OutlineItem>,
    depth: u32,
    detail: bool,
    out: &mut Vec<DefOut>,
) {
    let width = if detail { LINE_CHARS } else { BEST_LINE_CHARS };
    for i in items {
        out.push(DefOut {
            name: i.name,
            kind: i.kind,
            container: i.container,
            label: i.label,
            start_line: i.start_line,
            end_line: i.end_line,
            depth: (detail || depth > 0).then_some(depth),
            signature: bound_line(i.signature.trim(), width),
        });
        flatten(i.children, depth + 1, detail, out);
    }
}

pub fn list_defs(svc: &Service, args: ListDefsArgs) -> Result<Answer> {
    let ListDefsArgs {
        path,
        offset,
        detail,
    } = args;
    let mut look = Lookup::from(svc.outline(&OutlineRequest { path: path.clone() })?);
    let (rel, items, skipped, redacted) = match look.found.take() {
        Some(o) => (o.path, o.items, o.skipped, o.redacted),
        // No index yet (the service checked the path).
        None => (path, Vec::new(), None, 0),
    };
    let mut all = Vec::new();
    flatten(items, 0, detail, &mut all);
    let total = all.len();
    let page = Page::new(all, offset, None, BUDGET_CHARS - OVERHEAD_CHARS);
    let shown = page.shown();
    let truncated = page.cut();
    let hint = if truncated {
        Some(format!(
            "{shown} of {total} definitions shown: call again with offset: {}",
            offset + shown
        ))
    } else if total == 0 && skipped.is_none() && look.generation.is_some() && !look.fresh.indexing {
        Some("no definitions found in this file: read it with read_file".into())
    } else {
        None
    };
    let out = DefsOut {
        path: rel,
        definitions: page.items,
        total: total as u64,
        skipped,
        paging: Paging::new(
            detail,
            offset,
            truncated.then_some(offset + shown),
            hint.or_else(|| past_end_hint(offset, shown, total)),
            look.index(),
        )
        .with_redacted(redacted),
    };
    answer(&out, render::defs(&out))
}
