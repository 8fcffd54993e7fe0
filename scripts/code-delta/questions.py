"""Turns questions.jsonl (questions written the way agents ask, each with
the file and lines that answer it, in third-party libraries) into training
pairs for train.py's --extra: {"q", "d"} with "d" as extract.py writes it
(the tree's last directory and the path, then the lines).

    questions.py OUT.jsonl TREE=DIR ...

TREE is a questions.jsonl `tree` or its first part: `registries` (the
directory holding sources-registries.tsv's trees, one per language:
registries/go/<package>), `crates` (a cargo registry's src/<index>/
directory), `python3.11` (that standard library), `jdk-src` (the JDK's
lib/src.zip unpacked). Questions whose tree is not given or whose file is
missing are counted and skipped.
"""
import json, os, sys

here = os.path.dirname(os.path.abspath(__file__))
out_path, *specs = sys.argv[1:]
trees = dict(s.split("=", 1) for s in specs)
written = skipped = 0
with open(out_path, "w") as out:
    for line in open(os.path.join(here, "questions.jsonl")):
        r = json.loads(line)
        head, _, rest = r["tree"].partition("/")
        base = trees.get(r["tree"]) or (trees.get(head) and os.path.join(trees[head], rest))
        path = base and os.path.join(base, r["path"])
        if not path or not os.path.isfile(path):
            skipped += 1
            continue
        lines = open(path, errors="replace").read().split("\n")
        code = "\n".join(lines[r["start"] - 1 : min(r["end"], r["start"] + 79)])
        name = os.path.basename(os.path.normpath(base)) + "/" + r["path"]
        out.write(json.dumps({"q": r["q"], "d": (name + "\n" + code)[:6000]}) + "\n")
        written += 1
print(f"{written} question pairs, {skipped} skipped (tree not given or file missing)", file=sys.stderr)
