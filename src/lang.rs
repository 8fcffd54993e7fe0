//! Owns language detection (file name → [`Lang`], plus the `.h` C-or-C++
//! guess and the first line of extension-less scripts) and the per-language
//! tree-sitter grammar with its tags query, built once per process and
//! shared by every thread. Does not read or parse files, nor interpret query
//! captures (that is `extract`'s job).
//!
//! **Invariant**: every tags query is the grammar crate's own `TAGS_QUERY`
//! followed by our additions in `src/extract/queries/*.scm`, so the stock
//! patterns keep the lowest pattern indexes and win ties when the extractor
//! deduplicates. TypeScript and TSX also need JavaScript's query: the
//! TypeScript crate's query only covers what TypeScript adds. Grammars whose
//! crate ships no `TAGS_QUERY` (Kotlin, Bash, Haskell, Zig, Erlang, Julia) use ours alone;
//! Scala's crate has a `tags.scm` but exports no constant, so
//! `queries/scala.scm` starts with a verbatim copy of it.

use std::path::Path;
use std::sync::OnceLock;

use tree_sitter::{Language, Query};

use crate::model::Lang;

/// Guesses the language of a file from its name alone. `None` means the
/// file is not indexed at all (binaries, images, lock files, unknown types).
pub fn detect_lang(path: &Path) -> Option<Lang> {
    let name = path.file_name()?.to_string_lossy();
    if let Some(lang) = lang_for_file_name(&name) {
        return Some(lang);
    }
    let (stem, ext) = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => (stem, Some(ext.to_ascii_lowercase())),
        _ => (name.as_ref(), None),
    };
    // A translated README or changelog whose language code is also a code
    // extension (nginx's `CHANGES.ru` is Russian, not Rack's `config.ru`;
    // `README.pl`, `README.cs`, `README.el`, `README.ml`), written in
    // capitals as such documents are (`History.cs`, `Security.pm` are code).
    if stem.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
        && ext
            .as_deref()
            .is_some_and(|e| matches!(e, "ru" | "pl" | "cs" | "el" | "ml"))
        && is_docs_file_name(&name)
    {
        return Some(Lang::Docs);
    }
    if let Some(lang) = ext.as_deref().and_then(lang_for_extension) {
        return Some(lang);
    }
    // A template configure or CMake fills in (`curl_config.h.in`,
    // `Version.java.in`, `setup.py.in`) is code of its inner extension;
    // automake's `Makefile.in` (generated, no inner extension) is not.
    if ext.as_deref() == Some("in")
        && let Some((inner_stem, inner)) = stem.rsplit_once('.')
        && !inner_stem.is_empty()
        && let Some(lang) = lang_for_extension(&inner.to_ascii_lowercase())
    {
        return Some(lang);
    }
    if is_docs_file_name(&name) {
        return Some(Lang::Docs);
    }
    None
}

/// Well-known files recognised by their whole name.
fn lang_for_file_name(name: &str) -> Option<Lang> {
    Some(match name {
        "Rakefile" | "Gemfile" | "Guardfile" | "Capfile" | "Vagrantfile" | "Podfile"
        | "Fastfile" | "Dangerfile" | "Brewfile" => Lang::Ruby,
        // Erlang terms that configure the build and the release.
        "rebar.config" | "rebar.config.script" | "sys.config" | "elvis.config" => Lang::Erlang,
        _ if name.ends_with(".app.src") => Lang::Erlang,
        // Go's module and workspace files: the module path, the Go
        // version and every dependency.
        "go.mod" | "go.work" => Lang::OtherCode,
        // OCaml's build: each directory's libraries, executables, C stubs
        // and preprocessors.
        "dune" | "dune-project" | "dune-workspace" => Lang::OtherCode,
        "Makefile" | "makefile" | "GNUmakefile" | "Dockerfile" | "Containerfile"
        | "CMakeLists.txt" | "Jenkinsfile" | "Kconfig" | "Kbuild" | "BUILD" | "BUILD.bazel"
        | "WORKSPACE" | "meson.build" | "Justfile" | "justfile" | "configure.ac" => Lang::OtherCode,
        _ if name.starts_with("Dockerfile.") || name.starts_with("Kconfig.") => Lang::OtherCode,
        _ => return None,
    })
}

/// Extension (lowercase, without the dot) → language.
/// Whether a file name's extension is one a language is read by
/// (`permute.lua`; not `Security.validate_csrf_token`, nor a docs name).
pub fn is_code_extension(name: &str) -> bool {
    name.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && lang_for_extension(&ext.to_ascii_lowercase()).is_some()
    })
}

fn lang_for_extension(ext: &str) -> Option<Lang> {
    Some(match ext {
        "rs" => Lang::Rust,
        "py" | "pyi" => Lang::Python,
        "js" | "mjs" | "cjs" | "jsx" => Lang::JavaScript,
        "ts" | "mts" | "cts" => Lang::TypeScript,
        // Single-file components: their `<script>` blocks are parsed, the
        // rest (template, style) is chunked as text (see `is_component`).
        "vue" | "svelte" => Lang::JavaScript,
        "tsx" => Lang::Tsx,
        "go" => Lang::Go,
        "java" => Lang::Java,
        "c" | "h" => Lang::C,
        // CUDA is C++ with launch syntax (`<<<…>>>`) the grammar skips over.
        "cc" | "cpp" | "cxx" | "c++" | "hpp" | "hh" | "hxx" | "h++" | "ipp" | "tpp" | "inl"
        | "cu" | "cuh" => Lang::Cpp,
        "rb" | "rake" | "gemspec" | "podspec" | "ru" => Lang::Ruby,
        "cs" | "csx" => Lang::CSharp,
        "kt" | "kts" => Lang::Kotlin,
        "php" | "phtml" => Lang::Php,
        "swift" => Lang::Swift,
        "scala" | "sbt" => Lang::Scala,
        "lua" => Lang::Lua,
        // tree-sitter-bash reads most zsh and ksh well enough for functions.
        "sh" | "bash" | "zsh" | "ksh" => Lang::Bash,
        "ex" | "exs" => Lang::Elixir,
        // hsc2hs input: Haskell with `#{…}` directives the grammar skips.
        "hs" | "hsc" => Lang::Haskell,
        "zig" => Lang::Zig,
        // Objective-C++ too: its methods and classes parse, its C++ parts less so.
        "m" | "mm" => Lang::ObjC,
        "erl" | "hrl" => Lang::Erlang,
        // Interfaces too: `extract` reads them with the interface dialect.
        // Batteries' `.mlv`/`.mliv` are OCaml with optcomp version lines
        // (`##V>=4.07##`), which the grammar reads past.
        "ml" | "mli" | "mlv" | "mliv" => Lang::OCaml,
        "jl" => Lang::Julia,
        "r" => Lang::R,
        "html" | "htm" | "css" | "scss" | "sass" | "less" | "json" | "yaml" | "yml" | "toml"
        | "xml" | "cmake" | "ini" | "cfg" | "conf" | "tf" | "dockerfile" | "mk" => Lang::OtherCode,
        // Code whose definitions the line heuristic reads (Perl, Nim, the
        // Lisps, …), its extensions listed once, in `HEURISTIC_LANGS`.
        _ if heuristic_lang_for_extension(ext).is_some() => Lang::OtherCode,
        // More code without a grammar here: line-window chunks for BM25 and
        // semantic search (keyword search reads every file regardless).
        "s" | "asm" | "edn" | "fs" | "fsi" | "fsx" | "vb" | "bat" | "cmd" | "purs" | "hx"
        | "nix" | "awk" | "f90" | "f95" | "f03" | "adb" | "ads" | "sv" | "svh" | "vhd" | "vhdl"
        | "vim" | "pyx" | "pxd" | "eex" | "heex" | "erb" | "haml" | "hbs" | "mustache" | "twig"
        | "j2" | "jinja" | "glsl" | "hlsl" | "wgsl" | "metal" | "capnp" | "fbs" | "prisma"
        | "coffee" | "raku" | "rakumod" | "pas" | "hcl" | "m4" | "cabal" | "xs" => Lang::OtherCode,
        // Grammars and lexers (Bison/yacc, flex/lex, ANTLR, PEG, pest,
        // LALRPOP, Jison, gperf, Ragel, Menhir, ocamllex, yecc, leex): where a language's syntax is
        // defined, often the one file that answers "where is the grammar"
        // (jq's `parser.y`, tmux's `cmd-parse.y`, lighttpd's
        // `configparser.y`), next to the C a generator made of it.
        _ if is_grammar_extension(ext) => Lang::OtherCode,
        // Code in a project's own language that has no grammar here (jq's
        // builtins in `builtin.jq`), includes, X-macro tables, automake
        // input, Java properties, templates and Razor views.
        "jq" | "inc" | "def" | "am" | "properties" | "liquid" | "ejs" | "pug" | "njk"
        | "cshtml" | "razor" | "tmpl" | "tpl" => Lang::OtherCode,
        "md" | "markdown" | "rst" | "txt" | "adoc" | "asciidoc" | "org" | "rdoc" | "mld" => {
            Lang::Docs
        }
        _ => return None,
    })
}

/// Languages without a grammar here whose definitions a line heuristic
/// reads (`extract::fallback`), by the name `--lang` takes, with their
/// extensions (lowercase, without the dot). Their files are
/// [`Lang::OtherCode`].
pub const HEURISTIC_LANGS: &[(&str, &[&str])] = &[
    // Perl's tests are `t/*.t` (Test::More scripts); Git's own programs
    // are `*.perl` (`git-send-email.perl`), Plack's applications `*.psgi`.
    ("perl", &["pl", "pm", "t", "perl", "psgi"]),
    ("dart", &["dart"]),
    ("nim", &["nim"]),
    ("proto", &["proto"]),
    ("sql", &["sql"]),
    ("fish", &["fish"]),
    ("clojure", &["clj", "cljs", "cljc"]),
    ("elisp", &["el"]),
    ("scheme", &["scm"]),
    ("racket", &["rkt"]),
    ("commonlisp", &["lisp"]),
    ("groovy", &["groovy", "gradle"]),
    ("solidity", &["sol"]),
    ("crystal", &["cr"]),
    ("elm", &["elm"]),
    ("powershell", &["ps1", "psm1"]),
    ("tcl", &["tcl"]),
    ("starlark", &["bzl", "star"]),
    ("graphql", &["graphql", "graphqls", "gql"]),
    ("thrift", &["thrift"]),
];

/// The [`HEURISTIC_LANGS`] name of the file at `path`, by its extension.
pub fn heuristic_lang(path: &str) -> Option<&'static str> {
    let ext = Path::new(path).extension()?.to_str()?.to_ascii_lowercase();
    heuristic_lang_for_extension(&ext)
}

/// The [`HEURISTIC_LANGS`] name of an extension (lowercase, no dot).
fn heuristic_lang_for_extension(ext: &str) -> Option<&'static str> {
    HEURISTIC_LANGS
        .iter()
        .find(|(_, exts)| exts.contains(&ext))
        .map(|(name, _)| *name)
}

/// Extensions of grammars and lexers a generator turns into code (Bison
/// and yacc, flex and lex, ANTLR, PEG, pest, LALRPOP, Jison, gperf,
/// Ragel, Menhir and ocamlyacc, ocamllex, Erlang's yecc and leex), lowercase, without the dot.
pub fn is_grammar_extension(ext: &str) -> bool {
    // `jay`: Mono's yacc (the C# compiler's `cs-parser.jay`).
    const GRAMMARS: [&str; 18] = [
        "y", "yy", "ypp", "l", "ll", "lex", "g4", "peg", "pest", "lalrpop", "jison", "gperf", "rl",
        "mly", "mll", "yrl", "xrl", "jay",
    ];
    GRAMMARS.contains(&ext)
}

/// What a grammar or lexer file is, in the words a question uses for it
/// ("where is the filter grammar defined" for jq's `parser.y`): Bison,
/// yacc, ANTLR, PEG, pest, LALRPOP and Jison files are grammars, flex and
/// lex files lexers. Nothing in such a file's text says so, and the path
/// column of the full-text index is where these words go.
pub fn grammar_kind_words(ext: &str) -> &'static [&'static str] {
    match ext {
        "y" | "yy" | "ypp" | "g4" | "peg" | "pest" | "lalrpop" | "jison" | "mly" | "yrl"
        | "jay" => &["grammar", "parser"],
        "l" | "ll" | "lex" | "mll" | "xrl" => &["lexer", "grammar"],
        _ => &[],
    }
}

/// Whether a file is a single-file component (Vue, Svelte): code only in
/// its `<script>` blocks, JavaScript or TypeScript, read with the
/// TypeScript grammar (which reads both) after the rest is blanked.
pub fn is_component(path: &str) -> bool {
    path.rsplit_once('.').is_some_and(|(_, ext)| {
        ext.eq_ignore_ascii_case("vue") || ext.eq_ignore_ascii_case("svelte")
    })
}

/// README, LICENSE, CHANGELOG and friends, with no extension or an unknown
/// one (`LICENSE-MIT`, `COPYING.LESSER`).
fn is_docs_file_name(name: &str) -> bool {
    const STEMS: [&str; 17] = [
        "README",
        "LICENSE",
        "LICENCE",
        "COPYING",
        "CHANGELOG",
        "CHANGES",
        "HISTORY",
        "NEWS",
        "AUTHORS",
        "CONTRIBUTORS",
        "CONTRIBUTING",
        "NOTICE",
        "INSTALL",
        "TODO",
        "MAINTAINERS",
        "SECURITY",
        "CODE_OF_CONDUCT",
    ];
    let upper = name.to_ascii_uppercase();
    STEMS.iter().any(|stem| {
        upper
            .strip_prefix(stem)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '-', '_']))
    })
}

/// Whether a file that [`detect_lang`] does not know could still be a
/// script worth a look at its first line ([`lang_from_first_line`]): only names
/// without an extension (`completions/git`, `bin/deploy`), so the walk reads
/// the head of few files.
pub fn may_be_script(path: &Path) -> bool {
    let Some(name) = path.file_name() else {
        return false;
    };
    let name = name.to_string_lossy();
    let has_ext = matches!(name.rsplit_once('.'), Some((stem, _)) if !stem.is_empty());
    !has_ext && detect_lang(path).is_none()
}

/// How many bytes of a possible script [`lang_from_first_line`] reads: a
/// page, enough for the lines after a licence header when there is no
/// `#!` line ([`reads_as_shell`]).
pub const SCRIPT_HEAD_BYTES: usize = 4096;

/// The language the first line of an extension-less script names: a `#!`
/// line (`#!/bin/bash`, `#!/usr/bin/env python3`, `#!/usr/bin/env -S node
/// --flag`) or an Emacs mode line in a comment (`# -*- shell-script -*-`,
/// as every bash-completion script has instead of a shebang);
/// [`Lang::OtherCode`] for a language the line heuristic reads
/// ([`script_heuristic_lang`]: Perl, Tcl, ...). Without either line (or
/// with a mode line naming no language here), [`Lang::Bash`] when the
/// head's lines read as shell ([`reads_as_shell`]: nginx's `auto/`).
/// `None` otherwise, or when the line names a language with neither a
/// grammar nor the heuristic here (`awk`).
pub fn lang_from_first_line(head: &[u8]) -> Option<Lang> {
    if script_heuristic_lang(head).is_some() {
        return Some(Lang::OtherCode);
    }
    let first = first_line(head)?;
    if let Some(line) = first.strip_prefix("#!") {
        return lang_of_program(interpreter(line)?);
    }
    if first.starts_with('#')
        && let Some(lang) = lang_of_emacs_mode(first)
    {
        return Some(lang);
    }
    reads_as_shell(head).then_some(Lang::Bash)
}

/// Whether the head of an extension-less file with neither a `#!` nor a
/// mode line is shell by its lines: the scripts a build or tool sources
/// rather than runs (nginx's `auto/feature`, `auto/modules`; Git's
/// `mergetools/vimdiff`). Comment and blank lines do not count; of the
/// rest, at least two must be shell statements (`if [ … ]; then`, `fi`,
/// `case … in`, `. auto/have`, `echo`, `name () {`) and with assignments
/// (`NGX_PREFIX=`) they must make most lines, so prose, `KEY=value` files
/// and other languages stay out. A head cut mid-line drops that line.
fn reads_as_shell(head: &[u8]) -> bool {
    if head.contains(&0) {
        return false;
    }
    let text = String::from_utf8_lossy(head);
    let mut lines: Vec<&str> = text.lines().collect();
    if head.len() == SCRIPT_HEAD_BYTES && !text.ends_with('\n') {
        lines.pop();
    }
    let (mut statements, mut assignments, mut code) = (0usize, 0usize, 0usize);
    for line in lines {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        code += 1;
        if is_shell_statement(line) {
            statements += 1;
        } else if is_shell_assignment(line) {
            assignments += 1;
        }
    }
    statements >= 2 && (statements + assignments) * 2 > code
}

/// A line only shell writes this way: a keyword of its control flow, a
/// builtin that starts a statement, or a function definition.
fn is_shell_statement(line: &str) -> bool {
    const WORDS: [&str; 20] = [
        "if", "then", "elif", "else", "fi", "for", "while", "until", "do", "done", "case", "esac",
        "echo", "export", "local", "unset", "shift", "exit", "return", "eval",
    ];
    // A case arm's end alone on its line (Lisp comments open with `;;`).
    if line == ";;" {
        return true;
    }
    let word = line
        .split(|c: char| c.is_whitespace() || c == ';')
        .next()
        .unwrap_or("");
    if WORDS.contains(&word) {
        // `do` or `done` alone, `if [ … ]`, `case $x in`; prose that opens
        // with "if" or "for" rarely ends the way shell does.
        return match word {
            "if" | "elif" | "while" | "until" => {
                line.ends_with("then") || line.contains(" [ ") || line.contains(" test ")
            }
            "for" => line.ends_with("do") || line.contains(" in "),
            "case" => line.ends_with(" in"),
            "else" | "then" | "do" | "fi" | "done" | "esac" => {
                line.len() == word.len() || line[word.len()..].starts_with([';', ' '])
            }
            _ => true,
        };
    }
    // A here-document into a file: `cat << END >> $NGX_AUTO_CONFIG_H`.
    if word == "cat" && line.contains(" <<") {
        return true;
    }
    // `. auto/have`, `. "$MERGE_TOOLS_DIR/vimdiff"`: sourcing a file.
    if let Some(rest) = line.strip_prefix(". ") {
        return !rest.starts_with(' ') && !rest.is_empty();
    }
    // `diff_cmd () {`, `merge_cmd() {`
    if let Some((name, rest)) = line.split_once("()") {
        let name = name.trim_end();
        return !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            && matches!(rest.trim(), "{" | "");
    }
    false
}

/// `NAME=value`, `NAME="$NAME more"`: an assignment as shell writes it,
/// with no space before the `=`.
fn is_shell_assignment(line: &str) -> bool {
    line.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
    })
}

fn first_line(head: &[u8]) -> Option<&str> {
    let end = head.iter().position(|&b| b == b'\n').unwrap_or(head.len());
    std::str::from_utf8(&head[..end]).ok()
}

/// The [`HEURISTIC_LANGS`] name of an extension-less script's language
/// when its head names one the line heuristic reads: a `#!` line
/// (`#!/usr/bin/perl -w`, `#!/usr/bin/env tclsh`), an Emacs mode line
/// (`# -*- perl -*-`), or a shell line that hands the file to Tcl on its
/// next lines (gitk's and git-gui's `#!/bin/sh`, `# … -*- tcl -*- \`,
/// `exec wish "$0" -- "$@"`), which would otherwise read as shell.
pub fn script_heuristic_lang(head: &[u8]) -> Option<&'static str> {
    let first = first_line(head)?;
    if let Some(line) = first.strip_prefix("#!") {
        let program = interpreter(line)?;
        let named = heuristic_interpreter(program);
        if named.is_some() || lang_of_program(program) != Some(Lang::Bash) {
            return named;
        }
        // A shell line: Tcl scripts start this way to find `wish` or
        // `tclsh` on the PATH; the shell runs up to the `exec`.
        let text = String::from_utf8_lossy(head);
        let hands_to_tcl = text.lines().skip(1).take(3).any(|l| {
            let l = l.trim_start();
            emacs_mode(l).as_deref() == Some("tcl")
                || l.strip_prefix("exec ")
                    .and_then(interpreter)
                    .and_then(heuristic_interpreter)
                    == Some("tcl")
        });
        return hands_to_tcl.then_some("tcl");
    }
    if first.starts_with('#') {
        return match emacs_mode(first)?.as_str() {
            "perl" | "cperl" => Some("perl"),
            "tcl" => Some("tcl"),
            _ => None,
        };
    }
    None
}

/// The program a `#!` line runs (`/usr/bin/env -S perl -w` → `perl`),
/// without a version suffix (`python3.12` → `python`).
fn interpreter(line: &str) -> Option<&str> {
    let mut words = line.split_whitespace();
    let mut program = words.next()?.rsplit('/').next()?;
    if program == "env" {
        program = words.find(|w| !w.starts_with('-') && !w.contains('='))?;
    }
    Some(program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.'))
}

/// The [`HEURISTIC_LANGS`] name of an [`interpreter`] (`perl`, `tclsh`,
/// `wish`, `expect`, `fish`, `pwsh`, `groovy`, `crystal`).
fn heuristic_interpreter(program: &str) -> Option<&'static str> {
    Some(match program {
        "perl" => "perl",
        "tclsh" | "wish" | "expect" => "tcl",
        "fish" => "fish",
        "pwsh" | "powershell" => "powershell",
        "groovy" => "groovy",
        "crystal" => "crystal",
        _ => return None,
    })
}

/// The mode an Emacs mode line names, lowercase: `-*- shell-script -*-`
/// or `-*- mode: python; coding: utf-8 -*-`.
fn emacs_mode(line: &str) -> Option<String> {
    let (_, rest) = line.split_once("-*-")?;
    let (inner, _) = rest.split_once("-*-")?;
    Some(
        inner
            .split(';')
            .find_map(|part| {
                let part = part.trim();
                match part.split_once(':') {
                    Some((key, value)) => key
                        .trim()
                        .eq_ignore_ascii_case("mode")
                        .then(|| value.trim()),
                    None => Some(part),
                }
            })?
            .to_ascii_lowercase(),
    )
}

/// `-*- shell-script -*-` or `-*- mode: python; coding: utf-8 -*-`.
fn lang_of_emacs_mode(line: &str) -> Option<Lang> {
    let mode = emacs_mode(line)?;
    Some(match mode.as_str() {
        "shell-script" | "sh" | "bash" | "ksh" | "zsh" => Lang::Bash,
        "python" => Lang::Python,
        "ruby" => Lang::Ruby,
        "lua" => Lang::Lua,
        "php" => Lang::Php,
        "js" | "javascript" => Lang::JavaScript,
        "erlang" => Lang::Erlang,
        _ => return None,
    })
}

/// The language of an [`interpreter`] that has a grammar here.
fn lang_of_program(program: &str) -> Option<Lang> {
    Some(match program {
        "sh" | "bash" | "zsh" | "ksh" | "dash" | "ash" | "mksh" => Lang::Bash,
        "python" | "pypy" => Lang::Python,
        "ruby" => Lang::Ruby,
        "node" | "nodejs" => Lang::JavaScript,
        "lua" | "luajit" => Lang::Lua,
        "php" => Lang::Php,
        "elixir" => Lang::Elixir,
        "escript" => Lang::Erlang,
        _ => return None,
    })
}

/// How much of a `.h` file [`refine_lang`] looks at.
const REFINE_SCAN_BYTES: usize = 64 * 1024;

/// Corrects a name-based guess with a cheap look at the text of the file
/// at `path`: a `.h` header detected as C becomes Objective-C when it
/// declares an `@interface`, `@protocol` or `@class`, else C++ when it
/// clearly is C++ (classes, namespaces, templates, access specifiers,
/// `std::`, extension-less standard headers); a `.c` file stays C (tmux's
/// `cmd-list-buffers.c` assigns a variable named `template`, and a C
/// comment may mention `std::string`); a `.m` file of MATLAB functions is
/// other code. A Rust file of comments only (clap's `_cookbook/*.rs`,
/// rustls's `manual/*.rs`: a manual's chapters as `//!` or `/*! … */`
/// docs) is documentation. Every other language is returned unchanged.
pub fn refine_lang(lang: Lang, path: &str, source: &str) -> Lang {
    if lang == Lang::Rust {
        return if is_rust_comments_only(source) {
            Lang::Docs
        } else {
            lang
        };
    }
    if !matches!(lang, Lang::C | Lang::ObjC) || (lang == Lang::C && path.ends_with(".c")) {
        return lang;
    }
    let mut end = source.len().min(REFINE_SCAN_BYTES);
    while !source.is_char_boundary(end) {
        end -= 1;
    }
    let head = &source[..end];
    if lang == Lang::ObjC {
        // `.m` is MATLAB's too: `function y = f(x)` and no Objective-C or
        // C preprocessor line is MATLAB (or Octave), which no grammar here reads.
        let matlab = head
            .lines()
            .any(|l| l.trim_start().starts_with("function "))
            && !head.lines().any(|l| {
                let t = l.trim_start();
                is_objc_line(l) || t.starts_with("#import") || t.starts_with("#include")
            });
        return if matlab { Lang::OtherCode } else { Lang::ObjC };
    }
    if head.lines().any(is_objc_line) {
        Lang::ObjC
    } else if head.lines().any(is_cpp_line) {
        Lang::Cpp
    } else if head.lines().any(|l| l.trim_start().starts_with("#import")) {
        // Objective-C's include-once with nothing of C++ (capacitor's
        // `Capacitor.h`, imports only).
        Lang::ObjC
    } else {
        Lang::C
    }
}

/// Whether Rust source holds nothing but comments (line and block ones,
/// nested as Rust nests them) and inner attributes (`#![doc = …]`), with
/// at least one comment: no item, so nothing to define or run.
fn is_rust_comments_only(source: &str) -> bool {
    let b = source.as_bytes();
    let line_end = |i: usize| memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
    let mut i = 0;
    let mut comments = false;
    while i < b.len() {
        match b[i] {
            c if c.is_ascii_whitespace() => i += 1,
            b'/' if b.get(i + 1) == Some(&b'/') => {
                comments = true;
                i = line_end(i);
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                comments = true;
                let mut depth = 0usize;
                loop {
                    if i + 1 >= b.len() {
                        return false;
                    }
                    if b[i] == b'/' && b[i + 1] == b'*' {
                        depth += 1;
                        i += 2;
                    } else if b[i] == b'*' && b[i + 1] == b'/' {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
            }
            b'#' if b.get(i + 1) == Some(&b'!') && b.get(i + 2) == Some(&b'[') => {
                // To the attribute's closing bracket on its line.
                let end = line_end(i);
                if !source[i..end].trim_end().ends_with(']') {
                    return false;
                }
                i = end;
            }
            _ => return false,
        }
    }
    comments
}

/// An Objective-C declaration (`#import` alone is not one: C++ headers
/// for Apple platforms use it too).
fn is_objc_line(line: &str) -> bool {
    let t = line.trim_start();
    [
        "@interface",
        "@protocol",
        "@implementation",
        "@class ",
        "NS_ASSUME_NONNULL_BEGIN",
    ]
    .iter()
    .any(|w| t.starts_with(w))
}

fn is_cpp_line(line: &str) -> bool {
    let t = line.trim_start();
    let starts_word = |word: &str| {
        t.strip_prefix(word).is_some_and(|rest| {
            rest.starts_with(|c: char| c.is_whitespace() || c == '<' || c == ':')
        })
    };
    if starts_word("class") && !t.trim_end().ends_with(';') {
        return true;
    }
    // `template <typename T>`, not C's `template = args_get(…);`.
    let template = t
        .strip_prefix("template")
        .is_some_and(|rest| rest.trim_start().starts_with('<'));
    if starts_word("namespace") || template || t.starts_with("using namespace") {
        return true;
    }
    if ["public:", "private:", "protected:"]
        .iter()
        .any(|s| t.starts_with(s))
    {
        return true;
    }
    if t.contains("std::") {
        return true;
    }
    // C's standard headers all end in `.h`; `<vector>` or `<iostream>` is C++.
    if let Some(rest) = t.strip_prefix("#include") {
        let rest = rest.trim_start();
        if let Some(header) = rest
            .strip_prefix('<')
            .and_then(|r| r.split_once('>'))
            .map(|(h, _)| h)
        {
            return !header.is_empty()
                && !header.contains('.')
                && !header.contains('/')
                && header.bytes().all(|b| b.is_ascii_lowercase() || b == b'_');
        }
    }
    false
}

/// A tree-sitter grammar and its tags query, compiled once.
pub struct Grammar {
    pub lang: Lang,
    pub language: Language,
    /// The stock `TAGS_QUERY` with repo-search's additions appended.
    pub tags_query: Query,
}

/// The grammar and tags query for `lang`, compiled on first use and shared by
/// all threads afterwards; `None` for languages without a grammar
/// ([`Lang::OtherCode`], [`Lang::Docs`]).
///
/// # Panics
///
/// If a built-in query does not compile against its grammar, which is a bug
/// caught by `lang::tests::all_grammars_and_queries_compile`.
pub fn grammar(lang: Lang) -> Option<&'static Grammar> {
    grammar_in_slot(lang, grammar_slot(lang)?)
}

/// The grammar a file at `path` in `lang` is read with: [`grammar`], but
/// OCaml interfaces (`.mli`) have a dialect of their own (`val f : t`
/// declarations, `sig … end` modules) that the implementation grammar
/// cannot read.
pub fn grammar_for_path(lang: Lang, path: &str) -> Option<&'static Grammar> {
    if lang == Lang::OCaml && is_ocaml_interface(path) {
        return grammar_in_slot(lang, OCAML_INTERFACE_SLOT);
    }
    grammar(lang)
}

/// Whether `path` is an OCaml interface (`.mli`, Batteries' `.mliv`).
pub fn is_ocaml_interface(path: &str) -> bool {
    path.rsplit_once('.')
        .is_some_and(|(_, ext)| ext.eq_ignore_ascii_case("mli") || ext.eq_ignore_ascii_case("mliv"))
}

/// Whether `path` is OCaml source, an implementation or an interface
/// (`.ml`, `.mli`, Batteries' `.mlv`, `.mliv`): a module of its file's
/// name.
pub fn is_ocaml_path(path: &str) -> bool {
    path.rsplit_once('.').is_some_and(|(_, ext)| {
        ["ml", "mli", "mlv", "mliv"]
            .iter()
            .any(|e| ext.eq_ignore_ascii_case(e))
    })
}

/// The slot after every language's own: OCaml's interface dialect.
const OCAML_INTERFACE_SLOT: usize = 25;

fn grammar_in_slot(lang: Lang, slot: usize) -> Option<&'static Grammar> {
    static GRAMMARS: [OnceLock<Grammar>; 26] = [const { OnceLock::new() }; 26];
    Some(GRAMMARS.get(slot)?.get_or_init(|| {
        let (language, source) = if slot == OCAML_INTERFACE_SLOT {
            (
                tree_sitter_ocaml::LANGUAGE_OCAML_INTERFACE.into(),
                [tree_sitter_ocaml::TAGS_QUERY, OCAML_INTERFACE_EXTRA].join("\n"),
            )
        } else {
            grammar_parts(lang)
        };
        let tags_query = Query::new(&language, &source).unwrap_or_else(|e| {
            panic!(
                "built-in tags query for {} does not compile: {e}",
                lang.name()
            )
        });
        Grammar {
            lang,
            language,
            tags_query,
        }
    }))
}

fn grammar_slot(lang: Lang) -> Option<usize> {
    Some(match lang {
        Lang::Rust => 0,
        Lang::Python => 1,
        Lang::JavaScript => 2,
        Lang::TypeScript => 3,
        Lang::Tsx => 4,
        Lang::Go => 5,
        Lang::Java => 6,
        Lang::C => 7,
        Lang::Cpp => 8,
        Lang::Ruby => 9,
        Lang::CSharp => 10,
        Lang::Kotlin => 11,
        Lang::Php => 12,
        Lang::Swift => 13,
        Lang::Scala => 14,
        Lang::Lua => 15,
        Lang::Bash => 16,
        Lang::Elixir => 17,
        Lang::Haskell => 18,
        Lang::Zig => 19,
        Lang::ObjC => 20,
        Lang::Erlang => 21,
        Lang::OCaml => 22,
        Lang::Julia => 23,
        Lang::R => 24,
        Lang::OtherCode | Lang::Docs => return None,
    })
}

const RUST_EXTRA: &str = include_str!("extract/queries/rust.scm");
const PYTHON_EXTRA: &str = include_str!("extract/queries/python.scm");
const ECMA_EXTRA: &str = include_str!("extract/queries/ecma.scm");
const JAVASCRIPT_EXTRA: &str = include_str!("extract/queries/javascript.scm");
const TYPESCRIPT_EXTRA: &str = include_str!("extract/queries/typescript.scm");
const GO_EXTRA: &str = include_str!("extract/queries/go.scm");
const JAVA_EXTRA: &str = include_str!("extract/queries/java.scm");
const C_EXTRA: &str = include_str!("extract/queries/c.scm");
const CPP_EXTRA: &str = include_str!("extract/queries/cpp.scm");
const RUBY_EXTRA: &str = include_str!("extract/queries/ruby.scm");
const CSHARP_EXTRA: &str = include_str!("extract/queries/csharp.scm");
const KOTLIN_TAGS: &str = include_str!("extract/queries/kotlin.scm");
const PHP_EXTRA: &str = include_str!("extract/queries/php.scm");
const SWIFT_EXTRA: &str = include_str!("extract/queries/swift.scm");
const SCALA_TAGS: &str = include_str!("extract/queries/scala.scm");
const LUA_EXTRA: &str = include_str!("extract/queries/lua.scm");
const BASH_TAGS: &str = include_str!("extract/queries/bash.scm");
const ELIXIR_EXTRA: &str = include_str!("extract/queries/elixir.scm");
const HASKELL_TAGS: &str = include_str!("extract/queries/haskell.scm");
const ZIG_TAGS: &str = include_str!("extract/queries/zig.scm");
const OBJC_TAGS: &str = include_str!("extract/queries/objc.scm");
const ERLANG_TAGS: &str = include_str!("extract/queries/erlang.scm");
const OCAML_EXTRA: &str = include_str!("extract/queries/ocaml.scm");
const R_EXTRA: &str = include_str!("extract/queries/r.scm");
const JULIA_TAGS: &str = include_str!("extract/queries/julia.scm");
const OCAML_INTERFACE_EXTRA: &str = include_str!("extract/queries/ocaml_interface.scm");

/// The tree-sitter language and the full tags query source for `lang`.
/// Only called for languages with a grammar slot.
fn grammar_parts(lang: Lang) -> (Language, String) {
    let (language, parts): (Language, &[&str]) = match lang {
        Lang::Rust => (
            tree_sitter_rust::LANGUAGE.into(),
            &[tree_sitter_rust::TAGS_QUERY, RUST_EXTRA],
        ),
        Lang::Python => (
            tree_sitter_python::LANGUAGE.into(),
            &[tree_sitter_python::TAGS_QUERY, PYTHON_EXTRA],
        ),
        Lang::JavaScript => (
            tree_sitter_javascript::LANGUAGE.into(),
            &[
                tree_sitter_javascript::TAGS_QUERY,
                ECMA_EXTRA,
                JAVASCRIPT_EXTRA,
            ],
        ),
        Lang::TypeScript | Lang::Tsx => (
            if lang == Lang::Tsx {
                tree_sitter_typescript::LANGUAGE_TSX.into()
            } else {
                tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into()
            },
            &[
                tree_sitter_typescript::TAGS_QUERY,
                tree_sitter_javascript::TAGS_QUERY,
                ECMA_EXTRA,
                TYPESCRIPT_EXTRA,
            ],
        ),
        Lang::Go => (
            tree_sitter_go::LANGUAGE.into(),
            &[tree_sitter_go::TAGS_QUERY, GO_EXTRA],
        ),
        Lang::Java => (
            tree_sitter_java::LANGUAGE.into(),
            &[tree_sitter_java::TAGS_QUERY, JAVA_EXTRA],
        ),
        Lang::C => (
            tree_sitter_c::LANGUAGE.into(),
            &[tree_sitter_c::TAGS_QUERY, C_EXTRA],
        ),
        Lang::Cpp => (
            tree_sitter_cpp::LANGUAGE.into(),
            &[tree_sitter_cpp::TAGS_QUERY, C_EXTRA, CPP_EXTRA],
        ),
        Lang::Ruby => (
            tree_sitter_ruby::LANGUAGE.into(),
            &[tree_sitter_ruby::TAGS_QUERY, RUBY_EXTRA],
        ),
        Lang::CSharp => (
            tree_sitter_c_sharp::LANGUAGE.into(),
            &[tree_sitter_c_sharp::TAGS_QUERY, CSHARP_EXTRA],
        ),
        Lang::Kotlin => (tree_sitter_kotlin_ng::LANGUAGE.into(), &[KOTLIN_TAGS]),
        // LANGUAGE_PHP, not LANGUAGE_PHP_ONLY: files start with `<?php` and
        // templates mix PHP with HTML.
        Lang::Php => (
            tree_sitter_php::LANGUAGE_PHP.into(),
            &[tree_sitter_php::TAGS_QUERY, PHP_EXTRA],
        ),
        Lang::Swift => (
            tree_sitter_swift::LANGUAGE.into(),
            &[tree_sitter_swift::TAGS_QUERY, SWIFT_EXTRA],
        ),
        Lang::Scala => (tree_sitter_scala::LANGUAGE.into(), &[SCALA_TAGS]),
        Lang::Lua => (
            tree_sitter_lua::LANGUAGE.into(),
            &[tree_sitter_lua::TAGS_QUERY, LUA_EXTRA],
        ),
        Lang::Bash => (tree_sitter_bash::LANGUAGE.into(), &[BASH_TAGS]),
        Lang::Elixir => (
            tree_sitter_elixir::LANGUAGE.into(),
            &[tree_sitter_elixir::TAGS_QUERY, ELIXIR_EXTRA],
        ),
        Lang::Haskell => (tree_sitter_haskell::LANGUAGE.into(), &[HASKELL_TAGS]),
        Lang::Zig => (tree_sitter_zig::LANGUAGE.into(), &[ZIG_TAGS]),
        Lang::ObjC => (
            tree_sitter_objc::LANGUAGE.into(),
            &[tree_sitter_c::TAGS_QUERY, C_EXTRA, OBJC_TAGS],
        ),
        Lang::Erlang => (tree_sitter_erlang::LANGUAGE.into(), &[ERLANG_TAGS]),
        Lang::OCaml => (
            tree_sitter_ocaml::LANGUAGE_OCAML.into(),
            &[tree_sitter_ocaml::TAGS_QUERY, OCAML_EXTRA],
        ),
        Lang::Julia => (tree_sitter_julia::LANGUAGE.into(), &[JULIA_TAGS]),
        Lang::R => (
            tree_sitter_r::LANGUAGE.into(),
            &[tree_sitter_r::TAGS_QUERY, R_EXTRA],
        ),
        Lang::OtherCode | Lang::Docs => unreachable!("grammar_parts called for {}", lang.name()),
    };
    // A newline between parts so a query file without a trailing newline
    // cannot glue its last pattern to the next file's first comment.
    (language, parts.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(path: &str) -> Option<Lang> {
        detect_lang(Path::new(path))
    }

    #[test]
    fn detect_by_extension() {
        assert_eq!(d("src/main.rs"), Some(Lang::Rust));
        assert_eq!(d("a/b.py"), Some(Lang::Python));
        assert_eq!(d("stubs/x.pyi"), Some(Lang::Python));
        for js in ["a.js", "a.mjs", "a.cjs", "a.jsx"] {
            assert_eq!(d(js), Some(Lang::JavaScript), "{js}");
        }
        for ts in ["a.ts", "a.mts", "a.cts", "types.d.ts"] {
            assert_eq!(d(ts), Some(Lang::TypeScript), "{ts}");
        }
        assert_eq!(d("App.tsx"), Some(Lang::Tsx));
        assert_eq!(d("main.go"), Some(Lang::Go));
        assert_eq!(d("Main.java"), Some(Lang::Java));
        assert_eq!(d("x.c"), Some(Lang::C));
        assert_eq!(d("x.h"), Some(Lang::C));
        for cpp in [
            "x.cc", "x.cpp", "x.cxx", "x.c++", "x.hpp", "x.hh", "x.hxx", "x.h++", "X.CPP",
        ] {
            assert_eq!(d(cpp), Some(Lang::Cpp), "{cpp}");
        }
        for rb in [
            "x.rb",
            "tasks.rake",
            "x.gemspec",
            "RNScreens.podspec",
            "Rakefile",
            "fastlane/Fastfile",
            "Gemfile",
            "config.ru",
        ] {
            assert_eq!(d(rb), Some(Lang::Ruby), "{rb}");
        }
        // Translations of a project's documents, not Ruby, Perl or C#.
        for doc in ["CHANGES.ru", "README.ru", "README.pl", "README.cs"] {
            assert_eq!(d(doc), Some(Lang::Docs), "{doc}");
        }
        assert_eq!(d("lib/Readme.pm"), Some(Lang::OtherCode));
        assert_eq!(d("t/attributes/trigger.t"), Some(Lang::OtherCode));
        for perl in ["git-send-email.perl", "eg/dot-psgi/Hello.psgi"] {
            assert_eq!(d(perl), Some(Lang::OtherCode), "{perl}");
            assert_eq!(heuristic_lang(perl), Some("perl"), "{perl}");
        }
        // Batteries' optcomp sources are OCaml, `.mliv` an interface.
        for ml in ["src/batInnerIO.mlv", "src/batList.mliv", "x.ml", "x.mli"] {
            assert_eq!(d(ml), Some(Lang::OCaml), "{ml}");
        }
        assert!(is_ocaml_interface("src/batList.mliv") && !is_ocaml_interface("src/batIO.mlv"));
        // Templates configure fills in are code of their inner extension.
        assert_eq!(d("lib/curl_config.h.in"), Some(Lang::C));
        assert_eq!(d("src/Version.java.in"), Some(Lang::Java));
        assert_eq!(d("Makefile.in"), None);
        assert_eq!(d("curl-config.in"), None);
        assert_eq!(heuristic_lang("t/attributes/trigger.t"), Some("perl"));
        assert_eq!(d("Model/History.cs"), Some(Lang::CSharp));
        assert_eq!(d("lisp/todo.el"), Some(Lang::OtherCode));
        for (path, lang) in [
            ("Widget.cs", Lang::CSharp),
            ("a.kt", Lang::Kotlin),
            ("build.gradle.kts", Lang::Kotlin),
            ("index.php", Lang::Php),
            ("App.swift", Lang::Swift),
            ("Main.scala", Lang::Scala),
            ("build.sbt", Lang::Scala),
            ("init.lua", Lang::Lua),
            ("run.sh", Lang::Bash),
            ("x.bash", Lang::Bash),
            ("prompt.zsh", Lang::Bash),
            ("lib/app.ex", Lang::Elixir),
            ("mix.exs", Lang::Elixir),
            ("Main.hs", Lang::Haskell),
            ("build.zig", Lang::Zig),
            ("rebar.config", Lang::Erlang),
            ("src/lager.app.src", Lang::Erlang),
            ("go.mod", Lang::OtherCode),
            ("xmonad-contrib.cabal", Lang::OtherCode),
            ("Capacitor/CAPPlugin.m", Lang::ObjC),
            ("ios/EXHost.mm", Lang::ObjC),
            ("kernels/gemm.cu", Lang::Cpp),
            ("kernels/gemm.cuh", Lang::Cpp),
            ("arch/x86/entry/entry_64.S", Lang::OtherCode),
            ("Kconfig", Lang::OtherCode),
            ("Kconfig.debug", Lang::OtherCode),
            ("src/core.clj", Lang::OtherCode),
            ("build.ps1", Lang::OtherCode),
            ("src/parser.y", Lang::OtherCode),
            ("src/lexer.l", Lang::OtherCode),
            ("src/parser.mly", Lang::OtherCode),
            ("src/lexer.mll", Lang::OtherCode),
            ("src/elixir_parser.yrl", Lang::OtherCode),
            ("mcs/cs-parser.jay", Lang::OtherCode),
            ("src/dune", Lang::OtherCode),
            ("src/System/Terminal.hsc", Lang::Haskell),
            ("doc/index.mld", Lang::Docs),
            ("README.rdoc", Lang::Docs),
            ("templates/project/settings.py.tmpl", Lang::OtherCode),
            ("cmd-parse.y", Lang::OtherCode),
            ("grammar/Lang.g4", Lang::OtherCode),
            ("src/builtin.jq", Lang::OtherCode),
            ("src/main/resources/application.properties", Lang::OtherCode),
            ("Makefile.am", Lang::OtherCode),
            ("src/components/TodoList.vue", Lang::JavaScript),
            ("src/routes/Counter.svelte", Lang::JavaScript),
        ] {
            assert_eq!(d(path), Some(lang), "{path}");
        }
        for other in [
            "index.html",
            "a.css",
            "package.json",
            "ci.yml",
            "Cargo.toml",
            "Makefile",
            "Dockerfile",
            "CMakeLists.txt",
            "schema.sql",
            "lib.pl",
            "app.dart",
            "main.tf",
        ] {
            assert_eq!(d(other), Some(Lang::OtherCode), "{other}");
        }
        for doc in [
            "README.md",
            "docs/intro.rst",
            "notes.txt",
            "README",
            "LICENSE",
            "CHANGELOG",
            "LICENSE-MIT",
            "x.adoc",
        ] {
            assert_eq!(d(doc), Some(Lang::Docs), "{doc}");
        }
        for none in [
            "logo.png",
            "Cargo.lock",
            "a.o",
            "noext",
            ".bashrc",
            "archive.tar.gz",
            "READMEISH",
        ] {
            assert_eq!(d(none), None, "{none}");
        }
    }

    #[test]
    fn scripts_in_languages_the_line_heuristic_reads_are_other_code() {
        let sniff = |head: &str| {
            (
                lang_from_first_line(head.as_bytes()),
                script_heuristic_lang(head.as_bytes()),
            )
        };
        let other = |name| (Some(Lang::OtherCode), Some(name));
        assert_eq!(sniff("#!/usr/bin/perl -w\nuse strict;"), other("perl"));
        assert_eq!(sniff("#!/usr/bin/env perl5.36\n"), other("perl"));
        assert_eq!(sniff("#!/usr/bin/env tclsh\n"), other("tcl"));
        assert_eq!(sniff("#!/usr/bin/expect -f\n"), other("tcl"));
        assert_eq!(sniff("#!/usr/bin/env fish\n"), other("fish"));
        assert_eq!(sniff("# -*- perl -*-\n"), other("perl"));
        // gitk's and git-gui's head: the shell hands the file to Tcl.
        let gitk = "#!/bin/sh\n# Tcl ignores the next line -*- tcl -*- \\\nexec wish \"$0\" -- \"$@\"\n\nproc hasworktree {} {";
        assert_eq!(sniff(gitk), other("tcl"));
        let tclsh = "#!/bin/sh\n# the next line restarts using tclsh \\\n  exec /usr/bin/tclsh8.6 \"$0\" \"$@\"\n";
        assert_eq!(sniff(tclsh), other("tcl"));
        // A shell script that runs another program stays shell.
        assert_eq!(
            sniff("#!/bin/sh\nexec java -jar app.jar \"$@\"\n"),
            (Some(Lang::Bash), None)
        );
        assert_eq!(
            sniff("#!/bin/sh\n# see wish(1)\n\n\n\nexec wish x\n"),
            (Some(Lang::Bash), None),
            "only the lines right after the shebang"
        );
    }

    #[test]
    fn sourced_shell_without_a_first_line_reads_as_shell() {
        let sniff = |head: &str| lang_from_first_line(head.as_bytes());
        // nginx's auto/modules: a licence comment, then shell.
        let nginx = "\n# Copyright (C) Igor Sysoev\n\n\nif [ $EVENT_SELECT = NO -a $EVENT_FOUND = NO ]; then\n    EVENT_SELECT=YES\nfi\n\nif [ $EVENT_SELECT = YES ]; then\n    have=NGX_HAVE_SELECT . auto/have\n    CORE_SRCS=\"$CORE_SRCS $SELECT_SRCS\"\nfi\n";
        assert_eq!(sniff(nginx), Some(Lang::Bash));
        // Git's mergetools/meld: functions the difftool sources.
        let git = "diff_cmd () {\n\t\"$merge_tool_path\" \"$LOCAL\" \"$REMOTE\"\n}\n\nmerge_cmd () {\n\tif test \"$meld_has_output_option\" = true\n\tthen\n\t\tcheck_unchanged\n\tfi\n}\n";
        assert_eq!(sniff(git), Some(Lang::Bash));
        let case = "case $CPU in\n    amd64)\n        NGX_AUX=x\n    ;;\nesac\n";
        assert_eq!(sniff(case), Some(Lang::Bash));
        // Not shell: prose, a Lisp file's `;;` comments, KEY=value settings,
        // a single statement, a binary head.
        assert_eq!(
            sniff("If you want to build it, then run make.\nFor details see INSTALL.\nDone.\n"),
            None
        );
        assert_eq!(
            sniff(
                ";; options of project.clj\n;; more\n(defproject org.example/sample \"1.0\"\n  :description \"x\")\n"
            ),
            None
        );
        assert_eq!(
            sniff("DATABASE_URL=postgres://x\nSECRET=abc\nDEBUG=1\n"),
            None
        );
        assert_eq!(
            sniff("echo hi\nsome other text\nand more\nand more\n"),
            None
        );
        assert_eq!(sniff("if [ x ]; then\n\0fi\n"), None);
        // Most lines must be shell: one `if` in a page of C is not.
        let c = "static int x;\nint main(void) {\n  return 0;\n}\nif [ a ]; then\nfi\nint y;\nint z;\nvoid f(void);\n";
        assert_eq!(sniff(c), None);
        // A head cut mid-line drops the cut line.
        let mut cut = "if [ a ]; then\n  X=1\nfi\n".repeat(400);
        cut.truncate(SCRIPT_HEAD_BYTES);
        assert_eq!(sniff(&cut), Some(Lang::Bash));
    }

    #[test]
    fn shebang_names_the_language_of_extension_less_scripts() {
        let sniff = |head: &str| lang_from_first_line(head.as_bytes());
        assert_eq!(sniff("#!/bin/bash\n_git() {"), Some(Lang::Bash));
        assert_eq!(sniff("#!/bin/sh -e\n"), Some(Lang::Bash));
        assert_eq!(sniff("#!/usr/bin/env zsh"), Some(Lang::Bash));
        assert_eq!(sniff("#!/usr/bin/env python3.12\n"), Some(Lang::Python));
        assert_eq!(
            sniff("#!/usr/bin/env -S node --flag\n"),
            Some(Lang::JavaScript)
        );
        assert_eq!(sniff("#!/usr/bin/env LC_ALL=C ruby\n"), Some(Lang::Ruby));
        assert_eq!(sniff("#!/usr/bin/lua5.4\n"), Some(Lang::Lua));
        assert_eq!(
            sniff("#!/usr/bin/env escript\n%% -*- erlang -*-\n"),
            Some(Lang::Erlang)
        );
        assert_eq!(sniff("%% -*- erlang -*-\n"), None, "not a # line");
        assert_eq!(
            sniff("#!/usr/bin/awk -f\n"),
            None,
            "no grammar, no heuristic"
        );
        assert_eq!(sniff("# bash completion for git\n"), None);
        assert_eq!(
            sniff("# ssh(1) completion        -*- shell-script -*-\n\n_ssh()"),
            Some(Lang::Bash),
            "bash-completion's mode line"
        );
        assert_eq!(
            sniff("# -*- mode: python; coding: utf-8 -*-\n"),
            Some(Lang::Python)
        );
        assert_eq!(sniff("# -*- scheme -*-\n"), None);
        assert_eq!(
            sniff("x = 1 # -*- shell-script -*-\n"),
            None,
            "only a comment line"
        );
        assert_eq!(sniff(""), None);
        assert_eq!(sniff("#!"), None);
        assert!(may_be_script(Path::new("completions/git")));
        assert!(may_be_script(Path::new("bin/deploy")));
        assert!(
            !may_be_script(Path::new("run.sh")),
            "named by its extension"
        );
        assert!(
            !may_be_script(Path::new("logo.png")),
            "an extension we skip"
        );
        assert!(!may_be_script(Path::new("README")), "docs by name");
        assert!(!may_be_script(Path::new("Makefile")), "known by name");
    }

    #[test]
    fn a_rust_file_of_comments_only_is_documentation() {
        let manual = "/*! # Customising private key usage\n\nBy default /* nested */ keys.\n*/\n";
        assert_eq!(refine_lang(Lang::Rust, "x.rs", manual), Lang::Docs);
        let cookbook = "#![allow(unused)]\n//! # Example: git-like CLI\n//!\n//! ```rust\n//! fn main() {}\n//! ```\n";
        assert_eq!(refine_lang(Lang::Rust, "x.rs", cookbook), Lang::Docs);
        assert_eq!(
            refine_lang(Lang::Rust, "x.rs", "//! Parsing.\npub mod parser;\n"),
            Lang::Rust
        );
        assert_eq!(
            refine_lang(Lang::Rust, "x.rs", "/* unclosed\nfn f() {}\n"),
            Lang::Rust
        );
        assert_eq!(refine_lang(Lang::Rust, "x.rs", "\n"), Lang::Rust);
        assert_eq!(refine_lang(Lang::Rust, "x.rs", "#![no_std]\n"), Lang::Rust);
    }

    #[test]
    fn refine_h_to_cpp_only_when_clearly_cpp() {
        let c = "#ifndef X_H\n#define X_H\n#include <stdio.h>\n#ifdef __cplusplus\nextern \"C\" {\n#endif\nstruct point { int x; };\nint add(int a, int b);\n#endif\n";
        assert_eq!(refine_lang(Lang::C, "x.h", c), Lang::C);
        assert_eq!(
            refine_lang(Lang::C, "x.h", "#include <vector>\nint f();\n"),
            Lang::Cpp
        );
        assert_eq!(
            refine_lang(Lang::C, "x.h", "namespace util {\nint f();\n}\n"),
            Lang::Cpp
        );
        assert_eq!(
            refine_lang(Lang::C, "x.h", "template<typename T>\nT id(T x);\n"),
            Lang::Cpp
        );
        assert_eq!(
            refine_lang(Lang::C, "x.h", "class Widget {\npublic:\n  int w;\n};\n"),
            Lang::Cpp
        );
        assert_eq!(refine_lang(Lang::C, "x.h", "class Widget;\n"), Lang::C);
        // A C variable named `template`, and a `.c` file is C whatever it
        // holds.
        let tmux = "static enum cmd_retval\nf(void)\n{\n\ttemplate = args_get(args, 'F');\n}\n";
        assert_eq!(refine_lang(Lang::C, "x.h", tmux), Lang::C);
        assert_eq!(
            refine_lang(
                Lang::C,
                "cmd-list-buffers.c",
                "namespace util {\nint f();\n}\n"
            ),
            Lang::C
        );
        assert_eq!(
            refine_lang(Lang::Python, "x.py", "class X:\n  pass\n"),
            Lang::Python
        );
        assert_eq!(refine_lang(Lang::C, "x.h", ""), Lang::C);
        let objc = "#import <Foundation/Foundation.h>\n\n@interface Host : NSObject\n@end\n";
        assert_eq!(refine_lang(Lang::C, "x.h", objc), Lang::ObjC);
        assert_eq!(refine_lang(Lang::ObjC, "x.m", objc), Lang::ObjC);
        let matlab =
            "function y = smooth(x, n)\n% moving average\ny = conv(x, ones(n, 1) / n);\nend\n";
        assert_eq!(
            refine_lang(Lang::ObjC, "x.m", matlab),
            Lang::OtherCode,
            "MATLAB's `.m`"
        );
        assert_eq!(
            refine_lang(
                Lang::C,
                "x.h",
                "NS_ASSUME_NONNULL_BEGIN\n@protocol P\n@end\n"
            ),
            Lang::ObjC
        );
        assert_eq!(
            refine_lang(
                Lang::C,
                "x.h",
                "#import <jsi/jsi.h>\nnamespace expo {\nclass A {};\n}\n"
            ),
            Lang::Cpp,
            "`#import` alone is not Objective-C"
        );
        assert_eq!(
            refine_lang(
                Lang::C,
                "x.h",
                "#import <UIKit/UIKit.h>\n#import \"CAPPlugin.h\"\n"
            ),
            Lang::ObjC,
            "`#import` and no C++"
        );
    }

    #[test]
    fn all_grammars_and_queries_compile() {
        // Every language's grammar, and OCaml's interface dialect.
        let files = Lang::ALL.map(|l| (l, "x"));
        for (lang, path) in files.into_iter().chain([(Lang::OCaml, "x.mli")]) {
            let Some(g) = grammar_for_path(lang, path) else {
                assert!(!lang.has_grammar(), "{lang:?} has no grammar");
                continue;
            };
            assert_eq!(g.lang, lang);
            let names = g.tags_query.capture_names();
            assert!(names.contains(&"name"), "{lang:?} query has no @name");
            // A misspelt capture would be silently ignored by the extractor.
            for name in names {
                // `module`: tree-sitter-c-sharp's stock query captures the
                // namespace name twice, once as `@module` (unused).
                let known = [
                    "name",
                    "doc",
                    "local.definition",
                    "local.scope",
                    "ignore",
                    "module",
                ]
                .contains(name)
                    || name.starts_with('_')
                    || name
                        .strip_prefix("definition.")
                        .is_some_and(|k| !k.is_empty())
                    || name
                        .strip_prefix("reference.")
                        .is_some_and(|k| !k.is_empty());
                assert!(known, "{lang:?} query has an unknown capture @{name}");
            }
            assert!(
                names.iter().any(|n| n.starts_with("definition.")),
                "{lang:?} query has no definitions"
            );
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&g.language)
                .expect("grammar ABI matches tree-sitter");
        }
    }
}
