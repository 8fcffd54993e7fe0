//! Owns moving protocol messages over the local socket (`interprocess`, a
//! Unix domain socket at `REPO_SEARCH_HOME/daemon.sock`, mode 0600): one
//! JSON line per request, one per response. Does not decide what a request
//! means (that is `server`) or what the lines contain (that is `protocol`).

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use interprocess::local_socket::prelude::*;
use interprocess::local_socket::{GenericFilePath, ListenerOptions, Stream};

use super::protocol::{Envelope, Response};
use crate::error::{ErrorCode, UserError};

/// Longest request or response line accepted: a status of thousands of
/// projects fits; a runaway peer does not exhaust memory.
const MAX_LINE: u64 = 16 * 1024 * 1024;

/// `sun_path` holds 108 bytes on Linux (104 on macOS), NUL included.
const MAX_SOCKET_PATH: usize = 100;

fn check_path_len(path: &Path) -> Result<()> {
    if path.as_os_str().len() > MAX_SOCKET_PATH {
        return Err(UserError::with_code(ErrorCode::Daemon, format!(
            "the daemon socket path `{}` is too long for a Unix socket ({} bytes, at most {MAX_SOCKET_PATH})",
            path.display(),
            path.as_os_str().len()
        ))
        .hint("set REPO_SEARCH_HOME to a shorter directory")
        .into());
    }
    Ok(())
}

/// Listens on `path`, which must not exist (the caller removes a stale
/// socket while holding the daemon lock). The socket is user-only.
pub fn listen(path: &Path) -> Result<LocalSocketListener> {
    check_path_len(path)?;
    let name = path
        .to_fs_name::<GenericFilePath>()
        .with_context(|| format!("invalid socket path `{}`", path.display()))?;
    let opts = ListenerOptions::new().name(name).reclaim_name(true);
    #[cfg(unix)]
    let opts = {
        use interprocess::os::unix::local_socket::ListenerOptionsExt;
        // fchmod before bind(): no window in which the socket is group- or
        // world-accessible.
        opts.mode(0o600)
    };
    let listener = opts
        .create_sync()
        .with_context(|| format!("cannot listen on `{}`", path.display()))?;
    Ok(listener)
}

/// Connects to the daemon's socket. `NotFound` and `ConnectionRefused` mean
/// no daemon listens.
pub fn connect(path: &Path) -> std::io::Result<Stream> {
    let name = path.to_fs_name::<GenericFilePath>()?;
    Stream::connect(name)
}

/// Refuses a socket file at `path` that is not a socket of this user's
/// (missing is fine: no daemon listens).
pub fn check_socket_owner(path: &Path) -> Result<()> {
    let md = match std::fs::symlink_metadata(path) {
        Ok(md) => md,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("cannot inspect `{}`", path.display())),
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let me = crate::fs_safe::euid();
        if !md.file_type().is_socket() || md.uid() != me {
            let what = if md.file_type().is_socket() {
                format!("belongs to another user (uid {}, you are {me})", md.uid())
            } else {
                "is not a socket".to_string()
            };
            return Err(UserError::with_code(
                ErrorCode::UnsafePath,
                format!("the daemon socket `{}` {what}; nothing was sent to it", path.display()),
            )
            .hint(format!(
                "remove `{}` and start your own daemon with `repo-search-daemon start`",
                path.display()
            ))
            .agent("the daemon socket is not the user's: ask the user to remove it and restart repo-search-daemon")
            .into());
        }
    }
    #[cfg(not(unix))]
    let _ = md;
    Ok(())
}

/// The effective uid of the process at the other end of `stream`.
pub fn peer_uid(stream: &Stream) -> std::io::Result<Option<u32>> {
    #[cfg(unix)]
    {
        Ok(stream.peer_creds()?.euid())
    }
    #[cfg(not(unix))]
    {
        let _ = stream;
        Ok(None)
    }
}

/// Refuses a daemon answering as another user: a process of another uid
/// must not receive this user's requests nor answer them.
pub fn check_peer(stream: &Stream, path: &Path) -> Result<()> {
    let me = crate::fs_safe::euid();
    match peer_uid(stream) {
        Ok(Some(uid)) if uid == me => Ok(()),
        #[cfg(not(unix))]
        Ok(None) => Ok(()),
        other => {
            let who = match other {
                Ok(Some(uid)) => format!("a process of another user (uid {uid}, you are {me})"),
                Ok(None) => "a process whose user is unknown".to_string(),
                Err(e) => format!("a process whose user cannot be checked ({e})"),
            };
            Err(UserError::with_code(
                ErrorCode::UnsafePath,
                format!("the daemon socket `{}` is served by {who}; nothing was sent to it", path.display()),
            )
            .hint(format!(
                "stop that process, remove `{}`, and start your own daemon with `repo-search-daemon start`",
                path.display()
            ))
            .agent("the daemon socket is served by another user: ask the user to check repo-search-daemon")
            .into())
        }
    }
}

/// Sends one request and reads its response. `timeout` bounds the wait for
/// the response (`None`: wait as long as it takes, e.g. a full reindex).
pub fn call(stream: Stream, request: &Envelope, timeout: Option<Duration>) -> Result<Response> {
    stream
        .set_recv_timeout(timeout)
        .context("cannot set a timeout on the daemon socket")?;
    stream
        .set_send_timeout(Some(Duration::from_secs(10)))
        .context("cannot set a timeout on the daemon socket")?;
    let mut reader = BufReader::new(stream);
    let mut line = serde_json::to_string(request)?;
    line.push('\n');
    reader
        .get_mut()
        .write_all(line.as_bytes())
        .context("cannot send the request to the daemon")?;
    let mut answer = String::new();
    let n = Read::take(&mut reader, MAX_LINE)
        .read_line(&mut answer)
        .context("no answer from the daemon (it may have stopped or be overloaded)")?;
    if n == 0 {
        anyhow::bail!("the daemon closed the connection without answering (it may have stopped)");
    }
    serde_json::from_str(answer.trim_end()).with_context(|| {
        format!(
            "the daemon sent an answer that is not valid JSON: `{}`",
            answer.trim_end().chars().take(200).collect::<String>()
        )
    })
}

/// Serves one connection: answers each request line with `answer` until the
/// peer closes it. Malformed lines get an error response, not a hang-up.
/// A peer of another user (whatever the socket's mode let through) is
/// hung up on without reading a byte.
pub fn serve_connection(
    stream: Stream,
    answer: impl Fn(Envelope) -> Response,
) -> std::io::Result<()> {
    let me = crate::fs_safe::euid();
    match peer_uid(&stream) {
        Ok(Some(uid)) if uid == me => {}
        #[cfg(not(unix))]
        Ok(None) => {}
        other => {
            tracing::warn!(
                "refused a connection from another user ({other:?}; the daemon runs as uid {me})"
            );
            return Ok(());
        }
    }
    let mut reader = BufReader::new(stream);
    loop {
        let mut line = String::new();
        let n = Read::take(&mut reader, MAX_LINE).read_line(&mut line)?;
        if n == 0 {
            return Ok(());
        }
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let response = match serde_json::from_str::<Envelope>(trimmed) {
            Ok(env) => answer(env),
            Err(e) => Response::error(
                format!("invalid request: {e}"),
                Some(
                    "send one JSON object per line, e.g. {\"version\":1,\"request\":\"ping\"}"
                        .into(),
                ),
            ),
        };
        let mut out = serde_json::to_string(&response).map_err(std::io::Error::other)?;
        out.push('\n');
        reader.get_mut().write_all(out.as_bytes())?;
        reader.get_mut().flush()?;
    }
}
