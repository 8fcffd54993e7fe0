//! `imports`: a file's imports and importers, through the service.

use anyhow::Result;

use super::Lookup;
use crate::error::UserError;
use crate::mcp::catalogue::ImportsArgs;
use crate::mcp::out::{
    Answer, BUDGET_CHARS, ImportOut, ImporterOut, ImportsOut, OVERHEAD_CHARS, Page, Paging, answer,
};
use crate::mcp::render;
use crate::service::{ImportDirection, ImportsRequest, Service};

pub fn imports(svc: &Service, args: ImportsArgs) -> Result<Answer> {
    let direction = ImportDirection::parse(&args.direction).ok_or_else(|| {
        UserError::new(format!("unknown direction `{}`", args.direction))
            .hint("direction is one of imports, imported_by, both")
    })?;
    let offset = args.offset;
    let mut look = Lookup::from(svc.imports(&ImportsRequest {
        path: args.path.clone(),
        direction,
        limit: args.limit,
        offset,
    })?);
    let Some(r) = look.found.take() else {
        // No index yet (the service checked the path).
        let out = ImportsOut {
            path: args.path,
            imports: None,
            total_imports: None,
            imported_by: None,
            total_imported_by: None,
            skipped: None,
            note: None,
            paging: Paging::new(false, offset, None, None, look.index()),
        };
        return answer(&out, render::imports(&out));
    };
    let both = direction == ImportDirection::Both;
    let budget = (BUDGET_CHARS - OVERHEAD_CHARS) / if both { 2 } else { 1 };
    let imports = Page::new(
        r.imports.into_iter().map(|e| ImportOut {
            line: e.line,
            module: e.module,
            names: e.names,
            kind: e.kind,
            resolved: e.resolved,
            files: e.resolved_files,
        }),
        0,
        None,
        budget,
    );
    let importers = Page::new(
        r.imported_by.into_iter().map(|i| ImporterOut {
            path: i.path,
            line: i.line,
            module: i.module,
            names: i.names,
        }),
        0,
        None,
        budget,
    );
    // The next page starts after the shorter of the lists that go on.
    let more = |shown: usize, total: usize| (total > offset + shown).then_some(shown);
    let next = [
        more(imports.shown(), r.total_imports).filter(|_| direction != ImportDirection::ImportedBy),
        more(importers.shown(), r.total_imported_by)
            .filter(|_| direction != ImportDirection::Imports),
    ]
    .into_iter()
    .flatten()
    .min()
    .map(|shown| offset + shown);
    let hint = (r.total_imports == 0 && r.total_imported_by == 0 && r.skipped.is_none())
        .then(|| "no imports found for this file in either direction".to_string());
    let out = ImportsOut {
        path: r.path,
        total_imports: (direction != ImportDirection::ImportedBy).then_some(r.total_imports as u64),
        imports: (direction != ImportDirection::ImportedBy).then_some(imports.items),
        total_imported_by: (direction != ImportDirection::Imports)
            .then_some(r.total_imported_by as u64),
        imported_by: (direction != ImportDirection::Imports).then_some(importers.items),
        skipped: r.skipped,
        note: r.note,
        paging: Paging::new(false, offset, next, hint, look.index()).with_redacted(r.redacted),
    };
    answer(&out, render::imports(&out))
}
