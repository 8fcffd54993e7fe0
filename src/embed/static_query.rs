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
//! The vectors are the same, bit for bit: the tokenizer below is the
//! BertNormalizer + BertPreTokenizer + WordPiece pipeline of
//! `model2vec-rs` 0.4 (`src/fast_wordpiece.rs`, MIT licence, by the
//! MinishLab authors), with the trie walk replaced by hash lookups, and the
//! pooling adds rows in the same order. [`QueryModel::load`] accepts only
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
use unicode_categories::UnicodeCategories;
use unicode_normalization::UnicodeNormalization;

use super::code_delta::CodeDelta;

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

fn header_len(len: [u8; 8]) -> Result<u64> {
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

/// The parts of `tokenizer.json` that [`WordPiece::from_json`] reads.
#[derive(Deserialize)]
struct TokenizerJson {
    #[serde(default)]
    added_tokens: Vec<AddedTokenJson>,
    normalizer: Option<NormalizerJson>,
    pre_tokenizer: Option<PreTokenizerJson>,
    model: ModelJson,
}

#[derive(Deserialize)]
struct AddedTokenJson {
    content: String,
    single_word: bool,
    lstrip: bool,
    rstrip: bool,
    normalized: bool,
}

#[derive(Deserialize)]
struct NormalizerJson {
    #[serde(rename = "type")]
    kind: String,
    clean_text: Option<bool>,
    handle_chinese_chars: Option<bool>,
    strip_accents: Option<bool>,
    lowercase: Option<bool>,
}

#[derive(Deserialize)]
struct PreTokenizerJson {
    #[serde(rename = "type")]
    kind: String,
}

#[derive(Deserialize)]
struct ModelJson {
    #[serde(rename = "type")]
    kind: Option<String>,
    unk_token: Option<String>,
    continuing_subword_prefix: Option<String>,
    max_input_chars_per_word: Option<usize>,
    #[serde(default, deserialize_with = "sized_vocab")]
    vocab: Option<foldhash::HashMap<String, u32>>,
}

/// The vocabulary map, allocated once: grown entry by entry, its rehashes
/// were a sixth of loading the model.
fn sized_vocab<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<foldhash::HashMap<String, u32>>, D::Error> {
    struct Vocab;
    impl<'de> serde::de::Visitor<'de> for Vocab {
        type Value = foldhash::HashMap<String, u32>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a map of tokens to ids")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut m: A,
        ) -> std::result::Result<Self::Value, A::Error> {
            let mut out = foldhash::HashMap::with_capacity_and_hasher(
                m.size_hint().unwrap_or(0).max(1 << 15),
                Default::default(),
            );
            while let Some((k, v)) = m.next_entry::<String, u32>()? {
                out.insert(k, v);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Vocab).map(Some)
}

/// IDs-only WordPiece for the BERT pipeline (see the module comment).
struct WordPiece {
    vocab: foldhash::HashMap<String, u32>,
    continuing_subword_prefix: String,
    unk_id: Option<u32>,
    max_input_chars_per_word: usize,
    clean_text: bool,
    handle_chinese_chars: bool,
    strip_accents: bool,
    lowercase: bool,
    /// Longest content first, so a shorter token cannot shadow a longer one.
    added_tokens: Vec<(String, u32)>,
    added_token_first_bytes: [bool; 256],
    median_token_length: usize,
}

impl WordPiece {
    /// `None` exactly where model2vec-rs's `FastWordPiece::from_json` gives
    /// up (another pipeline, a missing field, added tokens it does not
    /// handle): model2vec-rs then tokenizes with the `tokenizers` crate,
    /// which this module does not reproduce.
    fn from_json(bytes: &[u8]) -> Option<WordPiece> {
        let json: TokenizerJson = serde_json::from_slice(bytes).ok()?;
        let model = json.model;
        if model.kind.as_deref() != Some("WordPiece")
            || json.pre_tokenizer?.kind != "BertPreTokenizer"
        {
            return None;
        }
        let norm = json.normalizer?;
        if norm.kind != "BertNormalizer" {
            return None;
        }
        let lowercase = norm.lowercase?;
        let vocab = model.vocab?;
        let unk_id = *vocab.get(&model.unk_token?)?;
        let mut added_tokens: Vec<(String, u32)> = Vec::with_capacity(json.added_tokens.len());
        for t in json.added_tokens {
            if t.content.is_empty() || t.normalized || t.single_word || t.lstrip || t.rstrip {
                return None;
            }
            if added_tokens
                .iter()
                .any(|(content, _)| *content == t.content)
            {
                return None;
            }
            let id = *vocab.get(&t.content)?;
            added_tokens.push((t.content, id));
        }
        added_tokens.sort_by(|(a, _), (b, _)| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
        let mut added_token_first_bytes = [false; 256];
        for (content, _) in &added_tokens {
            added_token_first_bytes[content.as_bytes()[0] as usize] = true;
        }
        let mut lens: Vec<usize> = vocab.keys().map(String::len).collect();
        lens.sort_unstable();
        let median_token_length = lens.get(lens.len() / 2).copied().unwrap_or(1);
        Some(WordPiece {
            continuing_subword_prefix: model.continuing_subword_prefix?,
            unk_id: Some(unk_id),
            max_input_chars_per_word: model.max_input_chars_per_word?,
            clean_text: norm.clean_text?,
            handle_chinese_chars: norm.handle_chinese_chars?,
            // `strip_accents: None` follows the lowercase setting, as in
            // Hugging Face's tokenizers.
            strip_accents: norm.strip_accents.unwrap_or(lowercase),
            lowercase,
            added_tokens,
            added_token_first_bytes,
            median_token_length,
            vocab,
        })
    }

    fn max_id(&self) -> usize {
        self.vocab.values().copied().max().unwrap_or(0) as usize
    }

    /// Appends the token ids of `text` (unknown words as the unk id).
    fn encode_ids(&self, text: &str, out: &mut Vec<u32>) {
        let mut piece = String::new();
        self.encode_with(text, out, &mut |word, out| {
            self.word_to_ids(word, out, &mut piece)
        });
    }

    /// [`Self::encode_ids`] with each word's ids from `word` (which may
    /// remember them: code repeats its words).
    fn encode_with(
        &self,
        text: &str,
        out: &mut Vec<u32>,
        word: &mut dyn FnMut(&str, &mut Vec<u32>),
    ) {
        let mut scratch = String::new();
        // Split on added tokens (leftmost-longest), then run the BERT
        // pipeline on each span of ordinary text between them.
        let bytes = text.as_bytes();
        let mut start = 0;
        let mut i = 0;
        while i < text.len() {
            let hit = self.added_token_first_bytes[bytes[i] as usize]
                .then(|| {
                    self.added_tokens
                        .iter()
                        .find(|(content, _)| text[i..].starts_with(content.as_str()))
                })
                .flatten();
            match hit {
                Some((content, id)) => {
                    self.encode_span(&text[start..i], out, &mut scratch, word);
                    out.push(*id);
                    i += content.len();
                    start = i;
                }
                // Added tokens are valid UTF-8: step a whole char.
                None => i += text[i..].chars().next().map_or(1, char::len_utf8),
            }
        }
        self.encode_span(&text[start..], out, &mut scratch, word);
    }

    fn encode_span(
        &self,
        span: &str,
        out: &mut Vec<u32>,
        normalized: &mut String,
        word: &mut dyn FnMut(&str, &mut Vec<u32>),
    ) {
        if span.is_empty() {
            return;
        }
        normalized.clear();
        self.normalize_into(span, normalized);
        pre_tokenize(normalized, |w| word(w, out));
    }

    fn push_unk(&self, out: &mut Vec<u32>) {
        if let Some(u) = self.unk_id {
            out.push(u);
        }
    }

    /// Greedy longest-match-first. A word that cannot be fully tokenized
    /// (or exceeds `max_input_chars_per_word`) maps to one unk token.
    fn word_to_ids(&self, word: &str, out: &mut Vec<u32>, piece: &mut String) {
        if word.len() > self.max_input_chars_per_word
            && word.chars().count() > self.max_input_chars_per_word
        {
            self.push_unk(out);
            return;
        }
        let mark = out.len();
        let mut start = 0;
        while start < word.len() {
            // Vocabulary entries are valid UTF-8, so a match ends on a char
            // boundary: try the longest first.
            let mut found = None;
            let mut end = word.len();
            while end > start {
                if word.is_char_boundary(end) {
                    piece.clear();
                    if start > 0 {
                        piece.push_str(&self.continuing_subword_prefix);
                    }
                    piece.push_str(&word[start..end]);
                    if let Some(&id) = self.vocab.get(piece.as_str()) {
                        found = Some((id, end));
                        break;
                    }
                }
                end -= 1;
            }
            match found {
                Some((id, end)) => {
                    out.push(id);
                    start = end;
                }
                None => {
                    out.truncate(mark);
                    self.push_unk(out);
                    return;
                }
            }
        }
    }

    /// Appends the normalized `input` to `out`.
    fn normalize_into(&self, input: &str, out: &mut String) {
        if input.is_ascii() {
            self.normalize_ascii(input, out)
        } else {
            self.normalize_mixed(input, out)
        }
    }

    /// Runs of printable ASCII (plus `\t\n\r`) take the ASCII path,
    /// everything between them the Unicode path.
    fn normalize_mixed(&self, input: &str, out: &mut String) {
        out.reserve(input.len());
        let bytes = input.as_bytes();
        let mut start = 0;
        while start < bytes.len() {
            let plain = is_plain_ascii(bytes[start]);
            let end = bytes[start..]
                .iter()
                .position(|&b| is_plain_ascii(b) != plain)
                .map_or(bytes.len(), |n| start + n);
            let run = &input[start..end];
            if plain {
                self.normalize_ascii(run, out);
            } else {
                self.normalize_unicode(run, out);
            }
            start = end;
        }
    }

    fn normalize_ascii(&self, input: &str, out: &mut String) {
        out.reserve(input.len());
        for &orig in input.as_bytes() {
            let mut b = orig;
            if self.clean_text {
                match b {
                    b'\t' | b'\n' | b'\r' => b = b' ',
                    0..=0x1f | 0x7f => continue,
                    _ => {}
                }
            }
            if self.lowercase && b.is_ascii_uppercase() {
                b += b'a' - b'A';
            }
            out.push(b as char);
        }
    }

    /// Clean + Chinese-character step for one char.
    fn stage(&self, c: char) -> [Option<char>; 3] {
        if self.clean_text {
            if c == '\0' || c == '\u{fffd}' || is_control(c) {
                return [None; 3];
            }
            if is_whitespace(c) {
                return [Some(' '), None, None];
            }
        }
        if self.handle_chinese_chars && is_chinese_char(c) {
            return [Some(' '), Some(c), Some(' ')];
        }
        [Some(c), None, None]
    }

    fn normalize_unicode(&self, input: &str, out: &mut String) {
        let staged = input
            .chars()
            .flat_map(|c| self.stage(c).into_iter().flatten());
        if self.strip_accents {
            // NFD, drop nonspacing marks, then lowercase; left decomposed.
            for c in staged.nfd() {
                if c.is_mark_nonspacing() {
                    continue;
                }
                if self.lowercase {
                    out.extend(c.to_lowercase());
                } else {
                    out.push(c);
                }
            }
        } else if self.lowercase {
            out.extend(staged.flat_map(char::to_lowercase));
        } else {
            out.extend(staged);
        }
    }
}

/// ASCII byte class: 0 = word, 1 = space, 2 = punctuation.
fn ascii_class(b: u8) -> u8 {
    match b {
        b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' => 1,
        b'!'..=b'/' | b':'..=b'@' | b'['..=b'`' | b'{'..=b'~' => 2,
        _ => 0,
    }
}

/// BertPreTokenizer: drop whitespace, each punctuation char is a word.
fn pre_tokenize<'a>(s: &'a str, mut emit: impl FnMut(&'a str)) {
    let mut start: Option<usize> = None;
    for (i, c) in s.char_indices() {
        let class = if c.is_ascii() {
            ascii_class(c as u8)
        } else if c.is_whitespace() {
            1
        } else if c.is_ascii_punctuation() || c.is_punctuation() {
            2
        } else {
            0
        };
        match class {
            1 => {
                if let Some(st) = start.take() {
                    emit(&s[st..i]);
                }
            }
            2 => {
                if let Some(st) = start.take() {
                    emit(&s[st..i]);
                }
                emit(&s[i..i + c.len_utf8()]);
            }
            _ => {
                if start.is_none() {
                    start = Some(i);
                }
            }
        }
    }
    if let Some(st) = start {
        emit(&s[st..]);
    }
}

/// Printable ASCII or `\t\n\r`: bytes the ASCII path keeps.
fn is_plain_ascii(b: u8) -> bool {
    matches!(b, b' '..=b'~' | b'\t' | b'\n' | b'\r')
}

fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

fn is_control(c: char) -> bool {
    match c {
        '\t' | '\n' | '\r' => false,
        _ => c.is_other(),
    }
}

fn is_chinese_char(c: char) -> bool {
    let r = c as u32;
    (0x4E00..=0x9FFF).contains(&r)
        || (0x3400..=0x4DBF).contains(&r)
        || (0x20000..=0x2A6DF).contains(&r)
        || (0x2A700..=0x2B73F).contains(&r)
        || (0x2B740..=0x2B81F).contains(&r)
        || (0x2B920..=0x2CEAF).contains(&r)
        || (0xF900..=0xFAFF).contains(&r)
        || (0x2F800..=0x2FA1F).contains(&r)
}
