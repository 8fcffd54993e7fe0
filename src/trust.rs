//! Owns `REPO_SEARCH_HOME/trust.json`: the projects whose own
//! `.repo_search/config.toml` the user trusted with `repo-search trust`, as
//! `direnv allow` does. An entry ties a canonical project root to the
//! sha256 of the config file's bytes at the moment it was trusted, so any
//! edit of the file revokes the trust. Only the CLI writes it: no MCP tool
//! can trust, since an agent can be steered by the repository's content.
//!
//! What trust unlocks is decided in `settings` (the keys that can send code
//! off the machine, name a credential or read files outside the project);
//! this module only records and answers "is this content trusted here".
//!
//! **Invariant**: written as every shared home document is
//! ([`crate::home_file`]: locked on `trust.lock`, atomic, 0600). A file
//! that does not parse trusts nothing; the next write sets it aside as
//! `trust.json.corrupt-<unix time>` with a warning.
//!
//! Format changelog (bump [`FORMAT_VERSION`] on every change):
//! - 1: `{version, projects: [{root, config_sha256, trusted_at}]}`.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::home_file::{Document, HomeFile, Parsed};
use crate::paths::unix_now;

pub const TRUST_FILE: &str = "trust.json";
const LOCK_FILE: &str = "trust.lock";
/// Version of the trust file format (see the changelog above).
pub const FORMAT_VERSION: u32 = 1;

/// One trusted project config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustEntry {
    /// Canonical absolute project root: the key.
    pub root: PathBuf,
    /// sha256 (hex) of `.repo_search/config.toml`'s bytes when trusted.
    pub config_sha256: String,
    /// Unix seconds.
    #[serde(default)]
    pub trusted_at: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct TrustData {
    version: u32,
    #[serde(default)]
    projects: Vec<TrustEntry>,
}

impl Default for TrustData {
    fn default() -> TrustData {
        TrustData {
            version: FORMAT_VERSION,
            projects: Vec::new(),
        }
    }
}

impl Document for TrustData {
    fn stamp(&mut self) {
        self.version = FORMAT_VERSION;
    }
}

/// What the store says about one project's config content.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Trusted, with exactly this content.
    Trusted,
    /// Trusted once, but the file changed since.
    Changed,
    /// Never trusted (or revoked).
    Unknown,
}

/// The sha256 of `bytes`, lowercase hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The trust store of one `REPO_SEARCH_HOME`.
#[derive(Debug, Clone)]
pub struct TrustStore {
    home: PathBuf,
}

impl TrustStore {
    /// The store under `$REPO_SEARCH_HOME` (default `~/.repo_search`).
    pub fn from_env() -> TrustStore {
        TrustStore::at(crate::paths::home_dir())
    }

    pub fn at(home: impl Into<PathBuf>) -> TrustStore {
        TrustStore { home: home.into() }
    }

    pub fn path(&self) -> PathBuf {
        self.file().path()
    }

    fn file(&self) -> HomeFile {
        HomeFile {
            home: self.home.clone(),
            file: TRUST_FILE,
            lock: LOCK_FILE,
            noun: "trust file",
            title: "the trust file",
            advice: "",
        }
    }

    /// Whether the config of `root` with content hash `sha256` is trusted.
    /// Unreadable or corrupt store: nothing is trusted.
    pub fn verdict(&self, root: &Path, sha256: &str) -> Verdict {
        let data = match self.file().read::<TrustData>() {
            Ok(Parsed::Ok(d)) => d,
            Ok(Parsed::Missing) => return Verdict::Unknown,
            Ok(Parsed::Corrupt(why)) => {
                tracing::warn!(
                    "the trust file `{}` is corrupt ({why}); no project config is trusted",
                    self.path().display()
                );
                return Verdict::Unknown;
            }
            Err(e) => {
                tracing::warn!("{e:#}; no project config is trusted");
                return Verdict::Unknown;
            }
        };
        match data.projects.iter().find(|p| p.root == root) {
            Some(e) if e.config_sha256 == sha256 => Verdict::Trusted,
            Some(_) => Verdict::Changed,
            None => Verdict::Unknown,
        }
    }

    /// Records that the config of `root` with content hash `sha256` is
    /// trusted (replacing an older entry for the root).
    pub fn trust(&self, root: &Path, sha256: &str) -> Result<()> {
        self.update(|d| {
            d.projects.retain(|p| p.root != root);
            d.projects.push(TrustEntry {
                root: root.to_path_buf(),
                config_sha256: sha256.to_string(),
                trusted_at: unix_now(),
            });
            d.projects.sort_by(|a, b| a.root.cmp(&b.root));
        })
    }

    /// Forgets the trust of `root`; false if it had none.
    pub fn revoke(&self, root: &Path) -> Result<bool> {
        self.update(|d| {
            let before = d.projects.len();
            d.projects.retain(|p| p.root != root);
            d.projects.len() != before
        })
    }

    fn update<R>(&self, f: impl FnOnce(&mut TrustData) -> R) -> Result<R> {
        self.file().update(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_is_tied_to_root_and_content() {
        let home = tempfile::tempdir().expect("tempdir");
        let store = TrustStore::at(home.path().join("state"));
        let (a, b) = (Path::new("/p/a"), Path::new("/p/b"));
        let h1 = sha256_hex(b"[embed]\nprovider = \"openai\"\n");
        let h2 = sha256_hex(b"[embed]\nprovider = \"ollama\"\n");
        assert_eq!(store.verdict(a, &h1), Verdict::Unknown);
        store.trust(a, &h1).expect("trust");
        assert_eq!(store.verdict(a, &h1), Verdict::Trusted);
        assert_eq!(store.verdict(a, &h2), Verdict::Changed);
        assert_eq!(store.verdict(b, &h1), Verdict::Unknown, "other root");
        assert!(store.revoke(a).expect("revoke"));
        assert!(!store.revoke(a).expect("revoke again"));
        assert_eq!(store.verdict(a, &h1), Verdict::Unknown);

        // A corrupt file trusts nothing and is set aside on the next write.
        std::fs::write(store.path(), "{not json").expect("write");
        assert_eq!(store.verdict(a, &h1), Verdict::Unknown);
        store.trust(a, &h1).expect("trust after corruption");
        assert_eq!(store.verdict(a, &h1), Verdict::Trusted);
        let aside = std::fs::read_dir(home.path().join("state"))
            .expect("list")
            .flatten()
            .any(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with("trust.json.corrupt-")
            });
        assert!(aside);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(store.path())
                .expect("meta")
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
