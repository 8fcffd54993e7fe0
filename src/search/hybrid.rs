//! Owns hybrid search: one ranked list fused from four arms — BM25 over
//! chunks, semantic vectors, symbol names and keyword hits — by weighted
//! reciprocal-rank fusion. Does not implement any arm itself (they live in
//! `bm25`, `semantic`, `symbol` and `keyword`); it analyses the query,
//! weighs the arms, merges overlapping hits and explains the result.
//!
//! Worked example: for `parse_config`, the symbol arm finds the definition
//! (rank 1), the keyword arm finds its definition line and three call sites,
//! and BM25 finds the chunk holding the definition at rank 2. The definition
//! chunk collects `w_sym/(k+1) + w_kw/(k+1) + w_bm25/(k+2)` and comes first;
//! each call site only has its keyword contribution.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::Arc;

use anyhow::Result;
use serde::Serialize;

use crate::embed::{Embedder, Tier, TokenTable};
use crate::error::{ErrorCode, UserError};
use crate::history::Recency;
use crate::model::Generated;
use crate::search::bm25::{ChunkHit, Words, search_bm25};
use crate::search::keyword::{
    CaseMode, KeywordRequest, RuleOut, search_keyword_listed, search_keyword_with,
};
use crate::search::ngram::{IndexFilter, Listed};
use crate::search::semantic::{SemanticInfo, SemanticRequest, SemanticSearcher};
use crate::search::symbol::{
    MatchKind, MatchMode, SymbolQuery, Unplaced, find_symbols, find_symbols_or_bare,
};
use crate::search::{
    ChunkFilter, Scope, Snippets, asked_name, best_snippet, chunk_snippet, definition_snippet,
    is_c_header, token_match,
};
use crate::source::Sources;
use crate::store::{ChunkRow, ChunkSpan, Store};
use crate::walk::WalkOptions;

/// The reciprocal-rank-fusion constant. 60 is the classic value; smaller
/// values trust the top ranks of each arm more. On the `nl` suite (360
/// docstring queries, Django and Rust crates) plain RRF gave MRR@10 0.279
/// at k = 10, 0.273 at 30, 0.26 at 60; with the name re-ranking below, 0.334
/// at k = 5 and 0.338 at 10. The top of each arm is worth trusting.
pub const RRF_K: f64 = 10.0;

/// Candidates asked of each arm, as a multiple of the requested limit.
const CANDIDATES_PER_LIMIT: usize = 5;

/// The keyword arm ranks the files holding a query's identifier by their
/// count of matching lines; a literal the index's postings place in more
/// files than this (`kmalloc`: 4,080 of the Linux kernel's files) would be
/// read in all of them (0.3-0.6 s) to rank by a count that says little,
/// so the arm is skipped and the others rank it, on an index of any size,
/// unless it runs alone (`--mode keyword`: what the user asked for is
/// read).
const KEYWORD_ARM_MAX_FILES: usize = 2_000;
const MIN_CANDIDATES: usize = 50;

/// Candidates asked of each arm for `depth` hits.
fn candidates_for(depth: usize) -> usize {
    (depth * CANDIDATES_PER_LIMIT).max(MIN_CANDIDATES)
}

/// Every search first ranks the pool a first page needs (10 hits and the
/// one that says more exist: 55 candidates per arm), whatever the limit or
/// offset, so a smaller or larger limit or the next page continues the
/// same order: the candidates fusion weighs change its order, and a pool
/// that grew with the depth gave `-n 40` another top 10 than `-n 10`, and
/// a second page could repeat or skip the first page's files. Only hits
/// past what that ranking holds come from a deeper pool.
const STABLE_DEPTH: usize = 11;

/// Past the first ranking, deeper pools ranked for these many hits (250,
/// 1,000 and 5,000 candidates per arm), each continuing the order before
/// it: a pool sized by each page's own depth ordered the files past the
/// first ranking anew for every page, repeating and skipping some.
const DEEP_DEPTHS: [usize; 3] = [50, 200, 1000];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Arm {
    Symbol,
    Keyword,
    Bm25,
    Semantic,
    /// BM25 over the query's adjacent word pairs as phrases
    /// (`bm25::Words::AdjacentPairs`): questions only.
    Phrase,
    /// BM25 over the query's words and their synonyms
    /// (`bm25::Words::Synonyms`): short questions only.
    Synonym,
    /// The chunk at a `path:line` the query names
    /// ([`Analysis::location`]), or the main chunk of a file it names
    /// ([`Analysis::file`]), put first.
    Location,
}

impl Arm {
    pub fn name(self) -> &'static str {
        match self {
            Arm::Symbol => "symbol",
            Arm::Keyword => "keyword",
            Arm::Bm25 => "bm25",
            Arm::Semantic => "semantic",
            Arm::Phrase => "phrase",
            Arm::Synonym => "synonym",
            Arm::Location => "location",
        }
    }
}

/// What kind of question the query looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum QueryKind {
    /// `parse_config`, `HttpClient::new`, `getUserById`.
    Identifier,
    /// A quoted phrase or something regex-like.
    Literal,
    /// Words: "where do we validate the csrf token".
    NaturalLanguage,
}

/// The query as understood: its kind, identifiers, literal phrases.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    pub kind: QueryKind,
    /// Identifier-like terms, for the symbol and keyword arms.
    pub identifiers: Vec<String>,
    /// Quoted phrases (or the whole query when it is regex-like), for the
    /// keyword arm as literal text.
    pub phrases: Vec<String>,
    /// Two names side by side, one of them identifier-like, as a member
    /// of the first (`TypeAdapter validate_python`, `PhpRunner run` →
    /// `TypeAdapter.validate_python`, `PhpRunner.run`): the symbol arm
    /// asks for these exactly, before the names alone.
    pub members: Vec<String>,
    /// A file location the query is made of, as compilers, stack traces
    /// and editors print it (`src/app.py:140`, `src/app.py:140:7`,
    /// `src/app.py#L140`): its path and line.
    pub location: Option<(String, u32)>,
    /// A file the query is made of, without a line (`type_adapter.py`,
    /// `src/flask/config.py`, `Makefile`): a path whose name is one the
    /// index reads. The files it names lead the answer when the index has
    /// them ([`Analysis::named`]).
    pub file: Option<String>,
    /// The indexed files the query's location or file names, best first
    /// ([`best_named_paths`]; filled in by [`confirm_named`], empty from
    /// [`analyze`]).
    pub named: Vec<String>,
    /// The path of a location or file name no indexed file matches (the
    /// query is then searched as words, and the answer says so).
    pub unknown_path: Option<String>,
    /// The name after a declaration keyword (`struct strbuf` → `strbuf`,
    /// `struct event_base`) and the kinds of definition the keyword
    /// declares: the query asks for that definition if the index has one
    /// (`confirm_declared`), and its files lead ([`DECLARED_DEFINITION`]).
    pub declared: Option<(String, &'static [&'static str])>,
    /// Words in kebab case (`helm-build-in-buffer-source`,
    /// `resolve-and-apply`): names in the Lisps and in shell scripts, plain
    /// words elsewhere (`built-in`, `read-only`). The ones the index
    /// defines in code become identifiers (`confirm_declared`).
    pub kebab: Vec<String>,
    /// Capitalised words of a question (`Traversal` in "where is the
    /// Traversal type defined"): names when the index defines a type of
    /// exactly that spelling (see [`confirm_declared`]).
    pub capitalised: Vec<String>,
    /// The query's words (whitespace-separated).
    pub words: usize,
}

/// A word in kebab case: letters and digits in two or more parts joined
/// by single hyphens, starting with a letter (a Lisp name may end in `?`,
/// `!` or `*`).
fn is_kebab(w: &str) -> bool {
    let core = w.trim_end_matches(['?', '!', '*']);
    core.starts_with(|c: char| c.is_alphabetic())
        && core.contains('-')
        && core
            .split('-')
            .all(|part| !part.is_empty() && part.chars().all(char::is_alphanumeric))
}

/// `path:line`, `path:line:column` or `path#Lline` (a path with a `/` or
/// a `.`), as the whole query.
pub(crate) fn location(q: &str) -> Option<(String, u32)> {
    if q.contains(char::is_whitespace) {
        return None;
    }
    let q = q.trim_end_matches(':');
    let (path, line) = match q.split_once("#L") {
        Some((path, rest)) => (path, rest.split('-').next().unwrap_or(rest)),
        None => {
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            let (rest, last) = q.rsplit_once(':')?;
            // `path:line:column`: the column dropped.
            match rest.rsplit_once(':') {
                Some((path, line)) if digits(line) && digits(last) => (path, line),
                _ => (rest, last),
            }
        }
    };
    let line: u32 = line.parse().ok().filter(|&l| l > 0)?;
    (path.contains(['/', '.']) && !path.is_empty()).then(|| (path.to_string(), line))
}

/// A file path or name as the whole query, with no line
/// (`type_adapter.py`, `./src/app.ts`, `README`): a name the index reads
/// by its extension or as a whole (`detect_lang`), made only of the
/// characters paths are written with. `models.CharField` or `os.path` are
/// not (no such extension), nor a lower-case word alone (`install`,
/// `todo`: a concept, though `INSTALL` and `TODO` are file names).
fn file_path(q: &str) -> Option<String> {
    let path = q.trim_start_matches("./");
    let plain = path
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '@' | '+'));
    let name = path.rsplit('/').next().unwrap_or(path);
    let shaped = path.contains(['.', '/']) || name.starts_with(char::is_uppercase);
    (plain && shaped && !name.is_empty() && crate::lang::detect_lang(Path::new(name)).is_some())
        .then(|| path.to_string())
}

/// Most member pairs ([`Analysis::members`]) a query yields.
const MAX_MEMBER_PAIRS: usize = 3;

fn is_identifier_like(w: &str) -> bool {
    let core = w.trim_matches(|c: char| c == '(' || c == ')' || c == ',' || c == '`');
    if core.contains('\\') {
        return is_namespace_path(core);
    }
    // `$logger->addRecord`, `dev->ops`: a member through a pointer or
    // object (PHP, C, C++).
    if core.contains("->") {
        return core.split("->").all(crate::text::is_plain_name);
    }
    if core.is_empty()
        || !core
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
    {
        return false;
    }
    if !core
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '$' || c == ':' || c == '.' || c == '#')
    {
        return false;
    }
    // `Request#params`: Ruby's notation for an instance method.
    let method_of = core
        .split_once('#')
        .is_some_and(|(a, b)| !a.is_empty() && !b.is_empty() && !b.contains('#'));
    let qualified =
        core.contains("::") || (core.contains('.') && !core.ends_with('.')) || method_of;
    // `$constructor`, `$http` (JavaScript), `$this` (PHP): sigils of names.
    let snake = core.contains('_') || (core.starts_with('$') && core.len() > 1);
    let camel =
        core.chars().skip(1).any(|c| c.is_uppercase()) && core.chars().any(|c| c.is_lowercase());
    qualified || snake || camel
}

/// A PHP namespace path, `Monolog\Handler\HandlerInterface` or
/// `\Illuminate\Support\Collection`: identifiers joined by backslashes,
/// each after a backslash starting with a capital (the last may be a
/// function's name when two or more namespaces come before it). A regex's
/// escapes (`\bfoo`, `\w+`, `a\.b`) do not read as one.
fn is_namespace_path(core: &str) -> bool {
    let path = match core.strip_prefix('\\') {
        Some(rest) if rest.contains('\\') => rest,
        Some(_) => return false,
        None => core,
    };
    let segments: Vec<&str> = path.split('\\').collect();
    let ident = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
            && s.chars().all(|c| c.is_alphanumeric() || c == '_')
    };
    let capital = |s: &str| s.chars().next().is_some_and(char::is_uppercase);
    let Some((last, init)) = segments.split_last() else {
        return false;
    };
    // `Twig\Node\MacroNode::compile`: a class's member after the path.
    let (last, member) = match last.split_once("::") {
        Some((class, member)) => (class, Some(member)),
        None => (*last, None),
    };
    if member.is_some_and(|m| !ident(m)) || (member.is_some() && !capital(last)) {
        return false;
    }
    init.iter().all(|s| ident(s))
        && ident(last)
        && init.iter().skip(1).all(|s| capital(s))
        && (capital(last) || init.len() >= 2 || (capital(init[0]) && last.contains('_')))
}

/// Words outside its quotes past which a query is a question.
const QUESTION_AROUND_QUOTE: usize = 3;

/// Classifies a query.
pub fn analyze(query: &str) -> Analysis {
    let q = query.trim();
    let mut phrases = Vec::new();
    // Quoted phrases: "exact text" or `exact text`. An apostrophe inside a
    // word (`function's`, `doesn't`) quotes nothing.
    let unquoted: String = q
        .char_indices()
        .map(|(i, c)| {
            let inside = c == '\''
                && q[..i]
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric)
                && q[i + 1..].chars().next().is_some_and(char::is_alphanumeric);
            if inside { '\u{0}' } else { c }
        })
        .collect();
    for quote in ['"', '`', '\''] {
        let parts: Vec<String> = unquoted
            .split(quote)
            .map(|p| p.replace('\u{0}', "'"))
            .collect();
        if parts.len() >= 3 {
            for (i, p) in parts.iter().enumerate() {
                if i % 2 == 1 && !p.trim().is_empty() && (quote != '`' || p.contains(' ')) {
                    phrases.push(p.to_string());
                }
            }
        }
    }
    // `DBusStruct<T1, T2>` is one name, not two words.
    let unspaced = crate::search::without_type_arguments(q);
    let words: Vec<&str> = unspaced.split_whitespace().collect();
    let identifiers: Vec<String> = words
        .iter()
        .map(|w| {
            // A word before a colon in a sentence ("parsed into a graph:
            // lexer, …") is a word; alone, `name:` is an Objective-C
            // selector.
            match w.strip_suffix(':') {
                Some(word) if words.len() > 1 && !word.ends_with(':') => word,
                _ => w,
            }
        })
        .filter_map(|w| {
            // `converge/4`, `TypeAdapter(...)`, `Vec<u8>` are names by their
            // arity, arguments or type arguments alone.
            let quoted = w
                .trim_matches(|c: char| c == ',' || c == '`' || c == '"')
                .trim_end_matches('?');
            let name = asked_name(quoted);
            if name != quoted {
                return Some(name.into_owned());
            }
            let w = w.trim_matches(|c: char| {
                c == '(' || c == ')' || c == ',' || c == '`' || c == '"' || c == '?'
            });
            is_identifier_like(w).then(|| w.to_string())
        })
        .collect();
    // `struct strbuf`, `class Config`, `fn parse`: a definition asked for
    // by its declaration keyword (`type checking` is not: see `declared`);
    // so is one a question asks for alone ("where is the Tokeniser type
    // defined").
    let declared = crate::search::declared_name(q).map(|(name, kinds)| (name.to_string(), kinds));
    // `TypeAdapter?`, `valid?` (Ruby), `save!`: a name asked about.
    let bare = q.trim_end_matches("()").trim_end_matches(['?', '!']);
    let plain_word = !bare.is_empty() && bare.chars().all(|c| c.is_alphanumeric() || c == '_');
    let regex_like = !q.contains(' ')
        && q.chars().any(|c| "\\^$[]()|*+?{}".contains(c))
        && !is_identifier_like(bare)
        && !plain_word
        && asked_name(q) == q;
    // A question around a quoted phrase ("turn a size like '10 mb' into
    // bytes") is still a question; the keyword arm gets the phrase.
    let quoted_words: usize = phrases.iter().map(|p| p.split_whitespace().count()).sum();
    let question = words.len().saturating_sub(quoted_words) > QUESTION_AROUND_QUOTE;
    let kind = if (!phrases.is_empty() && !question) || regex_like {
        if regex_like && phrases.is_empty() {
            phrases.push(q.to_string());
        }
        QueryKind::Literal
    } else if !identifiers.is_empty() && words.len() <= 3 {
        QueryKind::Identifier
    } else if words.len() == 1 && plain_word {
        // A single plain word (`config`) is most likely a name.
        QueryKind::Identifier
    } else {
        QueryKind::NaturalLanguage
    };
    let mut identifiers = identifiers;
    if kind == QueryKind::Identifier && identifiers.is_empty() {
        identifiers.push(q.to_string());
    }
    let members = if kind == QueryKind::Literal {
        Vec::new()
    } else {
        let names: Vec<&str> = words
            .iter()
            .map(|w| w.trim_matches(|c: char| c == ',' || c == '`' || c == '"' || c == '?'))
            .collect();
        names
            .windows(2)
            .filter(|p| {
                p.iter().all(|w| {
                    crate::text::is_plain_name(w) && !crate::text::is_stopword(&w.to_lowercase())
                }) && p.iter().any(|w| identifiers.iter().any(|i| i == w))
            })
            .take(MAX_MEMBER_PAIRS)
            .map(|p| format!("{}.{}", p[0], p[1]))
            .collect()
    };
    let location = location(q);
    let file = if location.is_none() {
        file_path(q)
    } else {
        None
    };
    let kebab = if kind == QueryKind::Literal {
        Vec::new()
    } else {
        words
            .iter()
            .map(|w| w.trim_matches(|c: char| matches!(c, ',' | '`' | '"' | '(' | ')' | '\'')))
            .filter(|w| is_kebab(w))
            .map(String::from)
            .collect()
    };
    let capitalised = if kind == QueryKind::NaturalLanguage {
        words
            .iter()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
            .filter(|w| is_capitalised_word(w) && !identifiers.iter().any(|i| i == w))
            .map(String::from)
            .collect()
    } else {
        Vec::new()
    };
    Analysis {
        kind,
        identifiers,
        phrases,
        members,
        location,
        file,
        named: Vec::new(),
        unknown_path: None,
        declared,
        kebab,
        capitalised,
        words: words.len(),
    }
}

/// The analysis of a query whose name after a declaration keyword
/// ([`Analysis::declared`]) has a definition of exactly that name and of a
/// kind the keyword declares: an identifier query for it (`struct
/// strbuf`); otherwise as it was (`type checking`, `union find` stay
/// questions when no type `checking` or union `find` is defined). Its
/// kebab-case words ([`Analysis::kebab`]) that name a definition in code
/// become identifiers the same way.
/// A word written with a capital and then lower-case letters or digits
/// only (`Traversal`, `Router2`), not a stopword (`Where`, `How`).
fn is_capitalised_word(w: &str) -> bool {
    let mut chars = w.chars();
    chars.next().is_some_and(|c| c.is_ascii_uppercase())
        && w.len() >= 3
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && !crate::text::is_stopword(&w.to_lowercase())
}

/// Kinds a capitalised word of a question must be defined as to count as
/// a name.
const CAPITALISED_KINDS: &[&str] = &["class", "struct", "interface", "trait", "enum", "type"];

fn confirm_declared(store: &Store, mut analysis: Analysis) -> Result<Analysis> {
    // A capitalised word of a question that names a type the index
    // defines is a name (the symbol arm then runs at the weight names get).
    for word in analysis.capitalised.clone() {
        if is_defined(store, &word, CAPITALISED_KINDS)? && !analysis.identifiers.contains(&word) {
            analysis.identifiers.push(word);
        }
    }
    // Kebab-case words the index defines in code are names: of the whole
    // query when it is at most three words (`helm-acase macro`), else
    // among the question's words.
    let mut defined = Vec::new();
    for word in &analysis.kebab {
        if is_defined(store, word, &[])? {
            defined.push(word.clone());
        }
    }
    if !defined.is_empty() {
        if analysis.kind == QueryKind::NaturalLanguage && analysis.words <= 3 {
            analysis.kind = QueryKind::Identifier;
        }
        for word in defined {
            if !analysis.identifiers.contains(&word) {
                analysis.identifiers.push(word);
            }
        }
    }
    let Some((name, kinds)) = analysis.declared.clone() else {
        return Ok(analysis);
    };
    if is_defined(store, &name, kinds)? {
        analysis.kind = QueryKind::Identifier;
        analysis.identifiers = vec![name];
    }
    Ok(analysis)
}

/// Whether the index has a definition named exactly `name`, of one of
/// `kinds` (any kind when empty). Only code has definitions.
fn is_defined(store: &Store, name: &str, kinds: &[&str]) -> Result<bool> {
    let q = SymbolQuery {
        name: name.to_string(),
        kinds: kinds.iter().map(|k| (*k).to_string()).collect(),
        lang: None,
        mode: MatchMode::Exact,
        limit: 1,
    };
    Ok(!find_symbols(store, None, &q)?.hits.is_empty())
}

/// The analysis with the indexed files its location or file name names
/// ([`Analysis::named`], read once here for both `gather` and `rank`); a
/// file name no indexed file has is then searched as text only.
fn confirm_named(store: &Store, root: &Path, mut analysis: Analysis) -> Result<Analysis> {
    let path = match (&analysis.location, &analysis.file) {
        (Some((path, _)), _) | (None, Some(path)) => path,
        (None, None) => return Ok(analysis),
    };
    analysis.named = best_named_paths(store, root, path)?;
    if analysis.named.is_empty() {
        // Said of a location, or of a name that is a path or has a code
        // file's extension (`permute.lua`), not of a qualified name that
        // happens to look like a file (`Security.validate_csrf_token`).
        if analysis.location.is_some() || path.contains('/') || crate::lang::is_code_extension(path)
        {
            analysis.unknown_path = Some(path.clone());
        }
        analysis.file = None;
    }
    Ok(analysis)
}

/// The weight of the word-pair arm ([`Arm::Phrase`]) for questions: a
/// chunk where two of the question's words stand next to each other
/// ("terminal width", `notifyListeners` for "notifying listeners") gets a
/// vote of its own. Chosen offline on the `agent` suite's tuning half
/// (0.2-1.0; 0.3-0.45 a plateau). `repo-search-eval run agent` (fast
/// tier), NDCG@10 files: tuning half .873 → .879, checking half .851 →
/// .854, concept questions .794 → .804; `nl` hybrid MRR@10 .328 → .334.
/// It and the synonym arm run with the full tier's vectors too (session
/// 76, MiniLM vectors on 25 tuning and 23 checking corpora: files NDCG@10
/// .8735 → .8776 and .8703 → .8728, 122 questions up and 81 down; not
/// running them had been measured as flat on 13 corpora). A
/// NEAR/3 window instead of a phrase, or phrases in the symbol and path
/// columns only, lost on both halves, and the phrases ORed into the BM25
/// arm's own expression lost .007 on the checking half.
const PHRASE_WEIGHT: f64 = 0.4;
/// Candidates the word-pair arm lists: its votes fade with rank (at 20,
/// 0.4 / 30 of a file's standing), and each costs a snippet read.
const PHRASE_CANDIDATES: usize = 20;

/// The weight of the synonym arm ([`Arm::Synonym`]) for short questions:
/// a chunk that says what the question asks in the code's own words
/// ("fake responses for testing" → `mock.py`, "dump variables inside a
/// template" → `DumpExtension`), from a hand-written thesaurus of
/// programming words (`search/thesaurus.txt`, written from general usage,
/// not from the suite). `repo-search-eval run agent` (fast tier), NDCG@10
/// files on questions of at most 7 words: tuning half .815 → .819,
/// checking half .792 → .798, holdout .723 → .751; whole splits +.001 /
/// +.002 / +.007; `nl` hybrid MRR@10 .519 → .522. Weights 0.6-1.0 and
/// 20-80 candidates score within ±.002 of each other.
const SYNONYM_WEIGHT: f64 = 0.8;
/// Candidates the synonym arm lists.
const SYNONYM_CANDIDATES: usize = 20;
/// The longest question (in words, split at whitespace) the synonym arm
/// runs for: longer ones carry enough of their own words, and there the
/// synonyms only added noise (older questions of the checking half −.005).
const SYNONYM_MAX_WORDS: usize = 7;

/// Whether a question is short enough for its synonyms to count: the
/// synonym arm runs and [`SYNONYM_NAME_BOOST`] applies.
fn within_synonym_words(query: &str) -> bool {
    query.split_whitespace().count() <= SYNONYM_MAX_WORDS
}

/// Per-arm weights for a query kind (an arm weighing 0 is not run).
pub fn weights(kind: QueryKind) -> [(Arm, f64); 6] {
    match kind {
        QueryKind::Identifier => [
            (Arm::Symbol, 2.0),
            (Arm::Keyword, 1.0),
            (Arm::Bm25, 0.7),
            (Arm::Semantic, 0.4),
            (Arm::Phrase, 0.0),
            (Arm::Synonym, 0.0),
        ],
        QueryKind::Literal => [
            (Arm::Keyword, 2.0),
            (Arm::Bm25, 0.8),
            (Arm::Symbol, 0.5),
            (Arm::Semantic, 0.4),
            (Arm::Phrase, 0.0),
            (Arm::Synonym, 0.0),
        ],
        // Small symbol/keyword weights (a grid on the `nl` suite's arm
        // lists). The semantic weight is the fast tier's: with file-level
        // ranking and potion-base-8M as it was, 0.5 beat 1.0 on both halves
        // of the `agent` suite; with the code delta (`embed::code_delta`)
        // 1.0 is best on the tuning half (0.5 / 0.7 / 1.0 / 1.3: .8615 /
        // .8642 / .8646 / .8644); the full tier gets its own (see
        // `FULL_TIER_BOOST`).
        QueryKind::NaturalLanguage => [
            (Arm::Bm25, 1.0),
            (Arm::Semantic, 1.0),
            (Arm::Symbol, 0.15),
            (Arm::Keyword, 0.1),
            (Arm::Phrase, PHRASE_WEIGHT),
            (Arm::Synonym, SYNONYM_WEIGHT),
        ],
    }
}

#[derive(Debug, Clone)]
pub struct HybridRequest {
    pub query: String,
    pub filter: ChunkFilter,
    pub scope: Scope,
    pub limit: usize,
    pub snippet_lines: usize,
    /// Lines of context around the snippet.
    pub context: usize,
    /// List the definitions of each hit's file nearest it.
    pub with_file_symbols: bool,
    /// Run only these arms (all when empty): the single-arm modes.
    pub only: Vec<Arm>,
    /// The RRF constant (default [`RRF_K`]).
    pub k: f64,
    /// The semantic arm leaves out chunks below this cosine similarity.
    pub threshold: Option<f32>,
    /// When recently changed files are preferred (see [`recency_boost`]):
    /// the project's change times; `None` ranks without them.
    pub recency: Option<Arc<Recency>>,
    /// The project's walk (the index's own) and, when a watcher (the
    /// server's own or a daemon) vouches for the index's file list, what
    /// changed since the last index run: the keyword arm then reads the
    /// listed files instead of walking the tree ([`Listed`], as the keyword
    /// search does; 0.25 s of walk on the Linux kernel). `None`: it walks,
    /// past the files the index's trigram postings rule out.
    pub keyword_listing: Option<(WalkOptions, Vec<String>)>,
}

/// Which arm found a hit, at what rank (1-based).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Source {
    pub arm: Arm,
    pub rank: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct HybridHit {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub symbol: Option<String>,
    pub kind: Option<String>,
    pub lang: String,
    /// 0–1: the fused score divided by the best score a hit could get.
    pub score: f64,
    pub sources: Vec<Source>,
    pub snippet_line: u32,
    pub snippet: String,
    /// The definitions of the hit's file nearest it (with `with_file_symbols`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub file_symbols: Vec<String>,
    /// How much recency raised the hit's file (`0.12`: its score × 1.12),
    /// when recently changed files were preferred and this one was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recency: Option<f64>,
    /// In fused modes, where else this file matched, best first (at most
    /// [`ALSO_SPANS`]): the file's further hits, folded into its best one
    /// so the list shows one hit per file.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<AlsoSpan>,
}

/// A further place a hit's file matched (see [`HybridHit::also`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AlsoSpan {
    pub start_line: u32,
    pub end_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

/// As answers show it: `start-end name` (`120-140 URLResolver.resolve`).
impl std::fmt::Display for AlsoSpan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.start_line, self.end_line)?;
        match &self.symbol {
            Some(s) => write!(f, " {s}"),
            None => Ok(()),
        }
    }
}

/// A hit's further places as answers print them, `120-140 name; 200-230`,
/// places of one name together (`825-861, 381-427 Serializer`: the pieces
/// of a long definition repeated its name). `places` are `start-end name`
/// texts, as [`AlsoSpan`] displays them.
pub fn also_text<S: AsRef<str>>(places: &[S]) -> String {
    let mut groups: Vec<(Vec<&str>, &str)> = Vec::new();
    for p in places {
        let (span, name) = p.as_ref().split_once(' ').unwrap_or((p.as_ref(), ""));
        match groups
            .iter_mut()
            .find(|(_, n)| !name.is_empty() && *n == name)
        {
            Some((spans, _)) => spans.push(span),
            None => groups.push((vec![span], name)),
        }
    }
    groups
        .iter()
        .map(|(spans, name)| {
            let spans = spans.join(", ");
            if name.is_empty() {
                spans
            } else {
                format!("{spans} {name}")
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Most further places of a file one fused hit lists (see [`HybridHit::also`]).
pub const ALSO_SPANS: usize = 3;

#[derive(Debug, Clone, Serialize)]
pub struct ArmReport {
    pub arm: Arm,
    pub weight: f64,
    pub candidates: usize,
    /// Why the arm did not run or found nothing useful.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HybridResult {
    pub query: String,
    pub query_interpretation: String,
    pub query_kind: QueryKind,
    pub arms: Vec<ArmReport>,
    /// Semantic model used, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub semantic_model: Option<String>,
    /// What the semantic arm said about its vectors (availability, model,
    /// coverage), when it ran; its hits are in `hits`.
    #[serde(skip)]
    pub semantic: Option<SemanticInfo>,
    pub hits: Vec<HybridHit>,
    /// A location query whose line lies past the end of the file it
    /// names: the file, the line asked for and the file's last indexed
    /// line. The file's main chunk leads instead.
    #[serde(skip)]
    pub past_end: Option<PastEnd>,
    /// A location or file name the query is made of that no indexed file
    /// matches: the query was searched as words ([`unknown_path_note`]).
    #[serde(skip)]
    pub unknown_path: Option<String>,
}

/// What an answer says of a location or file name no indexed file matches.
pub fn unknown_path_note(path: &str) -> String {
    format!("no indexed file matches `{path}`: searched as words instead")
}

/// A location query's line past the end of its file ([`HybridResult::past_end`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PastEnd {
    pub path: String,
    pub line: u32,
    pub last_line: u32,
}

impl PastEnd {
    /// What the answer says about it.
    pub fn note(&self) -> String {
        format!(
            "line {} is past the end of {} ({} lines): its main chunk first",
            self.line, self.path, self.last_line
        )
    }
}

/// A candidate from one arm.
#[derive(Debug, Clone, Serialize)]
pub struct Cand {
    pub arm: Arm,
    pub rank: u32,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub symbol: Option<String>,
    pub kind: Option<String>,
    pub lang: String,
    pub snippet: Option<(u32, String)>,
    /// Where the chunk is, when its snippet is read only if it is shown
    /// (BM25 and semantic candidates, [`Snippets::Later`]).
    #[serde(skip)]
    pub span: Option<ChunkSpan>,
    /// The arm's own score (BM25, cosine similarity; 0 for the others).
    pub raw: f64,
    /// [`crate::search::chunk_prior`], once per candidate (it reads the
    /// path's components; fusion weighs it several times).
    #[serde(skip)]
    pub prior: f64,
    /// The chunk's file is generated code or build output: by its name,
    /// its header comment, or a candidate grammar beside it.
    #[serde(skip)]
    pub generated: bool,
    /// ...and of those, build output: a bundle, a minified or source-mapped
    /// compiled copy ([`crate::search::is_build_output`], or a source map's
    /// address at its end).
    #[serde(skip)]
    pub compiled: bool,
    /// The size in bytes of the chunk's file, as the store has it (0 when
    /// it could not say).
    #[serde(skip)]
    pub file_size: u64,
}

impl Cand {
    /// Sets [`Cand::prior`] from the candidate's path, language and name.
    fn with_prior(mut self) -> Cand {
        self.prior = crate::search::chunk_prior(&self.path, &self.lang, self.symbol.as_deref());
        self.compiled = crate::search::is_build_output(&self.path);
        self.generated = crate::search::is_generated_path(&self.path) || self.compiled;
        self
    }

    /// Ranks the candidate as generated code that its path alone did not
    /// say was generated ([`GENERATED_PRIOR`]).
    fn mark_generated(&mut self) {
        self.prior *= crate::search::GENERATED_PRIOR;
        self.generated = true;
    }

    /// Ranks the candidate as build output that its path alone did not say
    /// was ([`crate::search::BUILD_OUTPUT_PRIOR`]).
    fn mark_compiled(&mut self) {
        self.prior *= crate::search::BUILD_OUTPUT_PRIOR;
        self.generated = true;
        self.compiled = true;
    }
}

/// A candidate generated from a grammar that is a candidate too (Bison's
/// `parser.c` and `parser.h` beside `parser.y`, flex's `lexer.c` beside
/// `lexer.l`) ranks as other generated code does ([`GENERATED_PRIOR`]):
/// the grammar is where the syntax is written, the C repeats its
/// vocabulary in tables and actions.
fn demote_generated_siblings(cands: &mut [Cand]) {
    let grammars: std::collections::HashSet<(&str, &str)> = cands
        .iter()
        .filter_map(|c| {
            let (base, ext) = split_ext(&c.path)?;
            crate::lang::is_grammar_extension(ext).then_some(base)
        })
        .collect();
    if grammars.is_empty() {
        return;
    }
    let generated: Vec<bool> = cands
        .iter()
        .map(|c| {
            split_ext(&c.path).is_some_and(|(base, ext)| {
                !crate::lang::is_grammar_extension(ext) && grammars.contains(&base)
            })
        })
        .collect();
    for (c, generated) in cands.iter_mut().zip(generated) {
        if generated {
            c.mark_generated();
        }
    }
}

/// The candidates' files, each once, in path order.
fn candidate_files(cands: &[Cand]) -> Vec<&str> {
    let mut paths: Vec<&str> = cands.iter().map(|c| c.path.as_str()).collect();
    paths.sort_unstable();
    paths.dedup();
    paths
}

/// A candidate whose file says atop it that a tool wrote it
/// (`files.generated`, see [`crate::search::has_generated_marker`]) ranks
/// as generated code does by its name ([`GENERATED_PRIOR`], once), and one
/// that ends with a source map's address as build output does
/// ([`crate::search::BUILD_OUTPUT_PRIOR`]: react-native-screens' compiled
/// `lib/module/` and `lib/commonjs/` copies took 11 of 100 top-10 places
/// beside their `src/`): a bundle or a generated table repeats the
/// vocabulary of the code it was made from. A store that cannot say
/// leaves the priors as they are. Each candidate learns its file's size
/// here too ([`Cand::file_size`]).
fn read_file_facts(store: &Store, cands: &mut [Cand]) {
    // The sources each script file may be a build's copy of.
    let mut sources: HashMap<String, Vec<String>> = HashMap::new();
    for c in cands.iter() {
        if !sources.contains_key(&c.path) {
            sources.insert(
                c.path.clone(),
                crate::search::sources_of_copy(&c.path, script_family(&c.lang)),
            );
        }
    }
    let mut paths: Vec<&str> = candidate_files(cands);
    paths.extend(sources.values().flatten().map(String::as_str));
    paths.sort_unstable();
    paths.dedup();
    let facts = match store.file_facts_among(&paths) {
        Ok(f) => f,
        Err(e) => {
            tracing::debug!("generated files and sizes not read: {e}");
            return;
        }
    };
    for c in cands.iter_mut() {
        let Some(&(generated, size)) = facts.get(&c.path) else {
            continue;
        };
        c.file_size = size;
        if !c.compiled
            && sources
                .get(&c.path)
                .is_some_and(|of| of.iter().any(|s| facts.contains_key(s)))
        {
            c.mark_compiled();
            continue;
        }
        match generated {
            Generated::Compiled if !crate::search::is_build_output(&c.path) => {
                c.mark_compiled();
            }
            Generated::Marked if !crate::search::is_generated_path(&c.path) => {
                c.mark_generated();
            }
            _ => {}
        }
    }
}

/// A path's directory and file stem (up to the first dot, as
/// [`crate::search::file_stem`]), and its last extension: `src/parser.y` →
/// `(("src", "parser"), "y")`, Bison's `src/parser.tab.c` → `(("src",
/// "parser"), "c")`.
fn split_ext(path: &str) -> Option<((&str, &str), &str)> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let (_, ext) = name.rsplit_once('.')?;
    Some(((dir, crate::search::file_stem(name)), ext))
}

/// What the arms found for one query, before fusion.
pub struct Gathered {
    pub analysis: Analysis,
    pub cands: Vec<Cand>,
    pub reports: Vec<ArmReport>,
    pub semantic: Option<SemanticInfo>,
    /// For a question the semantic arm answered in a fused mode: each
    /// candidate file's mean similarity to it over all its chunks
    /// ([`crate::search::semantic::SemanticIndex::file_means`]).
    pub file_means: HashMap<String, f64>,
    /// The fast model, for a question the fast tier answered in a fused
    /// mode: its tokens match the question against the candidates
    /// ([`Gathered::token_match_files`]).
    pub token_model: Option<Arc<dyn Embedder>>,
}

/// The best files by token match ([`crate::search::token_match`]) that join
/// a question's file ranking, as one more list weighing this much.
const TOKEN_MATCH_FILES: usize = 5;
const TOKEN_MATCH_WEIGHT: f64 = 0.6;
/// Only the candidates of the files fusion ranks first are matched (the
/// match's time is reading and tokenizing them): on the `agent` suite the
/// best 30 give the same answers as all, the best 10 lose .005 on the
/// checking half.
const TOKEN_MATCH_POOL: usize = 30;

impl Gathered {
    /// The candidates' files best matched token by token (each file by its
    /// best candidate chunk, as its lines read now), best first, at most
    /// [`TOKEN_MATCH_FILES`], among the [`TOKEN_MATCH_POOL`] files fusion
    /// ranks first (with RRF constant `k`); empty without a token model or
    /// on any failure (logged: the ranking goes on without them).
    pub fn token_match_files(
        &self,
        sources: &mut Sources<'_>,
        query: &str,
        k: f64,
    ) -> Vec<(String, f64)> {
        let Some(table) = self.token_model.as_deref().and_then(|m| m.token_table()) else {
            return Vec::new();
        };
        let fused = file_scores(
            &self.cands,
            &|arm| weight_in(&self.reports, arm),
            k,
            &self.analysis,
            query,
            &[],
            FileEvidence {
                means: &self.file_means,
                text: &mut no_text,
            },
        );
        let pool: HashSet<&str> = best_first(&fused)
            .into_iter()
            .take(TOKEN_MATCH_POOL)
            .map(|(p, _)| p.as_str())
            .collect();
        let cands: Vec<&Cand> = self
            .cands
            .iter()
            .filter(|c| pool.contains(c.path.as_str()))
            .collect();
        match token_match_files(table, sources, query, &cands) {
            Ok(files) => files,
            Err(e) => {
                tracing::debug!("no token match: {e:#}");
                Vec::new()
            }
        }
    }
}

/// The arm's weight in a query's fusion (0 when it did not run).
fn weight_in(reports: &[ArmReport], arm: Arm) -> f64 {
    reports
        .iter()
        .find(|r| r.arm == arm)
        .map(|r| r.weight)
        .unwrap_or(0.0)
}

fn token_match_files(
    table: &dyn TokenTable,
    sources: &mut Sources<'_>,
    query: &str,
    cands: &[&Cand],
) -> Result<Vec<(String, f64)>> {
    let t0 = std::time::Instant::now();
    let Some(question) = token_match::Question::new(table, query)? else {
        return Ok(Vec::new());
    };
    // Each chunk once, in the arms' order; a file read once, up to the size
    // the index recorded when a candidate knows it.
    let mut sizes: HashMap<&str, u64> = HashMap::new();
    for c in cands {
        if let Some(span) = &c.span {
            sizes.entry(c.path.as_str()).or_insert(span.file_size);
        }
    }
    let mut seen: HashSet<(&str, u32, u32)> = HashSet::new();
    let mut chunks: Vec<&Cand> = Vec::new();
    for &c in cands {
        if seen.insert((c.path.as_str(), c.start_line, c.end_line)) {
            chunks.push(c);
        }
    }
    // Where each line starts, per file, computed once, up to the last
    // line a chunk of the file needs.
    let mut last_line: HashMap<&str, usize> = HashMap::new();
    for c in &chunks {
        let last = last_line.entry(c.path.as_str()).or_default();
        *last = (*last).max(c.end_line as usize);
    }
    let mut line_starts: HashMap<&str, Vec<usize>> = HashMap::new();
    let mut paths: Vec<&str> = Vec::with_capacity(chunks.len());
    let mut texts: Vec<String> = Vec::with_capacity(chunks.len());
    for c in chunks {
        let size = sizes.get(c.path.as_str()).copied().unwrap_or(0);
        let Some(file) = sources.file(&c.path, size) else {
            continue;
        };
        let starts = line_starts.entry(c.path.as_str()).or_insert_with(|| {
            let last = last_line.get(c.path.as_str()).copied().unwrap_or(0);
            std::iter::once(0)
                .chain(memchr::memchr_iter(b'\n', file.as_bytes()).map(|i| i + 1))
                .take(last + 1)
                .collect()
        });
        let start = c.start_line.max(1) as usize;
        let end = (c.end_line as usize).max(start);
        let Some(&from) = starts.get(start - 1) else {
            continue;
        };
        let to = starts.get(end).map_or(file.len(), |&next| next - 1);
        paths.push(c.path.as_str());
        texts.push(token_match::candidate_text(
            &c.path,
            c.symbol.as_deref(),
            file.get(from..to.max(from)).unwrap_or_default(),
        ));
    }
    let scores = question.scores(table, &texts)?;
    tracing::debug!(
        chunks = texts.len(),
        us = t0.elapsed().as_micros() as u64,
        "token match"
    );
    let mut best: HashMap<&str, f64> = HashMap::new();
    for (p, s) in paths.into_iter().zip(scores) {
        let b = best.entry(p).or_insert(s);
        *b = b.max(s);
    }
    let mut files: Vec<(String, f64)> = best.into_iter().map(|(p, s)| (p.to_string(), s)).collect();
    files.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    files.truncate(TOKEN_MATCH_FILES);
    Ok(files)
}

fn from_chunk(arm: Arm, rank: u32, h: ChunkHit) -> Cand {
    Cand {
        arm,
        rank,
        raw: h.score,
        path: h.path,
        start_line: h.start_line,
        end_line: h.end_line,
        symbol: h.symbol,
        kind: h.kind,
        lang: h.lang,
        snippet: h.span.is_none().then_some((h.snippet_line, h.snippet)),
        span: h.span,
        prior: 1.0,
        generated: false,
        compiled: false,
        file_size: 0,
    }
    .with_prior()
}

/// Further read connections to the index a search reads: the BM25 and
/// synonym arms, the costliest on a large index (5-9 and 4-22 ms of a
/// Django question, 45k chunks), each run on its own thread over one while
/// the other arms read the first. A connection is taken for one search and
/// given back after it.
pub trait SpareStores {
    /// A connection to the same index file, if one can be had.
    fn take(&self) -> Option<Store>;
    /// Returns a connection [`SpareStores::take`] gave.
    fn give_back(&self, store: Store);
}

/// Every arm on the caller's connection, one after another.
pub struct NoSpare;

impl SpareStores for NoSpare {
    fn take(&self) -> Option<Store> {
        None
    }
    fn give_back(&self, _store: Store) {}
}

/// A full-text arm running on its own thread: its slot among the arms, the
/// arm, its weight, and the thread, which hands its connection back with
/// the hits.
type SideArm = (
    usize,
    Arm,
    f64,
    std::thread::JoinHandle<(Store, Result<Vec<ChunkHit>>)>,
);

/// Keeps the warm parts of hybrid search (the semantic matrix and query
/// model) across queries in long-lived processes.
pub struct Hybrid {
    semantic: Option<SemanticSearcher>,
    /// The files earlier searches read (the token match's and the
    /// snippets'), for a searcher that answers many questions.
    files: crate::source::FileCache,
}

impl Hybrid {
    pub fn new(semantic: Option<SemanticSearcher>) -> Hybrid {
        Hybrid {
            semantic,
            files: crate::source::FileCache::new(),
        }
    }

    /// The warm semantic searcher, for callers that want its own answer
    /// (the MCP `search_semantic` and `similar_code` tools), so the vector
    /// matrix is loaded once per process.
    pub fn semantic_mut(&mut self) -> Option<&mut SemanticSearcher> {
        self.semantic.as_mut()
    }

    pub fn search(
        &mut self,
        store: &Store,
        spare: &dyn SpareStores,
        root: &Path,
        req: &HybridRequest,
    ) -> Result<HybridResult> {
        let started = std::time::Instant::now();
        let gathered = self.gather(store, spare, root, req)?;
        let gathered_ms = started.elapsed().as_secs_f64() * 1000.0;
        let mut ranked = self.rank(store, root, req, gathered)?;
        tracing::debug!(
            gather_ms = gathered_ms,
            rank_ms = started.elapsed().as_secs_f64() * 1000.0 - gathered_ms,
            "hybrid search"
        );
        // A ranking short of the depth asked for, while an arm had more
        // candidates than it took (its chunks gathered in a few files: a
        // small repository's first 55 chunks can fill 7 files), goes on
        // with the hits a deeper pool ranks, after its own. The pools come
        // in fixed steps, so every page continues one order.
        let mut pool = candidates_for(STABLE_DEPTH);
        let mut arms = ranked.arms.clone();
        for depth in DEEP_DEPTHS {
            let truncated = arms.iter().any(|r| r.candidates >= pool);
            if ranked.hits.len() >= req.limit || !truncated {
                break;
            }
            pool = candidates_for(depth);
            let deeper = self.gather_from(store, spare, root, req, pool)?;
            let more = self.rank(store, root, req, deeper)?;
            let grouped = req.only.len() != 1;
            for h in more.hits {
                if ranked.hits.len() == req.limit {
                    break;
                }
                let shown = ranked.hits.iter().any(|s| {
                    s.path == h.path
                        && (grouped || (s.start_line == h.start_line && s.end_line == h.end_line))
                });
                if !shown {
                    ranked.hits.push(h);
                }
            }
            arms = more.arms;
        }
        Ok(ranked)
    }

    /// Validates the query and runs the arms: every candidate each arm
    /// found, with its rank and raw score (what fusion starts from; the
    /// eval's tuning dumps it).
    pub fn gather(
        &mut self,
        store: &Store,
        spare: &dyn SpareStores,
        root: &Path,
        req: &HybridRequest,
    ) -> Result<Gathered> {
        let cand_n = candidates_for(STABLE_DEPTH);
        self.gather_from(store, spare, root, req, cand_n)
    }

    /// [`Hybrid::gather`] asking each arm for `cand_n` candidates.
    fn gather_from(
        &mut self,
        store: &Store,
        spare: &dyn SpareStores,
        root: &Path,
        req: &HybridRequest,
        cand_n: usize,
    ) -> Result<Gathered> {
        let query = req.query.trim();
        if query.is_empty() {
            return Err(UserError::with_code(ErrorCode::InvalidQuery, "empty query")
                .hint("describe what you look for, e.g. `validate csrf token`, or give a name like `parse_config`")
                .into());
        }
        if query.len() > 2000 {
            return Err(UserError::with_code(
                ErrorCode::InvalidQuery,
                "the query is longer than 2000 characters",
            )
            .hint("shorten it to the key words or names")
            .into());
        }
        let analysis = confirm_named(store, root, confirm_declared(store, analyze(query))?)?;
        // A file asked for by name or location: names defined like it
        // (`main.c` the field) and lines mentioning it (or its line
        // number, `300` of `context.go:300`) answer another question. A
        // name no indexed file has is searched as anything else
        // (`Security.validate_csrf_token` is shaped like `SECURITY.md`).
        let names_file =
            analysis.file.is_some() || (analysis.location.is_some() && !analysis.named.is_empty());
        if crate::text::fts_query(query).is_none() && analysis.phrases.is_empty() {
            // An operator (`(^.)`, `>>=`): `symbol` finds its definition.
            let (hint, agent) = if query.chars().any(char::is_alphanumeric) {
                ("", "")
            } else {
                (
                    "; an operator's definition: `repo-search symbol '(OP)'`",
                    "; an operator's definition: find_symbol with its name",
                )
            };
            return Err(UserError::with_code(ErrorCode::InvalidQuery, "the query has no searchable words")
                .hint(format!("use words or identifiers, e.g. `parse config file`; for punctuation or a regex use `repo-search keyword`{hint}"))
                .agent(format!("use words or identifiers, e.g. \"parse config file\"; for punctuation or exact text use search_keyword{agent}"))
                .into());
        }
        let runs = |arm: Arm| req.only.is_empty() || req.only.contains(&arm);
        let weights = weights(analysis.kind);
        // Set by the semantic arm when its vectors are full-tier ones.
        let mut semantic_boost = 1.0;
        let mut reports: Vec<ArmReport> = Vec::new();
        let mut cands: Vec<Cand> = Vec::new();
        let mut semantic_report: Option<SemanticInfo> = None;
        // The symbol arm's names spelled like the query's (no definition
        // is named so): where the keyword arm finds the name as written,
        // it is spelled right and only not defined (kramdown's `to_html`,
        // which `method_missing` answers), so these guesses go.
        let mut spelled_like: HashSet<(String, u32)> = HashSet::new();
        // Whether the symbol arm found a definition named as asked.
        let mut named_defined = false;
        let docs_only = req.scope == Scope::Docs;
        // The keyword arm reads files, not the index: start it first, on its
        // own thread, so its walk overlaps the other arms.
        let keyword_literals = keyword_literals(&analysis);
        let mut keyword_skipped: Option<String> = None;
        let keyword_run = (runs(Arm::Keyword)
            && !docs_only
            && !names_file
            && !keyword_literals.is_empty())
        .then(|| {
            let kreq = KeywordRequest {
                patterns: keyword_literals.iter().take(5).cloned().collect(),
                fixed_strings: true,
                case: CaseMode::Sensitive,
                word: false,
                // No cap on the total: which files a capped parallel
                // search reaches first depends on thread timing, and the
                // arm must rank the same every time. Lines per file are
                // capped instead (the arm ranks files by their count of
                // matches).
                max_count: Some(cand_n as u64),
                max_results: None,
                walk: WalkOptions::default(),
                ..KeywordRequest::default()
            };
            // As `keyword` reads: where a watcher vouches for the index's
            // file list, the listed files are read without a walk;
            // otherwise the index's trigram postings rule out the walked
            // files that cannot match. Either way the result is the
            // walk's: on the Linux kernel an identifier's candidate files
            // are read instead of 78k, and on a project of 400 files a
            // name's search takes 2-3 ms less (on one of 40 files, loading
            // the postings costs 0.2 ms more than the walk saves).
            let large = store.is_large().unwrap_or(false);
            // The arm asked for alone (`--mode keyword`) always reads.
            let alone = req.only == [Arm::Keyword];
            // A literal no n-gram narrows (`mm` of `task_struct.mm`) would
            // be a walk of every file: 1.6 s warm on the kernel.
            if large && !alone && crate::search::ngram::plan(&kreq).is_all() {
                keyword_skipped = Some(
                    "skipped: too short to look up in the index's n-grams (the other arms rank it)"
                        .into(),
                );
                return None;
            }
            let listed = req.keyword_listing.as_ref().and_then(|(walk, changed)| {
                Listed::load(store, root, walk, &kreq, changed).unwrap_or_else(|e| {
                    tracing::debug!("keyword arm: index list not used: {e:#}");
                    None
                })
            });
            let postings = if listed.is_some() {
                None
            } else {
                IndexFilter::load(store, &kreq).unwrap_or_else(|e| {
                    tracing::debug!("keyword arm: postings not used: {e}");
                    None
                })
            };
            // The files the postings admit, listed or walked alike (both
            // also read what the postings do not cover, such as binaries).
            let admitted = match &listed {
                Some(l) => Some(l.admitted),
                None => postings.as_ref().map(|f| f.counts().1),
            };
            tracing::debug!(
                listed = listed.is_some(),
                admitted,
                "keyword arm: files the postings admit (None: every walked file)"
            );
            if let Some(n) = admitted.filter(|&n| !alone && n > KEYWORD_ARM_MAX_FILES) {
                keyword_skipped = Some(format!(
                    "skipped: in {n} files, too common to rank files by (the other arms rank it)"
                ));
                return None;
            }
            let root = root.to_path_buf();
            let spawned = std::thread::Builder::new()
                .name("repo-search-keyword-arm".into())
                .spawn(move || match listed {
                    Some(l) => search_keyword_listed(&root, &kreq, &l.files, l.ruled_out),
                    None => search_keyword_with(
                        &root,
                        &kreq,
                        postings.as_ref().map(|f| f as &dyn RuleOut),
                    ),
                });
            Some(spawned)
        });
        let mut keyword_run = keyword_run.flatten();
        // The BM25 arm starts first, on a spare connection on its own
        // thread when there is one; the semantic arm runs next and the
        // synonym arm after it (whether the synonyms run depends on the
        // tier that answered), on a spare connection of its own too. The
        // arms on their own threads are joined after the others, the
        // keyword arm's last, so its walk overlaps every other arm. Each
        // arm's report and candidates then go back to the arms' own order
        // (ties in fusion keep it).
        let mut order: Vec<(usize, (Arm, f64))> = weights.into_iter().enumerate().collect();
        order.sort_by_key(|(_, (arm, _))| match arm {
            Arm::Bm25 => 0,
            Arm::Semantic => 1,
            Arm::Synonym => 2,
            Arm::Keyword => 4,
            _ => 3,
        });
        let mut done: Vec<(usize, ArmReport, Vec<Cand>)> = Vec::new();
        let mut side: Vec<SideArm> = Vec::new();
        // Runs a full-text arm on a spare connection on its own thread:
        // false when there is no spare connection, an error when no thread
        // could start (the connection went with the closure).
        let spawn_text_arm = |slot: usize,
                              arm: Arm,
                              weight: f64,
                              words: Words,
                              n: usize,
                              side: &mut Vec<SideArm>|
         -> std::result::Result<bool, String> {
            let Some(spare_store) = spare.take() else {
                return Ok(false);
            };
            let (query, filter) = (query.to_string(), req.filter.clone());
            let root = root.to_path_buf();
            let spawned = std::thread::Builder::new()
                .name(format!("repo-search-{}-arm", arm.name()))
                .spawn(move || {
                    let started = std::time::Instant::now();
                    let hits = search_bm25(
                        &spare_store,
                        &root,
                        &query,
                        words,
                        &filter,
                        n,
                        Snippets::Later,
                    );
                    tracing::debug!(
                        ?arm,
                        ms = started.elapsed().as_secs_f64() * 1000.0,
                        "hybrid arm (own thread)"
                    );
                    (spare_store, hits)
                });
            match spawned {
                Ok(handle) => {
                    side.push((slot, arm, weight, handle));
                    Ok(true)
                }
                Err(e) => Err(format!("cannot start the {} arm: {e}", arm.name())),
            }
        };
        for (slot, (arm, weight)) in order {
            if !runs(arm) || weight == 0.0 {
                continue;
            }
            let mut note = None;
            let arm_started = std::time::Instant::now();
            match arm {
                Arm::Symbol | Arm::Keyword if names_file => {
                    note = Some("skipped: the query names a file".into());
                }
                Arm::Phrase if crate::text::fts_adjacent_pairs(query).is_none() => {
                    note = Some("fewer than two words to pair".into());
                }
                Arm::Synonym if !within_synonym_words(query) => {
                    note = Some(format!("skipped: more than {SYNONYM_MAX_WORDS} words"));
                }
                Arm::Synonym if crate::text::fts_synonyms(query).is_none() => {
                    note = Some("no word with synonyms".into());
                }
                Arm::Bm25 | Arm::Phrase | Arm::Synonym => {
                    let (words, n) = match arm {
                        Arm::Phrase => (Words::AdjacentPairs, PHRASE_CANDIDATES.min(cand_n)),
                        Arm::Synonym => (Words::Synonyms, SYNONYM_CANDIDATES.min(cand_n)),
                        _ => (Words::Any, cand_n),
                    };
                    // The word pairs are quick; the others get a thread.
                    let spawned = match arm {
                        Arm::Phrase => Ok(false),
                        _ => spawn_text_arm(slot, arm, weight, words, n, &mut side),
                    };
                    match spawned {
                        Ok(true) => continue,
                        Ok(false) => {}
                        // Then it runs here, on the caller's connection.
                        Err(failed) => tracing::warn!("{failed}"),
                    }
                    match search_bm25(store, root, query, words, &req.filter, n, Snippets::Later) {
                        Ok(hits) => cands.extend(
                            hits.into_iter()
                                .enumerate()
                                .map(|(i, h)| from_chunk(arm, i as u32 + 1, h)),
                        ),
                        Err(e) => note = Some(short_error(&e)),
                    }
                }
                Arm::Semantic => match self.semantic.as_mut() {
                    None => note = Some("semantic search is not configured".into()),
                    Some(s) => {
                        let sreq = SemanticRequest {
                            query: query.to_string(),
                            filter: req.filter.clone(),
                            limit: cand_n,
                            threshold: req.threshold,
                            snippets: Snippets::Later,
                        };
                        match s.search(store, root, &sreq) {
                            Ok(r) if r.available => {
                                let hits = r.hits;
                                let r = r.info;
                                if r.tier == Some(Tier::Full) {
                                    semantic_boost = FULL_TIER_BOOST;
                                }
                                if r.partial {
                                    note = Some(format!(
                                        "partial: {}/{} chunks have vectors",
                                        r.embedded, r.total
                                    ));
                                }
                                semantic_report = Some(r);
                                cands.extend(
                                    hits.into_iter()
                                        .enumerate()
                                        .map(|(i, h)| from_chunk(arm, i as u32 + 1, h)),
                                );
                            }
                            Ok(r) => {
                                note = Some(format!(
                                    "skipped: {}{}",
                                    r.reason.as_deref().unwrap_or_default(),
                                    r.hint
                                        .as_deref()
                                        .map(|h| format!(" ({h})"))
                                        .unwrap_or_default()
                                ));
                                semantic_report = Some(r.info);
                            }
                            Err(e) => note = Some(short_error(&e)),
                        }
                    }
                },
                Arm::Symbol if !docs_only => {
                    let terms: Vec<String> = if analysis.identifiers.is_empty() {
                        Vec::new()
                    } else {
                        analysis.identifiers.clone()
                    };
                    if terms.is_empty() {
                        note = Some("no identifier-like terms in the query".into());
                    }
                    let mut rank = 0u32;
                    let members = analysis
                        .members
                        .iter()
                        .map(|m| (m.clone(), MatchMode::Exact));
                    let singles = terms.iter().take(5).map(|t| (t.clone(), MatchMode::Auto));
                    for (t, mode) in members.chain(singles) {
                        let q = SymbolQuery {
                            name: t,
                            kinds: Vec::new(),
                            lang: None,
                            mode,
                            limit: cand_n,
                        };
                        // A qualifier the index cannot place (a Julia
                        // module that `include`s the file, a Ruby module
                        // reopened elsewhere) leaves the name alone to ask.
                        let found = if analysis.kind == QueryKind::Identifier {
                            find_symbols_or_bare(store, None, &q, Unplaced::Bare)
                        } else {
                            find_symbols(store, None, &q)
                        };
                        match found {
                            Ok(r) => {
                                for h in r.hits {
                                    if !req.filter.accepts(&h.path, &h.lang) {
                                        continue;
                                    }
                                    rank += 1;
                                    if h.match_kind == MatchKind::Fuzzy {
                                        spelled_like.insert((h.path.clone(), h.start_line));
                                    }
                                    named_defined |= h.match_kind.names_it();
                                    cands.push(
                                        Cand {
                                            arm,
                                            rank,
                                            path: h.path,
                                            start_line: h.start_line,
                                            end_line: h.end_line,
                                            symbol: Some(match &h.container {
                                                Some(c) => crate::search::member_path(
                                                    &h.lang, &h.kind, c, &h.name,
                                                ),
                                                None => h.name.clone(),
                                            }),
                                            kind: Some(h.kind),
                                            lang: h.lang,
                                            snippet: None,
                                            span: None,
                                            raw: match_weight(h.match_kind),
                                            prior: 1.0,
                                            generated: false,
                                            compiled: false,
                                            file_size: 0,
                                        }
                                        .with_prior(),
                                    );
                                }
                            }
                            Err(e) => note = Some(short_error(&e)),
                        }
                    }
                }
                Arm::Keyword if !docs_only => {
                    if keyword_literals.is_empty() {
                        note = Some("no quoted phrase or identifier in the query".into());
                    } else if let Some(skipped) = keyword_skipped.take() {
                        note = Some(skipped);
                    } else {
                        let found = match keyword_run.take() {
                            Some(Ok(handle)) => handle.join().unwrap_or_else(|_| {
                                Err(anyhow::anyhow!("the keyword arm panicked"))
                            }),
                            Some(Err(e)) => {
                                Err(anyhow::anyhow!("cannot start the keyword arm: {e}"))
                            }
                            None => Err(anyhow::anyhow!("the keyword arm did not start")),
                        };
                        match found {
                            Ok(r) => {
                                // Files with more matching lines first, then by line.
                                let mut per_file: HashMap<&str, usize> = HashMap::new();
                                let mut langs: HashMap<&str, &'static str> = HashMap::new();
                                for m in &r.matches {
                                    *per_file.entry(m.path.as_str()).or_default() += 1;
                                    langs
                                        .entry(m.path.as_str())
                                        .or_insert_with(|| lang_of(root, &m.path));
                                }
                                let lang = |path: &str| langs.get(path).copied().unwrap_or("other");
                                // Live code first: each file's test flag
                                // once, not per comparison (a common
                                // identifier matches thousands of lines).
                                let tests: HashMap<&str, bool> = per_file
                                    .keys()
                                    .map(|&p| (p, crate::search::is_test_path(p)))
                                    .collect();
                                // A name's lines spell it as a name or a
                                // part of one (`serializer.serialize_u64`,
                                // `parse_config_file`, `newParser`), not
                                // inside another word (`NumberDeserializer`
                                // for `serializer`); a quoted phrase is
                                // text, matched anywhere.
                                let names = analysis.phrases.is_empty();
                                let mut ms: Vec<_> = r
                                    .matches
                                    .iter()
                                    .filter(|m| req.filter.accepts(&m.path, lang(&m.path)))
                                    .filter(|m| {
                                        !names
                                            || keyword_literals
                                                .iter()
                                                .any(|l| spells_name_part(&m.text, l))
                                    })
                                    .collect();
                                ms.sort_by_cached_key(|m| {
                                    let p = m.path.as_str();
                                    (
                                        tests.get(p).copied().unwrap_or(false),
                                        std::cmp::Reverse(per_file.get(p).copied().unwrap_or(0)),
                                        p,
                                        m.line,
                                    )
                                });
                                for (i, m) in ms.into_iter().take(cand_n).enumerate() {
                                    cands.push(
                                        Cand {
                                            arm,
                                            rank: i as u32 + 1,
                                            path: m.path.clone(),
                                            start_line: m.line as u32,
                                            end_line: m.line as u32,
                                            symbol: None,
                                            kind: None,
                                            lang: lang(&m.path).to_string(),
                                            snippet: Some((m.line as u32, m.text.clone())),
                                            span: None,
                                            raw: 0.0,
                                            prior: 1.0,
                                            generated: false,
                                            compiled: false,
                                            file_size: 0,
                                        }
                                        .with_prior(),
                                    );
                                }
                            }
                            Err(e) => note = Some(short_error(&e)),
                        }
                    }
                }
                Arm::Symbol | Arm::Keyword => note = Some("skipped for --scope docs".into()),
                // Not gathered: `rank` puts the location's chunk first.
                Arm::Location => {}
            }
            tracing::debug!(
                arm = ?arm,
                ms = arm_started.elapsed().as_secs_f64() * 1000.0,
                candidates = cands.len(),
                "hybrid arm"
            );
            // `cands` holds this arm's candidates only, until all ran.
            let found = std::mem::take(&mut cands);
            let report = ArmReport {
                arm,
                weight: if arm == Arm::Semantic {
                    weight * semantic_boost
                } else {
                    weight
                },
                candidates: found.len(),
                note,
            };
            done.push((slot, report, found));
        }
        for (slot, arm, weight, handle) in side {
            let (found, note) = match handle.join() {
                Ok((spare_store, hits)) => {
                    spare.give_back(spare_store);
                    match hits {
                        Ok(hits) => (
                            hits.into_iter()
                                .enumerate()
                                .map(|(i, h)| from_chunk(arm, i as u32 + 1, h))
                                .collect(),
                            None,
                        ),
                        Err(e) => (Vec::new(), Some(short_error(&e))),
                    }
                }
                Err(_) => (Vec::new(), Some(format!("the {} arm panicked", arm.name()))),
            };
            let report = ArmReport {
                arm,
                weight,
                candidates: found.len(),
                note,
            };
            done.push((slot, report, found));
        }
        done.sort_by_key(|(slot, _, _)| *slot);
        let spelled_right = done
            .iter()
            .any(|(_, report, found)| report.arm == Arm::Keyword && !found.is_empty());
        // A name no definition is named as (only used, or defined by
        // metaprogramming): where it is spelled, the keyword arm's lines,
        // is the evidence the symbol arm would have been, and it weighs so.
        let stand_in = (analysis.kind == QueryKind::Identifier && spelled_right && !named_defined)
            .then(|| {
                weights
                    .iter()
                    .find(|(a, _)| *a == Arm::Symbol)
                    .map(|(_, w)| *w)
            })
            .flatten();
        for (_, mut report, mut found) in done {
            if spelled_right && report.arm == Arm::Symbol && !spelled_like.is_empty() {
                found.retain(|c| !spelled_like.contains(&(c.path.clone(), c.start_line)));
                report.candidates = found.len();
            }
            if report.arm == Arm::Keyword
                && let Some(w) = stand_in
            {
                report.weight = report.weight.max(w);
            }
            reports.push(report);
            cands.extend(found);
        }
        demote_generated_siblings(&mut cands);
        read_file_facts(store, &mut cands);
        // Questions a semantic tier answered are matched token by token too
        // (with the fast model's token vectors, whichever tier answered).
        let token_model = (analysis.kind == QueryKind::NaturalLanguage
            && req.only.len() != 1
            && semantic_report.as_ref().and_then(|r| r.tier).is_some())
        .then(|| self.semantic.as_mut().and_then(|s| s.fast_query_model()))
        .flatten();
        let file_means = match self.semantic.as_ref() {
            Some(s)
                if analysis.kind == QueryKind::NaturalLanguage
                    && req.only.len() != 1
                    && semantic_report.as_ref().is_some_and(|r| r.available) =>
            {
                s.file_means(query, &candidate_files(&cands))
            }
            _ => HashMap::new(),
        };
        Ok(Gathered {
            analysis,
            cands,
            reports,
            semantic: semantic_report,
            file_means,
            token_model,
        })
    }

    /// Fuses the arms' candidates, re-ranks and renders the top hits.
    fn rank(
        &self,
        store: &Store,
        root: &Path,
        req: &HybridRequest,
        gathered: Gathered,
    ) -> Result<HybridResult> {
        let query = req.query.trim();
        // One reader of the files for the token match and the snippets.
        let mut sources = Sources::with_cache(root, &self.files);
        let token_files = if req.only.len() != 1 {
            gathered.token_match_files(&mut sources, query, req.k)
        } else {
            Vec::new()
        };
        let Gathered {
            analysis,
            cands,
            reports,
            semantic: semantic_report,
            file_means,
            ..
        } = gathered;

        let weight_of = |arm: Arm| weight_in(&reports, arm);
        let active: f64 = reports
            .iter()
            .filter(|r| r.candidates > 0)
            .map(|r| weight_of(r.arm))
            .sum();
        // Fused modes rank files (see `file_scores`); one arm alone keeps
        // its own chunk order.
        let files_started = std::time::Instant::now();
        let mut files = (req.only.len() != 1).then(|| {
            file_scores(
                &cands,
                &weight_of,
                req.k,
                &analysis,
                query,
                &token_files,
                FileEvidence {
                    means: &file_means,
                    text: &mut |path, size, terms| {
                        sources.file(path, size).map(|t| term_counts(t, terms))
                    },
                },
            )
        });
        tracing::debug!(
            ms = files_started.elapsed().as_secs_f64() * 1000.0,
            "file scores"
        );
        if analysis.kind == QueryKind::NaturalLanguage
            && let Some(files) = files.as_mut()
        {
            boost_linked_to_top(store, files);
        }
        // For a name query, the symbol arm's exact definitions.
        let exact: Vec<&Cand> = if analysis.kind == QueryKind::Identifier {
            cands
                .iter()
                .filter(|c| c.arm == Arm::Symbol && c.raw >= 1.0)
                .collect()
        } else {
            Vec::new()
        };
        // Their paths (`lead_sole_definer`): for a bare name, all of them;
        // for a qualified one only when a header's prototype gave way to
        // the source defining it (`TableBuilder::Finish` in
        // `table_builder.cc`, not `include/leveldb/table_builder.h`).
        let sole_definers: Option<Vec<String>> = (analysis.kind == QueryKind::Identifier)
            .then(|| {
                // A header's one-line prototype (`int
                // mosquitto_loop_forever(…);`, a class's `Status Finish();`)
                // declares what a source file's body defines: the header
                // does not count as a definer then.
                let body_elsewhere = exact
                    .iter()
                    .any(|c| !is_c_header(&c.path) && c.end_line > c.start_line);
                let declares_only = |path: &str| {
                    is_c_header(path)
                        && exact
                            .iter()
                            .filter(|c| c.path == path)
                            .all(|c| c.end_line == c.start_line)
                };
                let definers: Vec<String> = exact
                    .iter()
                    .filter(|c| !(body_elsewhere && declares_only(&c.path)))
                    .map(|c| c.path.clone())
                    .collect();
                let bare = analysis
                    .identifiers
                    .iter()
                    .all(|i| crate::search::split_qualified(i).0.is_none());
                // A qualifier that names the methods' own type
                // (`Template#render` → the method `Template.render`), not
                // a module or namespace that may re-export a function
                // (`util.parseHeaders`, declared in `namespace util` of a
                // `.d.ts` too).
                let by_container = !exact.is_empty()
                    && exact.iter().all(|c| {
                        c.kind.as_deref() == Some("method")
                            && c.symbol.as_deref().is_some_and(|s| {
                                analysis
                                    .identifiers
                                    .iter()
                                    .any(|i| names_its_container(i, s))
                            })
                    });
                (bare || by_container || definers.len() < exact.len()).then_some(definers)
            })
            .flatten();
        // The files where they hold the type so named, and those where they
        // hold only extensions of it (`type_before_extensions`).
        let mut types: Vec<String> = Vec::new();
        let mut extensions: Vec<String> = Vec::new();
        for c in &exact {
            match c.kind.as_deref() {
                Some("impl") => extensions.push(c.path.clone()),
                Some(k) if crate::store::CLASS_KINDS.contains(&k) => types.push(c.path.clone()),
                _ => {}
            }
        }
        extensions.retain(|p| !types.contains(p));
        let copies = compiled_copies(&cands, analysis.kind);
        let mut hits = fuse(cands, &weight_of, req.k);
        let grouped = files.is_some();
        if let Some(recency) = req.recency.as_deref() {
            match files.as_mut() {
                // Fused modes: the file's standing.
                Some(files) => {
                    for (path, score) in files.iter_mut() {
                        *score *= 1.0 + recency_boost(recency, path);
                    }
                }
                // One arm: each chunk's score.
                None => {
                    for f in &mut hits {
                        f.score *= 1.0 + recency_boost(recency, &f.path);
                    }
                    hits.sort_by(by_score);
                }
            }
        }
        let max_score = match files {
            Some(mut files) => {
                if analysis.kind == QueryKind::NaturalLanguage {
                    rerank_by_names(&mut hits, query);
                    damp_siblings(&mut files, &hits);
                    implementation_before_declaration(&mut files);
                    lead_with_named(&mut hits, &analysis.identifiers);
                } else if analysis.kind == QueryKind::Identifier {
                    if let Some(paths) = &sole_definers {
                        lead_sole_definer(&mut files, paths);
                    }
                    type_before_extensions(&mut files, &types, &extensions);
                    lead_with_definitions(&mut hits);
                }
                after_sources(&mut files, &copies);
                // Keys are 0–1 already (relative to the best file and chunk).
                hits = order_by_file(hits, &files);
                1.0
            }
            None => active.max(1e-9) / (req.k + 1.0),
        };
        let mut past_end = None;
        let lead = match (&analysis.location, &analysis.file) {
            (Some((_, line)), _) => {
                let at = location_hits(
                    store,
                    root,
                    &analysis.named,
                    *line,
                    max_score,
                    req.snippet_lines,
                )?;
                if at.is_empty() {
                    // `_run.py:99999`: the line is past the end of every
                    // file named, so the file itself is what was asked for.
                    let files = file_hits(store, root, &analysis.named, max_score)?;
                    if let Some((f, last_line)) = files.first() {
                        past_end = Some(PastEnd {
                            path: f.path.clone(),
                            line: *line,
                            last_line: file_line_count(root, &f.path).unwrap_or(*last_line),
                        });
                    }
                    files.into_iter().map(|(f, _)| f).collect()
                } else {
                    at
                }
            }
            (None, Some(_)) => file_hits(store, root, &analysis.named, max_score)?
                .into_iter()
                .map(|(f, _)| f)
                .collect(),
            (None, None) => Vec::new(),
        };
        let lead: Vec<Fused> = lead
            .into_iter()
            .filter(|h| req.filter.accepts(&h.path, &h.lang))
            .collect();
        let led = !lead.is_empty();
        if led {
            // The file asked for: its other hits come next (fused modes
            // fold them under it below).
            let (named, rest): (Vec<Fused>, Vec<Fused>) = hits
                .into_iter()
                .filter(|h| {
                    !lead.iter().any(|l| {
                        h.path == l.path && h.start_line == l.start_line && h.end_line == l.end_line
                    })
                })
                .partition(|h| lead.iter().any(|l| l.path == h.path));
            // A location (`command.go:900`) is answered by its file: other
            // files matched only the path's words.
            let rest = if analysis.location.is_some() {
                Vec::new()
            } else {
                rest
            };
            hits = lead.into_iter().chain(named).chain(rest).collect();
        }
        // Snippets left for later are read for the hits shown only (each
        // file once); a hit whose file is gone since it was indexed is
        // dropped, and the next one takes its place.
        let terms = crate::text::query_terms(query);
        let mut out: Vec<HybridHit> = Vec::with_capacity(req.limit.min(hits.len()));
        if grouped && !led {
            lead_with_content(&mut hits, Some(&analysis));
        }
        // Where each file's hit stands in `out`.
        let mut shown: HashMap<String, usize> = HashMap::new();
        for mut f in hits {
            if grouped {
                // Fused modes show one hit per file: a file's further hits
                // fold into its first.
                if let Some(first) = shown.get(&f.path).and_then(|&i| out.get_mut(i)) {
                    // The chunk at a location asked for (`tree.go:67`)
                    // answers it; the file's other word matches do not.
                    if analysis.location.is_some()
                        && first
                            .sources
                            .first()
                            .is_some_and(|s| s.arm == Arm::Location)
                    {
                        continue;
                    }
                    // A one-line place with no name of its own, or with a
                    // name the hit already shows (a class body's stray
                    // line), points nowhere new: `also: 1-1; 31-31`.
                    let one_line = f.start_line == f.end_line;
                    let seen = f.symbol.is_none()
                        || first.symbol == f.symbol
                        || first.also.iter().any(|a| a.symbol == f.symbol);
                    // Nor does a module's or type's opening line alone
                    // (`also: 16-16 Kramdown.Parser`), whose contents are
                    // places of their own.
                    if (one_line && seen) || is_bare_opening(&f, Some(&analysis)) {
                        continue;
                    }
                    if first.also.len() < ALSO_SPANS {
                        first.also.push(AlsoSpan {
                            start_line: f.start_line,
                            end_line: f.end_line,
                            symbol: f.symbol,
                            kind: f.kind,
                        });
                    }
                    continue;
                }
            }
            if out.len() == req.limit {
                // The page is full; its files' later hits still fold in, so
                // a hit's places do not depend on how many hits were asked.
                if grouped {
                    continue;
                }
                break;
            }
            if let Some((span, start, end)) = f.pending.take() {
                // The definition a name query asks for shows from its own
                // line (its signature), not the window of its body (or of
                // the doc comment above it) where the name recurs most:
                // awesome's `naughty.notify` showed lines 860-865 of a
                // function starting at 621.
                let named = defines_queried_name(&analysis, f.symbol.as_deref())
                    .then(|| {
                        definition_snippet(
                            &mut sources,
                            &f.path,
                            &span,
                            f.start_line,
                            req.snippet_lines,
                        )
                    })
                    .flatten();
                let Some(snippet) = named.or_else(|| {
                    chunk_snippet(
                        &mut sources,
                        &f.path,
                        &span,
                        (start, end),
                        &terms,
                        req.snippet_lines,
                    )
                }) else {
                    continue;
                };
                f.snippet = Some(snippet);
            }
            shown.insert(f.path.clone(), out.len());
            out.push(self.render(root, req, f, max_score, &analysis)?);
        }
        // A `context`ed hit's nearest definitions, once its `also` places
        // (which they leave out) are known.
        if req.with_file_symbols {
            for h in &mut out {
                h.file_symbols = file_symbols(store, &h.path, h.start_line, h.end_line, &h.also)?;
            }
        }
        Ok(HybridResult {
            query: query.to_string(),
            query_interpretation: match &past_end {
                Some(p) if led => format!("a location past the end of its file: {}", p.note()),
                _ => interpretation(&analysis, &reports, led),
            },
            query_kind: analysis.kind,
            arms: reports,
            // The model whose vectors ranked: only when the arm could answer.
            semantic_model: semantic_report
                .as_ref()
                .filter(|r| r.available)
                .and_then(|r| r.model.clone()),
            semantic: semantic_report,
            hits: out,
            past_end: past_end.filter(|_| led),
            unknown_path: analysis.unknown_path.clone(),
        })
    }

    fn render(
        &self,
        root: &Path,
        req: &HybridRequest,
        f: Fused,
        max_score: f64,
        analysis: &Analysis,
    ) -> Result<HybridHit> {
        let mut terms = crate::text::query_terms(&req.query);
        terms.extend(
            analysis
                .identifiers
                .iter()
                .map(|i| last_part(i).to_lowercase()),
        );
        // A quoted phrase must show where it matches, not the window of a
        // chunk with the most loose term hits.
        let phrases: &[String] = if analysis.kind == QueryKind::Literal {
            &analysis.phrases
        } else {
            &[]
        };
        let shows_phrase = |s: &(u32, String)| phrases.iter().any(|p| s.1.contains(p.as_str()));
        // An arm's snippet may come from a chunk wider than the span the hit
        // shows (a function's chunk runs on into the next one's doc
        // comment): only its lines inside the span are shown.
        let arm_snippet = f
            .snippet
            .as_ref()
            .and_then(|(line, text)| clip_to_span(*line, text, f.start_line, f.end_line));
        // The arm's lines (the asked line of a location) are also what
        // `context` widens.
        let anchor = arm_snippet.filter(|s| phrases.is_empty() || shows_phrase(s));
        let (snippet_line, snippet) = match (anchor, req.context) {
            (Some(s), 0) => s,
            (anchor, context) => {
                let fallback = anchor
                    .clone()
                    .or_else(|| f.snippet.clone())
                    .unwrap_or((f.start_line, String::new()));
                let at = FileSnippet {
                    terms: &terms,
                    phrases,
                    lines: req.snippet_lines,
                    context,
                    anchor,
                };
                file_snippet(root, &f, at).unwrap_or(fallback)
            }
        };
        let mut sources = f.sources;
        sources.sort_by_key(|s| s.arm);
        let recency = req.recency.as_deref().and_then(|r| shown_boost(r, &f.path));
        Ok(HybridHit {
            path: f.path,
            start_line: f.start_line,
            end_line: f.end_line,
            symbol: f.symbol,
            kind: f.kind,
            lang: f.lang,
            // The semantic arm alone keeps its cosine similarity as the
            // score (what `threshold` compares with); fused hits get 0–1.
            score: if req.only == [Arm::Semantic] {
                f.raw
            } else {
                (f.score / max_score).clamp(0.0, 1.0)
            },
            sources,
            snippet_line,
            snippet,
            file_symbols: Vec::new(),
            recency,
            also: Vec::new(),
        })
    }
}

/// Most a file gains from recency: a file changed by the newest commit has
/// its score multiplied by `1 + RECENCY_WEIGHT`...
pub const RECENCY_WEIGHT: f64 = 0.2;
/// ...and the gain halves every this many days before the newest commit...
pub const RECENCY_HALF_LIFE_DAYS: f64 = 14.0;
/// ...or every this many first-parent commits before `HEAD`, whichever
/// ages the change more: days alone make a whole young (or busy) history
/// equally recent. On `evals/recent.jsonl` (16 questions about recent work
/// on this repository at 99c5be6, 217 commits in two days;
/// `scripts/recency-eval.sh`) NDCG@10 files went 0.709 (off) → 0.722 with
/// these values, 4 questions better and none worse; days alone changed
/// nothing there, 10 commits gave 0.733 but lost one question, 40 gave
/// 0.713. The `agent` suite's corpora have no history: identical.
pub const RECENCY_HALF_LIFE_COMMITS: f64 = 20.0;

/// What recency adds to a file's score factor: `RECENCY_WEIGHT ·
/// 2^(−max(days/RECENCY_HALF_LIFE_DAYS, commits/RECENCY_HALF_LIFE_COMMITS))`
/// for a file changed `days` before the newest commit and `commits`
/// first-parent commits before `HEAD` (0 for a file no recent commit
/// touched). Relative to `HEAD`, not the clock, so the same history ranks
/// the same way any day.
pub fn recency_boost(recency: &Recency, path: &str) -> f64 {
    recency.age(path).map_or(0.0, |(days, commits)| {
        let halvings =
            (days / RECENCY_HALF_LIFE_DAYS).max(f64::from(commits) / RECENCY_HALF_LIFE_COMMITS);
        RECENCY_WEIGHT * (-halvings).exp2()
    })
}

/// The boost a hit shows (three decimals), when there is one to show.
pub fn shown_boost(recency: &Recency, path: &str) -> Option<f64> {
    let b = (recency_boost(recency, path) * 1000.0).round() / 1000.0;
    (b > 0.0).then_some(b)
}

/// Words and phrases that ask about recent work ("what changed recently",
/// "the latest work on", "newly added"), matched on whole lowercased words.
const RECENT_WORDS: [&str; 7] = [
    "recent",
    "recently",
    "latest",
    "lately",
    "newly",
    "newest",
    "yesterday",
];
const RECENT_PHRASES: [&str; 13] = [
    "last change",
    "last changes",
    "last commit",
    "last commits",
    "just added",
    "just changed",
    "just introduced",
    "just fixed",
    "what changed",
    "what's new",
    "what is new",
    "this week",
    "last week",
];

/// Whether a query asks about recent work (`auto` recency prefers recently
/// changed files only then).
pub fn asks_about_recent(query: &str) -> bool {
    let words: Vec<String> = query
        .split(|c: char| !(c.is_alphanumeric() || c == '\'' || c == '\u{2019}'))
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase().replace('\u{2019}', "'"))
        .collect();
    if words.iter().any(|w| RECENT_WORDS.contains(&w.as_str())) {
        return true;
    }
    let joined = format!(" {} ", words.join(" "));
    RECENT_PHRASES
        .iter()
        .any(|p| joined.contains(&format!(" {p} ")))
}

/// Whether the keyword arm may run for `query`, before the index is read
/// (a declared name the index may confirm counts): the service looks up
/// what changed since the index's last run, for [`HybridRequest::keyword_listing`],
/// only then, not for every question.
pub fn keyword_arm_may_run(query: &str) -> bool {
    let analysis = analyze(query.trim());
    analysis.declared.is_some() || !keyword_literals(&analysis).is_empty()
}

/// What the keyword arm searches for: the quoted phrases, else the last part
/// of each identifier-like term.
fn keyword_literals(analysis: &Analysis) -> Vec<String> {
    if !analysis.phrases.is_empty() {
        return analysis.phrases.clone();
    }
    // A number is no name (the line of `gone.go:10`); as a literal it
    // would match inside any longer number. A file name no indexed file
    // has (`permute.lua`, `gone.go:10`) is looked for by its stem, where
    // other files name it, not by its extension.
    let unknown = analysis.unknown_path.as_deref();
    analysis
        .identifiers
        .iter()
        .filter_map(|i| {
            if let Some(p) = unknown
                && i.strip_prefix(p)
                    .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
            {
                return Some(crate::search::file_stem(p)).filter(|s| !s.is_empty());
            }
            i.split([':', '.', '#', '\\'])
                .rfind(|p| !p.is_empty() && !p.bytes().all(|b| b.is_ascii_digit()))
        })
        .map(str::to_string)
        .collect()
}

/// Whether `line` holds `name` where a name or a part of one starts: at a
/// word's edge, an underscore, or a change of case into a capital
/// (`serializer` in `serializer.end()`, `serializer_for`, `serializers`;
/// `Parser` in `newParser`), not inside another word (`Deserializer` for
/// `serializer`). Its end is left free: also requiring one there
/// (`parse` not in `parser`) let a qualified name's last word reach the
/// few files calling it and lift them past the definition (caffeine's
/// `CaffeineSpec.parse` behind `Caffeine.from`).
fn spells_name_part(line: &str, name: &str) -> bool {
    let Some(first) = name.chars().next() else {
        return false;
    };
    let lower = |c: char| c.is_lowercase() || c.is_ascii_digit();
    line.match_indices(name)
        .any(|(i, _)| match line[..i].chars().next_back() {
            None => true,
            Some(b) => !b.is_alphanumeric() || (lower(b) && first.is_uppercase()),
        })
}

fn short_error(e: &anyhow::Error) -> String {
    match crate::error::find_user_error(e) {
        Some(u) => u.message.clone(),
        None => format!("{e:#}"),
    }
}

/// Whether `symbol` is named as one of the query's identifiers (their last
/// parts, case aside: `naughty.notify` names `notify`).
fn defines_queried_name(analysis: &Analysis, symbol: Option<&str>) -> bool {
    symbol.is_some_and(|s| {
        let name = last_part(s);
        analysis
            .identifiers
            .iter()
            .any(|i| last_part(i).eq_ignore_ascii_case(name))
    })
}

/// Whether a qualified name (`Template#render`, `Vec::push`) ends with
/// the parts of a definition's qualified symbol, its container included
/// (`Template.render`, `Liquid.Template.render`: the ident's parts are the
/// symbol's last ones).
fn names_its_container(ident: &str, symbol: &str) -> bool {
    let parts = |s: &str| -> Vec<String> {
        s.split([':', '.', '#', '\\'])
            .filter(|p| !p.is_empty())
            .map(str::to_ascii_lowercase)
            .collect()
    };
    let (asked, defined) = (parts(ident), parts(symbol));
    asked.len() >= 2
        && defined.len() >= asked.len()
        && defined[defined.len() - asked.len()..] == asked[..]
}

fn last_part(ident: &str) -> &str {
    ident.rsplit([':', '.', '#', '\\']).next().unwrap_or(ident)
}

/// The language of a keyword-arm hit's file, as the index records it: by
/// name, or for an extension-less script by its first line (the
/// bash-completion scripts), so `--lang bash` keeps them.
fn lang_of(root: &Path, path: &str) -> &'static str {
    let rel = Path::new(path);
    if let Some(lang) = crate::lang::detect_lang(rel) {
        return lang.name();
    }
    crate::index::sniff_script(&root.join(rel)).map_or("other", |lang| lang.name())
}

/// A hit after merging candidates that point at the same code.
struct Fused {
    path: String,
    start_line: u32,
    end_line: u32,
    symbol: Option<String>,
    kind: Option<String>,
    lang: String,
    score: f64,
    sources: Vec<Source>,
    /// What each of `sources` adds to `score` (its best candidate's
    /// contribution), in the same order.
    contributions: Vec<f64>,
    snippet: Option<(u32, String)>,
    /// Where the snippet is to be read from, if shown: the chunk (and its
    /// lines) of the candidate that gives it (see `Cand::span`).
    pending: Option<(ChunkSpan, u32, u32)>,
    /// Whether the span is a whole chunk/definition (not a single line).
    is_block: bool,
    /// The best arm score among the merged candidates (see `Cand::raw`).
    raw: f64,
}

/// The indexed files a path in a query names: the file itself (relative
/// to `root`, or absolute inside it) when it is indexed; otherwise the
/// indexed files whose path ends with it (`handlers/base.py` for
/// `django/core/handlers/base.py`), at most [`NAMED_FILES_READ`] of them,
/// the shallowest first (compared as text with the indexed paths, nothing
/// read).
fn named_paths(store: &Store, root: &Path, path: &str) -> Result<Vec<String>> {
    let explain = |e| crate::store::explain(e, &crate::store::db_path(root));
    let rel = match crate::paths::resolve_in_root(root, path) {
        Ok(at)
            if store
                .file_record(&at.rel)
                .map_err(explain)?
                .is_some_and(|f| f.skip_reason.is_none()) =>
        {
            return Ok(vec![at.rel]);
        }
        Ok(at) => at.rel,
        Err(_) if Path::new(path).is_relative() && !path.contains("..") => {
            path.trim_start_matches("./").to_string()
        }
        Err(_) => return Ok(Vec::new()),
    };
    store
        .paths_ending_with(&rel, NAMED_FILES_READ)
        .map_err(explain)
}

/// Most files a file or location query leads with: `config.py`, `mod.rs`
/// or `base.py:140` name several, and the best of them by path (live
/// source before tests and legacy copies, shallower first) come first.
const MAX_NAMED_FILES: usize = 3;
/// Files ending with a queried name that are compared for that order.
const NAMED_FILES_READ: usize = 200;

/// The files a path in a query names ([`named_paths`]), at most
/// [`MAX_NAMED_FILES`], by path prior, then depth.
fn best_named_paths(store: &Store, root: &Path, path: &str) -> Result<Vec<String>> {
    let mut paths: Vec<(f64, String)> = named_paths(store, root, path)?
        .into_iter()
        .map(|p| (crate::search::path_prior(&p, lang_of(root, &p)), p))
        .collect();
    paths.sort_by(|a, b| {
        b.0.total_cmp(&a.0)
            .then_with(|| a.1.matches('/').count().cmp(&b.1.matches('/').count()))
    });
    Ok(paths
        .into_iter()
        .take(MAX_NAMED_FILES)
        .map(|(_, p)| p)
        .collect())
}

/// The smallest chunk holding `line` in each of the `named` files
/// ([`Analysis::named`]), as hits scored `score`, their snippets starting
/// at `line`; none when no such chunk is there (the query is then
/// searched as text only).
fn location_hits(
    store: &Store,
    root: &Path,
    named: &[String],
    line: u32,
    score: f64,
    snippet_lines: usize,
) -> Result<Vec<Fused>> {
    let mut sources = crate::source::Sources::new(root);
    let mut out = Vec::new();
    let explain = |e| crate::store::explain(e, &crate::store::db_path(root));
    for p in named {
        let covering = store.chunks_at(p, line).map_err(explain)?;
        let (c, at) = match covering.into_iter().next() {
            Some(c) => (c, line),
            // A blank line or a comment between two definitions: the
            // nearest chunk, the next one on a tie (what precedes a
            // definition is usually its decorator or comment). A line past
            // the file's end has none.
            None => match nearest_chunk(store.file_chunks(p).map_err(explain)?, line) {
                Some(c) if line <= c.end_line || !past_file_end(root, p, line) => {
                    let at = c.start_line;
                    (c, at)
                }
                _ => continue,
            },
        };
        let snippet = sources
            .shown(&c.path, &c.span, c.start_line, c.end_line)
            .map(|text| {
                let skip = at.saturating_sub(c.start_line) as usize;
                let lines: Vec<&str> = text.lines().skip(skip).take(snippet_lines.max(1)).collect();
                (at, lines.join("\n"))
            });
        out.push(Fused::first(location_cand(c, snippet), score, true));
    }
    Ok(out)
}

/// The chunk nearest `line` that does not contain it: the smallest gap
/// in lines, the chunk after the line on a tie, then the smaller chunk.
fn nearest_chunk(chunks: Vec<ChunkRow>, line: u32) -> Option<ChunkRow> {
    chunks.into_iter().min_by_key(|c| {
        let (gap, before) = if c.start_line > line {
            (c.start_line - line, false)
        } else {
            (line.saturating_sub(c.end_line), true)
        };
        (gap, before, c.end_line - c.start_line)
    })
}

/// Whether `line` lies past the last line of the file on disk (a file that
/// cannot be read counts as ended).
fn past_file_end(root: &Path, path: &str, line: u32) -> bool {
    file_line_count(root, path).is_none_or(|n| line > n)
}

/// The number of lines of a project file on disk.
fn file_line_count(root: &Path, path: &str) -> Option<u32> {
    let bytes = std::fs::read(root.join(path)).ok()?;
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    let tail = usize::from(!bytes.is_empty() && !bytes.ends_with(b"\n"));
    u32::try_from(newlines + tail).ok()
}

/// The main chunk of each of the `named` files of a file-name query
/// ([`Analysis::named`]), as hits scored `score`: the widest chunk named
/// after the file's stem (`class TypeAdapter` for `type_adapter.py`, `class
/// Config` for `config.py`), else the file's first chunk; each with the
/// file's last indexed line (what a location past the end says).
fn file_hits(
    store: &Store,
    root: &Path,
    named: &[String],
    score: f64,
) -> Result<Vec<(Fused, u32)>> {
    let mut out = Vec::new();
    for p in named {
        let chunks = store
            .file_chunks(p)
            .map_err(|e| crate::store::explain(e, &crate::store::db_path(root)))?;
        let last_line = chunks.iter().map(|c| c.end_line).max().unwrap_or(0);
        if let Some(c) = main_chunk(p, chunks) {
            out.push((Fused::first(location_cand(c, None), score, true), last_line));
        }
    }
    Ok(out)
}

/// The chunk that stands for the file at `path`: the first chunk of the
/// widest definition whose name's last part is the file's stem, ignoring
/// case, `_` and `-` (`TypeAdapter` in `type_adapter.py`, `Config` in
/// `_config.py`), else the file's first chunk.
fn main_chunk(path: &str, chunks: Vec<ChunkRow>) -> Option<ChunkRow> {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| *c != '_' && *c != '-')
            .flat_map(char::to_lowercase)
            .collect()
    };
    let raw_stem = crate::search::file_stem(path);
    // `__init__.py` is a package's file, not a file about `__init__`: a
    // constructor named so does not stand for it.
    let dunder = raw_stem.len() > 4 && raw_stem.starts_with("__") && raw_stem.ends_with("__");
    let stem = if dunder {
        String::new()
    } else {
        squash(raw_stem)
    };
    // A definition split into several chunks (a long class) is one
    // definition: the widest by its chunks' whole extent, led by its first
    // chunk, its header (`class ZodError …`), not its widest piece.
    struct Def<'c> {
        symbol: &'c str,
        kind: Option<&'c str>,
        start: u32,
        end: u32,
        /// The index of its first chunk.
        first: usize,
    }
    let mut defs: Vec<Def<'_>> = Vec::new();
    for (i, c) in chunks.iter().enumerate() {
        let Some(symbol) = c.symbol.as_deref() else {
            continue;
        };
        if stem.is_empty() || squash(last_part(symbol)) != stem {
            continue;
        }
        let kind = c.kind.as_deref();
        match defs
            .iter_mut()
            .find(|d| d.symbol == symbol && d.kind == kind)
        {
            Some(d) => {
                if c.start_line < d.start {
                    (d.start, d.first) = (c.start_line, i);
                }
                d.end = d.end.max(c.end_line);
            }
            None => defs.push(Def {
                symbol,
                kind,
                start: c.start_line,
                end: c.end_line,
                first: i,
            }),
        }
    }
    let named = defs
        .iter()
        .enumerate()
        .max_by_key(|(n, d)| (d.end - d.start, std::cmp::Reverse(*n)))
        .map(|(_, d)| d.first);
    let at = named.unwrap_or(0);
    chunks.into_iter().nth(at)
}

/// A chunk a location or file name in the query points at, as a
/// candidate of arm [`Arm::Location`].
fn location_cand(c: ChunkRow, snippet: Option<(u32, String)>) -> Cand {
    Cand {
        arm: Arm::Location,
        rank: 1,
        path: c.path,
        start_line: c.start_line,
        end_line: c.end_line,
        symbol: c.symbol,
        kind: c.kind,
        lang: c.lang,
        snippet,
        span: None,
        raw: 1.0,
        prior: 1.0,
        generated: false,
        compiled: false,
        file_size: 0,
    }
    .with_prior()
}

impl Fused {
    /// A hit from its first candidate, which adds `score`.
    fn first(c: Cand, score: f64, is_block: bool) -> Fused {
        Fused {
            path: c.path,
            start_line: c.start_line,
            end_line: c.end_line,
            symbol: c.symbol,
            kind: c.kind,
            lang: c.lang,
            score,
            sources: vec![Source {
                arm: c.arm,
                rank: c.rank,
            }],
            contributions: vec![score],
            pending: c.span.map(|s| (s, c.start_line, c.end_line)),
            snippet: c.snippet,
            is_block,
            raw: c.raw,
        }
    }
}

/// What a symbol-arm candidate whose name matched the query's identifier
/// only inexactly (case-insensitively, as a prefix or fuzzily) counts, as a
/// share of an exact match: `HandleExitCoder` the function before
/// `handleExitCoder` the method, `readline` the method before `Readline`
/// the class. Chosen on the `agent` suite's tuning half (0.3, 0.5, 1):
/// symbol queries .985 → .989 there, .979 → .983 on the checking half.
const INEXACT_NAME_MATCH: f64 = 0.3;
/// What a name matched only case-blind counts: between an exact match and
/// a prefix one, so `worker` typed in lower case finds gunicorn's `class
/// Worker` before `class WorkerTmp` (a prefix match the other arms also
/// found). No `agent` or `nl` answer changed with it (0.3 before).
const CASE_BLIND_NAME_MATCH: f64 = 0.6;

/// How much a symbol-arm candidate counts by how its name matched the
/// query's identifier (kept in its `raw`).
fn match_weight(m: MatchKind) -> f64 {
    match m {
        MatchKind::Exact => 1.0,
        MatchKind::CaseInsensitive => CASE_BLIND_NAME_MATCH,
        MatchKind::Prefix | MatchKind::Fuzzy => INEXACT_NAME_MATCH,
    }
}

/// A candidate's share of its arm's weight: a symbol-arm candidate's
/// match weight, 1 for the other arms.
fn match_factor(c: &Cand) -> f64 {
    if c.arm == Arm::Symbol && c.raw > 0.0 {
        c.raw
    } else {
        1.0
    }
}

/// Weighted RRF, then merging of candidates in the same file whose spans
/// overlap: each arm counts once per merged hit (its best rank), the span
/// kept is the best-scoring block's. Deterministic: ties break by path and
/// line.
fn fuse(cands: Vec<Cand>, weight_of: &dyn Fn(Arm) -> f64, k: f64) -> Vec<Fused> {
    // Implementation before tests and docs in every arm (BM25 applies the
    // same prior to its own ranking; the others do not know paths).
    // (Each candidate's prior was computed once, when it was found.)
    let mut cands: Vec<(f64, Cand)> = cands.into_iter().map(|c| (c.prior, c)).collect();
    let contribution =
        |prior: f64, c: &Cand| weight_of(c.arm) / (k + c.rank as f64) * prior * match_factor(c);
    // Blocks (chunks, definitions) first so single lines merge into them.
    cands.sort_by(|(pa, a), (pb, b)| {
        // (A candidate whose snippet is read later has one.)
        let (ab, bb) = (
            a.end_line > a.start_line || (a.snippet.is_none() && a.span.is_none()),
            b.end_line > b.start_line || (b.snippet.is_none() && b.span.is_none()),
        );
        bb.cmp(&ab)
            .then(contribution(*pb, b).total_cmp(&contribution(*pa, a)))
            .then(a.path.cmp(&b.path))
            .then(a.start_line.cmp(&b.start_line))
    });
    let mut fused: Vec<Fused> = Vec::new();
    let mut by_path: HashMap<String, Vec<usize>> = HashMap::new();
    for (prior, c) in cands {
        let score = contribution(prior, &c);
        let is_block = c.end_line > c.start_line || c.arm == Arm::Symbol;
        let slot = by_path.get(&c.path).and_then(|ids| {
            ids.iter().copied().find(|&i| {
                let f = &fused[i];
                c.start_line <= f.end_line && c.end_line >= f.start_line
            })
        });
        match slot {
            Some(i) => {
                let f = &mut fused[i];
                match f.sources.iter().position(|s| s.arm == c.arm) {
                    Some(j) => {
                        // Same arm again: the arm counts once, by its best
                        // candidate (contribution), and shows its best rank.
                        if score > f.contributions[j] {
                            f.score += score - f.contributions[j];
                            f.contributions[j] = score;
                        }
                        f.sources[j].rank = f.sources[j].rank.min(c.rank);
                    }
                    None => {
                        f.score += score;
                        f.sources.push(Source {
                            arm: c.arm,
                            rank: c.rank,
                        });
                        f.contributions.push(score);
                    }
                }
                if f.symbol.is_none() && c.symbol.is_some() {
                    f.symbol = c.symbol;
                    f.kind = c.kind;
                }
                f.raw = f.raw.max(c.raw);
                if f.snippet.is_none() && f.pending.is_none() {
                    f.snippet = c.snippet;
                    f.pending = c.span.map(|s| (s, c.start_line, c.end_line));
                }
                if !f.is_block && is_block {
                    f.start_line = c.start_line;
                    f.end_line = c.end_line;
                    f.is_block = true;
                }
            }
            None => {
                by_path.entry(c.path.clone()).or_default().push(fused.len());
                fused.push(Fused::first(c, score, is_block));
            }
        }
    }
    fused.sort_by(by_score);
    fused
}

/// File-level fusion: a file whose several chunks match gains up to this
/// factor (`1 + MULTI_CHUNK_BONUS · ln n` over its BM25 and semantic
/// candidates, at most 5 per arm).
const MULTI_CHUNK_BONUS: f64 = 0.2;
/// ...a file whose name (or, for `mod.rs`/`index.js`/`__init__.py`, whose
/// directory) is made of the query's words gains up to this share...
const FILE_NAME_BOOST: f64 = 0.3;
/// ...and, for a question of at most [`SYNONYM_MAX_WORDS`] words, a file
/// whose name none of the query's words make but its synonyms do (the
/// synonym arm's [`crate::text::synonyms`], met whole after
/// [`crate::text::crude_stem`]: `mock.py` for "fake responses for testing",
/// `ProgressIndicator.php` for "spinner", `lexer.rb` for "tokenize") gains
/// this share. Files NDCG@10 tune / check / holdout .8701 / .8617 / .8270
/// → .8708 / .8635 / .8282 (24 questions up, 12 down: `ctx.py` now leads
/// "context-local proxies", `mod_proxy.c` "forwarded headers"); 0.3 and 0.6
/// gained less on each half, 1.5 and 2.5 the same, and meeting synonyms on
/// a common prefix as query words do (`loggly` for "logging") gained less.
const SYNONYM_NAME_BOOST: f64 = 1.0;
/// ...and for a name query, the file named exactly like it (`TypeAdapter.java`,
/// `type_adapter.py` for `TypeAdapter`) is multiplied by this.
const FILE_NAMED_AS_QUERY: f64 = 2.0;
/// ...and for a name after its declaration keyword (`struct event_base`,
/// `class BitState`), a file defining exactly that name as a kind the
/// keyword declares, by the same factor: libevent's `event.c`, whose
/// `event_base_new` spells `struct event_base` in every other line, led
/// the struct's own `event-internal.h` (third).
const DECLARED_DEFINITION: f64 = FILE_NAMED_AS_QUERY;

/// Ranks files for a fused query: each arm's candidates, in rank order,
/// give each file `weight / (k + r)` where `r` counts the distinct files the
/// arm has listed up to that candidate (times the chunk's prior, the best
/// over the file's chunks), summed over arms; then the file-level factors
/// above. [`order_by_file`] turns these into the order of the hits.
fn file_scores(
    cands: &[Cand],
    weight_of: &dyn Fn(Arm) -> f64,
    k: f64,
    analysis: &Analysis,
    query: &str,
    token_files: &[(String, f64)],
    evidence: FileEvidence<'_, '_>,
) -> HashMap<String, f64> {
    let mut order: Vec<&Cand> = cands.iter().collect();
    order.sort_by(|a, b| a.arm.cmp(&b.arm).then(a.rank.cmp(&b.rank)));
    let mut per_arm: HashMap<(&str, Arm), f64> = HashMap::new();
    let mut chunks: HashMap<&str, [usize; 2]> = HashMap::new();
    let mut seen: HashSet<(Arm, &str)> = HashSet::new();
    let mut listed: HashMap<Arm, usize> = HashMap::new();
    for c in order {
        let n = listed.entry(c.arm).or_default();
        if seen.insert((c.arm, c.path.as_str())) {
            *n += 1;
        }
        let value = weight_of(c.arm) / (k + *n as f64) * c.prior * match_factor(c);
        let best = per_arm.entry((c.path.as_str(), c.arm)).or_default();
        *best = best.max(value);
        let counts = chunks.entry(c.path.as_str()).or_default();
        match c.arm {
            Arm::Bm25 => counts[0] += 1,
            Arm::Semantic => counts[1] += 1,
            _ => {}
        }
    }
    let terms = stemmed_terms(query);
    let synonyms = if analysis.kind == QueryKind::NaturalLanguage && within_synonym_words(query) {
        stemmed_synonyms(query, &terms)
    } else {
        HashSet::new()
    };
    let names: Vec<&str> = if analysis.kind == QueryKind::Identifier {
        analysis.identifiers.iter().map(|i| last_part(i)).collect()
    } else {
        Vec::new()
    };
    let platform = if analysis.kind == QueryKind::NaturalLanguage {
        asked_platform(query)
    } else {
        None
    };
    // Files whose only symbol-arm matches are inexact (`Readline` for
    // `readline`), when another file defines the name exactly.
    let mut exact: HashSet<&str> = HashSet::new();
    let mut inexact: HashSet<&str> = HashSet::new();
    for c in cands.iter().filter(|c| c.arm == Arm::Symbol) {
        if match_factor(c) >= 1.0 {
            exact.insert(c.path.as_str());
        } else {
            inexact.insert(c.path.as_str());
        }
    }
    let inexact_only: HashSet<&str> = if exact.is_empty() {
        HashSet::new()
    } else {
        inexact.difference(&exact).copied().collect()
    };
    let declaring: HashSet<&str> = match &analysis.declared {
        Some((name, kinds)) if analysis.kind == QueryKind::Identifier => cands
            .iter()
            .filter(|c| {
                c.arm == Arm::Symbol
                    && match_factor(c) >= 1.0
                    && c.symbol.as_deref().map(last_part) == Some(name.as_str())
                    && c.kind.as_deref().is_some_and(|k| kinds.contains(&k))
            })
            .map(|c| c.path.as_str())
            .collect(),
        _ => HashSet::new(),
    };
    // Summed in one order (by path, then arm): a map's order, which
    // differs from one process to the next, changed a score's last bits.
    let mut per_arm: Vec<((&str, Arm), f64)> = per_arm.into_iter().collect();
    per_arm.sort_by(|a, b| a.0.cmp(&b.0));
    let mut scores: HashMap<String, f64> = HashMap::new();
    for ((path, arm), v) in per_arm {
        tracing::trace!(path, arm = arm.name(), value = v, "file arm score");
        *scores.entry(path.to_string()).or_default() += v;
    }
    // The best files by token match, as one more ranked list.
    for (r, (path, _)) in token_files.iter().enumerate() {
        if let Some(score) = scores.get_mut(path) {
            let lang = cands
                .iter()
                .find(|c| &c.path == path)
                .map_or("", |c| c.lang.as_str());
            *score += TOKEN_MATCH_WEIGHT / (k + (r + 1) as f64)
                * crate::search::chunk_prior(path, lang, None);
        }
    }
    for (path, score) in scores.iter_mut() {
        let [b, s] = chunks.get(path.as_str()).copied().unwrap_or_default();
        let n = b.min(5) + s.min(5);
        if n > 1 {
            *score *= 1.0 + MULTI_CHUNK_BONUS * (n as f64).ln();
        }
        let words = file_name_words(path);
        let share = file_name_share(&terms, &words);
        *score *= 1.0 + FILE_NAME_BOOST * share;
        if share == 0.0 && !synonyms.is_empty() {
            *score *= 1.0 + SYNONYM_NAME_BOOST * synonym_name_share(&synonyms, &words);
        }
        // A test named after the name (Moose's `t/basics/buildargs.t` for
        // `BUILDARGS`) tests it; the file named so among the sources is
        // the one that holds it.
        if names.iter().any(|n| crate::search::is_named_after(path, n))
            && !inexact_only.contains(path.as_str())
            && !crate::search::is_test_path(path)
        {
            *score *= FILE_NAMED_AS_QUERY;
        }
        if declaring.contains(path.as_str()) {
            *score *= DECLARED_DEFINITION;
        }
        if let Some(asked) = platform
            && let Some(factor) = platform_factor(asked, path)
        {
            *score *= factor;
        }
    }
    if analysis.kind == QueryKind::NaturalLanguage {
        reorder_by_evidence(
            &mut scores,
            cands,
            &terms,
            platform,
            evidence.means,
            evidence.text,
        );
    }
    scores
}

/// A language whose build output ships beside its source: JavaScript and
/// what compiles to it.
fn script_family(lang: &str) -> bool {
    matches!(lang, "javascript" | "typescript" | "tsx" | "jsx")
}

/// The build output among fused candidates that goes after every other
/// file ([`after_sources`]): compiled JavaScript ([`Cand::compiled`]) when
/// the source is a candidate too, in a script language and not compiled
/// itself; for a name query, only when such a source defines the name
/// exactly. An npm package ships its `src/` beside the copies built from
/// it (ethers' `src.ts/` with `lib.esm/`, `lib.commonjs/` and `dist/`):
/// the copies hold the same words and meanings, each a few places below
/// the source, and took half of the top 10 places (66 of 130 in blind set
/// h26), even at a third of the source's prior
/// ([`crate::search::BUILD_OUTPUT_PRIOR`]). A package that ships only its
/// build keeps its order: a type declaration is no source (sequelize ships
/// its compiled `lib/` with `types/*.d.ts`, which took every top place
/// from `lib/model.js`), and source maps go with the copies
/// ([`crate::search::is_source_map`]).
fn compiled_copies(cands: &[Cand], kind: QueryKind) -> HashSet<String> {
    let source = cands.iter().any(|c| {
        !c.compiled
            && script_family(&c.lang)
            && !crate::search::is_type_declaration(&c.path)
            && (kind != QueryKind::Identifier || (c.arm == Arm::Symbol && c.raw >= 1.0))
    });
    if !source {
        return HashSet::new();
    }
    // Declarations outside any `src/` beside TypeScript sources under one
    // are the build's too: TanStack Query's npm package ships
    // `build/modern/hydration-B0J2Tmyo.d.ts` bundles, whose doc comments
    // repeat `src/types.ts`'s and took four of the first six places.
    let ts_sources = cands.iter().any(|c| {
        c.lang == "typescript"
            && !c.compiled
            && crate::search::under_src(&c.path)
            && !crate::search::is_type_declaration(&c.path)
    });
    cands
        .iter()
        .filter(|c| {
            // A source map (`lib/model.js.map`): the keyword arm reads the
            // sources it holds again; it goes where the file it maps goes.
            (c.compiled && (script_family(&c.lang) || crate::search::is_source_map(&c.path)))
                || (ts_sources
                    && crate::search::is_type_declaration(&c.path)
                    && !crate::search::under_src(&c.path))
        })
        .map(|c| c.path.clone())
        .collect()
}

/// Moves the `copies` ([`compiled_copies`]) below every other file, in
/// their own order.
fn after_sources(files: &mut HashMap<String, f64>, copies: &HashSet<String>) {
    if copies.is_empty() {
        return;
    }
    let floor = files
        .iter()
        .filter(|(p, _)| !copies.contains(*p))
        .map(|(_, &s)| s)
        .fold(f64::MAX, f64::min);
    let top = files
        .iter()
        .filter(|(p, _)| copies.contains(*p))
        .map(|(_, &s)| s)
        .fold(0.0, f64::max);
    if floor == f64::MAX || top <= 0.0 {
        return;
    }
    for (path, score) in files.iter_mut() {
        if copies.contains(path) {
            *score = floor * 0.5 * (*score / top);
        }
    }
}

/// For a question, a file linked to the first file gains this share of its
/// score (never reaching the first): one of the two references a name the
/// other defines, a name at most [`LINK_MAX_DEFINERS`] files define. The
/// files that answer a question with the first one are its neighbours in
/// the code (commons-io's wildcard matching: `FilenameUtils.java` first,
/// then `WildcardFileFilter.java`, which calls its `wildcardMatch`, now
/// second instead of fourth; RE2's `re2.h` beside `re2.cc`). Over the
/// `agent` suite's ranks 2-30 a file so linked is relevant 4× as often as
/// one that is not (8.8% against 2.1%), which rank fusion cannot see: the
/// arms score each file alone. Session 84, files NDCG@10 tune / check /
/// holdout .8709 / .8635 / .8283 → .8718 / .8667 / .8298 (479 answers
/// moved, 302 up), binary relevance (`ndcg10_binary`) .8676 / .8592 /
/// .8136 → .8697 / .8643 / .8167; 0.1, 0.2, 0.4, 0.5: tune .8716, .8716,
/// .8713, .8706; links to names of 1, 3 or 5 definers .8721, .8719, .8709;
/// the next 10, 30 or 50 files instead of 20 the same or lower. For name
/// queries (symbol cases) 19 answers moved, 10 up and 9 down, so they are
/// left as they are. `nl` hybrid MRR@10 .5678 → .5666 (20 of 360 answers
/// moved by a rank or two, 8 up).
const LINKED_TO_TOP: f64 = 0.3;
/// Most files defining a name that links two files (2: a C function's
/// header declaration and its definition).
const LINK_MAX_DEFINERS: usize = 2;
/// The files after the first that are looked at for links.
const LINK_POOL: usize = 20;

/// A ranking's files and scores, best first (ties by path, so the order
/// is the same in every process).
fn best_first(files: &HashMap<String, f64>) -> Vec<(&String, f64)> {
    let mut order: Vec<(&String, f64)> = files.iter().map(|(p, &s)| (p, s)).collect();
    order.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    order
}

/// Applies [`LINKED_TO_TOP`] to a question's file scores: the first file's
/// names are read from the store and the next [`LINK_POOL`] files looked up
/// by them; a store that cannot say leaves the scores as they are.
fn boost_linked_to_top(store: &Store, files: &mut HashMap<String, f64>) {
    let order = best_first(files);
    let Some(&(top, top_score)) = order.first() else {
        return;
    };
    let among: Vec<&str> = order
        .iter()
        .skip(1)
        .take(LINK_POOL)
        .map(|(p, _)| p.as_str())
        .collect();
    if among.is_empty() {
        return;
    }
    let linked = match store.files_linked_to(top, &among, LINK_MAX_DEFINERS) {
        Ok(l) => l,
        Err(e) => {
            tracing::debug!("links to the first file not read: {e}");
            return;
        }
    };
    for path in linked {
        if let Some(s) = files.get_mut(&path) {
            *s = (*s * (1.0 + LINKED_TO_TOP)).min(top_score * 0.999_999);
        }
    }
}

/// Weights of the file evidence a question is re-ranked by (see
/// [`reorder_by_evidence`]): the file's best BM25 score over the best BM25
/// score, the share of the query's terms its path and its candidates'
/// names carry, and the penalties for tests, data files and generated code.
const EVIDENCE_BM25: f64 = 1.0;
const EVIDENCE_COVERAGE: f64 = 1.0;
const EVIDENCE_TEST: f64 = -0.5;
/// ...for documentation and data files, twice a test's: a question's words
/// fill a Markdown page about the feature (fastify's `docs/Reference/`)
/// more than the code doing it (session 80, files NDCG@10 tune / check /
/// holdout .8676 / .8591 / .8256 → .8683 / .8595 / .8262, 23 questions up
/// and 9 down; −2 about the same, .8684 / .8598 / .8261; `nl` hybrid
/// MRR@10 .5660 → .5665).
const EVIDENCE_DATA: f64 = -1.0;
/// ...and for generated code and build output ([`Cand::generated`]), as
/// for tests (session 65: tune .8672 → .8675, holdout .7963 → .7965, check
/// unchanged, its corpora have none; the `dist/` variant of
/// `scripts/dist-variant.py` .8339 → .8382; −1 scores as −0.5).
const EVIDENCE_GENERATED: f64 = -0.5;
/// ...and the shape of the semantic arm's cosines, beside BM25's: where a
/// file's best chunk stands between the arm's lowest and highest candidate
/// (0–1). Without it the evidence was all lexical (BM25's shape, the terms'
/// coverage), so a file the semantic arm found first lost to files holding
/// the words (Django's "where are settings loaded": `conf/__init__.py`
/// behind `migrations/loader.py`, now in the top 10). Session 75, files
/// NDCG@10 tune / check / holdout .8665 / .8537 / .8224 without; weights
/// 0.25, 0.4, 0.5, 0.6, 0.75, 1: tune .8666, .8671, .8669, .8671, .8674,
/// .8658 (a plateau), check .8568, .8556, .8575, .8572, .8547, .8538,
/// holdout .8234, .8247, .8245, .8250, .8250, .8229.
const EVIDENCE_SEMANTIC: f64 = 0.5;

/// ...and the file as a whole: where its mean similarity to the question
/// over all its chunks stands among the candidate files' (0–1,
/// [`SemanticIndex::file_means`](crate::search::semantic::SemanticIndex::file_means)).
/// The arms rank chunks, so a hub file with one close chunk among many far
/// ones stood with the file that is about the question throughout
/// (regex-automata's `util/start.rs` for "how is the dfa start state
/// picked", behind `dfa/dense.rs`). Session 93, replayed on the `agent`
/// suite's questions: files NDCG@10 tune / check / holdout .8359 / .8197 /
/// .7818 → .8390 / .8267 / .7901 at 0.6 (0.4 .8386 / .8240 / .7869, 0.8
/// .8389 / .8238 / .7918, 1.0 lower on all three); the mean of the file's
/// three best chunks instead gained nothing.
const EVIDENCE_FILE_MEAN: f64 = 0.6;

/// ...and the file's size: a file larger than [`SIZE_KNEE`] bytes loses
/// this much per natural-log unit above it (`ln(size / knee)`). A hub file
/// (rayon's 3,500-line `iter/mod.rs`, jackson's `BasicDeserializerFactory`)
/// holds most of a question's words in some chunk and is near many
/// meanings, so every arm finds it; on the suite's answers a file above
/// 40 KB in the top 3 was relevant 54-67% of the time at rank 1 against
/// 71-76% for smaller ones, and 8-12% at rank 2 against 19-23%, on both
/// halves. Session 91, files NDCG@10 tune / check / holdout +.0016 /
/// +.0001 / +.0008, blind set h14 .835 → .839 (concept .834 → .850); knee
/// 20 KB at 0.1 / 0.2 / 0.3: check −.0019 / −.0022 / −.0014 (tune and
/// holdout up), 40 KB at 0.1 / 0.3: check −.0003 / −.0010; at 80 KB the
/// gain was gone (tune −.0013). The cost is on docstring queries, whose
/// answer is one method of a large file: `nl` hybrid MRR@10 −.0037
/// (regex-automata's 200 KB `dense.rs`). Kept for questions only (how /
/// where / what ...), the gain went with it: it comes from concept
/// questions, noun phrases as docstrings are.
const EVIDENCE_SIZE: f64 = 0.2;
const SIZE_KNEE: f64 = 40_000.0;

/// `ln(bytes / SIZE_KNEE)`, 0 at or below the knee.
fn size_excess(bytes: u64) -> f64 {
    (bytes as f64 / SIZE_KNEE).max(1.0).ln()
}

/// Re-orders the files of a natural-language query by a linear score over
/// evidence that rank fusion drops: the fused file score over the best,
/// plus the shapes of BM25's scores and of the semantic arm's cosines (a
/// file far ahead of the rest is, where ranks alone say only "first"),
/// plus how many of the query's terms the file's path and its matching
/// symbols' names cover ("how are generators discovered" →
/// `generators/discovery.py`, `find_generators`), minus penalties for
/// tests, data files, generated code, declarations (`.d.ts`, `.pyi`,
/// OCaml's `.mli`, files of enums or TypeScript types only) and files far
/// larger than most, times the platform
/// factor when the question names one ([`platform_factor`]). The
/// new order takes over the old scores' values, best to worst, so how far
/// apart files stand (which
/// [`order_by_file`] weighs against repeats) keeps its tuned shape.
///
/// Weights chosen on the `agent` suite's tuning half (a grid, plateau
/// centre; `scripts/fusion-lab.py` variant `ltr-pick`): NDCG@10 files /
/// chunks 0.871 / 0.866 → 0.884 / 0.879 there and 0.854 / 0.849 →
/// 0.863 / 0.859 on the checking half.
fn reorder_by_evidence(
    scores: &mut HashMap<String, f64>,
    cands: &[Cand],
    terms: &HashSet<String>,
    platform: Option<usize>,
    file_means: &HashMap<String, f64>,
    text: &mut TermCounter<'_>,
) {
    let top = scores.values().copied().fold(0.0, f64::max);
    if top <= 0.0 || scores.len() < 2 {
        return;
    }
    let mut bm25 = ArmScores::default();
    let mut cosine = ArmScores::default();
    let mut words: HashMap<&str, HashSet<String>> = HashMap::new();
    let mut lang: HashMap<&str, &str> = HashMap::new();
    let mut generated: HashSet<&str> = HashSet::new();
    let mut size: HashMap<&str, u64> = HashMap::new();
    // Per file, whether its candidates declare something (an enum; in
    // TypeScript also an interface or a type alias) and whether any is
    // something else (a function, a class, a constant).
    let mut declares: HashMap<&str, (bool, bool)> = HashMap::new();
    // A chunk several arms found is split into words once.
    let mut named: HashSet<(&str, &str)> = HashSet::new();
    for c in cands {
        lang.entry(c.path.as_str()).or_insert(c.lang.as_str());
        let z = size.entry(c.path.as_str()).or_default();
        *z = (*z).max(c.file_size);
        let typescript = matches!(c.lang.as_str(), "typescript" | "tsx");
        let d = declares.entry(c.path.as_str()).or_default();
        match c.kind.as_deref() {
            Some("enum") => d.0 = true,
            Some("interface" | "type") if typescript => d.0 = true,
            // An interface's members say nothing of code either
            // (session 97: holdout +.0001, blind h20 +.0002).
            None | Some("field") => {}
            Some("constant" | "variable") if !typescript => {}
            Some(_) => d.1 = true,
        }
        if c.generated {
            generated.insert(c.path.as_str());
        }
        match c.arm {
            Arm::Bm25 => bm25.see(&c.path, c.raw),
            Arm::Semantic => cosine.see(&c.path, c.raw),
            _ => {}
        }
        if let Some(sym) = c.symbol.as_deref()
            && named.insert((c.path.as_str(), sym))
        {
            words.entry(c.path.as_str()).or_default().extend(
                crate::text::split_identifier(last_part(sym))
                    .iter()
                    .map(|w| crate::text::crude_stem(w).to_string()),
            );
        }
    }
    let empty = HashSet::new();
    // The files' mean similarities, from the lowest to the best (0–1).
    let (low, high) = scores
        .keys()
        .filter_map(|p| file_means.get(p))
        .fold((f64::MAX, f64::MIN), |(l, h), &m| (l.min(m), h.max(m)));
    let mean_spread = |p: &str| match file_means.get(p) {
        Some(m) if high > low => (m - low) / (high - low),
        _ => 0.0,
    };
    let mut order: Vec<(f64, &String)> = scores
        .iter()
        .map(|(path, &score)| {
            let p = path.as_str();
            let mut s = score / top
                + EVIDENCE_BM25 * bm25.over_top(p)
                + EVIDENCE_SEMANTIC * cosine.spread(p)
                + EVIDENCE_FILE_MEAN * mean_spread(p)
                + EVIDENCE_COVERAGE * term_coverage(terms, p, words.get(p).unwrap_or(&empty));
            if crate::search::is_test_path(p) {
                s += EVIDENCE_TEST;
            }
            if crate::search::is_data_file(p) || lang.get(p) == Some(&"docs") {
                s += EVIDENCE_DATA;
            }
            // A TypeScript module of types only (tanstack's `types.ts`,
            // 76 KB of interfaces) declares what the code does, as a
            // `.d.ts` does. Session 91: files NDCG@10 tune / check /
            // holdout +.0005 / +.0001 / +.0001, blind h14 and h15 +.001.
            // So does a file of enums in any language (Newtonsoft's
            // `DateFormatHandling.cs`, the options' names and their doc
            // comments, led "recognise dates in ISO format"). Session 98:
            // check / holdout +.0004 / +.0003 (tune ±0), blind h18 / h20
            // / h21 +.0006 / +.0007 / +.0017, the rest unchanged.
            let types_only = declares
                .get(p)
                .is_some_and(|&(types, other)| types && !other);
            // An OCaml interface (`lwt_main.mli`) holds the documented
            // signature; the question asks for the `.ml` doing it. Only
            // here, not in the path prior, which also demoted the `.mli`
            // a question lists beside its `.ml` (session 92: files NDCG@10
            // tune / holdout +.0008 / −.0004 that way, +.0006 / +.0001
            // this way; blind h16's lwt .614 → .66; check has no OCaml).
            let interface = crate::lang::is_ocaml_interface(p);
            if generated.contains(p)
                || crate::search::is_type_declaration(p)
                || types_only
                || interface
            {
                s += EVIDENCE_GENERATED;
            }
            s -= EVIDENCE_SIZE * size_excess(size.get(p).copied().unwrap_or(0));
            // The platform asked weighs on the evidence too: another
            // platform's copy of the code holds the same words and meanings
            // (expo's Android `NsdDiscoveryBase.kt` led BM25 and the
            // semantic arm for an iOS question, ahead by more than the
            // fused score's factor could take back).
            if s > 0.0
                && let Some(asked) = platform
                && let Some(factor) = platform_factor(asked, p)
            {
                s *= factor;
            }
            tracing::trace!(
                path = p,
                fused = score / top,
                bm25 = bm25.over_top(p),
                semantic = cosine.spread(p),
                file_mean = mean_spread(p),
                coverage = term_coverage(terms, p, words.get(p).unwrap_or(&empty)),
                size = size.get(p).copied().unwrap_or(0),
                evidence = s,
                "file evidence"
            );
            (s, path)
        })
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
    // The first files' own texts as documents: BM25 over the question's
    // terms among them.
    // In one order: a set's, which differs from one process to the next,
    // would change the sums' last bits.
    let mut term_list: Vec<&str> = terms.iter().map(String::as_str).collect();
    term_list.sort_unstable();
    if !term_list.is_empty() && order.len() > 1 {
        let counted: Vec<(&str, Vec<u32>, u32)> = order
            .iter()
            .take(FILE_TEXT_POOL)
            .filter_map(|(_, p)| {
                let bytes = size.get(p.as_str()).copied().unwrap_or(0);
                text(p, bytes, &term_list).map(|(c, n)| (p.as_str(), c, n))
            })
            .collect();
        let by_text = file_bm25(&counted, term_list.len());
        let best = by_text.values().copied().fold(0.0, f64::max);
        if best > 0.0 {
            for (s, path) in order.iter_mut() {
                if let Some(v) = by_text.get(path.as_str()) {
                    *s += EVIDENCE_FILE_BM25 * v / best;
                }
            }
            order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        }
    }
    let mut values: Vec<f64> = scores.values().copied().collect();
    values.sort_by(|a, b| b.total_cmp(a));
    let reordered: HashMap<String, f64> = order
        .into_iter()
        .zip(values)
        .map(|((_, path), v)| (path.clone(), v))
        .collect();
    *scores = reordered;
}

/// ...and, among the first [`FILE_TEXT_POOL`] files by that evidence,
/// each file's whole text as a document: BM25 of the question's terms
/// over those files (their own document frequencies and lengths), over
/// the best of them. The arms score chunks; a file that uses the
/// question's words throughout is about them. Session 93, replayed on the
/// `agent` suite's questions: files NDCG@10 tune / check / holdout .8390 /
/// .8267 / .7901 → .8406 / .8312 / .7938 at 0.4 over 20 files (15 or 30
/// files alike; document frequencies over the whole corpus alike; 0.7
/// higher on tune only); in the eval .8781 / .8722 / .8379 → .8802 /
/// .8752 / .8405, blind h18 / h19 .833 / .863 → .839 / .867, `nl` hybrid
/// MRR@10 .5576 → .5674. The cost is reading and counting those files:
/// Django's MCP hybrid p50 9.9 → 11.4 ms (the texts are cached warm).
const EVIDENCE_FILE_BM25: f64 = 0.4;
const FILE_TEXT_POOL: usize = 20;

/// Reads a file's text (`path`, the size the index recorded) and counts
/// the given terms in it ([`term_counts`]); `None` when it cannot be read.
type TermCounter<'a> = dyn FnMut(&str, u64, &[&str]) -> Option<(Vec<u32>, u32)> + 'a;

/// What [`file_scores`] passes on to [`reorder_by_evidence`] about whole
/// files: their mean similarities and a reader counting terms in them.
struct FileEvidence<'a, 'b> {
    means: &'a HashMap<String, f64>,
    text: &'a mut TermCounter<'b>,
}

/// A [`TermCounter`] that reads nothing (the token match's pool, tests).
fn no_text(_: &str, _: u64, _: &[&str]) -> Option<(Vec<u32>, u32)> {
    None
}

/// How often each of `terms` (lowercase, [`crate::text::crude_stem`]med)
/// stands in `text` as a word, and how many words it has: words are runs
/// of ASCII letters and digits starting with a letter, split as
/// identifiers are (`parseConfig` → `parse`, `config`; `HTTPServer` →
/// `http`, `server`), lowercased and stemmed.
///
/// It runs over the whole text of the question's first 20 files (half a
/// megabyte for some of aro's), so the text is read 64 bytes at a time as
/// bit masks of its classes ([`ascii_classes`]), where words start and end
/// are bit operations on them, and a word is only lowercased and stemmed
/// when a term could be its stem: one starting with its first two letters
/// whose length the stem's suffixes (at most 3 bytes) could bridge. Session
/// 101: 3.4 → 1.2 ns a byte on aro's sources.
fn term_counts(text: &str, terms: &[&str]) -> (Vec<u32>, u32) {
    let b = text.as_bytes();
    let mut counts = vec![0u32; terms.len()];
    // Per first byte, the lengths a word starting with it may have to stem
    // to one of the terms (none: `lo > hi`).
    let mut lo = [usize::MAX; 256];
    let mut hi = [0usize; 256];
    for t in terms {
        if let Some(&c) = t.as_bytes().first() {
            let c = usize::from(c);
            lo[c] = lo[c].min(t.len());
            hi[c] = hi[c].max(t.len() + 3);
        }
    }
    // The first two bytes (lowercased) a word stemming to a term starts
    // with, as bits of a 256 × 256 table: a term's own first two, every
    // second byte for a one-letter term (only the word itself stems to it).
    let mut pairs = vec![0u64; 256 * 256 / 64];
    let mut mark = |i: usize| pairs[i / 64] |= 1 << (i % 64);
    for t in terms {
        match t.as_bytes() {
            [] => {}
            [c] => (0..256).for_each(|n| mark(usize::from(*c) * 256 + n)),
            [c, n, ..] => mark(usize::from(*c) * 256 + usize::from(*n)),
        }
    }
    let mut words = 0u32;
    let mut lower: Vec<u8> = Vec::with_capacity(64);
    // The previous block's last byte (alphanumeric, upper-case, lower-case,
    // digit) and whether it lay in a run starting with a digit (no word).
    let (mut p_a, mut p_u, mut p_l, mut p_d, mut p_inv) = (0u64, 0u64, 0u64, 0u64, false);
    for (k, block) in b.chunks(64).enumerate() {
        let base = k * 64;
        let (u, lw, d) = ascii_classes(block);
        let a = u | lw | d;
        let next_lower = b
            .get(base + 64)
            .map_or(0, |c| u64::from(c.is_ascii_lowercase()));
        let prev_a = (a << 1) | p_a;
        let prev_u = (u << 1) | p_u;
        let prev_l = (lw << 1) | p_l;
        let prev_d = (d << 1) | p_d;
        let next_l = (lw >> 1) | (next_lower << 63);
        let run_start = a & !prev_a;
        // Where `split_identifier` starts a word inside a run.
        let camel = u & (prev_l | prev_d | (prev_u & next_l));
        let part_start = run_start | camel;
        // Bytes in runs starting with a digit: adding a run's first bit
        // carries through the run and clears it.
        let cont = u64::from(p_inv && a & 1 != 0 && p_a != 0);
        let seeds = (run_start & d) | cont;
        let inv = a & !a.wrapping_add(seeds);
        let starts = part_start & !inv;
        words += starts.count_ones();
        // Where a word ends inside the block: before the next word's start
        // or the run's end.
        let ends = part_start | !a;
        let mut cands = starts;
        while cands != 0 {
            let bit = cands.trailing_zeros();
            let at = base + bit as usize;
            cands &= cands - 1;
            let c = usize::from(b[at].to_ascii_lowercase());
            let pair = c * 256 + usize::from(b.get(at + 1).map_or(0, u8::to_ascii_lowercase));
            if pairs[pair / 64] & (1 << (pair % 64)) == 0 {
                continue;
            }
            // The word's end: the run's, or where its next word starts;
            // past the block's end byte by byte.
            let after = ends & (u64::MAX << bit << 1);
            let mut end = if after != 0 {
                base + after.trailing_zeros() as usize
            } else {
                base + 64
            };
            while after == 0
                && end < b.len()
                && end - at <= hi[c]
                && b[end].is_ascii_alphanumeric()
                && !crate::text::starts_word(
                    char::from(b[end - 1]),
                    char::from(b[end]),
                    b.get(end + 1).map(|&c| char::from(c)),
                )
            {
                end += 1;
            }
            let part = &b[at..end];
            if part.len() < lo[c] || part.len() > hi[c] {
                continue;
            }
            lower.clear();
            lower.extend(part.iter().map(u8::to_ascii_lowercase));
            let Ok(word) = std::str::from_utf8(&lower) else {
                continue;
            };
            let stem = crate::text::crude_stem(word);
            if let Some(j) = terms.iter().position(|t| *t == stem) {
                counts[j] += 1;
            }
        }
        p_a = a >> 63;
        p_u = u >> 63;
        p_l = lw >> 63;
        p_d = d >> 63;
        p_inv = inv >> 63 != 0;
    }
    (counts, words)
}

/// Bit masks of up to 64 bytes' ASCII classes (bit `i` for `block[i]`):
/// upper-case letters, lower-case letters, digits. Eight bytes at a time
/// as one word: a byte's top bit says whether it is at least a bound.
fn ascii_classes(block: &[u8]) -> (u64, u64, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = ONES << 7;
    // Each byte's top bit to bit `i` of the byte `i` (no two products
    // meet, so nothing carries).
    const GATHER: u64 = 0x0102_0408_1020_4080;
    let ge = |x: u64, k: u8| ((x | HIGH).wrapping_sub(ONES * u64::from(k))) & HIGH;
    let bits = |m: u64| ((m >> 7).wrapping_mul(GATHER)) >> 56;
    let (mut u, mut l, mut d) = (0u64, 0u64, 0u64);
    for (i, eight) in block.chunks(8).enumerate() {
        let x = match <[u8; 8]>::try_from(eight) {
            Ok(w) => u64::from_le_bytes(w),
            Err(_) => {
                let mut w = [0u8; 8];
                w[..eight.len()].copy_from_slice(eight);
                u64::from_le_bytes(w)
            }
        };
        let ascii = !x & HIGH;
        let upper = ascii & ge(x, b'A') & !ge(x, b'Z' + 1);
        let lower = ascii & ge(x, b'a') & !ge(x, b'z' + 1);
        let digit = ascii & ge(x, b'0') & !ge(x, b'9' + 1);
        u |= bits(upper) << (8 * i);
        l |= bits(lower) << (8 * i);
        d |= bits(digit) << (8 * i);
    }
    (u, l, d)
}

/// BM25 (k1 1.2, b 0.75) of each counted file as a document among the
/// counted files: `(path, term counts, words)`, `n` terms.
fn file_bm25<'a>(counted: &[(&'a str, Vec<u32>, u32)], n: usize) -> HashMap<&'a str, f64> {
    let docs = counted.len() as f64;
    let avg = counted.iter().map(|c| f64::from(c.2)).sum::<f64>() / docs.max(1.0);
    let idf: Vec<f64> = (0..n)
        .map(|j| {
            let df = counted.iter().filter(|c| c.1[j] > 0).count() as f64;
            (1.0 + (docs - df + 0.5) / (df + 0.5)).ln()
        })
        .collect();
    counted
        .iter()
        .map(|(path, tf, len)| {
            let norm = 1.2 * (0.25 + 0.75 * f64::from(*len) / avg.max(1.0));
            let score = (0..n)
                .filter(|&j| tf[j] > 0)
                .map(|j| {
                    let f = f64::from(tf[j]);
                    idf[j] * f * 2.2 / (f + norm)
                })
                .sum();
            (*path, score)
        })
        .collect()
}

/// One arm's raw scores over the candidates: each file's best, the best and
/// the lowest of all, read as a shape by [`reorder_by_evidence`].
struct ArmScores<'a> {
    best: HashMap<&'a str, f64>,
    top: f64,
    floor: f64,
}

impl Default for ArmScores<'_> {
    fn default() -> Self {
        ArmScores {
            best: HashMap::new(),
            top: f64::MIN,
            floor: f64::MAX,
        }
    }
}

impl<'a> ArmScores<'a> {
    fn see(&mut self, path: &'a str, raw: f64) {
        let b = self.best.entry(path).or_insert(raw);
        *b = b.max(raw);
        self.top = self.top.max(raw);
        self.floor = self.floor.min(raw);
    }

    /// The file's best over the best of all (0 for a file the arm did not
    /// find, or when no score is above 0): BM25's scores start at 0.
    fn over_top(&self, path: &str) -> f64 {
        ratio(
            self.best.get(path).copied().unwrap_or(0.0),
            self.top.max(0.0),
        )
    }

    /// Where the file's best stands between the lowest and the best of all
    /// (0–1; 0 for a file the arm did not find): cosines sit in a narrow
    /// band, so only their spread tells.
    fn spread(&self, path: &str) -> f64 {
        match self.best.get(path) {
            Some(b) if self.top > self.floor => (b - self.floor) / (self.top - self.floor),
            _ => 0.0,
        }
    }
}

/// Each component of `path` up to its first dot (`src/parser.tab.c` →
/// `src`, `parser`).
fn component_stems(path: &str) -> impl Iterator<Item = &str> {
    path.split('/')
        .map(|comp| comp.split('.').next().unwrap_or(comp))
}

/// The share (0–1) of the query's terms that a file's path components or
/// the names of its candidate chunks carry, meeting on a common prefix of
/// at least four letters as in [`file_name_share`].
fn term_coverage(terms: &HashSet<String>, path: &str, names: &HashSet<String>) -> f64 {
    if terms.is_empty() {
        return 0.0;
    }
    // The path's words beside the names, not merged into a copy of them
    // (this runs for every candidate file, twice a search).
    let path_words: Vec<String> = component_stems(path)
        .flat_map(crate::text::name_words)
        .map(|w| crate::text::crude_stem(&w).to_string())
        .collect();
    let prefix_meets = |w: &String, t: &String| {
        let n = w.len().min(t.len());
        n >= 4 && w.as_bytes()[..n] == t.as_bytes()[..n]
    };
    let meets = |t: &String| {
        names.contains(t)
            || path_words.contains(t)
            || names.iter().chain(&path_words).any(|w| prefix_meets(w, t))
    };
    terms.iter().filter(|t| meets(t)).count() as f64 / terms.len() as f64
}

/// The query's terms ([`crate::text::query_terms`]), each crudely stemmed:
/// what file names, paths and symbol names are matched against.
fn stemmed_terms(query: &str) -> HashSet<String> {
    crate::text::query_terms(query)
        .iter()
        .map(|t| crate::text::crude_stem(t).to_string())
        .collect()
}

/// The synonyms of the query's words that are not query terms
/// themselves, stemmed as [`stemmed_terms`].
fn stemmed_synonyms(query: &str, terms: &HashSet<String>) -> HashSet<String> {
    crate::text::query_terms(query)
        .iter()
        .flat_map(|t| crate::text::synonyms(t))
        .map(|s| crate::text::crude_stem(s).to_string())
        .filter(|s| !terms.contains(s))
        .collect()
}

/// Orders fused hits by their file: a hit's key is its file's standing
/// (the file score of [`file_scores`] over the best file score) times the
/// hit's score over the best in its file. So the best files come first,
/// each led by its best chunk; `rank` shows each file once and lists its
/// other chunks that rank above the next file not shown as the hit's
/// `also` (at most [`ALSO_SPANS`]).
///
/// The standing was 0.8 × that share plus 0.2 × the file's best chunk over
/// the best chunk until session 81, when the best chunk's part, measured
/// again, only cost: files NDCG@10 tune / check / holdout .8683 / .8595 /
/// .8262 → .8701 / .8612 / .8265 without it (0.05: +.0019 / +.0007 /
/// −.0001, 0.1: +.0009 / −.0002 / +.0008), `nl` hybrid MRR@10 .5665 →
/// .5678, `nav` and `keyword` unchanged.
///
/// On the `agent` suite (`scripts/fusion-lab.py`) this took NDCG@10 files /
/// chunks (first appearance) from 0.752 / 0.739 to 0.801 / 0.788, on the
/// tuning half 0.817 → 0.860 and the checking half 0.687 → 0.743, while the
/// `nl` docstring suite kept MRR@10 (0.335 → 0.334). Showing every file once
/// before any repeat scored higher on files (0.816) but cost `nl` 0.07: a
/// described function is often the second-best chunk of its file. Hence
/// (session 56) one hit per file with its further chunks as `also`, in
/// place of a 0.8 decay per repeat: NDCG@10 files / chunks tune .881 / .874
/// → .890 / .890, check .864 / .859 → .870 / .870, holdout .811 / .806 →
/// .822 / .822; `nl` MRR@10 .349 → .519 counting `also` spans at their
/// hit's rank (.307 counting only the hits' own spans).
fn order_by_file(hits: Vec<Fused>, files: &HashMap<String, f64>) -> Vec<Fused> {
    let mut hits = hits;
    for h in &mut hits {
        if is_bare_line(h) {
            h.score *= BARE_LINE_SHARE;
        }
    }
    let mut best_in_file: HashMap<String, f64> = HashMap::new();
    for h in &hits {
        let b = best_in_file.entry(h.path.clone()).or_insert(h.score);
        *b = b.max(h.score);
    }
    let top_file = files.values().copied().fold(0.0, f64::max);
    let standing = |path: &str| ratio(files.get(path).copied().unwrap_or(0.0), top_file);
    for h in &mut hits {
        let best = best_in_file.get(&h.path).copied().unwrap_or(h.score);
        h.score = standing(&h.path) * ratio(h.score, best);
    }
    // A file's further hits are folded under its first when the list is
    // shown (`rank`: one hit per file, the rest as `also`), so no decay
    // of repeats is needed to keep one file from filling the list.
    hits.sort_by(by_score);
    hits
}

/// A hit that stands for its file only when nothing better in the file
/// matched counts this share of its score there (the file's own rank is
/// untouched: its first hit still carries its standing).
const BARE_LINE_SHARE: f64 = 0.5;

/// A one-line chunk with no name that only the text arms found: `#endif`,
/// `namespace Catch {`, `@end`, a licence line, an import. It shows little
/// of why the file matched, so another hit of the same file leads it.
fn is_bare_line(h: &Fused) -> bool {
    h.start_line == h.end_line
        && h.symbol.is_none()
        && h.sources.iter().all(|s| {
            matches!(
                s.arm,
                Arm::Bm25 | Arm::Semantic | Arm::Phrase | Arm::Synonym
            )
        })
}

/// For a name query whose exact definitions all lie in one live-source
/// file, that file ranks first: the header defining a macro before the
/// file that uses it most (lighttpd's `CONST_STR_LEN`, used 200 times in
/// `configfile.c`), the source file defining a function before the header
/// holding only its prototype (`mosquitto_loop_forever`). `exact` holds
/// the paths of the symbol arm's exact candidates, without such headers.
/// Qualified names are left alone unless a prototype so gave way (the
/// caller decides): a module qualifier can fit a re-export
/// (`std.fmt.parseFloat` in `fmt.zig`) or a declaration file better than
/// the definition.
fn lead_sole_definer(files: &mut HashMap<String, f64>, exact: &[String]) {
    let mut live = exact
        .iter()
        .map(String::as_str)
        .filter(|p| !crate::search::is_test_path(p) && !crate::search::is_secondary_path(p));
    let Some(path) = live.next() else {
        return;
    };
    if live.any(|p| p != path) {
        return;
    }
    let top = files.values().copied().fold(0.0_f64, f64::max);
    let Some(score) = files.get_mut(path) else {
        return;
    };
    if *score >= top {
        return;
    }
    // Just above the best file, and every score 0-1 again.
    *score = top * 1.001;
    let new_top = *score;
    for v in files.values_mut() {
        *v /= new_top;
    }
}

/// For a name query, the best file defining the type so named ranks above
/// every file holding only extensions of it (`CAPPluginCall.h`'s
/// `@interface` before the Swift `extension CAPPluginCall` file, whose
/// three extensions outweighed it; a Rust `struct` before a file of `impl
/// Trait for` it). Session 97: the suite's one such case (capacitor's
/// `CAPPluginCall`, which the category's `impl` kind had turned) back to 1.0,
/// blind h22 .8689 → .8698, the rest the same.
fn type_before_extensions(
    files: &mut HashMap<String, f64>,
    types: &[String],
    extensions: &[String],
) {
    let score = |p: &String| files.get(p).copied().unwrap_or(0.0);
    let Some(best_type) = types.iter().max_by(|a, b| score(a).total_cmp(&score(b))) else {
        return;
    };
    let top_extension = extensions.iter().map(score).fold(0.0_f64, f64::max);
    let own = score(best_type);
    if own <= 0.0 || own >= top_extension {
        return;
    }
    // Between the extension and the file above it: scores near the top
    // can differ in their fourth decimal.
    let above = files
        .values()
        .copied()
        .filter(|&s| s > top_extension)
        .fold(f64::INFINITY, f64::min);
    let lifted = if above.is_finite() {
        (top_extension + above) / 2.0
    } else {
        top_extension * 1.0001
    };
    if let Some(s) = files.get_mut(best_type) {
        *s = lifted;
    }
    let top = files.values().copied().fold(0.0_f64, f64::max);
    if top > 0.0 {
        for v in files.values_mut() {
            *v /= top;
        }
    }
}

/// For a name query, each file is led by the definition the symbol arm
/// ranked best in it, whatever else matched more of the file's words:
/// rustls's `struct RecordLayer` before its 300-line `impl RecordLayer`
/// (the arm ranks types before impl blocks), a class before the method
/// that uses its name. It is what the name asks for, and its lines are
/// what the answer shows.
fn lead_with_definitions(hits: &mut [Fused]) {
    lead_files_with(hits, |h| {
        h.sources
            .iter()
            .find(|s| s.arm == Arm::Symbol)
            .map(|s| s.rank)
    });
}

/// For a question that spells a function's name (`where is model_validate
/// defined`, `what steps does analyze_set run`), each file holding a
/// function or method of exactly that name is led by it: pydantic's
/// `main.py` showed its deprecated `validate`, whose text says
/// "model_validate" twice, and listed `model_validate` only among the
/// `also` spans. A type's name is left alone, its constructor too: in "how
/// ZipFile locates the central directory" it says where to look, and a
/// method of it answers.
/// The files' order is left as it is.
fn lead_with_named(hits: &mut [Fused], identifiers: &[String]) {
    if identifiers.is_empty() {
        return;
    }
    let names: HashSet<&str> = identifiers.iter().map(|i| last_part(i)).collect();
    lead_files_with(hits, |h| {
        (matches!(h.kind.as_deref(), Some("function" | "method"))
            && h.symbol
                .as_deref()
                .is_some_and(|s| names.contains(last_part(s)) && !is_constructor(s)))
        .then_some(0)
    });
}

/// Whether a qualified name is a constructor named after its type
/// (`ZipFile.ZipFile`, `Foo::Foo`): its name is the type's.
fn is_constructor(symbol: &str) -> bool {
    matches!(crate::search::split_qualified(symbol), (Some(container), name) if container == name)
}

/// Lifts in each file the hit with the lowest `key` (the first such hit
/// on a tie; hits without a key are not candidates) to just above the
/// file's best score, so it leads the file and the other hits keep their
/// order.
fn lead_files_with(hits: &mut [Fused], key: impl Fn(&Fused) -> Option<u32>) {
    // Per file: its best score, and (key, index) of the hit to lead it.
    let mut best: HashMap<&str, f64> = HashMap::new();
    let mut leads: HashMap<&str, (u32, usize)> = HashMap::new();
    for (i, h) in hits.iter().enumerate() {
        let b = best.entry(h.path.as_str()).or_insert(f64::MIN);
        *b = b.max(h.score);
        if let Some(k) = key(h) {
            let d = leads.entry(h.path.as_str()).or_insert((k, i));
            if k < d.0 {
                *d = (k, i);
            }
        }
    }
    let leads: Vec<(usize, f64)> = leads
        .into_iter()
        .map(|(path, (_, i))| (i, best.get(path).copied().unwrap_or(f64::MIN)))
        .collect();
    for (i, best) in leads {
        if hits[i].score < best {
            // Just above the file's best: the other hits keep their order.
            hits[i].score = best * (1.0 + 1e-9);
        }
    }
}

/// For a question, a file whose best hit is named like the best hit of a
/// file ranked above it (every extension's `register`, every extra
/// field's `getHeaderId`) is multiplied by this: one such sibling shows
/// the pattern, the rest crowd out the code that calls them. On the
/// suite's questions, when three or more of the top 10 files were led by
/// one name (266 of 1,870 questions), the first of them was relevant 33%
/// of the time and the others 7%. Session 91, files NDCG@10 tune / check
/// / holdout +.0007 / +.0004 / +.0004, blind sets h14 .839 → .840 and h15
/// .751 → .754; 0.6: +.0003 / +.0001 / +.0003, h14 .837, h15 .758;
/// from the third such file on: tune −.0002. `nl` hybrid MRR@10 −.0019.
const SIBLING_DAMP: f64 = 0.8;
/// Files looked at, best first.
const SIBLING_POOL: usize = 30;

fn damp_siblings(files: &mut HashMap<String, f64>, hits: &[Fused]) {
    let mut lead: HashMap<&str, (f64, Option<&str>)> = HashMap::new();
    for h in hits {
        let e = lead.entry(h.path.as_str()).or_insert((f64::MIN, None));
        if h.score > e.0 {
            *e = (h.score, h.symbol.as_deref());
        }
    }
    let order = best_first(files);
    let mut named: HashSet<String> = HashSet::new();
    let mut damped: Vec<String> = Vec::new();
    for (path, _) in order.into_iter().take(SIBLING_POOL) {
        let Some(name) = lead.get(path.as_str()).and_then(|l| l.1) else {
            continue;
        };
        let name = last_part(name).to_lowercase();
        if !named.insert(name) {
            damped.push(path.clone());
        }
    }
    for path in damped {
        if let Some(s) = files.get_mut(&path) {
            *s *= SIBLING_DAMP;
        }
    }
}

/// A declaration file's extension and those of the sources that define
/// what it declares beside it (same directory, same name).
const DECLARATION_EXTS: [(&str, &[&str]); 6] = [
    (".h", &[".c", ".cc", ".cpp", ".cxx", ".m", ".mm"]),
    (".hh", &[".cc", ".cpp"]),
    (".hpp", &[".cpp", ".cc", ".cxx"]),
    (".mli", &[".ml"]),
    (".pyi", &[".py"]),
    (".d.ts", &[".js", ".ts", ".mjs", ".cjs"]),
];

/// The path of a declaration file without its extension, and the
/// extensions of the sources that would define what it declares.
fn declaration_of(path: &str) -> Option<(&str, &'static [&'static str])> {
    DECLARATION_EXTS
        .iter()
        .find_map(|(ext, defs)| path.strip_suffix(ext).map(|stem| (stem, *defs)))
}

/// How many files, best first, a question's declaration files are looked
/// for in; their defining sources are looked for among every candidate
/// file below them. Session 97 looked for the sources among the first 10
/// too; session 99, among all: files NDCG@10 tune / check / holdout
/// +.0001 / ±0 / +.0009, blind h21 / h28 / h24 / h29 / h22 +.0072 /
/// +.0064 / +.0010 / +.0011 / +.0006, h20 / h27 −.0003 / −.0002 (libzmq's
/// `io_thread.hpp` second and `io_thread.cpp` fifteenth for "how does an
/// I/O thread wait for socket readiness": h28 showed it).
const DECLARATION_POOL: usize = 10;

/// For a question, a declaration file (`lwt_pool.mli`, `sds.h`) ranked
/// above the source beside it that defines what it declares
/// (`lwt_pool.ml`, `sds.c`) gives that source its place: the code that
/// does the work, not the list of its names and their prose, answers a
/// question about how something works. On the suite's questions, of 23
/// such pairs in a top 10 with the declaration first, the source was the
/// better answer in 21 and the declaration in 2. Session 97, files NDCG@10
/// tune / check / holdout +.0012 / +.0004 / +.0005, blind h21 .7187 →
/// .7234 (lwt's `.mli` files), h18-h20 the same or higher; `nl` the same.
/// Name queries keep their order: a header's definition (a macro, a
/// struct) is what the name asks for as often as not there.
fn implementation_before_declaration(files: &mut HashMap<String, f64>) {
    let order = best_first(files);
    let mut lifts: Vec<(String, f64)> = Vec::new();
    for (i, (path, score)) in order.iter().enumerate().take(DECLARATION_POOL) {
        let Some((stem, defs)) = declaration_of(path) else {
            continue;
        };
        let below = order[i + 1..].iter().find(|(p, _)| {
            defs.iter()
                .any(|ext| p.strip_suffix(ext).is_some_and(|s| s == stem))
        });
        if let Some((source, _)) = below {
            // Between the declaration and the file above it: scores near
            // the top can differ in their fourth decimal.
            let lift = match i.checked_sub(1).map(|j| order[j].1) {
                Some(above) => (score + above) / 2.0,
                None => score * 1.0001,
            };
            lifts.push(((*source).clone(), lift));
        }
    }
    for (path, score) in lifts {
        if let Some(s) = files.get_mut(&path) {
            *s = s.max(score);
        }
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b > 0.0 { a / b } else { 0.0 }
}

/// File stems that name a module's entry, not what it does: their
/// directory's name stands for them.
const GENERIC_STEMS: [&str; 8] = [
    "mod", "index", "__init__", "init", "main", "lib", "core", "base",
];

/// The share (0–1) of the words of a file's name ([`file_name_words`])
/// that are query words (`config.py` for "where is the config loaded"; `ser/mod.rs` by `ser`).
/// Words meet on a common prefix of at least four letters, so `parser`
/// matches "parsing" and `configuration` "config".
fn file_name_share(terms: &HashSet<String>, words: &HashSet<String>) -> f64 {
    if words.is_empty() {
        return 0.0;
    }
    let meets = |w: &str| {
        let w = crate::text::crude_stem(w);
        terms.contains(w)
            || terms.iter().any(|t| {
                let n = w.len().min(t.len());
                n >= 4 && w.as_bytes()[..n] == t.as_bytes()[..n]
            })
    };
    // A word met as it is counts 1; a compound (`globalstate`) the share of
    // its words that are met ("shared state": 0.5).
    let met: f64 = words
        .iter()
        .map(|w| {
            if meets(w) {
                return 1.0;
            }
            crate::text::compound_parts(w).map_or(0.0, |parts| {
                parts.iter().filter(|p| meets(p)).count() as f64 / parts.len() as f64
            })
        })
        .sum();
    met / words.len() as f64
}

/// The share (0–1) of the words of a file's name that are, stemmed, among
/// `synonyms` ([`stemmed_synonyms`]): whole words only, since a synonym met
/// on a prefix misfires more than a query word does.
fn synonym_name_share(synonyms: &HashSet<String>, words: &HashSet<String>) -> f64 {
    if words.is_empty() {
        return 0.0;
    }
    let met = words
        .iter()
        .filter(|w| synonyms.contains(crate::text::crude_stem(w)))
        .count();
    met as f64 / words.len() as f64
}

/// The words a file's name is made of, lowercase, without generic ones
/// (for `mod.rs`, `index.js`, `__init__.py`, its directory's words).
fn file_name_words(path: &str) -> HashSet<String> {
    let stem = crate::search::file_stem(path);
    let mut words = crate::text::split_identifier(stem);
    if GENERIC_STEMS.contains(&stem.to_ascii_lowercase().as_str()) || words.is_empty() {
        let mut comps = path.rsplit('/');
        comps.next();
        words = comps
            .next()
            .map(crate::text::split_identifier)
            .unwrap_or_default();
    }
    words
        .into_iter()
        .filter(|w| w.len() > 1 && !GENERIC_STEMS.contains(&w.as_str()))
        .collect()
}

/// Operating systems and platforms a question can be about ("on Windows",
/// "the iOS side", "unix signals"), each with the words a path spells it
/// with (a directory `src/win/`, `ios/`, `platform/darwin/`, a file
/// `command_win.go`, `signal_unix.rs`). A project keeps one copy of the
/// code per platform, the same names in each, so only the path tells them
/// apart and the arms rank the copies alike (libuv's `src/unix/core.c`
/// beside `src/win/core.c`, expo's `ios/*.swift` beside `android/**/*.kt`).
///
/// React Native libraries keep the iOS and macOS code under `apple/` and
/// a browser copy under `web/`; "web" is too common a word in questions
/// to name a platform, so that copy only counts as another one.
const PLATFORMS: [(&[&str], &[&str]); 7] = [
    (
        &["windows", "win32"],
        &["win", "win32", "win64", "windows", "winnt", "msvc"],
    ),
    (&["unix", "posix"], &["unix", "posix"]),
    (&["linux"], &["linux"]),
    (
        &["macos", "osx", "darwin"],
        &["darwin", "macos", "osx", "apple"],
    ),
    // A question naming the platform's own language asks for its side
    // (Swift and Objective-C code is Apple's, Kotlin Android's).
    (
        &["ios", "iphone", "swift", "objc"],
        &["ios", "iphone", "apple"],
    ),
    (&["android", "kotlin"], &["android"]),
    (&[], &["web"]),
];

/// For a question that names a platform ([`PLATFORMS`]), a file of that
/// platform is multiplied by `1 + PLATFORM_MATCH`, and a file of another
/// platform (and of none of the one asked) by `PLATFORM_OTHER`; files that
/// name no platform keep their score. Where the word is a query term,
/// the path's share of the query's terms already counts it
/// ([`term_coverage`]); this adds the aliases (`win` for "Windows") and
/// pushes the other copies down. Session 91, files NDCG@10 tune / check /
/// holdout ±0 / +.0001 / −.0001 (rich's `_windows_renderer.py` +.098,
/// cobra's `command_win.go` +.026; libuv's `src/win/core.c`, a secondary
/// file of a unix question, −.042), blind set h14 .830 → .833 (expo-video's
/// iOS questions .851 → .877; that set showed the problem, so it is no
/// independent check). Session 92, the factor on the evidence of
/// [`reorder_by_evidence`] as well: tune / check / holdout +.0003 / ±0 /
/// ±0 (cobra's `command_win.go` first), blind sets h14 / h15 / h16 / h17
/// +.002 / +.002 / ±0 / +.004 (h17's expo-dev-launcher showed it).
/// Before that, 0.5 / 0.7: tune / check / holdout ±0 / +.0001 / −.0001 but
/// tokio's `net/unix/listener.rs` led "unix signals"; 0.2 / 1 and 0 / 0.7
/// alike on the suite, h14 .833.
const PLATFORM_MATCH: f64 = 0.2;
/// ...and another platform's copy by this.
const PLATFORM_OTHER: f64 = 0.85;
/// [`PLATFORMS`]' unix, Linux and macOS entries.
const UNIX: usize = 1;
const LINUX: usize = 2;
const MACOS: usize = 3;

/// The platform a question names, as an index into [`PLATFORMS`]: the
/// first met, when the question names exactly one.
fn asked_platform(query: &str) -> Option<usize> {
    let query = query
        .to_ascii_lowercase()
        .replace("objective-c", "objc")
        .replace("objective c", "objc");
    let words: Vec<String> = crate::text::words(&query).map(String::from).collect();
    let mut asked = PLATFORMS
        .iter()
        .enumerate()
        .filter(|(_, (said, _))| words.iter().any(|w| said.contains(&w.as_str())))
        .map(|(i, _)| i);
    let first = asked.next()?;
    asked.next().is_none().then_some(first)
}

/// The factor [`PLATFORM_MATCH`] / [`PLATFORM_OTHER`] for a file, by the
/// platforms its directories and file name spell. The outermost directory
/// that spells one says whose copy the file is: an Android file named
/// for the iOS behaviour it imitates (`android/…/IosInterpolator.kt`) is
/// Android's.
fn platform_factor(asked: usize, path: &str) -> Option<f64> {
    let words_of = |comp: &str| -> Vec<String> {
        crate::text::split_identifier(comp)
            .into_iter()
            .map(|w| w.to_ascii_lowercase())
            .collect()
    };
    let spelled =
        |words: &[String], i: usize| words.iter().any(|w| PLATFORMS[i].1.contains(&w.as_str()));
    // Linux and macOS are unixes: their code sits beside or under the
    // unix copy (libuv's `src/unix/epoll.c` for "the Linux backend").
    let kin = |i: usize| i == UNIX && matches!(asked, LINUX | MACOS);
    // Each component's words, split once: directories, then the file.
    let comps: Vec<Vec<String>> = component_stems(path).map(words_of).collect();
    let dirs = &comps[..comps.len().saturating_sub(1)];
    let owner = dirs
        .iter()
        .find(|words| (0..PLATFORMS.len()).any(|i| spelled(words, i)));
    if let Some(owner) = owner
        && !spelled(owner, asked)
        && !(0..PLATFORMS.len()).any(|i| kin(i) && spelled(owner, i))
    {
        return Some(PLATFORM_OTHER);
    }
    let words: Vec<String> = comps.concat();
    let spells = |i: usize| spelled(&words, i);
    if spells(asked) {
        Some(1.0 + PLATFORM_MATCH)
    } else if (0..PLATFORMS.len()).any(|i| spells(i) && !kin(i)) {
        Some(PLATFORM_OTHER)
    } else {
        None
    }
}

/// The semantic arm's weight is multiplied by this when its vectors come
/// from the full tier (MiniLM): those rank much better than the fast tier's
/// (MRR@10 0.476 vs 0.359 on 250 Django docstring queries, BM25 0.409), and
/// on the same cases fused MRR@10 rose from 0.531 (weight 1) to 0.566
/// (weight 2) while the fast tier did best near 1 then (0.5 since files are
/// ranked, 1.0 again with the code delta). Natural-language queries keep
/// the full tier at the measured 2 (4 × 0.5 before the delta, now 2 × 1.0).
const FULL_TIER_BOOST: f64 = 2.0;

/// Natural-language queries: a fused hit gains `NAME_BOOST` × the share of
/// its symbol's name parts that are query words (`_check_pattern_name` for
/// "check that the pattern name ..."): people describe code with the words
/// its names are made of, and neither BM25 (one column among three) nor the
/// vectors weigh the name on its own.
const NAME_BOOST: f64 = 2.0;
/// ...and functions and methods gain this factor over classes and
/// top-level blocks: a described behaviour lives in a callable.
const CALLABLE_PRIOR: f64 = 1.5;
/// Only the head of the fused list is re-ranked.
const RERANK_TOP: usize = 50;

/// The share (0–1) of the name parts of `symbol`'s last component that are
/// among `terms` (stemmed query words).
fn name_overlap(terms: &HashSet<String>, symbol: &str) -> f64 {
    let parts: HashSet<String> = crate::text::split_identifier(last_part(symbol))
        .into_iter()
        .filter(|p| p.len() > 1 && !crate::text::is_stopword(p))
        .map(|p| crate::text::crude_stem(&p).to_string())
        .collect();
    if parts.is_empty() {
        return 0.0;
    }
    parts
        .iter()
        .filter(|p| terms.contains(*p) || terms.iter().any(|t| same_word_stem(t, p)))
        .count() as f64
        / parts.len() as f64
}

/// Whether two crude stems are one word's: equal, or one is the other
/// with a final `e` its stem kept (`parse` and `pars`, from `parsed`:
/// pflag's `parseShortArg` for "how are shorthand flags parsed").
fn same_word_stem(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short.len() >= 3
        && long.len() == short.len() + 1
        && long.ends_with('e')
        && long.starts_with(short)
}

/// Re-ranks the head of a fused list for a natural-language query by name
/// overlap and kind (see [`NAME_BOOST`]). Tuned on the `nl` suite: MRR@10
/// 0.293 → 0.32 with these values, on both halves of the suite.
fn rerank_by_names(hits: &mut [Fused], query: &str) {
    let terms = stemmed_terms(query);
    let n = hits.len().min(RERANK_TOP);
    for f in &mut hits[..n] {
        let overlap = f.symbol.as_deref().map_or(0.0, |s| name_overlap(&terms, s));
        let callable = matches!(f.kind.as_deref(), Some("function" | "method"));
        f.score *= (1.0 + NAME_BOOST * overlap) * if callable { CALLABLE_PRIOR } else { 1.0 };
    }
    hits[..n].sort_by(by_score);
}

/// Best score first; ties by path and line, so results are deterministic.
fn by_score(a: &Fused, b: &Fused) -> std::cmp::Ordering {
    b.score
        .total_cmp(&a.score)
        .then(a.path.cmp(&b.path))
        .then(a.start_line.cmp(&b.start_line))
}

/// A snippet read from the file on disk (fresh), with context lines.
/// The lines of a snippet starting at `line` that lie within
/// `start..=end`; `None` when none does.
fn clip_to_span(line: u32, text: &str, start: u32, end: u32) -> Option<(u32, String)> {
    let kept: Vec<(u32, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (line + i as u32, l))
        .filter(|(n, _)| (start..=end).contains(n))
        .collect();
    let first = kept.first()?.0;
    let body: Vec<&str> = kept.into_iter().map(|(_, l)| l).collect();
    Some((first, body.join("\n")))
}

/// What [`file_snippet`] shows: the lines an arm chose (`anchor`), else
/// the first line of a quoted phrase or the span's best `lines` lines for
/// `terms`; with `context` lines around them.
struct FileSnippet<'a> {
    terms: &'a [String],
    phrases: &'a [String],
    lines: usize,
    context: usize,
    anchor: Option<(u32, String)>,
}

fn file_snippet(root: &Path, f: &Fused, at: FileSnippet<'_>) -> Option<(u32, String)> {
    let FileSnippet {
        terms,
        phrases,
        lines,
        context,
        anchor,
    } = at;
    let p = crate::paths::resolve_in_root(root, &f.path).ok()?;
    let text = crate::fs_safe::read_regular_to_string(&p.abs).ok()?;
    let all: Vec<&str> = text.lines().collect();
    let start = (f.start_line as usize).saturating_sub(1).min(all.len());
    let end = (f.end_line as usize).min(all.len()).max(start);
    let lines = lines.max(1);
    // The first line holding a quoted phrase, a line of lead-in above it.
    let phrase_at = all[start..end]
        .iter()
        .position(|l| phrases.iter().any(|p| l.contains(p.as_str())));
    let (line, snip) = match (anchor, phrase_at) {
        (Some(a), _) => a,
        (None, Some(i)) => {
            let from = start + i.saturating_sub(1);
            let to = (from + lines).min(end);
            ((from + 1) as u32, all[from..to].join("\n"))
        }
        (None, None) => best_snippet(&all[start..end].join("\n"), f.start_line, terms, lines),
    };
    if context == 0 {
        return Some((line, snip));
    }
    let n = snip.lines().count().max(1);
    let from = (line as usize).saturating_sub(context).max(1);
    let to = (line as usize + n - 1 + context).min(all.len());
    let with_ctx: Vec<String> = all[from - 1..to]
        .iter()
        .map(|l| crate::search::bound_line(l, 240))
        .collect();
    Some((from as u32, with_ctx.join("\n")))
}

/// A namespace's or module's opening line alone (`namespace log {` of
/// LevelDB's `log_format.h`, whose contents are chunks of their own):
/// nothing to read. So is a type's opening line whose members are chunks
/// of their own (rack's `class Cookie < Abstract::PersistedSecure` led
/// `cookie.rb` for "how is the session cookie signed and verified"),
/// unless the query asks for the type itself: its name (`HeaderMap`), or
/// a question for its definition ("where is the Tokeniser type
/// defined"). A question about what the type does ("how does HeaderMap
/// grow when it gets full") is shown by a member: http's one-line `impl<T>
/// HeaderMap<T> {` had led `map.rs` over `try_grow`.
fn is_bare_opening(f: &Fused, analysis: Option<&Analysis>) -> bool {
    let kind = f.kind.as_deref().unwrap_or("");
    f.end_line <= f.start_line + 1
        && (matches!(kind, "namespace" | "module" | "package")
            || (matches!(
                kind,
                "class" | "struct" | "interface" | "trait" | "impl" | "object" | "protocol"
            ) && analysis.is_some_and(|a| {
                !defines_queried_name(a, f.symbol.as_deref())
                    || (a.kind == QueryKind::NaturalLanguage && a.declared.is_none())
            })))
}

/// A file whose first hit is a bare opening ([`is_bare_opening`]) leads
/// with its next hit instead, at the same place and score: what folds
/// into a file's first hit is shown as places (`also`), so the file is
/// shown by the chunk worth reading.
fn lead_with_content(hits: &mut [Fused], analysis: Option<&Analysis>) {
    let mut seen: HashSet<&str> = HashSet::new();
    let mut swaps = Vec::new();
    for (i, h) in hits.iter().enumerate() {
        if !seen.insert(h.path.as_str()) || !is_bare_opening(h, analysis) {
            continue;
        }
        if let Some(j) = (i + 1..hits.len())
            .find(|&j| hits[j].path == h.path && !is_bare_opening(&hits[j], analysis))
        {
            swaps.push((i, j));
        }
    }
    for (i, j) in swaps {
        let (si, sj) = (hits[i].score, hits[j].score);
        hits.swap(i, j);
        (hits[i].score, hits[j].score) = (si, sj);
    }
}

/// Most definitions a `context`ed hit lists from its file.
const FILE_SYMBOLS_MAX: usize = 12;

/// The definitions of a hit's file nearest the hit (as `context`'s outline
/// digest picks them), with their containers, in source order: none
/// that overlaps the hit (those holding it, which its label says, or
/// shown by its lines), nor one its `also` places show.
fn file_symbols(
    store: &Store,
    path: &str,
    start: u32,
    end: u32,
    also: &[AlsoSpan],
) -> Result<Vec<String>> {
    let Some(file) = store.file_record(path)? else {
        return Ok(Vec::new());
    };
    let rows: Vec<_> = store
        .file_symbol_rows(file.id)?
        .into_iter()
        .filter(|r| r.end_line < start || end < r.start_line)
        .collect();
    let (near, _) = crate::search::symbol::outline_near(&rows, start, FILE_SYMBOLS_MAX);
    Ok(near
        .into_iter()
        .filter(|e| {
            !also
                .iter()
                .any(|x| x.start_line <= e.start_line && e.end_line <= x.end_line)
        })
        .map(|e| {
            format!(
                "{} {} ({}-{})",
                e.kind, e.qualified, e.start_line, e.end_line
            )
        })
        .collect())
}

fn interpretation(a: &Analysis, reports: &[ArmReport], led: bool) -> String {
    let what = match (&a.location, &a.file, a.kind) {
        (Some((path, line)), _, _) if led => {
            format!("a location ({path}:{line}): the code at that line first")
        }
        (None, Some(path), _) if led => format!("a file ({path}): its main chunk first"),
        (_, _, QueryKind::Identifier) => format!(
            "identifier-like ({}): leaning on symbol definitions",
            a.identifiers.join(", ")
        ),
        (_, _, QueryKind::Literal) => format!(
            "literal text ({}): leaning on exact keyword matches",
            a.phrases
                .iter()
                .map(|p| format!("\"{p}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        (_, _, QueryKind::NaturalLanguage) => {
            "natural language: leaning on BM25 and semantic similarity".to_string()
        }
    };
    let arms: Vec<String> = reports
        .iter()
        .map(|r| match &r.note {
            Some(n) if r.candidates == 0 => format!("{} ×{} ({n})", r.arm.name(), r.weight),
            _ => format!("{} ×{} {} hits", r.arm.name(), r.weight, r.candidates),
        })
        .collect();
    format!("{what}; arms: {}", arms.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fused_at(path: &str, start: u32, end: u32, kind: &str, score: f64) -> Fused {
        Fused {
            path: path.into(),
            start_line: start,
            end_line: end,
            symbol: None,
            kind: Some(kind.into()),
            lang: "cpp".into(),
            score,
            sources: Vec::new(),
            contributions: Vec::new(),
            snippet: None,
            pending: None,
            is_block: true,
            raw: score,
        }
    }

    #[test]
    fn also_places_of_one_name_are_printed_together() {
        assert_eq!(
            also_text(&[
                "825-861 Serializer",
                "381-427 Serializer",
                "20-30",
                "5-9",
                "683-720 Serializer",
                "1-3 f"
            ]),
            "825-861, 381-427, 683-720 Serializer; 20-30; 5-9; 1-3 f"
        );
        assert_eq!(also_text::<&str>(&[]), "");
    }

    #[test]
    fn a_qualifier_names_a_methods_container_only_when_it_ends_its_symbol() {
        assert!(names_its_container("Template#render", "Template.render"));
        assert!(names_its_container(
            "Template#render",
            "Liquid.Template.render"
        ));
        assert!(names_its_container("Vec::push", "Vec::push"));
        // A module qualifier of a function with no container.
        assert!(!names_its_container("util.parseHeaders", "parseHeaders"));
        assert!(!names_its_container("render", "Template.render"));
        assert!(!names_its_container("Template#render", "Render.render"));
    }

    #[test]
    fn a_bare_namespace_opening_does_not_lead_its_file() {
        let mut hits = vec![
            fused_at("db/log_format.h", 12, 12, "namespace", 0.9),
            fused_at("db/log_writer.cc", 20, 40, "method", 0.8),
            fused_at("db/log_format.h", 14, 24, "enum", 0.5),
            fused_at("db/other.h", 3, 3, "namespace", 0.4),
        ];
        lead_with_content(&mut hits, None);
        let order: Vec<(&str, u32, f64)> = hits
            .iter()
            .map(|h| (h.path.as_str(), h.start_line, h.score))
            .collect();
        assert_eq!(
            order,
            [
                ("db/log_format.h", 14, 0.9),
                ("db/log_writer.cc", 20, 0.8),
                ("db/log_format.h", 12, 0.5),
                ("db/other.h", 3, 0.4),
            ],
            "a file with nothing else keeps its opening"
        );
        // A type's opening line yields too, unless the query names it.
        let hits = || {
            let mut cookie = fused_at("lib/rack/session/cookie.rb", 49, 49, "class", 0.9);
            cookie.symbol = Some("Cookie".into());
            vec![
                cookie,
                fused_at("lib/rack/session/cookie.rb", 126, 130, "method", 0.5),
            ]
        };
        let mut asked = hits();
        lead_with_content(
            &mut asked,
            Some(&analyze("how is the session cookie signed")),
        );
        assert_eq!((asked[0].start_line, asked[0].score), (126, 0.9));
        let mut named = hits();
        lead_with_content(&mut named, Some(&analyze("Cookie")));
        assert_eq!(named[0].start_line, 49);
        // A question about what the named type does is shown by a member;
        // one asking for its definition, by its opening.
        let hits = |name: &str| {
            let mut map = fused_at("src/header/map.rs", 453, 453, "impl", 0.9);
            map.symbol = Some(name.into());
            vec![
                map,
                fused_at("src/header/map.rs", 1732, 1770, "method", 0.5),
            ]
        };
        let mut about = hits("HeaderMap");
        lead_with_content(
            &mut about,
            Some(&analyze("how does HeaderMap grow when it gets full")),
        );
        assert_eq!(about[0].start_line, 1732);
        let mut named = hits("HeaderMap");
        lead_with_content(&mut named, Some(&analyze("HeaderMap")));
        assert_eq!(named[0].start_line, 453);
    }

    #[test]
    fn a_question_naming_a_platform_lifts_its_files_and_lowers_other_copies() {
        let windows = asked_platform("how is output written on legacy Windows consoles");
        assert!(windows.is_some());
        let w = windows.unwrap_or_default();
        assert_eq!(
            platform_factor(w, "src/win/core.c"),
            Some(1.0 + PLATFORM_MATCH)
        );
        assert_eq!(
            platform_factor(w, "command_win.go"),
            Some(1.0 + PLATFORM_MATCH)
        );
        assert_eq!(platform_factor(w, "src/unix/core.c"), Some(PLATFORM_OTHER));
        assert_eq!(platform_factor(w, "src/window.c"), None);
        assert_eq!(platform_factor(w, "src/timer.c"), None);
        // Linux is a unix: the unix copy is no other platform's.
        let linux = asked_platform("where does the Linux backend wait for events");
        let l = linux.unwrap_or_default();
        assert_eq!(platform_factor(l, "src/unix/epoll.c"), None);
        assert_eq!(
            platform_factor(l, "src/unix/linux.c"),
            Some(1.0 + PLATFORM_MATCH)
        );
        assert_eq!(platform_factor(l, "src/win/core.c"), Some(PLATFORM_OTHER));
        let mac = asked_platform("how are files watched on macOS").unwrap_or_default();
        assert_eq!(platform_factor(mac, "src/unix/kqueue.c"), None);
        assert_eq!(
            platform_factor(mac, "src/unix/darwin.c"),
            Some(1.0 + PLATFORM_MATCH)
        );
        let ios = asked_platform("iOS: evict cached videos").unwrap_or_default();
        assert_eq!(
            platform_factor(ios, "ios/Cache/VideoCacheManager.swift"),
            Some(1.0 + PLATFORM_MATCH)
        );
        assert_eq!(
            platform_factor(ios, "android/src/main/java/VideoCache.kt"),
            Some(PLATFORM_OTHER)
        );
        assert_eq!(
            platform_factor(ios, "apple/RNGestureHandler.mm"),
            Some(1.0 + PLATFORM_MATCH)
        );
        let android =
            asked_platform("on Android, how is a handler made from its name").unwrap_or_default();
        assert_eq!(
            platform_factor(android, "src/web/handlers/GestureHandler.ts"),
            Some(PLATFORM_OTHER)
        );
        assert_eq!(
            platform_factor(android, "apple/RNGestureHandler.mm"),
            Some(PLATFORM_OTHER)
        );
        // The outermost platform directory decides: an Android file named
        // for the iOS curve it imitates is Android's.
        assert_eq!(
            platform_factor(
                ios,
                "android/src/main/java/interactive/interpolators/IosInterpolator.kt"
            ),
            Some(PLATFORM_OTHER)
        );
        // The platform's own language names it.
        let (ios, android) = (asked_platform("on iOS"), asked_platform("on Android"));
        assert_eq!(asked_platform("in the Swift code, how is focus moved"), ios);
        assert_eq!(
            asked_platform("how are tiles requested from the Objective-C side"),
            ios
        );
        assert_eq!(
            asked_platform("Kotlin: apply the status bar style"),
            android
        );
        assert_eq!(asked_platform("how is a web request retried"), None);
        // None named, or two: no platform.
        assert_eq!(asked_platform("how are timers ordered"), None);
        assert_eq!(asked_platform("the same path on unix and on windows"), None);
    }

    #[test]
    fn capitalised_words_of_a_question_are_name_candidates() {
        assert_eq!(
            analyze("where is the Traversal type defined").capitalised,
            ["Traversal"]
        );
        // Sentence capitals of stopwords, camel case (already a name) and
        // all-caps words are not candidates; a name query has none.
        assert!(
            analyze("How does the TypeAdapter work")
                .capitalised
                .is_empty()
        );
        assert!(analyze("where is the HTTP client").capitalised.is_empty());
        assert!(analyze("Traversal").capitalised.is_empty());
    }

    #[test]
    fn a_word_before_a_colon_is_a_word_and_a_selector_alone_a_name() {
        let a = analyze("what happens when a dot file is parsed into a graph: lexer, AST");
        assert!(
            !a.identifiers.iter().any(|i| i.starts_with("graph")),
            "{:?}",
            a.identifiers
        );
        assert_eq!(
            analyze("sendPluginResult:callbackId:").identifiers,
            ["sendPluginResult"]
        );
        let a = analyze("parse_config: where is it called");
        assert_eq!(a.identifiers, ["parse_config"]);
        assert_eq!(keyword_literals(&a), ["parse_config"]);
        // A location's line is no literal to look for.
        assert!(
            keyword_literals(&analyze("gone.go:10"))
                .iter()
                .all(|l| l != "10")
        );
    }

    #[test]
    fn kebab_case_words_are_name_candidates() {
        assert_eq!(analyze("helm-acase macro").kebab, ["helm-acase"]);
        assert_eq!(analyze("outdated-swap!").kebab, ["outdated-swap!"]);
        assert_eq!(
            analyze("where is `resolve-and-apply` called").kebab,
            ["resolve-and-apply"]
        );
        // Not names: flags, ranges, a hyphen at either end, other marks.
        for q in ["--no-ignore", "1-2", "pre- and post-", "a--b", "x-y.z"] {
            assert!(analyze(q).kebab.is_empty(), "{q}");
        }
        // Only a definition makes one an identifier (`confirm_declared`):
        // analysis alone leaves the question as it is.
        let a = analyze("read-only built-in types");
        assert_eq!(a.kebab, ["read-only", "built-in"]);
        assert_eq!(a.kind, QueryKind::NaturalLanguage);
        assert!(a.identifiers.iter().all(|i| !i.contains('-')), "{a:?}");
    }

    #[test]
    fn a_name_is_spelled_as_a_name_or_a_part_of_one() {
        for line in [
            "serializer.serialize_u64(u)",
            "fn serialize<S>(&self, serializer: S)",
            "let serializer_for = 1;",
            "serializerFor(x)",
            "x = $serializer",
        ] {
            assert!(spells_name_part(line, "serializer"), "{line}");
        }
        assert!(spells_name_part("let serializers = vec![];", "serializer"));
        for line in [
            "use crate::number::NumberDeserializer;",
            "let deserializer = 1;",
        ] {
            assert!(!spells_name_part(line, "serializer"), "{line}");
        }
        assert!(spells_name_part("let p = newParser();", "Parser"));
        assert!(spells_name_part(
            "uses Deserializer and serializer",
            "serializer"
        ));
    }

    #[test]
    fn classifies_queries() {
        assert_eq!(analyze("parse_config").kind, QueryKind::Identifier);
        assert_eq!(analyze("HttpClient::new").identifiers, ["HttpClient::new"]);
        assert_eq!(analyze("getUserById").kind, QueryKind::Identifier);
        assert_eq!(analyze("config").kind, QueryKind::Identifier);
        assert_eq!(analyze("$constructor").kind, QueryKind::Identifier);
        assert_eq!(analyze("$constructor").identifiers, ["$constructor"]);
        let a = analyze("find \"retry with backoff\" please");
        assert_eq!(a.kind, QueryKind::Literal);
        assert_eq!(a.phrases, ["retry with backoff"]);
        assert_eq!(analyze(r"fn\s+main").kind, QueryKind::Literal);
        // A question around a quote stays a question, with its phrase;
        // apostrophes inside words quote nothing.
        let a = analyze("turn a human-readable size like '10 mb' into a number of bytes");
        assert_eq!(
            (a.kind, a.phrases),
            (QueryKind::NaturalLanguage, vec!["10 mb".to_string()])
        );
        let a = analyze("where is the user's session and the app's config read");
        assert_eq!((a.kind, a.phrases), (QueryKind::NaturalLanguage, vec![]));
        assert_eq!(analyze("find 'a b' 'c d'").phrases, ["a b", "c d"]);
        // Names as agents write them (the identifier the arms get): PHP
        // namespace paths, Ruby's `Class#method`, arities, members through
        // a variable, calls and type arguments, a name asked about.
        for (q, name) in [
            (
                r"Monolog\Handler\HandlerInterface",
                r"Monolog\Handler\HandlerInterface",
            ),
            (
                r"\Illuminate\Support\Collection",
                r"\Illuminate\Support\Collection",
            ),
            (r"App\Support\helper_fn", r"App\Support\helper_fn"),
            (
                r"Twig\Node\MacroNode::compile",
                r"Twig\Node\MacroNode::compile",
            ),
            (
                r"GuzzleHttp\default_ca_bundle",
                r"GuzzleHttp\default_ca_bundle",
            ),
            ("gin.(*Context).JSON", "gin.Context.JSON"),
            ("(*Params).Get", "Params.Get"),
            ("(T).String", "T.String"),
            ("Router.prototype.route", "Router.route"),
            ("List:append", "List.append"),
            ("pl.List:append", "pl.List.append"),
            ("ListReporter$get_results", "ListReporter.get_results"),
            ("Map$Entry", "Map.Entry"),
            ("Tokens::$emptyTokens", "Tokens::emptyTokens"),
            (
                r"PHP_CodeSniffer\Util\Tokens::$emptyTokens",
                r"PHP_CodeSniffer\Util\Tokens::emptyTokens",
            ),
            ("Request#params", "Request#params"),
            ("Logger->addRecord", "Logger->addRecord"),
            ("Mix.Dep.Converger.converge/4", "Mix.Dep.Converger.converge"),
            ("converge/4", "converge"),
            ("valid?/1", "valid?"),
            ("$logger->addRecord", "addRecord"),
            ("dev->ops", "ops"),
            ("TypeAdapter(...)", "TypeAdapter"),
            ("parse(s)", "parse"),
            ("TypeAdapter[T]", "TypeAdapter"),
            ("Vec<u8>", "Vec"),
            ("Map<String,List<T>>", "Map"),
            ("Foo<T>(x)", "Foo"),
            ("pydantic.TypeAdapter[T]", "pydantic.TypeAdapter"),
            ("TypeAdapter?", "TypeAdapter"),
            ("valid?", "valid?"),
            ("save!", "save!"),
            ("@login_required", "login_required"),
            ("@Override", "Override"),
            ("@app.route(...)", "app.route"),
        ] {
            let a = analyze(q);
            assert_eq!(
                (a.kind, a.identifiers),
                (QueryKind::Identifier, vec![name.to_string()]),
                "{q}"
            );
        }
        // A definition asked for by its declaration keyword (a plain word
        // is a name only when the index defines it so; an identifier-like
        // one is a name anyway, and the keyword says which definitions of
        // it lead).
        for (q, declared) in [
            ("struct strbuf", Some("strbuf")),
            ("type checking", Some("checking")),
            ("def parse", Some("parse")),
            ("enum object_type", Some("object_type")),
            ("struct of arrays", None),
            ("data Extension", Some("Extension")),
            ("newtype Extensions", Some("Extensions")),
            ("instance PandocMonad", Some("PandocMonad")),
            ("strbuf struct", None),
            // A question that only asks where a name is defined.
            ("where is the Tokeniser type defined", Some("Tokeniser")),
            ("where is parse_args declared?", Some("parse_args")),
            ("where's Safelist defined", Some("Safelist")),
            ("definition of the Safelist class", Some("Safelist")),
            ("where is the parse method defined", Some("parse")),
            ("where are route decorators defined", None),
            ("where is the config loaded", None),
            ("where is the Tokeniser sausage defined", None),
            ("where is Dispatchers.IO defined", Some("Dispatchers.IO")),
            ("where is DBImpl::Write defined?", Some("DBImpl::Write")),
            (
                "where is the Command.Find method defined",
                Some("Command.Find"),
            ),
            ("where is a.b. defined", None),
        ] {
            assert_eq!(
                analyze(q).declared.map(|(name, _)| name).as_deref(),
                declared,
                "{q}"
            );
        }
        for (keyword, kinds) in crate::search::DECLARATION_KEYWORDS
            .iter()
            .chain(&crate::search::KIND_WORDS)
        {
            for k in kinds.iter() {
                assert!(crate::search::symbol::KINDS.contains(k), "{keyword}: {k}");
            }
        }
        // Two names side by side: the second as a member of the first.
        for (q, members) in [
            (
                "TypeAdapter validate_python",
                vec!["TypeAdapter.validate_python"],
            ),
            ("PhpRunner run", vec!["PhpRunner.run"]),
            (
                "how does TypeAdapter validate_python work",
                vec!["TypeAdapter.validate_python", "validate_python.work"],
            ),
            ("where is the config loaded", vec![]),
            ("Flask.wsgi_app", vec![]),
        ] {
            assert_eq!(analyze(q).members, members, "{q}");
        }
        // A location as compilers, stack traces and editors print it.
        for (q, at) in [
            ("src/app.py:140", Some(("src/app.py", 140))),
            ("src/app.py:140:7", Some(("src/app.py", 140))),
            ("src/app.py:140:", Some(("src/app.py", 140))),
            ("src/app.py#L140", Some(("src/app.py", 140))),
            ("src/app.py#L140-L150", Some(("src/app.py", 140))),
            ("C:/src/app.py:12", Some(("C:/src/app.py", 12))),
            ("app.rs:3", Some(("app.rs", 3))),
            ("std::io:3", None),
            ("app.py:0", None),
            ("app.py:x", None),
            ("src/app.py 140", None),
            ("TypeAdapter", None),
        ] {
            assert_eq!(
                analyze(q).location,
                at.map(|(p, l)| (p.to_string(), l)),
                "{q}"
            );
        }
        // A regex's groups and classes keep their shape.
        for q in [
            "get_(user|admin)",
            "foo[0-9]",
            "(foo)",
            "[T]",
            "a(b|c)",
            "x<-y",
            "a->b|c",
            "(.*)",
            "(.+?)",
        ] {
            assert_eq!(asked_name(q), q, "{q}");
        }
        // An operator in its prefix form names the operator.
        assert_eq!(asked_name("(^.)"), "^.");
        assert_eq!(asked_name("( >>= )"), ">>=");
        assert_eq!(asked_name("Logger->addRecord"), "Logger->addRecord");
        // C++'s bracket operators keep their brackets.
        assert_eq!(asked_name("App::operator[]"), "App::operator[]");
        assert_eq!(asked_name("operator()"), "operator()");
        // Erlang's `module:function/arity` and record notation.
        assert_eq!(
            asked_name("ssh_auth:handle_userauth_request/3"),
            "ssh_auth.handle_userauth_request"
        );
        assert_eq!(asked_name("#ssh_msg_kexinit{}"), "ssh_msg_kexinit");
        assert_eq!(asked_name("#state{pid=P}"), "state");
        assert_eq!(asked_name("#{}"), "#{}");
        // An Erlang macro as used names the macro; a lone `?` stays.
        assert_eq!(asked_name("?MODULE"), "MODULE");
        assert_eq!(asked_name("?__(Key,Str)"), "__");
        assert_eq!(asked_name("?"), "?");
        assert_eq!(asked_name("empty?"), "empty?");
        assert_eq!(asked_name("LruCache<TKey, TValue>"), "LruCache");
        assert_eq!(asked_name("Set<T>.Find"), "Set.Find");
        // An Objective-C selector names its method by the first part.
        assert_eq!(
            asked_name("sendPluginResult:callbackId:"),
            "sendPluginResult"
        );
        assert_eq!(asked_name("count:"), "count");
        assert_eq!(asked_name("Config::"), "Config::");
        // Type arguments with spaces stay with their name.
        for (q, kind, ids) in [
            (
                "DBusStruct<T1, T2>",
                QueryKind::Identifier,
                vec!["DBusStruct"],
            ),
            (
                "AliasedObjectSet<T>.FindAlias",
                QueryKind::Identifier,
                vec!["AliasedObjectSet.FindAlias"],
            ),
            (
                "HashMap<K, Vec<V>>::insert",
                QueryKind::Identifier,
                vec!["HashMap::insert"],
            ),
            (
                "#ssh_msg_kexinit{} record",
                QueryKind::Identifier,
                vec!["ssh_msg_kexinit"],
            ),
        ] {
            let a = analyze(q);
            assert_eq!(
                (
                    a.kind,
                    a.identifiers.iter().map(String::as_str).collect::<Vec<_>>()
                ),
                (kind, ids),
                "{q}"
            );
        }
        for q in ["a < b", "x<-y", "<div> tags", "if n<3 then"] {
            assert_eq!(crate::search::without_type_arguments(q), q, "{q}");
        }
        // Colons that are not a method call keep their shape.
        for q in [
            "std::io",
            "app.rs:3",
            "C:/src/app.py:12",
            "http://x",
            "a:b:c",
        ] {
            assert_eq!(asked_name(q), q, "{q}");
        }
        // Backslashes that are not a namespace path: a regex's escapes.
        for q in [r"\bfoo", r"a\.b", r"Foo\d"] {
            assert_ne!(analyze(q).kind, QueryKind::Identifier, "{q}");
        }
        assert_eq!(analyze(r"\$x->(\w+)").kind, QueryKind::Literal);
        assert_eq!(
            analyze("src/flask/config.py").kind,
            QueryKind::NaturalLanguage
        );
        // A file by its name or path, without a line; a qualified name or
        // a location is not one.
        for (q, file) in [
            ("type_adapter.py", Some("type_adapter.py")),
            ("./src/flask/config.py", Some("src/flask/config.py")),
            ("Makefile", Some("Makefile")),
            ("README.md", Some("README.md")),
            ("@scope/pkg/index.ts", Some("@scope/pkg/index.ts")),
            ("models.CharField", None),
            ("os.path", None),
            ("config", None),
            ("install", None),
            ("todo", None),
            ("INSTALL", Some("INSTALL")),
            ("src/app.py:140", None),
            ("type adapter.py", None),
            ("*.py", None),
        ] {
            assert_eq!(analyze(q).file.as_deref(), file, "{q}");
        }
        assert_eq!(analyze("a->").kind, QueryKind::NaturalLanguage);
        for q in [
            r"\bfoo\b", r"\w+\Bar", r"a\.b", r"foo\bar", r"\Foo", r"Foo\",
        ] {
            assert_ne!(analyze(q).kind, QueryKind::Identifier, "{q}");
        }
        assert_eq!(
            last_part(r"Monolog\Handler\HandlerInterface"),
            "HandlerInterface"
        );
        assert_eq!(
            analyze("where do we validate the CSRF token").kind,
            QueryKind::NaturalLanguage
        );
        assert_eq!(
            analyze("function that parses the config file").kind,
            QueryKind::NaturalLanguage
        );
    }

    #[test]
    fn a_file_is_shown_by_its_widest_definition_named_after_it_or_its_first() {
        let row = |symbol: Option<&str>, start_line: u32, end_line: u32| ChunkRow {
            chunk_id: i64::from(start_line),
            path: "pkg/_type_adapter.py".into(),
            lang: "python".into(),
            start_line,
            end_line,
            symbol: symbol.map(String::from),
            kind: None,
            span: crate::store::ChunkSpan {
                start_byte: 0,
                end_byte: 0,
                hash: 0,
                file_size: 0,
            },
            key: 0,
        };
        let alias = ChunkRow {
            kind: Some("type".into()),
            ..row(Some("TypeAdapter"), 10, 18)
        };
        // A class cut into pieces (its header, then a wider run of
        // members) is led by its header; a small alias of the same name is
        // another, narrower definition.
        let chunks = vec![
            row(None, 1, 8),
            alias,
            row(Some("TypeAdapter"), 22, 30),
            row(Some("TypeAdapter"), 31, 70),
            row(Some("TypeAdapter.validate"), 71, 200),
        ];
        let main = main_chunk("pkg/_type_adapter.py", chunks.clone()).map(|c| c.start_line);
        assert_eq!(main, Some(22));
        let main = main_chunk("pkg/helpers.py", chunks).map(|c| c.start_line);
        assert_eq!(main, Some(1), "no chunk named after the file: its first");
        assert!(main_chunk("pkg/empty.py", Vec::new()).is_none());
    }

    /// Bison's `parser.c`, `parser.h` and `parser.tab.c` rank as generated code when
    /// their `parser.y` is a candidate too; a C file without a grammar
    /// beside it, or beside another stem's, keeps its prior.
    #[test]
    fn code_generated_from_a_candidate_grammar_ranks_as_generated() {
        let mut cands = vec![
            cand(Arm::Bm25, 1, "src/parser.c", 1, 50),
            cand(Arm::Bm25, 2, "src/parser.h", 1, 50),
            cand(Arm::Semantic, 1, "src/parser.y", 1, 50),
            cand(Arm::Bm25, 3, "src/lexer.c", 1, 50),
            cand(Arm::Bm25, 4, "lib/parser.c", 1, 50),
            cand(Arm::Bm25, 5, "src/tests/parser.c", 1, 50),
            cand(Arm::Bm25, 6, "src/parser.tab.c", 1, 50),
        ];
        demote_generated_siblings(&mut cands);
        let priors: Vec<f64> = cands.iter().map(|c| c.prior).collect();
        let g = crate::search::GENERATED_PRIOR;
        assert_eq!(priors, [g, g, 1.0, 1.0, 1.0, 0.5, g]);
        // No grammar among the candidates: nothing changes.
        let mut cands = vec![cand(Arm::Bm25, 1, "src/parser.c", 1, 50)];
        demote_generated_siblings(&mut cands);
        assert_eq!(cands[0].prior, 1.0);
    }

    /// [`reorder_by_evidence`] without whole-file evidence.
    fn reorder(
        scores: &mut HashMap<String, f64>,
        cands: &[Cand],
        terms: &HashSet<String>,
        platform: Option<usize>,
    ) {
        reorder_by_evidence(
            scores,
            cands,
            terms,
            platform,
            &HashMap::new(),
            &mut no_text,
        );
    }

    fn cand(arm: Arm, rank: u32, path: &str, s: u32, e: u32) -> Cand {
        Cand {
            arm,
            rank,
            path: path.into(),
            start_line: s,
            end_line: e,
            symbol: None,
            kind: None,
            lang: "rust".into(),
            snippet: Some((s, String::new())),
            span: None,
            raw: 0.0,
            prior: 1.0,
            generated: false,
            compiled: false,
            file_size: 0,
        }
        .with_prior()
    }

    /// A candidate covering lines 1-9 of `path` with the arm's raw score.
    fn scored(arm: Arm, rank: u32, path: &str, raw: f64) -> Cand {
        Cand {
            raw,
            ..cand(arm, rank, path, 1, 9)
        }
    }

    /// A BM25 candidate of a language and a definition kind.
    fn of_kind(lang: &str, rank: u32, path: &str, kind: &str) -> Cand {
        Cand {
            lang: lang.into(),
            kind: Some(kind.into()),
            ..scored(Arm::Bm25, rank, path, 6.0)
        }
    }

    #[test]
    fn a_name_query_shows_each_file_led_by_its_best_definition() {
        // The impl block matches more arms than the struct it implements.
        let w = |_: Arm| 1.0;
        let mut hits = fuse(
            vec![
                cand(Arm::Symbol, 1, "src/record_layer.rs", 22, 36),
                cand(Arm::Symbol, 2, "src/record_layer.rs", 38, 242),
                cand(Arm::Bm25, 1, "src/record_layer.rs", 38, 242),
                cand(Arm::Semantic, 1, "src/record_layer.rs", 38, 242),
                cand(Arm::Bm25, 2, "src/common_state.rs", 67, 98),
            ],
            &w,
            RRF_K,
        );
        assert_eq!(hits[0].start_line, 38);
        lead_with_definitions(&mut hits);
        let files = HashMap::from([
            ("src/record_layer.rs".to_string(), 1.0),
            ("src/common_state.rs".to_string(), 0.5),
        ]);
        let hits = order_by_file(hits, &files);
        assert_eq!(
            (
                hits[0].start_line,
                hits[1].start_line,
                hits[2].path.as_str()
            ),
            (22, 38, "src/common_state.rs")
        );
    }

    #[test]
    fn a_bare_line_gives_way_to_a_named_hit_of_its_file_and_keeps_the_files_rank() {
        // aria2's `FillRequestGroupCommand.h` was shown by its `#endif`.
        let w = |_: Arm| 1.0;
        let named = Cand {
            symbol: Some("FillRequestGroupCommand".into()),
            ..cand(Arm::Bm25, 3, "src/Fill.h", 47, 60)
        };
        let hits = fuse(
            vec![
                cand(Arm::Semantic, 1, "src/Fill.h", 62, 62),
                cand(Arm::Bm25, 2, "src/Other.cc", 10, 30),
                named,
                cand(Arm::Semantic, 4, "src/Lone.h", 9, 9),
            ],
            &w,
            RRF_K,
        );
        assert_eq!(
            hits[0].start_line, 62,
            "the premise: the bare line scores best"
        );
        let files = HashMap::from([
            ("src/Fill.h".to_string(), 1.0),
            ("src/Other.cc".to_string(), 0.8),
            ("src/Lone.h".to_string(), 0.6),
        ]);
        let ordered = order_by_file(hits, &files);
        let order: Vec<(&str, u32)> = ordered
            .iter()
            .map(|h| (&h.path[4..], h.start_line))
            .collect();
        // Hits as (file, line), in order: the file keeps its place, led by
        // its named chunk; a file with only a bare line keeps it.
        let firsts: Vec<(&str, u32)> = {
            let mut seen = HashSet::new();
            order
                .iter()
                .copied()
                .filter(|(p, _)| seen.insert(*p))
                .collect()
        };
        assert_eq!(
            firsts,
            [("Fill.h", 47), ("Other.cc", 10), ("Lone.h", 9)],
            "{order:?}"
        );
    }

    #[test]
    fn a_question_spelling_a_function_shows_its_file_led_by_it() {
        let named = |rank: u32, s: u32, e: u32, symbol: &str, kind: &str| Cand {
            symbol: Some(symbol.into()),
            kind: Some(kind.into()),
            ..cand(Arm::Bm25, rank, "pydantic/main.py", s, e)
        };
        let mut hits = fuse(
            vec![
                // The deprecated `validate`, whose text names `model_validate`.
                named(1, 1686, 1694, "BaseModel.validate", "method"),
                named(2, 748, 800, "BaseModel.model_validate", "method"),
                // A type or a constructor named so is not what is asked.
                named(3, 120, 130, "model_validate", "class"),
                named(4, 200, 210, "model_validate.model_validate", "method"),
            ],
            &|_| 1.0,
            RRF_K,
        );
        assert_eq!(hits[0].start_line, 1686);
        lead_with_named(&mut hits, &["main.py".into(), "model_validate".into()]);
        hits.sort_by(by_score);
        let order: Vec<u32> = hits.iter().map(|h| h.start_line).collect();
        assert_eq!(order, [748, 1686, 120, 200]);
        assert!(is_constructor("ZipFile.ZipFile") && is_constructor("Foo::Foo"));
        assert!(!is_constructor("ZipFile.open") && !is_constructor("ZipFile"));
    }

    #[test]
    fn fusion_merges_overlaps_and_counts_each_arm_once() {
        let w = |a: Arm| if a == Arm::Bm25 { 1.0 } else { 0.5 };
        let fused = fuse(
            vec![
                cand(Arm::Bm25, 1, "a.rs", 10, 20),
                cand(Arm::Keyword, 1, "a.rs", 12, 12),
                cand(Arm::Keyword, 2, "a.rs", 15, 15),
                cand(Arm::Bm25, 2, "b.rs", 1, 5),
            ],
            &w,
            60.0,
        );
        assert_eq!(fused.len(), 2);
        assert_eq!(fused[0].path, "a.rs");
        assert_eq!((fused[0].start_line, fused[0].end_line), (10, 20));
        assert_eq!(fused[0].sources.len(), 2);
        let expect = 1.0 / 61.0 + 0.5 / 61.0;
        assert!((fused[0].score - expect).abs() < 1e-12);
    }

    #[test]
    fn an_arm_counts_once_per_merged_hit_by_its_best_candidate() {
        // The symbol arm's rank 1 matched the name only inexactly (0.3 of
        // an exact match) and spans the exact rank-2 definition: the merged
        // hit shows rank 1 and scores what the exact one contributes.
        let mut inexact = cand(Arm::Symbol, 1, "a.rs", 1, 50);
        inexact.raw = INEXACT_NAME_MATCH;
        let mut exact = cand(Arm::Symbol, 2, "a.rs", 10, 20);
        exact.raw = 1.0;
        let fused = fuse(vec![inexact, exact], &|_| 1.0, 10.0);
        assert_eq!(fused.len(), 1);
        assert_eq!(
            fused[0].sources,
            vec![Source {
                arm: Arm::Symbol,
                rank: 1
            }]
        );
        assert!(
            (fused[0].score - 1.0 / 12.0).abs() < 1e-12,
            "{}",
            fused[0].score
        );
    }

    #[test]
    fn nl_queries_lift_callables_named_with_the_query_words() {
        let terms: HashSet<String> =
            crate::text::query_terms("Check that the pattern name does not contain a colon.")
                .iter()
                .map(|t| crate::text::crude_stem(t).to_string())
                .collect();
        assert_eq!(name_overlap(&terms, "URLPattern._check_pattern_name"), 1.0);
        assert_eq!(name_overlap(&terms, "Resolver.resolve"), 0.0);
        assert!((name_overlap(&terms, "check_url_config") - 1.0 / 3.0).abs() < 1e-9);

        let mut a = cand(Arm::Bm25, 1, "a.py", 1, 9);
        a.symbol = Some("Resolver.resolve".into());
        a.kind = Some("method".into());
        let mut b = cand(Arm::Bm25, 2, "b.py", 1, 9);
        b.symbol = Some("URLPattern._check_pattern_name".into());
        b.kind = Some("method".into());
        let mut hits = fuse(vec![a, b], &|_| 1.0, RRF_K);
        assert_eq!(hits[0].path, "a.py");
        rerank_by_names(&mut hits, "check that the pattern name has no colon");
        assert_eq!(hits[0].path, "b.py", "the named method rises");
    }

    /// [`file_name_share`] and [`synonym_name_share`] of a path's name.
    fn by_words(terms: &HashSet<String>, path: &str) -> f64 {
        file_name_share(terms, &file_name_words(path))
    }
    fn by_synonym(synonyms: &HashSet<String>, path: &str) -> f64 {
        synonym_name_share(synonyms, &file_name_words(path))
    }

    #[test]
    fn files_named_with_a_synonym_of_a_short_question_gain() {
        let query = "fake responses for testing";
        let synonyms = stemmed_synonyms(query, &stemmed_terms(query));
        assert_eq!(by_synonym(&synonyms, "httpx/_transports/mock.py"), 1.0);
        assert_eq!(by_synonym(&synonyms, "httpx/_transports/default.py"), 0.0);
        // Whole words only: `logging` does not meet `loggly` on its prefix
        // as a query word would.
        let query = "where are log lines written";
        let synonyms = stemmed_synonyms(query, &stemmed_terms(query));
        assert_eq!(by_synonym(&synonyms, "Handler/LogglyHandler.php"), 0.0);
        assert!(by_words(&synonyms, "Handler/LogglyHandler.php") > 0.0);
        assert_eq!(by_synonym(&synonyms, "src/journal.c"), 1.0);
        // Through the file scores: the named file overtakes one ranked above
        // it, for a short question only.
        let cands = vec![
            cand(Arm::Bm25, 1, "httpx/_transports/default.py", 1, 9),
            cand(Arm::Bm25, 2, "httpx/_transports/mock.py", 1, 9),
        ];
        let w = |_: Arm| 1.0;
        let scores = |query: &str| {
            file_scores(
                &cands,
                &w,
                RRF_K,
                &analyze(query),
                query,
                &[],
                FileEvidence {
                    means: &HashMap::new(),
                    text: &mut no_text,
                },
            )
        };
        let short = scores("fake responses for testing");
        assert!(short["httpx/_transports/mock.py"] > short["httpx/_transports/default.py"]);
        let long = scores("where are the fake responses that the tests of the client send built");
        assert!(long["httpx/_transports/mock.py"] < long["httpx/_transports/default.py"]);
    }

    #[test]
    fn files_named_with_the_query_words_gain() {
        let terms = stemmed_terms("where is the config loaded");
        assert_eq!(by_words(&terms, "src/flask/config.py"), 1.0);
        assert_eq!(by_words(&terms, "src/flask/app.py"), 0.0);
        // A generic stem stands for its directory.
        assert_eq!(by_words(&terms, "src/config/mod.rs"), 1.0);
        assert_eq!(by_words(&terms, "src/config/__init__.py"), 1.0);
        // Words meet on a common prefix of four letters or more.
        let parsing = stemmed_terms("main parsing loop");
        assert_eq!(by_words(&parsing, "src/parser/parser.rs"), 1.0);
        assert!(crate::search::is_named_after(
            "gson/TypeAdapter.java",
            "TypeAdapter"
        ));
        assert!(crate::search::is_named_after(
            "pydantic/type_adapter.py",
            "TypeAdapter"
        ));
        assert!(!crate::search::is_named_after(
            "gson/TypeAdapters.java",
            "TypeAdapter"
        ));
    }

    #[test]
    fn questions_reorder_files_by_evidence_and_keep_the_score_shape() {
        let terms = stemmed_terms("how are generators discovered");
        // Fusion put the helper first; the discovery module names both
        // query words and has by far the best BM25 score; the test file
        // names them too but is a test with a weak BM25 score.
        let mut disc = scored(Arm::Bm25, 1, "src/generators/discovery.rs", 12.0);
        disc.symbol = Some("discover_generators".into());
        let cands = vec![
            scored(Arm::Bm25, 2, "src/util/helpers.rs", 4.0),
            disc,
            scored(Arm::Bm25, 3, "tests/generators_discovery.rs", 2.0),
        ];
        let mut scores: HashMap<String, f64> = HashMap::from([
            ("src/util/helpers.rs".to_string(), 1.0),
            ("src/generators/discovery.rs".to_string(), 0.6),
            ("tests/generators_discovery.rs".to_string(), 0.3),
        ]);
        reorder(&mut scores, &cands, &terms, None);
        assert_eq!(scores["src/generators/discovery.rs"], 1.0);
        assert_eq!(scores["src/util/helpers.rs"], 0.6);
        assert_eq!(scores["tests/generators_discovery.rs"], 0.3);
        assert_eq!(
            term_coverage(&terms, "src/generators/discovery.rs", &HashSet::new()),
            1.0
        );
    }

    #[test]
    fn a_clear_semantic_lead_counts_as_evidence_beside_the_words() {
        let terms = stemmed_terms("where are settings loaded");
        // Both files hold the words alike (the same BM25 score, neither
        // path nor name covers them); fusion put the first one ahead, the
        // semantic arm ranks the second far above the rest.
        let cands = vec![
            scored(Arm::Bm25, 1, "src/a.rs", 6.0),
            scored(Arm::Bm25, 2, "src/b.rs", 6.0),
            scored(Arm::Semantic, 1, "src/b.rs", 0.62),
            scored(Arm::Semantic, 2, "src/c.rs", 0.30),
        ];
        let mut scores: HashMap<String, f64> = HashMap::from([
            ("src/a.rs".to_string(), 1.0),
            ("src/b.rs".to_string(), 0.8),
            ("src/c.rs".to_string(), 0.2),
        ]);
        reorder(&mut scores, &cands, &terms, None);
        assert_eq!(scores["src/b.rs"], 1.0);
        assert_eq!(scores["src/a.rs"], 0.8);
        assert_eq!(scores["src/c.rs"], 0.2);
    }

    #[test]
    fn a_file_close_to_the_question_throughout_passes_a_hub_with_one_close_chunk() {
        let terms = stemmed_terms("how is the dfa start state picked");
        // The hub's best chunk leads both arms, the dedicated file's is
        // close behind in each; its chunks are, on average, far closer.
        let cands = vec![
            scored(Arm::Bm25, 1, "src/dfa/dense.rs", 9.0),
            scored(Arm::Bm25, 2, "src/util/start.rs", 8.0),
            scored(Arm::Semantic, 1, "src/dfa/dense.rs", 0.60),
            scored(Arm::Semantic, 2, "src/util/start.rs", 0.58),
            scored(Arm::Semantic, 3, "src/util/look.rs", 0.20),
        ];
        let base: HashMap<String, f64> = HashMap::from([
            ("src/dfa/dense.rs".to_string(), 1.0),
            ("src/util/start.rs".to_string(), 0.7),
            ("src/util/look.rs".to_string(), 0.2),
        ]);
        let mut without = base.clone();
        reorder(&mut without, &cands, &terms, None);
        assert_eq!(without["src/dfa/dense.rs"], 1.0);
        let means = HashMap::from([
            ("src/dfa/dense.rs".to_string(), 0.10),
            ("src/util/start.rs".to_string(), 0.45),
            ("src/util/look.rs".to_string(), 0.05),
        ]);
        let mut with = base;
        reorder_by_evidence(&mut with, &cands, &terms, None, &means, &mut no_text);
        assert_eq!(with["src/util/start.rs"], 1.0);
        assert_eq!(with["src/dfa/dense.rs"], 0.7);
    }

    /// `term_counts` as first written: every word lowercased and stemmed.
    fn term_counts_reference(text: &str, terms: &[&str]) -> (Vec<u32>, u32) {
        let mut counts = vec![0u32; terms.len()];
        let mut words = 0u32;
        for run in text.split(|c: char| !c.is_ascii_alphanumeric()) {
            if !run.starts_with(|c: char| c.is_ascii_alphabetic()) {
                continue;
            }
            let chars: Vec<char> = run.chars().collect();
            let mut start = 0;
            for end in 1..=chars.len() {
                if end < chars.len()
                    && !crate::text::starts_word(
                        chars[end - 1],
                        chars[end],
                        chars.get(end + 1).copied(),
                    )
                {
                    continue;
                }
                let part: String = chars[start..end].iter().collect::<String>().to_lowercase();
                start = end;
                words += 1;
                let stem = crate::text::crude_stem(&part);
                if let Some(j) = terms.iter().position(|t| *t == stem) {
                    counts[j] += 1;
                }
            }
        }
        (counts, words)
    }

    #[test]
    fn term_counts_agree_with_counting_every_word() {
        let text = "fn parseConfig(HTTPServer) -> Configs { let parsing = uses_x; \
                    USES PARSES Parsed parse_ing ingest edges es s ss sss HTTPSConfigured \
                    XMLHttpRequest v2Beta ABCdef a1b2c3 __init__ Ünïcode configurations }";
        let terms = [
            "pars", "config", "http", "server", "use", "edg", "ingest", "s", "ss", "a", "configur",
        ];
        assert_eq!(
            term_counts(text, &terms),
            term_counts_reference(text, &terms)
        );
        let none: [&str; 0] = [];
        assert_eq!(term_counts(text, &none), term_counts_reference(text, &none));
    }

    #[test]
    fn term_counts_agree_with_counting_every_word_on_random_texts() {
        // Texts of the letters, digits and separators whose runs the
        // 64-byte blocks cut anywhere (a run across two blocks, a digit
        // run carried over, `HTTPServer`'s boundary at a block's end).
        let alphabet = b"aAbBsSeE09_ -gGiInN";
        let terms = ["ab", "a", "bes", "sing", "ngs", "e0", "b", "gin", "aba"];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for len in [0, 1, 63, 64, 65, 127, 128, 129, 200, 1000] {
            for _ in 0..200 {
                let text: String = (0..len)
                    .map(|_| {
                        seed ^= seed << 13;
                        seed ^= seed >> 7;
                        seed ^= seed << 17;
                        char::from(alphabet[(seed % alphabet.len() as u64) as usize])
                    })
                    .collect();
                assert_eq!(
                    term_counts(&text, &terms),
                    term_counts_reference(&text, &terms),
                    "{text:?}"
                );
            }
        }
    }

    #[test]
    fn a_name_part_meets_the_question_word_it_stems_from() {
        let terms = stemmed_terms("how are shorthand flags parsed");
        // `parse` is its own stem, `parsed`'s is `pars`: one word.
        assert!((name_overlap(&terms, "FlagSet.parseShortArg") - 1.0 / 3.0).abs() < 1e-9);
        assert!((name_overlap(&terms, "FlagSet.ShorthandLookup") - 0.5).abs() < 1e-9);
        assert!(!same_word_stem("pars", "part"));
        assert!(!same_word_stem("us", "use"));
    }

    #[test]
    fn term_counts_split_words_as_identifiers_and_stem_them() {
        let text = "fn parseConfig(HTTPServer) { parsed_config; 2configs Ünïcode config }";
        let (counts, words) = term_counts(text, &["pars", "config", "http", "server"]);
        // `parsed` stems to `pars`, `parse` stays itself (as query terms do).
        assert_eq!(counts, [1, 3, 1, 1]);
        // fn parse config http server parsed config n code config: a run
        // starting with a digit is no word, non-ASCII letters split.
        assert_eq!(words, 10);
        assert_eq!(term_counts("", &["x"]), (vec![0], 0));
    }

    #[test]
    fn a_file_using_the_questions_words_throughout_passes_one_that_names_them_once() {
        let terms = stemmed_terms("how is the dfa start state picked");
        let cands = vec![
            scored(Arm::Bm25, 1, "src/dfa/dense.rs", 9.0),
            scored(Arm::Bm25, 2, "src/util/start.rs", 8.5),
        ];
        let base: HashMap<String, f64> = HashMap::from([
            ("src/dfa/dense.rs".to_string(), 1.0),
            ("src/util/start.rs".to_string(), 0.9),
        ]);
        let texts = HashMap::from([
            ("src/dfa/dense.rs", "dfa state table ".repeat(200) + "start"),
            ("src/util/start.rs", "start state dfa pick ".repeat(50)),
        ]);
        let mut read =
            |path: &str, _: u64, terms: &[&str]| texts.get(path).map(|t| term_counts(t, terms));
        let mut with = base.clone();
        reorder_by_evidence(&mut with, &cands, &terms, None, &HashMap::new(), &mut read);
        assert_eq!(with["src/util/start.rs"], 1.0, "{with:?}");
        let mut without = base;
        reorder(&mut without, &cands, &terms, None);
        assert_eq!(without["src/dfa/dense.rs"], 1.0);
    }

    #[test]
    fn a_hub_file_far_larger_than_the_knee_yields_to_a_close_second() {
        let terms = stemmed_terms("split the work into halves");
        // The same words, the same BM25 score; fusion put the 400 KB hub
        // a little ahead of the 12 KB module.
        let mut hub = scored(Arm::Bm25, 1, "src/iter/mod.rs", 6.0);
        hub.file_size = 400_000;
        let mut module = scored(Arm::Bm25, 2, "src/iter/plumbing.rs", 6.0);
        module.file_size = 12_000;
        let mut scores: HashMap<String, f64> = HashMap::from([
            ("src/iter/mod.rs".to_string(), 1.0),
            ("src/iter/plumbing.rs".to_string(), 0.95),
        ]);
        let mut same = scores.clone();
        reorder_by_evidence(
            &mut scores,
            &[hub.clone(), module.clone()],
            &terms,
            None,
            &HashMap::new(),
            &mut no_text,
        );
        assert_eq!(scores["src/iter/plumbing.rs"], 1.0);
        assert_eq!(scores["src/iter/mod.rs"], 0.95);
        // At or below the knee, size says nothing.
        hub.file_size = 40_000;
        reorder_by_evidence(
            &mut same,
            &[hub, module],
            &terms,
            None,
            &HashMap::new(),
            &mut no_text,
        );
        assert_eq!(same["src/iter/mod.rs"], 1.0);
        assert_eq!(size_excess(40_000), 0.0);
        assert!(size_excess(400_000) > 2.0);
    }

    #[test]
    fn a_typescript_module_of_types_only_ranks_as_a_declaration_file() {
        let terms = stemmed_terms("where are default options applied");
        let ts = |rank, path: &str, kind: &str| of_kind("typescript", rank, path, kind);
        let cands = vec![
            ts(1, "src/types.ts", "interface"),
            ts(2, "src/queryClient.ts", "method"),
            ts(3, "src/queryClient.ts", "interface"),
        ];
        let mut scores: HashMap<String, f64> = HashMap::from([
            ("src/types.ts".to_string(), 1.0),
            ("src/queryClient.ts".to_string(), 0.9),
        ]);
        reorder(&mut scores, &cands, &terms, None);
        assert_eq!(scores["src/queryClient.ts"], 1.0);
        assert_eq!(scores["src/types.ts"], 0.9);
    }

    #[test]
    fn a_script_outside_src_with_a_source_under_it_is_a_copy() {
        let of = crate::search::sources_of_copy("moment.js", true);
        assert!(of.contains(&"src/moment.js".to_string()), "{of:?}");
        let of = crate::search::sources_of_copy("locale/af.js", true);
        assert!(of.contains(&"src/locale/af.js".to_string()), "{of:?}");
        assert!(of.contains(&"src/af.ts".to_string()), "{of:?}");
        let of = crate::search::sources_of_copy("lib/index.js", true);
        assert!(of.contains(&"src/index.ts".to_string()), "{of:?}");
        // Sources, tests and other languages are nobody's copy.
        assert!(crate::search::sources_of_copy("src/lib/create/local.js", true).is_empty());
        assert!(crate::search::sources_of_copy("packages/core/src/index.ts", true).is_empty());
        assert!(crate::search::sources_of_copy("test/moment.js", true).is_empty());
        assert!(crate::search::sources_of_copy("lib/faraday.rb", false).is_empty());
    }

    #[test]
    fn a_definition_is_named_under_its_container_as_its_language_writes_it() {
        assert_eq!(
            crate::search::member_path("php", "method", "Model", "save"),
            "Model::save"
        );
        assert_eq!(
            crate::search::member_path(
                "php",
                "class",
                r"Illuminate\Database\Eloquent\Relations",
                "HasMany"
            ),
            r"Illuminate\Database\Eloquent\Relations\HasMany"
        );
        assert_eq!(
            crate::search::member_path("rust", "method", "Config", "parse"),
            "Config::parse"
        );
        assert_eq!(
            crate::search::member_path("python", "method", "LoginView", "post"),
            "LoginView.post"
        );
    }

    #[test]
    fn an_arm_snippet_shows_only_the_lines_of_the_hit_span() {
        // go-git's `PlainClone` (387-389): its chunk ran on into the doc
        // comment of `PlainCloneContext` below.
        let text = "func PlainClone() {\n\treturn x\n}\n\n// PlainCloneContext clones";
        assert_eq!(
            clip_to_span(387, text, 387, 389),
            Some((387, "func PlainClone() {\n\treturn x\n}".to_string()))
        );
        assert_eq!(
            clip_to_span(380, "// doc\nfn f() {}\n", 381, 381),
            Some((381, "fn f() {}".to_string()))
        );
        assert_eq!(clip_to_span(168, "ctx = copy()\n", 159, 167), None);
    }

    #[test]
    fn compiled_copies_go_after_the_source_they_were_built_from() {
        let ts = |arm, rank, path: &str| Cand {
            lang: if path.ends_with(".ts") {
                "typescript"
            } else {
                "javascript"
            }
            .into(),
            ..cand(arm, rank, path, 1, 9)
        };
        // `lib.esm/` ends with a source map's address (the store says so).
        let mut copy = ts(Arm::Bm25, 2, "lib.esm/providers/provider-fallback.js");
        copy.mark_compiled();
        let cands = vec![
            ts(Arm::Bm25, 1, "src.ts/providers/provider-fallback.ts"),
            copy,
            ts(Arm::Bm25, 3, "dist/ethers.js"),
            ts(Arm::Bm25, 4, "src.ts/providers/default-provider.ts"),
        ];
        let copies = compiled_copies(&cands, QueryKind::NaturalLanguage);
        let expected: HashSet<String> =
            ["lib.esm/providers/provider-fallback.js", "dist/ethers.js"]
                .map(String::from)
                .into();
        assert_eq!(copies, expected);
        let mut files: HashMap<String, f64> = HashMap::from([
            ("src.ts/providers/provider-fallback.ts".to_string(), 1.0),
            ("lib.esm/providers/provider-fallback.js".to_string(), 0.9),
            ("dist/ethers.js".to_string(), 0.8),
            ("src.ts/providers/default-provider.ts".to_string(), 0.5),
        ]);
        after_sources(&mut files, &copies);
        let order: Vec<&str> = best_first(&files).iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(
            order,
            [
                "src.ts/providers/provider-fallback.ts",
                "src.ts/providers/default-provider.ts",
                "lib.esm/providers/provider-fallback.js",
                "dist/ethers.js",
            ]
        );
        // A package that ships only its build keeps its order, and a name
        // query moves copies only when a source defines the name.
        assert!(compiled_copies(&cands[1..3], QueryKind::NaturalLanguage).is_empty());
        assert!(compiled_copies(&cands, QueryKind::Identifier).is_empty());
        // sequelize ships only its build: `lib/model.js` (compiled), its
        // source map and `types/model.d.ts`. The declaration is no source,
        // so nothing moves; beside a real source under `src/` the map goes
        // with the copies, and so does the declaration outside `src/`
        // (TanStack Query's `build/modern/*.d.ts` bundles).
        let mut lib = ts(Arm::Bm25, 2, "lib/model.js");
        lib.mark_compiled();
        let map = cand(Arm::Keyword, 3, "lib/model.js.map", 1, 1);
        assert!(map.compiled, "a source map is build output by its path");
        let built = vec![ts(Arm::Bm25, 1, "types/model.d.ts"), lib, map];
        assert!(compiled_copies(&built, QueryKind::NaturalLanguage).is_empty());
        let mut with_source = built.clone();
        with_source.push(ts(Arm::Bm25, 4, "src/model.ts"));
        let expected: HashSet<String> = ["lib/model.js", "lib/model.js.map", "types/model.d.ts"]
            .map(String::from)
            .into();
        assert_eq!(
            compiled_copies(&with_source, QueryKind::NaturalLanguage),
            expected
        );
    }

    #[test]
    fn a_declaration_yields_its_place_to_the_source_beside_it() {
        // libzmq: the header second, its source fifteenth.
        let mut files: HashMap<String, f64> = (0..20)
            .map(|i| (format!("src/f{i:02}.cpp"), 0.9 - i as f64 * 0.04))
            .collect();
        files.insert("src/i_poll_events.hpp".into(), 1.0);
        files.insert("src/io_thread.hpp".into(), 0.95);
        files.insert("src/io_thread.cpp".into(), 0.35);
        implementation_before_declaration(&mut files);
        let first: Vec<&str> = best_first(&files)
            .iter()
            .take(3)
            .map(|(p, _)| p.as_str())
            .collect();
        assert_eq!(
            first,
            [
                "src/i_poll_events.hpp",
                "src/io_thread.cpp",
                "src/io_thread.hpp"
            ]
        );
        // A declaration below the first ten is left where it is.
        let mut low: HashMap<String, f64> = (0..12)
            .map(|i| (format!("src/f{i:02}.cpp"), 1.0 - i as f64 * 0.05))
            .collect();
        low.insert("src/late.h".into(), 0.3);
        low.insert("src/late.c".into(), 0.2);
        implementation_before_declaration(&mut low);
        assert_eq!(low["src/late.c"], 0.2);
    }

    #[test]
    fn a_file_of_enums_ranks_as_a_declaration_file() {
        let terms = stemmed_terms("recognise dates in ISO format while reading");
        let cs = |rank, path: &str, kind: &str| of_kind("csharp", rank, path, kind);
        let cands = vec![
            cs(1, "Src/DateFormatHandling.cs", "enum"),
            cs(2, "Src/JsonTextReader.cs", "method"),
            cs(3, "Src/DateFormatHandling.cs", "field"),
        ];
        let scores: HashMap<String, f64> = HashMap::from([
            ("Src/DateFormatHandling.cs".to_string(), 1.0),
            ("Src/JsonTextReader.cs".to_string(), 0.9),
        ]);
        let mut enums = scores.clone();
        reorder(&mut enums, &cands, &terms, None);
        assert_eq!(enums["Src/JsonTextReader.cs"], 1.0);
        assert_eq!(enums["Src/DateFormatHandling.cs"], 0.9);
        // A file with code beside its enum is code.
        let mut cands = cands;
        cands.push(cs(4, "Src/DateFormatHandling.cs", "method"));
        let mut mixed = scores;
        reorder(&mut mixed, &cands, &terms, None);
        assert_eq!(mixed["Src/DateFormatHandling.cs"], 1.0);
    }

    #[test]
    fn another_platforms_copy_and_an_ocaml_interface_yield_in_the_evidence() {
        let query = "iOS: check that a discovered host is a running packager";
        let terms = stemmed_terms(query);
        let ios = asked_platform(query);
        assert!(ios.is_some());
        // The Android copy leads both arms by a little.
        let cands = vec![
            scored(Arm::Bm25, 1, "android/nsd/NsdDiscovery.kt", 9.0),
            scored(Arm::Bm25, 2, "ios/NetworkUtilities.swift", 8.0),
        ];
        let scores = HashMap::from([
            ("android/nsd/NsdDiscovery.kt".to_string(), 1.0),
            ("ios/NetworkUtilities.swift".to_string(), 0.9),
        ]);
        let mut asked = scores.clone();
        reorder(&mut asked, &cands, &terms, ios);
        assert_eq!(asked["ios/NetworkUtilities.swift"], 1.0);
        let mut unasked = scores;
        reorder(&mut unasked, &cands, &terms, None);
        assert_eq!(unasked["android/nsd/NsdDiscovery.kt"], 1.0);

        let terms = stemmed_terms("how does the main loop run until a promise resolves");
        let cands = vec![
            scored(Arm::Bm25, 1, "src/unix/lwt_main.mli", 9.0),
            scored(Arm::Bm25, 2, "src/unix/lwt_main.ml", 8.0),
        ];
        let mut scores = HashMap::from([
            ("src/unix/lwt_main.mli".to_string(), 1.0),
            ("src/unix/lwt_main.ml".to_string(), 0.9),
        ]);
        reorder(&mut scores, &cands, &terms, None);
        assert_eq!(scores["src/unix/lwt_main.ml"], 1.0);
    }

    #[test]
    fn the_one_file_defining_a_name_leads() {
        let files = || {
            HashMap::from([
                ("src/configfile.c".to_string(), 1.0),
                ("src/buffer.h".to_string(), 0.8),
                ("src/request.c".to_string(), 0.5),
            ])
        };
        let mut one = files();
        lead_sole_definer(&mut one, &["src/buffer.h".to_string()]);
        assert!(one["src/buffer.h"] == 1.0, "{one:?}");
        assert!(one["src/configfile.c"] < 1.0, "{one:?}");
        assert!(one["src/request.c"] < one["src/configfile.c"], "{one:?}");
        // Two defining files, or a definition only in a test, decide nothing.
        for exact in [
            vec!["src/buffer.h".to_string(), "src/request.c".to_string()],
            vec!["tests/test_buffer.c".to_string()],
        ] {
            let mut same = files();
            lead_sole_definer(&mut same, &exact);
            assert_eq!(same, files(), "{exact:?}");
        }
    }

    #[test]
    fn files_led_by_a_name_a_better_file_leads_with_are_damped() {
        let named = |arm, rank, path: &str, sym: &str| Cand {
            symbol: Some(sym.into()),
            ..cand(arm, rank, path, 1, 9)
        };
        let cands = vec![
            named(Arm::Bm25, 1, "ext/a.php", "AExtension::register"),
            named(Arm::Bm25, 2, "ext/b.php", "BExtension::register"),
            named(Arm::Bm25, 3, "Environment.php", "Environment::addExtension"),
            named(Arm::Bm25, 4, "ext/c.php", "CExtension::register"),
        ];
        let hits = fuse(cands, &|_: Arm| 1.0, RRF_K);
        let mut files: HashMap<String, f64> = HashMap::from([
            ("ext/a.php".to_string(), 1.0),
            ("ext/b.php".to_string(), 0.9),
            ("Environment.php".to_string(), 0.8),
            ("ext/c.php".to_string(), 0.7),
        ]);
        damp_siblings(&mut files, &hits);
        assert_eq!(files["ext/a.php"], 1.0);
        assert_eq!(files["Environment.php"], 0.8);
        assert!((files["ext/b.php"] - 0.9 * SIBLING_DAMP).abs() < 1e-12);
        assert!((files["ext/c.php"] - 0.7 * SIBLING_DAMP).abs() < 1e-12);
        assert!(files["Environment.php"] > files["ext/b.php"]);
    }

    #[test]
    fn fused_answers_rank_files_each_led_by_its_best_chunk() {
        // a.py's three chunks lead BM25, b.py leads the semantic arm and is
        // second in BM25.
        let mut cands = vec![
            cand(Arm::Bm25, 1, "a.py", 1, 9),
            cand(Arm::Bm25, 2, "a.py", 20, 29),
            cand(Arm::Bm25, 3, "a.py", 40, 49),
            cand(Arm::Bm25, 4, "b.py", 1, 9),
            cand(Arm::Semantic, 1, "b.py", 1, 9),
            cand(Arm::Semantic, 2, "c.py", 1, 9),
        ];
        for c in &mut cands {
            c.lang = "python".into();
        }
        let a = analyze("how are the things wired together");
        let w = |_: Arm| 1.0;
        let files = file_scores(
            &cands,
            &w,
            RRF_K,
            &a,
            "how are the things wired together",
            &[],
            FileEvidence {
                means: &HashMap::new(),
                text: &mut no_text,
            },
        );
        // b.py: BM25 file rank 2 and semantic rank 1 beats a.py's BM25 rank 1
        // with its multi-chunk bonus.
        assert!(files["b.py"] > files["a.py"]);
        assert!(files["a.py"] > files["c.py"]);
        let hits = order_by_file(fuse(cands, &w, RRF_K), &files);
        let order: Vec<(&str, u32)> = hits
            .iter()
            .map(|h| (h.path.as_str(), h.start_line))
            .collect();
        assert_eq!(order[0], ("b.py", 1));
        assert_eq!(order[1], ("a.py", 1));
        // A file's weaker chunks follow its best one, ahead of a weaker
        // file only while they score near their file's best.
        let pos = |p: (&str, u32)| order.iter().position(|o| *o == p);
        assert!(pos(("a.py", 20)) < pos(("a.py", 40)));
        assert_eq!(order.len(), 5);
        assert!((hits[0].score - 1.0).abs() < 1e-9, "the best hit scores 1");
    }

    #[test]
    fn an_exact_definition_outranks_inexact_ones_and_a_file_named_after_them() {
        // `readline`: the method in line_editor.rb matches exactly; the
        // class `Readline` in readline.rb (a file named after the query)
        // only case-insensitively, and BM25 likes readline.rb more.
        let mut exact = cand(Arm::Symbol, 2, "lib/line_editor.rb", 6, 8);
        exact.raw = match_weight(MatchKind::Exact);
        let mut inexact = cand(Arm::Symbol, 1, "lib/line_editor/readline.rb", 3, 40);
        inexact.raw = match_weight(MatchKind::CaseInsensitive);
        let cands = vec![
            exact,
            inexact,
            cand(Arm::Bm25, 1, "lib/line_editor/readline.rb", 3, 40),
            cand(Arm::Bm25, 2, "lib/line_editor.rb", 6, 8),
        ];
        let a = analyze("readline");
        let w = |arm: Arm| if arm == Arm::Symbol { 2.0 } else { 0.7 };
        let files = file_scores(
            &cands,
            &w,
            RRF_K,
            &a,
            "readline",
            &[],
            FileEvidence {
                means: &HashMap::new(),
                text: &mut no_text,
            },
        );
        assert!(
            files["lib/line_editor.rb"] > files["lib/line_editor/readline.rb"],
            "{files:?}"
        );
        let hits = order_by_file(fuse(cands.clone(), &w, RRF_K), &files);
        assert_eq!(hits[0].path, "lib/line_editor.rb");
        // With no exact definition anywhere, the file named after the query
        // keeps its boost.
        let only_inexact: Vec<Cand> = cands
            .iter()
            .filter(|c| c.path.ends_with("readline.rb") || c.arm != Arm::Symbol)
            .cloned()
            .collect();
        let files = file_scores(
            &only_inexact,
            &w,
            RRF_K,
            &a,
            "readline",
            &[],
            FileEvidence {
                means: &HashMap::new(),
                text: &mut no_text,
            },
        );
        assert!(files["lib/line_editor/readline.rb"] > files["lib/line_editor.rb"]);
    }

    #[test]
    fn a_test_named_after_the_name_does_not_pass_its_definition() {
        // Moose's `BUILDARGS`: defined in lib/Moose/Object.pm, tested in
        // t/basics/buildargs.t, whose BM25 hit comes first.
        let mut def = cand(Arm::Symbol, 1, "lib/Moose/Object.pm", 30, 60);
        def.raw = match_weight(MatchKind::Exact);
        let mut cands = vec![
            def,
            cand(Arm::Bm25, 1, "t/basics/buildargs.t", 1, 40),
            cand(Arm::Bm25, 2, "lib/Moose/Object.pm", 30, 60),
        ];
        for c in &mut cands {
            c.lang = "other".into();
            *c = c.clone().with_prior();
        }
        let a = analyze("BUILDARGS");
        let w = |arm: Arm| if arm == Arm::Symbol { 2.0 } else { 0.7 };
        let files = file_scores(
            &cands,
            &w,
            RRF_K,
            &a,
            "BUILDARGS",
            &[],
            FileEvidence {
                means: &HashMap::new(),
                text: &mut no_text,
            },
        );
        // The test gains as a file whose name holds the query's word
        // (×1.3), not as the file named after the name (×2 more).
        let renamed: Vec<Cand> = cands
            .iter()
            .cloned()
            .map(|mut c| {
                if c.path.ends_with("buildargs.t") {
                    c.path = "t/basics/construct.t".into();
                }
                c
            })
            .collect();
        let other = file_scores(
            &renamed,
            &w,
            RRF_K,
            &a,
            "BUILDARGS",
            &[],
            FileEvidence {
                means: &HashMap::new(),
                text: &mut no_text,
            },
        );
        let gain = files["t/basics/buildargs.t"] / other["t/basics/construct.t"];
        assert!(gain < FILE_NAMED_AS_QUERY, "{gain}");
        assert!(files["lib/Moose/Object.pm"] > files["t/basics/buildargs.t"]);
    }

    #[test]
    fn queries_about_recent_work_are_recognised() {
        for q in [
            "what changed recently in the MCP server",
            "latest work on redaction",
            "Recently added history tool",
            "recent changes to the daemon",
            "what changed in the index format",
            "which files did the last commit touch",
            "code that was just added for blame",
            "what's new in search",
            "what\u{2019}s new in search",
            "newly introduced error codes",
        ] {
            assert!(asks_about_recent(q), "{q}");
        }
        for q in [
            "parse the config file",
            "where is the recency computed",
            "last_changed",
            "the last element of a list",
            "create a new session",
            "RecentFiles",
            "just in time compilation",
            "changed",
        ] {
            assert!(!asks_about_recent(q), "{q}");
        }
    }

    #[test]
    fn no_history_no_boost() {
        assert_eq!(recency_boost(&Recency::default(), "src/a.rs"), 0.0);
        assert_eq!(shown_boost(&Recency::default(), "src/a.rs"), None);
    }

    #[test]
    fn keyword_hits_in_extensionless_scripts_get_their_language() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::create_dir_all(dir.path().join("completions")).expect("mkdir");
        std::fs::write(
            dir.path().join("completions/git"),
            "# git completion   -*- shell-script -*-\n_git() { :; }\n",
        )
        .expect("write");
        std::fs::write(dir.path().join("NOTES"), "plain text\n").expect("write");
        assert_eq!(lang_of(dir.path(), "completions/git"), "bash");
        assert_eq!(lang_of(dir.path(), "NOTES"), "other");
        assert_eq!(lang_of(dir.path(), "src/a.rs"), "rust");
    }
}
