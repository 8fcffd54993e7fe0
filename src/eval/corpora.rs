//! Owns eval corpora: `evals/corpora.toml` recipes, fetching them from the
//! package registries with their ordinary clients (pip, cargo, npm, apt) into a cache
//! outside the repository, checking sha256 sums, and making "blanked" copies
//! in which the lines a suite lists (docstrings its queries were made from)
//! are emptied, keeping every line number.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde::Deserialize;

use crate::error::{ErrorCode, UserError};
use crate::eval::cases::Span;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "kind", rename_all = "kebab-case")]
pub enum Recipe {
    /// This repository itself (the directory holding `evals/`).
    #[serde(rename = "self")]
    SelfRepo {
        #[serde(default)]
        description: String,
        /// The repository's main language (rows are aggregated per language).
        #[serde(default)]
        lang: Option<String>,
        /// Which half of the tune/check split the corpus belongs to.
        #[serde(default)]
        split: Option<Split>,
    },
    /// A source distribution from the Python package index:
    /// `pip download --no-binary :all: --no-deps PACKAGE`.
    PipSdist {
        #[serde(default)]
        description: String,
        /// The repository's main language (rows are aggregated per language).
        #[serde(default)]
        lang: Option<String>,
        /// Which half of the tune/check split the corpus belongs to.
        #[serde(default)]
        split: Option<Split>,
        package: String,
        archive: String,
        sha256: String,
        dir: String,
    },
    /// A wheel from the Python package index, for projects that publish no
    /// source distribution but ship their sources inside the wheel (the Zig
    /// toolchain's standard library): `pip download --only-binary :all:
    /// --no-deps PACKAGE` into the corpus's own directory, checked against
    /// `sha256` (so `archive` names this machine's platform tag), unpacked
    /// with Python's `zipfile`; the corpus is `dir` inside the unpacked wheel.
    PipWheel {
        #[serde(default)]
        description: String,
        /// The repository's main language (rows are aggregated per language).
        #[serde(default)]
        lang: Option<String>,
        /// Which half of the tune/check split the corpus belongs to.
        #[serde(default)]
        split: Option<Split>,
        package: String,
        archive: String,
        sha256: String,
        dir: String,
    },
    /// Crate sources: `cargo fetch` on a pinned manifest + lock file in the
    /// repository, then the listed crates copied out of cargo's cache.
    Cargo {
        #[serde(default)]
        description: String,
        /// The repository's main language (rows are aggregated per language).
        #[serde(default)]
        lang: Option<String>,
        /// Which half of the tune/check split the corpus belongs to.
        #[serde(default)]
        split: Option<Split>,
        manifest: String,
        crates: Vec<String>,
    },
    /// A package tarball: `npm pack PACKAGE --pack-destination DIR`, checked
    /// against `sha256` and unpacked under a directory named after the corpus
    /// (`dir` is what the tarball unpacks to, usually `package`).
    Npm {
        #[serde(default)]
        description: String,
        /// The repository's main language (rows are aggregated per language).
        #[serde(default)]
        lang: Option<String>,
        /// Which half of the tune/check split the corpus belongs to.
        #[serde(default)]
        split: Option<Split>,
        package: String,
        archive: String,
        sha256: String,
        dir: String,
    },
    /// A Debian binary package that ships sources (`golang-*-dev`, `ruby-*`,
    /// `php-*`, ...): `apt-get download PACKAGE=VERSION`, checked against
    /// `sha256`, unpacked with `dpkg-deb -x` into `root` under a directory
    /// named after the corpus; the corpus is `root/dir`.
    Deb {
        #[serde(default)]
        description: String,
        /// The repository's main language (rows are aggregated per language).
        #[serde(default)]
        lang: Option<String>,
        /// Which half of the tune/check split the corpus belongs to.
        #[serde(default)]
        split: Option<Split>,
        package: String,
        version: String,
        archive: String,
        sha256: String,
        dir: String,
    },
    /// The upstream (`orig`) tarball of a Debian source package, for
    /// libraries whose binary packages ship no sources (`*-java` jars,
    /// compiled C libraries): `apt-get source --download-only
    /// PACKAGE=VERSION` against a private copy of the machine's apt sources
    /// turned into `deb-src` entries (the machine's own configuration is
    /// left alone), `archive` checked against `sha256` and unpacked with
    /// `tar` into `root` under a directory named after the corpus; the
    /// corpus is `root/dir`. Debian's patches are not applied.
    DebSource {
        #[serde(default)]
        description: String,
        /// The repository's main language (rows are aggregated per language).
        #[serde(default)]
        lang: Option<String>,
        /// Which half of the tune/check split the corpus belongs to.
        #[serde(default)]
        split: Option<Split>,
        package: String,
        version: String,
        archive: String,
        sha256: String,
        dir: String,
    },
}

/// The split of the corpora: cases on `tune` corpora may guide changes,
/// cases on `check` corpora only confirm them, and cases on `holdout`
/// corpora (written last, from reading the code without running the
/// search) are only reported: no change is chosen or kept by them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Split {
    Tune,
    Check,
    Holdout,
}

impl Split {
    pub fn name(self) -> &'static str {
        match self {
            Split::Tune => "tune",
            Split::Check => "check",
            Split::Holdout => "holdout",
        }
    }
}

impl Recipe {
    /// The repository's main language, when the recipe gives it.
    pub fn lang(&self) -> Option<&str> {
        match self {
            Recipe::SelfRepo { lang, .. }
            | Recipe::PipSdist { lang, .. }
            | Recipe::PipWheel { lang, .. }
            | Recipe::Cargo { lang, .. }
            | Recipe::Npm { lang, .. }
            | Recipe::Deb { lang, .. }
            | Recipe::DebSource { lang, .. } => lang.as_deref(),
        }
    }

    /// The split the corpus belongs to, when the recipe gives it.
    pub fn split(&self) -> Option<Split> {
        match self {
            Recipe::SelfRepo { split, .. }
            | Recipe::PipSdist { split, .. }
            | Recipe::PipWheel { split, .. }
            | Recipe::Cargo { split, .. }
            | Recipe::Npm { split, .. }
            | Recipe::Deb { split, .. }
            | Recipe::DebSource { split, .. } => *split,
        }
    }

    /// The recipe's description.
    pub fn description(&self) -> &str {
        match self {
            Recipe::SelfRepo { description, .. }
            | Recipe::PipSdist { description, .. }
            | Recipe::PipWheel { description, .. }
            | Recipe::Cargo { description, .. }
            | Recipe::Npm { description, .. }
            | Recipe::Deb { description, .. }
            | Recipe::DebSource { description, .. } => description,
        }
    }
}

pub type Corpora = BTreeMap<String, Recipe>;

pub fn load_corpora(evals_dir: &Path) -> Result<Corpora> {
    let path = evals_dir.join("corpora.toml");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read `{}`", path.display()))?;
    parse_corpora(&text).map_err(|msg| {
        UserError::new(format!("invalid `{}`: {msg}", path.display()))
            .hint(
                "each corpus is a table with kind = \"self\" | \"pip-sdist\" | \"pip-wheel\" | \"cargo\" | \"npm\" | \"deb\" | \"deb-source\", \
                 optional lang = \"python\" and split = \"tune\" | \"check\"",
            )
            .into()
    })
}

fn parse_corpora(text: &str) -> std::result::Result<Corpora, String> {
    toml::from_str(text).map_err(|e: toml::de::Error| e.message().to_string())
}

/// The cache for fetched corpora: `$REPO_SEARCH_EVAL_CACHE`, else
/// `~/.cache/repo-search-corpora`.
pub fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("REPO_SEARCH_EVAL_CACHE").filter(|d| !d.is_empty()) {
        return PathBuf::from(d);
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(std::env::temp_dir);
    home.join(".cache").join("repo-search-corpora")
}

fn run(cmd: &mut Command, what: &str) -> Result<()> {
    tracing::info!("running {cmd:?}");
    let out = cmd.output().with_context(|| format!("cannot run {what}"))?;
    if !out.status.success() {
        bail!(
            "{what} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(())
}

fn sha256_of(file: &Path) -> Result<String> {
    let out = Command::new("sha256sum")
        .arg(file)
        .output()
        .context("cannot run sha256sum")?;
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(text
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string())
}

/// Makes sure the corpus is on disk and returns its directory.
pub fn fetch(name: &str, recipe: &Recipe, repo_root: &Path) -> Result<PathBuf> {
    let cache = cache_dir();
    match recipe {
        Recipe::SelfRepo { .. } => Ok(repo_root.to_path_buf()),
        Recipe::PipSdist {
            package,
            archive,
            sha256,
            dir,
            ..
        } => {
            let target = cache.join(dir);
            if target.is_dir() {
                return Ok(target);
            }
            std::fs::create_dir_all(&cache)?;
            let file = cache.join(archive);
            if !file.exists() {
                eprintln!("fetching corpus `{name}` ({package}) ...");
                run(
                    Command::new("python3")
                        .args([
                            "-m",
                            "pip",
                            "download",
                            "--quiet",
                            "--no-binary",
                            ":all:",
                            "--no-deps",
                            package,
                            "-d",
                        ])
                        .arg(&cache),
                    "pip download",
                )?;
            }
            let got = sha256_of(&file)?;
            if &got != sha256 {
                bail!(
                    "corpus `{name}`: sha256 of `{}` is {got}, expected {sha256}",
                    file.display()
                );
            }
            run(
                Command::new("tar")
                    .arg("xzf")
                    .arg(&file)
                    .arg("-C")
                    .arg(&cache),
                "tar",
            )?;
            if !target.is_dir() {
                bail!(
                    "corpus `{name}`: `{}` did not contain `{dir}`",
                    file.display()
                );
            }
            Ok(target)
        }
        Recipe::PipWheel {
            package,
            archive,
            sha256,
            dir,
            ..
        } => fetch_pip_wheel(name, package, archive, sha256, dir, &cache.join(name)),
        Recipe::Npm {
            package,
            archive,
            sha256,
            dir,
            ..
        } => fetch_npm(name, package, archive, sha256, dir, &cache.join(name)),
        Recipe::Deb {
            package,
            version,
            archive,
            sha256,
            dir,
            ..
        } => fetch_deb(
            name,
            package,
            version,
            archive,
            sha256,
            dir,
            &cache.join(name),
        ),
        Recipe::DebSource {
            package,
            version,
            archive,
            sha256,
            dir,
            ..
        } => fetch_deb_source(
            name,
            package,
            version,
            archive,
            sha256,
            dir,
            &cache.join(name),
        ),
        Recipe::Cargo {
            manifest, crates, ..
        } => {
            let target = cache.join(name);
            if target.join(".complete").exists() {
                return Ok(target);
            }
            let manifest = repo_root.join(manifest);
            eprintln!("fetching corpus `{name}` (cargo fetch) ...");
            run(
                Command::new("cargo")
                    .args(["fetch", "--locked", "--manifest-path"])
                    .arg(&manifest),
                "cargo fetch",
            )?;
            let lock = std::fs::read_to_string(manifest.with_file_name("Cargo.lock"))
                .context("cannot read the corpus Cargo.lock")?;
            let versions = lock_versions(&lock);
            let cargo_home = std::env::var_os("CARGO_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
                .context("cannot find CARGO_HOME")?;
            let src_root = cargo_home.join("registry").join("src");
            std::fs::create_dir_all(&target)?;
            for krate in crates {
                let version = versions
                    .get(krate.as_str())
                    .with_context(|| format!("crate `{krate}` is not in the corpus Cargo.lock"))?;
                let dirname = format!("{krate}-{version}");
                let src = std::fs::read_dir(&src_root)?
                    .filter_map(|e| e.ok())
                    .map(|e| e.path().join(&dirname))
                    .find(|p| p.is_dir())
                    .with_context(|| {
                        format!("`{dirname}` not found under `{}`", src_root.display())
                    })?;
                copy_tree(&src, &target.join(&dirname))?;
            }
            std::fs::write(target.join(".complete"), "")?;
            Ok(target)
        }
    }
}

/// A corpus fetched as one archive into `home` (its own directory in the
/// cache): downloaded by `download` when missing, checked against `sha256`,
/// unpacked by `unpack` into `unpack_root` (a partial unpack from an
/// interrupted run is removed first), marked complete; returns
/// `unpack_root/dir`.
struct Archive<'a> {
    name: &'a str,
    /// What `download` fetches, for messages.
    what: String,
    archive: &'a str,
    sha256: &'a str,
    dir: &'a str,
    home: &'a Path,
    unpack_root: PathBuf,
}

impl Archive<'_> {
    fn fetch(
        &self,
        download: impl FnOnce() -> Result<()>,
        unpack: impl FnOnce(&Path) -> Result<()>,
    ) -> Result<PathBuf> {
        let name = self.name;
        let target = self.unpack_root.join(self.dir);
        let done = self.home.join(".complete");
        if done.exists() && target.is_dir() {
            return Ok(target);
        }
        std::fs::create_dir_all(self.home)?;
        let file = self.home.join(self.archive);
        if !file.exists() {
            eprintln!("fetching corpus `{name}` ({}) ...", self.what);
            download()?;
            if !file.exists() {
                bail!(
                    "corpus `{name}`: fetching {} did not write `{}`",
                    self.what,
                    file.display()
                );
            }
        }
        let got = sha256_of(&file)?;
        if got != self.sha256 {
            bail!(
                "corpus `{name}`: sha256 of `{}` is {got}, expected {}",
                file.display(),
                self.sha256
            );
        }
        // A partial unpack from an interrupted run: a directory of its own
        // (`root/` of the Debian kinds) goes whole, else only the target
        // (the archive itself sits beside it).
        let partial = if self.unpack_root == self.home {
            &target
        } else {
            &self.unpack_root
        };
        if partial.exists() {
            std::fs::remove_dir_all(partial)?;
        }
        std::fs::create_dir_all(&self.unpack_root)?;
        unpack(&file)?;
        if !target.is_dir() {
            bail!(
                "corpus `{name}`: `{}` did not contain `{}`",
                file.display(),
                self.dir
            );
        }
        std::fs::write(&done, "")?;
        Ok(target)
    }
}

/// `npm pack` of `package` into `home`, unpacked there; returns `home/dir`.
fn fetch_npm(
    name: &str,
    package: &str,
    archive: &str,
    sha256: &str,
    dir: &str,
    home: &Path,
) -> Result<PathBuf> {
    let a = Archive {
        name,
        what: package.to_string(),
        archive,
        sha256,
        dir,
        home,
        unpack_root: home.to_path_buf(),
    };
    a.fetch(
        || {
            run(
                Command::new("npm")
                    .args(["pack", "--silent", package, "--pack-destination"])
                    .arg(home)
                    .current_dir(home),
                "npm pack",
            )
        },
        |file| {
            run(
                Command::new("tar").arg("xzf").arg(file).arg("-C").arg(home),
                "tar",
            )
        },
    )
}

/// `pip download --only-binary :all: --no-deps PACKAGE` into `home`,
/// unpacked with `python3 -m zipfile -e` into `home/root`; returns
/// `home/root/dir`.
fn fetch_pip_wheel(
    name: &str,
    package: &str,
    archive: &str,
    sha256: &str,
    dir: &str,
    home: &Path,
) -> Result<PathBuf> {
    let root = home.join("root");
    let a = Archive {
        name,
        what: package.to_string(),
        archive,
        sha256,
        dir,
        home,
        unpack_root: root.clone(),
    };
    a.fetch(
        || {
            run(
                Command::new("python3")
                    .args([
                        "-m",
                        "pip",
                        "download",
                        "--quiet",
                        "--only-binary",
                        ":all:",
                        "--no-deps",
                        package,
                        "-d",
                    ])
                    .arg(home),
                "pip download",
            )
        },
        |file| {
            run(
                Command::new("python3")
                    .args(["-m", "zipfile", "-e"])
                    .arg(file)
                    .arg(&root),
                "python3 -m zipfile",
            )
        },
    )
}

/// `apt-get download PACKAGE=VERSION` into `home`, unpacked with
/// `dpkg-deb -x` into `home/root`; returns `home/root/dir`.
fn fetch_deb(
    name: &str,
    package: &str,
    version: &str,
    archive: &str,
    sha256: &str,
    dir: &str,
    home: &Path,
) -> Result<PathBuf> {
    let spec = format!("{package}={version}");
    let root = home.join("root");
    let a = Archive {
        name,
        what: format!("{package} {version}"),
        archive,
        sha256,
        dir,
        home,
        unpack_root: root.clone(),
    };
    a.fetch(
        || {
            let download = |opts: &[String]| {
                run(
                    Command::new("apt-get")
                        .args(["download", "-q"])
                        .args(opts)
                        .arg(&spec)
                        .current_dir(home),
                    "apt-get download",
                )
            };
            let Err(first) = download(&[]) else {
                return Ok(());
            };
            // A new machine's package lists are often missing or older than
            // the pinned version (a point release replaces a package's
            // entry): read them afresh into a private state, as root or not,
            // and try once more.
            tracing::info!("corpus `{name}`: {first:#}; updating a private copy of the package lists");
            let opts = refreshed_apt_state(name, home, AptKind::Binary)?;
            let second = download(&opts);
            std::fs::remove_dir_all(home.join("apt"))?;
            second.map_err(|e| -> anyhow::Error {
                UserError::with_code(ErrorCode::Failed, format!("corpus `{name}`: {e:#}"))
                    .hint("the machine's apt sources must reach Debian's archive; check `apt-cache policy PACKAGE`")
                    .into()
            })
        },
        |file| {
            run(
                Command::new("dpkg-deb").arg("-x").arg(file).arg(&root),
                "dpkg-deb -x",
            )
        },
    )
}

/// `apt-get source --download-only PACKAGE=VERSION` into `home`, with apt's
/// source lists, index and cache under `home/apt` (the machine's `deb`
/// entries turned into `deb-src` ones, then `apt-get update` on that private
/// state, removed once the download is done); the orig tarball is unpacked
/// with `tar` into `home/root`; returns `home/root/dir`.
fn fetch_deb_source(
    name: &str,
    package: &str,
    version: &str,
    archive: &str,
    sha256: &str,
    dir: &str,
    home: &Path,
) -> Result<PathBuf> {
    let spec = format!("{package}={version}");
    let root = home.join("root");
    let a = Archive {
        name,
        what: format!("source package {package} {version}"),
        archive,
        sha256,
        dir,
        home,
        unpack_root: root.clone(),
    };
    a.fetch(
        || {
            let opts = refreshed_apt_state(name, home, AptKind::Source)?;
            let hint = "the machine's apt sources must reach Debian's archive; \
                        check `apt-get update` and `apt-cache policy`";
            let download = |spec: &str| {
                run(
                    Command::new("apt-get")
                        .args(["source", "--download-only", "-q"])
                        .args(&opts)
                        .arg(spec)
                        .current_dir(home),
                    "apt-get source --download-only",
                )
            };
            let mut downloaded = download(&spec);
            if downloaded.is_err() && !home.join(archive).is_file() {
                // The archive keeps only a package's latest revision: a
                // security update (nginx 1.22.1-9+deb12u11 → u12) removes
                // the pinned one, yet the orig tarball, all that is used,
                // is the same file; its sha256 is checked next, so the
                // current revision is as good.
                tracing::info!(
                    "corpus `{name}`: {spec} is no longer in the archive; trying the current revision of {package}"
                );
                if download(package).is_ok() || home.join(archive).is_file() {
                    downloaded = Ok(());
                }
            }
            // The source index is only needed for this download.
            std::fs::remove_dir_all(home.join("apt"))?;
            match downloaded {
                Ok(()) => Ok(()),
                // apt fetches the orig tarball first and fails the whole
                // download when a later file of the package (the Debian
                // tarball, json4s's and dnlib's here) is missing from the
                // archive: only the orig tarball is used, and its sha256
                // is checked next.
                Err(e) if home.join(archive).is_file() => {
                    tracing::info!(
                        "corpus `{name}`: {e:#}; the orig tarball {archive} was downloaded, going on with it"
                    );
                    Ok(())
                }
                Err(e) => Err(UserError::with_code(
                    ErrorCode::Failed,
                    format!("corpus `{name}`: {e:#}"),
                )
                .hint(hint)
                .into()),
            }
        },
        |file| {
            run(
                Command::new("tar").arg("xf").arg(file).arg("-C").arg(&root),
                "tar",
            )
        },
    )
}

/// The apt options of a private apt state under `home/apt`
/// ([`private_apt_state`]) whose package lists were just read afresh. A
/// failed update is only logged: another source of the machine may be
/// unreachable or (for sources) have no `deb-src` side, and the download
/// after it says whether the one needed is there.
fn refreshed_apt_state(name: &str, home: &Path, kind: AptKind) -> Result<Vec<String>> {
    let opts = private_apt_state(&home.join("apt"), kind)?;
    let label = match kind {
        AptKind::Binary => "apt-get update",
        AptKind::Source => "apt-get update (deb-src)",
    };
    if let Err(e) = run(
        Command::new("apt-get")
            .args(["update", "-q"])
            .args(&opts)
            .current_dir(home),
        label,
    ) {
        tracing::warn!("corpus `{name}`: {e:#}");
    }
    Ok(opts)
}

/// Which entries of the machine's apt sources a private apt state lists.
#[derive(Clone, Copy, PartialEq, Eq)]
enum AptKind {
    /// The `deb` entries as they are (binary packages).
    Binary,
    /// A `deb-src` twin of each `deb` entry (source packages).
    Source,
}

/// Writes `state/sources/` with the `deb` entries of the machine's apt
/// sources (as `apt-config` locates them), as they are or as `deb-src`
/// twins, and returns the apt options that make `apt-get` use them, with
/// its index and cache under `state` too (so no root is needed and the
/// machine's own lists are left alone).
fn private_apt_state(state: &Path, kind: AptKind) -> Result<Vec<String>> {
    let out = Command::new("apt-config")
        .args([
            "shell",
            "LIST",
            "Dir::Etc::sourcelist/f",
            "PARTS",
            "Dir::Etc::sourceparts/d",
        ])
        .output()
        .context("cannot run apt-config")?;
    let mut list = None;
    let mut parts = None;
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        if let Some((key, value)) = line.split_once('=') {
            let value = PathBuf::from(value.trim().trim_matches('\''));
            match key.trim() {
                "LIST" => list = Some(value),
                "PARTS" => parts = Some(value),
                _ => {}
            }
        }
    }
    let mut files: Vec<PathBuf> = list.into_iter().collect();
    if let Some(parts) = parts
        && let Ok(entries) = std::fs::read_dir(&parts)
    {
        let mut more: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "list" || x == "sources"))
            .collect();
        more.sort();
        files.extend(more);
    }
    let sources = state.join("sources");
    if sources.exists() {
        std::fs::remove_dir_all(&sources)?;
    }
    std::fs::create_dir_all(&sources)?;
    let mut written = 0;
    for (i, file) in files.iter().enumerate() {
        let Ok(text) = std::fs::read_to_string(file) else {
            continue;
        };
        let deb822 = file.extension().is_some_and(|x| x == "sources");
        let entries = match kind {
            AptKind::Binary => text,
            AptKind::Source if deb822 => deb822_src_twin(&text),
            AptKind::Source => one_line_src_twin(&text),
        };
        if !entries.trim().is_empty() {
            let ext = if deb822 { "sources" } else { "list" };
            std::fs::write(sources.join(format!("{i:02}.{ext}")), entries)?;
            written += 1;
        }
    }
    if written == 0 {
        return Err(UserError::with_code(
            ErrorCode::Failed,
            "no `deb` entry in the machine's apt sources",
        )
        .hint("configure apt's sources (see `apt-config dump | grep Dir::Etc`)")
        .into());
    }
    let empty = state.join("empty.list");
    std::fs::write(&empty, "")?;
    for d in [
        state.join("lists").join("partial"),
        state.join("cache").join("archives").join("partial"),
    ] {
        std::fs::create_dir_all(d)?;
    }
    let opt = |k: &str, v: &Path| vec!["-o".to_string(), format!("{k}={}", v.display())];
    Ok([
        opt("Dir::Etc::SourceList", &empty),
        opt("Dir::Etc::SourceParts", &sources),
        opt("Dir::State::Lists", &state.join("lists")),
        opt("Dir::Cache", &state.join("cache")),
    ]
    .concat())
}

/// The `deb-src` lines for the `deb` lines of a one-line-style sources list.
fn one_line_src_twin(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("deb")
            && rest.starts_with([' ', '\t'])
        {
            out.push_str("deb-src");
            out.push_str(rest);
            out.push('\n');
        }
    }
    out
}

/// The stanzas of a deb822 `.sources` file whose `Types` include `deb`, with
/// `Types: deb-src`.
fn deb822_src_twin(text: &str) -> String {
    let mut out = String::new();
    for stanza in text.split("\n\n") {
        let mut lines = Vec::new();
        let mut binary = false;
        for line in stanza.lines() {
            match line.split_once(':') {
                Some((key, value)) if key.trim().eq_ignore_ascii_case("types") => {
                    binary = value.split_whitespace().any(|t| t == "deb");
                    lines.push("Types: deb-src");
                }
                _ if line.trim().is_empty() => {}
                _ => lines.push(line),
            }
        }
        if binary {
            out.push_str(&lines.join("\n"));
            out.push_str("\n\n");
        }
    }
    out
}

/// name → version from a Cargo.lock (first version listed per name).
fn lock_versions(lock: &str) -> BTreeMap<&str, &str> {
    let mut out = BTreeMap::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"'));
        } else if let (Some(v), Some(n)) = (line.strip_prefix("version = "), name) {
            out.entry(n).or_insert(v.trim_matches('"'));
            name = None;
        }
    }
    out
}

/// Copies a directory tree (files and directories; symlinks skipped).
pub fn copy_tree(src: &Path, dst: &Path) -> Result<()> {
    std::fs::create_dir_all(dst)?;
    for entry in
        std::fs::read_dir(src).with_context(|| format!("cannot list `{}`", src.display()))?
    {
        let entry = entry?;
        let ty = entry.file_type()?;
        let to = dst.join(entry.file_name());
        if ty.is_dir() {
            if entry.file_name() == crate::store::INDEX_DIR {
                continue;
            }
            copy_tree(&entry.path(), &to)?;
        } else if ty.is_file() {
            std::fs::copy(entry.path(), &to)?;
        }
    }
    Ok(())
}

/// Returns a copy of `dir` where `blank` lines are emptied (line numbers
/// kept), creating it once per distinct set of blanks.
pub fn blanked_copy(name: &str, dir: &Path, blank: &[Span]) -> Result<PathBuf> {
    if blank.is_empty() {
        return Ok(dir.to_path_buf());
    }
    let mut key: Vec<String> = blank
        .iter()
        .map(|s| format!("{}:{}:{}", s.path, s.start_line, s.end_line))
        .collect();
    key.sort();
    key.dedup();
    let hash = xxhash_rust::xxh3::xxh3_64(key.join("\n").as_bytes());
    let target = cache_dir().join(format!("{name}-blank-{hash:016x}"));
    if target.join(".complete").exists() {
        return Ok(target);
    }
    if target.exists() {
        std::fs::remove_dir_all(&target)?;
    }
    copy_tree(dir, &target)?;
    let mut by_file: BTreeMap<&str, Vec<&Span>> = BTreeMap::new();
    for s in blank {
        by_file.entry(s.path.as_str()).or_default().push(s);
    }
    for (path, spans) in by_file {
        let file = target.join(path);
        let text = std::fs::read_to_string(&file)
            .with_context(|| format!("cannot blank `{}`", file.display()))?;
        let mut lines: Vec<&str> = text.split('\n').collect();
        for s in spans {
            for n in s.start_line..=s.end_line {
                if let Some(l) = lines.get_mut(n as usize - 1) {
                    *l = "";
                }
            }
        }
        std::fs::write(&file, lines.join("\n"))?;
    }
    std::fs::write(target.join(".complete"), key.join("\n"))?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_lock_versions() {
        let lock = "[[package]]\nname = \"a\"\nversion = \"1.2.3\"\n\n[[package]]\nname = \"b\"\nversion = \"0.1.0\"\n";
        let v = lock_versions(lock);
        assert_eq!(v.get("a"), Some(&"1.2.3"));
        assert_eq!(v.get("b"), Some(&"0.1.0"));
    }

    #[test]
    fn reads_lang_split_and_npm_recipes() {
        let c = parse_corpora(
            r#"
[express]
kind = "npm"
lang = "javascript"
split = "check"
package = "express@4.21.2"
archive = "express-4.21.2.tgz"
sha256 = "00"
dir = "package"

[django]
kind = "pip-sdist"
lang = "python"
split = "tune"
package = "django==5.1.15"
archive = "django-5.1.15.tar.gz"
sha256 = "00"
dir = "django-5.1.15"

[self]
kind = "self"
"#,
        )
        .expect("valid");
        let e = &c["express"];
        assert!(matches!(e, Recipe::Npm { dir, .. } if dir == "package"));
        assert_eq!(e.lang(), Some("javascript"));
        assert_eq!(e.split(), Some(Split::Check));
        assert_eq!(c["django"].split(), Some(Split::Tune));
        assert_eq!(c["self"].lang(), None);
        assert_eq!(c["self"].split(), None);
    }

    #[test]
    fn reads_deb_recipe_and_rejects_unknown_fields() {
        let deb = r#"
[cobra]
kind = "deb"
description = "Go CLI library"
lang = "go"
split = "tune"
package = "golang-github-spf13-cobra-dev"
version = "1.6.1-1"
archive = "golang-github-spf13-cobra-dev_1.6.1-1_all.deb"
sha256 = "00"
dir = "usr/share/gocode/src/github.com/spf13/cobra"
"#;
        let c = parse_corpora(deb).expect("valid");
        let r = &c["cobra"];
        assert!(matches!(
            r,
            Recipe::Deb { package, version, archive, dir, .. }
                if package == "golang-github-spf13-cobra-dev"
                    && version == "1.6.1-1"
                    && archive == "golang-github-spf13-cobra-dev_1.6.1-1_all.deb"
                    && dir == "usr/share/gocode/src/github.com/spf13/cobra"
        ));
        assert_eq!(r.lang(), Some("go"));
        assert_eq!(r.split(), Some(Split::Tune));
        assert_eq!(r.description(), "Go CLI library");
        let err = parse_corpora(&format!("{deb}suite = \"x\"\n")).expect_err("unknown");
        assert!(err.contains("suite"), "{err}");
        let err = parse_corpora(&deb.replace("version = \"1.6.1-1\"\n", ""))
            .expect_err("missing version");
        assert!(err.contains("version"), "{err}");
    }

    #[test]
    fn reads_deb_source_recipe() {
        let c = parse_corpora(
            r#"
[jq]
kind = "deb-source"
lang = "c"
split = "holdout"
package = "jq"
version = "1.6-2.1+deb12u2"
archive = "jq_1.6.orig.tar.gz"
sha256 = "00"
dir = "jq-jq-1.6"
"#,
        )
        .expect("valid");
        let r = &c["jq"];
        assert!(matches!(
            r,
            Recipe::DebSource { package, version, archive, dir, .. }
                if package == "jq"
                    && version == "1.6-2.1+deb12u2"
                    && archive == "jq_1.6.orig.tar.gz"
                    && dir == "jq-jq-1.6"
        ));
        assert_eq!(r.lang(), Some("c"));
        assert_eq!(r.split(), Some(Split::Holdout));
    }

    #[test]
    fn reads_pip_wheel_recipe() {
        let c = parse_corpora(
            r#"
[zig]
kind = "pip-wheel"
lang = "zig"
split = "holdout"
package = "ziglang==0.17.0"
archive = "ziglang-0.17.0-py3-none-manylinux_2_12_x86_64.whl"
sha256 = "00"
dir = "ziglang/lib/std"
"#,
        )
        .expect("valid");
        let r = &c["zig"];
        assert!(matches!(
            r,
            Recipe::PipWheel { package, archive, dir, .. }
                if package == "ziglang==0.17.0"
                    && archive == "ziglang-0.17.0-py3-none-manylinux_2_12_x86_64.whl"
                    && dir == "ziglang/lib/std"
        ));
        assert_eq!(r.lang(), Some("zig"));
        assert_eq!(r.split(), Some(Split::Holdout));
    }

    #[test]
    fn derives_deb_src_entries_from_apt_sources() {
        let one = "# main\ndeb http://mirror.invalid/debian bookworm main\n\
                   deb [arch=amd64] http://mirror.invalid/x stable main\n\
                   deb-src http://mirror.invalid/debian bookworm main\n";
        assert_eq!(
            one_line_src_twin(one),
            "deb-src http://mirror.invalid/debian bookworm main\n\
             deb-src [arch=amd64] http://mirror.invalid/x stable main\n"
        );
        let deb822 = "Types: deb\nURIs: http://mirror.invalid/debian\nSuites: bookworm\n\
                      Components: main\n\nTypes: deb-src\nURIs: http://mirror.invalid/y\n\
                      Suites: s\nComponents: main\n\n\nTypes: deb deb-src\n\
                      URIs: http://mirror.invalid/z\nSuites: t\nComponents: main\n";
        assert_eq!(
            deb822_src_twin(deb822),
            "Types: deb-src\nURIs: http://mirror.invalid/debian\nSuites: bookworm\n\
             Components: main\n\nTypes: deb-src\nURIs: http://mirror.invalid/z\n\
             Suites: t\nComponents: main\n\n"
        );
    }

    /// The retry of a failed `apt-get download` reads the package lists
    /// afresh from the machine's own sources, into a private state.
    #[test]
    fn a_private_binary_apt_state_lists_the_machines_entries_as_they_are() {
        if Command::new("apt-config")
            .arg("--version")
            .output()
            .is_err()
        {
            eprintln!("skipping: no apt on this machine");
            return;
        }
        let dir = tempfile::tempdir().expect("temp dir");
        let opts = private_apt_state(dir.path(), AptKind::Binary).expect("private state");
        let lists = format!("Dir::State::Lists={}", dir.path().join("lists").display());
        assert!(opts.contains(&lists), "{opts:?}");
        assert!(dir.path().join("lists").join("partial").is_dir());
        let written: Vec<String> = std::fs::read_dir(dir.path().join("sources"))
            .expect("sources")
            .map(|e| std::fs::read_to_string(e.expect("entry").path()).expect("text"))
            .collect();
        assert!(!written.is_empty());
        assert!(
            written.iter().any(|t| t
                .lines()
                .any(|l| l.starts_with("deb ") || l.trim_start().starts_with("Types: deb"))),
            "{written:?}"
        );
    }

    #[test]
    fn rejects_bad_split_and_unknown_fields() {
        let err =
            parse_corpora("[self]\nkind = \"self\"\nsplit = \"train\"\n").expect_err("bad split");
        assert!(err.contains("train"), "{err}");
        let err =
            parse_corpora("[self]\nkind = \"self\"\nlanguage = \"rust\"\n").expect_err("unknown");
        assert!(err.contains("language"), "{err}");
    }
}
