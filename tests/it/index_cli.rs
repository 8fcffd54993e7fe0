//! `repo-search index` and the index-backed searches, end to end through the
//! real binary: incremental updates, ignore rules, skip reasons, bad input
//! and a killed writer.

use std::time::Duration;

use crate::common::*;

const RUST: &str = r#"//! Config handling.

/// Parsed configuration.
pub struct Config {
    pub name: String,
}

impl Config {
    /// Parses the config file.
    pub fn parse_config(text: &str) -> Config {
        let name = text.trim().to_string();
        Config { name }
    }
}

fn main() {
    let c = Config::parse_config("x");
    println!("{}", c.name);
}
"#;

const PYTHON: &str = r#"import os


class LoginView:
    """Handles the login form."""

    def post(self, request):
        token = request.csrf_token
        return validate_csrf_token(token)


def validate_csrf_token(token):
    """Check that the CSRF token is valid."""
    return token == os.environ.get("SECRET")
"#;

const GO: &str = "package main\n\ntype Server struct {\n\tAddr string\n}\n\nfunc (s *Server) Start() error {\n\treturn nil\n}\n\nfunc NewServer(addr string) *Server {\n\treturn &Server{Addr: addr}\n}\n";

const TS: &str = "export interface Shape {\n  area(): number;\n}\n\nexport class Circle implements Shape {\n  constructor(private r: number) {}\n  area(): number {\n    return Math.PI * this.r * this.r;\n  }\n}\n\nexport function makeCircle(r: number): Circle {\n  return new Circle(r);\n}\n";

fn sample() -> Project {
    let p = Project::new();
    p.write("src/main.rs", RUST)
        .write("app/views.py", PYTHON)
        .write("server/server.go", GO)
        .write("web/shapes.ts", TS)
        .write("README.md", "# Demo\n\nHow to validate the CSRF token.\n");
    p
}

fn hit_paths(v: &serde_json::Value, field: &str) -> Vec<String> {
    v[field]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|h| h["path"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn index_then_every_search() {
    let p = sample();
    let summary = p.json(&["index"]);
    assert_eq!(summary["files"], 5, "{summary}");
    assert!(summary["symbols"].as_u64().unwrap_or(0) >= 10, "{summary}");
    assert!(summary["chunks"].as_u64().unwrap_or(0) >= 5, "{summary}");
    assert!(p.path(".repo_search/index.db").exists());

    let v = p.json(&["symbol", "parse_config"]);
    assert_eq!(v["hits"][0]["path"], "src/main.rs", "{v}");
    assert_eq!(v["hits"][0]["kind"], "method", "{v}");
    assert_eq!(v["hits"][0]["container"], "Config", "{v}");
    assert_eq!(v["hits"][0]["start_line"], 10, "{v}");

    // Qualified, case-insensitive, prefix and fuzzy lookups.
    let v = p.json(&["symbol", "Config::parse_config"]);
    assert_eq!(v["hits"][0]["name"], "parse_config", "{v}");
    assert!(v.get("unplaced_qualifier").is_none(), "{v}");
    // A qualifier that names a definition but places nothing (a module
    // that includes the file, a class reopened elsewhere) answers with the
    // bare name's definitions, and says so; one that names nothing of the
    // project's (`os.path`) finds nothing.
    let v = p.json(&["symbol", "LoginView.validate_csrf_token"]);
    assert_eq!(v["hits"][0]["path"], "app/views.py", "{v}");
    assert_eq!(v["unplaced_qualifier"], "LoginView", "{v}");
    let r = p.run(&["symbol", "LoginView.validate_csrf_token"]).ok();
    assert!(r.stdout().contains("app/views.py:"), "{r}");
    assert!(
        r.stderr()
            .contains("nothing named `validate_csrf_token` inside `LoginView`"),
        "{r}"
    );
    for q in [
        "Security.validate_csrf_token",
        "LoginView.zzzz_no_such_name",
    ] {
        let r = p.run(&["symbol", q]);
        assert_eq!(r.code(), 1, "{r}");
        assert!(r.stderr().contains("no definition named"), "{r}");
    }
    let v = p.json(&["symbol", "loginview"]);
    assert_eq!(v["hits"][0]["name"], "LoginView", "{v}");
    assert_eq!(v["hits"][0]["match"], "case-insensitive", "{v}");
    let v = p.json(&["symbol", "validate_", "--prefix"]);
    assert_eq!(v["hits"][0]["name"], "validate_csrf_token", "{v}");
    let v = p.json(&["symbol", "mkcrcl", "--fuzzy"]);
    assert_eq!(v["hits"][0]["name"], "makeCircle", "{v}");
    let v = p.json(&["symbol", "Start", "--kind", "method", "--lang", "go"]);
    assert_eq!(v["hits"][0]["container"], "Server", "{v}");

    let v = p.json(&["refs", "validate_csrf_token"]);
    let hits = v["hits"].as_array().expect("hits");
    assert!(
        hits.iter()
            .any(|h| h["is_definition"] == true && h["path"] == "app/views.py"),
        "{v}"
    );
    assert!(
        hits.iter()
            .any(|h| h["is_definition"] == false && h["line"] == 9),
        "{v}"
    );

    // A file without definitions: exit 1, and a word on stderr.
    p.write("NOTES.txt", "plain words\n");
    p.run(&["index", "--no-embed", "-q"]).ok();
    let r = p.run(&["outline", "NOTES.txt"]);
    assert_eq!(r.code(), 1, "{r}");
    assert!(
        r.stderr().contains("no definitions found in `NOTES.txt`"),
        "{r}"
    );

    let v = p.json(&["outline", "web/shapes.ts"]);
    let top: Vec<&str> = v["symbols"]
        .as_array()
        .expect("symbols")
        .iter()
        .filter_map(|s| s["name"].as_str())
        .collect();
    assert_eq!(top, ["Shape", "Circle", "makeCircle"], "{v}");
    let circle = &v["symbols"][1];
    assert!(
        circle["children"]
            .as_array()
            .is_some_and(|c| c.iter().any(|m| m["name"] == "area")),
        "{v}"
    );

    let v = p.json(&["read", "src/main.rs", "--lines", "9:11"]);
    assert_eq!(v["lines"][0]["line"], 9);
    assert_eq!(v["lines"].as_array().map(|a| a.len()), Some(3));
    let v = p.json(&["read", "app/views.py", "--match", "csrf_token", "-C", "1"]);
    assert_eq!(v["match_line"], 8, "{v}");
    assert_eq!(v["match_count"], 3, "{v}");

    let v = p.json(&["search", "validate csrf token", "--mode", "bm25"]);
    assert_eq!(
        hit_paths(&v, "hits").first().map(String::as_str),
        Some("app/views.py"),
        "{v}"
    );
    let v = p.json(&["search", "csrf token", "--scope", "docs", "--mode", "bm25"]);
    assert_eq!(hit_paths(&v, "hits"), ["README.md"], "{v}");
    // camelCase parts are searchable.
    let v = p.json(&["search", "make circle", "--scope", "code", "--mode", "bm25"]);
    assert_eq!(
        hit_paths(&v, "hits").first().map(String::as_str),
        Some("web/shapes.ts"),
        "{v}"
    );

    // Hybrid (the default): an identifier puts its definition first, with
    // the arms that found it; a quoted phrase returns the exact-match lines.
    let v = p.json(&["search", "validate_csrf_token"]);
    let top = &v["hits"][0];
    assert_eq!(
        (top["path"].as_str(), top["start_line"].as_u64()),
        (Some("app/views.py"), Some(12)),
        "{v}"
    );
    let arms: Vec<&str> = top["sources"]
        .as_array()
        .expect("sources")
        .iter()
        .filter_map(|s| s["arm"].as_str())
        .collect();
    assert!(arms.contains(&"symbol") && arms.contains(&"keyword"), "{v}");
    assert_eq!(v["query_kind"], "identifier", "{v}");
    assert!(
        v["query_interpretation"]
            .as_str()
            .is_some_and(|s| s.contains("semantic")),
        "{v}"
    );
    let score = top["score"].as_f64().unwrap_or(-1.0);
    assert!((0.0..=1.0).contains(&score), "{v}");
    // A qualifier the index cannot place (a module that includes the
    // file, a class reopened elsewhere) still finds the name's definition.
    let v = p.json(&["search", "Security.validate_csrf_token"]);
    let top = &v["hits"][0];
    assert_eq!(
        (top["path"].as_str(), top["start_line"].as_u64()),
        (Some("app/views.py"), Some(12)),
        "{v}"
    );
    assert!(found_by(top, "symbol"), "{v}");
    // A question: a chunk where two of its words stand side by side (here
    // as the parts of `validate_csrf_token`) gets the word-pair arm's vote.
    let v = p.json(&["search", "where is the csrf token validated"]);
    assert_eq!(v["query_kind"], "natural_language", "{v}");
    let phrase = arm_report(&v, "phrase");
    assert!(phrase["candidates"].as_u64().unwrap_or(0) > 0, "{v}");
    let top = &v["hits"][0];
    assert_eq!(top["path"], "app/views.py", "{v}");
    // One hit per file: the file's other matching definition is listed
    // under its best hit (`also`), in JSON and in the text.
    let paths = hit_paths(&v, "hits");
    let distinct: std::collections::HashSet<&String> = paths.iter().collect();
    assert_eq!(distinct.len(), paths.len(), "{v}");
    let also = top["also"].as_array().cloned().unwrap_or_default();
    assert!(
        also.iter().any(|a| a["start_line"].as_u64().is_some()
            && a["symbol"].as_str().is_some_and(|s| !s.is_empty())),
        "{v}"
    );
    let text = p
        .run(&["search", "where is the csrf token validated"])
        .ok()
        .stdout();
    assert!(text.lines().any(|l| l.starts_with("  also: ")), "{text}");
    assert!(found_by(top, "phrase"), "{v}");
    // A short question in other words: the synonym arm matches `validate`
    // for "verify"; a long question skips it.
    let v = p.json(&["search", "verify csrf"]);
    let synonym = arm_report(&v, "synonym");
    assert!(synonym["candidates"].as_u64().unwrap_or(0) > 0, "{v}");
    assert_eq!(v["hits"][0]["path"], "app/views.py", "{v}");
    assert!(found_by(&v["hits"][0], "synonym"), "{v}");
    let v = p.json(&[
        "search",
        "where do we verify the csrf token of a posted form",
    ]);
    let synonym = arm_report(&v, "synonym");
    assert_eq!(synonym["candidates"].as_u64(), Some(0), "{v}");
    let v = p.json(&["search", "\"request.csrf_token\""]);
    let hits = v["hits"].as_array().expect("hits");
    assert!(
        hits.iter().any(|h| h["path"] == "app/views.py"
            && h["snippet"]
                .as_str()
                .is_some_and(|s| s.contains("request.csrf_token"))),
        "{v}"
    );
    assert_eq!(v["query_kind"], "literal", "{v}");
    let v = p.json(&["search", "csrf token", "--scope", "docs"]);
    assert_eq!(hit_paths(&v, "hits"), ["README.md"], "{v}");

    // Exit codes like rg: 1 when nothing is found.
    assert_eq!(
        p.run(&["symbol", "zzzz_no_such_name_zzzz", "--exact"])
            .code(),
        1
    );
    assert_eq!(p.run(&["keyword", "zzzz_no_such_text_zzzz"]).code(), 1);
    assert_eq!(
        p.run(&["keyword", "parse_config"])
            .ok()
            .stdout()
            .lines()
            .count(),
        2
    );
}

/// A Rust trait impl's outline row names its trait (`impl Display for
/// Port`); an inherent impl stays `impl Port` (QA: six rows of `impl
/// Port` in http's `uri/port.rs`).
#[test]
fn an_outline_names_a_trait_impls_trait() {
    let p = Project::new();
    p.write(
        "src/port.rs",
        "use std::fmt;\n\npub struct Port(u16);\n\nimpl Port {\n    pub fn get(&self) -> u16 {\n        self.0\n    }\n}\n\nimpl fmt::Display for Port {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n        write!(f, \"{}\", self.0)\n    }\n}\n",
    );
    p.run(&["index", "--no-embed", "-q"]).ok();
    let out = p.run(&["outline", "src/port.rs"]).ok().stdout();
    assert!(out.contains("impl Port\n"), "{out}");
    assert!(out.contains("impl Display for Port\n"), "{out}");
}

/// A name that is used but defined by no definition (kramdown's `to_html`,
/// which `method_missing` answers): the lines spelling it lead, not the
/// definitions merely spelled like it nor every chunk about HTML (QA: the
/// real occurrences came sixth and eighth).
#[test]
fn a_name_only_used_is_found_where_it_is_spelled() {
    let p = Project::new();
    p.write(
        "lib/converter/html.rb",
        "# Renders an element tree as HTML.\nclass Html\n  # Format the element as span HTML.\n  def format_as_span_html(name, attr, body)\n    \"<#{name}>#{body}</#{name}>\"\n  end\n\n  # Format the element as block HTML.\n  def format_as_block_html(name, attr, body)\n    \"<#{name}>#{body}</#{name}>\\n\"\n  end\n\n  def convert_html_element(el)\n    format_as_block_html(el.name, el.attr, el.body)\n  end\nend\n",
    );
    p.write(
        "lib/document.rb",
        "# A parsed document.\n#   doc = Document.new(text)\n#   puts doc.to_html\nclass Document\n  def initialize(text)\n    @text = text\n  end\n\n  # +to_html+ would instantiate the converter named after it.\n  def method_missing(id, *attr)\n    if id.to_s =~ /^to_(\\w+)$/\n      Converter.const_get($1.capitalize).convert(@root)\n    else\n      super\n    end\n  end\nend\n",
    );
    p.run(&["index", "--no-embed", "-q"]).ok();
    let v = p.json(&["search", "to_html"]);
    assert_eq!(v["query_kind"], "identifier", "{v}");
    assert_eq!(
        hit_paths(&v, "hits").first().map(String::as_str),
        Some("lib/document.rb"),
        "{v}"
    );
    // The symbol arm's names spelled like it went, and the keyword arm
    // weighs as the symbol arm would have.
    assert_eq!(
        arm_report(&v, "symbol")["candidates"].as_u64(),
        Some(0),
        "{v}"
    );
    let weight = |arm: &str| arm_report(&v, arm)["weight"].as_f64().unwrap_or(0.0);
    assert!(weight("keyword") >= weight("symbol"), "{v}");
    // Full text alone finds the spelled name first too (its parts as a
    // phrase, the stopword `to` kept).
    let v = p.json(&["search", "to_html", "--mode", "bm25"]);
    assert_eq!(
        hit_paths(&v, "hits").first().map(String::as_str),
        Some("lib/document.rb"),
        "{v}"
    );
    // A misspelled name still gets the names spelled like it.
    let v = p.json(&["search", "format_as_span_htm"]);
    assert!(
        arm_report(&v, "symbol")["candidates"].as_u64().unwrap_or(0) > 0,
        "{v}"
    );
}

#[test]
fn an_unplaced_qualifier_lifts_the_definitions_it_names_past_the_page_cut() {
    // `Pipeline.Stage.step`: no `step` inside a `Stage`, but `Stage` is a
    // class, so the answer is every `step`, and the one in the file the
    // outer qualifier names comes first even when the page holds two of
    // seven and it sorts last.
    let p = Project::new();
    for i in 1..=6 {
        p.write(&format!("aa/m{i}.py"), "def step():\n    return 1\n");
    }
    p.write("core.py", "class Stage:\n    pass\n")
        .write("zz/pipeline.py", "def step():\n    return 2\n");
    p.json(&["index"]);
    let v = p.json(&["symbol", "Pipeline.Stage.step", "-n", "2"]);
    assert_eq!(v["unplaced_qualifier"], "Stage", "{v}");
    assert_eq!(v["hits"][0]["path"], "zz/pipeline.py", "{v}");
    assert_eq!(v["hits"].as_array().map(Vec::len), Some(2), "{v}");
    assert_eq!(v["total"], 7, "{v}");
    assert_eq!(v["truncated"], true, "{v}");
    assert!(
        v["hits"][0]["signature"]
            .as_str()
            .is_some_and(|s| s.contains("def step")),
        "{v}"
    );
}

/// `search PATH:LINE -C N` widens the asked line, not the lines near the
/// chunk's start that the same search shows without a location.
#[test]
fn context_around_a_location_holds_the_asked_line() {
    let p = Project::new();
    let mut body = String::from("def long_function(x):\n");
    for i in 2..=40 {
        body.push_str(&format!("    step_{i} = x + {i}\n"));
    }
    body.push_str("    return x\n");
    p.write("app/long.py", &body);
    p.json(&["index"]);
    let v = p.json(&["search", "app/long.py:30", "-C", "1", "--limit", "1"]);
    let hit = &v["hits"][0];
    assert_eq!(hit["path"], "app/long.py", "{v}");
    let first = hit["snippet_line"].as_u64().unwrap_or(0);
    assert!(
        (28..=29).contains(&first),
        "starts 1 line above line 30: {v}"
    );
    assert!(
        hit["snippet"]
            .as_str()
            .is_some_and(|s| s.contains("step_30 =")),
        "{v}"
    );
}

/// A location is answered by its file alone: other files only matched
/// the words of its path.
#[test]
fn a_location_is_answered_by_its_file_alone() {
    let p = sample();
    p.json(&["index"]);
    let v = p.json(&["search", "app/views.py:8"]);
    let paths = hit_paths(&v, "hits");
    assert!(!paths.is_empty(), "{v}");
    assert!(paths.iter().all(|h| h == "app/views.py"), "{v}");
}

#[test]
fn incremental_edits_deletes_and_renames() {
    let p = sample();
    p.run(&["index"]).ok();
    let again = p.json(&["index"]);
    assert_eq!(again["changed"], 0, "no-op run must not re-index: {again}");
    assert_eq!(again["unchanged"], 5, "{again}");

    // Edit: a new function appears, the old one disappears.
    p.write(
        "app/views.py",
        PYTHON.replace("validate_csrf_token", "check_csrf"),
    );
    // Rename: the old path vanishes from every table.
    std::fs::rename(p.path("server/server.go"), p.path("server/http.go")).expect("rename");
    // Delete and add.
    p.remove("README.md");
    p.write(
        "lib/util.rb",
        "module Util\n  def self.shout(s)\n    s.upcase\n  end\nend\n",
    );
    let s = p.json(&["index"]);
    assert_eq!(s["removed"], 2, "{s}");
    assert_eq!(s["files"], 5, "{s}");

    assert_eq!(
        p.run(&["symbol", "validate_csrf_token", "--exact"]).code(),
        1
    );
    let v = p.json(&["symbol", "check_csrf", "--exact"]);
    assert_eq!(v["hits"][0]["path"], "app/views.py");
    let v = p.json(&["symbol", "NewServer"]);
    assert_eq!(hit_paths(&v, "hits"), ["server/http.go"], "{v}");
    let v = p.json(&["search", "csrf token", "--scope", "docs", "--mode", "bm25"]);
    assert!(
        hit_paths(&v, "hits").is_empty(),
        "deleted README still searchable: {v}"
    );
    let v = p.json(&["refs", "validate_csrf_token"]);
    assert_eq!(v["total"], 0, "{v}");
    let v = p.json(&["symbol", "shout"]);
    assert_eq!(v["hits"][0]["path"], "lib/util.rb", "{v}");
}

/// Commands that show lines of `sample()`'s `app/views.py` as indexed.
const SHOWING_INDEXED_LINES: [&[&str]; 4] = [
    &["symbol", "validate_csrf_token"],
    &["refs", "validate_csrf_token"],
    &["outline", "app/views.py"],
    &["context", "app/views.py:3"],
];

/// A CLI answer after an edit is as fresh as `rg`'s: each index-backed
/// command brings the index up to date with what changed on disk first
/// (an edit, a rename, a new file, a deletion), without `index`, and
/// says nothing about it.
#[test]
fn a_cli_answer_after_an_edit_is_fresh() {
    let p = sample();
    p.run(&["index"]).ok();
    let before = p.json(&["symbol", "validate_csrf_token"])["hits"][0]["line"].as_u64();
    p.write("app/views.py", format!("# moved down\n\n{PYTHON}"));
    let v = p.json(&["search", "validate_csrf_token", "--mode", "bm25"]);
    assert!(v.get("changed_since_indexed").is_none(), "{v}");
    let v = p.json(&["symbol", "validate_csrf_token"]);
    assert_eq!(v["hits"][0]["path"], "app/views.py", "{v}");
    assert_eq!(
        v["hits"][0]["line"].as_u64(),
        before.map(|l| l + 2),
        "the line as the file holds it now: {v}"
    );
    for args in SHOWING_INDEXED_LINES {
        let r = p.run(args);
        assert!(!r.stderr().contains("changed since"), "{args:?}: {r}");
    }
    // A rename: the old name is gone (exit 1), the new one is found.
    let renamed = PYTHON.replace("validate_csrf_token", "check_csrf_token");
    p.write("app/views.py", format!("# moved down\n\n{renamed}"));
    assert_eq!(p.run(&["symbol", "validate_csrf_token"]).code(), 1);
    let v = p.json(&["symbol", "check_csrf_token"]);
    assert_eq!(v["hits"][0]["path"], "app/views.py", "{v}");
    // A new file and a deleted one.
    p.write("app/fresh.py", "def brand_new_helper():\n    return 1\n");
    let v = p.json(&["symbol", "brand_new_helper"]);
    assert_eq!(v["hits"][0]["path"], "app/fresh.py", "{v}");
    std::fs::remove_file(p.path("app/views.py")).unwrap();
    let r = p.run(&["symbol", "check_csrf_token"]);
    assert_eq!(r.code(), 1, "{r}");
    assert!(!r.stderr().contains("changed since"), "{r}");
    let st = p.json(&["status"]);
    assert_eq!(st["stale_files"], 0, "{st}");
}

/// An index a CLI answer cannot bring up to date (another process holds
/// its writer lock, for longer than an answer waits) is read as it is: an
/// answer showing a file edited since it was indexed says so (stderr and
/// JSON), a definition renamed since is no answer, and a name only a new
/// file defines is reported with the files not indexed yet. So it is with
/// `index.update_before_answer = false`, a project that chose to update
/// its index itself.
#[test]
fn an_answer_from_an_index_left_as_it_is_says_which_files_changed() {
    let p = sample();
    p.run(&["index"]).ok();
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(p.path(".repo_search/index.lock"))
        .expect("the index's lock file");
    lock.lock().expect("hold the writer lock");
    p.write("app/views.py", format!("# moved down\n\n{PYTHON}"));
    let r = p
        .run(&["search", "validate_csrf_token", "--mode", "bm25"])
        .ok();
    assert!(
        r.stderr()
            .contains("1 file(s) shown changed since they were indexed (app/views.py)"),
        "{r}"
    );
    lock.unlock().expect("release the writer lock");
    p.run(&["config", "set", "index.update_before_answer", "false"])
        .ok();
    let v = p.json(&["search", "validate_csrf_token", "--mode", "bm25"]);
    assert_eq!(
        v["changed_since_indexed"],
        serde_json::json!(["app/views.py"]),
        "{v}"
    );
    // So do the other commands that show indexed lines.
    for args in SHOWING_INDEXED_LINES {
        let r = p.run(args);
        assert!(
            r.stderr()
                .contains("changed since they were indexed (app/views.py)"),
            "{args:?}: {r}"
        );
    }
    // A definition renamed since: its old place is no answer (exit 1),
    // and the note says it is gone from the file.
    let renamed = PYTHON.replace("validate_csrf_token", "check_csrf_token");
    p.write("app/views.py", format!("# moved down\n\n{renamed}"));
    for args in [
        &["symbol", "validate_csrf_token"][..],
        &["callers", "validate_csrf_token"],
    ] {
        let r = p.run(args);
        assert_eq!(r.code(), 1, "{args:?}: {r}");
        assert!(
            r.stderr().contains(
                "no longer in their files, changed since the last index run (app/views.py:"
            ),
            "{args:?}: {r}"
        );
        // One note about the file, not three.
        assert!(
            !r.stderr().contains("lines may have moved"),
            "{args:?}: {r}"
        );
        assert!(!r.stderr().contains("not searched yet"), "{args:?}: {r}");
    }
    // `--json` keeps the reason on stderr when nothing is found.
    let r = p.run(&["symbol", "no_such_name_anywhere", "--json"]);
    assert_eq!(r.code(), 1, "{r}");
    assert!(r.stderr().contains("no definition named"), "{r}");
    p.write("app/views.py", format!("# moved down\n\n{PYTHON}"));
    // A name only a file written since defines: nothing found, and the
    // answer says which files the index has not seen yet; a deleted file
    // an answer shows is called deleted.
    p.write("app/fresh.py", "def brand_new_helper():\n    return 1\n");
    for args in [
        &["symbol", "brand_new_helper"][..],
        &["refs", "brand_new_helper"],
        &["callers", "brand_new_helper"],
    ] {
        let r = p.run(args);
        assert_eq!(r.code(), 1, "{args:?}: {r}");
        assert!(
            r.stderr().contains("changed since the last index run")
                && r.stderr().contains("app/fresh.py"),
            "{args:?}: {r}"
        );
    }
    std::fs::remove_file(p.path("app/views.py")).unwrap();
    let r = p.run(&["symbol", "validate_csrf_token"]);
    assert!(
        r.stderr()
            .contains("1 file(s) shown were deleted since they were indexed (app/views.py)"),
        "{r}"
    );
    // Updating again: the next answer brings the index up to date.
    p.run(&["config", "unset", "index.update_before_answer"])
        .ok();
    let v = p.json(&["search", "brand_new_helper", "--mode", "bm25"]);
    assert!(v.get("changed_since_indexed").is_none(), "{v}");
    assert_eq!(hit_paths(&v, "hits")[0], "app/fresh.py", "{v}");
    let r = p.run(&["symbol", "brand_new_helper"]);
    assert!(!r.stderr().contains("changed since"), "{r}");
    let r = p.run(&["symbol", "no_such_name_anywhere"]);
    assert!(!r.stderr().contains("changed since"), "{r}");
}

/// A package's `dist/` bundle repeats its live source, every module in one
/// file: the source it was built from answers first, for a question and a
/// name alike, and the bundle still answers below it.
#[test]
fn build_output_ranks_after_the_source_it_was_built_from() {
    let p = Project::new();
    let when = "export function when(predicate: () => boolean, effect: () => void) {\n  // wait until the predicate holds, then run the effect once\n  const dispose = autorun(() => {\n    if (predicate()) {\n      dispose();\n      effect();\n    }\n  });\n  return dispose;\n}\n";
    let autorun = "export function autorun(view: () => void) {\n  // run the view now and whenever what it reads changes\n  return track(view);\n}\n";
    p.write("src/when.ts", when)
        .write("src/autorun.ts", autorun)
        .write(
            "dist/mobx.cjs.development.js",
            format!(
                "'use strict';\n{}\n{}\nexports.when = when;\nexports.autorun = autorun;\n",
                when.replace("export function", "function")
                    .replace(": () => boolean", "")
                    .replace(": () => void", ""),
                autorun
                    .replace("export function", "function")
                    .replace(": () => void", ""),
            ),
        );
    p.json(&["index", "--no-embed"]);
    let v = p.json(&[
        "search",
        "wait until the predicate holds then run the effect",
    ]);
    let found = hit_paths(&v, "hits");
    assert_eq!(
        found.first().map(String::as_str),
        Some("src/when.ts"),
        "{v}"
    );
    assert!(
        found.iter().any(|f| f == "dist/mobx.cjs.development.js"),
        "{v}"
    );
    let v = p.json(&["symbol", "when", "--exact"]);
    assert_eq!(
        hit_paths(&v, "hits"),
        ["src/when.ts", "dist/mobx.cjs.development.js"],
        "{v}"
    );
}

/// A Python stub beside its package declares what the modules implement:
/// the implementation answers first, for a name and a question, though
/// the stub's path sorts first and its one line matches more densely.
#[test]
fn type_stubs_rank_after_the_code_they_declare() {
    let p = Project::new();
    p.write(
        "src/attr/_make.py",
        "def evolve(*args, **changes):\n    \"\"\"Create a new instance, based on the first positional argument with\n    changes applied.\"\"\"\n    (inst,) = args\n    cls = inst.__class__\n    attrs = fields(cls)\n    for a in attrs:\n        if not a.init:\n            continue\n        name = a.alias\n        if name not in changes:\n            changes[name] = getattr(inst, a.name)\n    return cls(**changes)\n",
    )
    .write(
        "src/attr/__init__.pyi",
        "from typing import Any, TypeVar\n\n_T = TypeVar(\"_T\")\n\ndef evolve(inst: _T, **changes: Any) -> _T: ...\n",
    );
    p.json(&["index", "--no-embed"]);
    for args in [
        &["symbol", "evolve"][..],
        &["search", "evolve"][..],
        &["search", "new instance with changes applied"][..],
    ] {
        let v = p.json(args);
        assert_eq!(v["hits"][0]["path"], "src/attr/_make.py", "{args:?}: {v}");
    }
}

#[test]
fn a_c_function_ranks_before_its_prototype_in_a_header() {
    // mosquitto's `mosquitto_loop_forever`: the header documents the name at
    // length above a one-line prototype, callers spell it everywhere, and
    // the source file's body defines it.
    let doc = " * Call mosquitto_loop_forever to run the network loop; mosquitto_loop_forever\n * blocks until mosquitto_disconnect. See also mosquitto_loop_forever.\n".repeat(20);
    let p = Project::new();
    p.write(
        "include/mosq.h",
        format!("#ifndef MOSQ_H\n#define MOSQ_H\n/*\n{doc} */\nint mosquitto_loop_forever(struct mosquitto *mosq, int timeout);\n#endif\n"),
    )
    .write(
        "lib/loop.c",
        "#include \"mosq.h\"\n\nint mosquitto_loop_forever(struct mosquitto *mosq, int timeout)\n{\n\tint rc = 0;\n\twhile (run) {\n\t\trc = mosquitto_loop(mosq, timeout);\n\t}\n\treturn rc;\n}\n",
    );
    for i in 0..25 {
        p.write(
            &format!("lib/client{i}.c"),
            format!("#include \"mosq.h\"\n\n/* uses mosquitto_loop_forever */\nint run_client{i}(struct mosquitto *m)\n{{\n\treturn mosquitto_loop_forever(m, 100);\n}}\n"),
        );
    }
    p.json(&["index", "--no-embed"]);
    let v = p.json(&["search", "mosquitto_loop_forever"]);
    assert_eq!(v["hits"][0]["path"], "lib/loop.c", "{v}");
    assert_eq!(v["hits"][1]["path"], "include/mosq.h", "{v}");
}

/// A question about how something works is answered by the source that
/// does it before the header beside it that documents its names (jq's
/// `bytecode.c` and `bytecode.h`, lwt's `lwt_pool.ml` and `.mli`).
#[test]
fn a_source_ranks_before_the_header_beside_it_for_a_question() {
    let p = Project::new();
    p.write(
        "src/pool.h",
        "#ifndef POOL_H\n#define POOL_H\n/*\n * The connection pool hands out a free connection from its idle list\n * and returns a connection to the idle list when the caller releases it.\n * When no free connection is idle, the pool opens a new connection.\n */\nstruct pool;\n/* Take a free connection from the pool's idle list. */\nstruct conn *pool_take(struct pool *pool);\n/* Return a connection to the pool's idle list. */\nvoid pool_release(struct pool *pool, struct conn *c);\n#endif\n",
    )
    .write(
        "src/pool.c",
        "#include \"pool.h\"\n\nstruct conn *pool_take(struct pool *pool)\n{\n\tstruct conn *c = pool->idle;\n\tif (c == NULL)\n\t\treturn conn_open(pool->addr);\n\tpool->idle = c->next;\n\treturn c;\n}\n\nvoid pool_release(struct pool *pool, struct conn *c)\n{\n\tc->next = pool->idle;\n\tpool->idle = c;\n}\n",
    )
    .write(
        "src/server.c",
        "#include \"pool.h\"\n\nint serve(struct pool *pool)\n{\n\tstruct conn *c = pool_take(pool);\n\tint rc = handle(c);\n\tpool_release(pool, c);\n\treturn rc;\n}\n",
    );
    p.json(&["index", "--no-embed"]);
    let v = p.json(&["search", "how does the pool hand out a free connection"]);
    let found = hit_paths(&v, "hits");
    let at = |f: &str| found.iter().position(|p| p == f);
    assert!(
        at("src/pool.c").is_some() && at("src/pool.h").is_some(),
        "{v}"
    );
    assert!(at("src/pool.c") < at("src/pool.h"), "{v}");
}

/// A name query ranks the type's definition before the files that only
/// extend it: capacitor's `@interface CAPPluginCall` in its header before
/// the Swift file of three `extension CAPPluginCall` blocks, and an
/// Objective-C category is an extension (`impl`), not a second class.
#[test]
fn a_type_ranks_before_the_files_extending_it() {
    let p = Project::new();
    p.write(
        "Sources/PluginCall.h",
        "#import <Foundation/Foundation.h>\n\n@interface PluginCall : NSObject\n@property (nonatomic, strong) NSString *callbackId;\n- (instancetype)initWithCallbackId:(NSString *)callbackId;\n@end\n",
    )
    .write(
        "Sources/PluginCall+Extras.h",
        "#import \"PluginCall.h\"\n\n@interface PluginCall (Extras)\n- (void)resolveWith:(NSDictionary *)data;\n@end\n",
    )
    .write(
        "Sources/PluginCall.swift",
        "import Foundation\n\nextension PluginCall {\n    func getString(_ key: String) -> String? { nil }\n}\n\nextension PluginCall {\n    func getInt(_ key: String) -> Int? { nil }\n}\n\nextension PluginCall {\n    func getBool(_ key: String) -> Bool? { nil }\n    func reject(_ message: String) { print(message) }\n}\n",
    );
    p.json(&["index", "--no-embed"]);
    let v = p.json(&["symbol", "PluginCall", "--exact"]);
    let kinds: Vec<(String, String)> = v["hits"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|h| {
            (
                h["path"].as_str().unwrap_or("").to_string(),
                h["kind"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    assert!(
        kinds.contains(&("Sources/PluginCall+Extras.h".into(), "impl".into())),
        "{v}"
    );
    let v = p.json(&["search", "PluginCall"]);
    assert_eq!(v["hits"][0]["path"], "Sources/PluginCall.h", "{v}");
}

#[test]
fn ignore_rules_match_ripgrep_defaults() {
    let p = Project::new();
    p.write("a.py", "def kept(): pass\n")
        .write("build/gen.py", "def generated(): pass\n")
        .write(".gitignore", "build/\n")
        .write("vendor/x.py", "def vendored(): pass\n")
        .write(".ignore", "vendor/\n")
        .write(".hidden/h.py", "def hidden_fn(): pass\n");
    // Outside a git repository, .gitignore does not apply (like rg).
    p.run(&["index"]).ok();
    assert_eq!(p.run(&["symbol", "generated", "--exact"]).code(), 0);
    assert_eq!(
        p.run(&["symbol", "vendored", "--exact"]).code(),
        1,
        ".ignore applies everywhere"
    );
    assert_eq!(
        p.run(&["symbol", "hidden_fn", "--exact"]).code(),
        1,
        "hidden files are skipped"
    );
    // Inside a git repository it does; the removed file leaves the index.
    p.git_init();
    p.run(&["index"]).ok();
    assert_eq!(p.run(&["symbol", "generated", "--exact"]).code(), 1);
    assert_eq!(p.run(&["symbol", "kept", "--exact"]).code(), 0);
    // --hidden indexes hidden files but never the index directory itself.
    let s = p.json(&["index", "--hidden"]);
    assert_eq!(p.run(&["symbol", "hidden_fn", "--exact"]).code(), 0, "{s}");
    let st = p.json(&["status"]);
    let files = st["files"].as_u64().unwrap_or(0);
    assert!(files <= 4, "index dir or .git indexed? {st}");
}

#[test]
fn skipped_files_have_reasons_and_the_run_goes_on() {
    let p = Project::new();
    p.write("ok.rs", "fn fine() {}\n")
        .write("blob.c", b"int x;\0\0\0binary".as_slice())
        .write(
            "big.py",
            format!("def big():\n    return 1\n{}", "# padding\n".repeat(2000)),
        )
        .write("latin.py", {
            let mut v = b"def latin():\n    pass\n".to_vec();
            v.extend(std::iter::repeat_n(0xE9u8, 400));
            v
        });
    let s = p.json(&["index", "--max-file-size", "10000"]);
    assert_eq!(s["files"], 1, "{s}");
    assert_eq!(s["skipped"], 3, "{s}");
    let st = p.json(&["status"]);
    let reasons: Vec<String> = st["skipped_by_reason"]
        .as_array()
        .expect("reasons")
        .iter()
        .filter_map(|r| r["reason"].as_str().map(String::from))
        .collect();
    for want in ["binary", "too large", "invalid UTF-8"] {
        assert!(reasons.iter().any(|r| r == want), "missing {want}: {st}");
    }
    assert_eq!(p.run(&["symbol", "fine"]).code(), 0);
    // Raising the limit picks the large file up.
    let s = p.json(&["index", "--max-file-size", "1000000"]);
    assert_eq!(s["files"], 2, "{s}");
}

#[test]
fn bad_input_gets_error_and_hint_and_changes_nothing() {
    let p = sample();
    p.run(&["index"]).ok();
    let before = std::fs::read(p.path(".repo_search/index.db")).expect("db");

    let r = p.run(&["keyword", "foo("]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("error: invalid regex"), "{r}");
    assert!(
        r.stderr().contains("hint:") && r.stderr().contains("-F"),
        "{r}"
    );

    let r = p.run(&["symbol", "x", "--root", "/definitely/not/here"]);
    assert_eq!(r.code(), 2);
    assert!(
        r.stderr().contains("does not exist") && r.stderr().contains("hint:"),
        "{r}"
    );

    for outside in ["../../etc/passwd", "/etc/passwd"] {
        let r = p.run(&["read", outside]);
        assert_eq!(r.code(), 2, "{r}");
        assert!(r.stderr().contains("outside the project root"), "{r}");
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc", p.path("etc-link")).expect("symlink");
        let r = p.run(&["read", "etc-link/passwd"]);
        assert_eq!(r.code(), 2, "{r}");
        assert!(r.stderr().contains("outside the project root"), "{r}");
        let r = p.run(&["outline", "etc-link/passwd"]);
        assert_eq!(r.code(), 2, "{r}");
    }
    let r = p.run(&["symbol", "x", "--kind", "bogus"]);
    assert_eq!(r.code(), 2);
    assert!(r.stderr().contains("hint:"), "{r}");
    let r = p.run(&["read", "src/main.rs", "--lines", "x:y"]);
    assert_eq!(r.code(), 2);
    // What the argument parser refuses has a code and a hint like the rest.
    for args in [
        &["search", "x", "--limit", "0"][..],
        &["search", "x", "--mode", "fuzzy"],
        &["search", "x", "--threshold", "2"],
        &["similar", "--code", "x", "--threshold", "-1.5"],
        &["serch", "x"],
        &["refs"],
    ] {
        let r = p.run(args);
        assert_eq!(r.code(), 2, "{r}");
        assert!(
            r.stderr().contains("\ncode: INVALID_ARGUMENT\nhint: "),
            "{args:?}: {r}"
        );
    }
    // No command: the help, as the parser prints it, and exit status 2.
    let r = p.run(&[]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("Usage: repo-search"), "{r}");

    let after = std::fs::read(p.path(".repo_search/index.db")).expect("db");
    assert_eq!(before, after, "bad input changed the index");
}

#[test]
fn an_index_of_an_older_schema_is_rebuilt_by_the_next_search() {
    let p = sample();
    p.run(&["index"]).ok();
    {
        let conn = rusqlite::Connection::open(p.path(".repo_search/index.db")).expect("open");
        conn.pragma_update(None, "user_version", repo_search::store::SCHEMA_VERSION - 1)
            .expect("set an older version");
    }
    // Status says so (exit 1 as with no index); the next answer rebuilds it.
    let r = p.run(&["status"]);
    assert!(r.stdout().contains("older repo-search"), "{r}");
    let r = p.run(&["symbol", "Config"]).ok();
    assert!(r.stderr().contains("older repo-search: updating"), "{r}");
    assert!(r.stdout().contains("Config"), "{r}");
    let v = p.json(&["status"]);
    assert_eq!(v["exists"], true, "{v}");
}

#[test]
fn newer_schema_is_reported_and_a_corrupt_index_rebuilt() {
    let p = sample();
    p.run(&["index"]).ok();
    {
        let conn = rusqlite::Connection::open(p.path(".repo_search/index.db")).expect("open");
        conn.pragma_update(None, "user_version", 9_999)
            .expect("bump");
    }
    let r = p.run(&["symbol", "Config"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(
        r.stderr().contains("newer repo-search") && r.stderr().contains("hint:"),
        "{r}"
    );
    p.run(&["index", "--full"]).ok();
    assert_eq!(p.run(&["symbol", "Config"]).code(), 0);

    // Overwrite the database with garbage.
    for f in ["index.db-wal", "index.db-shm"] {
        let _ = std::fs::remove_file(p.path(&format!(".repo_search/{f}")));
    }
    // A damaged index is set aside (kept for inspection) and rebuilt by the
    // command that met it, which still answers (tests/it/faults.rs has more).
    p.write(".repo_search/index.db", vec![0x42u8; 8192]);
    let r = p.run(&["symbol", "Config"]).ok();
    assert!(r.stderr().contains("damaged"), "{r}");
    assert!(
        std::fs::read_dir(p.path(".repo_search"))
            .expect("index dir")
            .filter_map(|e| e.ok())
            .any(|e| e
                .file_name()
                .to_string_lossy()
                .starts_with("index.db.corrupt-")),
        "the damaged index is kept aside"
    );
    assert_eq!(p.run(&["symbol", "Config"]).code(), 0);
}

#[test]
fn second_writer_waits_or_fails_clearly() {
    let p = sample();
    p.run(&["index"]).ok();
    let lock = repo_search::lock::WriterLock::acquire(
        &p.root(),
        repo_search::lock::WhenBusy::Fail,
        |_| {},
    )
    .expect("take the writer lock");
    let r = p.run(&["index", "--no-wait"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("is writing the index"), "{r}");
    // A waiting writer proceeds once the lock is released: release it once
    // the writer says it waits.
    let mut child = p
        .cmd(&["index", "--json"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let reader = {
        let mut pipe = child.stderr.take().expect("piped stderr");
        let stderr = std::sync::Arc::clone(&stderr);
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = std::io::Read::read(&mut pipe, &mut buf) {
                stderr
                    .lock()
                    .expect("stderr buffer")
                    .push_str(&String::from_utf8_lossy(&buf[..n]));
            }
        })
    };
    let stderr_now = || stderr.lock().expect("stderr buffer").clone();
    poll_until(Duration::from_secs(10), || {
        stderr_now().contains("waiting for another").then_some(())
    })
    .unwrap_or_else(|| panic!("the second writer never said it waits: {}", stderr_now()));
    drop(lock);
    let status = child.wait().expect("wait");
    reader.join().expect("stderr reader");
    assert!(status.success(), "{}", stderr_now());
    // Readers are never blocked by a writer.
    let _lock = repo_search::lock::WriterLock::acquire(
        &p.root(),
        repo_search::lock::WhenBusy::Fail,
        |_| {},
    )
    .expect("lock");
    assert_eq!(p.run(&["symbol", "Config"]).code(), 0);
}

#[test]
fn killed_writer_leaves_a_usable_index() {
    let p = Project::new();
    // Enough files that the run is still going when it is killed.
    for i in 0..3000 {
        p.write(
            &format!("pkg{}/mod{i}.py", i % 30),
            format!("def function_{i}(x):\n    return x + {i}\n\nclass Class{i}:\n    def method(self):\n        return function_{i}(1)\n"),
        );
    }
    let mut child = p.cmd(&["index", "--quiet"]).spawn().expect("spawn");
    // Kill once the first batch has been committed (or the run has ended).
    let db = p.path(".repo_search/index.db");
    poll_until(Duration::from_secs(30), || {
        let conn =
            rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
                .ok()?;
        let n: i64 = conn
            .query_row("SELECT count(*) FROM files", [], |r| r.get(0))
            .ok()?;
        (n > 0).then_some(())
    })
    .expect("index started writing");
    let _ = child.kill();
    let _ = child.wait();
    // Whatever was committed is readable, and the next run completes it.
    let r = p.run(&["status", "--json"]);
    assert!(r.code() == 0, "{r}");
    let s = p.json(&["index"]);
    assert_eq!(s["files"], 3000, "{s}");
    assert_eq!(
        p.json(&["symbol", "function_2999", "--exact"])["hits"][0]["path"],
        "pkg29/mod2999.py"
    );
    let again = p.json(&["index"]);
    assert_eq!(again["changed"], 0, "{again}");
}

#[test]
fn keyword_output_matches_ripgrep_on_this_repository() {
    assert!(
        have("rg"),
        "rg is not installed: this test compares with it (scripts/test.sh installs it)"
    );
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases: &[&[&str]] = &[
        &["fn [a-z_]+\\("],
        &["-i", "todo|fixme"],
        &["-w", "Result"],
        &["-F", "Vec<"],
        &["-S", "Store"],
        &["-g", "*.rs", "-g", "!tests/**", "unwrap_or"],
        &["-e", "struct", "-e", "enum"],
    ];
    for case in cases {
        let mut ours_args: Vec<&str> = vec![
            "keyword",
            "--json",
            "--root",
            repo.to_str().expect("utf-8 path"),
        ];
        ours_args.extend_from_slice(case);
        let out = std::process::Command::new(BIN)
            .args(&ours_args)
            .output()
            .expect("run");
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        let mut ours: Vec<String> = v["matches"]
            .as_array()
            .expect("matches")
            .iter()
            .map(|m| format!("{}:{}", m["path"].as_str().unwrap_or(""), m["line"]))
            .collect();
        ours.sort();
        let rg = std::process::Command::new("rg")
            .args(["-n", "--no-heading", "--with-filename"])
            .args(*case)
            .current_dir(repo)
            .output()
            .expect("rg");
        let mut theirs: Vec<String> = String::from_utf8_lossy(&rg.stdout)
            .lines()
            .filter_map(|l| {
                let mut it = l.splitn(3, ':');
                Some(format!("{}:{}", it.next()?, it.next()?))
            })
            .collect();
        theirs.sort();
        assert_eq!(ours, theirs, "keyword {case:?} differs from rg");
    }
}

/// rg's flags an agent types: `-v` (after `keyword`, the invert match, not
/// the global verbose flag), `-l`, `-c`, `-t`/`-T`, `-n`, `--column`: the
/// same text as `rg`, line for line.
#[test]
fn keyword_takes_rgs_everyday_flags_with_rgs_output() {
    assert!(
        have("rg"),
        "rg is not installed: this test compares with it (scripts/test.sh installs it)"
    );
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let cases: &[&[&str]] = &[
        &["-v", "[a-z]", "-g", "*.toml"],
        &["-iv", "e", "-g", "src/store/*.rs"],
        &["-l", "unwrap_or"],
        &["-c", "fn main"],
        &["-c", "-v", "^$", "-t", "rust", "src/cli"],
        &["-n", "--column", "-t", "py", "def "],
        &["-l", "-T", "rust", "TODO"],
        &["-t", "rust", "-t", "toml", "-w", "tokio"],
    ];
    let lines = |out: &[u8]| -> Vec<String> {
        let mut v: Vec<String> = String::from_utf8_lossy(out)
            .lines()
            .map(str::to_string)
            .collect();
        v.sort();
        v
    };
    for case in cases {
        let mut ours_args: Vec<&str> = vec!["keyword"];
        ours_args.extend_from_slice(case);
        ours_args.extend_from_slice(&["--root", repo.to_str().expect("utf-8 path")]);
        let ours = std::process::Command::new(BIN)
            .args(&ours_args)
            .current_dir(repo)
            .output()
            .expect("run");
        assert!(
            ours.status.code() == Some(0),
            "keyword {case:?}: {}",
            String::from_utf8_lossy(&ours.stderr)
        );
        let rg = std::process::Command::new("rg")
            .args(["-n", "--column", "--no-heading", "--with-filename"])
            .args(*case)
            .current_dir(repo)
            .output()
            .expect("rg");
        let (ours, theirs) = (lines(&ours.stdout), lines(&rg.stdout));
        assert!(!theirs.is_empty(), "rg found nothing for {case:?}");
        assert_eq!(ours, theirs, "keyword {case:?} differs from rg");
    }
    // An unknown type is refused with the nearest names.
    let out = std::process::Command::new(BIN)
        .args([
            "keyword",
            "-t",
            "pyhton",
            "x",
            "--root",
            repo.to_str().expect("utf-8 path"),
        ])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown file type `pyhton`") && err.contains("py"),
        "{err}"
    );
}

/// A named file that matches but holds binary data is found, as `rg`
/// says it (`binary file matches`, exit 0); paths typed in a subdirectory
/// are read from there, as `rg` reads them.
#[test]
fn keyword_names_binary_matches_and_reads_paths_from_the_working_directory() {
    let p = Project::new();
    // The project root is found from a subdirectory by its `.git`.
    p.git_init();
    p.write("data/blob.dat", b"head needle\0tail\n")
        .write("src/pkg/models/query.py", "class QuerySet:\n    pass\n")
        .write("src/pkg/views.py", "from .models.query import QuerySet\n");
    let r = p.run(&["keyword", "needle", "data/blob.dat"]).ok();
    assert_eq!(r.stdout(), "data/blob.dat: binary file matches\n", "{r}");
    let v = p.json(&["keyword", "needle", "data/blob.dat"]);
    assert_eq!(v["binary_matched"][0], "data/blob.dat", "{v}");
    assert_eq!(
        p.run(&["keyword", "needle_absent", "data/blob.dat"]).code(),
        1
    );
    // A glob that leaves nothing to search is an error, as rg says.
    let r = p.run(&["keyword", "needle", "-g", "*.nope"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("no files were searched"), "{r}");

    let env: &[(&str, &std::ffi::OsStr)] = &[];
    for path in ["models", "../pkg/models", "models/query.py"] {
        let r = p.run_at("src/pkg", &["keyword", "class QuerySet", path], env);
        assert_eq!(r.code(), 0, "{path}: {r}");
        assert!(
            r.stdout().starts_with("src/pkg/models/query.py:1:"),
            "{path}: {r}"
        );
    }
    // A path that is not there from the working directory is taken from
    // the root, as the MCP tools take it.
    let r = p.run_at("src/pkg", &["keyword", "QuerySet", "src/pkg/views.py"], env);
    assert_eq!(r.code(), 0, "{r}");
}

#[test]
fn quoted_phrases_show_their_matching_lines() {
    let p = Project::new();
    let mut body = String::from(
        "def build_headers(response, options):\n    \"\"\"Fill in the headers.\"\"\"\n",
    );
    for i in 0..30 {
        body.push_str(&format!(
            "    options.set('header_{i}', response.header_value({i}))\n"
        ));
    }
    body.push_str("    response[\"X-Frame-Options\"] = options.frame\n    return response\n");
    p.write("app/headers.py", &body);
    p.run(&["index", "--no-embed", "--quiet"]).ok();
    let v = p.json(&["search", "\"X-Frame-Options\""]);
    let hits = v["hits"].as_array().expect("hits");
    assert!(!hits.is_empty(), "{v}");
    for h in hits {
        assert!(
            h["snippet"]
                .as_str()
                .is_some_and(|s| s.contains("\"X-Frame-Options\"")),
            "the snippet shows the matching line: {v}"
        );
    }
}

/// `status --sizes` reads what each table costs from the real database, in
/// JSON and in text; a plain `status` does not compute it.
#[test]
fn status_sizes_break_the_index_down_by_table() {
    let p = sample();
    p.json(&["index", "--no-embed"]);
    let plain = p.json(&["status"]);
    assert!(plain.get("sizes").is_none(), "{plain}");
    let s = p.json(&["status", "--sizes"]);
    let z = &s["sizes"];
    let tables = z["tables"].as_array().expect("tables");
    let names: Vec<&str> = tables.iter().filter_map(|t| t["name"].as_str()).collect();
    for want in ["chunks", "chunks_fts", "symbols", "refs", "files"] {
        assert!(names.contains(&want), "{want} missing: {names:?}");
    }
    // FTS5 shadow tables and indexes are folded into their tables.
    assert!(
        !names
            .iter()
            .any(|n| n.starts_with("chunks_fts_") || *n == "symbols_name"),
        "{names:?}"
    );
    let sum: u64 = tables
        .iter()
        .map(|t| t["bytes"].as_u64().unwrap_or(0) + t["index_bytes"].as_u64().unwrap_or(0))
        .sum();
    let db = z["db_bytes"].as_u64().expect("db_bytes");
    assert!(sum > 0 && sum <= db, "{sum} of {db}");
    let symbols = tables
        .iter()
        .find(|t| t["name"] == "symbols")
        .expect("symbols");
    assert!(
        symbols["index_bytes"].as_u64().unwrap_or(0) > 0,
        "{symbols}"
    );
    let source: u64 = ["src/main.rs", "app/views.py"]
        .iter()
        .map(|f| std::fs::metadata(p.path(f)).map(|m| m.len()).unwrap_or(0))
        .sum();
    assert!(z["source_bytes"].as_u64().unwrap_or(0) >= source, "{z}");
    let text = p.run(&["status", "--sizes"]).ok().stdout();
    assert!(
        text.contains("sizes:    database") && text.contains("chunks_fts"),
        "{text}"
    );
}

/// A file's further places (`also`) name somewhere new: a stray one-line
/// chunk with no name (a comment, `#endif`) is not listed under the hit.
#[test]
fn also_lists_no_unnamed_single_lines() {
    let p = Project::new();
    p.write(
        "views.py",
        "def validate_csrf_token(request):\n    \"\"\"Check the csrf token.\"\"\"\n    return request\n\n\n# csrf token\n",
    );
    p.json(&["index", "--no-embed"]);
    let v = p.json(&["search", "csrf token"]);
    let top = &v["hits"][0];
    assert_eq!(top["symbol"], "validate_csrf_token", "{v}");
    assert!(top.get("also").is_none(), "{v}");
}

/// A common Go name's definitions: the interface's method, the exported
/// type's and the package function before the unexported types'
/// implementations, which sort first by path (pflag's `symbol Set` had
/// shown `boolValue.Set` … and the three wanted 8th to 10th); and fields
/// that match the name only case-blind are left out, counted, once it is
/// defined as written (`symbol Value` had listed fifteen `value` fields).
#[test]
fn a_common_name_lists_the_exported_definitions_first() {
    let p = Project::new();
    p.write(
        "bool.go",
        "package pflag\n\ntype boolValue bool\n\nfunc (b *boolValue) Set(s string) error {\n\treturn nil\n}\n\ntype boolSliceValue struct {\n\tvalue *[]bool\n}\n",
    )
    .write(
        "flag.go",
        "package pflag\n\ntype Value interface {\n\tSet(string) error\n}\n\ntype Flag struct {\n\tValue Value\n}\n\ntype FlagSet struct{}\n\nfunc (f *FlagSet) Set(name, value string) error {\n\treturn nil\n}\n\nfunc Set(name, value string) error {\n\treturn nil\n}\n",
    );
    p.json(&["index", "--no-embed"]);
    let v = p.json(&["symbol", "Set"]);
    let got: Vec<String> = v["hits"]
        .as_array()
        .map(|hs| {
            hs.iter()
                .map(|h| format!("{}.{}", h["container"].as_str().unwrap_or(""), h["name"]))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        got,
        [
            "Value.\"Set\"",
            "FlagSet.\"Set\"",
            ".\"Set\"",
            "boolValue.\"Set\""
        ],
        "{v}"
    );
    // A test's definition comes after the live code's, whatever its kind.
    p.write("flag_test.go", "package pflag\n\nconst Value = 1\n");
    let v = p.json(&["symbol", "Value"]);
    let got: Vec<(&str, &str)> = v["hits"]
        .as_array()
        .map(|hs| {
            hs.iter()
                .map(|h| {
                    (
                        h["kind"].as_str().unwrap_or(""),
                        h["path"].as_str().unwrap_or(""),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(
        got,
        [
            ("interface", "flag.go"),
            ("field", "flag.go"),
            ("constant", "flag_test.go")
        ],
        "{v}"
    );
    let r = p.run(&["symbol", "Value"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(!r.stdout().contains("boolSliceValue.value"), "{r}");
    assert!(
        r.stderr()
            .contains("1 more name starts with `Value`: --prefix lists them"),
        "{r}"
    );
    let v = p.json(&["symbol", "Value", "--prefix"]);
    assert_eq!(v["total"], 4, "{v}");
}

/// Definitions of the name itself leave out the names that only start
/// with it (`echo.New` had listed seven of `NewRouter`, `newNode`, …),
/// counted in a note; `--prefix` lists them. A container spelled as asked
/// comes before one that matches only case-blind (Go's `context.JSON`
/// before the interface `Context`'s).
#[test]
fn exact_definitions_leave_out_the_prefix_tail() {
    let p = Project::new();
    p.write(
        "echo.go",
        "package echo

type Context interface {
	JSON(code int) error
}

type context struct{}

func (c *context) JSON(code int) error {
	return nil
}

func New() *context {
	return nil
}

func NewRouter() {}

func newNode() {}
",
    );
    p.json(&["index", "--no-embed"]);
    let r = p.run(&["symbol", "New"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(!r.stdout().contains("NewRouter"), "{r}");
    assert!(
        r.stderr()
            .contains("2 more names start with `New`: --prefix lists them"),
        "{r}"
    );
    let v = p.json(&["symbol", "New"]);
    assert_eq!(v["total"], 1, "{v}");
    assert_eq!(v["prefix_left_out"], 2, "{v}");
    let v = p.json(&["symbol", "New", "--prefix"]);
    assert_eq!(v["total"], 3, "{v}");
    // A page smaller than the answer counts what the default match shows
    // (round 12: "2 of 266 shown", then an empty page at `--offset 2`).
    let v = p.json(&["symbol", "New", "--limit", "1"]);
    assert_eq!(
        (v["total"].as_u64(), v["truncated"].as_bool()),
        (Some(1), Some(false)),
        "{v}"
    );
    assert_eq!(v["prefix_left_out"], 2, "{v}");
    let v = p.json(&["symbol", "JSON", "--limit", "1"]);
    assert_eq!(
        (v["total"].as_u64(), v["truncated"].as_bool()),
        (Some(2), Some(true)),
        "{v}"
    );
    let r = p.run(&["symbol", "JSON", "--offset", "1", "--limit", "1"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(!r.stderr().contains("shown"), "{r}");
    // A qualified name asked for one definition: no count, no note.
    let r = p.run(&["symbol", "echo.New"]);
    assert_eq!(r.code(), 0, "{r}");
    assert!(!r.stdout().contains("NewRouter"), "{r}");
    assert!(!r.stderr().contains("more names start"), "{r}");
    let v = p.json(&["symbol", "context.JSON"]);
    assert_eq!(v["hits"][0]["container"], "context", "{v}");
    assert_eq!(v["hits"][1]["container"], "Context", "{v}");
    let v = p.json(&["symbol", "Context.JSON"]);
    assert_eq!(v["hits"][0]["container"], "Context", "{v}");
    // A name matched only case-blind keeps the names starting with it as
    // written, after it (Go: the field `notFoundHandler` is not the
    // method `NotFoundHandler`, renamed `NotFoundHandlerQA`), and the note
    // spells the name as asked.
    let r = p.run(&["symbol", "new"]);
    assert_eq!(r.code(), 0, "{r}");
    let v = p.json(&["symbol", "new"]);
    assert_eq!(names(&v, "hits"), ["New", "newNode"], "{v}");
    assert_eq!(v["prefix_left_out"], 1, "{v}");
    assert!(
        r.stderr()
            .contains("1 more name starts with `new`: --prefix lists them"),
        "{r}"
    );
    let v = p.json(&["symbol", "echo.new"]);
    assert_eq!(names(&v, "hits"), ["New", "newNode"], "{v}");
}

/// A Rust type's own definition leaves its trait impls out of `symbol`,
/// naming the traits (`symbol Bytes` had been a page of `impl Bytes`
/// rows); its inherent impl stays, and `--kind impl` lists them all.
#[test]
fn a_types_trait_impls_are_folded_into_a_note() {
    let p = Project::new();
    p.write(
        "src/bytes.rs",
        "pub struct Bytes {\n    len: usize,\n}\n\nimpl Bytes {\n    pub fn len(&self) -> usize {\n        self.len\n    }\n}\n\nimpl Buf for Bytes {\n    fn remaining(&self) -> usize {\n        self.len\n    }\n}\n\nunsafe impl Send for Bytes {}\n",
    );
    p.json(&["index", "--no-embed"]);
    let v = p.json(&["symbol", "Bytes"]);
    let kinds: Vec<&str> = v["hits"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["kind"].as_str())
        .collect();
    assert_eq!(kinds, ["struct", "impl"], "{v}");
    assert_eq!(
        v["trait_impls_left_out"],
        serde_json::json!(["Buf", "Send"]),
        "{v}"
    );
    let r = p.run(&["symbol", "Bytes"]);
    assert!(
        r.stderr()
            .contains("2 trait impls of `Bytes` left out (Buf, Send): --kind impl lists them"),
        "{r}"
    );
    let v = p.json(&["symbol", "Bytes", "--kind", "impl"]);
    assert_eq!(v["total"], 3, "{v}");
    // A trait impl's associated types named like the type go with it
    // (serde_json's `symbol Value`: 17 `type Value = …;` rows).
    p.write(
        "src/visit.rs",
        "pub struct BytesVisitor;\n\nimpl Visitor for BytesVisitor {\n    type Bytes = crate::bytes::Bytes;\n}\n",
    );
    let v = p.json(&["symbol", "Bytes"]);
    assert_eq!(v["assoc_types_left_out"], 1, "{v}");
    assert!(p.run(&["symbol", "Bytes"]).stderr().contains(
        "1 associated type of trait impls (`type X = …;`) left out: --kind type lists them"
    ));
    let v = p.json(&["symbol", "Bytes", "--kind", "type"]);
    assert_eq!(v["hits"][0]["path"], "src/visit.rs", "{v}");
}

/// In the default mode fuzzy matches only stand in for a name that exists
/// in no case ("did you mean"); next to the definitions asked for they are
/// left out.
#[test]
fn fuzzy_matches_fill_only_for_an_unknown_name() {
    let p = sample();
    p.json(&["index", "--no-embed"]);
    // `Config` exists; `parse_config` is a fuzzy match of it (the
    // default mode used to add it after the struct).
    let v = p.json(&["symbol", "Config"]);
    let kinds: Vec<&str> = v["hits"]
        .as_array()
        .expect("hits")
        .iter()
        .filter_map(|h| h["match"].as_str())
        .collect();
    assert!(!kinds.is_empty() && !kinds.contains(&"fuzzy"), "{v}");
    let v = p.json(&["symbol", "parse_cnfig"]);
    assert_eq!(v["hits"][0]["name"], "parse_config", "{v}");
    assert_eq!(v["hits"][0]["match"], "fuzzy", "{v}");
    // Said so in the text too, and nothing was found (exit 1), unless the
    // fuzzy matches were asked for.
    let r = p.run(&["symbol", "parse_cnfig"]);
    assert_eq!(r.code(), 1, "{r}");
    assert!(
        r.stdout().contains("parse_config") && r.stdout().contains("(fuzzy)"),
        "{r}"
    );
    assert!(r.stderr().contains("names spelled like it"), "{r}");
    let r = p.run(&["symbol", "parse_cnfig", "--fuzzy"]);
    assert_eq!(r.code(), 0, "{r}");
    // So are names that only start with it (`parse` after a rename to
    // `parse_config`), unless prefixes were asked for.
    let r = p.run(&["symbol", "parse_conf"]);
    assert_eq!(r.code(), 1, "{r}");
    assert!(
        r.stdout().contains("parse_config") && r.stdout().contains("(prefix)"),
        "{r}"
    );
    assert!(r.stderr().contains("names starting with it"), "{r}");
    let r = p.run(&["symbol", "parse_conf", "--prefix"]);
    assert_eq!(r.code(), 0, "{r}");
    // A name a typo away is what was meant: names that only hold the
    // letters in order (`parse_config` for `Confg`) are left out beside it
    // (predis's `Clinet` listed six copies of a namespace).
    let v = p.json(&["symbol", "Confg"]);
    let names: Vec<&str> = v["hits"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|h| h["name"].as_str())
        .collect();
    assert!(
        !names.is_empty() && names.iter().all(|n| *n == "Config"),
        "{v}"
    );
}

/// A name query's hit on the definition it names shows the definition's
/// own first lines (its signature), not the window of the doc comment
/// above it or of its body further down where the name recurs most.
#[test]
fn a_named_definition_shows_its_signature() {
    let p = Project::new();
    let mut src = String::from(
        "-- Shows a notification.\n-- @usage notify({ text = \"notify me\" })\n-- @see notify_later, notify_all\n",
    );
    src.push_str("function notify(args)\n    local n = {}\n");
    for i in 0..120 {
        src.push_str(&format!("    n[{i}] = args.text .. {i}\n"));
    }
    src.push_str("    notify_later(n) notify_all(n) -- notify notify notify\n    return n\nend\n");
    p.write("lib/notify.lua", &src);
    assert_eq!(p.run(&["index", "--quiet", "--no-embed"]).code(), 0);
    let v = p.json(&["search", "notify"]);
    let hit = &v["hits"][0];
    assert_eq!(hit["symbol"], "notify", "{v}");
    assert_eq!(hit["start_line"], 4, "{v}");
    assert_eq!(hit["snippet_line"], 4, "{v}");
    let snippet = hit["snippet"].as_str().unwrap_or_default();
    assert!(snippet.starts_with("function notify(args)"), "{v}");
}

/// The index keeps no chunk text (schema 10): BM25 snippets are read from
/// the files. A file edited since it was indexed shows its lines as they
/// are now, never the old text; a deleted one's hits drop out; the next
/// index run brings the index back in step.
#[test]
fn bm25_snippets_come_from_the_files_as_they_are() {
    let p = Project::new();
    let pay = |body: &str| {
        format!(
            "def charge_card(amount):\n    return gateway.charge(amount)\n\n\ndef refund_card(amount):\n    return {body}\n"
        )
    };
    p.write("app/pay.py", pay("gateway.refund(amount)"));
    p.write("app/fees.py", "def refund_fee():\n    return 1\n");
    assert_eq!(p.run(&["index", "--quiet"]).code(), 0);
    let snippet_of = |v: &serde_json::Value, path: &str| -> Option<String> {
        v["hits"]
            .as_array()?
            .iter()
            .find(|h| h["path"] == path)
            .and_then(|h| h["snippet"].as_str().map(String::from))
    };
    let v = p.json(&["search", "refund card", "--mode", "bm25"]);
    let s = snippet_of(&v, "app/pay.py").expect("a hit in pay.py");
    assert!(s.contains("gateway.refund(amount)"), "{v}");

    // Same lines, other text: the hit shows what the file holds now. Hybrid
    // search reads the snippets of the hits it shows only, once fused
    // (`Snippets::Later`): the same lines.
    p.write("app/pay.py", pay("ledger.reverse(amount)"));
    for mode in ["bm25", "hybrid"] {
        let v = p.json(&["search", "refund card", "--mode", mode]);
        let s = snippet_of(&v, "app/pay.py").expect("still a hit in pay.py");
        assert!(
            s.contains("ledger.reverse(amount)") && !s.contains("gateway.refund"),
            "{mode}: {v}"
        );
    }

    std::fs::remove_file(p.path("app/pay.py")).expect("delete");
    let v = p.json(&["search", "refund", "--mode", "bm25"]);
    assert_eq!(hit_paths(&v, "hits"), ["app/fees.py"], "{v}");
    // Hybrid drops the gone file's hits after fusing them (`refund_card`
    // led): the next hit takes the first place.
    let v = p.json(&["search", "refund card", "--mode", "hybrid", "-n", "1"]);
    assert_eq!(hit_paths(&v, "hits"), ["app/fees.py"], "{v}");

    p.write("app/pay.py", pay("ledger.reverse(amount)"));
    assert_eq!(p.run(&["index", "--quiet"]).code(), 0);
    let v = p.json(&["search", "ledger reverse", "--mode", "bm25"]);
    let s = snippet_of(&v, "app/pay.py").expect("indexed again");
    assert!(s.contains("ledger.reverse(amount)"), "{v}");
}

/// Signatures that are their name's line (macros, fields, constants,
/// variables) are kept as positions and read back from the file: symbol
/// search, the outline and the context show them as written; a file
/// edited since shows the line there now; others stay stored.
#[test]
fn line_signatures_are_read_from_the_files() {
    let p = Project::new();
    p.write(
        "inc/limits.h",
        "#ifndef LIMITS_H\n#define LIMITS_H\n\n#define MAX_RETRIES   5\n\nstruct retry_state {\n\tint attempts;\n};\n\nint retry_now(struct retry_state *s);\n#endif\n",
    );
    p.write(
        "cfg.py",
        "TIMEOUT_SECONDS = 30  # per request\n\n\ndef timeout():\n    return TIMEOUT_SECONDS\n",
    );
    assert_eq!(p.run(&["index", "--quiet"]).code(), 0);
    let sig = |name: &str| -> String {
        let v = p.json(&["symbol", name]);
        v["hits"][0]["signature"].as_str().unwrap_or("").to_string()
    };
    assert_eq!(sig("MAX_RETRIES"), "#define MAX_RETRIES   5");
    assert_eq!(sig("attempts"), "int attempts;");
    assert_eq!(
        sig("TIMEOUT_SECONDS"),
        "TIMEOUT_SECONDS = 30  # per request"
    );
    assert_eq!(sig("retry_now"), "int retry_now(struct retry_state *s);");
    let db = p.path(".repo_search/index.db");
    let conn =
        rusqlite::Connection::open_with_flags(&db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .expect("db");
    // Every file's stored definitions (inflated when stored deflated: a
    // first byte 2, see store::packed), to look for texts in.
    let blobs: Vec<Vec<u8>> = conn
        .prepare("SELECT data FROM symbol_files")
        .expect("prepare")
        .query_map([], |r| r.get(0))
        .expect("query")
        .collect::<Result<_, _>>()
        .expect("rows");
    let raw: Vec<Vec<u8>> = blobs
        .into_iter()
        .map(|b| match b.first() {
            Some(2) => {
                let mut out = Vec::new();
                std::io::Read::read_to_end(
                    &mut flate2::read::DeflateDecoder::new(&b[1..]),
                    &mut out,
                )
                .expect("inflate");
                out
            }
            _ => b,
        })
        .collect();
    let stored = |text: &str| -> bool {
        raw.iter()
            .any(|b| b.windows(text.len()).any(|w| w == text.as_bytes()))
    };
    assert!(stored("MAX_RETRIES"), "the name is stored");
    assert!(!stored("#define MAX_RETRIES"), "kept as a position");
    assert!(!stored("TIMEOUT_SECONDS = 30"));
    assert!(
        stored("int retry_now(struct retry_state *s);"),
        "functions keep theirs (symbol search ranks by it)"
    );
    let v = p.json(&["outline", "cfg.py"]);
    assert_eq!(
        v["symbols"][0]["signature"], "TIMEOUT_SECONDS = 30  # per request",
        "{v}"
    );
    // Edited since: the line there now, never a stale copy.
    p.write(
        "inc/limits.h",
        "#ifndef LIMITS_H\n#define LIMITS_H\n\n#define MAX_RETRIES   9\n\nstruct retry_state {\n\tint attempts;\n};\n\nint retry_now(struct retry_state *s);\n#endif\n",
    );
    assert_eq!(sig("MAX_RETRIES"), "#define MAX_RETRIES   9");
}

#[test]
fn index_paths_brings_only_those_paths_up_to_date() {
    let p = Project::new();
    p.write("a/one.py", "def first():\n    return 1\n")
        .write("b/two.py", "def second():\n    return 2\n")
        .write("c/gone.py", "def doomed():\n    return 3\n");
    p.run(&["index", "--no-embed"]).ok();
    // What the index holds is read below without updating it first.
    p.run(&["config", "set", "index.update_before_answer", "false"])
        .ok();
    p.write("a/one.py", "def first_renamed():\n    return 1\n")
        .write("b/two.py", "def second_renamed():\n    return 2\n");
    p.remove("c/gone.py");
    // What the index holds (exit 1 would also say a definition shown is
    // gone from its edited file).
    let defined = |name: &str| p.json(&["symbol", name, "--exact"])["total"].as_u64() > Some(0);

    // One directory and one deleted file: only those change.
    p.run(&["index", "--no-embed", "a", "c/gone.py"]).ok();
    assert!(defined("first_renamed"));
    assert!(!defined("doomed"), "the deleted file's definitions stay");
    assert!(
        defined("second") && !defined("second_renamed"),
        "b/ was indexed too"
    );
    let st = p.json(&["status"]);
    assert_eq!(st["stale_files"], 1, "{st}");

    // Bad input: outside the root, with --full, without an index.
    let r = p.run(&["index", "../elsewhere"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("PATH_OUTSIDE_ROOT"), "{r}");
    // A glob climbing out of the project matches nothing: an error for
    // `keyword` as for `search` (it had said no files were searched).
    let r = p.run(&["keyword", "def", "-g", "../*.py"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("PATH_OUTSIDE_ROOT"), "{r}");
    let r = p.run(&["index", "--no-embed", "a/on.py"]);
    assert_eq!(r.code(), 2, "a path never there is a typo: {r}");
    assert!(r.stderr().contains("NOT_FOUND"), "{r}");
    let r = p.run(&["index", "--full", "a"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("hint:"), "{r}");
    let fresh = Project::new();
    fresh.write("x.py", "def x():\n    return 0\n");
    let r = fresh.run(&["index", "x.py"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("NO_INDEX"), "{r}");
}

/// Status counts the rows deleted from the full-text index since its last
/// merge and says whether a watching daemon would merge them now (under
/// 1,000 it would not).
#[test]
fn status_counts_full_text_tombstones() {
    let p = Project::new();
    p.write(
        "a.py",
        "def one():\n    return 1\n\n\ndef two():\n    return 2\n",
    );
    p.run(&["index"]).ok();
    let st = p.json(&["status"]);
    assert_eq!(st["fts_deleted"], 0, "{st}");
    assert_eq!(st["fts_merge_due"], false, "{st}");
    p.write("a.py", "def three():\n    return 3\n");
    p.run(&["index"]).ok();
    let st = p.json(&["status"]);
    assert!(st["fts_deleted"].as_u64().unwrap_or(0) >= 1, "{st}");
    assert_eq!(st["fts_merge_due"], false, "{st}");
    let text = p.run(&["status"]).ok().stdout();
    assert!(!text.contains("merge:"), "{text}");
}

/// `~/.repo_search` is the per-user state (registry, models), not a
/// project's index: a directory under `~` without `.git` is its own
/// project, not `~`.
#[test]
fn the_per_user_state_directory_marks_no_project() {
    let p = Project::new();
    p.write("work/proj/main.py", "def main():\n    return 1\n");
    let state = p.path(".repo_search");
    std::fs::create_dir_all(&state).expect("state dir");
    p.run_at(
        "work/proj",
        &["index", "--no-embed", "--json"],
        &[("REPO_SEARCH_HOME", state.as_os_str())],
    )
    .ok();
    assert!(p.path("work/proj/.repo_search/index.db").exists());
    assert!(
        !state.join("index.db").exists(),
        "indexed the state directory's parent"
    );
}

/// A UTF-16 file with a byte-order mark is text to `read` as it is to the
/// indexer (its NUL bytes made `read` call it binary).
#[test]
fn a_utf16_file_is_read_as_text() {
    let p = Project::new();
    let mut bytes = vec![0xFF, 0xFE];
    for u in "def wide():\n    return 1\n".encode_utf16() {
        bytes.extend_from_slice(&u.to_le_bytes());
    }
    p.write("src/wide.py", bytes);
    p.run(&["index", "--no-embed"]).ok();
    p.run(&["symbol", "wide", "--exact"]).ok();
    let r = p.run(&["read", "src/wide.py"]).ok();
    assert!(r.stdout().contains("def wide():"), "{r}");
}

/// A file named to `index PATH` (as a watcher names what it heard) is
/// hashed again even when its size and mtime are the ones indexed: `cp
/// -p`, `rsync -a` and `tar` keep the mtime, and such an edit of the same
/// length stayed unindexed; a whole-project run sees it by its ctime.
#[test]
fn a_named_file_is_hashed_again_whatever_its_mtime() {
    let p = Project::new();
    let path = p.path("src/app.py");
    // An old mtime, so the racy-file guard (an mtime close to the index
    // run) does not re-hash it anyway.
    let mtime = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_600_000_000);
    let set_mtime = || {
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(mtime))
            .expect("set the mtime");
    };
    p.write("src/app.py", "def alpha():\n    return 1\n");
    set_mtime();
    p.run(&["index", "--no-embed"]).ok();
    p.write("src/app.py", "def omega():\n    return 1\n");
    set_mtime();
    p.run(&["index", "--no-embed", "src/app.py"]).ok();
    p.run(&["symbol", "omega", "--exact"]).ok();
    assert_eq!(p.run(&["symbol", "alpha", "--exact"]).code(), 1);
    // A whole-project run sees it too: the write moved the ctime, which no
    // tool sets back.
    p.write(
        "src/app.py",
        "def gamma():
    return 1
",
    );
    set_mtime();
    p.run(&["index", "--no-embed"]).ok();
    p.run(&["symbol", "gamma", "--exact"]).ok();
    assert_eq!(p.run(&["symbol", "omega", "--exact"]).code(), 1);
}

/// The per-user state directory inside a project (models, registry, the
/// daemon's log) is none of the project's files: a watching daemon
/// re-indexed its own log line after line.
#[test]
fn the_per_user_state_directory_inside_a_project_is_not_indexed() {
    let p = Project::new();
    p.write("main.py", "def main():\n    return 1\n");
    p.write(
        "state/helper.py",
        "def from_the_state_dir():\n    return 2\n",
    );
    let env = [("REPO_SEARCH_HOME", p.path("state").into_os_string())];
    let env: Vec<(&str, &std::ffi::OsStr)> = env.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
    p.run_env(&["index", "--no-embed"], &env).ok();
    let r = p.run_env(&["symbol", "from_the_state_dir"], &env);
    assert_eq!(r.code(), 1, "{r}");
    p.run_env(&["symbol", "main"], &env).ok();
    // Without it as the state directory, it is a directory like any other.
    p.run(&["index", "--no-embed"]).ok();
    p.run(&["symbol", "from_the_state_dir"]).ok();
}

/// A lowercase compound in a path or a definition's name (`lockfile.c`,
/// `ziplistPush`) is found by its words as a question writes them: the
/// full-text index holds the compound's words too (schema 56), the body
/// text only as it is.
#[test]
fn compound_names_are_found_by_their_words() {
    let p = Project::new();
    p.write(
        "src/lockfile.c",
        "int hold(struct lk *l) {\n    return take(l->fd);\n}\n",
    );
    p.write(
        "src/zl.c",
        "void ziplistPush(struct zl *z, int v) {\n    append(z, v);\n}\n",
    );
    p.write(
        "src/other.c",
        "int lock_count(void) {\n    return 0;\n}\nint file_count(void) {\n    return 0;\n}\n\
         int push_list(void) {\n    return 0;\n}\n",
    );
    assert_eq!(p.run(&["index", "--quiet", "--no-embed"]).code(), 0);
    let v = p.json(&["search", "hold the lock file", "--mode", "bm25"]);
    assert_eq!(
        hit_paths(&v, "hits").first().map(String::as_str),
        Some("src/lockfile.c"),
        "{v}"
    );
    let v = p.json(&["search", "push onto the zip list", "--mode", "bm25"]);
    assert_eq!(
        hit_paths(&v, "hits").first().map(String::as_str),
        Some("src/zl.c"),
        "{v}"
    );
}

/// An indexed project's `git status` does not list the index: the index
/// directory carries its own `.gitignore` (`init` also adds a line to the
/// project's), written once and never through a planted link.
#[test]
fn the_index_directory_is_invisible_to_git() {
    let p = Project::new();
    p.git_init();
    p.write("app.py", "def main():\n    return 1\n");
    p.run(&["index", "--no-embed", "-q"]).ok();
    let status = || crate::history::git(&p, &["status", "--porcelain", "--untracked-files=all"]);
    let listed = status();
    assert!(listed.contains("app.py"), "{listed}");
    assert!(!listed.contains(".repo_search"), "{listed}");
    // A project's own eval cases stay visible (a team commits them); their
    // reports do not.
    p.write(".repo_search/evals/mine.jsonl", "{}\n");
    p.write(".repo_search/evals/results/run.json", "{}\n");
    let listed = status();
    assert!(listed.contains(".repo_search/evals/mine.jsonl"), "{listed}");
    assert!(!listed.contains("results"), "{listed}");
}

/// A Go method sits beside its receiver's type, not inside it: `outline`
/// and MCP `list_defs_in_file` name the receiver (`Params.Get`,
/// `container` in JSON); a class's method nested under it needs none.
#[test]
fn outline_names_the_receiver_of_a_method_outside_its_type() {
    let p = Project::new();
    p.write(
        "tree.go",
        "package gin\n\ntype Params []string\n\nfunc (ps Params) Get(name string) string {\n\treturn name\n}\n",
    )
    .write(
        "app.py",
        "class Config:\n    def load(self):\n        return 1\n",
    );
    p.run(&["index", "--offline"]).ok();
    // The container of the definition named `Get` in a list.
    let container_of_get = |list: &serde_json::Value| {
        list.as_array()
            .into_iter()
            .flatten()
            .find(|s| s["name"] == "Get")
            .map(|s| s["container"].clone())
            .unwrap_or_default()
    };
    let v = p.json(&["outline", "tree.go"]);
    assert_eq!(container_of_get(&v["symbols"]), "Params", "{v}");
    let out = p.run(&["outline", "tree.go"]).ok().stdout();
    assert!(out.contains("method Params.Get"), "{out}");
    let v = p.json(&["outline", "app.py"]);
    assert!(
        v["symbols"][0]["children"][0].get("container").is_none(),
        "{v}"
    );
    let out = p.run(&["outline", "app.py"]).ok().stdout();
    assert!(out.contains("  method load"), "{out}");

    let m = crate::mcp::Mcp::start(&p, crate::mcp::Era::Modern);
    let v = m.ok("list_defs_in_file", serde_json::json!({"path": "tree.go"}));
    assert_eq!(container_of_get(&v["definitions"]), "Params", "{v}");
    let r = m
        .call("list_defs_in_file", serde_json::json!({"path": "tree.go"}))
        .expect("list_defs_in_file");
    let text = crate::mcp::error_text(&r);
    assert!(text.contains("method Params.Get"), "{text}");
}
