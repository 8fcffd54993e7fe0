#!/usr/bin/env python3
"""Where the `agent` suite's answers go wrong, read from an eval run of three
modes: for each split and category, the rank of the first primary file in
the hybrid answer; for the questions (not symbol cases), how often each arm
and hybrid put a primary file first, and whether BM25 and the semantic arm
agreed on their first file; and, with --cases, the questions no arm answers
first (each arm's rank of the first primary file, hybrid's first files).

Usage:
  repo-search-eval run agent --modes hybrid,bm25,semantic --no-save --json > RUN.json
  scripts/agent-diagnose.py RUN.json [--cases SPLIT] [--evals DIR]

The agreement table's keys: H, B, S are hybrid, BM25 and semantic with a
primary file first (lowercase: not), `=` when BM25 and semantic led with the
same file. `hBS=` counts questions both arms answered alike and right while
hybrid led with another file; `HBs` those hybrid and BM25 answered and the
semantic arm did not.
Only the tuning split's cases should guide a change (see README, `agent`).
Exit status 2 on a usage error.
"""

import collections
import json
import sys
from pathlib import Path

MODES = ("hybrid", "bm25", "semantic")


def usage(msg: str) -> None:
    print(f"error: {msg}\n\n{__doc__}", file=sys.stderr)
    sys.exit(2)


def files(answer: dict) -> list[str]:
    """The answer's distinct files, in order."""
    out: list[str] = []
    for hit in answer.get("top", []):
        if hit["path"] not in out:
            out.append(hit["path"])
    return out


def first_rank(fs: list[str], want: set[str]) -> int | None:
    return next((i + 1 for i, f in enumerate(fs) if f in want), None)


def main() -> None:
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        usage("give the eval run's JSON first")
    run_path = Path(args[0])
    cases_split = None
    evals = Path(__file__).resolve().parent.parent / "evals"
    rest = args[1:]
    while rest:
        flag = rest.pop(0)
        if flag in ("--cases", "--evals") and rest:
            value = rest.pop(0)
            if flag == "--cases":
                cases_split = value
            else:
                evals = Path(value)
        else:
            usage(f"unknown argument {flag!r}")
    try:
        run = json.loads(run_path.read_text())
    except (OSError, ValueError) as e:
        usage(f"cannot read {run_path}: {e}")
    cases = {}
    for line in (evals / "agent.jsonl").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("//"):
            case = json.loads(line)
            cases[case["id"]] = case
    by: dict[str, dict[str, dict]] = collections.defaultdict(dict)
    for answer in run["cases"]:
        if answer["id"] in cases:
            by[answer["id"]][answer["mode"]] = answer
    missing = [m for m in MODES if not any(m in a for a in by.values())]
    if missing:
        usage(f"the run has no {', '.join(missing)} answers (run --modes hybrid,bm25,semantic)")

    print("first primary file in the hybrid answer (share of cases)")
    ranks = collections.defaultdict(collections.Counter)
    for cid, modes in by.items():
        h = modes["hybrid"]
        want = set(cases[cid]["expect"].get("paths", []))
        r = first_rank(files(h), want)
        bucket = "1" if r == 1 else "2" if r == 2 else "3" if r == 3 else "4-10" if r else "none"
        ranks[(h["split"], h["category"])][bucket] += 1
    for key in sorted(ranks):
        c = ranks[key]
        n = sum(c.values())
        cells = " ".join(f"{b}:{c[b] / n:.2f}" for b in ("1", "2", "3", "4-10", "none"))
        print(f"  {key[0]:8} {key[1]:13} {n:5}  {cells}")

    print("\nquestions by which modes put a primary file first (see the docstring)")
    agree = collections.defaultdict(collections.Counter)
    unanswered = []
    for cid, modes in sorted(by.items()):
        h = modes["hybrid"]
        if h["category"] == "symbol" or any(m not in modes for m in MODES):
            continue
        want = set(cases[cid]["expect"].get("paths", []))
        fs = {m: files(modes[m]) for m in MODES}
        first = {m: (fs[m][0] if fs[m] else None) for m in MODES}
        key = "".join(
            (letter if first[m] in want else letter.lower())
            for m, letter in zip(MODES, "HBS")
        ) + ("=" if first["bm25"] == first["semantic"] else "")
        agree[h["split"]][key] += 1
        if not any(first[m] in want for m in MODES):
            unanswered.append((h["split"], cid, {m: first_rank(fs[m], want) for m in MODES}, fs["hybrid"][:3]))
    for split in sorted(agree):
        cells = " ".join(f"{k}:{v}" for k, v in sorted(agree[split].items()))
        print(f"  {split:8} {cells}")

    if cases_split:
        print(f"\n{cases_split} questions no mode answers first (rank of the first primary file per mode)")
        for split, cid, r, top in unanswered:
            if split != cases_split:
                continue
            case = cases[cid]
            ranks_s = " ".join(f"{m[0]}{r[m] or '-'}" for m in MODES)
            print(f"  {cid} [{ranks_s}] {case['query']}")
            print(f"      want {case['expect'].get('paths', [])}; hybrid {top}")


if __name__ == "__main__":
    main()
