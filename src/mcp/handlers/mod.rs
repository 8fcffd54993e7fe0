//! The tools' handlers, by family: each turns validated arguments into
//! library calls and the library's plain results into the output shapes of
//! [`out`](super::out). Does not search (that is `search::*`) or speak the
//! protocol (that is `mod.rs`).

mod files;
mod search;
mod semantic;
mod status;
mod symbols;

use anyhow::Result;
use rmcp::model::JsonObject;

use super::catalogue::ToolName;
use super::out::{Answer, IndexInfo, index_info};
use super::params::Args;
use super::state::{Freshness, ServerState};
use crate::store::Store;

/// Runs a tool: validates the arguments against its declared params and
/// hands them to its handler as its typed argument struct. Bad arguments are
/// a [`UserError`](crate::error::UserError) in the error chain.
pub fn call(state: &ServerState, tool: ToolName, raw: Option<&JsonObject>) -> Result<Answer> {
    let args = Args::parse(tool.params(), raw)?;
    match tool {
        ToolName::FindSymbol => symbols::find_symbol(state, args.into_typed()?),
        ToolName::FindReferences => symbols::find_references(state, args.into_typed()?),
        ToolName::ListDefsInFile => symbols::list_defs(state, args.into_typed()?),
        ToolName::Search => search::search(state, args.into_typed()?),
        ToolName::SearchSemantic => semantic::search_semantic(state, args.into_typed()?),
        ToolName::SimilarCode => semantic::similar_code(state, args.into_typed()?),
        ToolName::SearchKeyword => files::search_keyword(state, args.into_typed()?),
        ToolName::ReadFile => files::read_file(state, args.into_typed()?),
        ToolName::IndexStatus => status::index_status(state, args.into_typed()?),
    }
}

/// An index-backed lookup: how fresh the index is, and what `f` found in it
/// with the generation it saw; `found` is `None` while there is no index.
/// Every index-backed tool starts with one (refresh, store, generation).
pub struct Lookup<R> {
    pub fresh: Freshness,
    pub found: Option<R>,
    pub generation: Option<u64>,
}

impl<R> Lookup<R> {
    pub fn run(state: &ServerState, f: impl FnOnce(&Store) -> Result<R>) -> Result<Lookup<R>> {
        let fresh = state.refresh_for_query();
        let found = state.with_store(|store| Ok((f(store)?, generation_of(store))))?;
        let (found, generation) = match found {
            Some((r, g)) => (Some(r), Some(g)),
            None => (None, None),
        };
        Ok(Lookup {
            fresh,
            found,
            generation,
        })
    }

    /// The answer's `index` block.
    pub fn index(&self) -> IndexInfo {
        index_info(&self.fresh, self.generation)
    }
}

fn generation_of(store: &Store) -> u64 {
    store
        .get_meta(crate::store::meta::GENERATION)
        .ok()
        .flatten()
        .and_then(|g| g.parse().ok())
        .unwrap_or(0)
}
