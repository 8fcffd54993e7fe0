#!/usr/bin/env python3
"""End-to-end check of repo-search's operations features on a real repository.

Copies a real tree (default: the Django 5.1.15 sdist) to a fresh temporary
directory, and with a private REPO_SEARCH_HOME drives the built binaries the
way a person and an agent would, printing one PASS/FAIL line per check with
the figures measured:

  1 session   ~15 CLI searches (hybrid, bm25, keyword, symbol) and ~20 calls
              to a real `repo-search mcp` (search, find_symbol,
              search_keyword), each timed by the client; `stats --json` must
              count exactly those calls per operation and per surface, with
              P50s no higher than the client's (plus 1 ms); then a few
              failing calls on each surface must be counted as errors
  2 cache     one MCP search repeated 5 times: the repeats are cache hits
              (`cache stats --json`) and faster; after an edit that must
              change the answer (and the 2 s freshness interval) the same
              search returns the new function, never the cached answer;
              spacing normalised, `no_cache`, `cache clear`; an edit indexed
              by the CLI (`index PATH`) is in the server's very next answer
  5 index job MCP `index` mode full answers at once with a job id;
              `index_status` polled every 0.5 s while `search` keeps being
              called; progress and ETA reported; the job ends `done`;
              `compact` meanwhile is refused at once (INDEX_BUSY)
  6 evals     3 cases in COPY/.repo_search/evals/mine.jsonl;
              `repo-search-eval run --modes hybrid,bm25 --json` in the copy;
              the report lands in .repo_search/evals/results/ and search
              does not find it
  7 status    with `repo-search-daemon start` (private home), `status --json`
              and MCP `index_status` show the runtime block (version, pid,
              uptime, memory, searches, the daemon: watching, events, queue)
  3 compact   with the fast model's vectors present, `embed.fast = false`
              then `compact --json`: smaller file, that model's vectors gone
  4 config    set/get round trips (project and --user), bad values and keys
              refused with exit 2 and a `hint:`, comments kept, unset
  8 clean     `clean --yes --json`: no `.repo_search` left, the copy no
              longer in `projects --json`; the same while the daemon is
              computing vectors for the project; `projects --prune`

Checks run in the order above (compact and config late, as they change the
configuration), each printed as `PASS|FAIL <id> <name>: <figures>`; indented
lines are information (progress seen, notes). A whole run takes about 20 s
on 2 cores once the tree and models are cached.

The source tree is never modified. Exit status: 0 when every check passed,
1 when one failed, 2 when the setup itself failed.

Usage:
  python3 scripts/check-ops.py [--bin-dir target/release] [--tree DIR] [--keep]

  --bin-dir  directory with repo-search, repo-search-daemon, repo-search-eval
             (default: target/release of this repository)
  --tree     a repository to copy (default: Django 5.1.15 from the package
             index, `pip download`ed once into ~/.cache/repo-search-ops-check)
  --keep     leave the temporary directory (copy, home, logs) for inspection

REPO_SEARCH_MODEL_CACHE is passed through when set (models already
downloaded there are used); otherwise the user's own model cache
($REPO_SEARCH_HOME/models, default ~/.repo_search/models) is used when it
holds models, else ~/.cache/repo-search-ops-check/models (fetched once by
the first `index`).
Other REPO_SEARCH_* variables and CLAUDE_PROJECT_DIR are not passed on.
"""

import argparse
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CACHE = Path.home() / ".cache" / "repo-search-ops-check"
DJANGO = "django==5.1.15"
FAST_MODEL = "minishlab/potion-base-8M"
NEW_FUNC = "opscheck_reticulate_splines"
CACHE_QUERY = "opscheck reticulate the splines"


# ---------------------------------------------------------------- reporting

class Report:
    def __init__(self):
        self.failed = []
        self.count = 0

    def check(self, name, ok, detail):
        self.count += 1
        print(f"{'PASS' if ok else 'FAIL'} {name}: {detail}", flush=True)
        if not ok:
            self.failed.append(name)
        return ok

    def info(self, text):
        print(f"     {text}", flush=True)


def p50(values):
    return statistics.median(values) if values else float("nan")


# ---------------------------------------------------------------- processes

class Env:
    """The binaries, the private home and the copy."""

    def __init__(self, bin_dir, home, copy, models):
        self.bin_dir = Path(bin_dir)
        self.home = home
        self.copy = copy
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("REPO_SEARCH_") and k != "CLAUDE_PROJECT_DIR"}
        env["REPO_SEARCH_HOME"] = str(home)
        env["REPO_SEARCH_MODEL_CACHE"] = str(models)
        self.env = env

    def exe(self, name):
        return str(self.bin_dir / name)

    def run(self, args, binary="repo-search", root=True, cwd=None, timeout=300):
        """Runs a command; returns (rc, stdout, stderr, client ms)."""
        argv = [self.exe(binary)] + list(args)
        if root:
            argv += ["--root", str(self.copy)]
        t0 = time.perf_counter()
        p = subprocess.run(argv, cwd=cwd or self.copy, env=self.env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr, (time.perf_counter() - t0) * 1000

    def json(self, args, **kw):
        rc, out, err, ms = self.run(list(args) + ["--json"], **kw)
        try:
            data = json.loads(out) if out.strip() else None
        except json.JSONDecodeError:
            data = None
        return rc, data, err, ms


class McpError(Exception):
    pass


class Mcp:
    """A hand-written MCP client: newline-delimited JSON-RPC over stdio."""

    def __init__(self, env, log_path, timeout=60):
        self.timeout = timeout
        self.log = open(log_path, "a")
        self.p = subprocess.Popen([env.exe("repo-search"), "mcp", "--root", str(env.copy)],
                                  cwd=env.copy, env=env.env, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=self.log, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.n = 0
        self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                    "clientInfo": {"name": "check-ops", "version": "1"}})
        self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def _pump(self):
        for line in self.p.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def request(self, method, params):
        self.n += 1
        self._send({"jsonrpc": "2.0", "id": self.n, "method": method, "params": params})
        deadline = time.monotonic() + self.timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise McpError(f"{method}: no answer in {self.timeout} s")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                raise McpError(f"{method}: no answer in {self.timeout} s") from None
            if line is None:
                raise McpError(f"{method}: the server exited (rc {self.p.wait()})")
            msg = json.loads(line)
            if msg.get("id") == self.n:
                if "error" in msg:
                    raise McpError(f"{method}: {msg['error']}")
                return msg["result"]

    def call(self, tool, args):
        """Calls a tool; returns (structuredContent, isError, client ms, text)."""
        t0 = time.perf_counter()
        r = self.request("tools/call", {"name": tool, "arguments": args})
        ms = (time.perf_counter() - t0) * 1000
        text = "".join(c.get("text", "") for c in r.get("content", []))
        return r.get("structuredContent") or {}, bool(r.get("isError")), ms, text

    def close(self):
        try:
            self.p.stdin.close()
            self.p.wait(timeout=20)
        except (subprocess.TimeoutExpired, OSError):
            self.p.kill()
            self.p.wait()
        self.log.close()


# ---------------------------------------------------------------- helpers

def ops_by_name(stats):
    return {o["op"]: o for o in (stats or {}).get("ops", [])}


def table_bytes(stats, name):
    for t in (stats or {}).get("sizes", {}).get("tables", []):
        if t.get("name") == name:
            return t.get("bytes", 0) + t.get("index_bytes", 0)
    return 0


def fetch_django():
    """The Django sdist, downloaded and unpacked once into CACHE."""
    tree = CACHE / "django-5.1.15"
    if (tree / "django" / "__init__.py").exists():
        return tree
    CACHE.mkdir(parents=True, exist_ok=True)
    sdist = CACHE / "django-5.1.15.tar.gz"
    if not sdist.exists():
        print(f"downloading {DJANGO} into {CACHE} ...", file=sys.stderr, flush=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                        "--no-binary", ":all:", DJANGO, "-d", str(CACHE)], check=True)
    with tarfile.open(sdist) as tf:
        if hasattr(tarfile, "data_filter"):
            tf.extractall(CACHE, filter="data")
        else:
            tf.extractall(CACHE)
    return tree


def copy_tree(src, dst):
    shutil.copytree(src, dst, symlinks=True, ignore=shutil.ignore_patterns(".repo_search"))


def hit_paths(hits):
    """MCP hits carry `at` (path:a-b); CLI hits carry `path`."""
    out = []
    for h in hits:
        if "path" in h:
            out.append(h["path"])
        elif "at" in h:
            out.append(h["at"].rsplit(":", 1)[0])
    return out


# ---------------------------------------------------------------- checks

CLI_SEARCHES = [
    ("hybrid", "where are settings loaded", False),
    ("hybrid", "send an email to the site admins", False),
    ("hybrid", "paginate a queryset", True),
    ("hybrid", "how are database migrations applied", False),
    ("hybrid", "validate the csrf token of a request", True),
    ("bm25", "template loader cache", False),
    ("bm25", "password hashing algorithm", False),
    ("bm25", "session expiry", False),
    ("bm25", "url resolver reverse", False),
    ("keyword", "get_user_model", False),
    ("keyword", "CsrfViewMiddleware", False),
    ("keyword", "render_to_string", False),
    ("symbol", "QuerySet", False),
    ("symbol", "HttpResponse", False),
    ("symbol", "slugify", False),
]

MCP_CALLS = [
    ("search", {"query": "where is the csrf token validated"}),
    ("find_symbol", {"name": "QuerySet"}),
    ("search_keyword", {"pattern": "def get_user_model"}),
    ("search", {"query": "how does the ORM build SQL joins"}),
    ("find_symbol", {"name": "get_user_model"}),
    ("search_keyword", {"pattern": "class CsrfViewMiddleware"}),
    ("search", {"query": "cache a view's response"}),
    ("find_symbol", {"name": "HttpResponse"}),
    ("search_keyword", {"pattern": "SECRET_KEY", "max_results": 20}),
    ("search", {"query": "load fixtures into the database"}),
    ("find_symbol", {"name": "atomic"}),
    ("search_keyword", {"pattern": "import json", "fixed_strings": True}),
    ("search", {"query": "translate strings in templates"}),
    ("find_symbol", {"name": "slugify"}),
    ("search_keyword", {"pattern": r"def \w+_view\(", "glob": ["django/**"]}),
    ("search", {"query": "check user permissions"}),
    ("find_symbol", {"name": "reverse"}),
    ("search_keyword", {"pattern": "TODO", "max_results": 10}),
    ("search", {"query": "signal receivers", "mode": "bm25"}),
    ("search", {"query": "form field validation", "mode": "bm25"}),
]


def mcp_op(tool, args):
    if tool == "search":
        return "search." + args.get("mode", "hybrid")
    return {"find_symbol": "symbol", "search_keyword": "keyword"}[tool]


def check_session(rep, env, mcp):
    """1: CLI and MCP searches, then `stats --json` against the client's counts and times."""
    _, before, _, _ = env.json(["stats"])
    before = ops_by_name(before)
    started = time.time()
    client = {}      # op -> [ms]
    surface = {}     # op -> {"cli": n, "mcp": n}
    errors = []
    for mode, query, no_cache in CLI_SEARCHES:
        args = ["search", "--mode", mode, query]
        if no_cache:
            args.append("--no-cache")
        rc, data, err, ms = env.json(args)
        op = "search." + mode
        client.setdefault(op, []).append(ms)
        surface.setdefault(op, {"cli": 0, "mcp": 0})["cli"] += 1
        if rc not in (0, 1) or data is None:
            errors.append(f"cli {mode} {query!r}: rc {rc} {err.strip()[:200]}")
    for tool, args in MCP_CALLS:
        sc, is_err, ms, text = mcp.call(tool, args)
        op = mcp_op(tool, args)
        client.setdefault(op, []).append(ms)
        surface.setdefault(op, {"cli": 0, "mcp": 0})["mcp"] += 1
        if is_err:
            errors.append(f"mcp {tool} {args}: {text[:200]}")
    n_cli, n_mcp = len(CLI_SEARCHES), len(MCP_CALLS)
    rep.check("1a session calls answered", not errors,
              f"{n_cli} CLI searches, {n_mcp} MCP calls, {len(errors)} errors"
              + ("" if not errors else "; " + " | ".join(errors[:3])))

    _, after, _, _ = env.json(["stats"])
    after = ops_by_name(after)
    since = f"{int(time.time() - started) + 2}s"
    _, window, _, _ = env.json(["stats", "--since", since])
    window = ops_by_name(window)
    bad = []
    rows = []
    for op in sorted(client):
        want = len(client[op])
        got = after.get(op, {}).get("count", 0) - before.get(op, {}).get("count", 0)
        by_after = after.get(op, {}).get("by", {})
        by_before = before.get(op, {}).get("by", {})
        got_cli = by_after.get("cli", 0) - by_before.get("cli", 0)
        got_mcp = by_after.get("mcp", 0) - by_before.get("mcp", 0)
        rows.append(f"{op} {got}/{want} (cli {got_cli}/{surface[op]['cli']}, mcp {got_mcp}/{surface[op]['mcp']})")
        if (got, got_cli, got_mcp) != (want, surface[op]["cli"], surface[op]["mcp"]):
            bad.append(op)
        if window.get(op, {}).get("count") != want:
            bad.append(f"{op} (--since {since}: {window.get(op, {}).get('count')})")
        errs = after.get(op, {}).get("errors", 0) - before.get(op, {}).get("errors", 0)
        if errs:
            bad.append(f"{op} errors {errs}")
    rep.check("1b stats counts = calls made (per op and surface)", not bad,
              "; ".join(rows) + ("" if not bad else f"; mismatched: {', '.join(bad)}"))

    bad = []
    rows = []
    for op in sorted(client):
        cp = p50(client[op])
        sp = window.get(op, {}).get("p50_ms")
        rows.append(f"{op} stats {sp if sp is None else round(sp, 2)} ms / client {cp:.2f} ms")
        # Every client time contains the server's own time for that call, so
        # the server's median cannot exceed the client's (1 ms for rounding).
        if sp is None or sp > cp + 1.0:
            bad.append(op)
    rep.check("1c stats p50 <= client p50 (+1 ms)", not bad,
              "; ".join(rows) + ("" if not bad else f"; too high: {', '.join(bad)}"))
    mcp_only = [op for op in client if surface[op]["cli"] == 0]
    gaps = [f"{op} +{p50(client[op]) - window.get(op, {}).get('p50_ms', 0):.2f} ms" for op in sorted(mcp_only)]
    rep.info("MCP-only ops, client p50 minus stats p50 (JSON-RPC overhead): " + ", ".join(gaps))

    # Failed calls are operations too: each surface must count its errors.
    _, e0, _, _ = env.json(["stats"])
    e0 = ops_by_name(e0)
    want = {}
    failed = []
    for args, op in [(["search", "--mode", "hybrid", ""], "search.hybrid"),
                     (["symbol", "x", "--kind", "bogus"], "symbol"),
                     (["keyword", "("], "keyword")]:
        rc, _, _, _ = env.run(args)
        failed.append(f"cli {' '.join(args)!r} rc {rc}")
        want.setdefault(op, {"cli": 0, "mcp": 0})["cli"] += 1
    for tool, args in [("search", {"query": ""}), ("search", {"query": "csrf", "limit": 0}),
                       ("find_symbol", {"name": "x", "kind": "bogus"}), ("search_keyword", {"pattern": "("})]:
        _, is_err, _, _ = mcp.call(tool, args)
        failed.append(f"mcp {tool} {args} isError {is_err}")
        want.setdefault(mcp_op(tool, args), {"cli": 0, "mcp": 0})["mcp"] += 1
    _, e1, _, _ = env.json(["stats"])
    e1 = ops_by_name(e1)
    rows = []
    bad = []
    for op, w in sorted(want.items()):
        errs = e1.get(op, {}).get("errors", 0) - e0.get(op, {}).get("errors", 0)
        by = {k: e1.get(op, {}).get("by", {}).get(k, 0) - e0.get(op, {}).get("by", {}).get(k, 0) for k in ("cli", "mcp")}
        rows.append(f"{op} errors +{errs}/{w['cli'] + w['mcp']} (cli +{by['cli']}/{w['cli']}, mcp +{by['mcp']}/{w['mcp']})")
        if errs != w["cli"] + w["mcp"] or by != w:
            bad.append(op)
    rep.check("1d stats counts failed calls as errors, on both surfaces", not bad,
              "; ".join(rows) + ("" if not bad else f"; not counted: {', '.join(bad)}"))
    return after


def check_cache(rep, env, mcp):
    """2: repeats are cache hits and faster; an edit changes the answer at once."""
    _, c0, _, _ = env.json(["cache", "stats"])
    times = []
    answers = []
    for _ in range(5):
        sc, is_err, ms, text = mcp.call("search", {"query": CACHE_QUERY})
        times.append(ms)
        answers.append(hit_paths(sc.get("hits", [])))
    _, c1, _, _ = env.json(["cache", "stats"])
    lookups = c1["lookups"] - c0["lookups"]
    hits = c1["hits"] - c0["hits"]
    ok = (lookups == 5 and hits == 4 and all(t < times[0] for t in times[1:])
          and all(a == answers[0] for a in answers))
    rep.check("2a repeated search: cache hits, faster", ok,
              f"5 calls: {lookups} lookups, {hits} hits (want 5, 4); client ms "
              + ", ".join(f"{t:.2f}" for t in times)
              + f"; cache stats hit p50 {c1.get('hit_p50_ms')} ms vs miss p50 {c1.get('miss_p50_ms')} ms")
    stale = any(NEW_FUNC in json.dumps(a) for a in answers)

    target = env.copy / "django" / "utils" / "text.py"
    with open(target, "a") as f:
        f.write(f'\n\ndef {NEW_FUNC}(splines):\n    """Reticulate the splines, one by one."""\n'
                "    return [s for s in splines]\n")
    edited = time.time()
    time.sleep(3.0)
    sc, is_err, ms, text = mcp.call("search", {"query": CACHE_QUERY})
    _, c2, _, _ = env.json(["cache", "stats"])
    hits_after = sc.get("hits", [])
    found = [i for i, h in enumerate(hits_after)
             if hit_paths([h]) == ["django/utils/text.py"] and NEW_FUNC in h.get("symbol", "")]
    miss = (c2["lookups"] - c1["lookups"], c2["hits"] - c1["hits"])
    ok = (not stale and not is_err and bool(found) and miss == (1, 0))
    rep.check("2b after an edit: fresh answer, not the cached one", ok,
              f"edit + {time.time() - edited:.1f} s: {NEW_FUNC} "
              + (f"at rank {found[0] + 1}" if found else "NOT in the answer")
              + f" ({len(hits_after)} hits, {ms:.0f} ms); cache lookups/hits +{miss[0]}/+{miss[1]} (want +1/+0)")
    sc2, _, ms2, _ = mcp.call("search", {"query": CACHE_QUERY})
    _, c3, _, _ = env.json(["cache", "stats"])
    rep.check("2c the fresh answer is cached in turn",
              c3["hits"] - c2["hits"] == 1 and hit_paths(sc2.get("hits", [])) == hit_paths(hits_after),
              f"repeat: {ms2:.2f} ms, hits +{c3['hits'] - c2['hits']}, same answer: "
              f"{hit_paths(sc2.get('hits', [])) == hit_paths(hits_after)}")

    # The key normalises spacing; no_cache computes afresh without a lookup;
    # `cache clear` empties the running server's cache at its next lookup.
    spaced = "  " + CACHE_QUERY.replace(" ", "   ") + " "
    _, _, ms_sp, _ = mcp.call("search", {"query": spaced})
    _, c4, _, _ = env.json(["cache", "stats"])
    mcp.call("search", {"query": CACHE_QUERY, "no_cache": True})
    _, c5, _, _ = env.json(["cache", "stats"])
    rc_clear, _, _, _ = env.run(["cache", "clear"])
    _, _, ms_cl, _ = mcp.call("search", {"query": CACHE_QUERY})
    _, c6, _, _ = env.json(["cache", "stats"])
    d = lambda a, b: (b["lookups"] - a["lookups"], b["hits"] - a["hits"])
    got = (d(c3, c4), d(c4, c5), d(c5, c6))
    rep.check("2d spacing normalised, no_cache bypasses, cache clear empties", rc_clear == 0 and got == ((1, 1), (0, 0), (1, 0)),
              f"lookups/hits: other spacing +{got[0][0]}/+{got[0][1]} (want +1/+1, {ms_sp:.2f} ms); "
              f"no_cache +{got[1][0]}/+{got[1][1]} (want +0/+0); after `cache clear` (rc {rc_clear}) "
              f"+{got[2][0]}/+{got[2][1]} (want +1/+0, {ms_cl:.0f} ms)")

    # Another process updates the index (`repo-search index PATH`) within the
    # server's 2 s freshness interval: the cache key holds the index version,
    # so the next answer is the new one at once.
    mcp.call("search", {"query": CACHE_QUERY})  # cached, and a fresh re-check
    target2 = env.copy / "django" / "utils" / "html.py"
    name2 = NEW_FUNC + "_again"
    with open(target2, "a") as f:
        f.write(f'\n\ndef {name2}(splines):\n    """Reticulate the splines again."""\n    return splines\n')
    t0 = time.monotonic()
    rc_i, idx, err_i, _ = env.json(["index", "django/utils/html.py"])
    sc3, _, ms3, _ = mcp.call("search", {"query": CACHE_QUERY})
    after_s = time.monotonic() - t0
    found2 = [i for i, h in enumerate(sc3.get("hits", [])) if name2 in h.get("symbol", "")]
    rep.check("2e index PATH by the CLI: the server's next answer has it", rc_i == 0 and bool(found2),
              f"index django/utils/html.py rc {rc_i} (changed {(idx or {}).get('changed')}); search {after_s:.2f} s after the edit: "
              + (f"{name2} at rank {found2[0] + 1}" if found2 else f"{name2} NOT in the answer {hit_paths(sc3.get('hits', []))[:3]}"))


def check_index_job(rep, env, mcp):
    """5: an MCP index job runs in the background while searches answer."""
    sc, is_err, ms, text = mcp.call("index", {"mode": "full"})
    job_id = sc.get("id")
    rep.check("5a index tool answers at once with a job id",
              not is_err and isinstance(job_id, int) and sc.get("state") in ("queued", "running") and ms < 1000,
              f"{ms:.0f} ms: {text.strip()[:80]!r} {sc}")
    if not isinstance(job_id, int):
        return
    seen = []
    search_ms = []
    search_errors = 0
    empty = 0
    indexing_false_while_running = []
    busy = None
    final = None
    t0 = time.monotonic()
    while time.monotonic() - t0 < 120:
        st, _, _, _ = mcp.call("index_status", {})
        job = next((j for j in st.get("jobs", []) if j.get("id") == job_id), None)
        if job is None:
            break
        seen.append((round(time.monotonic() - t0, 1), job.get("state"), job.get("done"),
                     job.get("total"), job.get("eta_s")))
        if job.get("state") == "running" and st.get("indexing") is False:
            indexing_false_while_running.append(f"{job.get('done')}/{job.get('total')}")
        if job.get("state") == "running" and busy is None:
            rc, out, err, ms = env.run(["compact", "--json"])
            busy = (rc, err, ms)
        if job.get("state") in ("done", "failed"):
            final = job
            break
        q, q_err, q_ms, _ = mcp.call("search", {"query": "where is the csrf token validated", "no_cache": True})
        search_ms.append(q_ms)
        search_errors += q_err
        empty += not q.get("hits")
        time.sleep(0.5)
    progress = [s for s in seen if s[1] == "running" and s[3]]
    dones = [s[2] for s in progress]
    rep.info("progress seen (s, state, done, total, eta_s): "
             + " ".join(f"({s[0]},{s[1]},{s[2]}/{s[3]},eta {s[4]})" for s in seen))
    rep.check("5b job progress reported",
              len(progress) >= 2 and dones == sorted(dones) and any(s[4] is not None for s in progress),
              f"{len(progress)} running samples with done/total, "
              f"{sum(s[4] is not None for s in progress)} with an ETA, done non-decreasing: {dones == sorted(dones)}")
    rep.check("5c searches kept answering during the job",
              len(search_ms) >= 2 and search_errors == 0 and max(search_ms, default=0) < 5000,
              f"{len(search_ms)} searches, {search_errors} errors, max {max(search_ms, default=0):.0f} ms, "
              f"p50 {p50(search_ms):.0f} ms; {empty} answered with no hits (index being rebuilt)")
    rep.check("5d job ends done", bool(final) and final.get("state") == "done",
              f"{final}" if final else f"not finished after {time.monotonic() - t0:.0f} s")
    if busy:
        rc, err, ms = busy
        hint = next((l for l in err.splitlines() if l.startswith("hint:")), "")
        rep.check("5e compact refused at once while the job writes", rc == 2 and "INDEX_BUSY" in err and ms < 1000 and bool(hint),
                  f"exit {rc} in {ms:.0f} ms, {'INDEX_BUSY' if 'INDEX_BUSY' in err else 'no INDEX_BUSY'}; {hint!r}")
        if "--no-wait" in hint:
            rep.info("note: compact's INDEX_BUSY hint talks of `repo-search index ... --no-wait` (index's hint; compact has no such flag)")
    if indexing_false_while_running:
        rep.info(f"note: index_status said indexing=false while the job was running, at done/total "
                 + ", ".join(indexing_false_while_running))


def check_evals(rep, env):
    """6: a project's own eval cases."""
    evals = env.copy / ".repo_search" / "evals"
    evals.mkdir(parents=True, exist_ok=True)
    cases = [
        {"id": "dj-1", "category": "concept", "tool": "search", "query": "where are settings loaded",
         "expect": {"paths": ["django/conf/__init__.py"]}},
        {"id": "dj-2", "category": "concept", "tool": "search", "query": "validate the csrf token of a request",
         "expect": {"paths": ["django/middleware/csrf.py"]}},
        {"id": "dj-3", "category": "symbol", "tool": "find_symbol", "query": "get_user_model",
         "expect": {"paths": ["django/contrib/auth/__init__.py"]}},
    ]
    (evals / "mine.jsonl").write_text("".join(json.dumps(c) + "\n" for c in cases))
    results = evals / "results"
    before = set(results.glob("*")) if results.is_dir() else set()
    rc, data, err, ms = env.json(["run", "--modes", "hybrid,bm25"], binary="repo-search-eval", root=False)
    new = sorted(set(results.glob("*.json")) - before) if results.is_dir() else []
    ids = sorted({c.get("id") for c in (data or {}).get("cases", [])})
    saved_ok = False
    if len(new) == 1:
        try:
            saved_ok = bool(json.loads(new[0].read_text()).get("cases"))
        except (OSError, json.JSONDecodeError):
            pass
    rows = [f"{r['mode']} mrr {r['mrr10']:.2f}" for r in (data or {}).get("rows", []) if r.get("category") == "all"]
    rep.check("6a repo-search-eval run on the project's cases",
              rc == 0 and ids == ["dj-1", "dj-2", "dj-3"] and saved_ok,
              f"rc {rc} in {ms:.0f} ms; cases {ids}; {'; '.join(rows)}; saved "
              + (str(new[0].relative_to(env.copy)) if new else "nothing")
              + ("" if rc == 0 else f"; stderr {err.strip()[:200]}"))
    bad = []
    for args in (["keyword", "dj-1"], ["keyword", "--hidden", "--no-ignore", "dj-2"]):
        rc, out, err, _ = env.run(args)
        if rc != 1 or ".repo_search" in out:
            bad.append(f"{' '.join(args)}: rc {rc} {out.strip()[:120]!r}")
    rc, data, err, _ = env.json(["search", "--mode", "bm25", "dj-3 get_user_model"])
    if any(p.startswith(".repo_search") for p in hit_paths((data or {}).get("hits", []))):
        bad.append("search --mode bm25 finds .repo_search/")
    rep.check("6b the report is not searchable", not bad,
              "keyword dj-1, keyword --hidden --no-ignore dj-2: no match (exit 1); bm25 finds nothing in .repo_search/"
              if not bad else "; ".join(bad))


def check_status_daemon(rep, env, mcp_log):
    """7: the runtime block of status --json and index_status with a daemon running."""
    rc, out, err, _ = env.run(["start"], binary="repo-search-daemon", root=False)
    if not rep.check("7a daemon starts (private home)", rc == 0, f"rc {rc}: {(out + err).strip()[:160]}"):
        return
    mcp = None
    try:
        rc, data, err, _ = env.json(["projects", "watch", str(env.copy)], root=False)
        rc_p, projects, _, _ = env.json(["projects"])
        entry = next((p for p in (projects or {}).get("projects", []) if p.get("root") == str(env.copy)), {})
        # Give the watcher something to see.
        deadline = time.time() + 5
        dstatus = {}
        while time.time() < deadline:
            with open(env.copy / "django" / "utils" / "text.py", "a") as f:
                f.write("\n# ops-check: a watcher event\n")
            time.sleep(1.0)
            _, dstatus, _, _ = env.json(["status"], binary="repo-search-daemon", root=False)
            proj = next((p for p in (dstatus or {}).get("projects", []) if p.get("root") == str(env.copy)), {})
            if proj.get("events_last_minute", 0) >= 1 and proj.get("queue") == 0:
                break
        rep.check("7b copy registered and watched",
                  entry.get("watch") is True and proj.get("watch") is True and proj.get("state") in ("watching", "indexing"),
                  f"projects: watch={entry.get('watch')}, daemon_running={(projects or {}).get('daemon_running')}; "
                  f"daemon status: state={proj.get('state')}, events={proj.get('events_last_minute')}, queue={proj.get('queue')}")
        daemon_pid = (dstatus or {}).get("pid")

        rc, st, err, _ = env.json(["status"])
        rt = (st or {}).get("runtime") or {}
        d = rt.get("daemon") or {}
        need = ["version", "pid", "uptime_s", "rss_bytes", "searches_last_hour", "search_mean_ms", "search_p50_ms"]
        need_d = ["pid", "version", "uptime_s", "watching", "events_last_minute", "queue"]
        missing = [k for k in need if k not in rt] + [f"daemon.{k}" for k in need_d if k not in d]
        ok = (rc == 0 and not missing and d.get("pid") == daemon_pid and d.get("watching") is True
              and d.get("events_last_minute", 0) >= 1 and rt.get("rss_bytes", 0) > 0
              and rt.get("searches_last_hour", 0) > 0)
        rep.check("7c status --json runtime block", ok,
                  f"version {rt.get('version')}, pid {rt.get('pid')}, uptime {rt.get('uptime_s')} s, "
                  f"rss {rt.get('rss_bytes', 0) / 2**20:.0f} MiB, searches {rt.get('searches_last_hour')} "
                  f"(mean {rt.get('search_mean_ms')} ms, p50 {rt.get('search_p50_ms')} ms); daemon pid {d.get('pid')} "
                  f"(want {daemon_pid}), watching {d.get('watching')}, state {d.get('state')}, "
                  f"events {d.get('events_last_minute')}, queue {d.get('queue')}"
                  + (f"; missing {missing}" if missing else ""))

        mcp = Mcp(env, mcp_log)
        sc, is_err, _, _ = mcp.call("index_status", {})
        sv = sc.get("server") or {}
        sd = sv.get("daemon") or {}
        missing = [k for k in need if k not in sv] + [f"daemon.{k}" for k in need_d if k not in sd]
        ok = (not is_err and not missing and sd.get("pid") == daemon_pid and sd.get("watching") is True
              and sv.get("pid") == mcp.p.pid and sv.get("rss_bytes", 0) > 0)
        rep.check("7d MCP index_status server block", ok,
                  f"server pid {sv.get('pid')} (want {mcp.p.pid}), version {sv.get('version')}, uptime {sv.get('uptime_s')} s, "
                  f"rss {sv.get('rss_bytes', 0) / 2**20:.0f} MiB, searches {sv.get('searches_last_hour')} "
                  f"(mean {sv.get('search_mean_ms')} ms, p50 {sv.get('search_p50_ms')} ms); daemon pid {sd.get('pid')}, "
                  f"watching {sd.get('watching')}, events {sd.get('events_last_minute')}, queue {sd.get('queue')}"
                  + (f"; missing {missing}" if missing else ""))
    finally:
        if mcp:
            mcp.close()
        rc, out, err, _ = env.run(["stop"], binary="repo-search-daemon", root=False)
        rc_s, _, _, _ = env.run(["status"], binary="repo-search-daemon", root=False)
        rep.check("7e daemon stops", rc == 0 and rc_s == 3, f"stop rc {rc}, then status rc {rc_s} (want 3)")


def check_compact(rep, env):
    """3: dropping a model from the config, then compact."""
    _, st0, _, _ = env.json(["stats"])
    vec0 = {v["model"]: v for v in (st0 or {}).get("vectors", [])}
    fast0 = vec0.get(FAST_MODEL, {})
    others0 = {m: v.get("embedded") for m, v in vec0.items() if m != FAST_MODEL}
    emb0 = table_bytes(st0, "embeddings")
    present = fast0.get("embedded", 0) > 0 and fast0.get("embedded") == fast0.get("total")
    rep.check("3a fast model vectors present before", present,
              f"{FAST_MODEL}: {fast0.get('embedded')}/{fast0.get('total')}; others {others0}")
    rc, out, err, _ = env.run(["config", "set", "embed.fast", "false"])
    rc_c, data, err_c, ms = env.json(["compact"])
    data = data or {}
    _, st1, _, _ = env.json(["stats"])
    _, status1, _, _ = env.json(["status"])
    models1 = {v["model"]: v for v in (st1 or {}).get("vectors", [])}
    models_status = {v["model"] for v in (status1 or {}).get("embeddings", [])}
    others1 = {m: v.get("embedded") for m, v in models1.items() if m != FAST_MODEL}
    gone = FAST_MODEL not in models1 or models1[FAST_MODEL].get("embedded", 0) == 0
    gone = gone and FAST_MODEL not in models_status
    sizes_ok = (data.get("after_bytes") or 0) < (data.get("before_bytes") or 0)
    db_after = (st1 or {}).get("sizes", {}).get("db_bytes")
    emb1 = table_bytes(st1, "embeddings")
    ok = (rc == 0 and rc_c == 0 and sizes_ok and gone and FAST_MODEL in data.get("models_dropped", [])
          and others1 == others0 and db_after == data.get("after_bytes") and emb1 < emb0)
    rep.check("3b compact drops the unconfigured model's vectors", ok,
              f"config set rc {rc}; compact rc {rc_c} in {ms:.0f} ms: {data.get('before_bytes')} -> {data.get('after_bytes')} bytes "
              f"(stats db_bytes {db_after}; embeddings table {emb0} -> {emb1}), dropped {data.get('vectors_dropped')} vectors of {data.get('models_dropped')}; "
              f"{FAST_MODEL} in stats/status after: {FAST_MODEL in models1}/{FAST_MODEL in models_status}; "
              f"other models kept {others1} (before {others0})" + ("" if rc_c == 0 else f"; {err_c.strip()[:200]}"))
    env.run(["config", "unset", "embed.fast"])


def check_config(rep, env):
    """4: set/get round trips, refusals, comments kept."""
    cfg = env.copy / ".repo_search" / "config.toml"
    user_cfg = env.home / "config.toml"
    rows = []
    bad = []
    for key, value, user, want in [
        ("index.max_file_size", "3000000", False, "3000000"),
        ("index.exclude", "vendor/**, *.min.js", False, '["vendor/**","*.min.js"]'),
        ("embed.batch_size", "32", True, "32"),
        ("embed.offline", "true", True, "true"),
    ]:
        scope = ["--user"] if user else []
        rc, out, err, _ = env.run(["config", "set", key, value] + scope)
        rc_g, data, _, _ = env.json(["config", "get", key])
        got = (data or {}).get("value")
        if isinstance(got, str) and got.startswith("["):
            try:  # a list is printed as its TOML literal
                got = json.loads(got)
            except json.JSONDecodeError:
                pass
        if isinstance(got, (list, dict)):
            got = json.dumps(got, separators=(",", ":"))
        src = str((data or {}).get("source", ""))
        want_src = str(user_cfg if user else cfg)
        rows.append(f"{key}{' --user' if user else ''}={got!r} from {'user' if user else 'project'} file")
        if rc != 0 or rc_g != 0 or got != want or want_src not in src:
            bad.append(f"{key}: set rc {rc} {err.strip()[:100]!r}, get rc {rc_g} {got!r} (want {want!r}), source {src!r}")
    rep.check("4a config set/get round trip (project and --user)", not bad, "; ".join(rows if not bad else bad))

    bad = []
    rows = []
    snap = (cfg.read_bytes(), user_cfg.read_bytes())
    for args, why in [
        (["embed.batch_size", "many"], "wrong type"),
        (["embed.batch_size", "0"], "out of range"),
        (["index.hidden", "maybe"], "wrong type"),
        (["embed.provider", "carrier-pigeon"], "bad choice"),
        (["index.bogus", "1"], "unknown key"),
        (["index.max_file_size", "1000", "--user"], "project key in the user file"),
    ]:
        rc, out, err, _ = env.run(["config", "set"] + args)
        hint = "\nhint:" in "\n" + err
        rows.append(f"{why} exit {rc}{' +hint' if hint else ' NO HINT'}")
        if rc != 2 or not hint:
            bad.append(f"{' '.join(args)}: exit {rc}, stderr {err.strip()[:120]!r}")
    untouched = snap == (cfg.read_bytes(), user_cfg.read_bytes())
    rep.check("4b bad values and keys refused (exit 2, hint:), files untouched", not bad and untouched,
              "; ".join(rows) + f"; files untouched: {untouched}" + ("" if not bad else "; " + " | ".join(bad)))

    text = cfg.read_text()
    comment = "# ops-check: keep this comment"
    inline = "  # ops-check inline"
    lines = text.splitlines()
    # A comment of its own line, and one at the end of a line the set does
    # not touch (the edited key's own line is rewritten, by design).
    lines = [comment] + [l + inline if l.startswith("exclude") else l for l in lines]
    cfg.write_text("\n".join(lines) + "\n")
    rc, _, err, _ = env.run(["config", "set", "index.max_file_size", "4000000"])
    rc2, _, err2, _ = env.run(["config", "set", "index.hidden", "true"])
    after = cfg.read_text()
    _, got, _, _ = env.json(["config", "get", "index.max_file_size"])
    ok = (rc == 0 and rc2 == 0 and comment in after and inline in after
          and (got or {}).get("value") in ("4000000", 4000000)
          and "hidden = true" in after)
    rep.check("4c comments survive a set", ok,
              f"set rc {rc}/{rc2}; top comment kept: {comment in after}; "
              f"end-of-line comment of another key kept: {inline in after}; "
              f"value now {(got or {}).get('value')!r}")

    bad = []
    for key, user in [("index.max_file_size", False), ("index.exclude", False), ("index.hidden", False),
                      ("embed.batch_size", True), ("embed.offline", True)]:
        rc, _, err, _ = env.run(["config", "unset", key] + (["--user"] if user else []))
        _, got, _, _ = env.json(["config", "get", key])
        if rc != 0 or "default" not in str((got or {}).get("source", "")):
            bad.append(f"{key}: unset rc {rc}, now {got}")
    rep.check("4d config unset returns to the default", not bad,
              "5 keys back to their defaults; comment still there: " + str(comment in cfg.read_text())
              if not bad else "; ".join(bad))


def check_clean(rep, env):
    """8: clean removes the index and the registry entry."""
    rc, data, err, _ = env.json(["clean", "--yes"])
    left = [str(p.relative_to(env.copy)) for p in env.copy.rglob(".repo_search")]
    rc_p, projects, _, _ = env.json(["projects"], root=False)
    listed = [p.get("root") for p in (projects or {}).get("projects", [])]
    ok = rc == 0 and not left and str(env.copy) not in listed and projects is not None
    rep.check("8a clean --yes --json", ok,
              f"rc {rc}: {json.dumps(data)[:200] if data else err.strip()[:200]}; .repo_search left: {left or 'none'}; "
              f"projects lists {listed} (rc {rc_p})")


def check_clean_with_daemon(rep, env):
    """8b: clean while the daemon watches the project and computes vectors."""
    rc, data, err, _ = env.json(["index"])
    rc_d, out, err_d, _ = env.run(["start"], binary="repo-search-daemon", root=False)
    try:
        if not rep.check("8b setup: index again, start the daemon", rc == 0 and rc_d == 0,
                         f"index rc {rc}, daemon start rc {rc_d}"):
            return
        state = None
        deadline = time.time() + 20
        while time.time() < deadline:
            _, ds, _, _ = env.json(["status"], binary="repo-search-daemon", root=False)
            proj = next((p for p in (ds or {}).get("projects", []) if p.get("root") == str(env.copy)), {})
            state = (proj.get("embeddings") or {}).get("state")
            if state == "embedding":
                break
            time.sleep(0.3)
        rc, data, err, _ = env.json(["clean", "--yes"])
        gone_at_once = not (env.copy / ".repo_search").exists()
        time.sleep(2.0)
        left = sorted(p.name for p in (env.copy / ".repo_search").iterdir()) if (env.copy / ".repo_search").exists() else []
        _, projects, _, _ = env.json(["projects"], root=False)
        listed = [p.get("root") for p in (projects or {}).get("projects", [])]
        ok = rc == 0 and gone_at_once and not left and str(env.copy) not in listed
        rep.check("8c clean --yes while the daemon computes vectors", ok,
                  f"daemon was {state or 'not embedding'}; clean rc {rc}; .repo_search gone at once: {gone_at_once}; "
                  f"2 s later: {('.repo_search/ holds ' + ', '.join(left)) if left else 'none'}; "
                  f"projects lists the copy: {str(env.copy) in listed}")
    finally:
        env.run(["stop"], binary="repo-search-daemon", root=False)


def check_prune(rep, env, tmp):
    """8d: projects --prune forgets a project whose root is gone."""
    other = tmp / "gone"
    (other / "pkg").mkdir(parents=True)
    (other / "pkg" / "a.py").write_text("def alpha():\n    return 1\n")
    rc, _, err, _ = env.run(["index", "--root", str(other)], root=False)
    _, before, _, _ = env.json(["projects"], root=False)
    shutil.rmtree(other)
    _, listed, _, _ = env.json(["projects"], root=False)
    entry = next((p for p in (listed or {}).get("projects", []) if p.get("root") == str(other)), {})
    rc_p, pruned, err_p, _ = env.json(["projects", "--prune"], root=False)
    still = [p.get("root") for p in (pruned or {}).get("projects", [])]
    _, again, _, _ = env.json(["projects"], root=False)
    again = [p.get("root") for p in (again or {}).get("projects", [])]
    registered = any(p.get("root") == str(other) for p in (before or {}).get("projects", []))
    ok = rc == 0 and registered and entry.get("root_exists") is False and str(other) not in still + again
    rep.check("8d projects --prune forgets a root that is gone", ok,
              f"indexed rc {rc}, registered {registered}; after rm: root_exists {entry.get('root_exists')}; "
              f"--prune rc {rc_p} ({err_p.strip()[:80]!r}); listed after: {still + again or 'none'}")


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin-dir", default=str(REPO / "target" / "release"))
    ap.add_argument("--tree", help="repository to copy (default: Django 5.1.15 sdist)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    a = ap.parse_args()

    def setup_error(msg):
        print(f"error: {msg}", file=sys.stderr)
        return 2

    for b in ("repo-search", "repo-search-daemon", "repo-search-eval"):
        if not os.access(Path(a.bin_dir) / b, os.X_OK):
            return setup_error(f"{Path(a.bin_dir) / b} is not an executable (build with cargo build --release)")
    try:
        tree = Path(a.tree).resolve() if a.tree else fetch_django()
    except (subprocess.CalledProcessError, OSError, tarfile.TarError) as e:
        return setup_error(f"cannot fetch {DJANGO}: {e}")
    if not tree.is_dir():
        return setup_error(f"{tree} is not a directory")
    models = os.environ.get("REPO_SEARCH_MODEL_CACHE")
    if not models:
        # The user's own model cache when it has models, else one of ours.
        user_home = Path(os.environ.get("REPO_SEARCH_HOME") or Path.home() / ".repo_search")
        models = user_home / "models"
        if not (models.is_dir() and any(models.iterdir())):
            models = CACHE / "models"
            models.mkdir(parents=True, exist_ok=True, mode=0o700)

    started = time.monotonic()
    tmp = Path(tempfile.mkdtemp(prefix="repo-search-ops-"))
    home = tmp / "home"
    home.mkdir(mode=0o700)
    copy = tmp / "copy"
    copy_tree(tree, copy)
    env = Env(a.bin_dir, home, copy, models)
    rep = Report()
    print(f"tree {tree} -> {copy}; home {home}; binaries {Path(a.bin_dir).resolve()}", flush=True)

    mcp = None
    try:
        rc, data, err, ms = env.json(["index"])
        embed = {e.get("tier"): e for e in (data or {}).get("embed", [])}
        fast = embed.get("fast", {})
        if not rep.check("0 index the copy", rc == 0 and data is not None,
                         f"{ms / 1000:.1f} s: {(data or {}).get('files')} files, {(data or {}).get('chunks')} chunks, "
                         f"fast vectors {fast.get('with_vectors')}/{fast.get('total_chunks')}"
                         + ("" if rc == 0 else f"; rc {rc} {err.strip()[-300:]}")):
            return 1
        mcp = Mcp(env, tmp / "mcp.log")
        check_session(rep, env, mcp)
        check_cache(rep, env, mcp)
        check_index_job(rep, env, mcp)
        mcp.close()
        mcp = None
        check_evals(rep, env)
        check_status_daemon(rep, env, tmp / "mcp.log")
        check_compact(rep, env)
        check_config(rep, env)
        check_clean(rep, env)
        check_clean_with_daemon(rep, env)
        check_prune(rep, env, tmp)
    except (McpError, subprocess.TimeoutExpired) as e:
        rep.check("harness", False, f"{type(e).__name__}: {e}")
    finally:
        if mcp:
            mcp.close()
        # Never leave a daemon of the private home behind.
        pid_file = home / "daemon.pid"
        if pid_file.exists():
            env.run(["stop"], binary="repo-search-daemon", root=False, timeout=30)
        if a.keep:
            print(f"kept {tmp}", flush=True)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    took = time.monotonic() - started
    print(f"{rep.count - len(rep.failed)}/{rep.count} checks passed in {took:.0f} s"
          + (f"; FAILED: {', '.join(rep.failed)}" if rep.failed else ""), flush=True)
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main())
