#!/usr/bin/env python3
"""Offline fusion experiments on dumped arm candidates (examples/arm_dump.rs).

Out of date: it predates the synonym arm (session 58) and the later
evidence terms, so variant `current` no longer reproduces the eval and a
dump with synonym candidates stops it. `repo-search-eval run agent --modes
hybrid,bm25,semantic` scores the whole suite in about a minute once the
corpora are indexed; measure ranking changes there.

Usage: scripts/fusion-lab.py ARMS.jsonl [VARIANT ...]

Replays hybrid fusion in Python on the real candidate lists of every case
and prints NDCG@10 (distinct files; top-10 chunks) per split, category and
language for each variant, so a ranking idea can be measured in seconds
before it is written in Rust. Variant `current` mirrors src/search/hybrid.rs
(the numbers must match `repo-search-eval run agent --modes hybrid`);
`chunk-level` is the fusion before files were ranked. Cells show NDCG@10
over distinct files, then three readings of "top-10 chunks": counting every
chunk against an ideal of 10 primary hits, giving a file its grade once
(what the eval reports), and counting every chunk against the files' ideal
capped at 1.

    examples/arm_dump evals/agent.jsonl dirs.tsv > arms.jsonl
    scripts/fusion-lab.py arms.jsonl current chunk-level bm25 semantic
"""
import json
import math
import re
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STOP = set("""a an and are as at be been by can do does for from has have how i if in into is it its of on or
our should so that the their them then there these this those to was we were what when where which who why
will with you your code function find show me all any some used""".split())


def split_identifier(ident):
    parts = []
    for piece in re.split(r"[_\-$]", ident):
        start = 0
        for i in range(1, len(piece)):
            prev, cur = piece[i - 1], piece[i]
            nxt_lower = i + 1 < len(piece) and piece[i + 1].islower()
            if cur.isupper() and (prev.islower() or prev.isdigit() or (prev.isupper() and nxt_lower)):
                parts.append(piece[start:i].lower())
                start = i
        if start < len(piece):
            parts.append(piece[start:].lower())
    return [p for p in parts if p]


def stem(w):
    for suf in ("ing", "ed", "es", "s"):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            return w[: -len(suf)]
    return w


def query_terms(q):
    terms = []
    for w in re.findall(r"[A-Za-z0-9_]+", q):
        parts = split_identifier(w)
        if len(parts) > 1:
            if "_" not in w:
                terms.append(w.lower())
            terms.extend(parts)
        else:
            terms.append(w.lower())
    seen = []
    for t in terms:
        if t and t not in seen:
            seen.append(t)
    f = [t for t in seen if t not in STOP]
    return f or seen


def last_part(s):
    return re.split(r"[:.#\\]", s)[-1]


WEIGHTS = {
    "identifier": {"symbol": 2.0, "keyword": 1.0, "bm25": 0.7, "semantic": 0.4},
    "literal": {"keyword": 2.0, "bm25": 0.8, "symbol": 0.5, "semantic": 0.4},
    "natural_language": {"bm25": 1.0, "semantic": 0.5, "symbol": 0.15, "keyword": 0.1, "phrase": 0.4},
}
for _w in WEIGHTS.values():
    _w.setdefault("phrase", 0.0)
TOKEN_MATCH_WEIGHT = 0.6
ARM_ORDER = {"symbol": 0, "keyword": 1, "bm25": 2, "semantic": 3, "phrase": 4}


def name_overlap(terms, symbol):
    parts = {stem(p) for p in split_identifier(last_part(symbol)) if len(p) > 1 and p not in STOP}
    if not parts:
        return 0.0
    return sum(1 for p in parts if p in terms) / len(parts)


def fuse(cands, weight, k, prior=None):
    prior = prior or (lambda p, l: chunk_prior(p, l))
    def contrib(c):
        return weight(c["arm"]) / (k + c["rank"]) * prior(c["path"], c["lang"])

    def blockish(c):
        return c["end"] > c["start"] or c["arm"] == "symbol"

    order = sorted(cands, key=lambda c: (not (c["end"] > c["start"] or c["block"] and c["arm"] == "symbol" or c["arm"] == "symbol"),
                                         -contrib(c), c["path"], c["start"]))
    fused = []
    by_path = defaultdict(list)
    for c in order:
        sc = contrib(c)
        slot = None
        for i in by_path[c["path"]]:
            f = fused[i]
            if c["start"] <= f["end"] and c["end"] >= f["start"]:
                slot = i
                break
        if slot is not None:
            f = fused[slot]
            if c["arm"] in f["src"]:
                # The arm counts once, by its best candidate; shows its best rank.
                if sc > f["contrib"][c["arm"]]:
                    f["score"] += sc - f["contrib"][c["arm"]]
                    f["contrib"][c["arm"]] = sc
                f["src"][c["arm"]] = min(f["src"][c["arm"]], c["rank"])
            else:
                f["score"] += sc
                f["src"][c["arm"]] = c["rank"]
                f["contrib"][c["arm"]] = sc
            if f["symbol"] is None and c["symbol"] is not None:
                f["symbol"], f["kind"] = c["symbol"], c["kind"]
            f["raw"][c["arm"]] = max(f["raw"].get(c["arm"], 0), c["raw"])
            if not f["block"] and blockish(c):
                f["start"], f["end"], f["block"] = c["start"], c["end"], True
        else:
            by_path[c["path"]].append(len(fused))
            fused.append(dict(path=c["path"], start=c["start"], end=c["end"], symbol=c["symbol"], kind=c["kind"],
                              lang=c["lang"], score=sc, src={c["arm"]: c["rank"]}, contrib={c["arm"]: sc}, raw={c["arm"]: c["raw"]},
                              block=blockish(c)))
    fused.sort(key=lambda f: (-f["score"], f["path"], f["start"]))
    return fused


def rerank_names(hits, query, boost=2.0, callable_prior=1.5, top=50):
    terms = {stem(t) for t in query_terms(query)}
    head = hits[:top]
    for f in head:
        ov = name_overlap(terms, f["symbol"]) if f["symbol"] else 0.0
        callable_ = f["kind"] in ("function", "method")
        f["score"] *= (1 + boost * ov) * (callable_prior if callable_ else 1.0)
    head.sort(key=lambda f: (-f["score"], f["path"], f["start"]))
    return head + hits[top:]


def chunk_level(case, only=None):
    """The fusion before files were ranked (and the single-arm modes)."""
    kind = case["kind"]
    w = WEIGHTS[kind]
    cands = [c for c in case["cands"] if only is None or c["arm"] in only]
    arms_with = {c["arm"] for c in cands}
    weight = lambda a: w[a]
    hits = fuse(cands, weight, 10.0)
    if kind == "natural_language" and (only is None or len(only) != 1):
        hits = rerank_names(hits, case["query"])
    return hits[:11]


# ---------------------------------------------------------------- scoring
def gain(expect, path):
    if path in expect["paths"]:
        return 2
    if path in expect.get("secondary_paths", []):
        return 1
    return 0


def dcg(gains):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def ndcg_files(expect, paths):
    seen, g = set(), []
    for p in paths:
        if p not in seen:
            seen.add(p)
            g.append(gain(expect, p))
    g = g[:10]
    prim = set(expect["paths"])
    sec = set(expect.get("secondary_paths", [])) - prim
    ideal = dcg(([2] * len(prim) + [1] * len(sec))[:10])
    return dcg(g) / ideal if ideal else 0.0


def ndcg_chunks(expect, paths):
    return dcg([gain(expect, p) for p in paths[:10]]) / dcg([2] * 10)


def ideal_files(expect):
    prim = set(expect["paths"])
    sec = set(expect.get("secondary_paths", [])) - prim
    return dcg(([2] * len(prim) + [1] * len(sec))[:10])


def ndcg_chunks_dedup(expect, paths):
    """Top-10 chunks as ranks, a file's gain counted at its first chunk only."""
    seen, g = set(), []
    for p in paths[:10]:
        g.append(0 if p in seen else gain(expect, p))
        seen.add(p)
    return dcg(g) / ideal_files(expect)


def ndcg_chunks_capped(expect, paths):
    """Top-10 chunks as ranks, every chunk in a relevant file counts; ideal from the files; capped at 1."""
    return min(1.0, dcg([gain(expect, p) for p in paths[:10]]) / ideal_files(expect))


def load_splits():
    t = tomllib.loads((REPO / "evals" / "corpora.toml").read_text())
    return {k: (v.get("split"), v.get("lang")) for k, v in t.items()}


def evaluate(cases, fn, splits):
    rows = defaultdict(list)
    per_case = {}
    for c in cases:
        hits = fn(c)
        paths = [h["path"] for h in hits][:10]
        m = (ndcg_files(c["expect"], paths), ndcg_chunks(c["expect"], paths),
             ndcg_chunks_dedup(c["expect"], paths), ndcg_chunks_capped(c["expect"], paths))
        per_case[c["id"]] = m
        split, lang = splits.get(c["corpus"], ("?", "?"))
        for key in ("all", f"split:{split}", f"cat:{c['category']}", f"lang:{lang}"):
            rows[key].append(m)
    return {k: tuple(sum(x[i] for x in v) / len(v) for i in range(4)) for k, v in rows.items()}, per_case


def is_test_path(p):
    """src/search/mod.rs `is_test_path`, abridged."""
    comps = p.lower().split("/")
    f = comps.pop()
    if any(c in ("test", "tests", "testing", "__tests__", "spec", "specs") for c in comps):
        return True
    stem, _, ext = f.rpartition(".")
    if ext in ("py", "pyi"):
        return stem.startswith("test_") or stem.endswith("_test") or stem == "conftest"
    if ext == "go":
        return stem.endswith("_test")
    if ext == "rb":
        return stem.endswith(("_spec", "_test")) or stem.startswith("test_")
    if ext in ("js", "jsx", "mjs", "cjs", "ts", "tsx", "mts", "cts"):
        return stem.endswith((".test", ".spec"))
    if ext in ("java", "kt", "cs", "scala", "php", "swift"):
        orig = p.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        return any(orig.endswith(x) and len(orig) > len(x) for x in ("Test", "Tests", "Spec", "TestCase"))
    return ext == "rs" and stem == "tests"


SECONDARY = {"example", "examples", "benches", "benchmarks", "vendor", "vendored", "third_party",
             "thirdparty", "node_modules", "deprecated", "legacy", "v1", "fixtures"}


def chunk_prior(path, lang, symbol=None):
    pr = 1.0
    if is_test_path(path):
        pr *= 0.5
    elif any(c.lower() in SECONDARY for c in path.split("/")[:-1]):
        pr *= 0.6
    if lang == "docs":
        pr *= 0.6
    if lang == "rust" and symbol and (symbol in ("tests", "test") or symbol.startswith(("tests::", "test::"))) \
            and not is_test_path(path):
        pr *= 0.5
    return pr


GENERIC = {"mod", "index", "__init__", "init", "main", "lib", "core", "base"}


def file_name_share(terms, path):
    parts = path.split("/")
    stem = parts[-1].split(".")[0]
    words = split_identifier(stem)
    if (stem.lower() in GENERIC or not words) and len(parts) > 1:
        words = split_identifier(parts[-2])
    words = {stem_(w) for w in words if len(w) > 1 and w not in GENERIC}
    if not words:
        return 0.0

    def meets(w):
        return w in terms or any(min(len(w), len(t)) >= 4 and w[:min(len(w), len(t))] == t[:min(len(w), len(t))]
                                 for t in terms)
    return sum(1 for w in words if meets(w)) / len(words)


stem_ = stem


def squash(s):
    return re.sub(r"[^a-z0-9]", "", s.lower())


def term_coverage(terms, path, words):
    """Share of the query's terms that the file's path components or its candidates' symbol names carry."""
    words = set(words)
    for comp in path.split("/"):
        words.update(stem(x) for x in split_identifier(comp.split(".")[0]))

    def meets(t):
        return t in words or any(min(len(w), len(t)) >= 4 and w[:min(len(w), len(t))] == t[:min(len(w), len(t))]
                                 for w in words)
    return sum(1 for t in terms if meets(t)) / max(1, len(terms))


DATA_EXT = {"yml", "yaml", "json", "xml", "toml", "ini", "cfg", "conf", "csv", "tsv", "html", "htm", "lock", "svg"}


def file_level(case, k=10.0, multi=0.2, name_boost=0.3, named_as_query=2.0, best_chunk_share=0.2, repeat_decay=0.8,
               learned=None, sharp=None):
    """Mirror of src/search/hybrid.rs: `file_scores` + `order_by_file`.

    `learned` = weights (BM25 score shape, symbol-arm file rank, term
    coverage, test, data) of the evidence questions re-order files by;
    `sharp` = "transplant" gives the new order the old scores' values (as
    hybrid.rs does), a number maps scores through exp(sharp * (s - top))."""
    kind = case["kind"]
    w = WEIGHTS[kind]
    cands = case["cands"]
    prior = lambda p, l, s=None: chunk_prior(p, l, s)
    hits = fuse([dict(c) for c in cands], lambda a: w[a], k, prior=lambda p, l: chunk_prior(p, l))
    if kind == "natural_language":
        hits = rerank_names(hits, case["query"])
    per, counts, listed, seen = defaultdict(float), defaultdict(lambda: [0, 0]), defaultdict(int), set()
    for c in sorted(cands, key=lambda c: (ARM_ORDER[c["arm"]], c["rank"])):
        if (c["arm"], c["path"]) not in seen:
            seen.add((c["arm"], c["path"]))
            listed[c["arm"]] += 1
        v = w[c["arm"]] / (k + listed[c["arm"]]) * prior(c["path"], c["lang"], c["symbol"])
        per[(c["path"], c["arm"])] = max(per[(c["path"], c["arm"])], v)
        if c["arm"] in ("bm25", "semantic"):
            counts[c["path"]][c["arm"] == "semantic"] += 1
    files = defaultdict(float)
    for (p, _), v in per.items():
        files[p] += v
    # The best files by token match (hybrid.rs `token_match_files`), as one
    # more list.
    lang_of = {c["path"]: c["lang"] for c in reversed(cands)}
    for r, (p, _) in enumerate(case.get("token_files", [])):
        if p in files:
            files[p] += TOKEN_MATCH_WEIGHT / (k + r + 1) * prior(p, lang_of.get(p, ""), None)
    terms = {stem(t) for t in query_terms(case["query"])}
    names = {squash(last_part(i)) for i in case["identifiers"]} if kind == "identifier" else set()
    for p in files:
        n = min(counts[p][0], 5) + min(counts[p][1], 5)
        if n > 1:
            files[p] *= 1 + multi * math.log(n)
        files[p] *= 1 + name_boost * file_name_share(terms, p)
        if names and squash(p.rsplit("/", 1)[-1].split(".")[0]) in names:
            files[p] *= named_as_query
    if learned and kind == "natural_language":
        wb, ws, wc, wt, wd = learned
        shape = sorted(files.values(), reverse=True)
        top = max(files.values())
        bm_best, bm_top, sym_rank, words, lang = defaultdict(float), 0.0, {}, defaultdict(set), {}
        listed_sym = 0
        for c in sorted(cands, key=lambda c: (ARM_ORDER[c["arm"]], c["rank"])):
            lang[c["path"]] = c["lang"]
            if c["arm"] == "bm25":
                bm_best[c["path"]] = max(bm_best[c["path"]], c["raw"])
                bm_top = max(bm_top, c["raw"])
            if c["arm"] == "symbol" and c["path"] not in sym_rank:
                listed_sym += 1
                sym_rank[c["path"]] = listed_sym
            if c["symbol"]:
                words[c["path"]].update(stem(x) for x in split_identifier(last_part(c["symbol"])))
        for p in files:
            ext = p.rsplit(".", 1)[-1].lower() if "." in p.rsplit("/", 1)[-1] else ""
            s = files[p] / top
            s += wb * (bm_best[p] / bm_top if bm_top else 0.0)
            s += ws * (10.0 / (k + sym_rank[p]) if p in sym_rank else 0.0)
            s += wc * term_coverage(terms, p, words[p])
            if is_test_path(p):
                s += wt
            if ext in DATA_EXT or lang.get(p) == "docs":
                s += wd
            files[p] = max(s, 1e-3)
        if sharp == "transplant":
            order = sorted(files, key=lambda p: (-files[p], p))
            for p, v in zip(order, shape):
                files[p] = v
        elif sharp:
            top = max(files.values())
            for p in files:
                files[p] = math.exp(sharp * (files[p] - top))
    best = {}
    for h in hits:
        best[h["path"]] = max(best.get(h["path"], 0.0), h["score"])
    top_f, top_c = max(files.values(), default=1.0), max(best.values(), default=1.0)
    for h in hits:
        standing = (1 - best_chunk_share) * files.get(h["path"], 0) / top_f + best_chunk_share * best[h["path"]] / top_c
        h["key"] = standing * (h["score"] / best[h["path"]] if best[h["path"]] else 0)
    hits.sort(key=lambda h: (-h["key"], h["path"], h["start"]))
    seen = defaultdict(int)
    for h in hits:
        h["key"] *= repeat_decay ** seen[h["path"]]
        seen[h["path"]] += 1
    hits.sort(key=lambda h: (-h["key"], h["path"], h["start"]))
    return hits[:11]


VARIANTS = {
    "current": lambda c: file_level(c, learned=(1.0, 0.0, 1.0, -0.5, -0.5), sharp="transplant"),
    "before-evidence": file_level,
    "chunk-level": chunk_level,
    "file-score-only": lambda c: file_level(c, best_chunk_share=0.0),
    # Questions re-order files by evidence (hybrid.rs `reorder_by_evidence`,
    # weights from the tuning half); without the score-shape transplant.
    "evidence-no-transplant": lambda c: file_level(c, learned=(1.0, 0.0, 1.0, -0.5, -0.5)),
    "bm25": lambda c: chunk_level(c, only={"bm25"}),
    "semantic": lambda c: chunk_level(c, only={"semantic"}),
}


def main():
    cases = [json.loads(l) for l in open(sys.argv[1])]
    names = sys.argv[2:] or ["current", "bm25", "semantic"]
    splits = load_splits()
    results = {}
    for n in names:
        results[n] = evaluate(cases, VARIANTS[n], splits)
    keys = sorted({k for r, _ in results.values() for k in r}, key=lambda k: (k != "all", not k.startswith("split"), k))
    print("each cell: files / chunks(strict, ideal 10) / chunks(dedup) / chunks(capped)")
    print(f"{'row':16}" + "".join(f"{n[:23]:>24}" for n in names))
    for k in keys:
        line = f"{k:16}"
        for n in names:
            r = results[n][0].get(k)
            line += "   " + "/".join(f"{x:.3f}"[1:] for x in r) if r else " " * 24
        print(line)
    # hybrid below its better arm
    if "bm25" in results and "semantic" in results:
        for n in names:
            if n in ("bm25", "semantic"):
                continue
            pc = results[n][1]
            loss = {"tune": 0, "check": 0}
            for c in cases:
                best = max(results["bm25"][1][c["id"]][1], results["semantic"][1][c["id"]][1])
                if pc[c["id"]][1] < best - 0.1:
                    loss[splits[c["corpus"]][0]] += 1
            print(f"{n}: below better arm by >0.1: tune {loss['tune']} check {loss['check']}")





if __name__ == "__main__":
    main()
