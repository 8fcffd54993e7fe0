//! The compact form of one file's definitions and references: each file's
//! rows are one blob (`symbol_files.data`, `ref_files.data`), not one table
//! row per definition or reference, and a name is found through a small
//! `(name, file)` table. On the Linux kernel a table row per reference cost
//! 38 bytes plus two index entries; in a blob a reference costs about 6.
//!
//! A blob is:
//! - a format byte ([`FORMAT`]);
//! - the file's distinct strings (names, kinds, containers, signatures,
//!   qualifiers, scopes), each once: a LEB128 count, then each as its
//!   LEB128 byte length and UTF-8 bytes;
//! - a LEB128 count of entries, then each entry as LEB128 numbers: string
//!   numbers (optional ones plus one, 0 for none) and lines as the
//!   zig-zag difference from the previous entry's line.
//!
//! Entries are stored in the order readers want them: references by line
//! and column, definitions by start line, the longer first, then as
//! extracted. A blob that does not decode is reported as a damaged index
//! (`SQLITE_CORRUPT`), never as fewer rows.
//!
//! A blob of [`DEFLATE_FROM`] bytes or more is stored deflated when that
//! is smaller ([`deflate`]: a [`DEFLATED`] byte, then the raw deflate
//! stream of the whole blob above): names in one file share long
//! prefixes, and on the kernel this takes definitions from 196 to 59 MiB
//! and references from 88 to 45. [`inflate`] undoes it.

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};
use std::borrow::Cow;
use std::io::{Read, Write};

use crate::model::{Reference, Symbol};

/// The one format written; another value is a damaged blob.
const FORMAT: u8 = 1;

/// The first byte of a deflated blob.
const DEFLATED: u8 = 2;

/// Blobs shorter than this are stored as they are.
const DEFLATE_FROM: usize = 128;

/// The most a deflated blob may inflate to: a damaged blob must not take
/// the memory (a real file's rows are far below: the largest kernel file
/// holds 22,000 definitions in under 1 MiB).
const MAX_INFLATED: u64 = 256 << 20;

/// `raw` (a blob of [`encode_symbols`] or [`encode_refs`]) in its stored
/// form: deflated when it is long and that makes it smaller.
pub fn deflate(raw: Vec<u8>) -> Vec<u8> {
    if raw.len() < DEFLATE_FROM {
        return raw;
    }
    let mut out = Vec::with_capacity(raw.len() / 2);
    out.push(DEFLATED);
    let mut z = flate2::write::DeflateEncoder::new(out, flate2::Compression::fast());
    match z.write_all(&raw).and_then(|()| z.finish()) {
        Ok(out) if out.len() < raw.len() => out,
        _ => raw,
    }
}

/// A stored blob as [`decode_symbols`] and [`decode_refs`] read it.
pub fn inflate(blob: &[u8]) -> rusqlite::Result<Cow<'_, [u8]>> {
    match blob.first() {
        Some(&DEFLATED) => {
            let mut raw = Vec::with_capacity(blob.len() * 4);
            flate2::read::DeflateDecoder::new(&blob[1..])
                .take(MAX_INFLATED)
                .read_to_end(&mut raw)
                .map_err(|_| damaged("deflated"))?;
            Ok(Cow::Owned(raw))
        }
        _ => Ok(Cow::Borrowed(blob)),
    }
}

/// One definition, its strings as numbers into [`Packed::strings`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SymbolEntry {
    pub name: u32,
    pub kind: u32,
    pub container: Option<u32>,
    /// `None`: the signature is the name's line, read from the file.
    pub signature: Option<u32>,
    pub start_line: u32,
    pub end_line: u32,
    pub name_line: u32,
    pub name_col: u32,
}

/// One reference, its strings as numbers into [`Packed::strings`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefEntry {
    pub name: u32,
    pub kind: u32,
    pub line: u32,
    pub col: u32,
    pub qualifier: Option<u32>,
    pub scope: Option<u32>,
}

/// A decoded blob: the strings borrowed from it, and its entries.
#[derive(Debug)]
pub struct Packed<'a, E> {
    pub strings: Vec<&'a str>,
    pub entries: Vec<E>,
}

impl<'a, E> Packed<'a, E> {
    /// String number `n` ("" for a number out of range, which
    /// [`decode_symbols`] and [`decode_refs`] never return).
    pub fn str(&self, n: u32) -> &'a str {
        self.strings.get(n as usize).copied().unwrap_or("")
    }

    pub fn opt(&self, n: Option<u32>) -> Option<&'a str> {
        n.map(|n| self.str(n))
    }
}

/// The error a blob that does not decode is reported as.
pub fn damaged(what: &str) -> rusqlite::Error {
    rusqlite::Error::SqliteFailure(
        rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_CORRUPT),
        Some(format!("a damaged {what} blob in the index")),
    )
}

/// Numbers each distinct string of a file in order of first use.
struct Strings<'a> {
    numbers: HashMap<&'a str, u32>,
    order: Vec<&'a str>,
}

impl<'a> Strings<'a> {
    fn new() -> Self {
        Strings {
            numbers: HashMap::new(),
            order: Vec::new(),
        }
    }

    fn number(&mut self, s: &'a str) -> u32 {
        if let Some(&n) = self.numbers.get(s) {
            return n;
        }
        let n = self.order.len() as u32;
        self.numbers.insert(s, n);
        self.order.push(s);
        n
    }

    /// The blob: the format byte, this string table, then `body`.
    fn finish(&self, body: &[u8]) -> Vec<u8> {
        let mut out = Vec::with_capacity(body.len() + 16 * self.order.len());
        self.write(&mut out);
        out.extend_from_slice(body);
        out
    }

    fn write(&self, out: &mut Vec<u8>) {
        out.push(FORMAT);
        put(out, self.order.len() as u64);
        for s in &self.order {
            put(out, s.len() as u64);
            out.extend_from_slice(s.as_bytes());
        }
    }
}

fn put(out: &mut Vec<u8>, mut v: u64) {
    loop {
        let byte = (v & 0x7F) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn put_opt(out: &mut Vec<u8>, v: Option<u32>) {
    put(out, v.map_or(0, |v| u64::from(v) + 1));
}

fn zigzag(d: i64) -> u64 {
    ((d << 1) ^ (d >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Reads LEB128 numbers and strings from a blob; `None` past its end.
struct Reader<'a> {
    blob: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn num(&mut self) -> Option<u64> {
        let mut v = 0u64;
        let mut shift = 0u32;
        loop {
            let b = *self.blob.get(self.at)?;
            self.at += 1;
            if shift >= 64 {
                return None;
            }
            v |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
            shift += 7;
        }
    }

    fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.num()?).ok()
    }

    /// A string number below `count`.
    fn string(&mut self, count: usize) -> Option<u32> {
        self.u32().filter(|&n| (n as usize) < count)
    }

    /// An optional string number below `count` (stored plus one).
    fn opt_string(&mut self, count: usize) -> Option<Option<u32>> {
        match self.num()? {
            0 => Some(None),
            n => {
                let n = u32::try_from(n - 1).ok()?;
                ((n as usize) < count).then_some(Some(n))
            }
        }
    }

    /// A line stored as the zig-zag difference from `prev`.
    fn line(&mut self, prev: u32) -> Option<u32> {
        u32::try_from(i64::from(prev) + unzigzag(self.num()?)).ok()
    }

    /// The format byte and the string table.
    fn strings(&mut self) -> Option<Vec<&'a str>> {
        if *self.blob.get(self.at)? != FORMAT {
            return None;
        }
        self.at += 1;
        let count = usize::try_from(self.num()?).ok()?;
        let mut strings = Vec::with_capacity(count.min(self.blob.len()));
        for _ in 0..count {
            let len = usize::try_from(self.num()?).ok()?;
            let end = self.at.checked_add(len)?;
            let s = std::str::from_utf8(self.blob.get(self.at..end)?).ok()?;
            self.at = end;
            strings.push(s);
        }
        Some(strings)
    }
}

/// The blob of a file's definitions, sorted by start line (the longer
/// first, then as extracted); `line_signature[i]` says symbol `i`'s
/// signature is its name's line (stored as none).
pub fn encode_symbols(symbols: &[Symbol], line_signature: &dyn Fn(usize) -> bool) -> Vec<u8> {
    let mut order: Vec<usize> = (0..symbols.len()).collect();
    order.sort_by(|&a, &b| {
        let (x, y) = (&symbols[a], &symbols[b]);
        (x.start_line, std::cmp::Reverse(x.end_line), a).cmp(&(
            y.start_line,
            std::cmp::Reverse(y.end_line),
            b,
        ))
    });
    let mut strings = Strings::new();
    let mut body = Vec::with_capacity(symbols.len() * 8);
    put(&mut body, symbols.len() as u64);
    let mut prev = 0u32;
    for i in order {
        let s = &symbols[i];
        put(&mut body, u64::from(strings.number(&s.name)));
        put(&mut body, u64::from(strings.number(&s.kind)));
        put_opt(&mut body, s.container.as_deref().map(|c| strings.number(c)));
        put_opt(
            &mut body,
            (!line_signature(i)).then(|| strings.number(&s.signature)),
        );
        put(&mut body, zigzag(i64::from(s.start_line) - i64::from(prev)));
        put(
            &mut body,
            zigzag(i64::from(s.end_line) - i64::from(s.start_line)),
        );
        put(
            &mut body,
            zigzag(i64::from(s.name_line) - i64::from(s.start_line)),
        );
        put(&mut body, u64::from(s.name_column));
        prev = s.start_line;
    }
    strings.finish(&body)
}

/// Decodes a blob written by [`encode_symbols`].
pub fn decode_symbols(blob: &[u8]) -> rusqlite::Result<Packed<'_, SymbolEntry>> {
    decode(blob, "definitions", |r, n, prev| {
        let name = r.string(n)?;
        let kind = r.string(n)?;
        let container = r.opt_string(n)?;
        let signature = r.opt_string(n)?;
        let start_line = r.line(*prev)?;
        let end_line = r.line(start_line)?;
        let name_line = r.line(start_line)?;
        let name_col = r.u32()?;
        *prev = start_line;
        Some(SymbolEntry {
            name,
            kind,
            container,
            signature,
            start_line,
            end_line,
            name_line,
            name_col,
        })
    })
}

/// Decodes a blob: its string table, then its entries, each read by
/// `entry` (given the string count and the previous entry's line); the
/// whole blob must be read.
fn decode<'a, E>(
    blob: &'a [u8],
    what: &str,
    mut entry: impl FnMut(&mut Reader<'a>, usize, &mut u32) -> Option<E>,
) -> rusqlite::Result<Packed<'a, E>> {
    (|| {
        let mut r = Reader { blob, at: 0 };
        let strings = r.strings()?;
        let n = strings.len();
        let count = usize::try_from(r.num()?).ok()?;
        let mut entries = Vec::with_capacity(count.min(blob.len()));
        let mut prev = 0u32;
        for _ in 0..count {
            entries.push(entry(&mut r, n, &mut prev)?);
        }
        (r.at == blob.len()).then_some(Packed { strings, entries })
    })()
    .ok_or_else(|| damaged(what))
}

/// The blob of a file's references, sorted by line and column (then as
/// extracted).
pub fn encode_refs(refs: &[Reference]) -> Vec<u8> {
    let mut order: Vec<usize> = (0..refs.len()).collect();
    order.sort_by_key(|&i| (refs[i].line, refs[i].column, i));
    let mut strings = Strings::new();
    let mut body = Vec::with_capacity(refs.len() * 6);
    put(&mut body, refs.len() as u64);
    let mut prev = 0u32;
    for i in order {
        let r = &refs[i];
        put(&mut body, u64::from(strings.number(&r.name)));
        put(&mut body, u64::from(strings.number(&r.kind)));
        put(&mut body, zigzag(i64::from(r.line) - i64::from(prev)));
        put(&mut body, u64::from(r.column));
        put_opt(&mut body, r.qualifier.as_deref().map(|q| strings.number(q)));
        put_opt(&mut body, r.scope.as_deref().map(|s| strings.number(s)));
        prev = r.line;
    }
    strings.finish(&body)
}

/// Decodes a blob written by [`encode_refs`].
pub fn decode_refs(blob: &[u8]) -> rusqlite::Result<Packed<'_, RefEntry>> {
    decode(blob, "references", |r, n, prev| {
        let name = r.string(n)?;
        let kind = r.string(n)?;
        let line = r.line(*prev)?;
        let col = r.u32()?;
        let qualifier = r.opt_string(n)?;
        let scope = r.opt_string(n)?;
        *prev = line;
        Some(RefEntry {
            name,
            kind,
            line,
            col,
            qualifier,
            scope,
        })
    })
}

/// The distinct names of a file's definitions, each with its number among
/// the names equal to it but for ASCII case (0 for the first): the rows of
/// `symbol_names`, whose NOCASE key would otherwise merge `Foo` and `foo`.
pub fn symbol_name_rows(symbols: &[Symbol]) -> Vec<(&str, u32)> {
    let mut seen: HashMap<&str, ()> = HashMap::new();
    let mut variants: HashMap<String, u32> = HashMap::new();
    let mut rows = Vec::new();
    for s in symbols {
        if seen.insert(&s.name, ()).is_some() {
            continue;
        }
        let n = variants.entry(s.name.to_ascii_lowercase()).or_insert(0);
        rows.push((s.name.as_str(), *n));
        *n += 1;
    }
    rows
}

/// The distinct names the entries of a stored definitions blob have
/// (what its `symbol_names` rows were made from).
pub fn stored_symbol_names(blob: &[u8]) -> rusqlite::Result<Vec<String>> {
    let raw = inflate(blob)?;
    let p = decode_symbols(&raw)?;
    Ok(distinct_names(&p, p.entries.iter().map(|e| e.name)))
}

/// The distinct names the entries of a stored references blob have.
pub fn stored_ref_names(blob: &[u8]) -> rusqlite::Result<Vec<String>> {
    let raw = inflate(blob)?;
    let p = decode_refs(&raw)?;
    Ok(distinct_names(&p, p.entries.iter().map(|e| e.name)))
}

fn distinct_names<E>(p: &Packed<'_, E>, names: impl Iterator<Item = u32>) -> Vec<String> {
    let mut seen = HashSet::new();
    names
        .filter(|n| seen.insert(*n))
        .map(|n| p.str(n).to_string())
        .collect()
}

/// The distinct names of a file's references.
pub fn ref_names(refs: &[Reference]) -> Vec<&str> {
    let mut seen = HashSet::new();
    refs.iter()
        .map(|r| r.name.as_str())
        .filter(|n| seen.insert(*n))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry as (name, line, end line or column, container or qualifier,
    /// signature or scope).
    type Seen<'a> = (&'a str, u32, u32, Option<&'a str>, Option<&'a str>);

    fn symbol(name: &str, start: u32, end: u32) -> Symbol {
        Symbol {
            name: name.to_string(),
            kind: "function".to_string(),
            container: (start > 5).then(|| "Outer".to_string()),
            signature: format!("fn {name}()"),
            start_line: start,
            end_line: end,
            name_line: start + 1,
            name_column: 4,
        }
    }

    #[test]
    fn symbols_roundtrip_in_outline_order() {
        let symbols = vec![
            symbol("b", 10, 12),
            symbol("a", 1, 3),
            symbol("outer", 10, 40),
            symbol("a", 7, 7),
        ];
        let blob = encode_symbols(&symbols, &|i| i == 3);
        let p = decode_symbols(&blob).expect("decodes");
        let stored = deflate(blob.clone());
        assert_eq!(inflate(&stored).expect("inflates").as_ref(), &blob[..]);
        let got: Vec<Seen<'_>> = p
            .entries
            .iter()
            .map(|e| {
                (
                    p.str(e.name),
                    e.start_line,
                    e.end_line,
                    p.opt(e.container),
                    p.opt(e.signature),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("a", 1, 3, None, Some("fn a()")),
                ("a", 7, 7, Some("Outer"), None),
                ("outer", 10, 40, Some("Outer"), Some("fn outer()")),
                ("b", 10, 12, Some("Outer"), Some("fn b()")),
            ]
        );
        assert!(
            p.entries
                .iter()
                .all(|e| e.name_line == e.start_line + 1 && e.name_col == 4)
        );
    }

    #[test]
    fn refs_roundtrip_by_line_and_column() {
        let r = |name: &str, line: u32, column: u32, q: Option<&str>| Reference {
            name: name.to_string(),
            kind: "call".to_string(),
            line,
            column,
            qualifier: q.map(str::to_string),
            scope: (line > 2).then(|| "Session.send".to_string()),
        };
        let refs = vec![
            r("send", 9, 3, Some("self")),
            r("get", 2, 8, None),
            r("send", 2, 1, None),
        ];
        let blob = encode_refs(&refs);
        let p = decode_refs(&blob).expect("decodes");
        let got: Vec<Seen<'_>> = p
            .entries
            .iter()
            .map(|e| {
                (
                    p.str(e.name),
                    e.line,
                    e.col,
                    p.opt(e.qualifier),
                    p.opt(e.scope),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("send", 2, 1, None, None),
                ("get", 2, 8, None, None),
                ("send", 9, 3, Some("self"), Some("Session.send")),
            ]
        );
        assert_eq!(ref_names(&refs), vec!["send", "get"]);
    }

    #[test]
    fn damaged_blobs_are_errors_not_fewer_rows() {
        let blob = encode_refs(&[Reference {
            name: "x".into(),
            kind: "call".into(),
            line: 1,
            column: 1,
            qualifier: None,
            scope: None,
        }]);
        for cut in 0..blob.len() {
            assert!(decode_refs(&blob[..cut]).is_err(), "cut at {cut}");
        }
        let mut longer = blob.clone();
        longer.push(0);
        assert!(decode_refs(&longer).is_err());
        let mut format = blob;
        format[0] = 9;
        assert!(decode_refs(&format).is_err());
        assert!(decode_symbols(&[]).is_err());
        assert!(
            inflate(&[DEFLATED, 0xff, 0x00]).is_err(),
            "not a deflate stream"
        );
    }

    /// A long blob is stored deflated, smaller, and reads back the same;
    /// a short one is stored as it is.
    #[test]
    fn long_blobs_are_deflated() {
        let symbols: Vec<Symbol> = (0..200)
            .map(|i| symbol(&format!("mmDCP{i}_GRPH_CONTROL__GRPH_DEPTH_MASK"), i, i))
            .collect();
        let raw = encode_symbols(&symbols, &|_| true);
        let stored = deflate(raw.clone());
        assert!(
            stored.len() * 3 < raw.len(),
            "{} of {}",
            stored.len(),
            raw.len()
        );
        let back = inflate(&stored).expect("inflates");
        assert_eq!(decode_symbols(&back).expect("decodes").entries.len(), 200);
        let short = encode_symbols(&symbols[..1], &|_| true);
        assert_eq!(deflate(short.clone()), short);
    }

    #[test]
    fn name_rows_number_case_variants() {
        let symbols = vec![
            symbol("Foo", 1, 1),
            symbol("foo", 2, 2),
            symbol("Foo", 3, 3),
            symbol("bar", 4, 4),
        ];
        assert_eq!(
            symbol_name_rows(&symbols),
            vec![("Foo", 0), ("foo", 1), ("bar", 0)]
        );
    }
}
