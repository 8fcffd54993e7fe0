//! Owns keyword search: ripgrep's matcher (`grep-regex`) and searcher
//! (`grep-searcher`) run over the shared walk ([`crate::walk`]) in parallel,
//! with results that are the same lines `rg -n` prints for the same flags.
//! Does not rank, read the index or know any wire format (the caller may
//! hand over a [`RuleOut`], the index's trigram postings in practice: a
//! file it rules out is counted as searched without being opened, which
//! cannot change a result, see `search::ngram`; nor (the CLI and MCP
//! layers own JSON shapes; the result types only derive `Serialize` so they
//! can be passed through as-is).
//!
//! How ripgrep equivalence is kept: the matcher and searcher are configured
//! with the knobs ripgrep's `hiargs.rs` sets (`multi_line(true)`, `\n` line
//! terminator, NUL banned, BOM sniffing, smart case on the joined patterns),
//! walked files use `BinaryDetection::quit(b'\0')` and explicitly given files
//! `BinaryDetection::convert(b'\0')` with the standard printer's rule that
//! nothing is reported after binary data was seen in a converted file; up to
//! ten explicit files are searched as one in-memory slice, like ripgrep's
//! memory maps (which changes where binary data is noticed).
//!
//! Context lines are reported exactly once, in the order the searcher emits
//! them: a line that is both after-context of one match and before-context of
//! the next is attached to the *earlier* match's `after` (as ripgrep prints it
//! once, between the two), and a matching line is never repeated as context.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use grep_matcher::Matcher;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{
    BinaryDetection, Searcher, SearcherBuilder, Sink, SinkContext, SinkContextKind, SinkMatch,
};
use ignore::{DirEntry, WalkState};
use serde::Serialize;

use crate::error::{ErrorCode, UserError};
use crate::walk::{self, WalkOptions};

/// Longest pattern accepted, in characters.
pub const MAX_PATTERN_CHARS: usize = 10_000;
/// Longest line text returned, in characters; longer lines are cut around the
/// first match and marked with [`ELLIPSIS`].
pub const MAX_LINE_CHARS: usize = 500;
/// Marks text cut from a long line.
pub const ELLIPSIS: &str = "…";
/// How many per-file failures are kept in [`KeywordResult::skipped`]; the
/// rest are only counted.
const MAX_SKIPPED_KEPT: usize = 100;
/// ripgrep memory-maps up to ten explicit files; an in-memory slice behaves
/// the same, but reading very large files whole is not worth matching it.
const MAX_SLICE_FILES: usize = 10;
const MAX_SLICE_BYTES: u64 = 64 << 20;
/// When a long line is cut, how many characters to keep before its first
/// match.
const CHARS_BEFORE_MATCH: usize = 100;

/// How letter case is matched.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CaseMode {
    /// Case matters (ripgrep's default).
    #[default]
    Sensitive,
    /// `-i`: case never matters.
    Insensitive,
    /// `-S`: case matters only if the patterns contain an uppercase literal
    /// character (ripgrep's rule, applied to all patterns together).
    Smart,
}

/// One keyword search. `Default` gives ripgrep's defaults with no pattern.
#[derive(Debug, Clone, Default)]
pub struct KeywordRequest {
    /// Patterns; a line matches if any one does (`-e` repeated).
    pub patterns: Vec<String>,
    /// `-F`: patterns are literal text, not regexes.
    pub fixed_strings: bool,
    pub case: CaseMode,
    /// `-w`: matches must start and end at (Unicode) word boundaries.
    pub word: bool,
    /// `-B`: lines of context before each match.
    pub before_context: usize,
    /// `-A`: lines of context after each match.
    pub after_context: usize,
    /// `-m`: matched lines reported per file at most.
    pub max_count: Option<u64>,
    /// Matched lines reported in total at most: the first ones in the
    /// result's order (path, then line), as if the unlimited result were cut
    /// there. Every file is still searched, so the counts stay exact.
    pub max_results: Option<usize>,
    pub walk: WalkOptions,
    /// Restrict the search to these files or directories inside the root
    /// (absolute, validated by the caller). Empty means the whole root. Files
    /// named here are searched even if ignored, as in ripgrep.
    pub paths: Vec<PathBuf>,
    /// Read every file even when the index's trigram postings could rule
    /// some out (`--no-index`); the service consults it, the search itself
    /// only uses the filter it is given.
    pub no_index: bool,
    /// Find only each matching line's first match (its column, the one
    /// range in `submatches`), not every match on it: `rg -n --column`'s
    /// text shows no more, and on a million matching lines the second
    /// regex run per line is a tenth of the search.
    pub first_match_only: bool,
    /// `-v`: report the lines that do not match (ripgrep's invert match);
    /// they have no match ranges and column 1.
    pub invert_match: bool,
}

/// Rules out files that cannot hold a match without opening them (the
/// index's trigram postings: `search::ngram::IndexFilter`).
pub trait RuleOut: Sync {
    /// True when the file at `rel` (root-relative, `/`-separated) cannot
    /// hold a match; `metadata` stats it when the answer depends on it.
    fn rules_out(&self, rel: &str, metadata: &dyn Fn() -> Option<std::fs::Metadata>) -> bool;
}

/// A matched line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KeywordMatch {
    /// Relative to the root, `/`-separated.
    pub path: String,
    /// 1-based line number.
    pub line: u64,
    /// 1-based byte column of the first match on the line (`rg --column`);
    /// 0 for a line shown because it does not match (`invert_match`).
    pub column: u64,
    /// The line without its terminator (`\n` or `\r\n`), lossy UTF-8, at most
    /// [`MAX_LINE_CHARS`] characters plus [`ELLIPSIS`] markers where cut.
    pub text: String,
    /// Byte ranges of each match within `text` (on char boundaries; parts
    /// cut from `text` are dropped or clipped).
    pub submatches: Vec<(usize, usize)>,
    /// Before-context lines, in order.
    pub before: Vec<ContextLine>,
    /// After-context lines, in order.
    pub after: Vec<ContextLine>,
}

/// A context line around a match.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContextLine {
    pub line: u64,
    /// Same rules as [`KeywordMatch::text`].
    pub text: String,
}

/// A file or directory that could not be searched; the search went on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// Relative to the root when known.
    pub path: Option<String>,
    pub reason: String,
}

/// The outcome of [`search_keyword`].
#[derive(Debug, Clone, Default, Serialize)]
pub struct KeywordResult {
    /// Sorted by path (component-wise, like `rg --sort path`), then line.
    pub matches: Vec<KeywordMatch>,
    /// Files opened and searched (binary files included).
    pub files_searched: usize,
    /// Files in which at least one matching line was found (reported or not).
    pub files_matched: usize,
    /// Matching lines in all searched files (what `rg --count` sums to), also
    /// those beyond `max_results`.
    pub total_matches: usize,
    /// True when more matching lines exist than `max_results` allowed
    /// (`total_matches > matches.len()`).
    pub truncated: bool,
    /// Files that matched but contain binary data, so not every match was
    /// reported: ripgrep's "binary file matches" (explicit files) and
    /// "stopped searching binary file after match" (walked files).
    pub binary_matched: Vec<String>,
    /// Per-file failures (unreadable files, bad ignore files), the first 100.
    pub skipped: Vec<Skipped>,
    /// All per-file failures, including those beyond `skipped`.
    pub skipped_count: usize,
    /// Secret values shown as `[redacted: …]` in these lines (filled in by
    /// the service; matching ran on the real text).
    pub redacted: usize,
    /// Files counted in `files_searched` that the index's postings ruled
    /// out without opening them (not part of any answer's shape).
    #[serde(skip)]
    pub index_ruled_out: usize,
}

/// What a caller makes of one file's matches (the CLI: redacted and
/// rendered as `rg` prints them), made by [`View`] on the thread that
/// searched the file, so it runs in parallel rather than on the one thread
/// that receives every file in order (on the kernel, `^\}` matches a
/// million lines: rendering them there made the search slower than `rg`).
#[derive(Debug, Default)]
pub struct Viewed {
    pub bytes: Vec<u8>,
    /// Matching lines the bytes show.
    pub matches: usize,
    /// The bytes start a group of context lines (the CLI separates it from
    /// the previous file's output with `--`).
    pub starts_group: bool,
}

/// Turns one file's matches (path, matches in line order) into a [`Viewed`].
pub type View<'a> = dyn Fn(&str, Vec<KeywordMatch>) -> Viewed + Sync + 'a;

/// A shorter way to the [`Viewed`] a [`View`] makes, for answers without
/// context lines: each matching line is handed over as the searcher finds
/// it, with no [`KeywordMatch`] made for it (on the kernel, building,
/// redacting and dropping one per line for `^\}`'s million lines was most
/// of what kept the search behind `rg`).
pub trait LineView: Sync {
    /// The view of the matching lines of the file at `path`.
    fn file<'s>(&'s self, path: &'s str) -> Box<dyn FileLines + 's>;
}

/// One file's [`LineView`]: its matching lines in order, then its view.
pub trait FileLines {
    /// Matching line `line`, its first match at byte `column` (1-based),
    /// `text` as [`KeywordMatch::text`] holds it.
    fn line(&mut self, line: u64, column: u64, text: &str);
    fn finish(self: Box<Self>) -> Viewed;
}

/// How a search makes each file's matches into a [`Viewed`].
#[derive(Clone, Copy)]
pub struct Views<'a> {
    pub file: &'a View<'a>,
    /// Stands in for `file` where the two give the same bytes by
    /// construction: no context lines, no `max_results` cut.
    pub lines: Option<&'a dyn LineView>,
}

impl<'a> Views<'a> {
    /// Only the per-file view.
    pub fn file(view: &'a View<'a>) -> Views<'a> {
        Views {
            file: view,
            lines: None,
        }
    }

    /// The line view when `req` allows it (see [`Views::lines`]).
    fn lines_for(&self, req: &KeywordRequest) -> Option<&'a dyn LineView> {
        let plain = req.before_context == 0 && req.after_context == 0 && req.max_results.is_none();
        self.lines.filter(|_| plain)
    }
}

/// Receives each file's [`Viewed`] (path, view) in the answer's order.
pub type EachViewed<'a> = dyn FnMut(String, Viewed) -> anyhow::Result<()> + Send + 'a;

/// Searches `root` (absolute) for `req`, like `rg -n` run from `root`.
///
/// Bad input (no pattern, a pattern too long, an invalid regex or glob)
/// returns a [`UserError`] with a hint. Unreadable files are recorded in
/// [`KeywordResult::skipped`] and do not stop the search.
pub fn search_keyword(root: &Path, req: &KeywordRequest) -> anyhow::Result<KeywordResult> {
    search_keyword_with(root, req, None)
}

/// [`search_keyword`], skipping the files `filter` rules out (with the
/// postings: a covered file unchanged since they were written and holding
/// none of the trigrams every match needs). The result is the same as
/// without it.
pub fn search_keyword_with(
    root: &Path,
    req: &KeywordRequest,
    filter: Option<&dyn RuleOut>,
) -> anyhow::Result<KeywordResult> {
    let outputs = walk_and_search(root, req, filter, None)?;
    Ok(merge(outputs, req.max_results))
}

/// [`search_keyword_with`] handing each file's matches, made into a
/// [`Viewed`] by `view`, to `each` in the answer's order once the walk is
/// done (its order is known only then). Without `max_results` every file
/// is viewed on the thread that searched it; with it, the first matches are
/// viewed here. The answer has the counts and no `matches`; an error from
/// `each` stops the hand-over and is returned.
pub fn search_keyword_each(
    root: &Path,
    req: &KeywordRequest,
    filter: Option<&dyn RuleOut>,
    views: Views<'_>,
    each: &mut EachViewed<'_>,
) -> anyhow::Result<KeywordResult> {
    let view = views.file;
    let mut outputs = walk_and_search(root, req, filter, Some(views))?;
    let mut files: Vec<FileHits> =
        Vec::with_capacity(outputs.iter().map(|out| out.files.len()).sum());
    for out in &mut outputs {
        files.append(&mut out.files);
    }
    let mut result = merge(outputs, None);
    // Each thread's files are sorted (`Worker::drop`): the stable sort
    // merges those runs.
    files.sort_by(|a, b| path_order(&a.path, &b.path));
    let mut room = req.max_results.unwrap_or(usize::MAX);
    for mut hits in files {
        if room == 0 {
            break;
        }
        hits.matches.truncate(room);
        let (path, viewed) = hits.into_viewed(view);
        room = room.saturating_sub(viewed.matches);
        each(path, viewed)?;
    }
    result.truncated = req
        .max_results
        .is_some_and(|max| result.total_matches > max);
    Ok(result)
}

/// The walk of [`search_keyword_with`]: every thread's output.
fn walk_and_search(
    root: &Path,
    req: &KeywordRequest,
    filter: Option<&dyn RuleOut>,
    views: Option<Views<'_>>,
) -> anyhow::Result<Vec<ThreadOutput>> {
    let matcher = build_matcher(req)?;
    // Explicit paths inside our own index directory are dropped, like walked
    // ones; asking only for those is an empty search.
    let paths: Vec<PathBuf> = req
        .paths
        .iter()
        .filter(|p| !walk::is_in_index_dir(root, p))
        .cloned()
        .collect();
    let mut builder = match paths.split_first() {
        None => walk::walk_builder(root, &req.walk)?,
        Some((first, rest)) => {
            let mut builder = walk::walk_builder_for(root, first, &req.walk)?;
            for path in rest {
                builder.add(path);
            }
            builder
        }
    };
    if (!req.paths.is_empty() && paths.is_empty()) || req.max_count == Some(0) {
        return Ok(Vec::new());
    }
    // ripgrep searches a single file on one thread.
    if paths.len() == 1 && !paths[0].is_dir() {
        builder.threads(1);
    }
    let slice_explicit =
        !paths.is_empty() && paths.len() <= MAX_SLICE_FILES && paths.iter().all(|p| p.is_file());

    let searcher = build_searcher(req);
    let shared = Shared {
        root,
        max_results: req.max_results,
        slice_explicit,
        filter,
        first_match_only: req.first_match_only,
        column_one: req.first_match_only && (req.invert_match || starts_lines(req)),
        inverted: req.invert_match,
        view: views.map(|v| v.file).filter(|_| req.max_results.is_none()),
        lines: views.and_then(|v| v.lines_for(req)),
        outputs: Mutex::new(Vec::new()),
        shown_all: AtomicBool::new(false),
    };
    builder.build_parallel().run(|| {
        let mut worker = Worker {
            shared: &shared,
            matcher: matcher.clone(),
            searcher: searcher.clone(),
            out: ThreadOutput::default(),
        };
        Box::new(move |entry| worker.visit(entry))
    });

    Ok(shared
        .outputs
        .into_inner()
        .unwrap_or_else(|e| e.into_inner()))
}

/// Searches the given files (root-relative, regular files the walk would
/// yield: in practice the index's docs a watcher vouches for, see
/// `search::ngram::Listed`) as a walk would, counting `ruled_out` more files
/// as searched without opening them. The result is the walk's when the
/// list is the walk's files minus ruled-out ones.
pub fn search_keyword_listed(
    root: &Path,
    req: &KeywordRequest,
    files: &[String],
    ruled_out: usize,
) -> anyhow::Result<KeywordResult> {
    let mut matches = Vec::new();
    let mut result = listed_run(root, req, files, ruled_out, None, &mut |hits| {
        matches.extend(hits.matches);
        Ok(())
    })?;
    result.matches = matches;
    Ok(result)
}

/// [`search_keyword_listed`] that hands each file's matches, made into a
/// [`Viewed`] by `view`, to `each` (path, view) in the result's order as
/// soon as every file before it is done, instead of keeping them all: a
/// search matching a million lines holds a few files' output, not all of
/// it (on the kernel, `^\}` took 430 MB and was slower than `rg`, mostly
/// page faults and copies). Without `max_results`, `view` runs on the
/// thread that searched the file; with it, only the first matches are
/// viewed and handed over (every file is still searched for the counts).
/// The result carries the counts and no `matches`. An error from `each`
/// (say, a closed pipe) stops the search and is returned.
pub fn search_keyword_listed_each(
    root: &Path,
    req: &KeywordRequest,
    files: &[String],
    ruled_out: usize,
    views: Views<'_>,
    each: &mut EachViewed<'_>,
) -> anyhow::Result<KeywordResult> {
    listed_run(root, req, files, ruled_out, Some(views), &mut |hits| {
        let (path, viewed) = hits.into_viewed(views.file);
        each(path, viewed)
    })
}

/// The search of [`search_keyword_listed`]: hands each file's hits (cut to
/// what `max_results` leaves room for; viewed by `view` when there is no
/// such cut) to `each` in order.
fn listed_run(
    root: &Path,
    req: &KeywordRequest,
    files: &[String],
    ruled_out: usize,
    views: Option<Views<'_>>,
    each: &mut (dyn FnMut(FileHits) -> anyhow::Result<()> + Send),
) -> anyhow::Result<KeywordResult> {
    let matcher = build_matcher(req)?;
    if req.max_count == Some(0) {
        return Ok(KeywordResult::default());
    }
    let mut order: Vec<&String> = files.iter().collect();
    order.sort_unstable_by(|a, b| path_order(a, b));
    let searcher = build_searcher(req);
    let shared = Shared {
        root,
        max_results: None,
        slice_explicit: false,
        filter: None,
        first_match_only: req.first_match_only,
        column_one: req.first_match_only && (req.invert_match || starts_lines(req)),
        inverted: req.invert_match,
        view: views.map(|v| v.file).filter(|_| req.max_results.is_none()),
        lines: views.and_then(|v| v.lines_for(req)),
        outputs: Mutex::new(Vec::new()),
        shown_all: AtomicBool::new(false),
    };
    let (next, stop) = (AtomicUsize::new(0), AtomicBool::new(false));
    let threads = walk::effective_threads(req.walk.threads)
        .min(order.len())
        .max(1);
    // Files finish out of order: a file's matches wait until every file
    // before it is done, then whichever worker finds them ready hands them
    // over (no thread of its own: a third thread on two cores, woken per
    // file, cost more than it saved).
    let done: Vec<AtomicBool> = order.iter().map(|_| AtomicBool::new(false)).collect();
    let emitter = Mutex::new(Emitter {
        waiting: std::collections::BTreeMap::new(),
        next: 0,
        room: req.max_results.unwrap_or(usize::MAX),
        failed: None,
        each,
    });
    // The index's walk, like a search's, lists no link unless following
    // them: a listed file is then opened as no link ([`Listed`]).
    let listed = if req.walk.follow_links {
        Listed::Regular
    } else {
        Listed::RegularFile
    };
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let searcher = searcher.clone();
            let (shared, matcher, next, stop, order, done, emitter) =
                (&shared, &matcher, &next, &stop, &order, &done, &emitter);
            scope.spawn(move || {
                let mut worker = Worker {
                    shared,
                    matcher: matcher.clone(),
                    searcher,
                    out: ThreadOutput::default(),
                };
                while !stop.load(Ordering::Relaxed) {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(rel) = order.get(i) else { break };
                    let hits = worker
                        .search_path(&root.join(rel), (*rel).clone(), false, listed)
                        .map(|hits| worker.viewed(hits));
                    // A file with matches is marked done only once they
                    // wait in the emitter, or they would be skipped.
                    let mut em = match hits {
                        Some(hits) => {
                            let mut em = emitter.lock().unwrap_or_else(|e| e.into_inner());
                            em.waiting.insert(i, hits);
                            done[i].store(true, Ordering::Release);
                            em
                        }
                        // Nothing to add: hand over only if no one else is.
                        None => {
                            done[i].store(true, Ordering::Release);
                            match emitter.try_lock() {
                                Ok(em) => em,
                                Err(_) => continue,
                            }
                        }
                    };
                    if !em.hand_over(done) {
                        stop.store(true, Ordering::Relaxed);
                    }
                    if em.room == 0 {
                        shared.shown_all.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let mut em = emitter.into_inner().unwrap_or_else(|e| e.into_inner());
    // Every worker is done, so is every file (or `each` failed): what a
    // lost `try_lock` left waiting goes now.
    em.hand_over(&done);
    if let Some(e) = em.failed.take() {
        return Err(e);
    }
    let outputs = shared
        .outputs
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    let mut result = merge(outputs, None);
    result.truncated = req
        .max_results
        .is_some_and(|max| result.total_matches > max);
    result.files_searched += ruled_out;
    result.index_ruled_out += ruled_out;
    Ok(result)
}

/// Hands files' matches over in order for [`search_keyword_listed_each`].
struct Emitter<'e> {
    /// Found, waiting for the files before them.
    waiting: std::collections::BTreeMap<usize, FileHits>,
    /// The next file (in order) to hand over.
    next: usize,
    /// Matches that may still be handed over (`max_results`).
    room: usize,
    failed: Option<anyhow::Error>,
    each: &'e mut (dyn FnMut(FileHits) -> anyhow::Result<()> + Send),
}

impl Emitter<'_> {
    /// Hands over every file whose predecessors are all done. False once
    /// `each` failed.
    fn hand_over(&mut self, done: &[AtomicBool]) -> bool {
        while self.next < done.len() && done[self.next].load(Ordering::Acquire) {
            let hits = self.waiting.remove(&self.next);
            self.next += 1;
            let Some(mut hits) = hits else { continue };
            if self.failed.is_some() || self.room == 0 {
                continue;
            }
            hits.matches.truncate(self.room);
            self.room -= hits.count();
            if let Err(e) = (self.each)(hits) {
                self.failed = Some(e);
            }
        }
        self.failed.is_none()
    }
}

/// The order of [`KeywordResult::matches`]' paths (component-wise, as
/// `Path`'s) for clean root-relative paths, without parsing them: `/`
/// sorts before every other byte.
fn path_order(a: &str, b: &str) -> std::cmp::Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    // Only the first differing byte decides (or the shorter path first);
    // found eight bytes at a time (paths share long prefixes).
    let n = a.len().min(b.len());
    let words = a[..n].chunks_exact(8).zip(b[..n].chunks_exact(8));
    let same = words.take_while(|(x, y)| x == y).count() * 8;
    let common = same
        + a[same..n]
            .iter()
            .zip(&b[same..n])
            .take_while(|(x, y)| x == y)
            .count();
    let key = |c: Option<&u8>| c.map(|&c| if c == b'/' { 0 } else { u16::from(c) + 1 });
    key(a.get(common)).cmp(&key(b.get(common)))
}

/// The searcher ripgrep configures for the request's flags (walked files:
/// binary detection by quitting at a NUL byte).
fn build_searcher(req: &KeywordRequest) -> Searcher {
    SearcherBuilder::new()
        .line_terminator(grep_matcher::LineTerminator::byte(b'\n'))
        .line_number(true)
        .multi_line(false)
        .before_context(req.before_context)
        .after_context(req.after_context)
        .max_matches(req.max_count)
        .invert_match(req.invert_match)
        .bom_sniffing(true)
        .binary_detection(BinaryDetection::quit(b'\0'))
        .build()
}

/// Builds the matcher exactly as ripgrep's `matcher_rust` does for the
/// request's flags, turning bad patterns into a `UserError`.
fn build_matcher(req: &KeywordRequest) -> anyhow::Result<RegexMatcher> {
    if req.patterns.is_empty() {
        return Err(
            UserError::with_code(ErrorCode::InvalidQuery, "no pattern given")
                .hint("give a pattern to search for, or several with -e")
                .agent("give `pattern`, or several in `patterns`")
                .into(),
        );
    }
    for pattern in &req.patterns {
        let chars = pattern.chars().count();
        if chars > MAX_PATTERN_CHARS {
            return Err(UserError::new(format!(
                "pattern is too long: {chars} characters, the limit is {MAX_PATTERN_CHARS}"
            ))
            .hint("search for a shorter, more specific pattern")
            .into());
        }
    }
    // Like ripgrep, drop duplicate patterns: they cost compile time only.
    let mut seen = std::collections::HashSet::with_capacity(req.patterns.len());
    let patterns: Vec<&str> = req
        .patterns
        .iter()
        .map(String::as_str)
        .filter(|p| seen.insert(*p))
        .collect();
    let mut builder = RegexMatcherBuilder::new();
    builder
        .multi_line(true)
        .unicode(true)
        .octal(false)
        .fixed_strings(req.fixed_strings)
        .line_terminator(Some(b'\n'))
        .dot_matches_new_line(false)
        .ban_byte(Some(b'\0'))
        .word(req.word);
    match req.case {
        CaseMode::Sensitive => builder.case_insensitive(false),
        CaseMode::Insensitive => builder.case_insensitive(true),
        CaseMode::Smart => builder.case_smart(true),
    };
    match builder.build_many(&patterns) {
        Ok(matcher) => Ok(matcher),
        Err(err) => {
            // Name the culprit: the combined error's position refers to the
            // joined alternation, which the user never wrote.
            let culprit = if patterns.len() > 1 {
                patterns
                    .iter()
                    .find_map(|p| builder.build(p).err().map(|e| (*p, e)))
            } else {
                None
            };
            let (pattern, err) = match culprit {
                Some((pattern, err)) => (quote_pattern(pattern), err),
                None if patterns.len() == 1 => (quote_pattern(patterns[0]), err),
                None => (format!("({} patterns combined)", patterns.len()), err),
            };
            Err(regex_user_error(&pattern, &err).into())
        }
    }
}

/// True when every match of the request's patterns starts at a line start
/// (each pattern begins with `^` in ripgrep's multi-line sense, `-w` and
/// `-F` off), so the first match on a matching line is at column 1.
fn starts_lines(req: &KeywordRequest) -> bool {
    use regex_syntax::hir::Look;
    if req.word || req.fixed_strings {
        return false;
    }
    req.patterns.iter().all(|pattern| {
        parse_pattern(pattern, false).is_some_and(|hir| {
            let prefix = hir.properties().look_set_prefix();
            prefix.contains(Look::StartLF) || prefix.contains(Look::Start)
        })
    })
}

/// `pattern` parsed with the knobs [`build_matcher`] gives ripgrep's
/// matcher (bytes allowed where UTF-8 is not valid), for analysing what
/// its matches can be; `None` when it does not parse (the matcher reports
/// why).
pub(crate) fn parse_pattern(
    pattern: &str,
    case_insensitive: bool,
) -> Option<regex_syntax::hir::Hir> {
    regex_syntax::ParserBuilder::new()
        .case_insensitive(case_insensitive)
        .multi_line(true)
        .unicode(true)
        .octal(false)
        .dot_matches_new_line(false)
        .utf8(false)
        .build()
        .parse(pattern)
        .ok()
}

/// `pattern` in backticks, shortened for a one-line message.
fn quote_pattern(pattern: &str) -> String {
    const SHOWN: usize = 80;
    if pattern.chars().count() <= SHOWN {
        format!("`{pattern}`")
    } else {
        let head: String = pattern.chars().take(SHOWN).collect();
        format!("`{head}{ELLIPSIS}`")
    }
}

fn regex_user_error(pattern: &str, err: &grep_regex::Error) -> UserError {
    let full = err.to_string();
    // regex-syntax errors are a multi-line diagram ending in `error: ...`;
    // the last such line is the one-line summary.
    let summary = full
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .or_else(|| full.lines().map(str::trim).find(|l| !l.is_empty()))
        .unwrap_or("invalid pattern")
        .to_string();
    let (hint, agent) = match err.kind() {
        grep_regex::ErrorKind::NotAllowed(_) => {
            let h =
                "keyword search matches within one line; search for one line of the text at a time";
            (h, h)
        }
        grep_regex::ErrorKind::Banned(_) => {
            let h = "NUL bytes mark binary files, which are not searched; remove the NUL from the pattern";
            (h, h)
        }
        _ if summary.contains("size limit") => (
            "make the pattern smaller (fewer or bounded repetitions, fewer alternatives), \
             or use --fixed-strings (-F) for literal text",
            "make the pattern smaller (fewer or bounded repetitions, fewer alternatives), \
             or use fixed_strings: true for literal text",
        ),
        _ => (
            "use --fixed-strings (-F) to search for the literal text",
            "use fixed_strings: true to search for the literal text",
        ),
    };
    UserError::with_code(
        ErrorCode::InvalidQuery,
        format!("invalid regex {pattern}: {summary}"),
    )
    .hint(hint)
    .agent(agent)
}

/// State shared by all walker threads.
struct Shared<'a> {
    root: &'a Path,
    /// The first this many matches (by path, then line) are kept; every
    /// thread keeps at most this many of its own, so their union holds them.
    max_results: Option<usize>,
    /// Search explicit files as one in-memory slice (ripgrep's memory maps).
    slice_explicit: bool,
    /// Files the index's postings rule out are not opened.
    filter: Option<&'a dyn RuleOut>,
    /// [`KeywordRequest::first_match_only`].
    first_match_only: bool,
    /// Every match starts its line (see [`starts_lines`]), so with
    /// `first_match_only` a line's column is 1 without running the regex.
    column_one: bool,
    /// [`KeywordRequest::invert_match`]: lines have no column.
    inverted: bool,
    /// Views each file's matches on the thread that found them (only
    /// without `max_results`: the cut must come first).
    view: Option<&'a View<'a>>,
    /// Stands in for `view` (see [`Views::lines`]).
    lines: Option<&'a dyn LineView>,
    outputs: Mutex<Vec<ThreadOutput>>,
    /// Set once every match that will be shown is found (files handed over
    /// in order, `max_results` reached): later files are only counted.
    shown_all: AtomicBool,
}

/// What one walker thread found; merged once all threads are done.
#[derive(Default)]
struct ThreadOutput {
    /// With `max_results`, only this thread's first `max_results` matches
    /// in path order (see [`ThreadOutput::keep_first`]).
    files: Vec<FileHits>,
    /// Matches held in `files`.
    held: usize,
    files_searched: usize,
    files_matched: usize,
    total_matches: usize,
    binary_matched: Vec<String>,
    skipped: Vec<Skipped>,
    skipped_count: usize,
    index_ruled_out: usize,
}

impl ThreadOutput {
    fn skip(&mut self, path: Option<String>, reason: String) {
        self.skipped_count += 1;
        if self.skipped.len() < MAX_SKIPPED_KEPT {
            self.skipped.push(Skipped { path, reason });
        }
    }

    /// How many matches a file at `path` may still need to store: none when
    /// this thread already holds `max` matches all sorting before it.
    fn room_for(&self, path: &str, max: Option<usize>) -> usize {
        let Some(max) = max else {
            return usize::MAX;
        };
        let full_before = self.held >= max
            && self
                .files
                .iter()
                .all(|f| Path::new(&f.path) < Path::new(path));
        if full_before { 0 } else { max }
    }

    /// Adds a file's matches, then drops what cannot be among the first
    /// `max` matches in path order: a thread's first `max` hold every one of
    /// its matches that the overall first `max` hold.
    fn keep_first(&mut self, hits: FileHits, max: Option<usize>) {
        self.held += hits.count();
        self.files.push(hits);
        let Some(max) = max else {
            return;
        };
        if self.held <= max {
            return;
        }
        self.files
            .sort_by(|a, b| Path::new(&a.path).cmp(Path::new(&b.path)));
        let mut held = 0;
        let mut keep_files = 0;
        for file in &mut self.files {
            if held >= max {
                break;
            }
            file.matches.truncate(max - held);
            held += file.matches.len();
            keep_files += 1;
        }
        self.files.truncate(keep_files);
        self.held = held;
    }
}

struct FileHits {
    path: String,
    /// Empty once viewed.
    matches: Vec<KeywordMatch>,
    viewed: Option<Viewed>,
}

impl FileHits {
    /// Matching lines held, as matches or viewed.
    fn count(&self) -> usize {
        self.viewed
            .as_ref()
            .map_or(self.matches.len(), |v| v.matches)
    }

    /// The path and its view: made on the searching thread already, or by
    /// `view` now (when a `max_results` cut had to come first).
    fn into_viewed(self, view: &View<'_>) -> (String, Viewed) {
        let viewed = match self.viewed {
            Some(viewed) => viewed,
            None => view(&self.path, self.matches),
        };
        (self.path, viewed)
    }
}

/// One walker thread: its own matcher and searcher (their caches are not
/// shared between threads) and its own results.
struct Worker<'a> {
    shared: &'a Shared<'a>,
    matcher: RegexMatcher,
    searcher: Searcher,
    out: ThreadOutput,
}

/// What a directory listing said about a path to search.
#[derive(Clone, Copy)]
enum Listed {
    /// A regular file, not a symbolic link
    /// ([`crate::fs_safe::open_listed_file`]).
    RegularFile,
    /// A symbolic link to a regular file
    /// ([`crate::fs_safe::open_listed_regular`]).
    Regular,
    /// Nothing (named by the user, or not said to be a regular file).
    Unchecked,
}

impl Drop for Worker<'_> {
    /// Hands the thread's results over when the walker drops the visitor at
    /// the end of the walk.
    fn drop(&mut self) {
        let mut out = std::mem::take(&mut self.out);
        // In order here, on the walk's threads: the caller then merges
        // sorted runs instead of sorting every file on one thread.
        out.files
            .sort_unstable_by(|a, b| path_order(&a.path, &b.path));
        self.shared
            .outputs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(out);
    }
}

impl Worker<'_> {
    fn visit(&mut self, entry: Result<DirEntry, ignore::Error>) -> WalkState {
        let entry = match entry {
            Ok(entry) => entry,
            Err(err) => {
                self.out.skip(None, err.to_string());
                return WalkState::Continue;
            }
        };
        if let Some(err) = entry.error() {
            // A problem in an ignore file (for example a bad glob); ripgrep
            // reports it and carries on with the rest of that file's rules.
            let path = walk::rel_path(self.shared.root, entry.path());
            self.out.skip(Some(path), err.to_string());
        }
        if walk::is_searchable_file(&entry) {
            self.search_file(&entry);
        }
        WalkState::Continue
    }

    fn search_file(&mut self, entry: &DirEntry) {
        let shared = self.shared;
        let explicit = walk::is_explicit_file(entry);
        let path = entry.path();
        let rel = walk::rel_path(shared.root, path);
        if let Some(filter) = shared.filter
            && filter.rules_out(&rel, &|| entry.metadata().ok())
        {
            // Searching it would find nothing: count it as searched so the
            // result is the one a full scan gives.
            self.out.files_searched += 1;
            self.out.index_ruled_out += 1;
            return;
        }
        let listed = if explicit || !entry.file_type().is_some_and(|t| t.is_file()) {
            Listed::Unchecked
        } else if entry.path_is_symlink() {
            Listed::Regular
        } else {
            Listed::RegularFile
        };
        let hits = self.search_path(path, rel, explicit, listed);
        self.keep(hits);
    }

    /// Searches one file; its matches (none: `None`) for the caller to keep
    /// or hand over. `listed`: what a listing just said `path` is.
    fn search_path(
        &mut self,
        path: &Path,
        rel: String,
        explicit: bool,
        listed: Listed,
    ) -> Option<FileHits> {
        let shared = self.shared;
        self.searcher.set_binary_detection(if explicit {
            BinaryDetection::convert(b'\0')
        } else {
            BinaryDetection::quit(b'\0')
        });
        let room = if shared.shown_all.load(Ordering::Relaxed) {
            0
        } else {
            self.out.room_for(&rel, shared.max_results)
        };
        let mut sink = FileSink {
            matcher: &self.matcher,
            room,
            last_stored: false,
            path: &rel,
            convert_binary: explicit,
            matches: Vec::new(),
            pending_before: Vec::new(),
            ranges: Vec::new(),
            first_match_only: shared.first_match_only,
            column_one: shared.column_one,
            inverted: shared.inverted,
            line_view: shared.lines,
            lines: None,
            lines_held: 0,
            binary_offset: None,
            matched_lines: 0,
            binary_suppressed: false,
        };
        // Opened only when regular (a FIFO, socket or device, even given
        // explicitly, is skipped at once instead of blocking the search).
        let opened = match listed {
            Listed::RegularFile => crate::fs_safe::open_listed_file(path),
            Listed::Regular => crate::fs_safe::open_listed_regular(path),
            Listed::Unchecked => crate::fs_safe::open_regular(path),
        };
        let result = opened.and_then(|file| {
            if explicit && shared.slice_explicit {
                search_whole_file(&mut self.searcher, &self.matcher, &file, &mut sink)
            } else {
                self.searcher.search_file(&self.matcher, &file, &mut sink)
            }
        });
        // The sink borrows `rel` (its line view too): what it found first.
        let viewed = sink.lines.take().map(|lines| lines.finish());
        let matches = std::mem::take(&mut sink.matches);
        let (matched_lines, binary) = (sink.matched_lines, sink.binary_offset.is_some());
        let matched = matched_lines > 0 || sink.binary_suppressed;
        drop(sink);
        if let Err(err) = result {
            self.out.skip(Some(rel), err.to_string());
            return None;
        }
        self.out.files_searched += 1;
        self.out.total_matches += matched_lines;
        if matched {
            self.out.files_matched += 1;
            if binary {
                self.out.binary_matched.push(rel.clone());
            }
        }
        (viewed.is_some() || !matches.is_empty()).then_some(FileHits {
            path: rel,
            matches,
            viewed,
        })
    }

    /// Keeps a file's matches in this thread's output (see
    /// [`ThreadOutput::keep_first`]).
    fn keep(&mut self, hits: Option<FileHits>) {
        if let Some(hits) = hits {
            let hits = self.viewed(hits);
            self.out.keep_first(hits, self.shared.max_results);
        }
    }

    /// The hits made into a [`Viewed`] here when the search has a view for
    /// this thread to run.
    fn viewed(&self, mut hits: FileHits) -> FileHits {
        if let Some(view) = self.shared.view
            && hits.viewed.is_none()
        {
            hits.viewed = Some(view(&hits.path, std::mem::take(&mut hits.matches)));
        }
        hits
    }
}

/// Searches an explicit file as one slice, the way ripgrep searches it
/// through a memory map: binary data beyond the first buffer is noticed only
/// on reported lines. Very large files fall back to the streaming reader.
fn search_whole_file(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    file: &std::fs::File,
    sink: &mut FileSink<'_>,
) -> io::Result<()> {
    let len = file.metadata()?.len();
    if len > MAX_SLICE_BYTES {
        return searcher.search_file(matcher, file, sink);
    }
    let mut bytes = Vec::with_capacity(len as usize + 1);
    io::Read::read_to_end(&mut &*file, &mut bytes)?;
    searcher.search_slice(matcher, &bytes, sink)
}

/// Collects one file's matches, mirroring ripgrep's standard printer.
struct FileSink<'a> {
    matcher: &'a RegexMatcher,
    /// How many matches this file may store; later ones are only counted.
    room: usize,
    /// The latest matching line was stored (its after-context belongs to it).
    last_stored: bool,
    path: &'a str,
    /// The file is searched with `BinaryDetection::convert`: once binary data
    /// is seen, nothing more is reported (ripgrep's printer stops there).
    convert_binary: bool,
    matches: Vec<KeywordMatch>,
    /// Before-context waiting for the match it precedes.
    pending_before: Vec<ContextLine>,
    /// Scratch space for submatch ranges.
    ranges: Vec<(usize, usize)>,
    /// [`KeywordRequest::first_match_only`].
    first_match_only: bool,
    /// [`Shared::column_one`].
    column_one: bool,
    /// [`Shared::inverted`].
    inverted: bool,
    /// Matching lines go to this view's `lines` instead of `matches`.
    line_view: Option<&'a dyn LineView>,
    /// The file's view, from its first matching line on.
    lines: Option<Box<dyn FileLines + 'a>>,
    /// Lines handed to `lines`.
    lines_held: usize,
    binary_offset: Option<u64>,
    /// Matching lines found in this file (stored or only counted).
    matched_lines: usize,
    /// A match came after binary data in a converted file and was withheld.
    binary_suppressed: bool,
}

impl FileSink<'_> {
    /// Matching lines stored so far, as matches or handed to the line view.
    fn stored(&self) -> usize {
        self.matches.len() + self.lines_held
    }
}

impl Sink for FileSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        if self.convert_binary && self.binary_offset.is_some() {
            self.binary_suppressed = true;
            return Ok(false);
        }
        self.matched_lines += 1;
        // Beyond what can be among the first `max_results`: counted only,
        // and the search goes on so the total is exact.
        if self.stored() >= self.room {
            self.last_stored = false;
            self.pending_before.clear();
            return Ok(true);
        }
        self.last_stored = true;
        let (line, had_terminator) = without_terminator(mat.bytes());
        let shown = displayed(line);
        // A line view takes a short UTF-8 line as it is, else as rendered
        // for a match.
        let plain = self
            .line_view
            .and_then(|_| std::str::from_utf8(shown).ok())
            .filter(|text| text.len() <= MAX_LINE_CHARS);
        self.ranges.clear();
        // The matches are needed for the column and the rendering; a plain
        // line whose every match starts it has column 1 without a regex run.
        if !(self.column_one && plain.is_some()) {
            let ranges = &mut self.ranges;
            let first_only = self.first_match_only;
            self.matcher
                .find_iter(line, |m| {
                    ranges.push((m.start(), m.end()));
                    !first_only
                })
                .map_err(|e| io::Error::other(e.to_string()))?;
        }
        // ripgrep's printer drops an empty match at the very end of the
        // searched bytes (`record_matches`); only a last line without a
        // terminator can have one there.
        if !had_terminator
            && self
                .ranges
                .last()
                .is_some_and(|&(s, e)| s == e && s >= line.len())
        {
            self.ranges.pop();
        }
        let column = match self.ranges.first() {
            _ if self.inverted => 0,
            Some(&(s, _)) => s as u64 + 1,
            None => 1,
        };
        if shown.len() < line.len() {
            // A match of the hidden `\r` itself is clipped to the line's end.
            for range in &mut self.ranges {
                range.0 = range.0.min(shown.len());
                range.1 = range.1.min(shown.len());
            }
        }
        let line_number = mat.line_number().unwrap_or(0);
        if let Some(view) = self.line_view {
            let (path, ranges) = (self.path, &self.ranges);
            let lines = self.lines.get_or_insert_with(|| view.file(path));
            match plain {
                Some(text) => lines.line(line_number, column, text),
                None => lines.line(line_number, column, &render_line(shown, ranges).0),
            }
            self.lines_held += 1;
            return Ok(true);
        }
        let (text, submatches) = render_line(shown, &self.ranges);
        self.matches.push(KeywordMatch {
            path: self.path.to_string(),
            line: line_number,
            column,
            text,
            submatches,
            before: std::mem::take(&mut self.pending_before),
            after: Vec::new(),
        });
        Ok(true)
    }

    fn context(&mut self, _searcher: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, io::Error> {
        if self.convert_binary && self.binary_offset.is_some() {
            return Ok(false);
        }
        let (line, _) = without_terminator(ctx.bytes());
        let full = self.stored() >= self.room;
        let keep = match ctx.kind() {
            SinkContextKind::Before => !full,
            SinkContextKind::After => self.last_stored || !full,
            SinkContextKind::Other => false,
        };
        if !keep {
            return Ok(true);
        }
        let context = ContextLine {
            line: ctx.line_number().unwrap_or(0),
            text: render_line(displayed(line), &[]).0,
        };
        match ctx.kind() {
            SinkContextKind::Before => self.pending_before.push(context),
            SinkContextKind::After => match self.matches.last_mut() {
                Some(last) if self.last_stored => last.after.push(context),
                _ => self.pending_before.push(context),
            },
            SinkContextKind::Other => {}
        }
        Ok(true)
    }

    fn binary_data(&mut self, _searcher: &Searcher, offset: u64) -> Result<bool, io::Error> {
        self.binary_offset = Some(offset);
        Ok(true)
    }
}

/// The line without its `\n`, and whether it had one. A `\r` before it
/// stays: without `--crlf` ripgrep matches it as part of the line.
fn without_terminator(bytes: &[u8]) -> (&[u8], bool) {
    match bytes.strip_suffix(b"\n") {
        Some(line) => (line, true),
        None => (bytes, false),
    }
}

/// The part of a line that is displayed: without the `\r` of a CRLF file.
fn displayed(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Turns line bytes into display text (lossy UTF-8, cut to
/// [`MAX_LINE_CHARS`]) and maps the byte ranges `ranges` of `line` onto it.
fn render_line(line: &[u8], ranges: &[(usize, usize)]) -> (String, Vec<(usize, usize)>) {
    let (text, mapped) = match std::str::from_utf8(line) {
        Ok(text) => (text.to_owned(), ranges.to_vec()),
        Err(_) => lossy_with_ranges(line, ranges),
    };
    // Byte length bounds the character count, so short lines skip counting.
    let (text, mut mapped) = if text.len() <= MAX_LINE_CHARS {
        (text, mapped)
    } else {
        cut_long_line(text, mapped)
    };
    // A byte-oriented pattern can match inside a multi-byte character; keep
    // ranges on character boundaries so `text[s..e]` is always valid.
    for range in &mut mapped {
        range.0 = floor_char_boundary(&text, range.0);
        range.1 = ceil_char_boundary(&text, range.1.max(range.0));
    }
    (text, mapped)
}

/// Lossy UTF-8 conversion that keeps track of where `ranges` land: each
/// stretch between range boundaries is converted separately.
fn lossy_with_ranges(line: &[u8], ranges: &[(usize, usize)]) -> (String, Vec<(usize, usize)>) {
    let mut cuts: Vec<usize> = ranges
        .iter()
        .flat_map(|&(s, e)| [s, e])
        .chain([0, line.len()])
        .map(|x| x.min(line.len()))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut text = String::with_capacity(line.len() + 8);
    // (offset in line, offset in text) at every cut.
    let mut map: Vec<(usize, usize)> = Vec::with_capacity(cuts.len());
    map.push((0, 0));
    for pair in cuts.windows(2) {
        text.push_str(&String::from_utf8_lossy(&line[pair[0]..pair[1]]));
        map.push((pair[1], text.len()));
    }
    let to_text = |offset: usize| {
        let offset = offset.min(line.len());
        match map.binary_search_by_key(&offset, |&(o, _)| o) {
            Ok(i) => map[i].1,
            Err(_) => text.len(),
        }
    };
    let mapped = ranges
        .iter()
        .map(|&(s, e)| (to_text(s), to_text(e)))
        .collect();
    (text, mapped)
}

/// Cuts `text` to [`MAX_LINE_CHARS`] characters, keeping the first match in
/// view, and shifts `ranges` accordingly.
fn cut_long_line(text: String, ranges: Vec<(usize, usize)>) -> (String, Vec<(usize, usize)>) {
    cut_around(text, ranges, MAX_LINE_CHARS)
}

/// Cuts `text` to `max_chars` characters, keeping the first of `ranges`
/// (byte ranges, in order) in view with some text before it, marking each
/// cut with [`ELLIPSIS`], and shifts `ranges` accordingly. The one place
/// long lines are cut around a match (keyword hits, `read` with a match).
pub(crate) fn cut_around(
    text: String,
    ranges: Vec<(usize, usize)>,
    max_chars: usize,
) -> (String, Vec<(usize, usize)>) {
    let total_chars = text.chars().count();
    if total_chars <= max_chars {
        return (text, ranges);
    }
    let first = ranges
        .first()
        .map_or(0, |&(s, _)| floor_char_boundary(&text, s));
    let first_char = text[..first].chars().count();
    let start_char = if first_char + CHARS_BEFORE_MATCH < max_chars {
        0
    } else {
        (first_char - CHARS_BEFORE_MATCH).min(total_chars - max_chars)
    };
    let byte_at = |char_index: usize| {
        text.char_indices()
            .nth(char_index)
            .map_or(text.len(), |(i, _)| i)
    };
    let start = byte_at(start_char);
    let end = byte_at(start_char + max_chars);
    let mut out = String::with_capacity(end - start + 2 * ELLIPSIS.len());
    if start > 0 {
        out.push_str(ELLIPSIS);
    }
    let shift = out.len();
    out.push_str(&text[start..end]);
    if end < text.len() {
        out.push_str(ELLIPSIS);
    }
    let clipped = ranges
        .into_iter()
        .filter(|&(s, e)| s < end && (e > start || (s == e && s >= start)))
        .map(|(s, e)| (s.max(start) - start + shift, e.min(end) - start + shift))
        .collect();
    (out, clipped)
}

fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

fn ceil_char_boundary(text: &str, mut index: usize) -> usize {
    index = index.min(text.len());
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
}

/// Merges the threads' results: files sorted by path, each file's matches
/// already in line order.
fn merge(outputs: Vec<ThreadOutput>, max_results: Option<usize>) -> KeywordResult {
    let mut result = KeywordResult::default();
    let mut files: Vec<FileHits> = Vec::new();
    for out in outputs {
        files.extend(out.files);
        result.files_searched += out.files_searched;
        result.files_matched += out.files_matched;
        result.total_matches += out.total_matches;
        result.index_ruled_out += out.index_ruled_out;
        result.binary_matched.extend(out.binary_matched);
        result.skipped_count += out.skipped_count;
        for skipped in out.skipped {
            if result.skipped.len() < MAX_SKIPPED_KEPT {
                result.skipped.push(skipped);
            }
        }
    }
    files.sort_by(|a, b| Path::new(&a.path).cmp(Path::new(&b.path)));
    // Sized once: a million matches grown by doubling cost more than the
    // search that found them.
    result.matches = Vec::with_capacity(files.iter().map(|f| f.matches.len()).sum());
    for f in files {
        result.matches.extend(f.matches);
    }
    if let Some(max) = max_results {
        result.matches.truncate(max);
    }
    result.truncated = max_results.is_some() && result.total_matches > result.matches.len();
    result
        .binary_matched
        .sort_by(|a, b| Path::new(a).cmp(Path::new(b)));
    result.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    result
}

#[cfg(test)]
mod tests {
    //! Unit tests on temporary trees; each is also checked against the real
    //! `rg` (required: `scripts/test.sh` installs it). `compare_with_rg_on_tree`
    //! runs a larger list of cases on a small bundled tree, or on a real tree
    //! named by `RS_COMPARE_TREE`.

    use super::*;
    use std::collections::BTreeSet;
    use std::fs;
    use std::process::Command;
    use std::time::{Duration, Instant};

    use crate::error::find_user_error;

    fn write(root: &Path, rel: &str, contents: impl AsRef<[u8]>) {
        let path = root.join(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create parent dirs");
        }
        fs::write(path, contents).expect("write test file");
    }

    /// Handing matches over file by file, in order, as the workers finish
    /// them out of order, gives the walk's answer: same matches, same
    /// order, same counts and cut (run many times: the hand-over races).
    #[test]
    fn listed_each_hands_over_the_collected_answer_in_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let mut files = Vec::new();
        for i in 0..300 {
            let rel = format!("d{}/f{i}.txt", i % 7);
            let body = match i % 3 {
                0 => "nothing here\n".to_string(),
                1 => format!("a\nneedle {i}\nb\n"),
                _ => "needle\n".repeat(i % 11 + 1),
            };
            write(root, &rel, body);
            files.push(rel);
        }
        files.push("d1.txt".into());
        write(root, "d1.txt", "needle in d1.txt\n");
        for max in [None, Some(1), Some(250)] {
            let mut r = req(&["needle"]);
            r.before_context = 1;
            r.max_results = max;
            r.walk.threads = 4;
            let want = search_keyword(root, &r).expect("walked");
            // The view runs on the worker threads: it keeps the matches it
            // saw (by path) for the check, and shows their lines.
            let seen: Mutex<Vec<KeywordMatch>> = Mutex::new(Vec::new());
            let view = |path: &str, ms: Vec<KeywordMatch>| {
                assert!(ms.iter().all(|m| m.path == path));
                let bytes = ms
                    .iter()
                    .map(|m| format!("{}:{}\n", m.line, m.text))
                    .collect::<String>();
                let n = ms.len();
                seen.lock().expect("lock").extend(ms);
                Viewed {
                    bytes: bytes.into_bytes(),
                    matches: n,
                    starts_group: false,
                }
            };
            let want_bytes: Vec<u8> = want
                .matches
                .iter()
                .flat_map(|m| format!("{}:{}\n", m.line, m.text).into_bytes())
                .collect();
            for _ in 0..20 {
                let mut got: Vec<u8> = Vec::new();
                let mut paths: Vec<String> = Vec::new();
                let result = search_keyword_listed_each(
                    root,
                    &r,
                    &files,
                    0,
                    Views::file(&view),
                    &mut |path, v| {
                        got.extend(v.bytes);
                        paths.push(path);
                        Ok(())
                    },
                )
                .expect("streamed");
                assert_eq!(got, want_bytes, "max {max:?}");
                let mut want_paths: Vec<String> =
                    want.matches.iter().map(|m| m.path.clone()).collect();
                want_paths.dedup();
                assert_eq!(paths, want_paths, "max {max:?}");
                assert!(result.matches.is_empty());
                assert_eq!(result.total_matches, want.total_matches);
                assert_eq!(result.files_searched, want.files_searched);
                assert_eq!(result.files_matched, want.files_matched);
                assert_eq!(result.truncated, want.truncated);
                // The walk's hand-over gives the same.
                let (mut walked, mut walked_paths) = (Vec::new(), Vec::new());
                let result =
                    search_keyword_each(root, &r, None, Views::file(&view), &mut |path, v| {
                        walked.extend(v.bytes);
                        walked_paths.push(path);
                        Ok(())
                    })
                    .expect("walked, handed over");
                assert_eq!(walked, want_bytes, "max {max:?}");
                assert_eq!(walked_paths, want_paths, "max {max:?}");
                assert!(result.matches.is_empty());
                assert_eq!(result.total_matches, want.total_matches);
                assert_eq!(result.files_searched, want.files_searched);
                assert_eq!(result.truncated, want.truncated);
            }
            // Without a cut every match was viewed (on the workers), and with
            // one at most the room (here, on the hand-over).
            let seen = seen.into_inner().expect("lock");
            match max {
                None => assert_eq!(seen.len(), want.matches.len() * 40),
                Some(m) => assert!(seen.len() <= m * 40),
            }
        }
        // A failing receiver stops the search with its error.
        let view = |_: &str, ms: Vec<KeywordMatch>| Viewed {
            matches: ms.len(),
            ..Viewed::default()
        };
        let err = search_keyword_listed_each(
            root,
            &req(&["needle"]),
            &files,
            0,
            Views::file(&view),
            &mut |_, _| anyhow::bail!("closed"),
        )
        .expect_err("stops");
        assert_eq!(err.to_string(), "closed");
        let err = search_keyword_each(
            root,
            &req(&["needle"]),
            None,
            Views::file(&view),
            &mut |_, _| anyhow::bail!("closed"),
        )
        .expect_err("stops");
        assert_eq!(err.to_string(), "closed");
    }

    /// A [`LineView`] gives the bytes the file view gives (long lines cut
    /// around the match, invalid UTF-8, CRLF, binary files, `max_count`),
    /// and stands in only where it can: no context lines, no cut.
    #[test]
    fn line_view_gives_the_file_views_bytes() {
        struct Lines(AtomicUsize);
        struct File(Vec<u8>, usize);
        impl LineView for Lines {
            fn file<'s>(&'s self, _: &'s str) -> Box<dyn FileLines + 's> {
                self.0.fetch_add(1, Ordering::Relaxed);
                Box::new(File(Vec::new(), 0))
            }
        }
        impl FileLines for File {
            fn line(&mut self, line: u64, column: u64, text: &str) {
                self.0
                    .extend_from_slice(format!("{line}:{column}:{text}\n").as_bytes());
                self.1 += 1;
            }
            fn finish(self: Box<Self>) -> Viewed {
                Viewed {
                    bytes: self.0,
                    matches: self.1,
                    starts_group: false,
                }
            }
        }
        let view = |_: &str, ms: Vec<KeywordMatch>| {
            let bytes = ms
                .iter()
                .map(|m| format!("{}:{}:{}\n", m.line, m.column, m.text))
                .collect::<String>();
            Viewed {
                bytes: bytes.into_bytes(),
                matches: ms.len(),
                starts_group: false,
            }
        };
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let long = format!("{}needle{}\n", "x".repeat(900), "y".repeat(900));
        write(root, "a/long.txt", long.repeat(3));
        fs::write(
            root.join("a/latin1.txt"),
            b"caf\xe9 needle\nneedle \xff\xfe\n",
        )
        .expect("write");
        write(root, "b/crlf.txt", "needle\r\nnone\r\n  needle x\r\n");
        fs::write(root.join("b/bin.dat"), b"needle\n\0needle\n").expect("write");
        for i in 0..40 {
            write(
                root,
                &format!("c/f{i}.rs"),
                "fn needle() {}\n".repeat(i % 5),
            );
        }
        let files = walkdir(root);
        let lines = Lines(AtomicUsize::new(0));
        let cases: [(usize, Option<u64>, Option<usize>, bool); 4] = [
            (0, None, None, true),
            (0, Some(1), None, true),
            (0, None, Some(7), false),
            (1, None, None, false),
        ];
        // The second pattern starts every match at its line's start, so the
        // line view takes its column without running the regex.
        let patterns = ["needle", "^(needle|fn )|^x+needle"];
        for (pattern, (context, max_count, max_results, stands_in)) in patterns
            .into_iter()
            .flat_map(|p| cases.into_iter().map(move |c| (p, c)))
        {
            let mut r = req(&[pattern]);
            r.before_context = context;
            r.max_count = max_count;
            r.max_results = max_results;
            r.first_match_only = true;
            r.walk.threads = 3;
            let run = |views: Views<'_>| {
                let (mut walked, mut listed) = (Vec::new(), Vec::new());
                let a = search_keyword_each(root, &r, None, views, &mut |_, v| {
                    walked.extend(v.bytes);
                    Ok(())
                })
                .expect("walked");
                let b = search_keyword_listed_each(root, &r, &files, 0, views, &mut |_, v| {
                    listed.extend(v.bytes);
                    Ok(())
                })
                .expect("listed");
                assert_eq!(walked, listed);
                assert_eq!(
                    (a.total_matches, a.files_matched),
                    (b.total_matches, b.files_matched)
                );
                (walked, a.total_matches, a.files_matched)
            };
            let want = run(Views::file(&view));
            let before = lines.0.load(Ordering::Relaxed);
            let got = run(Views {
                file: &view,
                lines: Some(&lines),
            });
            assert_eq!(
                String::from_utf8_lossy(&got.0),
                String::from_utf8_lossy(&want.0)
            );
            assert_eq!(
                got, want,
                "{pattern}: context {context}, max_count {max_count:?}"
            );
            assert!(!want.0.is_empty());
            let used = lines.0.load(Ordering::Relaxed) > before;
            assert_eq!(
                used, stands_in,
                "context {context}, max_results {max_results:?}"
            );
        }
    }

    /// Links as rg treats them: not followed by default (a linked file is
    /// not searched, a file under a linked directory is not walked), with
    /// `-L` followed, the file itself then opened through its link.
    #[test]
    fn links_are_followed_only_when_asked_like_rg() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = fs::canonicalize(dir.path()).expect("canonical");
        write(&root, "src/a.txt", "needle one\n");
        write(&root, "real/b.txt", "needle two\n");
        std::os::unix::fs::symlink(root.join("src/a.txt"), root.join("link.txt"))
            .expect("file link");
        std::os::unix::fs::symlink(root.join("real"), root.join("linked")).expect("dir link");
        for follow in [false, true] {
            let mut r = req(&["needle"]);
            r.walk.follow_links = follow;
            let result = search_like_rg(&root, &r);
            let paths: Vec<&str> = result.matches.iter().map(|m| m.path.as_str()).collect();
            let want: &[&str] = if follow {
                &["link.txt", "linked/b.txt", "real/b.txt", "src/a.txt"]
            } else {
                &["real/b.txt", "src/a.txt"]
            };
            assert_eq!(paths, want, "follow {follow}");
        }
    }

    #[test]
    fn starts_lines_only_when_every_match_starts_its_line() {
        for (patterns, fixed, word, want) in [
            (&["^\\}"][..], false, false, true),
            (&["^a|^b", "(?-m)^c"], false, false, true),
            (&["^a|b"], false, false, false),
            (&["^a", "b"], false, false, false),
            (&["^a"], true, false, false),
            (&["^a"], false, true, false),
            (&["^("], false, false, false),
        ] {
            let mut r = req(patterns);
            r.fixed_strings = fixed;
            r.word = word;
            assert_eq!(starts_lines(&r), want, "{patterns:?}");
        }
    }

    /// The regular files under `root`, root-relative.
    fn walkdir(root: &Path) -> Vec<String> {
        let mut out = Vec::new();
        let mut dirs = vec![root.to_path_buf()];
        while let Some(dir) = dirs.pop() {
            for entry in fs::read_dir(&dir).expect("read_dir") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    out.push(walk::rel_path(root, &path));
                }
            }
        }
        out
    }

    fn req(patterns: &[&str]) -> KeywordRequest {
        KeywordRequest {
            patterns: patterns.iter().map(|p| p.to_string()).collect(),
            ..KeywordRequest::default()
        }
    }

    /// One line of output, ours or rg's: `kind` is `:` for a match and `-`
    /// for context; `column` only for matches.
    #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
    struct Printed {
        path: String,
        line: u64,
        kind: char,
        column: Option<u64>,
    }

    /// The flags `rg` needs to do what `req` asks.
    fn rg_args(root: &Path, req: &KeywordRequest) -> Vec<String> {
        let mut args: Vec<String> = [
            "--no-config",
            "-n",
            "--column",
            "--no-heading",
            "--with-filename",
            "--null",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.extend(["--color".into(), "never".into()]);
        for pattern in &req.patterns {
            args.push("--regexp".into());
            args.push(pattern.clone());
        }
        let flags = [
            (req.fixed_strings, "-F"),
            (req.case == CaseMode::Insensitive, "-i"),
            (req.case == CaseMode::Smart, "-S"),
            (req.word, "-w"),
            (req.walk.hidden, "--hidden"),
            (req.walk.no_ignore, "--no-ignore"),
            (!req.walk.require_git, "--no-require-git"),
            (req.walk.follow_links, "-L"),
        ];
        args.extend(
            flags
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, f)| f.to_string()),
        );
        args.extend(["-A".into(), req.after_context.to_string()]);
        args.extend(["-B".into(), req.before_context.to_string()]);
        if let Some(m) = req.max_count {
            args.extend(["-m".into(), m.to_string()]);
        }
        if let Some(size) = req.walk.max_filesize {
            args.extend(["--max-filesize".into(), size.to_string()]);
        }
        for glob in &req.walk.globs {
            args.extend(["-g".into(), glob.clone()]);
        }
        args.push("--".into());
        if req.paths.is_empty() {
            args.push("./".into());
        }
        for path in &req.paths {
            args.push(walk::rel_path(root, path));
        }
        args
    }

    /// What `rg` prints for `req`, with the text of each line, or `None` when
    /// rg is not installed.
    /// Each line rg printed, with its text (terminator removed).
    type RgLines = Vec<(Printed, Vec<u8>)>;

    fn run_rg(root: &Path, req: &KeywordRequest) -> Option<(RgLines, Duration)> {
        let start = Instant::now();
        let output = Command::new("rg")
            .args(rg_args(root, req))
            .current_dir(root)
            .output()
            .ok()?;
        let elapsed = start.elapsed();
        let mut lines = Vec::new();
        for raw in output.stdout.split(|&b| b == b'\n') {
            let Some(nul) = raw.iter().position(|&b| b == 0) else {
                continue; // `--` separators and binary-file messages
            };
            let path = String::from_utf8_lossy(&raw[..nul]);
            let path = path.strip_prefix("./").unwrap_or(&path).to_string();
            let rest = &raw[nul + 1..];
            let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            let (Some(&kind), Ok(line)) = (
                rest.get(digits),
                std::str::from_utf8(&rest[..digits])
                    .unwrap_or("")
                    .parse::<u64>(),
            ) else {
                continue;
            };
            let mut text = &rest[digits + 1..];
            let mut column = None;
            if kind == b':' {
                let digits = text.iter().take_while(|b| b.is_ascii_digit()).count();
                column = std::str::from_utf8(&text[..digits])
                    .ok()
                    .and_then(|c| c.parse().ok());
                text = &text[(digits + 1).min(text.len())..];
            }
            let text = text.strip_suffix(b"\r").unwrap_or(text).to_vec();
            lines.push((
                Printed {
                    path,
                    line,
                    kind: kind as char,
                    column,
                },
                text,
            ));
        }
        Some((lines, elapsed))
    }

    fn ours_printed(result: &KeywordResult) -> Vec<(Printed, String)> {
        let mut out = Vec::new();
        for m in &result.matches {
            let at = |line: u64, kind: char, column: Option<u64>| Printed {
                path: m.path.clone(),
                line,
                kind,
                column,
            };
            out.extend(
                m.before
                    .iter()
                    .map(|c| (at(c.line, '-', None), c.text.clone())),
            );
            out.push((at(m.line, ':', Some(m.column)), m.text.clone()));
            out.extend(
                m.after
                    .iter()
                    .map(|c| (at(c.line, '-', None), c.text.clone())),
            );
        }
        out
    }

    /// Differences between our result and rg's output: missing/extra lines
    /// and, for lines rg prints as short valid UTF-8, different text.
    fn diff_with_rg(result: &KeywordResult, rg: &[(Printed, Vec<u8>)]) -> Vec<String> {
        let ours = ours_printed(result);
        let ours_set: BTreeSet<&Printed> = ours.iter().map(|(p, _)| p).collect();
        let rg_set: BTreeSet<&Printed> = rg.iter().map(|(p, _)| p).collect();
        let mut diffs: Vec<String> = Vec::new();
        for p in rg_set.difference(&ours_set) {
            diffs.push(format!(
                "missing (rg has it): {}:{}{}{:?}",
                p.path, p.line, p.kind, p.column
            ));
        }
        for p in ours_set.difference(&rg_set) {
            diffs.push(format!(
                "extra (rg lacks it): {}:{}{}{:?}",
                p.path, p.line, p.kind, p.column
            ));
        }
        if ours.len() != ours_set.len() {
            diffs.push(format!(
                "{} duplicated lines in our output",
                ours.len() - ours_set.len()
            ));
        }
        let ours_text: std::collections::BTreeMap<&Printed, &String> =
            ours.iter().map(|(p, t)| (p, t)).collect();
        for (p, text) in rg {
            let (Ok(text), Some(mine)) = (std::str::from_utf8(text), ours_text.get(p)) else {
                continue;
            };
            if text.chars().count() <= MAX_LINE_CHARS && text != mine.as_str() {
                diffs.push(format!(
                    "text differs at {}:{}: rg {text:?}, ours {mine:?}",
                    p.path, p.line
                ));
            }
        }
        diffs
    }

    /// Runs `req` through our search and, when rg is installed, asserts that
    /// rg prints exactly the same lines.
    fn search_like_rg(root: &Path, req: &KeywordRequest) -> KeywordResult {
        let result = search_keyword(root, req).expect("search");
        let (rg, _) = run_rg(root, req).unwrap_or_else(|| panic!("{RG_MISSING}"));
        let diffs = diff_with_rg(&result, &rg);
        assert!(
            diffs.is_empty(),
            "differs from rg {:?}:\n{}",
            rg_args(root, req),
            diffs.join("\n")
        );
        result
    }

    fn lines_of(result: &KeywordResult) -> Vec<String> {
        result
            .matches
            .iter()
            .map(|m| format!("{}:{}", m.path, m.line))
            .collect()
    }

    fn git_init(root: &Path) -> bool {
        Command::new("git")
            .args(["init", "-q"])
            .current_dir(root)
            .status()
            .is_ok_and(|s| s.success())
    }

    /// A small project with ignore files of every kind.
    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(root, ".gitignore", "generated/\n*.tmp\n");
        write(root, ".ignore", "vendor/\n");
        write(root, ".rgignore", "secret.txt\n");
        write(
            root,
            "src/app.py",
            "import os\n\ndef main():\n    needle = 1\n    return needle\n",
        );
        write(
            root,
            "src/util.py",
            "def helper():\n    pass  # needle in a comment\n",
        );
        write(
            root,
            "tests/test_app.py",
            "def test_needle():\n    assert True\n",
        );
        write(root, "generated/out.py", "needle = 'generated'\n");
        write(root, "notes.tmp", "needle\n");
        write(root, "vendor/lib.py", "needle\n");
        write(root, "secret.txt", "needle\n");
        write(root, ".hidden/config.py", "needle\n");
        write(root, ".repo_search/index.db", "needle\n");
        write(root, ".repo_search/chunks.txt", "needle\n");
        dir
    }

    #[test]
    fn ignore_files_outside_and_inside_a_git_repo() {
        let dir = project();
        let root = dir.path();
        // Outside a git repo `.gitignore` does not apply; `.ignore` and
        // `.rgignore` do.
        let result = search_like_rg(root, &req(&["needle"]));
        assert_eq!(
            lines_of(&result),
            vec![
                "generated/out.py:1",
                "notes.tmp:1",
                "src/app.py:4",
                "src/app.py:5",
                "src/util.py:2",
                "tests/test_app.py:1"
            ]
        );
        let no_require_git = KeywordRequest {
            walk: WalkOptions {
                require_git: false,
                ..WalkOptions::default()
            },
            ..req(&["needle"])
        };
        let result = search_like_rg(root, &no_require_git);
        assert_eq!(result.files_matched, 3);

        if git_init(root) {
            let result = search_like_rg(root, &req(&["needle"]));
            assert_eq!(
                lines_of(&result),
                vec![
                    "src/app.py:4",
                    "src/app.py:5",
                    "src/util.py:2",
                    "tests/test_app.py:1"
                ]
            );
            assert_eq!(result.files_searched, 3);
        }
    }

    #[test]
    fn hidden_no_ignore_and_the_index_dir() {
        let dir = project();
        let root = dir.path();
        let all = KeywordRequest {
            walk: WalkOptions {
                hidden: true,
                no_ignore: true,
                ..WalkOptions::default()
            },
            ..req(&["needle"])
        };
        let result = search_keyword(root, &all).expect("search");
        let files: BTreeSet<&str> = result.matches.iter().map(|m| m.path.as_str()).collect();
        assert!(files.contains(".hidden/config.py"));
        assert!(files.contains("secret.txt"));
        assert!(files.contains("vendor/lib.py"));
        assert!(
            !files.iter().any(|f| f.starts_with(".repo_search")),
            "{files:?}"
        );
        // rg agrees once its view of our index dir is removed.
        if let Some((mut rg, _)) = run_rg(root, &all) {
            rg.retain(|(p, _)| !p.path.starts_with(".repo_search/"));
            assert!(diff_with_rg(&result, &rg).is_empty());
        }
        // Naming the index dir or a file in it explicitly finds nothing.
        let explicit = KeywordRequest {
            paths: vec![
                root.join(".repo_search"),
                root.join(".repo_search/index.db"),
            ],
            ..all.clone()
        };
        let result = search_keyword(root, &explicit).expect("search");
        assert!(result.matches.is_empty());
        assert_eq!(result.files_searched, 0);
    }

    #[test]
    fn globs_with_negation_and_explicit_paths() {
        let dir = project();
        let root = dir.path();
        let py_not_tests = KeywordRequest {
            walk: WalkOptions {
                globs: vec!["*.py".into(), "!tests/**".into()],
                ..WalkOptions::default()
            },
            ..req(&["needle"])
        };
        let result = search_like_rg(root, &py_not_tests);
        assert_eq!(
            lines_of(&result),
            vec![
                "generated/out.py:1",
                "src/app.py:4",
                "src/app.py:5",
                "src/util.py:2"
            ]
        );

        // An explicit file is searched even if ignored; a directory's
        // children still obey the ignore files.
        let explicit = KeywordRequest {
            paths: vec![root.join("secret.txt"), root.join("src")],
            ..req(&["needle"])
        };
        let result = search_like_rg(root, &explicit);
        assert_eq!(
            lines_of(&result),
            vec![
                "secret.txt:1",
                "src/app.py:4",
                "src/app.py:5",
                "src/util.py:2"
            ]
        );

        let bad_glob = KeywordRequest {
            walk: WalkOptions {
                globs: vec!["src/{a".into()],
                ..WalkOptions::default()
            },
            ..req(&["needle"])
        };
        let err = search_keyword(root, &bad_glob).expect_err("bad glob");
        assert!(find_user_error(&err).is_some_and(|u| u.hint.is_some()));
    }

    #[test]
    fn binary_files_early_and_late_nul() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(root, "early.bin", b"needle\0needle\nneedle\n");
        // The NUL is past the searcher's first 64 KiB buffer: the match before
        // it is reported, the one after is not (ripgrep's "stopped searching
        // binary file after match").
        let mut late = b"needle first\n".to_vec();
        late.extend(std::iter::repeat_n(b"filler line of text\n".as_slice(), 8000).flatten());
        late.extend_from_slice(b"\0\nneedle after\n");
        write(root, "late.bin", &late);
        write(root, "text.txt", "needle\n");
        let result = search_like_rg(root, &req(&["needle"]));
        assert_eq!(lines_of(&result), vec!["late.bin:1", "text.txt:1"]);
        assert_eq!(result.binary_matched, vec!["late.bin"]);
        assert_eq!(result.files_searched, 3);

        // Given explicitly, a binary file is searched with NULs converted
        // and matches withheld once binary data is seen.
        for files in [
            vec!["early.bin"],
            vec!["late.bin"],
            vec!["early.bin", "late.bin", "text.txt"],
        ] {
            let explicit = KeywordRequest {
                paths: files.iter().map(|f| root.join(f)).collect(),
                ..req(&["needle"])
            };
            let result = search_like_rg(root, &explicit);
            assert!(
                result.binary_matched.contains(&"early.bin".to_string())
                    || !files.contains(&"early.bin")
            );
        }
        // More than ten explicit files are streamed (rg stops memory-mapping
        // them), which notices the late NUL before the second match as well.
        let mut paths: Vec<PathBuf> = (0..10)
            .map(|i| {
                write(root, &format!("many/{i}.txt"), "needle\n");
                root.join(format!("many/{i}.txt"))
            })
            .collect();
        paths.push(root.join("late.bin"));
        let many = KeywordRequest {
            paths,
            ..req(&["needle"])
        };
        let result = search_like_rg(root, &many);
        assert_eq!(result.matches.len(), 11);
        assert_eq!(result.binary_matched, vec!["late.bin"]);
    }

    #[test]
    fn invalid_utf8_crlf_and_utf16() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(root, "latin1.txt", b"caf\xe9 needle \xff end\n");
        write(root, "crlf.txt", b"first needle\r\nsecond\r\nneedle$\r\n");
        let mut utf16 = vec![0xFF, 0xFE];
        for unit in "utf16 needle line\n".encode_utf16() {
            utf16.extend_from_slice(&unit.to_le_bytes());
        }
        write(root, "utf16.txt", &utf16);
        let result = search_like_rg(root, &req(&["needle"]));
        assert_eq!(
            lines_of(&result),
            vec!["crlf.txt:1", "crlf.txt:3", "latin1.txt:1", "utf16.txt:1"]
        );
        let latin1 = &result.matches[2];
        assert_eq!(latin1.text, "caf\u{fffd} needle \u{fffd} end");
        assert_eq!(latin1.column, 6);
        let (s, e) = latin1.submatches[0];
        assert_eq!(&latin1.text[s..e], "needle");
        assert_eq!(result.matches[0].text, "first needle");
        assert_eq!(result.matches[3].text, "utf16 needle line");

        // Without --crlf, `$` does not match before `\r` (as in rg), and the
        // `\r` is part of the line for matching (and columns) but not shown.
        let result = search_like_rg(root, &req(&["needle$"]));
        assert!(result.matches.is_empty());
        let result = search_like_rg(root, &req(&[r"\r$"]));
        assert_eq!(result.matches[0].column, 13);
        assert_eq!(result.matches[0].submatches, vec![(12, 12)]);
        let context = KeywordRequest {
            after_context: 1,
            ..req(&["first"])
        };
        assert_eq!(
            search_like_rg(root, &context).matches[0].after[0].text,
            "second"
        );
    }

    #[test]
    fn word_boundaries_are_unicode_aware() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(
            root,
            "w.txt",
            "jiffies\njiffies_x\nxjiffies\n(jiffies)\njiffiesé\n日本jiffies\njiffies-1\n",
        );
        let word = KeywordRequest {
            word: true,
            ..req(&["jiffies"])
        };
        let result = search_like_rg(root, &word);
        assert_eq!(lines_of(&result), vec!["w.txt:1", "w.txt:4", "w.txt:7"]);
    }

    #[test]
    fn case_modes_and_multiple_patterns() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(
            root,
            "c.txt",
            "QuerySet\nqueryset\nQUERYSET\nStraße\nSTRASSE\nfoo.bar\nfooxbar\n",
        );
        let smart_lower = KeywordRequest {
            case: CaseMode::Smart,
            ..req(&["queryset"])
        };
        assert_eq!(search_like_rg(root, &smart_lower).matches.len(), 3);
        let smart_upper = KeywordRequest {
            case: CaseMode::Smart,
            ..req(&["QuerySet"])
        };
        assert_eq!(
            lines_of(&search_like_rg(root, &smart_upper)),
            vec!["c.txt:1"]
        );
        // Smart case looks at all patterns together: one uppercase literal
        // makes the whole search case sensitive.
        let smart_mixed = KeywordRequest {
            case: CaseMode::Smart,
            ..req(&["queryset", "Straße"])
        };
        assert_eq!(
            lines_of(&search_like_rg(root, &smart_mixed)),
            vec!["c.txt:2", "c.txt:4"]
        );
        // `\S` is not a literal, so smart case stays insensitive.
        let smart_class = KeywordRequest {
            case: CaseMode::Smart,
            ..req(&[r"\Sueryset"])
        };
        assert_eq!(search_like_rg(root, &smart_class).matches.len(), 3);
        let insensitive = KeywordRequest {
            case: CaseMode::Insensitive,
            ..req(&["straße"])
        };
        search_like_rg(root, &insensitive);
        let fixed = KeywordRequest {
            fixed_strings: true,
            ..req(&["foo.bar", "(?i)x"])
        };
        assert_eq!(lines_of(&search_like_rg(root, &fixed)), vec!["c.txt:6"]);
        let regex = req(&["foo.bar"]);
        assert_eq!(search_like_rg(root, &regex).matches.len(), 2);
    }

    #[test]
    fn max_count_max_results_and_context() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let body: String = (1..=30)
            .map(|i| {
                if i % 5 == 0 {
                    format!("hit {i}\n")
                } else {
                    format!("line {i}\n")
                }
            })
            .collect();
        for name in ["a.txt", "b.txt", "c.txt", "d.txt"] {
            write(root, name, &body);
        }
        let max_count = KeywordRequest {
            max_count: Some(2),
            ..req(&["hit"])
        };
        let result = search_like_rg(root, &max_count);
        assert_eq!(result.matches.len(), 8);

        let context = KeywordRequest {
            before_context: 2,
            after_context: 3,
            ..req(&["hit"])
        };
        let result = search_like_rg(root, &context);
        let first = &result.matches[0];
        assert_eq!(
            first.before.iter().map(|c| c.line).collect::<Vec<_>>(),
            vec![3, 4]
        );
        assert_eq!(
            first.after.iter().map(|c| c.line).collect::<Vec<_>>(),
            vec![6, 7, 8]
        );
        // Line 9 is both after-context of hit 5 (not: A=3 ends at 8) and
        // before-context of hit 10; each context line is reported once.
        let second = &result.matches[1];
        assert_eq!(
            second.before.iter().map(|c| c.line).collect::<Vec<_>>(),
            vec![9]
        );

        let limited = KeywordRequest {
            max_results: Some(5),
            ..req(&["hit"])
        };
        let result = search_keyword(root, &limited).expect("search");
        assert_eq!(result.matches.len(), 5);
        assert!(result.truncated);
        assert_eq!(result.total_matches, 24);
        // The first five in path, then line order, with their context.
        let all = search_keyword(
            root,
            &KeywordRequest {
                after_context: 2,
                before_context: 1,
                ..req(&["hit"])
            },
        )
        .expect("search");
        for n in [1, 5, 7, 13] {
            let first = search_keyword(
                root,
                &KeywordRequest {
                    max_results: Some(n),
                    after_context: 2,
                    before_context: 1,
                    ..req(&["hit"])
                },
            )
            .expect("search");
            assert_eq!(first.matches, all.matches[..n], "max_results {n}");
            assert_eq!(
                (first.total_matches, first.files_matched, first.truncated),
                (24, 4, true)
            );
        }
        let exact = KeywordRequest {
            max_results: Some(24),
            ..req(&["hit"])
        };
        let result = search_keyword(root, &exact).expect("search");
        assert_eq!(
            (result.matches.len(), result.truncated, result.total_matches),
            (24, false, 24)
        );

        let context_with_max = KeywordRequest {
            max_count: Some(1),
            after_context: 6,
            ..req(&["hit"])
        };
        search_like_rg(root, &context_with_max);
    }

    #[test]
    fn long_lines_are_cut_around_the_match() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let line = format!("{}needle{}\n", "é".repeat(2000), "x".repeat(2000));
        write(root, "long.js", &line);
        let result = search_like_rg(root, &req(&["needle"]));
        let m = &result.matches[0];
        assert_eq!(m.column, 4001);
        assert!(m.text.starts_with(ELLIPSIS) && m.text.ends_with(ELLIPSIS));
        assert!(m.text.chars().count() <= MAX_LINE_CHARS + 2);
        let (s, e) = m.submatches[0];
        assert_eq!(&m.text[s..e], "needle");
    }

    #[test]
    fn bad_patterns_are_user_errors_with_hints() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let err = search_keyword(root, &req(&["foo("])).expect_err("invalid regex");
        let user = find_user_error(&err).expect("user error");
        assert_eq!(user.message, "invalid regex `foo(`: unclosed group");
        assert_eq!(
            user.hint.as_deref(),
            Some("use --fixed-strings (-F) to search for the literal text")
        );

        // The culprit among several patterns is named.
        let err = search_keyword(root, &req(&["ok", "[z-a]"])).expect_err("invalid regex");
        let user = find_user_error(&err).expect("user error");
        assert!(
            user.message.starts_with("invalid regex `[z-a]`: "),
            "{user:?}"
        );

        let err = search_keyword(root, &req(&[])).expect_err("no pattern");
        assert!(find_user_error(&err).is_some());
        let long = "a".repeat(MAX_PATTERN_CHARS + 1);
        let err = search_keyword(root, &req(&[long.as_str()])).expect_err("too long");
        assert!(find_user_error(&err).is_some());
        let err = search_keyword(root, &req(&[r"\w{1000}{1000}"])).expect_err("too big");
        let user = find_user_error(&err).expect("user error");
        assert!(user.message.contains("size limit"), "{user:?}");
        let err = search_keyword(root, &req(&["a\nb"])).expect_err("newline");
        assert!(find_user_error(&err).is_some());
        // The literal `foo(` is fine with -F.
        let fixed = KeywordRequest {
            fixed_strings: true,
            ..req(&["foo("])
        };
        assert!(search_keyword(root, &fixed).is_ok());
    }

    #[test]
    fn path_order_is_paths_order() {
        let paths = [
            "a",
            "a/b",
            "a-b",
            "a.b/c",
            "a/b/c",
            "ab",
            "a/b-c",
            "a/b.c",
            "b",
            "é/x",
            "e/x",
            "a b/c",
            "A/b",
            "a/b/c/d.rs",
            "a/bc",
            // Long shared prefixes: compared eight bytes at a time.
            "drivers/net/ethernet/intel/e1000/e1000_main.c",
            "drivers/net/ethernet/intel/e1000/e1000_hw.c",
            "drivers/net/ethernet/intel/e1000e/netdev.c",
            "drivers/net/ethernet/intel/e1000-x/a.c",
            "drivers/net/ethernet/intel/e1000",
            "drivers/net/ethernet/intel/e100.c",
            "drivers/net/ethernet/intel",
        ];
        for x in paths {
            for y in paths {
                assert_eq!(
                    path_order(x, y),
                    Path::new(x).cmp(Path::new(y)),
                    "{x} vs {y}"
                );
            }
        }
    }

    #[test]
    fn render_line_maps_ranges() {
        let (text, ranges) = render_line(b"ab\xffcd", &[(3, 5)]);
        assert_eq!(text, "ab\u{fffd}cd");
        assert_eq!(&text[ranges[0].0..ranges[0].1], "cd");
        let (text, ranges) = render_line("x".repeat(10).as_bytes(), &[(2, 2)]);
        assert_eq!((text.len(), ranges), (10, vec![(2, 2)]));
        // A range inside a multi-byte character is widened to it.
        let (text, ranges) = render_line("é".as_bytes(), &[(1, 2)]);
        assert_eq!(&text[ranges[0].0..ranges[0].1], "é");
    }

    #[test]
    fn diff_with_rg_reports_differences() {
        // Guards the comparison itself: a missing line, an extra line and a
        // different text must all show up.
        let m = KeywordMatch {
            path: "a.txt".into(),
            line: 2,
            column: 1,
            text: "ours".into(),
            submatches: vec![(0, 4)],
            before: vec![],
            after: vec![],
        };
        let result = KeywordResult {
            matches: vec![m],
            ..KeywordResult::default()
        };
        let at = |line| Printed {
            path: "a.txt".into(),
            line,
            kind: ':',
            column: Some(1),
        };
        assert_eq!(
            diff_with_rg(&result, &[(at(2), b"ours".to_vec())]),
            Vec::<String>::new()
        );
        assert_eq!(
            diff_with_rg(&result, &[(at(2), b"theirs".to_vec())]).len(),
            1
        );
        assert_eq!(diff_with_rg(&result, &[(at(3), b"ours".to_vec())]).len(), 2);
    }

    const RG_MISSING: &str = "`rg` (ripgrep) is not installed: the keyword tests compare with it line for line (scripts/test.sh installs it)";

    /// A small tree shaped like the Django sources, so that every case of
    /// [`compare_with_rg_on_tree`] finds something by default: Python,
    /// templates, docs, a binary catalogue, a hidden file, files left out by
    /// `.ignore` and (without a repository, only with `--no-require-git`) by
    /// `.gitignore`, non-ASCII text, empty lines.
    fn compare_tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(
            root,
            "django/__init__.py",
            "from django.utils.version import get_version\n\nVERSION = (5, 1, 15, \"final\", 0)\n\n__version__ = get_version(VERSION)\n\n\ndef setup(set_prefix=True):\n    \"\"\"Configure the settings, logging and the app registry.\"\"\"\n    # TODO: make the registry lazy\n    from django.apps import apps\n    apps.populate(settings.INSTALLED_APPS)\n",
        );
        write(
            root,
            "django/db/models/query.py",
            "import os\nimport copy\n\nfrom django.db import connections\n\n\nclass QuerySet(AltersData):\n    \"\"\"Represent a lazy database lookup for a set of objects.\"\"\"\n\n    def __init__(self, model=None, query=None, using=None, hints=None):\n        self.model = model\n        self._db = using\n        self._hints = hints or {}\n\n    def get(self, *args, **kwargs):\n        clone = self.filter(*args, **kwargs)\n        if not clone:\n            raise self.model.DoesNotExist(\"matching query does not exist.\")\n        return clone._result_cache[0]\n\n    def raw(self, raw_query):\n        # select * from the table, as is\n        return RawQuerySet(raw_query, model=self.model)\n\n    def _check_bulk_create_options(self, ignore_conflicts):\n        if ignore_conflicts and os.environ.get(\"STRICT\"):\n            raise NotSupportedError(\"This database backend does not support ignoring conflicts.\")\n",
        );
        write(
            root,
            "django/db/models/base.py",
            "class ModelBase(type):\n    \"\"\"Metaclass for all models.\"\"\"\n\n\nclass Model(AltersData, metaclass=ModelBase):\n    def save(self, *args, **kwargs):\n        self.save_base(using=kwargs.get(\"using\"))\n",
        );
        write(
            root,
            "django/db/utils.py",
            "class Error(Exception):\n    pass\n\n\nclass NotSupportedError(Error):\n    pass\n\n\ndef load_backend(backend_name):\n    # FIXME: cache the import\n    import importlib\n    return importlib.import_module(\"%s.base\" % backend_name)\n",
        );
        write(
            root,
            "django/shortcuts.py",
            "from django.http import Http404\nfrom django.template import loader\n\n\ndef render(request, template_name, context=None):\n    content = loader.render_to_string(template_name, context, request)\n    return HttpResponse(content)\n\n\ndef get_object_or_404(klass, *args, **kwargs):\n    queryset = _get_queryset(klass)\n    try:\n        return queryset.get(*args, **kwargs)\n    except queryset.model.DoesNotExist:\n        raise Http404(\"No %s matches the given query.\" % queryset.model._meta.object_name)\n",
        );
        write(
            root,
            "django/contrib/auth/models.py",
            "from django.contrib.auth import get_user_model\nfrom django.db import models\n\n\nclass User(AbstractUser):\n    \"\"\"Users within the Django authentication system.\"\"\"\n\n    class Meta:\n        swappable = \"AUTH_USER_MODEL\"\n        verbose_name = \"user\"\n\n    @property\n    def is_anonymous(self):\n        return False\n\n    def get_status_display(self):\n        return self.get_full_name() or self.username\n\n    def set_language_display(self, value):\n        self.language = value\n\n\nclass Group(models.Model):\n    name = models.CharField(max_length=150, unique=True)\n\n    class Meta:\n        verbose_name = \"group\"\n\n\ndef get_user(request):\n    UserModel = get_user_model()\n    return UserModel._default_manager.get(pk=request.session[\"id\"])\n",
        );
        write(
            root,
            "django/views/generic/base.py",
            "class View:\n    http_method_names = [\"get\", \"post\", \"put\"]\n\n\nclass TemplateView(TemplateResponseMixin, ContextMixin, View):\n    template_name = \"base.html\"\n\n\nclass RedirectView(View):\n    permanent = False\n\n\nclass listview(View):\n    pass\n",
        );
        write(
            root,
            "django/utils/dates.py",
            "# Dates and names used in translations.\nWEEKDAYS = {0: \"Monday\", 1: \"Tuesday\"}\nEPOCH = \"1970-01-01\"\nRELEASED = \"2024-08-07\"\nGREEK = \"αβγ δέλτα\"\nCAFE = \"café crème\"\nGREETING = \"Привет\"\nJAPAN = \"日本語\"\nSTREETS = [\"STRASSE\", \"Straße\", \"strasse\"]\n",
        );
        write(
            root,
            "django/conf/locale/de/LC_MESSAGES/django.mo",
            b"\xde\x12\x04\x95\x00\x00\x00\x00Language\x00Sprache\x00\x00\xff\xfe",
        );
        write(
            root,
            "django/conf/locale/de/LC_MESSAGES/django.po",
            "msgid \"Language\"\nmsgstr \"Sprache\"\n",
        );
        write(
            root,
            "django/templates/base.html",
            "<!DOCTYPE html>\n<html lang=\"{{ LANGUAGE_CODE }}\">\n<title>{% block title %}django site{% endblock %}</title>\n{% include \"nav.html\" %}\n</html>\n",
        );
        write(
            root,
            "tests/test_queries.py",
            "from django.test import TestCase\n\n\nclass QueryTests(TestCase):\n    def test_get(self):\n        self.assertEqual(Item.objects.get(pk=1).name, \"one\")\n\n    def test_raw(self):\n        rows = Item.objects.raw(\"SELECT id FROM items\")\n        self.assertEqual(len(list(rows)), 2)\n\n    def test_user_id(self):\n        user = get_user_model()(id=3)\n        self.assertEqual(user.id, 3)\n\n\ndef foo():\n    return bar() + baz()\n",
        );
        write(
            root,
            "docs/index.txt",
            "====================\nDjango documentation\n====================\n\nEverything you need to know about Django.\n\nLanguage and translation: see the i18n topic.\n",
        );
        write(
            root,
            "docs/releases/5.1.txt",
            "========================\nDjango 5.1 release notes\n========================\n\nWhat's new in django 5.1: the QuerySet gains a few methods.\n",
        );
        write(
            root,
            ".coveragerc",
            "[run]\nsource = django\n# coverage of the test suite\n",
        );
        write(root, ".ignore", "build/\n");
        write(root, "build/lib/out.py", "needle = \"haystack\"\n");
        write(root, ".gitignore", "generated/\n");
        write(
            root,
            "generated/settings.py",
            "# generated: git would ignore this\nneedle = 1\nimport os\n",
        );
        dir
    }

    /// A larger comparison with rg: on the small tree [`compare_tree`]
    /// writes, or on a real tree named by `RS_COMPARE_TREE` (e.g. the Django
    /// 5.1.15 sdist). Prints one line per case with the timing ratio and
    /// fails if any case differs.
    #[test]
    fn compare_with_rg_on_tree() {
        let bundled;
        let root = match std::env::var_os("RS_COMPARE_TREE") {
            Some(tree) => fs::canonicalize(&tree).expect("RS_COMPARE_TREE must exist"),
            None => {
                bundled = compare_tree();
                fs::canonicalize(bundled.path()).expect("canonical temp dir")
            }
        };
        assert!(run_rg(&root, &req(&["x"])).is_some(), "{RG_MISSING}");
        let with = |f: &dyn Fn(&mut KeywordRequest), patterns: &[&str]| {
            let mut r = req(patterns);
            f(&mut r);
            r
        };
        let none = |_: &mut KeywordRequest| {};
        let cases: Vec<KeywordRequest> = vec![
            req(&["def "]),
            req(&["import os"]),
            req(&["QuerySet"]),
            req(&["get_object_or_404"]),
            req(&["TODO"]),
            req(&["self.assertEqual"]),
            req(&[r"^class \w+\("]),
            req(&[r"def test_\w+"]),
            req(&[r"\b(get|set)_[a-z]+_display\b"]),
            req(&[r"[0-9]{4}-[0-9]{2}-[0-9]{2}"]),
            req(&[r"^\s*#"]),
            req(&[r"raise \w+Error\("]),
            req(&[r"\)$"]),
            req(&[r#""[^"]*\.html""#]),
            req(&["^$"]),
            req(&[r"\p{Greek}+"]),
            req(&["é"]),
            req(&["Привет|日本"]),
            req(&["Language"]),
            req(&["x*"]),
            with(&|r| r.case = CaseMode::Insensitive, &["django"]),
            with(&|r| r.case = CaseMode::Insensitive, &["select .* from"]),
            with(&|r| r.case = CaseMode::Insensitive, &["STRASSE|straße"]),
            with(&|r| r.case = CaseMode::Smart, &["queryset"]),
            with(&|r| r.case = CaseMode::Smart, &["QuerySet"]),
            with(&|r| r.word = true, &["test"]),
            with(&|r| r.word = true, &["User"]),
            with(&|r| r.word = true, &["id"]),
            with(&|r| r.word = true, &["@property"]),
            with(&|r| r.fixed_strings = true, &["self.assertEqual("]),
            with(&|r| r.fixed_strings = true, &["a.b*c", "[0]", "(?P<"]),
            with(&|r| r.walk.globs = vec!["*.py".into()], &["import"]),
            with(&|r| r.walk.globs = vec!["!tests/**".into()], &["def "]),
            with(
                &|r| {
                    r.walk.globs = vec!["*.txt".into(), "*.html".into(), "!docs/releases/**".into()]
                },
                &["django"],
            ),
            with(&|r| r.max_count = Some(1), &["import"]),
            with(&|r| r.max_count = Some(2), &["self"]),
            with(
                &|r| (r.before_context, r.after_context) = (2, 2),
                &["get_user_model"],
            ),
            with(
                &|r| (r.before_context, r.after_context) = (3, 1),
                &["class Meta:"],
            ),
            with(
                &|r| (r.after_context, r.max_count) = (4, Some(1)),
                &["def "],
            ),
            req(&["foo", "bar", "baz"]),
            with(&|r| r.walk.hidden = true, &["coverage"]),
            with(&|r| r.walk.no_ignore = true, &["needle|haystack"]),
            with(&|r| r.walk.require_git = false, &["ignore"]),
            with(
                &|r| r.paths = vec![root.join("django/db"), root.join("docs/index.txt")],
                &["Model"],
            ),
            with(
                &|r| r.paths = vec![root.join("django/conf/locale/de/LC_MESSAGES/django.mo")],
                &["Language"],
            ),
            with(&none, &[r"(?i)\bclass\s+\w+View\b"]),
        ];
        let mut failures = 0;
        let mut log_ratios = Vec::new();
        for case in &cases {
            // Best of three for both, run alternately.
            let mut ours_best = Duration::MAX;
            let mut rg_best = Duration::MAX;
            let mut result = None;
            let mut rg_lines = Vec::new();
            for _ in 0..3 {
                let start = Instant::now();
                let r = search_keyword(&root, case).expect("search");
                ours_best = ours_best.min(start.elapsed());
                result = Some(r);
                let (lines, elapsed) = run_rg(&root, case).expect("rg");
                rg_best = rg_best.min(elapsed);
                rg_lines = lines;
            }
            let Some(result) = result else { continue };
            let diffs = diff_with_rg(&result, &rg_lines);
            let ratio = ours_best.as_secs_f64() / rg_best.as_secs_f64().max(1e-6);
            log_ratios.push(ratio.ln());
            let label = rg_args(&root, case)[8..].join(" ");
            if diffs.is_empty() {
                eprintln!(
                    "OK   {:>7} lines  ours {:>7.1} ms  rg {:>7.1} ms  x{ratio:.2}  {label}",
                    rg_lines.len(),
                    ours_best.as_secs_f64() * 1e3,
                    rg_best.as_secs_f64() * 1e3
                );
            } else {
                failures += 1;
                eprintln!("DIFF {label}: {} differences", diffs.len());
                for d in diffs.iter().take(5) {
                    eprintln!("       {d}");
                }
            }
        }
        let geomean = (log_ratios.iter().sum::<f64>() / log_ratios.len() as f64).exp();
        eprintln!(
            "{} cases, {failures} differing, geometric mean time ratio (ours/rg) x{geomean:.2}",
            cases.len()
        );
        assert_eq!(failures, 0);
    }
}
