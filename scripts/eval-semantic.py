#!/usr/bin/env python3
"""Natural-language -> code retrieval on a real Python tree: BM25 vs the
fast embedding tier (potion-base-8M) vs the full tier (all-MiniLM-L6-v2).

    scripts/eval-semantic.py [--corpus DIR] [--n 250] [--subdirs a b ...]

Cases: for functions with a docstring (and at least one other statement),
query = the docstring's first sentence; the docstring is blanked (replaced
by empty lines, so line numbers stay) in the indexed copy; a hit is a
returned span in the same file that overlaps the function. Metric: MRR@10
(and recall@10). Cases use the format of evals/nl.jsonl (query, expect,
blank), so the eval framework can reuse them (`--write-cases FILE`).

Needs: target/release/repo-search, the models in the cache
($REPO_SEARCH_MODEL_CACHE, default ~/.cache/repo-search-test-home/models;
`repo-search model fetch` puts them there). The corpus defaults to the
Django 5.1.15 sdist in $CORPORA (default ~/.cache/repo-search-corpora),
fetched with pip if missing. Embedding the full tier takes minutes on 2
cores: the default subset is ~2,700 chunks.
"""

import argparse
import ast
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
SEED = 20261123
DEFAULT_SUBDIRS = ["django/utils", "django/http", "django/core", "django/forms", "django/urls", "django/middleware"]


def first_sentence(text):
    text = text.strip().split("\n\n")[0]
    text = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    return (m.group(1) if m else text).strip()


def good_query(s):
    words = s.split()
    return 5 <= len(words) <= 40 and not s.lower().startswith(("todo", "deprecated", "see ", "copied", "same as"))


def py_files(root, subdirs):
    for sub in subdirs:
        for d, dirs, files in os.walk(os.path.join(root, sub)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(".py"):
                    yield os.path.join(d, f)


def make_cases(root, subdirs, n):
    cases, seen = [], set()
    for path in py_files(root, subdirs):
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        try:
            tree = ast.parse(open(path, encoding="utf-8").read())
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            doc = ast.get_docstring(node)
            if not doc or len(node.body) < 2:
                continue
            d = node.body[0]
            if d.lineno == node.lineno:
                continue  # docstring on the `def` line: cannot blank it
            q = first_sentence(doc)
            if not good_query(q) or q in seen:
                continue
            seen.add(q)
            start = min([node.lineno] + [x.lineno for x in node.decorator_list])
            cases.append({
                "query": q,
                "expect": {"spans": [{"path": rel, "start_line": start, "end_line": node.end_lineno}]},
                "blank": [{"path": rel, "start_line": d.lineno, "end_line": d.end_lineno}],
                "name": node.name,
            })
    random.Random(SEED).shuffle(cases)
    return cases[:n]


def build_tree(root, subdirs, cases, dest):
    """Copies the subset, with every case's docstring replaced by blank lines."""
    if os.path.exists(dest):
        shutil.rmtree(dest)
    blanks = {}
    for c in cases:
        for b in c["blank"]:
            blanks.setdefault(b["path"], []).append((b["start_line"], b["end_line"]))
    for path in py_files(root, subdirs):
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        out = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        lines = open(path, encoding="utf-8").read().split("\n")
        for s, e in blanks.get(rel, []):
            for i in range(s - 1, e):
                lines[i] = ""
        open(out, "w", encoding="utf-8").write("\n".join(lines))


def run(binary, args, env):
    t = time.perf_counter()
    p = subprocess.run([binary] + args, capture_output=True, text=True, env=env)
    return p, time.perf_counter() - t


def rank_of(hits, expect):
    for i, h in enumerate(hits[:10]):
        for s in expect["spans"]:
            if h["path"] == s["path"] and h["start_line"] <= s["end_line"] and h["end_line"] >= s["start_line"]:
                return i + 1
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=None)
    ap.add_argument("--subdirs", nargs="*", default=DEFAULT_SUBDIRS)
    ap.add_argument("--n", type=int, default=250)
    ap.add_argument("--bin", default=os.path.join(REPO, "target", "release", "repo-search"))
    ap.add_argument("--models", default=os.environ.get("REPO_SEARCH_MODEL_CACHE", os.path.expanduser("~/.cache/repo-search-test-home/models")))
    ap.add_argument("--work", default="/tmp/repo-search-eval-semantic")
    ap.add_argument("--modes", default="bm25,fast,full,hybrid-fast,hybrid",
                    help="bm25, fast/full (semantic with that tier), hybrid-fast/hybrid (fused, with that tier)")
    ap.add_argument("--write-cases", default=None, help="also write the cases as JSONL here")
    a = ap.parse_args()

    corpus = a.corpus
    if corpus is None:
        base = os.environ.get("CORPORA", os.path.expanduser("~/.cache/repo-search-corpora"))
        corpus = os.path.join(base, "django-5.1.15")
        if not os.path.isdir(corpus):
            os.makedirs(base, exist_ok=True)
            subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-binary", ":all:", "--no-deps", "django==5.1.15", "-d", base], check=True)
            subprocess.run(["tar", "xzf", os.path.join(base, "django-5.1.15.tar.gz"), "-C", base], check=True)
    if not os.path.exists(a.bin):
        subprocess.run(["cargo", "build", "--release", "--locked"], cwd=REPO, check=True)

    cases = make_cases(corpus, a.subdirs, a.n)
    if a.write_cases:
        with open(a.write_cases, "w") as f:
            for i, c in enumerate(cases):
                f.write(json.dumps(dict(id=f"nl-sem-{i:03d}", **c)) + "\n")
    tree = os.path.join(a.work, "tree")
    build_tree(corpus, a.subdirs, cases, tree)
    env = dict(os.environ, REPO_SEARCH_HOME=os.path.join(a.work, "home"), REPO_SEARCH_MODEL_CACHE=a.models)
    env.pop("REPO_SEARCH_EMBED_PROVIDER", None)
    print(f"{len(cases)} cases from {', '.join(a.subdirs)} of {corpus}", file=sys.stderr)

    modes = a.modes.split(",")
    tiers = "all" if ("full" in modes or "hybrid" in modes) else "fast"
    p, secs = run(a.bin, ["index", "--root", tree, "--json", "--embed-tier", tiers], env)
    if p.returncode != 0:
        sys.exit(f"index failed: {p.stderr}")
    summary = json.loads(p.stdout)
    print(f"indexed {summary['chunks']} chunks in {secs:.0f}s", file=sys.stderr)
    for e in summary.get("embed", []):
        print(f"  {e['tier']}: {e['model']} {e['with_vectors']}/{e['total_chunks']} in {e['seconds']:.1f}s", file=sys.stderr)

    results = {}
    for mode in modes:
        menv = dict(env)
        args = ["--mode", "bm25"]
        if mode in ("fast", "full"):
            args = ["--mode", "semantic"]
        if mode in ("hybrid", "hybrid-fast"):
            args = ["--mode", "hybrid"]
        if mode in ("fast", "hybrid-fast"):
            # Only the fast tier configured: search must use potion.
            menv["REPO_SEARCH_EMBED_PROVIDER"] = "none"
        ranks, times, model = [], [], None
        for c in cases:
            p, secs = run(a.bin, ["search", c["query"], "--root", tree, "--json", "-n", "10", "--scope", "code"] + args, menv)
            if p.returncode not in (0, 1):
                sys.exit(f"{mode}: search failed: {p.stderr}")
            v = json.loads(p.stdout)
            v = v.get("result", v)  # hybrid answers are wrapped
            model = v.get("model", v.get("semantic_model", model))
            ranks.append(rank_of(v.get("hits", []), c["expect"]))
            times.append(secs)
        mrr = sum(1.0 / r for r in ranks if r) / len(ranks)
        recall = sum(1 for r in ranks if r) / len(ranks)
        results[mode] = {"mrr10": mrr, "recall10": recall, "model": model or "bm25", "p50_s": statistics.median(times)}
        print(f"{mode:5} MRR@10 {mrr:.3f} recall@10 {recall:.3f} ({model or 'bm25'}; CLI p50 {statistics.median(times):.2f}s)", file=sys.stderr)

    print("| mode | model | MRR@10 | recall@10 |")
    print("|---|---|---|---|")
    for mode, r in results.items():
        print(f"| {mode} | {r['model']} | {r['mrr10']:.3f} | {r['recall10']:.3f} |")
    with open(os.path.join(a.work, "results.json"), "w") as f:
        json.dump({"cases": len(cases), "subdirs": a.subdirs, "chunks": summary["chunks"], "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
