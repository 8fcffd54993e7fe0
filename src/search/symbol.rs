//! Owns symbol lookups over the index: definitions by name (exact,
//! case-insensitive, prefix, fuzzy), references of a name, and the outline
//! of one file: which rows to ask for, and how to rank, filter and nest
//! them. Does not build the index (that is `index`) or speak SQL (the rows
//! come from `store`).

use std::collections::{HashMap, HashSet};

use anyhow::Result;
use serde::Serialize;

use crate::error::{ErrorCode, UserError};
use crate::search::graph::{Graph, Resolution, Uses};
pub use crate::search::split_qualified;
use crate::search::{asked_name, last_segment};
use crate::search::{
    is_named_after, is_secondary_path, is_shipped_build, is_test_path, is_type_declaration,
};
use crate::search::{qualifier_segments, segments};
use crate::store::{NameMatch, Store, SymbolRow};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum MatchMode {
    /// Exact, then case-insensitive, then prefix; fuzzy matches fill the
    /// limit only when the name exists in no case (a "did you mean"): they
    /// would be noise next to the definitions asked for, and the fuzzy pass
    /// scans every name (0.5 s over the kernel's 4.7M symbols).
    #[default]
    Auto,
    Exact,
    Prefix,
    Fuzzy,
}

impl MatchMode {
    pub fn parse(s: &str) -> Option<MatchMode> {
        Some(match s.to_ascii_lowercase().as_str() {
            "auto" | "" => MatchMode::Auto,
            "exact" => MatchMode::Exact,
            "prefix" => MatchMode::Prefix,
            "fuzzy" => MatchMode::Fuzzy,
            _ => return None,
        })
    }
}

/// How a hit matched the query, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchKind {
    Exact,
    CaseInsensitive,
    Prefix,
    Fuzzy,
}

impl MatchKind {
    /// Its name as serialized (`case-insensitive`), which the text
    /// answers show too.
    pub fn as_str(self) -> &'static str {
        match self {
            MatchKind::Exact => "exact",
            MatchKind::CaseInsensitive => "case-insensitive",
            MatchKind::Prefix => "prefix",
            MatchKind::Fuzzy => "fuzzy",
        }
    }

    /// Whether the hit is a definition of the name itself, in any case
    /// (not one that only starts with it or is spelled like it).
    pub fn names_it(self) -> bool {
        matches!(self, MatchKind::Exact | MatchKind::CaseInsensitive)
    }
}

#[derive(Debug, Clone)]
pub struct SymbolQuery {
    /// A name, optionally qualified: `parse`, `Config::parse`, `LoginView.post`.
    pub name: String,
    pub kinds: Vec<String>,
    pub lang: Option<String>,
    pub mode: MatchMode,
    pub limit: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct SymbolHit {
    pub name: String,
    pub kind: String,
    pub container: Option<String>,
    /// Empty for a hit past the page (see [`find_symbols`]'s `root`) whose
    /// signature the index keeps as a position.
    pub signature: String,
    pub lang: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    /// Line and column of the name itself.
    pub line: u32,
    pub column: u32,
    #[serde(rename = "match")]
    pub match_kind: MatchKind,
    #[serde(skip)]
    pub line_signature: Option<crate::store::LineSignature>,
}

impl SymbolHit {
    /// The name with its container in the file's language's notation
    /// (`thread_pool::worker_loop_`, `Session.send`), as answers show it.
    pub fn qualified_name(&self) -> String {
        match &self.container {
            Some(c) => crate::search::member_path(&self.lang, &self.kind, c, &self.name),
            None => self.name.clone(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct SymbolResult {
    pub hits: Vec<SymbolHit>,
    /// Matching definitions found (before the limit).
    pub total: usize,
    pub truncated: bool,
    /// Secret values shown as `[redacted: …]` in signatures (filled in by
    /// the service).
    pub redacted: usize,
    /// The qualifier of a qualified name that placed nothing, when the
    /// hits are the bare name's definitions instead
    /// ([`find_symbols_or_bare`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unplaced_qualifier: Option<String>,
    /// Names starting with the one asked for that [`Self::without_prefix_tail`]
    /// left out because definitions of the name itself were found.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub prefix_left_out: usize,
    /// The traits of the `impl Trait for Type` blocks that
    /// [`Self::without_trait_impls`] left out beside the type's own
    /// definition, one per block.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trait_impls_left_out: Vec<String>,
    /// Rust associated types of trait impls named so (`type Value =
    /// Number;` in a serde `Visitor` impl) that [`Self::without_trait_impls`]
    /// left out beside the type's own definition.
    #[serde(skip_serializing_if = "crate::is_zero")]
    pub assoc_types_left_out: usize,
    /// Definitions in build output that [`Self::without_build_copies`]
    /// left out because the source defines the name.
    #[serde(skip_serializing_if = "crate::search::BuildLeftOut::is_none")]
    pub build_output_left_out: crate::search::BuildLeftOut,
}

/// `7 more names start with `New``: what [`SymbolResult::without_prefix_tail`]
/// left out, as the CLI's note and MCP's hint say it.
pub fn prefix_left_out_summary(name: &str, count: usize) -> String {
    let (names, s) = if count == 1 {
        ("name", "s")
    } else {
        ("names", "")
    };
    format!("{count} more {names} start{s} with `{name}`")
}

/// `79 trait impls of `Bytes` left out (Send, Sync, Drop, Clone, Buf,
/// Deref, 20 more)`: each trait named once, the first six.
pub fn trait_impls_summary(name: &str, traits: &[String]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for t in traits {
        if !names.contains(&t.as_str()) {
            names.push(t);
        }
    }
    let shown: Vec<&str> = names.iter().take(6).copied().collect();
    let more = names.len().saturating_sub(shown.len());
    let more = if more > 0 {
        format!(", {more} more")
    } else {
        String::new()
    };
    let s = if traits.len() == 1 { "" } else { "s" };
    format!(
        "{} trait impl{s} of `{name}` left out ({}{more})",
        traits.len(),
        shown.join(", ")
    )
}

/// `N associated types of trait impls left out`: what
/// [`SymbolResult::without_trait_impls`] left out of them, as the CLI's
/// note and MCP's hint say it.
pub fn assoc_types_summary(count: usize) -> Option<String> {
    (count > 0).then(|| {
        format!(
            "{} of trait impls (`type X = …;`) left out",
            crate::text::counted(count as u64, "associated type")
        )
    })
}

/// A Rust associated type of an impl (`type Value = Number;` inside
/// `impl Visitor for NumberVisitor`): one line, no `pub` (a trait impl's
/// items take none), a value, inside a type (a CamelCase container; a
/// module's alias has a snake_case one or none).
fn is_assoc_type(h: &SymbolHit) -> bool {
    h.lang == "rust"
        && h.kind == "type"
        && h.start_line == h.end_line
        && h.signature.trim_start().starts_with("type ")
        && h.signature.contains('=')
        && h.container
            .as_deref()
            .and_then(|c| last_segment(c).chars().next())
            .is_some_and(|c| c.is_ascii_uppercase())
}

/// A type's own definition, matched by its name exactly.
fn is_type_definition(h: &SymbolHit) -> bool {
    h.match_kind == MatchKind::Exact
        && matches!(
            h.kind.as_str(),
            "struct" | "enum" | "union" | "trait" | "class" | "interface" | "type"
        )
}

/// The trait an `impl Trait for Type` block implements (`Buf` of `impl Buf
/// for Bytes {`, `From` of `impl<T> From<Vec<T>> for Bytes`); `None` for
/// an inherent `impl Bytes` or anything else.
pub fn impl_trait(signature: &str) -> Option<String> {
    let s = signature.trim();
    let s = s.strip_prefix("unsafe ").unwrap_or(s).trim_start();
    let mut rest = s.strip_prefix("impl")?;
    // `impl<T: Buf>`: the generics before the trait, brackets balanced.
    if rest.starts_with('<') {
        let mut depth = 0usize;
        let mut end = None;
        for (i, c) in rest.char_indices() {
            match c {
                '<' => depth += 1,
                '>' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = Some(i + 1);
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &rest[end?..];
    }
    let (head, _) = rest.split_once(" for ")?;
    let head = head.trim().trim_start_matches('!');
    let name = head.split('<').next().unwrap_or(head).trim();
    let name = name.rsplit("::").next().unwrap_or(name);
    (!name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        .then(|| name.to_string())
}

impl SymbolResult {
    /// Whether [`Self::without_trait_impls`] would leave something out:
    /// the type itself and an `impl` block of it are among the hits.
    pub fn has_trait_impls_to_fold(&self, mode: MatchMode, kinds: &[String]) -> bool {
        mode == MatchMode::Auto
            && kinds.is_empty()
            && self.hits.iter().any(is_type_definition)
            && self.hits.iter().any(|h| h.kind == "impl")
    }

    /// Under the default match with no kind asked for, a type's own
    /// definition leaves out its trait impls (`impl Buf for Bytes`),
    /// naming their traits in [`Self::trait_impls_left_out`]: `symbol
    /// Bytes` had been a page of 34 `impl Bytes` rows around the struct.
    /// The type's inherent `impl` blocks stay. Needs the hits'
    /// signatures.
    pub fn without_trait_impls(&mut self, mode: MatchMode, kinds: &[String]) {
        // A trait impl's associated types go with it: serde_json's `symbol
        // Value` had listed 17 `type Value = …;` rows of its Visitor and
        // Deserializer impls after `enum Value`.
        if mode == MatchMode::Auto
            && kinds.is_empty()
            && self
                .hits
                .iter()
                .any(|h| is_type_definition(h) && !is_assoc_type(h))
        {
            let before = self.hits.len();
            self.hits.retain(|h| !is_assoc_type(h));
            self.assoc_types_left_out = before - self.hits.len();
            self.total = self.total.saturating_sub(self.assoc_types_left_out);
        }
        if !self.has_trait_impls_to_fold(mode, kinds) {
            return;
        }
        let mut traits = Vec::new();
        self.hits.retain(
            |h| match (h.kind == "impl").then(|| impl_trait(&h.signature)) {
                Some(Some(t)) => {
                    traits.push(t);
                    false
                }
                _ => true,
            },
        );
        self.total = self.total.saturating_sub(traits.len());
        self.trait_impls_left_out = traits;
    }

    /// Under the default match, an answer with a definition of the name
    /// itself (in any case) in the source leaves out the build's copies
    /// (`copies`, [`crate::search::build_copies`]), counted in
    /// [`Self::build_output_left_out`]: axios's `symbol mergeConfig` listed
    /// three bundles' copies and a minified export list before its type
    /// declaration; gesture-handler's `symbol PanGestureHandler` had 12 of
    /// 20 definitions in `lib/`. `--exact` (`match: "exact"`) lists them.
    pub fn without_build_copies(&mut self, mode: MatchMode, copies: &HashSet<String>) {
        let is_copy = |h: &SymbolHit| copies.contains(&h.path);
        if mode != MatchMode::Auto
            || !self
                .hits
                .iter()
                .any(|h| h.match_kind.names_it() && !is_copy(h))
        {
            return;
        }
        let before = self.hits.len();
        // Counted: the copies of the name itself, which `--exact` lists
        // (those of names that only start with it go unsaid).
        let copies = self
            .hits
            .iter()
            .filter(|h| h.match_kind.names_it() && is_copy(h))
            .count();
        self.hits.retain(|h| !is_copy(h));
        self.total = self.total.saturating_sub(before - self.hits.len());
        self.build_output_left_out.definitions = copies;
    }

    /// Under the default match, an answer that has definitions of the
    /// name itself (in any case) drops the names that only start with it,
    /// counting them in [`Self::prefix_left_out`]: `echo.New` had listed
    /// its one definition and then seven of `NewRouter`, `newNode`, ….
    /// Only a page holding every definition of the name knows how many
    /// start with it (they rank after), so a full page of them is kept.
    /// A qualified name (`click.echo`) asked for one definition: its tail
    /// goes uncounted, with no note.
    ///
    /// When the name matched only case-blind, the names starting with it
    /// as written stay, after them: Go's field `notFoundHandler` is not
    /// the method `NotFoundHandler` renamed `NotFoundHandlerQA`, and the
    /// answer shows both (QA: `symbol Mux.NotFoundHandler` had answered
    /// the field alone, with no word of the method).
    ///
    /// Names spelled as asked also leave out those matching only
    /// case-blind, counted likewise, in a language that tells them apart:
    /// `symbol Value` had listed pflag's interface `Value` and then
    /// fifteen `xxxSliceValue.value` fields. PHP's functions and classes
    /// are named case-blind, so its case-blind definitions stay.
    pub fn without_prefix_tail(&mut self, mode: MatchMode, asked: &str) {
        let exact = self.hits.iter().filter(|h| h.match_kind.names_it()).count();
        if mode != MatchMode::Auto || exact == 0 || (exact == self.hits.len() && self.truncated) {
            return;
        }
        let (qualifier, bare) = crate::search::split_qualified(asked.trim());
        let case_blind_only = !self.hits.iter().any(|h| h.match_kind == MatchKind::Exact);
        let keep = |h: &SymbolHit| match h.match_kind {
            MatchKind::Exact => true,
            MatchKind::CaseInsensitive => case_blind_only || h.lang == "php",
            MatchKind::Prefix => case_blind_only && h.name.starts_with(bare.as_str()),
            MatchKind::Fuzzy => false,
        };
        if self.hits.iter().all(keep) {
            return;
        }
        self.hits.retain(keep);
        let kept = self.hits.len();
        self.prefix_left_out = if qualifier.is_some() {
            0
        } else {
            self.total.saturating_sub(kept)
        };
        self.total = kept;
        self.truncated = false;
    }

    /// Whether the hits are only names spelled like the one asked for or,
    /// unless prefixes were asked for, starting with it, which no
    /// definition has (a "did you mean": `unquote` after its rename to
    /// `unquote_qa`), when such matches were not asked for: shown, but
    /// nothing was found.
    pub fn only_spelled_like(&self, mode: MatchMode) -> bool {
        let look_alike = |m: MatchKind| match mode {
            MatchMode::Fuzzy => false,
            MatchMode::Prefix => m == MatchKind::Fuzzy,
            MatchMode::Auto | MatchMode::Exact => matches!(m, MatchKind::Prefix | MatchKind::Fuzzy),
        };
        !self.hits.is_empty() && self.hits.iter().all(|h| look_alike(h.match_kind))
    }

    /// How the hits of an [`only_spelled_like`](Self::only_spelled_like)
    /// answer resemble the name: `starting with it`, `spelled like it`, or
    /// both; and the `match` mode that lists them.
    pub fn look_alike(&self) -> (&'static str, &'static str) {
        let prefix = self.hits.iter().any(|h| h.match_kind == MatchKind::Prefix);
        let fuzzy = self.hits.iter().any(|h| h.match_kind == MatchKind::Fuzzy);
        match (prefix, fuzzy) {
            (true, false) => ("starting with it", "prefix"),
            (true, true) => ("starting with it or spelled like it", "fuzzy"),
            _ => ("spelled like it", "fuzzy"),
        }
    }
}

/// Normalises kind aliases (`fn`, `def`, `func` → `function`, ...).
pub fn normalize_kind(kind: &str) -> String {
    let k = kind.trim().to_ascii_lowercase();
    match k.as_str() {
        "fn" | "func" | "def" | "functions" => "function".into(),
        "classes" => "class".into(),
        "methods" | "meth" => "method".into(),
        "const" | "constants" => "constant".into(),
        "var" | "let" | "variables" => "variable".into(),
        "mod" | "package" | "modules" => "module".into(),
        "iface" | "protocol" => "interface".into(),
        "typedef" | "alias" => "type".into(),
        _ => k,
    }
}

/// The known kinds, for error hints.
pub const KINDS: &[&str] = &[
    "function",
    "method",
    "class",
    "struct",
    "enum",
    "interface",
    "trait",
    "module",
    "namespace",
    "constant",
    "variable",
    "type",
    "macro",
    "field",
    "impl",
];

fn kind_rank(kind: &str) -> u8 {
    match kind {
        "class" | "struct" | "interface" | "trait" | "enum" | "type" | "function" | "method"
        | "macro" => 0,
        "module" | "namespace" | "constant" => 1,
        "field" | "variable" => 2,
        "impl" => 3,
        _ => 2,
    }
}

fn row_to_hit(r: SymbolRow, m: MatchKind) -> SymbolHit {
    SymbolHit {
        name: r.name,
        kind: r.kind,
        container: r.container,
        signature: r.signature,
        lang: r.lang,
        path: r.path,
        start_line: r.start_line,
        end_line: r.end_line,
        line: r.name_line,
        column: r.name_col,
        match_kind: m,
        line_signature: r.line_signature,
    }
}

/// Rows fetched per tier at most; beyond this a name is too common to rank
/// every definition and the result says it is truncated.
const TIER_CAP: usize = 5000;

/// Finds definitions, ranked exact > case-insensitive > prefix > fuzzy, then
/// by kind relevance, then non-test before test paths, then path and line.
/// With `root`, the hits returned get the signatures the index keeps as
/// positions, read from their files (ranking never needs those: see
/// `source::line_signatures`); without it (a caller that shows no
/// signature) they stay empty.
pub fn find_symbols(
    store: &Store,
    root: Option<&std::path::Path>,
    q: &SymbolQuery,
) -> Result<SymbolResult> {
    // `struct strbuf`, `def parse`: a definition of the kinds the keyword
    // declares, named so (in any case), else any definition named so (as
    // hybrid search reads it too).
    if let Some((name, kinds)) = crate::search::declared_name(q.name.trim()) {
        let named = SymbolQuery {
            name: name.to_string(),
            ..q.clone()
        };
        if q.kinds.is_empty() {
            let typed = SymbolQuery {
                kinds: kinds.iter().map(|k| (*k).to_string()).collect(),
                ..named.clone()
            };
            let mut r = find_symbols(store, root, &typed)?;
            if r.hits.iter().any(|h| h.match_kind.names_it()) {
                // The keyword's own kind first among equal matches: `struct
                // client` before a `typedef … *client`.
                r.hits.sort_by_key(|h| {
                    (
                        h.match_kind,
                        kinds
                            .iter()
                            .position(|k| *k == h.kind)
                            .unwrap_or(kinds.len()),
                    )
                });
                return Ok(r);
            }
        }
        return find_symbols(store, root, &named);
    }
    let asked = asked_name(q.name.trim());
    let asked = asked.as_ref();
    let (container, name) = split_as_defined(store, asked)?;
    if name.is_empty() {
        return Err(
            UserError::with_code(ErrorCode::InvalidQuery, "empty symbol name")
                .hint("give a name such as `parse_config` or `Config::parse`")
                .into(),
        );
    }
    if name.len() > 512 {
        return Err(UserError::new("symbol name is longer than 512 characters")
            .hint("give just the identifier")
            .into());
    }
    let kinds: Vec<String> = q
        .kinds
        .iter()
        .map(|k| normalize_kind(k))
        .filter(|k| !k.is_empty())
        .collect();
    for k in &kinds {
        if !KINDS.contains(&k.as_str()) {
            return Err(UserError::new(format!("unknown kind `{k}`"))
                .hint(format!("use one of: {}", KINDS.join(", ")))
                .into());
        }
    }
    let lang = match &q.lang {
        Some(l) => Some(super::LangFilter::parse(l, |l| {
            l != crate::model::Lang::Docs
        })?),
        None => None,
    };
    // `Config::parse` names a container; `store::Store`, `hybrid.fuse`,
    // `cobra.Command` name a module, which is a file or its directory: a
    // definition in such a file counts when no definition has that container.
    // Names meet case-blind; `spelled` asks for the qualifier as written.
    let same = |a: &str, b: &str, spelled: bool| {
        if spelled {
            a == b
        } else {
            a.eq_ignore_ascii_case(b)
        }
    };
    let container_fits = |h: &SymbolHit, spelled: bool| {
        container.as_deref().is_none_or(|c| {
            h.container
                .as_deref()
                .is_some_and(|hc| same(last_segment(hc), c, spelled))
        })
    };
    // Go, Java, Kotlin and Scala name a package by a `package` line, which
    // the path need not spell: `pgx.Connect` is `func Connect` in the
    // module root's `conn.go` (`package pgx`, module
    // `github.com/jackc/pgx/v4`); `kotlinx.coroutines.launch` is in
    // `common/…/src/Builders.common.kt` (Kotlin's source sets leave the
    // package's directories out).
    let packages = FilePackages::new(root, store);
    let module_fits = |h: &SymbolHit, spelled: bool| {
        container.as_deref().is_some_and(|c| {
            module_names(&h.path).any(|m| same(m, c, spelled))
                || packages.of(h).is_some_and(|p| same(&p, c, spelled))
        })
    };
    let in_container = |h: &SymbolHit| container_fits(h, false);
    let in_module = |h: &SymbolHit| module_fits(h, false);
    // Past the file and its directory, any enclosing directory: a package
    // that re-exports the name (`models.CharField` is defined in
    // `django/db/models/fields/__init__.py`), counted only when no exact
    // name matched closer.
    let in_package = |h: &SymbolHit| {
        container.as_deref().is_some_and(|c| {
            h.path
                .rsplit_once('/')
                .is_some_and(|(dir, _)| dir.split('/').any(|d| d.eq_ignore_ascii_case(c)))
        })
    };
    let wanted = |h: &SymbolHit| {
        (kinds.is_empty() || kinds.iter().any(|k| k == &h.kind))
            && lang.is_none_or(|l| l.accepts(&h.path, &h.lang))
    };
    let mut hits: Vec<SymbolHit> = Vec::new();
    // Exact and case-insensitive names in an enclosing package only.
    let mut deeper: Vec<SymbolHit> = Vec::new();
    let mut capped = false;
    let mut run = |name: &str,
                   how: NameMatch,
                   m: MatchKind,
                   hits: &mut Vec<SymbolHit>,
                   deeper: &mut Vec<SymbolHit>|
     -> Result<usize> {
        let rows = store.symbol_rows(name, how, TIER_CAP + 1)?;
        let read = rows.len();
        for (n, row) in rows.into_iter().enumerate() {
            if n >= TIER_CAP {
                capped = true;
                break;
            }
            let h = row_to_hit(row, m);
            if !wanted(&h) {
                continue;
            }
            if in_container(&h) || in_module(&h) {
                hits.push(h);
            } else if m.names_it() && in_package(&h) {
                deeper.push(h);
            }
        }
        Ok(read)
    };
    let mut named = false;
    // Whether the name is defined at all (any container, kind, language).
    let mut defined = false;
    match q.mode {
        MatchMode::Exact => {
            run(
                &name,
                NameMatch::Exact,
                MatchKind::Exact,
                &mut hits,
                &mut deeper,
            )?;
        }
        MatchMode::Prefix | MatchMode::Auto => {
            defined = run(
                &name,
                NameMatch::Exact,
                MatchKind::Exact,
                &mut hits,
                &mut deeper,
            )? > 0;
            defined |= run(
                &name,
                NameMatch::CaseInsensitive,
                MatchKind::CaseInsensitive,
                &mut hits,
                &mut deeper,
            )? > 0;
            named = !hits.is_empty();
            let mut pre = Vec::new();
            run(
                &name,
                NameMatch::Prefix,
                MatchKind::Prefix,
                &mut pre,
                &mut deeper,
            )?;
            pre.retain(|h| !h.name.eq_ignore_ascii_case(&name));
            hits.extend(pre);
        }
        MatchMode::Fuzzy => {}
    }
    if !deeper.is_empty() && !hits.iter().any(|h| h.match_kind.names_it()) {
        named = true;
        hits.append(&mut deeper);
    }
    // Names spelled like it, when nothing is named so: not for a qualified
    // name whose last part is defined elsewhere (`file_operations.open`:
    // `open` is spelled right, only its container differs), which on the
    // kernel cost half a second over every name.
    let misspelled = !(defined && container.is_some());
    // Each name spelled like it, by how closely ([`fuzzy_names`]).
    let mut fuzzy_rank: HashMap<String, usize> = HashMap::new();
    if q.mode == MatchMode::Fuzzy
        || (q.mode == MatchMode::Auto && !named && misspelled && hits.len() < q.limit)
    {
        let names = fuzzy_names(store, &name, 50)?;
        for (rank, n) in names.into_iter().enumerate() {
            if hits.iter().any(|h| h.name == n) {
                continue;
            }
            fuzzy_rank.insert(n.clone(), rank);
            let mut tier = Vec::new();
            run(
                &n,
                NameMatch::Exact,
                MatchKind::Fuzzy,
                &mut tier,
                &mut deeper,
            )?;
            hits.extend(tier);
            if hits.len() >= q.limit.saturating_mul(4).max(50) {
                break;
            }
        }
    }
    // An enclosing type or module of that name wins over a file or
    // directory of that name, unless all it holds of the name are impl
    // blocks or an OCaml signature's specifications
    // ([`signature_specs`]): `onepass::DFA` is the struct in
    // `dfa/onepass.rs`, not the `impl Remappable for DFA` inside another
    // file's `mod onepass`; `Monad.Make` is the functor `monad.ml` defines
    // as well as its specification in `monad_intf.ml`'s `module type Monad`.
    // Unless the container matches only case-blind while a module is
    // spelled as written: `flask.url_for` is the function of the package
    // `flask/`, not the method `Flask.url_for`. Only a function of the
    // module itself so wins: `runtime::block_on` is still tokio's
    // `Runtime::block_on`, not only the other types' `block_on` methods in
    // `runtime/`.
    // A bare name keeps every hit either way: only a qualifier reads them.
    let specs = if container.is_some() {
        signature_specs(store, &hits, &in_container)?
    } else {
        vec![false; hits.len()]
    };
    if hits
        .iter()
        .zip(&specs)
        .any(|(h, &spec)| in_container(h) && h.kind != "impl" && !spec)
    {
        let module_level = |h: &SymbolHit| module_fits(h, true) && !in_container(h);
        // The module's own function of the name: not a nested closure
        // (fastify's `function send` inside `sendTrailer` in `reply.js`)
        // nor another type's member there, nor a name that only starts
        // with it (`sendTrailer` itself), which had put `reply.send` on
        // the closure instead of the method `Reply.send`.
        let top = |h: &SymbolHit| module_level(h) && h.container.is_none();
        if !hits.iter().any(|h| container_fits(h, true))
            && hits.iter().any(|h| top(h) && h.match_kind.names_it())
        {
            hits.retain(|h| top(h) || (module_level(h) && !h.match_kind.names_it()));
        } else {
            hits.retain(in_container);
        }
    }
    // A module's own definition before a class's member of the same name
    // inside it: `click.command` is the decorator at the top of
    // `click/decorators.py`, not the method `Group.command` in
    // `click/core.py` (which `click.Group.command` asks for).
    // (Only a definition of the name itself so wins: a prefix match, the
    // test class `LaunchLazyTest` for `kotlinx.coroutines.launch`, does not.)
    if container.is_some()
        && !hits.iter().any(in_container)
        && hits
            .iter()
            .any(|h| h.container.is_none() && in_module(h) && h.match_kind.names_it())
    {
        hits.retain(|h| h.container.is_none() || !in_module(h));
    }
    // `HttpConnection.Request.timeout`: the outer qualifiers too, when
    // some hit has them (as its containers, or its file or directories);
    // else the longest tail of them some hit has: a root the paths do not
    // spell (`hyper::server::conn::http1::Builder` in
    // `hyper-1.4.1/src/server/conn/http1.rs`, Zig's `std.`) still leaves
    // `server::conn::http1` to choose by.
    let qualifier = qualifier_segments(asked);
    // The namespaces and inline modules around a definition qualify it
    // too: `Catch::Session::applyCommandLine` is the out-of-line method
    // (container `Session`) inside `namespace Catch { … }` of
    // `catch_session.cpp`, which wins over a definition whose file alone
    // is named `catch` (Catch2's amalgamated `catch.hpp`).
    let mut qualified = false;
    if qualifier.len() > 1 && hits.len() <= ENCLOSING_HITS_READ {
        let enclosed = enclosing_containers(store, &hits)?;
        let named: Vec<bool> = hits
            .iter()
            .zip(&enclosed)
            .map(|(h, outer)| {
                let containers = outer.as_deref().or(h.container.as_deref());
                whole_qualifier(&qualifier, containers, "")
            })
            .collect();
        qualified = named.contains(&true);
        if qualified {
            let mut keep = named.into_iter();
            hits.retain(|_| keep.next().unwrap_or(false));
        }
    }
    for skip in 0..qualifier.len().saturating_sub(1) {
        if qualified {
            break;
        }
        let tail = &qualifier[skip..];
        let whole = |h: &SymbolHit| match packages.of(h).filter(|_| h.lang == "go") {
            // A Go package stands as one more directory of the file.
            Some(p) => whole_qualifier(tail, h.container.as_deref(), &format!("{p}/{}", h.path)),
            None => whole_qualifier(tail, h.container.as_deref(), &h.path),
        };
        if hits.iter().any(whole) {
            hits.retain(whole);
            break;
        }
    }
    let mut exported: HashSet<(String, u32)> = HashSet::new();
    // `tokio::spawn`, `serde::Deserialize`: a name a module's root file
    // re-exports (`pub use task::spawn;` in `lib.rs`, `from .decorators
    // import command` in `__init__.py`) is answered by the definition the
    // re-export resolves to.
    // Only looser matches (`werkzeug.Request` finding a field `request`
    // and names starting with it) give way to a re-export too.
    if !hits.iter().any(|h| h.match_kind == MatchKind::Exact)
        && q.mode != MatchMode::Fuzzy
        && let Some(module) = container.as_deref()
    {
        let found = reexported(store, root, module, &name, &wanted)?;
        if !found.is_empty() || hits.is_empty() {
            hits = found;
        }
    } else if hits
        .iter()
        .filter(|h| h.match_kind == MatchKind::Exact)
        .count()
        > 1
        && q.mode != MatchMode::Fuzzy
        && let Some(module) = container.as_deref()
    {
        // Several definitions the qualifier places (`werkzeug.Response`:
        // `sansio/response.py` and `wrappers/response.py`): the one the
        // module's root re-exports first.
        exported = reexported(store, root, module, &name, &wanted)?
            .into_iter()
            .map(|e| (e.path, e.line))
            .collect();
    }
    // A one-word receiver that matches nothing, answered by the name's
    // exact definitions:
    // - `self.parse_config`, `this.render`, `cls.create`: the enclosing
    //   class, which the name does not say; all of them answer.
    // - `settings.INSTALLED_APPS`, `config.DEFAULT_PORT`: a module-level
    //   setting reached through an object the qualifier does not name as a
    //   container or module; those at module level in a file with the
    //   object's name among its stem's words (`global_settings.py`,
    //   `DefaultConfig.java`) answer. Any other definition of the name is
    //   not the object's (`os.path` must not find a project's `path`, nor
    //   `request.user` another variable's `user`).
    if hits.is_empty()
        && q.mode != MatchMode::Fuzzy
        && let [receiver] = qualifier.as_slice()
    {
        let exact = SymbolQuery {
            name: name.clone(),
            mode: MatchMode::Exact,
            ..q.clone()
        };
        let mut found = find_symbols(store, root, &exact)?;
        if matches!(*receiver, "self" | "this" | "cls" | "super") {
            return Ok(found);
        }
        let object = receiver.to_lowercase();
        found.hits.retain(|h| {
            h.container.is_none()
                && crate::text::split_identifier(crate::search::file_stem(&h.path))
                    .contains(&object)
        });
        if !found.hits.is_empty() {
            found.total = found.hits.len();
            found.truncated = false;
            return Ok(found);
        }
    }
    // `select!`, `vec!`: a Rust macro is defined without its `!` (Ruby's
    // `save!` keeps it, and is found above).
    if hits.is_empty()
        && let Some(bare) = q.name.trim().strip_suffix('!')
        && !bare.is_empty()
        && !bare.ends_with('!')
    {
        let q = SymbolQuery {
            name: bare.to_string(),
            ..q.clone()
        };
        return find_symbols(store, root, &q);
    }
    // C's forward typedef (`typedef struct ngx_command_s ngx_command_t;`
    // in nginx's `ngx_core.h`, glib's `typedef struct _GList GList;`)
    // names a struct defined elsewhere: that definition, with its body,
    // answers the name too, before the one-line typedef
    // ([`is_declaration`]).
    if q.mode != MatchMode::Fuzzy {
        let mut tags: Vec<String> = hits
            .iter()
            .filter(|h| h.match_kind.names_it())
            .filter_map(forward_typedef_tag)
            .map(str::to_string)
            .collect();
        tags.sort();
        tags.dedup();
        for tag in &tags {
            for row in store.symbol_rows(tag, NameMatch::Exact, TYPEDEF_TAGS_READ)? {
                let h = row_to_hit(row, MatchKind::Exact);
                if matches!(h.kind.as_str(), "struct" | "union" | "enum")
                    && h.end_line > h.start_line
                    && wanted(&h)
                    && !hits
                        .iter()
                        .any(|o| o.path == h.path && o.start_line == h.start_line)
                {
                    hits.push(h);
                }
            }
        }
    }
    // Names spelled like it come last, in the order of how closely they
    // are spelled so (`get_queryset` for `get_qeryset` before
    // `_get_queryset`), each name's definitions by `hit_order`.
    hits.sort_by_cached_key(|h| {
        let fuzzy = (h.match_kind == MatchKind::Fuzzy)
            .then(|| fuzzy_rank.get(&h.name).copied().unwrap_or(usize::MAX));
        let shadowed = !exported.is_empty() && !exported.contains(&(h.path.clone(), h.line));
        // A container spelled as asked before one matching case-blind:
        // Go's `echo.(*context).JSON` is the method of `context`, not the
        // interface `Context`'s.
        let respelled = container_fits(h, false) && !container_fits(h, true);
        (fuzzy, shadowed, h.match_kind, respelled, hit_order(h))
    });
    let total = hits.len();
    hits.truncate(q.limit);
    read_signatures(root, &mut hits);
    Ok(SymbolResult {
        truncated: total > hits.len() || capped,
        total,
        hits,
        redacted: 0,
        unplaced_qualifier: None,
        prefix_left_out: 0,
        trait_impls_left_out: Vec::new(),
        assoc_types_left_out: 0,
        build_output_left_out: crate::search::BuildLeftOut::default(),
    })
}

/// The signatures of a page's hits that the index keeps as a position,
/// read from the files under `root` (without one they stay empty).
fn read_signatures(root: Option<&std::path::Path>, hits: &mut [SymbolHit]) {
    if let Some(root) = root {
        let mut sources = crate::source::Sources::new(root);
        for h in hits {
            if let Some(at) = h.line_signature.take() {
                h.signature = sources.line_signature(&h.path, &at, h.line);
            }
        }
    }
}

/// What an answer from [`find_symbols_or_bare`]'s fallback says about
/// itself, for `name` as asked and the qualifier that placed nothing.
pub fn unplaced_note(name: &str, qualifier: &str) -> String {
    let bare = split_qualified(asked_name(name.trim()).as_ref()).1;
    format!(
        "nothing named `{bare}` inside `{qualifier}` in the index: these are the definitions named `{bare}`"
    )
}

/// When [`find_symbols_or_bare`] answers a qualifier that placed nothing
/// with the bare name's definitions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unplaced {
    /// Always (a search ranks them among its other evidence).
    Bare,
    /// Only when the qualifier is itself the name of a definition in the
    /// index (`AsteroidPipeline`, a Julia module): `os.path` and
    /// `request.user` name nothing of the project's, and a definition of
    /// `path` elsewhere is not what they ask for.
    IfDefined,
}

/// [`split_qualified`], unless the whole name is defined: R names hold
/// dots (`status_code.response`, the S3 method; R6's `Token2.0`), and such
/// a definition is what the name asks for.
pub fn split_as_defined(store: &Store, asked: &str) -> Result<(Option<String>, String)> {
    let split = split_qualified(asked);
    if split.0.is_some()
        && !store
            .symbol_rows(asked.trim(), NameMatch::Exact, 1)?
            .is_empty()
    {
        return Ok((None, asked.trim().to_string()));
    }
    Ok(split)
}

/// [`find_symbols`], and when a qualified name finds nothing, the bare
/// name's exact definitions, with the qualifier that placed nothing in
/// [`SymbolResult::unplaced_qualifier`]. A qualifier the index cannot
/// place is common: a Julia module that `include`s the file, a Ruby module
/// reopened elsewhere, an OCaml functor's output (`Imperative.Matrix.make`).
pub fn find_symbols_or_bare(
    store: &Store,
    root: Option<&std::path::Path>,
    q: &SymbolQuery,
    when: Unplaced,
) -> Result<SymbolResult> {
    let r = find_symbols(store, root, q)?;
    // Only names that start like it (`Sequel.ConnectionPool` for
    // `Sequel.connect`) are no answer when the bare name is defined.
    let inexact = q.mode == MatchMode::Auto
        && !r.hits.is_empty()
        && r.hits
            .iter()
            .all(|h| matches!(h.match_kind, MatchKind::Prefix | MatchKind::Fuzzy));
    if (r.total > 0 && !inexact) || crate::search::declared_name(q.name.trim()).is_some() {
        return Ok(r);
    }
    let asked = asked_name(q.name.trim());
    // A name defined whole (`status_code.response`) was found above.
    let (Some(qualifier), name) = split_qualified(asked.as_ref()) else {
        return Ok(r);
    };
    if when == Unplaced::IfDefined
        && store
            .symbol_rows(&qualifier, NameMatch::Exact, 1)?
            .is_empty()
    {
        return Ok(r);
    }
    // Every exact definition, cut to the page only after those the
    // qualifier names have moved to the front.
    let bare = SymbolQuery {
        name,
        mode: MatchMode::Exact,
        limit: usize::MAX,
        ..q.clone()
    };
    let mut found = find_symbols(store, None, &bare)?;
    if found.total == 0 && inexact {
        return Ok(r);
    }
    if found.total > 0 {
        // Those in a file or under a container the qualifier's segments
        // name first: `Imperative.Matrix.make` → `imperative.ml`'s `make`.
        let outer = qualifier_segments(asked.as_ref());
        let named = |h: &SymbolHit| {
            outer.iter().any(|seg| {
                module_names(&h.path).any(|m| m.eq_ignore_ascii_case(seg))
                    || h.container
                        .as_deref()
                        .is_some_and(|c| last_segment(c).eq_ignore_ascii_case(seg))
            })
        };
        found.hits.sort_by_key(|h| !named(h));
        found.hits.truncate(q.limit);
        found.truncated |= found.total > found.hits.len();
        read_signatures(root, &mut found.hits);
        found.unplaced_qualifier = Some(qualifier);
    }
    Ok(found)
}

/// The definitions of `name` that a root file of `module` re-exports
/// ([`is_module_root`]): its import rows bringing in `name` (or aliasing
/// something as `name`), resolved to project files as `imports` resolves
/// them, and the exact definitions of the imported name there.
fn reexported(
    store: &Store,
    root: Option<&std::path::Path>,
    module: &str,
    name: &str,
    wanted: &dyn Fn(&SymbolHit) -> bool,
) -> Result<Vec<SymbolHit>> {
    let is_root =
        |path: &str| is_module_root(path, module) || is_rust_crate_root(root, path, module);
    // A name the root file defines itself, at its top level: reqwest's
    // `pub async fn get` in `lib.rs` for `reqwest::get` (it had been
    // "no definition").
    let own: Vec<SymbolHit> = store
        .symbol_rows(name, NameMatch::Exact, TIER_CAP)?
        .into_iter()
        .map(|row| row_to_hit(row, MatchKind::Exact))
        .filter(|h| h.container.is_none() && is_root(&h.path) && wanted(h))
        .collect();
    if !own.is_empty() {
        return Ok(own);
    }
    let mut rows = store.import_rows_by_key(&[name.to_string()])?;
    rows.extend(store.import_rows_by_alias(name)?);
    // `pub use self::internal::*;` in nom's `lib.rs`: a glob re-exports
    // every public name of the module it names (`nom::IResult`,
    // `crate::Err`), as does Python's `from .x import *`.
    let globs: Vec<_> = store
        .import_rows_by_key(&["*".to_string()])?
        .into_iter()
        .filter(|r| r.name.as_deref() == Some("*") && is_root(&r.path))
        .collect();
    let roots: Vec<_> = rows
        .into_iter()
        .filter(|r| is_root(&r.path))
        .filter(|r| r.alias.as_deref().or(r.name.as_deref()) == Some(name))
        .chain(globs)
        .collect();
    if roots.is_empty() {
        return Ok(Vec::new());
    }
    let paths = store.file_paths()?;
    let project = crate::imports::Project::new(paths.values().map(|(p, _)| p.as_str()));
    let mut out = Vec::new();
    for r in &roots {
        let Some(lang) = crate::model::Lang::from_name(&r.lang) else {
            continue;
        };
        let glob = r.name.as_deref() == Some("*");
        let Some(crate::imports::Target::File(target)) = project.resolve(
            lang,
            &r.path,
            &r.module,
            r.name.as_deref().filter(|_| !glob),
            &r.kind,
        ) else {
            continue;
        };
        let defined = r.name.as_deref().filter(|_| !glob).unwrap_or(name);
        // A package's root may re-export what a subpackage's root
        // re-exports in turn (werkzeug's `__init__.py` takes `Request`
        // from `.wrappers`, whose `__init__.py` takes it from
        // `.request`): followed a few files on, by name.
        let definitions: Vec<SymbolHit> = store
            .symbol_rows(defined, NameMatch::Exact, TIER_CAP)?
            .into_iter()
            .map(|row| row_to_hit(row, MatchKind::Exact))
            .filter(|h| wanted(h))
            .collect();
        let mut onward: Option<Vec<crate::store::ImportRow>> = None;
        let mut target = target;
        for _ in 0..3 {
            let here: Vec<&SymbolHit> = definitions.iter().filter(|h| h.path == target).collect();
            if !here.is_empty() {
                for h in here {
                    if !out
                        .iter()
                        .any(|o: &SymbolHit| o.path == h.path && o.line == h.line)
                    {
                        out.push(h.clone());
                    }
                }
                break;
            }
            let imports = match &mut onward {
                Some(rows) => rows,
                None => onward.insert(store.import_rows_by_key(&[defined.to_string()])?),
            };
            let next = imports
                .iter()
                .filter(|n| n.path == target && n.name.as_deref() == Some(defined))
                .find_map(|n| {
                    match project.resolve(lang, &n.path, &n.module, n.name.as_deref(), &n.kind) {
                        Some(crate::imports::Target::File(t)) if t != target => Some(t),
                        _ => None,
                    }
                });
            match next {
                Some(t) => target = t,
                None => break,
            }
        }
    }
    // A re-export through a module the imports cannot follow (rustls's
    // `pub use client::ClientConfig;` names an inline `pub mod client { pub
    // use client_conn::{ClientConfig, …}; }` of `lib.rs`): the root says
    // it exports the name, so the live definitions of it are the answer.
    // A glob says nothing about the name: it is no such promise.
    let named = roots.iter().any(|r| r.name.as_deref() != Some("*"));
    if out.is_empty() && named {
        for row in store.symbol_rows(name, NameMatch::Exact, TIER_CAP)? {
            let h = row_to_hit(row, MatchKind::Exact);
            if wanted(&h) && !is_test_path(&h.path) && !is_secondary_path(&h.path) {
                out.push(h);
            }
        }
        // Those under a directory or file the re-export's module path
        // names, when some are: `pub use server::ServerConnection` is
        // `server/server_conn.rs`'s, not `quic.rs`'s of the same name.
        let segments: Vec<&str> = roots
            .iter()
            .filter(|r| r.name.as_deref() != Some("*"))
            .flat_map(|r| r.module.split([':', '.', '/']))
            .filter(|s| !s.is_empty() && !matches!(*s, "crate" | "self" | "super"))
            .collect();
        let under = |h: &SymbolHit| module_names(&h.path).any(|m| segments.contains(&m));
        if out.iter().any(under) && !out.iter().all(under) {
            out.retain(under);
        }
    }
    // The type a glob brings in, not its `impl` blocks beside it.
    if out.iter().any(|h| h.kind != "impl") {
        out.retain(|h| h.kind != "impl");
    }
    Ok(out)
}

/// Whether `path` is the root file of the module named `module`: a
/// crate's `lib.rs` (the crate's directory, a registry's version suffix
/// and `-`/`_` aside: `tokio-1.54.1/src/lib.rs` is `tokio`), or a
/// package's `mod.rs`, `__init__.py` or `index.*` (its directory).
fn is_module_root(path: &str, module: &str) -> bool {
    let mut dirs = path.split('/').rev();
    let Some(file) = dirs.next() else {
        return false;
    };
    let stem = file.split('.').next().unwrap_or(file);
    let dir = dirs.next().unwrap_or("");
    let named = |d: &str| {
        let d = match d.rsplit_once('-') {
            Some((head, version)) if version.starts_with(|c: char| c.is_ascii_digit()) => head,
            _ => d,
        };
        d.replace('-', "_") == module
    };
    match stem {
        "lib" if dir == "src" => dirs.next().is_some_and(named),
        "lib" | "mod" | "__init__" | "index" => named(dir),
        _ => false,
    }
}

/// Whether `path` is a Rust crate's `src/lib.rs` and `module` names that
/// crate: `crate`, or the package name its `Cargo.toml` gives (`nom`
/// for a checkout whose directory says nothing: `src/lib.rs` at the
/// root), `-` read as `_`.
fn is_rust_crate_root(root: Option<&std::path::Path>, path: &str, module: &str) -> bool {
    let Some(dir) = path.strip_suffix("src/lib.rs") else {
        return false;
    };
    if module == "crate" {
        return true;
    }
    let Some(root) = root else {
        return false;
    };
    let Ok(manifest) = std::fs::read_to_string(root.join(dir).join("Cargo.toml")) else {
        return false;
    };
    let mut in_package = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
        } else if in_package
            && let Some((key, value)) = line.split_once('=')
            && key.trim() == "name"
        {
            return value.trim().trim_matches('"').replace('-', "_") == module;
        }
    }
    false
}

/// Whether a definition with this container, in this file, fits every
/// segment of a qualifier (outermost first): from the innermost out, each
/// names the next container outward; those left when the containers run
/// out name the file's stem or directories.
fn whole_qualifier(qualifier: &[&str], container: Option<&str>, path: &str) -> bool {
    let containers = container.map(segments).unwrap_or_default();
    let mut outward = containers.iter().rev();
    let mut left = qualifier.iter().rev().peekable();
    while let Some(q) = left.peek() {
        match outward.next() {
            Some(c) if c.eq_ignore_ascii_case(q) => {
                left.next();
            }
            Some(_) => return false,
            None => break,
        }
    }
    let parts: Vec<&str> = path
        .split('/')
        .map(|p| p.split('.').next().unwrap_or(p))
        .collect();
    left.all(|q| parts.iter().any(|p| p.eq_ignore_ascii_case(q)))
}

/// For each hit, whether it is a specification in an OCaml signature: in
/// a `.ml` or `.mli` file, inside a `module type` (an `interface` row)
/// named as its container, for the hits `contained` selects (Jane
/// Street's `monad_intf.ml` declares `module Make (X : Basic) : S` in
/// `module type Monad = sig … end`; `monad.ml` defines it). Reads the
/// packed definitions of those hits' files only.
fn signature_specs(
    store: &Store,
    hits: &[SymbolHit],
    contained: &dyn Fn(&SymbolHit) -> bool,
) -> Result<Vec<bool>> {
    let mut interfaces: HashMap<&str, Vec<(u32, u32, String)>> = HashMap::new();
    let mut out = Vec::with_capacity(hits.len());
    for h in hits {
        let ocaml = crate::lang::is_ocaml_path(&h.path);
        let Some(container) = h.container.as_deref().filter(|_| ocaml && contained(h)) else {
            out.push(false);
            continue;
        };
        if !interfaces.contains_key(h.path.as_str()) {
            interfaces.insert(
                h.path.as_str(),
                file_scopes(store, &h.path, &["interface"])?,
            );
        }
        let container = last_segment(container);
        out.push(
            interfaces[h.path.as_str()]
                .iter()
                .any(|(start, end, name)| {
                    *start <= h.start_line && h.end_line <= *end && name == container
                }),
        );
    }
    Ok(out)
}

/// The definitions of `kinds` in an indexed file, as `(start line, end
/// line, name)`, read from its packed definitions (none for a file the
/// index lacks).
fn file_scopes(store: &Store, path: &str, kinds: &[&str]) -> Result<Vec<(u32, u32, String)>> {
    let mut scopes = Vec::new();
    if let Some(file) = store.file_record(path)? {
        for r in store.outline_rows(file.id)?.1 {
            if kinds.contains(&r.kind.as_str()) {
                scopes.push((r.start_line, r.end_line, r.name));
            }
        }
    }
    Ok(scopes)
}

/// Hits at most whose files [`enclosing_containers`] reads for a
/// qualified name (each a file's packed definitions).
const ENCLOSING_HITS_READ: usize = 64;

/// Each hit's container with the namespaces and modules around it in its
/// file put in front (`Catch::Session` for `Session::run` inside
/// `namespace Catch { … }`), or `None` when nothing encloses it.
fn enclosing_containers(store: &Store, hits: &[SymbolHit]) -> Result<Vec<Option<String>>> {
    let mut by_file: HashMap<&str, Vec<(u32, u32, String)>> = HashMap::new();
    let mut out = Vec::with_capacity(hits.len());
    for h in hits {
        if !by_file.contains_key(h.path.as_str()) {
            let mut scopes = file_scopes(store, &h.path, &["namespace", "module"])?;
            // Outer first: by start line, the longer first.
            scopes.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
            by_file.insert(h.path.as_str(), scopes);
        }
        let around: Vec<&str> = by_file[h.path.as_str()]
            .iter()
            .filter(|(start, end, name)| {
                *start <= h.start_line
                    && h.end_line <= *end
                    && (*start, *end) != (h.start_line, h.end_line)
                    && name != &h.name
            })
            .map(|(_, _, name)| name.as_str())
            .collect();
        out.push((!around.is_empty()).then(|| {
            let mut parts: Vec<&str> = around;
            if let Some(c) = h.container.as_deref() {
                parts.push(c);
            }
            parts.join("::")
        }));
    }
    Ok(out)
}

/// The package a file declares, as a qualifier names it, once per file
/// (only for hits a qualifier is matched against): a Go file's `package`
/// clause, read from the file's head (none without the project's root);
/// the last segment of a Java, Kotlin or Scala file's `package a.b`, as
/// the index holds it.
struct FilePackages<'a> {
    root: Option<&'a std::path::Path>,
    store: &'a Store,
    read: std::cell::RefCell<HashMap<String, Option<String>>>,
}

/// Bytes of a Go file read for its `package` clause (a licence header
/// comes first).
const GO_PACKAGE_HEAD: u64 = 8192;

impl<'a> FilePackages<'a> {
    fn new(root: Option<&'a std::path::Path>, store: &'a Store) -> Self {
        FilePackages {
            root,
            store,
            read: std::cell::RefCell::new(HashMap::new()),
        }
    }

    fn of(&self, h: &SymbolHit) -> Option<String> {
        let jvm = matches!(h.lang.as_str(), "java" | "kotlin" | "scala");
        if h.lang != "go" && !jvm {
            return None;
        }
        if let Some(known) = self.read.borrow().get(&h.path) {
            return known.clone();
        }
        let name = if jvm {
            self.store
                .file_package(&h.path)
                .ok()
                .flatten()
                .map(|p| last_segment(&p).to_string())
        } else {
            self.go_clause(&h.path)
        };
        self.read.borrow_mut().insert(h.path.clone(), name.clone());
        name
    }

    fn go_clause(&self, path: &str) -> Option<String> {
        use std::io::Read;
        let mut head = Vec::new();
        std::fs::File::open(self.root?.join(path))
            .ok()?
            .take(GO_PACKAGE_HEAD)
            .read_to_end(&mut head)
            .ok()?;
        crate::search::graph::go_package_clause(String::from_utf8_lossy(&head).lines())
            .map(str::to_string)
    }
}

/// The module names a file stands for: its stem, and its directory (a Go
/// package, a Rust `mod.rs` or Python `__init__.py` module, a directory
/// of classes).
fn module_names(path: &str) -> impl Iterator<Item = &str> {
    let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
    let stem = file.split('.').next().unwrap_or(file);
    let dir = dir.rsplit('/').next().unwrap_or(dir);
    [stem, dir].into_iter().filter(|m| !m.is_empty())
}

/// A C/C++ prototype or other body-less declaration (`void f(void);`,
/// a forward typedef): ranked after the definition with a body.
fn is_declaration(h: &SymbolHit) -> bool {
    (h.start_line == h.end_line
        && h.signature.trim_end().ends_with(';')
        && matches!(h.kind.as_str(), "function" | "method"))
        || forward_typedef_tag(h).is_some()
}

/// Definitions of a forward typedef's struct read at most.
const TYPEDEF_TAGS_READ: usize = 64;

/// The struct, union or enum tag a one-line C/C++ typedef names without
/// defining it: `ngx_command_s` for `typedef struct ngx_command_s
/// ngx_command_t;`, `_GList` for `typedef struct _GList *GListPtr;`.
/// Not when the typedef gives the tag's own name (`typedef struct foo
/// foo;`: the struct is an exact hit already).
fn forward_typedef_tag(h: &SymbolHit) -> Option<&str> {
    if h.kind != "type" || h.start_line != h.end_line || !matches!(h.lang.as_str(), "c" | "cpp") {
        return None;
    }
    let rest = h.signature.trim().strip_prefix("typedef")?;
    let rest = rest.trim_end().strip_suffix(';')?;
    let mut words = rest.split_whitespace();
    if !matches!(words.next()?, "struct" | "union" | "enum") {
        return None;
    }
    let tag = words.next()?;
    let alias: String = words.collect::<Vec<_>>().concat();
    let alias = alias.trim_start_matches('*');
    (alias == h.name
        && tag != h.name
        && tag.bytes().all(|b| b == b'_' || b.is_ascii_alphanumeric()))
    .then_some(tag)
}

/// The order of a search's hits, best first: how the name matched, the
/// kind, then the path's standing (live source before declarations,
/// build output, tests and examples), the path, the line. A key per hit,
/// computed once: the path tests are string work, and a broad query sorts
/// thousands of hits.
fn hit_order(h: &SymbolHit) -> impl Ord + use<> {
    (
        (
            h.match_kind,
            // A test's stand-in (a `#define` mock in a unit test) after
            // the live code's declaration of the same name, whatever its
            // kind: pino's sixteen test fixtures' `const transport` had
            // come before the options' field `LoggerOptions.transport`.
            is_test_path(&h.path),
            kind_rank(&h.kind) + u8::from(is_member_alias(h)),
            is_declaration(h),
            is_shipped_build(&h.path),
            is_type_declaration(&h.path),
            // An OCaml interface's `val` after the `let` defining it.
            crate::lang::is_ocaml_interface(&h.path),
            is_secondary_path(&h.path),
            std::cmp::Reverse(is_named_after(&h.path, &h.name)),
            is_private_path(&h.path),
            has_private_container(h),
        ),
        h.path.matches('/').count(),
        h.path.clone(),
        h.start_line,
    )
}

/// A member of a type its package keeps to itself: Go's unexported
/// `boolValue` (pflag's 40 `xxxValue.Set` implementations had come before
/// the interface's `Value.Set` and `FlagSet.Set`), Python's `_Helper`.
fn has_private_container(h: &SymbolHit) -> bool {
    let Some(c) = h.container.as_deref() else {
        return false;
    };
    let last = c.rsplit(['.', ':']).next().unwrap_or(c);
    match h.lang.as_str() {
        "go" => last.starts_with(|ch: char| ch.is_ascii_lowercase()),
        "python" => last.starts_with('_'),
        _ => false,
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct OutlineEntry {
    pub name: String,
    pub kind: String,
    /// `container.name` for a member.
    pub qualified: String,
    pub start_line: u32,
    pub end_line: u32,
    /// 0 for a top-level definition, 1 for a member.
    pub depth: u32,
}

/// A definition row's name with its container, in its language's notation
/// (`Config::parse`, `Predis\Client`), as `symbol` writes it.
pub fn qualified_row(r: &SymbolRow) -> String {
    match r.container.as_deref().filter(|c| !c.is_empty()) {
        Some(c) => crate::search::member_path(&r.lang, &r.kind, c, &r.name),
        None => r.name.clone(),
    }
}

/// The top-level definitions and their members (`rows` sorted by start,
/// longest first), and the members of any definition holding `line` (a
/// nested class's when the line is in it), at most `max`: when there are
/// more, those starting nearest `line`, still in source order. Also the
/// count of all.
/// A namespace or module around them adds no level: a PHP or C++ class in
/// its namespace shows its members too.
pub fn outline_near(rows: &[SymbolRow], line: u32, max: usize) -> (Vec<OutlineEntry>, usize) {
    // Each open definition's span, and whether it counts as a level.
    let mut open: Vec<(u32, u32, bool)> = Vec::new();
    let mut all: Vec<OutlineEntry> = Vec::new();
    for r in rows {
        while open
            .last()
            .is_some_and(|&(s, e, _)| !(r.start_line >= s && r.end_line <= e))
        {
            open.pop();
        }
        let depth = open.iter().filter(|o| o.2).count() as u32;
        // Deeper, the members of the definition holding the line (a nested
        // class's methods when the line is in it).
        let parent_holds_line = open.last().is_some_and(|&(s, e, _)| s <= line && line <= e);
        let level = !matches!(r.kind.as_str(), "namespace" | "module");
        open.push((r.start_line, r.end_line, level));
        if depth <= 1 || parent_holds_line {
            all.push(OutlineEntry {
                name: r.name.clone(),
                kind: r.kind.clone(),
                qualified: qualified_row(r),
                start_line: r.start_line,
                end_line: r.end_line,
                depth,
            });
        }
    }
    let total = all.len();
    if total > max {
        let mut by_distance: Vec<usize> = (0..total).collect();
        by_distance.sort_by_key(|&i| (all[i].start_line.abs_diff(line), i));
        let mut keep = vec![false; total];
        for &i in by_distance.iter().take(max) {
            keep[i] = true;
        }
        let mut i = 0;
        all.retain(|_| {
            i += 1;
            keep[i - 1]
        });
    }
    (all, total)
}

/// A one-line type alias inside a type (`type Deserializer = Self;` in an
/// impl, `using value_type = T;` in a class): the type of that name
/// defined on its own (`trait Deserializer`) comes first.
fn is_member_alias(h: &SymbolHit) -> bool {
    h.kind == "type" && h.container.is_some() && h.end_line == h.start_line
}

/// A path through a private module or directory (`_internal/`,
/// `_utils.py`; not `__init__.py`): the public definition of the same name
/// comes first.
fn is_private_path(path: &str) -> bool {
    path.split('/')
        .any(|c| c.starts_with('_') && !c.starts_with("__"))
}

/// The most edits a fuzzy name may be from the query to rank as a typo
/// of it (before names that only hold its letters in order).
const MAX_TYPOS: usize = 2;

/// The distinct symbol names that fuzzily match `query`, best first.
fn fuzzy_names(store: &Store, query: &str, max: usize) -> Result<Vec<String>> {
    use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
    use nucleo_matcher::{Config, Matcher, Utf32Str};
    let mut matcher = Matcher::new(Config::DEFAULT);
    let pattern = Pattern::parse(query, CaseMatching::Ignore, Normalization::Smart);
    let mut scored: Vec<(u32, String)> = Vec::new();
    let mut buf = Vec::new();
    // Typos the subsequence match cannot see (`assertSaem`, swapped
    // letters, for `assertSame`): a name of about the query's length, with
    // its first letter, one or two edits away, ranks before those.
    let typed = query.to_ascii_lowercase();
    let typed = typed.as_bytes();
    let most = if typed.len() <= 5 { 1 } else { MAX_TYPOS };
    store.scan_symbol_names(|name| {
        let near = name.len().abs_diff(typed.len()) <= most
            && name.as_bytes().first().map(u8::to_ascii_lowercase) == typed.first().copied();
        let edits = near
            .then(|| {
                crate::text::typo_distance(&name.to_ascii_lowercase().into_bytes(), typed, most)
            })
            .flatten();
        if let Some(d) = edits {
            scored.push((u32::MAX - d as u32, name.to_string()));
        } else if let Some(score) = pattern.score(Utf32Str::new(name, &mut buf), &mut matcher) {
            scored.push((score, name.to_string()));
        }
    })?;
    // A name one or two typos away is what was meant: names that merely
    // hold the letters in order (`Predis\Collection\Iterator` for
    // `Clinet`) are noise beside it.
    let typo_floor = u32::MAX - MAX_TYPOS as u32;
    if scored.iter().any(|(score, _)| *score >= typo_floor) {
        scored.retain(|(score, _)| *score >= typo_floor);
    }
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(a.1.len().cmp(&b.1.len()))
            .then(a.1.cmp(&b.1))
    });
    scored.truncate(max);
    Ok(scored.into_iter().map(|(_, n)| n).collect())
}

#[derive(Debug, Clone, Serialize)]
pub struct RefHit {
    pub path: String,
    pub line: u32,
    pub column: u32,
    /// call, type, ... for a reference (`use` for a field, constant or
    /// variant found by the word scan); the symbol's kind for a definition.
    pub kind: String,
    pub is_definition: bool,
    /// For a reference, how sure the index is that it reaches the queried
    /// definition; `None` for a definition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolution: Option<Resolution>,
    /// The enclosing function or type of a reference (its symbol path); the
    /// container of a definition.
    pub enclosing: Option<String>,
    /// What a reference is reached through (`self`, `session`, `Kind`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub qualifier: Option<String>,
    /// The trimmed source line, read from disk for the page shown (see
    /// [`source_lines`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// Fills in each hit's `text`: its source line, trimmed and bounded, read
/// from the files on disk (one read per file; files over 8 MiB, unreadable
/// or gone are left without).
pub fn source_lines<T: SourceLine>(root: &std::path::Path, hits: &mut [T]) {
    let mut by_file: std::collections::HashMap<String, Vec<usize>> =
        std::collections::HashMap::new();
    for (i, h) in hits.iter().enumerate() {
        by_file.entry(h.at().0.to_string()).or_default().push(i);
    }
    for (path, idx) in by_file {
        let Some(text) = crate::search::read_project_text(root, &path, 8 << 20) else {
            continue;
        };
        let all: Vec<&str> = text.lines().collect();
        for i in idx {
            let n = hits[i].at().1;
            if let Some(l) = n.checked_sub(1).and_then(|k| all.get(k as usize)) {
                hits[i].set_text(crate::search::bound_line(l.trim(), 200));
            }
        }
    }
}

/// A hit that shows its source line: where it is, and where the line goes.
pub trait SourceLine {
    fn at(&self) -> (&str, u32);
    fn set_text(&mut self, text: String);
}

impl SourceLine for RefHit {
    fn at(&self) -> (&str, u32) {
        (&self.path, self.line)
    }
    fn set_text(&mut self, text: String) {
        self.text = Some(text);
    }
}

impl SourceLine for crate::search::graph::Edge {
    fn at(&self) -> (&str, u32) {
        (&self.path, self.line)
    }
    fn set_text(&mut self, text: String) {
        self.text = Some(text);
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct RefResult {
    pub name: String,
    /// Definitions the name stands for (all of them for a bare name, the
    /// container's for `Class.member`).
    pub definitions: usize,
    /// References resolved to one of them.
    pub references: usize,
    /// Candidates with the same name that nothing resolves either way,
    /// listed after the resolved ones and marked `name_only`.
    pub name_only: usize,
    pub hits: Vec<RefHit>,
    pub total: usize,
    pub truncated: bool,
    /// Secret values shown as `[redacted: …]` in the source lines (filled
    /// in by the service).
    pub redacted: usize,
    /// A build's copies of the definitions and their uses, left out.
    #[serde(skip_serializing_if = "crate::search::BuildLeftOut::is_none")]
    pub build_output_left_out: crate::search::BuildLeftOut,
}

/// Which hits `find_references` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RefType {
    Definitions,
    References,
    #[default]
    All,
}

impl RefType {
    pub fn parse(s: &str) -> Option<RefType> {
        Some(match s.to_ascii_lowercase().as_str() {
            "definitions" | "definition" | "defs" => RefType::Definitions,
            "references" | "reference" | "refs" => RefType::References,
            "all" | "" => RefType::All,
            _ => return None,
        })
    }
}

/// The definitions of a (possibly qualified) name and the references that
/// resolve to them, then the name-only candidates, each marked; `offset`
/// and `limit` page the hits in that order.
pub fn find_references(
    store: &Store,
    root: &std::path::Path,
    name: &str,
    want: RefType,
    offset: usize,
    limit: usize,
) -> Result<RefResult> {
    let asked = asked_name(name.trim());
    let name = asked.as_ref();
    let mut graph = Graph::new(store, root);
    let targets = graph.targets(name)?;
    let mut defs: Vec<RefHit> = targets
        .iter()
        .map(|d| RefHit {
            path: d.path.clone(),
            line: d.name_line,
            column: d.name_col,
            kind: d.kind.clone(),
            is_definition: true,
            resolution: None,
            enclosing: d.container.clone(),
            qualifier: None,
            text: None,
        })
        .collect();
    let definitions = defs.len();
    let found = if want == RefType::Definitions {
        Vec::new()
    } else {
        let (container, bare_name) = split_as_defined(store, name)?;
        graph.references(&bare_name, &targets, container.is_none(), Uses::All)?
    };
    let mut refs: Vec<RefHit> = found
        .into_iter()
        .map(|f| RefHit {
            path: f.r.path,
            line: f.r.line,
            column: f.r.col,
            kind: f.r.kind,
            is_definition: false,
            resolution: Some(f.resolution),
            enclosing: f.r.scope,
            qualifier: f.r.qualifier,
            text: None,
        })
        .collect();
    // A qualified name lists its resolved uses first, the name-only ones
    // apart after them; a bare name asked for every use of the name, in
    // path order, each still marked.
    let standing =
        crate::search::path_standings(store, defs.iter().chain(&refs).map(|h| h.path.as_str()));
    let at = |h: &RefHit| standing.get(&h.path).copied().unwrap_or(0);
    if split_qualified(name).0.is_some() {
        refs.sort_by_key(|h| (h.resolution, at(h)));
    } else {
        refs.sort_by_key(|h| at(h));
    }
    defs.sort_by_key(|h| at(h));
    let references = refs
        .iter()
        .filter(|h| h.resolution == Some(Resolution::Resolved))
        .count();
    let name_only = refs.len() - references;
    let mut hits = Vec::new();
    if want != RefType::References {
        hits.append(&mut defs);
    }
    hits.append(&mut refs);
    let total = hits.len();
    let hits: Vec<RefHit> = hits.into_iter().skip(offset).take(limit).collect();
    Ok(RefResult {
        name: name.trim().to_string(),
        definitions,
        references,
        name_only,
        truncated: total > offset + hits.len(),
        total,
        hits,
        redacted: 0,
        build_output_left_out: graph.build_left_out,
    })
}

#[derive(Debug, Clone, Serialize)]
pub struct OutlineItem {
    pub name: String,
    pub kind: String,
    /// The type or table a definition is written on when the outline does
    /// not nest it there (a Go method's receiver, `Params` of
    /// `Params.Get`; a Lua function's table).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container: Option<String>,
    /// The name with that container in the language's notation
    /// (`Params.Get`, `thread_pool::worker_loop_`), for text answers.
    #[serde(skip)]
    pub label: Option<String>,
    pub signature: String,
    pub start_line: u32,
    pub end_line: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<OutlineItem>,
}

/// The definitions of one indexed file, nested by line-range containment, in
/// source order. `None` when the file is not in the index. With `root`,
/// signatures the index keeps as positions are read from the file; without
/// it (a caller that shows no signature) they stay empty.
pub fn outline(
    store: &Store,
    root: Option<&std::path::Path>,
    rel_path: &str,
) -> Result<Option<(Option<String>, Vec<OutlineItem>)>> {
    let Some(file) = store.file_record(rel_path).ok().flatten() else {
        return Ok(None);
    };
    let mut sources = root.map(crate::source::Sources::new);
    let (lang, rows) = store.outline_rows(file.id)?;
    let flat: Vec<OutlineItem> = rows
        .into_iter()
        .map(|r| OutlineItem {
            signature: match (r.line_signature, sources.as_mut()) {
                (Some(at), Some(s)) => s.line_signature(rel_path, &at, r.name_line),
                _ => r.signature,
            },
            name: r.name,
            kind: r.kind,
            container: r.container,
            label: None,
            start_line: r.start_line,
            end_line: r.end_line,
            children: Vec::new(),
        })
        .collect();
    let mut items = nest(flat);
    drop_nested_containers(&mut items, None, &lang);
    Ok(Some((file.skip_reason, items)))
}

/// Leaves an item's container only where the outline does not say it:
/// a member nested under its class needs none, a Go method beside its
/// type (or a Lua function of a table) keeps its receiver.
fn drop_nested_containers(items: &mut [OutlineItem], parent: Option<&str>, lang: &str) {
    for item in items {
        if item
            .container
            .as_deref()
            .is_some_and(|c| parent.is_some_and(|p| last_segment(c) == p) || c.is_empty())
        {
            item.container = None;
        }
        item.label = item
            .container
            .as_deref()
            .map(|c| crate::search::member_path(lang, &item.kind, c, &item.name));
        // A Rust trait impl says its trait (`impl fmt::Display for Port`):
        // six rows of `impl Port` told the reader nothing.
        if item.kind == "impl"
            && item.label.is_none()
            && let Some(t) = impl_trait(&item.signature)
        {
            item.label = Some(format!("{t} for {}", item.name));
        }
        let name = item.name.clone();
        drop_nested_containers(&mut item.children, Some(&name), lang);
    }
}

/// Nests items (sorted by start, longest first) by range containment. Of
/// two items on the same lines only a type (`case class P(x: Int, y: Int)`)
/// contains the other: fields or functions written on one line are siblings.
fn nest(flat: Vec<OutlineItem>) -> Vec<OutlineItem> {
    let mut roots: Vec<OutlineItem> = Vec::new();
    let mut stack: Vec<OutlineItem> = Vec::new();
    for item in flat {
        while let Some(top) = stack.last() {
            let same_lines = (item.start_line, item.end_line) == (top.start_line, top.end_line);
            if item.start_line >= top.start_line
                && item.end_line <= top.end_line
                && (!same_lines || crate::model::is_container_kind(&top.kind))
            {
                break;
            }
            let done = stack.pop().expect("stack is non-empty");
            attach(&mut stack, &mut roots, done);
        }
        stack.push(item);
    }
    while let Some(done) = stack.pop() {
        attach(&mut stack, &mut roots, done);
    }
    roots
}

fn attach(stack: &mut [OutlineItem], roots: &mut Vec<OutlineItem>, item: OutlineItem) {
    match stack.last_mut() {
        Some(parent) => parent.children.push(item),
        None => roots.push(item),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(name: &str, s: u32, e: u32) -> OutlineItem {
        OutlineItem {
            name: name.into(),
            kind: "x".into(),
            container: None,
            label: None,
            signature: String::new(),
            start_line: s,
            end_line: e,
            children: vec![],
        }
    }

    #[test]
    fn items_on_one_line_nest_only_in_a_type() {
        let kind = |mut i: OutlineItem, k: &str| {
            i.kind = k.into();
            i
        };
        let out = nest(vec![
            kind(item("Sig", 1, 5), "class"),
            kind(item("Pair", 2, 2), "class"),
            kind(item("a", 2, 2), "field"),
            kind(item("b", 2, 2), "field"),
        ]);
        let pair = &out[0].children[0];
        assert_eq!(pair.name, "Pair");
        let fields: Vec<&str> = pair.children.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(fields, ["a", "b"], "siblings, not `b` inside `a`");
    }

    #[test]
    fn nests_by_range() {
        let out = nest(vec![
            item("A", 1, 10),
            item("a1", 2, 4),
            item("a2", 5, 9),
            item("inner", 6, 7),
            item("B", 12, 20),
        ]);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].children.len(), 2);
        assert_eq!(out[0].children[1].children[0].name, "inner");
        assert_eq!(out[1].name, "B");
    }

    #[test]
    fn whole_qualifiers_match_containers_then_paths() {
        let q = ["HttpConnection", "Request"];
        let f = "src/main/java/org/jsoup/helper/HttpConnection.java";
        assert!(whole_qualifier(&q, Some("HttpConnection.Request"), f));
        assert!(!whole_qualifier(
            &q,
            Some("Connection.Request"),
            "org/jsoup/Connection.java"
        ));
        // Containers stored without their outer type: the file names it.
        assert!(whole_qualifier(&q, Some("Request"), f));
        assert!(!whole_qualifier(
            &q,
            Some("Request"),
            "org/jsoup/Connection.java"
        ));
        let q = ["config", "Config"];
        assert!(whole_qualifier(&q, Some("Config"), "src/config/mod.rs"));
        assert!(whole_qualifier(&q, Some("Config"), "src/config.rs"));
        assert!(!whole_qualifier(&q, Some("Config"), "src/settings.rs"));
        assert!(!whole_qualifier(&q, None, "src/settings.rs"));
    }

    #[test]
    fn splits_qualified_names() {
        assert_eq!(
            split_qualified("Config::parse"),
            (Some("Config".into()), "parse".into())
        );
        assert_eq!(
            split_qualified("a::b::Config::parse"),
            (Some("Config".into()), "parse".into())
        );
        assert_eq!(
            split_qualified("views.LoginView.post"),
            (Some("LoginView".into()), "post".into())
        );
        assert_eq!(split_qualified("parse"), (None, "parse".into()));
        assert_eq!(split_qualified("::"), (None, "::".into()));
        // A JavaScript private member, and Ruby's `Class#method`.
        assert_eq!(
            split_qualified("QueryObserver.#notify"),
            (Some("QueryObserver".into()), "#notify".into())
        );
        assert_eq!(
            split_qualified("Array#push"),
            (Some("Array".into()), "push".into())
        );
    }
}

#[cfg(test)]
mod trait_impl_tests {
    use super::{impl_trait, trait_impls_summary};

    #[test]
    fn trait_impls_are_told_from_inherent_ones() {
        assert_eq!(impl_trait("impl Buf for Bytes {").as_deref(), Some("Buf"));
        assert_eq!(
            impl_trait("unsafe impl Send for Bytes {}").as_deref(),
            Some("Send")
        );
        assert_eq!(
            impl_trait("impl<Data> From<ConnectionCore<Data>> for ConnectionCommon<Data> {")
                .as_deref(),
            Some("From")
        );
        assert_eq!(
            impl_trait("impl<T: io::Read> std::io::Read for Reader<T> {").as_deref(),
            Some("Read")
        );
        assert_eq!(impl_trait("impl<Data> ConnectionCommon<Data> {"), None);
        assert_eq!(impl_trait("impl Bytes {"), None);
        let traits: Vec<String> = ["Deref", "DerefMut", "Deref"].map(String::from).to_vec();
        assert_eq!(
            trait_impls_summary("ConnectionCommon", &traits),
            "3 trait impls of `ConnectionCommon` left out (Deref, DerefMut)"
        );
    }
}
