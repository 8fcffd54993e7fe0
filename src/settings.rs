//! Owns resolved settings: finds the project root and merges, in order of
//! precedence, command-line flags > `REPO_SEARCH_*` environment variables >
//! `.repo_search/config.toml` > the user's `$REPO_SEARCH_HOME/config.toml`
//! (`[embed]` only) > defaults into one [`Settings`]. Only resolved
//! settings go deeper into the library. `.repo_search.example` documents
//! every key.
//!
//! **Invariant: a repository cannot send code or credentials anywhere.** The
//! project's own config file comes with the repository, so the `[embed]`
//! keys that can send code off the machine, name a credential or read files
//! outside the project ([`needs_trust`]: an HTTP provider, `base_url`,
//! `model`, `api_key_env`, model directories outside the root) are taken
//! from it only when the user trusted exactly this content with `repo-search
//! trust` (`crate::trust`); otherwise they are ignored with one warning
//! ([`ConfigTrust`]), and every other key of the file still applies.

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
    /// Overrides `index.update_before_answer` (`true`/`false`).
    pub const UPDATE_BEFORE_ANSWER: &str = "REPO_SEARCH_UPDATE_BEFORE_ANSWER";
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
    /// `1`/`true`: answers show secret values verbatim (no redaction).
    pub const NO_REDACT: &str = "REPO_SEARCH_NO_REDACT";
    /// `1`/`true`: answered operations are not logged for `stats`
    /// (`scripts/bench-stats.py` measures what logging costs with it).
    pub const NO_STATS: &str = "REPO_SEARCH_NO_STATS";
}

/// The file format of `.repo_search/config.toml`.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Redact secrets in answers (default true). Only the user's own
    /// config (`$REPO_SEARCH_HOME/config.toml`) can turn it off; a
    /// project's file asking for `false` is ignored with a warning.
    pub redact: Option<bool>,
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
    let project = load_project_config(root)?;
    let user = read_user_config(project.path.as_deref())?;
    resolve_embed_from(&project, &user, root)
}

/// The file layers of the `[embed]` settings: the project's config (keys
/// needing trust already removed unless trusted), then the user's.
fn resolve_embed_from(
    project: &ProjectConfig,
    user: &UserConfig,
    root: &Path,
) -> Result<(EmbedSettings, Vec<Provenance>)> {
    let cfg = &project.file.embed;
    let ucfg = &user.embed;
    let file_src = project
        .path
        .as_ref()
        .map(|p| format!("file `{}`", p.display()))
        .unwrap_or_default();
    let user_src = user
        .path
        .as_ref()
        .map(|p| format!("user file `{}`", p.display()))
        .unwrap_or_default();
    // The project file's value, else the user file's, with its source.
    fn layer<T>(p: Option<T>, u: Option<T>, psrc: &str, usrc: &str) -> (Option<T>, String) {
        match (p, u) {
            (Some(v), _) => (Some(v), psrc.to_string()),
            (None, Some(v)) => (Some(v), usrc.to_string()),
            (None, None) => (None, String::new()),
        }
    }
    let mut prov = Vec::new();
    let d = EmbedSettings::defaults();

    let provider_env = env_string(env::EMBED_PROVIDER);
    let (provider_file, provider_src) = layer(
        cfg.provider.clone(),
        ucfg.provider.clone(),
        &file_src,
        &user_src,
    );
    let (provider_s, src) = pick(
        None,
        provider_env,
        provider_file,
        d.provider.name().to_string(),
        env::EMBED_PROVIDER,
        &provider_src,
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
    let (model_dir_file, model_dir_src) = layer(
        cfg.model_dir.clone(),
        ucfg.model_dir.clone(),
        &file_src,
        &user_src,
    );
    let (model_dir, src) = pick(
        None,
        env_string(env::EMBED_MODEL_DIR).map(PathBuf::from),
        model_dir_file,
        PathBuf::new(),
        env::EMBED_MODEL_DIR,
        &model_dir_src,
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
    let (fast_file, fast_src) = layer(cfg.fast, ucfg.fast, &file_src, &user_src);
    let (fast, src) = pick(
        None,
        fast_env,
        fast_file,
        d.fast,
        env::EMBED_FAST,
        &fast_src,
    );
    prov.push(Provenance {
        key: "embed.fast",
        value: fast.to_string(),
        source: src,
    });

    let (fast_model_dir_file, fast_model_dir_src) = layer(
        cfg.fast_model_dir.clone(),
        ucfg.fast_model_dir.clone(),
        &file_src,
        &user_src,
    );
    let (fast_model_dir, src) = pick(
        None,
        env_string(env::EMBED_FAST_MODEL_DIR).map(PathBuf::from),
        fast_model_dir_file,
        PathBuf::new(),
        env::EMBED_FAST_MODEL_DIR,
        &fast_model_dir_src,
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
    let (base_url_file, base_url_src) = layer(
        cfg.base_url.clone(),
        ucfg.base_url.clone(),
        &file_src,
        &user_src,
    );
    let (base_url, src) = pick(
        None,
        env_string(env::EMBED_BASE_URL),
        base_url_file,
        default_url.to_string(),
        env::EMBED_BASE_URL,
        &base_url_src,
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
    let (model_file, model_src) =
        layer(cfg.model.clone(), ucfg.model.clone(), &file_src, &user_src);
    let (model, src) = pick(
        None,
        env_string(env::EMBED_MODEL),
        model_file,
        default_model.to_string(),
        env::EMBED_MODEL,
        &model_src,
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
    let (api_key_env_file, api_key_env_src) = layer(
        cfg.api_key_env.clone(),
        ucfg.api_key_env.clone(),
        &file_src,
        &user_src,
    );
    let (api_key_env, src) = pick(
        None,
        env_string(env::EMBED_API_KEY_ENV),
        api_key_env_file,
        default_key_env.to_string(),
        env::EMBED_API_KEY_ENV,
        &api_key_env_src,
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
    let (batch_size_file, batch_size_src) =
        layer(cfg.batch_size, ucfg.batch_size, &file_src, &user_src);
    let (batch_size, src) = pick(
        None,
        batch_env,
        batch_size_file,
        d.batch_size,
        env::EMBED_BATCH_SIZE,
        &batch_size_src,
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
    let (offline_file, offline_src) = layer(cfg.offline, ucfg.offline, &file_src, &user_src);
    let (offline, src) = pick(
        None,
        offline_env,
        offline_file,
        d.offline,
        env::OFFLINE,
        &offline_src,
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

    for p in prov.iter_mut() {
        if project.trust.ignored.contains(&p.key) {
            p.source
                .push_str(" (the project file's value is ignored: not trusted)");
        }
    }

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
    /// CLI commands bring the index up to date with what changed on disk
    /// before answering (default true; see `service::fresh`).
    pub update_before_answer: Option<bool>,
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
    /// Redact secret values in answers (`crate::redact`).
    pub redact: bool,
    /// A CLI command brings the index up to date with what changed on
    /// disk before its first index-backed answer (config
    /// `index.update_before_answer`; a walk of the tree per command where
    /// no daemon watches it).
    pub update_before_answer: bool,
    pub provenance: Vec<Provenance>,
    /// Whether the project's config may use the keys that need trust.
    pub trust: ConfigTrust,
}

impl Settings {
    /// The defaults for `root`, ignoring every configuration source (what a
    /// server falls back to when the config file is broken).
    pub fn defaults(root: PathBuf) -> Settings {
        Settings {
            root,
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            walk: WalkOptions::default(),
            redact: resolve_redact(None, None, "").0,
            update_before_answer: true,
            provenance: Vec::new(),
            trust: ConfigTrust::default(),
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
    /// `Some(false)`: `--no-redact`.
    pub redact: Option<bool>,
}

/// The user's own `redact` setting and where it came from, read apart
/// from the settings (a broken user file warns here and keeps redaction on).
fn user_redact() -> (Option<bool>, String) {
    match read_user_config(None) {
        Ok(u) => (
            u.redact,
            u.path
                .map(|p| format!("file `{}`", p.display()))
                .unwrap_or_default(),
        ),
        Err(e) => {
            tracing::warn!("ignoring the user config: {e:#}; secrets stay redacted");
            (None, String::new())
        }
    }
}

/// Whether answers redact secrets, and where that came from: the command
/// line > `REPO_SEARCH_NO_REDACT` > the user's config > on. A project's
/// own `redact = false` (`project`, from `project_src`) never turns it off:
/// a cloned repository must not make the tool show its user's secrets.
fn resolve_redact(cli: Option<bool>, project: Option<bool>, project_src: &str) -> (bool, String) {
    if project == Some(false) {
        tracing::warn!(
            "ignoring `redact = false` in {project_src}: a project cannot turn secret redaction off; set it in $REPO_SEARCH_HOME/config.toml, {} or --no-redact",
            env::NO_REDACT
        );
    }
    let env_val = env_string(env::NO_REDACT).and_then(|v| match parse_bool(&v) {
        Some(no) => Some(!no),
        None => {
            tracing::warn!(
                "{} must be true or false, not `{v}`; secrets stay redacted",
                env::NO_REDACT
            );
            None
        }
    });
    if let Some(v) = cli {
        return (v, "command line".into());
    }
    if let Some(v) = env_val {
        return (v, format!("env {}", env::NO_REDACT));
    }
    let (user, src) = user_redact();
    match user {
        Some(v) => (v, src),
        None => (true, "default".into()),
    }
}

/// Finds the project root: `explicit` (`--root`), else `$CLAUDE_PROJECT_DIR`,
/// else the nearest ancestor of the working directory holding `.repo_search/`
/// or `.git`, else the working directory itself. The per-user state
/// directory (`~/.repo_search`, the default `REPO_SEARCH_HOME`) marks no
/// project: else every directory under `~` without `.git` was `~` itself.
pub fn find_root(explicit: Option<&Path>) -> Result<PathBuf> {
    if let Some(root) = explicit {
        return canonical_dir(root, "--root");
    }
    if let Some(dir) = std::env::var_os(env::CLAUDE_PROJECT_DIR).filter(|d| !d.is_empty()) {
        return canonical_dir(Path::new(&dir), env::CLAUDE_PROJECT_DIR);
    }
    let cwd = std::env::current_dir().context("cannot read the working directory")?;
    let cwd = canonical_dir(&cwd, "the working directory")?;
    let state = crate::paths::home_dir().canonicalize().ok();
    let marks = |dir: &Path, marker: &str| {
        let at = dir.join(marker);
        at.exists()
            && !(marker == crate::store::INDEX_DIR
                && state.is_some()
                && at.canonicalize().ok() == state)
    };
    for marker in [crate::store::INDEX_DIR, ".git"] {
        if let Some(found) = cwd.ancestors().find(|a| marks(a, marker)) {
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

/// The project's `.repo_search/config.toml` as read from disk, before any
/// key is dropped for want of trust.
#[derive(Debug, Clone)]
pub struct RawConfig {
    pub path: PathBuf,
    /// sha256 (hex) of the file's bytes: what `repo-search trust` records.
    pub sha256: String,
    pub file: ConfigFile,
    /// The keys it sets that need trust, with their values ([`needs_trust`]).
    pub needs_trust: Vec<(&'static str, String)>,
}

/// Reads and parses the project's config file; `None` when there is none.
pub fn inspect_config(root: &Path) -> Result<Option<RawConfig>> {
    // Never through a planted symlink (`.repo_search` or the file itself).
    crate::store::check_index_paths(root)?;
    crate::store::index_dir_checked(root, crate::store::DirUse::Read)?;
    let path = crate::store::config_path(root);
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        // `.repo_search` being a file is not a config problem: opening the
        // index reports it (with a hint).
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
            ) =>
        {
            return Ok(None);
        }
        Err(e) => return Err(e).with_context(|| format!("cannot read `{}`", path.display())),
    };
    let file: ConfigFile = parse_config_text(&bytes, &path)?;
    let needs_trust = needs_trust(&file.embed, root);
    Ok(Some(RawConfig {
        sha256: crate::trust::sha256_hex(&bytes),
        path,
        file,
        needs_trust,
    }))
}

/// Checks a config file's text as the readers take it: the user's file
/// (`user`) or a project's, the same types and unknown-key refusals, and
/// the ranges `Settings::resolve` enforces (a known provider, a batch of
/// at least 1). For `config set` before it writes.
pub fn check_config_text(user: bool, text: &str, path: &Path) -> Result<()> {
    let embed = if user {
        parse_config_text::<UserConfigFile>(text.as_bytes(), path)?.embed
    } else {
        parse_config_text::<ConfigFile>(text.as_bytes(), path)?.embed
    };
    if let Some(p) = &embed.provider
        && EmbedProvider::parse(p).is_none()
    {
        return Err(UserError::with_code(
            ErrorCode::InvalidConfig,
            format!("unknown embedding provider `{p}` in `{}`", path.display()),
        )
        .hint("use one of: embedded, openai, ollama, none")
        .into());
    }
    if embed.batch_size == Some(0) {
        return Err(UserError::with_code(
            ErrorCode::InvalidConfig,
            "embed.batch_size must be at least 1",
        )
        .hint("remove the key to use the default (16)")
        .into());
    }
    Ok(())
}

fn parse_config_text<T: serde::de::DeserializeOwned>(bytes: &[u8], path: &Path) -> Result<T> {
    let invalid = |why: String| {
        UserError::with_code(
            ErrorCode::InvalidConfig,
            format!("invalid config `{}`: {why}", path.display()),
        )
        .hint("see `.repo_search.example` in the repo-search sources for every key")
    };
    let text = std::str::from_utf8(bytes).map_err(|_| invalid("not UTF-8".into()))?;
    Ok(toml::from_str(text).map_err(|e| invalid(e.message().to_string()))?)
}

/// The `[embed]` keys of a project's config that need the user's trust, with
/// their values: an HTTP provider (`openai`, `ollama`: code leaves the
/// machine), `base_url` (where it goes), `model` (what the remote runs),
/// `api_key_env` (which of the user's variables is sent as a credential),
/// and `model_dir` / `fast_model_dir` when they lead outside the project.
/// `provider = "embedded"` or `"none"`, the fast tier, batch size, offline
/// and every `[index]` key stay on the machine and inside the project.
pub fn needs_trust(cfg: &EmbedConfig, root: &Path) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(p) = &cfg.provider
        && matches!(
            EmbedProvider::parse(p),
            Some(EmbedProvider::OpenAi | EmbedProvider::Ollama)
        )
    {
        out.push(("embed.provider", p.clone()));
    }
    for (key, value) in [
        ("embed.base_url", &cfg.base_url),
        ("embed.model", &cfg.model),
        ("embed.api_key_env", &cfg.api_key_env),
    ] {
        if let Some(v) = value {
            out.push((key, v.clone()));
        }
    }
    for (key, dir) in [
        ("embed.model_dir", &cfg.model_dir),
        ("embed.fast_model_dir", &cfg.fast_model_dir),
    ] {
        if let Some(d) = dir
            && !stays_inside(root, d)
        {
            out.push((key, d.display().to_string()));
        }
    }
    out
}

/// Whether a configured directory (relative to `root`, or absolute) is
/// inside the project, symlinks resolved where it exists.
fn stays_inside(root: &Path, dir: &Path) -> bool {
    let joined = root.join(dir);
    match joined.canonicalize() {
        Ok(c) => c.starts_with(root),
        Err(_) => {
            !dir.is_absolute()
                && dir.components().all(|c| {
                    matches!(
                        c,
                        std::path::Component::Normal(_) | std::path::Component::CurDir
                    )
                })
        }
    }
}

/// Whether the project's config may use the keys that need trust.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TrustState {
    /// The project has no config file.
    #[default]
    NoConfig,
    /// Its config sets no key that needs trust.
    NotNeeded,
    /// The user trusted exactly this content (`repo-search trust`).
    Trusted,
    /// Not trusted: the keys that need trust are ignored.
    Untrusted,
    /// Trusted once, edited since: the trust no longer holds.
    Changed,
}

impl TrustState {
    pub fn name(self) -> &'static str {
        match self {
            TrustState::NoConfig => "no_config",
            TrustState::NotNeeded => "not_needed",
            TrustState::Trusted => "trusted",
            TrustState::Untrusted => "untrusted",
            TrustState::Changed => "changed",
        }
    }
}

/// The trust of a project's config, for `status`, `index_status` and
/// `config --show`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ConfigTrust {
    pub state: TrustState,
    /// The keys that need trust which the file sets.
    pub keys: Vec<&'static str>,
    /// Of those, the ones ignored (all of them unless trusted).
    pub ignored: Vec<&'static str>,
    /// The one warning about the ignored keys, naming the command that
    /// trusts them.
    pub warning: Option<String>,
}

/// The project's config as the settings use it.
#[derive(Debug, Clone, Default)]
struct ProjectConfig {
    /// With the keys that need trust removed unless trusted.
    file: ConfigFile,
    path: Option<PathBuf>,
    trust: ConfigTrust,
}

/// Reads the project's config and drops the keys that need trust unless
/// the user trusted this content; warns once per process about them.
fn load_project_config(root: &Path) -> Result<ProjectConfig> {
    let Some(raw) = inspect_config(root)? else {
        return Ok(ProjectConfig::default());
    };
    let keys: Vec<&'static str> = raw.needs_trust.iter().map(|(k, _)| *k).collect();
    let verdict = crate::trust::TrustStore::from_env().verdict(root, &raw.sha256);
    let state = match verdict {
        crate::trust::Verdict::Trusted => TrustState::Trusted,
        _ if keys.is_empty() => TrustState::NotNeeded,
        crate::trust::Verdict::Changed => TrustState::Changed,
        crate::trust::Verdict::Unknown => TrustState::Untrusted,
    };
    let mut file = raw.file;
    let ignored = if matches!(state, TrustState::Untrusted | TrustState::Changed) {
        for key in &keys {
            let e = &mut file.embed;
            match *key {
                "embed.provider" => e.provider = None,
                "embed.base_url" => e.base_url = None,
                "embed.model" => e.model = None,
                "embed.api_key_env" => e.api_key_env = None,
                "embed.model_dir" => e.model_dir = None,
                "embed.fast_model_dir" => e.fast_model_dir = None,
                _ => {}
            }
        }
        keys.clone()
    } else {
        Vec::new()
    };
    let warning = (!ignored.is_empty()).then(|| {
        let why = if state == TrustState::Changed {
            "it changed since you trusted it"
        } else {
            "it is not trusted"
        };
        format!(
            "ignoring {} in `{}`: {why}, and a project's own config may not send code or \
             credentials off this machine or read files outside the project. Review the file, \
             then run `repo-search trust --root {}` to use them (editing the file revokes the trust)",
            ignored.join(", "),
            raw.path.display(),
            shell_quote(&root.display().to_string()),
        )
    });
    if let Some(w) = &warning {
        warn_once(w);
    }
    Ok(ProjectConfig {
        file,
        path: Some(raw.path),
        trust: ConfigTrust {
            state,
            keys,
            ignored,
            warning,
        },
    })
}

/// Logs `warning` the first time this process meets it (settings are
/// resolved several times per command).
fn warn_once(warning: &str) {
    static SEEN: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if !seen.iter().any(|s| s == warning) {
        seen.push(warning.to_string());
        tracing::warn!("{warning}");
    }
}

fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+=:,@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// The user's own config: `$REPO_SEARCH_HOME/config.toml`, an `[embed]`
/// section only (every key, those needing trust included: it is the user's).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct UserConfigFile {
    #[serde(default)]
    embed: EmbedConfig,
    /// `false` shows secrets in answers (see `resolve_redact`): only the
    /// user's own file may say so.
    #[serde(default)]
    redact: Option<bool>,
}

#[derive(Debug, Clone, Default)]
struct UserConfig {
    embed: EmbedConfig,
    redact: Option<bool>,
    path: Option<PathBuf>,
}

/// Where the user's own config lives.
pub fn user_config_path() -> PathBuf {
    crate::paths::home_dir().join(crate::store::CONFIG_FILE)
}

/// Reads the user's config, unless it is the project's own file
/// (`project_file`: a project at the home directory).
fn read_user_config(project_file: Option<&Path>) -> Result<UserConfig> {
    let path = user_config_path();
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(UserConfig::default()),
        Err(e) => return Err(e).with_context(|| format!("cannot read `{}`", path.display())),
    };
    if let Some(pf) = project_file
        && pf.canonicalize().ok() == path.canonicalize().ok()
    {
        return Ok(UserConfig::default());
    }
    let parsed: UserConfigFile =
        parse_config_text(&bytes, &path).map_err(|e| match crate::error::find_user_error(&e) {
            Some(u) => anyhow::Error::new(u.clone().hint(
                "the user config holds `redact` and an `[embed]` section only (see `.repo_search.example`)",
            )),
            None => e,
        })?;
    let mut embed = parsed.embed;
    // Relative directories in the user's file are relative to its directory.
    let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
    for dir in [&mut embed.model_dir, &mut embed.fast_model_dir] {
        if let Some(d) = dir.as_mut()
            && d.is_relative()
        {
            *d = base.join(&*d);
        }
    }
    Ok(UserConfig {
        embed,
        redact: parsed.redact,
        path: Some(path),
    })
}

impl Settings {
    /// Resolves settings for the project at `root` (already canonical).
    pub fn resolve(root: PathBuf, over: &Overrides) -> Result<Settings> {
        let project = load_project_config(&root)?;
        let user = read_user_config(project.path.as_deref())?;
        let cfg = &project.file;
        let file_src = project
            .path
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
        let update_env = match env_string(env::UPDATE_BEFORE_ANSWER) {
            Some(v) => Some(parse_bool(&v).ok_or_else(|| {
                UserError::with_code(
                    ErrorCode::InvalidConfig,
                    format!(
                        "{} must be true or false, not `{v}`",
                        env::UPDATE_BEFORE_ANSWER
                    ),
                )
                .hint("e.g. REPO_SEARCH_UPDATE_BEFORE_ANSWER=false")
            })?),
            None => None,
        };
        let (update_before_answer, src) = pick(
            None,
            update_env,
            cfg.index.update_before_answer,
            true,
            env::UPDATE_BEFORE_ANSWER,
            &file_src,
        );
        provenance.push(Provenance {
            key: "index.update_before_answer",
            value: update_before_answer.to_string(),
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
        let (_, embed_prov) = resolve_embed_from(&project, &user, &root)?;
        provenance.extend(embed_prov);
        let (redact, src) = resolve_redact(over.redact, cfg.redact, &file_src);
        provenance.push(Provenance {
            key: "redact",
            value: redact.to_string(),
            source: src,
        });
        Ok(Settings {
            root,
            max_file_size,
            walk,
            redact,
            update_before_answer,
            provenance,
            trust: project.trust,
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

    fn project(embed: &EmbedConfig) -> ProjectConfig {
        ProjectConfig {
            file: ConfigFile {
                embed: embed.clone(),
                ..ConfigFile::default()
            },
            ..ProjectConfig::default()
        }
    }

    fn resolve(embed: &EmbedConfig) -> Result<(EmbedSettings, Vec<Provenance>)> {
        resolve_embed_from(&project(embed), &UserConfig::default(), Path::new("/p"))
    }

    #[test]
    fn keys_that_need_trust() {
        let root = tempfile::tempdir().expect("tempdir");
        let root = root.path().canonicalize().expect("canonical");
        std::fs::create_dir_all(root.join("models/x")).expect("mkdir");
        let keys = |cfg: &EmbedConfig| -> Vec<&'static str> {
            needs_trust(cfg, &root)
                .into_iter()
                .map(|(k, _)| k)
                .collect()
        };
        // What `repo-search init` writes needs no trust.
        let init: ConfigFile =
            toml::from_str(include_str!("../templates/config.toml")).expect("template");
        assert!(keys(&init.embed).is_empty());
        let local = EmbedConfig {
            provider: Some("none".into()),
            model_dir: Some(PathBuf::from("models/x")),
            fast_model_dir: Some(PathBuf::from("not/there/yet")),
            batch_size: Some(4),
            ..EmbedConfig::default()
        };
        assert!(keys(&local).is_empty(), "{:?}", keys(&local));
        let remote = EmbedConfig {
            provider: Some("OpenAI".into()),
            base_url: Some("http://evil.example".into()),
            model: Some("m".into()),
            api_key_env: Some("AWS_SECRET_ACCESS_KEY".into()),
            model_dir: Some(PathBuf::from("../outside")),
            fast_model_dir: Some(PathBuf::from("/etc")),
            ..EmbedConfig::default()
        };
        assert_eq!(
            keys(&remote),
            [
                "embed.provider",
                "embed.base_url",
                "embed.model",
                "embed.api_key_env",
                "embed.model_dir",
                "embed.fast_model_dir"
            ]
        );
        // A symlink inside the project leading out needs trust too.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/", root.join("models/out")).expect("symlink");
            let linked = EmbedConfig {
                model_dir: Some(PathBuf::from("models/out/etc")),
                ..EmbedConfig::default()
            };
            assert_eq!(keys(&linked), ["embed.model_dir"]);
        }
    }

    #[test]
    fn documented_configs_parse_and_resolve() {
        for text in [
            include_str!("../.repo_search.example"),
            include_str!("../templates/config.toml"),
        ] {
            let cfg: ConfigFile = toml::from_str(text).expect("documented config parses");
            let (s, prov) = resolve(&cfg.embed).expect("resolves");
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
        let (s, _) = resolve(&cfg).expect("resolves");
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
        let err = resolve(&bad).expect_err("unknown provider");
        assert!(crate::error::find_user_error(&err).is_some_and(|u| u.hint.is_some()));
        let zero = EmbedConfig {
            batch_size: Some(0),
            ..EmbedConfig::default()
        };
        assert!(resolve(&zero).is_err());
    }
}
