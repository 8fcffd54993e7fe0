#!/usr/bin/env python3
"""Hit rate and time saved by the MCP server's query cache on a realistic
agent session, through a real stdio client (raw JSON-RPC lines).

For each corpus of the agent suite (evals/agent.jsonl), a server is started
on the corpus and one session is replayed: every `search` query of the
suite once, in order, and in between, as agents do, repeats of earlier
questions (the same words; some with other spacing, which the cache
normalises; some with another `limit`, which is another answer). Each call
is also made with `no_cache: true`, in random order with it, so the saving
is measured against the same server doing the full work. Printed:
lookups, hits, hit rate, the client's median time of a hit against the
same queries computed, and the client time saved. (That a cached answer
is never older than the index is tests/it/ops.rs's job.)

Usage: python3 scripts/bench-cache.py [--binary target/release/repo-search]
       [--corpora agent-tokio,agent-gin,...] [--seed 7]
Corpora come from scripts/fetch-corpora.sh (~/.cache/repo-search-corpora).
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("REPO_SEARCH_CORPORA", Path.home() / ".cache/repo-search-corpora"))


class Server:
    def __init__(self, binary, root, home):
        env = dict(os.environ, REPO_SEARCH_HOME=str(home))
        env.pop("REPO_SEARCH_NO_STATS", None)
        self.p = subprocess.Popen([binary, "mcp", "--root", str(root)], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True, bufsize=1)
        self.n = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "bench-cache", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def request(self, method, params):
        self.n += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params}) + "\n")
        while True:
            msg = json.loads(self.p.stdout.readline())
            if msg.get("id") == self.n:
                if "error" in msg:
                    sys.exit(f"{method}: {msg}")
                return msg["result"]

    def call(self, tool, args):
        t0 = time.perf_counter()
        r = self.request("tools/call", {"name": tool, "arguments": args})
        return r, (time.perf_counter() - t0) * 1000

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def session(queries, rng):
    """The calls of one agent session: (args, key) with key naming the answer."""
    calls = []
    asked = []
    for q in queries:
        calls.append({"query": q})
        asked.append(q)
        r = rng.random()
        if r < 0.35 and len(asked) > 1:
            calls.append({"query": rng.choice(asked[:-1])})  # back to an earlier question
        elif r < 0.50:
            calls.append({"query": "  " + q.replace(" ", "  ") + " "})  # the same, spaced otherwise
        elif r < 0.60:
            calls.append({"query": q, "limit": 5})  # a narrower page: another answer
    return calls


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=str(REPO / "target/release/repo-search"))
    ap.add_argument("--corpora", default="agent-tokio,agent-gin,agent-express,agent-jq,agent-zod,agent-rack")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    cases = [json.loads(l) for l in (REPO / "evals/agent.jsonl").read_text().splitlines() if l.strip()]
    totals = {"lookups": 0, "hits": 0}
    hit_ms, miss_ms, saved = [], [], 0.0
    print(f"{'corpus':<22}{'calls':>6}{'hits':>6}{'rate':>7}{'hit ms':>9}{'computed ms':>13}")
    for name in a.corpora.split(","):
        root = CACHE / name  # the eval runner's project root for the corpus
        if not root.is_dir():
            print(f"{name}: missing ({root}); run scripts/fetch-corpora.sh", file=sys.stderr)
            continue
        qs = [x["query"] for x in cases if x["corpus"] == name and x.get("tool", "search") == "search"]
        rng = random.Random(a.seed)
        calls = session(qs, rng)
        home = Path(f"/tmp/bench-cache-home-{os.getpid()}")
        home.mkdir(exist_ok=True)
        s = Server(a.binary, root, home)
        for _ in range(600):  # the index (built by this server if missing)
            st = s.call("index_status", {})[0]["structuredContent"]
            if st.get("exists") and not st.get("indexing"):
                break
            time.sleep(0.5)
        first = s.call("search", {"query": qs[0]})[0]
        if first.get("isError") or not first["structuredContent"].get("hits"):
            sys.exit(f"{name}: the first search found nothing: {first}")
        s.request("tools/call", {"name": "search", "arguments": {"query": qs[0], "no_cache": True}})
        before = s.call("stats", {})[0]["structuredContent"].get("cache", {})
        times = {}
        corpus_hit, corpus_miss = [], []
        for args in calls:
            # The same call computed (no_cache) and through the cache, alternating order.
            pair = [dict(args, no_cache=True), args]
            if rng.random() < 0.5:
                pair.reverse()
            for p in pair:
                _, ms = s.call("search", p)
                if p.get("no_cache"):
                    times.setdefault(json.dumps(args, sort_keys=True), []).append(ms)
                else:
                    times.setdefault("cached " + json.dumps(args, sort_keys=True), []).append(ms)
        after = s.call("stats", {})[0]["structuredContent"]["cache"]
        hits = after["hits"] - before.get("hits", 0)
        lookups = hits + after["misses"] - before.get("misses", 0)
        s.close()
        # Per call: the cached call's time when it was a hit, against the computed one.
        seen = set()
        for args in calls:
            key = json.dumps(args, sort_keys=True)
            norm = json.dumps(dict(args, query=" ".join(args["query"].split())), sort_keys=True)
            computed = statistics.median(times[key])
            cached = times["cached " + key].pop(0)
            if norm in seen:
                corpus_hit.append(cached)
                saved += computed - cached
            else:
                corpus_miss.append(computed)
                seen.add(norm)
        totals["lookups"] += lookups
        totals["hits"] += hits
        hit_ms += corpus_hit
        miss_ms += corpus_miss
        print(f"{name:<22}{lookups:>6}{hits:>6}{hits / max(lookups, 1):>7.0%}"
              f"{statistics.median(corpus_hit) if corpus_hit else 0:>9.2f}"
              f"{statistics.median(corpus_miss) if corpus_miss else 0:>13.2f}")
    rate = totals["hits"] / max(totals["lookups"], 1)
    print(f"all: {totals['hits']} hits of {totals['lookups']} lookups ({rate:.0%}); "
          f"median hit {statistics.median(hit_ms) if hit_ms else 0:.2f} ms vs computed "
          f"{statistics.median(miss_ms) if miss_ms else 0:.2f} ms; client time saved {saved / 1000:.2f} s")


if __name__ == "__main__":
    main()
