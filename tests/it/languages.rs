//! The grammars added after the first ten, the line heuristic for other
//! code, and extension-less shebang scripts, end to end through the real
//! binary: `repo-search index`, then `symbol`, `refs` and `search`.

use crate::common::*;

/// `(path, source, a definition in it, its kind, the language stored)`.
const FILES: [(&str, &str, &str, &str, &str); 28] = [
    (
        "cs/Widget.cs",
        "namespace Acme {\n    public class CsWidget {\n        public int Render() {\n            return 1;\n        }\n    }\n}\n",
        "CsWidget",
        "class",
        "csharp",
    ),
    (
        "kt/Widget.kt",
        "class KtWidget {\n    fun render(): Int {\n        return 1\n    }\n}\n",
        "KtWidget",
        "class",
        "kotlin",
    ),
    (
        "php/Command.php",
        "<?php\nnamespace App;\n\nclass PhpCommand {\n    public function run(): int {\n        return 0;\n    }\n}\n",
        "PhpCommand",
        "class",
        "php",
    ),
    (
        "swift/Widget.swift",
        "struct SwiftPoint {\n    let x: Int\n}\n",
        "SwiftPoint",
        "struct",
        "swift",
    ),
    (
        "scala/Widget.scala",
        "object ScalaRegistry {\n  def register(): Unit = {\n    println(1)\n  }\n}\n",
        "ScalaRegistry",
        "class",
        "scala",
    ),
    (
        "lua/widget.lua",
        "local M = {}\n\nfunction M.lua_helper(x)\n  return x + 1\nend\n\nreturn M\n",
        "lua_helper",
        "function",
        "lua",
    ),
    (
        "bin/setup.sh",
        "#!/bin/sh\nsetup_env() {\n    export A=1\n}\nsetup_env\n",
        "setup_env",
        "function",
        "bash",
    ),
    (
        "completions/gitx",
        "#!/bin/bash\n# bash completion for gitx\n_gitx_add() {\n    _gitx_helper \"$1\"\n}\n\n_gitx_helper() {\n    echo \"$1\"\n}\ncomplete -F _gitx_add gitx\n",
        "_gitx_add",
        "function",
        "bash",
    ),
    (
        // Sourced, not run: no `#!` line, only shell lines (Git's
        // mergetools/, nginx's auto/).
        "mergetools/gitxmerge",
        "# a merge tool the difftool sources\n\ndiff_cmd () {\n\t\"$merge_tool_path\" \"$LOCAL\" \"$REMOTE\"\n}\n\ngitx_merge_cmd () {\n\tif test \"$TRUST_EXIT_CODE\" = true\n\tthen\n\t\techo done\n\tfi\n}\n",
        "gitx_merge_cmd",
        "function",
        "bash",
    ),
    (
        "ex/widget.ex",
        "defmodule Acme.ExWidget do\n  def render(x) do\n    x\n  end\nend\n",
        "ExWidget",
        "module",
        "elixir",
    ),
    (
        "hs/Widget.hs",
        "module Widget where\n\nhsHelper :: Int -> Int\nhsHelper x =\n  x + 1\n",
        "hsHelper",
        "function",
        "haskell",
    ),
    (
        "zig/point.zig",
        "const ZigPoint = struct {\n    x: i32,\n};\n",
        "ZigPoint",
        "struct",
        "zig",
    ),
    (
        "objc/CAPBridgePlugin.m",
        "#import \"CAPPluginBase.h\"\n\n@implementation CAPBridgePlugin\n- (void)load {\n  [self setup];\n}\n@end\n",
        "CAPBridgePlugin",
        "class",
        "objc",
    ),
    (
        // A header is Objective-C by its declarations; the macro line
        // before them does not hide the interface.
        "objc/CAPPluginBase.h",
        "NS_ASSUME_NONNULL_BEGIN\n@interface CAPPluginBase : NSObject\n- (void)load;\n@end\nNS_ASSUME_NONNULL_END\n",
        "CAPPluginBase",
        "class",
        "objc",
    ),
    (
        "cuda/scale.cu",
        "__global__ void cu_scale(float *x) {\n    x[0] *= 2;\n}\n",
        "cu_scale",
        "function",
        "cpp",
    ),
    (
        "kt/Future+await.kt",
        "package acme\n\nsuspend fun <T> ListenableFuture<T>.await(): T {\n    return get()\n}\n",
        "await",
        "function",
        "kotlin",
    ),
    (
        "ts/match.ts",
        "export function matchKey(a: string): boolean\nexport function matchKey(a: number): boolean\nexport function matchKey(a: any): boolean {\n  return !!a\n}\n",
        "matchKey",
        "function",
        "typescript",
    ),
    (
        // A Vue single-file component: its script is TypeScript.
        "web/TodoList.vue",
        "<template>\n  <li @click=\"removeTodo(1)\">x</li>\n</template>\n\n<script lang=\"ts\">\ninterface TodoRow {\n  id: number\n}\nexport function removeTodo(id: number): TodoRow[] {\n  return []\n}\n</script>\n",
        "removeTodo",
        "function",
        "javascript",
    ),
    (
        "php/Runner.php",
        "<?php\nnamespace App\\Console;\n\nclass PhpRunner\n{\n    public function run(): int\n    {\n        return 0;\n    }\n}\n",
        "PhpRunner",
        "class",
        "php",
    ),
    (
        "perl/Widget.pm",
        "package Widget;\n\nsub perl_render {\n    my ($self) = @_;\n    return 1;\n}\n\n1;\n",
        "perl_render",
        "function",
        "other",
    ),
    (
        "erl/widget_srv.erl",
        "-module(widget_srv).\n-export([erl_render/1]).\n\nerl_render(0) ->\n    zero;\nerl_render(N) ->\n    erl_helper(N).\n\nerl_helper(N) -> N + 1.\n",
        "erl_render",
        "function",
        "erlang",
    ),
    (
        "ml/widget.mli",
        "(** Widgets. *)\ntype t\n\nval ml_render : t -> string\n",
        "ml_render",
        "function",
        "ocaml",
    ),
    (
        "jl/Widgets.jl",
        "module Widgets\n\nstruct JlWidget\n    size::Int\nend\n\nfunction jl_render(w::JlWidget)\n    return string(w.size)\nend\n\nend\n",
        "JlWidget",
        "struct",
        "julia",
    ),
    (
        "R/widget.R",
        "#' Renders.\nr_render <- function(w) {\n  format(w)\n}\n",
        "r_render",
        "function",
        "r",
    ),
    (
        // gitk's head: a shell line that hands the file to Tcl's `wish`.
        "tk/gitkx",
        "#!/bin/sh\n# Tcl ignores the next line -*- tcl -*- \\\nexec wish \"$0\" -- \"$@\"\n\nproc tcl_hasworktree {} {\n    return 1\n}\n",
        "tcl_hasworktree",
        "function",
        "other",
    ),
    (
        // An extension-less Perl script.
        "bin/perltool",
        "#!/usr/bin/perl -w\nuse strict;\n\nsub perl_tool_main {\n    return 0;\n}\n\nperl_tool_main();\n",
        "perl_tool_main",
        "function",
        "other",
    ),
    (
        // An Erlang escript: the grammar reads past its `#!` line.
        "bin/erlscript",
        "#!/usr/bin/env escript\n%% -*- erlang -*-\n\nmain(Args) ->\n    erl_script_helper(Args).\n\nerl_script_helper(A) -> A.\n",
        "erl_script_helper",
        "function",
        "erlang",
    ),
    (
        "clj/widget.clj",
        "(ns widget)\n\n(defn clj-render\n  \"Renders.\nThe docstring goes on at column 0.\"\n  [w]\n  (str w))\n",
        "clj-render",
        "function",
        "other",
    ),
];

#[test]
fn new_languages_get_symbols_references_and_chunks() {
    let p = Project::new();
    for (path, src, ..) in FILES {
        p.write(path, src);
    }
    // An extension-less file without a `#!` or mode line is still not indexed.
    p.write("completions/notes", "just some words\n");
    // MATLAB's `.m` and assembly are indexed as other code.
    p.write(
        "matlab/smooth.m",
        "function y = smooth(x, n)\n% moving average\ny = conv(x, ones(n, 1) / n);\nend\n",
    );
    p.write(
        "arch/entry.S",
        "ENTRY(entry_trampoline)\n\tmovq %rsp, %rdi\nEND(entry_trampoline)\n",
    );
    // Rust items behind a `cfg_*! { … }` wrapper (tokio's API), and a macro
    // asked for with its `!`.
    p.write(
        "rs/spawn.rs",
        "cfg_rt! {\n    macro_rules! pick {\n        () => {};\n    }\n    pub fn spawn_task() {}\n}\n",
    );
    // A C struct whose name is a plain word, and functions using it.
    p.write(
        "c/strbuf.c",
        "struct strbuf {\n    char *buf;\n};\n\nvoid strbuf_grow(struct strbuf *sb) {\n    sb->buf = 0;\n}\n\nvoid strbuf_release(struct strbuf *sb) {\n    strbuf_grow(sb);\n}\n",
    );
    // A struct named like an identifier, defined in a small header, and a
    // larger file whose functions spell `struct event_base` over and over.
    p.write(
        "c/event-internal.h",
        "struct event_base {\n    int running;\n    int count;\n};\n",
    );
    p.write(
        "c/event.c",
        (0..12)
            .map(|i| format!("struct event_base *event_base_new_{i}(struct event_base *base) {{\n    struct event_base *b = base;\n    return b;\n}}\n\n"))
            .collect::<String>(),
    );
    // A Python package that re-exports a class defined deeper, and a
    // `models.py` elsewhere with a longer name; a decorator.
    p.write(
        "pkg/models/fields/__init__.py",
        "class CharField:\n    pass\n\n\ndef login_required(view):\n    return view\n",
    );
    p.write("app/models.py", "class CharFieldThing:\n    pass\n");
    // A Rust struct in `dfa/onepass.rs`, and an impl of it inside another
    // file's inline `mod onepass` (regex-automata's remapper).
    p.write(
        "rs/dfa/onepass.rs",
        "pub struct DFA {\n    states: Vec<u32>,\n}\n",
    );
    p.write(
        "rs/dfa/remapper.rs",
        "pub trait Remappable {}\n\nmod onepass {\n    use super::Remappable;\n    use crate::dfa::onepass::DFA;\n\n    impl Remappable for DFA {}\n}\n",
    );
    // An amalgamated header named like the namespace, and the out-of-line
    // method inside `namespace Catch { … }`.
    p.write(
        "cpp/single_include/catch.hpp",
        "namespace Catch {\n    class Session {\n    public:\n        int run();\n    };\n}\n",
    );
    p.write(
        "cpp/src/session.cpp",
        "#include \"session.h\"\n\nnamespace Catch {\n\n    int Session::run() {\n        return 0;\n    }\n\n}\n",
    );
    let summary = p.json(&["index"]);
    assert_eq!(summary["files"], FILES.len() + 12, "{summary}");
    // `models.CharField`: the package's class before a prefix match in a
    // file named after the qualifier; `@login_required`: the decorator.
    for (args, path, line) in [
        (
            ["symbol", "models.CharField"],
            "pkg/models/fields/__init__.py",
            1,
        ),
        (
            ["search", "models.CharField"],
            "pkg/models/fields/__init__.py",
            1,
        ),
        (
            ["symbol", "@login_required"],
            "pkg/models/fields/__init__.py",
            5,
        ),
        // `onepass::DFA`: the struct in the module file, not the impl in
        // another file's `mod onepass`.
        (["symbol", "onepass::DFA"], "rs/dfa/onepass.rs", 1),
        // `Catch::Session::run`: the namespace around the method qualifies
        // it, ahead of a file named `catch`.
        (["symbol", "Catch::Session::run"], "cpp/src/session.cpp", 5),
        (["search", "onepass::DFA"], "rs/dfa/onepass.rs", 1),
        (
            ["search", "@login_required"],
            "pkg/models/fields/__init__.py",
            5,
        ),
    ] {
        let v = p.json(&args);
        let line_of = |h: &serde_json::Value| h["line"].as_u64().or(h["start_line"].as_u64());
        assert_eq!(
            (v["hits"][0]["path"].as_str(), line_of(&v["hits"][0])),
            (Some(path), Some(line)),
            "{args:?}: {v}"
        );
    }
    // `struct strbuf`: the definition asked for by its keyword; `union
    // find` (no union `find` here) stays a question.
    let v = p.json(&["search", "struct strbuf"]);
    assert_eq!(
        (
            v["query_kind"].as_str(),
            v["hits"][0]["start_line"].as_u64()
        ),
        (Some("identifier"), Some(1)),
        "{v}"
    );
    let v = p.json(&["search", "struct event_base"]);
    assert_eq!(v["hits"][0]["path"], "c/event-internal.h", "{v}");
    let v = p.json(&["search", "union find"]);
    assert_eq!(v["query_kind"], "natural_language", "{v}");
    for q in ["spawn_task", "pick!"] {
        let v = p.json(&["symbol", q]);
        assert_eq!(v["hits"][0]["path"], "rs/spawn.rs", "{q}: {v}");
    }
    for (query, path) in [
        ("moving average", "matlab/smooth.m"),
        ("entry_trampoline", "arch/entry.S"),
    ] {
        let v = p.json(&["search", query, "--mode", "bm25", "--lang", "other"]);
        assert_eq!(v["hits"][0]["path"], path, "{v}");
    }
    // A module qualifier is the file or its directory when no definition
    // has that container: `point.ZigPoint`, `zig.ZigPoint`.
    for q in ["point.ZigPoint", "zig.ZigPoint"] {
        let v = p.json(&["symbol", q]);
        assert_eq!(v["hits"][0]["path"], "zig/point.zig", "{q}: {v}");
    }
    assert_eq!(p.run(&["symbol", "widget.ZigPoint"]).code(), 1);
    let v = p.json(&["symbol", "Acme.ExWidget"]);
    assert_eq!(
        v["hits"][0]["path"], "ex/widget.ex",
        "the dotted module name: {v}"
    );
    // PHP's namespace-qualified names, whole or in part, with `\`.
    for q in ["App\\Console\\PhpRunner", "Console\\PhpRunner"] {
        let v = p.json(&["symbol", q]);
        assert_eq!(v["hits"][0]["path"], "php/Runner.php", "{q}: {v}");
    }
    // Names as agents write them: with an arity (Elixir, Erlang), through a
    // variable (`$runner->run`); hybrid search takes a namespace path as a
    // name (the symbol arm finds it), not as a regex.
    for (q, lang, path) in [
        ("Acme.ExWidget.render/1", "elixir", "ex/widget.ex"),
        ("render/1", "elixir", "ex/widget.ex"),
        // Both classes' `run`: a variable's type is not known.
        ("$runner->run", "php", "php/Runner.php"),
        // `self`, `this`: the enclosing class, whichever it is.
        ("self.render", "kotlin", "kt/Widget.kt"),
        ("this.render", "kotlin", "kt/Widget.kt"),
    ] {
        let v = p.json(&["symbol", q, "--lang", lang]);
        let hits = v["hits"].as_array().cloned().unwrap_or_default();
        assert!(hits.iter().any(|h| h["path"] == path), "{q}: {v}");
    }
    // The graph's commands take Elixir's whole module name and an arity
    // too (a definition's container there is `Acme.ExWidget`).
    for q in [
        "Acme.ExWidget.render",
        "Acme.ExWidget.render/1",
        "ExWidget.render",
    ] {
        let v = p.json(&["refs", q]);
        let hits = v["hits"].as_array().cloned().unwrap_or_default();
        assert!(
            hits.iter()
                .any(|h| h["path"] == "ex/widget.ex" && h["is_definition"] == true),
            "{q}: {v}"
        );
    }
    let v = p.json(&["search", "App\\Console\\PhpRunner"]);
    assert_eq!(v["hits"][0]["path"], "php/Runner.php", "{v}");
    assert!(
        v["hits"][0]["sources"].to_string().contains("\"symbol\""),
        "found by the symbol arm: {v}"
    );
    // Two names side by side: the second as a member of the first, before
    // the type itself.
    let v = p.json(&["search", "PhpRunner run"]);
    assert_eq!(
        (
            v["hits"][0]["path"].as_str(),
            v["hits"][0]["start_line"].as_u64()
        ),
        (Some("php/Runner.php"), Some(6)),
        "{v}"
    );
    // A location (`path:line`, as a compiler prints it): the chunk there
    // first, its snippet from that line.
    let v = p.json(&["search", "php/Runner.php:7"]);
    assert_eq!(
        (
            v["hits"][0]["path"].as_str(),
            v["hits"][0]["snippet_line"].as_u64(),
            v["hits"][0]["sources"][0]["arm"].as_str()
        ),
        (Some("php/Runner.php"), Some(7), Some("location")),
        "{v}"
    );
    let v = p.json(&["search", "Runner.php:7:9"]);
    assert_eq!(
        (
            v["hits"][0]["path"].as_str(),
            v["hits"][0]["sources"][0]["arm"].as_str()
        ),
        (Some("php/Runner.php"), Some("location")),
        "the end of one indexed path: {v}"
    );
    // A declaration keyword before the name, as agents type it: that kind
    // of definition, else any definition of the name.
    for (q, path, kind) in [
        ("class PhpRunner", "php/Runner.php", "class"),
        ("struct lua_helper", "lua/widget.lua", "function"),
    ] {
        let v = p.json(&["symbol", q]);
        assert_eq!(
            (v["hits"][0]["path"].as_str(), v["hits"][0]["kind"].as_str()),
            (Some(path), Some(kind)),
            "{q}: {v}"
        );
    }
    // A file by its name or path: its main chunk first, from the arm
    // `location`, then its other hits.
    for (q, path) in [
        ("Runner.php", "php/Runner.php"),
        ("php/Runner.php", "php/Runner.php"),
        ("./zig/point.zig", "zig/point.zig"),
    ] {
        let v = p.json(&["search", q]);
        assert_eq!(
            (
                v["hits"][0]["path"].as_str(),
                v["hits"][0]["sources"][0]["arm"].as_str()
            ),
            (Some(path), Some("location")),
            "{q}: {v}"
        );
        assert!(
            v["query_interpretation"]
                .as_str()
                .is_some_and(|s| s.starts_with("a file (")),
            "{q}: {v}"
        );
    }
    // A Kotlin extension is found under the type it extends.
    let v = p.json(&["symbol", "ListenableFuture.await"]);
    assert_eq!(v["hits"][0]["path"], "kt/Future+await.kt", "{v}");
    // TypeScript overloads and their implementation are one definition.
    let v = p.json(&["symbol", "matchKey", "--exact"]);
    assert_eq!(v["hits"].as_array().map(Vec::len), Some(1), "{v}");
    assert_eq!(
        (
            v["hits"][0]["start_line"].as_u64(),
            v["hits"][0]["end_line"].as_u64()
        ),
        (Some(1), Some(5)),
        "{v}"
    );
    let v = p.json(&["symbol", "load", "--lang", "objc", "--kind", "method"]);
    assert_eq!(
        v["hits"].as_array().map(Vec::len),
        Some(2),
        "declared and defined: {v}"
    );

    for (path, _, name, kind, lang) in FILES {
        let v = p.json(&["symbol", name, "--exact"]);
        let hits = v["hits"].as_array().cloned().unwrap_or_default();
        assert!(
            hits.iter()
                .any(|h| h["path"] == path && h["kind"] == kind && h["lang"] == lang),
            "{name} in {path}: {v}"
        );
    }
    let v = p.json(&["symbol", "_gitx_helper", "--lang", "bash"]);
    assert_eq!(v["hits"][0]["path"], "completions/gitx", "{v}");

    let v = p.json(&["refs", "_gitx_helper"]);
    let refs = v["hits"].as_array().cloned().unwrap_or_default();
    assert!(
        refs.iter()
            .any(|r| r["path"] == "completions/gitx" && r["line"] == 4),
        "{v}"
    );

    // Erlang's clauses are one function, which calls its helper; OCaml's
    // interfaces and Julia are languages of their own.
    let v = p.json(&["symbol", "erl_render", "--exact"]);
    assert_eq!(
        (
            v["hits"][0]["start_line"].as_u64(),
            v["hits"][0]["end_line"].as_u64()
        ),
        (Some(4), Some(7)),
        "both clauses: {v}"
    );
    let v = p.json(&["refs", "erl_helper"]);
    let call = v["hits"]
        .as_array()
        .and_then(|h| h.iter().find(|r| r["is_definition"] == false))
        .unwrap_or_else(|| panic!("no call: {v}"));
    assert_eq!(
        (&call["path"], &call["line"], &call["enclosing"]),
        (
            &"erl/widget_srv.erl".into(),
            &7.into(),
            &"erl_render".into()
        ),
        "{v}"
    );
    let v = p.json(&["symbol", "ml_render", "--lang", "ocaml"]);
    assert_eq!(v["hits"][0]["path"], "ml/widget.mli", "{v}");
    let v = p.json(&["symbol", "Widgets.jl_render"]);
    assert_eq!(v["hits"][0]["path"], "jl/Widgets.jl", "{v}");

    // A language the line heuristic reads is a `--lang` filter: its
    // extensions among the `other` files.
    let v = p.json(&["symbol", "clj-render", "--lang", "clojure"]);
    assert_eq!(v["hits"][0]["path"], "clj/widget.clj", "{v}");
    assert_eq!(
        (
            v["hits"][0]["start_line"].as_u64(),
            v["hits"][0]["end_line"].as_u64()
        ),
        (Some(3), Some(7)),
        "the form ends at its closing bracket: {v}"
    );
    let v = p.json(&["symbol", "perl_render", "--lang", "clojure"]);
    assert_eq!(v["hits"].as_array().map(Vec::len), Some(0), "{v}");
    let v = p.json(&["search", "render", "--lang", "perl"]);
    let paths = crate::mcp::hit_paths(&v);
    assert!(
        !paths.is_empty() && paths.iter().all(|p| p.ends_with(".pm")),
        "{v}"
    );
    let r = p.run(&["symbol", "x", "--lang", "klingon"]);
    assert_eq!(r.code(), 2, "{}", r.stderr());
    assert!(
        r.stderr().contains("clojure"),
        "the hint lists them: {}",
        r.stderr()
    );

    // A kebab-case name the index defines is a name query: the symbol arm
    // finds its definition (before, the query was words only).
    p.write(
        "lisp/widget-calls.el",
        "(widget-find-file \"a\") (widget-find-file \"b\") ; widget find file\n".repeat(30),
    );
    p.write(
        "lisp/widget-files.el",
        "(defun widget-find-file (name)\n  \"Open NAME.\"\n  (find-file name))\n",
    );
    p.json(&["index", "--no-embed"]);
    let v = p.json(&["search", "widget-find-file"]);
    let top = &v["hits"][0];
    assert_eq!(top["path"], "lisp/widget-files.el", "{v}");
    assert!(found_by(top, "symbol"), "{v}");
    // A kebab-case word nothing defines stays a word of the question.
    let v = p.json(&["search", "read-only widget"]);
    let symbol_arm = v["hits"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|h| found_by(h, "symbol"));
    assert!(!symbol_arm, "{v}");

    // Chunks follow definitions: the BM25 hit for the Perl sub is its own
    // chunk, named after it.
    let v = p.json(&["search", "perl_render"]);
    let hit = &v["hits"][0];
    assert_eq!(hit["path"], "perl/Widget.pm", "{v}");
    assert_eq!(hit["symbol"], "perl_render", "{v}");
    assert_eq!(
        (hit["start_line"].as_u64(), hit["end_line"].as_u64()),
        (Some(3), Some(6)),
        "{v}"
    );
}

/// An extension-less file is a script by its `#!` line or, without one,
/// by lines that read as shell; when it becomes neither it leaves the
/// index like a deleted file.
#[test]
fn a_script_that_loses_its_shebang_leaves_the_index() {
    let p = Project::new();
    p.write(
        "completions/gitx",
        "#!/bin/bash\n_gitx_add() {\n    echo add\n}\n",
    );
    let summary = p.json(&["index"]);
    assert_eq!(summary["files"], 1, "{summary}");
    assert_eq!(p.run(&["symbol", "_gitx_add"]).code(), 0);

    // Without the `#!` line its lines still read as shell.
    p.write("completions/gitx", "_gitx_add() {\n    echo add\n}\n");
    let summary = p.json(&["index"]);
    assert_eq!(summary["files"], 1, "{summary}");
    assert_eq!(p.run(&["symbol", "_gitx_add"]).code(), 0);

    p.write(
        "completions/gitx",
        "_gitx_add moved to git-x(1).\nSee its manual.\n",
    );
    let summary = p.json(&["index"]);
    assert_eq!(summary["files"], 0, "{summary}");
    assert_eq!(summary["removed"], 1, "{summary}");
    assert_eq!(p.run(&["symbol", "_gitx_add"]).code(), 1);

    p.write(
        "completions/gitx",
        "#!/usr/bin/env bash\n_gitx_add() {\n    echo add\n}\n",
    );
    let summary = p.json(&["index"]);
    assert_eq!(summary["files"], 1, "{summary}");
    let v = p.json(&["symbol", "_gitx_add"]);
    assert_eq!(v["hits"][0]["lang"], "bash", "{v}");
}

/// Jane Street's OCaml layout: `monad_intf.ml` specifies `module Make`
/// inside `module type Monad = sig … end`, `monad.ml` (the module
/// `Monad`) defines it. `Monad.Make` answers both, the definition first;
/// a specification does not make its signature win over the file, as a
/// type of that name would.
#[test]
fn a_qualified_ocaml_name_finds_the_file_module_definition_beside_its_specification() {
    let p = Project::new();
    p.write(
        "src/monad_intf.ml",
        "module type Basic = sig\n  type 'a t\n  val bind : 'a t -> f:('a -> 'b t) -> 'b t\nend\n\n\
         module type Monad = sig\n  module type Basic = Basic\n\n  \
         module Make (X : Basic) : sig\n    type 'a t = 'a X.t\n  end\nend\n",
    );
    p.write(
        "src/monad.ml",
        "include Monad_intf\n\nmodule Make (X : Basic) = struct\n  type 'a t = 'a X.t\n\n  \
         let bind = X.bind\n  let join t = bind t ~f:(fun x -> x)\nend\n",
    );
    p.json(&["index"]);
    let v = p.json(&["symbol", "Monad.Make"]);
    let paths: Vec<&str> = v["hits"]
        .as_array()
        .map(|hits| hits.iter().filter_map(|h| h["path"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(paths, ["src/monad.ml", "src/monad_intf.ml"], "{v}");
}

/// C's forward typedef idiom (nginx, libuv, glib): the one-line
/// `typedef struct ngx_command_s ngx_command_t;` in a core header names a
/// struct whose body lies in another header. The name answers with that
/// body first, the typedef after it, through `symbol` and hybrid search.
#[test]
fn a_forward_typedef_answers_with_the_struct_it_names_first() {
    let p = Project::new();
    p.write(
        "src/core/ngx_core.h",
        "#ifndef NGX_CORE_H\n#define NGX_CORE_H\n\n\
         typedef struct ngx_module_s   ngx_module_t;\n\
         typedef struct ngx_command_s  ngx_command_t;\n\n#endif\n",
    );
    p.write(
        "src/core/ngx_conf_file.h",
        "#include \"ngx_core.h\"\n\n\
         struct ngx_command_s {\n    ngx_str_t  name;\n    ngx_uint_t type;\n\
         char *(*set)(ngx_conf_t *cf, ngx_command_t *cmd, void *conf);\n};\n",
    );
    p.write(
        "src/http/ngx_http_core_module.c",
        "static ngx_command_t  ngx_http_core_commands[] = {\n    ngx_null_command\n};\n\n\
         static char *ngx_http_core_root(ngx_conf_t *cf, ngx_command_t *cmd, void *conf) {\n\
         \x20   return NGX_CONF_OK;\n}\n",
    );
    p.json(&["index"]);
    let v = p.json(&["symbol", "ngx_command_t"]);
    let found: Vec<(&str, &str)> = v["hits"]
        .as_array()
        .map(|hits| {
            hits.iter()
                .filter_map(|h| Some((h["path"].as_str()?, h["name"].as_str()?)))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        found,
        [
            ("src/core/ngx_conf_file.h", "ngx_command_s"),
            ("src/core/ngx_core.h", "ngx_command_t")
        ],
        "{v}"
    );
    let v = p.json(&["search", "ngx_command_t"]);
    assert_eq!(
        v["hits"][0]["path"].as_str(),
        Some("src/core/ngx_conf_file.h"),
        "{v}"
    );
}

/// A type defined on its own comes before one-line type aliases of the
/// same name inside impls (serde's `trait Deserializer` sat 8th, behind
/// seven `type Deserializer = Self;`).
#[test]
fn a_type_comes_before_member_aliases_of_its_name() {
    let p = Project::new();
    p.write(
        "src/a_impls.rs",
        "pub struct ContentDeserializer;\n\nimpl<'de> IntoDeserializer<'de> for ContentDeserializer {\n    type Deserializer = Self;\n    fn into_deserializer(self) -> Self { self }\n}\n",
    )
    .write(
        "src/de.rs",
        "pub trait Deserializer<'de>: Sized {\n    fn deserialize_any(self) -> u32;\n    fn deserialize_map(self) -> u32;\n}\n",
    );
    p.json(&["index", "--offline"]);
    let v = p.json(&["symbol", "Deserializer"]);
    assert_eq!(v["hits"][0]["kind"], "trait", "{v}");
    assert_eq!(v["hits"][0]["path"], "src/de.rs", "{v}");
}

/// A Bison grammar is indexed and searched like code, and the C Bison
/// made of it ranks after it: a question in the grammar's words finds
/// `parser.y` first, `parser.c` behind it (it repeats the rules twice and
/// the grammar's file is longer, so without the generated prior it would
/// lead); a question for "the grammar" finds it by its path's kind.
#[test]
fn a_grammar_is_indexed_and_ranks_before_the_code_generated_from_it() {
    let p = Project::new();
    let rules = "pipe_expr: term '|' pipe_expr { $$ = gen_pipe($1, $3); }\n\
                 term: IDENT { $$ = gen_call($1); } | '.' { $$ = gen_noop(); }\n";
    let prologue: String = (0..8)
        .map(|i| format!("#include \"part{i}.h\"\n"))
        .collect();
    p.write(
        "src/parser.y",
        format!("%{{\n{prologue}%}}\n%token IDENT\n%%\n{rules}%%\n"),
    );
    p.write(
        "src/parser.c",
        format!("/* A Bison parser, made by GNU Bison 3.0.4.  */\n#line 2 \"src/parser.y\"\n/* {rules} */\n/* {rules} */\n\
                 static const char *const yytname[] = {{ \"pipe_expr\", \"term\", \"IDENT\" }};\n\
                 int yyparse(void) {{ return gen_pipe(0, 0) + gen_call(0) + gen_noop(); }}\n"),
    );
    p.write("src/util.c", "int gen_util(void) { return 0; }\n");
    let summary = p.json(&["index", "--no-embed"]);
    assert_eq!(summary["files"], 3, "{summary}");
    let v = p.json(&["search", "pipe expression term rules gen_pipe gen_call"]);
    let paths = crate::mcp::hit_paths(&v);
    assert_eq!(
        paths.first().map(String::as_str),
        Some("src/parser.y"),
        "{v}"
    );
    assert!(paths.iter().any(|p| p == "src/parser.c"), "{v}");
    // Nothing in the grammar says "grammar": its path does.
    let v = p.json(&["search", "where is the grammar defined"]);
    assert_eq!(v["hits"][0]["path"], "src/parser.y", "{v}");
}

/// A bundle whose header says a tool wrote it ("Generated File. Do not
/// edit.", as atop Capacitor's `native-bridge.js`), or that ends with a
/// source map's address as compiled output does, ranks after the source it
/// repeats; the same bundle without either leads, so they are what move
/// it.
#[test]
fn a_file_that_says_it_is_generated_ranks_after_the_source() {
    let source = "// Sends a message to the plugin it names.\n\
                  export function dispatch(msg: Message, plugins: PluginTable) {\n\
                  \x20 const plugin = plugins.lookup(msg.pluginId);\n\
                  \x20 return plugin.call(msg.methodName, msg.options);\n}\n";
    let bundle = |header: &str, trailer: &str| {
        let body: String = (0..4)
            .map(|i| {
                format!(
                    "  function routeMessage{i}(msg, plugins) {{ var plugin = plugins.lookup(msg.pluginId); \
                     return plugin.call(msg.methodName, msg.options); }} // route the message to the plugin\n"
                )
            })
            .collect();
        format!("{header}var nativeBridge = (function () {{\n{body}}})();\n{trailer}")
    };
    let first = |header: &str, trailer: &str| -> String {
        let p = Project::new();
        p.write("src/dispatch.ts", source);
        p.write("assets/native-bridge.js", bundle(header, trailer));
        p.json(&["index", "--no-embed"]);
        let v = p.json(&["search", "how is a message routed to the right plugin"]);
        v["hits"][0]["path"]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        first("", ""),
        "assets/native-bridge.js",
        "the premise: unmarked, the bundle leads"
    );
    assert_eq!(
        first(
            "/*! Example: MIT License */\n/* Generated File. Do not edit. */\n",
            ""
        ),
        "src/dispatch.ts"
    );
    assert_eq!(
        first("", "//# sourceMappingURL=native-bridge.js.map\n"),
        "src/dispatch.ts"
    );
}

/// A capitalised word of a question that names a type the index defines
/// is a name: "where is the Traversal type defined" asks the name arms
/// for `class Traversal` (before, only the word "traversal" was searched).
#[test]
fn a_capitalised_type_name_in_a_question_is_a_name() {
    let p = Project::new();
    p.write(
        "pkg/kinds.py",
        "class Traversal:\n    def run(self, node):\n        return [node]\n",
    );
    p.write(
        "pkg/walk.py",
        "# where the traversal is defined: the traversal type walks nodes\n\n\ndef traversed(tree):\n    \"\"\"Traversal of the tree: the traversal type's order.\"\"\"\n    return list(tree)\n",
    );
    p.json(&["index", "--no-embed"]);
    let v = p.json(&["search", "where is the Traversal type defined"]);
    let hits = v["hits"].as_array().cloned().unwrap_or_default();
    // Found as a name (the name arms), not only as the word "traversal".
    let at = hits.iter().position(|h| {
        h["symbol"] == "Traversal" && (found_by(h, "symbol") || found_by(h, "keyword"))
    });
    assert!(at.is_some_and(|i| i <= 1), "{v}");
    let why = v["query_interpretation"].as_str().unwrap_or_default();
    assert!(!why.contains("no identifier-like terms"), "{why}");
    // A capitalised word nothing defines as a type stays a word.
    let v = p.json(&["search", "where is the Walker type defined"]);
    let symbol_arm = v["hits"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|h| found_by(h, "symbol") || found_by(h, "keyword"));
    assert!(!symbol_arm, "{v}");
}

/// A file name or a location whose path several indexed files end with
/// leads with up to three of them, live source before tests and shallower
/// paths first; a name no indexed file has is searched as text.
#[test]
fn a_name_several_files_share_leads_with_the_best_of_them() {
    let p = Project::new();
    let module = |name: &str| {
        format!(
            "\"\"\"Helpers of {name}.\"\"\"\n\n\nclass Settings:\n    def load(self):\n        return {{}}\n\n\ndef {name}_helper():\n    return 1\n"
        )
    };
    p.write("pkg/settings.py", module("pkg"));
    p.write("pkg/deep/er/settings.py", module("deep"));
    p.write("tests/settings.py", module("tests"));
    p.write(
        "pkg/other.py",
        "def settings_reader():\n    return 'settings.py'\n",
    );
    p.write(
        "pkg/sub/__init__.py",
        "\"\"\"Loaders.\"\"\"\nimport os\n\n\nclass Loader:\n    def __init__(self):\n        self.root = os.getcwd()\n",
    );
    p.json(&["index", "--no-embed"]);
    // A package's `__init__.py` is not a file about `__init__`: its first
    // chunk stands for it, not the constructor.
    let v = p.json(&["search", "pkg/sub/__init__.py"]);
    assert_eq!(v["hits"][0]["path"], "pkg/sub/__init__.py", "{v}");
    assert_eq!(v["hits"][0]["start_line"], 1, "{v}");
    let v = p.json(&["search", "settings.py"]);
    let led: Vec<(&str, &str)> = v["hits"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|h| h["sources"][0]["arm"] == "location")
        .filter_map(|h| Some((h["path"].as_str()?, h["symbol"].as_str()?)))
        .collect();
    assert_eq!(
        led,
        [
            ("pkg/settings.py", "Settings"),
            ("pkg/deep/er/settings.py", "Settings"),
            ("tests/settings.py", "Settings"),
        ],
        "{v}"
    );
    // The same names with a line: the chunk there in each.
    let v = p.json(&["search", "settings.py:5"]);
    let first: Vec<(&str, u64)> = v["hits"]
        .as_array()
        .into_iter()
        .flatten()
        .take(3)
        .filter_map(|h| Some((h["path"].as_str()?, h["snippet_line"].as_u64()?)))
        .collect();
    assert_eq!(
        first,
        [
            ("pkg/settings.py", 5),
            ("pkg/deep/er/settings.py", 5),
            ("tests/settings.py", 5)
        ],
        "{v}"
    );
    // A blank line between two definitions is in the file: the nearest
    // chunk leads (the next one on a tie), and nothing says past the end.
    for (line, symbol) in [(8, "pkg_helper"), (7, "Settings.load")] {
        let v = p.json(&["search", &format!("pkg/settings.py:{line}")]);
        assert_eq!(v["hits"][0]["path"], "pkg/settings.py", "{v}");
        assert_eq!(v["hits"][0]["symbol"], symbol, "{line}: {v}");
        let why = v["query_interpretation"].as_str().unwrap_or_default();
        assert!(!why.contains("past the end"), "{v}");
        // The chunk at the line answers; the file's other word matches
        // are no further places of it.
        assert!(v["hits"][0].get("also").is_none(), "{line}: {v}");
    }
    // A line past the end of the file (a stale trace, a typo): the file's
    // main chunk leads, and the answer says the line is not there.
    let v = p.json(&["search", "pkg/settings.py:99999"]);
    assert_eq!(v["hits"][0]["path"], "pkg/settings.py", "{v}");
    assert_eq!(v["hits"][0]["sources"][0]["arm"], "location", "{v}");
    let why = v["query_interpretation"].as_str().unwrap_or_default();
    assert!(
        why.contains("line 99999 is past the end of pkg/settings.py"),
        "{v}"
    );
    let r = p.run(&["search", "pkg/settings.py:99999"]);
    assert!(
        r.stderr().contains("past the end of pkg/settings.py"),
        "{r}"
    );
    // The line of a location is no literal to look for (`5` would match
    // inside any longer number), nor is a file name's extension.
    for q in ["pkg/settings.py:5", "missing.py:5", "missing.py"] {
        let v = p.json(&["search", q]);
        assert!(
            v["hits"]
                .as_array()
                .into_iter()
                .flatten()
                .all(|h| h["sources"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .all(|s| s["arm"] != "keyword")),
            "{q}: {v}"
        );
    }
    // No indexed file of that name: text search, and the answer says so.
    let v = p.json(&["search", "missing.py"]);
    assert!(
        v["hits"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|h| h["sources"][0]["arm"] != "location"),
        "{v}"
    );
    for q in ["missing.py", "missing.py:12"] {
        let r = p.run(&["search", q]);
        assert!(
            r.stderr()
                .contains("no indexed file matches `missing.py`: searched as words"),
            "{r}"
        );
    }
    let r = p.run(&["search", "pkg/settings.py:5"]);
    assert!(!r.stderr().contains("no indexed file"), "{r}");
}

/// `settings.INSTALLED_APPS`: a module-level setting reached through an
/// object. Its definitions in a file named with the object's name among its
/// stem's words answer; a name defined only elsewhere (`os.path` against a
/// project's own `path`) and another variable's attribute do not.
#[test]
fn a_setting_reached_through_an_object_is_found_in_the_module_named_for_it() {
    let p = Project::new();
    p.write(
        "conf/global_settings.py",
        "DEBUG = False\nINSTALLED_APPS = []\n",
    );
    p.write("msg/constants.py", "DEBUG = 10\n");
    p.write(
        "urls/conf.py",
        "def path(route, view):\n    return (route, view)\n",
    );
    p.write(
        "auth/models.py",
        "class User:\n    pass\n\n\nuser = User()\n",
    );
    p.json(&["index", "--no-embed"]);
    let at = |q: &str| -> Vec<(String, u64)> {
        let v = p.json(&["symbol", q]);
        v["hits"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|h| Some((h["path"].as_str()?.to_string(), h["line"].as_u64()?)))
            .collect()
    };
    assert_eq!(
        at("settings.INSTALLED_APPS"),
        [("conf/global_settings.py".to_string(), 2)]
    );
    assert_eq!(
        at("settings.DEBUG"),
        [("conf/global_settings.py".to_string(), 1)]
    );
    for q in ["os.path", "request.user"] {
        let r = p.run(&["symbol", q]);
        assert_eq!(r.code(), 1, "{q} is not the project's: {r}");
        assert!(r.stderr().contains("no definition named"), "{q}: {r}");
    }
}

/// nom's root: `pub use self::internal::*;` in `src/lib.rs` of a checkout
/// whose directory does not name the crate (its `Cargo.toml` does), so
/// `nom::IResult` and `crate::Err` are the definitions in `internal.rs`
/// (not their `impl` blocks); Python's `from .x import *` likewise.
#[test]
fn a_glob_re_export_at_a_crates_root_answers_qualified_names() {
    let p = Project::new();
    p.write(
        "Cargo.toml",
        "[package]\nname = \"nom\"\nversion = \"7.1.1\"\n",
    );
    p.write("src/lib.rs", "pub use self::internal::*;\nmod internal;\n");
    p.write(
        "src/internal.rs",
        "pub type IResult<I, O> = Result<(I, O), Err<I>>;\n\npub enum Err<E> {\n    Error(E),\n}\n\nimpl<E> Err<E> {\n    pub fn is_incomplete(&self) -> bool {\n        false\n    }\n}\n",
    );
    p.write("pkg/__init__.py", "from .core import *\n");
    p.write("pkg/core.py", "def build(x):\n    return x\n");
    p.write("other/core.py", "def build(x):\n    return x + 1\n");
    p.json(&["index", "--no-embed"]);
    for (query, path, kind) in [
        ("nom::IResult", "src/internal.rs", "type"),
        ("crate::Err", "src/internal.rs", "enum"),
        ("nom::Err", "src/internal.rs", "enum"),
        ("pkg.build", "pkg/core.py", "function"),
    ] {
        let v = p.json(&["symbol", query]);
        let hits: Vec<(&str, &str)> = v["hits"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|h| Some((h["path"].as_str()?, h["kind"].as_str()?)))
            .collect();
        assert_eq!(hits, [(path, kind)], "symbol {query}: {v}");
    }
}

/// Members written in a language's own notation (Go's `pkg.(*T).M`,
/// JavaScript's `C.prototype.m`, Lua's `C:m`, PHP's `Ns\C::m`), a
/// qualified path whose root no file path spells (a crate name above a
/// crate's `src/`) and a module spelled as written next to a class of the
/// same name (`flask.url_for`, `Flask.url_for`), and a name a crate's
/// root re-exports (`tokio::spawn`), also under another name
/// (`serde::DeVisitor`, `attrs.field`), find their definitions through
/// `symbol` and lead `search`.
#[test]
fn members_in_their_languages_notation_and_unspelled_roots_find_the_definition() {
    let p = Project::new();
    p.write(
        "gin/tree.go",
        "package gin\n\ntype Params []string\n\nfunc (ps Params) Get(name string) string {\n\treturn name\n}\n",
    );
    p.write(
        "gin/context.go",
        "package gin\n\ntype Context struct{}\n\nfunc (c *Context) Param(key string) string {\n\treturn key\n}\n",
    );
    p.write(
        "lib/router.js",
        "function Router() {}\n\nRouter.prototype.route = function route(path) {\n  return path;\n};\n",
    );
    p.write(
        "pl/List.lua",
        "local List = {}\n\nfunction List:append(x)\n  self[#self + 1] = x\n  return self\nend\n\nreturn List\n",
    );
    p.write(
        "Node/MacroNode.php",
        "<?php\nnamespace Twig\\Node;\n\nclass MacroNode {\n    public function compile($compiler) {\n        return 1;\n    }\n}\n",
    );
    for side in ["server", "client"] {
        p.write(
            &format!("src/{side}/conn/http1.rs"),
            "pub struct Builder {\n    n: usize,\n}\n\nimpl Builder {\n    pub fn new() -> Builder {\n        Builder { n: 1 }\n    }\n}\n",
        );
    }
    p.write(
        "src/flask/app.py",
        "class Flask:\n    def url_for(self, endpoint):\n        return endpoint\n",
    );
    p.write(
        "src/flask/helpers.py",
        "def url_for(endpoint):\n    return endpoint\n",
    );
    p.write(
        "src/click/core.py",
        "class Group:\n    def command(self, name):\n        return name\n",
    );
    p.write(
        "src/click/decorators.py",
        "def command(name):\n    return name\n",
    );
    p.write(
        "tokio-1.54.1/src/lib.rs",
        "pub mod task;\npub mod io;\npub use task::spawn;\n\npub fn yield_now() -> usize {\n    0\n}\n",
    );
    p.write("tokio-1.54.1/src/task/mod.rs", "pub mod spawn;\n");
    p.write(
        "tokio-1.54.1/src/task/spawn.rs",
        "pub fn spawn(f: usize) -> usize {\n    f\n}\n",
    );
    p.write(
        "tokio-1.54.1/src/io/blocking.rs",
        "pub fn spawn(f: usize) -> usize {\n    f + 1\n}\n",
    );
    p.write(
        "tokio-1.54.1/src/runtime/runtime.rs",
        "pub struct Runtime;\n\nimpl Runtime {\n    pub fn block_on(&self, f: usize) -> usize {\n        f\n    }\n}\n",
    );
    p.write(
        "tokio-1.54.1/src/runtime/handle.rs",
        "pub struct Handle;\n\nimpl Handle {\n    pub fn block_on(&self, f: usize) -> usize {\n        f + 1\n    }\n}\n",
    );
    // Re-exported under another name.
    p.write(
        "serde/src/lib.rs",
        "mod de;\npub use self::de::Visitor as DeVisitor;\n",
    );
    p.write(
        "serde/src/de.rs",
        "pub trait Visitor {\n    fn visit(&self);\n}\n",
    );
    p.write("attrs/__init__.py", "from ._make import attrib as field\n");
    p.write(
        "attrs/_make.py",
        "def attrib(default=None):\n    return default\n",
    );
    // A package re-exporting what its subpackage re-exports (werkzeug's
    // `Request`), beside another class of the name.
    p.write(
        "wz/__init__.py",
        "from .wrappers import Request as Request\n",
    );
    p.write(
        "wz/wrappers/__init__.py",
        "from .request import Request as Request\n",
    );
    p.write(
        "wz/wrappers/request.py",
        "from ..sansio.request import Request as _SansIORequest\n\n\nclass Request(_SansIORequest):\n    pass\n",
    );
    p.write("wz/sansio/request.py", "class Request:\n    pass\n");
    // A re-export through an inline module (rustls's `pub use
    // server::ServerConnection;` of `pub mod server { mod server_conn; pub
    // use server_conn::ServerConnection; }`), beside quic's type of the
    // same name: the one under the module path the re-export names.
    p.write(
        "rustls-0.23.12/src/lib.rs",
        "mod quic;\npub mod server {\n    mod server_conn;\n    pub use server_conn::ServerConnection;\n}\npub use server::ServerConnection;\n",
    );
    p.write(
        "rustls-0.23.12/src/quic.rs",
        "pub struct ServerConnection {\n    inner: u8,\n}\n",
    );
    p.write(
        "rustls-0.23.12/src/server/server_conn.rs",
        "pub struct ServerConnection {\n    inner: u16,\n}\n",
    );
    p.json(&["index", "--no-embed"]);
    for (query, path) in [
        ("wz.Request", "wz/wrappers/request.py"),
        (
            "rustls::ServerConnection",
            "rustls-0.23.12/src/server/server_conn.rs",
        ),
        // A crate root's own definition.
        ("tokio::yield_now", "tokio-1.54.1/src/lib.rs"),
    ] {
        let v = p.json(&["symbol", query]);
        assert_eq!(v["hits"][0]["path"], path, "symbol {query}: {v}");
    }
    for (query, path) in [
        ("tokio::spawn", "tokio-1.54.1/src/task/spawn.rs"),
        ("serde::DeVisitor", "serde/src/de.rs"),
        ("attrs.field", "attrs/_make.py"),
        ("click.command", "src/click/decorators.py"),
        ("click.Group.command", "src/click/core.py"),
        ("flask.url_for", "src/flask/helpers.py"),
        ("runtime::block_on", "tokio-1.54.1/src/runtime/runtime.rs"),
        ("Flask.url_for", "src/flask/app.py"),
        ("gin.(*Params).Get", "gin/tree.go"),
        ("(*Context).Param", "gin/context.go"),
        ("Router.prototype.route", "lib/router.js"),
        ("List:append", "pl/List.lua"),
        (r"Twig\Node\MacroNode::compile", "Node/MacroNode.php"),
        (
            "hyper::server::conn::http1::Builder",
            "src/server/conn/http1.rs",
        ),
        (
            "hyper::client::conn::http1::Builder::new",
            "src/client/conn/http1.rs",
        ),
    ] {
        let v = p.json(&["symbol", query]);
        assert_eq!(v["hits"][0]["path"], path, "symbol {query}: {v}");
        let v = p.json(&["search", query]);
        assert_eq!(v["hits"][0]["path"], path, "search {query}: {v}");
    }
}
