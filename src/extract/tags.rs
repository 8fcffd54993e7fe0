//! Owns interpreting a language's tags query on one parse tree: `@name`,
//! `@definition.*` and `@reference.*` captures become definitions (with a
//! normalised kind, the span of the whole definition, a container and a
//! symbol path) and references. Does not chunk (that is `chunk`'s job) and
//! does not know where the query comes from (that is `lang`'s job).
//!
//! Text predicates (`#eq?`, `#match?`, ...) are applied by tree-sitter's
//! `QueryMatches` itself; `#strip!`, `#select-adjacent!` and `#set-adjacent!`
//! only shape `@doc` text, which we do not use. `#is-not? local` (Ruby) is
//! emulated with the `@local.definition` captures of our Ruby additions.

use foldhash::{HashMap, HashMapExt, HashSet};
use std::ops::ControlFlow;
use std::time::Instant;

use tree_sitter::{
    Node, QueryCursor, QueryCursorOptions, QueryCursorState, StreamingIterator, Tree,
};

use super::captures::{RawDef, RawRef, RawTags};
use super::lang_rules;
use super::lines::Lines;
use crate::lang::Grammar;
use crate::model::{Lang, Reference, Symbol, is_container_kind};

/// Signatures and names longer than this are cut (in characters).
const MAX_SIGNATURE_CHARS: usize = 200;
/// Names longer than this (in bytes) are not names but expressions, e.g.
/// `new (factory())()` in JavaScript.
const MAX_NAME_BYTES: usize = 200;
/// Ancestor walks are bounded so that pathological nesting (10k brackets)
/// stays linear.
const MAX_ANCESTOR_STEPS: usize = 256;
/// Doc comments above a definition that still join its chunk, at most.
const MAX_DOC_LINES: usize = 200;

/// What a capture name means to us.
#[derive(Debug, Clone, Copy)]
enum Role {
    Name,
    Definition(&'static str),
    Reference(&'static str),
    Local,
    /// `@ignore` (Elixir, Ruby): no tag may sit on this node.
    Ignore,
    Ignored,
}

fn role_of(capture: &'static str) -> Role {
    if capture == "name" {
        Role::Name
    } else if let Some(kind) = capture.strip_prefix("definition.") {
        Role::Definition(kind)
    } else if let Some(kind) = capture.strip_prefix("reference.") {
        Role::Reference(kind)
    } else if capture == "local.definition" {
        Role::Local
    } else if capture == "ignore" {
        Role::Ignore
    } else {
        Role::Ignored
    }
}

/// Whether a definition is a function-like thing, and if so whether its
/// syntax alone makes it a method.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Callable {
    No,
    /// A function, or a method when its container is a type (decided later).
    Function,
    /// A method whatever its container (`method_definition`, Go methods, ...).
    Method,
}

/// One definition, with 0-based rows.
#[derive(Debug, Clone)]
pub(crate) struct Def {
    pub name: String,
    pub kind: &'static str,
    pub callable: Callable,
    /// Gets a chunk of its own: multi-line functions with a body, multi-line containers.
    pub chunkable: bool,
    /// Byte span of the whole definition (decorators, attributes, `export`).
    pub start_byte: usize,
    pub end_byte: usize,
    pub start_row: usize,
    pub end_row: usize,
    /// First row of the comments directly above the definition (for chunks).
    pub doc_start_row: usize,
    pub name_row: usize,
    pub name_col: usize,
    pub name_range: (usize, usize),
    pub signature: String,
    /// Index of the innermost enclosing definition in the sorted list.
    pub parent: Option<usize>,
    pub container: Option<String>,
    /// Enclosing symbol path, e.g. `Config::parse`.
    pub path: String,
    /// C++ scope of an out-of-line definition (`a::Foo` for `a::Foo::bar`).
    qual: Option<String>,
    /// The type a definition is written on, its container: a Go method's
    /// receiver, a Lua function's table, a Kotlin extension's receiver.
    receiver: Option<String>,
    /// A TypeScript overload signature (`function f(a: string): string;`
    /// before `function f(a: any) {…}`): merged into the implementation.
    overload: bool,
    /// A JavaScript or TypeScript binding made a function because its value
    /// wraps a function literal ([`lang_rules::wrapped_function`]): the
    /// kind it has as a binding, which it keeps when definitions inside it
    /// get chunks of their own ([`unwrap_holders`]).
    wrapped: Option<&'static str>,
    pattern: usize,
}

impl Def {
    /// A definition found without a syntax tree (`fallback`): `rows` are
    /// the 0-based inclusive first and last rows, `name_col` the byte
    /// column of the name on the first row, `doc_start_row` where the
    /// comments above it start.
    pub(crate) fn from_line(
        lines: &Lines<'_>,
        name: &str,
        kind: &'static str,
        callable: Callable,
        rows: (usize, usize),
        name_col: usize,
        doc_start_row: usize,
    ) -> Def {
        let (start_row, end_row) = rows;
        let (line_start, _) = lines.range(start_row);
        let name_start = line_start + name_col;
        let line = lines.line(start_row).trim();
        Def {
            name: name.to_string(),
            kind,
            callable,
            chunkable: end_row > start_row && (callable != Callable::No || is_container_kind(kind)),
            start_byte: line_start,
            end_byte: lines.range(end_row).1,
            start_row,
            end_row,
            doc_start_row,
            name_row: start_row,
            name_col,
            name_range: (name_start, name_start + name.len()),
            signature: truncate_chars(line, MAX_SIGNATURE_CHARS).to_string(),
            parent: None,
            container: None,
            path: String::new(),
            qual: None,
            receiver: None,
            overload: false,
            wrapped: None,
            pattern: 0,
        }
    }
}

/// Sorts definitions made by [`Def::from_line`] like [`build_defs`] does
/// and sets their containers and paths.
pub(crate) fn finish_line_defs(defs: &mut [Def]) {
    defs.sort_by(|a, b| {
        (a.start_byte, std::cmp::Reverse(a.end_byte), a.name_range).cmp(&(
            b.start_byte,
            std::cmp::Reverse(b.end_byte),
            b.name_range,
        ))
    });
    assign_containers(Lang::OtherCode, defs);
}

/// Kinds whose functions are methods.
fn is_type_kind(lang: Lang, kind: &str) -> bool {
    matches!(
        kind,
        "class" | "struct" | "enum" | "interface" | "trait" | "impl"
    ) || (lang == Lang::Ruby && kind == "module")
}

/// Separator of symbol paths in chunks (`Config::parse`, `LoginView.post`).
pub(crate) fn path_separator(lang: Lang) -> &'static str {
    match lang {
        Lang::Rust | Lang::Cpp | Lang::Php => "::",
        _ => ".",
    }
}

/// The definitions (sorted by span, outer before inner) and references of one file.
pub(crate) struct Tags {
    pub defs: Vec<Def>,
    pub refs: Vec<Reference>,
}

impl Tags {
    pub(crate) fn symbols(&self) -> Vec<Symbol> {
        self.defs
            .iter()
            .map(|d| Symbol {
                name: d.name.clone(),
                kind: d.kind.to_string(),
                container: d.container.clone(),
                signature: d.signature.clone(),
                start_line: to_line(d.start_row),
                end_line: to_line(d.end_row),
                name_line: to_line(d.name_row),
                name_column: to_line(d.name_col),
            })
            .collect()
    }
}

/// 0-based row or column to the model's 1-based `u32`.
pub(crate) fn to_line(row: usize) -> u32 {
    u32::try_from(row.saturating_add(1)).unwrap_or(u32::MAX)
}

/// Runs the tags query of `grammar` over `tree` (the text of a file whose
/// name without extension is `stem`). `None` when `deadline` passed before
/// the query finished.
pub(crate) fn collect(
    grammar: &'static Grammar,
    tree: &Tree,
    lines: &Lines<'_>,
    stem: &str,
    cursor: &mut QueryCursor,
    deadline: Instant,
) -> Option<Tags> {
    let src = lines.src();
    let lang = grammar.lang;
    let mut locals = Vec::new();
    let mut ignored = Vec::new();
    let (mut raw_defs, raw_refs) = if lang == Lang::Python && !force_query() {
        super::python_tags::collect(&grammar.language, tree, deadline)?
    } else if lang == Lang::C && !force_query() {
        super::c_tags::collect(&grammar.language, tree, deadline)?
    } else {
        let found = Found {
            locals: &mut locals,
            ignored: &mut ignored,
        };
        run_query(grammar, tree, src, cursor, deadline, found)?
    };
    if lang == Lang::C {
        super::c_tags::conditional_globals(&grammar.language, tree, &mut raw_defs);
    }
    if matches!(lang, Lang::C | Lang::Cpp) {
        super::c_tags::error_macros(tree, &mut raw_defs);
    }

    // Every definition site's name, also of those `build_defs` merges
    // away (Elixir's and Haskell's later clauses, overloads) or drops
    // (locals): none is a use.
    let def_sites: Vec<(usize, usize)> = raw_defs
        .iter()
        .filter(|d| d.suffix != "impl")
        .map(|d| (d.name.start_byte(), d.name.end_byte()))
        .collect();
    let defs = build_defs(lang, lines, stem, raw_defs);
    let refs = build_refs(
        lang, grammar, src, &defs, &def_sites, raw_refs, &locals, &ignored,
    );
    Some(Tags { defs, refs })
}

// Tests compare the Python and C walks with the queries they stand for.
#[cfg(test)]
thread_local! {
    pub(crate) static FORCE_QUERY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn force_query() -> bool {
    #[cfg(test)]
    {
        FORCE_QUERY.with(|f| f.get())
    }
    #[cfg(not(test))]
    {
        false
    }
}

/// What a query run finds besides definitions and references.
struct Found<'a, 't> {
    /// `@local.definition` names.
    locals: &'a mut Vec<Node<'t>>,
    /// Byte ranges of `@ignore` captures: tree-sitter-tags emits no tag on
    /// them (Elixir's query ignores `def`, `defmodule`, `if` … this way).
    ignored: &'a mut Vec<(usize, usize)>,
}

/// Runs the tags query; `None` when `deadline` passed first.
fn run_query<'t>(
    grammar: &'static Grammar,
    tree: &'t Tree,
    src: &str,
    cursor: &mut QueryCursor,
    deadline: Instant,
    found: Found<'_, 't>,
) -> Option<RawTags<'t>> {
    let query = &grammar.tags_query;
    let roles: Vec<Role> = query.capture_names().iter().map(|c| role_of(c)).collect();
    let mut raw_defs = Vec::new();
    let mut raw_refs = Vec::new();
    let mut timed_out = false;
    {
        let mut progress = |_: &QueryCursorState| {
            if Instant::now() >= deadline {
                timed_out = true;
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = QueryCursorOptions::new().progress_callback(&mut progress);
        let mut matches =
            cursor.matches_with_options(query, tree.root_node(), src.as_bytes(), options);
        while let Some(m) = matches.next() {
            let mut name = None;
            let mut definition = None;
            let mut reference = None;
            for cap in m.captures() {
                match roles.get(cap.index as usize) {
                    Some(Role::Name) => name = Some(cap.node),
                    Some(Role::Definition(kind)) => definition = Some((cap.node, *kind)),
                    Some(Role::Reference(kind)) => reference = Some(*kind),
                    Some(Role::Local) => found.locals.push(cap.node),
                    Some(Role::Ignore) => found
                        .ignored
                        .push((cap.node.start_byte(), cap.node.end_byte())),
                    Some(Role::Ignored) | None => {}
                }
            }
            let Some(name) = name else { continue };
            if let Some((node, suffix)) = definition {
                raw_defs.push(RawDef {
                    node,
                    name,
                    suffix,
                    pattern: m.pattern_index,
                });
            } else if let Some(suffix) = reference {
                // The C# grammar's own query names a member call a `send`,
                // Ruby's and Objective-C's word; C# calls it a call.
                let suffix = match (grammar.lang, suffix) {
                    (Lang::CSharp, "send") => "call",
                    _ => suffix,
                };
                raw_refs.push(RawRef {
                    name,
                    suffix,
                    pattern: m.pattern_index,
                });
            }
        }
    }
    if timed_out {
        return None;
    }
    Some((raw_defs, raw_refs))
}

fn node_text<'s>(src: &'s str, node: Node<'_>) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Cleans a captured name; `None` if it is not a usable name.
fn clean_name(text: &str) -> Option<&str> {
    let t = text.trim();
    if t.is_empty() || t.len() > MAX_NAME_BYTES || t.contains('\n') {
        None
    } else {
        Some(t)
    }
}

fn build_defs(lang: Lang, lines: &Lines<'_>, stem: &str, raw: Vec<RawDef<'_>>) -> Vec<Def> {
    // One definition per name node: the stock pattern (lowest index) wins,
    // e.g. `const f = () => 1` is a function, not a constant.
    let mut by_name: HashMap<(usize, usize), Def> = HashMap::with_capacity(raw.len());
    for r in raw {
        let Some(def) = resolve_def(lang, lines, &r) else {
            continue;
        };
        match by_name.get(&def.name_range) {
            Some(old) if old.pattern <= def.pattern => {}
            _ => {
                by_name.insert(def.name_range, def);
            }
        }
    }
    let mut defs: Vec<Def> = by_name.into_values().collect();
    defs.sort_by(|a, b| {
        (a.start_byte, std::cmp::Reverse(a.end_byte), a.name_range).cmp(&(
            b.start_byte,
            std::cmp::Reverse(b.end_byte),
            b.name_range,
        ))
    });
    if matches!(lang, Lang::CSharp | Lang::Php) {
        scope_file_namespaces(lines, &mut defs);
    }
    if matches!(lang, Lang::C | Lang::Cpp | Lang::ObjC) {
        // `typedef struct jv_refcnt {…} jv_refcnt;` names one type twice:
        // the struct stands for both.
        let tagged: HashSet<(&str, usize, usize)> = defs
            .iter()
            .filter(|d| matches!(d.kind, "struct" | "union" | "enum"))
            .map(|d| (d.name.as_str(), d.start_row, d.end_row))
            .collect();
        let twin: Vec<bool> = defs
            .iter()
            .map(|d| {
                d.kind == "type" && tagged.contains(&(d.name.as_str(), d.start_row, d.end_row))
            })
            .collect();
        defs = without_marked(defs, &twin);
    }
    if lang == Lang::Zig {
        name_file_struct_members(&mut defs, stem);
    }
    unwrap_holders(&mut defs);
    assign_containers(lang, &mut defs);
    let found = defs.len();
    defs = merge_overloads(lang, defs);
    defs = merge_clauses(lang, defs);
    if defs.len() != found {
        assign_containers(lang, &mut defs);
    }
    if lang_rules::is_covered(lang) {
        // Variables declared in a function body (Scala's and Swift's stock
        // queries tag every `val`/`let`) are locals, not definitions.
        // In Swift so are those in a property's initializer or getter (a
        // closure assigned to a `let`, a computed property's body).
        let is_local = |d: &Def| {
            matches!(d.kind, "variable" | "constant" | "field")
                && d.parent.is_some_and(|p| {
                    defs[p].callable != Callable::No
                        || (lang == Lang::Swift
                            && matches!(defs[p].kind, "variable" | "constant" | "field"))
                })
        };
        if defs.iter().any(is_local) {
            let local: Vec<bool> = defs.iter().map(is_local).collect();
            defs = without_marked(defs, &local);
            assign_containers(lang, &mut defs);
        }
    }
    defs
}

/// Sets `parent`, `container`, `path` and the final function/method kind.
/// `defs` is sorted by start, outer spans first.
fn assign_containers(lang: Lang, defs: &mut [Def]) {
    let sep = path_separator(lang);
    let mut stack: Vec<usize> = Vec::new();
    for i in 0..defs.len() {
        let (start, end) = (defs[i].start_byte, defs[i].end_byte);
        while stack.last().is_some_and(|&top| defs[top].end_byte <= start) {
            stack.pop();
        }
        // Same-span siblings (`int a, b;`) do not contain each other, and
        // some kinds never contain anything (a C typedef is not the
        // container of the struct it names).
        // A PHP constructor's promoted parameter is a property of the class.
        let promoted = lang == Lang::Php && defs[i].kind == "field";
        let parent = stack.iter().rev().copied().find(|&p| {
            let d = &defs[p];
            d.start_byte <= start
                && end <= d.end_byte
                && (d.start_byte, d.end_byte) != (start, end)
                && can_contain(lang, d.kind)
                && !(promoted && d.name == "__construct")
        });
        defs[i].parent = parent;
        let parent_kind = parent.map(|p| defs[p].kind);
        // An Elixir `defmacro` is function-like but stays a macro.
        if defs[i].callable == Callable::Function && defs[i].kind != "macro" {
            // A Zig file's top-level function is a method of the file's
            // struct (`name_file_struct_members`).
            let in_type = parent_kind.is_some_and(|k| is_type_kind(lang, k))
                || (lang == Lang::Zig && defs[i].receiver.is_some());
            defs[i].kind = if in_type || defs[i].qual.is_some() {
                "method"
            } else {
                "function"
            };
        }
        let container = if let Some(recv) = &defs[i].receiver {
            Some(recv.clone())
        } else if let Some(qual) = &defs[i].qual {
            // The innermost scope: C++'s `a::Foo` → `Foo`, Ruby's `A.B` → `B`
            // (Elixir keeps a module's full name).
            let last = qual.rsplit("::").next().unwrap_or(qual);
            let last = match lang {
                Lang::Ruby => last.rsplit('.').next().unwrap_or(last),
                _ => last,
            };
            Some(last.to_string())
        } else if lang == Lang::Elixir {
            // A module's full name (`Mix.Dep.Converger`), as Elixir names it.
            parent.map(|p| defs[p].path.clone())
        } else {
            parent.map(|p| defs[p].name.clone())
        };
        let mut path = parent.map(|p| defs[p].path.clone()).unwrap_or_default();
        for part in [
            defs[i].qual.as_deref(),
            defs[i].receiver.as_deref(),
            Some(defs[i].name.as_str()),
        ]
        .into_iter()
        .flatten()
        {
            if !path.is_empty() {
                path.push_str(sep);
            }
            path.push_str(part);
        }
        defs[i].container = container;
        defs[i].path = path;
        stack.push(i);
    }
}

/// A Zig file is a struct, and `const X = @This();` at its top says the
/// file is used as one: its top-level functions, fields and public
/// declarations are members of the struct its importers name after the
/// file (`parse` at the top of `Target/Query.zig` is the method
/// `Query.parse`, so `std.Target.Query.parse` finds it), so they get the
/// file's stem as their container. The binding is a local alias (`Self`,
/// or `hash_map` inside `array_hash_map.zig`), used only when the stem is
/// not a name. Private top-level constants stay unscoped: they are
/// imports and aliases (`const std = @import("std");`).
fn name_file_struct_members(defs: &mut [Def], stem: &str) {
    let Some(binding) = defs
        .iter()
        .find(|d| {
            d.kind == "constant"
                && d.signature
                    .split_once('=')
                    .is_some_and(|(_, v)| v.trim().trim_end_matches(';').trim() == "@This()")
        })
        .map(|d| d.name.clone())
    else {
        return;
    };
    let name = if crate::text::is_plain_name(stem) {
        stem.to_string()
    } else if binding != "Self" {
        binding.clone()
    } else {
        return;
    };
    let mut outer_end = 0;
    for d in defs.iter_mut() {
        if d.start_byte < outer_end {
            continue;
        }
        outer_end = d.end_byte;
        let private_value =
            matches!(d.kind, "constant" | "variable") && !d.signature.starts_with("pub ");
        if d.name == binding
            || d.name == name
            || private_value
            || d.receiver.is_some()
            || d.qual.is_some()
        {
            continue;
        }
        d.receiver = Some(name.clone());
    }
}

fn can_contain(lang: Lang, kind: &str) -> bool {
    match kind {
        "macro" => false,
        "type" | "variable" => !matches!(lang, Lang::C | Lang::Cpp | Lang::ObjC),
        _ => true,
    }
}

/// The real name of a C function declared with an attribute macro between
/// its return type and its name and a space before its parameters
/// (glibc's and git's `static int internal_function check_matching (…)`):
/// the grammar names the function after the macro and leaves the name in
/// an error node just before the parameter list.
fn name_after_attribute_macro(name: Node<'_>) -> Option<Node<'_>> {
    let declarator = name
        .parent()
        .filter(|p| p.kind() == "function_declarator")?;
    if declarator.child_by_field_name("declarator")? != name {
        return None;
    }
    let error = name.next_sibling().filter(|n| n.kind() == "ERROR")?;
    if error.next_sibling()? != declarator.child_by_field_name("parameters")? {
        return None;
    }
    let mut walk = error.walk();
    let mut parts = error.children(&mut walk);
    let only = parts.next().filter(|n| n.kind() == "identifier")?;
    parts.next().is_none().then_some(only)
}

fn resolve_def(lang: Lang, lines: &Lines<'_>, raw: &RawDef<'_>) -> Option<Def> {
    let src = lines.src();
    let mut name_node = unwrap_name(raw.name, src);
    let mut name = clean_name(node_text(src, name_node))?;
    if name == "_" {
        // Go's `var _ IRouter = &RouterGroup{}` (an interface check), a
        // discarded binding: no name to find.
        return None;
    }
    if matches!(lang, Lang::C | Lang::Cpp | Lang::ObjC) && is_c_keyword(name) {
        // Preprocessor branches that leave braces unbalanced make the
        // parser read `} else if (x) {` as a function named `if`, and a
        // macro before a declaration (`REDISMODULE_API void *
        // (*RedisModule_Alloc)(size_t);`) one named `void`.
        return None;
    }
    if matches!(lang, Lang::C | Lang::Cpp | Lang::ObjC)
        && let Some(real) = name_after_attribute_macro(name_node)
    {
        name_node = real;
        name = clean_name(node_text(src, real))?;
    }
    let mut name_col = name_node.start_position().column;
    if name_node.kind() == "simple_symbol" {
        // `attr_reader :title` defines `title`.
        name = name.strip_prefix(':').filter(|n| !n.is_empty())?;
        name_col += 1;
    }
    if let Some(plain) = name
        .strip_prefix('`')
        .and_then(|n| n.strip_suffix('`'))
        .filter(|n| !n.is_empty())
    {
        // Swift's and Kotlin's escaped names (`` `default` ``) are the word.
        name = plain;
        name_col += 1;
    }

    let mut node = raw.node;
    let mut suffix = raw.suffix;
    if matches!(lang, Lang::C | Lang::Cpp | Lang::ObjC) {
        if node.kind() == "declaration" && suffix == "class" {
            // The stock C query tags `union U {...} u;` on the declaration.
            node = raw.name.parent()?;
        }
        if node.kind() == "function_declarator" {
            node = function_owner(node)?;
            if suffix != "method" {
                suffix = "function";
            }
        }
        if matches!(
            node.kind(),
            "struct_specifier" | "union_specifier" | "enum_specifier" | "class_specifier"
        ) && node.child_by_field_name("body").is_none()
        {
            // `struct foo *p;` uses a type, it does not define one.
            return None;
        }
    }
    if lang_rules::is_covered(lang) {
        node = lang_rules::anchor(lang, node, raw.name)?;
    }
    if lang == Lang::Swift && node.kind() == "subscript_declaration" {
        // The stock query names a subscript after each parameter label:
        // it is one definition, named as Swift calls it.
        let mut walk = node.walk();
        let keyword = node.children(&mut walk).find(|c| c.kind() == "subscript")?;
        name_node = keyword;
        name = "subscript";
        name_col = keyword.start_position().column;
    }
    let ecma = matches!(lang, Lang::JavaScript | Lang::TypeScript | Lang::Tsx);
    if ecma && node.kind() == "function_expression" && assigned_function(src, node) {
        // `app.use = function use(fn) {…}`: the assignment defines it (with
        // its object); the function's own name would be a second `use`.
        return None;
    }
    if ecma && node.kind() == "assignment_expression" && exports_named_function(src, node) {
        // `module.exports = function castUpdate(…) {…}`: the function's
        // own name defines it, not `exports`.
        return None;
    }
    let mut property_of = None;
    let mut defined = false;
    if ecma && let Some((property, key, object)) = defined_property(src, node, name) {
        defined = true;
        node = property;
        name_node = key;
        name = clean_name(node_text(src, key))?;
        name_col = key.start_position().column;
        property_of = object;
    }
    let ts = matches!(lang, Lang::TypeScript | Lang::Tsx);
    if ts
        && matches!(node.kind(), "property_signature" | "method_signature")
        && node.parent().is_none_or(|p| p.kind() != "class_body")
        && !ts_declared_member(node)
    {
        return None;
    }
    let overload = (ts
        && (node.kind() == "function_signature"
            || (node.kind() == "method_signature"
                && node.parent().is_some_and(|p| p.kind() == "class_body"))))
        || (lang == Lang::Python && python_overload(node, src));
    let (kind, callable) = if defined {
        // As a function assigned onto the prototype is (`Reply.send`).
        ("function", Callable::Function)
    } else {
        classify(lang, node, suffix, name, src)?
    };
    let wrapped = (ecma
        && kind == "function"
        && node.kind() == "variable_declarator"
        && matches!(suffix, "constant" | "variable"))
    .then(|| binding_kind(node, suffix));
    // A Zig `test "init" { … }` block is a test, not a second `init`: it is
    // named as it is written, so a symbol query for `init` finds the
    // function alone and rankings see a test ([`crate::search::is_test_chunk`]).
    let test_name;
    if lang == Lang::Zig && node.kind() == "test_declaration" {
        test_name = format!("test \"{name}\"");
        name = &test_name;
    }

    let qual = if lang == Lang::Cpp {
        cpp_scope(src, name_node)
    } else if lang == Lang::Ruby
        && let Some(scoped) = [Some(raw.name), raw.name.parent()]
            .into_iter()
            .flatten()
            .find(|n| n.kind() == "scope_resolution")
    {
        // `class FCGI::Stream` defines `Stream` in `FCGI` (`A::B::C`: in
        // `A.B`), as a nested `class Stream` inside `module FCGI` would.
        scoped
            .child_by_field_name("scope")
            .map(|scope| node_text(src, scope).trim().replace("::", "."))
            .filter(|q| !q.is_empty() && !q.contains(char::is_whitespace))
    } else if lang == Lang::Elixir
        && kind == "module"
        && let Some((scope, last)) = name.rsplit_once('.')
        && !scope.is_empty()
        && !last.is_empty()
    {
        // `defmodule Mix.Dep.Loader` defines `Loader` in `Mix.Dep`, so that
        // `Mix.Dep.Loader` and `Loader` both find it, as a nested
        // `defmodule Loader` inside `Mix.Dep` is found.
        name_col += scope.len() + 1;
        name = last;
        Some(scope.to_string())
    } else {
        None
    };
    let receiver = if lang == Lang::Go && node.kind() == "method_declaration" {
        go_receiver(src, node)
    } else if lang == Lang::Lua {
        lang_rules::lua_table(src, raw.name)
    } else if lang == Lang::Kotlin {
        lang_rules::kotlin_receiver(src, node)
    } else if ecma && node.kind() == "assignment_expression" {
        assigned_object(src, node)
    } else {
        property_of
    };

    let outer = outer_node(lang, node);
    let mut start_byte = outer.start_byte();
    let mut start_row = outer.start_position().row;
    if lang == Lang::Rust {
        (start_byte, start_row) = rust_attributes_start(lines, outer, start_byte, start_row);
    }
    if lang == Lang::Haskell
        && let Some(sig) = lang_rules::haskell_signature_start(node, name, src)
    {
        start_byte = sig.start_byte();
        start_row = sig.start_position().row;
    }
    let end_node = if lang == Lang::Scala {
        lang_rules::scala_end(outer)
    } else {
        outer
    };
    let end = end_node.end_position();
    // Nodes that swallow their trailing newline end at column 0 of the next row.
    let end_row = if end.column == 0 && end.row > start_row {
        end.row - 1
    } else {
        end.row
    };
    let name_row = name_node.start_position().row;

    let chunkable = match callable {
        // Rust's `macro_rules!` is chunked like a function (C's multi-line
        // `#define`s stay in their blocks: the kernel has tens of thousands).
        Callable::No => {
            (is_container_kind(kind) || (kind == "macro" && lang == Lang::Rust))
                && end_row > start_row
        }
        // One-liners (getters, `fn new() -> Self { .. }`) stay in their
        // container's or the file's blocks: tiny chunks rank badly.
        Callable::Function | Callable::Method => {
            end_row > start_row
                && (has_body(node)
                    || lang_rules::has_body(lang, node)
                    || (wrapped.is_some()
                        && lang_rules::wrapped_function(node, src)
                            .is_some_and(|f| f.child_by_field_name("body").is_some())))
        }
    };

    Some(Def {
        name: name.to_string(),
        kind,
        callable,
        chunkable,
        start_byte,
        end_byte: end_node.end_byte(),
        start_row,
        end_row,
        doc_start_row: doc_start(lang, lines, start_row),
        name_row,
        name_col,
        name_range: (name_node.start_byte(), name_node.end_byte()),
        signature: signature(lines, outer, node, name_row),
        parent: None,
        container: None,
        path: String::new(),
        qual,
        receiver,
        overload,
        wrapped,
        pattern: raw.pattern,
    })
}

/// C statement, type and storage keywords, which no C, C++ or Objective-C
/// definition is named.
fn is_c_keyword(name: &str) -> bool {
    lang_rules::is_c_type_keyword(name)
        || matches!(
            name,
            "if" | "else"
                | "switch"
                | "case"
                | "while"
                | "for"
                | "do"
                | "return"
                | "sizeof"
                | "goto"
                | "volatile"
                | "register"
                | "typedef"
        )
}

/// Goes from a captured name to the identifier itself: `a::B::c` → `c`,
/// `Foo<T>` → `Foo`, `&'a Bar` → `Bar`, `Arc<Bar>` → `Bar`, `Foo::Bar`
/// (Ruby) → `Bar`.
fn unwrap_name<'t>(mut node: Node<'t>, src: &str) -> Node<'t> {
    for _ in 0..16 {
        let next = match node.kind() {
            // Rust's `impl Schedule for Arc<Handle>`: the methods are
            // `Handle`'s, held by a shared pointer.
            "generic_type"
                if node
                    .child_by_field_name("type")
                    .is_some_and(|t| matches!(node_text(src, t), "Arc" | "Rc" | "Box" | "Pin")) =>
            {
                node.child_by_field_name("type_arguments")
                    .and_then(|a| a.named_child(0))
            }
            "qualified_identifier"
            | "scoped_identifier"
            | "scoped_type_identifier"
            | "template_type"
            | "scope_resolution"
            | "template_function" => node.child_by_field_name("name"),
            "generic_type" | "reference_type" | "pointer_type" => node.child_by_field_name("type"),
            _ => None,
        };
        match next {
            Some(n) => node = n,
            None => break,
        }
    }
    node
}

/// The scope of a C++ out-of-line definition (`a::Foo` for `a::Foo::bar`),
/// with template arguments dropped.
fn cpp_scope(src: &str, name: Node<'_>) -> Option<String> {
    let mut scopes = Vec::new();
    let mut node = name;
    for _ in 0..16 {
        let Some(parent) = node.parent() else { break };
        if parent.kind() != "qualified_identifier" {
            break;
        }
        if let Some(scope) = parent.child_by_field_name("scope") {
            let text = node_text(src, scope);
            let text = text.split('<').next().unwrap_or(text).trim();
            if !text.is_empty() {
                scopes.push(text.to_string());
            }
        }
        node = parent;
    }
    if scopes.is_empty() {
        return None;
    }
    scopes.reverse();
    Some(scopes.join("::"))
}

/// Whether a named function expression is the value of an assignment or
/// a declaration the stock tags query defines by its target's name
/// (`app.use = function use…`, `const f = function f…`).
/// A function expression assigned to `module.exports` under its own name
/// (mongoose's 125 `lib/` files) is defined by that name instead.
fn assigned_function(src: &str, function: Node<'_>) -> bool {
    let Some(parent) = function.parent() else {
        return false;
    };
    let (target, value) = match parent.kind() {
        "assignment_expression" => ("left", "right"),
        "variable_declarator" => ("name", "value"),
        _ => return false,
    };
    parent.child_by_field_name(value) == Some(function)
        && !exports_named_function(src, parent)
        && parent.child_by_field_name(target).is_some_and(|t| {
            t.kind() == "identifier"
                || (t.kind() == "member_expression"
                    && t.child_by_field_name("property")
                        .is_some_and(|p| p.kind() == "property_identifier"))
        })
}

/// Whether `assignment` is `module.exports = function name(…) {…}`: a
/// named function expression as the module's export.
fn exports_named_function(src: &str, assignment: Node<'_>) -> bool {
    assignment.kind() == "assignment_expression"
        && assignment
            .child_by_field_name("left")
            .is_some_and(|l| node_text(src, l) == "module.exports")
        && assignment.child_by_field_name("right").is_some_and(|r| {
            r.kind() == "function_expression" && r.child_by_field_name("name").is_some()
        })
}

/// A property defined through `Object.defineProperties(X, { name: { get ()
/// {…}, value: function () {…} } })` or `Object.defineProperty(X, 'name',
/// { get () {…} })` (fastify's request API): for the descriptor's `get`,
/// `set` or `value` function (`node`), the property's key to name it by,
/// the node spanning the property (its pair, or the `defineProperty`
/// call), and `X` without `.prototype` as its object. The stock query
/// named each after the descriptor's word: fifteen `method get` in one
/// outline, and `symbol Request.hostname` found only the `.d.ts`.
fn defined_property<'t>(
    src: &str,
    node: Node<'t>,
    name: &str,
) -> Option<(Node<'t>, Node<'t>, Option<String>)> {
    if !matches!(name, "get" | "set" | "value")
        || !matches!(node.kind(), "method_definition" | "pair")
    {
        return None;
    }
    let descriptor = node.parent().filter(|p| p.kind() == "object")?;
    let called = |args: Node<'t>, callee: &str| {
        args.kind() == "arguments"
            && args.parent().is_some_and(|c| {
                c.kind() == "call_expression"
                    && c.child_by_field_name("function").is_some_and(|f| {
                        let f = node_text(src, f);
                        f == format!("Object.{callee}") || f == format!("Reflect.{callee}")
                    })
            })
    };
    let object_of = |args: Node<'t>| {
        let first = args.named_child(0)?;
        let text = node_text(src, first);
        let text = text.strip_suffix(".prototype").unwrap_or(text);
        crate::text::is_plain_name(text).then(|| text.to_string())
    };
    let parent = descriptor.parent()?;
    if parent.kind() == "pair"
        && let Some(key) = parent.child_by_field_name("key")
        && key.kind() == "property_identifier"
        && let Some(args) = parent
            .parent()
            .filter(|o| o.kind() == "object")
            .and_then(|o| o.parent())
        && called(args, "defineProperties")
    {
        return Some((parent, key, object_of(args)));
    }
    if called(parent, "defineProperty")
        && parent.named_child(2) == Some(descriptor)
        && let Some(key) = parent.named_child(1).filter(|k| k.kind() == "string")
    {
        let mut walk = key.walk();
        let fragment = key
            .named_children(&mut walk)
            .find(|c| c.kind() == "string_fragment")?;
        return Some((parent.parent()?, fragment, object_of(parent)));
    }
    None
}

/// The object a JavaScript function is assigned onto at the top level,
/// its container: `app.use = function…` → `app`,
/// `Router.prototype.route = …` → `Router`, `res.send = …` → `res`;
/// `None` inside a function or class, for `this.x = …`, `exports.x = …`
/// (the module's own), a plain variable, or an object that is not one
/// name.
fn assigned_object(src: &str, assignment: Node<'_>) -> Option<String> {
    let left = assignment.child_by_field_name("left")?;
    if left.kind() != "member_expression" {
        return None;
    }
    // Inside a function or class the enclosing definition is the container
    // (`inst._zod.check = …` in a constructor).
    let mut up = assignment.parent();
    while let Some(n) = up {
        if matches!(
            n.kind(),
            "function_declaration"
                | "function_expression"
                | "arrow_function"
                | "method_definition"
                | "class_body"
                | "generator_function_declaration"
        ) {
            return None;
        }
        up = n.parent();
    }
    let object = node_text(src, left.child_by_field_name("object")?);
    let object = object.strip_suffix(".prototype").unwrap_or(object);
    let plain = object != "this"
        // `exports.f = …`: the module's own.
        && object != "exports"
        && crate::text::is_plain_name(object);
    plain.then(|| object.to_string())
}

/// The type name of a Go method receiver: `(s *Server[T])` → `Server`.
fn go_receiver(src: &str, method: Node<'_>) -> Option<String> {
    let params = method.child_by_field_name("receiver")?;
    let mut walk = params.walk();
    let param = params
        .named_children(&mut walk)
        .find(|n| n.kind() == "parameter_declaration")?;
    let mut ty = param.child_by_field_name("type")?;
    for _ in 0..8 {
        ty = match ty.kind() {
            "pointer_type" => ty.named_child(0)?,
            "generic_type" => ty.child_by_field_name("type")?,
            "qualified_type" => ty.child_by_field_name("name")?,
            _ => break,
        };
    }
    clean_name(node_text(src, ty)).map(str::to_string)
}

/// The definition a C/C++ `function_declarator` belongs to: a function
/// definition, a prototype at file/namespace level, or a member function
/// declaration. `None` for declarators in parameters and for declarations
/// inside function bodies (C++'s "most vexing parse" `Foo x(bar);`).
fn function_owner(declarator: Node<'_>) -> Option<Node<'_>> {
    let mut node = declarator.parent()?;
    for _ in 0..32 {
        match node.kind() {
            "pointer_declarator"
            | "reference_declarator"
            | "parenthesized_declarator"
            | "attributed_declarator"
            | "function_declarator" => node = node.parent()?,
            _ => break,
        }
    }
    match node.kind() {
        "function_definition" => Some(node),
        "declaration" | "field_declaration" => {
            let mut up = node.parent();
            for _ in 0..MAX_ANCESTOR_STEPS {
                let Some(p) = up else { break };
                match p.kind() {
                    "compound_statement" => return None,
                    "translation_unit" => break,
                    _ => up = p.parent(),
                }
            }
            Some(node)
        }
        _ => None,
    }
}

/// A tagged `variable_declarator`'s kind as a binding: `constant` for a
/// `const` the query tags as a constant, else `variable`.
fn binding_kind(node: Node<'_>, suffix: &str) -> &'static str {
    let is_const = suffix == "constant"
        && node
            .parent()
            .filter(|p| p.kind() == "lexical_declaration")
            .and_then(|p| p.child(0))
            .is_some_and(|kw| kw.kind() == "const");
    if is_const { "constant" } else { "variable" }
}

/// A wrapped function literal ([`Def::wrapped`]) whose body holds
/// definitions with chunks of their own (zod's `const $ZodCheckMinLength =
/// core.$constructor("…", (inst, def) => { inst._zod.check = (payload) =>
/// {…} })`) stays the binding it was: chunked as one function it would
/// swallow them, their names and their chunks. `defs` are sorted by start,
/// outer spans first.
fn unwrap_holders(defs: &mut [Def]) {
    for i in 0..defs.len() {
        let Some(kind) = defs[i].wrapped else {
            continue;
        };
        let end = defs[i].end_byte;
        let holds = defs[i + 1..]
            .iter()
            .take_while(|d| d.start_byte < end)
            .any(|d| d.chunkable && d.end_byte <= end);
        if holds {
            let d = &mut defs[i];
            d.kind = kind;
            d.callable = Callable::No;
            d.chunkable = false;
            d.wrapped = None;
        }
    }
}

/// Normalised kind of a definition node.
fn classify(
    lang: Lang,
    node: Node<'_>,
    suffix: &str,
    name: &str,
    src: &str,
) -> Option<(&'static str, Callable)> {
    use Callable::{Function, Method, No};
    if lang_rules::is_covered(lang)
        && let Some(found) = lang_rules::classify(lang, node, suffix, src)
    {
        return Some(found);
    }
    let callable_suffix = matches!(suffix, "function" | "method");
    let kind = match node.kind() {
        // An Objective-C category (`@interface CAPPluginCall (Extras)`)
        // adds to a class defined elsewhere, as a Swift extension does.
        "class_interface" | "class_implementation"
            if node.child_by_field_name("category").is_some() =>
        {
            return Some(("impl", No));
        }
        // A CONSTANT_CASE key of an object literal (`ecma.scm`); the stock
        // queries tag a pair only when its value is a function.
        "pair" if suffix == "constant" => "constant",
        "function_item"
        | "function_signature_item"
        | "function_definition"
        | "function_declaration"
        | "function_expression"
        | "generator_function"
        | "generator_function_declaration"
        | "function_signature"
        | "assignment_expression"
        | "pair"
        | "method" => return Some(("function", Function)),
        "method_definition"
        | "method_signature"
        | "abstract_method_signature"
        | "method_declaration"
        | "method_elem"
        | "constructor_declaration"
        | "compact_constructor_declaration"
        | "singleton_method"
        | "annotation_type_element_declaration" => return Some(("method", Method)),
        "declaration" | "field_declaration"
            if callable_suffix && matches!(lang, Lang::C | Lang::Cpp | Lang::ObjC) =>
        {
            return Some(("function", Function));
        }
        "variable_declarator" => match suffix {
            "function" => return Some(("function", Function)),
            "constant" | "variable"
                if matches!(lang, Lang::JavaScript | Lang::TypeScript | Lang::Tsx)
                    && lang_rules::wrapped_function(node, src).is_some() =>
            {
                return Some(("function", Function));
            }
            _ => binding_kind(node, suffix),
        },
        "struct_item" | "union_item" | "struct_specifier" | "union_specifier" => "struct",
        "enum_item" | "enum_declaration" | "enum_specifier" => "enum",
        "type_item"
        | "type_alias_declaration"
        | "type_alias"
        | "type_definition"
        | "alias_declaration"
        | "concept_definition" => "type",
        "trait_item" => "trait",
        "mod_item" | "module" => "module",
        "macro_definition" | "preproc_def" | "preproc_function_def" => "macro",
        "impl_item" => "impl",
        "const_item"
        | "const_spec"
        | "enumerator"
        | "constant_declaration"
        | "export_statement" => "constant",
        "static_item" => {
            let mut walk = node.walk();
            let mutable = node
                .children(&mut walk)
                .any(|c| c.kind() == "mutable_specifier");
            if mutable { "variable" } else { "constant" }
        }
        "var_spec" => "variable",
        "class_definition"
        | "class"
        | "class_declaration"
        | "abstract_class_declaration"
        | "record_declaration"
        | "class_specifier"
        | "singleton_class" => "class",
        "interface_declaration" | "annotation_type_declaration" => "interface",
        "internal_module" | "namespace_definition" => "namespace",
        "field_definition" | "public_field_definition" | "property_signature" => "field",
        "type_spec" => match node.child_by_field_name("type").map(|t| t.kind()) {
            Some("struct_type") => "struct",
            Some("interface_type") => "interface",
            _ => "type",
        },
        "assignment" if lang == Lang::Python => {
            if is_upper_case(name) {
                "constant"
            } else if suffix == "field" {
                "field"
            } else {
                "variable"
            }
        }
        "assignment" => "constant",
        "field_declaration" if lang == Lang::Java => {
            let mut walk = node.walk();
            let modifiers = node.children(&mut walk).find(|c| c.kind() == "modifiers");
            let words = modifiers.map(|m| node_text(src, m)).unwrap_or("");
            let has = |w: &str| words.split_whitespace().any(|x| x == w);
            if has("static") && has("final") {
                "constant"
            } else {
                "field"
            }
        }
        "field_declaration" => "field",
        "declaration" => "variable",
        "alias" => "method",
        // Ruby: `alias_method` / `define_method` (a method), `attr_*` (a field).
        "call" if suffix == "method" => return Some(("method", Method)),
        "call" => "field",
        _ => match suffix {
            "function" => return Some(("function", Function)),
            "method" => return Some(("method", Method)),
            other => normalise_suffix(other)?,
        },
    };
    Some((kind, No))
}

/// Fallback for capture suffixes on node kinds not listed in [`classify`].
fn normalise_suffix(suffix: &str) -> Option<&'static str> {
    Some(match suffix {
        "class" => "class",
        "struct" => "struct",
        "enum" => "enum",
        "interface" => "interface",
        "trait" => "trait",
        "module" => "module",
        "namespace" => "namespace",
        "constant" => "constant",
        "variable" => "variable",
        "type" => "type",
        "macro" => "macro",
        "field" | "property" => "field",
        "impl" => "impl",
        _ => return None,
    })
}

fn is_upper_case(name: &str) -> bool {
    name.bytes().any(|b| b.is_ascii_uppercase()) && !name.bytes().any(|b| b.is_ascii_lowercase())
}

/// Whether a TypeScript `property_signature` / `method_signature` declares
/// a member of a named type (an interface, an object type a type alias
/// names, and object types nested in their members), not of an inline
/// object type in a parameter, a return type, an `as` cast or a
/// conditional type (`(o as { pages?: number }).pages` defines nothing).
fn ts_declared_member(node: Node<'_>) -> bool {
    let mut up = node.parent();
    for _ in 0..32 {
        let Some(p) = up else { return false };
        match p.kind() {
            "interface_body" | "type_alias_declaration" => return true,
            "object_type" | "property_signature" | "type_annotation" | "union_type"
            | "intersection_type" | "parenthesized_type" | "array_type" | "readonly_type" => {}
            _ => return false,
        }
        up = p.parent();
    }
    false
}

/// A file-scoped namespace (C#'s `namespace Acme.Tools;`, PHP's `namespace
/// App\Console;`) holds what follows it, up to the next one: its one-line
/// definition is stretched so that the types below get it as their
/// container, as a braced namespace's do. Chunks are unchanged (it stays
/// unchunked; its members are chunked as top-level definitions).
fn scope_file_namespaces(lines: &Lines<'_>, defs: &mut [Def]) {
    let scoped: Vec<usize> = (0..defs.len())
        .filter(|&i| {
            let d = &defs[i];
            d.kind == "namespace"
                && d.end_row == d.start_row
                && lines.line(d.end_row).trim_end().ends_with(';')
        })
        .collect();
    let last_row = lines.count().saturating_sub(1);
    for (k, &i) in scoped.iter().enumerate() {
        let (end_byte, end_row) = match scoped.get(k + 1) {
            Some(&j) => (defs[j].start_byte, defs[j].start_row.saturating_sub(1)),
            None => (lines.src().len(), last_row),
        };
        let d = &mut defs[i];
        d.end_byte = end_byte.max(d.end_byte);
        d.end_row = end_row.max(d.start_row);
    }
}

/// A Python function decorated `@overload` (`@typing.overload`,
/// `@t.overload`): a typing stub of the function defined after it.
fn python_overload(node: Node<'_>, src: &str) -> bool {
    let Some(decorated) = node
        .parent()
        .filter(|p| node.kind() == "function_definition" && p.kind() == "decorated_definition")
    else {
        return false;
    };
    let mut cur = decorated.walk();
    decorated.children(&mut cur).any(|c| {
        let t = node_text(src, c).trim_start_matches('@').trim();
        c.kind() == "decorator" && (t == "overload" || t.ends_with(".overload"))
    })
}

/// Merges each run of TypeScript overload signatures (or Python `@overload`
/// stubs) into the implementation that follows them (same name, same
/// parent): one definition whose span and chunk start at the first
/// signature's comments, so `symbol f` answers once and the chunk holds the
/// docs, the overloads and the body. Signatures with no implementation
/// after them (ambient declarations, interfaces, `.pyi` stubs) stay.
fn merge_overloads(lang: Lang, defs: Vec<Def>) -> Vec<Def> {
    if !matches!(lang, Lang::TypeScript | Lang::Tsx | Lang::Python)
        || !defs.iter().any(|d| d.overload)
    {
        return defs;
    }
    let mut defs = defs;
    let mut drop = vec![false; defs.len()];
    for i in 0..defs.len() {
        if defs[i].overload {
            continue;
        }
        // The siblings just before `i`: same parent, written before it.
        let mut first = None;
        let mut k = i;
        while let Some(j) = (0..k)
            .rev()
            .find(|&j| defs[j].parent == defs[i].parent && !drop[j])
        {
            if !defs[j].overload || defs[j].name != defs[i].name {
                break;
            }
            first = Some(j);
            k = j;
        }
        if let Some(f) = first {
            (defs[i].start_byte, defs[i].start_row) = (defs[f].start_byte, defs[f].start_row);
            defs[i].doc_start_row = defs[f].doc_start_row;
            drop[f..i].iter_mut().for_each(|d| *d = true);
        }
    }
    without_marked(defs, &drop)
}

/// Haskell's equations and Elixir's and Erlang's clauses: a function written as several
/// definitions of one name in a row (`blockToICML opts style (Para lst) =
/// …` once per constructor, `def get_task(["-" <> _ | _])` then `def
/// get_task([h | t])`) is one function, so the siblings of one parent that
/// follow each other with the same name and kind become one definition
/// spanning them all (named, documented and signed where the first one
/// is). Each clause on its own made as many one-line definitions, which a
/// symbol lookup listed one by one and the chunker left in line windows.
fn merge_clauses(lang: Lang, defs: Vec<Def>) -> Vec<Def> {
    if !matches!(lang, Lang::Haskell | Lang::Elixir | Lang::Erlang) {
        return defs;
    }
    let mut defs = defs;
    let mut drop = vec![false; defs.len()];
    let mut last_sibling: HashMap<Option<usize>, usize> = HashMap::new();
    for i in 0..defs.len() {
        let parent = defs[i].parent;
        if let Some(&j) = last_sibling.get(&parent)
            && defs[i].callable != Callable::No
            && defs[j].callable == defs[i].callable
            && defs[j].kind == defs[i].kind
            && defs[j].name == defs[i].name
        {
            if defs[i].end_byte > defs[j].end_byte {
                defs[j].end_byte = defs[i].end_byte;
                defs[j].end_row = defs[i].end_row;
            }
            defs[j].chunkable = defs[j].end_row > defs[j].start_row;
            drop[i] = true;
            continue;
        }
        last_sibling.insert(parent, i);
    }
    without_marked(defs, &drop)
}

/// `defs` without those whose mark is set (`marked` is parallel to it);
/// the same vector when none is.
fn without_marked(defs: Vec<Def>, marked: &[bool]) -> Vec<Def> {
    if !marked.contains(&true) {
        return defs;
    }
    defs.into_iter()
        .zip(marked)
        .filter_map(|(d, &m)| (!m).then_some(d))
        .collect()
}

/// Whether a function-like node has a body (a prototype or an interface
/// method does not get a chunk of its own).
fn has_body(node: Node<'_>) -> bool {
    node.child_by_field_name("body").is_some()
        || ["value", "right"].iter().any(|f| {
            node.child_by_field_name(f)
                .is_some_and(|v| v.child_by_field_name("body").is_some())
        })
}

/// The node spanning the whole definition: with Python decorators, with
/// JavaScript's `const`/`export`/`declare`, Go's `type`/`const` keyword of
/// a single spec, and C++'s `template<...>`.
fn outer_node(lang: Lang, node: Node<'_>) -> Node<'_> {
    let mut outer = node;
    match lang {
        Lang::Python => {
            if let Some(p) = outer
                .parent()
                .filter(|p| p.kind() == "decorated_definition")
            {
                outer = p;
            }
        }
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
            if outer.kind() == "variable_declarator"
                && let Some(p) = outer.parent().filter(|p| {
                    matches!(p.kind(), "lexical_declaration" | "variable_declaration")
                        && p.named_child_count() == 1
                })
            {
                outer = p;
            }
            for _ in 0..3 {
                match outer.parent() {
                    Some(p) if matches!(p.kind(), "export_statement" | "ambient_declaration") => {
                        outer = p
                    }
                    _ => break,
                }
            }
        }
        Lang::Go => {
            if matches!(
                outer.kind(),
                "type_spec" | "type_alias" | "const_spec" | "var_spec"
            ) && let Some(p) = outer.parent().filter(|p| {
                matches!(
                    p.kind(),
                    "type_declaration" | "const_declaration" | "var_declaration"
                ) && p.named_child_count() == 1
            }) {
                outer = p;
            }
        }
        Lang::C | Lang::Cpp => {
            for _ in 0..8 {
                match outer.parent() {
                    Some(p) if p.kind() == "template_declaration" => outer = p,
                    _ => break,
                }
            }
        }
        _ => {}
    }
    outer
}

/// Extends a Rust item's start over the `#[...]` attributes just above it
/// (they are siblings, not children, of the item in tree-sitter-rust).
fn rust_attributes_start(
    lines: &Lines<'_>,
    item: Node<'_>,
    start_byte: usize,
    start_row: usize,
) -> (usize, usize) {
    // Sibling walks cost O(siblings); only take them when the line above
    // can end an attribute.
    if start_row == 0 || !lines.line(start_row - 1).trim_end().ends_with(']') {
        return (start_byte, start_row);
    }
    let (mut byte, mut row) = (start_byte, start_row);
    let mut prev = item.prev_sibling();
    while let Some(p) = prev {
        match p.kind() {
            "attribute_item" => {
                byte = p.start_byte();
                row = p.start_position().row;
            }
            "line_comment" | "block_comment" => {}
            _ => break,
        }
        prev = p.prev_sibling();
    }
    (byte, row)
}

/// Line prefixes of what belongs to the definition below it: comments,
/// and in some languages attributes (`#[`, `@`, `[`).
pub(crate) fn doc_prefixes(lang: Lang) -> &'static [&'static str] {
    match (lang_rules::doc_prefixes(lang), lang) {
        (Some(prefixes), _) => prefixes,
        (None, Lang::Python | Lang::Ruby) => &["#"],
        (None, Lang::Rust) => &["//", "/*", "*", "#["],
        (None, _) => &["//", "/*", "*"],
    }
}

/// First row of the comment lines directly above `start_row` (no blank
/// line in between), found by looking at the lines: cheaper than sibling
/// walks and the same for every grammar.
fn doc_start(lang: Lang, lines: &Lines<'_>, start_row: usize) -> usize {
    let prefixes = doc_prefixes(lang);
    let mut row = start_row;
    while row > 0 && start_row - row < MAX_DOC_LINES {
        let above = lines.line(row - 1).trim_start();
        // Objective-C's attribute macros (`NS_SWIFT_NAME(Host)`) sit
        // between a declaration and its comment.
        let attribute = lang == Lang::ObjC && lang_rules::is_bare_macro(above.trim_end());
        if lang == Lang::Elixir
            && let Some(open) =
                lang_rules::elixir_heredoc_start(lines, row - 1, row - MAX_DOC_LINES.min(row))
        {
            // `@doc """` … `"""`: the whole attribute.
            row = open;
            continue;
        }
        if prefixes.contains(&"/*")
            && above.trim_end().ends_with("*/")
            && let Some(open) = block_comment_start(lines, row - 1, row - MAX_DOC_LINES.min(row))
        {
            // `/** … */` whose inner lines are text, not ` * text`.
            row = open;
            continue;
        }
        // A `/** … */` doc block one blank line above, as express writes
        // every JSDoc (`createETagGenerator`'s had been a chunk of its
        // own, without a name): the definition's, unless it opens the
        // file (a licence header).
        if above.is_empty()
            && row == start_row
            && row >= 2
            && prefixes.contains(&"/*")
            && lines.line(row - 2).trim().ends_with("*/")
            && let Some(open) =
                block_comment_start(lines, row - 2, row - MAX_DOC_LINES.min(row).max(2))
            && open > 0
            && lines.line(open).trim_start().starts_with("/**")
        {
            row = open;
            continue;
        }
        if above.is_empty() || !(attribute || prefixes.iter().any(|p| above.starts_with(p))) {
            break;
        }
        row -= 1;
    }
    row
}

/// The row opening the block comment that `close` ends (`*/`): the nearest
/// row at or above it, not above `floor`, that starts with `/*`; `None`
/// when code comes first on that row or another comment closes in between.
fn block_comment_start(lines: &Lines<'_>, close: usize, floor: usize) -> Option<usize> {
    let mut r = close;
    loop {
        let t = lines.line(r).trim();
        if t.starts_with("/*") {
            return Some(r);
        }
        if t.contains("/*") || (r != close && t.contains("*/")) || r == floor {
            return None;
        }
        r -= 1;
    }
}

/// The trimmed line holding the name; when that line is longer than
/// [`MAX_SIGNATURE_CHARS`] bytes, the text from where the definition starts
/// on it (minified code), cut to [`MAX_SIGNATURE_CHARS`] characters. A C `typedef` is named on its last line
/// (`} point_t;`), so its signature is its first line instead.
fn signature(lines: &Lines<'_>, outer: Node<'_>, node: Node<'_>, name_row: usize) -> String {
    let row = if node.kind() == "type_definition" {
        node.start_position().row
    } else {
        name_row
    };
    let (line_start, line_end) = lines.range(row);
    let line = lines.src().get(line_start..line_end).unwrap_or("").trim();
    // Bytes, not chars: counting the chars of a megabyte line once per
    // definition on it would be quadratic.
    if line.len() <= MAX_SIGNATURE_CHARS {
        return line.to_string();
    }
    let start = [outer, node]
        .iter()
        .find(|n| n.start_position().row == row)
        .map_or(line_start, |n| n.start_byte())
        .clamp(line_start, line_end);
    let text = lines.src().get(start..line_end).unwrap_or("").trim();
    truncate_chars(text, MAX_SIGNATURE_CHARS).to_string()
}

/// A signature's text bounded as extraction bounds it.
pub(crate) fn truncate_signature(s: &str) -> &str {
    truncate_chars(s, MAX_SIGNATURE_CHARS)
}

pub(crate) fn truncate_chars(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

#[allow(clippy::too_many_arguments)]
fn build_refs(
    lang: Lang,
    grammar: &Grammar,
    src: &str,
    defs: &[Def],
    def_sites: &[(usize, usize)],
    raw: Vec<RawRef<'_>>,
    locals: &[Node<'_>],
    ignored: &[(usize, usize)],
) -> Vec<Reference> {
    // A definition's own name is not a use of it; an impl's self type is.
    let def_names: HashSet<(usize, usize)> = defs
        .iter()
        .filter(|d| d.kind != "impl")
        .map(|d| d.name_range)
        .chain(def_sites.iter().copied())
        .collect();
    let ignored: HashSet<(usize, usize)> = ignored.iter().copied().collect();
    // An operator is no name to look up: OCaml's stock query tags every
    // infix and prefix operator (`+`, `|>`, `!`) as a call.
    let is_word = |r: &RawRef<'_>| {
        node_text(src, r.name)
            .chars()
            .any(|c| c.is_alphanumeric() || c == '_')
    };
    let mut kept: Vec<RawRef<'_>> = raw
        .into_iter()
        .filter(|r| {
            let range = (r.name.start_byte(), r.name.end_byte());
            !def_names.contains(&range) && !ignored.contains(&range) && is_word(r)
        })
        .collect();
    // Several patterns can tag one name (Go's `type_identifier` pattern and
    // a call, Rust's impl trait and type use, Ruby's call and bare
    // identifier): keep the lowest pattern, the stock query's.
    kept.sort_by_key(|r| (r.name.start_byte(), r.name.end_byte(), r.pattern));
    kept.dedup_by_key(|r| (r.name.start_byte(), r.name.end_byte()));

    // `(#is-not? local)`: the name must not be a local variable of its scope.
    let query = &grammar.tags_query;
    let local_sensitive: Vec<bool> = (0..query.pattern_count())
        .map(|p| {
            query
                .property_predicates(p)
                .iter()
                .any(|(prop, positive)| !positive && &*prop.key == "local")
        })
        .collect();
    let scopes = LocalScopes::new(lang, defs);
    let local_names: HashSet<(usize, &str)> = locals
        .iter()
        .map(|&n| (scopes.scope_of(n.start_byte()), node_text(src, n)))
        .collect();

    let mut refs = Vec::with_capacity(kept.len());
    for r in kept {
        let Some(name) = clean_name(node_text(src, r.name)) else {
            continue;
        };
        if local_sensitive.get(r.pattern).copied().unwrap_or(false)
            && local_names.contains(&(scopes.scope_of(r.name.start_byte()), name))
        {
            continue;
        }
        if lang == Lang::Go && r.suffix == "type" && is_go_predeclared_type(name) {
            continue;
        }
        // Ruby constants are almost always classes and modules.
        let kind = if lang == Lang::Ruby && r.name.kind() == "constant" {
            "class"
        } else {
            r.suffix
        };
        let pos = r.name.start_position();
        refs.push(Reference {
            name: name.to_string(),
            kind: kind.to_string(),
            line: to_line(pos.row),
            column: to_line(pos.column),
            qualifier: qualifier_of(src, r.name),
            scope: enclosing_scope(defs, r.name.start_byte()).map(|d| d.path.clone()),
        });
    }
    refs
}

/// The fields through which grammars name what a member access, a method
/// call or a path is reached through (`obj.name`, `obj->name`, `A::name`,
/// Ruby's `recv.name`, Java's `obj.name()`, Go's `pkg.Name`).
const RECEIVER_FIELDS: [&str; 12] = [
    "object",
    "value",
    "operand",
    "argument",
    "receiver",
    "path",
    "scope",
    "expression",
    "package",
    "namespace",
    "module",
    // Lua's `stringx.split(…)`, `List:append(…)`.
    "table",
];

/// The receiver or path written before a referenced name, if any: the
/// receiver-like field of its parent that ends before the name. Kotlin and
/// Swift have no such fields: their navigation node's first child is it.
fn qualifier_of(src: &str, name: Node<'_>) -> Option<String> {
    let start = name.start_byte();
    // Every receiver is written with `.`, `::`, `->` or `:` right before
    // the name; a bare name skips the parent lookup (O(depth) per call).
    let before = src.get(..start)?.trim_end();
    if !before.ends_with(['.', ':', '>']) {
        return None;
    }
    let mut parent = name.parent()?;
    // Erlang's `m:f(…)` is (remote module: (remote_module m) fun: (call f)):
    // the module is the remote's, one level up from the call.
    if parent.kind() == "call"
        && let Some(up) = parent.parent()
        && up.kind() == "remote"
    {
        parent = up;
    }
    let mut recv = RECEIVER_FIELDS
        .iter()
        .filter_map(|f| parent.child_by_field_name(f))
        .find(|c| c.end_byte() <= start && c.id() != name.id());
    if recv.is_none() && parent.kind().contains("navigation") {
        // Kotlin `a.b` is (navigation_expression a (navigation_suffix b)).
        let outer = if parent.kind() == "navigation_suffix" {
            parent.parent()?
        } else {
            parent
        };
        recv = outer
            .named_child(0)
            .filter(|c| c.end_byte() <= start && c.id() != name.id());
    }
    if recv.is_none() && parent.kind() == "value_path" {
        // OCaml `Lwt_mutex.with_lock` is (value_path (module_path …)
        // (value_name)), the module path unnamed.
        recv = parent
            .named_child(0)
            .filter(|c| c.kind() == "module_path" && c.end_byte() <= start);
    }
    // Erlang's module nodes hold the `:` after the name (`fun m:f/1`).
    let text = node_text(src, recv?).trim_end_matches(':');
    let mut out = String::with_capacity(text.len().min(crate::model::MAX_QUALIFIER_BYTES));
    // Line breaks and indentation of a chain go (`z\n  .array(…)` →
    // `z.array(…)`); a space between two words stays (`(last as T)`).
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    for word in text.split_whitespace() {
        if out.ends_with(ident) && word.starts_with(ident) {
            out.push(' ');
        }
        out.push_str(word);
    }
    if out.is_empty() {
        return None;
    }
    if out.len() > crate::model::MAX_QUALIFIER_BYTES {
        out = elide_call_args(&out);
    }
    if out.len() > crate::model::MAX_QUALIFIER_BYTES {
        let mut cut = crate::model::MAX_QUALIFIER_BYTES - 3;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push('…');
    }
    Some(out)
}

/// A receiver too long to keep whole, with the arguments of its calls
/// elided: `z.object({ a: z.string(), … }).refine((x) => …, { … })` →
/// `z.object(…).refine(…)`. A chain's type follows from its calls' heads,
/// which the cut at the length limit would lose; a parenthesized receiver
/// (`(last as T)`, not after a name) stays whole.
fn elide_call_args(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        out.push(c);
        if c != '(' {
            continue;
        }
        let before = out[..out.len() - 1].chars().next_back();
        let is_call =
            before.is_some_and(|b| b.is_alphanumeric() || matches!(b, '_' | '$' | '>' | ')' | '!'));
        if !is_call {
            continue;
        }
        let mut depth = 1usize;
        let mut quote: Option<char> = None;
        let mut empty = true;
        while let Some(&(_, n)) = chars.peek() {
            if let Some(q) = quote {
                chars.next();
                if n == '\\' {
                    chars.next();
                } else if n == q {
                    quote = None;
                }
                empty = false;
                continue;
            }
            match n {
                '"' | '\'' | '`' => quote = Some(n),
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            empty = false;
            chars.next();
        }
        if !empty {
            out.push('…');
        }
    }
    out
}

/// The innermost definition that opens a scope (a function, method, type,
/// impl or module) around `byte`.
fn enclosing_scope(defs: &[Def], byte: usize) -> Option<&Def> {
    innermost_around(defs, byte, opens_named_scope).map(|i| &defs[i])
}

/// The index of the innermost definition around `byte` that `keep`
/// accepts: from the last one starting before it up its parent links
/// (`defs` sorted by start, outer spans first), without walking the tree.
fn innermost_around(defs: &[Def], byte: usize, keep: impl Fn(&Def) -> bool) -> Option<usize> {
    let k = defs.partition_point(|d| d.start_byte <= byte);
    let mut at = k.checked_sub(1);
    for _ in 0..MAX_ANCESTOR_STEPS {
        let i = at?;
        let d = &defs[i];
        if d.start_byte <= byte && byte < d.end_byte && keep(d) {
            return Some(i);
        }
        at = d.parent;
    }
    None
}

fn opens_named_scope(d: &Def) -> bool {
    d.callable != Callable::No
        || matches!(
            d.kind,
            "class"
                | "struct"
                | "impl"
                | "trait"
                | "interface"
                | "enum"
                | "module"
                | "namespace"
                | "object"
                | "union"
                | "protocol"
                | "extension"
        )
}

/// Go's predeclared types: uses of `string` or `error` are not worth indexing.
pub(crate) fn is_go_predeclared_type(name: &str) -> bool {
    matches!(
        name,
        "any"
            | "bool"
            | "byte"
            | "comparable"
            | "complex64"
            | "complex128"
            | "error"
            | "float32"
            | "float64"
            | "int"
            | "int8"
            | "int16"
            | "int32"
            | "int64"
            | "rune"
            | "string"
            | "uint"
            | "uint8"
            | "uint16"
            | "uint32"
            | "uint64"
            | "uintptr"
    )
}

/// Local-variable scopes for `#is-not? local`, approximated by the
/// definitions that open a scope in Ruby (methods, classes, modules); blocks
/// share their method's locals. Found by byte offset through the sorted
/// definitions and their parent links, without walking the syntax tree
/// (`Node::parent` costs O(depth) per call).
struct LocalScopes<'d> {
    defs: &'d [Def],
    enabled: bool,
}

impl<'d> LocalScopes<'d> {
    fn new(lang: Lang, defs: &'d [Def]) -> LocalScopes<'d> {
        LocalScopes {
            defs,
            enabled: lang == Lang::Ruby,
        }
    }

    fn opens_scope(d: &Def) -> bool {
        d.callable != Callable::No || matches!(d.kind, "class" | "module")
    }

    /// 0 for the file scope, else 1 + the index of the scope definition.
    fn scope_of(&self, byte: usize) -> usize {
        if !self.enabled {
            return 0;
        }
        innermost_around(self.defs, byte, Self::opens_scope).map_or(0, |i| i + 1)
    }
}
