//! `receipt verify` on the InferenceX-app measurement-receipt fixture
//! (testdata/peers/inferencex-receipt, copied from
//! SemiAnalysisAI/InferenceX-app, see testdata/peers/README.md): it
//! verifies, and each tamper fails with its own check id. Where a tamper
//! must not show as another failure (the receipt id, the exit code), the
//! receipt is restated by tests/peers_reference.py (Python's hashlib and
//! json, not proofpack's code).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/peers/inferencex-receipt"
);

fn copy_fixture() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let dst = tmp.path().join("receipt");
    copy_dir(Path::new(FIXTURE), &dst);
    (tmp, dst)
}

fn copy_dir(src: &Path, dst: &Path) {
    std::fs::create_dir_all(dst).unwrap();
    for e in std::fs::read_dir(src).unwrap() {
        let e = e.unwrap();
        let to = dst.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &to);
        } else {
            std::fs::copy(e.path(), to).unwrap();
        }
    }
}

fn verify(dir: &Path) -> (i32, Value) {
    let out = common::command()
        .args(["--no-catalog", "receipt", "verify", "--json"])
        .arg(dir)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), v)
}

fn failed(v: &Value) -> Vec<String> {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

fn restate(dir: &Path) {
    let st = Command::new(common::python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/peers_reference.py"
        ))
        .arg("receipt-fix")
        .arg(dir)
        .status()
        .unwrap();
    assert!(st.success());
}

#[test]
fn the_fixture_verifies() {
    let (code, v) = verify(Path::new(FIXTURE));
    assert_eq!(code, 0, "{:?}", failed(&v));
    assert_eq!(v["schema"], "proofpack/report/v1");
    for id in [
        "receipt.transport_digest",
        "receipt.id",
        "receipt.member:bmk_pilot/agg.json.sha256",
        "receipt.execution:111111111111.client_exit_code",
        "receipt.artifact:eval_results_all.extra",
    ] {
        assert!(
            v["checks"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["id"] == id && c["ok"] == true),
            "{id}"
        );
    }
}

#[test]
fn each_tamper_fails_with_its_own_check() {
    type Tamper = fn(&Path);
    let cases: Vec<(&str, Tamper, &[&str])> = vec![
        (
            "a member's byte",
            |d| {
                let p = d.join("bmk_pilot/agg.json");
                let mut b = std::fs::read(&p).unwrap();
                let i = b.iter().position(|c| *c == b'1').unwrap();
                b[i] = b'2';
                std::fs::write(p, b).unwrap();
            },
            &["receipt.member:bmk_pilot/agg.json.sha256"],
        ),
        (
            "a member's size",
            |d| {
                let p = d.join("eval_results_all/samples_gsm8k.jsonl");
                let mut b = std::fs::read(&p).unwrap();
                b.extend_from_slice(b"{}\n");
                std::fs::write(p, b).unwrap();
            },
            &[
                "receipt.member:eval_results_all/samples_gsm8k.jsonl.size",
                "receipt.member:eval_results_all/samples_gsm8k.jsonl.sha256",
            ],
        ),
        (
            "an extra file",
            |d| std::fs::write(d.join("bmk_pilot/notes.txt"), b"x").unwrap(),
            &["receipt.artifact:bmk_pilot.extra"],
        ),
        (
            "an extra file in a subfolder",
            |d| {
                std::fs::create_dir(d.join("bmk_pilot/sub")).unwrap();
                std::fs::write(d.join("bmk_pilot/sub/agg.json"), b"[]").unwrap();
            },
            &["receipt.artifact:bmk_pilot.extra"],
        ),
        (
            "a missing file",
            |d| std::fs::remove_file(d.join("eval_results_all/samples_gsm8k.jsonl")).unwrap(),
            &[
                "receipt.artifact:eval_results_all.missing",
                "receipt.member:eval_results_all/samples_gsm8k.jsonl.size",
                "receipt.member:eval_results_all/samples_gsm8k.jsonl.sha256",
            ],
        ),
        (
            "a symlink",
            |d| {
                let p = d.join("bmk_pilot/agg.json");
                let target = d.join("agg-copy.json");
                std::fs::rename(&p, &target).unwrap();
                std::os::unix::fs::symlink(&target, &p).unwrap();
            },
            &[
                "receipt.artifact:bmk_pilot.symlinks",
                "receipt.artifact:bmk_pilot.missing",
                "receipt.member:bmk_pilot/agg.json.size",
                "receipt.member:bmk_pilot/agg.json.sha256",
                "receipt.point:111111111111.metrics",
            ],
        ),
        (
            "a stray artifact folder",
            |d| {
                std::fs::create_dir(d.join("bmk_other")).unwrap();
            },
            &["receipt.root"],
        ),
        (
            "the receipt id",
            |d| {
                let p = d.join("receipt.json");
                let t = std::fs::read_to_string(&p)
                    .unwrap()
                    .replace("\"receipt_id\": \"924d", "\"receipt_id\": \"824d");
                std::fs::write(&p, &t).unwrap();
                let h = proofpack::digest::Sha256Digest::of_bytes(t.as_bytes()).to_hex();
                std::fs::write(d.join("receipt.sha256"), format!("{h}\n")).unwrap();
            },
            &["receipt.id"],
        ),
        (
            "the transport digest",
            |d| {
                std::fs::write(d.join("receipt.sha256"), "0".repeat(64) + "\n").unwrap();
            },
            &["receipt.transport_digest"],
        ),
        (
            "a missing transport digest",
            |d| std::fs::remove_file(d.join("receipt.sha256")).unwrap(),
            &["receipt.transport_digest"],
        ),
        (
            "a non-zero client exit code",
            |d| {
                let p = d.join("bmk_pilot/execution.json");
                let t = std::fs::read_to_string(&p)
                    .unwrap()
                    .replace("\"client_exit_code\": 0", "\"client_exit_code\": 1");
                std::fs::write(&p, t).unwrap();
                restate(d);
            },
            &["receipt.execution:111111111111.client_exit_code"],
        ),
        (
            "a run that did not complete",
            |d| {
                let p = d.join("eval_results_all/execution.json");
                let t = std::fs::read_to_string(&p)
                    .unwrap()
                    .replace("COMPLETED", "FAILED");
                std::fs::write(&p, t).unwrap();
                restate(d);
            },
            &["receipt.execution:222222222222.contract"],
        ),
    ];
    for (what, tamper, expected) in cases {
        let (_tmp, d) = copy_fixture();
        tamper(&d);
        let (code, v) = verify(&d);
        assert_eq!(code, 1, "{what}: exit {code}");
        let mut got = failed(&v);
        got.sort();
        let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
        want.sort();
        assert_eq!(got, want, "{what}");
        assert!(
            v["verdict"].as_str().unwrap().starts_with("FAILED"),
            "{what}"
        );
    }
}

#[test]
fn restating_an_untampered_receipt_still_verifies() {
    // The helper itself is honest: restating the fixture changes nothing
    // the verifier objects to.
    let (_tmp, d) = copy_fixture();
    restate(&d);
    let (code, v) = verify(&d);
    assert_eq!(code, 0, "{:?}", failed(&v));
}

#[test]
fn malformed_receipts_exit_2() {
    for (what, body) in [
        (
            "truncated",
            &b"{\"kind\": \"source-measurement-receipt\""[..],
        ),
        ("NaN", b"{\"version\": NaN}"),
        ("repeated key", b"{\"version\": 1, \"version\": 1}"),
        ("not an object", b"[1]"),
    ] {
        let (_tmp, d) = copy_fixture();
        std::fs::write(d.join("receipt.json"), body).unwrap();
        let out = common::command()
            .args(["--no-catalog", "receipt", "verify"])
            .arg(&d)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{what}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("receipt.json") && !err.contains("panicked"),
            "{what}: {err}"
        );
    }
    let tmp = tempfile::tempdir().unwrap();
    let out = common::command()
        .args(["--no-catalog", "receipt", "verify"])
        .arg(tmp.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no receipt.json"));
}

fn verify_pinned(dir: &Path, pin: &str) -> (i32, Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_proofpack"))
        .args(["--no-catalog", "receipt", "verify", "--json", "--pin", pin])
        .arg(dir)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (out.status.code().unwrap_or(-1), v)
}

fn check<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no {id}"))
}

/// The fixture's published digests: the SHA-256 of receipt.json (its
/// receipt.sha256) and its receipt_id.
fn published() -> (String, String) {
    let bytes = std::fs::read(Path::new(FIXTURE).join("receipt.json")).unwrap();
    let sha = proofpack::digest::Sha256Digest::of_bytes(&bytes).to_hex();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    (sha, v["receipt_id"].as_str().unwrap().to_string())
}

#[test]
fn unpinned_the_verdict_says_nothing_outside_the_receipt_anchors_it() {
    let (code, v) = verify(Path::new(FIXTURE));
    assert_eq!(code, 0);
    let verdict = v["verdict"].as_str().unwrap();
    assert!(
        verdict.starts_with("VERIFIED (unpinned: nothing outside the receipt anchors it)"),
        "{verdict}"
    );
    assert_eq!(check(&v, "receipt.pin")["ok"], Value::Null);
    // Pinned by either published digest: plain VERIFIED.
    let (sha, id) = published();
    for pin in [sha.clone(), format!("sha256:{}", sha.to_uppercase()), id] {
        let (code, v) = verify_pinned(Path::new(FIXTURE), &pin);
        assert_eq!(code, 0, "{pin}: {:?}", failed(&v));
        assert_eq!(check(&v, "receipt.pin")["ok"], true, "{pin}");
        let verdict = v["verdict"].as_str().unwrap();
        assert!(verdict.starts_with("VERIFIED: receipt"), "{verdict}");
        assert!(!verdict.contains("unpinned"), "{verdict}");
    }
}

#[test]
fn tampering_and_re_deriving_every_digest_is_caught_only_by_the_pin() {
    // The attack: change what the receipt measured, then restate every
    // member digest, receipt_id and receipt.sha256 (tests/peers_reference.py
    // does it with Python's hashlib and json, not proofpack's code).
    let (_tmp, d) = copy_fixture();
    let p = d.join("bmk_pilot/agg.json");
    let text = std::fs::read_to_string(&p).unwrap();
    let mut rows: Value = serde_json::from_str(&text).unwrap();
    let row = match &mut rows {
        Value::Array(a) => &mut a[0],
        other => other,
    };
    // The point's measured output throughput, doubled.
    let obj = row.as_object_mut().unwrap();
    let doubled = obj["output_tput_tps"].as_f64().unwrap() * 2.0;
    obj.insert("output_tput_tps".into(), serde_json::json!(doubled));
    std::fs::write(&p, serde_json::to_string_pretty(&rows).unwrap()).unwrap();
    restate(&d);
    // Unpinned, every check holds: the verdict says what that is worth.
    let (code, v) = verify(&d);
    assert_eq!(code, 0, "{:?}", failed(&v));
    assert!(v["verdict"].as_str().unwrap().contains("unpinned"));
    // Pinned to what was published, the forgery fails on receipt.pin.
    let (sha, id) = published();
    for pin in [sha, id] {
        let (code, v) = verify_pinned(&d, &pin);
        assert_eq!(code, 1, "{pin}");
        assert_eq!(failed(&v), vec!["receipt.pin".to_string()], "{pin}");
        let c = check(&v, "receipt.pin");
        assert!(
            c["detail"]
                .as_str()
                .unwrap()
                .contains("not the receipt that was published"),
            "{c}"
        );
        assert!(v["verdict"].as_str().unwrap().starts_with("FAILED"));
    }
}

#[test]
fn a_malformed_pin_is_refused() {
    for bad in ["abc", &"g".repeat(64), "sha256:"] {
        let (code, _) = verify_pinned(Path::new(FIXTURE), bad);
        assert_eq!(code, 2, "{bad}");
    }
}
