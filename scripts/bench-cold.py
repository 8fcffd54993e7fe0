#!/usr/bin/env python3
"""Cold CLI search latency: `repo-search search QUERY` (a new process per
query, default hybrid mode) next to `rg QUERY` on the same tree.

Each round runs every query once with each tool, interleaved (ours, rg,
ours, rg, ...), so both see the same machine: this VM's speed drifts and
other jobs share its 2 cores. Reports per tool the median wall time and the
median CPU time (user + sys of the child, from wait4: steadier than wall
time on a busy machine), and the median of the per-pair ratios.

The tree must already be indexed with fast-tier vectors
(`repo-search index --root TREE --embed-tier fast`), or the first call
builds the index and is not a search. A tree with a `.repo_search/` of its
own is searched as it is. Point REPO_SEARCH_MODEL_CACHE (or the config) at a
cache holding potion-base-8M, or the semantic arm is reported unavailable
and the numbers leave the model out.

Usage:
  scripts/bench-cold.py --binary target/release/repo-search --root TREE [--rounds 15]
Suggested tree (~5,500 chunks): flask 3.1.3 + click 8.5.1 sdists and the
serde agent corpus side by side in one directory (see the report of
`repo-search index --json` for the chunk count).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

QUERIES = [
    "parse command line options",
    "register a url route",
    "serialize a struct to json",
    "where is the request context pushed",
    "missing required argument error",
    "get_current_context",
    "Deserializer",
    "send_file",
    '"Content-Type"',
    "load environment variables from a dotenv file",
]


def run(cmd: list[str], cwd: str, env: dict) -> tuple[float, float, int]:
    """Wall seconds, CPU seconds (user + sys) and exit code of one run."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    return wall, ru.ru_utime + ru.ru_stime, os.waitstatus_to_exitcode(status)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", required=True)
    ap.add_argument("--root", required=True)
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--mode", default=None, help="pass --mode to repo-search search (default: its default, hybrid)")
    args = ap.parse_args()
    binary = os.path.realpath(args.binary)
    root = os.path.realpath(args.root)
    rg = shutil.which("rg")
    if rg is None:
        print("rg is not installed (apt-get install ripgrep): not timing a missing binary", file=sys.stderr)
        return 2
    env = dict(os.environ)
    ours_cmd = lambda q: [binary, "search", "--root", root] + (["--mode", args.mode] if args.mode else []) + [q]
    rg_cmd = lambda q: [rg, q]

    # Warm-up: page cache, and a check that the index answers.
    for q in QUERIES:
        _, _, code = run(ours_cmd(q), root, env)
        if code == 2:
            print(f"repo-search search failed on {q!r} (exit 2)", file=sys.stderr)
            return 2
        run(rg_cmd(q), root, env)
    status = subprocess.run([binary, "status", "--root", root, "--json"], capture_output=True, text=True, env=env)
    print(f"tree: {root}")
    if status.returncode == 0:
        import json

        st = json.loads(status.stdout)
        print(f"index: {st.get('files')} files, {st.get('chunks')} chunks")
    print(f"{len(QUERIES)} queries x {args.rounds} rounds, interleaved; machine: {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")

    ours_wall, ours_cpu, rg_wall, rg_cpu, wall_ratio, cpu_ratio = [], [], [], [], [], []
    for _ in range(args.rounds):
        for q in QUERIES:
            ow, oc, _ = run(ours_cmd(q), root, env)
            rw, rc, _ = run(rg_cmd(q), root, env)
            ours_wall.append(ow)
            ours_cpu.append(oc)
            rg_wall.append(rw)
            rg_cpu.append(rc)
            wall_ratio.append(ow / rw)
            cpu_ratio.append(oc / max(rc, 1e-4))
    ms = lambda xs: statistics.median(xs) * 1000
    print(f"{'':28s} {'wall p50':>9s} {'wall p90':>9s} {'cpu p50':>9s}")
    p90 = lambda xs: sorted(xs)[int(0.9 * (len(xs) - 1))] * 1000
    print(f"{'repo-search search (ms)':28s} {ms(ours_wall):9.1f} {p90(ours_wall):9.1f} {ms(ours_cpu):9.1f}")
    print(f"{'rg (ms)':28s} {ms(rg_wall):9.1f} {p90(rg_wall):9.1f} {ms(rg_cpu):9.1f}")
    print(f"{'ratio ours/rg (median)':28s} {statistics.median(wall_ratio):9.2f} {'':9s} {statistics.median(cpu_ratio):9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
