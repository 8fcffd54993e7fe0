//! Prints what extraction finds in one file: its symbols, references and
//! chunks (a development aid for the tags queries and the chunker).
//!
//!     cargo run --release --example extract_dump -- FILE

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::disallowed_methods)]

use std::path::Path;

use anyhow::{Context, Result, bail};
use repo_search::extract::Extractor;
use repo_search::lang::{detect_lang, refine_lang};

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let (Some(path), None) = (args.next(), args.next()) else {
        bail!("usage: extract_dump FILE");
    };
    let text = std::fs::read_to_string(&path).with_context(|| format!("cannot read `{path}`"))?;
    let lang = detect_lang(Path::new(&path))
        .with_context(|| format!("`{path}`: not a language repo-search knows"))?;
    let lang = refine_lang(lang, &path, &text);
    let x = Extractor::new()
        .extract(&path, &text, lang)
        .with_context(|| format!("cannot extract `{path}`"))?;
    for s in &x.symbols {
        println!(
            "sym {:?} {} container={:?} {}-{} name@{}:{} sig={:?}",
            s.name,
            s.kind,
            s.container,
            s.start_line,
            s.end_line,
            s.name_line,
            s.name_column,
            s.signature
        );
    }
    for r in &x.refs {
        println!("ref {} {} {}:{}", r.name, r.kind, r.line, r.column);
    }
    for c in &x.chunks {
        println!(
            "chunk {}-{} {:?} {:?} | {}",
            c.start_line,
            c.end_line,
            c.symbol,
            c.kind,
            c.text.lines().next().unwrap_or("")
        );
    }
    Ok(())
}
