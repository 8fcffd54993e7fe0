//! Reads from the index: every query the indexer, the searches and `status`
//! run, each returning plain row structs.

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};

use super::{Store, blob_dim, blob_to_codes, blob_to_vector};

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

/// Counts shown by `status` and the index summary.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    pub files: u64,
    pub skipped: u64,
    pub symbols: u64,
    pub refs: u64,
    pub chunks: u64,
}

/// What one table of the index costs on disk: its own pages and those of
/// its indexes (FTS5 shadow tables count as the FTS table's own).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct TableSize {
    pub name: String,
    pub bytes: u64,
    pub index_bytes: u64,
}

/// The index's size by table, and what it indexes.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Sizes {
    /// Largest first; `(free pages)` is space a `VACUUM` would return.
    pub tables: Vec<TableSize>,
    /// Every page of the database file (the WAL not included).
    pub db_bytes: u64,
    /// Bytes of the indexed files (skipped files not included).
    pub source_bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SkipSummary {
    pub reason: String,
    pub count: u64,
    pub examples: Vec<String>,
}

/// A chunk that needs a vector from some model.
#[derive(Debug, Clone)]
pub struct PendingChunk {
    pub key: u64,
    pub chunk_id: i64,
    /// Its file: the embedding phase reads chunks file by file.
    pub file_id: i64,
    /// Bytes of text (a cheap proxy for tokens, to sort batches by length).
    pub len: usize,
    /// Chunks with this text (1 unless identical chunks share its vector).
    pub copies: u64,
}

/// Where a chunk's text is (the index stores no text, see
/// `source::Sources`): its byte range in the file's decoded text, the
/// xxh3 of that text, and the file's size when it was indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChunkSpan {
    pub start_byte: u64,
    pub end_byte: u64,
    pub hash: u64,
    pub file_size: u64,
}

/// A chunk and its context, as the embedder sees it (the text is read
/// from `path` at `span`).
#[derive(Debug, Clone)]
pub struct ChunkSource {
    pub chunk_id: i64,
    pub key: u64,
    pub path: String,
    pub symbol: Option<String>,
    pub kind: Option<String>,
    pub span: ChunkSpan,
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
    pub span: ChunkSpan,
    pub key: u64,
}

/// A definition whose signature the index keeps as a position (schema 10):
/// its signature is the trimmed line `name_line` of its file, read back by
/// `source::Sources::line_signature` (the file read up to the larger of its
/// indexed size and the reader's limit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineSignature {
    pub file_size: u64,
}

/// Vectors read per statement when loading a model's matrix (about 3 MB
/// of fast-tier blobs).
const VECTOR_BATCH: usize = 16_384;

/// The columns a [`ChunkSpan`] is read from, in its fields' order.
/// Index files smaller than this keep their memory map whole
/// ([`Store::release_map`]).
const RELEASE_MAP_MIN_BYTES: i64 = 256 << 20;

const SPAN_COLUMNS: &str = "c.start_byte, c.end_byte, c.hash, f.size";

/// The [`ChunkSpan`] at column `at` of a row selecting [`SPAN_COLUMNS`].
fn span_at(r: &rusqlite::Row<'_>, at: usize) -> rusqlite::Result<ChunkSpan> {
    Ok(ChunkSpan {
        start_byte: r.get::<_, i64>(at)?.max(0) as u64,
        end_byte: r.get::<_, i64>(at + 1)?.max(0) as u64,
        hash: r.get::<_, i64>(at + 2)? as u64,
        file_size: r.get::<_, i64>(at + 3)?.max(0) as u64,
    })
}

/// How [`Store::symbol_rows`] matches a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameMatch {
    /// The name exactly (case-sensitive).
    Exact,
    /// The name in another ASCII case (exact matches left out).
    CaseInsensitive,
    /// Names starting with the given prefix (ASCII case-insensitive).
    Prefix,
}

/// A symbol definition and its file, for symbol search.
#[derive(Debug, Clone)]
pub struct SymbolRow {
    pub name: String,
    pub kind: String,
    pub container: Option<String>,
    /// Empty while `line_signature` says it is to be read from the file.
    pub signature: String,
    pub line_signature: Option<LineSignature>,
    /// Empty when the file's language is unknown.
    pub lang: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    /// Line and column of the name itself.
    pub name_line: u32,
    pub name_col: u32,
}

/// A place where a name occurs, for `find_references`.
#[derive(Debug, Clone)]
pub struct RefRow {
    pub path: String,
    pub line: u32,
    pub column: u32,
    /// The symbol's kind for a definition, the reference's kind (call,
    /// type, ...) for a reference.
    pub kind: String,
    /// For a definition its container; for a reference the innermost
    /// enclosing definition, when known.
    pub context: Option<String>,
}

/// A definition of one file, for its outline.
#[derive(Debug, Clone)]
pub struct OutlineRow {
    pub name: String,
    pub kind: String,
    /// The type or module it is written on (a Go method's receiver, a Lua
    /// function's table, a class's member).
    pub container: Option<String>,
    /// Empty while `line_signature` says it is to be read from the file.
    pub signature: String,
    pub line_signature: Option<LineSignature>,
    pub start_line: u32,
    pub end_line: u32,
    pub name_line: u32,
}

/// A reference inside a line span of one file, for the callees of a
/// definition (`context`).
#[derive(Debug, Clone)]
pub struct SpanRef {
    pub name: String,
    /// call, type, ...
    pub kind: String,
    pub line: u32,
    pub column: u32,
}

/// One full-text match and its chunk, borrowed from the result row.
pub struct FtsRow<'a> {
    pub chunk_id: i64,
    pub path: &'a str,
    /// Empty when the file's language is unknown.
    pub lang: &'a str,
    pub start_line: u32,
    pub end_line: u32,
    pub symbol: Option<&'a str>,
    pub kind: Option<&'a str>,
    pub span: ChunkSpan,
    /// FTS5's `bm25()`: lower is better.
    pub score: f64,
}

/// Where [`Store::load_vectors_into`] writes rows: `start` sizes it for
/// `rows` rows of `dim` values (all zero), `put` sets one from its stored
/// form (`dim` int8 codes as bytes, `code as i8`, and the scale they are
/// multiplied by, see [`super::quantize`]), `copy` copies row `from` over
/// row `to`, `truncate` keeps the first `rows`.
pub trait RowSink {
    fn start(&mut self, rows: usize, dim: usize);
    fn put(&mut self, slot: usize, codes: &[u8], scale: f32);
    fn copy(&mut self, from: usize, to: usize);
    fn truncate(&mut self, rows: usize);
}

/// Plain f32 rows, row-major: the values the stored codes stand for.
#[derive(Debug, Default)]
pub struct F32Rows {
    pub dim: usize,
    pub data: Vec<f32>,
}

impl RowSink for F32Rows {
    fn start(&mut self, rows: usize, dim: usize) {
        self.dim = dim;
        self.data = vec![0.0; rows * dim];
    }
    fn put(&mut self, slot: usize, codes: &[u8], scale: f32) {
        let d = self.dim;
        for (x, &c) in self.data[slot * d..(slot + 1) * d].iter_mut().zip(codes) {
            *x = f32::from(c as i8) * scale;
        }
    }
    fn copy(&mut self, from: usize, to: usize) {
        let d = self.dim;
        self.data.copy_within(from * d..(from + 1) * d, to * d);
    }
    fn truncate(&mut self, rows: usize) {
        self.data.truncate(rows * self.dim);
    }
}

/// The vectors of one model, as [`Store::load_vectors`] reads them.
#[derive(Debug, Default)]
pub struct VectorMatrix {
    /// Columns per row (0 when there are no vectors).
    pub dim: usize,
    /// Per row: the chunk and its file.
    pub chunk_ids: Vec<i64>,
    pub file_ids: Vec<i64>,
    /// `chunk_ids.len() × dim` values, row-major.
    pub data: Vec<f32>,
}

impl Store {
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

    pub fn get_meta(&self, key: &str) -> rusqlite::Result<Option<String>> {
        self.conn
            .prepare_cached("SELECT value FROM meta WHERE key = ?1")?
            .query_row([key], |r| r.get(0))
            .optional()
    }

    /// A `meta` counter (a generation): 0 when absent or not a number.
    pub fn meta_u64(&self, key: &str) -> rusqlite::Result<u64> {
        Ok(self
            .get_meta(key)?
            .and_then(|v| v.parse().ok())
            .unwrap_or(0))
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
            symbols: one("SELECT coalesce(sum(n), 0) FROM symbol_files")?,
            refs: one("SELECT coalesce(sum(n), 0) FROM ref_files")?,
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

impl Store {
    /// Chunks with no vector from `model` yet, one per distinct key (its
    /// first chunk).
    pub fn pending_embeddings(&self, model: &str) -> rusqlite::Result<Vec<PendingChunk>> {
        // SQLite takes the bare columns of a `min()` aggregate from the row
        // holding the minimum.
        let mut stmt = self.conn.prepare(
            "SELECT c.embed_key, min(c.id), c.file_id, c.end_byte - c.start_byte, count(*) FROM chunks c
             WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model_id = (SELECT id FROM models WHERE name = ?1) AND e.key = c.embed_key)
             GROUP BY c.embed_key",
        )?;
        let rows = stmt.query_map([model], |r| {
            Ok(PendingChunk {
                key: r.get::<_, i64>(0)? as u64,
                chunk_id: r.get(1)?,
                file_id: r.get(2)?,
                len: r.get::<_, i64>(3)?.max(0) as usize,
                copies: r.get::<_, i64>(4)?.max(1) as u64,
            })
        })?;
        rows.collect()
    }

    /// Where the given chunks' texts are, with their context (missing ids
    /// are left out).
    pub fn chunk_sources(&self, ids: &[i64]) -> rusqlite::Result<Vec<ChunkSource>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT c.id, c.embed_key, f.path, c.symbol, c.kind, {SPAN_COLUMNS}
             FROM chunks c JOIN files f ON f.id = c.file_id WHERE c.id = ?1"
        ))?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let row = stmt
                .query_row([id], |r| {
                    Ok(ChunkSource {
                        chunk_id: r.get(0)?,
                        key: r.get::<_, i64>(1)? as u64,
                        path: r.get(2)?,
                        symbol: r.get(3)?,
                        kind: r.get(4)?,
                        span: span_at(r, 5)?,
                    })
                })
                .optional()?;
            out.extend(row);
        }
        Ok(out)
    }

    /// Chunks in the index, and how many of them have a vector from `model`.
    pub fn embedding_coverage(&self, model: &str) -> rusqlite::Result<(u64, u64)> {
        let Some(memo) = &self.coverage_memo else {
            return self.count_coverage(model);
        };
        let version = (
            self.meta_u64(super::meta::GENERATION)?,
            self.meta_u64(super::meta::VECTORS_GENERATION)?,
        );
        if let Some((v, counts)) = memo.borrow().as_ref()
            && *v == version
            && let Some(c) = counts.get(model)
        {
            return Ok(*c);
        }
        let t0 = std::time::Instant::now();
        let c = self.count_coverage(model)?;
        tracing::debug!(
            model,
            ?version,
            ms = t0.elapsed().as_millis() as u64,
            "vector coverage counted"
        );
        let mut memo = memo.borrow_mut();
        match memo.as_mut() {
            Some((v, counts)) if *v == version => {
                counts.insert(model.to_string(), c);
            }
            _ => *memo = Some((version, HashMap::from([(model.to_string(), c)]))),
        }
        Ok(c)
    }

    fn count_coverage(&self, model: &str) -> rusqlite::Result<(u64, u64)> {
        // One merge of two sorted streams, the chunks' keys (the covering
        // index `chunks_embed_key`) and the model's keys (its primary key),
        // rather than a probe per chunk: 1.3 M probes were a tenth of a
        // cold semantic search on the Linux kernel.
        let mut chunk_keys = self
            .conn
            .prepare("SELECT embed_key FROM chunks ORDER BY embed_key")?;
        let mut vector_keys = self.conn.prepare(
            "SELECT key FROM embeddings
             WHERE model_id = (SELECT id FROM models WHERE name = ?1) ORDER BY key",
        )?;
        let mut chunks = chunk_keys.query([])?;
        let mut vectors = vector_keys.query([model])?;
        let mut vector: Option<i64> = vectors.next()?.map(|r| r.get(0)).transpose()?;
        let (mut embedded, mut total) = (0u64, 0u64);
        while let Some(r) = chunks.next()? {
            let key: i64 = r.get(0)?;
            total += 1;
            while let Some(v) = vector
                && v < key
            {
                vector = vectors.next()?.map(|r| r.get(0)).transpose()?;
            }
            if vector == Some(key) {
                embedded += 1;
            }
        }
        drop((chunks, vectors));
        drop((chunk_keys, vector_keys));
        // The scan touched every page of the model's vectors: let them go
        // before the matrix is built (they were half the peak memory of a
        // semantic search on the Linux kernel).
        self.release_map()?;
        Ok((embedded, total))
    }

    /// Drops the read connection's memory map and sets it up again: the
    /// pages a large scan touched stop counting as this process's memory
    /// (the file stays in the OS's cache). A no-op while a statement holds
    /// mapped pages, without a map, and for an index file under
    /// [`RELEASE_MAP_MIN_BYTES`], whose pages are no peak worth the unmap
    /// and the faults that map them again (6% of a cold CLI search on a
    /// 5,000-chunk index).
    fn release_map(&self) -> rusqlite::Result<()> {
        let bytes: i64 = self.conn.query_row(
            "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
            [],
            |r| r.get(0),
        )?;
        if bytes < RELEASE_MAP_MIN_BYTES {
            return Ok(());
        }
        let mapped: i64 = self
            .conn
            .pragma_query_value(None, "mmap_size", |r| r.get(0))?;
        if mapped > 0 {
            self.conn.pragma_update(None, "mmap_size", 0)?;
            self.conn.pragma_update(None, "mmap_size", mapped)?;
        }
        Ok(())
    }

    /// Bytes per table from SQLite's `dbstat` (reads every page: seconds on
    /// a multi-GB index, so only on request).
    pub fn sizes(&self) -> rusqlite::Result<Sizes> {
        // btree name -> (owning table, is an index)
        let mut owner: HashMap<String, (String, bool)> = HashMap::new();
        {
            let mut stmt = self.conn.prepare(
                "SELECT name, tbl_name, type FROM sqlite_master WHERE type IN ('table', 'index')",
            )?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let (name, table, kind): (String, String, String) =
                    (r.get(0)?, r.get(1)?, r.get(2)?);
                owner.insert(name, (table, kind == "index"));
            }
        }
        // FTS5 keeps its data in shadow tables named `<table>_<part>`.
        let fts: Vec<String> = owner
            .iter()
            .filter(|(name, (table, _))| {
                name == &table && owner.contains_key(&format!("{name}_config"))
            })
            .map(|(name, _)| name.clone())
            .collect();
        let mut by_table: HashMap<String, TableSize> = HashMap::new();
        let mut stmt = self
            .conn
            .prepare("SELECT name, sum(pgsize) FROM dbstat GROUP BY name")?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (name, bytes): (String, i64) = (r.get(0)?, r.get(1)?);
            let (mut table, mut is_index) =
                owner.get(&name).cloned().unwrap_or((name.clone(), false));
            if let Some(f) = fts.iter().find(|f| table.starts_with(&format!("{f}_"))) {
                table = f.clone();
            }
            // Definitions and references: their per-file blobs are the
            // data, their name tables the index.
            if let Some((logical, [_, names])) = LOGICAL_TABLES
                .iter()
                .find(|(_, parts)| parts.contains(&table.as_str()))
            {
                is_index = *names == table;
                table = logical.to_string();
            }
            let e = by_table.entry(table.clone()).or_insert(TableSize {
                name: table,
                bytes: 0,
                index_bytes: 0,
            });
            if is_index {
                e.index_bytes += bytes.max(0) as u64;
            } else {
                e.bytes += bytes.max(0) as u64;
            }
        }
        let page: i64 = self.conn.query_row("PRAGMA page_size", [], |r| r.get(0))?;
        let pages: i64 = self.conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
        let free: i64 = self
            .conn
            .query_row("PRAGMA freelist_count", [], |r| r.get(0))?;
        if free > 0 {
            by_table.insert(
                "(free pages)".into(),
                TableSize {
                    name: "(free pages)".into(),
                    bytes: (free * page) as u64,
                    index_bytes: 0,
                },
            );
        }
        let mut tables: Vec<TableSize> = by_table.into_values().collect();
        tables.sort_by(|a, b| {
            (b.bytes + b.index_bytes)
                .cmp(&(a.bytes + a.index_bytes))
                .then(a.name.cmp(&b.name))
        });
        let source: i64 = self.conn.query_row(
            "SELECT coalesce(sum(size), 0) FROM files WHERE skip_reason IS NULL",
            [],
            |r| r.get(0),
        )?;
        Ok(Sizes {
            tables,
            db_bytes: (page * pages).max(0) as u64,
            source_bytes: source.max(0) as u64,
        })
    }

    /// The `model` vectors of the chunks `ids` (by chunk id; the values the
    /// stored codes stand for); chunks without one, or with a malformed
    /// blob, are left out.
    pub fn chunk_vectors(
        &self,
        model: &str,
        ids: &[i64],
    ) -> rusqlite::Result<HashMap<i64, Vec<f32>>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT e.vector FROM chunks c JOIN embeddings e ON e.model_id = (SELECT id FROM models WHERE name = ?1) AND e.key = c.embed_key
             WHERE c.id = ?2",
        )?;
        let mut out = HashMap::with_capacity(ids.len());
        for &id in ids {
            let mut rows = stmt.query(rusqlite::params![model, id])?;
            if let Some(r) = rows.next()? {
                let blob = r.get_ref(0)?.as_blob().map_err(rusqlite::Error::from)?;
                let mut v = Vec::with_capacity(blob_dim(blob).unwrap_or(0));
                if blob_to_vector(blob, &mut v).is_some() {
                    out.insert(id, v);
                }
            }
        }
        Ok(out)
    }

    /// Every chunk vector of `model` (the values its stored codes stand
    /// for), in chunk id order, as one row-major matrix. The first row (in
    /// chunk id order) sets the dimension; rows of another length, or too
    /// short to hold a vector (a corrupt row), are left out.
    pub fn load_vectors(&self, model: &str) -> rusqlite::Result<VectorMatrix> {
        let (rows, chunk_ids, file_ids) = self.load_vectors_into(model, F32Rows::default())?;
        Ok(VectorMatrix {
            dim: rows.dim,
            chunk_ids,
            file_ids,
            data: rows.data,
        })
    }

    /// Every vector of `model`, one row per chunk that has one (chunk id
    /// order), written into `sink` (f32 rows, or a compact form that never
    /// holds the whole f32 matrix); returns it with each row's chunk and file.
    pub fn load_vectors_into<S: RowSink>(
        &self,
        model: &str,
        mut sink: S,
    ) -> rusqlite::Result<(S, Vec<i64>, Vec<i64>)> {
        // Two plain scans joined here instead of one SQL join: the join
        // probed `chunks` once per vector and sorted every blob through a
        // temporary b-tree (3-5x slower on a cold start). Each blob is
        // decoded into one reused row and handed to the sink for its
        // chunk's slot: on a cold search the page faults of every extra
        // copy of the matrix cost more than reading it.
        let mut chunks: Vec<(i64, i64)> = Vec::new();
        let mut slot_of: HashMap<i64, u32> = HashMap::new();
        // Keys shared by several chunks (identical path, symbol and text):
        // (slot of a later chunk, slot of the first one).
        let mut shared: Vec<(u32, u32)> = Vec::new();
        {
            // No ORDER BY: the scan then reads the covering index
            // `chunks_embed_key (embed_key, file_id)`, not the table
            // (which held every chunk's text before schema 10, 1.2 GB on
            // the Linux kernel, and would stay mapped in a server's
            // memory); sorted here instead.
            let mut stmt = self
                .conn
                .prepare("SELECT id, file_id, embed_key FROM chunks")?;
            let mut rows_by_id: Vec<(i64, i64, i64)> = Vec::new();
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                rows_by_id.push((r.get(0)?, r.get(1)?, r.get(2)?));
            }
            rows_by_id.sort_unstable_by_key(|r| r.0);
            chunks.reserve(rows_by_id.len());
            for (id, file_id, key) in rows_by_id {
                let slot = chunks.len() as u32;
                chunks.push((id, file_id));
                match slot_of.entry(key) {
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(slot);
                    }
                    std::collections::hash_map::Entry::Occupied(e) => {
                        shared.push((slot, *e.get()));
                    }
                }
            }
        }
        // The blobs are read once into the sink through the memory map, a
        // batch at a time (see [`Store::each_vector`]): its pages would
        // otherwise stay resident in a long-lived server. Reading them
        // through SQLite's cache instead was measured 2 s slower on the
        // Linux kernel.
        let (mut len_of, width, mixed) =
            self.scan_vectors(model, chunks.len(), &slot_of, &mut sink)?;
        if width == 0 {
            sink.start(0, 0);
            return Ok((sink, Vec::new(), Vec::new()));
        }
        for &(later, first) in &shared {
            len_of[later as usize] = len_of[first as usize];
            if len_of[first as usize] == width {
                sink.copy(first as usize, later as usize);
            }
        }
        if mixed {
            // A corrupt row came first in table order: the rows with the
            // dimensions of the first chunk (in id order) with a vector win.
            let Some(first) = len_of.iter().copied().find(|&l| l > 0) else {
                sink.start(0, 0);
                return Ok((sink, Vec::new(), Vec::new()));
            };
            if first != width {
                let (rows, chunk_ids, file_ids) =
                    self.load_vectors_of_length(model, &chunks, &slot_of, &shared, first)?;
                sink.start(chunk_ids.len(), first);
                let mut buf = Vec::new();
                for (i, blob) in rows.iter().enumerate() {
                    if let Some((codes, scale)) = blob_to_codes(blob, &mut buf) {
                        sink.put(i, codes, scale);
                    }
                }
                return Ok((sink, chunk_ids, file_ids));
            }
        }
        // Compact: drop the rows of chunks without a vector of this length.
        let (mut chunk_ids, mut file_ids) = (Vec::new(), Vec::new());
        let mut kept = 0usize;
        for (slot, &(chunk_id, file_id)) in chunks.iter().enumerate() {
            if len_of[slot] != width {
                continue;
            }
            if kept != slot {
                sink.copy(slot, kept);
            }
            chunk_ids.push(chunk_id);
            file_ids.push(file_id);
            kept += 1;
        }
        sink.truncate(kept);
        Ok((sink, chunk_ids, file_ids))
    }

    /// The vector scan of [`Store::load_vectors_into`]: each blob of
    /// `model` whose key a chunk has goes to that chunk's slot (of `slots`,
    /// one per chunk). Returns the dimensions of each slot's vector (0:
    /// none), the common width (the first vector's dimensions) and whether
    /// some vector had another (either stored form counts by its
    /// dimensions: int8 rows of an older index and packed ones mix).
    fn scan_vectors<S: RowSink>(
        &self,
        model: &str,
        slots: usize,
        slot_of: &HashMap<i64, u32>,
        sink: &mut S,
    ) -> rusqlite::Result<(Vec<usize>, usize, bool)> {
        let mut len_of: Vec<usize> = vec![0; slots];
        let mut width = 0usize;
        let mut mixed = false;
        let mut buf = Vec::new();
        self.each_vector(model, slot_of, |slot, blob| {
            let Some((codes, scale)) = blob_to_codes(blob, &mut buf) else {
                return;
            };
            let dim = codes.len();
            if width == 0 {
                width = dim;
                sink.start(slots, dim);
            }
            len_of[slot as usize] = dim;
            if dim != width {
                mixed = true;
                return;
            }
            sink.put(slot as usize, codes, scale);
        })?;
        Ok((len_of, width, mixed))
    }

    /// Calls `f` with the slot and blob of every vector of `model` whose
    /// key a chunk has (`slot_of`).
    ///
    /// In key order, [`VECTOR_BATCH`] rows per statement: between two
    /// batches the memory map is dropped and set up again, so the pages of
    /// blobs already copied leave the process (on the Linux kernel the
    /// whole vectors table, 370 MB, was otherwise resident at once next to
    /// the matrix built from it: the server's peak memory).
    fn each_vector(
        &self,
        model: &str,
        slot_of: &HashMap<i64, u32>,
        mut f: impl FnMut(u32, &[u8]),
    ) -> rusqlite::Result<()> {
        let Some(model_id) = self
            .conn
            .query_row("SELECT id FROM models WHERE name = ?1", [model], |r| {
                r.get::<_, i64>(0)
            })
            .optional()?
        else {
            return Ok(());
        };
        // The first key of the next batch (none after the largest i64).
        let mut from = Some(i64::MIN);
        while let Some(start) = from {
            let (mut read, mut last) = (0usize, start);
            {
                let mut stmt = self.conn.prepare_cached(
                    "SELECT key, vector FROM embeddings
                     WHERE model_id = ?1 AND key >= ?2 ORDER BY key LIMIT ?3",
                )?;
                let mut rows = stmt.query(params![model_id, start, VECTOR_BATCH as i64])?;
                while let Some(r) = rows.next()? {
                    read += 1;
                    let key: i64 = r.get(0)?;
                    last = key;
                    let Some(&slot) = slot_of.get(&key) else {
                        continue;
                    };
                    f(
                        slot,
                        r.get_ref(1)?.as_blob().map_err(rusqlite::Error::from)?,
                    );
                }
            }
            self.release_map()?;
            from = if read < VECTOR_BATCH {
                None
            } else {
                last.checked_add(1)
            };
        }
        Ok(())
    }

    /// [`Store::load_vectors`] keeping only vectors of `width` dimensions (the
    /// rare path of a corrupt row): the stored rows with their chunk and
    /// file ids.
    #[allow(clippy::type_complexity)]
    fn load_vectors_of_length(
        &self,
        model: &str,
        chunks: &[(i64, i64)],
        slot_of: &HashMap<i64, u32>,
        shared: &[(u32, u32)],
        width: usize,
    ) -> rusqlite::Result<(Vec<Vec<u8>>, Vec<i64>, Vec<i64>)> {
        let mut rows_of: Vec<Option<Vec<u8>>> = vec![None; chunks.len()];
        self.each_vector(model, slot_of, |slot, blob| {
            if blob_dim(blob) == Some(width) {
                rows_of[slot as usize] = Some(blob.to_vec());
            }
        })?;
        for &(later, first) in shared {
            rows_of[later as usize] = rows_of[first as usize].clone();
        }
        let (mut rows, mut chunk_ids, mut file_ids) = (Vec::new(), Vec::new(), Vec::new());
        for (slot, row) in rows_of.into_iter().enumerate() {
            if let Some(v) = row {
                chunk_ids.push(chunks[slot].0);
                file_ids.push(chunks[slot].1);
                rows.push(v);
            }
        }
        Ok((rows, chunk_ids, file_ids))
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
                "SELECT vector FROM embeddings WHERE model_id = (SELECT id FROM models WHERE name = ?1) AND key = ?2",
                params![model, key as i64],
                |r| r.get(0),
            )
            .optional()?;
        Ok(blob.and_then(|b| {
            let mut v = Vec::with_capacity(blob_dim(&b).unwrap_or(0));
            blob_to_vector(&b, &mut v).map(|_| v)
        }))
    }

    /// The chunks of `chunk_ids` that still exist, by id, read in one
    /// query (one read transaction, not one per chunk).
    pub fn chunk_rows(&self, chunk_ids: &[i64]) -> rusqlite::Result<HashMap<i64, ChunkRow>> {
        let ids = format!(
            "[{}]",
            chunk_ids
                .iter()
                .map(|id| id.to_string())
                .collect::<Vec<_>>()
                .join(",")
        );
        let mut stmt = self.conn.prepare_cached(
            &format!("SELECT c.id, f.path, coalesce(f.lang, ''), c.start_line, c.end_line, c.symbol, c.kind, c.embed_key, {SPAN_COLUMNS}
             FROM chunks c JOIN files f ON f.id = c.file_id
             WHERE c.id IN (SELECT value FROM json_each(?1))"),
        )?;
        let rows = stmt.query_map([ids], chunk_row)?;
        rows.map(|r| r.map(|c| (c.chunk_id, c))).collect()
    }

    /// Every chunk of the indexed file at `path`, in file order (widest
    /// first where two start on the same line).
    pub fn file_chunks(&self, path: &str) -> rusqlite::Result<Vec<ChunkRow>> {
        let mut stmt = self.conn.prepare_cached(
            &format!("SELECT c.id, f.path, coalesce(f.lang, ''), c.start_line, c.end_line, c.symbol, c.kind, c.embed_key, {SPAN_COLUMNS}
             FROM chunks c JOIN files f ON f.id = c.file_id
             WHERE f.path = ?1
             ORDER BY c.start_line, c.end_line DESC"),
        )?;
        let rows = stmt.query_map([path], chunk_row)?;
        rows.collect()
    }

    /// The chunks of `path` that contain `line`, smallest first.
    pub fn chunks_at(&self, path: &str, line: u32) -> rusqlite::Result<Vec<ChunkRow>> {
        let mut stmt = self.conn.prepare_cached(
            &format!("SELECT c.id, f.path, coalesce(f.lang, ''), c.start_line, c.end_line, c.symbol, c.kind, c.embed_key, {SPAN_COLUMNS}
             FROM chunks c JOIN files f ON f.id = c.file_id
             WHERE f.path = ?1 AND c.start_line <= ?2 AND c.end_line >= ?2
             ORDER BY c.end_line - c.start_line, c.start_line"),
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
        key: r.get::<_, i64>(7)? as u64,
        span: span_at(r, 8)?,
    })
}

impl Store {
    /// The language of an indexed file (`None` when unknown).
    pub fn file_lang(&self, file_id: i64) -> rusqlite::Result<Option<String>> {
        self.conn
            .prepare_cached("SELECT lang FROM files WHERE id = ?1")?
            .query_row([file_id], |r| r.get::<_, Option<String>>(0))
            .optional()
            .map(Option::flatten)
    }

    /// Whether the index holds the file `rel`, or a file inside directory
    /// `rel` (root-relative, `/`-separated, no trailing `/`).
    pub fn has_path_at_or_under(&self, rel: &str) -> rusqlite::Result<bool> {
        // Paths under `rel/` sort between `rel/` and `rel0` ('0' follows '/').
        let (lo, hi) = (format!("{rel}/"), format!("{rel}0"));
        self.conn
            .prepare_cached(
                "SELECT 1 FROM files WHERE path = ?1 OR (path >= ?2 AND path < ?3) LIMIT 1",
            )?
            .query_row([rel, lo.as_str(), hi.as_str()], |_| Ok(()))
            .optional()
            .map(|r| r.is_some())
    }

    /// Indexed (not skipped) paths that end with `/suffix` (`handlers/base.py` for
    /// `django/core/handlers/base.py`), at most `limit`, the shallowest
    /// first, then by path. Scans the file list: for the rare query that
    /// names a file by its tail.
    pub fn paths_ending_with(&self, suffix: &str, limit: usize) -> rusqlite::Result<Vec<String>> {
        let tail = format!("/{suffix}");
        let mut stmt = self.conn.prepare_cached(
            "SELECT path FROM files
             WHERE length(path) > ?2 AND substr(path, -?2) = ?1 AND skip_reason IS NULL
             ORDER BY length(path) - length(replace(path, '/', '')), path LIMIT ?3",
        )?;
        let rows = stmt.query_map(
            params![tail, tail.chars().count() as i64, limit as i64],
            |r| r.get(0),
        )?;
        rows.collect()
    }

    /// What ranking reads of each of `paths`' files, in one query that
    /// looks up each of them (not every file: a Go monorepo has thousands
    /// of generated ones): whether its text says a tool wrote it
    /// (`files.generated`) and its size in bytes.
    pub fn file_facts_among(
        &self,
        paths: &[&str],
    ) -> rusqlite::Result<HashMap<String, (crate::model::Generated, u64)>> {
        if paths.is_empty() {
            return Ok(HashMap::new());
        }
        let list = super::json_list(paths)?;
        let mut stmt = self.conn.prepare_cached(
            "SELECT path, generated, size FROM files
             WHERE path IN (SELECT value FROM json_each(?1))",
        )?;
        let rows = stmt.query_map([list], |r| {
            Ok((
                r.get(0)?,
                (
                    crate::model::Generated::from_code(r.get(1)?),
                    r.get::<_, i64>(2)?.max(0) as u64,
                ),
            ))
        })?;
        rows.collect()
    }

    /// What the store remembers about the file at `path`, if anything.
    pub fn file_record(&self, path: &str) -> rusqlite::Result<Option<FileRecord>> {
        self.conn
            .prepare_cached(
                "SELECT id, size, mtime_ns, hash, indexed_at_ns, skip_reason FROM files WHERE path = ?1",
            )?
            .query_row([path], |r| {
                Ok(FileRecord {
                    id: r.get(0)?,
                    size: r.get::<_, i64>(1)? as u64,
                    mtime_ns: r.get(2)?,
                    hash: r.get::<_, i64>(3)? as u64,
                    indexed_at_ns: r.get(4)?,
                    skip_reason: r.get(5)?,
                })
            })
            .optional()
    }
}

/// An import row: the importing file (path, language) and what it imports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRow {
    pub path: String,
    pub lang: String,
    pub module: String,
    pub name: Option<String>,
    pub alias: Option<String>,
    pub line: u32,
    pub kind: String,
}

const IMPORT_COLUMNS: &str =
    "f.path, coalesce(f.lang, ''), i.module, i.name, i.alias, i.line, i.kind
     FROM imports i JOIN files f ON f.id = i.file_id";

fn import_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<ImportRow> {
    Ok(ImportRow {
        path: r.get(0)?,
        lang: r.get(1)?,
        module: r.get(2)?,
        name: r.get(3)?,
        alias: r.get(4)?,
        line: r.get(5)?,
        kind: r.get(6)?,
    })
}

impl Store {
    /// The imports of one file, in source order.
    pub fn import_rows(&self, file_id: i64) -> rusqlite::Result<Vec<ImportRow>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {IMPORT_COLUMNS} WHERE i.file_id = ?1 AND i.kind != 'package'
             ORDER BY i.line, i.rowid"
        ))?;
        let rows = stmt.query_map([file_id], import_row)?;
        rows.collect()
    }

    /// The package the file at `path` declares (Java, Kotlin, Scala; a
    /// Scala file's first).
    pub fn file_package(&self, path: &str) -> rusqlite::Result<Option<String>> {
        self.conn
            .prepare_cached(
                "SELECT i.module FROM imports i JOIN files f ON f.id = i.file_id
                 WHERE f.path = ?1 AND i.kind = 'package' ORDER BY i.line LIMIT 1",
            )?
            .query_row([path], |r| r.get(0))
            .optional()
    }

    /// The package each file declares (Java, Kotlin, Scala): `(path,
    /// package)`, by path.
    pub fn package_rows(&self) -> rusqlite::Result<Vec<(String, String)>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT f.path, i.module FROM imports i JOIN files f ON f.id = i.file_id
             WHERE i.kind = 'package' ORDER BY f.path",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        rows.collect()
    }

    /// Import rows of other files whose lookup key or imported name is
    /// one of `keys` (candidates for "who imports this file"), by path and
    /// line, each row once.
    pub fn import_rows_by_key(&self, keys: &[String]) -> rusqlite::Result<Vec<ImportRow>> {
        let mut stmt = self.conn.prepare_cached(&format!(
            "SELECT {IMPORT_COLUMNS} WHERE i.key = ?1
             UNION SELECT {IMPORT_COLUMNS} WHERE i.name = ?1"
        ))?;
        let mut out = Vec::new();
        for k in keys {
            for row in stmt.query_map([k], import_row)? {
                out.push(row?);
            }
        }
        out.sort_by(|a, b| {
            (&a.path, a.line, &a.module, &a.name).cmp(&(&b.path, b.line, &b.module, &b.name))
        });
        out.dedup();
        Ok(out)
    }

    /// Import rows that bind what they import under the name `alias`
    /// (`pub use inner::Thing as Alias`, `from ._impl import f as g`), by
    /// path and line.
    pub fn import_rows_by_alias(&self, alias: &str) -> rusqlite::Result<Vec<ImportRow>> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!("SELECT {IMPORT_COLUMNS} WHERE i.alias = ?1"))?;
        let mut out = stmt
            .query_map([alias], import_row)?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        out.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
        Ok(out)
    }
}

impl Store {
    /// The largest chunk id: at least the number of chunks, read off the
    /// end of the table's b-tree (no count).
    pub fn chunk_id_max(&self) -> rusqlite::Result<u64> {
        self.cached_u64("SELECT coalesce(max(id), 0) FROM chunks")
    }

    /// The number of chunks, counted (7 ms on the kernel's 1.3 M).
    pub fn chunk_count(&self) -> rusqlite::Result<u64> {
        self.cached_u64("SELECT count(*) FROM chunks")
    }

    /// The one integer `sql` (a cached statement) answers, negatives as 0.
    fn cached_u64(&self, sql: &str) -> rusqlite::Result<u64> {
        self.conn
            .prepare_cached(sql)?
            .query_row([], |r| r.get::<_, i64>(0))
            .map(|v| v.max(0) as u64)
    }

    /// Whether this is a large index ([`super::LARGE_INDEX_CHUNKS`]).
    pub fn is_large(&self) -> rusqlite::Result<bool> {
        Ok(self.chunk_id_max()? >= super::LARGE_INDEX_CHUNKS)
    }

    /// How many chunks match the FTS5 expression `match_expr`, counted up
    /// to `cap` (no ranking: the posting lists are only walked).
    pub fn fts_count_upto(&self, match_expr: &str, cap: usize) -> rusqlite::Result<usize> {
        self.conn
            .prepare_cached(
                "SELECT count(*) FROM (SELECT 1 FROM chunks_fts WHERE chunks_fts MATCH ?1 LIMIT ?2)",
            )?
            .query_row(params![match_expr, cap as i64], |r| r.get::<_, i64>(0))
            .map(|v| v.max(0) as usize)
    }

    /// Calls `f` with the best `limit` chunks matching the FTS5 expression
    /// `match_expr`, best first (then by path and start line). `weights`
    /// are those of the FTS columns: chunk body, enclosing symbol, path.
    /// FTS5's `bm25()` ranks them, through `bm25_topk`, which skips the
    /// rows that cannot be among the `limit` best (same rows, same scores).
    pub fn fts_chunks(
        &self,
        match_expr: &str,
        weights: (f64, f64, f64),
        limit: usize,
        mut f: impl FnMut(FtsRow<'_>),
    ) -> rusqlite::Result<()> {
        if self.fts_chunks_cached(match_expr, weights, limit, &mut f)? {
            return Ok(());
        }
        let mut stmt = self.conn.prepare_cached(
            &format!("SELECT c.id, f.path, c.start_line, c.end_line, c.symbol, c.kind, f.lang, r.score, {SPAN_COLUMNS}
             FROM (SELECT rowid AS id, bm25_topk(chunks_fts, ?2, ?3, ?4, ?5) AS score FROM chunks_fts
                   WHERE chunks_fts MATCH ?1 ORDER BY score LIMIT ?5) r
             JOIN chunks c ON c.id = r.id JOIN files f ON f.id = c.file_id
             ORDER BY r.score, f.path, c.start_line"),
        )?;
        let mut rows = stmt.query(params![
            match_expr,
            weights.0,
            weights.1,
            weights.2,
            limit as i64
        ])?;
        while let Some(r) = rows.next()? {
            f(FtsRow {
                chunk_id: r.get(0)?,
                path: r.get_ref(1)?.as_str()?,
                lang: r.get_ref(6)?.as_str_or_null()?.unwrap_or_default(),
                start_line: r.get(2)?,
                end_line: r.get(3)?,
                symbol: r.get_ref(4)?.as_str_or_null()?,
                kind: r.get_ref(5)?.as_str_or_null()?,
                score: r.get(7)?,
                span: span_at(r, 8)?,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FileUpdate, Store, embed_key};
    use crate::model::{Chunk, Extracted, Lang};

    fn chunk(line: u32, text: &str) -> Chunk {
        Chunk {
            start_line: line,
            end_line: line,
            symbol: None,
            kind: None,
            start_byte: 0,
            end_byte: text.len(),
            text: text.to_string(),
        }
    }

    /// A store holding one file, `a.rs`, with one chunk per text (ids from
    /// 1, in order).
    fn store_with_chunks(dir: &std::path::Path, texts: &[&str]) -> Store {
        let chunks = texts
            .iter()
            .enumerate()
            .map(|(i, t)| chunk(i as u32 + 1, t))
            .collect();
        store_with_file(dir, "a.rs", chunks)
    }

    /// A store holding one Rust file at `path` with `chunks` (ids from 1,
    /// in order).
    fn store_with_file(dir: &std::path::Path, path: &str, chunks: Vec<Chunk>) -> Store {
        let mut store = Store::open_rw(dir).expect("open");
        let extracted = Extracted {
            chunks,
            ..Extracted::default()
        };
        let w = store.begin().expect("begin");
        w.put_file(None, &FileUpdate::for_test(path, Lang::Rust, &extracted), 1)
            .expect("put file");
        w.commit().expect("commit");
        store
    }

    /// The chunks asked for that exist, each once, by id; an id that is
    /// gone is left out.
    #[test]
    fn chunk_rows_reads_the_existing_chunks_by_id() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = store_with_chunks(dir.path(), &["alpha", "beta", "gamma"]);
        let rows = store.chunk_rows(&[3, 1, 99, 3]).expect("chunk rows");
        let mut ids: Vec<i64> = rows.keys().copied().collect();
        ids.sort_unstable();
        assert_eq!(ids, [1, 3]);
        assert_eq!(rows[&3].start_line, 3);
        assert_eq!(rows[&1].path, "a.rs");
        assert!(store.chunk_rows(&[]).expect("no ids").is_empty());
    }

    /// `bm25_topk` returns `bm25()`'s best `k` rows with their scores to
    /// the bit, however many rows it prunes: over chunks of skewed word
    /// frequencies (common words in most rows, rare ones in few), for ORs
    /// with repeated stems, phrases, ANDs and every `k` from 1 past the
    /// number of matches, with the columns weighted as the search weighs
    /// them.
    #[test]
    fn bm25_topk_keeps_the_best_k_rows_of_bm25() {
        let dir = tempfile::tempdir().expect("tempdir");
        let words = [
            "config",
            "load",
            "field",
            "fields",
            "value",
            "parse",
            "error",
            "cache",
            "cached",
            "token",
            "retry",
            "connection",
            "memoize",
            "spinner",
            "route",
            "alpha",
        ];
        // A deterministic spread: word i appears in about 1 of 2^(i/2) rows,
        // 1-4 times, and row lengths vary from 3 to 60 tokens.
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut texts: Vec<String> = Vec::new();
        for _ in 0..600 {
            let mut t: Vec<&str> = Vec::new();
            for (i, w) in words.iter().enumerate() {
                if next() % (1 << (i / 2)) == 0 {
                    for _ in 0..=(next() % 4) {
                        t.push(w);
                    }
                }
            }
            t.extend(std::iter::repeat_n("filler", 3 + (next() % 58) as usize));
            texts.push(t.join(" "));
        }
        let chunks = texts
            .iter()
            .enumerate()
            .map(|(i, t)| Chunk {
                symbol: (i % 7 == 0).then(|| words[i % words.len()].to_string()),
                ..chunk(i as u32 + 1, t)
            })
            .collect();
        let store = store_with_file(dir.path(), "src/cache.rs", chunks);
        let best = |function: &str, expr: &str, k: usize| -> Vec<(i64, u64)> {
            let sql = format!(
                "SELECT rowid, {function} AS s FROM chunks_fts WHERE chunks_fts MATCH ?1 ORDER BY s, rowid LIMIT ?2"
            );
            let mut stmt = store.conn.prepare(&sql).expect("prepare");
            stmt.query_map(rusqlite::params![expr, k as i64], |r| {
                Ok((r.get::<_, i64>(0)?, r.get::<_, f64>(1)?.to_bits()))
            })
            .expect("query")
            .collect::<rusqlite::Result<_>>()
            .expect("rows")
        };
        for expr in [
            r#""config" OR "load" OR "field" OR "fields""#,
            r#""cache" OR "cached" OR "memoize" OR "field" OR "value" OR "error""#,
            r#""spinner" OR "retry" OR "connection" OR "token" OR "parse""#,
            r#""config load" OR "field value" OR "parse""#,
            r#"("field" AND "value") OR ("cache" AND "error") OR "alpha""#,
            r#""filler" OR "field""#,
        ] {
            let matches = best("bm25(chunks_fts, 1.0, 10.0, 3.0)", expr, 10_000).len();
            assert!(matches > 20, "{expr}: {matches} rows");
            for k in [1, 2, 5, 20, 55, matches - 1, matches, matches + 5] {
                let want = best("bm25(chunks_fts, 1.0, 10.0, 3.0)", expr, k);
                let got = best(
                    &format!("bm25_topk(chunks_fts, 1.0, 10.0, 3.0, {k})"),
                    expr,
                    k,
                );
                assert_eq!(got, want, "{expr}, k = {k}");
            }
        }
        // And it did prune: rows it left unscored (0.0) for k = 5.
        let pruned: i64 = store
            .conn
            .query_row(
                "SELECT count(*) FROM (SELECT bm25_topk(chunks_fts, 1.0, 10.0, 3.0, 5) AS s
                 FROM chunks_fts WHERE chunks_fts MATCH '\"filler\" OR \"field\"') WHERE s = 0.0",
                [],
                |r| r.get(0),
            )
            .expect("count");
        assert!(pruned > 100, "{pruned} rows pruned");
    }

    /// A connection with a term cache ranks ORs of words as FTS5 does, to
    /// the bit and in the same order (every `k`, words repeated under one
    /// stem, words no row has), hands anything else to FTS5, and follows the
    /// index: after a commit that rewrites and adds rows it ranks the new
    /// rows, not the postings it kept.
    #[test]
    fn term_cache_ranks_ors_of_words_as_fts5_does() {
        let dir = tempfile::tempdir().expect("tempdir");
        let words = [
            "config", "load", "field", "fields", "value", "parse", "error", "cache", "token",
            "retry",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut text = |n: usize| -> Vec<String> {
            (0..n)
                .map(|_| {
                    let mut t: Vec<&str> = Vec::new();
                    for (i, w) in words.iter().enumerate() {
                        if next() % (1 << (i / 2)) == 0 {
                            for _ in 0..=(next() % 3) {
                                t.push(w);
                            }
                        }
                    }
                    t.extend(std::iter::repeat_n("filler", 2 + (next() % 30) as usize));
                    t.join(" ")
                })
                .collect()
        };
        let chunks_of = |texts: &[String]| -> Vec<Chunk> {
            texts
                .iter()
                .enumerate()
                .map(|(i, t)| Chunk {
                    symbol: (i % 5 == 0).then(|| words[i % words.len()].to_string()),
                    ..chunk(i as u32 + 1, t)
                })
                .collect()
        };
        let mut store = store_with_file(dir.path(), "src/a.rs", chunks_of(&text(300)));
        let cached = Store::open_ro(dir.path())
            .expect("open")
            .expect("an index")
            .with_term_cache(std::sync::Arc::new(super::super::TermCache::new()));
        let ranked = |s: &Store, expr: &str, k: usize| -> Vec<(i64, String, u32, u64)> {
            let mut out = Vec::new();
            s.fts_chunks(expr, (1.0, 10.0, 3.0), k, |r| {
                out.push((
                    r.chunk_id,
                    r.path.to_string(),
                    r.start_line,
                    r.score.to_bits(),
                ))
            })
            .expect("fts chunks");
            out
        };
        let exprs = [
            r#""config" OR "load" OR "field" OR "fields""#,
            r#""cache" OR "value" OR "error" OR "nowhere""#,
            r#""retry" OR "token" OR "parse" OR "filler""#,
            r#""nowhere" OR "absent""#,
            r#""config load" OR "parse""#,
            r#""field" AND "value""#,
        ];
        let check = |store: &Store| {
            for expr in exprs {
                for k in [1, 3, 10, 55, 220, 10_000] {
                    assert_eq!(
                        ranked(&cached, expr, k),
                        ranked(store, expr, k),
                        "{expr}, k = {k}"
                    );
                }
            }
        };
        check(&store);
        // The answers came from the cache where they could.
        assert!(!ranked(&cached, exprs[0], 10).is_empty());
        assert!(
            cached
                .cached_top(exprs[0], (1.0, 10.0, 3.0), 10)
                .expect("cached")
                .is_some()
        );
        assert!(
            cached
                .cached_top(exprs[4], (1.0, 10.0, 3.0), 10)
                .expect("phrase")
                .is_none(),
            "a phrase of two words goes to FTS5"
        );
        // A commit rewrites the file (its old rows become tombstones) and
        // adds another: the cache starts over.
        let existing = store.file_record("src/a.rs").expect("record").map(|r| r.id);
        let w = store.begin().expect("begin");
        for (existing, path, n) in [(existing, "src/a.rs", 200), (None, "src/b.rs", 50)] {
            let extracted = Extracted {
                chunks: chunks_of(&text(n)),
                ..Extracted::default()
            };
            w.put_file(
                existing,
                &FileUpdate::for_test(path, Lang::Rust, &extracted),
                2,
            )
            .expect("put file");
        }
        w.commit().expect("commit");
        check(&store);
    }

    /// Rewriting files counts the full-text rows their old chunks leave as
    /// tombstones; at 1,000 (1% of a small index) `merge_fts` merges the
    /// index whole and starts counting again, and queries answer the same.
    #[test]
    fn full_text_tombstones_are_counted_then_merged_away() {
        use super::super::meta;
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open_rw(dir.path()).expect("open");
        let put = |store: &mut Store, existing: Option<i64>, word: &str| {
            let extracted = Extracted {
                chunks: (1..=600)
                    .map(|i| chunk(i, &format!("{word} number{i}")))
                    .collect(),
                ..Extracted::default()
            };
            let w = store.begin().expect("begin");
            let id = w
                .put_file(
                    existing,
                    &FileUpdate::for_test("a.py", Lang::Python, &extracted),
                    1,
                )
                .expect("put");
            w.commit().expect("commit");
            id
        };
        let deleted = |store: &Store| store.get_meta(meta::FTS_DELETED).expect("meta");
        let id = put(&mut store, None, "alpha");
        assert_eq!(deleted(&store), None);
        put(&mut store, Some(id), "beta");
        assert_eq!(deleted(&store).as_deref(), Some("600"));
        assert!(
            !store.merge_fts().expect("merge"),
            "600 is under the threshold"
        );
        put(&mut store, Some(id), "gamma");
        assert_eq!(deleted(&store).as_deref(), Some("1200"));
        assert!(store.merge_fts().expect("merge"));
        assert_eq!(deleted(&store).as_deref(), Some("0"));
        assert_eq!(
            (fts_hits(&store, "alpha"), fts_hits(&store, "beta")),
            (0, 0)
        );
        assert_eq!(fts_hits(&store, "gamma"), 600);
        assert_eq!(fts_hits(&store, "number7"), 1);
        // In steps (a watching daemon's way), to the same end.
        put(&mut store, Some(id), "delta");
        put(&mut store, Some(id), "epsilon");
        assert!(
            store
                .fts_merge_due(super::super::FtsMerge::Idle)
                .expect("due")
        );
        let mut steps = 0;
        while store.merge_fts_step(1).expect("step") {
            // Off while the merge is half done: runs between steps must
            // not carry it on.
            assert_eq!(fts_automerge(&store), Some(0));
            steps += 1;
            assert!(steps < 10_000, "the merge ends");
        }
        assert_eq!(fts_automerge(&store), Some(4), "on again once merged");
        assert_eq!(deleted(&store).as_deref(), Some("0"));
        assert!(
            !store
                .fts_merge_due(super::super::FtsMerge::Idle)
                .expect("due")
        );
        assert_eq!(
            (fts_hits(&store, "gamma"), fts_hits(&store, "delta")),
            (0, 0)
        );
        assert_eq!(fts_hits(&store, "epsilon"), 600);
        assert_eq!(fts_hits(&store, "number7"), 1);
    }

    /// How many chunks the full-text query `q` matches.
    fn fts_hits(store: &Store, q: &str) -> usize {
        let mut n = 0;
        store
            .fts_chunks(q, (1.0, 1.0, 1.0), 10_000, |_| n += 1)
            .expect("query");
        n
    }

    /// FTS5's 'automerge' setting as the index stores it.
    fn fts_automerge(store: &Store) -> Option<i64> {
        store
            .conn
            .query_row(
                "SELECT v FROM chunks_fts_config WHERE k = 'automerge'",
                [],
                |r| r.get(0),
            )
            .ok()
    }

    /// A merge in steps that is not done after one step leaves FTS5's
    /// automerge off (a run in between must not carry it on) and turns it
    /// back on when it ends; the answers stay the same.
    #[test]
    fn merge_in_steps_keeps_automerge_off_until_done() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open_rw(dir.path()).expect("open");
        // Three segments (FTS5 merges four as it writes) of many distinct
        // words: more than a page a step.
        for round in 0..3 {
            let extracted = Extracted {
                chunks: (1..=400)
                    .map(|i| {
                        let words: String = (0..20).map(|k| format!(" w{round}x{i}x{k}")).collect();
                        chunk(i, &format!("common{words}"))
                    })
                    .collect(),
                ..Extracted::default()
            };
            let path = format!("a{round}.py");
            let w = store.begin().expect("begin");
            w.put_file(
                None,
                &FileUpdate::for_test(&path, Lang::Python, &extracted),
                1,
            )
            .expect("put");
            w.commit().expect("commit");
        }
        let before = (fts_hits(&store, "common"), fts_hits(&store, "w2x7x3"));
        let mut steps = 0;
        while store.merge_fts_step(1).expect("step") {
            assert_eq!(fts_automerge(&store), Some(0), "off while half done");
            steps += 1;
            assert!(steps < 100_000, "the merge ends");
        }
        assert!(steps >= 2, "took {steps} steps");
        assert_eq!(fts_automerge(&store), Some(4), "on again once merged");
        assert_eq!(
            (fts_hits(&store, "common"), fts_hits(&store, "w2x7x3")),
            before
        );
        assert_eq!(before, (1200, 1));
    }

    /// A reference's scope comes back as written, stored once per file
    /// (`ref_scopes`); rewriting or deleting the file leaves none behind.
    #[test]
    fn ref_scopes_and_names_follow_their_file() {
        use crate::model::Reference;
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open_rw(dir.path()).expect("open");
        let r = |name: &str, line: u32, scope: Option<&str>| Reference {
            name: name.to_string(),
            kind: "call".to_string(),
            line,
            column: 1,
            qualifier: None,
            scope: scope.map(str::to_string),
        };
        let put = |store: &mut Store, path: &str, existing: Option<i64>, refs: Vec<Reference>| {
            let extracted = Extracted {
                refs,
                ..Extracted::default()
            };
            let w = store.begin().expect("begin");
            let id = w
                .put_file(
                    existing,
                    &FileUpdate::for_test(path, Lang::Python, &extracted),
                    1,
                )
                .expect("put");
            w.commit().expect("commit");
            id
        };
        let a = put(
            &mut store,
            "a.py",
            None,
            vec![
                r("run", 2, Some("Job.start")),
                r("run", 3, None),
                r("run", 4, Some("main")),
                r("run", 5, Some("Job.start")),
            ],
        );
        put(&mut store, "b.py", None, vec![r("run", 1, Some("main"))]);
        let scopes = |store: &Store| -> Vec<(String, u32, Option<String>)> {
            store
                .graph_refs("run")
                .expect("refs")
                .into_iter()
                .map(|g| (g.path, g.line, g.scope))
                .collect()
        };
        let s = |x: &str| Some(x.to_string());
        assert_eq!(
            scopes(&store),
            [
                ("a.py".into(), 2, s("Job.start")),
                ("a.py".into(), 3, None),
                ("a.py".into(), 4, s("main")),
                ("a.py".into(), 5, s("Job.start")),
                ("b.py".into(), 1, s("main")),
            ]
        );
        let stored = |store: &Store| -> i64 {
            store
                .conn
                .query_row(
                    "SELECT (SELECT count(*) FROM ref_names) * 10 + (SELECT count(*) FROM ref_files)",
                    [],
                    |r| r.get(0),
                )
                .expect("count")
        };
        assert_eq!(stored(&store), 22, "each file's names and blob once");
        put(
            &mut store,
            "a.py",
            Some(a),
            vec![r("run", 9, Some("other"))],
        );
        assert_eq!(
            scopes(&store),
            [
                ("a.py".into(), 9, s("other")),
                ("b.py".into(), 1, s("main"))
            ]
        );
        assert_eq!(stored(&store), 22);
        let w = store.begin().expect("begin");
        w.delete_file(a).expect("delete");
        w.commit().expect("commit");
        assert_eq!(stored(&store), 11, "no row of a deleted file is left");
    }

    /// Chunks in id order keep their vectors; a chunk without one is left
    /// out; two chunks with the same key share it; a row of another length
    /// than the first chunk's is skipped, even when the table lists it
    /// first; other models' vectors are not read.
    /// What BM25's "at least m words" levels rely on: under the OR of
    /// every m-word AND, FTS5 scores a chunk holding all n words C(n-1,
    /// m-1) times its score under the plain OR (every word is in that many
    /// subsets, all of them matching); one holding fewer has only its
    /// matching subsets scored, so at most that multiple; and the counts
    /// stop at their cap.
    #[test]
    fn level_scores_are_a_multiple_of_the_or_scores() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = store_with_chunks(
            dir.path(),
            &[
                "page fault handler for the kernel page tables",
                "page allocator and its free lists",
                "a fault in the device, handled by a retry",
                "handled page fault counters and page statistics",
                "unrelated text about network sockets",
                "more unrelated text",
                "and more unrelated text",
                "sockets again",
            ],
        );
        let terms: Vec<String> = ["page", "fault", "handled"]
            .iter()
            .map(|t| t.to_string())
            .collect();
        let scores = |expr: &str| {
            let mut out = Vec::new();
            store
                .fts_chunks(expr, (1.0, 10.0, 3.0), 100, |r| {
                    out.push((r.chunk_id, r.score))
                })
                .expect("fts");
            out
        };
        let or = scores(&crate::text::fts_query("page fault handled").expect("query"));
        assert_eq!(or.len(), 4);
        let or_score = |id: i64| or.iter().find(|(i, _)| *i == id).map(|(_, s)| *s);
        for m in 1..=3 {
            let level = scores(&crate::text::fts_at_least(&terms, m).expect("expression"));
            let factor = crate::text::binomial(2, m - 1) as f64;
            let mut ids: Vec<i64> = level.iter().map(|(id, _)| *id).collect();
            ids.sort_unstable();
            let want: &[i64] = match m {
                1 => &[1, 2, 3, 4],
                // Chunks 1, 3 and 4 hold two of the words or more.
                2 => &[1, 3, 4],
                _ => &[4],
            };
            assert_eq!(ids, want, "m = {m}");
            for (id, s) in &level {
                let o = or_score(*id).expect("in the OR");
                if *id == 4 || m == 1 {
                    assert!(
                        (s / factor - o).abs() < 1e-9,
                        "m = {m}, chunk {id}: {s} / {factor} vs {o}"
                    );
                } else {
                    assert!(
                        s / factor >= o - 1e-9,
                        "m = {m}, chunk {id}: {s} / {factor} vs {o}"
                    );
                }
            }
        }
        let two = crate::text::fts_at_least(&terms, 2).expect("expression");
        assert_eq!(store.fts_count_upto(&two, 100).expect("count"), 3);
        assert_eq!(store.fts_count_upto(&two, 2).expect("count"), 2);
        assert_eq!(store.chunk_id_max().expect("max"), 8);
    }

    /// A reader's coverage memo lasts while the generations do: a commit
    /// that changes neither (a server's re-check of an unchanged tree)
    /// keeps it, the vectors generation's bump (every vectors commit, a
    /// carried-over set, a compaction that dropped some) drops it.
    #[test]
    fn coverage_memo_follows_the_generations() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = store_with_chunks(dir.path(), &["alpha", "beta"]);
        let key = |t: &str| embed_key("a.rs", None, t);
        let reader = Store::open_ro(dir.path()).expect("open").expect("an index");
        assert_eq!(reader.embedding_coverage("m").expect("coverage"), (0, 2));
        {
            let w = store.begin().expect("begin");
            w.put_embeddings("m", &[(key("alpha"), &[1.0, 0.0][..])])
                .expect("put");
            w.set_meta("unrelated", "x").expect("meta");
            w.commit().expect("commit");
        }
        assert_eq!(
            reader.embedding_coverage("m").expect("coverage"),
            (0, 2),
            "no generation moved: the memo answers"
        );
        {
            let w = store.begin().expect("begin");
            super::super::write::bump_vectors_generation(&w.tx).expect("bump");
            w.commit().expect("commit");
        }
        assert_eq!(reader.embedding_coverage("m").expect("coverage"), (1, 2));
    }

    #[test]
    fn load_vectors_reads_rows_in_chunk_order() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store =
            store_with_chunks(dir.path(), &["alpha", "beta", "gamma", "alpha", "delta"]);
        let key = |t: &str| embed_key("a.rs", None, t);
        {
            let w = store.begin().expect("begin");
            // The corrupt (3-wide) row is inserted first, so it comes first
            // in table order; "gamma" has no vector.
            w.put_embeddings("m", &[(key("delta"), &[9.0, 9.0, 9.0][..])])
                .expect("put");
            w.put_embeddings(
                "m",
                &[
                    (key("alpha"), &[1.0, 0.0][..]),
                    (key("beta"), &[0.0, 1.0][..]),
                ],
            )
            .expect("put");
            w.put_embeddings("other", &[(key("gamma"), &[5.0, 5.0][..])])
                .expect("put");
            // A vector no chunk has (any more).
            w.put_embeddings("m", &[(key("zeta"), &[0.5, 0.5][..])])
                .expect("put");
            w.commit().expect("commit");
        }
        // Coverage counts chunks (a shared key twice, a corrupt row too),
        // not stored vectors.
        assert_eq!(store.embedding_coverage("m").expect("coverage"), (4, 5));
        assert_eq!(store.embedding_coverage("other").expect("coverage"), (1, 5));
        assert_eq!(
            store.embedding_coverage("absent").expect("coverage"),
            (0, 5)
        );
        let m = store.load_vectors("m").expect("load");
        assert_eq!(m.dim, 2);
        assert_eq!(m.chunk_ids, [1, 2, 4], "alpha, beta, alpha again");
        assert_eq!(m.file_ids, [1, 1, 1]);
        assert_eq!(m.data, [1.0, 0.0, 0.0, 1.0, 1.0, 0.0]);
        let none = store.load_vectors("absent").expect("load");
        assert_eq!((none.dim, none.chunk_ids.len()), (0, 0));
        // The same rows through another sink (the int8 codes semantic search
        // fills straight from the index for a large matrix).
        let (q, ids, files) = store
            .load_vectors_into("m", crate::search::quantized::Quantized::default())
            .expect("load");
        assert_eq!((ids, files), (vec![1, 2, 4], vec![1, 1, 1]));
        let same = crate::search::quantized::Quantized::from_f32(2, &m.data);
        let (qc, qs) = crate::search::quantized::quantize(&[0.6, 0.8]);
        assert_eq!(q.rows(), 3);
        for r in 0..3 {
            // (Stored codes have fewer levels than `from_f32`'s: the same
            // values, other rounding.)
            let (a, b) = (q.score(r, &qc, qs), same.score(r, &qc, qs));
            assert!((a - b).abs() < 1e-5, "row {r}: {a} vs {b}");
        }
    }

    /// An index upgraded from schema 12 holds int8 vectors; new ones are
    /// packed: both load into one matrix, each at its values.
    #[test]
    fn int8_and_packed_vectors_load_together() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = store_with_chunks(dir.path(), &["old", "new"]);
        let key = |t: &str| embed_key("a.rs", None, t);
        {
            let w = store.begin().expect("begin");
            w.put_embeddings("m", &[(key("new"), &[0.0, 2.0][..])])
                .expect("put");
            // scale 1/127 (positive: the int8 form), codes 127 and 0.
            let mut old = (1.0f32 / 127.0).to_le_bytes().to_vec();
            old.extend_from_slice(&[127, 0]);
            w.tx.execute(
                "INSERT INTO embeddings (model_id, key, vector) VALUES (1, ?1, ?2)",
                rusqlite::params![key("old") as i64, old],
            )
            .expect("int8 row");
            w.commit().expect("commit");
        }
        let m = store.load_vectors("m").expect("load");
        assert_eq!(m.chunk_ids, [1, 2]);
        let want = [1.0, 0.0, 0.0, 2.0];
        for (got, want) in m.data.iter().zip(want) {
            assert!((got - want).abs() < 1e-5, "{:?}", m.data);
        }
    }

    /// More vectors than one batch of the load: every one is read once,
    /// into its chunk's row, across the batch boundaries.
    #[test]
    fn load_vectors_reads_every_batch() {
        let dir = tempfile::tempdir().expect("tempdir");
        let n = super::VECTOR_BATCH * 2 + 3;
        let texts: Vec<String> = (0..n).map(|i| format!("t{i}")).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let mut store = store_with_chunks(dir.path(), &refs);
        {
            let w = store.begin().expect("begin");
            let vectors: Vec<(u64, [f32; 2])> = texts
                .iter()
                .enumerate()
                .map(|(i, t)| (embed_key("a.rs", None, t), [i as f32, 1.0]))
                .collect();
            let rows: Vec<(u64, &[f32])> = vectors.iter().map(|(k, v)| (*k, &v[..])).collect();
            w.put_embeddings("m", &rows).expect("put");
            w.commit().expect("commit");
        }
        let m = store.load_vectors("m").expect("load");
        assert_eq!(m.chunk_ids.len(), n);
        for (row, id) in m.chunk_ids.iter().enumerate() {
            // (Stored as 5-bit codes with a scale: within half a step,
            // the largest value / 30.)
            let want = (*id - 1) as f32;
            assert!(
                (m.data[row * 2] - want).abs() <= n as f32 / 30.0 + 0.01,
                "chunk {id}'s own vector: {} for {want}",
                m.data[row * 2]
            );
        }
        assert_eq!(
            store.embedding_coverage("m").expect("coverage"),
            (n as u64, n as u64)
        );
    }
}

/// A definition with what the code graph resolves against: its file, its
/// container and signature (base classes, a Go receiver) and its span.
#[derive(Debug, Clone)]
pub struct GraphDef {
    pub file_id: i64,
    pub path: String,
    /// Empty when the file's language is unknown.
    pub lang: String,
    pub name: String,
    pub kind: String,
    pub container: Option<String>,
    /// Empty while `line_signature` says it is to be read from the file.
    pub signature: String,
    pub line_signature: Option<LineSignature>,
    pub start_line: u32,
    pub end_line: u32,
    pub name_line: u32,
    pub name_col: u32,
}

/// A stored reference with its receiver and enclosing scope.
#[derive(Debug, Clone)]
pub struct GraphRef {
    pub file_id: i64,
    pub path: String,
    pub lang: String,
    pub name: String,
    pub kind: String,
    pub line: u32,
    pub col: u32,
    pub qualifier: Option<String>,
    pub scope: Option<String>,
}

/// Tables shown as one in [`Store::sizes`]: (shown name, [data, index]).
const LOGICAL_TABLES: [(&str, [&str; 2]); 2] = [
    ("symbols", ["symbol_files", "symbol_names"]),
    ("refs", ["ref_files", "ref_names"]),
];

impl Store {
    /// Id, path and language of the indexed (not skipped) files in `langs`
    /// (all of them when `langs` is empty).
    pub fn graph_files_of(&self, langs: &[&str]) -> rusqlite::Result<Vec<(i64, String, String)>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT id, path, coalesce(lang, '') FROM files WHERE skip_reason IS NULL ORDER BY path",
        )?;
        let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
        let mut out = Vec::new();
        for row in rows {
            let row: (i64, String, String) = row?;
            if langs.is_empty() || langs.contains(&row.2.as_str()) {
                out.push(row);
            }
        }
        Ok(out)
    }
}
