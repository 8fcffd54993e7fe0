"""What `dist-variant.py` and `full-variant.py` share: writing a variant of
the `agent` suite, the named corpora's recipes (as the script makes them
from the suite's own) and their cases with expected paths re-rooted.
Python standard library only; not a script of its own.
"""

import json
import re
import sys
from pathlib import Path

EVALS = Path(__file__).resolve().parent.parent / "evals"


def suite_recipe(name: str) -> str:
    """The body of corpus `name`'s recipe in evals/corpora.toml (exits with
    an error when there is none)."""
    toml = (EVALS / "corpora.toml").read_text()
    m = re.search(r"^\[" + re.escape(name) + r"\]\n(.*?)(?=^\[|\Z)", toml, re.S | re.M)
    if not m:
        sys.exit(f"error: no recipe for {name} in evals/corpora.toml")
    return m.group(1)


def write_variant(out: Path, recipes: dict[str, str], prefixes: dict[str, str], skip=()) -> None:
    """Writes OUT/corpora.toml (`recipes`: corpus → recipe body) and
    OUT/agent.jsonl: the cases of the corpora in `prefixes` (corpus → the
    prefix from the suite's root to the variant's), but those in `skip`,
    with their expected paths prefixed."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "corpora.toml").write_text("\n".join(f"[{n}]\n{b}" for n, b in recipes.items()))
    cases = []
    for line in (EVALS / "agent.jsonl").read_text().splitlines():
        if not line.strip() or line.lstrip().startswith("//"):
            continue
        case = json.loads(line)
        prefix = prefixes.get(case.get("corpus"))
        if prefix is None or case["id"] in skip:
            continue
        expect = case["expect"]
        for key in ("paths", "secondary_paths"):
            if key in expect:
                expect[key] = [prefix + p for p in expect[key]]
        for span in expect.get("spans", []):
            span["path"] = prefix + span["path"]
        cases.append(json.dumps(case))
    (out / "agent.jsonl").write_text("\n".join(cases) + "\n")
    print(f"{len(cases)} cases over {len(prefixes)} corpora in {out}", file=sys.stderr)
