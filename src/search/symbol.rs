//! Owns symbol lookups over the index: definitions by name (exact,
//! case-insensitive, prefix, fuzzy), references of a name, and the outline
//! of one file. Does not build the index (that is `index`).

use std::cmp::Ordering;

use anyhow::Result;
use rusqlite::params;
use serde::Serialize;

use crate::error::{ErrorCode, UserError};
use crate::search::is_test_path;
use crate::store::Store;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchMode {
    /// Exact, then case-insensitive, then prefix, then fuzzy to fill the limit.
    #[default]
    Auto,
    Exact,
    Prefix,
    Fuzzy,
}

impl MatchMode {
    pub fn parse(s: &str) -> Option<MatchMode> {
        Some(match s.to_ascii_lowercase().as_str() {
            "auto" | "" => MatchMode::Auto,
            "exact" => MatchMode::Exact,
            "prefix" => MatchMode::Prefix,
            "fuzzy" => MatchMode::Fuzzy,
            _ => return None,
        })
    }
}

/// How a hit matched the query, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchKind {
    Exact,
    CaseInsensitive,
    Prefix,
    Fuzzy,
}

#[derive(Debug, Clone)]
pub struct SymbolQuery {
    /// A name, optionally qualified: `parse`, `Config::parse`, `LoginView.post`.
    pub name: String,
    pub kinds: Vec<String>,
    pub lang: Option<String>,
    pub mode: MatchMode,
    pub limit: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct SymbolHit {
    pub name: String,
    pub kind: String,
    pub container: Option<String>,
    pub signature: String,
    pub lang: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    /// Line and column of the name itself.
    pub line: u32,
    pub column: u32,
    #[serde(rename = "match")]
    pub match_kind: MatchKind,
}

#[derive(Debug, Clone, Serialize)]
pub struct SymbolResult {
    pub hits: Vec<SymbolHit>,
    /// Matching definitions found (before the limit).
    pub total: usize,
    pub truncated: bool,
}

/// Normalises kind aliases (`fn`, `def`, `func` → `function`, ...).
pub fn normalize_kind(kind: &str) -> String {
    let k = kind.trim().to_ascii_lowercase();
    match k.as_str() {
        "fn" | "func" | "def" | "functions" => "function".into(),
        "classes" => "class".into(),
        "methods" | "meth" => "method".into(),
        "const" | "constants" => "constant".into(),
        "var" | "let" | "variables" => "variable".into(),
        "mod" | "package" | "modules" => "module".into(),
        "iface" | "protocol" => "interface".into(),
        "typedef" | "alias" => "type".into(),
        _ => k,
    }
}

/// The known kinds, for error hints.
pub const KINDS: &[&str] = &[
    "function",
    "method",
    "class",
    "struct",
    "enum",
    "interface",
    "trait",
    "module",
    "namespace",
    "constant",
    "variable",
    "type",
    "macro",
    "field",
    "impl",
];

fn kind_rank(kind: &str) -> u8 {
    match kind {
        "class" | "struct" | "interface" | "trait" | "enum" | "type" | "function" | "method"
        | "macro" => 0,
        "module" | "namespace" | "constant" => 1,
        "field" | "variable" => 2,
        "impl" => 3,
        _ => 2,
    }
}

const SEPARATORS: [&str; 4] = ["::", "->", "#", "."];

/// The byte position and length of the rightmost qualifier separator.
fn last_separator(s: &str) -> Option<(usize, usize)> {
    SEPARATORS
        .iter()
        .filter_map(|sep| s.rfind(sep).map(|i| (i, sep.len())))
        .max_by_key(|(i, _)| *i)
}

/// Splits `Config::parse` / `views.LoginView.post` / `Foo#bar` into
/// (innermost container, name).
pub fn split_qualified(q: &str) -> (Option<String>, String) {
    let q = q.trim();
    if let Some((i, len)) = last_separator(q) {
        let (head, tail) = (&q[..i], &q[i + len..]);
        if !head.is_empty() && !tail.is_empty() {
            return (Some(last_segment(head).to_string()), tail.to_string());
        }
    }
    (None, q.to_string())
}

fn last_segment(s: &str) -> &str {
    match last_separator(s) {
        Some((i, len)) if i + len < s.len() => &s[i + len..],
        _ => s,
    }
}

const HIT_COLUMNS: &str = "s.name, s.kind, s.container, s.signature, f.lang, f.path, s.start_line, s.end_line, s.name_line, s.name_col";

fn row_to_hit(r: &rusqlite::Row<'_>, m: MatchKind) -> rusqlite::Result<SymbolHit> {
    Ok(SymbolHit {
        name: r.get(0)?,
        kind: r.get(1)?,
        container: r.get(2)?,
        signature: r.get(3)?,
        lang: r.get::<_, Option<String>>(4)?.unwrap_or_default(),
        path: r.get(5)?,
        start_line: r.get(6)?,
        end_line: r.get(7)?,
        line: r.get(8)?,
        column: r.get(9)?,
        match_kind: m,
    })
}

/// Rows fetched per tier at most; beyond this a name is too common to rank
/// every definition and the result says it is truncated.
const TIER_CAP: usize = 5000;

/// Finds definitions, ranked exact > case-insensitive > prefix > fuzzy, then
/// by kind relevance, then non-test before test paths, then path and line.
pub fn find_symbols(store: &Store, q: &SymbolQuery) -> Result<SymbolResult> {
    let (container, name) = split_qualified(&q.name);
    if name.is_empty() {
        return Err(
            UserError::with_code(ErrorCode::InvalidQuery, "empty symbol name")
                .hint("give a name such as `parse_config` or `Config::parse`")
                .into(),
        );
    }
    if name.len() > 512 {
        return Err(UserError::new("symbol name is longer than 512 characters")
            .hint("give just the identifier")
            .into());
    }
    let kinds: Vec<String> = q
        .kinds
        .iter()
        .map(|k| normalize_kind(k))
        .filter(|k| !k.is_empty())
        .collect();
    for k in &kinds {
        if !KINDS.contains(&k.as_str()) {
            return Err(UserError::new(format!("unknown kind `{k}`"))
                .hint(format!("use one of: {}", KINDS.join(", ")))
                .into());
        }
    }
    let lang = match &q.lang {
        Some(l) => Some(
            crate::model::Lang::from_name(l)
                .ok_or_else(|| {
                    UserError::new(format!("unknown language `{l}`"))
                        .hint("use one of: rust, python, javascript, typescript, tsx, go, java, c, cpp, ruby")
                })?
                .name(),
        ),
        None => None,
    };
    let keep = |h: &SymbolHit| {
        (kinds.is_empty() || kinds.iter().any(|k| k == &h.kind))
            && lang.is_none_or(|l| h.lang == l)
            && container.as_deref().is_none_or(|c| {
                h.container
                    .as_deref()
                    .is_some_and(|hc| last_segment(hc).eq_ignore_ascii_case(c))
            })
    };
    let conn = store.conn();
    let mut hits: Vec<SymbolHit> = Vec::new();
    let mut capped = false;
    let mut run = |sql: &str, arg: &str, m: MatchKind, hits: &mut Vec<SymbolHit>| -> Result<()> {
        let mut stmt = conn.prepare_cached(sql)?;
        let rows = stmt.query_map(params![arg, TIER_CAP as i64 + 1], |r| row_to_hit(r, m))?;
        let mut n = 0;
        for row in rows {
            n += 1;
            if n > TIER_CAP {
                capped = true;
                break;
            }
            let h = row?;
            if keep(&h) {
                hits.push(h);
            }
        }
        Ok(())
    };
    let exact = format!(
        "SELECT {HIT_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE s.name = ?1 LIMIT ?2"
    );
    let nocase = format!(
        "SELECT {HIT_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.name = ?1 COLLATE NOCASE AND s.name != ?1 LIMIT ?2"
    );
    let prefix = format!(
        "SELECT {HIT_COLUMNS} FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.name LIKE ?1 ESCAPE '\\' LIMIT ?2"
    );
    let like = format!(
        "{}%",
        name.replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_")
    );
    match q.mode {
        MatchMode::Exact => run(&exact, &name, MatchKind::Exact, &mut hits)?,
        MatchMode::Prefix | MatchMode::Auto => {
            run(&exact, &name, MatchKind::Exact, &mut hits)?;
            run(&nocase, &name, MatchKind::CaseInsensitive, &mut hits)?;
            let mut pre = Vec::new();
            run(&prefix, &like, MatchKind::Prefix, &mut pre)?;
            pre.retain(|h| !h.name.eq_ignore_ascii_case(&name));
            hits.extend(pre);
        }
        MatchMode::Fuzzy => {}
    }
    if q.mode == MatchMode::Fuzzy || (q.mode == MatchMode::Auto && hits.len() < q.limit) {
        let names = fuzzy_names(store, &name, 50)?;
        for n in names {
            if hits.iter().any(|h| h.name == n) {
                continue;
            }
            let mut tier = Vec::new();
            run(&exact, &n, MatchKind::Fuzzy, &mut tier)?;
            hits.extend(tier);
            if hits.len() >= q.limit.saturating_mul(4).max(50) {
                break;
            }
        }
    }
    hits.sort_by(compare_hits);
    let total = hits.len();
    hits.truncate(q.limit);
    Ok(SymbolResult {
        truncated: total > hits.len() || capped,
        total,
        hits,
    })
}

/// A C/C++ prototype or other body-less declaration (`void f(void);`):
/// ranked after the definition with a body.
fn is_declaration(h: &SymbolHit) -> bool {
    h.start_line == h.end_line
        && h.signature.trim_end().ends_with(';')
        && matches!(h.kind.as_str(), "function" | "method")
}

fn compare_hits(a: &SymbolHit, b: &SymbolHit) -> Ordering {
    a.match_kind
        .cmp(&b.match_kind)
        .then(kind_rank(&a.kind).cmp(&kind_rank(&b.kind)))
        .then(is_declaration(a).cmp(&is_declaration(b)))
        .then(is_test_path(&a.path).cmp(&is_test_path(&b.path)))
        .then(
            a.path
                .matches('/')
                .count()
                .cmp(&b.path.matches('/').count()),
        )
        .then(a.path.cmp(&b.path))
        .then(a.start_line.cmp(&b.start_line))
}

/// The distinct symbol names that fuzzily match `query`, best first.
fn fuzzy_names(store: &Store, query: &str, max: usize) -> Result<Vec<String>> {
    use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
    use nucleo_matcher::{Config, Matcher, Utf32Str};
    let mut matcher = Matcher::new(Config::DEFAULT);
    let pattern = Pattern::parse(query, CaseMatching::Ignore, Normalization::Smart);
    let mut stmt = store
        .conn()
        .prepare_cached("SELECT DISTINCT name FROM symbols")?;
    let mut rows = stmt.query([])?;
    let mut scored: Vec<(u32, String)> = Vec::new();
    let mut buf = Vec::new();
    while let Some(row) = rows.next()? {
        let name: String = row.get(0)?;
        if let Some(score) = pattern.score(Utf32Str::new(&name, &mut buf), &mut matcher) {
            scored.push((score, name));
        }
    }
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.len().cmp(&b.1.len()))
            .then(a.1.cmp(&b.1))
    });
    scored.truncate(max);
    Ok(scored.into_iter().map(|(_, n)| n).collect())
}

#[derive(Debug, Clone, Serialize)]
pub struct RefHit {
    pub path: String,
    pub line: u32,
    pub column: u32,
    /// call, type, ... or `definition`.
    pub kind: String,
    pub is_definition: bool,
    /// The enclosing definition of the reference, when known.
    pub context: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RefResult {
    pub name: String,
    pub definitions: usize,
    pub references: usize,
    pub hits: Vec<RefHit>,
    pub total: usize,
    pub truncated: bool,
}

/// References of a name (exact, case-sensitive), definitions first and marked.
pub fn find_references(store: &Store, name: &str, limit: usize) -> Result<RefResult> {
    let (_, name) = split_qualified(name);
    if name.is_empty() {
        return Err(UserError::with_code(ErrorCode::InvalidQuery, "empty name")
            .hint("give an identifier such as `parse_config`")
            .into());
    }
    let conn = store.conn();
    let mut hits = Vec::new();
    let mut defs = conn.prepare_cached(
        "SELECT f.path, s.name_line, s.name_col, s.kind, s.container FROM symbols s JOIN files f ON f.id = s.file_id
         WHERE s.name = ?1 ORDER BY f.path, s.name_line",
    )?;
    let rows = defs.query_map([&name], |r| {
        Ok(RefHit {
            path: r.get(0)?,
            line: r.get(1)?,
            column: r.get(2)?,
            kind: r.get::<_, String>(3)?,
            is_definition: true,
            context: r.get(4)?,
        })
    })?;
    for r in rows {
        hits.push(r?);
    }
    let definitions = hits.len();
    let mut refs = conn.prepare_cached(
        "SELECT f.path, r.line, r.col, r.kind,
           (SELECT s.name FROM symbols s WHERE s.file_id = r.file_id AND s.start_line <= r.line AND s.end_line >= r.line
              AND s.kind IN ('function','method','class','struct','impl','module','namespace','trait','interface','enum')
            ORDER BY s.start_line DESC LIMIT 1)
         FROM refs r JOIN files f ON f.id = r.file_id WHERE r.name = ?1 ORDER BY f.path, r.line, r.col",
    )?;
    let rows = refs.query_map([&name], |r| {
        Ok(RefHit {
            path: r.get(0)?,
            line: r.get(1)?,
            column: r.get(2)?,
            kind: r.get(3)?,
            is_definition: false,
            context: r.get(4)?,
        })
    })?;
    for r in rows {
        hits.push(r?);
    }
    let total = hits.len();
    let references = total - definitions;
    hits.truncate(limit);
    Ok(RefResult {
        name,
        definitions,
        references,
        truncated: total > hits.len(),
        total,
        hits,
    })
}

#[derive(Debug, Clone, Serialize)]
pub struct OutlineItem {
    pub name: String,
    pub kind: String,
    pub signature: String,
    pub start_line: u32,
    pub end_line: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<OutlineItem>,
}

/// The definitions of one indexed file, nested by line-range containment, in
/// source order. `None` when the file is not in the index.
pub fn outline(
    store: &Store,
    rel_path: &str,
) -> Result<Option<(Option<String>, Vec<OutlineItem>)>> {
    let conn = store.conn();
    let file: Option<(i64, Option<String>)> = conn
        .query_row(
            "SELECT id, skip_reason FROM files WHERE path = ?1",
            [rel_path],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .ok();
    let Some((file_id, skip)) = file else {
        return Ok(None);
    };
    let mut stmt = conn.prepare_cached(
        "SELECT name, kind, signature, start_line, end_line FROM symbols WHERE file_id = ?1
         ORDER BY start_line, end_line DESC, id",
    )?;
    let flat: Vec<OutlineItem> = stmt
        .query_map([file_id], |r| {
            Ok(OutlineItem {
                name: r.get(0)?,
                kind: r.get(1)?,
                signature: r.get(2)?,
                start_line: r.get(3)?,
                end_line: r.get(4)?,
                children: Vec::new(),
            })
        })?
        .collect::<rusqlite::Result<_>>()?;
    Ok(Some((skip, nest(flat))))
}

/// Nests items (sorted by start, longest first) by range containment.
fn nest(flat: Vec<OutlineItem>) -> Vec<OutlineItem> {
    let mut roots: Vec<OutlineItem> = Vec::new();
    let mut stack: Vec<OutlineItem> = Vec::new();
    for item in flat {
        while let Some(top) = stack.last() {
            if item.start_line >= top.start_line && item.end_line <= top.end_line {
                break;
            }
            let done = stack.pop().expect("stack is non-empty");
            attach(&mut stack, &mut roots, done);
        }
        stack.push(item);
    }
    while let Some(done) = stack.pop() {
        attach(&mut stack, &mut roots, done);
    }
    roots
}

fn attach(stack: &mut [OutlineItem], roots: &mut Vec<OutlineItem>, item: OutlineItem) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(item),
        None => roots.push(item),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(name: &str, s: u32, e: u32) -> OutlineItem {
        OutlineItem {
            name: name.into(),
            kind: "x".into(),
            signature: String::new(),
            start_line: s,
            end_line: e,
            children: vec![],
        }
    }

    #[test]
    fn nests_by_range() {
        let out = nest(vec![
            item("A", 1, 10),
            item("a1", 2, 4),
            item("a2", 5, 9),
            item("inner", 6, 7),
            item("B", 12, 20),
        ]);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].children.len(), 2);
        assert_eq!(out[0].children[1].children[0].name, "inner");
        assert_eq!(out[1].name, "B");
    }

    #[test]
    fn splits_qualified_names() {
        assert_eq!(
            split_qualified("Config::parse"),
            (Some("Config".into()), "parse".into())
        );
        assert_eq!(
            split_qualified("a::b::Config::parse"),
            (Some("Config".into()), "parse".into())
        );
        assert_eq!(
            split_qualified("views.LoginView.post"),
            (Some("LoginView".into()), "post".into())
        );
        assert_eq!(split_qualified("parse"), (None, "parse".into()));
        assert_eq!(split_qualified("::"), (None, "::".into()));
    }
}
