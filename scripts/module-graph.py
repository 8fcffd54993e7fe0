#!/usr/bin/env python3
"""The module graph of src/: dependencies, cycles, upward arrows, stray SQL.

Reads every `src/**/*.rs`, maps each file to its module path
(`src/cli/render.rs` is `crate::cli::render`), collects the `use crate::…`,
`use super::…`, `crate::x::y`, `super::x` and child-module (`client::ping`)
references outside comments, strings and `#[cfg(test)]` items, resolves
each to the file defining the module, and prints:

  (a) the dependency graph between files, and between top-level modules;
  (b) cycles between files and between top-level modules (cli <-> daemon);
  (c) upward arrows: an edge from a module to one in a higher layer
      (LAYERS below);
  (d) files outside src/store/ and src/store.rs with SQL text in a string
      literal outside `#[cfg(test)]` items (reported, not an error).

A module's use of its own descendants (`cli/mod.rs` dispatching to
`cli::commands`, `pub use files::DaemonHome`) is containment, not a
dependency: such edges are listed (marked `v`) but ignored by the cycle
check; a child's use of its parent (`super::Found`) counts.

Exit status: 0 clean, 1 cycles or upward arrows, 2 usage error.
Usage: scripts/module-graph.py [--problems] [--dot] [ROOT]
  --problems  skip the graph, print only cycles, upward arrows and SQL
  --dot       print the file graph as Graphviz instead
"""

import os
import re
import sys
from collections import defaultdict

# ---------------------------------------------------------------------------
# Layers, top to bottom. A module may depend on modules of its own layer or
# of lower ones; an edge into a higher layer is an upward arrow. A module
# belongs to the layer of the longest listed prefix of its path; modules not
# listed (search, store, index, extract, embed, settings, registry, …) are
# the library, the bottom layer.
LAYERS = [
    # The command lines: `repo-search` and `repo-search-daemon` (cli::daemon).
    ("command lines", ["cli"]),
    # Long-running surfaces and the eval runner: the MCP server, the
    # daemon's server (watching, re-indexing), `repo-search-eval`.
    ("surfaces", ["mcp", "eval", "daemon"]),
    # What the surfaces share above the library (being written; may not
    # exist yet).
    ("service", ["service"]),
    # Everything else, including daemon_client (wire protocol, socket,
    # client calls: both the daemon and its clients import it).
    ("library", [""]),
]

# Where SQL may live.
STORE_PATHS = ("src/store.rs", "src/store/")
SQL_WORDS = ("SELECT ", "INSERT ", "UPDATE ", "DELETE FROM", "CREATE ", "PRAGMA")


# ---------------------------------------------------------------------------
# Lexing: blank out comments and literals, keep offsets and newlines.


def lex(src):
    """Returns (code, strings): `code` is `src` with comments and literals
    replaced by spaces (newlines kept), `strings` a list of
    (offset, contents) for each string literal."""
    out = list(src)
    strings = []
    n = len(src)
    i = 0

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = src[i]
        if c == "/" and src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif c == "/" and src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            blank(i, j)
            i = j
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            word = src[i:j]
            if word in ("r", "br", "cr") and j < n and src[j] in '#"':
                k = j
                while k < n and src[k] == "#":
                    k += 1
                if k < n and src[k] == '"':
                    close = '"' + "#" * (k - j)
                    end = src.find(close, k + 1)
                    end = n if end < 0 else end + len(close)
                    strings.append((i, src[k + 1 : end - len(close)]))
                    blank(i, end)
                    i = end
                    continue
            if word in ("b", "c") and j < n and src[j] == '"':
                i = j  # the string itself is handled next round
                continue
            if word == "b" and j < n and src[j] == "'":
                i = j
                continue
            i = j
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            strings.append((i, src[i + 1 : j]))
            blank(i, j + 1)
            i = j + 1
        elif c == "'":
            if i + 1 < n and src[i + 1] == "\\":
                j = src.find("'", i + 3)
                j = n if j < 0 else j
                blank(i, j + 1)
                i = j + 1
            elif i + 2 < n and src[i + 2] == "'":
                blank(i, i + 3)
                i += 3
            else:
                i += 1  # a lifetime or a label
        else:
            i += 1
    return "".join(out), strings


# ---------------------------------------------------------------------------
# Items: inline modules, #[cfg(test)] items, use declarations.

IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
MOD_RE = re.compile(r"\bmod\s+(" + IDENT + r")\s*([;{])")
CFG_TEST_RE = re.compile(r"#\[cfg\(test\)\]")
USE_RE = re.compile(r"\buse\s+")
PATH_RE = re.compile(
    r"(?<![\w:$])((?:crate|super|self)(?:\s*::\s*" + IDENT + r")+)"
)
REL_RE = re.compile(r"(?<![\w:$.])(" + IDENT + r")\s*::\s*(?=[A-Za-z_{*])")


def matching_brace(code, i):
    """Index just past the `}` matching the `{` at `i`."""
    depth = 0
    n = len(code)
    while i < n:
        if code[i] == "{":
            depth += 1
        elif code[i] == "}":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return n


def item_end(code, i):
    """End of the item starting at `i`: its `;` or its closing brace,
    whichever comes first at nesting depth 0 (attributes skipped)."""
    n = len(code)
    depth = 0
    while i < n:
        ch = code[i]
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == ";" and depth == 0:
            return i + 1
        elif ch == "{" and depth == 0:
            return matching_brace(code, i)
        i += 1
    return n


def test_regions(code):
    """(start, end) ranges of items under `#[cfg(test)]`, and the names of
    test-only child modules declared as files (`#[cfg(test)] mod tests;`)."""
    regions, test_children = [], set()
    for m in CFG_TEST_RE.finditer(code):
        end = item_end(code, m.end())
        regions.append((m.start(), end))
        mm = re.match(r"\s*(?:#\[[^\]]*\]\s*)*(?:pub(?:\([^)]*\))?\s+)?mod\s+(" + IDENT + r")\s*;",
                      code[m.end():end])
        if mm:
            test_children.add(mm.group(1))
    return regions, test_children


def inline_mods(code):
    """(start, end, name) of every `mod name { … }`, and the names of the
    file-level child modules declared with `mod name;` at the top level."""
    spans, children = [], []
    for m in MOD_RE.finditer(code):
        if m.group(2) == "{":
            spans.append((m.start(), matching_brace(code, m.end() - 1), m.group(1)))
        else:
            children.append((m.start(), m.group(1)))
    file_children = [name for pos, name in children if not any(a <= pos < b for a, b, _ in spans)]
    return spans, file_children


def scope_at(spans, pos):
    """Inline module path (list of names) around offset `pos`."""
    inner = [(a, name) for a, b, name in spans if a < pos < b]
    return [name for a, name in sorted(inner)]


def parse_use_tree(text):
    """Expands a use tree (`crate::a::{b, c::{self, D}}`) into paths (lists
    of segments); a `self` inside braces stands for the path before them."""
    tokens = re.findall(IDENT + r"|\{|\}|,|\*", text)
    pos = 0

    def tree(prefix):
        """One tree after `prefix`, up to a `,` or `}` of the enclosing list."""
        nonlocal pos
        segs = list(prefix)
        first = True
        while pos < len(tokens):
            t = tokens[pos]
            if t == "{":
                pos += 1
                paths = []
                while pos < len(tokens) and tokens[pos] != "}":
                    if tokens[pos] == ",":
                        pos += 1
                    else:
                        paths.extend(tree(segs))
                pos += 1  # the `}`
                return paths
            if t in (",", "}"):
                break
            pos += 1
            if t == "as":
                pos += 1  # the alias
            elif t == "*" or (t == "self" and first and prefix):
                pass
            else:
                segs.append(t)
            first = False
        return [segs]

    return tree([])


# ---------------------------------------------------------------------------
# The crate: files, modules, references.


class File:
    def __init__(self, path, modpath, text):
        self.path = path  # relative, e.g. src/cli/render.rs
        self.modpath = modpath  # e.g. ["cli", "render"]
        self.text = text
        self.code, self.strings = lex(text)
        self.tests, self.test_children = test_regions(self.code)
        self.spans, self.children = inline_mods(self.code)
        self.is_test = False

    def in_test(self, pos):
        return self.is_test or any(a <= pos < b for a, b in self.tests)

    def line(self, pos):
        return self.text.count("\n", 0, pos) + 1


def module_path(rel):
    parts = rel[len("src/"):-len(".rs")].split("/")
    if parts == ["lib"] or parts == ["main"]:
        return []
    if parts[-1] == "mod":
        parts = parts[:-1]
    return parts


def load(root):
    files = {}
    src = os.path.join(root, "src")
    for d, _, names in os.walk(src):
        for name in sorted(names):
            if name.endswith(".rs"):
                full = os.path.join(d, name)
                rel = os.path.relpath(full, root).replace(os.sep, "/")
                with open(full, encoding="utf-8") as f:
                    files[rel] = File(rel, module_path(rel), f.read())
    return files


def build(files):
    """Module path (tuple) -> file, for file and inline modules; marks
    test-only files."""
    modules = {}
    for f in files.values():
        modules[tuple(f.modpath)] = f
    for f in files.values():
        for a, b, name in f.spans:
            path = tuple(f.modpath + scope_at(f.spans, a) + [name])
            modules.setdefault(path, f)
    # `#[cfg(test)] mod tests;` and everything under it is test code.
    test_roots = [tuple(f.modpath + [c]) for f in files.values() for c in f.test_children]
    for f in files.values():
        if any(tuple(f.modpath[: len(t)]) == t for t in test_roots):
            f.is_test = True
    return modules


def resolve(modules, segs):
    """The file defining the longest module prefix of `segs`."""
    for k in range(len(segs), -1, -1):
        f = modules.get(tuple(segs[:k]))
        if f is not None:
            return f
    return None


def absolute(f, pos, segs, modules):
    """Absolute module path of a reference `segs` written at `pos` in `f`,
    or None if it is not into this crate."""
    here = f.modpath + scope_at(f.spans, pos)
    if not segs:
        return None
    head = segs[0]
    if head == "crate":
        return segs[1:]
    if head in ("super", "self"):
        cur = list(here)
        k = 0
        while k < len(segs) and segs[k] in ("super", "self"):
            if segs[k] == "super":
                if not cur:
                    return None
                cur.pop()
            k += 1
        return cur + segs[k:]
    # A child module of the current scope, written relative.
    if tuple(here + [head]) in modules:
        return here + segs
    return None


def references(f, modules):
    """(pos, absolute path) of every crate-internal reference in non-test
    code of `f`."""
    code = f.code
    refs = []
    use_spans = []
    for m in USE_RE.finditer(code):
        if m.start() > 0 and (code[m.start() - 1].isalnum() or code[m.start() - 1] == "_"):
            continue
        end = code.find(";", m.end())
        end = len(code) if end < 0 else end
        use_spans.append((m.start(), end))
        if f.in_test(m.start()):
            continue
        for segs in parse_use_tree(code[m.end():end]):
            path = absolute(f, m.start(), segs, modules)
            if path is not None:
                refs.append((m.start(), path))

    def in_use(pos):
        return any(a <= pos < b for a, b in use_spans)

    for m in PATH_RE.finditer(code):
        if in_use(m.start()) or f.in_test(m.start()):
            continue
        segs = re.findall(IDENT, m.group(1))
        path = absolute(f, m.start(), segs, modules)
        if path is not None:
            refs.append((m.start(), path))
    for m in REL_RE.finditer(code):
        if in_use(m.start()) or f.in_test(m.start()):
            continue
        name = m.group(1)
        if name in ("crate", "super", "self", "Self"):
            continue
        path = absolute(f, m.start(), [name], modules)
        if path is not None:
            # Take the following identifiers too, for nested modules.
            rest = re.match(r"((?:\s*::\s*" + IDENT + r")*)", code[m.end() - 0 :])
            tail = re.findall(IDENT, code[m.start(1) + len(name) : m.end()] + (rest.group(1) if rest else ""))
            refs.append((m.start(), path + tail))
    return refs


def graph(files, modules):
    """edges[a][b] = (line, text) of the first reference of file a to file b."""
    edges = defaultdict(dict)
    for f in files.values():
        if f.is_test:
            continue
        for pos, path in references(f, modules):
            target = resolve(modules, path)
            if target is None or target is f or target.is_test:
                continue
            if target.path not in edges[f.path]:
                ln = f.line(pos)
                edges[f.path][target.path] = (ln, f.text.splitlines()[ln - 1].strip())
    return edges


def is_containment(files, a, b):
    """Whether `a` is an ancestor module of `b` (b's path extends a's)."""
    ma, mb = files[a].modpath, files[b].modpath
    return len(ma) < len(mb) and mb[: len(ma)] == ma


# ---------------------------------------------------------------------------
# Cycles and layers.


def sccs(nodes, succ):
    """Tarjan's strongly connected components with more than one node."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(succ.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def shortest_cycle(comp, succ):
    """A shortest cycle through the component's first node."""
    start = comp[0]
    members = set(comp)
    prev = {start: None}
    queue = [start]
    while queue:
        v = queue.pop(0)
        for w in sorted(succ.get(v, ())):
            if w not in members:
                continue
            if w == start:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return list(reversed(path)) + [start]
            if w not in prev:
                prev[w] = v
                queue.append(w)
    return comp


def layer_of(modpath):
    best, best_len = len(LAYERS) - 1, -1
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            segs = p.split("::") if p else []
            if modpath[: len(segs)] == segs and len(segs) > best_len:
                best, best_len = i, len(segs)
    return best


def top(files, path):
    mp = files[path].modpath
    return mp[0] if mp else "crate"


# ---------------------------------------------------------------------------


def sql_outside_store(files):
    found = []
    for f in sorted(files.values(), key=lambda f: f.path):
        if f.path == STORE_PATHS[0] or f.path.startswith(STORE_PATHS[1]) or f.is_test:
            continue
        for pos, s in f.strings:
            if f.in_test(pos):
                continue
            words = [w.strip() for w in SQL_WORDS if w in s]
            if words:
                found.append((f.path, f.line(pos), ", ".join(words)))
    return found


def main(argv):
    problems_only = "--problems" in argv
    dot = "--dot" in argv
    rest = [a for a in argv if not a.startswith("--")]
    if len(rest) > 1:
        print(__doc__, file=sys.stderr)
        return 2
    root = rest[0] if rest else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    if not os.path.isdir(os.path.join(root, "src")):
        print(f"error: no src/ under {root}", file=sys.stderr)
        return 2

    files = load(root)
    modules = build(files)
    edges = graph(files, modules)

    if dot:
        print("digraph modules {\n  rankdir=LR;")
        for a in sorted(edges):
            for b in sorted(edges[a]):
                style = " [style=dashed]" if is_containment(files, a, b) else ""
                print(f'  "{a[4:-3]}" -> "{b[4:-3]}"{style};')
        print("}")
        return 0

    # Edges that count: not into one's own descendants.
    dep = defaultdict(set)
    for a, targets in edges.items():
        for b in targets:
            if not is_containment(files, a, b):
                dep[a].add(b)
    tops = defaultdict(set)
    top_why = {}
    for a, targets in dep.items():
        for b in targets:
            ta, tb = top(files, a), top(files, b)
            if ta != tb:
                tops[ta].add(tb)
                top_why.setdefault((ta, tb), (a, b))

    if not problems_only:
        print("== dependency graph (files; v = a module using its own descendant) ==")
        for a in sorted(files):
            if files[a].is_test:
                continue
            outs = edges.get(a, {})
            marks = [("v " if is_containment(files, a, b) else "") + b for b in sorted(outs)]
            print(f"{a} [{LAYERS[layer_of(files[a].modpath)][0]}]")
            for m in marks:
                print(f"    -> {m}")
        print()
        print("== top-level modules ==")
        for t in sorted(set(top(files, p) for p in files if not files[p].is_test)):
            print(f"{t} -> {', '.join(sorted(tops.get(t, ()))) or '(nothing)'}")
        print()

    failed = False
    file_cycles = sccs(set(files), dep)
    print("== cycles between files ==")
    for comp in file_cycles:
        failed = True
        cyc = shortest_cycle(comp, dep)
        print("cycle: " + " -> ".join(cyc))
        for a, b in zip(cyc, cyc[1:]):
            ln, text = edges[a][b]
            print(f"    {a}:{ln}: {text}")
        if len(comp) > len(cyc) - 1:
            print(f"    (component: {', '.join(comp)})")
    if not file_cycles:
        print("none")
    print()

    top_cycles = sccs(set(tops) | {t for s in tops.values() for t in s}, tops)
    print("== cycles between top-level modules ==")
    for comp in top_cycles:
        failed = True
        cyc = shortest_cycle(comp, tops)
        print("cycle: " + " -> ".join(cyc))
        for a, b in zip(cyc, cyc[1:]):
            fa, fb = top_why[(a, b)]
            ln, text = edges[fa][fb]
            print(f"    {fa}:{ln}: {text}")
    if not top_cycles:
        print("none")
    print()

    print("== upward arrows (layers: " + " > ".join(name for name, _ in LAYERS) + ") ==")
    upward = 0
    for a in sorted(dep):
        for b in sorted(dep[a]):
            la, lb = layer_of(files[a].modpath), layer_of(files[b].modpath)
            if lb < la:
                upward += 1
                ln, text = edges[a][b]
                print(f"{a} [{LAYERS[la][0]}] -> {b} [{LAYERS[lb][0]}]")
                print(f"    {a}:{ln}: {text}")
    if not upward:
        print("none")
    failed = failed or upward > 0
    print()

    sql = sql_outside_store(files)
    print("== SQL outside src/store (reported only) ==")
    for path, ln, words in sql:
        print(f"{path}:{ln}: {words}")
    if not sql:
        print("none")
    print()

    print(
        f"{len(file_cycles)} file cycle(s), {len(top_cycles)} top-level cycle(s), "
        f"{upward} upward arrow(s), {len(sql)} SQL string(s) outside the store"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
