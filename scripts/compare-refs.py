#!/usr/bin/env python3
"""Compares `repo-search refs Class.method` with real reference resolvers.

    scripts/setup-refs-tools.sh          # once: jedi, typescript, gopls and the corpora
    scripts/compare-refs.py [--set tune|tune2|...|tune7|check] [--lang python|ts|js|go|all] [--sample 100] [--seed 1]
                            [--bin target/release/repo-search] [--json OUT] [--timeout 60]
                            [--scratch DIR]

Five sets of corpora, one corpus per language in each, none of them written
here (see setup-refs-tools.sh). JavaScript
(`--lang js`) has three, compared with the same TypeScript language service
(JavaScript files, `allowJs`: types come from inference and JSDoc):
commander + chokidar in `tune`, ws + koa in `tune2`, and winston + knex
(their lib/ sources) in `check`, held out as below.
- `--set tune` (the default): requests + click for Python, rxjs's .ts and zod's
  v3 .ts sources for TypeScript, cobra + pflag for Go. The resolver is tuned
  on these; look at their worst names freely.
- `--set tune2`: a second set to tune on, different in style: marshmallow +
  jinja2 for Python, @tanstack/form-core's .ts sources (with the
  @tanstack/store they import) and prosemirror-model's for TypeScript,
  yaml.v2 + BurntSushi/toml (mostly unexported types) for Go. Tuned on as
  freely as `tune`.
- `--set tune3`: a third set to tune on, different in style again: werkzeug +
  pluggy for Python, @tiptap/core's and @uppy/core's .ts sources for
  TypeScript, go-chi/chi + urfave/cli v2 (routers and flags behind
  interfaces) for Go. Tuned on as freely as `tune`.
- `--set tune4`: a fourth set to tune on: chevrotain's .ts sources (with the
  @chevrotain/gast they import) and @msgpack/msgpack's for TypeScript,
  yuin/goldmark + gomodule/redigo (AST nodes embedding base structs, parsers
  and connections held in struct fields) for Go, and (added later)
  starlette + h11 for Python. Added when the first three sets had become
  overfitted: tuned on as freely as `tune`.
- `--set check`: the held-out set, httpx + attrs for Python, mobx's and
  @tanstack/query-core's .ts sources for TypeScript, gorilla/mux +
  gorilla/websocket for Go. Never tuned on: it is only run to report numbers,
  and a change is not judged or adjusted by its results here (once it has
  been, it no longer measures anything held out). Sampling, rules and output
  are otherwise identical.

For each language the set's corpus is
copied into a scratch directory (`--scratch`, default `$CACHE/scratch`; two
runs at once need different ones, as each starts by emptying its copy) and
indexed with `--bin` (`index --no-embed`, with a private REPO_SEARCH_HOME). The resolver itself lists the methods
(jedi `get_names`, the TypeScript language service's navigation tree, gopls
`textDocument/documentSymbol`); the qualified names (`Class.method`,
`Type.Method`) are shuffled with `--seed`, and the first `--sample` names the
resolver finds at least one reference for are kept. For each, the resolver's
references (jedi `get_references(scope="project")`, TypeScript
`findReferences`, gopls `textDocument/references`) are compared with
`repo-search refs NAME --json -n 100000` as sets of (path, line): columns are
not compared, and a line with two references counts once.

What counts as a reference, on both sides:
- Definitions are not references: our `is_definition` hits, the resolver's
  own definition flag, and every definition site of the same bare name that
  the resolver lists (an overriding method in a subclass, a function of the
  same name) are dropped from both sides.
- A qualified name defined more than once (the same class name in two
  modules, TypeScript overloads) is compared against the union of the
  resolver's references of all its definitions.
- TypeScript: only the references of the method's own symbol; the groups
  `findReferences` adds for the interface members it implements or the base
  members it overrides are left out.
- Go: gopls counts a call through an interface (`flag.Value.Type()`) as a
  reference of every method implementing it; those calls (the references of
  an interface method of the corpus with the same name) are left out, as on
  the TypeScript side. Calls through a standard-library interface
  (`fmt.Stringer`) stay in. gopls crashes on a few such methods: it is
  restarted and the call retried once, then the name counts as skipped.
- Python: a property (or method) `C.x` whose class also assigns `self.x =
  …` in one of its methods (`self.content_type = content_type` in `__init__`,
  beside `@property def content_type` and its setter) is defined more than
  once for jedi: it lists those assignments as definitions, and its `goto` at
  `b.content_type` lands on the assignment, not on the property, so its
  `get_references` of the property leaves out every read that the Python
  runtime sends through the property (a data descriptor wins over the
  instance's attribute). As for any name defined more than once, the
  resolver's side is the union of the references of all the definitions
  (the property's, and the assignments'), and the assignments are definition
  sites, dropped from both sides. Only such assignments of a name that the
  class defines as a method or property count; they are never sampled alone.
- Dunder methods (`__init__`, `__eq__`, ...) are not sampled: their uses are
  implicit.
- Our hits without a `resolution` field (binaries before the qualified-refs
  work) count as resolved; hits with `"resolution": "name_only"` are reported
  apart: how many of them the resolver confirms, and what share of the
  resolver's references we only had as name-only.

Reference lists are incomplete, so a false positive may be the resolver's
miss rather than ours: jedi's `get_references(scope="project")` leaves out
`s.get(...)` at requests/tests/test_requests.py:386 (`s = requests.session()`)
although jedi's own `goto` there gives `Session.get`. So for every FP (our
resolved hit, not in the resolver's set) the same resolver is asked for the
definition at that exact position, each of our hits on that line at its column
(jedi `Script.goto(follow_imports=True)`, TypeScript
`getDefinitionAtPosition`, gopls `textDocument/definition`). The FP is
*confirmed* when a definition it returns is one of the name's definition sites
the resolver listed (same file and line; TypeScript: the line of the
definition's name span). Nothing is moved: `P micro` still counts every FP
against us; `P goto` = (TP + confirmed FP) / ours is printed beside it, the
worst names mark `FP (goto confirms)`, and the JSON has per name
`fp_confirmed` and per language `precision_goto`, `fp_confirmed` and
`goto_errors` (positions where goto failed or timed out: not confirmed).
Recall and the FN side are untouched.

Prints a table per language and the ten worst names with examples of false
positives (FP: ours, not theirs) and false negatives (FN: theirs, not ours) on
stdout; timings go to stderr, so stdout is the same for the same inputs.
`--json OUT` writes every name's sets. Not part of the test suite: it needs
the tools that setup-refs-tools.sh downloads.
"""

import argparse
import json
import os
import queue
import random
import re
import shutil
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CACHE = os.environ.get("REPO_SEARCH_REFS_TOOLS", os.path.expanduser("~/.cache/repo-search-refs-tools"))
# set -> lang -> (directory under corpora/, the table's corpus column, and for
# Python the directories jedi adds to sys.path: each package's import root, and
# the directory its tests import `tests.` from).
CORPORA = {
    "tune": {
        "python": ("python-requests-2.32.3-click-8.1.8", "requests 2.32.3 + click 8.1.8 (sdists)",
                   ["requests/src", "click/src", "requests"]),
        "ts": ("ts-rxjs-7.8.2-zod-3.25.76", "rxjs 7.8.2 + zod 3.25.76 v3 (src .ts)", None),
        "js": ("js-commander-12.1.0-chokidar-3.6.0", "commander 12.1.0 + chokidar 3.6.0 (lib .js)", None),
        "go": ("spf13-go", "cobra 1.6.1 + pflag (Debian)", None),
    },
    # held out: never tuned on (see the docstring)
    "check": {
        "python": ("python-httpx-0.28.1-attrs-25.3.0", "httpx 0.28.1 + attrs 25.3.0 (sdists)",
                   ["httpx", "attrs/src"]),
        "ts": ("ts-mobx-6.13.7-query-core-5.83.0", "mobx 6.13.7 + @tanstack/query-core 5.83.0 (src .ts)", None),
        "js": ("js-winston-3.17.0-knex-3.1.0", "winston 3.17.0 + knex 3.1.0 (lib .js)", None),
        "go": ("gorilla-go", "gorilla/mux 1.8.0 + gorilla/websocket 1.5.0 (Debian)", None),
    },
    # a second set to tune on, different in style from both
    "tune2": {
        "python": ("python-marshmallow-4.4.0-jinja2-3.1.6", "marshmallow 4.4.0 + jinja2 3.1.6 (sdists)",
                   ["marshmallow/src", "jinja2/src", "marshmallow"]),
        "ts": ("ts-form-core-1.33.5-store-0.11.2-prosemirror-model-1.25.13",
               "@tanstack/form-core 1.33.5 + store 0.11.2 + prosemirror-model 1.25.13 (src .ts)", None),
        "js": ("js-ws-8.18.0-koa-2.15.3", "ws 8.18.0 + koa 2.15.3 (lib .js)", None),
        "go": ("yaml-toml-go", "yaml.v2 2.4.0 + BurntSushi/toml 1.2.0 (Debian)", None),
    },
    # a third set to tune on, different in style from the others
    "tune3": {
        "python": ("python-werkzeug-3.1.9-pluggy-1.7.0", "werkzeug 3.1.9 + pluggy 1.7.0 (sdists)",
                   ["werkzeug/src", "pluggy/src"]),
        "ts": ("ts-tiptap-core-3.34.0-uppy-core-6.3.1", "@tiptap/core 3.34.0 + @uppy/core 6.3.1 (src .ts)", None),
        "go": ("chi-cli-go", "go-chi/chi 5.0.7 + urfave/cli 2.3.0 (Debian)", None),
    },
    # a fifth set to tune on, added when the others had become overfitted
    "tune5": {
        "python": ("python-urllib3-2.5.0-itsdangerous-2.2.0", "urllib3 2.5.0 + itsdangerous 2.2.0 (sdists)",
                   ["urllib3/src", "itsdangerous/src", "urllib3"]),
        "go": ("cron-httprouter-schema-lru-go",
               "cron 3.0.1 + httprouter 1.3.0 + schema 1.2.0 + securecookie 1.1.1 + golang-lru 0.5.4 (Debian)", None),
    },
    # a sixth, Go only: network clients built around a connection struct
    "tune6": {
        "go": ("pq-amqp-go", "lib/pq 1.10.7 + streadway/amqp 2020-07-16 (Debian)", None),
    },
    # a seventh, Go only: a second websocket library (not the held-out one)
    # and gorilla's session and CSRF middleware
    "tune7": {
        "go": ("nhooyr-sessions-csrf-go", "nhooyr.io/websocket 1.8.7 + gorilla/sessions 1.2.1 + gorilla/csrf 1.7.1 (Debian)",
               None),
    },
    # a fourth set to tune on, different in style from the others
    "tune4": {
        "python": ("python-starlette-0.47.2-h11-0.16.0", "starlette 0.47.2 + h11 0.16.0 (sdists)",
                   ["starlette", "h11"]),
        "ts": ("ts-chevrotain-11.2.0-msgpack-3.1.3",
               "chevrotain 11.2.0 + @chevrotain/gast 11.2.0 + @msgpack/msgpack 3.1.3 (src .ts)", None),
        "go": ("goldmark-redigo-go", "yuin/goldmark 1.5.4 + gomodule/redigo 1.8.3 (Debian)", None),
    },
}


# GOOS/GOARCH and default tags that gopls builds with on this machine.
GO_TAGS = {"linux", "amd64", "unix", "gc", "cgo"}
_go_built = {}


def go_file_built(root, rel):
    """Does the default build (what gopls loads) include this Go file by its
    `//go:build` or `// +build` lines and its `_GOOS`/`_GOARCH` suffix?"""
    if rel in _go_built:
        return _go_built[rel]
    ok = True
    stem = os.path.basename(rel).rsplit(".", 1)[0].removesuffix("_test")
    parts = stem.split("_")
    known_os = {"linux", "windows", "darwin", "freebsd", "openbsd", "netbsd", "plan9", "solaris", "aix", "js",
                "android", "ios", "dragonfly", "illumos", "wasip1"}
    known_arch = {"amd64", "386", "arm", "arm64", "wasm", "mips", "mipsle", "mips64", "ppc64", "ppc64le", "riscv64", "s390x"}
    if len(parts) > 1 and (parts[-1] in known_os | known_arch):
        ok = parts[-1] in GO_TAGS and (len(parts) < 3 or parts[-2] not in known_os or parts[-2] in GO_TAGS)
    try:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            head = []
            for line in f:
                t = line.strip()
                if t.startswith("package "):
                    break
                head.append(t)
    except OSError:
        head = []
    gobuild = [t[len("//go:build"):] for t in head if t.startswith("//go:build")]
    if gobuild:
        expr = re.sub(r"[A-Za-z0-9_.]+", lambda m: str(m.group(0) in GO_TAGS or m.group(0).startswith("go1.")), gobuild[0])
        expr = expr.replace("&&", " and ").replace("||", " or ").replace("!", " not ")
        try:
            ok = ok and bool(eval(expr, {"__builtins__": {}}))  # noqa: S307 (True/False/and/or/not only)
        except SyntaxError:
            pass
    else:
        for t in head:
            if t.startswith("// +build"):
                terms = t[len("// +build"):].split()
                ok = ok and any(all((x[1:] not in GO_TAGS) if x.startswith("!") else (x in GO_TAGS or x.startswith("go1."))
                                    for x in term.split(",")) for term in terms)
    _go_built[rel] = ok
    return ok


class ResolverError(Exception):
    pass


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# A subprocess speaking one JSON object per line, with a timeout per call
# (a reader thread feeds a queue; a call that times out kills and restarts).


class LineWorker:
    def __init__(self, argv, cwd):
        self.argv, self.cwd = argv, cwd
        self.proc = None

    def _start(self):
        self.proc = subprocess.Popen(self.argv, cwd=self.cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.q = queue.Queue()
        proc, q = self.proc, self.q

        def pump():
            for line in proc.stdout:
                q.put(line)
            q.put(None)

        threading.Thread(target=pump, daemon=True).start()

    def call(self, req, timeout):
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
            line = self.q.get(timeout=timeout)
        except queue.Empty:
            self.close()
            raise ResolverError(f"timed out after {timeout}s")
        except (BrokenPipeError, OSError) as e:
            self.close()
            raise ResolverError(f"worker died: {e}")
        if line is None:
            self.close()
            raise ResolverError("worker exited")
        try:
            ans = json.loads(line)
        except json.JSONDecodeError:
            raise ResolverError(f"bad answer: {line[:200]!r}")
        if "error" in ans:
            raise ResolverError(ans["error"])
        return ans["result"]

    def close(self):
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


# ---------------------------------------------------------------------------
# Python: jedi, in the setup script's venv.

JEDI_WORKER = r'''
import json, os, sys
import jedi
import jedi.inference.references as jedi_refs
root = sys.argv[1]
# jedi parses at most 30 files that contain the name when it looks for
# references (`_PARSED_FILE_LIMIT`), so a common method name's list is cut
# short; the limit given (--jedi-files) replaces it.
jedi_refs._PARSED_FILE_LIMIT = int(sys.argv[3])
jedi_refs._OPENED_FILE_LIMIT = max(jedi_refs._OPENED_FILE_LIMIT, int(sys.argv[3]))
# The corpus's import roots (CORPORA), relative to root.
project = jedi.Project(root, added_sys_path=[os.path.join(root, p) for p in json.loads(sys.argv[2])],
                       smart_sys_path=False)

def files():
    for dp, dns, fns in os.walk(root):
        dns[:] = sorted(d for d in dns if not d.startswith("."))
        for f in sorted(fns):
            if f.endswith(".py"):
                yield os.path.join(dp, f)

def rel(p):
    return os.path.relpath(p, root).replace(os.sep, "/")

def methods():
    out = []
    for p in files():
        for n in jedi.Script(path=p, project=project).get_names(all_scopes=True, definitions=True, references=False):
            par = n.parent()
            if n.type == "statement":
                # `self.content_type = …` in a method of class C: jedi's
                # second definition of `C.content_type` (see the docstring).
                owner = par.parent() if par is not None and par.type == "function" else None
                code = n.get_line_code()
                if (owner is not None and owner.type == "class" and n.column >= 5
                        and code[n.column - 5:n.column] == "self."):
                    out.append([n.name, owner.name, rel(p), n.line, n.column + 1, True])
                continue
            if n.type not in ("function", "property"):
                continue
            cls = par.name if par is not None and par.type == "class" else None
            out.append([n.name, cls, rel(p), n.line, n.column + 1])
    return out

def refs(path, line, col):
    s = jedi.Script(path=os.path.join(root, path), project=project)
    out = []
    for r in s.get_references(line, col - 1, scope="project"):
        mp = str(r.module_path) if r.module_path else ""
        if not mp.startswith(root + os.sep) or not mp.endswith(".py"):
            continue
        out.append([rel(mp), r.line, r.column + 1, bool(r.is_definition()), True])
    return out

def goto(positions):
    # per position: the definitions in the corpus jedi goes to, as [path, line];
    # None when jedi fails on that position
    out, scripts = [], {}
    for path, line, col in positions:
        try:
            if path not in scripts:
                scripts[path] = jedi.Script(path=os.path.join(root, path), project=project)
            defs = []
            for d in scripts[path].goto(line, col - 1, follow_imports=True):
                mp = str(d.module_path) if d.module_path else ""
                if mp.startswith(root + os.sep) and d.line is not None:
                    defs.append([rel(mp), d.line])
            out.append(defs)
        except Exception:
            out.append(None)
    return out

for line in sys.stdin:
    try:
        req = json.loads(line)
        if req["op"] == "methods":
            res = methods()
        elif req["op"] == "goto":
            res = goto(req["positions"])
        else:
            res = refs(req["path"], req["line"], req["col"])
        print(json.dumps({"result": res}), flush=True)
    except Exception as e:
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}), flush=True)
'''


# ---------------------------------------------------------------------------
# TypeScript: the language service of the pinned `typescript` package.

TS_WORKER = r'''
const ts = require(process.argv[1]);  // node -e: argv[1] is the first argument
const fs = require("fs");
const path = require("path");
const root = process.argv[2];
// `js`: the JavaScript sources, typed as the language service types them
// (inference, JSDoc); else the TypeScript ones.
const js = process.argv[3] === "js";
const wanted = js ? /\.c?js$/ : /\.tsx?$/;
function walk(d, out) {
  const ents = fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of ents) {
    if (e.name.startsWith(".") || e.name === "node_modules") continue;
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (wanted.test(e.name)) out.push(p);
  }
  return out;
}
const files = walk(root, []);
const options = {
  target: ts.ScriptTarget.ES2020, module: ts.ModuleKind.CommonJS, moduleResolution: ts.ModuleResolutionKind.Node10,
  strict: !js, allowJs: js, checkJs: false, noEmit: true, skipLibCheck: true, lib: ["lib.es2020.d.ts", "lib.dom.d.ts"], types: [],
};
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: () => "1",
  getScriptSnapshot: (f) => (fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, "utf8")) : undefined),
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists, readFile: ts.sys.readFile, readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists, getDirectories: ts.sys.getDirectories,
};
const ls = ts.createLanguageService(host, ts.createDocumentRegistry());
const rel = (f) => path.relative(root, f).split(path.sep).join("/");
const inRoot = (f) => f.startsWith(root + path.sep) && !f.endsWith(".d.ts");
function lc(sf, p) { const x = sf.getLineAndCharacterOfPosition(p); return [x.line + 1, x.character + 1]; }
function methods() {
  const out = [];
  const prog = ls.getProgram();
  for (const f of files) {
    const sf = prog.getSourceFile(f);
    if (!sf) continue;
    const visit = (item, parent) => {
      if ((item.kind === "method" || item.kind === "function") && item.nameSpan && /^[A-Za-z_$][\w$]*$/.test(item.text)) {
        const cls = item.kind === "method" && parent && parent.kind === "class" ? parent.text : null;
        const [line, col] = lc(sf, item.nameSpan.start);
        out.push([item.text, cls, rel(f), line, col]);
      }
      for (const c of item.childItems || []) visit(c, item);
    };
    visit(ls.getNavigationTree(f), null);
  }
  return out;
}
function refs(p, line, col) {
  const abs = path.join(root, p);
  const sf = ls.getProgram().getSourceFile(abs);
  const pos = sf.getPositionOfLineAndCharacter(line - 1, col - 1);
  const out = [];
  for (const g of ls.findReferences(abs, pos) || []) {
    const d = g.definition;
    const own = d.fileName === abs && d.textSpan.start <= pos && pos <= d.textSpan.start + d.textSpan.length;
    for (const r of g.references) {
      if (!inRoot(r.fileName)) continue;
      const rsf = ls.getProgram().getSourceFile(r.fileName);
      const [l, c] = lc(rsf, r.textSpan.start);
      out.push([rel(r.fileName), l, c, !!r.isDefinition, own]);
    }
  }
  return out;
}
// per position: where getDefinitionAtPosition goes in the corpus, as [path, line of
// the definition's name span]; null when the language service fails there
function gotoDefs(positions) {
  const prog = ls.getProgram();
  return positions.map(([p, line, col]) => {
    try {
      const abs = path.join(root, p);
      const pos = prog.getSourceFile(abs).getPositionOfLineAndCharacter(line - 1, col - 1);
      const out = [];
      for (const d of ls.getDefinitionAtPosition(abs, pos) || []) {
        if (!inRoot(d.fileName)) continue;
        out.push([rel(d.fileName), lc(prog.getSourceFile(d.fileName), d.textSpan.start)[0]]);
      }
      return out;
    } catch (e) {
      return null;
    }
  });
}
require("readline").createInterface({ input: process.stdin }).on("line", (line) => {
  let ans;
  try {
    const req = JSON.parse(line);
    ans = { result: req.op === "methods" ? methods() : req.op === "goto" ? gotoDefs(req.positions) : refs(req.path, req.line, req.col) };
  } catch (e) {
    ans = { error: String(e && e.stack ? e.stack.split("\n")[0] : e) };
  }
  process.stdout.write(JSON.stringify(ans) + "\n");
});
'''


# ---------------------------------------------------------------------------
# Go: one long-lived `gopls serve`, spoken to over LSP (stdio).


class Gopls:
    METHOD_RE = re.compile(r"^\(\*?(\w+)(?:\[[^\]]*\])?\)\.(\w+)$")

    def __init__(self, root):
        self.root = root
        self.restarts = 0
        self._start()

    def _start(self):
        root = self.root
        env = dict(os.environ, GOFLAGS="-mod=mod", GOPROXY="off", GOTOOLCHAIN="local")
        self.errlog = open(os.path.join(CACHE, "gopls.log"), "ab")
        self.proc = subprocess.Popen(["gopls", "serve"], cwd=root, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.errlog)
        self.q = queue.Queue()
        self.lock = threading.Lock()
        self.next_id = 0
        threading.Thread(target=self._pump, daemon=True).start()
        uri = self.uri("")
        self.request("initialize", {
            "processId": os.getpid(), "rootUri": uri, "workspaceFolders": [{"uri": uri, "name": "corpus"}],
            "capabilities": {"textDocument": {"documentSymbol": {"hierarchicalDocumentSymbolSupport": True}}},
        }, timeout=120)
        self._send({"jsonrpc": "2.0", "method": "initialized", "params": {}})

    def uri(self, rel):
        return "file://" + os.path.join(self.root, rel).rstrip("/")

    def _send(self, msg):
        body = json.dumps(msg).encode()
        try:
            with self.lock:
                self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
                self.proc.stdin.flush()
        except OSError as e:
            raise ResolverError(f"gopls is gone: {e}")

    def _pump(self):
        try:
            self._read_all()
        except Exception as e:  # noqa: BLE001 -- any failure here ends the session
            log(f"gopls reader: {type(e).__name__}: {e}")
        self.q.put(None)

    def _read_all(self):
        out = self.proc.stdout
        while True:
            length = None
            while True:
                line = out.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.decode("ascii", "replace").partition(":")
                if k.lower() == "content-length":
                    length = int(v)
            if length is None:
                continue
            msg = json.loads(out.read(length))
            if "method" in msg and "id" in msg:  # a request from the server: answer it empty
                self._send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
            elif "id" in msg:
                self.q.put(msg)

    def request(self, method, params, timeout):
        self.next_id += 1
        rid = self.next_id
        self._send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                msg = self.q.get(timeout=max(left, 0.001))
            except queue.Empty:
                self._send({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": rid}})
                raise ResolverError(f"timed out after {timeout}s")
            if msg is None:
                raise ResolverError("gopls exited")
            if msg.get("id") != rid:
                continue  # a late answer to a request that timed out
            if "error" in msg:
                raise ResolverError(msg["error"].get("message", "error"))
            return msg.get("result")

    def rel(self, uri):
        p = uri.removeprefix("file://")
        return os.path.relpath(p, self.root).replace(os.sep, "/") if p.startswith(self.root + os.sep) else None

    def call(self, req, timeout):
        """One operation; gopls crashing (it does, on some methods that implement
        interfaces) restarts it and retries once."""
        for attempt in (0, 1):
            if self.proc.poll() is not None:
                self.restarts += 1
                self._start()
            try:
                return self._call(req, timeout)
            except ResolverError as e:
                if attempt:
                    raise
                try:
                    self.proc.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    raise e from None  # alive: a real error or a timeout, not a crash

    def _call(self, req, timeout):
        if req["op"] == "methods":
            out = []
            self.iface_methods, self.iface_refs = {}, {}
            for p in walk(self.root, (".go",)):
                syms = self.request("textDocument/documentSymbol", {"textDocument": {"uri": self.uri(p)}}, timeout) or []
                for s in syms:
                    if s.get("kind") == 11:  # Interface: its methods are definition sites, not sampled
                        for c in s.get("children") or []:
                            if c.get("kind") == 6:
                                start = c["selectionRange"]["start"]
                                self.iface_methods.setdefault(c["name"], []).append((p, start["line"] + 1, start["character"] + 1))
                                out.append([c["name"], None, p, start["line"] + 1, start["character"] + 1])
                    if s.get("kind") not in (6, 12):  # Method, Function
                        continue
                    start = s["selectionRange"]["start"]
                    m = self.METHOD_RE.match(s["name"])
                    name, cls = (m.group(2), m.group(1)) if m else (s["name"], None)
                    if s.get("kind") == 12 and "." in name:
                        continue
                    out.append([name, cls, p, start["line"] + 1, start["character"] + 1])
            return out
        if req["op"] == "goto":
            return [self._definition(*pos, timeout) for pos in req["positions"]]
        own = self._refs(req["path"], req["line"], req["col"], timeout)
        # gopls counts a call through an interface (`flag.Value.Type()`) as a
        # reference of every method that implements it; like the TypeScript
        # side, keep the method's own references: drop those that are also
        # references of an interface method of the project with the same name.
        via_iface = set()
        for site in self.iface_methods.get(req.get("name"), []):
            if site not in self.iface_refs:
                self.iface_refs[site] = {(p, l) for p, l, _ in self._refs(*site, timeout)}
            via_iface |= self.iface_refs[site]
        return [[p, line, col, False, (p, line) not in via_iface] for p, line, col in own]

    def _refs(self, path, line, col, timeout):
        res = self.request("textDocument/references", {
            "textDocument": {"uri": self.uri(path)},
            "position": {"line": line - 1, "character": col - 1},
            "context": {"includeDeclaration": False},
        }, timeout) or []
        out = []
        for loc in res:
            p = self.rel(loc["uri"])
            if p is not None:
                out.append((p, loc["range"]["start"]["line"] + 1, loc["range"]["start"]["character"] + 1))
        return out

    def _definition(self, path, line, col, timeout):
        """Where textDocument/definition goes in the corpus, as [path, line]
        (an error answer at one position is None; a timeout fails the call).
        "no identifier found" (a position in a comment: mux/doc.go's examples)
        is no definition, as jedi and TypeScript answer there."""
        try:
            res = self.request("textDocument/definition", {
                "textDocument": {"uri": self.uri(path)},
                "position": {"line": line - 1, "character": col - 1},
            }, timeout)
        except ResolverError as e:
            if str(e).startswith("timed out") or self.proc.poll() is not None:
                raise
            return [] if str(e) == "no identifier found" else None
        if isinstance(res, dict):
            res = [res]
        out = []
        for loc in res or []:
            uri, rng = loc.get("uri") or loc.get("targetUri"), loc.get("range") or loc.get("targetSelectionRange")
            p = self.rel(uri) if uri else None
            if p is not None and rng:
                out.append([p, rng["start"]["line"] + 1])
        return out

    def close(self):
        try:
            self.request("shutdown", None, timeout=5)
            self._send({"jsonrpc": "2.0", "method": "exit"})
            self.proc.wait(timeout=5)
        except (ResolverError, OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


def walk(root, exts):
    for dp, dns, fns in os.walk(root):
        dns[:] = sorted(d for d in dns if not d.startswith("."))
        for f in sorted(fns):
            if f.endswith(exts):
                yield os.path.relpath(os.path.join(dp, f), root).replace(os.sep, "/")


def start_resolver(lang, root, sys_path, jedi_files):
    if lang == "python":
        py = os.path.join(CACHE, "venv", "bin", "python")
        return LineWorker([py, "-c", JEDI_WORKER, root, json.dumps(sys_path), str(jedi_files)], root)
    if lang in ("ts", "js"):
        tsdir = os.path.join(CACHE, "npm", "node_modules", "typescript")
        return LineWorker(["node", "-e", TS_WORKER, tsdir, root, lang], root)
    return Gopls(root)


# ---------------------------------------------------------------------------
# Ours.


def run_ours(binary, env, root, qname):
    res = subprocess.run([binary, "refs", qname, "--json", "-n", "100000", "--root", root],
                         capture_output=True, text=True, env=env, timeout=120)
    if res.returncode != 0:
        return None, (res.stderr.strip().splitlines() or ["exit %d" % res.returncode])[-1]
    try:
        return json.loads(res.stdout).get("hits", []), None
    except json.JSONDecodeError:
        return None, "not JSON: " + res.stdout[:200]


# ---------------------------------------------------------------------------


def ratio(a, b):
    return a / b if b else None


def fmt(x):
    return "  -  " if x is None else f"{x:.3f}"


def mean(xs):
    xs = [x for x in xs if x is not None]
    return sum(xs) / len(xs) if xs else None


class Lines:
    def __init__(self, root):
        self.root, self.cache = root, {}

    def get(self, path, line):
        if path not in self.cache:
            try:
                with open(os.path.join(self.root, path), encoding="utf-8", errors="replace") as f:
                    self.cache[path] = f.read().splitlines()
            except OSError:
                self.cache[path] = []
        lines = self.cache[path]
        text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        return text if len(text) <= 100 else text[:97] + "..."

    def column(self, path, line, byte_col, utf16):
        """Our 1-based byte column as the resolver counts: code points (jedi)
        or UTF-16 units (TypeScript, gopls), 1-based."""
        if (path, None) not in self.cache:
            try:
                with open(os.path.join(self.root, path), "rb") as f:
                    self.cache[path, None] = f.read().split(b"\n")
            except OSError:
                self.cache[path, None] = []
        lines = self.cache[path, None]
        if not 0 < line <= len(lines):
            return byte_col
        prefix = lines[line - 1][:byte_col - 1].decode("utf-8", "replace")
        return 1 + (len(prefix.encode("utf-16-le")) // 2 if utf16 else len(prefix))


GOTO_BATCH = 50  # positions per goto call


def goto_confirmed(resolver, lang, lines, targets, positions, timeout):
    """The (path, line) of `positions` (our hits: path, line, byte column) where
    the resolver's own go-to-definition lands on one of `targets` (the
    qualified name's definition sites, (path, line)); and how many positions
    it failed on (error or timeout: not confirmed)."""
    confirmed, errors = set(), 0
    for i in range(0, len(positions), GOTO_BATCH):
        batch = positions[i:i + GOTO_BATCH]
        req = [[p, l, lines.column(p, l, c, utf16=lang != "python")] for p, l, c in batch]
        try:
            answers = resolver.call({"op": "goto", "positions": req}, timeout)
        except ResolverError:
            errors += len(batch)
            continue
        for (p, l, _c), defs in zip(batch, answers):
            if defs is None:
                errors += 1
            elif any((dp, dl) in targets for dp, dl in defs):
                confirmed.add((p, l))
    return confirmed, errors


def compare_lang(lang, args, env):
    corpus_dir, corpus_desc, sys_path = CORPORA[args.set][lang]
    src = os.path.join(CACHE, "corpora", corpus_dir)
    if not os.path.isdir(src):
        sys.exit(f"compare-refs: {src} is missing; run scripts/setup-refs-tools.sh first")
    root = os.path.join(args.scratch, lang if args.set == "tune" else f"{args.set}-{lang}")
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(src, root, symlinks=False)

    t0 = time.monotonic()
    res = subprocess.run([args.bin, "index", "--root", root, "--no-embed", "-q"], capture_output=True, text=True, env=env)
    if res.returncode != 0:
        sys.exit(f"compare-refs: indexing {root} failed: {res.stderr.strip()}")
    log(f"[{lang}] indexed {root} in {time.monotonic() - t0:.1f}s")

    t0 = time.monotonic()
    resolver = start_resolver(lang, root, sys_path, args.jedi_files)
    try:
        listed = resolver.call({"op": "methods"}, timeout=max(args.timeout, 300))
    except ResolverError as e:
        resolver.close()
        sys.exit(f"compare-refs: [{lang}] listing methods failed: {e}")
    defsites = {}
    by_qname = {}
    attr_defs = {}
    for name, cls, path, line, col, *attr in listed:
        defsites.setdefault(name, set()).add((path, line))
        if attr:
            attr_defs.setdefault(f"{cls}.{name}", []).append((path, line, col))
        elif cls and not (name.startswith("__") and name.endswith("__")):
            by_qname.setdefault(f"{cls}.{name}", []).append((path, line, col))
    # Python: a method or property that its class also assigns as
    # `self.name = …` is defined there too (see the docstring).
    for qname, sites in attr_defs.items():
        if qname in by_qname:
            by_qname[qname] += sites
    log(f"[{lang}] resolver listed {len(listed)} definitions, {len(by_qname)} qualified method names "
        f"in {time.monotonic() - t0:.1f}s")

    names = sorted(by_qname)
    random.Random(args.seed).shuffle(names)
    lines = Lines(root)
    results, skipped, unreferenced, tried, goto_errors = [], [], 0, 0, 0
    t0 = time.monotonic()
    for qname in names:
        if len(results) >= args.sample:
            break
        tried += 1
        bare = qname.rsplit(".", 1)[1]
        theirs_raw, err = [], None
        for path, line, col in by_qname[qname]:
            try:
                theirs_raw += resolver.call({"op": "refs", "name": bare, "path": path, "line": line, "col": col}, args.timeout)
            except ResolverError as e:
                err = str(e)
                break
        if err:
            skipped.append({"name": qname, "error": err})
            continue
        hits, our_err = run_ours(args.bin, env, root, qname)
        hits = hits or []
        ours_def = {(h["path"], h["line"]) for h in hits if h.get("is_definition")}
        excluded = defsites.get(bare, set()) | ours_def
        # Go files the resolver does not load (a build constraint such as
        # `// +build integration`): nothing of theirs can be there to judge ours by.
        excluded |= {(h["path"], h["line"]) for h in hits if lang == "go" and not go_file_built(root, h["path"])}
        theirs = {(p, l) for p, l, _c, is_def, own in theirs_raw if own and not is_def} - excluded
        if not theirs:
            unreferenced += 1
            continue
        refs = [h for h in hits if not h.get("is_definition")]
        ours_res = {(h["path"], h["line"]) for h in refs if h.get("resolution", "resolved") != "name_only"} - excluded
        ours_no = {(h["path"], h["line"]) for h in refs if h.get("resolution") == "name_only"} - excluded - ours_res
        tp, fp, fn = ours_res & theirs, ours_res - theirs, theirs - ours_res
        # the resolver's own go-to-definition at each FP of ours (every hit of
        # ours on that line): a reference its reference list missed?
        fp_pos = sorted({(h["path"], h["line"], h["column"]) for h in refs
                         if (h["path"], h["line"]) in fp and h.get("column")})
        fp_ok, goto_err = goto_confirmed(resolver, lang, lines, {(p, l) for p, l, _ in by_qname[qname]},
                                         fp_pos, args.timeout)
        goto_errors += goto_err
        results.append({
            "name": qname, "definitions": [f"{p}:{l}" for p, l, _ in by_qname[qname]],
            "theirs": len(theirs), "ours_resolved": len(ours_res), "ours_name_only": len(ours_no),
            "tp": len(tp), "fp": sorted(fp), "fn": sorted(fn), "fp_confirmed": sorted(fp_ok),
            "name_only_confirmed": len(ours_no & theirs), "theirs_only_name_only": len(theirs & ours_no),
            "tp_any": len((ours_res | ours_no) & theirs),
            "precision": ratio(len(tp), len(ours_res)), "recall": ratio(len(tp), len(theirs)),
            "precision_goto": ratio(len(tp) + len(fp_ok), len(ours_res)),
            "ours_error": our_err,
            "theirs_refs": sorted(theirs), "ours_resolved_refs": sorted(ours_res), "ours_name_only_refs": sorted(ours_no),
        })
    resolver.close()
    log(f"[{lang}] compared {len(results)} names ({tried} tried) in {time.monotonic() - t0:.1f}s")

    s = lambda k: sum(r[k] for r in results)  # noqa: E731
    ours_res_n, theirs_n, tp_n = s("ours_resolved"), s("theirs"), s("tp")
    summary = {
        "lang": lang, "corpus": corpus_desc, "qualified_names": len(by_qname), "tried": tried,
        "sample": len(results), "resolver_errors": len(skipped), "no_references": unreferenced,
        "ours_errors": sum(1 for r in results if r["ours_error"]),
        "theirs": theirs_n, "ours_resolved": ours_res_n, "tp": tp_n,
        "precision_micro": ratio(tp_n, ours_res_n), "recall_micro": ratio(tp_n, theirs_n),
        "fp": sum(len(r["fp"]) for r in results), "fp_confirmed": sum(len(r["fp_confirmed"]) for r in results),
        "goto_errors": goto_errors,
        "precision_goto": ratio(tp_n + sum(len(r["fp_confirmed"]) for r in results), ours_res_n),
        "precision_macro": mean(r["precision"] for r in results), "recall_macro": mean(r["recall"] for r in results),
        "names_without_resolved": sum(1 for r in results if not r["ours_resolved"]),
        "ours_name_only": s("ours_name_only"), "name_only_confirmed": s("name_only_confirmed"),
        "name_only_precision": ratio(s("name_only_confirmed"), s("ours_name_only")),
        "theirs_only_as_name_only": ratio(s("theirs_only_name_only"), theirs_n),
        # every candidate taken, resolved or name-only: what a bare-name match gives
        "precision_any": ratio(s("tp_any"), ours_res_n + s("ours_name_only")), "recall_any": ratio(s("tp_any"), theirs_n),
    }

    def badness(r):
        f1 = 2 * r["tp"] / (r["ours_resolved"] + r["theirs"]) if r["ours_resolved"] + r["theirs"] else 1.0
        return (f1, -(len(r["fp"]) + len(r["fn"])), r["name"])

    worst = []
    for r in sorted(results, key=badness)[:10]:
        if not r["fp"] and not r["fn"]:
            break
        worst.append({
            "name": r["name"], "precision": r["precision"], "recall": r["recall"],
            "theirs": r["theirs"], "ours_resolved": r["ours_resolved"], "fp_count": len(r["fp"]), "fn_count": len(r["fn"]),
            "fp_confirmed_count": len(r["fp_confirmed"]),
            "fp": [("FP (goto confirms) " if (p, l) in r["fp_confirmed"] else "FP ") + f"{p}:{l}: {lines.get(p, l)}"
                   for p, l in r["fp"][:3]],
            "fn": [f"{p}:{l}: {lines.get(p, l)}" for p, l in r["fn"][:3]],
            "ours_error": r["ours_error"],
        })
    for r in results:
        for k in ("fp", "fn", "fp_confirmed", "theirs_refs", "ours_resolved_refs", "ours_name_only_refs"):
            r[k] = [f"{p}:{l}" for p, l in r[k]]
    return {"summary": summary, "worst": worst, "names": results, "resolver_errors": skipped}


def print_report(reports, corpus_set, jedi_files):
    print("repo-search refs vs real resolvers: sets of (path, line), columns not compared; definition sites excluded"
          + ("" if corpus_set != "check" else f"; held-out corpora (--set {corpus_set}), never tuned on"))
    print()
    hdr = ("lang", "corpus", "names", "skip", "theirs", "ours", "TP", "P micro", "P goto", "R micro", "P macro", "R macro",
           "NO", "NO prec", "theirs only NO", "P any", "R any")
    rows = []
    for rep in reports:
        s = rep["summary"]
        rows.append((s["lang"], s["corpus"], str(s["sample"]), str(s["resolver_errors"]), str(s["theirs"]),
                     str(s["ours_resolved"]), str(s["tp"]), fmt(s["precision_micro"]), fmt(s["precision_goto"]),
                     fmt(s["recall_micro"]),
                     fmt(s["precision_macro"]), fmt(s["recall_macro"]), str(s["ours_name_only"]),
                     fmt(s["name_only_precision"]), fmt(s["theirs_only_as_name_only"]),
                     fmt(s["precision_any"]), fmt(s["recall_any"])))
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(hdr)]
    for r in [hdr] + rows:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    print()
    print("names: sampled qualified names with >=1 resolver reference; skip: resolver errors/timeouts (not sampled);")
    print("theirs/ours/TP: references (ours = resolved only); P goto: (TP + our FPs where the resolver's own")
    print("go-to-definition lands on the name's definition) / ours; P/R macro: mean over names (P over names where we")
    print("resolved any); NO: our name-only candidates; NO prec: share of them the resolver confirms;")
    print("theirs only NO: share of the resolver's references we had only as name-only; P/R any: micro, with every")
    print("candidate of ours taken, resolved and name-only alike (what a bare-name match gives).")
    if any(rep["summary"]["lang"] == "python" for rep in reports):
        print(f"jedi lists references from up to {jedi_files} files containing the name (--jedi-files; jedi's own "
              "limit is 30).")
    for rep in reports:
        s = rep["summary"]
        print()
        print(f"== {s['lang']}: {s['corpus']}: {s['sample']} names sampled from {s['qualified_names']} "
              f"({s['tried']} tried, {s['no_references']} without references, {s['resolver_errors']} resolver errors, "
              f"{s['names_without_resolved']} with no resolved reference of ours, {s['ours_errors']} errors of ours; "
              f"goto confirms {s['fp_confirmed']} of {s['fp']} FPs, {s['goto_errors']} goto errors)")
        for w in rep["worst"]:
            print(f"  {w['name']}: P {fmt(w['precision'])} R {fmt(w['recall'])}  theirs {w['theirs']} "
                  f"ours {w['ours_resolved']} FP {w['fp_count']}"
                  + (f" (goto confirms {w['fp_confirmed_count']})" if w["fp_confirmed_count"] else "")
                  + f" FN {w['fn_count']}"
                  + (f"  (ours failed: {w['ours_error']})" if w["ours_error"] else ""))
            for x in w["fp"]:
                print(f"      {x}")
            for x in w["fn"]:
                print(f"      FN {x}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=sorted(CORPORA), default="tune",
                    help="tune (default), tune2, tune3, tune4: the corpora the resolver is tuned on; check: the held-out ones, never tuned on")
    ap.add_argument("--lang", choices=["python", "ts", "js", "go", "all"], default="all",
                    help="all: every language the set has a corpus for")
    ap.add_argument("--sample", type=int, default=100)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bin", default=os.path.join(HERE, "..", "target", "release", "repo-search"))
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--jedi-files", type=int, default=100000, metavar="N",
                    help="how many files containing a name jedi parses when it lists references (jedi's own "
                         "default is 30, which cuts common names' lists short; default 100000: all)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per resolver call (default 60)")
    ap.add_argument("--scratch", metavar="DIR", default=os.path.join(CACHE, "scratch"),
                    help="where the corpora are copied and indexed (default $CACHE/scratch); "
                         "give two runs at once different ones")
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    args.scratch = os.path.abspath(args.scratch)
    if not os.access(args.bin, os.X_OK):
        sys.exit(f"compare-refs: {args.bin} is not an executable (build it, or pass --bin)")
    home = os.path.join(CACHE, "home")
    os.makedirs(home, exist_ok=True)
    env = dict(os.environ, REPO_SEARCH_HOME=home, REPO_SEARCH_OFFLINE="1")
    env.pop("CLAUDE_PROJECT_DIR", None)
    langs = [lang for lang in ("python", "ts", "js", "go") if lang in CORPORA[args.set]] if args.lang == "all" else [args.lang]
    if any(lang not in CORPORA[args.set] for lang in langs):
        sys.exit(f"compare-refs: --set {args.set} has no {args.lang} corpus (it has: {', '.join(CORPORA[args.set])})")
    reports = [compare_lang(lang, args, env) for lang in langs]
    print_report(reports, args.set, args.jedi_files)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"bin": args.bin, "set": args.set, "seed": args.seed, "sample": args.sample, "reports": reports}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
