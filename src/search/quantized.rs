//! Owns the in-memory form of a vector matrix for brute-force search: each
//! row as int8 codes with one f32 scale (symmetric, per row), exactly as the
//! index stores it ([`crate::store::quantize`]), the int8 dot product the
//! scan runs on, and the score of an f32 query against a row's codes that
//! candidates are re-scored with. Does not choose candidates (semantic
//! search does that).
//!
//! Error: a code is `round(x / scale)` with `scale = max|x| / 127`, so each
//! component is off by at most `scale / 2`. The scan also quantizes the
//! query, so its scores are off by well under 0.01, which only reorders
//! near-ties: semantic search takes several times more candidates from it
//! than it returns and re-scores them with the f32 query against the stored
//! codes ([`Quantized::score_f32`]), the exact score of the stored vectors
//! (within about 0.001 of the vectors the model computed, on Django's).

/// Row-major int8 codes with one scale per row.
#[derive(Default)]
pub struct Quantized {
    dim: usize,
    codes: Vec<i8>,
    scales: Vec<f32>,
}

pub use crate::store::quantize;

impl Quantized {
    /// Quantizes a row-major f32 matrix of `dim` columns.
    pub fn from_f32(dim: usize, data: &[f32]) -> Quantized {
        let rows = data.len().checked_div(dim).unwrap_or(0);
        let mut q = Quantized {
            dim,
            codes: Vec::with_capacity(rows * dim),
            scales: Vec::with_capacity(rows),
        };
        for row in data.chunks_exact(dim.max(1)).take(rows) {
            q.push(row);
        }
        q
    }

    /// Appends one row (of `dim` values).
    pub fn push(&mut self, row: &[f32]) {
        let (codes, scale) = quantize(row);
        self.codes.extend_from_slice(&codes);
        self.scales.push(scale);
    }

    pub fn dim(&self) -> usize {
        self.dim
    }

    pub fn rows(&self) -> usize {
        self.scales.len()
    }

    /// Bytes held (codes and scales).
    pub fn bytes(&self) -> usize {
        self.codes.len() + self.scales.len() * 4
    }

    /// The approximate dot product of row `row` with a query quantized by
    /// [`quantize`] (`q`, `q_scale`).
    #[inline]
    pub fn score(&self, row: usize, q: &[i8], q_scale: f32) -> f32 {
        let codes = &self.codes[row * self.dim..(row + 1) * self.dim];
        dot_i8(codes, q) as f32 * self.scales[row] * q_scale
    }

    /// The dot product of row `row` (the vector its codes stand for) with
    /// an f32 query: the exact score of the stored vector.
    #[inline]
    pub fn score_f32(&self, row: usize, q: &[f32]) -> f32 {
        let codes = &self.codes[row * self.dim..(row + 1) * self.dim];
        dot_i8_f32(codes, q) * self.scales[row]
    }
}

/// Filled straight from the index (`Store::load_vectors_into`), so a large
/// matrix never exists in f32.
impl crate::store::RowSink for Quantized {
    fn start(&mut self, rows: usize, dim: usize) {
        self.dim = dim;
        self.codes = vec![0; rows * dim];
        self.scales = vec![0.0; rows];
    }
    fn put(&mut self, slot: usize, codes: &[u8], scale: f32) {
        let d = self.dim;
        for (x, &c) in self.codes[slot * d..(slot + 1) * d].iter_mut().zip(codes) {
            *x = c as i8;
        }
        self.scales[slot] = scale;
    }
    fn copy(&mut self, from: usize, to: usize) {
        let d = self.dim;
        self.codes.copy_within(from * d..(from + 1) * d, to * d);
        self.scales[to] = self.scales[from];
    }
    fn truncate(&mut self, rows: usize) {
        self.codes.truncate(rows * self.dim);
        self.scales.truncate(rows);
    }
}

/// Integer dot product, unrolled by 32 so the compiler vectorises it
/// (widening multiply-adds). Exact for any `dim` below 2^16 / 127^2 * 2^31.
#[inline]
pub fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    const W: usize = 32;
    let mut acc = [0i32; W];
    let n = a.len().min(b.len());
    let chunks = n / W;
    for i in 0..chunks {
        let (x, y) = (&a[i * W..i * W + W], &b[i * W..i * W + W]);
        for j in 0..W {
            acc[j] += i32::from(x[j]) * i32::from(y[j]);
        }
    }
    let mut s: i32 = acc.iter().sum();
    for i in chunks * W..n {
        s += i32::from(a[i]) * i32::from(b[i]);
    }
    s
}

/// Dot product of int8 codes with f32 values, unrolled by 8 so the
/// compiler vectorises it.
#[inline]
pub fn dot_i8_f32(codes: &[i8], q: &[f32]) -> f32 {
    const W: usize = 8;
    let mut acc = [0.0f32; W];
    let n = codes.len().min(q.len());
    let chunks = n / W;
    for i in 0..chunks {
        let (x, y) = (&codes[i * W..i * W + W], &q[i * W..i * W + W]);
        for j in 0..W {
            acc[j] += f32::from(x[j]) * y[j];
        }
    }
    let mut s: f32 = acc.iter().sum();
    for i in chunks * W..n {
        s += f32::from(codes[i]) * q[i];
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_i8_matches_naive() {
        let a: Vec<i8> = (0..77).map(|i| ((i * 37) % 255 - 127) as i8).collect();
        let b: Vec<i8> = (0..77).map(|i| ((i * 91) % 255 - 127) as i8).collect();
        let naive: i32 = a
            .iter()
            .zip(&b)
            .map(|(x, y)| i32::from(*x) * i32::from(*y))
            .sum();
        assert_eq!(dot_i8(&a, &b), naive);
    }

    #[test]
    fn scores_are_close_to_the_exact_dot_product() {
        let mut seed = 7u64;
        let mut unit = |dim: usize| {
            let mut v: Vec<f32> = (0..dim)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
                })
                .collect();
            let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            v.iter_mut().for_each(|x| *x /= n);
            v
        };
        for dim in [2, 256, 384] {
            let rows: Vec<Vec<f32>> = (0..50).map(|_| unit(dim)).collect();
            let flat: Vec<f32> = rows.concat();
            let q = Quantized::from_f32(dim, &flat);
            assert_eq!(q.rows(), 50);
            let query = unit(dim);
            let (qc, qs) = quantize(&query);
            for (r, row) in rows.iter().enumerate() {
                let exact: f32 = row.iter().zip(&query).map(|(x, y)| x * y).sum();
                assert!(
                    (q.score(r, &qc, qs) - exact).abs() < 0.01,
                    "dim {dim} row {r}"
                );
            }
        }
    }

    #[test]
    fn zero_and_non_finite_rows_score_zero() {
        let q = Quantized::from_f32(2, &[0.0, 0.0, f32::NAN, 1.0]);
        let (qc, qs) = quantize(&[1.0, 0.0]);
        assert_eq!(q.score(0, &qc, qs), 0.0);
        assert!(q.score(1, &qc, qs).is_finite());
    }
}
