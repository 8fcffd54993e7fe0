//! Owns extraction: `(path, text, language) -> (symbols, references,
//! chunks, imports)` for one file. Does not read files, detect languages (that is
//! `lang`'s job) or store anything (that is `store`'s job).
//!
//! **Invariant**: extraction is pure and total: no I/O, no panics on any
//! input (garbage, empty files, 10k-deep nesting, megabyte-long lines); the
//! only failures are a parse that tree-sitter gives up on, returned as an
//! [`ExtractError`] for the indexer to record as a skip reason.
//!
//! Code without a grammar gets its definitions from a line heuristic
//! (`fallback`) for the languages it knows, and no references.
//!
//! One parse per file: the tags query (`lang::grammar`) runs on our own tree
//! (`tags`), and the same definitions drive the chunker (`chunk`). An
//! [`Extractor`] is per thread and reused across files, so parsers and query
//! cursors are allocated once; the compiled grammars and queries are shared.

mod c_tags;
mod captures;
mod chunk;
mod fallback;
mod imports;
mod lang_rules;
mod lines;
mod python_tags;
mod tags;
#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::ops::ControlFlow;
use std::time::{Duration, Instant};

use tree_sitter::{ParseOptions, ParseState, Parser, QueryCursor, Tree};

use crate::lang::{self, Grammar};
use crate::model::{Extracted, Lang};
use chunk::DocStyle;
pub(crate) use imports::{supported_names as import_languages, supports as reads_imports};
pub(crate) use lang_rules::is_macro_name;
use lines::Lines;
pub(crate) use tags::{is_go_predeclared_type, path_separator, truncate_signature};

/// How long one file may take to parse and query by default.
pub const DEFAULT_PARSE_TIMEOUT: Duration = Duration::from_secs(10);

/// A file whose average line is longer than this many bytes, or with any
/// line longer than [`MINIFIED_MAX_LINE`], is treated as minified: symbols
/// and references are still extracted, but chunks are plain byte-bounded
/// windows (symbol-aligned chunks of one giant line would repeat it).
const MINIFIED_AVG_LINE: usize = 500;
const MINIFIED_MAX_LINE: usize = 16 * 1024;

/// A file of at least this many bytes and [`DATA_MIN_LINES`] non-blank
/// lines, at least [`DATA_SHARE_PCT`] percent of them data (a `#define`, or a line with
/// three or more numbers) is a register map or a data table (on the Linux
/// kernel, 490 such files hold 115 MiB: AMD's register headers, firmware
/// and test vector tables): its symbols and references are extracted, but
/// only its first chunk (its head, which says what the table is) is kept
/// for full-text and semantic search, where a million near-identical
/// `#define` lines only crowd out code (keyword and symbol search still
/// find every line).
const DATA_MIN_BYTES: usize = 32 * 1024;
const DATA_SHARE_PCT: usize = 80;
const DATA_MIN_LINES: usize = 200;

/// Why a file could not be extracted; shown after `parse failure: `.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExtractError {
    /// The grammar could not be loaded into the parser (a tree-sitter ABI
    /// mismatch: a build problem, not a problem of the file).
    #[error("the {lang} grammar cannot be loaded: {message}")]
    Grammar { lang: &'static str, message: String },
    /// Parsing or querying took longer than the extractor's time budget.
    #[error("tree-sitter gave up on this {lang} file after {timeout:?}")]
    TimedOut {
        lang: &'static str,
        timeout: Duration,
    },
    /// tree-sitter returned no tree without running out of time.
    #[error("tree-sitter returned no syntax tree for this {lang} file")]
    NoTree { lang: &'static str },
}

/// Extracts files one after another; one per thread. Holds the parser and
/// query cursor that are reused across files.
pub struct Extractor {
    parser: Parser,
    cursor: QueryCursor,
    /// The grammar the parser is currently set to (by address: OCaml has
    /// two, one per dialect, for one language).
    current: Option<&'static Grammar>,
    timeout: Duration,
}

impl Default for Extractor {
    fn default() -> Self {
        Extractor::new()
    }
}

impl Extractor {
    pub fn new() -> Extractor {
        Extractor {
            parser: Parser::new(),
            cursor: QueryCursor::new(),
            current: None,
            timeout: DEFAULT_PARSE_TIMEOUT,
        }
    }

    /// Sets the time budget for parsing and querying one file.
    pub fn with_timeout(mut self, timeout: Duration) -> Extractor {
        self.timeout = timeout;
        self
    }

    /// Symbols, references and chunks of one file. `path` is only used to
    /// pick the heading style of docs (`.md`, `.rst`, ...) and the line
    /// heuristic of code without a grammar (`.pl`, `.dart`, ...).
    pub fn extract(
        &mut self,
        path: &str,
        source: &str,
        lang: Lang,
    ) -> Result<Extracted, ExtractError> {
        let lines = Lines::new(source);
        let mut out = Extracted {
            generated: crate::model::Generated::of(source),
            ..Extracted::default()
        };
        let pieces = match lang::grammar_for_path(lang, path) {
            None if lang == Lang::Docs => chunk::chunk_docs(&lines, DocStyle::for_path(path)),
            None if fallback::covers(path, source) => {
                let defs = fallback::defs(path, source, &lines);
                let tags = tags::Tags {
                    defs,
                    refs: Vec::new(),
                };
                out.symbols = tags.symbols();
                if is_minified(&lines) || tags.defs.is_empty() {
                    chunk::chunk_plain(&lines)
                } else {
                    chunk::chunk_code(&lines, &tags.defs, &[])
                }
            }
            None => chunk::chunk_plain(&lines),
            Some(grammar) => {
                let deadline = Instant::now() + self.timeout;
                let component = lang == Lang::JavaScript && lang::is_component(path);
                // A component's scripts may be TypeScript: read with that
                // grammar, a superset of JavaScript's.
                // (Looked up only for components: the first lookup builds
                // the grammar and its query, which a C tree never needs.)
                let (grammar, lang) = match component.then(|| lang::grammar(Lang::TypeScript)) {
                    Some(Some(ts)) => (ts, Lang::TypeScript),
                    _ => (grammar, lang),
                };
                let parse_text = if lang == Lang::ObjC {
                    lang_rules::objc_parse_text(source)
                } else if component {
                    lang_rules::component_script_text(source)
                } else if matches!(lang, Lang::C | Lang::Cpp) {
                    let attributed = lang_rules::attribute_lines(source);
                    let text = attributed.as_deref().unwrap_or(source);
                    match lang_rules::thread_annotations(text).or(attributed) {
                        Some(t) => Cow::Owned(t),
                        None => Cow::Borrowed(source),
                    }
                } else {
                    Cow::Borrowed(source)
                };
                let stem = crate::search::file_stem(path);
                let (mut tree, mut tags) =
                    self.read(grammar, &parse_text, &lines, stem, deadline)?;
                // A file the grammar could not read (or, in Kotlin and
                // Rust, read without error but lost definitions in) may
                // read better another way
                // (`lang_rules::second_reading`), kept when that finds more
                // definitions, or as many with fewer errors in its tree (an
                // unbalanced `#else` brace can leave every definition found
                // but nested in the function it opened, whose span then
                // runs to the end of the file).
                let mut read_text = parse_text;
                if let Some(text) = lang_rules::second_reading(lang, &read_text, &tree) {
                    let (again, found) = self.read(grammar, &text, &lines, stem, deadline)?;
                    if found.defs.len() > tags.defs.len()
                        || (found.defs.len() == tags.defs.len()
                            && error_nodes(&again) < error_nodes(&tree))
                    {
                        (tree, tags, read_text) = (again, found, Cow::Owned(text));
                    }
                }
                // C and C++ still misread: a project's specifier macros
                // where the grammar expects none (`…) SPDLOG_NOEXCEPT {`,
                // `SPDLOG_INLINE logger::logger(…) : name_(…)`) blanked,
                // kept when that leaves fewer errors and loses no function
                // (the misread's bogus variables may outnumber what it
                // lost, so the count of all definitions cannot judge it).
                if matches!(lang, Lang::C | Lang::Cpp | Lang::ObjC)
                    && tree.root_node().has_error()
                    && let Some(text) = lang_rules::specifier_macros(&read_text)
                {
                    let (again, found) = self.read(grammar, &text, &lines, stem, deadline)?;
                    // Functions whose own node holds no error: the misread's
                    // bogus ones (a constructor's member initializers read as
                    // function declarators, `base_filename_(…)`) sit in a
                    // broken declaration and do not count.
                    let callables = |t: &tags::Tags, tree: &Tree| {
                        t.defs
                            .iter()
                            .filter(|d| d.callable != tags::Callable::No)
                            .filter(|d| {
                                tree.root_node()
                                    .descendant_for_byte_range(d.start_byte, d.end_byte)
                                    .is_some_and(|n| !n.has_error())
                            })
                            .count()
                    };
                    if error_nodes(&again) < error_nodes(&tree)
                        && callables(&found, &again) >= callables(&tags, &tree)
                    {
                        (tree, tags) = (again, found);
                    }
                }
                out.symbols = tags.symbols();
                let pieces = if is_minified(&lines) {
                    chunk::chunk_plain(&lines)
                } else {
                    chunk::chunk_code(&lines, &tags.defs, tags::doc_prefixes(lang))
                };
                out.refs = tags.refs;
                out.imports = imports::collect(lang, &grammar.language, &tree, source);
                pieces
            }
        };
        out.chunks = chunk::finish(&lines, pieces);
        if is_data_table(&lines) {
            out.chunks.truncate(1);
        }
        Ok(out)
    }

    /// Parses `text` (the file's text or another reading of it, same
    /// offsets and lines) and collects its definitions and references.
    fn read(
        &mut self,
        grammar: &'static Grammar,
        text: &str,
        lines: &Lines<'_>,
        stem: &str,
        deadline: Instant,
    ) -> Result<(Tree, tags::Tags), ExtractError> {
        let tree = self.parse(grammar, text, deadline)?;
        let tags = tags::collect(grammar, &tree, lines, stem, &mut self.cursor, deadline).ok_or(
            ExtractError::TimedOut {
                lang: grammar.lang.name(),
                timeout: self.timeout,
            },
        )?;
        Ok((tree, tags))
    }

    fn parse(
        &mut self,
        grammar: &'static Grammar,
        source: &str,
        deadline: Instant,
    ) -> Result<Tree, ExtractError> {
        let name = grammar.lang.name();
        if !self.current.is_some_and(|g| std::ptr::eq(g, grammar)) {
            self.current = None;
            self.parser
                .set_language(&grammar.language)
                .map_err(|e| ExtractError::Grammar {
                    lang: name,
                    message: e.to_string(),
                })?;
            self.current = Some(grammar);
        }
        let bytes = source.as_bytes();
        let mut timed_out = false;
        let mut progress = |_: &ParseState| {
            if Instant::now() >= deadline {
                timed_out = true;
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = ParseOptions::new().progress_callback(&mut progress);
        let tree = self.parser.parse_with_options(
            &mut |i, _| bytes.get(i..).unwrap_or_default(),
            None,
            Some(options),
        );
        match tree {
            Some(tree) => Ok(tree),
            None => {
                // A cancelled parse would otherwise resume on the next call.
                self.parser.reset();
                if timed_out {
                    Err(ExtractError::TimedOut {
                        lang: name,
                        timeout: self.timeout,
                    })
                } else {
                    Err(ExtractError::NoTree { lang: name })
                }
            }
        }
    }
}

/// See [`DATA_MIN_BYTES`].
fn is_data_table(lines: &Lines<'_>) -> bool {
    if lines.src().len() < DATA_MIN_BYTES {
        return false;
    }
    let (mut data, mut total) = (0usize, 0usize);
    for i in 0..lines.count() {
        if lines.is_blank(i) {
            continue;
        }
        total += 1;
        let line = lines.line(i).trim_start();
        if line.starts_with("#define") || numbers_in(line, 3) >= 3 {
            data += 1;
        }
    }
    // Many lines: one minified line of code holds numbers too.
    total >= DATA_MIN_LINES && data * 100 >= total * DATA_SHARE_PCT
}

/// Numeric literals in `line` (tokens starting with a digit: `12`, `0x1f`,
/// `1.5e3`), counted up to `max`.
fn numbers_in(line: &str, max: usize) -> usize {
    let bytes = line.as_bytes();
    let (mut n, mut i) = (0, 0);
    while i < bytes.len() && n < max {
        let b = bytes[i];
        let starts_token =
            i == 0 || !(bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if starts_token && b.is_ascii_digit() {
            n += 1;
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    n
}

fn is_minified(lines: &Lines<'_>) -> bool {
    let n = lines.count();
    n > 0 && (lines.src().len() / n > MINIFIED_AVG_LINE || lines.max_len() > MINIFIED_MAX_LINE)
}

/// How many error and missing nodes `tree` has (only subtrees with an
/// error are walked).
fn error_nodes(tree: &Tree) -> usize {
    let mut count = 0;
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        if node.is_error() || node.is_missing() {
            count += 1;
        }
        if node.has_error() {
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
    }
    count
}
