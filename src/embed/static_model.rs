//! Owns the fast tier: a static model2vec model (potion-base-8M by
//! default) through `model2vec-rs`, loaded from a local directory only.
//! A token lookup and a mean, so it embeds tens of thousands of chunks per
//! second: every chunk gets a vector at index time.

use std::path::Path;

use anyhow::{Result, anyhow};
use model2vec_rs::model::StaticModel;

use super::Embedder;

/// Token limit per text (model2vec's default).
const MAX_TOKENS: usize = 512;

pub struct StaticEmbedder {
    model: StaticModel,
    id: String,
    dim: usize,
}

impl StaticEmbedder {
    pub fn load(dir: &Path, id: &str) -> Result<StaticEmbedder> {
        let model = StaticModel::from_pretrained(dir, None, None, None)
            .map_err(|e| anyhow!("cannot load the static model in `{}`: {e:#}", dir.display()))?;
        let dim = model.dim();
        Ok(StaticEmbedder {
            model,
            id: id.to_string(),
            dim,
        })
    }
}

impl Embedder for StaticEmbedder {
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let owned: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        // model2vec-rs panics if a (Unigram) tokenizer fails: keep that
        // inside this call instead of taking the process down.
        let mut out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.model
                .encode_with_args(&owned, Some(MAX_TOKENS), owned.len().max(1))
        }))
        .map_err(|_| anyhow!("the static model failed to tokenize a chunk"))?;
        for v in &mut out {
            super::l2_normalize(v);
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
        MAX_TOKENS
    }

    fn batch_size(&self) -> usize {
        512
    }
}
