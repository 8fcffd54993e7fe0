//! The cost of secret redaction on answers: the same requests through two
//! warm services over one existing index, redaction on and off, interleaved
//! (the order alternates each round), reporting the median latency of each
//! and, measured directly, the time the redactor itself takes on the
//! answers' text. Reads the index only (`Policy::AsIs`): it never writes.
//!
//! ```text
//! cargo run --release --example redaction_bench -- ROOT [ROUNDS]
//! ```

#![allow(clippy::print_stdout, clippy::print_stderr, clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use repo_search::redact::Redactor;
use repo_search::search::keyword::KeywordRequest;
use repo_search::service::{Mode, OnBadConfig, Policy, SearchRequest, Service};
use repo_search::settings::{Overrides, Settings};

const QUERIES: [&str; 12] = [
    "where is the csrf token validated",
    "SECRET_KEY",
    "password hasher iterations",
    "send an email to the site admins",
    "database connection url with password",
    "get_object_or_404",
    "cache a property on the instance",
    "\"api_key\"",
    "session cookie signing",
    "validate_email",
    "parse the http accept language header",
    "token generator for password reset",
];

fn service(root: &Path, redact: bool) -> Service {
    let over = Overrides {
        redact: Some(redact),
        ..Overrides::default()
    };
    let settings = Settings::resolve(root.to_path_buf(), &over).unwrap();
    Service::new(settings, None, Policy::AsIs, OnBadConfig::UseDefaults)
}

/// One kind of request: the service and a query → values redacted.
type Call = Box<dyn Fn(&Service, &str) -> usize>;

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let root = PathBuf::from(args.next().expect("ROOT"))
        .canonicalize()
        .unwrap();
    let rounds: usize = args.next().and_then(|r| r.parse().ok()).unwrap_or(15);
    let on = service(&root, true);
    let off = service(&root, false);
    let kinds: [(&str, Call); 3] = [
        (
            "search (hybrid)",
            Box::new(|s: &Service, q: &str| {
                s.search(&SearchRequest::new(q, Mode::Hybrid))
                    .unwrap()
                    .redacted
            }),
        ),
        (
            "search (bm25)",
            Box::new(|s: &Service, q: &str| {
                s.search(&SearchRequest::new(q, Mode::Bm25))
                    .unwrap()
                    .redacted
            }),
        ),
        (
            "keyword",
            Box::new(|s: &Service, q: &str| {
                let word = q.trim_matches('"').split_whitespace().next().unwrap_or("x");
                let req = KeywordRequest {
                    patterns: vec![word.to_string()],
                    max_results: Some(200),
                    ..KeywordRequest::default()
                };
                s.keyword(&req, &[]).unwrap().redacted
            }),
        ),
    ];
    for (name, call) in &kinds {
        // Warm both (vector matrix, query model, page cache).
        for q in QUERIES {
            call(&on, q);
            call(&off, q);
        }
        let (mut t_on, mut t_off) = (Vec::new(), Vec::new());
        let mut redacted = 0;
        for round in 0..rounds {
            for q in QUERIES {
                let timed = |svc: &Service, out: &mut Vec<Duration>| {
                    let t = Instant::now();
                    let n = call(svc, q);
                    out.push(t.elapsed());
                    n
                };
                if round % 2 == 0 {
                    redacted += timed(&on, &mut t_on);
                    timed(&off, &mut t_off);
                } else {
                    timed(&off, &mut t_off);
                    redacted += timed(&on, &mut t_on);
                }
            }
        }
        let (m_on, m_off) = (median(&mut t_on), median(&mut t_off));
        println!(
            "{name:16} median on {:7.2} ms  off {:7.2} ms  (on-off {:+.3} ms; {} calls each, {} values redacted per round)",
            m_on.as_secs_f64() * 1e3,
            m_off.as_secs_f64() * 1e3,
            (m_on.as_secs_f64() - m_off.as_secs_f64()) * 1e3,
            t_on.len(),
            redacted / rounds
        );
    }
    // The redactor alone, on the text of unredacted answers.
    let mut spent = Vec::new();
    let mut lines = 0usize;
    for q in QUERIES {
        let mut a = off.search(&SearchRequest::new(q, Mode::Hybrid)).unwrap();
        let t = Instant::now();
        let mut red = Redactor::new(&root, true);
        for h in &mut a.hits {
            lines += h.snippet.lines().count();
            red.lines(&h.path, u64::from(h.snippet_line), &mut h.snippet);
        }
        spent.push(t.elapsed());
    }
    let total: Duration = spent.iter().sum();
    println!(
        "redactor alone on {} hybrid answers ({lines} snippet lines): median {:.1} µs per answer, {:.2} µs per line",
        QUERIES.len(),
        median(&mut spent).as_secs_f64() * 1e6,
        total.as_secs_f64() * 1e6 / lines.max(1) as f64
    );
}
