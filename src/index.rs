//! Owns building and updating a project's index: walk → compare with what
//! is stored (size + mtime, then content hash) → read and extract changed
//! files in parallel → write them in batched transactions through `store`.
//! Does not parse (that is `extract`) or speak SQL (that is `store`).
//!
//! **Invariant**: the caller holds the project's [`WriterLock`]; every file's
//! rows change in one transaction; a failure on one file becomes that file's
//! skip reason and the run goes on.

use std::collections::{HashMap, HashSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result};
use serde::Serialize;

use crate::extract::Extractor;
use crate::lang::{detect_lang, lang_from_first_line, may_be_script, refine_lang};
use crate::lock::{WhenBusy, WriterLock};
use crate::model::{Extracted, Lang};
// A file whose mtime is `RACY_NS` close to the time it was indexed is
// re-hashed next time even if size and mtime match: a write in the same
// clock tick would not have changed the mtime ("racy" files, as in git).
use crate::search::ngram::{RACY_NS, mtime_ns};
use crate::settings::Settings;
use crate::store::{self, FileRecord, FileUpdate, Store, Writer, meta};

/// Files committed per transaction (also bounded by time, see `BATCH_TIME`).
const BATCH_FILES: usize = 500;
const BATCH_TIME: Duration = Duration::from_millis(500);

#[derive(Debug, Clone, Default)]
pub struct IndexOptions {
    /// Throw the index away and build it again.
    pub full: bool,
    /// With `full`: extract every file again inside the live index, file by
    /// file, instead of building a new one. Slower, but every search
    /// meanwhile answers from a complete index (files not yet redone keep
    /// their rows): for rebuilds that run beside searches (MCP index jobs).
    pub in_place: bool,
    /// Fail instead of waiting when another writer holds the lock.
    pub no_wait: bool,
    /// Restrict the run to these root-relative paths (files or directories):
    /// used by the watcher. Empty = the whole project.
    pub only: Vec<String>,
}

/// Where the run is, for progress bars and status.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct Progress {
    pub phase: Phase,
    pub done: u64,
    pub total: u64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    #[default]
    Walking,
    Indexing,
    Done,
}

/// The one-line summary of a run.
#[derive(Debug, Clone, Default, Serialize)]
pub struct IndexSummary {
    pub root: String,
    /// Files in the index after the run (not skipped).
    pub files: u64,
    pub symbols: u64,
    pub refs: u64,
    pub chunks: u64,
    pub skipped: u64,
    /// Files (re)indexed in this run.
    pub changed: u64,
    /// Files removed from the index in this run.
    pub removed: u64,
    /// Files looked at and found unchanged.
    pub unchanged: u64,
    pub seconds: f64,
    pub walk_seconds: f64,
}

mod embedding;
pub mod ngram;
pub use embedding::{
    EMBED_HEARTBEAT_S, EmbedPlan, EmbedProgress, EmbedSummary, embed_pending, embed_pending_until,
    embed_project, embedding_elsewhere,
};

pub type ProgressFn<'a> = &'a (dyn Fn(Progress) + Sync);

struct Candidate {
    rel: String,
    abs: PathBuf,
    lang: Lang,
    size: u64,
    mtime_ns: i64,
}

/// What reading and extracting one file produced.
struct Processed {
    rel: String,
    existing: Option<i64>,
    lang: Option<Lang>,
    size: u64,
    mtime_ns: i64,
    outcome: Outcome,
}

enum Outcome {
    /// Content hash unchanged: only the mtime moved.
    Touch,
    Indexed {
        hash: u64,
        extracted: Extracted,
        prepared: Vec<store::PreparedChunk>,
        /// See `FileUpdate::packed`.
        packed: store::PackedRows,
    },
    Skipped {
        hash: u64,
        reason: String,
    },
}

pub(crate) fn now_ns() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// Removes the index database (and its WAL files) so it can be rebuilt.
pub fn remove_index_db(root: &Path) -> Result<()> {
    remove_db_files(&store::db_path(root))
}

/// The file a full rebuild writes beside the live index, renamed over it
/// once complete: readers keep the old index until then, and a run that
/// dies leaves the old index as it was.
const NEXT_DB: &str = "index.db.next";
/// Where earlier versions moved the old index during a full rebuild.
const PREVIOUS_DB: &str = "index.db.previous";

/// Puts the complete rebuild `next` in place of the live index. The live
/// file's WAL is first checkpointed into it (so that, for the moment
/// between removing that WAL and the rename, the old file alone is a
/// whole index to a reader opening it), then the WAL and its
/// shared-memory file go and the new file replaces the old in one rename.
/// Readers with the old file open keep reading it; the others open the new
/// one (the service notices the replaced file and reopens).
fn swap_in(root: &Path, next: &Path) -> Result<()> {
    let db = store::db_path(root);
    if db.exists() {
        let mut whole = false;
        for _ in 0..20 {
            match store::checkpoint_file(&db) {
                Ok(true) => {
                    whole = true;
                    break;
                }
                Ok(false) => std::thread::sleep(Duration::from_millis(50)),
                Err(e) => {
                    tracing::debug!("checkpointing the old index: {e}");
                    break;
                }
            }
        }
        if !whole {
            tracing::debug!("the old index's WAL was not emptied: a reader held it");
        }
    }
    remove_file_if_there(&store::with_suffix(&db, "-wal"))?;
    std::fs::rename(next, &db).with_context(|| {
        format!(
            "cannot move the rebuilt index `{}` to `{}`",
            next.display(),
            db.display()
        )
    })?;
    remove_file_if_there(&store::with_suffix(&db, "-shm"))?;
    for suffix in ["-wal", "-shm"] {
        remove_file_if_there(&store::with_suffix(next, suffix))?;
    }
    Ok(())
}

fn remove_file_if_there(path: &Path) -> Result<()> {
    match std::fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e).with_context(|| format!("cannot remove `{}`", path.display())),
    }
}

/// Removes a database file with its `-wal` and `-shm`.
fn remove_db_files(db: &Path) -> Result<()> {
    for suffix in ["", "-wal", "-shm"] {
        remove_file_if_there(&store::with_suffix(db, suffix))?;
    }
    Ok(())
}

/// Takes the writer lock (waiting or failing per `opts`) and runs [`index_locked`].
pub fn index_project(
    settings: &Settings,
    opts: &IndexOptions,
    progress: ProgressFn<'_>,
    on_wait: impl FnOnce(Option<u32>),
) -> Result<IndexSummary> {
    let busy = if opts.no_wait {
        WhenBusy::Fail
    } else {
        WhenBusy::Wait
    };
    let _lock = WriterLock::acquire(&settings.root, busy, on_wait)?;
    index_locked(settings, opts, progress)
}

/// Indexes the project. The caller holds the writer lock. A damaged index
/// (SQLite reports corruption) is set aside and built again from nothing,
/// once ([`store::set_aside`]).
pub fn index_locked(
    settings: &Settings,
    opts: &IndexOptions,
    progress: ProgressFn<'_>,
) -> Result<IndexSummary> {
    match index_locked_once(settings, opts, progress) {
        Err(e) if store::is_damaged(&e) && store::db_path(&settings.root).exists() => {
            tracing::warn!("{e:#}");
            store::set_aside(&settings.root)?;
            index_locked_once(settings, opts, progress)
        }
        other => other,
    }
}

fn index_locked_once(
    settings: &Settings,
    opts: &IndexOptions,
    progress: ProgressFn<'_>,
) -> Result<IndexSummary> {
    let root = &settings.root;
    // What a full rebuild that died left (under the writer lock, no run
    // is writing it): on a large tree, as large as the index.
    let dir = store::index_dir(root);
    let next = dir.join(NEXT_DB);
    for leftover in [&next, &dir.join(PREVIOUS_DB)] {
        if leftover.exists() {
            remove_db_files(leftover)?;
        }
    }
    if !opts.full || opts.in_place {
        return index_into(settings, opts, progress, None);
    }
    // A full rebuild writes a new file beside the live one, and carries
    // over from it the vectors of chunks whose text did not change.
    let built = index_into(settings, opts, progress, Some(&next));
    match built {
        Ok(summary) => {
            swap_in(root, &next)?;
            Ok(summary)
        }
        Err(e) => {
            if let Err(rm) = remove_db_files(&next) {
                tracing::warn!("{rm:#}");
            }
            Err(e)
        }
    }
}

/// One index run into the live index, or for a full rebuild into the new
/// file `next` (which the caller swaps in).
fn index_into(
    settings: &Settings,
    opts: &IndexOptions,
    progress: ProgressFn<'_>,
    next: Option<&Path>,
) -> Result<IndexSummary> {
    let started = Instant::now();
    let root = &settings.root;
    let live = store::db_path(root);
    let mut store = match next {
        Some(next) => Store::open_rw_file(root, next)?,
        None => Store::open_rw(root)?,
    };
    let db = next.map_or_else(|| live.clone(), Path::to_path_buf);
    let records = store.file_records().map_err(|e| store::explain(e, &db))?;

    progress(Progress {
        phase: Phase::Walking,
        done: 0,
        total: 0,
    });
    let (candidates, walked) = walk_candidates(settings, &opts.only, true)?;
    let walk_seconds = started.elapsed().as_secs_f64();

    let redo_all = opts.full && opts.in_place;
    let plan = plan_changes(&records, &candidates, &opts.only, true, redo_all);
    let (todo, removed, unchanged) = (plan.todo, plan.removed, plan.unchanged);

    let total = todo.len() as u64;
    progress(Progress {
        phase: Phase::Indexing,
        done: 0,
        total,
    });

    // Building from empty: load without the secondary indexes and build
    // them once at the end (sorted builds are much cheaper than thousands of
    // random inserts). A run killed before that leaves them missing; the next
    // open re-creates them.
    let bulk = records.is_empty() && todo.len() > 1000;
    if bulk {
        // A first build is rebuilt from scratch if anything goes wrong, so
        // it need not survive a power loss: no fsync per checkpoint.
        store
            .start_bulk_load()
            .map_err(|e| store::explain(e, &db))?;
    }
    // Nothing to do: write nothing (long-lived callers re-check often, and
    // every commit would bump the generation readers watch).
    let idle = todo.is_empty()
        && removed.is_empty()
        && store.get_meta(meta::LAST_INDEXED).ok().flatten().is_some();
    let written = if idle {
        Ok((0, 0))
    } else {
        write_changes(&mut store, settings, &todo, &removed, redo_all, progress)
    };
    tracing::debug!(
        seconds = started.elapsed().as_secs_f64(),
        files = todo.len(),
        "files written"
    );
    if bulk {
        store.create_indexes().map_err(|e| store::explain(e, &db))?;
        tracing::debug!(
            seconds = started.elapsed().as_secs_f64(),
            "secondary indexes built"
        );
    }
    let (changed, touched) = written?;
    if next.is_some() && live.exists() {
        match store.carry_vectors(&live) {
            Ok(n) => tracing::debug!(vectors = n, "vectors carried over from the previous index"),
            Err(e) => tracing::warn!("the previous index's vectors were not carried over: {e}"),
        }
    }
    ngram::refresh(
        &mut store,
        &walked,
        opts.only.is_empty(),
        &|p: &str| in_scope(&opts.only, p),
        settings.max_file_size,
        ngram::MERGE_AT,
        redo_all,
    )
    .map_err(|e| store::explain_write(e, root))?;
    tracing::debug!(
        seconds = started.elapsed().as_secs_f64(),
        "trigram postings done"
    );
    if bulk {
        // Only a smaller file is lost if this fails.
        if let Err(e) = store.repack_after_bulk_load() {
            tracing::warn!("the loaded tables were not repacked: {e}");
        }
        tracing::debug!(
            seconds = started.elapsed().as_secs_f64(),
            "loaded tables repacked"
        );
    }

    if !idle {
        let w = store.begin().map_err(|e| store::explain(e, &db))?;
        let secs = started.elapsed().as_secs_f64();
        let now_s = now_ns() / 1_000_000_000;
        w.set_meta(meta::LAST_INDEXED, &now_s.to_string())?;
        w.set_meta(meta::STATE, "idle")?;
        w.set_meta(meta::LAST_DURATION, &format!("{secs:.3}"))?;
        w.set_meta(meta::PROGRESS_DONE, &total.to_string())?;
        w.set_meta(meta::PROGRESS_TOTAL, &total.to_string())?;
        w.commit().map_err(|e| store::explain(e, &db))?;
    }
    // What the run wrote is committed: a failed merge only waits for the next run.
    if !idle && let Err(e) = store.merge_fts() {
        tracing::warn!("merging the full-text index: {e}");
    }
    progress(Progress {
        phase: Phase::Done,
        done: total,
        total,
    });

    let counts = store.counts().map_err(|e| store::explain(e, &db))?;
    if next.is_some() {
        // The file alone must be the whole index before it is renamed.
        store
            .checkpoint()
            .map_err(|e| store::explain_write(store::explain(e, &db), root))?;
    }
    drop(store);
    tracing::debug!(seconds = started.elapsed().as_secs_f64(), "index closed");
    Ok(IndexSummary {
        root: root.display().to_string(),
        files: counts.files,
        symbols: counts.symbols,
        refs: counts.refs,
        chunks: counts.chunks,
        skipped: counts.skipped,
        changed,
        removed: removed.len() as u64,
        unchanged: unchanged + touched,
        seconds: started.elapsed().as_secs_f64(),
        walk_seconds,
    })
}

/// What an index run has to do.
struct Plan<'a> {
    todo: Vec<(&'a Candidate, Option<&'a FileRecord>)>,
    removed: Vec<i64>,
    unchanged: u64,
}

/// Compares the walk with the stored records: changed or new files are to
/// do, stored files no longer found (within `only`, if given) are removed.
fn plan_changes<'a>(
    records: &'a HashMap<String, FileRecord>,
    candidates: &'a [Candidate],
    only: &[String],
    racy_guard: bool,
    redo_all: bool,
) -> Plan<'a> {
    let mut seen: HashSet<&str> = HashSet::with_capacity(candidates.len());
    let mut todo = Vec::new();
    let mut unchanged = 0u64;
    // A file named itself (a watcher's event, `index PATH`) is hashed again
    // whatever its size and mtime say: `cp -p`, `rsync -a` and `tar` keep
    // the mtime, and an edit of the same length then looked unchanged. An
    // unchanged hash only moves the record's mtime.
    let named: HashSet<&str> = only.iter().map(String::as_str).collect();
    for c in candidates {
        seen.insert(c.rel.as_str());
        let rec = records.get(&c.rel);
        let same = !redo_all
            && !named.contains(c.rel.as_str())
            && rec.is_some_and(|r| {
                r.size == c.size
                    && r.mtime_ns == c.mtime_ns
                    && (!racy_guard || r.mtime_ns < r.indexed_at_ns - RACY_NS)
            });
        if same {
            unchanged += 1;
        } else {
            todo.push((c, rec));
        }
    }
    let mut removed: Vec<i64> = records
        .iter()
        .filter(|(p, _)| in_scope(only, p) && !seen.contains(p.as_str()))
        .map(|(_, r)| r.id)
        .collect();
    removed.sort_unstable();
    Plan {
        todo,
        removed,
        unchanged,
    }
}

/// Whether `path` lies within the run's `only` paths (all paths when none).
fn in_scope(only: &[String], path: &str) -> bool {
    only.is_empty()
        || only.iter().any(|o| {
            o.is_empty()
                || path == o
                || path
                    .strip_prefix(o.as_str())
                    .is_some_and(|r| r.starts_with('/'))
        })
}

/// Pages FTS5 writes per step of [`merge_fts_idle`]: 0.3-0.8 s a step
/// on the Linux kernel's index (the whole merge there: about 20 steps).
const FTS_MERGE_STEP_PAGES: u32 = 2_000;

/// How a background merge of the full-text index went.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FtsMergeOutcome {
    /// Steps done (each its own transaction under the writer lock).
    pub steps: u32,
    /// The merge is complete: no tombstones are left.
    pub finished: bool,
    /// It stopped with work left (told to, or another writer held the
    /// lock): call again later.
    pub stopped: bool,
}

/// Merges the project's full-text index in steps when its tombstones call
/// for it ([`store::FtsMerge::Idle`]), for a daemon while the project is
/// quiet: each step takes the writer lock and lets it go, so a change
/// waits one step, not the whole merge (13-60 s on the kernel), and the
/// merge stops as soon as `should_stop` says so or another writer holds
/// the lock; FTS5 keeps its progress, and the next call goes on.
pub fn merge_fts_idle(root: &Path, should_stop: &dyn Fn() -> bool) -> Result<FtsMergeOutcome> {
    let mut outcome = FtsMergeOutcome::default();
    let started = Instant::now();
    loop {
        if should_stop() {
            outcome.stopped = true;
            break;
        }
        let _lock = match WriterLock::acquire_existing(root, WhenBusy::Fail, |_| {}) {
            Ok(lock) => lock,
            Err(e)
                if crate::error::find_user_error(&e)
                    .is_some_and(|u| u.code == crate::error::ErrorCode::IndexBusy) =>
            {
                outcome.stopped = true;
                break;
            }
            Err(e) => return Err(e),
        };
        // Opened under the lock each step: a rebuild may have replaced
        // the file meanwhile.
        let store = Store::open_rw(root)?;
        if outcome.steps == 0 && !store.fts_merge_due(store::FtsMerge::Idle)? {
            break;
        }
        let more = store.merge_fts_step(FTS_MERGE_STEP_PAGES)?;
        outcome.steps += 1;
        if !more {
            outcome.finished = true;
            break;
        }
    }
    if outcome.steps > 0 {
        tracing::info!(
            steps = outcome.steps,
            finished = outcome.finished,
            seconds = started.elapsed().as_secs_f64(),
            "`{}`: full-text index merged in steps",
            root.display()
        );
    }
    Ok(outcome)
}

/// Files that changed on disk since they were indexed.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Staleness {
    /// New, modified or deleted files not yet reflected in the index.
    pub stale_files: u64,
    pub examples: Vec<String>,
}

/// Compares the project on disk with the index without writing anything.
/// A file whose mtime changed is counted even if its content did not.
pub fn staleness(settings: &Settings, store: &Store) -> Result<Staleness> {
    let (records, candidates) = records_and_walk(settings, store)?;
    let plan = plan_changes(&records, &candidates, &[], false, false);
    let mut examples: Vec<String> = plan
        .todo
        .iter()
        .take(10)
        .map(|(c, _)| c.rel.clone())
        .collect();
    let by_id: HashMap<i64, &str> = records.iter().map(|(p, r)| (r.id, p.as_str())).collect();
    for id in plan
        .removed
        .iter()
        .take(10usize.saturating_sub(examples.len()))
    {
        if let Some(p) = by_id.get(id) {
            // Still on disk: the walk leaves it out now (an exclude or
            // ignore rule changed), and the next run drops it.
            let why = if settings.root.join(p).exists() {
                "no longer indexed: excluded or ignored"
            } else {
                "deleted"
            };
            examples.push(format!("{p} ({why})"));
        }
    }
    Ok(Staleness {
        stale_files: (plan.todo.len() + plan.removed.len()) as u64,
        examples,
    })
}

/// What an update of the index would do now, as root-relative paths: the
/// new and changed files the walk finds, then the indexed files deleted
/// from disk. An indexed file still on disk that the walk leaves out (an
/// exclude added since, a file indexed with `index --hidden`) is not
/// among them: an update of these paths keeps it. Writes nothing.
pub fn changed_paths(settings: &Settings, store: &Store) -> Result<Vec<String>> {
    let (records, candidates) = records_and_walk(settings, store)?;
    let plan = plan_changes(&records, &candidates, &[], false, false);
    let mut paths: Vec<String> = plan.todo.iter().map(|(c, _)| c.rel.clone()).collect();
    if !plan.removed.is_empty() {
        let removed: HashSet<i64> = plan.removed.iter().copied().collect();
        paths.extend(
            records
                .iter()
                .filter(|(p, r)| removed.contains(&r.id) && !settings.root.join(p).exists())
                .map(|(p, _)| p.clone()),
        );
    }
    Ok(paths)
}

/// The index's file records and the indexable files a walk finds now,
/// for [`plan_changes`] to compare without writing ([`staleness`],
/// [`changed_paths`]).
fn records_and_walk(
    settings: &Settings,
    store: &Store,
) -> Result<(HashMap<String, FileRecord>, Vec<Candidate>)> {
    let db = store::db_path(&settings.root);
    let records = store.file_records().map_err(|e| store::explain(e, &db))?;
    let (candidates, _) = walk_candidates(settings, &[], false)?;
    Ok((records, candidates))
}

/// Walks the project (in parallel) and returns every indexable file and,
/// with `all_files`, every regular file (for the trigram postings; a
/// staleness count does not need them, nor the stat of files that are not
/// code), both sorted by path.
fn walk_candidates(
    settings: &Settings,
    only: &[String],
    all_files: bool,
) -> Result<(Vec<Candidate>, Vec<ngram::WalkedFile>)> {
    let root = &settings.root;
    let mut builder = crate::walk::walk_builder(root, &settings.walk)?;
    if !only.is_empty() {
        // Restrict to the given paths: walk each that still exists.
        let mut first = true;
        let mut any = false;
        for o in only {
            let p = root.join(o);
            if p.exists() {
                if first {
                    builder = crate::walk::walk_builder_for(root, &p, &settings.walk)?;
                    first = false;
                } else {
                    builder.add(&p);
                }
                any = true;
            }
        }
        if !any {
            return Ok((Vec::new(), Vec::new()));
        }
    }
    type Found = (Vec<Candidate>, Vec<ngram::WalkedFile>);
    let out: Mutex<Found> = Mutex::new((Vec::new(), Vec::new()));
    builder.build_parallel().run(|| {
        let out = &out;
        // Flush this thread's files when the closure is dropped.
        struct Flush<'a>(&'a Mutex<Found>, Found);
        impl Drop for Flush<'_> {
            fn drop(&mut self) {
                if let Ok(mut v) = self.0.lock() {
                    v.0.append(&mut self.1.0);
                    v.1.append(&mut self.1.1);
                }
            }
        }
        let mut flush = Flush(out, (Vec::new(), Vec::new()));
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return ignore::WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return ignore::WalkState::Continue;
            }
            let path = entry.path();
            let lang = detect_lang(path).or_else(|| sniff_script(path));
            if lang.is_none() && !all_files {
                return ignore::WalkState::Continue;
            }
            let Ok(md) = entry.metadata() else {
                return ignore::WalkState::Continue;
            };
            let rel = crate::paths::rel_string(root, path);
            let (size, mtime_ns) = (md.len(), mtime_ns(&md));
            if let Some(lang) = lang {
                flush.1.0.push(Candidate {
                    rel: rel.clone(),
                    abs: path.to_path_buf(),
                    lang,
                    size,
                    mtime_ns,
                });
            }
            if all_files {
                flush.1.1.push(ngram::WalkedFile {
                    rel,
                    abs: path.to_path_buf(),
                    size,
                    mtime_ns,
                });
            }
            ignore::WalkState::Continue
        })
    });
    let (mut v, mut all) = out.into_inner().unwrap_or_else(|e| e.into_inner());
    v.sort_by(|a, b| a.rel.cmp(&b.rel));
    v.dedup_by(|a, b| a.rel == b.rel);
    all.sort_by(|a, b| a.rel.cmp(&b.rel));
    all.dedup_by(|a, b| a.rel == b.rel);
    Ok((v, all))
}

/// The language of an extension-less script by its first line, a `#!` line
/// or an Emacs mode line (`completions/ssh`, `bin/deploy`), else by lines
/// that read as shell (`auto/modules`); `None` for every other file the
/// name does not place. Only extension-less names cost this
/// small read, so walks stay cheap, and the same walk serves full and
/// incremental runs, so a script that loses its first line leaves the index
/// like a deleted file.
pub(crate) fn sniff_script(path: &Path) -> Option<Lang> {
    if !may_be_script(path) {
        return None;
    }
    let mut head = [0u8; crate::lang::SCRIPT_HEAD_BYTES];
    let mut file = crate::fs_safe::open_regular(path).ok()?;
    let mut filled = 0;
    while filled < head.len() {
        match file.read(&mut head[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    lang_from_first_line(&head[..filled])
}

/// Reads, extracts and writes every changed file; deletes removed ones.
/// Returns how many files were (re)indexed or skipped anew, and how many
/// turned out unchanged after hashing.
fn write_changes(
    store: &mut Store,
    settings: &Settings,
    todo: &[(&Candidate, Option<&FileRecord>)],
    removed: &[i64],
    redo_all: bool,
    progress: ProgressFn<'_>,
) -> Result<(u64, u64)> {
    let db = store::db_path(&settings.root);
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 8);
    let (tx_items, rx_items) = crossbeam_channel::bounded::<Processed>(256);
    let next = std::sync::atomic::AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let max_size = settings.max_file_size;

    std::thread::scope(|scope| -> Result<(u64, u64)> {
        for _ in 0..threads {
            let tx_items = tx_items.clone();
            let next = &next;
            let stop = &stop;
            scope.spawn(move || {
                let mut extractor = Extractor::new();
                loop {
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some((cand, rec)) = todo.get(i) else {
                        break;
                    };
                    let item = process_file(&mut extractor, cand, *rec, max_size, redo_all);
                    if tx_items.send(item).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx_items);

        let result = (|| -> Result<(u64, u64)> {
            let mut done = 0u64;
            let mut touched = 0u64;
            let total = todo.len() as u64;
            let mut generation: u64 = store.meta_u64(meta::GENERATION).unwrap_or(0);
            // Deletions first, in their own transaction.
            {
                let w = store.begin().map_err(|e| store::explain(e, &db))?;
                for id in removed {
                    w.delete_file(*id)?;
                }
                generation += 1;
                w.set_meta(meta::GENERATION, &generation.to_string())?;
                w.set_meta(meta::STATE, if total > 0 { "running" } else { "idle" })?;
                w.set_meta(meta::WRITER_PID, &std::process::id().to_string())?;
                w.set_meta(meta::PROGRESS_DONE, "0")?;
                w.set_meta(meta::PROGRESS_TOTAL, &total.to_string())?;
                w.commit().map_err(|e| store::explain(e, &db))?;
            }
            let mut rx = rx_items.iter().peekable();
            let (mut busy_writing, mut waiting, mut committing) =
                (Duration::ZERO, Duration::ZERO, Duration::ZERO);
            while rx.peek().is_some() {
                let w = store.begin().map_err(|e| store::explain(e, &db))?;
                let batch_start = Instant::now();
                let mut n = 0;
                while n < BATCH_FILES && batch_start.elapsed() < BATCH_TIME {
                    let t0 = Instant::now();
                    let Some(item) = rx.next() else { break };
                    waiting += t0.elapsed();
                    let t0 = Instant::now();
                    write_one(&w, &item)?;
                    busy_writing += t0.elapsed();
                    if matches!(item.outcome, Outcome::Touch) {
                        touched += 1;
                    }
                    n += 1;
                }
                done += n as u64;
                generation += 1;
                w.set_meta(meta::GENERATION, &generation.to_string())?;
                w.set_meta(meta::PROGRESS_DONE, &done.to_string())?;
                let t0 = Instant::now();
                w.commit().map_err(|e| store::explain(e, &db))?;
                committing += t0.elapsed();
                progress(Progress {
                    phase: Phase::Indexing,
                    done,
                    total,
                });
            }
            tracing::debug!(?busy_writing, ?waiting, ?committing, "writer thread");
            Ok((done - touched, touched))
        })();
        if result.is_err() {
            stop.store(true, Ordering::Relaxed);
            // Drain so workers blocked on a full channel can finish.
            for _ in rx_items.iter() {}
        }
        result
    })
}

fn write_one(w: &Writer<'_>, item: &Processed) -> Result<()> {
    let now = now_ns();
    match &item.outcome {
        Outcome::Touch => {
            if let Some(id) = item.existing {
                w.touch_file(id, item.mtime_ns, now)?;
            }
        }
        Outcome::Indexed {
            hash,
            extracted,
            prepared,
            packed,
        } => {
            w.put_file(
                item.existing,
                &FileUpdate {
                    path: &item.rel,
                    lang: item.lang,
                    size: item.size,
                    mtime_ns: item.mtime_ns,
                    hash: *hash,
                    skip_reason: None,
                    extracted,
                    prepared: Some(prepared),
                    packed: Some(packed),
                },
                now,
            )?;
        }
        Outcome::Skipped { hash, reason } => {
            let empty = Extracted::default();
            w.put_file(
                item.existing,
                &FileUpdate {
                    path: &item.rel,
                    lang: item.lang,
                    size: item.size,
                    mtime_ns: item.mtime_ns,
                    hash: *hash,
                    skip_reason: Some(reason),
                    extracted: &empty,
                    prepared: None,
                    packed: None,
                },
                now,
            )?;
        }
    }
    Ok(())
}

fn process_file(
    extractor: &mut Extractor,
    cand: &Candidate,
    rec: Option<&FileRecord>,
    max_size: u64,
    redo: bool,
) -> Processed {
    let base = |outcome| Processed {
        rel: cand.rel.clone(),
        existing: rec.map(|r| r.id),
        lang: Some(cand.lang),
        size: cand.size,
        mtime_ns: cand.mtime_ns,
        outcome,
    };
    if cand.size > max_size {
        return base(Outcome::Skipped {
            hash: 0,
            reason: format!(
                "too large: {} bytes (limit {max_size}; raise index.max_file_size)",
                cand.size
            ),
        });
    }
    let mut bytes = Vec::with_capacity(cand.size as usize + 1);
    // Never blocks on a FIFO swapped in since the walk: refused as skipped.
    let read = crate::fs_safe::open_regular(&cand.abs)
        .and_then(|f| f.take(max_size + 1).read_to_end(&mut bytes));
    if let Err(e) = read {
        return base(Outcome::Skipped {
            hash: 0,
            reason: format!("unreadable: {e}"),
        });
    }
    if bytes.len() as u64 > max_size {
        return base(Outcome::Skipped {
            hash: 0,
            reason: format!(
                "too large: {} bytes (limit {max_size}; raise index.max_file_size)",
                bytes.len()
            ),
        });
    }
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    let mut p = base(Outcome::Touch);
    p.size = bytes.len() as u64;
    if let Some(r) = rec
        && !redo
        && r.hash == hash
        && r.skip_reason.is_none()
        && r.size == p.size
    {
        return p;
    }
    let text = match crate::source::decode(&bytes) {
        Ok(t) => t,
        Err(reason) => {
            p.outcome = Outcome::Skipped { hash, reason };
            return p;
        }
    };
    let lang = refine_lang(cand.lang, &cand.rel, &text);
    p.lang = Some(lang);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        extractor.extract(&cand.rel, &text, lang)
    }));
    p.outcome = match result {
        Ok(Ok(extracted)) => {
            let prepared = store::prepare_chunks(&cand.rel, &extracted.chunks);
            let line_signatures = crate::source::line_signatures(&text, &extracted.symbols);
            let packed = store::pack_rows(&extracted, Some(&line_signatures));
            Outcome::Indexed {
                hash,
                extracted,
                prepared,
                packed,
            }
        }
        Ok(Err(e)) => Outcome::Skipped {
            hash,
            reason: format!("parse failure: {e}"),
        },
        Err(_) => {
            *extractor = Extractor::new();
            Outcome::Skipped {
                hash,
                reason: "parse failure: internal error in the parser".into(),
            }
        }
    };
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Files link when one references a name the other defines and few
    /// files define it: both directions, names as written, a name three
    /// files define links nothing, and an unknown file links to nothing.
    #[test]
    fn files_linked_to_reads_rare_names_both_ways() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("root");
        let files = [
            (
                "registry.py",
                "from loader import discover_plugins\n\nclass PluginRegistry:\n    def run(self):\n        return discover_plugins()\n",
            ),
            (
                "loader.py",
                "def discover_plugins():\n    return []\n\ndef run():\n    return 1\n",
            ),
            (
                "cli.py",
                "from registry import PluginRegistry\n\ndef main():\n    PluginRegistry().run()\n",
            ),
            (
                "other.py",
                "def run():\n    return pluginregistry()\n\ndef pluginregistry():\n    return 2\n",
            ),
            ("unrelated.py", "def tidy():\n    return run()\n"),
        ];
        for (name, text) in files {
            std::fs::write(root.join(name), text).expect("write");
        }
        let settings = Settings::resolve(root.clone(), &crate::settings::Overrides::default())
            .expect("settings");
        index_project(&settings, &IndexOptions::default(), &|_| {}, |_| {}).expect("index");
        let store = Store::open_ro(&root).expect("open").expect("an index");
        let among = ["loader.py", "cli.py", "other.py", "unrelated.py", "gone.py"];
        let mut linked: Vec<String> = store
            .files_linked_to("registry.py", &among, 2)
            .expect("links")
            .into_iter()
            .collect();
        linked.sort();
        // `loader.py` defines `discover_plugins`, which `registry.py`
        // calls; `cli.py` calls `PluginRegistry`, defined there; `run` is
        // defined in three files, so `unrelated.py` calling it is no link;
        // `other.py` defines `pluginregistry`, another name.
        assert_eq!(linked, ["cli.py", "loader.py"]);
        assert!(
            store
                .files_linked_to("gone.py", &among, 2)
                .expect("links")
                .is_empty()
        );
        assert!(
            store
                .files_linked_to("registry.py", &[], 2)
                .expect("links")
                .is_empty()
        );
    }

    /// A daemon's merge in steps: it ends with no tombstones counted and
    /// the same answers, does nothing when not due, and stops at once when
    /// told to or when another writer holds the lock.
    #[test]
    fn merge_fts_idle_steps_stops_and_finishes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("root");
        let body: String = (0..300)
            .map(|i| format!("def handler_{i}(event):\n    return event.value + {i}\n\n"))
            .collect();
        std::fs::write(root.join("a.py"), &body).expect("write");
        let settings = Settings::resolve(root.clone(), &crate::settings::Overrides::default())
            .expect("settings");
        let run =
            || index_project(&settings, &IndexOptions::default(), &|_| {}, |_| {}).expect("index");
        run();
        let never = || false;
        let not_due = merge_fts_idle(&root, &never).expect("merge");
        assert_eq!(not_due, FtsMergeOutcome::default(), "no tombstones yet");
        // Tombstones as many changes leave them (a large index's runs leave
        // merging to the daemon: 10% against its 1%).
        let set_deleted = |n: &str| {
            let _lock = WriterLock::acquire(&root, WhenBusy::Fail, |_| {}).expect("lock");
            let mut store = Store::open_rw(&root).expect("open");
            let w = store.begin().expect("begin");
            w.set_meta(meta::FTS_DELETED, n).expect("meta");
            w.commit().expect("commit");
        };
        set_deleted("5000");
        let stop = || true;
        let told = merge_fts_idle(&root, &stop).expect("merge");
        assert_eq!((told.steps, told.stopped), (0, true));
        {
            let _held = WriterLock::acquire(&root, WhenBusy::Fail, |_| {}).expect("lock");
            let busy = merge_fts_idle(&root, &never).expect("busy is not an error");
            assert_eq!(
                (busy.steps, busy.stopped),
                (0, true),
                "another writer holds it"
            );
        }
        let done = merge_fts_idle(&root, &never).expect("merge");
        assert!(
            done.finished && !done.stopped && done.steps >= 1,
            "{done:?}"
        );
        let store = Store::open_ro(&root).expect("open").expect("an index");
        assert_eq!(store.meta_u64(meta::FTS_DELETED).expect("meta"), 0);
        let mut hits = 0;
        store
            .fts_chunks("handler_7", (1.0, 1.0, 1.0), 100, |_| hits += 1)
            .expect("query");
        assert!(hits >= 1, "the merged index still answers");
    }
}
