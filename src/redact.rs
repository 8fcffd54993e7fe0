//! Owns secret redaction: finding well-known secret formats in file text and
//! replacing each value (never the line around it) with
//! `[redacted: <rule>]`, so an answer keeps its lines and line numbers while
//! no key, token or password comes back verbatim.
//!
//! Matching never sees redacted text: searches run on the real files and
//! index, and `service` redacts each answer's text once on its way out
//! ([`Redactor`]), whatever the surface. A private key block spans lines, so
//! a fragment that may lie inside one (a marker or a key-like line) is
//! checked against its whole file, read once per answer.
//!
//! The rules ([`RULES`]): cloud keys (AWS access key ids and assigned secret
//! keys, Google API keys), VCS and chat tokens (GitHub, GitLab, Slack),
//! payment and model-provider keys (Stripe live keys, `sk-…` keys), JWTs,
//! private key blocks, passwords in URLs (`scheme://user:PASSWORD@host`), and
//! long high-entropy values assigned to names like `*SECRET*`, `*TOKEN*`,
//! `*PASSWORD*`, `*API_KEY*`, `*PRIVATE_KEY*` (length, entropy and shape
//! thresholds keep ordinary code such as `password = request.POST["password"]`
//! or `TOKEN_TYPE = "bearer"` as it is).

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use regex::Regex;

/// Every rule's name, as it appears in `[redacted: <name>]`.
pub const RULES: [&str; 13] = [
    "aws-access-key-id",
    "aws-secret-access-key",
    "github-token",
    "gitlab-token",
    "slack-token",
    "stripe-key",
    "google-api-key",
    "openai-key",
    "jwt",
    "private-key",
    "url-password",
    "secret-assignment",
    "cut-value",
];

/// Files larger than this are not read to find key blocks around a fragment.
const MAX_FILE_BYTES: u64 = 8 << 20;
/// A key block's END marker must follow its BEGIN within this many lines.
const MAX_BLOCK_LINES: usize = 500;

/// One secret value in a line: its byte range and the rule that found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub start: usize,
    pub end: usize,
    pub rule: &'static str,
}

/// The replacement text of a value found by `rule`.
pub fn marker(rule: &str) -> String {
    format!("[redacted: {rule}]")
}

/// A regex compiled when first needed: a one-shot command whose answer
/// holds no trigger word compiles none (all of them took 4 ms, 6% of a
/// cold CLI search), one whose lines name a token compiles that rule's.
struct Lazy {
    pattern: &'static str,
    re: OnceLock<Regex>,
}

impl Lazy {
    const fn new(pattern: &'static str) -> Lazy {
        Lazy {
            pattern,
            re: OnceLock::new(),
        }
    }

    fn get(&self) -> &Regex {
        // The patterns are constants: every test compiles them.
        self.re
            .get_or_init(|| Regex::new(self.pattern).expect("redaction patterns are valid"))
    }
}

/// A format rule: its name, a regex whose group 1 is the value, and a
/// check of the value.
type Format = (&'static str, Lazy, fn(&str) -> bool);

/// Which rules a line's trigger words start (bits: the format rules by
/// their place, then these).
const KEY_LINE: u16 = 1 << 9;
const URL: u16 = 1 << 10;
const ASSIGNED: u16 = 1 << 11;

/// Each trigger word (ASCII case-insensitive) and the rules it starts:
/// a rule's regex cannot match a line without one of its words, so a line
/// runs only the rules its words start (the same finds as running all).
const TRIGGERS: [(&str, u16); 33] = [
    ("akia", 1 << 0),
    ("asia", 1 << 0),
    ("abia", 1 << 0),
    ("acca", 1 << 0),
    ("aws", 1 << 1),
    ("ghp_", 1 << 2),
    ("gho_", 1 << 2),
    ("ghu_", 1 << 2),
    ("ghs_", 1 << 2),
    ("ghr_", 1 << 2),
    ("github_pat_", 1 << 2),
    ("glpat-", 1 << 3),
    ("xox", 1 << 4),
    ("_live_", 1 << 5),
    ("aiza", 1 << 6),
    ("sk-", 1 << 7),
    ("eyj", 1 << 8),
    ("private key", KEY_LINE),
    ("://", URL),
    ("secret", ASSIGNED),
    ("token", ASSIGNED),
    ("passw", ASSIGNED),
    ("pwd", ASSIGNED),
    ("api_key", ASSIGNED),
    ("api-key", ASSIGNED),
    ("apikey", ASSIGNED),
    ("private_key", ASSIGNED),
    ("private-key", ASSIGNED),
    ("privatekey", ASSIGNED),
    ("access_key", ASSIGNED),
    ("access-key", ASSIGNED),
    ("accesskey", ASSIGNED),
    ("credential", ASSIGNED),
];

struct Rules {
    /// Any of [`TRIGGERS`] (ASCII case-insensitive) in a line means a rule
    /// may match.
    triggers: AhoCorasick,
    /// Format rules: (name, regex whose group 1 is the value, extra check),
    /// in the order of their [`TRIGGERS`] bits.
    formats: [Format; 9],
    url: Lazy,
    assigned: Lazy,
    key_begin: Lazy,
    key_end: Lazy,
}

fn always(_: &str) -> bool {
    true
}

fn rules() -> &'static Rules {
    static RULES_CELL: OnceLock<Rules> = OnceLock::new();
    RULES_CELL.get_or_init(|| {
        let triggers = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(TRIGGERS.map(|(w, _)| w))
            .expect("redaction triggers are valid");
        let formats: [Format; 9] = [
            (
                "aws-access-key-id",
                Lazy::new(r"\b((?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})\b"),
                always,
            ),
            (
                "aws-secret-access-key",
                Lazy::new(
                    r#"(?i)aws[a-z0-9_.\-]{0,30}?(?:secret|sk)[a-z0-9_.\-]{0,30}["']?\s*(?:=>|:=|=|:)\s*["']?([A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
                ),
                always,
            ),
            (
                "github-token",
                Lazy::new(r"\b(gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"),
                always,
            ),
            ("gitlab-token", Lazy::new(r"\b(glpat-[A-Za-z0-9_\-]{20,})"), always),
            ("slack-token", Lazy::new(r"\b(xox[abpors]-[A-Za-z0-9\-]{10,})"), |v| {
                v.bytes().any(|b| b.is_ascii_digit())
            }),
            ("stripe-key", Lazy::new(r"\b((?:sk|rk)_live_[A-Za-z0-9]{16,})"), always),
            ("google-api-key", Lazy::new(r"\b(AIza[0-9A-Za-z_\-]{35})"), always),
            (
                "openai-key",
                Lazy::new(r"\b(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,})"),
                |v| mixed(v) && entropy(v) >= 3.5,
            ),
            (
                "jwt",
                Lazy::new(r"\b(eyJ[A-Za-z0-9_\-]{10,}\.eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,})"),
                always,
            ),
        ];
        Rules {
            triggers,
            formats,
            url: Lazy::new(
                r#"\b[A-Za-z][A-Za-z0-9+.\-]{1,20}://[^\s:/?#@'"<>()]{1,100}:([^\s/?#@'"<>]{1,200})@[A-Za-z0-9\[]"#,
            ),
            assigned: Lazy::new(
                r#"(?i)([a-z0-9_.\-]*(?:secret|token|passw(?:or)?d|passwd|pwd|api[_\-]?key|private[_\-]?key|access[_\-]?key|credentials?)[a-z0-9_\-]*)["']?\s*(?:=>|:=|=|:)\s*(?:"([^"\s]{8,})"|'([^'\s]{8,})'|`([^`\s]{8,})`|([A-Za-z0-9+/_\-.~!@#$%^&*]{16,}))"#,
            ),
            key_begin: Lazy::new(r"-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"),
            key_end: Lazy::new(r"-----END ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----"),
        }
    })
}

/// Shannon entropy in bits per character.
fn entropy(s: &str) -> f64 {
    let mut counts: HashMap<char, usize> = HashMap::new();
    let mut n = 0usize;
    for c in s.chars() {
        *counts.entry(c).or_default() += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    let n = n as f64;
    counts
        .values()
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.log2()
        })
        .sum()
}

/// Letters and digits mixed, as generated keys are.
fn mixed(s: &str) -> bool {
    let digit = s.bytes().any(|b| b.is_ascii_digit());
    let upper = s.bytes().any(|b| b.is_ascii_uppercase());
    let lower = s.bytes().any(|b| b.is_ascii_lowercase());
    digit && upper && lower
}

/// Whether a value assigned to a secret-like `name` looks like a secret
/// rather than code, a placeholder or a description.
fn assigned_value_is_secret(name: &str, value: &str, quoted: bool) -> bool {
    let name = name.to_ascii_lowercase();
    let password = name.contains("passw") || name.contains("pwd");
    let min_len = if password && quoted { 8 } else { 16 };
    if value.chars().count() < min_len {
        return false;
    }
    // Templates, interpolation, placeholders, paths and URLs.
    if value.contains('{')
        || (value.contains('[') && value.contains(']'))
        || value.contains("%(")
        || value.contains("%s")
        || value.contains("://")
        || value.starts_with('$')
        || value.starts_with('{')
        || value.starts_with('<')
        || value.starts_with('/')
        || value.starts_with("./")
        || value.ends_with('(')
    {
        return false;
    }
    let distinct: std::collections::HashSet<char> = value.chars().collect();
    if distinct.len() <= 3 {
        // `********`, `xxxxxxxxxxxxxxxx`, `0000…`
        return false;
    }
    // A dotted or plain identifier (`django.contrib.auth.tokens.Foo`,
    // `TOKEN_TYPE_BEARER`, `get_user_password`) is code, not a value.
    let identifier = |s: &str| {
        let mut cs = s.chars();
        cs.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && cs.all(|c| c.is_ascii_alphanumeric() || c == '_')
    };
    if value.split('.').all(identifier) && !value.bytes().any(|b| b.is_ascii_digit()) {
        return false;
    }
    // Words joined, each perhaps numbered: `my-secret-name`, `FORBIDDEN_VALUE2`.
    if value.split(['.', '-', '_']).all(|w| {
        let letters = w.trim_end_matches(|c: char| c.is_ascii_digit());
        w.len() - letters.len() <= 2 && letters.chars().all(|c| c.is_ascii_alphabetic())
    }) {
        return false;
    }
    let has_digit = value.bytes().any(|b| b.is_ascii_digit());
    let has_alpha = value.bytes().any(|b| b.is_ascii_alphabetic());
    if !(has_digit && has_alpha) || is_placeholder(value) {
        return false;
    }
    // A short password needs the character classes of a real one
    // (`Tr0ub4dor&3`), not those of a test's `password1`.
    if value.len() < 16 && classes(value) < 3 {
        return false;
    }
    let threshold = if password && quoted { 2.5 } else { 3.0 };
    entropy(value) >= threshold
}

/// Lower case, upper case, digits, others: how many kinds `s` mixes.
fn classes(s: &str) -> usize {
    let has = |f: fn(&u8) -> bool| s.as_bytes().iter().any(f);
    [
        has(u8::is_ascii_lowercase),
        has(u8::is_ascii_uppercase),
        has(u8::is_ascii_digit),
        has(|b| !b.is_ascii_alphanumeric()),
    ]
    .into_iter()
    .filter(|&x| x)
    .count()
}

/// Words that make a value a placeholder or a test value, not a secret.
fn is_placeholder(value: &str) -> bool {
    const WORDS: [&str; 14] = [
        "password",
        "passwd",
        "secret",
        "token",
        "example",
        "dummy",
        "sample",
        "placeholder",
        "changeme",
        "your",
        "xxxx",
        "fake",
        "test",
        "redacted",
    ];
    let v = value.to_ascii_lowercase();
    WORDS.iter().any(|w| v.contains(w))
}

/// The secret values in one line, in order, not overlapping. A line that
/// holds no trigger word costs one scan.
pub fn find_in_line(line: &str) -> Vec<Found> {
    let started = started_rules(line);
    if started == 0 {
        return cut_ends(line, &[]);
    }
    find_with(line, started)
}

/// The rules the trigger words of `line` start ([`TRIGGERS`]' bits).
fn started_rules(line: &str) -> u16 {
    rules()
        .triggers
        .find_overlapping_iter(line)
        .fold(0u16, |bits, m| bits | TRIGGERS[m.pattern().as_usize()].1)
}

/// [`find_in_line`] with the rules of the bits `started` only.
fn find_with(line: &str, started: u16) -> Vec<Found> {
    let r = rules();
    let mut found: Vec<Found> = Vec::new();
    // Earlier rules win an overlap: specific formats before the generic one.
    let push = |start: usize, end: usize, rule: &'static str, found: &mut Vec<Found>| {
        if start < end && !found.iter().any(|f| start < f.end && f.start < end) {
            found.push(Found { start, end, rule });
        }
    };
    for (i, (name, re, check)) in r.formats.iter().enumerate() {
        if started & (1 << i) == 0 {
            continue;
        }
        for c in re.get().captures_iter(line) {
            if let Some(m) = c.get(1)
                && check(m.as_str())
            {
                push(m.start(), m.end(), name, &mut found);
            }
        }
    }
    // A whole key on one line (an escaped PEM string in JSON or code).
    if let Some(b) = (started & KEY_LINE != 0)
        .then(|| r.key_begin.get().find(line))
        .flatten()
    {
        let rest = &line[b.end()..];
        let body_end = r
            .key_end
            .get()
            .find(rest)
            .map(|e| b.end() + e.start())
            .unwrap_or(line.len());
        let body = &line[b.end()..body_end];
        if longest_base64_run(body) >= 16 {
            let lead = body.len() - body.trim_start().len();
            let trail = body.len() - body.trim_end_matches(['"', '\'', ',', ' ', ';']).len();
            let (s, e) = (b.end() + lead, body_end - trail);
            push(s, e.max(s), "private-key", &mut found);
        }
    }
    let url = (started & URL != 0).then(|| r.url.get().captures_iter(line));
    for c in url.into_iter().flatten() {
        if let Some(m) = c.get(1) {
            let v = m.as_str();
            let template = v.starts_with('$')
                || v.starts_with('{')
                || v.starts_with('%')
                || v.starts_with('<')
                || v.contains(',') // several hosts: `a:1,b:2@c`
                || v.chars().all(|ch| ch == '*' || ch == 'x' || ch == 'X')
                || ["password", "pass", "passwd", "pwd", "pw", "secret"]
                    .contains(&v.to_ascii_lowercase().as_str());
            if !template {
                push(m.start(), m.end(), "url-password", &mut found);
            }
        }
    }
    let assigned = (started & ASSIGNED != 0).then(|| r.assigned.get().captures_iter(line));
    for c in assigned.into_iter().flatten() {
        let Some(name) = c.get(1) else { continue };
        let (value, quoted) = match (c.get(2).or(c.get(3)).or(c.get(4)), c.get(5)) {
            (Some(v), _) => (v, true),
            (None, Some(v)) => (v, false),
            (None, None) => continue,
        };
        if !quoted {
            // An unquoted value must end there: `token=abc(…)` is a call.
            let next = line[value.end()..].chars().next();
            if matches!(next, Some('(' | '[' | '.' | '{')) {
                continue;
            }
        }
        if assigned_value_is_secret(name.as_str(), value.as_str(), quoted) {
            push(value.start(), value.end(), "secret-assignment", &mut found);
        }
    }
    let cut = cut_ends(line, &found);
    found.extend(cut);
    found.sort_by_key(|f| f.start);
    found
}

/// A line cut short for display starts or ends with `…`: a secret cut
/// through is too short for its rule, so a token at the cut that starts
/// like one, or looks random, is redacted as `cut-value`.
fn cut_ends(line: &str, found: &[Found]) -> Vec<Found> {
    const PREFIXES: [&str; 15] = [
        "AKIA",
        "ASIA",
        "ghp_",
        "gho_",
        "ghu_",
        "ghs_",
        "ghr_",
        "github_pat_",
        "glpat-",
        "xox",
        "sk_live_",
        "rk_live_",
        "AIza",
        "sk-",
        "eyJ",
    ];
    let token_char = |c: char| c.is_ascii_alphanumeric() || "_-./+=".contains(c);
    let random = |t: &str| t.len() >= 16 && mixed(t) && entropy(t) >= 3.5;
    let free = |s: usize, e: usize| !found.iter().any(|f| s < f.end && f.start < e);
    let mut out = Vec::new();
    if let Some(body) = line.strip_suffix('…') {
        // After the last non-token character, which may be multi-byte.
        let start = body
            .char_indices()
            .rev()
            .find(|&(_, c)| !token_char(c))
            .map_or(0, |(i, c)| i + c.len_utf8());
        let token = &body[start..];
        let prefixed = token.len() > 4 && PREFIXES.iter().any(|p| token.starts_with(p));
        if (prefixed || random(token)) && free(start, body.len()) {
            out.push(Found {
                start,
                end: body.len(),
                rule: "cut-value",
            });
        }
    }
    if let Some(rest) = line.strip_prefix('…') {
        let start = '…'.len_utf8();
        let end = start + rest.find(|c: char| !token_char(c)).unwrap_or(rest.len());
        if random(&line[start..end]) && free(start, end) && !out.iter().any(|f| f.start < end) {
            out.push(Found {
                start,
                end,
                rule: "cut-value",
            });
        }
    }
    out
}

/// The length of the longest run of base64 characters in `s`.
fn longest_base64_run(s: &str) -> usize {
    let mut best = 0;
    let mut run = 0;
    for b in s.bytes() {
        if is_base64_byte(b) {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

/// `line` with `found` replaced by their markers.
pub fn apply(line: &str, found: &[Found]) -> String {
    let mut out = String::with_capacity(line.len());
    let mut at = 0;
    for f in found {
        out.push_str(&line[at..f.start]);
        out.push_str(&marker(f.rule));
        at = f.end;
    }
    out.push_str(&line[at..]);
    out
}

/// Where a byte offset of the original line lands in the redacted one: an
/// offset inside a redacted value moves to its marker's start (or, for the
/// end of a range, its marker's end).
pub fn remap(offset: usize, found: &[Found], is_end: bool) -> usize {
    let mut shift: isize = 0;
    for f in found {
        if offset <= f.start {
            break;
        }
        let m = marker(f.rule).len() as isize;
        if offset < f.end {
            let base = (f.start as isize + shift) as usize;
            return if is_end { base + m as usize } else { base };
        }
        shift += m - (f.end - f.start) as isize;
    }
    (offset as isize + shift).max(0) as usize
}

/// The 1-based line ranges (inclusive) of the bodies of private key blocks
/// in `text`: the lines between a BEGIN line whose key continues on the next
/// line and its END line, when the body looks like key material (code that
/// only names the markers, such as a PEM parser, is not a block).
pub fn key_block_bodies(text: &str) -> Vec<(u64, u64)> {
    if !text.contains("PRIVATE KEY") {
        return Vec::new();
    }
    let r = rules();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let Some(b) = r.key_begin.get().find(lines[i]) else {
            i += 1;
            continue;
        };
        // The key continues on this line: a one-line key, not a block.
        if longest_base64_run(&lines[i][b.end()..]) >= 16 {
            i += 1;
            continue;
        }
        let end = (i + 1..lines.len().min(i + 1 + MAX_BLOCK_LINES))
            .find(|&j| r.key_end.get().is_match(lines[j]) || r.key_begin.get().is_match(lines[j]));
        match end {
            Some(j) if r.key_end.get().is_match(lines[j]) && j > i + 1 => {
                let body = &lines[i + 1..j];
                let keyish = body.iter().filter(|l| longest_base64_run(l) >= 16).count();
                let longest = body.iter().map(|l| longest_base64_run(l)).max();
                if keyish * 2 >= body.len() && longest.unwrap_or(0) >= 40 {
                    out.push((i as u64 + 2, j as u64));
                }
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    out
}

/// Whether a fragment line may belong to a key block: a marker, a long run
/// of base64, or a line of nothing but base64 with a digit or `+`/`/` (a
/// block's body, perhaps its short last line, seen without its markers).
fn may_be_in_key_block(line: &str) -> bool {
    if line.contains("PRIVATE KEY-----") || (line.len() >= 40 && longest_base64_run(line) >= 40) {
        return true;
    }
    let t = line.trim();
    t.len() >= 8
        && t.bytes().all(is_base64_byte)
        && t.bytes()
            .any(|b| b.is_ascii_digit() || b == b'+' || b == b'/')
}

fn is_base64_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'+' || b == b'/' || b == b'='
}

/// Redacts one answer's text: every text field of an answer passes through
/// it on its way out of the service, and [`Redactor::count`] is the number
/// of values it replaced. Disabled, it changes nothing and counts 0.
pub struct Redactor {
    root: PathBuf,
    enabled: bool,
    count: usize,
    /// Key block bodies per root-relative path (read once per answer).
    blocks: HashMap<String, Vec<(u64, u64)>>,
}

impl Redactor {
    pub fn new(root: &Path, enabled: bool) -> Redactor {
        Redactor {
            root: root.to_path_buf(),
            enabled,
            count: 0,
            blocks: HashMap::new(),
        }
    }

    /// Values replaced so far.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Redacts a text with no file behind it (a signature): one-line rules
    /// and whole key blocks inside the text.
    pub fn text(&mut self, text: &mut String) {
        if !self.enabled || text.is_empty() {
            return;
        }
        let blocks = key_block_bodies(text);
        self.redact_lines(text, 1, &blocks);
    }

    /// Redacts `text`, lines of the file `path` starting at line `first`.
    pub fn lines(&mut self, path: &str, first: u64, text: &mut String) {
        if !self.enabled || text.is_empty() {
            return;
        }
        let blocks = if text.lines().any(may_be_in_key_block) {
            self.file_blocks(path)
        } else {
            Vec::new()
        };
        self.redact_lines(text, first, &blocks);
    }

    /// Redacts line `n` of the file `path`; returns what was replaced in
    /// it, to move byte offsets into the line (keyword submatches).
    pub fn line(&mut self, path: &str, n: u64, text: &mut String) -> Vec<Found> {
        let found = self.find_line(path, n, text);
        if !found.is_empty() {
            *text = apply(text, &found);
        }
        found
    }

    /// [`Redactor::line`] for a borrowed line: the line itself (no copy)
    /// when nothing in it is redacted.
    pub fn line_cow<'t>(&mut self, path: &str, n: u64, text: &'t str) -> Cow<'t, str> {
        let found = self.find_line(path, n, text);
        if found.is_empty() {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(apply(text, &found))
        }
    }

    /// What to replace in line `n` of `path`, counted.
    fn find_line(&mut self, path: &str, n: u64, text: &str) -> Vec<Found> {
        if !self.enabled || text.is_empty() {
            return Vec::new();
        }
        if may_be_in_key_block(text)
            && self
                .file_blocks(path)
                .iter()
                .any(|&(s, e)| s <= n && n <= e)
        {
            self.count += 1;
            return vec![whole_line(text)];
        }
        let found = find_in_line(text);
        self.count += found.len();
        found
    }

    fn redact_lines(&mut self, text: &mut String, first: u64, blocks: &[(u64, u64)]) {
        let mut out = String::with_capacity(text.len());
        let mut changed = false;
        let mut in_block: Option<(u64, u64)> = None;
        for (i, piece) in text.split_inclusive('\n').enumerate() {
            let n = first + i as u64;
            let (line, eol) = match piece.strip_suffix('\n') {
                Some(l) => match l.strip_suffix('\r') {
                    Some(l2) => (l2, &piece[l2.len()..]),
                    None => (l, "\n"),
                },
                None => (piece, ""),
            };
            let block = blocks.iter().copied().find(|&(s, e)| s <= n && n <= e);
            if let Some(b) = block {
                // One value per block shown, however many of its lines.
                if in_block != Some(b) {
                    self.count += 1;
                    in_block = Some(b);
                }
                out.push_str(&apply(line, &[whole_line(line)]));
                out.push_str(eol);
                changed = true;
                continue;
            }
            in_block = None;
            let found = find_in_line(line);
            if found.is_empty() {
                out.push_str(piece);
            } else {
                self.count += found.len();
                out.push_str(&apply(line, &found));
                out.push_str(eol);
                changed = true;
            }
        }
        if changed {
            *text = out;
        }
    }

    fn file_blocks(&mut self, path: &str) -> Vec<(u64, u64)> {
        if let Some(b) = self.blocks.get(path) {
            return b.clone();
        }
        let blocks = read_blocks(&self.root, path);
        self.blocks.insert(path.to_string(), blocks.clone());
        blocks
    }
}

/// A key body line as one value: everything but its indentation.
fn whole_line(line: &str) -> Found {
    let start = line.len() - line.trim_start().len();
    Found {
        start,
        end: line.len().max(start),
        rule: "private-key",
    }
}

fn read_blocks(root: &Path, path: &str) -> Vec<(u64, u64)> {
    let Ok(p) = crate::paths::resolve_in_root(root, path) else {
        return Vec::new();
    };
    match std::fs::metadata(&p.abs) {
        Ok(md) if md.is_file() && md.len() <= MAX_FILE_BYTES => {}
        _ => return Vec::new(),
    }
    match std::fs::read(&p.abs) {
        Ok(bytes) => key_block_bodies(&String::from_utf8_lossy(&bytes)),
        Err(_) => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redact(line: &str) -> String {
        apply(line, &find_in_line(line))
    }

    fn rules_of(line: &str) -> Vec<&'static str> {
        find_in_line(line).into_iter().map(|f| f.rule).collect()
    }

    #[test]
    fn well_known_formats_are_found() {
        let cases = [
            ("key_id = AKIAQYLPMN5HHHFPZAM2", "aws-access-key-id"),
            (
                "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                "aws-secret-access-key",
            ),
            (
                concat!("token: gh", "p_aBcD1234eFgH5678iJkL9012mNoP3456qRsT"),
                "github-token",
            ),
            (
                concat!(
                    "x = 'github",
                    "_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz'"
                ),
                "github-token",
            ),
            (
                concat!("GITLAB = 'glpat", "-Ab3dEf6hIj9kLm2nOp5q'"),
                "gitlab-token",
            ),
            (
                concat!(
                    "slack = 'xo",
                    "xb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx'"
                ),
                "slack-token",
            ),
            (
                concat!("stripe.api = 'sk_", "live_4eC39HqLyjWDarjtT1zdp7dc'"),
                "stripe-key",
            ),
            (
                concat!("k = 'AI", "zaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW'"),
                "google-api-key",
            ),
            (
                concat!(
                    "client = OpenAI(api_key='sk-",
                    "proj-Ab12Cd34Ef56Gh78Ij90Kl12Mn34Op56')"
                ),
                "openai-key",
            ),
            (
                "auth = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U'",
                "jwt",
            ),
            (
                "DATABASE_URL=postgres://app:S3cr3t-P4ss@db.internal:5432/prod",
                "url-password",
            ),
            (
                r#""private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n","#,
                "private-key",
            ),
            (
                "SECRET_KEY = 'x8#kq2!vZp0@Lm4$wR7tYb1%nC5&dF9*'",
                "secret-assignment",
            ),
            (
                "export API_TOKEN=4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c",
                "secret-assignment",
            ),
            ("db_password: \"Tr0ub4dor&3\"", "secret-assignment"),
        ];
        for (line, rule) in cases {
            assert_eq!(rules_of(line), vec![rule], "{line}");
            let out = redact(line);
            assert!(out.contains(&marker(rule)), "{out}");
        }
    }

    /// A line runs only the rules its trigger words start, and finds what
    /// running every rule finds: over the format cases above, lines mixing
    /// several secrets, and lines whose words start a rule that does not
    /// match.
    #[test]
    fn the_started_rules_find_what_every_rule_finds() {
        let lines = [
            "key_id = AKIAQYLPMN5HHHFPZAM2 and DATABASE_URL=postgres://app:S3cr3t-P4ss@db:5432/x",
            "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            concat!("token: gh", "p_aBcD1234eFgH5678iJkL9012mNoP3456qRsT"),
            concat!("stripe.api = 'sk_", "live_4eC39HqLyjWDarjtT1zdp7dc'"),
            concat!(
                "k = 'AI",
                "zaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW' # api_key"
            ),
            r#""private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n","#,
            "SECRET_KEY = 'x8#kq2!vZp0@Lm4$wR7tYb1%nC5&dF9*' # see https://example.org",
            "export API_TOKEN=4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c; eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "token = get_token(request)  # asia, xox, sk-, glpat-, aws",
            "plain code with no trigger at all",
        ];
        for line in lines {
            let started = started_rules(line);
            let all = find_with(line, u16::MAX);
            if started == 0 {
                assert!(all.is_empty(), "{line}: {all:?}");
                continue;
            }
            assert_eq!(find_with(line, started), all, "{line}");
        }
    }

    #[test]
    fn only_the_value_is_replaced() {
        assert_eq!(
            redact("url = postgres://app:S3cr3t-P4ss@db:5432/prod # main"),
            "url = postgres://app:[redacted: url-password]@db:5432/prod # main"
        );
        assert_eq!(
            redact("id=AKIAQYLPMN5HHHFPZAM2, other"),
            "id=[redacted: aws-access-key-id], other"
        );
    }

    #[test]
    fn ordinary_code_is_not_redacted() {
        for line in [
            r#"password = request.POST["password"]"#,
            r#"TOKEN_TYPE = "bearer""#,
            "token = get_token(request)",
            "password_reset_token = PasswordResetTokenGenerator()",
            "SECRET_KEY = settings.SECRET_KEY",
            "secret: String,",
            "let token = self.next_token()?;",
            r#"PASSWORD_HASHERS = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]"#,
            r#"api_key = os.environ["OPENAI_API_KEY"]"#,
            r#"password = "********""#,
            r#"url = "postgres://user:${DB_PASSWORD}@localhost/db""#,
            r#"url = "postgres://{user}:{password}@{host}/db""#,
            "csrf_token_length = 32",
            r#"TOKEN_PATTERN = "[A-Za-z0-9_-]{16,}""#,
            "see https://example.com/docs/secret-management.html",
            r#"self.assertEqual(token, "reset-password-token-name")"#,
            r#"if line.startswith("-----BEGIN PRIVATE KEY-----"):"#,
            "task-runner-service-account-name-long",
            "if password == other_password_value:",
            r#"secret_name = "my-app-secret-name""#,
            r#"data = {"password1": "password1", "new_password2": "password1"}"#,
            r#""password1": "FORBIDDEN_VALUE2","#,
            "http://userid:password@example.com",
            "MultiHostUrl('https://foo.com:123,foo:bar@bar.com/path')",
            r#"API_TOKEN = "your-api-token-here-123""#,
        ] {
            assert_eq!(find_in_line(line), Vec::new(), "{line}");
        }
    }

    #[test]
    fn key_blocks_span_lines_and_keep_them() {
        let text = "const KEY: &str = \"\\\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACDvb3RzZWNyZXRrZXlub3RhcmVhbG9uZWp1c3RhdGVzdAAAAJgAAAAA\nAAAAC3NzaC1lZDI1NTE5\n-----END OPENSSH PRIVATE KEY-----\n\";\nfn main() {}\n";
        assert_eq!(key_block_bodies(text), vec![(3, 5)]);
        let mut r = Redactor::new(Path::new("/nonexistent"), true);
        let mut t = text.to_string();
        r.text(&mut t);
        assert_eq!(t.lines().count(), text.lines().count());
        assert!(!t.contains("b3BlbnNzaC1rZXktdjEAAAAABG5v"), "{t}");
        assert!(t.contains("-----BEGIN OPENSSH PRIVATE KEY-----"));
        assert_eq!(t.lines().nth(2), Some("[redacted: private-key]"));
        assert_eq!(r.count(), 1);
        // A parser naming the markers has no key between them.
        let parser = "if l.startswith(\"-----BEGIN RSA PRIVATE KEY-----\"):\n    start = i\nelif l.startswith(\"-----END RSA PRIVATE KEY-----\"):\n    end = i\n";
        assert_eq!(key_block_bodies(parser), Vec::new());
    }

    #[test]
    fn a_secret_cut_by_a_bounded_line_is_redacted() {
        let line = concat!("x = [\"a\", \"gh", "p_aBcD1234eFgH…");
        assert_eq!(redact(line), "x = [\"a\", \"[redacted: cut-value]…");
        assert_eq!(find_in_line("see the docs for more…"), Vec::new());
        let minified = "var a=\"Zk3qP9vX2mL8rT4w…";
        assert_eq!(rules_of(minified), vec!["cut-value"]);
        // A multi-byte character before the cut token (a Unicode table in
        // minified code) is a boundary, not a place to slice inside.
        let unicode = "bmp:\"ࠀ-ࠕࠚࠤZk3qP9vX2mL8rT4w…";
        assert_eq!(rules_of(unicode), vec!["cut-value"]);
        assert_eq!(find_in_line("ዘ…"), Vec::new());
        let head = "…Zk3qP9vX2mL8rT4wQ1\", other";
        assert_eq!(redact(head), "…[redacted: cut-value]\", other");
    }

    #[test]
    fn offsets_move_with_the_markers() {
        let line = "a=AKIAQYLPMN5HHHFPZAM2 b";
        let found = find_in_line(line);
        let out = apply(line, &found);
        // `b` moves with the shorter or longer marker.
        let b = line.find(" b").unwrap_or(0) + 1;
        assert_eq!(
            &out[remap(b, &found, false)..remap(b + 1, &found, true)],
            "b"
        );
        // A range inside the value covers the marker.
        let (s, e) = (remap(4, &found, false), remap(8, &found, true));
        assert_eq!(&out[s..e], "[redacted: aws-access-key-id]");
    }

    #[test]
    fn disabled_changes_nothing() {
        let mut r = Redactor::new(Path::new("/"), false);
        let mut t = "k = AKIAQYLPMN5HHHFPZAM2".to_string();
        r.text(&mut t);
        assert_eq!(t, "k = AKIAQYLPMN5HHHFPZAM2");
        assert_eq!(r.count(), 0);
    }
}
