//! Owns the fast tier: a static model2vec model (potion-base-8M by
//! default) through `model2vec-rs`, loaded from a local directory only.
//! A token lookup and a mean, so it embeds tens of thousands of chunks per
//! second: every chunk gets a vector at index time.
//!
//! A process that only embeds queries (a search) opens the model with
//! [`StaticEmbedder::load_for_queries`], which reads the vocabulary and just
//! the rows a query needs (`static_query.rs`, same vectors) instead of
//! decoding the whole table.

use std::path::Path;

use anyhow::{Context, Result, anyhow};
use model2vec_rs::model::StaticModel;

use super::Embedder;
use super::code_delta::CodeDelta;
use super::static_query::QueryModel;

/// Token limit per text (model2vec's default).
const MAX_TOKENS: usize = 512;

pub struct StaticEmbedder {
    model: Model,
    id: String,
    dim: usize,
}

enum Model {
    /// model2vec-rs: the whole table in memory, fast on many texts.
    Full(StaticModel),
    /// Rows read on demand: fast to open, for a few texts.
    Query(Box<QueryModel>),
}

impl StaticEmbedder {
    /// The model for embedding chunks (many texts per call), with `delta`
    /// applied to its token vectors when given.
    pub fn load(dir: &Path, id: &str, delta: Option<&CodeDelta>) -> Result<StaticEmbedder> {
        let model = match delta {
            None => StaticModel::from_pretrained(dir, None, None, None),
            Some(delta) => with_delta(dir, delta),
        }
        .map_err(|e| anyhow!("cannot load the static model in `{}`: {e:#}", dir.display()))?;
        let dim = model.dim();
        Ok(StaticEmbedder {
            model: Model::Full(model),
            id: id.to_string(),
            dim,
        })
    }

    /// The model for embedding queries: the on-demand form when it
    /// reproduces this model exactly, else the full one.
    pub fn load_for_queries(
        dir: &Path,
        id: &str,
        delta: Option<&'static CodeDelta>,
    ) -> Result<StaticEmbedder> {
        match QueryModel::load(dir, delta) {
            Ok(Some(q)) => Ok(StaticEmbedder {
                dim: q.dim(),
                model: Model::Query(Box::new(q)),
                id: id.to_string(),
            }),
            Ok(None) => StaticEmbedder::load(dir, id, delta),
            Err(e) => {
                tracing::debug!("static query model: {e:#}; loading the full model");
                StaticEmbedder::load(dir, id, delta)
            }
        }
    }
}

/// model2vec-rs's model from `dir` with `delta` added to its table (which
/// must be one plain f32 table, the layout the delta was trained on).
fn with_delta(dir: &Path, delta: &CodeDelta) -> Result<StaticModel> {
    let read = |f: &str| std::fs::read(dir.join(f)).with_context(|| format!("cannot read `{f}`"));
    let mut model = read("model.safetensors")?;
    let (start, rows, dim) = super::static_query::embedding_table_in(&model)?
        .ok_or_else(|| anyhow!("model.safetensors is not one plain f32 table"))?;
    // `embedding_table_in` checked that the file holds the whole table.
    let table = &mut model[start as usize..start as usize + rows * dim * 4];
    delta.check_base(rows, dim, |id| {
        let mut row = vec![0.0f32; dim];
        let at = id as usize * dim * 4;
        let bytes = table
            .get(at..at + dim * 4)
            .ok_or_else(|| anyhow!("no row {id}"))?;
        super::static_query::decode_row(bytes, &mut row);
        Ok(row)
    })?;
    delta.apply_to_le_table(table);
    StaticModel::from_bytes(read("tokenizer.json")?, model, read("config.json")?, None)
}

impl StaticEmbedder {
    /// True when rows are read on demand (the query form is in use).
    pub fn reads_rows_on_demand(&self) -> bool {
        matches!(self.model, Model::Query(_))
    }
}

impl Embedder for StaticEmbedder {
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let model = match &self.model {
            Model::Full(m) => m,
            Model::Query(q) => {
                let mut out = Vec::with_capacity(texts.len());
                for t in texts {
                    let mut v = q.embed(t, MAX_TOKENS)?;
                    super::l2_normalize(&mut v);
                    out.push(v);
                }
                return Ok(out);
            }
        };
        let owned: Vec<String> = texts.iter().map(|t| t.to_string()).collect();
        // model2vec-rs panics if a (Unigram) tokenizer fails: keep that
        // inside this call instead of taking the process down.
        let mut out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            model.encode_with_args(&owned, Some(MAX_TOKENS), owned.len().max(1))
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

    fn token_table(&self) -> Option<&dyn super::TokenTable> {
        match &self.model {
            Model::Query(q) => Some(q.as_ref()),
            Model::Full(_) => None,
        }
    }
}
