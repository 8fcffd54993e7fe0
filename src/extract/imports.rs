//! The imports of one file, read from the tree the tags query already ran
//! on: one cursor walk that descends only where a language can put an
//! import (statement blocks; every node in JS/TS, whose `require(…)` and
//! `import(…)` are expressions). Modules are kept as written; resolving
//! them to project files is `crate::imports`'s job, at query time.

use std::sync::OnceLock;

use tree_sitter::{Language, Node, Tree};

use crate::model::{Import, Lang};

/// Per-grammar tables, indexed by node kind id: where imports are (their
/// statement nodes) and which nodes may contain one. Looked up by id, so a
/// node that is neither costs one array read.
struct Table {
    handle: Vec<bool>,
    descend: Vec<bool>,
}

fn handles(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Python => matches!(
            kind,
            "import_statement" | "import_from_statement" | "future_import_statement"
        ),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
            matches!(
                kind,
                "import_statement" | "export_statement" | "call_expression"
            )
        }
        Lang::Rust => matches!(kind, "mod_item" | "use_declaration"),
        Lang::Go => kind == "import_declaration",
        // A file's own package (`package a.b;`) is kept too, as kind
        // `package`: Kotlin's and Scala's need not match their directory.
        Lang::Java => matches!(kind, "import_declaration" | "package_declaration"),
        Lang::Kotlin => matches!(kind, "import" | "package_header"),
        // Only a bare `require …` call is an import; other calls are
        // descended into.
        Lang::Ruby => kind == "call",
        Lang::Php => matches!(
            kind,
            "namespace_use_declaration"
                | "require_expression"
                | "require_once_expression"
                | "include_expression"
                | "include_once_expression"
        ),
        Lang::Scala => matches!(kind, "import_declaration" | "package_clause"),
        Lang::Haskell => kind == "import",
        // Calls: only `require "a.b"`, `alias A.B`, `@import("x.zig")` and
        // `include("x.jl")` are imports; other calls are descended into.
        Lang::Lua | Lang::Julia => matches!(kind, "function_call" | "call_expression"),
        Lang::Elixir => kind == "call",
        Lang::Zig => kind == "builtin_function",
        Lang::Erlang => matches!(kind, "pp_include" | "pp_include_lib"),
        _ => kind == "preproc_include",
    }
}

fn descends(lang: Lang, kind: &str) -> bool {
    match lang {
        Lang::Python => matches!(
            kind,
            "module"
                | "block"
                | "if_statement"
                | "elif_clause"
                | "else_clause"
                | "try_statement"
                | "except_clause"
                | "except_group_clause"
                | "finally_clause"
                | "function_definition"
                | "class_definition"
                | "decorated_definition"
                | "with_statement"
        ),
        // `require(…)` and `import(…)` are expressions: everywhere.
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => {
            !matches!(kind, "string" | "template_string" | "comment" | "regex")
        }
        Lang::Rust => matches!(
            kind,
            "source_file"
                | "declaration_list"
                | "mod_item"
                | "function_item"
                | "block"
                | "impl_item"
                | "trait_item"
        ),
        Lang::Go | Lang::Java | Lang::Kotlin => matches!(kind, "source_file" | "program"),
        Lang::Scala => matches!(
            kind,
            "compilation_unit" | "package_clause" | "template_body"
        ),
        Lang::Haskell => matches!(kind, "haskell" | "imports"),
        Lang::Erlang => kind == "source_file",
        // Calls are expressions: everywhere but in literals.
        Lang::Lua | Lang::Julia | Lang::Elixir | Lang::Zig => !matches!(
            kind,
            "string" | "string_literal" | "comment" | "line_comment" | "block_comment" | "charlist"
        ),
        // `require` is a method call and `require_once` an expression:
        // anywhere (a Ruby file requires inside `module` bodies and
        // conditionals, a PHP one inside functions).
        Lang::Ruby | Lang::Php => !matches!(
            kind,
            "string"
                | "encapsed_string"
                | "heredoc"
                | "heredoc_body"
                | "nowdoc"
                | "comment"
                | "regex"
                | "text"
        ),
        _ => {
            kind.starts_with("preproc_")
                || matches!(
                    kind,
                    "translation_unit"
                        | "declaration_list"
                        | "linkage_specification"
                        | "namespace_definition"
                )
        }
    }
}

/// The languages with import rules, in the order of [`TABLES`].
const LANGS: [Lang; 20] = [
    Lang::Python,
    Lang::JavaScript,
    Lang::TypeScript,
    Lang::Tsx,
    Lang::Rust,
    Lang::Go,
    Lang::Java,
    Lang::C,
    Lang::Cpp,
    Lang::ObjC,
    Lang::Kotlin,
    Lang::Ruby,
    Lang::Php,
    Lang::Scala,
    Lang::Lua,
    Lang::Haskell,
    Lang::Elixir,
    Lang::Zig,
    Lang::Erlang,
    Lang::Julia,
];

static TABLES: [OnceLock<Table>; 20] = [const { OnceLock::new() }; 20];

/// Whether the index reads the imports of `lang`'s files.
pub fn supports(lang: Lang) -> bool {
    LANGS.contains(&lang)
}

/// The languages whose imports the index reads, for a note.
pub fn supported_names() -> String {
    let names: Vec<&str> = LANGS.iter().map(|l| l.name()).collect();
    names.join(", ")
}

fn table(lang: Lang, language: &Language) -> Option<&'static Table> {
    let i = LANGS.iter().position(|l| *l == lang)?;
    Some(TABLES[i].get_or_init(|| {
        let n = language.node_kind_count();
        let (mut handle, mut descend) = (vec![false; n], vec![false; n]);
        for id in 0..n {
            let kind = u16::try_from(id)
                .ok()
                .and_then(|id| language.node_kind_for_id(id))
                .unwrap_or_default();
            handle[id] = handles(lang, kind);
            descend[id] = descends(lang, kind);
        }
        Table { handle, descend }
    }))
}

/// Every import of a file in source order, or nothing for a language
/// without import rules here. `language` is the grammar `tree` was parsed
/// with.
pub fn collect(lang: Lang, language: &Language, tree: &Tree, src: &str) -> Vec<Import> {
    let mut out = Vec::new();
    let Some(t) = table(lang, language) else {
        return out;
    };
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        let id = usize::from(node.kind_id());
        let handled = t.handle.get(id).copied().unwrap_or(false)
            && match lang {
                Lang::Python => python(node, src, &mut out),
                Lang::JavaScript | Lang::TypeScript | Lang::Tsx => js(node, src, &mut out),
                Lang::Rust => rust(node, src, &mut out),
                Lang::Go => go(node, src, &mut out),
                Lang::Java => java(node, src, &mut out),
                Lang::Kotlin => kotlin(node, src, &mut out),
                Lang::Ruby => ruby(node, src, &mut out),
                Lang::Php => php(node, src, &mut out),
                Lang::Scala => scala(node, src, &mut out),
                Lang::Lua => lua(node, src, &mut out),
                Lang::Haskell => haskell(node, src, &mut out),
                Lang::Elixir => elixir(node, src, &mut out),
                Lang::Zig => zig(node, src, &mut out),
                Lang::Erlang => erlang(node, src, &mut out),
                Lang::Julia => julia(node, src, &mut out),
                _ => c(node, src, &mut out),
            };
        if !handled && t.descend.get(id).copied().unwrap_or(false) && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return out;
            }
        }
    }
}

fn text<'s>(node: Node<'_>, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or_default()
}

/// The text without whitespace (dotted names and paths may be split over lines).
fn compact(node: Node<'_>, src: &str) -> String {
    text(node, src)
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect()
}

fn line(node: Node<'_>) -> u32 {
    u32::try_from(node.start_position().row + 1).unwrap_or(u32::MAX)
}

/// The content of a string literal: quotes (or `<>`) removed; `None` for
/// an interpolated template or an empty string.
fn literal(node: Node<'_>, src: &str) -> Option<String> {
    if node.kind() == "template_string" && node.named_child_count() > 0 {
        return None;
    }
    let t = text(node, src).trim();
    let inner = t
        .strip_prefix(['"', '\'', '`', '<'])
        .and_then(|s| s.strip_suffix(['"', '\'', '`', '>']))
        .unwrap_or(t);
    (!inner.is_empty()).then(|| inner.to_string())
}

fn push(
    out: &mut Vec<Import>,
    node: Node<'_>,
    module: String,
    name: Option<String>,
    alias: Option<String>,
    kind: &'static str,
) {
    out.push(Import {
        module,
        name,
        alias,
        line: line(node),
        kind,
    });
}

fn python(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    let mut cur = node.walk();
    match node.kind() {
        "import_statement" => {
            for n in node.children_by_field_name("name", &mut cur) {
                let (module, alias) = python_name(n, src);
                push(out, node, module, None, alias, "import");
            }
            true
        }
        "import_from_statement" => {
            let Some(m) = node.child_by_field_name("module_name") else {
                return true;
            };
            let module = compact(m, src);
            let mut any = false;
            for n in node.children_by_field_name("name", &mut cur) {
                let (name, alias) = python_name(n, src);
                push(out, node, module.clone(), Some(name), alias, "from");
                any = true;
            }
            if !any {
                // `from x import *`
                push(out, node, module, Some("*".into()), None, "from");
            }
            true
        }
        "future_import_statement" => true,
        _ => false,
    }
}

/// `a.b` or `a.b as c`.
fn python_name(n: Node<'_>, src: &str) -> (String, Option<String>) {
    if n.kind() == "aliased_import" {
        let name = n
            .child_by_field_name("name")
            .map(|x| compact(x, src))
            .unwrap_or_default();
        let alias = n.child_by_field_name("alias").map(|x| compact(x, src));
        (name, alias)
    } else {
        (compact(n, src), None)
    }
}

fn js(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    match node.kind() {
        "import_statement" => {
            let source = node.child_by_field_name("source").or_else(|| {
                // TS `import x = require("y")`
                let mut cur = node.walk();
                node.named_children(&mut cur)
                    .find(|c| c.kind() == "import_require_clause")
                    .and_then(|c| c.child_by_field_name("source"))
            });
            let Some(module) = source.and_then(|s| literal(s, src)) else {
                return true;
            };
            let before = out.len();
            let mut cur = node.walk();
            for child in node.named_children(&mut cur) {
                match child.kind() {
                    "import_clause" => js_clause(child, node, src, &module, out),
                    "import_require_clause" => {
                        let alias = child.named_child(0).map(|n| compact(n, src));
                        push(out, node, module.clone(), None, alias, "require");
                    }
                    _ => {}
                }
            }
            if out.len() == before {
                push(out, node, module, None, None, "import");
            }
            true
        }
        "export_statement" => {
            let Some(module) = node
                .child_by_field_name("source")
                .and_then(|s| literal(s, src))
            else {
                return false;
            };
            let before = out.len();
            let mut cur = node.walk();
            for child in node.children(&mut cur) {
                match child.kind() {
                    "export_clause" => js_specifiers(child, node, src, &module, "export", out),
                    "namespace_export" => {
                        let alias = child.named_child(0).map(|n| compact(n, src));
                        push(out, node, module.clone(), Some("*".into()), alias, "export");
                    }
                    _ => {}
                }
            }
            if out.len() == before {
                push(out, node, module, Some("*".into()), None, "export");
            }
            true
        }
        "call_expression" => {
            let Some(f) = node.child_by_field_name("function") else {
                return false;
            };
            let kind = match (f.kind(), text(f, src)) {
                ("import", _) => "dynamic",
                ("identifier", "require") => "require",
                _ => return false,
            };
            let Some(args) = node.child_by_field_name("arguments") else {
                return false;
            };
            if args.named_child_count() != 1 {
                return false;
            }
            match args
                .named_child(0)
                .filter(|a| matches!(a.kind(), "string" | "template_string"))
                .and_then(|a| literal(a, src))
            {
                Some(module) => {
                    push(out, node, module, None, None, kind);
                    true
                }
                None => false,
            }
        }
        _ => false,
    }
}

fn js_clause(clause: Node<'_>, stmt: Node<'_>, src: &str, module: &str, out: &mut Vec<Import>) {
    let mut cur = clause.walk();
    for c in clause.named_children(&mut cur) {
        match c.kind() {
            "identifier" => push(
                out,
                stmt,
                module.to_string(),
                Some("default".into()),
                Some(compact(c, src)),
                "import",
            ),
            "namespace_import" => {
                let alias = c.named_child(0).map(|n| compact(n, src));
                push(
                    out,
                    stmt,
                    module.to_string(),
                    Some("*".into()),
                    alias,
                    "import",
                );
            }
            "named_imports" => js_specifiers(c, stmt, src, module, "import", out),
            _ => {}
        }
    }
}

/// `{a, b as c}` of an import or an export … from.
fn js_specifiers(
    list: Node<'_>,
    stmt: Node<'_>,
    src: &str,
    module: &str,
    kind: &'static str,
    out: &mut Vec<Import>,
) {
    let mut cur = list.walk();
    for spec in list.named_children(&mut cur) {
        if !matches!(spec.kind(), "import_specifier" | "export_specifier") {
            continue;
        }
        let name = spec.child_by_field_name("name").map(|n| literal_or(n, src));
        let alias = spec
            .child_by_field_name("alias")
            .map(|n| literal_or(n, src));
        push(out, stmt, module.to_string(), name, alias, kind);
    }
}

/// A name, or a string used as one (`import {"a-b" as c}`).
fn literal_or(n: Node<'_>, src: &str) -> String {
    if n.kind() == "string" {
        literal(n, src).unwrap_or_default()
    } else {
        compact(n, src)
    }
}

fn rust(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    match node.kind() {
        "mod_item" => {
            if node.child_by_field_name("body").is_some() {
                return false;
            }
            if let Some(n) = node.child_by_field_name("name") {
                push(out, node, compact(n, src), None, None, "mod");
            }
            true
        }
        "use_declaration" => {
            if let Some(arg) = node.child_by_field_name("argument") {
                let before = out.len();
                rust_use(arg, node, src, &[], out);
                let depth = inline_mods(node);
                if depth > 0 {
                    for i in &mut out[before..] {
                        i.module = out_of_inline(&i.module, depth);
                    }
                }
            }
            true
        }
        _ => false,
    }
}

/// How many inline `mod x { … }` blocks enclose `node`.
fn inline_mods(node: Node<'_>) -> usize {
    let mut n = 0;
    let mut cur = node.parent();
    while let Some(p) = cur {
        if p.kind() == "mod_item" {
            n += 1;
        }
        cur = p.parent();
    }
    n
}

/// A `use` path written inside `depth` inline modules, as seen from the
/// file's own module: each leading `super` that only climbs out of an
/// inline block is dropped, and a path that stays inside the file (`use
/// super::*` in `mod tests`) starts with `self`.
fn out_of_inline(module: &str, depth: usize) -> String {
    let segs: Vec<&str> = module.split("::").collect();
    let supers = segs.iter().take_while(|s| **s == "super").count();
    if supers == 0 {
        return module.to_string();
    }
    if supers <= depth {
        let mut v = vec!["self"];
        v.extend(&segs[supers..]);
        return v.join("::");
    }
    segs[depth..].join("::")
}

/// Expands a use tree (`a::{b, c::{d as e}, f::*}`) into one import per leaf.
fn rust_use(n: Node<'_>, stmt: Node<'_>, src: &str, prefix: &[String], out: &mut Vec<Import>) {
    let with = |path: Option<Node<'_>>| -> Vec<String> {
        let mut segs = prefix.to_vec();
        if let Some(p) = path {
            segs.extend(
                compact(p, src)
                    .split("::")
                    .filter(|s| !s.is_empty())
                    .map(str::to_string),
            );
        }
        segs
    };
    match n.kind() {
        "use_as_clause" => {
            let segs = with(n.child_by_field_name("path"));
            let alias = n.child_by_field_name("alias").map(|a| compact(a, src));
            rust_emit(segs, alias, stmt, out);
        }
        "scoped_use_list" => {
            let segs = with(n.child_by_field_name("path"));
            if let Some(list) = n.child_by_field_name("list") {
                rust_use(list, stmt, src, &segs, out);
            }
        }
        "use_list" => {
            let mut cur = n.walk();
            for c in n.named_children(&mut cur) {
                rust_use(c, stmt, src, prefix, out);
            }
        }
        "use_wildcard" => {
            let segs = with(n.named_child(0));
            if !segs.is_empty() {
                push(out, stmt, segs.join("::"), Some("*".into()), None, "use");
            }
        }
        "identifier" | "scoped_identifier" | "crate" | "self" | "super" | "metavariable" => {
            rust_emit(with(Some(n)), None, stmt, out);
        }
        _ => {}
    }
}

/// `a::b::c` → module `a::b`, name `c`; a trailing `self` names its module.
fn rust_emit(mut segs: Vec<String>, alias: Option<String>, stmt: Node<'_>, out: &mut Vec<Import>) {
    if segs.len() > 1 && segs.last().is_some_and(|s| s == "self") {
        segs.pop();
    }
    let Some(last) = segs.pop() else { return };
    if segs.is_empty() {
        push(out, stmt, last, None, alias, "use");
    } else {
        push(out, stmt, segs.join("::"), Some(last), alias, "use");
    }
}

fn go(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    match node.kind() {
        "import_declaration" => {
            let mut cur = node.walk();
            for c in node.named_children(&mut cur) {
                match c.kind() {
                    "import_spec" => go_spec(c, src, out),
                    "import_spec_list" => {
                        let mut cur2 = c.walk();
                        for s in c.named_children(&mut cur2) {
                            if s.kind() == "import_spec" {
                                go_spec(s, src, out);
                            }
                        }
                    }
                    _ => {}
                }
            }
            true
        }
        _ => false,
    }
}

fn go_spec(spec: Node<'_>, src: &str, out: &mut Vec<Import>) {
    let Some(module) = spec
        .child_by_field_name("path")
        .and_then(|p| literal(p, src))
    else {
        return;
    };
    let alias = spec.child_by_field_name("name").map(|n| compact(n, src));
    push(out, spec, module, None, alias, "import");
}

/// A Java or Kotlin file's `package a.b`: its name (the first child of
/// one of `kinds`) as a row of kind `package`.
fn package(node: Node<'_>, src: &str, kinds: &[&str], out: &mut Vec<Import>) {
    let mut cur = node.walk();
    if let Some(name) = node
        .named_children(&mut cur)
        .find(|c| kinds.contains(&c.kind()))
    {
        push(out, node, compact(name, src), None, None, "package");
    }
}

fn java(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    if node.kind() == "package_declaration" {
        package(node, src, &["identifier", "scoped_identifier"], out);
        return true;
    }
    if node.kind() != "import_declaration" {
        return false;
    }
    let mut is_static = false;
    let mut path = String::new();
    let mut cur = node.walk();
    for c in node.children(&mut cur) {
        match c.kind() {
            "static" => is_static = true,
            "identifier" | "scoped_identifier" => path = compact(c, src),
            "asterisk" => path.push_str(".*"),
            _ => {}
        }
    }
    if path.is_empty() {
        return true;
    }
    let kind = if is_static { "static" } else { "import" };
    match path.rsplit_once('.') {
        Some((module, name)) if is_static || name == "*" => push(
            out,
            node,
            module.to_string(),
            Some(name.to_string()),
            None,
            kind,
        ),
        _ => push(out, node, path, None, None, kind),
    }
    true
}

/// `import a.b.C`, `import a.b.*`, `import a.b.C as D`: as Java's.
fn kotlin(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    if node.kind() == "package_header" {
        package(node, src, &["qualified_identifier", "identifier"], out);
        return true;
    }
    if node.kind() != "import" {
        return false;
    }
    let (mut path, mut alias, mut wildcard) = (String::new(), None, false);
    let mut cur = node.walk();
    for c in node.children(&mut cur) {
        match c.kind() {
            "qualified_identifier" => path = compact(c, src),
            "identifier" if path.is_empty() => path = compact(c, src),
            "identifier" => alias = Some(compact(c, src)),
            "*" => wildcard = true,
            _ => {}
        }
    }
    if !path.is_empty() {
        let name = wildcard.then(|| "*".to_string());
        push(out, node, path, name, alias, "import");
    }
    true
}

/// `require 'a/b'`, `require_relative '../x'`, `load 'x.rb'` and
/// `autoload :Name, 'a/b'` without a receiver and with a plain string:
/// the path as written (`autoload`'s constant as the name). Any other call
/// is not an import, and is descended into.
fn ruby(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    if node.child_by_field_name("receiver").is_some() {
        return false;
    }
    let kind = match node.child_by_field_name("method").map(|m| text(m, src)) {
        Some("require") => "require",
        Some("require_relative") => "require_relative",
        Some("load") => "load",
        Some("autoload") => "autoload",
        _ => return false,
    };
    let Some(args) = node.child_by_field_name("arguments") else {
        return false;
    };
    let mut cur = args.walk();
    let named: Vec<Node<'_>> = args.named_children(&mut cur).collect();
    let (name, path) = match (kind, named.as_slice()) {
        ("autoload", [constant, path, ..]) => (
            Some(text(*constant, src).trim_start_matches(':').to_string()),
            *path,
        ),
        ("autoload", _) => return true,
        (_, [path, ..]) => (None, *path),
        _ => return true,
    };
    if let Some(module) = plain_string(path, src) {
        push(out, node, module, name, None, kind);
    }
    true
}

/// The content of a Ruby or PHP string literal without interpolation
/// (`'a/b'`, `"a/b"`; not `"x/#{name}"` or `"$dir/x.php"`).
fn plain_string(node: Node<'_>, src: &str) -> Option<String> {
    let mut parts = node.walk();
    let plain = node.kind() == "string"
        && node
            .named_children(&mut parts)
            .all(|c| c.kind() == "string_content");
    plain.then(|| literal(node, src)).flatten()
}

/// `use A\B\C;`, `use A\B\C as D;`, `use A\{B, C\D};` (each class as
/// `A\B\C`), and `require_once 'x.php'` / `__DIR__ . '/x.php'` (`./x.php`,
/// relative to the file).
fn php(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    if node.kind() == "namespace_use_declaration" {
        // `use function` / `use const`: not a class's file.
        let not_class = |n: Node<'_>| {
            let mut c = n.walk();
            n.child_by_field_name("type").is_some()
                || n.children(&mut c)
                    .any(|x| matches!(x.kind(), "function" | "const"))
        };
        if not_class(node) {
            return true;
        }
        let mut cur = node.walk();
        let prefix = node
            .children(&mut cur)
            .find(|c| c.kind() == "namespace_name")
            .map(|n| compact(n, src));
        let group = node.child_by_field_name("body").unwrap_or(node);
        let mut cur = group.walk();
        for clause in group
            .named_children(&mut cur)
            .filter(|c| c.kind() == "namespace_use_clause" && !not_class(*c))
        {
            let mut inner = clause.walk();
            let Some(name) = clause
                .named_children(&mut inner)
                .find(|c| matches!(c.kind(), "qualified_name" | "name"))
                .map(|n| compact(n, src))
            else {
                continue;
            };
            let name = name.trim_start_matches('\\');
            let module = match &prefix {
                Some(p) => format!("{}\\{name}", p.trim_start_matches('\\')),
                None => name.to_string(),
            };
            let alias = clause.child_by_field_name("alias").map(|a| compact(a, src));
            push(out, node, module, None, alias, "use");
        }
        return true;
    }
    let mut cur = node.walk();
    let Some(arg) = node.named_children(&mut cur).next() else {
        return true;
    };
    let module = match arg.kind() {
        "binary_expression" => {
            let left = arg.child_by_field_name("left").map(|l| compact(l, src));
            let right = arg
                .child_by_field_name("right")
                .and_then(|r| plain_string(r, src));
            match (left.as_deref(), right) {
                (Some("__DIR__" | "dirname(__FILE__)"), Some(r)) if r.starts_with('/') => {
                    Some(format!(".{r}"))
                }
                _ => None,
            }
        }
        "parenthesized_expression" => None,
        _ => plain_string(arg, src),
    };
    if let Some(module) = module {
        push(out, node, module, None, None, "require");
    }
    true
}

fn c(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    if node.kind() != "preproc_include" {
        return false;
    }
    if let Some(module) = node
        .child_by_field_name("path")
        .filter(|p| matches!(p.kind(), "string_literal" | "system_lib_string"))
        .and_then(|p| literal(p, src))
    {
        push(out, node, module, None, None, "include");
    }
    true
}

/// `import a.b.C`, `import a.b.{C, D => E}` (each class as `a.b.C`),
/// `import a.b._` and Scala 3's `import a.b.*` (the package, name `*`);
/// the file's `package a.b` (chained clauses joined) as kind `package`.
fn scala(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    if node.kind() == "package_clause" {
        // `package a.b` then `package c` on the next line: package `a.b.c`;
        // a clause with a body is descended into for its imports.
        if let Some(name) = node.child_by_field_name("name").map(|n| compact(n, src)) {
            let chained = node.prev_named_sibling().is_some_and(|p| {
                p.kind() == "package_clause" && p.child_by_field_name("body").is_none()
            });
            match out.iter_mut().rev().find(|i| i.kind == "package") {
                Some(last) if chained => last.module = format!("{}.{name}", last.module),
                _ => push(out, node, name, None, None, "package"),
            }
        }
        return node.child_by_field_name("body").is_none();
    }
    let mut cur = node.walk();
    let mut path: Vec<String> = Vec::new();
    let mut selectors = None;
    let mut wildcard = false;
    for c in node.children(&mut cur) {
        match c.kind() {
            "identifier" | "stable_identifier" if selectors.is_none() && !wildcard => {
                path.push(compact(c, src));
            }
            "namespace_selectors" => selectors = Some(c),
            "namespace_wildcard" | "wildcard" => wildcard = true,
            _ => {}
        }
    }
    if path.is_empty() {
        return true;
    }
    let prefix = path.join(".");
    if wildcard {
        push(out, node, prefix, Some("*".into()), None, "import");
    } else if let Some(sel) = selectors {
        let mut cur = sel.walk();
        for c in sel.named_children(&mut cur) {
            let (name, alias) = match c.kind() {
                "identifier" => (compact(c, src), None),
                "arrow_renamed_identifier" | "as_renamed_identifier" => {
                    let Some(name) = c.child_by_field_name("name") else {
                        continue;
                    };
                    let alias = c
                        .child_by_field_name("alias")
                        .map(|a| compact(a, src))
                        .filter(|a| a != "_");
                    (compact(name, src), alias)
                }
                "namespace_wildcard" | "wildcard" => {
                    push(out, node, prefix.clone(), Some("*".into()), None, "import");
                    continue;
                }
                _ => continue,
            };
            push(out, node, format!("{prefix}.{name}"), None, alias, "import");
        }
    } else {
        push(out, node, prefix, None, None, "import");
    }
    true
}

/// `require "a.b"`, `require("a.b")`, `local x = require "a.b"` (the local
/// as the alias): the module as written.
fn lua(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    if node.kind() != "function_call"
        || node.child_by_field_name("name").map(|n| text(n, src)) != Some("require")
    {
        return false;
    }
    let Some(args) = node.child_by_field_name("arguments") else {
        return true;
    };
    let arg = if args.kind() == "string" {
        Some(args)
    } else {
        args.named_child(0)
    };
    let Some(module) = arg
        .filter(|a| a.kind() == "string")
        .and_then(|a| a.child_by_field_name("content"))
        .map(|c| text(c, src).trim().to_string())
        .filter(|m| !m.is_empty())
    else {
        return true;
    };
    // `local x = require "a.b"`: the call is the declaration's only value.
    let alias = node
        .parent()
        .filter(|p| p.kind() == "expression_list" && p.named_child_count() == 1)
        .and_then(|p| p.parent())
        .filter(|a| a.kind() == "assignment_statement")
        .and_then(|a| {
            let mut cur = a.walk();
            let vars = a
                .named_children(&mut cur)
                .find(|c| c.kind() == "variable_list")?;
            (vars.named_child_count() == 1)
                .then(|| vars.named_child(0))
                .flatten()
                .filter(|v| v.kind() == "identifier")
                .map(|v| text(v, src).to_string())
        });
    push(out, node, module, None, alias, "require");
    true
}

/// `import qualified Data.Map as M`, `import Foo.Bar (x, y)`: the module,
/// with its alias.
fn haskell(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    let Some(module) = node.child_by_field_name("module").map(|m| compact(m, src)) else {
        return true;
    };
    let alias = node.child_by_field_name("alias").map(|a| compact(a, src));
    push(out, node, module, None, alias, "import");
    true
}

/// `alias A.B`, `alias A.{B, C}` (each as `A.B`), `import A.B`, `use A.B`
/// and `require A.B`, with `as:` as the alias: the module as written.
fn elixir(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    let kind = match node.child_by_field_name("target").map(|t| text(t, src)) {
        Some("alias") => "alias",
        Some("import") => "import",
        Some("use") => "use",
        Some("require") => "require",
        _ => return false,
    };
    let Some(args) = node
        .named_children(&mut node.walk())
        .find(|c| c.kind() == "arguments")
    else {
        return true;
    };
    let mut cur = args.walk();
    let named: Vec<Node<'_>> = args.named_children(&mut cur).collect();
    let Some(first) = named.first() else {
        return true;
    };
    match first.kind() {
        "alias" => {
            // `as: Name` in the keyword list after it.
            let alias = named.get(1).and_then(|kw| {
                let t = text(*kw, src);
                let rest = t.split("as:").nth(1)?;
                let a = rest.trim().split([',', ' ', ']']).next()?;
                (!a.is_empty()).then(|| a.to_string())
            });
            push(out, node, compact(*first, src), None, alias, kind);
        }
        "dot" => {
            let (Some(left), Some(right)) = (
                first.child_by_field_name("left"),
                first.child_by_field_name("right"),
            ) else {
                return true;
            };
            if right.kind() != "tuple" || left.kind() != "alias" {
                return true;
            }
            let prefix = compact(left, src);
            let mut cur = right.walk();
            for a in right
                .named_children(&mut cur)
                .filter(|a| a.kind() == "alias")
            {
                push(
                    out,
                    node,
                    format!("{prefix}.{}", compact(a, src)),
                    None,
                    None,
                    kind,
                );
            }
        }
        _ => {}
    }
    true
}

/// `@import("x.zig")` and `@import("std")`: the path or package as written.
fn zig(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    let mut cur = node.walk();
    let mut children = node.named_children(&mut cur);
    if children.next().map(|b| text(b, src)) != Some("@import") {
        return false;
    }
    let module = children
        .next()
        .filter(|a| a.kind() == "arguments")
        .and_then(|a| a.named_child(0))
        .filter(|s| s.kind() == "string")
        .and_then(|s| literal(s, src));
    if let Some(module) = module {
        push(out, node, module, None, None, "import");
    }
    true
}

/// `-include("x.hrl").` and `-include_lib("app/include/x.hrl").`
fn erlang(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    let kind = if node.kind() == "pp_include_lib" {
        "include_lib"
    } else {
        "include"
    };
    if let Some(module) = node
        .child_by_field_name("file")
        .and_then(|f| literal(f, src))
    {
        push(out, node, module, None, None, kind);
    }
    true
}

/// `include("x.jl")` with a plain string: the path as written.
fn julia(node: Node<'_>, src: &str, out: &mut Vec<Import>) -> bool {
    if node.kind() != "call_expression" {
        return false;
    }
    let mut cur = node.walk();
    let mut children = node.named_children(&mut cur);
    if children.next().map(|f| text(f, src)) != Some("include") {
        return false;
    }
    let module = children
        .next()
        .filter(|a| a.kind() == "argument_list" && a.named_child_count() == 1)
        .and_then(|a| a.named_child(0))
        .filter(|s| {
            s.kind() == "string_literal"
                && s.named_children(&mut s.walk())
                    .all(|c| c.kind() == "content")
        })
        .and_then(|s| literal(s, src));
    if let Some(module) = module {
        push(out, node, module, None, None, "include");
    }
    true
}
