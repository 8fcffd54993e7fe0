//! The `repo-search` command: a thin wrapper over the library's CLI.

use std::process::ExitCode;

/// mimalloc for Rust and, through its `override` feature, for the C parts
/// (tree-sitter, SQLite): indexing allocates a lot of small nodes.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc v3's `mi_option_e` (`mimalloc.h`).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

#[allow(unsafe_code)] // reviewed: one `mi_option_set` before threads, see SAFETY below
fn main() -> ExitCode {
    // Short-lived runs keep freed pages for reuse instead of returning them
    // to the OS and faulting them in again: a full index of Django took ~9k
    // page faults and 0.3 s more system time that way. The long-lived MCP
    // server keeps mimalloc's default, so its memory shrinks after a build.
    if std::env::args_os().nth(1).is_none_or(|a| a != "mcp") {
        // SAFETY: sets a plain integer option before any other thread runs.
        unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, -1) };
    }
    repo_search::cli::main(std::env::args_os())
}
