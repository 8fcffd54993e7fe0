//! `index_status`: what the index holds, how fresh it is, what runs now;
//! `stats`: how fast each operation has been; `config`: the settings;
//! `index`: a job queued.

use anyhow::Result;

use crate::error::UserError;
use crate::mcp::catalogue::{ConfigArgs, IndexArgs, IndexStatusArgs, StatsArgs};
use crate::mcp::out::{
    Answer, CacheOut, ConfigOut, DaemonOut, EmbeddingOut, EmbeddingRunOut, JobOut, LINE_CHARS,
    OpStatsOut, ProgressOut, ServerOut, SettingOut, SizesOut, SkipOut, StatsOut, StatusOut,
    TableSizeOut, answer,
};
use crate::mcp::render;
use crate::search::bound_line;
use crate::service::{Service, StatsRequest, StatusAnswer, phase_name};

/// `index_status`.
pub fn index_status(svc: &Service, args: IndexStatusArgs) -> Result<Answer> {
    // Counting stale files costs a walk; while indexing the number means little
    // (the service skips it then).
    let StatusAnswer {
        status: st,
        freshness: fresh,
        run: own,
        config_error,
    } = svc.status(crate::status::StatusDepth {
        stale: true,
        sizes: args.sizes,
    })?;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let progress = if own.running {
        Some(ProgressOut {
            phase: phase_name(own.progress.phase).into(),
            done: own.progress.done,
            total: own.progress.total,
        })
    } else {
        st.indexing.as_ref().map(|ix| ProgressOut {
            phase: "indexing".into(),
            done: ix.done,
            total: ix.total,
        })
    };
    let out = StatusOut {
        root: st.root.clone(),
        exists: st.exists,
        files: st.files,
        symbols: st.symbols,
        refs: st.refs,
        chunks: st.chunks,
        skipped: st.skipped,
        skipped_by_reason: st
            .skipped_by_reason
            .iter()
            .take(20)
            .map(|s| SkipOut {
                reason: s.reason.clone(),
                count: s.count,
                examples: s
                    .examples
                    .iter()
                    .map(|e| bound_line(e, LINE_CHARS))
                    .collect(),
            })
            .collect(),
        last_indexed: st.last_indexed,
        last_indexed_ago_s: st.last_indexed.map(|t| (now - t).max(0)),
        generation: st.generation,
        indexing: fresh.indexing,
        progress,
        writer_pid: fresh.other_writer.filter(|&p| p != 0),
        stale_files: st.stale_files,
        stale_examples: st.stale_examples.iter().take(10).cloned().collect(),
        index_bytes: st.index_bytes,
        fts_deleted: st.fts_deleted,
        fts_merge_due: st.fts_merge_due,
        embeddings: embeddings_out(&st.embeddings),
        embedding: st.embedding.as_ref().map(|r| EmbeddingRunOut {
            model: r.model.clone(),
            done: r.done,
            total: r.total,
            rate: (r.rate * 10.0).round() / 10.0,
            eta_s: r.eta_s.map(|e| e.round() as u64),
        }),
        last_error: own.last_error.clone(),
        config_error,
        config_trust: st.config_trust.state.name().to_string(),
        config_warning: st.config_trust.warning.clone(),
        sizes: st.sizes.as_ref().map(sizes_out),
        server: server_out(svc.runtime()),
        jobs: svc.index_jobs().into_iter().map(job_out).collect(),
    };
    answer(&out, render::status(&out))
}

/// `stats`.
pub fn stats(svc: &Service, args: StatsArgs) -> Result<Answer> {
    let a = svc.stats(&StatsRequest { since: args.since })?;
    let now_ms = crate::stats::now_ms();
    let ago = |ms: i64| (now_ms - ms).max(0) / 1000;
    let out = StatsOut {
        since: a.since,
        records: a.records,
        first_ago_s: a.first_at_ms.map(ago),
        last_ago_s: a.last_at_ms.map(ago),
        ops: a
            .ops
            .into_iter()
            .map(|o| OpStatsOut {
                op: o.op,
                count: o.count,
                errors: o.errors,
                p50_ms: o.p50_ms,
                p95_ms: o.p95_ms,
                p99_ms: o.p99_ms,
                max_ms: o.max_ms,
                cache_hits: o.cache_hits,
                cache_lookups: o.cache_lookups,
                cli: o.by.cli,
                mcp: o.by.mcp,
                daemon: o.by.daemon,
            })
            .collect(),
        embeddings: embeddings_out(&a.vectors),
        sizes: a.sizes.as_ref().map(sizes_out),
        cache: a.cache.map(|c| CacheOut {
            entries: c.entries,
            bytes: c.bytes,
            max_entries: c.max_entries,
            max_bytes: c.max_bytes,
            hits: c.hits,
            misses: c.misses,
        }),
    };
    answer(&out, render::stats(&out))
}

/// `config`: the resolved settings, read-only.
pub fn config(svc: &Service, args: ConfigArgs) -> Result<Answer> {
    let s = svc.settings();
    let all = &s.provenance;
    let settings: Vec<SettingOut> = all
        .iter()
        .filter(|p| args.key.as_deref().is_none_or(|k| p.key == k))
        .map(|p| SettingOut {
            key: p.key.to_string(),
            value: p.value.clone(),
            source: p.source.clone(),
        })
        .collect();
    if let Some(k) = &args.key
        && settings.is_empty()
    {
        let keys: Vec<&str> = all.iter().map(|p| p.key).collect();
        return Err(UserError::new(format!("unknown setting `{k}`"))
            .hint(format!("the settings are: {}", keys.join(", ")))
            .into());
    }
    let out = ConfigOut {
        root: s.root.display().to_string(),
        settings,
        config_trust: s.trust.state.name().to_string(),
        config_warning: s.trust.warning.clone(),
        config_error: svc.config_error().map(str::to_string),
    };
    answer(&out, render::config(&out))
}

/// `index`: queues a job and answers at once.
pub fn index(svc: &Service, args: IndexArgs) -> Result<Answer> {
    let job = job_out(svc.submit_index(args.mode == "full", &args.paths)?);
    let text = render::job(&job);
    answer(&job, text)
}

fn job_out(j: crate::service::JobInfo) -> JobOut {
    let state = match j.state {
        crate::service::JobState::Queued => "queued",
        crate::service::JobState::Running => "running",
        crate::service::JobState::Done => "done",
        crate::service::JobState::Failed => "failed",
    };
    JobOut {
        id: j.id,
        mode: j.mode,
        paths: j.paths,
        state: state.into(),
        done: j.done,
        total: j.total,
        eta_s: j.eta_s,
        seconds: j.seconds,
        changed: j.changed,
        removed: j.removed,
        error: j.error,
    }
}

fn server_out(r: crate::service::RuntimeInfo) -> ServerOut {
    ServerOut {
        version: r.version,
        pid: r.pid,
        uptime_s: r.uptime_s,
        rss_bytes: r.rss_bytes,
        searches_last_hour: r.searches_last_hour,
        search_mean_ms: r.search_mean_ms,
        search_p50_ms: r.search_p50_ms,
        daemon: r.daemon.map(|d| DaemonOut {
            pid: d.pid,
            version: d.version,
            uptime_s: d.uptime_s,
            watching: d.watching,
            state: d.state,
            events_last_minute: d.events_last_minute,
            queue: d.queue,
        }),
    }
}

fn embeddings_out(e: &[crate::status::EmbeddingCoverage]) -> Vec<EmbeddingOut> {
    e.iter()
        .map(|e| EmbeddingOut {
            tier: e.tier.name().to_string(),
            model: e.model.clone(),
            ready: e.ready,
            embedded: e.embedded,
            total: e.total,
        })
        .collect()
}

fn sizes_out(z: &crate::store::Sizes) -> SizesOut {
    SizesOut {
        db_bytes: z.db_bytes,
        source_bytes: z.source_bytes,
        tables: z
            .tables
            .iter()
            .map(|t| TableSizeOut {
                name: t.name.clone(),
                bytes: t.bytes,
                index_bytes: t.index_bytes,
            })
            .collect(),
    }
}
