//! Opens the project's [`Service`] for one command and shows its index
//! runs: the progress bar and notes every command shares (`index`, `init`,
//! searches that build a missing index).

use std::io::IsTerminal;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressState, ProgressStyle};

use super::args::Common;
use crate::index::{IndexOptions, IndexSummary, Phase};
use crate::service::{IndexEvent, IndexJob, IndexedBy, OnBadConfig, Policy, Service, Vectors};
use crate::settings::Overrides;

/// The project's service for one command: a foreground index run before
/// the first index-backed answer (building a missing index with a progress
/// bar), and an invalid config file is an error to fix.
pub(crate) fn service(common: &Common, over: &Overrides, quiet: bool) -> Result<Service> {
    let svc = Service::open(
        common.root.as_deref(),
        &overrides(common, over),
        Policy::Foreground,
        OnBadConfig::Fail,
    )?;
    Ok(svc
        .with_observer(observer(quiet || common.json))
        .recording(crate::stats::Surface::Cli))
}

/// `over` with the flags every command shares (`--no-redact`).
pub(crate) fn overrides(common: &Common, over: &Overrides) -> Overrides {
    Overrides {
        redact: common.no_redact.then_some(false).or(over.redact),
        ..over.clone()
    }
}

/// Shows a foreground index run: a progress bar on a terminal (drawn only
/// once a run reports progress), and notes.
pub(crate) fn observer(quiet: bool) -> crate::service::Observer {
    let cell: std::sync::OnceLock<ProgressBar> = std::sync::OnceLock::new();
    let pb = move || {
        cell.get_or_init(|| {
            bar(
                quiet,
                "{spinner} {msg:10} [{bar:30}] {pos}/{len} files ({rate}, eta {left})",
                Unit::Files,
            )
        })
        .clone()
    };
    Box::new(move |e: IndexEvent| match e {
        IndexEvent::Building => {
            if !quiet {
                pb().suspend(|| {
                    eprintln!(
                        "no index yet: building it now (`repo-search index` does this explicitly)"
                    )
                });
            }
        }
        IndexEvent::Rebuilding => {
            if !quiet {
                pb().suspend(|| {
                    eprintln!(
                        "the index was written by an older repo-search: updating it now (vectors are kept; `repo-search index` does this explicitly)"
                    )
                });
            }
        }
        IndexEvent::Updating(files) => {
            if !quiet {
                pb().suspend(|| {
                    if files == 0 {
                        eprintln!(
                            "ignore rules changed since the last index run: updating the index now"
                        );
                    } else {
                        eprintln!(
                            "{files} files changed since the last index run: updating the index now"
                        );
                    }
                })
            }
        }
        IndexEvent::Progress(p) => match p.phase {
            // No count yet: a spinner, not a full bar of `0/0 files`.
            Phase::Walking => {
                let pb = pb();
                pb.unset_length();
                pb.set_message("walking");
            }
            Phase::Indexing => {
                let pb = pb();
                pb.set_message("indexing");
                pb.set_length(p.total);
                pb.set_position(p.done);
            }
            Phase::Done => pb().finish_and_clear(),
        },
        IndexEvent::Waiting(pid) => pb().suspend(|| eprintln!("{}", waiting_note(pid))),
    })
}

/// Builds or updates the index through the service (handed to the daemon
/// when it watches the project), saying so when the daemon did it. Whether
/// the daemon did is `true` in the answer: its vectors are then the
/// daemon's to compute ([`embed_here`]).
pub(crate) fn run_index(
    svc: &Service,
    opts: &IndexOptions,
    quiet: bool,
) -> Result<(IndexSummary, bool)> {
    let job = IndexJob {
        opts: opts.clone(),
        register: true,
        vectors: Vectors::None,
    };
    let run = svc.index(&job, &observer(quiet))?;
    if run.by == IndexedBy::Daemon {
        if !quiet {
            eprintln!("indexed by repo-search-daemon, which watches this project");
        }
        if let Some(p) = svc
            .settings()
            .provenance
            .iter()
            .find(|p| p.source == "command line")
        {
            eprintln!(
                "warning: the daemon indexes with the project's configuration, so `{}` from the command line was not applied",
                p.key
            );
            eprintln!(
                "hint: set it in `.repo_search/config.toml`, or `repo-search projects unwatch .` to index by hand"
            );
        }
    }
    Ok((run.summary, run.by == IndexedBy::Daemon))
}

/// Whether `index`/`init` compute vectors themselves after an index run:
/// not when the daemon ran it. The daemon embeds what its run changed in
/// the background and holds the writer lock meanwhile, so embedding here
/// would only wait for it (minutes on a large project), saying nothing.
/// The note says so only when the run changed files: with none, there
/// were no new vectors to compute.
pub(crate) fn embed_here(by_daemon: bool, summary: &IndexSummary, quiet: bool) -> bool {
    if by_daemon && !quiet && summary.changed > 0 {
        eprintln!(
            "note: repo-search-daemon computes the vectors in the background; `repo-search status` shows how far it is"
        );
    }
    !by_daemon
}

/// What a bar counts, for the plain progress lines off a terminal.
#[derive(Clone, Copy)]
pub(crate) enum Unit {
    Files,
    Chunks,
    Bytes,
}

/// How often the plain progress lines come off a terminal, and when the
/// first one comes.
const PLAIN_EVERY: std::time::Duration = std::time::Duration::from_secs(10);
const PLAIN_FIRST: std::time::Duration = std::time::Duration::from_secs(3);

/// A progress bar on stderr drawn with `template` when stderr is a terminal
/// (and not hidden). Off a terminal (an agent's shell tool, a log) the bar
/// is not drawn, but a line of where it stands comes after 3 s, then every
/// 10 s while it moves ([`plain_lines`]): an 80 s `index` had printed
/// nothing until its summary, which a caller cannot tell from a hang.
pub(crate) fn bar(hidden: bool, template: &str, unit: Unit) -> ProgressBar {
    if hidden {
        return ProgressBar::hidden();
    }
    if !std::io::stderr().is_terminal() {
        let pb = ProgressBar::hidden();
        plain_lines(&pb, unit);
        return pb;
    }
    let pb = ProgressBar::new(0);
    pb.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .with_key("rate", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}/s", whole_rate(s.pos(), s.elapsed()));
            })
            .with_key("left", |s: &ProgressState, w: &mut dyn std::fmt::Write| {
                let _ = write!(w, "{}", time_left(s.pos(), s.len(), s.elapsed()));
            })
            .progress_chars("=> "),
    );
    pb.enable_steady_tick(std::time::Duration::from_millis(120));
    pb
}

/// Prints where a hidden bar stands after [`PLAIN_FIRST`], then every
/// [`PLAIN_EVERY`] while it moves
/// (`embedding (full): 640/1732 chunks (43/s, 26s left)`), from a thread
/// that ends with the bar.
fn plain_lines(pb: &ProgressBar, unit: Unit) {
    let weak = pb.downgrade();
    let spawned = std::thread::Builder::new()
        .name("progress".into())
        .spawn(move || {
            let mut last = std::time::Instant::now();
            let mut shown: Option<(String, u64)> = None;
            loop {
                std::thread::sleep(std::time::Duration::from_millis(250));
                let Some(pb) = weak.upgrade() else { return };
                if pb.is_finished() {
                    return;
                }
                let now = (pb.message(), pb.position());
                let wait = if shown.is_none() {
                    PLAIN_FIRST
                } else {
                    PLAIN_EVERY
                };
                if last.elapsed() < wait || shown.as_ref() == Some(&now) {
                    continue;
                }
                let Some(len) = pb.length().filter(|&l| l > 0) else {
                    continue;
                };
                last = std::time::Instant::now();
                eprintln!("{}", plain_line(&now.0, now.1, len, pb.elapsed(), unit));
                shown = Some(now);
            }
        });
    if let Err(e) = spawned {
        tracing::debug!("no progress lines: {e}");
    }
}

/// One plain progress line: `embedding (full): 640/1732 chunks (43/s, 26s
/// left)`.
fn plain_line(msg: &str, pos: u64, len: u64, elapsed: std::time::Duration, unit: Unit) -> String {
    let (done, total, what) = match unit {
        Unit::Files => (pos.to_string(), len.to_string(), " files"),
        Unit::Chunks => (pos.to_string(), len.to_string(), " chunks"),
        Unit::Bytes => (mebibytes(pos), mebibytes(len), ""),
    };
    let rate = match unit {
        Unit::Bytes => mebibytes(pos / elapsed.as_secs().max(1)),
        _ => whole_rate(pos, elapsed),
    };
    let name = if msg.is_empty() { "progress" } else { msg };
    format!(
        "{name}: {done}/{total}{what} ({rate}/s, {} left)",
        time_left(pos, Some(len), elapsed)
    )
}

/// Bytes as MiB with one decimal (`12.5 MiB`).
fn mebibytes(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

/// Items per second over the whole run so far, as a bar shows it: whole
/// numbers (indicatif's own `{per_sec}` printed `9,110.4722/s`), one
/// decimal under 10.
fn whole_rate(pos: u64, elapsed: std::time::Duration) -> String {
    let secs = elapsed.as_secs_f64();
    if secs <= 0.0 {
        return "-".into();
    }
    let rate = pos as f64 / secs;
    if rate < 10.0 {
        format!("{rate:.1}")
    } else {
        format!("{rate:.0}")
    }
}

/// The time the rest takes at the whole run's rate so far (`1m 05s`,
/// `40s`), `-` before there is one. indicatif's `{eta}` followed its
/// moving rate and stayed at 6-13 s through a 40 s embedding run.
fn time_left(pos: u64, len: Option<u64>, elapsed: std::time::Duration) -> String {
    let (Some(len), true) = (len, pos > 0) else {
        return "-".into();
    };
    let left = elapsed.as_secs_f64() * len.saturating_sub(pos) as f64 / pos as f64;
    let left = left.round() as u64;
    if left >= 60 {
        format!("{}m {:02}s", left / 60, left % 60)
    } else {
        format!("{left}s")
    }
}

/// The note shown while another process holds the index's writer lock.
pub(crate) fn waiting_note(pid: Option<u32>) -> String {
    let who = crate::lock::holder_label(pid);
    format!("waiting for another repo-search process{who} to finish writing the index...")
}

#[cfg(test)]
mod progress_tests {
    use super::{Unit, plain_line, time_left, whole_rate};
    use std::time::Duration;

    #[test]
    fn plain_lines_say_what_how_far_how_fast_and_how_long() {
        assert_eq!(
            plain_line(
                "embedding (full)",
                640,
                1732,
                Duration::from_secs(15),
                Unit::Chunks
            ),
            "embedding (full): 640/1732 chunks (43/s, 26s left)"
        );
        assert_eq!(
            plain_line("indexing", 50, 200, Duration::from_secs(10), Unit::Files),
            "indexing: 50/200 files (5.0/s, 30s left)"
        );
        assert_eq!(
            plain_line("", 10 << 20, 40 << 20, Duration::from_secs(10), Unit::Bytes),
            "progress: 10.0 MiB/40.0 MiB (1.0 MiB/s, 30s left)"
        );
    }

    #[test]
    fn rates_and_time_left_read_as_people_write_them() {
        assert_eq!(whole_rate(9110, Duration::from_secs(1)), "9110");
        assert_eq!(whole_rate(7, Duration::from_secs(2)), "3.5");
        assert_eq!(whole_rate(5, Duration::ZERO), "-");
        // 64 of 1,732 in 10 s: the rest at that rate.
        assert_eq!(time_left(64, Some(1732), Duration::from_secs(10)), "4m 21s");
        assert_eq!(time_left(50, Some(100), Duration::from_secs(20)), "20s");
        assert_eq!(time_left(0, Some(100), Duration::from_secs(20)), "-");
        assert_eq!(time_left(10, None, Duration::from_secs(1)), "-");
    }
}
