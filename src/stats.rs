//! Owns the operation log behind `stats`: one line per answered operation
//! (which, how long, whether it failed, whether a cache answered it, which
//! surface), appended to `.repo_search/stats.log` by whichever process
//! answered it — the CLI, the MCP server, the daemon — so their figures add
//! up, and the summary of a window of it (count, errors, P50/P95/P99, cache
//! hit rate per operation). Does not time anything itself (the service
//! does) and never fails an operation: a record that cannot be written is
//! dropped with a debug log.
//!
//! **Bounded**: past [`ROTATE_AT`] bytes the log is renamed to
//! `stats.log.1`, replacing the older one, so the two hold the last
//! ~20,000 operations at most. Appends are single `write`s of one line
//! (`O_APPEND`), so concurrent processes never interleave within a line.
//! Like everything in the index directory, the logs are opened without
//! following symlinks and only as regular files.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub const LOG_FILE: &str = "stats.log";
pub const OLD_LOG_FILE: &str = "stats.log.1";
/// A log is set aside once it is this large (about 10,000 records).
const ROTATE_AT: u64 = 1 << 20;
/// Records between two checks that the open log is still the current one
/// (another process may have set it aside) and not too large.
const CHECK_EVERY: u32 = 64;

/// Which surface answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Surface {
    Cli,
    Mcp,
    Daemon,
}

/// One answered operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// Unix time in milliseconds when the answer was ready.
    pub at: i64,
    /// `search.hybrid`, `symbol`, `index`, ...
    pub op: String,
    /// How long it took, in milliseconds.
    pub ms: f64,
    pub ok: bool,
    /// `Some(true)` when a cache answered, `Some(false)` when it was
    /// asked and missed; `None` when no cache was asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<bool>,
    pub by: Surface,
}

/// Appends records for one process (see the module doc).
pub struct Recorder {
    root: PathBuf,
    by: Surface,
    /// `REPO_SEARCH_NO_STATS` was set: nothing is logged.
    off: bool,
    open: Mutex<Option<OpenLog>>,
}

struct OpenLog {
    file: File,
    /// The inode opened, to notice the log was set aside since.
    id: (u64, u64),
    writes: u32,
}

impl Recorder {
    pub fn new(root: &Path, by: Surface) -> Recorder {
        let off = std::env::var(crate::settings::env::NO_STATS)
            .is_ok_and(|v| matches!(v.trim(), "1" | "true" | "yes"));
        Recorder {
            root: root.to_path_buf(),
            by,
            off,
            open: Mutex::new(None),
        }
    }

    /// Records one operation; never fails (see the module doc).
    pub fn record(&self, op: &str, took: Duration, ok: bool, cache: Option<bool>) {
        if self.off {
            return;
        }
        let rec = Record {
            at: now_ms(),
            op: op.to_string(),
            ms: (took.as_secs_f64() * 1e6).round() / 1e3,
            ok,
            cache,
            by: self.by,
        };
        let Ok(mut line) = serde_json::to_string(&rec) else {
            return;
        };
        line.push('\n');
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(e) = self.append(&mut open, line.as_bytes()) {
            tracing::debug!("stats: record not written: {e:#}");
            *open = None;
        }
    }

    fn append(&self, open: &mut Option<OpenLog>, line: &[u8]) -> anyhow::Result<()> {
        let due = open.as_ref().is_none_or(|o| o.writes % CHECK_EVERY == 0);
        if due {
            let Some(dir) =
                crate::store::index_dir_checked(&self.root, crate::store::DirUse::Read)?
            else {
                // No index yet: nothing to add figures to.
                *open = None;
                return Ok(());
            };
            let path = dir.join(LOG_FILE);
            if let Ok(md) = std::fs::symlink_metadata(&path)
                && md.is_file()
                && md.len() >= ROTATE_AT
            {
                // Whoever sees it first sets it aside; a second rename of
                // the new log by a racing process only loses a few records.
                let _ = std::fs::rename(&path, dir.join(OLD_LOG_FILE));
            }
            let current = std::fs::symlink_metadata(&path).ok().map(|m| meta_id(&m));
            if open.as_ref().is_none_or(|o| Some(o.id) != current) {
                let file = crate::fs_safe::private_nofollow()
                    .append(true)
                    .create(true)
                    .open(&path)?;
                let md = file.metadata()?;
                if let Some(kind) = crate::fs_safe::special_kind(&md) {
                    anyhow::bail!("`{}` is {kind}", path.display());
                }
                *open = Some(OpenLog {
                    file,
                    id: meta_id(&md),
                    writes: 0,
                });
            }
        }
        if let Some(o) = open.as_mut() {
            o.file.write_all(line)?;
            o.writes = o.writes.wrapping_add(1);
        }
        Ok(())
    }
}

#[cfg(unix)]
fn meta_id(md: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (md.dev(), md.ino())
}

#[cfg(not(unix))]
fn meta_id(md: &std::fs::Metadata) -> (u64, u64) {
    (md.len(), 0)
}

/// Unix time in milliseconds.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The records of the project at `root` from `since_ms` on (all with
/// `None`), oldest first, and how many lines could not be read.
pub fn read(root: &Path, since_ms: Option<i64>) -> anyhow::Result<(Vec<Record>, usize)> {
    let Some(dir) = crate::store::index_dir_checked(root, crate::store::DirUse::Read)? else {
        return Ok((Vec::new(), 0));
    };
    let mut records = Vec::new();
    let mut bad = 0;
    for name in [OLD_LOG_FILE, LOG_FILE] {
        let path = dir.join(name);
        let mut file = match crate::fs_safe::private_nofollow().read(true).open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                return Err(
                    anyhow::Error::new(e).context(format!("cannot read `{}`", path.display()))
                );
            }
        };
        if let Some(kind) = crate::fs_safe::special_kind(&file.metadata()?) {
            anyhow::bail!("`{}` is {kind}", path.display());
        }
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        // A damaged byte costs its line, not the whole log.
        let text = String::from_utf8_lossy(&bytes);
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let record = serde_json::from_str::<Record>(line).or_else(|e| {
                // A record appended after a torn one (a writer killed
                // mid-line) shares its line: the torn part is lost.
                bad += 1;
                line.rfind("{\"at\":")
                    .filter(|&i| i > 0)
                    .map_or(Err(e), |i| serde_json::from_str::<Record>(&line[i..]))
            });
            if let Ok(r) = record
                && since_ms.is_none_or(|s| r.at >= s)
            {
                records.push(r);
            }
        }
    }
    records.sort_by_key(|r| r.at);
    Ok((records, bad))
}

/// Figures for one operation over a window.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OpStats {
    pub op: String,
    pub count: u64,
    pub errors: u64,
    pub p50_ms: f64,
    pub p95_ms: f64,
    pub p99_ms: f64,
    pub max_ms: f64,
    /// Answers a cache gave, out of `cache_lookups`.
    pub cache_hits: u64,
    pub cache_lookups: u64,
    /// Operations per surface: (`cli`, `mcp`, `daemon`).
    pub by: BySurface,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct BySurface {
    pub cli: u64,
    pub mcp: u64,
    pub daemon: u64,
}

/// Per operation, in name order.
pub fn summarize(records: &[Record]) -> Vec<OpStats> {
    let mut by_op: std::collections::BTreeMap<&str, Vec<&Record>> = Default::default();
    for r in records {
        by_op.entry(r.op.as_str()).or_default().push(r);
    }
    by_op
        .into_iter()
        .map(|(op, rs)| {
            let mut ms: Vec<f64> = rs.iter().map(|r| r.ms).collect();
            ms.sort_by(f64::total_cmp);
            let mut by = BySurface::default();
            for r in &rs {
                match r.by {
                    Surface::Cli => by.cli += 1,
                    Surface::Mcp => by.mcp += 1,
                    Surface::Daemon => by.daemon += 1,
                }
            }
            OpStats {
                op: op.to_string(),
                count: rs.len() as u64,
                errors: rs.iter().filter(|r| !r.ok).count() as u64,
                p50_ms: percentile(&ms, 0.50),
                p95_ms: percentile(&ms, 0.95),
                p99_ms: percentile(&ms, 0.99),
                max_ms: ms.last().copied().unwrap_or(0.0),
                cache_hits: rs.iter().filter(|r| r.cache == Some(true)).count() as u64,
                cache_lookups: rs.iter().filter(|r| r.cache.is_some()).count() as u64,
                by,
            }
        })
        .collect()
}

/// The nearest-rank median of `values` (0 when empty).
pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    percentile(&values, 0.5)
}

/// The nearest-rank percentile of ascending `sorted` (0 when empty).
fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = (p * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// A `--since` value: `90s`, `30m`, `24h`, `7d` (or a bare number of
/// seconds) as milliseconds.
pub fn parse_since(s: &str) -> Option<i64> {
    let s = s.trim();
    let (num, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => (&s[..i], &s[i..]),
        None => (s, "s"),
    };
    let n: i64 = num.parse().ok()?;
    let secs = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        "w" => 7 * 86_400,
        _ => return None,
    };
    n.checked_mul(secs * 1000)
}

/// The start of a window `since` long that ends now.
pub fn window_start(since_ms: i64) -> i64 {
    now_ms() - since_ms
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(op: &str, ms: f64, ok: bool, cache: Option<bool>, by: Surface) -> Record {
        Record {
            at: 1,
            op: op.into(),
            ms,
            ok,
            cache,
            by,
        }
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let ms: Vec<f64> = (1..=100).map(f64::from).collect();
        assert_eq!(percentile(&ms, 0.5), 50.0);
        assert_eq!(percentile(&ms, 0.95), 95.0);
        assert_eq!(percentile(&ms, 0.99), 99.0);
        assert_eq!(percentile(&[7.0], 0.99), 7.0);
        assert_eq!(percentile(&[], 0.5), 0.0);
    }

    #[test]
    fn summary_counts_errors_cache_and_surfaces() {
        let rs = vec![
            rec("symbol", 2.0, true, None, Surface::Cli),
            rec("symbol", 4.0, false, None, Surface::Mcp),
            rec("search.hybrid", 10.0, true, Some(true), Surface::Mcp),
            rec("search.hybrid", 30.0, true, Some(false), Surface::Mcp),
        ];
        let s = summarize(&rs);
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].op, "search.hybrid");
        assert_eq!((s[0].cache_hits, s[0].cache_lookups), (1, 2));
        assert_eq!(s[0].p50_ms, 10.0);
        assert_eq!(s[0].max_ms, 30.0);
        assert_eq!(s[1].errors, 1);
        assert_eq!(
            s[1].by,
            BySurface {
                cli: 1,
                mcp: 1,
                daemon: 0
            }
        );
    }

    #[test]
    fn since_takes_units() {
        assert_eq!(parse_since("90s"), Some(90_000));
        assert_eq!(parse_since("30m"), Some(1_800_000));
        assert_eq!(parse_since("24h"), Some(86_400_000));
        assert_eq!(parse_since("7d"), Some(604_800_000));
        assert_eq!(parse_since("15"), Some(15_000));
        for bad in ["", "h", "1y", "-5m", "1.5h"] {
            assert_eq!(parse_since(bad), None, "{bad}");
        }
    }

    /// A damaged byte or a torn line costs that line, not the log: a
    /// record appended after a torn one is still read.
    #[test]
    fn a_damaged_log_loses_only_its_damaged_lines() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir(root.join(crate::store::INDEX_DIR)).expect("index dir");
        let r = Recorder::new(root, Surface::Cli);
        r.record("symbol", Duration::from_millis(1), true, None);
        let log = root.join(crate::store::INDEX_DIR).join(LOG_FILE);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&log)
            .expect("log");
        f.write_all(b"{\"at\":1,\"op\":\"re\xff\xfe\"}\n{\"at\":2,\"op\":\"sea")
            .expect("write");
        drop(f);
        let r = Recorder::new(root, Surface::Cli);
        r.record("read", Duration::from_millis(3), true, None);
        let (got, bad) = read(root, None).expect("read");
        let ops: Vec<&str> = got.iter().map(|r| r.op.as_str()).collect();
        assert_eq!(ops, ["symbol", "read"]);
        assert_eq!(bad, 2);
    }

    #[test]
    fn records_round_trip_and_rotate() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir(root.join(crate::store::INDEX_DIR)).expect("index dir");
        let r = Recorder::new(root, Surface::Cli);
        r.record("symbol", Duration::from_micros(1500), true, None);
        r.record("read", Duration::from_millis(3), false, Some(false));
        let (got, bad) = read(root, None).expect("read");
        assert_eq!(bad, 0);
        assert_eq!(got.len(), 2);
        assert_eq!((got[0].op.as_str(), got[0].ms), ("symbol", 1.5));
        assert!(!got[1].ok);
        // A log past the limit is set aside, and both are read.
        let log = root.join(crate::store::INDEX_DIR).join(LOG_FILE);
        let f = std::fs::OpenOptions::new()
            .append(true)
            .open(&log)
            .expect("log");
        f.set_len(ROTATE_AT).expect("grow");
        drop(f);
        let r2 = Recorder::new(root, Surface::Mcp);
        r2.record("symbol", Duration::from_millis(1), true, None);
        let old = root.join(crate::store::INDEX_DIR).join(OLD_LOG_FILE);
        assert!(old.exists());
        let (got, bad) = read(root, None).expect("read");
        assert_eq!(got.len(), 3);
        assert!(bad >= 1, "the zero padding is one unreadable line");
    }

    #[test]
    fn a_planted_symlink_is_never_followed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir(root.join(crate::store::INDEX_DIR)).expect("index dir");
        let target = root.join("victim");
        std::fs::write(&target, "keep\n").expect("victim");
        #[cfg(unix)]
        std::os::unix::fs::symlink(&target, root.join(crate::store::INDEX_DIR).join(LOG_FILE))
            .expect("symlink");
        let r = Recorder::new(root, Surface::Cli);
        r.record("symbol", Duration::from_millis(1), true, None);
        assert_eq!(std::fs::read_to_string(&target).expect("victim"), "keep\n");
    }
}
