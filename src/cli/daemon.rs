//! Owns the `repo-search-daemon` command line: `start` (detaches by
//! re-executing itself as `run` under `setsid`, then waits for a `ping`),
//! `stop`, `status` (rendered as text or JSON on stdout) and `run` (the
//! daemon itself, [`crate::daemon::run`], in the foreground). It talks to a
//! running daemon only through [`crate::daemon_client`].
//!
//! Exit status: 0 success (and `status` when running), 2 error, 3 `status`
//! when no daemon runs.

use std::ffi::OsString;
use std::io::{self, Write};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

use crate::daemon_client::protocol::{self, DaemonStatus};
use crate::daemon_client::{self, DaemonHome};
use crate::error::UserError;
use crate::logging::{init_logging, report_error};

/// Exit status of `status` when no daemon runs (as in LSB init scripts).
const EXIT_NOT_RUNNING: u8 = 3;

#[derive(Debug, Parser)]
#[command(
    name = "repo-search-daemon",
    version,
    about = "Keeps the index of every registered project fresh by watching its files",
    after_help = "State lives in $REPO_SEARCH_HOME (default ~/.repo_search): registry.json, daemon.sock, daemon.pid, daemon.log.\n\
                  Exit status: 0 success, 2 error; `status` exits 3 when the daemon is not running."
)]
struct DaemonCli {
    #[command(subcommand)]
    command: DaemonCommand,
}

#[derive(Debug, Subcommand)]
enum DaemonCommand {
    /// Start the daemon in the background (does nothing if it runs).
    Start(WaitArgs),
    /// Ask the daemon to finish its current batch and exit; wait for it.
    Stop(WaitArgs),
    /// The daemon's pid, uptime and the state of every project.
    Status(StatusArgs),
    /// Run the daemon in the foreground (for service managers and debugging).
    Run(RunArgs),
}

#[derive(Debug, Args)]
struct WaitArgs {
    /// Give up after this many seconds.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    timeout: u64,
}

#[derive(Debug, Args)]
struct StatusArgs {
    /// Print the status as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Args)]
struct RunArgs {
    /// Log to stderr instead of `daemon.log`.
    #[arg(long)]
    log_stderr: bool,
}

/// Entry point of the `repo-search-daemon` binary.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match DaemonCli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => return ExitCode::from(crate::logging::report_usage_error(&e)),
    };
    let home = DaemonHome::from_env();
    let result = match cli.command {
        DaemonCommand::Start(a) => {
            init_logging(0);
            cmd_start(&home, Duration::from_secs(a.timeout))
        }
        DaemonCommand::Stop(a) => {
            init_logging(0);
            cmd_stop(&home, Duration::from_secs(a.timeout))
        }
        DaemonCommand::Status(a) => {
            init_logging(0);
            cmd_status(&home, a.json)
        }
        DaemonCommand::Run(a) => cmd_run(&home, a.log_stderr),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            report_error(&err);
            ExitCode::from(2)
        }
    }
}

fn cmd_run(home: &DaemonHome, log_stderr: bool) -> Result<ExitCode> {
    crate::daemon::run(home, log_stderr)?;
    Ok(ExitCode::SUCCESS)
}

/// Polls `f` every 20 ms until it returns `Some` or `timeout` passes.
fn wait_for<T>(timeout: Duration, mut f: impl FnMut() -> Option<T>) -> Option<T> {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = f() {
            return Some(v);
        }
        if Instant::now() >= deadline {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn cmd_start(home: &DaemonHome, timeout: Duration) -> Result<ExitCode> {
    home.ensure_dir()?;
    if let Some(pid) = daemon_client::ping(home) {
        eprintln!("repo-search-daemon is already running (pid {pid})");
        return Ok(ExitCode::SUCCESS);
    }
    if home.is_locked() {
        // Another daemon is starting up (give it time to answer), or one
        // killed a moment ago is still exiting (wait for the lock).
        let seen = wait_for(timeout, || match daemon_client::ping(home) {
            Some(pid) => Some(Some(pid)),
            None => (!home.is_locked()).then_some(None),
        });
        match seen {
            Some(Some(pid)) => {
                eprintln!("repo-search-daemon is already running (pid {pid})");
                return Ok(ExitCode::SUCCESS);
            }
            Some(None) => {}
            None => return Err(not_answering(home)),
        }
    }
    home.rotate_log();
    let log = home.open_log()?;
    let exe = std::env::current_exe().context("cannot find the repo-search-daemon executable")?;
    let mut cmd = Command::new(exe);
    cmd.arg("run")
        // The child must use this home even if it was found another way.
        .env(crate::settings::env::HOME, home.dir())
        .current_dir("/")
        .stdin(Stdio::null())
        .stdout(
            log.try_clone()
                .context("cannot duplicate the log file handle")?,
        )
        .stderr(log);
    detach(&mut cmd);
    let mut child = cmd.spawn().context("cannot start repo-search-daemon")?;
    let pid = child.id();
    let answered = wait_for(timeout, || {
        if let Some(p) = daemon_client::ping(home) {
            return Some(Ok(p));
        }
        match child.try_wait() {
            // Our child lost a race with another `start`: fine if that one answers.
            Ok(Some(status)) => Some(daemon_client::ping(home).ok_or(status)),
            _ => None,
        }
    });
    match answered {
        Some(Ok(p)) if p == pid => {
            eprintln!(
                "started repo-search-daemon (pid {pid}); log: `{}`",
                home.log_file().display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Some(Ok(p)) => {
            eprintln!("repo-search-daemon is already running (pid {p})");
            Ok(ExitCode::SUCCESS)
        }
        Some(Err(status)) => Err(UserError::new(format!(
            "repo-search-daemon exited during start ({status})"
        ))
        .hint(format!(
            "see the end of its log: `tail {}`",
            home.log_file().display()
        ))
        .into()),
        None => Err(UserError::new(format!(
            "repo-search-daemon (pid {pid}) did not answer within {}s",
            timeout.as_secs()
        ))
        .hint(format!("see its log: `tail {}`", home.log_file().display()))
        .into()),
    }
}

fn not_answering(home: &DaemonHome) -> anyhow::Error {
    let pid = home.recorded_pid();
    let who = pid.map(|p| format!(" (pid {p})")).unwrap_or_default();
    let kill = pid
        .map(|p| format!("`kill {p}`"))
        .unwrap_or_else(|| "kill it".into());
    UserError::new(format!(
        "a repo-search-daemon{who} holds `{}` but does not answer",
        home.lock_file().display()
    ))
    .hint(format!(
        "see `{}`; if it is stuck, {kill} and start again",
        home.log_file().display()
    ))
    .into()
}

/// Makes the child a session leader, so it has no controlling terminal:
/// closing the terminal or pressing Ctrl-C there does not reach it.
#[cfg(unix)]
#[allow(unsafe_code)] // reviewed: `setsid` in `pre_exec`, see SAFETY below
fn detach(cmd: &mut Command) {
    use std::os::unix::process::CommandExt;
    unsafe extern "C" {
        // POSIX `pid_t setsid(void)`; libc is linked anyway, the `libc`
        // crate is not a dependency for one call.
        safe fn setsid() -> i32;
    }
    // SAFETY: `setsid` is async-signal-safe, so calling it between fork and
    // exec is allowed; it touches no memory of ours. It cannot fail here:
    // a freshly forked child is never a process-group leader.
    unsafe {
        cmd.pre_exec(|| {
            if setsid() == -1 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

#[cfg(not(unix))]
fn detach(_cmd: &mut Command) {}

fn cmd_stop(home: &DaemonHome, timeout: Duration) -> Result<ExitCode> {
    // A daemon that runs holds the lock. One that exits on our request
    // before its answer reaches us (a busy machine) has stopped, not "was
    // not running", nor "is not answering" while it lets go of the lock.
    let was_running = home.is_locked();
    let went_away = || {
        was_running
            && wait_for(Duration::from_secs(2), || (!home.is_locked()).then_some(())).is_some()
    };
    let response =
        match daemon_client::call(home, protocol::Request::Stop, Some(Duration::from_secs(5))) {
            Ok(r) => r,
            Err(e) => {
                if went_away() {
                    home.remove_runtime_files();
                    eprintln!("stopped repo-search-daemon");
                    return Ok(ExitCode::SUCCESS);
                }
                if home.is_locked() {
                    return Err(not_answering(home));
                }
                return Err(e);
            }
        };
    let Some(response) = response else {
        if home.is_locked() && !went_away() {
            return Err(not_answering(home));
        }
        // Leftovers of a crashed daemon, if any.
        home.remove_runtime_files();
        if was_running {
            eprintln!("stopped repo-search-daemon");
        } else {
            eprintln!("repo-search-daemon is not running");
        }
        return Ok(ExitCode::SUCCESS);
    };
    let pid = response
        .pid
        .map(|p| format!(" (pid {p})"))
        .unwrap_or_default();
    // The lock is released when the process is gone.
    if wait_for(timeout, || (!home.is_locked()).then_some(())).is_none() {
        return Err(UserError::new(format!(
            "repo-search-daemon{pid} did not stop within {}s",
            timeout.as_secs()
        ))
        .hint(format!(
            "it may be finishing a long run; see `{}` or kill it",
            home.log_file().display()
        ))
        .into());
    }
    // The lock goes a moment before the process: wait for the process
    // too, so "stopped" means gone (on Linux, where `/proc` says so; an
    // exited process its parent has not reaped yet counts as gone).
    if let Some(p) = response.pid {
        let _ = wait_for(timeout, || (!process_alive(p)).then_some(()));
    }
    eprintln!("stopped repo-search-daemon{pid}");
    Ok(ExitCode::SUCCESS)
}

/// Whether process `pid` still runs (not a zombie). Without `/proc` it
/// cannot tell and says no.
fn process_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // `pid (comm) S ...`: the state follows the last `)`.
        Ok(stat) => stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
        Err(_) => false,
    }
}

#[allow(clippy::disallowed_methods)] // the status renderer: stdout is its output
fn cmd_status(home: &DaemonHome, json: bool) -> Result<ExitCode> {
    let status = daemon_client::status(home)?;
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let written = match &status {
        Some(st) if json => serde_json::to_writer(&mut out, st)
            .map_err(io::Error::other)
            .and_then(|()| writeln!(out)),
        Some(st) => render_status(&mut out, st),
        None if json => writeln!(
            out,
            "{}",
            serde_json::json!({"running": false, "home": home.dir()})
        ),
        None => writeln!(
            out,
            "repo-search-daemon is not running (start it with `repo-search-daemon start`)"
        ),
    };
    match written.and_then(|()| out.flush()) {
        Err(e) if e.kind() != io::ErrorKind::BrokenPipe => return Err(e.into()),
        _ => {}
    }
    Ok(if status.is_some() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_NOT_RUNNING)
    })
}

/// One line about a project's vectors: the running tier's progress, or
/// the coverage per tier (the "embeddings pending" of `status`).
fn embed_line(e: &protocol::WireEmbed) -> String {
    let coverage = e
        .tiers
        .iter()
        .map(|t| {
            let pending = t.total_chunks.saturating_sub(t.with_vectors);
            let tail = if pending > 0 {
                format!(" ({pending} pending)")
            } else {
                String::new()
            };
            format!(
                "{} {} {}/{}{tail}",
                t.tier, t.model, t.with_vectors, t.total_chunks
            )
        })
        .collect::<Vec<_>>()
        .join("; ");
    if e.state == "embedding" {
        let eta = e
            .eta_s
            .map(|s| format!(", eta {}", human_duration(s.ceil() as u64)))
            .unwrap_or_default();
        let now = format!(
            "embedding ({} {}) {}/{} chunks, {:.1}/s{eta}",
            e.tier.as_deref().unwrap_or("?"),
            e.model.as_deref().unwrap_or("?"),
            e.done,
            e.total,
            e.rate.unwrap_or(0.0)
        );
        if coverage.is_empty() {
            now
        } else {
            format!("{now}; last pass: {coverage}")
        }
    } else if coverage.is_empty() {
        e.state.clone()
    } else {
        format!("{}: {coverage}", e.state)
    }
}

fn human_duration(secs: u64) -> String {
    match secs {
        0..=59 => format!("{secs}s"),
        60..=3599 => format!("{}m {}s", secs / 60, secs % 60),
        3600..=86399 => format!("{}h {}m", secs / 3600, secs % 3600 / 60),
        _ => format!("{}d {}h", secs / 86400, secs % 86400 / 3600),
    }
}

fn render_status(out: &mut dyn Write, st: &DaemonStatus) -> io::Result<()> {
    writeln!(
        out,
        "repo-search-daemon {}: running, pid {}, up {}",
        st.version,
        st.pid,
        human_duration(st.uptime_s)
    )?;
    writeln!(out, "log:      {}", st.log.display())?;
    if st.projects.is_empty() {
        writeln!(
            out,
            "no projects registered (run `repo-search index` in a project)"
        )?;
    }
    let now = crate::registry::unix_now();
    for p in &st.projects {
        writeln!(out)?;
        writeln!(out, "{}", p.root.display())?;
        let state = match (&p.progress, p.state.as_str()) {
            (Some(pr), _) => {
                let eta = pr
                    .eta_s
                    .map(|e| format!(", eta {}", human_duration(e.ceil() as u64)))
                    .unwrap_or_default();
                if pr.total == 0 {
                    "indexing (looking for changes)".to_string()
                } else {
                    format!("indexing {}/{} files{eta}", pr.done, pr.total)
                }
            }
            (None, "idle") => "idle (watch off)".to_string(),
            (None, s) => s.to_string(),
        };
        writeln!(out, "  state:    {state}")?;
        if let Some(e) = &p.error {
            writeln!(out, "  error:    {e}")?;
        }
        let when = p
            .last_indexed
            .map(|t| format!("{} ago", human_duration((now - t).max(0) as u64)))
            .unwrap_or_else(|| "never".into());
        writeln!(
            out,
            "  index:    {} files, {} symbols, {} chunks; indexed {when}",
            p.files, p.symbols, p.chunks
        )?;
        if p.watch && p.state != "idle" {
            let stale = p
                .stale_files
                .map(|n| n.to_string())
                .unwrap_or_else(|| "?".into());
            writeln!(
                out,
                "  changes:  {stale} stale files, {} queued; {} in the last minute; {}",
                p.queue,
                crate::text::counted(p.events_last_minute, "event"),
                crate::text::counted(p.runs, "run")
            )?;
        }
        if let Some(e) = &p.embeddings {
            writeln!(out, "  vectors:  {}", embed_line(e))?;
            for t in e.tiers.iter().filter(|t| t.note.is_some()) {
                writeln!(
                    out,
                    "            {}: {}",
                    t.tier,
                    t.note.as_deref().unwrap_or_default()
                )?;
            }
        }
    }
    Ok(())
}
