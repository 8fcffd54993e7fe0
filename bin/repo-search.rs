//! The `repo-search` command: a thin wrapper over the library's CLI.

use std::process::ExitCode;

fn main() -> ExitCode {
    repo_search::cli::main(std::env::args_os())
}
