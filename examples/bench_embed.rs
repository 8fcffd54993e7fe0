//! Embedding benchmark (run by `scripts/bench-embed.sh`): throughput of the
//! full tier (MiniLM, in process) and the fast tier (potion) on the same real
//! chunks of an indexed tree, and brute-force top-k latency on synthetic
//! 384-d vectors. Optionally dumps the chunks and their vectors as JSONL for
//! the Python reference (`scripts/check-embeddings.sh`).
//!
//!     bench_embed --root TREE [--n 200] [--dump FILE] [--topk 10000,100000,1000000]
//!
//! Models come from the cache (`REPO_SEARCH_MODEL_CACHE`, else
//! `$REPO_SEARCH_HOME/models`).

#![allow(clippy::print_stdout)]

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use repo_search::embed::{self, Tier};
use repo_search::search::ChunkFilter;
use repo_search::search::semantic::SemanticIndex;
use repo_search::settings::EmbedSettings;
use repo_search::store::Store;

/// The same allocator as the shipped binaries, so the numbers are theirs.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Args {
    root: PathBuf,
    n: usize,
    dump: Option<PathBuf>,
    topk: Vec<usize>,
    batch: usize,
}

fn parse_args() -> Result<Args> {
    let mut a = Args {
        root: PathBuf::new(),
        n: 200,
        dump: None,
        topk: vec![10_000, 100_000, 1_000_000],
        batch: 16,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().with_context(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--root" => a.root = PathBuf::from(val()?),
            "--n" => a.n = val()?.parse()?,
            "--batch" => a.batch = val()?.parse()?,
            "--dump" => a.dump = Some(PathBuf::from(val()?)),
            "--topk" => {
                a.topk = val()?
                    .split(',')
                    .filter(|s| !s.is_empty())
                    .map(|s| s.parse())
                    .collect::<Result<_, _>>()?
            }
            other => bail!("unknown argument `{other}`"),
        }
    }
    Ok(a)
}

/// A deterministic pseudo-random generator (xorshift), so runs compare.
struct Rng(u64);
impl Rng {
    fn next_f32(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 40) as f32 / (1u64 << 24) as f32 - 0.5
    }
    fn unit(&mut self, dim: usize) -> Vec<f32> {
        let mut v: Vec<f32> = (0..dim).map(|_| self.next_f32()).collect();
        embed::l2_normalize(&mut v);
        v
    }
}

fn main() -> Result<()> {
    let a = parse_args()?;
    let settings = EmbedSettings {
        batch_size: a.batch,
        ..EmbedSettings::defaults()
    };

    if !a.root.as_os_str().is_empty() {
        let root = a
            .root
            .canonicalize()
            .with_context(|| format!("no tree `{}`", a.root.display()))?;
        let store = Store::open_ro(&root)?
            .context("the tree has no index: run `repo-search index --no-embed` first")?;
        // Every chunk is "pending" for a model id nobody uses; take the
        // first N by id (deterministic), skipping tiny and huge ones.
        let mut all = store.pending_embeddings("bench:none")?;
        all.sort_by_key(|p| p.chunk_id);
        let ids: Vec<i64> = all
            .iter()
            .filter(|p| (300..=3000).contains(&p.len))
            .take(a.n)
            .map(|p| p.chunk_id)
            .collect();
        let chunks = store.chunk_sources(&ids)?;
        let mut sources = repo_search::source::Sources::new(&root);
        let inputs: Vec<String> = chunks
            .iter()
            .filter_map(|c| {
                let text = sources.chunk(&c.path, &c.span)?;
                Some(embed::chunk_input(
                    &c.path,
                    c.symbol.as_deref(),
                    c.kind.as_deref(),
                    text,
                    c.span.start_byte,
                ))
            })
            .collect();
        let refs: Vec<&str> = inputs.iter().map(String::as_str).collect();
        println!("chunks: {} from `{}`", refs.len(), root.display());

        let mut dumped: Vec<(Tier, Vec<Vec<f32>>)> = Vec::new();
        for tier in [Tier::Full, Tier::Fast] {
            let Some(spec) = embed::tier_spec(&settings, tier) else {
                continue;
            };
            let t = Instant::now();
            let model = embed::open(&settings, &spec)?;
            let load = t.elapsed().as_secs_f64();
            let tokens: usize = match tier {
                Tier::Full => embed::bert::BertEmbedder::load(
                    spec.dir.as_deref().context("no dir")?,
                    &spec.model_id,
                    a.batch,
                )?
                .count_tokens(&refs)?
                .iter()
                .sum(),
                Tier::Fast => 0,
            };
            // Warm up once (allocations, page cache), then measure.
            model.embed(&refs[..refs.len().min(4)])?;
            let t = Instant::now();
            let vecs = model.embed(&refs)?;
            let secs = t.elapsed().as_secs_f64();
            let rate = refs.len() as f64 / secs;
            let tok = if tokens > 0 {
                format!(", {:.0} tokens/s ({} tokens)", tokens as f64 / secs, tokens)
            } else {
                String::new()
            };
            println!(
                "{:4} {:40} {:8.1} chunks/s{tok}  [load {:.2}s, batch {}]",
                tier.name(),
                model.model_id(),
                rate,
                load,
                model.batch_size()
            );
            dumped.push((tier, vecs));
        }
        if let Some(path) = &a.dump {
            let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
            for (i, c) in inputs.iter().enumerate() {
                let mut row = serde_json::json!({"text": c});
                for (tier, vecs) in &dumped {
                    row[tier.name()] = serde_json::json!(vecs[i]);
                }
                writeln!(f, "{row}")?;
            }
            println!("dumped {} chunks to `{}`", inputs.len(), path.display());
        }
    }

    // Top-10 over n synthetic unit vectors, two ways, interleaved per
    // query: the exact f32 scan the index used to run (reference), and the
    // index as shipped (int8 scan of the stored codes + re-score of its
    // candidates with the f32 query). Random vectors are a hard case for
    // int8: every score sits near 0, so near-ties abound.
    let filter = ChunkFilter::default();
    let mut rng = Rng(0x9E3779B97F4A7C15);
    for &n in &a.topk {
        for dim in [256usize, 384] {
            let rows: Vec<(i64, String, Vec<f32>)> = (0..n)
                .map(|i| (i as i64, format!("src/f{}.rs", i / 50), rng.unit(dim)))
                .collect();
            let flat: Vec<f32> = rows.iter().flat_map(|r| r.2.iter().copied()).collect();
            let index = SemanticIndex::from_rows("bench", dim, rows);
            let queries: Vec<Vec<f32>> = (0..21).map(|_| rng.unit(dim)).collect();
            let (mut t_ref, mut t_new) = (Vec::new(), Vec::new());
            let (mut same, mut overlap) = (0, 0);
            for q in &queries {
                let t = Instant::now();
                let exact = reference_top10(&flat, dim, q);
                t_ref.push(t.elapsed().as_secs_f64() * 1000.0);
                let t = Instant::now();
                let top = index.top_k(q, &filter, 10, None, &|_, _| false);
                t_new.push(t.elapsed().as_secs_f64() * 1000.0);
                same += usize::from(top.iter().map(|t| t.0).eq(exact.iter().copied()));
                overlap += exact
                    .iter()
                    .filter(|id| top.iter().any(|t| t.0 == **id))
                    .count();
            }
            let med = |v: &mut Vec<f64>| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            };
            let (r, nw) = (med(&mut t_ref), med(&mut t_new));
            println!(
                "top-10 over {n:>8} x {dim}: f32 scan p50 {r:.2} ms ({:.0} MiB) | shipped {nw:.2} ms, {:.2}x \
                 ({:.0} MiB), same top-10 {same}/{}, exact top-10 ids found {overlap}/{}",
                (n * dim * 4) as f64 / 1048576.0,
                r / nw,
                index.memory_bytes() as f64 / 1048576.0,
                queries.len(),
                queries.len() * 10,
            );
        }
    }
    Ok(())
}

/// The exact top-10 row ids by f32 dot product (ties: lower id), as the
/// index computed them before int8 codes.
fn reference_top10(flat: &[f32], dim: usize, q: &[f32]) -> Vec<i64> {
    let mut best: Vec<(f32, i64)> = Vec::with_capacity(11);
    for (row, v) in flat.chunks_exact(dim).enumerate() {
        let s = repo_search::search::semantic::dot(q, v);
        if best.len() == 10 && s <= best[9].0 {
            continue;
        }
        let pos = best.partition_point(|b| b.0 > s || (b.0 == s && b.1 < row as i64));
        best.insert(pos, (s, row as i64));
        best.truncate(10);
    }
    best.into_iter().map(|b| b.1).collect()
}
