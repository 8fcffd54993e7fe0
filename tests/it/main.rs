//! The one integration-test binary: real binaries on real temp projects.

// Tests and their helpers may print (skip notes, diffs) and unwrap.
#![allow(clippy::print_stderr, clippy::print_stdout, clippy::unwrap_used)]

mod common;
mod context;
mod daemon;
mod embed;
mod eval;
mod faults;
mod frames;
mod fssafe;
mod fulltier;
mod graph;
mod history;
mod imports;
mod index_cli;
mod languages;
mod mcp;
mod ngram;
mod ops;
mod parity;
mod recency;
mod redact;
mod trust;
