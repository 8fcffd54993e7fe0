//! Runs the secret redactor (`repo_search::redact`) over every file of one or
//! more trees, as `read_file` would show them, and prints how many values
//! each rule redacts with a sample of the lines, so a person can judge each
//! match (a real secret, a test fixture or documentation example of the
//! format, or a false positive).
//!
//! ```text
//! cargo run --example redaction_fp -- [--samples N] [--all] DIR...
//! ```
//!
//! Files are walked with ripgrep's rules (`.gitignore`, hidden files
//! skipped); binary files and files over 8 MiB are skipped.

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use repo_search::redact::{RULES, apply, find_in_line, key_block_bodies};

#[derive(Default)]
struct Tally {
    count: usize,
    samples: Vec<String>,
}

fn main() {
    let mut samples = 12usize;
    let mut all = false;
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--samples" => samples = args.next().and_then(|n| n.parse().ok()).unwrap_or(12),
            "--all" => all = true,
            _ => dirs.push(PathBuf::from(a)),
        }
    }
    if dirs.is_empty() {
        eprintln!("usage: redaction_fp [--samples N] [--all] DIR...");
        std::process::exit(2);
    }
    for dir in dirs {
        run(&dir, if all { usize::MAX } else { samples });
    }
}

fn run(root: &Path, samples: usize) {
    let started = Instant::now();
    let mut tally: BTreeMap<&'static str, Tally> = BTreeMap::new();
    let (mut files, mut lines, mut bytes) = (0usize, 0usize, 0usize);
    for entry in ignore::WalkBuilder::new(root).build().flatten() {
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let Ok(md) = path.metadata() else { continue };
        if md.len() > 8 << 20 {
            continue;
        }
        let Ok(data) = std::fs::read(path) else {
            continue;
        };
        if data[..data.len().min(8192)].contains(&0) {
            continue;
        }
        files += 1;
        bytes += data.len();
        let text = String::from_utf8_lossy(&data);
        let rel = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let blocks = key_block_bodies(&text);
        for (s, e) in &blocks {
            let t = tally.entry("private-key").or_default();
            t.count += 1;
            if t.samples.len() < samples {
                let first = text.lines().nth(*s as usize - 1).unwrap_or("");
                t.samples.push(format!(
                    "{rel}:{s}-{e}: block of {} lines, first `{}`",
                    e - s + 1,
                    cut(first, 60)
                ));
            }
        }
        for (i, line) in text.lines().enumerate() {
            lines += 1;
            let n = i as u64 + 1;
            if blocks.iter().any(|&(s, e)| s <= n && n <= e) {
                continue;
            }
            let found = find_in_line(line);
            if found.is_empty() {
                continue;
            }
            let shown = apply(line, &found);
            for f in &found {
                let t = tally.entry(f.rule).or_default();
                t.count += 1;
                if t.samples.len() < samples {
                    t.samples.push(format!(
                        "{rel}:{n}: value `{}` in: {}",
                        cut(&line[f.start..f.end], 80),
                        cut(shown.trim(), 160)
                    ));
                }
            }
        }
    }
    let took = started.elapsed();
    println!(
        "== {}: {files} files, {lines} lines, {:.1} MB in {:.2} s",
        root.display(),
        bytes as f64 / 1e6,
        took.as_secs_f64()
    );
    let total: usize = tally.values().map(|t| t.count).sum();
    println!("redacted values: {total}");
    for rule in RULES {
        let Some(t) = tally.get(rule) else {
            println!("  {rule:24} 0");
            continue;
        };
        println!("  {rule:24} {}", t.count);
        for s in &t.samples {
            println!("      {s}");
        }
    }
}

fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max).collect();
    out.push('…');
    out
}
