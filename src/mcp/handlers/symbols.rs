//! `find_symbol`, `find_references`, `list_defs_in_file`: index lookups by name or file.

use anyhow::Result;

use super::Lookup;
use crate::mcp::catalogue::{FindReferencesArgs, FindSymbolArgs, ListDefsArgs};
use crate::mcp::out::{
    Answer, BUDGET_CHARS, DefOut, DefsOut, LINE_CHARS, OVERHEAD_CHARS, Page, RefOut, RefsOut,
    SymbolOut, SymbolsOut, answer,
};
use crate::search::bound_line;
use crate::search::symbol::{MatchMode, SymbolQuery};
use crate::service::{OutlineRequest, ReferencesRequest, Service, SymbolsRequest};

pub fn find_symbol(svc: &Service, args: FindSymbolArgs) -> Result<Answer> {
    let FindSymbolArgs {
        name,
        kind,
        language,
        r#match,
        limit,
        offset,
    } = args;
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
    let (hits, total, capped) = match look.found.take() {
        Some(r) => (r.hits, r.total, r.truncated && r.total <= offset + limit),
        None => (Vec::new(), 0, false),
    };
    let all = hits.into_iter().map(|h| SymbolOut {
        name: h.name,
        kind: h.kind,
        container: h.container,
        path: h.path,
        line: h.line,
        start_line: h.start_line,
        end_line: h.end_line,
        signature: bound_line(&h.signature, LINE_CHARS),
        lang: h.lang,
        match_kind: serde_json::to_value(h.match_kind)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default(),
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
    } else if shown == 0 && look.generation.is_some() {
        Some(format!(
            "no definition named `{name}` in the index: try match: \"fuzzy\", find_references, search (for a concept) or search_keyword (for text)"
        ))
    } else {
        None
    };
    let out = SymbolsOut {
        symbols: page.items,
        total: total as u64,
        offset: offset as u64,
        truncated,
        hint,
        index: look.index(),
    };
    let summary = format!("{shown} of {total} definitions of `{name}`");
    answer(&out, summary)
}

pub fn find_references(svc: &Service, args: FindReferencesArgs) -> Result<Answer> {
    let FindReferencesArgs {
        name,
        limit,
        offset,
    } = args;
    let req = ReferencesRequest {
        name: name.clone(),
        limit,
        offset,
    };
    let mut look = Lookup::from(svc.references(&req)?);
    let Some(result) = look.found.take() else {
        let out = RefsOut {
            name: name.clone(),
            definitions: 0,
            references: 0,
            hits: Vec::new(),
            total: 0,
            offset: offset as u64,
            truncated: false,
            hint: Some("no index yet: use search_keyword with word: true for now".into()),
            index: look.index(),
        };
        return answer(&out, format!("no index yet for references of `{name}`"));
    };
    let all = result.hits.into_iter().map(|h| RefOut {
        kind: if h.is_definition {
            "definition".into()
        } else {
            h.kind
        },
        path: h.path,
        line: h.line,
        column: h.column,
        context: h.context,
        text: h.text,
    });
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
        None
    };
    let out = RefsOut {
        name: result.name.clone(),
        definitions: result.definitions as u64,
        references: result.references as u64,
        hits: page.items,
        total: total as u64,
        offset: offset as u64,
        truncated,
        hint,
        index: look.index(),
    };
    answer(
        &out,
        format!(
            "{} definitions and {} references of `{}` ({shown} shown)",
            result.definitions, result.references, result.name
        ),
    )
}

fn flatten(items: Vec<crate::search::symbol::OutlineItem>, depth: u32, out: &mut Vec<DefOut>) {
    for i in items {
        out.push(DefOut {
            name: i.name,
            kind: i.kind,
            start_line: i.start_line,
            end_line: i.end_line,
            depth,
            signature: bound_line(&i.signature, LINE_CHARS),
        });
        flatten(i.children, depth + 1, out);
    }
}

pub fn list_defs(svc: &Service, args: ListDefsArgs) -> Result<Answer> {
    let ListDefsArgs { path, offset } = args;
    let mut look = Lookup::from(svc.outline(&OutlineRequest { path: path.clone() })?);
    let (rel, items, skipped) = match look.found.take() {
        Some(o) => (o.path, o.items, o.skipped),
        // No index yet (the service checked the path).
        None => (path, Vec::new(), None),
    };
    let mut all = Vec::new();
    flatten(items, 0, &mut all);
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
        path: rel.clone(),
        definitions: page.items,
        total: total as u64,
        offset: offset as u64,
        truncated,
        skipped,
        hint,
        index: look.index(),
    };
    answer(&out, format!("{total} definitions in `{rel}`"))
}
