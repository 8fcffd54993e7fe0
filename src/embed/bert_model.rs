//! Owns the BERT encoder forward pass used by [`super::bert`], written for
//! CPU throughput: every matrix product is one 2-D GEMM over all tokens of
//! the batch (candle, `gemm` crate), and everything between GEMMs is a
//! fused, multi-threaded pass — bias + GELU, scale + mask + softmax, bias +
//! residual + LayerNorm — instead of candle-transformers' chain of
//! single-threaded element-wise ops, each allocating a new tensor.
//!
//! Measured on 2 cores (perf, scripts/bench-embed.sh): candle-transformers'
//! `BertModel` spent ~12% of its time in page faults of fresh buffers, ~10%
//! in single-threaded scalar `erf` and more in barriers between small
//! element-wise ops. Here `exp` and `erf` are branch-free polynomials that
//! vectorise (errors below 2e-7, far under f32 activation noise): vectors
//! still agree with sentence-transformers at cosine ≥ 0.9999
//! (scripts/check-embeddings.sh).

use anyhow::{Context, Result, bail};
use candle_core::{CpuStorage, CustomOp1, CustomOp2, DType, Layout, Shape, Tensor};
use candle_nn::VarBuilder;
use rayon::prelude::*;

/// The weights of one encoder layer.
struct Layer {
    /// Query, key and value projections stacked: (3·hidden, hidden).
    qkv_w: Tensor,
    qkv_b: Tensor,
    attn_out_w: Tensor,
    attn_out: ResidualLayerNorm,
    inter_w: Tensor,
    inter: BiasGelu,
    out_w: Tensor,
    out: ResidualLayerNorm,
}

pub struct Encoder {
    word: Tensor,
    position: Tensor,
    token_type: Tensor,
    emb_ln_w: Tensor,
    emb_ln_b: Tensor,
    eps: f32,
    layers: Vec<Layer>,
    heads: usize,
    hidden: usize,
}

fn vec1(t: Tensor) -> Result<Vec<f32>> {
    Ok(t.to_dtype(DType::F32)?.to_vec1::<f32>()?)
}

impl Encoder {
    /// Loads the weights of a BERT model (`bert.` prefix optional).
    pub fn load(vb: VarBuilder, config: &serde_json::Value) -> Result<Encoder> {
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
        if hidden % heads != 0 {
            bail!("hidden_size {hidden} is not a multiple of num_attention_heads {heads}");
        }
        let vb = if vb.contains_tensor("bert.embeddings.word_embeddings.weight") {
            vb.pp("bert")
        } else {
            vb
        };
        let e = vb.pp("embeddings");
        let ln = |vb: VarBuilder, n: usize| -> Result<(Tensor, Tensor)> {
            Ok((
                vb.get(n, "weight").or_else(|_| vb.get(n, "gamma"))?,
                vb.get(n, "bias").or_else(|_| vb.get(n, "beta"))?,
            ))
        };
        let (emb_ln_w, emb_ln_b) = ln(e.pp("LayerNorm"), hidden)?;
        let mut layers = Vec::with_capacity(layers_n);
        for i in 0..layers_n {
            let l = vb.pp(format!("encoder.layer.{i}"));
            let a = l.pp("attention");
            let q = a.pp("self.query");
            let k = a.pp("self.key");
            let v = a.pp("self.value");
            let qkv_w = Tensor::cat(
                &[
                    q.get((hidden, hidden), "weight")?,
                    k.get((hidden, hidden), "weight")?,
                    v.get((hidden, hidden), "weight")?,
                ],
                0,
            )?;
            let qkv_b = Tensor::cat(
                &[
                    q.get(hidden, "bias")?,
                    k.get(hidden, "bias")?,
                    v.get(hidden, "bias")?,
                ],
                0,
            )?;
            let o = a.pp("output");
            let (g1, b1) = ln(o.pp("LayerNorm"), hidden)?;
            let it = l.pp("intermediate.dense");
            let out = l.pp("output");
            let (g2, b2) = ln(out.pp("LayerNorm"), hidden)?;
            layers.push(Layer {
                qkv_w: qkv_w.t()?.contiguous()?,
                qkv_b,
                attn_out_w: o
                    .pp("dense")
                    .get((hidden, hidden), "weight")?
                    .t()?
                    .contiguous()?,
                attn_out: ResidualLayerNorm {
                    bias: vec1(o.pp("dense").get(hidden, "bias")?)?,
                    gamma: vec1(g1)?,
                    beta: vec1(b1)?,
                    eps,
                },
                inter_w: it.get((inter, hidden), "weight")?.t()?.contiguous()?,
                inter: BiasGelu {
                    bias: vec1(it.get(inter, "bias")?)?,
                },
                out_w: out
                    .pp("dense")
                    .get((hidden, inter), "weight")?
                    .t()?
                    .contiguous()?,
                out: ResidualLayerNorm {
                    bias: vec1(out.pp("dense").get(hidden, "bias")?)?,
                    gamma: vec1(g2)?,
                    beta: vec1(b2)?,
                    eps,
                },
            });
        }
        Ok(Encoder {
            word: e.pp("word_embeddings").get((vocab, hidden), "weight")?,
            position: e
                .pp("position_embeddings")
                .get((positions, hidden), "weight")?,
            token_type: e
                .pp("token_type_embeddings")
                .get((types, hidden), "weight")?,
            emb_ln_w,
            emb_ln_b,
            eps,
            layers,
            heads,
            hidden,
        })
    }

    /// Hidden states of the last layer, `(n·len, hidden)`, for `ids` and
    /// `mask` of shape `(n, len)` (token type 0 everywhere).
    pub fn forward(&self, ids: &Tensor, mask: &[u32], n: usize, len: usize) -> Result<Tensor> {
        let (h, heads) = (self.hidden, self.heads);
        let d = h / heads;
        let flat = ids.flatten_all()?;
        let x = self.word.index_select(&flat, 0)?.reshape((n, len, h))?;
        let pos = self.position.narrow(0, 0, len)?;
        let typ = self.token_type.narrow(0, 0, 1)?;
        let x = x.broadcast_add(&pos)?.broadcast_add(&typ)?;
        let mut x = candle_nn::ops::layer_norm(&x, &self.emb_ln_w, &self.emb_ln_b, self.eps)?
            .reshape((n * len, h))?;
        let softmax = MaskedSoftmax {
            mask: mask.to_vec(),
            len,
            heads,
            scale: 1.0 / (d as f32).sqrt(),
        };
        for l in &self.layers {
            let qkv = x.matmul(&l.qkv_w)?.broadcast_add(&l.qkv_b)?;
            // (n, len, 3, heads, d) → (3, n, heads, len, d)
            let qkv = qkv
                .reshape((n, len, 3, heads, d))?
                .permute((2, 0, 3, 1, 4))?
                .contiguous()?;
            let (q, k, v) = (qkv.get(0)?, qkv.get(1)?, qkv.get(2)?);
            let scores = q.matmul(&k.t()?)?; // (n, heads, len, len)
            let probs = scores.apply_op1_no_bwd(&softmax)?;
            let ctx = probs
                .matmul(&v)?
                .transpose(1, 2)?
                .contiguous()?
                .reshape((n * len, h))?;
            let attn = ctx.matmul(&l.attn_out_w)?;
            x = attn.apply_op2_no_bwd(&x, &l.attn_out)?;
            let inter = x.matmul(&l.inter_w)?.apply_op1_no_bwd(&l.inter)?;
            let out = inter.matmul(&l.out_w)?;
            x = out.apply_op2_no_bwd(&x, &l.out)?;
        }
        Ok(x)
    }
}

fn contiguous_f32<'a>(
    s: &'a CpuStorage,
    layout: &Layout,
    what: &str,
) -> candle_core::Result<&'a [f32]> {
    let CpuStorage::F32(v) = s else {
        candle_core::bail!("{what}: expected f32");
    };
    let Some((start, end)) = layout.contiguous_offsets() else {
        candle_core::bail!("{what}: expected a contiguous tensor");
    };
    Ok(&v[start..end])
}

/// Rows per parallel task: enough work to amortise scheduling.
fn rows_per_task(row_len: usize) -> usize {
    (16_384 / row_len.max(1)).max(1)
}

/// `gelu(x + bias)` with the exact (erf) GELU, rows in parallel.
struct BiasGelu {
    bias: Vec<f32>,
}

impl CustomOp1 for BiasGelu {
    fn name(&self) -> &'static str {
        "bias-gelu"
    }

    fn cpu_fwd(&self, s: &CpuStorage, layout: &Layout) -> candle_core::Result<(CpuStorage, Shape)> {
        let x = contiguous_f32(s, layout, "bias-gelu")?;
        let n = self.bias.len();
        if n == 0 || x.len() % n != 0 {
            candle_core::bail!("bias-gelu: bias of {n} for {} values", x.len());
        }
        let mut out = vec![0f32; x.len()];
        out.par_chunks_mut(n * rows_per_task(n))
            .zip(x.par_chunks(n * rows_per_task(n)))
            .for_each(|(o, xs)| {
                for (orow, xrow) in o.chunks_exact_mut(n).zip(xs.chunks_exact(n)) {
                    simd::bias_gelu_row(orow, xrow, &self.bias);
                }
            });
        Ok((CpuStorage::F32(out), layout.shape().clone()))
    }
}

/// `softmax(scores · scale + mask)` over the last dimension of
/// `(n, heads, len, len)` scores; padded keys get no weight.
struct MaskedSoftmax {
    /// (n, len): 1 for real tokens, 0 for padding.
    mask: Vec<u32>,
    len: usize,
    heads: usize,
    scale: f32,
}

impl CustomOp1 for MaskedSoftmax {
    fn name(&self) -> &'static str {
        "masked-softmax"
    }

    fn cpu_fwd(&self, s: &CpuStorage, layout: &Layout) -> candle_core::Result<(CpuStorage, Shape)> {
        let x = contiguous_f32(s, layout, "masked-softmax")?;
        let len = self.len;
        if len == 0 || x.len() != self.mask.len() * self.heads * len {
            candle_core::bail!("masked-softmax: shape mismatch");
        }
        let mut out = vec![0f32; x.len()];
        // One task per (sequence, head): len rows of len scores.
        let block = len * len;
        out.par_chunks_mut(block)
            .zip(x.par_chunks(block))
            .enumerate()
            .for_each(|(i, (o, xs))| {
                let seq = i / self.heads;
                let m = &self.mask[seq * len..(seq + 1) * len];
                let keep: Vec<f32> = m.iter().map(|&k| if k != 0 { 1.0 } else { 0.0 }).collect();
                for (orow, xrow) in o.chunks_exact_mut(len).zip(xs.chunks_exact(len)) {
                    simd::masked_softmax_row(orow, xrow, &keep, self.scale);
                }
            });
        Ok((CpuStorage::F32(out), layout.shape().clone()))
    }
}

/// `LayerNorm(x + bias + residual)`, rows in parallel.
struct ResidualLayerNorm {
    bias: Vec<f32>,
    gamma: Vec<f32>,
    beta: Vec<f32>,
    eps: f32,
}

impl CustomOp2 for ResidualLayerNorm {
    fn name(&self) -> &'static str {
        "residual-layer-norm"
    }

    fn cpu_fwd(
        &self,
        s1: &CpuStorage,
        l1: &Layout,
        s2: &CpuStorage,
        l2: &Layout,
    ) -> candle_core::Result<(CpuStorage, Shape)> {
        let x = contiguous_f32(s1, l1, "residual-layer-norm")?;
        let r = contiguous_f32(s2, l2, "residual-layer-norm")?;
        let n = self.bias.len();
        if n == 0 || x.len() != r.len() || x.len() % n != 0 {
            candle_core::bail!("residual-layer-norm: shape mismatch");
        }
        let mut out = vec![0f32; x.len()];
        let chunk = n * rows_per_task(n);
        out.par_chunks_mut(chunk)
            .zip(x.par_chunks(chunk).zip(r.par_chunks(chunk)))
            .for_each(|(o, (xs, rs))| {
                for ((orow, xrow), rrow) in o
                    .chunks_exact_mut(n)
                    .zip(xs.chunks_exact(n))
                    .zip(rs.chunks_exact(n))
                {
                    let mut mean = 0f32;
                    for ((o, &a), (&b, &c)) in
                        orow.iter_mut().zip(xrow).zip(self.bias.iter().zip(rrow))
                    {
                        *o = a + b + c;
                        mean += *o;
                    }
                    mean /= n as f32;
                    let mut var = 0f32;
                    for o in orow.iter() {
                        var += (o - mean) * (o - mean);
                    }
                    let inv = 1.0 / (var / n as f32 + self.eps).sqrt();
                    for ((o, &g), &b) in orow.iter_mut().zip(&self.gamma).zip(&self.beta) {
                        *o = (*o - mean) * inv * g + b;
                    }
                }
            });
        Ok((CpuStorage::F32(out), l1.shape().clone()))
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
        y * f32::from_bits(((n as i32 + 127) as u32) << 23)
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

    #[inline(always)]
    fn bias_gelu_generic(out: &mut [f32], x: &[f32], bias: &[f32]) {
        for ((o, &v), &b) in out.iter_mut().zip(x).zip(bias) {
            let v = v + b;
            *o = 0.5 * v * (1.0 + erf(v * std::f32::consts::FRAC_1_SQRT_2));
        }
    }

    /// Reductions use 8 independent lanes: a single float accumulator is a
    /// serial dependency chain that LLVM may not reorder, so it would not
    /// vectorise (it cost a fifth of the whole forward pass when it did not).
    #[inline(always)]
    fn masked_softmax_generic(out: &mut [f32], x: &[f32], keep: &[f32], scale: f32) {
        let mut lanes = [f32::MIN; 8];
        let (xc, kc) = (x.chunks_exact(8), keep.chunks_exact(8));
        let (xr, kr) = (xc.remainder(), kc.remainder());
        for (xs, ks) in xc.zip(kc) {
            for j in 0..8 {
                lanes[j] = lanes[j].max(if ks[j] > 0.0 { xs[j] * scale } else { f32::MIN });
            }
        }
        let mut max = lanes.iter().fold(f32::MIN, |a, &b| a.max(b));
        for (&v, &k) in xr.iter().zip(kr) {
            max = max.max(if k > 0.0 { v * scale } else { f32::MIN });
        }
        for ((o, &v), &k) in out.iter_mut().zip(x).zip(keep) {
            *o = exp(v * scale - max) * k;
        }
        let mut sums = [0f32; 8];
        let oc = out.chunks_exact(8);
        let mut sum: f32 = oc.remainder().iter().sum();
        for os in oc {
            for j in 0..8 {
                sums[j] += os[j];
            }
        }
        sum += sums.iter().sum::<f32>();
        let inv = if sum > 0.0 { 1.0 / sum } else { 0.0 };
        for o in out.iter_mut() {
            *o *= inv;
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn bias_gelu_avx2(out: &mut [f32], x: &[f32], bias: &[f32]) {
        bias_gelu_generic(out, x, bias)
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn masked_softmax_avx2(out: &mut [f32], x: &[f32], keep: &[f32], scale: f32) {
        masked_softmax_generic(out, x, keep, scale)
    }

    pub fn bias_gelu_row(out: &mut [f32], x: &[f32], bias: &[f32]) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU supports the features the function is compiled for.
            return unsafe { bias_gelu_avx2(out, x, bias) };
        }
        bias_gelu_generic(out, x, bias)
    }

    pub fn masked_softmax_row(out: &mut [f32], x: &[f32], keep: &[f32], scale: f32) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU supports the features the function is compiled for.
            return unsafe { masked_softmax_avx2(out, x, keep, scale) };
        }
        masked_softmax_generic(out, x, keep, scale)
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
            let mut out = [0f32; 4];
            super::masked_softmax_row(
                &mut out,
                &[1.0, 2.0, 100.0, 0.5],
                &[1.0, 1.0, 0.0, 1.0],
                1.0,
            );
            assert_eq!(out[2], 0.0);
            assert!((out.iter().sum::<f32>() - 1.0).abs() < 1e-6);
            assert!(out[1] > out[0] && out[0] > out[3]);
        }
    }
}
