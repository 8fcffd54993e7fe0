//! The tools' handlers, by family: each turns validated arguments into a
//! request of the library's [`Service`] and its typed answer into the output
//! shapes of [`out`](super::out). Does not search or decide freshness (that
//! is the service) or speak the protocol (that is `mod.rs`).

mod calls;
mod context;
mod files;
mod history;
mod imports;
mod search;
mod semantic;
mod status;
mod symbols;

use anyhow::Result;
use rmcp::model::JsonObject;

use super::catalogue::ToolName;
use super::out::{Answer, IndexInfo, index_info};
use super::params::Args;
use crate::search::graph::Direction;
use crate::service::lookup::Indexed;
use crate::service::{Freshness, Service};

/// Runs a tool: validates the arguments against its declared params and
/// hands them to its handler as its typed argument struct. Bad arguments are
/// a [`UserError`](crate::error::UserError) in the error chain.
pub fn call(svc: &Service, tool: ToolName, raw: Option<&JsonObject>) -> Result<Answer> {
    let args = Args::parse(tool.params(), raw)?;
    match tool {
        ToolName::FindSymbol => symbols::find_symbol(svc, args.into_typed()?),
        ToolName::FindReferences => symbols::find_references(svc, args.into_typed()?),
        ToolName::ListDefsInFile => symbols::list_defs(svc, args.into_typed()?),
        ToolName::Imports => imports::imports(svc, args.into_typed()?),
        ToolName::Search => search::search(svc, args.into_typed()?),
        ToolName::SearchSemantic => semantic::search_semantic(svc, args.into_typed()?),
        ToolName::SimilarCode => semantic::similar_code(svc, args.into_typed()?),
        ToolName::SearchKeyword => files::search_keyword(svc, args.into_typed()?),
        ToolName::ReadFile => files::read_file(svc, args.into_typed()?),
        ToolName::Callers => calls::call_graph(svc, Direction::Callers, args.into_typed()?),
        ToolName::Callees => calls::call_graph(svc, Direction::Callees, args.into_typed()?),
        ToolName::Context => context::context(svc, args.into_typed()?),
        ToolName::FileHistory => history::file_history(svc, args.into_typed()?),
        ToolName::Blame => history::blame(svc, args.into_typed()?),
        ToolName::IndexStatus => status::index_status(svc, args.into_typed()?),
        ToolName::Stats => status::stats(svc, args.into_typed()?),
        ToolName::Config => status::config(svc, args.into_typed()?),
        ToolName::Index => status::index(svc, args.into_typed()?),
    }
}

/// An index-backed answer of the service, as the tools use it: how fresh
/// the index is, what was found (`None` while there is no index) and the
/// generation it was found in.
pub struct Lookup<R> {
    pub fresh: Freshness,
    pub found: Option<R>,
    pub generation: Option<u64>,
}

impl<R> From<Indexed<R>> for Lookup<R> {
    fn from(a: Indexed<R>) -> Lookup<R> {
        Lookup {
            fresh: a.freshness,
            found: a.value,
            generation: a.generation,
        }
    }
}

impl<R> Lookup<R> {
    /// The answer's `index` block.
    pub fn index(&self) -> IndexInfo {
        index_info(&self.fresh, self.generation)
    }
}
