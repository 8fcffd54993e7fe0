#!/usr/bin/env python3
"""Generates the eval suites in evals/ from the corpora, reproducibly.

    scripts/gen-suites.py            # all suites
    scripts/gen-suites.py self       # only evals/self.jsonl

Corpora are fetched with `repo-search-eval fetch` (see evals/corpora.toml).
Everything is deterministic: files are visited in sorted order and samples
use a fixed seed, so the same corpora give byte-identical suites.

Suites:
- nl.jsonl:      natural language -> code. Query = first sentence of a
                 function's docstring (Python, Django) or doc comment (Rust,
                 crates); the docstring is blanked in the indexed copy (the
                 case's `blank` span); a hit is a span overlapping the function.
- nav.jsonl:     symbol -> definition (unique names) and name -> references.
- keyword.jsonl: regex -> the exact set of `path:line`, produced by `rg -n`.
- self.jsonl:    a small smoke suite over this repository (used by cargo test).
"""

import ast
import json
import os
import random
import re
import subprocess
import sys
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
EVALS = os.path.join(REPO, "evals")
SEED = 20261123


def corpora():
    binary = os.path.join(REPO, "target", "release", "repo-search-eval")
    if not os.path.exists(binary):
        subprocess.run(["cargo", "build", "--release", "--bin", "repo-search-eval"], cwd=REPO, check=True)
    out = subprocess.run([binary, "fetch", "django", "rust-crates"], cwd=REPO, check=True, capture_output=True, text=True).stdout
    return dict(line.split("\t", 1) for line in out.strip().splitlines())


def first_sentence(text):
    text = text.strip().split("\n\n")[0]
    text = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", text)
    s = m.group(1) if m else text
    return s.strip()


def good_query(s):
    words = s.split()
    return 5 <= len(words) <= 40 and not s.lower().startswith(("todo", "deprecated", "see ", "copied", "same as"))


def py_files(root, sub):
    base = os.path.join(root, sub)
    for d, dirs, files in os.walk(base):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".py"):
                yield os.path.join(d, f)


def rel(root, path):
    return os.path.relpath(path, root).replace(os.sep, "/")


def python_functions(root):
    """(rel, node, src) for every function in django/ (not tests)."""
    for path in py_files(root, "django"):
        try:
            src = open(path, encoding="utf-8").read()
            tree = ast.parse(src)
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                yield rel(root, path), node


def py_span(node):
    start = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
    return start, node.end_lineno


def nl_python(root, n):
    cases, seen = [], set()
    for path, node in python_functions(root):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        doc = ast.get_docstring(node)
        if not doc or len(node.body) < 2:
            continue
        q = first_sentence(doc)
        if not good_query(q) or q in seen:
            continue
        seen.add(q)
        d = node.body[0]
        start, end = py_span(node)
        cases.append({
            "query": q,
            "expect": {"spans": [{"path": path, "start_line": start, "end_line": end}]},
            "blank": [{"path": path, "start_line": d.lineno, "end_line": d.end_lineno}],
            "name": node.name,
        })
    random.Random(SEED).shuffle(cases)
    return cases[:n]


RUST_FN = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+\"[^\"]*\"\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)")


def rust_files(root):
    for d, dirs, files in os.walk(root):
        dirs[:] = sorted(x for x in dirs if x not in ("tests", "benches", "examples", "target"))
        for f in sorted(files):
            if f.endswith(".rs"):
                yield os.path.join(d, f)


def brace_end(lines, start):
    """Line index where the item starting at `start` closes its first brace block."""
    depth, opened = 0, False
    for i in range(start, min(len(lines), start + 2000)):
        line = re.sub(r"//.*$", "", lines[i])
        line = re.sub(r"'(\\.|[^'\\])'", "", line)
        line = re.sub(r"\"(\\.|[^\"\\])*\"", "", line)
        for ch in line:
            if ch == "{":
                depth += 1
                opened = True
            elif ch == "}":
                depth -= 1
                if opened and depth == 0:
                    return i
        if not opened and line.rstrip().endswith(";"):
            return None
    return None


def nl_rust(root, n):
    cases, seen = [], set()
    for path in rust_files(root):
        try:
            lines = open(path, encoding="utf-8").read().split("\n")
        except UnicodeDecodeError:
            continue
        i = 0
        while i < len(lines):
            if not lines[i].lstrip().startswith("///"):
                i += 1
                continue
            doc_start = i
            while i < len(lines) and lines[i].lstrip().startswith("///"):
                i += 1
            doc_end = i - 1
            j = i
            while j < len(lines) and lines[j].lstrip().startswith("#["):
                j += 1
            if j >= len(lines):
                break
            m = RUST_FN.match(lines[j])
            if not m:
                continue
            end = brace_end(lines, j)
            if end is None or end - j < 2:
                continue
            doc_lines = []
            for l in lines[doc_start:doc_end + 1]:
                t = l.lstrip()[3:].strip()
                if t.startswith("#") or t.startswith("```"):
                    break
                doc_lines.append(t)
            q = first_sentence("\n".join(doc_lines))
            q = re.sub(r"\[`?([^\]`]+)`?\]\([^)]*\)", r"\1", q)
            q = re.sub(r"\[`([^`]+)`\]", r"\1", q)
            if not good_query(q) or q in seen:
                continue
            seen.add(q)
            p = rel(root, path)
            cases.append({
                "query": q,
                "expect": {"spans": [{"path": p, "start_line": doc_start + 1, "end_line": end + 1}]},
                "blank": [{"path": p, "start_line": doc_start + 1, "end_line": doc_end + 1}],
                "name": m.group(7),
            })
    random.Random(SEED + 1).shuffle(cases)
    return cases[:n]


def gen_nl(c):
    out = []
    for i, case in enumerate(nl_python(c["django"], 220)):
        out.append({"id": f"nl-py-{i:03d}", "category": "understand", "corpus": "django", "tool": "search",
                    "query": case["query"], "expect": case["expect"], "blank": case["blank"]})
    for i, case in enumerate(nl_rust(c["rust-crates"], 140)):
        out.append({"id": f"nl-rs-{i:03d}", "category": "understand", "corpus": "rust-crates", "tool": "search",
                    "query": case["query"], "expect": case["expect"], "blank": case["blank"]})
    return out


def gen_nav(c):
    root = c["django"]
    defs = defaultdict(list)
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if not f.endswith(".py"):
                continue
            path = os.path.join(d, f)
            try:
                tree = ast.parse(open(path, encoding="utf-8").read())
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    defs[node.name].append((rel(root, path), node))
    unique = sorted(name for name, v in defs.items()
                    if len(v) == 1 and v[0][0].startswith("django/") and len(name) >= 6 and not name.startswith("_"))
    rnd = random.Random(SEED + 2)
    picks = rnd.sample(unique, 80)
    out = []
    for i, name in enumerate(sorted(picks)):
        path, node = defs[name][0]
        start, end = py_span(node)
        out.append({"id": f"nav-def-{i:03d}", "category": "navigate", "corpus": "django", "tool": "find_symbol",
                    "query": name, "expect": {"spans": [{"path": path, "start_line": start, "end_line": end}], "symbols": [name]}})
    # References: functions called from several other files.
    funcs = [n for n in unique if isinstance(defs[n][0][1], (ast.FunctionDef,))]
    rnd.shuffle(funcs)
    k = 0
    for name in funcs:
        if k >= 40:
            break
        res = subprocess.run(["rg", "-l", "-w", "--", name + r"\(", "."], cwd=root, capture_output=True, text=True)
        files = sorted(p[2:] if p.startswith("./") else p for p in res.stdout.split())
        files = [f for f in files if f != defs[name][0][0]]
        if not 2 <= len(files) <= 30:
            continue
        out.append({"id": f"nav-refs-{k:03d}", "category": "navigate", "corpus": "django", "tool": "find_references",
                    "query": name, "expect": {"paths": files}})
        k += 1
    return out


KEYWORD_CASES = [
    ("django", r"def get_object_or_404", {}),
    ("django", r"class \w+Middleware\b", {}),
    ("django", r"csrf_exempt", {"word": True}),
    ("django", r"^from django\.utils\.crypto import", {}),
    ("django", r"raise ImproperlyConfigured\(", {}),
    ("django", r"settings\.SECRET_KEY", {}),
    ("django", r"\bmark_safe\(", {"glob": ["django/utils/**"]}),
    ("django", r"@cached_property", {"glob": ["django/db/**"]}),
    ("django", r"TODO|FIXME|XXX", {"glob": ["django/core/**"]}),
    ("django", r"httpresponseredirect", {"case_insensitive": True, "glob": ["django/contrib/auth/**"]}),
    ("django", r".objects.get_or_create(", {"fixed_strings": True}),
    ("django", r"def __init__\(self, \*args, \*\*kwargs\)", {"glob": ["django/forms/**"]}),
    ("django", r"select_for_update", {"glob": ["!tests/**"]}),
    ("django", r"^\s+def as_sql\(self, compiler, connection", {"glob": ["django/db/models/**"]}),
    ("django", r"[Tt]imezone\.now\(\)", {"glob": ["django/contrib/**"]}),
    ("django", r"ValidationError\(\s*_\(", {}),
    ("django", r"@register\.(filter|simple_tag)", {}),
    ("django", r"is_ajax", {}),
    ("django", r"signing\.dumps", {}),
    ("django", r"re_path\(", {"glob": ["django/**"]}),
    ("rust-crates", r"pub fn new\(", {"glob": ["ignore-*/**"]}),
    ("rust-crates", r"impl<'a> Iterator for", {"fixed_strings": True}),
    ("rust-crates", r"#\[inline\(always\)\]", {"glob": ["regex-automata-*/src/util/**"]}),
    ("rust-crates", r"unsafe \{", {"glob": ["crossbeam-channel-*/**"]}),
    ("rust-crates", r"fn from_str\(", {}),
    ("rust-crates", r"\bWalkBuilder\b", {}),
    ("rust-crates", r"SQLITE_OK", {"word": True}),
    ("rust-crates", r"todo!|unimplemented!", {}),
    ("rust-crates", r"pub struct \w+Builder", {}),
    ("rust-crates", r"ProgressStyle::with_template", {"fixed_strings": True}),
    ("rust-crates", r"deserialize_any", {"glob": ["serde_json-*/src/**"]}),
    ("rust-crates", r"Utf8Sequence", {}),
    ("rust-crates", r"fn is_match\(&self", {}),
    ("rust-crates", r"recv_timeout", {}),
    ("rust-crates", r"Error::custom", {"fixed_strings": True, "glob": ["toml-*/**"]}),
]


def rg_matches(root, pattern, args):
    cmd = ["rg", "-n", "--no-heading", "--with-filename"]
    if args.get("fixed_strings"):
        cmd.append("-F")
    if args.get("case_insensitive"):
        cmd.append("-i")
    if args.get("word"):
        cmd.append("-w")
    for g in args.get("glob", []):
        cmd += ["-g", g]
    cmd += ["-e", pattern, "."]
    res = subprocess.run(cmd, cwd=root, capture_output=True, text=True, errors="replace")
    out = []
    for line in res.stdout.splitlines():
        parts = line.split(":", 2)
        if len(parts) >= 2:
            p = parts[0][2:] if parts[0].startswith("./") else parts[0]
            out.append(f"{p}:{parts[1]}")
    return sorted(out)


def gen_keyword(c):
    out = []
    for i, (corpus, pattern, args) in enumerate(KEYWORD_CASES):
        matches = rg_matches(c[corpus], pattern, args)
        if not matches or len(matches) > 400:
            print(f"skipping keyword case {pattern!r}: {len(matches)} matches", file=sys.stderr)
            continue
        out.append({"id": f"kw-{i:03d}", "category": "search", "corpus": corpus, "tool": "search_keyword",
                    "query": pattern, "args": args, "expect": {"matches": matches}})
    return out


def gen_self():
    """A small smoke suite over this repository: paths only (stable while
    files keep their names), and keyword sets in files that rarely change."""
    cases = [
        ("self-sym-1", "navigate", "find_symbol", "find_symbols", {}, {"paths": ["src/search/symbol.rs"], "symbols": ["find_symbols"]}),
        ("self-sym-2", "navigate", "find_symbol", "split_identifier", {}, {"paths": ["src/text.rs"]}),
        ("self-sym-3", "navigate", "find_symbol", "WriterLock", {"kind": "struct"}, {"paths": ["src/lock.rs"]}),
        ("self-sym-4", "navigate", "find_symbol", "resolve_in_root", {}, {"paths": ["src/paths.rs"]}),
        ("self-sym-5", "navigate", "find_symbol", "search_keyword", {"kind": "function"}, {"paths": ["src/search/keyword.rs"]}),
        ("self-refs-1", "navigate", "find_references", "resolve_in_root", {}, {"paths": ["src/search/read.rs", "src/cli/commands.rs"]}),
        ("self-defs-1", "navigate", "list_defs_in_file", "src/lock.rs", {}, {"symbols": ["WriterLock"]}),
        ("self-bm25-1", "search", "search", "split identifier camel case parts", {}, {"paths": ["src/text.rs"]}),
        ("self-bm25-2", "search", "search", "writer lock flock pid waiting", {}, {"paths": ["src/lock.rs"]}),
        ("self-bm25-3", "search", "search", "refuse path escapes outside the project root symlink", {}, {"paths": ["src/paths.rs"]}),
    ]
    out = []
    for cid, cat, tool, q, args, expect in cases:
        case = {"id": cid, "category": cat, "corpus": "self", "tool": tool, "query": q, "args": args, "expect": expect}
        if tool == "search":
            case["mode"] = "bm25"
        out.append(case)
    for cid, pattern, args in [
        ("self-kw-1", '^name = "repo-search', {"glob": ["Cargo.toml"]}),
        ("self-kw-2", r"^(max_file_size|hidden|no_ignore|no_require_git) =", {"glob": [".repo_search.example"]}),
        ("self-kw-3", '"mcpServers"', {"fixed_strings": True, "glob": ["templates/**"]}),
    ]:
        out.append({"id": cid, "category": "search", "corpus": "self", "tool": "search_keyword", "query": pattern,
                    "args": args, "expect": {"matches": rg_matches(REPO, pattern, args)}})
    return out


def write(name, cases):
    path = os.path.join(EVALS, name + ".jsonl")
    with open(path, "w") as f:
        for case in cases:
            case.setdefault("args", {})
            f.write(json.dumps(case, sort_keys=False) + "\n")
    print(f"wrote {len(cases)} cases to {os.path.relpath(path, REPO)}", file=sys.stderr)


def main():
    which = set(sys.argv[1:]) or {"self", "nl", "nav", "keyword"}
    if "self" in which:
        write("self", gen_self())
    if which & {"nl", "nav", "keyword"}:
        c = corpora()
        if "nl" in which:
            write("nl", gen_nl(c))
        if "nav" in which:
            write("nav", gen_nav(c))
        if "keyword" in which:
            write("keyword", gen_keyword(c))


if __name__ == "__main__":
    main()
