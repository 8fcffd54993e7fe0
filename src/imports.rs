//! The import graph's rules, pure: which project file an import names
//! (resolved at query time against the indexed paths, so a moved or
//! deleted target never leaves a stale edge), and the lookup keys that
//! find the candidate importers of a file ([`row_key`] at index time,
//! [`Project::target_keys`] at query time). Reading rows and go.mod files
//! is the service's job (`service/imports.rs`).

use std::collections::{HashMap, HashSet};

use crate::model::Lang;

/// Extensions a relative JS/TS specifier may leave out, in the order a
/// TypeScript importer tries them.
const JS_EXTS: [&str; 8] = [
    ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".json",
];

/// The order a JavaScript importer tries them: the runtime loads the
/// script, not its declarations (react-native-webview's `index.js`
/// requiring `./lib/WebView` loads `lib/WebView.js`, not `WebView.d.ts`).
const JS_EXTS_FROM_SCRIPT: [&str; 8] = [
    ".js", ".jsx", ".mjs", ".cjs", ".ts", ".tsx", ".d.ts", ".json",
];

/// What an import resolves to: a file, or a Go package (or Java wildcard):
/// a directory and its source files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    File(String),
    Package { dir: String, files: Vec<String> },
}

impl Target {
    /// The file or directory path.
    pub fn path(&self) -> &str {
        match self {
            Target::File(p) => p,
            Target::Package { dir, .. } => dir,
        }
    }

    pub fn contains(&self, file: &str) -> bool {
        match self {
            Target::File(p) => p == file,
            Target::Package { files, .. } => files.iter().any(|f| f == file),
        }
    }
}

/// Languages whose imports can name each other's files.
fn family(lang: Lang) -> u8 {
    match lang {
        Lang::Python => 1,
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => 2,
        Lang::Rust => 3,
        Lang::Go => 4,
        Lang::Java | Lang::Kotlin | Lang::Scala => 5,
        Lang::C | Lang::Cpp | Lang::ObjC => 6,
        Lang::Ruby => 7,
        Lang::Php => 8,
        Lang::Lua => 9,
        Lang::Haskell => 10,
        Lang::Elixir => 11,
        Lang::Zig => 12,
        Lang::Erlang => 13,
        Lang::Julia => 14,
        _ => 0,
    }
}

/// True when a file of `importer` language may import one of `target`.
pub fn same_family(importer: Lang, target: Lang) -> bool {
    let f = family(importer);
    f != 0 && f == family(target)
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

fn base_of(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, b)| b)
}

/// The file name without its extension (`a.d.ts` → `a`).
fn stem_of(path: &str) -> &str {
    let base = base_of(path);
    let s = base.split_once('.').map_or(base, |(s, _)| s);
    if s.is_empty() { base } else { s }
}

fn join(dir: &str, rest: &str) -> String {
    if dir.is_empty() {
        rest.to_string()
    } else if rest.is_empty() {
        dir.to_string()
    } else {
        format!("{dir}/{rest}")
    }
}

/// `a/./b/../c` → `a/c`; `None` when `..` climbs above the root.
fn normalize(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for seg in path.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            s => out.push(s),
        }
    }
    Some(out.join("/"))
}

/// The ancestor `n` levels above `dir` (`n = 0` is `dir`).
fn up(dir: &str, n: usize) -> Option<&str> {
    let mut d = dir;
    for _ in 0..n {
        if d.is_empty() {
            return None;
        }
        d = dir_of(d);
    }
    Some(d)
}

/// The key under which an import row of the file at `path` is found when
/// asking who imports a file: the last segment of the module as written,
/// without extension, or for a relative marker (`.`, `..`, `self`,
/// `super`) the name of the directory it stands for. It is one of
/// [`Project::target_keys`] of every file the import can resolve to (or
/// the row's `name` is, for `from pkg import module` and `use a::{module}`).
pub fn row_key(lang: Lang, path: &str, module: &str) -> String {
    let dir = dir_of(path);
    match family(lang) {
        1 => {
            let rest = module.trim_start_matches('.');
            if rest.is_empty() {
                let n = module.len();
                return up(dir, n.saturating_sub(1))
                    .map(base_of)
                    .unwrap_or_default()
                    .to_string();
            }
            rest.rsplit('.').next().unwrap_or(rest).to_string()
        }
        3 => {
            let segs: Vec<&str> = module.split("::").collect();
            let last = segs.last().copied().unwrap_or_default();
            match last {
                "crate" => "crate".into(),
                "self" | "super" => {
                    let supers = segs.iter().filter(|s| **s == "super").count();
                    // The directory that holds the current module's children.
                    let own = if matches!(stem_of(path), "mod" | "lib" | "main") {
                        dir.to_string()
                    } else {
                        join(dir, stem_of(path))
                    };
                    up(&own, supers)
                        .map(base_of)
                        .unwrap_or_default()
                        .to_string()
                }
                s => s.to_string(),
            }
        }
        2 => {
            let last = module
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or("");
            if matches!(last, "" | "." | "..") {
                "index".into()
            } else {
                stem_of(last).to_string()
            }
        }
        4 => module.rsplit('/').next().unwrap_or(module).to_string(),
        5 | 10 => module.rsplit('.').next().unwrap_or(module).to_string(),
        9 => module
            .trim_end_matches(".lua")
            .rsplit(['.', '/'])
            .next()
            .unwrap_or(module)
            .to_string(),
        // A module's file is its last segment in snake case (`Mix.CLI`:
        // `cli.ex`).
        11 => elixir_file_name(module.rsplit('.').next().unwrap_or(module)),
        6 | 7 | 12..=14 => stem_of(module).to_string(),
        // A class (`A\B\C`) or a required path (`./x.php`).
        8 => stem_of(module.rsplit('\\').next().unwrap_or(module)).to_string(),
        _ => String::new(),
    }
}

/// The indexed files of a project, with the lookups resolution needs.
pub struct Project<'a> {
    files: HashSet<&'a str>,
    by_name: HashMap<&'a str, Vec<&'a str>>,
    by_dir: HashMap<&'a str, Vec<&'a str>>,
    /// Directory → the module path its `go.mod` declares.
    go_mods: HashMap<String, String>,
    /// A Rust library crate's name (as code writes it, `-` as `_`) → its
    /// root file (`src/lib.rs` beside the `Cargo.toml` naming it).
    rust_crates: HashMap<String, String>,
    /// A Java, Kotlin or Scala package → the files declaring it, and each
    /// such file's package.
    packages: HashMap<String, Vec<String>>,
    package_of: HashMap<String, String>,
}

impl<'a> Project<'a> {
    pub fn new(paths: impl IntoIterator<Item = &'a str>) -> Project<'a> {
        let mut p = Project {
            files: HashSet::new(),
            by_name: HashMap::new(),
            by_dir: HashMap::new(),
            go_mods: HashMap::new(),
            rust_crates: HashMap::new(),
            packages: HashMap::new(),
            package_of: HashMap::new(),
        };
        for path in paths {
            p.files.insert(path);
            p.by_name.entry(base_of(path)).or_default().push(path);
            p.by_dir.entry(dir_of(path)).or_default().push(path);
        }
        for v in p.by_dir.values_mut().chain(p.by_name.values_mut()) {
            v.sort_unstable();
        }
        p
    }

    /// The directories whose `go.mod` (if any) Go resolution reads: those of
    /// Go files and their ancestors.
    pub fn go_dirs(&self) -> Vec<String> {
        let mut dirs: HashSet<&str> = HashSet::new();
        for f in self.files.iter().filter(|f| f.ends_with(".go")) {
            let mut d = dir_of(f);
            while dirs.insert(d) && !d.is_empty() {
                d = dir_of(d);
            }
        }
        let mut v: Vec<String> = dirs.into_iter().map(str::to_string).collect();
        v.sort();
        v
    }

    /// The directories whose `Cargo.toml` (if any) names a library crate:
    /// those holding a `src/lib.rs`.
    pub fn rust_package_dirs(&self) -> Vec<String> {
        let mut v: Vec<String> = self
            .files
            .iter()
            .filter(|f| **f == "src/lib.rs" || f.ends_with("/src/lib.rs"))
            .map(|f| dir_of(dir_of(f)).to_string())
            .collect();
        v.sort();
        v
    }

    /// Records the crate name the `Cargo.toml` in `dir` declares: a
    /// crate's integration tests, examples and binaries name it in their
    /// paths (`use tokio::sync::oneshot`).
    pub fn set_rust_crate(&mut self, dir: &str, name: &str) {
        self.rust_crates
            .insert(name.replace('-', "_"), join(dir, "src/lib.rs"));
    }

    /// Records the package each Java, Kotlin or Scala file declares
    /// (`(path, package)`): Kotlin's source sets and Scala's files need not
    /// spell it in their directories (`kotlinx.coroutines` in
    /// `common/kotlinx-coroutines-core-common/src/`).
    pub fn set_packages(&mut self, rows: Vec<(String, String)>) {
        for (path, package) in rows {
            self.packages
                .entry(package.clone())
                .or_default()
                .push(path.clone());
            // A Scala file's first package (`package a.b` before a
            // nested `package c { … }`).
            self.package_of.entry(path).or_insert(package);
        }
    }

    /// The files that declare `package`, its live source before its tests
    /// when it has both (a test directory often shares the package).
    fn package_files(&self, package: &str) -> Option<Vec<&str>> {
        let files = self.packages.get(package)?;
        let live: Vec<&str> = files
            .iter()
            .map(String::as_str)
            .filter(|f| !crate::search::is_test_path(f))
            .collect();
        Some(if live.is_empty() {
            files.iter().map(String::as_str).collect()
        } else {
            live
        })
    }

    /// A class by the package its file declares: `a.b.C` (or a nested
    /// class's outer one) in a file `C.kt`/`C.java`/`C.scala` of package
    /// `a.b`; a wildcard's package as its files.
    fn by_package(&self, segs: &[&str], name: Option<&str>) -> Option<Target> {
        if name == Some("*") {
            let files = self.package_files(&segs.join("."))?;
            let dir = dir_of(files.first()?).to_string();
            return Some(Target::Package {
                dir,
                files: files.iter().map(|f| f.to_string()).collect(),
            });
        }
        (1..segs.len()).rev().find_map(|k| {
            let files = self.package_files(&segs[..k].join("."))?;
            files
                .iter()
                .find(|f| stem_of(f) == segs[k])
                .map(|f| Target::File(f.to_string()))
        })
    }

    /// Records the module path of the `go.mod` in `dir`.
    pub fn set_go_mod(&mut self, dir: String, module: String) {
        self.go_mods.insert(dir, module);
    }

    fn has(&self, path: &str) -> bool {
        self.files.contains(path)
    }

    /// The first of `candidates` that is a project file.
    fn first(&self, candidates: impl IntoIterator<Item = String>) -> Option<Target> {
        candidates
            .into_iter()
            .find(|c| self.has(c))
            .map(Target::File)
    }

    /// Files whose path ends with `suffix` at a `/` boundary, nearest to
    /// `importer` first (longest shared directory prefix, then shortest).
    fn by_suffix(&self, suffix: &str, importer: &str) -> Vec<&'a str> {
        let Some(list) = self.by_name.get(base_of(suffix)) else {
            return Vec::new();
        };
        let mut hits: Vec<&'a str> = list
            .iter()
            .copied()
            .filter(|p| {
                *p == suffix
                    || (p.len() > suffix.len()
                        && p.ends_with(suffix)
                        && p.as_bytes()[p.len() - suffix.len() - 1] == b'/')
            })
            .collect();
        hits.sort_by_key(|p| (std::cmp::Reverse(shared_dirs(p, importer)), p.len()));
        hits
    }

    /// The source files directly in `dir` with extension `ext`, without
    /// tests (`_test.go`).
    fn package(&self, dir: &str, ext: &str) -> Option<Target> {
        let files: Vec<String> = self
            .by_dir
            .get(dir)?
            .iter()
            .filter(|f| f.ends_with(ext) && !f.ends_with("_test.go"))
            .map(|f| f.to_string())
            .collect();
        (!files.is_empty()).then(|| Target::Package {
            dir: dir.to_string(),
            files,
        })
    }

    /// The project file (or package) an import of `importer` names, if it
    /// names one other than `importer` itself.
    pub fn resolve(
        &self,
        lang: Lang,
        importer: &str,
        module: &str,
        name: Option<&str>,
        kind: &str,
    ) -> Option<Target> {
        let t = self.resolve_any(lang, importer, module, name, kind)?;
        (t.path() != importer).then_some(t)
    }

    /// [`Project::resolve`], `importer` itself included: Rust's `use
    /// self::error::*` of an inline `mod error { … }` names its own file.
    pub fn resolve_any(
        &self,
        lang: Lang,
        importer: &str,
        module: &str,
        name: Option<&str>,
        kind: &str,
    ) -> Option<Target> {
        match family(lang) {
            1 => self.python(importer, module, name),
            2 => self.js(importer, module),
            3 => self.rust(importer, module, name, kind),
            4 => self.go(importer, module),
            5 => self.java(importer, module, name),
            6 => self.include(importer, module),
            7 => self.ruby(importer, module, kind),
            8 => self.php(importer, module, kind),
            9 => self.lua(importer, module),
            10 => self.haskell(importer, module),
            11 => self.elixir(importer, module),
            // A package name (`@import("std")`) is not a file.
            12 => module
                .ends_with(".zig")
                .then(|| self.relative(importer, module))
                .flatten(),
            13 => self.erlang(importer, module, kind),
            14 => self.relative(importer, module),
            _ => None,
        }
    }

    fn python(&self, importer: &str, module: &str, name: Option<&str>) -> Option<Target> {
        let sub = name.filter(|n| *n != "*");
        let rest = module.trim_start_matches('.');
        let dots = module.len() - rest.len();
        let rel = rest.replace('.', "/");
        let with_name = |base: &str| sub.map(|n| join(base, n));
        if dots > 0 {
            let base = join(up(dir_of(importer), dots - 1)?, &rel);
            let mut cands = Vec::new();
            if let Some(b) = with_name(&base) {
                cands.push(format!("{b}.py"));
                cands.push(join(&b, "__init__.py"));
            }
            if !rel.is_empty() {
                cands.push(format!("{base}.py"));
            }
            cands.push(join(&base, "__init__.py"));
            return self.first(cands);
        }
        let mut mods = Vec::new();
        if let Some(b) = with_name(&rel) {
            mods.push(b);
        }
        mods.push(rel);
        for m in mods {
            for suffix in [format!("{m}.py"), format!("{m}/__init__.py")] {
                // The directory above the module's top package must be a
                // source root (not a package itself): `tests/json.py` is
                // not what `import json` names.
                let top_depth = m.split('/').count() + usize::from(suffix.ends_with("__init__.py"));
                if let Some(hit) = self.by_suffix(&suffix, importer).into_iter().find(|p| {
                    let above = up(dir_of(p), top_depth - 1).unwrap_or_default();
                    !self.has(&join(above, "__init__.py"))
                }) {
                    return Some(Target::File(hit.to_string()));
                }
            }
        }
        None
    }

    fn js(&self, importer: &str, module: &str) -> Option<Target> {
        if !(module.starts_with("./")
            || module.starts_with("../")
            || module == "."
            || module == "..")
        {
            return None;
        }
        let base = normalize(&join(dir_of(importer), module))?;
        let mut cands = vec![base.clone()];
        // `./x.js` written for a TypeScript source `x.ts`.
        let stripped = [".js", ".jsx", ".mjs", ".cjs"]
            .iter()
            .find_map(|e| base.strip_suffix(e))
            .map(str::to_string);
        let exts = if [".js", ".jsx", ".mjs", ".cjs"]
            .iter()
            .any(|e| importer.ends_with(e))
        {
            &JS_EXTS_FROM_SCRIPT
        } else {
            &JS_EXTS
        };
        for b in std::iter::once(&base).chain(stripped.as_ref()) {
            cands.extend(exts.iter().map(|e| format!("{b}{e}")));
        }
        cands.extend(exts.iter().map(|e| join(&base, &format!("index{e}"))));
        self.first(cands)
    }

    /// The crate root directory of a Rust file, and whether the file is
    /// itself a crate root.
    fn rust_crate(&self, file: &str) -> (String, bool) {
        let dir = dir_of(file);
        let parent = base_of(dir);
        if matches!(stem_of(file), "lib" | "main")
            || matches!(parent, "bin" | "tests" | "examples" | "benches")
            || file == "build.rs"
            || file.ends_with("/build.rs")
        {
            return (dir.to_string(), true);
        }
        let mut d = dir;
        loop {
            if self.has(&join(d, "lib.rs")) || self.has(&join(d, "main.rs")) {
                return (d.to_string(), false);
            }
            if d.is_empty() {
                return (dir.to_string(), true);
            }
            d = dir_of(d);
        }
    }

    /// The file of the module at `segs` below the crate root `root`.
    fn rust_module_file(&self, root: &str, root_file: &str, segs: &[String]) -> Option<String> {
        if segs.is_empty() {
            return Some(root_file.to_string());
        }
        let p = join(root, &segs.join("/"));
        [format!("{p}.rs"), join(&p, "mod.rs")]
            .into_iter()
            .find(|c| self.has(c))
    }

    fn rust(&self, importer: &str, module: &str, name: Option<&str>, kind: &str) -> Option<Target> {
        let (mut root, is_root) = self.rust_crate(importer);
        let stem = stem_of(importer);
        // The directory holding this module's child modules.
        let own_dir = if is_root || stem == "mod" {
            dir_of(importer).to_string()
        } else {
            join(dir_of(importer), stem)
        };
        if kind == "mod" {
            let p = join(&own_dir, module);
            return self.first([format!("{p}.rs"), join(&p, "mod.rs")]);
        }
        let mut root_file = if is_root {
            importer.to_string()
        } else {
            ["lib.rs", "main.rs"]
                .iter()
                .map(|f| join(&root, f))
                .find(|c| self.has(c))?
        };
        // This module's path below the crate root.
        let own: Vec<String> = if is_root {
            Vec::new()
        } else {
            let rel = own_dir.strip_prefix(root.as_str())?.trim_start_matches('/');
            rel.split('/')
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect()
        };
        let mut segs: Vec<&str> = module.split("::").collect();
        if let Some(n) = name.filter(|n| *n != "*") {
            segs.push(n);
        }
        let (mut path, rest): (Vec<String>, &[&str]) = match segs.first().copied() {
            Some("crate") => (Vec::new(), &segs[1..]),
            Some("self") => (own.clone(), &segs[1..]),
            Some("super") => {
                let mut p = own.clone();
                let mut i = 0;
                while segs.get(i) == Some(&"super") {
                    p.pop()?;
                    i += 1;
                }
                (p, &segs[i..])
            }
            // A child module of this one (2018 paths), else another crate:
            // the project's own library by its name.
            Some(first) => {
                let mut p = own.clone();
                p.push(first.to_string());
                if self.rust_module_file(&root, &root_file, &p).is_some() {
                    (own.clone(), &segs[..])
                } else {
                    // Read as `crate::…` of that library.
                    let lib = self.rust_crates.get(first)?;
                    root = dir_of(lib).to_string();
                    root_file = lib.clone();
                    (Vec::new(), &segs[1..])
                }
            }
            None => return None,
        };
        let anchored = path.len();
        path.extend(rest.iter().map(|s| s.to_string()));
        (anchored..=path.len())
            .rev()
            .find_map(|k| self.rust_module_file(&root, &root_file, &path[..k]))
            .map(Target::File)
    }

    fn go(&self, importer: &str, module: &str) -> Option<Target> {
        let mut d = dir_of(importer);
        loop {
            if let Some(m) = self.go_mods.get(d) {
                if module == m {
                    return self.package(d, ".go");
                }
                if let Some(rest) = module
                    .strip_prefix(m.as_str())
                    .and_then(|r| r.strip_prefix('/'))
                {
                    return self.package(&join(d, rest), ".go");
                }
                break;
            }
            if d.is_empty() {
                break;
            }
            d = dir_of(d);
        }
        // Vendored or another module of the tree, by path suffix; standard
        // library paths (no dot in their first element) never.
        if !module.split('/').next().is_some_and(|s| s.contains('.')) {
            return None;
        }
        let mut dirs: Vec<&&str> = self
            .by_dir
            .keys()
            .filter(|d| **d == module || d.ends_with(&format!("/{module}")))
            .collect();
        dirs.sort();
        dirs.into_iter().find_map(|d| self.package(d, ".go"))
    }

    /// Java and Kotlin, which import each other's classes: the importer's
    /// own language's files first.
    fn java(&self, importer: &str, module: &str, name: Option<&str>) -> Option<Target> {
        let segs: Vec<&str> = module.split('.').collect();
        if let Some(t) = self.by_package(&segs, name) {
            return Some(t);
        }
        let exts: [&str; 3] = if importer.ends_with(".kt") || importer.ends_with(".kts") {
            [".kt", ".java", ".scala"]
        } else if importer.ends_with(".scala") {
            [".scala", ".java", ".kt"]
        } else {
            [".java", ".kt", ".scala"]
        };
        if name == Some("*") {
            // A package: its directory, by suffix.
            let rel = segs.join("/");
            let mut dirs: Vec<&&str> = self
                .by_dir
                .keys()
                .filter(|d| **d == rel || d.ends_with(&format!("/{rel}")))
                .collect();
            dirs.sort();
            for ext in exts {
                if let Some(t) = dirs.iter().find_map(|d| self.package(d, ext)) {
                    return Some(t);
                }
            }
        }
        // A class, or a nested class's outer class.
        let class = (2..=segs.len()).rev().find_map(|k| {
            exts.iter().find_map(|ext| {
                let suffix = format!("{}{ext}", segs[..k].join("/"));
                self.by_suffix(&suffix, importer)
                    .first()
                    .map(|p| Target::File(p.to_string()))
            })
        });
        if class.is_some() || exts[0] != ".kt" {
            return class;
        }
        // Kotlin's source sets leave out the common package prefix
        // (`kotlinx.coroutines.Job` in `common/src/Job.kt`, its `internal`
        // package in `common/src/internal/`): the package's trailing
        // directories, nearest the importer first.
        let tail = |j: usize| segs.get(j..).map(|s| s.join("/"));
        if name == Some("*") {
            return (1..segs.len()).find_map(|j| {
                let rel = tail(j)?;
                let mut dirs: Vec<&&str> = self
                    .by_dir
                    .keys()
                    .filter(|d| d.ends_with(&format!("/{rel}")))
                    .collect();
                dirs.sort_by_key(|d| (std::cmp::Reverse(shared_dirs(d, importer)), d.len(), **d));
                dirs.into_iter().find_map(|d| self.package(d, ".kt"))
            });
        }
        (1..segs.len()).find_map(|j| {
            let suffix = format!("{}.kt", tail(j)?);
            self.by_suffix(&suffix, importer)
                .first()
                .map(|p| Target::File(p.to_string()))
        })
    }

    /// `require_relative` from the file's directory; `require`, `load` and
    /// `autoload` by the path's suffix (a load path such as `lib/`), the
    /// file nearest the importer first. A one-word `require 'json'` is a
    /// project file only directly in a `lib/` directory or at the root, not
    /// whichever nested file shares the standard library's name.
    fn ruby(&self, importer: &str, module: &str, kind: &str) -> Option<Target> {
        let file = if module.ends_with(".rb") {
            module.to_string()
        } else {
            format!("{module}.rb")
        };
        if kind == "require_relative" || file.starts_with("./") || file.starts_with("../") {
            return normalize(&join(dir_of(importer), &file))
                .filter(|p| self.has(p))
                .map(Target::File);
        }
        let file = normalize(&file)?;
        if !file.contains('/') {
            return [file.clone(), format!("lib/{file}")]
                .into_iter()
                .chain(
                    self.by_suffix(&format!("lib/{file}"), importer)
                        .iter()
                        .map(|p| p.to_string()),
                )
                .find(|p| self.has(p))
                .map(Target::File);
        }
        self.by_suffix(&file, importer)
            .first()
            .map(|p| Target::File(p.to_string()))
    }

    /// `use A\B\C`: the class's file by the longest suffix of its
    /// namespace path that exists (PSR-4 maps a namespace prefix to a
    /// directory, so `Predis\Connection\Factory` is
    /// `src/Connection/Factory.php`), the class name alone only at a source
    /// root. `require`: relative to the file, then by suffix, as a C
    /// `#include` is found.
    fn php(&self, importer: &str, module: &str, kind: &str) -> Option<Target> {
        if kind == "require" {
            return self.include(importer, module);
        }
        let segs: Vec<&str> = module.split('\\').filter(|s| !s.is_empty()).collect();
        (1..=segs.len()).rev().find_map(|k| {
            let suffix = format!("{}.php", segs[segs.len() - k..].join("/"));
            self.by_suffix(&suffix, importer)
                .into_iter()
                // The class name alone only at a source root (`Client.php`,
                // `src/Client.php` for `Predis\Client`), not any file of
                // that name.
                .find(|p| k > 1 || matches!(dir_of(p), "" | "src" | "lib"))
                .map(|p| Target::File(p.to_string()))
        })
    }

    /// A path relative to the importing file's directory (Julia's
    /// `include("x.jl")`, Zig's `@import("x.zig")`).
    fn relative(&self, importer: &str, module: &str) -> Option<Target> {
        normalize(&join(dir_of(importer), module))
            .filter(|p| self.has(p))
            .map(Target::File)
    }

    /// `require "a.b"`: `a/b.lua` or `a/b/init.lua` below any directory
    /// (a rock's `src/`, `lua/`), nearest the importer first. A one-word
    /// module only at the root or directly in `src/`, `lua/` or `lib/`, not
    /// whichever nested file shares a standard library's name.
    fn lua(&self, importer: &str, module: &str) -> Option<Target> {
        let rel = module.trim_end_matches(".lua").replace('.', "/");
        let rel = normalize(&rel)?;
        let one_word = !rel.contains('/');
        [format!("{rel}.lua"), format!("{rel}/init.lua")]
            .iter()
            .find_map(|suffix| {
                self.by_suffix(suffix, importer)
                    .into_iter()
                    .find(|p| {
                        let top = if suffix.ends_with("/init.lua") {
                            dir_of(dir_of(p))
                        } else {
                            dir_of(p)
                        };
                        !one_word || matches!(top, "" | "src" | "lua" | "lib")
                    })
                    .map(|p| Target::File(p.to_string()))
            })
    }

    /// `import Data.Map.Strict`: `Data/Map/Strict.hs` (or `.lhs`, `.hsc`)
    /// below any source directory, nearest the importer first.
    fn haskell(&self, importer: &str, module: &str) -> Option<Target> {
        let rel = module.replace('.', "/");
        [".hs", ".lhs", ".hsc"].iter().find_map(|ext| {
            self.by_suffix(&format!("{rel}{ext}"), importer)
                .first()
                .map(|p| Target::File(p.to_string()))
        })
    }

    /// `alias Mix.Tasks.Compile`: the file the convention gives it,
    /// `mix/tasks/compile.ex` (each segment in snake case), nearest the
    /// importer first; failing that, the longest trailing part of it (a
    /// project's `lib/` leaves out its own top module now and then). A
    /// one-segment module only directly in `lib/` or at the root.
    fn elixir(&self, importer: &str, module: &str) -> Option<Target> {
        let segs: Vec<String> = module.split('.').map(elixir_file_name).collect();
        (1..=segs.len()).rev().find_map(|k| {
            let suffix = format!("{}.ex", segs[segs.len() - k..].join("/"));
            self.by_suffix(&suffix, importer)
                .into_iter()
                .find(|p| k > 1 || matches!(dir_of(p), "" | "lib"))
                .map(|p| Target::File(p.to_string()))
        })
    }

    /// `-include("x.hrl")` as a C `#include`; `-include_lib("app/include/x.hrl")`
    /// names an application's directory, which a project's tree may
    /// spell with its version or not at all: the path, then the path
    /// below the application's name.
    fn erlang(&self, importer: &str, module: &str, kind: &str) -> Option<Target> {
        self.include(importer, module).or_else(|| {
            let (_, below) = module.split_once('/').filter(|_| kind == "include_lib")?;
            self.by_suffix(below, importer)
                .first()
                .map(|p| Target::File(p.to_string()))
        })
    }

    fn include(&self, importer: &str, module: &str) -> Option<Target> {
        if let Some(p) = normalize(&join(dir_of(importer), module))
            && self.has(&p)
        {
            return Some(Target::File(p));
        }
        let m = normalize(module)?;
        // A standard header (`<assert.h>`, `<math.h>`) is the system's,
        // not whichever project file shares its name (redis's
        // `deps/jemalloc/test/include/test/math.h`), unless the project
        // keeps its own in an `include/` directory (a C library's).
        let standard = is_standard_c_header(&m);
        self.by_suffix(&m, importer)
            .into_iter()
            .find(|p| !standard || base_of(dir_of(p)) == "include")
            .map(|p| Target::File(p.to_string()))
    }

    /// The keys under which other files' import rows may name `path`
    /// (see [`row_key`]): its stem, its directory's name, `crate` for a
    /// Rust crate root, the last element of a Go module path.
    pub fn target_keys(&self, lang: Lang, path: &str) -> Vec<String> {
        let dir = dir_of(path);
        let mut keys = vec![stem_of(path).to_string()];
        if !dir.is_empty() {
            keys.push(base_of(dir).to_string());
        }
        if lang == Lang::Rust && matches!(stem_of(path), "lib" | "main") {
            keys.push("crate".into());
        }
        if lang == Lang::Go
            && let Some(m) = self.go_mods.get(dir)
        {
            keys.push(m.rsplit('/').next().unwrap_or(m).to_string());
        }
        if family(lang) == 2 {
            keys.push("index".into());
        }
        // `import kotlinx.coroutines.*` is found under `coroutines`.
        if let Some(package) = self.package_of.get(path) {
            keys.push(package.rsplit('.').next().unwrap_or(package).to_string());
        }
        keys.sort();
        keys.dedup();
        keys
    }
}

/// An Elixir module name's file name as `Macro.underscore` writes it:
/// `HTTPServer` → `http_server`, `CLI` → `cli`, `GenServer` → `gen_server`.
fn elixir_file_name(segment: &str) -> String {
    let chars: Vec<char> = segment.chars().collect();
    let mut out = String::with_capacity(segment.len() + 4);
    for (i, c) in chars.iter().enumerate() {
        if c.is_uppercase() && i > 0 {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                out.push('_');
            }
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// How many leading path elements two paths share.
fn shared_dirs(a: &str, b: &str) -> usize {
    a.split('/')
        .zip(b.split('/'))
        .take_while(|(x, y)| x == y)
        .count()
}

/// The headers of the C library and POSIX, named without a directory.
fn is_standard_c_header(name: &str) -> bool {
    matches!(
        name,
        "assert.h"
            | "complex.h"
            | "ctype.h"
            | "errno.h"
            | "fenv.h"
            | "float.h"
            | "inttypes.h"
            | "iso646.h"
            | "limits.h"
            | "locale.h"
            | "math.h"
            | "setjmp.h"
            | "signal.h"
            | "stdalign.h"
            | "stdarg.h"
            | "stdatomic.h"
            | "stdbool.h"
            | "stddef.h"
            | "stdint.h"
            | "stdio.h"
            | "stdlib.h"
            | "stdnoreturn.h"
            | "string.h"
            | "tgmath.h"
            | "threads.h"
            | "time.h"
            | "uchar.h"
            | "wchar.h"
            | "wctype.h"
            | "unistd.h"
            | "fcntl.h"
            | "pthread.h"
            | "dirent.h"
            | "dlfcn.h"
            | "poll.h"
            | "sched.h"
            | "semaphore.h"
            | "strings.h"
            | "termios.h"
            | "syslog.h"
            | "pwd.h"
            | "grp.h"
            | "netdb.h"
            | "glob.h"
            | "fnmatch.h"
            | "regex.h"
            | "libgen.h"
            | "utime.h"
            | "malloc.h"
            | "memory.h"
            | "alloca.h"
            | "getopt.h"
            | "search.h"
            | "spawn.h"
            | "iconv.h"
            | "langinfo.h"
            | "monetary.h"
            | "nl_types.h"
            | "ulimit.h"
            | "utmpx.h"
            | "wordexp.h"
            | "aio.h"
            | "cpio.h"
            | "tar.h"
            | "fmtmsg.h"
            | "ftw.h"
            | "mqueue.h"
            | "ndbm.h"
            | "stropts.h"
            | "trace.h"
            | "endian.h"
            | "err.h"
            | "execinfo.h"
    )
}

/// The module path a `go.mod` declares.
/// The `name` of a `Cargo.toml`'s `[package]` table.
pub fn cargo_package_name(text: &str) -> Option<String> {
    let mut in_package = false;
    for l in text.lines() {
        let l = l.split('#').next().unwrap_or_default().trim();
        if l.starts_with('[') {
            in_package = l == "[package]";
            continue;
        }
        if in_package
            && let Some((k, v)) = l.split_once('=')
            && k.trim() == "name"
        {
            let v = v.trim().trim_matches('"').trim_matches('\'');
            return (!v.is_empty()).then(|| v.to_string());
        }
    }
    None
}

pub fn go_mod_module(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let l = l.split("//").next().unwrap_or_default().trim();
        let m = l.strip_prefix("module")?.trim().trim_matches('"');
        (!m.is_empty()).then(|| m.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(paths: &[&'static str]) -> Project<'static> {
        Project::new(paths.iter().copied())
    }

    fn file(t: Option<Target>) -> Option<String> {
        t.map(|t| t.path().to_string())
    }

    #[test]
    fn python_absolute_relative_and_source_roots() {
        let p = project(&[
            "src/pkg/__init__.py",
            "src/pkg/a.py",
            "src/pkg/sub/__init__.py",
            "src/pkg/sub/b.py",
            "tests/__init__.py",
            "tests/json.py",
        ]);
        let r =
            |imp: &str, m: &str, n: Option<&str>| file(p.resolve(Lang::Python, imp, m, n, "from"));
        assert_eq!(r("x.py", "pkg.a", None).as_deref(), Some("src/pkg/a.py"));
        assert_eq!(
            r("x.py", "pkg", Some("sub")).as_deref(),
            Some("src/pkg/sub/__init__.py")
        );
        assert_eq!(
            r("x.py", "pkg.sub", Some("b")).as_deref(),
            Some("src/pkg/sub/b.py")
        );
        assert_eq!(
            r("x.py", "pkg.sub", Some("Thing")).as_deref(),
            Some("src/pkg/sub/__init__.py")
        );
        assert_eq!(
            r("src/pkg/sub/b.py", ".", Some("x")).as_deref(),
            Some("src/pkg/sub/__init__.py")
        );
        assert_eq!(
            r("src/pkg/sub/b.py", "..", Some("a")).as_deref(),
            Some("src/pkg/a.py")
        );
        assert_eq!(
            r("src/pkg/sub/b.py", "..a", Some("f")).as_deref(),
            Some("src/pkg/a.py")
        );
        assert_eq!(
            r("x.py", "json", None),
            None,
            "tests/ is a package, not a root"
        );
        assert_eq!(r("x.py", "os", None), None);
    }

    #[test]
    fn keys_of_rows_are_among_keys_of_their_targets() {
        assert_eq!(row_key(Lang::Python, "a/b/c.py", "."), "b");
        assert_eq!(row_key(Lang::Python, "a/b/c.py", ".."), "a");
        assert_eq!(row_key(Lang::Python, "a/b/c.py", "x.y"), "y");
        assert_eq!(row_key(Lang::Rust, "src/a/b.rs", "super"), "a");
        assert_eq!(row_key(Lang::Rust, "src/a/mod.rs", "super"), "src");
        assert_eq!(row_key(Lang::Rust, "src/a/b.rs", "self"), "b");
        assert_eq!(row_key(Lang::TypeScript, "a.ts", "./x/y.js"), "y");
        assert_eq!(row_key(Lang::TypeScript, "a.ts", "."), "index");
        assert_eq!(row_key(Lang::Go, "a.go", "example.com/m/util"), "util");
        assert_eq!(row_key(Lang::C, "a.c", "x/y.h"), "y");
        let p = project(&["src/lib.rs", "src/a/mod.rs"]);
        assert!(
            p.target_keys(Lang::Rust, "src/a/mod.rs")
                .contains(&"a".to_string())
        );
        assert!(
            p.target_keys(Lang::Rust, "src/lib.rs")
                .contains(&"crate".to_string())
        );
    }

    #[test]
    fn rust_tests_name_their_own_crate() {
        let mut p = project(&[
            "pkg/src/lib.rs",
            "pkg/src/sync/oneshot.rs",
            "pkg/tests/t.rs",
        ]);
        let toml = "[package]\nname = \"my-crate\" # the crate\nversion = \"1.0\"\n\n[dependencies]\nname = \"x\"\n";
        let name = cargo_package_name(toml);
        assert_eq!(name.as_deref(), Some("my-crate"));
        assert_eq!(p.rust_package_dirs(), ["pkg"]);
        p.set_rust_crate("pkg", "my-crate");
        let r =
            |m: &str, n: Option<&str>| file(p.resolve(Lang::Rust, "pkg/tests/t.rs", m, n, "use"));
        assert_eq!(
            r("my_crate::sync", Some("oneshot")).as_deref(),
            Some("pkg/src/sync/oneshot.rs")
        );
        assert_eq!(
            r("my_crate", Some("Thing")).as_deref(),
            Some("pkg/src/lib.rs")
        );
        assert_eq!(r("other_crate::sync", Some("oneshot")), None);
        // An inline module is in the importing file itself.
        let importer = "pkg/src/sync/oneshot.rs";
        assert_eq!(
            file(p.resolve_any(Lang::Rust, importer, "self::error", Some("*"), "use")).as_deref(),
            Some(importer)
        );
        assert_eq!(
            file(p.resolve(Lang::Rust, importer, "self::error", Some("*"), "use")),
            None
        );
    }

    #[test]
    fn rust_mod_and_use() {
        let p = project(&[
            "src/lib.rs",
            "src/store/mod.rs",
            "src/store/read.rs",
            "src/service.rs",
            "src/service/lookup.rs",
            "tests/it/main.rs",
            "tests/it/common.rs",
        ]);
        let r = |imp: &str, m: &str, n: Option<&str>, k: &str| {
            file(p.resolve(Lang::Rust, imp, m, n, k))
        };
        assert_eq!(
            r("src/lib.rs", "store", None, "mod").as_deref(),
            Some("src/store/mod.rs")
        );
        assert_eq!(
            r("src/store/mod.rs", "read", None, "mod").as_deref(),
            Some("src/store/read.rs")
        );
        assert_eq!(
            r("src/service.rs", "lookup", None, "mod").as_deref(),
            Some("src/service/lookup.rs")
        );
        assert_eq!(
            r("tests/it/main.rs", "common", None, "mod").as_deref(),
            Some("tests/it/common.rs")
        );
        assert_eq!(
            r(
                "src/service/lookup.rs",
                "crate::store::read",
                Some("Row"),
                "use"
            )
            .as_deref(),
            Some("src/store/read.rs")
        );
        assert_eq!(
            r(
                "src/service/lookup.rs",
                "crate::store",
                Some("Store"),
                "use"
            )
            .as_deref(),
            Some("src/store/mod.rs")
        );
        assert_eq!(
            r("src/service/lookup.rs", "crate", Some("Thing"), "use").as_deref(),
            Some("src/lib.rs")
        );
        assert_eq!(
            r("src/store/read.rs", "super", Some("Store"), "use").as_deref(),
            Some("src/store/mod.rs")
        );
        assert_eq!(
            r(
                "src/service/lookup.rs",
                "super::super::store",
                Some("read"),
                "use"
            )
            .as_deref(),
            Some("src/store/read.rs")
        );
        assert_eq!(
            r("src/lib.rs", "store::read", Some("X"), "use").as_deref(),
            Some("src/store/read.rs")
        );
        assert_eq!(
            r("src/lib.rs", "std::collections", Some("HashMap"), "use"),
            None
        );
    }

    #[test]
    fn js_go_java_c() {
        let mut p = project(&[
            "web/app.ts",
            "web/lib/index.ts",
            "web/util.js",
            "web/index.js",
            "web/dist/View.js",
            "web/dist/View.d.ts",
            "go/main.go",
            "go/util/a.go",
            "go/util/a_test.go",
            "java/a/b/C.java",
            "java/a/b/D.java",
            "c/main.c",
            "c/include/util/str.h",
            "c/deps/jemalloc/test/include/test/math.h",
            "c/deps/jemalloc/internal/hash.h",
            "libc/include/assert.h",
        ]);
        p.set_go_mod("go".into(), "example.com/m".into());
        let js = |m: &str| file(p.resolve(Lang::TypeScript, "web/app.ts", m, None, "import"));
        assert_eq!(js("./lib").as_deref(), Some("web/lib/index.ts"));
        assert_eq!(js("./util").as_deref(), Some("web/util.js"));
        assert_eq!(js("./util.js").as_deref(), Some("web/util.js"));
        assert_eq!(js("react"), None);
        // TypeScript reads a build's declarations, a script runs its code.
        assert_eq!(js("./dist/View").as_deref(), Some("web/dist/View.d.ts"));
        let script = file(p.resolve(
            Lang::JavaScript,
            "web/index.js",
            "./dist/View",
            None,
            "require",
        ));
        assert_eq!(script.as_deref(), Some("web/dist/View.js"));
        let go = p.resolve(Lang::Go, "go/main.go", "example.com/m/util", None, "import");
        assert_eq!(
            go,
            Some(Target::Package {
                dir: "go/util".into(),
                files: vec!["go/util/a.go".into()]
            })
        );
        assert_eq!(
            p.resolve(Lang::Go, "go/main.go", "fmt", None, "import"),
            None
        );
        let java =
            |m: &str, n: Option<&str>| file(p.resolve(Lang::Java, "java/x/Y.java", m, n, "import"));
        assert_eq!(java("a.b.C", None).as_deref(), Some("java/a/b/C.java"));
        assert_eq!(
            java("a.b.C.Inner", None).as_deref(),
            Some("java/a/b/C.java")
        );
        assert_eq!(java("a.b", Some("*")).as_deref(), Some("java/a/b"));
        assert_eq!(java("java.util.List", None), None);
        let c = |m: &str| file(p.resolve(Lang::C, "c/main.c", m, None, "include"));
        assert_eq!(
            c("include/util/str.h").as_deref(),
            Some("c/include/util/str.h")
        );
        assert_eq!(c("util/str.h").as_deref(), Some("c/include/util/str.h"));
        assert_eq!(c("stdio.h"), None);
        // A standard header is the system's, unless an `include/` holds it.
        assert_eq!(c("math.h"), None);
        assert_eq!(
            c("hash.h").as_deref(),
            Some("c/deps/jemalloc/internal/hash.h")
        );
        assert_eq!(c("assert.h").as_deref(), Some("libc/include/assert.h"));
        assert_eq!(
            go_mod_module("// x\nmodule example.com/m // c\n\ngo 1.22\n").as_deref(),
            Some("example.com/m")
        );
    }

    #[test]
    fn kotlin_ruby_php() {
        let p = project(&[
            "core/common/src/Job.kt",
            "core/common/src/internal/Atomic.kt",
            "core/jvm/src/internal/Atomic.kt",
            "core/jvm/src/Dispatchers.kt",
            "java/a/b/C.java",
            "lib/thor.rb",
            "lib/thor/base.rb",
            "lib/thor/core_ext/hash.rb",
            "lib/thor/json.rb",
            "bin/thor",
            "src/Client.php",
            "src/Connection/Factory.php",
            "src/Command/Factory.php",
            "src/Other/Client.php",
            "src/autoload.php",
        ]);
        let kt = |m: &str, n: Option<&str>| {
            file(p.resolve(Lang::Kotlin, "core/jvm/src/Dispatchers.kt", m, n, "import"))
        };
        // The package prefix left out of the source set, nearest first.
        assert_eq!(
            kt("kotlinx.coroutines.Job", None).as_deref(),
            Some("core/common/src/Job.kt")
        );
        assert_eq!(
            kt("kotlinx.coroutines.internal", Some("*")).as_deref(),
            Some("core/jvm/src/internal")
        );
        // Java's classes from Kotlin, and Kotlin's from Java.
        assert_eq!(kt("a.b.C", None).as_deref(), Some("java/a/b/C.java"));
        assert_eq!(kt("kotlin.collections.List", None), None);
        assert!(same_family(Lang::Kotlin, Lang::Java));

        let rb = |m: &str, kind: &str| file(p.resolve(Lang::Ruby, "lib/thor.rb", m, None, kind));
        assert_eq!(
            rb("thor/base", "require").as_deref(),
            Some("lib/thor/base.rb")
        );
        assert_eq!(
            rb("thor/core_ext/hash.rb", "require").as_deref(),
            Some("lib/thor/core_ext/hash.rb")
        );
        assert_eq!(
            rb("thor/base", "require_relative").as_deref(),
            Some("lib/thor/base.rb")
        );
        let rel = p.resolve(
            Lang::Ruby,
            "lib/thor/base.rb",
            "../thor",
            None,
            "require_relative",
        );
        assert_eq!(file(rel).as_deref(), Some("lib/thor.rb"));
        // The standard library's `json`, not the project's nested json.rb.
        assert_eq!(rb("json", "require"), None);
        let bin = p.resolve(Lang::Ruby, "bin/thor", "thor", None, "require");
        assert_eq!(file(bin).as_deref(), Some("lib/thor.rb"));

        let php = |m: &str, kind: &str| {
            file(p.resolve(Lang::Php, "src/Connection/Factory.php", m, None, kind))
        };
        assert_eq!(
            php("Predis\\Command\\Factory", "use").as_deref(),
            Some("src/Command/Factory.php")
        );
        // A class named alone only at a source root.
        assert_eq!(
            php("Predis\\Client", "use").as_deref(),
            Some("src/Client.php")
        );
        assert_eq!(php("Psr\\Log\\LoggerInterface", "use"), None);
        assert_eq!(
            php("../autoload.php", "require").as_deref(),
            Some("src/autoload.php")
        );
        assert_eq!(row_key(Lang::Php, "a.php", "A\\B\\Client"), "Client");
        assert_eq!(row_key(Lang::Php, "a.php", "./x/y.php"), "y");
        assert_eq!(row_key(Lang::Ruby, "a.rb", "thor/base"), "base");
    }

    #[test]
    fn jvm_imports_resolve_by_the_package_a_file_declares() {
        // kotlinx.coroutines: the package's directories are not spelled in
        // the source set, and its test directory shares the package.
        let mut p = Project::new([
            "common/core/src/Job.kt",
            "common/core/src/Builders.kt",
            "common/core/src/selects/Select.kt",
            "core/jvm/test/selects/SelectTest.kt",
            "reactive/rx2/src/RxObservable.kt",
        ]);
        p.set_packages(vec![
            ("common/core/src/Job.kt".into(), "kotlinx.coroutines".into()),
            (
                "common/core/src/Builders.kt".into(),
                "kotlinx.coroutines".into(),
            ),
            (
                "common/core/src/selects/Select.kt".into(),
                "kotlinx.coroutines.selects".into(),
            ),
            (
                "core/jvm/test/selects/SelectTest.kt".into(),
                "kotlinx.coroutines.selects".into(),
            ),
        ]);
        let rx = "reactive/rx2/src/RxObservable.kt";
        let kt = |m: &str, n: Option<&str>| p.resolve(Lang::Kotlin, rx, m, n, "import");
        assert_eq!(
            kt("kotlinx.coroutines", Some("*")),
            Some(Target::Package {
                dir: "common/core/src".into(),
                files: vec![
                    "common/core/src/Job.kt".into(),
                    "common/core/src/Builders.kt".into()
                ],
            })
        );
        assert_eq!(
            kt("kotlinx.coroutines.selects", Some("*")).map(|t| t.path().to_string()),
            Some("common/core/src/selects".into()),
            "the live source, not the tests sharing its package"
        );
        assert_eq!(
            file(kt("kotlinx.coroutines.Job", None)).as_deref(),
            Some("common/core/src/Job.kt")
        );
        assert!(
            p.target_keys(Lang::Kotlin, "common/core/src/Job.kt")
                .contains(&"coroutines".to_string()),
            "a wildcard import of its package finds it"
        );
    }

    #[test]
    fn scala_lua_haskell_elixir_zig_erlang_julia_resolve() {
        let p = Project::new([
            "src/main/scala/a/b/C.scala",
            "src/main/java/a/b/J.java",
            "src/main/scala/x/Y.scala",
            "lua/pl/utils.lua",
            "lua/pl/init.lua",
            "lua/pl/List.lua",
            "lua/pl/vendor/string.lua",
            "src/Text/Pandoc/Options.hs",
            "src/Text/Pandoc/App.hs",
            "lib/mix/cli.ex",
            "lib/mix/tasks/compile.ex",
            "lib/mix/http_server.ex",
            "lib/mix/deep/logger.ex",
            "lib/std/std.zig",
            "lib/std/mem.zig",
            "src/ssh.erl",
            "src/ssh.hrl",
            "include/ssh_xfer.hrl",
            "src/M.jl",
            "src/a.jl",
        ]);
        let r = |lang: Lang, importer: &str, m: &str, n: Option<&str>, kind: &str| {
            file(p.resolve(lang, importer, m, n, kind))
        };
        let scala = "src/main/scala/x/Y.scala";
        assert_eq!(
            r(Lang::Scala, scala, "a.b.C", None, "import").as_deref(),
            Some("src/main/scala/a/b/C.scala")
        );
        assert_eq!(
            r(Lang::Scala, scala, "a.b.J", None, "import").as_deref(),
            Some("src/main/java/a/b/J.java"),
            "Scala imports Java classes"
        );
        assert!(same_family(Lang::Scala, Lang::Java));

        let lua = "lua/pl/List.lua";
        assert_eq!(
            r(Lang::Lua, lua, "pl.utils", None, "require").as_deref(),
            Some("lua/pl/utils.lua")
        );
        assert_eq!(
            r(Lang::Lua, "lua/pl/utils.lua", "pl", None, "require").as_deref(),
            Some("lua/pl/init.lua")
        );
        // The standard library's `string`, not a nested file of that name.
        assert_eq!(r(Lang::Lua, lua, "string", None, "require"), None);
        assert_eq!(row_key(Lang::Lua, lua, "pl.utils"), "utils");

        let hs = "src/Text/Pandoc/App.hs";
        assert_eq!(
            r(Lang::Haskell, hs, "Text.Pandoc.Options", None, "import").as_deref(),
            Some("src/Text/Pandoc/Options.hs")
        );
        assert_eq!(
            r(Lang::Haskell, hs, "Data.Map.Strict", None, "import"),
            None
        );
        assert_eq!(row_key(Lang::Haskell, hs, "Text.Pandoc.Options"), "Options");

        let ex = "lib/mix/cli.ex";
        assert_eq!(
            r(Lang::Elixir, ex, "Mix.Tasks.Compile", None, "alias").as_deref(),
            Some("lib/mix/tasks/compile.ex")
        );
        assert_eq!(
            r(Lang::Elixir, ex, "Mix.HTTPServer", None, "alias").as_deref(),
            Some("lib/mix/http_server.ex")
        );
        // `Logger` is Elixir's, not a nested project file of that name.
        assert_eq!(r(Lang::Elixir, ex, "Logger", None, "require"), None);
        assert_eq!(row_key(Lang::Elixir, ex, "Mix.HTTPServer"), "http_server");
        assert_eq!(super::elixir_file_name("GenServer"), "gen_server");
        assert_eq!(super::elixir_file_name("CLI"), "cli");
        assert_eq!(super::elixir_file_name("IO"), "io");
        assert_eq!(super::elixir_file_name("Base64Url"), "base64_url");

        let zig = "lib/std/std.zig";
        assert_eq!(
            r(Lang::Zig, zig, "mem.zig", None, "import").as_deref(),
            Some("lib/std/mem.zig")
        );
        assert_eq!(r(Lang::Zig, "lib/std/mem.zig", "std", None, "import"), None);

        let erl = "src/ssh.erl";
        assert_eq!(
            r(Lang::Erlang, erl, "ssh.hrl", None, "include").as_deref(),
            Some("src/ssh.hrl")
        );
        assert_eq!(
            r(
                Lang::Erlang,
                erl,
                "ssh/include/ssh_xfer.hrl",
                None,
                "include_lib"
            )
            .as_deref(),
            Some("include/ssh_xfer.hrl")
        );
        assert_eq!(
            r(
                Lang::Erlang,
                erl,
                "kernel/include/file.hrl",
                None,
                "include_lib"
            ),
            None
        );

        assert_eq!(
            r(Lang::Julia, "src/M.jl", "a.jl", None, "include").as_deref(),
            Some("src/a.jl")
        );
    }
}
