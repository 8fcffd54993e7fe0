//! The embedding side of the command line: `model fetch|status`, the
//! models `index` fetches when they are missing (unless offline), the
//! embedding phase after `index`, `search --mode semantic` and `similar`.

use anyhow::Result;
use serde::Serialize;

use super::Found;
use super::args::{ModelArgs, ModelCommand, ModelFetchArgs, ModelStatusArgs};
use super::project::{Unit, bar, waiting_note};
use super::render;
use crate::embed::{self, Tier, fetch};
use crate::error::ErrorCode;
use crate::index::{EmbedProgress, EmbedSummary, IndexSummary};
use crate::service::Service;
use crate::settings::EmbedSettings;

/// `index --embed-tier auto` computes full-tier vectors in the foreground
/// only for at most this many chunks: under two minutes at the 76 chunks/s
/// that `bench_embed` measures on two idle cores (the first
/// [`crate::embed::FULL_TIER_MAX_TOKENS`] tokens of each chunk), with a
/// progress bar and ETA, so a mid-sized project gets the better vectors
/// from one command. Larger ones are left to the daemon (Django's 46k
/// chunks are about ten minutes).
const FOREGROUND_FULL_MAX: u64 = 8000;

fn tiers_of(name: &str) -> Vec<Tier> {
    match name {
        "fast" => vec![Tier::Fast],
        "full" => vec![Tier::Full],
        _ => vec![Tier::Fast, Tier::Full],
    }
}

/// `index --json` output: the index summary plus the embedding phase.
#[derive(Serialize)]
pub(crate) struct IndexOutput<'a> {
    #[serde(flatten)]
    pub summary: &'a IndexSummary,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub embed: Vec<EmbedSummary>,
}

/// Runs the embedding phase after an index run, with a progress bar.
/// Tiers that cannot run (no model yet) are reported on stderr as notes;
/// they never fail the index command.
pub(crate) fn run_embed_phase(svc: &Service, tier: &str, quiet: bool) -> Result<Vec<EmbedSummary>> {
    let pb = bar(
        quiet,
        "{spinner} {msg} [{bar:30}] {pos}/{len} chunks ({rate}, eta {left})",
        Unit::Chunks,
    );
    // Each tier's run starts the bar afresh (its rate and time left are
    // its own): the finished fast bar had been drawn once more relabelled
    // `embedding (full)`, `1732/1732 chunks (12,571/s)`.
    let running = std::cell::Cell::new(None);
    let update = |p: &EmbedProgress| {
        if running.replace(Some(p.tier)) != Some(p.tier) {
            pb.reset();
        }
        pb.set_length(p.total);
        pb.set_position(p.done);
        pb.set_message(format!("embedding ({})", p.tier.name()));
    };
    let tiers = tiers_of(tier);
    let plan = crate::index::EmbedPlan {
        tiers: &tiers,
        // `auto`: the full tier runs here only when it is quick.
        defer_full_over: (tier == "auto").then_some(FOREGROUND_FULL_MAX),
        top_up_full_only: false,
        models: None,
        should_stop: &|| false,
    };
    let result = svc.embed(&plan, &update, &|pid| {
        pb.suspend(|| eprintln!("{}", waiting_note(pid)))
    });
    pb.finish_and_clear();
    let summaries = result?;
    let missing: Vec<&EmbedSummary> = summaries.iter().filter(|e| e.skipped.is_some()).collect();
    let none_downloaded = !missing.is_empty()
        && missing.len() == summaries.len()
        && missing
            .iter()
            .all(|e| e.skip_code == Some(ErrorCode::ModelMissing));
    if !quiet && none_downloaded {
        eprintln!("note: semantic search is off: no embedding model is downloaded yet");
        eprintln!(
            "hint: run `repo-search model fetch` once (models are cached per user), then `repo-search index`"
        );
    } else if !quiet {
        for e in &missing {
            let reason = e.skipped.as_deref().unwrap_or("");
            let verb = if e.deferred { "" } else { "skipped: " };
            eprintln!("note: {} embeddings {verb}{reason}", e.tier.name());
            if let Some(h) = &e.hint {
                eprintln!("hint: {h}");
            }
        }
    }
    Ok(summaries)
}

pub(crate) fn cmd_model(a: ModelArgs) -> Result<Found> {
    match a.command {
        ModelCommand::Fetch(f) => cmd_fetch(f),
        ModelCommand::Status(st) => cmd_model_status(st),
    }
}

/// The embedding settings, and the project's service when there is one.
/// Models are per user, so `model` commands work outside a project too:
/// without one, only the environment and defaults apply.
fn embed_settings(root: Option<&std::path::Path>) -> Result<(EmbedSettings, Option<Service>)> {
    let opened = Service::open(
        root,
        &crate::settings::Overrides::default(),
        crate::service::Policy::AsIs,
        crate::service::OnBadConfig::Fail,
    );
    match opened {
        Ok(svc) => Ok((svc.embed_settings()?, Some(svc))),
        Err(_) if root.is_none() => Ok((EmbedSettings::defaults(), None)),
        Err(e) => Err(e),
    }
}

/// A download's progress bar on stderr (bytes, rate) and its steps as
/// lines above it (which model, from where, how large).
fn fetch_bar(quiet: bool) -> (indicatif::ProgressBar, impl Fn(fetch::FetchEvent)) {
    let pb = bar(
        quiet,
        "{spinner} {msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec})",
        Unit::Bytes,
    );
    let shown = pb.clone();
    let report = move |e: fetch::FetchEvent| match e {
        fetch::FetchEvent::Step(msg) => {
            shown.set_position(0);
            shown.set_length(0);
            if quiet {
                tracing::info!("{msg}");
            } else {
                shown.suspend(|| eprintln!("{msg}"));
            }
            shown.set_message("downloading");
        }
        fetch::FetchEvent::Bytes { done, total } => {
            shown.set_length(total);
            shown.set_position(done);
        }
    };
    (pb, report)
}

/// Before `index`'s embedding phase: downloads the in-process models its
/// tiers need and the cache lacks (once per user), with a progress bar,
/// unless `offline` (the flag, `REPO_SEARCH_OFFLINE` or `embed.offline`).
/// A failed download is a note, never a failed index: symbols, BM25 and
/// keyword search work without models.
pub(crate) fn fetch_missing_models(
    svc: &Service,
    tier: &str,
    offline_flag: bool,
    quiet: bool,
) -> Result<()> {
    let es = svc.embed_settings()?;
    let missing: Vec<Tier> = tiers_of(tier)
        .into_iter()
        .filter(|t| {
            embed::tier_spec(&es, *t).is_some_and(|spec| {
                let configured = match t {
                    Tier::Full => es.model_dir.is_some(),
                    Tier::Fast => es.fast_model_dir.is_some(),
                };
                // A configured directory is the user's to fill; HTTP
                // providers need nothing on disk.
                spec.dir.is_some() && !configured && !embed::is_ready(&spec)
            })
        })
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    if offline_flag || es.offline {
        let why = if offline_flag {
            "--offline"
        } else {
            "offline (REPO_SEARCH_OFFLINE or embed.offline)"
        };
        tracing::info!("not downloading embedding models: {why}");
        if !quiet {
            eprintln!("note: {why}: not downloading the embedding models");
        }
        return Ok(());
    }
    let (pb, report) = fetch_bar(quiet);
    for t in missing {
        if !quiet {
            pb.suspend(|| {
                eprintln!(
                    "the {} embedding model is not downloaded yet: fetching it once for this user into `{}` (`--offline` skips this)",
                    t.name(),
                    es.cache_dir.display()
                )
            });
        }
        match fetch::fetch(&es, t, &report) {
            Ok(f) => tracing::info!(
                "fetched {} from {} ({} bytes)",
                f.model_id,
                f.source,
                f.bytes
            ),
            Err(e) => {
                let hint = crate::error::find_user_error(&e)
                    .and_then(|u| u.hint.clone())
                    .unwrap_or_else(|| "run `repo-search model fetch` to retry".into());
                if quiet {
                    tracing::warn!("could not download the {} model: {e:#}", t.name());
                } else {
                    pb.suspend(|| {
                        eprintln!(
                            "warning: could not download the {} embedding model: {e:#}",
                            t.name()
                        );
                        eprintln!(
                            "hint: {hint}; `--offline` (or REPO_SEARCH_OFFLINE=1) stops trying"
                        );
                    });
                }
            }
        }
    }
    pb.finish_and_clear();
    Ok(())
}

fn cmd_fetch(a: ModelFetchArgs) -> Result<Found> {
    let (es, _) = embed_settings(a.common.root.as_deref())?;
    let (pb, report) = fetch_bar(a.quiet || a.common.json);
    let mut done = Vec::new();
    for tier in tiers_of(&a.tier) {
        if embed::tier_spec(&es, tier).is_none() {
            if !a.quiet {
                eprintln!(
                    "note: the {} tier is switched off in the settings; nothing to fetch",
                    tier.name()
                );
            }
            continue;
        }
        match fetch::fetch(&es, tier, &report) {
            Ok(f) => done.push(f),
            Err(e) => {
                pb.finish_and_clear();
                return Err(e);
            }
        }
    }
    pb.finish_and_clear();
    if a.common.json {
        render::json(&serde_json::json!({"fetched": done}))?;
    } else {
        render::fetched(&done)?;
    }
    Ok(Found::Yes)
}

/// One model's coverage in this project's index.
#[derive(Debug, Serialize)]
struct Coverage {
    model: String,
    embedded: u64,
    total: u64,
}

fn cmd_model_status(a: ModelStatusArgs) -> Result<Found> {
    let (es, svc) = embed_settings(a.common.root.as_deref())?;
    let models = fetch::status(&es);
    let mut coverage = Vec::new();
    if let Some(svc) = &svc
        && let Ok(answer) = svc.status(crate::status::StatusDepth::default())
        && answer.status.exists
    {
        for e in answer.status.embeddings {
            if models.iter().any(|m| m.model_id == e.model) {
                coverage.push(Coverage {
                    model: e.model,
                    embedded: e.embedded,
                    total: e.total,
                });
            }
        }
    }
    if a.common.json {
        render::json(&serde_json::json!({
            "cache_dir": es.cache_dir,
            "models": models,
            "index": coverage,
        }))?;
    } else {
        let cov: Vec<(String, u64, u64)> = coverage
            .iter()
            .map(|c| (c.model.clone(), c.embedded, c.total))
            .collect();
        render::model_status(&es.cache_dir, &models, &cov)?;
    }
    Ok(if models.iter().any(|m| m.ready) {
        Found::Yes
    } else {
        Found::No
    })
}
