//! Owns the trigram side of index-accelerated keyword search, as pure
//! functions: which trigrams a file holds ([`file_trigrams`]), the compact
//! query every match of a keyword request implies ([`plan`], after Russ Cox's
//! "Regular Expression Matching with a Trigram Index"), its evaluation over
//! posting lists ([`Query::eval`]) and the per-search [`IndexFilter`] that
//! `keyword` consults (loaded from the store's postings). Does not read files
//! or write the index (that is `index::ngram`'s job; the posting encoding is
//! `store`'s) and never decides a match: the real matcher confirms every line
//! of every candidate file.
//!
//! **Invariant: the query is a necessary condition.** A file with a line
//! that the request's matcher matches always satisfies the planned query;
//! the converse need not hold. Every step below may only weaken the query
//! (drop a conjunct, widen to [`Query::All`]); when in doubt, `All`.
//!
//! Trigrams are taken over ASCII-lowercased bytes, so one index serves
//! case-sensitive and case-insensitive requests: a string's lowercased
//! trigrams are found in the lowercased file wherever the string occurs.
//! Unicode case folding needs no special rule: the regex parser expands a
//! case-insensitive literal into a class of all its case variants (`k` into
//! `[Kk\u{212A}]`), and a class becomes a small set of alternative byte
//! strings or, when large, "any character".

use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::UNIX_EPOCH;

use regex_syntax::hir::{Class, Hir, HirKind};

use super::keyword::{CaseMode, KeywordRequest, RuleOut};
use crate::store::{NgramDoc, Store};

/// A trigram packed as `b0 << 16 | b1 << 8 | b2` over lowercased bytes.
pub use crate::store::Trigram;

/// A file whose mtime is this close to the moment its content was read may
/// have changed again within the same clock tick: it is read at search time
/// and read again by the next refresh ("racy" files, as in git and `index`).
pub const RACY_NS: i64 = 2_000_000_000;

/// When a file last changed, in nanoseconds since the epoch (0 when
/// unknown): the later of its mtime and its ctime, which every write moves
/// and no tool can set back. An edit of the same length whose mtime was
/// restored (`touch -d`, `cp -p` over the file, a tool keeping mtimes) is
/// seen; a `chmod` or a new hard link only costs a hash. The index's
/// `mtime_ns` columns hold this stamp.
pub fn mtime_ns(md: &std::fs::Metadata) -> i64 {
    let mtime = md
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as i64);
    mtime.max(ctime_ns(md))
}

/// A file's ctime in nanoseconds since the epoch.
pub fn ctime_ns(md: &std::fs::Metadata) -> i64 {
    use std::os::unix::fs::MetadataExt;
    md.ctime().saturating_mul(1_000_000_000) + md.ctime_nsec()
}

/// What the postings say about one keyword search: the file versions they
/// describe and which of them may hold a match. A walked file is skipped
/// only when its version on disk is one the postings describe and it is not
/// a candidate; every other file (new, changed, renamed, never covered, or
/// with a racy mtime) is read as without an index, so an answer is never
/// stale.
#[derive(Debug)]
pub struct IndexFilter {
    docs: HashMap<String, NgramDoc>,
    /// Sorted doc ids the query admits.
    candidates: Vec<u32>,
}

impl IndexFilter {
    /// `Ok(None)` when the request's patterns narrow nothing or the index
    /// has no postings: every file is to be read.
    pub fn load(store: &Store, req: &KeywordRequest) -> rusqlite::Result<Option<IndexFilter>> {
        let query = plan(req);
        if query.is_all() {
            return Ok(None);
        }
        store.ngram_snapshot(|store| Self::load_planned(store, &query))
    }

    fn load_planned(store: &Store, query: &Query) -> rusqlite::Result<Option<IndexFilter>> {
        let docs = store.ngram_docs()?;
        if docs.is_empty() {
            return Ok(None);
        }
        let candidates = eval_stored(store, query)?;
        Ok(candidates.map(|candidates| IndexFilter { docs, candidates }))
    }

    /// How many file versions the postings describe, and how many of them
    /// the query admits.
    pub fn counts(&self) -> (usize, usize) {
        (self.docs.len(), self.candidates.len())
    }
}

impl RuleOut for IndexFilter {
    /// A file is ruled out only when it is covered, not a candidate, and
    /// its size and mtime on disk are the version the postings describe,
    /// read long enough after that mtime (not racy).
    fn rules_out(&self, rel: &str, metadata: &dyn Fn() -> Option<std::fs::Metadata>) -> bool {
        let Some(d) = self.docs.get(rel) else {
            return false;
        };
        if !d.covered || self.candidates.binary_search(&d.doc).is_ok() {
            return false;
        }
        let Some(md) = metadata() else {
            return false;
        };
        md.is_file()
            && md.len() == d.size
            && mtime_ns(&md) == d.mtime_ns
            && d.mtime_ns < d.indexed_at_ns - RACY_NS
    }
}

/// The doc ids `query` admits, from the store's posting lists (`None`:
/// every doc); the first error reading a list fails it.
fn eval_stored(store: &Store, query: &Query) -> rusqlite::Result<Option<Vec<u32>>> {
    let mut failed = None;
    let mut fetch = |t: Trigram| {
        store.ngram_postings(t).unwrap_or_else(|e| {
            failed.get_or_insert(e);
            Vec::new()
        })
    };
    let candidates = query.eval(&mut fetch);
    if let Some(e) = failed {
        return Err(e);
    }
    let Some(mut ids) = candidates else {
        return Ok(None);
    };
    // Large files whose every trigram the query needs is somewhere in
    // them, but in no one block: no line can match.
    let mapped = store.ngram_block_docs()?;
    let mut drop = Vec::new();
    for doc in intersect(&ids, &mapped) {
        if let Some((blocks, map)) = store.ngram_blocks(doc)?
            && !blocks_admit(query, blocks, &map)
        {
            drop.push(doc);
        }
    }
    if !drop.is_empty() {
        ids.retain(|id| drop.binary_search(id).is_err());
    }
    Ok(Some(ids))
}

/// Candidates looked up one by one; with more, every doc is read.
const LIST_BY_ID: usize = 4096;
/// More changed paths than this (a checkout being indexed): walk instead.
pub const MAX_CHANGED: usize = 1024;

/// A keyword search without a walk: the files the index's docs list (every
/// file the last index run walked, see `index::ngram`), trusted because a
/// watcher vouches that nothing changed since but `changed`. Only for a
/// request whose walk is the index's own ([`Listed::can_stand_in`]).
#[derive(Debug)]
pub struct Listed {
    /// Root-relative paths to read, sorted: candidates, files the postings
    /// do not cover, and changed files the walk would yield.
    pub files: Vec<String>,
    /// Listed files not read: no match is possible in them.
    pub ruled_out: usize,
    /// How many files the postings admit (as [`IndexFilter::counts`]'
    /// second): what hybrid search's keyword arm weighs, the same whether
    /// it lists or walks.
    pub admitted: usize,
}

impl Listed {
    /// Whether the index's files, walked with `walk`, are the files `req`
    /// would walk (less those its globs exclude): the same ignore, hidden,
    /// link and size rules, the whole root, no configured excludes, and
    /// extra globs only excluding (an including glob can bring back an
    /// ignored file the index left out).
    pub fn can_stand_in(walk: &crate::walk::WalkOptions, req: &KeywordRequest) -> bool {
        let theirs = &req.walk;
        req.paths.is_empty()
            && walk.globs.is_empty()
            && walk.hidden == theirs.hidden
            && walk.no_ignore == theirs.no_ignore
            && walk.require_git == theirs.require_git
            && walk.follow_links == theirs.follow_links
            && walk.max_filesize == theirs.max_filesize
            && theirs.globs.iter().all(|g| g.starts_with('!'))
            && theirs.types.is_empty()
            && theirs.types_not.is_empty()
    }

    /// `Ok(None)` when listing cannot stand in for the walk: another walk
    /// ([`Listed::can_stand_in`]), no postings, too many changes, or a
    /// changed directory (whose files no event named).
    pub fn load(
        store: &Store,
        root: &std::path::Path,
        walk: &crate::walk::WalkOptions,
        req: &KeywordRequest,
        changed: &[String],
    ) -> anyhow::Result<Option<Listed>> {
        if changed.len() > MAX_CHANGED || !Self::can_stand_in(walk, req) {
            return Ok(None);
        }
        let excluded = exclusions(root, &req.walk.globs)?;
        let query = plan(req);
        let started = std::time::Instant::now();
        let Some(snap) = store
            .ngram_snapshot(|store| Snapshot::read(store, &query, changed, excluded.is_some()))?
        else {
            return Ok(None);
        };
        tracing::debug!(
            ms = started.elapsed().as_secs_f64() * 1e3,
            every_doc = snap.all.is_some(),
            "keyword: docs snapshot read"
        );
        let allowed = |rel: &str| excluded.as_ref().is_none_or(|o| !is_excluded(o, rel));
        let mut files: Vec<String> = Vec::with_capacity(snap.read.len() + changed.len());
        let mut listed = 0usize;
        match &snap.all {
            Some(all) => {
                for (rel, read) in all {
                    if snap.changed_docs.contains(rel.as_str()) || !allowed(rel) {
                        continue;
                    }
                    listed += 1;
                    if *read {
                        files.push(rel.clone());
                    }
                }
            }
            None => {
                listed = snap.total - snap.changed_docs.len();
                files.extend(
                    snap.read
                        .into_iter()
                        .filter(|rel| !snap.changed_docs.contains(rel.as_str())),
                );
            }
        }
        let doc_reads = files.len();
        let mut vis = crate::walk::Visibility::new(root, walk);
        for rel in changed {
            let abs = root.join(rel);
            let Ok(md) = std::fs::symlink_metadata(&abs) else {
                continue; // gone
            };
            if md.is_dir() {
                // Moved or created whole: its files raised no events.
                return Ok(None);
            }
            let known = snap.changed_docs.contains(rel.as_str());
            let walked =
                known || matches!(vis.check(rel), crate::walk::Seen::Visible { is_dir: false });
            // A symlink is not followed by the walk, so not searched.
            if walked && allowed(rel) && md.is_file() {
                files.push(rel.clone());
            }
        }
        files.sort_unstable();
        files.dedup();
        Ok(Some(Listed {
            files,
            ruled_out: listed.saturating_sub(doc_reads),
            admitted: snap.admitted,
        }))
    }
}

/// What one snapshot of the docs says about a search.
struct Snapshot {
    total: usize,
    /// Without `all`: the candidates and uncovered docs.
    read: Vec<String>,
    /// Every doc with whether it is to be read (when the candidates are
    /// many, the query narrows nothing, or globs must see every path).
    all: Option<Vec<(String, bool)>>,
    /// Changed paths the docs list (their rows say nothing about the
    /// files now: read them if they still exist).
    changed_docs: HashSet<String>,
    /// Docs the postings admit (all of them when the query narrows nothing).
    admitted: usize,
}

impl Snapshot {
    fn read(
        store: &Store,
        query: &Query,
        changed: &[String],
        every_path: bool,
    ) -> rusqlite::Result<Option<Snapshot>> {
        let total = store.ngram_doc_count()?;
        if total == 0 {
            return Ok(None);
        }
        let mut changed_docs = HashSet::new();
        for rel in changed {
            if store.ngram_has_under(rel)? {
                return Ok(None);
            }
            if store.ngram_has_path(rel)? {
                changed_docs.insert(rel.clone());
            }
        }
        let candidates = eval_stored(store, query)?;
        let snap = match candidates {
            Some(ids) if ids.len() <= LIST_BY_ID && !every_path => {
                let admitted = ids.len();
                let mut read = store.ngram_uncovered()?;
                for id in ids {
                    if let Some((path, true)) = store.ngram_doc_path(id)? {
                        read.push(path);
                    }
                }
                Snapshot {
                    total,
                    read,
                    all: None,
                    changed_docs,
                    admitted,
                }
            }
            // Every file is read: only the paths are needed.
            None => Snapshot {
                total,
                read: Vec::new(),
                all: Some(
                    store
                        .ngram_paths()?
                        .into_iter()
                        .map(|path| (path, true))
                        .collect(),
                ),
                changed_docs,
                admitted: total,
            },
            candidates => {
                let admitted = candidates.as_ref().map_or(total, Vec::len);
                let all = store
                    .ngram_docs()?
                    .into_iter()
                    .map(|(path, d)| {
                        let read = !d.covered
                            || candidates
                                .as_ref()
                                .is_none_or(|c| c.binary_search(&d.doc).is_ok());
                        (path, read)
                    })
                    .collect();
                Snapshot {
                    total,
                    read: Vec::new(),
                    all: Some(all),
                    changed_docs,
                    admitted,
                }
            }
        };
        Ok(Some(snap))
    }
}

/// The request's excluding globs (`!pattern`) as an override matcher, or
/// `None` when it has none. Both callers of [`Listed::load`] refused a
/// glob climbing out of the project already (the service's keyword run,
/// hybrid's `ChunkFilter`: `walk::reject_outside_glob`).
fn exclusions(
    root: &std::path::Path,
    globs: &[String],
) -> anyhow::Result<Option<ignore::overrides::Override>> {
    if globs.is_empty() {
        return Ok(None);
    }
    let mut builder = ignore::overrides::OverrideBuilder::new(root);
    for g in globs {
        builder.add(g)?;
    }
    Ok(Some(builder.build()?))
}

/// Whether the walk would skip `rel` for an excluding glob: the file or
/// one of its directories matches one.
fn is_excluded(o: &ignore::overrides::Override, rel: &str) -> bool {
    let mut end = 0;
    while let Some(i) = rel[end..].find('/') {
        end += i;
        if o.matched(&rel[..end], true).is_ignore() {
            return true;
        }
        end += 1;
    }
    o.matched(rel, false).is_ignore()
}

/// Largest set of alternative strings tracked exactly; beyond it the set is
/// turned into a query and only short prefixes and suffixes are kept.
const MAX_SET: usize = 64;
/// A class with more characters than this is "any character".
const MAX_CLASS_CHARS: u32 = 64;
/// Trigram leaves a query may have; beyond it, conjuncts are dropped (which
/// only widens the query).
const MAX_LEAVES: usize = 512;

/// A boolean query over trigrams: which files may hold a match.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Query {
    /// Every file: nothing narrows the search.
    All,
    Tri(Trigram),
    And(Vec<Query>),
    Or(Vec<Query>),
}

impl Query {
    /// True when the query narrows nothing.
    pub fn is_all(&self) -> bool {
        matches!(self, Query::All)
    }

    /// The distinct trigrams the query reads.
    pub fn trigrams(&self) -> BTreeSet<Trigram> {
        let mut out = BTreeSet::new();
        self.collect(&mut out);
        out
    }

    fn collect(&self, out: &mut BTreeSet<Trigram>) {
        match self {
            Query::All => {}
            Query::Tri(t) => {
                out.insert(*t);
            }
            Query::And(qs) | Query::Or(qs) => qs.iter().for_each(|q| q.collect(out)),
        }
    }

    fn leaves(&self) -> usize {
        match self {
            Query::All => 0,
            Query::Tri(_) => 1,
            Query::And(qs) | Query::Or(qs) => qs.iter().map(Query::leaves).sum(),
        }
    }

    fn and(a: Query, b: Query) -> Query {
        let mut parts = Vec::new();
        for q in [a, b] {
            match q {
                Query::All => {}
                Query::And(qs) => parts.extend(qs),
                q => parts.push(q),
            }
        }
        Query::joined(parts, Query::And)
    }

    fn or(qs: impl IntoIterator<Item = Query>) -> Query {
        let mut parts = Vec::new();
        for q in qs {
            match q {
                Query::All => return Query::All,
                Query::Or(inner) => parts.extend(inner),
                q => parts.push(q),
            }
        }
        // No alternative at all (an empty `parts`): only a pattern that can
        // never match gets here; "every file" is still a correct answer.
        Query::joined(parts, Query::Or)
    }

    /// `parts` sorted and deduplicated, joined by `many` when there are
    /// several: none is `All`, one is itself.
    fn joined(mut parts: Vec<Query>, many: fn(Vec<Query>) -> Query) -> Query {
        parts.sort();
        parts.dedup();
        match parts.len() {
            0 => Query::All,
            1 => parts.pop().unwrap_or(Query::All),
            _ => many(parts),
        }
    }

    /// Keeps at most `budget` leaves by dropping conjuncts (an `Or` that does
    /// not fit becomes `All`); both only widen the query.
    fn bounded(self, budget: usize) -> Query {
        if self.leaves() <= budget {
            return self;
        }
        match self {
            Query::And(qs) => {
                let mut kept = Query::All;
                let mut left = budget;
                for q in qs {
                    let n = q.leaves();
                    if n <= left {
                        left -= n;
                        kept = Query::and(kept, q);
                    }
                }
                kept
            }
            _ => Query::All,
        }
    }

    /// The blocks of one file that may hold a match, as a bitmap, given
    /// each trigram's blocks through `blocks`; `None` for every block.
    fn block_mask(&self, blocks: &dyn Fn(Trigram) -> Vec<u8>) -> Option<Vec<u8>> {
        match self {
            Query::All => None,
            Query::Tri(t) => Some(blocks(*t)),
            Query::And(qs) => {
                let mut acc: Option<Vec<u8>> = None;
                for q in qs {
                    if let Some(m) = q.block_mask(blocks) {
                        acc = Some(match acc {
                            None => m,
                            Some(a) => a.iter().zip(&m).map(|(x, y)| x & y).collect(),
                        });
                    }
                }
                acc
            }
            Query::Or(qs) => {
                let mut acc: Option<Vec<u8>> = None;
                for q in qs {
                    let m = q.block_mask(blocks)?;
                    acc = Some(match acc {
                        None => m,
                        Some(a) => a.iter().zip(&m).map(|(x, y)| x | y).collect(),
                    });
                }
                acc
            }
        }
    }

    /// The sorted document ids satisfying the query, reading each trigram's
    /// sorted posting list through `postings`; `None` for [`Query::All`].
    pub fn eval(&self, postings: &mut dyn FnMut(Trigram) -> Vec<u32>) -> Option<Vec<u32>> {
        match self {
            Query::All => None,
            Query::Tri(t) => Some(postings(*t)),
            Query::And(qs) => {
                let mut acc: Option<Vec<u32>> = None;
                // Single trigrams first: they are cheap and usually selective.
                let mut order: Vec<&Query> = qs.iter().collect();
                order.sort_by_key(|q| !matches!(q, Query::Tri(_)));
                for q in order {
                    if acc.as_ref().is_some_and(Vec::is_empty) {
                        break;
                    }
                    if let Some(ids) = q.eval(postings) {
                        acc = Some(match acc {
                            None => ids,
                            Some(a) => intersect(&a, &ids),
                        });
                    }
                }
                acc
            }
            Query::Or(qs) => {
                let mut acc: Vec<u32> = Vec::new();
                for q in qs {
                    let ids = q.eval(postings)?;
                    acc = union(&acc, &ids);
                }
                Some(acc)
            }
        }
    }
}

/// Files at least this large get a block map beside their postings
/// ([`block_map`]): the kernel's generated register headers (18 files of
/// 4-24 MB) hold every upper-case trigram, so each selective literal like
/// `CONFIG_NUMA_BALANCING` read 125 MB of them for nothing.
pub const BLOCKS_FROM: usize = 1 << 20;
/// Target size of a block: whole lines, cut after the last line break
/// before this many bytes (a longer line is one block of its own).
const BLOCK_BYTES: usize = 256 << 10;

/// Where a large file's blocks begin and end: consecutive ranges of whole
/// lines covering `bytes`.
fn block_bounds(bytes: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let mut end = (start + BLOCK_BYTES).min(bytes.len());
        if end < bytes.len() {
            end = match memchr::memrchr(b'\n', &bytes[start..end]) {
                Some(k) => start + k + 1,
                None => memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |k| end + k + 1),
            };
        }
        out.push((start, end));
        start = end;
    }
    out
}

/// For a file of at least [`BLOCKS_FROM`] bytes whose distinct trigrams
/// are `grams` (sorted, from [`file_trigrams`]): the number of blocks and,
/// per trigram, which blocks hold it. The map is the file's trigrams in
/// order, each as 3 bytes (big-endian) followed by a bitmap of
/// `blocks.div_ceil(8)` bytes (block `b` is bit `b % 8` of byte `b / 8`).
/// A match lies on one line, so within one block: a file none of whose
/// blocks satisfies the query has no match ([`blocks_admit`]). `None` for a
/// smaller file.
pub fn block_map(bytes: &[u8], grams: &[Trigram]) -> Option<(u32, Vec<u8>)> {
    if bytes.len() < BLOCKS_FROM {
        return None;
    }
    let bounds = block_bounds(bytes);
    let width = bounds.len().div_ceil(8);
    let stride = 3 + width;
    let mut map = vec![0u8; grams.len() * stride];
    for (entry, &g) in map.chunks_exact_mut(stride).zip(grams) {
        entry[..3].copy_from_slice(&g.to_be_bytes()[1..]);
    }
    let mut block_grams = Vec::new();
    for (b, &(start, end)) in bounds.iter().enumerate() {
        file_trigrams(&bytes[start..end], &mut block_grams);
        for g in &block_grams {
            // A block's trigrams are the file's (the same bytes, lowercased).
            if let Ok(i) = grams.binary_search(g) {
                map[i * stride + 3 + b / 8] |= 1 << (b % 8);
            }
        }
    }
    Some((u32::try_from(bounds.len()).ok()?, map))
}

/// Whether some block of a file with this block map (see [`block_map`])
/// satisfies `query`. A map that does not parse admits (never wrongly
/// rules a file out).
pub fn blocks_admit(query: &Query, blocks: u32, map: &[u8]) -> bool {
    let width = (blocks as usize).div_ceil(8);
    let stride = 3 + width;
    if width == 0 || !map.len().is_multiple_of(stride) {
        return true;
    }
    let entries = map.len() / stride;
    let lookup = |t: Trigram| -> Vec<u8> {
        let key = &t.to_be_bytes()[1..];
        let (mut lo, mut hi) = (0, entries);
        while lo < hi {
            let mid = (lo + hi) / 2;
            let entry = &map[mid * stride..(mid + 1) * stride];
            match entry[..3].cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return entry[3..].to_vec(),
            }
        }
        vec![0; width]
    };
    query
        .block_mask(&lookup)
        .is_none_or(|mask| mask.iter().any(|&b| b != 0))
}

fn intersect(a: &[u32], b: &[u32]) -> Vec<u32> {
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(a.len().min(b.len()));
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

fn union(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
}

fn pack(w: &[u8]) -> Trigram {
    (u32::from(w[0]) << 16) | (u32::from(w[1]) << 8) | u32::from(w[2])
}

/// The distinct trigrams of `bytes` lowercased (ASCII), sorted. Trigrams
/// spanning a line break are included: extra trigrams only widen answers.
///
/// Each position is checked against a bitmap of all 2^24 trigrams (2 MiB,
/// one per thread, cleared again after each file), so only the distinct
/// ones (a tenth of the positions in kernel C) are kept and sorted: twice
/// as fast as sorting every position, and a 24 MB generated header needs
/// no 96 MB list.
pub fn file_trigrams(bytes: &[u8], out: &mut Vec<Trigram>) {
    thread_local! {
        static SEEN: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    out.clear();
    if bytes.len() < 3 {
        return;
    }
    SEEN.with_borrow_mut(|seen| {
        if seen.is_empty() {
            seen.resize((1 << 24) / 64, 0);
        }
        for t in each_trigram(bytes) {
            let word = &mut seen[(t >> 6) as usize];
            let bit = 1u64 << (t & 63);
            if *word & bit == 0 {
                *word |= bit;
                out.push(t);
            }
        }
        for &t in out.iter() {
            seen[(t >> 6) as usize] = 0;
        }
    });
    sort_trigrams(out);
}

/// Sorts trigrams (24-bit keys) in two counting passes of 12 bits.
fn sort_trigrams(keys: &mut [Trigram]) {
    const DIGIT: u32 = 12;
    const BUCKETS: usize = 1 << DIGIT;
    if keys.len() < 1024 {
        keys.sort_unstable();
        return;
    }
    let mut scratch = vec![0 as Trigram; keys.len()];
    let mut counts = vec![0u32; BUCKETS];
    for (shift, from_keys) in [(0, true), (DIGIT, false)] {
        let (src, dst): (&[Trigram], &mut [Trigram]) = if from_keys {
            (&*keys, &mut scratch[..])
        } else {
            (&scratch[..], &mut *keys)
        };
        counts.fill(0);
        for &k in src {
            counts[((k >> shift) as usize) & (BUCKETS - 1)] += 1;
        }
        let mut at = 0u32;
        for c in counts.iter_mut() {
            let n = *c;
            *c = at;
            at += n;
        }
        for &k in src {
            let slot = &mut counts[((k >> shift) as usize) & (BUCKETS - 1)];
            dst[*slot as usize] = k;
            *slot += 1;
        }
    }
}

/// The trigram at every position of `bytes` (at least 3 long), lowercased.
fn each_trigram(bytes: &[u8]) -> impl Iterator<Item = Trigram> + '_ {
    let mut t =
        (u32::from(bytes[0].to_ascii_lowercase()) << 8) | u32::from(bytes[1].to_ascii_lowercase());
    bytes[2..].iter().map(move |&b| {
        t = ((t << 8) | u32::from(b.to_ascii_lowercase())) & 0xFF_FFFF;
        t
    })
}

/// The trigram query every file with a match of `req` satisfies. Patterns
/// the parser rejects, inverted matches (`-v`), and requests nothing
/// narrows give [`Query::All`].
///
/// `-w` is ignored (it only narrows matches) and smart case is planned as
/// case-insensitive (it matches a superset of what either case mode does).
pub fn plan(req: &KeywordRequest) -> Query {
    if req.invert_match {
        // Any file with a line the patterns miss matches.
        return Query::All;
    }
    let insensitive = req.case != CaseMode::Sensitive;
    let mut alternatives = Vec::with_capacity(req.patterns.len());
    for pattern in &req.patterns {
        let escaped;
        let pattern = if req.fixed_strings {
            escaped = regex_syntax::escape(pattern);
            escaped.as_str()
        } else {
            pattern.as_str()
        };
        let Some(hir) = crate::search::keyword::parse_pattern(pattern, insensitive) else {
            return Query::All;
        };
        alternatives.push(analyze(&hir).into_query());
    }
    if alternatives.is_empty() {
        return Query::All;
    }
    Query::or(alternatives).bounded(MAX_LEAVES)
}

type Set = BTreeSet<Vec<u8>>;

/// What is known about the strings a sub-expression matches (Cox's
/// `exact`, `prefix`, `suffix` and `match`).
#[derive(Debug, Clone)]
struct Info {
    /// Every string it matches, lowercased, when the set is small.
    exact: Option<Set>,
    /// Every match starts with one of these (`{""}`: nothing known).
    prefix: Set,
    /// Every match ends with one of these.
    suffix: Set,
    /// A query every file holding a match satisfies.
    query: Query,
}

fn single(s: &[u8]) -> Set {
    std::iter::once(s.to_vec()).collect()
}

impl Info {
    fn exact(set: Set) -> Info {
        Info {
            exact: Some(set),
            prefix: single(b""),
            suffix: single(b""),
            query: Query::All,
        }
    }

    fn any() -> Info {
        Info {
            exact: None,
            prefix: single(b""),
            suffix: single(b""),
            query: Query::All,
        }
    }

    /// The same knowledge without an exact set: its strings' trigrams go to
    /// the query, and they serve as prefixes and suffixes.
    fn inexact(self) -> Info {
        match self.exact {
            None => self,
            Some(set) => Info {
                exact: None,
                query: Query::and(self.query, set_query(&set)),
                prefix: set.clone(),
                suffix: set,
            }
            .trimmed(),
        }
    }

    /// Keeps the sets small: an exact set too large becomes a query; prefix
    /// and suffix sets too large are cut to shorter strings (their trigrams
    /// go to the query first, so nothing known is lost for this node).
    fn trimmed(mut self) -> Info {
        if let Some(set) = &self.exact {
            if set.len() > MAX_SET {
                return self.inexact();
            }
            return self;
        }
        if self.prefix.len() > MAX_SET {
            self.query = Query::and(self.query, set_query(&self.prefix));
            self.prefix = cut_set(&self.prefix, true);
        }
        if self.suffix.len() > MAX_SET {
            self.query = Query::and(self.query, set_query(&self.suffix));
            self.suffix = cut_set(&self.suffix, false);
        }
        self
    }

    fn prefixes(&self) -> &Set {
        self.exact.as_ref().unwrap_or(&self.prefix)
    }

    fn suffixes(&self) -> &Set {
        self.exact.as_ref().unwrap_or(&self.suffix)
    }

    /// The query for the whole node, once nothing more will be joined to it.
    fn into_query(self) -> Query {
        match self.exact {
            Some(set) => Query::and(self.query, set_query(&set)),
            None => {
                let q = Query::and(self.query, set_query(&self.prefix));
                Query::and(q, set_query(&self.suffix))
            }
        }
    }
}

/// Cuts every string to its first (or last) two bytes, then to fewer while
/// the set stays too large.
fn cut_set(set: &Set, keep_start: bool) -> Set {
    for keep in (0..=2usize).rev() {
        let cut: Set = set
            .iter()
            .map(|s| {
                let n = s.len().min(keep);
                if keep_start {
                    s[..n].to_vec()
                } else {
                    s[s.len() - n..].to_vec()
                }
            })
            .collect();
        if cut.len() <= MAX_SET {
            return cut;
        }
    }
    single(b"")
}

/// Cartesian product of two sets (`a` first), `None` when too large.
fn product(a: &Set, b: &Set) -> Option<Set> {
    if a.len().saturating_mul(b.len()) > MAX_SET {
        return None;
    }
    let mut out = Set::new();
    for x in a {
        for y in b {
            let mut s = x.clone();
            s.extend_from_slice(y);
            out.insert(s);
        }
    }
    Some(out)
}

/// One of the strings of `set` occurs: OR over strings of AND over their
/// trigrams; `All` as soon as one string is shorter than a trigram.
fn set_query(set: &Set) -> Query {
    let mut alternatives = Vec::with_capacity(set.len());
    for s in set {
        if s.len() < 3 {
            return Query::All;
        }
        let mut q = Query::All;
        for w in s.windows(3) {
            q = Query::and(q, Query::Tri(pack(w)));
        }
        alternatives.push(q);
    }
    Query::or(alternatives)
}

fn lower(bytes: &[u8]) -> Vec<u8> {
    bytes.to_ascii_lowercase()
}

fn analyze(hir: &Hir) -> Info {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Info::exact(single(b"")),
        HirKind::Literal(lit) => Info::exact(single(&lower(&lit.0))),
        HirKind::Class(class) => class_info(class),
        HirKind::Capture(cap) => analyze(&cap.sub),
        HirKind::Repetition(rep) => {
            let sub = analyze(&rep.sub);
            match (rep.min, rep.max) {
                (1, Some(1)) => sub,
                // `x?`: x or nothing.
                (0, Some(1)) => alternate(vec![sub, Info::exact(single(b""))]),
                (0, _) => Info::any(),
                // At least one `x`: what is known of one copy holds at
                // the start and the end of the whole; repeats add nothing
                // here but could, e.g. `(ab){2}` (left for later).
                _ => {
                    let one = sub.inexact();
                    Info {
                        exact: None,
                        prefix: one.prefix,
                        suffix: one.suffix,
                        query: one.query,
                    }
                }
            }
        }
        HirKind::Concat(subs) => {
            let mut acc = Info::exact(single(b""));
            for sub in subs {
                acc = concat(acc, analyze(sub));
            }
            acc
        }
        HirKind::Alternation(subs) => alternate(subs.iter().map(analyze).collect()),
    }
}

fn concat(a: Info, b: Info) -> Info {
    if let (Some(x), Some(y)) = (&a.exact, &b.exact)
        && let Some(set) = product(x, y)
    {
        return Info {
            exact: Some(set),
            prefix: single(b""),
            suffix: single(b""),
            query: Query::and(a.query, b.query),
        }
        .trimmed();
    }
    // Trigrams across the junction: some suffix of `a` then some prefix of
    // `b` occurs, when both are known well enough.
    let mut query = Query::and(a.query.clone(), b.query.clone());
    if let Some(across) = product(a.suffixes(), b.prefixes()) {
        query = Query::and(query, set_query(&across));
    }
    let prefix = match &a.exact {
        Some(x) => product(x, b.prefixes()).unwrap_or_else(|| x.clone()),
        None => a.prefix.clone(),
    };
    let suffix = match &b.exact {
        Some(y) => product(a.suffixes(), y).unwrap_or_else(|| y.clone()),
        None => b.suffix.clone(),
    };
    // Exact sets that did not combine keep their own trigrams.
    if let Some(x) = &a.exact {
        query = Query::and(query, set_query(x));
    }
    if let Some(y) = &b.exact {
        query = Query::and(query, set_query(y));
    }
    Info {
        exact: None,
        prefix,
        suffix,
        query,
    }
    .trimmed()
}

fn alternate(subs: Vec<Info>) -> Info {
    if subs.iter().all(|s| s.exact.is_some()) {
        let mut set = Set::new();
        let mut queries = Vec::new();
        for s in subs {
            set.extend(s.exact.into_iter().flatten());
            queries.push(s.query);
        }
        // Each alternative's own query holds only for its matches: OR them.
        return Info {
            exact: Some(set),
            prefix: single(b""),
            suffix: single(b""),
            query: Query::or(queries),
        }
        .trimmed();
    }
    let mut prefix = Set::new();
    let mut suffix = Set::new();
    let mut queries = Vec::new();
    for s in subs {
        let s = s.inexact();
        prefix.extend(s.prefix);
        suffix.extend(s.suffix);
        queries.push(s.query);
    }
    Info {
        exact: None,
        prefix,
        suffix,
        query: Query::or(queries),
    }
    .trimmed()
}

/// A class: the set of its characters' lowercased UTF-8 (or byte) strings
/// when small, else "any character".
fn class_info(class: &Class) -> Info {
    // (first, last) code point or byte of each range, and whether they are
    // code points (encoded as UTF-8) or bytes.
    let (spans, unicode): (Vec<(u32, u32)>, bool) = match class {
        Class::Unicode(c) => (
            c.ranges()
                .iter()
                .map(|r| (u32::from(r.start()), u32::from(r.end())))
                .collect(),
            true,
        ),
        Class::Bytes(c) => (
            c.ranges()
                .iter()
                .map(|r| (u32::from(r.start()), u32::from(r.end())))
                .collect(),
            false,
        ),
    };
    let count: u32 = spans.iter().map(|(start, end)| end - start + 1).sum();
    if count > MAX_CLASS_CHARS {
        return Info::any();
    }
    let mut set = Set::new();
    let mut buf = [0u8; 4];
    for (start, end) in spans {
        for v in start..=end {
            if !unicode {
                // A byte range holds values below 256.
                set.insert(vec![(v as u8).to_ascii_lowercase()]);
            } else if let Some(ch) = char::from_u32(v) {
                set.insert(lower(ch.encode_utf8(&mut buf).as_bytes()));
            }
        }
    }
    if set.is_empty() {
        // A class that matches nothing: "anything" is still correct.
        return Info::any();
    }
    Info::exact(set)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri(s: &str) -> Query {
        Query::Tri(pack(s.as_bytes()))
    }

    fn and(qs: &[&str]) -> Query {
        qs.iter().fold(Query::All, |acc, s| Query::and(acc, tri(s)))
    }

    /// A file of `lines` filler lines (each `filler`), with `extra` lines
    /// put at the given line numbers.
    fn large_file(filler: &str, lines: usize, extra: &[(usize, &str)]) -> Vec<u8> {
        let mut out = Vec::new();
        for i in 0..lines {
            match extra.iter().find(|(at, _)| *at == i) {
                Some((_, text)) => out.extend_from_slice(text.as_bytes()),
                None => out.extend_from_slice(filler.as_bytes()),
            }
            out.push(b'\n');
        }
        out
    }

    fn block_admits(q: &Query, bytes: &[u8]) -> Option<bool> {
        let mut ts = Vec::new();
        file_trigrams(bytes, &mut ts);
        let (blocks, map) = block_map(bytes, &ts)?;
        Some(blocks_admit(q, blocks, &map))
    }

    #[test]
    fn block_maps_rule_out_trigrams_scattered_over_blocks() {
        let filler = "#define REG_FIELD_MASK 0x0000ffffL";
        let lines = 3 * BLOCKS_FROM / filler.len();
        // Every trigram of CONFIG_NUMA_BALANCING is in the file, on lines
        // far apart: no one line (nor block) holds them all.
        let scattered = large_file(
            filler,
            lines,
            &[
                (10, "#define CONFIG_NUMA 1"),
                (lines - 10, "#define NUMA_BALANCING 2"),
            ],
        );
        let q = plan_of("CONFIG_NUMA_BALANCING");
        assert!(admits(&q, std::str::from_utf8(&scattered).expect("utf8")));
        assert_eq!(block_admits(&q, &scattered), Some(false));
        // On one line (in one block, wherever it is): admitted, also
        // case-insensitively and as an alternative.
        for at in [0, lines / 2, lines - 1] {
            let whole = large_file(filler, lines, &[(at, "x = CONFIG_NUMA_BALANCING;")]);
            assert_eq!(block_admits(&q, &whole), Some(true), "line {at}");
            let qi = plan(&req_with(
                &["config_numa_balancing"],
                CaseMode::Insensitive,
                false,
            ));
            assert_eq!(block_admits(&qi, &whole), Some(true));
            let qo = plan_of("(nothing_here_at_all|CONFIG_NUMA_BALANCING)");
            assert_eq!(block_admits(&qo, &whole), Some(true));
        }
        // A query that narrows nothing admits every block.
        assert_eq!(block_admits(&Query::All, &scattered), Some(true));
        // One line longer than a block is a block of its own.
        let long = "CONFIG_NUMA ".repeat(BLOCK_BYTES / 6);
        let with_long = large_file(
            filler,
            lines,
            &[(lines / 3, &long), (lines / 3 + 1, "NUMA_BALANCING")],
        );
        assert_eq!(block_admits(&q, &with_long), Some(false));
        let long_match = "y ".repeat(BLOCK_BYTES) + "CONFIG_NUMA_BALANCING";
        let with_match = large_file(filler, lines, &[(lines / 3, &long_match)]);
        assert_eq!(block_admits(&q, &with_match), Some(true));
        // Small files have no block map; a map that does not parse admits.
        assert_eq!(block_admits(&q, filler.as_bytes()), None);
        assert!(blocks_admit(&q, 3, &[1, 2, 3]));
        assert!(blocks_admit(&q, 0, &[]));
    }

    fn req_with(patterns: &[&str], case: CaseMode, fixed: bool) -> KeywordRequest {
        KeywordRequest {
            patterns: patterns.iter().map(|p| p.to_string()).collect(),
            case,
            fixed_strings: fixed,
            ..KeywordRequest::default()
        }
    }

    fn plan_of(pattern: &str) -> Query {
        plan(&req_with(&[pattern], CaseMode::Sensitive, false))
    }

    /// The trigrams (as text) the query needs, for readable asserts.
    fn grams(q: &Query) -> Vec<String> {
        q.trigrams()
            .into_iter()
            .map(|t| {
                let b = [(t >> 16) as u8, (t >> 8) as u8, t as u8];
                String::from_utf8_lossy(&b).into_owned()
            })
            .collect()
    }

    /// Files (as texts) the query admits, by brute force over their
    /// trigrams: the check that planning is sound on concrete strings.
    fn admits(q: &Query, text: &str) -> bool {
        let mut ts = Vec::new();
        file_trigrams(text.as_bytes(), &mut ts);
        let mut f = |t: Trigram| -> Vec<u32> {
            if ts.binary_search(&t).is_ok() {
                vec![0]
            } else {
                vec![]
            }
        };
        q.eval(&mut f).is_none_or(|ids| ids == [0])
    }

    #[test]
    fn literals_need_all_their_trigrams() {
        assert_eq!(plan_of("hello"), and(&["hel", "ell", "llo"]));
        // Lowercased: case-sensitive uppercase literals use the same index.
        assert_eq!(plan_of("HeLLo"), and(&["hel", "ell", "llo"]));
        assert_eq!(plan_of("abc"), tri("abc"));
    }

    #[test]
    fn short_or_unselective_patterns_match_all() {
        for p in [
            "", ".", "ab", "\\w+", ".*", "a.b", "[a-z]+", "\\d\\d", "x*", "(ab)*", "^", "$",
            "\\bab\\b", "a|bcd", "(?s).",
        ] {
            assert!(plan_of(p).is_all(), "{p:?} gave {:?}", plan_of(p));
        }
    }

    #[test]
    fn alternations_are_or_of_their_branches() {
        let q = plan_of("foobar|bazqux");
        assert_eq!(
            q,
            Query::or([
                and(&["foo", "oob", "oba", "bar"]),
                and(&["baz", "azq", "zqu", "qux"])
            ])
        );
        // A common prefix and suffix around a small alternation stay exact.
        let q = plan_of("get_(user|group)_id");
        assert!(admits(&q, "x = get_user_id()"));
        assert!(admits(&q, "get_group_id"));
        assert!(!admits(&q, "get_other_id"));
    }

    #[test]
    fn classes_become_small_sets() {
        let q = plan_of("ab[cd]ef");
        assert!(admits(&q, "abcef"));
        assert!(admits(&q, "abdef"));
        assert!(!admits(&q, "abxef"));
        // A large class is any character: only the literal runs count.
        let q = plan_of("foo\\wbar");
        assert_eq!(grams(&q), ["bar", "foo"]);
        let q = plan_of("[0-9]+px_size");
        assert!(grams(&q).contains(&"px_".to_string()));
    }

    #[test]
    fn repetitions() {
        // At least one copy: its trigrams are required.
        assert_eq!(plan_of("(hello)+"), and(&["hel", "ell", "llo"]));
        assert!(admits(&plan_of("(hello){2,5}"), "hellohello"));
        // Optional parts: both with and without.
        let q = plan_of("colou?r");
        assert!(admits(&q, "color"));
        assert!(admits(&q, "colour"));
        assert!(!admits(&q, "colo"));
        // Zero or more adds nothing but keeps the rest.
        let q = plan_of("foo.*bar");
        assert_eq!(q, and(&["foo", "bar"]));
        let q = plan_of("fn\\s+parse_args");
        assert!(grams(&q).contains(&"par".to_string()));
        assert!(admits(&q, "fn  parse_args("));
    }

    #[test]
    fn anchors_and_escapes() {
        assert_eq!(plan_of("^impl Foo$"), plan_of("impl Foo"));
        assert_eq!(plan_of("\\bdef\\b"), tri("def"));
        assert_eq!(plan_of("a\\.b\\.c"), and(&["a.b", ".b.", "b.c"]));
        assert_eq!(plan_of("\\x41BC"), tri("abc"));
        // Escaped metacharacters are literals.
        let q = plan_of("foo\\(\\)");
        assert_eq!(q, and(&["foo", "oo(", "o()"]));
    }

    #[test]
    fn fixed_strings_are_literal() {
        let q = plan(&req_with(&["a.b*c(d"], CaseMode::Sensitive, true));
        assert!(admits(&q, "x a.b*c(d y"));
        assert!(!admits(&q, "aXbbbc(d"));
    }

    #[test]
    fn multiple_patterns_are_or() {
        let q = plan(&req_with(&["alpha", "omega"], CaseMode::Sensitive, false));
        assert!(admits(&q, "alpha"));
        assert!(admits(&q, "omega"));
        assert!(!admits(&q, "delta"));
        // One unselective pattern makes the whole request unselective.
        let q = plan(&req_with(&["alpha", "\\w+"], CaseMode::Sensitive, false));
        assert!(q.is_all());
    }

    #[test]
    fn case_insensitive_and_unicode_folding() {
        let q = plan(&req_with(&["Hello"], CaseMode::Insensitive, false));
        assert!(admits(&q, "HELLO"));
        assert!(admits(&q, "hello"));
        // `k` folds with KELVIN SIGN and `s` with LONG S: a file holding
        // only those spellings must stay a candidate.
        let q = plan(&req_with(&["kiss"], CaseMode::Insensitive, false));
        assert!(admits(&q, "\u{212A}i\u{17F}\u{17F}"));
        assert!(admits(&q, "KISS"));
        assert!(!admits(&q, "kill"));
        let q = plan(&req_with(&["straße"], CaseMode::Smart, false));
        assert!(admits(&q, "STRAßE"));
        // Non-ASCII letters in a case-insensitive search: both cases.
        let q = plan(&req_with(&["émile"], CaseMode::Insensitive, false));
        assert!(admits(&q, "ÉMILE"));
        assert!(admits(&q, "émile"));
        // Case-sensitive non-ASCII: exact bytes.
        let q = plan_of("日本語");
        assert!(admits(&q, "x日本語y"));
        assert!(!admits(&q, "日本"));
        // Inline flags.
        let q = plan_of("(?i)select");
        assert!(admits(&q, "SELECT"));
    }

    #[test]
    fn bytes_mode_and_invalid_patterns() {
        let q = plan_of("(?-u:\\xFF\\xFEAb)");
        assert_eq!(
            q.trigrams().into_iter().collect::<Vec<_>>(),
            [pack(&[0xFE, b'a', b'b']), pack(&[0xFF, 0xFE, b'a'])]
        );
        assert!(plan_of("foo(").is_all());
        assert!(
            plan_of("(?-u:\\w)bar(?-u:\\w)")
                .trigrams()
                .contains(&pack(b"bar"))
        );
    }

    #[test]
    fn big_patterns_stay_bounded() {
        let words: Vec<String> = (0..400).map(|i| format!("word{i:03}xyz")).collect();
        let q = plan_of(&words.join("|"));
        assert!(q.leaves() <= MAX_LEAVES);
        for w in &words[..5] {
            assert!(admits(&q, w));
        }
        // Many small classes in a row: the product is cut, the query stays.
        let q = plan_of("[ab][cd][ef][gh][ij][kl][mn][op]");
        assert!(admits(&q, "acegikmo"));
        assert!(admits(&q, "bdfhjlnp"));
    }

    #[test]
    fn soundness_on_generated_strings() {
        // For each pattern, strings it matches must be admitted.
        let cases: &[(&str, &[&str])] = &[
            ("foo(bar|baz)+qux", &["foobarbazqux", "foobazqux"]),
            ("a[0-9]{3}bcd", &["a123bcd"]),
            ("(?i)ПРИВЕТ", &["привет", "ПрИвЕт"]),
            ("(abc|de)(fgh|ij)", &["abcfgh", "abcij", "defgh", "deij"]),
            ("x(abc)?y(def)?z", &["xyz", "xabcyz", "xydefz"]),
            ("[Ss]elf\\.name", &["self.name", "Self.name"]),
            ("(?m)^class \\w+Error", &["class ValueError"]),
        ];
        for (pattern, texts) in cases {
            let re = regex::Regex::new(pattern).expect("valid regex");
            let q = plan_of(pattern);
            for text in *texts {
                assert!(re.is_match(text), "{pattern} vs {text}");
                assert!(admits(&q, text), "{pattern} must admit {text}: {q:?}");
            }
        }
    }

    /// Every line of this crate's sources (plus some Unicode) that a
    /// pattern matches must be admitted by its plan, in every case mode.
    #[test]
    fn plans_admit_every_matching_line_of_real_code() {
        fn rs_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).expect("read src dir").flatten() {
                let p = e.path();
                if p.is_dir() {
                    rs_files(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let mut files = Vec::new();
        rs_files(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &mut files,
        );
        let mut lines: Vec<String> = files
            .iter()
            .flat_map(|f| {
                std::fs::read_to_string(f)
                    .unwrap_or_default()
                    .lines()
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .collect();
        lines.extend(
            [
                "STRASSE Straße STRAẞE",
                "\u{212A}elvin KELVIN",
                "ſelf.name",
                "ΣΊΣΥΦΟΣ σίσυφος",
            ]
            .map(String::from),
        );
        let patterns = [
            "fn [a-z_]+\\(",
            "pub (fn|struct|enum) \\w+",
            "Result<\\w+>",
            "(?i)self",
            "k[a-z]+s",
            "straße",
            "σίσυφος",
            "unwrap_or(_else|_default)?\\(",
            "[A-Z][a-z]+Error",
            "\\.iter\\(\\)\\.map",
            "(abc|def|ghi)+",
            "x{2,}y",
            "struct\\s+[A-Z]",
            "elvin",
            "assert(_eq|_ne)?!",
        ];
        for pattern in patterns {
            for case in [CaseMode::Sensitive, CaseMode::Insensitive, CaseMode::Smart] {
                let q = plan(&req_with(&[pattern], case, false));
                let re = regex::RegexBuilder::new(pattern)
                    .case_insensitive(case != CaseMode::Sensitive)
                    .multi_line(true)
                    .build()
                    .expect("valid pattern");
                for line in lines.iter().filter(|l| re.is_match(l)) {
                    assert!(admits(&q, line), "{pattern} ({case:?}) must admit {line:?}");
                }
            }
        }
    }

    #[test]
    fn file_trigrams_match_a_sort_of_every_position_twice_over() {
        let unit = b"Fn parse_Args(x) { return X; }\n\t\xc3\xa9";
        let text: Vec<u8> = (0..(1 << 20) + 4096)
            .map(|i| unit[(i * 7 + i / 97) % unit.len()])
            .collect();
        let mut sorted: Vec<Trigram> = text
            .windows(3)
            .map(|w| pack(&w.to_ascii_lowercase()))
            .collect();
        sorted.sort_unstable();
        sorted.dedup();
        let mut got = Vec::new();
        file_trigrams(&text, &mut got);
        assert_eq!(got, sorted);
        // The bitmap is clean for the next file.
        file_trigrams(&text[..4096], &mut got);
        let mut head: Vec<Trigram> = text[..4096]
            .windows(3)
            .map(|w| pack(&w.to_ascii_lowercase()))
            .collect();
        head.sort_unstable();
        head.dedup();
        assert_eq!(got, head);
    }

    #[test]
    fn trigram_sort_matches_a_comparison_sort() {
        for n in [0usize, 1, 1023, 1024, 5000, 70_000] {
            let mut x: u32 = 12345;
            let mut keys: Vec<u32> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    x & 0xFF_FFFF
                })
                .collect();
            let mut expected = keys.clone();
            expected.sort_unstable();
            super::sort_trigrams(&mut keys);
            assert_eq!(keys, expected, "{n} keys");
        }
    }

    #[test]
    fn file_trigrams_are_lowercased_and_distinct() {
        let mut ts = Vec::new();
        file_trigrams(b"ABab", &mut ts);
        assert_eq!(ts, [pack(b"aba"), pack(b"bab")]);
        file_trigrams(b"ab", &mut ts);
        assert!(ts.is_empty());
    }

    #[test]
    fn eval_and_or() {
        let mut post = |t: Trigram| -> Vec<u32> {
            match t {
                t if t == pack(b"aaa") => vec![1, 2, 3],
                t if t == pack(b"bbb") => vec![2, 3, 4],
                t if t == pack(b"ccc") => vec![7],
                _ => vec![],
            }
        };
        let q = Query::And(vec![tri("aaa"), tri("bbb")]);
        assert_eq!(q.eval(&mut post), Some(vec![2, 3]));
        let q = Query::Or(vec![q, tri("ccc")]);
        assert_eq!(q.eval(&mut post), Some(vec![2, 3, 7]));
        assert_eq!(Query::All.eval(&mut post), None);
    }
}
