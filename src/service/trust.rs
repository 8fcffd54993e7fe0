//! `repo-search trust [--revoke]`: the user trusts (or stops trusting) the
//! exact content of a project's own `.repo_search/config.toml`, so that its
//! settings that can send code or credentials off the machine apply
//! (`settings::needs_trust`). Recorded in `$REPO_SEARCH_HOME/trust.json`
//! (`crate::trust`) with the file's sha256: editing the file revokes it.
//!
//! Only the command line offers this. No MCP tool can trust a project: an
//! agent can be steered by the repository's content; `index_status` only
//! shows the state.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use crate::error::{ErrorCode, UserError};
use crate::settings::{find_root, inspect_config};
use crate::trust::TrustStore;

/// One key of the file that needs trust, with its value.
#[derive(Debug, Clone, Serialize)]
pub struct TrustedKey {
    pub key: &'static str,
    pub value: String,
}

/// What `trust` or `trust --revoke` did.
#[derive(Debug, Clone, Serialize)]
pub struct TrustAnswer {
    pub root: PathBuf,
    /// The project's config file (absent: nothing to trust).
    pub config: Option<PathBuf>,
    /// sha256 of the trusted content.
    pub sha256: Option<String>,
    /// Trusted now.
    pub trusted: bool,
    /// `--revoke` only: there was a trust to withdraw.
    pub revoked: bool,
    /// The keys the trust lets the file set, with their values.
    pub keys: Vec<TrustedKey>,
}

/// Trusts the current content of the config of the project at `root` (or
/// the one found from the working directory).
pub fn trust(root: Option<&Path>) -> Result<TrustAnswer> {
    let root = find_root(root)?;
    // Parsed first: a broken file is not worth trusting, and the keys shown
    // are those of exactly the bytes hashed.
    let Some(raw) = inspect_config(&root)? else {
        return Err(UserError::with_code(
            ErrorCode::NotFound,
            format!(
                "`{}` has no `.repo_search/config.toml` to trust",
                root.display()
            ),
        )
        .hint("nothing to do: settings of your own go in $REPO_SEARCH_HOME/config.toml or REPO_SEARCH_EMBED_* variables")
        .into());
    };
    TrustStore::from_env().trust(&root, &raw.sha256)?;
    Ok(TrustAnswer {
        root,
        config: Some(raw.path),
        sha256: Some(raw.sha256),
        trusted: true,
        revoked: false,
        keys: raw
            .needs_trust
            .into_iter()
            .map(|(key, value)| TrustedKey { key, value })
            .collect(),
    })
}

/// Withdraws the trust of the project at `root`.
pub fn revoke(root: Option<&Path>) -> Result<TrustAnswer> {
    let root = find_root(root)?;
    let revoked = TrustStore::from_env().revoke(&root)?;
    let config = crate::store::config_path(&root);
    Ok(TrustAnswer {
        config: config.is_file().then_some(config),
        root,
        sha256: None,
        trusted: false,
        revoked,
        keys: Vec::new(),
    })
}
