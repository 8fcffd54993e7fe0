//! Owns the engine that answers eval cases through the library, calling the
//! same functions the CLI commands call (so `--through cli` measures what a
//! CLI user gets, without process start-up noise).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow};

use crate::eval::cases::{Case, Tool};
use crate::eval::run::{Answer, Engine, Hit};
use crate::search::keyword::{CaseMode, KeywordRequest, search_keyword};
use crate::search::symbol::{
    MatchMode, OutlineItem, SymbolQuery, find_references, find_symbols, outline,
};
use crate::search::{ChunkFilter, Scope};
use crate::store::Store;
use crate::walk::WalkOptions;

fn arg_str<'a>(case: &'a Case, key: &str) -> Option<&'a str> {
    case.args.get(key).and_then(|v| v.as_str())
}

fn arg_bool(case: &Case, key: &str) -> bool {
    case.args
        .get(key)
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
}

fn arg_strings(case: &Case, key: &str) -> Vec<String> {
    match case.args.get(key) {
        Some(serde_json::Value::String(s)) => vec![s.clone()],
        Some(serde_json::Value::Array(a)) => a
            .iter()
            .filter_map(|v| v.as_str().map(String::from))
            .collect(),
        _ => Vec::new(),
    }
}

fn chars<T: serde::Serialize>(v: &T) -> usize {
    serde_json::to_string(v).map(|s| s.len()).unwrap_or(0)
}

/// Answers cases with the library, one warm read-only index per corpus.
#[derive(Default)]
pub struct LibEngine {
    stores: HashMap<PathBuf, Store>,
    /// Warm hybrid searchers (semantic matrix, query model) per corpus.
    hybrids: HashMap<PathBuf, crate::search::hybrid::Hybrid>,
    /// RRF constant override (tuning runs).
    pub rrf_k: Option<f64>,
}

impl LibEngine {
    fn store(&mut self, root: &Path) -> Result<&Store> {
        if !self.stores.contains_key(root) {
            let store =
                Store::open_ro(root)?.ok_or_else(|| anyhow!("no index in `{}`", root.display()))?;
            self.stores.insert(root.to_path_buf(), store);
        }
        self.stores
            .get(root)
            .ok_or_else(|| anyhow!("index vanished"))
    }
}

fn flatten(items: &[OutlineItem], path: &str, out: &mut Vec<Hit>) {
    for i in items {
        out.push(Hit {
            path: path.to_string(),
            start_line: i.start_line,
            end_line: i.end_line,
            name: Some(i.name.clone()),
        });
        flatten(&i.children, path, out);
    }
}

impl Engine for LibEngine {
    fn answer(&mut self, root: &Path, case: &Case, mode: &str, limit: usize) -> Result<Answer> {
        match case.tool {
            Tool::SearchKeyword => {
                let req = KeywordRequest {
                    patterns: vec![case.query.clone()],
                    fixed_strings: arg_bool(case, "fixed_strings"),
                    case: if arg_bool(case, "case_insensitive") {
                        CaseMode::Insensitive
                    } else {
                        CaseMode::Sensitive
                    },
                    word: arg_bool(case, "word"),
                    before_context: 0,
                    after_context: 0,
                    max_count: None,
                    max_results: None,
                    walk: WalkOptions {
                        globs: arg_strings(case, "glob"),
                        ..WalkOptions::default()
                    },
                    paths: Vec::new(),
                };
                let r = search_keyword(root, &req)?;
                let matches = r
                    .matches
                    .iter()
                    .map(|m| format!("{}:{}", m.path, m.line))
                    .collect();
                let hits = r
                    .matches
                    .iter()
                    .map(|m| Hit {
                        path: m.path.clone(),
                        start_line: m.line as u32,
                        end_line: m.line as u32,
                        name: None,
                    })
                    .collect();
                Ok(Answer {
                    hits,
                    matches: Some(matches),
                    chars: chars(&r),
                })
            }
            Tool::FindSymbol => {
                let store = self.store(root)?;
                let q = SymbolQuery {
                    name: case.query.clone(),
                    kinds: arg_strings(case, "kind"),
                    lang: arg_str(case, "language").map(String::from),
                    mode: arg_str(case, "match")
                        .and_then(MatchMode::parse)
                        .unwrap_or_default(),
                    limit,
                };
                let r = find_symbols(store, &q)?;
                let hits = r
                    .hits
                    .iter()
                    .map(|h| Hit {
                        path: h.path.clone(),
                        start_line: h.start_line,
                        end_line: h.end_line,
                        name: Some(h.name.clone()),
                    })
                    .collect();
                Ok(Answer {
                    hits,
                    matches: None,
                    chars: chars(&r),
                })
            }
            Tool::FindReferences => {
                let store = self.store(root)?;
                let r = find_references(store, &case.query, limit)?;
                let hits = r
                    .hits
                    .iter()
                    .map(|h| Hit {
                        path: h.path.clone(),
                        start_line: h.line,
                        end_line: h.line,
                        name: None,
                    })
                    .collect();
                Ok(Answer {
                    hits,
                    matches: None,
                    chars: chars(&r),
                })
            }
            Tool::ListDefsInFile => {
                let store = self.store(root)?;
                let (_, items) = outline(store, &case.query)?
                    .ok_or_else(|| anyhow!("`{}` is not in the index", case.query))?;
                let mut hits = Vec::new();
                flatten(&items, &case.query, &mut hits);
                Ok(Answer {
                    hits,
                    matches: None,
                    chars: chars(&items),
                })
            }
            Tool::Search => {
                let scope = arg_str(case, "scope")
                    .and_then(Scope::parse)
                    .unwrap_or_default();
                let filter =
                    ChunkFilter::new(&arg_strings(case, "glob"), arg_str(case, "lang"), scope)?;
                let store = self.store(root)?;
                match mode {
                    "bm25" => {
                        let hits = crate::search::bm25::search_bm25(
                            store,
                            &case.query,
                            &filter,
                            limit,
                            8,
                        )?;
                        let out = hits
                            .iter()
                            .map(|h| Hit {
                                path: h.path.clone(),
                                start_line: h.start_line,
                                end_line: h.end_line,
                                name: h.symbol.clone(),
                            })
                            .collect();
                        Ok(Answer {
                            hits: out,
                            matches: None,
                            chars: chars(&hits),
                        })
                    }
                    "hybrid" | "semantic" | "symbol" | "keyword" => {
                        use crate::search::hybrid::{Arm, Hybrid, HybridRequest, RRF_K};
                        let only = match mode {
                            "semantic" => vec![Arm::Semantic],
                            "symbol" => vec![Arm::Symbol],
                            "keyword" => vec![Arm::Keyword],
                            _ => Vec::new(),
                        };
                        if !self.hybrids.contains_key(root) {
                            let (embed, _) = crate::settings::resolve_embed(root)?;
                            let searcher = crate::search::semantic::SemanticSearcher::new(embed);
                            self.hybrids
                                .insert(root.to_path_buf(), Hybrid::new(Some(searcher)));
                        }
                        let k = self.rrf_k.unwrap_or(RRF_K);
                        self.store(root)?;
                        let (Some(store), Some(hybrid)) =
                            (self.stores.get(root), self.hybrids.get_mut(root))
                        else {
                            return Err(anyhow!("no index for `{}`", root.display()));
                        };
                        let req = HybridRequest {
                            query: case.query.clone(),
                            filter,
                            scope,
                            limit,
                            snippet_lines: 8,
                            context: 0,
                            with_file_symbols: false,
                            only,
                            k,
                        };
                        let r = hybrid.search(store, root, &req)?;
                        if mode == "semantic" && r.hits.is_empty() {
                            let note = r
                                .arms
                                .iter()
                                .find_map(|a| a.note.clone())
                                .unwrap_or_default();
                            return Err(anyhow!("semantic search unavailable: {note}"));
                        }
                        let out = r
                            .hits
                            .iter()
                            .map(|h| Hit {
                                path: h.path.clone(),
                                start_line: h.start_line,
                                end_line: h.end_line,
                                name: h.symbol.clone(),
                            })
                            .collect();
                        Ok(Answer {
                            hits: out,
                            matches: None,
                            chars: chars(&r),
                        })
                    }
                    other => Err(anyhow!(
                        "unknown search mode `{other}` (use hybrid, bm25, semantic, symbol or keyword)"
                    )),
                }
            }
        }
    }
}
