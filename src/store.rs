//! Owns the on-disk index: `.repo_search/index.db` (SQLite, WAL) and every
//! SQL statement in the crate. Does not walk, parse or rank (that is `index`,
//! `extract` and `search`): it stores what it is given and answers lookups.
//!
//! **Invariant**: all rows of one file (its `files` row, symbols, refs,
//! chunks and FTS entries) are written in the same transaction, so a reader
//! or a writer killed at any moment sees each file either fully old or fully
//! new.
//!
//! Schema changelog (bump [`SCHEMA_VERSION`] on every change; a mismatch
//! means a rebuild, announced, never a crash):
//! - 1: files, symbols, refs, chunks, chunks_fts (porter + unicode61,
//!   contentless with delete support), meta.
//! - 2: `chunks.embed_key` (xxh3 of path, symbol and text: what the
//!   embedding of a chunk depends on) and `embeddings(model, key, dim,
//!   vector)`, keyed by content so unchanged chunks are never re-embedded
//!   and vectors of different models never mix.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::error::{ErrorCode, UserError};
use crate::model::{Extracted, Lang};

pub const SCHEMA_VERSION: i64 = 2;
pub const INDEX_DIR: &str = ".repo_search";
pub const DB_FILE: &str = "index.db";

/// Where a project's index lives.
pub fn index_dir(root: &Path) -> PathBuf {
    root.join(INDEX_DIR)
}

pub fn db_path(root: &Path) -> PathBuf {
    index_dir(root).join(DB_FILE)
}

const SCHEMA: &str = r#"
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    id INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    lang TEXT,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    hash INTEGER NOT NULL,
    indexed_at_ns INTEGER NOT NULL,
    skip_reason TEXT
);
CREATE TABLE IF NOT EXISTS symbols (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    container TEXT,
    signature TEXT NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    name_line INTEGER NOT NULL,
    name_col INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name);
CREATE INDEX IF NOT EXISTS symbols_name_nocase ON symbols(name COLLATE NOCASE);
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file_id);
CREATE TABLE IF NOT EXISTS refs (
    file_id INTEGER NOT NULL,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    line INTEGER NOT NULL,
    col INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS refs_name ON refs(name);
CREATE INDEX IF NOT EXISTS refs_file ON refs(file_id);
CREATE TABLE IF NOT EXISTS chunks (
    id INTEGER PRIMARY KEY,
    file_id INTEGER NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    symbol TEXT,
    kind TEXT,
    text TEXT NOT NULL,
    hash INTEGER NOT NULL,
    embed_key INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id);
CREATE INDEX IF NOT EXISTS chunks_embed_key ON chunks(embed_key);
CREATE TABLE IF NOT EXISTS embeddings (
    id INTEGER PRIMARY KEY,
    model TEXT NOT NULL,
    key INTEGER NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS embeddings_model_key ON embeddings(model, key);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    body, symbol, path,
    content='', contentless_delete=1,
    tokenize='porter unicode61 remove_diacritics 2'
);
"#;

/// Indexes that only speed up lookups (dropped during bulk loads).
const SECONDARY_INDEXES: [&str; 6] = [
    "symbols_name",
    "symbols_name_nocase",
    "symbols_file",
    "refs_name",
    "refs_file",
    "chunks_file",
];

/// What the store remembers about an indexed (or skipped) file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRecord {
    pub id: i64,
    pub size: u64,
    pub mtime_ns: i64,
    pub hash: u64,
    pub indexed_at_ns: i64,
    pub skip_reason: Option<String>,
}

/// A file's new content, ready to be written.
pub struct FileUpdate<'a> {
    pub path: &'a str,
    pub lang: Option<Lang>,
    pub size: u64,
    pub mtime_ns: i64,
    pub hash: u64,
    pub skip_reason: Option<&'a str>,
    pub extracted: &'a Extracted,
    /// Chunk hashes and FTS text computed ahead (see [`prepare_chunks`]);
    /// computed here when absent.
    pub prepared: Option<&'a [PreparedChunk]>,
}

/// What the writer stores for a chunk beyond the chunk itself: hashes and
/// the text given to the full-text index. Computed by [`prepare_chunks`],
/// which indexing workers call in parallel so the single writer thread only
/// writes.
#[derive(Debug, Clone)]
pub struct PreparedChunk {
    pub hash: u64,
    pub embed_key: u64,
    pub body: String,
    pub symbol_terms: String,
}

pub fn prepare_chunks(path: &str, chunks: &[crate::model::Chunk]) -> Vec<PreparedChunk> {
    chunks
        .iter()
        .map(|c| PreparedChunk {
            hash: xxhash_rust::xxh3::xxh3_64(c.text.as_bytes()),
            embed_key: embed_key(path, c.symbol.as_deref(), &c.text),
            body: crate::text::expand_identifiers(&c.text),
            symbol_terms: c
                .symbol
                .as_deref()
                .map(crate::text::expand_identifiers)
                .unwrap_or_default(),
        })
        .collect()
}

/// Counts shown by `status` and the index summary.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub files: u64,
    pub skipped: u64,
    pub symbols: u64,
    pub refs: u64,
    pub chunks: u64,
}

/// The open index. Writers get one from [`Store::open_rw`] (the caller holds
/// the writer lock); readers from [`Store::open_ro`].
pub struct Store {
    conn: Connection,
    read_only: bool,
}

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
        let dir = index_dir(root);
        std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create `{}`", dir.display()))?;
        let db = db_path(root);
        let conn = Connection::open(&db).map_err(|e| explain(e, &db))?;
        let store = Store {
            conn,
            read_only: false,
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
        // Creates the schema when new or rebuilt, and re-creates indexes a
        // killed bulk load left out. The version is set only after the
        // tables exist, in the same transaction, so a reader never sees the
        // current version without its tables. Nothing is written when all is
        // in place.
        let indexes: i64 = store
            .conn
            .query_row(
                &format!(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name IN ({})",
                    SECONDARY_INDEXES
                        .iter()
                        .map(|n| format!("'{n}'"))
                        .collect::<Vec<_>>()
                        .join(",")
                ),
                [],
                |r| r.get(0),
            )
            .map_err(|e| explain(e, &db))?;
        if version != SCHEMA_VERSION || indexes != SECONDARY_INDEXES.len() as i64 {
            store
                .conn
                .execute_batch(&format!(
                    "BEGIN; {SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
                ))
                .map_err(|e| explain(e, &db))?;
        }
        Ok(store)
    }

    /// Opens an existing index read-only. Returns `Ok(None)` when there is no
    /// index yet.
    pub fn open_ro(root: &Path) -> Result<Option<Store>> {
        let db = db_path(root);
        if !db.exists() {
            return Ok(None);
        }
        let conn = Connection::open_with_flags(
            &db,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| explain(e, &db))?;
        let store = Store {
            conn,
            read_only: true,
        };
        store
            .conn
            .busy_timeout(Duration::from_secs(5))
            .map_err(|e| explain(e, &db))?;
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

    fn configure(&self) -> rusqlite::Result<()> {
        self.conn.busy_timeout(Duration::from_secs(30))?;
        self.conn.pragma_update(None, "journal_mode", "WAL")?;
        self.conn.pragma_update(None, "synchronous", "NORMAL")?;
        self.conn.pragma_update(None, "temp_store", "MEMORY")?;
        self.conn.pragma_update(None, "cache_size", -65536)?;
        Ok(())
    }

    fn user_version(&self) -> rusqlite::Result<i64> {
        self.conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
    }

    fn drop_all(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch(
            "DROP TABLE IF EXISTS embeddings; DROP TABLE IF EXISTS chunks_fts; DROP TABLE IF EXISTS chunks; DROP TABLE IF EXISTS refs;
             DROP TABLE IF EXISTS symbols; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS meta;",
        )
    }

    /// Drops the lookup indexes of symbols, refs and chunks before a bulk
    /// load; [`Store::create_indexes`] builds them again.
    pub fn drop_secondary_indexes(&self) -> rusqlite::Result<()> {
        for name in SECONDARY_INDEXES {
            self.conn
                .execute_batch(&format!("DROP INDEX IF EXISTS {name}"))?;
        }
        Ok(())
    }

    /// Creates every missing table and index of the current schema.
    pub fn create_indexes(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch(SCHEMA)
    }

    /// The raw connection, for the search modules' read queries.
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    pub fn is_read_only(&self) -> bool {
        self.read_only
    }

    /// A quick structural check (`PRAGMA quick_check`), for `index` to detect
    /// corruption before trusting the incremental state.
    pub fn quick_check(&self) -> rusqlite::Result<bool> {
        let v: String = self
            .conn
            .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))?;
        Ok(v == "ok")
    }

    /// Every known file, keyed by root-relative path.
    pub fn file_records(&self) -> rusqlite::Result<HashMap<String, FileRecord>> {
        let mut stmt = self.conn.prepare(
            "SELECT id, path, size, mtime_ns, hash, indexed_at_ns, skip_reason FROM files",
        )?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(1)?,
                FileRecord {
                    id: r.get(0)?,
                    size: r.get::<_, i64>(2)? as u64,
                    mtime_ns: r.get(3)?,
                    hash: r.get::<_, i64>(4)? as u64,
                    indexed_at_ns: r.get(5)?,
                    skip_reason: r.get(6)?,
                },
            ))
        })?;
        rows.collect()
    }

    pub fn begin(&mut self) -> rusqlite::Result<rusqlite::Transaction<'_>> {
        self.conn.transaction()
    }

    pub fn get_meta(&self, key: &str) -> rusqlite::Result<Option<String>> {
        self.conn
            .query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
            .optional()
    }

    pub fn counts(&self) -> rusqlite::Result<Counts> {
        let one = |sql: &str| -> rusqlite::Result<u64> {
            self.conn
                .query_row(sql, [], |r| r.get::<_, i64>(0))
                .map(|v| v as u64)
        };
        Ok(Counts {
            files: one("SELECT count(*) FROM files WHERE skip_reason IS NULL")?,
            skipped: one("SELECT count(*) FROM files WHERE skip_reason IS NOT NULL")?,
            symbols: one("SELECT count(*) FROM symbols")?,
            refs: one("SELECT count(*) FROM refs")?,
            chunks: one("SELECT count(*) FROM chunks")?,
        })
    }

    /// Skip reasons summarised as (reason kind, count, example paths).
    pub fn skipped_summary(&self, examples: usize) -> rusqlite::Result<Vec<SkipSummary>> {
        let mut stmt = self.conn.prepare(
            "SELECT path, skip_reason FROM files WHERE skip_reason IS NOT NULL ORDER BY path",
        )?;
        let mut by_kind: Vec<SkipSummary> = Vec::new();
        let rows = stmt.query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?)))?;
        for row in rows {
            let (path, reason) = row?;
            let kind = reason
                .split(':')
                .next()
                .unwrap_or(&reason)
                .trim()
                .to_string();
            match by_kind.iter_mut().find(|s| s.reason == kind) {
                Some(s) => {
                    s.count += 1;
                    if s.examples.len() < examples {
                        s.examples.push(format!("{path} ({reason})"));
                    }
                }
                None => by_kind.push(SkipSummary {
                    reason: kind,
                    count: 1,
                    examples: if examples > 0 {
                        vec![format!("{path} ({reason})")]
                    } else {
                        vec![]
                    },
                }),
            }
        }
        by_kind.sort_by(|a, b| b.count.cmp(&a.count).then(a.reason.cmp(&b.reason)));
        Ok(by_kind)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SkipSummary {
    pub reason: String,
    pub count: u64,
    pub examples: Vec<String>,
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

/// Writes inside one transaction. Every method keeps a file's rows together.
pub struct Writer<'t> {
    tx: &'t rusqlite::Transaction<'t>,
}

impl<'t> Writer<'t> {
    pub fn new(tx: &'t rusqlite::Transaction<'t>) -> Writer<'t> {
        Writer { tx }
    }

    /// Removes every row that belongs to a file (not the `files` row itself).
    fn clear_file_rows(&self, file_id: i64) -> rusqlite::Result<()> {
        let tx = self.tx;
        tx.prepare_cached(
            "DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE file_id = ?1)",
        )?
        .execute([file_id])?;
        tx.prepare_cached("DELETE FROM chunks WHERE file_id = ?1")?
            .execute([file_id])?;
        tx.prepare_cached("DELETE FROM symbols WHERE file_id = ?1")?
            .execute([file_id])?;
        tx.prepare_cached("DELETE FROM refs WHERE file_id = ?1")?
            .execute([file_id])?;
        Ok(())
    }

    /// Deletes a file and all its rows.
    pub fn delete_file(&self, file_id: i64) -> rusqlite::Result<()> {
        self.clear_file_rows(file_id)?;
        self.tx
            .prepare_cached("DELETE FROM files WHERE id = ?1")?
            .execute([file_id])?;
        Ok(())
    }

    /// Records that an unchanged file was re-checked (mtime moved, content not).
    pub fn touch_file(&self, file_id: i64, mtime_ns: i64, now_ns: i64) -> rusqlite::Result<()> {
        self.tx
            .prepare_cached("UPDATE files SET mtime_ns = ?2, indexed_at_ns = ?3 WHERE id = ?1")?
            .execute(params![file_id, mtime_ns, now_ns])?;
        Ok(())
    }

    /// Replaces a file's content (or inserts a new file).
    pub fn put_file(
        &self,
        existing: Option<i64>,
        u: &FileUpdate<'_>,
        now_ns: i64,
    ) -> rusqlite::Result<i64> {
        let tx = self.tx;
        let lang = u.lang.map(|l| l.name());
        let file_id = match existing {
            Some(id) => {
                self.clear_file_rows(id)?;
                tx.prepare_cached(
                    "UPDATE files SET lang = ?2, size = ?3, mtime_ns = ?4, hash = ?5,
                     indexed_at_ns = ?6, skip_reason = ?7 WHERE id = ?1",
                )?
                .execute(params![
                    id,
                    lang,
                    u.size as i64,
                    u.mtime_ns,
                    u.hash as i64,
                    now_ns,
                    u.skip_reason
                ])?;
                id
            }
            None => {
                tx.prepare_cached(
                    "INSERT INTO files (path, lang, size, mtime_ns, hash, indexed_at_ns, skip_reason)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                )?
                .execute(params![
                    u.path,
                    lang,
                    u.size as i64,
                    u.mtime_ns,
                    u.hash as i64,
                    now_ns,
                    u.skip_reason
                ])?;
                tx.last_insert_rowid()
            }
        };
        let mut sym = tx.prepare_cached(
            "INSERT INTO symbols (file_id, name, kind, container, signature, start_line, end_line, name_line, name_col)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        for s in &u.extracted.symbols {
            sym.execute(params![
                file_id,
                s.name,
                s.kind,
                s.container,
                s.signature,
                s.start_line,
                s.end_line,
                s.name_line,
                s.name_column
            ])?;
        }
        let mut rf = tx.prepare_cached(
            "INSERT INTO refs (file_id, name, kind, line, col) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?;
        for r in &u.extracted.refs {
            rf.execute(params![file_id, r.name, r.kind, r.line, r.column])?;
        }
        let mut ch = tx.prepare_cached(
            "INSERT INTO chunks (file_id, start_line, end_line, symbol, kind, text, hash, embed_key)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?;
        let mut fts = tx.prepare_cached(
            "INSERT INTO chunks_fts (rowid, body, symbol, path) VALUES (?1, ?2, ?3, ?4)",
        )?;
        let owned;
        let prepared = match u.prepared {
            Some(p) if p.len() == u.extracted.chunks.len() => p,
            _ => {
                owned = prepare_chunks(u.path, &u.extracted.chunks);
                &owned[..]
            }
        };
        let path_terms = crate::text::path_terms(u.path);
        for (c, p) in u.extracted.chunks.iter().zip(prepared) {
            ch.execute(params![
                file_id,
                c.start_line,
                c.end_line,
                c.symbol,
                c.kind,
                c.text,
                p.hash as i64,
                p.embed_key as i64
            ])?;
            let id = tx.last_insert_rowid();
            fts.execute(params![id, p.body, p.symbol_terms, path_terms])?;
        }
        Ok(file_id)
    }

    /// Stores vectors computed by `model` for the given embedding keys.
    /// A key stored twice keeps the newer vector.
    pub fn put_embeddings(&self, model: &str, vectors: &[(u64, &[f32])]) -> rusqlite::Result<()> {
        let mut stmt = self.tx.prepare_cached(
            "INSERT INTO embeddings (model, key, dim, vector) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT(model, key) DO UPDATE SET dim = excluded.dim, vector = excluded.vector",
        )?;
        for (key, v) in vectors {
            stmt.execute(params![
                model,
                *key as i64,
                v.len() as i64,
                vector_to_blob(v)
            ])?;
        }
        Ok(())
    }

    /// Deletes vectors no chunk refers to any more and, with `keep_only`,
    /// every vector of a model not in it. Returns the number of rows deleted.
    pub fn prune_embeddings(&self, keep_only: Option<&[&str]>) -> rusqlite::Result<usize> {
        let mut n = self.tx.execute(
            "DELETE FROM embeddings WHERE key NOT IN (SELECT embed_key FROM chunks)",
            [],
        )?;
        let models: Vec<String> = {
            let mut stmt = self.tx.prepare("SELECT DISTINCT model FROM embeddings")?;
            stmt.query_map([], |r| r.get(0))?
                .collect::<rusqlite::Result<_>>()?
        };
        let Some(keep) = keep_only else { return Ok(n) };
        for m in models.iter().filter(|m| !keep.contains(&m.as_str())) {
            n += self
                .tx
                .execute("DELETE FROM embeddings WHERE model = ?1", [m])?;
        }
        Ok(n)
    }

    pub fn set_meta(&self, key: &str, value: &str) -> rusqlite::Result<()> {
        self.tx
            .prepare_cached("INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value")?
            .execute([key, value])?;
        Ok(())
    }
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

/// A chunk that needs a vector from some model.
#[derive(Debug, Clone)]
pub struct PendingChunk {
    pub key: u64,
    pub chunk_id: i64,
    /// Bytes of text (a cheap proxy for tokens, to sort batches by length).
    pub len: usize,
}

/// A chunk's text and context, as the embedder sees it.
#[derive(Debug, Clone)]
pub struct ChunkText {
    pub chunk_id: i64,
    pub key: u64,
    pub path: String,
    pub symbol: Option<String>,
    pub kind: Option<String>,
    pub text: String,
}

/// A chunk's location, for rendering hits.
#[derive(Debug, Clone)]
pub struct ChunkRow {
    pub chunk_id: i64,
    pub path: String,
    pub lang: String,
    pub start_line: u32,
    pub end_line: u32,
    pub symbol: Option<String>,
    pub kind: Option<String>,
    pub text: String,
    pub key: u64,
}

/// One row of a vector scan: chunk id, file id and the vector bytes.
pub struct VectorRow<'a> {
    pub chunk_id: i64,
    pub file_id: i64,
    pub blob: &'a [u8],
}

impl Store {
    /// Chunks with no vector from `model` yet, one per distinct key.
    pub fn pending_embeddings(&self, model: &str) -> rusqlite::Result<Vec<PendingChunk>> {
        let mut stmt = self.conn.prepare(
            "SELECT c.embed_key, min(c.id), length(c.text) FROM chunks c
             WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ?1 AND e.key = c.embed_key)
             GROUP BY c.embed_key",
        )?;
        let rows = stmt.query_map([model], |r| {
            Ok(PendingChunk {
                key: r.get::<_, i64>(0)? as u64,
                chunk_id: r.get(1)?,
                len: r.get::<_, i64>(2)?.max(0) as usize,
            })
        })?;
        rows.collect()
    }

    /// The text and context of the given chunks (missing ids are left out).
    pub fn chunk_texts(&self, ids: &[i64]) -> rusqlite::Result<Vec<ChunkText>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT c.id, c.embed_key, f.path, c.symbol, c.kind, c.text
             FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id = ?1",
        )?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let row = stmt
                .query_row([id], |r| {
                    Ok(ChunkText {
                        chunk_id: r.get(0)?,
                        key: r.get::<_, i64>(1)? as u64,
                        path: r.get(2)?,
                        symbol: r.get(3)?,
                        kind: r.get(4)?,
                        text: r.get(5)?,
                    })
                })
                .optional()?;
            out.extend(row);
        }
        Ok(out)
    }

    /// Chunks in the index, and how many of them have a vector from `model`.
    pub fn embedding_coverage(&self, model: &str) -> rusqlite::Result<(u64, u64)> {
        let total: i64 = self
            .conn
            .query_row("SELECT count(*) FROM chunks", [], |r| r.get(0))?;
        let embedded: i64 = self.conn.query_row(
            "SELECT count(*) FROM chunks c
             WHERE EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ?1 AND e.key = c.embed_key)",
            [model],
            |r| r.get(0),
        )?;
        Ok((embedded as u64, total as u64))
    }

    /// Every model with stored vectors, and how many vectors each has.
    pub fn embedding_models(&self) -> rusqlite::Result<Vec<(String, u64)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT model, count(*) FROM embeddings GROUP BY model ORDER BY model")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))?;
        rows.collect()
    }

    /// Calls `f` for every chunk that has a vector from `model`, in chunk
    /// id order.
    pub fn scan_vectors(
        &self,
        model: &str,
        mut f: impl FnMut(VectorRow<'_>),
    ) -> rusqlite::Result<()> {
        let mut stmt = self.conn.prepare(
            "SELECT c.id, c.file_id, e.vector FROM chunks c
             JOIN embeddings e ON e.model = ?1 AND e.key = c.embed_key ORDER BY c.id",
        )?;
        let mut rows = stmt.query([model])?;
        while let Some(r) = rows.next()? {
            let blob = r.get_ref(2)?.as_blob().map_err(rusqlite::Error::from)?;
            f(VectorRow {
                chunk_id: r.get(0)?,
                file_id: r.get(1)?,
                blob,
            });
        }
        Ok(())
    }

    /// Path and language of every file, by id.
    pub fn file_paths(&self) -> rusqlite::Result<HashMap<i64, (String, String)>> {
        let mut stmt = self
            .conn
            .prepare("SELECT id, path, coalesce(lang, '') FROM files")?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?))))?;
        rows.collect()
    }

    /// The stored vector of `key` from `model`, if any.
    pub fn vector(&self, model: &str, key: u64) -> rusqlite::Result<Option<Vec<f32>>> {
        let blob: Option<Vec<u8>> = self
            .conn
            .query_row(
                "SELECT vector FROM embeddings WHERE model = ?1 AND key = ?2",
                params![model, key as i64],
                |r| r.get(0),
            )
            .optional()?;
        Ok(blob.and_then(|b| {
            let mut v = Vec::with_capacity(b.len() / 4);
            blob_to_vector(&b, &mut v).map(|_| v)
        }))
    }

    /// Location and text of one chunk.
    pub fn chunk_row(&self, chunk_id: i64) -> rusqlite::Result<Option<ChunkRow>> {
        self.conn
            .prepare_cached(
                "SELECT c.id, f.path, coalesce(f.lang, ''), c.start_line, c.end_line, c.symbol, c.kind, c.text, c.embed_key
                 FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id = ?1",
            )?
            .query_row([chunk_id], chunk_row)
            .optional()
    }

    /// The chunks of `path` that contain `line`, smallest first.
    pub fn chunks_at(&self, path: &str, line: u32) -> rusqlite::Result<Vec<ChunkRow>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT c.id, f.path, coalesce(f.lang, ''), c.start_line, c.end_line, c.symbol, c.kind, c.text, c.embed_key
             FROM chunks c JOIN files f ON f.id = c.file_id
             WHERE f.path = ?1 AND c.start_line <= ?2 AND c.end_line >= ?2
             ORDER BY c.end_line - c.start_line, c.start_line",
        )?;
        let rows = stmt.query_map(params![path, line], chunk_row)?;
        rows.collect()
    }
}

fn chunk_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ChunkRow> {
    Ok(ChunkRow {
        chunk_id: r.get(0)?,
        path: r.get(1)?,
        lang: r.get(2)?,
        start_line: r.get(3)?,
        end_line: r.get(4)?,
        symbol: r.get(5)?,
        kind: r.get(6)?,
        text: r.get(7)?,
        key: r.get::<_, i64>(8)? as u64,
    })
}
