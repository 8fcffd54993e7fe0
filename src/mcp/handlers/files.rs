//! `search_keyword` and `read_file`: the files on disk, without the index.

use anyhow::Result;

use crate::error::UserError;
use crate::mcp::catalogue::{MAX_PATTERNS, ReadFileArgs, SearchKeywordArgs};
use crate::mcp::out::{
    Answer, BUDGET_CHARS, KeywordMatchOut, KeywordOut, LINE_CHARS, LineOut, OVERHEAD_CHARS, Page,
    ReadOut, answer, redacted,
};
use crate::mcp::render;
use crate::search::bound_line;
use crate::search::keyword::{CaseMode, KeywordRequest};
use crate::search::read::ReadRequest;
use crate::service::Service;
use crate::walk::WalkOptions;

/// Largest file `read_file` opens (it reads the whole file to count lines).
const MAX_READ_BYTES: u64 = 64 << 20;
/// Most lines `read_file` returns in one call.
const MAX_READ_LINES: u64 = 1_000;

/// The patterns of a `search_keyword` call: `pattern` or `patterns`.
fn keyword_patterns(pattern: Option<String>, patterns: Option<Vec<String>>) -> Result<Vec<String>> {
    const EITHER: &str = "`pattern`: a regex (or literal text with fixed_strings); or `patterns`: a list of up to 10, any of which may match";
    match (pattern, patterns) {
        (Some(_), Some(_)) => Err(UserError::new("give either `pattern` or `patterns`, not both")
            .hint("`pattern` for one pattern; `patterns` (a list of up to 10) to match any of several")
            .into()),
        (Some(p), None) if p.trim().is_empty() => {
            Err(UserError::new("`pattern` is empty").hint(EITHER).into())
        }
        (Some(p), None) => Ok(vec![p]),
        (None, Some(ps)) if ps.is_empty() => Err(UserError::new("`patterns` is empty")
            .hint(format!("give 1 to {MAX_PATTERNS} patterns, or one `pattern`"))
            .into()),
        (None, Some(ps)) => Ok(ps),
        (None, None) => Err(UserError::new("missing required argument `pattern`")
            .hint(EITHER)
            .into()),
    }
}

/// `search_keyword`: the arguments mean what `repo-search keyword`'s flags
/// do (`-e`, `-F`, `-i`, `-S`, `-w`, `-v`, `-t`, `-T`, `-g`, `--hidden`,
/// `--no-ignore`, `-C`, `-B`, `-A`, `-m`, `--max-results`).
pub fn search_keyword(svc: &Service, args: SearchKeywordArgs) -> Result<Answer> {
    let max_results = args.max_results;
    let case = if args.case_insensitive {
        CaseMode::Insensitive
    } else if args.smart_case {
        CaseMode::Smart
    } else {
        CaseMode::Sensitive
    };
    let req = KeywordRequest {
        patterns: keyword_patterns(args.pattern, args.patterns)?,
        fixed_strings: args.fixed_strings,
        case,
        word: args.word,
        before_context: args.before_context.unwrap_or(args.context),
        after_context: args.after_context.unwrap_or(args.context),
        max_count: args.max_count,
        max_results: Some(max_results),
        walk: WalkOptions {
            hidden: args.hidden,
            no_ignore: args.no_ignore,
            globs: args.glob,
            types: args.file_type,
            types_not: args.type_not,
            ..WalkOptions::default()
        },
        paths: Vec::new(),
        no_index: false,
        // The answer shows lines, not where on them the matches are.
        first_match_only: true,
        invert_match: args.invert_match,
    };
    let result = svc.keyword(&req, &[])?;
    let ctx = |c: &crate::search::keyword::ContextLine| LineOut {
        line: c.line,
        text: bound_line(&c.text, LINE_CHARS),
    };
    let all = result.matches.iter().map(|m| KeywordMatchOut {
        path: m.path.clone(),
        line: m.line,
        text: bound_line(&m.text, LINE_CHARS),
        before: m.before.iter().map(ctx).collect(),
        after: m.after.iter().map(ctx).collect(),
    });
    let page = Page::new(all, 0, None, BUDGET_CHARS - OVERHEAD_CHARS);
    let (shown, dropped) = (page.shown(), page.dropped);
    let truncated = result.truncated || page.cut();
    let total = result.total_matches.max(shown);
    let hint = if truncated {
        let raise = if max_results < 500 && dropped == 0 {
            ", or raise max_results (up to 500)"
        } else {
            ""
        };
        Some(format!(
            "{shown} of {total} matching lines shown: narrow with glob (e.g. [\"src/**\", \"*.py\"]), word: true or a more specific pattern{raise}"
        ))
    } else if shown == 0 && result.files_searched == 0 {
        Some("no files were searched: the glob, or the hidden and ignore rules, left nothing to search; check the glob, or set hidden: true / no_ignore: true".to_string())
    } else if shown == 0 {
        Some(if args.fixed_strings || args.case_insensitive {
            "no matches: check the spelling, or widen the glob".to_string()
        } else {
            "no matches: try case_insensitive: true, fixed_strings: true for literal text with regex characters, or search for a concept".to_string()
        })
    } else {
        None
    };
    let out = KeywordOut {
        matches: page.items,
        total: total as u64,
        files_matched: result.files_matched as u64,
        files_searched: result.files_searched as u64,
        truncated,
        hint,
        redacted: redacted(result.redacted),
    };
    answer(&out, render::keyword(&out))
}

pub fn read_file(svc: &Service, args: ReadFileArgs) -> Result<Answer> {
    let (start, end) = (args.start_line, args.end_line);
    if let (Some(s), Some(e)) = (start, end)
        && s > e
    {
        return Err(
            UserError::new(format!("start_line {s} is after end_line {e}"))
                .hint("give start_line <= end_line")
                .into(),
        );
    }
    let path = args.path;
    let p = crate::paths::resolve_in_root(svc.root(), &path)?;
    let size = std::fs::metadata(&p.abs).map(|m| m.len()).unwrap_or(0);
    if p.abs.is_file() && size > MAX_READ_BYTES {
        return Err(UserError::new(format!(
            "`{}` is too large to read here ({size} bytes, the limit is {MAX_READ_BYTES})",
            p.rel
        ))
        .hint("use search_keyword with a glob for this file to find the lines you need")
        .into());
    }
    let req = ReadRequest {
        path,
        start_line: start,
        end_line: end,
        find: args.r#match,
        context: Some(args.context),
        max_lines: MAX_READ_LINES,
    };
    let r = svc.read(&req)?;
    let mut content = String::new();
    let mut last = r.start_line.saturating_sub(1);
    let budget = BUDGET_CHARS - OVERHEAD_CHARS;
    let mut cut = false;
    for l in &r.lines {
        let piece = format!("{}\t{}\n", l.line, l.text);
        // JSON escaping can grow a line; count its serialized size.
        let cost = serde_json::to_string(&piece)
            .map(|s| s.len())
            .unwrap_or(piece.len());
        if content.len() + cost > budget && last >= r.start_line {
            cut = true;
            break;
        }
        content.push_str(&piece);
        last = l.line;
    }
    if content.ends_with('\n') {
        content.pop();
    }
    let truncated = cut || r.truncated;
    let end_line = if r.lines.is_empty() { r.end_line } else { last };
    let hint = truncated
        .then(|| {
            let wanted_end = end.filter(|&e| e > end_line).map(|e| format!(", end_line: {e}")).unwrap_or_default();
            format!("lines {}-{end_line} of {} shown: call again with start_line: {}{wanted_end} for the next page", r.start_line, r.total_lines, end_line + 1)
        })
        .or_else(|| {
            (r.long_lines_cut > 0).then(|| {
                format!(
                    "{} line(s) longer than {} characters shown cut (…), around the match where they hold it; search_keyword shows other places in them",
                    r.long_lines_cut,
                    crate::search::read::MAX_LINE_CHARS
                )
            })
        });
    let out = ReadOut {
        path: r.path.clone(),
        total_lines: r.total_lines,
        start_line: r.start_line,
        end_line,
        content,
        match_line: r.match_line,
        match_count: r.match_count,
        truncated,
        hint,
        redacted: redacted(r.redacted),
    };
    answer(&out, render::read(&out))
}
