//! v1.1: `verify --vsa --vsa-key` writes a signed SLSA Verification Summary
//! Attestation of the verification, and `attest verify --role auditor`
//! checks one; through the binary, on the committed sample, with
//! securesystemslib, `cryptography` and in-toto's own Python bindings as
//! independent readers.

mod common;

use std::path::{Path, PathBuf};

use base64::Engine as _;
use common::{proofpack_out, run_python, Outcome};
use proofpack::digest::Sha256Digest;
use serde_json::{json, Value};

const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;
const VSA_TYPE: &str = "https://slsa.dev/verification_summary/v1";
const INPUTS_FIELD: &str = "https://proofpack.dev/vsa/policyInputs/v1";
const BUNDLE_NAME: &str = "kimi-k3-mi355x-20260923-sample.tgz";

fn sample(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/sample")
        .join(rel)
}

fn sha(p: &Path) -> String {
    Sha256Digest::of_bytes(&std::fs::read(p).unwrap()).to_hex()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A fresh key pair made by `key gen` under `dir`: (private, public).
fn key_gen(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let prefix = dir.join(name);
    let (code, _, err) = proofpack_out(&["key", "gen", "-o", s(&prefix)]);
    assert_eq!(code, 0, "{err}");
    (
        dir.join(format!("{name}.key")),
        dir.join(format!("{name}.pub")),
    )
}

/// A trust file written by `key trust` with `flags` (e.g. `--auditor PUB`).
fn key_trust(dir: &Path, name: &str, flags: &[&str]) -> PathBuf {
    let out = dir.join(name);
    let mut args = vec!["key", "trust"];
    args.extend_from_slice(flags);
    args.extend_from_slice(&["-o", s(&out)]);
    let (code, _, err) = proofpack_out(&args);
    assert_eq!(code, 0, "{err}");
    out
}

/// `verify` of `bundle` with the sample's write-up and trust, writing a
/// VSA signed by `key` to `out`: its exit code and stderr.
fn verify_vsa(bundle: &Path, out: &Path, key: &Path, extra: &[&str]) -> (i32, String) {
    let writeup = sample("PUBLICATION.md");
    let trust = sample("trust.json");
    let mut args = vec![
        "verify",
        s(bundle),
        "--publication",
        s(&writeup),
        "--trust",
        s(&trust),
        "--vsa",
        s(out),
        "--vsa-key",
        s(key),
    ];
    args.extend_from_slice(extra);
    let (code, _, err) = proofpack_out(&args);
    (code, err)
}

/// The envelope's Statement.
fn statement(envelope: &Path) -> Value {
    let env: Value = serde_json::from_slice(&std::fs::read(envelope).unwrap()).unwrap();
    let payload = B64.decode(env["payload"].as_str().unwrap()).unwrap();
    serde_json::from_slice(&payload).unwrap()
}

/// `attest verify ENVELOPE --trust TRUST --role ROLE --json` plus `extra`.
fn attest_verify(envelope: &Path, trust: &Path, role: &str, extra: &[&str]) -> Outcome {
    let mut args: Vec<&std::ffi::OsStr> = ["attest", "verify"]
        .iter()
        .map(std::ffi::OsStr::new)
        .collect();
    args.push(envelope.as_os_str());
    for a in ["--trust", s(trust), "--role", role, "--json"]
        .into_iter()
        .chain(extra.iter().copied())
    {
        args.push(std::ffi::OsStr::new(a));
    }
    Outcome::of(&args)
}

/// Everything the tests share: a temporary directory, a fresh auditor key,
/// a trust file holding it as auditor, and the sample's VSA.
struct Written {
    dir: tempfile::TempDir,
    key: PathBuf,
    public: PathBuf,
    trust: PathBuf,
    vsa: PathBuf,
}

fn written() -> Written {
    let dir = tempfile::tempdir().unwrap();
    let (key, public) = key_gen(dir.path(), "auditor");
    let trust = key_trust(dir.path(), "auditor-trust.json", &["--auditor", s(&public)]);
    let vsa = dir.path().join("sample.vsa.dsse.json");
    let (code, err) = verify_vsa(&sample(BUNDLE_NAME), &vsa, &key, &["--require-all"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("verification summary: PASSED"), "{err}");
    Written {
        dir,
        key,
        public,
        trust,
        vsa,
    }
}

#[test]
fn the_sample_summary_says_what_was_verified_and_holds_under_the_auditor_role() {
    let w = written();
    let st = statement(&w.vsa);
    let bundle = sample(BUNDLE_NAME);
    assert_eq!(st["_type"], "https://in-toto.io/Statement/v1");
    assert_eq!(st["predicateType"], VSA_TYPE);
    assert_eq!(
        st["subject"],
        json!([{"name": BUNDLE_NAME, "digest": {"sha256": sha(&bundle)}}])
    );
    let p = &st["predicate"];
    assert_eq!(
        p["verifier"]["id"],
        format!(
            "https://proofpack.dev/verifier/v{}",
            env!("CARGO_PKG_VERSION")
        )
    );
    let t = p["timeVerified"].as_str().unwrap();
    proofpack::timefmt::check_rfc3339_utc(t).unwrap();
    assert_eq!(p["resourceUri"], BUNDLE_NAME);
    let contract = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/spec/FORMATS.md");
    assert_eq!(
        p["policy"],
        json!({"uri": "https://proofpack.dev/policy/verify/v1.1",
               "digest": {"sha256": sha(&contract)}})
    );
    assert_eq!(
        p[INPUTS_FIELD],
        json!([
            {"name": "trust", "digest": {"sha256": sha(&sample("trust.json"))}},
            {"name": "publication", "digest": {"sha256": sha(&sample("PUBLICATION.md"))}},
        ])
    );
    // Every engine attestation and host report of the run, and the seal,
    // with the digests of their bytes.
    let run = sample("run/kimi-k3-mi355x-20260923-sample");
    let mut expected: Vec<Value> = Vec::new();
    let seal = sample(&format!("{BUNDLE_NAME}.seal.dsse.json"));
    expected.push(json!({"uri": format!("{BUNDLE_NAME}.seal.dsse.json"),
                         "digest": {"sha256": sha(&seal)}}));
    let q: Value =
        serde_json::from_slice(&std::fs::read(run.join("qualification.json")).unwrap()).unwrap();
    let named = q["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["attestation"].as_str().unwrap())
        .chain(
            q["host_checks"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h.as_str().unwrap()),
        );
    for rel in named {
        expected.push(json!({
            "uri": format!("kimi-k3-mi355x-20260923-sample/{rel}"),
            "digest": {"sha256": sha(&run.join(rel))}
        }));
    }
    assert!(expected.len() >= 5, "{expected:?}");
    assert_eq!(p["inputAttestations"], Value::Array(expected));
    assert_eq!(p["verificationResult"], "PASSED");
    assert_eq!(
        p["verifiedLevels"],
        json!([
            "PROOFPACK_BUNDLE",
            "PROOFPACK_SEAL",
            "PROOFPACK_PUBLICATION_ALL"
        ])
    );
    assert!(p.get("dependencyLevels").is_none());

    // (a) It holds under a trust file holding the key as auditor, for the bundle.
    let ok = attest_verify(&w.vsa, &w.trust, "auditor", &["--subject", s(&bundle)]);
    ok.assert_ok();
    for id in ["vsa.type", "vsa.result", "vsa.subject", "predicate"] {
        assert_eq!(ok.check(id)["ok"], true, "{id}: {}", ok.stdout);
    }
    let (code, out, _) = proofpack_out(&[
        "attest",
        "verify",
        s(&w.vsa),
        "--trust",
        s(&w.trust),
        "--role",
        "auditor",
    ]);
    assert_eq!(code, 0);
    assert!(
        out.contains("verification summary: PASSED by https://proofpack.dev/verifier/v"),
        "{out}"
    );
    // Without --require-all the publication level is the lower one.
    let plain = w.dir.path().join("plain.vsa.dsse.json");
    let (code, err) = verify_vsa(&bundle, &plain, &w.key, &[]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        statement(&plain)["predicate"]["verifiedLevels"],
        json!([
            "PROOFPACK_BUNDLE",
            "PROOFPACK_SEAL",
            "PROOFPACK_PUBLICATION"
        ])
    );
}

/// `attest verify --role auditor` of `envelope` fails `attestation`, its
/// one signature not counted for the reason `why`.
fn not_counted(envelope: &Path, trust: &Path, why: &str) {
    let out = attest_verify(envelope, trust, "auditor", &[]);
    out.assert_fails(
        "attestation",
        "0 distinct key(s) trusted for auditor verified",
    );
    let sigs: Vec<&Value> = out.report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["id"].as_str().unwrap().starts_with("signature:"))
        .collect();
    assert_eq!(sigs.len(), 1, "{}", out.stdout);
    assert_eq!(sigs[0]["ok"], Value::Null, "{}", out.stdout);
    let detail = sigs[0]["detail"].as_str().unwrap();
    assert!(detail.contains(why), "{why:?} not in {detail}");
}

/// Re-signs `st` as an envelope with `key` (through `attest sign`).
fn resign(dir: &Path, key: &Path, predicate_type: &str, st: &Value, out: &Path) -> (i32, String) {
    let pred = dir.join("predicate.json");
    std::fs::write(&pred, st["predicate"].to_string()).unwrap();
    let subject = format!(
        "{}=sha256:{}",
        st["subject"][0]["name"].as_str().unwrap(),
        st["subject"][0]["digest"]["sha256"].as_str().unwrap()
    );
    let (code, _, err) = proofpack_out(&[
        "attest",
        "sign",
        "--key",
        s(key),
        "--predicate-type",
        predicate_type,
        "--predicate",
        s(&pred),
        "--subject",
        &subject,
        "-o",
        s(out),
    ]);
    (code, err)
}

#[test]
fn a_changed_summary_or_the_wrong_key_or_role_fails_naming_the_check() {
    let w = written();
    let d = w.dir.path();
    // A flipped payload byte: the signature no longer holds.
    let mut env: Value = serde_json::from_slice(&std::fs::read(&w.vsa).unwrap()).unwrap();
    let mut payload = B64.decode(env["payload"].as_str().unwrap()).unwrap();
    let at = payload
        .windows(6)
        .position(|x| x == b"PASSED")
        .expect("PASSED in the payload");
    payload[at] = b'Q';
    env["payload"] = B64.encode(&payload).into();
    let flipped = d.join("flipped.dsse.json");
    std::fs::write(&flipped, env.to_string()).unwrap();
    not_counted(&flipped, &w.trust, "does not verify under trusted key");

    // Signed by another fresh key than the trusted one.
    let (other_key, other_pub) = key_gen(d, "other");
    let other = d.join("other.vsa.dsse.json");
    let (code, err) = verify_vsa(&sample(BUNDLE_NAME), &other, &other_key, &[]);
    assert_eq!(code, 0, "{err}");
    not_counted(&other, &w.trust, "is not in the trust file");

    // The signer trusted only as engine (another key is the auditor).
    let mixed = key_trust(
        d,
        "mixed.json",
        &["--engine", s(&other_pub), "--auditor", s(&w.public)],
    );
    not_counted(&other, &mixed, "trusted for [engine] but not for auditor");
    // And the other way: a summary checked under the engine role, by a
    // key trusted for engine, is no engine attestation.
    attest_verify(&other, &mixed, "engine", &[])
        .assert_fails("vsa.type", "holds only under --role auditor");
    // An engine attestation signed by an auditor key is not a summary.
    let engine_st = statement(&sample(
        "run/kimi-k3-mi355x-20260923-sample/attestations/engine-0.dsse.json",
    ));
    let by_auditor = d.join("engine-by-auditor.dsse.json");
    let (code, err) = resign(
        d,
        &w.key,
        engine_st["predicateType"].as_str().unwrap(),
        &engine_st,
        &by_auditor,
    );
    assert_eq!(code, 0, "{err}");
    attest_verify(&by_auditor, &w.trust, "auditor", &[])
        .assert_fails("vsa.type", "signs only verification summaries");

    // The predicate type changed, re-signed by the auditor's own key.
    let st = statement(&w.vsa);
    let retyped = d.join("retyped.dsse.json");
    let (code, err) = resign(d, &w.key, "https://slsa.dev/provenance/v1", &st, &retyped);
    assert_eq!(code, 0, "{err}");
    attest_verify(&retyped, &w.trust, "auditor", &[])
        .assert_fails("vsa.type", "https://slsa.dev/provenance/v1");

    // Another bundle than the summary's subject.
    attest_verify(
        &w.vsa,
        &w.trust,
        "auditor",
        &["--subject", s(&sample("pins.json"))],
    )
    .assert_fails("vsa.subject", "the summary is about");

    // A summary missing a required field is never signed by attest sign.
    let mut broken = st.clone();
    broken["predicate"]
        .as_object_mut()
        .unwrap()
        .remove("verificationResult");
    let (code, err) = resign(d, &w.key, VSA_TYPE, &broken, &d.join("broken.dsse.json"));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("verificationResult is missing"), "{err}");
    // Signed anyway (with the library), it fails `predicate`, and its
    // result is not read.
    let signer = proofpack::keys::load_signing_key(&w.key).unwrap();
    let st = proofpack::attest::Statement::parse(broken.to_string().as_bytes()).unwrap();
    let signed = d.join("broken-signed.dsse.json");
    std::fs::write(&signed, proofpack::attest::sign_statement(&st, &[&signer])).unwrap();
    let out = attest_verify(&signed, &w.trust, "auditor", &[]);
    out.assert_fails("predicate", "verificationResult is missing");
    assert_eq!(out.check("vsa.type")["ok"], true);
    assert!(!out.stdout.contains("vsa.result"), "{}", out.stdout);
}

#[test]
fn a_failed_verification_writes_a_failed_summary_with_no_level() {
    let w = written();
    let d = w.dir.path();
    // A forged copy of the run (a client record changed), sealed unsigned.
    let run = d.join("forged/kimi-k3-mi355x-20260923-sample");
    let src = sample("run/kimi-k3-mi355x-20260923-sample");
    common::copy_tree(&src, &run);
    common::change_a_client_record(&run);
    let bundle = d.join("forged.tgz");
    let (code, _, err) = proofpack_out(&["seal", s(&run), "-o", s(&bundle)]);
    assert_eq!(code, 0, "{err}");

    let vsa = d.join("forged.vsa.dsse.json");
    let (code, err) = verify_vsa(&bundle, &vsa, &w.key, &["--require-all"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("verification summary: FAILED"), "{err}");
    let st = statement(&vsa);
    assert_eq!(st["subject"][0]["digest"]["sha256"], sha(&bundle));
    assert_eq!(st["subject"][0]["name"], "forged.tgz");
    let p = &st["predicate"];
    assert_eq!(p["verificationResult"], "FAILED");
    assert_eq!(p["verifiedLevels"], json!(["FAILED"]));
    assert!(!p.to_string().contains("PROOFPACK_"), "{p}");
    // Signed and well-formed, but it records a failure: attest verify fails.
    let out = attest_verify(&vsa, &w.trust, "auditor", &["--subject", s(&bundle)]);
    out.assert_fails("vsa.result", "did not pass (FAILED)");
    assert_eq!(out.check("attestation")["ok"], true);
    assert_eq!(out.check("vsa.subject")["ok"], true);
}

#[test]
fn the_vsa_flags_are_checked_before_any_verification() {
    let w = written();
    let d = w.dir.path();
    let bundle = sample(BUNDLE_NAME);
    let run = sample("run/kimi-k3-mi355x-20260923-sample");
    let missing = d.join("no/such/dir/out.vsa.dsse.json");
    let out_path = d.join("out.vsa.dsse.json");
    let dash = PathBuf::from("-");
    let key = w.key.as_path();
    // (target, --vsa, --vsa-key, what the refusal says)
    let cases: [(&Path, &Path, Option<&Path>, &str); 5] = [
        (&bundle, &missing, Some(key), "does not exist"),
        (&bundle, &out_path, None, "--vsa needs --vsa-key"),
        (&bundle, &dash, Some(key), "give a file name"),
        (&run, &out_path, Some(key), "is a directory"),
        (
            &bundle,
            &out_path,
            Some(&w.public),
            "cannot use the --vsa-key",
        ),
    ];
    let trust = sample("trust.json");
    for (target, vsa, key, needle) in cases {
        let mut args = vec!["verify", s(target), "--trust", s(&trust), "--vsa", s(vsa)];
        if let Some(k) = key {
            args.extend_from_slice(&["--vsa-key", s(k)]);
        }
        let (code, out, err) = proofpack_out(&args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        // Refused before the verification: no checklist, no summary line.
        assert!(out.is_empty(), "{args:?}: output before the refusal: {out}");
        assert!(err.contains(needle), "{args:?}: {needle:?} not in {err}");
        assert!(!err.contains(" checks ("), "{args:?}: {err}");
        assert!(!missing.exists() && !out_path.exists());
    }
    let (code, out, err) = proofpack_out(&[
        "verify",
        s(&bundle),
        "--trust",
        s(&trust),
        "--vsa-key",
        s(key),
    ]);
    assert_eq!(code, 2, "{out}{err}");
    assert!(
        out.is_empty() && err.contains("--vsa-key is given without --vsa"),
        "{err}"
    );
}

/// securesystemslib and `cryptography` check the DSSE signature (PAE by
/// hand too); in-toto's Python bindings parse the Statement and the VSA v1
/// predicate (strictly, once the proofpack extension field is set aside,
/// which VSA consumers must ignore) and validate the Statement.
const PY_CHECK: &str = r#"
import base64, hashlib, json, sys
from cryptography.hazmat.primitives.serialization import load_pem_public_key, Encoding, PublicFormat
from securesystemslib.dsse import Envelope
from securesystemslib.signer import SSlibKey
from google.protobuf import json_format
from in_toto_attestation.v1 import statement_pb2
from in_toto_attestation.v1.statement import Statement
from in_toto_attestation.predicates.vsa.v1 import vsa_pb2
raw = json.load(open(sys.argv[1]))
pk = load_pem_public_key(open(sys.argv[2], "rb").read())
keyid = hashlib.sha256(pk.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)).hexdigest()
assert raw["signatures"][0]["keyid"] == keyid, "keyid"
payload = base64.b64decode(raw["payload"])
ptype = raw["payloadType"]
assert ptype == "application/vnd.in-toto+json", ptype
pae = b"DSSEv1 %d %s %d %s" % (len(ptype), ptype.encode(), len(payload), payload)
pk.verify(base64.b64decode(raw["signatures"][0]["sig"]), pae)
env = Envelope.from_dict(raw)
print("sslib:" + ",".join(env.verify([SSlibKey.from_crypto(pk, keyid=keyid)], 1)))
st_pb = json_format.Parse(payload, statement_pb2.Statement())
st = Statement.copy_from_pb(st_pb)
st.validate()
assert st.pb.predicate_type == "https://slsa.dev/verification_summary/v1"
pred = json.loads(payload)["predicate"]
inputs = pred.pop("https://proofpack.dev/vsa/policyInputs/v1")
# in-toto-attestation 0.9.3, the latest release, declares verified_levels
# as one string; the spec (and upstream's later proto, commit abb6190
# "Make verifiedLevels field repeated to match spec") has an array. With
# such a binding the array is checked here and the rest parsed strictly.
levels_field = vsa_pb2.VerificationSummary.DESCRIPTOR.fields_by_name["verified_levels"]
levels = pred["verifiedLevels"]
assert isinstance(levels, list) and all(isinstance(l, str) for l in levels), levels
if not levels_field.is_repeated:
    del pred["verifiedLevels"]
vsa = json_format.Parse(json.dumps(pred), vsa_pb2.VerificationSummary())
if levels_field.is_repeated:
    levels = list(vsa.verified_levels)
print("verifier:" + vsa.verifier.id)
print("time:" + vsa.time_verified.ToJsonString())
print("result:" + vsa.verification_result)
print("levels:" + ",".join(levels))
print("policy:" + vsa.policy.uri + "@" + vsa.policy.digest["sha256"])
print("inputs:%d" % len(vsa.input_attestations))
print("subject:" + st.pb.subject[0].name + "@" + st.pb.subject[0].digest["sha256"])
print("policyInputs:" + ",".join(i["name"] for i in inputs))
"#;

#[test]
fn independent_readers_verify_the_signature_and_parse_the_summary() {
    let w = written();
    let out = run_python(PY_CHECK, &[&w.vsa, &w.public]);
    let st = statement(&w.vsa);
    let p = &st["predicate"];
    let keyid = {
        let (code, id, err) = proofpack_out(&["key", "id", s(&w.public)]);
        assert_eq!(code, 0, "{err}");
        id.trim().to_string()
    };
    let line = |k: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(&format!("{k}:")))
            .unwrap_or_else(|| panic!("no {k} in {out}"))
            .to_string()
    };
    assert_eq!(line("sslib"), keyid);
    assert_eq!(line("verifier"), p["verifier"]["id"].as_str().unwrap());
    assert_eq!(line("result"), "PASSED");
    assert_eq!(
        line("levels"),
        "PROOFPACK_BUNDLE,PROOFPACK_SEAL,PROOFPACK_PUBLICATION_ALL"
    );
    assert_eq!(
        line("policy"),
        format!(
            "{}@{}",
            p["policy"]["uri"].as_str().unwrap(),
            p["policy"]["digest"]["sha256"].as_str().unwrap()
        )
    );
    assert_eq!(
        line("inputs"),
        p["inputAttestations"].as_array().unwrap().len().to_string()
    );
    assert_eq!(
        line("subject"),
        format!("{BUNDLE_NAME}@{}", sha(&sample(BUNDLE_NAME)))
    );
    assert_eq!(line("policyInputs"), "trust,publication");
    // protobuf reads the time as the same instant proofpack wrote.
    let written = p["timeVerified"].as_str().unwrap();
    assert_eq!(
        proofpack::timefmt::parse_rfc3339_utc(&line("time")).unwrap(),
        proofpack::timefmt::parse_rfc3339_utc(written).unwrap()
    );
    // A tampered payload is refused by securesystemslib too.
    let mut env: Value = serde_json::from_slice(&std::fs::read(&w.vsa).unwrap()).unwrap();
    let payload = B64.decode(env["payload"].as_str().unwrap()).unwrap();
    let text = String::from_utf8(payload)
        .unwrap()
        .replace("PASSED", "PASSEE");
    env["payload"] = B64.encode(text).into();
    let bad = w.dir.path().join("bad.dsse.json");
    std::fs::write(&bad, env.to_string()).unwrap();
    let failed = std::process::Command::new(common::python())
        .arg("-c")
        .arg(PY_CHECK)
        .arg(&bad)
        .arg(&w.public)
        .output()
        .unwrap();
    assert!(!failed.status.success());
    assert!(
        String::from_utf8_lossy(&failed.stderr).contains("InvalidSignature"),
        "{}",
        String::from_utf8_lossy(&failed.stderr)
    );
}

#[test]
fn a_structure_only_verification_claims_the_structure_level_only() {
    let w = written();
    let vsa = w.dir.path().join("structure.dsse.json");
    let (code, _, err) = proofpack_out(&[
        "verify",
        s(&sample(BUNDLE_NAME)),
        "--structure-only",
        "--vsa",
        s(&vsa),
        "--vsa-key",
        s(&w.key),
    ]);
    assert_eq!(code, 0, "{err}");
    let p = &statement(&vsa)["predicate"];
    // No trust file: the seal's signature was not checked, so no seal level;
    // the qualification was not read, so only the seal is an input.
    assert_eq!(p["verifiedLevels"], json!(["PROOFPACK_BUNDLE_STRUCTURE"]));
    assert_eq!(p[INPUTS_FIELD], json!([]));
    assert_eq!(p["inputAttestations"].as_array().unwrap().len(), 1);
    attest_verify(&vsa, &w.trust, "auditor", &[]).assert_ok();
}

#[test]
fn an_auditor_key_in_the_verifiers_trust_file_changes_no_other_check() {
    // One trust file for everything: the sample's engine, release and host
    // keys plus an auditor key. `verify` reads it and holds as before, and
    // the auditor key signs the summary that the same file then checks.
    let dir = tempfile::tempdir().unwrap();
    let (key, public) = key_gen(dir.path(), "auditor");
    let trust = key_trust(
        dir.path(),
        "all.json",
        &["--from", s(&sample("trust.json")), "--auditor", s(&public)],
    );
    let text = std::fs::read_to_string(&trust).unwrap();
    assert!(text.contains("\"auditor\""), "{text}");
    let vsa = dir.path().join("v.dsse.json");
    let (code, _, err) = proofpack_out(&[
        "verify",
        s(&sample(BUNDLE_NAME)),
        "--pins",
        s(&sample("pins.json")),
        "--trust",
        s(&trust),
        "--vsa",
        s(&vsa),
        "--vsa-key",
        s(&key),
    ]);
    assert_eq!(code, 0, "{err}");
    let p = &statement(&vsa)["predicate"];
    assert_eq!(
        p["verifiedLevels"],
        json!(["PROOFPACK_BUNDLE", "PROOFPACK_SEAL", "PROOFPACK_PINS"])
    );
    assert_eq!(p[INPUTS_FIELD][0]["digest"]["sha256"], sha(&trust));
    assert_eq!(p[INPUTS_FIELD][1]["name"], "pins");
    let out = attest_verify(
        &vsa,
        &trust,
        "auditor",
        &["--subject", s(&sample(BUNDLE_NAME))],
    );
    out.assert_ok();
    // The release key of the same file does not vouch for the summary.
    let seal = sample(&format!("{BUNDLE_NAME}.seal.dsse.json"));
    attest_verify(&seal, &trust, "auditor", &[]).assert_fails(
        "attestation",
        "0 distinct key(s) trusted for auditor verified",
    );
    // Every id attest verify reported is documented.
    let docs = ["docs/checks.md", "docs/attestations.md"]
        .map(|d| {
            std::fs::read_to_string(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(d)).unwrap()
        })
        .join("\n");
    for c in out.report["checks"].as_array().unwrap() {
        let id = c["id"].as_str().unwrap();
        let id = if id.starts_with("signature:") {
            "signature:<keyid>"
        } else {
            id
        };
        assert!(docs.contains(&format!("`{id}`")), "{id} is not documented");
    }
}
