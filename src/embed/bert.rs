//! Owns the in-process BERT-family sentence embedder (all-MiniLM-L6-v2 by
//! default) on candle: tokenize with per-batch padding, run the encoder,
//! pool (mean by default, as `1_Pooling/config.json` says) and
//! L2-normalise, matching sentence-transformers.
//!
//! Pitfall (measured): MiniLM's `tokenizer.json` carries truncation and
//! fixed padding at 128 tokens; both are replaced here (truncation at the
//! model's `max_seq_length`, padding to the longest text of the batch), or
//! vectors differ from the reference and every batch pays for 128 tokens.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::Embedder;
use super::bert_model::Encoder;

/// Token limit when the model does not say (sentence-transformers' value
/// for MiniLM).
const DEFAULT_MAX_TOKENS: usize = 256;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pooling {
    Mean,
    Cls,
}

pub struct BertEmbedder {
    model: Encoder,
    tokenizer: Tokenizer,
    device: Device,
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

        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| anyhow!("{}: {e}", what("tokenizer.json")))?;
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
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: max_tokens,
                ..TruncationParams::default()
            }))
            .map_err(|e| anyhow!("{}: {e}", what("tokenizer.json")))?;

        let device = Device::Cpu;
        // SAFETY: the weights file is memory-mapped read-only; it lives in
        // the model cache (or a configured directory), which repo-search
        // never modifies while a model is loaded.
        let vb = unsafe {
            VarBuilder::from_mmaped_safetensors(
                &[dir.join("model.safetensors")],
                DType::F32,
                &device,
            )
        }
        .with_context(|| what("model.safetensors"))?;
        let model = Encoder::load(vb, &raw).with_context(|| what("model.safetensors"))?;
        keep_freed_memory();
        Ok(BertEmbedder {
            model,
            tokenizer,
            device,
            id: id.to_string(),
            dim,
            max_tokens,
            pooling,
            batch_size: batch_size.max(1),
            lanes: lanes(),
        })
    }

    /// Token counts of `texts` after truncation (for benchmarks).
    pub fn count_tokens(&self, texts: &[&str]) -> Result<Vec<usize>> {
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| anyhow!("tokenizer: {e}"))?;
        Ok(enc
            .iter()
            .map(|e| e.get_attention_mask().iter().filter(|m| **m == 1).count())
            .collect())
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| anyhow!("tokenizer: {e}"))?;
        let n = enc.len();
        let len = enc.iter().map(|e| e.get_ids().len()).max().unwrap_or(0);
        if n == 0 || len == 0 {
            return Ok(vec![vec![0.0; self.dim]; n]);
        }
        let mut ids = Vec::with_capacity(n * len);
        let mut mask = Vec::with_capacity(n * len);
        for e in &enc {
            ids.extend_from_slice(e.get_ids());
            mask.extend_from_slice(e.get_attention_mask());
        }
        let ids = Tensor::from_vec(ids, (n, len), &self.device)?;
        let hidden = self.model.forward(&ids, &mask, n, len)?; // (n·len, dim)
        let hidden: Vec<Vec<f32>> = hidden.to_vec2()?;
        let mut out = Vec::with_capacity(n);
        for (i, rows) in hidden.chunks(len).enumerate() {
            let dim = rows.first().map(|r| r.len()).unwrap_or(self.dim);
            let mut v = vec![0.0f32; dim];
            match self.pooling {
                Pooling::Cls => v.copy_from_slice(&rows[0]),
                Pooling::Mean => {
                    let mut count = 0.0f32;
                    for (t, row) in rows.iter().enumerate() {
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
    /// from ~44% to ~3% on real chunks); results come back in input order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out: Vec<Vec<f32>> = vec![Vec::new(); texts.len()];
        let groups: Vec<&[usize]> = order.chunks(self.batch_size).collect();
        let run = |groups: &[&[usize]]| -> Result<Indexed> {
            let mut done = Vec::new();
            for group in groups {
                let batch: Vec<&str> = group.iter().map(|&i| texts[i]).collect();
                let vecs = self.embed_batch(&batch)?;
                done.extend(group.iter().copied().zip(vecs));
            }
            Ok(done)
        };
        if self.lanes.len() < 2 || groups.len() < 2 {
            for (i, v) in run(&groups)? {
                out[i] = v;
            }
            return Ok(out);
        }
        // Groups dealt round-robin (they are sorted by length, so each lane
        // gets a similar share of long ones).
        let n = self.lanes.len();
        let results: Vec<Result<Indexed>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .lanes
                .iter()
                .enumerate()
                .map(|(lane, pool)| {
                    let mine: Vec<&[usize]> =
                        groups.iter().skip(lane).step_by(n).copied().collect();
                    let run = &run;
                    scope.spawn(move || pool.install(|| run(&mine)))
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(anyhow!("an embedding lane panicked")))
                })
                .collect()
        });
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

/// Vectors with the input positions they belong to.
type Indexed = Vec<(usize, Vec<f32>)>;

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
/// allocates megabytes per layer, and fresh pages cost a fault and a
/// zeroing each (measured: ~12% of embedding time went to page faults).
/// The cost is that the process keeps its peak heap (a few hundred MB while
/// embedding).
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
