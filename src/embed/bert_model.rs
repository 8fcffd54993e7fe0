//! Owns the BERT encoder forward pass used by [`super::bert`], written for
//! CPU throughput on plain `f32` buffers: every dense layer is one GEMM
//! over all tokens of the batch (`gemm` crate; query, key and value one
//! each, into one buffer), reading the weights in place in the mapped
//! model file (see [`Values`]), attention runs per
//! sequence so its scores stay in cache, and everything between GEMMs is a
//! fused pass written into buffers that live for the whole batch.
//!
//! Measured on 2 cores (perf, scripts/bench-embed.sh): with candle tensors
//! the same model spent a third of its time outside the GEMM microkernel —
//! softmax over a materialised `(batch, heads, len, len)` score tensor of
//! ~100 MB (10%), zeroing and faulting in fresh output buffers (6%),
//! permute copies. Here attention computes each head's scores for one
//! sequence (at most 256×256, in L2), over its real tokens only, and the
//! softmax, bias, GELU and LayerNorm passes work in place. `exp` and `erf`
//! are branch-free polynomials that vectorise (errors below 2e-7, far under
//! f32 activation noise): vectors agree with sentence-transformers at
//! cosine ≥ 0.9999 (scripts/check-embeddings.sh).

use std::sync::Arc;

use anyhow::{Context, Result, bail};
use gemm::Parallelism;
use memmap2::Mmap;
use rayon::prelude::*;
use safetensors::{Dtype, SafeTensors};

/// LayerNorm's scale and shift.
struct Norm {
    gamma: Values,
    beta: Values,
}

/// The weights of one encoder layer. Matrices keep PyTorch's `(out, in)`
/// layout of the file (a layer is `x · Wᵀ`, the GEMM reading `W` with
/// swapped strides), so they are used where they lie in the mapped file.
struct Layer {
    query_w: Values,
    key_w: Values,
    value_w: Values,
    /// Query, key and value biases side by side (3·hidden).
    qkv_b: Vec<f32>,
    attn_out_w: Values,
    attn_out_b: Values,
    attn_norm: Norm,
    inter_w: Values,
    inter_b: Values,
    out_w: Values,
    out_b: Values,
    out_norm: Norm,
}

pub struct Encoder {
    /// (vocab, hidden)
    word: Values,
    /// (max positions, hidden)
    position: Values,
    /// Token type 0's embedding (every input is a single segment).
    token_type: Vec<f32>,
    emb_norm: Norm,
    eps: f32,
    layers: Vec<Layer>,
    heads: usize,
    hidden: usize,
    inter: usize,
}

/// A tensor's values as `f32`: read in place from the mapped file when it
/// stores them as aligned little-endian `f32` (MiniLM's does), else decoded
/// once (f16 and bf16 files, big-endian hosts).
///
/// Why (measured, session 83): a cold CLI search that answers from MiniLM
/// spent 63% of its CPU loading the model, reading 87 MB, decoding every
/// tensor and transposing the linear layers, for a query that reads ten
/// rows of the 47 MB word-embedding table. Mapped, loading is the header's
/// parse, and the pages a search never touches are never read.
enum Values {
    Mapped {
        file: Arc<Mmap>,
        range: std::ops::Range<usize>,
    },
    Owned(Vec<f32>),
}

impl std::ops::Deref for Values {
    type Target = [f32];

    fn deref(&self) -> &[f32] {
        match self {
            // Alignment and length were checked when the tensor was read
            // (`Weights::get`), and the map never changes.
            Values::Mapped { file, range } => bytemuck::cast_slice(&file[range.clone()]),
            Values::Owned(v) => v,
        }
    }
}

/// Named tensors of a mapped safetensors file.
struct Weights<'a> {
    file: &'a Arc<Mmap>,
    st: SafeTensors<'a>,
    prefix: &'static str,
}

impl Weights<'_> {
    fn has(&self, name: &str) -> bool {
        self.st.tensor(name).is_ok()
    }

    /// The tensor `name` (under the model's prefix), which must have
    /// `shape`; f32, f16 and bf16 files are accepted.
    fn get(&self, name: &str, shape: &[usize]) -> Result<Values> {
        let full = format!("{}{name}", self.prefix);
        let t = self
            .st
            .tensor(&full)
            .map_err(|e| anyhow::anyhow!("tensor `{full}`: {e}"))?;
        if t.shape() != shape {
            bail!(
                "tensor `{full}` has shape {:?}, the config implies {shape:?}",
                t.shape()
            );
        }
        let b = t.data();
        let n: usize = shape.iter().product();
        let width = match t.dtype() {
            Dtype::F32 => 4,
            Dtype::F16 | Dtype::BF16 => 2,
            other => bail!("tensor `{full}` is {other:?}; only f32, f16 and bf16 are supported"),
        };
        if b.len() != n * width {
            bail!("tensor `{full}` is truncated");
        }
        if t.dtype() == Dtype::F32
            && cfg!(target_endian = "little")
            && bytemuck::try_cast_slice::<u8, f32>(b).is_ok()
        {
            // `b` lies inside the map: its offset there.
            let start = b.as_ptr() as usize - self.file.as_ptr() as usize;
            return Ok(Values::Mapped {
                file: Arc::clone(self.file),
                range: start..start + b.len(),
            });
        }
        Ok(Values::Owned(match t.dtype() {
            Dtype::F32 => b
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
            Dtype::F16 => b
                .chunks_exact(2)
                .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
            _ => b
                .chunks_exact(2)
                .map(|c| half::bf16::from_le_bytes([c[0], c[1]]).to_f32())
                .collect(),
        }))
    }

    /// A linear layer's weight, `(out, in)` as PyTorch stores it.
    fn linear(&self, name: &str, out: usize, inp: usize) -> Result<Values> {
        self.get(&format!("{name}.weight"), &[out, inp])
    }

    fn norm(&self, name: &str, n: usize) -> Result<Norm> {
        let pick = |a: &str, b: &str| {
            self.get(&format!("{name}.{a}"), &[n])
                .or_else(|_| self.get(&format!("{name}.{b}"), &[n]))
        };
        Ok(Norm {
            gamma: pick("weight", "gamma")?,
            beta: pick("bias", "beta")?,
        })
    }
}

/// Maps `path` read-only.
#[allow(unsafe_code)] // reviewed: the model file's map, see SAFETY below
pub fn map_file(path: &std::path::Path) -> Result<Mmap> {
    let file = std::fs::File::open(path)?;
    // SAFETY: the map is read-only and private to this process. Changing
    // the file while it is mapped would change (or, truncated, fault) what
    // the encoder reads; model files are never rewritten in place: `model
    // fetch` stages a new directory and renames it over the old one, which
    // leaves this map on the old file.
    Ok(unsafe { Mmap::map(&file)? })
}

impl Encoder {
    /// Loads a BERT model from its mapped `model.safetensors` and its
    /// `config.json` (`bert.` prefix optional).
    pub fn load(file: Arc<Mmap>, config: &serde_json::Value) -> Result<Encoder> {
        let get = |k: &str| {
            config[k]
                .as_u64()
                .map(|v| v as usize)
                .with_context(|| format!("config.json lacks `{k}`"))
        };
        let hidden = get("hidden_size")?;
        let heads = get("num_attention_heads")?;
        let layers_n = get("num_hidden_layers")?;
        let inter = get("intermediate_size")?;
        let vocab = get("vocab_size")?;
        let positions = get("max_position_embeddings")?;
        let types = get("type_vocab_size").unwrap_or(2);
        let eps = config["layer_norm_eps"].as_f64().unwrap_or(1e-12) as f32;
        match config["hidden_act"].as_str().unwrap_or("gelu") {
            "gelu" => {}
            other => {
                bail!("unsupported activation `{other}` (only BERT's exact `gelu` is implemented)")
            }
        }
        if heads == 0 || hidden % heads != 0 {
            bail!("hidden_size {hidden} is not a multiple of num_attention_heads {heads}");
        }
        let st = SafeTensors::deserialize(&file[..])
            .map_err(|e| anyhow::anyhow!("not a safetensors file: {e}"))?;
        let mut w = Weights {
            file: &file,
            st,
            prefix: "",
        };
        if w.has("bert.embeddings.word_embeddings.weight") {
            w.prefix = "bert.";
        }
        let mut layers = Vec::with_capacity(layers_n);
        for i in 0..layers_n {
            let p = format!("encoder.layer.{i}");
            let a = format!("{p}.attention");
            let mut qkv_b = Vec::with_capacity(3 * hidden);
            for part in ["query", "key", "value"] {
                qkv_b.extend_from_slice(&w.get(&format!("{a}.self.{part}.bias"), &[hidden])?);
            }
            layers.push(Layer {
                query_w: w.linear(&format!("{a}.self.query"), hidden, hidden)?,
                key_w: w.linear(&format!("{a}.self.key"), hidden, hidden)?,
                value_w: w.linear(&format!("{a}.self.value"), hidden, hidden)?,
                qkv_b,
                attn_out_w: w.linear(&format!("{a}.output.dense"), hidden, hidden)?,
                attn_out_b: w.get(&format!("{a}.output.dense.bias"), &[hidden])?,
                attn_norm: w.norm(&format!("{a}.output.LayerNorm"), hidden)?,
                inter_w: w.linear(&format!("{p}.intermediate.dense"), inter, hidden)?,
                inter_b: w.get(&format!("{p}.intermediate.dense.bias"), &[inter])?,
                out_w: w.linear(&format!("{p}.output.dense"), hidden, inter)?,
                out_b: w.get(&format!("{p}.output.dense.bias"), &[hidden])?,
                out_norm: w.norm(&format!("{p}.output.LayerNorm"), hidden)?,
            });
        }
        let token_types = w.get("embeddings.token_type_embeddings.weight", &[types, hidden])?;
        Ok(Encoder {
            word: w.get("embeddings.word_embeddings.weight", &[vocab, hidden])?,
            position: w.get(
                "embeddings.position_embeddings.weight",
                &[positions, hidden],
            )?,
            token_type: token_types[..hidden].to_vec(),
            emb_norm: w.norm("embeddings.LayerNorm", hidden)?,
            eps,
            layers,
            heads,
            hidden,
            inter,
        })
    }

    /// Hidden states of the last layer, `(n·len, hidden)` row-major, for
    /// `ids` and `mask` of shape `(n, len)` (token type 0 everywhere).
    /// Rows of padding positions after a sequence's last real token are
    /// not meaningful.
    pub fn forward(&self, ids: &[u32], mask: &[u32], n: usize, len: usize) -> Result<Vec<f32>> {
        let (h, inter) = (self.hidden, self.inter);
        let m = n * len;
        if ids.len() != m || mask.len() != m {
            bail!(
                "encoder: {} ids and {} mask values for {n}×{len}",
                ids.len(),
                mask.len()
            );
        }
        if len * h > self.position.len() {
            bail!("encoder: {len} tokens exceed the model's positions");
        }
        let vocab = self.word.len() / h;
        if let Some(bad) = ids.iter().find(|&&id| id as usize >= vocab) {
            bail!("encoder: token id {bad} outside the vocabulary of {vocab}");
        }
        let par = parallelism();
        let mut x = vec![0f32; m * h];
        let rows = rows_per_task(h);
        x.par_chunks_mut(h * rows)
            .enumerate()
            .for_each(|(c, block)| {
                for (j, row) in block.chunks_exact_mut(h).enumerate() {
                    let t = c * rows + j;
                    let id = ids[t] as usize;
                    let pos = t % len;
                    let word = &self.word[id * h..(id + 1) * h];
                    let posv = &self.position[pos * h..(pos + 1) * h];
                    for (((o, &a), &b), &c) in
                        row.iter_mut().zip(word).zip(posv).zip(&self.token_type)
                    {
                        *o = a + b + c;
                    }
                    simd::layer_norm_row(
                        row,
                        None,
                        &self.emb_norm.gamma,
                        &self.emb_norm.beta,
                        self.eps,
                    );
                }
            });
        let mut qkv = vec![0f32; m * 3 * h];
        let mut ctx = vec![0f32; m * h];
        let mut tmp = vec![0f32; m * h];
        let mut mid = vec![0f32; m * inter];
        for l in &self.layers {
            fill_rows(&mut qkv, &l.qkv_b);
            // Query, key and value side by side in each row of `qkv`.
            for (j, w) in [&l.query_w, &l.key_w, &l.value_w].into_iter().enumerate() {
                linear(&mut qkv[j * h..], 3 * h, &x, w, (m, h, h), true, par);
            }
            self.attention(&qkv, &mut ctx, mask, len);
            linear(&mut tmp, h, &ctx, &l.attn_out_w, (m, h, h), false, par);
            add_norm(&mut x, &tmp, &l.attn_out_b, &l.attn_norm, self.eps);
            linear(&mut mid, inter, &x, &l.inter_w, (m, h, inter), false, par);
            let rows = rows_per_task(inter);
            mid.par_chunks_mut(inter * rows).for_each(|block| {
                for row in block.chunks_exact_mut(inter) {
                    simd::bias_gelu_row(row, &l.inter_b);
                }
            });
            linear(&mut tmp, h, &mid, &l.out_w, (m, inter, h), false, par);
            add_norm(&mut x, &tmp, &l.out_b, &l.out_norm, self.eps);
        }
        Ok(x)
    }

    /// Self-attention of every sequence: `ctx` (n·len, hidden) from `qkv`
    /// (n·len, 3·hidden, each row q|k|v with heads side by side). Each
    /// sequence is one task; per head, scores for its real tokens only
    /// (up to its last unmasked one) are computed, soft-maxed in place and
    /// applied to the values. Rows after the last real token are zero.
    fn attention(&self, qkv: &[f32], ctx: &mut [f32], mask: &[u32], len: usize) {
        let (h, heads) = (self.hidden, self.heads);
        let d = h / heads;
        let scale = 1.0 / (d as f32).sqrt();
        ctx.par_chunks_mut(len * h)
            .zip(qkv.par_chunks(len * 3 * h))
            .zip(mask.par_chunks(len))
            .for_each(|((c, q), m)| {
                let r = m.iter().rposition(|&v| v != 0).map_or(0, |p| p + 1);
                c[r * h..].fill(0.0);
                if r == 0 {
                    return;
                }
                // Right padding (the tokenizer's) leaves no gaps: no mask.
                let keep: Option<Vec<f32>> = m[..r].contains(&0).then(|| {
                    m[..r]
                        .iter()
                        .map(|&v| if v != 0 { 1.0 } else { 0.0 })
                        .collect()
                });
                let mut s = vec![0f32; r * r];
                for hd in 0..heads {
                    let (qo, ko, vo) = (hd * d, h + hd * d, 2 * h + hd * d);
                    // s (r×r) = scale · Q (r×d) · Kᵀ (d×r)
                    strided_gemm(
                        (&mut s, r),
                        (&q[qo..], 3 * h, 1),
                        (&q[ko..], 1, 3 * h),
                        (r, d, r),
                        scale,
                        false,
                        Parallelism::None,
                    );
                    for row in s.chunks_exact_mut(r) {
                        simd::softmax_row(row, keep.as_deref());
                    }
                    // ctx[:, head] (r×d) = s (r×r) · V (r×d)
                    strided_gemm(
                        (&mut c[hd * d..], h),
                        (&s, r, 1),
                        (&q[vo..], 3 * h, 1),
                        (r, r, d),
                        1.0,
                        false,
                        Parallelism::None,
                    );
                }
            });
    }
}

/// GEMMs split across the pool's threads, or none inside a single-thread
/// embedding lane (see `bert::lanes`).
fn parallelism() -> Parallelism {
    match rayon::current_num_threads() {
        0 | 1 => Parallelism::None,
        n => Parallelism::Rayon(n),
    }
}

/// Rows per parallel task: enough work to amortise scheduling.
fn rows_per_task(row_len: usize) -> usize {
    (16_384 / row_len.max(1)).max(1)
}

/// Every row of `dst` set to `row`.
fn fill_rows(dst: &mut [f32], row: &[f32]) {
    for r in dst.chunks_exact_mut(row.len()) {
        r.copy_from_slice(row);
    }
}

/// `x = LayerNorm(x + y + bias)`, row by row, rows in parallel.
fn add_norm(x: &mut [f32], y: &[f32], bias: &[f32], norm: &Norm, eps: f32) {
    let n = bias.len();
    let chunk = n * rows_per_task(n);
    x.par_chunks_mut(chunk)
        .zip(y.par_chunks(chunk))
        .for_each(|(xs, ys)| {
            for (xrow, yrow) in xs.chunks_exact_mut(n).zip(ys.chunks_exact(n)) {
                simd::layer_norm_row(xrow, Some((yrow, bias)), &norm.gamma, &norm.beta, eps);
            }
        });
}

/// `dst (m×n, row stride dst_rs) = [dst +] a (m×k) · wᵀ`, `a` row-major
/// and contiguous, `w` a linear layer's `(n, k)` weight as stored.
fn linear(
    dst: &mut [f32],
    dst_rs: usize,
    a: &[f32],
    w: &[f32],
    (m, k, n): (usize, usize, usize),
    accumulate: bool,
    par: Parallelism,
) {
    strided_gemm(
        (dst, dst_rs),
        (a, k, 1),
        (w, 1, k),
        (m, k, n),
        1.0,
        accumulate,
        par,
    );
}

/// The last index a strided `rows×cols` view touches, plus one.
fn extent(rows: usize, cols: usize, rs: usize, cs: usize) -> usize {
    if rows == 0 || cols == 0 {
        0
    } else {
        (rows - 1) * rs + (cols - 1) * cs + 1
    }
}

/// `dst (m×n, row stride) = [dst +] scale · a (m×k) · b (k×n)` on strided
/// views `(slice, row stride, column stride)`: the one place that calls
/// the `gemm` crate, with the bounds it relies on checked.
#[allow(unsafe_code)] // reviewed: the one `gemm::gemm` call, see SAFETY below
fn strided_gemm(
    (dst, dst_rs): (&mut [f32], usize),
    (a, a_rs, a_cs): (&[f32], usize, usize),
    (b, b_rs, b_cs): (&[f32], usize, usize),
    (m, k, n): (usize, usize, usize),
    scale: f32,
    accumulate: bool,
    par: Parallelism,
) {
    assert!(
        dst.len() >= extent(m, n, dst_rs, 1)
            && a.len() >= extent(m, k, a_rs, a_cs)
            && b.len() >= extent(k, n, b_rs, b_cs)
    );
    if m == 0 || n == 0 {
        return;
    }
    // SAFETY: every index the views reach is inside its slice (checked
    // above), and `dst` is a distinct mutable borrow.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            dst.as_mut_ptr(),
            1,
            dst_rs as isize,
            accumulate,
            a.as_ptr(),
            a_cs as isize,
            a_rs as isize,
            b.as_ptr(),
            b_cs as isize,
            b_rs as isize,
            1.0,
            scale,
            false,
            false,
            false,
            par,
        )
    }
}

/// The element-wise kernels, written branch-free so LLVM vectorises them,
/// and compiled twice: for AVX2+FMA (chosen at run time when the CPU has
/// them) and for the baseline target.
mod simd {
    /// `exp` for f32 (Cephes' range reduction and polynomial; relative
    /// error below 2e-7 on [-87, 88], inputs clamped to that range).
    #[inline(always)]
    fn exp(x: f32) -> f32 {
        let x = x.clamp(-87.0, 88.0);
        let n = (x * std::f32::consts::LOG2_E + 0.5).floor();
        let r = x - n * 0.693_359_4 - n * -2.121_944_4e-4;
        let mut p = 1.987_569_2e-4f32;
        p = p * r + 1.398_199_9e-3;
        p = p * r + 8.333_452e-3;
        p = p * r + 4.166_579_6e-2;
        p = p * r + 1.666_666_5e-1;
        p = p * r + 5e-1;
        let y = p * r * r + r + 1.0;
        // 2^n from the bits of 2^23 + n + 127 (an integer-valued float, so
        // its low mantissa bits are n + 127, in 1..=254 after the clamp):
        // `n as i32` would be a saturating scalar conversion that stops
        // LLVM from vectorising the loop (it made softmax 10% of the run).
        let biased = (n + (127.0 + 8_388_608.0)).to_bits();
        y * f32::from_bits(biased << 23)
    }

    /// `erf` (Abramowitz & Stegun 7.1.26, absolute error below 1.5e-7:
    /// far below what f32 activations carry).
    #[inline(always)]
    fn erf(x: f32) -> f32 {
        let a = x.abs();
        let t = 1.0 / (1.0 + 0.327_591_1 * a);
        let poly = ((((1.061_405_4 * t - 1.453_152_1) * t + 1.421_413_8) * t - 0.284_496_74) * t
            + 0.254_829_6)
            * t;
        (1.0 - poly * exp(-a * a)).copysign(x)
    }

    /// Sum with 8 independent lanes: a single float accumulator is a
    /// serial dependency chain that LLVM may not reorder, so it would not
    /// vectorise (it cost a fifth of the whole forward pass when it did not).
    #[inline(always)]
    fn sum(x: &[f32]) -> f32 {
        let mut lanes = [0f32; 8];
        let c = x.chunks_exact(8);
        let rest: f32 = c.remainder().iter().sum();
        for xs in c {
            for j in 0..8 {
                lanes[j] += xs[j];
            }
        }
        lanes.iter().sum::<f32>() + rest
    }

    #[inline(always)]
    fn bias_gelu_generic(row: &mut [f32], bias: &[f32]) {
        for (o, &b) in row.iter_mut().zip(bias) {
            let v = *o + b;
            *o = 0.5 * v * (1.0 + erf(v * std::f32::consts::FRAC_1_SQRT_2));
        }
    }

    /// In place: `row = softmax(row)`, over the positions `keep` marks 1.0
    /// when given (the others get 0). Maxima are compare-and-select, not
    /// `f32::max`, whose NaN rule keeps the loop scalar.
    #[inline(always)]
    fn softmax_generic(row: &mut [f32], keep: Option<&[f32]>) {
        let masked = |i: usize, v: f32| match keep {
            Some(k) if k[i] <= 0.0 => f32::MIN,
            _ => v,
        };
        let mut lanes = [f32::MIN; 8];
        let c = row.chunks_exact(8);
        let rest = c.remainder();
        for (b, xs) in c.enumerate() {
            for j in 0..8 {
                let v = masked(b * 8 + j, xs[j]);
                lanes[j] = if v > lanes[j] { v } else { lanes[j] };
            }
        }
        let base = row.len() - rest.len();
        let mut max = f32::MIN;
        for v in lanes
            .into_iter()
            .chain(rest.iter().enumerate().map(|(i, &v)| masked(base + i, v)))
        {
            max = if v > max { v } else { max };
        }
        match keep {
            Some(k) => {
                for (o, &k) in row.iter_mut().zip(k) {
                    *o = exp(*o - max) * k;
                }
            }
            None => {
                for o in row.iter_mut() {
                    *o = exp(*o - max);
                }
            }
        }
        let total = sum(row);
        let inv = if total > 0.0 { 1.0 / total } else { 0.0 };
        for o in row.iter_mut() {
            *o *= inv;
        }
    }

    /// In place: `row = LayerNorm(row [+ y + bias])`.
    #[inline(always)]
    fn layer_norm_generic(
        row: &mut [f32],
        add: Option<(&[f32], &[f32])>,
        gamma: &[f32],
        beta: &[f32],
        eps: f32,
    ) {
        if let Some((y, bias)) = add {
            for ((o, &a), &b) in row.iter_mut().zip(y).zip(bias) {
                *o += a + b;
            }
        }
        let n = row.len() as f32;
        let mean = sum(row) / n;
        for o in row.iter_mut() {
            *o -= mean;
        }
        let mut lanes = [0f32; 8];
        let c = row.chunks_exact(8);
        let mut var: f32 = c.remainder().iter().map(|v| v * v).sum();
        for xs in c {
            for j in 0..8 {
                lanes[j] += xs[j] * xs[j];
            }
        }
        var += lanes.iter().sum::<f32>();
        let inv = 1.0 / (var / n + eps).sqrt();
        for ((o, &g), &b) in row.iter_mut().zip(gamma).zip(beta) {
            *o = *o * inv * g + b;
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn bias_gelu_avx2(row: &mut [f32], bias: &[f32]) {
        bias_gelu_generic(row, bias)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn softmax_avx2(row: &mut [f32], keep: Option<&[f32]>) {
        softmax_generic(row, keep)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn layer_norm_avx2(
        row: &mut [f32],
        add: Option<(&[f32], &[f32])>,
        gamma: &[f32],
        beta: &[f32],
        eps: f32,
    ) {
        layer_norm_generic(row, add, gamma, beta, eps)
    }

    #[cfg(target_arch = "x86_64")]
    fn has_avx2() -> bool {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }

    /// In place: `row = gelu(row + bias)` (exact, erf-based GELU).
    #[allow(unsafe_code)] // reviewed: AVX2 kernel after a CPU check
    pub fn bias_gelu_row(row: &mut [f32], bias: &[f32]) {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU supports the features the function is compiled for.
            return unsafe { bias_gelu_avx2(row, bias) };
        }
        bias_gelu_generic(row, bias)
    }

    /// In place: `row = softmax(row)` over the positions `keep` marks 1.0
    /// (all of them without `keep`).
    #[allow(unsafe_code)] // reviewed: AVX2 kernel after a CPU check
    pub fn softmax_row(row: &mut [f32], keep: Option<&[f32]>) {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU supports the features the function is compiled for.
            return unsafe { softmax_avx2(row, keep) };
        }
        softmax_generic(row, keep)
    }

    /// In place: `row = LayerNorm(row + y + bias)` (or of `row` alone).
    #[allow(unsafe_code)] // reviewed: AVX2 kernel after a CPU check
    pub fn layer_norm_row(
        row: &mut [f32],
        add: Option<(&[f32], &[f32])>,
        gamma: &[f32],
        beta: &[f32],
        eps: f32,
    ) {
        #[cfg(target_arch = "x86_64")]
        if has_avx2() {
            // SAFETY: the CPU supports the features the function is compiled for.
            return unsafe { layer_norm_avx2(row, add, gamma, beta, eps) };
        }
        layer_norm_generic(row, add, gamma, beta, eps)
    }

    #[cfg(test)]
    mod tests {
        #[test]
        fn fast_exp_and_erf_are_accurate() {
            let mut x = -20.0f32;
            while x < 20.0 {
                let e = super::exp(x);
                assert!(((e - x.exp()) / x.exp()).abs() < 5e-7, "exp({x}) = {e}");
                let f = super::erf(x / 4.0);
                assert!(
                    (f - libm::erff(x / 4.0)).abs() < 1e-6,
                    "erf({}) = {f}",
                    x / 4.0
                );
                x += 0.01;
            }
        }

        #[test]
        fn softmax_ignores_padding() {
            let mut row = [1.0, 2.0, 100.0, 0.5];
            super::softmax_row(&mut row, Some(&[1.0, 1.0, 0.0, 1.0]));
            assert_eq!(row[2], 0.0);
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-6);
            assert!(row[1] > row[0] && row[0] > row[3]);
            // Long rows (vector body plus remainder) against f64, unmasked.
            let x: Vec<f32> = (0..21).map(|i| (i as f32 * 0.7).cos() * 9.0).collect();
            let mut row = x.clone();
            super::softmax_row(&mut row, None);
            let max = x.iter().cloned().fold(f32::MIN, f32::max) as f64;
            let total: f64 = x.iter().map(|&v| (v as f64 - max).exp()).sum();
            for (i, &v) in x.iter().enumerate() {
                let want = (v as f64 - max).exp() / total;
                assert!((row[i] as f64 - want).abs() < 1e-6, "{i}");
            }
        }

        #[test]
        fn layer_norm_matches_the_definition() {
            let x: Vec<f32> = (0..19).map(|i| (i as f32 * 0.37).sin() * 3.0).collect();
            let y: Vec<f32> = (0..19).map(|i| i as f32 * 0.1).collect();
            let bias = vec![0.5f32; 19];
            let gamma: Vec<f32> = (0..19).map(|i| 1.0 + i as f32 * 0.01).collect();
            let beta = vec![0.25f32; 19];
            let mut row = x.clone();
            super::layer_norm_row(&mut row, Some((&y, &bias)), &gamma, &beta, 1e-12);
            let s: Vec<f64> = (0..19).map(|i| (x[i] + y[i] + bias[i]) as f64).collect();
            let mean = s.iter().sum::<f64>() / 19.0;
            let var = s.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 19.0;
            for i in 0..19 {
                let want = (s[i] - mean) / var.sqrt() * gamma[i] as f64 + beta[i] as f64;
                assert!(
                    (row[i] as f64 - want).abs() < 1e-5,
                    "{i}: {} vs {want}",
                    row[i]
                );
            }
        }
    }
}
