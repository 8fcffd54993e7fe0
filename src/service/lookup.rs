//! Owns the lookups every surface offers besides ranked search: symbol
//! definitions, references, a file's outline, reading a file, keyword
//! search over the files on disk, and the index's status. Paging and path
//! checks happen here, once; the surfaces render the typed answers.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::Result;

use super::{Freshness, Policy, RunState, Service, generation_of};
use crate::error::{ErrorCode, UserError};
use crate::history::{BlameRequest, BlameResult, HistoryRequest, HistoryResult};
use crate::search::graph::{Direction, GraphResult, call_graph};
use crate::search::keyword::{
    EachViewed, FileLines, KeywordMatch, KeywordRequest, KeywordResult, LineView, RuleOut, Viewed,
    Views, search_keyword_each, search_keyword_listed, search_keyword_listed_each,
    search_keyword_with,
};
use crate::search::ngram::{IndexFilter, Listed};
use crate::search::read::{ReadRequest, ReadResult, read_file};
use crate::search::symbol::{
    MatchMode, OutlineItem, RefResult, RefType, SymbolQuery, SymbolResult, Unplaced,
    find_references, find_symbols_or_bare, outline, source_lines,
};
use crate::status::IndexStatus;

/// An answer read from the index: `value` is `None` when there is no index
/// yet (a server answers that, with what it is doing about it; a command
/// fails with `NO_INDEX` instead).
#[derive(Debug, Clone)]
pub struct Indexed<T> {
    pub value: Option<T>,
    /// The index generation answered from (0 when unknown).
    pub generation: Option<u64>,
    pub freshness: Freshness,
}

/// Definitions by name: the query (its `limit` is the page size) and the
/// page's start.
#[derive(Debug, Clone)]
pub struct SymbolsRequest {
    pub query: SymbolQuery,
    pub offset: usize,
}

/// A page of definitions; `result.total` counts all of them.
pub type DefinitionsAnswer = Indexed<SymbolResult>;

#[derive(Debug, Clone)]
pub struct ReferencesRequest {
    pub name: String,
    /// Definitions, references or both (the default).
    pub want: RefType,
    pub limit: usize,
    pub offset: usize,
}

/// Callers or callees of a name, expanded to `depth`.
#[derive(Debug, Clone)]
pub struct GraphRequest {
    pub name: String,
    pub direction: Direction,
    pub depth: u32,
    /// Skip this many edges (paging), then at most `limit`.
    pub offset: usize,
    pub limit: usize,
}

/// Call-graph edges; `result.total` counts all of them.
pub type GraphAnswer = Indexed<GraphResult>;

/// A page of references; `result.total` counts all of them.
pub type ReferencesAnswer = Indexed<RefResult>;

#[derive(Debug, Clone)]
pub struct OutlineRequest {
    /// A path as the user gave it (relative to the root, or absolute inside it).
    pub path: String,
}

/// A file's definitions, nested; `skipped` says why the indexer skipped it.
#[derive(Debug, Clone)]
pub struct Outline {
    /// Root-relative path.
    pub path: String,
    pub skipped: Option<String>,
    pub items: Vec<OutlineItem>,
    /// Secret values shown as `[redacted: …]` in signatures.
    pub redacted: usize,
}

pub type OutlineAnswer = Indexed<Outline>;

/// The index's state plus what this service's own runs are doing.
#[derive(Debug, Clone)]
pub struct StatusAnswer {
    pub status: IndexStatus,
    pub freshness: Freshness,
    pub run: RunState,
    pub config_error: Option<String>,
}

/// Definitions read at most to leave out, beyond the page, what the
/// default match leaves out (a type's trait impls, a build's copies, names
/// that only start with the one asked for) before paging.
const PAGE_FILTERS_READ: usize = 500;

impl Service {
    /// Reads through the pool after [`Service::ensure_fresh`]; `None` when
    /// there is no index (an error under [`Policy::Foreground`]).
    pub(super) fn indexed<T>(
        &self,
        mut f: impl FnMut(&crate::store::Store) -> Result<T>,
    ) -> Result<Indexed<T>> {
        let freshness = self.ensure_fresh()?;
        let found = self.with_store(|store| Ok((f(store)?, generation_of(store))))?;
        match found {
            Some((value, generation)) => Ok(Indexed {
                value: Some(value),
                generation: Some(generation),
                freshness,
            }),
            None if self.policy == Policy::Foreground => Err(self.no_index()),
            None => Ok(Indexed {
                value: None,
                generation: None,
                freshness,
            }),
        }
    }

    /// The value of an index-backed answer, or the `NO_INDEX` error when
    /// there is no index (for callers that cannot answer without one).
    pub fn require<T>(&self, answer: Indexed<T>) -> Result<T> {
        answer.value.ok_or_else(|| self.no_index())
    }

    /// Definitions named like `req.query.name`, ranked; the requested page.
    pub fn symbols(&self, req: &SymbolsRequest) -> Result<DefinitionsAnswer> {
        self.timed("symbol", || self.symbols_untimed(req))
    }

    fn symbols_untimed(&self, req: &SymbolsRequest) -> Result<DefinitionsAnswer> {
        let mut q = req.query.clone();
        q.limit = req.offset + req.query.limit;
        let mut answer = self.indexed(|store| {
            let mut r = find_symbols_or_bare(store, Some(self.root()), &q, Unplaced::IfDefined)?;
            if q.mode == MatchMode::Auto && r.truncated {
                // The default match leaves out trait impls, a build's
                // copies and names that only start with the one asked
                // for: counted over every definition, not the page's (a
                // page of 2 had said "2 of 266", counting the prefix
                // matches the next page then left out, showing nothing).
                let all = SymbolQuery {
                    limit: PAGE_FILTERS_READ.max(q.limit),
                    ..q.clone()
                };
                r = find_symbols_or_bare(store, Some(self.root()), &all, Unplaced::IfDefined)?;
            }
            r.without_trait_impls(q.mode, &q.kinds);
            let copies = crate::search::build_copies(store, r.hits.iter().map(|h| h.path.as_str()));
            r.without_build_copies(q.mode, &copies);
            r.without_prefix_tail(q.mode, &q.name);
            r.truncated |= r.hits.len() > q.limit;
            r.hits.truncate(q.limit);
            r.hits = r.hits.into_iter().skip(req.offset).collect();
            Ok(r)
        })?;
        if let Some(r) = answer.value.as_mut() {
            let mut red = self.redactor();
            for h in &mut r.hits {
                red.text(&mut h.signature);
            }
            r.redacted = red.count();
        }
        Ok(answer)
    }

    /// Uses of a name, definitions first; the requested page, each hit with
    /// its source line.
    pub fn references(&self, req: &ReferencesRequest) -> Result<ReferencesAnswer> {
        self.timed("refs", || self.references_untimed(req))
    }

    fn references_untimed(&self, req: &ReferencesRequest) -> Result<ReferencesAnswer> {
        reject_location(&req.name)?;
        let mut answer = self.indexed(|store| {
            find_references(
                store,
                self.root(),
                &req.name,
                req.want,
                req.offset,
                req.limit,
            )
        })?;
        if let Some(r) = answer.value.as_mut() {
            source_lines(self.root(), &mut r.hits);
            // Enclosing members as search labels them, without the
            // namespaces around their types (`Context.[]`, not
            // `Liquid.Context.[]`, beside the definition's `Context`).
            let namespaces =
                super::search::namespaces_of(self, r.hits.iter().map(|h| h.path.as_str()));
            for h in &mut r.hits {
                if let (Some(e), Some(ns)) = (h.enclosing.as_mut(), namespaces.get(&h.path)) {
                    *e = crate::search::without_namespace(e, None, ns);
                }
            }
            let mut red = self.redactor();
            for h in &mut r.hits {
                if let Some(text) = h.text.as_mut() {
                    red.line(&h.path, u64::from(h.line), text);
                }
            }
            r.redacted = red.count();
        }
        Ok(answer)
    }

    /// Callers or callees of a name: call sites with their enclosing
    /// symbol and resolution, each with its source line.
    pub fn call_graph(&self, req: &GraphRequest) -> Result<GraphAnswer> {
        self.timed(req.direction.op_name(), || self.call_graph_untimed(req))
    }

    fn call_graph_untimed(&self, req: &GraphRequest) -> Result<GraphAnswer> {
        reject_location(&req.name)?;
        let mut answer = self.indexed(|store| {
            call_graph(
                store,
                self.root(),
                &req.name,
                req.direction,
                req.depth,
                req.offset.saturating_add(req.limit),
            )
            .map(|mut r| {
                r.edges.drain(..req.offset.min(r.edges.len()));
                r.truncated = r.total > req.offset + r.edges.len();
                r
            })
        })?;
        if let Some(r) = answer.value.as_mut() {
            source_lines(self.root(), &mut r.edges);
            let mut red = self.redactor();
            for e in &mut r.edges {
                if let Some(text) = e.text.as_mut() {
                    red.line(&e.path, u64::from(e.line), text);
                }
            }
            r.redacted = red.count();
        }
        Ok(answer)
    }

    /// The definitions of one file. A file the index does not hold is a
    /// `NOT_FOUND` error, except while an index run may be adding it.
    pub fn outline(&self, req: &OutlineRequest) -> Result<OutlineAnswer> {
        self.timed("outline", || self.outline_untimed(req))
    }

    fn outline_untimed(&self, req: &OutlineRequest) -> Result<OutlineAnswer> {
        let p = self.file_path(&req.path)?;
        let found = self.indexed(|store| outline(store, Some(self.root()), &p.rel))?;
        let (value, generation, freshness) = (found.value, found.generation, found.freshness);
        let value = match value {
            Some(Some((skipped, mut items))) => {
                let mut red = self.redactor();
                redact_outline(&mut red, &mut items);
                Some(Outline {
                    path: p.rel,
                    skipped,
                    items,
                    redacted: red.count(),
                })
            }
            Some(None) if freshness.indexing => Some(Outline {
                path: p.rel,
                skipped: None,
                items: Vec::new(),
                redacted: 0,
            }),
            Some(None) => return Err(not_indexed(&p.rel)),
            None => None,
        };
        Ok(Indexed {
            value,
            generation,
            freshness,
        })
    }

    /// A slice of a file on disk (always current; no index needed).
    pub fn read(&self, req: &ReadRequest) -> Result<ReadResult> {
        self.timed("read", || self.read_untimed(req))
    }

    fn read_untimed(&self, req: &ReadRequest) -> Result<ReadResult> {
        let mut r = read_file(self.root(), req)?;
        let mut red = self.redactor();
        for l in &mut r.lines {
            red.line(&r.path, l.line, &mut l.text);
        }
        r.redacted = red.count();
        Ok(r)
    }

    /// The commits that touched a file or a line range, newest first, from
    /// the repository's git data (`NO_GIT` outside a repository).
    pub fn history(&self, req: &HistoryRequest) -> Result<HistoryResult> {
        self.timed("history", || self.history_untimed(req))
    }

    fn history_untimed(&self, req: &HistoryRequest) -> Result<HistoryResult> {
        let mut r = crate::history::file_history(self.root(), req)?;
        let mut red = self.redactor();
        redact_commits(&mut red, &mut r.commits);
        r.redacted = red.count();
        Ok(r)
    }

    /// Which commit last changed each line of a file (as committed), with
    /// the line text redacted like every file text.
    pub fn blame(&self, req: &BlameRequest) -> Result<BlameResult> {
        self.timed("blame", || self.blame_untimed(req))
    }

    fn blame_untimed(&self, req: &BlameRequest) -> Result<BlameResult> {
        let mut r = crate::history::blame(self.root(), req)?;
        let mut red = self.redactor();
        for l in &mut r.lines {
            red.line(&r.path, l.line, &mut l.text);
        }
        redact_commits(&mut red, &mut r.commits);
        r.redacted = red.count();
        Ok(r)
    }

    /// Keyword search over the files on disk, exactly as `rg` would.
    /// `paths` are checked to lie inside the root.
    pub fn keyword(&self, req: &KeywordRequest, paths: &[String]) -> Result<KeywordResult> {
        self.timed("keyword", || self.keyword_untimed(req, paths))
    }

    fn keyword_untimed(&self, req: &KeywordRequest, paths: &[String]) -> Result<KeywordResult> {
        self.keyword_run(req, paths, None)
    }

    /// [`Service::keyword`] handing each file's matches, redacted and made
    /// into a [`Viewed`] by `views` (on the thread that searched the file),
    /// to `each` in the answer's order instead of keeping them: the answer
    /// has the counts and no `matches`. Where the index lists the files (a
    /// watched project) they are handed over while the search runs, so a
    /// million matching lines are never all held (the CLI's text output);
    /// otherwise once the walk is done. An error from `each` stops the
    /// search and is returned.
    pub fn keyword_each(
        &self,
        req: &KeywordRequest,
        paths: &[String],
        views: Views<'_>,
        each: &mut EachViewed<'_>,
    ) -> Result<KeywordResult> {
        self.timed("keyword", || {
            self.keyword_each_untimed(req, paths, views, each)
        })
    }

    fn keyword_each_untimed(
        &self,
        req: &KeywordRequest,
        paths: &[String],
        views: Views<'_>,
        each: &mut EachViewed<'_>,
    ) -> Result<KeywordResult> {
        let redacted = AtomicUsize::new(0);
        let redacting = |path: &str, mut matches: Vec<KeywordMatch>| {
            let mut red = self.redactor();
            redact_matches(&mut red, &mut matches);
            redacted.fetch_add(red.count(), Ordering::Relaxed);
            (views.file)(path, matches)
        };
        let lines = views.lines.map(|inner| RedactingLines {
            inner,
            service: self,
            count: &redacted,
        });
        let views = Views {
            file: &redacting,
            lines: lines.as_ref().map(|l| l as &dyn LineView),
        };
        let mut r = self.keyword_run(req, paths, Some((views, each)))?;
        r.redacted = redacted.into_inner();
        Ok(r)
    }

    fn keyword_run(
        &self,
        req: &KeywordRequest,
        paths: &[String],
        each: Option<(Views<'_>, &mut EachViewed<'_>)>,
    ) -> Result<KeywordResult> {
        // Checked before choosing how to read: the index's file list
        // (a watched project) applies the excluding globs without the walk.
        for g in &req.walk.globs {
            crate::walk::reject_outside_glob(g)?;
        }
        let mut req = req.clone();
        let mut abs: Vec<PathBuf> = Vec::with_capacity(paths.len());
        for p in paths {
            abs.push(crate::paths::resolve_in_root(self.root(), p)?.abs);
        }
        req.paths = abs;
        let root = self.root();
        let walked = |filter: Option<&dyn RuleOut>,
                      each: Option<(Views<'_>, &mut EachViewed<'_>)>| {
            match each {
                Some((view, each)) => search_keyword_each(root, &req, filter, view, each),
                None => search_keyword_with(root, &req, filter),
            }
        };
        let (mut r, used_postings) = if req.no_index {
            (walked(None, each)?, false)
        } else if let Some(listed) = self.keyword_listed(&req) {
            let (files, ruled_out) = (&listed.files, listed.ruled_out);
            let r = match each {
                Some((view, each)) => {
                    search_keyword_listed_each(root, &req, files, ruled_out, view, each)?
                }
                None => search_keyword_listed(root, &req, files, ruled_out)?,
            };
            (r, true)
        } else {
            let filter = self.keyword_filter(&req);
            let r = walked(filter.as_ref().map(|f| f as &dyn RuleOut), each)?;
            (r, filter.is_some())
        };
        if used_postings {
            tracing::debug!(
                ruled_out = r.index_ruled_out,
                searched = r.files_searched,
                "keyword: files the postings ruled out"
            );
        }
        let mut red = self.redactor();
        redact_matches(&mut red, &mut r.matches);
        r.redacted = red.count();
        Ok(r)
    }

    /// The files a keyword search must read, from the index's docs instead
    /// of a walk: only when a watcher (this process's own or the running
    /// daemon's) vouches for the index's file list (what changed since its
    /// last run is read directly), and the request walks as the index does
    /// (`Listed::load` decides). Never fails the search: `None` means walk.
    fn keyword_listed(&self, req: &KeywordRequest) -> Option<Listed> {
        let ours = &self.settings.walk;
        if !Listed::can_stand_in(ours, req) {
            return None;
        }
        let started = std::time::Instant::now();
        let changed = self.changed_since_index()?;
        let asked = started.elapsed();
        match self
            .with_store(|s| Listed::load(s, self.root(), ours, req, &changed))
            .map(Option::flatten)
        {
            Ok(Some(listed)) => {
                tracing::debug!(
                    changed = changed.len(),
                    read = listed.files.len(),
                    ruled_out = listed.ruled_out,
                    daemon_ms = asked.as_secs_f64() * 1e3,
                    ms = started.elapsed().as_secs_f64() * 1e3,
                    "keyword: listed from the index"
                );
                Some(listed)
            }
            Ok(None) => None,
            Err(e) => {
                tracing::debug!("keyword: index list not used: {e:#}");
                None
            }
        }
    }

    /// The index's trigram postings for a keyword search, when the project
    /// has them and the patterns narrow anything. Never builds an index and
    /// never fails the search: a problem reading the postings means reading
    /// every file.
    fn keyword_filter(&self, req: &KeywordRequest) -> Option<IndexFilter> {
        let started = std::time::Instant::now();
        match self.with_store(|s| Ok(IndexFilter::load(s, req)?)) {
            Ok(found) => {
                let filter = found.flatten();
                if let Some(f) = &filter {
                    let (docs, candidates) = f.counts();
                    tracing::debug!(
                        docs,
                        candidates,
                        ms = started.elapsed().as_secs_f64() * 1e3,
                        "keyword: trigram candidates"
                    );
                }
                filter
            }
            Err(e) => {
                tracing::debug!("keyword: postings not used: {e:#}");
                None
            }
        }
    }

    /// What the index holds, whether a writer runs, vectors, staleness
    /// (`depth.stale` walks the tree: skipped while indexing) and sizes.
    pub fn status(&self, depth: crate::status::StatusDepth) -> Result<StatusAnswer> {
        let freshness = self.freshness();
        let run = self.run_state();
        let check = crate::status::StatusDepth {
            stale: depth.stale && !freshness.indexing,
            ..depth
        };
        let mut attempt = 0;
        let status = loop {
            match crate::status::index_status(&self.settings, check) {
                Ok(st) => break st,
                // A first build can make the file readable a moment before
                // its tables exist: ask again shortly.
                Err(e) if attempt < 10 && self.is_transient(&e) => {
                    attempt += 1;
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                // Damaged: set aside and rebuilt as a search would, so status
                // never calls corrupt an index that searches answer from.
                Err(e)
                    if attempt < 10
                        && crate::store::is_damaged(&e)
                        && self.policy != super::Policy::AsIs =>
                {
                    attempt = 10;
                    if !self.repair(&e)? {
                        return Err(e);
                    }
                }
                Err(e) => return Err(e),
            }
        };
        Ok(StatusAnswer {
            status,
            freshness,
            run,
            config_error: self.config_error.clone(),
        })
    }
}

impl Service {
    /// A user-given path to one file inside the root (not a directory).
    pub(super) fn file_path(&self, path: &str) -> Result<crate::paths::ProjectPath> {
        let p = crate::paths::resolve_in_root(self.root(), path)?;
        if p.abs.is_dir() {
            return Err(UserError::new(format!("`{}` is a directory", p.rel))
                .hint("give a file path; `repo-search search FILE_NAME` finds a file by its name")
                .agent("give a file path; to find files use search_keyword with a glob, e.g. pattern \".\" and glob [\"src/*.rs\"]")
                .into());
        }
        Ok(p)
    }
}

/// A directory where a file path was expected.
pub(super) fn is_directory(rel: &str) -> anyhow::Error {
    UserError::new(format!("`{rel}` is a directory"))
        .hint("give a file path; `repo-search search FILE_NAME` finds a file by its name")
        .agent("give a file path; to find files use search_keyword with a glob, e.g. pattern \".\" and glob [\"src/*.rs\"]")
        .into()
}

/// `NOT_FOUND`: a file the index does not hold.
pub(super) fn not_indexed(rel: &str) -> anyhow::Error {
    UserError::with_code(ErrorCode::NotFound, format!("`{rel}` is not in the index"))
        .hint("only source files of supported languages (and docs) are indexed, and ignored files are not; `repo-search read` shows any file")
        .agent("only source files of supported languages (and docs) are indexed, and ignored files are not; read it with read_file")
        .into()
}

/// Redacts the signatures of an outline and its nested items.
fn redact_outline(red: &mut crate::redact::Redactor, items: &mut [OutlineItem]) {
    for item in items {
        red.text(&mut item.signature);
        redact_outline(red, &mut item.children);
    }
}

/// Shows secret values in matched and context lines as `[redacted: …]`,
/// keeping the submatch ranges on the text they point at.
/// A [`LineView`] whose lines are redacted first, counting what it replaced.
struct RedactingLines<'v> {
    inner: &'v dyn LineView,
    service: &'v Service,
    count: &'v AtomicUsize,
}

impl LineView for RedactingLines<'_> {
    fn file<'s>(&'s self, path: &'s str) -> Box<dyn FileLines + 's> {
        Box::new(RedactingFile {
            inner: self.inner.file(path),
            red: self.service.redactor(),
            path,
            count: self.count,
        })
    }
}

struct RedactingFile<'s> {
    inner: Box<dyn FileLines + 's>,
    red: crate::redact::Redactor,
    path: &'s str,
    count: &'s AtomicUsize,
}

impl FileLines for RedactingFile<'_> {
    fn line(&mut self, line: u64, column: u64, text: &str) {
        let text = self.red.line_cow(self.path, line, text);
        self.inner.line(line, column, &text);
    }

    fn finish(self: Box<Self>) -> Viewed {
        self.count.fetch_add(self.red.count(), Ordering::Relaxed);
        self.inner.finish()
    }
}

fn redact_matches(red: &mut crate::redact::Redactor, matches: &mut [KeywordMatch]) {
    for m in matches {
        for c in &mut m.before {
            red.line(&m.path, c.line, &mut c.text);
        }
        let found = red.line(&m.path, m.line, &mut m.text);
        if !found.is_empty() {
            for s in &mut m.submatches {
                *s = (
                    crate::redact::remap(s.0, &found, false),
                    crate::redact::remap(s.1, &found, true),
                );
            }
        }
        for c in &mut m.after {
            red.line(&m.path, c.line, &mut c.text);
        }
    }
}

/// Commit messages are text an answer shows like file lines: a token
/// pasted into one is redacted too.
fn redact_commits(red: &mut crate::redact::Redactor, commits: &mut [crate::history::CommitInfo]) {
    for c in commits {
        match c.message.as_mut() {
            // The summary is the message's first line: redacted (and
            // counted) once.
            Some(m) if m.lines().next() == Some(c.summary.as_str()) => {
                red.text(m);
                c.summary = m.lines().next().unwrap_or_default().to_string();
            }
            Some(m) => {
                red.text(m);
                red.text(&mut c.summary);
            }
            None => red.text(&mut c.summary),
        }
    }
}

/// A file or a location (`src/de/struct_.rs:199`) where `refs`, `callers`
/// or `callees` take a name: a clear error rather than a qualified name
/// split at the path's dots.
fn reject_location(name: &str) -> Result<()> {
    let name = name.trim();
    // As `search` reads a location: `path:line`, `path:line:col`, `path#L12`.
    let at_line = crate::search::hybrid::location(name).is_some();
    // Not an Elixir or Erlang arity (`render/1`) or a C++ `operator/`.
    let path = name
        .rsplit_once('/')
        .is_some_and(|(_, last)| !last.is_empty() && !last.bytes().all(|b| b.is_ascii_digit()))
        && !name.contains("operator");
    if !(at_line || path) {
        return Ok(());
    }
    Err(crate::error::UserError::new(format!(
        "`{name}` is a file or a place in one, not a name"
    ))
    .hint("`repo-search context PATH:LINE` shows the definition at a line with its callers and callees; give this command the definition's name (`repo-search outline PATH` lists them)")
    .agent("context {path, line} shows the definition at a line with its callers and callees; give this tool the definition's name (list_defs_in_file lists them)")
    .into())
}
