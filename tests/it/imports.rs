//! `imports` (CLI and MCP): a real project on disk with files in each
//! language importing each other, indexed by the real binary; both
//! directions of the graph, edits, renames and deletes re-indexed, and bad
//! input.

use serde_json::{Value, json};

use crate::common::Project;
use crate::mcp::{Era, Mcp, error_text, wait_indexed};

const FILES: &[(&str, &str)] = &[
    // Python: a src/ root, absolute and relative imports.
    ("py/src/shop/__init__.py", "from .models import Order\n"),
    (
        "py/src/shop/models.py",
        "import os\nfrom . import util\n\nclass Order:\n    pass\n",
    ),
    ("py/src/shop/util.py", "def helper():\n    return 1\n"),
    (
        "py/src/shop/views.py",
        "from shop.models import Order\nfrom shop import util as u\n",
    ),
    // JS/TS: a directory import (index.ts), a require with an extension, a package.
    (
        "web/app.ts",
        "import { a } from \"./lib\";\nconst u = require(\"./util.js\");\nimport React from \"react\";\n",
    ),
    ("web/lib/index.ts", "export const a = 1;\n"),
    ("web/util.js", "module.exports = {};\n"),
    // Rust: mod declarations, use crate:: and use super::.
    ("rs/src/lib.rs", "mod store;\npub mod service;\n"),
    ("rs/src/store/mod.rs", "pub mod read;\npub struct Store;\n"),
    ("rs/src/store/read.rs", "use super::Store;\npub fn r() {}\n"),
    (
        "rs/src/service.rs",
        "use crate::store::read::r;\nuse std::fmt;\npub fn s() {}\n",
    ),
    // Go: a module with go.mod, a package import, the standard library.
    ("go/go.mod", "module example.com/shop\n\ngo 1.22\n"),
    (
        "go/main.go",
        "package main\n\nimport (\n\t\"fmt\"\n\t\"example.com/shop/util\"\n)\n\nfunc main() { fmt.Println(util.X) }\n",
    ),
    ("go/util/util.go", "package util\n\nconst X = 1\n"),
    ("go/util/util_test.go", "package util\n"),
    // Java packages.
    (
        "java/src/com/acme/App.java",
        "package com.acme;\nimport com.acme.model.User;\nimport java.util.List;\npublic class App {}\n",
    ),
    (
        "java/src/com/acme/model/User.java",
        "package com.acme.model;\npublic class User {}\n",
    ),
    // C includes, quoted and system.
    (
        "c/main.c",
        "#include <stdio.h>\n#include \"util/str.h\"\nint main(void) { return 0; }\n",
    ),
    ("c/util/str.h", "int len(const char *s);\n"),
    (
        "c/util/str.c",
        "#include \"str.h\"\nint len(const char *s) { return 0; }\n",
    ),
    // Ruby: a load-path require, require_relative, the standard library.
    (
        "rb/lib/shop.rb",
        "require 'json'\nrequire_relative 'shop/cart'\n",
    ),
    (
        "rb/lib/shop/cart.rb",
        "require 'shop/item'\nclass Cart; end\n",
    ),
    ("rb/lib/shop/item.rb", "class Item; end\n"),
    // PHP: a PSR-4 class (namespace prefix mapped to src/), a vendor's.
    (
        "php/src/Shop.php",
        "<?php\nnamespace Acme;\n\nuse Acme\\Model\\User;\nuse Psr\\Log\\LoggerInterface;\n\nclass Shop {}\n",
    ),
    (
        "php/src/Model/User.php",
        "<?php\nnamespace Acme\\Model;\n\nclass User {}\n",
    ),
    // Kotlin: a source set without the package's directories.
    (
        "kt/src/main/kotlin/Main.kt",
        "package com.acme.app\n\nimport com.acme.app.model.Order\nimport kotlinx.coroutines.launch\nimport com.acme.app.model.*\n\nfun main() {}\n",
    ),
    (
        "kt/src/main/kotlin/model/Order.kt",
        "package com.acme.app.model\n\nclass Order\n",
    ),
    // The same package in another source set, whose directories spell
    // none of it.
    (
        "kt/common/src/Totals.kt",
        "package com.acme.app.model\n\nfun total(o: Order): Int = 1\n",
    ),
    ("lonely.py", "x = 1\n"),
    (".ignore", "ignored.py\n"),
    ("ignored.py", "import os\n"),
];

fn project() -> Project {
    let p = Project::new();
    for (path, text) in FILES {
        p.write(path, text);
    }
    p.run(&["index"]).ok();
    p
}

/// `(module, resolved or "")` of every import.
fn resolved(v: &Value) -> Vec<(String, String)> {
    v["imports"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|e| {
                    (
                        e["module"].as_str().unwrap_or("").to_string(),
                        e["resolved"].as_str().unwrap_or("").to_string(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `(module, resolved)` pairs listed in line order, in the order answers
/// give them: the project's own imports first, then the others, each in
/// line order.
fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = list
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    out.sort_by_key(|(_, r)| r.is_empty());
    out
}

/// The paths of the files that import it, in order.
fn importers(v: &Value) -> Vec<String> {
    let mut out: Vec<String> = v["imported_by"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|i| i["path"].as_str().unwrap_or("").to_string())
                .collect()
        })
        .unwrap_or_default();
    out.dedup();
    out
}

fn imports_json(p: &Project, path: &str) -> Value {
    p.json(&["imports", path])
}

/// A file, its imports as `(module, resolved)`, the files that import it.
type Case = (
    &'static str,
    &'static [(&'static str, &'static str)],
    &'static [&'static str],
);

#[test]
fn imports_cli_resolves_both_directions_in_every_language() {
    let p = project();
    let cases: &[Case] = &[
        (
            "py/src/shop/views.py",
            &[
                ("shop.models", "py/src/shop/models.py"),
                ("shop", "py/src/shop/util.py"),
            ],
            &[],
        ),
        (
            "py/src/shop/models.py",
            &[("os", ""), (".", "py/src/shop/util.py")],
            &["py/src/shop/__init__.py", "py/src/shop/views.py"],
        ),
        (
            "py/src/shop/util.py",
            &[],
            &["py/src/shop/models.py", "py/src/shop/views.py"],
        ),
        (
            "web/app.ts",
            &[
                ("./lib", "web/lib/index.ts"),
                ("./util.js", "web/util.js"),
                ("react", ""),
            ],
            &[],
        ),
        ("web/lib/index.ts", &[], &["web/app.ts"]),
        ("web/util.js", &[], &["web/app.ts"]),
        (
            "rs/src/lib.rs",
            &[
                ("store", "rs/src/store/mod.rs"),
                ("service", "rs/src/service.rs"),
            ],
            &[],
        ),
        (
            "rs/src/store/mod.rs",
            &[("read", "rs/src/store/read.rs")],
            &["rs/src/lib.rs", "rs/src/store/read.rs"],
        ),
        (
            "rs/src/store/read.rs",
            &[("super", "rs/src/store/mod.rs")],
            &["rs/src/service.rs", "rs/src/store/mod.rs"],
        ),
        (
            "rs/src/service.rs",
            &[("crate::store::read", "rs/src/store/read.rs"), ("std", "")],
            &["rs/src/lib.rs"],
        ),
        (
            "go/main.go",
            &[("fmt", ""), ("example.com/shop/util", "go/util")],
            &[],
        ),
        ("go/util/util.go", &[], &["go/main.go"]),
        (
            "java/src/com/acme/App.java",
            &[
                ("com.acme.model.User", "java/src/com/acme/model/User.java"),
                ("java.util.List", ""),
            ],
            &[],
        ),
        (
            "java/src/com/acme/model/User.java",
            &[],
            &["java/src/com/acme/App.java"],
        ),
        (
            "c/main.c",
            &[("stdio.h", ""), ("util/str.h", "c/util/str.h")],
            &[],
        ),
        ("c/util/str.h", &[], &["c/main.c", "c/util/str.c"]),
        (
            "rb/lib/shop.rb",
            &[("json", ""), ("shop/cart", "rb/lib/shop/cart.rb")],
            &[],
        ),
        (
            "rb/lib/shop/cart.rb",
            &[("shop/item", "rb/lib/shop/item.rb")],
            &["rb/lib/shop.rb"],
        ),
        ("rb/lib/shop/item.rb", &[], &["rb/lib/shop/cart.rb"]),
        (
            "php/src/Shop.php",
            &[
                ("Acme\\Model\\User", "php/src/Model/User.php"),
                ("Psr\\Log\\LoggerInterface", ""),
            ],
            &[],
        ),
        ("php/src/Model/User.php", &[], &["php/src/Shop.php"]),
        (
            "kt/src/main/kotlin/Main.kt",
            &[
                (
                    "com.acme.app.model.Order",
                    "kt/src/main/kotlin/model/Order.kt",
                ),
                ("kotlinx.coroutines.launch", ""),
                // A package by the files that declare it.
                ("com.acme.app.model", "kt/common/src"),
            ],
            &[],
        ),
        (
            "kt/src/main/kotlin/model/Order.kt",
            &[],
            &["kt/src/main/kotlin/Main.kt"],
        ),
        (
            "kt/common/src/Totals.kt",
            &[],
            &["kt/src/main/kotlin/Main.kt"],
        ),
    ];
    for (path, want_imports, want_importers) in cases {
        let v = imports_json(&p, path);
        assert_eq!(v["path"], *path, "{v}");
        assert_eq!(resolved(&v), pairs(want_imports), "{path} imports: {v}");
        assert_eq!(importers(&v), *want_importers, "{path} imported by: {v}");
        assert_eq!(v["total_imports"], want_imports.len(), "{v}");
    }
    // A Kotlin package's functions by its name, wherever its files are.
    let v = p.json(&["symbol", "com.acme.app.model.total"]);
    assert_eq!(v["hits"][0]["path"], "kt/common/src/Totals.kt", "{v}");
    // A Go package resolves to its directory and its non-test files.
    let v = imports_json(&p, "go/main.go");
    assert_eq!(
        v["imports"][0]["resolved_files"],
        json!(["go/util/util.go"]),
        "{v}"
    );
    // Names and lines as written.
    let v = imports_json(&p, "py/src/shop/views.py");
    let util = v["imports"]
        .as_array()
        .and_then(|a| a.iter().find(|e| e["names"] == json!(["util as u"])))
        .unwrap_or_else(|| panic!("{v}"));
    assert_eq!(util["line"], 2, "{v}");
    assert_eq!(util["kind"], "from", "{v}");
    // One direction only.
    let v = p.json(&["imports", "c/util/str.h", "--direction", "imported-by"]);
    assert_eq!(v["imports"], json!([]), "{v}");
    assert_eq!(importers(&v).len(), 2, "{v}");
    // Paging: one importer per page.
    let v = p.json(&["imports", "c/util/str.h", "-n", "1", "--offset", "1"]);
    assert_eq!(importers(&v), ["c/util/str.c"], "{v}");
    assert_eq!(v["total_imported_by"], 2, "{v}");
    let v = p.json(&["imports", "c/util/str.h", "-n", "1"]);
    assert_eq!(v["truncated"], true, "{v}");
    // Text: the resolved file after an arrow, importers as path:line.
    let out = p.run(&["imports", "web/app.ts"]).ok().stdout();
    assert!(out.contains("./lib [a] -> web/lib/index.ts"), "{out}");
    // The standard library's and third parties' on one line, after the
    // project's own.
    let outside = out
        .lines()
        .find(|l| l.trim_start().starts_with("not in the project: "))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(outside.contains("react [default as React]"), "{out}");
    assert!(
        out.find("-> web/lib/index.ts") < out.find("not in the project: "),
        "{out}"
    );
    let out = p.run(&["imports", "web/util.js"]).ok().stdout();
    assert!(out.contains("web/app.ts:2  ./util.js"), "{out}");
    // Nothing either way: exit 1.
    let r = p.run(&["imports", "lonely.py"]);
    assert_eq!(r.code(), 1, "{r}");
}

/// No import row may outlive its file in the index.
fn dangling_rows(p: &Project) -> i64 {
    let conn = rusqlite::Connection::open(p.path(".repo_search/index.db")).expect("open index");
    conn.query_row(
        "SELECT count(*) FROM imports WHERE file_id NOT IN (SELECT id FROM files)",
        [],
        |r| r.get(0),
    )
    .expect("count")
}

#[test]
fn imports_follow_edits_renames_and_deletes() {
    let p = project();
    // An edit that removes an import: gone from both directions.
    p.write("py/src/shop/views.py", "from shop.models import Order\n");
    p.run(&["index"]).ok();
    let v = imports_json(&p, "py/src/shop/views.py");
    assert_eq!(
        resolved(&v),
        pairs(&[("shop.models", "py/src/shop/models.py")]),
        "{v}"
    );
    let v = imports_json(&p, "py/src/shop/util.py");
    assert_eq!(importers(&v), ["py/src/shop/models.py"], "{v}");

    // A rename of the imported file: the old name no longer resolves, the
    // new file is not imported by anyone, the old path is gone.
    let text = std::fs::read_to_string(p.path("py/src/shop/models.py")).expect("read");
    p.write("py/src/shop/orders.py", text);
    p.remove("py/src/shop/models.py");
    p.run(&["index"]).ok();
    let v = imports_json(&p, "py/src/shop/views.py");
    assert_eq!(resolved(&v), pairs(&[("shop.models", "")]), "{v}");
    let v = imports_json(&p, "py/src/shop/orders.py");
    assert_eq!(importers(&v), Vec::<String>::new(), "{v}");
    assert_eq!(
        resolved(&v),
        pairs(&[("os", ""), (".", "py/src/shop/util.py")]),
        "the moved file keeps its own imports: {v}"
    );
    let v = imports_json(&p, "py/src/shop/util.py");
    assert_eq!(importers(&v), ["py/src/shop/orders.py"], "{v}");

    // A deleted importer leaves its target without that edge.
    p.remove("c/main.c");
    p.run(&["index"]).ok();
    let v = imports_json(&p, "c/util/str.h");
    assert_eq!(importers(&v), ["c/util/str.c"], "{v}");
    // A deleted target: its importer's include no longer resolves.
    p.remove("c/util/str.h");
    p.run(&["index"]).ok();
    let v = imports_json(&p, "c/util/str.c");
    assert_eq!(resolved(&v), pairs(&[("str.h", "")]), "{v}");
    assert_eq!(dangling_rows(&p), 0);

    // The old paths are not in the index any more.
    let r = p.run(&["imports", "py/src/shop/models.py"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("code: NOT_FOUND"), "{r}");
}

#[test]
fn imports_cli_bad_input() {
    let p = project();
    for (args, code) in [
        (&["imports", "../outside.py"][..], "PATH_OUTSIDE_ROOT"),
        (&["imports", "/etc/passwd"][..], "PATH_OUTSIDE_ROOT"),
        (&["imports", "no/such.py"][..], "NOT_FOUND"),
        (&["imports", "ignored.py"][..], "NOT_FOUND"),
    ] {
        let r = p.run(args);
        assert_eq!(r.code(), 2, "{r}");
        assert!(r.stderr().contains(&format!("code: {code}")), "{r}");
        assert!(r.stderr().contains("hint: "), "{r}");
        assert!(r.stdout().is_empty(), "{r}");
    }
    let r = p.run(&["imports", "py"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("is a directory"), "{r}");
    let r = p.run(&["imports", "lonely.py", "--direction", "sideways"]);
    assert_eq!(r.code(), 2, "{r}");
    // Nothing was written by the bad calls: the index still answers.
    let v = imports_json(&p, "web/util.js");
    assert_eq!(importers(&v), ["web/app.ts"], "{v}");
}

#[test]
fn imports_mcp_both_directions_and_errors() {
    let p = project();
    let m = Mcp::start(&p, Era::Modern);
    // The indexed files, `go/go.mod` among them (other code).
    wait_indexed(&m, 29);
    let v = m.ok("imports", json!({"path": "rs/src/store/read.rs"}));
    assert_eq!(
        resolved(&v),
        pairs(&[("super", "rs/src/store/mod.rs")]),
        "{v}"
    );
    assert_eq!(
        importers(&v),
        ["rs/src/service.rs", "rs/src/store/mod.rs"],
        "{v}"
    );
    assert_eq!(v["total_imported_by"], 2, "{v}");
    // One side only: the other is left out.
    let v = m.ok(
        "imports",
        json!({"path": "py/src/shop/models.py", "direction": "imported_by"}),
    );
    assert!(v.get("imports").is_none(), "{v}");
    assert_eq!(
        importers(&v),
        ["py/src/shop/__init__.py", "py/src/shop/views.py"],
        "{v}"
    );
    assert!(v.get("note").is_none(), "{v}");
    // A Java class's importers leave out its package's files, which need
    // no import: the answer says so, so that (0) does not read as unused.
    let v = m.ok(
        "imports",
        json!({"path": "java/src/com/acme/model/User.java", "direction": "imported_by"}),
    );
    assert!(
        v["note"]
            .as_str()
            .is_some_and(|n| n.contains("same package") && n.contains("`refs User`")),
        "{v}"
    );
    let v = m.ok(
        "imports",
        json!({"path": "java/src/com/acme/model/User.java", "direction": "imports"}),
    );
    assert!(v.get("note").is_none(), "{v}");
    let v = m.ok(
        "imports",
        json!({"path": "web/app.ts", "direction": "imports"}),
    );
    assert!(v.get("imported_by").is_none(), "{v}");
    assert_eq!(v["imports"][2]["resolved"], Value::Null, "{v}");
    // Paging: next_offset when a list goes on.
    let v = m.ok("imports", json!({"path": "c/util/str.h", "limit": 1}));
    assert_eq!(v["next_offset"], 1, "{v}");
    let v = m.ok(
        "imports",
        json!({"path": "c/util/str.h", "limit": 1, "offset": 1}),
    );
    assert_eq!(importers(&v), ["c/util/str.c"], "{v}");
    assert!(v.get("next_offset").is_none(), "{v}");
    // The text content says the same.
    let r = m
        .call("imports", json!({"path": "go/util/util.go"}))
        .expect("call");
    let text = error_text(&r);
    assert!(
        text.contains("go/main.go:5\texample.com/shop/util"),
        "{text}"
    );

    for (args, want_code) in [
        (json!({"path": "../x.py"}), "PATH_OUTSIDE_ROOT"),
        (json!({"path": "ignored.py"}), "NOT_FOUND"),
        (
            json!({"path": "py/src/shop/util.py", "direction": "up"}),
            "INVALID_ARGUMENT",
        ),
        (
            json!({"path": "py/src/shop/util.py", "limit": 0}),
            "INVALID_ARGUMENT",
        ),
    ] {
        let r = m.call("imports", args.clone()).expect("call");
        assert_eq!(r.is_error, Some(true), "{args}");
        let text = error_text(&r);
        assert!(
            text.contains(&format!("code: {want_code}")),
            "{args}: {text}"
        );
        assert!(text.contains("hint: "), "{args}: {text}");
    }
    let (_, hint) = m.tool_error("imports", json!({"path": "ignored.py"}));
    assert!(hint.contains("read_file"), "{hint}");
}

/// A file in a language whose imports the index does not read says so,
/// instead of an empty list that reads as "imports nothing".
#[test]
fn imports_of_a_language_without_import_rules_say_so() {
    let p = Project::new();
    p.write(
        "src/Client.cs",
        "using App.Http;\n\nnamespace App {\n    class Client {}\n}\n",
    )
    .write("app.py", "import os\n");
    p.run(&["index", "--offline"]).ok();
    let r = p.run(&["imports", "src/Client.cs"]);
    assert_eq!(r.code(), 1, "{r}");
    assert!(r.stderr().contains("so its imports are not listed"), "{r}");
    let v = p.json(&["imports", "app.py"]);
    assert!(v.get("note").is_none(), "{v}");
    let m = Mcp::start(&p, Era::Modern);
    wait_indexed(&m, 2);
    let r = m
        .call("imports", json!({"path": "src/Client.cs"}))
        .expect("imports");
    assert!(
        error_text(&r).contains("so its imports are not listed"),
        "{}",
        error_text(&r)
    );
    let s = r.structured_content.clone().unwrap_or_default();
    assert!(
        s["note"].as_str().is_some_and(|n| n.contains("csharp")),
        "{s}"
    );
}

/// A `use` of the file's own items (`use self::Entry::*;` inside a
/// function, an inline module's) is no dependency of the file: `imports`
/// leaves it out (QA: 13 of http's `header/map.rs`'s 18 rows).
#[test]
fn a_files_own_items_are_no_import_of_it() {
    let p = Project::new();
    p.write(
        "src/lib.rs",
        "mod map;\npub use map::Entry;\n",
    )
    .write(
        "src/map.rs",
        "use std::fmt;\n\npub enum Entry {\n    A,\n    B,\n}\n\npub fn kind(e: &Entry) -> u8 {\n    use self::Entry::*;\n    match e {\n        A => 0,\n        B => 1,\n    }\n}\n",
    );
    p.run(&["index", "--no-embed", "-q"]).ok();
    let v = imports_json(&p, "src/map.rs");
    assert_eq!(resolved(&v), pairs(&[("std", "")]), "{v}");
    assert_eq!(importers(&v), ["src/lib.rs"], "{v}");
}
