//! Faults of the index itself: a damaged `index.db` is set aside and
//! rebuilt while the command still answers; a file where the index
//! directory belongs, or a directory where the database belongs, is an
//! error with a hint; a read-only index answers reads.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use crate::common::*;
use crate::mcp::{Era, Mcp};

fn project() -> Project {
    let p = Project::new();
    p.write(
        "src/settings.rs",
        "/// Reads the settings file.\npub fn parse_config(path: &str) -> Settings {\n    Settings { name: path.to_string() }\n}\n\npub struct Settings {\n    pub name: String,\n}\n",
    )
    .write(
        "src/main.rs",
        "mod settings;\n\nfn main() {\n    let s = settings::parse_config(\"app.toml\");\n    println!(\"{}\", s.name);\n}\n",
    );
    p
}

fn set_aside_copies(p: &Project) -> Vec<PathBuf> {
    std::fs::read_dir(p.path(".repo_search"))
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| {
                    let name = p.to_string_lossy();
                    name.contains("index.db.corrupt-")
                        && !name.ends_with("-wal")
                        && !name.ends_with("-shm")
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Overwrites every page after the first (the schema stays readable, the
/// tables do not): SQLite then reports "database disk image is malformed".
fn damage_pages(db: &Path) {
    let mut bytes = std::fs::read(db).expect("read index.db");
    assert!(bytes.len() > 8192, "index.db too small to damage");
    for b in bytes[4096..].iter_mut() {
        *b = 0xA5;
    }
    std::fs::write(db, bytes).expect("write damaged index.db");
}

#[test]
fn a_damaged_index_is_set_aside_and_rebuilt_and_the_command_answers() {
    let p = project();
    p.run(&["index", "--no-embed"]).ok();
    damage_pages(&p.path(".repo_search/index.db"));

    let r = p.run(&["symbol", "parse_config"]).ok();
    assert!(r.stdout().contains("src/settings.rs"), "{r}");
    assert!(
        r.stderr().contains("damaged"),
        "a warning says what happened: {r}"
    );
    assert_eq!(
        set_aside_copies(&p).len(),
        1,
        "the damaged file is kept aside"
    );

    // The new index answers everything, and the next command sets nothing aside.
    let r = p.run(&["search", "parse config settings"]).ok();
    assert!(r.stdout().contains("src/settings.rs"), "{r}");
    assert_eq!(set_aside_copies(&p).len(), 1);
}

#[test]
fn a_file_that_is_not_a_database_is_set_aside_by_the_next_index_run() {
    let p = project();
    p.run(&["index", "--no-embed"]).ok();
    std::fs::write(p.path(".repo_search/index.db"), vec![0x42u8; 64 * 1024]).unwrap();

    let r = p.run(&["index", "--no-embed"]).ok();
    assert!(r.stderr().contains("damaged"), "{r}");
    assert_eq!(set_aside_copies(&p).len(), 1);
    let r = p.run(&["symbol", "Settings"]).ok();
    assert!(r.stdout().contains("src/settings.rs"), "{r}");
}

#[test]
fn the_mcp_server_repairs_a_damaged_index_and_answers() {
    let p = project();
    p.run(&["index", "--no-embed"]).ok();
    damage_pages(&p.path(".repo_search/index.db"));

    let m = Mcp::start(&p, Era::Legacy);
    let found = poll_until(Duration::from_secs(60), || {
        let r = m
            .call("find_symbol", json!({"name": "parse_config"}))
            .ok()?;
        if r.is_error == Some(true) {
            return None;
        }
        let v = r.structured_content?;
        v.to_string().contains("src/settings.rs").then_some(v)
    });
    assert!(
        found.is_some(),
        "find_symbol never answered from a rebuilt index"
    );
    assert_eq!(set_aside_copies(&p).len(), 1);
}

#[test]
fn a_file_where_the_index_directory_belongs_is_an_error_with_a_hint() {
    let p = project();
    p.write(".repo_search", "not a directory\n");
    let r = p.run(&["index", "--no-embed"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("is a file"), "{r}");
    assert!(r.stderr().contains("hint:"), "{r}");
    // Reads fail the same way rather than answering from no index.
    let r = p.run(&["status"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("is a file"), "{r}");
    // The file is left alone.
    assert_eq!(
        std::fs::read_to_string(p.path(".repo_search")).unwrap(),
        "not a directory\n"
    );

    let m = Mcp::start(&p, Era::Legacy);
    let r = m.call("index_status", json!({})).expect("index_status");
    assert_eq!(r.is_error, Some(true), "{r:?}");
    assert!(crate::mcp::error_text(&r).contains("is a file"), "{r:?}");
}

#[test]
fn a_directory_where_the_database_belongs_is_an_error_with_a_hint() {
    let p = project();
    std::fs::create_dir_all(p.path(".repo_search/index.db")).unwrap();
    let r = p.run(&["symbol", "parse_config"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(r.stderr().contains("not a regular file"), "{r}");
    assert!(r.stderr().contains("code: INDEX_CORRUPT"), "{r}");
    assert!(r.stderr().contains("hint:"), "{r}");
}

/// Runs `f` with the project's files on a read-only file system: a tmpfs
/// remounted read-only when running as root (permission bits do not stop
/// root), else `chmod -R a-w`. `None` when neither can be arranged here.
fn read_only_project(f: impl FnOnce(&Project)) -> Option<()> {
    let root_user = repo_search::fs_safe::euid() == 0;
    let p = project();
    if root_user {
        let mnt = tempfile::tempdir().unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64m", "tmpfs"])
            .arg(mnt.path())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return None;
        }
        let q = Project {
            dir: tempfile::tempdir_in(mnt.path()).unwrap(),
            home: tempfile::tempdir().unwrap(),
        };
        for rel in ["src/settings.rs", "src/main.rs"] {
            q.write(rel, std::fs::read(p.path(rel)).unwrap());
        }
        q.run(&["index", "--no-embed"]).ok();
        let ro = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(mnt.path())
            .status()
            .is_ok_and(|s| s.success());
        if ro {
            f(&q);
        }
        let _ = Command::new("umount").arg("-l").arg(mnt.path()).status();
        drop(q);
        ro.then_some(())
    } else {
        p.run(&["index", "--no-embed"]).ok();
        let chmod = |mode: &str| {
            Command::new("chmod")
                .args(["-R", mode])
                .arg(p.path(".repo_search"))
                .status()
                .is_ok_and(|s| s.success())
        };
        if !chmod("a-w") {
            return None;
        }
        f(&p);
        chmod("u+w");
        Some(())
    }
}

#[test]
fn a_read_only_index_answers_reads_and_says_why_it_cannot_be_updated() {
    let ran = read_only_project(|p| {
        let r = p.run(&["symbol", "parse_config"]).ok();
        assert!(r.stdout().contains("src/settings.rs"), "{r}");
        let r = p.run(&["search", "parse config"]).ok();
        assert!(r.stdout().contains("src/settings.rs"), "{r}");
        let r = p.run(&["status"]).ok();
        assert!(!r.stdout().is_empty(), "{r}");
        let r = p.run(&["index", "--no-embed", "--full"]);
        assert_eq!(r.code(), 2, "{r}");
        assert!(r.stderr().contains("cannot be written"), "{r}");
        assert!(r.stderr().contains("hint:"), "{r}");
    });
    if ran.is_none() {
        eprintln!("skipped: cannot make a read-only file system here");
    }
}

#[test]
fn a_full_disk_is_a_clear_error_and_the_previous_index_still_answers() {
    let root_user = repo_search::fs_safe::euid() == 0;
    if !root_user {
        eprintln!("skipped: a small file system to fill needs root (tmpfs)");
        return;
    }
    let mnt = tempfile::tempdir().unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=8m", "tmpfs"])
        .arg(mnt.path())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount a tmpfs here");
        return;
    }
    let p = Project {
        dir: tempfile::tempdir_in(mnt.path()).unwrap(),
        home: tempfile::tempdir().unwrap(),
    };
    let src = project();
    for rel in ["src/settings.rs", "src/main.rs"] {
        p.write(rel, std::fs::read(src.path(rel)).unwrap());
    }
    p.run(&["index", "--no-embed"]).ok();
    // New code to index, then fill the disk.
    let mut body = String::new();
    for i in 0..400 {
        body.push_str(&format!(
            "pub fn generated_function_{i}(x: u64) -> u64 {{ x * {i} + 1 }}\n"
        ));
    }
    p.write("src/generated.rs", &body);
    {
        use std::io::Write;
        let mut f = std::fs::File::create(mnt.path().join("filler")).unwrap();
        let block = vec![0u8; 64 * 1024];
        while f.write_all(&block).is_ok() {}
        let _ = f.flush();
    }
    let r = p.run(&["index", "--no-embed"]);
    let result = std::panic::catch_unwind(|| {
        assert_eq!(r.code(), 2, "{r}");
        assert!(r.stderr().contains("full"), "{r}");
        assert!(r.stderr().contains("hint:"), "{r}");
        let _ = std::fs::remove_file(mnt.path().join("filler"));
        let r = p.run(&["symbol", "parse_config"]).ok();
        assert!(r.stdout().contains("src/settings.rs"), "{r}");
    });
    drop(p);
    let _ = Command::new("umount").arg("-l").arg(mnt.path()).status();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}

/// What an index holds, in a comparable form: every file with its hash,
/// every symbol and reference (with their name rows), every chunk (and the full-text rows that find them).
fn dump(p: &Project) -> Vec<String> {
    let conn = rusqlite::Connection::open_with_flags(
        p.path(".repo_search/index.db"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .expect("open index");
    let mut out = Vec::new();
    let mut rows = |sql: &str| {
        let mut st = conn.prepare(sql).expect("prepare");
        let n = st.column_count();
        let mut q = st.query([]).expect("query");
        while let Some(r) = q.next().expect("row") {
            let cols: Vec<String> = (0..n)
                .map(|i| match r.get_ref(i).expect("col") {
                    rusqlite::types::ValueRef::Null => "-".to_string(),
                    rusqlite::types::ValueRef::Integer(v) => v.to_string(),
                    rusqlite::types::ValueRef::Real(v) => v.to_string(),
                    rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
                    rusqlite::types::ValueRef::Blob(b) => format!("{} bytes", b.len()),
                })
                .collect();
            out.push(cols.join("|"));
        }
    };
    rows("SELECT 'file', path, hash, coalesce(skip_reason, '') FROM files ORDER BY path");
    rows(
        "SELECT 'sym', f.path, s.n, hex(s.data) FROM symbol_files s \
         JOIN files f ON f.id = s.file_id ORDER BY 2",
    );
    rows(
        "SELECT 'symname', f.path, s.name, s.variant FROM symbol_names s \
         JOIN files f ON f.id = s.file_id ORDER BY 2, 3, 4",
    );
    rows(
        "SELECT 'ref', f.path, r.n, hex(r.data) FROM ref_files r \
         JOIN files f ON f.id = r.file_id ORDER BY 2",
    );
    rows(
        "SELECT 'refname', f.path, r.name FROM ref_names r \
         JOIN files f ON f.id = r.file_id ORDER BY 2, 3",
    );
    rows(
        "SELECT 'chunk', f.path, c.start_line, c.end_line, c.hash FROM chunks c \
         JOIN files f ON f.id = c.file_id ORDER BY 2, 3, 4",
    );
    rows("SELECT 'fts', count(*) FROM chunks_fts WHERE chunks_fts MATCH 'function'");
    out
}

fn many_files(p: &Project, n: usize) {
    for i in 0..n {
        p.write(
            &format!("pkg{}/mod{i}.py", i % 20),
            format!(
                "def function_{i}(x):\n    return x + {i}\n\n\nclass Class{i}:\n    def method(self):\n        return function_{i}(1)\n"
            ),
        );
    }
}

fn clean_build_of(p: &Project) -> Vec<String> {
    let q = Project::new();
    let status = Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", p.root().display()))
        .arg(q.root())
        .status()
        .expect("cp");
    assert!(status.success());
    let _ = std::fs::remove_dir_all(q.path(".repo_search"));
    q.run(&["index", "--no-embed", "--quiet"]).ok();
    dump(&q)
}

#[test]
fn writers_killed_at_any_moment_then_resumed_end_equal_to_a_clean_build() {
    let p = Project::new();
    many_files(&p, 2000);
    // Kill a full build at a few different moments (some before anything
    // is committed, some mid-way), each time resuming from what is there.
    for delay_ms in [30u64, 150, 400, 800, 1500] {
        let mut child = p
            .cmd(&["index", "--no-embed", "--quiet"])
            .spawn()
            .expect("spawn");
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        // Whatever state it left is readable (or not there yet).
        let r = p.run(&["status"]);
        assert!(r.code() == 0 || r.code() == 1, "{r}");
    }
    p.run(&["index", "--no-embed", "--quiet"]).ok();
    assert_eq!(dump(&p), clean_build_of(&p));
}

/// A first build killed part way leaves an index no run completed: a
/// one-shot command finishes it before answering, rather than answering
/// from some of the files or refusing.
#[test]
fn a_command_after_a_killed_first_build_finishes_it_first() {
    for delay_ms in [30u64, 400, 1200] {
        let p = Project::new();
        many_files(&p, 2000);
        let mut child = p
            .cmd(&["index", "--no-embed", "--quiet"])
            .spawn()
            .expect("spawn");
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let r = p.run(&["symbol", "function_1999", "--exact"]);
        assert_eq!(r.code(), 0, "after {delay_ms} ms: {r}");
        assert_eq!(dump(&p), clean_build_of(&p), "after {delay_ms} ms");
    }
}

/// A full rebuild writes beside the live index and swaps it in when done:
/// killed at any moment, it leaves the old index whole (readers answered
/// from it all along), and the next one ends equal to a clean build.
#[test]
fn a_full_rebuild_killed_at_any_moment_leaves_the_old_index_answering() {
    let p = Project::new();
    many_files(&p, 2000);
    p.run(&["index", "--no-embed", "--quiet"]).ok();
    let before = dump(&p);
    for delay_ms in [30u64, 150, 400, 800, 1500] {
        let mut child = p
            .cmd(&["index", "--full", "--no-embed", "--quiet"])
            .spawn()
            .expect("spawn");
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let r = p.run(&["symbol", "function_1999", "--exact"]);
        assert_eq!(r.code(), 0, "after {delay_ms} ms: {r}");
        assert_eq!(dump(&p), before, "after {delay_ms} ms");
    }
    p.run(&["index", "--full", "--no-embed", "--quiet"]).ok();
    assert_eq!(dump(&p), clean_build_of(&p));
    assert!(!p.path(".repo_search/index.db.next").exists());
}

#[test]
fn concurrent_writers_serialise_and_end_equal_to_a_clean_build() {
    let p = Project::new();
    many_files(&p, 600);
    let children: Vec<_> = (0..4)
        .map(|_| {
            p.cmd(&["index", "--no-embed", "--quiet"])
                .spawn()
                .expect("spawn")
        })
        .collect();
    // Edit while they run: the last writer must see the final content.
    p.write("pkg0/mod0.py", "def renamed_function(x):\n    return x\n");
    for mut c in children {
        let st = c.wait().expect("wait");
        assert!(st.success(), "a concurrent writer failed: {st}");
    }
    p.run(&["index", "--no-embed", "--quiet"]).ok();
    let ours = dump(&p);
    assert!(ours.iter().any(|l| l.contains("renamed_function")));
    assert_eq!(ours, clean_build_of(&p));
}

#[test]
fn several_mcp_clients_get_every_answer_while_files_churn() {
    let p = project();
    p.run(&["index", "--no-embed", "--quiet"]).ok();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let churn = {
        let root = p.root();
        let stop = std::sync::Arc::clone(&stop);
        std::thread::spawn(move || {
            let mut i = 0usize;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let f = root.join(format!("churn/f{i}.py"));
                std::fs::create_dir_all(f.parent().unwrap()).unwrap();
                std::fs::write(&f, format!("def churn_fn_{i}(x):\n    return x\n")).unwrap();
                if i % 3 == 1 {
                    let _ = std::fs::remove_file(root.join(format!("churn/f{}.py", i - 1)));
                }
                i += 1;
                std::thread::sleep(Duration::from_millis(20));
            }
            i
        })
    };
    let answered: usize = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|c| {
                let p = &p;
                s.spawn(move || {
                    let m = Mcp::start(p, Era::Legacy);
                    let mut n = 0;
                    for k in 0..50 {
                        let (tool, args) = match (c + k) % 3 {
                            0 => ("search_keyword", json!({"pattern": "churn_fn_"})),
                            1 => ("find_symbol", json!({"name": "parse_config"})),
                            _ => ("search", json!({"query": "parse config settings"})),
                        };
                        let r = m
                            .call(tool, args)
                            .unwrap_or_else(|e| panic!("{tool}: no answer: {e}"));
                        assert_ne!(r.is_error, Some(true), "{tool}: {r:?}");
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("client")).sum()
    });
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let created = churn.join().expect("churn");
    assert_eq!(answered, 200);
    // After the churn: the last file created is found, a deleted one is gone.
    let last = created - 1;
    let deleted = (0..last).find(|i| i % 3 == 0 && !p.path(&format!("churn/f{i}.py")).exists());
    let m = Mcp::start(&p, Era::Legacy);
    let ok = poll_until(Duration::from_secs(30), || {
        let v = m.lookup("find_symbol", json!({"name": format!("churn_fn_{last}")}));
        let found = v.to_string().contains(&format!("churn/f{last}.py"));
        let gone = deleted.is_none_or(|d| {
            !m.lookup(
                "find_symbol",
                json!({"name": format!("churn_fn_{d}"), "match": "exact"}),
            )
            .to_string()
            .contains(&format!("churn/f{d}.py"))
        });
        (found && gone).then_some(())
    });
    assert!(ok.is_some(), "the index did not follow the churn");
}

#[test]
fn status_reports_a_damaged_index_and_the_server_repairs_it() {
    let p = project();
    p.run(&["index", "--no-embed"]).ok();
    damage_pages(&p.path(".repo_search/index.db"));
    // The CLI's status only looks: it names the damage and what to do.
    let r = p.run(&["status"]);
    assert_eq!(r.code(), 2, "{r}");
    assert!(
        r.stderr().contains("corrupt") && r.stderr().contains("hint:"),
        "{r}"
    );
    assert!(set_aside_copies(&p).is_empty());
    // The MCP server's status repairs it, as its searches do.
    let m = Mcp::start(&p, Era::Legacy);
    let ok = poll_until(Duration::from_secs(60), || {
        let r = m.call("index_status", json!({})).ok()?;
        let v = r.structured_content?;
        (v["exists"] == true && v["files"] == 2 && v["indexing"] == false).then_some(v)
    });
    assert!(
        ok.is_some(),
        "index_status never answered from a rebuilt index"
    );
    assert_eq!(set_aside_copies(&p).len(), 1);
}
