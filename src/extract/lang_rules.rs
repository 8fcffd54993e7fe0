//! Owns the per-language rules of the grammars added after the first ten
//! (C#, Kotlin, PHP, Swift, Scala, Lua, Bash, Elixir, Haskell, Zig): which
//! node a definition really is, its normalised kind, whether it has a body,
//! its Lua table, Haskell's type signature and the comment prefixes above
//! a definition. `tags` asks these first and falls back to its own table.
//! Does not run queries (that is `tags`'s job).

use tree_sitter::Node;

use super::tags::Callable;
use crate::model::Lang;

/// Whether `lang` is one of the languages these rules cover.
pub(crate) fn is_covered(lang: Lang) -> bool {
    matches!(
        lang,
        Lang::CSharp
            | Lang::Kotlin
            | Lang::Php
            | Lang::Swift
            | Lang::Scala
            | Lang::Lua
            | Lang::Bash
            | Lang::Elixir
            | Lang::Haskell
            | Lang::Zig
    )
}

fn text<'s>(src: &'s str, node: Node<'_>) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Whether a direct child of `node` (named or not) has kind `kind`.
fn has_child_kind(node: Node<'_>, kind: &str) -> bool {
    let mut walk = node.walk();
    node.children(&mut walk).any(|c| c.kind() == kind)
}

/// The words of `node`'s direct children of kind `kind` (modifier lists).
fn has_modifier(node: Node<'_>, src: &str, kind: &str, word: &str) -> bool {
    let mut walk = node.walk();
    node.children(&mut walk)
        .filter(|c| c.kind() == kind)
        .any(|c| text(src, c).split_whitespace().any(|w| w == word))
}

/// The node a captured definition stands for. Swift's stock query captures
/// a whole class as `@definition.method` of one of its members; this finds
/// the member. `None` drops the capture (a member we cannot place).
pub(crate) fn anchor<'t>(lang: Lang, node: Node<'t>, name: Node<'t>) -> Option<Node<'t>> {
    let names_node = node
        .child_by_field_name("name")
        .is_some_and(|n| n.start_byte() <= name.start_byte() && name.end_byte() <= n.end_byte());
    if lang != Lang::Swift
        || !matches!(node.kind(), "class_declaration" | "protocol_declaration")
        || names_node
    {
        return Some(node);
    }
    let mut up = name.parent();
    for _ in 0..16 {
        let p = up?;
        if matches!(
            p.kind(),
            "function_declaration"
                | "protocol_function_declaration"
                | "subscript_declaration"
                | "init_declaration"
                | "deinit_declaration"
                | "property_declaration"
        ) {
            return Some(p);
        }
        if p == node {
            return None;
        }
        up = p.parent();
    }
    None
}

/// Normalised kind of a definition node of a covered language; `None`
/// leaves it to the common table in `tags::classify`.
pub(crate) fn classify(
    lang: Lang,
    node: Node<'_>,
    suffix: &str,
    src: &str,
) -> Option<(&'static str, Callable)> {
    use Callable::{Function, Method, No};
    let kind = node.kind();
    let in_body = |bodies: &[&str]| node.parent().is_some_and(|p| bodies.contains(&p.kind()));
    let k = match (lang, kind) {
        (Lang::CSharp, "field_declaration") => {
            let m = |w| has_modifier(node, src, "modifier", w);
            if m("const") || (m("static") && m("readonly")) {
                "constant"
            } else {
                "field"
            }
        }
        (Lang::CSharp, "namespace_declaration" | "file_scoped_namespace_declaration") => {
            "namespace"
        }
        (Lang::CSharp, "property_declaration") => "field",
        (Lang::CSharp, "delegate_declaration") => "type",
        (Lang::CSharp, "destructor_declaration") => return Some(("method", Method)),
        (Lang::Kotlin, "class_declaration") => {
            if has_child_kind(node, "interface") {
                "interface"
            } else if has_modifier(node, src, "modifiers", "enum") {
                "enum"
            } else {
                "class"
            }
        }
        (Lang::Kotlin, "object_declaration") => "class",
        (Lang::Kotlin, "property_declaration") => {
            if has_modifier(node, src, "modifiers", "const") {
                "constant"
            } else if suffix == "field" {
                "field"
            } else {
                "variable"
            }
        }
        (Lang::Php, "trait_declaration") => "trait",
        (Lang::Php, "property_declaration") => "field",
        (Lang::Php, "const_declaration" | "enum_case") => "constant",
        (Lang::Swift, "class_declaration") => {
            match node
                .child_by_field_name("declaration_kind")
                .map(|k| k.kind())
            {
                Some("struct") => "struct",
                Some("enum") => "enum",
                Some("extension") => "impl",
                _ => "class",
            }
        }
        (Lang::Swift, "property_declaration") => {
            if in_body(&["class_body", "enum_class_body"]) {
                "field"
            } else {
                "variable"
            }
        }
        (Lang::Swift, "protocol_property_declaration") => "field",
        (
            Lang::Swift,
            "init_declaration"
            | "deinit_declaration"
            | "subscript_declaration"
            | "protocol_function_declaration",
        ) => return Some(("method", Method)),
        (Lang::Swift, "enum_entry") => "constant",
        (Lang::Scala, "object_definition") => "class",
        (Lang::Scala, "trait_definition") => "trait",
        (Lang::Scala, "simple_enum_case") => "constant",
        (Lang::Scala, "class_parameter") => "field",
        (
            Lang::Scala,
            "val_definition" | "var_definition" | "val_declaration" | "var_declaration"
            | "given_definition",
        ) => {
            if in_body(&["template_body"]) {
                "field"
            } else {
                "variable"
            }
        }
        (Lang::Lua, "function_declaration") => {
            let is_method = node
                .child_by_field_name("name")
                .is_some_and(|n| n.kind() == "method_index_expression");
            return Some(if is_method {
                ("method", Method)
            } else {
                ("function", Function)
            });
        }
        (Lang::Lua, "assignment_statement" | "field") => return Some(("function", Function)),
        (Lang::Elixir, "call") => match suffix {
            "module" => "module",
            "impl" => "impl",
            _ => return Some(("function", Function)),
        },
        (Lang::Haskell, "function" | "bind") => return Some(("function", Function)),
        (Lang::Haskell, "signature") => return Some(("method", Method)),
        (Lang::Haskell, "class") => "trait",
        (Lang::Haskell, "instance") => "impl",
        (Lang::Haskell, "data_type" | "newtype" | "type_synonym" | "type_family") => "type",
        (Lang::Haskell, "header") => "module",
        (Lang::Haskell, "field") => "field",
        (Lang::Zig, "variable_declaration") => match suffix {
            "struct" => "struct",
            "enum" => "enum",
            "type" => "type",
            _ if has_child_kind(node, "var") => "variable",
            _ => "constant",
        },
        (Lang::Zig, "test_declaration") => return Some(("function", Function)),
        (Lang::Zig, "container_field") => "field",
        _ => return None,
    };
    Some((k, No))
}

/// Whether a function-like node of a covered language has a body, for
/// grammars that do not name it `body`.
pub(crate) fn has_body(lang: Lang, node: Node<'_>) -> bool {
    match lang {
        Lang::Kotlin => has_child_kind(node, "function_body"),
        Lang::Elixir => has_child_kind(node, "do_block"),
        Lang::Haskell => node.child_by_field_name("match").is_some(),
        Lang::Zig => has_child_kind(node, "block"),
        Lang::Lua => {
            // `M.f = function() … end`: the value of the assignment.
            let mut walk = node.walk();
            node.children(&mut walk)
                .filter(|c| c.kind() == "expression_list")
                .filter_map(|list| list.named_child(0))
                .any(|v| v.kind() == "function_definition")
        }
        _ => false,
    }
}

/// The table a Lua function is stored in (`M` for `function M.f()` and
/// `function M:f()`, `pl.utils` for `function pl.utils.f()`), which is its
/// container.
pub(crate) fn lua_table(src: &str, name: Node<'_>) -> Option<String> {
    let parent = name.parent()?;
    if !matches!(
        parent.kind(),
        "dot_index_expression" | "method_index_expression"
    ) {
        return None;
    }
    let table = parent.child_by_field_name("table")?;
    let t = text(src, table).trim();
    (!t.is_empty() && t.len() <= 200 && !t.contains('\n')).then(|| t.to_string())
}

/// Where a Haskell function really starts: at its type signature when one
/// of the same name sits just before it.
pub(crate) fn haskell_signature_start<'t>(
    node: Node<'t>,
    name: &str,
    src: &str,
) -> Option<Node<'t>> {
    if !matches!(node.kind(), "function" | "bind") {
        return None;
    }
    let prev = node.prev_named_sibling()?;
    let sig_name = prev.child_by_field_name("name")?;
    (prev.kind() == "signature" && text(src, sig_name) == name).then_some(prev)
}

/// Line prefixes of the comments (and, for Elixir, attributes such as
/// `@doc`, `@spec`) that belong to the definition below them.
pub(crate) fn doc_prefixes(lang: Lang) -> Option<&'static [&'static str]> {
    Some(match lang {
        Lang::Lua => &["--"],
        Lang::Haskell => &["--", "{-"],
        Lang::Bash => &["#"],
        Lang::Elixir => &["#", "@"],
        Lang::Php => &["//", "/*", "*", "#"],
        // Annotations and attributes stay with what they annotate.
        Lang::Swift | Lang::Kotlin | Lang::Scala => &["//", "/*", "*", "@"],
        Lang::CSharp => &["//", "/*", "*", "["],
        Lang::Zig => &["//"],
        _ => return None,
    })
}
