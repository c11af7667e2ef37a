//! `seal` and `verify` leave records in the catalog, and the catalog never
//! changes their verdict or exit status.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use assert_cmd::Command;
use predicates::str::contains;
use proofpack::catalog::Catalog;
use proofpack::digest::Sha256Digest;
use serde_json::Value;

fn bin(catalog: &Path) -> Command {
    let mut c = common::proofpack();
    c.env("PROOFPACK_CATALOG", catalog)
        .env("NO_COLOR", "1")
        .env_remove("SOURCE_DATE_EPOCH");
    c
}

/// A run directory and a sealed bundle of it (sealed with --no-catalog).
fn sealed() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    fs::create_dir_all(run.join("benchmark/rate-0.5")).unwrap();
    fs::write(
        run.join("qualification.json"),
        br#"{"schema": "proofpack/qualification/v1", "name": "issue44-sample"}"#,
    )
    .unwrap();
    fs::write(
        run.join("benchmark/rate-0.5/client.jsonl"),
        b"{}\n".repeat(100),
    )
    .unwrap();
    fs::write(
        run.join("router-journal.jsonl"),
        b"{\"event\": \"terminal\"}\n",
    )
    .unwrap();
    let tgz = d.path().join("run.tgz");
    bin(Path::new("/nonexistent"))
        .args(["--no-catalog", "seal"])
        .arg(&run)
        .arg("-o")
        .arg(&tgz)
        .assert()
        .success();
    (d, run, tgz)
}

fn records(cat: &Path) -> Vec<Value> {
    let out = bin(cat)
        .args(["catalog", "list", "--json"])
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    v["records"].as_array().unwrap().clone()
}

#[test]
fn records_appear_after_seal_and_verify() {
    let (d, run, _) = sealed();
    let cat = d.path().join("catalog.db");
    let tgz = d.path().join("sealed.tgz");
    let out = bin(&cat)
        .arg("seal")
        .arg(&run)
        .arg("-o")
        .arg(&tgz)
        .arg("--json")
        .assert()
        .success();
    let sealed: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let bundle_hex = Sha256Digest::of_bytes(&fs::read(&tgz).unwrap()).to_hex();
    assert_eq!(sealed["sha256"], bundle_hex);

    let recs = records(&cat);
    assert_eq!(recs.len(), 1);
    let r = &recs[0];
    assert_eq!(r["kind"], "seal");
    assert_eq!(r["ok"], true);
    assert_eq!(r["bundle_sha256"], bundle_hex);
    assert_eq!(
        format!("sha256:{}", r["manifest_sha256"].as_str().unwrap()),
        sealed["manifest_digest"].as_str().unwrap()
    );
    assert_eq!(r["run_name"], "issue44-sample");
    assert_eq!(r["target"], tgz.display().to_string());
    assert_eq!(r["tool"], proofpack::TOOL);
    // The stored report is what `seal --json` printed.
    let shown = bin(&cat)
        .args(["catalog", "show", "id:1", "--json"])
        .assert()
        .success();
    let stored: Value = serde_json::from_slice(&shown.get_output().stdout).unwrap();
    assert_eq!(stored, sealed);

    // verify: a record with the verdict and the full report, exactly as printed.
    let out = bin(&cat)
        .args(["verify", "--structure-only"])
        .arg(&tgz)
        .arg("--json")
        .assert()
        .success();
    let printed = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let recs = records(&cat);
    assert_eq!(recs.len(), 2);
    let r = &recs[0];
    assert_eq!(r["kind"], "verify");
    assert_eq!(r["ok"], true);
    assert_eq!(r["bundle_sha256"], bundle_hex);
    assert_eq!(r["manifest_sha256"], recs[1]["manifest_sha256"]);
    assert_eq!(r["run_name"], "issue44-sample");
    assert_eq!(r["pins_sha256"], Value::Null);
    let shown = bin(&cat)
        .args(["catalog", "show", &bundle_hex, "--json"])
        .assert()
        .success();
    assert_eq!(
        String::from_utf8(shown.get_output().stdout.clone())
            .unwrap()
            .trim_end(),
        printed.trim_end()
    );

    // A bundle that does not hold is recorded as such, exit status 1 as ever.
    let bad = d.path().join("bad.tgz");
    let mut bytes = fs::read(&tgz).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0xFF;
    fs::write(&bad, &bytes).unwrap();
    let out = bin(&cat)
        .args(["verify", "--structure-only"])
        .arg(&bad)
        .arg("--json")
        .assert()
        .code(1);
    let report: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(report["ok"], false);
    let recs = records(&cat);
    assert_eq!(recs.len(), 3);
    assert_eq!(recs[0]["ok"], false);
    assert_eq!(recs[0]["target"], bad.display().to_string());
    assert_eq!(
        recs[0]["bundle_sha256"],
        Sha256Digest::of_bytes(&bytes).to_hex()
    );
    let text = bin(&cat).args(["catalog", "list"]).assert().success();
    assert!(String::from_utf8_lossy(&text.get_output().stdout).contains("FAILED"));

    // --no-catalog records nothing.
    bin(&cat)
        .args(["--no-catalog", "verify", "--structure-only"])
        .arg(&tgz)
        .assert()
        .success();
    assert_eq!(records(&cat).len(), 3);
    // Recording happens once per run, by bundle digest: show finds the newest.
    let show = bin(&cat)
        .args(["catalog", "show", &bundle_hex[..12]])
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&show.get_output().stdout).starts_with("verify id:2"));
}

/// A JSON report without the time it was made (`context.verified_at`, the
/// only part of a report that differs between two runs on the same input).
fn report_without_time(stdout: &[u8]) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_slice(stdout).expect("a JSON report");
    if let Some(c) = v.get_mut("context").and_then(|c| c.as_object_mut()) {
        assert!(
            c.remove("verified_at").is_some(),
            "the report carries its time"
        );
    }
    v
}

#[test]
fn a_broken_catalog_never_changes_a_verdict() {
    let (d, _run, tgz) = sealed();
    let mut bytes = fs::read(&tgz).unwrap();
    let n = bytes.len();
    bytes[n / 2] ^= 0xFF;
    let bad = d.path().join("bad.tgz");
    fs::write(&bad, &bytes).unwrap();
    let want_good = bin(Path::new("/x"))
        .args(["--no-catalog", "verify", "--structure-only", "--json"])
        .arg(&tgz)
        .assert()
        .success();
    let want_good = report_without_time(&want_good.get_output().stdout);
    let want_bad = bin(Path::new("/x"))
        .args(["--no-catalog", "verify", "--structure-only", "--json"])
        .arg(&bad)
        .assert()
        .code(1);
    let want_bad = report_without_time(&want_bad.get_output().stdout);

    let garbage = d.path().join("garbage.db");
    fs::write(&garbage, vec![0x5Au8; 10_000]).unwrap();
    let newer = d.path().join("newer.db");
    rusqlite::Connection::open(&newer)
        .unwrap()
        .execute_batch(
            "CREATE TABLE t (x); PRAGMA application_id = 1347439427; PRAGMA user_version = 9;",
        )
        .unwrap();
    let blocked = d.path().join("file").join("catalog.db");
    fs::write(d.path().join("file"), b"x").unwrap();
    for (cat, why) in [
        (&garbage, "corrupt or not a SQLite database"),
        (&newer, "newer proofpack"),
        (&blocked, "catalog"),
    ] {
        let good = bin(cat)
            .args(["verify", "--structure-only", "--json"])
            .arg(&tgz)
            .assert()
            .success()
            .stderr(contains(why))
            .stderr(contains("continuing without the catalog"));
        assert_eq!(
            report_without_time(&good.get_output().stdout),
            want_good,
            "{why}"
        );
        let bad_run = bin(cat)
            .args(["verify", "--structure-only", "--json"])
            .arg(&bad)
            .assert()
            .code(1)
            .stderr(contains(why));
        assert_eq!(
            report_without_time(&bad_run.get_output().stdout),
            want_bad,
            "{why}"
        );
        let out = d.path().join("again.tgz");
        bin(cat)
            .arg("seal")
            .arg(d.path().join("run"))
            .arg("-o")
            .arg(&out)
            .assert()
            .success()
            .stderr(contains(why));
        assert_eq!(
            fs::read(&out).unwrap(),
            fs::read(&tgz).unwrap(),
            "same bundle with or without a catalog"
        );
    }
}

#[test]
fn parallel_verifications_are_all_recorded() {
    let (d, _run, tgz) = sealed();
    let cat = d.path().join("catalog.db");
    // v1.1: verify records into an existing catalog and never creates one.
    Catalog::open(&cat).unwrap();
    let exe = common::bin();
    let rounds = 6;
    for _ in 0..rounds {
        let kids: Vec<_> = (0..2)
            .map(|_| {
                std::process::Command::new(&exe)
                    .env("PROOFPACK_CATALOG", &cat)
                    .args(["verify", "--structure-only"])
                    .arg(&tgz)
                    .stdout(Stdio::null())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for k in kids {
            let out = k.wait_with_output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(out.status.success(), "{err}");
            assert!(!err.contains("warning"), "{err}");
        }
    }
    let c = Catalog::open(&cat).unwrap();
    let recs = c.list(None).unwrap();
    assert_eq!(recs.len(), 2 * rounds);
    assert!(recs.iter().all(|r| r.ok && r.kind.as_str() == "verify"));
    c.integrity_check().unwrap();
}
