#!/usr/bin/env python3
"""Compares the ranked hits of two `repo-search-eval run --json` reports case
by case: the same suites and modes answered through two surfaces (e.g.
`--through cli` and `--through mcp`) must list the same hits in the same
order, since both call the library's one search service.

    repo-search-eval run nl --modes hybrid,bm25,semantic --no-save --json > cli.json
    repo-search-eval run nl --modes hybrid,bm25,semantic --through mcp --no-save --json > mcp.json
    scripts/compare-surfaces.py cli.json mcp.json

Prints, per suite and mode, how many cases agree, and the first few that do
not (with both hit lists). Exits 1 when any case differs.
"""

import json
import sys
from collections import defaultdict


def load(path):
    with open(path) as f:
        report = json.load(f)
    cases = {}
    for c in report.get("cases", []):
        key = (c["suite"], c["mode"], c["id"])
        hits = [(h["path"], h["start_line"], h["end_line"]) for h in c.get("top", [])]
        cases[key] = (hits, c.get("error"))
    return report, cases


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ra, a = load(sys.argv[1])
    rb, b = load(sys.argv[2])
    shared = sorted(set(a) & set(b))
    if not shared:
        sys.exit("the reports share no (suite, mode, case)")
    agree = defaultdict(int)
    total = defaultdict(int)
    diffs = defaultdict(list)
    for key in shared:
        group = key[:2]
        total[group] += 1
        if a[key] == b[key]:
            agree[group] += 1
        else:
            diffs[group].append(key)
    name_a = ra.get("settings", {}).get("through", "A")
    name_b = rb.get("settings", {}).get("through", "B")
    print(f"{sys.argv[1]} ({name_a}) vs {sys.argv[2]} ({name_b})")
    print("| suite | mode | cases | identical hit lists |")
    print("|---|---|---:|---:|")
    for group in sorted(total):
        print(f"| {group[0]} | {group[1]} | {total[group]} | {agree[group]} |")
    bad = sum(len(v) for v in diffs.values())
    for group, keys in sorted(diffs.items()):
        for key in keys[:3]:
            print(f"\n{key[0]} {key[1]} {key[2]}:")
            for label, side in ((name_a, a), (name_b, b)):
                hits, err = side[key]
                shown = ", ".join(f"{p}:{s}-{e}" for p, s, e in hits[:10])
                print(f"  {label}: {err or shown or '(no hits)'}")
    print(f"\n{len(shared) - bad}/{len(shared)} cases identical")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
