//! The `repo-search-daemon` command: a thin wrapper over the library's daemon.

use std::process::ExitCode;

fn main() -> ExitCode {
    repo_search::daemon::main(std::env::args_os())
}
