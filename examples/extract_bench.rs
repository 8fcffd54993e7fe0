//! Extraction throughput over a real tree, on one thread: every file of a
//! known language under DIR (no ignore files), read first, then extracted.
//!
//!     cargo run --release --example extract_bench -- DIR

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::disallowed_methods)]

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use repo_search::extract::Extractor;
use repo_search::lang::{detect_lang, refine_lang};

/// The same allocator as the shipped binaries, so the numbers are theirs.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(root), None) = (args.next(), args.next()) else {
        bail!("usage: extract_bench DIR");
    };
    let mut files = Vec::new();
    let mut dirs = vec![PathBuf::from(root)];
    while let Some(dir) = dirs.pop() {
        let entries =
            std::fs::read_dir(&dir).with_context(|| format!("cannot read `{}`", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if let Some(lang) = detect_lang(&path)
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                files.push((
                    path.to_string_lossy().into_owned(),
                    refine_lang(lang, &text),
                    text,
                ));
            }
        }
    }
    let bytes: usize = files.iter().map(|f| f.2.len()).sum();
    let mut extractor = Extractor::new();
    let (mut symbols, mut refs, mut chunks, mut failed) = (0, 0, 0, 0);
    let started = Instant::now();
    for (path, lang, text) in &files {
        match extractor.extract(path, text, *lang) {
            Ok(x) => {
                symbols += x.symbols.len();
                refs += x.refs.len();
                chunks += x.chunks.len();
            }
            Err(e) => {
                failed += 1;
                eprintln!("{path}: {e}");
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{} files, {:.1} MB in {secs:.2} s on one thread: {:.0} files/s, {:.1} MB/s; {symbols} symbols, {refs} refs, {chunks} chunks, {failed} failed",
        files.len(),
        bytes as f64 / 1e6,
        files.len() as f64 / secs,
        bytes as f64 / 1e6 / secs
    );
    Ok(())
}
