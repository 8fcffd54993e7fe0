//! Owns reading a slice of a project file for display: a line range, or the
//! first occurrence of a text with context. Reads the file on disk (always
//! fresh), never the index.

use anyhow::{Context, Result};
use serde::Serialize;

use crate::error::UserError;
use crate::paths::resolve_in_root;

#[derive(Debug, Clone, Default)]
pub struct ReadRequest {
    pub path: String,
    pub start_line: Option<u64>,
    pub end_line: Option<u64>,
    /// Find the first line containing this text (literal, case-sensitive).
    pub find: Option<String>,
    /// Lines of context around `find` (default 5).
    pub context: Option<u64>,
    /// At most this many lines are returned (the rest is reported as truncated).
    pub max_lines: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Line {
    pub line: u64,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ReadResult {
    pub path: String,
    pub total_lines: u64,
    pub start_line: u64,
    pub end_line: u64,
    pub lines: Vec<Line>,
    /// With `find`: the line of the first occurrence and how many lines match.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_count: Option<u64>,
    pub truncated: bool,
    /// Lines longer than [`MAX_LINE_CHARS`] shown cut (around the match
    /// when they hold it).
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub long_lines_cut: u64,
    /// Secret values shown as `[redacted: …]` (filled in by the service).
    pub redacted: usize,
}

/// Longest line returned, in characters; longer lines are cut with a
/// marker, around the match when they hold it (a minified file's one line).
pub const MAX_LINE_CHARS: usize = 2000;

pub fn read_file(root: &std::path::Path, req: &ReadRequest) -> Result<ReadResult> {
    let p = resolve_in_root(root, &req.path)?;
    if p.abs.is_dir() {
        return Err(UserError::new(format!("`{}` is a directory", req.path))
            .hint("give a file path; `repo-search search FILE_NAME` finds a file by its name")
            .agent("give a file path; search_keyword with a glob lists files")
            .into());
    }
    let bytes = match crate::fs_safe::read_regular(&p.abs) {
        Ok(b) => b,
        Err(e) => {
            if let Some(kind) = crate::fs_safe::not_regular(&e) {
                return Err(crate::fs_safe::not_regular_error(&p.rel, kind).into());
            }
            return Err(e).with_context(|| format!("cannot read `{}`", p.rel));
        }
    };
    // UTF-16 with a byte-order mark is text, as the indexer and ripgrep
    // read it (its NUL bytes made it "binary" here alone).
    if crate::source::is_binary(&bytes) {
        return Err(UserError::new(format!("`{}` is a binary file", p.rel))
            .hint("only text files can be read")
            .into());
    }
    let text = if crate::source::has_utf16_bom(&bytes) {
        std::borrow::Cow::Owned(crate::source::decode(&bytes).map_err(|reason| {
            UserError::new(format!("`{}` cannot be read as text: {reason}", p.rel))
                .hint("only text files can be read")
        })?)
    } else {
        String::from_utf8_lossy(&bytes)
    };
    let all: Vec<&str> = text.lines().collect();
    let total = all.len() as u64;
    let (mut start, mut end, mut match_line, mut match_count) = (1u64, total, None, None);
    if let Some(needle) = req.find.as_deref() {
        if needle.is_empty() {
            return Err(UserError::new("`match` is empty")
                .hint("give the text to find, or a line range instead")
                .into());
        }
        let hits: Vec<u64> = all
            .iter()
            .enumerate()
            .filter(|(_, l)| l.contains(needle))
            .map(|(i, _)| i as u64 + 1)
            .collect();
        let Some(&first) = hits.first() else {
            return Err(UserError::new(format!("`{needle}` does not occur in `{}`", p.rel))
                .hint("the match is literal and case-sensitive; try `repo-search keyword -i` to locate it")
                .agent("the match is literal and case-sensitive; try search_keyword with case_insensitive: true to locate it")
                .into());
        };
        let ctx = req.context.unwrap_or(5);
        start = first.saturating_sub(ctx).max(1);
        end = (first + ctx).min(total);
        match_line = Some(first);
        match_count = Some(hits.len() as u64);
    }
    if let Some(s) = req.start_line {
        start = s.max(1);
    }
    if let Some(e) = req.end_line {
        end = e.min(total);
    }
    if req.start_line.is_some() && req.end_line.is_none() && req.find.is_none() {
        end = total;
    }
    if total > 0 && start > total {
        return Err(UserError::new(format!(
            "line {start} is past the end of `{}` ({total} lines)",
            p.rel
        ))
        .hint(format!("use a start line between 1 and {total}"))
        .into());
    }
    if start > end && total > 0 {
        return Err(UserError::new(format!("empty line range {start}:{end}"))
            .hint("the start line must not be after the end line")
            .into());
    }
    let mut truncated = false;
    if end >= start && end - start + 1 > req.max_lines {
        end = start + req.max_lines - 1;
        truncated = true;
    }
    let mut long_lines_cut = 0;
    let lines = if total == 0 {
        Vec::new()
    } else {
        (start..=end)
            .map(|n| {
                let raw = all[(n - 1) as usize];
                // (A line of at most as many bytes has at most as many
                // characters: most lines are not counted.)
                let long = raw.len() > MAX_LINE_CHARS && raw.chars().count() > MAX_LINE_CHARS;
                let text = if long {
                    long_lines_cut += 1;
                    let at = req
                        .find
                        .as_deref()
                        .and_then(|f| raw.find(f).map(|s| (s, s + f.len())));
                    let ranges = at.into_iter().collect();
                    crate::search::keyword::cut_around(raw.to_string(), ranges, MAX_LINE_CHARS).0
                } else {
                    raw.to_string()
                };
                Line { line: n, text }
            })
            .collect()
    };
    Ok(ReadResult {
        path: p.rel,
        total_lines: total,
        start_line: start,
        end_line: end.max(start.min(total)),
        lines,
        match_line,
        match_count,
        truncated,
        long_lines_cut,
        redacted: 0,
    })
}
