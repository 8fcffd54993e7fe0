//! Fixture tests for extraction across languages (filled in below).
use super::*;

/// Prints what extraction finds in the file named by `REPO_SEARCH_DUMP`
/// (a development aid: `REPO_SEARCH_DUMP=x.rs cargo test --release --lib
/// extract::tests::dump -- --ignored --nocapture`).
#[test]
#[ignore = "development aid, needs REPO_SEARCH_DUMP"]
fn dump() {
    let Ok(path) = std::env::var("REPO_SEARCH_DUMP") else {
        return;
    };
    let text = std::fs::read_to_string(&path).expect("REPO_SEARCH_DUMP is readable");
    let lang = crate::lang::detect_lang(std::path::Path::new(&path)).expect("known language");
    let lang = crate::lang::refine_lang(lang, &text);
    let x = Extractor::new()
        .extract(&path, &text, lang)
        .expect("extracts");
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
}
