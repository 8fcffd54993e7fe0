//! `bm25_topk(chunks_fts, w_body, w_symbol, w_path, k)`: FTS5's own
//! `bm25()` for every row that can be among the `k` best, and 0.0 (after
//! every real score, which is negative) for a row that cannot.
//!
//! FTS5 scores every row an OR matches: on Django's 45k chunks a
//! question's OR matches 3-19k of them, and `bm25()` took 80-90% of the
//! query (the posting lists' merge alone is 2-4 ms of 10-25). Most of a
//! row's cost was reading its length (`xColumnSize`, a B-tree look-up in
//! `%_docsize`) and building the instance array of every phrase
//! (`xInstCount`). This function counts each phrase's hits per column
//! from its own position list (`xPhraseFirst`), bounds the row's score
//! from above with the shortest length the row can have (its most
//! frequent phrase's hit count), and reads the length only when that
//! bound reaches the `k`-th best score so far. The scores of the rows it
//! keeps are FTS5's to the bit: the same IDF (one `xQueryPhrase` count
//! per phrase), the same average length, the same sum in phrase order.
//! So `ORDER BY score LIMIT k` returns what `bm25()` returns.
//!
//! The caller must order by the score ascending and keep at most `k`
//! rows: rows past them are not ranked. With `k` 0 every row is scored.

#![allow(unsafe_code)] // reviewed: FTS5's C extension API, see SAFETY notes

use std::cell::{Cell, RefCell};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::ffi::{c_int, c_void};
use std::ptr::{null, null_mut};

use rusqlite::{Connection, ffi};

/// FTS5's `bm25()` constants.
const K1: f64 = 1.2;
const B: f64 = 0.75;

/// The table's columns (body, symbol, path): their weights are the
/// function's first three arguments, then `k`.
const COLUMNS: usize = 3;

/// What one query's rows share: computed at its first row, dropped with
/// the query (FTS5's auxiliary data).
struct Query {
    idf: Vec<f64>,
    /// For each phrase, the first phrase of the same tokens (itself if
    /// none before it has them): its hits are that phrase's.
    same: Vec<usize>,
    avgdl: f64,
    /// The `k` best scores so far (positive: the negated result), the
    /// worst on top.
    best: RefCell<BinaryHeap<Reverse<Score>>>,
    /// The last row scored and its result, if SQLite asks twice.
    last: Cell<Option<(i64, f64)>>,
    /// Per-row scratch: each phrase's weighted hits, and its hit count.
    freq: RefCell<Vec<(f64, u32)>>,
}

/// A score ordered by `f64::total_cmp` (scores are never NaN).
#[derive(Clone, Copy)]
struct Score(f64);

impl PartialEq for Score {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Score {}

impl PartialOrd for Score {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Score {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
}

/// Makes `bm25_topk` (and `term_cache`'s functions) callable on `conn`.
pub fn register(conn: &Connection) -> rusqlite::Result<()> {
    let api = fts5_api(conn)?;
    create_function(&api, c"bm25_topk", bm25_topk)?;
    super::term_cache::register(&api)
}

/// An auxiliary function's entry point, as FTS5 calls it.
pub(super) type AuxFunction = unsafe extern "C" fn(
    *const ffi::Fts5ExtensionApi,
    *mut ffi::Fts5Context,
    *mut ffi::sqlite3_context,
    c_int,
    *mut *mut ffi::sqlite3_value,
);

/// The connection's FTS5 API, through which auxiliary functions are made.
/// Valid as long as the connection.
pub(super) struct Fts5Api(*mut ffi::fts5_api);

fn fts5_api(conn: &Connection) -> rusqlite::Result<Fts5Api> {
    // SAFETY: `conn.handle()` is a live connection for the duration of
    // this function, used on this thread only. The statement is prepared,
    // stepped and finalized here; `fts5(?1)` writes the API pointer into
    // `api` (a local that outlives the statement) as SQLite's documented
    // way to obtain it. The pointer stays valid as long as the connection.
    unsafe {
        let db = conn.handle();
        let mut stmt = null_mut();
        let rc =
            ffi::sqlite3_prepare_v2(db, c"SELECT fts5(?1)".as_ptr(), -1, &mut stmt, null_mut());
        if rc != ffi::SQLITE_OK {
            return Err(rusqlite::Error::SqliteFailure(
                ffi::Error::new(rc),
                Some("fts5 api".into()),
            ));
        }
        let mut api: *mut ffi::fts5_api = null_mut();
        ffi::sqlite3_bind_pointer(
            stmt,
            1,
            (&mut api as *mut *mut ffi::fts5_api).cast::<c_void>(),
            c"fts5_api_ptr".as_ptr(),
            None,
        );
        ffi::sqlite3_step(stmt);
        ffi::sqlite3_finalize(stmt);
        if api.is_null() || (*api).xCreateFunction.is_none() {
            return Err(rusqlite::Error::SqliteFailure(
                ffi::Error::new(ffi::SQLITE_ERROR),
                Some("this SQLite has no FTS5 extension API".into()),
            ));
        }
        Ok(Fts5Api(api))
    }
}

/// Makes the auxiliary function `f` callable as `name`.
pub(super) fn create_function(
    api: &Fts5Api,
    name: &std::ffi::CStr,
    f: AuxFunction,
) -> rusqlite::Result<()> {
    // SAFETY: `api.0` is the live connection's FTS5 API (checked non-null
    // with a `xCreateFunction` by `fts5_api`); `xCreateFunction` copies the
    // name.
    let rc = unsafe {
        let api = api.0;
        match (*api).xCreateFunction {
            Some(create) => create(api, name.as_ptr(), null_mut(), Some(f), None),
            None => ffi::SQLITE_ERROR,
        }
    };
    if rc != ffi::SQLITE_OK {
        return Err(rusqlite::Error::SqliteFailure(
            ffi::Error::new(rc),
            Some(name.to_string_lossy().into_owned()),
        ));
    }
    Ok(())
}

unsafe extern "C" fn count_row(
    _api: *const ffi::Fts5ExtensionApi,
    _fts: *mut ffi::Fts5Context,
    hits: *mut c_void,
) -> c_int {
    // SAFETY: `hits` is the `i64` `query` passes to `xQueryPhrase`,
    // alive for that call.
    unsafe { *hits.cast::<i64>() += 1 };
    ffi::SQLITE_OK
}

unsafe extern "C" fn drop_query(p: *mut c_void) {
    // SAFETY: `p` came from `Box::into_raw` in `query`, and FTS5 calls
    // this once, when it drops the auxiliary data.
    drop(unsafe { Box::from_raw(p.cast::<Query>()) });
}

/// This query's shared data, computed on its first row as `bm25()`'s
/// `fts5Bm25GetData` does.
///
/// # Safety
/// `api` and `fts` are the ones FTS5 passed to the current call.
unsafe fn query<'a>(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
) -> Result<&'a Query, c_int> {
    let (Some(get), Some(set), Some(phrases), Some(rows), Some(total), Some(each)) = (
        api.xGetAuxdata,
        api.xSetAuxdata,
        api.xPhraseCount,
        api.xRowCount,
        api.xColumnTotalSize,
        api.xQueryPhrase,
    ) else {
        return Err(ffi::SQLITE_MISUSE);
    };
    // SAFETY: the auxiliary data, when set, is the `Query` boxed below,
    // owned by FTS5 until the query ends (after every call that uses it).
    unsafe {
        let p = get(fts, 0).cast::<Query>();
        if !p.is_null() {
            return Ok(&*p);
        }
        let n = phrases(fts).max(0);
        let (mut row_count, mut tokens) = (0i64, 0i64);
        check(rows(fts, &mut row_count))?;
        check(total(fts, -1, &mut tokens))?;
        let avgdl = tokens as f64 / row_count as f64;
        let same = same_tokens(api, fts, n)?;
        let mut idf: Vec<f64> = Vec::with_capacity(n as usize);
        for i in 0..n {
            let first = same[i as usize];
            if first < i as usize {
                idf.push(idf[first]);
                continue;
            }
            let mut hits = 0i64;
            check(each(
                fts,
                i,
                (&mut hits as *mut i64).cast::<c_void>(),
                Some(count_row),
            ))?;
            idf.push(idf_of(row_count, hits));
        }
        let boxed = Box::into_raw(Box::new(Query {
            freq: RefCell::new(vec![(0.0, 0); idf.len()]),
            idf,
            same,
            avgdl,
            best: RefCell::new(BinaryHeap::new()),
            last: Cell::new(None),
        }));
        // On an error FTS5 has already called `drop_query` on it.
        check(set(fts, boxed.cast::<c_void>(), Some(drop_query)))?;
        Ok(&*boxed)
    }
}

/// For each of the query's `n` phrases, the first phrase with the same
/// tokens (as the tokenizer made them: `field` and `fields` are one stem).
/// The thesaurus's inflections repeat a stem up to four times in the
/// synonym arm's OR, and FTS5 counts each repeat, so each counts here too,
/// but is read once. Phrases are told apart by their tokens only, which
/// holds while no expression filters a phrase by column (none here does);
/// without `xQueryToken` (an FTS5 older than 3.44) none are merged.
///
/// # Safety
/// `api` and `fts` are the ones FTS5 passed to the current call.
unsafe fn same_tokens(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    n: c_int,
) -> Result<Vec<usize>, c_int> {
    let mut same: Vec<usize> = (0..n.max(0) as usize).collect();
    let (Some(size), Some(token)) = (api.xPhraseSize, api.xQueryToken) else {
        return Ok(same);
    };
    if api.iVersion < 3 {
        return Ok(same);
    }
    let mut seen: Vec<Vec<Vec<u8>>> = Vec::with_capacity(same.len());
    for i in 0..n {
        let mut tokens = Vec::new();
        // SAFETY: as the caller's; `xQueryToken` points into the query's
        // own token, valid for this call, copied at once.
        unsafe {
            for t in 0..size(fts, i) {
                let (mut p, mut len): (*const std::ffi::c_char, c_int) = (null(), 0);
                check(token(fts, i, t, &mut p, &mut len))?;
                tokens.push(if p.is_null() {
                    Vec::new()
                } else {
                    std::slice::from_raw_parts(p.cast::<u8>(), len.max(0) as usize).to_vec()
                });
            }
        }
        if let Some(j) = seen.iter().position(|s| *s == tokens) {
            same[i as usize] = j;
        }
        seen.push(tokens);
    }
    Ok(same)
}

/// `bm25()`'s IDF of a phrase in `hits` of `rows` rows.
pub(super) fn idf_of(rows: i64, hits: i64) -> f64 {
    let v = (((rows - hits) as f64 + 0.5) / (hits as f64 + 0.5)).ln();
    if v <= 0.0 { 1e-6 } else { v }
}

/// `bm25()`'s length normalisation of a row of `len` tokens.
pub(super) fn norm_of(len: f64, avgdl: f64) -> f64 {
    K1 * (1.0 - B + B * len / avgdl)
}

/// `bm25()`'s share of one phrase of a row: its IDF, its weighted hits
/// `f`, the row's [`norm_of`]. A phrase the row lacks adds exactly 0.0.
pub(super) fn phrase_part(idf: f64, f: f64, norm: f64) -> f64 {
    idf * ((f * (K1 + 1.0)) / (f + norm))
}

/// FTS5's `xPhraseFirst` and `xPhraseNext`.
pub(super) type PhraseFirst = unsafe extern "C" fn(
    *mut ffi::Fts5Context,
    c_int,
    *mut ffi::Fts5PhraseIter,
    *mut c_int,
    *mut c_int,
) -> c_int;
pub(super) type PhraseNext =
    unsafe extern "C" fn(*mut ffi::Fts5Context, *mut ffi::Fts5PhraseIter, *mut c_int, *mut c_int);

/// Calls `f` with the column of each hit of phrase `phrase` in the current
/// row, in FTS5's order (by position).
///
/// # Safety
/// `first`, `next` and `fts` are the ones FTS5 passed to the current call.
pub(super) unsafe fn each_hit(
    first: PhraseFirst,
    next: PhraseNext,
    fts: *mut ffi::Fts5Context,
    phrase: c_int,
    mut f: impl FnMut(c_int),
) -> Result<(), c_int> {
    let mut it = ffi::Fts5PhraseIter {
        a: null(),
        b: null(),
    };
    let (mut col, mut off): (c_int, c_int) = (0, 0);
    // SAFETY: as the caller's; `it`, `col` and `off` outlive the calls.
    unsafe {
        check(first(fts, phrase, &mut it, &mut col, &mut off))?;
        while col >= 0 {
            f(col);
            next(fts, &mut it, &mut col, &mut off);
        }
    }
    Ok(())
}

/// `Err(rc)` unless `rc` is `SQLITE_OK`.
pub(super) fn check(rc: c_int) -> Result<(), c_int> {
    if rc == ffi::SQLITE_OK {
        Ok(())
    } else {
        Err(rc)
    }
}

/// The sum `bm25()` computes over `freq` for a row of `len` tokens.
fn score(q: &Query, freq: &[(f64, u32)], len: f64) -> f64 {
    let norm = norm_of(len, q.avgdl);
    let mut s = 0.0;
    for (idf, (f, _)) in q.idf.iter().zip(freq) {
        s += phrase_part(*idf, *f, norm);
    }
    s
}

unsafe extern "C" fn bm25_topk(
    api: *const ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    ctx: *mut ffi::sqlite3_context,
    n_val: c_int,
    vals: *mut *mut ffi::sqlite3_value,
) {
    // SAFETY: FTS5 passes a valid API, context and `n_val` argument
    // values for the duration of this call.
    unsafe {
        match row_score(&*api, fts, n_val, vals) {
            Ok(s) => ffi::sqlite3_result_double(ctx, s),
            Err(rc) => ffi::sqlite3_result_error_code(ctx, rc),
        }
    }
}

/// # Safety
/// The arguments are the ones FTS5 passed to the current call.
unsafe fn row_score(
    api: &ffi::Fts5ExtensionApi,
    fts: *mut ffi::Fts5Context,
    n_val: c_int,
    vals: *mut *mut ffi::sqlite3_value,
) -> Result<f64, c_int> {
    let (Some(rowid), Some(first), Some(next), Some(size)) = (
        api.xRowid,
        api.xPhraseFirst,
        api.xPhraseNext,
        api.xColumnSize,
    ) else {
        return Err(ffi::SQLITE_MISUSE);
    };
    // SAFETY: as the caller's; `vals` holds `n_val` values.
    unsafe {
        let q = query(api, fts)?;
        let row = rowid(fts);
        if let Some((r, s)) = q.last.get()
            && r == row
        {
            return Ok(s);
        }
        let arg = |i: usize| (i < n_val as usize).then(|| *vals.add(i));
        let mut weight = [1.0f64; COLUMNS];
        for (i, w) in weight.iter_mut().enumerate() {
            if let Some(v) = arg(i) {
                *w = ffi::sqlite3_value_double(v);
            }
        }
        let k = arg(COLUMNS).map_or(0, |v| ffi::sqlite3_value_int64(v).max(0) as usize);
        let mut freq = q.freq.borrow_mut();
        // The row has at least as many tokens as any one phrase has hits
        // in it (a phrase's hits start at distinct positions).
        let mut shortest = 0u32;
        for i in 0..freq.len() {
            let j = q.same[i];
            if j < i {
                freq[i] = freq[j];
                continue;
            }
            let (mut f, mut hits) = (0.0, 0u32);
            each_hit(first, next, fts, i as c_int, |col| {
                f += weight.get(col as usize).copied().unwrap_or(1.0);
                hits += 1;
            })?;
            freq[i] = (f, hits);
            shortest = shortest.max(hits);
        }
        let mut best = q.best.borrow_mut();
        if k > 0 && best.len() >= k {
            let kth = best.peek().map_or(0.0, |r| r.0.0);
            if score(q, &freq, f64::from(shortest)) < kth {
                q.last.set(Some((row, 0.0)));
                return Ok(0.0);
            }
        }
        let mut len: c_int = 0;
        check(size(fts, -1, &mut len))?;
        let s = score(q, &freq, f64::from(len));
        if k > 0 {
            if best.len() < k {
                best.push(Reverse(Score(s)));
            } else if best.peek().is_some_and(|r| r.0.0 < s) {
                best.pop();
                best.push(Reverse(Score(s)));
            }
        }
        q.last.set(Some((row, -s)));
        Ok(-s)
    }
}
