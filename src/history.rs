//! Owns reading the project's git history in-process (gix, no `git`
//! subprocess): the commits that touched a file or a line range
//! ([`file_history`]) and the commit that last changed each line
//! ([`blame`]). Both read the committed state (`HEAD`), follow renames, and
//! return plain structs; the service redacts line text, the surfaces render.

use std::collections::{BinaryHeap, HashMap, HashSet};
use std::path::Path;

use anyhow::{Context, Result};
use gix::ObjectId;
use gix::bstr::ByteSlice;
use serde::Serialize;

use crate::error::{ErrorCode, UserError};
use crate::paths::resolve_in_root;

/// Most commits one `history` answer lists.
pub const MAX_HISTORY: usize = 200;
/// Commits listed when no limit is given.
pub const DEFAULT_HISTORY: usize = 20;
/// Most lines one `blame` answer covers.
pub const MAX_BLAME_LINES: u64 = 500;
/// Characters of hash shown as the short form (git's default).
const SHORT: usize = 7;

#[derive(Debug, Clone, Default)]
pub struct HistoryRequest {
    pub path: String,
    pub start_line: Option<u64>,
    pub end_line: Option<u64>,
    /// Only commits committed at or after this date (`2024-05-01`, ISO 8601,
    /// or git's relative forms such as `2 weeks ago`).
    pub since: Option<String>,
    pub limit: usize,
    /// The full message instead of its first line.
    pub detail: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct CommitInfo {
    pub commit: String,
    pub short: String,
    pub author: String,
    pub email: String,
    /// Author date, ISO 8601 with the author's offset (git's `%aI`).
    pub date: String,
    pub summary: String,
    /// The whole message (with `detail`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The file's path in this commit, when a rename makes it differ from
    /// the asked path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct HistoryResult {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_line: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_line: Option<u64>,
    /// Newest first.
    pub commits: Vec<CommitInfo>,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Secret values shown as `[redacted: …]` (filled in by the service).
    pub redacted: usize,
    /// For a file no longer in `HEAD`: the short hash of the commit that
    /// deleted it (listed first; the rest is its history up to then).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deleted_in: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct BlameRequest {
    pub path: String,
    pub start_line: Option<u64>,
    pub end_line: Option<u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BlameLine {
    pub line: u64,
    /// Index into [`BlameResult::commits`].
    pub commit: usize,
    pub text: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct BlameResult {
    pub path: String,
    pub start_line: u64,
    pub end_line: u64,
    pub total_lines: u64,
    /// The commits the lines point at, in order of first appearance.
    pub commits: Vec<CommitInfo>,
    pub lines: Vec<BlameLine>,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
    /// Secret values shown as `[redacted: …]` (filled in by the service).
    pub redacted: usize,
}

/// The repository holding `root` and the file's path inside its worktree.
struct Located {
    repo: gix::Repository,
    /// Path relative to the repository's worktree, `/`-separated.
    git_path: String,
    /// Path relative to the project root, as answers show it.
    rel: String,
    head: ObjectId,
    /// Whether the file exists on disk (a path gone from disk is located
    /// only for `history`, which can list a deleted file's commits).
    on_disk: bool,
}

fn no_git(root: &Path) -> UserError {
    UserError::with_code(
        ErrorCode::NoGit,
        format!("`{}` is not in a git repository", root.display()),
    )
    .hint("history and blame read the project's git data; every other command works without git")
}

/// The repository holding `root`, when its git data is the project's own.
///
/// A checkout can carry a `.git` *file* (`gitdir: /elsewhere/.git`), or a
/// `.git` symlink, naming another repository on this machine; git follows
/// it, and `blame` would then show that repository's committed lines. So
/// a git directory outside the work tree counts only when it names this
/// work tree back, from data the checkout does not control: a linked
/// worktree (`<common>/worktrees/<name>/gitdir` names our `.git`) or a
/// submodule or separate git dir whose `core.worktree` is this work tree.
fn open_repo(root: &Path) -> Result<gix::Repository> {
    let repo = gix::discover(root).map_err(|_| no_git(root))?;
    let Some(workdir) = repo.workdir() else {
        return Ok(repo);
    };
    let canon = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let work = canon(workdir);
    let git = canon(repo.git_dir());
    let common = canon(repo.common_dir());
    let ours = if git != common {
        git.parent() == Some(common.join("worktrees").as_path())
            && std::fs::read_to_string(git.join("gitdir"))
                .is_ok_and(|s| canon(Path::new(s.trim())) == canon(&work.join(".git")))
    } else {
        git.starts_with(&work)
            || repo
                .config_snapshot()
                .string("core.worktree")
                .and_then(|v| v.to_str().ok().map(|v| canon(&git.join(v))))
                .is_some_and(|named| named == work)
    };
    if !ours {
        return Err(UserError::with_code(
            ErrorCode::UnsafePath,
            format!(
                "the git directory of `{}` is `{}`, outside it, and does not name this directory as its work tree",
                work.display(),
                common.display()
            ),
        )
        .hint(format!(
            "history and blame do not follow a `.git` file or link out of a project; if that git directory is yours, `git --git-dir={} config core.worktree {}` makes it name this work tree",
            git.display(),
            work.display()
        ))
        .into());
    }
    Ok(repo)
}

/// Where `path` lies in the project and its repository. With `gone_ok`, a
/// path that is not on disk is placed lexically (as `git log -- PATH` takes
/// a deleted file's path); only git's objects are read for it, never the
/// file system.
fn locate(root: &Path, path: &str, gone_ok: bool) -> Result<Located> {
    let (p, on_disk) = match resolve_in_root(root, path) {
        Ok(p) => (p, true),
        Err(e) if gone_ok && crate::error::has_code(&e, ErrorCode::NotFound) => {
            let abs = crate::paths::normalize_lexically(&root.join(path.trim()));
            let rel = crate::paths::rel_string(root, &abs);
            (crate::paths::ProjectPath { abs, rel }, false)
        }
        Err(e) => return Err(e),
    };
    if p.abs.is_dir() {
        return Err(UserError::new(format!("`{}` is a directory", p.rel))
            .hint("give a file path, e.g. `src/lib.rs`")
            .into());
    }
    let repo = open_repo(root)?;
    let Some(workdir) = repo.workdir() else {
        return Err(no_git(root).into());
    };
    let workdir = std::fs::canonicalize(workdir)
        .with_context(|| format!("cannot resolve `{}`", workdir.display()))?;
    let abs = std::fs::canonicalize(&p.abs).unwrap_or_else(|_| p.abs.clone());
    let Ok(inside) = abs.strip_prefix(&workdir) else {
        return Err(no_git(root).into());
    };
    let git_path = inside
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    let head = match repo.head_id() {
        Ok(id) => id.detach(),
        Err(_) => {
            return Err(UserError::with_code(
                ErrorCode::NotFound,
                "the git repository has no commits yet",
            )
            .hint("commit the file first; history and blame read committed history")
            .into());
        }
    };
    Ok(Located {
        repo,
        git_path,
        rel: p.rel,
        head,
        on_disk,
    })
}

fn blob_at(repo: &gix::Repository, commit: ObjectId, path: &str) -> Result<Option<ObjectId>> {
    let tree = repo.find_commit(commit)?.tree()?;
    let entry = tree.lookup_entry_by_path(path)?;
    Ok(entry.filter(|e| e.mode().is_blob()).map(|e| e.object_id()))
}

fn blob_data(repo: &gix::Repository, id: ObjectId) -> Result<Vec<u8>> {
    Ok(repo.find_object(id)?.detach().data)
}

fn not_committed(rel: &str) -> anyhow::Error {
    UserError::with_code(
        ErrorCode::NotFound,
        format!("`{rel}` is not in the repository's last commit (HEAD)"),
    )
    .hint("history and blame read committed files: commit it, or check the path")
    .into()
}

fn bad_range(start: u64, end: u64, total: u64) -> anyhow::Error {
    UserError::new(format!(
        "line range {start}-{end} is not inside the committed file ({total} lines)"
    ))
    .hint(format!(
        "give 1 <= start <= end <= {total} (lines of the file as last committed)"
    ))
    .into()
}

/// Checks `start..=end` (1-based) against a file of `total` lines.
fn check_range(start: Option<u64>, end: Option<u64>, total: u64) -> Result<Option<(u64, u64)>> {
    match (start, end) {
        (None, None) => Ok(None),
        (s, e) => {
            // Only a start past the end: that is what is wrong, not the
            // order against the end it implied (`900-772` on 772 lines).
            if let (Some(s), None) = (s, e)
                && s > total
            {
                return Err(UserError::new(format!(
                    "line {s} is past the end of the committed file ({total} lines)"
                ))
                .hint(format!("give a start line from 1 to {total}"))
                .into());
            }
            let s = s.unwrap_or(1);
            let e = e.unwrap_or(total);
            if s > e && e >= 1 {
                return Err(UserError::new(format!(
                    "line range {s}-{e} is reversed: {s} is after {e}"
                ))
                .hint(format!("give the first line first ({e}-{s})"))
                .agent("give start_line <= end_line")
                .into());
            }
            if s == 0 || s > e || e > total {
                return Err(bad_range(s, e, total));
            }
            Ok(Some((s, e)))
        }
    }
}

fn line_count(data: &[u8]) -> u64 {
    gix::diff::blob::sources::byte_lines(data).count() as u64
}

fn commit_info(
    repo: &gix::Repository,
    id: ObjectId,
    detail: bool,
    path: Option<String>,
) -> Result<CommitInfo> {
    let c = repo.find_commit(id)?;
    let author = c.author()?;
    let date = author
        .time()
        .ok()
        .and_then(|t| t.format(gix::date::time::format::ISO8601_STRICT).ok())
        .map(|d| match d.strip_suffix("+00:00") {
            // As git's `%aI` writes UTC.
            Some(utc) => format!("{utc}Z"),
            None => d,
        })
        .unwrap_or_default();
    let msg = c.message()?;
    let summary = msg.summary().to_str_lossy().into_owned();
    let message = detail.then(|| c.message_raw_sloppy().to_str_lossy().trim_end().to_string());
    Ok(CommitInfo {
        short: short_hash(id),
        commit: id.to_string(),
        author: author.name.to_str_lossy().into_owned(),
        email: author.email.to_str_lossy().into_owned(),
        date,
        summary,
        message,
        path,
    })
}

/// A commit's hash in its short form (git's default length).
fn short_hash(id: ObjectId) -> String {
    let mut hash = id.to_string();
    hash.truncate(SHORT);
    hash
}

fn parse_since(s: &str) -> Result<i64> {
    let now = gix::date::Zoned::now();
    gix::date::parse(s.trim(), Some(now))
        .map(|t| t.seconds)
        .map_err(|_| {
            UserError::new(format!("cannot read `{s}` as a date"))
                .hint("use an ISO 8601 date such as 2024-05-01 or 2024-05-01T12:00:00+02:00, or `2 weeks ago`")
                .into()
        })
}

/// A line range, 0-based and end-exclusive, in one version of the file.
type Span = (u32, u32);

/// The hunks between two versions of a file (line diff, histogram).
fn hunks(old: &[u8], new: &[u8]) -> Vec<gix::diff::blob::Hunk> {
    let input = gix::diff::blob::InternedInput::new(old, new);
    let diff =
        gix::diff::blob::diff_with_slider_heuristics(gix::diff::blob::Algorithm::Histogram, &input);
    diff.hunks().collect()
}

/// Whether a hunk touches `span` of the new version (a deletion counts when
/// it falls between two lines of the span).
fn touches(hunks: &[gix::diff::blob::Hunk], span: Span) -> bool {
    let (a, b) = span;
    hunks.iter().any(|h| {
        if h.after.is_empty() {
            a < h.after.start && h.after.start < b
        } else {
            h.after.start < b && a < h.after.end
        }
    })
}

/// `span` of the new version mapped onto the old one: lines a hunk
/// rewrote map to the whole hunk. `None` when the lines did not exist.
fn map_back(hunks: &[gix::diff::blob::Hunk], span: Span) -> Option<Span> {
    let (a, b) = span;
    let shift = |x: u32, delta: i64| (i64::from(x) + delta).max(0) as u32;
    let mut start = None;
    let mut delta: i64 = 0;
    for h in hunks {
        if a < h.after.start {
            break;
        }
        if a < h.after.end {
            start = Some(h.before.start);
            break;
        }
        delta = i64::from(h.before.end) - i64::from(h.after.end);
    }
    let start = start.unwrap_or_else(|| shift(a, delta));
    let mut end = None;
    delta = 0;
    for h in hunks {
        if b <= h.after.start {
            break;
        }
        if b <= h.after.end {
            end = Some(h.before.end);
            break;
        }
        delta = i64::from(h.before.end) - i64::from(h.after.end);
    }
    let end = end.unwrap_or_else(|| shift(b, delta));
    (start < end).then_some((start, end))
}

/// The source path of `path` in `parent` when `commit` renamed (or
/// copied) it there.
fn renamed_from(
    repo: &gix::Repository,
    parent: ObjectId,
    commit: ObjectId,
    path: &str,
) -> Result<Option<String>> {
    let old = repo.find_commit(parent)?.tree()?;
    let new = repo.find_commit(commit)?.tree()?;
    // Renames, and copies from a file the commit also changed (git's `-C`,
    // which `git log --follow` follows too).
    let rewrites = gix::diff::Rewrites {
        copies: Some(gix::diff::rewrites::Copies::default()),
        ..Default::default()
    };
    let opts = gix::diff::Options::default().with_rewrites(Some(rewrites));
    let changes = repo.diff_tree_to_tree(Some(&old), Some(&new), Some(opts))?;
    for ch in changes {
        if let gix::object::tree::diff::ChangeDetached::Rewrite {
            source_location,
            location,
            ..
        } = ch
            && location.to_str_lossy() == path
        {
            return Ok(Some(source_location.to_str_lossy().into_owned()));
        }
    }
    Ok(None)
}

/// What is followed back through one commit: the file's path there and,
/// for a line range, the lines in that version.
#[derive(Clone)]
struct Track {
    path: String,
    span: Option<Span>,
}

/// The commits that touched the file (or the line range), newest first,
/// as `git log --follow` lists them: every commit whose file (or a hunk
/// overlapping the range) differs from its parent's, on every branch that
/// led to `HEAD`; merges are walked through, not listed (the commits on
/// either side say what changed). Renames are followed, and a line range
/// is mapped back through each commit's hunks.
///
/// A file deleted since (gone from disk and from `HEAD`) is followed from
/// its last committed version, the deleting commit listed first, as
/// `git log -- PATH` lists it.
pub fn file_history(root: &Path, req: &HistoryRequest) -> Result<HistoryResult> {
    let loc = locate(root, &req.path, true)?;
    let repo = &loc.repo;
    let limit = req.limit.clamp(1, MAX_HISTORY);
    let since = req.since.as_deref().map(parse_since).transpose()?;
    let (tip, head_blob, deleted) = match blob_at(repo, loc.head, &loc.git_path)? {
        Some(blob) => (loc.head, blob, None),
        None if !loc.on_disk => match last_version(repo, loc.head, &loc.git_path)? {
            Some((last, blob, deleting)) => (last, blob, Some(deleting)),
            None => return Err(never_committed(&loc.rel)),
        },
        None => return Err(not_committed(&loc.rel)),
    };
    let range = if req.start_line.is_some() || req.end_line.is_some() {
        let total = line_count(&blob_data(repo, head_blob)?);
        check_range(req.start_line, req.end_line, total)?
    } else {
        None
    };
    let span = range.map(|(s, e)| ((s - 1) as u32, e as u32));

    let mut queue: BinaryHeap<(i64, u64, ObjectId)> = BinaryHeap::new();
    let mut tracks: HashMap<ObjectId, Track> = HashMap::new();
    let mut done: HashSet<ObjectId> = HashSet::new();
    let mut seq = u64::MAX;
    let mut push = |queue: &mut BinaryHeap<(i64, u64, ObjectId)>,
                    tracks: &mut HashMap<ObjectId, Track>,
                    id: ObjectId,
                    track: Track|
     -> Result<()> {
        if tracks.contains_key(&id) {
            return Ok(());
        }
        let time = repo.find_commit(id)?.time()?.seconds;
        seq -= 1;
        queue.push((time, seq, id));
        tracks.insert(id, track);
        Ok(())
    };
    push(
        &mut queue,
        &mut tracks,
        tip,
        Track {
            path: loc.git_path.clone(),
            span,
        },
    )?;

    let mut commits = Vec::new();
    let mut truncated = false;
    if let Some(d) = deleted {
        let time = repo.find_commit(d)?.time()?.seconds;
        if since.is_none_or(|s| time >= s) {
            commits.push(commit_info(repo, d, req.detail, None)?);
        }
    }
    while let Some((time, _, id)) = queue.pop() {
        if !done.insert(id) {
            continue;
        }
        let Some(track) = tracks.get(&id).cloned() else {
            continue;
        };
        if since.is_some_and(|s| time < s) {
            continue;
        }
        let Some(blob) = blob_at(repo, id, &track.path)? else {
            continue;
        };
        let parents: Vec<ObjectId> = repo
            .find_commit(id)?
            .parent_ids()
            .map(|p| p.detach())
            .collect();
        let mut parent_blobs = Vec::with_capacity(parents.len());
        for &p in &parents {
            parent_blobs.push(blob_at(repo, p, &track.path)?);
        }
        let new_data = if track.span.is_some() {
            blob_data(repo, blob)?
        } else {
            Vec::new()
        };
        let mut listed = parents.is_empty();
        for (i, &p) in parents.iter().enumerate() {
            if parent_blobs[i] == Some(blob) {
                push(&mut queue, &mut tracks, p, track.clone())?;
                continue;
            }
            let (ppath, pblob) = match parent_blobs[i] {
                Some(b) => (track.path.clone(), Some(b)),
                None => match renamed_from(repo, p, id, &track.path)? {
                    Some(src) => {
                        let b = blob_at(repo, p, &src)?;
                        (src, b)
                    }
                    None => (track.path.clone(), None),
                },
            };
            let Some(pblob) = pblob else {
                // The file (or these lines) began here.
                listed = true;
                continue;
            };
            match track.span {
                None => {
                    listed = true;
                    push(
                        &mut queue,
                        &mut tracks,
                        p,
                        Track {
                            path: ppath,
                            span: None,
                        },
                    )?;
                }
                Some(span) => {
                    let h = hunks(&blob_data(repo, pblob)?, &new_data);
                    if touches(&h, span) {
                        listed = true;
                    }
                    if let Some(back) = map_back(&h, span) {
                        push(
                            &mut queue,
                            &mut tracks,
                            p,
                            Track {
                                path: ppath,
                                span: Some(back),
                            },
                        )?;
                    }
                }
            }
        }
        // Merges are walked through, not listed, as `git log --follow`
        // lists them: the commits on either side say what changed.
        if listed && parents.len() <= 1 {
            if commits.len() == limit {
                truncated = true;
                break;
            }
            let shown = (track.path != loc.git_path).then(|| track.path.clone());
            commits.push(commit_info(repo, id, req.detail, shown)?);
        }
    }
    let hint = truncated.then(|| {
        format!("the {limit} most recent commits shown: narrow with a line range or a since date, or raise the limit (at most {MAX_HISTORY})")
    });
    Ok(HistoryResult {
        path: loc.rel,
        start_line: range.map(|r| r.0),
        end_line: range.map(|r| r.1),
        commits,
        truncated,
        hint,
        redacted: 0,
        deleted_in: deleted.map(short_hash),
    })
}

/// Most commits walked back looking for a deleted file's last version.
const MAX_DELETED_WALK: usize = 50_000;

/// A file missing from `head`: its last committed version, newest first
/// by commit time, as `(commit, blob, the child commit that deleted it)`.
fn last_version(
    repo: &gix::Repository,
    head: ObjectId,
    path: &str,
) -> Result<Option<(ObjectId, ObjectId, ObjectId)>> {
    let walk = repo
        .rev_walk([head])
        .sorting(gix::revision::walk::Sorting::ByCommitTime(
            Default::default(),
        ))
        .all()?;
    // The child each commit was reached from: the deleting commit is the
    // last version's child.
    let mut child: HashMap<ObjectId, ObjectId> = HashMap::new();
    for info in walk.take(MAX_DELETED_WALK) {
        let info = info?;
        if let Some(blob) = blob_at(repo, info.id, path)? {
            return Ok(child.get(&info.id).map(|&c| (info.id, blob, c)));
        }
        for p in info.parent_ids.iter() {
            child.entry(*p).or_insert(info.id);
        }
    }
    Ok(None)
}

fn never_committed(rel: &str) -> anyhow::Error {
    UserError::with_code(
        ErrorCode::NotFound,
        format!("no such file: `{rel}`, on disk or in the repository's history"),
    )
    .hint("paths are relative to the project root; `repo-search search FILE_NAME` finds a file by its name")
    .agent("paths are relative to the project root; use find_symbol or search_keyword with a glob to find the right path")
    .into()
}

/// Which commit last changed each line of the file as committed at `HEAD`
/// (renames followed, like `git blame`). At most [`MAX_BLAME_LINES`] lines.
pub fn blame(root: &Path, req: &BlameRequest) -> Result<BlameResult> {
    let loc = locate(root, &req.path, false)?;
    let repo = &loc.repo;
    let Some(head_blob) = blob_at(repo, loc.head, &loc.git_path)? else {
        return Err(not_committed(&loc.rel));
    };
    let data = blob_data(repo, head_blob)?;
    // A binary file (by `read`'s and the index's rule) has no lines to
    // blame.
    if crate::source::is_binary(&data) {
        return Err(UserError::new(format!("`{}` is a binary file", loc.rel))
            .hint(
                "blame shows lines of text files; history lists the commits that touched any file",
            )
            .into());
    }
    let total = line_count(&data);
    if total == 0 {
        return Ok(BlameResult {
            path: loc.rel,
            start_line: 0,
            end_line: 0,
            total_lines: 0,
            commits: Vec::new(),
            lines: Vec::new(),
            truncated: false,
            hint: None,
            redacted: 0,
        });
    }
    // A range running past the end is cut to the file, as `read` does
    // (`1-600` of a 197-line file), and the answer says so.
    let past_end = req
        .end_line
        .filter(|&e| e > total && req.start_line.unwrap_or(1) <= total);
    let (start, wanted_end) = check_range(
        req.start_line.or(Some(1)),
        past_end.map_or(req.end_line, |_| Some(total)),
        total,
    )?
    .unwrap_or((1, total));
    let end = wanted_end.min(start + MAX_BLAME_LINES - 1);
    let truncated = end < wanted_end;
    let ranges = gix::blame::BlameRanges::from_one_based_inclusive_range(start as u32..=end as u32)
        .map_err(|_| bad_range(start, end, total))?;
    let options = gix::repository::blame_file::Options {
        diff_algorithm: None,
        ranges,
        since: None,
        rewrites: Some(Default::default()),
    };
    let outcome = repo
        .blame_file(loc.git_path.as_bytes().as_bstr(), loc.head, options)
        .with_context(|| format!("cannot blame `{}`", loc.rel))?;
    let mut commits: Vec<CommitInfo> = Vec::new();
    let mut index: HashMap<ObjectId, usize> = HashMap::new();
    let mut lines = Vec::new();
    for (entry, texts) in outcome.entries_with_lines() {
        let at = match index.get(&entry.commit_id) {
            Some(&i) => i,
            None => {
                let path = entry
                    .source_file_name
                    .as_ref()
                    .map(|p| p.to_str_lossy().into_owned())
                    .filter(|p| *p != loc.git_path);
                commits.push(commit_info(repo, entry.commit_id, false, path)?);
                index.insert(entry.commit_id, commits.len() - 1);
                commits.len() - 1
            }
        };
        for (k, t) in texts.iter().enumerate() {
            let text = t.to_str_lossy();
            lines.push(BlameLine {
                line: u64::from(entry.start_in_blamed_file) + k as u64 + 1,
                commit: at,
                text: text.trim_end_matches(['\n', '\r']).to_string(),
            });
        }
    }
    lines.sort_by_key(|l| l.line);
    let hint = match (truncated, past_end) {
        (true, _) => Some(format!(
            "lines {start}-{end} shown (at most {MAX_BLAME_LINES} per call): ask again from line {}",
            end + 1
        )),
        (false, Some(asked)) => Some(format!(
            "the file has {total} lines as last committed: lines {start}-{end} shown (asked up to {asked})"
        )),
        (false, None) => None,
    };
    Ok(BlameResult {
        path: loc.rel,
        start_line: start,
        end_line: end,
        total_lines: total,
        commits,
        lines,
        truncated,
        hint,
        redacted: 0,
    })
}

/// Commits [`recency`] reads from `HEAD` by default.
pub const RECENCY_COMMITS: usize = 300;
/// [`recency`] stops at commits this much older than `HEAD`'s.
pub const RECENCY_WINDOW_DAYS: i64 = 180;

/// When the project's files last changed: for each path the last
/// [`RECENCY_COMMITS`] first-parent commits from `HEAD` touched (within
/// [`RECENCY_WINDOW_DAYS`] of `HEAD`), its newest change, as a commit time
/// and as a count of first-parent commits since. Ages are measured from
/// `HEAD`, not the clock, so a ranking that uses them is the same tomorrow.
/// Empty without git history.
#[derive(Debug, Clone, Default)]
pub struct Recency {
    /// The commit it was read at (`None`: no git, or no commits).
    pub head: Option<ObjectId>,
    /// The newest commit time read (seconds since the epoch).
    newest: i64,
    /// Project-relative path → the newest commit time that touched it and
    /// how many first-parent commits lie between that one and `HEAD`.
    changed: HashMap<String, (i64, u32)>,
    /// Commits read.
    pub commits: usize,
}

impl Recency {
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty()
    }

    /// Paths with a known change.
    pub fn len(&self) -> usize {
        self.changed.len()
    }

    /// How old the last change of `path` (project-relative) is, when a
    /// commit read touched it: days before the newest commit, and
    /// first-parent commits before `HEAD` (0: `HEAD` changed it).
    pub fn age(&self, path: &str) -> Option<(f64, u32)> {
        self.changed
            .get(path)
            .map(|&(t, n)| ((self.newest - t).max(0) as f64 / 86_400.0, n))
    }
}

/// The commit `HEAD` points at in the repository holding `root`, if any:
/// what a cached [`Recency`] is keyed by.
pub fn head_commit(root: &Path) -> Option<ObjectId> {
    let repo = open_repo(root).ok()?;
    repo.head_id().ok().map(|id| id.detach())
}

/// Reads [`Recency`] for the project at `root` from at most `max_commits`
/// first-parent commits, by tree diffs (renames are an addition of the new
/// path). No repository, no commits, a shallow clone or any read error give
/// an empty answer: recency is a ranking hint, never a reason to fail.
pub fn recency(root: &Path, max_commits: usize) -> Recency {
    match read_recency(root, max_commits) {
        Ok(r) => r,
        Err(e) => {
            tracing::debug!("no recency for `{}`: {e:#}", root.display());
            Recency::default()
        }
    }
}

fn read_recency(root: &Path, max_commits: usize) -> Result<Recency> {
    let Ok(mut repo) = open_repo(root) else {
        return Ok(Recency::default());
    };
    let Ok(head) = repo.head_id().map(|id| id.detach()) else {
        return Ok(Recency::default());
    };
    if repo.is_shallow()? {
        return Ok(Recency {
            head: Some(head),
            ..Recency::default()
        });
    }
    let Some(workdir) = repo.workdir() else {
        return Ok(Recency::default());
    };
    // The project may be a directory inside the repository's worktree.
    let workdir = std::fs::canonicalize(workdir)?;
    let root = std::fs::canonicalize(root)?;
    let Ok(inside) = root.strip_prefix(&workdir) else {
        return Ok(Recency::default());
    };
    let mut prefix = inside
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    if !prefix.is_empty() {
        prefix.push('/');
    }
    repo.object_cache_size_if_unset(16 * 1024 * 1024);
    let kind = repo.object_hash();
    let mut out = Recency {
        head: Some(head),
        ..Recency::default()
    };
    let mut state = gix::diff::tree::State::default();
    let mut id = head;
    let mut cutoff = None;
    while out.commits < max_commits {
        let commit = repo.find_commit(id)?;
        let time = commit.time()?.seconds;
        let cut = *cutoff.get_or_insert(time - RECENCY_WINDOW_DAYS * 86_400);
        if time < cut {
            break;
        }
        out.newest = out.newest.max(time);
        let nth = out.commits as u32;
        out.commits += 1;
        let parent = commit.parent_ids().next().map(|p| p.detach());
        // A history's first commit (the import of the tree) is no recent
        // work, unless it is the only one: every file would be recent.
        if parent.is_none() && nth > 0 {
            break;
        }
        let tree = commit.tree()?;
        let old = match parent {
            Some(p) => repo.find_commit(p)?.tree()?.detach().data,
            None => Vec::new(),
        };
        let mut rec = gix::diff::tree::Recorder::default();
        gix::diff::tree(
            gix::objs::TreeRefIter::from_bytes(&old, kind),
            gix::objs::TreeRefIter::from_bytes(&tree.data, kind),
            &mut state,
            &repo.objects,
            &mut rec,
        )?;
        for change in rec.records {
            use gix::diff::tree::recorder::Change;
            let (mode, path) = match &change {
                Change::Addition {
                    entry_mode, path, ..
                }
                | Change::Modification {
                    entry_mode, path, ..
                } => (entry_mode, path),
                // A deleted file is not searched.
                Change::Deletion { .. } => continue,
            };
            if mode.is_tree() {
                continue;
            }
            let Some(rel) = path
                .to_str_lossy()
                .strip_prefix(prefix.as_str())
                .map(String::from)
            else {
                continue;
            };
            // Walking back, the first commit met is the newest change.
            out.changed.entry(rel).or_insert((time, nth));
        }
        match parent {
            Some(p) => id = p,
            None => break,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gix::diff::blob::Hunk;

    fn h(before: std::ops::Range<u32>, after: std::ops::Range<u32>) -> Hunk {
        Hunk { before, after }
    }

    #[test]
    fn a_start_past_the_end_says_so_not_that_the_range_is_reversed() {
        let msg = |s, e| {
            check_range(s, e, 772)
                .err()
                .and_then(|e| e.downcast::<UserError>().ok())
                .map(|u| u.message)
        };
        assert_eq!(
            msg(Some(900), None).as_deref(),
            Some("line 900 is past the end of the committed file (772 lines)")
        );
        assert!(msg(Some(9), Some(3)).is_some_and(|m| m.contains("reversed")));
        assert!(check_range(Some(3), None, 772).is_ok());
    }

    #[test]
    fn spans_map_back_through_hunks() {
        // Two lines inserted before the span: it moves up by two.
        let hs = [h(0..0, 0..2)];
        assert_eq!(map_back(&hs, (5, 8)), Some((3, 6)));
        assert!(!touches(&hs, (5, 8)));
        // A rewritten line inside the span: touched, mapped to the hunk.
        let hs = [h(4..5, 4..6)];
        assert!(touches(&hs, (3, 7)));
        assert_eq!(map_back(&hs, (3, 7)), Some((3, 6)));
        // Lines that were all inserted here did not exist before.
        let hs = [h(2..2, 2..5)];
        assert_eq!(map_back(&hs, (2, 5)), None);
    }
}
