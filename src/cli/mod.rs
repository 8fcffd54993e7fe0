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
    let cli = match Cli::try_parse_from(keyword_invert_flag(args.into_iter().collect())) {
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

/// `keyword` mirrors rg, where `-v` is the invert match: after `keyword`,
/// a `-v` (alone or in a cluster such as `-iv`) is read as
/// `--invert-match`, not as the global verbose flag, which stays
/// `--verbose` there (and `-v` before the subcommand or after any other).
/// Values of options (`-e -v` searches for `-v`) and everything after `--`
/// are left alone.
fn keyword_invert_flag(mut args: Vec<OsString>) -> Vec<OsString> {
    // Options before the subcommand that take a value.
    const GLOBAL_VALUED: [&str; 1] = ["--root"];
    // keyword's short options that take a value (the rest of a cluster, or
    // the next argument).
    const SHORT_VALUED: &[char] = &['e', 'g', 'A', 'B', 'C', 'm', 't', 'T'];
    const LONG_VALUED: [&str; 10] = [
        "--regexp",
        "--glob",
        "--after-context",
        "--before-context",
        "--context",
        "--max-count",
        "--max-results",
        "--type",
        "--type-not",
        "--root",
    ];
    let mut i = 1;
    // Find the subcommand.
    while let Some(a) = args.get(i).and_then(|a| a.to_str()) {
        if GLOBAL_VALUED.contains(&a) {
            i += 2;
        } else if a.starts_with('-') {
            i += 1;
        } else {
            break;
        }
    }
    if args.get(i).and_then(|a| a.to_str()) != Some("keyword") {
        return args;
    }
    i += 1;
    let after_keyword = i;
    let mut invert = false;
    while let Some(a) = args.get(i).and_then(|a| a.to_str()).map(str::to_string) {
        if a == "--" {
            break;
        }
        if LONG_VALUED.contains(&a.as_str()) {
            i += 2;
            continue;
        }
        if a.starts_with('-') && !a.starts_with("--") && a.len() > 1 {
            let mut kept = String::from("-");
            let mut value_next = false;
            for (n, c) in a.char_indices().skip(1) {
                if c == 'v' {
                    invert = true;
                    continue;
                }
                kept.push(c);
                if SHORT_VALUED.contains(&c) {
                    // The rest of the cluster is the value, or the next
                    // argument is.
                    kept.push_str(&a[n + c.len_utf8()..]);
                    value_next = n + c.len_utf8() == a.len();
                    break;
                }
            }
            if kept == "-" {
                args.remove(i);
                continue;
            }
            args[i] = OsString::from(kept);
            i += if value_next { 2 } else { 1 };
            continue;
        }
        i += 1;
    }
    if invert {
        args.insert(after_keyword, OsString::from("--invert-match"));
    }
    args
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(line: &str) -> Vec<String> {
        let args = std::iter::once("repo-search")
            .chain(line.split(' '))
            .map(OsString::from)
            .collect();
        keyword_invert_flag(args)
            .into_iter()
            .skip(1)
            .map(|a| a.to_string_lossy().into_owned())
            .collect()
    }

    #[test]
    fn after_keyword_dash_v_is_the_invert_match() {
        assert_eq!(
            rewrite("keyword -v TODO"),
            ["keyword", "--invert-match", "TODO"]
        );
        assert_eq!(
            rewrite("keyword -iv TODO"),
            ["keyword", "--invert-match", "-i", "TODO"]
        );
        assert_eq!(rewrite("-v keyword TODO"), ["-v", "keyword", "TODO"]);
        assert_eq!(
            rewrite("--root d keyword -vw x"),
            ["--root", "d", "keyword", "--invert-match", "-w", "x"]
        );
        // Values stay values: a pattern `-v`, a glob, a cluster's tail.
        assert_eq!(rewrite("keyword -e -v"), ["keyword", "-e", "-v"]);
        assert_eq!(rewrite("keyword -ge-v x"), ["keyword", "-ge-v", "x"]);
        assert_eq!(
            rewrite("keyword --glob -v x"),
            ["keyword", "--glob", "-v", "x"]
        );
        assert_eq!(rewrite("keyword x -- -v"), ["keyword", "x", "--", "-v"]);
        assert_eq!(
            rewrite("keyword -v x -- -v"),
            ["keyword", "--invert-match", "x", "--", "-v"]
        );
        // Other subcommands keep -v as verbose.
        assert_eq!(rewrite("mcp -v"), ["mcp", "-v"]);
        assert_eq!(rewrite("search -v x"), ["search", "-v", "x"]);
    }
}
