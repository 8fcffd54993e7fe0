//! Owns the fast tier's code delta: potion-base-8M's token vectors moved
//! toward code. potion-base-8M was distilled from an English model, so a
//! question's words and the code that answers it often sit apart (`spinner`
//! and `ProgressIndicator`); the delta, trained on doc sentences and the
//! code they document from third-party trees (`scripts/code-delta/`), and
//! on 2,999 questions written the way agents ask about such trees
//! (`questions.jsonl`), moves about 14.6k of its 29.5k rows. Built in
//! (`code_delta.bin`, int8 rows with a scale each) and applied when the
//! built-in fast model is opened, so nothing else is fetched; its vectors
//! are stored under [`MODEL_ID`].
//!
//! Format (little-endian): `RSCD`, u32 version 1, u32 rows, u32 dim, u32
//! check row, that row of the base table as `dim` f32 (the model the delta
//! was trained on), u32 n, then n × (u32 token id, f32 scale, `dim` i8). A
//! row's new value is `base + i8 as f32 * scale`, in f32, the same in
//! every process that applies it.

use std::sync::OnceLock;

use anyhow::{Result, anyhow};

/// The id the fast tier's vectors are stored under with the delta applied
/// (the base model's id plus the delta's version: a new delta re-embeds).
pub const MODEL_ID: &str = "minishlab/potion-base-8M+code3";

static BYTES: &[u8] = include_bytes!("code_delta.bin");

pub struct CodeDelta {
    bytes: &'static [u8],
    rows: usize,
    dim: usize,
    check_row: u32,
    check: Vec<f32>,
    /// Where the rows start in [`BYTES`], each `8 + dim` bytes, by
    /// ascending token id (found by binary search: nothing to build, so a
    /// cold search that reads ten rows pays nothing for the other 14.5k).
    rows_at: usize,
    n: usize,
}

/// The built-in delta, parsed once.
pub fn builtin() -> Result<&'static CodeDelta> {
    static DELTA: OnceLock<std::result::Result<CodeDelta, String>> = OnceLock::new();
    DELTA
        .get_or_init(|| CodeDelta::parse(BYTES).map_err(|e| format!("{e:#}")))
        .as_ref()
        .map_err(|e| anyhow!("the built-in code delta is unreadable: {e}"))
}

impl CodeDelta {
    fn parse(b: &'static [u8]) -> Result<CodeDelta> {
        let u32_at = |at: usize| -> Result<u32> {
            b.get(at..at + 4)
                .map(|s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
                .ok_or_else(|| anyhow!("truncated at byte {at}"))
        };
        if b.get(..4) != Some(b"RSCD") || u32_at(4)? != 1 {
            return Err(anyhow!("not a version 1 code delta"));
        }
        let (rows, dim, check_row) = (u32_at(8)? as usize, u32_at(12)? as usize, u32_at(16)?);
        let mut at = 20;
        let check = (0..dim)
            .map(|i| u32_at(at + 4 * i).map(f32::from_bits))
            .collect::<Result<Vec<f32>>>()?;
        at += 4 * dim;
        let n = u32_at(at)? as usize;
        at += 4;
        if b.len() != at + n * (8 + dim) {
            return Err(anyhow!("{} bytes for {n} rows of {dim}", b.len() - at));
        }
        // The rows' order and range are checked by a test, not here: a
        // process opening the model should not read all of it.
        Ok(CodeDelta {
            bytes: b,
            rows,
            dim,
            check_row,
            check,
            rows_at: at,
            n,
        })
    }

    fn id_at(&self, i: usize) -> u32 {
        let (b, at) = (self.bytes, self.rows_at + i * (8 + self.dim));
        u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
    }

    /// The ids of the rows the delta changes, ascending.
    pub fn changed(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.n).map(|i| self.id_at(i))
    }

    /// Checks that `rows × dim` and `read_row(check row)` are the base model
    /// the delta was trained on.
    pub fn check_base(
        &self,
        rows: usize,
        dim: usize,
        read_row: impl FnOnce(u32) -> Result<Vec<f32>>,
    ) -> Result<()> {
        if rows != self.rows || dim != self.dim {
            return Err(anyhow!(
                "the fast model has {rows}×{dim} token vectors; the code delta is for {}×{}",
                self.rows,
                self.dim
            ));
        }
        let row = read_row(self.check_row)?;
        if row
            .iter()
            .zip(&self.check)
            .any(|(a, b)| a.to_bits() != b.to_bits())
        {
            return Err(anyhow!(
                "the fast model's token vectors are not potion-base-8M's (row {} differs)",
                self.check_row
            ));
        }
        Ok(())
    }

    /// Adds token `id`'s change to its base row `row` (no-op for a row the
    /// delta leaves alone).
    pub fn apply(&self, id: u32, row: &mut [f32]) {
        let (mut lo, mut hi) = (0, self.n);
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.id_at(mid).cmp(&id) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return self.apply_at(mid, row),
            }
        }
    }

    /// Adds the `i`-th changed row's change to `row`.
    fn apply_at(&self, i: usize, row: &mut [f32]) {
        let (b, at) = (self.bytes, self.rows_at + i * (8 + self.dim));
        let scale = f32::from_le_bytes([b[at + 4], b[at + 5], b[at + 6], b[at + 7]]);
        for (x, &q) in row.iter_mut().zip(&b[at + 8..at + 8 + self.dim]) {
            *x += f32::from(q as i8) * scale;
        }
    }

    /// Applies every change to a whole table of `rows × dim` little-endian
    /// f32 (a `model.safetensors` table, patched in place: only the changed
    /// rows are decoded).
    pub fn apply_to_le_table(&self, table: &mut [u8]) {
        let width = self.dim * 4;
        let mut row = vec![0.0f32; self.dim];
        for i in 0..self.n {
            let start = self.id_at(i) as usize * width;
            let Some(bytes) = table.get_mut(start..start + width) else {
                continue;
            };
            super::static_query::decode_row(bytes, &mut row);
            self.apply_at(i, &mut row);
            for (b, x) in bytes.chunks_exact_mut(4).zip(&row) {
                b.copy_from_slice(&x.to_le_bytes());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_delta_parses_and_changes_rows() {
        let d = builtin().expect("built-in delta");
        assert_eq!((d.rows, d.dim), (29528, 256));
        assert!(d.n > 1000, "{} rows", d.n);
        // Ascending and in range: `apply` searches them by id.
        let ids: Vec<u32> = d.changed().collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]));
        assert!(ids.iter().all(|&id| (id as usize) < d.rows));
        let id = d.changed().nth(d.n / 2).expect("a row");
        let mut row = vec![0.0f32; d.dim];
        d.apply(id, &mut row);
        assert!(row.iter().any(|x| *x != 0.0));
    }

    #[test]
    fn a_different_base_is_refused() {
        let d = builtin().expect("built-in delta");
        let other = vec![0.5f32; d.dim];
        let err = d
            .check_base(d.rows, d.dim, |_| Ok(other))
            .expect_err("other base");
        assert!(format!("{err:#}").contains("not potion-base-8M"), "{err:#}");
        assert!(d.check_base(10, d.dim, |_| Ok(vec![])).is_err());
        assert!(CodeDelta::parse(b"RSCD\x02\0\0\0").is_err());
        assert!(CodeDelta::parse(&BYTES[..BYTES.len() - 1]).is_err());
    }
}
