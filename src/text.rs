//! Owns text normalisation for full-text search: splitting identifiers into
//! their camelCase / snake_case parts, turning paths into terms, and turning
//! a user's query into an FTS5 expression. Does not touch SQL or files.
//!
//! The FTS5 tokenizer (`unicode61`) already splits `parse_config` at the
//! underscore, but keeps `HttpClient` as one token `httpclient`. So the
//! indexed body is the chunk text followed by the extra parts of every
//! mixed-case identifier (`http client`), and a query for either form
//! matches.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

/// Splits an identifier into lowercase parts: `HTTPServerError2` →
/// `["http", "server", "error2"]`, `parse_config` → `["parse", "config"]`.
pub fn split_identifier(ident: &str) -> Vec<String> {
    let mut parts = Vec::new();
    for piece in ident.split(['_', '-', '$']) {
        let chars: Vec<char> = piece.chars().collect();
        let mut start = 0;
        for i in 1..chars.len() {
            if starts_word(chars[i - 1], chars[i], chars.get(i + 1).copied()) {
                parts.push(chars[start..i].iter().collect::<String>().to_lowercase());
                start = i;
            }
        }
        if start < chars.len() {
            parts.push(chars[start..].iter().collect::<String>().to_lowercase());
        }
    }
    parts.retain(|p| !p.is_empty());
    parts
}

/// Whether `cur` starts a new word of an identifier after `prev` (and
/// before `next`): an uppercase letter that follows a lowercase letter or
/// digit (`parseConfig`), or that starts a new word after an acronym
/// (`HTTPServer` → `HTTP` + `Server`).
pub fn starts_word(prev: char, cur: char, next: Option<char>) -> bool {
    cur.is_uppercase()
        && (prev.is_lowercase()
            || prev.is_ascii_digit()
            || (prev.is_uppercase() && next.is_some_and(char::is_lowercase)))
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// One name as code writes it: letters, digits, `_` and `$` (a JavaScript
/// or PHP sigil), not starting with a digit (`addRecord`, `$logger`,
/// `_zod`); not empty.
pub fn is_plain_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$')
        && s.chars().all(|c| is_ident_char(c) || c == '$')
}

/// A name with one or more qualifiers: `Dispatchers.IO`, `DBImpl::Write`,
/// `Dataset#where`, each part a plain name ([`is_plain_name`]).
pub fn is_qualified_name(s: &str) -> bool {
    let parts: Vec<&str> = s.split("::").flat_map(|p| p.split(['.', '#'])).collect();
    parts.len() >= 2 && parts.iter().all(|p| is_plain_name(p))
}

/// Iterates over identifier-like words of a text.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !is_ident_char(c))
        .filter(|w| !w.is_empty())
}

/// Words that start a licence or copyright notice in a comment (lowercase).
const LICENSE_MARKERS: [&str; 10] = [
    "copyright",
    "spdx-license-identifier",
    "licensed under",
    "under the terms of",
    "redistribution and use",
    "permission is hereby granted",
    "all rights reserved",
    "this program is free software",
    "this file is part of",
    "gnu general public license",
];

/// Words of a notice's later paragraphs ("Neither the name …" aside),
/// once [`LICENSE_MARKERS`] started it (lowercase).
const LICENSE_WORDS: [&str; 5] = [
    "licen",
    "warrant",
    "copyright",
    "free software",
    "redistribut",
];

/// How a comment starts a line: its opener, and a delimited comment's
/// closer (`None` for a line comment).
fn comment_opener(t: &str) -> Option<(&'static str, Option<&'static str>)> {
    for (open, close) in [("/*", "*/"), ("(*", "*)"), ("{-", "-}"), ("<!--", "-->")] {
        if t.starts_with(open) {
            return Some((open, Some(close)));
        }
    }
    ["//", "#", "--", ";", "%"]
        .into_iter()
        .find(|p| t.starts_with(p))
        .map(|p| (p, None))
}

/// A chunk's text without the licence notice its leading comment holds
/// (the BSD, MIT, Apache or GPL text atop a file, `// Copyright 2011 The Go
/// Authors.`, Symfony's "This file is part of …"): from the comment's first
/// line naming a copyright or licence to the end of the comment's last
/// paragraph that reads like a notice. Lines above it (`intset.c - compact
/// integer set`) and a description below it stay. The notice is the same
/// on every file of a project and says nothing of the code, yet it made the
/// first chunk of each file long for BM25 and, for the vectors, mostly
/// licence. Text that does not start with such a comment is returned whole.
pub fn without_license(text: &str) -> std::borrow::Cow<'_, str> {
    match license_span(text) {
        Some(r) => std::borrow::Cow::Owned(format!("{}{}", &text[..r.start], &text[r.end..])),
        None => std::borrow::Cow::Borrowed(text),
    }
}

/// What the index reads of a chunk's text (its full-text body, its
/// embedding input and key): at the top of its file (`start_byte` 0),
/// without a licence notice ([`without_license`]); further down, a comment
/// naming a copyright is a function's doc ("often used for header,
/// copyright, or license information") and stays.
pub fn indexed_text(text: &str, start_byte: u64) -> std::borrow::Cow<'_, str> {
    if start_byte == 0 {
        without_license(text)
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// The bytes of `text` that [`without_license`] leaves out: whole lines,
/// from the notice's first line to the end of its last.
pub fn license_span(text: &str) -> Option<std::ops::Range<usize>> {
    let mut offset = 0;
    let mut lines = text.split_inclusive('\n').map(|l| {
        let at = offset;
        offset += l.len();
        (at, l)
    });
    // The comment starts at the first non-blank line (after a `#!` line).
    let mut first = None;
    for (at, l) in lines.by_ref() {
        let t = l.trim().trim_start_matches('\u{feff}');
        if t.is_empty() || (at == 0 && t.starts_with("#!")) {
            continue;
        }
        first = Some((at, l));
        break;
    }
    let (start, line) = first?;
    let (open, close) = comment_opener(line.trim_start().trim_start_matches('\u{feff}'))?;
    let has = |l: &str, words: &[&str]| {
        let lower = l.to_ascii_lowercase();
        words.iter().any(|m| lower.contains(m))
    };
    // Paragraphs of the comment, split by lines with no words (`//`, ` *`,
    // blank): the notice runs from the first line naming a copyright or
    // licence to the end of the last paragraph that reads like one (the
    // BSD's "Neither the name …" between two such paragraphs goes too; a
    // description after the notice, leveldb's "Endian-neutral encoding:",
    // stays).
    let mut marked: Option<usize> = None;
    let mut end = 0;
    let mut paragraph_licensed = false;
    let mut closed = false;
    for (at, l) in std::iter::once((start, line)).chain(lines) {
        let t = l.trim().trim_start_matches('\u{feff}');
        let words_in = match close {
            Some(close) => {
                if at == start {
                    closed = t[open.len()..].contains(close);
                } else {
                    closed = t.contains(close);
                }
                t.trim_start_matches(open).trim_end_matches(close)
            }
            // Line comments: the run of the same kind (`#include` after
            // `//` lines is code), blank lines included.
            None if t.is_empty() => "",
            None if comment_opener(t) != Some((open, None)) => break,
            None => t.trim_start_matches(open),
        };
        if words_in
            .trim_matches(|c: char| c == '*' || c.is_whitespace())
            .is_empty()
        {
            paragraph_licensed = false;
        } else if marked.is_none() {
            if has(l, &LICENSE_MARKERS) {
                marked = Some(at);
                paragraph_licensed = true;
            }
        } else if has(l, &LICENSE_WORDS) {
            paragraph_licensed = true;
        }
        if paragraph_licensed {
            end = at + l.len();
        }
        if closed {
            break;
        }
    }
    marked.map(|cut| cut..end)
}

/// A definition's name to index: [`expand_identifiers`], then the words of
/// its lowercase compound parts (`ziplistNew` → `… ziplist new zip list`,
/// `accesslog_module` → `… access log`; [`compound_parts`]). Only names and
/// paths: splitting every compound of a chunk's body ranked worse.
pub fn symbol_terms(name: &str) -> String {
    let mut out = expand_identifiers(name);
    let mut seen: HashSet<&str> = HashSet::new();
    for w in words(name) {
        if !seen.insert(w) {
            continue;
        }
        for part in split_identifier(w) {
            for word in compound_parts(&part).unwrap_or_default() {
                out.push(' ');
                out.push_str(word);
            }
        }
    }
    out
}

/// The text to index for a chunk: the text itself, then the split parts of
/// mixed-case identifiers that the tokenizer would not find on its own.
pub fn expand_identifiers(text: &str) -> String {
    let mut extra = String::new();
    let mut seen: HashSet<&str> = HashSet::new();
    for w in words(text) {
        let has_inner_upper =
            w.chars().skip(1).any(|c| c.is_uppercase()) && w.chars().any(|c| c.is_lowercase());
        if !has_inner_upper || !seen.insert(w) {
            continue;
        }
        for part in split_identifier(w) {
            extra.push(' ');
            extra.push_str(&part);
        }
    }
    if extra.is_empty() {
        text.to_string()
    } else {
        let mut out = String::with_capacity(text.len() + extra.len() + 1);
        out.push_str(text);
        out.push('\n');
        out.push_str(&extra);
        out
    }
}

/// Words that code names are made of, with how many distinct identifiers
/// hold each, and English words that are not compounds; generated by
/// `scripts/gen-compound-words.py` from code outside the eval corpora.
const COMPOUND_WORDS: &str = include_str!("compound_words.txt");

/// [`COMPOUND_WORDS`] read: each part's cost (`ln(total / count)`, so
/// common words are cheap) and the whole words never split.
struct CompoundWords {
    cost: HashMap<&'static str, f32>,
    whole: HashSet<&'static str>,
}

fn compound_words() -> &'static CompoundWords {
    static WORDS: std::sync::LazyLock<CompoundWords> = std::sync::LazyLock::new(|| {
        // Sized up front: rehashing as they grew was a tenth of building
        // them, which a cold search waits for.
        let lines = COMPOUND_WORDS.lines().count();
        let mut counts: Vec<(&'static str, f32)> = Vec::with_capacity(lines);
        let mut whole = HashSet::with_capacity(lines);
        for line in COMPOUND_WORDS.lines().filter(|l| !l.starts_with('#')) {
            match line.split_once(' ') {
                Some((w, n)) => counts.push((w, n.parse::<f32>().unwrap_or(1.0))),
                None if !line.is_empty() => {
                    whole.insert(line);
                }
                None => {}
            }
        }
        let total: f32 = counts.iter().map(|(_, n)| n).sum();
        let mut cost = HashMap::with_capacity(counts.len());
        cost.extend(
            counts
                .into_iter()
                .map(|(w, n)| (w, (total / n.max(1.0)).ln())),
        );
        CompoundWords { cost, whole }
    });
    &WORDS
}

/// Longest part [`compound_parts`] considers, in letters.
const MAX_COMPOUND_PART: usize = 14;

/// The words of a lowercase compound name, the most likely split into two
/// or three known words of at least three letters (`lockfile` → `lock
/// file`, `globalstate` → `global state`, `formparser` → `form parser`);
/// `None` for a name shorter than six letters, not all lowercase ASCII
/// letters, a word itself (`parser`, `conform`, `platforms`) or not made of
/// known words (`intset` is, `mkeymap` is not).
pub fn compound_parts(name: &str) -> Option<Vec<&'static str>> {
    let n = name.len();
    if n < 6 || !name.bytes().all(|b| b.is_ascii_lowercase()) {
        return None;
    }
    let words = compound_words();
    let is_word = |w: &str| words.cost.contains_key(w) || words.whole.contains(w);
    if is_word(name) || name.strip_suffix('s').is_some_and(is_word) {
        return None;
    }
    // best[j]: the cheapest split of name[..j] and where its last part starts.
    let mut best: Vec<Option<(f32, usize)>> = vec![None; n + 1];
    best[0] = Some((0.0, 0));
    for j in 3..=n {
        for i in j.saturating_sub(MAX_COMPOUND_PART)..=j - 3 {
            let (Some((before, _)), Some(&cost)) = (best[i], words.cost.get(&name[i..j])) else {
                continue;
            };
            if best[j].is_none_or(|(c, _)| before + cost < c) {
                best[j] = Some((before + cost, i));
            }
        }
    }
    let mut parts = Vec::new();
    let mut j = n;
    while j > 0 {
        let (_, i) = best[j]?;
        let (&part, _) = words.cost.get_key_value(&name[i..j])?;
        parts.push(part);
        j = i;
    }
    parts.reverse();
    (2..=3).contains(&parts.len()).then_some(parts)
}

/// An identifier's words: its camelCase / snake_case parts
/// ([`split_identifier`]), each lowercase compound part followed by its
/// words ([`compound_parts`]): `lockfile` → `lockfile lock file`,
/// `EventSource` → `event source`.
pub fn name_words(ident: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in split_identifier(ident) {
        let words = compound_parts(&part);
        out.push(part);
        out.extend(words.unwrap_or_default().into_iter().map(str::to_string));
    }
    out
}

/// A path as search terms: `django/contrib/auth/views.py` → its components
/// and their words ([`name_words`]: `src/lockfile.c` → `src lockfile lock
/// file c`), and for a grammar or lexer its kind
/// ([`crate::lang::grammar_kind_words`]: `src/parser.y` → `… grammar parser`).
pub fn path_terms(path: &str) -> String {
    let mut out = String::new();
    for comp in path.split(['/', '.', '\\']) {
        if comp.is_empty() {
            continue;
        }
        out.push_str(comp);
        out.push(' ');
        let parts = name_words(comp);
        if parts.len() > 1 {
            for p in parts.into_iter().filter(|p| p != comp) {
                out.push_str(&p);
                out.push(' ');
            }
        }
    }
    if let Some((_, ext)) = path.rsplit_once('.')
        && !ext.contains('/')
    {
        for w in crate::lang::grammar_kind_words(&ext.to_ascii_lowercase()) {
            out.push_str(w);
            out.push(' ');
        }
    }
    out
}

/// English words too common to help a code search query.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "by", "can", "do", "does", "for", "from",
    "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "of", "on", "or", "our",
    "should", "so", "that", "the", "their", "them", "then", "there", "these", "this", "those",
    "to", "was", "we", "were", "what", "when", "where", "which", "who", "why", "will", "with",
    "you", "your", "code", "function", "find", "show", "me", "all", "any", "some", "used",
];

/// Whether a lowercase word is too common to help a query.
pub fn is_stopword(w: &str) -> bool {
    STOPWORDS.contains(&w)
}

/// A crude English stem, to match query words with identifier parts
/// (`parses`, `parsed`, `parsing` and `parse`'s plural all meet at `pars`
/// or `parse`; near misses only cost a ranking bonus): drops one of `ing`,
/// `ed`, `es`, `s` when at least three letters remain.
pub fn crude_stem(w: &str) -> &str {
    for suffix in ["ing", "ed", "es", "s"] {
        if let Some(stem) = w.strip_suffix(suffix)
            && stem.len() >= 3
        {
            return stem;
        }
    }
    w
}

/// Terms of a natural-language or identifier query, lowercased, stopwords
/// removed (unless nothing else is left), identifiers also split into parts.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    let push = |t: String, terms: &mut Vec<String>| {
        if !t.is_empty() && !terms.contains(&t) {
            terms.push(t);
        }
    };
    for w in words(query) {
        let lower = w.to_lowercase();
        let parts = split_identifier(w);
        if parts.len() > 1 {
            // The whole identifier matches its own token only when it has no
            // underscore (the tokenizer splits at underscores).
            if !w.contains('_') {
                push(lower.clone(), &mut terms);
            }
            for p in parts {
                push(p, &mut terms);
            }
        } else {
            push(lower, &mut terms);
        }
    }
    let filtered: Vec<String> = terms
        .iter()
        .filter(|t| !STOPWORDS.contains(&t.as_str()))
        .cloned()
        .collect();
    if filtered.is_empty() { terms } else { filtered }
}

/// `text` as an FTS5 string (a phrase of its tokens), quotes doubled.
pub fn fts_string(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// An FTS5 MATCH expression that ORs the query terms (BM25 ranks chunks
/// with more and rarer terms higher). `None` when the query has no terms.
pub fn fts_query(query: &str) -> Option<String> {
    let terms = query_terms(query);
    if terms.is_empty() {
        return None;
    }
    // A snake_case name with a stopword part is also its parts as a phrase
    // (`"to html"`): the tokenizer splits it at underscores and the
    // stopword is dropped, so without the phrase `to_html` is only `html`
    // and every chunk about HTML matches it as well as the lines that
    // spell it. (Every snake_case name as a phrase: Django's
    // `ModelAdmin.get_queryset` then led with other classes'
    // `get_queryset`s.)
    let phrases = words(query).filter_map(|w| {
        let parts = split_identifier(w);
        (w.contains('_') && parts.len() > 1 && parts.iter().any(|p| is_stopword(p)))
            .then(|| parts.join(" "))
    });
    let mut all: Vec<String> = Vec::new();
    for t in phrases.chain(terms) {
        if !all.contains(&t) {
            all.push(t);
        }
    }
    let quoted: Vec<String> = all.iter().take(32).map(|t| fts_string(t)).collect();
    Some(quoted.join(" OR "))
}

/// Groups of words programmers use for the same thing, one group per line
/// (`config cfg conf configuration settings options …`, `fake mock stub
/// dummy …`), written from general programming usage, not from any
/// evaluation suite.
const THESAURUS: &str = include_str!("search/thesaurus.txt");

/// Each word of [`THESAURUS`] (also under its [`crude_stem`]) with the
/// other words of every group it is in, in the file's order.
fn thesaurus() -> &'static HashMap<String, Vec<String>> {
    static MAP: std::sync::LazyLock<HashMap<String, Vec<String>>> =
        std::sync::LazyLock::new(|| {
            let mut map: HashMap<String, Vec<String>> = HashMap::new();
            for line in THESAURUS.lines() {
                let group: Vec<&str> = line.split_whitespace().collect();
                for &w in &group {
                    for key in [w, crude_stem(w)] {
                        let others = map.entry(key.to_string()).or_default();
                        for &o in &group {
                            if o != w && !others.iter().any(|x| x == o) {
                                others.push(o.to_string());
                            }
                        }
                    }
                }
            }
            map
        });
    &MAP
}

/// The synonyms of a lowercase word in [`THESAURUS`], found as it is, without
/// a plural `s` ("responses" as "response") or under its [`crude_stem`]
/// ("loaded" as "load"); empty when it has none.
pub fn synonyms(word: &str) -> &'static [String] {
    let map = thesaurus();
    map.get(word)
        .or_else(|| word.strip_suffix('s').and_then(|w| map.get(w)))
        .or_else(|| map.get(crude_stem(word)))
        .map_or(&[], Vec::as_slice)
}

/// Most terms [`fts_synonyms`] ORs together.
const MAX_SYNONYM_TERMS: usize = 48;

/// An FTS5 MATCH expression that ORs the query's terms ([`query_terms`])
/// with their synonyms from [`THESAURUS`] (`fake responses` also matches
/// `mock`, `stub`, `dummy`): a chunk that says what the question means in
/// other words. `None` when no term has a synonym.
pub fn fts_synonyms(query: &str) -> Option<String> {
    let terms = query_terms(query);
    let mut all = terms.clone();
    for term in &terms {
        for s in synonyms(term) {
            if !all.contains(s) {
                all.push(s.clone());
            }
        }
    }
    if all.len() == terms.len() {
        return None;
    }
    let quoted: Vec<String> = all
        .iter()
        .take(MAX_SYNONYM_TERMS)
        .map(|t| fts_string(t))
        .collect();
    Some(quoted.join(" OR "))
}

/// Most word pairs [`fts_adjacent_pairs`] ORs together.
const MAX_PAIRS: usize = 16;

/// An FTS5 MATCH expression that ORs the query's adjacent word pairs as
/// phrases (`"notifying listeners"`, `"terminal width"`): the words in the
/// query's order, identifiers split into their parts, stopwords and
/// one-letter words left out. A chunk matches where two of them stand
/// next to each other, in prose or as the parts of one identifier
/// (`notifyListeners`, `terminal_width`: chunks are indexed with their
/// identifiers split). `None` for fewer than two words.
pub fn fts_adjacent_pairs(query: &str) -> Option<String> {
    let mut seq: Vec<String> = Vec::new();
    for w in words(query) {
        for part in split_identifier(w) {
            if part.chars().count() > 1 && !STOPWORDS.contains(&part.as_str()) {
                seq.push(part);
            }
        }
    }
    let mut pairs: Vec<String> = Vec::new();
    for pair in seq.windows(2) {
        if pair[0] == pair[1] {
            continue;
        }
        let phrase = fts_string(&pair.join(" "));
        if !pairs.contains(&phrase) {
            pairs.push(phrase);
        }
        if pairs.len() == MAX_PAIRS {
            break;
        }
    }
    (!pairs.is_empty()).then(|| pairs.join(" OR "))
}

/// An FTS5 MATCH expression for the chunks holding at least `m` of
/// `terms` (all of them when `m` is their number): the OR of one AND per
/// `m`-term subset, in a stable order. FTS5's bm25 sums each phrase of the
/// expression that matches the chunk, and each term is in C(n-1, m-1) of
/// the subsets: a chunk holding every term scores that multiple of its
/// score under [`fts_query`]'s plain OR, one holding fewer less.
pub fn fts_at_least(terms: &[String], m: usize) -> Option<String> {
    let n = terms.len();
    if m == 0 || m > n {
        return None;
    }
    let quoted: Vec<String> = terms.iter().map(|t| fts_string(t)).collect();
    let mut groups = Vec::new();
    let mut pick: Vec<usize> = (0..m).collect();
    loop {
        let and: Vec<&str> = pick.iter().map(|&i| quoted[i].as_str()).collect();
        groups.push(format!("({})", and.join(" AND ")));
        // The next m-subset in lexicographic order.
        let Some(i) = (0..m).rev().find(|&i| pick[i] < n - m + i) else {
            break;
        };
        pick[i] += 1;
        for j in i + 1..m {
            pick[j] = pick[j - 1] + 1;
        }
    }
    Some(groups.join(" OR "))
}

/// C(n, k), saturating.
pub fn binomial(n: usize, k: usize) -> usize {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    (0..k).fold(1usize, |acc, i| acc.saturating_mul(n - i) / (i + 1))
}

/// The edits (insertions, deletions, substitutions, swaps of two
/// neighbouring letters) between `a` and `b`, when at most `most`: the
/// fuzzy symbol lookup's typos, the nearest names of an unknown file type.
pub(crate) fn typo_distance(a: &[u8], b: &[u8], most: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > most {
        return None;
    }
    let (n, m) = (a.len(), b.len());
    // Three rows of the optimal-string-alignment table.
    let mut before: Vec<usize> = vec![0; m + 1];
    let mut last: Vec<usize> = (0..=m).collect();
    let mut row: Vec<usize> = vec![0; m + 1];
    for i in 1..=n {
        row[0] = i;
        let mut low = row[0];
        for j in 1..=m {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (last[j] + 1).min(row[j - 1] + 1).min(last[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            row[j] = d;
            low = low.min(d);
        }
        if low > most {
            return None;
        }
        std::mem::swap(&mut before, &mut last);
        std::mem::swap(&mut last, &mut row);
    }
    (last[m] <= most).then_some(last[m])
}

/// Whether `text` holds `name` as a whole identifier: not inside a longer
/// one (`secure_filename` is not in `secure_filename_renamed`).
pub fn holds_identifier(text: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    let is_ident = |c: char| c == '_' || c.is_alphanumeric();
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// `n` and `noun`, plural unless `n` is 1: `1 file`, `2 files`,
/// `3 matches` (a noun ending in `s`, `x`, `ch` or `sh` takes `es`),
/// `4 copies` (a consonant's `y` turns `ies`).
pub fn counted(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else if let Some(stem) = noun.strip_suffix('y').filter(|stem| {
        stem.chars()
            .last()
            .is_some_and(|c| !matches!(c, 'a' | 'e' | 'i' | 'o' | 'u'))
    }) {
        format!("{n} {stem}ies")
    } else if ["s", "x", "ch", "sh"].iter().any(|e| noun.ends_with(e)) {
        format!("{n} {noun}es")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_identifier_needs_whole_names() {
        assert!(holds_identifier(
            "def secure_filename(x):",
            "secure_filename"
        ));
        assert!(!holds_identifier(
            "def secure_filename_renamed(x):",
            "secure_filename"
        ));
        assert!(!holds_identifier(
            "x = my_secure_filename",
            "secure_filename"
        ));
        assert!(holds_identifier("secure_filename", "secure_filename"));
        assert!(!holds_identifier("anything", ""));
    }

    #[test]
    fn typo_distance_counts_swaps_as_one_edit() {
        let d = |a: &str, b: &str, most| typo_distance(a.as_bytes(), b.as_bytes(), most);
        assert_eq!(d("assertsame", "assertsaem", 2), Some(1));
        assert_eq!(d("assertsame", "assertsmae", 2), Some(1));
        assert_eq!(d("parse_config", "parse_cnfig", 2), Some(1));
        assert_eq!(d("abc", "abc", 1), Some(0));
        assert_eq!(d("kitten", "sitting", 2), None);
        assert_eq!(d("kitten", "sitting", 3), Some(3));
        assert_eq!(d("a", "abcd", 2), None);
    }

    #[test]
    fn adjacent_word_pairs_follow_the_query_and_split_identifiers() {
        assert_eq!(
            fts_adjacent_pairs("how does the observer decide if notifyListeners is worth it")
                .as_deref(),
            Some(
                r#""observer decide" OR "decide notify" OR "notify listeners" OR "listeners worth""#
            )
        );
        assert_eq!(
            fts_adjacent_pairs("detect terminal width, terminal width").as_deref(),
            Some(r#""detect terminal" OR "terminal width" OR "width terminal""#)
        );
        assert_eq!(
            fts_adjacent_pairs("how is the config loaded").as_deref(),
            Some(r#""config loaded""#)
        );
        assert_eq!(
            fts_adjacent_pairs("TypeAdapter"),
            Some(r#""type adapter""#.to_string())
        );
        assert_eq!(fts_adjacent_pairs("where is it"), None);
        assert_eq!(fts_adjacent_pairs("parse"), None);
    }

    #[test]
    fn synonyms_join_the_query_terms_from_the_thesaurus() {
        let fts = fts_synonyms("fake responses for testing").unwrap_or_default();
        // The query's own terms first, then their synonyms, each once.
        assert!(
            fts.starts_with(r#""fake" OR "responses" OR "testing""#),
            "{fts}"
        );
        for s in ["\"mock\"", "\"stub\"", "\"resp\""] {
            assert!(fts.contains(s), "{s} in {fts}");
        }
        let terms: Vec<&str> = fts.split(" OR ").collect();
        let distinct: HashSet<&&str> = terms.iter().collect();
        assert_eq!(distinct.len(), terms.len(), "{fts}");
        assert!(terms.len() <= MAX_SYNONYM_TERMS, "{fts}");
        // A word found under its crude stem: "loaded" as "load".
        assert!(
            fts_synonyms("config loaded")
                .is_some_and(|f| f.contains("\"settings\"") && f.contains("\"read\"")),
            "{:?}",
            fts_synonyms("config loaded")
        );
        assert_eq!(fts_synonyms("zqxv blorp"), None);
    }

    #[test]
    fn at_least_m_terms() {
        let t: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(
            fts_at_least(&t, 2).as_deref(),
            Some("(\"a\" AND \"b\") OR (\"a\" AND \"c\") OR (\"b\" AND \"c\")")
        );
        assert_eq!(
            fts_at_least(&t, 3).as_deref(),
            Some("(\"a\" AND \"b\" AND \"c\")")
        );
        assert_eq!(
            fts_at_least(&t, 1).as_deref(),
            Some("(\"a\") OR (\"b\") OR (\"c\")")
        );
        assert_eq!(fts_at_least(&t, 4), None);
        assert_eq!(binomial(5, 3), 10);
        assert_eq!(binomial(4, 1), 4);
        assert_eq!(binomial(3, 0), 1);
        assert_eq!(binomial(2, 3), 0);
        // Every term is in C(n-1, m-1) of the subsets.
        let t: Vec<String> = ["a", "b", "c", "d", "e"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let e = fts_at_least(&t, 3).expect("expression");
        assert_eq!(e.matches("\"c\"").count(), binomial(4, 2));
        assert_eq!(e.matches(" OR ").count() + 1, binomial(5, 3));
    }

    #[test]
    fn splits_identifiers() {
        assert_eq!(split_identifier("parse_config"), ["parse", "config"]);
        assert_eq!(split_identifier("HttpClient"), ["http", "client"]);
        assert_eq!(
            split_identifier("HTTPServerError"),
            ["http", "server", "error"]
        );
        assert_eq!(split_identifier("getX"), ["get", "x"]);
        assert_eq!(split_identifier("utf8Decode"), ["utf8", "decode"]);
        assert_eq!(split_identifier("__init__"), ["init"]);
        assert_eq!(split_identifier("plain"), ["plain"]);
    }

    #[test]
    fn expands_only_mixed_case() {
        let body = expand_identifiers("let c = HttpClient::new(parse_config);");
        assert!(body.ends_with(" http client"), "{body}");
        assert_eq!(expand_identifiers("no_camel here"), "no_camel here");
    }

    #[test]
    fn query_terms_drop_stopwords_and_split() {
        assert_eq!(
            query_terms("where do we validate the CSRF token"),
            ["validate", "csrf", "token"]
        );
        assert_eq!(query_terms("HttpClient"), ["httpclient", "http", "client"]);
        assert_eq!(query_terms("parse_config"), ["parse", "config"]);
        assert_eq!(query_terms("the"), ["the"]);
        assert_eq!(fts_query("  ?? "), None);
        // A snake_case name whose stopword part the terms drop is also a
        // phrase of its parts; one without a stopword is not.
        assert_eq!(
            fts_query("to_html").as_deref(),
            Some("\"to html\" OR \"html\"")
        );
        assert_eq!(
            fts_query("parse_config").as_deref(),
            Some("\"parse\" OR \"config\"")
        );
        assert_eq!(fts_query("a\"b").as_deref(), Some("\"b\""));
    }

    #[test]
    fn path_terms_split_components() {
        assert_eq!(
            path_terms("src/HttpClient.rs"),
            "src HttpClient http client rs "
        );
        assert_eq!(path_terms("src/parser.y"), "src parser y grammar parser ");
        assert_eq!(path_terms("src/lexer.L"), "src lexer L lexer grammar ");
        assert_eq!(path_terms("a.y/b"), "a y b ");
        assert_eq!(path_terms("src/lockfile.c"), "src lockfile lock file c ");
        assert_eq!(
            path_terms("lib/formdata-parser.js"),
            "lib formdata-parser formdata form data parser js "
        );
    }

    #[test]
    fn lowercase_compounds_split_into_known_words() {
        for (name, words) in [
            ("lockfile", vec!["lock", "file"]),
            ("globalstate", vec!["global", "state"]),
            ("formparser", vec!["form", "parser"]),
            ("loadconfig", vec!["load", "config"]),
            ("tasklist", vec!["task", "list"]),
            ("setstack", vec!["set", "stack"]),
        ] {
            assert_eq!(compound_parts(name), Some(words), "{name}");
        }
        // Words, plurals of words, short, mixed-case or unknown names stay.
        for name in [
            "parser",
            "conform",
            "platforms",
            "config",
            "mkeymap",
            "lexer",
            "Lockfile",
            "lock_file",
            "intset2",
            "abc",
        ] {
            assert_eq!(compound_parts(name), None, "{name}");
        }
        assert_eq!(
            name_words("EventSourceManager"),
            ["event", "source", "manager"]
        );
        assert_eq!(
            name_words("accesslog_module"),
            ["accesslog", "access", "log", "module"]
        );
        // A definition's name is indexed with its compounds' words too.
        assert_eq!(
            symbol_terms("ziplistNew"),
            "ziplistNew\n ziplist new zip list"
        );
        assert_eq!(symbol_terms("parse_config"), "parse_config");
    }

    #[test]
    fn licence_notices_are_left_out_of_a_leading_comment() {
        // A delimited comment: its description stays, the notice goes.
        let c = "/* intset.c - compact integer set\n *\n * Copyright (c) 2009\n * Redistribution and use ...\n */\n\n#include \"intset.h\"\n";
        assert_eq!(
            without_license(c),
            "/* intset.c - compact integer set\n *\n */\n\n#include \"intset.h\"\n"
        );
        // A description after the notice, in the same comment, stays.
        let h = "// Copyright (c) 2011 The LevelDB Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style license.\n//\n// Endian-neutral encoding:\n// * varint\n\n#ifndef CODING_H_\n";
        assert_eq!(
            without_license(h),
            "//\n// Endian-neutral encoding:\n// * varint\n\n#ifndef CODING_H_\n"
        );
        // Go: the notice's paragraph goes, the package's doc stays.
        let go = "// Copyright 2011 The Go Authors. All rights reserved.\n// Use of this source code is governed by a BSD-style\n// license that can be found in the LICENSE file.\n\n// Package flag parses flags.\npackage flag\n";
        assert_eq!(
            without_license(go),
            "\n// Package flag parses flags.\npackage flag\n"
        );
        // Emacs Lisp: the notice's later paragraphs ("This program is
        // distributed …") go too; a shebang line stays.
        let el = "#!/bin/sh\n;;; helm.el --- completion\n\n;; Copyright (C) 2007 Tamas\n\n;; This program is free software\n;; under GPL.\n\n;; without ANY WARRANTY.\n\n;;; Code:\n(defun helm ())\n";
        assert_eq!(
            without_license(el),
            "#!/bin/sh\n;;; helm.el --- completion\n\n\n;;; Code:\n(defun helm ())\n"
        );
        // `#include` after `//` lines is code, not the notice.
        let c2 = "// SPDX-License-Identifier: MIT\n#include <stdio.h>\n";
        assert_eq!(without_license(c2), "#include <stdio.h>\n");
        // No notice, or code first: the text whole.
        for whole in [
            "/* Parses the licence file of a package. */\nfn parse() {}\n",
            "fn main() {}\n// Copyright 2020\n",
            "",
        ] {
            assert!(
                matches!(without_license(whole), std::borrow::Cow::Borrowed(_)),
                "{whole:?}"
            );
        }
        // A notice never closed runs to the end.
        assert_eq!(without_license("/* Copyright never closed"), "");
    }

    #[test]
    fn counts_read_as_english() {
        assert_eq!(counted(1, "file"), "1 file");
        assert_eq!(counted(0, "file"), "0 files");
        assert_eq!(counted(2, "match"), "2 matches");
        assert_eq!(counted(1, "run"), "1 run");
        assert_eq!(counted(3, "copy"), "3 copies");
        assert_eq!(counted(1, "copy"), "1 copy");
        assert_eq!(counted(2, "key"), "2 keys");
    }
}
