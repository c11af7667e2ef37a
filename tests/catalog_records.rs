//! The catalog's ledger: records of seals and verifications through the
//! library API, and `proofpack catalog list/show/forget` on them; schema
//! migration and refusal of newer or foreign files.

mod common;

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use proofpack::catalog::{Catalog, CatalogError, SealRecord, VerificationRecord, SCHEMA_VERSION};
use proofpack::digest::Sha256Digest;
use proofpack::report::{Check, Report};

fn bin(catalog: &Path) -> Command {
    let mut c = common::proofpack();
    c.env("PROOFPACK_CATALOG", catalog).env("NO_COLOR", "1");
    c
}

fn synthetic_report(target: &str, ok: bool) -> Report {
    let mut r = Report::new(target);
    r.push(Check::pass("bundle.sha256", "matches the .sha256 sidecar"));
    r.push(
        Check::outcome("pin:weights.manifest", ok, "pinned digest")
            .with_values("aa", if ok { "aa" } else { "bb" }),
    );
    r.push(Check::skip("seal", "no seal present"));
    r
}

fn digest(s: &str) -> String {
    Sha256Digest::of_bytes(s.as_bytes()).to_hex()
}

fn fresh() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/dir/catalog.db");
    (dir, path)
}

/// Records one seal and two verifications of bundle "b1" and one of "b2".
fn populate(c: &Catalog) -> (i64, i64, i64, i64) {
    let seal = c
        .record_seal(&SealRecord {
            target: "out/run1.tgz".into(),
            bundle_sha256: Some(format!("sha256:{}", digest("b1"))),
            manifest_sha256: Some(digest("m1").to_uppercase()),
            run_name: Some("run1".into()),
            report_json: r#"{"sealed": true}"#.into(),
            ..Default::default()
        })
        .unwrap();
    let v1 = c
        .record_verification(&VerificationRecord {
            target: "run1.tgz".into(),
            bundle_sha256: Some(digest("b1")),
            manifest_sha256: Some(digest("m1")),
            run_name: Some("run1".into()),
            pins_sha256: Some(digest("pins")),
            ok: false,
            report_json: synthetic_report("run1.tgz", false).to_json(),
            ..Default::default()
        })
        .unwrap();
    let v2 = c
        .record_verification(&VerificationRecord {
            target: "run1.tgz".into(),
            bundle_sha256: Some(digest("b1")),
            manifest_sha256: Some(digest("m1")),
            run_name: Some("run1".into()),
            ok: true,
            report_json: synthetic_report("run1.tgz", true).to_json(),
            ..Default::default()
        })
        .unwrap();
    let v3 = c
        .record_verification(&VerificationRecord {
            target: "runs/run2".into(),
            manifest_sha256: Some(digest("m2")),
            run_name: Some("run2".into()),
            ok: true,
            report_json: synthetic_report("runs/run2", true).to_json(),
            ..Default::default()
        })
        .unwrap();
    (seal, v1, v2, v3)
}

#[test]
fn records_round_trip_through_the_library() {
    let (_d, path) = fresh();
    let c = Catalog::open(&path).unwrap();
    assert_eq!(c.schema_version().unwrap(), SCHEMA_VERSION);
    let (seal, v1, v2, v3) = populate(&c);

    let list = c.list(None).unwrap();
    assert_eq!(
        list.iter().map(|r| r.id).collect::<Vec<_>>(),
        [v3, v2, v1, seal],
        "newest first"
    );
    let s = list.iter().find(|r| r.id == seal).unwrap();
    assert_eq!(s.kind.as_str(), "seal");
    // Digests are normalised to bare lowercase hex whatever the caller gave.
    assert_eq!(s.bundle_sha256.as_deref(), Some(digest("b1").as_str()));
    assert_eq!(s.manifest_sha256.as_deref(), Some(digest("m1").as_str()));
    assert_eq!(s.tool, proofpack::TOOL);
    assert!(s.time.ends_with('Z') && s.time.len() == 20, "{}", s.time);
    assert_eq!(c.list(Some(2)).unwrap().len(), 2);

    // show: the newest matching record, with the exact stored report.
    let by_digest = c.show(&digest("b1")).unwrap();
    assert_eq!(by_digest.summary.id, v2);
    assert_eq!(
        by_digest.report_json,
        synthetic_report("run1.tgz", true).to_json()
    );
    assert_eq!(
        c.show(&format!("sha256:{}", digest("b1").to_uppercase()))
            .unwrap()
            .summary
            .id,
        v2
    );
    assert_eq!(c.show(&digest("b1")[..10]).unwrap().summary.id, v2);
    assert_eq!(c.show(&digest("m2")).unwrap().summary.id, v3);
    assert_eq!(c.show("run2").unwrap().summary.id, v3);
    assert_eq!(c.show("runs/run2").unwrap().summary.id, v3);
    assert_eq!(
        c.show(&format!("id:{v1}")).unwrap().report_json,
        synthetic_report("run1.tgz", false).to_json()
    );
    assert_eq!(c.find("run1").unwrap().len(), 3);
    assert!(matches!(c.show("nope"), Err(CatalogError::NoMatch { .. })));
    assert!(matches!(
        c.show(&digest("zz")),
        Err(CatalogError::NoMatch { .. })
    ));

    // Bad digests are refused, not stored.
    let bad = c.record_verification(&VerificationRecord {
        target: "x".into(),
        bundle_sha256: Some("not-hex".into()),
        ..Default::default()
    });
    assert!(
        matches!(bad, Err(CatalogError::BadDigest { .. })),
        "{bad:?}"
    );
    assert_eq!(c.list(None).unwrap().len(), 4);

    // forget is all or nothing.
    let r = c.forget(&["run2".into(), "no-such-run".into()]);
    assert!(matches!(r, Err(CatalogError::NoMatch { .. })));
    assert_eq!(c.list(None).unwrap().len(), 4);
    assert_eq!(c.forget(&[digest("b1")]).unwrap(), 3);
    assert_eq!(
        c.list(None)
            .unwrap()
            .iter()
            .map(|r| r.id)
            .collect::<Vec<_>>(),
        [v3]
    );
    c.integrity_check().unwrap();
    drop(c);

    // Reopening finds what was written.
    let c = Catalog::open(&path).unwrap();
    assert_eq!(c.list(None).unwrap().len(), 1);
}

#[test]
fn ambiguous_prefix_is_an_error() {
    let (_d, path) = fresh();
    let c = Catalog::open(&path).unwrap();
    // Find two digests sharing their first 8 hex characters is hard; make
    // the records share a prefix by construction instead.
    let a = format!("{}{}", "0123abcd", "1".repeat(56));
    let b = format!("{}{}", "0123abcd", "2".repeat(56));
    for d in [&a, &b] {
        c.record_verification(&VerificationRecord {
            target: "t".into(),
            bundle_sha256: Some(d.clone()),
            ok: true,
            ..Default::default()
        })
        .unwrap();
    }
    match c.show("0123abcd") {
        Err(CatalogError::Ambiguous { candidates, .. }) => {
            assert_eq!(candidates, [a.clone(), b.clone()])
        }
        other => panic!("expected ambiguity, got {other:?}"),
    }
    assert_eq!(
        c.show("0123abcd1")
            .unwrap()
            .summary
            .bundle_sha256
            .as_deref(),
        Some(a.as_str())
    );
}

#[test]
fn cli_list_show_forget() {
    let (_d, path) = fresh();
    let (seal, v1, v2, _v3) = populate(&Catalog::open(&path).unwrap());

    let out = bin(&path)
        .args(["catalog", "list", "--json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let records = v["records"].as_array().unwrap();
    assert_eq!(records.len(), 4);
    assert_eq!(records[3]["id"], seal);
    assert_eq!(records[3]["kind"], "seal");
    assert_eq!(records[2]["ok"], false);
    assert_eq!(records[2]["pins_sha256"], digest("pins"));
    assert_eq!(v["catalog"], path.display().to_string());

    let out = bin(&path).args(["catalog", "list"]).assert().success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains(&format!("id:{v1}")) && text.contains("FAILED") && text.contains("run2"),
        "{text}"
    );

    // --json prints the stored report byte for byte.
    let out = bin(&path)
        .args(["catalog", "show", &format!("id:{v1}"), "--json"])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8(out.get_output().stdout.clone())
            .unwrap()
            .trim_end(),
        synthetic_report("run1.tgz", false).to_json().trim_end()
    );
    // Human form: header, the failed check with its values, the summary.
    let out = bin(&path)
        .args(["catalog", "show", "run1"])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains(&format!("verify id:{v2}")), "{text}");
    let out = bin(&path)
        .args(["catalog", "show", &format!("id:{v1}")])
        .assert()
        .success();
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("pin:weights.manifest: FAILED (pinned digest; expected aa, found bb)"),
        "{text}"
    );
    assert!(text.contains("seal: SKIPPED"), "{text}");
    assert!(
        text.contains("summary:  1 passed, 1 failed, 1 skipped"),
        "{text}"
    );
    let out = bin(&path)
        .args(["catalog", "show", "run1", "--all", "--json"])
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 3);
    assert_eq!(v[0]["record"]["id"], v2);
    assert_eq!(v[0]["report"]["ok"], true);

    // Unknown query: exit 2 with a message naming it; nothing deleted.
    bin(&path)
        .args(["catalog", "show", "nope"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("no record matches \"nope\""));
    bin(&path)
        .args(["catalog", "forget", "run2", "nope"])
        .assert()
        .code(2);
    bin(&path).args(["catalog", "forget"]).assert().code(2);
    assert_eq!(Catalog::open(&path).unwrap().list(None).unwrap().len(), 4);

    bin(&path)
        .args(["catalog", "forget", "run1"])
        .assert()
        .success()
        .stderr(predicates::str::contains("forgot 3 record(s)"));
    let left = Catalog::open(&path).unwrap().list(None).unwrap();
    assert_eq!(left.len(), 1);
    assert_eq!(left[0].run_name.as_deref(), Some("run2"));

    // --no-catalog makes the catalog verbs an error, not a silent no-op.
    bin(&path)
        .args(["--no-catalog", "catalog", "list"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--no-catalog"));
    // --catalog overrides the environment.
    let other = path.with_file_name("other.db");
    let out = bin(&path)
        .args(["catalog", "list", "--json", "--catalog"])
        .arg(&other)
        .assert()
        .success();
    let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(v["records"].as_array().unwrap().len(), 0);
    assert_eq!(v["catalog"], other.display().to_string());
    // v1.1: listing reads; it creates no catalog file.
    assert!(!other.exists());
}

#[test]
fn default_location_rules() {
    // Spawned with a controlled environment: the env rules of default_path
    // are observable through `catalog info --json`.
    let d = tempfile::tempdir().unwrap();
    let info = |envs: &[(&str, &Path)]| -> String {
        let mut c = common::proofpack();
        c.env_remove("PROOFPACK_CATALOG")
            .env_remove("XDG_DATA_HOME")
            .env_remove("HOME");
        for (k, v) in envs {
            c.env(k, v);
        }
        let out = c.args(["catalog", "info", "--json"]).assert().success();
        let v: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        v["catalog"].as_str().unwrap().to_string()
    };
    let home = d.path().join("home");
    let xdg = d.path().join("xdg");
    assert_eq!(
        info(&[("HOME", &home)]),
        home.join(".local/share/proofpack/catalog.db")
            .display()
            .to_string()
    );
    assert_eq!(
        info(&[("HOME", &home), ("XDG_DATA_HOME", &xdg)]),
        xdg.join("proofpack/catalog.db").display().to_string()
    );
    let explicit = d.path().join("explicit.db");
    assert_eq!(
        info(&[
            ("HOME", &home),
            ("XDG_DATA_HOME", &xdg),
            ("PROOFPACK_CATALOG", &explicit)
        ]),
        explicit.display().to_string()
    );
    // The directory is created private, the file 0600, by a verb that
    // stores something (v1.1: `catalog info` reads and creates nothing).
    assert!(!xdg.join("proofpack").exists());
    let m = d.path().join("m.manifest");
    std::fs::write(&m, "").unwrap();
    common::proofpack()
        .env_remove("PROOFPACK_CATALOG")
        .env("HOME", &home)
        .env("XDG_DATA_HOME", &xdg)
        .args(["catalog", "import", "m"])
        .arg(&m)
        .assert()
        .success();
    use std::os::unix::fs::PermissionsExt;
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&xdg.join("proofpack")), 0o700);
    assert_eq!(mode(&xdg.join("proofpack/catalog.db")), 0o600);
}

/// The version-1 schema as an older proofpack wrote it.
const V1_SCHEMA: &str = "CREATE TABLE records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('seal', 'verify')),
    recorded_at TEXT NOT NULL, tool TEXT NOT NULL, target TEXT NOT NULL,
    run_name TEXT, bundle_sha256 TEXT, manifest_sha256 TEXT, pins_sha256 TEXT,
    ok INTEGER NOT NULL CHECK (ok IN (0, 1)), report_json TEXT NOT NULL);
  CREATE INDEX records_bundle ON records(bundle_sha256);
  CREATE INDEX records_manifest ON records(manifest_sha256);
  CREATE INDEX records_run ON records(run_name);
  CREATE TABLE baselines (
    name TEXT PRIMARY KEY, manifest_sha256 TEXT NOT NULL, files INTEGER NOT NULL,
    bytes INTEGER, format TEXT NOT NULL CHECK (format IN ('json', 'canonical')),
    body BLOB NOT NULL, source TEXT NOT NULL, recorded_at TEXT NOT NULL, tool TEXT NOT NULL);
  INSERT INTO records (kind, recorded_at, tool, target, run_name, ok, report_json)
    VALUES ('verify', '2026-01-01T00:00:00Z', 'proofpack 0.0.9', 'old.tgz', 'old-run', 1, '{}');
  PRAGMA application_id = 1347439427;
  PRAGMA user_version = 1;";

#[test]
fn older_schema_is_migrated_keeping_records() {
    let (_d, path) = fresh();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch(V1_SCHEMA)
        .unwrap();
    let c = Catalog::open(&path).unwrap();
    assert_eq!(c.schema_version().unwrap(), SCHEMA_VERSION);
    let old = c.show("old-run").unwrap();
    assert_eq!(old.summary.tool, "proofpack 0.0.9");
    // The table added by migration 2 works.
    assert_eq!(c.cache_len().unwrap(), 0);
    c.integrity_check().unwrap();
}

/// Version 2's baselines table held `body` before three other columns;
/// migration 3 moves it last and keeps every baseline as it was.
#[test]
fn a_version_2_catalog_keeps_its_baselines_when_migrated() {
    let (_d, path) = fresh();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let body = format!("a.txt:{}\nb/c:{}\n", "1".repeat(64), "2".repeat(64));
    let digest = proofpack::digest::Sha256Digest::of_bytes(body.as_bytes()).to_hex();
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(&V1_SCHEMA.replace("PRAGMA user_version = 1;", "PRAGMA user_version = 2;"))
        .unwrap();
    conn.execute_batch(
        "CREATE TABLE hash_cache (path BLOB PRIMARY KEY, dev INTEGER NOT NULL, ino INTEGER NOT NULL,
           size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, ctime_ns INTEGER NOT NULL,
           sha256 BLOB NOT NULL, recorded_ns INTEGER NOT NULL) WITHOUT ROWID;",
    )
    .unwrap();
    conn.execute(
        "INSERT INTO baselines (name, manifest_sha256, files, bytes, format, body, source, recorded_at, tool)
         VALUES ('old', ?1, 2, NULL, 'canonical', ?2, '/src', '2026-01-01T00:00:00Z', 'proofpack 0.0.9')",
        rusqlite::params![digest, body.as_bytes()],
    )
    .unwrap();
    drop(conn);
    let c = Catalog::open(&path).unwrap();
    assert_eq!(c.schema_version().unwrap(), 3);
    let m = c.require_baseline("old").unwrap();
    assert_eq!(m.canonical_text(), body);
    assert_eq!(m.digest().to_hex(), digest);
    let columns: Vec<String> = rusqlite::Connection::open(&path)
        .unwrap()
        .prepare("SELECT name FROM pragma_table_info('baselines') ORDER BY cid")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(columns.last().map(String::as_str), Some("body"));
    c.integrity_check().unwrap();
}

#[test]
fn newer_or_foreign_files_are_refused_and_left_alone() {
    let (_d, path) = fresh();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute_batch("CREATE TABLE future (x); PRAGMA application_id = 1347439427; PRAGMA user_version = 99;")
        .unwrap();
    let before = std::fs::read(&path).unwrap();
    match Catalog::open(&path) {
        Err(e @ CatalogError::NewerSchema { found: 99, .. }) => {
            assert!(e.to_string().contains("newer proofpack"), "{e}");
            assert!(e.is_unusable());
        }
        other => panic!("expected NewerSchema, got {other:?}"),
    }
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "a newer catalog must not be modified"
    );

    let foreign = path.with_file_name("foreign.db");
    rusqlite::Connection::open(&foreign)
        .unwrap()
        .execute_batch("CREATE TABLE t (x);")
        .unwrap();
    assert!(matches!(
        Catalog::open(&foreign),
        Err(CatalogError::NotACatalog { .. })
    ));
}
