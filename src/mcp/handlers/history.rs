//! `file_history` and `blame`: the repository's git data, through the
//! service (no index needed).

use anyhow::Result;

use crate::error::UserError;
use crate::history::{BlameRequest, HistoryRequest};
use crate::mcp::catalogue::{BlameArgs, FileHistoryArgs};
use crate::mcp::out::{
    Answer, BUDGET_CHARS, BlameHunkOut, BlameOut, CommitOut, HistoryOut, OVERHEAD_CHARS, answer,
    redacted,
};
use crate::mcp::render;
use crate::service::Service;

fn check_range(start: Option<u64>, end: Option<u64>) -> Result<()> {
    if let (Some(s), Some(e)) = (start, end)
        && s > e
    {
        return Err(
            UserError::new(format!("start_line {s} is after end_line {e}"))
                .hint("give start_line <= end_line")
                .into(),
        );
    }
    Ok(())
}

pub fn file_history(svc: &Service, args: FileHistoryArgs) -> Result<Answer> {
    check_range(args.start_line, args.end_line)?;
    let req = HistoryRequest {
        path: args.path,
        start_line: args.start_line,
        end_line: args.end_line,
        since: args.since,
        limit: args.limit,
        detail: args.detail,
    };
    let r = svc.history(&req)?;
    let mut commits: Vec<CommitOut> = r.commits.into_iter().map(CommitOut::from).collect();
    // Whole messages can be long: keep what fits the answer's budget.
    let mut used = 0;
    let mut keep = commits.len();
    for (i, c) in commits.iter().enumerate() {
        used += serde_json::to_string(c).map(|s| s.len()).unwrap_or(0) * 2;
        if used > BUDGET_CHARS - OVERHEAD_CHARS && i > 0 {
            keep = i;
            break;
        }
    }
    let cut = keep < commits.len();
    commits.truncate(keep);
    let hint = if cut {
        Some(format!(
            "{keep} commits fit in this answer: narrow with start_line/end_line or since, or leave out detail"
        ))
    } else {
        r.hint
    };
    let out = HistoryOut {
        path: r.path,
        start_line: r.start_line,
        end_line: r.end_line,
        commits,
        truncated: r.truncated || cut,
        hint,
        redacted: redacted(r.redacted),
        deleted_in: r.deleted_in,
    };
    answer(&out, render::history(&out))
}

pub fn blame(svc: &Service, args: BlameArgs) -> Result<Answer> {
    check_range(args.start_line, args.end_line)?;
    let req = BlameRequest {
        path: args.path,
        start_line: args.start_line,
        end_line: args.end_line,
    };
    let r = svc.blame(&req)?;
    let budget = BUDGET_CHARS - OVERHEAD_CHARS;
    let mut used = 0;
    let mut hunks: Vec<BlameHunkOut> = Vec::new();
    let mut cut = false;
    for l in r.lines {
        let short = r
            .commits
            .get(l.commit)
            .map(|c| c.short.as_str())
            .unwrap_or_default();
        let same = hunks
            .last()
            .is_some_and(|h| h.commit == short && h.end_line + 1 == l.line);
        // Text and structured content both carry the line (`N\ttext` and a
        // JSON string); a new hunk adds its commit's header and fields.
        used += (l.text.len() + 8) * 2 + if same { 0 } else { 120 };
        if used > budget && !hunks.is_empty() {
            cut = true;
            break;
        }
        match hunks.last_mut() {
            Some(h) if same => {
                h.end_line = l.line;
                h.lines.push(l.text);
            }
            _ => hunks.push(BlameHunkOut {
                commit: short.to_string(),
                start_line: l.line,
                end_line: l.line,
                lines: vec![l.text],
            }),
        }
    }
    let end_line = hunks.last().map_or(r.end_line, |h| h.end_line);
    let mut commits: Vec<CommitOut> = Vec::new();
    for c in r.commits {
        if hunks.iter().any(|h| h.commit == c.short) {
            commits.push(c.into());
        }
    }
    let hint = if cut {
        Some(format!(
            "lines {}-{end_line} shown: call again with start_line: {} for the rest",
            r.start_line,
            end_line + 1
        ))
    } else if r.truncated {
        Some(format!(
            "lines {}-{end_line} shown (at most 500 per call): call again with start_line: {}",
            r.start_line,
            end_line + 1
        ))
    } else {
        // An end past the file's last line: the library says so (the
        // rewrite above had offered a start line past the end).
        r.hint
    };
    let out = BlameOut {
        path: r.path,
        start_line: r.start_line,
        end_line,
        total_lines: r.total_lines,
        commits,
        hunks,
        truncated: r.truncated || cut,
        hint,
        redacted: redacted(r.redacted),
    };
    answer(&out, render::blame(&out))
}
