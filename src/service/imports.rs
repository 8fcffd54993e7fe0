//! Owns the import graph lookup: what a file imports (resolved to project
//! files where possible) and which files import it. The rules are
//! `crate::imports` (pure); this reads the rows, the indexed paths and the
//! `go.mod` files, resolves at query time, pages and redacts.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;
use serde::Serialize;

use super::lookup::Indexed;
use super::{Service, lookup};
use crate::imports::{Project, Target, cargo_package_name, go_mod_module, same_family};
use crate::model::Lang;
use crate::store::ImportRow;
use crate::store::Store;

/// Which side of the graph to answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ImportDirection {
    Imports,
    ImportedBy,
    Both,
}

impl ImportDirection {
    /// `imports`, `imported-by` (or `imported_by`), `both`.
    pub fn parse(s: &str) -> Option<ImportDirection> {
        match s {
            "imports" => Some(ImportDirection::Imports),
            "imported-by" | "imported_by" => Some(ImportDirection::ImportedBy),
            "both" => Some(ImportDirection::Both),
            _ => None,
        }
    }

    fn imports(self) -> bool {
        self != ImportDirection::ImportedBy
    }

    fn imported_by(self) -> bool {
        self != ImportDirection::Imports
    }
}

#[derive(Debug, Clone)]
pub struct ImportsRequest {
    /// A path as the user gave it (relative to the root, or absolute inside it).
    pub path: String,
    pub direction: ImportDirection,
    /// Page size of each list.
    pub limit: usize,
    pub offset: usize,
}

/// One import statement's module (or one of its targets), as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ImportEdge {
    pub module: String,
    /// What is imported from it (`a`, `b as c`, `*`); empty for the module itself.
    pub names: Vec<String>,
    pub line: u32,
    pub kind: String,
    /// The project file (or Go/Java package directory) it names; `None`
    /// for the standard library, third-party code, or anything unresolved.
    pub resolved: Option<String>,
    /// The files of a resolved package directory.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub resolved_files: Vec<String>,
}

/// A file that imports the asked one, and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Importer {
    pub path: String,
    pub line: u32,
    pub module: String,
    pub names: Vec<String>,
    pub kind: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ImportsResult {
    /// Root-relative path.
    pub path: String,
    pub lang: Option<String>,
    pub direction: ImportDirection,
    pub offset: usize,
    /// This page of the file's imports (empty unless asked for).
    pub imports: Vec<ImportEdge>,
    pub total_imports: usize,
    /// This page of the files that import it.
    pub imported_by: Vec<Importer>,
    pub total_imported_by: usize,
    /// More imports or importers exist past this page.
    pub truncated: bool,
    /// Why the indexer skipped the file, if it did (then it has no imports).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// Said when the index does not read imports in the file's language,
    /// so an empty list is not "imports nothing".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Secret values shown as `[redacted: …]` in module names.
    pub redacted: usize,
}

pub type ImportsAnswer = Indexed<ImportsResult>;

fn shown_name(r: &ImportRow) -> Option<String> {
    let name = r.name.as_deref()?;
    Some(match &r.alias {
        Some(a) => format!("{name} as {a}"),
        None => name.to_string(),
    })
}

/// The indexed paths with the `go.mod` module paths Go resolution needs
/// (read only when a Go file is involved).
fn project<'a>(
    svc: &Service,
    store: &Store,
    files: &'a HashMap<i64, (String, String)>,
    lang: Lang,
) -> Result<Project<'a>> {
    let mut p = Project::new(files.values().map(|(path, _)| path.as_str()));
    // Java, Kotlin and Scala files say their package, which Kotlin's and
    // Scala's directories need not spell.
    if same_family(lang, Lang::Java) {
        p.set_packages(store.package_rows()?);
    }
    // A manifest of at most 1 MiB, a regular file inside the project.
    let manifest = |dir: &str, name: &str| {
        let abs = svc.root().join(dir).join(name);
        let small = std::fs::symlink_metadata(&abs).is_ok_and(|m| m.is_file() && m.len() < 1 << 20);
        small
            .then(|| crate::fs_safe::read_regular_to_string(&abs).ok())
            .flatten()
    };
    if lang == Lang::Go {
        for dir in p.go_dirs() {
            if let Some(module) = manifest(&dir, "go.mod").and_then(|t| go_mod_module(&t)) {
                p.set_go_mod(dir, module);
            }
        }
    }
    if lang == Lang::Rust {
        for dir in p.rust_package_dirs() {
            if let Some(name) = manifest(&dir, "Cargo.toml").and_then(|t| cargo_package_name(&t)) {
                p.set_rust_crate(&dir, &name);
            }
        }
    }
    Ok(p)
}

/// What the index says about one file's place in the graph.
struct Found {
    lang: Option<String>,
    skipped: Option<String>,
    imports: Vec<ImportEdge>,
    importers: Vec<Importer>,
}

/// Both sides of the graph for one indexed file; `None` when the index
/// does not hold it.
fn lookup_imports(
    svc: &Service,
    store: &Store,
    rel: &str,
    dir: ImportDirection,
) -> Result<Option<Found>> {
    let Some(record) = store.file_record(rel)? else {
        return Ok(None);
    };
    let files = store.file_paths()?;
    let lang_name = files
        .get(&record.id)
        .map(|(_, l)| l.clone())
        .filter(|l| !l.is_empty());
    let lang = lang_name.as_deref().and_then(Lang::from_name);
    let Some(lang) = lang else {
        return Ok(Some(Found {
            lang: lang_name,
            skipped: record.skip_reason,
            imports: Vec::new(),
            importers: Vec::new(),
        }));
    };
    let proj = project(svc, store, &files, lang)?;

    let mut imports: Vec<ImportEdge> = Vec::new();
    if dir.imports() {
        for r in store.import_rows(record.id)? {
            // An inline module (`use self::error::*` of `mod error { … }`)
            // is in the file itself.
            let t = proj.resolve_any(lang, rel, &r.module, r.name.as_deref(), &r.kind);
            let (resolved, resolved_files) = match t {
                Some(Target::File(p)) => (Some(p), Vec::new()),
                // A module's root package is the directory `.`, not an
                // empty name (go-git's `github.com/go-git/go-git/v5`).
                Some(Target::Package { dir, files }) if dir.is_empty() => (Some(".".into()), files),
                Some(Target::Package { dir, files }) => (Some(dir), files),
                None => (None, Vec::new()),
            };
            // One of the file's own items (`use self::Entry::*;` inside a
            // function, http's `header/map.rs` had 13 such rows of 18) is
            // no dependency of the file.
            if resolved.as_deref() == Some(rel) {
                continue;
            }
            let name = shown_name(&r);
            match imports.last_mut() {
                Some(e)
                    if e.line == r.line
                        && e.module == r.module
                        && e.kind == r.kind
                        && e.resolved == resolved =>
                {
                    e.names.extend(name);
                }
                _ => imports.push(ImportEdge {
                    module: r.module,
                    names: name.into_iter().collect(),
                    line: r.line,
                    kind: r.kind,
                    resolved,
                    resolved_files,
                }),
            }
        }
        // The project's own files first (what an agent follows), then the
        // standard library and third-party modules, each in line order.
        imports.sort_by_key(|e| (e.resolved.is_none(), e.line));
    }

    let mut importers: Vec<Importer> = Vec::new();
    if dir.imported_by() {
        let keys = proj.target_keys(lang, rel);
        for r in store.import_rows_by_key(&keys)? {
            let Some(from) = Lang::from_name(&r.lang) else {
                continue;
            };
            if r.path == rel || !same_family(from, lang) {
                continue;
            }
            let hit = proj
                .resolve(from, &r.path, &r.module, r.name.as_deref(), &r.kind)
                .is_some_and(|t| t.contains(rel));
            if !hit {
                continue;
            }
            let name = shown_name(&r);
            match importers.last_mut() {
                Some(i)
                    if i.path == r.path
                        && i.line == r.line
                        && i.module == r.module
                        && i.kind == r.kind =>
                {
                    i.names.extend(name);
                }
                _ => importers.push(Importer {
                    path: r.path,
                    line: r.line,
                    module: r.module,
                    names: name.into_iter().collect(),
                    kind: r.kind,
                }),
            }
        }
    }
    Ok(Some(Found {
        lang: lang_name,
        skipped: record.skip_reason,
        imports,
        importers,
    }))
}

/// Said with a file's importers where the language lets files of one
/// package (Java, Kotlin, Scala; Go's directory) use each other without
/// an import, so that "imported by (0)" does not read as "unused".
fn same_package_note(lang: Lang, path: &str) -> Option<String> {
    let unit = match lang {
        Lang::Java | Lang::Kotlin | Lang::Scala => "package",
        Lang::Go => "package (directory)",
        _ => return None,
    };
    let stem = Path::new(path).file_stem()?.to_str()?;
    let refs = if lang == Lang::Go {
        "`refs` on its names finds them".to_string()
    } else {
        format!("`refs {stem}` finds them")
    };
    Some(format!(
        "files of the same {unit} use it without an import, so they are not listed; {refs}"
    ))
}

impl Service {
    /// What a file imports (resolved to project files where possible) and
    /// which indexed files import it, each list paged by `limit`/`offset`.
    /// A file the index does not hold is `NOT_FOUND`, except while an index
    /// run may be adding it.
    pub fn imports(&self, req: &ImportsRequest) -> Result<ImportsAnswer> {
        self.timed("imports", || self.imports_untimed(req))
    }

    fn imports_untimed(&self, req: &ImportsRequest) -> Result<ImportsAnswer> {
        let p = crate::paths::resolve_in_root(self.root(), &req.path)?;
        if p.abs.is_dir() {
            return Err(lookup::is_directory(&p.rel));
        }
        let found = self.indexed(|store| lookup_imports(self, store, &p.rel, req.direction))?;
        let value = match found.value {
            Some(Some(Found {
                lang,
                skipped,
                imports,
                importers,
            })) => {
                let (total_imports, total_imported_by) = (imports.len(), importers.len());
                let page = |n: usize| n > req.offset + req.limit;
                let truncated = page(total_imports) || page(total_imported_by);
                let mut imports: Vec<ImportEdge> = imports
                    .into_iter()
                    .skip(req.offset)
                    .take(req.limit)
                    .collect();
                let mut imported_by: Vec<Importer> = importers
                    .into_iter()
                    .skip(req.offset)
                    .take(req.limit)
                    .collect();
                let mut red = self.redactor();
                for e in &mut imports {
                    red.text(&mut e.module);
                    e.names.iter_mut().for_each(|n| red.text(n));
                }
                for i in &mut imported_by {
                    red.text(&mut i.module);
                    i.names.iter_mut().for_each(|n| red.text(n));
                }
                let note = lang.as_deref().and_then(Lang::from_name).and_then(|l| {
                    if !crate::extract::reads_imports(l) {
                        Some(format!(
                            "imports are read from {} files; `{}` is {}, so its imports are not listed",
                            crate::extract::import_languages(),
                            p.rel,
                            l.name()
                        ))
                    } else if req.direction != ImportDirection::Imports {
                        same_package_note(l, &p.rel)
                    } else {
                        None
                    }
                });
                Some(ImportsResult {
                    path: p.rel,
                    lang,
                    note,
                    direction: req.direction,
                    offset: req.offset,
                    imports,
                    total_imports,
                    imported_by,
                    total_imported_by,
                    truncated,
                    skipped,
                    redacted: red.count(),
                })
            }
            Some(None) if found.freshness.indexing => Some(ImportsResult {
                path: p.rel,
                lang: None,
                direction: req.direction,
                offset: req.offset,
                imports: Vec::new(),
                total_imports: 0,
                imported_by: Vec::new(),
                total_imported_by: 0,
                truncated: false,
                skipped: None,
                note: None,
                redacted: 0,
            }),
            Some(None) => return Err(lookup::not_indexed(&p.rel)),
            None => None,
        };
        Ok(Indexed {
            value,
            generation: found.generation,
            freshness: found.freshness,
        })
    }
}
