//! Owns running eval cases and scoring them: each case goes through an
//! engine (the library as the CLI calls it, the real MCP server over stdio,
//! or a plain-grep baseline), answers are scored (MRR@10, recall@1/5/10,
//! exact-set accuracy, and for file-level cases NDCG@10 over files and over
//! chunks) and aggregated per suite × category, language and split × mode.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Result, anyhow};
use serde::{Deserialize, Serialize};

use crate::eval::cases::{Case, Expect, Tool};

/// One ranked answer item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hit {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Further places in the same file the hit lists (a fused answer's
    /// `also`): a span or symbol expectation they meet counts at the hit's
    /// rank, as the answer shows them there.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<Hit>,
}

/// What an engine returned for a case.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    pub hits: Vec<Hit>,
    /// For keyword cases: the `path:line` set returned.
    pub matches: Option<Vec<String>>,
    /// Characters of the serialized answer (what an agent would read; for
    /// the MCP engine the `structuredContent` JSON).
    pub chars: usize,
    /// Characters of the answer's text content (the MCP engine only).
    pub text_chars: Option<usize>,
}

/// Something that can answer eval cases.
pub trait Engine {
    /// Answers `case` in `mode` (a search mode, or the tool's name).
    fn answer(&mut self, root: &Path, case: &Case, mode: &str, limit: usize) -> Result<Answer>;
}

/// The score of one case in one mode.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct CaseResult {
    pub suite: String,
    pub id: String,
    pub category: String,
    pub mode: String,
    /// 1-based rank of the first relevant hit within the top 10.
    pub rank: Option<u32>,
    pub recall1: f64,
    pub recall5: f64,
    pub recall10: f64,
    /// Keyword cases: whether the returned set equals the expected set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact: Option<bool>,
    /// File-level cases (`expect.paths`): NDCG@10 over the distinct files
    /// of the hits (see [`ndcg10_files`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ndcg10_files: Option<f64>,
    /// File-level cases: NDCG@10 with each of the top 10 hits a rank (see
    /// [`ndcg10_chunks`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ndcg10_chunks: Option<f64>,
    /// File-level cases: NDCG@10 over files with every expected file, primary
    /// or secondary, as relevant as the others (see [`ndcg10_binary`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ndcg10_binary: Option<f64>,
    /// The corpus's main language (from corpora.toml), if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lang: Option<String>,
    /// The corpus's split (`tune`, `check` or `holdout`), if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
    /// Words in the query (0 in reports written before it was recorded).
    #[serde(default)]
    pub words: usize,
    pub ms: f64,
    pub chars: usize,
    /// Characters of the text content (MCP engine runs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_chars: Option<usize>,
    /// The tool the case called (`search`, `find_symbol`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The hits (paths and spans, up to `--limit`), to compare runs and
    /// engines and to tune fusion offline.
    pub top: Vec<Hit>,
}

fn relevant(expect: &Expect, h: &Hit) -> Vec<usize> {
    let mut out = relevant_here(expect, h);
    for a in &h.also {
        for i in relevant_here(expect, a) {
            if !out.contains(&i) {
                out.push(i);
            }
        }
    }
    out
}

fn relevant_here(expect: &Expect, h: &Hit) -> Vec<usize> {
    let mut out = Vec::new();
    if !expect.spans.is_empty() {
        for (i, s) in expect.spans.iter().enumerate() {
            if s.overlaps(&h.path, h.start_line, h.end_line) {
                out.push(i);
            }
        }
    } else if !expect.paths.is_empty() {
        for (i, p) in expect.paths.iter().enumerate() {
            if &h.path == p {
                out.push(i);
            }
        }
    }
    if !expect.symbols.is_empty()
        && out.is_empty()
        && expect.spans.is_empty()
        && expect.paths.is_empty()
    {
        for (i, s) in expect.symbols.iter().enumerate() {
            if h.name.as_deref() == Some(s.as_str()) {
                out.push(i);
            }
        }
    } else if !expect.symbols.is_empty() && !out.is_empty() {
        // Paths/spans and symbols both given: the name must match too.
        if !expect
            .symbols
            .iter()
            .any(|s| h.name.as_deref() == Some(s.as_str()))
        {
            out.clear();
        }
    }
    out
}

/// The graded relevance of a file: 2 for a primary file (`expect.paths`),
/// 1 for a partly relevant one (`expect.secondary_paths`), else 0.
fn file_gain(expect: &Expect, path: &str) -> u32 {
    if expect.paths.iter().any(|p| p == path) {
        2
    } else if expect.secondary_paths.iter().any(|p| p == path) {
        1
    } else {
        0
    }
}

/// DCG of gains in rank order (rank 1 first): Σ gain / log2(rank + 1).
/// (A fold from +0.0: an empty `sum()` of floats is -0.0.)
fn dcg(gains: impl IntoIterator<Item = u32>) -> f64 {
    gains
        .into_iter()
        .enumerate()
        .map(|(i, g)| f64::from(g) / (i as f64 + 2.0).log2())
        .fold(0.0, |a, b| a + b)
}

/// NDCG@10 over files, for cases with `expect.paths` (else None): the hit
/// list is reduced to its distinct files in rank order (a file ranks where
/// it first appears), the first 10 are scored with their gains (2 primary,
/// 1 secondary, 0 other), and the ideal is the expected files sorted by gain
/// (all primaries, then the secondaries), cut at 10.
pub fn ndcg10_files(expect: &Expect, hits: &[Hit]) -> Option<f64> {
    if expect.paths.is_empty() {
        return None;
    }
    Some(ndcg10_distinct_files(
        hits,
        |path| file_gain(expect, path),
        ideal_files(expect),
    ))
}

/// The DCG of the first 10 distinct files of `hits` (a file ranks where it
/// first appears), each gaining `gain(path)`, over `ideal` (0 when the
/// ideal is 0).
fn ndcg10_distinct_files(hits: &[Hit], gain: impl Fn(&str) -> u32, ideal: f64) -> f64 {
    let mut seen: HashSet<&str> = HashSet::new();
    let got = dcg(hits
        .iter()
        .filter(|h| seen.insert(h.path.as_str()))
        .take(10)
        .map(|h| gain(&h.path)));
    if ideal > 0.0 { got / ideal } else { 0.0 }
}

/// NDCG@10 over chunks, for cases with `expect.paths` (else None): each of
/// the top 10 hits is a rank, and a hit gains its file's grade (2 primary,
/// 1 secondary) the first time its file appears; a second hit in the same
/// file takes a rank and gains nothing. The ideal is the expected files'
/// grades, as for [`ndcg10_files`]. So this is the files score with every
/// chunk occupying a place: an answer that repeats one file instead of
/// showing the next relevant one scores less.
///
/// Why this reading of "each of the top 10 chunks counts as a rank, a chunk
/// counting when it lies in a relevant file": it is the one that agrees
/// with the published outside numbers (hybrid 0.778 files, 0.738 chunks:
/// chunks below files), which our own runs reproduced before the ranking
/// changed (0.752 files, 0.739 chunks this way; counting every chunk
/// against an ideal of 10 gave 0.514, and counting every chunk against the
/// files' ideal, capped at 1, gave 0.846, above files).
pub fn ndcg10_chunks(expect: &Expect, hits: &[Hit]) -> Option<f64> {
    if expect.paths.is_empty() {
        return None;
    }
    let mut seen: HashSet<&str> = HashSet::new();
    let got = dcg(hits.iter().take(10).map(|h| {
        if seen.insert(h.path.as_str()) {
            file_gain(expect, &h.path)
        } else {
            0
        }
    }));
    let ideal = ideal_files(expect);
    Some(if ideal > 0.0 { got / ideal } else { 0.0 })
}

/// NDCG@10 over files with binary relevance, for cases with `expect.paths`
/// (else None): as [`ndcg10_files`], but a secondary file counts as much as
/// a primary one (gain 1 each), and the ideal is that many relevant files
/// first, cut at 10. This is how benchmarks that list "relevant" and
/// "secondary" targets without grades score an answer, so a number here
/// compares with theirs; the graded scores rank a partly relevant file
/// below the main one.
pub fn ndcg10_binary(expect: &Expect, hits: &[Hit]) -> Option<f64> {
    if expect.paths.is_empty() {
        return None;
    }
    let relevant: HashSet<&str> = expect
        .paths
        .iter()
        .chain(&expect.secondary_paths)
        .map(String::as_str)
        .collect();
    Some(ndcg10_distinct_files(
        hits,
        |path| u32::from(relevant.contains(path)),
        dcg(std::iter::repeat_n(1, relevant.len().min(10))),
    ))
}

/// The DCG of the expected files sorted by grade (all primaries, then the
/// secondaries), cut at 10.
fn ideal_files(expect: &Expect) -> f64 {
    let primary: HashSet<&str> = expect.paths.iter().map(String::as_str).collect();
    let secondary = expect
        .secondary_paths
        .iter()
        .map(String::as_str)
        .filter(|p| !primary.contains(p))
        .collect::<HashSet<&str>>();
    dcg(std::iter::repeat_n(2, primary.len())
        .chain(std::iter::repeat_n(1, secondary.len()))
        .take(10))
}

/// Scores an answer against a case's expectation.
pub fn score(case: &Case, answer: &Answer) -> (Option<u32>, [f64; 3], Option<bool>) {
    if case.tool == Tool::SearchKeyword && !case.expect.matches.is_empty() {
        let got: HashSet<&str> = answer
            .matches
            .iter()
            .flatten()
            .map(String::as_str)
            .collect();
        let want: HashSet<&str> = case.expect.matches.iter().map(String::as_str).collect();
        let exact = got == want;
        let found = want.intersection(&got).count() as f64 / want.len().max(1) as f64;
        return (exact.then_some(1), [found; 3], Some(exact));
    }
    let targets = case.expect.targets().max(1);
    let mut rank = None;
    let mut found: HashSet<usize> = HashSet::new();
    let mut recall = [0.0; 3];
    for (i, h) in answer.hits.iter().take(10).enumerate() {
        let rel = relevant(&case.expect, h);
        if !rel.is_empty() && rank.is_none() {
            rank = Some(i as u32 + 1);
        }
        found.extend(rel);
        let r = found.len().min(targets) as f64 / targets as f64;
        if i == 0 {
            recall[0] = r;
        }
        if i < 5 {
            recall[1] = r;
        }
        recall[2] = r;
    }
    // Fewer than 5 (or 10) hits: recall stays what the last hit reached.
    if answer.hits.len() < 5 {
        recall[1] = recall[2];
    }
    (rank, recall, None)
}

/// Runs every case of `cases` in each applicable mode.
#[allow(clippy::too_many_arguments)]
pub fn run_cases(
    engine: &mut dyn Engine,
    suite: &str,
    root: &Path,
    cases: &[&Case],
    modes: &[String],
    limit: usize,
    engine_name: Option<&str>,
    on_case: &mut dyn FnMut(),
) -> Vec<CaseResult> {
    let mut out = Vec::new();
    for case in cases {
        let case_modes: Vec<String> = match (case.tool, &case.mode) {
            (Tool::Search, Some(m)) => vec![m.clone()],
            (Tool::Search, None) => modes.to_vec(),
            (t, _) => vec![t.name().to_string()],
        };
        for mode in case_modes {
            let started = Instant::now();
            let result = engine.answer(root, case, &mode, limit);
            let ms = started.elapsed().as_secs_f64() * 1000.0;
            let label = engine_name
                .map(String::from)
                .unwrap_or_else(|| mode.clone());
            let words = case.query.split_whitespace().count();
            let r = match result {
                Ok(answer) => {
                    let (rank, recall, exact) = score(case, &answer);
                    CaseResult {
                        suite: suite.to_string(),
                        id: case.id.clone(),
                        category: case.category.name().to_string(),
                        mode: label,
                        rank,
                        recall1: recall[0],
                        recall5: recall[1],
                        recall10: recall[2],
                        exact,
                        ndcg10_files: ndcg10_files(&case.expect, &answer.hits),
                        ndcg10_chunks: ndcg10_chunks(&case.expect, &answer.hits),
                        ndcg10_binary: ndcg10_binary(&case.expect, &answer.hits),
                        lang: None,
                        split: None,
                        words,
                        ms,
                        chars: answer.chars,
                        text_chars: answer.text_chars,
                        tool: Some(case.tool.name().to_string()),
                        error: None,
                        top: answer.hits.into_iter().take(limit).collect(),
                    }
                }
                Err(e) => CaseResult {
                    suite: suite.to_string(),
                    id: case.id.clone(),
                    category: case.category.name().to_string(),
                    mode: label,
                    rank: None,
                    recall1: 0.0,
                    recall5: 0.0,
                    recall10: 0.0,
                    exact: None,
                    ndcg10_files: ndcg10_files(&case.expect, &[]),
                    ndcg10_chunks: ndcg10_chunks(&case.expect, &[]),
                    ndcg10_binary: ndcg10_binary(&case.expect, &[]),
                    lang: None,
                    split: None,
                    words,
                    ms,
                    chars: 0,
                    text_chars: None,
                    tool: Some(case.tool.name().to_string()),
                    error: Some(format!("{e:#}")),
                    top: Vec::new(),
                },
            };
            out.push(r);
        }
        on_case();
    }
    out
}

/// Aggregated metrics for one (suite, category, mode). Besides the case
/// categories and `all`, `category` is `lang:<language>` for the cases on
/// corpora of one language and `split:<tune|check|holdout>` for one split.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Row {
    pub suite: String,
    pub category: String,
    pub mode: String,
    pub cases: usize,
    pub mrr10: f64,
    pub recall1: f64,
    pub recall5: f64,
    pub recall10: f64,
    /// Share of keyword cases whose set was exact (None when no such case).
    pub exact: Option<f64>,
    /// Mean NDCG@10 over files of the file-level cases (None when none).
    #[serde(default)]
    pub ndcg10_files: Option<f64>,
    /// Mean NDCG@10 over chunks of the file-level cases (None when none).
    #[serde(default)]
    pub ndcg10_chunks: Option<f64>,
    /// Mean binary-relevance NDCG@10 over files of the file-level cases
    /// (None when none, or in reports written before it was recorded).
    #[serde(default)]
    pub ndcg10_binary: Option<f64>,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub avg_chars: f64,
    pub avg_tokens: f64,
    pub failures: usize,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

fn mean_of(values: impl Iterator<Item = Option<f64>>) -> Option<f64> {
    let v: Vec<f64> = values.flatten().collect();
    (!v.is_empty()).then(|| v.iter().fold(0.0, |a, b| a + b) / v.len() as f64)
}

/// A question of at most this many words counts as short in the report's
/// `short:<split>` rows (longer ones are `long:<split>`).
pub const SHORT_QUESTION_WORDS: usize = 7;

/// Groups results by (suite, category, mode) plus an `all` category per
/// (suite, mode), then `lang:<language>` and `split:<split>` groups per
/// (suite, mode) for the results whose corpus gives them, and for their
/// file-level questions (not symbol cases) `short:<split>` / `long:<split>`
/// by the query's word count.
pub fn aggregate(results: &[CaseResult]) -> Vec<Row> {
    // The order part puts the categories and `all` first, then languages,
    // then splits, then the questions by length per split.
    type Key = (String, u8, String, String);
    let mut groups: BTreeMap<Key, Vec<&CaseResult>> = BTreeMap::new();
    for r in results {
        let mut add = |order: u8, category: String| {
            groups
                .entry((r.suite.clone(), order, category, r.mode.clone()))
                .or_default()
                .push(r);
        };
        add(0, r.category.clone());
        add(0, "all".into());
        if let Some(lang) = &r.lang {
            add(1, format!("lang:{lang}"));
        }
        if let Some(split) = &r.split {
            add(2, format!("split:{split}"));
            // Questions as agents often type them ("where is the config
            // loaded") apart from long ones, per split.
            if r.ndcg10_files.is_some() && r.words > 0 && r.category != "symbol" {
                let length = if r.words <= SHORT_QUESTION_WORDS {
                    "short"
                } else {
                    "long"
                };
                add(3, format!("{length}:{split}"));
            }
        }
    }
    let mut rows = Vec::new();
    for ((suite, _, category, mode), rs) in groups {
        let n = rs.len();
        let nf = n.max(1) as f64;
        let mut ms: Vec<f64> = rs.iter().map(|r| r.ms).collect();
        ms.sort_by(|a, b| a.total_cmp(b));
        let exacts: Vec<bool> = rs.iter().filter_map(|r| r.exact).collect();
        let chars: f64 = rs.iter().map(|r| r.chars as f64).sum::<f64>() / nf;
        rows.push(Row {
            suite,
            category,
            mode,
            cases: n,
            mrr10: rs
                .iter()
                .map(|r| r.rank.map(|k| 1.0 / k as f64).unwrap_or(0.0))
                .sum::<f64>()
                / nf,
            recall1: rs.iter().map(|r| r.recall1).sum::<f64>() / nf,
            recall5: rs.iter().map(|r| r.recall5).sum::<f64>() / nf,
            recall10: rs.iter().map(|r| r.recall10).sum::<f64>() / nf,
            exact: (!exacts.is_empty())
                .then(|| exacts.iter().filter(|e| **e).count() as f64 / exacts.len() as f64),
            ndcg10_files: mean_of(rs.iter().map(|r| r.ndcg10_files)),
            ndcg10_chunks: mean_of(rs.iter().map(|r| r.ndcg10_chunks)),
            ndcg10_binary: mean_of(rs.iter().map(|r| r.ndcg10_binary)),
            p50_ms: percentile(&ms, 0.5),
            p95_ms: percentile(&ms, 0.95),
            avg_chars: chars,
            // A common rule of thumb for code and English: ~4 characters a token.
            avg_tokens: chars / 4.0,
            failures: rs.iter().filter(|r| r.error.is_some()).count(),
        });
    }
    rows
}

/// How often hybrid fell clearly below its better arm, for one suite (and
/// one split, or `all`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ArmLoss {
    pub suite: String,
    /// `all`, or `split:<tune|check|holdout>`.
    pub scope: String,
    /// Cases whose hybrid `ndcg10_chunks` is more than [`ARM_LOSS_MARGIN`]
    /// below the best `ndcg10_chunks` of the `bm25`/`semantic` runs.
    pub below: usize,
    /// Cases scored with hybrid and at least one of bm25/semantic.
    pub cases: usize,
}

/// How many characters the answers of `search` cases take, per suite and
/// mode: what an agent reads per call in the default (compact) shape.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct AnswerSize {
    pub suite: String,
    pub mode: String,
    /// Answered `search` cases measured.
    pub answers: usize,
    /// The structured answer (MCP: `structuredContent` as JSON).
    pub json_mean: f64,
    pub json_p95: f64,
    /// The text content (MCP engine runs only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_mean: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_p95: Option<f64>,
}

/// The answer sizes of the `search` cases that answered, per (suite, mode).
pub fn answer_sizes(results: &[CaseResult]) -> Vec<AnswerSize> {
    let mut groups: BTreeMap<(&str, &str), Vec<&CaseResult>> = BTreeMap::new();
    for r in results
        .iter()
        .filter(|r| r.error.is_none() && r.tool.as_deref() == Some(Tool::Search.name()))
    {
        groups
            .entry((r.suite.as_str(), r.mode.as_str()))
            .or_default()
            .push(r);
    }
    let stats = |mut v: Vec<f64>| -> (f64, f64) {
        v.sort_by(|a, b| a.total_cmp(b));
        let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
        (mean, percentile(&v, 0.95))
    };
    groups
        .into_iter()
        .map(|((suite, mode), rs)| {
            let (json_mean, json_p95) = stats(rs.iter().map(|r| r.chars as f64).collect());
            let texts: Vec<f64> = rs
                .iter()
                .filter_map(|r| r.text_chars.map(|c| c as f64))
                .collect();
            let text = (!texts.is_empty()).then(|| stats(texts));
            AnswerSize {
                suite: suite.to_string(),
                mode: mode.to_string(),
                answers: rs.len(),
                json_mean,
                json_p95,
                text_mean: text.map(|t| t.0),
                text_p95: text.map(|t| t.1),
            }
        })
        .collect()
}

/// How far below its better arm hybrid must score to count as a loss.
pub const ARM_LOSS_MARGIN: f64 = 0.1;

/// Counts per suite (and per split) the cases where hybrid's `ndcg10_chunks`
/// is more than [`ARM_LOSS_MARGIN`] below the better of bm25's and
/// semantic's on the same case. Runs that failed (e.g. no vectors for
/// semantic) are left out. Empty when no case has hybrid and an arm.
pub fn arm_losses(results: &[CaseResult]) -> Vec<ArmLoss> {
    // (suite, id) → (split, hybrid, best arm)
    type Scores = (Option<String>, Option<f64>, Option<f64>);
    let mut by_case: BTreeMap<(&str, &str), Scores> = BTreeMap::new();
    for r in results.iter().filter(|r| r.error.is_none()) {
        let Some(v) = r.ndcg10_chunks else { continue };
        let e = by_case.entry((r.suite.as_str(), r.id.as_str())).or_insert((
            r.split.clone(),
            None,
            None,
        ));
        match r.mode.as_str() {
            "hybrid" => e.1 = Some(v),
            "bm25" | "semantic" => e.2 = Some(e.2.map_or(v, |b: f64| b.max(v))),
            _ => {}
        }
    }
    let mut counts: BTreeMap<(String, u8, String), (usize, usize)> = BTreeMap::new();
    for ((suite, _), (split, hybrid, best)) in &by_case {
        let (Some(h), Some(b)) = (hybrid, best) else {
            continue;
        };
        let lost = usize::from(*h < *b - ARM_LOSS_MARGIN);
        let mut add = |order: u8, scope: String| {
            let c = counts.entry((suite.to_string(), order, scope)).or_default();
            c.0 += lost;
            c.1 += 1;
        };
        add(0, "all".into());
        if let Some(split) = split {
            add(1, format!("split:{split}"));
        }
    }
    counts
        .into_iter()
        .map(|((suite, _, scope), (below, cases))| ArmLoss {
            suite,
            scope,
            below,
            cases,
        })
        .collect()
}

/// The plain-grep baseline: `rg` on the query's terms (case-insensitive,
/// literal), files ranked by match count — what an agent without the tool
/// would get.
pub struct GrepBaseline;

impl Engine for GrepBaseline {
    fn answer(&mut self, root: &Path, case: &Case, _mode: &str, _limit: usize) -> Result<Answer> {
        if case.tool == Tool::SearchKeyword {
            // For regex cases the baseline is rg itself with the same pattern.
            let out = std::process::Command::new("rg")
                .args([
                    "-n",
                    "--no-heading",
                    "--with-filename",
                    "-e",
                    &case.query,
                    ".",
                ])
                .current_dir(root)
                .output()?;
            let text = String::from_utf8_lossy(&out.stdout);
            let matches = text
                .lines()
                .filter_map(|l| {
                    let mut it = l.splitn(3, ':');
                    Some(format!(
                        "{}:{}",
                        it.next()?.trim_start_matches("./"),
                        it.next()?
                    ))
                })
                .collect();
            return Ok(Answer {
                hits: Vec::new(),
                matches: Some(matches),
                chars: text.len(),
                text_chars: None,
            });
        }
        let terms = crate::text::query_terms(&case.query);
        if terms.is_empty() {
            return Err(anyhow!("no terms in the query"));
        }
        let mut cmd = std::process::Command::new("rg");
        cmd.args(["--count-matches", "-i", "-F", "--no-messages"])
            .current_dir(root);
        for t in &terms {
            cmd.arg("-e").arg(t);
        }
        cmd.arg(".");
        let out = cmd.output()?;
        let mut files: Vec<(u64, String)> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                let (p, n) = l.rsplit_once(':')?;
                Some((n.parse().ok()?, p.trim_start_matches("./").to_string()))
            })
            .collect();
        files.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        // What the agent would read: the matching lines of the top 10 files.
        let mut chars = 0;
        let top: Vec<PathBuf> = files.iter().take(10).map(|(_, p)| root.join(p)).collect();
        if !top.is_empty() {
            let mut cmd = std::process::Command::new("rg");
            cmd.args(["-n", "-i", "-F", "--no-messages"])
                .current_dir(root);
            for t in &terms {
                cmd.arg("-e").arg(t);
            }
            cmd.args(&top);
            chars = cmd.output().map(|o| o.stdout.len()).unwrap_or(0);
        }
        let hits = files
            .into_iter()
            .map(|(_, path)| Hit {
                path,
                start_line: 1,
                end_line: u32::MAX,
                name: None,
                also: Vec::new(),
            })
            .collect();
        Ok(Answer {
            hits,
            matches: None,
            chars,
            text_chars: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::cases::{Category, Span};

    fn case(expect: Expect) -> Case {
        Case {
            id: "x".into(),
            category: Category::Search,
            corpus: "c".into(),
            tool: Tool::Search,
            mode: None,
            query: "q".into(),
            args: Default::default(),
            expect,
            blank: vec![],
        }
    }

    fn hit(path: &str, s: u32, e: u32) -> Hit {
        Hit {
            path: path.into(),
            start_line: s,
            end_line: e,
            name: None,
            also: Vec::new(),
        }
    }

    /// A case expecting lines 10-20 of `a.py`.
    fn a_py_10_to_20() -> Case {
        case(Expect {
            spans: vec![Span {
                path: "a.py".into(),
                start_line: 10,
                end_line: 20,
            }],
            ..Default::default()
        })
    }

    #[test]
    fn scores_spans_by_overlap() {
        let c = a_py_10_to_20();
        let a = Answer {
            hits: vec![hit("b.py", 1, 50), hit("a.py", 1, 9), hit("a.py", 18, 30)],
            ..Default::default()
        };
        let (rank, recall, _) = score(&c, &a);
        assert_eq!(rank, Some(3));
        assert_eq!(recall, [0.0, 1.0, 1.0]);
    }

    #[test]
    fn a_span_listed_as_also_counts_at_its_hit() {
        let c = a_py_10_to_20();
        let mut first = hit("a.py", 1, 9);
        first.also = vec![hit("a.py", 40, 50), hit("a.py", 18, 30)];
        let a = Answer {
            hits: vec![hit("b.py", 1, 50), first, hit("a.py", 12, 14)],
            ..Default::default()
        };
        let (rank, _, _) = score(&c, &a);
        assert_eq!(rank, Some(2));
    }

    #[test]
    fn aggregates_mrr_and_failures() {
        let mk = |rank: Option<u32>, err: bool| CaseResult {
            suite: "s".into(),
            id: "i".into(),
            category: "search".into(),
            mode: "bm25".into(),
            rank,
            recall1: 0.0,
            recall5: 0.0,
            recall10: 0.0,
            exact: None,
            ndcg10_files: None,
            ndcg10_chunks: None,
            ndcg10_binary: None,
            lang: None,
            split: None,
            words: 0,
            ms: 1.0,
            chars: 8,
            text_chars: None,
            tool: None,
            error: err.then(|| "boom".into()),
            top: vec![],
        };
        let rows = aggregate(&[mk(Some(1), false), mk(Some(2), false), mk(None, true)]);
        let all = rows.iter().find(|r| r.category == "all").expect("all row");
        assert!((all.mrr10 - 0.5).abs() < 1e-9);
        assert_eq!(all.failures, 1);
        assert_eq!(all.avg_tokens, 2.0);
    }

    fn files(primary: &[&str], secondary: &[&str]) -> Expect {
        Expect {
            paths: primary.iter().map(|p| p.to_string()).collect(),
            secondary_paths: secondary.iter().map(|p| p.to_string()).collect(),
            ..Default::default()
        }
    }

    fn hits(paths: &[&str]) -> Vec<Hit> {
        paths.iter().map(|p| hit(p, 1, 2)).collect()
    }

    fn close(a: Option<f64>, b: f64) {
        let a = a.expect("a score");
        assert!((a - b).abs() < 1e-9, "{a} != {b}");
    }

    #[test]
    fn ndcg_files_graded_and_distinct() {
        let e = files(&["a.py"], &["b.py"]);
        // Ideal: a (2) at rank 1, b (1) at rank 2 → 2 + 1/log2(3).
        let ideal = 2.0 + 1.0 / 3f64.log2();
        close(ndcg10_files(&e, &hits(&["a.py", "b.py"])), 1.0);
        // Repeats of a file do not take ranks: x, a, a, b → files x, a, b.
        let got = 2.0 / 3f64.log2() + 1.0 / 4f64.log2();
        close(
            ndcg10_files(&e, &hits(&["x.py", "a.py", "a.py", "b.py"])),
            got / ideal,
        );
        // Secondary first: b (1) at rank 1, a (2) at rank 2.
        close(
            ndcg10_files(&e, &hits(&["b.py", "a.py"])),
            (1.0 + 2.0 / 3f64.log2()) / ideal,
        );
        close(ndcg10_files(&e, &[]), 0.0);
        // Only the first 10 distinct files count.
        let mut many: Vec<String> = (0..10).map(|i| format!("n{i}.py")).collect();
        many.push("a.py".into());
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        close(ndcg10_files(&e, &hits(&many)), 0.0);
        // Not a file-level case.
        assert_eq!(ndcg10_files(&Expect::default(), &hits(&["a.py"])), None);
    }

    #[test]
    fn ndcg_binary_counts_a_secondary_file_as_much_as_a_primary_one() {
        let e = files(&["a.py"], &["b.py", "c.py"]);
        close(ndcg10_binary(&e, &hits(&["a.py", "b.py", "c.py"])), 1.0);
        // Any order of the relevant files is perfect, and a repeat takes
        // no rank, as for files.
        close(
            ndcg10_binary(&e, &hits(&["c.py", "b.py", "b.py", "a.py"])),
            1.0,
        );
        // x, a, b (c missing): gains at ranks 2 and 3 against three at 1-3.
        let ideal = 1.0 + 1.0 / 3f64.log2() + 0.5;
        close(
            ndcg10_binary(&e, &hits(&["x.py", "a.py", "b.py"])),
            (1.0 / 3f64.log2() + 0.5) / ideal,
        );
        // Graded, the same answer missing a secondary file loses less.
        assert!(
            ndcg10_files(&e, &hits(&["a.py", "b.py", "x.py"])).unwrap_or(0.0)
                > ndcg10_binary(&e, &hits(&["a.py", "b.py", "x.py"])).unwrap_or(1.0)
        );
        // A file listed as both counts once; the ideal is cut at 10.
        close(
            ndcg10_binary(&files(&["a.py"], &["a.py"]), &hits(&["a.py"])),
            1.0,
        );
        let many: Vec<String> = (0..12).map(|i| format!("f{i}.py")).collect();
        let refs: Vec<&str> = many.iter().map(String::as_str).collect();
        close(ndcg10_binary(&files(&refs, &[]), &hits(&refs[2..])), 1.0);
        assert_eq!(ndcg10_binary(&Expect::default(), &hits(&["a.py"])), None);
    }

    #[test]
    fn ndcg_chunks_gives_each_file_its_grade_once_but_every_hit_a_rank() {
        let e = files(&["a.py"], &["b.py"]);
        let ideal = 2.0 + 1.0 / 3f64.log2();
        close(ndcg10_chunks(&e, &hits(&["a.py", "b.py"])), 1.0);
        // a, a, b, x: the second `a` takes rank 2 and gains nothing, so b
        // gains at rank 3.
        let got = 2.0 + 1.0 / 4f64.log2();
        close(
            ndcg10_chunks(&e, &hits(&["a.py", "a.py", "b.py", "x.py"])),
            got / ideal,
        );
        // Against files, where the repeat takes no rank, the same answer is
        // perfect.
        close(
            ndcg10_files(&e, &hits(&["a.py", "a.py", "b.py", "x.py"])),
            1.0,
        );
        // Ten hits in the primary file: only the first gains.
        close(ndcg10_chunks(&e, &hits(&["a.py"; 11])), 2.0 / ideal);
        close(ndcg10_chunks(&e, &hits(&["x.py"; 10])), 0.0);
        close(ndcg10_chunks(&e, &[]), 0.0);
        assert_eq!(ndcg10_chunks(&Expect::default(), &hits(&["a.py"])), None);
    }

    fn result(id: &str, mode: &str, chunks: f64, split: Option<&str>) -> CaseResult {
        CaseResult {
            suite: "agent".into(),
            id: id.into(),
            category: "concept".into(),
            mode: mode.into(),
            rank: None,
            recall1: 0.0,
            recall5: 0.0,
            recall10: 0.0,
            exact: None,
            ndcg10_files: Some(chunks),
            ndcg10_chunks: Some(chunks),
            ndcg10_binary: Some(chunks),
            lang: Some("python".into()),
            split: split.map(String::from),
            words: 0,
            ms: 1.0,
            chars: 0,
            text_chars: None,
            tool: Some("search".into()),
            error: None,
            top: vec![],
        }
    }

    #[test]
    fn answer_sizes_of_search_cases() {
        let mut rs: Vec<CaseResult> = (1..=20)
            .map(|i| {
                let mut r = result(&format!("s{i}"), "hybrid", 0.5, None);
                r.chars = i * 100;
                r.text_chars = Some(i * 50);
                r
            })
            .collect();
        let mut other = result("f", "find_symbol", 0.5, None);
        other.tool = Some("find_symbol".into());
        other.chars = 99_999;
        rs.push(other);
        let sizes = answer_sizes(&rs);
        assert_eq!(sizes.len(), 1, "{sizes:?}");
        let a = &sizes[0];
        assert_eq!((a.answers, a.json_mean, a.json_p95), (20, 1050.0, 1900.0));
        assert_eq!((a.text_mean, a.text_p95), (Some(525.0), Some(950.0)));
    }

    #[test]
    fn aggregates_ndcg_per_language_and_split_and_counts_arm_losses() {
        let words = |words: usize, r: CaseResult| CaseResult { words, ..r };
        let rs = vec![
            words(4, result("a", "hybrid", 0.5, Some("tune"))),
            result("a", "bm25", 0.7, Some("tune")),
            result("a", "semantic", 0.2, Some("tune")),
            words(12, result("b", "hybrid", 0.5, Some("check"))),
            result("b", "bm25", 0.55, Some("check")),
            words(7, result("c", "hybrid", 0.1, Some("check"))),
            result("c", "semantic", 0.9, Some("check")),
            words(8, result("d", "hybrid", 0.0, Some("check"))),
        ];
        let rows = aggregate(&rs);
        let row = |cat: &str, mode: &str| {
            rows.iter()
                .find(|r| r.category == cat && r.mode == mode)
                .unwrap_or_else(|| panic!("no row {cat} {mode}"))
        };
        close(row("all", "hybrid").ndcg10_chunks, 0.275);
        close(row("lang:python", "hybrid").ndcg10_files, 0.275);
        close(row("split:check", "hybrid").ndcg10_chunks, 0.2);
        close(row("split:tune", "bm25").ndcg10_chunks, 0.7);
        assert_eq!(row("split:check", "hybrid").cases, 3);
        let cats: Vec<&str> = rows
            .iter()
            .filter(|r| r.mode == "hybrid")
            .map(|r| r.category.as_str())
            .collect();
        assert_eq!(
            cats,
            [
                "all",
                "concept",
                "lang:python",
                "split:check",
                "split:tune",
                "long:check",
                "short:check",
                "short:tune"
            ]
        );
        // Questions of up to 7 words are short, per split.
        close(row("short:check", "hybrid").ndcg10_files, 0.1);
        close(row("long:check", "hybrid").ndcg10_files, 0.25);
        assert_eq!(row("long:check", "hybrid").cases, 2);
        // a loses (0.5 < 0.7 - 0.1), b does not (0.05), c loses, d has no arm.
        let losses = arm_losses(&rs);
        let get = |scope: &str| {
            losses
                .iter()
                .find(|l| l.scope == scope)
                .map(|l| (l.below, l.cases))
        };
        assert_eq!(get("all"), Some((2, 3)));
        assert_eq!(get("split:check"), Some((1, 2)));
        assert_eq!(get("split:tune"), Some((1, 1)));
        // Rows without file-level cases show no NDCG.
        let plain = aggregate(&[CaseResult {
            ndcg10_files: None,
            ndcg10_chunks: None,
            ndcg10_binary: None,
            ..result("e", "bm25", 0.0, None)
        }]);
        assert_eq!(plain[0].ndcg10_chunks, None);
        assert!(arm_losses(&[result("e", "bm25", 0.3, None)]).is_empty());
        // A failed arm is not compared against.
        let failed = CaseResult {
            error: Some("no vectors".into()),
            ..result("f", "semantic", 0.0, None)
        };
        assert!(arm_losses(&[result("f", "hybrid", 0.0, None), failed]).is_empty());
        assert!(ndcg10_files(&files(&["a.py"], &[]), &[]).is_some_and(|v| v.is_sign_positive()));
    }
}
