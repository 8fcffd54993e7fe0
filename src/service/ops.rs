//! Operating the tool: `stats` — what every surface answered for this
//! project (from the log of [`crate::stats`]), with the index's size per
//! table and its vectors per model.

use anyhow::Result;
use serde::Serialize;

use super::Service;
use crate::error::{ErrorCode, UserError};
use crate::stats::{self, OpStats};

/// What `stats` covers.
#[derive(Debug, Clone, Default)]
pub struct StatsRequest {
    /// Only operations of the last `since` (`24h`, `30m`, `7d`); all the
    /// log keeps when `None`.
    pub since: Option<String>,
}

/// Figures per operation over the window, and the index's sizes.
#[derive(Debug, Clone, Serialize)]
pub struct StatsAnswer {
    /// The window asked for, as given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Operations in the window, and the oldest and newest (Unix ms).
    pub records: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_at_ms: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_at_ms: Option<i64>,
    /// Log lines that could not be read (a write cut short).
    #[serde(skip_serializing_if = "is_zero")]
    pub unreadable: usize,
    pub ops: Vec<OpStats>,
    /// Bytes per table; `None` without an index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sizes: Option<crate::store::Sizes>,
    /// Vectors per configured model.
    pub vectors: Vec<crate::status::EmbeddingCoverage>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Service {
    /// Latency figures per operation from the project's log, and what the
    /// index holds (sizes read from every page: about a second on the
    /// Linux kernel).
    pub fn stats(&self, req: &StatsRequest) -> Result<StatsAnswer> {
        let since_ms = match req.since.as_deref() {
            None => None,
            Some(s) => Some(stats::parse_since(s).ok_or_else(|| {
                UserError::with_code(
                    ErrorCode::InvalidArgument,
                    format!("`{s}` is not a time span"),
                )
                .hint("give a number with a unit: `90s`, `30m`, `24h`, `7d`, `2w`")
            })?),
        };
        let (records, unreadable) = stats::read(self.root(), since_ms.map(stats::window_start))?;
        let status = self.status(crate::status::StatusDepth {
            stale: false,
            sizes: true,
        })?;
        Ok(StatsAnswer {
            since: req.since.clone(),
            records: records.len(),
            first_at_ms: records.first().map(|r| r.at),
            last_at_ms: records.last().map(|r| r.at),
            unreadable,
            ops: stats::summarize(&records),
            sizes: status.status.sizes,
            vectors: status.status.embeddings,
        })
    }
}
