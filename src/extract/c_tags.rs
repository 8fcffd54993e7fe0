//! Owns C's tags without the query engine: one cursor walk over the tree
//! that yields exactly the captures of C's tags query (the stock
//! `TAGS_QUERY` plus `queries/c.scm`), with the same pattern indices.
//!
//! Why: on the Linux kernel the query engine cost a fifth of the index
//! build's CPU (`ts_query_cursor__advance` and the cursor bookkeeping
//! under it), as much as the rest of extraction after the parse; a plain
//! walk is several times cheaper. The query stays the definition: the
//! tests run both on the same trees and require identical extractions, and
//! a change to either that breaks the match fails them. C++ still runs its
//! query (it appends `c.scm` to its own).

use std::sync::OnceLock;
use std::time::Instant;

use tree_sitter::{Language, Node, Tree};

use super::captures::{RawDef, RawRef, RawTags, each_node};

/// Pattern indices of the combined C query (stock patterns first).
const P_STRUCT: usize = 0;
const P_DECLARED_UNION: usize = 1;
const P_FUNCTION: usize = 2;
const P_TYPEDEF: usize = 3;
const P_ENUM: usize = 4;
const P_UNION: usize = 5;
const P_MACRO: usize = 6;
const P_FUNCTION_MACRO: usize = 7;
const P_ENUMERATOR: usize = 8;
const P_POINTER_TYPEDEF: usize = 9;
const P_FUNCTION_POINTER_TYPEDEF: usize = 10;
const P_FIELD: usize = 11;
const P_GLOBAL: usize = 12;
const P_CALL: usize = 13;
const P_FIELD_CALL: usize = 14;
const P_TYPE_REFERENCE: usize = 15;
/// How many patterns the walk stands for; checked against the query.
#[cfg(test)]
pub(crate) const PATTERNS: usize = 16;

/// Node kind and field ids of the C grammar, looked up once.
struct Ids {
    translation_unit: u16,
    declaration: u16,
    /// `#if`, `#ifdef`/`#ifndef`, `#else`, `#elif`, `#elifdef`.
    conditionals: [u16; 5],
    struct_specifier: u16,
    union_specifier: u16,
    enum_specifier: u16,
    function_declarator: u16,
    type_definition: u16,
    preproc_def: u16,
    preproc_function_def: u16,
    enumerator: u16,
    field_declaration: u16,
    pointer_declarator: u16,
    array_declarator: u16,
    init_declarator: u16,
    parenthesized_declarator: u16,
    call_expression: u16,
    field_expression: u16,
    identifier: u16,
    type_identifier: u16,
    field_identifier: u16,
    f_name: u16,
    f_body: u16,
    f_type: u16,
    f_declarator: u16,
    f_function: u16,
    f_field: u16,
}

fn ids(language: &Language) -> &'static Ids {
    static IDS: OnceLock<Ids> = OnceLock::new();
    IDS.get_or_init(|| {
        let kind = |k: &str| language.id_for_node_kind(k, true);
        let field = |f: &str| language.field_id_for_name(f).map_or(0, |id| id.get());
        Ids {
            translation_unit: kind("translation_unit"),
            declaration: kind("declaration"),
            conditionals: [
                kind("preproc_if"),
                kind("preproc_ifdef"),
                kind("preproc_else"),
                kind("preproc_elif"),
                kind("preproc_elifdef"),
            ],
            struct_specifier: kind("struct_specifier"),
            union_specifier: kind("union_specifier"),
            enum_specifier: kind("enum_specifier"),
            function_declarator: kind("function_declarator"),
            type_definition: kind("type_definition"),
            preproc_def: kind("preproc_def"),
            preproc_function_def: kind("preproc_function_def"),
            enumerator: kind("enumerator"),
            field_declaration: kind("field_declaration"),
            pointer_declarator: kind("pointer_declarator"),
            array_declarator: kind("array_declarator"),
            init_declarator: kind("init_declarator"),
            parenthesized_declarator: kind("parenthesized_declarator"),
            call_expression: kind("call_expression"),
            field_expression: kind("field_expression"),
            identifier: kind("identifier"),
            type_identifier: kind("type_identifier"),
            field_identifier: kind("field_identifier"),
            f_name: field("name"),
            f_body: field("body"),
            f_type: field("type"),
            f_declarator: field("declarator"),
            f_function: field("function"),
            f_field: field("field"),
        }
    })
}

/// The captures of C's tags query on `tree`. `None` when `deadline`
/// passed first.
pub(crate) fn collect<'t>(
    language: &Language,
    tree: &'t Tree,
    deadline: Instant,
) -> Option<RawTags<'t>> {
    let mut w = Walk {
        ids: ids(language),
        defs: Vec::new(),
        refs: Vec::new(),
    };
    if !each_node(tree, deadline, |node| w.visit(node)) {
        return None;
    }
    Some((w.defs, w.refs))
}

/// The globals (pattern 12's captures) declared inside file-level
/// conditionals: `#ifdef CONFIG_X` … `static int g;` … `#endif`, or an
/// include guard's `extern int g;`. The query's `(translation_unit
/// (declaration …))` does not reach them, and saying "any depth of
/// conditionals" in the query cost about 30 ms of query compilation per
/// index run; so both the walk and the query run this after their own
/// captures (the query stays the definition of everything else).
pub(crate) fn conditional_globals<'t>(
    language: &Language,
    tree: &'t Tree,
    defs: &mut Vec<RawDef<'t>>,
) {
    let mut w = Walk {
        ids: ids(language),
        defs: std::mem::take(defs),
        refs: Vec::new(),
    };
    let unit = tree.root_node();
    let mut cursor = unit.walk();
    let conditionals: Vec<Node<'t>> = unit
        .children(&mut cursor)
        .filter(|c| w.ids.conditionals.contains(&c.kind_id()))
        .collect();
    for c in conditionals {
        w.conditional_globals(c);
    }
    *defs = w.defs;
}

/// Macros whose `#define` line a parse error swallowed: after a
/// declaration the grammar cannot read (tmux's `void printflike(3, 4)
/// cmdq_add_format(…);`, an attribute macro between type and name), the
/// parser's recovery reads the next lines' `#define` as a bare token inside
/// an `ERROR`, so neither the query nor the walk sees the macro it
/// defines (`cmdq_get_callback`). Each such token followed on its line by
/// a name is a macro definition (function-like when `(` follows the name
/// at once). C and C++ alike: the token and node kinds are both grammars'.
pub(crate) fn error_macros<'t>(tree: &'t Tree, defs: &mut Vec<RawDef<'t>>) {
    let root = tree.root_node();
    if !root.has_error() {
        return;
    }
    let first_leaf = |mut n: Node<'t>| {
        while let Some(c) = n.child(0) {
            n = c;
        }
        n
    };
    // The leaf after `n` in the text: the recovery may leave `#define`
    // last in one node and its name first in the next.
    let next_leaf = |mut n: Node<'t>| loop {
        if let Some(s) = n.next_sibling() {
            return Some(first_leaf(s));
        }
        n = n.parent()?;
    };
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        // (Only nodes holding an error are descended into, so every
        // `#define` met is under one.)
        if node.kind() == "#define"
            && !node
                .parent()
                .is_some_and(|p| matches!(p.kind(), "preproc_def" | "preproc_function_def"))
        {
            let Some(name) = next_leaf(node) else {
                continue;
            };
            if !matches!(
                name.kind(),
                "identifier" | "type_identifier" | "field_identifier"
            ) || name.start_position().row != node.start_position().row
            {
                continue;
            }
            let function_like = next_leaf(name)
                .is_some_and(|n| n.kind() == "(" && n.start_byte() == name.end_byte());
            found.push(RawDef {
                node: name,
                name,
                suffix: "macro",
                pattern: if function_like {
                    P_FUNCTION_MACRO
                } else {
                    P_MACRO
                },
            });
            continue;
        }
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node
            .children(&mut cursor)
            .filter(|c| c.has_error() || c.is_error() || c.kind() == "#define")
            .collect();
        stack.extend(children.into_iter().rev());
    }
    for d in found {
        if !defs
            .iter()
            .any(|e| e.name.byte_range() == d.name.byte_range())
        {
            defs.push(d);
        }
    }
}

struct Walk<'t> {
    ids: &'static Ids,
    defs: Vec<RawDef<'t>>,
    refs: Vec<RawRef<'t>>,
}

impl<'t> Walk<'t> {
    /// The first child in `field` (`None` for a field the grammar lacks).
    fn field(&self, node: Node<'t>, field: u16) -> Option<Node<'t>> {
        std::num::NonZeroU16::new(field).and_then(|f| node.child_by_field_id(f.get()))
    }

    /// The child in `field` when it is of kind `kind`.
    fn field_of(&self, node: Node<'t>, field: u16, kind: u16) -> Option<Node<'t>> {
        self.field(node, field).filter(|n| n.kind_id() == kind)
    }

    /// Every child in `field`: `declarator` repeats (`int a, *b;`), and the
    /// query matches each.
    fn each_in_field(
        &mut self,
        node: Node<'t>,
        field: u16,
        mut each: impl FnMut(&mut Self, Node<'t>),
    ) {
        let Some(field) = std::num::NonZeroU16::new(field) else {
            return;
        };
        let mut cursor = node.walk();
        if !cursor.goto_first_child() {
            return;
        }
        loop {
            if cursor.field_id() == Some(field) {
                each(self, cursor.node());
            }
            if !cursor.goto_next_sibling() {
                return;
            }
        }
    }

    fn def(&mut self, node: Node<'t>, name: Node<'t>, suffix: &'static str, pattern: usize) {
        self.defs.push(RawDef {
            node,
            name,
            suffix,
            pattern,
        });
    }

    fn reference(&mut self, name: Node<'t>, suffix: &'static str, pattern: usize) {
        self.refs.push(RawRef {
            name,
            suffix,
            pattern,
        });
    }

    /// `(X name: (kind) @name) @definition.suffix`
    fn named(&mut self, node: Node<'t>, kind: u16, suffix: &'static str, pattern: usize) {
        if let Some(name) = self.field_of(node, self.ids.f_name, kind) {
            self.def(node, name, suffix, pattern);
        }
    }

    /// `(wrapper declarator: (kind) @name)`: that child of `declarator`
    /// when `declarator` is a `wrapper`.
    fn wrapped(&self, declarator: Node<'t>, wrapper: u16, kind: u16) -> Option<Node<'t>> {
        self.wrapped_field(declarator, wrapper, self.ids.f_declarator, kind)
    }

    /// `[(kind) (pointer_declarator declarator: (kind))
    /// (array_declarator declarator: (kind))] @name`
    fn plain_pointer_or_array(&self, declarator: Node<'t>, kind: u16) -> Option<Node<'t>> {
        let ids = self.ids;
        if declarator.kind_id() == kind {
            Some(declarator)
        } else {
            self.wrapped(declarator, ids.pointer_declarator, kind)
                .or_else(|| self.wrapped(declarator, ids.array_declarator, kind))
        }
    }

    /// Defines what a field's or global's declarator names
    /// ([`Walk::plain_pointer_or_array`]; as a global also a pointer to an
    /// array, `*names[]`), or a function pointer
    /// ([`Walk::function_pointers`]: `(*hook)(…)`). Whether it named
    /// anything.
    fn declare(
        &mut self,
        node: Node<'t>,
        declarator: Node<'t>,
        (kind, suffix, pattern): (u16, &'static str, usize),
        global: bool,
    ) -> bool {
        let ids = self.ids;
        let single = self.plain_pointer_or_array(declarator, kind).or_else(|| {
            self.wrapped(declarator, ids.pointer_declarator, ids.array_declarator)
                .filter(|_| global)
                .and_then(|array| self.field_of(array, ids.f_declarator, kind))
        });
        if let Some(name) = single {
            self.def(node, name, suffix, pattern);
            return true;
        }
        self.function_pointers(node, declarator, (kind, suffix, pattern))
    }

    /// `(function_declarator declarator: (parenthesized_declarator
    /// (pointer_declarator declarator: (kind) @name)))`: a function
    /// pointer's name, for each pointer declarator in the parentheses (the
    /// query matches any child there). Whether it named anything.
    fn function_pointers(
        &mut self,
        node: Node<'t>,
        declarator: Node<'t>,
        (kind, suffix, pattern): (u16, &'static str, usize),
    ) -> bool {
        let ids = self.ids;
        let Some(inner) = self.wrapped(
            declarator,
            ids.function_declarator,
            ids.parenthesized_declarator,
        ) else {
            return false;
        };
        let mut named = false;
        let mut cursor = inner.walk();
        for p in inner.children(&mut cursor) {
            if p.kind_id() == ids.pointer_declarator
                && let Some(name) = self.field_of(p, ids.f_declarator, kind)
            {
                self.def(node, name, suffix, pattern);
                named = true;
            }
        }
        named
    }

    /// Pattern 12: a declaration directly under the translation unit,
    /// once per declarator naming a variable.
    fn globals(&mut self, unit: Node<'t>) {
        let ids = self.ids;
        let mut cursor = unit.walk();
        let declarations: Vec<Node<'t>> = unit
            .children(&mut cursor)
            .filter(|c| c.kind_id() == ids.declaration)
            .collect();
        for declaration in declarations {
            self.global(declaration);
        }
    }

    /// Pattern 12 on one file-level `declaration`.
    fn global(&mut self, declaration: Node<'t>) {
        let ids = self.ids;
        let global = (ids.identifier, "variable", P_GLOBAL);
        self.each_in_field(declaration, ids.f_declarator, |w, d| {
            if !w.declare(declaration, d, global, true)
                && let Some(inner) = w
                    .field(d, ids.f_declarator)
                    .filter(|_| d.kind_id() == ids.init_declarator)
            {
                w.declare(declaration, inner, global, true);
            }
        });
    }

    /// Pattern 12 on the declarations inside `node`, a file-level
    /// conditional, and the conditionals nested in it.
    fn conditional_globals(&mut self, node: Node<'t>) {
        let ids = self.ids;
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.children(&mut cursor).collect();
        for c in children {
            if c.kind_id() == ids.declaration {
                self.global(c);
            } else if ids.conditionals.contains(&c.kind_id()) {
                self.conditional_globals(c);
            }
        }
    }

    fn visit(&mut self, node: Node<'t>) {
        let ids = self.ids;
        let k = node.kind_id();
        if k == ids.type_identifier {
            self.reference(node, "type", P_TYPE_REFERENCE);
        } else if k == ids.call_expression {
            if let Some(f) = self.field(node, ids.f_function) {
                if f.kind_id() == ids.identifier {
                    self.reference(f, "call", P_CALL);
                } else if let Some(name) =
                    self.wrapped_field(f, ids.field_expression, ids.f_field, ids.field_identifier)
                {
                    self.reference(name, "call", P_FIELD_CALL);
                }
            }
        } else if k == ids.function_declarator {
            if let Some(name) = self.field_of(node, ids.f_declarator, ids.identifier) {
                self.def(node, name, "function", P_FUNCTION);
            }
        } else if k == ids.field_declaration {
            self.each_in_field(node, ids.f_declarator, |w, d| {
                let field = (ids.field_identifier, "field", P_FIELD);
                // `void *(*keyDup)(…)`: a function pointer returning one.
                if !w.declare(node, d, field, false)
                    && d.kind_id() == ids.pointer_declarator
                    && let Some(inner) = w.field(d, ids.f_declarator)
                {
                    w.function_pointers(node, inner, field);
                }
            });
        } else if k == ids.enumerator {
            self.named(node, ids.identifier, "constant", P_ENUMERATOR);
        } else if k == ids.preproc_def {
            self.named(node, ids.identifier, "macro", P_MACRO);
        } else if k == ids.preproc_function_def {
            self.named(node, ids.identifier, "macro", P_FUNCTION_MACRO);
        } else if k == ids.struct_specifier {
            if self.has_body(node) {
                self.named(node, ids.type_identifier, "class", P_STRUCT);
            }
        } else if k == ids.union_specifier {
            if self.has_body(node) {
                self.named(node, ids.type_identifier, "struct", P_UNION);
            }
        } else if k == ids.enum_specifier {
            self.named(node, ids.type_identifier, "type", P_ENUM);
        } else if k == ids.declaration {
            if let Some(union) = self.field_of(node, ids.f_type, ids.union_specifier)
                && let Some(name) = self.field_of(union, ids.f_name, ids.type_identifier)
            {
                self.def(node, name, "class", P_DECLARED_UNION);
            }
        } else if k == ids.type_definition {
            self.each_in_field(node, ids.f_declarator, |w, d| w.typedef(node, d));
        } else if k == ids.translation_unit {
            self.globals(node);
        }
    }

    /// Patterns 3, 9 and 10 on one declarator of a `type_definition`.
    fn typedef(&mut self, node: Node<'t>, d: Node<'t>) {
        let ids = self.ids;
        if d.kind_id() == ids.type_identifier {
            self.def(node, d, "type", P_TYPEDEF);
        } else if let Some(name) = self.wrapped(d, ids.pointer_declarator, ids.type_identifier) {
            self.def(node, name, "type", P_POINTER_TYPEDEF);
        } else {
            self.function_pointers(
                node,
                d,
                (ids.type_identifier, "type", P_FUNCTION_POINTER_TYPEDEF),
            );
        }
    }

    /// `body: (_)`: a named node in the `body` field.
    fn has_body(&self, node: Node<'t>) -> bool {
        self.field(node, self.ids.f_body)
            .is_some_and(|b| b.is_named())
    }

    /// `(wrapper field: (kind))`: that child of `node` when `node` is a
    /// `wrapper`.
    fn wrapped_field(
        &self,
        node: Node<'t>,
        wrapper: u16,
        field: u16,
        kind: u16,
    ) -> Option<Node<'t>> {
        if node.kind_id() == wrapper {
            self.field_of(node, field, kind)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Extracted, Lang};

    fn both(src: &str) -> (Extracted, Extracted) {
        crate::extract::captures::both::extract("m.c", src, Lang::C)
    }

    /// Every construct the query looks at, nested, repeated, broken.
    const SOURCE: &str = r#"
#include <stdio.h>
#define LIMIT 10
#define MAX(a, b) ((a) > (b) ? (a) : (b))

struct point { int x, *y, z[3]; unsigned flag : 1; struct point *next; };
struct opaque;
union value { int i; float f; } current, *other;
union tag;
enum color { RED, GREEN = 2, BLUE };
enum forward;
typedef struct point point_t, *point_p;
typedef int **deep_t;
typedef int (*handler_t)(int), (*other_t)(void);
typedef int plain_fn(int);

static int counter, *pointer, table[4], init = 3, *init_p = 0, init_a[2] = {1, 2};
int (*callback)(int);
extern const char *names[];
static int (*hook)(int) = 0, (*(*nested))(void), *(*returns_p)(void);
struct ops { int (*run)(void *, int), (*stop)(void); long (*read)(void); int plain; void *(*dup)(const void *); };

int add(int a, int b);
static inline size_t measure(const struct point *p, point_t q)
{
    struct local { int l; } inner;
    int (*fp)(int) = add;
    size_t n = strlen(p->name);
    p->ops->run(p, q);
    (*fp)(1);
    obj.method(2);
    return helper(n) + MAX(n, 1);
}

#ifdef CONFIG_X
int guarded;
void guarded_fn(void) { call_me(); }
#if DEPTH > 1
extern void (*nested_hook)(int);
#elif DEPTH
int elif_global;
#else
int else_global;
#endif
#endif

void with_local(void)
{
#ifdef DEBUG
    int debug_local = 1;
#endif
}

void broken( { still_called(); }
struct
"#;

    #[test]
    fn walk_yields_the_query_captures() {
        let (walked, queried) = both(SOURCE);
        assert!(!walked.symbols.is_empty() && !walked.refs.is_empty());
        assert_eq!(walked, queried);
        // Function pointers and arrays of pointers are definitions too.
        let kind_of = |name: &str| {
            walked
                .symbols
                .iter()
                .find(|s| s.name == name)
                .map(|s| s.kind.as_str())
        };
        for (name, kind) in [
            ("callback", "variable"),
            ("names", "variable"),
            ("hook", "variable"),
            ("run", "field"),
            ("stop", "field"),
            ("read", "field"),
            ("plain", "field"),
            ("dup", "field"),
            // Globals inside file-level conditionals, at any depth.
            ("guarded", "variable"),
            ("nested_hook", "variable"),
            ("elif_global", "variable"),
            ("else_global", "variable"),
        ] {
            assert_eq!(kind_of(name), Some(kind), "{name}");
        }
        // Not a conditional's local inside a function.
        assert_eq!(kind_of("debug_local"), None);
    }

    #[test]
    fn walk_matches_the_query_on_garbage() {
        for src in [
            "",
            "x",
            "struct",
            "typedef",
            "int a,",
            "f(\n",
            &"f(".repeat(300),
            &"struct s { int a; };\n".repeat(50),
            "typedef int (*(*f))(void);",
            "int a = (int (*)(void)) b;",
        ] {
            let (walked, queried) = both(src);
            assert_eq!(walked, queried, "source: {src:?}");
        }
    }

    #[test]
    fn walk_stands_for_every_pattern_of_the_query() {
        let grammar = crate::lang::grammar(Lang::C).expect("c grammar");
        assert_eq!(grammar.tags_query.pattern_count(), super::PATTERNS);
    }

    /// Compares on every `.c` and `.h` file of `tests/fixtures/c-corpus`, or of the
    /// tree named by `REPO_SEARCH_C_CORPUS=DIR` (e.g. the Linux kernel).
    #[test]
    fn walk_matches_the_query_on_a_corpus() {
        crate::extract::captures::both::on_corpus(
            "REPO_SEARCH_C_CORPUS",
            "tests/fixtures/c-corpus",
            &["c", "h"],
            Lang::C,
        );
    }
}
