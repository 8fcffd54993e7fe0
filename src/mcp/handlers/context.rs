//! `context`: the lines, enclosing definition, outline digest and
//! callers/callees around one line, fitted to the answer's budget.

use anyhow::Result;

use super::Lookup;
use crate::mcp::catalogue::ContextArgs;
use crate::mcp::out::{
    Answer, BUDGET_CHARS, CalleeOut, CallerOut, ContextOut, EnclosingOut, GraphOut, LINE_CHARS,
    answer, redacted,
};
use crate::mcp::render;
use crate::search::bound_line;
use crate::service::Service;
use crate::service::context::{Context, ContextRequest};

pub fn context(svc: &Service, args: ContextArgs) -> Result<Answer> {
    let ContextArgs { path, line, radius } = args;
    let mut look = Lookup::from(svc.context(&ContextRequest {
        path: path.clone(),
        line,
        radius,
    })?);
    let note = look.index().note;
    let Some(c) = look.found.take() else {
        // No index yet (the service checked the path): say so.
        let out = ContextOut {
            path,
            lang: None,
            line,
            total_lines: 0,
            start_line: 0,
            end_line: 0,
            content: String::new(),
            enclosing: None,
            outline: Vec::new(),
            outline_total: 0,
            graph: None,
            skipped: None,
            truncated: false,
            hint: Some("no index yet: read the lines with read_file for now".into()),
            note,
            redacted: None,
        };
        return answer(&out, render::context(&out));
    };
    let asked = c
        .lines
        .first()
        .zip(c.lines.last())
        .map(|(a, b)| (a.line, b.line));
    let mut out = shape(c, note);
    fit(&mut out, line, asked);
    answer(&out, render::context(&out))
}

/// The service's answer in the tool's shape, lines cut to [`LINE_CHARS`].
fn shape(c: Context, note: Option<String>) -> ContextOut {
    let content = c
        .lines
        .iter()
        .map(|l| format!("{}\t{}", l.line, bound_line(&l.text, LINE_CHARS)))
        .collect::<Vec<_>>()
        .join("\n");
    let span = |kind: &str, q: &str, s: u32, e: u32| format!("{kind} {q} {s}-{e}");
    ContextOut {
        lang: c.lang,
        line: c.line,
        total_lines: c.total_lines,
        start_line: c.lines.first().map_or(0, |l| l.line),
        end_line: c.lines.last().map_or(0, |l| l.line),
        content,
        enclosing: c.enclosing.map(|e| EnclosingOut {
            symbol: format!("{} {}", e.symbol.kind, e.symbol.qualified),
            start_line: e.symbol.start_line,
            end_line: e.symbol.end_line,
            signature: bound_line(e.signature.trim(), LINE_CHARS),
            outer: e
                .outer
                .iter()
                .map(|o| span(&o.kind, &o.qualified, o.start_line, o.end_line))
                .collect(),
        }),
        outline: c
            .outline
            .iter()
            .map(|o| span(&o.kind, &o.qualified, o.start_line, o.end_line))
            .collect(),
        outline_total: c.outline_total as u64,
        graph: c.graph.map(|g| GraphOut {
            symbol: g.symbol,
            callers: g
                .callers
                .into_iter()
                .map(|e| CallerOut {
                    at: format!("{}:{}", e.path, e.line),
                    kind: e.kind,
                    context: e.context,
                    resolution: e.resolution.as_str().into(),
                })
                .collect(),
            callers_total: g.callers_total as u64,
            callees: g
                .callees
                .into_iter()
                .map(|e| CalleeOut {
                    name: e.name,
                    line: e.line,
                    calls: (e.calls > 1).then_some(e.calls as u64),
                    defined_at: e.defined_at.map(|d| format!("{}:{}", d.path, d.line)),
                    definitions: e.definitions as u64,
                    resolution: e.resolution.as_str().into(),
                })
                .collect(),
            callees_total: g.callees_total as u64,
        }),
        path: c.path,
        skipped: c.skipped,
        truncated: false,
        hint: None,
        note,
        redacted: redacted(c.redacted),
    }
}

/// The answer's size as a client receives it: structured content and text.
fn size(out: &ContextOut) -> usize {
    serde_json::to_string(out).map_or(usize::MAX, |s| s.len()) + render::context(out).len()
}

/// Room kept for the `hint` saying what [`fit`] cut.
const HINT_ROOM: usize = 400;

/// Cuts the answer to [`BUDGET_CHARS`]: the lines farthest from `line`
/// first (the asked line stays), then the outline digest from its end.
/// Says what was cut in `hint`, within the budget too.
fn fit(out: &mut ContextOut, line: u32, asked: Option<(u64, u64)>) {
    if size(out) <= BUDGET_CHARS {
        return;
    }
    let budget = BUDGET_CHARS - HINT_ROOM;
    let mut lines: Vec<(u64, String)> = out
        .content
        .lines()
        .filter_map(|l| {
            let (n, t) = l.split_once('\t')?;
            Some((n.parse().ok()?, t.to_string()))
        })
        .collect();
    let target = u64::from(line);
    let set = |out: &mut ContextOut, lines: &[(u64, String)]| {
        out.content = lines
            .iter()
            .map(|(n, t)| format!("{n}\t{t}"))
            .collect::<Vec<_>>()
            .join("\n");
        out.start_line = lines.first().map_or(0, |l| l.0);
        out.end_line = lines.last().map_or(0, |l| l.0);
    };
    while size(out) > budget && lines.len() > 1 {
        // Drop from the side farther from the asked line.
        let (first, last) = (lines[0].0, lines[lines.len() - 1].0);
        if last.saturating_sub(target) >= target.saturating_sub(first) {
            lines.pop();
        } else {
            lines.remove(0);
        }
        set(out, &lines);
    }
    let outline_before = out.outline.len();
    while size(out) > budget && !out.outline.is_empty() {
        out.outline.pop();
    }
    out.truncated = true;
    let mut cut = Vec::new();
    if let Some((a, b)) = asked
        && (out.start_line, out.end_line) != (a, b)
    {
        cut.push(format!(
            "lines {}-{} shown of {a}-{b} (long lines): read the rest with read_file",
            out.start_line, out.end_line
        ));
    }
    if out.outline.len() < outline_before {
        cut.push(format!(
            "{} of {} outline entries shown: list_defs_in_file has them all",
            out.outline.len(),
            out.outline_total
        ));
    }
    out.hint = Some(cut.join("; "));
}
