//! Owns definitions for code without a grammar here ([`Lang::OtherCode`]):
//! a per-language line heuristic, picked by file extension, that
//! recognises the lines opening a definition (`sub foo`, `foo <- function`,
//! `proc foo*`, `message Foo`, …) so that symbol queries and chunk
//! boundaries still work. Does not find references, and does not parse.
//!
//! It is deliberately small and honest: one keyword table per language, a
//! definition opens on its keyword line and ends where the indentation
//! returns to its level (a closing `}`, `end` or `)` at that level is
//! included). Definitions inside strings or comments, multi-line
//! signatures and unindented bodies fool it; languages not listed here
//! keep plain line-window chunks.
//!
//! Covered: Perl, Dart, Nim, Protocol Buffers,
//! SQL (`CREATE …`), fish, the Lisps (Clojure, Emacs Lisp, Scheme, Racket,
//! Common Lisp: top-level `(def… name` forms), Groovy, Solidity, Crystal,
//! Elm, PowerShell, Tcl, Starlark (Bazel), GraphQL and Thrift.

use super::lines::Lines;
use super::tags::{Callable, Def};

/// A definition spans at most this many lines after its first.
const MAX_SPAN_LINES: usize = 5000;

/// A language the heuristic knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    Perl,
    Dart,
    Nim,
    Proto,
    Sql,
    Fish,
    Lisp,
    Groovy,
    Solidity,
    Crystal,
    Elm,
    PowerShell,
    Tcl,
    Starlark,
    GraphQl,
    Thrift,
}

impl Dialect {
    /// The dialect of a file by its extension (`.pl`, `.tcl`), or for an
    /// extension-less script by its first lines (`#!/usr/bin/perl`, gitk's
    /// `exec wish`).
    fn for_file(path: &str, source: &str) -> Option<Dialect> {
        let name = match crate::lang::heuristic_lang(path) {
            Some(name) => name,
            None if crate::lang::may_be_script(std::path::Path::new(path)) => {
                let head = &source.as_bytes()[..source.len().min(crate::lang::SCRIPT_HEAD_BYTES)];
                crate::lang::script_heuristic_lang(head)?
            }
            None => return None,
        };
        Some(match name {
            "perl" => Dialect::Perl,
            "dart" => Dialect::Dart,
            "nim" => Dialect::Nim,
            "proto" => Dialect::Proto,
            "sql" => Dialect::Sql,
            "fish" => Dialect::Fish,
            "clojure" | "elisp" | "scheme" | "racket" | "commonlisp" => Dialect::Lisp,
            "groovy" => Dialect::Groovy,
            "solidity" => Dialect::Solidity,
            "crystal" => Dialect::Crystal,
            "elm" => Dialect::Elm,
            "powershell" => Dialect::PowerShell,
            "tcl" => Dialect::Tcl,
            "starlark" => Dialect::Starlark,
            "graphql" => Dialect::GraphQl,
            "thrift" => Dialect::Thrift,
            _ => return None,
        })
    }

    fn comment_prefixes(self) -> &'static [&'static str] {
        match self {
            Dialect::Perl
            | Dialect::Nim
            | Dialect::Fish
            | Dialect::Crystal
            | Dialect::PowerShell
            | Dialect::Tcl
            | Dialect::Starlark
            | Dialect::GraphQl => &["#"],
            Dialect::Dart
            | Dialect::Proto
            | Dialect::Groovy
            | Dialect::Solidity
            | Dialect::Thrift => &["//", "/*", "*", "@"],
            Dialect::Lisp => &[";"],
            Dialect::Elm => &["--", "{-", "-}"],
            Dialect::Sql => &["--", "/*", "*"],
        }
    }
}

/// Whether the heuristic covers the file at `path` holding `source`.
pub(crate) fn covers(path: &str, source: &str) -> bool {
    Dialect::for_file(path, source).is_some()
}

/// What a definition line says: kind, whether it is callable, and the byte
/// range of the name within the line.
struct LineDef {
    kind: &'static str,
    callable: Callable,
    name: (usize, usize),
}

/// The definitions of a file in a covered language, sorted and with
/// containers (see `tags::finish_line_defs`); empty for other files.
pub(crate) fn defs(path: &str, source: &str, lines: &Lines<'_>) -> Vec<Def> {
    let Some(dialect) = Dialect::for_file(path, source) else {
        return Vec::new();
    };
    let n = lines.count();
    // Measured once: span scans visit a line once per open definition.
    let indents: Vec<Option<usize>> = (0..n)
        .map(|r| {
            let line = lines.line(r);
            (!line.trim().is_empty()).then(|| indent_of(line))
        })
        .collect();
    let lisp_ends = (dialect == Dialect::Lisp).then(|| lisp_form_ends(lines));
    let mut defs: Vec<Def> = Vec::new();
    let mut section = NimSection::default();
    for row in 0..n {
        let line = lines.line(row);
        let found = match_line(dialect, line);
        let found = if dialect == Dialect::Nim {
            section.read(line, found)
        } else {
            found
        };
        let Some(found) = found else {
            continue;
        };
        let Some(name) = line.get(found.name.0..found.name.1) else {
            continue;
        };
        if name.is_empty() {
            continue;
        }
        let indent = indent_of(line);
        // An Elm value is its signature line and then its equation: one
        // definition.
        if dialect == Dialect::Elm
            && let Some(last) = defs.last_mut()
            && last.name == name
            && last.kind == "function"
        {
            last.end_row = end_row(lines, &indents, row, indent);
            last.end_byte = lines.range(last.end_row).1;
            continue;
        }
        // A Lisp form ends at its balanced closing parenthesis: docstrings
        // continue at column 0.
        let end = lisp_ends
            .as_ref()
            .and_then(|ends| ends.get(row).copied().flatten())
            .unwrap_or_else(|| end_row(lines, &indents, row, indent));
        let doc = doc_start(lines, row, dialect.comment_prefixes());
        defs.push(Def::from_line(
            lines,
            name,
            found.kind,
            found.callable,
            (row, end),
            found.name.0,
            doc,
        ));
    }
    super::tags::finish_line_defs(&mut defs);
    defs
}

/// A Nim `type` or `const` section being read: the names it declares one
/// per line at its members' indentation (`CaptIdx* = int32`, `Bounds* =
/// Slice[int]`, `MaxSubpatterns = 10`) are definitions too, beside the
/// `object`/`enum`/`tuple` types [`match_line`] finds on any line.
#[derive(Default)]
struct NimSection {
    /// The section's kind and the indentation of its keyword.
    open: Option<(&'static str, usize)>,
    /// The indentation of its first member.
    members: Option<usize>,
}

impl NimSection {
    /// Reads one line: `found` (what [`match_line`] made of it), or the
    /// section member the line declares.
    fn read(&mut self, line: &str, found: Option<LineDef>) -> Option<LineDef> {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            return found;
        }
        let at = indent_of(line);
        if let Some((_, open_at)) = self.open
            && at <= open_at
        {
            *self = NimSection::default();
        }
        // `type  # the widgets` opens a section too.
        let head = t.split('#').next().unwrap_or(t).trim_end();
        for (word, kind) in [("type", "type"), ("const", "constant")] {
            if head == word {
                *self = NimSection {
                    open: Some((kind, at)),
                    members: None,
                };
                return found;
            }
            // `type Foo = int` and `const N = 3` on one line; `type Shape
            // = ref object` is a class as in a section.
            if let Some(p) = keyword(line, at, word)
                && found.is_none()
            {
                if let Some(mut d) = match_line(Dialect::Nim, &line[p..]) {
                    d.name = (d.name.0 + p, d.name.1 + p);
                    return Some(d);
                }
                return nim_member(line, p, kind);
            }
        }
        let Some((kind, _)) = self.open else {
            return found;
        };
        let members = *self.members.get_or_insert(at);
        if found.is_some() || at != members {
            return found;
        }
        nim_member(line, at, kind)
    }
}

/// `Name`, an optional export mark, pragma and generic parameters, then
/// `=`: a section member named at `at`.
fn nim_member(line: &str, at: usize, kind: &'static str) -> Option<LineDef> {
    def(kind, nim_assignment(line, at)?.0)
}

/// A Nim declaration `Name*[T] {.pragma.} = value` at `at`: the name's
/// span and the text after `=` (not `==`), trimmed. The export mark,
/// generic parameters and a pragma are optional.
fn nim_assignment(line: &str, at: usize) -> Option<((usize, usize), &str)> {
    let name = ident(line, at, &[])?;
    let mut rest = line[name.1..].trim_start_matches('*').trim_start();
    loop {
        if rest.starts_with("{.") {
            rest = rest[rest.find(".}")? + 2..].trim_start();
        } else if rest.starts_with('[') {
            rest = rest[rest.find(']')? + 1..].trim_start();
        } else {
            break;
        }
    }
    let value = rest.strip_prefix('=')?;
    (!value.starts_with('=')).then_some((name, value.trim_start()))
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The last row of a definition opened at `row`: the indented lines after
/// it, plus a closing line at its own level (`}`, `end`, `);`, or a lone `{`
/// that opens the body on the next line).
fn end_row(lines: &Lines<'_>, indents: &[Option<usize>], row: usize, indent: usize) -> usize {
    let mut end = row;
    let mut r = row + 1;
    // Bounded, so a staircase of ever deeper definitions stays cheap.
    let last = indents.len().min(row + 1 + MAX_SPAN_LINES);
    while r < last {
        let Some(line_indent) = indents[r] else {
            r += 1;
            continue;
        };
        if line_indent > indent {
            end = r;
            r += 1;
            continue;
        }
        // Only lines back at the definition's level are looked at.
        let t = lines.line(r).trim();
        if t == "{" && end == row && r == row + 1 {
            end = r;
            r += 1;
            continue;
        }
        if line_indent == indent && is_closer(t) {
            end = r;
        }
        break;
    }
    end
}

fn is_closer(t: &str) -> bool {
    let word_end = |rest: &str| !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_');
    t.starts_with('}') || t.starts_with(')') || t.strip_prefix("end").is_some_and(word_end)
}

fn doc_start(lines: &Lines<'_>, row: usize, prefixes: &[&str]) -> usize {
    let mut r = row;
    while r > 0 && row - r < 200 {
        let above = lines.line(r - 1).trim_start();
        if above.is_empty() || !prefixes.iter().any(|p| above.starts_with(p)) {
            break;
        }
        r -= 1;
    }
    r
}

/// The part of the name at `name` (byte range in `line`) after its last
/// `sep` (`Base.show` → `show`, `::acme::render` → `render`); the whole
/// name when it has none.
fn last_part(line: &str, name: (usize, usize), sep: &str) -> (usize, usize) {
    let (s, e) = name;
    let s = line[s..e].rfind(sep).map_or(s, |i| s + i + sep.len());
    (s, e)
}

/// Where the text after the keyword `word` (at byte `at`, followed by at
/// least one space) starts in the line.
fn keyword(line: &str, at: usize, word: &str) -> Option<usize> {
    let rest = line.get(at..)?.strip_prefix(word)?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    Some(line.len() - rest.trim_start().len())
}

/// Like [`keyword`], case-insensitive (SQL).
fn keyword_nocase(line: &str, at: usize, word: &str) -> Option<usize> {
    let rest = line.get(at..)?;
    let head = rest.get(..word.len())?;
    if !head.eq_ignore_ascii_case(word) {
        return None;
    }
    let after = &rest[word.len()..];
    if !after.starts_with([' ', '\t', '(']) {
        return None;
    }
    Some(line.len() - after.trim_start().len())
}

/// The identifier starting at `at` (letters, digits, `_`, and `extra`),
/// not starting with a digit.
fn ident(line: &str, at: usize, extra: &[char]) -> Option<(usize, usize)> {
    let rest = line.get(at..)?;
    let len = rest
        .char_indices()
        .find(|&(_, c)| !(c.is_alphanumeric() || c == '_' || extra.contains(&c)))
        .map_or(rest.len(), |(i, _)| i);
    let first = rest.chars().next()?;
    (len > 0 && !first.is_ascii_digit()).then_some((at, at + len))
}

/// The first of `words` that opens the (trimmed) line, and where the text
/// after it starts.
fn any_keyword(line: &str, at: usize, words: &[&'static str]) -> Option<(&'static str, usize)> {
    words
        .iter()
        .find_map(|w| keyword(line, at, w).map(|p| (*w, p)))
}

fn def(kind: &'static str, name: (usize, usize)) -> Option<LineDef> {
    let callable = if matches!(kind, "function" | "method") {
        Callable::Function
    } else {
        Callable::No
    };
    Some(LineDef {
        kind,
        callable,
        name,
    })
}

fn match_line(dialect: Dialect, line: &str) -> Option<LineDef> {
    let at = indent_of(line);
    match dialect {
        Dialect::Perl => {
            if let Some(p) = keyword(line, at, "sub") {
                return def("function", ident(line, p, &[':'])?);
            }
            let p = keyword(line, at, "package")?;
            def("module", ident(line, p, &[':'])?)
        }
        Dialect::Dart => dart_line(line, at),
        Dialect::Nim => {
            if let Some((_, p)) = any_keyword(
                line,
                at,
                &[
                    "proc",
                    "func",
                    "method",
                    "iterator",
                    "template",
                    "macro",
                    "converter",
                ],
            ) {
                let p = p + usize::from(line[p..].starts_with('`'));
                return def("function", ident(line, p, &[])?);
            }
            // `Foo* = object`, `Color {.pure.} = enum` in a type section.
            let (name, rest) = nim_assignment(line, at)?;
            let rest = rest
                .strip_prefix("ref ")
                .or_else(|| rest.strip_prefix("ptr "))
                .unwrap_or(rest)
                .trim_start();
            let kind = [
                ("object", "class"),
                ("enum", "enum"),
                ("tuple", "struct"),
                ("concept", "interface"),
                ("distinct", "type"),
            ]
            .into_iter()
            .find(|(w, _)| rest.starts_with(w))?
            .1;
            def(kind, name)
        }
        Dialect::Proto => {
            let (word, p) =
                any_keyword(line, at, &["message", "enum", "service", "rpc", "extend"])?;
            let kind = match word {
                "message" => "struct",
                "enum" => "enum",
                "service" => "interface",
                "rpc" => "method",
                _ => "impl",
            };
            def(kind, ident(line, p, &['.'])?)
        }
        Dialect::Sql => sql_line(line, at),
        Dialect::Fish => def(
            "function",
            ident(line, keyword(line, at, "function")?, &['-', ':'])?,
        ),
        Dialect::Lisp => lisp_line(line, at),
        Dialect::Groovy => groovy_line(line, at),
        Dialect::Solidity => solidity_line(line, at),
        Dialect::Crystal => {
            let mut p = at;
            for modifier in ["private", "protected", "abstract"] {
                p = keyword(line, p, modifier).unwrap_or(p);
            }
            let (word, p) = any_keyword(
                line,
                p,
                &[
                    "def",
                    "macro",
                    "class",
                    "struct",
                    "module",
                    "enum",
                    "lib",
                    "annotation",
                ],
            )?;
            let kind = match word {
                "def" => "function",
                "macro" => "macro",
                "class" => "class",
                "struct" => "struct",
                "enum" => "enum",
                _ => "module",
            };
            // `def self.build`, `class Foo::Bar`: the last part.
            let p = line[p..].strip_prefix("self.").map_or(p, |_| p + 5);
            def(
                kind,
                last_part(line, ident(line, p, &[':', '?', '!', '='])?, ":"),
            )
        }
        Dialect::Elm => {
            // Top-level declarations only: `module`, `type [alias]`, and a
            // value's `name : Type` signature or `name args =` definition.
            if at > 0 {
                return None;
            }
            if let Some(p) = keyword(line, 0, "port").and_then(|p| keyword(line, p, "module")) {
                return def("module", ident(line, p, &['.'])?);
            }
            if let Some(p) = keyword(line, 0, "module") {
                return def("module", ident(line, p, &['.'])?);
            }
            if let Some(p) = keyword(line, 0, "type") {
                let p = keyword(line, p, "alias").unwrap_or(p);
                return def("type", ident(line, p, &[])?);
            }
            let name = ident(line, 0, &['\''])?;
            if !line.starts_with(|c: char| c.is_ascii_lowercase()) {
                return None;
            }
            let rest = line[name.1..].trim_start();
            if rest.starts_with(':') || (rest.contains('=') && !rest.contains("==")) {
                def("function", name)
            } else {
                None
            }
        }
        Dialect::PowerShell => {
            let (word, p) = ["function", "filter", "workflow", "class", "enum"]
                .into_iter()
                .find_map(|w| keyword_nocase(line, at, w).map(|p| (w, p)))?;
            let kind = match word {
                "class" => "class",
                "enum" => "enum",
                _ => "function",
            };
            // `function global:Get-Thing`: the name after the scope.
            def(kind, last_part(line, ident(line, p, &['-', ':'])?, ":"))
        }
        Dialect::Tcl => {
            // `proc ::acme::render`, `namespace eval ::acme`: the last part.
            let (kind, p) = match keyword(line, at, "proc") {
                Some(p) => ("function", p),
                None => (
                    "module",
                    keyword(line, keyword(line, at, "namespace")?, "eval")?,
                ),
            };
            def(kind, last_part(line, ident(line, p, &[':'])?, "::"))
        }
        Dialect::Starlark => def("function", ident(line, keyword(line, at, "def")?, &[])?),
        Dialect::GraphQl => {
            let p = keyword(line, at, "extend").unwrap_or(at);
            let (word, p) = any_keyword(
                line,
                p,
                &[
                    "type",
                    "interface",
                    "enum",
                    "input",
                    "union",
                    "scalar",
                    "query",
                    "mutation",
                    "subscription",
                    "fragment",
                    "directive",
                ],
            )?;
            let kind = match word {
                "type" | "input" => "struct",
                "interface" => "interface",
                "enum" => "enum",
                "union" | "scalar" => "type",
                _ => "function",
            };
            let p = p + usize::from(line[p..].starts_with('@'));
            def(kind, ident(line, p, &[])?)
        }
        Dialect::Thrift => {
            let (word, p) = any_keyword(
                line,
                at,
                &[
                    "struct",
                    "union",
                    "exception",
                    "service",
                    "enum",
                    "typedef",
                    "const",
                ],
            )?;
            let kind = match word {
                "service" => "interface",
                "enum" => "enum",
                "typedef" => "type",
                "const" => "constant",
                _ => "struct",
            };
            // `typedef i64 Timestamp`, `const i32 MAX = 3`: the name after the type.
            let p = if matches!(word, "typedef" | "const") {
                let ty = line[p..].find([' ', '\t']).map(|i| p + i)?;
                line.len() - line[ty..].trim_start().len()
            } else {
                p
            };
            def(kind, ident(line, p, &[])?)
        }
    }
}

/// The Lisps: a top-level form whose head defines (`defn`, `defun`,
/// `defmacro`, `cl-defmethod`, `define-minor-mode`, `defrecord`, …) names
/// its second element: a symbol, `(name args…)` (Scheme's `define`), or a
/// symbol after metadata (`^:private`, `^String`).
fn lisp_line(line: &str, at: usize) -> Option<LineDef> {
    if at > 0 {
        return None;
    }
    let rest = line.strip_prefix('(')?;
    let head_len = rest
        .find(|c: char| c.is_whitespace() || c == '(' || c == ')')
        .unwrap_or(rest.len());
    let head = &rest[..head_len];
    // `defn`, `defun`, `cl-defun`, `define`, `define-minor-mode`,
    // `transient-define-prefix`, Racket's `define/contract`, a namespaced
    // `s/def`; not `default-…`, `defer`, nor Emacs Lisp's `define-key`,
    // which binds a key in the keymap it names.
    let defining = |w: &str| {
        !matches!(w, "default" | "defer" | "define-key")
            && (w.starts_with("def") || w.contains("-def"))
    };
    let word = if defining(head) {
        head
    } else {
        head.rsplit('/').next().unwrap_or(head)
    };
    if !defining(word) {
        return None;
    }
    let last = word.rsplit('-').next().unwrap_or(word);
    let lower = word.to_ascii_lowercase();
    let kind = if lower.contains("macro") || lower.contains("syntax") {
        "macro"
    } else if lower.contains("record")
        || lower.contains("type")
        || lower.contains("struct")
        || lower.contains("class")
    {
        "class"
    } else if lower.contains("protocol") || lower.contains("interface") {
        "interface"
    } else if matches!(lower.as_str(), "defpackage" | "define-module" | "defns") {
        "module"
    } else if matches!(
        lower.as_str(),
        "def"
            | "defonce"
            | "defvar"
            | "defparameter"
            | "defconst"
            | "defconstant"
            | "defcustom"
            | "defface"
            | "defgroup"
            | "defvar-local"
            | "defalias"
    ) {
        "variable"
    } else if last == "mode"
        || lower.contains("fun")
        || lower.contains("method")
        || lower.starts_with("defn")
        || lower.contains("generic")
        || lower.contains("multi")
        || lower.contains("subst")
        || lower.contains("command")
        || lower.contains("prefix")
        || lower.contains("suffix")
        || lower.contains("infix")
        || lower.contains("advice")
        || lower.contains("test")
    {
        "function"
    } else {
        "variable"
    };
    let mut p = 1 + head_len;
    // Scheme's `(define (name args) …)` is a function whatever its head.
    let mut parenthesized = false;
    loop {
        p += line[p..].len() - line[p..].trim_start().len();
        let here = &line[p..];
        if here.starts_with("^{") {
            p += here.find('}')? + 1;
        } else if here.starts_with('^') {
            p += here.find(char::is_whitespace)?;
        } else if here.starts_with("#'") {
            p += 2;
        } else if here.starts_with('\'') || here.starts_with('(') {
            parenthesized |= here.starts_with('(');
            p += 1;
        } else {
            break;
        }
    }
    let name = ident(line, p, LISP_SYMBOL_CHARS)?;
    def(
        if parenthesized && kind == "variable" {
            "function"
        } else {
            kind
        },
        name,
    )
}

/// For each row that opens a top-level form, the row where it closes:
/// brackets counted outside strings, `;` comments and escaped characters
/// (`\(` in Clojure, `?\(` and `?(` in Emacs Lisp), in one pass over the
/// file (a stray quote cannot make each definition scan to the end).
/// `None` for the other rows and for a form that never closes.
fn lisp_form_ends(lines: &Lines<'_>) -> Vec<Option<usize>> {
    let n = lines.count();
    let mut ends = vec![None; n];
    let mut depth = 0usize;
    let mut in_string = false;
    let mut opened = 0usize;
    for r in 0..n {
        let mut chars = lines.line(r).chars();
        let mut prev = ' ';
        while let Some(c) = chars.next() {
            if in_string {
                match c {
                    '\\' => {
                        chars.next();
                    }
                    '"' => in_string = false,
                    _ => {}
                }
                prev = c;
                continue;
            }
            match c {
                '\\' => {
                    chars.next();
                }
                '?' if prev.is_whitespace() || matches!(prev, '(' | '[') => {
                    // Emacs Lisp's character literal: `?(`, `?\)`.
                    let literal = chars.next();
                    if literal == Some('\\') {
                        chars.next();
                    }
                }
                ';' => break,
                '"' => in_string = true,
                '(' | '[' | '{' => {
                    if depth == 0 {
                        opened = r;
                    }
                    depth += 1;
                }
                ')' | ']' | '}' if depth > 0 => {
                    depth -= 1;
                    if depth == 0 {
                        ends[opened] = Some(r);
                    }
                }
                _ => {}
            }
            prev = c;
        }
    }
    ends
}

/// Characters a Lisp symbol has besides letters, digits and `_`.
const LISP_SYMBOL_CHARS: &[char] = &[
    '-', '*', '+', '!', '?', '<', '>', '=', '/', '.', ':', '%', '&', '$',
];

/// Solidity: contracts, interfaces, libraries, structs, enums, events,
/// errors, modifiers, functions, and the special functions named by their
/// keyword (`constructor`, `fallback`, `receive`).
fn solidity_line(line: &str, at: usize) -> Option<LineDef> {
    let p = keyword(line, at, "abstract").unwrap_or(at);
    for special in ["constructor", "fallback", "receive"] {
        if line[p..].starts_with(special) && line[p + special.len()..].trim_start().starts_with('(')
        {
            return def("function", (p, p + special.len()));
        }
    }
    let (word, q) = any_keyword(
        line,
        p,
        &[
            "contract",
            "interface",
            "library",
            "struct",
            "enum",
            "event",
            "error",
            "modifier",
            "function",
            "type",
        ],
    )?;
    let kind = match word {
        "contract" => "class",
        "interface" => "interface",
        "library" => "module",
        "struct" => "struct",
        "enum" => "enum",
        "type" => "type",
        "event" | "error" => "constant",
        _ => "function",
    };
    def(kind, ident(line, q, &[])?)
}

/// Groovy: classes, interfaces, traits, enums, and methods whose line opens
/// their body: `def name(…) {`, `String name(…) {`, Spock's
/// `def "does a thing"() {` (named by its text).
fn groovy_line(line: &str, at: usize) -> Option<LineDef> {
    let mut p = at;
    loop {
        let next = [
            "public",
            "private",
            "protected",
            "static",
            "final",
            "abstract",
            "synchronized",
            "sealed",
            "non-sealed",
            "strictfp",
            "default",
        ]
        .iter()
        .find_map(|m| keyword(line, p, m));
        match next {
            Some(q) => p = q,
            None => break,
        }
    }
    if let Some((word, q)) = any_keyword(
        line,
        p,
        &["class", "interface", "trait", "enum", "@interface"],
    ) {
        let kind = match word {
            "interface" | "@interface" => "interface",
            "trait" => "trait",
            "enum" => "enum",
            _ => "class",
        };
        return def(kind, ident(line, q, &[])?);
    }
    if let Some(q) = keyword(line, p, "def")
        && let Some(quote) = line[q..].chars().next().filter(|c| matches!(c, '"' | '\''))
    {
        let close = line[q + 1..].find(quote)? + q + 1;
        if !line[close + 1..].trim_start().starts_with('(') || close == q + 1 {
            return None;
        }
        return def("function", (q + 1, close));
    }
    // `private helper(x) {`: a modifier stands for the type.
    c_like_function(line, p, false, p > at)
}
/// Dart: classes, mixins, enums, extensions, typedefs, and functions or
/// methods whose line ends by opening their body (`{`, `=>`).
fn dart_line(line: &str, at: usize) -> Option<LineDef> {
    let mut p = at;
    for modifier in [
        "abstract",
        "sealed",
        "base",
        "final",
        "interface",
        "external",
    ] {
        p = keyword(line, p, modifier).unwrap_or(p);
    }
    if line[p..].starts_with("mixin class ") {
        p = keyword(line, p, "mixin").unwrap_or(p);
    }
    if let Some((word, q)) =
        any_keyword(line, p, &["class", "mixin", "enum", "extension", "typedef"])
    {
        let kind = match word {
            "enum" => "enum",
            "extension" => "impl",
            "typedef" => "type",
            _ => "class",
        };
        return def(kind, ident(line, q, &[])?);
    }
    c_like_function(line, at, true, false)
}

/// A function or method in a language of the C family without a grammar
/// here (Dart, Groovy): the line opens its body (`{`, or `=>` where
/// `arrow` allows it), and the name before `(` has a type or `def` before
/// it (or `modified`: modifiers the caller skipped), or is a constructor's
/// (capitalised).
fn c_like_function(line: &str, at: usize, arrow: bool, modified: bool) -> Option<LineDef> {
    let t = line.trim_end();
    if !(t.ends_with('{') || (arrow && t.contains("=>"))) {
        return None;
    }
    let open = line[at..].find('(')? + at;
    let head = line[at..open].trim_end();
    if head.contains('=') || (head.contains('.') && !head.contains("Future")) {
        return None;
    }
    let start = head
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(at, |i| at + i + 1);
    let name = (start, at + head.len());
    let word = &line[name.0..name.1];
    const NOT_NAMES: [&str; 12] = [
        "if", "for", "while", "switch", "catch", "return", "else", "new", "await", "super",
        "assert", "throw",
    ];
    let first = head.split_whitespace().next().unwrap_or("");
    if word.is_empty() || NOT_NAMES.contains(&word) || NOT_NAMES.contains(&first) {
        return None;
    }
    // A call statement (`print(x) {` does not happen, but `foo(() {` does)
    // has no type or modifier before the name, unless it is a constructor,
    // which starts with an upper-case letter.
    let has_type = start > at || modified;
    let is_ctor = word.starts_with(|c: char| c.is_ascii_uppercase());
    if has_type || is_ctor {
        def("function", name)
    } else {
        None
    }
}

/// SQL: `CREATE [OR REPLACE] [TEMP …] TABLE|VIEW|FUNCTION|… [IF NOT EXISTS] name`.
fn sql_line(line: &str, at: usize) -> Option<LineDef> {
    let mut p = keyword_nocase(line, at, "create")?;
    if let Some(q) = keyword_nocase(line, p, "or") {
        p = keyword_nocase(line, q, "replace")?;
    }
    for modifier in [
        "temporary",
        "temp",
        "unique",
        "materialized",
        "virtual",
        "recursive",
    ] {
        p = keyword_nocase(line, p, modifier).unwrap_or(p);
    }
    let (kind, q) = [
        ("table", "struct"),
        ("view", "type"),
        ("function", "function"),
        ("procedure", "function"),
        ("trigger", "function"),
        ("type", "type"),
    ]
    .into_iter()
    .find_map(|(w, k)| keyword_nocase(line, p, w).map(|q| (k, q)))?;
    let mut q = q;
    if let Some(r) = keyword_nocase(line, q, "if") {
        q = keyword_nocase(line, keyword_nocase(line, r, "not")?, "exists")?;
    }
    // `"schema"."name"`, `[dbo].[name]`, `` `name` ``: the last part, unquoted.
    let rest = &line[q..];
    let end = rest
        .find(|c: char| c.is_whitespace() || c == '(' || c == ';')
        .unwrap_or(rest.len());
    let full = &rest[..end];
    let last = full.rsplit('.').next().unwrap_or(full);
    let trimmed = last.trim_matches(|c| matches!(c, '"' | '`' | '[' | ']'));
    let offset = q + end - last.len() + last.find(trimmed).unwrap_or(0);
    if trimmed.is_empty() {
        return None;
    }
    def(kind, (offset, offset + trimmed.len()))
}
