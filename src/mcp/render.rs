//! The text content of every successful tool result: a compact, readable
//! rendering of the same answer as `structuredContent`, for clients that do
//! not read structured results. One line per hit
//! (`path:start-end  kind symbol  [arms]`), its best lines indented with
//! their numbers, then `more: offset=N` when more exist and `note:` /
//! `hint:` lines. Renders the output shapes of [`out`](super::out) after
//! they are fitted, so the text lists exactly the hits of the JSON. Errors
//! are not rendered here (`mod.rs` writes their `error:`/`code:`/`hint:`).

use crate::search::graph::Direction;
use std::fmt::Write as _;

use super::out::{
    BlameOut, BulkEntry, BulkSearchOut, CallGraphOut, ChunkOut, CompactSearchOut,
    CompactSemanticOut, ConfigOut, ContextOut, DefsOut, EmbeddingOut, HistoryOut, HitOut,
    ImportsOut, JobOut, KeywordOut, Paging, ReadOut, RefsOut, SearchOut, SearchReply, SemanticOut,
    SizesOut, StatsOut, StatusOut, SymbolsOut,
};

/// Compact hits: the header line, then the best lines.
fn compact_hits(t: &mut String, hits: &[HitOut], indent: &str) {
    for h in hits {
        let _ = write!(t, "{indent}{}", h.at);
        if let Some(s) = &h.symbol {
            let _ = write!(t, "  {s}");
        }
        if !h.arms.is_empty() {
            let _ = write!(t, "  [{}]", h.arms);
        }
        t.push('\n');
        for l in &h.lines {
            let _ = writeln!(t, "{indent}  {l}");
        }
        also_line(t, &h.also, indent);
    }
}

/// A hit's further places in its file: `  also: 120-140 name; 200-230`.
fn also_line(t: &mut String, also: &[String], indent: &str) {
    if !also.is_empty() {
        let _ = writeln!(
            t,
            "{indent}  also: {}",
            crate::search::hybrid::also_text(also)
        );
    }
}

/// Full hits (`detail`): score and ranks per arm, the whole snippet.
fn detail_hits(t: &mut String, hits: &[ChunkOut], indent: &str) {
    for h in hits {
        let _ = write!(t, "{indent}{}:{}-{}", h.path, h.start_line, h.end_line);
        match (&h.kind, &h.symbol) {
            (Some(k), Some(s)) => {
                let _ = write!(t, "  {k} {s}");
            }
            (None, Some(s)) => {
                let _ = write!(t, "  {s}");
            }
            _ => {}
        }
        let _ = write!(t, "  ({:.3}", h.score);
        if !h.sources.is_empty() {
            let _ = write!(t, "; {}", h.sources.join(" "));
        }
        t.push_str(")\n");
        for (i, line) in h.snippet.lines().enumerate() {
            let _ = writeln!(t, "{indent}  {}: {line}", h.snippet_line as usize + i);
        }
        if !h.file_symbols.is_empty() {
            let _ = writeln!(
                t,
                "{indent}  also in this file: {}",
                h.file_symbols.join(", ")
            );
        }
        also_line(t, &h.also, indent);
    }
}

/// The closing lines: where the next page starts, notes and hints.
fn tail(t: &mut String, next: Option<u64>, note: Option<&str>, hint: Option<&str>) {
    if let Some(n) = next {
        let _ = writeln!(t, "more: offset={n}");
    }
    if let Some(n) = note {
        let _ = writeln!(t, "note: {n}");
    }
    if let Some(h) = hint {
        let _ = writeln!(t, "hint: {h}");
    }
}

/// The line saying how many secret values the answer shows redacted.
fn redacted_tail(t: &mut String, redacted: Option<u64>, indent: &str) {
    if let Some(n) = redacted {
        let s = if n == 1 { "" } else { "s" };
        let _ = writeln!(t, "{indent}note: {n} secret value{s} redacted");
    }
}

fn paging_tail(t: &mut String, p: &Paging, shown: usize) {
    let next = p
        .next_offset
        .or_else(|| (p.truncated == Some(true)).then(|| p.offset.unwrap_or(0) + shown as u64));
    let note = p
        .note
        .as_deref()
        .or_else(|| p.index.as_ref().and_then(|i| i.note.as_deref()));
    // `next` already says how to page; the hint says what else to try.
    tail(t, next, note, p.hint.as_deref().filter(|_| next.is_none()));
    redacted_tail(t, p.redacted, "");
}

fn no_hits(t: &mut String, n: usize) {
    if n == 0 {
        t.push_str("no hits\n");
    }
}

fn compact_hits_of(t: &mut String, c: &CompactSearchOut, indent: &str) {
    no_hits(t, c.hits.len());
    compact_hits(t, &c.hits, indent);
}

fn detail_search(t: &mut String, d: &SearchOut, indent: &str) {
    no_hits(t, d.hits.len());
    detail_hits(t, &d.hits, indent);
}

/// A compact `search` answer of one query.
pub fn compact_search(c: &CompactSearchOut) -> String {
    let mut t = String::new();
    compact_hits_of(&mut t, c, "");
    tail(&mut t, c.next_offset, c.note.as_deref(), c.hint.as_deref());
    redacted_tail(&mut t, c.redacted, "");
    finish(t)
}

/// `search` with one query.
pub fn search(reply: &SearchReply) -> String {
    let mut t = String::new();
    match reply {
        SearchReply::Compact(c) => return compact_search(c),
        SearchReply::Detail(d) => {
            detail_search(&mut t, d, "");
            let next = d.truncated.then(|| d.offset + d.hits.len() as u64);
            if let Some(q) = &d.query_interpretation {
                let _ = writeln!(t, "query: {q}");
            }
            tail(
                &mut t,
                next,
                d.index.note.as_deref(),
                d.hint.as_deref().filter(|_| next.is_none()),
            );
            redacted_tail(&mut t, d.redacted, "");
        }
    }
    finish(t)
}

/// `search` with `queries`: per query its hits, or its error and hint.
pub fn bulk(out: &BulkSearchOut) -> String {
    let answered = out
        .results
        .iter()
        .filter(|e| matches!(e, BulkEntry::Answer(_)))
        .count();
    let mut t = format!("{answered} of {} queries answered\n", out.results.len());
    for e in &out.results {
        match e {
            BulkEntry::Answer(SearchReply::Compact(c)) => {
                let q = c.query.as_deref().unwrap_or_default();
                let _ = writeln!(t, "\n`{q}`:");
                compact_hits_of(&mut t, c, "  ");
                if let Some(n) = c.next_offset {
                    let _ = writeln!(t, "  more: offset={n}");
                }
                if let Some(n) = &c.note {
                    let _ = writeln!(t, "  note: {n}");
                }
                redacted_tail(&mut t, c.redacted, "  ");
            }
            BulkEntry::Answer(SearchReply::Detail(d)) => {
                let _ = writeln!(t, "\n`{}`:", d.query);
                detail_search(&mut t, d, "  ");
                if d.truncated {
                    let _ = writeln!(t, "  more: offset={}", d.offset + d.hits.len() as u64);
                }
                redacted_tail(&mut t, d.redacted, "  ");
            }
            BulkEntry::Error(b) => {
                let _ = writeln!(t, "\n`{}`: error: {}\n  hint: {}", b.query, b.error, b.hint);
            }
        }
    }
    if let Some(h) = &out.hint {
        let _ = writeln!(t, "\nhint: {h}");
    }
    finish(t)
}

/// A compact `search_semantic` or `similar_code` answer.
pub fn compact_semantic(c: &CompactSemanticOut) -> String {
    let mut t = String::new();
    head_semantic(&mut t, c.similar_to.as_deref(), c.model.as_deref());
    no_hits(&mut t, c.hits.len());
    compact_hits(&mut t, &c.hits, "");
    tail(&mut t, c.next_offset, c.note.as_deref(), c.hint.as_deref());
    redacted_tail(&mut t, c.redacted, "");
    finish(t)
}

fn head_semantic(t: &mut String, similar_to: Option<&str>, model: Option<&str>) {
    match (similar_to, model) {
        (Some(s), Some(m)) => {
            let _ = writeln!(t, "similar to {s} ({m})");
        }
        (Some(s), None) => {
            let _ = writeln!(t, "similar to {s}");
        }
        (None, Some(m)) => {
            let _ = writeln!(t, "model: {m}");
        }
        (None, None) => {}
    }
}

/// A semantic answer in full, or why semantic search cannot answer.
pub fn semantic_detail(d: &SemanticOut) -> String {
    let mut t = String::new();
    if !d.available {
        let _ = writeln!(
            t,
            "semantic search is not available: {}",
            d.reason.as_deref().unwrap_or("unknown reason")
        );
        if let Some(h) = &d.hint {
            let _ = writeln!(t, "hint: {h}");
        }
        return finish(t);
    }
    head_semantic(&mut t, d.similar_to.as_deref(), d.model.as_deref());
    if d.partial {
        let _ = writeln!(t, "partial: {}/{} chunks have vectors", d.embedded, d.total);
    }
    no_hits(&mut t, d.hits.len());
    detail_hits(&mut t, &d.hits, "");
    let next = d.truncated.then(|| d.offset + d.hits.len() as u64);
    tail(&mut t, next, d.index.note.as_deref(), d.hint.as_deref());
    redacted_tail(&mut t, d.redacted, "");
    finish(t)
}

/// `find_symbol`: `path:start-end  kind Container.name` (`Container::name`
/// in Rust, C++ and PHP, as the CLI and search hits write it), then the
/// signature.
pub fn symbols(out: &SymbolsOut) -> String {
    let mut t = String::new();
    if out.symbols.is_empty() {
        t.push_str("no definitions\n");
    }
    for s in &out.symbols {
        let name = s.label.as_deref().unwrap_or(&s.name);
        let _ = write!(
            t,
            "{}:{}-{}  {} {name}",
            s.path, s.start_line, s.end_line, s.kind
        );
        match s.match_kind.as_deref() {
            Some(m) if m != "exact" => {
                let _ = write!(t, "  ({m})");
            }
            _ => {}
        }
        let _ = writeln!(t, "\n  {}", s.signature);
    }
    if out.total as usize > out.symbols.len() {
        let _ = writeln!(t, "{} of {} shown", out.symbols.len(), out.total);
    }
    paging_tail(&mut t, &out.paging, out.symbols.len());
    finish(t)
}

/// `find_references`: `path:line  kind  in context: text`.
pub fn refs(out: &RefsOut) -> String {
    let n = |count: u64, one: &str, many: &str| {
        format!("{count} {}", if count == 1 { one } else { many })
    };
    let mut t = format!(
        "{}, {} and {} of `{}`\n",
        n(out.definitions, "definition", "definitions"),
        n(out.references, "resolved reference", "resolved references"),
        n(out.name_only, "name-only candidate", "name-only candidates"),
        out.name
    );
    for h in &out.hits {
        let _ = write!(t, "{}:{}", h.path, h.line);
        if let Some(c) = h.column {
            let _ = write!(t, ":{c}");
        }
        let _ = write!(t, "  {}", h.kind);
        if let Some(c) = &h.enclosing {
            let _ = write!(t, " in {c}");
        }
        if h.resolution.is_some() {
            t.push_str(" (name only)");
        }
        if let Some(x) = &h.text {
            let _ = write!(t, ":  {x}");
        }
        t.push('\n');
    }
    paging_tail(&mut t, &out.paging, out.hits.len());
    finish(t)
}

/// `callers` / `callees`: the targets, then one line per call site,
/// indented by depth.
pub fn call_graph(out: &CallGraphOut) -> String {
    let mut t = format!(
        "{} of `{}`: {} edges ({} resolved, {}{} name-only)\n",
        out.direction,
        out.name,
        out.total,
        out.resolved,
        crate::search::graph::via_base_part(out.via_base as usize),
        out.name_only
    );
    for target in &out.targets {
        let _ = writeln!(t, "# {target}");
    }
    let direction = Direction::from_op_name(&out.direction).unwrap_or(Direction::Callers);
    for e in &out.edges {
        let depth = e.depth.unwrap_or(1);
        let indent = "  ".repeat(depth.saturating_sub(1) as usize);
        let path = e.at.rsplit_once(':').map_or(e.at.as_str(), |(p, _)| p);
        let label = direction.edge_label(&e.from, &e.to, path, depth, out.targets.len());
        let _ = write!(t, "{indent}{}  {label}", e.at);
        match e.resolution.as_str() {
            "resolved" => {}
            "via_base" => {
                let _ = write!(t, " {}", crate::search::graph::via_label(&e.to));
            }
            _ => t.push_str(" (name only)"),
        }
        if let Some(d) = &e.defined_at {
            let _ = write!(t, " [{d}]");
        }
        if let Some(x) = &e.text {
            let _ = write!(t, ":  {x}");
        }
        t.push('\n');
    }
    paging_tail(&mut t, &out.paging, out.edges.len());
    finish(t)
}

/// `list_defs_in_file`: `start-end  kind name` in source order, indented by depth.
pub fn defs(out: &DefsOut) -> String {
    let mut t = format!("{}: {} definitions\n", out.path, out.total);
    if let Some(s) = &out.skipped {
        let _ = writeln!(t, "skipped by the indexer: {s}");
    }
    for d in &out.definitions {
        let indent = "  ".repeat(d.depth.unwrap_or(0) as usize);
        let label = d.label.as_deref().unwrap_or(&d.name);
        // A signature that says the kind and name itself (`class
        // BackgroundTask:`) is the whole line: they were printed twice.
        let head = format!("{} {}", d.kind, label);
        if d.signature.trim_start().starts_with(&head) {
            let _ = writeln!(
                t,
                "{}-{}  {indent}{}",
                d.start_line,
                d.end_line,
                d.signature.trim_start()
            );
        } else {
            let _ = writeln!(
                t,
                "{}-{}  {indent}{head}: {}",
                d.start_line, d.end_line, d.signature
            );
        }
    }
    paging_tail(&mut t, &out.paging, out.definitions.len());
    finish(t)
}

/// `imports`: `line  module [names] -> resolved` per import, then
/// `path:line  module [names]` per importer.
pub fn imports(out: &ImportsOut) -> String {
    let names = |n: &[String]| {
        if n.is_empty() {
            String::new()
        } else {
            format!(" [{}]", n.join(", "))
        }
    };
    let mut t = String::new();
    if let Some(s) = &out.skipped {
        let _ = writeln!(t, "{}: skipped by the indexer: {s}", out.path);
    }
    if let Some(n) = &out.note {
        let _ = writeln!(t, "note: {n}");
    }
    let mut shown = 0;
    if let (Some(list), Some(total)) = (&out.imports, out.total_imports) {
        let _ = writeln!(t, "{} imports ({total}):", out.path);
        let mut outside = Vec::new();
        for e in list {
            match e.resolved.as_deref() {
                Some(to) => {
                    let _ = writeln!(t, "{}\t{}{} -> {to}", e.line, e.module, names(&e.names));
                }
                None => outside.push(format!("{} {}{}", e.line, e.module, names(&e.names))),
            }
        }
        // The standard library's and third parties' on one line.
        if !outside.is_empty() {
            let _ = writeln!(t, "not in the project: {}", outside.join(", "));
        }
        shown = list.len();
    }
    if let (Some(list), Some(total)) = (&out.imported_by, out.total_imported_by) {
        let _ = writeln!(t, "{} is imported by ({total}):", out.path);
        for i in list {
            let _ = writeln!(t, "{}:{}\t{}{}", i.path, i.line, i.module, names(&i.names));
        }
        shown = shown.max(list.len());
    }
    paging_tail(&mut t, &out.paging, shown);
    finish(t)
}

/// `search_keyword`: like `rg -n` (`path:line:text`, context as `path-line-text`).
pub fn keyword(out: &KeywordOut) -> String {
    let mut t = String::new();
    if out.matches.is_empty() {
        t.push_str("no matches\n");
    }
    for m in &out.matches {
        for c in &m.before {
            let _ = writeln!(t, "{}-{}-{}", m.path, c.line, c.text);
        }
        let _ = writeln!(t, "{}:{}:{}", m.path, m.line, m.text);
        for c in &m.after {
            let _ = writeln!(t, "{}-{}-{}", m.path, c.line, c.text);
        }
    }
    let _ = writeln!(
        t,
        "{} in {} ({} searched)",
        crate::text::counted(out.total, "matching line"),
        crate::text::counted(out.files_matched, "file"),
        out.files_searched
    );
    tail(&mut t, None, None, out.hint.as_deref());
    redacted_tail(&mut t, out.redacted, "");
    finish(t)
}

/// `read_file`: the lines as `N<TAB>text`, then how to read on.
pub fn read(out: &ReadOut) -> String {
    let mut t = format!(
        "{}: lines {}-{} of {}",
        out.path, out.start_line, out.end_line, out.total_lines
    );
    // As the CLI says it: where `match` was first found, and how often.
    if let (Some(line), Some(count)) = (out.match_line, out.match_count) {
        let lines = if count == 1 { "line" } else { "lines" };
        let _ = write!(t, "; first match at line {line} ({count} matching {lines})");
    }
    t.push('\n');
    if !out.content.is_empty() {
        t.push_str(&out.content);
        t.push('\n');
    }
    tail(&mut t, None, None, out.hint.as_deref());
    redacted_tail(&mut t, out.redacted, "");
    finish(t)
}

/// `file_history`: one line per commit, the whole message indented.
pub fn history(out: &HistoryOut) -> String {
    let n = out.commits.len();
    let commits = if n == 1 { "commit" } else { "commits" };
    let mut t = match (out.start_line, out.end_line) {
        (Some(a), Some(b)) => format!("{}:{a}-{b}: {n} {commits}\n", out.path),
        _ => format!("{}: {n} {commits}\n", out.path),
    };
    if let Some(d) = &out.deleted_in {
        let _ = writeln!(
            t,
            "deleted by {d} (listed first); the rest is its history up to then"
        );
    }
    for c in &out.commits {
        let renamed = c
            .path
            .as_deref()
            .map(|p| format!(" (as {p})"))
            .unwrap_or_default();
        let _ = writeln!(
            t,
            "{} {} {}: {}{renamed}",
            c.short, c.date, c.author, c.summary
        );
        if let Some(m) = &c.message {
            for l in m.lines().skip(1) {
                let _ = writeln!(t, "    {l}");
            }
        }
    }
    tail(&mut t, None, None, out.hint.as_deref());
    redacted_tail(&mut t, out.redacted, "");
    finish(t)
}

/// `blame`: a header per run of lines from one commit, then `N<TAB>text`.
/// `context`: the enclosing definition and its signature, the definitions
/// around it, the lines (the asked one marked `>`), then one line each for
/// the outline digest, callers and callees.
pub fn context(out: &ContextOut) -> String {
    let mut t = String::new();
    match &out.enclosing {
        Some(e) => {
            let _ = writeln!(
                t,
                "{}:{}  {} {}-{}  {}",
                out.path, out.line, e.symbol, e.start_line, e.end_line, e.signature
            );
            for o in &e.outer {
                let _ = writeln!(t, "  in {o}");
            }
        }
        None => {
            let _ = writeln!(t, "{}:{}  (outside any definition)", out.path, out.line);
        }
    }
    let target = out.line.to_string();
    for l in out.content.lines() {
        let (n, text) = l.split_once('\t').unwrap_or((l, ""));
        let mark = if n == target { '>' } else { ' ' };
        let _ = writeln!(t, "{mark}{n}\t{text}");
    }
    if out.outline_total > 0 {
        let more = out.outline_total.saturating_sub(out.outline.len() as u64);
        let more = if more > 0 {
            format!(" (+{more} more)")
        } else {
            String::new()
        };
        let _ = writeln!(
            t,
            "outline ({}): {}{more}",
            out.outline_total,
            out.outline.join(", ")
        );
    }
    if let Some(g) = &out.graph {
        let (label, tag) = resolutions(g.callers.iter().map(|e| e.resolution.as_str()));
        let label = shown_label(label, g.callers.len(), g.callers_total as usize);
        let callers = crate::search::graph::site_list(g.callers.iter().map(|e| {
            let ctx = e.context.as_deref().map(|c| format!(" in {c}"));
            let rest = format!("{}{}", ctx.unwrap_or_default(), tag(&e.resolution));
            // `at` is `path:line`, as the structured answer gives it.
            match e
                .at
                .rsplit_once(':')
                .and_then(|(p, l)| Some((p, l.parse().ok()?)))
            {
                Some((path, line)) => (path, line, rest),
                None => (e.at.as_str(), 0, rest),
            }
        }));
        let _ = writeln!(
            t,
            "callers of {} ({}{label}): {callers}",
            g.symbol, g.callers_total,
        );
        let (label, tag) = resolutions(g.callees.iter().map(|e| e.resolution.as_str()));
        let label = shown_label(label, g.callees.len(), g.callees_total as usize);
        let callees: Vec<String> = g
            .callees
            .iter()
            .map(|e| {
                let times = e.calls.map(|n| format!(" x{n}")).unwrap_or_default();
                let at = match &e.defined_at {
                    Some(d) => format!(" -> {d}"),
                    None if e.definitions > 1 => format!(" ({} definitions)", e.definitions),
                    None => String::new(),
                };
                format!("{}{times}{at}{}", e.name, tag(&e.resolution))
            })
            .collect();
        let _ = writeln!(
            t,
            "callees ({}{label}): {}",
            g.callees_total,
            none_or_joined(&callees)
        );
    }
    if let Some(s) = &out.skipped {
        let _ = writeln!(t, "skipped by the indexer: {s}");
    }
    tail(&mut t, None, out.note.as_deref(), out.hint.as_deref());
    redacted_tail(&mut t, out.redacted, "");
    finish(t)
}

/// How a list of graph edges shows their resolutions: in the header
/// (`, name_only`) when they all share one, else a tag on each edge.
type Tag = Box<dyn Fn(&str) -> String>;

fn resolutions<'a>(mut all: impl Iterator<Item = &'a str>) -> (String, Tag) {
    match all.next() {
        Some(r) if all.all(|x| x == r) => (format!(", {r}"), Box::new(|_| String::new())),
        Some(_) => (String::new(), Box::new(|r| format!(" [{r}]"))),
        None => (String::new(), Box::new(|_| String::new())),
    }
}

/// `, resolved` as it is when every edge is shown; `; the 10 shown
/// resolved` when more exist (the label says nothing of the rest).
fn shown_label(label: String, shown: usize, total: usize) -> String {
    match label.strip_prefix(", ") {
        Some(l) if shown < total => format!("; the {shown} shown {l}"),
        _ => label,
    }
}

fn none_or_joined(items: &[String]) -> String {
    if items.is_empty() {
        "none".into()
    } else {
        items.join(", ")
    }
}

pub fn blame(out: &BlameOut) -> String {
    let mut t = format!(
        "{}: lines {}-{} of {}\n",
        out.path, out.start_line, out.end_line, out.total_lines
    );
    // A hunk is a run of one commit's lines: its commit heads it.
    for h in &out.hunks {
        if let Some(c) = out.commits.iter().find(|c| c.short == h.commit) {
            let _ = writeln!(t, "{} {} {}: {}", c.short, c.date, c.author, c.summary);
        }
        for (line, text) in (h.start_line..).zip(&h.lines) {
            let _ = writeln!(t, "{line}\t{text}");
        }
    }
    tail(&mut t, None, None, out.hint.as_deref());
    redacted_tail(&mut t, out.redacted, "");
    finish(t)
}

/// `index_status`: what the index holds and what is running.
pub fn status(s: &StatusOut) -> String {
    let mut t = format!("root: {}\n", s.root);
    if !s.exists {
        t.push_str("index: none yet\n");
    } else {
        let _ = writeln!(
            t,
            "index: {} files, {} symbols, {} refs, {} chunks, {} skipped; generation {}",
            s.files, s.symbols, s.refs, s.chunks, s.skipped, s.generation
        );
    }
    if s.indexing {
        // A run reports its walk and its files as it goes; before its first
        // report the last run's `done` (or a walk of nothing yet counted)
        // would read as finished or empty.
        match &s.progress {
            Some(p) if p.phase == "indexing" || (p.phase == "walking" && p.total > 0) => {
                let _ = writeln!(t, "indexing: {} {}/{} files", p.phase, p.done, p.total);
            }
            Some(p) if p.phase == "walking" => t.push_str("indexing: walking the tree\n"),
            _ => t.push_str("indexing: starting\n"),
        }
    }
    if let Some(n) = s.stale_files {
        let _ = writeln!(t, "stale: {n} files changed since indexed");
    }
    if s.fts_merge_due {
        let _ = writeln!(t, "full-text: {} deleted rows to merge", s.fts_deleted);
    }
    embeddings(&mut t, &s.embeddings);
    if let Some(r) = &s.embedding {
        let _ = writeln!(t, "embedding: {} {}/{}", r.model, r.done, r.total);
    }
    if let Some(z) = &s.sizes {
        sizes(&mut t, z);
    }
    let r = &s.server;
    let _ = write!(
        t,
        "server: repo-search {} pid {}, up {} s",
        r.version, r.pid, r.uptime_s
    );
    if let Some(b) = r.rss_bytes {
        let _ = write!(t, ", {} MiB resident", b >> 20);
    }
    t.push('\n');
    if let Some(m) = r.search_mean_ms {
        let _ = writeln!(
            t,
            "searches: {} in the last hour, mean {m} ms",
            r.searches_last_hour
        );
    }
    if let Some(d) = &r.daemon {
        let _ = writeln!(
            t,
            "daemon: pid {}, {}, {} events in the last minute, {} queued",
            d.pid,
            if d.watching {
                "watching this project"
            } else {
                "not watching this project"
            },
            d.events_last_minute,
            d.queue
        );
    }
    for j in &s.jobs {
        let _ = writeln!(t, "{}", job(j));
    }
    for (label, v) in [
        ("last error", &s.last_error),
        ("config error", &s.config_error),
        ("config warning", &s.config_warning),
    ] {
        if let Some(v) = v {
            let _ = writeln!(t, "{label}: {v}");
        }
    }
    finish(t)
}

fn embeddings(t: &mut String, embeddings: &[EmbeddingOut]) {
    for e in embeddings {
        let _ = writeln!(
            t,
            "vectors ({}): {} {}/{}{}",
            e.tier,
            e.model,
            e.embedded,
            e.total,
            if e.ready {
                ""
            } else {
                " (model not downloaded)"
            }
        );
    }
}

fn sizes(t: &mut String, z: &SizesOut) {
    let _ = writeln!(
        t,
        "size: {} bytes for {} bytes of source",
        z.db_bytes, z.source_bytes
    );
    for tb in &z.tables {
        let _ = writeln!(
            t,
            "  {}: {} + {} index bytes",
            tb.name, tb.bytes, tb.index_bytes
        );
    }
}

/// One index job on one line.
pub fn job(j: &JobOut) -> String {
    let mut t = format!("job {}: {} {}", j.id, j.mode, j.state);
    if !j.paths.is_empty() {
        let _ = write!(t, " ({})", j.paths.join(", "));
    }
    if j.total > 0 {
        let _ = write!(t, ", {}/{} files", j.done, j.total);
    }
    if let Some(e) = j.eta_s {
        let _ = write!(t, ", eta {e} s");
    }
    if let Some(s) = j.seconds {
        let _ = write!(t, ", {s} s");
    }
    if let (Some(c), Some(r)) = (j.changed, j.removed) {
        let _ = write!(t, ", {c} changed, {r} removed");
    }
    if let Some(e) = &j.error {
        let _ = write!(t, "; error: {e}");
    }
    t
}

/// `config`: one `key = value  (source)` line per setting.
pub fn config(c: &ConfigOut) -> String {
    let mut t = format!("root: {}\n", c.root);
    for s in &c.settings {
        let _ = writeln!(t, "{} = {}  ({})", s.key, s.value, s.source);
    }
    let _ = writeln!(t, "project config trust: {}", c.config_trust);
    for (label, v) in [
        ("config warning", &c.config_warning),
        ("config error", &c.config_error),
    ] {
        if let Some(v) = v {
            let _ = writeln!(t, "{label}: {v}");
        }
    }
    finish(t)
}

/// `stats`: one line per operation, then vectors and sizes.
pub fn stats(s: &StatsOut) -> String {
    let window = s
        .since
        .as_deref()
        .map_or(String::new(), |w| format!(" in the last {w}"));
    let mut t = format!("{} operations{window}\n", s.records);
    for o in &s.ops {
        let cache = if o.cache_lookups == 0 {
            String::new()
        } else {
            format!(", cache {}/{}", o.cache_hits, o.cache_lookups)
        };
        let _ = writeln!(
            t,
            "{}: {} ({} errors), p50 {} ms, p95 {} ms, p99 {} ms, max {} ms{cache}; cli {} mcp {} daemon {}",
            o.op, o.count, o.errors, o.p50_ms, o.p95_ms, o.p99_ms, o.max_ms, o.cli, o.mcp, o.daemon
        );
    }
    if let Some(c) = &s.cache {
        let _ = writeln!(
            t,
            "cache: {} answers ({} bytes; at most {} / {} bytes), {} hits, {} misses since start",
            c.entries, c.bytes, c.max_entries, c.max_bytes, c.hits, c.misses
        );
    }
    embeddings(&mut t, &s.embeddings);
    if let Some(z) = &s.sizes {
        sizes(&mut t, z);
    }
    finish(t)
}

/// Without the trailing newline.
fn finish(mut t: String) -> String {
    while t.ends_with('\n') {
        t.pop();
    }
    t
}
