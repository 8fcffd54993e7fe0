#!/usr/bin/env python3
"""A variant of the `agent` suite with build output beside the source.

Re-roots the npm corpora whose tarballs ship a `dist/` bundle next to the
sources the suite searches (ajv `lib/`, immer, mobx and rxjs `src/`) at the
tarball's `package/` directory, and prefixes their cases' expected paths
to match, so a run measures how much the bundles take from the live source.

Usage:
  scripts/dist-variant.py OUT_DIR
  REPO_SEARCH_EVAL_CACHE=OUT_DIR/cache target/release/repo-search-eval \\
      run agent --evals OUT_DIR --modes hybrid --no-save
(The cache must be its own: corpora are cached by name.)
"""

import json
import re
import sys
from pathlib import Path

# corpus -> the directory the suite's own recipe searches, inside package/
CORPORA = {"agent-ajv": "lib/", "agent-immer": "src/", "agent-mobx": "src/", "agent-rxjs": "src/"}

def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    evals = Path(__file__).resolve().parent.parent / "evals"
    toml = (evals / "corpora.toml").read_text()
    recipes = []
    for name in CORPORA:
        m = re.search(r"^\[" + re.escape(name) + r"\]\n(.*?)(?=^\[|\Z)", toml, re.S | re.M)
        if not m:
            sys.exit(f"error: no recipe for {name} in evals/corpora.toml")
        body = re.sub(r'^dir = "package/[^"]*"', 'dir = "package"', m.group(1), flags=re.M)
        recipes.append(f"[{name}]\n{body}")
    (out / "corpora.toml").write_text("\n".join(recipes))
    cases = []
    for line in (evals / "agent.jsonl").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        case = json.loads(line)
        prefix = CORPORA.get(case.get("corpus"))
        if prefix is None:
            continue
        expect = case["expect"]
        for key in ("paths", "secondary_paths"):
            if key in expect:
                expect[key] = [prefix + p for p in expect[key]]
        for span in expect.get("spans", []):
            span["path"] = prefix + span["path"]
        cases.append(json.dumps(case))
    (out / "agent.jsonl").write_text("\n".join(cases) + "\n")
    print(f"{len(cases)} cases over {len(CORPORA)} corpora in {out}", file=sys.stderr)

if __name__ == "__main__":
    main()
