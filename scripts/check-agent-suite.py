#!/usr/bin/env python3
"""Validate evals/agent.jsonl against unpacked corpora.

Usage: scripts/check-agent-suite.py ROOTS_DIR [CORPUS ...]

ROOTS_DIR/<corpus-name>/ must be each agent corpus's root directory as the
runner sees it (the unpacked sdist / npm `package` dir, or for `cargo`
corpora the directory holding the copied `NAME-VERSION/` crate trees).
Checks the line format, the categories, unique ids, that every corpus has a
table in evals/corpora.toml with `lang` and `split`, and that every expected
path exists (only for the named CORPUS arguments, if any are given, so a
subset of corpora can be checked without unpacking all of them). Exits
non-zero on any problem.
"""
import json
import sys
import tomllib
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CATEGORIES = {"architecture", "concept", "symbol"}
KEYS = {"id", "category", "corpus", "tool", "query", "expect"}


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    roots = Path(sys.argv[1])
    only = set(sys.argv[2:])
    corpora = tomllib.loads((REPO / "evals" / "corpora.toml").read_text())
    problems = []
    ids = set()
    counts = Counter()
    for n, line in enumerate((REPO / "evals" / "agent.jsonl").read_text().splitlines(), 1):
        where = f"agent.jsonl:{n}"
        try:
            case = json.loads(line)
        except json.JSONDecodeError as e:
            problems.append(f"{where}: bad JSON: {e}")
            continue
        if set(case) != KEYS:
            problems.append(f"{where}: keys {sorted(case)} != {sorted(KEYS)}")
        cid = case.get("id")
        if cid in ids:
            problems.append(f"{where}: duplicate id {cid}")
        ids.add(cid)
        if case.get("category") not in CATEGORIES:
            problems.append(f"{where}: bad category {case.get('category')!r}")
        if case.get("tool") != "search":
            problems.append(f"{where}: tool must be 'search'")
        q = case.get("query", "")
        if not q.strip():
            problems.append(f"{where}: empty query")
        corpus = case.get("corpus")
        table = corpora.get(corpus)
        if table is None:
            problems.append(f"{where}: corpus {corpus!r} has no table in corpora.toml")
        elif "lang" not in table or table.get("split") not in ("tune", "check", "holdout"):
            problems.append(f"{where}: corpus {corpus!r} lacks lang / split")
        exp = case.get("expect", {})
        if set(exp) - {"paths", "secondary_paths"} or not exp.get("paths"):
            problems.append(f"{where}: expect must have non-empty paths (+ optional secondary_paths)")
        if "secondary_paths" in exp and not exp["secondary_paths"]:
            problems.append(f"{where}: omit empty secondary_paths")
        all_paths = exp.get("paths", []) + exp.get("secondary_paths", [])
        if len(set(all_paths)) != len(all_paths):
            problems.append(f"{where}: a path is listed twice")
        for p in all_paths:
            if p.startswith("/") or ".." in Path(p).parts:
                problems.append(f"{where}: path must be relative: {p}")
            elif only and corpus not in only:
                continue
            elif not (roots / corpus / p).is_file():
                problems.append(f"{where}: missing file {corpus}/{p}")
        counts[(corpus, case.get("category"))] += 1
    for corpus in sorted({c for c, _ in counts}):
        per = ", ".join(f"{cat} {counts[(corpus, cat)]}" for cat in sorted(CATEGORIES))
        print(f"{corpus}: {per}")
    for p in problems:
        print("PROBLEM:", p, file=sys.stderr)
    print(f"{len(ids)} cases, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
