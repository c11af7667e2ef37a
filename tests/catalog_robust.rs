//! The catalog is a ledger and a cache, never the source of truth: when it
//! is corrupt, locked, unwritable or newer, proofpack says so and still gives
//! the right answer with the right exit status. Parallel writers never fail
//! or corrupt it.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use assert_cmd::Command;
use predicates::str::contains;
use proofpack::catalog::{Catalog, RACY_MARGIN_NS};

fn bin(catalog: &Path) -> Command {
    let mut c = common::proofpack();
    c.env("PROOFPACK_CATALOG", catalog).env("NO_COLOR", "1");
    c
}

fn settle() {
    std::thread::sleep(Duration::from_nanos(RACY_MARGIN_NS as u64) + Duration::from_millis(400));
}

fn tree() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("t");
    fs::create_dir_all(root.join("s")).unwrap();
    for i in 0..12 {
        fs::write(root.join(format!("s/{i:02}.bin")), vec![i as u8; 3000 + i]).unwrap();
    }
    (d, root)
}

/// The truth: the manifest computed with no catalog at all.
fn truth(root: &Path) -> String {
    let out = common::proofpack()
        .args(["--no-catalog", "manifest"])
        .arg(root)
        .env_remove("PROOFPACK_CATALOG")
        .assert()
        .success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

/// manifest, check (holds), check (drift) against a broken catalog: right
/// output and exit codes, and a warning that names the catalog problem.
fn still_right(cat: &Path, root: &Path, d: &Path, warning: &str) {
    let want = truth(root);
    let mfile = d.join("good.manifest");
    fs::write(&mfile, &want).unwrap();
    bin(cat)
        .arg("manifest")
        .arg(root)
        .assert()
        .success()
        .stdout(want.clone())
        .stderr(contains(warning))
        .stderr(contains("continuing without the catalog"));
    bin(cat)
        .arg("check")
        .arg(root)
        .arg("--manifest")
        .arg(&mfile)
        .assert()
        .success()
        .stderr(contains(warning));
    let bad = d.join("bad.manifest");
    fs::write(
        &bad,
        want.replacen(
            &want[want.find(':').unwrap() + 1..want.find(':').unwrap() + 3],
            "ff",
            1,
        ),
    )
    .unwrap();
    if fs::read(&bad).unwrap() == want.as_bytes() {
        fs::write(
            &bad,
            want.replacen(
                &want[want.find(':').unwrap() + 1..want.find(':').unwrap() + 3],
                "00",
                1,
            ),
        )
        .unwrap();
    }
    bin(cat)
        .arg("check")
        .arg(root)
        .arg("--manifest")
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(contains(warning));
    bin(cat)
        .arg("diff")
        .arg(&mfile)
        .arg(root)
        .assert()
        .success();
}

#[test]
fn garbage_catalog_gives_a_clear_message_and_the_right_verdict() {
    let (d, root) = tree();
    let cat = d.path().join("catalog.db");
    fs::write(&cat, "this is not a database\n".repeat(200)).unwrap();
    let before = fs::read(&cat).unwrap();
    still_right(&cat, &root, d.path(), "corrupt or not a SQLite database");
    assert_eq!(
        fs::read(&cat).unwrap(),
        before,
        "a corrupt catalog is left as found"
    );
    bin(&cat)
        .args(["catalog", "list"])
        .assert()
        .code(2)
        .stderr(contains("corrupt or not a SQLite database"))
        .stderr(contains("move it away"));
}

#[test]
fn damaged_pages_give_a_clear_message_and_the_right_verdict() {
    let (d, root) = tree();
    let cat = d.path().join("catalog.db");
    settle();
    // A real catalog with records, a baseline and cache entries...
    bin(&cat)
        .args(["manifest", "--record", "b"])
        .arg(&root)
        .assert()
        .success();
    assert_eq!(Catalog::open(&cat).unwrap().cache_len().unwrap(), 12);
    // ...whose pages after the first are overwritten with garbage.
    let mut bytes = fs::read(&cat).unwrap();
    assert!(bytes.len() >= 4 * 4096, "{}", bytes.len());
    for b in &mut bytes[4096..] {
        *b = 0xA5;
    }
    fs::write(&cat, &bytes).unwrap();
    still_right(&cat, &root, d.path(), "catalog");
    bin(&cat)
        .arg("check")
        .arg(&root)
        .args(["--manifest", "catalog:b"])
        .assert()
        .code(2)
        .stderr(contains("corrupt"));
}

#[test]
fn newer_schema_gives_a_clear_message_and_the_right_verdict() {
    let (d, root) = tree();
    let cat = d.path().join("catalog.db");
    rusqlite::Connection::open(&cat)
        .unwrap()
        .execute_batch(
            "CREATE TABLE t (x); PRAGMA application_id = 1347439427; PRAGMA user_version = 7;",
        )
        .unwrap();
    still_right(
        &cat,
        &root,
        d.path(),
        "schema version 7 was written by a newer proofpack",
    );
}

#[test]
fn unwritable_location_gives_a_clear_message_and_the_right_verdict() {
    let (d, root) = tree();
    let blocker = d.path().join("a-file");
    fs::write(&blocker, b"x").unwrap();
    // The catalog's directory would have to be inside a regular file.
    still_right(&blocker.join("catalog.db"), &root, d.path(), "a-file");
}

#[test]
fn a_catalog_locked_too_long_gives_a_clear_message_and_the_right_verdict() {
    let (d, root) = tree();
    let cat = d.path().join("catalog.db");
    Catalog::open(&cat).unwrap();
    settle();
    // Another process holds the write lock for the whole test.
    let holder = rusqlite::Connection::open(&cat).unwrap();
    holder.execute_batch("BEGIN EXCLUSIVE; INSERT INTO baselines (name, manifest_sha256, files, format, body, source, recorded_at, tool) VALUES ('held', 'x', 0, 'canonical', x'', '', '', '');").unwrap();
    let want = truth(&root);
    let t = std::time::Instant::now();
    bin(&cat)
        .env("PROOFPACK_CATALOG_TIMEOUT_MS", "300")
        .arg("manifest")
        .arg(&root)
        .assert()
        .success()
        .stdout(want)
        .stderr(contains("locked by another process for more than 300 ms"))
        .stderr(contains("continuing without the catalog"));
    assert!(
        t.elapsed() < Duration::from_secs(10),
        "gave up after the timeout: {:?}",
        t.elapsed()
    );
    // An explicit --record cannot be done: exit 2, saying why.
    bin(&cat)
        .env("PROOFPACK_CATALOG_TIMEOUT_MS", "300")
        .args(["manifest", "--record", "x"])
        .arg(&root)
        .assert()
        .code(2)
        .stderr(contains("locked by another process"));
    holder.execute_batch("ROLLBACK").unwrap();
    // Once released, the catalog works again.
    bin(&cat)
        .args(["manifest", "--record", "x"])
        .arg(&root)
        .assert()
        .success();
}

#[test]
fn parallel_writers_both_succeed_and_the_catalog_stays_intact() {
    let (d, root) = tree();
    let cat = d.path().join("catalog.db");
    settle();
    let exe = common::bin();
    let spawn = |name: String, extra: &[&str]| {
        std::process::Command::new(&exe)
            .env("PROOFPACK_CATALOG", &cat)
            .args(["manifest", "--threads", "2", "--record", &name])
            .args(extra)
            .arg(&root)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let want = truth(&root);
    for i in 0..8 {
        // The first round races to create the file and its schema; later
        // rounds race to write baselines and cache entries (--full is not a
        // manifest flag, so half of them bypass lookups with --no-cache).
        let extra: &[&str] = if i % 2 == 0 { &[] } else { &["--no-cache"] };
        let a = spawn(format!("a-{i}"), &[]);
        let b = spawn(format!("b-{i}"), extra);
        for (who, child) in [("a", a), ("b", b)] {
            let out = child.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                out.status.success(),
                "round {i} {who}: {:?}\n{err}",
                out.status
            );
            assert!(!err.contains("warning"), "round {i} {who}: {err}");
            assert_eq!(String::from_utf8_lossy(&out.stdout), want);
        }
    }
    let c = Catalog::open(&cat).unwrap();
    let names: Vec<String> = c.baselines().unwrap().into_iter().map(|b| b.name).collect();
    assert_eq!(names.len(), 16, "{names:?}");
    for i in 0..8 {
        assert!(names.contains(&format!("a-{i}")) && names.contains(&format!("b-{i}")));
    }
    assert_eq!(c.cache_len().unwrap(), 12);
    c.integrity_check().unwrap();
    let ok: String = rusqlite::Connection::open(&cat)
        .unwrap()
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(ok, "ok");
    bin(&cat)
        .args(["catalog", "info", "--check"])
        .assert()
        .success()
        .stdout(contains("integrity:      ok"));
}

#[test]
fn no_catalog_touches_nothing() {
    let (d, root) = tree();
    let cat = d.path().join("never.db");
    bin(&cat)
        .args(["--no-catalog", "manifest"])
        .arg(&root)
        .assert()
        .success()
        .stderr(contains("warning").not());
    assert!(!cat.exists());
    // --no-cache alone does not open the catalog either.
    bin(&cat)
        .args(["manifest", "--no-cache"])
        .arg(&root)
        .assert()
        .success();
    assert!(!cat.exists());
}

use predicates::prelude::PredicateBooleanExt;
