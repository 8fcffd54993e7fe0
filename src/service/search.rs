//! Owns ranked search as every surface offers it: one request type with a
//! [`Mode`], the one mapping from mode to ranking, paging, and similar code.
//! The ranking itself lives in `search::{bm25, semantic, hybrid}`.
//!
//! Every surface asks for the same depth (`offset + limit + 1` hits, the
//! extra one says whether more exist), so the same query, filters and index
//! state give the same ranked hits on the CLI, the MCP server and the eval.

use anyhow::Result;
use serde::Serialize;

use super::{Freshness, Service, generation_of, vectors_generation_of};
use crate::error::{ErrorCode, UserError};
use crate::search::bm25::{ChunkHit, Words, search_bm25};
use crate::search::hybrid::{
    Arm, ArmReport, HybridHit, HybridRequest, QueryKind, RRF_K, Source, recency_boost, shown_boost,
};
use crate::search::semantic::{SemanticInfo, SimilarRequest, SimilarTo};
use crate::search::{ChunkFilter, Scope, Snippets};

/// Lines of snippet per hit unless a request says otherwise.
pub const DEFAULT_SNIPPET_LINES: usize = 6;
/// Hits per page unless a request says otherwise.
pub const DEFAULT_LIMIT: usize = 10;

/// How `search` ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// BM25, embeddings, symbol names and keyword hits fused.
    #[default]
    Hybrid,
    /// Full-text (FTS5 BM25) alone.
    Bm25,
    /// Embeddings alone (cosine similarity to the query).
    Semantic,
    /// Definitions named in the query.
    Symbol,
    /// Literal matches of quoted text or identifiers.
    Keyword,
}

impl Mode {
    pub const ALL: [Mode; 5] = [
        Mode::Hybrid,
        Mode::Bm25,
        Mode::Semantic,
        Mode::Symbol,
        Mode::Keyword,
    ];
    pub const NAMES: [&'static str; 5] = ["hybrid", "bm25", "semantic", "symbol", "keyword"];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Hybrid => "hybrid",
            Mode::Bm25 => "bm25",
            Mode::Semantic => "semantic",
            Mode::Symbol => "symbol",
            Mode::Keyword => "keyword",
        }
    }

    /// The operation `stats` logs a search in this mode as.
    pub fn op_name(self) -> &'static str {
        match self {
            Mode::Hybrid => "search.hybrid",
            Mode::Bm25 => "search.bm25",
            Mode::Semantic => "search.semantic",
            Mode::Symbol => "search.symbol",
            Mode::Keyword => "search.keyword",
        }
    }

    pub fn parse(s: &str) -> Result<Mode> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                UserError::new(format!("unknown search mode `{s}`"))
                    .hint(format!("use one of: {}", Mode::NAMES.join(", ")))
                    .into()
            })
    }
}

/// Whether `search` prefers recently changed files (the project's git
/// history; a project without it ranks the same either way).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Recency {
    /// Only when the query asks about recent work ("what changed recently
    /// in …", "latest work on …"; `hybrid::asks_about_recent`).
    #[default]
    Auto,
    /// Always.
    On,
    /// Never.
    Off,
}

impl Recency {
    pub const NAMES: [&'static str; 3] = ["auto", "on", "off"];

    pub fn name(self) -> &'static str {
        match self {
            Recency::Auto => "auto",
            Recency::On => "on",
            Recency::Off => "off",
        }
    }

    pub fn parse(s: &str) -> Result<Recency> {
        [Recency::Auto, Recency::On, Recency::Off]
            .into_iter()
            .find(|r| r.name() == s)
            .ok_or_else(|| {
                UserError::with_code(ErrorCode::InvalidQuery, format!("unknown recency `{s}`"))
                    .hint(format!("use one of: {}", Recency::NAMES.join(", ")))
                    .into()
            })
    }

    /// Whether `query` is ranked with recency.
    pub fn applies_to(self, query: &str) -> bool {
        match self {
            Recency::Auto => crate::search::hybrid::asks_about_recent(query),
            Recency::On => true,
            Recency::Off => false,
        }
    }
}

/// How a mode ranks: the one place that maps modes to arms.
enum Ranking {
    /// The FTS5 ranking alone, without fusion.
    Bm25,
    /// Hybrid fusion over these arms (all when empty). One arm alone still
    /// gets fusion's path prior (code before tests and docs) and merging of
    /// overlapping hits; the semantic arm alone keeps cosine scores.
    Fused(Vec<Arm>),
}

fn ranking(mode: Mode) -> Ranking {
    match mode {
        Mode::Hybrid => Ranking::Fused(Vec::new()),
        Mode::Bm25 => Ranking::Bm25,
        Mode::Semantic => Ranking::Fused(vec![Arm::Semantic]),
        Mode::Symbol => Ranking::Fused(vec![Arm::Symbol]),
        Mode::Keyword => Ranking::Fused(vec![Arm::Keyword]),
    }
}

/// A ranked search.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: String,
    pub mode: Mode,
    /// rg-style globs; `!glob` excludes.
    pub globs: Vec<String>,
    pub lang: Option<String>,
    pub scope: Scope,
    pub limit: usize,
    pub offset: usize,
    /// Lines of context around each snippet (also lists the other
    /// definitions of each hit's file). Fused modes only.
    pub context: Option<usize>,
    pub snippet_lines: usize,
    /// Semantic mode: leave out hits below this cosine similarity.
    pub threshold: Option<f32>,
    /// The RRF constant (tuning runs).
    pub rrf_k: Option<f64>,
    /// Whether recently changed files are preferred.
    pub recency: Recency,
    /// Compute the answer even when the query cache holds it.
    pub no_cache: bool,
}

impl SearchRequest {
    pub fn new(query: impl Into<String>, mode: Mode) -> SearchRequest {
        SearchRequest {
            query: query.into(),
            mode,
            globs: Vec::new(),
            lang: None,
            scope: Scope::All,
            limit: DEFAULT_LIMIT,
            offset: 0,
            context: None,
            snippet_lines: DEFAULT_SNIPPET_LINES,
            threshold: None,
            rrf_k: None,
            recency: Recency::Auto,
            no_cache: false,
        }
    }
}

/// The answer of [`Service::search`] and [`Service::similar`].
#[derive(Debug, Clone)]
pub struct SearchAnswer {
    pub query: String,
    pub mode: Mode,
    /// The requested page, best first.
    pub hits: Vec<HybridHit>,
    pub offset: usize,
    /// More hits exist after this page.
    pub more: bool,
    /// Fused modes: how the query was read, and what each arm did.
    pub interpretation: Option<String>,
    pub query_kind: Option<QueryKind>,
    pub arms: Vec<ArmReport>,
    pub semantic_model: Option<String>,
    /// Semantic mode and similar code.
    pub semantic: Option<SemanticInfo>,
    /// The index generation answered from; `None`: there is no index yet.
    pub generation: Option<u64>,
    pub freshness: Freshness,
    /// Secret values shown as `[redacted: …]` in the hits' snippets.
    pub redacted: usize,
    /// Files among the hits that changed on disk (or were deleted) since
    /// they were indexed: their lines may have moved. Only a process that
    /// answers from the index as it is (the CLI) looks.
    pub changed_since_indexed: Vec<String>,
    /// A location query whose line is past the end of its file: the file
    /// leads instead ([`crate::search::hybrid::PastEnd::note`] says so).
    pub past_end: Option<crate::search::hybrid::PastEnd>,
    /// A location or file name the query is made of that no indexed file
    /// matches ([`crate::search::hybrid::unknown_path_note`] says so).
    pub unknown_path: Option<String>,
}

/// Said of a fused answer whose every hit only the semantic arm found.
pub const ONLY_SEMANTIC_NOTE: &str = "only the semantic arm matched: no word or name of the query occurs in these hits, so they may be only loosely related";

impl SearchAnswer {
    /// A fused answer whose every hit only the semantic arm found (a
    /// misspelt or made-up word, or a question in words the code does not
    /// use): its hits are nearest in meaning, whatever that is.
    pub fn only_semantic(&self) -> bool {
        self.mode == Mode::Hybrid
            && !self.hits.is_empty()
            && self
                .hits
                .iter()
                .all(|h| h.sources.iter().all(|s| s.arm == Arm::Semantic))
    }

    /// No hits yet (and none when there is no index).
    fn empty(query: String, mode: Mode, offset: usize, freshness: Freshness) -> SearchAnswer {
        SearchAnswer {
            query,
            mode,
            hits: Vec::new(),
            offset,
            more: false,
            interpretation: None,
            query_kind: None,
            arms: Vec::new(),
            semantic_model: None,
            semantic: None,
            generation: None,
            freshness,
            redacted: 0,
            changed_since_indexed: Vec::new(),
            past_end: None,
            unknown_path: None,
        }
    }
}

/// A ranked chunk of one arm as a hit (its rank is its only source).
fn single_arm_hit(arm: Arm, rank: usize, h: ChunkHit) -> HybridHit {
    HybridHit {
        path: h.path,
        start_line: h.start_line,
        end_line: h.end_line,
        symbol: h.symbol,
        kind: h.kind,
        lang: h.lang,
        score: h.score,
        sources: vec![Source {
            arm,
            rank: rank as u32 + 1,
        }],
        snippet_line: h.snippet_line,
        snippet: h.snippet,
        file_symbols: Vec::new(),
        recency: None,
        also: Vec::new(),
    }
}

/// A scope name as a [`Scope`], with a clear error.
pub fn parse_scope(s: &str) -> Result<Scope> {
    Scope::parse(s).ok_or_else(|| {
        UserError::new(format!("unknown scope `{s}`"))
            .hint("use code, docs or all")
            .into()
    })
}

/// What `similar` compares with.
#[derive(Debug, Clone)]
pub struct SimilarRequestSpec {
    pub target: SimilarTo,
    pub globs: Vec<String>,
    pub exclude_path: Option<String>,
    pub limit: usize,
    pub offset: usize,
    pub threshold: Option<f32>,
    pub snippet_lines: usize,
}

impl Service {
    /// Ranked search in any [`Mode`].
    pub fn search(&self, req: &SearchRequest) -> Result<SearchAnswer> {
        self.timed(req.mode.op_name(), || self.search_untimed(req))
    }

    fn search_untimed(&self, req: &SearchRequest) -> Result<SearchAnswer> {
        let filter = ChunkFilter::new(&req.globs, req.lang.as_deref(), req.scope)?;
        if req.query.trim().is_empty() {
            return Err(
                UserError::with_code(ErrorCode::InvalidQuery, "the query is empty")
                    .hint("give words, identifiers or a short description of what you look for")
                    .into(),
            );
        }
        let depth = req.offset + req.limit + 1;
        let fresh = self.ensure_fresh()?;
        let recency = req
            .recency
            .applies_to(&req.query)
            .then(|| self.recency())
            .filter(|r| !r.is_empty());
        // Recency-boosted answers also depend on the git history: not cached.
        let cache_key = match &self.cache {
            Some(_) if !req.no_cache && recency.is_none() => self.with_store(|s| {
                Ok(super::cache::key(
                    req,
                    generation_of(s),
                    vectors_generation_of(s),
                ))
            })?,
            _ => None,
        };
        if let (Some(cache), Some(key)) = (&self.cache, &cache_key)
            && let Some(mut hit) = cache.get(key)
        {
            hit.freshness = fresh;
            self.note_changed_hits(&mut hit)?;
            return Ok(hit);
        }
        let mut answer = SearchAnswer::empty(req.query.clone(), req.mode, req.offset, fresh);
        let found = self.with_store(|store| {
            let generation = generation_of(store);
            match ranking(req.mode) {
                Ranking::Bm25 => {
                    let mut hits = search_bm25(
                        store,
                        self.root(),
                        &req.query,
                        Words::Any,
                        &filter,
                        depth,
                        Snippets::Read(req.snippet_lines),
                    )?;
                    if let Some(r) = recency.as_deref() {
                        // Fetched to the same depth as without: recency
                        // re-orders what BM25 found.
                        for h in &mut hits {
                            h.score *= 1.0 + recency_boost(r, &h.path);
                        }
                        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
                    }
                    Ok((generation, Ranked::Hits(hits, Arm::Bm25)))
                }
                Ranking::Fused(only) => {
                    // The keyword arm reads the index's file list, as
                    // `keyword` does, where a watcher vouches for it (see
                    // `HybridRequest`): asked only when the arm may run.
                    let keyword_listing = (matches!(req.mode, Mode::Hybrid | Mode::Keyword)
                        && crate::search::hybrid::keyword_arm_may_run(&req.query))
                    .then(|| {
                        self.changed_since_index()
                            .map(|changed| (self.settings.walk.clone(), changed))
                    })
                    .flatten();
                    let hreq = HybridRequest {
                        query: req.query.clone(),
                        filter: filter.clone(),
                        scope: req.scope,
                        limit: depth,
                        snippet_lines: req.snippet_lines,
                        context: req.context.unwrap_or(0),
                        with_file_symbols: req.context.is_some(),
                        only,
                        k: req.rrf_k.unwrap_or(RRF_K),
                        threshold: req.threshold,
                        recency: recency.clone(),
                        keyword_listing,
                    };
                    let spares = self.spares();
                    let r = self.with_hybrid(|h| h.search(store, &spares, self.root(), &hreq))?;
                    Ok((generation, Ranked::Fused(Box::new(r))))
                }
            }
        })?;
        let Some((generation, ranked)) = found else {
            if self.policy == super::Policy::Foreground {
                return Err(self.no_index());
            }
            return Ok(answer);
        };
        answer.generation = Some(generation);
        let hits = match ranked {
            Ranked::Hits(hits, arm) => hits
                .into_iter()
                .enumerate()
                .map(|(i, h)| {
                    let mut hit = single_arm_hit(arm, i, h);
                    hit.recency = recency.as_deref().and_then(|r| shown_boost(r, &hit.path));
                    hit
                })
                .collect(),
            Ranked::Fused(r) => {
                if req.mode == Mode::Semantic {
                    // The arm failed outright (its note says why) when it
                    // has no report.
                    answer.semantic = Some(match r.semantic.as_ref() {
                        Some(report) => report.clone(),
                        None => SemanticInfo::failed(
                            r.arms
                                .iter()
                                .find(|a| a.arm == Arm::Semantic)
                                .and_then(|a| a.note.clone())
                                .unwrap_or_else(|| "semantic search failed".into()),
                        ),
                    });
                }
                answer.interpretation = Some(match &recency {
                    Some(_) => format!(
                        "{}; recently changed files preferred",
                        r.query_interpretation
                    ),
                    None => r.query_interpretation,
                });
                answer.query_kind = Some(r.query_kind);
                answer.arms = r.arms;
                answer.semantic_model = r.semantic_model;
                answer.past_end = r.past_end;
                answer.unknown_path = r.unknown_path;
                r.hits
            }
        };
        page(self, &mut answer, hits, req.offset, req.limit);
        if let (Some(cache), Some(key)) = (&self.cache, cache_key) {
            cache.put(key, &answer);
        }
        self.note_changed_hits(&mut answer)?;
        Ok(answer)
    }

    /// Fills [`SearchAnswer::changed_since_indexed`] ([`Service::changed_files`]).
    fn note_changed_hits(&self, answer: &mut SearchAnswer) -> Result<()> {
        let paths: Vec<&str> = answer.hits.iter().map(|h| h.path.as_str()).collect();
        answer.changed_since_indexed = self.changed_files(&paths)?;
        Ok(())
    }

    /// Which of `paths` (files an answer shows) changed on disk, or were
    /// deleted, since they were indexed, where the index is searched as it
    /// is (the CLI without a watcher refreshing it): an answer can then
    /// show a line that moved or no longer exists, and says so. A server
    /// refreshes before answering and does not look (empty). Costs a stat
    /// and a point query per file.
    pub fn changed_files(&self, paths: &[&str]) -> Result<Vec<String>> {
        if self.policy == super::Policy::Background || paths.is_empty() {
            return Ok(Vec::new());
        }
        let mut paths: Vec<&str> = paths.to_vec();
        paths.sort_unstable();
        paths.dedup();
        let root = self.root().to_path_buf();
        let changed = self.with_store(|store| {
            let mut out = Vec::new();
            for p in &paths {
                let Some(rec) = store.file_record(p)? else {
                    continue;
                };
                let moved = match std::fs::metadata(root.join(p)) {
                    Ok(md) => {
                        md.len() != rec.size || crate::search::ngram::mtime_ns(&md) != rec.mtime_ns
                    }
                    Err(_) => true,
                };
                if moved {
                    out.push((*p).to_string());
                }
            }
            Ok(out)
        })?;
        Ok(changed.unwrap_or_default())
    }

    /// Files new, changed or deleted since the last index run (a walk of
    /// the project and a stat per file), for an answer that found nothing
    /// where the index is searched as it is: the name may be in a file not
    /// indexed yet. A server refreshes before answering (`None`).
    pub fn staleness(&self) -> Result<Option<crate::index::Staleness>> {
        if self.policy == super::Policy::Background {
            return Ok(None);
        }
        self.with_store(|store| crate::index::staleness(self.settings(), store))
    }

    /// Code similar to a snippet or to the indexed chunk at a location.
    pub fn similar(&self, req: &SimilarRequestSpec) -> Result<SearchAnswer> {
        self.timed("similar", || self.similar_untimed(req))
    }

    fn similar_untimed(&self, req: &SimilarRequestSpec) -> Result<SearchAnswer> {
        let filter = ChunkFilter::new(&req.globs, None, Scope::All)?;
        let target = match &req.target {
            SimilarTo::Location { path, line } => {
                let p = crate::paths::resolve_in_root(self.root(), path)?;
                if p.abs.is_dir() {
                    return Err(UserError::new(format!("`{}` is a directory", p.rel))
                        .hint("give a file and a line inside the function or class to compare with")
                        .into());
                }
                SimilarTo::Location {
                    path: p.rel,
                    line: *line,
                }
            }
            code => code.clone(),
        };
        let exclude_path = match &req.exclude_path {
            Some(x) => Some(crate::paths::resolve_in_root(self.root(), x)?.rel),
            None => None,
        };
        let query = match &target {
            SimilarTo::Code(code) => match code.lines().count() {
                1 => "code (1 line)".to_string(),
                n => format!("code ({n} lines)"),
            },
            SimilarTo::Location { path, line } => format!("{path}:{line}"),
        };
        let sreq = SimilarRequest {
            target,
            filter,
            limit: req.offset + req.limit + 1,
            threshold: req.threshold,
            exclude_path,
            snippet_lines: req.snippet_lines,
        };
        let fresh = self.ensure_fresh()?;
        let found = self.with_store(|store| {
            let r = self.with_semantic(|s| s.similar(store, self.root(), &sreq))?;
            Ok((generation_of(store), r))
        })?;
        let mut answer = SearchAnswer::empty(query, Mode::Semantic, req.offset, fresh);
        let Some((generation, r)) = found else {
            if self.policy == super::Policy::Foreground {
                return Err(self.no_index());
            }
            return Ok(answer);
        };
        answer.generation = Some(generation);
        answer.semantic = Some(r.info.clone());
        answer.semantic_model = r.model.clone();
        let hits = r
            .hits
            .into_iter()
            .enumerate()
            .map(|(i, h)| single_arm_hit(Arm::Semantic, i, h))
            .collect();
        page(self, &mut answer, hits, req.offset, req.limit);
        Ok(answer)
    }
}

/// What one ranking returned, before paging.
enum Ranked {
    Hits(Vec<ChunkHit>, Arm),
    Fused(Box<crate::search::hybrid::HybridResult>),
}

/// Hits and their `also` places labelled without the namespaces or
/// modules around their types, which the path says already
/// (`App::dispatch`, not `Slim::App::dispatch`; `JsonParser.Parse`, not
/// `Google.Protobuf.JsonParser.Parse`), as `symbol` names members. The
/// index keeps the whole path: its words count for BM25 (PHP's answers
/// lost .001 per case when chunks were stored without them).
fn without_namespaces(svc: &Service, hits: &mut [HybridHit]) {
    // Only languages whose types sit in namespaces or modules: reading a
    // file's definitions costs a Python or Go page up to a millisecond
    // for nothing.
    let namespaced = |lang: &str| {
        matches!(
            lang,
            "csharp" | "cpp" | "php" | "ruby" | "typescript" | "rust"
        )
    };
    let namespaces = namespaces_of(
        svc,
        hits.iter()
            .filter(|h| namespaced(&h.lang))
            .map(|h| h.path.as_str()),
    );
    for h in hits {
        let Some(ns) = namespaces.get(&h.path).filter(|n| !n.is_empty()) else {
            continue;
        };
        if let Some(s) = &h.symbol {
            h.symbol = Some(crate::search::without_namespace(s, h.kind.as_deref(), ns));
        }
        for a in &mut h.also {
            if let Some(s) = &a.symbol {
                a.symbol = Some(crate::search::without_namespace(s, a.kind.as_deref(), ns));
            }
        }
    }
}

/// The namespaces and modules each of `paths` defines
/// ([`crate::search::namespaces_by_file`]); none where the index cannot
/// be read.
pub(crate) fn namespaces_of<'a>(
    svc: &Service,
    paths: impl Iterator<Item = &'a str>,
) -> std::collections::HashMap<String, Vec<String>> {
    let paths: Vec<&str> = paths.collect();
    svc.with_store(|store| crate::search::namespaces_by_file(store, paths.iter().copied()))
        .ok()
        .flatten()
        .unwrap_or_default()
}

/// Keeps the requested page of `hits` (which hold up to `offset + limit + 1`).
fn page(
    svc: &Service,
    answer: &mut SearchAnswer,
    hits: Vec<HybridHit>,
    offset: usize,
    limit: usize,
) {
    answer.more = hits.len() > offset + limit;
    answer.hits = hits.into_iter().skip(offset).take(limit).collect();
    without_namespaces(svc, &mut answer.hits);
    let mut red = svc.redactor();
    for h in &mut answer.hits {
        red.lines(&h.path, u64::from(h.snippet_line), &mut h.snippet);
    }
    answer.redacted = red.count();
}
