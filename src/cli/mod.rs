//! Owns the `repo-search` command line: clap arguments, resolving them into
//! requests, exit codes (0 found, 1 nothing found, 2 error — like `rg`) and
//! rendering results as text or JSON on stdout. Errors and logs go to
//! stderr ([`crate::logging`]); a [`UserError`](crate::error::UserError)'s
//! hint is printed as a `hint:` line.

// The command lines talk to the user on stderr (progress, notes); stdout is
// written only by the renderers (clippy.toml's `std::io::stdout` rule).
mod args;
#[allow(clippy::print_stderr)]
mod commands;
#[allow(clippy::print_stderr)]
pub mod daemon;
#[allow(clippy::print_stderr)]
mod embed;
mod init;
#[allow(clippy::print_stderr)]
mod project;
#[allow(clippy::print_stderr)]
mod projects;
mod render;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Parser;

use crate::logging::{init_logging, report_error};

pub use args::Cli;

/// What a command found, for the exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Found {
    Yes,
    No,
}

/// Entry point of the `repo-search` binary.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => return ExitCode::from(crate::logging::report_usage_error(&e)),
    };
    init_logging(cli.verbose);
    match commands::run(cli) {
        Ok(Found::Yes) => ExitCode::SUCCESS,
        Ok(Found::No) => ExitCode::from(1),
        Err(err) => {
            report_error(&err);
            ExitCode::from(2)
        }
    }
}
