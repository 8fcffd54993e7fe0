//! Owns `repo-search mcp`: the stdio MCP server that coding agents (Claude
//! Code first) start from a project's `.mcp.json`. The only module that
//! knows MCP; it turns tool calls into library calls and library results
//! into tool results. Does not search or index itself (`search`, `index`).
//!
//! Protocol: built on `rmcp`, which answers both eras on the same stdio
//! stream: the `initialize` handshake (2025-11-25 and earlier) and the
//! stateless 2026-07-28 requests (`server/discover`, then requests carrying
//! protocol version, client info and capabilities in `_meta`).
//!
//! **Invariants**
//! - Stdout is the protocol: nothing else may write there (`print_stdout`
//!   is denied here; logs go to stderr through `tracing`).
//! - Nothing a client sends can take the server down: every call runs on the
//!   blocking pool inside `catch_unwind`; bad arguments and failures become
//!   tool results with `isError: true` and a hint; only an unknown tool or a
//!   malformed request is a JSON-RPC error.
//! - Every line with an id gets exactly one answer carrying that id (`null`
//!   when the line cannot be parsed): `frames` reads stdin itself, answers
//!   faulty lines (`-32700`, `-32600`, `-32602`; lines over 4 MiB, nesting
//!   over 64 levels, batches) and passes rmcp only what it can take.
//! - The server reads only inside the project root and writes only inside
//!   `.repo_search/` (through the indexer).

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod catalogue;
mod frames;
mod handlers;
mod out;
mod params;
mod render;

use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{MaybeSendFuture, RequestContext};
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};

pub use crate::service::{REFRESH_INTERVAL, REFRESH_WAIT};
pub use out::BUDGET_CHARS;

use crate::error::{INTERNAL, user_facing};
use crate::service::{OnBadConfig, Policy, Service};
use crate::settings::Overrides;
use catalogue::ToolName;

const INSTRUCTIONS: &str = "repo-search answers questions about this repository from a local index. \
Pick the tool by what you know: a name -> find_symbol (definitions) or find_references (uses); \
a concept in words -> search; exact text or a regex -> search_keyword (always current, no index needed); \
a file's structure -> list_defs_in_file; what a file imports or is imported by -> imports; the code itself -> read_file with a line range; \
what surrounds a path:line (enclosing definition, callers, callees) -> context. \
Paths are relative to the project root. Results are compact and bounded: `next_offset` (or `truncated` and a `hint`) says how to page or narrow; `detail: true` gives scores and whole snippets.";

/// Runs the server on stdin/stdout until the client closes stdin.
pub fn run(root: Option<&Path>) -> Result<()> {
    // A broken config file must not take the agent's tools away: the
    // service falls back to the defaults and `index_status` reports it.
    let svc = Service::open(
        root,
        &Overrides::default(),
        Policy::Background,
        OnBadConfig::UseDefaults,
    )?
    .recording(crate::stats::Surface::Mcp);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("repo-search-mcp")
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let result = runtime.block_on(serve(svc));
    // Do not wait for a tool call still running when the client left.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    result
}

async fn serve(svc: Service) -> Result<()> {
    tracing::info!(root = %svc.root().display(), "repo-search mcp starting");
    let state = Arc::new(svc);
    // Build a missing index, or catch up with edits made while no server ran.
    state.kick(std::time::Duration::ZERO);
    // Then know what changes from a watcher of our own: a call re-checks
    // the few files it heard of instead of walking the tree.
    state.watch_changes();
    let server = McpServer {
        state,
        tools: Arc::new(ToolName::ALL.iter().map(|t| t.tool()).collect()),
    };
    // Our own line framing in front of rmcp: every faulty line gets its
    // JSON-RPC error answer (`frames`).
    let (stdin, stdout) = rmcp::transport::stdio_pipes();
    let transport = frames::LineTransport::new(stdin, stdout);
    let running = match server.serve(transport).await {
        Ok(r) => r,
        Err(e) => {
            // A client that connects and leaves without a request is not an error.
            tracing::info!("client left before the first request: {e}");
            return Ok(());
        }
    };
    let reason = running.waiting().await;
    tracing::info!(?reason, "repo-search mcp stopped");
    Ok(())
}

#[derive(Clone)]
struct McpServer {
    state: Arc<Service>,
    tools: Arc<Vec<Tool>>,
}

fn text(s: impl Into<String>) -> ContentBlock {
    ContentBlock::text(s.into())
}

/// A tool-level error: `isError: true` and the text `error: ...` plus a
/// `hint: ...` line, which the model reads to fix its call.
///
/// Deliberately without `structuredContent`: it would not match the tool's
/// `outputSchema`, and some clients (the MCP Inspector) validate error
/// results against it too. Without structured content, Claude Code shows the
/// model the text.
fn error_result(code: &str, error: String, hint: Option<&str>) -> CallToolResult {
    let line = match hint {
        Some(h) => format!("error: {error}\ncode: {code}\nhint: {h}"),
        None => format!("error: {error}\ncode: {code}"),
    };
    CallToolResult::error(vec![text(line)])
}

/// The operation `stats` counts a tool's calls under (what the service
/// logs when the call reaches it); `None` for tools that are not logged.
fn stats_op(tool: ToolName, args: Option<&rmcp::model::JsonObject>) -> Option<&'static str> {
    use crate::service::Mode;
    Some(match tool {
        ToolName::Search => args
            .and_then(|a| a.get("mode"))
            .and_then(|m| m.as_str())
            .map_or(Ok(Mode::Hybrid), Mode::parse)
            .map_or("search", Mode::op_name),
        ToolName::SearchSemantic => Mode::Semantic.op_name(),
        ToolName::FindSymbol => "symbol",
        ToolName::FindReferences => "refs",
        ToolName::ListDefsInFile => "outline",
        ToolName::Imports => "imports",
        ToolName::SimilarCode => "similar",
        ToolName::SearchKeyword => "keyword",
        ToolName::ReadFile => "read",
        ToolName::Callers => crate::search::graph::Direction::Callers.op_name(),
        ToolName::Callees => crate::search::graph::Direction::Callees.op_name(),
        ToolName::Context => "context",
        ToolName::FileHistory => "history",
        ToolName::Blame => "blame",
        ToolName::IndexStatus | ToolName::Stats | ToolName::Config | ToolName::Index => {
            return None;
        }
    })
}

fn run_tool(
    state: &Service,
    tool: ToolName,
    args: Option<&rmcp::model::JsonObject>,
) -> CallToolResult {
    let started = std::time::Instant::now();
    Service::call_started();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        handlers::call(state, tool, args)
    }));
    if !matches!(outcome, Ok(Ok(_)))
        && let Some(op) = stats_op(tool, args)
    {
        state.record_refused(op, started);
    }
    let result = match outcome {
        Ok(Ok(answer)) => {
            let mut r = CallToolResult::success(vec![text(answer.text)]);
            r.structured_content = Some(answer.structured);
            r
        }
        Ok(Err(e)) => match user_facing(&e) {
            Some(u) => error_result(u.code.as_str(), u.message.clone(), u.hint_for_agent()),
            None => {
                tracing::warn!(tool = tool.name(), "tool failed: {e:#}");
                error_result(
                    INTERNAL,
                    format!("{e:#}"),
                    Some(
                        "this is a failure of the server, not of the call; index_status may say more",
                    ),
                )
            }
        },
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            tracing::error!(tool = tool.name(), "tool panicked: {what}");
            error_result(
                INTERNAL,
                format!("internal error in `{}`: {what}", tool.name()),
                Some("the server is still running; try different arguments or another tool"),
            )
        }
    };
    tracing::debug!(
        tool = tool.name(),
        ms = started.elapsed().as_millis() as u64,
        "tool call"
    );
    result
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new(
                "repo-search",
                env!("CARGO_PKG_VERSION"),
            ))
            .with_instructions(INSTRUCTIONS)
    }

    fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, McpError>> + MaybeSendFuture + '_ {
        std::future::ready(Ok(ListToolsResult::with_all_items(
            self.tools.as_ref().clone(),
        )))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(tool) = ToolName::from_name(&request.name) else {
            let names: Vec<&str> = ToolName::ALL.iter().map(|t| t.name()).collect();
            return Err(McpError::invalid_params(
                format!(
                    "unknown tool `{}`; the tools are: {}",
                    request.name,
                    names.join(", ")
                ),
                None,
            ));
        };
        let state = Arc::clone(&self.state);
        let args = request.arguments;
        let joined =
            tokio::task::spawn_blocking(move || run_tool(&state, tool, args.as_ref())).await;
        let result = joined.unwrap_or_else(|e| {
            tracing::error!(tool = tool.name(), "tool task failed: {e}");
            error_result(
                INTERNAL,
                format!("internal error in `{}`", tool.name()),
                Some("try again"),
            )
        });
        Ok(CallToolResponse::Complete(result))
    }
}
