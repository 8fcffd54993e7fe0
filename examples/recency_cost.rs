//! Times `history::recency` on a repository: `cargo run --release --example
//! recency_cost -- PATH [COMMITS]` prints the commits and paths read and the
//! milliseconds taken (best of five runs).

#![allow(clippy::print_stdout)]

use std::path::PathBuf;
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(args.next().unwrap_or_else(|| ".".into()));
    let commits: usize = match args.next() {
        Some(n) => n.parse()?,
        None => repo_search::history::RECENCY_COMMITS,
    };
    let mut best = f64::MAX;
    let mut last = None;
    for _ in 0..5 {
        let t = Instant::now();
        let r = repo_search::history::recency(&root, commits);
        best = best.min(t.elapsed().as_secs_f64() * 1000.0);
        last = Some(r);
    }
    let t = Instant::now();
    let head = repo_search::history::head_commit(&root);
    let head_ms = t.elapsed().as_secs_f64() * 1000.0;
    if let Some(r) = last {
        println!(
            "{}: {} commits, {} paths, {best:.1} ms (best of 5); HEAD lookup {head_ms:.2} ms ({})",
            root.display(),
            r.commits,
            r.len(),
            head.map(|h| h.to_string()).unwrap_or_default()
        );
    }
    Ok(())
}
