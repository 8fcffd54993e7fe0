//! Owns the on-disk index: `.repo_search/index.db` (SQLite, WAL) and every
//! SQL statement in the crate. Does not walk, parse or rank (that is `index`,
//! `extract` and `search`): it stores what it is given and answers lookups
//! with plain row structs.
//!
//! - `mod.rs`: [`Store`], opening (with the schema check), errors, meta
//!   keys and the vector encoding shared by reads and writes.
//! - `schema.rs`: tables and indexes, [`SCHEMA_VERSION`] and its changelog.
//! - `write.rs`: [`Writer`], the one way to change the index.
//! - `read.rs`: every read query.
//!
//! **Invariant**: all rows of one file (its `files` row, symbols, refs,
//! chunks and FTS entries) are written in the same transaction, so a reader
//! or a writer killed at any moment sees each file either fully old or fully
//! new.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::{Connection, OpenFlags};

use crate::error::{ErrorCode, UserError};

mod read;
mod schema;
mod write;

pub use read::{
    ChunkRow, ChunkText, Counts, FileRecord, FtsRow, NameMatch, OutlineRow, PendingChunk, RefRow,
    SkipSummary, SymbolRow, VectorMatrix,
};
pub use schema::SCHEMA_VERSION;
pub use write::{FileUpdate, PreparedChunk, Writer, prepare_chunks};

pub const INDEX_DIR: &str = ".repo_search";
pub const DB_FILE: &str = "index.db";

/// Where a project's index lives.
pub fn index_dir(root: &Path) -> PathBuf {
    root.join(INDEX_DIR)
}

pub fn db_path(root: &Path) -> PathBuf {
    index_dir(root).join(DB_FILE)
}

/// Whether [`index_dir_checked`] may create the index directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirUse {
    /// A writer: create it (0700) if missing.
    Create,
    /// A reader: a missing directory is `Ok(None)`.
    Read,
}

/// The project's index directory, checked before anything in it is opened:
/// neither it nor any entry in it may be a symlink or a special file (a
/// cloned repository could ship `.repo_search` pointing anywhere, and the
/// index would be written there), and the user's own directory and files
/// are made private (0700, files 0600: the index holds the code of files
/// only the user may read), whatever the umask or an older version left.
/// `Ok(None)`: there is none and `DirUse::Read` did not create one.
pub fn index_dir_checked(root: &Path, usage: DirUse) -> Result<Option<PathBuf>> {
    let dir = index_dir(root);
    let create = usage == DirUse::Create;
    if create && !root.is_dir() {
        // A writer (the daemon) whose project root was deleted under it
        // must fail, not bring the root back.
        return Err(UserError::with_code(
            ErrorCode::NotFound,
            format!("project root `{}` does not exist", root.display()),
        )
        .hint("check the path; `repo-search projects remove PATH` forgets a deleted project")
        .agent("the project root is gone: restart the MCP server from an existing project")
        .into());
    }
    let what = "the index directory";
    if !crate::fs_safe::private_dir(&dir, what, create, false, crate::fs_safe::Owner::Anyone)? {
        return Ok(None);
    }
    crate::fs_safe::tighten_entries(&dir, what)?;
    Ok(Some(dir))
}

/// SQLite's flags on top of the defaults: never open the database through
/// a symlink (its `-wal`/`-shm` would follow the link's target).
const NOFOLLOW: OpenFlags = OpenFlags::SQLITE_OPEN_NOFOLLOW;

/// `index.db` under the canonical root: SQLite refuses (with [`NOFOLLOW`])
/// a symlink anywhere in the path, and only a link inside the project is
/// the project's doing (those [`index_dir_checked`] refused already).
fn nofollow_db_path(root: &Path) -> PathBuf {
    db_path(&root.canonicalize().unwrap_or_else(|_| root.to_path_buf()))
}

/// Creates `index.db` empty and user-only (without following a symlink)
/// when it does not exist, so SQLite opens a 0600 file and gives its
/// `-wal` and `-shm` the same mode, whatever the umask.
fn precreate_db(db: &Path) -> Result<()> {
    match crate::fs_safe::private_nofollow()
        .write(true)
        .create_new(true)
        .open(db)
    {
        Ok(_) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot create `{}`", db.display())),
    }
}

/// The open index. Writers get one from [`Store::open_rw`] (the caller holds
/// the writer lock); readers from [`Store::open_ro`].
pub struct Store {
    conn: Connection,
    /// Read-only stores remember what [`Store::embedding_coverage`]
    /// counted, per model, with the `PRAGMA data_version` it was counted
    /// at: a warm reader (the MCP server's pool) asks before every semantic
    /// search, and counting means one index probe per chunk (tens of ms on
    /// 46k chunks). A commit by any other connection changes the data
    /// version and so drops the memo. Writers (whose own commits do not
    /// change their data version) never memoize.
    coverage_memo: Option<std::cell::RefCell<CoverageMemo>>,
}

/// See [`Store::coverage_memo`]: (data version, model) → (embedded, total).
type CoverageMemo = Option<(i64, HashMap<String, (u64, u64)>)>;

/// Bytes of the database a read-only connection maps instead of reading
/// page by page: a search then copies no pages into SQLite's cache (a cold
/// CLI search reads the whole vector table). Address space only; the
/// kernel's page cache backs it.
const READ_MMAP_BYTES: i64 = 1 << 32;

fn is_corruption(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt) | Some(rusqlite::ErrorCode::NotADatabase)
    )
}

/// Turns a SQLite error into a user error when it means a damaged index.
pub fn explain(err: rusqlite::Error, db: &Path) -> anyhow::Error {
    if is_corruption(&err) {
        UserError::with_code(ErrorCode::IndexCorrupt, format!("the index `{}` is corrupt: {err}", db.display()))
            .hint("run `repo-search index --full` to rebuild it")
            .agent("the index must be rebuilt: ask the user to run `repo-search index --full`; search_keyword and read_file work without it")
            .into()
    } else {
        anyhow::Error::new(err).context(format!("index `{}`", db.display()))
    }
}

impl Store {
    /// Opens (creating if needed) the index for writing. Checks the schema
    /// version: an older or missing schema is created/rebuilt, a newer one is
    /// refused.
    pub fn open_rw(root: &Path) -> Result<Store> {
        index_dir_checked(root, DirUse::Create)?;
        let db = nofollow_db_path(root);
        precreate_db(&db)?;
        let conn = Connection::open_with_flags(&db, OpenFlags::default() | NOFOLLOW)
            .map_err(|e| explain(e, &db))?;
        let store = Store {
            conn,
            coverage_memo: None,
        };
        store.configure().map_err(|e| explain(e, &db))?;
        let version = store.user_version().map_err(|e| explain(e, &db))?;
        if version > SCHEMA_VERSION {
            return Err(newer_schema(&db, version));
        }
        if version != SCHEMA_VERSION && version != 0 {
            tracing::warn!(
                "index schema {version} is older than {SCHEMA_VERSION}: rebuilding `{}`",
                db.display()
            );
            store.drop_all().map_err(|e| explain(e, &db))?;
        }
        store.ensure_schema(version).map_err(|e| explain(e, &db))?;
        Ok(store)
    }

    /// Opens an existing index read-only. Returns `Ok(None)` when there is no
    /// index yet.
    pub fn open_ro(root: &Path) -> Result<Option<Store>> {
        if index_dir_checked(root, DirUse::Read)?.is_none() {
            return Ok(None);
        }
        let db = nofollow_db_path(root);
        if !db.exists() {
            return Ok(None);
        }
        let conn = Connection::open_with_flags(
            &db,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | NOFOLLOW,
        )
        .map_err(|e| explain(e, &db))?;
        let store = Store {
            conn,
            coverage_memo: Some(std::cell::RefCell::new(None)),
        };
        store.configure_read().map_err(|e| explain(e, &db))?;
        let version = store.user_version().map_err(|e| explain(e, &db))?;
        if version > SCHEMA_VERSION {
            return Err(newer_schema(&db, version));
        }
        if version < SCHEMA_VERSION {
            // Version 0 also covers a database another writer is creating
            // right now: treat it as "no index yet".
            if version == 0 {
                return Ok(None);
            }
            return Err(UserError::with_code(ErrorCode::IndexCorrupt, format!(
                "the index `{}` has an old schema ({version}, this build uses {SCHEMA_VERSION})",
                db.display()
            ))
            .hint("run `repo-search index` to rebuild it")
            .agent("the index is rebuilt by the next update: retry in a few seconds; index_status shows progress")
            .into());
        }
        Ok(Some(store))
    }

    /// Read-only connections: map the file, keep sorts in memory (a
    /// read-only connection's temporary b-trees otherwise spill to a temp
    /// file).
    fn configure_read(&self) -> rusqlite::Result<()> {
        self.conn.busy_timeout(Duration::from_secs(5))?;
        self.conn.pragma_update(None, "temp_store", "MEMORY")?;
        self.conn
            .pragma_update(None, "mmap_size", READ_MMAP_BYTES)?;
        Ok(())
    }

    fn configure(&self) -> rusqlite::Result<()> {
        self.conn.busy_timeout(Duration::from_secs(30))?;
        self.conn.pragma_update(None, "journal_mode", "WAL")?;
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        self.conn.pragma_update(None, "temp_store", "MEMORY")?;
        self.conn.pragma_update(None, "cache_size", -65536)?;
        Ok(())
    }
}

fn newer_schema(db: &Path, version: i64) -> anyhow::Error {
    UserError::with_code(ErrorCode::IndexCorrupt, format!(
        "the index `{}` was written by a newer repo-search (schema {version}, this build reads {SCHEMA_VERSION})",
        db.display()
    ))
    .hint("upgrade repo-search, or run `repo-search index --full` to rebuild the index with this version")
    .agent("ask the user to upgrade repo-search or run `repo-search index --full`; search_keyword and read_file work without the index")
    .into()
}

/// Meta keys (one place, so readers and writers agree).
pub mod meta {
    /// Unix seconds of the last completed index run.
    pub const LAST_INDEXED: &str = "last_indexed";
    /// Incremented by every committed batch; readers use it to notice changes.
    pub const GENERATION: &str = "generation";
    /// "running" while an index run is in progress, "idle" after.
    pub const STATE: &str = "state";
    pub const PROGRESS_DONE: &str = "progress_done";
    pub const PROGRESS_TOTAL: &str = "progress_total";
    pub const WRITER_PID: &str = "writer_pid";
    /// Seconds the last run took.
    pub const LAST_DURATION: &str = "last_duration_s";
    /// Incremented by every committed batch of vectors, so a warm semantic
    /// index knows to reload.
    pub const VECTORS_GENERATION: &str = "vectors_generation";
    /// The embedding phase: model being computed, "running"/"idle", and
    /// progress (chunks to embed in this run, done so far).
    pub const EMBED_MODEL: &str = "embed_model";
    pub const EMBED_STATE: &str = "embed_state";
    pub const EMBED_DONE: &str = "embed_done";
    pub const EMBED_TOTAL: &str = "embed_total";
    /// Unix seconds the embedding phase started, for rate and ETA.
    pub const EMBED_STARTED: &str = "embed_started";
    /// Unix seconds of the phase's last commit: a "running" state whose
    /// heartbeat is old belongs to a process that died.
    pub const EMBED_UPDATED: &str = "embed_updated";
    /// Pid of the process running the phase.
    pub const EMBED_PID: &str = "embed_pid";

    /// Set (to "1") once a model's vectors covered every chunk: from then
    /// on semantic search keeps that model while an edit's few new chunks
    /// are embedded, instead of falling back to a lower tier.
    pub fn complete_once(model: &str) -> String {
        format!("complete_once:{model}")
    }
}

/// What a chunk's embedding depends on: its path, enclosing symbol and text.
/// Vectors are stored under this key so that an unchanged chunk keeps its
/// vector when its file is re-indexed.
pub fn embed_key(path: &str, symbol: Option<&str>, text: &str) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(path.as_bytes());
    h.update(&[0]);
    h.update(symbol.unwrap_or("").as_bytes());
    h.update(&[0]);
    h.update(text.as_bytes());
    h.digest()
}

/// Vectors are stored as little-endian f32.
pub fn vector_to_blob(v: &[f32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * 4);
    for x in v {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

/// Appends the f32 values of a blob to `out`; `None` if the length is not
/// a multiple of 4.
pub fn blob_to_vector(blob: &[u8], out: &mut Vec<f32>) -> Option<()> {
    if !blob.len().is_multiple_of(4) {
        return None;
    }
    out.extend(
        blob.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    Some(())
}
