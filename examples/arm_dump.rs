//! Dumps what each hybrid arm finds for every `search` case of a suite, as
//! JSON lines, so fusion and re-ranking can be tried offline on the real
//! candidate lists (`scripts/fusion-lab.py`).
//!
//!     repo-search-eval fetch > /tmp/dirs.tsv
//!     cargo run --release --example arm_dump -- evals/agent.jsonl /tmp/dirs.tsv fast > /tmp/arms.jsonl
//!
//! The corpora must be indexed (with the vectors to compare) already: a
//! `repo-search-eval run` on the suite does that.

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::disallowed_methods)]

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use repo_search::search::hybrid::{Hybrid, HybridRequest, RRF_K};
use repo_search::search::semantic::SemanticSearcher;
use repo_search::search::{ChunkFilter, Scope};
use repo_search::service::{OnBadConfig, Policy, Service};
use repo_search::settings::Overrides;

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(suite), Some(dirs), tier) = (args.next(), args.next(), args.next()) else {
        bail!("usage: arm_dump SUITE.jsonl DIRS.tsv [fast] (lines `corpus<TAB>dir`)");
    };
    // `fast`: the fast tier's vectors only, as `repo-search-eval run` scores
    // by default (otherwise the full tier answers where it covers a corpus).
    let fast_only = match tier.as_deref() {
        None => false,
        Some("fast") => true,
        Some(other) => bail!("unknown tier `{other}` (only `fast`)"),
    };
    let dirs: HashMap<String, PathBuf> = std::fs::read_to_string(&dirs)
        .with_context(|| format!("cannot read `{dirs}`"))?
        .lines()
        .filter_map(|l| l.split_once('\t'))
        .map(|(c, d)| (c.to_string(), PathBuf::from(d)))
        .collect();
    let text = std::fs::read_to_string(&suite).with_context(|| format!("cannot read `{suite}`"))?;
    let mut open: HashMap<String, (Service, Hybrid)> = HashMap::new();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line)?;
        let get = |k: &str| case.get(k).and_then(|v| v.as_str()).unwrap_or_default();
        if get("tool") != "search" {
            continue;
        }
        let corpus = get("corpus").to_string();
        let Some(dir) = dirs.get(&corpus) else {
            eprintln!("{}: no directory for corpus `{corpus}`", get("id"));
            continue;
        };
        if !open.contains_key(&corpus) {
            let svc = Service::open(
                Some(Path::new(dir)),
                &Overrides::default(),
                Policy::AsIs,
                OnBadConfig::Fail,
            )?;
            let mut settings = svc.embed_settings()?;
            if fast_only {
                settings.provider = repo_search::settings::EmbedProvider::None;
            }
            let hybrid = Hybrid::new(Some(SemanticSearcher::new(
                settings,
                repo_search::embed::Models::new(),
            )));
            open.insert(corpus.clone(), (svc, hybrid));
        }
        let Some((svc, hybrid)) = open.get_mut(&corpus) else {
            continue;
        };
        let req = HybridRequest {
            query: get("query").to_string(),
            filter: ChunkFilter::new(&[], None, Scope::All)?,
            scope: Scope::All,
            // What the eval asks for 10 hits: offset + limit + 1.
            limit: 11,
            snippet_lines: 6,
            context: 0,
            with_file_symbols: false,
            only: Vec::new(),
            k: RRF_K,
            threshold: None,
            recency: None,
            keyword_listing: None,
        };
        let root = svc.root().to_path_buf();
        let gathered = svc
            .with_store(|store| {
                hybrid.gather(store, &repo_search::search::hybrid::NoSpare, &root, &req)
            })?
            .with_context(|| format!("{corpus}: no index"))?;
        let query = req.query.trim();
        let token_files =
            gathered.token_match_files(&mut repo_search::source::Sources::new(&root), query, RRF_K);
        let row = serde_json::json!({
            "id": get("id"),
            "corpus": corpus,
            "category": get("category"),
            "query": get("query"),
            "expect": case.get("expect"),
            "kind": gathered.analysis.kind,
            "identifiers": gathered.analysis.identifiers,
            "semantic_tier": gathered.semantic.as_ref().and_then(|s| s.tier).map(|t| format!("{t:?}")),
            "cands": gathered.cands.iter().map(|c| serde_json::json!({
                "arm": c.arm, "rank": c.rank, "path": c.path, "start": c.start_line,
                "end": c.end_line, "symbol": c.symbol, "kind": c.kind, "lang": c.lang,
                "raw": c.raw, "block": c.snippet.is_none() || c.end_line > c.start_line,
            })).collect::<Vec<_>>(),
            "token_files": token_files,
        });
        writeln!(out, "{row}")?;
    }
    Ok(())
}
