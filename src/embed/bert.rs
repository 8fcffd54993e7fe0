//! Owns the in-process BERT-family sentence embedder (all-MiniLM-L6-v2 by
//! default; the encoder itself is [`super::bert_model`]): tokenize with
//! per-batch padding, run the encoder, pool (mean by default, as
//! `1_Pooling/config.json` says) and L2-normalise, matching
//! sentence-transformers.
//!
//! Pitfall (measured): MiniLM's `tokenizer.json` carries truncation and
//! fixed padding at 128 tokens; both are replaced here (truncation at the
//! model's `max_seq_length`, padding to the longest text of the batch), or
//! vectors differ from the reference and every batch pays for 128 tokens.
//!
//! Tokens come from [`super::wordpiece`] when `tokenizer.json` is BERT's
//! pipeline exactly (MiniLM's is: the same ids, read in a few ms instead of
//! the `tokenizers` crate's ~40), else from the `tokenizers` crate.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::Embedder;
use super::bert_model::Encoder;
use super::wordpiece::WordPiece;

/// Token limit when the model does not say (sentence-transformers' value
/// for MiniLM).
const DEFAULT_MAX_TOKENS: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pooling {
    Mean,
    Cls,
}

/// How texts become token ids.
enum Tokens {
    /// BERT's pipeline as hash lookups, wrapping each text in `[CLS]` and
    /// `[SEP]`.
    WordPiece {
        pieces: Box<WordPiece>,
        cls: u32,
        sep: u32,
    },
    /// Any other tokenizer, through the `tokenizers` crate, padding to the
    /// batch's longest text.
    Crate(Box<Tokenizer>),
}

/// Padded token ids of a batch: `n` rows of `len`, and the mask of real
/// tokens.
struct Batch {
    ids: Vec<u32>,
    mask: Vec<u32>,
    n: usize,
    len: usize,
}

pub struct BertEmbedder {
    model: Encoder,
    tokens: Tokens,
    id: String,
    dim: usize,
    max_tokens: usize,
    pooling: Pooling,
    batch_size: usize,
    /// One single-threaded pool per core: batches run side by side, one per
    /// lane, instead of one at a time split across cores. Small GEMMs scale
    /// poorly across threads; on 2 cores two lanes embedded 17.6 chunks/s
    /// against 13.4 for one two-thread batch at a time (`bench_embed`).
    lanes: Vec<rayon::ThreadPool>,
}

fn read_json(path: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

impl BertEmbedder {
    /// Loads a model in Hugging Face layout from `dir`: `config.json`,
    /// `tokenizer.json`, `model.safetensors`, and optionally
    /// `sentence_bert_config.json` and `1_Pooling/config.json`.
    pub fn load(dir: &Path, id: &str, batch_size: usize) -> Result<BertEmbedder> {
        BertEmbedder::load_as(dir, id, batch_size, false)
    }

    /// [`BertEmbedder::load`] tokenizing with the `tokenizers` crate even
    /// where [`super::wordpiece`] would do (tests compare the two).
    pub fn load_with_tokenizers_crate(
        dir: &Path,
        id: &str,
        batch_size: usize,
    ) -> Result<BertEmbedder> {
        BertEmbedder::load_as(dir, id, batch_size, true)
    }

    /// Whether texts are tokenized by [`super::wordpiece`].
    pub fn uses_wordpiece(&self) -> bool {
        matches!(self.tokens, Tokens::WordPiece { .. })
    }

    fn load_as(
        dir: &Path,
        id: &str,
        batch_size: usize,
        use_tokenizers_crate: bool,
    ) -> Result<BertEmbedder> {
        let what = |f: &str| format!("cannot load `{}`", dir.join(f).display());
        let config_text = std::fs::read_to_string(dir.join("config.json"))
            .with_context(|| what("config.json"))?;
        let raw: serde_json::Value =
            serde_json::from_str(&config_text).with_context(|| what("config.json"))?;
        let max_positions = raw["max_position_embeddings"].as_u64().unwrap_or(512) as usize;
        let dim = raw["hidden_size"].as_u64().unwrap_or(0) as usize;
        let max_tokens = read_json(&dir.join("sentence_bert_config.json"))
            .and_then(|v| v["max_seq_length"].as_u64())
            .map(|n| n as usize)
            .unwrap_or(DEFAULT_MAX_TOKENS)
            .min(max_positions);
        let pooling = match read_json(&dir.join("1_Pooling/config.json")) {
            Some(v) if v["pooling_mode_cls_token"].as_bool() == Some(true) => Pooling::Cls,
            _ => Pooling::Mean,
        };

        let tokenizer_json =
            std::fs::read(dir.join("tokenizer.json")).with_context(|| what("tokenizer.json"))?;
        let pieces = (!use_tokenizers_crate)
            .then(|| WordPiece::from_json(&tokenizer_json))
            .flatten();
        let tokens = match pieces {
            Some(
                pieces @ WordPiece {
                    cls_sep: Some((cls, sep)),
                    ..
                },
            ) => Tokens::WordPiece {
                pieces: Box::new(pieces),
                cls,
                sep,
            },
            _ => Tokens::Crate(Box::new(
                crate_tokenizer(&tokenizer_json, max_tokens)
                    .map_err(|e| anyhow!("{}: {e}", what("tokenizer.json")))?,
            )),
        };

        let weights = super::bert_model::map_file(&dir.join("model.safetensors"))
            .with_context(|| what("model.safetensors"))?;
        let model = Encoder::load(std::sync::Arc::new(weights), &raw)
            .with_context(|| what("model.safetensors"))?;
        keep_freed_memory();
        Ok(BertEmbedder {
            model,
            tokens,
            id: id.to_string(),
            dim,
            max_tokens,
            pooling,
            batch_size: batch_size.max(1),
            lanes: lanes(),
        })
    }

    /// Reads at most `n` tokens of each text (never more than the model
    /// reads by its own configuration).
    pub fn with_max_tokens(mut self, n: usize) -> Result<BertEmbedder> {
        self.max_tokens = self.max_tokens.min(n.max(1));
        if let Tokens::Crate(t) = &mut self.tokens {
            truncate_at(t, self.max_tokens)
                .map_err(|e| anyhow!("cannot set the tokenizer's truncation: {e}"))?;
        }
        Ok(self)
    }

    /// Token counts of `texts` after truncation (for benchmarks).
    pub fn count_tokens(&self, texts: &[&str]) -> Result<Vec<usize>> {
        Ok(self.token_ids(texts)?.iter().map(Vec::len).collect())
    }

    /// The token ids the encoder reads for each text: special tokens
    /// included, truncated, unpadded.
    pub fn token_ids(&self, texts: &[&str]) -> Result<Vec<Vec<u32>>> {
        let b = self.encode(texts)?;
        Ok(b.ids
            .chunks(b.len.max(1))
            .zip(b.mask.chunks(b.len.max(1)))
            .map(|(ids, mask)| {
                ids.iter()
                    .zip(mask)
                    .filter(|&(_, &m)| m == 1)
                    .map(|(&id, _)| id)
                    .collect()
            })
            .collect())
    }

    /// `texts` tokenized, truncated and padded to the longest.
    fn encode(&self, texts: &[&str]) -> Result<Batch> {
        let n = texts.len();
        let rows: Vec<Vec<u32>> = match &self.tokens {
            Tokens::WordPiece { pieces, cls, sep } => texts
                .iter()
                .map(|t| {
                    let mut ids = vec![*cls];
                    pieces.encode_ids(t, &mut ids);
                    // Room for both special tokens, as the crate truncates.
                    ids.truncate(1 + self.max_tokens.saturating_sub(2));
                    ids.push(*sep);
                    ids
                })
                .collect(),
            Tokens::Crate(t) => {
                let enc = t
                    .encode_batch(texts.to_vec(), true)
                    .map_err(|e| anyhow!("tokenizer: {e}"))?;
                let len = enc.iter().map(|e| e.get_ids().len()).max().unwrap_or(0);
                let mut ids = Vec::with_capacity(n * len);
                let mut mask = Vec::with_capacity(n * len);
                for e in &enc {
                    ids.extend_from_slice(e.get_ids());
                    mask.extend_from_slice(e.get_attention_mask());
                }
                return Ok(Batch { ids, mask, n, len });
            }
        };
        let len = rows.iter().map(Vec::len).max().unwrap_or(0);
        let mut ids = Vec::with_capacity(n * len);
        let mut mask = Vec::with_capacity(n * len);
        for r in &rows {
            ids.extend_from_slice(r);
            mask.extend(std::iter::repeat_n(1, r.len()));
            // Padding rows are masked out, so their id does not matter.
            ids.extend(std::iter::repeat_n(0, len - r.len()));
            mask.extend(std::iter::repeat_n(0, len - r.len()));
        }
        Ok(Batch { ids, mask, n, len })
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let Batch { ids, mask, n, len } = self.encode(texts)?;
        if n == 0 || len == 0 {
            return Ok(vec![vec![0.0; self.dim]; n]);
        }
        let hidden = self.model.forward(&ids, &mask, n, len)?; // (n·len, dim)
        let dim = self.dim;
        let mut out = Vec::with_capacity(n);
        for (i, seq) in hidden.chunks_exact(len * dim).enumerate() {
            let mut v = vec![0.0f32; dim];
            match self.pooling {
                Pooling::Cls => v.copy_from_slice(&seq[..dim]),
                Pooling::Mean => {
                    let mut count = 0.0f32;
                    for (t, row) in seq.chunks_exact(dim).enumerate() {
                        if mask[i * len + t] == 1 {
                            count += 1.0;
                            for (a, b) in v.iter_mut().zip(row) {
                                *a += b;
                            }
                        }
                    }
                    if count > 0.0 {
                        for a in v.iter_mut() {
                            *a /= count;
                        }
                    }
                }
            }
            super::l2_normalize(&mut v);
            out.push(v);
        }
        Ok(out)
    }
}

impl Embedder for BertEmbedder {
    /// Embeds `texts` in batches of similar length (sorting cuts padding
    /// from ~44% to ~3% on real chunks), spread over the lanes so that each
    /// gets about the same amount of text; results come back in input order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let shares = deal(&order, self.lanes.len().clamp(1, texts.len().max(1)));
        let run = |share: &[usize]| -> Result<Indexed> {
            let mut done = Vec::new();
            for group in even_groups(share, self.batch_size) {
                let batch: Vec<&str> = group.iter().map(|&i| texts[i]).collect();
                let vecs = self.embed_batch(&batch)?;
                done.extend(group.iter().copied().zip(vecs));
            }
            Ok(done)
        };
        let results: Vec<Result<Indexed>> = if shares.len() < 2 {
            shares.iter().map(|s| run(s)).collect()
        } else {
            std::thread::scope(|scope| {
                let handles: Vec<_> = self
                    .lanes
                    .iter()
                    .zip(&shares)
                    .map(|(pool, share)| {
                        let run = &run;
                        scope.spawn(move || pool.install(|| run(share)))
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join()
                            .unwrap_or_else(|_| Err(anyhow!("an embedding lane panicked")))
                    })
                    .collect()
            })
        };
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        for r in results {
            for (i, v) in r? {
                out[i] = v;
            }
        }
        Ok(out)
    }

    fn dim(&self) -> usize {
        self.dim
    }

    fn model_id(&self) -> &str {
        &self.id
    }

    fn max_input_tokens(&self) -> usize {
        self.max_tokens
    }

    /// A batch per lane, so callers hand over enough texts to keep every
    /// lane busy.
    fn batch_size(&self) -> usize {
        self.batch_size * self.lanes.len().max(1)
    }
}

/// The `tokenizers` crate's tokenizer from `tokenizer.json`, padding to
/// the batch's longest text and truncating at `max_tokens`.
fn crate_tokenizer(json: &[u8], max_tokens: usize) -> tokenizers::Result<Tokenizer> {
    let mut tokenizer = Tokenizer::from_bytes(json)?;
    let pad_id = tokenizer.get_padding().map(|p| p.pad_id).unwrap_or(0);
    let pad_token = tokenizer
        .get_padding()
        .map(|p| p.pad_token.clone())
        .unwrap_or_else(|| "[PAD]".to_string());
    tokenizer.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        pad_id,
        pad_token,
        ..PaddingParams::default()
    }));
    truncate_at(&mut tokenizer, max_tokens)?;
    Ok(tokenizer)
}

fn truncate_at(tokenizer: &mut Tokenizer, max_tokens: usize) -> tokenizers::Result<()> {
    tokenizer.with_truncation(Some(TruncationParams {
        max_length: max_tokens,
        ..TruncationParams::default()
    }))?;
    Ok(())
}

/// Vectors with the input positions they belong to.
type Indexed = Vec<(usize, Vec<f32>)>;

/// `sorted` dealt to `k` shares in snake order (0, 1, …, k-1, k-1, …, 0, 0,
/// …), so shares get about the same total length and each stays sorted.
/// Dealing whole batches instead left one lane idle while the other ran
/// the batch of longest texts.
fn deal(sorted: &[usize], k: usize) -> Vec<Vec<usize>> {
    let k = k.max(1);
    let mut shares = vec![Vec::with_capacity(sorted.len() / k + 1); k];
    for (pos, &i) in sorted.iter().enumerate() {
        let j = pos % k;
        let lane = if (pos / k).is_multiple_of(2) {
            j
        } else {
            k - 1 - j
        };
        shares[lane].push(i);
    }
    shares.retain(|s| !s.is_empty());
    shares
}

/// `items` cut into the fewest batches of at most `max`, all of about the
/// same size (100 items at 32 make 25+25+25+25, not 32+32+32+4).
fn even_groups(items: &[usize], max: usize) -> std::slice::Chunks<'_, usize> {
    let batches = items.len().div_ceil(max.max(1)).max(1);
    items.chunks(items.len().div_ceil(batches).max(1))
}

/// Single-threaded pools, one per core (at most 4); none on one core.
fn lanes() -> Vec<rayon::ThreadPool> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 {
        return Vec::new();
    }
    (0..cores.min(4))
        .filter_map(|i| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(1)
                .thread_name(move |_| format!("embed-lane-{i}"))
                .build()
                .ok()
        })
        .collect()
}

/// Tells glibc's allocator to keep freed memory for reuse instead of
/// returning every large buffer to the kernel: the encoder frees and
/// allocates tens of megabytes per batch, and fresh pages cost a fault and a
/// zeroing each (measured: ~12% of embedding time went to page faults).
/// The cost is that the process keeps its peak heap (a few hundred MB while
/// embedding).
#[allow(unsafe_code)] // reviewed: `mallopt` tuning, see SAFETY below
fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: mallopt only changes allocator tuning parameters.
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20);
                libc::mallopt(libc::M_TRIM_THRESHOLD, 512 << 20);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{deal, even_groups};

    #[test]
    fn lanes_get_even_shares_of_sorted_texts() {
        let sorted: Vec<usize> = (0..10).collect();
        assert_eq!(
            deal(&sorted, 2),
            vec![vec![0, 3, 4, 7, 8], vec![1, 2, 5, 6, 9]]
        );
        assert_eq!(deal(&sorted[..1], 2), vec![vec![0]]);
        assert_eq!(deal(&sorted[..3], 1), vec![vec![0, 1, 2]]);
        assert!(deal(&[], 2).is_empty());
    }

    #[test]
    fn batches_are_even() {
        let items: Vec<usize> = (0..100).collect();
        let sizes: Vec<usize> = even_groups(&items, 32).map(<[usize]>::len).collect();
        assert_eq!(sizes, vec![25, 25, 25, 25]);
        let sizes: Vec<usize> = even_groups(&items[..32], 32).map(<[usize]>::len).collect();
        assert_eq!(sizes, vec![32]);
        assert_eq!(even_groups(&items[..5], 0).count(), 5);
    }
}
