//! Qualified references and the call graph (`refs Class.member`,
//! `callers`, `callees`; MCP `find_references`, `callers`, `callees`) on a
//! real project in several languages, through the real binary and a real
//! MCP client; edits and deletes leave no stale edge.

use serde_json::{Value, json};

use crate::common::Project;
use crate::mcp::{Era, Mcp};

const SESSIONS: &str = r#"from .adapters import HTTPAdapter


class Session:
    def send(self, request):
        return self.adapter.send(request)

    def request(self, method):
        return self.send(method)


class RetrySession(Session):
    def retry(self, request):
        return self.send(request)


class Other:
    def send(self, request):
        return request

    def go(self):
        return self.send(1)


def helper(x):
    s = Session()
    s.send(x)
    Session.send(s, x)
    unknown_thing(x).send(x)
    return x.send(len(x))
"#;

const API: &str = r#"from .sessions import Session, helper
from . import sessions


def get(url):
    with Session() as session:
        return session.request(url)


def other(o: "Other"):
    helper(1)
    sessions.helper(2)
    o.send(3)
"#;

const COLORS: &str = r#"import enum


class Color(enum.Enum):
    RED = 1
    BLUE = 2


def paint(c):
    if c == Color.RED:
        return "red"
    return c.RED
"#;

const SERVER_GO: &str = r#"package web

type Server struct{}

func NewServer() *Server { return &Server{} }

func (s *Server) Run() {
	s.Stop()
}

func (s *Server) Stop() {}

type Client struct{}

func (c *Client) Stop() {}

func (c *Client) Close() {
	c.Stop()
}

func Start() {
	srv := NewServer()
	srv.Stop()
	srv.Run()
}
"#;

const SHAPES_JAVA: &str = r#"package shapes;

public class Shape {
    public double area() { return 0; }
    public String describe() { return "area " + area(); }
}

class Square extends Shape {
    String label() { return describe(); }
}
"#;

const KIND_RS: &str = r#"pub enum Kind {
    Alpha,
    Beta,
}

pub struct Parser;

impl Parser {
    pub fn parse(&self) -> Kind {
        self.step();
        Kind::Alpha
    }

    fn step(&self) {}
}

fn other() -> Kind {
    let p = Parser;
    p.step();
    Kind::Beta
}
"#;

fn project() -> Project {
    let p = Project::new();
    p.write("pkg/__init__.py", "")
        .write(
            "pkg/adapters.py",
            "class HTTPAdapter:\n    def send(self, r):\n        return r\n",
        )
        .write("pkg/sessions.py", SESSIONS)
        .write("pkg/api.py", API)
        .write("pkg/colors.py", COLORS)
        .write("web/server.go", SERVER_GO)
        .write("shapes/Shape.java", SHAPES_JAVA)
        .write("src/kind.rs", KIND_RS);
    p.run(&["index", "--offline"]).ok();
    p
}

/// `(path:line, resolution)` of the reference hits (definitions left out).
fn refs(v: &Value) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = v["hits"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter(|h| h["is_definition"] != true && h["kind"] != "definition")
        .map(|h| {
            (
                format!("{}:{}", h["path"].as_str().unwrap_or(""), h["line"]),
                h["resolution"].as_str().unwrap_or("resolved").to_string(),
            )
        })
        .collect();
    out.sort();
    out
}

/// A graph command's edges as `path:line resolution`.
fn edge_list(p: &Project, args: &[&str]) -> Vec<String> {
    let v = p.json(args);
    v["edges"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|e| {
            format!(
                "{}:{} {}",
                e["path"].as_str().unwrap_or(""),
                e["line"],
                e["resolution"].as_str().unwrap_or("")
            )
        })
        .collect()
}

/// A `callees` answer's edges as `to FIELD` (`resolution`, `defined_at`).
fn callee_list(p: &Project, name: &str, field: &str) -> Vec<String> {
    let v = p.json(&["callees", name]);
    v["edges"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|e| {
            format!(
                "{} {}",
                e["to"].as_str().unwrap_or(""),
                e[field].as_str().unwrap_or("")
            )
        })
        .collect()
}

fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = items
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    v.sort();
    v
}

#[test]
fn qualified_references_resolve_and_keep_name_only_apart() {
    let p = project();
    let v = p.json(&["refs", "Session.send"]);
    assert_eq!(v["definitions"], 1, "{v}");
    assert_eq!(
        refs(&v),
        pairs(&[
            // self.send in the class and in a subclass that does not override.
            ("pkg/sessions.py:9", "resolved"),
            ("pkg/sessions.py:14", "resolved"),
            // s = Session(); s.send(…) and the class-qualified call.
            ("pkg/sessions.py:27", "resolved"),
            ("pkg/sessions.py:28", "resolved"),
            // Receivers nothing binds: candidates, marked.
            ("pkg/sessions.py:6", "name_only"),
            ("pkg/sessions.py:29", "name_only"),
            ("pkg/sessions.py:30", "name_only"),
        ]),
        "{v}"
    );
    // Other.send's own self call and `o: "Other"` are Other's, not
    // Session's; Session's self calls (also in its subclass) are not Other's.
    let v = p.json(&["refs", "Other.send"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("pkg/sessions.py:22", "resolved"),
            ("pkg/api.py:13", "resolved"),
            ("pkg/sessions.py:6", "name_only"),
            ("pkg/sessions.py:29", "name_only"),
            ("pkg/sessions.py:30", "name_only"),
        ]),
        "{v}"
    );

    // `with Session() as session: session.request(…)`.
    let v = p.json(&["refs", "Session.request"]);
    assert_eq!(refs(&v), pairs(&[("pkg/api.py:7", "resolved")]), "{v}");

    // A module-level function: same file, `from .sessions import helper`,
    // and `sessions.helper` through the imported module (the import line
    // itself is left out beside the file's other uses).
    let v = p.json(&["refs", "sessions.helper"]);
    assert_eq!(
        refs(&v),
        pairs(&[("pkg/api.py:11", "resolved"), ("pkg/api.py:12", "resolved")]),
        "{v}"
    );

    // `--type` filters.
    let v = p.json(&["refs", "Session.send", "--type", "definitions"]);
    assert_eq!(v["hits"].as_array().map(Vec::len), Some(1), "{v}");
    let v = p.json(&["refs", "Session.send", "--type", "references"]);
    assert!(
        v["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["is_definition"] == false),
        "{v}"
    );
}

#[test]
fn a_bare_member_name_leaves_out_locals_parameters_and_keyword_arguments() {
    // Every use of a bare name is wanted, but in Python a member is only
    // reached through a receiver: the parameter, the local and the keyword
    // argument named like the method are none of its uses.
    let p = Project::new();
    p.write(
        "pag.py",
        "class Page:\n    def end_index(self):\n        return 1\n\n\ndef show(p, end_index=None):\n    end_index = p.end_index()\n    other(end_index=end_index)\n    return p.end_index\n",
    );
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "end_index"]);
    assert_eq!(
        refs(&v),
        pairs(&[("pag.py:7", "name_only"), ("pag.py:9", "name_only")]),
        "{v}"
    );
}

#[test]
fn enum_variants_constants_and_other_languages_get_references() {
    let p = project();
    let v = p.json(&["refs", "Color.RED"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("pkg/colors.py:10", "resolved"),
            ("pkg/colors.py:12", "name_only")
        ]),
        "{v}"
    );
    let v = p.json(&["refs", "Kind::Alpha"]);
    assert_eq!(refs(&v), pairs(&[("src/kind.rs:11", "resolved")]), "{v}");

    // Go: the receiver, a variable from a constructor; Client.Stop apart.
    let v = p.json(&["refs", "Server.Stop"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("web/server.go:8", "resolved"),
            ("web/server.go:23", "resolved")
        ]),
        "{v}"
    );
    let v = p.json(&["refs", "Client.Stop"]);
    assert_eq!(refs(&v), pairs(&[("web/server.go:18", "resolved")]), "{v}");

    // Java: a bare call is `this.area()`; inherited by Square.
    let v = p.json(&["refs", "Shape.describe"]);
    assert_eq!(
        refs(&v),
        pairs(&[("shapes/Shape.java:9", "resolved")]),
        "{v}"
    );
    let v = p.json(&["refs", "Shape.area"]);
    assert_eq!(
        refs(&v),
        pairs(&[("shapes/Shape.java:5", "resolved")]),
        "{v}"
    );

    // Rust: `self.step()` and `let p = Parser; p.step()`.
    let v = p.json(&["refs", "Parser::step"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("src/kind.rs:10", "resolved"),
            ("src/kind.rs:19", "resolved")
        ]),
        "{v}"
    );
}

#[test]
fn callers_and_callees_with_depth() {
    let p = project();
    let v = p.json(&["callers", "Server.Stop", "--depth", "2"]);
    let edges: Vec<(u64, String, String)> = v["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["depth"].as_u64().unwrap(),
                e["from"].as_str().unwrap().to_string(),
                format!("{}:{}", e["path"].as_str().unwrap(), e["line"]),
            )
        })
        .collect();
    assert_eq!(
        edges,
        vec![
            (1, "Server.Run".into(), "web/server.go:8".into()),
            (1, "Start".into(), "web/server.go:23".into()),
            // Run's own caller, one level up.
            (2, "Start".into(), "web/server.go:24".into()),
        ],
        "{v}"
    );
    // Pages: the next edges after `--offset`, `total` still counting all.
    let v = p.json(&[
        "callers",
        "Server.Stop",
        "--depth",
        "2",
        "-n",
        "1",
        "--offset",
        "1",
    ]);
    assert_eq!(v["total"], 3, "{v}");
    assert_eq!(v["truncated"], true, "{v}");
    assert_eq!(v["edges"][0]["path"], "web/server.go", "{v}");
    assert_eq!(v["edges"][0]["line"], 23, "{v}");
    assert_eq!(v["edges"].as_array().map(Vec::len), Some(1), "{v}");
    let v = p.json(&["callers", "Server.Stop", "--depth", "2", "--offset", "2"]);
    assert_eq!(v["truncated"], false, "{v}");
    assert_eq!(v["edges"][0]["line"], 24, "{v}");

    let v = p.json(&["callees", "Session.request"]);
    let e = &v["edges"][0];
    assert_eq!(e["to"], "Session.send", "{v}");
    assert_eq!(e["resolution"], "resolved", "{v}");
    assert_eq!(e["defined_at"], "pkg/sessions.py:5", "{v}");

    let v = p.json(&["callees", "helper"]);
    let tos: Vec<(&str, &str)> = v["edges"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["to"].as_str().unwrap(), e["resolution"].as_str().unwrap()))
        .collect();
    assert!(tos.contains(&("Session", "resolved")), "{v}");
    assert!(tos.contains(&("Session.send", "resolved")), "{v}");
    assert!(tos.contains(&("unknown_thing", "name_only")), "{v}");
    // A built-in the project does not define is left out.
    assert!(!tos.iter().any(|(to, _)| *to == "len"), "{v}");

    // Text: a direct edge leaves out the asked definition, which the
    // header names; a deeper edge says both ends.
    let out = p
        .run(&["callers", "Server.Stop", "--depth", "2"])
        .ok()
        .stdout();
    assert!(out.contains("web/server.go:8  Server.Run  "), "{out}");
    assert!(
        out.contains("  web/server.go:24  Start -> Server.Run"),
        "{out}"
    );
    assert!(!out.contains("-> Server.Stop"), "{out}");
    let out = p.run(&["callees", "Session.request"]).ok().stdout();
    assert!(
        out.contains("  -> Session.send  -> pkg/sessions.py:5"),
        "{out}"
    );
    assert!(!out.contains("Session.request ->"), "{out}");

    // Unknown names: nothing found (exit 1, as `symbol` and a bare `refs`
    // answer it), the reason and a hint on stderr, the empty answer in
    // JSON; MCP keeps its NOT_FOUND error.
    for args in [
        &["callers", "Session.nope"][..],
        &["callees", "nope_at_all"],
        &["refs", "nope_at_all"],
        &["refs", "Nope.send"],
    ] {
        let r = p.run(args);
        assert_eq!(r.code(), 1, "{args:?}: {r}");
        assert!(r.stdout().is_empty(), "{args:?}: {r}");
        assert!(r.stderr().contains("hint:"), "{args:?}: {r}");
    }
    let r = p.run(&["refs", "Nope.send"]);
    assert!(
        r.stderr().contains("`send` is defined as:"),
        "{}",
        r.stderr()
    );
    let v = p.json(&["callers", "Session.nope"]);
    assert_eq!(v["edges"].as_array().map(Vec::len), Some(0), "{v}");
}

/// A function named without a call is used all the same: put in a list or
/// a map of handlers, assigned, called through `.call` / `.bind`, or
/// imported by a file that uses it no other way (a re-export); each used
/// to come back with its definition alone. An import beside the file's
/// other uses only repeats the file.
#[test]
fn uses_of_a_function_without_a_call_are_references() {
    let p = Project::new();
    p.write("app/config.py", "def load_config(path):\n    return path\n");
    p.write("app/__init__.py", "from app.config import load_config\n");
    p.write(
        "app/hooks.py",
        "from app.config import load_config\n\ndef on_event(x):\n    return x\n\nHANDLERS = [on_event]\nregister = dict(cb=on_event)\nloader = load_config\n# on_event in a comment is no use\n",
    );
    p.write(
        "web/mw.go",
        "package web\n\nfunc parseBody(c int) int { return c }\n\nvar chain = []func(int) int{\n\tparseBody,\n}\n",
    );
    p.write(
        "lib/dispatch.js",
        "export default function dispatchRequest(config) {\n  return config;\n}\n",
    );
    p.write(
        "lib/Axios.js",
        "import dispatchRequest from './dispatch.js';\n\nexport function run(c) {\n  const chain = [dispatchRequest.bind(this)];\n  return dispatchRequest.call(this, c);\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    let cases: [(&str, &[(&str, &str)]); 4] = [
        (
            "on_event",
            &[
                ("app/hooks.py:6", "resolved"),
                ("app/hooks.py:7", "resolved"),
            ],
        ),
        (
            "load_config",
            &[
                ("app/__init__.py:1", "resolved"),
                ("app/hooks.py:8", "resolved"),
            ],
        ),
        ("parseBody", &[("web/mw.go:6", "resolved")]),
        (
            "dispatchRequest",
            &[
                ("lib/Axios.js:4", "resolved"),
                ("lib/Axios.js:5", "resolved"),
            ],
        ),
    ];
    for (name, want) in cases {
        let v = p.json(&["refs", name]);
        assert_eq!(refs(&v), pairs(want), "{name}: {v}");
    }
}

#[test]
fn an_erlang_remote_call_resolves_to_its_module_not_a_local_namesake() {
    let p = Project::new();
    p.write(
        "src/a.erl",
        "-module(a).\n-export([start/0, f/1]).\n\nf(X) -> X + 1.\n\nstart() ->\n    b:f(1),\n    f(2),\n    lists:map(fun b:f/1, [1]).\n",
    );
    p.write(
        "src/b.erl",
        "-module(b).\n-export([f/1]).\n\nf(X) -> X * 2.\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(edge_list(&p, &["callers", "a.f"]), ["src/a.erl:8 resolved"]);
    assert_eq!(
        edge_list(&p, &["callers", "b.f"]),
        ["src/a.erl:7 resolved", "src/a.erl:9 resolved"]
    );
}

/// An OCaml call through a module (`Pool.take`) resolves to the file that
/// module is (`pool.ml`), not to another module's namesake.
#[test]
fn an_ocaml_call_through_a_module_resolves_to_its_file() {
    let p = Project::new();
    p.write(
        "src/pool.ml",
        "let take p = p + 1\n\nlet drain p = take p\n",
    );
    p.write("src/queue.ml", "let take q = q - 1\n");
    p.write(
        "src/server.ml",
        "let serve p q = Pool.take p + Queue.take q\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "Pool.take"]),
        ["src/pool.ml:3 resolved", "src/server.ml:1 resolved"]
    );
    assert_eq!(
        edge_list(&p, &["callers", "Queue.take"]),
        ["src/server.ml:1 resolved"]
    );
}

/// An R name holds dots (`status_code.response`, an S3 method): it is one
/// name to `symbol`, `refs` and `callers`, not `response` inside
/// `status_code`; and an R package's functions are global to its files.
#[test]
fn an_r_name_with_dots_is_one_name() {
    let p = Project::new();
    p.write(
        "R/status.r",
        "status_code <- function(x) UseMethod(\"status_code\")\nstatus_code.response <- function(x) x$status_code\n",
    );
    p.write(
        "R/response.r",
        "response <- function(...) structure(list(...), class = \"response\")\n",
    );
    p.write("R/use.r", "check <- function(r) status_code.response(r)\n");
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["symbol", "status_code.response"]);
    assert_eq!(v["hits"][0]["path"], "R/status.r", "{v}");
    assert_eq!(v["hits"][0]["name"], "status_code.response", "{v}");
    assert_eq!(
        edge_list(&p, &["callers", "status_code.response"]),
        ["R/use.r:1 resolved"]
    );
    let v = p.json(&["refs", "status_code.response"]);
    assert_eq!(refs(&v), pairs(&[("R/use.r:1", "resolved")]), "{v}");
}

/// A C function declared in a header and defined in one `.c` file is one
/// function: calls from other files resolve to it, and another file's
/// `static` namesake is out of their sight.
#[test]
fn c_calls_resolve_through_header_prototypes_and_past_static_namesakes() {
    let p = Project::new();
    p.write("src/dict.h", "int dictAdd(int d);\nint dictFind(int d);\n");
    p.write(
        "src/dict.c",
        "#include \"dict.h\"\n\nint dictAdd(int d) {\n    return d;\n}\n",
    );
    p.write(
        "src/cli.c",
        "#include \"dict.h\"\n\nint run(void) {\n    dictFind(1);\n    return dictAdd(1);\n}\n",
    );
    p.write(
        "deps/h/dict.c",
        "static int dictAdd(int d) {\n    return d;\n}\n\nint use(void) {\n    return dictAdd(2);\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "dictAdd"]),
        ["deps/h/dict.c:6 resolved", "src/cli.c:5 resolved"]
    );
    // Declared only: the declaration is what the call names.
    assert_eq!(
        edge_list(&p, &["callers", "dictFind"]),
        ["src/cli.c:4 resolved"]
    );
    let to = callee_list(&p, "run", "resolution");
    assert!(to.contains(&"dictAdd resolved".to_string()), "{to:?}");
    // ...and is defined at its body, not at the header's prototype.
    let at = callee_list(&p, "run", "defined_at");
    assert!(at.contains(&"dictAdd src/dict.c:3".to_string()), "{at:?}");
    // A unit test's `#define` mock in a `.c` file is that file's own: the
    // rest of the project still calls the real function (chrony's
    // `test/unit/ntp_core.c` made every call of `LCL_ReadCookedTime` name
    // only).
    p.write(
        "test/unit/cli.c",
        "#define dictAdd(d) (d)
#include \"../../src/cli.c\"

int t(void) {
    return dictAdd(3);
}
",
    );
    p.run(&["index", "--offline"]).ok();
    let edges = edge_list(&p, &["callers", "dictAdd"]);
    assert!(
        edges.contains(&"src/cli.c:5 resolved".to_string()),
        "{edges:?}"
    );
    assert!(
        edges.contains(&"test/unit/cli.c:5 resolved".to_string()),
        "{edges:?}"
    );
}

/// A call on a new object (`new Reader().decode(x)`) is a call of that
/// class's method: resolved to it, and no candidate of another class's
/// method of the same name (zxing's `new MultiFormatReader().decode(…)`
/// was listed under every `decode`).
#[test]
fn a_call_on_a_new_object_reaches_its_class() {
    let p = Project::new();
    p.write(
        "src/a/Reader.java",
        "package a;\n\npublic class Reader {\n    public String decode(String s) {\n        return s;\n    }\n}\n",
    );
    p.write(
        "src/b/Other.java",
        "package b;\n\npublic class Other {\n    public String decode(String s) {\n        return s;\n    }\n}\n",
    );
    p.write(
        "src/b/Use.java",
        "package b;\n\nimport a.Reader;\n\npublic class Use {\n    public String run(String x) {\n        String y = new Reader().decode(x);\n        return new Other().decode(y);\n    }\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "Reader.decode"]),
        ["src/b/Use.java:7 resolved"]
    );
    assert_eq!(
        edge_list(&p, &["callers", "Other.decode"]),
        ["src/b/Use.java:8 resolved"]
    );
}

/// A call resolves only to a definition its language can reach: a C++
/// `builder.Finish()` on a local `Builder` is not a call of the Go
/// method `Builder.Finish` (FlatBuffers keeps both side by side).
#[test]
fn a_call_never_resolves_to_another_languages_definition() {
    let p = Project::new();
    p.write(
        "go/builder.go",
        "package fb\n\ntype Builder struct{}\n\nfunc (b *Builder) Finish() {}\n\nfunc Use() {\n\tb := &Builder{}\n\tb.Finish()\n}\n",
    );
    p.write(
        "src/save.cpp",
        "void Save() {\n  flexbuffers::Builder builder;\n  builder.Finish();\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "Builder.Finish"]),
        ["go/builder.go:9 resolved"]
    );
    assert_eq!(callee_list(&p, "Save", "resolution"), ["Finish name_only"]);
}

/// A PHP property named like a method beside it is no call of it: its
/// reads and writes (`$this->flag = true`) are not callers, and the call
/// `$this->flag()` reaches the method, not the property (PHPUnit's
/// `TestCase::doesNotPerformAssertions`).
#[test]
fn a_php_property_named_like_a_method_is_not_called() {
    let p = Project::new();
    p.write(
        "src/TestCase.php",
        "<?php\nnamespace PHPUnit\\Framework;\n\nclass TestCase\n{\n    private $flag = false;\n\n    public function expectNothing(): void\n    {\n        $this->flag = true;\n    }\n\n    public function flag(): bool\n    {\n        return $this->flag;\n    }\n\n    public function run(): void\n    {\n        if ($this->flag()) {\n            return;\n        }\n    }\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "TestCase::flag"]),
        ["src/TestCase.php:20 resolved"]
    );
    assert_eq!(
        callee_list(&p, "TestCase::run", "defined_at"),
        ["TestCase::flag src/TestCase.php:13"]
    );
    // Without a declared property, a member read is no call either.
    p.write(
        "src/Other.php",
        "<?php\n\nclass Other\n{\n    public function go(): void\n    {\n        $this->ready = true;\n        $this->ready();\n    }\n\n    public function ready(): void\n    {\n    }\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "Other::ready"]),
        ["src/Other.php:8 resolved"]
    );
}

/// Of the definitions a call can reach, one in its own file comes first:
/// Kotlin's `Iterable<T>.joinToString` calls the `joinTo` beside it, not
/// `Array<T>.joinTo` of the same package in another file.
#[test]
fn a_call_reaches_the_definition_in_its_own_file_first() {
    let p = Project::new();
    p.write(
        "src/_Arrays.kt",
        "package kotlin.collections\n\nfun <T> Array<T>.joinTo(buffer: StringBuilder): StringBuilder {\n    return buffer\n}\n",
    );
    p.write(
        "src/_Collections.kt",
        "package kotlin.collections\n\nfun <T> Iterable<T>.joinTo(buffer: StringBuilder): StringBuilder {\n    return buffer\n}\n\nfun <T> Iterable<T>.joinToString(): String {\n    return joinTo(StringBuilder()).toString()\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["callees", "joinToString"]);
    let at: Vec<&str> = v["edges"]
        .as_array()
        .map(|e| e.iter().filter_map(|e| e["defined_at"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(at, ["src/_Collections.kt:3"], "{v}");
}

/// Two calls of one callee on one line are one place to read (QA: `callees
/// BytesMut::reserve_inner` listed `BytesMut::len` twice at line 635, the
/// same `path:line` without columns); calls on other lines stay apart.
#[test]
fn two_calls_of_one_callee_on_one_line_are_one_edge() {
    let p = Project::new();
    p.write(
        "app/span.py",
        "def size(x):\n    return len(x)\n\n\ndef gap(a, b):\n    d = size(a) - size(b)\n    return d + size(a)\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callees", "gap"]),
        ["app/span.py:6 resolved", "app/span.py:7 resolved"]
    );
    assert_eq!(
        edge_list(&p, &["callers", "size"]),
        ["app/span.py:6 resolved", "app/span.py:7 resolved"]
    );
}

/// A package shipping its build beside its source (axios's `dist/`, a
/// React Native library's `lib/commonjs/`): the build's copies of a
/// definition and their uses are left out of `symbol`, `refs` and
/// `callers` and counted, when the source defines the name; `--exact`
/// lists the copies; a name only the build defines keeps them.
#[test]
fn a_builds_copies_are_left_out_when_the_source_defines_the_name() {
    let p = Project::new();
    p.write(
        "lib/merge.js",
        "export default function mergeConfig(a, b) {\n  return Object.assign({}, a, b);\n}\n",
    )
    .write(
        "lib/axios.js",
        "import mergeConfig from './merge.js';\n\nexport function create(c) {\n  return mergeConfig({}, c);\n}\n",
    )
    .write(
        "dist/axios.js",
        "function mergeConfig(a, b) {\n  return Object.assign({}, a, b);\n}\n\nfunction create(c) {\n  return mergeConfig({}, c);\n}\n\nfunction onlyBuilt() {\n  return 1;\n}\n",
    )
    .write(
        "lib/commonjs/merge.js",
        "function mergeConfig(a, b) {\n  return Object.assign({}, a, b);\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["symbol", "mergeConfig"]);
    let paths: Vec<&str> = v["hits"]
        .as_array()
        .map(|h| h.iter().filter_map(|h| h["path"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(paths, ["lib/merge.js"], "{v}");
    assert_eq!(v["build_output_left_out"]["definitions"], 2, "{v}");
    let r = p.run(&["symbol", "mergeConfig"]).ok();
    assert!(
        r.stderr()
            .contains("note: 2 copies in build output left out: --exact lists them"),
        "{r}"
    );
    assert_eq!(p.json(&["symbol", "mergeConfig", "--exact"])["total"], 3);
    assert_eq!(
        edge_list(&p, &["callers", "mergeConfig"]),
        ["lib/axios.js:4 resolved"]
    );
    let v = p.json(&["refs", "mergeConfig"]);
    assert_eq!(v["build_output_left_out"]["definitions"], 2, "{v}");
    assert!(
        !v.to_string().contains("dist/axios.js"),
        "no use in the build: {v}"
    );
    // A name only the build defines keeps its copies.
    assert_eq!(p.json(&["symbol", "onlyBuilt"])["total"], 1);
    assert_eq!(p.json(&["refs", "onlyBuilt"])["definitions"], 1);
}

/// A babel build in `lib/` beside its TypeScript source in `src/` (the
/// layout of react-native-webview's package, whose `lib/` no directory
/// name tells for a build) is the source's copy: the test's calls are
/// the source's, and `symbol` leaves the copy out and counts it.
#[test]
fn a_script_beside_its_source_under_src_is_a_builds_copy() {
    let p = Project::new();
    p.write(
        "src/Shared.tsx",
        "export function createHandler(origin: string) {\n  return origin.length;\n}\n",
    )
    .write(
        "lib/Shared.js",
        "\"use strict\";Object.defineProperty(exports,\"__esModule\",{value:true});exports.createHandler=createHandler;function createHandler(origin){return origin.length;}var h=createHandler(\"a\");",
    )
    .write(
        "src/__tests__/Shared-test.js",
        "import { createHandler } from '../Shared';\n\ntest('length', () => {\n  expect(createHandler('ab')).toBe(2);\n});\n",
    );
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["symbol", "createHandler"]);
    assert_eq!(v["total"], 1, "{v}");
    assert_eq!(v["hits"][0]["path"], "src/Shared.tsx", "{v}");
    assert_eq!(v["build_output_left_out"]["definitions"], 1, "{v}");
    assert_eq!(
        edge_list(&p, &["callers", "createHandler"]),
        ["src/__tests__/Shared-test.js:4 resolved"]
    );
}

/// An override is called through the method it replaces: the base's
/// `self.write(…)` and a call on a base-typed value are `via_base` callers
/// of the override (QA: gesture-handler's `PanGestureHandler.onHandle`
/// had "0 edges"); the override's own `super().write(…)` is not, and the
/// base method's callers stay resolved.
#[test]
fn an_override_is_called_through_the_method_it_replaces() {
    let p = Project::new();
    p.write(
        "app/handlers.py",
        "class Handler:\n    def handle(self, record):\n        return self.write(record)\n\n    def write(self, record):\n        raise NotImplementedError\n\n\nclass StreamHandler(Handler):\n    def write(self, record):\n        return super().write(record)\n\n\ndef run(h: Handler):\n    return h.write(1)\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "StreamHandler.write"]),
        ["app/handlers.py:3 via_base", "app/handlers.py:15 via_base"]
    );
    let v = p.json(&["callers", "StreamHandler.write"]);
    assert_eq!(v["via_base"], 2, "{v}");
    assert_eq!(v["edges"][0]["to"], "Handler.write", "{v}");
    let out = p.run(&["callers", "StreamHandler.write"]).ok();
    assert!(
        out.stdout().contains("Handler.handle  (via Handler.write)"),
        "{out}"
    );
    assert!(
        out.stderr()
            .contains("2 edge(s): 0 resolved, 2 via a base method, 0 name-only"),
        "{out}"
    );
    assert_eq!(
        edge_list(&p, &["callers", "Handler.write"]),
        [
            "app/handlers.py:3 resolved",
            "app/handlers.py:11 resolved",
            "app/handlers.py:15 resolved"
        ]
    );
    let c = p.json(&["context", "app/handlers.py:11"]);
    assert_eq!(c["graph"]["callers_total"], 2, "{c}");
}

/// A literal's method is the language's, and an imported module's
/// function is the module's, even where a build's bundle declares a
/// variable of the module's name: none is a name-only caller of a
/// project class's method of that name (QA: axios's `callers
/// InterceptorManager.forEach` listed 213 such lines).
#[test]
fn literals_and_imported_modules_are_no_callers_of_a_method() {
    let p = Project::new();
    p.write(
        "lib/utils.js",
        "function forEach(obj, fn) {\n  return fn(obj);\n}\n\nexport default {forEach};\n",
    )
    .write(
        "lib/core/InterceptorManager.js",
        "import utils from './../utils.js';\n\nclass InterceptorManager {\n  forEach(fn) {\n    utils.forEach(this.handlers, fn);\n  }\n}\n\nexport default InterceptorManager;\n",
    )
    .write(
        "lib/a.js",
        "import utils from './utils.js';\n\nexport function run(x, m) {\n  utils.forEach(x, (v) => v);\n  ['a', 'b'].forEach((v) => v);\n  'abc'.forEach(1);\n  m.forEach(x);\n}\n",
    )
    .write(
        "dist/axios.js",
        "var utils = {\n  forEach: function (o, f) { return f(o); }\n};\n",
    );
    p.run(&["index", "--offline"]).ok();
    // `m.forEach(x)` on an untyped value is an everyday collection method.
    assert!(
        edge_list(&p, &["callers", "InterceptorManager.forEach"]).is_empty(),
        "{:?}",
        edge_list(&p, &["callers", "InterceptorManager.forEach"])
    );
    assert_eq!(
        edge_list(&p, &["callers", "forEach"]),
        [
            "lib/a.js:4 resolved",
            "lib/core/InterceptorManager.js:5 resolved",
            "lib/a.js:5 name_only",
            "lib/a.js:6 name_only",
            "lib/a.js:7 name_only"
        ],
        "a bare name asks for every use of it"
    );
}

/// A Go struct's field named like its package (`renderer
/// renderer.Renderer`, an interface) is typed by its declaration: the
/// call reaches the interface's method, not the unexported struct spelled
/// like the field (QA: goldmark's `callers renderer.Renderer.Render` was
/// empty).
#[test]
fn a_go_field_named_like_its_package_is_typed_by_its_declaration() {
    let p = Project::new();
    p.write("go.mod", "module example.com/md\n\ngo 1.20\n")
        .write(
            "renderer/renderer.go",
            "package renderer\n\nimport \"io\"\n\ntype Renderer interface {\n\tRender(w io.Writer, source []byte) error\n}\n\ntype renderer struct {\n\tn int\n}\n\nfunc (r *renderer) Render(w io.Writer, source []byte) error {\n\treturn nil\n}\n",
        )
        .write(
            "markdown.go",
            "package md\n\nimport (\n\t\"io\"\n\n\t\"example.com/md/renderer\"\n)\n\ntype markdown struct {\n\trenderer renderer.Renderer\n}\n\nfunc (m *markdown) Convert(source []byte, writer io.Writer) error {\n\treturn m.renderer.Render(writer, source)\n}\n",
        );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "renderer.Renderer.Render"]),
        ["markdown.go:14 resolved"]
    );
    assert_eq!(
        callee_list(&p, "markdown.Convert", "defined_at"),
        ["Renderer.Render renderer/renderer.go:6"]
    );
}

/// Go has no overloads or default arguments: a call whose count of
/// arguments the method cannot take is not its caller, even by name
/// (goldmark's `callers codeBlockParser.Close` listed `defer f.Close()`
/// and `resp.Body.Close()` for `Close(node, reader, pc)`); a variadic
/// method takes any count past its fixed parameters, and a lone call as
/// the argument (`f(g())`) may pass several values.
#[test]
fn a_go_call_with_a_count_of_arguments_the_method_cannot_take_is_no_caller() {
    let p = Project::new();
    p.write("go.mod", "module example.com/md\n\ngo 1.20\n")
        .write(
            "parser/block.go",
            "package parser\n\ntype blockParser struct{}\n\nfunc (b *blockParser) Close(node int, reader string, pc int) {\n}\n\nfunc (b *blockParser) Open(opts ...string) {\n}\n",
        )
        .write(
            "main.go",
            "package md\n\nimport \"os\"\n\nfunc pair() (int, string, int) {\n\treturn 1, \"\", 2\n}\n\nfunc run(x interface{ Close(int, string, int); Open(...string) }) {\n\tf, _ := os.Open(\"a\")\n\tdefer f.Close()\n\tx.Close(1, \"r\", 2)\n\tx.Close(pair())\n\tx.Open()\n\tx.Open(\"a\", \"b\")\n}\n",
        );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "blockParser.Close"]),
        ["main.go:12 name_only", "main.go:13 name_only"]
    );
    assert_eq!(
        edge_list(&p, &["callers", "blockParser.Open"]),
        ["main.go:14 name_only", "main.go:15 name_only"]
    );
}

/// A docstring's line is no import, nor is a keyword argument named
/// `require…` or a one-line string (QA round 12, marshmallow: Field's
/// "from ``self.error_messages``." made `self` an imported module, so the
/// four `self.inner.deserialize(…)`-like calls were no callers of
/// `Field.deserialize`, not even name-only).
#[test]
fn a_docstring_line_starting_with_from_imports_nothing() {
    let p = Project::new();
    p.write(
        "pkg/fields.py",
        "from pkg import utils\n\n\nclass Field:\n    def fail(self, key):\n        \"\"\"Raise an error with a message\n        from ``self.error_messages``.\n        \"\"\"\n        raise ValueError(key)\n\n    def deserialize(self, value):\n        return value\n\n\nclass List(Field):\n    def __init__(self, inner):\n        self.inner = utils.resolve(inner, require_tld=self.strict)\n        \"self is not a module\"\n\n    def load(self, value):\n        return [self.inner.deserialize(each) for each in value]\n",
    )
    .write("pkg/utils.py", "def resolve(inner, require_tld=False):\n    return inner\n");
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "Field.deserialize"]),
        ["pkg/fields.py:21 name_only"]
    );
}

/// Go's interfaces are satisfied, not named: a call through an interface
/// whose methods a struct has is a `via_base` caller of the struct's method
/// (QA round 12, chi: `rctx.Routes.Match(…)` was no caller of `Mux.Match`,
/// the only implementation); a struct lacking one of the interface's
/// methods is not reached so.
#[test]
fn a_go_call_through_an_interface_reaches_the_structs_that_satisfy_it() {
    let p = Project::new();
    p.write("go.mod", "module example.com/rt\n\ngo 1.20\n")
        .write(
            "chi.go",
            "package rt\n\ntype Routes interface {\n\tRoutes() []string\n\tMatch(method, path string) bool\n}\n",
        )
        .write(
            "mux.go",
            "package rt\n\ntype Mux struct{ routes []string }\n\nfunc (mx *Mux) Routes() []string {\n\treturn mx.routes\n}\n\nfunc (mx *Mux) Match(method, path string) bool {\n\treturn len(mx.routes) > 0\n}\n\ntype Partial struct{}\n\nfunc (p *Partial) Match(method, path string) bool {\n\treturn false\n}\n",
        )
        .write(
            "head.go",
            "package rt\n\nfunc GetHead(r Routes) bool {\n\treturn r.Match(\"HEAD\", \"/\")\n}\n",
        );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "Mux.Match"]),
        ["head.go:4 via_base"]
    );
    let v = p.json(&["callers", "Mux.Match"]);
    assert_eq!(v["edges"][0]["to"], "Routes.Match", "{v}");
    assert_eq!(
        edge_list(&p, &["callers", "Partial.Match"]),
        Vec::<String>::new()
    );
}

/// A function declared inside another is seen only there (QA round 12,
/// fastify): a bare call outside it is not its caller (six local `function
/// next` closures in `hooks.js` had each listed all eleven `next()`
/// calls), and no module qualifier reaches it (`reply.send(…)` had
/// resolved to the closure `send` inside `sendTrailer` in `reply.js`,
/// and `symbol reply.send` had listed it instead of `Reply.send`).
/// Callers list live code before tests.
#[test]
fn a_local_function_is_called_only_from_its_scope() {
    let p = Project::new();
    p.write(
        "lib/reply.js",
        "function Reply () {}\n\nReply.prototype.send = function (payload) {\n  return payload\n}\n\nfunction sendTrailer (reply) {\n  function send () {\n    return 2\n  }\n  send()\n}\n\nmodule.exports = { Reply, sendTrailer }\n",
    )
    .write(
        "lib/hooks.js",
        "function runA (hooks) {\n  function next () {\n    return hooks.shift()\n  }\n  next()\n}\n\nfunction runB (hooks) {\n  function next () {\n    return hooks.pop()\n  }\n  next()\n  next()\n}\n\nmodule.exports = { runA, runB }\n",
    )
    .write("test/reply.test.js", "function check (reply) {\n  reply.send(2)\n}\n")
    .write("lib/handle.js", "function handle (reply) {\n  reply.send(1)\n}\n\nmodule.exports = handle\n")
    .write(
        "lib/four-oh-four.js",
        "function fourOhFour () {\n  function setContext (ctx) {\n    return ctx\n  }\n  return { setContext }\n}\n\nmodule.exports = fourOhFour\n",
    )
    .write(
        "lib/route.js",
        "const build = require('./four-oh-four')\n\nfunction route (ctx) {\n  const fourOhFour = build()\n  fourOhFour.setContext(ctx)\n}\n\nmodule.exports = route\n",
    );
    p.run(&["index", "--offline"]).ok();
    // A factory's result holds its local functions: the qualifier naming
    // the factory still reaches them.
    assert_eq!(
        edge_list(&p, &["callers", "fourOhFour.setContext"]).len(),
        1,
        "{:?}",
        edge_list(&p, &["callers", "fourOhFour.setContext"])
    );
    let v = p.json(&["symbol", "reply.send"]);
    assert_eq!(
        (v["hits"][0]["container"].as_str(), v["total"].as_u64()),
        (Some("Reply"), Some(1)),
        "{v}"
    );
    assert_eq!(
        edge_list(&p, &["callers", "sendTrailer.send"]),
        ["lib/reply.js:11 resolved"]
    );
    assert_eq!(
        edge_list(&p, &["callers", "runA.next"]),
        ["lib/hooks.js:5 resolved"]
    );
    assert_eq!(
        edge_list(&p, &["callers", "runB.next"]),
        ["lib/hooks.js:12 resolved", "lib/hooks.js:13 resolved"]
    );
    assert_eq!(
        edge_list(&p, &["callers", "Reply.send"]),
        [
            "lib/handle.js:2 name_only",
            "test/reply.test.js:2 name_only"
        ]
    );
}

/// A class's construction calls its initializer: Python's `Class(…)` is
/// a caller of `Class.__init__`, Ruby's `Class.new(…)` of
/// `Class#initialize` (QA round 12: marshmallow's `callers
/// ValidationError.__init__` missed all 31 `raise ValidationError(…)`,
/// kramdown's `callers Element.initialize` the 68 `Element.new(…)`).
#[test]
fn constructions_call_the_initializer() {
    let p = Project::new();
    p.write(
        "pkg/errors.py",
        "class ValidationError(Exception):\n    def __init__(self, message):\n        self.message = message\n",
    )
    .write(
        "pkg/fields.py",
        "from pkg.errors import ValidationError\n\n\ndef check(value):\n    if not value:\n        raise ValidationError(\"empty\")\n",
    )
    .write(
        "lib/element.rb",
        "module Kramdown\n  class Element\n    def initialize(type)\n      @type = type\n    end\n  end\nend\n",
    )
    .write(
        "lib/parser.rb",
        "module Kramdown\n  class Parser\n    def parse\n      Element.new(:root)\n    end\n  end\nend\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "ValidationError.__init__"]),
        ["pkg/fields.py:6 resolved"]
    );
    assert_eq!(
        edge_list(&p, &["callers", "Element.initialize"]),
        ["lib/parser.rb:4 resolved"]
    );
}

/// A Rust path call through a type the project does not define
/// (`String::with_capacity`) is std's, not a project method of the name,
/// and `Ok(…)` is no call of an associated `type Ok = …;` (QA round 12,
/// serde_json).
#[test]
fn rust_calls_through_std_types_and_variants_are_not_the_projects() {
    let p = Project::new();
    p.write(
        "src/map.rs",
        "pub struct Map {\n    n: usize,\n}\n\nimpl Map {\n    pub fn with_capacity(n: usize) -> Map {\n        Map { n }\n    }\n}\n\npub trait Ser {\n    type Ok;\n}\n\nimpl Ser for Map {\n    type Ok = ();\n}\n\npub fn build() -> Result<Map, ()> {\n    let s = String::with_capacity(16);\n    let m = Map::with_capacity(s.len());\n    Ok(m)\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "Map::with_capacity"]),
        ["src/map.rs:21 resolved"]
    );
    let v = p.json(&["callees", "build"]);
    assert!(
        v["edges"]
            .as_array()
            .is_some_and(|e| e.iter().all(|e| e["to"] != "Ok" && e["to"] != "Ser::Ok")),
        "{v}"
    );
}

/// A bare call in Python is never a method's: jinja2's
/// `getattr(obj, attr)` is the built-in, not one of the two
/// `Environment.getattr` methods (QA: `context` listed it name-only).
#[test]
fn a_bare_python_call_is_no_call_of_a_method() {
    let p = Project::new();
    p.write(
        "app/env.py",
        "class Environment:\n    def getattr(self, obj, attr):\n        return getattr(obj, attr)\n\n\ndef lookup(obj, name):\n    return getattr(obj, name)\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert!(
        callee_list(&p, "lookup", "resolution").is_empty(),
        "{:?}",
        callee_list(&p, "lookup", "resolution")
    );
    assert!(edge_list(&p, &["callers", "Environment.getattr"]).is_empty());
}

/// Calls inside a macro are tokens to the grammar: callers finds them by
/// the `(` after the name (Rust macro arguments, a C `#define`'s body),
/// and only calls (a function named without one stays out).
#[test]
fn callers_include_calls_inside_macros() {
    let p = Project::new();
    p.write(
        "src/sem.rs",
        "pub struct Semaphore;\n\nimpl Semaphore {\n    pub fn available_permits(&self) -> usize {\n        0\n    }\n\n    pub fn check(&self) {\n        assert_eq!(self.available_permits(), 0);\n        let f = Semaphore::available_permits;\n    }\n}\n",
    );
    p.write(
        "src/wait.h",
        "long schedule_timeout(long t);\n\n#define wait_event_timeout(t) \\\n    schedule_timeout(t)\n",
    );
    p.write(
        "src/sched.c",
        "long schedule_timeout(long t) {\n    return t;\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "Semaphore::available_permits"]),
        ["src/sem.rs:9 resolved"]
    );
    assert_eq!(
        edge_list(&p, &["callers", "schedule_timeout"]),
        ["src/wait.h:4 resolved"]
    );
    // ...and callees finds the same call from the other end; the standard
    // macro itself, defined nowhere in the project, is left out.
    let v = p.json(&["callees", "Semaphore::check"]);
    let to: Vec<String> = v["edges"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|e| {
            format!(
                "{} {}:{}",
                e["to"].as_str().unwrap_or(""),
                e["line"],
                e["resolution"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(to, ["Semaphore::available_permits 9:resolved"], "{v}");
}

/// A module is never what a call reaches: tokio's `self.std.spawn()` was
/// resolved to `mod spawn;`.
#[test]
fn a_module_is_no_callee() {
    let p = Project::new();
    p.write("src/lib.rs", "mod spawn;\n\npub struct Command {\n    std: std::process::Command,\n}\n\nimpl Command {\n    pub fn start(&mut self) {\n        self.std.spawn();\n    }\n}\n")
        .write("src/spawn.rs", "pub fn run() {}\n");
    p.run(&["index", "--offline"]).ok();
    let at = callee_list(&p, "Command::start", "resolution");
    assert_eq!(at, ["spawn name_only"]);
}

/// An import line names a module only where the module is on the path,
/// not a sibling in the same list: `Poll::Ready` after `use
/// std::task::{ready, Context, Poll};` is not the project's `io/ready.rs`'s
/// `Ready`.
#[test]
fn a_sibling_in_an_import_list_is_not_the_module_of_a_qualifier() {
    let p = Project::new();
    p.write("src/io/ready.rs", "pub struct Ready(u8);\n");
    p.write(
        "src/sleep.rs",
        "use std::task::{ready, Context, Poll};\n\npub fn poll(cx: &mut Context<'_>) -> Poll<()> {\n    Poll::Ready(())\n}\n",
    );
    p.write(
        "src/io/mod.rs",
        "mod ready;\nuse self::ready::Ready;\n\npub fn make() -> Ready {\n    ready::Ready(1)\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Ready", "-n", "100"]);
    let resolved: Vec<String> = v["hits"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter(|h| h["is_definition"] != true && h["resolution"] == "resolved")
        .map(|h| format!("{}:{}", h["path"].as_str().unwrap_or(""), h["line"]))
        .collect();
    assert!(!resolved.contains(&"src/sleep.rs:4".to_string()), "{v}");
    assert!(resolved.contains(&"src/io/mod.rs:5".to_string()), "{v}");
}

#[test]
fn edits_and_deletes_leave_no_stale_edge() {
    let p = project();
    let before = p.json(&["callers", "Session.send"]);
    assert!(before["resolved"].as_u64().unwrap() >= 4, "{before}");
    // The subclass goes away, and helper stops calling it.
    p.write(
        "pkg/sessions.py",
        SESSIONS.replace(
            "        return self.send(request)\n\n\nclass Other",
            "        return request\n\n\nclass Other",
        ),
    );
    p.remove("pkg/api.py");
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Session.send"]);
    let now = refs(&v);
    assert!(!now.iter().any(|(at, _)| at == "pkg/sessions.py:14"), "{v}");
    assert!(
        !now.iter().any(|(at, _)| at.starts_with("pkg/api.py")),
        "{v}"
    );
    let v = p.json(&["refs", "Session.request"]);
    assert_eq!(v["references"], 0, "{v}");
    assert_eq!(v["name_only"], 0, "{v}");
}

#[test]
fn mcp_find_references_callers_and_callees() {
    let p = project();
    let m = Mcp::start(&p, Era::Modern);
    let v = m.lookup("find_references", json!({"name": "Session.send"}));
    assert_eq!(v["references"], 4, "{v}");
    assert_eq!(v["name_only"], 3, "{v}");
    let hits = v["hits"].as_array().unwrap();
    // Definitions, then resolved, then name-only.
    assert_eq!(hits[0]["kind"], "definition", "{v}");
    assert!(hits[1].get("resolution").is_none(), "{v}");
    assert_eq!(hits.last().unwrap()["resolution"], "name_only", "{v}");
    let v = m.lookup(
        "find_references",
        json!({"name": "Session.send", "type": "definitions"}),
    );
    assert_eq!(v["hits"].as_array().map(Vec::len), Some(1), "{v}");

    let v = m.ok("callers", json!({"name": "Server.Stop", "depth": 2}));
    assert_eq!(v["total"], 3, "{v}");
    assert_eq!(v["edges"][0]["at"], "web/server.go:8", "{v}");
    assert_eq!(v["edges"][0]["from"], "Server.Run", "{v}");
    // A page says where the next starts; the last says nothing more.
    let v = m.ok(
        "callers",
        json!({"name": "Server.Stop", "depth": 2, "limit": 1}),
    );
    assert_eq!(v["next_offset"], 1, "{v}");
    let v = m.ok(
        "callers",
        json!({"name": "Server.Stop", "depth": 2, "limit": 1, "offset": 1}),
    );
    assert_eq!(v["edges"][0]["at"], "web/server.go:23", "{v}");
    assert_eq!(v["next_offset"], 2, "{v}");
    let v = m.ok(
        "callers",
        json!({"name": "Server.Stop", "depth": 2, "offset": 2}),
    );
    assert_eq!(v["edges"][0]["at"], "web/server.go:24", "{v}");
    assert!(v.get("next_offset").is_none(), "{v}");
    let v = m.ok("callees", json!({"name": "Session.request"}));
    assert_eq!(v["edges"][0]["to"], "Session.send", "{v}");
    assert_eq!(v["edges"][0]["defined_at"], "pkg/sessions.py:5", "{v}");
    let size = serde_json::to_string(&v).unwrap().len();
    assert!(size < 4000, "bounded: {size}");

    let (error, hint) = m.tool_error("callers", json!({"name": "Nope.send"}));
    assert!(
        error.contains("no definition of `send` in `Nope`"),
        "{error}"
    );
    assert!(hint.contains("Session.send"), "{hint}");
    let (error, _) = m.tool_error("callees", json!({"name": "Session.send", "depth": 9}));
    assert!(error.contains("depth"), "{error}");
    // A place where a name belongs points to `context`, on both surfaces.
    let (error, hint) = m.tool_error("callees", json!({"name": "pkg/sessions.py:5"}));
    assert!(error.contains("not a name"), "{error}");
    assert!(hint.contains("context"), "{hint}");
    let r = p.run(&["refs", "pkg/sessions.py"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("repo-search context PATH:LINE"), "{r}");
}

const SCHEMA_TS: &str = r#"export class ZodType {
  optional(): ZodOptional {
    return new ZodOptional();
  }
}
export class ZodOptional extends ZodType {}
export class ZodString extends ZodType {
  trim(): this {
    return this;
  }
  static create = (params?: string): ZodString => {
    return new ZodString();
  };
}
const stringType = ZodString.create;
export { stringType as string };
"#;

const USE_TS: &str = r#"import * as z from "./schema";

const name = z.string().optional();
const trimmed = z.string().trim().trim();
"#;

const OBSERVABLE_TS: &str = r#"export class Subscriber {
  next(value: number): void {}
}
export class Observable {
  constructor(subscribe?: (this: Observable, subscriber: Subscriber) => void) {}
}
export function operate(init: (source: Observable, subscriber: Subscriber) => void): void {}

export function range(n: number) {
  return new Observable((subscriber) => {
    subscriber.next(n);
  });
}

export function take(n: number) {
  return operate((source, subscriber) => {
    const done = () => {
      subscriber.next(n);
    };
  });
}
"#;

const CLIENT_PY: &str = r#"class Response:
    def json(self):
        return {}


class Session:
    def send(self):
        resp = Response()
        return resp

    def request(self):
        return self.send()


def session():
    return Session()


def get():
    with session() as s:
        return s.request()


def check():
    r = get()
    return r.json()
"#;

const ROUTE_GO: &str = r#"package mux

type routeConf struct {
	regexp string
}

func (r *routeConf) copy() routeConf { return *r }

type Route struct {
	routeConf
	name string
}

type Router struct {
	parent, current *Route
	conf            routeConf
}

func (rt *Router) walk() {
	rt.current.copy()
	rt.conf.copy()
}
"#;

const ACTIONS_TS: &str = r#"export class Action {
  schedule(): Action {
    return this;
  }
}
export class AsyncAction extends Action {
  schedule(): Action {
    return super.schedule();
  }
}
export class QueueAction extends AsyncAction {
  schedule(): Action {
    return super.schedule();
  }
}
"#;

const DOC_TS: &str = r#"export class Node {
  readonly content: readonly Node[] = [];
  check(): void {}
  child(index: number) {
    let found = this.content[index];
    return found;
  }
}
export class TextNode extends Node {
  withText(text: string): TextNode {
    return this;
  }
}
export class Store {
  setState(): void {}
}
export class Form {
  baseStore!: Store;
}
export class Pos {
  form: Form;
  nodes: Node[];
  get parent() {
    return this.node();
  }
  node(): Node {
    return this.nodes[0];
  }
  run(last: Node) {
    this.form.baseStore.setState();
    this.nodes[1].check();
    (last as TextNode).withText("x");
    let parent = this.parent, other = 1;
    parent.child(0).check();
  }
}
export class Ctx {
  constructor(
    // The store we write to.
    readonly store: Store,
  ) {}
  get top() {
    return this.nodes[0];
  }
  nodes: Node[] = [];
  go() {
    this.store.setState();
    this.top.check();
    this.nodes.forEach((n) => n.check());
  }
}
"#;

const PARAMS_PY: &str = r#"class Param:
    def check(self):
        pass


class Command:
    params: list[Param]

    def run(self, extra: list[Param]):
        for p in self.params:
            p.check()
        for q in extra:
            q.check()


async def go(factory):
    async with Param() as p:
        p.check()


def make(kind):
    """Builds one.

    :rtype: Param
    """
    return factory_for(kind)()


def use():
    make("x").check()
"#;

#[test]
fn receivers_typed_through_fields_getters_casts_elements_and_loops() {
    let p = Project::new();
    p.write("ts/doc.ts", DOC_TS)
        .write("py/params.py", PARAMS_PY);
    p.run(&["index", "--offline"]).ok();
    // `this.form.baseStore` (a field of a field, `!:`), `this.nodes[1]`
    // (an element of a `Node[]` field), `let parent = this.parent` (an
    // un-annotated getter), `.child(0)` (an un-annotated method returning
    // an element of a `readonly Node[]`).
    // A parameter property (`constructor(readonly store: Store)`, a
    // comment between the parameters), a getter returning an element.
    let v = p.json(&["refs", "Store.setState"]);
    assert_eq!(
        refs(&v),
        pairs(&[("ts/doc.ts:30", "resolved"), ("ts/doc.ts:47", "resolved")]),
        "{v}"
    );
    let v = p.json(&["refs", "Node.check"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("ts/doc.ts:31", "resolved"),
            ("ts/doc.ts:34", "resolved"),
            ("ts/doc.ts:48", "resolved"),
            // An array method's callback gets the elements.
            ("ts/doc.ts:49", "resolved")
        ]),
        "{v}"
    );
    // `(last as TextNode)`: the cast's type.
    let v = p.json(&["refs", "TextNode.withText"]);
    assert_eq!(refs(&v), pairs(&[("ts/doc.ts:32", "resolved")]), "{v}");
    // Loops over an annotated attribute or parameter; `async with`.
    let v = p.json(&["refs", "Param.check"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("py/params.py:11", "resolved"),
            ("py/params.py:13", "resolved"),
            ("py/params.py:18", "resolved"),
            // Un-annotated, but the docstring's `:rtype:` says.
            ("py/params.py:30", "resolved"),
        ]),
        "{v}"
    );
}

#[test]
fn types_flow_through_aliases_returns_lambdas_and_embedding() {
    let p = Project::new();
    p.write("ts/schema.ts", SCHEMA_TS)
        .write("ts/use.ts", USE_TS)
        .write("ts/observable.ts", OBSERVABLE_TS)
        .write("ts/actions.ts", ACTIONS_TS)
        .write("py/client.py", CLIENT_PY)
        .write("mux/route.go", ROUTE_GO);
    p.run(&["index", "--offline"]).ok();

    // `export { stringType as string }`, `const stringType =
    // ZodString.create`, `static create = (…): ZodString => …`; a method
    // returning `this` keeps the receiver's class.
    let v = p.json(&["refs", "ZodType.optional"]);
    assert_eq!(refs(&v), pairs(&[("ts/use.ts:3", "resolved")]), "{v}");
    let v = p.json(&["refs", "ZodString.trim"]);
    assert_eq!(
        refs(&v),
        pairs(&[("ts/use.ts:4", "resolved"), ("ts/use.ts:4", "resolved")]),
        "{v}"
    );

    // A lambda's parameter typed by the parameter of the callable it is
    // passed to (`this:` is not a parameter), also from a closure inside.
    let v = p.json(&["refs", "Subscriber.next"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("ts/observable.ts:11", "resolved"),
            ("ts/observable.ts:18", "resolved")
        ]),
        "{v}"
    );

    // `super.schedule()` reaches the nearest ancestor that defines it.
    let v = p.json(&["refs", "Action.schedule"]);
    assert_eq!(refs(&v), pairs(&[("ts/actions.ts:8", "resolved")]), "{v}");

    // Un-annotated Python: what `return` statements give, through calls.
    let v = p.json(&["refs", "Response.json"]);
    assert_eq!(refs(&v), pairs(&[("py/client.py:26", "resolved")]), "{v}");

    // Go: a method promoted from an embedded struct; a field's type from
    // the struct body, an unexported (lower-case) type included.
    let v = p.json(&["refs", "routeConf.copy"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("mux/route.go:20", "resolved"),
            ("mux/route.go:21", "resolved")
        ]),
        "{v}"
    );
}

const CHI_GO: &str = r#"package chi

import "sync"

type Router interface {
	Get(pattern string)
}

type Mux struct {
	pool *sync.Pool
}

func NewRouter() *Mux { return &Mux{} }

func (mx *Mux) Get(pattern string) {}

func (mx *Mux) Route(pattern string, fn func(r Router)) {}

type node struct{}

func (n *node) insert() {}

func use(v interface{}, mx *Mux) {
	r := NewRouter()
	r.Get("/")
	r.Route("/x", func(r Router) {
		r.Get("/y")
	})
	tr := &node{}
	nn := tr
	nn.insert()
	if m, ok := v.(*Mux); ok {
		m.Get("/z")
	}
	p := mx.pool.Get().(*Mux)
	p.Get("/p")
}
"#;

const HEADERS_PY: &str = r#"import typing_extensions as te


class Headers:
    def copy(self) -> te.Self:
        return self

    def update(self, x):
        pass

    @property
    def mimetype(self):
        return ""

    @mimetype.setter
    def mimetype(self, value):
        pass


class _Loader:
    def register(self, code):
        pass


class Holder:
    storage_class = Headers

    def go(self, response_class: type[Headers]):
        h = self.storage_class()
        h.update(1)
        r = response_class()
        r.update(2)
        c = h.copy()
        c.update(3)
        loader = _Loader()
        loader.register(4)
"#;

const EDITOR_TS: &str = r#"export class Editor {
  chain(): number {
    return 1
  }
}

let chain: ReturnType<Editor['chain']> | undefined
const label = 'chain'
"#;

#[test]
fn receivers_typed_through_constructors_class_values_and_quoted_members() {
    let p = Project::new();
    p.write("chi/mux.go", CHI_GO)
        .write("py/headers.py", HEADERS_PY)
        .write("ts/editor.ts", EDITOR_TS);
    p.run(&["index", "--offline"]).ok();

    // Go: `NewRouter()` returns a `*Mux` by its declaration, not a
    // `Router`; the outer `r` before a `func(r Router)` on its line (the
    // inner `r.Get` is the interface's); comma-ok and chained type
    // assertions.
    let v = p.json(&["refs", "Mux.Get"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("chi/mux.go:25", "resolved"),
            ("chi/mux.go:33", "resolved"),
            // Not line 35, `sync.Pool`'s `Get`: a type the project does
            // not define, whose methods are not the project's.
            ("chi/mux.go:36", "resolved")
        ]),
        "{v}"
    );
    let v = p.json(&["refs", "Mux.Route"]);
    assert_eq!(refs(&v), pairs(&[("chi/mux.go:26", "resolved")]), "{v}");
    // A composite literal of an unexported type, then another name for it.
    let v = p.json(&["refs", "node.insert"]);
    assert_eq!(refs(&v), pairs(&[("chi/mux.go:31", "resolved")]), "{v}");

    // Python: a class held by a class attribute or a `type[T]` parameter,
    // called; `-> te.Self`; a private (underscored) class.
    let v = p.json(&["refs", "Headers.update"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("py/headers.py:30", "resolved"),
            ("py/headers.py:32", "resolved"),
            ("py/headers.py:34", "resolved")
        ]),
        "{v}"
    );
    let v = p.json(&["refs", "_Loader.register"]);
    assert_eq!(refs(&v), pairs(&[("py/headers.py:36", "resolved")]), "{v}");
    // A property's `@mimetype.setter` uses it.
    let v = p.json(&["refs", "Headers.mimetype"]);
    assert!(
        refs(&v).contains(&("py/headers.py:15".to_string(), "resolved".to_string())),
        "{v}"
    );

    // TypeScript: `Editor['chain']`, an indexed access type; a plain
    // string is not a use.
    let v = p.json(&["refs", "Editor.chain"]);
    assert_eq!(refs(&v), pairs(&[("ts/editor.ts:7", "resolved")]), "{v}");
}

const TREE_GO: &str = r#"package tree

import (
	"context"
	"net/http"
)

type Context struct{}

func (c *Context) Value(key string) string { return "" }

type node struct{}

func (n *node) addChild() *node { return n }

func (n *node) walk() {}

type byIndex []int

func (x byIndex) Less(i, j int) bool { return false }

func newNode() (nn *node, err error) { return &node{}, nil }

func do(f func(n *http.Request)) {}

func use(ctx context.Context, r *http.Request, xs []int) {
	parent := &node{}
	hn := parent.addChild()
	hn.walk()
	byIndex(xs).Less(0, 1)
	ctx.Value("k")
	r.Context().Value("k")
	n, _ := newNode()
	do(func(n *http.Request) {
	})
	n.walk()
}
"#;

const PLUGIN_TS: &str = r#"export class Status {
  dirty(): void {}
}
export class Store {
  get(): number { return 1 }
}
export class Base<Opts, M> {
  store: Store
  process(): { status: Status; ctx: number } {
    return { status: new Status(), ctx: 1 }
  }
}
export class Plugin<O, M> extends Base<O, M> {
  run() {
    const { status, ctx } = this.process()
    status.dirty()
    const { store: s } = this
    s.get()
  }
}
"#;

#[test]
fn go_results_closures_conversions_and_ts_destructuring() {
    let p = Project::new();
    p.write("tree/tree.go", TREE_GO)
        .write("ts/plugin.ts", PLUGIN_TS);
    p.run(&["index", "--offline"]).ok();

    // A variable named `parent` is no `super`; a method's unexported
    // result types the next call.
    let v = p.json(&["refs", "node.addChild"]);
    assert_eq!(refs(&v), pairs(&[("tree/tree.go:28", "resolved")]), "{v}");
    // `*node` and a named result `(nn *node, err error)`; the closure's
    // `n *http.Request` binds only inside its body.
    let v = p.json(&["refs", "node.walk"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("tree/tree.go:29", "resolved"),
            ("tree/tree.go:36", "resolved")
        ]),
        "{v}"
    );
    // A conversion to an unexported type.
    let v = p.json(&["refs", "byIndex.Less"]);
    assert_eq!(refs(&v), pairs(&[("tree/tree.go:30", "resolved")]), "{v}");
    // `context.Context` is not the project's `Context`, and `r.Context()`
    // is a method of `*http.Request`, not a conversion.
    let v = p.json(&["refs", "Context.Value"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("tree/tree.go:31", "name_only"),
            ("tree/tree.go:32", "name_only")
        ]),
        "{v}"
    );

    // TypeScript destructuring: a callable's inline object return type,
    // and a member of the value's class (declared in a generic base).
    let v = p.json(&["refs", "Status.dirty"]);
    assert_eq!(refs(&v), pairs(&[("ts/plugin.ts:16", "resolved")]), "{v}");
    let v = p.json(&["refs", "Store.get"]);
    assert_eq!(refs(&v), pairs(&[("ts/plugin.ts:18", "resolved")]), "{v}");
}

const COLLECTIONS_GO: &str = r#"package coll

import "strings"

type HeaderRoute struct{ Value interface{} }

func (r HeaderRoute) IsMatch(v string) bool { return true }

type HeaderRouter map[string][]HeaderRoute

func (hr HeaderRouter) Handler() {
	if strings.HasSuffix("x", "/*") {
		return
	}
	for header, matchers := range hr {
		for _, matcher := range matchers {
			matcher.IsMatch(header)
		}
	}
}

type node struct {
	children [4]nodes
}

type nodes []*node

func (n *node) walk() bool {
	for _, ns := range n.children {
		for _, cn := range ns {
			if cn.walk() {
				return true
			}
		}
	}
	return false
}

func all(xs nodes, r HeaderRoute) func() bool {
	(r.Value.(*HeaderRoute)).IsMatch("")
	for _, x := range xs {
		x.walk()
		return x.walk
	}
	return nil
}

type Other struct{}

func (o *Other) IsMatch(v string) bool { return false }

func matchAny(x interface{}) {
	switch v := x.(type) {
	case *HeaderRoute:
		v.IsMatch("")
	case *Other:
		v.IsMatch("")
	case int, string:
		_ = v
	}
}
"#;

const NARROWING_TS: &str = r#"export class Hot {
  setup(): void {}
}
export class Sub {
  _removeParent(p: Sub): void {}
}
export class Sched {
  hot: Hot[] = []
  flush(): void {
    const hot = this.hot
    hot.shift()!.setup()
    this.hot.pop()?.setup()
  }
  get first() { return this.hot[0] }
  resolve(i: number) { return Sched.at(this, i) }
  static at(s: Sched, i: number): Hot { return s.hot[i] }
  remove(t: unknown): void {
    this.resolve(0).setup()
    if (t instanceof Sub) {
      t._removeParent(new Sub())
    }
    if (!(t instanceof Sub)) {
      t._removeParent(new Sub())
    }
  }
}
export class Runner {
  f: typeof Sched.prototype.flush
}
export function make<T>(x: unknown): Hot {
  return new Hot()
}
export function toggle<T>(n: number): void {
  const windows: Hot[] = []
  const handle = (err: unknown) => {
    windows.shift()!.setup()
  }
  let fresh = [new Hot()]
  fresh[0].setup()
  make<T>(n as unknown).setup()
}
export function progress(uploader: { hot: Hot; n: number }): void {
  uploader.hot.setup()
}
"#;

#[test]
fn named_collections_assertions_narrowing_and_prototypes() {
    let p = Project::new();
    p.write("coll/coll.go", COLLECTIONS_GO)
        .write("ts/sched.ts", NARROWING_TS);
    p.run(&["index", "--offline"]).ok();

    // Go: ranges over a named map of slices (`type HeaderRouter
    // map[string][]HeaderRoute`) and over a field of a named slice type,
    // element by element; a type assertion in parentheses; a type
    // switch's single-type case; a `"/*"` in a string opens no comment
    // that would hide the lines after it.
    let v = p.json(&["refs", "HeaderRoute.IsMatch"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("coll/coll.go:17", "resolved"),
            ("coll/coll.go:40", "resolved"),
            ("coll/coll.go:55", "resolved")
        ]),
        "{v}"
    );
    // A method value (`x.walk`, no call) is a use too.
    let v = p.json(&["refs", "node.walk"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("coll/coll.go:31", "resolved"),
            ("coll/coll.go:42", "resolved"),
            ("coll/coll.go:43", "resolved")
        ]),
        "{v}"
    );

    // TypeScript: an element taken off a typed list (`shift()!`, `pop()?`,
    // through another name for the list); `instanceof` narrows inside its
    // block, not when negated; `Class.prototype.method`.
    // A method whose body is on its header's line returns what that
    // `return` gives (`resolve(i) { return Sched.at(this, i) }`); a
    // closure sees the typed list of the function around it; a list
    // literal of constructions; a generic call's result, a cast among
    // its arguments being no cast of the receiver; a member of a
    // parameter's inline object type (`uploader: { hot: Hot }`).
    let v = p.json(&["refs", "Hot.setup"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("ts/sched.ts:11", "resolved"),
            ("ts/sched.ts:12", "resolved"),
            ("ts/sched.ts:18", "resolved"),
            ("ts/sched.ts:36", "resolved"),
            ("ts/sched.ts:39", "resolved"),
            ("ts/sched.ts:40", "resolved"),
            ("ts/sched.ts:43", "resolved")
        ]),
        "{v}"
    );
    let v = p.json(&["refs", "Sub._removeParent"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("ts/sched.ts:20", "resolved"),
            ("ts/sched.ts:23", "name_only")
        ]),
        "{v}"
    );
    let v = p.json(&["refs", "Sched.flush"]);
    assert_eq!(refs(&v), pairs(&[("ts/sched.ts:28", "resolved")]), "{v}");
}

const MIXIN_TS: &str = r#"export class Lexer {
  LA(this: Mixed, n: number): number {
    return n
  }
}
export class Engine {
  consume(this: Mixed): number {
    return this.LA(1)
  }
  plain(): number {
    return this.LA(2)
  }
}
export type Mixed = Lexer & Engine
"#;

const CLIENT_TS: &str = r#"export class Query {
  fetch(): void {}
  catch(f: unknown): Query { return this }
}
export class Holder {
  parse(): Holder { return this }
}
export class Str {
  inner: Holder = new Holder()
  toLowerCase(): Str { return this }
  includes(x: string): boolean { return true }
}
export class Cache {
  readonly listeners = new Set<Query>()
  all(): Array<Query> { return [] }
  async open(): Promise<Query> { return new Query() }
}
export class Client {
  #cache: Cache = new Cache()
  async run(err: unknown, me: unknown): Promise<void> {
    this.#cache.all().forEach((q) => q.fetch())
    this.#cache.listeners.forEach((q) => q.fetch())
    this.#queries().get('k')?.fetch()
    const q = await this.#cache.open()
    q.fetch()
    const p = this.#cache.open()
    p.catch(() => {})
    this.#notify()
    if ((err as Error)?.message?.toLowerCase()?.includes('x')) {}
    (me as unknown as Str).inner.parse().includes('y')
  }
  #queries(): Map<string, Query> { return new Map() }
  #notify(): void {}
}
"#;

const TEXT_GO: &str = r#"package text

type Segment struct{ Start, Stop int }

func (s Segment) Len() int { return s.Stop - s.Start }

type Segments struct{ values []Segment }

func (s *Segments) At(i int) Segment { return s.values[i] }

type Reader interface {
	PeekLine() ([]byte, Segment)
}

type Node interface {
	Lines() *Segments
	FirstChild() Node
}

type Text struct{ Segment Segment }

type Conn struct{ seg Segment }

func (c *Conn) Do() {}

type Pool struct{ byName map[string]*Conn }

func walk(r Reader, n Node, p *Pool) {
	line, segment := r.PeekLine()
	_ = line
	segment.Len()
	first := n.Lines().At(0)
	first.Len()
	text := n.FirstChild().(*Text).Segment
	text.Len()
	if conn, ok := p.byName["x"]; ok {
		conn.Do()
		ptr := &conn.seg
		ptr.Len()
	}
}
"#;

#[test]
fn this_parameters_private_members_awaits_elements_and_go_results() {
    let p = Project::new();
    p.write("ts/mixin.ts", MIXIN_TS)
        .write("ts/client.ts", CLIENT_TS)
        .write("text/text.go", TEXT_GO);
    p.run(&["index", "--offline"]).ok();

    // A callable's `this` parameter types `this` in its body: a class
    // mixed into an intersection alias reaches the others' members.
    let v = p.json(&["refs", "Lexer.LA"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("ts/mixin.ts:8", "resolved"),
            ("ts/mixin.ts:11", "name_only")
        ]),
        "{v}"
    );
    // Elements of a call's `Array<T>`, of a `new Set<T>()` field and of a
    // `Map<K, V>` a private method returns; an awaited `Promise<T>`.
    let v = p.json(&["refs", "Query.fetch"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("ts/client.ts:21", "resolved"),
            ("ts/client.ts:22", "resolved"),
            ("ts/client.ts:23", "resolved"),
            ("ts/client.ts:25", "resolved")
        ]),
        "{v}"
    );
    // Not awaited, the value is the `Promise`.
    let v = p.json(&["refs", "Query.catch"]);
    assert_eq!(refs(&v), pairs(&[("ts/client.ts:27", "name_only")]), "{v}");
    // A private method, named as the language service names it.
    let v = p.json(&["refs", "Client.#notify"]);
    assert_eq!(refs(&v), pairs(&[("ts/client.ts:28", "resolved")]), "{v}");
    // A chain rooted in a non-project type stays outside the project; a
    // cast's parentheses that close early cast only what they hold.
    let v = p.json(&["refs", "Str.includes"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("ts/client.ts:29", "name_only"),
            ("ts/client.ts:30", "name_only")
        ]),
        "{v}"
    );

    // Go: a later result of a call (through an interface's method), the
    // last call of a chain, a field after a type assertion, a comma-ok
    // map index, the address of a field.
    let v = p.json(&["refs", "Segment.Len"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("text/text.go:31", "resolved"),
            ("text/text.go:33", "resolved"),
            ("text/text.go:35", "resolved"),
            ("text/text.go:39", "resolved")
        ]),
        "{v}"
    );
    let v = p.json(&["refs", "Conn.Do"]);
    assert_eq!(refs(&v), pairs(&[("text/text.go:37", "resolved")]), "{v}");
}

/// JavaScript typed by its JSDoc: parameters (`@param {T} x`, a blank line
/// before the method, an `import("…").T`), returns, a field's `@type` in
/// the constructor (its elements), a variable's `@type`, and an untyped
/// arrow parameter shadowing a typed one.
const JSDOC_JS: &str = r#"class Option {
  name() {
    return 'x';
  }
}

class Help {
  /**
   * @param {Command} cmd
   * @returns {Option}
   */

  first(cmd) {
    return cmd.options[0];
  }
}

class Command {
  constructor(helper) {
    /** @type {Option[]} */
    this.options = [];
    this.helper = helper;
  }

  /**
   * @param {import("./cmd").Help} helper
   * @param {Option} option
   */
  show(helper, option) {
    helper.first(this).name();
    option.name();
    this.options.forEach((o) => o.name());
    const pick = (option) => option.name();
    /** @type {Option} */
    let chosen = pick(option);
    chosen.name();
  }
}
"#;

#[test]
fn javascript_receivers_typed_by_jsdoc() {
    let p = Project::new();
    p.write("js/cmd.js", JSDOC_JS);
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Option.name"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("js/cmd.js:30", "resolved"),
            ("js/cmd.js:31", "resolved"),
            ("js/cmd.js:32", "resolved"),
            ("js/cmd.js:33", "name_only"),
            ("js/cmd.js:36", "resolved")
        ]),
        "{v}"
    );
    let v = p.json(&["refs", "Help.first"]);
    assert_eq!(refs(&v), pairs(&[("js/cmd.js:30", "resolved")]), "{v}");
}

/// Bare calls name functions, not methods (`open(…)` is not
/// `Client.open`), and not a project function when the name is a
/// parameter of the function around the call.
const BARE_CALLS_PY: &str = r#"class Client:
    def open(self):
        return Response()


class Response:
    def close(self):
        pass


def app():
    return Response()


def use(app):
    f = open("x")
    f.close()
    it = app()
    it.close()
    c = Client()
    r = c.open()
    r.close()


def main():
    a = app()
    a.close()
"#;

#[test]
fn bare_calls_name_functions_not_methods_or_parameters() {
    let p = Project::new();
    p.write("py/bare.py", BARE_CALLS_PY);
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Response.close"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("py/bare.py:17", "name_only"),
            ("py/bare.py:19", "name_only"),
            ("py/bare.py:22", "resolved"),
            ("py/bare.py:27", "resolved")
        ]),
        "{v}"
    );
}

/// A Python class body's bare name is the class's own attribute; inside a
/// method it is not.
const CLASS_BODY_PY: &str = r#"class Undefined:
    def _fail(self, *args):
        raise ValueError

    __add__ = __radd__ = _fail
    __call__ = _fail

    def other(self):
        return _fail
"#;

#[test]
fn python_class_body_aliases_are_references() {
    let p = Project::new();
    p.write("py/undef.py", CLASS_BODY_PY);
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Undefined._fail"]);
    assert_eq!(
        refs(&v),
        pairs(&[("py/undef.py:5", "resolved"), ("py/undef.py:6", "resolved")]),
        "{v}"
    );
}

/// `URL = Url`: a module-level name for a class, called, makes an instance
/// of that class.
const CLASS_ALIAS_PY: &str = r#"class Field:
    def deserialize(self, v):
        return v


class Url(Field):
    pass


URL = Url


def h():
    x = URL()
    x.deserialize(3)
"#;

#[test]
fn a_class_called_by_another_name_types_its_instance() {
    let p = Project::new();
    p.write("py/fields.py", CLASS_ALIAS_PY);
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Field.deserialize"]);
    assert_eq!(refs(&v), pairs(&[("py/fields.py:15", "resolved")]), "{v}");
}

/// `-> "te.Self"` names no type without its receiver's class: a later
/// `self.symbols = rv = original.copy()` whose receiver is unknown does not
/// retype the attribute as `Self`.
const SELF_RETURN_PY: &str = r#"import typing as t
if t.TYPE_CHECKING:
    import typing_extensions as te


class Symbols:
    def copy(self) -> "te.Self":
        return self

    def store(self, name):
        pass


class Visitor:
    def __init__(self, symbols: "Symbols") -> None:
        self.symbols = symbols

    def visit(self, node):
        self.symbols.store(node)

    def branch(self):
        original_symbols = self.symbols
        try:
            self.symbols = rv = original_symbols.copy()
        finally:
            self.symbols = original_symbols
"#;

#[test]
fn a_self_return_without_its_receiver_types_nothing() {
    let p = Project::new();
    p.write("py/sym.py", SELF_RETURN_PY);
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Symbols.store"]);
    assert_eq!(refs(&v), pairs(&[("py/sym.py:19", "resolved")]), "{v}");
}

/// A Python function outside a class whose `self` is annotated (a
/// decorator's wrapper) types `self` by that annotation.
const ANNOTATED_SELF_PY: &str = r#"class NodeVisitor:
    def visit(self, node):
        return node


def optimizeconst(f):
    def new_func(self: "CodeGenerator", node):
        return self.visit(node)

    return new_func


class CodeGenerator(NodeVisitor):
    pass
"#;

#[test]
fn an_annotated_self_outside_a_class_is_typed() {
    let p = Project::new();
    p.write("py/gen.py", ANNOTATED_SELF_PY);
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "NodeVisitor.visit"]);
    assert_eq!(refs(&v), pairs(&[("py/gen.py:8", "resolved")]), "{v}");
}

/// A Go composite literal as the receiver: `Test{…}.Run()` and
/// `(&Test{…}).Run()` call `Test.Run`, not another type's `Run`.
const COMPOSITE_RECEIVER_GO: &str = r#"package golit

type Test struct{ name string }

func (t Test) Run() string { return t.name }

type Other struct{}

func (o Other) Run() string { return "" }

func use() string {
	a := Test{name: "x"}.Run()
	b := (&Test{name: "y"}).Run()
	return a + b
}
"#;

#[test]
fn a_go_composite_literal_types_its_receiver() {
    let p = Project::new();
    p.write("golit/a.go", COMPOSITE_RECEIVER_GO);
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Test.Run"]);
    assert_eq!(
        refs(&v),
        pairs(&[("golit/a.go:12", "resolved"), ("golit/a.go:13", "resolved")]),
        "{v}"
    );
    let v = p.json(&["refs", "Other.Run"]);
    assert_eq!(refs(&v), pairs(&[]), "{v}");
}

/// Three ways a Python receiver was typed by something else's binding:
/// `self.response` bound in another class of the file; `self.app(…)`
/// (a callable held in an attribute) typed by a test's local `def app(…)
/// -> Response`; `parts` typed by the words `URL parts` in a comment.
const FOREIGN_BINDINGS_PY: &str = r#"import typing as t
from urllib.parse import urlsplit


class Response:
    response: t.Iterable[bytes]

    def __init__(self, response=None):
        self.response = response

    def close(self) -> None:
        self.response.close()


class ResponseStream:
    def __init__(self, response: Response):
        self.response = response

    def shut(self):
        self.response.close()


class Sub(ResponseStream):
    def end(self):
        self.response.close()


class Debugged:
    def __init__(self, app):
        self.app = app

    def run(self, environ):
        app_iter = self.app(environ)
        app_iter.close()


# characters that should remain quoted in URL parts
def split(uri):
    parts = urlsplit(uri)
    return parts.query


class URL:
    def query(self):
        return 1
"#;

const FOREIGN_BINDINGS_TEST_PY: &str = r#"from py.resp import Response


def test_app():
    def app(environ) -> Response:
        return Response()

    return app
"#;

#[test]
fn python_receivers_are_not_typed_by_other_classes_functions_or_comments() {
    let p = Project::new();
    p.write("py/resp.py", FOREIGN_BINDINGS_PY);
    p.write("py/test_resp.py", FOREIGN_BINDINGS_TEST_PY);
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Response.close"]);
    let resolved: Vec<(String, String)> = refs(&v)
        .into_iter()
        .filter(|(_, how)| how == "resolved")
        .collect();
    // the stream's own `self.response` and the subclass's (bound in its
    // base), not `Response.close`'s own `self.response.close()`, nor the
    // closure's result
    assert_eq!(
        resolved,
        pairs(&[("py/resp.py:20", "resolved"), ("py/resp.py:25", "resolved")]),
        "{v}"
    );
    let v = p.json(&["refs", "URL.query"]);
    assert!(
        !refs(&v)
            .iter()
            .any(|(at, how)| at == "py/resp.py:41" && how == "resolved"),
        "{v}"
    );
}

/// Two classes named `Request`: starlette's, a subclass of `HTTPConnection`
/// that inherits its `headers` property, and h11's, with a `headers` field
/// of its own. The subclass's `self.headers` are the property's; the other
/// class's are not.
const SAME_NAMED_SUBCLASS_PY: &str = r#"class HTTPConnection:
    @property
    def headers(self) -> dict:
        return {}


class Request(HTTPConnection):
    def form(self):
        return self.headers.get("content-type")
"#;

const SAME_NAMED_OTHER_PY: &str = r#"class Request:
    headers: list

    def __init__(self, headers):
        self.headers = headers

    def host(self):
        return self.headers[0]


def expect(request: Request):
    return request.headers
"#;

#[test]
fn a_same_named_class_elsewhere_neither_hides_nor_joins_a_subclass() {
    let p = Project::new();
    p.write("web/requests.py", SAME_NAMED_SUBCLASS_PY);
    p.write("proto/events.py", SAME_NAMED_OTHER_PY);
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "HTTPConnection.headers"]);
    let resolved: Vec<(String, String)> = refs(&v)
        .into_iter()
        .filter(|(_, how)| how == "resolved")
        .collect();
    assert_eq!(resolved, pairs(&[("web/requests.py:9", "resolved")]), "{v}");
}

/// A Python name rebound to a value of unknown type is no longer typed by
/// its earlier binding; the rebinding line's own right-hand side still
/// reads the earlier one, and an operator on the name itself keeps it.
const REBOUND_PY: &str = r#"import pickle


class Session:
    def send(self, r):
        return r

    def inner(self) -> "Session":
        return self

    def __or__(self, other) -> "Session":
        return self


def f(r):
    s = Session()
    s = pickle.loads(pickle.dumps(s))
    s.send(r)


def g(r):
    s = Session()
    s = s.inner()
    s.send(r)


def h(r):
    s = Session()
    s = s | Session()
    s.send(r)


def k(r):
    s = Session()
    s = wrap(s.send(r))
    return s
"#;

#[test]
fn a_python_name_rebound_to_an_unknown_value_loses_its_type() {
    let p = Project::new();
    p.write("py/sess.py", REBOUND_PY);
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Session.send"]);
    let resolved: Vec<(String, String)> = refs(&v)
        .into_iter()
        .filter(|(_, how)| how == "resolved")
        .collect();
    assert_eq!(
        resolved,
        pairs(&[
            ("py/sess.py:24", "resolved"),
            ("py/sess.py:30", "resolved"),
            ("py/sess.py:35", "resolved"),
        ]),
        "{v}"
    );
}

/// `with SSLTransport(` … `) as ssock:` over several lines types `ssock`.
const MULTILINE_WITH_PY: &str = r#"class SSLTransport:
    def __init__(self, sock, ctx, server_hostname=None):
        self.sock = sock

    def __enter__(self):
        return self

    def __exit__(self, *a):
        pass

    def send(self, data):
        return len(data)


def talk(sock, ctx):
    with SSLTransport(
        sock, ctx, server_hostname="localhost"
    ) as ssock:
        ssock.send(b"x")
"#;

#[test]
fn a_with_statement_over_several_lines_types_its_target() {
    let p = Project::new();
    p.write("py/ssl.py", MULTILINE_WITH_PY);
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "SSLTransport.send"]);
    assert_eq!(refs(&v), pairs(&[("py/ssl.py:19", "resolved")]), "{v}");
}

/// Go packages each with a `New`: `router := New()` is the package's own
/// (`*Router`), `lru.New(2)` through an import the `lru` directory's, and
/// `gob.NewEncoder` of the standard library none of the project's. A
/// variable `s1` is a value even where another package (or a test function
/// there) declares `type s1 struct`.
const GO_ROUTER: &str = r#"package httprouter

type Router struct{}

func New() *Router { return &Router{} }

func (r *Router) Handle(path string) {}
"#;

const GO_ROUTER_TEST: &str = r#"package httprouter

import (
	"encoding/gob"

	"corpus/lru"
)

func TestRouter() {
	router := New()
	router.Handle("/")
	s1 := New()
	s1.Handle("/s1")
	c, _ := lru.New(2)
	c.Add(1)
	enc := gob.NewEncoder(nil)
	enc.Encode(1)
}
"#;

const GO_LRU: &str = r#"package lru

type Cache struct{}

func New(size int) (*Cache, error) { return &Cache{}, nil }

func (c *Cache) Add(k int) {}
"#;

const GO_SCHEMA: &str = r#"package schema

type Encoder struct{}

func NewEncoder() *Encoder { return &Encoder{} }

func (e *Encoder) Encode(v int) error { return nil }

func TestEncoder() {
	type s1 struct{ a int }
	_ = s1{}
}
"#;

#[test]
fn go_calls_of_a_function_name_their_own_package() {
    let p = Project::new();
    p.write("go.mod", "module corpus\n\ngo 1.19\n");
    p.write("httprouter/router.go", GO_ROUTER);
    p.write("httprouter/router_test.go", GO_ROUTER_TEST);
    p.write("lru/lru.go", GO_LRU);
    p.write("schema/encoder.go", GO_SCHEMA);
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Router.Handle"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("httprouter/router_test.go:11", "resolved"),
            ("httprouter/router_test.go:13", "resolved")
        ]),
        "{v}"
    );
    let v = p.json(&["refs", "Cache.Add"]);
    assert_eq!(
        refs(&v),
        pairs(&[("httprouter/router_test.go:15", "resolved")]),
        "{v}"
    );
    let v = p.json(&["refs", "Encoder.Encode"]);
    assert!(!refs(&v).iter().any(|(_, how)| how == "resolved"), "{v}");
}

/// A module whose root package is named by its `package` clause, not by a
/// directory, behind a major-version import path: go-git's
/// `github.com/go-git/go-git/v5`, package `git` (every `git.PlainClone`
/// in its examples was name-only).
#[test]
fn go_calls_into_a_modules_root_package_resolve_by_its_package_clause() {
    let p = Project::new();
    p.write("go.mod", "module example.com/go-thing/v2\n\ngo 1.19\n");
    p.write(
        "repository.go",
        "package thing\n\n// PlainOpen opens a repository.\nfunc PlainOpen(path string) error {\n\treturn nil\n}\n",
    );
    p.write(
        "_examples/open/main.go",
        "package main\n\nimport (\n\t\"example.com/go-thing/v2\"\n)\n\nfunc main() {\n\t_ = thing.PlainOpen(\"x\")\n\tr := thing.NewRepo()\n\tr.Worktree()\n}\n",
    );
    p.write(
        "repo.go",
        "package thing\n\ntype Repo struct{}\n\nfunc NewRepo() *Repo {\n\treturn &Repo{}\n}\n\nfunc (r *Repo) Worktree() error {\n\treturn nil\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "PlainOpen"]),
        ["_examples/open/main.go:8 resolved"]
    );
    // A value a root-package function returns is typed by its result.
    assert_eq!(
        edge_list(&p, &["callers", "Repo.Worktree"]),
        ["_examples/open/main.go:10 resolved"]
    );
    // The package qualifies the name in every lookup: `thing.PlainOpen`
    // (no file or directory is called `thing`), and a second `PlainOpen`
    // in another package stays out.
    p.write(
        "plumbing/open.go",
        "package plumbing\n\nfunc PlainOpen(path string) error {\n\treturn nil\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["symbol", "thing.PlainOpen", "--exact"]);
    assert_eq!(v["hits"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(v["hits"][0]["path"], "repository.go", "{v}");
    let v = p.json(&["symbol", "thing.Repo.Worktree", "--exact"]);
    assert_eq!(v["hits"][0]["path"], "repo.go", "{v}");
    assert_eq!(
        edge_list(&p, &["callers", "thing.PlainOpen"]),
        ["_examples/open/main.go:8 resolved"]
    );
    assert_eq!(p.json(&["refs", "thing.PlainOpen"])["definitions"], 1);
    let v = p.json(&["imports", "_examples/open/main.go"]);
    assert_eq!(v["imports"][0]["resolved"], ".", "{v}");
    assert_eq!(
        v["imports"][0]["resolved_files"],
        serde_json::json!(["repo.go", "repository.go"]),
        "{v}"
    );
}

/// `sys.stderr.flush()`: an attribute of a module from outside the project
/// holds none of the project's methods, not even as a name-only
/// candidate; a project module's attribute still may.
#[test]
fn python_an_external_modules_attribute_is_no_candidate() {
    let p = Project::new();
    p.write(
        "tests/client.py",
        "class Client:\n    def flush(self):\n        return 1\n",
    );
    p.write(
        "app/run.py",
        "import sys\nfrom app import state\n\n\ndef spawn():\n    sys.stderr.flush()\n    state.current.flush()\n",
    );
    p.write("app/state.py", "current = None\n");
    // A function nested in a test is seen only inside it.
    p.write(
        "tests/test_p.py",
        "def test_x():\n    def handler():\n        return 1\n    handler()\n",
    );
    p.write("app/hooks.py", "def run(handler):\n    handler()\n");
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "Client.flush"]),
        ["app/run.py:7 name_only"]
    );
    assert_eq!(
        edge_list(&p, &["callers", "test_x.handler"]),
        ["tests/test_p.py:4 resolved"]
    );
}

/// Rust's `use` inside a function binds there only: two test functions
/// of one file take `take_while1` from two modules (nom's `str.rs`), and
/// a closure or nested `fn` sees its outer function's `use`.
#[test]
fn rust_a_use_inside_a_function_binds_only_there() {
    let p = Project::new();
    p.write("src/lib.rs", "pub mod bytes;\nmod str;\n");
    p.write(
        "src/bytes/mod.rs",
        "pub mod complete;\npub mod streaming;\n",
    );
    for m in ["complete", "streaming"] {
        p.write(
            &format!("src/bytes/{m}.rs"),
            "pub fn take_while1(x: u8) -> u8 {\n    x\n}\n",
        );
    }
    p.write(
        "src/str.rs",
        "fn streaming_case() {\n    use crate::bytes::streaming::take_while1;\n    fn f(i: u8) -> u8 {\n        take_while1(i)\n    }\n    f(1);\n}\n\nfn complete_case() {\n    use crate::bytes::complete::take_while1;\n    take_while1(2);\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "streaming::take_while1"]),
        ["src/str.rs:4 resolved"]
    );
    assert_eq!(
        edge_list(&p, &["callers", "complete::take_while1"]),
        ["src/str.rs:11 resolved"]
    );
}

/// Types named alike in two packages (pgx's `Conn` and its `stdlib.Conn`
/// wrapping one): a call through a field declared `*pg.Conn` reaches the
/// field's package, not the enclosing method of the same name; and a
/// package segment before the type picks one in `callers` and `refs`.
#[test]
fn go_a_field_of_another_packages_type_calls_into_that_package() {
    let p = Project::new();
    p.write("go.mod", "module example.com/pg/v4\n\ngo 1.19\n");
    p.write(
        "conn.go",
        "package pg\n\ntype Conn struct{}\n\nfunc (c *Conn) BeginTx(x int) error {\n\treturn nil\n}\n",
    );
    p.write(
        "stdlib/sql.go",
        "package stdlib\n\nimport (\n\t\"example.com/pg/v4\"\n)\n\ntype Conn struct {\n\tconn *pg.Conn\n}\n\nfunc (c *Conn) BeginTx(x int) error {\n\terr := c.conn.BeginTx(x)\n\treturn err\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "pg.Conn.BeginTx"]),
        ["stdlib/sql.go:12 resolved"]
    );
    assert!(edge_list(&p, &["callers", "stdlib.Conn.BeginTx"]).is_empty());
    assert_eq!(p.json(&["refs", "stdlib.Conn.BeginTx"])["definitions"], 1);
}

/// A call qualified by an imported package that cannot hold the target
/// (`errors.New`, `template.New` beside the project's own `New`) is no
/// candidate, not even name-only; the project's package still resolves.
#[test]
fn go_calls_into_the_standard_library_are_not_name_only_candidates() {
    let p = Project::new();
    p.write("go.mod", "module corpus\n\ngo 1.19\n");
    p.write(
        "web/engine.go",
        "package web\n\ntype Engine struct{}\n\nfunc New() *Engine { return &Engine{} }\n",
    );
    p.write(
        "app/main.go",
        "package app\n\nimport (\n\t\"errors\"\n\t\"text/template\"\n\n\t\"corpus/web\"\n)\n\nfunc Run() error {\n\t_ = web.New()\n\t_ = template.New(\"x\")\n\treturn errors.New(\"boom\")\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "web.New"]),
        ["app/main.go:11 resolved"]
    );
}

/// Express's shape: methods assigned onto an object, through a chain
/// (`res.set = res.header = function…` defines both), called on it by
/// name and through `this` inside its fellow methods.
#[test]
fn javascript_methods_assigned_onto_an_object_are_called_through_this() {
    let p = Project::new();
    p.write(
        "lib/response.js",
        "var res = {};\n\nres.set =\nres.header = function header(field, val) {\n  return val;\n};\n\nres.location = function location(url) {\n  return this.set('Location', url);\n};\n\nmodule.exports = res;\n",
    );
    p.write(
        "lib/application.js",
        "var app = {};\n\napp.set = function set(setting, val) {\n  return val;\n};\n\napp.enable = function enable(setting) {\n  return this.set(setting, true);\n};\n",
    );
    p.run(&["index", "--offline"]).ok();
    p.run(&["symbol", "res.set"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "res.set"]),
        ["lib/response.js:9 resolved"]
    );
    assert_eq!(
        edge_list(&p, &["callers", "app.set"]),
        ["lib/application.js:8 resolved"]
    );
    // A function nested in another is no member of it: called bare.
    p.write(
        "lib/nested.js",
        "function outer(x) {\n  function inner(y) {\n    return y + 1;\n  }\n  return inner(x);\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "inner"]),
        ["lib/nested.js:5 resolved"]
    );
}

/// An import line binds the names after `import` (or after `as`), not
/// the parts of a module's path: `from pkg.console import Console` makes
/// no variable `console` an alias of the package `pkg` (rich's
/// `console.print(…)` calls were resolved to `rich.print`), and `from
/// .util import render as render_text` binds no `render`.
#[test]
fn python_import_lines_bind_only_the_names_they_import() {
    let p = Project::new();
    p.write("pkg/__init__.py", "def print(*objects):\n    pass\n");
    p.write(
        "pkg/console.py",
        "class Console:\n    def print(self, *objs):\n        pass\n",
    );
    p.write("pkg/util.py", "def render(x):\n    return x\n");
    p.write(
        "pkg/demo.py",
        "from pkg.console import Console\nfrom .util import render as render_text\n\n\ndef run(render):\n    console = Console()\n    console.print(\"y\")\n    return render(3)\n",
    );
    p.run(&["index", "--offline"]).ok();
    let resolved = |v: &serde_json::Value| -> Vec<(String, String)> {
        refs(v)
            .into_iter()
            .filter(|(_, how)| how == "resolved")
            .collect()
    };
    let v = p.json(&["refs", "pkg.print"]);
    assert!(resolved(&v).is_empty(), "{v}");
    let v = p.json(&["refs", "Console.print"]);
    assert_eq!(resolved(&v), pairs(&[("pkg/demo.py:7", "resolved")]), "{v}");
    let v = p.json(&["refs", "util.render"]);
    assert!(resolved(&v).is_empty(), "{v}");
}

/// In Java a method is named without a call only as a method reference
/// (`this::label`): a parameter or local of the same name is no use of it;
/// and `new Circle()` is a callee.
#[test]
fn java_parameters_named_like_a_method_are_not_its_uses() {
    let p = Project::new();
    p.write(
        "src/Circle.java",
        "public class Circle {\n    public String label(String label) {\n        String text = label + 1;\n        return text;\n    }\n\n    public Runnable later() {\n        return this::label;\n    }\n\n    public String twice() {\n        return label(\"a\") + label(\"b\");\n    }\n}\n",
    );
    p.write(
        "src/Main.java",
        "public class Main {\n    public Circle make() {\n        Circle c = new Circle();\n        return c;\n    }\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    // `new Circle()` is a call of the class's constructor; the declared
    // type beside it is not.
    assert_eq!(
        edge_list(&p, &["callees", "Main.make"]),
        ["src/Main.java:3 resolved"]
    );
    // A field named bare is typed by its declaration in the class.
    p.write(
        "src/Holder.java",
        "public class Holder {\n    protected Circle conn;\n\n    public String run() {\n        return conn.twice();\n    }\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callees", "Holder.run"]),
        ["src/Holder.java:5 resolved"]
    );
    let v = p.json(&["refs", "Circle.label"]);
    let lines: Vec<String> = refs(&v).into_iter().map(|(at, _)| at).collect();
    assert_eq!(
        lines,
        [
            "src/Circle.java:12",
            "src/Circle.java:12",
            "src/Circle.java:8"
        ],
        "{v}"
    );
}

/// A Java or C# constructor is called only through `new`: its class named
/// as a type (`extends Element`, a declaration, a cast, a return type) is
/// no call of it.
#[test]
fn constructor_callers_are_new_expressions() {
    let p = Project::new();
    p.write(
        "src/Element.java",
        "public class Element {\n    public Element(int tag) {\n    }\n\n    public Element copy() {\n        Element el = new Element(1);\n        return (Element) el;\n    }\n}\n",
    );
    p.write(
        "src/Document.java",
        "public class Document extends Element {\n    public Document() {\n        super(0);\n    }\n\n    public Element make() {\n        return new Element(2);\n    }\n}\n",
    );
    p.write(
        "src/Widget.cs",
        "public class Widget {\n    public Widget(int n) { }\n    public static Widget Make() { Widget w = new Widget(1); return w; }\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "Element.Element"]),
        [
            "src/Document.java:7 resolved",
            "src/Element.java:6 resolved"
        ]
    );
    assert_eq!(
        edge_list(&p, &["callers", "Widget.Widget"]),
        ["src/Widget.cs:3 resolved"]
    );
}

/// Rust has no overloads or defaults: a call whose count of arguments no
/// parameter list of the name fits is no use of it (reqwest's sixteen
/// channel `tx.send(x)` calls had been name-only callers of
/// `RequestBuilder::send(self)`); a method call's receiver is its `self`.
#[test]
fn rust_calls_whose_arguments_cannot_fit_are_not_name_only_callers() {
    let p = Project::new();
    p.write(
        "src/request.rs",
        "pub struct RequestBuilder;\n\nimpl RequestBuilder {\n    pub fn send(self) -> u32 {\n        1\n    }\n}\n",
    );
    p.write(
        "src/pool.rs",
        "pub fn notify(tx: Sender, rb: Builder) -> u32 {\n    tx.send(5);\n    rb.send()\n}\n\npub fn direct(rb: Builder) -> u32 {\n    Builder::send(rb)\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "RequestBuilder::send"]),
        ["src/pool.rs:3 name_only", "src/pool.rs:7 name_only"]
    );
}

/// `super().matches(x)` in a subclass calls the base's method, never the
/// subclass's own: it is no caller of `Child.matches` (it had been a
/// name-only one), and `callers --depth 2` lists a call site once, at its
/// first depth (the same site had come back one level deeper).
#[test]
fn super_calls_are_not_callers_of_their_own_class_and_sites_show_once() {
    let p = Project::new();
    p.write(
        "pkg/m.py",
        "class Base:\n    def matches(self, x):\n        return x == 1\n\n\nclass Child(Base):\n    def matches(self, x):\n        return super().matches(x) and x > 0\n\n    def check(self, x):\n        return self.matches(x)\n\n\ndef run(c: Child):\n    return c.check(2)\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "Child.matches", "--depth", "2"]),
        ["pkg/m.py:11 resolved", "pkg/m.py:15 resolved"]
    );
    assert_eq!(
        edge_list(&p, &["callers", "Base.matches", "--depth", "2"]),
        ["pkg/m.py:8 resolved", "pkg/m.py:11 resolved"]
    );
}

/// An npm package ships its build (`dist/`) beside `src/`: `refs`,
/// `callers` and their targets list the live source first, then tests,
/// then a compiled copy outside the build's directories; the build's own
/// copies of the definition and their uses are left out and counted
/// (`dist/` had come first, sorting before `src/`, then after it).
#[test]
fn references_and_callers_list_live_source_before_build_output() {
    let p = Project::new();
    p.write(
        "src/greet.ts",
        "export function greet(name: string): string {\n  return 'hi ' + name;\n}\n",
    );
    p.write(
        "src/main.ts",
        "import { greet } from './greet';\n\nexport function run(): string {\n  return greet('a');\n}\n",
    );
    p.write(
        "test/greet.test.ts",
        "import { greet } from '../src/greet';\n\nexport function check() {\n  return greet('x');\n}\n",
    );
    p.write(
        "dist/greet.js",
        "function greet(name) {\n  return 'hi ' + name;\n}\nexports.greet = greet;\n",
    );
    p.write(
        "dist/greet.d.ts",
        "export declare function greet(name: string): string;\n",
    );
    p.write(
        "build/modern/main.js",
        "const { greet } = require('../../src/greet');\nfunction main() {\n  return greet('b');\n}\nexports.main = main;\n//# sourceMappingURL=main.js.map\n",
    );
    p.write(
        "dist/main.js",
        "const { greet } = require('./greet');\nfunction run() {\n  return greet('a');\n}\nexports.run = run;\n",
    );
    p.run(&["index", "--offline"]).ok();
    // Definitions first, then references, each group live source first.
    let v = p.json(&["refs", "greet"]);
    let paths = |definitions: bool| -> Vec<String> {
        v["hits"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter(|h| (h["is_definition"] == true) == definitions)
                    .filter_map(|h| h["path"].as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    };
    let defs = paths(true);
    assert_eq!(defs, ["src/greet.ts"], "{v}");
    assert_eq!(
        v["build_output_left_out"],
        serde_json::json!({"definitions": 2, "uses": 3}),
        "{v}"
    );
    let uses = paths(false);
    assert_eq!(uses.first().map(String::as_str), Some("src/main.ts"), "{v}");
    let test = uses.iter().position(|p| p.starts_with("test/"));
    let built = uses.iter().position(|p| p.starts_with("build/"));
    assert!(
        matches!((test, built), (Some(t), Some(b)) if t < b)
            && !uses.iter().any(|p| p.starts_with("dist/")),
        "{uses:?}"
    );
    let callers = edge_list(&p, &["callers", "greet"]);
    let at: Vec<&str> = callers
        .iter()
        .map(|e| e.split(':').next().unwrap_or(""))
        .collect();
    assert_eq!(
        at,
        ["src/main.ts", "test/greet.test.ts", "build/modern/main.js"],
        "{callers:?}"
    );
    let targets = p.json(&["callers", "greet"])["targets"].clone();
    assert_eq!(targets[0]["path"], "src/greet.ts", "{targets}");
    // `context` shows ten callers at most: live code, then tests, then
    // compiled copies; the build's own uses are left out as in `callers`.
    let c = p.json(&["context", "src/greet.ts:2"]);
    let callers: Vec<&str> = c["graph"]["callers"]
        .as_array()
        .map(|a| a.iter().filter_map(|e| e["path"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        callers,
        ["src/main.ts", "test/greet.test.ts", "build/modern/main.js"],
        "{c}"
    );
}

/// In Ruby a bare word is a call, which the tags query tags unless it names
/// a local or parameter of its method: a parameter, local or instance
/// variable named like the method is no use of it (rack's `@params` and
/// `@use` were uses of `Request#params` and `Builder#use`); a call, a
/// bare call and a symbol (`send(:label)`) are.
#[test]
fn ruby_locals_and_instance_variables_named_like_a_method_are_not_its_uses() {
    let p = Project::new();
    p.write(
        "lib/circle.rb",
        "class Circle\n  def initialize\n    @label = nil\n  end\n\n  def label(label)\n    text = label + 'x'\n    @label ||= text\n  end\n\n  def twice\n    label('a') + send(:label, 'b')\n  end\nend\n",
    );
    p.write(
        "lib/main.rb",
        "require_relative 'circle'\n\nc = Circle.new\nputs c.label('x')\n",
    );
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Circle.label"]);
    let lines: Vec<String> = refs(&v).into_iter().map(|(at, _)| at).collect();
    assert_eq!(
        lines,
        ["lib/circle.rb:12", "lib/circle.rb:12", "lib/main.rb:4"],
        "{v}"
    );
    // A symbol passed to another object's method names that object's
    // method (liquid's `object.respond_to?(:evaluate)`): name only; to
    // self's, the class's own.
    p.write(
        "lib/probe.rb",
        "class Circle\n  def probe(obj)\n    obj.respond_to?(:label) && self.send(:label, 'c')\n  end\nend\n",
    );
    p.run(&["index", "--offline"]).ok();
    let probe: Vec<(String, String)> = refs(&p.json(&["refs", "Circle.label"]))
        .into_iter()
        .filter(|(at, _)| at.starts_with("lib/probe.rb"))
        .collect();
    assert_eq!(
        probe,
        pairs(&[
            ("lib/probe.rb:3", "name_only"),
            ("lib/probe.rb:3", "resolved")
        ])
    );
    // A module's methods call each other bare, however far below the
    // class around the module (a class's own bare calls resolved; the
    // module's did not), and its bare call of the class's method still
    // resolves.
    let pad = "    # pad\n".repeat(45);
    p.write(
        "lib/req.rb",
        format!(
            "module Web\n  class Request\n\n    def params\n      {{}}\n    end\n{pad}    module Helpers\n      def get\n        parse_query(params)\n      end\n\n      def parse_query(qs)\n        qs\n      end\n    end\n  end\nend\n"
        ),
    );
    p.run(&["index", "--offline"]).ok();
    let bare_call = pairs(&[("lib/req.rb:54", "resolved")]);
    assert_eq!(refs(&p.json(&["refs", "Helpers.parse_query"])), bare_call);
    assert_eq!(refs(&p.json(&["refs", "Request.params"])), bare_call);
}

/// A Go variable named like a type of its package (`rows` beside pq's
/// `type rows struct`) is the value its binding says, and a method named
/// like the type it returns (`c.Channel()` giving a `*Channel`) is no
/// package-qualified type `c.Channel`; a method expression `(*Channel).Qos`
/// is a reference of `Channel.Qos`.
const GO_SHADOW: &str = r#"package pq

type rows struct{}

func (rs *rows) Next() bool { return false }

type Connection struct{}
type Channel struct{}

func Open(x int) (*Connection, error) { return &Connection{}, nil }

func (c *Connection) Channel() (*Channel, error) { return &Channel{}, nil }

func (ch *Channel) Qos(n int) error { return nil }

type Result struct{}

func (r *Result) Next() bool { return true }

func Query() *Result { return &Result{} }
"#;

const GO_SHADOW_TEST: &str = r#"package pq

func TestA() {
	c, _ := Open(1)
	ch, _ := c.Channel()
	ch.Qos(2)
	rows := Query()
	for rows.Next() {
	}
	qos := (*Channel).Qos
	_ = qos
}
"#;

#[test]
fn go_variables_shadow_types_and_methods_named_like_types_return_them() {
    let p = Project::new();
    p.write("go.mod", "module corpus\n\ngo 1.19\n");
    p.write("pq/conn.go", GO_SHADOW);
    p.write("pq/conn_test.go", GO_SHADOW_TEST);
    p.run(&["index", "--offline"]).ok();
    // the call, and the method expression `(*Channel).Qos`
    let v = p.json(&["refs", "Channel.Qos"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("pq/conn_test.go:6", "resolved"),
            ("pq/conn_test.go:10", "resolved")
        ]),
        "{v}"
    );
    let v = p.json(&["refs", "Result.Next"]);
    assert_eq!(refs(&v), pairs(&[("pq/conn_test.go:8", "resolved")]), "{v}");
    let v = p.json(&["refs", "rows.Next"]);
    assert!(!refs(&v).iter().any(|(_, how)| how == "resolved"), "{v}");
}

/// A Go table-driven test's cases are an anonymous struct type: `tc.r` in
/// `for _, tc := range cases` (also `cases[i].r`, a map of cases, `tc :=
/// tc` before a closure, `var tc struct{…}`) is the field's type; and a
/// chain rooted in a constructor call (`NewRouter().NewRoute().Path(…)`)
/// is what its last call returns, not what the constructor's name says.
const GO_ROUTE: &str = r#"package mux

type Router struct{ routes []*Route }

type Route struct {
	name   string
	regexp *routeRegexp
}

type routeRegexp struct{ template string }

func (r *routeRegexp) Match(s string) bool { return r.template == s }

func NewRouter() *Router { return &Router{} }

func (r *Router) NewRoute() *Route { return &Route{} }

func (r *Router) Name(n string) *Router { return r }

func (r *Route) Path(tpl string) *Route { return r }

func (r *Route) Name(n string) *Route { r.name = n; return r }
"#;

const GO_ROUTE_TEST: &str = r#"package mux

import "testing"

func TestRoutes(t *testing.T) {
	cases := []struct {
		title string
		route *Route
	}{}
	for _, c := range cases {
		c.route.Name("a")
	}
	for i := range cases {
		cases[i].route.Name("b")
	}
	tests := map[string]struct {
		a, route *Route
	}{}
	for name, tc := range tests {
		tc := tc
		t.Run(name, func(t *testing.T) {
			tc.route.regexp.Match("x")
		})
	}
	var one struct{ route *Route }
	one.route.Name("c")
	route := NewRouter().NewRoute().Path("/x")
	route.Name("d")
	f := route.Name
	f("e")
}
"#;

#[test]
fn go_anonymous_struct_fields_and_chains_from_a_constructor() {
    let p = Project::new();
    p.write("go.mod", "module corpus\n\ngo 1.19\n");
    p.write("mux/route.go", GO_ROUTE);
    p.write("mux/route_test.go", GO_ROUTE_TEST);
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Route.Name"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("mux/route_test.go:11", "resolved"),
            ("mux/route_test.go:14", "resolved"),
            ("mux/route_test.go:26", "resolved"),
            ("mux/route_test.go:28", "resolved"),
            ("mux/route_test.go:29", "resolved")
        ]),
        "{v}"
    );
    let v = p.json(&["refs", "routeRegexp.Match"]);
    assert_eq!(
        refs(&v),
        pairs(&[("mux/route_test.go:22", "resolved")]),
        "{v}"
    );
    // `Router.Name` is no method of what the chain gives
    let v = p.json(&["refs", "Router.Name"]);
    assert!(!refs(&v).iter().any(|(_, how)| how == "resolved"), "{v}");
}

/// A Go value received from a channel (`m := <-ch`, `m, ok := <-h.in`,
/// `case m := <-h.out:`, `for m := range in`) is the channel's element;
/// `for i := range xs` over a slice is an index, not an element.
const GO_HUB: &str = r#"package hub

type Message struct{ body string }

func (m *Message) Ack() {}

type Hub struct {
	in  chan *Message
	out <-chan *Message
}

func (h *Hub) Run(more <-chan *Message) {
	ch := make(chan *Message, 1)
	a := <-ch
	a.Ack()
	b, ok := <-h.in
	_ = ok
	b.Ack()
	select {
	case c := <-h.out:
		c.Ack()
	}
	for d := range more {
		d.Ack()
	}
	xs := make([]*Message, 0, 4)
	for e := range xs {
		e.Ack()
	}
}
"#;

#[test]
fn go_values_received_from_channels_are_their_elements() {
    let p = Project::new();
    p.write("go.mod", "module corpus\n\ngo 1.19\n");
    p.write("hub/hub.go", GO_HUB);
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Message.Ack"]);
    let resolved: Vec<_> = refs(&v)
        .into_iter()
        .filter(|(_, how)| how == "resolved")
        .collect();
    assert_eq!(
        resolved,
        pairs(&[
            ("hub/hub.go:15", "resolved"),
            ("hub/hub.go:18", "resolved"),
            ("hub/hub.go:21", "resolved"),
            ("hub/hub.go:24", "resolved")
        ]),
        "{v}"
    );
}

/// A function named in a Lua comment (`--`) is not a use of it; the real
/// uses are (penlight listed `-- it will use tablex.deepcompare.` as a
/// resolved reference).
#[test]
fn lua_comments_are_not_references() {
    let p = Project::new();
    p.write(
        "pl/tablex.lua",
        "local tablex = {}\n\nfunction tablex.deepcompare(a, b)\n    return a == b\nend\n\nreturn tablex\n",
    )
    .write(
        "pl/map.lua",
        "local tablex = require 'pl.tablex'\n-- it will use tablex.deepcompare for tables\nlocal deepcompare = tablex.deepcompare\nlocal s = \"-- not a comment\" .. tostring(tablex.deepcompare)\n",
    );
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "tablex.deepcompare"]);
    let lines: Vec<String> = refs(&v).into_iter().map(|(l, _)| l).collect();
    assert!(!lines.contains(&"pl/map.lua:2".to_string()), "{v}");
    assert!(lines.contains(&"pl/map.lua:3".to_string()), "{v}");
    assert!(lines.contains(&"pl/map.lua:4".to_string()), "{v}");
}

/// An Elixir function's later clauses (`def f(x) when …`) and its `@spec`
/// head are not calls of it: `callers` lists only the real calls (Mix's
/// `in_project` listed its own guarded clauses and typespec).
#[test]
fn elixir_clause_heads_and_specs_are_not_callers() {
    let p = Project::new();
    p.write(
        "lib/project.ex",
        "defmodule App.Project do\n  @spec in_project(atom, keyword) :: term when term: any\n  def in_project(app, opts \\\\ [])\n\n  def in_project(app, opts) when is_atom(app) do\n    load(app, opts)\n  end\n\n  def in_project(app, opts) when is_binary(app) do\n    in_project(String.to_atom(app), opts)\n  end\n\n  defp load(app, _opts), do: app\nend\n",
    );
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["callers", "App.Project.in_project"]);
    let lines: Vec<u64> = v["edges"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .filter_map(|e| e["line"].as_u64())
        .collect();
    assert_eq!(lines, vec![10], "{v}");
}

/// Java: a local's declared type wins over its initializer's
/// (`CertificatePinner p = new CertificatePinner.Builder()….build()`), and
/// a receiver declared with a library's class (an imported
/// `AtomicInteger`, `java.lang`'s `String`) is no project method's: as in
/// okhttp, where `refs Cache.get` listed 257 name-only candidates.
#[test]
fn java_declared_types_bind_and_library_classes_are_left_out() {
    let p = Project::new();
    p.write(
        "src/ok/CertificatePinner.java",
        "package ok;\n\npublic final class CertificatePinner {\n  public void check(String host) {\n  }\n\n  public static final class Builder {\n    public Builder add(String p) { return this; }\n    public CertificatePinner build() { return new CertificatePinner(); }\n  }\n}\n",
    )
    .write(
        "src/ok/Cache.java",
        "package ok;\n\npublic final class Cache {\n  public String get(String key) { return key; }\n\n  final class Internal {\n    String lookup(String k) { return Cache.this.get(k); }\n  }\n}\n",
    )
    .write(
        "src/ok/Server.java",
        "package ok;\n\nimport java.util.concurrent.atomic.AtomicInteger;\n\npublic final class Server {\n  private final AtomicInteger requestCount = new AtomicInteger();\n\n  public int count() {\n    return requestCount.get();\n  }\n\n  public void pin() {\n    CertificatePinner pinner = new CertificatePinner.Builder()\n        .add(\"x\")\n        .build();\n    pinner.check(\"example.com\");\n  }\n\n  public String cached(Cache cache, T other, String s) {\n    other.get(\"t\");\n    s.get(0);\n    return cache.get(\"k\");\n  }\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "CertificatePinner.check"]),
        ["src/ok/Server.java:16 resolved"]
    );
    let v = p.json(&["refs", "Cache.get"]);
    assert_eq!(
        refs(&v),
        pairs(&[
            ("src/ok/Cache.java:7", "resolved"),
            ("src/ok/Server.java:20", "name_only"),
            ("src/ok/Server.java:22", "resolved")
        ]),
        "a type parameter may be a project class; AtomicInteger and String are not; \
         an inner class's `Cache.this.get` is the outer instance's: {v}"
    );
    // A page past the end of a list that has results says so.
    let r = p.run(&["refs", "Cache.get", "--offset", "99"]);
    assert_eq!(r.code(), 1, "{r}");
    assert!(
        r.stderr().contains("--offset 99 is past the last of them"),
        "{r}"
    );
    let m = crate::mcp::Mcp::start(&p, crate::mcp::Era::Modern);
    for tool in ["find_references", "callers"] {
        let v = m.ok(tool, serde_json::json!({"name": "Cache.get", "offset": 99}));
        let hint = v["hint"].as_str().unwrap_or_default();
        assert!(
            hint.contains("offset 99 is past the last of the"),
            "{tool}: {v}"
        );
    }
}

/// Overloads are told apart by their number of arguments: the getter's
/// call `s.prettyPrint()` is no caller of the setter
/// `prettyPrint(boolean)` (jsoup's `context` on the setter listed the
/// getter's calls).
#[test]
fn java_overloads_are_told_apart_by_their_arguments() {
    let p = Project::new();
    p.write(
        "src/ok/Settings.java",
        "package ok;\n\npublic class Settings {\n  private boolean pretty;\n  public boolean prettyPrint() { return pretty; }\n  public Settings prettyPrint(boolean p) { pretty = p; return this; }\n}\n",
    )
    .write(
        "src/ok/User.java",
        "package ok;\n\npublic class User {\n  void use(Settings s) {\n    if (s.prettyPrint()) {}\n    s.prettyPrint(false);\n  }\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    for (line, caller) in [(6, 6), (5, 5)] {
        let v = p.json(&["context", "src/ok/Settings.java", &line.to_string()]);
        let callers: Vec<(String, u64)> = v["graph"]["callers"]
            .as_array()
            .cloned()
            .unwrap_or_default()
            .iter()
            .map(|c| {
                (
                    c["path"].as_str().unwrap_or("").to_string(),
                    c["line"].as_u64().unwrap_or(0),
                )
            })
            .collect();
        assert_eq!(callers, [("src/ok/User.java".to_string(), caller)], "{v}");
    }
    // Asked by name, both overloads are the targets: both calls resolve.
    assert_eq!(
        edge_list(&p, &["callers", "Settings.prettyPrint"]),
        ["src/ok/User.java:5 resolved", "src/ok/User.java:6 resolved"]
    );
}

/// A qualifier names the definition: C++'s `dist_sink<Mutex>::sink_it_`
/// (template arguments and all) is `dist_sink`'s, not another class's; a
/// Lua module bound by `require` reaches its table's function, another
/// table's function of the same name is left out (as in spdlog and
/// penlight).
#[test]
fn cpp_template_qualifiers_and_lua_required_tables_resolve() {
    let p = Project::new();
    p.write(
        "sinks.h",
        "namespace spdlog {\ntemplate<typename Mutex>\nclass dist_sink\n{\nprotected:\n    void sink_it_(const msg &m)\n    {\n    }\n};\n\ntemplate<typename Mutex>\nclass dup_filter_sink : public dist_sink<Mutex>\n{\nprotected:\n    void sink_it_(const msg &m)\n    {\n        dist_sink<Mutex>::sink_it_(m);\n    }\n};\n\nclass logger\n{\nprotected:\n    virtual void sink_it_(const msg &m);\n};\n}\n",
    )
    .write(
        "pl/stringx.lua",
        "local stringx = {}\n\nfunction stringx.split(s, re)\n    return {s}\nend\n\nreturn stringx\n",
    )
    .write(
        "pl/utils.lua",
        "local utils = {}\n\nfunction utils.split(s, re)\n    return {s}\nend\n\nreturn utils\n",
    )
    .write(
        "pl/Date.lua",
        "local stringx = require 'pl.stringx'\nlocal utils = require('pl.utils')\n\nlocal function parse(s)\n    local a = stringx.split(s)\n    local b = utils.split(s)\n    return a, b\nend\n\nlocal x, split = 1, utils.split\nlocal c = split('a')\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "dist_sink::sink_it_"]),
        ["sinks.h:17 resolved"]
    );
    assert!(edge_list(&p, &["callers", "logger::sink_it_"]).is_empty());
    assert_eq!(
        edge_list(&p, &["callers", "stringx.split"]),
        ["pl/Date.lua:5 resolved"]
    );
    // A bare call through a local alias is its table's.
    assert_eq!(
        edge_list(&p, &["callers", "utils.split"]),
        ["pl/Date.lua:6 resolved", "pl/Date.lua:11 resolved"]
    );
}

/// A literal's method (`"".join(parts)`) names no project definition in
/// `callees`, even when the project has exactly one method of that name.
#[test]
fn callees_of_a_literal_name_no_project_definition() {
    let p = Project::new();
    p.write(
        "text.py",
        "class Text:\n    def join(self, lines):\n        return lines\n\n\ndef render(parts):\n    out = \"\".join(parts)\n    t = Text()\n    return t.join(out)\n",
    );
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["callees", "render"]);
    let joins: Vec<(u64, Option<&str>)> = v["edges"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|e| e["to"].as_str().is_some_and(|t| t.ends_with("join")))
        .map(|e| (e["line"].as_u64().unwrap_or(0), e["defined_at"].as_str()))
        .collect();
    assert_eq!(joins, [(9, Some("text.py:2")), (7, None)], "{v}");
}

/// C++: casts and `std::` calls are no callees, and a string's `empty()`
/// on an untyped receiver is not placed at the project's one `empty`
/// (CLI11's `callees App::parse` listed `static_cast`, `std::move` and
/// `Option::empty`).
#[test]
fn cpp_callees_leave_out_casts_and_the_standard_library() {
    let p = Project::new();
    p.write(
        "app.hpp",
        "#include <string>\n#include <utility>\n\nclass Option {\n  public:\n    bool empty() const { return true; }\n};\n\nclass App {\n  public:\n    void parse(std::string line) {\n        if(line.empty()) { return; }\n        auto n = static_cast<int>(line.size());\n        run(std::move(line), n);\n    }\n    void run(std::string line, int n) {}\n};\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        callee_list(&p, "App::parse", "defined_at"),
        ["App::run app.hpp:16", "empty ", "size "]
    );
}

/// An everyday method of the language's own collections called on an
/// untyped receiver is not placed at the project's one method of that
/// name (werkzeug's `trusted_hosts.append(…)` had named
/// `ImmutableListMixin.append`); a call on `self` still is.
#[test]
fn builtin_methods_on_untyped_receivers_name_no_definition() {
    let p = Project::new();
    p.write(
        "pkg/mixins.py",
        "class ImmutableList:\n    def append(self, item):\n        raise TypeError(item)\n\n    def extend(self, items):\n        self.append(items)\n",
    );
    p.write(
        "pkg/serve.py",
        "def run_simple(hosts):\n    found = []\n    found.append(hosts)\n    return found\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(callee_list(&p, "run_simple", "defined_at"), ["append "]);
    assert_eq!(
        callee_list(&p, "ImmutableList.extend", "defined_at"),
        ["ImmutableList.append pkg/mixins.py:2"]
    );
}

/// A JavaScript file that requires the target's module (`var Layer =
/// require('./layer')`) binds it as `Layer`: a call on a lowercase
/// `layer` object is still a candidate of the prototype method (express's
/// `callers Layer.handle_request` had answered nothing).
#[test]
fn a_js_receiver_named_like_a_required_file_is_no_module() {
    let p = Project::new();
    p.write(
        "lib/layer.js",
        "module.exports = Layer;\n\nfunction Layer(path) {\n  this.path = path;\n}\n\nLayer.prototype.handle_request = function handle(req, next) {\n  return next(req);\n};\n",
    );
    p.write(
        "lib/index.js",
        "var Layer = require('./layer');\n\nfunction handle(stack, req) {\n  var layer = stack[0];\n  return layer.handle_request(req, handle);\n}\n\nmodule.exports = handle;\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "Layer.handle_request"]),
        ["lib/index.js:5 name_only"]
    );
}

/// Live code's name-only call is not placed in a test file (logrus's
/// `entry.Logger.Out.Write(…)` had named `logrus_test.go`'s
/// `channelWriter.Write`); a test's own call still is.
#[test]
fn live_code_is_not_pointed_at_a_test_helper() {
    let p = Project::new();
    p.write(
        "entry.go",
        "package logrus\n\nfunc (entry *Entry) write(b []byte) {\n\tentry.Logger.Out.Write(b)\n}\n",
    );
    p.write(
        "logrus_test.go",
        "package logrus\n\ntype channelWriter chan []byte\n\nfunc (cw channelWriter) Write(p []byte) (int, error) {\n\treturn len(p), nil\n}\n\nfunc TestWrite(t *testing.T) {\n\tvar w channelWriter\n\tw.Write(nil)\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(callee_list(&p, "Entry.write", "defined_at"), ["Write "]);
    let at = callee_list(&p, "TestWrite", "defined_at");
    assert!(at.iter().any(|a| a.ends_with("logrus_test.go:5")), "{at:?}");
}

/// A Java call whose number of arguments fits none of the target's
/// overloads is no candidate (capacitor's `callback.invoke(origin, true,
/// false)` had been a name-only caller of the 2-parameter
/// `PluginHandle.invoke`).
#[test]
fn a_java_call_no_overload_fits_is_no_candidate() {
    let p = Project::new();
    p.write(
        "src/PluginHandle.java",
        "public class PluginHandle {\n    public Object invoke(String methodName, PluginCall call) {\n        return null;\n    }\n}\n",
    );
    p.write(
        "src/Client.java",
        "public class Client {\n    void onPrompt(Callback callback, String origin) {\n        callback.invoke(origin, true, false);\n    }\n\n    void run(Handle h, PluginCall call) {\n        h.invoke(\"m\", call);\n    }\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "PluginHandle.invoke"]),
        ["src/Client.java:7 name_only"]
    );
}

/// `super().m()` in a class outside the target's family reaches its own
/// ancestor's `m` (click's `super().invoke(ctx)` in `MultiCommand` is
/// `Command.invoke`): no candidate of `Context.invoke`.
#[test]
fn super_in_an_unrelated_class_is_its_ancestors_call() {
    let p = Project::new();
    p.write(
        "pkg/core.py",
        "class Context:\n    def invoke(self, cb):\n        return cb()\n\n\nclass Command:\n    def invoke(self, ctx):\n        return ctx\n\n\nclass MultiCommand(Command):\n    def invoke(self, ctx):\n        return super().invoke(ctx)\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert!(edge_list(&p, &["callers", "Context.invoke"]).is_empty());
    assert_eq!(
        edge_list(&p, &["callers", "Command.invoke"]),
        ["pkg/core.py:13 resolved"]
    );
}

/// A Python method's name assigned or read through (`self.request = …`,
/// `r.request.body`) is an attribute of some object, no use of the
/// method: requests' `refs Session.request` had 57 name-only candidates,
/// most of them such; a bare read (`s.request`, a bound method passed on)
/// and a call stay candidates.
#[test]
fn an_attribute_assigned_or_read_through_is_no_use_of_a_method() {
    let p = Project::new();
    p.write(
        "pkg/api.py",
        "class Session:\n    def request(self, method):\n        return method\n\n\nclass Failure(IOError):\n    def __init__(self, request=None):\n        self.request = request\n\n\ndef body_of(r):\n    return r.request.body\n\n\ndef hook(s):\n    return s.request\n\n\ndef run(s):\n    return s.request(\"GET\")\n",
    );
    p.run(&["index", "--offline"]).ok();
    let v = p.json(&["refs", "Session.request"]);
    let name_only: Vec<u64> = v["hits"]
        .as_array()
        .map(|hs| {
            hs.iter()
                .filter(|h| h["resolution"] == "name_only")
                .filter_map(|h| h["line"].as_u64())
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(name_only, [16, 20], "{v}");
}

/// `super().__init__(…)` in a class whose chain ends at a built-in class
/// (`type`, `dict`, `ABCMeta`) calls that class's, no project `__init__`
/// (marshmallow's `SchemaMeta(ABCMeta)` and a test's `PointDict(dict)`
/// had been name-only callers of `ValidationError.__init__`); a mixin's,
/// whose chain ends at `object`, may reach it along the MRO and stays a
/// name-only candidate.
#[test]
fn super_reaching_a_builtin_class_is_no_candidate() {
    let p = Project::new();
    p.write(
        "pkg/errors.py",
        "class ValidationError(Exception):\n    def __init__(self, message):\n        self.message = message\n",
    );
    p.write(
        "pkg/meta.py",
        "from abc import ABCMeta\n\n\nclass Meta(ABCMeta):\n    def __init__(cls, name, bases, attrs):\n        super().__init__(name, bases, attrs)\n\n\nclass SubMeta(Meta):\n    pass\n\n\nclass PointDict(dict):\n    def __init__(self, x):\n        super().__init__({\"x\": x})\n\n\nclass Mixin:\n    def __init__(self, *args):\n        super().__init__(*args)\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "ValidationError.__init__"]),
        ["pkg/meta.py:20 name_only"]
    );
}

/// Go: a receiver typed by another package's type (a `time.Time` field)
/// calls that type's method, no project definition of the name
/// (logrus's `entry.Time.Format(…)` had been name-only callers of
/// `Formatter.Format`).
#[test]
fn a_go_receiver_of_a_foreign_type_is_no_candidate() {
    let p = Project::new();
    p.write(
        "formatter.go",
        "package logrus\n\nimport \"time\"\n\ntype Formatter interface {\n\tFormat(*Entry) ([]byte, error)\n}\n\ntype Entry struct {\n\tTime time.Time\n\tFormatter Formatter\n}\n\nfunc (entry *Entry) Bytes() string {\n\tentry.Formatter.Format(entry)\n\treturn entry.Time.Format(\"2006\")\n}\n",
    );
    // Another package of the project is no foreign one.
    p.write(
        "router/router.go",
        "package router\n\ntype Router struct{}\n\nfunc (r *Router) Handle() {}\n",
    );
    p.write(
        "server/server.go",
        "package server\n\nimport \"example.com/app/router\"\n\ntype Server struct {\n\tr *router.Router\n}\n\nfunc (s *Server) Run() {\n\ts.r.Handle()\n}\n",
    );
    p.run(&["index", "--offline"]).ok();
    assert_eq!(
        edge_list(&p, &["callers", "Formatter.Format"]),
        ["formatter.go:15 resolved"]
    );
    let edges = edge_list(&p, &["callers", "Router.Handle"]);
    assert!(
        edges.iter().any(|e| e.starts_with("server/server.go:10 ")),
        "{edges:?}"
    );
}
