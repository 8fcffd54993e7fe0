#!/usr/bin/env python3
"""Scores a peer, semble (hybrid BM25 + static-model code search for agents,
from the Python package index), on the agent suite with the same corpora and
the same static model as ours, and prints it beside our hybrid answers from
an eval run, per split and category (files and chunks NDCG@10 as
`repo-search-eval` scores them: graded 2 / 1, a file counted once).

Usage: scripts/compare-semble.py EVAL_JSON DIRS_TSV MODEL_DIR

  EVAL_JSON  `repo-search-eval run agent --modes hybrid --no-save --json`
             output (ours; its cases give the split and category)
  DIRS_TSV   `corpus<TAB>dir` lines, from `scripts/fetch-corpora.sh`
  MODEL_DIR  a model2vec model directory both are compared with, e.g.
             $REPO_SEARCH_HOME/models/potion-base-8M (ours on the fast tier)

Needs a Python with `semble` installed (`python3 -m venv /tmp/sv &&
/tmp/sv/bin/pip install semble==0.7.0`); run this script with that Python.
Nothing here runs in the test suite. Exit status 2 on a usage error.
"""
import collections
import json
import math
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def gain(expect: dict, path: str) -> int:
    if path in expect.get("paths", []):
        return 2
    if path in expect.get("secondary_paths", []):
        return 1
    return 0


def ideal(expect: dict) -> float:
    grades = [2] * len(expect.get("paths", [])) + [1] * len(expect.get("secondary_paths", []))
    grades = sorted(grades, reverse=True)[:10]
    return sum(g / math.log2(i + 2) for i, g in enumerate(grades))


def ndcg_files(expect: dict, paths: list) -> float:
    distinct = list(dict.fromkeys(paths))[:10]
    return sum(gain(expect, p) / math.log2(i + 2) for i, p in enumerate(distinct)) / ideal(expect)


def ndcg_chunks(expect: dict, paths: list) -> float:
    seen, dcg = set(), 0.0
    for i, p in enumerate(paths[:10]):
        if p not in seen:
            seen.add(p)
            dcg += gain(expect, p) / math.log2(i + 2)
    return dcg / ideal(expect)


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    eval_json, dirs_tsv, model_dir = sys.argv[1:]
    try:
        from semble import SembleIndex
    except ImportError:
        print("error: `semble` is not importable by this Python", file=sys.stderr)
        print("hint: python3 -m venv /tmp/sv && /tmp/sv/bin/pip install semble==0.7.0, then run with /tmp/sv/bin/python", file=sys.stderr)
        return 2
    ours = {
        c["id"]: c
        for c in json.load(open(eval_json))["cases"]
        if c["suite"] == "agent" and c["mode"] == "hybrid"
    }
    dirs = dict(line.rstrip("\n").split("\t", 1) for line in open(dirs_tsv) if "\t" in line)
    by_corpus = collections.defaultdict(list)
    for line in open(REPO / "evals" / "agent.jsonl"):
        case = json.loads(line)
        if case["tool"] == "search" and case["id"] in ours:
            by_corpus[case["corpus"]].append(case)
    rows = collections.defaultdict(lambda: [[], [], [], []])
    for corpus, cases in sorted(by_corpus.items()):
        root = dirs.get(corpus)
        if root is None:
            print(f"{corpus}: no directory in {dirs_tsv}, skipped", file=sys.stderr)
            continue
        index = SembleIndex.from_path(root, model_path=model_dir)
        for case in cases:
            hits = index.search(case["query"], top_k=10)
            paths = [os.path.relpath(os.path.join(root, h.chunk.file_path), root) for h in hits]
            ours_case = ours[case["id"]]
            cells = (
                ndcg_files(case["expect"], paths),
                ndcg_chunks(case["expect"], paths),
                ours_case["ndcg10_files"],
                ours_case["ndcg10_chunks"],
            )
            split, category = ours_case["split"], ours_case["category"]
            for key in ("all", f"split:{split}", f"{category}:{split}"):
                for column, value in zip(rows[key], cells):
                    column.append(value)
        print(f"{corpus}: {len(cases)} cases", file=sys.stderr, flush=True)
    print(f"{'rows':24} {'n':>5}  {'semble files':>12} {'chunks':>7}  {'ours files':>10} {'chunks':>7}")
    for key, cols in sorted(rows.items()):
        means = [sum(c) / len(c) for c in cols]
        print(f"{key:24} {len(cols[0]):5}  {means[0]:12.4f} {means[1]:7.4f}  {means[2]:10.4f} {means[3]:7.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
