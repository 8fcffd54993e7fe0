//! Index-accelerated keyword search, end to end through the real binary: a
//! search with the index's trigram postings must give exactly what a full
//! scan (`--no-index`) gives, also after files were edited, added, deleted
//! or renamed without re-indexing, for case folding, Unicode, binary and
//! UTF-16 files and ignore rules.

use std::time::{Duration, SystemTime};

use crate::common::*;

/// Sets a file's mtime `ago` in the past, so it is not "racy" (a file
/// changed within 2 s of being read is always read at search time).
fn age(p: &Project, rel: &str, ago: Duration) {
    let f = std::fs::File::options()
        .write(true)
        .open(p.path(rel))
        .expect("open to set mtime");
    f.set_modified(SystemTime::now() - ago).expect("set mtime");
}

/// Waits out the racy window of files just written: a file's change stamp
/// is the later of its mtime and its ctime, and `age` sets back only the
/// mtime (no tool can set back a ctime), so a file written less than 2 s
/// before an index run is read again at search time.
fn settle() {
    std::thread::sleep(Duration::from_millis(2_100));
}

fn write_aged(p: &Project, rel: &str, content: impl AsRef<[u8]>, ago: Duration) {
    p.write(rel, content);
    age(p, rel, ago);
}

const HOUR: Duration = Duration::from_secs(3600);

/// The search's JSON and, when the postings were used, how many files
/// they ruled out (from the service's debug line).
fn keyword(p: &Project, args: &[&str]) -> (serde_json::Value, Option<u64>) {
    let mut a = vec!["keyword", "--json", "--verbose", "--verbose"];
    a.extend_from_slice(args);
    let r = p.run(&a);
    assert!(r.code() <= 1, "{r}");
    let v: serde_json::Value =
        serde_json::from_str(&r.stdout()).unwrap_or_else(|e| panic!("bad JSON: {e}\n{r}"));
    let plain = strip_ansi(&r.stderr());
    let used = plain
        .lines()
        .find(|l| l.contains("files the postings ruled out"))
        .map(|l| {
            let n = l.split("ruled_out=").nth(1).unwrap_or_default();
            let digits: String = n.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().unwrap_or_else(|_| panic!("no count in {l}"))
        });
    (v, used)
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// Runs `args` with the index and with `--no-index`: the answers must be
/// identical. Returns how many files the postings ruled out (`None`: not
/// used), and the answer.
fn same_as_scan(p: &Project, args: &[&str]) -> (Option<u64>, serde_json::Value) {
    let (with, used) = keyword(p, args);
    let mut scan_args = args.to_vec();
    scan_args.push("--no-index");
    let (without, scan_used) = keyword(p, &scan_args);
    assert!(scan_used.is_none(), "--no-index must not read postings");
    assert_eq!(
        with, without,
        "index and scan differ for {args:?} (postings used: {used:?})"
    );
    (used, with)
}

fn matched(v: &serde_json::Value) -> Vec<String> {
    v["matches"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|m| format!("{}:{}", m["path"].as_str().unwrap_or(""), m["line"]))
                .collect()
        })
        .unwrap_or_default()
}

fn tree() -> Project {
    let p = Project::new();
    p.git_init();
    let files: &[(&str, &[u8])] = &[
        (".gitignore", b"ignored/\n"),
        (
            "src/alpha.py",
            b"def alpha_function():\n    return 'Alpha'\n",
        ),
        ("src/beta.py", b"def beta_function():\n    return 1\n"),
        (
            "src/gamma.rs",
            b"fn gamma_value() -> u32 { 42 }\r\n// CRLF line\r\n",
        ),
        (
            "docs/notes.txt",
            b"Stra\xc3\x9fe and \xe2\x84\xaaelvin and KISS\n",
        ),
        (
            "docs/greek.md",
            "Καλημέρα κόσμε, alpha and ΑΛΦΑ\n".as_bytes(),
        ),
        (
            "data/blob.bin",
            b"needle_in_binary\x00\x01\x02needle_after_nul\n",
        ),
        (
            "data/late.bin",
            &[b"x".repeat(70_000), b"\x00needle_late\n".to_vec()].concat(),
        ),
        ("ignored/secret.py", b"def alpha_function(): hidden\n"),
        (".hidden/dot.py", b"def alpha_function(): dot\n"),
        (
            "big/words.txt",
            b"unique_marker_word\nselect * from users\n",
        ),
    ];
    for (rel, content) in files {
        write_aged(&p, rel, content, HOUR);
    }
    // UTF-16 LE with a BOM: ripgrep transcodes it, so its raw bytes hold
    // no UTF-8 trigrams of the text.
    let mut utf16 = vec![0xFF, 0xFE];
    for u in "utf16_needle here\n".encode_utf16() {
        utf16.extend_from_slice(&u.to_le_bytes());
    }
    write_aged(&p, "data/wide.txt", utf16, HOUR);
    p
}

const CASES: &[&[&str]] = &[
    &["alpha_function"],
    // After the edits, alpha.py holds it at the same size: only its mtime
    // tells it changed.
    &["omega_function"],
    &["-i", "ALPHA"],
    &["-S", "alpha"],
    &["-S", "Alpha"],
    &["-w", "alpha"],
    &["-F", "return 'Alpha'"],
    &["-e", "beta_func", "-e", "gamma_val"],
    &["(alpha|beta)_function\\(\\)"],
    &["-i", "kiss"],
    &["-i", "kelvin"],
    &["-i", "straße"],
    &["Stra(ss|ß)e"],
    &["-i", "καλημέρα"],
    &["ΑΛΦΑ"],
    &["needle_in_binary"],
    &["needle_after_nul"],
    &["needle_late"],
    &["utf16_needle"],
    &["unique_marker_word"],
    &["-i", "SELECT \\* FROM"],
    &["CRLF line$"],
    &["--no-ignore", "alpha_function"],
    &["--hidden", "alpha_function"],
    &["-g", "*.py", "function"],
    &["-g", "!src/**", "alpha"],
    &["-m", "1", "-C", "1", "function"],
    &["alpha_function", "src/beta.py", "ignored/secret.py"],
    &["nothing_matches_this_zq"],
    &["\\w+"],
    &["fn"],
];

#[test]
fn indexed_search_equals_scan_before_and_after_edits() {
    let p = tree();
    settle();
    p.run(&["index", "--no-embed", "-q"]).ok();
    for case in CASES {
        same_as_scan(&p, case);
    }
    // The postings narrow selective patterns, and only those.
    let (used, v) = same_as_scan(&p, &["alpha_function"]);
    // Everything but alpha.py, the two binary files and the UTF-16 one.
    assert_eq!(used, Some(5), "a selective literal uses the postings");
    assert_eq!(matched(&v), ["src/alpha.py:1"]);
    assert_eq!(same_as_scan(&p, &["\\w+"]).0, None, "\\w+ narrows nothing");
    assert_eq!(
        same_as_scan(&p, &["fn"]).0,
        None,
        "two bytes narrow nothing"
    );
    // Kelvin sign and sharp s fold like ripgrep's matcher folds them.
    let (_, v) = same_as_scan(&p, &["-i", "kelvin"]);
    assert_eq!(matched(&v), ["docs/notes.txt:1"]);
    let (_, v) = same_as_scan(&p, &["utf16_needle"]);
    assert_eq!(matched(&v), ["data/wide.txt:1"]);

    // Edits after indexing, searched without re-indexing: a file gains a
    // match, one loses it (same size), one is added, one deleted, one
    // renamed; a fresh edit keeps a racy mtime.
    write_aged(
        &p,
        "src/beta.py",
        b"def beta_function():\n    return alpha_function()\n",
        HOUR / 2,
    );
    write_aged(
        &p,
        "src/alpha.py",
        b"def omega_function():\n    return 'Alpha'\n",
        HOUR / 2,
    );
    write_aged(
        &p,
        "src/new.py",
        b"alpha_function = None  # added\n",
        HOUR / 2,
    );
    p.remove("docs/greek.md");
    std::fs::rename(p.path("big/words.txt"), p.path("big/renamed.txt")).expect("rename");
    p.write("src/fresh.py", "unique_marker_word = alpha_function\n");
    for case in CASES {
        same_as_scan(&p, case);
    }
    let (used, v) = same_as_scan(&p, &["alpha_function"]);
    // Only the unchanged covered files without the trigrams: gamma.rs and
    // notes.txt (edited, added, renamed and fresh files are all read).
    assert_eq!(used, Some(2));
    assert_eq!(
        matched(&v),
        ["src/beta.py:2", "src/fresh.py:1", "src/new.py:1"]
    );
    // Hybrid search's keyword arm reads past the same postings (on an
    // index of any size): the edited, added and fresh files, none other.
    let v = p.json(&["search", "--mode", "keyword", "alpha_function"]);
    let mut arm: Vec<String> = v["hits"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|h| format!("{}:{}", h["path"].as_str().unwrap_or(""), h["start_line"]))
                .collect()
        })
        .unwrap_or_default();
    arm.sort();
    assert_eq!(
        arm,
        ["src/beta.py:2", "src/fresh.py:1", "src/new.py:1"],
        "{v}"
    );
    let (_, v) = same_as_scan(&p, &["unique_marker_word"]);
    assert_eq!(matched(&v), ["big/renamed.txt:1", "src/fresh.py:1"]);
    let (_, v) = same_as_scan(&p, &["omega_function"]);
    assert_eq!(matched(&v), ["src/alpha.py:1"], "a same-size edit is seen");
    let (_, v) = same_as_scan(&p, &["ΑΛΦΑ"]);
    assert!(matched(&v).is_empty());

    // An ignore rule dropped after indexing: the newly visible file is not
    // in the postings, so it is read.
    write_aged(&p, ".gitignore", b"", HOUR / 2);
    let (_, v) = same_as_scan(&p, &["alpha_function"]);
    assert!(matched(&v).contains(&"ignored/secret.py:1".to_string()));

    // Re-indexing takes the edits in; answers stay the same.
    settle();
    p.run(&["index", "--no-embed", "-q"]).ok();
    for case in CASES {
        same_as_scan(&p, case);
    }
}

#[test]
fn many_changes_are_merged_into_the_postings() {
    let p = Project::new();
    let n = 200;
    for i in 0..n {
        write_aged(
            &p,
            &format!("f/{i:03}.txt"),
            format!("file number {i:03} plain\n"),
            HOUR,
        );
    }
    settle();
    p.run(&["index", "--no-embed", "-q"]).ok();
    // More changes than the merge threshold: the next run merges them.
    for i in 0..150 {
        write_aged(
            &p,
            &format!("f/{i:03}.txt"),
            format!("file number {i:03} changed_marker_{i:03}\n"),
            HOUR / 2,
        );
    }
    for i in 150..n {
        p.remove(&format!("f/{i:03}.txt"));
    }
    let before = same_as_scan(&p, &["changed_marker_0[0-4]"]).1;
    settle();
    let r = p.run(&["index", "--no-embed", "-q", "-vv"]).ok();
    assert!(
        r.stderr().contains("read: 150"),
        "the 150 changed files are merged: {}",
        r.stderr()
    );
    let (used, after) = same_as_scan(&p, &["changed_marker_0[0-4]"]);
    // All but the 50 candidates were merged and are ruled out.
    assert_eq!(used, Some(100));
    assert_eq!(before, after);
    assert_eq!(matched(&after).len(), 50);
    let (_, v) = same_as_scan(&p, &["number 17[0-9]"]);
    assert!(matched(&v).is_empty(), "deleted files are gone");
    same_as_scan(&p, &["plain"]);
    same_as_scan(&p, &["-i", "FILE NUMBER 1"]);
}

/// A large generated file (like the kernel's register headers) holds every
/// trigram of an upper-case literal, scattered over its lines: its block
/// map rules it out, and a line that does match is still found, also after
/// an edit and after the edit is merged.
#[test]
fn large_files_are_ruled_out_by_their_blocks() {
    let p = Project::new();
    let filler = "#define REG_FIELD_MASK 0x0000ffffL\n";
    let body = |middle: &str| {
        let n = (3 << 20) / filler.len();
        let mut text = String::with_capacity(n * filler.len() + 64);
        for i in 0..n {
            match i {
                10 => text.push_str("#define CONFIG_NUMA 1\n"),
                _ if i == n / 2 => text.push_str(middle),
                _ if i == n - 10 => text.push_str("#define NUMA_BALANCING 2\n"),
                _ => text.push_str(filler),
            }
        }
        text
    };
    write_aged(&p, "gen/regs.h", body(filler), HOUR);
    write_aged(&p, "src/small.c", "int x;\n", HOUR);
    settle();
    p.run(&["index", "--no-embed", "-q"]).ok();
    let (used, v) = same_as_scan(&p, &["CONFIG_NUMA_BALANCING"]);
    assert_eq!(used, Some(2), "both files ruled out");
    assert!(matched(&v).is_empty());
    // Other patterns, with and without a match in the large file.
    same_as_scan(&p, &["-i", "config_numa"]);
    same_as_scan(&p, &["REG_FIELD_MASK 0x0000ffffL$"]);
    // An edit that puts the literal on one line: read as changed, found.
    write_aged(
        &p,
        "gen/regs.h",
        body("x = CONFIG_NUMA_BALANCING;\n"),
        HOUR / 2,
    );
    let (_, v) = same_as_scan(&p, &["CONFIG_NUMA_BALANCING"]);
    assert_eq!(matched(&v).len(), 1);
    // Rebuilt, the new block map admits it.
    settle();
    p.run(&["index", "--no-embed", "-q", "--full"]).ok();
    let (used, v) = same_as_scan(&p, &["CONFIG_NUMA_BALANCING"]);
    assert_eq!(used, Some(1), "only the small file is ruled out");
    assert_eq!(matched(&v).len(), 1);
}

/// Hybrid search does not rank by a literal the postings place in more
/// than 2,000 files (reading them all would cost more than the count says):
/// the other arms answer, the arm's report says why. Asked for alone
/// (`--mode keyword`), the arm reads them all.
#[test]
fn a_literal_in_too_many_files_is_left_to_the_other_arms() {
    let p = Project::new();
    p.write(
        "mail/mailer.py",
        "class Mailer:\n    def send_it(self):\n        return 1\n",
    );
    for i in 0..2001 {
        p.write(
            &format!("calls/c{:02}/m{i}.py", i % 40),
            format!("def caller_{i}(m):\n    return m.send_it()\n"),
        );
    }
    settle();
    p.run(&["index", "--no-embed", "-q"]).ok();
    let v = p.json(&["search", "Mailer.send_it"]);
    let arm = crate::common::arm_report(&v, "keyword");
    assert_eq!(arm["candidates"], 0, "{v}");
    assert!(
        arm["note"]
            .as_str()
            .is_some_and(|n| n.contains("too common")),
        "{v}"
    );
    assert_eq!(v["hits"][0]["path"], "mail/mailer.py", "{v}");
    let v = p.json(&["search", "--mode", "keyword", "Mailer.send_it"]);
    assert_eq!(v["hits"].as_array().map_or(0, |h| h.len()), 10, "{v}");
}
