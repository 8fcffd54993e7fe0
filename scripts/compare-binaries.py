#!/usr/bin/env python3
"""Checks that two builds of repo-search give the same answers on a real
tree: for a change of the index's storage (a schema change) that must not
change what symbol, refs, callers, callees, outline and context return.

    scripts/compare-binaries.py OLD_BIN NEW_BIN TREE [--n 100] [--seed 7]

Copies TREE twice (without its .repo_search), indexes each copy with one
binary (`index --no-embed`), samples names and positions from the new
index's outlines of random files, then runs each command through both
binaries and compares stdout (the copies' roots replaced) and exit status.
Prints the commands that differ and a count; exits 1 when any differs.
Python standard library only.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("tree")
    ap.add_argument("--n", type=int, default=100, help="samples per command kind")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="compare-binaries-")
    env = dict(
        os.environ,
        REPO_SEARCH_OFFLINE="1",
        REPO_SEARCH_MODEL_CACHE=os.path.join(work, "no-models"),
        REPO_SEARCH_HOME=os.path.join(work, "home"),
    )
    bins = {"old": os.path.abspath(args.old), "new": os.path.abspath(args.new)}
    roots = {}
    try:
        for tag, binary in bins.items():
            root = os.path.join(work, tag)
            shutil.copytree(args.tree, root, ignore=shutil.ignore_patterns(".repo_search"))
            subprocess.run([binary, "index", "--no-embed", "--quiet"], cwd=root, env=env, check=True)
            roots[tag] = root

        def run(tag, cmd):
            r = subprocess.run([bins[tag]] + cmd, cwd=roots[tag], env=env, capture_output=True)
            return r.returncode, r.stdout.decode("utf-8", "replace").replace(roots[tag], "ROOT")

        files = subprocess.run(
            ["rg", "--files"], cwd=roots["new"], capture_output=True, text=True, check=True
        ).stdout.split()
        rnd = random.Random(args.seed)
        rnd.shuffle(files)
        defs = []  # (path, name, container, kind, line)
        sampled = []
        for path in files:
            if len(sampled) >= args.n:
                break
            code, out = run("new", ["outline", path, "--json"])
            if code != 0:
                continue
            items = json.loads(out).get("symbols", [])
            stack = list(items)
            found = []
            while stack:
                s = stack.pop()
                stack.extend(s.get("children", []) or [])
                found.append(s)
            if not found:
                continue
            sampled.append(path)
            for s in found:
                defs.append((path, s.get("name", ""), s.get("container"), s.get("kind"), s.get("start_line", 1)))
        if not defs:
            sys.exit("no definitions found in the sampled files")
        names = sorted({d[1] for d in defs if d[1]})
        methods = sorted({f"{d[2]}.{d[1]}" for d in defs if d[2] and d[3] in ("method", "function")})
        cmds = []
        for name in rnd.sample(names, min(args.n, len(names))):
            cmds += [["symbol", name, "--json"], ["refs", name, "--json"]]
        for name in rnd.sample(names, min(args.n // 3, len(names))):
            cmds.append(["symbol", name[:3].lower(), "--json"])
        for q in rnd.sample(methods, min(args.n, len(methods))):
            cmds += [["refs", q, "--json"], ["callers", q, "--json"], ["callees", q, "--json"]]
        for path, _, _, _, line in rnd.sample(defs, min(args.n, len(defs))):
            cmds += [["outline", path, "--json"], ["context", path, str(line), "--json"]]
        differ = 0
        for cmd in cmds:
            if run("old", cmd) != run("new", cmd):
                differ += 1
                print("DIFF", " ".join(cmd))
        print(f"{len(cmds)} commands over {len(sampled)} sampled files, {differ} differ")
        sys.exit(1 if differ else 0)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
