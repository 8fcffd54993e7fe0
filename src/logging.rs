//! Owns where diagnostics go: the `tracing` setup of every binary (stderr,
//! or the daemon's log file), filtered by `REPO_SEARCH_LOG`, and the
//! `error:` / `hint:` lines a command prints on stderr when it fails.
//! Stdout is never touched here: it is data only.

use std::fs::File;
use std::io::Write;

use tracing_subscriber::EnvFilter;

use crate::error::find_user_error;

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
        None => builder.with_writer(std::io::stderr).try_init(),
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

fn write_error(out: &mut dyn Write, err: &anyhow::Error) -> std::io::Result<()> {
    match find_user_error(err) {
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
    fn other_errors_print_their_cause_chain() {
        let err = anyhow::anyhow!("disk full").context("cannot write `a`");
        assert_eq!(
            written(&err),
            "error: cannot write `a`\n  caused by: disk full\n"
        );
    }
}
