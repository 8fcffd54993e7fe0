//! Owns the text of a project file as the indexer sees it: [`decode`], the
//! one rule from a file's bytes to the text that extraction cuts into
//! chunks, and [`Sources`], which reads chunk texts back from the files by
//! the byte ranges the index stores (schema 10: the index keeps positions,
//! not a second copy of the source). Does not speak SQL (`store` hands out
//! the ranges as [`ChunkSpan`]s) or rank.
//!
//! **Invariant**: a chunk's text is given only when the file still holds
//! it: the slice of the file's decoded text at the stored range hashes to
//! the stored `chunks.hash` (xxh3). Otherwise the chunk is *stale* (the
//! file changed, went away or no longer decodes since it was indexed) and
//! the caller decides: embedding skips it (the next index run re-chunks the
//! file), a search hit shows the file's current lines at its line range
//! ([`Sources::shown`]) or is dropped when the file is gone.

use std::collections::HashMap;
use std::io::Read;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::model::Symbol;
use crate::store::{ChunkSpan, LineSignature};

/// Bytes a file may have in invalid UTF-8 sequences (per 100 bytes) and
/// still be indexed with replacement characters: a Latin-1 comment in a
/// source file should not hide the whole file.
const MAX_INVALID_PERCENT: usize = 1;

/// The most a file is read back with when it was indexed smaller (the
/// trigram index's coverage limit, far above `index.max_file_size`'s
/// default): one that grew past it since is stale, not read. A file indexed
/// larger (a raised `index.max_file_size`) is read up to its indexed size.
const MIN_READ_LIMIT: u64 = 64 << 20;

/// Decodes file bytes as text, or says why the file is skipped: a UTF-16
/// byte order mark decodes UTF-16, a NUL byte in the first 8 KiB means
/// binary, a UTF-8 byte order mark is dropped, and up to
/// [`MAX_INVALID_PERCENT`] invalid UTF-8 becomes replacement characters.
pub fn decode(bytes: &[u8]) -> Result<String, String> {
    if has_utf16_bom(bytes) {
        return decode_utf16(bytes);
    }
    if is_binary(bytes) {
        return Err("binary: NUL byte in the first 8 KiB".into());
    }
    let bytes = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(s) => Ok(s.to_string()),
        Err(_) => {
            let lossy = String::from_utf8_lossy(bytes);
            let bad = lossy.matches('\u{FFFD}').count();
            if bad * 100 <= bytes.len() * MAX_INVALID_PERCENT {
                Ok(lossy.into_owned())
            } else {
                Err(format!("invalid UTF-8: {bad} undecodable sequences"))
            }
        }
    }
}

/// Whether file bytes are binary, by the same rule as ripgrep and git: a
/// NUL byte in the first 8 KiB, unless a UTF-16 byte-order mark says the
/// NULs are text. The indexer ([`decode`]), `read` and `blame` share it.
pub fn is_binary(bytes: &[u8]) -> bool {
    !has_utf16_bom(bytes) && bytes[..bytes.len().min(8192)].contains(&0)
}

/// Text that starts with a UTF-16 byte-order mark (either order): text, as
/// ripgrep reads it, despite its NUL bytes.
pub fn has_utf16_bom(bytes: &[u8]) -> bool {
    bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF])
}

fn decode_utf16(bytes: &[u8]) -> Result<String, String> {
    let le = bytes.starts_with(&[0xFF, 0xFE]);
    let units: Vec<u16> = bytes[2..]
        .chunks_exact(2)
        .map(|c| {
            if le {
                u16::from_le_bytes([c[0], c[1]])
            } else {
                u16::from_be_bytes([c[0], c[1]])
            }
        })
        .collect();
    String::from_utf16(&units).map_err(|_| "invalid UTF-16: undecodable text".to_string())
}

/// The stored range of `span` in `text`, when it is one and its text
/// hashes as the index says.
pub fn slice<'t>(text: &'t str, span: &ChunkSpan) -> Option<&'t str> {
    let start = usize::try_from(span.start_byte).ok()?;
    let end = usize::try_from(span.end_byte).ok()?;
    let s = text.get(start..end)?;
    (xxhash_rust::xxh3::xxh3_64(s.as_bytes()) == span.hash).then_some(s)
}

/// Where each line of `text` starts, lines counted as extraction counts
/// them: split at `\n` (the first at 0).
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
        .collect()
}

/// Line `n` (1-based) of `text` by its [`line_starts`], without the `\n`
/// and a `\r` before it.
fn line_in<'t>(text: &'t str, starts: &[usize], n: u32) -> Option<&'t str> {
    let i = (n as usize).checked_sub(1)?;
    let start = *starts.get(i)?;
    let end = starts.get(i + 1).map_or(text.len(), |&e| e - 1);
    let line = text.get(start..end)?;
    Some(line.strip_suffix('\r').unwrap_or(line))
}

/// Definitions whose signature may be kept as a position: the kinds no
/// ranking or bulk read looks at (symbol search ranks functions by their
/// signature, the code graph reads every type's), which hold most of them
/// (the Linux kernel: 198 of 248 MiB, macros alone 160).
const LINE_SIGNATURE_KINDS: [&str; 4] = ["macro", "field", "constant", "variable"];

/// Per symbol of a file's decoded `text`: whether its signature is its
/// name's line, trimmed, and its kind one of [`LINE_SIGNATURE_KINDS`]. The
/// index keeps those as a position and reads them back
/// ([`Sources::line_signature`]).
pub fn line_signatures(text: &str, symbols: &[Symbol]) -> Vec<bool> {
    let mut lines = text.split('\n');
    let mut at = 0u32; // lines taken so far
    let mut current = "";
    let mut order: Vec<usize> = (0..symbols.len()).collect();
    order.sort_by_key(|&i| symbols[i].name_line);
    let mut out = vec![false; symbols.len()];
    for i in order {
        let s = &symbols[i];
        if !LINE_SIGNATURE_KINDS.contains(&s.kind.as_str()) || s.name_line == 0 {
            continue;
        }
        while at < s.name_line {
            match lines.next() {
                Some(l) => current = l.strip_suffix('\r').unwrap_or(l),
                None => return out,
            }
            at += 1;
        }
        out[i] = !s.signature.is_empty() && current.trim() == s.signature;
    }
    out
}

/// Reads the project's files for their chunk texts, each file once:
/// decoded as the indexer did ([`decode`]) and kept for the reader's life,
/// so a caller groups its chunks (a batch of hits, a window of the
/// embedding phase) and drops the reader after. Paths are the index's
/// root-relative ones, opened only inside the root and only as regular
/// files (`paths::resolve_in_root`, `fs_safe::open_regular`).
pub struct Sources<'r> {
    root: &'r Path,
    /// Path → its decoded text; `None` when it cannot be read back (gone,
    /// outside the root, not a regular file, too large, no longer text).
    files: HashMap<String, Option<Arc<str>>>,
    /// A long-lived reader's texts of earlier calls, checked by a `stat`.
    cache: Option<&'r FileCache>,
    /// Path → where each line of its text starts, built by the first
    /// [`Sources::line_signature`] of the file (a file's fields and
    /// constants are read back one by one: Django's `query.py`, hundreds).
    line_starts: HashMap<String, Vec<usize>>,
}

impl<'r> Sources<'r> {
    /// A reader of the files under `root` (the project root, canonical).
    pub fn new(root: &'r Path) -> Sources<'r> {
        Sources {
            root,
            files: HashMap::new(),
            cache: None,
            line_starts: HashMap::new(),
        }
    }

    /// [`Sources::new`] that takes a file unchanged since `cache` read it
    /// from there, and leaves what it reads there.
    pub fn with_cache(root: &'r Path, cache: &'r FileCache) -> Sources<'r> {
        Sources {
            cache: Some(cache),
            ..Sources::new(root)
        }
    }

    /// The decoded text of `path` as it is now. `indexed_size` is the size
    /// the index recorded: a file may hold the larger of it and
    /// `MIN_READ_LIMIT`, more is not read.
    pub fn file(&mut self, path: &str, indexed_size: u64) -> Option<&str> {
        if !self.files.contains_key(path) {
            let limit = indexed_size.max(MIN_READ_LIMIT);
            let text = match self.cache {
                Some(cache) => cache.read(self.root, path, limit),
                None => read_decoded(self.root, path, limit).map(|(t, _)| t.into()),
            };
            self.files.insert(path.to_string(), text);
        }
        self.files.get(path)?.as_deref()
    }

    /// The chunk's text when the file still holds it; `None` when stale.
    pub fn chunk(&mut self, path: &str, span: &ChunkSpan) -> Option<&str> {
        slice(self.file(path, span.file_size)?, span)
    }

    /// The text a search hit shows for a chunk: its own when the file still
    /// holds it, else the file's current lines `start_line..=end_line` (a
    /// stale index describes a file edited since; the lines there now are
    /// what the user will find when opening it). `None` when the file is
    /// gone or unreadable, or now ends before `start_line`: the hit is
    /// dropped.
    pub fn shown(
        &mut self,
        path: &str,
        span: &ChunkSpan,
        start_line: u32,
        end_line: u32,
    ) -> Option<String> {
        let text = self.file(path, span.file_size)?;
        if let Some(s) = slice(text, span) {
            return Some(s.to_string());
        }
        tracing::debug!(path, start_line, "stale chunk: showing the current lines");
        let first = (start_line.max(1) - 1) as usize;
        let n = (end_line.max(start_line) - start_line.max(1) + 1) as usize;
        let lines: Vec<&str> = text.lines().skip(first).take(n).collect();
        (!lines.is_empty()).then(|| lines.join("\n"))
    }
}

impl Sources<'_> {
    /// The signature of a definition the index keeps as a position: the
    /// trimmed line `name_line` of its file. A file edited since gives the
    /// line there now (what the user finds on opening it), a gone or
    /// unreadable one the empty string.
    pub fn line_signature(&mut self, path: &str, at: &LineSignature, name_line: u32) -> String {
        if self.file(path, at.file_size).is_none() {
            return String::new();
        }
        let Some(Some(text)) = self.files.get(path) else {
            return String::new();
        };
        // (Looked up before inserting: a file's fields are read back one
        // after another, and `entry` would copy the path for each.)
        if !self.line_starts.contains_key(path) {
            self.line_starts.insert(path.to_string(), line_starts(text));
        }
        let starts = self.line_starts.get(path).map_or(&[][..], Vec::as_slice);
        line_in(text, starts, name_line)
            .map(|l| crate::extract::truncate_signature(l.trim()).to_string())
            .unwrap_or_default()
    }
}

/// Files a long-lived reader (the MCP server's hybrid searcher) read
/// before: a search reads the 30 files its candidates lie in (the token
/// match, then the snippets), and resolving a path inside the root
/// (`realpath`, a `readlink` per component), opening, reading and decoding
/// it was 1.5 ms of a 10 ms warm search on a 5,000-chunk tree. A file is
/// taken from here while a `stat` of its path finds the same file (device,
/// inode), size, modification and change times; a path that now leads
/// elsewhere (a swapped link) finds another inode and is resolved again.
/// As git does for its index (and `index` and the n-gram postings here),
/// a file modified within `RACY_NS` of its reading is not kept: a second write in the same clock tick, of the same
/// size, would leave every time alike.
pub struct FileCache {
    inner: Mutex<CacheInner>,
    /// `search::ngram::RACY_NS`; shorter in tests.
    racy_ns: i64,
}

#[derive(Default)]
struct CacheInner {
    files: HashMap<String, (Stamp, Arc<str>)>,
    bytes: usize,
}

/// What a `stat` says of a file that a rewrite would change.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime_ns: i64,
    ctime_ns: i64,
}

impl Stamp {
    fn of(md: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            dev: md.dev(),
            ino: md.ino(),
            len: md.len(),
            mtime_ns: crate::search::ngram::mtime_ns(md),
            ctime_ns: crate::search::ngram::ctime_ns(md),
        }
    }
}

impl Default for FileCache {
    fn default() -> FileCache {
        FileCache {
            inner: Mutex::default(),
            racy_ns: crate::search::ngram::RACY_NS,
        }
    }
}

/// The texts kept at most, in bytes; past it the cache starts over.
const CACHE_BYTES: usize = 32 << 20;

impl FileCache {
    pub fn new() -> FileCache {
        FileCache::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, CacheInner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// [`read_decoded`], or the text kept from an earlier read of the same
    /// file.
    fn read(&self, root: &Path, rel: &str, limit: u64) -> Option<Arc<str>> {
        if let Ok(md) = std::fs::metadata(root.join(rel)) {
            let stamp = Stamp::of(&md);
            if let Some((kept, text)) = self.lock().files.get(rel)
                && *kept == stamp
            {
                return (stamp.len <= limit).then(|| Arc::clone(text));
            }
        }
        let (text, md) = read_decoded(root, rel, limit)?;
        let text: Arc<str> = text.into();
        let stamp = Stamp::of(&md);
        // Changed too recently, by its contents or its inode, to be kept
        // (`mtime_ns` is the later of the mtime and the ctime).
        let racy = crate::index::now_ns() - stamp.mtime_ns < self.racy_ns;
        if !racy && text.len() <= CACHE_BYTES / 4 {
            let mut inner = self.lock();
            if inner.bytes + text.len() > CACHE_BYTES {
                inner.files.clear();
                inner.bytes = 0;
            }
            inner.bytes += text.len();
            if let Some((_, old)) = inner
                .files
                .insert(rel.to_string(), (stamp, Arc::clone(&text)))
            {
                inner.bytes -= old.len();
            }
        }
        Some(text)
    }
}

/// The decoded text of a project file, read once, at most `limit` bytes,
/// and what the opened file's `stat` said.
fn read_decoded(root: &Path, rel: &str, limit: u64) -> Option<(String, std::fs::Metadata)> {
    let p = crate::paths::resolve_in_root(root, rel).ok()?;
    let mut bytes = Vec::new();
    let read = crate::fs_safe::open_regular(&p.abs).and_then(|f| {
        let md = f.metadata()?;
        f.take(limit + 1).read_to_end(&mut bytes)?;
        Ok(md)
    });
    let md = match read {
        Ok(md) => md,
        Err(e) => {
            tracing::debug!(path = rel, "cannot read back an indexed file: {e}");
            return None;
        }
    };
    if bytes.len() as u64 > limit {
        tracing::debug!(
            path = rel,
            limit,
            "an indexed file grew too large to read back"
        );
        return None;
    }
    match decode(&bytes) {
        Ok(t) => Some((t, md)),
        Err(reason) => {
            tracing::debug!(path = rel, "an indexed file no longer decodes: {reason}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::Extractor;
    use crate::model::Lang;

    #[test]
    fn the_file_cache_gives_a_file_as_it_is_now() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("secret.txt"), "secret\n").expect("write");
        std::fs::write(root.join("a.rs"), "fn one() {}\n").expect("write");
        // Every read is kept at once (a real cache waits `RACY_NS`).
        let cache = FileCache {
            inner: Mutex::default(),
            racy_ns: 0,
        };
        let read = |limit: u64| cache.read(&root, "a.rs", limit);
        let first = read(1 << 20).expect("reads");
        assert_eq!(&*first, "fn one() {}\n");
        let again = read(1 << 20).expect("reads");
        assert!(
            Arc::ptr_eq(&first, &again),
            "unchanged: taken from the cache"
        );
        // Over the limit, as an uncached read would say.
        assert!(read(4).is_none());
        // Rewritten with the same size: new times, new text.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(root.join("a.rs"), "fn two() {}\n").expect("write");
        assert_eq!(&*read(1 << 20).expect("reads"), "fn two() {}\n");
        // Swapped for a link out of the root: refused, not the kept text.
        std::fs::remove_file(root.join("a.rs")).expect("remove");
        std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("a.rs"))
            .expect("symlink");
        assert!(read(1 << 20).is_none());
        // Gone.
        std::fs::remove_file(root.join("a.rs")).expect("remove");
        assert!(read(1 << 20).is_none());
        // A cache of the default kind keeps nothing just written.
        std::fs::write(root.join("b.rs"), "fn b() {}\n").expect("write");
        let fresh = FileCache::new();
        let b = fresh.read(&root, "b.rs", 1 << 20).expect("reads");
        let b2 = fresh.read(&root, "b.rs", 1 << 20).expect("reads");
        assert!(
            !Arc::ptr_eq(&b, &b2),
            "modified within RACY_NS: read afresh"
        );
    }

    #[test]
    fn decode_rules() {
        assert_eq!(decode(b"fn main() {}").as_deref(), Ok("fn main() {}"));
        assert!(decode(b"abc\0def").unwrap_err().starts_with("binary"));
        let mut latin = b"// caf\xe9\n".to_vec();
        latin.extend(std::iter::repeat_n(b'x', 200));
        assert!(decode(&latin).is_ok(), "one bad byte is tolerated");
        assert!(decode(b"\x80\x81\x82\x83abc").is_err());
        assert_eq!(decode(b"\xEF\xBB\xBFhi").as_deref(), Ok("hi"));
        let utf16: Vec<u8> = [0xFF, 0xFE, b'h', 0, b'i', 0].to_vec();
        assert_eq!(decode(&utf16).as_deref(), Ok("hi"));
    }

    fn span(c: &crate::model::Chunk, file_size: u64) -> ChunkSpan {
        ChunkSpan {
            start_byte: c.start_byte as u64,
            end_byte: c.end_byte as u64,
            hash: xxhash_rust::xxh3::xxh3_64(c.text.as_bytes()),
            file_size,
        }
    }

    /// Files the way the indexer meets them: with a grammar, fallback
    /// definitions, docs, plain windows, a minified line sliced by bytes,
    /// CRLF, a UTF-8 BOM, Latin-1 bytes and UTF-16. Every chunk's stored
    /// range, read back through [`Sources`], is its text.
    fn samples() -> Vec<(&'static str, Lang, Vec<u8>)> {
        let py = "import os\n\nclass A:\n    \"\"\"Doc é.\"\"\"\n\n    def run(self):\n        return os.getcwd()\n\n\ndef main():\n    A().run()\n";
        let rs = "\u{feff}use std::io;\r\n\r\nfn a() -> io::Result<()> {\r\n    Ok(())\r\n}\r\n\r\nstruct S;\r\nimpl S {\r\n    fn b(&self) {}\r\n}\r\n";
        let md = "# Title\n\nSome text.\n\n## Part\n\nMore text ü.\n";
        let mut latin = b"# caf\xe9\n".to_vec();
        for i in 0..200 {
            latin.extend(format!("x{i} = {i}\n").as_bytes());
        }
        let mut utf16 = vec![0xFF, 0xFE];
        for u in "def f():\n    return 'ü'\n".encode_utf16() {
            utf16.extend(u.to_le_bytes());
        }
        let minified = format!("var x=1;{}\n", "function q(a){return a+1};".repeat(2000));
        let mut perl = String::new();
        for i in 0..90 {
            perl.push_str(&format!("sub f{i} {{\n  return {i};\n}}\n"));
        }
        vec![
            ("a.py", Lang::Python, py.as_bytes().to_vec()),
            ("b.rs", Lang::Rust, rs.as_bytes().to_vec()),
            ("README.md", Lang::Docs, md.as_bytes().to_vec()),
            ("c.py", Lang::Python, latin),
            ("d.py", Lang::Python, utf16),
            ("e.js", Lang::JavaScript, minified.into_bytes()),
            ("f.pl", Lang::OtherCode, perl.into_bytes()),
        ]
    }

    #[test]
    fn every_chunk_reads_back_from_its_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let mut ex = Extractor::new();
        let mut all = Vec::new();
        for (name, lang, bytes) in samples() {
            std::fs::write(root.join(name), &bytes).expect("write");
            let text = decode(&bytes).expect("decodes");
            let chunks = ex.extract(name, &text, lang).expect("extract").chunks;
            assert!(!chunks.is_empty(), "{name}");
            all.push((name, bytes.len() as u64, chunks));
        }
        let mut sources = Sources::new(&root);
        let mut sliced = 0;
        for (name, size, chunks) in &all {
            for c in chunks {
                let s = span(c, *size);
                assert_eq!(sources.chunk(name, &s), Some(c.text.as_str()), "{name}");
                let shown = sources.shown(name, &s, c.start_line, c.end_line);
                assert_eq!(shown.as_deref(), Some(c.text.as_str()));
                sliced += usize::from(c.start_line == c.end_line && c.text.len() >= 1000);
            }
        }
        assert!(sliced > 2, "the minified line is cut into slices");
    }

    /// A line found by its start is the line a split at `\n` gives, without
    /// a trailing `\r`; a line past the end is none.
    #[test]
    fn lines_are_found_by_their_starts_as_a_split_at_newlines_counts_them() {
        for text in ["a\r\nbb\n\nlast", "a\nb\n", "", "\n", "one"] {
            let starts = line_starts(text);
            for n in 0..6u32 {
                let split = (n as usize)
                    .checked_sub(1)
                    .and_then(|i| text.split('\n').nth(i))
                    .map(|l| l.strip_suffix('\r').unwrap_or(l));
                assert_eq!(line_in(text, &starts, n), split, "{text:?} line {n}");
            }
        }
    }

    /// Which signatures are their name's line: only of the kinds kept as
    /// positions, only when the trimmed line is the signature; read back,
    /// the line there now.
    #[test]
    fn line_signatures_are_the_names_lines() {
        let text = "#define A 1\r\nstruct s {\n\tint f;\n};\nint g(void);\n#define LONG \\\n  2\n";
        let symbols = Extractor::new()
            .extract("x.c", text, Lang::C)
            .expect("extract")
            .symbols;
        let flags = line_signatures(text, &symbols);
        let by_name = |n: &str| {
            let i = symbols.iter().position(|s| s.name == n).expect(n);
            (
                symbols[i].kind.clone(),
                symbols[i].signature.clone(),
                flags[i],
            )
        };
        assert_eq!(by_name("A"), ("macro".into(), "#define A 1".into(), true));
        assert_eq!(by_name("f"), ("field".into(), "int f;".into(), true));
        assert!(!by_name("s").2, "a type keeps its signature");
        assert!(!by_name("g").2, "a function keeps its signature");
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        std::fs::write(root.join("x.c"), text).expect("write");
        let at = LineSignature { file_size: 10 };
        let mut sources = Sources::new(&root);
        for (s, read_back) in symbols.iter().zip(&flags) {
            if *read_back {
                assert_eq!(sources.line_signature("x.c", &at, s.name_line), s.signature);
            }
        }
        std::fs::write(root.join("x.c"), "#define A 2\n").expect("edit");
        assert_eq!(
            Sources::new(&root).line_signature("x.c", &at, 1),
            "#define A 2"
        );
        assert_eq!(
            Sources::new(&root).line_signature("x.c", &at, 3),
            "",
            "past the end"
        );
        assert_eq!(Sources::new(&root).line_signature("gone.c", &at, 1), "");
    }

    /// A file edited since it was indexed: its changed chunks are stale
    /// (never another text under their name), an unchanged one still reads;
    /// a hit shows the current lines at its range, none past the end; a
    /// deleted, binary or swapped-for-a-FIFO file gives nothing.
    #[test]
    fn stale_chunks_never_read_wrong_text() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let before = "def a():\n    return 1\n\n\ndef b():\n    return 2\n";
        std::fs::write(root.join("m.py"), before).expect("write");
        let chunks = Extractor::new()
            .extract("m.py", before, Lang::Python)
            .expect("extract")
            .chunks;
        assert_eq!(chunks.len(), 2);
        let (a, b) = (span(&chunks[0], 40), span(&chunks[1], 40));
        // Same length, other text in `b`; `a` unchanged.
        std::fs::write(root.join("m.py"), before.replace("return 2", "return 3")).expect("edit");
        let mut sources = Sources::new(&root);
        assert_eq!(sources.chunk("m.py", &a), Some("def a():\n    return 1"));
        assert_eq!(sources.chunk("m.py", &b), None, "stale");
        assert_eq!(
            sources.shown("m.py", &b, 5, 6).as_deref(),
            Some("def b():\n    return 3"),
            "the current lines"
        );
        // A reader keeps what it read; a new one sees the file shrunk.
        std::fs::write(root.join("m.py"), "x = 1\n").expect("shrink");
        let mut sources = Sources::new(&root);
        assert_eq!(sources.chunk("m.py", &a), None);
        assert_eq!(sources.shown("m.py", &b, 5, 6), None, "past the end");
        assert_eq!(sources.shown("m.py", &a, 1, 2).as_deref(), Some("x = 1"));
        std::fs::write(root.join("m.py"), b"def a():\0\n").expect("binary");
        assert_eq!(Sources::new(&root).shown("m.py", &a, 1, 2), None);
        std::fs::remove_file(root.join("m.py")).expect("delete");
        assert_eq!(Sources::new(&root).shown("m.py", &a, 1, 2), None, "gone");
        assert_eq!(Sources::new(&root).chunk("../m.py", &a), None, "outside");
        #[cfg(unix)]
        {
            let made = std::process::Command::new("mkfifo")
                .arg(root.join("m.py"))
                .status()
                .is_ok_and(|s| s.success());
            if made {
                assert_eq!(Sources::new(&root).chunk("m.py", &a), None, "a FIFO");
            }
        }
    }
}
