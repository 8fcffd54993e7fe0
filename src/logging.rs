//! Owns where diagnostics go: the `tracing` setup of every binary (stderr,
//! or the daemon's log file), filtered by `REPO_SEARCH_LOG`, and the
//! `error:` / `hint:` lines a command prints on stderr when it fails.
//! Stdout is never touched here: it is data only.

use std::fs::File;
use std::io::{IsTerminal, Write};

use tracing_subscriber::EnvFilter;

use crate::error::user_facing;

/// Logs go to stderr, filtered by `REPO_SEARCH_LOG` (default `warn`, or
/// `info`/`debug` with `-v`/`-vv`).
pub fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(env_filter(default))
        .with_writer(std::io::stderr)
        .with_ansi(std::io::stderr().is_terminal())
        .with_target(false)
        .try_init();
}

/// Logs go to `log` (without colours), or to stderr when `None`, filtered
/// by `REPO_SEARCH_LOG` (default `default_filter`): the long-running daemon.
pub fn init_logging_to(log: Option<File>, default_filter: &str) {
    let builder = tracing_subscriber::fmt()
        .with_env_filter(env_filter(default_filter))
        .with_target(false);
    let _ = match log {
        None => builder
            .with_ansi(std::io::stderr().is_terminal())
            .with_writer(std::io::stderr)
            .try_init(),
        Some(file) => builder
            .with_ansi(false)
            .with_writer(std::sync::Mutex::new(file))
            .try_init(),
    };
}

fn env_filter(default: &str) -> EnvFilter {
    EnvFilter::try_from_env(crate::settings::env::LOG).unwrap_or_else(|_| EnvFilter::new(default))
}

/// Prints `error: …` (with the cause chain) and a `hint:` line if any.
pub fn report_error(err: &anyhow::Error) {
    let _ = write_error(&mut std::io::stderr().lock(), err);
}

/// A command line the argument parser refused: its message as `error:`,
/// `code: INVALID_ARGUMENT` like every refused input, and a `hint:` from
/// its tip or list of possible values, with the usage line. `--help`,
/// `--version` and the help shown for a missing command print as they
/// are. The process's exit status.
pub fn report_usage_error(e: &clap::Error) -> u8 {
    if !e.use_stderr() {
        let _ = e.print();
        return 0;
    }
    // No command at all: the help itself says what to run.
    if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let _ = e.print();
        return 2;
    }
    let _ = std::io::stderr()
        .lock()
        .write_all(usage_error_text(&e.render().to_string()).as_bytes());
    2
}

fn usage_error_text(rendered: &str) -> String {
    let mut lines = rendered.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or("error: invalid arguments");
    let mut message = first.strip_prefix("error: ").unwrap_or(first).to_string();
    let (mut tips, mut usage) = (Vec::new(), None);
    // "the following required arguments were not provided:" and the
    // arguments, one per line.
    let mut listing = message.ends_with(':');
    for l in lines {
        if listing && (l.starts_with('<') || l.starts_with('-')) {
            message.push(' ');
            message.push_str(l);
            continue;
        }
        listing = false;
        if let Some(u) = l.strip_prefix("Usage: ") {
            usage = Some(u);
        } else if let Some(t) = l.strip_prefix("tip: ") {
            tips.push(t.to_string());
        } else if l.starts_with('[') {
            tips.push(l.trim_matches(['[', ']']).to_string());
        } else if !l.starts_with("For more information") {
            tips.push(l.to_string());
        }
    }
    let mut hint = tips.join("; ");
    match usage {
        Some(u) if hint.is_empty() => hint = format!("usage: {u}"),
        Some(u) => hint = format!("{hint}; usage: {u}"),
        None if hint.is_empty() => {
            hint = "run the command with `--help` for its arguments".to_string()
        }
        None => {}
    }
    format!("error: {message}\ncode: INVALID_ARGUMENT\nhint: {hint}\n")
}

fn write_error(out: &mut dyn Write, err: &anyhow::Error) -> std::io::Result<()> {
    match user_facing(err) {
        Some(u) => {
            writeln!(out, "error: {}", u.message)?;
            writeln!(out, "code: {}", u.code.as_str())?;
            if let Some(h) = &u.hint {
                writeln!(out, "hint: {h}")?;
            }
        }
        None => {
            writeln!(out, "error: {err}")?;
            for cause in err.chain().skip(1) {
                writeln!(out, "  caused by: {cause}")?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::UserError;

    fn written(err: &anyhow::Error) -> String {
        let mut out = Vec::new();
        write_error(&mut out, err).expect("writing to a Vec");
        String::from_utf8(out).expect("UTF-8")
    }

    #[test]
    fn a_user_error_prints_its_message_and_hint() {
        let err = anyhow::Error::from(UserError::new("no index").hint("run `repo-search index`"))
            .context("while searching");
        assert_eq!(
            written(&err),
            "error: no index\ncode: INVALID_ARGUMENT\nhint: run `repo-search index`\n"
        );
    }

    #[test]
    fn a_refused_command_line_prints_a_code_and_a_hint() {
        assert_eq!(
            usage_error_text(
                "error: invalid value 'foo' for '--mode <MODE>'\n  [possible values: hybrid, bm25]\n\nFor more information, try '--help'.\n"
            ),
            "error: invalid value 'foo' for '--mode <MODE>'\ncode: INVALID_ARGUMENT\nhint: possible values: hybrid, bm25\n"
        );
        assert_eq!(
            usage_error_text(
                "error: unrecognized subcommand 'serch'\n\n  tip: a similar subcommand exists: 'search'\n\nUsage: repo-search [OPTIONS] <COMMAND>\n\nFor more information, try '--help'.\n"
            ),
            "error: unrecognized subcommand 'serch'\ncode: INVALID_ARGUMENT\nhint: a similar subcommand exists: 'search'; usage: repo-search [OPTIONS] <COMMAND>\n"
        );
        assert_eq!(
            usage_error_text(
                "error: invalid value '0' for '--limit <LIMIT>': 0 is not in 1..=1000\n\nFor more information, try '--help'.\n"
            ),
            "error: invalid value '0' for '--limit <LIMIT>': 0 is not in 1..=1000\ncode: INVALID_ARGUMENT\nhint: run the command with `--help` for its arguments\n"
        );
        assert_eq!(
            usage_error_text(
                "error: the following required arguments were not provided:\n  <QUERY>\n\nUsage: repo-search search <QUERY>\n\nFor more information, try '--help'.\n"
            ),
            "error: the following required arguments were not provided: <QUERY>\ncode: INVALID_ARGUMENT\nhint: usage: repo-search search <QUERY>\n"
        );
    }

    #[test]
    fn other_errors_print_their_cause_chain() {
        let err = anyhow::anyhow!("disk full").context("cannot write `a`");
        assert_eq!(
            written(&err),
            "error: cannot write `a`\n  caused by: disk full\n"
        );
    }
}
