//! Owns cutting a file into chunks, the unit of BM25 (and later vector)
//! search. Code with a grammar is cut along its definitions; other code by
//! line windows; docs by headings and paragraphs. Does not parse (the
//! definitions come from `tags`).
//!
//! **Invariant**: every non-blank line of the file is in at least one chunk.
//! Chunks may overlap (windows of a long function share lines).
//!
//! Code chunks, in order of precedence:
//! 1. a function or method with a body: its lines, with the decorators,
//!    attributes and comments just above; windowed when long;
//! 2. a container (class, struct, impl, module, ...) with such members: a
//!    header from its start to its first member, at most [`HEADER_LINES`];
//!    a container without members is chunked like a function;
//! 3. everything else (imports, constants, fields, statements): blocks of
//!    consecutive leftover lines with the same innermost container, at most
//!    [`BLOCK_LINES`], cut at blank lines when possible. A leftover that is
//!    only closing brackets (`}`, `end`) joins the chunk just above.

use std::path::Path;

use super::lines::Lines;
use super::tags::{Def, truncate_chars};
use crate::model::Chunk;
use crate::model::is_container_kind;

/// A definition longer than this many lines is cut into windows.
pub(crate) const MAX_SYMBOL_LINES: usize = 60;
/// A definition larger than this many bytes is cut into windows, and a
/// window holds at most this many bytes (or one line).
pub(crate) const MAX_SYMBOL_BYTES: usize = 3000;
/// Lines per window of a long definition.
pub(crate) const WINDOW_LINES: usize = 50;
/// A leftover block of at most this many comment lines is a section title.
const TITLE_LINES: usize = 3;
/// Lines shared by consecutive windows (less for windows shortened by bytes).
pub(crate) const WINDOW_OVERLAP: usize = 10;
/// A container's header chunk stops after this many lines.
pub(crate) const HEADER_LINES: usize = 60;
/// Leftover blocks, other-code windows and doc chunks hold at most this many lines.
pub(crate) const BLOCK_LINES: usize = 50;
/// Doc paragraphs are grouped until a chunk would pass this many bytes.
const DOC_BYTES: usize = 4000;
/// A chunk whose text is larger than this is re-cut by bytes (minified
/// code, data blobs): lines grouped up to [`SLICE_BYTES`], longer lines sliced.
pub(crate) const MAX_CHUNK_BYTES: usize = 8 * 1024;
pub(crate) const SLICE_BYTES: usize = 4 * 1024;
/// Heading texts are cut to this many characters.
const MAX_HEADING_CHARS: usize = 200;

/// A chunk before its text is cut out: 0-based inclusive rows.
#[derive(Debug, Clone)]
pub(crate) struct Piece {
    start: usize,
    end: usize,
    symbol: Option<String>,
    kind: Option<&'static str>,
    /// Only closing brackets: joins the chunk above instead.
    closer: bool,
    /// Only a few comment lines: joins the chunk below instead.
    title: bool,
}

impl Piece {
    fn new(start: usize, end: usize, label: Option<(&str, &'static str)>) -> Piece {
        Piece {
            start,
            end,
            symbol: label.map(|l| l.0.to_string()),
            kind: label.map(|l| l.1),
            closer: false,
            title: false,
        }
    }
}

/// Symbol-aligned chunks of a file with a grammar. `defs` are sorted with
/// outer definitions before inner ones and carry parent links.
///
/// A short leftover block of comments only (a section title such as
/// `## Setup helpers` or `// --- parsing ---`, blank lines away from what
/// follows) joins the chunk below it: alone it is a chunk of a few words
/// that matches many questions and answers none. `comments` are the
/// language's line prefixes of what sits above a definition; attribute
/// prefixes among them (`#[`, `@`, `[`) do not count as comments.
pub(crate) fn chunk_code(lines: &Lines<'_>, defs: &[Def], comments: &[&str]) -> Vec<Piece> {
    let n = lines.count();
    if n == 0 {
        return Vec::new();
    }
    // A definition gets chunks of its own when it is chunkable and every
    // chunkable definition around it is a container that got chunks too:
    // a function nested in a function stays in its parent's chunk.
    let mut chunk_parent = vec![None; defs.len()];
    let mut emitted = vec![false; defs.len()];
    for i in 0..defs.len() {
        let mut p = defs[i].parent;
        while let Some(j) = p {
            if defs[j].chunkable {
                break;
            }
            p = defs[j].parent;
        }
        chunk_parent[i] = p;
        emitted[i] = defs[i].chunkable
            && p.is_none_or(|j| {
                emitted[j] && is_container_kind(defs[j].kind) && !is_callable(&defs[j])
            });
    }
    let chunk_start = |i: usize| -> usize {
        let d = &defs[i];
        // Comments above a member never reach above its container's first line.
        let floor = chunk_parent[i].map_or(0, |j| defs[j].start_row + 1);
        d.doc_start_row.max(floor).min(d.start_row)
    };
    let mut first_member: Vec<Option<usize>> = vec![None; defs.len()];
    for i in 0..defs.len() {
        if let (true, Some(p)) = (emitted[i], chunk_parent[i]) {
            let s = chunk_start(i);
            first_member[p] = Some(first_member[p].map_or(s, |f: usize| f.min(s)));
        }
    }

    let mut pieces = Vec::new();
    let mut covered = vec![false; n];
    let mut owner: Vec<Option<usize>> = vec![None; n];
    for i in 0..defs.len() {
        if !emitted[i] {
            continue;
        }
        let d = &defs[i];
        let s = chunk_start(i).min(n - 1);
        let e = d.end_row.min(n - 1).max(s);
        let label = Some((d.path.as_str(), d.kind));
        if let Some(first) = first_member[i] {
            if first > s {
                let header_end = (first - 1).min(s + HEADER_LINES - 1).min(e);
                if let Some((hs, he)) = trim_blank(lines, s, header_end) {
                    pieces.push(Piece::new(hs, he, label));
                }
                covered[s..=header_end].iter_mut().for_each(|c| *c = true);
            }
            // Lines of the container its members do not cover are its own.
            owner[s..=e].iter_mut().for_each(|o| *o = Some(i));
        } else {
            push_windows(lines, s, e, label, &mut pieces);
            covered[s..=e].iter_mut().for_each(|c| *c = true);
        }
    }

    let mut row = 0;
    while row < n {
        if covered[row] {
            row += 1;
            continue;
        }
        let (start, who) = (row, owner[row]);
        while row < n && !covered[row] && owner[row] == who {
            row += 1;
        }
        let label = who.map(|i| (defs[i].path.as_str(), defs[i].kind));
        for (a, b) in split_blocks(lines, start, row - 1, BLOCK_LINES) {
            let label = sole_definition(defs, lines, a, b)
                .map(|k| (defs[k].path.as_str(), defs[k].kind))
                .or(label);
            let mut piece = Piece::new(a, b, label);
            piece.closer = is_closer_block(lines, a, b);
            piece.title = !piece.closer && is_title_block(lines, a, b, comments);
            pieces.push(piece);
        }
    }
    join_titles(lines, merge_closers(lines, pieces))
}

/// The definition a leftover block is made of, with its doc comment: a
/// one-line function under its comment (`func BindEnv(…) error { return
/// v.BindEnv(…) }`) is a chunk named after it, not an unnamed block. A block
/// with other code or several one-liners keeps its owner's name.
fn sole_definition(defs: &[Def], lines: &Lines<'_>, a: usize, b: usize) -> Option<usize> {
    // `defs` are sorted by start: those starting in the block, found
    // without a pass over the file's definitions per block.
    let from = defs.partition_point(|d| d.start_row < a);
    let to = defs.partition_point(|d| d.start_row <= b);
    let mut inside = (from..to).filter(|&k| defs[k].parent.is_none_or(|p| defs[p].start_row < a));
    let k = inside.next()?;
    let d = &defs[k];
    let doc = d.doc_start_row.min(d.start_row);
    let alone = inside.next().is_none()
        && d.end_row <= b
        && (a..doc).all(|r| lines.is_blank(r))
        && (d.end_row + 1..=b).all(|r| lines.is_blank(r));
    alone.then_some(k)
}

/// A section title above code: at most [`TITLE_LINES`] lines, every one
/// blank or a comment.
fn is_title_block(lines: &Lines<'_>, a: usize, b: usize, comments: &[&str]) -> bool {
    let mut text = 0;
    for r in a..=b {
        let t = lines.line(r).trim_start();
        if t.is_empty() {
            continue;
        }
        text += 1;
        let comment = comments
            .iter()
            .filter(|p| !matches!(**p, "#[" | "@" | "["))
            .any(|p| t.starts_with(p));
        if !comment || text > TITLE_LINES {
            return false;
        }
    }
    text > 0
}

/// Joins each title block to the chunk starting below it (only blank lines
/// in between); keeps it as its own chunk otherwise. `pieces` are sorted.
fn join_titles(lines: &Lines<'_>, pieces: Vec<Piece>) -> Vec<Piece> {
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    let mut title: Option<Piece> = None;
    for mut p in pieces {
        if let Some(t) = title.take() {
            if p.start > t.end && (t.end + 1..p.start).all(|r| lines.is_blank(r)) {
                p.start = t.start;
            } else {
                out.push(t);
            }
        }
        if p.title {
            title = Some(p);
        } else {
            out.push(p);
        }
    }
    out.extend(title);
    out
}

fn is_callable(d: &Def) -> bool {
    d.callable != super::tags::Callable::No
}

/// Lines that only close something: `}`, `});`, `end`, `]`.
fn is_closer_block(lines: &Lines<'_>, a: usize, b: usize) -> bool {
    let mut non_blank = 0;
    for r in a..=b {
        // `}  // namespace ui` and `end # class Foo` close too.
        let line = lines.line(r);
        let code = line.split("//").next().unwrap_or(line);
        let code = code.split('#').next().unwrap_or(code);
        let t = code.trim();
        if t.is_empty() {
            if line.trim().is_empty() {
                continue;
            }
            // A comment-only line is not a closer.
            return false;
        }
        non_blank += 1;
        let closes = t == "end"
            || t.bytes()
                .all(|c| matches!(c, b'}' | b')' | b']' | b';' | b',' | b' '));
        if !closes || non_blank > 3 {
            return false;
        }
    }
    non_blank > 0
}

/// Joins closer-only leftovers to the chunk ending just above them (only
/// blank lines in between); keeps them as their own chunk otherwise.
fn merge_closers(lines: &Lines<'_>, mut pieces: Vec<Piece>) -> Vec<Piece> {
    pieces.sort_by_key(|p| (p.start, p.end));
    let mut out: Vec<Piece> = Vec::with_capacity(pieces.len());
    for p in pieces {
        if p.closer {
            let above = out
                .iter()
                .enumerate()
                .rev()
                .take(16)
                .filter(|(_, q)| q.end < p.start)
                .max_by_key(|(_, q)| q.end)
                .map(|(k, _)| k);
            if let Some(k) = above
                && (out[k].end + 1..p.start).all(|r| lines.is_blank(r))
            {
                out[k].end = p.end;
                continue;
            }
        }
        out.push(p);
    }
    out
}

/// Rows `s..=e` without blank lines at either end; `None` if all blank.
fn trim_blank(lines: &Lines<'_>, mut s: usize, mut e: usize) -> Option<(usize, usize)> {
    while s <= e && lines.is_blank(s) {
        s += 1;
    }
    while e > s && lines.is_blank(e) {
        e -= 1;
    }
    (s <= e && !lines.is_blank(s)).then_some((s, e))
}

/// One chunk for a definition, or windows of at most [`WINDOW_LINES`] lines
/// and [`MAX_SYMBOL_BYTES`] bytes overlapping by up to [`WINDOW_OVERLAP`]
/// lines when it is long.
fn push_windows(
    lines: &Lines<'_>,
    s: usize,
    e: usize,
    label: Option<(&str, &'static str)>,
    out: &mut Vec<Piece>,
) {
    if e + 1 - s <= MAX_SYMBOL_LINES && lines.bytes_between(s, e) <= MAX_SYMBOL_BYTES {
        if let Some((a, b)) = trim_blank(lines, s, e) {
            out.push(Piece::new(a, b, label));
        }
        return;
    }
    let mut w = s;
    loop {
        let mut end = w;
        let mut bytes = lines.len_of(w);
        while end < e && end + 1 - w < WINDOW_LINES {
            let next = lines.len_of(end + 1) + 1;
            if bytes + next > MAX_SYMBOL_BYTES {
                break;
            }
            bytes += next;
            end += 1;
        }
        // A tail of a few lines joins the last window instead of standing alone.
        if e - end <= WINDOW_OVERLAP / 2 {
            end = e;
        }
        if let Some((a, b)) = trim_blank(lines, w, end) {
            out.push(Piece::new(a, b, label));
        }
        if end >= e {
            break;
        }
        let overlap = ((end + 1 - w) / 4).min(WINDOW_OVERLAP);
        w = (end + 1 - overlap).max(w + 1);
    }
}

/// Rows `s..=e` cut into blocks of at most `max` lines, preferably at blank
/// lines, without blank lines at their ends; all-blank blocks are dropped.
fn split_blocks(lines: &Lines<'_>, s: usize, e: usize, max: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let Some((mut s, e)) = trim_blank(lines, s, e) else {
        return out;
    };
    while s <= e {
        if e + 1 - s <= max {
            out.extend(trim_blank(lines, s, e));
            break;
        }
        let blank = (s + max / 2..=s + max).rev().find(|&r| lines.is_blank(r));
        let next = match blank {
            Some(b) => {
                out.extend(trim_blank(lines, s, b - 1));
                b + 1
            }
            None => {
                out.extend(trim_blank(lines, s, s + max - 1));
                s + max
            }
        };
        s = next;
        while s <= e && lines.is_blank(s) {
            s += 1;
        }
    }
    out
}

/// Line windows for code without a grammar (and minified code): blocks of
/// at most [`BLOCK_LINES`] lines cut at blank lines when possible.
pub(crate) fn chunk_plain(lines: &Lines<'_>) -> Vec<Piece> {
    if lines.count() == 0 {
        return Vec::new();
    }
    split_blocks(lines, 0, lines.count() - 1, BLOCK_LINES)
        .into_iter()
        .map(|(a, b)| Piece::new(a, b, None))
        .collect()
}

/// How a docs file marks its headings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DocStyle {
    /// `# Title` and setext `Title` over `=====`/`-----`, outside code fences.
    Markdown,
    /// A title line underlined (and maybe overlined) with punctuation.
    Rst,
    /// `= Title`, `== Section`.
    Asciidoc,
    /// `* Title`, `** Section`.
    Org,
    /// No headings: paragraphs only.
    Plain,
}

impl DocStyle {
    pub(crate) fn for_path(path: &str) -> DocStyle {
        let ext = Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("md" | "markdown") => DocStyle::Markdown,
            Some("rst") => DocStyle::Rst,
            Some("adoc" | "asciidoc") => DocStyle::Asciidoc,
            Some("org") => DocStyle::Org,
            _ => DocStyle::Plain,
        }
    }
}

/// Docs chunks: sections at headings, each cut at blank lines into chunks
/// of at most [`BLOCK_LINES`] lines and about [`DOC_BYTES`] bytes; symbol =
/// the section's heading, kind = `section`.
pub(crate) fn chunk_docs(lines: &Lines<'_>, style: DocStyle) -> Vec<Piece> {
    let n = lines.count();
    let headings = find_headings(lines, style);
    let mut pieces = Vec::new();
    let mut section_starts: Vec<(usize, Option<String>)> = Vec::with_capacity(headings.len() + 1);
    if headings.first().is_none_or(|h| h.0 > 0) {
        section_starts.push((0, None));
    }
    section_starts.extend(headings.into_iter().map(|(row, title)| (row, Some(title))));
    for (k, (start, title)) in section_starts.iter().enumerate() {
        let end = section_starts.get(k + 1).map_or(n, |next| next.0);
        if *start >= end {
            continue;
        }
        let label = title.as_deref().map(|t| (t, "section"));
        chunk_paragraphs(lines, *start, end - 1, label, &mut pieces);
    }
    pieces
}

/// Groups the paragraphs of rows `s..=e` into chunks.
fn chunk_paragraphs(
    lines: &Lines<'_>,
    s: usize,
    e: usize,
    label: Option<(&str, &'static str)>,
    out: &mut Vec<Piece>,
) {
    let mut acc: Option<(usize, usize)> = None;
    let mut row = s;
    while row <= e {
        if lines.is_blank(row) {
            row += 1;
            continue;
        }
        let para_start = row;
        while row <= e && !lines.is_blank(row) {
            row += 1;
        }
        let para_end = row - 1;
        if para_end + 1 - para_start > BLOCK_LINES {
            if let Some((a, b)) = acc.take() {
                out.push(Piece::new(a, b, label));
            }
            let mut a = para_start;
            while a <= para_end {
                let b = (a + BLOCK_LINES - 1).min(para_end);
                out.push(Piece::new(a, b, label));
                a = b + 1;
            }
            continue;
        }
        acc = match acc {
            Some((a, b))
                if para_end + 1 - a > BLOCK_LINES
                    || lines.bytes_between(a, para_end) > DOC_BYTES =>
            {
                out.push(Piece::new(a, b, label));
                Some((para_start, para_end))
            }
            Some((a, _)) => Some((a, para_end)),
            None => Some((para_start, para_end)),
        };
    }
    if let Some((a, b)) = acc {
        out.push(Piece::new(a, b, label));
    }
}

/// Rows where sections start, with their heading text.
fn find_headings(lines: &Lines<'_>, style: DocStyle) -> Vec<(usize, String)> {
    let n = lines.count();
    let mut out = Vec::new();
    let mut in_fence: Option<&str> = None;
    let mut row = 0;
    while row < n {
        let line = lines.line(row);
        let t = line.trim();
        match style {
            DocStyle::Markdown => {
                let indent = line.len() - line.trim_start().len();
                let fence = ["```", "~~~"].into_iter().find(|f| t.starts_with(f));
                if let Some(f) = fence.filter(|_| indent < 4) {
                    match in_fence {
                        Some(open) if open == f => in_fence = None,
                        None => in_fence = Some(f),
                        Some(_) => {}
                    }
                } else if in_fence.is_none() && indent < 4 {
                    if let Some(title) = atx_heading(t) {
                        out.push((row, title));
                    } else if !t.is_empty()
                        && !t.starts_with(['-', '*', '+', '>', '|'])
                        && (row == 0 || lines.is_blank(row - 1))
                        && row + 1 < n
                        && is_setext_underline(lines.line(row + 1).trim())
                    {
                        out.push((row, heading_text(t)));
                        row += 1;
                    }
                }
            }
            DocStyle::Rst => {
                if !t.is_empty()
                    && !line.starts_with(char::is_whitespace)
                    && !is_rst_adornment(t)
                    && row + 1 < n
                    && is_rst_adornment(lines.line(row + 1).trim_end())
                    && lines.line(row + 1).trim_end().chars().count() >= t.chars().count().min(3)
                {
                    let overlined = row > 0 && is_rst_adornment(lines.line(row - 1).trim_end());
                    let start = if overlined { row - 1 } else { row };
                    if out.last().is_none_or(|(r, _)| *r < start) {
                        out.push((start, heading_text(t)));
                    }
                    row += 1;
                }
            }
            DocStyle::Asciidoc => {
                if let Some(title) = prefixed_heading(t, '=') {
                    out.push((row, title));
                }
            }
            DocStyle::Org => {
                if let Some(title) = prefixed_heading(line, '*') {
                    out.push((row, title));
                }
            }
            DocStyle::Plain => {}
        }
        row += 1;
    }
    out
}

fn heading_text(t: &str) -> String {
    truncate_chars(t.trim(), MAX_HEADING_CHARS).to_string()
}

/// `## Title ##` → `Title`.
fn atx_heading(t: &str) -> Option<String> {
    let hashes = t.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &t[hashes..];
    if !rest.is_empty() && !rest.starts_with([' ', '\t']) {
        return None;
    }
    let title = rest.trim().trim_end_matches('#').trim();
    (!title.is_empty()).then(|| heading_text(title))
}

fn is_setext_underline(t: &str) -> bool {
    t.len() >= 2 && (t.bytes().all(|b| b == b'=') || t.bytes().all(|b| b == b'-'))
}

/// A line of one repeated punctuation character, at least 3 long.
fn is_rst_adornment(t: &str) -> bool {
    let mut chars = t.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    "=-~^\"'`+*#:._<>!$%&(),/;?@[\\]{|}".contains(first)
        && t.chars().count() >= 3
        && chars.all(|c| c == first)
}

/// `== Title` (Asciidoc) or `** Title` (Org): marker run then a space.
fn prefixed_heading(t: &str, marker: char) -> Option<String> {
    let count = t.chars().take_while(|&c| c == marker).count();
    if count == 0 || count > 6 {
        return None;
    }
    let rest = &t[count..];
    if !rest.starts_with(' ') {
        return None;
    }
    let title = rest.trim();
    (!title.is_empty()).then(|| heading_text(title))
}

/// Sorts the pieces, cuts their text out, and re-cuts any larger than
/// [`MAX_CHUNK_BYTES`] (minified code, data blobs) by bytes.
pub(crate) fn finish(lines: &Lines<'_>, mut pieces: Vec<Piece>) -> Vec<Chunk> {
    pieces.sort_by_key(|p| (p.start, p.end));
    let mut chunks = Vec::with_capacity(pieces.len());
    for p in pieces {
        let text = lines.text(p.start, p.end);
        if text.len() <= MAX_CHUNK_BYTES {
            chunks.push(make_chunk(lines, &p, p.start, p.end, text));
            continue;
        }
        let mut row = p.start;
        while row <= p.end {
            if lines.len_of(row) > SLICE_BYTES {
                for slice in slice_line(lines.line(row), SLICE_BYTES) {
                    if !slice.trim().is_empty() {
                        chunks.push(make_chunk(lines, &p, row, row, slice));
                    }
                }
                row += 1;
                continue;
            }
            let first = row;
            let mut bytes = lines.len_of(row);
            while row < p.end
                && lines.len_of(row + 1) <= SLICE_BYTES
                && bytes + lines.len_of(row + 1) < SLICE_BYTES
            {
                row += 1;
                bytes += lines.len_of(row) + 1;
            }
            if let Some((a, b)) = trim_blank(lines, first, row) {
                chunks.push(make_chunk(lines, &p, a, b, lines.text(a, b)));
            }
            row += 1;
        }
    }
    chunks
}

/// A chunk of `text`, a slice of the file's text `lines` holds.
fn make_chunk(lines: &Lines<'_>, p: &Piece, start: usize, end: usize, text: &str) -> Chunk {
    let start_byte = lines.offset_of(text);
    Chunk {
        start_line: super::tags::to_line(start),
        end_line: super::tags::to_line(end),
        symbol: p.symbol.clone(),
        kind: p.kind.map(str::to_string),
        start_byte,
        end_byte: start_byte + text.len(),
        text: text.to_string(),
    }
}

/// Cuts one long line into slices of at most `max` bytes, preferably right
/// after a space or punctuation near the limit, always at char boundaries.
fn slice_line(line: &str, max: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(line.len() / max + 1);
    let mut rest = line;
    while rest.len() > max {
        let mut cut = max;
        while cut > 0 && !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let window = cut.saturating_sub(256);
        if let Some(k) = rest.as_bytes()[window..cut]
            .iter()
            .rposition(|b| matches!(b, b' ' | b';' | b',' | b'}' | b')'))
        {
            let better = window + k + 1;
            if better > 0 && rest.is_char_boundary(better) {
                cut = better;
            }
        }
        if cut == 0 {
            // Unreachable for max >= 4; never loop forever.
            cut = rest.chars().next().map_or(rest.len(), char::len_utf8);
        }
        out.push(&rest[..cut]);
        rest = &rest[cut..];
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(src: &str) -> Vec<Chunk> {
        let lines = Lines::new(src);
        finish(&lines, chunk_plain(&lines))
    }

    #[test]
    fn split_blocks_prefers_blank_lines_and_drops_blank_blocks() {
        let mut src = String::new();
        for i in 0..120 {
            if i % 30 == 29 {
                src.push('\n');
            } else {
                src.push_str(&format!("line {i}\n"));
            }
        }
        let chunks = plain(&src);
        assert!(
            chunks
                .iter()
                .all(|c| c.end_line - c.start_line < BLOCK_LINES as u32)
        );
        assert_eq!(chunks[0].start_line, 1);
        // Lines 30, 60, 90 are blank; line 30 is the only one within the
        // first 50 lines, so the first block stops just before it.
        assert_eq!(chunks[0].end_line, 29);
        assert_eq!(plain("\n\n   \n\t\n"), vec![]);
        assert_eq!(plain(""), vec![]);
    }

    #[test]
    fn huge_single_line_is_sliced_by_bytes() {
        let line = "var a=1;".repeat(100_000);
        let chunks = plain(&line);
        assert!(chunks.len() >= line.len() / SLICE_BYTES);
        assert!(
            chunks
                .iter()
                .all(|c| c.text.len() <= SLICE_BYTES && c.start_line == 1)
        );
        let total: usize = chunks.iter().map(|c| c.text.len()).sum();
        assert_eq!(total, line.len());
    }

    #[test]
    fn slice_line_respects_char_boundaries() {
        let line = "é".repeat(10_000);
        for s in slice_line(&line, 4096) {
            assert!(s.len() <= 4096 && !s.is_empty());
        }
        assert_eq!(slice_line(&line, 4096).concat(), line);
    }

    #[test]
    fn docs_markdown_sections_and_fences() {
        let src = "Intro text\n\n# Install\n\nRun it.\n\n```sh\n# not a heading\n```\n\n## Usage ##\nUse it.\n\nSetext\n======\nbody\n";
        let lines = Lines::new(src);
        let chunks = finish(&lines, chunk_docs(&lines, DocStyle::Markdown));
        let got: Vec<(u32, u32, Option<&str>)> = chunks
            .iter()
            .map(|c| (c.start_line, c.end_line, c.symbol.as_deref()))
            .collect();
        assert_eq!(
            got,
            vec![
                (1, 1, None),
                (3, 9, Some("Install")),
                (11, 12, Some("Usage")),
                (14, 16, Some("Setext"))
            ]
        );
        assert!(
            chunks[1..]
                .iter()
                .all(|c| c.kind.as_deref() == Some("section"))
        );
        assert_eq!(chunks[0].kind, None);
    }

    #[test]
    fn docs_rst_titles_with_overlines() {
        let src = "=====\nTitle\n=====\n\nIntro.\n\nSection\n-------\n\nText.\n";
        let lines = Lines::new(src);
        let chunks = finish(&lines, chunk_docs(&lines, DocStyle::Rst));
        let got: Vec<(u32, u32, Option<&str>)> = chunks
            .iter()
            .map(|c| (c.start_line, c.end_line, c.symbol.as_deref()))
            .collect();
        assert_eq!(got, vec![(1, 5, Some("Title")), (7, 10, Some("Section"))]);
    }

    #[test]
    fn docs_long_section_is_cut_at_paragraphs() {
        let mut src = String::from("# Big\n");
        for p in 0..10 {
            for l in 0..9 {
                src.push_str(&format!("paragraph {p} line {l}\n"));
            }
            src.push('\n');
        }
        let lines = Lines::new(&src);
        let chunks = finish(&lines, chunk_docs(&lines, DocStyle::Markdown));
        assert!(chunks.len() >= 2);
        assert!(
            chunks
                .iter()
                .all(|c| c.end_line + 1 - c.start_line <= BLOCK_LINES as u32)
        );
        assert!(chunks.iter().all(|c| c.symbol.as_deref() == Some("Big")));
        // Chunks end at paragraph ends (the line before a blank line).
        for c in &chunks {
            assert!(lines.is_blank(c.end_line as usize) || c.end_line as usize == lines.count());
        }
    }

    #[test]
    fn docs_plain_text_has_no_sections() {
        let lines = Lines::new("# not a heading in a .txt\n\nsecond paragraph\n");
        let chunks = finish(&lines, chunk_docs(&lines, DocStyle::for_path("notes.txt")));
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0].symbol, None);
    }
}
