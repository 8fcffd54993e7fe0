//! Owns the raw captures of a tags pass, before they are interpreted: what
//! both producers yield — the query engine (`tags`) and Python's cursor
//! walk (`python_tags`) — and `tags` turns into definitions and references.

use tree_sitter::Node;

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
