//! The CLI and the MCP server answer the same search the same way: one
//! varied multi-language project, indexed once with vectors, ~20 queries
//! (identifiers, qualified names, natural language, a quoted phrase, glob,
//! language and scope filters, every mode) through `repo-search search
//! --json` and through a real MCP client calling `search` (and
//! `search_semantic` for semantic queries) on `repo-search mcp`. The ordered
//! `(path, start_line, end_line)` lists must be identical.
//!
//! Each surface has one extractor ([`cli_hits`], [`mcp_hits`]): when an
//! output shape changes, only those change.

use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::common::*;
use crate::mcp::{Era, Mcp, error_text, wait_indexed};

/// One hit as both surfaces must list it.
type Hit = (String, u64, u64);

/// What one surface answered: the ordered hits, or why there are none (a
/// tool error, a failed run, semantic search unavailable).
type Answer = Result<Vec<Hit>, String>;

/// One query and its options, given to every surface alike.
#[derive(Debug, Clone, Copy)]
struct Query {
    query: &'static str,
    /// `None`: the default (hybrid), not passed.
    mode: Option<&'static str>,
    glob: &'static [&'static str],
    lang: Option<&'static str>,
    scope: Option<&'static str>,
    /// `None`: each surface's default.
    limit: Option<u32>,
}

const fn q(query: &'static str) -> Query {
    Query {
        query,
        mode: None,
        glob: &[],
        lang: None,
        scope: None,
        limit: None,
    }
}

impl Query {
    const fn mode(self, mode: &'static str) -> Query {
        Query {
            mode: Some(mode),
            ..self
        }
    }
    const fn glob(self, glob: &'static [&'static str]) -> Query {
        Query { glob, ..self }
    }
    const fn lang(self, lang: &'static str) -> Query {
        Query {
            lang: Some(lang),
            ..self
        }
    }
    const fn scope(self, scope: &'static str) -> Query {
        Query {
            scope: Some(scope),
            ..self
        }
    }
    const fn limit(self, limit: u32) -> Query {
        Query {
            limit: Some(limit),
            ..self
        }
    }

    /// How the query reads on the command line (for messages).
    fn label(&self) -> String {
        let mut s = format!("{:?}", self.query);
        if let Some(m) = self.mode {
            let _ = write!(s, " --mode {m}");
        }
        for g in self.glob {
            let _ = write!(s, " -g '{g}'");
        }
        if let Some(l) = self.lang {
            let _ = write!(s, " --lang {l}");
        }
        if let Some(sc) = self.scope {
            let _ = write!(s, " --scope {sc}");
        }
        if let Some(n) = self.limit {
            let _ = write!(s, " --limit {n}");
        }
        s
    }

    fn cli_args(&self) -> Vec<String> {
        let mut a: Vec<String> = vec!["search".into(), self.query.into(), "--json".into()];
        if let Some(m) = self.mode {
            a.extend(["--mode".into(), m.into()]);
        }
        for g in self.glob {
            a.extend(["-g".into(), (*g).into()]);
        }
        if let Some(l) = self.lang {
            a.extend(["--lang".into(), l.into()]);
        }
        if let Some(sc) = self.scope {
            a.extend(["--scope".into(), sc.into()]);
        }
        if let Some(n) = self.limit {
            a.extend(["--limit".into(), n.to_string()]);
        }
        a
    }

    /// Arguments of the MCP `search` tool.
    fn mcp_search_args(&self) -> Value {
        let mut a = json!({"query": self.query});
        if let Some(m) = self.mode {
            a["mode"] = json!(m);
        }
        if !self.glob.is_empty() {
            a["glob"] = json!(self.glob);
        }
        if let Some(l) = self.lang {
            a["lang"] = json!(l);
        }
        if let Some(sc) = self.scope {
            a["scope"] = json!(sc);
        }
        if let Some(n) = self.limit {
            a["limit"] = json!(n);
        }
        a
    }

    /// Arguments of `search_semantic` (which has no `lang` or `scope`).
    fn mcp_semantic_args(&self) -> Value {
        assert!(
            self.lang.is_none() && self.scope.is_none(),
            "{}: search_semantic takes no lang or scope",
            self.label()
        );
        let mut a = json!({"query": self.query});
        if !self.glob.is_empty() {
            a["glob"] = json!(self.glob);
        }
        if let Some(n) = self.limit {
            a["limit"] = json!(n);
        }
        a
    }
}

const QUERIES: &[Query] = &[
    // Identifiers and qualified names, hybrid (the default).
    q("load_config"),
    q("HttpHandler"),
    q("Cache::get"),
    q("parse_args"),
    // Natural language.
    q("where is the config loaded"),
    q("how are requests retried"),
    q("evict the least recently used entry when the cache is full"),
    // A quoted phrase.
    q("\"max retries exceeded\""),
    // Filters.
    q("load_config").glob(&["*.py"]),
    q("cache entry expiry").glob(&["!**/tests/**", "!**/*_test.go"]),
    q("http request handler").lang("go"),
    q("how do I configure the server").scope("docs"),
    q("http handler routing").limit(3),
    q("config").limit(20),
    // BM25.
    q("parse command line arguments").mode("bm25"),
    q("retry backoff delay").mode("bm25").limit(5),
    q("cache").mode("bm25").lang("python"),
    // Semantic.
    q("read settings from environment variables").mode("semantic"),
    q("store values that expire after a while")
        .mode("semantic")
        .glob(&["*.ts"]),
    q("command line flags").mode("semantic").limit(3),
    // Symbol and keyword arms alone.
    q("HttpHandler").mode("symbol"),
    q("Cache::get").mode("symbol"),
    q("\"max retries exceeded\"").mode("keyword"),
    q("load_config").mode("keyword"),
];

// ---- extractors: the only code that knows each surface's output shape ----

/// `repo-search search --json`: hybrid, symbol and keyword modes print
/// `{mode, result: {hits}}`; bm25 and semantic print `{hits}`. Semantic
/// search that cannot answer prints `available: false` (exit status 1).
fn cli_hits(r: &Run) -> Answer {
    if r.code() > 1 {
        return Err(format!("exit {}: {}", r.code(), r.stderr().trim()));
    }
    let v: Value = serde_json::from_str(&r.stdout())
        .unwrap_or_else(|e| panic!("bad JSON from the CLI: {e}\n{r}"));
    if v["available"] == false {
        return Err(format!(
            "unavailable: {}",
            v["reason"].as_str().unwrap_or("?")
        ));
    }
    let hits = if v["result"].is_object() {
        &v["result"]["hits"]
    } else {
        &v["hits"]
    };
    Ok(hit_list(hits))
}

/// An MCP `search` or `search_semantic` answer: `structuredContent.hits`;
/// a tool error or `available: false` has none.
fn mcp_hits(r: &rmcp::model::CallToolResult) -> Answer {
    if r.is_error == Some(true) {
        return Err(format!("tool error: {}", error_text(r)));
    }
    let v = r
        .structured_content
        .as_ref()
        .unwrap_or_else(|| panic!("no structuredContent: {}", error_text(r)));
    if v["available"] == false {
        return Err(format!(
            "unavailable: {}",
            v["reason"].as_str().unwrap_or("?")
        ));
    }
    Ok(hit_list(&v["hits"]))
}

/// Full hits give `path`, `start_line`, `end_line`; the MCP tools' compact
/// hits (their default) give `at`: `path:start-end`.
fn hit_list(hits: &Value) -> Vec<Hit> {
    hits.as_array()
        .unwrap_or_else(|| panic!("no hits array: {hits}"))
        .iter()
        .map(|h| {
            if let Some(at) = h["at"].as_str() {
                let (path, span) = at.rsplit_once(':').unwrap_or((at, "0-0"));
                let (s, e) = span.split_once('-').unwrap_or(("0", "0"));
                return (
                    path.to_string(),
                    s.parse().unwrap_or(0),
                    e.parse().unwrap_or(0),
                );
            }
            (
                h["path"].as_str().unwrap_or("?").to_string(),
                h["start_line"].as_u64().unwrap_or(0),
                h["end_line"].as_u64().unwrap_or(0),
            )
        })
        .collect()
}

// ---- the comparison ----

fn show(a: &Answer) -> String {
    match a {
        Err(e) => format!("      {e}\n"),
        Ok(hits) if hits.is_empty() => "      (no hits)\n".into(),
        Ok(hits) => hits
            .iter()
            .enumerate()
            .map(|(i, (p, s, e))| format!("      {:>2}. {p}:{s}-{e}\n", i + 1))
            .collect(),
    }
}

/// A readable account of how `b` differs from `a`, or `None` if equal.
fn diff(a_name: &str, a: &Answer, b_name: &str, b: &Answer) -> Option<String> {
    if a == b {
        return None;
    }
    let mut out = String::new();
    if let (Ok(x), Ok(y)) = (a, b) {
        let first = x.iter().zip(y).position(|(p, q)| p != q);
        let _ = match first {
            Some(i) => writeln!(
                out,
                "    first difference at rank {} ({} vs {} hits)",
                i + 1,
                x.len(),
                y.len()
            ),
            None => writeln!(
                out,
                "    same first {} hits, then {} vs {} hits",
                x.len().min(y.len()),
                x.len(),
                y.len()
            ),
        };
    }
    let _ = write!(out, "    {a_name}:\n{}", show(a));
    let _ = write!(out, "    {b_name}:\n{}", show(b));
    Some(out)
}

// ---- the project ----

const FILES: &[(&str, &str)] = &[
    (
        "README.md",
        r#"# Shipyard

Shipyard is a small deployment service: an HTTP gateway in Go, a Rust
server, a Python worker and a TypeScript web client.

## Configuring the server

The server reads `shipyard.toml` from the working directory. Every key can
be overridden with an environment variable named `SHIPYARD_<KEY>`, e.g.
`SHIPYARD_PORT=9000`. See `load_config` in `server/src/config.rs`.

## Retries

Outgoing requests are retried with exponential backoff (three attempts by
default). When every attempt fails the client raises "max retries exceeded".

## Running the tests

    cargo test --manifest-path server/Cargo.toml
    python -m pytest tests
    go test ./gateway/...
"#,
    ),
    (
        "docs/operations.md",
        r#"# Operations

## Cache sizing

Both the worker and the gateway keep an in-memory cache. Entries expire after
`cache_ttl` seconds; when the cache is full the least recently used entry is
evicted first.

## Restarting

Send SIGHUP to reload the configuration without dropping connections.
"#,
    ),
    (
        "worker/config.py",
        r#""""Loads the worker configuration from a TOML file and the environment."""

import os
import tomllib
from dataclasses import dataclass, field

ENV_PREFIX = "SHIPYARD_"


class ConfigError(Exception):
    """Raised when the configuration file is missing or invalid."""


@dataclass
class WorkerConfig:
    queue_url: str
    concurrency: int = 4
    cache_ttl: int = 300
    tags: list[str] = field(default_factory=list)


def load_config(path="shipyard.toml"):
    """Read the config file, then apply environment overrides."""
    try:
        with open(path, "rb") as f:
            raw = tomllib.load(f)
    except FileNotFoundError as e:
        raise ConfigError(f"config file {path} not found") from e
    raw.update(env_overrides(os.environ))
    if "queue_url" not in raw:
        raise ConfigError("queue_url is required")
    return WorkerConfig(**raw)


def env_overrides(environ):
    """Settings given as SHIPYARD_* environment variables."""
    out = {}
    for key, value in environ.items():
        if key.startswith(ENV_PREFIX):
            name = key[len(ENV_PREFIX):].lower()
            out[name] = int(value) if value.isdigit() else value
    return out
"#,
    ),
    (
        "worker/cli.py",
        r#""""The worker's command line."""

import argparse
import sys

from worker.config import load_config
from worker.runner import run_worker


def build_parser():
    parser = argparse.ArgumentParser(prog="shipyard-worker")
    parser.add_argument("--config", default="shipyard.toml", help="config file")
    parser.add_argument("--concurrency", type=int, help="parallel jobs")
    parser.add_argument("--verbose", "-v", action="store_true")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("run", help="process jobs until stopped")
    sub.add_parser("check", help="validate the configuration and exit")
    return parser


def parse_args(argv=None):
    """Parse command line arguments into a namespace."""
    args = build_parser().parse_args(argv)
    if args.concurrency is not None and args.concurrency < 1:
        raise SystemExit("--concurrency must be at least 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    config = load_config(args.config)
    if args.concurrency:
        config.concurrency = args.concurrency
    if args.command == "check":
        print("configuration ok")
        return 0
    return run_worker(config, verbose=args.verbose)


if __name__ == "__main__":
    sys.exit(main())
"#,
    ),
    (
        "worker/http_client.py",
        r#""""HTTP calls with retries."""

import random
import time
import urllib.request


class MaxRetriesExceeded(Exception):
    """max retries exceeded: every attempt failed."""


class RetryPolicy:
    def __init__(self, attempts=3, base_delay=0.5, max_delay=8.0):
        self.attempts = attempts
        self.base_delay = base_delay
        self.max_delay = max_delay

    def delay(self, attempt):
        """Exponential backoff with jitter."""
        d = min(self.max_delay, self.base_delay * 2 ** attempt)
        return d * (0.5 + random.random() / 2)


def request_with_retry(url, policy=None, timeout=10):
    """GET `url`, retrying failed requests with backoff."""
    policy = policy or RetryPolicy()
    last = None
    for attempt in range(policy.attempts):
        try:
            with urllib.request.urlopen(url, timeout=timeout) as resp:
                return resp.read()
        except OSError as e:
            last = e
            time.sleep(policy.delay(attempt))
    raise MaxRetriesExceeded(f"max retries exceeded for {url}") from last
"#,
    ),
    (
        "worker/cache.py",
        r#""""A small LRU cache with expiry."""

import time
from collections import OrderedDict


class LruCache:
    def __init__(self, capacity=128, ttl=300):
        self.capacity = capacity
        self.ttl = ttl
        self._items = OrderedDict()

    def get(self, key):
        """The value for `key`, or None if missing or expired."""
        item = self._items.get(key)
        if item is None:
            return None
        value, expires = item
        if expires < time.monotonic():
            del self._items[key]
            return None
        self._items.move_to_end(key)
        return value

    def put(self, key, value):
        self._items[key] = (value, time.monotonic() + self.ttl)
        self._items.move_to_end(key)
        if len(self._items) > self.capacity:
            self.evict_oldest()

    def evict_oldest(self):
        """Drop the least recently used entry."""
        self._items.popitem(last=False)
"#,
    ),
    (
        "worker/runner.py",
        r#""""Pulls jobs from the queue and runs them."""

import logging

from worker.cache import LruCache
from worker.http_client import request_with_retry

log = logging.getLogger(__name__)


def run_worker(config, verbose=False):
    cache = LruCache(ttl=config.cache_ttl)
    while True:
        job = request_with_retry(config.queue_url + "/next")
        if not job:
            continue
        key = job.decode().strip()
        if cache.get(key) is not None:
            log.info("skipping duplicate job %s", key)
            continue
        cache.put(key, True)
        if verbose:
            log.info("running job %s", key)
"#,
    ),
    (
        "tests/test_config.py",
        r#"import pytest

from worker.config import ConfigError, env_overrides, load_config


def test_load_config_reads_the_file(tmp_path):
    path = tmp_path / "shipyard.toml"
    path.write_text('queue_url = "http://q"\nconcurrency = 2\n')
    config = load_config(path)
    assert config.concurrency == 2


def test_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError):
        load_config(tmp_path / "nope.toml")


def test_env_overrides_win():
    assert env_overrides({"SHIPYARD_CONCURRENCY": "8"}) == {"concurrency": 8}
"#,
    ),
    (
        "tests/test_cache.py",
        r#"from worker.cache import LruCache


def test_get_returns_what_was_put():
    cache = LruCache(capacity=2)
    cache.put("a", 1)
    assert cache.get("a") == 1


def test_cache_evicts_the_least_recently_used_entry():
    cache = LruCache(capacity=2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert cache.get("b") is None
    assert cache.get("a") == 1
"#,
    ),
    (
        "server/src/main.rs",
        r#"mod cache;
mod config;
mod handler;
mod retry;

use std::net::TcpListener;

fn main() -> std::io::Result<()> {
    let config = config::load_config("shipyard.toml").unwrap_or_default();
    let listener = TcpListener::bind(("0.0.0.0", config.port))?;
    let mut handler = handler::HttpHandler::new(config);
    for stream in listener.incoming() {
        handler.serve(stream?)?;
    }
    Ok(())
}
"#,
    ),
    (
        "server/src/config.rs",
        r#"//! Server configuration: `shipyard.toml`, then `SHIPYARD_*` variables.

use std::collections::HashMap;

/// Settings of the server.
#[derive(Debug, Clone)]
pub struct Config {
    pub port: u16,
    pub workers: usize,
    pub cache_capacity: usize,
}

impl Default for Config {
    fn default() -> Config {
        Config { port: 8080, workers: 4, cache_capacity: 1024 }
    }
}

/// Loads the config file and applies environment overrides.
pub fn load_config(path: &str) -> Result<Config, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut config = parse_config(&text)?;
    let env: HashMap<String, String> = std::env::vars().collect();
    apply_env(&mut config, &env);
    Ok(config)
}

/// Parses `key = value` lines.
pub fn parse_config(text: &str) -> Result<Config, String> {
    let mut config = Config::default();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| format!("line {}: expected key = value", n + 1))?;
        set(&mut config, key.trim(), value.trim())?;
    }
    Ok(config)
}

fn apply_env(config: &mut Config, env: &HashMap<String, String>) {
    for (key, value) in env {
        if let Some(name) = key.strip_prefix("SHIPYARD_") {
            let _ = set(config, &name.to_lowercase(), value);
        }
    }
}

fn set(config: &mut Config, key: &str, value: &str) -> Result<(), String> {
    let bad = |_| format!("bad value for {key}: {value}");
    match key {
        "port" => config.port = value.parse().map_err(bad)?,
        "workers" => config.workers = value.parse().map_err(bad)?,
        "cache_capacity" => config.cache_capacity = value.parse().map_err(bad)?,
        _ => return Err(format!("unknown key {key}")),
    }
    Ok(())
}
"#,
    ),
    (
        "server/src/cache.rs",
        r#"//! A bounded map that forgets the least recently used key.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;

pub struct Cache<K, V> {
    capacity: usize,
    map: HashMap<K, V>,
    order: VecDeque<K>,
}

impl<K: Hash + Eq + Clone, V> Cache<K, V> {
    pub fn new(capacity: usize) -> Self {
        Cache { capacity, map: HashMap::new(), order: VecDeque::new() }
    }

    /// The value for `key`, marking it recently used.
    pub fn get(&mut self, key: &K) -> Option<&V> {
        if self.map.contains_key(key) {
            self.touch(key);
        }
        self.map.get(key)
    }

    pub fn insert(&mut self, key: K, value: V) {
        if self.map.insert(key.clone(), value).is_none() {
            self.order.push_back(key);
        } else {
            self.touch(&key);
        }
        while self.map.len() > self.capacity {
            self.evict();
        }
    }

    /// Drops the least recently used entry.
    fn evict(&mut self) {
        if let Some(old) = self.order.pop_front() {
            self.map.remove(&old);
        }
    }

    fn touch(&mut self, key: &K) {
        if let Some(i) = self.order.iter().position(|k| k == key) {
            if let Some(k) = self.order.remove(i) {
                self.order.push_back(k);
            }
        }
    }
}
"#,
    ),
    (
        "server/src/handler.rs",
        r#"//! Answers HTTP requests: routing, caching of GET responses.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;

use crate::cache::Cache;
use crate::config::Config;

pub struct HttpHandler {
    config: Config,
    cache: Cache<String, Vec<u8>>,
}

impl HttpHandler {
    pub fn new(config: Config) -> HttpHandler {
        let cache = Cache::new(config.cache_capacity);
        HttpHandler { config, cache }
    }

    /// Reads one request from `stream` and writes the response.
    pub fn serve(&mut self, mut stream: TcpStream) -> std::io::Result<()> {
        let mut line = String::new();
        BufReader::new(&stream).read_line(&mut line)?;
        let mut parts = line.split_whitespace();
        let (method, path) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
        let body = self.route(method, path);
        write!(stream, "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n", body.len())?;
        stream.write_all(&body)
    }

    /// Picks the handler for a method and path.
    fn route(&mut self, method: &str, path: &str) -> Vec<u8> {
        if method == "GET" {
            if let Some(hit) = self.cache.get(&path.to_string()) {
                return hit.clone();
            }
        }
        let body = match path {
            "/health" => b"ok".to_vec(),
            "/config" => format!("{:?}", self.config).into_bytes(),
            _ => b"not found".to_vec(),
        };
        self.cache.insert(path.to_string(), body.clone());
        body
    }
}
"#,
    ),
    (
        "server/src/retry.rs",
        r#"//! Retrying fallible operations with exponential backoff.

use std::time::Duration;

pub struct Backoff {
    pub attempts: u32,
    pub base: Duration,
}

/// Runs `op` until it succeeds or the attempts are used up.
pub fn retry<T, E: std::fmt::Display>(
    backoff: &Backoff,
    mut op: impl FnMut() -> Result<T, E>,
) -> Result<T, String> {
    let mut last = String::new();
    for attempt in 0..backoff.attempts {
        match op() {
            Ok(v) => return Ok(v),
            Err(e) => last = e.to_string(),
        }
        std::thread::sleep(backoff.base * 2u32.pow(attempt));
    }
    Err(format!("max retries exceeded: {last}"))
}
"#,
    ),
    (
        "server/tests/cache_test.rs",
        r#"use shipyard::cache::Cache;

#[test]
fn get_marks_an_entry_recently_used() {
    let mut cache = Cache::new(2);
    cache.insert("a", 1);
    cache.insert("b", 2);
    assert_eq!(cache.get(&"a"), Some(&1));
    cache.insert("c", 3);
    assert_eq!(cache.get(&"b"), None);
}
"#,
    ),
    (
        "web/src/config.ts",
        r#"export interface ClientConfig {
  apiBase: string;
  timeoutMs: number;
  retries: number;
}

const DEFAULTS: ClientConfig = { apiBase: "/api", timeoutMs: 5000, retries: 3 };

/** Loads the client configuration from the page and local storage. */
export function loadConfig(storage: Storage = window.localStorage): ClientConfig {
  const saved = storage.getItem("shipyard.config");
  const fromPage = document.querySelector("meta[name=shipyard-api]")?.getAttribute("content");
  const config = { ...DEFAULTS, ...(saved ? JSON.parse(saved) : {}) };
  if (fromPage) {
    config.apiBase = fromPage;
  }
  return config;
}
"#,
    ),
    (
        "web/src/api.ts",
        r#"import { ClientConfig } from "./config";

export class ApiError extends Error {
  constructor(public status: number, message: string) {
    super(message);
  }
}

/** Fetches a URL, retrying network errors and 5xx answers with backoff. */
export async function fetchWithRetry(url: string, config: ClientConfig): Promise<Response> {
  let lastError: unknown;
  for (let attempt = 0; attempt < config.retries; attempt++) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(config.timeoutMs) });
      if (res.status < 500) {
        return res;
      }
      lastError = new ApiError(res.status, res.statusText);
    } catch (e) {
      lastError = e;
    }
    await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
  }
  throw new Error(`max retries exceeded: ${String(lastError)}`);
}

export class ApiClient {
  constructor(private config: ClientConfig) {}

  async deployments(): Promise<string[]> {
    const res = await fetchWithRetry(`${this.config.apiBase}/deployments`, this.config);
    return res.json();
  }
}
"#,
    ),
    (
        "web/src/ttlCache.ts",
        r#"/** Keeps values for a limited time, then forgets them. */
export class TtlCache<V> {
  private entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(private ttlMs: number) {}

  get(key: string): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt < Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V): void {
    this.entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
  }
}
"#,
    ),
    (
        "web/src/router.js",
        r#"// Client-side routing for the dashboard.

export class Router {
  constructor(routes) {
    this.routes = routes;
  }

  match(path) {
    for (const [pattern, handler] of Object.entries(this.routes)) {
      const re = new RegExp("^" + pattern.replace(/:\w+/g, "([^/]+)") + "$");
      const m = path.match(re);
      if (m) return () => handler(...m.slice(1));
    }
    return null;
  }

  navigate(path) {
    const handler = this.match(path);
    if (!handler) {
      throw new Error(`no route for ${path}`);
    }
    window.history.pushState({}, "", path);
    return handler();
  }
}
"#,
    ),
    (
        "gateway/main.go",
        r#"package main

import (
	"flag"
	"log"
	"net/http"
	"os"
	"time"
)

// options holds the command line flags of the gateway.
type options struct {
	addr     string
	upstream string
	cacheTTL time.Duration
}

func parseFlags(args []string) (options, error) {
	fs := flag.NewFlagSet("gateway", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.addr, "addr", ":8000", "listen address")
	fs.StringVar(&o.upstream, "upstream", "http://localhost:8080", "server to forward to")
	fs.DurationVar(&o.cacheTTL, "cache-ttl", time.Minute, "how long responses are cached")
	err := fs.Parse(args)
	return o, err
}

func main() {
	o, err := parseFlags(os.Args[1:])
	if err != nil {
		log.Fatal(err)
	}
	h := NewHttpHandler(o.upstream, NewCache(o.cacheTTL))
	log.Fatal(http.ListenAndServe(o.addr, h))
}
"#,
    ),
    (
        "gateway/handler.go",
        r#"package main

import (
	"io"
	"net/http"
)

// HttpHandler forwards requests to the upstream server and caches GETs.
type HttpHandler struct {
	upstream string
	cache    *Cache
	client   *http.Client
}

func NewHttpHandler(upstream string, cache *Cache) *HttpHandler {
	return &HttpHandler{upstream: upstream, cache: cache, client: &http.Client{}}
}

// ServeHTTP answers one request from the cache or the upstream.
func (h *HttpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		if body, ok := h.cache.Get(r.URL.Path); ok {
			w.Write(body)
			return
		}
	}
	resp, err := h.client.Get(h.upstream + r.URL.Path)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	h.cache.Set(r.URL.Path, body)
	w.WriteHeader(resp.StatusCode)
	w.Write(body)
}
"#,
    ),
    (
        "gateway/cache.go",
        r#"package main

import (
	"sync"
	"time"
)

type entry struct {
	body    []byte
	expires time.Time
}

// Cache keeps upstream responses for a while.
type Cache struct {
	mu      sync.Mutex
	ttl     time.Duration
	entries map[string]entry
}

func NewCache(ttl time.Duration) *Cache {
	return &Cache{ttl: ttl, entries: map[string]entry{}}
}

// Get returns a cached body unless it has expired.
func (c *Cache) Get(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok || time.Now().After(e.expires) {
		delete(c.entries, key)
		return nil, false
	}
	return e.body, true
}

func (c *Cache) Set(key string, body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries[key] = entry{body: body, expires: time.Now().Add(c.ttl)}
}
"#,
    ),
    (
        "gateway/handler_test.go",
        r#"package main

import (
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestHandlerServesFromCache(t *testing.T) {
	c := NewCache(time.Minute)
	c.Set("/health", []byte("cached"))
	h := NewHttpHandler("http://127.0.0.1:1", c)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/health", nil))
	if rec.Body.String() != "cached" {
		t.Fatalf("got %q", rec.Body.String())
	}
}
"#,
    ),
];

/// The fields of `status --json` that change when the index does.
fn index_fingerprint(p: &Project, models: &std::path::Path) -> Value {
    let r = p.run_env(
        &["status", "--json"],
        &[("REPO_SEARCH_MODEL_CACHE", models.as_os_str())],
    );
    assert_eq!(r.code(), 0, "{r}");
    let st: Value = serde_json::from_str(&r.stdout()).expect("status JSON");
    let keep = ["files", "chunks", "symbols", "refs", "embeddings"];
    Value::Object(
        st.as_object()
            .expect("status object")
            .iter()
            .filter(|(k, _)| keep.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    )
}

#[test]
fn cli_and_mcp_rank_every_query_alike() {
    let Some(models) = crate::embed::test_models() else {
        return;
    };
    let p = Project::new();
    for (path, text) in FILES {
        p.write(path, text);
    }
    let env = [("REPO_SEARCH_MODEL_CACHE", models.as_os_str())];

    // Index once, with both tiers' vectors: the server's own runs then have
    // nothing to add (it computes fast-tier vectors only for what lacks them).
    let r = p.run_env(&["index", "--json"], &env);
    assert_eq!(r.code(), 0, "{r}");
    let summary: Value = serde_json::from_str(&r.stdout()).expect("index JSON");
    let files = summary["files"].as_u64().expect("files");
    assert_eq!(files, FILES.len() as u64, "{summary}");
    for tier in summary["embed"].as_array().expect("embed tiers") {
        assert!(
            tier["total_chunks"].as_u64().is_some_and(|t| t > 0)
                && tier["with_vectors"] == tier["total_chunks"],
            "every chunk has vectors of every tier: {summary}"
        );
    }
    let before = index_fingerprint(&p, &models);

    let cli_round = || -> Vec<Answer> {
        QUERIES
            .iter()
            .map(|q| {
                let args = q.cli_args();
                let args: Vec<&str> = args.iter().map(String::as_str).collect();
                cli_hits(&p.run_env(&args, &env))
            })
            .collect()
    };
    let cli = cli_round();

    // The MCP server, once its start-up re-check of the (unchanged) tree is done.
    let (mcp, mcp_semantic) = {
        let m = Mcp::start_with_env(
            &p,
            Era::Legacy,
            &[("REPO_SEARCH_MODEL_CACHE", models.as_path())],
        );
        wait_indexed(&m, files);
        let call = |tool: &str, args: Value| {
            let r = m
                .call(tool, args.clone())
                .unwrap_or_else(|e| panic!("{tool} {args}: JSON-RPC error {e}"));
            mcp_hits(&r)
        };
        let search: Vec<Answer> = QUERIES
            .iter()
            .map(|q| call("search", q.mcp_search_args()))
            .collect();
        let semantic: Vec<Option<Answer>> = QUERIES
            .iter()
            .map(|q| {
                (q.mode == Some("semantic")).then(|| call("search_semantic", q.mcp_semantic_args()))
            })
            .collect();
        (search, semantic)
    };

    // Nothing changed the index meanwhile: same counts and vectors, and the
    // CLI answers every query as it did before the server ran.
    assert_eq!(
        index_fingerprint(&p, &models),
        before,
        "the index changed while the MCP server ran"
    );
    let again = cli_round();
    for ((q, a), b) in QUERIES.iter().zip(&cli).zip(&again) {
        if let Some(d) = diff("CLI before the server ran", a, "CLI after", b) {
            panic!(
                "{}: the CLI answered differently on an unchanged index\n{d}",
                q.label()
            );
        }
    }
    // The test checks something: every query finds hits on the CLI.
    for (q, a) in QUERIES.iter().zip(&cli) {
        assert!(
            a.as_ref().is_ok_and(|h| !h.is_empty()),
            "{}: the CLI found nothing, so the query compares nothing\n{}",
            q.label(),
            show(a)
        );
    }

    let mut report = String::new();
    let mut differing = 0;
    for (i, q) in QUERIES.iter().enumerate() {
        let mut diffs = Vec::new();
        if let Some(d) = diff("CLI `search --json`", &cli[i], "MCP `search`", &mcp[i]) {
            diffs.push(d);
        }
        if let Some(sem) = &mcp_semantic[i]
            && let Some(d) = diff("CLI `search --json`", &cli[i], "MCP `search_semantic`", sem)
        {
            diffs.push(d);
        }
        if !diffs.is_empty() {
            differing += 1;
            let _ = writeln!(report, "{}:", q.label());
            for d in diffs {
                report.push_str(&d);
            }
        }
    }
    assert!(
        differing == 0,
        "{differing} of {} queries are ranked differently by the CLI and the MCP server:\n{report}",
        QUERIES.len()
    );
}

/// A project large enough that every arm finds more candidates than a first
/// page's pool: 150 modules whose functions mix a few words, each module
/// and function weighing them differently.
fn write_many_modules(p: &Project) {
    const WORDS: [&str; 10] = [
        "load", "config", "file", "parse", "read", "write", "cache", "stream", "close", "retry",
    ];
    for i in 0..150usize {
        let mut text = format!("\"\"\"Module {i}: helpers.\"\"\"\n\n");
        for f in 0..3usize {
            let a = WORDS[(i * 7 + f * 3) % WORDS.len()];
            let b = WORDS[(i * 3 + f * 5 + 1) % WORDS.len()];
            let _ = write!(
                text,
                "def {a}_{b}_{i}_{f}(path):\n    \"\"\"{a} the {b} of {path} ({n} times).\"\"\"\n",
                path = WORDS[(i + f) % WORDS.len()],
                n = i % 5 + f,
            );
            for line in 0..(i % 4 + f) {
                let w = WORDS[(i + line * 3 + f) % WORDS.len()];
                let _ = writeln!(text, "    {w}_{line} = {a}(path, {line})  # {w} {b}");
            }
            text.push_str("    return path\n\n");
        }
        p.write(&format!("pkg{}/mod_{i}.py", i % 6), text);
    }
}

/// A larger limit and the next page continue the first page's order: the
/// first ranking's pool does not grow with the depth asked (it did: `-n
/// 40` had another top 10 than `-n 10`, and a second page repeated files
/// of the first), on the CLI and through the MCP server alike.
#[test]
fn a_larger_limit_or_the_next_page_continues_the_first_page() {
    let p = Project::new();
    write_many_modules(&p);
    // No vectors: BM25, names and the other text arms fuse.
    p.run(&["index", "--offline"]).ok();
    let queries = [
        "load the config file",
        "close a stream and retry",
        "parse_read",
    ];
    let cli = |q: &str, extra: &[&str]| -> Vec<Hit> {
        let mut args = vec!["search", q, "--json"];
        args.extend_from_slice(extra);
        cli_hits(&p.run(&args)).unwrap_or_else(|e| panic!("{q}: {e}"))
    };
    let m = Mcp::start(&p, Era::Legacy);
    wait_indexed(&m, 150);
    for q in queries {
        let ten = cli(q, &["-n", "10"]);
        assert_eq!(ten.len(), 10, "{q}: {ten:?}");
        let forty = cli(q, &["-n", "40"]);
        assert_eq!(forty.len(), 40, "{q}: {forty:?}");
        assert_eq!(
            &forty[..10],
            &ten[..],
            "{q}: -n 40 begins with -n 10's hits"
        );
        let second = cli(q, &["-n", "10", "--offset", "10"]);
        assert_eq!(
            &second[..],
            &forty[10..20],
            "{q}: the second page is hits 11-20"
        );
        // A smaller limit is the same ranking's head, and pages of any
        // size past the first ranking continue one order.
        assert_eq!(&cli(q, &["-n", "4"])[..], &ten[..4], "{q}: -n 4");
        let mut paged = Vec::new();
        for offset in (0..40).step_by(7) {
            paged.extend(cli(q, &["-n", "7", "--offset", &offset.to_string()]));
        }
        assert_eq!(&paged[..40], &forty[..], "{q}: pages of 7 are -n 40's hits");
        let first_files: Vec<&String> = ten.iter().map(|h| &h.0).collect();
        assert!(
            second.iter().all(|h| !first_files.contains(&&h.0)),
            "{q}: the second page repeats a file of the first: {second:?}"
        );
        // The server pages alike.
        let page = |offset: u64| {
            let r = m
                .call("search", json!({"query": q, "limit": 10, "offset": offset}))
                .unwrap_or_else(|e| panic!("{q}: JSON-RPC error {e}"));
            mcp_hits(&r).unwrap_or_else(|e| panic!("{q}: {e}"))
        };
        assert_eq!(page(0), ten, "{q}: MCP first page");
        assert_eq!(page(10), second, "{q}: MCP second page");
    }
}

/// BM25 mode ranks by the full-text score times the path prior, from a
/// window of the best full-text matches: the window grows until no match
/// outside it could rank among the hits asked for, so `-n 10` and `-n 40`
/// (and pages) agree. Here 120 tests say "widget" three times and outscore
/// the one source file on the full-text score alone, but halve under the
/// test prior: it ranked first at `-n 40` (a window of 160) and was on no
/// page of 10 (a window of 100).
#[test]
fn bm25_mode_ranks_the_same_whatever_the_limit() {
    let p = Project::new();
    for i in 0..120 {
        p.write(
            &format!("tests/test_w{i}.py"),
            format!("def test_w{i}():\n    assert widget(widget(widget({i})))\n"),
        );
    }
    p.write(
        "src/gadget.py",
        "def build(parts, options, registry):\n    made = assemble(parts, options)\n    registry.add(made, widget)\n    return made\n",
    );
    p.run(&["index", "--offline"]).ok();
    let cli = |extra: &[&str]| -> Vec<Hit> {
        let mut args = vec!["search", "widget", "--mode", "bm25", "--json"];
        args.extend_from_slice(extra);
        cli_hits(&p.run(&args)).unwrap_or_else(|e| panic!("{e}"))
    };
    let ten = cli(&["-n", "10"]);
    let forty = cli(&["-n", "40"]);
    assert_eq!(ten[0].0, "src/gadget.py", "{ten:?}");
    assert_eq!(&forty[..10], &ten[..], "-n 40 begins with -n 10's hits");
    assert_eq!(&cli(&["-n", "10", "--offset", "10"])[..], &forty[10..20]);
    let m = Mcp::start(&p, Era::Legacy);
    wait_indexed(&m, 121);
    let r = m
        .call(
            "search",
            json!({"query": "widget", "mode": "bm25", "limit": 10}),
        )
        .unwrap_or_else(|e| panic!("JSON-RPC error {e}"));
    assert_eq!(mcp_hits(&r).unwrap_or_else(|e| panic!("{e}")), ten);
}

/// A first ranking whose pool fills few files (each arm's first 55 chunks
/// all in three large files) goes on from a deeper pool: a page is full
/// and says more exist while more files match, and pages continue one
/// order (a small repository showed 7 files with `more: false` for `-n
/// 10`, and 22 for `-n 50`).
#[test]
fn a_first_ranking_of_few_files_goes_on_from_a_deeper_pool() {
    let p = Project::new();
    for f in 0..3 {
        let mut text = String::new();
        for i in 0..60 {
            let _ = write!(
                text,
                "def retry_backoff_{f}_{i}(request):\n    \"\"\"Retry the request with backoff.\"\"\"\n    retry = backoff(request, retry)  # retry backoff\n    return retry\n\n"
            );
        }
        p.write(&format!("hub_{f}.py"), text);
    }
    for f in 0..15 {
        p.write(
            &format!("small/part_{f}.py"),
            format!("def helper_{f}(request):\n    \"\"\"Send once; no retry here.\"\"\"\n    return request\n"),
        );
    }
    p.run(&["index", "--offline"]).ok();
    let run = |extra: &[&str]| -> Value {
        let mut args = vec!["search", "how are requests sent with retry", "--json"];
        args.extend_from_slice(extra);
        let r = p.run(&args);
        serde_json::from_str(&r.stdout()).unwrap_or_else(|e| panic!("bad JSON: {e}\n{r}"))
    };
    let ten = run(&["-n", "10"]);
    let hits = hit_list(&ten["hits"]);
    assert_eq!(hits.len(), 10, "a full page: {hits:?}");
    assert_eq!(ten["more"], true, "more files match: {ten}");
    let all = hit_list(&run(&["-n", "50"])["hits"]);
    assert_eq!(all.len(), 18, "every file once: {all:?}");
    assert_eq!(&all[..10], &hits[..], "-n 50 begins with -n 10's hits");
    let mut paged = Vec::new();
    for offset in (0..18).step_by(4) {
        paged.extend(hit_list(
            &run(&["-n", "4", "--offset", &offset.to_string()])["hits"],
        ));
    }
    assert_eq!(paged, all, "pages of 4 are -n 50's hits");
}
