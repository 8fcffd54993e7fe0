//! Owns the on-disk index: `.repo_search/index.db` (SQLite, WAL) and every
//! SQL statement in the crate. Does not walk, parse or rank (that is `index`,
//! `extract` and `search`): it stores what it is given and answers lookups
//! with plain row structs.
//!
//! - `mod.rs`: [`Store`], opening (with the schema check), errors, meta
//!   keys and the vector encoding shared by reads and writes.
//! - `schema.rs`: tables and indexes, [`SCHEMA_VERSION`] and its changelog.
//! - `write.rs`: [`Writer`], the one way to change the index.
//! - `read.rs`: every read query but those of `names.rs`.
//! - `names.rs`: reads of definitions and references (per-file blobs found
//!   through name tables); `packed.rs`: the blobs' encoding.
//!
//! **Invariant**: all rows of one file (its `files` row, symbols, refs,
//! chunks and FTS entries) are written in the same transaction, so a reader
//! or a writer killed at any moment sees each file either fully old or fully
//! new.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::config::DbConfig;
use rusqlite::{Connection, OpenFlags};

use crate::error::{ErrorCode, UserError};

mod bm25_topk;
mod names;
mod ngram;
mod packed;
mod read;
mod schema;
mod term_cache;
mod write;

pub use names::CLASS_KINDS;
pub use ngram::{NgramDoc, NgramSizes, Trigram, encode_append};
pub use read::{
    ChunkRow, ChunkSource, ChunkSpan, Counts, F32Rows, FileRecord, FtsRow, GraphDef, GraphRef,
    ImportRow, LineSignature, NameMatch, OutlineRow, PendingChunk, RefRow, RowSink, Sizes,
    SkipSummary, SpanRef, SymbolRow, TableSize, VectorMatrix,
};
pub use schema::SCHEMA_VERSION;
pub use term_cache::TermCache;
pub use write::{
    FileUpdate, FtsMerge, PackedRows, PreparedChunk, Writer, pack_rows, prepare_chunks,
};

pub const INDEX_DIR: &str = ".repo_search";
pub const DB_FILE: &str = "index.db";

/// Where a project's index lives.
pub fn index_dir(root: &Path) -> PathBuf {
    root.join(INDEX_DIR)
}

/// The project's config file (`[index]`, `[embed]`, ...; written by a
/// person or by `config set`).
pub const CONFIG_FILE: &str = "config.toml";

/// Where [`CONFIG_FILE`] of the project at `root` lives.
pub fn config_path(root: &Path) -> PathBuf {
    index_dir(root).join(CONFIG_FILE)
}

/// A project's own eval cases (`repo-search-eval`), written by a person.
pub fn eval_cases_dir(root: &Path) -> PathBuf {
    index_dir(root).join("evals")
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
    if create {
        ignore_in_git(&dir);
    }
    Ok(Some(dir))
}

/// The index directory's own `.gitignore`: everything but what a team may
/// commit, the project's settings (`config.toml`) and eval cases
/// (`evals/*.jsonl`, not their reports).
const GITIGNORE: &str = "# written by repo-search: the index is not part of the project\n*\n!/config.toml\n!/evals/\n!/evals/**\n/evals/results/\n";

/// Writes `.gitignore` ([`GITIGNORE`]) into the index directory once, so `git
/// status` does not list the index in a project that was only indexed
/// (`init` also adds `.repo_search/` to the project's own `.gitignore`).
/// Created exclusively (never through a planted link); a failure only
/// leaves the directory visible to git.
fn ignore_in_git(dir: &Path) {
    let path = dir.join(".gitignore");
    if path.symlink_metadata().is_ok() {
        return;
    }
    let written = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
        .and_then(|mut f| {
            use std::io::Write;
            f.write_all(GITIGNORE.as_bytes())
        });
    if let Err(e) = written {
        tracing::debug!("cannot write `{}`: {e}", path.display());
    }
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

/// From this many chunks on (the Linux kernel has 1.3 M; the largest
/// project of the eval suites about 50k) an index is large
/// ([`Store::is_large`]): BM25 matches the chunks holding most of the
/// query's words first (`search::bm25`), the hybrid keyword arm reads only
/// the files the index lists or its postings admit, and skips a literal too
/// common to rank by (`search::hybrid`), and the full-text index is merged
/// at 1% of tombstones by a watching daemon in the background, at 10% by
/// an index run ([`Store::fts_merge_due`]). Smaller
/// indexes work as before, byte for byte.
pub const LARGE_INDEX_CHUNKS: u64 = 250_000;

/// The open index. Writers get one from [`Store::open_rw`] (the caller holds
/// the writer lock); readers from [`Store::open_ro`].
pub struct Store {
    conn: Connection,
    /// Read-only stores remember what [`Store::embedding_coverage`]
    /// counted, per model, with the index and vectors generations
    /// ([`meta::GENERATION`], [`meta::VECTORS_GENERATION`]) it was counted
    /// at: a warm reader (the MCP server's pool) asks before every semantic
    /// search, and counting merges every chunk's key with every vector's
    /// (0.5 s for two models on the Linux kernel). Every commit that
    /// changes chunks or vectors bumps one of them. Not `PRAGMA
    /// data_version`: a server's re-check of an unchanged tree changes it
    /// (a commit that writes nothing readers see), and each re-check cost
    /// the next semantic search a recount. Writers never memoize.
    coverage_memo: Option<std::cell::RefCell<CoverageMemo>>,
    /// A long-lived reader's word postings ([`TermCache`]): ORs of words
    /// are then ranked from memory.
    terms: Option<std::sync::Arc<TermCache>>,
}

/// See [`Store::coverage_memo`]: ((generation, vectors generation), model)
/// → (embedded, total).
type CoverageMemo = Option<((u64, u64), HashMap<String, (u64, u64)>)>;

/// Bytes of the database a read-only connection maps instead of reading
/// page by page: a search then copies no pages into SQLite's cache (a cold
/// CLI search reads the whole vector table). Address space only; the
/// kernel's page cache backs it.
const READ_MMAP_BYTES: i64 = 1 << 32;

/// `values` as the JSON array a statement reads back with
/// `IN (SELECT value FROM json_each(?1))`: one parameter for a list of any
/// length.
fn json_list<T: serde::Serialize + ?Sized>(values: &T) -> rusqlite::Result<String> {
    serde_json::to_string(values).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}

fn is_corruption(err: &rusqlite::Error) -> bool {
    matches!(
        err.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseCorrupt) | Some(rusqlite::ErrorCode::NotADatabase)
    )
}

/// Whether `err` (anywhere in its chain) is SQLite saying the index file is
/// damaged or not a database: an index to set aside and rebuild
/// ([`set_aside`]), unlike a newer schema or a busy writer.
pub fn is_damaged(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<rusqlite::Error>()
            .is_some_and(is_corruption)
    })
}

/// Turns a SQLite error into a user error when it means a damaged index
/// (the SQLite error stays its cause, so [`is_damaged`] sees it), a
/// read-only index or a full disk.
pub fn explain(err: rusqlite::Error, db: &Path) -> anyhow::Error {
    let code = err.sqlite_error_code();
    if is_corruption(&err) {
        let user = UserError::with_code(ErrorCode::IndexCorrupt, format!("the index `{}` is corrupt: {err}", db.display()))
            .hint("run `repo-search index --full` to rebuild it (searches set a corrupt index aside and rebuild it themselves)")
            .agent("the index is damaged and is being rebuilt: retry in a few seconds (index_status shows progress); search_keyword and read_file work without it");
        anyhow::Error::new(err).context(user)
    } else if matches!(code, Some(rusqlite::ErrorCode::DiskFull)) {
        let user = UserError::with_code(ErrorCode::Failed, format!("the disk holding `{}` is full: {err}", db.display()))
            .hint("free some space and run `repo-search index` again; the index as it was before this run is intact")
            .agent("the disk is full, so the index cannot be updated; answers come from the index as it was; ask the user to free disk space");
        anyhow::Error::new(err).context(user)
    } else if matches!(code, Some(rusqlite::ErrorCode::ReadOnly)) {
        let user = UserError::with_code(ErrorCode::Failed, format!("cannot write the index `{}`: {err}", db.display()))
            .hint("the index is read-only (a read-only mount or checkout?): searches read it as it is; make `.repo_search/` writable to update it")
            .agent("the index cannot be updated here (read-only); answers come from the index as it is");
        anyhow::Error::new(err).context(user)
    } else if matches!(code, Some(rusqlite::ErrorCode::CannotOpen)) {
        let user = UserError::with_code(ErrorCode::Failed, format!("cannot open the index `{}`: {err}", db.display()))
            .hint("check that `.repo_search/` and the files in it are yours and readable and writable")
            .agent("the index cannot be opened; search_keyword and read_file work without it; ask the user to check `.repo_search/`");
        anyhow::Error::new(err).context(user)
    } else {
        anyhow::Error::new(err).context(format!("index `{}`", db.display()))
    }
}

/// An index run's error, explained when it is a full disk or a read-only
/// file system met anywhere (a lock file, SQLite's journal, a temp file)
/// and nothing more precise was said: the run failed, the index as it was
/// before is intact (every file's rows commit together).
pub fn explain_write(err: anyhow::Error, root: &Path) -> anyhow::Error {
    if crate::error::find_user_error(&err).is_some() {
        return err;
    }
    let full = err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::StorageFull)
            || e.downcast_ref::<rusqlite::Error>()
                .is_some_and(|s| s.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull))
    });
    let read_only = err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ReadOnlyFilesystem)
    });
    let dir = index_dir(root);
    if full {
        let user = UserError::with_code(ErrorCode::Failed, format!("the disk holding `{}` is full", dir.display()))
            .hint("free some space and run `repo-search index` again; the index as it was before this run is intact")
            .agent("the disk is full, so the index cannot be updated; answers come from the index as it was; ask the user to free disk space");
        err.context(user)
    } else if read_only {
        let user = UserError::with_code(
            ErrorCode::Failed,
            format!(
                "the index cannot be written: `{}` is on a read-only file system",
                dir.display()
            ),
        )
        .hint("searches read the index as it is; make the project writable to update it")
        .agent(
            "the index cannot be updated here (read-only); answers come from the index as it is",
        );
        err.context(user)
    } else {
        err
    }
}

/// Moves a damaged index out of the way: `index.db` (and its `-wal` and
/// `-shm` files) become `index.db.corrupt-<unix time>[-wal|-shm]` next to
/// it, so the next run builds a new index as if there were none and the
/// damaged file stays for inspection. The caller holds the writer lock.
/// Returns where the database went.
pub fn set_aside(root: &Path) -> Result<PathBuf> {
    let db = db_path(root);
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    let aside = db.with_file_name(format!("{DB_FILE}.corrupt-{stamp}"));
    std::fs::rename(&db, &aside).with_context(|| {
        format!(
            "cannot move the damaged index `{}` aside to `{}`",
            db.display(),
            aside.display()
        )
    })?;
    for suffix in ["-wal", "-shm"] {
        let from = db.with_file_name(format!("{DB_FILE}{suffix}"));
        if from.exists() {
            let to = db.with_file_name(format!("{DB_FILE}.corrupt-{stamp}{suffix}"));
            if let Err(e) = std::fs::rename(&from, &to) {
                tracing::warn!("cannot move `{}` aside: {e}", from.display());
                let _ = std::fs::remove_file(&from);
            }
        }
    }
    tracing::warn!(
        "the index `{}` was damaged: moved it to `{}` and rebuilding it",
        db.display(),
        aside.display()
    );
    Ok(aside)
}

/// Refuses an index path that is not what it must be: `.repo_search` a
/// regular file, `index.db` a directory or another non-file (with a hint;
/// the index is derived data, but these may be someone's files).
pub fn check_index_paths(root: &Path) -> Result<()> {
    let dir = index_dir(root);
    if let Ok(md) = std::fs::symlink_metadata(&dir)
        && md.is_file()
    {
        return Err(UserError::with_code(
            ErrorCode::Failed,
            format!("`{}` is a file, not the index directory", dir.display()),
        )
        .hint(format!("move or remove `{}`; repo-search keeps its index in that directory", dir.display()))
        .agent("the project has a file where the index directory belongs, so there is no index; search_keyword and read_file work without it; ask the user to move it")
        .into());
    }
    let db = db_path(root);
    if let Ok(md) = std::fs::symlink_metadata(&db)
        && !md.is_file()
        && !md.file_type().is_symlink()
    {
        return Err(UserError::with_code(
            ErrorCode::IndexCorrupt,
            format!("`{}` is not a regular file", db.display()),
        )
        .hint(format!("move or remove `{}`, then run `repo-search index`", db.display()))
        .agent("the index file is not a file, so there is no index; search_keyword and read_file work without it; ask the user to remove it")
        .into());
    }
    Ok(())
}

/// `path` with `suffix` appended to its file name (`index.db-wal`).
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut p = path.as_os_str().to_os_string();
    p.push(suffix);
    PathBuf::from(p)
}

/// Opens `db` for writing and reads from it, which rolls back a hot
/// journal left by a writer that died.
fn roll_back_journal(db: &Path) -> rusqlite::Result<()> {
    writable(db, Duration::from_secs(5))?.query_row("PRAGMA schema_version", [], |_| Ok(()))
}

/// A plain connection that may write the existing file `db` (no
/// configuration: one statement of upkeep).
fn writable(db: &Path, busy: Duration) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_WRITE | NOFOLLOW)?;
    conn.busy_timeout(busy)?;
    Ok(conn)
}

/// Moves every page of the WAL of the index file `db` into the file and
/// empties the WAL, so that the file alone is the whole index; `Ok(false)`
/// when a reader's open snapshot kept the checkpoint from finishing.
pub fn checkpoint_file(db: &Path) -> rusqlite::Result<bool> {
    // (busy, frames in the WAL, frames checkpointed); busy is 1 when a
    // reader or writer kept it from finishing.
    writable(db, Duration::from_millis(500))?
        .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
            r.get::<_, i64>(0)
        })
        .map(|busy| busy == 0)
}

impl Store {
    /// Opens (creating if needed) the index for writing. Checks the schema
    /// version: an older or missing schema is created/rebuilt, a newer one is
    /// refused.
    pub fn open_rw(root: &Path) -> Result<Store> {
        Store::open_rw_file(root, &nofollow_db_path(root))
    }

    /// [`Self::open_rw`] of another database file in the index directory
    /// (a full rebuild's `index.db.next`, swapped in when it is complete).
    pub fn open_rw_file(root: &Path, db: &Path) -> Result<Store> {
        check_index_paths(root)?;
        index_dir_checked(root, DirUse::Create)?;
        let db = db.to_path_buf();
        precreate_db(&db)?;
        let conn = Connection::open_with_flags(&db, OpenFlags::default() | NOFOLLOW)
            .map_err(|e| explain(e, &db))?;
        let store = Store {
            conn,
            coverage_memo: None,
            terms: None,
        };
        store.configure().map_err(|e| explain(e, &db))?;
        let version = store.user_version().map_err(|e| explain(e, &db))?;
        if version > SCHEMA_VERSION {
            return Err(newer_schema(&db, version));
        }
        if version != SCHEMA_VERSION && version != 0 {
            tracing::warn!(
                "index schema {version} is older than {SCHEMA_VERSION}: upgrading `{}` (vectors are kept, what changed is rebuilt)",
                db.display()
            );
            let kept = store.upgrade(version).map_err(|e| explain(e, &db))?;
            tracing::info!("kept {kept} vectors, now int8");
        }
        store.ensure_schema(version).map_err(|e| explain(e, &db))?;
        Ok(store)
    }

    /// Opens an existing index read-only. Returns `Ok(None)` when there is no
    /// index yet, or only one of an older schema (which the next index run
    /// rebuilds).
    pub fn open_ro(root: &Path) -> Result<Option<Store>> {
        check_index_paths(root)?;
        if index_dir_checked(root, DirUse::Read)?.is_none() {
            return Ok(None);
        }
        let db = nofollow_db_path(root);
        if !db.exists() {
            return Ok(None);
        }
        let open = || {
            Connection::open_with_flags(
                &db,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX | NOFOLLOW,
            )
            .and_then(|c| {
                c.query_row("PRAGMA schema_version", [], |_| Ok(()))
                    .map(|()| c)
            })
        };
        let conn = match open() {
            Ok(c) => c,
            // A writer killed while it switched a new file to WAL leaves a
            // rollback journal that only a writing connection may undo:
            // open one, which rolls it back, then read as before.
            Err(e)
                if is_unwritable(&e)
                    && with_suffix(&db, "-journal").exists()
                    && dir_writable(&index_dir(root)) =>
            {
                roll_back_journal(&db).map_err(|e| explain(e, &db))?;
                open().map_err(|e| explain(e, &db))?
            }
            // A WAL database in a directory this user cannot write (a
            // read-only mount, another user's checkout, `chmod -R a-w`):
            // SQLite cannot create the shared-memory file, so read the file
            // as immutable. No writer can change it there either.
            Err(e) if is_unwritable(&e) && !dir_writable(&index_dir(root)) => {
                open_immutable(&db).map_err(|e| explain(e, &db))?
            }
            Err(e) => return Err(explain(e, &db)),
        };
        let store = Store {
            conn,
            coverage_memo: Some(std::cell::RefCell::new(None)),
            terms: None,
        };
        store.configure_read().map_err(|e| explain(e, &db))?;
        let version = store.user_version().map_err(|e| explain(e, &db))?;
        if version > SCHEMA_VERSION {
            return Err(newer_schema(&db, version));
        }
        if version < SCHEMA_VERSION {
            // Version 0 also covers a database another writer is creating
            // right now; an older schema (an index of an earlier
            // repo-search) is rebuilt by the next index run: both read as
            // "no index yet" (see [`is_outdated`]).
            return Ok(None);
        }
        Ok(Some(store))
    }

    /// Read-only connections: map the file, keep sorts in memory (a
    /// read-only connection's temporary b-trees otherwise spill to a temp
    /// file).
    fn configure_read(&self) -> rusqlite::Result<()> {
        self.conn.busy_timeout(Duration::from_secs(5))?;
        self.plan_once()?;
        bm25_topk::register(&self.conn)?;
        self.conn.pragma_update(None, "temp_store", "MEMORY")?;
        self.conn
            .pragma_update(None, "mmap_size", READ_MMAP_BYTES)?;
        Ok(())
    }

    fn configure(&self) -> rusqlite::Result<()> {
        self.conn.busy_timeout(Duration::from_secs(30))?;
        self.plan_once()?;
        bm25_topk::register(&self.conn)?;
        // First, while a new file is still empty (later, and on an index
        // made without it, a no-op): free pages can then be given back to
        // the file system on request (`PRAGMA incremental_vacuum`, after a
        // bulk load's repack).
        self.conn
            .pragma_update(None, "auto_vacuum", "INCREMENTAL")?;
        self.conn.pragma_update(None, "journal_mode", "WAL")?;
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        self.conn.pragma_update(None, "temp_store", "MEMORY")?;
        self.conn.pragma_update(None, "cache_size", -65536)?;
        Ok(())
    }

    /// A cached statement keeps the plan it was prepared with, whatever
    /// values are bound to it (SQLite's query planner stability guarantee).
    /// Without this, SQLite re-prepares a statement whose plan might depend
    /// on a bound value whenever that value changes: every join with a
    /// parameter (`chunk_row`'s `WHERE c.id = ?1`, the BM25 arm's query),
    /// so each hit of a search re-parsed its SQL (15% of a warm MCP
    /// search's CPU on a 5,000-chunk project). No statement here needs a
    /// plan chosen by value: there are no `ANALYZE` statistics, and the
    /// one prefix lookup is a range (`symbol_name_files`), not `LIKE ?`.
    fn plan_once(&self) -> rusqlite::Result<()> {
        self.conn
            .set_db_config(DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true)
            .map(|_| ())
    }
}

fn is_unwritable(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::CannotOpen)
            | Some(rusqlite::ErrorCode::ReadOnly)
            | Some(rusqlite::ErrorCode::PermissionDenied)
    )
}

/// Whether this process may create files in `dir` (tried with a probe
/// file, removed at once: permission bits do not tell about read-only
/// mounts).
fn dir_writable(dir: &Path) -> bool {
    let probe = dir.join(format!(".write-probe-{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            true
        }
        Err(e) => e.kind() == std::io::ErrorKind::AlreadyExists,
    }
}

/// Opens `db` read-only as an immutable file (no locks, no WAL or
/// shared-memory files).
fn open_immutable(db: &Path) -> rusqlite::Result<Connection> {
    let mut uri = String::from("file:");
    for b in db.to_string_lossy().bytes() {
        match b {
            b'?' | b'#' | b'%' | 0x80.. => uri.push_str(&format!("%{b:02X}")),
            _ => uri.push(b as char),
        }
    }
    uri.push_str("?immutable=1");
    let conn = Connection::open_with_flags(
        &uri,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI
            | NOFOLLOW,
    )?;
    conn.query_row("PRAGMA schema_version", [], |_| Ok(()))?;
    Ok(conn)
}

/// Is there an index of an older schema at `root` (written by an earlier
/// repo-search), which the next index run rebuilds? Anything unreadable
/// says no: opening the index reports it.
pub fn is_outdated(root: &Path) -> bool {
    let db = nofollow_db_path(root);
    if !db.exists() {
        return false;
    }
    Connection::open_with_flags(&db, OpenFlags::SQLITE_OPEN_READ_ONLY | NOFOLLOW)
        .and_then(|c| c.pragma_query_value(None, "user_version", |r| r.get::<_, i64>(0)))
        .is_ok_and(|v| v > 0 && v < SCHEMA_VERSION)
}

/// Why a one-shot command must build the index before it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unbuilt {
    /// There is no index file.
    Missing,
    /// An index of an older schema ([`is_outdated`]).
    Outdated,
    /// A file no index run completed: an empty one, or a first build
    /// killed part way (its rows hold only some files).
    Unfinished,
}

/// What stands between the index at `root` and an answer from it; `None`
/// for a complete index of this schema, or one that cannot be read
/// (opening it for the answer reports or repairs that). One read-only
/// open for a complete index.
pub fn unbuilt(root: &Path) -> Option<Unbuilt> {
    if !nofollow_db_path(root).exists() {
        return Some(Unbuilt::Missing);
    }
    match Store::open_ro(root) {
        Ok(Some(s)) => s
            .get_meta(meta::LAST_INDEXED)
            .ok()
            .flatten()
            .is_none()
            .then_some(Unbuilt::Unfinished),
        Ok(None) if is_outdated(root) => Some(Unbuilt::Outdated),
        Ok(None) => Some(Unbuilt::Unfinished),
        Err(_) => None,
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
    /// The next id for a trigram-postings doc: ids only grow until the
    /// postings are rebuilt, so an id in a posting list names one version.
    pub const NGRAM_NEXT_DOC: &str = "ngram_next_doc";
    /// The largest file (bytes) the trigram postings cover; postings built
    /// with another limit are rebuilt by the next full walk.
    pub const NGRAM_MAX_SIZE: &str = "ngram_max_size";
    /// The layout of the trigram postings (see `index::ngram::FORMAT`);
    /// postings of another layout are rebuilt by the next full walk.
    pub const NGRAM_FORMAT: &str = "ngram_format";
    /// Full-text rows deleted since the full-text index was last merged
    /// whole: each leaves a tombstone that every query visiting its
    /// segment checks (200k of them on the kernel doubled a BM25 query).
    pub const FTS_DELETED: &str = "fts_deleted";
    /// Incremented by every commit that inserts or deletes full-text rows
    /// (by the writer itself, whoever commits): a reader's kept word
    /// postings ([`super::TermCache`]) last while it does.
    pub const FTS_VERSION: &str = "fts_version";
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

/// Codes and scale of one vector, as it is stored and scanned:
/// `v[i] ≈ codes[i] * scale`, symmetric, one scale per vector
/// (`max|x| / 127`), so each component is off by at most `scale / 2`. A
/// zero or non-finite vector is all zero codes with scale 0.
pub fn quantize(v: &[f32]) -> (Vec<i8>, f32) {
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    if max == 0.0 || !max.is_finite() {
        return (vec![0; v.len()], 0.0);
    }
    let scale = max / 127.0;
    let codes = v
        .iter()
        .map(|x| (x / scale).round().clamp(-127.0, 127.0) as i8)
        .collect();
    (codes, scale)
}

/// Bytes in front of a stored vector's codes: its scale.
const SCALE_BYTES: usize = 4;

/// Levels a stored code takes on each side of zero: 5 bits per dimension
/// (`max|x| / 15` per vector). Measured on the `agent` suite's fast-tier
/// vectors against int8 (127 levels): semantic nDCG@10 .7137 -> .7191
/// (tune half +.006, check half +.004), hybrid .8726 -> .8717 (-.0007,
/// -.0011); 4 bits (7 levels) lost .010 on semantic in both halves.
const STORED_LEVELS: f32 = 15.0;
const STORED_BITS: usize = 5;

/// The scale's sign bit marks the packed form (a scale is never negative:
/// blobs written before it, int8 codes after a positive scale, read as
/// they are).
const PACKED: u32 = 0x8000_0000;

/// In front of packed codes: the scale, then the dimensions (u16, LE).
const PACKED_HEADER: usize = SCALE_BYTES + 2;

/// The stored form of a vector: one scale and 5-bit codes
/// ([`STORED_LEVELS`]), `v[i] ≈ codes[i] * scale`, each off by at most
/// `scale / 2`; the scale (a little-endian f32 with its sign bit set: the
/// packed form), the dimensions (u16 LE), then the codes plus 15 (0..=30),
/// 5 bits each, least significant bits first: 166 bytes for 256
/// dimensions (260 as int8 codes, 1,024 as f32). A vector of more than
/// 65,535 dimensions keeps the int8 form.
pub fn vector_to_blob(v: &[f32]) -> Vec<u8> {
    let Ok(dim) = u16::try_from(v.len()) else {
        return int8_blob(v);
    };
    let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let scale = if max == 0.0 || !max.is_finite() {
        0.0
    } else {
        max / STORED_LEVELS
    };
    let mut out = Vec::with_capacity(PACKED_HEADER + (v.len() * STORED_BITS).div_ceil(8));
    out.extend_from_slice(&(scale.to_bits() | PACKED).to_le_bytes());
    out.extend_from_slice(&dim.to_le_bytes());
    let (mut acc, mut held) = (0u32, 0usize);
    for &x in v {
        let code = if scale == 0.0 {
            0.0
        } else {
            (x / scale).round().clamp(-STORED_LEVELS, STORED_LEVELS)
        };
        acc |= ((code + STORED_LEVELS) as u32) << held;
        held += STORED_BITS;
        while held >= 8 {
            out.push(acc as u8);
            acc >>= 8;
            held -= 8;
        }
    }
    if held > 0 {
        out.push(acc as u8);
    }
    out
}

/// The int8 stored form (schemas 8 to 12, and vectors too long to pack):
/// the scale ([`quantize`]'s, never negative), then one signed byte per
/// dimension.
pub(super) fn int8_blob(v: &[f32]) -> Vec<u8> {
    let (codes, scale) = quantize(v);
    let mut out = Vec::with_capacity(SCALE_BYTES + codes.len());
    out.extend_from_slice(&scale.to_le_bytes());
    out.extend(codes.iter().map(|&c| c as u8));
    out
}

/// Whether a blob of more than [`SCALE_BYTES`] bytes is in the int8 form
/// (its scale's sign bit clear), not packed.
fn is_int8(blob: &[u8]) -> bool {
    blob[SCALE_BYTES - 1] & 0x80 == 0
}

/// An int8 blob of an older index in the packed form, for
/// [`Store::upgrade`]; `None` for a blob packed already, or malformed.
pub(super) fn int8_blob_packed(blob: &[u8]) -> Option<Vec<u8>> {
    if blob.len() <= SCALE_BYTES || !is_int8(blob) {
        return None;
    }
    let mut values = Vec::new();
    blob_to_vector(blob, &mut values)?;
    Some(vector_to_blob(&values))
}

/// The codes (as bytes: each one an `i8`, `byte as i8`) and scale of a
/// stored vector, either form: int8 codes are read in place, packed ones
/// unpacked into `buf`. `None` for a malformed blob (a corrupt row).
pub fn blob_to_codes<'a>(blob: &'a [u8], buf: &'a mut Vec<u8>) -> Option<(&'a [u8], f32)> {
    if blob.len() <= SCALE_BYTES {
        return None;
    }
    let bits = u32::from_le_bytes([blob[0], blob[1], blob[2], blob[3]]);
    if is_int8(blob) {
        return Some((&blob[SCALE_BYTES..], f32::from_bits(bits)));
    }
    let dim = packed_dim(blob)?;
    buf.clear();
    buf.reserve(dim);
    let code = |raw: u64| -> Option<u8> {
        let code = raw as i32 - STORED_LEVELS as i32;
        (code <= STORED_LEVELS as i32).then_some(code as i8 as u8)
    };
    // Eight codes fill five bytes: whole groups are read as one word (a
    // cold search unpacks every vector of the index: byte by byte, that was
    // 5% of its CPU time), the rest below.
    const _: () = assert!(STORED_BITS == 5);
    let (groups, rest) = blob[PACKED_HEADER..].split_at(dim / 8 * 5);
    for g in groups.chunks_exact(5) {
        let word = u64::from(g[0])
            | u64::from(g[1]) << 8
            | u64::from(g[2]) << 16
            | u64::from(g[3]) << 24
            | u64::from(g[4]) << 32;
        for i in 0..8 {
            buf.push(code((word >> (i * STORED_BITS)) & 0x1f)?);
        }
    }
    let (mut acc, mut held) = (0u32, 0usize);
    for &byte in rest {
        acc |= u32::from(byte) << held;
        held += 8;
        while held >= STORED_BITS && buf.len() < dim {
            buf.push(code(u64::from(acc & ((1 << STORED_BITS) - 1)))?);
            acc >>= STORED_BITS;
            held -= STORED_BITS;
        }
    }
    (buf.len() == dim).then_some((&buf[..], f32::from_bits(bits & !PACKED)))
}

/// The dimensions a packed blob says it holds, when its length agrees.
fn packed_dim(blob: &[u8]) -> Option<usize> {
    let dim = usize::from(u16::from_le_bytes([*blob.get(4)?, *blob.get(5)?]));
    (dim > 0 && blob.len() == PACKED_HEADER + (dim * STORED_BITS).div_ceil(8)).then_some(dim)
}

/// Dimensions of a stored vector (either form); `None` when malformed.
pub fn blob_dim(blob: &[u8]) -> Option<usize> {
    if blob.len() <= SCALE_BYTES {
        return None;
    }
    if is_int8(blob) {
        return Some(blob.len() - SCALE_BYTES);
    }
    packed_dim(blob)
}

/// Appends the values a stored vector stands for (codes times scale) to
/// `out`; `None` for a malformed blob.
pub fn blob_to_vector(blob: &[u8], out: &mut Vec<f32>) -> Option<()> {
    let mut buf = Vec::new();
    let (codes, scale) = blob_to_codes(blob, &mut buf)?;
    out.extend(codes.iter().map(|&c| f32::from(c as i8) * scale));
    Some(())
}

/// A schema-7 vector blob (little-endian f32 values, a whole number of
/// them) in today's form, for [`Store::upgrade`]'s in-place conversion.
fn f32_blob_to_blob(blob: &[u8]) -> Vec<u8> {
    let v: Vec<f32> = blob
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    vector_to_blob(&v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packed vectors come back within half a step of every component;
    /// their dimensions are read from the header; an int8 blob of an
    /// older index reads as before; truncated, padded or out-of-range
    /// packed blobs are malformed, never shorter vectors.
    #[test]
    fn packed_vectors_round_trip_and_older_blobs_still_read() {
        for dim in [1usize, 2, 7, 8, 255, 256, 384] {
            let v: Vec<f32> = (0..dim)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) / 61.0)
                .collect();
            let blob = vector_to_blob(&v);
            assert_eq!(
                blob.len(),
                PACKED_HEADER + (dim * 5).div_ceil(8),
                "dim {dim}"
            );
            assert_eq!(blob_dim(&blob), Some(dim));
            let mut back = Vec::new();
            blob_to_vector(&blob, &mut back).expect("decodes");
            let max = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
            let step = max / STORED_LEVELS;
            for (a, b) in v.iter().zip(&back) {
                assert!((a - b).abs() <= step / 2.0 + 1e-6, "dim {dim}: {a} vs {b}");
            }
            // Malformed: one byte short, one too many, a code of 31.
            let mut buf = Vec::new();
            assert!(blob_to_codes(&blob[..blob.len() - 1], &mut buf).is_none());
            let mut longer = blob.clone();
            longer.push(0);
            assert!(blob_to_codes(&longer, &mut buf).is_none());
            let mut bad = blob.clone();
            bad[PACKED_HEADER] |= 0x1f;
            assert!(blob_to_codes(&bad, &mut buf).is_none());
        }
        let zero = vector_to_blob(&[0.0, 0.0, 0.0]);
        let mut back = Vec::new();
        blob_to_vector(&zero, &mut back).expect("decodes");
        assert_eq!(back, [0.0, 0.0, 0.0]);
        // The int8 form (schemas 8 to 12).
        let old = int8_blob(&[0.5, -1.0, 0.25]);
        assert_eq!(blob_dim(&old), Some(3));
        let mut back = Vec::new();
        blob_to_vector(&old, &mut back).expect("decodes");
        assert_eq!(back.len(), 3);
        assert!((back[1] + 1.0).abs() < 1e-6);
        assert_eq!(blob_dim(&[1, 2, 3]), None);
    }
}
