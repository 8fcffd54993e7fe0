//! repo-search: local code search for one repository.
//!
//! Keyword search (ripgrep's libraries), symbol search (tree-sitter tags in a
//! project-local SQLite index), BM25 over symbol-aligned chunks, an MCP server
//! and a watching daemon. The binaries in `bin/` are thin wrappers over
//! [`cli`]; see ARCHITECTURE.md for the code map.

pub mod cli;
pub mod config_edit;
pub mod daemon;
pub mod daemon_client;
pub mod embed;
pub mod error;
pub mod eval;
pub mod extract;
pub mod fs_safe;
pub mod history;
pub mod home_file;
pub mod imports;
pub mod index;
pub mod init;
pub mod lang;
pub mod lock;
pub mod logging;
pub mod mcp;
pub mod model;
pub mod paths;
pub mod redact;
pub mod registry;
pub mod search;
pub mod service;
pub mod settings;
pub mod source;
pub mod stats;
pub mod status;
pub mod store;
pub mod text;
pub mod trust;
pub mod walk;

/// `#[serde(skip_serializing_if = "crate::is_zero")]` for a count that
/// answers leave out when nothing was counted.
pub(crate) fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
}
