//! Owns the eval runner behind `repo-search-eval run|report|list`: loads
//! suites (`evals/*.jsonl`) and corpora (`evals/corpora.toml`), indexes each
//! corpus (reusing an up-to-date index), runs every case through an engine,
//! scores, and saves reports under `evals/results/`. A project's own cases
//! (`.repo_search/evals/*.jsonl`) search the project itself and their
//! reports go to `.repo_search/evals/results/`, where nothing is indexed.

pub mod cases;
#[allow(clippy::print_stderr)] // progress while fetching a corpus
pub mod corpora;
pub mod engines;
pub mod mcp_engine;
pub mod run;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use serde::{Deserialize, Serialize};

use crate::error::UserError;
use cases::{Origin, Suite, load_suite, suite_files};
use run::{
    AnswerSize, ArmLoss, CaseResult, Engine, Row, aggregate, answer_sizes, arm_losses, run_cases,
};

#[derive(Debug, Parser)]
#[command(
    name = "repo-search-eval",
    version,
    about = "Score repo-search retrieval on suites of cases (evals/*.jsonl)"
)]
struct EvalCli {
    /// The evals directory (default: a project's own cases when the working
    /// directory's project has `.repo_search/evals/*.jsonl`, else `evals/`
    /// of the repository this binary was built from).
    #[arg(long, global = true, value_name = "DIR", conflicts_with = "project")]
    evals: Option<PathBuf>,
    /// Run a project's own cases (`.repo_search/evals/*.jsonl`) on the
    /// project itself (the working directory's, or --root's); reports go
    /// to `.repo_search/evals/results/`.
    #[arg(long, global = true)]
    project: bool,
    /// The project of --project (default: found from the working directory, as `repo-search` does).
    #[arg(long, global = true, value_name = "DIR", conflicts_with = "evals")]
    root: Option<PathBuf>,
    #[command(subcommand)]
    command: EvalCommand,
}

#[derive(Debug, Subcommand)]
enum EvalCommand {
    /// Run suites (all when none is named) and save a report.
    Run {
        /// Suite names (file stems in evals/).
        suites: Vec<String>,
        /// How cases reach the engine: the library as the CLI calls it, or a real `repo-search mcp` over stdio.
        #[arg(long, default_value = "cli", value_parser = ["cli", "mcp"])]
        through: String,
        /// Search modes to run for `search` cases without a fixed mode.
        #[arg(long, value_delimiter = ',', default_value = "bm25")]
        modes: Vec<String>,
        /// Also score a baseline: `grep` (rg on the query terms, files ranked by match count).
        #[arg(long, value_parser = ["grep"])]
        baseline: Option<String>,
        /// Results per query.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Only cases whose id contains this text.
        #[arg(long)]
        filter: Option<String>,
        /// Reciprocal-rank-fusion constant for hybrid mode (tuning).
        #[arg(long)]
        rrf_k: Option<f64>,
        /// Recently changed files preferred in `search` cases: auto (when
        /// the query asks about recent work), on, off. A case's own
        /// `args.recency` wins.
        #[arg(long, default_value = "auto", value_parser = ["auto", "on", "off"])]
        recency: String,
        /// Vectors to compute for each corpus before searching: `fast`
        /// (potion, seconds), `full` (fast, then MiniLM: ~75 chunks/s on 2
        /// cores, so twenty minutes for `nl`'s corpora; resumable), or `none`.
        /// Models come from `repo-search model fetch`.
        #[arg(long, default_value = "fast", value_parser = ["fast", "full", "none"])]
        embed: String,
        /// Do not save the report under evals/results/.
        #[arg(long)]
        no_save: bool,
        /// Print the report as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Show a saved run (default: the latest), or compare two.
    Report {
        /// A results file (or `latest`).
        run: Option<String>,
        /// Compare two runs: deltas B − A.
        #[arg(long, num_args = 2, value_names = ["A", "B"])]
        compare: Option<Vec<String>>,
        #[arg(long)]
        json: bool,
    },
    /// Fetch corpora into the cache (all when none is named) and print their directories.
    Fetch { corpora: Vec<String> },
    /// List suites, corpora and case counts.
    List {
        #[arg(long)]
        json: bool,
    },
}

/// A saved run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunReport {
    pub started_unix: u64,
    pub commit: String,
    pub machine: Machine,
    pub settings: RunSettings,
    pub rows: Vec<Row>,
    pub cases: Vec<CaseResult>,
    /// Per suite (and split): cases where hybrid's `ndcg10_chunks` is more
    /// than 0.1 below the better of bm25/semantic (empty when the run has
    /// no such pair of modes, and in reports before this field).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub arm_loss: Vec<ArmLoss>,
    /// Per suite and mode: characters of the `search` answers (structured
    /// JSON and, through MCP, text content), mean and p95 (empty in
    /// reports before this field).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answer_size: Vec<AnswerSize>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Machine {
    pub cores: usize,
    pub os: String,
    pub arch: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunSettings {
    pub suites: Vec<String>,
    pub through: String,
    pub modes: Vec<String>,
    pub baseline: Option<String>,
    pub limit: usize,
    pub version: String,
    /// Vectors computed before searching (reports before this field: fast).
    #[serde(default = "default_embed")]
    pub embed: String,
    /// `search` cases' recency (reports before this field: auto).
    #[serde(default = "default_recency")]
    pub recency: String,
}

fn default_recency() -> String {
    "auto".into()
}

fn default_embed() -> String {
    "fast".into()
}

pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    let cli = match EvalCli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    crate::logging::init_logging(0);
    match run_main(cli) {
        Ok(code) => code,
        Err(e) => {
            crate::logging::report_error(&e);
            ExitCode::from(2)
        }
    }
}

/// Where the cases come from, and where reports go.
#[derive(Debug, Clone)]
enum Source {
    /// `evals/`: suites over the corpora of `corpora.toml`; `repo_root` is
    /// the repository holding it (the `self` corpus).
    Suites { evals: PathBuf, repo_root: PathBuf },
    /// A project's own cases, run on the project.
    Project { root: PathBuf },
}

impl Source {
    fn origin(&self) -> Origin {
        match self {
            Source::Suites { .. } => Origin::Suites,
            Source::Project { .. } => Origin::Project,
        }
    }

    /// The directory of the `*.jsonl` suite files.
    fn cases_dir(&self) -> PathBuf {
        match self {
            Source::Suites { evals, .. } => evals.clone(),
            Source::Project { root } => crate::store::eval_cases_dir(root),
        }
    }

    /// Where saved reports live.
    fn results_dir(&self) -> PathBuf {
        self.cases_dir().join("results")
    }

    /// The corpora the suites name (a project's cases name none).
    fn corpora(&self) -> Result<corpora::Corpora> {
        match self {
            Source::Suites { evals, .. } => corpora::load_corpora(evals),
            Source::Project { .. } => Ok(corpora::Corpora::new()),
        }
    }

    /// The repository whose commit a report records.
    fn commit_of(&self) -> &Path {
        match self {
            Source::Suites { repo_root, .. } => repo_root,
            Source::Project { root } => root,
        }
    }
}

/// Whether a project has cases of its own.
fn has_project_cases(root: &Path) -> bool {
    suite_files(&crate::store::eval_cases_dir(root)).is_ok_and(|f| !f.is_empty())
}

#[allow(clippy::print_stderr)] // says which cases run
fn source(evals: Option<PathBuf>, project: bool, root: Option<PathBuf>) -> Result<Source> {
    if project || root.is_some() {
        let root = crate::settings::find_root(root.as_deref())?;
        if !has_project_cases(&root) {
            bail!(
                UserError::new(format!(
                    "`{}` has no cases of its own (no `*.jsonl` in `{}`)",
                    root.display(),
                    crate::store::eval_cases_dir(&root).display()
                ))
                .hint("write cases there, one JSON object per line: {\"id\": \"config-1\", \"category\": \"concept\", \"tool\": \"search\", \"query\": \"where is the config loaded\", \"expect\": {\"paths\": [\"src/config.rs\"]}}")
            );
        }
        return Ok(Source::Project { root });
    }
    if evals.is_none()
        && let Ok(root) = crate::settings::find_root(None)
        && has_project_cases(&root)
    {
        eprintln!(
            "running the project's own cases in `{}` (--evals DIR for repo-search's suites)",
            crate::store::eval_cases_dir(&root).display()
        );
        return Ok(Source::Project { root });
    }
    let evals = evals_dir(evals)?;
    let repo_root = evals
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let repo_root = repo_root.canonicalize().unwrap_or(repo_root);
    Ok(Source::Suites { evals, repo_root })
}

fn evals_dir(explicit: Option<PathBuf>) -> Result<PathBuf> {
    if let Some(d) = explicit {
        return Ok(d);
    }
    let cwd = std::env::current_dir()?;
    if let Some(found) = cwd
        .ancestors()
        .map(|a| a.join("evals"))
        .find(|p| p.join("corpora.toml").exists())
    {
        return Ok(found);
    }
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("evals");
    if built.join("corpora.toml").exists() {
        return Ok(built);
    }
    Err(
        UserError::new("cannot find the evals directory (with corpora.toml)")
            .hint("run from the repo-search checkout or pass --evals DIR")
            .into(),
    )
}

#[allow(clippy::disallowed_methods, clippy::print_stderr)] // prints the report
fn run_main(cli: EvalCli) -> Result<ExitCode> {
    let source = source(cli.evals, cli.project, cli.root)?;
    match cli.command {
        EvalCommand::List { json } => cmd_list(&source, json),
        EvalCommand::Fetch { corpora: names } => {
            let Source::Suites { evals, repo_root } = &source else {
                bail!(
                    UserError::new(
                        "a project's own cases search the project: there are no corpora to fetch"
                    )
                    .hint("pass --evals DIR to fetch the corpora of repo-search's suites")
                );
            };
            let all = corpora::load_corpora(evals)?;
            let mut out = std::io::stdout().lock();
            for (name, recipe) in &all {
                if names.is_empty() || names.contains(name) {
                    let dir = corpora::fetch(name, recipe, repo_root)?;
                    writeln!(out, "{name}\t{}", dir.display())?;
                }
            }
            for n in &names {
                if !all.contains_key(n) {
                    bail!(
                        UserError::new(format!("no corpus `{n}` in corpora.toml"))
                            .hint("`repo-search-eval list` shows the corpora")
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        EvalCommand::Report { run, compare, json } => {
            cmd_report(&source.results_dir(), run, compare, json)
        }
        EvalCommand::Run {
            suites,
            through,
            modes,
            baseline,
            limit,
            filter,
            rrf_k,
            recency,
            embed,
            no_save,
            json,
        } => {
            let settings = RunSettings {
                suites: suites.clone(),
                through,
                modes,
                baseline,
                limit,
                version: env!("CARGO_PKG_VERSION").to_string(),
                embed,
                recency,
            };
            // Checked before the run: a bad results directory fails at once.
            let results = if no_save {
                None
            } else {
                Some(results_dir_ready(&source)?)
            };
            let report = cmd_run(&source, &settings, filter.as_deref(), rrf_k)?;
            if let Some(dir) = results {
                let path = save_report(&source, &dir, &report)?;
                eprintln!("saved {}", path.display());
            }
            print_report(&report, json)?;
            let failures: usize = report.cases.iter().filter(|c| c.error.is_some()).count();
            Ok(if failures > 0 {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
    }
}

fn load_suites(source: &Source, names: &[String]) -> Result<Vec<Suite>> {
    let evals = source.cases_dir();
    let files = suite_files(&evals)?;
    let mut out = Vec::new();
    for f in files {
        let stem = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        if names.is_empty() || names.contains(&stem) {
            out.push(load_suite(&f, source.origin())?);
        }
    }
    for n in names {
        if !out.iter().any(|s| &s.name == n) {
            return Err(
                UserError::new(format!("no suite `{n}` in `{}`", evals.display()))
                    .hint("`repo-search-eval list` shows the suites")
                    .into(),
            );
        }
    }
    Ok(out)
}

#[allow(clippy::disallowed_methods)] // prints the list of suites
fn cmd_list(source: &Source, json: bool) -> Result<ExitCode> {
    let evals = source.cases_dir();
    let suites = load_suites(source, &[])?;
    let corpora = source.corpora()?;
    let mut rows = Vec::new();
    for s in &suites {
        let mut by: BTreeMap<(String, String), usize> = BTreeMap::new();
        for c in &s.cases {
            *by.entry((
                c.category.name().to_string(),
                corpus_name(source, &c.corpus).to_string(),
            ))
            .or_default() += 1;
        }
        rows.push(serde_json::json!({
            "suite": s.name, "cases": s.cases.len(),
            "by_category_corpus": by.iter().map(|((cat, cor), n)| serde_json::json!({"category": cat, "corpus": cor, "cases": n})).collect::<Vec<_>>(),
        }));
    }
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(
            out,
            "{}",
            serde_json::json!({"suites": rows, "corpora": corpora.keys().collect::<Vec<_>>()})
        )?;
    } else {
        writeln!(out, "suites ({}):", evals.display())?;
        for s in &suites {
            let cats: BTreeMap<&str, usize> = s.cases.iter().fold(BTreeMap::new(), |mut m, c| {
                *m.entry(c.category.name()).or_default() += 1;
                m
            });
            let cats: Vec<String> = cats.iter().map(|(k, v)| format!("{k} {v}")).collect();
            let corpora_used: std::collections::BTreeSet<&str> = s
                .cases
                .iter()
                .map(|c| corpus_name(source, &c.corpus))
                .collect();
            writeln!(
                out,
                "  {:<16} {:>5} cases  ({})  corpora: {}",
                s.name,
                s.cases.len(),
                cats.join(", "),
                corpora_used.into_iter().collect::<Vec<_>>().join(", ")
            )?;
        }
        if let Source::Project { root } = source {
            writeln!(out, "each case searches the project `{}`", root.display())?;
            return Ok(ExitCode::SUCCESS);
        }
        writeln!(out, "corpora:")?;
        for (name, r) in &corpora {
            let desc = match r {
                corpora::Recipe::SelfRepo { description, .. } => {
                    format!("this repository. {description}")
                }
                corpora::Recipe::PipSdist {
                    package,
                    description,
                    ..
                } => format!("pip sdist {package}. {description}"),
                corpora::Recipe::PipWheel {
                    package,
                    description,
                    ..
                } => format!("pip wheel {package}. {description}"),
                corpora::Recipe::Cargo {
                    crates,
                    description,
                    ..
                } => format!("cargo fetch: {} crates. {description}", crates.len()),
                corpora::Recipe::Npm {
                    package,
                    description,
                    ..
                } => format!("npm pack {package}. {description}"),
                corpora::Recipe::Deb {
                    package,
                    version,
                    description,
                    ..
                } => format!("apt-get download {package}={version}. {description}"),
                corpora::Recipe::DebSource {
                    package,
                    version,
                    description,
                    ..
                } => format!("apt-get source {package}={version}. {description}"),
            };
            let mut meta: Vec<String> = Vec::new();
            if let Some(lang) = r.lang() {
                meta.push(format!("lang {lang}"));
            }
            if let Some(split) = r.split() {
                meta.push(format!("split {}", split.name()));
            }
            let meta = if meta.is_empty() {
                String::new()
            } else {
                format!(" [{}]", meta.join(", "))
            };
            writeln!(out, "  {name:<16} {}{meta}", desc.trim())?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The corpus a case names, as lists show it (a project's cases: `project`).
fn corpus_name<'a>(source: &Source, corpus: &'a str) -> &'a str {
    match source {
        Source::Project { .. } => cases::PROJECT_CORPUS,
        Source::Suites { .. } => corpus,
    }
}

/// The paths a project's cases expect that the project does not have
/// (a typo or a moved file: such a case can never be answered).
fn missing_paths(root: &Path, suites: &[Suite]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for s in suites {
        for c in &s.cases {
            let e = &c.expect;
            let paths = e
                .paths
                .iter()
                .chain(&e.secondary_paths)
                .chain(e.spans.iter().map(|sp| &sp.path));
            for p in paths {
                if !root.join(p).exists() {
                    out.push((c.id.clone(), p.clone()));
                }
            }
        }
    }
    out
}

#[allow(clippy::print_stderr)] // warns about cases that cannot be answered
fn cmd_run(
    source: &Source,
    settings: &RunSettings,
    filter: Option<&str>,
    rrf_k: Option<f64>,
) -> Result<RunReport> {
    let suites = load_suites(source, &settings.suites)?;
    let corpora = source.corpora()?;
    if let Source::Project { root } = source {
        for (id, path) in missing_paths(root, &suites) {
            eprintln!("warning: case `{id}` expects `{path}`, which is not in the project");
        }
    }
    let total: usize = suites
        .iter()
        .map(|s| {
            s.cases
                .iter()
                .filter(|c| filter.is_none_or(|f| c.id.contains(f)))
                .count()
        })
        .sum();
    let pb = if std::io::stderr().is_terminal() {
        let pb = indicatif::ProgressBar::new(total as u64);
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "{msg:24} [{bar:30}] {pos}/{len} cases ({eta})",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        pb
    } else {
        indicatif::ProgressBar::hidden()
    };
    let mut results: Vec<CaseResult> = Vec::new();
    let mut lib = engines::LibEngine::default();
    lib.rrf_k = rrf_k;
    lib.recency = crate::service::Recency::parse(&settings.recency)?;
    // A run scores the tiers it computed: full-tier vectors an earlier
    // `--embed full` run left in a corpus must not rank a `fast` run. (A
    // real server, `--through mcp`, ranks with the best tier it finds, as a
    // user's would: configuring it without the full tier would let its
    // index runs prune those vectors.)
    lib.fast_vectors_only = settings.embed != "full";
    let mut mcp: Option<Box<dyn Engine>> = None;
    for suite in &suites {
        // Group cases by corpus; each corpus (blanked as the suite says) is indexed once.
        let mut by_corpus: BTreeMap<&str, Vec<&cases::Case>> = BTreeMap::new();
        for c in &suite.cases {
            if filter.is_none_or(|f| c.id.contains(f)) {
                by_corpus.entry(c.corpus.as_str()).or_default().push(c);
            }
        }
        for (corpus, cases) in by_corpus {
            pb.set_message(format!("{}: {}", suite.name, corpus_name(source, corpus)));
            let (root, recipe) = match source {
                Source::Project { root } => (root.clone(), None),
                Source::Suites { repo_root, .. } => {
                    let recipe = corpora.get(corpus).with_context(|| {
                        format!(
                            "suite `{}` uses unknown corpus `{corpus}` (not in corpora.toml)",
                            suite.name
                        )
                    })?;
                    let dir = pb.suspend(|| corpora::fetch(corpus, recipe, repo_root))?;
                    let blanks: Vec<cases::Span> =
                        cases.iter().flat_map(|c| c.blank.iter().cloned()).collect();
                    let dir = corpora::blanked_copy(corpus, &dir, &blanks)?;
                    (dir.canonicalize()?, Some(recipe))
                }
            };
            pb.suspend(|| index_corpus(&root, &settings.embed))?;
            let mut tick = || pb.inc(1);
            let engine: &mut dyn Engine = if settings.through == "mcp" {
                if mcp.is_none() {
                    mcp = Some(mcp_engine(&settings.recency)?);
                }
                mcp.as_deref_mut()
                    .ok_or_else(|| anyhow::anyhow!("no MCP engine"))?
            } else {
                &mut lib
            };
            let first = results.len();
            results.extend(run_cases(
                engine,
                &suite.name,
                &root,
                &cases,
                &settings.modes,
                settings.limit,
                None,
                &mut tick,
            ));
            if settings.baseline.as_deref() == Some("grep") {
                let mut g = run::GrepBaseline;
                results.extend(run_cases(
                    &mut g,
                    &suite.name,
                    &root,
                    &cases,
                    &settings.modes[..1.min(settings.modes.len())],
                    settings.limit,
                    Some("grep"),
                    &mut || {},
                ));
            }
            for r in &mut results[first..] {
                r.lang = recipe.and_then(|r| r.lang()).map(String::from);
                r.split = recipe.and_then(|r| r.split()).map(|s| s.name().to_string());
            }
        }
    }
    pb.finish_and_clear();
    Ok(RunReport {
        started_unix: std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0),
        commit: git_commit(source.commit_of()),
        machine: Machine {
            cores: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            os: std::env::consts::OS.into(),
            arch: std::env::consts::ARCH.into(),
        },
        settings: settings.clone(),
        rows: aggregate(&results),
        arm_loss: arm_losses(&results),
        answer_size: answer_sizes(&results),
        cases: results,
    })
}

/// The engine that sends every case through a real `repo-search mcp`.
fn mcp_engine(recency: &str) -> Result<Box<dyn Engine>> {
    let mut engine = mcp_engine::McpEngine::new()?;
    engine.recency = recency.to_string();
    Ok(Box::new(engine))
}

/// Indexes a corpus with the library (incremental: an up-to-date index is
/// reused), then computes the vectors `embed` asks for (only missing ones).
#[allow(clippy::print_stderr)] // progress while indexing a corpus
fn index_corpus(root: &Path, embed: &str) -> Result<()> {
    let svc = crate::service::Service::open(
        Some(root),
        &crate::settings::Overrides::default(),
        crate::service::Policy::AsIs,
        crate::service::OnBadConfig::Fail,
    )?;
    let s = svc
        .index(&crate::service::IndexJob::default(), &|_| {})?
        .summary;
    if s.changed > 0 || s.removed > 0 {
        eprintln!(
            "indexed `{}`: {} files, {} symbols, {} chunks ({} changed) in {:.1}s",
            root.display(),
            s.files,
            s.symbols,
            s.chunks,
            s.changed,
            s.seconds
        );
    }
    let tiers = match embed {
        "none" => return Ok(()),
        "full" => vec![crate::embed::Tier::Fast, crate::embed::Tier::Full],
        _ => vec![crate::embed::Tier::Fast],
    };
    let plan = crate::index::EmbedPlan {
        tiers: &tiers,
        defer_full_over: None,
        top_up_full_only: false,
        models: None,
        should_stop: &|| false,
    };
    let last = std::cell::Cell::new(std::time::Instant::now());
    let progress = |p: &crate::index::EmbedProgress| {
        if last.get().elapsed().as_secs() >= 30 {
            last.set(std::time::Instant::now());
            eprintln!(
                "embedding `{}` ({}): {}/{} chunks, {:.1}/s",
                root.display(),
                p.model,
                p.done,
                p.total,
                p.rate()
            );
        }
    };
    for e in svc.embed(&plan, &progress, &|_| {})? {
        if let Some(reason) = &e.skipped {
            eprintln!(
                "note: `{}`: no {} vectors: {reason}",
                root.display(),
                e.tier.name()
            );
        } else if e.embedded > 0 {
            eprintln!(
                "embedded {} chunks of `{}` with {} in {:.1}s",
                e.embedded,
                root.display(),
                e.model,
                e.seconds
            );
        }
    }
    Ok(())
}

fn git_commit(repo: &Path) -> String {
    std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(repo)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// `YYYYmmdd-HHMMSS` (UTC) of a unix time.
fn stamp(unix: u64) -> String {
    let days = (unix / 86400) as i64;
    let secs = unix % 86400;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z - era * 146097;
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// The directory reports are saved in, made if missing. A project's is
/// inside its index directory: never through a symlink a cloned repository
/// planted there.
fn results_dir_ready(source: &Source) -> Result<PathBuf> {
    let dir = source.results_dir();
    match source {
        Source::Suites { .. } => std::fs::create_dir_all(&dir)
            .with_context(|| format!("cannot create `{}`", dir.display()))?,
        Source::Project { root } => {
            crate::store::index_dir_checked(root, crate::store::DirUse::Create)?;
            let what = "the eval results directory";
            for d in [source.cases_dir(), dir.clone()] {
                crate::fs_safe::private_dir(&d, what, true, false, crate::fs_safe::Owner::Anyone)?;
            }
        }
    }
    Ok(dir)
}

fn save_report(source: &Source, dir: &Path, r: &RunReport) -> Result<PathBuf> {
    let name = format!(
        "{}-{}-{}.json",
        stamp(r.started_unix),
        r.commit,
        r.settings.through
    );
    let text = serde_json::to_string_pretty(r)?;
    let path = dir.join(name);
    match source {
        Source::Suites { .. } => {
            std::fs::write(&path, text)
                .with_context(|| format!("cannot write `{}`", path.display()))?;
            Ok(path)
        }
        Source::Project { .. } => {
            let mut f = crate::fs_safe::private_nofollow()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&path)
                .with_context(|| format!("cannot write `{}`", path.display()))?;
            f.write_all(text.as_bytes())
                .with_context(|| format!("cannot write `{}`", path.display()))?;
            Ok(path)
        }
    }
}

fn load_report(dir: &Path, which: Option<&str>) -> Result<RunReport> {
    let path = match which {
        Some(p) if p != "latest" => PathBuf::from(p),
        _ => {
            let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
                .map(|rd| {
                    rd.filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| p.extension().is_some_and(|e| e == "json"))
                        .collect()
                })
                .unwrap_or_default();
            files.sort();
            match files.pop() {
                Some(f) => f,
                None => bail!(
                    UserError::new(format!("no saved runs in `{}`", dir.display()))
                        .hint("run `repo-search-eval run` first")
                ),
            }
        }
    };
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read `{}`", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("`{}` is not a saved run", path.display()))
}

fn fmt_opt(v: Option<f64>) -> String {
    v.map(|x| format!("{x:.3}")).unwrap_or_else(|| "-".into())
}

/// `[A, B, B − A]` when both runs have the value, else null.
fn ndcg_delta(a: Option<f64>, b: Option<f64>) -> serde_json::Value {
    match (a, b) {
        (Some(a), Some(b)) => serde_json::json!([a, b, b - a]),
        _ => serde_json::Value::Null,
    }
}

/// The Markdown table of a run.
pub fn markdown(r: &RunReport) -> String {
    let mut s = format!(
        "run {} · commit {} · {} cores · through {} · modes {} · limit {} · vectors {}\n\n",
        stamp(r.started_unix),
        r.commit,
        r.machine.cores,
        r.settings.through,
        r.settings.modes.join(","),
        r.settings.limit,
        r.settings.embed
    );
    s.push_str("| suite | category | mode | cases | MRR@10 | R@1 | R@5 | R@10 | nDCG@10 files | nDCG@10 chunks | nDCG@10 binary | exact | p50 ms | p95 ms | chars | ~tokens | failures |\n");
    s.push_str(
        "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for row in &r.rows {
        s.push_str(&format!(
            "| {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {} | {} | {} | {:.1} | {:.1} | {:.0} | {:.0} | {} |\n",
            row.suite, row.category, row.mode, row.cases, row.mrr10, row.recall1, row.recall5, row.recall10,
            fmt_opt(row.ndcg10_files), fmt_opt(row.ndcg10_chunks), fmt_opt(row.ndcg10_binary),
            fmt_opt(row.exact), row.p50_ms, row.p95_ms, row.avg_chars, row.avg_tokens, row.failures
        ));
    }
    for l in &r.arm_loss {
        let scope = if l.scope == "all" {
            String::new()
        } else {
            format!(" ({})", l.scope)
        };
        s.push_str(&format!(
            "\n{}{scope}: hybrid below its better arm by >{} (nDCG@10 chunks): {} of {}",
            l.suite,
            run::ARM_LOSS_MARGIN,
            l.below,
            l.cases
        ));
    }
    if !r.arm_loss.is_empty() {
        s.push('\n');
    }
    if !r.answer_size.is_empty() {
        s.push_str("\nanswer size of `search` (characters, mean / p95):\n");
        for a in &r.answer_size {
            let text = match (a.text_mean, a.text_p95) {
                (Some(m), Some(p)) => format!("; text {m:.0} / {p:.0}"),
                _ => String::new(),
            };
            s.push_str(&format!(
                "- {} [{}], {} answers: JSON {:.0} / {:.0}{text}\n",
                a.suite, a.mode, a.answers, a.json_mean, a.json_p95
            ));
        }
    }
    let failures: Vec<&CaseResult> = r.cases.iter().filter(|c| c.error.is_some()).collect();
    if !failures.is_empty() {
        s.push_str(&format!("\n{} failed cases:\n", failures.len()));
        for f in failures.iter().take(20) {
            s.push_str(&format!(
                "- {}/{} [{}]: {}\n",
                f.suite,
                f.id,
                f.mode,
                f.error.as_deref().unwrap_or("")
            ));
        }
    }
    s
}

#[allow(clippy::disallowed_methods)] // the report printer
fn print_report(r: &RunReport, json: bool) -> Result<()> {
    let mut out = std::io::stdout().lock();
    if json {
        writeln!(out, "{}", serde_json::to_string(r)?)?;
    } else {
        write!(out, "{}", markdown(r))?;
    }
    Ok(())
}

#[allow(clippy::disallowed_methods)] // prints a saved report
fn cmd_report(
    results: &Path,
    run: Option<String>,
    compare: Option<Vec<String>>,
    json: bool,
) -> Result<ExitCode> {
    if let Some(pair) = compare {
        let (a, b) = (
            load_report(results, pair.first().map(String::as_str))?,
            load_report(results, pair.get(1).map(String::as_str))?,
        );
        let key = |r: &Row| (r.suite.clone(), r.category.clone(), r.mode.clone());
        let old: BTreeMap<_, &Row> = a.rows.iter().map(|r| (key(r), r)).collect();
        let mut out = std::io::stdout().lock();
        let mut deltas = Vec::new();
        for rb in &b.rows {
            if let Some(ra) = old.get(&key(rb)) {
                deltas.push(serde_json::json!({
                    "suite": rb.suite, "category": rb.category, "mode": rb.mode,
                    "mrr10": [ra.mrr10, rb.mrr10, rb.mrr10 - ra.mrr10],
                    "recall10": [ra.recall10, rb.recall10, rb.recall10 - ra.recall10],
                    "ndcg10_files": ndcg_delta(ra.ndcg10_files, rb.ndcg10_files),
                    "ndcg10_chunks": ndcg_delta(ra.ndcg10_chunks, rb.ndcg10_chunks),
                    "ndcg10_binary": ndcg_delta(ra.ndcg10_binary, rb.ndcg10_binary),
                    "p50_ms": [ra.p50_ms, rb.p50_ms, rb.p50_ms - ra.p50_ms],
                }));
            }
        }
        if json {
            writeln!(out, "{}", serde_json::Value::Array(deltas))?;
        } else {
            writeln!(
                out,
                "A = {} ({}), B = {} ({})\n",
                stamp(a.started_unix),
                a.commit,
                stamp(b.started_unix),
                b.commit
            )?;
            writeln!(
                out,
                "| suite | category | mode | MRR@10 A | MRR@10 B | Δ | R@10 Δ | nDCG@10 chunks Δ | p50 ms Δ |"
            )?;
            writeln!(out, "|---|---|---|---:|---:|---:|---:|---:|---:|")?;
            for rb in &b.rows {
                if let Some(ra) = old.get(&key(rb)) {
                    writeln!(
                        out,
                        "| {} | {} | {} | {:.3} | {:.3} | {:+.3} | {:+.3} | {} | {:+.1} |",
                        rb.suite,
                        rb.category,
                        rb.mode,
                        ra.mrr10,
                        rb.mrr10,
                        rb.mrr10 - ra.mrr10,
                        rb.recall10 - ra.recall10,
                        match (ra.ndcg10_chunks, rb.ndcg10_chunks) {
                            (Some(a), Some(b)) => format!("{:+.3}", b - a),
                            _ => "-".into(),
                        },
                        rb.p50_ms - ra.p50_ms
                    )?;
                }
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    let r = load_report(results, run.as_deref())?;
    print_report(&r, json)?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    #[test]
    fn stamps_utc() {
        assert_eq!(super::stamp(0), "19700101-000000");
        assert_eq!(super::stamp(1_795_402_359), "20261123-025239");
    }

    #[test]
    fn markdown_shows_ndcg_columns_and_arm_loss() {
        let row = super::Row {
            suite: "agent".into(),
            category: "split:check".into(),
            mode: "hybrid".into(),
            cases: 2,
            mrr10: 0.5,
            recall1: 0.0,
            recall5: 0.5,
            recall10: 1.0,
            exact: None,
            ndcg10_files: Some(0.75),
            ndcg10_chunks: None,
            ndcg10_binary: Some(0.625),
            p50_ms: 1.0,
            p95_ms: 2.0,
            avg_chars: 4.0,
            avg_tokens: 1.0,
            failures: 0,
        };
        let r = super::RunReport {
            started_unix: 0,
            commit: "c".into(),
            machine: super::Machine {
                cores: 2,
                os: "linux".into(),
                arch: "x86_64".into(),
            },
            settings: super::RunSettings {
                suites: vec![],
                through: "cli".into(),
                modes: vec!["hybrid".into(), "bm25".into()],
                baseline: None,
                limit: 10,
                version: "0".into(),
                embed: "fast".into(),
                recency: "auto".into(),
            },
            rows: vec![row],
            cases: vec![],
            arm_loss: vec![super::ArmLoss {
                suite: "agent".into(),
                scope: "split:check".into(),
                below: 1,
                cases: 2,
            }],
            answer_size: vec![super::AnswerSize {
                suite: "agent".into(),
                mode: "hybrid".into(),
                answers: 2,
                json_mean: 1500.4,
                json_p95: 1900.0,
                text_mean: Some(1200.0),
                text_p95: None,
            }],
        };
        let md = super::markdown(&r);
        assert!(
            md.contains("- agent [hybrid], 2 answers: JSON 1500 / 1900\n"),
            "{md}"
        );
        assert!(
            md.contains("| nDCG@10 files | nDCG@10 chunks | nDCG@10 binary |"),
            "{md}"
        );
        assert!(
            md.contains("| 1.000 | 0.750 | - | 0.625 | - |"),
            "files and binary shown, chunks and exact `-`: {md}"
        );
        assert!(
            md.contains(
                "agent (split:check): hybrid below its better arm by >0.1 (nDCG@10 chunks): 1 of 2"
            ),
            "{md}"
        );
    }
}
