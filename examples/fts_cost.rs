//! Times the full-text arms' FTS5 work on an index and checks the term
//! cache against FTS5: `cargo run --release --example fts_cost -- ROOT
//! "question" ...` prints, per question and expression (BM25's OR of
//! words, the synonym arm's), the matching rows, the posting walk alone
//! (`count(*)`), the ranked query through FTS5 (`bm25_topk`), the same
//! through a term cache, cold (a new cache) and warm, in ms (median of 9),
//! and whether both give the same rows with the same scores.

#![allow(clippy::print_stdout)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use repo_search::store::{Store, TermCache};

fn median_ms(mut f: impl FnMut()) -> f64 {
    let mut v: Vec<f64> = (0..9)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64() * 1000.0
        })
        .collect();
    v.sort_by(f64::total_cmp);
    v[4]
}

type Ranked = Vec<(i64, String, u32, u64)>;

fn ranked(store: &Store, expr: &str, k: usize) -> anyhow::Result<Ranked> {
    let mut out = Vec::new();
    store.fts_chunks(expr, (1.0, 10.0, 3.0), k, |r| {
        out.push((
            r.chunk_id,
            r.path.to_string(),
            r.start_line,
            r.score.to_bits(),
        ))
    })?;
    Ok(out)
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(args.next().unwrap_or_else(|| ".".into()));
    let open = || -> anyhow::Result<Store> {
        Store::open_ro(&root)?.ok_or_else(|| anyhow::anyhow!("no index under {}", root.display()))
    };
    let plain = open()?;
    let cache = Arc::new(TermCache::new());
    let warm = open()?.with_term_cache(Arc::clone(&cache));
    let mut differ = 0;
    for q in args {
        for (name, expr, k) in [
            ("bm25", repo_search::text::fts_query(&q), 220),
            ("synonym", repo_search::text::fts_synonyms(&q), 100),
        ] {
            let Some(expr) = expr else { continue };
            let rows = plain.fts_count_upto(&expr, usize::MAX >> 1)?;
            let walk = median_ms(|| {
                let _ = plain.fts_count_upto(&expr, usize::MAX >> 1);
            });
            let fts = median_ms(|| {
                let _ = ranked(&plain, &expr, k);
            });
            let cold = median_ms(|| {
                let fresh = open().map(|s| s.with_term_cache(Arc::new(TermCache::new())));
                if let Ok(s) = fresh {
                    let _ = ranked(&s, &expr, k);
                }
            });
            let hot = median_ms(|| {
                let _ = ranked(&warm, &expr, k);
            });
            let same = ranked(&plain, &expr, k)? == ranked(&warm, &expr, k)?;
            if !same {
                differ += 1;
            }
            let phrases = expr.matches(" OR ").count() + 1;
            println!(
                "{q:42} {name:8} phrases {phrases:3} rows {rows:6} walk {walk:6.2} fts {fts:6.2} cached cold {cold:6.2} warm {hot:6.2} ms {}",
                if same { "same" } else { "DIFFERENT" }
            );
        }
    }
    println!("{differ} expressions ranked differently");
    Ok(())
}
