//! Owns `context`: what surrounds one line of a file, in one answer. The
//! lines around it (from disk, redacted), the innermost definition holding
//! it with its signature and the definitions around that one, a digest of
//! the file's other definitions, and who uses the definition and what it
//! calls. Every part is bounded ([`MAX_RADIUS`], [`OUTLINE_MAX`],
//! [`CALLERS_MAX`], [`CALLEES_MAX`]) and says how many there are in all.
//!
//! The callers/callees summary is [`graph_summary`]: the resolved graph of
//! `search::graph` (resolved edges first, name-only ones marked).

use anyhow::Result;
use serde::Serialize;

use super::Service;
use super::lookup::{Indexed, not_indexed};
use crate::error::UserError;
use crate::search::graph::{CallIn, Graph, Uses};
use crate::search::read::{Line, ReadRequest, read_file};
use crate::store::{GraphDef, Store, SymbolRow};

/// Lines shown on each side of the asked line by default.
pub const DEFAULT_RADIUS: u32 = 10;
/// Most lines on each side.
pub const MAX_RADIUS: u32 = 100;
/// Most entries of the outline digest.
pub const OUTLINE_MAX: usize = 20;
/// Most callers listed.
pub const CALLERS_MAX: usize = 10;
/// Most callees listed.
pub const CALLEES_MAX: usize = 15;
/// Longest line text in an answer; longer lines are cut with a marker.
const LINE_CHARS: usize = 500;

#[derive(Debug, Clone)]
pub struct ContextRequest {
    /// A path as the user gave it (relative to the root, or absolute inside it).
    pub path: String,
    /// 1-based.
    pub line: u32,
    /// Lines on each side of `line` (0 to [`MAX_RADIUS`]).
    pub radius: u32,
}

/// What surrounds one line of a file.
#[derive(Debug, Clone, Serialize)]
pub struct Context {
    /// Root-relative path.
    pub path: String,
    /// The file's language, when the index knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// The line asked about.
    pub line: u32,
    /// Lines in the file (on disk now).
    pub total_lines: u64,
    /// `line - radius ..= line + radius`, clipped at the file's ends.
    pub lines: Vec<Line>,
    /// The innermost definition holding `line`, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enclosing: Option<Enclosing>,
    /// The file's top-level definitions and their members (nested ones left
    /// out), in source order; at most [`OUTLINE_MAX`], those nearest `line`.
    pub outline: Vec<OutlineEntry>,
    /// Top-level definitions and members of the file in all.
    pub outline_total: usize,
    /// Who uses the enclosing definition and what it calls.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph: Option<GraphSummary>,
    /// Why the indexer skipped this file, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Secret values shown as `[redacted: …]` in lines and the signature.
    pub redacted: usize,
}

pub type ContextAnswer = Indexed<Context>;

/// A definition and where it is.
#[derive(Debug, Clone, Serialize)]
pub struct SymbolSpan {
    pub name: String,
    pub kind: String,
    /// `container.name` when the definition has a container.
    pub qualified: String,
    pub start_line: u32,
    pub end_line: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct Enclosing {
    #[serde(flatten)]
    pub symbol: SymbolSpan,
    pub signature: String,
    /// The definitions around it, outermost first (a class, then a method).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub outer: Vec<SymbolSpan>,
}

pub use crate::search::symbol::OutlineEntry;

pub use crate::search::graph::Resolution;

/// A place that uses the enclosing definition.
#[derive(Debug, Clone, Serialize)]
pub struct CallerEdge {
    pub path: String,
    pub line: u32,
    /// call, type, ...
    pub kind: String,
    /// The definition the use is in, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    pub resolution: Resolution,
}

/// A name called inside the enclosing definition.
#[derive(Debug, Clone, Serialize)]
pub struct CalleeEdge {
    pub name: String,
    /// Its first call in the span.
    pub line: u32,
    /// Calls of it in the span.
    pub calls: usize,
    /// Definitions of the name in the index.
    pub definitions: usize,
    /// Where it is defined, when the index holds exactly one definition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub defined_at: Option<DefinedAt>,
    pub resolution: Resolution,
}

#[derive(Debug, Clone, Serialize)]
pub struct DefinedAt {
    pub path: String,
    pub line: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct GraphSummary {
    /// The definition summarised (qualified).
    pub symbol: String,
    /// At most [`CALLERS_MAX`], by path and line.
    pub callers: Vec<CallerEdge>,
    pub callers_total: usize,
    /// At most [`CALLEES_MAX`], by first call.
    pub callees: Vec<CalleeEdge>,
    /// Distinct names called in all.
    pub callees_total: usize,
}

/// What the index says about the file around one line.
struct FromIndex {
    lang: Option<String>,
    skipped: Option<String>,
    enclosing: Option<Enclosing>,
    outline: Vec<OutlineEntry>,
    outline_total: usize,
    graph: Option<GraphSummary>,
}

impl Service {
    /// What surrounds `req.line` of `req.path`. A file the index does not
    /// hold is `NOT_FOUND` (except while an index run may be adding it: then
    /// the lines alone); a line outside the file is `INVALID_ARGUMENT`.
    pub fn context(&self, req: &ContextRequest) -> Result<ContextAnswer> {
        self.timed("context", || self.context_untimed(req))
    }

    fn context_untimed(&self, req: &ContextRequest) -> Result<ContextAnswer> {
        if req.radius > MAX_RADIUS {
            return Err(
                UserError::new(format!("radius {} is over {MAX_RADIUS}", req.radius))
                    .hint(format!("give a radius from 0 to {MAX_RADIUS}"))
                    .into(),
            );
        }
        let p = self.file_path(&req.path)?;
        let line = req.line;
        let found = self.indexed(|store| from_index(store, self.root(), &p.rel, line))?;
        let (value, generation, freshness) = (found.value, found.generation, found.freshness);
        let from_index = match value {
            Some(Some(f)) => f,
            // Being indexed right now: the lines alone.
            Some(None) if freshness.indexing => FromIndex {
                lang: None,
                skipped: None,
                enclosing: None,
                outline: Vec::new(),
                outline_total: 0,
                graph: None,
            },
            Some(None) => return Err(not_indexed(&p.rel)),
            None => {
                return Ok(Indexed {
                    value: None,
                    generation,
                    freshness,
                });
            }
        };
        let file = read_file(
            self.root(),
            &ReadRequest {
                path: p.rel.clone(),
                max_lines: u64::MAX,
                ..ReadRequest::default()
            },
        )?;
        let total = file.total_lines;
        if line == 0 || u64::from(line) > total {
            // The code `read_file` gives a line past the end too.
            return Err(UserError::new(format!(
                "line {line} is outside `{}` ({total} lines)",
                p.rel
            ))
            .hint(format!("give a line from 1 to {total}"))
            .into());
        }
        let first = u64::from(line.saturating_sub(req.radius).max(1));
        let last = (u64::from(line) + u64::from(req.radius)).min(total);
        let mut red = self.redactor();
        let lines: Vec<Line> = file
            .lines
            .into_iter()
            .filter(|l| (first..=last).contains(&l.line))
            .map(|mut l| {
                red.line(&p.rel, l.line, &mut l.text);
                l.text = crate::search::bound_line(&l.text, LINE_CHARS);
                l
            })
            .collect();
        let mut enclosing = from_index.enclosing;
        if let Some(e) = enclosing.as_mut() {
            red.text(&mut e.signature);
        }
        Ok(Indexed {
            value: Some(Context {
                path: p.rel,
                lang: from_index.lang,
                line,
                total_lines: total,
                lines,
                enclosing,
                outline: from_index.outline,
                outline_total: from_index.outline_total,
                graph: from_index.graph,
                skipped: from_index.skipped,
                redacted: red.count(),
            }),
            generation,
            freshness,
        })
    }
}

/// The index's part of the answer; `None` when the file is not indexed.
fn from_index(
    store: &Store,
    root: &std::path::Path,
    rel: &str,
    line: u32,
) -> Result<Option<FromIndex>> {
    let Some(file) = store.file_record(rel)? else {
        return Ok(None);
    };
    let lang = store.file_lang(file.id)?;
    let mut rows = store.file_symbol_rows(file.id)?;
    let mut sources = crate::source::Sources::new(root);
    for r in &mut rows {
        if let Some(at) = r.line_signature.take() {
            r.signature = sources.line_signature(rel, &at, r.name_line);
        }
    }
    // Sorted by start, longest first: every definition holding the line,
    // outermost first; the last is the innermost.
    let mut holding: Vec<&SymbolRow> = rows
        .iter()
        .filter(|r| r.start_line <= line && line <= r.end_line)
        .collect();
    // A line of the doc comment or attributes right above a definition
    // (C#'s `///` lines, which its span leaves out) is about that
    // definition, not the class around it.
    if let Some(text) = sources.file(rel, file.size)
        && let Some(d) = documented_below(&rows, text, line)
        && holding
            .last()
            .is_none_or(|inner| d.end_line <= inner.end_line)
    {
        holding.push(d);
    }
    let (enclosing, graph) = match holding.split_last() {
        Some((inner, outer)) => (
            Some(Enclosing {
                symbol: span(inner),
                signature: inner.signature.clone(),
                outer: outer.iter().map(|r| span(r)).collect(),
            }),
            Some(graph_summary(store, root, file.id, inner)?),
        ),
        None => (None, None),
    };
    let (outline, outline_total) = crate::search::symbol::outline_near(&rows, line, OUTLINE_MAX);
    Ok(Some(FromIndex {
        lang,
        skipped: file.skip_reason,
        enclosing,
        outline,
        outline_total,
        graph,
    }))
}

/// The definition whose doc comment or attributes hold `line`: the first
/// starting below it with only such lines between (`///`, `//`, `/*`,
/// `*`, `#`, `--`, `@Annotation`, `[Attribute]`, `#[attr]`).
fn documented_below<'r>(rows: &'r [SymbolRow], text: &str, line: u32) -> Option<&'r SymbolRow> {
    let next = rows
        .iter()
        .filter(|r| r.start_line > line)
        .min_by_key(|r| (r.start_line, std::cmp::Reverse(r.end_line)))?;
    let lines: Vec<&str> = text.lines().collect();
    let between = lines.get((line as usize).saturating_sub(1)..next.start_line as usize - 1)?;
    let annotation = |t: &str| {
        ["///", "//", "/*", "*", "#", "--", "@", "["]
            .iter()
            .any(|p| t.starts_with(p))
    };
    between
        .iter()
        .all(|l| annotation(l.trim_start()))
        .then_some(next)
}

fn span(r: &SymbolRow) -> SymbolSpan {
    SymbolSpan {
        name: r.name.clone(),
        kind: r.kind.clone(),
        qualified: crate::search::symbol::qualified_row(r),
        start_line: r.start_line,
        end_line: r.end_line,
    }
}

/// Who uses `def` and what it calls, from the resolved graph: callers
/// resolved first, then name-only; callees grouped by what they reach.
fn graph_summary(
    store: &Store,
    root: &std::path::Path,
    file_id: i64,
    def: &SymbolRow,
) -> Result<GraphSummary> {
    let target = GraphDef {
        file_id,
        path: def.path.clone(),
        lang: def.lang.clone(),
        name: def.name.clone(),
        kind: def.kind.clone(),
        container: def.container.clone(),
        signature: def.signature.clone(),
        line_signature: None,
        start_line: def.start_line,
        end_line: def.end_line,
        name_line: def.name_line,
        name_col: def.name_col,
    };
    let mut g = Graph::new(store, root);
    let mut uses = g.references(&def.name, std::slice::from_ref(&target), false, Uses::Calls)?;
    // An override is called through the method it replaces, as `callers`
    // lists it (`GestureHandler.handle`'s `onHandle(…)` for
    // `PanGestureHandler.onHandle`, "(0): none" before).
    uses.extend(
        g.calls_via_base(std::slice::from_ref(&target))?
            .into_iter()
            .map(|(f, _)| f),
    );
    // A function only passed around by value (TanStack Query's
    // `config.retryDelay ?? defaultRetryDelay`) has no calls but has
    // uses, which `refs` finds: "callers (0): none" hid them.
    if uses.is_empty() {
        uses = g.references(&def.name, std::slice::from_ref(&target), false, Uses::All)?;
    }
    // A build's uses are of its own copy of the definition, as `callers`
    // leaves them out ([`crate::search::graph::Graph::targets`]).
    let copies = crate::search::build_copies(
        store,
        uses.iter()
            .map(|f| f.r.path.as_str())
            .chain([def.path.as_str()]),
    );
    if !copies.contains(&def.path) {
        uses.retain(|f| !copies.contains(&f.r.path));
    }
    // The ten shown are the live code's first: then tests, examples and
    // vendored code, then declarations and build output (TanStack Query's
    // `build/legacy/` copies had filled all ten), each in path order.
    let standing = crate::search::path_standings(store, uses.iter().map(|f| f.r.path.as_str()));
    let rank = |path: &str| {
        (
            standing.get(path).copied().unwrap_or(0),
            crate::search::is_test_path(path) || crate::search::is_secondary_path(path),
        )
    };
    uses.sort_by_cached_key(|f| (f.resolution, rank(&f.r.path), f.r.path.clone(), f.r.line));
    let callers_total = uses.len();
    uses.truncate(CALLERS_MAX);
    // Callers named as search and `refs` name them, without the namespaces
    // around their types (`RedirectMiddleware::__invoke`).
    let namespaces =
        crate::search::namespaces_by_file(store, uses.iter().map(|f| f.r.path.as_str()))?;
    let callers = uses
        .into_iter()
        .map(|f| CallerEdge {
            context: match (f.r.scope, namespaces.get(&f.r.path)) {
                (Some(s), Some(ns)) => Some(crate::search::without_namespace(&s, None, ns)),
                (s, _) => s,
            },
            path: f.r.path,
            line: f.r.line,
            kind: f.r.kind,
            resolution: f.resolution,
        })
        .collect();
    let mut callees: Vec<CalleeEdge> = Vec::new();
    for CallIn {
        r,
        resolution,
        to,
        definitions,
    } in g.callees_of(&target)?
    {
        // A name-only callee is named as written: one of its candidates'
        // containers would be a guess (gin's `req.URL.String()` showed as
        // `testInterface.String`).
        let name = to
            .as_ref()
            .filter(|_| resolution == Resolution::Resolved)
            .map_or_else(|| r.name.clone(), qualified_def);
        match callees.iter_mut().find(|c| c.name == name) {
            Some(c) => c.calls += 1,
            None => callees.push(CalleeEdge {
                name,
                line: r.line,
                calls: 1,
                definitions,
                defined_at: to.as_ref().map(|t| DefinedAt {
                    path: t.path.clone(),
                    line: t.name_line,
                }),
                resolution,
            }),
        }
    }
    let callees_total = callees.len();
    callees.sort_by_key(|c| c.resolution);
    callees.truncate(CALLEES_MAX);
    callees.sort_by_key(|c| c.line);
    Ok(GraphSummary {
        symbol: crate::search::symbol::qualified_row(def),
        callers,
        callers_total,
        callees,
        callees_total,
    })
}

fn qualified_def(d: &GraphDef) -> String {
    match &d.container {
        Some(c) => crate::search::member_path(&d.lang, &d.kind, c, &d.name),
        None => d.name.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(name: &str, container: Option<&str>, s: u32, e: u32) -> SymbolRow {
        SymbolRow {
            name: name.into(),
            kind: "function".into(),
            container: container.map(String::from),
            signature: String::new(),
            line_signature: None,
            lang: String::new(),
            path: "a.py".into(),
            start_line: s,
            end_line: e,
            name_line: s,
            name_col: 1,
        }
    }

    #[test]
    fn a_doc_comment_line_is_about_the_definition_below_it() {
        let text = "class A {\n    /// Says hi.\n    /// </summary>\n    [Obsolete]\n    void Hi() {}\n\n    // loose\n\n    void Bye() {}\n}\n";
        let rows = vec![
            row("A", None, 1, 10),
            row("Hi", Some("A"), 5, 5),
            row("Bye", Some("A"), 9, 9),
        ];
        let below = |line| documented_below(&rows, text, line).map(|r| r.name.as_str());
        assert_eq!(below(2), Some("Hi"));
        assert_eq!(below(4), Some("Hi"));
        // A comment a blank line apart from the definition is not its doc.
        assert_eq!(below(7), None);
        assert_eq!(below(6), None);
    }

    #[test]
    fn outline_keeps_members_and_the_nearest_when_long() {
        let rows = vec![
            row("A", None, 1, 10),
            row("m", Some("A"), 2, 6),
            row("inner", Some("m"), 3, 4),
            row("B", None, 12, 20),
        ];
        let (o, total) = crate::search::symbol::outline_near(&rows, 1, OUTLINE_MAX);
        assert_eq!(total, 3);
        let names: Vec<&str> = o.iter().map(|e| e.qualified.as_str()).collect();
        assert_eq!(names, ["A", "A.m", "B"]);
        assert_eq!(o[1].depth, 1);
        // A line inside `m`: its members too.
        let (o, _) = crate::search::symbol::outline_near(&rows, 3, OUTLINE_MAX);
        let names: Vec<&str> = o.iter().map(|e| e.qualified.as_str()).collect();
        assert_eq!(names, ["A", "A.m", "m.inner", "B"]);

        // A namespace adds no level (PHPUnit's `TestResult.php`).
        let mut ns = row("PHPUnit\\Framework", None, 1, 30);
        ns.kind = "namespace".into();
        let rows = vec![
            ns,
            row("TestResult", Some("PHPUnit\\Framework"), 3, 30),
            row("run", Some("TestResult"), 5, 20),
            row("inner", Some("run"), 6, 8),
        ];
        let (o, total) = crate::search::symbol::outline_near(&rows, 1, OUTLINE_MAX);
        assert_eq!(total, 3);
        let names: Vec<&str> = o.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["PHPUnit\\Framework", "TestResult", "run"]);

        let many: Vec<SymbolRow> = (0..100)
            .map(|i| row(&format!("f{i}"), None, i * 3 + 1, i * 3 + 2))
            .collect();
        let (o, total) = crate::search::symbol::outline_near(&many, 150, OUTLINE_MAX);
        assert_eq!((o.len(), total), (OUTLINE_MAX, 100));
        assert!(o.windows(2).all(|w| w[0].start_line < w[1].start_line));
        assert!(o.iter().any(|e| e.start_line.abs_diff(150) <= 2));
        assert!(o.iter().all(|e| e.start_line.abs_diff(150) <= 70));
    }
}
