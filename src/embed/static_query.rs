//! Owns the query-time form of a static (model2vec) model: what a search
//! needs to embed one query, loaded in a few milliseconds. Does not embed
//! chunks for the index (that is [`super::static_model`], through
//! `model2vec-rs`, tens of thousands of chunks per second).
//!
//! Why it exists: `model2vec-rs` loads a model by decoding the whole
//! embedding table (30 MB for potion-base-8M) and building a double-array
//! trie of the vocabulary, about 60 ms of a cold CLI search that then looks
//! up ten rows. Here the vocabulary is a hash map and only the rows of the
//! query's tokens are read from `model.safetensors`, at their offsets.
//!
//! The vectors are the same, bit for bit: the tokenizer is the
//! BertNormalizer + BertPreTokenizer + WordPiece pipeline of
//! `model2vec-rs` 0.4 ([`super::wordpiece`]), and the pooling adds rows in
//! the same order. [`QueryModel::load`] accepts only
//! what it reproduces exactly (that pipeline, a plain f32 table without
//! per-token weights or a token mapping, the first file layout
//! `model2vec-rs` looks for) and returns `None` for anything else, so the
//! caller falls back to `model2vec-rs`. A test compares both on every chunk
//! of a corpus and on tricky Unicode (`static_query_matches_model2vec`).

use std::collections::HashMap;
use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, anyhow};
use serde::Deserialize;

use super::code_delta::CodeDelta;
use super::wordpiece::WordPiece;

/// A static model ready to embed queries.
pub struct QueryModel {
    tokenizer: WordPiece,
    /// `model.safetensors`, open; rows are read at their offsets.
    table: File,
    /// Byte offset of row 0 in `table`.
    data_start: u64,
    rows: usize,
    dim: usize,
    /// L2-normalise the pooled vector (config.json's `normalize`).
    normalize: bool,
    /// Added to each row read (the built-in fast model's code delta).
    delta: Option<&'static CodeDelta>,
    /// Rows read for token matching, kept for the process's later
    /// questions (at most the whole table, 30 MB for potion-base-8M).
    matched_rows: Mutex<foldhash::HashMap<u32, Arc<[f32]>>>,
    /// The distinct tokens of texts matched before, by the texts' hash (a
    /// process answers many questions over the same code).
    matched_texts: Mutex<foldhash::HashMap<u64, Arc<[u32]>>>,
}

/// At most this many texts' tokens are kept ([`QueryModel::matched_texts`]);
/// past it the memory starts over.
const MATCHED_TEXTS: usize = 20_000;

impl QueryModel {
    /// Loads the model in `dir` if this module reproduces it exactly;
    /// `Ok(None)` when it does not (the caller uses `model2vec-rs`).
    pub fn load(dir: &Path, delta: Option<&'static CodeDelta>) -> Result<Option<QueryModel>> {
        let (config, tokenizer, model) = (
            dir.join("config.json"),
            dir.join("tokenizer.json"),
            dir.join("model.safetensors"),
        );
        // model2vec-rs tries this layout first; others are left to it.
        if !(config.exists() && tokenizer.exists() && model.exists()) {
            return Ok(None);
        }
        let cfg: serde_json::Value = serde_json::from_slice(
            &std::fs::read(&config)
                .with_context(|| format!("cannot read `{}`", config.display()))?,
        )
        .with_context(|| format!("cannot parse `{}`", config.display()))?;
        let normalize = cfg
            .get("normalize")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(true);
        let bytes = std::fs::read(&tokenizer)
            .with_context(|| format!("cannot read `{}`", tokenizer.display()))?;
        let Some(tokenizer) = WordPiece::from_json(&bytes) else {
            return Ok(None);
        };
        let table =
            File::open(&model).with_context(|| format!("cannot open `{}`", model.display()))?;
        let Some((data_start, rows, dim)) = embedding_table(&table)
            .with_context(|| format!("cannot read the header of `{}`", model.display()))?
        else {
            return Ok(None);
        };
        if tokenizer.max_id() >= rows {
            return Ok(None);
        }
        let model = QueryModel {
            tokenizer,
            table,
            data_start,
            rows,
            dim,
            normalize,
            delta: None,
            matched_rows: Mutex::new(foldhash::HashMap::default()),
            matched_texts: Mutex::new(foldhash::HashMap::default()),
        };
        if let Some(d) = delta {
            d.check_base(rows, dim, |id| model.row(id))?;
        }
        Ok(Some(QueryModel { delta, ..model }))
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The pooled vector of `text`, as `StaticModel::encode_with_args`
    /// with `max_length = Some(max_tokens)` computes it.
    pub fn embed(&self, text: &str, max_tokens: usize) -> Result<Vec<f32>> {
        let text = truncate_str(text, max_tokens, self.tokenizer.median_token_length);
        let mut ids = Vec::new();
        self.tokenizer.encode_ids(text, &mut ids);
        ids.truncate(max_tokens);
        let dim = self.dim;
        let mut sum = vec![0.0f32; dim];
        let mut bytes = vec![0u8; dim * 4];
        let mut row = vec![0.0f32; dim];
        let mut count = 0usize;
        for &id in &ids {
            if Some(id) == self.tokenizer.unk_id {
                continue;
            }
            self.read_row(id, &mut bytes, &mut row)?;
            // Left to right, one row at a time: the order (and so the
            // rounding) of model2vec-rs's blocked sum.
            for (s, x) in sum.iter_mut().zip(&row) {
                *s += x;
            }
            count += 1;
        }
        let denom = count.max(1) as f32;
        if self.normalize {
            let mut sq = 0.0f32;
            for x in sum.iter_mut() {
                *x /= denom;
                sq += *x * *x;
            }
            let norm = sq.sqrt().max(1e-12);
            for x in sum.iter_mut() {
                *x /= norm;
            }
        } else {
            for x in sum.iter_mut() {
                *x /= denom;
            }
        }
        Ok(sum)
    }
}

impl QueryModel {
    /// Reads row `id` of the embedding table into `row` (`dim` long), the
    /// delta applied, through `bytes` (`dim * 4` long).
    fn read_row(&self, id: u32, bytes: &mut [u8], row: &mut [f32]) -> Result<()> {
        let at = id as usize;
        if at >= self.rows {
            return Err(anyhow!("token id {at} is outside the embedding table"));
        }
        self.table
            .read_exact_at(bytes, self.data_start + (at * self.dim * 4) as u64)
            .context("cannot read the static model's embedding table")?;
        decode_row(bytes, row);
        if let Some(d) = self.delta {
            d.apply(id, row);
        }
        Ok(())
    }

    /// Row `id`, the delta applied.
    fn row(&self, id: u32) -> Result<Vec<f32>> {
        let mut row = vec![0.0f32; self.dim];
        self.read_row(id, &mut vec![0u8; self.dim * 4], &mut row)?;
        Ok(row)
    }

    /// The unknown-word id and the special tokens (`[CLS]`, `[SEP]`, ...).
    fn is_special(&self, id: u32) -> bool {
        Some(id) == self.tokenizer.unk_id
            || self.tokenizer.added_tokens.iter().any(|(_, a)| *a == id)
    }

    /// Token `id`'s row from `rows` (the locked [`QueryModel::matched_rows`]),
    /// read from the table and kept there the first time.
    fn row_in<'m>(
        &self,
        rows: &'m mut foldhash::HashMap<u32, Arc<[f32]>>,
        id: u32,
    ) -> Result<&'m Arc<[f32]>> {
        Ok(match rows.entry(id) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => e.insert(self.row(id)?.into()),
        })
    }

    fn matched_rows(&self) -> std::sync::MutexGuard<'_, foldhash::HashMap<u32, Arc<[f32]>>> {
        self.matched_rows.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl super::TokenTable for QueryModel {
    fn token_ids(&self, text: &str, out: &mut Vec<u32>) {
        let mut ids = Vec::new();
        self.tokenizer.encode_ids(text, &mut ids);
        out.extend(ids.into_iter().filter(|&id| !self.is_special(id)));
    }

    fn distinct_token_ids(&self, texts: &[String], prepare: fn(&str) -> String) -> Vec<Arc<[u32]>> {
        let keys: Vec<u64> = texts
            .iter()
            .map(|t| xxhash_rust::xxh3::xxh3_64(t.as_bytes()))
            .collect();
        let known: Vec<Option<Arc<[u32]>>> = {
            let seen = self.matched_texts.lock().unwrap_or_else(|e| e.into_inner());
            keys.iter().map(|k| seen.get(k).cloned()).collect()
        };
        // Each distinct word is split into pieces once.
        let mut memo: foldhash::HashMap<String, Vec<u32>> = foldhash::HashMap::default();
        let mut piece = String::new();
        let mut word = |w: &str, out: &mut Vec<u32>| {
            if let Some(ids) = memo.get(w) {
                out.extend_from_slice(ids);
                return;
            }
            let mark = out.len();
            self.tokenizer.word_to_ids(w, out, &mut piece);
            memo.insert(w.to_string(), out[mark..].to_vec());
        };
        let mut new: Vec<(u64, Arc<[u32]>)> = Vec::new();
        let out = texts
            .iter()
            .zip(known)
            .zip(&keys)
            .map(|((text, known), &key)| {
                if let Some(ids) = known {
                    return ids;
                }
                let mut ids = Vec::new();
                self.tokenizer
                    .encode_with(&prepare(text), &mut ids, &mut word);
                ids.retain(|&id| !self.is_special(id));
                ids.sort_unstable();
                ids.dedup();
                let ids: Arc<[u32]> = ids.into();
                new.push((key, Arc::clone(&ids)));
                ids
            })
            .collect();
        let mut seen = self.matched_texts.lock().unwrap_or_else(|e| e.into_inner());
        if seen.len() + new.len() > MATCHED_TEXTS {
            seen.clear();
        }
        seen.extend(new);
        out
    }

    fn token_vector(&self, id: u32) -> Result<Arc<[f32]>> {
        self.row_in(&mut self.matched_rows(), id).map(Arc::clone)
    }

    fn each_token_vector(&self, ids: &[u32], f: &mut dyn FnMut(&[f32])) -> Result<()> {
        let mut rows = self.matched_rows();
        for &id in ids {
            f(self.row_in(&mut rows, id)?);
        }
        Ok(())
    }
}

/// Where the embedding table of a safetensors file starts, its rows and
/// columns; `None` for anything but one plain f32 table (model2vec-rs also
/// reads per-token `weights` and a token `mapping`, not reproduced here).
fn embedding_table(file: &File) -> Result<Option<(u64, usize, usize)>> {
    let mut len = [0u8; 8];
    file.read_exact_at(&mut len, 0)?;
    let header_len = header_len(len)?;
    let mut header = vec![0u8; header_len as usize];
    file.read_exact_at(&mut header, 8)?;
    table_in_header(&header, header_len, file.metadata()?.len())
}

/// Little-endian f32 `bytes` into `row`.
pub(super) fn decode_row(bytes: &[u8], row: &mut [f32]) {
    for (x, b) in row.iter_mut().zip(bytes.chunks_exact(4)) {
        *x = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    }
}

/// [`embedding_table`] of a safetensors file read whole.
pub(super) fn embedding_table_in(bytes: &[u8]) -> Result<Option<(u64, usize, usize)>> {
    let len: [u8; 8] = bytes
        .get(..8)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| anyhow!("the file is shorter than a safetensors header"))?;
    let header_len = header_len(len)?;
    let header = bytes
        .get(8..8 + header_len as usize)
        .ok_or_else(|| anyhow!("the file is shorter than its header says"))?;
    table_in_header(header, header_len, bytes.len() as u64)
}

/// The header length a safetensors file's first 8 bytes give, refused
/// past 100 MiB (no model's header is near that).
pub(super) fn header_len(len: [u8; 8]) -> Result<u64> {
    let header_len = u64::from_le_bytes(len);
    if header_len > 100 * 1024 * 1024 {
        return Err(anyhow!("safetensors header of {header_len} bytes"));
    }
    Ok(header_len)
}

fn table_in_header(
    header: &[u8],
    header_len: u64,
    file_len: u64,
) -> Result<Option<(u64, usize, usize)>> {
    #[derive(Deserialize)]
    struct TensorInfo {
        dtype: String,
        shape: Vec<usize>,
        data_offsets: [u64; 2],
    }
    let header: HashMap<String, serde_json::Value> = serde_json::from_slice(header)?;
    if header.contains_key("weights") || header.contains_key("mapping") {
        return Ok(None);
    }
    // The names model2vec-rs looks for, in its order.
    let Some(info) = ["embeddings", "0", "embedding.weight"]
        .iter()
        .find_map(|name| header.get(*name))
    else {
        return Ok(None);
    };
    let info: TensorInfo = serde_json::from_value(info.clone())?;
    let [rows, cols] = info.shape[..] else {
        return Ok(None);
    };
    if info.dtype != "F32"
        || cols == 0
        || info.data_offsets[1].checked_sub(info.data_offsets[0]) != Some((rows * cols * 4) as u64)
    {
        return Ok(None);
    }
    let start = 8 + header_len + info.data_offsets[0];
    if file_len < start + (rows * cols * 4) as u64 {
        return Err(anyhow!("the file is shorter than its header says"));
    }
    Ok(Some((start, rows, cols)))
}

/// model2vec-rs cuts a text to `max_tokens × median token length` chars
/// before tokenizing.
fn truncate_str(s: &str, max_tokens: usize, median_len: usize) -> &str {
    s.char_indices()
        .nth(max_tokens.saturating_mul(median_len))
        .map_or(s, |(byte_idx, _)| &s[..byte_idx])
}
