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

/// What the tests of a walk share: the walk's and the query's extractions
/// of the same source, on snippets and on whole corpora.
#[cfg(test)]
pub(crate) mod both {
    use crate::extract::Extractor;
    use crate::extract::tags::FORCE_QUERY;
    use crate::model::{Extracted, Lang};

    /// `src` extracted through the walk, then through the query.
    pub(crate) fn extract(path: &str, src: &str, lang: Lang) -> (Extracted, Extracted) {
        let mut x = Extractor::new();
        let walked = x.extract(path, src, lang).expect("walk");
        FORCE_QUERY.with(|f| f.set(true));
        let queried = x.extract(path, src, lang);
        FORCE_QUERY.with(|f| f.set(false));
        (walked, queried.expect("query"))
    }

    /// Requires identical extractions on every file with one of `exts`
    /// under the directory `env` names, else under `fixtures`.
    pub(crate) fn on_corpus(env: &str, fixtures: &str, exts: &[&str], lang: Lang) {
        let dir = std::env::var_os(env)
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(fixtures));
        let mut n = 0;
        for entry in ignore::WalkBuilder::new(&dir).build().flatten() {
            let path = entry.path();
            if path
                .extension()
                .and_then(|e| e.to_str())
                .is_none_or(|e| !exts.contains(&e))
            {
                continue;
            }
            let Ok(src) = std::fs::read_to_string(path) else {
                continue;
            };
            let (walked, queried) = extract(&path.to_string_lossy(), &src, lang);
            assert_eq!(walked, queried, "{}", path.display());
            n += 1;
        }
        eprintln!("compared {n} files in {}", dir.display());
        assert!(n > 0, "no {exts:?} file in {}", dir.display());
    }
}
