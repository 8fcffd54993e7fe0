#!/usr/bin/env python3
"""Tool-call latency of `repo-search mcp` through stdio, as a client sees it.

Drives the real binary with the official MCP Python SDK (legacy
`initialize` era; the transport and tool code are the same in both eras) and
reports p50/p95/max per tool, measured around `ClientSession.call_tool`, so
the numbers include JSON-RPC framing, the SDK's result parsing and its
outputSchema validation.

Three situations are measured:
- back to back: calls follow each other at once (an agent firing several
  lookups); the index is re-checked at most every 2 s, so most calls do not
  pay for it;
- spaced: calls 2.5 s apart, so every index-backed call first re-checks the
  tree for edits (walk + stat) before answering;
- raw: the back-to-back calls again (hybrid search too) as plain JSON-RPC
  lines in the stateless 2026-07-28 era, without the SDK, which is what the
  server itself costs.

Every call must succeed; answers with no hits are counted per tool and
printed (a fast empty answer is not a fast answer). `--names kernel` uses
query lists for the Linux kernel instead of Django's.

Usage (scripts/setup-test-deps.sh creates .venv-test):
  .venv-test/bin/python scripts/bench-mcp.py --binary target/release/repo-search --root /tmp/corpora/django-5.1.15
The Django sdist: `pip download --no-binary :all: --no-deps django==5.1.15 -d /tmp/corpora`
and unpack it. Copy it first if another process may be indexing the same tree.
"""

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

from mcp import ClientSession, StdioServerParameters, stdio_client

SYMBOLS = [
    "QuerySet",
    "get_object_or_404",
    "ModelAdmin",
    "validate_email",
    "reverse",
    "HttpResponse",
    "CsrfViewMiddleware",
    "cached_property",
    "render_to_string",
    "get_user_model",
    "Field.clean",
    "BaseForm",
    "atomic",
    "slugify",
    "paginate_queryset",
]

# `search` (hybrid by default): natural language, identifiers, a quoted phrase.
QUERIES = [
    "where is the csrf token validated",
    "send an email to the site admins",
    "parse the http accept language header",
    "retry database connection after failure",
    "cache a property on the instance",
    "get_object_or_404",
    "QuerySet.filter",
    '"Content-Disposition"',
    "validate that the slug only has letters and hyphens",
    "paginate a list of objects",
]

PATTERNS = [
    {"pattern": "def get_queryset"},
    {"pattern": "csrf_token"},
    {"pattern": r"class \w+Admin\(", "glob": ["*.py"]},
    {"pattern": "TODO", "word": True},
    {"pattern": "import json", "fixed_strings": True},
    {"pattern": "select_for_update", "context": 2},
]

# `--names kernel`: the same kinds of calls on the Linux kernel (Debian's
# linux-source-6.1, as scripts/bench-linux.sh unpacks it).
KERNEL_SYMBOLS = [
    "task_struct",
    "kmalloc",
    "spin_lock_irqsave",
    "mutex_lock",
    "copy_from_user",
    "schedule",
    "list_add",
    "kfree",
    "file_operations",
    "platform_driver_register",
    "dev_err",
    "vm_area_struct",
    "alloc_pages",
    "wake_up_process",
    "sk_buff",
]
KERNEL_QUERIES = [
    "where is a page fault handled",
    "how does a network driver receive packets",
    "allocate memory in interrupt context",
    "the scheduler picks the next task to run",
    "register a character device",
    "kmalloc",
]
KERNEL_PATTERNS = [
    {"pattern": r"EXPORT_SYMBOL_GPL\(kvm_"},
    {"pattern": "CONFIG_NUMA_BALANCING"},
    {"pattern": "syzbot", "case_insensitive": True},
    {"pattern": r"kmalloc\([^,]+, GFP_ATOMIC\)"},
    {"pattern": "spin_lock_irqsave", "glob": ["!drivers/**"]},
    {"pattern": "copy_from_user", "context": 2},
]

# The code graph tools on Django (names and paths of django-5.1.15).
GRAPH = [
    ("find_references", {"name": "QuerySet.filter"}),
    ("find_references", {"name": "Model.save"}),
    ("find_references", {"name": "HttpRequest.get_host"}),
    ("callers", {"name": "Query.add_q"}),
    ("callers", {"name": "Model.full_clean", "depth": 2}),
    ("callees", {"name": "QuerySet.filter"}),
    ("callees", {"name": "Model.save_base"}),
    ("context", {"path": "django/db/models/query.py", "line": 1480}),
    ("imports", {"path": "django/db/models/query.py"}),
    ("imports", {"path": "django/db/models/__init__.py", "direction": "imported_by"}),
]


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    k = max(0, min(len(s) - 1, round(q * (len(s) - 1))))
    return s[k]


def report(name: str, values: list[float]) -> None:
    if not values:
        print(f"{name:42s} n=   0  (not run)")
        return
    ms = [v * 1000 for v in values]
    print(
        f"{name:42s} n={len(ms):4d}  p50={pct(ms, 0.50):7.1f} ms  p95={pct(ms, 0.95):7.1f} ms  "
        f"max={max(ms):7.1f} ms  mean={statistics.fmean(ms):7.1f} ms"
    )


# Answers with nothing in them, per tool: a fast empty answer is not a fast
# answer (a semantic search without vectors, a symbol that is not there).
EMPTY: dict[str, int] = {}


async def timed(session: ClientSession, tool: str, args: dict) -> tuple[float, object]:
    t = time.perf_counter()
    r = await session.call_tool(tool, args)
    dt = time.perf_counter() - t
    if r.is_error:
        raise RuntimeError(f"{tool} {args} failed: {r.content}")
    sc = r.structured_content or {}
    lists = [v for k, v in sc.items() if k in ("hits", "matches", "results", "symbols", "references") and isinstance(v, list)]
    if lists and not any(lists):
        EMPTY[tool] = EMPTY.get(tool, 0) + 1
    return dt, r


def bench_raw(binary: str, root: str, env: dict, rounds: int) -> None:
    """The same calls as raw JSON-RPC lines in the stateless 2026-07-28 era
    (`_meta` on every request, no SDK): what the server itself costs."""
    import json
    import subprocess

    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "bench-raw", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    proc = subprocess.Popen(
        [binary, "mcp", "--root", root],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **env},
        text=True,
        bufsize=1,
    )
    next_id = 0

    def call(tool: str, arguments: dict) -> float:
        nonlocal next_id
        next_id += 1
        msg = {"jsonrpc": "2.0", "id": next_id, "method": "tools/call", "params": {"_meta": meta, "name": tool, "arguments": arguments}}
        t = time.perf_counter()
        proc.stdin.write(json.dumps(msg) + "\n")
        proc.stdin.flush()
        while True:
            reply = json.loads(proc.stdout.readline())
            if reply.get("id") == next_id:
                break
        dt = time.perf_counter() - t
        if "error" in reply or reply["result"].get("isError"):
            raise RuntimeError(f"{tool} {arguments}: {reply}")
        return dt

    try:
        for name in SYMBOLS:
            call("find_symbol", {"name": name})
        for p in PATTERNS:
            call("search_keyword", p)
        fs, kw = [], []
        for _ in range(rounds):
            fs += [call("find_symbol", {"name": n}) for n in SYMBOLS]
            kw += [call("search_keyword", p) for p in PATTERNS]
        report("find_symbol (raw JSON-RPC, 2026-07-28)", fs)
        report("search_keyword (raw JSON-RPC, 2026-07-28)", kw)
        # The server's memory once it holds the vector matrix too.
        call("search_semantic", {"query": QUERIES[0]})
        for q in QUERIES:
            call("search", {"query": q, "no_cache": True})
        hy = []
        for _ in range(rounds):
            hy += [call("search", {"query": q, "no_cache": True}) for q in QUERIES]
        report("search, hybrid (raw JSON-RPC, no_cache)", hy)
        try:
            status = open(f"/proc/{proc.pid}/status").read().splitlines()
            kib = {l.split(":")[0]: int(l.split()[1]) for l in status if l.startswith(("VmHWM", "VmRSS", "RssAnon", "RssFile"))}
            print(
                f"server memory after semantic + hybrid: RSS {kib['VmRSS'] / 1024:.0f} MiB "
                f"(private {kib['RssAnon'] / 1024:.0f} MiB, mapped index {kib['RssFile'] / 1024:.0f} MiB), "
                f"peak {kib['VmHWM'] / 1024:.0f} MiB"
            )
        except (OSError, KeyError, ValueError):
            pass
    finally:
        proc.stdin.close()
        proc.wait(timeout=10)


async def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--rounds", type=int, default=10, help="back-to-back rounds over the query lists")
    ap.add_argument("--spaced", type=int, default=12, help="spaced calls per tool (2.5 s apart)")
    ap.add_argument("--names", choices=["django", "kernel"], default="django", help="which tree the query lists are for")
    args = ap.parse_args()
    if args.names == "kernel":
        global SYMBOLS, QUERIES, PATTERNS
        SYMBOLS, QUERIES, PATTERNS = KERNEL_SYMBOLS, KERNEL_QUERIES, KERNEL_PATTERNS
    root = str(Path(args.root).resolve())
    env = {k: os.environ[k] for k in ("REPO_SEARCH_HOME", "REPO_SEARCH_MODEL_CACHE", "REPO_SEARCH_OFFLINE") if k in os.environ}
    params = StdioServerParameters(command=str(Path(args.binary).resolve()), args=["mcp", "--root", root], env=env, cwd=root)
    with open(os.devnull, "w") as devnull:
        async with stdio_client(params, errlog=devnull) as (read, write):
            async with ClientSession(read, write) as session:
                t0 = time.perf_counter()
                await session.initialize()
                print(f"initialize: {(time.perf_counter() - t0) * 1000:.1f} ms")
                # Wait for the index (built in the background if missing).
                t0 = time.perf_counter()
                while True:
                    st = (await session.call_tool("index_status", {})).structured_content
                    if st and st["exists"] and not st["indexing"]:
                        break
                    await asyncio.sleep(0.2)
                print(
                    f"index ready after {time.perf_counter() - t0:.1f} s: {st['files']} files, "
                    f"{st['symbols']} symbols, {st['chunks']} chunks"
                )
                # Warm-up (page cache, connections, statement cache).
                for name in SYMBOLS:
                    await timed(session, "find_symbol", {"name": name})
                for p in PATTERNS:
                    await timed(session, "search_keyword", p)
                for q in QUERIES:
                    await timed(session, "search", {"query": q})
                    await timed(session, "search_semantic", {"query": q})

                fs, kw, hy, se, cached, sizes = [], [], [], [], [], []
                for _ in range(args.rounds):
                    for name in SYMBOLS:
                        dt, r = await timed(session, "find_symbol", {"name": name})
                        fs.append(dt)
                        sizes.append(len(str(r.structured_content)))
                    for p in PATTERNS:
                        dt, r = await timed(session, "search_keyword", p)
                        kw.append(dt)
                        sizes.append(len(str(r.structured_content)))
                    for q in QUERIES:
                        # Computed answers: the server's query cache would
                        # answer these repeats (timed apart below).
                        dt, r = await timed(session, "search", {"query": q, "no_cache": True})
                        hy.append(dt)
                        sizes.append(len(str(r.structured_content)))
                        dt, r = await timed(session, "search", {"query": q, "mode": "semantic", "no_cache": True})
                        se.append(dt)
                        dt, r = await timed(session, "search", {"query": q})
                        cached.append(dt)
                graph: dict[str, list[float]] = {}
                graph_sizes: dict[str, int] = {}
                if (Path(root) / "django/db/models/query.py").exists():
                    for tool, a in GRAPH:
                        await timed(session, tool, a)
                    for _ in range(max(1, args.rounds // 2)):
                        for tool, a in GRAPH:
                            dt, r = await timed(session, tool, a)
                            graph.setdefault(tool, []).append(dt)
                            text = "".join(c.text for c in r.content if hasattr(c, "text"))
                            graph_sizes[tool] = max(graph_sizes.get(tool, 0), len(str(r.structured_content)) + len(text))
                report("find_symbol (back to back)", fs)
                report("search_keyword (back to back)", kw)
                report("search, hybrid (back to back, no_cache)", hy)
                report("search, semantic (back to back, no_cache)", se)
                report("search, hybrid (a repeat: query cache)", cached)
                for tool, values in graph.items():
                    report(f"{tool} (graph, back to back)", values)
                    print(f"    largest answer: {graph_sizes[tool]} characters (JSON + text)")

                fs_sp, kw_sp = [], []
                for i in range(args.spaced):
                    await asyncio.sleep(2.5)
                    dt, _ = await timed(session, "find_symbol", {"name": SYMBOLS[i % len(SYMBOLS)]})
                    fs_sp.append(dt)
                    dt, _ = await timed(session, "search_keyword", PATTERNS[i % len(PATTERNS)])
                    kw_sp.append(dt)
                report("find_symbol (2.5 s apart: re-check)", fs_sp)
                report("search_keyword (2.5 s apart)", kw_sp)
                print(f"result size: max {max(sizes)} characters")
                print("empty answers (of all calls, warm-up included): " + (", ".join(f"{t} {n}" for t, n in sorted(EMPTY.items())) or "none"))
    bench_raw(str(Path(args.binary).resolve()), root, env, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
