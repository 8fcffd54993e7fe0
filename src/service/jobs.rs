//! Owns index jobs a client asks for (the MCP `index` tool): each gets an
//! id at once and runs in the background, one at a time per service, the
//! others queued; every job's state (queued, running, done, failed),
//! progress, ETA and error stay listed for `index_status`. A job is an
//! ordinary index run (`fresh::run_index`): it waits for another writer
//! rather than failing, and searches keep answering meanwhile.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;

use anyhow::Result;
use serde::Serialize;

use super::Service;
use super::fresh::{IndexEvent, IndexJob, Vectors};
use crate::index::{IndexOptions, Phase};

/// Finished jobs kept listed.
const KEEP_FINISHED: usize = 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    Queued,
    Running,
    Done,
    Failed,
}

/// One job as `index_status` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct JobInfo {
    pub id: u64,
    /// `incremental` or `full`.
    pub mode: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub paths: Vec<String>,
    pub state: JobState,
    /// Files done and to do in the indexing phase.
    pub done: u64,
    pub total: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eta_s: Option<u64>,
    /// Seconds it ran (so far, or in all).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds: Option<f64>,
    /// Files (re)indexed and removed, once done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip)]
    started: Option<Instant>,
}

#[derive(Default)]
pub(super) struct Jobs {
    state: Mutex<JobsState>,
}

#[derive(Default)]
struct JobsState {
    next_id: u64,
    jobs: VecDeque<JobInfo>,
    worker: bool,
}

impl Jobs {
    fn lock(&self) -> MutexGuard<'_, JobsState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn update(&self, id: u64, f: impl FnOnce(&mut JobInfo)) {
        if let Some(j) = self.lock().jobs.iter_mut().find(|j| j.id == id) {
            f(j);
        }
    }
}

impl Service {
    /// Queues an index job (`full`, or incremental under `paths`: root-
    /// relative, checked like `index PATH…`) and returns it at once.
    pub fn submit_index(&self, full: bool, paths: &[String]) -> Result<JobInfo> {
        let only = self.index_paths(full, paths)?;
        let mut st = self.jobs.lock();
        st.next_id += 1;
        let job = JobInfo {
            id: st.next_id,
            mode: if full { "full" } else { "incremental" }.into(),
            paths: only,
            state: JobState::Queued,
            done: 0,
            total: 0,
            eta_s: None,
            seconds: None,
            changed: None,
            removed: None,
            error: None,
            started: None,
        };
        st.jobs.push_back(job.clone());
        let finished = st
            .jobs
            .iter()
            .filter(|j| matches!(j.state, JobState::Done | JobState::Failed))
            .count();
        if finished > KEEP_FINISHED
            && let Some(i) = st
                .jobs
                .iter()
                .position(|j| matches!(j.state, JobState::Done | JobState::Failed))
        {
            st.jobs.remove(i);
        }
        if !st.worker {
            st.worker = true;
            drop(st);
            self.start_job_worker();
        }
        Ok(job)
    }

    /// Whether one of this service's index jobs is running (it may not have
    /// taken the writer lock yet).
    pub(super) fn job_running(&self) -> bool {
        self.jobs
            .lock()
            .jobs
            .iter()
            .any(|j| j.state == JobState::Running)
    }

    /// Every job this service knows, oldest first, with live progress.
    pub fn index_jobs(&self) -> Vec<JobInfo> {
        let st = self.jobs.lock();
        st.jobs
            .iter()
            .map(|j| {
                let mut j = j.clone();
                if j.state == JobState::Running
                    && let Some(t) = j.started
                {
                    let secs = t.elapsed().as_secs_f64();
                    j.seconds = Some((secs * 10.0).round() / 10.0);
                    if j.done > 0 && j.total > j.done {
                        let rate = j.done as f64 / secs.max(0.001);
                        j.eta_s = Some(((j.total - j.done) as f64 / rate).ceil() as u64);
                    }
                }
                j
            })
            .collect()
    }

    /// Root-relative paths for an index run, checked (see `index PATH…`).
    pub fn index_paths(&self, full: bool, paths: &[String]) -> Result<Vec<String>> {
        if paths.is_empty() {
            return Ok(Vec::new());
        }
        if full {
            return Err(crate::error::UserError::new(
                "a full rebuild covers the whole project; it takes no paths",
            )
            .hint("drop the paths, or ask for an incremental run of just those paths")
            .into());
        }
        if !self.index_exists() {
            return Err(crate::error::UserError::with_code(
                crate::error::ErrorCode::NoIndex,
                "there is no index to bring up to date under these paths",
            )
            .hint("run `repo-search index` without paths first")
            .agent("start an index job without paths first")
            .into());
        }
        let root = self.root();
        paths
            .iter()
            .map(|p| {
                let lexical = crate::paths::normalize_lexically(&root.join(p.trim()));
                if lexical.exists() || !lexical.starts_with(root) {
                    return crate::paths::resolve_in_root(root, p).map(|r| r.rel);
                }
                // Gone from disk: fine when the index holds it (the run
                // drops it), a typo when it never did.
                let rel = crate::paths::rel_string(root, &lexical);
                let known = self
                    .with_store(|s| {
                        s.has_path_at_or_under(&rel)
                            .map_err(|e| crate::store::explain(e, &crate::store::db_path(root)))
                    })?
                    .unwrap_or(false);
                if known {
                    Ok(rel)
                } else {
                    Err(crate::error::UserError::with_code(
                        crate::error::ErrorCode::NotFound,
                        format!("no such file or directory: {p} (not on disk, and the index holds nothing there)"),
                    )
                    .hint("check the path; paths are relative to the project root")
                    .into())
                }
            })
            .collect()
    }

    fn start_job_worker(&self) {
        let jobs = Arc::clone(&self.jobs);
        let runner = self.runner();
        let spawned = std::thread::Builder::new()
            .name("repo-search-jobs".into())
            .spawn(move || {
                loop {
                    let next = {
                        let mut st = jobs.lock();
                        match st.jobs.iter_mut().find(|j| j.state == JobState::Queued) {
                            Some(j) => {
                                j.state = JobState::Running;
                                j.started = Some(Instant::now());
                                (j.id, j.mode == "full", j.paths.clone())
                            }
                            None => {
                                st.worker = false;
                                return;
                            }
                        }
                    };
                    let (id, full, only) = next;
                    let job = IndexJob {
                        opts: IndexOptions {
                            full,
                            // Searches meanwhile keep a complete index.
                            in_place: full,
                            no_wait: false,
                            only,
                        },
                        register: true,
                        vectors: Vectors::IfChanged,
                    };
                    let events = |e: IndexEvent| {
                        if let IndexEvent::Progress(p) = e
                            && p.phase == Phase::Indexing
                        {
                            jobs.update(id, |j| {
                                j.done = p.done;
                                j.total = p.total;
                            });
                        }
                    };
                    let result = runner.run("index", &job, &events);
                    jobs.update(id, |j| {
                        j.seconds = j
                            .started
                            .map(|t| (t.elapsed().as_secs_f64() * 10.0).round() / 10.0);
                        j.eta_s = None;
                        match result {
                            Ok(Ok(run)) => {
                                j.state = JobState::Done;
                                j.done = j.total.max(run.summary.changed);
                                j.changed = Some(run.summary.changed);
                                j.removed = Some(run.summary.removed);
                            }
                            Ok(Err(e)) => {
                                j.state = JobState::Failed;
                                j.error = Some(format!("{e:#}"));
                            }
                            Err(_) => {
                                j.state = JobState::Failed;
                                j.error = Some("internal error (panic)".into());
                            }
                        }
                    });
                }
            });
        if let Err(e) = spawned {
            let mut st = self.jobs.lock();
            st.worker = false;
            for j in st.jobs.iter_mut().filter(|j| j.state == JobState::Queued) {
                j.state = JobState::Failed;
                j.error = Some(format!("cannot start the job thread: {e}"));
            }
        }
    }
}
