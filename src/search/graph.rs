//! Owns the code graph read from the index: which stored references resolve
//! to a given definition (qualified references), and callers / callees.
//!
//! Resolution is syntactic, as far as a tags index can tell: each reference
//! carries the receiver written before it (`qualifier`) and its enclosing
//! scope; a reference resolves to a method when it is reached through
//! `self`/`this`/a Go receiver inside the class or a subclass that does not
//! override it, through the class name, through a variable the same scope
//! binds to the class (`s = Session()`, `s: Session`, `Session s`,
//! `s := &Server{}`), or (with implicit `this`) bare inside the class; a
//! top-level function or type resolves in its own file, from a file that
//! imports it or its module, or (Go, Java and kin) from its package. A
//! reference that provably belongs to another definition is dropped; one
//! nothing decides is returned apart as `name_only`, never mixed in.
//! Fields, constants and enum variants have no stored references (the tags
//! queries tag calls and types), nor do functions named without a call
//! (a handler in a list, `f.call(this)`, an import), so their uses are
//! found by a word scan of the files of their language and resolved the
//! same way.
//! Does not speak SQL (rows come from `store`) or render.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;
use std::rc::Rc;

use anyhow::Result;
use serde::Serialize;

use crate::error::{ErrorCode, UserError};
use crate::search::keyword::{CaseMode, KeywordRequest, search_keyword};
use crate::search::symbol::split_as_defined;
use crate::search::{asked_name, last_segment, split_qualified};
use crate::store::{GraphDef, GraphRef, ImportRow, Store};
use crate::walk::WalkOptions;

/// How sure the index is that a reference or edge reaches the definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Resolution {
    Resolved,
    /// A call resolved to the method an override replaces, made where the
    /// object may be the overriding class's (`this.onHandle(…)` in the
    /// base, `$this->write()` of an abstract method): `callers` of the
    /// override lists it ([`Graph::calls_via_base`]).
    ViaBase,
    NameOnly,
}

impl Resolution {
    pub fn as_str(self) -> &'static str {
        match self {
            Resolution::Resolved => "resolved",
            Resolution::ViaBase => "via_base",
            Resolution::NameOnly => "name_only",
        }
    }
}

/// What a reference is to one definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Verdict {
    Resolved,
    NameOnly,
    /// It provably names something else.
    Other,
}

/// Files larger than this are not read to resolve or scan.
const MAX_READ_BYTES: u64 = 4 << 20;
/// Word matches a scan for uses of a member looks at, at most.
const MAX_SCAN_MATCHES: usize = 20_000;
/// Subclasses followed from one class at most.
const MAX_SUBCLASSES: usize = 500;

/// Kinds whose uses the tags queries do not tag: found by a word scan.
fn needs_scan(kind: &str) -> bool {
    matches!(
        kind,
        "field" | "constant" | "variable" | "property" | "enum_member" | "variant"
    )
}

/// A Java or C# constructor (a method named as its class), which only
/// `new` calls.
fn is_new_only_constructor(d: &GraphDef) -> bool {
    matches!(d.lang.as_str(), "java" | "csharp")
        && matches!(d.kind.as_str(), "method" | "constructor")
        && d.container.as_deref().map(last_part) == Some(d.name.as_str())
}

fn is_type_kind(kind: &str) -> bool {
    crate::store::CLASS_KINDS.contains(&kind)
}

/// Languages where a bare name inside a class body or method is a member.
fn implicit_this(lang: &str) -> bool {
    matches!(
        lang,
        "java" | "csharp" | "cpp" | "kotlin" | "swift" | "scala" | "ruby"
    )
}

/// A receiver written as a literal: a string, a number, an array or list
/// (`['a', 'b']`, `[1, 2]`, or `]` closing one over several lines), a map
/// or object (`{…}`). Objective-C's `[receiver message]` is a send, not a
/// literal (nor are C++'s brackets).
fn is_literal_receiver(q: &str, lang: &str) -> bool {
    let q = q.trim();
    let brackets = !matches!(lang, "objc" | "cpp" | "c");
    q.starts_with(['"', '\'', '`'])
        || q.starts_with(|c: char| c.is_ascii_digit())
        || (brackets && (q.starts_with(['[', '{']) || q == "]"))
}

/// Whether a use found by the word scan cannot be a use of any of the
/// targets, all members of classes, so that even a bare name's "every use"
/// leaves it out: an unqualified name in a language where a member is
/// always reached through a receiver (Python, JavaScript, TypeScript) is a
/// local, a parameter or a keyword argument (`related_query_name="user"`,
/// `end_index = None`), never the method or field, outside the body of the
/// member's own class.
fn cannot_be_member(r: &GraphRef, targets: &[Rc<TargetInfo>]) -> bool {
    r.kind == "use"
        && r.qualifier.is_none()
        && matches!(
            r.lang.as_str(),
            "python" | "javascript" | "typescript" | "tsx"
        )
        && targets.iter().all(|t| {
            // A class body's own statements may name its earlier attributes.
            t.class
                .as_ref()
                .is_some_and(|c| r.scope.as_ref() != Some(c))
        })
}

/// Whether a name, between `before` and `after` on its line, is what a
/// Haskell type signature declares: only names and commas before it on the
/// line, and `::` after the names.
fn is_haskell_signature(before: &str, after: &str) -> bool {
    let names = |s: &str| {
        s.split(',').all(|w| {
            w.trim().is_empty() || w.trim().bytes().all(|b| is_ident_byte(b) || b == b'\'')
        })
    };
    let Some((more, _)) = after.split_once("::") else {
        return false;
    };
    names(before) && names(more) && !after.trim_start().starts_with("::=")
}

/// Languages whose files see their directory's (package's) top-level names
/// without an import.
fn package_scoped(lang: &str) -> bool {
    matches!(
        lang,
        "go" | "java" | "kotlin" | "csharp" | "scala" | "swift"
    )
}

/// Languages whose top-level functions are global to the program (an R
/// package's functions are one namespace to all its files).
fn global_functions(lang: &str) -> bool {
    matches!(lang, "c" | "cpp" | "php" | "bash" | "lua" | "r")
}

fn c_family(lang: &str) -> bool {
    matches!(lang, "c" | "cpp" | "objc")
}

/// A C or C++ function declared without its body (`int f(int);`): the
/// same function as its definition elsewhere, not a second one.
fn is_prototype(d: &GraphDef) -> bool {
    c_family(&d.lang)
        && matches!(d.kind.as_str(), "function" | "method")
        && d.signature.trim_end().ends_with(';')
}

/// A C function or variable of file scope (`static int f(…)`): only its
/// own file (and whoever includes that file) sees it.
fn is_file_static(d: &GraphDef) -> bool {
    let head = d.signature.split(d.name.as_str()).next().unwrap_or("");
    head.split(|c: char| !c.is_ascii_alphanumeric() && c != '_')
        .any(|w| w == "static")
}

/// A C-family definition only its own file (and whoever includes that
/// file) sees: a `static` function or variable, or a macro, outside a
/// header. A test's `#define f(…)` mock in `test/unit/x.c` is not what
/// the rest of the project calls.
fn file_scoped(d: &GraphDef) -> bool {
    // An `.inc` file is included as a header is.
    let header = crate::search::is_c_header(&d.path) || d.path.ends_with(".inc");
    !header && (is_file_static(d) || d.kind == "macro")
}

/// Whether a bare call in a C-family file is a call of `target`, a
/// top-level function: the file's own definition wins (a `static` helper
/// of the same name, or the function itself); else the one definition
/// with a body that the file can see (a prototype in a header is that
/// function's declaration, and another file's `static` function is out
/// of sight); with none, the one declaration (a library's function the
/// project declares).
fn c_verdict(r: &GraphRef, target: &GraphDef, top: &[&GraphDef]) -> Verdict {
    let body = |d: &&&GraphDef| !is_prototype(d);
    if top.iter().filter(body).any(|d| d.file_id == r.file_id) {
        return Verdict::Other;
    }
    if file_scoped(target) && target.file_id != r.file_id {
        return Verdict::Other;
    }
    let visible = |d: &&&GraphDef| !file_scoped(d);
    let bodies: Vec<&&GraphDef> = top.iter().filter(body).filter(visible).collect();
    let same = |d: &GraphDef| (d.file_id, d.name_line) == (target.file_id, target.name_line);
    let one = match bodies.as_slice() {
        [only] => Some(**only),
        [] => {
            let decls: Vec<&&GraphDef> = top.iter().filter(visible).collect();
            match decls.as_slice() {
                [only] => Some(**only),
                _ => None,
            }
        }
        _ => None,
    };
    match one {
        // A `static` prototype declares some includer's own function.
        Some(d) if same(d) || (is_prototype(target) && !is_file_static(target)) => {
            Verdict::Resolved
        }
        Some(_) => Verdict::Other,
        None => Verdict::NameOnly,
    }
}

/// Whether code in language `from` can reach a definition in `to`: the
/// same language, or one of its [`lang_family`].
fn sees(from: &str, to: &str) -> bool {
    from == to || lang_family(from).contains(&to)
}

/// Languages that see each other's definitions (for the word scan).
fn lang_family(lang: &str) -> &'static [&'static str] {
    match lang {
        "python" => &["python"],
        "javascript" | "typescript" | "tsx" => &["javascript", "typescript", "tsx"],
        "c" | "cpp" => &["c", "cpp", "objc"],
        "objc" => &["objc", "c", "cpp", "swift"],
        "java" | "kotlin" | "scala" => &["java", "kotlin", "scala"],
        "rust" => &["rust"],
        "go" => &["go"],
        "ruby" => &["ruby"],
        "csharp" => &["csharp"],
        "php" => &["php"],
        // Swift calls Objective-C classes through bridging headers.
        "swift" => &["swift", "objc"],
        "lua" => &["lua"],
        "bash" => &["bash"],
        "elixir" => &["elixir"],
        "haskell" => &["haskell"],
        "zig" => &["zig"],
        _ => &[],
    }
}

fn is_self_word(q: &str) -> bool {
    matches!(
        q,
        "self" | "this" | "cls" | "Self" | "$this" | "@" | "this@"
    )
}

/// `super` (Python's `super()`), C#'s `base`, PHP's `parent`: elsewhere
/// `base` and `parent` are ordinary variables (`parent := &Command{…}`).
fn is_super_word(q: &str, lang: &str) -> bool {
    q == "super"
        || q.starts_with("super(")
        || (q == "base" && lang == "csharp")
        || (q == "parent" && lang == "php")
}

/// A Python built-in or standard-library class a project class may
/// extend, whose methods (`__init__`, `__getitem__`, `__call__`) are no
/// project code. Abstract bases (`Mapping`, `ABC`) are left out: like
/// `object`, they pass a `super()` call on along the MRO.
fn is_python_builtin_class(name: &str) -> bool {
    matches!(
        name,
        "type"
            | "dict"
            | "list"
            | "set"
            | "frozenset"
            | "tuple"
            | "str"
            | "bytes"
            | "bytearray"
            | "int"
            | "float"
            | "complex"
            | "property"
            | "BaseException"
            | "Exception"
            | "ValueError"
            | "TypeError"
            | "KeyError"
            | "IndexError"
            | "LookupError"
            | "AttributeError"
            | "RuntimeError"
            | "OSError"
            | "IOError"
            | "NotImplementedError"
            | "AssertionError"
            | "UserWarning"
            | "DeprecationWarning"
            | "ABCMeta"
            | "EnumMeta"
            | "EnumType"
            | "OrderedDict"
            | "defaultdict"
            | "Counter"
            | "deque"
            | "UserDict"
            | "UserList"
            | "Thread"
            | "JSONEncoder"
            | "JSONDecoder"
    )
}

/// `os.path` → `path`, `Foo::Bar` → `Bar`, `get_x()` → `get_x`.
fn last_part(q: &str) -> &str {
    let q = q.trim_end_matches(['?', '!']);
    let q = q.strip_suffix("()").unwrap_or(q);
    let cut = [
        q.rfind("::").map(|i| i + 2),
        q.rfind('.').map(|i| i + 1),
        q.rfind("->").map(|i| i + 2),
    ]
    .into_iter()
    .flatten()
    .max()
    .unwrap_or(0);
    q.get(cut..).unwrap_or(q)
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// The identifiers of a type's first line after its own name: its bases,
/// interfaces, traits (and, harmlessly, generic parameters).
fn bases_of(def: &GraphDef) -> Vec<&str> {
    const SKIP: [&str; 22] = [
        "class",
        "struct",
        "interface",
        "trait",
        "enum",
        "impl",
        "extends",
        "implements",
        "public",
        "private",
        "protected",
        "virtual",
        "final",
        "abstract",
        "open",
        "sealed",
        "object",
        "for",
        "where",
        "metaclass",
        "internal",
        "data",
    ];
    let sig = def.signature.as_str();
    let Some(at) = find_word(sig, &def.name, 0) else {
        return Vec::new();
    };
    let rest = &sig[at + def.name.len()..];
    let rest = rest.split(['{', '\n']).next().unwrap_or(rest);
    // `class UIPlugin<Opts extends UIPluginOptions, …> extends
    // BasePlugin<Opts, M, B>`: type parameters, their constraints and
    // generic arguments are no bases.
    // (Ruby's `class B < A` has no closing `>`.)
    let mut depth = 0i32;
    let mut prev = ' ';
    let generic = rest.contains('>');
    let rest: String = rest
        .chars()
        .filter(|&c| {
            let keep = match c {
                '<' => {
                    depth += 1;
                    false
                }
                '>' if prev != '=' && prev != '-' && depth > 0 => {
                    depth -= 1;
                    false
                }
                _ => depth == 0,
            };
            prev = c;
            keep || !generic
        })
        .collect();
    let mut out = Vec::new();
    for word in rest.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
        if word.is_empty()
            || SKIP.contains(&word)
            || word.chars().next().is_some_and(|c| c.is_ascii_digit())
        {
            continue;
        }
        // A slice of `sig`: the words are the same after the filter.
        if let Some(at) = find_word(sig, word, 0) {
            out.push(&sig[at..at + word.len()]);
        }
    }
    if def.kind == "impl" {
        // `impl Trait for Type`: the impl is named after the type; its
        // trait is a base.
        if let Some(tr) = sig.split_whitespace().nth(1) {
            out.push(tr.trim_end_matches('{'));
        }
    }
    out
}

/// A Go field declaration's names and type: `a, b *Matcher` →
/// (`[a, b]`, `*Matcher`).
fn go_field_names(line: &str) -> Option<(Vec<&str>, &str)> {
    let mut rest = line.trim();
    let mut names = Vec::new();
    loop {
        let end = rest
            .bytes()
            .position(|b| !is_ident_byte(b))
            .unwrap_or(rest.len());
        if end == 0 {
            return None;
        }
        names.push(&rest[..end]);
        let after = rest[end..].trim_start();
        match after.strip_prefix(',') {
            Some(more) => rest = more.trim_start(),
            None => {
                // A name needs a type after it, separated by a space.
                let ty = after.trim();
                return (end < rest.len()
                    && !ty.is_empty()
                    && rest[end..].starts_with(char::is_whitespace))
                .then_some((names, ty));
            }
        }
    }
}

/// The type `field` is declared with among a Go struct body's lines (`a,
/// b *Matcher`, before a tag or comment), as written.
fn go_field_decl<'l>(body: impl IntoIterator<Item = &'l str>, field: &str) -> Option<&'l str> {
    body.into_iter().find_map(|line| {
        let decl = line.split(['`', '/']).next().unwrap_or(line);
        let (names, ty) = go_field_names(decl)?;
        names.contains(&field).then(|| ty.trim())
    })
}

/// `for k, v := range EXPR {` (also `=`) → the loop's variables and
/// `EXPR`.
fn go_range(line: &str) -> Option<(Vec<&str>, &str)> {
    let t = line.trim_start().strip_prefix("for ")?;
    let (lhs, rest) = t.split_once(":=").or_else(|| t.split_once('='))?;
    let expr = rest.trim_start().strip_prefix("range ")?;
    let expr = expr.trim().trim_end_matches('{').trim_end();
    (!expr.is_empty()).then(|| (lhs.split(',').map(str::trim).collect(), expr))
}

/// `for _, q := range EXPR {` → `EXPR`: `q` is the value of a slice,
/// array or map element.
fn go_range_value(line: &str, q: &str) -> Option<String> {
    let (vars, expr) = go_range(line)?;
    (vars.get(1) == Some(&q)).then(|| expr.to_string())
}

/// A Go assignment's two sides: `a, b := f()`, `a = <-ch` (not `==`,
/// `!=`, `<=`, `>=`).
fn go_assignment(t: &str) -> Option<(&str, &str)> {
    t.split_once(":=").or_else(|| {
        let (l, r) = t.split_once('=')?;
        (!r.starts_with('=') && !l.ends_with(['!', '<', '>'])).then_some((l, r))
    })
}

/// `line, q := r.PeekLine()`, `_, q = f(…)`, `var a, q = f()` → (`r.PeekLine`
/// / `f`, 1): `q` is the `k`-th result (from 1) of a Go call; `None` for
/// the first (see [`go_first_of_call`]).
fn go_later_result_of_call(line: &str, q: &str) -> Option<(String, usize)> {
    let t = line.trim_start();
    let t = t.strip_prefix("var ").unwrap_or(t);
    let (lhs, rhs) = go_assignment(t)?;
    let names: Vec<&str> = lhs.split(',').map(str::trim).collect();
    let k = names.iter().position(|n| *n == q)?;
    if k == 0 || names.iter().any(|n| !n.bytes().all(is_ident_byte)) {
        return None;
    }
    let rhs = rhs.trim();
    if rhs.starts_with("range ") {
        return None;
    }
    let head = call_bound_in_line(&format!("{q} = {rhs}"), q)?;
    Some((head, k))
}

/// `q, err := f(…)` / `q, _ = x.f(…)` → `f` / `x.f`: `q` is the first
/// result of a Go call.
fn go_first_of_call(line: &str, q: &str) -> Option<String> {
    let t = line.trim_start();
    let t = t.strip_prefix("var ").unwrap_or(t);
    let rest = t.strip_prefix(q)?.trim_start().strip_prefix(',')?;
    let (_, rhs) = rest.split_once(":=").or_else(|| rest.split_once('='))?;
    let rhs = rhs.trim_start();
    let end = rhs.find('(')?;
    let head = rhs[..end].trim_end();
    dotted_last(head).map(|_| head.to_string())
}

/// The single type a Go type switch's `case` line names when the switch
/// above it binds `q` (`switch q := v.(type) {`): `case *Conn:` → `Conn`.
fn go_type_case(lines: &[String], i: usize, q: &str) -> Option<String> {
    let line = lines.get(i)?;
    let ty = line.trim().strip_prefix("case ")?.strip_suffix(':')?.trim();
    if ty.contains(',') {
        return None;
    }
    let indent = line.len() - line.trim_start().len();
    for l in lines[i.saturating_sub(400)..i].iter().rev() {
        let t = l.trim_start();
        let at = l.len() - t.len();
        if at > indent
            || t.is_empty()
            || at == indent && (t.starts_with("case ") || t.starts_with("default"))
        {
            continue;
        }
        let rest = t.strip_prefix("switch ")?;
        let (lhs, rhs) = rest.split_once(":=")?;
        return (lhs.trim() == q && rhs.contains(".(type)"))
            .then(|| type_in(ty, "go"))
            .flatten();
    }
    None
}

/// The last line of the clause a Go `case` line at `i` opens: before the
/// next `case`/`default` of its switch, or the switch's closing brace.
fn go_case_end(lines: &[String], i: usize) -> usize {
    let Some(line) = lines.get(i) else { return i };
    let indent = line.len() - line.trim_start().len();
    for (k, l) in lines.iter().enumerate().skip(i + 1) {
        let t = l.trim_start();
        if !t.is_empty() && l.len() - t.len() <= indent {
            return k.saturating_sub(1);
        }
    }
    lines.len()
}

/// `q, ok := v.(*Conn)` (also after `if`, up to a `;`) → `Conn`: the
/// comma-ok form of a Go type assertion.
fn go_comma_ok_assert(line: &str, q: &str) -> Option<String> {
    let t = line.trim_start();
    let t = t.strip_prefix("if ").unwrap_or(t).trim_start();
    let rest = t.strip_prefix(q)?.trim_start().strip_prefix(',')?;
    let (_, rhs) = rest.split_once(":=").or_else(|| rest.split_once('='))?;
    let rhs = rhs.split(';').next().unwrap_or(rhs).trim();
    let rhs = rhs.strip_suffix('{').unwrap_or(rhs).trim_end();
    let body = rhs.strip_suffix(')')?;
    let open = matching_open(body)?;
    body[..open].ends_with('.').then_some(())?;
    type_in(&body[open + 1..], "go").filter(|t| t != "type")
}

/// `q, ok := p.byName[key]` (also after `if `) → `p.byName`: `q` is an
/// element of what is indexed.
fn go_comma_ok_index(line: &str, q: &str) -> Option<String> {
    let t = line.trim_start();
    let t = t.strip_prefix("if ").unwrap_or(t).trim_start();
    let rest = t.strip_prefix(q)?.trim_start().strip_prefix(',')?;
    let (_, rhs) = rest.split_once(":=").or_else(|| rest.split_once('='))?;
    let rhs = rhs.split(';').next().unwrap_or(rhs).trim();
    let rhs = rhs.strip_suffix('{').unwrap_or(rhs).trim_end();
    let (base, _) = rhs.strip_suffix(']')?.rsplit_once('[')?;
    let base = base.trim_end();
    (!base.is_empty() && base.bytes().all(|b| is_ident_byte(b) || b == b'.'))
        .then(|| base.to_string())
}

/// The slice, array or map type a Go line declares `q` with, as written:
/// `q []*Conn`, `var q map[string]*Conn`, `q := []*Conn{…}`.
fn go_declared_ann(line: &str, q: &str) -> Option<String> {
    for (_, after) in name_uses(line, q) {
        let after = after
            .strip_prefix(":=")
            .or_else(|| after.strip_prefix('=').filter(|a| !a.starts_with('=')))
            .map_or(after, str::trim_start);
        // `q := make(chan *Conn, 1)`, `make([]*Conn, 0, n)`: what is made.
        let after = after.strip_prefix("make(").map_or(after, str::trim_start);
        // `q chan *Conn`, `q <-chan Event`.
        if let Some(elem) = go_chan_elem(after) {
            let end = elem
                .find(|c: char| matches!(c, ',' | ')' | '{' | '=') || c.is_whitespace())
                .unwrap_or(elem.len());
            return (end > 0).then(|| format!("chan {}", &elem[..end]));
        }
        // `cmds ...*Command`: a variadic parameter is a slice.
        if let Some(elem) = after.strip_prefix("...") {
            let end = elem
                .find(|c: char| matches!(c, ',' | ')' | '=') || c.is_whitespace())
                .unwrap_or(elem.len());
            return (end > 0).then(|| format!("[]{}", &elem[..end]));
        }
        // `q [4]nodes` declares an array; `q[0].Do()` indexes one.
        let array = after
            .strip_prefix('[')
            .and_then(|a| a.split_once(']'))
            .is_some_and(|(_, t)| {
                t.starts_with(|c: char| c == '*' || c == '[' || c == '_' || c.is_alphabetic())
            });
        if after.starts_with("[]") || after.starts_with("map[") || array {
            let end = after
                .find(|c: char| matches!(c, '{' | ',' | ')' | '=') || c.is_whitespace())
                .unwrap_or(after.len());
            return Some(after[..end].to_string());
        }
    }
    None
}

/// The fields of the anonymous struct type a Go expression has, declared
/// in `lines[from..upto]`: `tc` with `for _, tc := range cases` and `cases
/// := []struct {` … `}{…}` (or a map of them), `cases[i]`, `var tc struct{
/// r *Route }`; the text between the struct's braces.
fn go_anon_struct(
    lines: &[String],
    from: usize,
    upto: usize,
    expr: &str,
    depth: usize,
) -> Option<String> {
    let (name, elem) = match expr
        .strip_suffix(']')
        .and_then(|b| b.rfind('[').map(|i| &b[..i]))
    {
        Some(base) => (base.trim_end(), true),
        None => (expr.trim(), false),
    };
    if depth > 3 || name.is_empty() || !name.bytes().all(is_ident_byte) {
        return None;
    }
    for k in (from.min(upto)..upto).rev() {
        let l = lines.get(k)?;
        // `tc := tc`: the loop variable captured for a closure.
        if l.trim() == format!("{name} := {name}") {
            continue;
        }
        if !elem && let Some(over) = go_range_value(l, name) {
            return go_anon_struct(lines, from, k, &format!("{over}[i]"), depth + 1);
        }
        for (_, after) in name_uses(l, name) {
            let assigned = after
                .strip_prefix(":=")
                .or_else(|| after.strip_prefix('=').filter(|a| !a.starts_with('=')));
            let t = assigned.map_or(after, str::trim_start);
            let (coll, t) = if let Some(m) = t.strip_prefix("map[") {
                (true, skip_balanced(&format!("[{m}"), '[', ']')?.to_string())
            } else if let Some(rest) = skip_balanced(t, '[', ']') {
                (true, rest.to_string())
            } else {
                (false, t.to_string())
            };
            let Some(body) = t.trim_start().strip_prefix("struct") else {
                if assigned.is_some() {
                    return None;
                }
                continue;
            };
            if coll != elem || !body.trim_start().starts_with('{') {
                return None;
            }
            // The body from its `{` to the matching `}`, over lines.
            let open = l.len() - body.trim_start().len();
            let mut text = String::new();
            let mut level = 0i32;
            for (n, line) in lines.iter().enumerate().skip(k).take(80) {
                let part = if n == k { &line[open..] } else { line.as_str() };
                for c in part.chars() {
                    match c {
                        '{' => level += 1,
                        '}' => {
                            level -= 1;
                            if level == 0 {
                                return Some(text.trim_start_matches('{').to_string());
                            }
                        }
                        _ => {}
                    }
                    text.push(c);
                }
                text.push('\n');
            }
            return None;
        }
    }
    None
}

/// The element of a Go channel type as written: `chan *Conn`, `<-chan
/// Event`, `chan<- int` → `*Conn`, `Event`, `int`.
fn go_chan_elem(ann: &str) -> Option<&str> {
    let rest = ann
        .strip_prefix("<-chan")
        .or_else(|| ann.strip_prefix("chan<-"))
        .or_else(|| ann.strip_prefix("chan"))?;
    rest.starts_with(char::is_whitespace)
        .then(|| rest.trim_start())
}

/// `q := <-EXPR`, `q, ok := <-EXPR` (also after `if`/`case`, and `=`) →
/// `EXPR`: `q` is a value received from a channel.
fn go_received(line: &str, q: &str) -> Option<String> {
    let t = line.trim_start();
    let t = t
        .strip_prefix("case ")
        .or_else(|| t.strip_prefix("if "))
        .unwrap_or(t);
    let (lhs, rhs) = go_assignment(t)?;
    if lhs.split(',').next()?.trim() != q {
        return None;
    }
    let expr = rhs.trim_start().strip_prefix("<-")?.trim_start();
    let expr = expr.split([';', ':']).next()?.trim();
    (!expr.is_empty() && expr.bytes().all(|b| is_ident_byte(b) || b == b'.'))
        .then(|| expr.to_string())
}

/// `for q := range EXPR {` → `EXPR`: with one variable, `q` is the
/// element only when EXPR is a channel (else an index or key).
fn go_range_single(line: &str, q: &str) -> Option<String> {
    let (vars, expr) = go_range(line)?;
    (vars == [q]).then(|| expr.to_string())
}

/// The element type of a Go slice, array or map type: `[]*Conn`,
/// `[4]Conn`, `map[string]*Conn` → `Conn`.
fn go_elem(ann: &str) -> Option<String> {
    type_in(go_elem_ann(ann)?.trim(), "go")
}

/// The element of a Go slice, array or map type as written: `[]*Conn` →
/// `*Conn`, `map[string][]Route` → `[]Route`.
fn go_elem_ann(ann: &str) -> Option<&str> {
    let a = ann.trim();
    if let Some(elem) = go_chan_elem(a) {
        return Some(elem.trim());
    }
    let inner = if let Some(m) = a.strip_prefix("map[") {
        // Past the key type's closing bracket.
        let mut depth = 1i32;
        let end = m.char_indices().find_map(|(i, c)| {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        })?;
        &m[end + 1..]
    } else {
        let close = a.strip_prefix('[')?.find(']')?;
        a.get(close + 2..)?
    };
    Some(inner.trim())
}

/// The slice, array or map type a Go type declaration names: `type nodes
/// []*node` → `[]*node`.
fn go_underlying(sig: &str) -> Option<&str> {
    let rest = sig.trim_start().strip_prefix("type ")?.trim_start();
    let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_'))?;
    let under = rest[end..].trim_start();
    (under.starts_with('[') || under.starts_with("map[")).then_some(under)
}

/// The type a Go struct or interface body line embeds: `routeConf`,
/// `*Router`, `sync.Mutex`, `io.Reader \`json:"-"\`` → its name.
fn go_embedded(line: &str) -> Option<&str> {
    // Before a struct tag or a comment (`*sync.Mutex // guards`).
    let t = line.split(['`', '/']).next().unwrap_or(line).trim();
    let t = t.strip_prefix('*').unwrap_or(t);
    if t.is_empty() || !t.bytes().all(|b| is_ident_byte(b) || b == b'.') {
        return None;
    }
    let name = last_part(t);
    (!name.is_empty() && name.bytes().all(is_ident_byte)).then_some(name)
}

/// Each whole-word occurrence of `q` in `line` that is not an attribute
/// of something else (`self.session` inside `other.self.session`), with
/// the text after it, leading spaces trimmed.
fn name_uses<'l>(line: &'l str, q: &'l str) -> impl Iterator<Item = (usize, &'l str)> + 'l {
    let mut from = 0;
    std::iter::from_fn(move || {
        while let Some(at) = find_word(line, q, from) {
            from = at + q.len();
            if at > 0 && line.as_bytes()[at - 1] == b'.' {
                continue;
            }
            return Some((at, line[at + q.len()..].trim_start()));
        }
        None
    })
}

/// Whether two words of an import line are items of one list, apart
/// (`use std::task::{ready, Context, Poll}`: `Poll` is not imported from a
/// module `ready`): only names, `as`, commas and brackets between them,
/// and a comma among those.
fn listed_apart(line: &str, a: (usize, usize), b: (usize, usize)) -> bool {
    let (first, second) = if a.0 <= b.0 { (a, b) } else { (b, a) };
    let Some(between) = line.get(first.0 + first.1..second.0) else {
        return false;
    };
    between.contains(',')
        && between.chars().all(|c| {
            c.is_alphanumeric()
                || c.is_whitespace()
                || matches!(c, '_' | ',' | '{' | '}' | '(' | ')')
        })
}

/// The byte offset of `word` in `text` at or after `from`, as a whole identifier.
fn find_word(text: &str, word: &str, from: usize) -> Option<usize> {
    if word.is_empty() {
        return None;
    }
    let bytes = text.as_bytes();
    let mut start = from;
    while let Some(i) = bytes
        .get(start..)
        .and_then(|t| memchr::memmem::find(t, word.as_bytes()))
    {
        let at = start + i;
        let end = at + word.len();
        let before_ok = at == 0 || !is_ident_byte(bytes[at - 1]);
        let after_ok = end >= bytes.len() || !is_ident_byte(bytes[end]);
        if before_ok && after_ok && text.is_char_boundary(at) {
            return Some(at);
        }
        start = at + 1;
    }
    None
}

/// How deep type inference follows calls, receivers and `return`s
/// (`requests.get` → `request` → `Session.request` → `send` → …).
const INFER_DEPTH: u32 = 10;

/// Lines (by index) that bind a receiver, each with the last line index
/// the binding is seen on (a closure's parameter: its body's last line;
/// else `usize::MAX`) and the type bound.
type Bindings = Rc<Vec<(usize, usize, String)>>;

/// A file's text split in lines, read once per query.
struct FileText {
    lines: Vec<String>,
    /// Lines inside a Python triple-quoted string or a `/* … */` comment
    /// (docstrings and doctests are not uses).
    quoted: Vec<bool>,
    /// The indexes of the lines that look like imports ([`is_import_line`]).
    imports: Vec<usize>,
}

impl FileText {
    fn import_lines(&self) -> impl Iterator<Item = &str> {
        self.imports
            .iter()
            .filter_map(|&i| self.lines.get(i).map(String::as_str))
    }
}

/// The facts about one definition that references are resolved against.
struct TargetInfo {
    def: GraphDef,
    /// Its class when it is a member of one (method, field, variant).
    class: Option<String>,
    /// The class and its subclasses that do not override the member.
    same: HashSet<String>,
    /// The class and all its subclasses.
    family: HashSet<String>,
    /// Names its module is imported or qualified by (file stem, package dir).
    module_keys: Vec<String>,
}

/// The per-query cache over the store and the files.
pub struct Graph<'a> {
    store: &'a Store,
    root: &'a Path,
    /// Reads the signatures the index keeps as positions.
    sources: crate::source::Sources<'a>,
    texts: HashMap<i64, Option<Rc<FileText>>>,
    file_defs: HashMap<i64, Rc<Vec<GraphDef>>>,
    defs_by_name: HashMap<String, Rc<Vec<GraphDef>>>,
    /// (file, scope's first line index or `usize::MAX` for module level,
    /// receiver) → the lines binding it to a type, with the type.
    bindings: HashMap<(i64, usize, String), Bindings>,
    /// Definition (file, name line and column) → what it is resolved against.
    infos: HashMap<(i64, u32, u32), Rc<TargetInfo>>,
    /// File → its import rows.
    imports: HashMap<i64, Rc<Vec<ImportRow>>>,
    /// Lua file → its `local` bindings ([`Graph::lua_locals`]).
    lua_locals: HashMap<i64, Rc<LuaLocals>>,
    /// The build's copies of the name's definitions [`Graph::targets`]
    /// left out; when any, [`Graph::references`] leaves out (and counts)
    /// the build's uses too.
    pub build_left_out: crate::search::BuildLeftOut,
    /// Path → whether it is a build's copy ([`crate::search::build_copies`]).
    build_copies: HashMap<String, bool>,
    /// Nesting of [`Graph::call_result`] through receivers.
    call_depth: u32,
    /// Set for the next [`Graph::call_result`] only: the call is awaited
    /// (`x = await f()`), so a `Promise<T>` it returns gives a `T`.
    awaited: bool,
    /// (callable name, [`Callee::Member`]) → the type it returns, when
    /// its signatures agree.
    returns: HashMap<(String, bool), Option<String>>,
    /// Definition → the type its `return` statements agree on.
    inferred: HashMap<(i64, u32, u32), Option<String>>,
    /// Base name → the types that name it as a base, built on first use.
    subclasses: Option<HashMap<String, Rc<Vec<String>>>>,
    /// Type name → the bases its definitions name ([`Graph::bases_named`]).
    bases_by_name: HashMap<String, Rc<Vec<String>>>,
    /// Definition (file, name line and column) → its header
    /// ([`Graph::header`]), which return types and bases are read from.
    headers: HashMap<(i64, u32, u32), String>,
    /// Every name a project file's module is known by ([`module_keys`]),
    /// built on first use.
    project_modules: Option<HashSet<String>>,
}

/// Which uses of a member [`Graph::references`] looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Uses {
    /// Every use: calls, and reads found by a word scan.
    All,
    /// The stored references (calls, type uses) only.
    Calls,
}

/// One reference found for a query, before rendering.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub r: GraphRef,
    pub resolution: Resolution,
    /// Index into the query's targets of the definition it reaches.
    pub target: usize,
}

impl<'a> Graph<'a> {
    pub fn new(store: &'a Store, root: &'a Path) -> Graph<'a> {
        Graph {
            store,
            root,
            sources: crate::source::Sources::new(root),
            texts: HashMap::new(),
            file_defs: HashMap::new(),
            defs_by_name: HashMap::new(),
            subclasses: None,
            project_modules: None,
            bases_by_name: HashMap::new(),
            headers: HashMap::new(),
            returns: HashMap::new(),
            inferred: HashMap::new(),
            build_left_out: crate::search::BuildLeftOut::default(),
            build_copies: HashMap::new(),
            call_depth: 0,
            awaited: false,
            imports: HashMap::new(),
            lua_locals: HashMap::new(),
            infos: HashMap::new(),
            bindings: HashMap::new(),
        }
    }

    fn defs_named(&mut self, name: &str) -> Result<Rc<Vec<GraphDef>>> {
        if let Some(d) = self.defs_by_name.get(name) {
            return Ok(d.clone());
        }
        // From the files' definitions, which the graph keeps: the names a
        // query looks up are mostly defined in the same few large files
        // (Django's `query.py`), each inflated once instead of per name.
        let mut d = Vec::new();
        for file_id in self.store.files_defining(name)? {
            d.extend(
                self.defs_of_file(file_id)?
                    .iter()
                    .filter(|def| def.name == name)
                    .cloned(),
            );
        }
        d.sort_by(|a, b| (&a.path, a.name_line).cmp(&(&b.path, b.name_line)));
        let d = Rc::new(d);
        self.defs_by_name.insert(name.to_string(), d.clone());
        Ok(d)
    }

    fn defs_of_file(&mut self, file_id: i64) -> Result<Rc<Vec<GraphDef>>> {
        if let Some(d) = self.file_defs.get(&file_id) {
            return Ok(d.clone());
        }
        let mut d = self.store.graph_file_defs(file_id)?;
        self.read_signatures(&mut d);
        let d = Rc::new(d);
        self.file_defs.insert(file_id, d.clone());
        Ok(d)
    }

    /// Fills in the signatures the index keeps as positions (fields,
    /// variables, constants, macros: what bindings are read from).
    fn read_signatures(&mut self, defs: &mut [GraphDef]) {
        for d in defs {
            if let Some(at) = d.line_signature.take() {
                d.signature = self.sources.line_signature(&d.path, &at, d.name_line);
            }
        }
    }

    fn text(&mut self, file_id: i64, path: &str) -> Option<Rc<FileText>> {
        if let Some(t) = self.texts.get(&file_id) {
            return t.clone();
        }
        let t = read_text(self.root, path).map(Rc::new);
        self.texts.insert(file_id, t.clone());
        t
    }

    /// The names a definition's module is known by ([`module_keys`]), and
    /// for Go its file's package clause: a Go file's package is what its
    /// callers qualify names with, and at a module's root no directory
    /// says it (`package git` in go-git's `repository.go`, imported as
    /// `github.com/go-git/go-git/v5`; `pgx.Connect`).
    fn def_module_keys(&mut self, def: &GraphDef) -> Vec<String> {
        let mut keys = module_keys(&def.path);
        if def.path.ends_with(".go")
            && let Some(text) = self.text(def.file_id, &def.path)
            && let Some(package) = go_package_clause(text.lines.iter().map(String::as_str))
            && !keys.iter().any(|k| k == package)
        {
            keys.push(package.to_string());
        }
        keys
    }

    /// Calls that reach an override through the method it replaces: for
    /// each method among `targets`, the same-named methods of its class's
    /// ancestors (bases of bases, four levels), and the calls resolved to
    /// them, with the base method each reaches. A base class calling
    /// `this.onHandle(…)` runs gesture-handler's `PanGestureHandler.onHandle`
    /// when the object is a pan handler, and an abstract method
    /// (monolog's `AbstractProcessingHandler::write`) is only ever called
    /// that way: `callers` of the override had said nobody calls it. A
    /// `super.m()` call is the base's own and is left out, as are calls
    /// already resolved to a target and calls from the override itself.
    pub fn calls_via_base(&mut self, targets: &[GraphDef]) -> Result<Vec<(Resolved, GraphDef)>> {
        const LEVELS: usize = 4;
        let mut out = Vec::new();
        let Some(first) = targets.first() else {
            return Ok(out);
        };
        let name = first.name.clone();
        let mut classes: Vec<String> = Vec::new();
        for t in targets {
            if t.kind != "method" || t.name != name {
                continue;
            }
            if let Some(c) = t.container.as_deref() {
                let c = last_segment(c).to_string();
                if !classes.contains(&c) {
                    classes.push(c);
                }
            }
        }
        if classes.is_empty() {
            return Ok(out);
        }
        // The ancestors, nearest first, without the targets' own classes.
        let mut ancestors: Vec<String> = Vec::new();
        let mut level = classes.clone();
        for _ in 0..LEVELS {
            let mut next = Vec::new();
            for c in &level {
                for b in self.bases_named(c)?.iter() {
                    let b = last_segment(b).to_string();
                    if !classes.contains(&b) && !ancestors.contains(&b) {
                        ancestors.push(b.clone());
                        next.push(b);
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        // Go's interfaces are satisfied, not named: a struct whose methods
        // cover an interface's is one of its implementations, and a call
        // through the interface (chi's `rctx.Routes.Match(…)`) runs its
        // method.
        if targets.iter().any(|t| t.lang == "go") {
            for c in &classes {
                for i in self.go_interfaces_satisfied(c, &name)? {
                    if !classes.contains(&i) && !ancestors.contains(&i) {
                        ancestors.push(i);
                    }
                }
            }
        }
        if ancestors.is_empty() {
            return Ok(out);
        }
        let is_target = |d: &GraphDef| {
            targets
                .iter()
                .any(|t| t.file_id == d.file_id && t.start_line == d.start_line)
        };
        let bases: Vec<GraphDef> = self
            .defs_named(&name)?
            .iter()
            .filter(|d| {
                matches!(d.kind.as_str(), "method" | "function")
                    && !is_target(d)
                    && d.container
                        .as_deref()
                        .is_some_and(|c| ancestors.iter().any(|a| a == last_segment(c)))
            })
            .cloned()
            .collect();
        if bases.is_empty() {
            return Ok(out);
        }
        let inside = |r: &GraphRef| {
            targets
                .iter()
                .any(|t| t.file_id == r.file_id && (t.start_line..=t.end_line).contains(&r.line))
        };
        for f in self.references_anywhere(&name, &bases, false, Uses::Calls)? {
            if f.resolution != Resolution::Resolved
                || inside(&f.r)
                || self.is_left_out_build_use(&f.r.path)
                || f.r
                    .qualifier
                    .as_deref()
                    .is_some_and(|q| is_super_word(q, &f.r.lang))
            {
                continue;
            }
            if let Some(base) = bases.get(f.target).cloned() {
                out.push((
                    Resolved {
                        resolution: Resolution::ViaBase,
                        ..f
                    },
                    base,
                ));
            }
        }
        Ok(out)
    }

    /// The definitions a (possibly qualified) name stands for: `send` all
    /// of them; `Session.send` those whose container is `Session`, else
    /// those in a file or package named `Session`. `NOT_FOUND` with a hint
    /// when none. Build output's copies
    /// ([`crate::search::is_shipped_build`]) are left out when the source
    /// defines the name: axios's `callers mergeConfig` had 18 of its 24
    /// edges in `dist/`, each bundle's calls of its own copy; a name only
    /// a build defines keeps them.
    pub fn targets(&mut self, query: &str) -> Result<Vec<GraphDef>> {
        let mut targets = self.named_targets(query)?;
        if targets.iter().any(|d| !self.is_build_copy(&d.path)) {
            let before = targets.len();
            targets.retain(|d| !self.is_build_copy(&d.path));
            self.build_left_out.definitions = before - targets.len();
        }
        Ok(targets)
    }

    /// Whether a file is a build's copy ([`crate::search::build_copies`]),
    /// asked once per file.
    fn is_build_copy(&mut self, path: &str) -> bool {
        if let Some(&copy) = self.build_copies.get(path) {
            return copy;
        }
        let copy = !crate::search::build_copies(self.store, [path]).is_empty();
        self.build_copies.insert(path.to_string(), copy);
        copy
    }

    fn named_targets(&mut self, query: &str) -> Result<Vec<GraphDef>> {
        let (container, name) = split_as_defined(self.store, query)?;
        if name.is_empty() {
            return Err(UserError::with_code(ErrorCode::InvalidQuery, "empty name")
                .hint("give an identifier such as `parse_config` or `Session.send`")
                .into());
        }
        if name.len() > 512 {
            return Err(UserError::with_code(
                ErrorCode::InvalidQuery,
                "name is longer than 512 characters",
            )
            .hint("give just the identifier, optionally qualified: `Session.send`")
            .into());
        }
        let all = self.defs_named(&name)?;
        let Some(container) = container else {
            // A bare name nothing defines (a library's `print`) still has
            // its uses: all of them name-only.
            return Ok(all.iter().filter(|d| d.kind != "impl").cloned().collect());
        };
        let by_container: Vec<GraphDef> = all
            .iter()
            // Elixir's containers are whole module names (`Mix.Dep.Converger`):
            // the innermost segment is the one asked for.
            .filter(|d| {
                d.container.as_deref().map(last_segment) == Some(container.as_str())
                    && d.kind != "impl"
            })
            .cloned()
            .collect();
        if by_container.len() > 1 {
            // `pgx.Conn.BeginTx` beside `stdlib.Conn.BeginTx`: a segment
            // before the container names the module (package clause, file
            // or directory) of the one meant.
            let segments = crate::search::qualifier_segments(query);
            if let [.., module, _] = segments.as_slice() {
                let mut placed = Vec::new();
                for d in &by_container {
                    let in_dir = Path::new(&d.path)
                        .parent()
                        .is_some_and(|p| p.iter().any(|c| c.to_str() == Some(module)));
                    if in_dir || self.def_module_keys(d).iter().any(|k| k == module) {
                        placed.push(d.clone());
                    }
                }
                if !placed.is_empty() {
                    return Ok(placed);
                }
            }
        }
        if !by_container.is_empty() {
            return Ok(by_container);
        }
        let mut by_module: Vec<GraphDef> = Vec::new();
        for d in all.iter().filter(|d| d.kind != "impl") {
            if self.def_module_keys(d).contains(&container) {
                by_module.push(d.clone());
            }
        }
        if !by_module.is_empty() {
            return Ok(by_module);
        }
        // What `symbol` places another way: a re-export from the module's
        // root file (`tokio::spawn` → `pub use task::spawn;` in `lib.rs`).
        let exact = crate::search::symbol::SymbolQuery {
            name: query.to_string(),
            kinds: Vec::new(),
            lang: None,
            mode: crate::search::symbol::MatchMode::Exact,
            limit: 50,
        };
        let hits = crate::search::symbol::find_symbols(self.store, None, &exact)?.hits;
        let placed: Vec<GraphDef> = all
            .iter()
            .filter(|d| {
                d.kind != "impl"
                    && hits
                        .iter()
                        .any(|h| h.path == d.path && h.start_line == d.start_line)
            })
            .cloned()
            .collect();
        if !placed.is_empty() {
            return Ok(placed);
        }
        Err(not_found(&name, Some(&container), &all))
    }

    /// [`Graph::compute_target_info`], once per definition per query (a
    /// callee's candidates recur at every call of the same name).
    fn target_info(&mut self, def: &GraphDef) -> Result<Rc<TargetInfo>> {
        let key = (def.file_id, def.name_line, def.name_col);
        if let Some(t) = self.infos.get(&key) {
            return Ok(t.clone());
        }
        let t = Rc::new(self.compute_target_info(def)?);
        self.infos.insert(key, t.clone());
        Ok(t)
    }

    fn compute_target_info(&mut self, def: &GraphDef) -> Result<TargetInfo> {
        let class = self.class_of(def)?;
        let mut same = HashSet::new();
        let mut family = HashSet::new();
        if let Some(c) = &class {
            same.insert(c.clone());
            family.insert(c.clone());
        }
        // C has no subclasses: the map of them reads every type's first
        // line (on the kernel, 1.2 s of a 1.7 s `callees` for the struct
        // fields its calls go through).
        if let Some(c) = class.as_ref().filter(|_| def.lang != "c") {
            let members = self.defs_named(&def.name)?;
            // Breadth first from the class: a subclass that defines the
            // member again (and everything below it) is not reached.
            let mut queue = VecDeque::from([(c.clone(), true)]);
            let mut seen = HashSet::from([c.clone()]);
            while let Some((cls, inherits)) = queue.pop_front() {
                for sub in self.subclasses_of(&cls)?.iter() {
                    if !seen.insert(sub.clone()) || seen.len() > MAX_SUBCLASSES {
                        continue;
                    }
                    family.insert(sub.clone());
                    let keeps = inherits && !self.overrides(&members, sub, &cls)?;
                    if keeps {
                        same.insert(sub.clone());
                    }
                    queue.push_back((sub.clone(), keeps));
                }
            }
        }
        let module_keys = self.def_module_keys(def);
        Ok(TargetInfo {
            def: def.clone(),
            class,
            same,
            family,
            module_keys,
        })
    }

    /// Is a receiver typed `ty` (by name) one of the classes where `name`
    /// is the target's? A subclass's name that another class (which
    /// defines `name` itself) shares is not: which of the two an
    /// annotation means is not known here.
    fn in_same(&mut self, t: &TargetInfo, ty: &str, name: &str) -> Result<bool> {
        if !t.same.contains(ty) {
            return Ok(false);
        }
        if t.class.as_deref() == Some(ty) {
            return Ok(true);
        }
        let members = self.defs_named(name)?;
        Ok(!members.iter().any(|d| d.container.as_deref() == Some(ty)))
    }

    /// Does the class `class` around `r` define `name` itself in `r`'s
    /// file, outside the target's own body? Another class of the same
    /// name (h11's `Request` with its `headers` field) is not the
    /// target's subclass that shares its name.
    fn defines_again(
        &mut self,
        r: &GraphRef,
        t: &TargetInfo,
        class: &str,
        name: &str,
    ) -> Result<bool> {
        if r.file_id == t.def.file_id && t.class.as_deref() == Some(class) {
            return Ok(false);
        }
        let defs = self.defs_of_file(r.file_id)?;
        Ok(defs.iter().any(|d| {
            d.name == name
                && d.container.as_deref() == Some(class)
                && !(d.file_id == t.def.file_id && d.name_line == t.def.name_line)
        }))
    }

    /// Does the subclass `sub` of `base` define one of `members` again?
    /// Only a `sub` of the member's file that names `base` among its bases
    /// counts: h11's `Request` with a `headers` field does not override
    /// `HTTPConnection.headers` for starlette's `Request(HTTPConnection)`.
    /// Go's methods live outside their type's body: any `sub` counts.
    fn overrides(&mut self, members: &[GraphDef], sub: &str, base: &str) -> Result<bool> {
        for m in members
            .iter()
            .filter(|m| m.container.as_deref() == Some(sub))
        {
            if m.lang == "go" {
                return Ok(true);
            }
            let defs = self.defs_of_file(m.file_id)?;
            let types: Vec<GraphDef> = defs
                .iter()
                .filter(|d| d.name == sub && is_type_kind(&d.kind))
                .cloned()
                .collect();
            // A member whose file does not define its container (an
            // out-of-line C++ method): as before, it overrides.
            if types.is_empty()
                || types
                    .iter()
                    .any(|t| self.bases(t).iter().any(|b| last_part(b) == base))
            {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The type a definition is a member of: its container when that is a
    /// type of its file (or, for Go and out-of-line C++, any type).
    fn class_of(&mut self, def: &GraphDef) -> Result<Option<String>> {
        let Some(container) = def.container.clone() else {
            return Ok(None);
        };
        let defs = self.defs_of_file(def.file_id)?;
        // The definitions named like the container around `def`.
        let around = |d: &&GraphDef| {
            d.name == container && d.start_line <= def.start_line && def.end_line <= d.end_line
        };
        let inside_type = defs.iter().filter(around).any(|d| is_type_kind(&d.kind));
        // A JavaScript function assigned onto an object (`app.set =
        // function…`, `Router.prototype.route = …`) is its member: called
        // through it, and through `this` inside its fellow members. Not a
        // function nested in another, whose container is the definition
        // around it.
        let assigned = matches!(def.lang.as_str(), "javascript" | "typescript" | "tsx")
            && !defs.iter().any(|d| around(&d));
        if inside_type
            || matches!(def.lang.as_str(), "go" | "cpp" | "rust")
            || def.kind == "method"
            || assigned
        {
            return Ok(Some(container));
        }
        Ok(None)
    }

    /// The Go interfaces declaring a method `method` whose every method
    /// the type `class` has too (its method set covers theirs): the
    /// interfaces it implements that a call of `method` may go through.
    /// An interface's embedded interfaces are not required (a library's
    /// `http.Handler` is not in the index to check).
    fn go_interfaces_satisfied(&mut self, class: &str, method: &str) -> Result<Vec<String>> {
        let is_method_of = |d: &GraphDef, owner: &str| {
            d.lang == "go"
                && d.kind == "method"
                && d.container.as_deref().map(last_segment) == Some(owner)
        };
        let mut candidates: Vec<String> = Vec::new();
        for d in self.defs_named(method)?.iter() {
            if d.lang == "go"
                && d.kind == "method"
                && let Some(c) = d.container.as_deref().map(last_segment)
                && c != class
                && !candidates.iter().any(|x| x == c)
            {
                candidates.push(c.to_string());
            }
        }
        let mut out = Vec::new();
        for iface in candidates {
            let decls: Vec<GraphDef> = self
                .defs_named(&iface)?
                .iter()
                .filter(|d| d.lang == "go" && d.kind == "interface")
                .cloned()
                .collect();
            for decl in decls {
                let required: Vec<String> = self
                    .defs_of_file(decl.file_id)?
                    .iter()
                    .filter(|d| {
                        is_method_of(d, &iface)
                            && d.start_line >= decl.start_line
                            && d.end_line <= decl.end_line
                    })
                    .map(|d| d.name.clone())
                    .collect();
                if required.is_empty() {
                    continue;
                }
                let mut covered = true;
                for m in &required {
                    if !self.defs_named(m)?.iter().any(|d| is_method_of(d, class)) {
                        covered = false;
                        break;
                    }
                }
                if covered {
                    out.push(iface.clone());
                    break;
                }
            }
        }
        Ok(out)
    }

    /// The bases a type names in its header (`class B(A)`, `extends A`),
    /// and for Go the types its struct or interface embeds, whose methods
    /// it is promoted.
    fn bases(&mut self, d: &GraphDef) -> Vec<String> {
        let header = self.header(d);
        let mut out: Vec<String> = bases_of(&GraphDef {
            signature: header,
            ..d.clone()
        })
        .into_iter()
        .map(str::to_string)
        .collect();
        if d.lang == "go"
            && (d.signature.contains("struct") || d.signature.contains("interface"))
            && let Some(text) = self.text(d.file_id, &d.path)
        {
            out.retain(|b| b != "struct" && b != "interface" && b != "type");
            let from = d.name_line as usize;
            let end = (d.end_line as usize).min(text.lines.len());
            for line in text.lines.get(from..end).unwrap_or_default() {
                if let Some(t) = go_embedded(line) {
                    out.push(t.to_string());
                }
            }
        }
        out
    }

    /// [`Graph::bases`] of every type definition named `class`, worked out
    /// once per graph: resolving a member's uses asks for the same
    /// classes' bases once per use (Django's `QuerySet.filter`, 2,685
    /// candidate uses: half of its 1.1 s went to reading the same headers).
    fn bases_named(&mut self, class: &str) -> Result<Rc<Vec<String>>> {
        if let Some(b) = self.bases_by_name.get(class) {
            return Ok(Rc::clone(b));
        }
        let defs = self.defs_named(class)?;
        let bases: Rc<Vec<String>> = Rc::new(
            defs.iter()
                .filter(|d| is_type_kind(&d.kind))
                .flat_map(|d| self.bases(d))
                .collect(),
        );
        self.bases_by_name
            .insert(class.to_string(), Rc::clone(&bases));
        Ok(bases)
    }

    /// Every ancestor `class`'s headers name, nearest first, up to eight
    /// generations.
    fn ancestors(&mut self, class: &str) -> Result<Vec<String>> {
        let mut out: Vec<String> = Vec::new();
        let mut level = vec![class.to_string()];
        for _ in 0..8 {
            let mut next = Vec::new();
            for c in &level {
                for b in self.bases_named(c)?.iter() {
                    if b != class && !out.contains(b) {
                        out.push(b.clone());
                        next.push(b.clone());
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        Ok(out)
    }

    fn subclasses_of(&mut self, class: &str) -> Result<Rc<Vec<String>>> {
        if self.subclasses.is_none() {
            // One pass over every type's first line: base → subclasses.
            let mut map: HashMap<String, Vec<String>> = HashMap::new();
            for d in self.store.graph_types()? {
                for b in self.bases(&d) {
                    if b != d.name {
                        map.entry(b).or_default().push(d.name.clone());
                    }
                }
            }
            let map = map
                .into_iter()
                .map(|(k, mut v)| {
                    v.sort();
                    v.dedup();
                    (k, Rc::new(v))
                })
                .collect();
            self.subclasses = Some(map);
        }
        Ok(self
            .subclasses
            .as_ref()
            .and_then(|m| m.get(class).cloned())
            .unwrap_or_default())
    }

    /// The innermost Ruby module around a line of a file, if any: it holds
    /// methods as a class does (`Web::Request::Helpers#get` calls its fellow
    /// `parse_query` bare), and is mixed into classes whose methods it
    /// calls bare too.
    fn enclosing_ruby_module(&mut self, file_id: i64, line: u32) -> Result<Option<String>> {
        Ok(self
            .innermost(file_id, line, |d| d.kind == "module" && d.lang == "ruby")?
            .map(|d| d.name))
    }

    /// The innermost type around a line of a file: a class-like definition
    /// containing it, else the container of the method containing it (Go
    /// receivers, out-of-line C++ methods).
    fn enclosing_class(&mut self, file_id: i64, line: u32) -> Result<Option<String>> {
        let defs = self.defs_of_file(file_id)?;
        let mut class: Option<&GraphDef> = None;
        let mut method: Option<&GraphDef> = None;
        for d in defs.iter() {
            if d.start_line <= line && line <= d.end_line {
                if is_type_kind(&d.kind) {
                    class = Some(d);
                } else if d.kind == "method" {
                    method = Some(d);
                }
            }
        }
        if let Some(c) = class {
            return Ok(Some(c.name.clone()));
        }
        Ok(method.and_then(|m| m.container.clone()))
    }

    /// The type `this`/`self` has at a reference: a TypeScript callable's
    /// declared `this` parameter (a Python one's annotated `self`) when it
    /// names a project type, a type
    /// alias too (`consume(this: MixedInParser, …)` in a class mixed into
    /// `type MixedInParser = RecognizerApi & LexerAdapter & …`), else the
    /// enclosing class.
    fn this_class(&mut self, r: &GraphRef) -> Result<Option<String>> {
        // Python: `def new_func(self: "CodeGenerator", …)` outside a class
        // (a decorator's wrapper) says what `self` is.
        let word = match r.lang.as_str() {
            "typescript" | "tsx" => "this",
            "python" => "self",
            _ => "",
        };
        if !word.is_empty()
            && let Some(f) = self.enclosing_callable(r.file_id, r.line)?
        {
            let header = self.header(&f);
            if let Some(params) = params_of(&header, &f.name)
                && let Some((_, Some(ann))) = params.first().filter(|p| p.0 == word)
                && let Some(ty) = leading_type(ann)
                && self.is_project_type(&ty)?
            {
                return Ok(Some(ty));
            }
        }
        let class = self.enclosing_class(r.file_id, r.line)?;
        // JavaScript outside a class: a function assigned onto an object
        // (`app.enable = function () { return this.set(…) }`,
        // `Router.prototype.route = …`) is called on it.
        if class.is_none()
            && matches!(r.lang.as_str(), "javascript" | "typescript" | "tsx")
            && let Some(f) = self.enclosing_callable(r.file_id, r.line)?
            && f.kind == "function"
            && f.container.is_some()
            && self.class_of(&f)? == f.container
        {
            return Ok(f.container);
        }
        Ok(class)
    }

    /// The innermost definition around a line that `keep` accepts.
    fn innermost(
        &mut self,
        file_id: i64,
        line: u32,
        keep: impl Fn(&GraphDef) -> bool,
    ) -> Result<Option<GraphDef>> {
        let defs = self.defs_of_file(file_id)?;
        Ok(defs
            .iter()
            .rev()
            .find(|d| d.start_line <= line && line <= d.end_line && keep(d))
            .cloned())
    }

    /// The innermost function or method around a line.
    fn enclosing_callable(&mut self, file_id: i64, line: u32) -> Result<Option<GraphDef>> {
        self.innermost(file_id, line, |d| {
            matches!(d.kind.as_str(), "function" | "method")
        })
    }

    /// The innermost function, method or type around a line (the caller of
    /// a call there).
    fn scope_def(&mut self, file_id: i64, line: u32) -> Result<Option<GraphDef>> {
        self.innermost(file_id, line, |d| {
            matches!(d.kind.as_str(), "function" | "method") || is_type_kind(&d.kind)
        })
    }

    /// Does `class` (or a type of that name) define a member `name`?
    fn defines(&mut self, class: &str, name: &str) -> Result<bool> {
        Ok(self
            .defs_named(name)?
            .iter()
            .any(|d| d.container.as_deref() == Some(class)))
    }

    /// A definition's whole header when its first line does not end it
    /// (`class ZodTuple<\n T …\n> extends ZodType<…> {`, a Python `def`
    /// whose parameters span lines before `-> T:`): its lines from the
    /// name's up to the one that opens the body, joined, at most 24.
    fn header(&mut self, d: &GraphDef) -> String {
        let sig = d.signature.trim_end();
        let complete = sig.ends_with('{')
            || sig.ends_with(':') && d.lang == "python"
            || sig.ends_with(';')
            || sig.ends_with("=>");
        if complete {
            return d.signature.clone();
        }
        let key = (d.file_id, d.name_line, d.name_col);
        if let Some(h) = self.headers.get(&key) {
            return h.clone();
        }
        let h = self.read_header(d);
        self.headers.insert(key, h.clone());
        h
    }

    /// [`Graph::header`] read from the file: its lines from the name's,
    /// until one ends the header.
    fn read_header(&mut self, d: &GraphDef) -> String {
        let Some(text) = self.text(d.file_id, &d.path) else {
            return d.signature.clone();
        };
        let from = d.name_line.max(1) as usize - 1;
        let mut out = String::new();
        for line in text.lines.iter().skip(from).take(24) {
            // `// The parser we are using.` between parameters is not one.
            let t = if d.lang == "python" {
                line.trim()
            } else {
                strip_line_comment(line).trim()
            };
            if t.is_empty() {
                continue;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(t);
            let ends = if d.lang == "python" {
                t.ends_with(':') && !t.ends_with("::")
            } else {
                t.ends_with('{') || t.ends_with(';') || t.ends_with("=>")
            };
            if ends {
                break;
            }
        }
        out
    }

    /// The type the callables named `name` return, when their signatures
    /// say and agree (`-> T`, `): T`, Go's result, Java's return type).
    fn return_type(&mut self, name: &str, callee: Callee, awaited: bool) -> Result<Option<String>> {
        // `-> Self` without the receiver's class says nothing.
        let known = |t: &String| !matches!(t.as_str(), "Self" | "this");
        if matches!(callee, Callee::Any | Callee::Member)
            && let Some(t) = self
                .return_annotation(name, callee)?
                .and_then(|a| leading_type(awaited_ann(&a, awaited)))
                .filter(known)
        {
            return Ok(Some(t));
        }
        // No annotation: what the bodies return, when they agree.
        let defs = self.defs_named(name)?;
        let mut found: Option<String> = None;
        for d in defs
            .iter()
            .filter(|d| matches!(d.kind.as_str(), "function" | "method") && callee.admits(d))
        {
            let header = self.header(d);
            let ty = match return_type_of(&header, &d.name, &d.lang) {
                // `T[]` of `array<T>(…)`: a type parameter says nothing.
                Some(a) => type_in(awaited_ann(&a, awaited), &d.lang)
                    .filter(|t| known(t) && !is_type_param(&header, &d.name, t)),
                None => self.inferred_return(d)?,
            };
            match (&found, ty) {
                // A TypeScript method whose return is neither shown nor
                // inferred may return another type (see
                // `return_annotation`).
                (_, None)
                    if d.container.is_some() && matches!(d.lang.as_str(), "typescript" | "tsx") =>
                {
                    return Ok(None);
                }
                (_, None) => {}
                (Some(f), Some(t)) if *f != t => return Ok(None),
                (_, Some(t)) => found = Some(t),
            }
        }
        Ok(found)
    }

    /// The type an un-annotated callable returns, from its `return`
    /// statements: every one that says something (`None`/`null` aside)
    /// must evaluate to the same type (`return Response()`, `return
    /// session.request(…)`, `return resp` with `resp = self.send(…)`).
    fn inferred_return(&mut self, d: &GraphDef) -> Result<Option<String>> {
        let key = (d.file_id, d.name_line, d.name_col);
        if let Some(t) = self.inferred.get(&key) {
            return Ok(t.clone());
        }
        // In progress: a recursive call says nothing.
        self.inferred.insert(key, None);
        if self.call_depth >= INFER_DEPTH {
            return Ok(None);
        }
        let Some(text) = self.text(d.file_id, &d.path) else {
            return Ok(None);
        };
        // What the documentation says: `:rtype: requests.Response` in a
        // Python docstring, `@returns {Node}` in the JSDoc above.
        if let Some(t) = documented_return(&text.lines, d) {
            self.inferred.insert(key, Some(t.clone()));
            return Ok(Some(t));
        }
        let mut found: Option<String> = None;
        let mut unknown = false;
        let from = d.name_line.max(1) as usize;
        let end = (d.end_line as usize).min(text.lines.len());
        for i in from - 1..end {
            let line = text.lines[i].trim();
            let expr = if i + 1 == from {
                // A body on the header's line: `get parent() { return
                // this.node(this.depth) }`.
                line.find("{ return ")
                    .map(|at| line[at + 9..].trim_end())
                    .and_then(|e| e.strip_suffix('}'))
                    .map(|e| e.trim_end().trim_end_matches(';').trim_end())
                    .filter(|e| !e.contains('{') && !e.contains('}'))
            } else {
                line.strip_prefix("return ")
                    .map(|e| e.trim().trim_end_matches(';').trim_end())
            };
            let Some(expr) = expr else {
                continue;
            };
            // `return this._addCheck({` with the arguments on the lines
            // below: the call whose `(` is still open.
            let closed;
            let expr = match unclosed_call(expr) {
                Some(head) => {
                    closed = format!("{head}()");
                    closed.as_str()
                }
                None => expr,
            };
            if text.quoted.get(i).copied().unwrap_or(false)
                || matches!(expr, "None" | "null" | "undefined" | "nil" | "")
            {
                continue;
            }
            let at_line = u32::try_from(i + 1).unwrap_or(u32::MAX);
            // A return of a nested function is not this one's.
            match self.enclosing_callable(d.file_id, at_line)? {
                Some(e) if e.name_line != d.name_line || e.name_col != d.name_col => continue,
                _ => {}
            }
            let at = GraphRef {
                file_id: d.file_id,
                path: d.path.clone(),
                lang: d.lang.clone(),
                name: d.name.clone(),
                kind: "call".to_string(),
                line: at_line,
                col: 0,
                qualifier: None,
                scope: None,
            };
            self.call_depth += 1;
            let ty = self.expr_type(&at, expr);
            self.call_depth -= 1;
            match ty? {
                Some(t) if found.as_ref().is_none_or(|f| *f == t) => found = Some(t),
                _ => {
                    unknown = true;
                    break;
                }
            }
        }
        let t = if unknown { None } else { found };
        self.inferred.insert(key, t.clone());
        Ok(t)
    }

    /// The type of an expression as written at a reference: `self`, a
    /// construction, a call's result, a bound name.
    fn expr_type(&mut self, r: &GraphRef, expr: &str) -> Result<Option<String>> {
        if is_self_word(expr) {
            return self.this_class(r);
        }
        if let Some(t) = type_of_expr(expr, &r.lang)
            && self.is_type_name(&t)?
        {
            return Ok(Some(t));
        }
        if let Some(head) = call_head(expr) {
            return self.call_result(r, head);
        }
        // `resp`, `this.nodes[this.open]`, `this.form.store`: a binding,
        // an element, a field.
        if expr
            .bytes()
            .all(|b| is_ident_byte(b) || matches!(b, b'.' | b'[' | b']' | b'#'))
        {
            return self.receiver_class(r, expr);
        }
        Ok(None)
    }

    /// The type a call evaluates to, from its head as written: a class
    /// constructed (`FileError`), a method of the receiver's type
    /// (`runner.invoke` with `runner` a `CliRunner`: `CliRunner.invoke`'s
    /// return), else what every callable of that name agrees to return.
    fn call_result(&mut self, r: &GraphRef, head: &str) -> Result<Option<String>> {
        let awaited = std::mem::take(&mut self.awaited);
        // `fromEvent<T>(…)`: the generic arguments say nothing.
        let head = strip_generics(head.trim_end());
        // `new Reader().decode(x)` (Java, C#, JavaScript, PHP, C++): the
        // constructor's class.
        let head = head.strip_prefix("new ").map_or(head, str::trim_start);
        let Some(name) = dotted_last(head) else {
            return Ok(None);
        };
        // `r.Context()` in Go is a method call whatever types the project
        // has: a conversion is `Context(x)` or `pkg.Context(x)`.
        let go_method = r.lang == "go" && name != head && {
            let recv = head[..head.len() - name.len()].trim_end_matches('.');
            !self.is_module(r, recv)?
        };
        if capitalized(name) && !go_method && self.is_type_name(name)? {
            return Ok(Some(name.to_string()));
        }
        // `byIndex(x)`: a Go conversion to a (here unexported) type, which
        // no function of the package can be named like.
        if r.lang == "go" && name == head && self.is_go_type_only(name)? {
            return Ok(Some(name.to_string()));
        }
        // `return cls(…)` in a class method.
        if name == head && matches!(name, "cls" | "Self") {
            return self.enclosing_class(r.file_id, r.line);
        }
        // `self.storage_class(…)`, `response_class(…)`: a class held by an
        // attribute or a variable, called.
        if r.lang == "python"
            && let Some(t) = self.class_value(r, head)?
        {
            return Ok(Some(t));
        }
        let receiver = head[..head.len() - name.len()]
            .trim_end_matches(['.', ':', '>', '-'])
            .trim_end();
        // `windows.shift()!`, `stack.pop()`, `xs.at(-1)`, `xs.find(…)`: an
        // element of a list typed `Subject<T>[]` (or `Array<…>`).
        if matches!(r.lang.as_str(), "typescript" | "tsx" | "javascript")
            && matches!(name, "shift" | "pop" | "at" | "find" | "findLast" | "get")
            && !receiver.is_empty()
            && let Some(text) = self.text(r.file_id, &r.path)
        {
            let from = self.scope_start(r.file_id, r.line)?;
            let line = (r.line as usize).saturating_sub(1);
            let base = receiver.trim_end_matches(['!', '?']);
            if let Some(t) = self.iterable_elem(r, base, &text, from, line)? {
                return Ok(Some(t));
            }
        }
        let receiver_type = match receiver.is_empty() {
            true => None,
            false => self.receiver_class(r, receiver)?,
        };
        // `(err as Error)?.message?.toLowerCase()`: a chain rooted in a
        // value of a type the project does not define stays outside it.
        if receiver_type.is_none()
            && let Some(root) = chain_root(receiver)
            && let Some(t) = self.receiver_class(r, root)?
            && !self.is_project_type(&t)?
        {
            return Ok(None);
        }
        if let Some(class) = &receiver_type
            && !self.is_project_type(class)?
        {
            // `r.Context()` with `r *http.Request`: a method of a type the
            // project does not define says nothing about the project's
            // callables of that name.
            return Ok(None);
        }
        if let Some(class) = receiver_type
            && let Some(d) = self.member_def(&class, name)?
        {
            let header = self.header(&d);
            let ann = return_type_of(&header, &d.name, &d.lang);
            // `-> Self`, `): this`: the receiver's own class.
            // `-> te.Self`, `-> typing.Self` too.
            if ann.as_deref().is_some_and(|a| {
                // `-> "te.Self"`: a quoted annotation too.
                let (path, _) = split_path(a.trim_start().trim_start_matches(['"', '\'']));
                matches!(last_part(path.trim_end_matches(':')), "Self" | "this")
            }) {
                return Ok(Some(class));
            }
            return match ann {
                Some(a) => Ok(type_in(awaited_ann(&a, awaited), &d.lang)),
                None => self.inferred_return(&d),
            };
        }
        // `router := New()` in Go: the package's own `New` (or, through a
        // package name, that package's), never another package's.
        if r.lang == "go" && !go_method {
            return self.go_nth_result(r, head, 0);
        }
        // `app(environ, start_response)` with `app` a parameter of the
        // function around it: a callable value, not the project's `app`.
        if receiver.is_empty() && self.is_parameter(r, name)? {
            return Ok(None);
        }
        // `requests.get(…)`: a function of an imported module. A bare
        // `open(…)` is a function too (maybe a closure), never a method,
        // where a method needs its receiver written (Python, JS/TS, Go,
        // Rust).
        let callee = if receiver.is_empty() {
            if implicit_this(&r.lang) {
                Callee::Any
            } else {
                Callee::Function
            }
        } else if self.is_module(r, receiver)? {
            Callee::TopLevel
        } else {
            Callee::Member
        };
        if let Some(ty) = self.return_type(name, callee, awaited)? {
            return Ok(Some(ty));
        }
        // `z.string()` with `export { stringType as string }` and `const
        // stringType = ZodString.create`: what the aliased callable returns.
        if (receiver.is_empty() || !self.is_receiver(r, receiver)?)
            && let Some(target) = self.value_alias(name)?
            && self.call_depth < INFER_DEPTH
        {
            self.call_depth += 1;
            let ty = self.call_result(r, &target);
            self.call_depth -= 1;
            return ty;
        }
        Ok(None)
    }

    /// Is `name` a parameter of a function or method around the reference?
    fn is_parameter(&mut self, r: &GraphRef, name: &str) -> Result<bool> {
        let defs = self.defs_of_file(r.file_id)?;
        let around = defs.iter().filter(|d| {
            d.start_line <= r.line
                && r.line <= d.end_line
                && matches!(d.kind.as_str(), "function" | "method")
        });
        for d in around {
            let header = self.header(d);
            if params_of(&header, &d.name).is_some_and(|ps| ps.iter().any(|p| p.0 == name)) {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The class a Python attribute or variable holds (not an instance of
    /// it): `self.storage_class` with `storage_class = ds.MultiDict` in
    /// the class (or an ancestor), a name (a parameter) annotated
    /// `type[Response]` or bound to `Response` earlier in its function.
    fn class_value(&mut self, r: &GraphRef, head: &str) -> Result<Option<String>> {
        let class_in = |this: &mut Self, t: &str| -> Result<Option<String>> {
            let t = t.trim();
            let inner = ["type[", "Type[", "t.Type[", "typing.Type[", "t.type["]
                .iter()
                .find_map(|p| t.strip_prefix(p));
            let ty = match inner {
                Some(inner) => leading_type(inner),
                None => {
                    let (path, rest) = split_path(t);
                    let ty = last_part(path);
                    (rest.trim().is_empty() && capitalized(ty)).then(|| ty.to_string())
                }
            };
            Ok(match ty {
                Some(ty) if this.is_type_name(&ty)? => Some(ty),
                _ => None,
            })
        };
        if let Some((recv, attr)) = head.split_once('.') {
            if !matches!(recv, "self" | "cls") || !attr.bytes().all(is_ident_byte) {
                return Ok(None);
            }
            let Some(class) = self.enclosing_class(r.file_id, r.line)? else {
                return Ok(None);
            };
            let Some(d) = self.member_def(&class, attr)? else {
                return Ok(None);
            };
            if !matches!(d.kind.as_str(), "field" | "variable" | "constant") {
                return Ok(None);
            }
            // The class assigned (`storage_class = ds.MultiDict`); an
            // annotation alone (`storage_class: type[MultiDict]` in a base
            // whose subclasses assign it) does not say which.
            let value = d
                .signature
                .split_once('=')
                .filter(|(_, v)| !v.starts_with('='))
                .map(|(_, v)| v.trim());
            return match value {
                Some(v) => class_in(self, v),
                None => Ok(None),
            };
        }
        if !head.bytes().all(is_ident_byte) || capitalized(head) {
            return Ok(None);
        }
        let Some(text) = self.text(r.file_id, &r.path) else {
            return Ok(None);
        };
        let from = self.scope_start(r.file_id, r.line)?;
        let upto = (r.line as usize).saturating_sub(1).min(text.lines.len());
        for line in text.lines[from.min(upto)..upto].iter().rev() {
            if let Some(ann) = annotation_in_line(line, head) {
                return class_in(self, &ann);
            }
            if let Some(value) = name_bound_in_line(line, head) {
                return class_in(self, &value);
            }
        }
        Ok(None)
    }

    /// The class of a receiver as written: `self`, a call's result
    /// (`z.string()`), a class named for a static method (`ZodString`), or
    /// a bound variable.
    fn receiver_class(&mut self, r: &GraphRef, receiver: &str) -> Result<Option<String>> {
        if self.call_depth >= INFER_DEPTH {
            return Ok(None);
        }
        self.call_depth += 1;
        let class = self.receiver_class_inner(r, receiver);
        self.call_depth -= 1;
        class
    }

    fn receiver_class_inner(&mut self, r: &GraphRef, receiver: &str) -> Result<Option<String>> {
        let receiver = receiver.trim().trim_end_matches(['!', '?']);
        if is_self_word(receiver) {
            return self.this_class(r);
        }
        // `(last as TextNode)`: a TypeScript cast says the type; not
        // `(x as T)._def.type.parseAsync(…)`, whose parentheses close early.
        let inner = receiver
            .strip_suffix(')')
            .filter(|x| matching_open(x) == Some(0))
            .map_or(receiver, |x| &x[1..]);
        if let Some((before, ty)) = inner.rsplit_once(" as ")
            && before.matches('(').count() == before.matches(')').count()
        {
            return Ok(leading_type(ty));
        }
        // `(f.Value.(*Timestamp))`: a Go type assertion in parentheses.
        if r.lang == "go"
            && inner.len() < receiver.len()
            && inner.ends_with(')')
            && let Some(t) = type_of_expr(inner, "go")
        {
            return Ok(Some(t));
        }
        // `Test{name: "x"}.Run()`, `(&Test{…}).Run()`: a Go composite
        // literal of a project type.
        if r.lang == "go"
            && inner.ends_with('}')
            && let Some(t) = type_of_expr(inner, "go")
            && self.is_type_name(&t)?
        {
            return Ok(Some(t));
        }
        // `this.nodes[i]`, `self.items[0]`: an element of what is indexed.
        if let Some(base) = receiver.strip_suffix(']')
            && let Some(open) = base.rfind('[')
        {
            let base = base[..open].trim_end();
            let Some(text) = self.text(r.file_id, &r.path) else {
                return Ok(None);
            };
            let line = (r.line as usize).saturating_sub(1);
            let from = self.scope_start(r.file_id, r.line)?;
            return self.iterable_elem(r, base, &text, from, line);
        }
        // `n.FirstChild().(*Text)`: a Go type assertion ends the receiver.
        if r.lang == "go" && call_head(receiver).is_some_and(|h| h.ends_with('.')) {
            return Ok(type_of_expr(receiver, "go"));
        }
        if let Some(inner) = call_head(receiver) {
            return self.call_result(r, inner);
        }
        // `Uppy.prototype.destroy`: a method read off the class's prototype.
        if matches!(r.lang.as_str(), "typescript" | "tsx" | "javascript")
            && let Some(class) = receiver.strip_suffix(".prototype")
            && capitalized(last_part(class))
            && self.is_type_name(last_part(class))?
        {
            return Ok(Some(last_part(class).to_string()));
        }
        if capitalized(last_part(receiver)) && self.is_visible_type(r, receiver)? {
            // `[Extension, Node].forEach(Extendable => Extendable.create())`:
            // a lambda's parameter named like a class is a value, not it.
            if receiver == last_part(receiver)
                && matches!(r.lang.as_str(), "typescript" | "tsx" | "javascript")
                && let Some(text) = self.text(r.file_id, &r.path)
                && lambda_param_around(&text.lines, (r.line as usize).saturating_sub(1), receiver)
            {
                return Ok(None);
            }
            return Ok(Some(last_part(receiver).to_string()));
        }
        match self.bound_type(r, receiver)? {
            Some(t) => Ok(Some(t)),
            // `this.form.baseStore`: a field's declared type.
            None => self.field_type(r, receiver),
        }
    }

    /// The member `name` where `class` or its nearest ancestor defines it.
    fn member_def(&mut self, class: &str, name: &str) -> Result<Option<GraphDef>> {
        let defs = self.defs_named(name)?;
        let mut classes = vec![class.to_string()];
        for _ in 0..8 {
            let Some(c) = classes.pop() else { break };
            if let Some(d) = defs
                .iter()
                .find(|d| d.container.as_deref() == Some(c.as_str()))
            {
                return Ok(Some(d.clone()));
            }
            classes.extend(self.bases_named(&c)?.iter().cloned());
        }
        Ok(None)
    }

    /// The type of a lambda's parameter `q` from the callable the lambda is
    /// passed to: `new Observable((subscriber) => …)` with `constructor(
    /// subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => …)`,
    /// `operate((source, subscriber) => …)`.
    fn lambda_param_type(
        &mut self,
        r: &GraphRef,
        lines: &[String],
        i: usize,
        q: &str,
    ) -> Result<Option<String>> {
        let line = &lines[i];
        let joined;
        let site = match lambda_site(line, 0, q) {
            Some(site) => site,
            None => {
                // `new Observable(\n  scheduler\n  ? (subscriber) => {`: the
                // call opens a few lines up, maybe before another lambda
                // (`? (s) => {…}\n : (s) => {`), whose brackets balance.
                let mut text = String::new();
                for l in &lines[i.saturating_sub(24)..i] {
                    text.push_str(strip_line_comment(l));
                    text.push(' ');
                }
                let from = text.len();
                text.push_str(line);
                joined = text;
                let Some(site) = lambda_site(&joined, from, q) else {
                    return Ok(None);
                };
                site
            }
        };
        let name = site.callee.rsplit(['.', ':']).next().unwrap_or(site.callee);
        let receiver = site.callee[..site.callee.len() - name.len()]
            .trim_end_matches(['.', ':', '?'])
            .trim_end();
        // `this.content.forEach(node => …)`: an array method's callback
        // gets the array's elements first.
        if site.arg == 0
            && site.param == 0
            && !receiver.is_empty()
            && matches!(
                name,
                "forEach" | "map" | "filter" | "find" | "findLast" | "some" | "every" | "flatMap"
            )
        {
            let Some(text) = self.text(r.file_id, &r.path) else {
                return Ok(None);
            };
            let at = at_line(r, i);
            let from = self.scope_start(r.file_id, at.line)?;
            if let Some(ty) = self.iterable_elem(&at, receiver, &text, from, i)? {
                return Ok(Some(ty));
            }
        }
        let defs: Vec<GraphDef> = if site.new || capitalized(name) && self.is_type_name(name)? {
            self.defs_named("constructor")?
                .iter()
                .filter(|d| d.container.as_deref() == Some(name))
                .cloned()
                .collect()
        } else if receiver.is_empty() {
            self.defs_named(name)?
                .iter()
                .filter(|d| d.container.is_none() && d.kind == "function")
                .cloned()
                .collect()
        } else {
            match self.receiver_class(r, receiver)? {
                Some(class) => self.member_def(&class, name)?.into_iter().collect(),
                None => Vec::new(),
            }
        };
        for d in defs {
            let header = self.header(&d);
            let Some(params) = params_of(&header, &d.name) else {
                continue;
            };
            let Some(ann) = params.get(site.arg).and_then(|p| p.1) else {
                continue;
            };
            let ann = ann.trim();
            let Some(inner) = ann.strip_prefix('(').and_then(|_| params_of(ann, "")) else {
                continue;
            };
            let inner: Vec<_> = inner.into_iter().filter(|p| p.0 != "this").collect();
            if let Some(ty) = inner
                .get(site.param)
                .and_then(|p| p.1)
                .and_then(leading_type)
            {
                return Ok(Some(ty));
            }
        }
        Ok(None)
    }

    /// The callable a top-level name stands for when it is only another
    /// name for one: `export { stringType as string }` → `stringType`,
    /// `const stringType = ZodString.create;` → `ZodString.create`. `None`
    /// unless every such definition of `name` agrees.
    fn value_alias(&mut self, name: &str) -> Result<Option<String>> {
        let defs = self.defs_named(name)?;
        let mut found: Option<String> = None;
        for d in defs
            .iter()
            .filter(|d| d.container.is_none() && matches!(d.kind.as_str(), "constant" | "variable"))
        {
            let Some(target) = alias_in(&d.signature, name) else {
                continue;
            };
            match &found {
                Some(f) if *f != target => return Ok(None),
                _ => found = Some(target),
            }
        }
        Ok(found.filter(|t| t != name))
    }

    /// The class `name` stands for when it is no type itself but a
    /// module-level name for one (`URL = Url`); else `name`.
    fn class_alias(&mut self, name: String) -> Result<String> {
        if !capitalized(&name) || self.is_type_name(&name)? {
            return Ok(name);
        }
        match self.value_alias(&name)? {
            Some(t) if self.is_type_name(&t)? => Ok(t),
            _ => Ok(name),
        }
    }

    /// The return annotation as written of the callable a call's head
    /// names: the receiver's class's (or an ancestor's) method, else the
    /// annotation every callable of that name agrees on.
    fn call_annotation(&mut self, r: &GraphRef, head: &str) -> Result<Option<String>> {
        let head = strip_generics(head.trim_end());
        let Some(name) = dotted_last(head) else {
            return Ok(None);
        };
        let receiver = head[..head.len() - name.len()]
            .trim_end_matches(['.', '?', '!'])
            .trim_end();
        if receiver.is_empty() {
            return self.return_annotation(name, Callee::Any);
        }
        let Some(class) = self.receiver_class(r, receiver)? else {
            return Ok(None);
        };
        let Some(d) = self.member_def(&class, name)? else {
            return Ok(None);
        };
        let header = self.header(&d);
        Ok(return_type_of(&header, &d.name, &d.lang))
    }

    /// What iterating over a call of `name` yields: `T` of `List[T]`,
    /// `Iterator[T]`, `T[]`, `Array<T>`.
    fn element_type(&mut self, name: &str) -> Result<Option<String>> {
        Ok(self
            .return_annotation(name, Callee::Any)?
            .and_then(|a| element_of(&a)))
    }

    /// The return annotation the callables `name` that `callee` admits
    /// agree on (`Any` or `Member`).
    fn return_annotation(&mut self, name: &str, callee: Callee) -> Result<Option<String>> {
        let key = (name.to_string(), callee == Callee::Member);
        if let Some(t) = self.returns.get(&key) {
            return Ok(t.clone());
        }
        let defs = self.defs_named(name)?;
        let mut found: Option<String> = None;
        let mut agree = true;
        for d in defs
            .iter()
            .filter(|d| callee.admits(d))
            .filter(|d| {
                !d.signature.starts_with("@overload") && !d.signature.starts_with("@t.overload")
            })
            .filter(|d| {
                matches!(d.kind.as_str(), "function" | "method")
                    // `static create = (…): ZodString => …`
                    || d.signature.contains("=>")
            })
        {
            let header = self.header(d);
            if let Some(t) = return_type_of(&header, &d.name, &d.lang) {
                match &found {
                    // Overloads agree when they name the same type.
                    Some(f) if leading_type(f) != leading_type(&t) => agree = false,
                    _ => found = Some(t),
                }
            } else if d.container.is_some() && matches!(d.lang.as_str(), "typescript" | "tsx") {
                // A TypeScript method whose return the header does not
                // show (`Extension.extend<…>(…long…)` beside
                // `Extendable.extend(…): Extendable`) may return another
                // type: the others' annotation does not speak for it.
                agree = false;
            }
        }
        let t = if agree { found } else { None };
        self.returns.insert(key, t.clone());
        Ok(t)
    }

    /// The declared type of a field reached through `self.x` / `this.x`
    /// (or any `a.x`): the annotation on the definition of `x` in the
    /// enclosing class or, failing that, the only field of that name.
    fn field_type(&mut self, r: &GraphRef, q: &str) -> Result<Option<String>> {
        let Some((head, field)) = q.rsplit_once('.') else {
            return Ok(None);
        };
        // `this.#cache`: a JavaScript private field.
        let bare = field.strip_prefix('#').unwrap_or(field);
        if bare.is_empty() || !bare.bytes().all(is_ident_byte) {
            return Ok(None);
        }
        let class = if self.is_receiver(r, head)? {
            self.this_class(r)?
        } else {
            None
        };
        // `resp.raw.read()`, `r.routeConf.regexp`: the member where the
        // receiver's class (or an ancestor) declares it.
        let owner = match &class {
            Some(c) => Some(c.clone()),
            None => self.receiver_class(r, head)?,
        };
        if let Some(owner) = owner {
            if let Some(d) = self.member_def(&owner, field)? {
                if matches!(
                    d.kind.as_str(),
                    "field" | "variable" | "constant" | "property"
                ) {
                    return Ok(binding_in_line(&d.signature, field, &d.lang));
                }
                // A property (`@property def headers(self) -> Headers`, a
                // TypeScript `get headers(): Headers`): what it returns.
                let header = self.header(&d);
                let accessor = header.trim_start().starts_with("@property")
                    || header.contains("@cached_property")
                    || header.trim_start().starts_with("get ");
                if !accessor {
                    return Ok(None);
                }
                return match return_type_of(&header, field, &d.lang) {
                    Some(a) => Ok(type_in(&a, &d.lang)),
                    // `get parent() { return this.node(this.depth) }`
                    None => self.inferred_return(&d),
                };
            }
            if r.lang == "go" {
                return self.go_field_type(&owner, field);
            }
            // `constructor(readonly parser: DOMParser)`: a TypeScript
            // parameter property is a field.
            if matches!(r.lang.as_str(), "typescript" | "tsx")
                && let Some(ctor) = self.member_def(&owner, "constructor")?
            {
                let header = self.header(&ctor);
                if let Some(params) = params_of(&header, "constructor")
                    && let Some((_, Some(ann))) = params.iter().find(|p| p.0 == field)
                {
                    return Ok(leading_type(ann));
                }
            }
        }
        // `for _, tc := range cases { tc.r.Do() }` with `cases := []struct
        // { r *Route }{…}`: a field of a Go anonymous struct type.
        if r.lang == "go"
            && let Some(text) = self.text(r.file_id, &r.path)
        {
            let from = self.scope_start(r.file_id, r.line)?;
            let upto = (r.line as usize).min(text.lines.len());
            if let Some(body) = go_anon_struct(&text.lines, from, upto, head, 0) {
                return Ok(
                    go_field_decl(body.split(['\n', ';']), field).and_then(|ty| type_in(ty, "go"))
                );
            }
        }
        // `uploader: { uppy: Uppy<M, B> }`: a parameter or variable
        // annotated with an inline object type names its members' types.
        if class.is_none()
            && matches!(r.lang.as_str(), "typescript" | "tsx")
            && head.bytes().all(is_ident_byte)
            && let Some(text) = self.text(r.file_id, &r.path)
        {
            let from = self.scope_start(r.file_id, r.line)?;
            let upto = (r.line as usize).min(text.lines.len());
            let ann = text.lines[from.min(upto)..upto]
                .iter()
                .rev()
                .find_map(|l| annotation_in_line(l, head));
            if let Some(ann) = ann
                && let Some(body) = ann.strip_prefix('{').and_then(|a| a.strip_suffix('}'))
            {
                return Ok(body.split([';', ',']).find_map(|m| {
                    let (n, a) = m.split_once(':')?;
                    (n.trim().trim_end_matches('?') == field).then(|| leading_type(a))?
                }));
            }
        }
        let defs = self.defs_named(field)?;
        let fields: Vec<&GraphDef> = defs
            .iter()
            .filter(|d| {
                matches!(
                    d.kind.as_str(),
                    "field" | "variable" | "constant" | "property"
                )
            })
            .filter(|d| class.is_none() || d.container == class)
            .collect();
        let [f] = fields.as_slice() else {
            return Ok(None);
        };
        Ok(binding_in_line(&f.signature, field, &f.lang))
    }

    /// The type of a Go struct's field, from the struct's body (`name
    /// *Router`, `a, b Matcher`), or of a struct it embeds.
    fn go_field_type(&mut self, class: &str, field: &str) -> Result<Option<String>> {
        Ok(self
            .go_field_ann(class, field)?
            .and_then(|a| type_in(&a, "go")))
    }

    /// The declared type of a Go struct's field as written (`[]*Route`).
    fn go_field_ann(&mut self, class: &str, field: &str) -> Result<Option<String>> {
        Ok(self.go_field_ann_at(class, field)?.map(|(ann, _)| ann))
    }

    /// [`Self::go_field_ann`], with the file of the struct declaring it.
    fn go_field_ann_at(&mut self, class: &str, field: &str) -> Result<Option<(String, String)>> {
        let mut todo = vec![class.to_string()];
        let mut seen = HashSet::new();
        while let Some(c) = todo.pop() {
            if !seen.insert(c.clone()) || seen.len() > 16 {
                continue;
            }
            let defs = self.defs_named(&c)?;
            for d in defs
                .iter()
                .filter(|d| d.lang == "go" && is_type_kind(&d.kind))
            {
                let Some(text) = self.text(d.file_id, &d.path) else {
                    continue;
                };
                let from = d.name_line as usize;
                let end = (d.end_line as usize).min(text.lines.len());
                // `type Conn struct{ seg Segment; n int }`: a body on the
                // header's line.
                let inline = text
                    .lines
                    .get(from.saturating_sub(1))
                    .and_then(|l| l.split_once("struct{").or_else(|| l.split_once("struct {")))
                    .and_then(|(_, body)| body.rsplit_once('}'))
                    .map(|(body, _)| body.split(';').map(str::to_string).collect::<Vec<_>>())
                    .unwrap_or_default();
                let body = inline
                    .iter()
                    .chain(text.lines.get(from..end).unwrap_or_default())
                    .map(String::as_str);
                if let Some(ty) = go_field_decl(body, field) {
                    return Ok(Some((ty.to_string(), d.path.clone())));
                }
            }
            todo.extend(self.bases_named(&c)?.iter().cloned());
        }
        Ok(None)
    }

    /// The slice, array or map type a Go expression has, as written: a
    /// call's result, a field, a variable or parameter declared with one,
    /// the value of a `range` over another (`for _, ns := range
    /// n.children`), and through a named type (`type nodes []*node`).
    fn go_iter_ann(
        &mut self,
        r: &GraphRef,
        expr: &str,
        text: &FileText,
        from: usize,
        upto: usize,
        depth: usize,
    ) -> Result<Option<String>> {
        if depth > 4 {
            return Ok(None);
        }
        let ann = if let Some(head) = call_head(expr) {
            match dotted_last(head) {
                Some(name) if name == head => self.return_annotation(name, Callee::Any)?,
                Some(name) => self.return_annotation(name, Callee::Member)?,
                None => None,
            }
        } else if !expr.bytes().all(|b| is_ident_byte(b) || b == b'.') || expr.is_empty() {
            return Ok(None);
        } else if let Some((head, field)) = expr.rsplit_once('.') {
            match self.owner_of(r, head)? {
                Some(o) => self.go_field_ann(&o, field)?,
                None => None,
            }
        } else {
            let upto = upto.min(text.lines.len().saturating_sub(1));
            let lines = text.lines.get(from..=upto).unwrap_or_default();
            let mut found = None;
            for (k, l) in lines.iter().enumerate().rev() {
                if let Some(a) = go_declared_ann(l, expr) {
                    found = Some(a);
                    break;
                }
                // `for _, matchers := range hr`: an element of what is
                // ranged over, itself a slice or map.
                if let Some(over) = go_range_value(l, expr) {
                    found = self
                        .go_iter_ann(r, &over, text, from, from + k, depth + 1)?
                        .and_then(|a| go_elem_ann(&a).map(str::to_string));
                    break;
                }
            }
            match found {
                Some(a) => Some(a),
                // A receiver or a variable of a named slice or map type.
                None => self.owner_of(r, expr)?,
            }
        };
        let Some(ann) = ann else { return Ok(None) };
        let named = ann.trim().trim_start_matches('*');
        if named.starts_with('[') || named.starts_with("map[") || go_chan_elem(named).is_some() {
            return Ok(Some(ann));
        }
        let name = last_part(named);
        if name.is_empty() || !name.bytes().all(is_ident_byte) {
            return Ok(None);
        }
        let defs = self.defs_named(name)?;
        Ok(defs
            .iter()
            .filter(|d| d.lang == "go" && (d.kind == "type" || is_type_kind(&d.kind)))
            .find_map(|d| go_underlying(&d.signature).map(str::to_string)))
    }

    /// The element type of an iterable name or attribute by its annotation:
    /// `self.params` with `params: list[Parameter]` in the class (or an
    /// ancestor), `items` with `items: Item[]` as a parameter or variable
    /// of the function (lines `from..=upto`); for Go, what a `range` walks:
    /// a field (`p.conns` of type `[]*Conn`), a call's result, a variable
    /// or parameter declared with a slice, array or map type.
    fn iterable_elem(
        &mut self,
        r: &GraphRef,
        expr: &str,
        text: &FileText,
        from: usize,
        upto: usize,
    ) -> Result<Option<String>> {
        if r.lang == "go" {
            let ann = self.go_iter_ann(r, expr, text, from, upto, 0)?;
            return Ok(ann.and_then(|a| go_elem(&a)));
        }
        let ann = if let Some(head) = call_head(expr) {
            // `this.queries.values()`, `xs.filter(…)`, `xs.slice()`: a
            // collection's own elements.
            if let Some(name) = dotted_last(head)
                && matches!(
                    name,
                    "values"
                        | "filter"
                        | "slice"
                        | "concat"
                        | "reverse"
                        | "sort"
                        | "toSorted"
                        | "toReversed"
                )
                && let Some(base) = head[..head.len() - name.len()].strip_suffix('.')
                && !base.is_empty()
                && self.call_depth < INFER_DEPTH
            {
                let base = base.trim_end_matches(['?', '!']);
                self.call_depth += 1;
                let elem = self.iterable_elem(r, base, text, from, upto);
                self.call_depth -= 1;
                if let Some(t) = elem? {
                    return Ok(Some(t));
                }
            }
            // `this.cache.all()` with `all(): Array<Query>`: what the
            // method of the receiver's class returns, else what every
            // callable of that name agrees to.
            self.call_annotation(r, head)?
        } else if !expr
            .bytes()
            .all(|b| is_ident_byte(b) || b == b'.' || b == b'#')
            || expr.is_empty()
        {
            return Ok(None);
        } else if let Some((head, field)) = expr.rsplit_once('.') {
            match self.owner_of(r, head)? {
                Some(o) => self.member_annotation(&o, field)?,
                None => None,
            }
        } else {
            // `items: list[Item]`, `items: Item[]` (a parameter or a
            // variable); Go's are read by `go_iter_ann`.
            let upto = upto.min(text.lines.len().saturating_sub(1));
            // A closure (`const handleError = (err) => {…}`) sees the
            // lists of the functions around it: their lines before it too.
            let at = u32::try_from(upto + 1).unwrap_or(u32::MAX);
            let outer = self
                .defs_of_file(r.file_id)?
                .iter()
                .filter(|d| {
                    d.start_line <= at
                        && at <= d.end_line
                        && (d.start_line.max(1) as usize - 1) < from
                        && matches!(d.kind.as_str(), "function" | "method")
                })
                .map(|d| d.start_line.max(1) as usize - 1)
                .min();
            let from = match (self.is_block_scoped(r), outer) {
                (true, Some(o)) => o,
                _ => from,
            };
            let lines = text.lines.get(from..=upto).unwrap_or_default();
            let mut found = None;
            for (k, l) in lines.iter().enumerate().rev() {
                if let Some(a) = annotation_in_line(l, expr)
                    .or_else(|| constructed_in_line(l, expr).filter(|a| a.contains('<')))
                {
                    found = Some(a);
                    break;
                }
                // `const queries = cache.findAll()` with `findAll():
                // Query[]`: what the call returns.
                if let Some(head) = call_bound_in_line(l, expr) {
                    let at = at_line(r, from + k);
                    found = self.call_annotation(&at, &head)?;
                    break;
                }
                // `let windows = [new Subject<T>()]`: a list literal of
                // constructions.
                if let Some(t) = new_list_in_line(l, expr, &r.lang) {
                    return Ok(Some(t));
                }
                // `const hot = this.hotObservables`: another name for a
                // list, typed where the list is.
                if let Some(rhs) = value_bound_in_line(l, expr)
                    && rhs.bytes().all(|b| is_ident_byte(b) || b == b'.')
                    && rhs != expr
                {
                    if self.call_depth >= INFER_DEPTH {
                        break;
                    }
                    self.call_depth += 1;
                    let elem = self.iterable_elem(r, &rhs, text, from, from + k);
                    self.call_depth -= 1;
                    return elem;
                }
            }
            found
        };
        Ok(ann.and_then(|a| element_of(&a)))
    }

    /// Is the reference's language one where closures are written inline
    /// as nested functions that see the bindings around them (JS/TS)?
    fn is_block_scoped(&self, r: &GraphRef) -> bool {
        matches!(r.lang.as_str(), "typescript" | "tsx" | "javascript")
    }

    /// The class a receiver written before a member belongs to: the
    /// enclosing one for `self`/`this`/a Go receiver, else as
    /// [`Graph::receiver_class`] types it.
    fn owner_of(&mut self, r: &GraphRef, head: &str) -> Result<Option<String>> {
        if self.is_receiver(r, head)? {
            self.this_class(r)
        } else {
            self.receiver_class(r, head)
        }
    }

    /// The first line index of the function around a line (0 outside any).
    fn scope_start(&mut self, file_id: i64, line: u32) -> Result<usize> {
        Ok(match self.enclosing_callable(file_id, line)? {
            Some(f) => f.start_line.max(1) as usize - 1,
            None => 0,
        })
    }

    /// A member's declared type as written: `params: list[Param]` on its
    /// definition, or a TypeScript constructor parameter property
    /// (`constructor(readonly marks: readonly Mark[])`).
    fn member_annotation(&mut self, owner: &str, field: &str) -> Result<Option<String>> {
        if let Some(d) = self.member_def(owner, field)? {
            // `listeners = new Set<Listener>()`: the class constructed.
            return Ok(annotation_in_line(&d.signature, field)
                .or_else(|| constructed_in_line(&d.signature, field)));
        }
        let Some(ctor) = self.member_def(owner, "constructor")? else {
            return Ok(None);
        };
        let header = self.header(&ctor);
        let param = params_of(&header, "constructor").and_then(|params| {
            params
                .into_iter()
                .find(|p| p.0 == field)
                .and_then(|p| p.1.map(str::to_string))
        });
        if param.is_some() || ctor.lang != "javascript" {
            return Ok(param);
        }
        // `/** @type {Option[]} */ this.options = [];` in a JavaScript
        // constructor.
        let Some(text) = self.text(ctor.file_id, &ctor.path) else {
            return Ok(None);
        };
        let from = ctor.start_line.max(1) as usize - 1;
        let end = (ctor.end_line as usize).min(text.lines.len());
        let q = format!("this.{field}");
        Ok((from..end).find_map(|i| jsdoc_assigned_type(&text.lines, i, &q)))
    }

    /// Does `class` or one of its ancestors (by the bases its definitions
    /// name) define a member `name`?
    fn inherits_member(&mut self, class: &str, name: &str) -> Result<bool> {
        let mut seen = HashSet::from([class.to_string()]);
        let mut todo = vec![class.to_string()];
        while let Some(c) = todo.pop() {
            if self.defines(&c, name)? {
                return Ok(true);
            }
            if seen.len() > 64 {
                break;
            }
            for b in self.bases_named(&c)?.iter() {
                if seen.insert(b.clone()) {
                    todo.push(b.clone());
                }
            }
        }
        Ok(false)
    }

    /// A Go type `ty` a line names as `pkg.ty` where the project has no
    /// `ty` in a directory `pkg` (`ctx context.Context` in a project with
    /// its own `Context`): `pkg.ty`, which is no project type; else `ty`.
    fn go_package_type(&mut self, r: &GraphRef, line: &str, ty: String) -> Result<String> {
        let Some(at) = find_word(line, &ty, 0) else {
            return Ok(ty);
        };
        let Some(before) = line[..at].strip_suffix('.') else {
            return Ok(ty);
        };
        let start = before
            .bytes()
            .rposition(|b| !is_ident_byte(b))
            .map_or(0, |i| i + 1);
        let pkg = &before[start..];
        if pkg.is_empty() || before[..start].ends_with('.') {
            return Ok(ty);
        }
        // `ch, err := c.Channel()`: `c` is a value, no package the file
        // imports, and `Channel` the method's result type.
        let Some(import) = self.go_import(r, pkg) else {
            return Ok(ty);
        };
        // `flag "…/pflag"`: an import alias names the package's directory.
        let dir = match import.alias {
            Some(_) => go_module_dir(&import.module),
            None => pkg,
        };
        let in_pkg = self
            .defs_named(&ty)?
            .iter()
            .any(|d| d.lang == "go" && dir_name(&d.path) == Some(dir));
        Ok(if in_pkg { ty } else { format!("{pkg}.{ty}") })
    }

    /// Does the project define a type `name` (a Go `type x []T` too)?
    fn is_project_type(&mut self, name: &str) -> Result<bool> {
        Ok(self
            .defs_named(name)?
            .iter()
            .any(|d| is_type_kind(&d.kind) || d.kind == "type"))
    }

    /// Is `name` a Go type and no Go function?
    fn is_go_type_only(&mut self, name: &str) -> Result<bool> {
        let defs = self.defs_named(name)?;
        let go = || defs.iter().filter(|d| d.lang == "go");
        // `type byIndex []field` is a `type`, not a `struct`.
        Ok(go().any(|d| is_type_kind(&d.kind) || d.kind == "type")
            && !go().any(|d| matches!(d.kind.as_str(), "function" | "method")))
    }

    /// Is the last part of `q` a type the reference can name: any
    /// project type, but in Go a bare name only of its own package
    /// (`type s1 struct` in another package, or in a test function
    /// there, leaves the variable `s1` here a value).
    fn is_visible_type(&mut self, r: &GraphRef, q: &str) -> Result<bool> {
        let last = last_part(q);
        if r.lang != "go" || q != last {
            return self.is_type_name(last);
        }
        Ok(self
            .defs_named(last)?
            .iter()
            .any(|d| is_type_kind(&d.kind) && same_dir(&d.path, &r.path)))
    }

    fn is_type_name(&mut self, name: &str) -> Result<bool> {
        if !name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
        {
            return Ok(false);
        }
        Ok(self.defs_named(name)?.iter().any(|d| is_type_kind(&d.kind)))
    }

    /// Is `ty`, a receiver's declared type, a library's class in Java or
    /// Kotlin: one the project does not define, that the file imports by
    /// name (`import java.util.concurrent.atomic.AtomicInteger;`) or that
    /// `java.lang` gives every file (`String`, `StringBuilder`). A type
    /// parameter (`T item`) is neither, and may stand for a project class.
    fn is_foreign_class(&mut self, r: &GraphRef, ty: &str) -> Result<bool> {
        // Go: a type the project does not define is another package's,
        // whose methods no project definition is (logrus's `entry.Time`,
        // a `time.Time`, had put `Time.Format` calls among the name-only
        // callers of `Formatter.Format`).
        // A package-qualified name (`context.Context`) counts by its type's
        // name: a project type of that name may be another package's
        // of the project.
        if r.lang == "go" {
            let bare = last_part(ty);
            return Ok(!bare.is_empty() && !self.is_type_name(bare)?);
        }
        if !matches!(r.lang.as_str(), "java" | "kotlin") || self.is_type_name(ty)? {
            return Ok(false);
        }
        const JAVA_LANG: &[&str] = &[
            "Boolean",
            "Byte",
            "Character",
            "Class",
            "Double",
            "Enum",
            "Float",
            "Integer",
            "Long",
            "Number",
            "Object",
            "Short",
            "String",
            "StringBuffer",
            "StringBuilder",
            "System",
            "Thread",
            "ThreadLocal",
            "Throwable",
        ];
        if JAVA_LANG.contains(&ty) {
            return Ok(true);
        }
        let rows = self.import_rows(r.file_id);
        Ok(rows
            .iter()
            .any(|i| i.name.is_none() && module_last(&i.module) == ty))
    }

    /// A Lua file's `local` bindings, name → each value it is given, read
    /// once per file: `local utils = require 'pl.utils'`, `local a, split
    /// = x.a, utils.split` (a value per name when the counts agree).
    fn lua_locals(&mut self, r: &GraphRef) -> Rc<LuaLocals> {
        if let Some(l) = self.lua_locals.get(&r.file_id) {
            return l.clone();
        }
        let mut locals = LuaLocals::new();
        if let Some(text) = self.text(r.file_id, &r.path) {
            for line in &text.lines {
                let Some((names, values)) = line
                    .trim_start()
                    .strip_prefix("local ")
                    .and_then(|rest| rest.split_once('='))
                else {
                    continue;
                };
                let names: Vec<&str> = names.split(',').map(str::trim).collect();
                let values = values.split("--").next().unwrap_or_default();
                let values: Vec<&str> = if names.len() == 1 {
                    vec![values.trim()]
                } else {
                    values
                        .split(',')
                        .map(|v| v.trim().trim_end_matches(';'))
                        .collect()
                };
                if names.len() != values.len() {
                    continue;
                }
                let alone = names.len() == 1;
                for (name, value) in names.into_iter().zip(values) {
                    locals
                        .entry(name.to_string())
                        .or_default()
                        .push((value.to_string(), alone));
                }
            }
        }
        let locals = Rc::new(locals);
        self.lua_locals.insert(r.file_id, locals.clone());
        locals
    }

    /// The table a Lua file's local alias of `name` reads it from:
    /// `local assert_arg = utils.assert_arg` or `local a, split = x.a,
    /// utils.split` → `utils`.
    fn lua_alias_table(&mut self, r: &GraphRef, name: &str) -> Option<String> {
        self.lua_locals(r).get(name)?.iter().find_map(|(value, _)| {
            let (table, field) = value.trim_end_matches(';').rsplit_once('.')?;
            (field == name
                && !table.is_empty()
                && table.bytes().all(|b| is_ident_byte(b) || b == b'.'))
            .then(|| table.to_string())
        })
    }

    /// Whether the Lua file of `r` binds `q` to the module `path` is
    /// (`local stringx = require 'pl.stringx'`, `require("pl.stringx")`
    /// for `pl/stringx.lua` or `pl/stringx/init.lua`).
    fn lua_required_as(&mut self, r: &GraphRef, q: &str, path: &str) -> bool {
        let module = path.trim_end_matches(".lua").trim_end_matches("/init");
        let locals = self.lua_locals(r);
        // A module bound alone on its line (`local utils = require …`).
        locals.get(q).into_iter().flatten().any(|(value, alone)| {
            let Some(arg) = value.strip_prefix("require").filter(|_| *alone) else {
                return false;
            };
            let arg = arg.trim_start().trim_start_matches('(').trim_start();
            let Some(quote) = arg.chars().next().filter(|c| matches!(c, '\'' | '"')) else {
                return false;
            };
            let Some(name) = arg[1..].split(quote).next() else {
                return false;
            };
            let want = name.replace('.', "/");
            !want.is_empty() && (module == want || module.ends_with(&format!("/{want}")))
        })
    }

    /// Is `q` the receiver of the enclosing method (Go `s` in `func (s *T)`,
    /// Rust `self`, `this`)?
    fn is_receiver(&mut self, r: &GraphRef, q: &str) -> Result<bool> {
        if is_self_word(q) {
            return Ok(true);
        }
        if r.lang != "go" {
            return Ok(false);
        }
        let Some(m) = self.enclosing_callable(r.file_id, r.line)? else {
            return Ok(false);
        };
        Ok(go_receiver_name(&m.signature).is_some_and(|n| n == q))
    }

    /// [`Graph::verdict_by_name`], then a call of an overloaded method
    /// reaches the overload its arguments fit ([`Graph::arity_fits`]).
    fn verdict(&mut self, r: &GraphRef, t: &TargetInfo) -> Result<Verdict> {
        let v = self.verdict_by_name(r, t)?;
        // A literal's method (`['text', 'blob'].forEach(…)`, `'a'.upper()`)
        // is the language's, not a project class's: axios's `callers
        // InterceptorManager.forEach` listed every array literal's.
        if v == Verdict::NameOnly
            && t.class.is_some()
            && r.qualifier
                .as_deref()
                .is_some_and(|q| is_literal_receiver(q, &r.lang))
        {
            return Ok(Verdict::Other);
        }
        if v == Verdict::Resolved && !self.arity_fits(r, &t.def)? {
            return Ok(Verdict::Other);
        }
        if v == Verdict::NameOnly
            && (self.rust_arity_rules_out(r, &t.def)?
                || self.overloads_rule_out(r, &t.def)?
                || self.go_arity_rules_out(r, &t.def)?
                || self.is_data_attribute_use(r, &t.def))
        {
            return Ok(Verdict::Other);
        }
        Ok(v)
    }

    /// Whether a Python use that is no call treats the name as data: it is
    /// assigned (`self.request = …`, `response.request = req`) or read
    /// through (`r.request.body`, `r.request[0]`), which a plain method
    /// (not a `@property`) never is. requests' `refs Session.request`
    /// had 57 such name-only candidates, `RequestException`'s own
    /// `self.request = kwargs.pop("request", None)` among them.
    fn is_data_attribute_use(&mut self, r: &GraphRef, def: &GraphDef) -> bool {
        if r.lang != "python"
            || def.lang != "python"
            || is_call_kind(&r.kind)
            || !matches!(def.kind.as_str(), "function" | "method")
            || r.qualifier.is_none()
        {
            return false;
        }
        let header = self.header(def);
        if header.contains("@property")
            || header.contains("cached_property")
            || header.contains(".setter")
        {
            return false;
        }
        let Some(text) = self.text(r.file_id, &r.path) else {
            return false;
        };
        let Some(line) = text.lines.get((r.line as usize).saturating_sub(1)) else {
            return false;
        };
        let at = (r.col as usize).saturating_sub(1);
        let Some(rest) = line.get(at..).and_then(|l| l.strip_prefix(r.name.as_str())) else {
            return false;
        };
        let rest = rest.trim_start();
        rest.starts_with(['.', '['])
            || (rest.starts_with('=') && !rest.starts_with("=="))
            || ["+=", "-=", "|=", "&=", "*="]
                .iter()
                .any(|op| rest.starts_with(op))
    }

    /// Whether a Java or C# call's number of arguments fits none of the
    /// overloads of `def` (its file, container and name), all of whose
    /// parameters can be counted on their line: capacitor's
    /// `callback.invoke(origin, true, false)` is no call of
    /// `PluginHandle.invoke(String, PluginCall)`.
    fn overloads_rule_out(&mut self, r: &GraphRef, def: &GraphDef) -> Result<bool> {
        if !matches!(def.lang.as_str(), "java" | "csharp")
            || r.lang != def.lang
            || !matches!(def.kind.as_str(), "function" | "method")
        {
            return Ok(false);
        }
        let ranges: Option<Vec<(usize, usize)>> = self
            .overloads(def)?
            .iter()
            .map(|d| param_range(&d.signature, &d.name))
            .collect();
        let Some(ranges) = ranges.filter(|r| !r.is_empty()) else {
            return Ok(false);
        };
        let Some(args) = self.call_args(r) else {
            return Ok(false);
        };
        Ok(!ranges.iter().any(|&(min, max)| min <= args && args <= max))
    }

    /// The functions and methods named like `def` in its file and
    /// container: its overloads, itself included.
    fn overloads(&mut self, def: &GraphDef) -> Result<Vec<GraphDef>> {
        Ok(self
            .defs_named(&def.name)?
            .iter()
            .filter(|d| {
                d.file_id == def.file_id
                    && d.container == def.container
                    && matches!(d.kind.as_str(), "function" | "method")
            })
            .cloned()
            .collect())
    }

    /// The number of arguments of the call at `r`, when its line shows
    /// them all.
    fn call_args(&mut self, r: &GraphRef) -> Option<usize> {
        let text = self.text(r.file_id, &r.path)?;
        text.lines
            .get(r.line.saturating_sub(1) as usize)
            .and_then(|l| call_arity(l, r.col, &r.name))
    }

    /// Whether a Rust call's count of arguments rules `def` out: Rust has
    /// no overloads, defaults or variadic functions, so `tx.send(Ok(()))`
    /// (one argument) is no call of reqwest's `RequestBuilder::send(self)`
    /// (none through a method call), which had listed sixteen channel
    /// sends as its name-only callers. A method call's receiver is its
    /// `self`; a path call (`Type::send(x)`) passes it. Only when both
    /// can be counted on their line: no lifetimes in the signature (their
    /// quote would misread), no closure among the arguments.
    fn rust_arity_rules_out(&mut self, r: &GraphRef, def: &GraphDef) -> Result<bool> {
        if r.lang != "rust"
            || def.lang != "rust"
            || !matches!(def.kind.as_str(), "function" | "method")
            || def.signature.contains('\'')
        {
            return Ok(false);
        }
        let Some((min, max)) = param_range(&def.signature, &def.name) else {
            return Ok(false);
        };
        if min != max {
            return Ok(false);
        }
        let takes_self = def
            .signature
            .split_once(&format!("{}(", def.name))
            .map(|(_, rest)| rest.split([',', ')']).next().unwrap_or("").trim())
            .is_some_and(|first| {
                matches!(first, "self" | "&self" | "&mut self" | "mut self")
                    || first.starts_with("self:")
            });
        let Some((text, n, at)) = self.call_site(r) else {
            return Ok(false);
        };
        let line = &text.lines[n];
        if line[at..].contains('|') {
            return Ok(false);
        }
        let Some(args) = call_arity(line, r.col, &r.name) else {
            return Ok(false);
        };
        let method_call = line[..at].trim_end().ends_with('.');
        let expected = if method_call && takes_self {
            max - 1
        } else if method_call {
            // A method call of a function without `self` is some other
            // type's method.
            return Ok(false);
        } else {
            max
        };
        Ok(args != expected)
    }

    /// The file text of the call at `r`, the index of its line and the
    /// byte offset of the called name there, when the name stands at the
    /// call's column (for reading its arguments).
    fn call_site(&mut self, r: &GraphRef) -> Option<(Rc<FileText>, usize, usize)> {
        let text = self.text(r.file_id, &r.path)?;
        let n = r.line.saturating_sub(1) as usize;
        let at = (r.col as usize).saturating_sub(1);
        text.lines
            .get(n)?
            .get(at..)?
            .starts_with(r.name.as_str())
            .then_some((text, n, at))
    }

    /// Whether a Go call's count of arguments rules `def` out: Go has no
    /// overloads or default arguments, and a method's receiver is no
    /// parameter, so `defer f.Close()` is no call of goldmark's
    /// `codeBlockParser.Close(node, reader, pc)`, which had listed every
    /// file's and response body's `Close()` as a name-only caller
    /// (`scanner.Text()` too for `Text.Text(source)`). Variadic parameters take any count past
    /// the fixed ones; a lone argument that is itself a call may pass
    /// several values (`f(g())`) and rules nothing out; a generic
    /// function's signature (`Map[T any](…)`) is not counted.
    fn go_arity_rules_out(&mut self, r: &GraphRef, def: &GraphDef) -> Result<bool> {
        if r.lang != "go" || def.lang != "go" || !matches!(def.kind.as_str(), "function" | "method")
        {
            return Ok(false);
        }
        let Some((min, max)) = param_range(&def.signature, &def.name) else {
            return Ok(false);
        };
        let Some((text, n, at)) = self.call_site(r) else {
            return Ok(false);
        };
        let Some(rest) = text.lines[n][at + r.name.len()..]
            .trim_start()
            .strip_prefix('(')
        else {
            return Ok(false);
        };
        // A raw string's commas would be miscounted.
        if rest.contains('`') {
            return Ok(false);
        }
        let Some((args, end)) = count_top_level(rest, ')', false) else {
            return Ok(false);
        };
        if args == 1 && rest[..end].trim_end().ends_with(')') {
            return Ok(false);
        }
        Ok(args < min || args > max)
    }

    /// Whether a call can be of `def` by its number of arguments: false
    /// only when `def` is one of several overloads (Java, C#, C++: same
    /// file, container and name; not Kotlin, whose trailing lambdas and
    /// named arguments a count misreads), the call's arguments and
    /// the parameters of all of them can be counted, and another overload
    /// fits the call where `def` does not (jsoup's `prettyPrint()` is the
    /// getter's call, not the setter `prettyPrint(boolean)`'s).
    fn arity_fits(&mut self, r: &GraphRef, def: &GraphDef) -> Result<bool> {
        if !matches!(def.lang.as_str(), "java" | "csharp" | "cpp")
            || !matches!(def.kind.as_str(), "function" | "method")
        {
            return Ok(true);
        }
        let overloads = self.overloads(def)?;
        if overloads.len() < 2 {
            return Ok(true);
        }
        let Some(args) = self.call_args(r) else {
            return Ok(true);
        };
        let fits = |d: &GraphDef| {
            param_range(&d.signature, &d.name).map(|(min, max)| min <= args && args <= max)
        };
        Ok(match fits(def) {
            Some(false) => !overloads.iter().any(|o| {
                (o.name_line, o.name_col) != (def.name_line, def.name_col) && fits(o) == Some(true)
            }),
            _ => true,
        })
    }

    fn verdict_by_name(&mut self, r: &GraphRef, t: &TargetInfo) -> Result<Verdict> {
        // A C++ call never reaches a Go method of the same name
        // (FlatBuffers' `builder.Finish()` and `go/builder.go`).
        if !sees(&r.lang, &t.def.lang) {
            return Ok(Verdict::Other);
        }
        let name = t.def.name.as_str();
        let q = r.qualifier.as_deref();
        // Rust's `std::process::abort()`: the standard library's, unless
        // the project is that library.
        if r.lang == "rust"
            && q.is_some_and(|q| {
                ["std::", "core::", "alloc::"]
                    .iter()
                    .any(|p| q.starts_with(p))
                    || matches!(q, "std" | "core" | "alloc")
            })
            && !["std/", "core/", "alloc/"]
                .iter()
                .any(|p| t.def.path.starts_with(p) || t.def.path.contains(&format!("/{p}")))
        {
            return Ok(Verdict::Other);
        }
        // Java's `Cache.this.get(…)` in an inner class is the outer
        // instance's: the class named.
        let q = match q {
            Some(q) if r.lang == "java" => Some(q.strip_suffix(".this").unwrap_or(q)),
            q => q,
        };
        // Lua: `local stringx = require 'pl.stringx'` then `stringx.split`
        // reaches that module's table; `utils.split` another table's. A
        // bare call through a local alias (`local split = utils.split`)
        // is its table's.
        let alias = if r.lang == "lua" && q.is_none() {
            self.lua_alias_table(r, name)
        } else {
            None
        };
        if r.lang == "lua"
            && let Some(q) = q.or(alias.as_deref())
            && let Some(table) = t.def.container.as_deref()
        {
            let last = last_part(q);
            if self.lua_required_as(r, q, &t.def.path)
                || (last == table && r.file_id == t.def.file_id)
            {
                return Ok(Verdict::Resolved);
            }
            if last != table
                && self
                    .defs_named(name)?
                    .iter()
                    .any(|d| d.container.as_deref() == Some(last))
            {
                return Ok(Verdict::Other);
            }
        }
        if let Some(class) = &t.class {
            return self.member_verdict(r, t, class, name, q);
        }
        // A top-level function, type or constant.
        match q {
            None => {
                if r.file_id == t.def.file_id {
                    // A local function is called only from inside its
                    // scope: fastify's six `function next` closures in
                    // `hooks.js` had each listed all eleven `next()` calls.
                    if let Some((from, to)) = self.local_scope(&t.def)?
                        && !(from <= r.line && r.line <= to)
                    {
                        return Ok(Verdict::Other);
                    }
                    return Ok(Verdict::Resolved);
                }
                if package_scoped(&r.lang) && same_dir(&r.path, &t.def.path) {
                    return Ok(Verdict::Resolved);
                }
                if let Some(v) = self.rust_scoped_use(r, name, t)? {
                    return Ok(v);
                }
                if self.imports_name(r, name, t) {
                    return Ok(Verdict::Resolved);
                }
                // A function nested in another is seen only inside it: a
                // test's local `handler()` is no candidate for a bare
                // `handler()` in another file.
                if self.nested_in_callable(&t.def)? {
                    return Ok(Verdict::Other);
                }
                let defs = self.defs_named(name)?;
                let top: Vec<&GraphDef> = defs.iter().filter(|d| d.container.is_none()).collect();
                if c_family(&r.lang) {
                    return Ok(c_verdict(r, &t.def, &top));
                }
                if top.iter().any(|d| d.file_id == r.file_id) {
                    return Ok(Verdict::Other);
                }
                if global_functions(&r.lang) && top.len() == 1 {
                    return Ok(Verdict::Resolved);
                }
                Ok(Verdict::NameOnly)
            }
            Some(q) => {
                // A local function is no module's member: every fastify
                // `reply.send(…)` had resolved to the closure `send`
                // inside `sendTrailer` in `reply.js`. Unless the qualifier
                // names the function it is declared in, a factory whose
                // result holds it (`fourOhFour.setContext(…)` of
                // `function fourOhFour () { function setContext …; return
                // { setContext } }`).
                if self.local_scope(&t.def)?.is_some()
                    && !t
                        .def
                        .container
                        .as_deref()
                        .is_some_and(|c| last_segment(c).eq_ignore_ascii_case(last_part(q)))
                {
                    return Ok(Verdict::Other);
                }
                if self.module_alias(r, q, t) {
                    return Ok(Verdict::Resolved);
                }
                // The module of another file defining the name
                // (`Queue.take` beside `Pool.take`) is that one's.
                let last = last_part(q);
                let defs = self.defs_named(name)?;
                if defs.iter().any(|d| {
                    d.file_id != t.def.file_id
                        && d.container.is_none()
                        && module_keys(&d.path).iter().any(|k| k == last)
                }) {
                    return Ok(Verdict::Other);
                }
                // Erlang's `m:f()` names its module: an atom that is not
                // the target's names another (a variable, `Mod:f()`, is
                // capitalized and could be any).
                if r.lang == "erlang" && q.starts_with(|c: char| c.is_ascii_lowercase()) {
                    return Ok(Verdict::Other);
                }
                if r.lang == "go" && self.go_other_package(r, q, &t.def.path) {
                    return Ok(Verdict::Other);
                }
                if self.is_receiver(r, q)? || self.is_visible_type(r, q)? {
                    return Ok(Verdict::Other);
                }
                Ok(Verdict::NameOnly)
            }
        }
    }

    fn member_verdict(
        &mut self,
        r: &GraphRef,
        t: &TargetInfo,
        class: &str,
        name: &str,
        q: Option<&str>,
    ) -> Result<Verdict> {
        // `dist_sink<Mutex>::sink_it_(msg)`: the class, without its
        // template arguments.
        let q = q.map(strip_generics);
        let in_class = |this: &mut Self| -> Result<Verdict> {
            if r.lang == "ruby"
                && let Some(m) = this.enclosing_ruby_module(r.file_id, r.line)?
                && t.same.contains(&m)
                && !this.defines_again(r, t, &m, name)?
            {
                return Ok(Verdict::Resolved);
            }
            let Some(e) = this.this_class(r)? else {
                return Ok(Verdict::NameOnly);
            };
            if t.same.contains(&e) && !this.defines_again(r, t, &e, name)? {
                Ok(Verdict::Resolved)
            } else if t.family.contains(&e) || this.inherits_member(&e, name)? {
                Ok(Verdict::Other)
            } else {
                Ok(Verdict::NameOnly)
            }
        };
        let Some(q) = q else {
            if implicit_this(&r.lang)
                || self.is_property_decorator(r, name)
                || self.in_python_class_body(r)?
            {
                return in_class(self);
            }
            return Ok(Verdict::Other);
        };
        if self.is_receiver(r, q)? {
            return in_class(self);
        }
        if is_super_word(q, &r.lang) {
            let Some(e) = self.enclosing_class(r.file_id, r.line)? else {
                return Ok(Verdict::NameOnly);
            };
            // In the target's own class, `super` reaches past it: a
            // subclass's `super().matches(x)` is no call of its own
            // `matches` (it had been a name-only caller of it).
            if e == class {
                return Ok(Verdict::Other);
            }
            // `super.schedule(…)` reaches the nearest ancestor defining it,
            // which may be a class between this one and the target's, or
            // in a class outside its family another class's: click's
            // `super().invoke(ctx)` in `MultiCommand` is `Command.invoke`,
            // no call of `Context.invoke`.
            for b in self.bases_named(&e)?.iter() {
                if let Some(d) = self.member_def(b, name)? {
                    return Ok(if d.container.as_deref() == Some(class) {
                        Verdict::Resolved
                    } else {
                        Verdict::Other
                    });
                }
            }
            // No ancestor the index holds defines it, so the call reaches
            // a class outside the project: with single class inheritance
            // always; in Python when the chain ends at a built-in class
            // (marshmallow's `SchemaMeta(type)` and `PointDict(dict)`
            // calling `super().__init__` had been name-only callers of
            // `ValidationError.__init__`). A Python mixin's chain ends at
            // `object`, and its `super()` follows the instance's MRO:
            // that one stays name-only.
            let outside = match r.lang.as_str() {
                "java" | "csharp" | "kotlin" => true,
                "python" => self
                    .ancestors(&e)?
                    .iter()
                    .any(|b| is_python_builtin_class(b)),
                _ => false,
            };
            return Ok(if outside {
                Verdict::Other
            } else {
                Verdict::NameOnly
            });
        }
        // `(*Channel).recvMethod`, `(Channel).m`: a Go method expression.
        if r.lang == "go"
            && let Some(inner) = q.strip_prefix('(').and_then(|x| x.strip_suffix(')'))
            && let ty = inner.trim_start_matches('*').trim()
            && !ty.is_empty()
            && ty.bytes().all(|b| is_ident_byte(b) || b == b'.')
        {
            let ty = last_part(ty);
            return Ok(if self.in_same(t, ty, name)? {
                Verdict::Resolved
            } else if t.family.contains(ty) || self.is_type_name(ty)? {
                Verdict::Other
            } else {
                Verdict::NameOnly
            });
        }
        let last = last_part(q);
        // `String::with_capacity(16)`: a Rust path call through one of
        // std's everyday types the project does not define (an `impl
        // Trait for String` defines nothing) is std's, not a project
        // method of the name (serde_json's `Map::with_capacity`). Only
        // those: another undefined name may be a `use … as` rename.
        if r.lang == "rust"
            && q.bytes().all(|b| is_ident_byte(b) || b == b':')
            && is_rust_std_type(last)
            && !self.defs_named(last)?.iter().any(|d| {
                matches!(
                    d.kind.as_str(),
                    "struct" | "enum" | "union" | "trait" | "type"
                )
            })
        {
            return Ok(Verdict::Other);
        }
        // `r.Context().Value(…)`: in Go a call through a value is a method's
        // result, not a conversion to a type named like the method.
        let go_call = r.lang == "go" && q.ends_with(')') && {
            let head = call_head(q).unwrap_or(q);
            let recv = head[..head.len() - last.len().min(head.len())].trim_end_matches('.');
            !recv.is_empty() && !self.is_module(r, recv)?
        };
        if go_call {
            return self.bound_verdict(r, t, name, q);
        }
        // `rows.Next()` with `rows, err := db.Query(…)` beside pq's `type
        // rows struct`: a Go variable shadows the type it is named like.
        if r.lang == "go" && q == last && self.go_local_value(r, q)? {
            return self.bound_verdict(r, t, name, q);
        }
        // `m.renderer.Render(…)`: a Go value's field (`renderer
        // renderer.Renderer`, an interface) is typed by its declaration,
        // not by a type spelled like the field (goldmark's unexported
        // `type renderer struct` had taken every call).
        if r.lang == "go"
            && let Some(head) = q
                .strip_suffix(last)
                .and_then(|h| h.strip_suffix('.'))
                .filter(|h| !h.is_empty() && h.bytes().all(|b| is_ident_byte(b) || b == b'.'))
            && !self.is_module(r, head.split('.').next().unwrap_or(head))?
        {
            return self.bound_verdict(r, t, name, q);
        }
        if self.in_same(t, last, name)? {
            return Ok(Verdict::Resolved);
        }
        if t.family.contains(last) {
            return Ok(Verdict::Other);
        }
        if self.is_visible_type(r, q)? {
            return Ok(if self.defines(last, name)? {
                Verdict::Other
            } else {
                Verdict::NameOnly
            });
        }
        self.bound_verdict(r, t, name, q)
    }

    /// The verdict by the type a receiver expression evaluates to.
    fn bound_verdict(
        &mut self,
        r: &GraphRef,
        t: &TargetInfo,
        name: &str,
        q: &str,
    ) -> Result<Verdict> {
        // `c.Flags().VisitAll(…)`, `z.string().readonly()`: what the call
        // returns; `self.destination.error(…)`: a field's declared type;
        // a variable's binding; a cast; an element of an indexed list.
        let bound = self.receiver_class(r, q)?;
        match bound {
            Some(ty) if self.in_same(t, &ty, name)? => {
                if r.lang == "go" && !self.go_field_package_fits(r, q, &ty, t)? {
                    return Ok(Verdict::Other);
                }
                Ok(Verdict::Resolved)
            }
            Some(ty) if t.same.contains(&ty) => Ok(Verdict::Other),
            Some(ty) if t.family.contains(&ty) || self.inherits_member(&ty, name)? => {
                Ok(Verdict::Other)
            }
            // `private final AtomicInteger count;` then `count.get()`: a
            // library's class, which no project class's method can be.
            Some(ty) if self.is_foreign_class(r, &ty)? => Ok(Verdict::Other),
            Some(_) => Ok(Verdict::NameOnly),
            // `flask.make_response`: a module's function, not the method.
            None if self.is_module(r, q)? => Ok(Verdict::Other),
            // `sys.stderr.flush()`, `os.path.join()`: an attribute of a
            // module from outside the project holds none of its methods.
            None if self.external_attribute(r, q)? => Ok(Verdict::Other),
            None => Ok(Verdict::NameOnly),
        }
    }

    /// For a Go receiver that is a struct's field (`c.conn.BeginTx()` with
    /// `conn *pgx.Conn`), whether the target's type is the one the field
    /// is declared with: the package written before the type (its
    /// `package` clause or directory), else the struct's own package.
    /// Types named alike in several packages (`stdlib.Conn` holding a
    /// `*pgx.Conn`) took each other's calls, the method calling itself.
    /// True when the receiver is no such field.
    fn go_field_package_fits(
        &mut self,
        r: &GraphRef,
        q: &str,
        ty: &str,
        t: &TargetInfo,
    ) -> Result<bool> {
        let Some((head, field)) = q.rsplit_once('.') else {
            return Ok(true);
        };
        if field.is_empty() || !field.bytes().all(is_ident_byte) {
            return Ok(true);
        }
        let Some(owner) = self.owner_of(r, head)? else {
            return Ok(true);
        };
        let Some((ann, declared_in)) = self.go_field_ann_at(&owner, field)? else {
            return Ok(true);
        };
        let written = ann.trim_start_matches(['*', '&', '[', ']']);
        Ok(match written.rsplit_once('.') {
            Some((package, name)) if name == ty => {
                self.def_module_keys(&t.def).iter().any(|k| k == package)
            }
            None if written == ty => same_dir(&declared_in, &t.def.path),
            _ => true,
        })
    }

    /// Is `def` a function defined inside a function or method of its file
    /// (its container one whose span holds it)?
    fn nested_in_callable(&mut self, def: &GraphDef) -> Result<bool> {
        Ok(self.outer_callable(def)?.is_some())
    }

    /// The lines of the function or method `def` is nested in, when it is
    /// one (its container is a callable around it).
    fn outer_callable(&mut self, def: &GraphDef) -> Result<Option<(u32, u32)>> {
        let Some(container) = def.container.as_deref() else {
            return Ok(None);
        };
        if !matches!(def.kind.as_str(), "function" | "method") {
            return Ok(None);
        }
        let outer = last_segment(container);
        Ok(self
            .defs_of_file(def.file_id)?
            .iter()
            .filter(|d| {
                d.name == outer
                    && matches!(d.kind.as_str(), "function" | "method")
                    && d.start_line <= def.start_line
                    && def.end_line <= d.end_line
                    && (d.start_line, d.end_line) != (def.start_line, def.end_line)
            })
            .map(|d| (d.start_line, d.end_line))
            .min_by_key(|(from, to)| to - from))
    }

    /// A function declared inside another where the language scopes it
    /// there (`function next () {…}` in a JavaScript function, a Python
    /// `def` in a `def`, a Rust `fn` in a block): the lines it can be
    /// called from, its outer callable's. Not an assignment (`this.send =
    /// function …` in an old-style constructor makes a member), nor a
    /// language whose nested declarations are global or members (Ruby,
    /// PHP).
    fn local_scope(&mut self, def: &GraphDef) -> Result<Option<(u32, u32)>> {
        if !matches!(
            def.lang.as_str(),
            "javascript"
                | "typescript"
                | "tsx"
                | "python"
                | "rust"
                | "lua"
                | "kotlin"
                | "swift"
                | "scala"
        ) {
            return Ok(None);
        }
        let sig = def.signature.trim_start();
        let declared = [
            "function ",
            "function*",
            "async function",
            "def ",
            "async def ",
            "fn ",
            "local function ",
            "fun ",
            "func ",
        ]
        .iter()
        .any(|k| sig.starts_with(k))
            || sig.starts_with("pub ") && sig.contains("fn ");
        if !declared {
            return Ok(None);
        }
        self.outer_callable(def)
    }

    /// Is `q` (`sys.stderr`) an attribute of a name the file imports that
    /// no project file is the module of (Python, JavaScript, TypeScript)?
    fn external_attribute(&mut self, r: &GraphRef, q: &str) -> Result<bool> {
        if !matches!(
            r.lang.as_str(),
            "python" | "javascript" | "typescript" | "tsx"
        ) {
            return Ok(false);
        }
        let Some((head, _)) = q.split_once('.') else {
            return Ok(false);
        };
        if !q.bytes().all(|b| is_ident_byte(b) || b == b'.') || !self.is_module(r, head)? {
            return Ok(false);
        }
        if self.project_modules.is_none() {
            let mut keys = HashSet::new();
            for (_, (path, _)) in self.store.file_paths()? {
                keys.extend(module_keys(&path));
            }
            self.project_modules = Some(keys);
        }
        Ok(self
            .project_modules
            .as_ref()
            .is_some_and(|m| !m.contains(head)))
    }

    /// Is a Python reference in a class body, outside its methods, where a
    /// bare name is the class's own attribute (`__add__ = __radd__ =
    /// _fail`, `__next__ = next`)?
    fn in_python_class_body(&mut self, r: &GraphRef) -> Result<bool> {
        if r.lang != "python" {
            return Ok(false);
        }
        Ok(self
            .scope_def(r.file_id, r.line)?
            .is_some_and(|d| is_type_kind(&d.kind)))
    }

    /// Is the reference a Python property's `@name.setter` (`.deleter`,
    /// `.getter`) decorator, a use of the property defined above it?
    fn is_property_decorator(&mut self, r: &GraphRef, name: &str) -> bool {
        if r.lang != "python" {
            return false;
        }
        let Some(text) = self.text(r.file_id, &r.path) else {
            return false;
        };
        let Some(line) = text.lines.get((r.line as usize).saturating_sub(1)) else {
            return false;
        };
        line.trim_start()
            .strip_prefix('@')
            .and_then(|t| t.strip_prefix(name))
            .and_then(|t| t.strip_prefix('.'))
            .is_some_and(|t| {
                ["setter", "deleter", "getter"]
                    .iter()
                    .any(|w| t.trim_end() == *w)
            })
    }

    /// Is `q` (its first part) a name the reference's file imports: a
    /// module or a function, since a type was ruled out before?
    fn is_module(&mut self, r: &GraphRef, q: &str) -> Result<bool> {
        // `connection.creation.x()`: an attribute of whatever was imported.
        if !q.bytes().all(is_ident_byte) {
            return Ok(false);
        }
        // An imported module-level variable is an object, not a module;
        // a build's bundle (axios's `dist/` `const utils = {…}`) says
        // nothing of the source's `import utils from './utils.js'`.
        let in_build = crate::search::is_shipped_build(&r.path);
        if self.defs_named(q)?.iter().any(|d| {
            d.container.is_none()
                && matches!(d.kind.as_str(), "variable" | "constant")
                && (in_build || !crate::search::is_shipped_build(&d.path))
        }) {
            return Ok(false);
        }
        let Some(text) = self.text(r.file_id, &r.path) else {
            return Ok(false);
        };
        // JavaScript binds an import to the name outside its string: in
        // `var Layer = require('./layer')` the module is `Layer`, and
        // express's `layer.handle_request(…)` calls a method of a layer
        // object (Go's `import "…/layer"` binds the string's last part).
        let bound_outside = matches!(r.lang.as_str(), "javascript" | "typescript" | "tsx");
        Ok(text.import_lines().any(|l| {
            if bound_outside {
                find_word(&without_string_literals(l), q, 0).is_some()
            } else {
                find_word(l, q, 0).is_some()
            }
        }))
    }

    /// Does the reference's file import `name` from the target's module?
    fn imports_name(&mut self, r: &GraphRef, name: &str, t: &TargetInfo) -> bool {
        // The import rows the index keeps (multi-line `from x import (…)`
        // included): `name` imported from a module named like the target's.
        let rows = self.import_rows(r.file_id);
        if rows.iter().any(|i| {
            i.name.as_deref() == Some(name)
                && i.alias.as_deref().is_none_or(|a| a == name)
                && t.module_keys.iter().any(|k| module_last(&i.module) == k)
        }) {
            return true;
        }
        self.import_line_names(r, name, t)
    }

    /// Whether the text of the reference's line before it passes `test`
    /// (false when the file cannot be read).
    fn written_after(&mut self, r: &GraphRef, test: impl FnOnce(&str) -> bool) -> bool {
        self.written_around(r, |before, _| test(before))
    }

    /// Whether the text of the reference's line before it and after its
    /// name (`None` when the name does not fit the line) passes `test`
    /// (false when the file cannot be read).
    fn written_around(
        &mut self,
        r: &GraphRef,
        test: impl FnOnce(&str, Option<&str>) -> bool,
    ) -> bool {
        self.text(r.file_id, &r.path).is_some_and(|t| {
            let Some(line) = t.lines.get((r.line as usize).saturating_sub(1)) else {
                return false;
            };
            let at = (r.col as usize).saturating_sub(1);
            line.get(..at)
                .is_some_and(|before| test(before, line.get(at + r.name.len()..)))
        })
    }

    /// Is the reference written after the keyword `new` (`new Circle(1)`,
    /// `new geo.Circle(1)`)?
    fn after_new(&mut self, r: &GraphRef) -> bool {
        self.written_after(r, |before| {
            // Past the qualifier (`geo.`, `\\Geo\\`), a space, then the
            // keyword as a word of its own.
            let head = before.trim_end_matches(|c: char| {
                c.is_alphanumeric() || matches!(c, '_' | '.' | '\\' | ':')
            });
            let spaced = head.trim_end();
            spaced.len() < head.len()
                && spaced
                    .strip_suffix("new")
                    .is_some_and(|h| !h.ends_with(|c: char| c.is_alphanumeric() || c == '_'))
        })
    }

    /// Is the PHP reference a property or constant (`$this->name = true`,
    /// `$o?->name`, `self::NAME`): a member reached without a call?
    fn php_member_read(&mut self, r: &GraphRef) -> bool {
        self.written_around(r, |before, after| {
            (before.ends_with("->") || before.ends_with("::"))
                && after.is_some_and(|a| !a.trim_start().starts_with('('))
        })
    }

    /// Is the reference written after `::` (a Java or Kotlin method
    /// reference, `this::label`, `Circle::label`)?
    fn after_method_reference(&mut self, r: &GraphRef) -> bool {
        self.written_after(r, |before| before.trim_end().ends_with("::"))
    }

    /// Is the reference written as a Ruby symbol (`:label`, not
    /// `Geo::label`)?
    fn after_symbol_colon(&mut self, r: &GraphRef) -> bool {
        self.written_after(r, |before| {
            before.strip_suffix(':').is_some_and(|b| !b.ends_with(':'))
        })
    }

    /// A Ruby symbol passed to a method of another object
    /// (`object.respond_to?(:evaluate)`, `other.send(:label)`): it names
    /// that object's method, which only its name ties to the target.
    /// `send(:label)`, `self.send(:label)` and `alias_method :a, :label`
    /// name the method of the class they are written in.
    fn symbol_for_other_receiver(&mut self, r: &GraphRef) -> bool {
        r.lang == "ruby"
            && r.kind == "use"
            && self.written_after(r, |before| {
                let Some(b) = before.strip_suffix(':') else {
                    return false;
                };
                let b = b.trim_end().trim_end_matches(['(', ' ']);
                let b = b.trim_end_matches(|c: char| c.is_alphanumeric() || "_?!".contains(c));
                let Some(receiver) = b.strip_suffix('.') else {
                    return false;
                };
                let start = receiver
                    .rfind(|c: char| !(c.is_alphanumeric() || "_@".contains(c)))
                    .map_or(0, |i| i + 1);
                &receiver[start..] != "self"
            })
    }

    /// Does an import line of the reference's file bind `word` and name
    /// the target's module?
    fn import_line_names(&mut self, r: &GraphRef, word: &str, t: &TargetInfo) -> bool {
        let Some(text) = self.text(r.file_id, &r.path) else {
            return false;
        };
        let python = r.lang == "python";
        text.import_lines().any(|l| {
            let mut from = 0;
            let w = loop {
                let Some(at) = find_word(l, word, from) else {
                    return false;
                };
                if binds(l, at, word.len(), python) {
                    break at;
                }
                from = at + 1;
            };
            t.module_keys.iter().any(|k| {
                let mut from = 0;
                while let Some(at) = find_word(l, k, from) {
                    if !listed_apart(l, (w, word.len()), (at, k.len())) {
                        return true;
                    }
                    from = at + 1;
                }
                false
            })
        })
    }

    /// Rust's `use` inside a function binds the name there only: nom's
    /// `fn take_while1()` uses `bytes::streaming::take_while1` and
    /// `fn take_while1_succeed()` `bytes::complete::take_while1`, in one
    /// file. When some `use` of `name` in the reference's file is inside a
    /// function, the ones the reference sees decide (those of the
    /// innermost function around it that has one, else those outside every
    /// function); `None` leaves it to the file-wide rules.
    fn rust_scoped_use(
        &mut self,
        r: &GraphRef,
        name: &str,
        t: &TargetInfo,
    ) -> Result<Option<Verdict>> {
        if r.lang != "rust" {
            return Ok(None);
        }
        let all = self.import_rows(r.file_id);
        let rows = all.iter().filter(|i| {
            i.kind == "use"
                && i.name.as_deref() == Some(name)
                && i.alias.as_deref().is_none_or(|a| a == name)
        });
        let mut scoped = Vec::new();
        for i in rows {
            let f = self.enclosing_callable(r.file_id, i.line)?;
            scoped.push((i, f.map(|f| (f.start_line, f.end_line))));
        }
        if scoped.iter().all(|(_, f)| f.is_none()) {
            return Ok(None);
        }
        // Those in a function around the reference (a closure or nested
        // `fn` sees its outer function's `use`), the innermost first.
        let around = |f: &Option<(u32, u32)>| f.is_some_and(|(s, e)| s <= r.line && r.line <= e);
        let innermost = scoped
            .iter()
            .filter(|(_, f)| around(f))
            .filter_map(|(_, f)| *f)
            .min_by_key(|(s, e)| e - s);
        let local: Vec<&ImportRow> = scoped
            .iter()
            .filter(|(_, f)| innermost.is_some() && *f == innermost)
            .map(|(i, _)| *i)
            .collect();
        let visible: Vec<&ImportRow> = if local.is_empty() {
            scoped
                .iter()
                .filter(|(_, f)| f.is_none())
                .map(|(i, _)| *i)
                .collect()
        } else {
            local
        };
        if visible.is_empty() {
            return Ok(None);
        }
        let reaches = visible
            .iter()
            .any(|i| t.module_keys.iter().any(|k| module_last(&i.module) == k));
        Ok(Some(if reaches {
            Verdict::Resolved
        } else {
            Verdict::Other
        }))
    }

    /// The import rows of a file, read once per query.
    fn import_rows(&mut self, file_id: i64) -> Rc<Vec<ImportRow>> {
        if let Some(rows) = self.imports.get(&file_id) {
            return rows.clone();
        }
        let rows = Rc::new(self.store.import_rows(file_id).unwrap_or_default());
        self.imports.insert(file_id, rows.clone());
        rows
    }

    /// Is `q` the target's module, as named or as an import alias of it?
    fn module_alias(&mut self, r: &GraphRef, q: &str, t: &TargetInfo) -> bool {
        let last = last_part(q);
        t.module_keys.iter().any(|k| k == last) || self.import_line_names(r, last, t)
    }

    /// The type a variable (or `self.attr`) is bound to before the
    /// reference, from the usual spellings of a binding in its scope.
    fn bound_type(&mut self, r: &GraphRef, q: &str) -> Result<Option<String>> {
        let q = q.strip_prefix('&').unwrap_or(q);
        if q.is_empty() || q.contains('(') || q.contains('[') {
            return Ok(None);
        }
        let Some(text) = self.text(r.file_id, &r.path) else {
            return Ok(None);
        };
        let attr = q.contains('.') || q.contains("->");
        let n = text.lines.len();
        // The enclosing functions, innermost first: a closure sees the
        // bindings of the functions around it.
        let scopes: Vec<(usize, usize)> = if attr {
            // `self.response`: bound in the class around the use, not in
            // another class of the file with a field of that name.
            let own = match q.split_once('.') {
                Some((head, _)) if is_self_word(head) => {
                    self.innermost(r.file_id, r.line, |d| is_type_kind(&d.kind))?
                }
                _ => None,
            };
            match own {
                Some(c) => {
                    // Then its ancestors defined in this file (`self.x =
                    // X()` in a base class's `__init__`).
                    let span = |d: &GraphDef| {
                        (
                            d.start_line.max(1) as usize - 1,
                            (d.end_line as usize).min(n),
                        )
                    };
                    let mut spans = vec![span(&c)];
                    let mut todo = self.bases(&c);
                    let defs = self.defs_of_file(r.file_id)?;
                    while let Some(b) = todo.pop() {
                        if spans.len() > 8 {
                            break;
                        }
                        let b = last_part(&b).to_string();
                        if let Some(d) = defs.iter().find(|d| is_type_kind(&d.kind) && d.name == b)
                            && !spans.contains(&span(d))
                        {
                            spans.push(span(d));
                            todo.extend(self.bases(d));
                        }
                    }
                    spans
                }
                None => vec![(0, n)],
            }
        } else {
            let defs = self.defs_of_file(r.file_id)?;
            let mut s: Vec<(usize, usize)> = defs
                .iter()
                .filter(|d| {
                    d.start_line <= r.line
                        && r.line <= d.end_line
                        && matches!(d.kind.as_str(), "function" | "method")
                })
                .map(|d| {
                    (
                        d.start_line.max(1) as usize - 1,
                        (d.end_line as usize).min(n),
                    )
                })
                .collect();
            s.sort_by_key(|&(from, _)| std::cmp::Reverse(from));
            if s.is_empty() {
                s.push((0, n));
            }
            s
        };
        let from = scopes.last().map_or(0, |s| s.0);
        for &(from, end) in &scopes {
            let key = (r.file_id, from, q.to_string());
            let bindings = match self.bindings.get(&key) {
                Some(b) => b.clone(),
                None => {
                    let b = Rc::new(self.scope_bindings(r, q, &text, from, end, attr)?);
                    self.bindings.insert(key, b.clone());
                    b
                }
            };
            // The nearest binding before the use (for `self.x`, anywhere);
            // one on the use's own line only when it comes first there:
            // `r.Route("/x", func(r Router) {` uses the outer `r`.
            let before = if attr {
                usize::MAX
            } else if uses_first(&text.lines, r, q) {
                r.line.saturating_sub(1) as usize
            } else {
                r.line as usize
            };
            let at = (r.line as usize).saturating_sub(1);
            if let Some((_, _, ty)) = bindings
                .iter()
                .rev()
                .find(|(i, until, ty)| *i < before && at <= *until && !(*i == at && ty == REBOUND))
            {
                // An empty type: a parameter of unknown type shadows the
                // outer bindings.
                return Ok((!ty.is_empty() && ty != REBOUND).then(|| ty.clone()));
            }
        }
        // A field of the class around the use, named bare where `this` is
        // implicit (`protected Circle conn;` then `conn.label()` in Java).
        if !attr
            && implicit_this(&r.lang)
            && r.lang != "ruby"
            && let Some(class) = self.enclosing_class(r.file_id, r.line)?
            && let Some(d) = self.member_def(&class, q)?
            && matches!(
                d.kind.as_str(),
                "field" | "property" | "variable" | "constant"
            )
            && let Some(t) = binding_in_line(&d.signature, q, &d.lang)
        {
            return Ok(Some(t));
        }
        if !attr && from > 0 {
            // A module-level binding.
            let key = (r.file_id, usize::MAX, q.to_string());
            let top = match self.bindings.get(&key) {
                Some(b) => b.clone(),
                None => {
                    let mut b = Vec::new();
                    for (i, line) in text.lines.iter().enumerate() {
                        if line.starts_with(|c: char| !c.is_whitespace())
                            && memchr::memmem::find(line.as_bytes(), q.as_bytes()).is_some()
                            && let Some(ty) = binding_in_line(line, q, &r.lang)
                        {
                            b.push((i, usize::MAX, ty));
                        }
                    }
                    let b = Rc::new(b);
                    self.bindings.insert(key, b.clone());
                    b
                }
            };
            if let Some((_, _, ty)) = top.last() {
                return Ok(Some(ty.clone()));
            }
        }
        if !attr {
            // A module-level variable of another file (`current_app: Flask
            // = LocalProxy(…)`), when the project has exactly one.
            let defs = self.defs_named(q)?;
            let vars: Vec<&GraphDef> = defs
                .iter()
                .filter(|d| {
                    d.container.is_none() && matches!(d.kind.as_str(), "variable" | "constant")
                })
                .collect();
            if let [v] = vars.as_slice() {
                let v = (*v).clone();
                if let Some(t) = binding_in_line(&v.signature, q, &v.lang) {
                    return Ok(Some(t));
                }
                // `export const Bold = Mark.create({…})`: what the call
                // returns, read where the variable is defined.
                let Some(head) = call_bound_in_line(&v.signature, q) else {
                    return Ok(None);
                };
                let at = GraphRef {
                    file_id: v.file_id,
                    path: v.path.clone(),
                    lang: v.lang.clone(),
                    name: v.name.clone(),
                    kind: "call".to_string(),
                    line: v.name_line,
                    col: 0,
                    qualifier: None,
                    scope: None,
                };
                return self.call_result(&at, &head);
            }
        }
        Ok(None)
    }

    /// Every line of `from..end` that binds `q` to a type, with its index.
    fn scope_bindings(
        &mut self,
        r: &GraphRef,
        q: &str,
        text: &FileText,
        from: usize,
        end: usize,
        attr: bool,
    ) -> Result<Vec<(usize, usize, String)>> {
        let mut out = Vec::new();
        for (i, line) in text.lines.iter().enumerate().take(end).skip(from) {
            // `switch v := x.(type) {` … `case *Conn:`: `v` is a `Conn`
            // in that case's clause.
            if r.lang == "go"
                && !attr
                && line.trim_start().starts_with("case ")
                && let Some(ty) = go_type_case(&text.lines, i, q)
                && self.is_type_name(&ty)?
            {
                out.push((i, go_case_end(&text.lines, i), ty));
                continue;
            }
            if memchr::memmem::find(line.as_bytes(), q.as_bytes()).is_none() {
                continue;
            }
            let go = r.lang == "go";
            // `if (teardown instanceof Subscription) {`: narrowed inside
            // the block (or the rest of the line without one).
            if matches!(r.lang.as_str(), "typescript" | "tsx" | "javascript")
                && let Some(ty) = instanceof_in_line(line, q)
                && self.is_type_name(&ty)?
            {
                let until = match line.find("if (") {
                    Some(open) if line.trim_end().ends_with('{') => {
                        literal_end(&text.lines, i, open + 3)
                    }
                    _ => i,
                };
                out.push((i, until, ty));
                continue;
            }
            // `@param {Help} helper` above `formatHelp(cmd, helper) {`: a
            // JavaScript parameter typed by its JSDoc, in that body only.
            if r.lang == "javascript"
                && !attr
                && let Some((ty, open)) = jsdoc_param_type(&text.lines, i, q)
                && self.is_type_name(&ty)?
            {
                out.push((i, literal_end(&text.lines, i, open), ty));
                continue;
            }
            // `/** @type {Help} */` above `this.help = …` or `let help = …`.
            if r.lang == "javascript"
                && let Some(ty) =
                    jsdoc_assigned_type(&text.lines, i, q).and_then(|t| jsdoc_single_type(&t))
                && self.is_type_name(&ty)?
            {
                out.push((i, usize::MAX, ty));
                continue;
            }
            let ty = if go && let Some(ty) = self.go_constructor_result(r, line, q)? {
                Some(ty)
            } else if go && self.go_foreign_call(r, line, q)? {
                // `enc := gob.NewEncoder(buf)`: no type of the project's.
                None
            } else if let Some(ty) = binding_in_line(line, q, &r.lang) {
                Some(ty)
            } else if go && let Some(ty) = go_comma_ok_assert(line, q) {
                Some(ty)
            } else if go && let Some(base) = go_comma_ok_index(line, q) {
                // `c, ok := p.conns[name]`: an element of the map.
                self.iterable_elem(&at_line(r, i), &base, text, from, i)?
            } else if go && let Some((head, k)) = go_later_result_of_call(line, q) {
                self.go_nth_result(r, &head, k)?
            } else if go && let Some(expr) = go_range_value(line, q) {
                self.iterable_elem(&at_line(r, i), &expr, text, from, i)?
            } else if go && let Some(expr) = go_received(line, q) {
                // `msg := <-c.incoming`: the channel's element.
                self.iterable_elem(&at_line(r, i), &expr, text, from, i)?
            } else if go && let Some(expr) = go_range_single(line, q) {
                // `for ev := range events`: a channel's element (a
                // slice's or map's would be its index or key).
                self.go_iter_ann(&at_line(r, i), &expr, text, from, i, 0)?
                    .filter(|a| go_chan_elem(a.trim()).is_some())
                    .and_then(|a| go_elem(&a))
            } else if let Some(head) = call_bound_in_line(line, q)
                .inspect(|_| self.awaited = awaits_in_line(line, q))
                .or_else(|| with_call_as(line, q))
                .or_else(|| with_call_as_above(&text.lines, i, q))
                .or_else(|| go.then(|| go_first_of_call(line, q)).flatten())
                && let Some(ty) = self.call_result(r, &head)?
            {
                Some(ty)
            } else if !attr
                && matches!(r.lang.as_str(), "typescript" | "tsx" | "javascript")
                && let Some((prop, rhs)) = destructured_in_line(line, q)
                && let Some(ty) = self.destructured_type(&at_line(r, i), &prop, &rhs)?
            {
                Some(ty)
            } else if let Some(rhs) = value_bound_in_line(line, q)
                && let Some(ty) = {
                    // `let parent = this.parent`, `found = this.content[i]`,
                    // `text = last as TextNode`: the value's type.
                    self.receiver_class(&at_line(r, i), &rhs)?
                }
            {
                Some(ty)
            } else if let Some(callee) = for_call_in(line, q)
                && let Some(ty) = self.element_type(&callee)?
            {
                Some(ty)
            } else if let Some(expr) = for_iterable(line, q)
                && (!expr.ends_with(')') || !go)
                && let Some(ty) = self.iterable_elem(r, &expr, text, from, i)?
            {
                // `for p in self.params:` with `params: list[Parameter]`.
                Some(ty)
            } else if !attr
                && matches!(r.lang.as_str(), "typescript" | "tsx" | "javascript")
                && memchr::memmem::find(line.as_bytes(), b"=>").is_some()
                && let Some(ty) = self.lambda_param_type(r, &text.lines, i, q)?
            {
                Some(ty)
            } else if attr && let Some(name) = name_bound_in_line(line, q) {
                // `self.ctx = ctx`: the type of `ctx` where that line is.
                self.bound_type(&at_line(r, i), &name)?
            } else {
                None
            };
            let ty = match ty {
                Some(t) if go => Some(self.go_package_type(r, line, t)?),
                // `URL()` with `URL = Url`: another name for a class.
                Some(t) => Some(self.class_alias(t)?),
                t => t,
            };
            if let Some(ty) = ty {
                // `func(w http.ResponseWriter, r *http.Request) {…}` binds
                // `r` in its body only.
                let until = if attr {
                    usize::MAX
                } else {
                    literal_param_end(&text.lines, i, q, &r.lang).unwrap_or(usize::MAX)
                };
                out.push((i, until, ty));
            } else if r.lang == "python" && !attr && plain_assignment(line, q) {
                // `s = pickle.loads(…)`: a value of unknown type replaces
                // what `s` was bound to before, from the next line on.
                out.push((i, usize::MAX, REBOUND.to_string()));
            } else if r.lang == "javascript"
                && !attr
                && let Some(until) = literal_param_end(&text.lines, i, q, &r.lang)
            {
                // `const find = (option) => option.name()` inside a method
                // whose `option` is typed: the untyped parameter shadows it
                // in the literal (an empty type: unknown).
                out.push((i, until, String::new()));
            }
        }
        Ok(out)
    }

    /// The type of property `prop` of what `rhs` evaluates to, for `const
    /// { prop } = rhs`: a member of the class or interface it has (`const {
    /// plugins } = this.uppy.getState()`), or of the object type a callable
    /// declares inline (`_process(): { status: ParseStatus; ctx: Ctx } {`).
    fn destructured_type(&mut self, r: &GraphRef, prop: &str, rhs: &str) -> Result<Option<String>> {
        if let Some(owner) = self.expr_type(r, rhs)? {
            return Ok(self
                .member_annotation(&owner, prop)?
                .and_then(|a| leading_type(&a)));
        }
        let Some(head) = call_head(rhs) else {
            return Ok(None);
        };
        let Some(name) = dotted_last(head) else {
            return Ok(None);
        };
        let receiver = head[..head.len() - name.len()]
            .trim_end_matches(['.', '?'])
            .trim_end();
        let def = if receiver.is_empty() {
            let defs = self.defs_named(name)?;
            let top: Vec<&GraphDef> = defs
                .iter()
                .filter(|d| d.container.is_none() && d.kind == "function")
                .collect();
            match top.as_slice() {
                [d] => Some((*d).clone()),
                _ => None,
            }
        } else {
            match self.receiver_class(r, receiver)? {
                Some(class) => self.member_def(&class, name)?,
                None => None,
            }
        };
        let Some(d) = def else { return Ok(None) };
        let Some(text) = self.text(d.file_id, &d.path) else {
            return Ok(None);
        };
        let from = d.name_line.max(1) as usize - 1;
        let end = (d.end_line as usize).min(text.lines.len()).min(from + 40);
        let mut joined = String::new();
        for l in text.lines.get(from..end).unwrap_or_default() {
            joined.push_str(strip_line_comment(l));
            joined.push('\n');
        }
        let Some(ret) = inline_object_return(&joined, name) else {
            return Ok(None);
        };
        Ok(ret.split([';', ',', '\n']).find_map(|m| {
            let (n, ann) = m.split_once(':')?;
            (n.trim().trim_end_matches('?') == prop).then(|| leading_type(ann))?
        }))
    }

    /// The type of the `k`-th result of the Go callable a call's head
    /// names: a method of the receiver's type (or an interface's), a
    /// function of the package or of an imported one when the project has
    /// one so named.
    fn go_nth_result(&mut self, r: &GraphRef, head: &str, k: usize) -> Result<Option<String>> {
        let Some(name) = dotted_last(head) else {
            return Ok(None);
        };
        let receiver = head[..head.len() - name.len()].trim_end_matches('.');
        let def = if receiver.is_empty() || self.is_module(r, receiver)? {
            let defs = self.defs_named(name)?;
            let funcs: Vec<&GraphDef> = defs
                .iter()
                .filter(|d| d.lang == "go" && d.container.is_none() && d.kind == "function")
                .collect();
            let local: Vec<&&GraphDef> = funcs
                .iter()
                .filter(|d| same_dir(&d.path, &r.path))
                .collect();
            // `httprouter.New()` among several packages' `New`: the one in
            // a directory named like the package.
            let named: Vec<&&GraphDef> = funcs
                .iter()
                .filter(|d| !receiver.is_empty() && dir_name(&d.path) == Some(receiver))
                .collect();
            match (
                receiver.is_empty(),
                local.as_slice(),
                named.as_slice(),
                funcs.as_slice(),
            ) {
                (true, [d], _, _) => Some((**d).clone()),
                (false, _, [d], _) => Some((**d).clone()),
                // `x.New()` with `x "corpus/lib/v2"`: the one package an
                // import line names (`gob.NewEncoder` of "encoding/gob" is
                // not the project's `schema.NewEncoder`).
                (false, _, [], [d]) if self.go_imports_dir_of(r, receiver, d) => Some((*d).clone()),
                _ => None,
            }
        } else {
            match self.receiver_class(r, receiver)? {
                Some(class) => self.member_def(&class, name)?,
                None => None,
            }
        };
        let Some(d) = def else { return Ok(None) };
        let header = self.header(&d);
        let Some(at) = find_word(&header, &d.name, 0) else {
            return Ok(None);
        };
        let Some(rest) =
            params_start(&header[at + d.name.len()..]).and_then(|p| skip_balanced(p, '(', ')'))
        else {
            return Ok(None);
        };
        Ok(go_result(rest, k).and_then(|t| type_in(t, "go")))
    }

    /// Is `q` a value declared in the Go function around the reference:
    /// a parameter, or `q :=`, `q, err :=`, `x, q :=`, `var q` above it?
    fn go_local_value(&mut self, r: &GraphRef, q: &str) -> Result<bool> {
        if self.is_parameter(r, q)? {
            return Ok(true);
        }
        let Some(text) = self.text(r.file_id, &r.path) else {
            return Ok(false);
        };
        let from = self.scope_start(r.file_id, r.line)?;
        let to = (r.line as usize).saturating_sub(1).min(text.lines.len());
        Ok(text.lines[from.min(to)..to].iter().any(|l| {
            let mut at = 0;
            while let Some(p) = find_word(l, q, at) {
                at = p + q.len();
                let before = l[..p].trim_end();
                let after = l[at..].trim_start();
                if before.ends_with("var") && !before.ends_with(".var") {
                    return true;
                }
                // the left side of a `:=`: names and commas only
                if let Some(d) = l.find(":=")
                    && p < d
                    && l[..d]
                        .trim_start()
                        .trim_start_matches("for ")
                        .trim_start_matches("if ")
                        .bytes()
                        .all(|b| is_ident_byte(b) || b == b',' || b == b' ')
                    && (after.starts_with(":=") || after.starts_with(','))
                {
                    return true;
                }
            }
            false
        }))
    }

    /// The import row by which a Go file names a package `alias` (`x
    /// "corpus/lib"`, or `"corpus/lib"` as `lib`).
    fn go_import(&mut self, r: &GraphRef, alias: &str) -> Option<ImportRow> {
        let rows = self.import_rows(r.file_id);
        rows.iter()
            .find(|i| match &i.alias {
                Some(a) => a == alias,
                None => go_package_names(&i.module).contains(&alias),
            })
            .cloned()
    }

    /// Does the reference's file import as `alias` the package of `def`:
    /// the one in its directory (by the path's last part), or at a
    /// module's root, where no directory names it, the one its file's
    /// `package` clause names (`git.PlainClone` of go-git's
    /// `github.com/go-git/go-git/v5`, `package git`)?
    fn go_imports_dir_of(&mut self, r: &GraphRef, alias: &str, def: &GraphDef) -> bool {
        let Some(import) = self.go_import(r, alias) else {
            return false;
        };
        match dir_name(&def.path) {
            Some(dir) => go_module_dir(&import.module) == dir,
            None => self.text(def.file_id, &def.path).is_some_and(|t| {
                go_package_clause(t.lines.iter().map(String::as_str)).is_some_and(|package| {
                    package == alias || go_package_names(&import.module).contains(&package)
                })
            }),
        }
    }

    /// Does `q` name a package the reference's file imports that cannot be
    /// the target's: a standard-library package (`errors.New`,
    /// `reflect.New` beside gin's `New`) unless the target lies in a
    /// directory of that name (the Go tree itself), or another module's
    /// package whose names are not the target's directory (a target at
    /// the root is left alone: its package name need not be the
    /// directory's).
    fn go_other_package(&mut self, r: &GraphRef, q: &str, def_path: &str) -> bool {
        if !q.bytes().all(is_ident_byte) {
            return false;
        }
        let Some(import) = self.go_import(r, q) else {
            return false;
        };
        let dir = dir_name(def_path);
        let first = import.module.split('/').next().unwrap_or("");
        if GO_STANDARD_ROOTS.contains(&first) {
            return dir != Some(go_module_dir(&import.module));
        }
        dir.is_some_and(|d| !go_package_names(&import.module).contains(&d))
    }

    /// Is `q` bound to a call of a function of an imported package that
    /// is not the project's (`enc := gob.NewEncoder(buf)` of
    /// "encoding/gob", beside the project's `schema.NewEncoder`)?
    fn go_foreign_call(&mut self, r: &GraphRef, line: &str, q: &str) -> Result<bool> {
        let Some(head) = call_bound_in_line(line, q) else {
            return Ok(false);
        };
        let Some(name) = dotted_last(&head) else {
            return Ok(false);
        };
        let receiver = head[..head.len() - name.len()].trim_end_matches('.');
        if receiver.is_empty() || !receiver.bytes().all(is_ident_byte) {
            return Ok(false);
        }
        let Some(import) = self.go_import(r, receiver) else {
            return Ok(false);
        };
        let dir = go_module_dir(&import.module);
        Ok(!self
            .defs_named(name)?
            .iter()
            .any(|d| d.lang == "go" && d.container.is_none() && dir_name(&d.path) == Some(dir)))
    }

    /// What `q := NewT(…)` (a Go constructor function) returns by its
    /// declaration when the project has it: `chi.NewRouter()` gives a
    /// `*Mux`, `NewRouteContext()` a `*Context`, not a `Router` or a
    /// `RouteContext` as the name would say.
    fn go_constructor_result(
        &mut self,
        r: &GraphRef,
        line: &str,
        q: &str,
    ) -> Result<Option<String>> {
        let Some(head) = call_bound_in_line(line, q) else {
            return Ok(None);
        };
        if !dotted_last(&head).is_some_and(|n| n.starts_with("New")) {
            return Ok(None);
        }
        self.call_result(r, &head)
    }

    /// Uses of a field, constant or variant: a word scan of the files of
    /// its language family, each occurrence given its receiver and scope.
    /// With `calls_only`, only the occurrences followed by `(`, as calls
    /// (those inside macros, which the grammar does not tag).
    fn scan_uses(&mut self, name: &str, langs: &[&str], calls_only: bool) -> Result<Vec<GraphRef>> {
        let files = self.store.graph_files_of(langs)?;
        let by_path: HashMap<&str, (i64, &str)> = files
            .iter()
            .map(|(id, p, l)| (p.as_str(), (*id, l.as_str())))
            .collect();
        let mut globs: Vec<String> = files
            .iter()
            .filter_map(|(_, p, _)| Path::new(p).extension().and_then(|e| e.to_str()))
            .map(|e| format!("*.{e}"))
            .collect();
        globs.sort();
        globs.dedup();
        if globs.is_empty() || !name.bytes().all(is_ident_byte) {
            return Ok(Vec::new());
        }
        let req = KeywordRequest {
            patterns: vec![name.to_string()],
            fixed_strings: true,
            case: CaseMode::Sensitive,
            word: true,
            before_context: 0,
            after_context: 0,
            max_count: None,
            max_results: Some(MAX_SCAN_MATCHES),
            walk: WalkOptions {
                globs,
                max_filesize: Some(MAX_READ_BYTES),
                ..WalkOptions::default()
            },
            paths: Vec::new(),
            no_index: false,
            first_match_only: false,
            invert_match: false,
        };
        let found = search_keyword(self.root, &req)?;
        let defs = self.defs_named(name)?;
        let def_sites: HashSet<(i64, u32, u32)> = defs
            .iter()
            .map(|d| (d.file_id, d.name_line, d.name_col))
            .collect();
        let mut out = Vec::new();
        for m in found.matches {
            let Some(&(file_id, lang)) = by_path.get(m.path.as_str()) else {
                continue;
            };
            let line = u32::try_from(m.line).unwrap_or(u32::MAX);
            if m.text.trim_start().starts_with(">>>") {
                continue;
            }
            if let Some(t) = self.text(file_id, &m.path)
                && t.quoted
                    .get(m.line.saturating_sub(1) as usize)
                    .copied()
                    .unwrap_or(false)
            {
                continue;
            }
            for &(start, _) in &m.submatches {
                let Some(prefix) = m.text.get(..start) else {
                    continue;
                };
                let col = u32::try_from(start + 1).unwrap_or(u32::MAX);
                if def_sites.contains(&(file_id, line, col)) {
                    continue;
                }
                // A Haskell type signature (`atxHeader :: Parser …`,
                // `f, g :: Int`) declares the name; it does not use it.
                if lang == "haskell" && is_haskell_signature(prefix, &m.text[start + name.len()..])
                {
                    continue;
                }
                let called = m
                    .text
                    .get(start + name.len()..)
                    .is_some_and(|rest| rest.trim_start().starts_with('('));
                if calls_only && !called {
                    continue;
                }
                // `Editor['chain']` (an indexed access type), `obj["name"]`:
                // a JS/TS member named by a string literal.
                let quoted = matches!(lang, "typescript" | "tsx" | "javascript")
                    .then(|| quoted_member(&m.text, start, name))
                    .flatten();
                let qualifier = match quoted {
                    Some(q) => Some(q),
                    None if in_comment_or_string(&m.text, start)
                        || in_line_comment_of(lang, &m.text, start) =>
                    {
                        continue;
                    }
                    None => qualifier_before(prefix),
                };
                let scope = self.scope_def(file_id, line)?.as_ref().map(qualified);
                out.push(GraphRef {
                    file_id,
                    path: m.path.clone(),
                    lang: lang.to_string(),
                    name: name.to_string(),
                    kind: if calls_only { "call" } else { "use" }.to_string(),
                    line,
                    col,
                    qualifier,
                    scope,
                });
            }
        }
        Ok(out)
    }

    /// The references that reach `targets`: resolved or name-only, each
    /// with the index of its target; references that belong to another
    /// definition are left out.
    ///
    /// With `keep_others` (a bare name was asked: every use of the name is
    /// wanted) the uses of other definitions stay, as name-only. With
    /// `Uses::Calls` (callers, context) a member's reads without a call are
    /// not scanned for; fields, constants and variants always are.
    pub fn references(
        &mut self,
        name: &str,
        targets: &[GraphDef],
        keep_others: bool,
        uses: Uses,
    ) -> Result<Vec<Resolved>> {
        let mut found = self.references_anywhere(name, targets, keep_others, uses)?;
        // A build's copies of the targets left out ([`Graph::targets`]),
        // the build's uses go too: they are of its own copies.
        let before = found.len();
        found.retain(|f| !self.is_left_out_build_use(&f.r.path));
        self.build_left_out.uses += before - found.len();
        Ok(found)
    }

    /// The constructions of a class whose initializer is among `targets`
    /// (by index into them): Python's `Class(…)` runs `Class.__init__`,
    /// Ruby's `Class.new(…)` runs `Class#initialize`. marshmallow's
    /// `callers ValidationError.__init__` had missed all 31 `raise
    /// ValidationError(…)`, kramdown's `callers Element.initialize` the 68
    /// `Element.new(…)`. A Python call resolves as a use of the class
    /// does; a Ruby one is resolved when the class's name is the project's
    /// only class so named, else a name-only candidate.
    pub fn constructions(&mut self, targets: &[GraphDef]) -> Result<Vec<Resolved>> {
        let mut out = Vec::new();
        for (i, d) in targets.iter().enumerate() {
            let Some(class) = d.container.as_deref().map(last_segment) else {
                continue;
            };
            let class = class.to_string();
            let holds = |c: &GraphDef| {
                c.file_id == d.file_id
                    && is_type_kind(&c.kind)
                    && c.start_line <= d.start_line
                    && d.end_line <= c.end_line
            };
            match (d.lang.as_str(), d.name.as_str()) {
                ("python", "__init__") => {
                    let classes: Vec<GraphDef> = self
                        .defs_named(&class)?
                        .iter()
                        .filter(|c| holds(c))
                        .cloned()
                        .collect();
                    if classes.is_empty() {
                        continue;
                    }
                    for f in self.references(&class, &classes, false, Uses::Calls)? {
                        out.push(Resolved { target: i, ..f });
                    }
                }
                ("ruby", "initialize") => {
                    let classes = self
                        .defs_named(&class)?
                        .iter()
                        .filter(|c| is_type_kind(&c.kind))
                        .count();
                    for r in self.store.graph_refs("new")? {
                        let names_class = r.lang == "ruby"
                            && r.qualifier
                                .as_deref()
                                .is_some_and(|q| q.rsplit("::").next() == Some(class.as_str()));
                        if !names_class {
                            continue;
                        }
                        out.push(Resolved {
                            r,
                            resolution: if classes == 1 {
                                Resolution::Resolved
                            } else {
                                Resolution::NameOnly
                            },
                            target: i,
                        });
                    }
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// A use in a build whose copies of the targets were left out.
    fn is_left_out_build_use(&mut self, path: &str) -> bool {
        self.build_left_out.definitions > 0 && self.is_build_copy(path)
    }

    fn references_anywhere(
        &mut self,
        name: &str,
        targets: &[GraphDef],
        keep_others: bool,
        uses: Uses,
    ) -> Result<Vec<Resolved>> {
        let name = name.to_string();
        if targets.is_empty() {
            return Ok(self
                .store
                .graph_refs(&name)?
                .into_iter()
                .map(|r| Resolved {
                    r,
                    resolution: Resolution::NameOnly,
                    target: 0,
                })
                .collect());
        }
        let infos: Vec<Rc<TargetInfo>> = targets
            .iter()
            .map(|d| self.target_info(d))
            .collect::<Result<_>>()?;
        let mut candidates = self.store.graph_refs(&name)?;
        // Members are also read without a call (`r.content`, a bound method
        // passed along), and functions named without one (imported, put in
        // a list of handlers, `f.call(this)`), which the tags queries do not
        // tag; types' uses are tagged.
        // Calls inside a macro (a Rust macro's arguments, `ready!(self.f(cx))`,
        // `assert_eq!(s.f(), 1)`; a C `#define`'s body) are tokens to the
        // grammar, not calls: for callers, a word scan finds them by the
        // `(` after the name.
        let macro_calls = |t: &TargetInfo| {
            uses == Uses::Calls
                && matches!(t.def.lang.as_str(), "rust" | "c" | "cpp" | "objc")
                && !is_type_kind(&t.def.kind)
        };
        let scan_langs: HashSet<&'static str> = infos
            .iter()
            .filter(|t| {
                needs_scan(&t.def.kind)
                    || (uses == Uses::All && (t.class.is_some() || !is_type_kind(&t.def.kind)))
                    || macro_calls(t)
            })
            .map(|t| &t.def)
            .flat_map(|d| lang_family(&d.lang).iter().copied())
            .collect();
        let calls_only = uses == Uses::Calls && !infos.iter().any(|t| needs_scan(&t.def.kind));
        if !scan_langs.is_empty() {
            let langs: Vec<&str> = scan_langs.into_iter().collect();
            let have: HashSet<(i64, u32, u32)> = candidates
                .iter()
                .map(|r| (r.file_id, r.line, r.col))
                .collect();
            // In Java and Kotlin a method is named without a call only as
            // a method reference (`this::label`): a bare word is a
            // parameter, local or field of that name. In Ruby a bare word
            // is a call, which the tags query has tagged already unless it
            // names a local or parameter of its method (`def label(label)`):
            // one it did not tag counts only as a symbol (`send(:label)`,
            // `alias_method :name, :label`).
            let methods_only = infos
                .iter()
                .all(|t| matches!(t.def.kind.as_str(), "method" | "function"));
            for r in self.scan_uses(&name, &langs, calls_only)? {
                if have.contains(&(r.file_id, r.line, r.col)) {
                    continue;
                }
                if methods_only
                    && r.kind == "use"
                    && match r.lang.as_str() {
                        "java" | "kotlin" => !self.after_method_reference(&r),
                        "ruby" => !self.after_symbol_colon(&r),
                        // `$this->name = true` is the property, not the
                        // method of that name (PHPUnit's `TestCase`).
                        "php" => self.php_member_read(&r),
                        _ => false,
                    }
                {
                    continue;
                }
                candidates.push(r);
            }
            candidates.sort_by(|a, b| (&a.path, a.line, a.col).cmp(&(&b.path, b.line, b.col)));
        }
        // A Java or C# constructor is called only through `new` (a
        // subclass's `super(…)` and `this(…)` name no class): its class's
        // name elsewhere is a type (`extends Element`, `Element el = …`),
        // which jsoup's `callers Element.Element` listed by the hundred.
        let new_only = uses == Uses::Calls && infos.iter().all(|t| is_new_only_constructor(&t.def));
        let mut out = Vec::new();
        for r in candidates {
            if new_only && !self.after_new(&r) {
                continue;
            }
            let mut best: Option<(Verdict, usize)> = None;
            for (i, t) in infos.iter().enumerate() {
                let v = self.verdict(&r, t)?;
                if best.is_none_or(|(b, _)| v < b) {
                    best = Some((v, i));
                }
            }
            if matches!(best, Some((Verdict::Resolved, _))) && self.symbol_for_other_receiver(&r) {
                best = best.map(|(_, i)| (Verdict::NameOnly, i));
            }
            match best {
                Some((Verdict::Resolved, i)) => out.push(Resolved {
                    r,
                    resolution: Resolution::Resolved,
                    target: i,
                }),
                Some((Verdict::NameOnly, _)) | Some((Verdict::Other, _))
                    if cannot_be_member(&r, &infos) => {}
                Some((Verdict::NameOnly, i)) => out.push(Resolved {
                    r,
                    resolution: Resolution::NameOnly,
                    target: i,
                }),
                Some((Verdict::Other, i)) if keep_others => out.push(Resolved {
                    r,
                    resolution: Resolution::NameOnly,
                    target: i,
                }),
                _ => {}
            }
        }
        // An import of the name is a use worth listing where it is the
        // file's only one (a re-export); beside the file's other uses it
        // only repeats the file.
        let mut imports: HashSet<(i64, u32)> = HashSet::new();
        for r in out.iter().filter(|x| x.r.kind == "use") {
            if self
                .import_rows(r.r.file_id)
                .iter()
                .any(|i| i.line == r.r.line)
            {
                imports.insert((r.r.file_id, r.r.line));
            }
        }
        if !imports.is_empty() {
            let used: HashSet<i64> = out
                .iter()
                .filter(|x| !imports.contains(&(x.r.file_id, x.r.line)))
                .map(|x| x.r.file_id)
                .collect();
            out.retain(|x| {
                !(imports.contains(&(x.r.file_id, x.r.line)) && used.contains(&x.r.file_id))
            });
        }
        Ok(out)
    }

    /// Where a call inside a definition goes: the definition it resolves to
    /// (or the only candidate, name-only), or none in the project.
    pub fn callee(&mut self, r: &GraphRef) -> Result<(Resolution, Option<GraphDef>, usize)> {
        let defs = self.defs_named(&r.name)?;
        // An impl block or a module is never what a call reaches (tokio's
        // `self.std.spawn()` is no call of `mod spawn;`), but OCaml applies
        // a functor (`Make (Ord)`).
        let mut defs: Vec<GraphDef> = defs
            .iter()
            .filter(|d| match d.kind.as_str() {
                "impl" => false,
                "module" | "namespace" | "package" => d.lang == "ocaml",
                _ => true,
            })
            .cloned()
            .collect();
        // A bare call where a method is always reached through a receiver
        // (Python, JavaScript, TypeScript) is no call of a method:
        // jinja2's `getattr(obj, attr)` is the built-in, not
        // `Environment.getattr`.
        if r.qualifier.is_none()
            && matches!(
                r.lang.as_str(),
                "python" | "javascript" | "typescript" | "tsx"
            )
        {
            defs.retain(|d| d.kind != "method");
        }
        // A call reaches a method before a field of the same name (PHP's
        // `$this->doesNotPerformAssertions()` beside the property).
        defs.sort_by_key(|d| needs_scan(&d.kind));
        let mut name_only = None;
        let mut resolved: Option<&GraphDef> = None;
        for d in &defs {
            let info = self.target_info(d)?;
            match self.verdict(r, &info)? {
                // Of the definitions a call can reach, its own file's
                // first: Kotlin's `Iterable<T>.joinToString` calls the
                // `Iterable<T>.joinTo` beside it in `_Collections.kt`, not
                // `Array<T>.joinTo` of the same package.
                Verdict::Resolved if d.file_id == r.file_id => {
                    let d = body_of(d, &defs, r);
                    return Ok((Resolution::Resolved, Some(d.clone()), defs.len()));
                }
                Verdict::Resolved if resolved.is_none() => resolved = Some(d),
                Verdict::NameOnly if name_only.is_none() => name_only = Some(d.clone()),
                _ => {}
            }
        }
        if let Some(d) = resolved {
            let d = body_of(d, &defs, r);
            return Ok((Resolution::Resolved, Some(d.clone()), defs.len()));
        }
        Ok((Resolution::NameOnly, name_only, defs.len()))
    }

    /// The calls inside a definition's span, each with what it reaches
    /// ([`Graph::callee`]), without the language's built-ins (`len(x)`,
    /// `println!`, `append`) unless the project defines one of that name:
    /// what `callees` and `context` list.
    pub fn callees_of(&mut self, def: &GraphDef) -> Result<Vec<CallIn>> {
        let mut out = Vec::new();
        for r in self.calls_in(def)? {
            let (resolution, to, definitions) = self.callee(&r)?;
            // A Rust type alias is never called: `Ok(…)` is the Result's
            // variant beside serde_json's 22 associated `type Ok = …;`.
            if r.qualifier.is_none()
                && is_builtin_call(&r.lang, &r.name)
                && (definitions == 0
                    || (r.lang == "rust"
                        && self.defs_named(&r.name)?.iter().all(|d| d.kind == "type")))
            {
                continue;
            }
            // `Array.from(…)`, `JSON.parse(…)`, `str.join(…)`: a built-in
            // object's method, not a project function of that name.
            if r.qualifier
                .as_deref()
                .is_some_and(|q| is_builtin_receiver(&r.lang, q))
            {
                continue;
            }
            // A name-only call names a definition (and its place) only when
            // the index has exactly one of that name: of 33 `call`s, the
            // first is a guess. A literal's method (`"".join(…)`,
            // `'a'.upper()`) is the language's, whatever the project
            // defines.
            let literal = r.qualifier.as_deref().is_some_and(|q| {
                q.starts_with(['"', '\'', '`']) || q.starts_with(|c: char| c.is_ascii_digit())
            });
            // So is an everyday method of the language's own collections,
            // strings and exceptions called on a receiver the graph did
            // not type: werkzeug's `trusted_hosts.append(…)` (a list) is
            // not `ImmutableListMixin.append`, nor rack's
            // `split('_').map(&:capitalize)` `Builder#map`.
            let everyday = r
                .qualifier
                .as_deref()
                .is_some_and(|q| !is_self_word(q) && !is_super_word(q, &r.lang))
                && is_builtin_method(&r.lang, &r.name);
            // Nor is live code's name-only call placed in a test file:
            // logrus's `entry.Logger.Out.Write(…)` (an `io.Writer`) had
            // pointed at `logrus_test.go`'s `channelWriter.Write`.
            let to = to.filter(|t| {
                resolution == Resolution::Resolved
                    || (definitions == 1
                        && !literal
                        && !everyday
                        && (!crate::search::is_test_path(&t.path)
                            || crate::search::is_test_path(&r.path)))
            });
            out.push(CallIn {
                r,
                resolution,
                to,
                definitions,
            });
        }
        Ok(out)
    }

    /// The calls inside a definition's span: the tagged ones and, in Rust,
    /// those inside a macro's arguments (`ready!(self.poll_x(cx))`,
    /// `assert_eq!(f(), 1)`), which the grammar leaves as tokens and
    /// [`Graph::references`] finds for callers by a word scan.
    pub fn calls_in(&mut self, def: &GraphDef) -> Result<Vec<GraphRef>> {
        let refs = self
            .store
            .graph_refs_in(def.file_id, def.start_line, def.end_line)?;
        let mut calls: Vec<GraphRef> = Vec::new();
        for r in refs {
            // `new Circle(1.0)`: a constructor's call, tagged as a use of
            // the class (Java, C#, PHP, JavaScript).
            if is_call_kind(&r.kind) || (r.kind == "class" && self.after_new(&r)) {
                calls.push(r);
            }
        }
        if def.lang == "rust"
            && let Some(text) = self.text(def.file_id, &def.path)
        {
            let first = def.start_line.max(1) as usize - 1;
            let last = (def.end_line as usize).min(text.lines.len());
            let have: HashSet<(u32, u32)> = calls.iter().map(|r| (r.line, r.col)).collect();
            let scope = Some(qualified(def));
            for (line, col, name, qualifier) in rust_macro_calls(
                text.lines.get(first..last).unwrap_or_default(),
                first as u32 + 1,
            ) {
                if !have.contains(&(line, col)) {
                    calls.push(GraphRef {
                        file_id: def.file_id,
                        path: def.path.clone(),
                        lang: def.lang.clone(),
                        name,
                        kind: "call".into(),
                        line,
                        col,
                        qualifier,
                        scope: scope.clone(),
                    });
                }
            }
            calls.sort_by_key(|r| (r.line, r.col));
        }
        Ok(calls)
    }
}

/// A Lua file's `local` bindings: name → the values it is given, each
/// with whether the name was bound alone on its line.
type LuaLocals = HashMap<String, Vec<(String, bool)>>;

/// Which way a call-graph query goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// Who calls (uses) the definition.
    Callers,
    /// What the definition calls.
    Callees,
}

impl Direction {
    /// The operation's name (the CLI command, the `stats` entry).
    pub fn op_name(self) -> &'static str {
        match self {
            Direction::Callers => "callers",
            Direction::Callees => "callees",
        }
    }

    /// The operation of that name.
    pub fn from_op_name(name: &str) -> Option<Direction> {
        match name {
            "callers" => Some(Direction::Callers),
            "callees" => Some(Direction::Callees),
            _ => None,
        }
    }

    /// How an edge reads in a text answer: `from -> to`, except that a
    /// direct edge of an answer about one definition leaves out that
    /// definition, which the answer's header names (a caller's line is the
    /// caller, a callee's line `-> callee`). A caller at a file's top
    /// level (`from` is the call site's `path`) reads `(top level)`, not
    /// the path again.
    pub fn edge_label(
        self,
        from: &str,
        to: &str,
        path: &str,
        depth: u32,
        targets: usize,
    ) -> String {
        let from = if from == path { "(top level)" } else { from };
        match self {
            _ if depth > 1 || targets != 1 => format!("{from} -> {to}"),
            Direction::Callers => from.to_string(),
            Direction::Callees => format!("-> {to}"),
        }
    }
}

/// One edge of the call graph: a call site and what it connects.
#[derive(Debug, Clone, Serialize)]
pub struct Edge {
    /// 1 for a direct caller or callee, 2 for one of theirs, …
    pub depth: u32,
    /// The calling symbol (the call site's enclosing scope, or its file at
    /// top level).
    pub from: String,
    /// The called symbol (qualified when resolved, else the name as called).
    pub to: String,
    /// The call site.
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub kind: String,
    pub resolution: Resolution,
    /// The receiver written at the call (`self`, `session`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qualifier: Option<String>,
    /// Where `to` is defined (`path:line`), when the index knows it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub defined_at: Option<String>,
    /// The call site's source line (filled in by the service).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// A definition a graph query starts from.
#[derive(Debug, Clone, Serialize)]
pub struct GraphTarget {
    pub symbol: String,
    pub kind: String,
    pub path: String,
    pub line: u32,
}

/// The targets as answers list them, `symbol (kind) path:line`, with a
/// name's overloads in one file on one line (`MessageParser.ParseFrom
/// (method) MessageParser.cs:73, 14 overloads at lines 73-302`): a header
/// line per overload said nothing the first did not.
pub fn target_lines(targets: &[GraphTarget]) -> Vec<String> {
    let mut groups: Vec<(&GraphTarget, usize, u32)> = Vec::new();
    for t in targets {
        match groups
            .iter_mut()
            .find(|(g, _, _)| g.symbol == t.symbol && g.kind == t.kind && g.path == t.path)
        {
            Some((_, n, last)) => {
                *n += 1;
                *last = (*last).max(t.line);
            }
            None => groups.push((t, 1, t.line)),
        }
    }
    // A bare name many files define (pino's 26 `write` helpers, most in
    // tests): the first few, then how many more and how to ask for one.
    let more = groups.len().saturating_sub(TARGET_LINES);
    let more = if more > 1 {
        groups.truncate(TARGET_LINES);
        Some(format!(
            "… {more} more definitions of the name: qualify it (`Type.name`, `file.name`) to ask for one"
        ))
    } else {
        None
    };
    groups
        .into_iter()
        .map(|(t, n, last)| {
            let head = format!("{} ({}) {}:{}", t.symbol, t.kind, t.path, t.line);
            if n > 1 {
                let what = if overloads_by_signature(&t.path) {
                    "overloads"
                } else {
                    "definitions"
                };
                format!("{head}, {n} {what} at lines {}-{last}", t.line)
            } else {
                head
            }
        })
        .chain(more)
        .collect()
}

/// Most target lines [`target_lines`] writes before it counts the rest.
const TARGET_LINES: usize = 6;

/// Whether the file's language tells same-named functions of one scope
/// apart by their parameters, so that several are overloads. A Rust
/// file's same-named twins are `#[cfg]` variants (serde_json's two
/// `parse_any_number`), a C file's `#ifdef` branches, a Python file's
/// redefinitions: "definitions" there.
fn overloads_by_signature(path: &str) -> bool {
    use crate::model::Lang;
    matches!(
        crate::lang::detect_lang(std::path::Path::new(path)),
        Some(
            Lang::Java
                | Lang::CSharp
                | Lang::Cpp
                | Lang::Kotlin
                | Lang::Swift
                | Lang::Scala
                | Lang::TypeScript
                | Lang::Tsx
                | Lang::ObjC
                | Lang::Elixir
                | Lang::Erlang
        )
    )
}

/// Sites (`path`, `line`, what follows the place) as one line of an
/// answer: `path:line rest`, a file's further sites in a row by their
/// line alone, files apart by `; ` (`src/conn.rs:313 in A, 376 in B;
/// src/client.rs:667 in C`); `none` for no site. `context` had repeated
/// rustls's 26-character `rustls-0.23.12/src/conn.rs` on eight of its ten
/// callers.
pub fn site_list<'a>(sites: impl IntoIterator<Item = (&'a str, u32, String)>) -> String {
    let mut out = String::new();
    let mut last: Option<&str> = None;
    for (path, line, rest) in sites {
        if last == Some(path) {
            out.push_str(", ");
        } else {
            if last.is_some() {
                out.push_str("; ");
            }
            out.push_str(path);
            out.push(':');
        }
        out.push_str(&line.to_string());
        out.push_str(&rest);
        last = Some(path);
    }
    if out.is_empty() {
        out.push_str("none");
    }
    out
}

/// The answer of `callers` / `callees`.
#[derive(Debug, Clone, Serialize)]
pub struct GraphResult {
    pub name: String,
    pub direction: Direction,
    pub depth: u32,
    pub targets: Vec<GraphTarget>,
    pub edges: Vec<Edge>,
    /// Edges found in all (before the limit), and of them resolved, via a
    /// base method ([`Resolution::ViaBase`]) and name-only.
    pub total: usize,
    pub resolved: usize,
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub via_base: usize,
    pub name_only: usize,
    pub truncated: bool,
    pub redacted: usize,
    /// A build's copies of the targets and their uses, left out.
    #[serde(skip_serializing_if = "crate::search::BuildLeftOut::is_none")]
    pub build_output_left_out: crate::search::BuildLeftOut,
}

/// A call graph's count of [`Resolution::ViaBase`] edges as its summary
/// line says it on both surfaces (`1 via a base method, `), nothing when
/// none.
pub fn via_base_part(n: usize) -> String {
    match n {
        0 => String::new(),
        n => format!("{n} via a base method, "),
    }
}

/// A [`Resolution::ViaBase`] edge's mark: the base method it calls
/// (`(via GestureHandler.onHandle)`).
pub fn via_label(base: &str) -> String {
    format!("(via {base})")
}

/// The deepest `--depth` a graph query expands to.
pub const MAX_DEPTH: u32 = 5;
/// Edges gathered at most before expansion stops (the answer is cut to its
/// limit after ordering).
const MAX_EDGES: usize = 5000;

/// Which callables a call may name (see [`Graph::return_type`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Callee {
    /// Functions and methods.
    Any,
    /// Functions, nested ones too: a bare call, where a method needs its
    /// receiver written.
    Function,
    /// Module-level functions (`requests.get(…)`).
    TopLevel,
    /// A call with its receiver written (`self.app(…)`, `x.run(…)`), the
    /// receiver not a module: functions and methods, but in Python methods
    /// only: a function (a test's local `def app(request) -> Response`, a
    /// module's `app`) is reached through an object only once stored in an
    /// attribute, and then which one is anybody's guess.
    Member,
}

impl Callee {
    /// May a call of this shape name `d` (a function or method)?
    fn admits(self, d: &GraphDef) -> bool {
        match self {
            Callee::Any => true,
            Callee::Function => d.kind == "function",
            Callee::TopLevel => d.kind == "function" && d.container.is_none(),
            Callee::Member => !(d.lang == "python" && d.kind == "function"),
        }
    }
}

/// A call inside a definition ([`Graph::callees_of`]).
pub struct CallIn {
    pub r: GraphRef,
    pub resolution: Resolution,
    /// The definition it reaches when resolved, else the only one of its
    /// name (never for a literal's method).
    pub to: Option<GraphDef>,
    /// How many definitions have its name.
    pub definitions: usize,
}

/// What a call resolved to a prototype reaches: the function's body among
/// `defs` (all of its name), when one is the clear choice: the only body,
/// else the one in the call's file, else the one in the source file named
/// as the prototype's header (`zmalloc.h`'s `zfree` is `zmalloc.c`'s).
fn body_of<'d>(d: &'d GraphDef, defs: &'d [GraphDef], r: &GraphRef) -> &'d GraphDef {
    if !is_prototype(d) {
        return d;
    }
    let bodies: Vec<&GraphDef> = defs
        .iter()
        .filter(|b| {
            b.kind == d.kind && b.container == d.container && b.lang == d.lang && !is_prototype(b)
        })
        .collect();
    if let [only] = bodies.as_slice() {
        return only;
    }
    let stem = crate::search::file_stem(&d.path);
    bodies
        .iter()
        .find(|b| b.file_id == r.file_id)
        .or_else(|| {
            bodies
                .iter()
                .find(|b| crate::search::file_stem(&b.path) == stem)
        })
        .copied()
        .unwrap_or(d)
}

fn qualified(d: &GraphDef) -> String {
    let sep = match d.lang.as_str() {
        "rust" | "cpp" | "php" => "::",
        _ => ".",
    };
    match &d.container {
        Some(c) => format!("{c}{sep}{}", d.name),
        None => d.name.clone(),
    }
}

fn target_out(d: &GraphDef) -> GraphTarget {
    GraphTarget {
        symbol: qualified(d),
        kind: d.kind.clone(),
        path: d.path.clone(),
        line: d.name_line,
    }
}

/// Callers or callees of a (possibly qualified) name, expanded breadth
/// first to `depth` through resolved edges only, ordered by depth, then
/// resolved before name-only, then path and line; at most `limit` edges.
pub fn call_graph(
    store: &Store,
    root: &Path,
    name: &str,
    direction: Direction,
    depth: u32,
    limit: usize,
) -> Result<GraphResult> {
    let depth = depth.clamp(1, MAX_DEPTH);
    let asked = asked_name(name.trim());
    let name = asked.as_ref();
    let mut g = Graph::new(store, root);
    let mut targets = g.targets(name)?;
    if targets.is_empty() {
        return Err(unknown_name_in(store, &split_qualified(name).1));
    }
    // A field named like a method beside it (PHP's `private
    // $doesNotPerformAssertions` and `doesNotPerformAssertions()`) is not
    // called: its reads and writes are no calls of the method.
    if targets
        .iter()
        .any(|d| matches!(d.kind.as_str(), "function" | "method"))
    {
        targets.retain(|d| !needs_scan(&d.kind));
    }
    let mut edges: Vec<Edge> = Vec::new();
    let mut seen: HashSet<(String, u32)> = targets
        .iter()
        .map(|d| (d.path.clone(), d.start_line))
        .collect();
    let mut queue: VecDeque<(Vec<GraphDef>, u32)> = VecDeque::from([(targets.clone(), 1)]);
    // Each call site once, at the depth it is first met: a deeper level
    // meeting it again (a name-only use of the caller that is the same
    // site) repeated it.
    let mut sites: HashSet<(String, u32, u32)> = HashSet::new();
    while let Some((defs, d)) = queue.pop_front() {
        if edges.len() >= MAX_EDGES {
            break;
        }
        match direction {
            Direction::Callers => {
                let Some(first) = defs.first() else { continue };
                // A bare name asks for every use of it, the first level at least.
                let bare = d == 1 && split_as_defined(g.store, name)?.0.is_none();
                let mut found: Vec<(Resolved, Option<GraphDef>)> = g
                    .references(&first.name.clone(), &defs, bare, Uses::Calls)?
                    .into_iter()
                    .map(|f| (f, None))
                    .collect();
                if d == 1 {
                    found.extend(
                        g.calls_via_base(&defs)?
                            .into_iter()
                            .map(|(f, base)| (f, Some(base))),
                    );
                    found.extend(g.constructions(&defs)?.into_iter().map(|f| (f, None)));
                }
                for (f, base) in found {
                    if !sites.insert((f.r.path.clone(), f.r.line, f.r.col)) {
                        continue;
                    }
                    let to = match &base {
                        Some(b) => qualified(b),
                        None => defs.get(f.target).map(qualified).unwrap_or_default(),
                    };
                    let caller = g.scope_def(f.r.file_id, f.r.line)?;
                    // A call in a macro's body (`macro_rules! map_impl`)
                    // is named after the macro; only a file's top level
                    // after the file.
                    let from = match &caller {
                        Some(c) => qualified(c),
                        None => g
                            .innermost(f.r.file_id, f.r.line, |d| d.kind == "macro")?
                            .as_ref()
                            .map_or_else(|| f.r.path.clone(), qualified),
                    };
                    if d < depth
                        && f.resolution == Resolution::Resolved
                        && let Some(c) = caller
                        && seen.insert((c.path.clone(), c.start_line))
                    {
                        queue.push_back((vec![c], d + 1));
                    }
                    edges.push(Edge {
                        depth: d,
                        from,
                        to,
                        path: f.r.path,
                        line: f.r.line,
                        column: f.r.col,
                        kind: f.r.kind,
                        resolution: f.resolution,
                        qualifier: f.r.qualifier,
                        defined_at: None,
                        text: None,
                    });
                }
            }
            Direction::Callees => {
                for def in &defs {
                    let from = qualified(def);
                    for CallIn {
                        r,
                        resolution,
                        to: to_def,
                        ..
                    } in g.callees_of(def)?
                    {
                        let to = to_def
                            .as_ref()
                            .map(qualified)
                            .unwrap_or_else(|| r.name.clone());
                        let defined_at = to_def
                            .as_ref()
                            .map(|t| format!("{}:{}", t.path, t.name_line));
                        if d < depth
                            && resolution == Resolution::Resolved
                            && let Some(t) = to_def
                            && matches!(t.kind.as_str(), "function" | "method")
                            && seen.insert((t.path.clone(), t.start_line))
                        {
                            queue.push_back((vec![t], d + 1));
                        }
                        edges.push(Edge {
                            depth: d,
                            from: from.clone(),
                            to,
                            path: r.path,
                            line: r.line,
                            column: r.col,
                            kind: r.kind,
                            resolution,
                            qualifier: r.qualifier,
                            defined_at,
                            text: None,
                        });
                    }
                }
            }
        }
    }
    // Source before declarations and build output
    // ([`crate::search::path_standing`]), then path order.
    let standing = crate::search::path_standings(
        store,
        edges
            .iter()
            .map(|e| e.path.as_str())
            .chain(targets.iter().map(|t| t.path.as_str())),
    );
    let at = |path: &str| standing.get(path).copied().unwrap_or(0);
    // Live code before tests, whatever each edge's resolution: marshmallow's
    // `callers Field.deserialize` had 250 resolved test lines before its
    // one live caller (name-only, and marked so).
    // (A build's copies last of all.)
    let test = |path: &str| (at(path) >= 2, crate::search::is_test_path(path));
    edges.sort_by(|a, b| {
        (
            a.depth,
            test(&a.path),
            a.resolution,
            at(&a.path),
            &a.path,
            a.line,
            a.column,
        )
            .cmp(&(
                b.depth,
                test(&b.path),
                b.resolution,
                at(&b.path),
                &b.path,
                b.line,
                b.column,
            ))
    });
    // Two calls of one callee on one line (`self.len() - self.len()`) are
    // one place to read: the first column stands for both.
    let mut places = HashSet::new();
    edges.retain(|e| {
        places.insert((
            e.depth,
            e.from.clone(),
            e.to.clone(),
            e.path.clone(),
            e.line,
        ))
    });
    let total = edges.len();
    let resolved = edges
        .iter()
        .filter(|e| e.resolution == Resolution::Resolved)
        .count();
    let via_base = edges
        .iter()
        .filter(|e| e.resolution == Resolution::ViaBase)
        .count();
    edges.truncate(limit);
    Ok(GraphResult {
        name: name.trim().to_string(),
        direction,
        depth,
        targets: {
            let mut out: Vec<GraphTarget> = targets.iter().map(target_out).collect();
            out.sort_by_key(|t| at(&t.path));
            out
        },
        truncated: total > edges.len(),
        total,
        resolved,
        via_base,
        name_only: total - resolved - via_base,
        edges,
        redacted: 0,
        build_output_left_out: g.build_left_out,
    })
}

/// The number of arguments of the call of `name` at 1-based column `col`
/// of `line` (`f()` 0, `f(a, g(b, c))` 2), when its parentheses close on
/// the line.
fn call_arity(line: &str, col: u32, name: &str) -> Option<usize> {
    let at = (col as usize).saturating_sub(1);
    let from = if line.get(at..).is_some_and(|t| t.starts_with(name)) {
        at
    } else {
        line.find(name)?
    };
    let rest = line.get(from + name.len()..)?.trim_start();
    let inner = rest.strip_prefix('(')?;
    count_top_level(inner, ')', false).map(|(n, _)| n)
}

/// The parameter count range of a one-line signature of `name`:
/// (required, all), all unbounded for varargs (`String... xs`, `params
/// object[] xs`); `None` when its parentheses do not close on the line.
fn param_range(signature: &str, name: &str) -> Option<(usize, usize)> {
    let from = signature
        .find(&format!("{name}("))
        .or_else(|| signature.find(&format!("{name} (")))?;
    let inner = signature[from + name.len()..]
        .trim_start()
        .strip_prefix('(')?;
    let (n, end) = count_top_level(inner, ')', true)?;
    let params = &inner[..end];
    if params.contains("...") || params.contains("params ") {
        return Some((n.saturating_sub(1), usize::MAX));
    }
    let defaults = params.matches('=').count().min(n);
    Some((n - defaults, n))
}

/// The items before the `close` that ends a bracketed list whose opening
/// bracket `text` follows: commas at its top level plus one, 0 when
/// empty; generics (`Map<K, V>`), nested brackets and string literals
/// count as one (`params`: a parameter list, where every `<` after a name
/// opens a generic). With the byte offset of that `close`; `None` when
/// the list does not close in `text`.
fn count_top_level(text: &str, close: char, params: bool) -> Option<(usize, usize)> {
    let mut depth = 0usize;
    let mut angle = 0usize;
    let mut commas = 0;
    let mut any = false;
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, &(at, c)) in chars.iter().enumerate() {
        // `Map<K, V>`, `List<?>`, in a parameter list any `vector<int>`:
        // a generic's angle brackets; among arguments `a < b` is a
        // comparison.
        let generic_open = c == '<'
            && prev.is_alphanumeric()
            && (params
                || chars
                    .get(i + 1)
                    .is_some_and(|&(_, n)| n.is_uppercase() || n == '?'));
        if let Some(q) = quote {
            if c == q && prev != '\\' {
                quote = None;
            }
            prev = c;
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '(' | '[' | '{' => depth += 1,
            '<' if depth == 0 && generic_open => angle += 1,
            '>' if depth == 0 && angle > 0 && prev != '-' => angle -= 1,
            c if c == close && depth == 0 => {
                return Some((if any { commas + 1 } else { 0 }, at));
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 0 && angle == 0 => commas += 1,
            _ => {}
        }
        if !c.is_whitespace() {
            any = true;
        }
        prev = c;
    }
    None
}

/// std's everyday types, as a Rust path names them (`String::new`).
fn is_rust_std_type(name: &str) -> bool {
    matches!(
        name,
        "String"
            | "Vec"
            | "VecDeque"
            | "Box"
            | "Rc"
            | "Arc"
            | "Cell"
            | "RefCell"
            | "Mutex"
            | "RwLock"
            | "HashMap"
            | "HashSet"
            | "BTreeMap"
            | "BTreeSet"
            | "BinaryHeap"
            | "Option"
            | "Result"
            | "Cow"
            | "PathBuf"
            | "Path"
            | "OsString"
            | "Duration"
            | "Instant"
            | "SystemTime"
            | "File"
            | "Cursor"
    )
}

/// Whether `name`, called bare, is one of `lang`'s built-in functions (or
/// Rust's standard macros): every function calls them, and no project
/// definition answers them, so a callees list of them is noise.
fn is_builtin_call(lang: &str, name: &str) -> bool {
    let names = match lang {
        "python" => {
            "abs all any bool bytes callable chr dict dir divmod enumerate filter float format \
             frozenset getattr hasattr hash id int isinstance issubclass iter len list map max \
             min next object open ord print range repr reversed round set setattr slice sorted \
             str sum super tuple type vars zip classmethod staticmethod property"
        }
        "go" => {
            "append cap clear close complex copy delete imag len make max min new panic print \
             println real recover"
        }
        "javascript" | "typescript" | "tsx" => {
            "Array Boolean Number Object String Symbol BigInt parseInt parseFloat isNaN isFinite \
             setTimeout clearTimeout setInterval clearInterval encodeURIComponent \
             decodeURIComponent"
        }
        "rust" => {
            "assert assert_eq assert_ne debug_assert debug_assert_eq debug_assert_ne format \
             format_args print println eprint eprintln write writeln vec panic todo \
             unimplemented unreachable matches dbg concat stringify cfg env include_str \
             include_bytes Some Ok Err Box"
        }
        "lua" => {
            "assert error ipairs pairs next pcall xpcall print rawget rawset rawequal rawlen \
             require select setmetatable getmetatable tonumber tostring type unpack"
        }
        "ruby" => {
            "puts print p pp raise require require_relative format sprintf lambda proc loop \
             attr_reader attr_writer attr_accessor include extend private protected public \
             block_given? catch throw"
        }
        // C++'s casts and operators written like calls; C's and C++'s
        // everyday library functions.
        "c" | "cpp" | "objc" => {
            "static_cast dynamic_cast reinterpret_cast const_cast sizeof alignof decltype \
             typeid offsetof assert printf fprintf snprintf sprintf malloc calloc realloc free \
             memcpy memmove memset memcmp strlen strcmp strncmp strcpy strncpy"
        }
        "kotlin" => {
            "println print listOf mutableListOf mapOf mutableMapOf setOf mutableSetOf arrayOf \
             emptyList emptyMap emptySet require requireNotNull check checkNotNull error TODO \
             lazy repeat"
        }
        // The Prelude's and base's everyday functions, and Applicative's
        // parser combinators (`many`, `optional`).
        "haskell" => {
            "return pure fmap map filter foldr foldl foldl' concat concatMap mapM mapM_ forM \
             forM_ sequence sequence_ traverse traverse_ when unless show read error \
             errorWithoutStackTrace fst snd not null length elem notElem lookup maybe either \
             id const flip zip zipWith unzip lines unlines words unwords reverse take drop \
             takeWhile dropWhile span break splitAt replicate otherwise liftIO lift void \
             many some optional fromMaybe catMaybes mapMaybe isJust isNothing fromIntegral \
             toEnum fromEnum min max compare mempty mconcat mappend"
        }
        _ => "",
    };
    names.split_whitespace().any(|n| n == name)
}

/// A line with the text of its quoted strings (`'…'`, `"…"`, `` `…` ``)
/// left out, quotes kept.
fn without_string_literals(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in line.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                    out.push(c);
                }
            }
            None => {
                if matches!(c, '\'' | '"' | '`') {
                    quote = Some(c);
                }
                out.push(c);
            }
        }
    }
    out
}

/// An everyday method of the language's built-in collections, strings,
/// streams and exceptions (`append`, `map`, `getMessage`): on a receiver
/// the graph did not type, the call is more likely the language's than a
/// project method of that name.
fn is_builtin_method(lang: &str, name: &str) -> bool {
    let names = match lang {
        "python" => {
            "append extend insert pop remove clear copy count index sort reverse get items keys \
             values update setdefault popitem add discard union intersection difference join \
             split rsplit strip lstrip rstrip startswith endswith lower upper replace find \
             format encode decode splitlines read write readline readlines close seek tell flush"
        }
        "ruby" => {
            "map each each_with_index select reject collect inject reduce find detect include? \
             push pop shift unshift join split strip gsub sub capitalize downcase upcase to_s \
             to_i to_sym to_a to_h keys values merge fetch first last empty? nil? size length \
             any? all? sort sort_by uniq compact flatten freeze dup key? each_pair"
        }
        "java" | "kotlin" | "scala" | "groovy" => {
            "getMessage getCause toString equals hashCode size get put add remove contains \
             isEmpty length charAt substring indexOf trim startsWith endsWith append close \
             iterator hasNext next containsKey keySet values entrySet printStackTrace getClass \
             forEach stream map filter collect"
        }
        "javascript" | "typescript" | "tsx" => {
            "push pop shift unshift map filter forEach reduce find some every includes indexOf \
             slice splice concat join split trim startsWith endsWith replace toString then \
             catch finally keys values entries has get set delete add"
        }
        // The standard containers' and strings' members.
        "cpp" => {
            "size empty begin end cbegin cend rbegin rend push_back emplace_back pop_back \
             reserve resize erase insert emplace find clear c_str data at front back count \
             substr append compare length swap"
        }
        "csharp" => {
            "ToString Equals GetHashCode Add Remove Contains Clear ContainsKey TryGetValue \
             Dispose Select Where Any All First FirstOrDefault ToList ToArray"
        }
        "rust" => {
            "clone to_string to_owned unwrap expect map and_then ok_or iter into_iter collect \
             push pop len is_empty insert remove get contains as_ref as_mut into"
        }
        _ => "",
    };
    names.split_whitespace().any(|n| n == name)
}

/// A receiver that is one of the language's built-in objects or types
/// (`Array`, `JSON`, `Math` in JavaScript; `str`, `dict` in Python; C++'s
/// `std` namespace and those inside it, `std::move`, `std::chrono::now`):
/// a call through it is the language's (CLI11's `callees App::parse` had
/// listed `std::move`).
fn is_builtin_receiver(lang: &str, qualifier: &str) -> bool {
    let names = match lang {
        "cpp" => return qualifier == "std" || qualifier.starts_with("std::"),
        "javascript" | "typescript" | "tsx" => {
            "Array Object Promise JSON Math Number String Reflect Symbol Date Set Map WeakMap \
             WeakSet BigInt Intl console Buffer process globalThis window document"
        }
        "python" => "str dict list set frozenset tuple int float bytes bytearray object",
        _ => "",
    };
    names.split_whitespace().any(|n| n == qualifier)
}

/// Reference kinds that stand for a call.
fn is_call_kind(kind: &str) -> bool {
    matches!(kind, "call" | "macro" | "send" | "method" | "function")
}

/// The error for a name no definition has (`callers`, `callees`; and
/// what the CLI says when `refs` finds none).
pub fn unknown_name(name: &str) -> anyhow::Error {
    UserError::with_code(
        ErrorCode::NotFound,
        format!("no definition named `{name}` in the index"),
    )
    // A name the code uses but never defines as a symbol (an object
    // literal's key, `kReplySerializer`) is found as text: the hint says
    // so, or `symbol` and `refs` sent an agent to each other.
    .hint(
        "check the spelling (`repo-search symbol NAME` matches loosely: case, prefix, fuzzy); a name the code uses without defining it is found as text by `repo-search keyword -w NAME`",
    )
    .agent(
        "check the spelling (find_symbol matches loosely: case, prefix, fuzzy); a name the code uses without defining it is found as text by search_keyword",
    )
    .into()
}

/// [`unknown_name`], naming up to three definitions spelled like it when
/// the index has any: a name asked for after its rename (pino's `asJson`,
/// now `asJsonLine`) had said only "no definition", while `symbol` listed
/// the new name.
pub fn unknown_name_in(store: &Store, name: &str) -> anyhow::Error {
    let like = |mode| {
        crate::search::symbol::find_symbols(
            store,
            None,
            &crate::search::symbol::SymbolQuery {
                name: name.to_string(),
                kinds: Vec::new(),
                lang: None,
                mode,
                limit: 3,
            },
        )
        .map(|r| r.hits)
        .unwrap_or_default()
    };
    let mut hits = like(crate::search::symbol::MatchMode::Prefix);
    if hits.is_empty() {
        hits = like(crate::search::symbol::MatchMode::Fuzzy);
    }
    hits.retain(|h| h.name != name);
    if hits.is_empty() {
        return unknown_name(name);
    }
    let names: Vec<String> = hits
        .iter()
        .map(|h| format!("`{}` ({}:{})", h.qualified_name(), h.path, h.line))
        .collect();
    UserError::with_code(
        ErrorCode::NotFound,
        format!(
            "no definition named `{name}` in the index; defined names like it: {}",
            names.join(", ")
        ),
    )
    .hint(
        "ask again with one of those names if it was renamed; `repo-search refs NAME` lists the old name's remaining uses",
    )
    .agent(
        "call again with one of those names if it was renamed; find_references lists the old name's remaining uses",
    )
    .into()
}

fn not_found(name: &str, container: Option<&str>, all: &[GraphDef]) -> anyhow::Error {
    match container {
        None => unknown_name(name),
        Some(c) => {
            let mut others: Vec<String> = all
                .iter()
                .map(|d| match &d.container {
                    Some(k) => format!("{k}.{name}"),
                    None => format!("{name} ({})", d.path),
                })
                .collect();
            others.sort();
            others.dedup();
            others.truncate(5);
            let (hint, agent) = if others.is_empty() {
                let missing = format!("nothing named `{name}` is defined in the index");
                (
                    format!("{missing}; `repo-search symbol {c}` shows what `{c}` is"),
                    format!("{missing}; find_symbol {{\"name\": \"{c}\"}} shows what `{c}` is"),
                )
            } else {
                let defined = format!("`{name}` is defined as: {}", others.join(", "));
                (defined.clone(), defined)
            };
            UserError::with_code(
                ErrorCode::NotFound,
                format!("no definition of `{name}` in `{c}`"),
            )
            .hint(hint)
            .agent(agent)
            .into()
        }
    }
}

/// The names a file's module is known by: its stem (`sessions` for
/// `requests/sessions.py`), and its directory for package files
/// (`__init__.py`, `mod.rs`, `index.ts`) and Go.
fn module_keys(path: &str) -> Vec<String> {
    let p = Path::new(path);
    let stem = p.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let stem = stem.strip_suffix(".d").unwrap_or(stem);
    let dir = p
        .parent()
        .and_then(|d| d.file_name())
        .and_then(|d| d.to_str())
        .unwrap_or("");
    let mut keys = Vec::new();
    let package_file = matches!(stem, "__init__" | "mod" | "index" | "lib" | "main");
    if !package_file && !stem.is_empty() {
        keys.push(stem.to_string());
    }
    let is_go = path.ends_with(".go");
    if (package_file || is_go) && !dir.is_empty() {
        keys.push(dir.to_string());
    }
    // An OCaml file is the module of its capitalised name: `lwt_mutex.ml`
    // is `Lwt_mutex`, which is how callers qualify its values.
    let ocaml = crate::lang::is_ocaml_path(path);
    if ocaml {
        let mut chars = stem.chars();
        if let Some(first) = chars.next().filter(char::is_ascii_lowercase) {
            keys.push(first.to_ascii_uppercase().to_string() + chars.as_str());
        }
    }
    keys
}

/// The name a Go file's `package` clause gives (`package git`), among its
/// first lines.
pub(crate) fn go_package_clause<'a>(lines: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    lines.into_iter().take(200).find_map(|l| {
        let name = l.strip_prefix("package ")?.split_whitespace().next()?;
        name.bytes().all(is_ident_byte).then_some(name)
    })
}

/// The last part of a module as written: `django.utils.crypto` →
/// `crypto`, `./util` → `util`, `crate::store::read` → `read`; empty for
/// a bare relative `.`.
fn module_last(module: &str) -> &str {
    let m = module.trim_end_matches(['/', '.']);
    if let Some(i) = m.rfind('/') {
        let seg = &m[i + 1..];
        return seg.split('.').next().unwrap_or(seg);
    }
    if let Some(i) = m.rfind("::") {
        return &m[i + 2..];
    }
    m.rsplit('.').next().unwrap_or(m)
}

/// The names a Go import path may bind without an alias: its last part,
/// that without a `.v2` or `go-` (`gopkg.in/yaml.v2`, `go-toml`), and the
/// part before a `/v3` major version, with and without its `go-`
/// (`github.com/robfig/cron/v3`; `github.com/go-git/go-git/v5`, package
/// `git`, whose callers were all left unresolved).
fn go_package_names(module: &str) -> [&str; 4] {
    let mut parts = module.rsplit('/');
    let last = parts.next().unwrap_or(module);
    let before = parts.next().unwrap_or(last);
    let major =
        last.len() > 1 && last.starts_with('v') && last[1..].bytes().all(|b| b.is_ascii_digit());
    let named = if major { before } else { last };
    [last, go_base_name(last), named, go_base_name(named)]
}

/// A Go import path's part without a `.v2` or a `go-` (`yaml.v2`, `go-git`).
fn go_base_name(part: &str) -> &str {
    let part = part.split('.').next().unwrap_or(part);
    part.strip_prefix("go-").unwrap_or(part)
}

/// The directory a Go import path names: its last part (`pflag` of
/// `github.com/spf13/pflag`).
fn go_module_dir(module: &str) -> &str {
    module.rsplit('/').next().unwrap_or(module)
}

/// Whether the word at byte `at` (of `len` bytes) of an import line is a
/// name the import binds, not a part of a module's path nor a name
/// imported under another (`render as render_text`, `{a as b}`, `b as
/// c`): not inside a quoted module (`from './console'`) or a comment, and in Python
/// not after a dot (`import pkg.console` binds `pkg`) nor between `from`
/// and `import` (`from pkg.console import Console` binds `Console`: a
/// variable `console` is no alias of the module `pkg`).
fn binds(line: &str, at: usize, len: usize, python: bool) -> bool {
    let before = &line[..at];
    let after = line.get(at + len..).unwrap_or("");
    if after.starts_with(char::is_whitespace) && after.trim_start().starts_with("as ") {
        return false;
    }
    if in_comment_or_string(line, at) {
        return false;
    }
    if !python {
        return true;
    }
    if before.trim_end().ends_with('.') {
        return false;
    }
    let t = before.trim_start();
    !t.starts_with("from ") || t.contains(" import ")
}

/// The calls inside Rust macro invocations in `lines` (the first being
/// line `first_line`): each name followed by `(` within a macro's
/// brackets, with its line, 1-based column and qualifier
/// (`self.poll_x(cx)` → `self`). Strings, character literals and line
/// comments are skipped; `macro_rules!` bodies are patterns, not calls.
fn rust_macro_calls(lines: &[String], first_line: u32) -> Vec<(u32, u32, String, Option<String>)> {
    const NOT_CALLS: [&str; 12] = [
        "if", "while", "match", "for", "loop", "return", "in", "as", "move", "fn", "let", "mut",
    ];
    let mut out = Vec::new();
    // Bracket depth inside a macro's arguments (0: outside any macro).
    let mut depth = 0usize;
    let mut in_str = false;
    for (n, line) in lines.iter().enumerate() {
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let c = b[i];
            if in_str {
                match c {
                    b'\\' => i += 1,
                    b'"' => in_str = false,
                    _ => {}
                }
                i += 1;
                continue;
            }
            match c {
                b'"' => in_str = true,
                b'/' if b.get(i + 1) == Some(&b'/') => break,
                // `'x'`, `'\n'`: a character; `'a` is a lifetime.
                b'\'' => {
                    if b.get(i + 1) == Some(&b'\\') {
                        i += 2;
                        while i < b.len() && b[i] != b'\'' {
                            i += 1;
                        }
                    } else if b.get(i + 2) == Some(&b'\'') {
                        i += 2;
                    }
                }
                b'(' | b'[' | b'{' if depth > 0 => depth += 1,
                b')' | b']' | b'}' if depth > 0 => depth -= 1,
                _ if is_ident_byte(c) && (i == 0 || !is_ident_byte(b[i - 1])) => {
                    let start = i;
                    while i < b.len() && is_ident_byte(b[i]) {
                        i += 1;
                    }
                    let word = &line[start..i];
                    let rest = line[i..].trim_start();
                    if let Some(after) = rest.strip_prefix('!') {
                        let after = after.trim_start();
                        if depth == 0 && word != "macro_rules" && after.starts_with(['(', '[', '{'])
                        {
                            // Past the opening bracket, at depth 1.
                            i = line.len() - after.len() + 1;
                            depth = 1;
                        }
                        continue;
                    }
                    if depth > 0
                        && rest.starts_with('(')
                        && !word.starts_with(|c: char| c.is_ascii_digit())
                        && !NOT_CALLS.contains(&word)
                    {
                        out.push((
                            first_line + n as u32,
                            start as u32 + 1,
                            word.to_string(),
                            qualifier_before(&line[..start]),
                        ));
                    }
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
    out
}

/// The first parts of the Go standard library's import paths (`errors`,
/// `encoding` of `encoding/gob`): a module path need not hold a dot
/// (`module corpus`), so the dot alone does not tell.
const GO_STANDARD_ROOTS: [&str; 47] = [
    "archive",
    "bufio",
    "bytes",
    "cmp",
    "compress",
    "container",
    "context",
    "crypto",
    "database",
    "debug",
    "embed",
    "encoding",
    "errors",
    "expvar",
    "flag",
    "fmt",
    "go",
    "hash",
    "html",
    "image",
    "index",
    "io",
    "iter",
    "log",
    "maps",
    "math",
    "mime",
    "net",
    "os",
    "path",
    "plugin",
    "reflect",
    "regexp",
    "runtime",
    "slices",
    "sort",
    "strconv",
    "strings",
    "sync",
    "syscall",
    "testing",
    "text",
    "time",
    "unicode",
    "unique",
    "unsafe",
    "weak",
];

/// The name of the directory a path lies in (`mux` of `mux/route.go`).
fn dir_name(path: &str) -> Option<&str> {
    let (dir, _) = path.rsplit_once('/')?;
    Some(dir.rsplit_once('/').map_or(dir, |(_, d)| d))
}

fn same_dir(a: &str, b: &str) -> bool {
    Path::new(a).parent() == Path::new(b).parent()
}

/// A Python source or stub file, by its extension.
fn is_python_file(path: &str) -> bool {
    path.ends_with(".py") || path.ends_with(".pyi")
}

/// Whether a line of the file at `path` imports: by its first word, or a
/// `require(…)` anywhere. A Python line only by `import` / `from` (a
/// keyword argument `require_tld=self.require_tld` or a one-line string
/// is none), a line that is one string only in Go's import blocks.
fn is_import_line(l: &str, path: &str) -> bool {
    let t = l.trim_start();
    let Some(&first) = t.as_bytes().first() else {
        return false;
    };
    if is_python_file(path) {
        return t.starts_with("import ") || t.starts_with("from ");
    }
    // Every form below starts with one of these or calls `require(`.
    if !matches!(
        first,
        b'i' | b'f' | b'u' | b'p' | b'#' | b'r' | b'e' | b'"' | b'c'
    ) && memchr::memmem::find(t.as_bytes(), b"require").is_none()
    {
        return false;
    }
    t.starts_with("import ")
        || t.starts_with("from ")
        || t.starts_with("use ")
        || t.starts_with("pub use ")
        || t.starts_with("#include")
        || t.starts_with("using ")
        || t.strip_prefix("require")
            .is_some_and(|rest| rest.starts_with([' ', '(', '\'', '"', '_']))
        || t.starts_with("export ")
        || memchr::memmem::find(t.as_bytes(), b"require(").is_some()
        || memchr::memmem::find(t.as_bytes(), b"require_relative").is_some()
        || (path.ends_with(".go") && t.starts_with('"') && t.ends_with('"'))
}

/// Go's receiver name: `s` in `func (s *Server) Run()`.
fn go_receiver_name(sig: &str) -> Option<&str> {
    let rest = sig
        .trim_start()
        .strip_prefix("func")?
        .trim_start()
        .strip_prefix('(')?;
    let name = rest.split_whitespace().next()?;
    (!name.is_empty() && name.bytes().all(is_ident_byte)).then_some(name)
}

/// The receiver written right before a name: `self.` → `self`, `a.b::` →
/// `a.b`; `None` when the name is bare.
fn qualifier_before(prefix: &str) -> Option<String> {
    let p = prefix.trim_end();
    let p = if let Some(s) = p.strip_suffix("::") {
        s
    } else if let Some(s) = p.strip_suffix("->") {
        s
    } else if let Some(s) = p.strip_suffix("?.") {
        s
    } else {
        p.strip_suffix('.')?
    };
    let bytes = p.as_bytes();
    let mut start = bytes.len();
    while start > 0 {
        let b = bytes[start - 1];
        if is_ident_byte(b) || b == b'.' || b == b':' || b == b'@' {
            start -= 1;
        } else if b == b')' && p[..start].ends_with("()") {
            start -= 2;
        } else {
            break;
        }
    }
    let q = p.get(start..)?.trim_start_matches(['.', ':']);
    (!q.is_empty()).then(|| q.to_string())
}

/// Is the first mention of `q` on the reference's line the reference's
/// own receiver (`q.name`), so that a binding later on the line is not its?
fn uses_first(lines: &[String], r: &GraphRef, q: &str) -> bool {
    let Some(line) = lines.get((r.line as usize).saturating_sub(1)) else {
        return false;
    };
    name_uses(line, q).next().is_some_and(|(_, after)| {
        after
            .strip_prefix('.')
            .and_then(|a| a.strip_prefix(r.name.as_str()))
            .is_some_and(|a| !a.starts_with(|c: char| c.is_alphanumeric() || c == '_'))
    })
}

/// The receiver of a member named by a string literal in brackets at
/// byte `at` of a line: `Editor['chain']`, `this.hooks["x"]` → `Editor`,
/// `this.hooks`; not in a comment.
fn quoted_member(line: &str, at: usize, name: &str) -> Option<String> {
    let before = &line[..at];
    let quote = before
        .chars()
        .next_back()
        .filter(|c| matches!(c, '\'' | '"'))?;
    let open = before[..before.len() - 1].strip_suffix('[')?;
    let after = &line[at + name.len()..];
    after.strip_prefix(quote)?.strip_prefix(']')?;
    let t = open.trim_start();
    if t.starts_with("//") || t.starts_with('*') || t.starts_with("/*") || open.contains(" // ") {
        return None;
    }
    // `Store<T>['setState']`: the type's name.
    qualifier_before(&format!("{}.", strip_generics(open.trim_end())))
}

/// A crude check that a match sits in a line comment or a string literal:
/// an odd number of quotes before it, or a comment opener.
fn in_comment_or_string(line: &str, at: usize) -> bool {
    let before = &line[..at];
    let t = before.trim_start();
    if t.starts_with('#')
        && !t.starts_with("#[")
        && !t.starts_with("#include")
        && !t.starts_with("#define")
        || t.starts_with("//")
        || t.starts_with('*')
        || t.starts_with("/*")
        || before.contains(" // ")
        || before.contains(" # ")
    {
        return true;
    }
    let quotes = |c: char| before.chars().filter(|&x| x == c).count() % 2 == 1;
    quotes('"') || quotes('\'') || quotes('`')
}

/// Whether a match at `at` follows a line-comment opener of `lang` that
/// [`in_comment_or_string`] does not know (`--` in Lua, Haskell, SQL and
/// Elm; `%` in Erlang; `;` in the Lisps), outside a string.
fn in_line_comment_of(lang: &str, line: &str, at: usize) -> bool {
    let opener = match lang {
        "lua" | "haskell" | "sql" | "elm" => "--",
        "erlang" => "%",
        "clojure" | "scheme" | "racket" | "commonlisp" | "elisp" => ";",
        _ => return false,
    };
    let before = &line[..at];
    let mut in_string = None;
    for (i, c) in before.char_indices() {
        match in_string {
            Some(q) if c == q => in_string = None,
            Some(_) => {}
            // A quote in a Haskell name (`foldl'`) or a Lisp quote opens
            // no string.
            None if c == '"' || (c == '\'' && matches!(lang, "lua" | "sql" | "erlang" | "elm")) => {
                in_string = Some(c);
            }
            None if before[i..].starts_with(opener) => return true,
            None => {}
        }
    }
    false
}

/// The type a line binds `q` to, if it does: `q = T(…)`, `q := &T{…}`,
/// `q = new T(…)`, `q: T`, `T q`, `q *T` (Go), `let q = T::new(…)`,
/// `with T(…) as q`, Go's `q := NewT(…)`.
fn binding_in_line(line: &str, q: &str, lang: &str) -> Option<String> {
    for (at, after) in name_uses(line, q) {
        // A declared type wins over the initializer's:
        // `CertificatePinner p = new CertificatePinner.Builder()….build();`
        // is a `CertificatePinner`, not a builder.
        if after.starts_with('=')
            && !after.starts_with("==")
            && let Some(t) = declared_type_before(line, at, after, lang)
        {
            return Some(t);
        }
        if let Some(rhs) = after
            .strip_prefix(":=")
            .or_else(|| after.strip_prefix('=').filter(|r| !r.starts_with('=')))
        {
            if let Some(t) = type_of_expr(rhs, lang) {
                return Some(t);
            }
            continue;
        }
        let ann = after
            .strip_prefix(':')
            .filter(|r| !r.starts_with(':'))
            .or_else(|| {
                // `destination?: Subscriber<T>`, `baseStore!: Store<T>`
                // (TypeScript's optional and definitely assigned bindings).
                matches!(lang, "typescript" | "tsx")
                    .then(|| {
                        after
                            .strip_prefix("?:")
                            .or_else(|| after.strip_prefix("!:"))
                    })
                    .flatten()
            });
        if let Some(ann) = ann
            && let Some(t) = leading_type(ann)
        {
            return Some(t);
        }
        if lang == "go"
            && let Some(t) = type_in(after, lang)
            && !after.starts_with(['(', '.', ',', ')', '=', ':', '['])
            && !in_comment_or_string(line, at)
        {
            return Some(t);
        }
        if let Some(t) = declared_type_before(line, at, after, lang) {
            return Some(t);
        }
        let before = line[..at].trim_end();
        // `with Session() as s`.
        if before.ends_with(" as")
            && let Some(w) = before
                .trim_start()
                .strip_prefix("with ")
                .or_else(|| before.trim_start().strip_prefix("async with "))
            && let Some(t) = type_of_expr(w, lang)
        {
            return Some(t);
        }
    }
    None
}

/// `Session s`, `final Session<X> s`, `Session *s`: the type declared
/// before the name at `at` (`after` is the line after it), in the
/// languages that declare so (in Python, `# … in URL parts` is a
/// comment's words, not a declaration).
fn declared_type_before(line: &str, at: usize, after: &str, lang: &str) -> Option<String> {
    let c_style = !matches!(
        lang,
        "python" | "javascript" | "typescript" | "tsx" | "go" | "rust" | "ruby"
    );
    if !c_style {
        return None;
    }
    // `VersionSet* const versions_`: a const pointer of that type.
    let mut before = line[..at].trim_end();
    loop {
        let b = before.trim_end_matches(['*', '&']).trim_end();
        let b = ["const", "volatile"]
            .iter()
            .find_map(|w| {
                b.strip_suffix(w)
                    .filter(|r| r.ends_with(|c: char| !is_ident_byte(c as u8)))
            })
            .map_or(b, str::trim_end);
        if b == before {
            break;
        }
        before = b;
    }
    let before = strip_generics(before);
    // `VersionSet* const versions_ GUARDED_BY(mutex_);`: a C or C++
    // annotation macro after the name.
    let after = if matches!(lang, "c" | "cpp" | "objc") {
        after_annotation_macro(after)
    } else {
        after
    };
    let word_start = before
        .bytes()
        .rposition(|b| !(is_ident_byte(b) || b == b'.' || b == b':'))
        .map_or(0, |i| i + 1);
    let ty = last_part(&before[word_start..]);
    // C++ also initialises directly: `Foo g(1);`, `Foo g{1};`.
    let direct = lang == "cpp" && after.starts_with(['(', '{']);
    (!ty.is_empty()
        && capitalized(ty)
        && (after.starts_with(['=', ';', ',', ')', ':']) || after.is_empty() || direct)
        && !in_comment_or_string(line, at))
    .then(|| ty.to_string())
}

/// `after` past an upper-case macro and its arguments (`GUARDED_BY(mu_)`,
/// `ABSL_GUARDED_BY(mu_)`, `__attribute__` aside) when a `;`, `=` or `,`
/// follows them; else `after` itself.
fn after_annotation_macro(after: &str) -> &str {
    let name_end = after
        .bytes()
        .position(|b| !is_ident_byte(b))
        .unwrap_or(after.len());
    if !crate::extract::is_macro_name(&after.as_bytes()[..name_end]) {
        return after;
    }
    let mut rest = after[name_end..].trim_start();
    if let Some(args) = rest.strip_prefix('(') {
        let Some(close) = matching_close(args) else {
            return after;
        };
        rest = args[close + 1..].trim_start();
    }
    if rest.starts_with([';', '=', ',']) {
        rest
    } else {
        after
    }
}

/// The call a line assigns to `q`, as written up to its `(`: `q =
/// make(…)`, `q := setUp(&x)`, `q = runner.invoke(…)` → `make`, `setUp`,
/// `runner.invoke`.
fn call_bound_in_line(line: &str, q: &str) -> Option<String> {
    let at = find_word(line, q, 0)?;
    if at > 0 && line.as_bytes()[at - 1] == b'.' {
        return None;
    }
    let after = line[at + q.len()..].trim_start();
    let rhs = after
        .strip_prefix(":=")
        .or_else(|| after.strip_prefix('=').filter(|r| !r.starts_with('=')))?
        .trim_start();
    let rhs = rhs.strip_prefix("await ").unwrap_or(rhs);
    // A value that is one member chain: the head of its last call
    // (`n.Lines().At(i)` → `n.Lines().At`); a chain going on past its
    // calls (`n.FirstChild().(*Text).Segment`, `f(x).field`) is no call's
    // result, but a value (`value_bound_in_line`).
    let value = strip_line_comment(rhs)
        .split(';')
        .next()
        .unwrap_or(rhs)
        .trim_end()
        .trim_end_matches('!')
        .trim_end();
    if !value.is_empty() && value.contains('(') && chain_start(value) == 0 {
        return match call_head(value) {
            Some(head) if !head.is_empty() && !head.ends_with('.') => {
                let head = strip_generics(head);
                dotted_last(head).map(|_| head.to_string())
            }
            _ => None,
        };
    }
    let end = rhs.find('(')?;
    // `Extension.create<Options>({`: the generic arguments say nothing.
    let head = strip_generics(rhs[..end].trim_end());
    dotted_last(head).map(|_| head.to_string())
}

/// `for q in self.get_params(ctx):` / `for (const q of items())` → the
/// called name.
fn for_call_in(line: &str, q: &str) -> Option<String> {
    let expr = for_iterable(line, q)?;
    call_name(&expr).map(str::to_string)
}

/// `for q in EXPR:` / `for (const q of EXPR)` / `async for` → `EXPR`.
fn for_iterable(line: &str, q: &str) -> Option<String> {
    let t = line.trim_start();
    let t = t.strip_prefix("async ").unwrap_or(t);
    let t = t.strip_prefix("for ")?.trim_start();
    let t = t.strip_prefix('(').unwrap_or(t).trim_start();
    let t = ["const ", "let ", "var "]
        .iter()
        .find_map(|k| t.strip_prefix(k))
        .unwrap_or(t);
    let rest = t.strip_prefix(q)?;
    let rest = rest.trim_start();
    let expr = rest
        .strip_prefix("in ")
        .or_else(|| rest.strip_prefix("of "))?
        .trim();
    let expr = expr.trim_end_matches(':').trim_end_matches('{').trim_end();
    // `for (const f of items())`: the loop's own closing parenthesis.
    let expr = if expr.matches(')').count() > expr.matches('(').count() {
        expr.strip_suffix(')').unwrap_or(expr).trim_end()
    } else {
        expr
    };
    Some(expr.to_string())
}

/// The annotation a line gives `q` (a parameter or an annotated
/// variable), as written up to the next top-level `,`, `)` or `=`:
/// `items: list[Item],` → `list[Item]`.
fn annotation_in_line(line: &str, q: &str) -> Option<String> {
    for (_, after) in name_uses(line, q) {
        let Some(ann) = after
            .strip_prefix(':')
            .or_else(|| after.strip_prefix("?:"))
            .filter(|a| !a.starts_with(':'))
        else {
            continue;
        };
        let ann = ann.trim_start();
        let mut depth = 0i32;
        let end = ann
            .char_indices()
            .find_map(|(i, c)| {
                match c {
                    '[' | '(' | '<' | '{' => depth += 1,
                    ']' | ')' | '>' | '}' if depth > 0 => depth -= 1,
                    ',' | ')' | '=' | ';' if depth == 0 => return Some(i),
                    _ => {}
                }
                None
            })
            .unwrap_or(ann.len());
        let ann = ann[..end].trim();
        if !ann.is_empty() {
            return Some(ann.to_string());
        }
    }
    None
}

/// The value a line assigns to `q` when it is a name, a path, an element
/// or a cast (`nn := n`, `q = this.parent`, `let q = this.content[i], r =
/// …`, `q = x as T`), not a call or an operation: as written, up to a
/// top-level `,` or `;`.
fn value_bound_in_line(line: &str, q: &str) -> Option<String> {
    for (_, after) in name_uses(line, q) {
        let Some(rhs) = after.strip_prefix(":=").or_else(|| assigned(after)) else {
            continue;
        };
        let rhs = rhs.trim_start();
        let rhs = rhs.split(['\n', ';']).next().unwrap_or(rhs);
        let rhs = split_top(rhs).first().map_or("", |v| v.trim());
        let rhs = rhs.trim_end_matches(['!', ':', '{']).trim_end();
        // `ptr := &p.active.seg`: the address of a value has its type.
        let rhs = rhs.strip_prefix('&').unwrap_or(rhs);
        // `segment := c.(*ast.Text).Segment`, `x = f(y).field`: a chain
        // going on past its calls.
        let chain = rhs.contains('(') && !rhs.ends_with(')') && chain_start(rhs) == 0;
        let simple = !rhs.is_empty()
            && rhs
                .bytes()
                .all(|b| is_ident_byte(b) || matches!(b, b'.' | b'[' | b']' | b' ' | b'-' | b'+'))
            && !rhs.starts_with(|c: char| c.is_ascii_digit())
            && (rhs.contains('.') || rhs.contains('[') || rhs.contains(" as ") || {
                // `nn := n`, `parent = node`: another name for a value.
                rhs != q
                    && rhs.bytes().all(is_ident_byte)
                    && !matches!(
                        rhs,
                        "None" | "True" | "False" | "null" | "undefined" | "true" | "false" | "nil"
                    )
            })
            && !rhs.contains(" + ")
            && !rhs.contains(" - ");
        // `sub := c.Commands()[0]`: an element of a call's result.
        let indexed_call = rhs
            .strip_suffix(']')
            .and_then(|b| b.rsplit_once('['))
            .is_some_and(|(base, index)| {
                index.bytes().all(is_ident_byte)
                    && call_head(base.trim_end()).is_some_and(|h| !h.is_empty())
            });
        return (simple || indexed_call || chain).then(|| rhs.to_string());
    }
    None
}

/// `const { a, b: q } = rhs` (also `let`, `var`) → (`b`, `rhs`) for `q`:
/// the property a destructuring binds `q` to, and the value destructured.
fn destructured_in_line(line: &str, q: &str) -> Option<(String, String)> {
    let t = line.trim_start();
    let t = ["const ", "let ", "var "]
        .iter()
        .find_map(|k| t.strip_prefix(k))?
        .trim_start();
    let after = skip_balanced(t, '{', '}')?;
    let inner = &t[1..t.len() - after.len() - 1];
    let rhs = assigned(after.trim_start())?.trim();
    let rhs = rhs.strip_prefix("await ").unwrap_or(rhs);
    let rhs = rhs.trim_end_matches(';').trim_end();
    for item in split_top(inner) {
        let item = item.split('=').next().unwrap_or(item).trim();
        let (prop, local) = match item.split_once(':') {
            Some((p, l)) => (p.trim(), l.trim()),
            None => (item, item),
        };
        if local == q && prop.bytes().all(is_ident_byte) && !prop.is_empty() {
            return (!rhs.is_empty()).then(|| (prop.to_string(), rhs.to_string()));
        }
    }
    None
}

/// The inline object type a callable's header declares it returns, its
/// members as written: `f(x: X): {\n a: A\n b: B\n} {` → `a: A\n b: B`.
fn inline_object_return(header: &str, name: &str) -> Option<String> {
    let at = find_word(header, name, 0)?;
    let rest = skip_balanced(params_start(&header[at + name.len()..])?, '(', ')')?;
    let rest = rest.trim_start().strip_prefix(':')?.trim_start();
    let after = skip_balanced(rest, '{', '}')?;
    Some(rest[1..rest.len() - after.len() - 1].to_string())
}

/// `let q = [new Subject<T>()]` → `Subject`: the class a list literal
/// of constructions holds.
fn new_list_in_line(line: &str, q: &str, lang: &str) -> Option<String> {
    for (_, after) in name_uses(line, q) {
        let Some(rhs) = assigned(after) else {
            continue;
        };
        let first = rhs.trim_start().strip_prefix('[')?.trim_start();
        first.starts_with("new ").then_some(())?;
        let first = split_top(first).first().map(|f| f.trim())?;
        let first = first.trim_end_matches(';').trim_end().trim_end_matches(']');
        return type_of_expr(first, lang);
    }
    None
}

/// The type of a binding to a value of unknown type (as an empty one), in
/// force after its line only: `frame = frame.inner()` reads the `frame`
/// bound before.
const REBOUND: &str = "\u{0}";

/// Is the line a statement assigning to `q` alone (`q = …`, not `q ==`,
/// `q += …` or `a, q = …`), other than by an operator on itself (`h = h |
/// other`: an overloaded operator keeps the type)?
fn plain_assignment(line: &str, q: &str) -> bool {
    let Some(rhs) = line
        .trim_start()
        .strip_prefix(q)
        .map(str::trim_start)
        .and_then(|rest| rest.strip_prefix('='))
        .filter(|rhs| !rhs.starts_with('='))
    else {
        return false;
    };
    let on_itself = rhs
        .trim_start()
        .strip_prefix(q)
        .map(str::trim_start)
        .is_some_and(|op| op.starts_with(['|', '&', '+', '-', '*', '/', '%', '^', '@']));
    !on_itself
}

/// `if (q instanceof Subscription)` → `Subscription`; not negated
/// (`!(q instanceof T)`).
fn instanceof_in_line(line: &str, q: &str) -> Option<String> {
    for (at, after) in name_uses(line, q) {
        let Some(rest) = after.strip_prefix("instanceof ") else {
            continue;
        };
        if line[..at].trim_end().ends_with("!(") || in_comment_or_string(line, at) {
            return None;
        }
        let rest = rest.trim_start();
        let end = rest
            .bytes()
            .position(|b| !(is_ident_byte(b) || b == b'.'))
            .unwrap_or(rest.len());
        let ty = last_part(&rest[..end]);
        return (!ty.is_empty() && capitalized(ty)).then(|| ty.to_string());
    }
    None
}

/// The value after an assignment's `=` that `after` starts with (not `==`
/// or an arrow's `=>`).
fn assigned(after: &str) -> Option<&str> {
    after
        .strip_prefix('=')
        .filter(|r| !r.starts_with(['=', '>']))
}

/// `self.ctx = ctx` → `ctx`: an attribute bound to a plain name.
fn name_bound_in_line(line: &str, q: &str) -> Option<String> {
    let t = line.trim_start();
    let rest = t.strip_prefix(q)?.trim_start();
    let rest = rest
        .strip_prefix('=')
        .filter(|r| !r.starts_with('='))?
        .trim();
    (!rest.is_empty() && rest.bytes().all(is_ident_byte) && rest != "None" && rest != "null")
        .then(|| rest.to_string())
}

/// The element type of an iterable annotation: `t.List["Parameter"]`,
/// `Iterator[Command]`, `Foo[]`, `Array<Foo>` → the element's type.
fn element_of(ann: &str) -> Option<String> {
    let a = ann.trim();
    let a = a.strip_prefix("readonly ").unwrap_or(a);
    let a = a
        .strip_prefix("t.")
        .or_else(|| a.strip_prefix("typing."))
        .unwrap_or(a);
    for open in [
        "List[",
        "list[",
        "Sequence[",
        "Iterable[",
        "Iterator[",
        "Set[",
        "set[",
        "Generator[",
        "AsyncIterator[",
        "AsyncIterable[",
        "AsyncGenerator[",
        "ValuesView[",
        "MutableSequence[",
        "AbstractSet[",
        "FrozenSet[",
        "frozenset[",
        "Deque[",
        "deque[",
        "Array<",
        "ReadonlyArray<",
        "Collection[",
        "Set<",
        "ReadonlySet<",
        "Iterable<",
        "IterableIterator<",
    ] {
        if let Some(inner) = a.strip_prefix(open) {
            return leading_type(inner);
        }
    }
    // `Map<string, Query>`: the values (`get`, `values()`, `forEach`'s
    // first parameter).
    for open in ["Map<", "ReadonlyMap<", "WeakMap<"] {
        if let Some(args) = a.strip_prefix(open) {
            let mut depth = 1i32;
            let end = args.char_indices().find_map(|(i, c)| {
                match c {
                    '<' => depth += 1,
                    '>' => depth -= 1,
                    _ => {}
                }
                (depth == 0).then_some(i)
            })?;
            if let [_, v] = split_top(&args[..end]).as_slice() {
                return leading_type(v.trim());
            }
            return None;
        }
    }
    let end = a.find(['{', ':', ';', '=']).unwrap_or(a.len());
    let head = a[..end].trim();
    head.strip_suffix("[]").and_then(leading_type)
}

/// `) as q:` closing a `with SSLTransport(` opened on a line above (at
/// most 8) → `SSLTransport`.
fn with_call_as_above(lines: &[String], i: usize, q: &str) -> Option<String> {
    let t = lines.get(i)?.trim();
    let rest = t
        .strip_prefix(')')?
        .trim_start()
        .strip_prefix("as ")?
        .trim_start();
    let rest = rest.strip_prefix(q)?.trim_start();
    if rest != ":" {
        return None;
    }
    let open = (i.saturating_sub(8)..i).rev().find(|&k| {
        let l = lines[k].trim_start();
        l.starts_with("with ") || l.starts_with("async with ")
    })?;
    let l = lines[open].trim();
    let l = l
        .strip_prefix("async ")
        .unwrap_or(l)
        .strip_prefix("with ")?;
    let head = l.strip_suffix('(')?;
    (!head.is_empty() && head.bytes().all(|b| is_ident_byte(b) || b == b'.'))
        .then(|| head.to_string())
}

/// `with click.progressbar(…) as q:` → `click.progressbar`.
fn with_call_as(line: &str, q: &str) -> Option<String> {
    let t = line.trim_start();
    let t = t
        .strip_prefix("async ")
        .unwrap_or(t)
        .strip_prefix("with ")?;
    let at = find_word(t, q, 0)?;
    let expr = t[..at].trim_end().strip_suffix(" as")?.trim_end();
    call_head(expr)
        .filter(|h| dotted_last(h).is_some())
        .map(str::to_string)
}

/// The called name of a receiver expression ending in a call: `z.string()`,
/// `c.Flags()`, `setUp(&x)` → `string`, `Flags`, `setUp`. `None` when it
/// does not end in a call of a plain dotted path.
fn call_name(q: &str) -> Option<&str> {
    call_head(q).and_then(dotted_last)
}

/// What a receiver expression ending in a call calls, as written:
/// `runner.invoke(cli)` → `runner.invoke`, `FileError(x)` → `FileError`.
fn call_head(q: &str) -> Option<&str> {
    let body = q.strip_suffix(')')?;
    let mut depth = 1i32;
    let mut open = None;
    for (i, c) in body.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    open = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    Some(body[..open?].trim_end())
}

/// The identifier after the last `.`/`::` (`a.b::c` → `c`, `f(x).g` → `g`).
fn dotted_last(head: &str) -> Option<&str> {
    let name = last_part(head.trim_end());
    // `this.#queries`: a JavaScript private member.
    let bare = name.strip_prefix('#').unwrap_or(name);
    (!bare.is_empty() && bare.bytes().all(is_ident_byte)).then_some(name)
}

/// The return annotation a callable's header declares, as written from
/// its start (`t.List["Parameter"]:`, `*FlagSet {`), when it names a type.
fn return_type_of(sig: &str, name: &str, lang: &str) -> Option<String> {
    let at = find_word(sig, name, 0)?;
    let rest = &sig[at + name.len()..];
    match lang {
        "java" | "csharp" | "c" | "cpp" => {
            let mut before = sig[..at].trim_end();
            // C++'s out-of-line `Status Writer::AddRecord(…)`: the type is
            // before the class's name.
            while let Some(scope) = before.strip_suffix("::") {
                let scope = strip_generics(scope.trim_end());
                let start = scope
                    .bytes()
                    .rposition(|b| !is_ident_byte(b))
                    .map_or(0, |i| i + 1);
                before = scope[..start].trim_end();
            }
            let before = strip_generics(before);
            let start = before
                .bytes()
                .rposition(|b| !(is_ident_byte(b) || b == b'.'))
                .map_or(0, |i| i + 1);
            let ty = last_part(&before[start..]);
            capitalized(ty).then(|| ty.to_string())
        }
        _ => {
            // Past the parameter list.
            let rest = skip_balanced(params_start(rest)?, '(', ')')?.trim_start();
            if lang == "go" {
                // Go's results name unexported types (`*node`) and slices
                // or maps of them (`[]*Command`).
                let t = go_first_result(rest)?;
                return (type_in(t, lang).is_some() || go_elem(t).is_some()).then(|| t.to_string());
            }
            let rest = rest
                .strip_prefix("->")
                .or_else(|| rest.strip_prefix(':'))
                .unwrap_or(if lang == "go" { rest } else { "" });
            let rest = rest.trim_start().trim_start_matches('(');
            let this = rest.strip_prefix("this").is_some_and(|t| {
                !t.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.')
            });
            (this || leading_type(rest).is_some()).then(|| rest.trim().to_string())
        }
    }
}

/// Is `name` a parameter of an arrow function whose body is open at line
/// `i` (0-based)? Only lines indented less than every line after them up to
/// `i` can open a block still open there; the walk back stops at column 0.
fn lambda_param_around(lines: &[String], i: usize, name: &str) -> bool {
    let indent = |l: &str| l.len() - l.trim_start().len();
    let Some(mut min) = lines.get(i).map(|l| indent(l)) else {
        return false;
    };
    for line in lines[..i].iter().rev().take(2000) {
        if line.trim().is_empty() {
            continue;
        }
        let at = indent(line);
        if at >= min {
            continue;
        }
        min = at;
        let mut from = 0;
        while let Some(p) = find_word(line, name, from) {
            from = p + name.len();
            let before = line[..p].trim_end();
            let after = line[from..].trim_start();
            let arrow = after.starts_with("=>")
                || ((before.ends_with('(') || before.ends_with(','))
                    && after.starts_with([')', ',', ':'])
                    && line[from..].contains("=>"));
            if arrow {
                return true;
            }
        }
        if min == 0 {
            break;
        }
    }
    false
}

/// `err error` → `error`: a named result's type (a result's own type has
/// a space only after `func`, `chan` and the like).
fn go_named_result(p: &str) -> Option<&str> {
    let (name, ty) = p.split_once(' ')?;
    (name.bytes().all(is_ident_byte) && !matches!(name, "func" | "chan" | "struct" | "interface"))
        .then(|| ty.trim())
}

/// The type of a Go function's first result, given the header after its
/// parameters: `*node {` → `*node`, `(MetaData, error) {` → `MetaData`,
/// `(err error) {` → `error` (named results).
fn go_first_result(rest: &str) -> Option<&str> {
    go_result(rest, 0)
}

/// The type of a Go function's `k`-th result (from 0), given the header
/// after its parameters: `([]byte, Segment) {` → `Segment` for 1, `(a, b
/// *T, err error)` → `*T` for 0 and 1, `error` for 2.
fn go_result(rest: &str, k: usize) -> Option<&str> {
    let rest = rest.trim_start();
    if !rest.starts_with('(') {
        let t = rest.split('{').next().unwrap_or(rest).trim();
        return (!t.is_empty()).then_some(t);
    }
    let after = skip_balanced(rest, '(', ')')?;
    let inner = &rest[1..rest.len() - after.len() - 1];
    let parts: Vec<&str> = split_top(inner).into_iter().map(str::trim).collect();
    // A result's own type has a space only after `func`, `chan` or inside
    // brackets; `err error` is a name and its type.
    if parts.iter().any(|p| go_named_result(p).is_some()) {
        // `(a, b *T, err error)`: a name's type is the next one given.
        return parts[k.min(parts.len())..]
            .iter()
            .find_map(|p| go_named_result(p));
    }
    parts.get(k).copied().filter(|t| !t.is_empty())
}

/// A callable's header from the `(` of its parameter list, given the text
/// after its name: past `= async function` or `=` of a bound arrow
/// (`create = async <T>(…): T =>`, `f = function (…): T {`) and past the
/// generic parameters.
fn params_start(after_name: &str) -> Option<&str> {
    let rest = after_name.trim_start();
    let rest = match rest.strip_prefix('=') {
        Some(value) if !value.starts_with(['=', '>']) => {
            strip_prefixes(value, &["async ", "function"])
        }
        _ => rest,
    };
    Some(if rest.starts_with('<') {
        skip_balanced(rest, '<', '>')?.trim_start()
    } else {
        rest
    })
}

/// Is `t` a type parameter the header declares after `name` (`array<T>(`)?
fn is_type_param(header: &str, name: &str, t: &str) -> bool {
    let Some(at) = find_word(header, name, 0) else {
        return false;
    };
    let rest = header[at + name.len()..].trim_start();
    let Some(after) = skip_balanced(rest, '<', '>') else {
        return false;
    };
    let params = &rest[1..rest.len() - after.len() - 1];
    split_top(params).iter().any(|p| {
        p.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .find(|w| !w.is_empty())
            == Some(t)
    })
}

/// The return type a callable's documentation gives: Sphinx `:rtype: T`
/// in a Python docstring (its first 60 lines), JSDoc `@returns {T}` /
/// `@return {T}` in the comment just above a JS/TS definition.
fn documented_return(lines: &[String], d: &GraphDef) -> Option<String> {
    let at = d.name_line.max(1) as usize - 1;
    if d.lang == "python" {
        let end = (d.end_line as usize).min(lines.len()).min(at + 60);
        return lines.get(at + 1..end)?.iter().find_map(|l| {
            let t = l.trim_start();
            let rest = t.strip_prefix(":rtype:")?;
            leading_type(rest.trim())
        });
    }
    if !matches!(d.lang.as_str(), "javascript" | "typescript" | "tsx") {
        return None;
    }
    // Blank lines may stand between the block and the definition.
    let block = lines.get(at.saturating_sub(30)..at)?;
    let blank = block
        .iter()
        .rev()
        .take_while(|l| l.trim().is_empty())
        .count();
    for l in block[..block.len() - blank].iter().rev() {
        let t = l.trim_start();
        if !(t.starts_with('*') || t.starts_with("/**") || t.starts_with('@')) {
            break;
        }
        let t = t.trim_start_matches(['/', '*']).trim_start();
        if let Some(rest) = t
            .strip_prefix("@returns")
            .or_else(|| t.strip_prefix("@return"))
        {
            let rest = rest.trim_start().strip_prefix('{')?;
            return leading_type(rest.split('}').next()?);
        }
    }
    None
}

/// The type the JSDoc block just above line `i` documents for parameter
/// `q` (`@param {Command} cmd`, `@param {import("../index").FSWatcher} fsW`,
/// `@param {Help=} [helper]`), when line `i` is a function or method header
/// whose parameter list (opening at the returned byte) declares `q`.
/// Arrays and unions are not a single type: `None`.
fn jsdoc_param_type(lines: &[String], i: usize, q: &str) -> Option<(String, usize)> {
    let header = strip_line_comment(lines.get(i)?);
    let open = header.find('(')?;
    let params = header[open + 1..].split(')').next()?;
    let declares = params.split(',').any(|p| {
        let p = p.trim().trim_start_matches("...");
        p.split(|c: char| !(c.is_ascii() && is_ident_byte(c as u8)))
            .next()
            .is_some_and(|name| name == q)
    });
    if !declares {
        return None;
    }
    // The block ends on the nearest non-blank line above the header.
    let end = (0..i).rev().find(|&j| !lines[j].trim().is_empty())?;
    if !lines[end].trim_end().ends_with("*/") {
        return None;
    }
    for line in lines[end.saturating_sub(60)..=end].iter().rev() {
        let t = line
            .trim_start()
            .trim_start_matches(['/', '*'])
            .trim_start();
        if let Some(rest) = t
            .strip_prefix("@param")
            .or_else(|| t.strip_prefix("@arg"))
            .and_then(|r| r.trim_start().strip_prefix('{'))
            && let Some((ty, after)) = rest.split_once('}')
        {
            let name = after
                .trim_start()
                .trim_start_matches('[')
                .split(|c: char| c == ']' || c == '=' || c.is_whitespace())
                .next();
            if name == Some(q) {
                return jsdoc_single_type(ty).map(|t| (t, open));
            }
        }
        if line.contains("/**") {
            break;
        }
    }
    None
}

/// A JSDoc type as written (`{Help=}`'s `Help=`) without its optional and
/// nullable marks and an `import("…").` module prefix: `Option[]` for
/// `import("./option").Option[]`.
fn jsdoc_type(ty: &str) -> Option<&str> {
    let ty = ty
        .trim()
        .trim_end_matches('=')
        .trim_start_matches(['!', '?']);
    match ty.strip_prefix("import(") {
        Some(rest) => rest.split_once(')')?.1.strip_prefix('.'),
        None => Some(ty),
    }
}

/// The one type a JSDoc type names (`Help`, `Help=`, `!Help`,
/// `import("./help").Help`); `None` for arrays, unions and generics.
fn jsdoc_single_type(ty: &str) -> Option<String> {
    let ty = jsdoc_type(ty)?;
    if ty.contains(['|', '[', '<', '(', '{']) {
        return None;
    }
    leading_type(ty)
}

/// The JSDoc type (as written, see [`jsdoc_type`]) of a single-line
/// `/** @type {T} */` directly above line `i`, when that line assigns to
/// `q` (`this.options = [];`, `let help = …`).
fn jsdoc_assigned_type(lines: &[String], i: usize, q: &str) -> Option<String> {
    let assigns = name_uses(lines.get(i)?, q).any(|(_, after)| assigned(after).is_some());
    if !assigns {
        return None;
    }
    let above = lines.get(i.checked_sub(1)?)?.trim();
    let ty = above
        .strip_prefix("/**")?
        .strip_suffix("*/")?
        .trim()
        .strip_prefix("@type")?
        .trim_start()
        .strip_prefix('{')?;
    let (ty, _) = ty.rsplit_once('}')?;
    jsdoc_type(ty).map(str::to_string)
}

/// `r` moved to the line with index `i` (a binding's line), without its
/// receiver.
fn at_line(r: &GraphRef, i: usize) -> GraphRef {
    GraphRef {
        line: u32::try_from(i + 1).unwrap_or(u32::MAX),
        qualifier: None,
        ..r.clone()
    }
}

/// Where a line passes a lambda with parameter `q` to a call.
struct LambdaSite<'l> {
    /// The called path as written (`operate`, `this.schedule`,
    /// `Observable`), generic arguments dropped.
    callee: &'l str,
    /// Written with `new`.
    new: bool,
    /// The lambda's argument position, and `q`'s among its parameters.
    arg: usize,
    param: usize,
}

/// Finds `(a, q) =>` or `q =>` (parameters without annotations) on a
/// line and the call it is an argument of, when that call opens on the
/// same line: `operate((source, subscriber) => {`.
fn lambda_site<'l>(line: &'l str, from: usize, q: &str) -> Option<LambdaSite<'l>> {
    let mut from = from;
    while let Some(at) = memchr::memmem::find(&line.as_bytes()[from..], b"=>") {
        let arrow = from + at;
        from = arrow + 2;
        let before = line[..arrow].trim_end();
        let found = if let Some(list) = before.strip_suffix(')') {
            matching_open(list).and_then(|open| {
                split_top(&list[open + 1..])
                    .iter()
                    .position(|p| {
                        let p = p.trim().trim_start_matches("...");
                        p == q || p.strip_prefix(q).is_some_and(|t| t.trim_start() == "?")
                    })
                    .map(|i| (open, i))
            })
        } else if before.ends_with(q) && find_word(before, q, before.len() - q.len()).is_some() {
            Some((before.len() - q.len(), 0))
        } else {
            None
        };
        let Some((start, param)) = found else {
            continue;
        };
        let head = line[..start].trim_end();
        let head = head.strip_suffix("async").unwrap_or(head).trim_end();
        // The argument position: commas back to the call's `(`.
        let mut depth = 0i32;
        let mut arg = 0;
        let mut open = None;
        for (i, c) in head.char_indices().rev() {
            match c {
                ')' | ']' | '}' => depth += 1,
                '(' | '[' | '{' if depth > 0 => depth -= 1,
                '(' => {
                    open = Some(i);
                    break;
                }
                '[' | '{' => return None,
                ',' if depth == 0 => arg += 1,
                _ => {}
            }
        }
        let callee = strip_generics(head[..open?].trim_end());
        let begin = chain_start(callee);
        let new = callee[..begin].trim_end().ends_with("new");
        let callee = &callee[begin..];
        dotted_last(callee)?;
        return Some(LambdaSite {
            callee,
            new,
            arg,
            param,
        });
    }
    None
}

/// The last line index a function literal's parameter `q` on line `i` is
/// seen on, when `q` is one: Go's `func(w http.ResponseWriter, r
/// *http.Request) {…}`, a JS/TS arrow `(x: T) => …` or `function (x) {…}`.
/// The literal's body ends where its braces close or, for an arrow without
/// braces, at the `,`/`;` or the bracket closing the call around it.
fn literal_param_end(lines: &[String], i: usize, q: &str, lang: &str) -> Option<usize> {
    let line = lines.get(i)?;
    let js = matches!(lang, "typescript" | "tsx" | "javascript");
    if !(lang == "go" || js) {
        return None;
    }
    for (at, _) in name_uses(line, q) {
        // The innermost `(` still open before `q`.
        let mut depth = 0i32;
        let mut open = None;
        for (j, c) in line[..at].char_indices().rev() {
            match c {
                ')' | ']' | '}' => depth += 1,
                '(' | '[' | '{' if depth > 0 => depth -= 1,
                '(' => {
                    open = Some(j);
                    break;
                }
                '[' | '{' => break,
                _ => {}
            }
        }
        let Some(open) = open else { continue };
        let head = line[..open].trim_end();
        let word_start = head
            .bytes()
            .rposition(|b| !is_ident_byte(b))
            .map_or(0, |k| k + 1);
        let word = &head[word_start..];
        let before_word = head[..word_start].trim_end();
        let literal = if lang == "go" {
            word == "func"
        } else {
            word == "function"
                || before_word.ends_with("function")
                || skip_balanced(&line[open..], '(', ')').is_some_and(|rest| {
                    let rest = rest.trim_start();
                    rest.starts_with("=>") || rest.starts_with(':') && rest.contains("=>")
                })
        };
        if literal {
            return Some(literal_end(lines, i, open));
        }
    }
    None
}

/// The line index where the function literal whose parameter list opens at
/// byte `open` of line `i` ends (see [`literal_param_end`]).
fn literal_end(lines: &[String], i: usize, open: usize) -> usize {
    let mut depth = 0i32;
    let mut params_closed = false;
    let mut body = false;
    let mut quote: Option<char> = None;
    for (k, line) in lines.iter().enumerate().skip(i).take(5000) {
        let text = if k == i { &line[open..] } else { line.as_str() };
        let mut prev = ' ';
        for c in text.chars() {
            if let Some(qc) = quote {
                if c == qc && prev != '\\' {
                    quote = None;
                }
                prev = if prev == '\\' { ' ' } else { c };
                continue;
            }
            match c {
                '"' | '\'' | '`' => quote = Some(c),
                '/' if prev == '/' => break,
                '(' | '[' | '{' => {
                    depth += 1;
                    if c == '{' && depth == 1 && params_closed {
                        body = true;
                    }
                }
                ')' | ']' | '}' => {
                    depth -= 1;
                    if depth < 0 || depth == 0 && body {
                        return k;
                    }
                    if depth == 0 {
                        params_closed = true;
                    }
                }
                ',' | ';' if depth == 0 && params_closed => return k,
                _ => {}
            }
            prev = c;
        }
        // A string other than a template literal ends with its line.
        if quote != Some('`') {
            quote = None;
        }
    }
    lines.len().saturating_sub(1)
}

/// A line without its trailing `// …` comment.
fn strip_line_comment(line: &str) -> &str {
    match line.find("//") {
        Some(at) if !in_comment_or_string(line, at) => &line[..at],
        _ => line,
    }
}

/// The index of the `)` that closes the `(` just before `s`.
fn matching_close(s: &str) -> Option<usize> {
    depth_zero_at(s.char_indices(), '(', ')')
}

/// The index of the `(` that the `)` just after `s` closes.
fn matching_open(s: &str) -> Option<usize> {
    depth_zero_at(s.char_indices().rev(), ')', '(')
}

/// Where the bracket already open (depth 1) closes, walking `chars`:
/// `deeper` opens a level, `closer` shuts one.
fn depth_zero_at(
    chars: impl Iterator<Item = (usize, char)>,
    deeper: char,
    closer: char,
) -> Option<usize> {
    let mut depth = 1i32;
    for (i, c) in chars {
        if c == deeper {
            depth += 1;
        } else if c == closer {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// `s` split at its top-level commas (not inside `()`, `<>`, `[]`, `{}`).
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = s.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' | b'[' | b'{' | b'<' => depth += 1,
            // `=>` is not a closing bracket.
            b'>' if i > 0 && bytes[i - 1] == b'=' => {}
            b')' | b']' | b'}' | b'>' => depth -= 1,
            b',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(&s[start..]);
    }
    out
}

/// The parameters of a callable's header, each as (name, annotation):
/// `create<T>(a: A, b?: B)` → `[("a", Some("A")), ("b", Some("B"))]`.
/// With `name` empty, the header starts with the parameter list (a
/// function type `(a: A) => R`).
fn params_of<'h>(header: &'h str, name: &str) -> Option<Vec<(&'h str, Option<&'h str>)>> {
    let rest = if name.is_empty() {
        header
    } else {
        let at = find_word(header, name, 0)?;
        params_start(&header[at + name.len()..])?
    };
    let after = skip_balanced(rest, '(', ')')?;
    let list = &rest[1..rest.len() - after.len() - 1];
    Some(
        split_top(list)
            .into_iter()
            .map(|p| {
                let p = strip_prefixes(p, &["public ", "private ", "protected ", "readonly "]);
                let p = p.trim_start_matches("...");
                match p.split_once(':') {
                    Some((n, ann)) => (n.trim().trim_end_matches('?'), Some(ann.trim())),
                    None => (p.trim(), None),
                }
            })
            .collect(),
    )
}

/// What a top-level definition's line makes `name` another name for:
/// `stringType as string,` → `stringType`; `const stringType =
/// ZodString.create;` → `ZodString.create` (a path, not a call).
fn alias_in(sig: &str, name: &str) -> Option<String> {
    let at = find_word(sig, name, 0)?;
    let before = sig[..at].trim_end();
    if let Some(orig) = before.strip_suffix(" as") {
        let orig = orig.trim_end();
        let start = orig
            .bytes()
            .rposition(|b| !is_ident_byte(b))
            .map_or(0, |i| i + 1);
        let orig = &orig[start..];
        return (!orig.is_empty() && orig != "default").then(|| orig.to_string());
    }
    let value = assigned(sig[at + name.len()..].trim_start())?.trim();
    let value = value.strip_suffix(';').unwrap_or(value).trim_end();
    let (path, rest) = split_path(value);
    (rest.is_empty() && dotted_last(path).is_some()).then(|| path.to_string())
}

/// The text after a balanced `open … close` group that `s` starts with.
fn skip_balanced(s: &str, open: char, close: char) -> Option<&str> {
    if !s.starts_with(open) {
        return None;
    }
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return s.get(i + c.len_utf8()..);
            }
        }
    }
    None
}

/// `Foo<Bar, Baz>` → `Foo`.
fn strip_generics(s: &str) -> &str {
    if !s.ends_with('>') {
        return s;
    }
    let mut depth = 0i32;
    for (i, c) in s.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth -= 1;
                if depth == 0 {
                    return s[..i].trim_end();
                }
            }
            _ => {}
        }
    }
    s
}

/// Starts with a capital letter, as type names by convention do (after
/// the underscores of a private one: `_OrderedMultiDict`).
fn capitalized(name: &str) -> bool {
    name.trim_start_matches('_')
        .starts_with(|c: char| c.is_ascii_uppercase())
}

/// `text` without the listed prefixes, each taken once, in order, with the
/// spaces after it.
fn strip_prefixes<'a>(text: &'a str, prefixes: &[&str]) -> &'a str {
    let mut e = text.trim_start();
    for p in prefixes {
        if let Some(s) = e.strip_prefix(p) {
            e = s.trim_start();
        }
    }
    e
}

/// The dotted or `::` path `text` starts with, and what follows it.
fn split_path(text: &str) -> (&str, &str) {
    let end = text
        .bytes()
        .position(|b| !(is_ident_byte(b) || b == b'.' || b == b':'))
        .unwrap_or(text.len());
    text.split_at(end)
}

/// The type an expression constructs: `Session(…)`, `new Session(…)`,
/// `&Server{…}`, `Server::new(…)`, `sessions.Session(…)`, Go `NewServer(…)`.
fn type_of_expr(rhs: &str, lang: &str) -> Option<String> {
    let e = strip_prefixes(rhs, &["new ", "await ", "&mut ", "&", "*"]);
    let (path, raw_rest) = split_path(e);
    let rest = raw_rest.trim_start();
    if path.is_empty() {
        return None;
    }
    // Ruby's `Geo::Circle.new(3)`: the class before `.new`.
    if lang == "ruby"
        && let Some(class) = path.strip_suffix(".new")
        && capitalized(last_part(class))
    {
        return Some(last_part(class).to_string());
    }
    // `Server::new(…)`, `Server::default()`: the path's type.
    if let Some(i) = path.rfind("::") {
        let head = &path[..i];
        let ty = last_part(head);
        if capitalized(ty) {
            return Some(ty.to_string());
        }
    }
    let ty = last_part(path);
    // Rust's unit structs are values: `let p = Parser;`.
    let unit = lang == "rust" && (rest.starts_with(';') || rest.is_empty());
    if !(unit || rest.starts_with('(') || rest.starts_with('{') || rest.starts_with('<')) {
        return None;
    }
    // `mx.pool.Get().(*Context)`: a type assertion ends the expression.
    if lang == "go"
        && let Some(body) = e.trim_end().strip_suffix(')')
        && let Some(open) = matching_open(body)
        && body[..open].ends_with('.')
    {
        return type_in(&body[open + 1..], lang).filter(|t| t != "type");
    }
    // `NewRouter().NewRoute().Path("/x")`, `Conf{…}.Build()`: a Go chain
    // going on past its first call or literal is what its last member
    // gives, not what the first constructs.
    if lang == "go"
        && let Some(tail) = skip_balanced(rest, '(', ')').or_else(|| skip_balanced(rest, '{', '}'))
        && tail.trim_start().starts_with('.')
    {
        return None;
    }
    // `&node{…}`: a composite literal of an unexported type (gofmt puts
    // no space before its `{`; `opener = opener.prev {` opens a block).
    if lang == "go" && rest.starts_with('{') && !path.ends_with('.') {
        return raw_rest
            .starts_with('{')
            .then(|| type_in(path, lang))
            .flatten();
    }
    if lang == "go"
        && let Some(t) = ty.strip_prefix("New")
        && capitalized(t)
    {
        return Some(t.to_string());
    }
    // Go: `cmd.Flags()` is a call of an exported function, not a type;
    // only a composite literal (`&Server{…}`) says the type here.
    if lang == "go" && rest.starts_with('(') && !path.ends_with('.') {
        return None;
    }
    // `v.(*Conn)`: a type assertion (ending the expression: not
    // `v.(*Text).Segment`).
    if lang == "go"
        && path.ends_with('.')
        && let Some(inner) = rest.strip_prefix('(')
        && let Some(end) = inner.find(')')
    {
        if !inner[end + 1..].trim().is_empty() {
            return None;
        }
        return type_in(&inner[..end], lang).filter(|t| t != "type");
    }
    capitalized(ty).then(|| ty.to_string())
}

/// [`leading_type`] for a language: Go's unexported types are lower case
/// (`*routeConf`), so there any name but a predeclared one is a type.
fn type_in(ann: &str, lang: &str) -> Option<String> {
    if lang != "go" {
        return leading_type(ann);
    }
    let e = strip_prefixes(ann, &["*", "&"]);
    let (path, _) = split_path(e);
    let ty = last_part(path);
    let predeclared = crate::extract::is_go_predeclared_type(ty)
        || matches!(ty, "func" | "chan" | "map" | "struct" | "interface");
    (!ty.is_empty()
        && !predeclared
        && ty.bytes().all(is_ident_byte)
        && !ty.starts_with(|c: char| c.is_ascii_digit()))
    .then(|| ty.to_string())
}

/// `q = new Set<Listener>()` → `Set<Listener>`: the class (with its type
/// arguments) a field or variable is initialized with.
fn constructed_in_line(line: &str, q: &str) -> Option<String> {
    for (_, after) in name_uses(line, q) {
        let Some(rhs) = assigned(after) else {
            continue;
        };
        let rhs = rhs.trim_start().strip_prefix("new ")?.trim_start();
        let end = rhs.find('(')?;
        let ty = rhs[..end].trim();
        if leading_type(ty).is_some() {
            return Some(ty.to_string());
        }
    }
    None
}

/// `this._addCheck({` → `this._addCheck`: the head of a call whose
/// arguments go on past the end of the line (its first `(` is unclosed).
fn unclosed_call(expr: &str) -> Option<&str> {
    let open = expr.find('(')?;
    let head = expr[..open].trim_end();
    let mut depth = 0i32;
    for c in expr[open..].chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            _ => {}
        }
        if depth == 0 {
            return None;
        }
    }
    let bare = head.strip_prefix("new ").unwrap_or(head).trim_start();
    (!bare.is_empty() && chain_start(bare) == 0 && dotted_last(bare).is_some()).then_some(head)
}

/// Where the member chain that ends `s` starts: back over names, `.`,
/// `?.`, `!`, `#` and the argument lists and indexes of the calls and
/// elements in it: all of `this.#cache.all().forEach`, `items[0].map`.
fn chain_start(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = b.len();
    while i > 0 {
        let c = b[i - 1];
        if is_ident_byte(c) || matches!(c, b'.' | b'?' | b'!' | b'#') {
            i -= 1;
            continue;
        }
        let open_of = match c {
            b')' => b'(',
            b']' => b'[',
            _ => break,
        };
        let mut depth = 0i32;
        let mut open = None;
        for j in (0..i).rev() {
            if b[j] == c {
                depth += 1;
            } else if b[j] == open_of {
                depth -= 1;
                if depth == 0 {
                    open = Some(j);
                    break;
                }
            }
        }
        // A call's arguments or an index, after a name or another call
        // (or Go's type assertion, `x.(*T)`); not a group (`(a || b)`) or
        // a list literal.
        match open {
            Some(j)
                if j > 0
                    && (is_ident_byte(b[j - 1])
                        || matches!(b[j - 1], b')' | b']' | b'!')
                        || b[j - 1] == b'.' && c == b')') =>
            {
                i = j
            }
            _ => break,
        }
    }
    // A chain starts with a name, not with `.` (`…).then`) or `?`.
    while i < b.len() && matches!(b[i], b'.' | b'?' | b'!') {
        i += 1;
    }
    i
}

/// The value a member chain starts from, when the chain goes on past it:
/// `(err as Error)?.message?` → `(err as Error)`, `resp.raw.data` →
/// `resp`; `None` for a bare name or a chain starting with a call.
fn chain_root(receiver: &str) -> Option<&str> {
    let end = if receiver.starts_with('(') {
        let mut depth = 0i32;
        let close = receiver.char_indices().find_map(|(i, c)| {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            (depth == 0).then_some(i)
        })?;
        close + 1
    } else {
        receiver
            .bytes()
            .position(|b| !is_ident_byte(b))
            .filter(|&i| i > 0 && receiver.as_bytes()[i] != b'(')?
    };
    let rest = receiver[end..].trim_start_matches(['!', '?']);
    rest.starts_with('.').then(|| &receiver[..end])
}

/// A return annotation as an awaited call sees it: `Promise<Session>` →
/// `Session` (not awaited, the value is the `Promise`).
fn awaited_ann(ann: &str, awaited: bool) -> &str {
    let a = ann.trim();
    match a.strip_prefix("Promise<") {
        Some(inner) if awaited => inner,
        _ => a,
    }
}

/// `q = await f(…)`, `const q = await this.f(…)`: the call bound to `q`
/// is awaited.
fn awaits_in_line(line: &str, q: &str) -> bool {
    let Some(at) = find_word(line, q, 0) else {
        return false;
    };
    let after = line[at + q.len()..].trim_start();
    let after = match after.strip_prefix(':') {
        // `const q: T = await …`
        Some(_) => after.split_once('=').map_or("", |(_, r)| r),
        None => after.strip_prefix('=').unwrap_or(""),
    };
    after.trim_start().starts_with("await ")
}

/// The type at the start of an annotation: `Session`, `&mut Session`,
/// `*Server`, `Optional[Session]`, `sessions.Session`.
fn leading_type(ann: &str) -> Option<String> {
    let e = strip_prefixes(
        ann,
        &["&mut ", "&", "*", "mut ", "Optional[", "?", "\"", "'"],
    );
    let (path, rest) = split_path(e);
    let ty = last_part(path.trim_end_matches(':'));
    // `t.Optional["Context"]`, `Awaitable[Response]`: the type inside.
    if matches!(
        ty,
        "Optional" | "Final" | "ClassVar" | "Annotated" | "Awaitable"
    ) && let Some(inner) = rest.strip_prefix(['[', '<'])
    {
        return leading_type(inner);
    }
    capitalized(ty).then(|| ty.to_string())
}

/// Which lines lie inside a triple-quoted string (Python) or a block
/// comment (C-like languages), as far as a line scan can tell.
fn quoted_lines(lines: &[String], path: &str) -> Vec<bool> {
    if !is_python_file(path) {
        return block_comment_lines(lines, !path.ends_with(".rs"));
    }
    let mut out = Vec::with_capacity(lines.len());
    let mut inside = false;
    for l in lines {
        let b = l.as_bytes();
        let toggles = memchr::memmem::find_iter(b, b"\"\"\"").count()
            + memchr::memmem::find_iter(b, b"'''").count();
        // A line that opens or closes the block counts as inside it.
        out.push(inside || toggles % 2 == 1);
        if toggles % 2 == 1 {
            inside = !inside;
        }
    }
    out
}

/// The lines in, opening or closing a `/* … */` comment. A `/*` in a
/// string (`"/*"`, a Go raw string on one line) or after `//` opens none;
/// `'` quotes too unless `single_quotes` is off (Rust's lifetimes).
fn block_comment_lines(lines: &[String], single_quotes: bool) -> Vec<bool> {
    let mut out = Vec::with_capacity(lines.len());
    let mut inside = false;
    for l in lines {
        let b = l.as_bytes();
        let at_start = inside;
        let mut i = 0;
        while i < b.len() {
            if inside {
                match memchr::memmem::find(&b[i..], b"*/") {
                    Some(k) => {
                        inside = false;
                        i += k + 2;
                        continue;
                    }
                    None => break,
                }
            }
            match b[i] {
                b'/' if b.get(i + 1) == Some(&b'/') => break,
                b'/' if b.get(i + 1) == Some(&b'*') => {
                    inside = true;
                    i += 2;
                }
                q @ (b'"' | b'`') => match string_end(b, i, q) {
                    Some(end) => i = end + 1,
                    None => break,
                },
                b'\'' if single_quotes => match string_end(b, i, b'\'') {
                    Some(end) => i = end + 1,
                    None => break,
                },
                _ => i += 1,
            }
        }
        out.push(at_start || inside);
    }
    out
}

/// The index of the quote closing the string opened at `open` on the same
/// line (backslash escapes skipped, but not in a Go raw string).
fn string_end(b: &[u8], open: usize, quote: u8) -> Option<usize> {
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'\\' if quote != b'`' => i += 2,
            c if c == quote => return Some(i),
            _ => i += 1,
        }
    }
    None
}

fn read_text(root: &Path, path: &str) -> Option<FileText> {
    let text = crate::search::read_project_text(root, path, MAX_READ_BYTES)?;
    let lines: Vec<String> = text.lines().map(str::to_string).collect();
    let quoted = quoted_lines(&lines, path);
    // A docstring's line is no import, whatever its first word: Field's
    // "from ``self.error_messages``." had made `self` an imported module
    // in marshmallow's `fields.py`, so `self.inner.deserialize(…)` was
    // an outside module's call and no caller of `Field.deserialize`.
    let imports = lines
        .iter()
        .enumerate()
        .filter(|&(i, l)| !quoted.get(i).copied().unwrap_or(false) && is_import_line(l, path))
        .map(|(i, _)| i)
        .collect();
    Some(FileText {
        lines,
        quoted,
        imports,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_list_names_each_file_once_per_run() {
        let sites = [
            ("src/a.rs", 3, " in f".to_string()),
            ("src/a.rs", 9, String::new()),
            ("src/b.rs", 1, " in g".to_string()),
            ("src/a.rs", 12, String::new()),
        ];
        assert_eq!(
            site_list(sites),
            "src/a.rs:3 in f, 9; src/b.rs:1 in g; src/a.rs:12"
        );
        assert_eq!(site_list(std::iter::empty()), "none");
    }

    fn rt(sig: &str, name: &str, lang: &str) -> Option<String> {
        return_type_of(sig, name, lang).and_then(|a| leading_type(&a))
    }

    #[test]
    fn overloads_of_one_name_in_one_file_are_one_target_line() {
        let t = |symbol: &str, path: &str, line: u32| GraphTarget {
            symbol: symbol.into(),
            kind: "method".into(),
            path: path.into(),
            line,
        };
        let lines = target_lines(&[
            t("MessageParser.ParseFrom", "MessageParser.cs", 73),
            t("MessageParser.ParseFrom", "MessageParser.cs", 90),
            t("Other.ParseFrom", "Other.cs", 5),
            t("MessageParser.ParseFrom", "MessageParser.cs", 302),
        ]);
        assert_eq!(
            lines,
            [
                "MessageParser.ParseFrom (method) MessageParser.cs:73, 3 overloads at lines 73-302",
                "Other.ParseFrom (method) Other.cs:5",
            ]
        );
        // A name many files define: the first few, then a count.
        let many: Vec<GraphTarget> = (0..9)
            .map(|i| t("write", &format!("test/t{i}.js"), 1))
            .collect();
        let lines = target_lines(&many);
        assert_eq!(lines.len(), TARGET_LINES + 1, "{lines:?}");
        assert!(
            lines[TARGET_LINES].starts_with("… 3 more definitions"),
            "{lines:?}"
        );
        // One more is shown rather than counted.
        assert_eq!(
            target_lines(&many[..TARGET_LINES + 1]).len(),
            TARGET_LINES + 1
        );
        // serde_json's `#[cfg]` twins of one Rust method are no overloads.
        let lines = target_lines(&[
            t("Deserializer.parse_any_number", "src/de.rs", 927),
            t("Deserializer.parse_any_number", "src/de.rs", 932),
        ]);
        assert_eq!(
            lines,
            [
                "Deserializer.parse_any_number (method) src/de.rs:927, 2 definitions at lines 927-932"
            ]
        );
    }
    #[test]
    fn haskell_signatures_declare_the_name() {
        assert!(is_haskell_signature(
            "",
            " :: PandocMonad m => MarkdownParser m (F Blocks)"
        ));
        assert!(is_haskell_signature("f, ", " :: Int"));
        assert!(is_haskell_signature("", ", g :: Int"));
        assert!(!is_haskell_signature(
            "header = setextHeader <|> ",
            " <?> \"header\""
        ));
        assert!(!is_haskell_signature("(", " a :: Int)"));
        assert!(!is_haskell_signature("x = ", ""));
    }

    #[test]
    fn bindings() {
        assert_eq!(
            binding_in_line("    s = Session()", "s", "python").as_deref(),
            Some("Session")
        );
        assert_eq!(
            binding_in_line("    s = sessions.Session(x)", "s", "python").as_deref(),
            Some("Session")
        );
        assert_eq!(
            binding_in_line("    with Session() as s:", "s", "python").as_deref(),
            Some("Session")
        );
        assert_eq!(
            binding_in_line("def f(s: Session, x):", "s", "python").as_deref(),
            Some("Session")
        );
        assert_eq!(
            binding_in_line("  srv := &Server{}", "srv", "go").as_deref(),
            Some("Server")
        );
        assert_eq!(
            binding_in_line("  srv := NewServer(a)", "srv", "go").as_deref(),
            Some("Server")
        );
        // Ruby's constructor call, also through a module.
        assert_eq!(
            binding_in_line("    c = Geo::Circle.new(3)", "c", "ruby").as_deref(),
            Some("Circle")
        );
        assert_eq!(
            binding_in_line("    c = Circle.new", "c", "ruby").as_deref(),
            Some("Circle")
        );
        // C++ direct initialisation.
        assert_eq!(
            binding_in_line("  Foo g(1);", "g", "cpp").as_deref(),
            Some("Foo")
        );
        assert_eq!(
            binding_in_line("  geo::Circle c{3};", "c", "cpp").as_deref(),
            Some("Circle")
        );
        assert_eq!(binding_in_line("  g(1);", "g", "cpp").as_deref(), None);
        assert_eq!(
            binding_in_line("func f(srv *Server) {", "srv", "go").as_deref(),
            Some("Server")
        );
        assert_eq!(
            binding_in_line("  Session s = new Session();", "s", "java").as_deref(),
            Some("Session")
        );
        assert_eq!(
            binding_in_line("  final List<Foo> s;", "s", "java").as_deref(),
            Some("List")
        );
        assert_eq!(
            binding_in_line("  let s = Session::new();", "s", "rust").as_deref(),
            Some("Session")
        );
        assert_eq!(
            binding_in_line("  const s = new Session(opts);", "s", "typescript").as_deref(),
            Some("Session")
        );
        assert_eq!(binding_in_line("  s == Session()", "s", "python"), None);
        assert_eq!(binding_in_line("  s = make()", "s", "python"), None);
        assert_eq!(
            binding_in_line("  self.s = Session()", "self.s", "python").as_deref(),
            Some("Session")
        );
        // Go: a composite literal of an unexported type.
        assert_eq!(
            binding_in_line("\ttr := &node{}", "tr", "go").as_deref(),
            Some("node")
        );
        // Another name for a value; not a constant, not itself.
        assert_eq!(value_bound_in_line("\tnn := n", "nn").as_deref(), Some("n"));
        assert_eq!(
            value_bound_in_line("    parent = node", "parent").as_deref(),
            Some("node")
        );
        assert_eq!(value_bound_in_line("    x = None", "x"), None);
        assert_eq!(value_bound_in_line("    x = x", "x"), None);
    }

    #[test]
    fn return_types() {
        assert_eq!(
            rt(
                "def make_config(self, instance_relative=False) -> Config:",
                "make_config",
                "python"
            )
            .as_deref(),
            Some("Config")
        );
        assert_eq!(
            rt(
                "string(params?: RawCreateParams): ZodString {",
                "string",
                "typescript"
            )
            .as_deref(),
            Some("ZodString")
        );
        assert_eq!(
            rt("func (c *Command) Flags() *flag.FlagSet {", "Flags", "go").as_deref(),
            Some("FlagSet")
        );
        assert_eq!(
            rt(
                "func setUp(sap *[]string) (*FlagSet, error) {",
                "setUp",
                "go"
            )
            .as_deref(),
            Some("FlagSet")
        );
        assert_eq!(
            rt(
                "pub fn parse<T>(s: &str) -> Result<Config> {",
                "parse",
                "rust"
            )
            .as_deref(),
            Some("Result")
        );
        assert_eq!(
            rt("public static Session open(String x) {", "open", "java").as_deref(),
            Some("Session")
        );
        assert_eq!(rt("def f(x):", "f", "python"), None);
        assert_eq!(
            leading_type("t.Optional[\"Context\"]:").as_deref(),
            Some("Context")
        );
        assert_eq!(
            with_call_as(
                "    with click.progressbar(x, length=3) as progress:",
                "progress"
            )
            .as_deref(),
            Some("click.progressbar")
        );
        assert_eq!(
            for_call_in("    for param in self.get_params(ctx):", "param").as_deref(),
            Some("get_params")
        );
        assert_eq!(
            for_call_in("  for (const f of this.flags()) {", "f").as_deref(),
            Some("flags")
        );
        assert_eq!(
            element_of("t.List[\"Parameter\"]:").as_deref(),
            Some("Parameter")
        );
        assert_eq!(element_of("Command[] {").as_deref(), Some("Command"));
        assert_eq!(
            name_bound_in_line("        self.ctx = ctx", "self.ctx").as_deref(),
            Some("ctx")
        );
        assert_eq!(call_name("z.string()"), Some("string"));
        assert_eq!(call_name("c.Flags().Lookup(name)"), Some("Lookup"));
        assert_eq!(call_name("unknown(x)"), Some("unknown"));
        assert_eq!(call_name("self.x"), None);
        assert_eq!(
            call_bound_in_line("  f := setUpFlagSet(&sa)", "f").as_deref(),
            Some("setUpFlagSet")
        );
        assert_eq!(
            call_bound_in_line("  r = self.get(url)", "r").as_deref(),
            Some("self.get")
        );
        assert_eq!(call_head("FileError(filename=x)"), Some("FileError"));
    }

    #[test]
    fn qualifiers() {
        assert_eq!(qualifier_before("x = self.").as_deref(), Some("self"));
        assert_eq!(qualifier_before("x = Kind::").as_deref(), Some("Kind"));
        assert_eq!(qualifier_before("  return a.b.").as_deref(), Some("a.b"));
        assert_eq!(qualifier_before("  foo("), None);
        assert_eq!(module_last("django.utils.crypto"), "crypto");
        assert_eq!(module_last("./util.js"), "util");
        assert_eq!(module_last("crate::store::read"), "read");
        assert_eq!(last_part("os.path"), "path");
        assert_eq!(last_part("super()"), "super");
        assert_eq!(go_receiver_name("func (s *Server) Run() {"), Some("s"));
        assert_eq!(module_keys("requests/sessions.py"), vec!["sessions"]);
        assert_eq!(module_keys("requests/__init__.py"), vec!["requests"]);
        assert_eq!(module_keys("net/http/server.go"), vec!["server", "http"]);
        assert_eq!(
            module_keys("src/core/lwt_mutex.mli"),
            vec!["lwt_mutex", "Lwt_mutex"]
        );
    }

    #[test]
    fn bases() {
        let def = |name: &str, sig: &str, kind: &str| GraphDef {
            file_id: 1,
            path: "a".into(),
            lang: "python".into(),
            name: name.into(),
            kind: kind.into(),
            container: None,
            signature: sig.into(),
            line_signature: None,
            start_line: 1,
            end_line: 1,
            name_line: 1,
            name_col: 1,
        };
        assert_eq!(
            bases_of(&def("B", "class B(A, mixins.M):", "class")),
            vec!["A", "mixins", "M"]
        );
        assert_eq!(
            bases_of(&def(
                "B",
                "public class B extends A implements I {",
                "class"
            )),
            vec!["A", "I"]
        );
        assert_eq!(bases_of(&def("B", "class B < A", "class")), vec!["A"]);
        // Type parameters, constraints and generic arguments are no bases.
        assert_eq!(
            bases_of(&def(
                "UIPlugin",
                "class UIPlugin<Opts extends Options, M = Record<string, M>> extends BasePlugin<Opts, M> {",
                "class"
            )),
            vec!["BasePlugin"]
        );
    }

    #[test]
    fn aliases() {
        assert_eq!(
            alias_in("  stringType as string,", "string").as_deref(),
            Some("stringType")
        );
        assert_eq!(
            alias_in("const stringType = ZodString.create;", "stringType").as_deref(),
            Some("ZodString.create")
        );
        // A call, a default export and a literal are not aliases.
        assert_eq!(alias_in("const s = make();", "s"), None);
        assert_eq!(alias_in("  default as string,", "string"), None);
        assert_eq!(alias_in("const n = 1 + 2;", "n"), None);
    }

    #[test]
    fn lambda_sites() {
        let s = lambda_site(
            "  return operate((source, subscriber) => {",
            0,
            "subscriber",
        )
        .expect("site");
        assert_eq!((s.callee, s.new, s.arg, s.param), ("operate", false, 0, 1));
        let s = lambda_site(
            "return new Observable<T>((subscriber) => {",
            0,
            "subscriber",
        )
        .expect("site");
        assert_eq!(
            (s.callee, s.new, s.arg, s.param),
            ("Observable", true, 0, 0)
        );
        let s = lambda_site("x.pipe(a, async v => v.go())", 0, "v").expect("site");
        assert_eq!((s.callee, s.arg, s.param), ("x.pipe", 1, 0));
        // An annotated or unrelated parameter is not this one.
        assert!(lambda_site("f((a) => a)", 0, "b").is_none());
        // The call opens on an earlier line: not found on this one alone.
        assert!(lambda_site("  ? (subscriber) => {", 0, "subscriber").is_none());
        let joined = "return new Observable( scheduler   ? (subscriber) => {";
        let s = lambda_site(joined, 30, "subscriber").expect("site");
        assert_eq!((s.callee, s.arg), ("Observable", 0));
    }

    #[test]
    fn parameters() {
        let p = params_of(
            "constructor(subscribe?: (this: Observable<T>, subscriber: Subscriber<T>) => X) {",
            "constructor",
        )
        .expect("params");
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].0, "subscribe");
        let inner = params_of(p[0].1.expect("annotation"), "").expect("inner");
        assert_eq!(
            inner,
            vec![
                ("this", Some("Observable<T>")),
                ("subscriber", Some("Subscriber<T>"))
            ]
        );
        let p =
            params_of("static create = <T>(a: A, ...rest: B[]): Z => {", "create").expect("params");
        assert_eq!(p, vec![("a", Some("A")), ("rest", Some("B[]"))]);
        assert!(is_type_param(
            "function array<T>(fn: () => T): T[] {",
            "array",
            "T"
        ));
        assert!(!is_type_param(
            "function array<T>(fn: () => T): U[] {",
            "array",
            "U"
        ));
    }

    #[test]
    fn jsdoc_parameter_types() {
        let lines: Vec<String> = [
            "  /**",
            "   * Get the longest command term length.",
            "   *",
            "   * @param {Command} cmd",
            "   * @param {Help=} [helper] - the helper",
            "   * @param {Option[]} opts",
            "   * @param {string|Command} either",
            "   * @returns {number}",
            "   */",
            "",
            "  longestSubcommandTermLength(cmd, helper, opts, either, plain) {",
            "/**",
            " * @param {import(\"../index\").FSWatcher} fsW",
            " */",
            "constructor(fsW) {",
            "// @param {Command} cmd",
            "other(cmd) {",
        ]
        .map(String::from)
        .to_vec();
        let ty = |i: usize, q: &str| jsdoc_param_type(&lines, i, q).map(|(t, _)| t);
        assert_eq!(ty(10, "cmd").as_deref(), Some("Command"));
        assert_eq!(ty(10, "helper").as_deref(), Some("Help"));
        assert_eq!(
            jsdoc_param_type(&lines, 10, "cmd").map(|(_, o)| o),
            Some(29)
        );
        // Arrays and unions are not one type; undocumented parameters have none.
        assert_eq!(ty(10, "opts"), None);
        assert_eq!(ty(10, "either"), None);
        assert_eq!(ty(10, "plain"), None);
        // Only a parameter of the header: `number` is not one.
        assert_eq!(ty(10, "length"), None);
        assert_eq!(ty(14, "fsW").as_deref(), Some("FSWatcher"));
        // A line comment is not a JSDoc block.
        assert_eq!(ty(16, "cmd"), None);

        let lines: Vec<String> = [
            "    /** @type {Option[]} */",
            "    this.options = [];",
            "    /** @type {import('./help').Help=} */",
            "    let help = make();",
            "    /** @type {Help} */",
            "    help === other;",
        ]
        .map(String::from)
        .to_vec();
        assert_eq!(
            jsdoc_assigned_type(&lines, 1, "this.options").as_deref(),
            Some("Option[]")
        );
        assert_eq!(
            jsdoc_assigned_type(&lines, 3, "help").as_deref(),
            Some("Help")
        );
        // A comparison assigns nothing.
        assert_eq!(jsdoc_assigned_type(&lines, 5, "help"), None);
        assert_eq!(jsdoc_single_type("Option[]"), None);
        assert_eq!(jsdoc_single_type("!Help").as_deref(), Some("Help"));
        assert_eq!(jsdoc_single_type("(Option | null)"), None);
    }

    #[test]
    fn go_structs() {
        assert_eq!(go_embedded("\trouteConf"), Some("routeConf"));
        assert_eq!(go_embedded("\t*sync.Mutex // guards"), Some("Mutex"));
        assert_eq!(go_embedded("\tio.Reader `json:\"-\"`"), Some("Reader"));
        assert_eq!(go_embedded("\tname string"), None);
        assert_eq!(go_embedded("}"), None);
        assert_eq!(
            go_field_names("\tparent, current *Route"),
            Some((vec!["parent", "current"], "*Route"))
        );
        assert_eq!(
            go_field_names("\tconf routeConf"),
            Some((vec!["conf"], "routeConf"))
        );
        assert_eq!(go_field_names("\trouteConf"), None);
        assert_eq!(type_in("*routeConf", "go").as_deref(), Some("routeConf"));
        assert_eq!(type_in("string", "go"), None);
        assert_eq!(type_in("routeConf", "python"), None);
    }

    #[test]
    fn quoted_members() {
        assert_eq!(
            quoted_member("  let chain: ReturnType<Editor['chain']>", 32, "chain").as_deref(),
            Some("Editor")
        );
        assert_eq!(
            quoted_member("  this.hooks[\"run\"](x)", 14, "run").as_deref(),
            Some("this.hooks")
        );
        assert_eq!(
            quoted_member("  setState: Store<T>['setState']", 22, "setState").as_deref(),
            Some("Store")
        );
        // A string, not an element access; a comment.
        assert_eq!(quoted_member("  emit('chain')", 8, "chain"), None);
        assert_eq!(quoted_member("  // Editor['chain']", 13, "chain"), None);
    }

    #[test]
    fn block_comments_named_collections_and_narrowing() {
        let lines = |ls: &[&str]| ls.iter().map(|l| l.to_string()).collect::<Vec<_>>();
        // A `/*` in a string or after `//` opens nothing.
        assert_eq!(
            block_comment_lines(
                &lines(&[
                    "a(p+\"/*\") // x /*",
                    "b := `/*`",
                    "c /* x",
                    "d",
                    "e */ f",
                    "g"
                ]),
                true
            ),
            vec![false, false, true, true, true, false]
        );
        assert_eq!(
            block_comment_lines(&lines(&["fn f<'a>(x: &'a str) {} /* c */", "y"]), false),
            vec![false, false]
        );
        assert_eq!(go_underlying("type nodes []*node"), Some("[]*node"));
        assert_eq!(
            go_underlying("type HeaderRouter map[string][]HeaderRoute"),
            Some("map[string][]HeaderRoute")
        );
        assert_eq!(go_underlying("type Mux struct {"), None);
        assert_eq!(
            go_elem_ann("map[string][]HeaderRoute"),
            Some("[]HeaderRoute")
        );
        assert_eq!(go_elem_ann("[ntyp]nodes"), Some("nodes"));
        assert_eq!(
            instanceof_in_line("    if (t instanceof Sub) {", "t").as_deref(),
            Some("Sub")
        );
        assert_eq!(
            instanceof_in_line("  if (x instanceof ns.Sub && y)", "x").as_deref(),
            Some("Sub")
        );
        assert_eq!(
            instanceof_in_line("    if (!(t instanceof Sub)) {", "t"),
            None
        );
        assert_eq!(instanceof_in_line("    if (t instanceof Sub) {", "u"), None);
    }

    #[test]
    fn go_idioms() {
        assert_eq!(
            go_range_value("\tfor _, r := range p.routes {", "r").as_deref(),
            Some("p.routes")
        );
        assert_eq!(go_range_value("\tfor i := range xs {", "i"), None);
        assert_eq!(
            go_first_of_call("\tc, err := pool.Get(ctx)", "c").as_deref(),
            Some("pool.Get")
        );
        assert_eq!(go_first_of_call("\terr, c := f()", "c"), None);
        assert_eq!(
            go_declared_ann("func (p *Pool) all(extra []*Route) {", "extra").as_deref(),
            Some("[]*Route")
        );
        assert_eq!(
            go_declared_ann("\tm := map[string]*Conn{}", "m").as_deref(),
            Some("map[string]*Conn")
        );
        assert_eq!(
            go_declared_ann("func (c *Command) Add(cmds ...*Command) {", "cmds").as_deref(),
            Some("[]*Command")
        );
        assert_eq!(go_elem("[]*Route").as_deref(), Some("Route"));
        assert_eq!(go_elem("[4]conn").as_deref(), Some("conn"));
        assert_eq!(go_elem("map[key]*Conn").as_deref(), Some("Conn"));
        assert_eq!(go_elem("[]string"), None);
        assert_eq!(type_of_expr("v.(*Conn)", "go").as_deref(), Some("Conn"));
        assert_eq!(type_of_expr("v.(type)", "go"), None);
        // A type assertion ends a chain of calls; a call of an assertion
        // is not one.
        assert_eq!(
            type_of_expr("mx.pool.Get().(*Context)", "go").as_deref(),
            Some("Context")
        );
        assert_eq!(type_of_expr("f(v.(*Conn))", "go"), None);
        assert_eq!(
            go_comma_ok_assert(
                "\tif rctx, ok := r.Context().Value(key).(*Context); ok {",
                "rctx"
            )
            .as_deref(),
            Some("Context")
        );
        assert_eq!(
            go_comma_ok_assert("\tc, ok := v.(*conn)", "c").as_deref(),
            Some("conn")
        );
        assert_eq!(go_comma_ok_assert("\tc, err := f(v)", "c"), None);
        let lines: Vec<String> = [
            "/**",
            " * Finds it.",
            " * @returns {Node} the node",
            " */",
            "function find(x) {",
        ]
        .iter()
        .map(|l| l.to_string())
        .collect();
        let d = GraphDef {
            file_id: 1,
            path: "a.js".into(),
            lang: "javascript".into(),
            name: "find".into(),
            kind: "function".into(),
            container: None,
            signature: "function find(x) {".into(),
            line_signature: None,
            start_line: 5,
            end_line: 5,
            name_line: 5,
            name_col: 10,
        };
        assert_eq!(documented_return(&lines, &d).as_deref(), Some("Node"));
        // A C++ member defined out of line returns the type before its
        // class's name (LevelDB's `status = log_->AddRecord(…)`).
        for sig in [
            "Status Writer::AddRecord(const Slice& slice) {",
            "Status log::Writer::AddRecord(const Slice& slice) {",
            "Status Cache<K>::AddRecord(const Slice& slice) {",
        ] {
            assert_eq!(
                return_type_of(sig, "AddRecord", "cpp").as_deref(),
                Some("Status"),
                "{sig}"
            );
        }
        // Results of unexported, slice and named types.
        assert_eq!(
            return_type_of("func (n *node) addChild(c *node) *node {", "addChild", "go").as_deref(),
            Some("*node")
        );
        assert_eq!(
            return_type_of(
                "func (c *Command) Commands() []*Command {",
                "Commands",
                "go"
            )
            .as_deref(),
            Some("[]*Command")
        );
        assert_eq!(
            return_type_of("func Decode(s string) (MetaData, error) {", "Decode", "go").as_deref(),
            Some("MetaData")
        );
        assert_eq!(
            return_type_of(
                "func (d *Decoder) Decode(v any) (err error) {",
                "Decode",
                "go"
            )
            .as_deref(),
            None
        );
        assert_eq!(
            return_type_of("func (d *Decoder) Close() {", "Close", "go"),
            None
        );
        // A named result's type, not its name.
        assert_eq!(
            return_type_of("func newNode() (nn *node, err error) {", "newNode", "go").as_deref(),
            Some("*node")
        );
        assert!(is_super_word("parent", "php") && !is_super_word("parent", "go"));
        assert!(is_super_word("base", "csharp") && !is_super_word("base", "typescript"));
        // A function literal's parameter is seen in its body only.
        let lines: Vec<String> = [
            "\tr.Get(\"/\", func(w http.ResponseWriter, r *http.Request) {",
            "\t\tw.Write(nil)",
            "\t})",
            "\tr.Route(\"/x\", nil)",
        ]
        .iter()
        .map(|l| l.to_string())
        .collect();
        assert_eq!(literal_param_end(&lines, 0, "r", "go"), Some(2));
        assert_eq!(literal_param_end(&lines, 3, "r", "go"), None);
        let ts: Vec<String> = ["xs.map((x: Item) => x.id), other)", "{"]
            .iter()
            .map(|l| l.to_string())
            .collect();
        assert_eq!(literal_param_end(&ts, 0, "x", "typescript"), Some(0));
        assert_eq!(
            destructured_in_line("    const { status, ctx: c } = this.parse(input);", "c"),
            Some(("ctx".to_string(), "this.parse(input)".to_string()))
        );
        assert_eq!(
            destructured_in_line("    const c = this.parse(input);", "c"),
            None
        );
        assert_eq!(
            inline_object_return(
                "_parse(input: X): {\n status: Status;\n ctx: Ctx\n} {",
                "_parse"
            )
            .as_deref(),
            Some("\n status: Status;\n ctx: Ctx\n")
        );
        // An exported function's call is not a construction.
        assert_eq!(type_of_expr("cmd.Flags()", "go"), None);
        assert_eq!(type_of_expr("&Server{}", "go").as_deref(), Some("Server"));
        assert_eq!(type_of_expr("v.(*Conn)", "go").as_deref(), Some("Conn"));
        assert_eq!(type_of_expr("c.(*Text).Segment", "go"), None);
        assert_eq!(type_of_expr("&node{}", "go").as_deref(), Some("node"));
        assert_eq!(type_of_expr("opener.previous {", "go"), None);
        assert_eq!(go_declared_ann("\tsl[0].Do()", "sl"), None);
        assert_eq!(go_declared_ann("\tm[k] = v", "m"), None);
        assert_eq!(
            go_declared_ann("\tvar arr [2]Segment", "arr").as_deref(),
            Some("[2]Segment")
        );
        assert_eq!(
            go_declared_ann("\tsl := []*Conn{c}", "sl").as_deref(),
            Some("[]*Conn")
        );
    }

    #[test]
    fn promises_chain_roots_and_lambda_parameters() {
        // A `Promise<T>` is a `T` only once awaited.
        assert_eq!(leading_type("Promise<Session>").as_deref(), Some("Promise"));
        assert_eq!(
            leading_type(awaited_ann("Promise<Session>", true)).as_deref(),
            Some("Session")
        );
        assert_eq!(awaited_ann("Promise<Session>", false), "Promise<Session>");
        assert!(awaits_in_line("  const s = await this.open()", "s"));
        assert!(awaits_in_line("  const s: Session = await open()", "s"));
        assert!(!awaits_in_line("  const s = this.open().then(f)", "s"));
        // The value a chain starts from.
        assert_eq!(
            chain_root("(err as Error)?.message?"),
            Some("(err as Error)")
        );
        assert_eq!(chain_root("resp.raw.data"), Some("resp"));
        assert_eq!(chain_root("this.form!.store"), Some("this"));
        assert_eq!(chain_root("resp"), None);
        assert_eq!(chain_root("z.string().min(2)"), Some("z"));
        assert_eq!(chain_root("string().min(2)"), None);
        assert_eq!(chain_root("(x as T)"), None);
        // Overloads told apart by their arguments.
        assert_eq!(
            call_arity("if (out.prettyPrint() && x)", 9, "prettyPrint"),
            Some(0)
        );
        assert_eq!(call_arity("  f(a, g(b, c), \"x,y\")", 3, "f"), Some(3));
        assert_eq!(call_arity("  f(a < b, c)", 3, "f"), Some(2));
        assert_eq!(
            call_arity("  f(new HashMap<String, Integer>())", 3, "f"),
            Some(1)
        );
        assert_eq!(call_arity("  f(a,", 3, "f"), None);
        assert_eq!(
            param_range(
                "public OutputSettings prettyPrint(boolean pretty) {",
                "prettyPrint"
            ),
            Some((1, 1))
        );
        assert_eq!(
            param_range("void put(std::map<int, int> m, int n = 0);", "put"),
            Some((1, 2))
        );
        assert_eq!(
            param_range("void log(String f, Object... args)", "log"),
            Some((1, usize::MAX))
        );
        assert_eq!(
            param_range("public static string SerializeObject(", "SerializeObject"),
            None
        );
        assert_eq!(chain_start("this.#cache.all().forEach"), 0);
        assert_eq!(chain_start("x = items[0].map"), 4);
        assert_eq!(chain_start("n.FirstChild().(*Text).Segment"), 0);
        assert_eq!(chain_start("(a || b).then"), 9);
        assert_eq!(unclosed_call("this._addCheck({"), Some("this._addCheck"));
        assert_eq!(unclosed_call("new Foo(a, {"), Some("new Foo"));
        assert_eq!(unclosed_call("this.f(a)"), None);
        assert_eq!(unclosed_call("a + f("), None);
        // A value that is one chain: its last call; past its calls, none.
        assert_eq!(
            call_bound_in_line("\tline := n.Lines().At(i)", "line").as_deref(),
            Some("n.Lines().At")
        );
        assert_eq!(
            call_bound_in_line("\tt := n.First().(*Text).Seg", "t"),
            None
        );
        assert_eq!(
            call_bound_in_line("  const sub = obs.subscribe((x) => {", "sub").as_deref(),
            Some("obs.subscribe")
        );
        assert_eq!(
            value_bound_in_line("\tt := n.First().(*Text).Seg", "t").as_deref(),
            Some("n.First().(*Text).Seg")
        );
        assert_eq!(
            value_bound_in_line("\tptr := &p.seg", "ptr").as_deref(),
            Some("p.seg")
        );
        // Go: later results of a call, comma-ok indexes.
        assert_eq!(
            go_later_result_of_call("\tline, seg := r.PeekLine()", "seg"),
            Some(("r.PeekLine".to_string(), 1))
        );
        assert_eq!(
            go_later_result_of_call("\tline, seg := r.PeekLine()", "line"),
            None
        );
        assert_eq!(
            go_later_result_of_call("\tfor _, x := range xs {", "x"),
            None
        );
        assert_eq!(go_result("([]byte, Segment) {", 1), Some("Segment"));
        assert_eq!(go_result("(a, b *T, err error) {", 1), Some("*T"));
        assert_eq!(go_result("(a, b *T, err error) {", 2), Some("error"));
        assert_eq!(
            go_comma_ok_index("\tif c, ok := p.byName[k]; ok {", "c").as_deref(),
            Some("p.byName")
        );
        // Collections' elements.
        assert_eq!(element_of("Map<string, Query> {").as_deref(), Some("Query"));
        assert_eq!(element_of("Set<Query>").as_deref(), Some("Query"));
        assert_eq!(
            constructed_in_line("  readonly xs = new Set<Query>()", "xs").as_deref(),
            Some("Set<Query>")
        );
        // `[A, B].forEach(Extendable => Extendable.create())`: a lambda's
        // parameter named like a class.
        let lines: Vec<String> = [
            "function setup() {",
            "  [Extension, Node].forEach(Extendable => {",
            "    Extendable.create()",
            "  })",
            "  Extendable.create()",
            "}",
        ]
        .iter()
        .map(|l| l.to_string())
        .collect();
        assert!(lambda_param_around(&lines, 2, "Extendable"));
        assert!(!lambda_param_around(&lines, 4, "Extendable"));
        let lines: Vec<String> = ["  xs.map((a, Node) =>", "    Node.create())"]
            .iter()
            .map(|l| l.to_string())
            .collect();
        assert!(lambda_param_around(&lines, 1, "Node"));
    }
}
