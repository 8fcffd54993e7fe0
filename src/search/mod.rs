//! Owns the search arms: keyword (files on disk), symbol and BM25 (the
//! index), and reading file slices. Each returns plain types; the CLI and
//! MCP layers render them.

pub mod bm25;
pub mod graph;
pub mod hybrid;
pub mod keyword;
pub mod ngram;
pub mod quantized;
pub mod read;
pub mod semantic;
pub mod symbol;
pub mod token_match;

use anyhow::Result;
use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::error::UserError;
use crate::model::Lang;

/// Which chunks a search may return.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scope {
    /// Source code only (no Markdown/RST/text).
    Code,
    /// Documentation only.
    Docs,
    #[default]
    All,
}

impl Scope {
    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "code" => Some(Scope::Code),
            "docs" => Some(Scope::Docs),
            "all" => Some(Scope::All),
            _ => None,
        }
    }
}

/// Path, language and scope filters for index searches.
#[derive(Debug, Clone, Default)]
pub struct ChunkFilter {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
    lang: Option<LangFilter>,
    scope: Scope,
}

/// A `--lang` filter: a language with a grammar (or `other`, `docs`), or
/// one the definition-line heuristic reads (`perl`, `clojure`:
/// [`crate::lang::HEURISTIC_LANGS`]), which is `other` code with that
/// language's extensions.
#[derive(Debug, Clone, Copy)]
pub enum LangFilter {
    Lang(Lang),
    /// A [`crate::lang::HEURISTIC_LANGS`] name.
    Heuristic(&'static str),
}

impl LangFilter {
    /// The filter `name` asks for, among the languages `keep` allows;
    /// an unknown name is an error listing the known ones.
    pub fn parse(name: &str, keep: impl Fn(Lang) -> bool) -> Result<LangFilter, UserError> {
        let lower = name.to_ascii_lowercase();
        if let Some(l) = Lang::from_name(&lower).filter(|&l| keep(l)) {
            return Ok(LangFilter::Lang(l));
        }
        if let Some((name, _)) = crate::lang::HEURISTIC_LANGS
            .iter()
            .find(|(n, _)| *n == lower)
        {
            return Ok(LangFilter::Heuristic(name));
        }
        let heuristic: Vec<&str> = crate::lang::HEURISTIC_LANGS
            .iter()
            .map(|(n, _)| *n)
            .collect();
        Err(
            UserError::new(format!("unknown language `{name}`")).hint(format!(
                "use one of: {}; or, read by a line heuristic: {}",
                Lang::names_where(keep),
                heuristic.join(", ")
            )),
        )
    }

    /// Whether a file at `path` whose index language is `lang` passes.
    pub fn accepts(&self, path: &str, lang: &str) -> bool {
        match self {
            // TypeScript takes in its TSX files, as ripgrep's `ts` type
            // does (`--lang typescript` had left out react-native-svg's
            // main component, `Svg.tsx`); `tsx` asks for those alone.
            LangFilter::Lang(Lang::TypeScript) => lang == "typescript" || lang == "tsx",
            LangFilter::Lang(l) => l.name() == lang,
            LangFilter::Heuristic(name) => {
                lang == Lang::OtherCode.name() && crate::lang::heuristic_lang(path) == Some(name)
            }
        }
    }
}

impl ChunkFilter {
    /// Globs as in `rg -g`: plain globs include, `!glob` excludes. A glob
    /// without `/` matches the file name anywhere, like ripgrep.
    pub fn new(globs: &[String], lang: Option<&str>, scope: Scope) -> Result<ChunkFilter> {
        let mut inc = GlobSetBuilder::new();
        let mut exc = GlobSetBuilder::new();
        let (mut n_inc, mut n_exc) = (0, 0);
        for g in globs {
            let (neg, pat) = match g.strip_prefix('!') {
                Some(p) => (true, p),
                None => (false, g.as_str()),
            };
            crate::walk::reject_outside_glob(g)?;
            let pat = if pat.contains('/') {
                pat.trim_start_matches('/').to_string()
            } else {
                format!("**/{pat}")
            };
            let glob = Glob::new(&pat).map_err(|e| {
                UserError::new(format!("invalid glob `{g}`: {e}"))
                    .hint("globs look like `*.py`, `src/**`, `!tests/**`")
            })?;
            if neg {
                exc.add(glob);
                n_exc += 1;
            } else {
                inc.add(glob);
                n_inc += 1;
            }
        }
        let lang = match lang {
            Some(l) => Some(LangFilter::parse(l, |_| true)?),
            None => None,
        };
        Ok(ChunkFilter {
            include: if n_inc > 0 { Some(inc.build()?) } else { None },
            exclude: if n_exc > 0 { Some(exc.build()?) } else { None },
            lang,
            scope,
        })
    }

    pub fn accepts(&self, path: &str, lang: &str) -> bool {
        if let Some(inc) = &self.include
            && !inc.is_match(path)
        {
            return false;
        }
        if let Some(exc) = &self.exclude
            && exc.is_match(path)
        {
            return false;
        }
        if let Some(l) = &self.lang
            && !l.accepts(path, lang)
        {
            return false;
        }
        let is_docs = lang == Lang::Docs.name();
        match self.scope {
            Scope::All => true,
            Scope::Code => !is_docs,
            Scope::Docs => is_docs,
        }
    }
}

/// A C, C++ or Objective-C header (`.h`, `.hh`, `.hpp`, `.hxx`, `.h++`).
pub(crate) fn is_c_header(path: &str) -> bool {
    path.rsplit_once('.').is_some_and(|(_, ext)| {
        matches!(
            ext.to_ascii_lowercase().as_str(),
            "h" | "hh" | "hpp" | "hxx" | "h++"
        )
    })
}

/// True for files that are tests by their language's conventions: a test
/// directory (`tests/`, `test/`, `test_apps/`, `__tests__/`, `spec/`, Maven's `src/test/`,
/// Perl's and git's `t/`, Go's `testdata/`, `testsuite/`), a Perl `.t` file,
/// or a test file name (`test_x.py`/`x_test.py`/`conftest.py`, `x_test.go`,
/// `x.test.ts`/`x.spec.js`, `x_spec.rb`/`x_test.rb`, `XTest.java`/`XTests.cs`,
/// `XTest.php`, …). A name prefix alone is not a test outside Python
/// (`test_functions.bash` is a library file). Rankings put implementation
/// before tests.
pub fn is_test_path(path: &str) -> bool {
    let p = path.to_ascii_lowercase();
    let mut comps: Vec<&str> = p.split('/').collect();
    let Some(file) = comps.pop() else {
        return false;
    };
    if comps.iter().any(|c| {
        matches!(
            *c,
            "test"
                | "tests"
                | "testing"
                | "__tests__"
                | "__mocks__"
                | "__snapshots__"
                | "__fixtures__"
                | "e2e"
                | "spec"
                | "specs"
                | "t"
                | "testdata"
                | "testsuite"
        ) || DOTNET_TEST_PROJECTS.iter().any(|sfx| c.ends_with(sfx))
            || TEST_DIR_PREFIXES.iter().any(|pre| c.starts_with(pre))
    }) {
        return true;
    }
    // Gradle's test source sets (`src/androidTest/`, `src/commonTest/`,
    // `src/integrationTest/`, `src/testFixtures/`), on the original case.
    let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
    // Directories named as tests in CamelCase or with a separator
    // (Catch2's `projects/SelfTest/UsageTests/`, `ExtraTests/`,
    // `unit_tests/`, `integration-tests/`), on the original case: not
    // `latest/` or `contest/`.
    if dir.split('/').any(is_named_as_tests) {
        return true;
    }
    if dir
        .split('/')
        .zip(dir.split('/').skip(1))
        .any(|(parent, set)| parent == "src" && is_gradle_test_set(set))
    {
        return true;
    }
    let (stem, ext) = match file.rsplit_once('.') {
        Some((s, e)) => (s, e),
        None => (file, ""),
    };
    match ext {
        // Not `tests.py`: Django's own `contrib/admin/tests.py` is the
        // Selenium test case other projects' tests build on, live code.
        "py" | "pyi" => stem.starts_with("test_") || stem.ends_with("_test") || stem == "conftest",
        "go" => stem.ends_with("_test"),
        // `#[cfg(test)] mod test;` (rayon) or `mod tests;` in its own
        // file, and `parser_tests.rs` beside `parser.rs`.
        "rs" => {
            matches!(stem, "tests" | "test") || stem.ends_with("_test") || stem.ends_with("_tests")
        }
        "rb" => stem.ends_with("_spec") || stem.ends_with("_test") || stem.starts_with("test_"),
        // Jest's and Mocha's `x.test.ts`, Cypress's `x.cy.ts`, Nest's
        // `app.e2e-spec.ts`.
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" => {
            [".test", ".spec", ".cy", ".e2e", ".e2e-spec"]
                .iter()
                .any(|sfx| stem.ends_with(sfx))
        }
        "java" | "kt" | "kts" | "cs" | "scala" | "php" | "swift" | "groovy" | "hs" => {
            // `FooTest.java`, `FooTests.cs`, `FooSpec.scala`, `FooTestCase.php`,
            // hspec's `FooSpec.hs`, ScalaTest's `FooSuite.scala`, Maven
            // Failsafe's `FooIT.java` (checked on the original case: `Test`
            // as a word of the name; `IT` after a lowercase letter, so `JIT`
            // is not one).
            let orig = &path[path.len() - file.len()..];
            let orig_stem = orig.rsplit_once('.').map_or(orig, |(s, _)| s);
            let suffixes: &[&str] = match ext {
                "hs" => &["Spec"],
                "scala" => &["Test", "Tests", "Spec", "Suite"],
                _ => &["Test", "Tests", "Spec", "TestCase"],
            };
            suffixes
                .iter()
                .any(|sfx| orig_stem.ends_with(sfx) && orig_stem.len() > sfx.len())
                || (matches!(ext, "java" | "kt" | "groovy")
                    && orig_stem
                        .strip_suffix("IT")
                        .and_then(|s| s.chars().last())
                        .is_some_and(|c| c.is_ascii_lowercase()))
        }
        "exs" => stem.ends_with("_test"),
        // googletest's `foo_unittest.cc`, Catch2's `foo_tests.cpp` and
        // `Foo.tests.cpp`.
        "c" | "cc" | "cpp" | "cxx" => {
            stem.starts_with("test_")
                || stem.ends_with("_test")
                || stem.ends_with("_tests")
                || stem.ends_with(".tests")
                || stem.ends_with("_unittest")
        }
        // clojure.test's `foo_test.clj`, Dart's `foo_test.dart`, busted's
        // and Crystal's `foo_spec.lua`/`.cr`, ERT's `foo-tests.el`, Common
        // Test's `foo_SUITE.erl` and EUnit's `foo_tests.erl`, Foundry's
        // `Token.t.sol`.
        "clj" | "cljs" | "cljc" | "dart" => stem.ends_with("_test"),
        "lua" | "cr" => stem.ends_with("_spec"),
        "el" => stem.ends_with("-test") || stem.ends_with("-tests"),
        "erl" => stem.ends_with("_suite") || stem.ends_with("_tests"),
        "sol" => stem.ends_with(".t"),
        "bats" | "t" => true,
        _ => false,
    }
}

/// A directory named in PascalCase `…Test` / `…Tests` after a lowercase
/// letter (`SelfTest`, `UsageTests`; not an `abTest/` feature) or
/// `…_tests` / `…-tests` after a word (`unit_tests`, `integration-tests`).
fn is_named_as_tests(dir: &str) -> bool {
    let Some(word) = dir
        .strip_suffix("Tests")
        .or_else(|| dir.strip_suffix("Test"))
    else {
        let lower = dir.to_ascii_lowercase();
        return ["_tests", "-tests"]
            .iter()
            .any(|sfx| lower.len() > sfx.len() && lower.ends_with(sfx));
    };
    dir.starts_with(|c: char| c.is_ascii_uppercase())
        && word.ends_with(|c: char| c.is_ascii_lowercase())
}

/// Directories named as a kind of tests, lowercase (Leiningen's
/// `test_projects/`, testthat's `test-parallel/`, PHP-Parser's `test_old/`,
/// Flask's `test_apps/`).
const TEST_DIR_PREFIXES: [&str; 4] = ["test_", "test-", "tests_", "tests-"];

/// .NET test projects' directories (`MyLib.Tests/`, `MyLib.UnitTests/`),
/// lowercase.
const DOTNET_TEST_PROJECTS: [&str; 6] = [
    ".tests",
    ".test",
    ".unittests",
    ".integrationtests",
    ".functionaltests",
    ".specs",
];

/// The name of a Gradle source set of tests (a directory under `src/`):
/// a lowercase word then `Test` or `Tests` (`androidTest`, `commonTest`,
/// `integrationTest`), or `test` then a capitalised word (`testFixtures`,
/// `testDebug`).
fn is_gradle_test_set(set: &str) -> bool {
    let lowercase_word = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_lowercase());
    let capitalised_word = |s: &str| {
        s.starts_with(|c: char| c.is_ascii_uppercase())
            && s.bytes().all(|b| b.is_ascii_alphanumeric())
    };
    set.strip_suffix("Tests")
        .or_else(|| set.strip_suffix("Test"))
        .is_some_and(lowercase_word)
        || set.strip_prefix("test").is_some_and(capitalised_word)
}

/// True for chunks that are tests inside a non-test file: Rust's
/// `#[cfg(test)] mod tests` (symbols `tests::…`, `test::…`), Zig's
/// `test "name" { … }` blocks (symbols `test "name"`, `array_list.test "init"`)
/// and Erlang's EUnit functions (`*_test`, `*_test_`).
pub fn is_test_chunk(lang: &str, symbol: Option<&str>) -> bool {
    let Some(s) = symbol else {
        return false;
    };
    if lang == Lang::Rust.name() {
        s == "tests" || s == "test" || s.starts_with("tests::") || s.starts_with("test::")
    } else if lang == Lang::Zig.name() {
        s.starts_with("test \"") || s.contains(".test \"")
    } else if lang == Lang::Erlang.name() {
        // EUnit runs every function named `*_test` or `*_test_`, often
        // kept inside the module under `-ifdef(TEST)` (lager's
        // `console_log_test_` in `lager_console_backend.erl`).
        let name = s.rsplit(':').next().unwrap_or(s);
        let name = name.split('/').next().unwrap_or(name);
        name.ends_with("_test") || name.ends_with("_test_")
    } else {
        false
    }
}

/// The file name of `path` without its extension(s).
pub fn file_stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.split('.').next().unwrap_or(name)
}

/// The namespaces and modules each of `paths` defines
/// ([`Store::file_namespaces`]), by path, for [`without_namespace`].
pub fn namespaces_by_file<'a>(
    store: &crate::store::Store,
    paths: impl Iterator<Item = &'a str>,
) -> anyhow::Result<std::collections::HashMap<String, Vec<String>>> {
    let mut out = std::collections::HashMap::new();
    for path in paths {
        if out.contains_key(path) {
            continue;
        }
        let found = match store.file_record(path)? {
            Some(f) => store.file_namespaces(f.id)?,
            None => Vec::new(),
        };
        out.insert(path.to_string(), found);
    }
    Ok(out)
}

/// A label (`Slim::App::dispatch`) without the longest of `namespaces`
/// (paths of the file's namespaces and modules, longest first) it starts
/// with, when what is left names a type or a type's member
/// (`App::dispatch`, `Template`): a module's own function (`Enumerable.map`
/// in a Ruby mixin, an Elixir module's) keeps its module, its container.
pub fn without_namespace(label: &str, kind: Option<&str>, namespaces: &[String]) -> String {
    let is_type = kind.is_some_and(|k| crate::store::CLASS_KINDS.contains(&k));
    for ns in namespaces {
        let Some(rest) = label.strip_prefix(ns.as_str()) else {
            continue;
        };
        let Some(rest) = ["::", ".", "\\"]
            .iter()
            .find_map(|sep| rest.strip_prefix(sep))
            .filter(|r| !r.is_empty())
        else {
            continue;
        };
        let member = rest.contains("::") || rest.contains('.') || rest.contains('\\');
        if member || is_type {
            return rest.to_string();
        }
    }
    label.to_string()
}

/// Whether the file at `path` is named after `name` (`TypeAdapter.java`,
/// `type_adapter.py` and `type-adapter.ts` for `TypeAdapter`): the module
/// that owns it. Names meet on their lowercase letters and digits.
pub fn is_named_after(path: &str, name: &str) -> bool {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect()
    };
    let stem = file_stem(path);
    !stem.is_empty() && squash(stem) == squash(name)
}

/// True for code that is not the live source: examples (and samples,
/// demos; also `_examples/`, which Go's tool skips), benchmarks,
/// developer scripts (`scripts/`, `hack/`; not `contrib/`, which is live
/// code in Django and many others), vendored or
/// third-party code (also a virtualenv's `site-packages/` in a tree no
/// ignore file covers, Lottie's `EmbeddedLibraries/`, and the `extern/`
/// and `externals/` of C and C++ projects: Box2D's imgui and glfw,
/// Cppcheck's tinyxml2; not `deps/` or `external/`, where Redis's hiredis
/// and UniTask's own integrations are asked for), and legacy
/// trees (`deprecated/`, `legacy/`, `java-deprecated/`, `attic/`, `v1/`,
/// snapshots of a release like `v1.5/`); and Storybook's stories
/// (`Button.stories.tsx`), examples of a component beside it.
pub fn is_secondary_path(path: &str) -> bool {
    let mut comps = path.split('/');
    if comps
        .next_back()
        .is_some_and(|name| name.contains(".stories."))
    {
        return true;
    }
    comps.any(|c| {
        // Go's tool skips `_`-prefixed directories (chi's `_examples/`).
        let c = c.strip_prefix('_').unwrap_or(c);
        is_release_snapshot(c)
            || is_legacy_tree(c)
            || is_named_as_examples(c)
            || matches!(
                c.to_ascii_lowercase().as_str(),
                "example"
                    | "examples"
                    | "sample"
                    | "samples"
                    | "demo"
                    | "demos"
                    | "bench"
                    | "benchmark"
                    | "benches"
                    | "benchmarks"
                    | "vendor"
                    | "vendored"
                    | "third_party"
                    | "third-party"
                    | "thirdparty"
                    | "3rdparty"
                    | "extern"
                    | "externals"
                    | "embeddedlibraries"
                    | "node_modules"
                    | "bower_components"
                    | "site-packages"
                    | "dist-packages"
                    | "attic"
                    | "v1"
                    | "fixtures"
                    | "scripts"
                    | "hack"
            )
    })
}

/// A directory of more than one word named as examples by its last word
/// (lgi's `gtk-demo/`, Flask's `js_example/`) or its first
/// (kotlinx.coroutines' `example-app/`, `demo-server/`,
/// `samples-android/`); `sample` first is not enough (`sample_rate/` is
/// live code).
fn is_named_as_examples(dir: &str) -> bool {
    if !dir.contains(['-', '_', '.']) {
        return false;
    }
    let lower = dir.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(['-', '_', '.'])
        .filter(|w| !w.is_empty())
        .collect();
    let (Some(first), Some(last)) = (words.first(), words.last()) else {
        return false;
    };
    words.len() > 1
        && (matches!(
            *first,
            "example" | "examples" | "samples" | "demo" | "demos"
        ) || matches!(
            *last,
            "example" | "examples" | "sample" | "samples" | "demo" | "demos"
        ))
}

/// True for files a tool wrote, by the names their generators give them:
/// WinForms designer code (`MainForm.Designer.cs`), XAML and Dart builders
/// (`App.g.cs`, `model.g.dart`), resource and schema classes
/// (`KPRes.Generated.cs`, `api.gen.ts`, `flag_generated.go`,
/// `zz_generated.deepcopy.go`) and protocol buffers (`x.pb.go`, `x.pb.h`,
/// `x_pb2.py`), and what Autoconf, Automake and Libtool write into a
/// release tarball (`configure`, `aclocal.m4`, `config.guess`, `ltmain.sh`,
/// Automake's `missing` and `test-driver` and the like: tmux's 7,000-line
/// `configure` led "where is the config file loaded"). Such a file repeats the vocabulary of a whole program (a
/// resource class holds every UI string, `configure` every feature's name)
/// without being where anything is done. File contents are not read here.
pub fn is_generated_path(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    const AUTOTOOLS: [&str; 16] = [
        "configure",
        "config.guess",
        "config.sub",
        "config.status",
        "aclocal.m4",
        "ltmain.sh",
        "libtool",
        "depcomp",
        "install-sh",
        "makefile.in",
        "missing",
        "test-driver",
        "ylwrap",
        "mkinstalldirs",
        "ar-lib",
        "config.rpath",
    ];
    // The Gradle and Maven wrappers' scripts, which their `wrapper` tasks
    // write.
    const WRAPPERS: [&str; 4] = ["gradlew", "gradlew.bat", "mvnw", "mvnw.cmd"];
    if AUTOTOOLS.contains(&name.as_str()) || WRAPPERS.contains(&name.as_str()) {
        return true;
    }
    // The name up to its first dot, and the rest from that dot on
    // (`app.g.i.cs` → `app`, `.g.i.cs`).
    let Some((stem, inner)) = name.find('.').map(|dot| name.split_at(dot)) else {
        return false;
    };
    stem.ends_with("_generated")
        || stem.ends_with("-generated")
        || stem.starts_with("zz_generated")
        || stem.ends_with("_pb2")
        || stem.ends_with("_pb2_grpc")
        || [
            ".generated.",
            ".gen.",
            ".designer.",
            ".g.",
            ".pb.",
            ".freezed.",
        ]
        .iter()
        .any(|mark| inner.contains(mark))
}

/// Whether a file ends with a source map's address (`//#
/// sourceMappingURL=…`, the older `//@`, CSS's `/*# … */`) among its last
/// three non-blank lines: what TypeScript, Babel and the bundlers append to
/// what they compile, and nobody writes by hand.
pub fn has_source_map_trailer(source: &str) -> bool {
    source
        .lines()
        .rev()
        .filter(|l| !l.trim().is_empty())
        .take(3)
        .any(|l| {
            let t = l.trim_start();
            [
                "//# sourceMappingURL=",
                "//@ sourceMappingURL=",
                "/*# sourceMappingURL=",
            ]
            .iter()
            .any(|m| t.starts_with(m))
        })
}

/// Lines at the top of a file where [`has_generated_marker`] looks. Not
/// 20: re2's `make_unicode_groups.py` holds `// GENERATED BY
/// make_unicode_groups.py; DO NOT EDIT.` in a string on line 15, which
/// reads as a comment line.
const GENERATED_MARKER_LINES: usize = 10;

/// Parser and lexer generators whose name in a "Generated by …" comment
/// atop a file is enough (their output is rebuilt from a grammar beside
/// it, never edited: ninja's `lexer.cc` says only `/* Generated by re2c
/// */` above the same code as its `lexer.in.cc`). A scaffold that says
/// "Generated by Django" is not among them: a migration is the user's to
/// edit.
const GENERATORS: [&str; 21] = [
    "re2c",
    "bison",
    "byacc",
    "yacc",
    "flex",
    "cython",
    "coffeescript",
    "swig",
    "antlr",
    "javacc",
    "jflex",
    "gperf",
    "ragel",
    "lemon",
    "ocamllex",
    "ocamlyacc",
    "menhir",
    "jison",
    "pegjs",
    "peggy",
    "thrift",
];

/// Whether a file says in a comment among its first lines that a tool
/// wrote it: Go's `// Code generated by stringer; DO NOT EDIT.`, the
/// `@generated` of Meta's and Rust's tools, `/* Generated File. Do not
/// edit. */` atop Capacitor's bundled `native-bridge.js`, `# This file is
/// automatically generated … do not modify`, PHP-Parser's "automatically
/// GENERATED file, which should not be manually edited". A comment line
/// saying both "generated" and "do not edit" (or "should not be edited",
/// "do not modify" and the like; or the two on different lines of that
/// comment), or `@generated`, counts; so does one naming a parser or
/// lexer generator as what generated, made or produced the file
/// ([`GENERATORS`]: `/* Generated by re2c */`, `/* A Bison parser, made
/// by GNU Bison 3.8 */`). Only comment lines are read, so a generator's
/// own source, printing such a header from a string, is not taken for its
/// output. The first lines are those of the file, and also those below a
/// licence notice atop it ([`crate::text::license_span`]): Kubernetes'
/// generated Go puts its `// Code generated by deepcopy-gen. DO NOT
/// EDIT.` under 15 lines of Apache licence.
pub fn has_generated_marker(source: &str) -> bool {
    marker_in_first_lines(source)
        || crate::text::license_span(source)
            .is_some_and(|notice| marker_in_first_lines(&source[notice.end..]))
}

/// How far [`has_generated_marker`] reads a file's header past
/// [`GENERATED_MARKER_LINES`]: its comment lines up to the first line of
/// code, its package, namespace, import and include lines skipped
/// (PHP-Parser's `Php7.php` says "automatically GENERATED" on line 12,
/// below its namespace and `use` lines). A generator's source, which
/// prints such a header from a string, has code before it (re2's
/// `_header = """`).
const GENERATED_HEADER_LINES: usize = 40;

/// The lines [`has_generated_marker`] reads, in one pass: the first
/// [`GENERATED_MARKER_LINES`], and past them the header's lines as long as
/// no line of code has come ([`GENERATED_HEADER_LINES`]).
fn first_lines(source: &str) -> impl Iterator<Item = &str> {
    const PREAMBLE: [&str; 11] = [
        "<?php",
        "namespace ",
        "use ",
        "package ",
        "import ",
        "from ",
        "using ",
        "require",
        "'use strict'",
        "\"use strict\"",
        "@file:",
    ];
    let mut header = true;
    source
        .lines()
        .take(GENERATED_HEADER_LINES)
        .enumerate()
        .take_while(move |&(i, line)| {
            let t = line.trim_start();
            let skipped =
                t.is_empty() || is_directive(t) || PREAMBLE.iter().any(|p| t.starts_with(p));
            header &= skipped || is_comment_line(t);
            i < GENERATED_MARKER_LINES || header
        })
        .map(|(_, line)| line)
}

const COMMENT_LEADERS: [&str; 10] = ["//", "/*", "*", "#", "--", "<!--", ";", "%", "{-", "(*"];

/// `#include "parser.h"  /* Generated by bison. */` in jq's `lexer.l` is
/// a directive, not a comment about the file.
fn is_directive(t: &str) -> bool {
    t.strip_prefix('#')
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_alphabetic()))
}

fn is_comment_line(t: &str) -> bool {
    COMMENT_LEADERS.iter().any(|c| t.starts_with(c)) && !is_directive(t)
}

/// Whether the first lines of `source` ([`first_lines`]) say the file is
/// generated (see [`has_generated_marker`]); lines that are not comments
/// are passed over.
fn marker_in_first_lines(source: &str) -> bool {
    const DO_NOT_EDIT: [&str; 8] = [
        "do not edit",
        "do not modify",
        "don't edit",
        "don't modify",
        "not be edited",
        "not be manually edited",
        "not be modified",
        "not be manually modified",
    ];
    let mut generated = false;
    let mut do_not_edit = false;
    for line in first_lines(source) {
        let t = line.trim_start();
        if !is_comment_line(t) {
            continue;
        }
        let lower = t.to_ascii_lowercase();
        if lower.contains("@generated") || by_a_generator(&lower) {
            return true;
        }
        generated |= lower.contains("generated");
        do_not_edit |= DO_NOT_EDIT.iter().any(|m| lower.contains(m));
        if generated && do_not_edit {
            return true;
        }
    }
    false
}

/// A lowercase comment line saying a [`GENERATORS`] tool generated, made
/// or produced the file: the tool's name as a word after "generated by",
/// "made by" or "produced by" (`generated by re2c 3.0`, `made by gnu
/// bison`).
fn by_a_generator(lower: &str) -> bool {
    ["generated by ", "made by ", "produced by "]
        .iter()
        .filter_map(|m| lower.find(m).map(|at| &lower[at + m.len()..]))
        .any(|rest| {
            rest.split(|c: char| !c.is_ascii_alphanumeric())
                .filter(|w| !w.is_empty())
                .take(2)
                .any(|w| GENERATORS.contains(&w))
        })
}

/// [`path_prior`]'s factor for build output ([`is_build_output`]), below a
/// test's: a bundle repeats the live source it was built from, every
/// module of it in one file, so at 0.6 it still filled a third of the top
/// 10 where a package's `dist/` sat beside its `src/` (ajv, immer, mobx and
/// rxjs as their npm tarballs hold them, 102 questions: files NDCG@10
/// .581 without the factor, .806 at 0.6, .833 at 0.3, .839 at 0.1, against
/// .849 without `dist/`; no other corpus of the suite has such a file).
pub const BUILD_OUTPUT_PRIOR: f64 = 0.3;

/// What an answer listing places (`symbol`, `refs`, `callers`,
/// `callees`) left out because it was a build's copy of the source: the
/// copies of the name's definitions ([`is_build_output`]) and the build's
/// uses of them, when the source defines the name.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct BuildLeftOut {
    pub definitions: usize,
    pub uses: usize,
}

impl BuildLeftOut {
    pub fn is_none(&self) -> bool {
        self.definitions == 0 && self.uses == 0
    }

    /// `3 copies in build output and their 21 uses left out`, as the CLI's
    /// note and MCP's hint say it; `None` when nothing was.
    pub fn summary(&self) -> Option<String> {
        let copies = |n: usize| crate::text::counted(n as u64, "copy");
        let uses = |n: usize| crate::text::counted(n as u64, "use");
        match (self.definitions, self.uses) {
            (0, 0) => None,
            (d, 0) => Some(format!("{} in build output left out", copies(d))),
            (0, u) => Some(format!("{} in build output left out", uses(u))),
            (d, u) => Some(format!(
                "{} in build output and {} there left out",
                copies(d),
                uses(u)
            )),
        }
    }

    /// [`Self::summary`] with why, as a graph answer (`refs`, `callers`,
    /// `callees`) says it on both surfaces.
    pub fn explained(&self) -> Option<String> {
        self.summary()
            .map(|s| format!("{s}: the build's own copies"))
    }
}

/// True for what a build wrote from the project's own sources: a file
/// under a `dist/` directory (npm packages, Python's sdists and wheels),
/// `dist-newstyle/` (cabal) or `_build/` (Mix, dune, Sphinx), a
/// header amalgamated from the project's own (catch2's and nlohmann-json's
/// `single_include/`, simdjson's `singleheader/`, SQLite's
/// `amalgamation/`: catch2's 17,000-line `catch.hpp` took 17 of 130 top-10
/// places from the `include/internal/` headers it was merged from), a
/// `min/` directory of minified and bundled builds (moment's
/// `min/moment-with-locales.js`), a
/// minified or bundled file (`jquery.min.js`, `app.min.css`,
/// `main.bundle.js`), and a source map (`index.js.map`, `app.css.map`:
/// JSON holding the compiled file's sources again, which the keyword arm
/// reads). `build/` alone is not among them: fastify's and jq's `build/`
/// hold the build's own scripts; but a `build/` holding what Gradle and
/// CMake write (`intermediates/`, `generated/`, `tmp/`, `kotlin/`,
/// `outputs/`, `CMakeFiles/`) is their output (expo-video's npm tarball
/// ships `android/build/intermediates/`: merged manifests, R files).
pub fn is_build_output(path: &str) -> bool {
    let mut comps = path.split('/');
    let name = comps.next_back().unwrap_or(path).to_ascii_lowercase();
    comps.clone().any(|c| {
        matches!(
            c,
            "dist"
                | "dist-newstyle"
                | "_build"
                | "single_include"
                | "single_header"
                | "singleheader"
                | "amalgamation"
                | "min"
        )
    }) || comps.clone().zip(comps.skip(1)).any(|(dir, sub)| {
        dir == "build"
            && matches!(
                sub,
                "intermediates" | "generated" | "tmp" | "kotlin" | "outputs" | "CMakeFiles"
            )
    }) || name.contains(".min.")
        || name.contains(".bundle.")
        || is_source_map(&name)
}

/// Build output as answers that list places see it ([`path_standing`],
/// `symbol`'s order and its left-out copies, the call graph's targets):
/// [`is_build_output`], and a React Native library's build as
/// react-native-builder-bob writes it beside `src/`: `lib/commonjs/`,
/// `lib/module/` (JavaScript) and `lib/typescript/` (declarations).
/// gesture-handler's npm tarball ships 785 such files: `symbol
/// PanGestureHandler` listed 12 of its 20 definitions there. Only script
/// files count, so a Ruby or Lua `lib/module/` stays source. Search
/// ranks these copies down by their content instead (`hybrid`'s compiled
/// copies); as build output there too, the suite's three such packages
/// moved by noise only (holdout files NDCG@10 −.0002).
pub fn is_shipped_build(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_ascii_lowercase();
    is_build_output(path) || is_bob_output(path, &name)
}

fn is_bob_output(path: &str, name: &str) -> bool {
    let script = [
        ".js", ".cjs", ".mjs", ".jsx", ".ts", ".mts", ".cts", ".flow",
    ]
    .iter()
    .any(|e| name.ends_with(e));
    script && {
        let comps: Vec<&str> = path.split('/').collect();
        comps
            .windows(2)
            .any(|w| w[0] == "lib" && matches!(w[1], "commonjs" | "module" | "typescript"))
    }
}

/// Where a file stands in an answer that lists places (references, call
/// sites, a name's definitions): the source first (0), then type
/// declarations (`.d.ts`, `.pyi`: 1), and build output last (2). Within
/// one standing the answer keeps its own order. An npm package shipping
/// its build (`dist/`, `build/legacy/`) beside `src/` had its `refs` and
/// `callers` open with the bundle's copies (`dist/` sorts before `src/`).
/// Tests, examples and vendored code keep their places: the `nav` suite's
/// references of `random` and `escape` are in Django's vendored jQuery
/// and XRegExp (refs MRR@10 .383 → .362 with them after the rest).
pub fn path_standing(path: &str) -> u8 {
    if is_shipped_build(path) {
        2
    } else if is_type_declaration(path) {
        1
    } else {
        0
    }
}

/// [`path_standing`] of each of `paths`, a build's copy the index tells
/// ([`build_copies`]: a script beside its source under `src/`) and a file
/// compiled by what its text says (it ends with a source map's address:
/// TanStack Query's `build/legacy/*.js`, which no directory name tells)
/// standing with the build output.
pub fn path_standings<'a>(
    store: &crate::store::Store,
    paths: impl IntoIterator<Item = &'a str>,
) -> std::collections::HashMap<String, u8> {
    let mut paths: Vec<&str> = paths.into_iter().collect();
    paths.sort_unstable();
    paths.dedup();
    let (copies, compiled) = copies_and_compiled(store, paths.iter().copied());
    paths
        .into_iter()
        .map(|p| {
            let copy = copies.contains(p) || compiled.contains(p);
            (p.to_string(), if copy { 2 } else { path_standing(p) })
        })
        .collect()
}

/// The files under a top-level `src/` that a script file outside it would
/// be a build's copy of: the same path, or the path without its first
/// directory, under `src/`, as any script source (moment's npm package
/// ships its UMD bundle `moment.js` and its built `locale/af.js` beside
/// `src/moment.js` and `src/locale/af.js`; `lib/index.js` beside
/// `src/index.ts`). None for a test, for a file under a `src/` directory
/// itself, or outside the script languages (`is_script`).
pub(crate) fn sources_of_copy(path: &str, is_script: bool) -> Vec<String> {
    if !is_script || crate::search::is_test_path(path) || under_src(path) {
        return Vec::new();
    }
    let mut rests = vec![path];
    if let Some((_, rest)) = path.split_once('/') {
        rests.push(rest);
    }
    let mut out = Vec::new();
    for rest in rests {
        let (dir, name) = rest.rsplit_once('/').map_or(("", rest), |(d, n)| (d, n));
        let stem = name.split('.').next().unwrap_or(name);
        for ext in ["js", "mjs", "cjs", "jsx", "ts", "tsx"] {
            out.push(if dir.is_empty() {
                format!("src/{stem}.{ext}")
            } else {
                format!("src/{dir}/{stem}.{ext}")
            });
        }
    }
    out
}

/// Whether a directory of `path` is a `src/`.
pub(crate) fn under_src(path: &str) -> bool {
    path.split('/').any(|c| c == "src")
}

/// Whether a file is in a script language, whose builds ship beside their
/// sources: its language as the index detects it, so that a copy here is
/// one for hybrid's ranking too (its `script_family` of the stored
/// language).
fn is_script_path(path: &str) -> bool {
    matches!(
        crate::lang::detect_lang(std::path::Path::new(path)),
        Some(
            crate::model::Lang::JavaScript
                | crate::model::Lang::TypeScript
                | crate::model::Lang::Tsx
        )
    )
}

/// The paths among `paths` that are a build's copies: output by their
/// path ([`is_shipped_build`]), or a script file outside `src/` whose
/// source the index holds under it ([`sources_of_copy`]:
/// react-native-webview's minified `lib/WebViewShared.js` beside
/// `src/WebViewShared.tsx` had taken the test's seven calls of
/// `createOnShouldStartLoadWithRequest` in `callers`). A file compiled by
/// what its text says ([`crate::model::Generated::Compiled`]) is not among
/// them: it may use the source itself (a `build/modern/main.js` requiring
/// `../../src/greet`); [`path_standings`] puts it last. Without the
/// index's facts (an error reading them) the paths alone decide.
pub fn build_copies<'a>(
    store: &crate::store::Store,
    paths: impl IntoIterator<Item = &'a str>,
) -> std::collections::HashSet<String> {
    copies_and_compiled(store, paths).0
}

/// [`build_copies`] and the files among `paths` compiled by what their
/// text says, from one read of the index's facts.
fn copies_and_compiled<'a>(
    store: &crate::store::Store,
    paths: impl IntoIterator<Item = &'a str>,
) -> (
    std::collections::HashSet<String>,
    std::collections::HashSet<String>,
) {
    let mut paths: Vec<&str> = paths.into_iter().collect();
    paths.sort_unstable();
    paths.dedup();
    let sources: Vec<(&str, Vec<String>)> = paths
        .iter()
        .map(|&p| (p, sources_of_copy(p, is_script_path(p))))
        .collect();
    let mut asked: Vec<&str> = paths.clone();
    asked.extend(
        sources
            .iter()
            .flat_map(|(_, s)| s.iter().map(String::as_str)),
    );
    asked.sort_unstable();
    asked.dedup();
    let facts = store.file_facts_among(&asked).unwrap_or_else(|e| {
        tracing::debug!("file facts not read for the build's copies: {e}");
        std::collections::HashMap::new()
    });
    let compiled = paths
        .iter()
        .filter(|&&p| {
            facts
                .get(p)
                .is_some_and(|(g, _)| *g == crate::model::Generated::Compiled)
        })
        .map(|p| p.to_string())
        .collect();
    let copies = sources
        .into_iter()
        .filter(|(p, of)| is_shipped_build(p) || of.iter().any(|s| facts.contains_key(s.as_str())))
        .map(|(p, _)| p.to_string())
        .collect();
    (copies, compiled)
}

/// A source map (`index.js.map`, `app.css.map`): JSON holding a compiled
/// file's sources again.
pub fn is_source_map(path: &str) -> bool {
    let path = path.as_bytes();
    [".js.map", ".mjs.map", ".cjs.map", ".css.map", ".ts.map"]
        .iter()
        .any(|ext| {
            path.len() >= ext.len()
                && path[path.len() - ext.len()..].eq_ignore_ascii_case(ext.as_bytes())
        })
}

/// True for a build definition: what builds, packages or checks the
/// project rather than what it does (`Makefile`, `CMakeLists.txt` and
/// `*.cmake`, Autoconf's `configure.ac` and `*.m4`, `meson.build`,
/// Gradle's `build.gradle.kts`, `build.sbt`, `setup.py`, `noxfile.py`,
/// `Rakefile`, `Gemfile`, `*.gemspec` and `*.podspec`, `mix.exs`, `Package.swift`,
/// Zig's `build.zig`, Bazel's `BUILD`, dune, Cabal, opam, rebar, LuaRocks
/// and Nimble files, a Leiningen `project.clj` outside `src/`, a
/// `Dockerfile`, and JavaScript tools' `webpack.config.js`-style files).
/// Such a file names every module, feature and flag of the project
/// (git's `Makefile` lists every source file and option) without being
/// where any of it is done. Names are matched as the tools spell them:
/// Zig's `std/Build.zig` is a module, `build.zig` the build script, and a
/// Rust `build.rs` is code that runs (serde's compiler-version checks).
pub fn is_build_definition(path: &str) -> bool {
    let mut comps = path.split('/');
    let name = comps.next_back().unwrap_or(path);
    const NAMES: [&str; 39] = [
        "Makefile",
        "makefile",
        "GNUmakefile",
        "Makefile.am",
        "CMakeLists.txt",
        "meson.build",
        "meson_options.txt",
        "configure.ac",
        "configure.in",
        "build.gradle",
        "build.gradle.kts",
        "settings.gradle",
        "settings.gradle.kts",
        "build.sbt",
        "setup.py",
        "noxfile.py",
        "Rakefile",
        "Gemfile",
        "Podfile",
        "Fastfile",
        "mix.exs",
        "Package.swift",
        "build.zig",
        "build.zig.zon",
        "BUILD",
        "BUILD.bazel",
        "WORKSPACE",
        "WORKSPACE.bazel",
        "MODULE.bazel",
        "dune",
        "dune-project",
        "rebar.config",
        "rebar.config.script",
        "go.mod",
        "go.work",
        "deps.edn",
        "Dockerfile",
        "Jenkinsfile",
        "Justfile",
    ];
    if NAMES.contains(&name) {
        return true;
    }
    if name == "project.clj" {
        return !comps.any(|c| c == "src");
    }
    // An Erlang application's resource file: its modules, dependencies
    // and environment.
    if name.ends_with(".app.src") {
        return true;
    }
    // JavaScript tools' configuration modules (`webpack.config.js`,
    // `vite.config.ts`, `jest.config.mjs`) and task files (`gulpfile.js`);
    // not an application's own `app.config.ts`, nor webpack's `webpack.js`.
    const JS_TOOLS: [&str; 14] = [
        "webpack",
        "rollup",
        "vite",
        "vitest",
        "jest",
        "babel",
        "eslint",
        "prettier",
        "postcss",
        "tailwind",
        "karma",
        "playwright",
        "tsup",
        "esbuild",
    ];
    let (stem, ext) = name.split_once('.').unwrap_or((name, ""));
    let script = |e: &str| matches!(e, "js" | "cjs" | "mjs" | "ts" | "cts" | "mts");
    if (JS_TOOLS.contains(&stem) && ext.strip_prefix("config.").is_some_and(script))
        || (matches!(stem, "gulpfile" | "Gruntfile") && script(ext))
    {
        return true;
    }
    let ext = name.rsplit_once('.').map_or("", |(_, e)| e);
    matches!(
        ext,
        "cmake" | "m4" | "mk" | "gemspec" | "podspec" | "cabal" | "opam" | "rockspec" | "nimble"
    )
}

/// [`path_prior`]'s factor for a change log ([`is_change_log`]), on top of
/// a document's: it names every feature the question may ask about, in
/// entries that say when it changed, not how it works (express's
/// `History.md` was in the top 10 of 25 of its 27 questions). Files
/// NDCG@10 tune .8664 → .8667, check .8530 → .8533, holdout .7971 →
/// .7972; on the full upstream trees tune .7851 → .7858, check .8554 →
/// .8563 (0.25 scores as 0.5).
const CHANGE_LOG_PRIOR: f64 = 0.5;

/// True for a document that logs a project's changes: `CHANGELOG.md`,
/// `CHANGES.rst`, `History.md`, `NEWS`, `RELEASE-NOTES.txt`,
/// `CHANGELOG-5.3.md`, and documents under `releases/`, `release-notes/`,
/// `changelog/` or `changes/` (Django's `docs/releases/5.1.txt`). Only
/// documents: a module named `history.rs` is code.
pub fn is_change_log(path: &str, lang: &str) -> bool {
    if lang != Lang::Docs.name() {
        return false;
    }
    let mut comps = path.split('/');
    let name = comps.next_back().unwrap_or(path).to_ascii_lowercase();
    let stem: String = name
        .split('.')
        .next()
        .unwrap_or(&name)
        .chars()
        .filter(|c| !matches!(c, '-' | '_'))
        .collect();
    stem.starts_with("changelog")
        || matches!(
            stem.as_str(),
            "changes" | "history" | "news" | "releasenotes"
        )
        || comps.any(|c| {
            matches!(
                c.to_ascii_lowercase().as_str(),
                "releases" | "release-notes" | "release_notes" | "changelog" | "changes"
            )
        })
}

/// True for TypeScript declaration files (`index.d.ts`, `types/hooks.d.ts`,
/// `.d.mts`, `.d.cts`) and Python stubs (`validators.pyi`): a library's
/// types, declared beside (or instead of) the code that implements them,
/// which is what "where is X done" and a name asked for mean (attrs ships
/// a stub beside each module, and each stub came second, or first, after
/// the function it declares).
pub fn is_type_declaration(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    [".d.ts", ".d.mts", ".d.cts", ".pyi"]
        .iter()
        .any(|ext| lower.len() > ext.len() && lower.ends_with(ext))
}

/// True for data and markup files (YAML, JSON, XML, TOML, INI, Java
/// properties, CSV, HTML): they often repeat the code's vocabulary at
/// length (a manual in YAML, fixtures in JSON, every UI string in a
/// resource bundle's `messages.properties`) without being the code.
pub fn is_data_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let Some((_, ext)) = name.rsplit_once('.') else {
        return false;
    };
    matches!(
        ext.to_ascii_lowercase().as_str(),
        "yml"
            | "yaml"
            | "json"
            | "xml"
            | "toml"
            | "ini"
            | "properties"
            | "cfg"
            | "conf"
            | "csv"
            | "tsv"
            | "html"
            | "htm"
            | "lock"
            | "svg"
            // Lists of names: a Windows module's exports (jansson's
            // `jansson.def`), LLVM's X-macro tables.
            | "def"
    )
}

/// A directory named as a legacy copy among others: HttpClient's
/// `src/main/java-deprecated/` beside `src/main/java/`, `legacy_api/`.
fn is_legacy_tree(c: &str) -> bool {
    c.split(['-', '_', '.'])
        .any(|w| w.eq_ignore_ascii_case("deprecated") || w.eq_ignore_ascii_case("legacy"))
}

/// `v1.5`, `v2.0.1`: a directory named after a dotted release.
fn is_release_snapshot(c: &str) -> bool {
    c.strip_prefix('v').is_some_and(|rest| {
        rest.contains('.')
            && rest
                .split('.')
                .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// [`path_prior`]'s factor for secondary, declaration-only and generated
/// files.
pub const GENERATED_PRIOR: f64 = 0.6;

/// True for code kept with the documentation (`docs/conf.py`, libuv's
/// `docs/code/` programs, FastAPI's `docs_src/` tutorials; not `doc/`,
/// which is also a live package's name, cobra's and Go's own): examples, not
/// the live source. The documents themselves rank as documents.
fn is_code_under_docs(path: &str, lang: &str) -> bool {
    lang != Lang::Docs.name()
        && !is_data_file(path)
        && path
            .rsplit('/')
            .skip(1)
            .any(|c| matches!(c, "docs" | "docs_src"))
}

/// A ranking prior for a chunk's file: implementation code first, then
/// tests, examples, vendored, generated and legacy copies, build
/// definitions, documentation and data files, which mention the same words without being the answer
/// to "where is X done".
pub fn path_prior(path: &str, lang: &str) -> f64 {
    let mut prior = 1.0;
    if is_test_path(path) {
        prior *= 0.5;
    } else if is_secondary_path(path)
        || is_code_under_docs(path, lang)
        || is_type_declaration(path)
        || is_generated_path(path)
        || is_build_definition(path)
    {
        prior *= GENERATED_PRIOR;
    }
    if is_build_output(path) {
        prior *= BUILD_OUTPUT_PRIOR;
    }
    if is_change_log(path, lang) {
        prior *= CHANGE_LOG_PRIOR;
    }
    if lang == Lang::Docs.name() || is_data_file(path) {
        prior *= 0.6;
    }
    prior
}

/// [`path_prior`] for one chunk: a test inside a source file ranks as a test.
pub fn chunk_prior(path: &str, lang: &str, symbol: Option<&str>) -> f64 {
    let prior = path_prior(path, lang);
    if is_test_chunk(lang, symbol) && !is_test_path(path) {
        prior * 0.5
    } else {
        prior
    }
}

/// Whether a page that shows nothing (`shown`) starts past the end of a
/// list that has results: `offset` skipped all `total` of them (the
/// surfaces say so instead of answering with an empty page).
pub fn past_the_end(offset: usize, shown: usize, total: usize) -> bool {
    shown == 0 && total > 0 && offset >= total
}

/// Cuts a line to at most `max` characters, marking the cut.
pub fn bound_line(line: &str, max: usize) -> String {
    if line.len() <= max {
        return line.to_string();
    }
    let mut end = max;
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &line[..end])
}

/// When an arm reads its hits' snippets from their files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Snippets {
    /// Now, this many lines of each hit's best window; a hit whose file is
    /// gone (or now ends before it) is dropped.
    Read(usize),
    /// Later, by the caller, for the hits it shows ([`chunk_snippet`]):
    /// each hit carries its chunk's place (`ChunkHit::span`) and an empty
    /// snippet. Hybrid search fuses 55 candidates per arm to show 10.
    Later,
}

/// The best `lines`-line window (by `terms`) of the chunk at `span` in
/// `path`, as [`crate::source::Sources::shown`] reads it: `None` when the
/// file is gone, unreadable or now ends before `start_line`.
pub fn chunk_snippet(
    sources: &mut crate::source::Sources<'_>,
    path: &str,
    span: &crate::store::ChunkSpan,
    (start_line, end_line): (u32, u32),
    terms: &[String],
    lines: usize,
) -> Option<(u32, String)> {
    let text = sources.shown(path, span, start_line, end_line)?;
    Some(best_snippet(&text, start_line, terms, lines))
}

/// The first `lines` lines of `path` from line `from` on (a definition's
/// own line, where the chunk that matched may start at its doc comment or
/// lie further down its body), while the file still holds the chunk at
/// `span` as indexed: `None` when it does not, or ends before `from`.
pub fn definition_snippet(
    sources: &mut crate::source::Sources<'_>,
    path: &str,
    span: &crate::store::ChunkSpan,
    from: u32,
    lines: usize,
) -> Option<(u32, String)> {
    sources.chunk(path, span)?;
    let text = sources.file(path, span.file_size)?;
    let at = text
        .split_inclusive('\n')
        .take(from.saturating_sub(1) as usize)
        .map(str::len)
        .sum::<usize>();
    let head: String = text
        .get(at..)?
        .split_inclusive('\n')
        .take(lines.max(1))
        .collect();
    (!head.trim().is_empty()).then(|| best_snippet(&head, from, &[], lines))
}

/// The window of at most `max_lines` lines of `text` (which starts at
/// `first_line`) holding the most query-term occurrences. Returns the first
/// line number of the window and its text. A licence notice atop a file
/// ([`crate::text::license_span`]) counts no terms, and a window would
/// rather start below it than show it.
pub fn best_snippet(
    text: &str,
    first_line: u32,
    terms: &[String],
    max_lines: usize,
) -> (u32, String) {
    let lines: Vec<&str> = text.lines().collect();
    let max_lines = max_lines.max(1);
    // The notice's lines, as indexes into `lines` (only atop a file, as
    // `text::indexed_text` reads it).
    let notice = (first_line == 1)
        .then(|| crate::text::license_span(text))
        .flatten()
        .map(|r| {
            let line_of = |at: usize| text[..at].bytes().filter(|&b| b == b'\n').count();
            line_of(r.start)..line_of(r.end)
        });
    let in_notice = |i: usize| notice.as_ref().is_some_and(|n| n.contains(&i));
    let score = |i: usize, l: &str| -> usize {
        if in_notice(i) {
            return 0;
        }
        let lower = l.to_lowercase();
        terms.iter().filter(|t| lower.contains(t.as_str())).count()
    };
    let mut start = 0;
    if let Some(n) = &notice
        && n.start == 0
        && n.end < lines.len()
    {
        start = n.end;
    }
    if lines.len() > start + max_lines {
        let scores: Vec<usize> = lines.iter().enumerate().map(|(i, l)| score(i, l)).collect();
        let first = start;
        let mut window: usize = scores[first..first + max_lines].iter().sum();
        let mut best = window;
        for i in first + 1..=(lines.len() - max_lines) {
            window = window + scores[i + max_lines - 1] - scores[i - 1];
            if window > best {
                best = window;
                start = i;
            }
        }
    }
    let end = (start + max_lines).min(lines.len());
    let body: Vec<String> = lines[start..end]
        .iter()
        .map(|l| bound_line(l, 240))
        .collect();
    (first_line + start as u32, body.join("\n"))
}

/// Longest line text in a compact hit (the best lines of a snippet).
pub const BEST_LINE_CHARS: usize = 160;

/// The lines of a hit's snippet that best show why it matched `query`, as
/// `(line number, text)` in file order, at most `max` of them (1 to 3 is
/// what compact answers show): the line holding the most distinct query
/// terms (stemmed: `parses` meets `parse`), then up to `max - 1` more that
/// hold at least one. Ties go to the earlier line, so a matching signature
/// wins over its body. Without any matching line, the first line with a
/// letter or digit stands for the hit. Lines are trimmed and cut to
/// `width` characters. The one place that picks the lines every surface
/// shows by default (the MCP tools' compact hits, `repo-search search`).
pub fn best_lines(
    snippet: &str,
    first_line: u32,
    query: &str,
    max: usize,
    width: usize,
) -> Vec<(u32, String)> {
    let mut lines = best_lines_ranked(snippet, first_line, query, max, width);
    lines.sort_by_key(|(n, _)| *n);
    lines
}

/// [`best_lines`] best first: what an answer cut to fewer lines keeps the
/// head of (keeping the first in file order showed a neighbour's line,
/// `320: transformRequest?: …`, for a hit on line 321).
pub fn best_lines_ranked(
    snippet: &str,
    first_line: u32,
    query: &str,
    max: usize,
    width: usize,
) -> Vec<(u32, String)> {
    // A location (`consumer.py:300`) names no words to look for: its
    // snippet starts at the line asked, which is the one shown, even a
    // lone `}` (the path's `py` had met `# pylint:` on the next line).
    if crate::search::hybrid::location(query.trim()).is_some() {
        return snippet
            .lines()
            .next()
            .map(|l| vec![(first_line, bound_line(l.trim(), width))])
            .unwrap_or_default();
    }
    let stems: Vec<String> = crate::text::query_terms(query)
        .iter()
        .map(|t| crate::text::crude_stem(t).to_string())
        .filter(|t| t.len() > 1)
        .collect();
    let lines: Vec<(u32, &str)> = snippet
        .lines()
        .enumerate()
        .map(|(i, l)| (first_line + i as u32, l.trim()))
        .filter(|(_, l)| l.chars().any(char::is_alphanumeric))
        .collect();
    // Which terms each line holds, and on how many lines each term is: a
    // term on few of the snippet's lines tells more than one on every
    // other line (marshmallow's `Schema.loads` for "how are unknown fields
    // handled during load": the `:param unknown:` line, not the first of
    // many about missing fields).
    let held: Vec<Vec<bool>> = lines
        .iter()
        .map(|(_, l)| {
            let lower = l.to_lowercase();
            stems.iter().map(|t| lower.contains(t.as_str())).collect()
        })
        .collect();
    let n = lines.len() as f64;
    let weight: Vec<f64> = (0..stems.len())
        .map(|t| {
            let df = held.iter().filter(|h| h[t]).count() as f64;
            (1.0 + n / df.max(1.0)).ln()
        })
        .collect();
    // Most distinct terms first, the rarer on a tie; then the earlier line.
    let mut scored: Vec<(usize, f64, usize)> = held
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let terms = h.iter().filter(|&&x| x).count();
            let rarity: f64 = h
                .iter()
                .zip(&weight)
                .filter(|(x, _)| **x)
                .map(|(_, w)| w)
                .sum();
            (terms, rarity, i)
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
    let mut picked: Vec<usize> = Vec::new();
    for (k, &(score, _, i)) in scored.iter().enumerate() {
        if picked.len() >= max.max(1) || (k > 0 && score == 0) {
            break;
        }
        picked.push(i);
    }
    picked
        .into_iter()
        .map(|i| (lines[i].0, bound_line(lines[i].1, width)))
        .collect()
}

/// The short name of a search arm, as compact answers list them.
pub fn arm_short_name(arm: hybrid::Arm) -> &'static str {
    match arm {
        hybrid::Arm::Symbol => "sym",
        hybrid::Arm::Keyword => "kw",
        hybrid::Arm::Bm25 => "bm25",
        hybrid::Arm::Semantic => "sem",
        hybrid::Arm::Phrase => "phr",
        hybrid::Arm::Synonym => "syn",
        hybrid::Arm::Location => "loc",
    }
}

/// The text of a project file (a path relative to `root`), lossy UTF-8;
/// `None` when it is outside the root, gone, not a regular file or larger
/// than `max_bytes`.
pub(crate) fn read_project_text(
    root: &std::path::Path,
    rel: &str,
    max_bytes: u64,
) -> Option<String> {
    let p = crate::paths::resolve_in_root(root, rel).ok()?;
    if std::fs::metadata(&p.abs).ok()?.len() > max_bytes {
        return None;
    }
    let bytes = crate::fs_safe::read_regular(&p.abs).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// `\` is PHP's namespace separator (`Console\Application`).
const SEPARATORS: [&str; 5] = ["::", "->", "#", ".", "\\"];

/// The byte position and length of the rightmost qualifier separator;
/// in `Client.#notify` the `.`: `#notify` is a JavaScript private name.
fn last_separator(s: &str) -> Option<(usize, usize)> {
    SEPARATORS
        .iter()
        .filter_map(|sep| s.rfind(sep).map(|i| (i, sep.len())))
        .max_by_key(|(i, _)| *i)
        .map(|(i, len)| match s[..i].strip_suffix('.') {
            Some(_) if &s[i..i + len] == "#" => (i - 1, 1),
            _ => (i, len),
        })
}

/// Words that declare a definition in some language, and the kinds of
/// definition they declare: `struct strbuf`, `class Config`, `def parse`
/// ask for the definition of that kind named after them.
pub(crate) const DECLARATION_KEYWORDS: [(&str, &[&str]); 25] = [
    ("class", &["class", "struct", "interface", "trait"]),
    ("const", &["constant", "variable"]),
    // Haskell's `data`, `newtype` and `instance`.
    ("data", &["type", "struct", "enum", "class"]),
    ("def", &["function", "method", "macro"]),
    ("defmodule", &["module"]),
    ("enum", &["enum", "type"]),
    ("fn", &["function", "method", "macro"]),
    ("func", &["function", "method"]),
    ("function", &["function", "method"]),
    (
        "impl",
        &["impl", "struct", "enum", "class", "trait", "type"],
    ),
    ("instance", &["impl"]),
    ("interface", &["interface", "trait", "class"]),
    ("macro", &["macro"]),
    ("mod", &["module", "namespace"]),
    ("module", &["module", "namespace"]),
    ("newtype", &["type", "struct"]),
    ("object", &["class", "module", "struct", "type"]),
    ("protocol", &["interface", "trait", "class"]),
    ("record", &["class", "struct", "type"]),
    ("struct", &["struct", "type", "class"]),
    ("trait", &["trait", "interface"]),
    ("type", &["type", "struct", "enum", "class", "interface"]),
    ("typedef", &["type", "struct", "enum"]),
    ("union", &["struct", "type"]),
    ("val", &["constant", "variable"]),
];

/// Kind words a question names a definition by besides the declaration
/// keywords (`where is the parse method defined`).
pub(crate) const KIND_WORDS: [(&str, &[&str]); 5] = [
    ("method", &["method", "function"]),
    ("field", &["field"]),
    ("property", &["field"]),
    ("constant", &["constant", "variable"]),
    ("variable", &["variable", "constant"]),
];

/// A question that only asks where a name is defined: `where is the
/// Tokeniser type defined`, `where is parse_args declared?`, `definition
/// of the Safelist class`: the name, and the kinds its kind word (`type`,
/// `class`, a [`DECLARATION_KEYWORDS`] keyword) declares (any kind
/// without one).
fn definition_question(q: &str) -> Option<(&str, &'static [&'static str])> {
    let q = q.trim().trim_end_matches('?').trim_end();
    let words: Vec<&str> = q.split_whitespace().collect();
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    let is =
        |i: usize, options: &[&str]| lower.get(i).is_some_and(|w| options.contains(&w.as_str()));
    // The words between the lead-in and the end: `[the] NAME [kind]`.
    let middle = if is(0, &["where"])
        && is(1, &["is", "are"])
        && is(lower.len().saturating_sub(1), &["defined", "declared"])
        && lower.len() >= 4
    {
        &words[2..words.len() - 1]
    } else if is(0, &["where's"]) && is(lower.len().saturating_sub(1), &["defined", "declared"]) {
        &words[1..words.len() - 1]
    } else if is(0, &["definition"]) && is(1, &["of"]) {
        &words[2..]
    } else {
        return None;
    };
    let middle = match middle {
        [first, rest @ ..] if matches!(first.to_ascii_lowercase().as_str(), "the" | "a" | "an") => {
            rest
        }
        m => m,
    };
    let (name, kinds): (&str, &'static [&'static str]) = match middle {
        [name] => (name, &[]),
        [name, kind] => {
            let kind = kind.to_ascii_lowercase();
            let kinds = DECLARATION_KEYWORDS
                .iter()
                .chain(&KIND_WORDS)
                .find(|(k, _)| *k == kind)
                .map(|(_, kinds)| *kinds)?;
            (name, kinds)
        }
        _ => return None,
    };
    (crate::text::is_plain_name(name) || crate::text::is_qualified_name(name))
        .then_some((name, kinds))
}

/// `struct strbuf`, `class Config`, `fn parse` as a whole query, or a
/// question that only asks where a name is defined
/// ([`definition_question`]): the name after a declaration keyword
/// ([`DECLARATION_KEYWORDS`]) and the kinds of definition that keyword
/// declares.
pub(crate) fn declared_name(q: &str) -> Option<(&str, &'static [&'static str])> {
    if let Some(asked) = definition_question(q) {
        return Some(asked);
    }
    let mut words = q.split_whitespace();
    let (Some(keyword), Some(name), None) = (words.next(), words.next(), words.next()) else {
        return None;
    };
    if !crate::text::is_plain_name(name) {
        return None;
    }
    DECLARATION_KEYWORDS
        .iter()
        .find(|(k, _)| *k == keyword)
        .map(|(_, kinds)| (name, *kinds))
}

/// A member written in a language's own notation, in the dotted form the
/// index names it by: Go's method expression `gin.(*Context).JSON` or
/// `(T).String` → `gin.Context.JSON`, `T.String`; JavaScript's
/// `Router.prototype.route` → `Router.route`; Lua's method call
/// `List:append` (one colon between names; `a::b` is a path) →
/// `List.append`. `None` when nothing is rewritten.
fn member_notation(w: &str) -> Option<String> {
    let word = crate::text::is_plain_name;
    let mut out = w.to_string();
    // Go: `(*T).M` / `(T).M`, alone or after a package.
    while let Some(open) = out.find('(') {
        let Some(close) = out[open..].find(")").map(|c| open + c) else {
            break;
        };
        let inner = out[open + 1..close].trim_start_matches('*');
        let at_start = open == 0 || out[..open].ends_with('.');
        if !(at_start && word(inner) && out[close + 1..].starts_with('.')) {
            break;
        }
        out = format!("{}{}{}", &out[..open], inner, &out[close + 1..]);
    }
    // JavaScript: `.prototype.` between a constructor and its method.
    while let Some(at) = out.find(".prototype.") {
        if at == 0 {
            break;
        }
        out.replace_range(at..at + ".prototype.".len(), ".");
    }
    // Lua: `Class:method`, `pl.List:append`; Erlang: `module:function/3`
    // (its arity is cut by `asked_name_as_written`).
    if !out.contains("::")
        && out.matches(':').count() == 1
        && let Some((recv, method)) = out.split_once(':')
        && word(method.split_once('/').map_or(method, |(name, arity)| {
            if !arity.is_empty() && arity.chars().all(|c| c.is_ascii_digit()) {
                name
            } else {
                method
            }
        }))
        && !recv.is_empty()
        && recv.split('.').all(word)
    {
        out = format!("{recv}.{method}");
    }
    // PHP: a static property, `Tokens::$emptyTokens`, `self::$instances`
    // (the index names a property without its sigil).
    if let Some(at) = out.find("::$")
        && at > 0
        && word(&out[at + 3..])
    {
        out = format!("{}::{}", &out[..at], &out[at + 3..]);
    }
    // R: `ListReporter$get_results` (an R6 class's method, a list's
    // member); Java's binary names: `Map$Entry`.
    if out.matches('$').count() == 1
        && let Some((recv, member)) = out.split_once('$')
        && word(member)
        && recv.starts_with(|c: char| c.is_alphabetic())
        && recv.split('.').all(word)
    {
        out = format!("{recv}.{member}");
    }
    (out != w).then_some(out)
}

/// The query with each type-argument list that follows a name made one
/// word with it: `DBusStruct<T1, T2>` → `DBusStruct<T1,T2>`, and cut
/// before a member: `AliasedObjectSet<T>.FindAlias` →
/// `AliasedObjectSet.FindAlias`, `HashMap<K, V>::insert` →
/// `HashMap::insert`. A `<` after a space (`a < b`) or holding other text
/// than type names is left alone.
pub(crate) fn without_type_arguments(q: &str) -> std::borrow::Cow<'_, str> {
    let bytes = q.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        let after_name = i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_');
        if bytes[i] == b'<' && after_name {
            let mut depth = 0usize;
            let mut end = None;
            for (j, &b) in bytes.iter().enumerate().skip(i) {
                match b {
                    b'<' => depth += 1,
                    b'>' => {
                        depth -= 1;
                        if depth == 0 {
                            end = Some(j);
                            break;
                        }
                    }
                    b if b.is_ascii_alphanumeric() || b" ,.:_[]&'?*".contains(&b) => {}
                    _ => break,
                }
            }
            if let Some(end) = end {
                out.push_str(&q[copied..i]);
                // Before a member the list goes (`Set<T>.Find` → `Set.Find`);
                // at the end it stays, without its spaces, for
                // `asked_name_as_written` to cut (`Vec<u8>` is a name by it).
                if !matches!(bytes.get(end + 1), Some(b'.' | b':')) {
                    out.extend(q[i..=end].chars().filter(|c| !c.is_whitespace()));
                }
                copied = end + 1;
                i = end + 1;
                continue;
            }
        }
        i += 1;
    }
    if copied == 0 {
        return std::borrow::Cow::Borrowed(q);
    }
    out.push_str(&q[copied..]);
    if out == q {
        std::borrow::Cow::Borrowed(q)
    } else {
        std::borrow::Cow::Owned(out)
    }
}

/// The definition a name as written asks for ([`asked_name_as_written`]),
/// after its type arguments are joined or cut ([`without_type_arguments`]:
/// `LruCache<TKey, TValue>`, `Set<T>.Find`) and a member in a language's
/// own notation is put in the dotted form ([`member_notation`]:
/// `gin.(*Context).JSON`, `Router.prototype.route`, `List:append`,
/// Erlang's `ssh_auth:handle_userauth_request/3`, R's
/// `ListReporter$get_results`).
pub(crate) fn asked_name(w: &str) -> std::borrow::Cow<'_, str> {
    // `LruCache<TKey, TValue>`, `Set<T>.Find` (once: the result has no
    // spaced or inner type arguments left).
    if let std::borrow::Cow::Owned(joined) = without_type_arguments(w) {
        return std::borrow::Cow::Owned(asked_name(&joined).into_owned());
    }
    match member_notation(w) {
        Some(dotted) => std::borrow::Cow::Owned(asked_name_as_written(&dotted).to_string()),
        None => std::borrow::Cow::Borrowed(asked_name_as_written(w)),
    }
}

/// The definition a name as written asks for: `Mix.Dep.Converger.converge/4`
/// (Elixir's and Erlang's arity) → `Mix.Dep.Converger.converge`;
/// `$logger->addRecord`, `dev->ops` (a member through a variable: a `$` or
/// lower-case receiver) → `addRecord`, `ops`, the name the index can
/// define (`Logger->addRecord` stays qualified); `TypeAdapter(...)`,
/// `parse(s)` (a call) → `TypeAdapter`, `parse`; `TypeAdapter[T]`,
/// `Vec<u8>`, `Map<String, List<T>>` (type arguments, without spaces) →
/// `TypeAdapter`, `Vec`, `Map`. Anything else as it is (a regex's groups
/// and classes, `get_(user|admin)`, `foo[0-9]`, keep their shape). A
/// decorator or annotation as written, `@login_required`, `@Override`,
/// `@app.route(...)` → the name it applies. An Erlang record,
/// `#state{}` → `state`; an Erlang macro as used, `?MODULE` → `MODULE`;
/// an Objective-C selector, `sendPluginResult:callbackId:` →
/// `sendPluginResult`.
fn asked_name_as_written(w: &str) -> &str {
    let word = crate::text::is_plain_name;
    // An operator in its prefix form, Haskell's `(^.)`, OCaml's `( >>= )`:
    // the operator itself, as its definition names it (a regex's usual
    // groups, `(.*)`, `(.+?)`, keep their shape).
    if let Some(inner) = w.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
        let op = inner.trim();
        if !op.is_empty()
            && op.chars().all(|c| "!#$%&*+./<=>?@\\^|-~:".contains(c))
            && !matches!(
                op,
                ".*" | ".+" | ".*?" | ".+?" | "?" | "|" | "." | "*" | "+"
            )
        {
            return op;
        }
    }
    // Erlang's record notation: `#state{}`, `#ssh_msg_kexinit{cookie = C}`.
    if let Some(rest) = w.strip_prefix('#')
        && rest.ends_with('}')
        && let Some(open) = rest.find('{')
        && word(&rest[..open])
    {
        return &rest[..open];
    }
    // An Objective-C selector, `sendPluginResult:callbackId:`,
    // `count:`: the method its first part names, as the index names it.
    if let Some(body) = w.strip_suffix(':')
        && !body.contains("::")
        && body.split(':').all(word)
    {
        return body.split(':').next().unwrap_or(body);
    }
    // An annotation's `@`, and Erlang's `?` before a macro it uses
    // (`?MODULE`, `?__(Key,Str)`: the macro `-define(__(Key,Str), …)`).
    let w = match w.strip_prefix(['@', '?']) {
        Some(rest) if rest.starts_with(|c: char| c.is_alphabetic() || c == '_') => rest,
        _ => w,
    };
    // A call's arguments and type arguments, `Foo<T>(...)`: cut from the
    // end, kept when what is left is a (qualified) name.
    let group = |s: &str| -> Option<usize> {
        let (open, inner) = match s.chars().last()? {
            ')' => ('(', ",.$&*:…_"),
            ']' => ('[', ",.:_[]"),
            '>' => ('<', ",.:_<>[]&'?"),
            _ => return None,
        };
        let at = s.find(open)?;
        let args = &s[at + 1..s.len() - 1];
        args.chars()
            .all(|c| c.is_alphanumeric() || inner.contains(c))
            .then_some(at)
    };
    let mut w = w;
    let mut head = w;
    // C++'s `operator[]`, `App::operator()`, `operator<`: the brackets are
    // the name (cutting them had asked for `App::operator`).
    let is_operator =
        |h: &str| h == "operator" || h.ends_with("::operator") || h.ends_with(".operator");
    while let Some(at) = group(head) {
        if is_operator(&head[..at]) {
            break;
        }
        head = &head[..at];
    }
    if head != w
        && head.starts_with(|c: char| c.is_alphabetic() || c == '_' || c == '$')
        && head
            .split(['.', ':', '#', '\\'])
            .filter(|s| !s.is_empty())
            .all(word)
    {
        w = head;
    }
    if let Some((name, arity)) = w.rsplit_once('/') {
        let plain = |c: char| c.is_alphanumeric() || c == '_' || c == '.' || c == '?' || c == '!';
        if !arity.is_empty()
            && arity.len() <= 3
            && arity.chars().all(|c| c.is_ascii_digit())
            && name.starts_with(|c: char| c.is_alphabetic() || c == '_')
            && name.chars().all(plain)
        {
            return name;
        }
    }
    match w.rsplit_once("->") {
        Some((receiver, member))
            if receiver.starts_with(|c: char| c == '$' || c.is_lowercase())
                && receiver.split("->").all(word)
                && word(member) =>
        {
            member
        }
        _ => w,
    }
}

/// Splits `Config::parse` / `views.LoginView.post` / `Foo#bar` into
/// (innermost container, name).
pub fn split_qualified(q: &str) -> (Option<String>, String) {
    let q = q.trim();
    if let Some((i, len)) = last_separator(q) {
        let (head, tail) = (&q[..i], &q[i + len..]);
        if !head.is_empty() && !tail.is_empty() {
            return (Some(last_segment(head).to_string()), tail.to_string());
        }
    }
    (None, q.to_string())
}

/// Every segment of a qualified path, outermost first:
/// `a::b::Config` → `[a, b, Config]`, `views.LoginView` → `[views,
/// LoginView]`.
pub(crate) fn segments(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = s.trim();
    while let Some((i, len)) = last_separator(rest) {
        if i + len < rest.len() {
            out.push(&rest[i + len..]);
        }
        rest = &rest[..i];
    }
    if !rest.is_empty() {
        out.push(rest);
    }
    out.reverse();
    out
}

/// The segments written before a qualified name (`a::b::Config::parse` →
/// `[a, b, Config]`); empty for a bare name.
pub(crate) fn qualifier_segments(q: &str) -> Vec<&str> {
    let q = q.trim();
    match last_separator(q) {
        Some((i, len)) if i > 0 && i + len < q.len() => segments(&q[..i]),
        _ => Vec::new(),
    }
}

pub(crate) fn last_segment(s: &str) -> &str {
    match last_separator(s) {
        Some((i, len)) if i + len < s.len() => &s[i + len..],
        _ => s,
    }
}

/// A definition's name under its container as the chunks of its language
/// write it ([`crate::extract::path_separator`]: `Config::parse` in Rust
/// and C++, `Model::save` in PHP, `LoginView.post` elsewhere), so one
/// answer names a definition one way; a PHP namespace's class or function
/// with PHP's own separator (`Illuminate\Database\Eloquent\Model`).
pub(crate) fn member_path(lang: &str, kind: &str, container: &str, name: &str) -> String {
    let lang = crate::model::Lang::from_name(lang);
    let sep = match lang {
        Some(crate::model::Lang::Php)
            if !matches!(kind, "method" | "field" | "property" | "constant") =>
        {
            "\\"
        }
        Some(lang) => crate::extract::path_separator(lang),
        None => ".",
    };
    format!("{container}{sep}{name}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_lose_the_namespaces_around_types_but_not_a_modules_own_functions() {
        let ns = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let php = ns(&["Slim\\Interfaces", "Slim"]);
        assert_eq!(
            without_namespace("Slim::App::dispatch", Some("method"), &php),
            "App::dispatch"
        );
        assert_eq!(
            without_namespace("Slim\\Interfaces::RouterInterface", Some("interface"), &php),
            "RouterInterface"
        );
        let cs = ns(&["Google.Protobuf"]);
        assert_eq!(
            without_namespace("Google.Protobuf.JsonParser.Parse", Some("method"), &cs),
            "JsonParser.Parse"
        );
        // A module's own function keeps its module; a name merely starting
        // with the namespace's letters is no namespace.
        let rb = ns(&["Enumerable"]);
        assert_eq!(
            without_namespace("Enumerable.map", Some("method"), &rb),
            "Enumerable.map"
        );
        assert_eq!(
            without_namespace("SlimX::App::run", Some("method"), &php),
            "SlimX::App::run"
        );
    }

    #[test]
    fn qualifiers_split_into_segments() {
        assert_eq!(
            qualifier_segments("a::b::Config::parse"),
            ["a", "b", "Config"]
        );
        assert_eq!(
            qualifier_segments("HttpConnection.Request.timeout"),
            ["HttpConnection", "Request"]
        );
        assert_eq!(qualifier_segments("Array#push"), ["Array"]);
        assert!(qualifier_segments("parse").is_empty());
        assert!(qualifier_segments("::parse").is_empty());
        assert_eq!(segments("Connection.Request"), ["Connection", "Request"]);
        assert_eq!(segments("Request"), ["Request"]);
    }

    #[test]
    fn snippet_picks_densest_window() {
        let text = "a\nb\nc\nparse config here\nconfig again\nd\ne";
        let (line, snip) = best_snippet(text, 10, &["config".into(), "parse".into()], 2);
        assert_eq!(line, 13);
        assert_eq!(snip, "parse config here\nconfig again");
    }

    #[test]
    fn snippet_starts_below_a_licence_notice() {
        let text = "// Copyright 2011 The Go Authors.\n// Use of this source code is governed by a BSD-style\n// license; provided as is, required by law.\n\npackage flag\n\nfunc required() {}\n";
        // The notice's "required" and "provided" count for nothing.
        let (line, snip) = best_snippet(text, 1, &["required".into(), "provided".into()], 3);
        assert_eq!(
            (line, snip.as_str()),
            (5, "package flag\n\nfunc required() {}")
        );
        // No term anywhere: still below the notice.
        let (line, _) = best_snippet(text, 1, &["zzz".into()], 2);
        assert_eq!(line, 4);
        // Further down a file, such a comment is a function's doc.
        let (line, _) = best_snippet(text, 40, &["required".into()], 1);
        assert_eq!(line, 42);
    }

    #[test]
    fn best_lines_pick_the_lines_with_most_query_terms() {
        let snip = "def handle(request):\n    x = 1\n\n    token = request.csrf_token\n    if not validate_csrf(token):\n        raise Forbidden()";
        // Three terms on line 14, two on 13; the signature has none.
        assert_eq!(
            best_lines(snip, 10, "validate the csrf token", 2, 160),
            [
                (13, "token = request.csrf_token".to_string()),
                (14, "if not validate_csrf(token):".to_string())
            ]
        );
        assert_eq!(
            best_lines(snip, 10, "validate the csrf token", 1, 160),
            [(14, "if not validate_csrf(token):".to_string())]
        );
        // As many terms: the line with the term fewer lines hold leads.
        let doc = ":param partial: ignore missing fields\nany fields declared, nested fields\n:param unknown: exclude or raise for unknown\nfields in the data";
        assert_eq!(
            best_lines_ranked(doc, 740, "how are unknown fields handled", 1, 160),
            [(
                742,
                ":param unknown: exclude or raise for unknown".to_string()
            )]
        );
        // Nothing matches: the first line with text, alone.
        assert_eq!(
            best_lines("\n}\nfn main() {}\nlet y = 2;", 1, "zebra", 3, 160),
            [(3, "fn main() {}".to_string())]
        );
        // Stems meet (`parses` ~ `parse`), long lines are cut.
        let long = format!("parse_all({})", "x".repeat(300));
        let got = best_lines(&long, 1, "parses", 3, 20);
        assert_eq!(got.len(), 1);
        assert!(got[0].1.starts_with("parse_all(") && got[0].1.chars().count() <= 21);
        assert!(best_lines("", 1, "x", 3, 160).is_empty());
        // A location's snippet starts at the line asked: that line, even
        // when the path's words meet a later one.
        let at = "        p()\n    except Exception:  # pylint: disable\n";
        assert_eq!(
            best_lines(at, 300, "celery/worker/consumer.py:300", 3, 160),
            [(300, "p()".to_string())]
        );
        assert_eq!(
            best_lines("  }\n", 100, "vector.h:100", 3, 160),
            [(100, "}".to_string())]
        );
    }

    #[test]
    fn filter_globs_like_rg() {
        let f = ChunkFilter::new(&["*.py".into(), "!tests/**".into()], None, Scope::Code)
            .expect("filter");
        assert!(f.accepts("django/views.py", "python"));
        let ts = LangFilter::parse("typescript", |_| true).expect("typescript");
        assert!(ts.accepts("src/Svg.tsx", "tsx") && ts.accepts("src/a.ts", "typescript"));
        let tsx = LangFilter::parse("tsx", |_| true).expect("tsx");
        assert!(!tsx.accepts("src/a.ts", "typescript"));
        assert!(!f.accepts("tests/test_x.py", "python"));
        assert!(!f.accepts("README.md", "docs"));
        assert!(ChunkFilter::new(&["a[".into()], None, Scope::All).is_err());
        // A glob climbing out of the root is an error, not silence.
        for g in ["../**", "!src/../../x", "..\\x"] {
            let e = ChunkFilter::new(&[g.into()], None, Scope::All).err();
            let code = e
                .as_ref()
                .and_then(|e| e.downcast_ref::<UserError>())
                .map(|u| u.code);
            assert_eq!(code, Some(crate::error::ErrorCode::PathOutsideRoot), "{g}");
        }
    }

    #[test]
    fn tests_are_tests_by_their_language_conventions() {
        for p in [
            "tests/parse.rs",
            "pkg/foo_test.go",
            "app/test_views.py",
            "app/views_test.py",
            "conftest.py",
            "spec/rack/utils_spec.rb",
            "src/__tests__/a.ts",
            "src/a.test.ts",
            "lib/b.spec.js",
            "src/test/java/com/x/ParserTest.java",
            "Tests/FooTests.cs",
            "tests/Unit/ArgvInputTest.php",
            "src/parser/tests.rs",
            "rayon-core/src/scope/test.rs",
            "src/parser_tests.rs",
            "t/t0006-date.sh",
            "t/helper/test-date.c",
            "t/basic.t",
            "xt/author/pod.t",
            "internal/testdata/config.yaml",
            "src/leiningen/core/main_test.clj",
            "lisp/helm-files-tests.el",
            "src/wings_SUITE.erl",
            "src/token_tests.erl",
            "src/Token.t.sol",
            "lib/widget_test.dart",
            "src/parser_spec.lua",
            "src/MyLib.Tests/ParserFacts.cs",
            "test/MyLib.UnitTests/Parser.cs",
            "app/src/androidTest/java/com/x/MainActivity.kt",
            "core/src/commonTest/kotlin/x/Parse.kt",
            "lib/src/testFixtures/java/x/Data.java",
            "src/integrationTest/java/x/Db.java",
            "src/components/__mocks__/api.ts",
            "src/__snapshots__/app.test.ts.snap",
            "e2e/login.ts",
            "cypress/e2e/login.cy.ts",
            "test/app.e2e-spec.ts",
            "re2/re2_unittest.cc",
            "src/parser_tests.cpp",
            "test/Data/ListSpec.hs",
            "src/Data/ListSpec.hs",
            "core/src/main/scala/x/ParserSuite.scala",
            "src/main/java/x/DatabaseIT.java",
            "projects/SelfTest/UsageTests/ToStringPair.tests.cpp",
            "projects/ExtraTests/X01-PrefixedMacros.cpp",
            "src/unit_tests/parse.c",
            "integration-tests/app.js",
            "test_old/run.php",
            "test_projects/sample-deploy/project.clj",
            "tests-e2e/login.ts",
        ] {
            assert!(is_test_path(p), "{p} is a test");
        }
        for p in [
            "bash_completion.d/test_functions.bash",
            "lib/test_helpers.sh",
            "src/Test.java",
            "src/testing_utils.go",
            "src/latest.rs",
            "lib/contest.py",
            "src/parser/mod.rs",
            "tools/t.sh",
            "src/tt/parse.c",
            "src/leiningen/test.clj",
            "lisp/ert-x.el",
            "src/eunit.erl",
            "contracts/Token.sol",
            // Live code a loose rule would take for tests.
            "mock/mock.go",
            "lib/mock/mock-agent.js",
            "src/main/java/x/JIT.java",
            "src/main/java/x/Split.java",
            "src/Spec.hs",
            "src/Suite.scala",
            "src/main/kotlin/x/TestRunner.kt",
            "src/unittest/runner.py",
            "src/latest/x.go",
            "lib/contest/x.ts",
            "src/tests_helper.c",
            "lib/testament.py",
            "src/testing.py",
            "django/contrib/admin/tests.py",
            "src/features/abTest/variant.ts",
            "app/src/main/java/x/testRunner",
            "projects/XCode/OCTest/main.m",
            "src/ABTest/variant.ts",
            "lib/ab_test/x.py",
        ] {
            assert!(!is_test_path(p), "{p} is not a test");
        }
    }

    #[test]
    fn compiled_output_is_known_by_its_source_map_trailer() {
        for text in [
            "\"use strict\";\nexports.x = 1;\n//# sourceMappingURL=index.js.map",
            "export const x = 1;\n//# sourceMappingURL=index.js.map\n\n",
            ".a{color:red}\n/*# sourceMappingURL=app.css.map */\n",
            "var x;\n//@ sourceMappingURL=old.js.map\n",
        ] {
            assert!(has_source_map_trailer(text), "{text}");
        }
        for text in [
            "export const x = 1;\n",
            // Mentioned, not appended: a tool that writes the comment.
            "const trailer = '//# sourceMappingURL=' + name;\nexport { trailer };\n",
            // Not among the last lines.
            "//# sourceMappingURL=x.js.map\na();\nb();\nc();\nd();\n",
        ] {
            assert!(!has_source_map_trailer(text), "{text}");
        }
    }

    #[test]
    fn a_generated_file_is_known_by_the_comment_atop_it() {
        for head in [
            "// Code generated by stringer -type=Kind; DO NOT EDIT.\n\npackage x\n",
            "\n/*! Capacitor: https://capacitorjs.com/ - MIT License */\n/* Generated File. Do not edit. */\n\nvar nativeBridge = 1;\n",
            "// @generated by prost-build\npub struct A;\n",
            "# This file is automatically generated by a tool.\n# Do not modify it by hand.\nx = 1\n",
            "<!-- Generated: do not edit -->\n<html/>\n",
            "/* Generated by re2c */\n// Copyright 2011 Google Inc.\n",
            "/* A Bison parser, made by GNU Bison 3.8.2.  */\n",
            "/* Generated by Cython 3.0.8 */\n",
            "<?php\n\n/* This is an automatically GENERATED file, which should not be manually edited.\n",
            // PHP-Parser's `Php7.php`, on line 12 below its `use` lines.
            &format!(
                "<?php\n\nnamespace PhpParser\\Parser;\n\n{}\n/* This is an automatically GENERATED file, which should not be manually edited.\n * Instead edit one of the following:\n */\nclass Php7 {{}}\n",
                "use PhpParser\\Node;\n".repeat(7)
            ),
            // Below a licence notice.
            &format!(
                "/*\nCopyright 2024 The Kubernetes Authors.\n\nLicensed under the Apache License.\n{}*/\n\n// Code generated by deepcopy-gen. DO NOT EDIT.\n\npackage v1\n",
                "You may obtain a copy of the License at\n".repeat(12)
            ),
        ] {
            assert!(has_generated_marker(head), "{head}");
        }
        for head in [
            "package x\n",
            // A generator's own source prints the header from a string.
            "package gen\n\nfunc header() string {\n\treturn \"// Code generated by gen. DO NOT EDIT.\"\n}\n",
            // Generated, but nothing says not to edit it.
            "# Generated by Django 4.2 on 2023-05-01 10:00\nfrom django.db import migrations\n",
            // A generator printing the header from a string below its
            // imports (re2's `make_unicode_groups.py`).
            &format!(
                "#!/usr/bin/python3\n# Copyright 2008 The RE2 Authors.\n\n\"\"\"Generate C++ tables.\"\"\"\n\n{}\n_header = \"\"\"\n// GENERATED BY make_unicode_groups.py; DO NOT EDIT.\n\"\"\"\n",
                "import sys\n".repeat(8)
            ),
            // A generator's name, but not as what made the file.
            "// Generated by hand; uses flex layout\n",
            "%{\n#include \"parser.h\"  /* Generated by bison. */\n%}\n",
            "// Tokens are generated by the lexer (see flex.l)\n",
            // Past the first lines.
            &format!(
                "{}// Code generated by x. DO NOT EDIT.\n",
                "int x;\n".repeat(12)
            ),
        ] {
            assert!(!has_generated_marker(head), "{head}");
        }
    }

    #[test]
    fn generated_files_are_known_by_their_generators_names() {
        for p in [
            "KeePass/Resources/KPRes.Generated.cs",
            "KeePass/Util/XmlSerialization/XmlSerializerEx.Gen.cs",
            "KeePass/Forms/MainForm.Designer.cs",
            "src/App.g.cs",
            "src/App.g.i.cs",
            "lib/model.g.dart",
            "lib/model.freezed.dart",
            "altsrc/flag_generated.go",
            "pkg/apis/zz_generated.deepcopy.go",
            "api/v1/service.pb.go",
            "src/proto/msg.pb.h",
            "proto/service_pb2.py",
            "proto/service_pb2_grpc.py",
            "web/schema.generated.ts",
            "configure",
            "deps/libfoo/config.guess",
            "build-aux/ltmain.sh",
            "aclocal.m4",
            "src/Makefile.in",
            "missing",
            "build-aux/test-driver",
            "ui/kotlinx-coroutines-android/example-app/gradlew",
            "gradlew.bat",
            "mvnw",
        ] {
            assert!(is_generated_path(p), "{p}");
        }
        for p in [
            "src/gen.rs",
            "src/generator.py",
            "lib/generated.js",
            "cmd/codegen/main.go",
            "src/config.go",
            "Makefile",
            "src/design.cs",
            "lib/pb.go",
            "configure.ac",
            "src/configure.py",
            "lib/configure.js",
        ] {
            assert!(!is_generated_path(p), "{p}");
        }
    }

    #[test]
    fn build_definitions_are_known_by_their_tools_names() {
        for p in [
            "Makefile",
            "src/Makefile.am",
            "GNUmakefile",
            "CMakeLists.txt",
            "cmake/internal_utils.cmake",
            "configure.ac",
            "m4/libtool.m4",
            "build/build.rules.mk",
            "meson.build",
            "ktor-server/ktor-server-core/build.gradle.kts",
            "settings.gradle",
            "build.sbt",
            "setup.py",
            "noxfile.py",
            "Rakefile",
            "Gemfile",
            "rspec-core.gemspec",
            "RNScreens.podspec",
            "ios/Podfile",
            "mix.exs",
            "Package.swift",
            "build.zig",
            "BUILD.bazel",
            "src/dune",
            "pandoc.cabal",
            "luarocks-3.8.0-1.rockspec",
            "regex.nimble",
            "rebar.config.script",
            "src/lager.app.src",
            "go.mod",
            "project.clj",
            "test_projects/jvm-opts/project.clj",
            "Dockerfile",
            "webpack.config.js",
            "vite.config.ts",
            "jest.config.mjs",
            "gulpfile.js",
        ] {
            assert!(is_build_definition(p), "{p}");
            assert!(path_prior(p, "other") < 1.0, "{p}");
        }
        // Modules that share a build file's name, code that runs, and an
        // application's own configuration are live source.
        for p in [
            "std/Build.zig",
            "Build/Cache.zig",
            "leiningen-core/src/leiningen/core/project.clj",
            "build.rs",
            "src/build.py",
            "lib/makefile_parser.rb",
            "src/app/app.config.ts",
            "lib/webpack.js",
            "src/setup.rs",
            "src/settings.py",
        ] {
            assert!(!is_build_definition(p), "{p}");
        }
        assert_eq!(path_prior("std/Build.zig", "zig"), 1.0);
        assert_eq!(path_prior("build.rs", "rust"), 1.0);
    }

    #[test]
    fn data_files_are_known_by_their_extension() {
        for p in [
            "config/app.yml",
            "package.json",
            "src/jansson.def",
            "a/B.PROPERTIES",
        ] {
            assert!(is_data_file(p), "{p}");
        }
        for p in ["src/config.py", "lib/def.rs", "defaults", "src/def/mod.rs"] {
            assert!(!is_data_file(p), "{p}");
        }
    }

    #[test]
    fn priors_put_live_source_first() {
        assert_eq!(path_prior("src/config.py", "python"), 1.0);
        assert!(path_prior("tests/test_config.py", "python") < 1.0);
        assert!(path_prior("pydantic/v1/main.py", "python") < 1.0);
        assert!(path_prior("examples/demo.rs", "rust") < 1.0);
        for p in [
            "samples/basic/main.go",
            "sample/app.py",
            "demo/index.js",
            "bench/parse.js",
            "benchmark/run.c",
            "src/components/Button.stories.tsx",
            "third-party/zlib/inflate.c",
            "3rdparty/lua/lapi.c",
            "extern/imgui/imgui.cpp",
            "externals/tinyxml2/tinyxml2.cpp",
            "attic/TypeBindings.java",
            "Sources/Private/EmbeddedLibraries/LRUCache/LRUCache.swift",
            "httpclient/src/main/java-deprecated/org/apache/http/impl/conn/PoolingClientConnectionManager.java",
            "src/legacy_api/client.py",
            "ui/kotlinx-coroutines-android/example-app/app/src/main/java/x/MainActivity.kt",
            "tools/gtk-demo/main.lua",
            "apps/js_example/views.py",
            "_demo-server/main.go",
        ] {
            assert!(is_secondary_path(p), "{p} is not the live source");
        }
        for p in [
            "django/contrib/admin/sites.py",
            "src/sampler.rs",
            "lib/demodulate.c",
            "src/deprecation/warnings.py",
            "lib/legacy.rb",
            "src/sample_rate/convert.c",
            "lib/resamples-x/a.py",
            "src/demodulator-core/a.c",
        ] {
            assert!(!is_secondary_path(p), "{p} is live source");
        }
        // Code beside the documentation ranks as an example; the documents
        // as documents, no lower.
        assert_eq!(
            path_prior("docs/_ext/djangodocs.py", "python"),
            GENERATED_PRIOR
        );
        assert_eq!(
            path_prior("docs_src/body/tutorial001.py", "python"),
            GENERATED_PRIOR
        );
        assert_eq!(
            path_prior("docs/src/design.rst", "docs"),
            path_prior("README.rst", "docs")
        );
        assert!(path_prior("vendor/lib/x.go", "go") < 1.0);
        assert!(
            path_prior(
                "venv/lib/python3.12/site-packages/requests/api.py",
                "python"
            ) < 1.0
        );
        assert!(path_prior("static/bower_components/jquery/jquery.js", "javascript") < 1.0);
        assert!(path_prior("docs/config.md", "docs") < 1.0);
        assert!(path_prior("KeePass/Resources/KPRes.Generated.cs", "csharp") < 1.0);
        assert!(path_prior("KeePass/Forms/MainForm.Designer.cs", "csharp") < 1.0);
        assert_eq!(path_prior("KeePass/Forms/MainForm.cs", "csharp"), 1.0);
        assert!(path_prior("scala/tools/scalap/decoder.properties", "other") < 1.0);
        assert!(path_prior("configure", "bash") < 1.0);
        // Build output ranks below a test; the build's scripts do not.
        for p in [
            "dist/mobx.cjs.development.js",
            "dist/cjs/internal/operators/share.js",
            "dist-newstyle/build/x/Main.hs",
            "_build/dev/lib/app/ebin/app.app",
            "static/js/vendor/jquery/jquery.min.js",
            "public/main.bundle.js",
            "lib/commonjs/index.js.map",
            "styles/app.css.map",
            "android/build/intermediates/merged_manifest/release/AndroidManifest.xml",
            "android/build/generated/source/buildConfig/release/BuildConfig.java",
            "build/CMakeFiles/uv.dir/flags.make",
            "single_include/catch2/catch.hpp",
            "singleheader/simdjson.h",
            "min/moment-with-locales.js",
        ] {
            assert!(is_build_output(p), "{p}");
            assert!(
                path_prior(p, "javascript") < path_prior("test/share.spec.js", "javascript"),
                "{p}"
            );
        }
        for p in [
            "CHANGELOG.md",
            "History.md",
            "CHANGES.rst",
            "NEWS",
            "RELEASE-NOTES.txt",
            "CHANGELOG-5.3.md",
            "docs/releases/5.1.txt",
        ] {
            assert!(is_change_log(p, "docs"), "{p}");
            assert!(
                path_prior(p, "docs") < path_prior("docs/topics/forms.txt", "docs"),
                "{p}"
            );
        }
        assert!(!is_change_log("src/history.rs", "rust"));
        assert!(!is_change_log("lib/news.rb", "ruby"));
        assert!(!is_change_log("docs/topics/forms.txt", "docs"));
        for p in [
            "build/build-validation.js",
            "build/gen/generated.js",
            "src/generated/api.rs",
            "src/dist.rs",
            "lib/distance/mod.rs",
            "src/minify.js",
            "src/source.map.js",
            "lib/sitemap.ts",
        ] {
            assert!(!is_build_output(p), "{p}");
            assert_eq!(path_prior(p, "javascript"), 1.0, "{p}");
        }
        assert!(path_prior("docs/content/manual/v1.5/manual.yml", "other") < 0.5);
        assert!(path_prior("docs/content/manual/manual.yml", "other") < 1.0);
        assert_eq!(path_prior("src/v2/api.go", "go"), 1.0);
        assert!(path_prior("scripts/fusion-lab.py", "python") < 1.0);
        assert_eq!(path_prior("django/contrib/auth/models.py", "python"), 1.0);
        // A Rust test module inside a source file ranks as a test; the
        // file's other chunks do not.
        assert!(chunk_prior("src/parser.rs", "rust", Some("tests::parses_flags")) < 1.0);
        assert_eq!(
            chunk_prior("src/parser.rs", "rust", Some("Parser::parse")),
            1.0
        );
        assert_eq!(chunk_prior("lib/suites.py", "python", Some("tests")), 1.0);
        // So do EUnit's test functions inside an Erlang module.
        for t in [
            "console_log_test_",
            "rotation_test",
            "lager_util:parse_test_",
        ] {
            assert!(
                chunk_prior("src/lager_util.erl", "erlang", Some(t)) < 1.0,
                "{t}"
            );
        }
        for f in ["test_format", "handle_call", "contest"] {
            assert_eq!(
                chunk_prior("src/lager_util.erl", "erlang", Some(f)),
                1.0,
                "{f}"
            );
        }
    }

    #[test]
    fn type_declarations_rank_after_their_implementation() {
        for p in [
            "types/hooks.d.ts",
            "index.d.ts",
            "lib/x.D.MTS",
            "a/b.d.cts",
            "src/attr/validators.pyi",
        ] {
            assert!(is_type_declaration(p), "{p} declares types");
        }
        for p in [
            "src/d.ts",
            "lib/hooks.ts",
            "types/hooks.d.ts.map",
            ".d.ts",
            "src/build.d/x.ts",
            "src/attr/validators.py",
            "src/pyi.py",
        ] {
            assert!(!is_type_declaration(p), "{p} is not a declaration file");
        }
        assert!(
            path_prior("types/hooks.d.ts", "typescript") < path_prior("lib/hooks.js", "javascript")
        );
        assert!(
            path_prior("src/attr/validators.pyi", "python")
                < path_prior("src/attr/validators.py", "python")
        );
    }
    #[test]
    fn a_react_native_librarys_build_is_shipped_build_output() {
        for p in [
            "lib/commonjs/handlers/PanGestureHandler.js",
            "lib/module/index.js",
            "lib/typescript/src/handlers/PanGestureHandler.d.ts",
            "dist/axios.js",
        ] {
            assert!(is_shipped_build(p), "{p}");
            assert_eq!(path_standing(p), 2, "{p}");
        }
        for p in [
            "lib/module/helpers.rb",
            "src/lib/module/index.lua",
            "lib/core/mergeConfig.js",
            "src/commonjs.ts",
        ] {
            assert!(!is_shipped_build(p), "{p}");
        }
        // Search finds these copies by their content, not their path.
        assert!(!is_build_output("lib/module/index.js"));
    }
}
