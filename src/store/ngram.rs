//! Owns the SQL of the trigram postings (schema 7): the file versions they
//! describe (`ngram_docs`) and one posting list per trigram
//! (`ngram_postings`). The encoding of a list is `search::ngram`'s; this
//! module stores and returns ids; a list is a blob of LEB128 gaps
//! ([`encode_append`], [`decode`]).

use std::collections::HashMap;

use rusqlite::{OptionalExtension, params};

use super::{Store, Writer};

/// A trigram packed into 24 bits (see `search::ngram`).
pub type Trigram = u32;

/// One file version the postings describe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NgramDoc {
    pub doc: u32,
    pub size: u64,
    pub mtime_ns: i64,
    /// When its content was read (for the racy-mtime rule).
    pub indexed_at_ns: i64,
    /// False for a file kept out of the postings (binary, UTF-16, too
    /// large): keyword search always reads it.
    pub covered: bool,
}

impl NgramDoc {
    /// Size stored for a pending row: no file has it, so the version never
    /// matches and the file is read until it is merged.
    const PENDING_SIZE: u64 = u64::MAX;

    /// A file the last run saw changed or new but did not read into the
    /// postings: listed, never ruled out, merged by a later run.
    pub fn pending(doc: u32, mtime_ns: i64) -> NgramDoc {
        NgramDoc {
            doc,
            size: Self::PENDING_SIZE,
            mtime_ns,
            indexed_at_ns: 0,
            covered: false,
        }
    }

    pub fn is_pending(&self) -> bool {
        !self.covered && self.size == Self::PENDING_SIZE
    }
}

/// What the postings cost, for status and benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NgramSizes {
    pub docs: u64,
    pub covered: u64,
    pub grams: u64,
    /// Bytes of the posting blobs.
    pub bytes: u64,
}

impl Store {
    /// Runs `f` in one read transaction: the docs and the posting lists it
    /// reads come from the same snapshot. Needed because a rebuild by a
    /// concurrent writer reuses doc ids: ids from one snapshot looked up in
    /// another's docs could name other files.
    pub fn ngram_snapshot<R>(
        &self,
        f: impl FnOnce(&Store) -> rusqlite::Result<R>,
    ) -> rusqlite::Result<R> {
        self.conn.execute_batch("BEGIN")?;
        match f(self) {
            Ok(out) => {
                self.conn.execute_batch("COMMIT")?;
                Ok(out)
            }
            Err(e) => {
                // The read's error is the one to report.
                let _ = self.conn.execute_batch("ROLLBACK");
                Err(e)
            }
        }
    }

    /// Every file version in the postings, keyed by root-relative path.
    pub fn ngram_docs(&self) -> rusqlite::Result<HashMap<String, NgramDoc>> {
        let mut stmt = self
            .conn
            .prepare("SELECT path, doc, size, mtime_ns, indexed_at_ns, covered FROM ngram_docs")?;
        let rows = stmt.query_map([], |r| {
            Ok((
                r.get::<_, String>(0)?,
                NgramDoc {
                    doc: r.get::<_, i64>(1)? as u32,
                    size: r.get::<_, i64>(2)? as u64,
                    mtime_ns: r.get(3)?,
                    indexed_at_ns: r.get(4)?,
                    covered: r.get::<_, i64>(5)? != 0,
                },
            ))
        })?;
        rows.collect()
    }

    /// Every doc's path (from the path index alone: a third of the time
    /// of [`Store::ngram_docs`] on the kernel's 78k files).
    pub fn ngram_paths(&self) -> rusqlite::Result<Vec<String>> {
        let mut stmt = self.conn.prepare_cached("SELECT path FROM ngram_docs")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect()
    }

    /// How many file versions the docs list.
    pub fn ngram_doc_count(&self) -> rusqlite::Result<usize> {
        self.conn
            .query_row("SELECT count(*) FROM ngram_docs", [], |r| {
                r.get::<_, i64>(0)
            })
            .map(|n| n as usize)
    }

    /// The path and coverage of the doc with this id, if it still has a row
    /// (an id in a posting list may name a replaced version).
    pub fn ngram_doc_path(&self, doc: u32) -> rusqlite::Result<Option<(String, bool)>> {
        self.conn
            .prepare_cached("SELECT path, covered FROM ngram_docs WHERE doc = ?1")?
            .query_row([i64::from(doc)], |r| {
                Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? != 0))
            })
            .optional()
    }

    /// The paths of docs not covered by the postings (kept out or pending):
    /// keyword search always reads them.
    pub fn ngram_uncovered(&self) -> rusqlite::Result<Vec<String>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT path FROM ngram_docs WHERE covered = 0")?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        rows.collect()
    }

    /// Whether the docs list this path.
    pub fn ngram_has_path(&self, path: &str) -> rusqlite::Result<bool> {
        self.conn
            .prepare_cached("SELECT 1 FROM ngram_docs WHERE path = ?1")?
            .query_row([path], |_| Ok(()))
            .optional()
            .map(|r| r.is_some())
    }

    /// Whether the docs list a path inside directory `dir` (root-relative,
    /// no trailing `/`).
    pub fn ngram_has_under(&self, dir: &str) -> rusqlite::Result<bool> {
        // Paths under `dir/` sort between `dir/` and `dir0` ('0' follows '/').
        let (lo, hi) = (format!("{dir}/"), format!("{dir}0"));
        self.conn
            .prepare_cached("SELECT 1 FROM ngram_docs WHERE path >= ?1 AND path < ?2 LIMIT 1")?
            .query_row([lo, hi], |_| Ok(()))
            .optional()
            .map(|r| r.is_some())
    }

    /// The ascending doc ids holding `gram` (empty when none does).
    pub fn ngram_postings(&self, gram: Trigram) -> rusqlite::Result<Vec<u32>> {
        let blob: Option<Vec<u8>> = self
            .conn
            .prepare_cached("SELECT docs FROM ngram_postings WHERE gram = ?1")?
            .query_row([i64::from(gram)], |r| r.get(0))
            .optional()?;
        Ok(blob.map(|b| decode(&b)).unwrap_or_default())
    }

    /// The ascending ids of the docs with a block map (large files).
    pub fn ngram_block_docs(&self) -> rusqlite::Result<Vec<u32>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT doc FROM ngram_blocks ORDER BY doc")?;
        let rows = stmt.query_map([], |r| r.get::<_, i64>(0).map(|d| d as u32))?;
        rows.collect()
    }

    /// A doc's block count and block map (`search::ngram::block_map`).
    pub fn ngram_blocks(&self, doc: u32) -> rusqlite::Result<Option<(u32, Vec<u8>)>> {
        self.conn
            .prepare_cached("SELECT blocks, map FROM ngram_blocks WHERE doc = ?1")?
            .query_row([i64::from(doc)], |r| {
                Ok((r.get::<_, i64>(0)? as u32, r.get::<_, Vec<u8>>(1)?))
            })
            .optional()
    }

    pub fn ngram_sizes(&self) -> rusqlite::Result<NgramSizes> {
        let (docs, covered): (i64, i64) = self.conn.query_row(
            "SELECT count(*), coalesce(sum(covered), 0) FROM ngram_docs",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let (grams, bytes): (i64, i64) = self.conn.query_row(
            "SELECT count(*), coalesce(sum(length(docs)), 0) FROM ngram_postings",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        Ok(NgramSizes {
            docs: docs as u64,
            covered: covered as u64,
            grams: grams as u64,
            bytes: bytes as u64,
        })
    }
}

impl Writer<'_> {
    /// Empties the postings (before a rebuild).
    pub fn ngram_clear(&self) -> rusqlite::Result<()> {
        self.tx.execute_batch(
            "DELETE FROM ngram_docs; DELETE FROM ngram_postings; DELETE FROM ngram_blocks;",
        )
    }

    /// Forgets a file version; its id may stay in posting lists, where an id
    /// without a doc row is ignored.
    pub fn ngram_delete_doc(&self, path: &str) -> rusqlite::Result<()> {
        self.ngram_forget_blocks(path)?;
        self.tx
            .prepare_cached("DELETE FROM ngram_docs WHERE path = ?1")?
            .execute([path])?;
        Ok(())
    }

    /// Drops the block map of the path's current version (before it is
    /// replaced or deleted).
    pub fn ngram_forget_blocks(&self, path: &str) -> rusqlite::Result<()> {
        self.tx
            .prepare_cached(
                "DELETE FROM ngram_blocks WHERE doc IN (SELECT doc FROM ngram_docs WHERE path = ?1)",
            )?
            .execute([path])?;
        Ok(())
    }

    /// Stores a doc's block map (`search::ngram::block_map`).
    pub fn ngram_put_blocks(&self, doc: u32, blocks: u32, map: &[u8]) -> rusqlite::Result<()> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO ngram_blocks (doc, blocks, map) VALUES (?1, ?2, ?3)",
            )?
            .execute(params![i64::from(doc), i64::from(blocks), map])?;
        Ok(())
    }

    /// Records a file version (replacing the path's previous one).
    pub fn ngram_put_doc(&self, path: &str, d: &NgramDoc) -> rusqlite::Result<()> {
        self.tx
            .prepare_cached(
                "INSERT OR REPLACE INTO ngram_docs (doc, path, size, mtime_ns, indexed_at_ns, covered)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                i64::from(d.doc),
                path,
                d.size as i64,
                d.mtime_ns,
                d.indexed_at_ns,
                i64::from(d.covered)
            ])?;
        Ok(())
    }

    /// Appends ids already encoded: `first`, then `rest` (the ids after it,
    /// as [`encode_append`] writes them after `first`); all larger than any
    /// stored for `gram`.
    pub fn ngram_append_encoded(
        &self,
        gram: Trigram,
        first: u32,
        rest: &[u8],
    ) -> rusqlite::Result<()> {
        let gram = i64::from(gram);
        let stored: Option<Vec<u8>> = self
            .tx
            .prepare_cached("SELECT docs FROM ngram_postings WHERE gram = ?1")?
            .query_row([gram], |r| r.get(0))
            .optional()?;
        match stored {
            Some(mut blob) => {
                let stored_last = last_id(&blob);
                blob.reserve(rest.len() + 5);
                encode_append(&mut blob, stored_last, &[first]);
                blob.extend_from_slice(rest);
                self.tx
                    .prepare_cached("UPDATE ngram_postings SET docs = ?2 WHERE gram = ?1")?
                    .execute(params![gram, blob])?;
            }
            None => {
                let mut blob = Vec::with_capacity(rest.len() + 5);
                encode_append(&mut blob, None, &[first]);
                blob.extend_from_slice(rest);
                self.tx
                    .prepare_cached("INSERT INTO ngram_postings (gram, docs) VALUES (?1, ?2)")?
                    .execute(params![gram, blob])?;
            }
        }
        Ok(())
    }
}

/// Appends ascending document ids to a posting list whose last id is
/// `last` (`None` for an empty list): LEB128 varints of the gaps, the first
/// gap counted from -1 so id 0 is encodable. Returns the new last id.
pub fn encode_append(out: &mut Vec<u8>, last: Option<u32>, ids: &[u32]) -> Option<u32> {
    let mut prev = last.map_or(-1i64, i64::from);
    for &id in ids {
        let mut gap = (i64::from(id) - prev - 1).max(0) as u64;
        prev = i64::from(id);
        loop {
            let byte = (gap & 0x7F) as u8;
            gap >>= 7;
            if gap == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        }
    }
    if prev < 0 { last } else { Some(prev as u32) }
}

/// Decodes a posting list written by [`encode_append`]; stops at a
/// truncated varint (a damaged blob yields fewer ids, never garbage ids
/// beyond it).
pub fn decode(blob: &[u8]) -> Vec<u32> {
    let mut out = Vec::with_capacity(blob.len());
    each_id(blob, |id| out.push(id));
    out
}

/// The last id of a posting list, without materialising it (appends
/// need only that).
fn last_id(blob: &[u8]) -> Option<u32> {
    let mut last = None;
    each_id(blob, |id| last = Some(id));
    last
}

fn each_id(blob: &[u8], mut each: impl FnMut(u32)) {
    let mut prev: i64 = -1;
    let mut gap: u64 = 0;
    let mut shift = 0u32;
    for &b in blob {
        if shift < 64 {
            gap |= u64::from(b & 0x7F) << shift;
        }
        if b & 0x80 != 0 {
            shift += 7;
            continue;
        }
        prev += gap as i64 + 1;
        each(prev as u32);
        gap = 0;
        shift = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postings_roundtrip_and_append() {
        let mut blob = Vec::new();
        let last = encode_append(&mut blob, None, &[0, 1, 5, 300, 70_000]);
        assert_eq!(last, Some(70_000));
        let last = encode_append(&mut blob, last, &[70_001, 1 << 30]);
        assert_eq!(decode(&blob), [0, 1, 5, 300, 70_000, 70_001, 1 << 30]);
        assert_eq!(last, Some(1 << 30));
        assert_eq!(encode_append(&mut blob, last, &[]), last);
        assert!(decode(&[]).is_empty());
        // A truncated varint yields the complete ids before it.
        assert_eq!(decode(&[0, 0x80]), [0]);
    }

    #[test]
    fn encoded_appends_continue_the_stored_list() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut store = Store::open_rw(dir.path()).expect("open");
        // Held lists as the builder keeps them: the first id, then the
        // others encoded after it.
        let held = |ids: &[u32]| {
            let mut rest = Vec::new();
            encode_append(&mut rest, Some(ids[0]), &ids[1..]);
            (ids[0], rest)
        };
        let w = store.begin().expect("begin");
        for ids in [&[0u32, 3, 200][..], &[201], &[70_000, 70_001, 1 << 30]] {
            let (first, rest) = held(ids);
            w.ngram_append_encoded(7, first, &rest).expect("append");
        }
        let (first, rest) = held(&[5]);
        w.ngram_append_encoded(8, first, &rest).expect("append");
        w.commit().expect("commit");
        assert_eq!(
            store.ngram_postings(7).expect("read"),
            [0, 3, 200, 201, 70_000, 70_001, 1 << 30]
        );
        assert_eq!(store.ngram_postings(8).expect("read"), [5]);
    }
}
