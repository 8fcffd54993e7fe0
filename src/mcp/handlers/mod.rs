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
use super::out::Answer;
use super::params::Args;
use super::state::ServerState;

/// Runs a tool. Bad arguments are a [`UserError`](crate::error::UserError)
/// in the error chain.
pub fn call(state: &ServerState, tool: ToolName, raw: Option<&JsonObject>) -> Result<Answer> {
    let args = Args::parse(tool.params(), raw)?;
    match tool {
        ToolName::FindSymbol => symbols::find_symbol(state, &args),
        ToolName::FindReferences => symbols::find_references(state, &args),
        ToolName::ListDefsInFile => symbols::list_defs(state, &args),
        ToolName::Search => search::search(state, &args),
        ToolName::SearchSemantic => semantic::search_semantic(state, &args),
        ToolName::SimilarCode => semantic::similar_code(state, &args),
        ToolName::SearchKeyword => files::search_keyword(state, &args),
        ToolName::ReadFile => files::read_file(state, &args),
        ToolName::IndexStatus => status::index_status(state),
    }
}
