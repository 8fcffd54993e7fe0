//! The `repo-search-eval` command: a thin wrapper over the library's eval runner.

use std::process::ExitCode;

fn main() -> ExitCode {
    repo_search::eval::main(std::env::args_os())
}
