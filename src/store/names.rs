//! Every read of definitions and references: they are stored per file in
//! the compact form of [`super::packed`], found by name through
//! `symbol_names` (NOCASE: exact, case-insensitive and prefix lookups) and
//! `ref_names` (exact), and turned here into the plain rows the rest of
//! the crate uses.

use std::collections::{HashMap, HashSet};

use rusqlite::{OptionalExtension, params};

use super::Store;
use super::packed::{self, Packed, RefEntry, SymbolEntry};
use super::read::{
    GraphDef, GraphRef, LineSignature, NameMatch, OutlineRow, RefRow, SpanRef, SymbolRow,
};

/// The file a blob belongs to.
struct FileInfo {
    id: i64,
    path: String,
    /// Empty when the file's language is unknown.
    lang: String,
    size: u64,
}

/// Kinds a reference's enclosing definition (`RefRow::context`) may have.
const ENCLOSING_KINDS: [&str; 10] = [
    "function",
    "method",
    "class",
    "struct",
    "impl",
    "module",
    "namespace",
    "trait",
    "interface",
    "enum",
];

/// A definition's lines and name: (start, end, name).
type Span = (u32, u32, String);

/// Kinds of class-like definitions, the ones that hold members and name
/// bases (Swift's protocols and extensions too). The code graph's one list:
/// [`Store::graph_types`] returns these and type aliases (`type`).
pub const CLASS_KINDS: [&str; 9] = [
    "class",
    "struct",
    "interface",
    "trait",
    "enum",
    "impl",
    "object",
    "protocol",
    "extension",
];

fn file_info(r: &rusqlite::Row<'_>) -> rusqlite::Result<FileInfo> {
    Ok(FileInfo {
        id: r.get(0)?,
        path: r.get(1)?,
        lang: r.get::<_, Option<String>>(2)?.unwrap_or_default(),
        size: r.get::<_, i64>(3)?.max(0) as u64,
    })
}

/// A stored signature, or the empty string and where to read it.
fn signature(
    p: &Packed<'_, SymbolEntry>,
    e: &SymbolEntry,
    f: &FileInfo,
) -> (String, Option<LineSignature>) {
    match e.signature {
        Some(s) => (p.str(s).to_string(), None),
        None => (String::new(), Some(LineSignature { file_size: f.size })),
    }
}

fn symbol_row(p: &Packed<'_, SymbolEntry>, e: &SymbolEntry, f: &FileInfo) -> SymbolRow {
    let (signature, line_signature) = signature(p, e, f);
    SymbolRow {
        name: p.str(e.name).to_string(),
        kind: p.str(e.kind).to_string(),
        container: p.opt(e.container).map(str::to_string),
        signature,
        line_signature,
        lang: f.lang.clone(),
        path: f.path.clone(),
        start_line: e.start_line,
        end_line: e.end_line,
        name_line: e.name_line,
        name_col: e.name_col,
    }
}

fn graph_def(p: &Packed<'_, SymbolEntry>, e: &SymbolEntry, f: &FileInfo) -> GraphDef {
    let (signature, line_signature) = signature(p, e, f);
    GraphDef {
        file_id: f.id,
        path: f.path.clone(),
        lang: f.lang.clone(),
        name: p.str(e.name).to_string(),
        kind: p.str(e.kind).to_string(),
        container: p.opt(e.container).map(str::to_string),
        signature,
        line_signature,
        start_line: e.start_line,
        end_line: e.end_line,
        name_line: e.name_line,
        name_col: e.name_col,
    }
}

fn graph_ref(p: &Packed<'_, RefEntry>, e: &RefEntry, f: &FileInfo) -> GraphRef {
    GraphRef {
        file_id: f.id,
        path: f.path.clone(),
        lang: f.lang.clone(),
        name: p.str(e.name).to_string(),
        kind: p.str(e.kind).to_string(),
        line: e.line,
        col: e.col,
        qualifier: p.opt(e.qualifier).map(str::to_string),
        scope: p.opt(e.scope).map(str::to_string),
    }
}

impl Store {
    /// The file `file_id` and its definitions' blob (`None`: no such file
    /// or no definitions).
    fn symbol_blob(&self, file_id: i64) -> rusqlite::Result<Option<(FileInfo, Vec<u8>)>> {
        self.file_blob(
            "SELECT f.id, f.path, f.lang, f.size, b.data FROM symbol_files b JOIN files f ON f.id = b.file_id
             WHERE b.file_id = ?1",
            file_id,
        )
    }

    /// The file `file_id` and its references' blob.
    fn ref_blob(&self, file_id: i64) -> rusqlite::Result<Option<(FileInfo, Vec<u8>)>> {
        self.file_blob(
            "SELECT f.id, f.path, f.lang, f.size, b.data FROM ref_files b JOIN files f ON f.id = b.file_id
             WHERE b.file_id = ?1",
            file_id,
        )
    }

    fn file_blob(&self, sql: &str, file_id: i64) -> rusqlite::Result<Option<(FileInfo, Vec<u8>)>> {
        self.conn
            .prepare_cached(sql)?
            .query_row([file_id], |r| Ok((file_info(r)?, r.get(4)?)))
            .optional()
    }

    /// The files that define a name matching `name` as `how` says, each
    /// with the names it defines that match and their rank in name order
    /// (then by file); stops after `limit` names.
    fn symbol_name_files(
        &self,
        name: &str,
        how: NameMatch,
        limit: usize,
    ) -> rusqlite::Result<Vec<(i64, HashMap<String, usize>)>> {
        let sql = match how {
            NameMatch::Exact => {
                "SELECT name, file_id FROM symbol_names WHERE name = ?1 AND name = ?1 COLLATE BINARY LIMIT ?2"
            }
            NameMatch::CaseInsensitive => {
                "SELECT name, file_id FROM symbol_names WHERE name = ?1 AND name != ?1 COLLATE BINARY LIMIT ?2"
            }
            // A range in the column's collation (NOCASE, as `LIKE` is
            // case-insensitive): the index answers it with any plan, while
            // `LIKE ?` uses the index only when the planner reads the bound
            // value, which `Store::plan_once` turns off. `char(1114111)`,
            // U+10FFFF, sorts after every character a name continues with.
            NameMatch::Prefix => {
                "SELECT name, file_id FROM symbol_names WHERE name >= ?1 AND name < ?1 || char(1114111) LIMIT ?2"
            }
        };
        let mut stmt = self.conn.prepare_cached(sql)?;
        let mut rows = stmt.query(params![name, limit.min(i64::MAX as usize) as i64])?;
        let mut files: Vec<(i64, HashMap<String, usize>)> = Vec::new();
        let mut at: HashMap<i64, usize> = HashMap::new();
        let mut rank = 0;
        while let Some(r) = rows.next()? {
            let (name, file_id): (String, i64) = (r.get(0)?, r.get(1)?);
            let i = *at.entry(file_id).or_insert_with(|| {
                files.push((file_id, HashMap::new()));
                files.len() - 1
            });
            files[i].1.insert(name, rank);
            rank += 1;
        }
        Ok(files)
    }

    /// Calls `f` with each definition of the files in `files` whose name is
    /// in the file's map, and the name's rank, file by file.
    fn each_named_symbol(
        &self,
        files: &[(i64, HashMap<String, usize>)],
        mut f: impl FnMut(&Packed<'_, SymbolEntry>, &SymbolEntry, &FileInfo, usize),
    ) -> rusqlite::Result<()> {
        for (file_id, names) in files {
            let Some((info, blob)) = self.symbol_blob(*file_id)? else {
                continue;
            };
            let raw = packed::inflate(&blob)?;
            let p = packed::decode_symbols(&raw)?;
            for e in &p.entries {
                if let Some(&rank) = names.get(p.str(e.name)) {
                    f(&p, e, &info, rank);
                }
            }
        }
        Ok(())
    }

    /// Definitions whose name matches `name` as `how` says, at most `limit`,
    /// in no particular order (the caller ranks them).
    pub fn symbol_rows(
        &self,
        name: &str,
        how: NameMatch,
        limit: usize,
    ) -> rusqlite::Result<Vec<SymbolRow>> {
        // Each name of a file is at least one definition: `limit` names
        // are enough for `limit` definitions.
        let files = self.symbol_name_files(name, how, limit)?;
        let mut rows = Vec::new();
        self.each_named_symbol(&files, |p, e, f, rank| {
            rows.push((rank, symbol_row(p, e, f)))
        })?;
        // The first `limit` in name order (stable: a file's in line order).
        rows.sort_by_key(|(rank, _)| *rank);
        rows.truncate(limit);
        Ok(rows.into_iter().map(|(_, row)| row).collect())
    }

    /// Calls `f` with every distinct symbol name (in no particular order).
    pub fn scan_symbol_names(&self, mut f: impl FnMut(&str)) -> rusqlite::Result<()> {
        // The NOCASE name table in its order, no `DISTINCT` (its temporary
        // b-tree cost more than the scan): equal names sit in one run of
        // names equal but for ASCII case, so a name is new when the run
        // has not had it yet.
        let mut stmt = self.conn.prepare_cached("SELECT name FROM symbol_names")?;
        let mut rows = stmt.query([])?;
        let mut run: Vec<String> = Vec::new();
        while let Some(r) = rows.next()? {
            let name = r.get_ref(0)?.as_str()?;
            if run.first().is_some_and(|n| !n.eq_ignore_ascii_case(name)) {
                run.clear();
            }
            if !run.iter().any(|n| n == name) {
                f(name);
                run.push(name.to_string());
            }
        }
        Ok(())
    }

    /// The definitions named exactly `name`, by path and line.
    pub fn definition_rows(&self, name: &str) -> rusqlite::Result<Vec<RefRow>> {
        let files = self.symbol_name_files(name, NameMatch::Exact, usize::MAX)?;
        let mut rows = Vec::new();
        self.each_named_symbol(&files, |p, e, f, _| {
            rows.push(RefRow {
                path: f.path.clone(),
                line: e.name_line,
                column: e.name_col,
                kind: p.str(e.kind).to_string(),
                context: p.opt(e.container).map(str::to_string),
            })
        })?;
        rows.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
        Ok(rows)
    }

    /// The files defining a name spelt exactly `name` (their
    /// [`Store::graph_file_defs`] hold the definitions).
    pub fn files_defining(&self, name: &str) -> rusqlite::Result<Vec<i64>> {
        Ok(self
            .symbol_name_files(name, NameMatch::Exact, usize::MAX)?
            .into_iter()
            .map(|(id, _)| id)
            .collect())
    }

    /// Calls `f` with each definition of one file, by start line, the
    /// longer first.
    fn each_file_symbol(
        &self,
        file_id: i64,
        mut f: impl FnMut(&Packed<'_, SymbolEntry>, &SymbolEntry, &FileInfo),
    ) -> rusqlite::Result<()> {
        if let Some((info, blob)) = self.symbol_blob(file_id)? {
            let raw = packed::inflate(&blob)?;
            let p = packed::decode_symbols(&raw)?;
            for e in &p.entries {
                f(&p, e, &info);
            }
        }
        Ok(())
    }

    /// The definitions of one file with their containers and signatures,
    /// by start line, longest first.
    /// The paths of the namespaces and modules a file defines (`Slim`,
    /// `Slim\\Interfaces`, `Google.Protobuf`; a nested one as its
    /// container's path and its name joined by each separator a chunk
    /// label may use), longest first.
    pub fn file_namespaces(&self, file_id: i64) -> rusqlite::Result<Vec<String>> {
        let mut out = Vec::new();
        self.each_file_symbol(file_id, |p, e, _| {
            if matches!(p.str(e.kind), "namespace" | "module") {
                let name = p.str(e.name);
                match p.opt(e.container) {
                    Some(c) => out.extend(["::", ".", "\\"].map(|sep| format!("{c}{sep}{name}"))),
                    None => out.push(name.to_string()),
                }
            }
        })?;
        out.sort_by_key(|n| std::cmp::Reverse(n.len()));
        out.dedup();
        Ok(out)
    }

    pub fn file_symbol_rows(&self, file_id: i64) -> rusqlite::Result<Vec<SymbolRow>> {
        let mut rows = Vec::new();
        self.each_file_symbol(file_id, |p, e, f| rows.push(symbol_row(p, e, f)))?;
        Ok(rows)
    }

    /// The language of one file as indexed (`cpp` for a C++ header;
    /// empty when it has no definitions) and its definitions, by start
    /// line, longest first.
    pub fn outline_rows(&self, file_id: i64) -> rusqlite::Result<(String, Vec<OutlineRow>)> {
        let mut rows = Vec::new();
        let mut lang = String::new();
        self.each_file_symbol(file_id, |p, e, f| {
            if lang.is_empty() {
                lang.clone_from(&f.lang);
            }
            let (signature, line_signature) = signature(p, e, f);
            rows.push(OutlineRow {
                name: p.str(e.name).to_string(),
                kind: p.str(e.kind).to_string(),
                container: p.opt(e.container).map(str::to_string),
                signature,
                line_signature,
                start_line: e.start_line,
                end_line: e.end_line,
                name_line: e.name_line,
            })
        })?;
        Ok((lang, rows))
    }

    /// The definitions of one file, by start line, outer first.
    pub fn graph_file_defs(&self, file_id: i64) -> rusqlite::Result<Vec<GraphDef>> {
        let mut rows = Vec::new();
        self.each_file_symbol(file_id, |p, e, f| rows.push(graph_def(p, e, f)))?;
        Ok(rows)
    }

    /// Every type definition ([`CLASS_KINDS`] and type aliases): what
    /// subclass maps are built from.
    pub fn graph_types(&self) -> rusqlite::Result<Vec<GraphDef>> {
        let mut stmt = self.conn.prepare_cached(
            "SELECT f.id, f.path, f.lang, f.size, b.data FROM symbol_files b JOIN files f ON f.id = b.file_id",
        )?;
        let mut rows = stmt.query([])?;
        let mut out = Vec::new();
        while let Some(r) = rows.next()? {
            let info = file_info(r)?;
            let blob = r.get_ref(4)?.as_blob()?;
            let raw = packed::inflate(blob)?;
            let p = packed::decode_symbols(&raw)?;
            for e in &p.entries {
                let kind = p.str(e.kind);
                if CLASS_KINDS.contains(&kind) || kind == "type" {
                    out.push(graph_def(&p, e, &info));
                }
            }
        }
        Ok(out)
    }

    /// The files with a reference named exactly `name`, by id.
    fn ref_name_files(&self, name: &str) -> rusqlite::Result<Vec<i64>> {
        let mut stmt = self
            .conn
            .prepare_cached("SELECT file_id FROM ref_names WHERE name = ?1")?;
        let rows = stmt.query_map([name], |r| r.get(0))?;
        rows.collect()
    }

    /// Calls `f` with each reference named exactly `name`, file by file.
    fn each_named_ref(
        &self,
        name: &str,
        mut f: impl FnMut(&Packed<'_, RefEntry>, &RefEntry, &FileInfo) -> rusqlite::Result<()>,
    ) -> rusqlite::Result<()> {
        for file_id in self.ref_name_files(name)? {
            let Some((info, blob)) = self.ref_blob(file_id)? else {
                continue;
            };
            let raw = packed::inflate(&blob)?;
            let p = packed::decode_refs(&raw)?;
            for e in &p.entries {
                if p.str(e.name) == name {
                    f(&p, e, &info)?;
                }
            }
        }
        Ok(())
    }

    /// The files of `among` that share a rarely defined name with the file
    /// at `path`: one references a name the other defines, and at most
    /// `max_definers` files define it (a name every module defines, `new`
    /// or `run`, links nothing). Files the index does not know, or that
    /// define and reference nothing, link to nothing.
    pub fn files_linked_to(
        &self,
        path: &str,
        among: &[&str],
        max_definers: usize,
    ) -> rusqlite::Result<HashSet<String>> {
        let mut linked = HashSet::new();
        let Some(record) = self.file_record(path)? else {
            return Ok(linked);
        };
        let defs: Vec<String> = match self.symbol_blob(record.id)? {
            Some((_, blob)) => packed::stored_symbol_names(&blob)?,
            None => Vec::new(),
        };
        let refs: Vec<String> = match self.ref_blob(record.id)? {
            Some((_, blob)) => packed::stored_ref_names(&blob)?,
            None => Vec::new(),
        };
        if defs.is_empty() && refs.is_empty() {
            return Ok(linked);
        }
        // The other files by id.
        let others: Vec<&str> = among.iter().copied().filter(|p| *p != path).collect();
        let others: HashMap<i64, String> = self
            .conn
            .prepare_cached(
                "SELECT id, path FROM files WHERE path IN (SELECT value FROM json_each(?1))",
            )?
            .query_map([super::json_list(&others)?], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        // Who defines each name the first file defines or references:
        // `symbol_names` compares names case-blind, so a name's definers
        // are counted case-blind (as `symbol` finds them), and a link needs
        // the name as written.
        let mut definers: HashMap<String, HashSet<i64>> = HashMap::new();
        let mut exact: HashMap<String, Vec<i64>> = HashMap::new();
        let names: Vec<&String> = refs.iter().chain(&defs).collect();
        let mut stmt = self.conn.prepare_cached(
            "SELECT name, file_id FROM symbol_names WHERE name IN (SELECT value FROM json_each(?1))",
        )?;
        let rows = stmt.query_map([super::json_list(&names)?], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?))
        })?;
        for row in rows {
            let (name, id) = row?;
            definers
                .entry(name.to_ascii_lowercase())
                .or_default()
                .insert(id);
            exact.entry(name).or_default().push(id);
        }
        let rare = |name: &str| {
            definers
                .get(&name.to_ascii_lowercase())
                .is_some_and(|ids| ids.len() <= max_definers)
        };
        // A rare name the first file references, defined by another file...
        for name in refs.iter().filter(|n| rare(n)) {
            for id in exact.get(name).into_iter().flatten() {
                if let Some(o) = others.get(id) {
                    linked.insert(o.clone());
                }
            }
        }
        // ...or one it defines that another file references.
        let own: Vec<&String> = defs.iter().filter(|n| rare(n)).collect();
        let mut stmt = self.conn.prepare_cached(
            "SELECT DISTINCT file_id FROM ref_names WHERE name IN (SELECT value FROM json_each(?1))",
        )?;
        let rows = stmt.query_map([super::json_list(&own)?], |r| r.get::<_, i64>(0))?;
        for id in rows {
            if let Some(o) = others.get(&id?) {
                linked.insert(o.clone());
            }
        }
        Ok(linked)
    }

    /// The references of exactly `name`, by path, line and column, each
    /// with its innermost enclosing function, type or module.
    pub fn ref_rows(&self, name: &str) -> rusqlite::Result<Vec<RefRow>> {
        let mut rows = Vec::new();
        // The enclosing definitions of the file being read.
        let mut spans: Option<(i64, Vec<Span>)> = None;
        self.each_named_ref(name, |p, e, f| {
            if spans.as_ref().is_none_or(|(id, _)| *id != f.id) {
                let mut s = Vec::new();
                self.each_file_symbol(f.id, |sp, se, _| {
                    if ENCLOSING_KINDS.contains(&sp.str(se.kind)) {
                        s.push((se.start_line, se.end_line, sp.str(se.name).to_string()));
                    }
                })?;
                spans = Some((f.id, s));
            }
            // The latest start wins; on one start line the shorter one.
            let context = spans.as_ref().and_then(|(_, s)| {
                s.iter()
                    .filter(|(start, end, _)| *start <= e.line && *end >= e.line)
                    .max_by_key(|(start, end, _)| (*start, std::cmp::Reverse(*end)))
                    .map(|(_, _, n)| n.clone())
            });
            rows.push(RefRow {
                path: f.path.clone(),
                line: e.line,
                column: e.col,
                kind: p.str(e.kind).to_string(),
                context,
            });
            Ok(())
        })?;
        rows.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
        Ok(rows)
    }

    /// Every reference named exactly `name`, by path, line and column.
    pub fn graph_refs(&self, name: &str) -> rusqlite::Result<Vec<GraphRef>> {
        let mut rows = Vec::new();
        self.each_named_ref(name, |p, e, f| {
            rows.push(graph_ref(p, e, f));
            Ok(())
        })?;
        rows.sort_by(|a, b| (&a.path, a.line, a.col).cmp(&(&b.path, b.line, b.col)));
        Ok(rows)
    }

    /// Calls `f` with the references of one file on lines `start..=end`,
    /// by line and column.
    fn each_ref_in(
        &self,
        file_id: i64,
        start: u32,
        end: u32,
        mut f: impl FnMut(&Packed<'_, RefEntry>, &RefEntry, &FileInfo),
    ) -> rusqlite::Result<()> {
        if let Some((info, blob)) = self.ref_blob(file_id)? {
            let raw = packed::inflate(&blob)?;
            let p = packed::decode_refs(&raw)?;
            for e in p.entries.iter().filter(|e| (start..=end).contains(&e.line)) {
                f(&p, e, &info);
            }
        }
        Ok(())
    }

    /// The references of one file on lines `start..=end`, by line and column.
    pub fn refs_in_file_span(
        &self,
        file_id: i64,
        start: u32,
        end: u32,
    ) -> rusqlite::Result<Vec<SpanRef>> {
        let mut rows = Vec::new();
        self.each_ref_in(file_id, start, end, |p, e, _| {
            rows.push(SpanRef {
                name: p.str(e.name).to_string(),
                kind: p.str(e.kind).to_string(),
                line: e.line,
                column: e.col,
            })
        })?;
        Ok(rows)
    }

    /// The references of one file on lines `start..=end`, in order.
    pub fn graph_refs_in(
        &self,
        file_id: i64,
        start: u32,
        end: u32,
    ) -> rusqlite::Result<Vec<GraphRef>> {
        let mut rows = Vec::new();
        self.each_ref_in(file_id, start, end, |p, e, f| rows.push(graph_ref(p, e, f)))?;
        Ok(rows)
    }
}
