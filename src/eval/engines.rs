//! Owns the engine that answers eval cases through the library's service,
//! the same operations the CLI commands and the MCP tools call (so
//! `--through cli` measures what a CLI user gets, without process start-up
//! noise).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow};

use crate::eval::cases::{Case, Tool};
use crate::eval::run::{Answer, Engine, Hit};
use crate::search::Scope;
use crate::search::keyword::{CaseMode, KeywordRequest};
use crate::search::symbol::{MatchMode, OutlineItem, SymbolQuery};
use crate::service::search::parse_scope;
use crate::service::{
    Mode, OnBadConfig, OutlineRequest, Policy, Recency, ReferencesRequest, SearchRequest, Service,
    SymbolsRequest,
};
use crate::settings::Overrides;
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

/// Answers cases through the library's service, one per corpus (kept warm:
/// read connections, vector matrix, query model), searching each corpus's
/// index as it is.
#[derive(Default)]
pub struct LibEngine {
    services: HashMap<PathBuf, Service>,
    /// RRF constant override (tuning runs).
    pub rrf_k: Option<f64>,
    /// Recency of `search` cases without their own `args.recency`.
    pub recency: Recency,
    /// Semantic ranking with the fast tier's vectors only (runs that score
    /// the fast tier; full-tier vectors of an earlier run stay unused).
    pub fast_vectors_only: bool,
}

impl LibEngine {
    fn service(&mut self, root: &Path) -> Result<&Service> {
        if !self.services.contains_key(root) {
            let mut svc = Service::open(
                Some(root),
                &Overrides::default(),
                Policy::AsIs,
                OnBadConfig::Fail,
            )?;
            if self.fast_vectors_only {
                svc = svc.fast_vectors_only();
            }
            if !svc.index_exists() {
                return Err(anyhow!("no index in `{}`", root.display()));
            }
            self.services.insert(root.to_path_buf(), svc);
        }
        self.services
            .get(root)
            .ok_or_else(|| anyhow!("service vanished"))
    }
}

fn flatten(items: &[OutlineItem], path: &str, out: &mut Vec<Hit>) {
    for i in items {
        out.push(Hit {
            path: path.to_string(),
            start_line: i.start_line,
            end_line: i.end_line,
            name: Some(i.name.clone()),
            also: Vec::new(),
        });
        flatten(&i.children, path, out);
    }
}

impl Engine for LibEngine {
    fn answer(&mut self, root: &Path, case: &Case, mode: &str, limit: usize) -> Result<Answer> {
        let rrf_k = self.rrf_k;
        let recency = self.recency;
        let svc = self.service(root)?;
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
                    walk: WalkOptions {
                        globs: arg_strings(case, "glob"),
                        ..WalkOptions::default()
                    },
                    ..KeywordRequest::default()
                };
                let r = svc.keyword(&req, &[])?;
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
                        also: Vec::new(),
                    })
                    .collect();
                Ok(Answer {
                    hits,
                    matches: Some(matches),
                    chars: chars(&r),
                    text_chars: None,
                })
            }
            Tool::FindSymbol => {
                let req = SymbolsRequest {
                    query: SymbolQuery {
                        name: case.query.clone(),
                        kinds: arg_strings(case, "kind"),
                        lang: arg_str(case, "language").map(String::from),
                        mode: arg_str(case, "match")
                            .and_then(MatchMode::parse)
                            .unwrap_or_default(),
                        limit,
                    },
                    offset: 0,
                };
                let r = svc.require(svc.symbols(&req)?)?;
                let hits = r
                    .hits
                    .iter()
                    .map(|h| Hit {
                        path: h.path.clone(),
                        start_line: h.start_line,
                        end_line: h.end_line,
                        name: Some(h.name.clone()),
                        also: Vec::new(),
                    })
                    .collect();
                Ok(Answer {
                    hits,
                    matches: None,
                    chars: chars(&r),
                    text_chars: None,
                })
            }
            Tool::FindReferences => {
                let req = ReferencesRequest {
                    want: Default::default(),
                    name: case.query.clone(),
                    limit,
                    offset: 0,
                };
                let r = svc.require(svc.references(&req)?)?;
                let hits = r
                    .hits
                    .iter()
                    .map(|h| Hit {
                        path: h.path.clone(),
                        start_line: h.line,
                        end_line: h.line,
                        name: None,
                        also: Vec::new(),
                    })
                    .collect();
                Ok(Answer {
                    hits,
                    matches: None,
                    chars: chars(&r),
                    text_chars: None,
                })
            }
            Tool::ListDefsInFile => {
                let req = OutlineRequest {
                    path: case.query.clone(),
                };
                let o = svc.require(svc.outline(&req)?)?;
                let mut hits = Vec::new();
                flatten(&o.items, &o.path, &mut hits);
                Ok(Answer {
                    hits,
                    matches: None,
                    chars: chars(&o.items),
                    text_chars: None,
                })
            }
            Tool::Search => {
                let mut req = SearchRequest::new(case.query.clone(), Mode::parse(mode)?);
                req.scope = match arg_str(case, "scope") {
                    Some(s) => parse_scope(s)?,
                    None => Scope::All,
                };
                req.globs = arg_strings(case, "glob");
                req.lang = arg_str(case, "lang").map(String::from);
                req.limit = limit;
                req.rrf_k = rrf_k;
                req.recency = match arg_str(case, "recency") {
                    Some(r) => Recency::parse(r)?,
                    None => recency,
                };
                let r = svc.search(&req)?;
                if let Some(sem) = r.semantic.as_ref().filter(|s| !s.available) {
                    return Err(anyhow!(
                        "semantic search unavailable: {}",
                        sem.reason.as_deref().unwrap_or_default()
                    ));
                }
                let hits = r
                    .hits
                    .iter()
                    .map(|h| Hit {
                        path: h.path.clone(),
                        start_line: h.start_line,
                        end_line: h.end_line,
                        name: h.symbol.clone(),
                        also: h
                            .also
                            .iter()
                            .map(|a| Hit {
                                path: h.path.clone(),
                                start_line: a.start_line,
                                end_line: a.end_line,
                                name: a.symbol.clone(),
                                also: Vec::new(),
                            })
                            .collect(),
                    })
                    .collect();
                Ok(Answer {
                    hits,
                    matches: None,
                    chars: chars(&r.hits),
                    text_chars: None,
                })
            }
        }
    }
}
