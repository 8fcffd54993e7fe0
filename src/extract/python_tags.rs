//! Owns Python's tags without the query engine: one cursor walk over the
//! tree that yields exactly the captures of Python's tags query (the stock
//! `TAGS_QUERY` plus `queries/python.scm`), with the same pattern indices.
//!
//! Why: on the Django sources the query engine cost a third of the parse
//! time (its per-node bookkeeping, `ts_tree_cursor_current_status`), and a
//! plain walk is several times cheaper. The query stays the definition: the
//! tests run both on the same trees and require identical captures, and a
//! change to either query or walk that breaks the match fails them.

use std::sync::OnceLock;
use std::time::Instant;

use tree_sitter::{Language, Node, Tree};

use super::captures::{RawDef, RawRef, RawTags, each_node};

/// Pattern indices of the combined Python query (stock patterns first).
const P_CONSTANT: usize = 0;
const P_CLASS: usize = 1;
const P_FUNCTION: usize = 2;
const P_CALL: usize = 3;
const P_FIELD: usize = 4;
const P_SUPERCLASS: usize = 5;
const P_DECORATOR_NAME: usize = 6;
const P_DECORATOR_ATTR: usize = 7;
/// How many patterns the walk stands for; checked against the query.
#[cfg(test)]
pub(crate) const PATTERNS: usize = 8;

/// Node kind and field ids of the Python grammar, looked up once.
struct Ids {
    module: u16,
    expression_statement: u16,
    assignment: u16,
    identifier: u16,
    attribute: u16,
    class_definition: u16,
    function_definition: u16,
    call: u16,
    block: u16,
    argument_list: u16,
    decorator: u16,
    f_name: u16,
    f_left: u16,
    f_function: u16,
    f_attribute: u16,
    f_body: u16,
    f_superclasses: u16,
}

fn ids(language: &Language) -> &'static Ids {
    static IDS: OnceLock<Ids> = OnceLock::new();
    IDS.get_or_init(|| {
        let kind = |k: &str| language.id_for_node_kind(k, true);
        let field = |f: &str| language.field_id_for_name(f).map_or(0, |id| id.get());
        Ids {
            module: kind("module"),
            expression_statement: kind("expression_statement"),
            assignment: kind("assignment"),
            identifier: kind("identifier"),
            attribute: kind("attribute"),
            class_definition: kind("class_definition"),
            function_definition: kind("function_definition"),
            call: kind("call"),
            block: kind("block"),
            argument_list: kind("argument_list"),
            decorator: kind("decorator"),
            f_name: field("name"),
            f_left: field("left"),
            f_function: field("function"),
            f_attribute: field("attribute"),
            f_body: field("body"),
            f_superclasses: field("superclasses"),
        }
    })
}

/// The captures of Python's tags query on `tree`. `None` when `deadline`
/// passed first.
pub(crate) fn collect<'t>(
    language: &Language,
    tree: &'t Tree,
    deadline: Instant,
) -> Option<RawTags<'t>> {
    let ids = ids(language);
    let mut w = Walk {
        ids,
        defs: Vec::new(),
        refs: Vec::new(),
    };
    if !each_node(tree, deadline, |node| w.visit(node)) {
        return None;
    }
    Some((w.defs, w.refs))
}

struct Walk<'t> {
    ids: &'static Ids,
    defs: Vec<RawDef<'t>>,
    refs: Vec<RawRef<'t>>,
}

impl<'t> Walk<'t> {
    fn field(&self, node: Node<'t>, field: u16) -> Option<Node<'t>> {
        std::num::NonZeroU16::new(field).and_then(|f| node.child_by_field_id(f.get()))
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

    /// `(X name: (identifier) @name) @definition.kind`
    fn named_def(&mut self, node: Node<'t>, suffix: &'static str, pattern: usize) {
        if let Some(name) = self.field(node, self.ids.f_name)
            && name.kind_id() == self.ids.identifier
        {
            self.def(node, name, suffix, pattern);
        }
    }

    /// `(expression_statement (assignment left: (identifier) @name) @def)`
    /// for each `expression_statement` child of `parent`.
    fn assignments(&mut self, parent: Node<'t>, suffix: &'static str, pattern: usize) {
        let ids = self.ids;
        let mut c = parent.walk();
        for stmt in parent.children(&mut c) {
            if stmt.kind_id() != ids.expression_statement {
                continue;
            }
            let mut c2 = stmt.walk();
            for a in stmt.children(&mut c2) {
                if a.kind_id() == ids.assignment
                    && let Some(left) = self.field(a, ids.f_left)
                    && left.kind_id() == ids.identifier
                {
                    self.def(a, left, suffix, pattern);
                }
            }
        }
    }

    /// `[(identifier) @name (attribute attribute: (identifier) @name)]`
    fn name_or_attribute(&self, node: Node<'t>) -> Option<Node<'t>> {
        let ids = self.ids;
        if node.kind_id() == ids.identifier {
            Some(node)
        } else if node.kind_id() == ids.attribute {
            self.field(node, ids.f_attribute)
                .filter(|a| a.kind_id() == ids.identifier)
        } else {
            None
        }
    }

    fn visit(&mut self, node: Node<'t>) {
        let ids = self.ids;
        let k = node.kind_id();
        if k == ids.call {
            if let Some(f) = self.field(node, ids.f_function)
                && let Some(name) = self.name_or_attribute(f)
            {
                self.reference(name, "call", P_CALL);
            }
        } else if k == ids.module {
            self.assignments(node, "constant", P_CONSTANT);
        } else if k == ids.function_definition {
            self.named_def(node, "function", P_FUNCTION);
        } else if k == ids.class_definition {
            self.named_def(node, "class", P_CLASS);
            if let Some(body) = self.field(node, ids.f_body)
                && body.kind_id() == ids.block
            {
                self.assignments(body, "field", P_FIELD);
            }
            if let Some(args) = self.field(node, ids.f_superclasses)
                && args.kind_id() == ids.argument_list
            {
                let mut c = args.walk();
                for arg in args.children(&mut c) {
                    if let Some(name) = self.name_or_attribute(arg) {
                        self.reference(name, "class", P_SUPERCLASS);
                    }
                }
            }
        } else if k == ids.decorator {
            let mut c = node.walk();
            for child in node.children(&mut c) {
                if child.kind_id() == ids.identifier {
                    self.reference(child, "call", P_DECORATOR_NAME);
                } else if child.kind_id() == ids.attribute
                    && let Some(name) = self.name_or_attribute(child)
                {
                    self.reference(name, "call", P_DECORATOR_ATTR);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::model::{Extracted, Lang};

    fn both(src: &str) -> (Extracted, Extracted) {
        crate::extract::captures::both::extract("m.py", src, Lang::Python)
    }

    /// Every construct the query looks at, nested, decorated, broken.
    const SOURCE: &str = r#"
import os
LIMIT = 10
a = b = 3
x: int = 4
x.y = 5
(p, q) = 1, 2

@register
@admin.display(description="x")
@functools.wraps
class Account(models.Model, mixins.Base, metaclass=Meta):
    name = models.CharField(max_length=10)
    age: int = 0
    other.attr = 1

    class Meta:
        ordering = ["name"]

    @property
    def full(self):
        helper(self.name).strip()
        return os.path.join(self.name, "x")

def outer():
    def inner():
        return call_me()
    obj.method()(1)
    return inner

async def run():
    await fetch(url)
    lambda: go()

if True:
    NESTED = 1
    class InIf(Base): pass

def broken(:
    still_called()
class
"#;

    #[test]
    fn walk_yields_the_query_captures() {
        let (walked, queried) = both(SOURCE);
        assert!(!walked.symbols.is_empty() && !walked.refs.is_empty());
        assert_eq!(walked, queried);
    }

    #[test]
    fn walk_matches_the_query_on_the_fixtures_and_garbage() {
        for src in [
            "",
            "x",
            "def",
            "class A(",
            "@\n",
            "f(\n",
            &"f(".repeat(300),
            &"class A:\n    x = 1\n".repeat(50),
        ] {
            let (walked, queried) = both(src);
            assert_eq!(walked, queried, "source: {src:?}");
        }
    }

    #[test]
    fn walk_stands_for_every_pattern_of_the_query() {
        let grammar = crate::lang::grammar(Lang::Python).expect("python grammar");
        assert_eq!(grammar.tags_query.pattern_count(), super::PATTERNS);
    }

    /// Compares on every `.py` file of `tests/fixtures/python-corpus`, or of
    /// the tree named by `REPO_SEARCH_PY_CORPUS=DIR` (e.g. the Django sources).
    #[test]
    fn walk_matches_the_query_on_a_corpus() {
        crate::extract::captures::both::on_corpus(
            "REPO_SEARCH_PY_CORPUS",
            "tests/fixtures/python-corpus",
            &["py"],
            Lang::Python,
        );
    }
}
