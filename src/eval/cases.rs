//! Owns the eval case format (`evals/<suite>.jsonl`) and its validation.
//! Every validation error names the file, the line and the field.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::error::UserError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Category {
    Search,
    Navigate,
    Understand,
    /// How a subsystem is put together (agent suite).
    Architecture,
    /// Where an idea is implemented (agent suite).
    Concept,
    /// Where a named thing lives (agent suite).
    Symbol,
}

impl Category {
    pub fn name(self) -> &'static str {
        match self {
            Category::Search => "search",
            Category::Navigate => "navigate",
            Category::Understand => "understand",
            Category::Architecture => "architecture",
            Category::Concept => "concept",
            Category::Symbol => "symbol",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Tool {
    Search,
    FindSymbol,
    FindReferences,
    SearchKeyword,
    ListDefsInFile,
}

impl Tool {
    pub fn name(self) -> &'static str {
        match self {
            Tool::Search => "search",
            Tool::FindSymbol => "find_symbol",
            Tool::FindReferences => "find_references",
            Tool::SearchKeyword => "search_keyword",
            Tool::ListDefsInFile => "list_defs_in_file",
        }
    }
}

/// A line span in a file (1-based, inclusive).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Span {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
}

impl Span {
    pub fn overlaps(&self, path: &str, start: u32, end: u32) -> bool {
        self.path == path && start <= self.end_line && end >= self.start_line
    }
}

/// What counts as a right answer. At least one field is non-empty.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Any hit in one of these files is relevant. For the file-level scores
    /// (NDCG@10) these are the primary files, gain 2.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Partly relevant files: gain 1 in the file-level scores (NDCG@10),
    /// ignored by MRR and recall. Only valid beside `paths`.
    #[serde(default)]
    pub secondary_paths: Vec<String>,
    /// Any hit overlapping one of these spans is relevant.
    #[serde(default)]
    pub spans: Vec<Span>,
    /// Any hit naming one of these symbols is relevant.
    #[serde(default)]
    pub symbols: Vec<String>,
    /// The exact set of `path:line` a keyword search must return.
    #[serde(default)]
    pub matches: Vec<String>,
}

impl Expect {
    fn is_empty(&self) -> bool {
        self.paths.is_empty()
            && self.spans.is_empty()
            && self.symbols.is_empty()
            && self.matches.is_empty()
    }
    /// How many distinct targets a perfect answer finds (for recall).
    pub fn targets(&self) -> usize {
        if !self.spans.is_empty() {
            self.spans.len()
        } else if !self.paths.is_empty() {
            self.paths.len()
        } else {
            self.symbols.len().max(1)
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub id: String,
    pub category: Category,
    /// The corpus of `evals/corpora.toml` the case searches. A project's
    /// own cases (`.repo_search/evals/`) leave it out: they search the
    /// project.
    #[serde(default)]
    pub corpus: String,
    pub tool: Tool,
    /// For `search`: run only this mode (hybrid, bm25, semantic, ...).
    #[serde(default)]
    pub mode: Option<String>,
    /// The query, name, pattern or path, depending on the tool.
    pub query: String,
    /// Extra tool arguments (kind, lang, fixed_strings, case_insensitive, word, glob, ...).
    #[serde(default)]
    pub args: serde_json::Map<String, serde_json::Value>,
    pub expect: Expect,
    /// Lines blanked in the indexed copy of the corpus (e.g. the docstring a
    /// natural-language query was made from), keeping line numbers.
    #[serde(default)]
    pub blank: Vec<Span>,
}

/// A suite: its name (file stem), file and cases.
#[derive(Debug, Clone)]
pub struct Suite {
    pub name: String,
    pub file: PathBuf,
    pub cases: Vec<Case>,
}

/// Whose cases a suite file holds: they differ in what a case may say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// `evals/`: each case names a corpus of `corpora.toml`.
    Suites,
    /// A project's `.repo_search/evals/`: cases search the project as it
    /// is (no corpus, no blanked lines).
    Project,
}

/// The corpus name a project's cases may give (the same as none).
pub const PROJECT_CORPUS: &str = "project";

/// Loads and validates one suite file.
pub fn load_suite(file: &Path, origin: Origin) -> Result<Suite> {
    // Never blocks on a FIFO or opens a device a repository shipped.
    let text = crate::fs_safe::read_regular_to_string(file)
        .with_context(|| format!("cannot read suite `{}`", file.display()))?;
    let name = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut cases: Vec<Case> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let lineno = i + 1;
        let line = line.trim();
        if line.is_empty() || line.starts_with("//") {
            continue;
        }
        let case: Case =
            serde_json::from_str(line).map_err(|e| invalid(file, lineno, &e.to_string()))?;
        validate(&case, origin).map_err(|msg| invalid(file, lineno, &msg))?;
        if cases.iter().any(|c| c.id == case.id) {
            return Err(invalid(
                file,
                lineno,
                &format!("field `id`: duplicate id `{}`", case.id),
            ));
        }
        cases.push(case);
    }
    Ok(Suite {
        name,
        file: file.to_path_buf(),
        cases,
    })
}

fn invalid(file: &Path, line: usize, msg: &str) -> anyhow::Error {
    UserError::new(format!("{}:{line}: invalid case: {msg}", file.display()))
        .hint("see the Evals section of repo-search's README.md for the case format")
        .into()
}

fn validate(c: &Case, origin: Origin) -> std::result::Result<(), String> {
    if c.id.trim().is_empty() {
        return Err("field `id`: must not be empty".into());
    }
    match origin {
        Origin::Suites if c.corpus.trim().is_empty() => {
            return Err("field `corpus`: must name a corpus of corpora.toml".into());
        }
        Origin::Project if !c.corpus.is_empty() && c.corpus != PROJECT_CORPUS => {
            return Err(format!(
                "field `corpus`: a project's cases search the project itself; leave `corpus` out (got `{}`)",
                c.corpus
            ));
        }
        Origin::Project if !c.blank.is_empty() => {
            return Err(
                "field `blank`: a project's cases search the project as it is; blanking needs a corpus copy (evals/ suites only)".into(),
            );
        }
        _ => {}
    }
    if c.query.trim().is_empty() {
        return Err("field `query`: must not be empty".into());
    }
    if !c.expect.secondary_paths.is_empty() && c.expect.paths.is_empty() {
        return Err(
            "field `expect.secondary_paths`: needs `expect.paths` (the primary files) too".into(),
        );
    }
    if c.expect.is_empty() {
        return Err("field `expect`: give at least one of paths, spans, symbols, matches".into());
    }
    if c.tool == Tool::SearchKeyword && c.expect.matches.is_empty() && c.expect.paths.is_empty() {
        return Err(
            "field `expect.matches`: keyword cases need the exact set of `path:line`".into(),
        );
    }
    for (field, spans) in [("expect.spans", &c.expect.spans), ("blank", &c.blank)] {
        for s in spans {
            if s.start_line == 0 || s.end_line < s.start_line {
                return Err(format!(
                    "field `{field}`: bad line range {}..{} in `{}`",
                    s.start_line, s.end_line, s.path
                ));
            }
        }
    }
    if let Some(m) = &c.mode
        && c.tool != Tool::Search
    {
        return Err(format!(
            "field `mode`: `{m}` is only valid with tool `search`"
        ));
    }
    Ok(())
}

/// Suite files in `dir` (`*.jsonl`), sorted by name.
pub fn suite_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot list `{}`", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    v.sort();
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_names_file_line_and_field() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = dir.path().join("s.jsonl");
        let good = r#"{"id":"a","category":"navigate","corpus":"self","tool":"find_symbol","query":"main","expect":{"paths":["bin/x.rs"]}}"#;
        std::fs::write(
            &f,
            format!(
                "{good}\n{}\n",
                good.replace("\"expect\":{\"paths\":[\"bin/x.rs\"]}", "\"expect\":{}")
            ),
        )
        .expect("write");
        let err = load_suite(&f, Origin::Suites).expect_err("invalid");
        assert!(
            err.to_string().contains("s.jsonl:2") && err.to_string().contains("`expect`"),
            "{err}"
        );
        std::fs::write(&f, good.replace("navigate", "browse")).expect("write");
        let err = load_suite(&f, Origin::Suites).expect_err("bad category");
        assert!(
            err.to_string().contains("s.jsonl:1") && err.to_string().contains("browse"),
            "{err}"
        );
        std::fs::write(&f, good).expect("write");
        assert_eq!(
            load_suite(&f, Origin::Suites).expect("valid").cases.len(),
            1
        );
    }

    #[test]
    fn parses_agent_categories_and_secondary_paths() {
        let dir = tempfile::tempdir().expect("tempdir");
        let f = dir.path().join("agent.jsonl");
        let mut lines = Vec::new();
        for cat in ["architecture", "concept", "symbol"] {
            lines.push(format!(
                r#"{{"id":"{cat}","category":"{cat}","corpus":"c","tool":"search","query":"how","expect":{{"paths":["a.py"],"secondary_paths":["b.py","c.py"]}}}}"#
            ));
        }
        std::fs::write(&f, lines.join("\n")).expect("write");
        let s = load_suite(&f, Origin::Suites).expect("valid");
        let cats: Vec<&str> = s.cases.iter().map(|c| c.category.name()).collect();
        assert_eq!(cats, ["architecture", "concept", "symbol"]);
        assert_eq!(s.cases[0].expect.paths, ["a.py"]);
        assert_eq!(s.cases[0].expect.secondary_paths, ["b.py", "c.py"]);
        assert_eq!(
            s.cases[0].category,
            serde_json::from_str::<Category>("\"architecture\"").expect("category")
        );

        std::fs::write(
            &f,
            r#"{"id":"a","category":"concept","corpus":"c","tool":"search","query":"how","expect":{"secondary_paths":["b.py"]}}"#,
        )
        .expect("write");
        let err = load_suite(&f, Origin::Suites).expect_err("secondary only");
        assert!(
            err.to_string().contains("agent.jsonl:1")
                && err.to_string().contains("secondary_paths"),
            "{err}"
        );
    }
}
