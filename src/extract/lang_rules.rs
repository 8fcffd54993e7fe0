//! Owns the per-language rules of the grammars added after the first ten
//! (C#, Kotlin, PHP, Swift, Scala, Lua, Bash, Elixir, Haskell, Zig, Erlang,
//! OCaml, Julia, R): which
//! node a definition really is, its normalised kind, whether it has a body,
//! its Lua table, Haskell's type signature and the comment prefixes above
//! a definition, and the text Objective-C files and Vue / Svelte components
//! are parsed as. `tags` asks these first and falls back to its own table.
//! Does not run queries (that is `tags`'s job).

use std::borrow::Cow;

use tree_sitter::Node;

use super::lines::Lines;
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
            | Lang::Erlang
            | Lang::OCaml
            | Lang::Julia
            | Lang::R
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
        (Lang::Kotlin, "secondary_constructor") => return Some(("method", Method)),
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
        (Lang::Lua, "assignment_statement" | "field") if suffix != "class" => {
            return Some(("function", Function));
        }
        (Lang::Elixir, "call") => match suffix {
            "module" => "module",
            "impl" => "impl",
            // A function-like macro: it gets a chunk of its own like a
            // function, and keeps its kind (see `tags::assign_containers`).
            _ if node
                .child_by_field_name("target")
                .is_some_and(|t| matches!(text(src, t), "defmacro" | "defmacrop")) =>
            {
                return Some(("macro", Function));
            }
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
        (Lang::Erlang, "module_attribute") => "module",
        (Lang::Erlang, "fun_decl") => return Some(("function", Function)),
        (Lang::Erlang, "callback") => return Some(("method", Method)),
        (Lang::Erlang, "record_decl") => "struct",
        (Lang::Erlang, "record_field") => "field",
        (Lang::Erlang, "type_alias" | "opaque") => "type",
        (Lang::Erlang, "pp_define") => "macro",
        (Lang::OCaml, "module_binding") => "module",
        (Lang::OCaml, "module_type_definition") => "interface",
        (Lang::OCaml, "class_binding" | "class_type_binding") => "class",
        (Lang::OCaml, "method_definition") => return Some(("method", Method)),
        // A binding without parameters or a `fun` body is a value (only
        // `ocaml.scm`'s pattern captures those); an interface's `val` is a
        // function's declaration.
        (Lang::OCaml, "let_binding") if suffix == "constant" => "constant",
        (Lang::OCaml, "let_binding" | "external" | "value_specification") => {
            return Some(("function", Function));
        }
        (Lang::OCaml, "type_binding") => "type",
        (Lang::OCaml, "constructor_declaration" | "tag_specification") => "constant",
        (Lang::OCaml, "field_declaration") => "field",
        (Lang::Julia, "function_definition" | "assignment") => return Some(("function", Function)),
        (Lang::Julia, "macro_definition") => return Some(("macro", Function)),
        (Lang::Julia, "module_definition") => "module",
        (Lang::Julia, "struct_definition") => "struct",
        (Lang::Julia, "abstract_definition" | "primitive_definition") => "type",
        (Lang::Julia, "const_statement") => "constant",
        (Lang::Julia, "typed_expression") => "field",
        (Lang::R, "binary_operator" | "call") => match suffix {
            "class" => "class",
            "constant" => "constant",
            "method" => return Some(("method", Method)),
            _ => return Some(("function", Function)),
        },
        (Lang::R, "argument") => return Some(("method", Method)),
        _ => return None,
    };
    Some((k, No))
}

/// Whether a function-like node of a covered language has a body, for
/// grammars that do not name it `body`.
pub(crate) fn has_body(lang: Lang, node: Node<'_>) -> bool {
    match lang {
        // A secondary constructor's body is a `block`.
        Lang::Kotlin => has_child_kind(node, "function_body") || has_child_kind(node, "block"),
        Lang::Elixir => has_child_kind(node, "do_block"),
        Lang::Haskell => node.child_by_field_name("match").is_some(),
        Lang::Zig => has_child_kind(node, "block"),
        // Each clause has a body; a definition is its clauses.
        Lang::Erlang => has_child_kind(node, "function_clause"),
        // `function f(x) … end` and a short form written over several lines.
        Lang::Julia => true,
        // `f <- function(x) { … }`, a method's `name = function(…) { … }`.
        Lang::R => true,
        Lang::ObjC => has_child_kind(node, "compound_statement"),
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

/// The function literal a JavaScript or TypeScript binding's value wraps
/// in calls: `const Box = forwardRef((props, ref) => {…})`, `memo(function
/// Row() {…})`, `React.memo(forwardRef(…))`, `debounce(() => {…}, 100)`. A
/// React component or a wrapped handler is a function written as a call
/// on a function literal; the stock query tags `const f = () => …` only,
/// so these were constants, left in line windows without their name.
/// The value may sit in parentheses or a type assertion; the first
/// function argument of the outermost call wins, else the first call
/// argument is looked into (at most three calls deep).
pub(crate) fn wrapped_function<'t>(node: Node<'t>, src: &str) -> Option<Node<'t>> {
    if node.kind() != "variable_declarator" {
        return None;
    }
    let mut value = node.child_by_field_name("value")?;
    for _ in 0..3 {
        while matches!(
            value.kind(),
            "parenthesized_expression"
                | "as_expression"
                | "satisfies_expression"
                | "non_null_expression"
        ) {
            value = value.named_child(0)?;
        }
        if value.kind() != "call_expression" {
            return None;
        }
        // A promise chain (`load().catch((e) => …)`) holds a value, not a
        // function.
        let chained = value
            .child_by_field_name("function")
            .filter(|f| f.kind() == "member_expression")
            .and_then(|f| f.child_by_field_name("property"))
            .is_some_and(|p| matches!(text(src, p), "then" | "catch" | "finally"));
        if chained {
            return None;
        }
        let args = value.child_by_field_name("arguments")?;
        let mut walk = args.walk();
        let mut inner = None;
        for a in args.named_children(&mut walk) {
            match a.kind() {
                "arrow_function" | "function_expression" | "function" => return Some(a),
                "call_expression" if inner.is_none() => inner = Some(a),
                _ => {}
            }
        }
        value = inner?;
    }
    None
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

/// The type a Kotlin extension function or property extends, which is its
/// container: `fun ListenableFuture<T>.await()` → `ListenableFuture`,
/// `val CameraInfo?.deviceType` → `CameraInfo`, and a companion's extension
/// `fun Promise.Companion.parallel()` → `Promise` (it is called as
/// `Promise.parallel`). `None` for other declarations and function-type
/// receivers.
pub(crate) fn kotlin_receiver(src: &str, node: Node<'_>) -> Option<String> {
    if !matches!(node.kind(), "function_declaration" | "property_declaration") {
        return None;
    }
    let name_start = node
        .child_by_field_name("name")
        .or_else(|| {
            let mut walk = node.walk();
            node.named_children(&mut walk).find(|c| {
                matches!(
                    c.kind(),
                    "variable_declaration" | "multi_variable_declaration"
                )
            })
        })?
        .start_byte();
    let mut walk = node.walk();
    let receiver = node
        .named_children(&mut walk)
        .take_while(|c| c.end_byte() <= name_start)
        .find(|c| matches!(c.kind(), "user_type" | "nullable_type"))?;
    // The segments of the type (`Map<K, V>.Entry`: `Map`, `Entry`; a
    // nullable type's inner one), the last that is not `Companion`.
    let user_type = if receiver.kind() == "nullable_type" {
        let mut walk = receiver.walk();
        receiver
            .named_children(&mut walk)
            .find(|c| c.kind() == "user_type")?
    } else {
        receiver
    };
    let mut walk = user_type.walk();
    user_type
        .named_children(&mut walk)
        .filter(|c| c.kind() == "identifier")
        .map(|c| text(src, c))
        .filter(|seg| *seg != "Companion")
        .last()
        .map(str::to_string)
}

/// The text a single-file component (`.vue`, `.svelte`) is parsed as:
/// the contents of its `<script …>` blocks in place, every other byte but
/// line breaks a space, so rows, columns and byte ranges are the source's
/// and the template and styles define nothing. Borrowed when there is no
/// script.
pub(crate) fn component_script_text(source: &str) -> Cow<'_, str> {
    let lower = source.to_ascii_lowercase();
    let mut keep: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while let Some(open) = lower[at..].find("<script").map(|i| at + i) {
        // `<script>` or `<script lang="ts" setup>`, not `<scripts>`.
        let after = lower.as_bytes().get(open + 7).copied();
        let Some(gt) = lower[open..].find('>').map(|i| open + i + 1) else {
            break;
        };
        if !matches!(after, Some(b'>' | b' ' | b'\t' | b'\n' | b'\r')) {
            at = gt;
            continue;
        }
        let close = lower[gt..]
            .find("</script")
            .map_or(source.len(), |i| gt + i);
        keep.push((gt, close));
        at = close;
    }
    if keep.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut out = String::with_capacity(source.len());
    let mut pos = 0;
    // Line breaks stay; every other character becomes as many spaces as
    // it has bytes.
    let blank = |out: &mut String, text: &str| {
        for c in text.chars() {
            if matches!(c, '\n' | '\r') {
                out.push(c);
            } else {
                out.extend(std::iter::repeat_n(' ', c.len_utf8()));
            }
        }
    };
    for (a, b) in keep {
        blank(&mut out, &source[pos..a]);
        out.push_str(&source[a..b]);
        pos = b;
    }
    blank(&mut out, &source[pos..]);
    Cow::Owned(out)
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
        Lang::Erlang => &["%"],
        Lang::OCaml => &["(*", "*"],
        Lang::Julia | Lang::R => &["#"],
        _ => return None,
    })
}

/// The node a Scala definition ends with: a body written as an indented
/// block without braces (`def f =` and the lines below it) holds the
/// comments and blank lines up to the next definition, which belong to
/// that one; such a block ends with its last statement instead.
pub(crate) fn scala_end(node: Node<'_>) -> Node<'_> {
    let mut end = node;
    // Bounded: nested bodies (`if` inside `def`) are a few levels deep.
    for _ in 0..8 {
        let mut walk = end.walk();
        let Some(block) = end
            .named_children(&mut walk)
            .last()
            .filter(|b| b.kind() == "indented_block")
        else {
            break;
        };
        let mut walk = block.walk();
        let Some(stmt) = block
            .named_children(&mut walk)
            .filter(|c| !c.kind().ends_with("comment"))
            .last()
        else {
            break;
        };
        end = stmt;
    }
    end
}

/// The row of the attribute (`@doc """`, `@moduledoc ~S'''`) that opens
/// the heredoc closed on `close` (a row holding only `"""` or `'''`),
/// looking no higher than `floor`.
pub(crate) fn elixir_heredoc_start(lines: &Lines<'_>, close: usize, floor: usize) -> Option<usize> {
    let quote = lines.line(close).trim();
    if quote != "\"\"\"" && quote != "'''" {
        return None;
    }
    (floor..close).rev().find(|&r| {
        let t = lines.line(r).trim();
        t.starts_with('@') && t.ends_with(quote)
    })
}

/// The text an Objective-C file is parsed as: `source` with each line that
/// holds nothing but a bare macro (`NS_ASSUME_NONNULL_BEGIN`,
/// `NS_SWIFT_NAME(Host)`, `API_AVAILABLE(ios(13.0))`) blanked with spaces,
/// so byte offsets and rows stay those of `source`. tree-sitter-objc knows
/// no macros: one such line before an `@interface` turns the whole
/// declaration into an error. A line continuing the one above (after `,`,
/// `(`, `=`, `|`, `\\`) is left alone: that is an enumerator or an argument.
pub(crate) fn objc_parse_text(source: &str) -> Cow<'_, str> {
    let mut out: Option<String> = None;
    let mut offset = 0;
    let mut continues = false;
    for line in source.split_inclusive('\n') {
        let t = line.trim();
        if !continues && is_bare_macro(t) {
            let s = out.get_or_insert_with(|| source.to_string());
            let end = offset + line.trim_end_matches(['\n', '\r']).len();
            // Both ends are line boundaries, so char boundaries.
            s.replace_range(offset..end, &" ".repeat(end - offset));
        } else if let Some(with) = enum_macro(line) {
            let s = out.get_or_insert_with(|| source.to_string());
            s.replace_range(
                offset + with.at..offset + with.at + with.text.len(),
                &with.text,
            );
        }
        if !t.is_empty() {
            continues = t.ends_with([',', '(', '=', '|', '\\']);
        }
        offset += line.len();
    }
    out.map_or(Cow::Borrowed(source), Cow::Owned)
}

/// Another text (same length, same offsets and lines) to parse a file of
/// `lang` from when its first parse `has_errors`, if the language has one:
/// C, C++, Objective-C and C# with every preprocessor condition true
/// ([`first_branches`]: it loses `#else` branches' own definitions, so the
/// caller keeps it only when it finds more; an Objective-C
/// `@implementation` whose branches balance, with every branch kept:
/// [`every_branch`]); Haskell with each tab a space
/// (tree-sitter-haskell's scanner counts a tab as one column in some
/// places and eight in others, so a file indented or aligned with tabs can
/// lose its layout and every definition after it); C, C++ and
/// Objective-C also with their export macros blanked ([`export_macros`],
/// also when the tree has no error);
/// Kotlin with the annotations of its top-level annotation and enum
/// classes blanked ([`annotated_soft_keyword_classes`]) and Rust with its
/// item-level macro calls read as their contents ([`rust_item_macros`]),
/// both even when the tree has no error; TypeScript with its
/// generic call signatures' line breaks made separators
/// ([`generic_call_signatures`]).
pub(crate) fn second_reading(lang: Lang, source: &str, tree: &tree_sitter::Tree) -> Option<String> {
    let has_errors = tree.root_node().has_error();
    match lang {
        // Its misreading leaves no error in the tree.
        Lang::Kotlin => {
            let classes = annotated_soft_keyword_classes(source);
            suspend_as_a_name(classes.as_deref().unwrap_or(source)).or(classes)
        }
        // Items inside a macro's braces parse as tokens, without error.
        Lang::Rust => rust_item_macros(source, tree),
        // `struct LEVELDB_EXPORT Options { Options(); bool x = false; … }`
        // reads without error as a function `Options` returning `struct
        // LEVELDB_EXPORT` whose body holds statements.
        Lang::C | Lang::Cpp | Lang::ObjC if !has_errors => export_macros(source),
        _ if !has_errors => None,
        Lang::CSharp => first_branches(source, true),
        Lang::C | Lang::Cpp | Lang::ObjC => {
            let branches = first_branches(source, false).or_else(|| {
                // Balanced branches the Objective-C grammar still misreads.
                (lang == Lang::ObjC && source.contains("@implementation"))
                    .then(|| every_branch(source))
                    .flatten()
            });
            let exported = export_macros(branches.as_deref().unwrap_or(source)).or(branches);
            attribute_macros(exported.as_deref().unwrap_or(source)).or(exported)
        }
        Lang::Haskell if source.contains('\t') => Some(source.replace('\t', " ")),
        Lang::TypeScript => generic_call_signatures(source),
        Lang::Bash => bash_patterns(source),
        _ => None,
    }
}

/// Bash with the patterns tree-sitter-bash misreads blanked to `x`s (same
/// length, offsets and lines): the regex right of `=~` up to the line's
/// last `]]` (`[[ $cur =~ ^(\$(\{[!#]?)?)([A-Za-z0-9_]*)$ ]]`), extglob
/// groups (`-!(-*)F)` in a `case` label), and the brackets of a parameter
/// expansion's pattern (`${option%%[<{().[]*}`). Each misread cost every
/// definition after it: bash-completion's main file showed 20 of its 78
/// functions, and `completions/modinfo` none. `None` when there is none.
fn bash_patterns(source: &str) -> Option<String> {
    let mut out = source.as_bytes().to_vec();
    let mut changed = false;
    let mut offset = 0;
    // The line before ended `=~ \`: the regex is on this one.
    let mut regex_next = false;
    for line in source.split_inclusive('\n') {
        let b = line.as_bytes();
        let regex_at = if std::mem::take(&mut regex_next) {
            Some(0)
        } else {
            line.find("=~").map(|at| at + 2)
        };
        if let Some(at) = regex_at
            && line.get(at..).is_some_and(|rest| !rest.contains("]]"))
            && line.trim_end().ends_with('\\')
        {
            regex_next = true;
        } else if let Some(at) = regex_at
            && let Some(end) = line.rfind("]]").filter(|&e| e > at)
        {
            let start = at
                + b[at..end]
                    .iter()
                    .take_while(|c| c.is_ascii_whitespace())
                    .count();
            let end = end - b[..end].iter().rev().take_while(|c| **c == b' ').count();
            if start < end {
                out[offset + start..offset + end].fill(b'x');
                changed = true;
            }
        }
        // `${v%%[<{().[]*}`: a pattern's brackets and parentheses.
        let mut from = 0;
        while let Some(at) = line[from..].find("${").map(|a| a + from) {
            let name_end = at
                + 2
                + b[at + 2..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphanumeric() || **c == b'_')
                    .count();
            from = name_end.max(at + 2);
            if !matches!(b.get(name_end), Some(b'%' | b'#' | b'/' | b'^' | b',')) {
                continue;
            }
            // To its closing brace, past nested `${…}` (left as they are).
            let (mut k, mut depth) = (name_end, 1usize);
            let mut marks = Vec::new();
            while k < b.len() {
                match b[k] {
                    b'$' if b.get(k + 1) == Some(&b'{') => {
                        depth += 1;
                        k += 1;
                    }
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    b'{' | b'(' | b')' | b'<' | b'>' | b';' | b'|' | b'&' if depth == 1 => {
                        marks.push(k);
                    }
                    _ => {}
                }
                k += 1;
            }
            if k >= b.len() {
                // Unclosed on this line: left as it is.
                break;
            }
            for m in marks {
                out[offset + m] = b'x';
                changed = true;
            }
            from = k + 1;
        }
        let mut i = 0;
        while i + 1 < b.len() {
            let opens = matches!(b[i], b'!' | b'@' | b'+' | b'?' | b'*')
                && b[i + 1] == b'('
                && (i == 0 || !matches!(b[i - 1], b'$' | b'\\'));
            if !opens {
                i += 1;
                continue;
            }
            let mut depth = 0usize;
            let mut close = None;
            for (j, &c) in b.iter().enumerate().skip(i + 1) {
                match c {
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            close = Some(j);
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let Some(close) = close else {
                break;
            };
            out[offset + i..=offset + close].fill(b'x');
            changed = true;
            i = close + 1;
        }
        offset += line.len();
    }
    if !changed {
        return None;
    }
    String::from_utf8(out).ok()
}

/// C and C++ whose declarations carry attribute macros on lines of their
/// own (lighttpd's `__attribute_cold__` then `__attribute_nonnull__()`
/// above `void buffer_free_ptr(buffer *b);`): the grammar reads the macro
/// call as an old-style function definition whose parameter declarations
/// run on to the next brace, and `buffer.h` had one "function"
/// `__attribute_nonnull__` over 118 lines. Each line holding only a name
/// spelled like a GCC attribute (`__attribute` first, `__` last, optional
/// arguments) is blanked (spaces: same length, offsets and lines) before
/// the first reading: such a line never defines anything, and the misread
/// can leave no error in the tree (a valid old-style definition). `None`
/// when there is none.
pub(crate) fn attribute_lines(source: &str) -> Option<String> {
    let is_attribute = |line: &str| {
        let t = line.trim();
        let name_end = t
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(t.len());
        let (name, rest) = t.split_at(name_end);
        let rest = rest.trim();
        name.starts_with("__attribute")
            && name.len() > "__attribute".len() + 2
            && name.ends_with("__")
            && (rest.is_empty() || (rest.starts_with('(') && rest.ends_with(')')))
    };
    let mut blanks = Vec::new();
    let mut offset = 0;
    for line in source.split_inclusive('\n') {
        if is_attribute(line) {
            blanks.push((offset, offset + line.trim_end_matches(['\n', '\r']).len()));
        }
        offset += line.len();
    }
    blanked(source, &blanks, &[])
}

/// Words and spaces of a C-family text, by byte.
struct ByteScan<'s>(&'s [u8]);

impl<'s> ByteScan<'s> {
    /// The identifier starting at `at` (empty when none does).
    fn word_at(&self, at: usize) -> &'s [u8] {
        let rest = &self.0[at.min(self.0.len())..];
        let len = rest.iter().take_while(|&&b| is_ident_byte(b)).count();
        &rest[..len]
    }

    /// The first position at or after `at` that is not white space.
    fn skip_space(&self, mut at: usize) -> usize {
        while at < self.0.len() && self.0[at].is_ascii_whitespace() {
            at += 1;
        }
        at
    }
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// C and C++ that declare a class between its keyword and its name with
/// an export macro (`class GTEST_API_ AssertionException : public …`,
/// `class Q_CORE_EXPORT QObject {`, `struct PROTOBUF_EXPORT Arena {`): the
/// grammar takes the macro for the name and the rest for a broken
/// function, and the class with its members was lost. Each such macro (an
/// upper-case identifier between `class`, `struct` or `union` and a name
/// followed by `{`, a base clause, `final` or template arguments) is
/// blanked (spaces: same length, offsets and lines). `None` when there is
/// none.
fn export_macros(source: &str) -> Option<String> {
    let bytes = source.as_bytes();
    let scan = ByteScan(bytes);
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if !is_ident_byte(bytes[at]) {
            at += 1;
            continue;
        }
        // (`at` is always a word's start: the scan steps over whole words.)
        let keyword = scan.word_at(at);
        let after_keyword = at + keyword.len();
        if !matches!(keyword, b"class" | b"struct" | b"union") {
            at = after_keyword;
            continue;
        }
        let macro_at = scan.skip_space(after_keyword);
        let mac = scan.word_at(macro_at);
        let is_macro = mac.len() >= 2
            && mac.first().is_some_and(u8::is_ascii_uppercase)
            && mac
                .iter()
                .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        let name_at = scan.skip_space(macro_at + mac.len());
        let name = if is_macro && name_at > macro_at + mac.len() {
            scan.word_at(name_at)
        } else {
            &[]
        };
        if name.is_empty() || name[0].is_ascii_digit() {
            at = after_keyword;
            continue;
        }
        let next = scan.skip_space(name_at + name.len());
        let rest = &bytes[next..];
        let opens = rest.starts_with(b"{")
            || rest.starts_with(b"<")
            || (rest.starts_with(b":") && !rest.starts_with(b"::"))
            || (rest.starts_with(b"final") && rest.get(5).is_none_or(|&b| !is_ident_byte(b)));
        if opens {
            blanks.push((macro_at, macro_at + mac.len()));
        }
        at = name_at;
    }
    blanked(source, &blanks, &[])
}

/// C and C++ whose members and variables carry a thread-safety
/// annotation after their name (`VersionSet* const versions_
/// GUARDED_BY(mutex_);` in LevelDB, `ABSL_GUARDED_BY`, `PT_GUARDED_BY`,
/// `ACQUIRED_AFTER`): the grammar reads the declaration as a function
/// named after the macro, and the field is lost with its type (without
/// an error in the tree, so before the first parse). Each such macro and
/// its arguments, after a name and before `;`, `=`, `,` or `{`, is blanked
/// (same length, offsets and lines). `None` when there is none.
pub(crate) fn thread_annotations(source: &str) -> Option<String> {
    let bytes = source.as_bytes();
    let scan = ByteScan(bytes);
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    for needle in ["GUARDED_BY(", "ACQUIRED_AFTER(", "ACQUIRED_BEFORE("] {
        for open in memchr::memmem::find_iter(bytes, needle.as_bytes()) {
            let paren = open + needle.len() - 1;
            let start = bytes[..open]
                .iter()
                .rposition(|&b| !is_ident_byte(b))
                .map_or(0, |i| i + 1);
            let before = bytes[..start]
                .iter()
                .rposition(|&b| b != b' ' && b != b'\t')
                .map(|i| bytes[i]);
            // After the declared name (or an array's `]`), with space between.
            if start == 0 || !bytes[start - 1].is_ascii_whitespace() {
                continue;
            }
            if !before.is_some_and(|b| is_ident_byte(b) || b == b']') {
                continue;
            }
            // `return GUARDED_BY(x);` is a call.
            let word_end = bytes[..start]
                .iter()
                .rposition(|b| !b.is_ascii_whitespace())
                .map_or(0, |i| i + 1);
            let word_start = bytes[..word_end]
                .iter()
                .rposition(|&b| !is_ident_byte(b))
                .map_or(0, |i| i + 1);
            if matches!(
                &bytes[word_start..word_end],
                b"return"
                    | b"case"
                    | b"throw"
                    | b"goto"
                    | b"else"
                    | b"do"
                    | b"co_return"
                    | b"co_yield"
                    | b"sizeof"
                    | b"new"
                    | b"delete"
            ) {
                continue;
            }
            let Some(close) = matching_paren(bytes, paren) else {
                continue;
            };
            let end = close + 1;
            let next = scan.skip_space(end);
            if matches!(bytes.get(next), Some(b';' | b'=' | b',' | b'{')) {
                blanks.push((start, end));
            }
        }
    }
    blanks.sort_unstable();
    blanked(source, &blanks, &[])
}

/// C with its attribute-like macro calls blanked (same length, offsets
/// and lines): a `__word(…)` call in a declaration's head, followed by
/// more of the declaration (`void __printf(1, 0) my_vprintf(…)`, `static
/// __always_inline __alloc_size(1) void *kmalloc_noprof(…)`), or after a
/// declarator's parameters (`void f(void) __acquires(lock)` before `{` or
/// `;`). tree-sitter-c read the macro as the function's name and the rest
/// as errors: the kernel's `kmalloc_noprof` was a function `__alloc_size`
/// spanning 245 lines, and the `kmalloc` after it was lost. A call in an
/// expression is followed by an operator, `;`, `,` or `)`, and stays.
/// `None` when there is none.
fn attribute_macros(source: &str) -> Option<String> {
    let bytes = source.as_bytes();
    let scan = ByteScan(bytes);
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        if !is_ident_byte(bytes[at]) {
            at += 1;
            continue;
        }
        let word = scan.word_at(at);
        let after_word = at + word.len();
        if !word.starts_with(b"__") || word.len() < 4 || bytes.get(after_word) != Some(&b'(') {
            at = after_word;
            continue;
        }
        let Some(close) = matching_paren(bytes, after_word) else {
            at = after_word;
            continue;
        };
        let next = scan.skip_space(close + 1);
        let following = bytes.get(next).copied();
        let mut before = at;
        while before > 0 && matches!(bytes[before - 1], b' ' | b'\t') {
            before -= 1;
        }
        let after_params = before > 0 && bytes[before - 1] == b')';
        let in_head = following.is_some_and(|b| is_ident_byte(b) || b == b'*')
            && !bytes[next..].starts_with(b"__attribute__")
            && !after_params;
        let after_declarator = after_params && matches!(following, Some(b'{' | b';'));
        if in_head || after_declarator {
            blanks.push((at, close + 1));
        }
        at = close + 1;
    }
    blanked(source, &blanks, &[])
}

/// The index of the `)` closing the `(` at `open`, on the same or a later
/// line; `None` when it is not closed within 400 bytes.
fn matching_paren(bytes: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in bytes.iter().enumerate().skip(open).take(400) {
        match b {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            b';' | b'{' | b'}' => return None,
            _ => {}
        }
    }
    None
}

/// C's type, qualifier and storage keywords that open a declaration
/// (`void`, `unsigned`, `const`, `static`, `struct`, ...).
pub(crate) fn is_c_type_keyword(word: &str) -> bool {
    matches!(
        word,
        "void"
            | "char"
            | "short"
            | "int"
            | "long"
            | "float"
            | "double"
            | "signed"
            | "unsigned"
            | "const"
            | "static"
            | "extern"
            | "inline"
            | "struct"
            | "enum"
            | "union"
    )
}

/// Whether `word` is spelled like a project's specifier macro
/// (`SPDLOG_NOEXCEPT`, `EXCLUSIVE_LOCKS_REQUIRED`, `Q_DECL_OVERRIDE`):
/// upper case, digits and underscores, three or more long, with a letter.
pub(crate) fn is_macro_name(word: &[u8]) -> bool {
    word.len() >= 3
        && word.iter().any(u8::is_ascii_uppercase)
        && !word[0].is_ascii_digit()
        && word
            .iter()
            .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
}

/// C and C++ whose functions carry a project's specifier macros where the
/// grammar expects none (spdlog's `-inl.h` files, LevelDB's and Abseil's
/// thread annotations): after the parameter list (`void logger::swap(…)
/// SPDLOG_NOEXCEPT {`, `void Get() EXCLUSIVE_LOCKS_REQUIRED(mu_);`), where
/// the definition was lost, and before a constructor defined outside its
/// class (`SPDLOG_INLINE logger::logger(const logger &other) : name_(…)`),
/// which read as variables named after its member initializers, and after
/// a class's name (`class Verifier FLATBUFFERS_FINAL_CLASS {`), where the
/// class was lost. Each such
/// macro (with its parenthesised arguments) is blanked: after a `)`, one
/// or more of them among `const`/`override`/`final`/`noexcept` up to a
/// `{`, `;`, `=`, `->` or a constructor's `:`; at the start of a line, one
/// before `Name::Name(` or `Name::~Name(`, before a type or storage
/// keyword, or before any word when it is named like an export or inline
/// specifier (`…_API`, `…_EXPORT`, `…_INLINE`, ...: `REDISMODULE_API
/// size_t (*RedisModule_ValueLength)(…) REDISMODULE_ATTR;`), or one
/// opening a line before a block (`CATCH_TRY { … }`). Same length,
/// offsets and lines; `None` when there is none.
/// An upper-case macro named like an export or inline specifier
/// (`SPDLOG_INLINE`, `GTEST_API_`, `REDISMODULE_API`).
fn is_specifier_macro(word: &[u8]) -> bool {
    is_macro_name(word)
        && [
            "API",
            "API_",
            "EXPORT",
            "EXPORT_",
            "EXTERN",
            "INLINE",
            "DECL",
            "PUBLIC",
            "LOCAL",
            "HIDDEN",
            "CONSTEXPR",
            "NODISCARD",
            "DEPRECATED",
            "ATTR",
        ]
        .iter()
        .any(|end| word.ends_with(end.as_bytes()))
}

pub(crate) fn specifier_macros(source: &str) -> Option<String> {
    let bytes = source.as_bytes();
    let scan = ByteScan(bytes);
    // The end of the parenthesised arguments opening at `open`, on at most
    // a few lines.
    let close_of = |open: usize| matching_paren(bytes, open).map(|close| close + 1);
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    let mut line_start = true;
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        if b == b')' {
            let mut found: Vec<(usize, usize)> = Vec::new();
            let mut next = scan.skip_space(at + 1);
            loop {
                let word = scan.word_at(next);
                if matches!(word, b"const" | b"override" | b"final" | b"noexcept") {
                    next = scan.skip_space(next + word.len());
                } else if is_macro_name(word) {
                    let mut end = next + word.len();
                    let after = scan.skip_space(end);
                    if bytes.get(after) == Some(&b'(') {
                        match close_of(after) {
                            Some(close) => end = close,
                            None => break,
                        }
                    }
                    found.push((next, end));
                    next = scan.skip_space(end);
                } else {
                    break;
                }
            }
            let rest = &bytes[next.min(bytes.len())..];
            let ends = rest.starts_with(b"{")
                || rest.starts_with(b";")
                || rest.starts_with(b"->")
                || (rest.starts_with(b"=") && !rest.starts_with(b"=="))
                || (rest.starts_with(b":") && !rest.starts_with(b"::"));
            if ends {
                blanks.extend(found);
            }
            at += 1;
            line_start = false;
            continue;
        }
        if b == b'\n' {
            line_start = true;
            at += 1;
            continue;
        }
        if b == b' ' || b == b'\t' {
            at += 1;
            continue;
        }
        if line_start && is_ident_byte(b) {
            let word = scan.word_at(at);
            let name_at = at + word.len();
            let after = scan.skip_space(name_at);
            if matches!(word, b"class" | b"struct" | b"union") {
                // A macro after a class's name (FlatBuffers' `class Verifier
                // FLATBUFFERS_FINAL_CLASS {`), where the grammar lost the
                // class and read its members as the namespace's functions.
                let name = scan.word_at(after);
                let macro_at = scan.skip_space(after + name.len());
                let mac = scan.word_at(macro_at);
                let next = scan.skip_space(macro_at + mac.len());
                let rest = &bytes[next.min(bytes.len())..];
                if !name.is_empty()
                    && !is_macro_name(name)
                    && macro_at > after + name.len()
                    && is_macro_name(mac)
                    && (rest.starts_with(b"{")
                        || (rest.starts_with(b":") && !rest.starts_with(b"::"))
                        || scan.word_at(next) == b"final")
                {
                    blanks.push((macro_at, macro_at + mac.len()));
                }
            } else if is_macro_name(word) && bytes.get(after) == Some(&b'{') {
                // A statement macro before its block (Catch2's `CATCH_TRY {
                // … } CATCH_CATCH_ALL { … }`), whose misreading closed the
                // function and its namespace early.
                blanks.push((at, name_at));
            } else if is_macro_name(word) && after > name_at && bytes.get(after - 1) != Some(&b'\n')
            {
                let class = scan.word_at(after);
                let sep = after + class.len();
                let member = if bytes[sep..].starts_with(b"::~") {
                    sep + 3
                } else {
                    sep + 2
                };
                let is_ctor = !class.is_empty()
                    && bytes[sep..].starts_with(b"::")
                    && scan.word_at(member) == class
                    && bytes.get(member + class.len()) == Some(&b'(');
                let before_type = std::str::from_utf8(class).is_ok_and(is_c_type_keyword);
                // Named like an export or inline specifier, before any type.
                let specifier =
                    is_specifier_macro(word) && !class.is_empty() && !class[0].is_ascii_digit();
                if is_ctor || before_type || specifier {
                    blanks.push((at, name_at));
                }
            } else if !is_macro_name(word) && after > name_at {
                // A specifier after the return type, before the (qualified)
                // name: `void SPDLOG_INLINE thread_pool::worker_loop_()`,
                // which read as a namespace `SPDLOG_INLINE` with a missing
                // `::`, or `static API_INLINE int f(…)`.
                let mac = scan.word_at(after);
                let next = scan.skip_space(after + mac.len());
                let name = scan.word_at(next);
                let follows = bytes.get(next + name.len()..).unwrap_or_default();
                if is_specifier_macro(mac)
                    && next > after + mac.len()
                    && !name.is_empty()
                    && !name[0].is_ascii_digit()
                    && (follows.starts_with(b"::")
                        || follows.starts_with(b"(")
                        || follows.starts_with(b"<")
                        || std::str::from_utf8(name).is_ok_and(is_c_type_keyword))
                {
                    blanks.push((after, after + mac.len()));
                }
            }
            at = name_at.max(at + 1);
            line_start = false;
            continue;
        }
        line_start = false;
        at += 1;
    }
    blanked(source, &blanks, &[])
}

/// Kotlin whose top-level `annotation class` or `enum class` follows
/// annotation lines (`@Qualifier` / `@Retention(…)` / `annotation class
/// ApplicationContext`, Dagger's and Hilt's qualifiers; `@Serializable` /
/// `enum class Mode { ON }`): tree-sitter-kotlin-ng reads the annotations
/// as annotating an expression and `annotation class X` as an infix call,
/// with no error, and the class was lost. Such annotation lines (with
/// their parenthesised arguments, over several lines) are blanked (spaces,
/// line breaks kept). So are annotation lines before a constructor on
/// its own line (the Kotlin standard library's `public actual class
/// Regex` / `@PublishedApi` / `internal constructor(…)`), which lost the
/// class's body and everything after it in the file (27 of `Regex.kt`'s
/// 29 functions). `None` when there are none.
fn annotated_soft_keyword_classes(source: &str) -> Option<String> {
    if !source.contains("annotation class")
        && !source.contains("enum class")
        && !source.contains("constructor")
    {
        return None;
    }
    let lines = Lines::new(source);
    let opens_class = |t: &str| {
        let t = ["public ", "internal ", "private ", "protected "]
            .iter()
            .find_map(|m| t.strip_prefix(m))
            .unwrap_or(t)
            .trim_start();
        t.starts_with("annotation class ")
            || t.starts_with("enum class ")
            || t.strip_prefix("constructor")
                .is_some_and(|rest| rest.trim_start().starts_with('('))
    };
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < lines.count() {
        if !lines.line(i).trim_start().starts_with('@') {
            i += 1;
            continue;
        }
        // The block of annotation lines, an argument list running on over
        // lines while its parentheses are open.
        let from = i;
        let mut depth = 0i64;
        while i < lines.count() && (depth > 0 || lines.line(i).trim_start().starts_with('@')) {
            for b in lines.line(i).bytes() {
                match b {
                    b'(' => depth += 1,
                    b')' => depth -= 1,
                    _ => {}
                }
            }
            i += 1;
        }
        if i < lines.count() && opens_class(lines.line(i).trim_start()) {
            blanks.push((lines.range(from).0, lines.range(i - 1).1));
        }
    }
    blanked(source, &blanks, &[])
}

/// Kotlin's `suspend` where it is not a modifier: a function named so
/// (`fun suspend(suspended: Boolean)`, react-native-keyboard-controller's
/// callbacks) or a suspending lambda (`val job = suspend { … }`).
/// tree-sitter-kotlin-ng reads either as a modifier with nothing to
/// modify, and the file lost every definition. The word is read as a name
/// (`suspenD`, same length; names are taken from the file itself).
/// `None` when there is neither.
fn suspend_as_a_name(source: &str) -> Option<String> {
    let b = source.as_bytes();
    let word = |c: u8| c.is_ascii_alphanumeric() || c == b'_';
    let mut out: Option<Vec<u8>> = None;
    for (at, _) in source.match_indices("suspend") {
        let end = at + "suspend".len();
        if (at > 0 && (word(b[at - 1]) || b[at - 1] == b'.'))
            || b.get(end).is_some_and(|&c| word(c))
        {
            continue;
        }
        let before = source[..at].trim_end();
        let after = source[end..].trim_start_matches([' ', '\t']);
        let named = before.ends_with("fun")
            && before[..before.len() - 3]
                .bytes()
                .next_back()
                .is_none_or(|c| !word(c))
            && after.starts_with(['(', '<']);
        let lambda = after.starts_with('{');
        if named || lambda {
            out.get_or_insert_with(|| b.to_vec())[end - 1] = b'D';
        }
    }
    out.and_then(|v| String::from_utf8(v).ok())
}

/// Rust items wrapped in a macro call at item level (`cfg_rt! { pub fn
/// spawn… }`, `cfg_if! {…}`, `thread_local! { static … }`): the grammar
/// keeps a macro's body as tokens, so tokio's `spawn`, `select!` and most
/// of its API behind `cfg_*!` wrappers had no definition. Each such call
/// (a `name! { … }` among items: in a file, a module, an impl or a trait,
/// its braces the whole body) is read as its contents: its name, `!` and
/// braces blanked (the same offsets and lines), nested calls with it.
/// `None` when the file has none.
fn rust_item_macros(source: &str, tree: &tree_sitter::Tree) -> Option<String> {
    let bytes = source.as_bytes();
    let braced = |n: Node| {
        n.kind() == "token_tree"
            && bytes.get(n.start_byte()) == Some(&b'{')
            && n.end_byte() > n.start_byte()
            && bytes.get(n.end_byte() - 1) == Some(&b'}')
    };
    let mut blanks = Vec::new();
    // Item lists to look through: the file, modules, impls, traits, and the
    // bodies of the calls blanked (`cfg_rt! { cfg_unstable! { … } }`).
    let mut stack = vec![tree.root_node()];
    // A call from `start` (its name) to its braced `body`'s end: blank the
    // name, `!` and `{`, and the `}`; read the body's items next.
    fn call<'t>(
        blanks: &mut Vec<(usize, usize)>,
        stack: &mut Vec<Node<'t>>,
        start: usize,
        body: Node<'t>,
    ) {
        blanks.push((start, body.start_byte() + 1));
        blanks.push((body.end_byte() - 1, body.end_byte()));
        stack.push(body);
    }
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        let children: Vec<Node> = node.children(&mut cursor).collect();
        for (i, child) in children.iter().enumerate() {
            match child.kind() {
                "macro_invocation" => {
                    let mut inner = child.walk();
                    let Some(body) = child.named_children(&mut inner).last() else {
                        continue;
                    };
                    // (The body is the call's last child: it ends the call.)
                    if braced(body) {
                        call(&mut blanks, &mut stack, child.start_byte(), body);
                    }
                }
                // Inside a blanked body the calls are tokens: `name`, `!`,
                // then a braced token tree.
                "identifier" if node.kind() == "token_tree" => {
                    let (Some(bang), Some(body)) = (children.get(i + 1), children.get(i + 2))
                    else {
                        continue;
                    };
                    let at_item = i == 0
                        || children[i - 1].kind() == "{"
                        || matches!(
                            bytes.get(children[i - 1].end_byte().saturating_sub(1)),
                            Some(b'}' | b';')
                        )
                        || children[i - 1].kind().ends_with("comment");
                    if bang.kind() == "!" && braced(*body) && at_item {
                        call(&mut blanks, &mut stack, child.start_byte(), *body);
                    }
                }
                "mod_item" | "impl_item" | "trait_item" | "declaration_list" => stack.push(*child),
                _ => {}
            }
        }
    }
    blanked(source, &blanks, &[])
}

/// `source` with the byte ranges `blanks` made spaces (line breaks kept:
/// the same length, offsets and lines), then the ranges `kept` (inside
/// them) as they were; `None` when nothing is blanked. Each range must
/// cover whole characters (the result is checked to be UTF-8).
fn blanked(source: &str, blanks: &[(usize, usize)], kept: &[(usize, usize)]) -> Option<String> {
    if blanks.is_empty() {
        return None;
    }
    let bytes = source.as_bytes();
    let mut out = bytes.to_vec();
    for &(from, to) in blanks {
        for b in &mut out[from..to] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    }
    for &(from, to) in kept {
        out[from..to].copy_from_slice(&bytes[from..to]);
    }
    String::from_utf8(out).ok()
}

/// TypeScript whose interface or type literal has a generic call signature
/// on a line of its own after a member that ends in a type (`): State`,
/// then `<State>(recipe: …): …`): TypeScript ends the member at the line
/// break, tree-sitter-typescript reads on (`State<State>(…`) and the rest
/// of the file became errors (immer's `IProduce` and every definition
/// after it). Such a line's last indentation character becomes `;`, the
/// member separator (same length, same offsets and lines). `None` when no
/// line looks like one.
fn generic_call_signatures(source: &str) -> Option<String> {
    let mut out: Option<String> = None;
    let mut offset = 0;
    // Whether the last line of code (not blank, not a comment) ends a type.
    let mut after_type = false;
    for line in source.split_inclusive('\n') {
        let t = line.trim();
        let indent = line.len() - line.trim_start().len();
        let opens_signature = t.starts_with('<')
            && t[1..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && t.contains(">(");
        // The indentation's last character becomes the `;` when it is a
        // space or a tab (one byte: other white space may be several).
        if opens_signature
            && after_type
            && indent > 0
            && matches!(line.as_bytes()[indent - 1], b' ' | b'\t')
        {
            let s = out.get_or_insert_with(|| source.to_string());
            s.replace_range(offset + indent - 1..offset + indent, ";");
        }
        let comment = t.starts_with("//") || t.starts_with("/*") || t.starts_with('*');
        if !t.is_empty() && !comment {
            after_type = t.ends_with(|c: char| c.is_alphanumeric() || "_>)]".contains(c));
        }
        offset += line.len();
    }
    out
}

/// C, C++ and Objective-C whose preprocessor branches leave braces
/// unbalanced (`#ifdef X` / `if (a) {` / `#else` / `if (b) {` / `#endif`,
/// or a `{` opened in one `#if` and closed in a later one) derail the
/// grammar, which wants each branch to hold whole statements: the rest of
/// the file, functions included, becomes errors (jq's `jv_dtoa.c` lost
/// `jvp_strtod` and five more functions). Such a file is parsed as the
/// compiler would see it with every condition true, as ctags reads it: the
/// conditional directives and the code of each `#elif`/`#else` branch are
/// blanked (spaces, line breaks kept: the same offsets and lines; other
/// directives stay), the first branches kept as plain code. `None` when
/// every branch of the file keeps its braces balanced (outside comments,
/// strings and character literals).
///
/// C# (`any_branch`) is read that way whenever it has conditionals: its
/// grammar takes directives between statements and members only, and one
/// inside a parameter list or an object initializer (pythonnet's
/// `Finalizer.cs`) lost the file's namespace and class.
pub(crate) fn first_branches(source: &str, any_branch: bool) -> Option<String> {
    branches(source, any_branch, false)
}

/// C, C++ and Objective-C with the conditional directives' own lines
/// blanked and the code of every branch kept, for a file whose branches
/// each keep their braces balanced but whose grammar takes no directive
/// where they stand: tree-sitter-objc reads none between an
/// `@implementation`'s methods, and lost every method of react-native-
/// screens' `RNSScreen.mm` after its first `#ifdef RCT_NEW_ARCH_ENABLED`
/// (94 methods, 35 found). Each branch's methods are whole, so both are
/// read, as the two definitions they are. `None` when the file has no
/// conditional directive.
pub(crate) fn every_branch(source: &str) -> Option<String> {
    branches(source, true, true)
}

/// [`first_branches`] and [`every_branch`]: with `keep_all`, only the
/// directives' lines are blanked, otherwise every `#elif`/`#else` branch
/// too (and only when some branch leaves braces unbalanced, unless
/// `any_branch`).
fn branches(source: &str, any_branch: bool, keep_all: bool) -> Option<String> {
    if !source.contains("#if") {
        return None;
    }
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Code,
        LineComment,
        BlockComment,
        Quoted(u8),
    }
    struct Group {
        depth: i64,
        blank_from: Option<usize>,
    }
    let bytes = source.as_bytes();
    let mut state = State::Code;
    let mut groups: Vec<Group> = Vec::new();
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    let mut kept: Vec<(usize, usize)> = Vec::new();
    let mut unbalanced = false;
    let line_end =
        |at: usize| memchr::memchr(b'\n', &bytes[at..]).map_or(bytes.len(), |i| at + i + 1);
    let mut at = 0;
    while at < bytes.len() {
        let mut end = line_end(at);
        let line = &bytes[at..end];
        let trimmed = line.trim_ascii_start();
        if state == State::Code && trimmed.first() == Some(&b'#') {
            // A directive runs on over lines ending in a backslash.
            while end < bytes.len() && bytes[..end].trim_ascii_end().ends_with(b"\\") {
                end = line_end(end);
            }
            let directive = trimmed[1..].trim_ascii_start();
            let is = |word: &[u8]| {
                directive.starts_with(word)
                    && directive
                        .get(word.len())
                        .is_none_or(|c| !c.is_ascii_alphanumeric() && *c != b'_')
            };
            if is(b"if") || is(b"ifdef") || is(b"ifndef") {
                groups.push(Group {
                    depth: 0,
                    blank_from: None,
                });
                blanks.push((at, end));
            } else if is(b"elif") || is(b"else") || is(b"elifdef") || is(b"elifndef") {
                if let Some(g) = groups.last_mut() {
                    unbalanced |= g.depth != 0;
                    g.depth = 0;
                    if keep_all {
                        blanks.push((at, end));
                    } else {
                        g.blank_from.get_or_insert(at);
                    }
                }
            } else if is(b"endif")
                && let Some(g) = groups.pop()
            {
                unbalanced |= g.depth != 0;
                blanks.push((g.blank_from.unwrap_or(at), end));
                // An enclosing branch counts what this group's kept
                // branch opened.
                if let Some(outer) = groups.last_mut() {
                    outer.depth += g.depth;
                }
            } else {
                // `#define`, `#include`, …: kept even in a blanked branch
                // (they hold no braces, and its macros are definitions).
                kept.push((at, end));
            }
            // A directive's own text (a `#define` body) is no code.
            at = end;
            continue;
        }
        let mut i = 0;
        while i < line.len() {
            let c = line[i];
            match state {
                State::Code => match c {
                    b'/' if line.get(i + 1) == Some(&b'/') => state = State::LineComment,
                    b'/' if line.get(i + 1) == Some(&b'*') => {
                        state = State::BlockComment;
                        i += 1;
                    }
                    b'"' | b'\'' => state = State::Quoted(c),
                    b'{' | b'}' => {
                        if let Some(g) = groups.last_mut() {
                            g.depth += if c == b'{' { 1 } else { -1 };
                        }
                    }
                    _ => {}
                },
                State::BlockComment => {
                    if c == b'*' && line.get(i + 1) == Some(&b'/') {
                        state = State::Code;
                        i += 1;
                    }
                }
                State::Quoted(q) => {
                    if c == b'\\' {
                        i += 1;
                    } else if c == q || c == b'\n' {
                        state = State::Code;
                    }
                }
                State::LineComment => {}
            }
            i += 1;
        }
        if state == State::LineComment {
            state = State::Code;
        }
        at = end;
    }
    if !(unbalanced || any_branch && !blanks.is_empty()) {
        return None;
    }
    // Whole lines are blanked, so every kept byte is as it was.
    blanked(source, &blanks, &kept)
}

/// A stretch of a line to parse as other text of the same length.
struct Rewrite {
    at: usize,
    text: String,
}

/// An enum macro (`NS_ENUM(NSInteger, Mode)`, `NS_OPTIONS`, `CF_ENUM`,
/// ...) in `line` rewritten as `enum        Mode `: the same number of
/// bytes, the name where it was, so the C grammar sees an enum.
fn enum_macro(line: &str) -> Option<Rewrite> {
    const MACROS: [&str; 6] = [
        "NS_ENUM(",
        "NS_OPTIONS(",
        "NS_CLOSED_ENUM(",
        "NS_ERROR_ENUM(",
        "CF_ENUM(",
        "CF_OPTIONS(",
    ];
    let (at, m) = MACROS
        .iter()
        .find_map(|m| line.find(m).map(|at| (at, *m)))?;
    let args_at = at + m.len();
    let close = args_at + line[args_at..].find(')')?;
    let comma = args_at + line[args_at..close].find(',')?;
    let name = line[comma + 1..close].trim();
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let name_at = comma + 1 + line[comma + 1..close].find(name)?;
    let mut text = String::with_capacity(close + 1 - at);
    text.push_str("enum");
    text.push_str(&" ".repeat(name_at - at - 4));
    text.push_str(name);
    text.push_str(&" ".repeat(close + 1 - name_at - name.len()));
    // Replacing non-ASCII bytes with as many ASCII ones would move rows'
    // characters; such a line is left as it is.
    line[at..=close].is_ascii().then_some(Rewrite { at, text })
}

/// `NAME` or `NAME(balanced args)` alone, `NAME` all capitals, digits and
/// underscores with at least one underscore.
pub(crate) fn is_bare_macro(t: &str) -> bool {
    let name_end = t
        .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
        .unwrap_or(t.len());
    let (name, rest) = t.split_at(name_end);
    if name.len() < 3 || !name.contains('_') || name.starts_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    if rest.is_empty() {
        return true;
    }
    let Some(args) = rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) else {
        return false;
    };
    let mut depth = 0i32;
    for c in args.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ';' | '{' | '}' => return false,
            _ => {}
        }
        if depth < 0 {
            return false;
        }
    }
    depth == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bash_patterns_blank_what_the_grammar_misreads() {
        let src = "f() {\n  [[ $c =~ ^(\\$(\\{[!#]?)?)$ ]] && x\n  case $p in -!(-*)F) ;; esac\n  o=${o%%[<{().[]*}\n  l=${l#*\"${W[i]}\"}\n  while [[ $l =~ \\\n      ((^|[^-])-) ]]; do :; done\n  # ${var / ${!var\n}\n";
        let out = bash_patterns(src).expect("changed");
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        let lines: Vec<&str> = out.lines().collect();
        let xs = |n: usize| "x".repeat(n);
        assert_eq!(lines[1], format!("  [[ $c =~ {} ]] && x", xs(16)));
        assert_eq!(lines[2], format!("  case $p in -{}F) ;; esac", xs(5)));
        assert_eq!(lines[3], "  o=${o%%[xxxx.[]*}");
        // A nested expansion keeps its braces.
        assert_eq!(lines[4], src.lines().nth(4).unwrap());
        assert_eq!(lines[6], format!("      {} ]]; do :; done", xs(11)));
        // An unclosed expansion (in a comment) is left, without a panic.
        assert_eq!(lines[7], "  # ${var / ${!var");
        let unclosed = "f() {\n  # ${v%%(a|b) and more\n}\n";
        assert_eq!(bash_patterns(unclosed), None);
        assert_eq!(bash_patterns("f() { echo \"${x}\"; }\n"), None);
    }

    #[test]
    fn generic_call_signatures_get_a_separator_in_their_indentation() {
        let src = "interface P {\n\t(a: A): State\n\t<S>(b: B): S\n}\n";
        assert_eq!(
            generic_call_signatures(src).as_deref(),
            Some("interface P {\n\t(a: A): State\n;<S>(b: B): S\n}\n")
        );
        // Indented with a no-break space (two bytes): left alone, not split.
        let nbsp = "interface P {\n\t(a: A): State\n\u{a0}<S>(b: B): S\n}\n";
        assert_eq!(generic_call_signatures(nbsp), None);
        // After a comma or an opening brace no separator is needed.
        assert_eq!(generic_call_signatures("f(a,\n  <T>(x: T) => x)\n"), None);
    }

    #[test]
    fn kotlins_suspend_is_read_as_a_name_where_it_modifies_nothing() {
        assert_eq!(
            suspend_as_a_name("fun suspend(x: Boolean) {}\nval j = suspend { 1 }\n").as_deref(),
            Some("fun suspenD(x: Boolean) {}\nval j = suspenD { 1 }\n")
        );
        // A modifier, a call on an object, a longer name: left alone.
        for src in [
            "suspend fun f() {}\n",
            "val f: suspend () -> Unit = {}\n",
            "cb.suspend {}\n",
            "fun suspended() {}\n",
            "fun unsuspend() {}\n",
        ] {
            assert_eq!(suspend_as_a_name(src), None, "{src}");
        }
    }

    #[test]
    fn kotlin_annotations_of_annotation_and_enum_classes_are_blanked() {
        let src = "@Qualifier\n@Retention(\n    AnnotationRetention.RUNTIME,\n)\nannotation class Ctx\n@Composable\nfun f() {}\n@Serializable\nprivate enum class Mode { ON }\n";
        let out = annotated_soft_keyword_classes(src).expect("annotations found");
        assert_eq!(out.len(), src.len());
        assert_eq!(
            out,
            "          \n           \n                                \n \nannotation class Ctx\n@Composable\nfun f() {}\n             \nprivate enum class Mode { ON }\n"
        );
        assert_eq!(
            annotated_soft_keyword_classes("@Composable\nfun f() {}\nenum class E { A }\n"),
            None
        );
        assert_eq!(
            annotated_soft_keyword_classes("class R\n@PublishedApi\ninternal constructor(x: X)\n")
                .as_deref(),
            Some("class R\n             \ninternal constructor(x: X)\n")
        );
    }

    #[test]
    fn thread_annotations_after_a_name_are_blanked() {
        let src = "  VersionSet* const versions_ GUARDED_BY(mutex_);\n  int n ABSL_GUARDED_BY(mu) = 0;\n  Foo* p_ PT_GUARDED_BY(a(b));\n  Mutex b ACQUIRED_AFTER(a);\n  return GUARDED_BY(x);\n  void f() GUARDED_BY(mu) {}\n  x = y;\n";
        let out = thread_annotations(src).expect("annotations found");
        assert_eq!(out.len(), src.len());
        assert_eq!(
            out,
            "  VersionSet* const versions_                   ;\n  int n                     = 0;\n  Foo* p_                    ;\n  Mutex b                  ;\n  return GUARDED_BY(x);\n  void f() GUARDED_BY(mu) {}\n  x = y;\n"
        );
        assert_eq!(thread_annotations("int x;\n"), None);
    }

    #[test]
    fn export_macros_are_blanked_only_before_a_class_name() {
        let src = "class GTEST_API_ AssertionException : public E {\nstruct Q_CORE_EXPORT\nQObject\n{\nclass API Final final {\nclass API2 Spec<int> {\nstruct FOO bar = {1};\nstruct FOO bar;\nclass FOO;\nclass NS::Name {\nclass lower_api Name {\n// class DOC_API Doc {\n";
        let out = export_macros(src).expect("macros found");
        assert_eq!(out.len(), src.len());
        assert_eq!(
            out,
            "class            AssertionException : public E {\nstruct              \nQObject\n{\nclass     Final final {\nclass      Spec<int> {\nstruct FOO bar = {1};\nstruct FOO bar;\nclass FOO;\nclass NS::Name {\nclass lower_api Name {\n// class         Doc {\n"
        );
        assert_eq!(export_macros("struct FOO bar;\nclass X {};\n"), None);
    }

    #[test]
    fn component_script_text_keeps_only_scripts_in_place() {
        let src = "<template>\n  <p>{{ é }}</p>\n</template>\n<script setup lang=\"ts\">\nconst a = 1\n</script>\n<scripts>x</scripts>\n<SCRIPT>\nlet b\n</SCRIPT>\n";
        let out = component_script_text(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        for (o, s) in out.lines().zip(src.lines()) {
            if s.contains("const a") || s.contains("let b") {
                assert_eq!(o, s);
            } else {
                assert!(o.trim().is_empty(), "{o:?} from {s:?}");
            }
        }
        assert!(matches!(
            component_script_text("<p>no code</p>\n"),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn first_branches_blank_else_branches_only_when_braces_are_unbalanced() {
        let balanced =
            "#ifdef X\nint a(void) { return 1; }\n#else\nint a(void) { return 2; }\n#endif\n";
        assert_eq!(first_branches(balanced, false), None);
        let src = "int f(int a, int b)\n{\n#ifdef X\n    if (a) {\n#else\n    if (b) {\n#endif\n        g();\n    }\n}\n#if A && \\\n    B\nint h(void) { return 0; }\n#elif B\nint h(void) { return 1; }\n#endif\n";
        let out = first_branches(src, false).expect("unbalanced");
        assert_eq!(out.len(), src.len());
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), src.lines().count());
        assert_eq!(lines[2].trim(), "", "{out:?}");
        assert_eq!(lines[3], "    if (a) {");
        assert_eq!(lines[4].trim(), "");
        assert_eq!(lines[5].trim(), "");
        assert_eq!(lines[6].trim(), "");
        assert_eq!(lines[8], "    }");
        assert_eq!(lines[10].trim(), "", "a continued directive: {out:?}");
        assert_eq!(lines[11].trim(), "");
        assert_eq!(lines[12], "int h(void) { return 0; }");
        assert_eq!(lines[13].trim(), "");
        assert_eq!(lines[14].trim(), "");
        // Braces in comments, strings and character literals, and a
        // brace opened in one `#if` and closed in a later one.
        let src = "#ifndef A\n  /* { */ s = \"{\"; c = '{'; // {\n  if (x) {\n#endif\n  y();\n#ifndef A\n  }\n#endif\n";
        let out = first_branches(src, false).expect("unbalanced");
        assert!(out.contains("  if (x) {\n"), "{out:?}");
        assert!(out.contains("  }\n"), "{out:?}");
        assert!(!out.contains("#"), "{out:?}");
        assert_eq!(
            first_branches("int f(void) {\n  return 0;\n}\n", false),
            None
        );
        // C#: balanced branches too.
        assert!(first_branches(balanced, true).is_some());
        assert_eq!(first_branches("class A {}\n", true), None);
        // Other directives stay, in any branch.
        let src = "#ifdef X\n{\n#else\n#define Y 1\n#include <a.h>\n{\n#endif\n}\n";
        let out = first_branches(src, false).expect("unbalanced");
        assert_eq!(
            out.lines().collect::<Vec<_>>()[3..6],
            ["#define Y 1", "#include <a.h>", " "]
        );
    }

    #[test]
    fn objc_parse_text_blanks_macros_in_place() {
        let src = "NS_ASSUME_NONNULL_BEGIN\r\n\
                   NS_SWIFT_NAME(Host(a))\n\
                   @interface Host : NSObject\n\
                   @end\n\
                   typedef NS_OPTIONS(NSUInteger, Flags) {\n\
                   \x20 FLAG_A = 1,\n\
                   \x20 FLAG_B\n\
                   };\n\
                   FOO_BAR;\n\
                   NS_ASSUME_NONNULL_END";
        let out = objc_parse_text(src);
        assert_eq!(out.len(), src.len());
        assert_eq!(out.lines().count(), src.lines().count());
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0].trim(), "", "{out:?}");
        assert_eq!(lines[1].trim(), "");
        assert_eq!(lines[2], "@interface Host : NSObject");
        assert!(lines[4].starts_with("typedef enum "), "{:?}", lines[4]);
        assert_eq!(
            lines[4].split_whitespace().collect::<Vec<_>>(),
            ["typedef", "enum", "Flags", "{"]
        );
        assert_eq!(
            lines[4].find("Flags"),
            src.lines().nth(4).and_then(|l| l.find("Flags"))
        );
        assert_eq!(lines[6], "  FLAG_B", "an enumerator after a comma stays");
        assert_eq!(lines[8], "FOO_BAR;", "a statement stays");
        assert_eq!(lines[9].trim(), "");
        assert!(matches!(objc_parse_text("int x;\n"), Cow::Borrowed(_)));
        assert!(!is_bare_macro("NS_SWIFT_NAME(a) {"));
        assert!(!is_bare_macro("NS_SWIFT_NAME(a"));
        assert!(!is_bare_macro("ID"), "too short to be a macro we know");
        assert!(is_bare_macro("API_AVAILABLE(ios(13.0), macos(10.15))"));
    }
}
