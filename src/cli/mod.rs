//! Owns the `repo-search` command line: clap arguments, resolving them into
//! requests, exit codes (0 found, 1 nothing found, 2 error — like `rg`) and
//! rendering results as text or JSON on stdout. Errors and logs go to
//! stderr; a [`UserError`]'s hint is printed as a `hint:` line.

mod args;
mod commands;
mod embed;
mod init;
mod project;
mod projects;
mod render;

use std::ffi::OsString;
use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use crate::error::find_user_error;

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
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
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

/// Prints `error: …` (with the cause chain) and a `hint:` line if any.
pub fn report_error(err: &anyhow::Error) {
    let mut stderr = std::io::stderr().lock();
    match find_user_error(err) {
        Some(u) => {
            let _ = writeln!(stderr, "error: {}", u.message);
            if let Some(h) = &u.hint {
                let _ = writeln!(stderr, "hint: {h}");
            }
        }
        None => {
            let _ = writeln!(stderr, "error: {err}");
            for cause in err.chain().skip(1) {
                let _ = writeln!(stderr, "  caused by: {cause}");
            }
        }
    }
}

/// Logs go to stderr, filtered by `REPO_SEARCH_LOG` (default `warn`, or
/// `info`/`debug` with `-v`/`-vv`).
pub fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env(crate::settings::env::LOG)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}
