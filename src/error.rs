//! Owns the user-facing error type: a stable machine-readable [`ErrorCode`],
//! a one-line message, and what to do about it. Library code returns
//! `anyhow::Error`; where the cause is the user's input (or a fixable state),
//! the error is a [`UserError`] so every edge can show it in its own terms:
//! the CLI prints `error:`/`hint:` lines naming CLI commands, the MCP server
//! returns `isError` with the code and a hint naming tools and arguments.
//!
//! Edges branch on [`UserError::code`], never on a message's text, and pick
//! the hint for their audience ([`UserError::hint`] for a person at a shell,
//! [`UserError::agent_hint`] for a model calling tools); neither hint is ever
//! rewritten from the other.

use std::fmt;

/// What kind of failure a [`UserError`] is: the part callers branch on.
/// The string forms ([`ErrorCode::as_str`]) are stable: MCP clients and
/// scripts reading `--json` errors may match them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// An argument or flag is malformed or out of range.
    InvalidArgument,
    /// A query that cannot be searched (empty, no searchable words, bad regex).
    InvalidQuery,
    /// A path outside the project root (or through a symlink leading out).
    PathOutsideRoot,
    /// A file, project, suite or index entry that does not exist.
    NotFound,
    /// There is no index yet, and none could be built.
    NoIndex,
    /// Another process is writing the index and the caller asked not to wait.
    IndexBusy,
    /// The index file is corrupt or of an unknown (newer) format.
    IndexCorrupt,
    /// A configuration file or setting is invalid.
    InvalidConfig,
    /// An embedding model is not downloaded (or cannot be loaded).
    ModelMissing,
    /// A remote service (embedding endpoint, model hub) failed.
    Remote,
    /// `repo-search-daemon` is not running, or did not answer as expected.
    Daemon,
    /// A path repo-search refuses to use for safety: its state directory (or
    /// a file in it) is a symlink or a special file, or a per-user
    /// directory belongs to another user or is writable by others, or the
    /// daemon's socket is another user's.
    UnsafePath,
    /// A FIFO, socket or device where a file to read was expected.
    NotRegularFile,
    /// History or blame asked of a project that is not in a git repository.
    NoGit,
    /// Anything else the user can fix (permissions, a full disk, ...).
    Failed,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 15] = [
        ErrorCode::InvalidArgument,
        ErrorCode::InvalidQuery,
        ErrorCode::PathOutsideRoot,
        ErrorCode::NotFound,
        ErrorCode::NoIndex,
        ErrorCode::IndexBusy,
        ErrorCode::IndexCorrupt,
        ErrorCode::InvalidConfig,
        ErrorCode::ModelMissing,
        ErrorCode::Remote,
        ErrorCode::Daemon,
        ErrorCode::UnsafePath,
        ErrorCode::NotRegularFile,
        ErrorCode::NoGit,
        ErrorCode::Failed,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::InvalidQuery => "INVALID_QUERY",
            ErrorCode::PathOutsideRoot => "PATH_OUTSIDE_ROOT",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::NoIndex => "NO_INDEX",
            ErrorCode::IndexBusy => "INDEX_BUSY",
            ErrorCode::IndexCorrupt => "INDEX_CORRUPT",
            ErrorCode::InvalidConfig => "INVALID_CONFIG",
            ErrorCode::ModelMissing => "MODEL_MISSING",
            ErrorCode::Remote => "REMOTE_FAILED",
            ErrorCode::Daemon => "DAEMON",
            ErrorCode::UnsafePath => "UNSAFE_PATH",
            ErrorCode::NotRegularFile => "NOT_REGULAR_FILE",
            ErrorCode::NoGit => "NO_GIT",
            ErrorCode::Failed => "FAILED",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The code of an error that is not a [`UserError`]: a fault of the tool.
pub const INTERNAL: &str = "INTERNAL";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserError {
    pub code: ErrorCode,
    pub message: String,
    /// What to do, for a person at a shell (may name CLI commands and flags).
    pub hint: Option<String>,
    /// What to do, for an agent calling tools (names tools and arguments).
    /// When absent, agents read `hint`, which must then name no command.
    pub agent_hint: Option<String>,
}

impl UserError {
    /// An error about the caller's input: [`ErrorCode::InvalidArgument`]
    /// unless [`Self::code`] says otherwise.
    pub fn new(message: impl Into<String>) -> UserError {
        UserError::with_code(ErrorCode::InvalidArgument, message)
    }

    pub fn with_code(code: ErrorCode, message: impl Into<String>) -> UserError {
        UserError {
            code,
            message: message.into(),
            hint: None,
            agent_hint: None,
        }
    }

    pub fn code(mut self, code: ErrorCode) -> UserError {
        self.code = code;
        self
    }

    /// The hint for a person at a shell. Unless [`Self::agent`] sets one,
    /// agents get it too, so it must then name no CLI command or flag.
    pub fn hint(mut self, hint: impl Into<String>) -> UserError {
        self.hint = Some(hint.into());
        self
    }

    /// The hint for an agent: tool names and arguments, not commands.
    pub fn agent(mut self, hint: impl Into<String>) -> UserError {
        self.agent_hint = Some(hint.into());
        self
    }

    /// The hint an agent should read: its own when set, else the shared one.
    pub fn hint_for_agent(&self) -> Option<&str> {
        self.agent_hint.as_deref().or(self.hint.as_deref())
    }
}

impl fmt::Display for UserError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for UserError {}

/// Shorthand for `Err(UserError::new(msg).hint(hint).into())`.
pub fn user_err<T>(message: impl Into<String>, hint: impl Into<String>) -> anyhow::Result<T> {
    Err(UserError::new(message).hint(hint).into())
}

/// Finds the [`UserError`] in an error chain, if any.
pub fn find_user_error(err: &anyhow::Error) -> Option<&UserError> {
    // A `UserError` given as context over its cause (a damaged index over
    // the SQLite error) is found by anyhow's downcast, not in the chain.
    err.downcast_ref::<UserError>()
        .or_else(|| err.chain().find_map(|e| e.downcast_ref::<UserError>()))
}

/// What an edge shows of an error: its [`UserError`], else one made from
/// an I/O failure in its chain that the user can fix (permissions, a
/// read-only file system, a full disk) with the whole chain as the
/// message; `None` for a fault of the tool.
pub fn user_facing(err: &anyhow::Error) -> Option<std::borrow::Cow<'_, UserError>> {
    use std::io::ErrorKind;
    if let Some(u) = find_user_error(err) {
        return Some(std::borrow::Cow::Borrowed(u));
    }
    let kind = err
        .chain()
        .find_map(|e| e.downcast_ref::<std::io::Error>())
        .map(std::io::Error::kind)?;
    let hint = match kind {
        ErrorKind::PermissionDenied => {
            "a file or directory it needs is not readable or writable by this user: check its permissions (and those of `.repo_search/`)"
        }
        ErrorKind::ReadOnlyFilesystem => {
            "the file system is mounted read-only: searches read the index as it is; make it writable to update it"
        }
        ErrorKind::StorageFull => "the disk is full: free some space and try again",
        _ => return None,
    };
    Some(std::borrow::Cow::Owned(
        UserError::with_code(ErrorCode::Failed, format!("{err:#}")).hint(hint),
    ))
}

/// The stable code of any error: the [`UserError`]'s (see
/// [`user_facing`]), else [`INTERNAL`].
pub fn code_of(err: &anyhow::Error) -> &'static str {
    user_facing(err).map_or(INTERNAL, |u| u.code.as_str())
}

/// Whether `err` carries a [`UserError`] with this code.
pub fn has_code(err: &anyhow::Error, code: ErrorCode) -> bool {
    find_user_error(err).is_some_and(|u| u.code == code)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io_failure_the_user_can_fix_has_a_code_and_a_hint() {
        let denied = std::io::Error::from(std::io::ErrorKind::PermissionDenied);
        let err = anyhow::Error::from(denied).context("reading `src/secret.rs`");
        let u = user_facing(&err).expect("a user-facing error");
        assert_eq!(u.code, ErrorCode::Failed);
        assert!(
            u.message.starts_with("reading `src/secret.rs`: "),
            "{}",
            u.message
        );
        assert!(u.hint.as_deref().is_some_and(|h| h.contains("permissions")));
        let other = anyhow::Error::from(std::io::Error::other("boom"));
        assert!(user_facing(&other).is_none());
        assert_eq!(code_of(&other), INTERNAL);
    }

    #[test]
    fn codes_are_distinct_and_screaming_snake() {
        let mut seen = std::collections::HashSet::new();
        for c in ErrorCode::ALL {
            let s = c.as_str();
            assert!(seen.insert(s), "{s} twice");
            assert!(s.chars().all(|ch| ch.is_ascii_uppercase() || ch == '_'));
        }
        assert!(!seen.contains(INTERNAL));
    }

    #[test]
    fn agents_get_their_own_hint() {
        let e = UserError::new("x")
            .hint("run `repo-search index --full`")
            .agent("call index_status");
        assert_eq!(e.hint_for_agent(), Some("call index_status"));
        let e = UserError::new("x").hint("use A:B (e.g. 10:40)");
        assert_eq!(e.hint_for_agent(), Some("use A:B (e.g. 10:40)"));
    }

    #[test]
    fn code_of_finds_the_user_error_in_a_chain() {
        let e: anyhow::Error = UserError::with_code(ErrorCode::IndexBusy, "busy").into();
        let e = e.context("while indexing");
        assert_eq!(code_of(&e), "INDEX_BUSY");
        assert!(has_code(&e, ErrorCode::IndexBusy));
        assert_eq!(code_of(&anyhow::anyhow!("boom")), INTERNAL);
    }
}
