//! Opens the project's [`Service`] for one command and shows its index
//! runs: the progress bar and notes every command shares (`index`, `init`,
//! searches that build a missing index).

use std::io::IsTerminal;

use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};

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
        Policy::BuildIfMissing,
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
                "{spinner} {msg:10} [{bar:30}] {pos}/{len} files ({per_sec}, eta {eta})",
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
        IndexEvent::Progress(p) => match p.phase {
            Phase::Walking => pb().set_message("walking"),
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
pub(crate) fn embed_here(by_daemon: bool, quiet: bool) -> bool {
    if by_daemon && !quiet {
        eprintln!(
            "note: repo-search-daemon computes the vectors in the background; `repo-search status` shows how far it is"
        );
    }
    !by_daemon
}

/// A progress bar on stderr drawn with `template` when stderr is a terminal
/// (and not hidden).
pub(crate) fn bar(hidden: bool, template: &str) -> ProgressBar {
    if hidden || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = ProgressBar::new(0);
    pb.set_style(
        ProgressStyle::with_template(template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    pb.enable_steady_tick(std::time::Duration::from_millis(120));
    pb
}

/// The note shown while another process holds the index's writer lock.
pub(crate) fn waiting_note(pid: Option<u32>) -> String {
    let who = crate::lock::holder_label(pid);
    format!("waiting for another repo-search process{who} to finish writing the index...")
}
