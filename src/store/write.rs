//! Writes to the index: [`Writer`] does every change inside one transaction
//! and keeps each file's rows together; chunk preparation
//! ([`prepare_chunks`]) runs ahead on the indexing workers.

use std::path::Path;

use rusqlite::{OptionalExtension, params};

use super::{Store, embed_key, meta, packed, vector_to_blob};
use crate::model::{Extracted, Lang};

/// A file's definitions and references in their stored form
/// (`store::packed`, deflated when long): encoded and compressed on the
/// indexing workers, not by the one writer.
pub struct PackedRows {
    symbols: Vec<u8>,
    refs: Vec<u8>,
}

/// Packs a file's definitions and references; `line_signatures[i]` says
/// symbol `i`'s signature is its name's line, which the index keeps as a
/// position and reads back from the file (`source::line_signatures`); all
/// signatures are stored when it is `None`.
pub fn pack_rows(extracted: &Extracted, line_signatures: Option<&[bool]>) -> PackedRows {
    let line_signature = |i: usize| line_signatures.and_then(|l| l.get(i)) == Some(&true);
    PackedRows {
        symbols: packed::deflate(packed::encode_symbols(&extracted.symbols, &line_signature)),
        refs: packed::deflate(packed::encode_refs(&extracted.refs)),
    }
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
    /// The definitions and references in their stored form, packed ahead
    /// (see [`pack_rows`]); packed here, every signature stored, when
    /// absent.
    pub packed: Option<&'a PackedRows>,
}

#[cfg(test)]
impl<'a> FileUpdate<'a> {
    /// A file with these rows, for the store's own tests (size, mtime and
    /// hash 1, nothing skipped, chunks prepared by the writer).
    pub(super) fn for_test(path: &'a str, lang: Lang, extracted: &'a Extracted) -> FileUpdate<'a> {
        FileUpdate {
            path,
            lang: Some(lang),
            size: 1,
            mtime_ns: 1,
            hash: 1,
            skip_reason: None,
            extracted,
            prepared: None,
            packed: None,
        }
    }
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
        .map(|c| {
            let text = crate::text::indexed_text(&c.text, c.start_byte as u64);
            PreparedChunk {
                hash: xxhash_rust::xxh3::xxh3_64(c.text.as_bytes()),
                embed_key: embed_key(path, c.symbol.as_deref(), &text),
                body: crate::text::expand_identifiers(&text),
                symbol_terms: c
                    .symbol
                    .as_deref()
                    .map(crate::text::symbol_terms)
                    .unwrap_or_default(),
            }
        })
        .collect()
}

impl Store {
    /// Starts a write transaction. Nothing is visible to readers until
    /// [`Writer::commit`]; a writer dropped without it rolls back.
    pub fn begin(&mut self) -> rusqlite::Result<Writer<'_>> {
        Ok(Writer {
            tx: self.conn.transaction()?,
            fts_deleted: std::cell::Cell::new(0),
            fts_written: std::cell::Cell::new(false),
        })
    }

    /// Whether the full-text index's tombstones of deleted rows
    /// ([`meta::FTS_DELETED`]) call for a merge `when`: 1% of the chunks or
    /// more (at least 1,000); on a large index ([`super::LARGE_INDEX_CHUNKS`])
    /// the same in the background ([`FtsMerge::Idle`]) and 10% in an index
    /// run ([`FtsMerge::Run`]). Tombstones cost the queries that visit them;
    /// a merge drops them. On the kernel a 1,000-file change deletes 30k
    /// rows (2.3%); after one such change and its revert (60k, 4.7%) the
    /// BM25 arm's queries took 60-355 ms against 10-44 ms once merged (the
    /// same FTS5 queries on a copy of the index), so a watching daemon
    /// merges from 1% while the tree is quiet (30-60 s of background work
    /// on the kernel).
    pub fn fts_merge_due(&self, when: FtsMerge) -> rusqlite::Result<bool> {
        let deleted = self.meta_u64(meta::FTS_DELETED)?;
        if deleted < 1000 {
            return Ok(false);
        }
        // Counted, not the largest id: ids only grow, and on the kernel
        // five 1,000-file changes moved it from 1.29 M to 1.86 M, which
        // would have moved the threshold with it (7 ms).
        let chunks = self.chunk_count()?;
        let percent = match (chunks >= super::LARGE_INDEX_CHUNKS, when) {
            (true, FtsMerge::Run) => 10,
            _ => 1,
        };
        Ok(deleted >= (chunks * percent / 100).max(1000))
    }

    /// Merges the full-text index whole ('optimize') when an index run
    /// should ([`Store::fts_merge_due`] with [`FtsMerge::Run`]). Answers
    /// whether it merged. In one go: an incremental merge in steps across
    /// runs made the runs between pay for it through automerge (8 s -> 33 s
    /// for 1,000 kernel files) and the queries slower meanwhile. On Django
    /// it takes about a second, on the kernel 13-60 s: a watching daemon
    /// merges a large index earlier, in steps while nothing else writes
    /// ([`Store::merge_fts_step`]).
    pub fn merge_fts(&self) -> rusqlite::Result<bool> {
        if !self.fts_merge_due(FtsMerge::Run)? {
            return Ok(false);
        }
        let deleted = self.meta_u64(meta::FTS_DELETED)?;
        let started = std::time::Instant::now();
        let tx = self.conn.unchecked_transaction()?;
        optimize_fts(&tx)?;
        tx.commit()?;
        tracing::debug!(
            deleted,
            seconds = started.elapsed().as_secs_f64(),
            "full-text index merged whole"
        );
        Ok(true)
    }

    /// One step of merging the full-text index whole, in its own
    /// transaction: FTS5's 'merge' with a negative budget, which merges
    /// every segment into one (as 'optimize' does, dropping tombstones),
    /// writing about `pages` pages per step (on the kernel 2,000 pages take
    /// 0.3-0.8 s). Answers whether work remains; once none does, the
    /// tombstone count is zero again. The caller holds the writer lock.
    ///
    /// While work remains FTS5's automerge is off: an index run in between
    /// would otherwise carry the half-done merge on, and FTS5 finishes the
    /// doclist of a term it starts (a common word's runs to megabytes), so
    /// a one-file save on the kernel took 6 s instead of 0.3-0.6 s. Its
    /// crisis merges still bound the small segments those runs add; the
    /// merge's end (or a whole one, `optimize_fts`) turns automerge back on.
    pub fn merge_fts_step(&self, pages: u32) -> rusqlite::Result<bool> {
        let tx = self.conn.unchecked_transaction()?;
        let before = tx.total_changes();
        tx.execute(
            "INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('merge', ?1)",
            [-i64::from(pages.max(1))],
        )?;
        // FTS5's own test for a finished merge: fewer than two changes.
        let more = tx.total_changes() - before >= 2;
        if more {
            set_fts_automerge(&tx, 0)?;
        } else {
            mark_fts_merged(&tx)?;
        }
        tx.commit()?;
        Ok(more)
    }

    /// Makes the index as small as it can be: drops the vectors of models
    /// not in `keep_models` and of chunks gone, merges the full-text index
    /// whole (tombstones and segments), then rewrites the file (`VACUUM`)
    /// and empties the WAL. Answers how many vectors were dropped and the
    /// models they belonged to. The caller holds the writer lock.
    pub fn compact(&self, keep_models: &[&str]) -> rusqlite::Result<(usize, Vec<String>)> {
        let dropped_models: Vec<String> = {
            let mut stmt = self.conn.prepare("SELECT name FROM models ORDER BY name")?;
            let names = stmt.query_map([], |r| r.get::<_, String>(0))?;
            names
                .filter_map(|n| n.ok())
                .filter(|n| !keep_models.contains(&n.as_str()))
                .collect()
        };
        let tx = self.conn.unchecked_transaction()?;
        let w = Writer {
            tx,
            fts_deleted: std::cell::Cell::new(0),
            fts_written: std::cell::Cell::new(false),
        };
        let dropped = w.prune_embeddings(Some(keep_models))?;
        if dropped > 0 {
            bump_vectors_generation(&w.tx)?;
        }
        optimize_fts(&w.tx)?;
        w.tx.commit()?;
        let checkpoint = || {
            self.conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        };
        checkpoint()?;
        self.conn.execute_batch("VACUUM")?;
        checkpoint()?;
        Ok((dropped, dropped_models))
    }

    /// Moves the WAL's pages into the database file and empties the WAL
    /// (a finished rebuild, before it is renamed into place).
    pub fn checkpoint(&self) -> rusqlite::Result<()> {
        self.conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
    }

    /// Copies from the index file `previous` (one a full rebuild set aside)
    /// the vectors of the chunks this index has: the text of a chunk is in
    /// its key, so a chunk whose text did not change keeps its vector and
    /// is not embedded again. Nothing is copied from a file of another
    /// schema version. Answers how many vectors were copied.
    pub fn carry_vectors(&self, previous: &Path) -> rusqlite::Result<u64> {
        let Some(path) = previous.to_str() else {
            return Ok(0);
        };
        self.conn
            .execute("ATTACH DATABASE ?1 AS previous", [path])?;
        let copied = (|| -> rusqlite::Result<u64> {
            let version: i64 = self
                .conn
                .query_row("PRAGMA previous.user_version", [], |r| r.get(0))?;
            if version != super::SCHEMA_VERSION {
                return Ok(0);
            }
            let tx = self.conn.unchecked_transaction()?;
            tx.execute(
                "INSERT INTO models (name) SELECT name FROM previous.models WHERE true
                 ON CONFLICT(name) DO NOTHING",
                [],
            )?;
            let n = tx.execute(
                "INSERT OR IGNORE INTO embeddings (model_id, key, vector)
                 SELECT m.id, e.key, e.vector FROM previous.embeddings e
                 JOIN previous.models pm ON pm.id = e.model_id
                 JOIN models m ON m.name = pm.name
                 WHERE e.key IN (SELECT embed_key FROM chunks)",
                [],
            )?;
            if n > 0 {
                bump_vectors_generation(&tx)?;
            }
            tx.commit()?;
            Ok(n as u64)
        })();
        let detached = self.conn.execute("DETACH DATABASE previous", []);
        let n = copied?;
        detached?;
        Ok(n)
    }

    /// Before a bulk load into an empty index: drops the lookup indexes of
    /// symbols, refs and chunks ([`Store::create_indexes`] builds them again
    /// at the end) and stops syncing to disk at checkpoints. A first build is
    /// rebuilt from scratch if anything goes wrong, so it need not survive a
    /// power loss (a killed process loses nothing either way, the WAL is in
    /// the OS's cache).
    pub fn start_bulk_load(&self) -> rusqlite::Result<()> {
        self.drop_secondary_indexes()?;
        // FTS5 writes its pending terms out as a new segment whenever they
        // pass `hashsize` (1 MiB by default), and merges those segments
        // again later: a bulk load's transactions hold several MiB each,
        // and on the kernel the writer thread spent 4 s less with one
        // segment per transaction. Kept in the table's config, so later
        // runs (a `git checkout`) gain too; the memory is only used while
        // a transaction holds that much.
        self.conn.execute(
            "INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('hashsize', ?1)",
            [FTS_HASH_BYTES],
        )?;
        self.conn.execute_batch("PRAGMA synchronous = OFF")
    }
}

/// Merges the full-text index into one segment, which drops the tombstones
/// counted in [`meta::FTS_DELETED`] (reset with it).
/// Tells readers the stored vectors changed (they reload their matrix and
/// recount coverage), for writes outside an embedding run.
pub(super) fn bump_vectors_generation(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO meta (key, value) VALUES (?1, '1')
         ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
        [super::meta::VECTORS_GENERATION],
    )?;
    Ok(())
}

fn optimize_fts(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')",
        [],
    )?;
    mark_fts_merged(tx)
}

/// After a whole merge: no tombstones are left to count, and FTS5 merges
/// as it writes again ([`FTS_AUTOMERGE`]; off while a merge in steps is
/// half done, see [`Store::merge_fts_step`]).
fn mark_fts_merged(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute(
        "UPDATE meta SET value = '0' WHERE key = ?1",
        [meta::FTS_DELETED],
    )?;
    set_fts_automerge(tx, FTS_AUTOMERGE)
}

/// FTS5's default 'automerge': merge 4 segments of a level as it writes.
const FTS_AUTOMERGE: i64 = 4;

fn set_fts_automerge(tx: &rusqlite::Transaction<'_>, segments: i64) -> rusqlite::Result<()> {
    tx.execute(
        "INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('automerge', ?1)",
        [segments],
    )?;
    Ok(())
}

/// Who asks whether the full-text index is due a merge
/// ([`Store::fts_merge_due`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FtsMerge {
    /// An index run, in the foreground of whoever waits for it.
    Run,
    /// A watching daemon, while the project is quiet.
    Idle,
}

/// The full-text index's pending-terms limit during bulk loads (see
/// [`Store::start_bulk_load`]).
const FTS_HASH_BYTES: i64 = 32 << 20;

/// Writes inside one transaction, from [`Store::begin`] to
/// [`Writer::commit`]. Every method keeps a file's rows together.
pub struct Writer<'c> {
    pub(super) tx: rusqlite::Transaction<'c>,
    /// Full-text rows this transaction deleted (added to
    /// [`meta::FTS_DELETED`] on commit).
    fts_deleted: std::cell::Cell<u64>,
    /// Whether this transaction inserted or deleted full-text rows (then
    /// [`meta::FTS_VERSION`] moves on commit).
    fts_written: std::cell::Cell<bool>,
}

impl Writer<'_> {
    /// Makes every write of this transaction visible at once.
    pub fn commit(self) -> rusqlite::Result<()> {
        let deleted = self.fts_deleted.get();
        if deleted > 0 {
            self.add_to_counter(meta::FTS_DELETED, deleted)?;
        }
        if self.fts_written.get() {
            self.add_to_counter(meta::FTS_VERSION, 1)?;
        }
        self.tx.commit()
    }

    /// Adds `n` to the `meta` counter `key` (from 0 when absent).
    fn add_to_counter(&self, key: &str, n: u64) -> rusqlite::Result<()> {
        self.tx
            .prepare_cached(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)
                 ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + excluded.value",
            )?
            .execute(params![key, n as i64])?;
        Ok(())
    }

    /// Removes every row that belongs to a file (not the `files` row itself).
    fn clear_file_rows(&self, file_id: i64) -> rusqlite::Result<()> {
        let tx = &self.tx;
        tx.prepare_cached(
            "DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE file_id = ?1)",
        )?
        .execute([file_id])?;
        let chunks = tx
            .prepare_cached("DELETE FROM chunks WHERE file_id = ?1")?
            .execute([file_id])?;
        self.fts_deleted.set(self.fts_deleted.get() + chunks as u64);
        if chunks > 0 {
            self.fts_written.set(true);
        }
        // The name rows go by the names the file's blobs hold.
        type Names = fn(&[u8]) -> rusqlite::Result<Vec<String>>;
        let packed_tables: [(&str, &str, Names); 2] = [
            ("symbol_files", "symbol_names", packed::stored_symbol_names),
            ("ref_files", "ref_names", packed::stored_ref_names),
        ];
        for (files, names, names_in) in packed_tables {
            let blob: Option<Vec<u8>> = tx
                .prepare_cached(&format!("SELECT data FROM {files} WHERE file_id = ?1"))?
                .query_row([file_id], |r| r.get(0))
                .optional()?;
            let Some(blob) = blob else { continue };
            let mut del = tx.prepare_cached(&format!(
                "DELETE FROM {names} WHERE name = ?1 AND file_id = ?2"
            ))?;
            for name in names_in(&blob)? {
                del.execute(params![name, file_id])?;
            }
            tx.prepare_cached(&format!("DELETE FROM {files} WHERE file_id = ?1"))?
                .execute([file_id])?;
        }
        tx.prepare_cached("DELETE FROM imports WHERE file_id = ?1")?
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
        let tx = &self.tx;
        let lang = u.lang.map(|l| l.name());
        let file_id = match existing {
            Some(id) => {
                self.clear_file_rows(id)?;
                tx.prepare_cached(
                    "UPDATE files SET lang = ?2, size = ?3, mtime_ns = ?4, hash = ?5,
                     indexed_at_ns = ?6, skip_reason = ?7, generated = ?8 WHERE id = ?1",
                )?
                .execute(params![
                    id,
                    lang,
                    u.size as i64,
                    u.mtime_ns,
                    u.hash as i64,
                    now_ns,
                    u.skip_reason,
                    u.extracted.generated.code()
                ])?;
                id
            }
            None => {
                tx.prepare_cached(
                    "INSERT INTO files (path, lang, size, mtime_ns, hash, indexed_at_ns, skip_reason, generated)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )?
                .execute(params![
                    u.path,
                    lang,
                    u.size as i64,
                    u.mtime_ns,
                    u.hash as i64,
                    now_ns,
                    u.skip_reason,
                    u.extracted.generated.code()
                ])?;
                tx.last_insert_rowid()
            }
        };
        let own;
        let packed = match u.packed {
            Some(p) => p,
            None => {
                own = pack_rows(u.extracted, None);
                &own
            }
        };
        let symbols = &u.extracted.symbols;
        if !symbols.is_empty() {
            tx.prepare_cached("INSERT INTO symbol_files (file_id, n, data) VALUES (?1, ?2, ?3)")?
                .execute(params![file_id, symbols.len() as i64, packed.symbols])?;
            let mut names = tx.prepare_cached(
                "INSERT INTO symbol_names (name, file_id, variant) VALUES (?1, ?2, ?3)",
            )?;
            for (name, variant) in packed::symbol_name_rows(symbols) {
                names.execute(params![name, file_id, variant])?;
            }
        }
        let refs = &u.extracted.refs;
        if !refs.is_empty() {
            tx.prepare_cached("INSERT INTO ref_files (file_id, n, data) VALUES (?1, ?2, ?3)")?
                .execute(params![file_id, refs.len() as i64, packed.refs])?;
            let mut names =
                tx.prepare_cached("INSERT INTO ref_names (name, file_id) VALUES (?1, ?2)")?;
            for name in packed::ref_names(refs) {
                names.execute(params![name, file_id])?;
            }
        }
        if let Some(lang) = u.lang {
            let mut im = tx.prepare_cached(
                "INSERT INTO imports (file_id, module, name, alias, line, kind, key)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?;
            for i in &u.extracted.imports {
                // A file's own package is found by `package_rows`, never
                // as an importer.
                let key = if i.kind == "package" {
                    String::new()
                } else {
                    crate::imports::row_key(lang, u.path, &i.module)
                };
                im.execute(params![
                    file_id, i.module, i.name, i.alias, i.line, i.kind, key
                ])?;
            }
        }
        let mut ch = tx.prepare_cached(
            "INSERT INTO chunks (file_id, start_line, end_line, symbol, kind, start_byte, end_byte, hash, embed_key)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?;
        let mut fts = tx.prepare_cached(
            "INSERT INTO chunks_fts (rowid, body, symbol, path) VALUES (?1, ?2, ?3, ?4)",
        )?;
        if !u.extracted.chunks.is_empty() {
            self.fts_written.set(true);
        }
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
                c.start_byte as i64,
                c.end_byte as i64,
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
        if vectors.is_empty() {
            return Ok(());
        }
        self.tx
            .prepare_cached("INSERT INTO models (name) VALUES (?1) ON CONFLICT(name) DO NOTHING")?
            .execute([model])?;
        let model_id: i64 = self
            .tx
            .prepare_cached("SELECT id FROM models WHERE name = ?1")?
            .query_row([model], |r| r.get(0))?;
        let mut stmt = self.tx.prepare_cached(
            "INSERT INTO embeddings (model_id, key, vector) VALUES (?1, ?2, ?3)
             ON CONFLICT(model_id, key) DO UPDATE SET vector = excluded.vector",
        )?;
        for (key, v) in vectors {
            stmt.execute(params![model_id, *key as i64, vector_to_blob(v)])?;
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
        let Some(keep) = keep_only else { return Ok(n) };
        let models: Vec<(i64, String)> = {
            let mut stmt = self.tx.prepare("SELECT id, name FROM models")?;
            stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()?
        };
        for (id, _) in models.iter().filter(|(_, m)| !keep.contains(&m.as_str())) {
            n += self
                .tx
                .execute("DELETE FROM embeddings WHERE model_id = ?1", [id])?;
            self.tx.execute("DELETE FROM models WHERE id = ?1", [id])?;
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
