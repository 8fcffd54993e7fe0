//! Extraction throughput over a real tree, on one thread: every file of a
//! known language under DIR (no ignore files) up to the index's default
//! `index.max_file_size`, read first, then extracted.
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
                && entry
                    .metadata()
                    .is_ok_and(|m| m.len() <= repo_search::settings::DEFAULT_MAX_FILE_SIZE)
                && let Ok(text) = std::fs::read_to_string(&path)
            {
                files.push((
                    path.to_string_lossy().into_owned(),
                    refine_lang(lang, &path.to_string_lossy(), &text),
                    text,
                ));
            }
        }
    }
    let bytes: usize = files.iter().map(|f| f.2.len()).sum();
    let mut extractor = Extractor::new();
    let (mut symbols, mut refs, mut chunks, mut failed) = (0, 0, 0, 0);
    let mut times = Vec::with_capacity(files.len());
    let started = Instant::now();
    for (path, lang, text) in &files {
        let one = Instant::now();
        let res = extractor.extract(path, text, *lang);
        times.push((one.elapsed().as_secs_f64(), path.as_str(), text.len()));
        match res {
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
    // Where the time goes: the slowest files, and the share of the slowest
    // 1% and 5% (a few pathological files, or spread evenly?).
    times.sort_by(|a, b| b.0.total_cmp(&a.0));
    let total: f64 = times.iter().map(|t| t.0).sum();
    for pct in [1, 5, 20] {
        let n = (times.len() * pct).div_ceil(100);
        let share: f64 = times.iter().take(n).map(|t| t.0).sum::<f64>() / total.max(1e-9);
        let kb: usize = times.iter().take(n).map(|t| t.2).sum::<usize>() / 1024;
        println!(
            "slowest {pct}% ({n} files, {kb} KiB): {:.1}% of the time",
            share * 100.0
        );
    }
    for (secs, path, len) in times.iter().take(15) {
        println!(
            "{:8.1} ms  {:7} KiB  {:6.0} KiB/s  {path}",
            secs * 1e3,
            len / 1024,
            *len as f64 / 1024.0 / secs.max(1e-9)
        );
    }
    Ok(())
}
