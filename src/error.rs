//! Owns the user-facing error type: a one-line message plus an optional
//! `hint:` line saying what to do. Library code returns `anyhow::Error`;
//! where the cause is the user's input (or a fixable state), the error is a
//! [`UserError`] so every edge (CLI, MCP, daemon) can show the hint.

use std::fmt;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UserError {
    pub message: String,
    pub hint: Option<String>,
}

impl UserError {
    pub fn new(message: impl Into<String>) -> UserError {
        UserError {
            message: message.into(),
            hint: None,
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> UserError {
        self.hint = Some(hint.into());
        self
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
    err.chain().find_map(|e| e.downcast_ref::<UserError>())
}
