#!/usr/bin/env python3
"""Compares `repo-search symbol` with universal-ctags on a real tree.

    scripts/compare-ctags.py TREE [--bin target/release/repo-search] [-n 300]

Takes names that ctags reports exactly once in the tree (functions, classes,
methods, structs, ...), asks `repo-search symbol NAME --exact --json` for
each, and checks that the top hit is the definition ctags found (same path,
same line). Prints agreement, the disagreements, and per-query latency.
The tree must already be indexed (`repo-search index --root TREE`).
"""

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import time

KINDS = {"function", "class", "method", "struct", "enum", "interface", "trait", "macro", "member", "module",
         "namespace", "typedef", "union", "func", "type", "implementation"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tree")
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "repo-search"))
    ap.add_argument("-n", type=int, default=300)
    args = ap.parse_args()
    tree = os.path.abspath(args.tree)
    out = subprocess.run(
        ["ctags", "-R", "--output-format=json", "--fields=+nKl", "--languages=Python,Rust,C,C++,Go,Java,JavaScript,TypeScript,Ruby",
         "--exclude=.repo_search", "--exclude=.git", "-f", "-", "."],
        cwd=tree, capture_output=True, text=True, errors="replace").stdout
    tags = collections.defaultdict(list)
    for line in out.splitlines():
        try:
            t = json.loads(line)
        except json.JSONDecodeError:
            continue
        if t.get("_type") != "tag" or t.get("kind") not in KINDS:
            continue
        tags[t["name"]].append(t)
    unique = sorted(n for n, v in tags.items()
                    if len(v) == 1 and len(n) >= 4 and n.isidentifier() and not n.startswith(("AnonymousFunction", "__anon")))
    random.Random(7).shuffle(unique)
    picks = unique[: args.n]
    agree, disagree, times = 0, [], []
    for name in picks:
        t = tags[name][0]
        want = (t["path"].removeprefix("./"), t["line"])
        s = time.perf_counter()
        res = subprocess.run([args.bin, "symbol", name, "--exact", "--json", "--root", tree], capture_output=True, text=True)
        times.append((time.perf_counter() - s) * 1000)
        hits = json.loads(res.stdout)["hits"] if res.stdout.strip() else []
        got = (hits[0]["path"], hits[0]["line"]) if hits else None
        # ctags reports the line of the name; so does repo-search (`line`).
        if got == want or (hits and hits[0]["path"] == want[0] and hits[0]["start_line"] <= want[1] <= hits[0]["end_line"]):
            agree += 1
        else:
            disagree.append((name, t.get("kind"), want, got))
    n = len(picks)
    times.sort()
    print(f"tree: {tree}")
    print(f"unique ctags names checked: {n}; top hit is the ctags definition: {agree}/{n} ({100.0 * agree / max(n, 1):.1f}%)")
    print(f"latency per CLI call (incl. process start): p50 {times[n // 2]:.1f} ms, p95 {times[int(n * 0.95)]:.1f} ms")
    for name, kind, want, got in disagree[:25]:
        print(f"  DIFF {name} ({kind}): ctags {want[0]}:{want[1]}  repo-search {got}")
    return 0 if agree == n else 1


if __name__ == "__main__":
    sys.exit(main())
