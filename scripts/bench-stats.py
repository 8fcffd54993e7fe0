#!/usr/bin/env python3
"""What logging operations for `stats` costs, as an MCP client sees it.

Starts `repo-search mcp` on a project twice per round, once logging
(the default) and once with REPO_SEARCH_NO_STATS=1, and times the same
warm calls (find_symbol, read_file, search) as raw JSON-RPC lines over stdio.
Rounds alternate the order; the medians of the per-call times over all
rounds are compared per tool (on/off ratio). Then `stats` is asked for the
server's own figures, which must count what was sent.

Usage: python3 scripts/bench-stats.py --binary target/release/repo-search --root DIR [--rounds 5] [--calls 200]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CALLS = {
    "find_symbol": [{"name": n} for n in ["QuerySet", "reverse", "HttpResponse", "atomic", "slugify", "Field.clean", "get_user_model"]],
    "read_file": [{"path": p, "start_line": 1, "end_line": 40} for p in ["README.rst", "django/__init__.py", "django/urls/base.py", "django/db/models/query.py"]],
    "search": [{"query": q} for q in ["where is the csrf token validated", "send an email to the site admins", "paginate a queryset"]],
}


class Server:
    def __init__(self, binary, root, env):
        self.p = subprocess.Popen([binary, "mcp", "--root", root], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, env=env, text=True, bufsize=1)
        self.next_id = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "bench-stats", "version": "1"}})
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")

    def request(self, method, params):
        self.next_id += 1
        self.p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n")
        while True:
            msg = json.loads(self.p.stdout.readline())
            if msg.get("id") == self.next_id:
                if "error" in msg or msg.get("result", {}).get("isError"):
                    sys.exit(f"{method} {params}: {msg}")
                return msg["result"]

    def call(self, tool, args):
        return self.request("tools/call", {"name": tool, "arguments": args})

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=30)


def session(binary, root, logging, calls):
    env = dict(os.environ)
    env.pop("REPO_SEARCH_NO_STATS", None)
    if not logging:
        env["REPO_SEARCH_NO_STATS"] = "1"
    s = Server(binary, root, env)
    # Warm up: the index check, the vector matrix, the query model.
    for tool, variants in CALLS.items():
        s.call(tool, variants[0])
    times = {t: [] for t in CALLS}
    for i in range(calls):
        for tool, variants in CALLS.items():
            t0 = time.perf_counter()
            s.call(tool, variants[i % len(variants)])
            times[tool].append((time.perf_counter() - t0) * 1000)
    stats = s.call("stats", {"since": "1h"})["structuredContent"] if logging else None
    s.close()
    return times, stats


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default="target/release/repo-search")
    ap.add_argument("--root", required=True)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=200)
    a = ap.parse_args()
    on = {t: [] for t in CALLS}
    off = {t: [] for t in CALLS}
    last = None
    for r in range(a.rounds):
        for logging in ([True, False] if r % 2 == 0 else [False, True]):
            times, stats = session(a.binary, a.root, logging, a.calls)
            for t, v in times.items():
                (on if logging else off)[t].extend(v)
            if stats:
                last = stats
    print(f"{a.rounds} rounds x {a.calls} calls per tool, medians of client round trips (ms)")
    print(f"{'tool':<14}{'logging':>10}{'not logging':>14}{'on/off':>9}")
    for t in CALLS:
        m_on, m_off = statistics.median(on[t]), statistics.median(off[t])
        print(f"{t:<14}{m_on:>10.3f}{m_off:>14.3f}{m_on / m_off:>9.3f}")
    ops = {o["op"]: o for o in last["ops"]}
    print("the server's own figures for the last logging session (stats, since 1h):")
    for op in ["symbol", "read", "search.hybrid"]:
        o = ops.get(op)
        if o:
            print(f"  {op:<14} count {o['count']:>6}  p50 {o['p50_ms']:.3f}  p95 {o['p95_ms']:.3f}  p99 {o['p99_ms']:.3f} ms")


if __name__ == "__main__":
    main()
