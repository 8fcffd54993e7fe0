//! The `repo-search-daemon` command: a thin wrapper over the library's daemon command line.

use std::process::ExitCode;

/// mimalloc for Rust and, through its `override` feature, for the C parts
/// (tree-sitter, SQLite): indexing allocates a lot of small nodes.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    repo_search::cli::daemon::main(std::env::args_os())
}
