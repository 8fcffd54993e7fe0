//! The one integration-test binary: real binaries on real temp projects.

mod common;
mod daemon;
mod embed;
mod eval;
mod index_cli;
mod mcp;
mod parity;
