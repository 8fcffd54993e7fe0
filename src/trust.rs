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
//! **Invariant**: a change is a read-modify-write under an exclusive
//! `flock` on `trust.lock`, written atomically (temp file, fsync, rename),
//! user-only (0600). A file that does not parse trusts nothing; the next
//! write sets it aside as `trust.json.corrupt-<unix time>` with a warning.
//!
//! Format changelog (bump [`FORMAT_VERSION`] on every change):
//! - 1: `{version, projects: [{root, config_sha256, trusted_at}]}`.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::paths::{ensure_private_dir, private_options, unix_now};

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
        self.home.join(TRUST_FILE)
    }

    /// Whether the config of `root` with content hash `sha256` is trusted.
    /// Unreadable or corrupt store: nothing is trusted.
    pub fn verdict(&self, root: &Path, sha256: &str) -> Verdict {
        let data = match self.read() {
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
        ensure_private_dir(&self.home)?;
        let _lock = self.lock()?;
        let mut data = match self.read()? {
            Parsed::Missing => TrustData::default(),
            Parsed::Ok(d) => d,
            Parsed::Corrupt(why) => {
                self.set_aside(&why)?;
                TrustData::default()
            }
        };
        let before = data.clone();
        let out = f(&mut data);
        if data != before {
            data.version = FORMAT_VERSION;
            self.write_atomically(&data)?;
        }
        Ok(out)
    }

    fn lock(&self) -> Result<File> {
        let path = self.home.join(LOCK_FILE);
        let file = private_options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .with_context(|| format!("cannot open `{}`", path.display()))?;
        file.lock()
            .with_context(|| format!("cannot lock `{}`", path.display()))?;
        Ok(file)
    }

    fn read(&self) -> Result<Parsed> {
        let path = self.path();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Parsed::Missing),
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Ok(Parsed::Corrupt("not UTF-8".into()));
            }
            Err(e) => return Err(e).with_context(|| format!("cannot read `{}`", path.display())),
        };
        Ok(match serde_json::from_str::<TrustData>(&text) {
            Ok(d) => Parsed::Ok(d),
            Err(e) => Parsed::Corrupt(e.to_string()),
        })
    }

    fn set_aside(&self, why: &str) -> Result<()> {
        let path = self.path();
        let aside = self
            .home
            .join(format!("{TRUST_FILE}.corrupt-{}", unix_now()));
        std::fs::rename(&path, &aside).with_context(|| {
            format!(
                "cannot move the corrupt trust file `{}` aside",
                path.display()
            )
        })?;
        tracing::warn!(
            "the trust file `{}` was corrupt ({why}); moved it to `{}` and started an empty one",
            path.display(),
            aside.display()
        );
        Ok(())
    }

    fn write_atomically(&self, data: &TrustData) -> Result<()> {
        let path = self.path();
        // tempfile creates the file with mode 0600 on Unix.
        let mut tmp = tempfile::Builder::new()
            .prefix(".trust.json.")
            .tempfile_in(&self.home)
            .with_context(|| format!("cannot create a temp file in `{}`", self.home.display()))?;
        let mut text = serde_json::to_string_pretty(data)?;
        text.push('\n');
        tmp.write_all(text.as_bytes())
            .and_then(|()| tmp.as_file().sync_all())
            .with_context(|| format!("cannot write `{}`", tmp.path().display()))?;
        tmp.persist(&path)
            .map_err(|e| e.error)
            .with_context(|| format!("cannot replace `{}`", path.display()))?;
        Ok(())
    }
}

enum Parsed {
    Missing,
    Ok(TrustData),
    Corrupt(String),
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
