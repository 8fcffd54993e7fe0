//! Warm BM25 for long-lived readers: each query word's postings (its rows
//! and hits per column) read once per index generation and kept, so an OR
//! of words is scored term at a time in memory instead of by FTS5.
//!
//! FTS5 merges an OR's posting lists row by row and calls the ranking
//! function on every row it matches, which asks each phrase for its hits:
//! on Django's 45k chunks the synonym arm's OR of 30 words matches 20k rows
//! and took 12-20 ms, two-thirds of it in those per-row calls. Questions
//! share most of their words and synonyms, so a server that keeps each
//! word's postings scores such an OR in about a millisecond.
//!
//! The scores are FTS5's `bm25()` to the bit, as [`super::bm25_topk`]'s
//! are: the same IDF (a word's rows), the same average length and row
//! lengths (FTS5's own totals and `%_docsize` rows), the same per-phrase
//! terms added in phrase order (a phrase a row lacks adds exactly 0.0
//! there), and column weights that are whole numbers (so a row's weighted
//! hits are the same in any order). Only expressions that are an OR of
//! quoted single-token phrases, as `text::fts_query` and
//! `text::fts_synonyms` make them, take this path; anything else (a
//! phrase of two tokens, an index past [`MAX_ROWS`]) goes to FTS5.
//!
//! Everything is dropped when the full-text index changes (every commit
//! that writes full-text rows bumps [`meta::FTS_VERSION`]); a reader whose
//! snapshot is older than the cache's uses FTS5 for that query.

#![allow(unsafe_code)] // reviewed: FTS5's C extension API, see SAFETY notes

use std::collections::HashMap;
use std::ffi::c_int;
use std::sync::{Arc, Mutex};

use rusqlite::{OptionalExtension, ffi, params};

use super::bm25_topk::{Fts5Api, create_function, each_hit, idf_of, norm_of, phrase_part};
use super::{FtsRow, Store, meta};

/// Indexes with more rows than this (by their largest chunk id) are left
/// to FTS5: a generation's row lengths would be a large read per commit.
pub const MAX_ROWS: usize = 1 << 20;

/// Postings kept across all words before the cache starts over (16 bytes
/// each: 32 MiB).
const MAX_HELD: usize = 2 << 20;

/// One row's hits of a word.
#[derive(Clone, Copy)]
struct Hit {
    row: u32,
    body: u32,
    symbol: u16,
    path: u16,
}

/// The index totals `bm25()` reads: its row count, average row length and
/// each row's length (by rowid; `u32::MAX` for none).
struct Totals {
    rows: i64,
    avgdl: f64,
    lens: Vec<u32>,
}

#[derive(Default)]
struct Inner {
    /// The full-text index version everything below was read at: its
    /// [`meta::FTS_VERSION`] and largest rowid (a rebuilt index starts its
    /// count again).
    generation: Option<(u64, i64)>,
    totals: Option<Arc<Totals>>,
    /// The index is past [`MAX_ROWS`] (or its sizes do not read): FTS5
    /// ranks every expression until the generation moves.
    unserved: bool,
    /// Each phrase string's postings; `None` when it is not one token
    /// (FTS5 ranks such expressions).
    terms: HashMap<String, Option<Arc<Vec<Hit>>>>,
    held: usize,
}

/// Postings shared by the connections of one long-lived reader (a
/// server's pool); see the module doc.
#[derive(Default)]
pub struct TermCache {
    inner: Mutex<Inner>,
}

impl TermCache {
    pub fn new() -> TermCache {
        TermCache::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The phrases of `expr` when it is an OR of quoted strings
/// (`"a" OR "b"`, quotes inside doubled), else `None`.
fn or_of_strings(expr: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    let mut rest = expr;
    loop {
        if !rest.starts_with('"') {
            return None;
        }
        let mut phrase = String::new();
        let mut end = None;
        let bytes = rest.as_bytes();
        let mut i = 1;
        while i < bytes.len() {
            if bytes[i] == b'"' {
                if bytes.get(i + 1) == Some(&b'"') {
                    phrase.push('"');
                    i += 2;
                    continue;
                }
                end = Some(i);
                break;
            }
            let ch = rest[i..].chars().next()?;
            phrase.push(ch);
            i += ch.len_utf8();
        }
        let end = end?;
        out.push(phrase);
        rest = &rest[end + 1..];
        if rest.is_empty() {
            return Some(out);
        }
        rest = rest.strip_prefix(" OR ")?;
    }
}

/// Reads a SQLite varint (as FTS5 writes its sizes) at the start of `b`:
/// the value and its length.
fn varint(b: &[u8]) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for i in 0..8 {
        let c = *b.get(i)?;
        v = (v << 7) | u64::from(c & 0x7f);
        if c & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    Some(((v << 8) | u64::from(*b.get(8)?), 9))
}

impl Store {
    /// Lets this connection score ORs of words from `cache`'s postings
    /// (see the module doc): for the connections of a long-lived reader.
    pub fn with_term_cache(mut self, cache: Arc<TermCache>) -> Store {
        self.terms = Some(cache);
        self
    }

    /// [`Store::fts_chunks`] from the term cache, in one read snapshot
    /// (the version, the postings, the totals and the rows read by id):
    /// `false` when the cache does not serve the expression (nothing was
    /// called).
    pub(super) fn fts_chunks_cached(
        &self,
        match_expr: &str,
        weights: (f64, f64, f64),
        limit: usize,
        f: &mut dyn FnMut(FtsRow<'_>),
    ) -> rusqlite::Result<bool> {
        if self.terms.is_none() {
            return Ok(false);
        }
        let _snapshot = if self.conn.is_autocommit() {
            Some(self.conn.unchecked_transaction()?)
        } else {
            None
        };
        match self.cached_top(match_expr, weights, limit)? {
            Some(top) => self.cached_rows(&top, f).map(|()| true),
            None => Ok(false),
        }
    }

    /// The best `limit` rows of `match_expr` with their `bm25()` scores
    /// (negative, best first, then by rowid), from the term cache; `None`
    /// when this connection has none or the expression or index is not
    /// one it serves (the caller asks FTS5).
    pub(super) fn cached_top(
        &self,
        match_expr: &str,
        weights: (f64, f64, f64),
        limit: usize,
    ) -> rusqlite::Result<Option<Vec<(i64, f64)>>> {
        let Some(cache) = &self.terms else {
            return Ok(None);
        };
        let whole = |w: f64| w.fract() == 0.0 && w > 0.0 && w < f64::from(1u32 << 20);
        if limit == 0 || !(whole(weights.0) && whole(weights.1) && whole(weights.2)) {
            return Ok(None);
        }
        let Some(phrases) = or_of_strings(match_expr) else {
            return Ok(None);
        };
        let generation = (
            self.meta_u64(meta::FTS_VERSION)?,
            self.conn
                .prepare_cached("SELECT coalesce(max(id), 0) FROM chunks_fts_docsize")?
                .query_row([], |r| r.get::<_, i64>(0))?,
        );
        let (mut totals, mut have, missing) = {
            let mut inner = cache.lock();
            match inner.generation {
                Some(g) if g == generation => {}
                // A reader behind the cache's snapshot.
                Some(g) if g.0 > generation.0 => return Ok(None),
                _ => {
                    *inner = Inner {
                        generation: Some(generation),
                        ..Inner::default()
                    }
                }
            }
            if inner.unserved {
                return Ok(None);
            }
            let mut have: HashMap<String, Arc<Vec<Hit>>> = HashMap::new();
            let mut missing: Vec<String> = Vec::new();
            for p in &phrases {
                match inner.terms.get(p) {
                    Some(Some(hits)) => {
                        have.insert(p.clone(), Arc::clone(hits));
                    }
                    Some(None) => return Ok(None),
                    None if !missing.contains(p) => missing.push(p.clone()),
                    None => {}
                }
            }
            (inner.totals.clone(), have, missing)
        };
        let mut fetched: Vec<(String, Option<Arc<Vec<Hit>>>)> = Vec::new();
        for p in missing {
            let hits = self.term_postings(&p)?.map(Arc::new);
            if let Some(h) = &hits {
                have.insert(p.clone(), Arc::clone(h));
            }
            fetched.push((p, hits));
        }
        let serves = fetched.iter().all(|(_, h)| h.is_some());
        let mut unserved = false;
        if totals.is_none() && serves {
            // The totals come through a row of a word that has one.
            let any = have.iter().find(|(_, h)| !h.is_empty()).map(|(p, _)| p);
            if let Some(p) = any {
                totals = self.fts_totals(p)?.map(Arc::new);
                unserved = totals.is_none();
            }
        }
        {
            let mut inner = cache.lock();
            if inner.generation == Some(generation) {
                for (p, hits) in fetched {
                    // Another connection may have read it meanwhile.
                    if inner.terms.contains_key(&p) {
                        continue;
                    }
                    let n = hits.as_ref().map_or(0, |h| h.len());
                    if inner.held + n > MAX_HELD {
                        inner.terms.clear();
                        inner.held = 0;
                    }
                    inner.held += n;
                    inner.terms.insert(p, hits);
                }
                if inner.totals.is_none() {
                    inner.totals = totals.clone();
                }
                inner.unserved |= unserved;
            }
        }
        if !serves {
            return Ok(None);
        }
        let Some(totals) = totals else {
            // No word of the expression is in any row.
            return Ok(if have.values().all(|h| h.is_empty()) {
                Some(Vec::new())
            } else {
                None
            });
        };
        Ok(Some(score(&totals, &phrases, &have, weights, limit)))
    }

    /// Each row of the one-token phrase `phrase` with its hits per column;
    /// `None` when the phrase is not one token, a count does not fit, or a
    /// rowid is past [`MAX_ROWS`].
    fn term_postings(&self, phrase: &str) -> rusqlite::Result<Option<Vec<Hit>>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT rowid, rs_term_hits(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH ?1",
        )?;
        let mut rows = stmt.query(params![crate::text::fts_string(phrase)])?;
        let mut hits = Vec::new();
        while let Some(r) = rows.next()? {
            let row: i64 = r.get(0)?;
            let Some(packed) = r.get::<_, Option<i64>>(1)? else {
                return Ok(None);
            };
            if !(0..MAX_ROWS as i64).contains(&row) {
                return Ok(None);
            }
            hits.push(Hit {
                row: row as u32,
                body: (packed & 0xffff_ffff) as u32,
                symbol: ((packed >> 32) & 0xffff) as u16,
                path: ((packed >> 48) & 0x7fff) as u16,
            });
        }
        Ok(Some(hits))
    }

    /// FTS5's row count and average row length (read through a row of
    /// `phrase`), and every row's length from `%_docsize`.
    fn fts_totals(&self, phrase: &str) -> rusqlite::Result<Option<Totals>> {
        let counts = self
            .conn
            .prepare_cached(
                "SELECT rs_fts_total(chunks_fts, 0), rs_fts_total(chunks_fts, 1) FROM chunks_fts
                 WHERE chunks_fts MATCH ?1 LIMIT 1",
            )?
            .query_row(params![crate::text::fts_string(phrase)], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?))
            })
            .optional()?;
        let Some((rows, tokens)) = counts else {
            return Ok(None);
        };
        let mut lens: Vec<u32> = Vec::new();
        let mut stmt = self
            .conn
            .prepare_cached("SELECT id, sz FROM chunks_fts_docsize")?;
        let mut q = stmt.query([])?;
        while let Some(r) = q.next()? {
            let id: i64 = r.get(0)?;
            let Ok(at) = usize::try_from(id) else {
                return Ok(None);
            };
            if at >= MAX_ROWS {
                return Ok(None);
            }
            let sz = r.get_ref(1)?.as_blob_or_null()?.unwrap_or_default();
            let (mut len, mut off) = (0u64, 0usize);
            while off < sz.len() {
                let Some((v, n)) = varint(&sz[off..]) else {
                    return Ok(None);
                };
                len += v;
                off += n;
            }
            if at >= lens.len() {
                lens.resize(at + 1, u32::MAX);
            }
            lens[at] = u32::try_from(len).unwrap_or(u32::MAX - 1);
        }
        Ok(Some(Totals {
            rows,
            avgdl: tokens as f64 / rows as f64,
            lens,
        }))
    }

    /// The rows `cached_top` ranked, as [`Store::fts_chunks`] reads them:
    /// best first, then by path and start line. Rows whose chunk is gone
    /// are skipped (as the join skips them).
    fn cached_rows(
        &self,
        top: &[(i64, f64)],
        f: &mut dyn FnMut(FtsRow<'_>),
    ) -> rusqlite::Result<()> {
        let ids: Vec<i64> = top.iter().map(|&(id, _)| id).collect();
        let chunks = self.chunk_rows(&ids)?;
        let mut rows: Vec<(f64, &super::ChunkRow)> = top
            .iter()
            .filter_map(|(id, score)| chunks.get(id).map(|c| (*score, c)))
            .collect();
        rows.sort_by(|(sa, a), (sb, b)| {
            sa.total_cmp(sb)
                .then_with(|| a.path.cmp(&b.path))
                .then(a.start_line.cmp(&b.start_line))
        });
        for (score, c) in rows {
            f(FtsRow {
                chunk_id: c.chunk_id,
                path: &c.path,
                lang: &c.lang,
                start_line: c.start_line,
                end_line: c.end_line,
                symbol: c.symbol.as_deref(),
                kind: c.kind.as_deref(),
                score,
                span: c.span,
            });
        }
        Ok(())
    }
}

/// `bm25()` of every row the phrases match, term at a time in phrase
/// order; the best `limit` (negative scores, best first, then by rowid).
fn score(
    totals: &Totals,
    phrases: &[String],
    postings: &HashMap<String, Arc<Vec<Hit>>>,
    (w_body, w_symbol, w_path): (f64, f64, f64),
    limit: usize,
) -> Vec<(i64, f64)> {
    let mut acc: Vec<f64> = vec![0.0; totals.lens.len()];
    let mut seen: Vec<bool> = vec![false; totals.lens.len()];
    let mut touched: Vec<u32> = Vec::new();
    for p in phrases {
        let Some(hits) = postings.get(p) else {
            continue;
        };
        let idf = idf_of(totals.rows, hits.len() as i64);
        for h in hits.iter() {
            let at = h.row as usize;
            let Some(&len) = totals.lens.get(at) else {
                continue;
            };
            if len == u32::MAX {
                continue;
            }
            let f = f64::from(h.body) * w_body
                + f64::from(h.symbol) * w_symbol
                + f64::from(h.path) * w_path;
            if !seen[at] {
                seen[at] = true;
                touched.push(h.row);
            }
            acc[at] += phrase_part(idf, f, norm_of(f64::from(len), totals.avgdl));
        }
    }
    let mut scored: Vec<(i64, f64)> = touched
        .into_iter()
        .map(|r| (i64::from(r), -acc[r as usize]))
        .collect();
    let order = |a: &(i64, f64), b: &(i64, f64)| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0));
    if scored.len() > limit {
        scored.select_nth_unstable_by(limit - 1, order);
        scored.truncate(limit);
    }
    scored.sort_by(order);
    scored
}

/// Makes the term cache's auxiliary functions callable: `rs_term_hits`,
/// `rs_fts_total`.
pub(super) fn register(api: &Fts5Api) -> rusqlite::Result<()> {
    create_function(api, c"rs_term_hits", term_hits)?;
    create_function(api, c"rs_fts_total", fts_total)
}

/// `rs_term_hits(chunks_fts)`: for a MATCH of one single-token phrase, the
/// row's hits of it per column, packed (body in bits 0-31, symbol 32-47,
/// path 48-62); NULL for any other expression or a count that does not fit.
unsafe extern "C" fn term_hits(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    _n_val: c_int,
    _vals: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5 passes a valid API and context for this call.
    unsafe {
        match row_hits(&*api, fts) {
            Ok(Some(v)) => ffi::sqlite3_result_int64(ctx, v),
            Ok(None) => ffi::sqlite3_result_null(ctx),
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

/// # Safety
/// The arguments are the ones FTS5 passed to the current call.
unsafe fn row_hits(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
) -> Result<Option<i64>, c_int> {
    let (Some(count), Some(size), Some(first), Some(next)) = (
        api.xPhraseCount,
        api.xPhraseSize,
        api.xPhraseFirst,
        api.xPhraseNext,
    ) else {
        return Err(ffi::SQLITE_MISUSE);
    };
    // SAFETY: as the caller's.
    unsafe {
        if count(fts) != 1 || size(fts, 0) != 1 {
            return Ok(None);
        }
        let (mut per, mut other) = ([0u64; 3], false);
        each_hit(first, next, fts, 0, |col| match per.get_mut(col as usize) {
            Some(n) => *n += 1,
            None => other = true,
        })?;
        if other || per[0] > u64::from(u32::MAX) || per[1] > 0xffff || per[2] > 0x7fff {
            return Ok(None);
        }
        Ok(Some((per[0] | (per[1] << 32) | (per[2] << 48)) as i64))
    }
}

/// `rs_fts_total(chunks_fts, what)`: the table's row count (`what` 0) or
/// the tokens of every row and column (1), as `bm25()` reads them for the
/// IDF and the average row length.
unsafe extern "C" fn fts_total(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_val: c_int,
    vals: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5 passes a valid API, context and `n_val` argument values
    // for the duration of this call.
    unsafe {
        let what = if n_val > 0 {
            ffi::sqlite3_value_int64(*vals)
        } else {
            -1
        };
        let mut n = 0i64;
        let rc = match (what, (*api).xRowCount, (*api).xColumnTotalSize) {
            (0, Some(rows), _) => rows(fts, &mut n),
            (1, _, Some(total)) => total(fts, -1, &mut n),
            _ => ffi::SQLITE_MISUSE,
        };
        if rc == ffi::SQLITE_OK {
            ffi::sqlite3_result_int64(ctx, n);
        } else {
            ffi::sqlite3_result_error_code(ctx, rc);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{or_of_strings, varint};

    #[test]
    fn or_of_strings_reads_quoted_words_only() {
        assert_eq!(
            or_of_strings(r#""load" OR "config""#),
            Some(vec!["load".to_string(), "config".to_string()])
        );
        assert_eq!(
            or_of_strings(r#""say ""hi""""#),
            Some(vec![r#"say "hi""#.to_string()])
        );
        assert_eq!(or_of_strings(r#""a" AND "b""#), None);
        assert_eq!(or_of_strings(r#"NEAR("a" "b")"#), None);
        assert_eq!(or_of_strings(r#""a" OR"#), None);
        assert_eq!(or_of_strings(r#""a"#), None);
        assert_eq!(or_of_strings(""), None);
    }

    #[test]
    fn varints_read_as_sqlite_writes_them() {
        assert_eq!(varint(&[0x05]), Some((5, 1)));
        assert_eq!(varint(&[0x81, 0x00]), Some((128, 2)));
        assert_eq!(varint(&[0x81]), None);
        let nine = [0xffu8; 9];
        assert_eq!(varint(&nine), Some((u64::MAX, 9)));
    }
}
