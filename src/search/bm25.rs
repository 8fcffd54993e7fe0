//! Owns BM25 search over the indexed chunks (SQLite FTS5): the query
//! expression, column weights, filters, path priors and snippets. Does not
//! speak SQL (`store` runs the FTS5 query) or fuse with other arms (that is
//! hybrid search's job).

use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use crate::error::{ErrorCode, UserError};
use crate::search::{ChunkFilter, best_snippet};
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
    /// The most relevant lines of the chunk, bounded in length.
    pub snippet: String,
}

/// Weights of the FTS columns: chunk body, enclosing symbol, path. A query
/// word in the symbol's name says far more than one in its body: tuned on
/// the `nl` eval suite (MRR@10 0.239 at 1/2/1, 0.253 at 1/4/2, 0.27 at
/// 1/10-16/3-4; higher symbol weights gave little more).
const COLUMN_WEIGHTS: (f64, f64, f64) = (1.0, 10.0, 3.0);

/// BM25 search. Returns at most `limit` hits, best first. Snippets are
/// read from the files under `root` (`source::Sources`: each file once); a
/// hit whose file changed since it was indexed shows the lines at its range
/// now, one whose file is gone is dropped.
pub fn search_bm25(
    store: &Store,
    root: &Path,
    query: &str,
    filter: &ChunkFilter,
    limit: usize,
    snippet_lines: usize,
) -> Result<Vec<ChunkHit>> {
    let Some(fts) = crate::text::fts_query(query) else {
        return Err(UserError::with_code(ErrorCode::InvalidQuery, "the query has no searchable words")
            .hint("use words or identifiers, e.g. `parse config file`; for punctuation use `repo-search keyword`")
            .agent("use words or identifiers, e.g. \"parse config file\"; for punctuation or exact text use search_keyword")
            .into());
    };
    let terms = crate::text::query_terms(query);
    let mut want = (limit * 4).max(100);
    loop {
        // (hit without snippet, where its text is)
        let mut hits: Vec<(ChunkHit, ChunkSpan)> = Vec::new();
        let mut seen = 0usize;
        store.fts_chunks(&fts, COLUMN_WEIGHTS, want, |r| {
            seen += 1;
            if !filter.accepts(r.path, r.lang) {
                return;
            }
            let score = -r.score * crate::search::path_prior(r.path, r.lang);
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
                },
                r.span,
            ));
        })?;
        // Filters may have dropped hits: widen the candidate window and retry,
        // unless every match was already seen.
        if hits.len() >= limit || seen < want || want >= 100_000 {
            hits.sort_by(|(a, _), (b, _)| {
                b.score
                    .total_cmp(&a.score)
                    .then(a.path.cmp(&b.path))
                    .then(a.start_line.cmp(&b.start_line))
            });
            let mut sources = Sources::new(root);
            let mut out = Vec::with_capacity(limit.min(hits.len()));
            for (mut h, span) in hits {
                if out.len() == limit {
                    break;
                }
                let Some(text) = sources.shown(&h.path, &span, h.start_line, h.end_line) else {
                    continue;
                };
                let (line, snippet) = best_snippet(&text, h.start_line, &terms, snippet_lines);
                h.snippet_line = line;
                h.snippet = snippet;
                out.push(h);
            }
            return Ok(out);
        }
        want *= 8;
    }
}
