//! Owns resolved settings: finds the project root and merges, in order of
//! precedence, command-line flags > `REPO_SEARCH_*` environment variables >
//! `.repo_search/config.toml` > defaults into one [`Settings`]. Only resolved
//! settings go deeper into the library. `.repo_search.example` documents
//! every key.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::error::{ErrorCode, UserError};
use crate::walk::WalkOptions;

/// Default size above which a file is skipped by the indexer ("too large").
pub const DEFAULT_MAX_FILE_SIZE: u64 = 2 * 1024 * 1024;

/// Environment variables, each declared once.
pub mod env {
    /// Per-user state directory (registry, daemon socket, logs, models).
    pub const HOME: &str = "REPO_SEARCH_HOME";
    /// Overrides `index.max_file_size` (bytes).
    pub const MAX_FILE_SIZE: &str = "REPO_SEARCH_MAX_FILE_SIZE";
    /// `tracing` filter for logs on stderr, e.g. `repo_search=debug`.
    pub const LOG: &str = "REPO_SEARCH_LOG";
    /// Set by Claude Code to the project directory it runs in.
    pub const CLAUDE_PROJECT_DIR: &str = "CLAUDE_PROJECT_DIR";
    /// Overrides `embed.provider`: `embedded`, `openai`, `ollama` or `none`.
    pub const EMBED_PROVIDER: &str = "REPO_SEARCH_EMBED_PROVIDER";
    /// Overrides `embed.model_dir` (a local BERT-family model in Hugging Face layout).
    pub const EMBED_MODEL_DIR: &str = "REPO_SEARCH_EMBED_MODEL_DIR";
    /// Overrides `embed.fast` (`true`/`false`): the static fast tier.
    pub const EMBED_FAST: &str = "REPO_SEARCH_EMBED_FAST";
    /// Overrides `embed.fast_model_dir` (a local model2vec model).
    pub const EMBED_FAST_MODEL_DIR: &str = "REPO_SEARCH_EMBED_FAST_MODEL_DIR";
    /// Overrides `embed.base_url` (HTTP providers).
    pub const EMBED_BASE_URL: &str = "REPO_SEARCH_EMBED_BASE_URL";
    /// Overrides `embed.model` (HTTP providers' model name).
    pub const EMBED_MODEL: &str = "REPO_SEARCH_EMBED_MODEL";
    /// Overrides `embed.api_key_env`: the NAME of the variable holding the API key.
    pub const EMBED_API_KEY_ENV: &str = "REPO_SEARCH_EMBED_API_KEY_ENV";
    /// Overrides `embed.batch_size`.
    pub const EMBED_BATCH_SIZE: &str = "REPO_SEARCH_EMBED_BATCH_SIZE";
    /// Where downloaded models are cached (default `$REPO_SEARCH_HOME/models`).
    pub const MODEL_CACHE: &str = "REPO_SEARCH_MODEL_CACHE";
    /// Overrides `embed.offline` (`true`/`false`): `repo-search index` does
    /// not download missing models.
    pub const OFFLINE: &str = "REPO_SEARCH_OFFLINE";
}

/// The file format of `.repo_search/config.toml`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    #[serde(default)]
    pub index: IndexConfig,
    #[serde(default)]
    pub embed: EmbedConfig,
}

/// The `[embed]` section: which embedding model semantic search uses.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EmbedConfig {
    pub provider: Option<String>,
    pub model_dir: Option<PathBuf>,
    pub fast: Option<bool>,
    pub fast_model_dir: Option<PathBuf>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key_env: Option<String>,
    pub batch_size: Option<usize>,
    pub offline: Option<bool>,
}

/// Which embedding provider computes the full-quality vectors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EmbedProvider {
    /// The in-process BERT model (all-MiniLM-L6-v2 by default).
    Embedded,
    /// An OpenAI-compatible `/v1/embeddings` endpoint.
    OpenAi,
    /// An Ollama server's `/api/embed`.
    Ollama,
    /// No full-quality model (the fast tier may still run).
    None,
}

impl EmbedProvider {
    pub fn parse(s: &str) -> Option<EmbedProvider> {
        match s.trim().to_ascii_lowercase().as_str() {
            "embedded" | "local" => Some(EmbedProvider::Embedded),
            "openai" | "openai-compatible" => Some(EmbedProvider::OpenAi),
            "ollama" => Some(EmbedProvider::Ollama),
            "none" | "off" => Some(EmbedProvider::None),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            EmbedProvider::Embedded => "embedded",
            EmbedProvider::OpenAi => "openai",
            EmbedProvider::Ollama => "ollama",
            EmbedProvider::None => "none",
        }
    }
}

/// Resolved `[embed]` settings (see `.repo_search.example`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbedSettings {
    pub provider: EmbedProvider,
    /// A local BERT-family model directory (Hugging Face layout); `None` =
    /// the cached default model.
    pub model_dir: Option<PathBuf>,
    /// Whether the static fast tier embeds every chunk at index time.
    pub fast: bool,
    pub fast_model_dir: Option<PathBuf>,
    /// HTTP providers: base URL, model name, and the NAME of the environment
    /// variable holding the API key (the key itself is never configured).
    pub base_url: String,
    pub model: String,
    pub api_key_env: String,
    pub batch_size: usize,
    /// Model cache (`$REPO_SEARCH_MODEL_CACHE`, else `$REPO_SEARCH_HOME/models`).
    pub cache_dir: PathBuf,
    /// `repo-search index` does not download missing models (`--offline`,
    /// `REPO_SEARCH_OFFLINE`, `embed.offline`); only `model fetch` does.
    pub offline: bool,
}

pub const DEFAULT_EMBED_BATCH: usize = 16;

impl EmbedSettings {
    /// The defaults, with the cache under the current `REPO_SEARCH_HOME`.
    pub fn defaults() -> EmbedSettings {
        EmbedSettings {
            provider: EmbedProvider::Embedded,
            model_dir: None,
            fast: true,
            fast_model_dir: None,
            base_url: String::new(),
            model: String::new(),
            api_key_env: String::new(),
            batch_size: DEFAULT_EMBED_BATCH,
            cache_dir: model_cache_dir(),
            offline: false,
        }
    }
}

/// The model cache: `$REPO_SEARCH_MODEL_CACHE`, else `$REPO_SEARCH_HOME/models`.
pub fn model_cache_dir() -> PathBuf {
    match std::env::var_os(env::MODEL_CACHE).filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => crate::paths::home_dir().join("models"),
    }
}

fn env_string(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Resolves the `[embed]` section of the project at `root` (env > file >
/// default), with the provenance of every value. Kept apart from
/// [`Settings`] so that code building a `Settings` by hand needs no change.
pub fn resolve_embed(root: &Path) -> Result<(EmbedSettings, Vec<Provenance>)> {
    let (cfg, cfg_path) = read_config(root)?;
    resolve_embed_from(&cfg.embed, cfg_path.as_deref(), root)
}

fn resolve_embed_from(
    cfg: &EmbedConfig,
    cfg_path: Option<&Path>,
    root: &Path,
) -> Result<(EmbedSettings, Vec<Provenance>)> {
    let file_src = cfg_path
        .map(|p| format!("file `{}`", p.display()))
        .unwrap_or_default();
    let mut prov = Vec::new();
    let d = EmbedSettings::defaults();

    let provider_env = env_string(env::EMBED_PROVIDER);
    let (provider_s, src) = pick(
        None,
        provider_env,
        cfg.provider.clone(),
        d.provider.name().to_string(),
        env::EMBED_PROVIDER,
        &file_src,
    );
    let provider = EmbedProvider::parse(&provider_s).ok_or_else(|| {
        UserError::with_code(
            ErrorCode::InvalidConfig,
            format!("unknown embedding provider `{provider_s}` ({src})"),
        )
        .hint("use one of: embedded, openai, ollama, none")
    })?;
    prov.push(Provenance {
        key: "embed.provider",
        value: provider.name().into(),
        source: src,
    });

    // Relative model directories are relative to the project root.
    let abs = |p: PathBuf| if p.is_absolute() { p } else { root.join(p) };
    let (model_dir, src) = pick(
        None,
        env_string(env::EMBED_MODEL_DIR).map(PathBuf::from),
        cfg.model_dir.clone(),
        PathBuf::new(),
        env::EMBED_MODEL_DIR,
        &file_src,
    );
    let model_dir = (!model_dir.as_os_str().is_empty()).then(|| abs(model_dir));
    prov.push(Provenance {
        key: "embed.model_dir",
        value: model_dir
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        source: src,
    });

    let fast_env = match env_string(env::EMBED_FAST) {
        Some(v) => Some(parse_bool(&v).ok_or_else(|| {
            UserError::with_code(
                ErrorCode::InvalidConfig,
                format!("{} must be true or false, not `{v}`", env::EMBED_FAST),
            )
            .hint("e.g. REPO_SEARCH_EMBED_FAST=false")
        })?),
        None => None,
    };
    let (fast, src) = pick(None, fast_env, cfg.fast, d.fast, env::EMBED_FAST, &file_src);
    prov.push(Provenance {
        key: "embed.fast",
        value: fast.to_string(),
        source: src,
    });

    let (fast_model_dir, src) = pick(
        None,
        env_string(env::EMBED_FAST_MODEL_DIR).map(PathBuf::from),
        cfg.fast_model_dir.clone(),
        PathBuf::new(),
        env::EMBED_FAST_MODEL_DIR,
        &file_src,
    );
    let fast_model_dir = (!fast_model_dir.as_os_str().is_empty()).then(|| abs(fast_model_dir));
    prov.push(Provenance {
        key: "embed.fast_model_dir",
        value: fast_model_dir
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_default(),
        source: src,
    });

    let default_url = match provider {
        EmbedProvider::OpenAi => "https://api.openai.com",
        EmbedProvider::Ollama => "http://127.0.0.1:11434",
        _ => "",
    };
    let (base_url, src) = pick(
        None,
        env_string(env::EMBED_BASE_URL),
        cfg.base_url.clone(),
        default_url.to_string(),
        env::EMBED_BASE_URL,
        &file_src,
    );
    prov.push(Provenance {
        key: "embed.base_url",
        value: base_url.clone(),
        source: src,
    });
    let default_model = match provider {
        EmbedProvider::OpenAi => "text-embedding-3-small",
        EmbedProvider::Ollama => "nomic-embed-text",
        _ => "",
    };
    let (model, src) = pick(
        None,
        env_string(env::EMBED_MODEL),
        cfg.model.clone(),
        default_model.to_string(),
        env::EMBED_MODEL,
        &file_src,
    );
    prov.push(Provenance {
        key: "embed.model",
        value: model.clone(),
        source: src,
    });
    let default_key_env = if provider == EmbedProvider::OpenAi {
        "OPENAI_API_KEY"
    } else {
        ""
    };
    let (api_key_env, src) = pick(
        None,
        env_string(env::EMBED_API_KEY_ENV),
        cfg.api_key_env.clone(),
        default_key_env.to_string(),
        env::EMBED_API_KEY_ENV,
        &file_src,
    );
    prov.push(Provenance {
        key: "embed.api_key_env",
        value: api_key_env.clone(),
        source: src,
    });

    let batch_env = match env_string(env::EMBED_BATCH_SIZE) {
        Some(v) => Some(
            v.trim()
                .parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| {
                    UserError::with_code(
                        ErrorCode::InvalidConfig,
                        format!(
                            "{} must be a positive number, not `{v}`",
                            env::EMBED_BATCH_SIZE
                        ),
                    )
                    .hint("e.g. REPO_SEARCH_EMBED_BATCH_SIZE=16")
                })?,
        ),
        None => None,
    };
    let (batch_size, src) = pick(
        None,
        batch_env,
        cfg.batch_size,
        d.batch_size,
        env::EMBED_BATCH_SIZE,
        &file_src,
    );
    if batch_size == 0 {
        return Err(UserError::with_code(
            ErrorCode::InvalidConfig,
            "embed.batch_size must be at least 1",
        )
        .hint("remove the key to use the default (16)")
        .into());
    }
    prov.push(Provenance {
        key: "embed.batch_size",
        value: batch_size.to_string(),
        source: src,
    });
    let offline_env = match env_string(env::OFFLINE) {
        Some(v) => Some(parse_bool(&v).ok_or_else(|| {
            UserError::with_code(
                ErrorCode::InvalidConfig,
                format!("{} must be true or false, not `{v}`", env::OFFLINE),
            )
            .hint("e.g. REPO_SEARCH_OFFLINE=true")
        })?),
        None => None,
    };
    let (offline, src) = pick(
        None,
        offline_env,
        cfg.offline,
        d.offline,
        env::OFFLINE,
        &file_src,
    );
    prov.push(Provenance {
        key: "embed.offline",
        value: offline.to_string(),
        source: src,
    });
    prov.push(Provenance {
        key: "embed.cache_dir",
        value: d.cache_dir.display().to_string(),
        source: if env_string(env::MODEL_CACHE).is_some() {
            format!("env {}", env::MODEL_CACHE)
        } else {
            "default ($REPO_SEARCH_HOME/models)".to_string()
        },
    });

    let settings = EmbedSettings {
        provider,
        model_dir,
        fast,
        fast_model_dir,
        base_url,
        model,
        api_key_env,
        batch_size,
        cache_dir: d.cache_dir,
        offline,
    };
    Ok((settings, prov))
}

fn parse_bool(s: &str) -> Option<bool> {
    match s.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Some(true),
        "0" | "false" | "no" | "off" => Some(false),
        _ => None,
    }
}

#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct IndexConfig {
    pub max_file_size: Option<u64>,
    #[serde(default)]
    pub exclude: Vec<String>,
    pub hidden: Option<bool>,
    pub no_ignore: Option<bool>,
    pub no_require_git: Option<bool>,
}

/// One resolved value and where it came from, for `config --show`.
#[derive(Debug, Clone, Serialize)]
pub struct Provenance {
    pub key: &'static str,
    pub value: String,
    pub source: String,
}

/// Everything the library needs to index and search one project.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Canonical absolute project root.
    pub root: PathBuf,
    pub max_file_size: u64,
    /// Walk options for indexing (keyword search builds its own from flags).
    pub walk: WalkOptions,
    pub provenance: Vec<Provenance>,
}

impl Settings {
    /// The defaults for `root`, ignoring every configuration source (what a
    /// server falls back to when the config file is broken).
    pub fn defaults(root: PathBuf) -> Settings {
        Settings {
            root,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            walk: WalkOptions::default(),
            provenance: Vec::new(),
        }
    }
}

/// Flags that may override the configuration.
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub max_file_size: Option<u64>,
    pub hidden: Option<bool>,
    pub no_ignore: Option<bool>,
    pub no_require_git: Option<bool>,
}

/// Finds the project root: `explicit` (`--root`), else `$CLAUDE_PROJECT_DIR`,
/// else the nearest ancestor of the working directory holding `.repo_search/`
/// or `.git`, else the working directory itself.
pub fn find_root(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(root) = explicit {
        return canonical_dir(root, "--root");
    }
    if let Some(dir) = std::env::var_os(env::CLAUDE_PROJECT_DIR).filter(|d| !d.is_empty()) {
        return canonical_dir(Path::new(&dir), env::CLAUDE_PROJECT_DIR);
    }
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let cwd = canonical_dir(&cwd, "the working directory")?;
    for marker in [crate::store::INDEX_DIR, ".git"] {
        if let Some(found) = cwd.ancestors().find(|a| a.join(marker).exists()) {
            return Ok(found.to_path_buf());
        }
    }
    Ok(cwd)
}

fn canonical_dir(dir: &Path, what: &str) -> Result<PathBuf> {
    match dir.canonicalize() {
        Ok(p) if p.is_dir() => Ok(p),
        Ok(_) => Err(UserError::with_code(
            ErrorCode::InvalidConfig,
            format!("{what} `{}` is not a directory", dir.display()),
        )
        .hint("give the project's top directory")
        .into()),
        Err(_) => Err(UserError::with_code(
            ErrorCode::InvalidConfig,
            format!("{what} `{}` does not exist", dir.display()),
        )
        .hint("check the path; `--root` takes the project's top directory")
        .into()),
    }
}

/// Reads `.repo_search/config.toml` if present.
pub fn read_config(root: &Path) -> Result<(ConfigFile, Option<PathBuf>)> {
    // Never through a planted symlink (`.repo_search` or the file itself).
    crate::store::index_dir_checked(root, crate::store::DirUse::Read)?;
    let path = crate::store::index_dir(root).join("config.toml");
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let cfg: ConfigFile = toml::from_str(&text).map_err(|e| {
                UserError::with_code(
                    ErrorCode::InvalidConfig,
                    format!("invalid config `{}`: {}", path.display(), e.message()),
                )
                .hint("see `.repo_search.example` in the repo-search sources for every key")
            })?;
            Ok((cfg, Some(path)))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok((ConfigFile::default(), None)),
        Err(e) => Err(e).with_context(|| format!("cannot read `{}`", path.display())),
    }
}

impl Settings {
    /// Resolves settings for the project at `root` (already canonical).
    pub fn resolve(root: PathBuf, over: &Overrides) -> Result<Settings> {
        let (cfg, cfg_path) = read_config(&root)?;
        let file_src = cfg_path
            .as_ref()
            .map(|p| format!("file `{}`", p.display()))
            .unwrap_or_default();
        let mut provenance = Vec::new();

        let env_size = match std::env::var(env::MAX_FILE_SIZE) {
            Ok(v) if !v.trim().is_empty() => Some(v.trim().parse::<u64>().map_err(|_| {
                UserError::with_code(
                    ErrorCode::InvalidConfig,
                    format!(
                        "{} must be a number of bytes, not `{v}`",
                        env::MAX_FILE_SIZE
                    ),
                )
                .hint("e.g. REPO_SEARCH_MAX_FILE_SIZE=4194304")
            })?),
            _ => None,
        };
        let (max_file_size, src) = pick(
            over.max_file_size,
            env_size,
            cfg.index.max_file_size,
            DEFAULT_MAX_FILE_SIZE,
            env::MAX_FILE_SIZE,
            &file_src,
        );
        provenance.push(Provenance {
            key: "index.max_file_size",
            value: max_file_size.to_string(),
            source: src,
        });

        let (hidden, src) = pick(over.hidden, None, cfg.index.hidden, false, "", &file_src);
        provenance.push(Provenance {
            key: "index.hidden",
            value: hidden.to_string(),
            source: src,
        });
        let (no_ignore, src) = pick(
            over.no_ignore,
            None,
            cfg.index.no_ignore,
            false,
            "",
            &file_src,
        );
        provenance.push(Provenance {
            key: "index.no_ignore",
            value: no_ignore.to_string(),
            source: src,
        });
        let (no_require_git, src) = pick(
            over.no_require_git,
            None,
            cfg.index.no_require_git,
            false,
            "",
            &file_src,
        );
        provenance.push(Provenance {
            key: "index.no_require_git",
            value: no_require_git.to_string(),
            source: src,
        });
        provenance.push(Provenance {
            key: "index.exclude",
            value: format!("{:?}", cfg.index.exclude),
            source: if cfg.index.exclude.is_empty() {
                "default".into()
            } else {
                file_src.clone()
            },
        });

        let walk = WalkOptions {
            hidden,
            no_ignore,
            require_git: !no_require_git,
            globs: cfg.index.exclude.iter().map(|g| format!("!{g}")).collect(),
            ..WalkOptions::default()
        };
        // The embedding settings are resolved on demand (`resolve_embed`);
        // resolving them here too surfaces a bad `[embed]` section at once
        // and shows them in `config --show`.
        let (_, embed_prov) = resolve_embed_from(&cfg.embed, cfg_path.as_deref(), &root)?;
        provenance.extend(embed_prov);
        Ok(Settings {
            root,
            max_file_size,
            walk,
            provenance,
        })
    }
}

fn pick<T: Clone>(
    cli: Option<T>,
    env: Option<T>,
    file: Option<T>,
    default: T,
    env_name: &str,
    file_src: &str,
) -> (T, String) {
    if let Some(v) = cli {
        (v, "command line".into())
    } else if let Some(v) = env {
        (v, format!("env {env_name}"))
    } else if let Some(v) = file {
        (v, file_src.to_string())
    } else {
        (default, "default".into())
    }
}

#[cfg(test)]
mod embed_tests {
    use super::*;

    #[test]
    fn documented_configs_parse_and_resolve() {
        for text in [
            include_str!("../.repo_search.example"),
            include_str!("../templates/config.toml"),
        ] {
            let cfg: ConfigFile = toml::from_str(text).expect("documented config parses");
            let (s, prov) =
                resolve_embed_from(&cfg.embed, None, Path::new("/p")).expect("resolves");
            assert_eq!(s.batch_size, DEFAULT_EMBED_BATCH);
            // Every key of the section is shown by `config --show`.
            for key in [
                "provider",
                "model_dir",
                "fast",
                "fast_model_dir",
                "base_url",
                "model",
                "api_key_env",
                "batch_size",
            ] {
                assert!(
                    prov.iter().any(|p| p.key == format!("embed.{key}")),
                    "{key}"
                );
            }
        }
    }

    #[test]
    fn provider_defaults_and_errors() {
        let cfg = EmbedConfig {
            provider: Some("ollama".into()),
            model_dir: Some(PathBuf::from("models/x")),
            ..EmbedConfig::default()
        };
        let (s, _) = resolve_embed_from(&cfg, None, Path::new("/p")).expect("resolves");
        assert_eq!(s.provider, EmbedProvider::Ollama);
        assert_eq!(s.base_url, "http://127.0.0.1:11434");
        assert_eq!(s.model, "nomic-embed-text");
        assert_eq!(
            s.model_dir.as_deref(),
            Some(Path::new("/p/models/x")),
            "relative to the root"
        );
        let bad = EmbedConfig {
            provider: Some("magic".into()),
            ..EmbedConfig::default()
        };
        let err = resolve_embed_from(&bad, None, Path::new("/p")).expect_err("unknown provider");
        assert!(crate::error::find_user_error(&err).is_some_and(|u| u.hint.is_some()));
        let zero = EmbedConfig {
            batch_size: Some(0),
            ..EmbedConfig::default()
        };
        assert!(resolve_embed_from(&zero, None, Path::new("/p")).is_err());
    }
}
