//! Owns running eval cases and scoring them: each case goes through an
//! engine (the library as the CLI calls it, the real MCP server over stdio,
//! or a plain-grep baseline), answers are scored (MRR@10, recall@1/5/10,
//! exact-set accuracy) and aggregated per suite, category and mode.

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
}

/// What an engine returned for a case.
#[derive(Debug, Clone, Default)]
pub struct Answer {
    pub hits: Vec<Hit>,
    /// For keyword cases: the `path:line` set returned.
    pub matches: Option<Vec<String>>,
    /// Characters of the serialized answer (what an agent would read).
    pub chars: usize,
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
    pub ms: f64,
    pub chars: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The hits (paths and spans, up to `--limit`), to compare runs and
    /// engines and to tune fusion offline.
    pub top: Vec<Hit>,
}

fn relevant(expect: &Expect, h: &Hit) -> Vec<usize> {
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
                        ms,
                        chars: answer.chars,
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
                    ms,
                    chars: 0,
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

/// Aggregated metrics for one (suite, category, mode).
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

/// Groups results by (suite, category, mode) plus an `all` category per
/// (suite, mode).
pub fn aggregate(results: &[CaseResult]) -> Vec<Row> {
    let mut groups: BTreeMap<(String, String, String), Vec<&CaseResult>> = BTreeMap::new();
    for r in results {
        groups
            .entry((r.suite.clone(), r.category.clone(), r.mode.clone()))
            .or_default()
            .push(r);
        groups
            .entry((r.suite.clone(), "all".into(), r.mode.clone()))
            .or_default()
            .push(r);
    }
    let mut rows = Vec::new();
    for ((suite, category, mode), rs) in groups {
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
            })
            .collect();
        Ok(Answer {
            hits,
            matches: None,
            chars,
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
        }
    }

    #[test]
    fn scores_spans_by_overlap() {
        let c = case(Expect {
            spans: vec![Span {
                path: "a.py".into(),
                start_line: 10,
                end_line: 20,
            }],
            ..Default::default()
        });
        let a = Answer {
            hits: vec![hit("b.py", 1, 50), hit("a.py", 1, 9), hit("a.py", 18, 30)],
            ..Default::default()
        };
        let (rank, recall, _) = score(&c, &a);
        assert_eq!(rank, Some(3));
        assert_eq!(recall, [0.0, 1.0, 1.0]);
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
            ms: 1.0,
            chars: 8,
            error: err.then(|| "boom".into()),
            top: vec![],
        };
        let rows = aggregate(&[mk(Some(1), false), mk(Some(2), false), mk(None, true)]);
        let all = rows.iter().find(|r| r.category == "all").expect("all row");
        assert!((all.mrr10 - 0.5).abs() < 1e-9);
        assert_eq!(all.failures, 1);
        assert_eq!(all.avg_tokens, 2.0);
    }
}
