//! Signed seals: `seal --key` writes the seal Statement of spec section 4
//! beside the bundle; `verify --trust` checks it under a `release` key and
//! against the bytes it read. Python's `cryptography` verifies the signature
//! over DSSE PAE independently.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::Command as Cmd;
use base64::Engine as _;
use serde_json::Value;

mod common;
use common::python;

fn pp() -> Cmd {
    let mut c = common::proofpack();
    c.env_remove("SOURCE_DATE_EPOCH");
    // Tests never touch ~/.local: no catalog (it has its own tests).
    c.arg("--no-catalog");
    c
}

struct Setup {
    d: tempfile::TempDir,
}

impl Setup {
    fn new() -> Self {
        let d = tempfile::tempdir().unwrap();
        let run = d.path().join("run");
        fs::create_dir_all(run.join("benchmark")).unwrap();
        fs::write(run.join("qualification.json"), br#"{"name": "sealed-run"}"#).unwrap();
        fs::write(
            run.join("benchmark/client.jsonl"),
            b"{\"request_id\": \"r\"}\n",
        )
        .unwrap();
        fs::write(run.join("report.json"), b"{\"ok\": true}").unwrap();
        for k in ["rel", "eng"] {
            pp().arg("key")
                .arg("gen")
                .arg("-o")
                .arg(d.path().join(k))
                .assert()
                .success();
        }
        pp().args(["key", "trust", "--release"])
            .arg(d.path().join("rel.pub"))
            .arg("--engine")
            .arg(d.path().join("eng.pub"))
            .arg("-o")
            .arg(d.path().join("trust.json"))
            .assert()
            .success();
        // The release key trusted only for engine attestations.
        pp().args(["key", "trust", "--engine"])
            .arg(d.path().join("rel.pub"))
            .arg("-o")
            .arg(d.path().join("wrong-role.json"))
            .assert()
            .success();
        Setup { d }
    }
    fn p(&self, rel: &str) -> PathBuf {
        self.d.path().join(rel)
    }
    fn seal(&self, out: &str, key: &str) {
        pp().arg("seal")
            .arg(self.p("run"))
            .arg("-o")
            .arg(self.p(out))
            .arg("--key")
            .arg(self.p(key))
            .env("SOURCE_DATE_EPOCH", "1700000000")
            .assert()
            .success();
    }
    /// Runs verify; returns (exit code, the `seal` check).
    fn verify(&self, bundle: &str, extra: &[&str]) -> (i32, Value) {
        let o = pp()
            .args(["verify", "--structure-only"])
            .arg(self.p(bundle))
            .arg("--json")
            .args(extra)
            .current_dir(self.d.path())
            .output()
            .unwrap();
        let r: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
        let seal = r["checks"]
            .as_array()
            .and_then(|cs| cs.iter().find(|c| c["id"] == "seal").cloned())
            .unwrap_or(Value::Null);
        (o.status.code().unwrap(), seal)
    }
}

fn statement(envelope: &Path) -> Value {
    let env: Value = serde_json::from_slice(&fs::read(envelope).unwrap()).unwrap();
    let payload = base64::engine::general_purpose::STANDARD
        .decode(env["payload"].as_str().unwrap())
        .unwrap();
    serde_json::from_slice(&payload).unwrap()
}

#[test]
fn seal_statement_follows_the_spec_and_verifies() {
    let s = Setup::new();
    s.seal("b.tgz", "rel.key");
    let st = statement(&s.p("b.tgz.seal.dsse.json"));
    assert_eq!(st["_type"], "https://in-toto.io/Statement/v1");
    assert_eq!(st["predicateType"], "urn:proofpack:predicate:seal:v1");
    let bundle_hex =
        proofpack::digest::Sha256Digest::of_bytes(&fs::read(s.p("b.tgz")).unwrap()).to_hex();
    assert_eq!(st["subject"][0]["name"], "b.tgz");
    assert_eq!(st["subject"][0]["digest"]["sha256"], bundle_hex);
    assert_eq!(st["subject"][1]["name"], "MANIFEST");
    let m = pp().arg("manifest").arg(s.p("run")).output().unwrap();
    assert_eq!(
        st["subject"][1]["digest"]["sha256"],
        proofpack::digest::Sha256Digest::of_bytes(&m.stdout).to_hex()
    );
    assert_eq!(st["predicate"]["files"], 3);
    assert_eq!(st["predicate"]["bytes"], 22 + 20 + 12);
    assert_eq!(st["predicate"]["sealed_at"], "2023-11-14T22:13:20Z");
    assert_eq!(st["predicate"]["tool"], proofpack::TOOL);

    let (code, seal) = s.verify("b.tgz", &["--trust", "trust.json"]);
    assert_eq!(code, 0, "{seal}");
    assert_eq!(seal["ok"], true);
    let (code, seal) = s.verify("b.tgz", &["--trust", "trust.json", "--require-seal"]);
    assert_eq!((code, seal["ok"].clone()), (0, Value::Bool(true)));
    // Deterministic: same content, same SOURCE_DATE_EPOCH, same key -> same envelope.
    s.seal("again.tgz", "rel.key");
    let a = statement(&s.p("again.tgz.seal.dsse.json"));
    assert_eq!(a["subject"][0]["digest"], st["subject"][0]["digest"]);
}

#[test]
fn python_cryptography_verifies_the_seal_signature_over_pae() {
    let s = Setup::new();
    s.seal("b.tgz", "rel.key");
    let script = r#"
import base64, json, sys
from cryptography.hazmat.primitives.serialization import load_pem_public_key
env = json.load(open(sys.argv[1]))
payload = base64.b64decode(env["payload"])
pt = env["payloadType"].encode()
pae = b"DSSEv1 %d %s %d %s" % (len(pt), pt, len(payload), payload)
key = load_pem_public_key(open(sys.argv[2], "rb").read())
key.verify(base64.b64decode(env["signatures"][0]["sig"]), pae)
print("verified")
"#;
    let o = Command::new(python())
        .arg("-c")
        .arg(script)
        .arg(s.p("b.tgz.seal.dsse.json"))
        .arg(s.p("rel.pub"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "verified");
}

#[test]
fn seal_must_be_by_a_release_key_and_match_the_bytes() {
    let s = Setup::new();
    s.seal("b.tgz", "rel.key");
    // Trusted, but only for engine attestations.
    let (code, seal) = s.verify("b.tgz", &["--trust", "wrong-role.json"]);
    assert_eq!(code, 1);
    assert!(
        seal["detail"].as_str().unwrap().contains("not for release"),
        "{seal}"
    );
    // Signed by an untrusted key (the engine key is trusted for engine only).
    s.seal("e.tgz", "eng.key");
    let (code, seal) = s.verify("e.tgz", &["--trust", "trust.json"]);
    assert_eq!(code, 1, "{seal}");
    // A seal for other bytes: the run changed and was resealed without a key.
    fs::write(s.p("run/report.json"), b"{\"ok\": false}").unwrap();
    pp().arg("seal")
        .arg(s.p("run"))
        .arg("-o")
        .arg(s.p("changed.tgz"))
        .assert()
        .success();
    let (code, seal) = s.verify(
        "changed.tgz",
        &["--trust", "trust.json", "--seal", "b.tgz.seal.dsse.json"],
    );
    assert_eq!(code, 1);
    let detail = seal["detail"].as_str().unwrap();
    assert!(
        detail.contains("other bytes") && detail.contains("MANIFEST subject"),
        "{detail}"
    );
}

#[test]
fn forged_statements_signed_by_the_release_key_still_must_match() {
    let s = Setup::new();
    s.seal("b.tgz", "rel.key");
    let good = statement(&s.p("b.tgz.seal.dsse.json"));
    let bundle_hex = good["subject"][0]["digest"]["sha256"]
        .as_str()
        .unwrap()
        .to_string();
    let manifest_hex = good["subject"][1]["digest"]["sha256"]
        .as_str()
        .unwrap()
        .to_string();
    let sign = |name: &str, predicate: &Value, subjects: &[String], ptype: &str| {
        let pf = s.p(&format!("{name}.pred.json"));
        fs::write(&pf, predicate.to_string()).unwrap();
        let mut c = pp();
        c.args(["attest", "sign", "--key"])
            .arg(s.p("rel.key"))
            .args(["--predicate-type", ptype, "--predicate"])
            .arg(&pf)
            .arg("-o")
            .arg(s.p(name));
        for sub in subjects {
            c.arg("--subject").arg(sub);
        }
        c.assert().success();
    };
    let seal_type = "urn:proofpack:predicate:seal:v1";
    let subjects = vec![
        format!("renamed.tgz=sha256:{bundle_hex}"),
        format!("MANIFEST=sha256:{manifest_hex}"),
    ];
    // A renamed bundle subject still matches by digest.
    sign("renamed.json", &good["predicate"], &subjects, seal_type);
    let (code, seal) = s.verify(
        "b.tgz",
        &["--trust", "trust.json", "--seal", "renamed.json"],
    );
    assert_eq!(code, 0, "{seal}");
    // Wrong totals.
    let mut p = good["predicate"].clone();
    p["files"] = Value::from(4);
    sign("files.json", &p, &subjects, seal_type);
    let (code, seal) = s.verify("b.tgz", &["--trust", "trust.json", "--seal", "files.json"]);
    assert_eq!(code, 1);
    assert!(
        seal["detail"].as_str().unwrap().contains("4 files"),
        "{seal}"
    );
    // No MANIFEST subject.
    sign(
        "nomanifest.json",
        &good["predicate"],
        &subjects[..1],
        seal_type,
    );
    let (code, seal) = s.verify(
        "b.tgz",
        &["--trust", "trust.json", "--seal", "nomanifest.json"],
    );
    assert_eq!(code, 1);
    assert!(
        seal["detail"]
            .as_str()
            .unwrap()
            .contains("no MANIFEST subject"),
        "{seal}"
    );
    // Another predicate type is not a seal.
    sign(
        "engine.json",
        &good["predicate"],
        &subjects,
        "urn:example:not-a-seal:v1",
    );
    let (code, seal) = s.verify("b.tgz", &["--trust", "trust.json", "--seal", "engine.json"]);
    assert_eq!(code, 1);
    assert!(
        seal["detail"]
            .as_str()
            .unwrap()
            .contains("not a valid seal"),
        "{seal}"
    );
}

#[test]
fn absent_seals_and_flag_errors() {
    let s = Setup::new();
    pp().arg("seal")
        .arg(s.p("run"))
        .arg("-o")
        .arg(s.p("u.tgz"))
        .assert()
        .success();
    assert!(!s.p("u.tgz.seal.dsse.json").exists());
    let (code, seal) = s.verify("u.tgz", &["--trust", "trust.json"]);
    assert_eq!(code, 0);
    assert_eq!(seal["ok"], Value::Null, "absent seal is skipped: {seal}");
    let (code, seal) = s.verify("u.tgz", &["--trust", "trust.json", "--require-seal"]);
    assert_eq!(code, 1);
    assert_eq!(seal["ok"], false);
    // --require-seal without --trust, a bad trust file, a missing named seal: exit 2.
    assert_eq!(s.verify("u.tgz", &["--require-seal"]).0, 2);
    fs::write(s.p("bad-trust.json"), b"{}").unwrap();
    assert_eq!(s.verify("u.tgz", &["--trust", "bad-trust.json"]).0, 2);
    assert_eq!(
        s.verify("u.tgz", &["--trust", "trust.json", "--seal", "nope.json"])
            .0,
        2
    );
    // A malformed seal beside the bundle: exit 1.
    fs::write(s.p("u.tgz.seal.dsse.json"), b"not json").unwrap();
    let (code, seal) = s.verify("u.tgz", &["--trust", "trust.json"]);
    assert_eq!(code, 1);
    assert_eq!(seal["ok"], false);
    // A public key given as --key: exit 2 and nothing written.
    let o = pp()
        .arg("seal")
        .arg(s.p("run"))
        .arg("-o")
        .arg(s.p("k.tgz"))
        .arg("--key")
        .arg(s.p("rel.pub"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(!s.p("k.tgz").exists() && !s.p("k.tgz.sha256").exists());
}
