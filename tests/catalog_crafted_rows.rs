//! Crafted catalog rows, written straight into the SQLite file after a
//! proofpack command created it: short, empty, non-ASCII and very long
//! digests and texts, values of the wrong type, check constraints bypassed.
//! `catalog list`, `show`, `export`, `info` and `forget` and the hash cache
//! must never panic (exit 101) on them: a value that can be shown is shown
//! escaped and cut with its length, a row that cannot be read is an error
//! (exit 2) naming it, and such a row can still be forgotten or replaced.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use proofpack::catalog::RACY_MARGIN_NS;
use proofpack::digest::Sha256Digest;
use serde_json::Value;

/// 10 MiB: a value no proofpack wrote, which must never be echoed whole.
const HUGE: usize = 10 << 20;

/// The most any of these commands may print for the rows of one test.
const BOUNDED: usize = 256 << 10;

fn bin(cat: &Path) -> Command {
    let mut c = common::proofpack();
    c.arg("--catalog").arg(cat).env("NO_COLOR", "1");
    c
}

/// Runs proofpack; returns (exit status, stdout, stderr). A panic is exit 101.
fn run(cat: &Path, args: &[&str]) -> (i32, String, String) {
    let out = bin(cat).args(args).output().unwrap();
    let code = out.status.code().expect("exited, not killed");
    assert_ne!(
        code,
        101,
        "proofpack {args:?} panicked: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (
        code,
        String::from_utf8(out.stdout).expect("stdout is UTF-8"),
        String::from_utf8(out.stderr).expect("stderr is UTF-8"),
    )
}

/// A fresh catalog, created by proofpack itself.
fn created() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let cat = d.path().join("catalog.db");
    let (code, _, _) = run(&cat, &["catalog", "info"]);
    assert_eq!(code, 0);
    (d, cat)
}

fn sql(cat: &Path) -> rusqlite::Connection {
    // v1.1: the reading verbs create no catalog; make it as proofpack would.
    if !cat.exists() {
        proofpack::catalog::Catalog::open(cat).unwrap();
    }
    let c = rusqlite::Connection::open(cat).unwrap();
    // Lets a crafted row break the CHECK constraints proofpack relies on.
    c.execute_batch("PRAGMA ignore_check_constraints = ON")
        .unwrap();
    c
}

/// An SQL expression for `n` repetitions of the ASCII character `c`.
fn repeat(c: char, n: usize) -> String {
    format!("replace(hex(zeroblob({n})), '00', '{c}')")
}

fn good_hex(c: char) -> String {
    format!("'{}'", c.to_string().repeat(64))
}

/// Inserts a record that is proofpack's own but for `set` (column, SQL
/// expression); returns its id.
fn craft_record(cat: &Path, set: &[(&str, String)]) -> i64 {
    let mut cols: Vec<(&str, String)> = vec![
        ("kind", "'verify'".into()),
        ("recorded_at", "'2026-01-02T03:04:05Z'".into()),
        ("tool", "'proofpack 0.1.0'".into()),
        ("target", "'crafted.tgz'".into()),
        ("run_name", "'crafted'".into()),
        ("bundle_sha256", good_hex('a')),
        ("manifest_sha256", good_hex('b')),
        ("pins_sha256", "NULL".into()),
        ("ok", "1".into()),
        ("report_json", "'{}'".into()),
    ];
    for (k, v) in set {
        cols.iter_mut()
            .find(|c| c.0 == *k)
            .expect("a records column")
            .1 = v.clone();
    }
    let names: Vec<&str> = cols.iter().map(|c| c.0).collect();
    let values: Vec<&str> = cols.iter().map(|c| c.1.as_str()).collect();
    let conn = sql(cat);
    conn.execute(
        &format!(
            "INSERT INTO records ({}) VALUES ({})",
            names.join(", "),
            values.join(", ")
        ),
        [],
    )
    .unwrap();
    conn.last_insert_rowid()
}

#[test]
fn malformed_values_are_shown_escaped_and_cut_with_their_length() {
    let (_d, cat) = created();
    let empty = craft_record(&cat, &[("bundle_sha256", "''".into())]);
    let short = craft_record(&cat, &[("bundle_sha256", "'abc'".into())]);
    // Byte 12 falls inside the first "é": slicing 12 bytes panicked.
    let accented = craft_record(&cat, &[("bundle_sha256", "'aaaaaaaaaaaéé'".into())]);
    let huge = craft_record(
        &cat,
        &[
            ("target", repeat('x', HUGE)),
            ("run_name", repeat('y', 100_000)),
            ("tool", repeat('z', 100_000)),
            ("recorded_at", repeat('9', 100_000)),
            ("manifest_sha256", repeat('f', 100_000)),
            ("pins_sha256", "'é'".into()),
        ],
    );
    let escape = craft_record(
        &cat,
        &[(
            "target",
            "'evil' || char(27) || '[2J' || char(8238) || 'txt.exe'".into(),
        )],
    );
    let raw = craft_record(&cat, &[("report_json", repeat('r', HUGE))]);
    let detailed = craft_record(
        &cat,
        &[(
            "report_json",
            format!(
                "json_object('checks', json_array(json_object('id', 'c1', 'ok', json('false'), 'detail', {}, 'expected', {}, 'actual', 'a' || char(27))), 'summary', json_object('passed', 0, 'failed', 1, 'skipped', 0))",
                repeat('d', HUGE),
                repeat('e', 100_000)
            ),
        )],
    );

    let (code, out, err) = run(&cat, &["catalog", "list"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.len() < BOUNDED, "list printed {} bytes", out.len());
    for id in [empty, short, accented, huge, escape, raw, detailed] {
        assert!(out.contains(&format!("id:{id} ")), "id:{id} listed");
    }
    assert!(out.contains("not a digest: \"\""), "{out}");
    assert!(out.contains("not a digest: \"abc\""));
    assert!(out.contains("not a digest: \"aaaaaaaaaaaé… (15 bytes)\""));
    assert!(out.contains(&format!("… ({HUGE} bytes)")));
    assert!(
        !out.contains('\u{1b}') && !out.contains('\u{202e}'),
        "control characters escaped"
    );
    assert!(out.contains("evil\\u{1b}[2J\\u{202e}txt.exe"));
    assert!(
        out.contains(&format!("sha256:{}", "a".repeat(12))),
        "well-formed digests as before"
    );

    // JSON is for programs: the values as stored, whole, JSON-escaped.
    let (code, out, _) = run(&cat, &["catalog", "list", "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    let rec = |id: i64| {
        v["records"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(rec(huge)["target"].as_str().unwrap().len(), HUGE);
    assert_eq!(rec(accented)["bundle_sha256"], "aaaaaaaaaaaéé");

    for id in [empty, short, accented, huge, escape, raw, detailed] {
        let (code, out, err) = run(&cat, &["catalog", "show", &format!("id:{id}")]);
        assert_eq!(code, 0, "show id:{id}: {err}");
        assert!(
            out.len() < BOUNDED,
            "show id:{id} printed {} bytes",
            out.len()
        );
        assert!(err.len() < 4096);
        assert!(!out.contains('\u{1b}') && !out.contains('\u{202e}'));
    }
    let show = |id: i64| run(&cat, &["catalog", "show", &format!("id:{id}")]);
    assert!(show(short).1.contains("bundle:   not a digest: \"abc\""));
    let (_, out, _) = show(huge);
    assert!(out.contains(&format!("target:   {}… ({HUGE} bytes)", "x".repeat(4096))));
    assert!(out.contains("pins:     not a digest: \"é\""));
    let (_, out, err) = show(raw);
    assert!(err.contains("not valid JSON"), "{err}");
    assert!(out.contains(&format!("… ({HUGE} bytes)")));
    let (_, out, _) = show(detailed);
    assert!(out.contains("c1: FAILED (ddd"));
    assert!(out.contains(&format!("… ({HUGE} bytes)")));
    assert!(out.contains("found a\\u{1b})"));

    let (code, out, _) = run(&cat, &["catalog", "show", "--all", "crafted"]);
    assert_eq!(code, 0);
    assert!(out.len() < BOUNDED);
    // --json of one record is the stored report byte for byte, as documented.
    let (code, out, _) = run(&cat, &["catalog", "show", "--json", &format!("id:{raw}")]);
    assert_eq!(code, 0);
    assert_eq!(out.len(), HUGE + 1);
    let (code, out, _) = run(&cat, &["catalog", "show", "--json", "--all", "crafted"]);
    assert_eq!(code, 0);
    assert_eq!(
        serde_json::from_str::<Value>(&out)
            .unwrap()
            .as_array()
            .unwrap()
            .len(),
        6
    );
}

/// Values of the wrong type, or breaking the constraints: each such row
/// makes `list` and `show` of it exit 2 naming the row, without hiding the
/// other records from `show`, `info` or `forget`.
#[test]
fn unreadable_records_are_errors_naming_the_row_and_can_be_forgotten() {
    let cases: Vec<(&str, String)> = vec![
        ("kind", "'bogus'".into()),
        ("kind", repeat('k', HUGE)),
        ("ok", "2".into()),
        ("ok", "'yes'".into()),
        ("ok", "0.5".into()),
        ("target", "X'00ff'".into()),
        ("target", "CAST(X'ff' AS TEXT)".into()),
        ("tool", "CAST(X'c3' AS TEXT)".into()),
        ("run_name", "X'01'".into()),
        ("bundle_sha256", "X'0102'".into()),
        ("pins_sha256", "CAST(X'ffff' AS TEXT)".into()),
        ("report_json", "X'7b7d'".into()),
        ("report_json", "CAST(X'7bff7d' AS TEXT)".into()),
    ];
    for (col, value) in cases {
        let (_d, cat) = created();
        let good = craft_record(&cat, &[("target", "'good.tgz'".into())]);
        let bad = craft_record(&cat, &[(col, value.clone())]);
        let what = format!("record id:{bad} is damaged");
        let label = format!("{col} = {}", value.chars().take(40).collect::<String>());
        let (code, out, err) = run(&cat, &["catalog", "show", &format!("id:{bad}")]);
        assert_eq!(code, 2, "{label}: {out}");
        assert!(err.contains(&what), "{label}: {err}");
        assert!(err.len() < 2048, "{label}: {} bytes on stderr", err.len());
        if col != "report_json" {
            // list does not read reports.
            let (code, out, err) = run(&cat, &["catalog", "list"]);
            assert_eq!((code, out.as_str()), (2, ""), "{label}");
            assert!(err.contains(&what), "{label}: {err}");
            assert!(err.len() < 2048);
        }
        let (code, out, _) = run(&cat, &["catalog", "show", &format!("id:{good}")]);
        assert_eq!(code, 0, "{label}");
        assert!(out.contains("good.tgz"));
        let (code, out, err) = run(&cat, &["catalog", "info"]);
        assert_eq!(code, 0, "{label}: {err}");
        assert!(out.contains("records:        2"), "{label}: {out}");
        let (code, _, err) = run(&cat, &["catalog", "forget", &format!("id:{bad}")]);
        assert_eq!(code, 0, "{label}: {err}");
        let (code, out, _) = run(&cat, &["catalog", "list"]);
        assert_eq!(code, 0, "{label}");
        assert!(out.contains(&format!("id:{good} ")) && !out.contains(&format!("id:{bad} ")));
    }
}

/// A digest prefix query reads the digest columns of many rows: one that
/// holds a BLOB is no digest, not an error.
#[test]
fn prefix_queries_pass_over_digests_of_the_wrong_type() {
    let (_d, cat) = created();
    let id = craft_record(&cat, &[("bundle_sha256", "X'0102'".into())]);
    let (code, out, err) = run(&cat, &["catalog", "forget", "bbbbbbbb"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(err.contains("forgot 1 record(s)"), "{err}");
    let (code, out, _) = run(&cat, &["catalog", "list"]);
    assert_eq!(code, 0);
    assert!(!out.contains(&format!("id:{id} ")));
}

fn tree() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("t");
    fs::create_dir_all(root.join("s")).unwrap();
    for i in 0..12u8 {
        fs::write(
            root.join(format!("s/{i:02}.bin")),
            vec![i; 3000 + i as usize],
        )
        .unwrap();
    }
    let cat = d.path().join("catalog.db");
    (d, root, cat)
}

/// Clones baseline `from` as `name` with the columns in `set` replaced.
fn craft_baseline(cat: &Path, from: &str, name: &str, set: &[(&str, String)]) {
    let cols = [
        "manifest_sha256",
        "files",
        "bytes",
        "format",
        "body",
        "source",
        "recorded_at",
        "tool",
    ];
    let exprs: Vec<String> = cols
        .iter()
        .map(|c| match set.iter().find(|s| s.0 == *c) {
            Some((_, v)) => v.clone(),
            None => c.to_string(),
        })
        .collect();
    sql(cat)
        .execute(
            &format!(
                "INSERT INTO baselines (name, {}) SELECT ?1, {} FROM baselines WHERE name = ?2",
                cols.join(", "),
                exprs.join(", ")
            ),
            [name, from],
        )
        .unwrap();
}

#[test]
fn damaged_baselines_are_errors_naming_them_and_can_be_forgotten_or_replaced() {
    let (_d, root, cat) = tree();
    let r = root.to_str().unwrap();
    let (code, want, err) = run(&cat, &["manifest", r, "--record", "good"]);
    assert_eq!(code, 0, "{err}");
    // Content that is damaged: reading the baseline is refused, listing is not.
    let huge_line = format!("CAST({} || char(10) AS BLOB)", repeat('x', HUGE));
    craft_baseline(&cat, "good", "fmt", &[("format", "'bogus'".into())]);
    craft_baseline(&cat, "good", "body", &[("body", huge_line)]);
    craft_baseline(
        &cat,
        "good",
        "digest",
        &[("manifest_sha256", repeat('f', HUGE))],
    );
    craft_baseline(&cat, "good", "short", &[("manifest_sha256", "'é'".into())]);
    for name in ["fmt", "body", "digest", "short"] {
        let (code, out, err) = run(&cat, &["catalog", "export", name]);
        assert_eq!((code, out.as_str()), (2, ""), "export {name}");
        assert!(
            err.contains(&format!("baseline \"{name}\" is damaged")),
            "{name}: {err}"
        );
        assert!(
            err.len() < 2048,
            "export {name}: {} bytes on stderr",
            err.len()
        );
        let (code, _, err) = run(
            &cat,
            &["check", r, "--manifest", &format!("catalog:{name}")],
        );
        assert_eq!(code, 2, "check against {name}");
        assert!(err.len() < 2048);
    }
    let (code, out, err) = run(&cat, &["catalog", "list"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.len() < BOUNDED);
    assert!(out.contains("  short  not a digest: \"é\""), "{out}");
    assert!(out.contains(&format!("… ({HUGE} bytes)")));
    // A damaged baseline can be forgotten, or recorded again.
    let (code, _, err) = run(
        &cat,
        &[
            "catalog",
            "forget",
            "--baseline",
            "body",
            "--baseline",
            "fmt",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = run(&cat, &["catalog", "export", "body"]);
    assert_eq!(code, 2);
    assert!(err.contains("no baseline named \"body\""), "{err}");
    // A digest that is not text at all: the row cannot be listed.
    craft_baseline(
        &cat,
        "good",
        "blobdigest",
        &[("manifest_sha256", "X'00'".into())],
    );
    for args in [
        &["catalog", "list"][..],
        &["catalog", "export", "blobdigest"],
    ] {
        let (code, out, err) = run(&cat, args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}");
        assert!(
            err.contains("baseline \"blobdigest\" is damaged"),
            "{args:?}: {err}"
        );
    }
    let (code, _, err) = run(
        &cat,
        &["manifest", r, "--record", "blobdigest", "--replace"],
    );
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = run(&cat, &["catalog", "export", "blobdigest"]);
    assert_eq!((code, out.as_str()), (0, want.as_str()));

    // Counts that no manifest has, or of the wrong type: listing names the row.
    for (col, value) in [("files", "-1"), ("bytes", "'many'"), ("source", "X'00'")] {
        craft_baseline(&cat, "good", "counts", &[(col, value.into())]);
        let (code, out, err) = run(&cat, &["catalog", "list"]);
        assert_eq!((code, out.as_str()), (2, ""), "{col} = {value}");
        assert!(
            err.contains("baseline \"counts\" is damaged"),
            "{col}: {err}"
        );
        let (code, _, err) = run(&cat, &["catalog", "info"]);
        assert_eq!(code, 0, "{err}");
        let (code, _, err) = run(&cat, &["catalog", "forget", "--baseline", "counts"]);
        assert_eq!(code, 0, "{err}");
    }
    let (code, _, err) = run(&cat, &["catalog", "list"]);
    assert_eq!(code, 0, "{err}");
}

/// Hash-cache rows of the wrong shape are never vouched for and do not turn
/// the cache off: the other entries still give their digests.
#[test]
fn crafted_hash_cache_rows_are_passed_over() {
    let (_d, root, cat) = tree();
    let r = root.to_str().unwrap();
    std::thread::sleep(Duration::from_nanos(RACY_MARGIN_NS as u64) + Duration::from_millis(400));
    proofpack::catalog::Catalog::open(&cat).unwrap();
    let (code, want, err) = run(&cat, &["-v", "manifest", r]);
    assert_eq!(code, 0);
    assert!(
        err.contains("0 of 12 file digests from the catalog cache, 12 newly cached"),
        "{err}"
    );
    let canon = fs::canonicalize(&root).unwrap();
    let key = |rel: &str| format!("X'{}'", hex::encode(format!("{}/{rel}", canon.display())));
    let conn = sql(&cat);
    let wrong = Sha256Digest::of_bytes(b"wrong").to_hex();
    for (path, dev, sha) in [
        // A real file's entry whose digest is text, not 32 bytes: a miss.
        (key("s/00.bin"), "dev".to_string(), format!("'{wrong}'")),
        (
            key("s/01.bin"),
            "'not a number'".into(),
            format!("X'{wrong}'"),
        ),
        (key("ghost"), "dev".into(), "X'00'".into()),
        (
            format!("'{}/s/02.bin'", canon.display()),
            "dev".into(),
            format!("X'{wrong}'"),
        ),
    ] {
        conn.execute(
            &format!(
                "INSERT OR REPLACE INTO hash_cache (path, dev, ino, size, mtime_ns, ctime_ns, sha256, recorded_ns)
                 SELECT {path}, {dev}, ino, size, mtime_ns, ctime_ns, {sha}, recorded_ns FROM hash_cache LIMIT 1"
            ),
            [],
        )
        .unwrap();
    }
    drop(conn);
    let (code, out, err) = run(&cat, &["-v", "manifest", r]);
    assert_eq!(code, 0);
    assert_eq!(out, want, "the crafted digest was not used");
    assert!(!err.contains("warning"), "{err}");
    assert!(
        err.contains("10 of 12 file digests from the catalog cache"),
        "{err}"
    );
}
