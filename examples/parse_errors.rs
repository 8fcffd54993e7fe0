//! Counts, per language, the files tree-sitter cannot parse without errors
//! under the given directories (a development aid for grammar work: such
//! files may lose definitions, see `extract::lang_rules::second_reading`).
//! `SHOW=1` lists them, `SEXP=1` prints every tree. Parse time and speed
//! are shown apart for files with and without errors.
//!
//!     cargo run --release --example parse_errors -- DIR_OR_FILE...

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::disallowed_methods)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use repo_search::lang::{detect_lang, grammar, refine_lang};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let Ok(ft) = e.file_type() else { continue };
        if ft.is_dir() && !path.ends_with(".repo_search") && !path.ends_with(".git") {
            walk(&path, out);
        } else if ft.is_file() {
            out.push(path);
        }
    }
}

/// Files, files with errors, and [bytes, parse seconds] of the files
/// without errors and of those with.
type Stats = (usize, usize, [(usize, f64); 2]);

fn main() {
    let show = std::env::var_os("SHOW").is_some();
    let mut stats: BTreeMap<&'static str, Stats> = BTreeMap::new();
    let mut parser = tree_sitter::Parser::new();
    for dir in std::env::args().skip(1) {
        let mut files = Vec::new();
        if Path::new(&dir).is_file() {
            files.push(PathBuf::from(&dir));
        } else {
            walk(Path::new(&dir), &mut files);
        }
        for f in files {
            let Some(lang) = detect_lang(&f) else {
                continue;
            };
            let Ok(text) = std::fs::read_to_string(&f) else {
                continue;
            };
            let lang = refine_lang(lang, &f.to_string_lossy(), &text);
            let Some(g) = grammar(lang) else { continue };
            if parser.set_language(&g.language).is_err() {
                eprintln!("{}: grammar does not load", lang.name());
                continue;
            }
            let started = std::time::Instant::now();
            let Some(tree) = parser.parse(&text, None) else {
                continue;
            };
            let seconds = started.elapsed().as_secs_f64();
            if std::env::var_os("SEXP").is_some() {
                println!("{}", tree.root_node().to_sexp());
            }
            let e = stats.entry(lang.name()).or_default();
            e.0 += 1;
            let cost = &mut e.2[usize::from(tree.root_node().has_error())];
            cost.0 += text.len();
            cost.1 += seconds;
            if tree.root_node().has_error() {
                e.1 += 1;
                if show {
                    println!("  {}", f.display());
                }
            }
        }
    }
    for (lang, (n, e, cost)) in stats {
        let rate = |(bytes, secs): (usize, f64)| bytes as f64 / 1048576.0 / secs.max(1e-9);
        println!(
            "{lang:12} files {n:6} with errors {e:5} ({:.1}%); parsed {:.1} s, {:.1} MiB/s without errors, {:.1} MiB/s with ({:.1} of {:.1} MiB)",
            100.0 * e as f64 / n.max(1) as f64,
            cost[0].1 + cost[1].1,
            rate(cost[0]),
            rate(cost[1]),
            cost[1].0 as f64 / 1048576.0,
            (cost[0].0 + cost[1].0) as f64 / 1048576.0,
        );
    }
}
