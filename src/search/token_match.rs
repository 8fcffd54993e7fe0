//! Owns the token match of a question against hybrid search's candidate
//! chunks: each of the question's tokens meets the most similar token of a
//! chunk (its path, name and text) through the fast model's token vectors,
//! and the chunk scores the share of the question's weight it meets. Does
//! not fetch candidates or fuse them (`hybrid` does: the best files by this
//! score join the file ranking as one more list).
//!
//! Why: the fast model averages a chunk's tokens into one vector, so a
//! question's few words drown in a chunk's code; rank fusion counts how a
//! chunk ranks in each arm, not how much of the question it holds. Here a
//! chunk holding most of the question's weighty words, or close relatives
//! of them (`application` for `app`, `validates` for `validate`), scores
//! high whatever else it holds. Measured on the `agent` suite's questions
//! (`scripts/fusion-lab.py`): NDCG@10 files tuning half .878 → .880,
//! checking half .851 → .862, holdout (cases written afterwards, not
//! tuned on) .796 → .814.

use anyhow::Result;

use crate::embed::TokenTable;
use crate::search::semantic::dot;

/// A chunk token at least this similar to a question token counts by its
/// similarity; below, not at all.
const NEAR: f32 = 0.6;
/// At least this similar is the same token (rounding aside): it counts 1.
const SAME: f32 = 0.99;

/// The question's tokens: unit vectors and weights (the vectors' lengths,
/// which the static model scales by how telling a token is).
pub struct Question {
    units: Vec<Vec<f32>>,
    weights: Vec<f32>,
}

/// Splits `camelCase` boundaries and underscores into spaces, so a name's
/// words tokenize as words.
fn split_words(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut prev: Option<char> = None;
    for c in s.chars() {
        if c == '_' {
            out.push(' ');
        } else {
            if c.is_ascii_uppercase()
                && prev.is_some_and(|p| p.is_ascii_lowercase() || p.is_ascii_digit())
            {
                out.push(' ');
            }
            out.push(c);
        }
        prev = Some(c);
    }
    out
}

fn unit(v: &[f32]) -> (Vec<f32>, f32) {
    let norm = dot(v, v).sqrt();
    let v = if norm > 0.0 {
        v.iter().map(|x| x / norm).collect()
    } else {
        v.to_vec()
    };
    (v, norm)
}

impl Question {
    /// The question's tokens, stopwords left out; `None` when none is left.
    pub fn new(table: &dyn TokenTable, query: &str) -> Result<Option<Question>> {
        let split = split_words(query);
        let words: Vec<&str> = split
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty() && !crate::text::is_stopword(&w.to_ascii_lowercase()))
            .collect();
        let mut ids = Vec::new();
        table.token_ids(&words.join(" "), &mut ids);
        let mut seen = std::collections::HashSet::new();
        ids.retain(|id| seen.insert(*id));
        if ids.is_empty() {
            return Ok(None);
        }
        let mut q = Question {
            units: Vec::with_capacity(ids.len()),
            weights: Vec::with_capacity(ids.len()),
        };
        for id in ids {
            let (u, w) = unit(&table.token_vector(id)?);
            q.units.push(u);
            q.weights.push(w);
        }
        Ok(Some(q))
    }

    /// Each text's score (0–1): the weighted share of the question's
    /// tokens it holds, a near token counting its similarity.
    pub fn scores(&self, table: &dyn TokenTable, texts: &[String]) -> Result<Vec<f64>> {
        let tokens = table.distinct_token_ids(texts, split_words);
        // Similarities to the question, once per distinct token: slot `i`
        // holds token `distinct[i]`'s, one per question token, and
        // `slot[id]` is token `id`'s slot (a table indexed by id: sorting
        // the 30k ids of 100 chunks to find the distinct ones took longer
        // than the similarities).
        let top = tokens
            .iter()
            .flat_map(|t| t.iter().copied())
            .max()
            .unwrap_or(0);
        let mut slot = vec![u32::MAX; top as usize + 1];
        let mut distinct: Vec<u32> = Vec::new();
        for &id in tokens.iter().flat_map(|t| t.iter()) {
            let s = &mut slot[id as usize];
            if *s == u32::MAX {
                *s = distinct.len() as u32;
                distinct.push(id);
            }
        }
        let nq = self.units.len();
        // Row `i` (`nq` wide) holds token `distinct[i]`'s cosines.
        let mut sims: Vec<f32> = Vec::with_capacity(distinct.len() * nq);
        table.each_token_vector(&distinct, &mut |v| {
            let norm = dot(v, v).sqrt();
            let scale = if norm > 0.0 { 1.0 / norm } else { 1.0 };
            sims.extend(self.units.iter().map(|q| dot(q, v) * scale));
        })?;
        let total: f32 = self.weights.iter().sum();
        let mut best = vec![f32::MIN; nq];
        let mut out = Vec::with_capacity(texts.len());
        for ids in &tokens {
            best.fill(f32::MIN);
            for &id in ids.iter() {
                let slot = slot[id as usize] as usize;
                for (b, &x) in best.iter_mut().zip(&sims[slot * nq..(slot + 1) * nq]) {
                    *b = b.max(x);
                }
            }
            let met: f32 = best
                .iter()
                .zip(&self.weights)
                .map(|(&m, &w)| {
                    w * if m > SAME {
                        1.0
                    } else if m > NEAR {
                        m
                    } else {
                        0.0
                    }
                })
                .sum();
            out.push(if total > 0.0 {
                (met / total) as f64
            } else {
                0.0
            });
        }
        Ok(out)
    }
}

/// A candidate's lines are matched up to this many bytes: a long chunk's
/// head (its signature, its doc comment) holds what a question names, and
/// tokenizing is most of the match's time. On the `agent` suite, 2,000
/// bytes score as the whole chunk on both halves, 1,000 lose .005 on the
/// checking half.
const TEXT_BYTES: usize = 2_000;

/// The text a candidate is matched as: its path's parts, its name, the
/// head of its lines.
pub fn candidate_text(path: &str, symbol: Option<&str>, lines: &str) -> String {
    let mut end = lines.len().min(TEXT_BYTES);
    while !lines.is_char_boundary(end) {
        end -= 1;
    }
    let mut s = String::with_capacity(path.len() + end + 40);
    s.push_str(&path.replace('/', " "));
    s.push(' ');
    s.push_str(symbol.unwrap_or_default());
    s.push(' ');
    s.push_str(&lines[..end]);
    s
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// A table of three-dimensional vectors over a toy vocabulary, words
    /// split at spaces.
    struct Toy(HashMap<&'static str, (u32, Vec<f32>)>);

    impl TokenTable for Toy {
        fn token_ids(&self, text: &str, out: &mut Vec<u32>) {
            for w in text.split_whitespace() {
                if let Some((id, _)) = self.0.get(w.to_lowercase().as_str()) {
                    out.push(*id);
                }
            }
        }
        fn token_vector(&self, id: u32) -> Result<std::sync::Arc<[f32]>> {
            Ok(self
                .0
                .values()
                .find(|(i, _)| *i == id)
                .map(|(_, v)| v.as_slice().into())
                .unwrap_or_else(|| Vec::new().into()))
        }
    }

    fn toy() -> Toy {
        Toy(HashMap::from([
            ("timeout", (1, vec![2.0, 0.0, 0.0])),
            ("deadline", (2, vec![1.6, 1.2, 0.0])),
            ("cancel", (3, vec![0.0, 0.0, 1.0])),
            ("parse", (4, vec![0.0, 3.0, 0.1])),
        ]))
    }

    #[test]
    fn splits_names_into_words() {
        assert_eq!(split_words("getHTTPResponse"), "get HTTPResponse");
        assert_eq!(split_words("read_to_end2Now"), "read to end2 Now");
    }

    #[test]
    fn a_chunk_scores_the_weighted_share_of_the_question_it_holds() {
        let t = toy();
        let q = Question::new(&t, "how to cancel on a timeout")
            .expect("reads")
            .expect("tokens");
        let texts = [
            "timeout cancel".to_string(),
            "timeout".to_string(),
            // deadline · timeout = 0.8: near, so it counts 0.8 of the weight.
            "deadline".to_string(),
            "parse".to_string(),
        ];
        let s = q.scores(&t, &texts).expect("scores");
        assert!((s[0] - 1.0).abs() < 1e-6, "{s:?}");
        // timeout weighs 2, cancel 1.
        assert!((s[1] - 2.0 / 3.0).abs() < 1e-6, "{s:?}");
        assert!((s[2] - 0.8 * 2.0 / 3.0).abs() < 1e-6, "{s:?}");
        assert_eq!(s[3], 0.0);
        assert!(Question::new(&t, "how is it").expect("reads").is_none());
    }
}
