//! Owns the JSON documents of `REPO_SEARCH_HOME` that several processes
//! change (`registry.json`, `trust.json`): one [`HomeFile`] per document.
//!
//! **Invariant**: a change is a read-modify-write under an exclusive
//! `flock` on the document's lock file, written atomically (temp file,
//! fsync, rename), user-only (0600), and only when the content changed. A
//! document that does not parse is set aside as `<file>.corrupt-<unix
//! time>` with a warning by the next change, never dropped silently.

use std::fs::File;
use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::paths::{ensure_private_dir, private_options, unix_now};

/// A document's content: [`Document::stamp`] sets the current format
/// version before a changed document is written.
pub trait Document: Default + Clone + PartialEq + Serialize + DeserializeOwned {
    fn stamp(&mut self);
}

/// What reading a document found.
pub enum Parsed<T> {
    Missing,
    Ok(T),
    Corrupt(String),
}

/// One document in a home directory, and how its warnings name it.
#[derive(Debug, Clone)]
pub struct HomeFile {
    pub home: PathBuf,
    /// File name, e.g. `registry.json`.
    pub file: &'static str,
    /// Lock file name, e.g. `registry.lock`.
    pub lock: &'static str,
    /// What errors call it: `registry`, `trust file`.
    pub noun: &'static str,
    /// What the set-aside warning calls it: `the project registry`.
    pub title: &'static str,
    /// Appended to the set-aside warning (what the user may want to redo).
    pub advice: &'static str,
}

impl HomeFile {
    pub fn path(&self) -> PathBuf {
        self.home.join(self.file)
    }

    /// Reads the document without the lock (writes are atomic).
    pub fn read<T: Document>(&self) -> Result<Parsed<T>> {
        let path = self.path();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Parsed::Missing),
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Ok(Parsed::Corrupt("not UTF-8".into()));
            }
            Err(e) => return Err(e).with_context(|| format!("cannot read `{}`", path.display())),
        };
        Ok(match serde_json::from_str::<T>(&text) {
            Ok(data) => Parsed::Ok(data),
            Err(e) => Parsed::Corrupt(e.to_string()),
        })
    }

    /// Runs `f` on the document under the lock (an empty one when missing
    /// or corrupt, the corrupt file set aside) and writes the result back
    /// atomically if it changed.
    pub fn update<T: Document, R>(&self, f: impl FnOnce(&mut T) -> R) -> Result<R> {
        ensure_private_dir(&self.home)?;
        let _lock = self.lock()?;
        let mut data = match self.read::<T>()? {
            Parsed::Missing => T::default(),
            Parsed::Ok(data) => data,
            Parsed::Corrupt(why) => {
                self.set_aside(&why)?;
                T::default()
            }
        };
        let before = data.clone();
        let out = f(&mut data);
        if data != before {
            data.stamp();
            self.write_atomically(&data)?;
        }
        Ok(out)
    }

    fn lock(&self) -> Result<File> {
        let path = self.home.join(self.lock);
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

    fn set_aside(&self, why: &str) -> Result<()> {
        let path = self.path();
        let aside = self
            .home
            .join(format!("{}.corrupt-{}", self.file, unix_now()));
        std::fs::rename(&path, &aside).with_context(|| {
            format!(
                "cannot move the corrupt {} `{}` aside",
                self.noun,
                path.display()
            )
        })?;
        tracing::warn!(
            "{} `{}` was corrupt ({why}); moved it to `{}` and started an empty one{}",
            self.title,
            path.display(),
            aside.display(),
            self.advice
        );
        Ok(())
    }

    fn write_atomically<T: Serialize>(&self, data: &T) -> Result<()> {
        let path = self.path();
        // tempfile creates the file with mode 0600 on Unix.
        let mut tmp = tempfile::Builder::new()
            .prefix(&format!(".{}.", self.file))
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
