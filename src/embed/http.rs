//! Owns the HTTP embedding providers: an OpenAI-compatible
//! `POST {base_url}/v1/embeddings` and Ollama's `POST {base_url}/api/embed`.
//! The API key is read from the environment variable *named* by
//! `embed.api_key_env`, never from the config file. Errors say which
//! endpoint failed and what to check.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use anyhow::Result;
use serde_json::{Value, json};

use super::Embedder;
use crate::error::{ErrorCode, UserError};
use crate::settings::EmbedSettings;

const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
const REQUEST_TIMEOUT: Duration = Duration::from_secs(120);
/// Longest error body quoted in a message.
const MAX_ERROR_BODY: usize = 300;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    OpenAi,
    Ollama,
}

pub struct HttpEmbedder {
    api: Api,
    agent: ureq::Agent,
    url: String,
    model: String,
    api_key: Option<String>,
    id: String,
    dim: AtomicUsize,
    batch_size: usize,
}

impl HttpEmbedder {
    pub fn openai(s: &EmbedSettings) -> Result<HttpEmbedder> {
        let base = s.base_url.trim_end_matches('/');
        // Accept both `https://host` and `https://host/v1` as the base URL.
        let url = if base.ends_with("/v1") {
            format!("{base}/embeddings")
        } else {
            format!("{base}/v1/embeddings")
        };
        let api_key = if s.api_key_env.is_empty() {
            None
        } else {
            match std::env::var(&s.api_key_env) {
                Ok(k) if !k.trim().is_empty() => Some(k.trim().to_string()),
                _ => {
                    return Err(UserError::with_code(ErrorCode::Remote, format!(
                        "the API key variable `{}` (embed.api_key_env) is not set",
                        s.api_key_env
                    ))
                    .hint(format!(
                        "export {}=… before running repo-search, or set embed.api_key_env = \"\" for a server without keys",
                        s.api_key_env
                    ))
                    .into());
                }
            }
        };
        Self::new(Api::OpenAi, s, url, api_key, format!("openai:{}", s.model))
    }

    pub fn ollama(s: &EmbedSettings) -> Result<HttpEmbedder> {
        let url = format!("{}/api/embed", s.base_url.trim_end_matches('/'));
        Self::new(Api::Ollama, s, url, None, format!("ollama:{}", s.model))
    }

    fn new(
        api: Api,
        s: &EmbedSettings,
        url: String,
        api_key: Option<String>,
        id: String,
    ) -> Result<HttpEmbedder> {
        if s.base_url.trim().is_empty() || s.model.trim().is_empty() {
            return Err(UserError::with_code(
                ErrorCode::Remote,
                "the HTTP embedding provider needs embed.base_url and embed.model",
            )
            .hint("set both in `.repo_search/config.toml` (see `.repo_search.example`)")
            .into());
        }
        let agent = ureq::AgentBuilder::new()
            .timeout_connect(CONNECT_TIMEOUT)
            .timeout(REQUEST_TIMEOUT)
            .build();
        Ok(HttpEmbedder {
            api,
            agent,
            url,
            model: s.model.clone(),
            api_key,
            id,
            dim: AtomicUsize::new(0),
            batch_size: s.batch_size.max(1),
        })
    }

    fn post(&self, body: Value) -> Result<Value> {
        let mut req = self.agent.post(&self.url);
        if let Some(key) = &self.api_key {
            req = req.set("Authorization", &format!("Bearer {key}"));
        }
        match req.send_json(body) {
            Ok(resp) => resp.into_json::<Value>().map_err(|e| {
                UserError::with_code(
                    ErrorCode::Remote,
                    format!(
                        "the embedding server at `{}` sent an unreadable answer: {e}",
                        self.url
                    ),
                )
                .hint("check that embed.base_url points at an OpenAI-compatible or Ollama server")
                .into()
            }),
            Err(ureq::Error::Status(code, resp)) => {
                let mut body = resp.into_string().unwrap_or_default();
                if body.len() > MAX_ERROR_BODY {
                    let mut end = MAX_ERROR_BODY;
                    while !body.is_char_boundary(end) {
                        end -= 1;
                    }
                    body.truncate(end);
                }
                let hint = match (code, self.api) {
                    (401 | 403, _) => "check the API key in the variable named by embed.api_key_env".to_string(),
                    (404, Api::Ollama) => format!("pull the model first: `ollama pull {}`", self.model),
                    (404, Api::OpenAi) => "check embed.base_url and embed.model".to_string(),
                    _ => "check the server's logs; `repo-search config --show` prints the embed settings".to_string(),
                };
                Err(UserError::with_code(
                    ErrorCode::Remote,
                    format!(
                        "the embedding server at `{}` answered HTTP {code}: {}",
                        self.url,
                        body.trim()
                    ),
                )
                .hint(hint)
                .into())
            }
            Err(ureq::Error::Transport(t)) => {
                let hint = match self.api {
                    Api::Ollama => "is Ollama running (`ollama serve`)? check embed.base_url",
                    Api::OpenAi => "check embed.base_url and the network",
                };
                Err(UserError::with_code(
                    ErrorCode::Remote,
                    format!("cannot reach the embedding server at `{}`: {t}", self.url),
                )
                .hint(hint)
                .into())
            }
        }
    }

    fn parse(&self, v: &Value, n: usize) -> Result<Vec<Vec<f32>>> {
        let bad = |what: &str| -> anyhow::Error {
            UserError::with_code(
                ErrorCode::Remote,
                format!("the embedding server at `{}` sent {what}", self.url),
            )
            .hint("check that embed.base_url points at an OpenAI-compatible or Ollama server")
            .into()
        };
        let to_vec = |e: &Value| -> Option<Vec<f32>> {
            e.as_array()?
                .iter()
                .map(|x| x.as_f64().map(|f| f as f32))
                .collect()
        };
        let mut out: Vec<Vec<f32>> = match self.api {
            Api::Ollama => v["embeddings"]
                .as_array()
                .ok_or_else(|| bad("no `embeddings` array"))?
                .iter()
                .map(|e| to_vec(e).ok_or_else(|| bad("a non-numeric embedding")))
                .collect::<Result<_>>()?,
            Api::OpenAi => {
                let data = v["data"].as_array().ok_or_else(|| bad("no `data` array"))?;
                let mut slots: Vec<Option<Vec<f32>>> = vec![None; data.len()];
                for (pos, d) in data.iter().enumerate() {
                    let i = d["index"].as_u64().map(|i| i as usize).unwrap_or(pos);
                    let e =
                        to_vec(&d["embedding"]).ok_or_else(|| bad("a non-numeric embedding"))?;
                    if let Some(slot) = slots.get_mut(i) {
                        *slot = Some(e);
                    }
                }
                slots
                    .into_iter()
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| bad("embeddings with bad indexes"))?
            }
        };
        if out.len() != n {
            return Err(bad(&format!("{} embeddings for {n} inputs", out.len())));
        }
        let dim = out.first().map(|e| e.len()).unwrap_or(0);
        if dim == 0 || out.iter().any(|e| e.len() != dim) {
            return Err(bad("embeddings of different or zero lengths"));
        }
        for e in &mut out {
            super::l2_normalize(e);
        }
        self.dim.store(dim, Ordering::Relaxed);
        Ok(out)
    }
}

impl Embedder for HttpEmbedder {
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(self.batch_size) {
            if batch.is_empty() {
                continue;
            }
            let body = json!({"model": self.model, "input": batch});
            let v = self.post(body)?;
            out.extend(self.parse(&v, batch.len())?);
        }
        Ok(out)
    }

    fn dim(&self) -> usize {
        self.dim.load(Ordering::Relaxed)
    }

    fn model_id(&self) -> &str {
        &self.id
    }

    fn max_input_tokens(&self) -> usize {
        // Servers truncate (or refuse) by their own limits; chunks are
        // bounded to ~3000 bytes, well under common limits.
        8192
    }

    fn batch_size(&self) -> usize {
        self.batch_size
    }
}
