//! Owns the raw captures of a tags pass, before they are interpreted: what
//! both producers yield — the query engine (`tags`) and the cursor walks
//! that stand for it on the hottest grammars (`python_tags`, `c_tags`) —
//! and `tags` turns into definitions and references.

use std::time::Instant;

use tree_sitter::{Node, Tree, TreeCursor};

/// One `@definition.*` match: the definition node, its `@name` node, the
/// kind suffix and the pattern index in the combined query.
pub(crate) struct RawDef<'t> {
    pub node: Node<'t>,
    pub name: Node<'t>,
    pub suffix: &'static str,
    pub pattern: usize,
}

/// One `@reference.*` match.
pub(crate) struct RawRef<'t> {
    pub name: Node<'t>,
    pub suffix: &'static str,
    pub pattern: usize,
}

/// The captures of one tree: definitions and references.
pub(crate) type RawTags<'t> = (Vec<RawDef<'t>>, Vec<RawRef<'t>>);

/// Nodes visited between two deadline checks.
const DEADLINE_EVERY: u32 = 4096;

/// Calls `visit` on every node of `tree` in pre-order (the order the query
/// engine meets them). `false` when `deadline` passed first.
pub(crate) fn each_node<'t>(
    tree: &'t Tree,
    deadline: Instant,
    mut visit: impl FnMut(Node<'t>),
) -> bool {
    let mut cursor = tree.walk();
    let mut visited: u32 = 0;
    loop {
        visit(cursor.node());
        visited = visited.wrapping_add(1);
        if visited.is_multiple_of(DEADLINE_EVERY) && Instant::now() >= deadline {
            return false;
        }
        if !next_node(&mut cursor) {
            return true;
        }
    }
}

/// Pre-order step; `false` once the walk is back at the root.
fn next_node(cursor: &mut TreeCursor<'_>) -> bool {
    if cursor.goto_first_child() {
        return true;
    }
    loop {
        if cursor.goto_next_sibling() {
            return true;
        }
        if !cursor.goto_parent() {
            return false;
        }
    }
}
