//! Owns BM25 search over the indexed chunks (SQLite FTS5): the query
//! expression, column weights, filters, path priors and snippets. Does not
//! speak SQL (`store` runs the FTS5 query) or fuse with other arms (that is
//! hybrid search's job).

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use crate::error::{ErrorCode, UserError};
use crate::search::{ChunkFilter, Snippets, chunk_snippet};
use crate::source::Sources;
use crate::store::{ChunkSpan, Store};

#[derive(Debug, Clone, Serialize)]
pub struct ChunkHit {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub symbol: Option<String>,
    pub kind: Option<String>,
    pub lang: String,
    /// Higher is better; BM25 as computed by FTS5 (sign flipped).
    pub score: f64,
    /// First line of `snippet`.
    pub snippet_line: u32,
    /// The most relevant lines of the chunk, bounded in length (empty
    /// when left for later, see `span`).
    pub snippet: String,
    /// The chunk's place in its file, when the snippet was left for the
    /// caller to read ([`Snippets::Later`]).
    #[serde(skip)]
    pub span: Option<ChunkSpan>,
}

/// Weights of the FTS columns: chunk body, enclosing symbol, path. A query
/// word in the symbol's name says far more than one in its body: tuned on
/// the `nl` eval suite (MRR@10 0.239 at 1/2/1, 0.253 at 1/4/2, 0.27 at
/// 1/10-16/3-4; higher symbol weights gave little more).
const COLUMN_WEIGHTS: (f64, f64, f64) = (1.0, 10.0, 3.0);

/// The most subsets a "at least m words" expression may OR together (each
/// is a phrase set FTS5 evaluates).
const MAX_SUBSETS: usize = 10;

/// On a large index ([`crate::store::LARGE_INDEX_CHUNKS`]) with several
/// query words (FTS5 scores every chunk an OR matches before it sorts: on
/// the Linux kernel a common word, "driver" in 60% of the chunks through
/// their paths, made one query cost 0.4-1.4 s),
/// the FTS5 expression for the chunks holding all of them when at least
/// `need` do, else at least all but one, and so on down to two (Lucene's
/// `minimum_should_match`, chosen per query from the counts), with the
/// factor its scores are over the plain OR's; `None` when no level has
/// `need` chunks (the plain OR then). Within a level a chunk holding all
/// the words scores its OR score (each word is in the same number of the
/// level's subsets, all matching, and the factor divides that out); one
/// holding fewer has only its matching subsets scored, so it scores less
/// than under the OR, the fewer words the less (a coordination factor, as
/// in Lucene's classic similarity): on a large index the words that match
/// together are the stronger evidence. FTS5 computes each phrase's IDF
/// with a pass over its postings, once per occurrence in the expression,
/// so levels of more than [`MAX_SUBSETS`] subsets are not tried.
fn level_expression(store: &Store, terms: &[String], need: usize) -> Result<Option<(String, f64)>> {
    let n = terms.len().min(32);
    let terms = &terms[..n];
    // (Fewer than two words: no level.)
    for m in (2..=n).rev() {
        if crate::text::binomial(n, m) > MAX_SUBSETS {
            continue;
        }
        let Some(expr) = crate::text::fts_at_least(terms, m) else {
            continue;
        };
        if store.fts_count_upto(&expr, need)? >= need {
            return Ok(Some((expr, crate::text::binomial(n - 1, m - 1) as f64)));
        }
    }
    Ok(None)
}

/// What a BM25 search matches of the query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    /// Any of its words ([`crate::text::fts_query`]).
    Any,
    /// Its adjacent word pairs as phrases
    /// ([`crate::text::fts_adjacent_pairs`]): the chunks where two of its
    /// words stand next to each other. No hits (not an error) for a query
    /// of fewer than two words.
    AdjacentPairs,
    /// Its words and their synonyms ([`crate::text::fts_synonyms`]): the
    /// chunks that say it in other words too. No hits (not an error) when
    /// none of its words has a synonym.
    Synonyms,
}

/// BM25 search. Returns at most `limit` hits, best first. Snippets are
/// read from the files under `root` (`source::Sources`: each file once); a
/// hit whose file changed since it was indexed shows the lines at its range
/// now, one whose file is gone is dropped.
pub fn search_bm25(
    store: &Store,
    root: &Path,
    query: &str,
    words: Words,
    filter: &ChunkFilter,
    limit: usize,
    snippets: Snippets,
) -> Result<Vec<ChunkHit>> {
    let terms = crate::text::query_terms(query);
    let (fts, large) = match words {
        Words::Any => {
            let Some(fts) = crate::text::fts_query(query) else {
                return Err(UserError::with_code(ErrorCode::InvalidQuery, "the query has no searchable words")
                    .hint("use words or identifiers, e.g. `parse config file`; for punctuation use `repo-search keyword`")
                    .agent("use words or identifiers, e.g. \"parse config file\"; for punctuation or exact text use search_keyword")
                    .into());
            };
            (fts, terms.len() >= 2 && store.is_large()?)
        }
        Words::AdjacentPairs => match crate::text::fts_adjacent_pairs(query) {
            Some(fts) => (fts, false),
            None => return Ok(Vec::new()),
        },
        Words::Synonyms => match crate::text::fts_synonyms(query) {
            Some(fts) => (fts, false),
            None => return Ok(Vec::new()),
        },
    };
    tracing::trace!(?words, fts, "bm25 expression");
    ranked(store, root, &fts, &terms, large, filter, limit, snippets)
}

/// Runs the FTS5 expression `fts` (on a `large` index, the "at least m of
/// `terms`" levels first), keeps the hits `filter` accepts, widening the
/// window when it dropped some, and reads their snippets now or leaves them
/// for later (`snippets`).
#[allow(clippy::too_many_arguments)]
fn ranked(
    store: &Store,
    root: &Path,
    fts: &str,
    terms: &[String],
    large: bool,
    filter: &ChunkFilter,
    limit: usize,
    snippets: Snippets,
) -> Result<Vec<ChunkHit>> {
    // Windows come in fixed steps (100, 400, 1,600, 6,400, …), the first holding
    // four times the hits asked for: two calls that differ only in `limit`
    // (pages) rank from the same windows.
    let mut want = FIRST_WINDOW;
    while want < limit.saturating_mul(4) {
        want *= WINDOW_STEP;
    }
    // A level first needs the hits asked for; after filters dropped some,
    // the whole widened window.
    let mut need = limit.max(1);
    loop {
        // (hit without snippet, where its text is)
        let mut hits: Vec<(ChunkHit, ChunkSpan)> = Vec::new();
        let mut seen = 0usize;
        // The lowest full-text score in the window: a match left out of it
        // scores at most this before the path prior (at most 1) lowers it.
        let mut floor = f64::INFINITY;
        let level = if large {
            level_expression(store, terms, need)?
        } else {
            None
        };
        let leveled = level.is_some();
        let (expr, factor) = level.unwrap_or_else(|| (fts.to_string(), 1.0));
        store.fts_chunks(&expr, COLUMN_WEIGHTS, want, |r| {
            seen += 1;
            floor = floor.min(-r.score / factor);
            if !filter.accepts(r.path, r.lang) {
                return;
            }
            let score = -r.score / factor * crate::search::chunk_prior(r.path, r.lang, r.symbol);
            hits.push((
                ChunkHit {
                    path: r.path.to_string(),
                    start_line: r.start_line,
                    end_line: r.end_line,
                    symbol: r.symbol.map(str::to_string),
                    kind: r.kind.map(str::to_string),
                    lang: r.lang.to_string(),
                    score,
                    snippet_line: r.start_line,
                    snippet: String::new(),
                    span: None,
                },
                r.span,
            ));
        })?;
        hits.sort_by(|(a, _), (b, _)| {
            b.score
                .total_cmp(&a.score)
                .then(a.path.cmp(&b.path))
                .then(a.start_line.cmp(&b.start_line))
        });
        // Filters may have dropped hits, or the path prior lowered enough of
        // them that a match outside the window could rank among the first
        // `limit`: widen the window and retry, unless every match of the
        // plain OR was already seen.
        let complete = seen < want && !leveled;
        let settled = hits.len() >= limit
            && (leveled
                || want >= PRIOR_WINDOW_CAP
                || hits
                    .get(limit.max(1) - 1)
                    .is_some_and(|(h, _)| h.score >= floor));
        if settled || complete || want >= 100_000 {
            let mut sources = Sources::new(root);
            let mut out = Vec::with_capacity(limit.min(hits.len()));
            for (mut h, span) in hits {
                if out.len() == limit {
                    break;
                }
                match snippets {
                    Snippets::Read(lines) => {
                        let Some((line, snippet)) = chunk_snippet(
                            &mut sources,
                            &h.path,
                            &span,
                            (h.start_line, h.end_line),
                            terms,
                            lines,
                        ) else {
                            continue;
                        };
                        h.snippet_line = line;
                        h.snippet = snippet;
                    }
                    Snippets::Later => h.span = Some(span),
                }
                out.push(h);
            }
            return Ok(out);
        }
        want *= WINDOW_STEP;
        need = want;
    }
}

/// The first full-text window of [`ranked`], and how much each next one
/// grows.
const FIRST_WINDOW: usize = 100;
const WINDOW_STEP: usize = 4;
/// The window past which the path prior no longer widens it (filters still
/// do): 6,400 chunks.
const PRIOR_WINDOW_CAP: usize = 6_400;
