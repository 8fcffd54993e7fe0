//! The schema of the index: tables and indexes (DDL), the version stored in
//! `PRAGMA user_version`, and the steps that create, upgrade (by rebuilding)
//! and bulk-load it.
//!
//! Schema changelog (bump [`SCHEMA_VERSION`] on every change; a mismatch
//! means a rebuild, announced, never a crash):
//! - 1: files, symbols, refs, chunks, chunks_fts (porter + unicode61,
//!   contentless with delete support), meta.
//! - 2: `chunks.embed_key` (xxh3 of path, symbol and text: what the
//!   embedding of a chunk depends on) and `embeddings(model, key, dim,
//!   vector)`, keyed by content so unchanged chunks are never re-embedded
//!   and vectors of different models never mix.
//! - 3: no table change; rows change: C#, Kotlin, PHP, Swift, Scala, Lua,
//!   Bash (also extension-less scripts named by a `#!` or Emacs mode line), Elixir, Haskell and Zig files
//!   get their own `files.lang` with symbols, references and symbol-aligned
//!   chunks, and other code in a language the line heuristic knows (Perl,
//!   R, Dart, …) gets symbols and chunks along them.
//! - 4 (development only), 5: `refs.qualifier` (the receiver or path written before the name:
//!   `self`, `session`, `Kind`) and `refs.scope` (the symbol path of the
//!   innermost enclosing function or type), what qualified references and
//!   the call graph resolve with.
//!   Also the imports table (`file_id`, `module` as written, `name`, `alias`,
//!   `line`, `kind`, and `key`: the name under which the imported file is
//!   looked up for "which files import this one", see `imports::row_key`).
//! - 6: no table change; rows change: JavaScript/TypeScript export aliases
//!   (`export { stringType as string }`) are definitions (kind `constant`)
//!   of the exported name, which call results are typed through.
//! - 7: trigram postings for index-accelerated keyword search:
//!   `ngram_docs(doc, path, size, mtime_ns, indexed_at_ns, covered)` (the
//!   file versions the postings describe; `covered = 0` for files kept out,
//!   binary, UTF-16 or too large, which keyword search always reads) and
//!   `ngram_postings(gram, docs)` (one row per trigram, the gram as rowid:
//!   ascending doc ids as LEB128 gaps, so new docs are appended; a rowid
//!   table measured 30% smaller than `WITHOUT ROWID` on Django).
//!   Later, without a version change (an index opened by a newer binary
//!   gains them, an older binary reads them right): pending doc rows
//!   (`covered = 0`, size -1: changed files a run left unmerged), the
//!   partial index `ngram_docs_uncovered`, and meta `ngram_max_size` (the
//!   coverage limit, at least 64 MiB; another one rebuilds the postings).

use super::Store;

pub const SCHEMA_VERSION: i64 = 7;

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
    col INTEGER NOT NULL,
    qualifier TEXT,
    scope TEXT
);
CREATE INDEX IF NOT EXISTS refs_name ON refs(name);
CREATE INDEX IF NOT EXISTS refs_file ON refs(file_id);
CREATE TABLE IF NOT EXISTS imports (
    file_id INTEGER NOT NULL,
    module TEXT NOT NULL,
    name TEXT,
    alias TEXT,
    line INTEGER NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS imports_file ON imports(file_id);
CREATE INDEX IF NOT EXISTS imports_key ON imports(key);
CREATE INDEX IF NOT EXISTS imports_name ON imports(name);
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
CREATE TABLE IF NOT EXISTS ngram_docs (
    doc INTEGER PRIMARY KEY,
    path TEXT NOT NULL UNIQUE,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    indexed_at_ns INTEGER NOT NULL,
    covered INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS ngram_docs_uncovered ON ngram_docs(doc) WHERE covered = 0;
CREATE TABLE IF NOT EXISTS ngram_postings (
    gram INTEGER PRIMARY KEY,
    docs BLOB NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
    body, symbol, path,
    content='', contentless_delete=1,
    tokenize='porter unicode61 remove_diacritics 2'
);
"#;

/// Indexes that only speed up lookups (dropped during bulk loads).
const SECONDARY_INDEXES: [&str; 10] = [
    "ngram_docs_uncovered",
    "symbols_name",
    "symbols_name_nocase",
    "symbols_file",
    "refs_name",
    "refs_file",
    "imports_file",
    "imports_key",
    "imports_name",
    "chunks_file",
];

impl Store {
    /// `PRAGMA quick_check`: an error (one [`super::is_damaged`] sees) when
    /// SQLite finds the file damaged. Reads the whole file: for repairs
    /// (`Service::repair`), not for every open.
    pub fn quick_check(&self) -> rusqlite::Result<()> {
        let first: String = self
            .conn
            .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))?;
        if first == "ok" {
            Ok(())
        } else {
            Err(rusqlite::Error::SqliteFailure(
                rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
                Some(first),
            ))
        }
    }

    pub(super) fn user_version(&self) -> rusqlite::Result<i64> {
        self.conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
    }

    /// Creates the schema when new (`version` 0) or rebuilt, and re-creates
    /// indexes a killed bulk load left out. The version is set only after the
    /// tables exist, in the same transaction, so a reader never sees the
    /// current version without its tables. Nothing is written when all is
    /// in place.
    pub(super) fn ensure_schema(&self, version: i64) -> rusqlite::Result<()> {
        let indexes: i64 = self.conn.query_row(
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
        )?;
        if version != SCHEMA_VERSION || indexes != SECONDARY_INDEXES.len() as i64 {
            self.conn.execute_batch(&format!(
                "BEGIN; {SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;"
            ))?;
        }
        Ok(())
    }

    pub(super) fn drop_all(&self) -> rusqlite::Result<()> {
        self.conn.execute_batch(
            "DROP TABLE IF EXISTS ngram_postings; DROP TABLE IF EXISTS ngram_docs; DROP TABLE IF EXISTS embeddings; DROP TABLE IF EXISTS chunks_fts; DROP TABLE IF EXISTS chunks; DROP TABLE IF EXISTS refs; DROP TABLE IF EXISTS imports;
             DROP TABLE IF EXISTS symbols; DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS meta;",
        )
    }

    /// Drops the lookup indexes of symbols, refs, imports and chunks before a bulk
    /// load; [`Store::create_indexes`] builds them again.
    pub(super) fn drop_secondary_indexes(&self) -> rusqlite::Result<()> {
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
}
