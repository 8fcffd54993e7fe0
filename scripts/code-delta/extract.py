"""Training pairs for the fast tier's code delta: the first sentence of a
doc comment (or docstring, or module doc) and the code it documents,
without the doc, from third-party source trees given on the command line.

Nothing from the eval corpora: every package, crate or directory named in
`evals/corpora.toml` is skipped wherever it appears (vendored copies too),
and so are tests, examples and generated API clients.

    python3 scripts/code-delta/extract.py OUT.jsonl ROOT...

Output, one JSON object a line: {"q": doc sentence, "d": "path\nkind name\ncode", "src": ROOT}
(the document is laid out as `embed::chunk_input` lays out a chunk).
"""
import ast, json, os, re, sys, tomllib

MAXLINES = 40
HERE = os.path.dirname(os.path.abspath(__file__))

def clean_doc(lines):
    out = []
    for l in lines:
        l = l.strip()
        l = re.sub(r"^(///?!?|/\*\*?|\*/|\*|#+|--)\s?", "", l).strip()
        l = l.rstrip("*/").strip()
        if l.startswith("@") or l.startswith(":param") or l.startswith(":return") or l.startswith("# "):
            break
        if not l:
            if out:
                break
            continue
        out.append(l)
    t = " ".join(out)
    t = re.sub(r"\{@\w+\s+([^}]*)\}", r"\1", t)
    t = re.sub(r"<[^>]+>", "", t)
    t = re.sub(r"\[`?([^\]`]+)`?\]\([^)]*\)", r"\1", t)
    t = re.sub(r"\[`?([^\]`]+)`?\]", r"\1", t)
    t = t.replace("`", "")
    m = re.search(r"^(.+?[.!?])(\s|$)", t)
    if m:
        t = m.group(1)
    t = t.strip()
    w = t.split()
    if len(w) < 4 or len(w) > 40:
        return None
    if re.search(r"(?i)copyright|licen[cs]e|deprecated|todo|fixme|auto-?generated", t):
        return None
    return t

DEF = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?((public|private|protected|static|final|abstract|async|export|default|unsafe|const|extern|inline|virtual|override|synchronized|native|fn|func|fun|function|class|struct|enum|trait|impl|interface|def|type|mod|macro_rules!|object|data|sealed|open|internal|suspend|protocol|extension|namespace|template)\b|[A-Za-z_][\w<>\[\], :*&]*\s+\**[A-Za-z_]\w*\s*\(|[A-Za-z_$][\w$]*\s*\([^)]*\)\s*(:\s*[^{=]+)?\{\s*$)")
NAME = re.compile(r"\b(?:fn|func|fun|function|class|struct|enum|trait|interface|def|type|mod|impl|object|protocol|extension)\s+([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*[(<]")

def c_like(rel, text):
    lines = text.split("\n")
    if rel.endswith(".rs"):
        top = [l for l in lines[:60] if l.startswith("//!")]
        if top:
            q = clean_doc(top)
            body = [l for l in lines if l.strip() and not l.startswith("//")][:MAXLINES]
            if q and len(body) >= 3:
                yield q, f"{rel}\n" + "\n".join(body)
    i = 0
    n = len(lines)
    while i < n:
        s = lines[i].strip()
        if s.startswith("///") or s.startswith("/**") or (s.startswith("//") and not s.startswith("//!")):
            j = i
            doc = []
            if s.startswith("/**"):
                while j < n:
                    doc.append(lines[j])
                    if "*/" in lines[j]:
                        j += 1
                        break
                    j += 1
            else:
                while j < n and lines[j].strip().startswith("//"):
                    doc.append(lines[j])
                    j += 1
            # skip attributes / annotations
            while j < n and re.match(r"^\s*(#\[|@[A-Z]\w*)", lines[j]):
                j += 1
            if j < n and DEF.match(lines[j]) and not re.match(r"(return|if|for|while|else|switch|catch|function|do|with)\b", lines[j].strip()):
                q = clean_doc(doc)
                if q:
                    # take the definition up to its closing brace (depth back to 0) or MAXLINES
                    depth = 0
                    seen = False
                    k = j
                    body = []
                    while k < n and len(body) < MAXLINES:
                        body.append(lines[k])
                        depth += lines[k].count("{") - lines[k].count("}")
                        if "{" in lines[k]:
                            seen = True
                        if seen and depth <= 0:
                            break
                        if not seen and lines[k].rstrip().endswith(";"):
                            break
                        k += 1
                    if len(body) >= 3:
                        m = NAME.search(lines[j])
                        name = (m.group(1) or m.group(2)) if m else ""
                        yield q, f"{rel}\n{name}\n" + "\n".join(body)
            i = max(j, i + 1)
        else:
            i += 1

def python(rel, text):
    try:
        tree = ast.parse(text)
    except Exception:
        return
    lines = text.split("\n")
    md = ast.get_docstring(tree)
    if md and tree.body:
        q = clean_doc(md.split("\n"))
        b = tree.body[0]
        body = [l for l in lines[b.end_lineno:] if l.strip()][:MAXLINES]
        if q and len(body) >= 3:
            yield q, f"{rel}\n" + "\n".join(body)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            doc = ast.get_docstring(node)
            if not doc or node.name.startswith("test"):
                continue
            q = clean_doc(doc.split("\n"))
            if not q:
                continue
            b = node.body[0]
            start = node.lineno - 1
            end = min(node.end_lineno or node.lineno, start + MAXLINES + 10)
            body = lines[start:b.lineno - 1] + lines[b.end_lineno:end]
            body = body[:MAXLINES]
            if len(body) < 3:
                continue
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            yield q, f"{rel}\n{kind} {node.name}\n" + "\n".join(body)

def end_by_indent(rel, text, comment, start_re):
    """Ruby and Lua: a run of `comment` lines right above a definition
    matched by `start_re`; the definition runs to the `end` at its own
    indentation."""
    lines = text.split("\n")
    n = len(lines)
    i = 0
    while i < n:
        if not lines[i].lstrip().startswith(comment):
            i += 1
            continue
        j = i
        doc = []
        while j < n and lines[j].lstrip().startswith(comment):
            doc.append(lines[j].lstrip()[len(comment):].lstrip("-").strip())
            j += 1
        if j < n:
            m = start_re.match(lines[j])
            if m:
                q = clean_doc(doc)
                indent = len(lines[j]) - len(lines[j].lstrip())
                body = []
                k = j
                while k < n and len(body) < MAXLINES:
                    body.append(lines[k])
                    l = lines[k]
                    if k > j and l.strip() == "end" and len(l) - len(l.lstrip()) == indent:
                        break
                    k += 1
                if q and len(body) >= 3:
                    yield q, f"{rel}\n{m.group(1)} {m.group(2)}\n" + "\n".join(body)
        i = max(j, i + 1)

RUBY_DEF = re.compile(r"^\s*(def|class|module)\s+(?:self\.)?([A-Za-z_][\w:]*[?!=]?)")
LUA_DEF = re.compile(r"^\s*(?:local\s+)?(function)\s+([A-Za-z_][\w.:]*)")

def ruby(rel, text):
    yield from end_by_indent(rel, text, "#", RUBY_DEF)

def lua(rel, text):
    yield from end_by_indent(rel, text, "--", LUA_DEF)

EXT = {".rs": c_like, ".java": c_like, ".js": c_like, ".ts": c_like, ".c": c_like, ".h": c_like,
       ".cc": c_like, ".cpp": c_like, ".hpp": c_like, ".go": c_like, ".cs": c_like, ".php": c_like,
       ".kt": c_like, ".scala": c_like, ".swift": c_like, ".py": python,
       ".tsx": c_like, ".mjs": c_like, ".rb": ruby, ".lua": lua}

def corpus_names():
    """Every package, crate and directory name of the eval corpora."""
    with open(os.path.join(HERE, "..", "..", "evals", "corpora.toml"), "rb") as f:
        corpora = tomllib.load(f)
    names = set()
    for key, c in corpora.items():
        names.add(key.removeprefix("agent-"))
        for field in ("package", "dir", "crates"):
            v = c.get(field)
            for x in (v if isinstance(v, list) else [v] if v else []):
                names.add(re.split(r"[=@ ]|-\d", x)[0].split("/")[-1])
    # Too generic to skip as path components.
    generic = {"", ".", "5.1", "base", "lib", "src", "std", "usr", "package", "git", "scala", "v2", "self"}
    return names - generic


NAMES = corpus_names()
def excluded(rel):
    for comp in rel.split('/'):
        if comp in NAMES or comp in ('tests', 'test', 'testing', 'benches', 'examples', 'apis', 'generated_clients'):
            return True
        m = re.match(r'^(.*?)-\d', comp)
        if m and m.group(1) in NAMES:
            return True
        # Sibling crates of an eval crate (clap_lex beside clap_builder).
        if re.match(r'^(clap|serde|tokio|hyper|notify|regex)[-_]', comp):
            return True
    return False

def main():
    out = open(sys.argv[1], "w")
    roots = sys.argv[2:]
    count = 0
    for root in roots:
        per = 0
        for dp, dn, fn in os.walk(root):
            rel_dir = os.path.relpath(dp, root)
            if excluded(rel_dir.replace(os.sep, "/")):
                dn[:] = []
                continue
            for f in fn:
                ext = os.path.splitext(f)[1]
                if ext not in EXT or f.endswith(".min.js") or f.endswith(".d.ts"):
                    continue
                p = os.path.join(dp, f)
                try:
                    if os.path.getsize(p) > 400_000:
                        continue
                    text = open(p, encoding="utf-8", errors="ignore").read()
                except Exception:
                    continue
                rel = os.path.relpath(p, root)
                # keep the path short like a repo-relative one: last 4 components
                rel = "/".join(rel.split(os.sep)[-4:])
                for q, d in EXT[ext](rel, text):
                    out.write(json.dumps({"q": q, "d": d, "src": root}) + "\n")
                    count += 1
                    per += 1
        print(root, per, file=sys.stderr)
    print("total", count, file=sys.stderr)

if __name__ == "__main__":
    main()
