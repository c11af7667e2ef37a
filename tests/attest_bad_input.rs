//! Malformed envelopes and Statements (exit 1, clear reason, no panic), and
//! bad arguments to `attest sign` / `attest engine` (exit 2).

mod attest_support;

use std::path::{Path, PathBuf};

use attest_support::*;
use base64::Engine as _;
use proofpack::attest::{
    self, verify_envelope, AttestError, ENVELOPE_MAX_BYTES, IN_TOTO_PAYLOAD_TYPE,
};
use proofpack::keys::{key_id, Role};
use serde_json::{json, Value};

struct Env {
    dir: tempfile::TempDir,
    trust: PathBuf,
}

impl Env {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let trust = write_trust(
            dir.path(),
            "trust.json",
            &trust_of(&[(&test_key(1), &[Role::Engine])]),
        );
        Env { dir, trust }
    }
    /// Runs `attest verify` on these bytes; returns (exit code, stdout, stderr).
    fn verify(&self, bytes: &[u8]) -> (i32, String, String) {
        let p = self.dir.path().join("env.json");
        std::fs::write(&p, bytes).unwrap();
        let out = bin()
            .args(["attest", "verify"])
            .arg(&p)
            .arg("--trust")
            .arg(&self.trust)
            .output()
            .unwrap();
        (
            out.status.code().unwrap(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }
    fn expect(&self, bytes: &[u8], code: i32, want: &str) {
        let (c, out, err) = self.verify(bytes);
        assert_eq!(c, code, "want {want:?}: stdout {out} stderr {err}");
        assert!(err.contains(want), "want {want:?} in: {err}");
        assert!(!err.contains("panicked"), "{err}");
        if code != 0 {
            assert!(out.is_empty(), "nothing is printed as verified: {out}");
        }
    }
}

fn good_sig() -> (Vec<u8>, String) {
    let payload = engine_statement().to_json_bytes();
    let sig = sig_b64(&test_key(1), IN_TOTO_PAYLOAD_TYPE, &payload);
    (payload, sig)
}

fn kid() -> String {
    key_id(&test_key(1).verifying_key())
}

#[test]
fn malformed_envelopes() {
    let e = Env::new();
    let (payload, sig) = good_sig();
    let p64 = B64.encode(&payload);
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (b"".to_vec(), "malformed DSSE envelope"),
        (b"{".to_vec(), "malformed DSSE envelope"),
        (b"[]".to_vec(), "malformed DSSE envelope"),
        (b"\xff\xfe".to_vec(), "malformed DSSE envelope"),
        (json!({"payloadType": IN_TOTO_PAYLOAD_TYPE, "payload": p64}).to_string().into_bytes(), "missing field `signatures`"),
        (json!({"payloadType": IN_TOTO_PAYLOAD_TYPE, "payload": p64, "signatures": []}).to_string().into_bytes(), "no signatures"),
        (json!({"payloadType": IN_TOTO_PAYLOAD_TYPE, "payload": p64, "signatures": [{"keyid": kid()}]}).to_string().into_bytes(), "missing field `sig`"),
        (json!({"payloadType": 7, "payload": p64, "signatures": [{"sig": sig}]}).to_string().into_bytes(), "invalid type"),
        (json!({"payloadType": IN_TOTO_PAYLOAD_TYPE, "payload": "%%%", "signatures": [{"sig": sig}]}).to_string().into_bytes(), "payload: invalid base64"),
        (
            format!(r#"{{"payloadType": "{IN_TOTO_PAYLOAD_TYPE}", "payload": "{p64}", "payload": "{p64}", "signatures": [{{"sig": "{sig}"}}]}}"#).into_bytes(),
            "duplicate",
        ),
        (
            format!(r#"{{"payloadType": "{IN_TOTO_PAYLOAD_TYPE}", "payload": "{p64}", "signatures": [{{"sig": "{sig}", "sig": "{sig}"}}]}}"#).into_bytes(),
            "duplicate",
        ),
    ];
    for (bytes, want) in cases {
        e.expect(&bytes, 1, want);
    }
}

#[test]
fn signature_encodings() {
    let e = Env::new();
    let (payload, sig) = good_sig();
    let raw = B64.decode(&sig).unwrap();
    let mk = |s: String| envelope(IN_TOTO_PAYLOAD_TYPE, &payload, &[(kid(), s)]);
    // Every accepted spelling.
    for s in [
        sig.clone(),
        sig.trim_end_matches('=').to_string(),
        base64::engine::general_purpose::URL_SAFE.encode(&raw),
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&raw),
    ] {
        e.expect(&mk(s), 0, "OK");
    }
    // Payload in URL-safe, unpadded base64 too.
    let env = json!({"payloadType": IN_TOTO_PAYLOAD_TYPE,
        "payload": base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&payload),
        "signatures": [{"keyid": kid(), "sig": sig}]});
    e.expect(env.to_string().as_bytes(), 0, "OK");

    // Non-zero unused bits: 64 bytes end in one byte, two characters; the
    // second has 4 unused bits. v1.1: accepted (the same 64 bytes), as
    // Python's base64 and securesystemslib accept it.
    let mut chars: Vec<u8> = sig.clone().into_bytes();
    let n = chars.len() - 3; // last significant character before "=="
    let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let pos = alphabet.iter().position(|&c| c == chars[n]).unwrap();
    chars[n] = alphabet[pos | 1];
    assert_ne!(chars, sig.as_bytes());
    e.expect(&mk(String::from_utf8(chars).unwrap()), 0, "OK");
    // Partial padding, mixed alphabets, whitespace, garbage.
    e.expect(&mk(format!("{}=", sig.trim_end_matches('='))), 1, "sig:");
    let mixed = sig.replacen('+', "-", 1).replacen('/', "_", 1);
    if mixed.contains('-') && mixed.contains('/') || mixed.contains('_') && mixed.contains('+') {
        e.expect(&mk(mixed), 1, "mixes");
    }
    e.expect(&mk(format!(" {sig}")), 1, "invalid base64 character");
    e.expect(&mk("@@@@".into()), 1, "invalid base64 character");
    // Wrong lengths.
    for len in [0usize, 32, 63, 65, 128] {
        let s = B64.encode(vec![7u8; len]);
        e.expect(
            &mk(s),
            1,
            &format!("sig is {len} bytes; an Ed25519 signature is 64 bytes"),
        );
    }
    // Unknown key id with a signature by an unknown key.
    let stranger = test_key(9);
    let s = sig_b64(&stranger, IN_TOTO_PAYLOAD_TYPE, &payload);
    e.expect(
        &envelope(
            IN_TOTO_PAYLOAD_TYPE,
            &payload,
            &[(key_id(&stranger.verifying_key()), s)],
        ),
        1,
        "is not in the trust file",
    );
}

#[test]
fn payloads_that_are_not_statements() {
    let e = Env::new();
    let k = test_key(1);
    let h = digest("x").to_hex();
    let stmt = |subject: Value| {
        json!({"_type": "https://in-toto.io/Statement/v1", "subject": subject,
               "predicateType": "urn:x", "predicate": {}})
        .to_string()
    };
    let cases: Vec<(String, &str)> = vec![
        ("not json".into(), "not an in-toto Statement"),
        ("[1,2]".into(), "not an in-toto Statement"),
        ("{}".into(), "missing field"),
        (
            json!({"_type": "https://in-toto.io/Statement/v0.1", "subject": [{"name": "a", "digest": {"sha256": h}}], "predicateType": "urn:x"}).to_string(),
            "_type is",
        ),
        (
            json!({"_type": "https://in-toto.io/Statement/v1", "subject": [{"name": "a", "digest": {"sha256": h}}]}).to_string(),
            "missing field `predicateType`",
        ),
        (stmt(json!([])), "no subjects"),
        (stmt(json!([{"name": "a", "digest": {"sha256": "zz"}}])), "64 hex"),
        (stmt(json!([{"name": "a", "digest": {"sha256": h[1..].to_string()}}])), "64 hex"),
        (stmt(json!([{"name": "a", "digest": {"sha256": h.to_uppercase()}}])), "not lower case"),
        (stmt(json!([{"name": "a", "digest": {"sha256": 5}}])), "digest.sha256 is 5"),
        (stmt(json!([{"name": "a", "digest": {"sha512": h}}])), "no sha256 digest"),
        (stmt(json!([{"name": "a"}])), "no digest"),
        (stmt(json!([{"digest": {"sha256": h}}])), "empty name"),
        (
            stmt(json!([{"name": "a", "digest": {"sha256": h}}, {"name": "a", "digest": {"sha256": h}}])),
            "appears more than once",
        ),
        (
            format!(r#"{{"_type": "https://in-toto.io/Statement/v1", "subject": [{{"name": "a", "digest": {{"sha256": "{h}", "sha256": "{h}"}}}}], "predicateType": "urn:x"}}"#),
            "duplicate key",
        ),
    ];
    for (payload, want) in cases {
        e.expect(&signed_payload(&k, payload.as_bytes()), 1, want);
    }
    // Unknown fields of the envelope, the Statement and a subject are ignored.
    let payload = json!({"_type": "https://in-toto.io/Statement/v1", "extra": [1],
        "subject": [{"name": "a", "digest": {"sha256": h, "gitCommit": "abc"}, "uri": "x"}],
        "predicateType": "urn:x"})
    .to_string();
    let mut env: Value = serde_json::from_slice(&signed_payload(&k, payload.as_bytes())).unwrap();
    env["future"] = json!({"x": 1});
    let (code, out, _) = e.verify(env.to_string().as_bytes());
    assert_eq!(code, 0);
    assert!(out.contains(&format!("subject: a sha256:{h}")), "{out}");
}

#[test]
fn oversized_and_unreadable_envelopes() {
    let e = Env::new();
    let big = vec![b' '; ENVELOPE_MAX_BYTES + 1];
    e.expect(&big, 1, "limit");
    let trust = proofpack::keys::TrustStore::load(&e.trust).unwrap();
    assert!(matches!(
        verify_envelope(&big, &trust, Role::Engine, 1),
        Err(AttestError::TooLarge { .. })
    ));
    bin()
        .args(["attest", "verify"])
        .arg(e.dir.path().join("missing.json"))
        .arg("--trust")
        .arg(&e.trust)
        .assert()
        .code(2);
    bin()
        .args(["attest", "verify"])
        .arg(e.dir.path())
        .arg("--trust")
        .arg(&e.trust)
        .assert()
        .code(2);
    bin()
        .args(["attest", "verify", "--threshold", "0"])
        .arg(e.dir.path())
        .arg("--trust")
        .arg(&e.trust)
        .assert()
        .code(2);
    bin()
        .args(["attest", "verify", "--role", "admin"])
        .arg(e.dir.path())
        .arg("--trust")
        .arg(&e.trust)
        .assert()
        .code(2);
}

#[test]
fn deeply_nested_json_does_not_crash() {
    let e = Env::new();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    e.expect(deep.as_bytes(), 1, "malformed DSSE envelope");
    let k = test_key(1);
    e.expect(
        &signed_payload(&k, deep.as_bytes()),
        1,
        "not an in-toto Statement",
    );
}

fn sign_cmd(dir: &Path, key: &Path) -> assert_cmd::Command {
    let mut c = bin();
    c.args(["attest", "sign", "--key"])
        .arg(key)
        .arg("-o")
        .arg(dir.join("out.json"));
    c
}

#[test]
fn attest_sign_argument_errors() {
    let d = tempfile::tempdir().unwrap();
    let (key, _) = write_key(d.path(), "a", &test_key(1));
    let pred = d.path().join("p.json");
    std::fs::write(&pred, "{}").unwrap();
    let file = d.path().join("f.bin");
    std::fs::write(&file, b"data").unwrap();
    let hex = "ab".repeat(32);
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--subject".into(), format!("w={}", d.path().display())],
            "proofpack manifest",
        ),
        (
            vec!["--subject".into(), "nameonly".into()],
            "expected NAME=PATH",
        ),
        (
            vec!["--subject".into(), format!("=sha256:{hex}")],
            "empty subject name",
        ),
        (vec!["--subject".into(), "a=sha256:xyz".into()], "64 hex"),
        (vec!["--subject".into(), "a=".into()], "empty value"),
        (
            vec![
                "--subject".into(),
                format!("a={}", d.path().join("nope").display()),
            ],
            "--subject a",
        ),
        (
            vec![
                "--subject".into(),
                format!("a=sha256:{hex}"),
                "--subject".into(),
                format!("a={}", file.display()),
            ],
            "given twice",
        ),
    ];
    for (args, want) in cases {
        let out = sign_cmd(d.path(), &key)
            .args(["--predicate-type", "urn:x", "--predicate"])
            .arg(&pred)
            .args(&args)
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(err.contains(want), "{args:?}: {err}");
    }
    // Predicate files.
    for (text, want) in [
        ("[]", "JSON object"),
        ("{", "not valid JSON"),
        (r#"{"a":1,"a":2}"#, "not valid JSON"),
    ] {
        std::fs::write(&pred, text).unwrap();
        let out = sign_cmd(d.path(), &key)
            .args(["--predicate-type", "urn:x", "--subject"])
            .arg(format!("a=sha256:{hex}"))
            .arg("--predicate")
            .arg(&pred)
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(err.contains(want), "{text}: {err}");
    }
    // An engine predicate the verifier would reject is not signed.
    let mut p = engine_predicate();
    p["accelerator"]["count"] = json!(8.5);
    std::fs::write(&pred, p.to_string()).unwrap();
    let out = sign_cmd(d.path(), &key)
        .args([
            "--predicate-type",
            attest::ENGINE_PREDICATE_TYPE,
            "--subject",
        ])
        .arg(format!("a=sha256:{hex}"))
        .arg("--predicate")
        .arg(&pred)
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr)
        .contains("expected a non-negative integer, found 8.5"));
    // A seal Statement that `verify` would reject is not signed either.
    std::fs::write(
        &pred,
        json!({"files": 1, "bytes": 2, "sealed_at": "yesterday"}).to_string(),
    )
    .unwrap();
    let out = sign_cmd(d.path(), &key)
        .args(["--predicate-type", attest::SEAL_PREDICATE_TYPE, "--subject"])
        .arg(format!("a=sha256:{hex}"))
        .arg("--predicate")
        .arg(&pred)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(
        err.contains("refusing to sign") && err.contains("sealed_at"),
        "{err}"
    );
    // engine-image subject disagreeing with engine.image.
    std::fs::write(&pred, engine_predicate().to_string()).unwrap();
    let out = sign_cmd(d.path(), &key)
        .args([
            "--predicate-type",
            attest::ENGINE_PREDICATE_TYPE,
            "--subject",
        ])
        .arg(format!("engine-image=sha256:{hex}"))
        .arg("--predicate")
        .arg(&pred)
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("must name the same image"));
    assert!(!d.path().join("out.json").exists());
}

#[test]
fn attest_sign_generic_predicate_round_trip() {
    let d = tempfile::tempdir().unwrap();
    let (key, pubk) = write_key(d.path(), "rel", &test_key(4));
    let pred = d.path().join("p.json");
    std::fs::write(
        &pred,
        r#"{"files": 3, "bytes": 10, "sealed_at": "2026-09-23T10:00:00Z"}"#,
    )
    .unwrap();
    let file = d.path().join("bundle.tgz");
    std::fs::write(&file, b"bundle bytes").unwrap();
    let hex = "AB".repeat(32);
    sign_cmd(d.path(), &key)
        .args([
            "--predicate-type",
            attest::SEAL_PREDICATE_TYPE,
            "--predicate",
        ])
        .arg(&pred)
        .arg("--subject")
        .arg(format!("bundle.tgz={}", file.display()))
        .arg("--subject")
        .arg(format!("MANIFEST=sha256:{hex}"))
        .assert()
        .code(0);
    let trust = d.path().join("trust.json");
    bin()
        .args(["key", "trust", "--release"])
        .arg(&pubk)
        .arg("-o")
        .arg(&trust)
        .assert()
        .code(0);
    let out = bin()
        .args(["attest", "verify", "--role", "release"])
        .arg(d.path().join("out.json"))
        .arg("--trust")
        .arg(&trust)
        .assert()
        .code(0);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let file_digest = proofpack::digest::Sha256Digest::of_bytes(b"bundle bytes").to_hex();
    assert_eq!(
        text,
        format!(
            "predicateType: {}\nsubject: bundle.tgz sha256:{file_digest}\nsubject: MANIFEST sha256:{}\nsigner: {} (rel)\n",
            attest::SEAL_PREDICATE_TYPE,
            hex.to_lowercase(),
            key_id(&test_key(4).verifying_key())
        )
    );
    // The written envelope is what the spec says: standard padded base64, in-toto type.
    let env: Value =
        serde_json::from_slice(&std::fs::read(d.path().join("out.json")).unwrap()).unwrap();
    assert_eq!(env["payloadType"], IN_TOTO_PAYLOAD_TYPE);
    let sig = env["signatures"][0]["sig"].as_str().unwrap();
    assert_eq!(sig.len(), 88);
    assert!(sig.ends_with("=="));
    assert_eq!(B64.decode(env["payload"].as_str().unwrap()).unwrap(), {
        let trust = proofpack::keys::TrustStore::load(&trust).unwrap();
        let bytes = std::fs::read(d.path().join("out.json")).unwrap();
        verify_envelope(&bytes, &trust, Role::Release, 1)
            .unwrap()
            .to_json_bytes()
    });
}

#[test]
fn attest_engine_flags_and_json_file() {
    let d = tempfile::tempdir().unwrap();
    let (key, pubk) = write_key(d.path(), "engine-0", &test_key(1));
    let trust = d.path().join("trust.json");
    bin()
        .args(["key", "trust", "--engine"])
        .arg(&pubk)
        .arg("-o")
        .arg(&trust)
        .assert()
        .code(0);
    // Partial JSON file + flags overriding it.
    let mut base = engine_predicate();
    base.as_object_mut().unwrap().remove("launched_at");
    base["engine"]["id"] = json!("engine-9");
    let pf = d.path().join("pred.json");
    std::fs::write(&pf, base.to_string()).unwrap();
    let out_env = d.path().join("e.json");
    bin()
        .args(["attest", "engine", "--key"])
        .arg(&key)
        .arg("--predicate")
        .arg(&pf)
        .args([
            "--engine-id",
            "engine-0",
            "--generation",
            "3",
            "--parallelism",
            "expert=2",
        ])
        .arg("--weights-manifest")
        .arg(format!("sha256:{}", digest("w").to_hex()))
        .arg("--config")
        .arg(format!("sha256:{}", digest("c").to_hex()))
        .arg("-o")
        .arg(&out_env)
        .assert()
        .code(0);
    let t = proofpack::keys::TrustStore::load(&trust).unwrap();
    let v = verify_envelope(&std::fs::read(&out_env).unwrap(), &t, Role::Engine, 1).unwrap();
    let p = attest::EnginePredicate::from_statement(&v).unwrap();
    assert_eq!(p.engine.id, "engine-0");
    assert_eq!(p.generation, 3);
    assert_eq!(p.parallelism.get("tensor"), Some(&8));
    assert_eq!(p.parallelism.get("expert"), Some(&2));
    assert!(
        attest::check_rfc3339_utc(&p.launched_at).is_ok(),
        "default launched_at is now"
    );
    assert_eq!(v.subject("engine-image").unwrap().digest, digest("image"));
    assert_eq!(v.subject("weights.manifest").unwrap().digest, digest("w"));
    // --weights-manifest given as a JSON manifest record: the subject is the
    // digest of the canonical text, not of the JSON bytes.
    let shard = d.path().join("shards");
    std::fs::create_dir(&shard).unwrap();
    std::fs::write(shard.join("model-00001.safetensors"), b"weights").unwrap();
    let json_manifest = d.path().join("w.json");
    bin()
        .arg("manifest")
        .arg(&shard)
        .args(["--format", "json", "-o"])
        .arg(&json_manifest)
        .assert()
        .code(0);
    let canon = d.path().join("w.manifest");
    bin()
        .arg("manifest")
        .arg(&shard)
        .arg("-o")
        .arg(&canon)
        .assert()
        .code(0);
    std::fs::write(&pf, engine_predicate().to_string()).unwrap();
    bin()
        .args(["attest", "engine", "--key"])
        .arg(&key)
        .arg("--predicate")
        .arg(&pf)
        .arg("--weights-manifest")
        .arg(&json_manifest)
        .arg("-o")
        .arg(&out_env)
        .assert()
        .code(0);
    let v = verify_envelope(&std::fs::read(&out_env).unwrap(), &t, Role::Engine, 1).unwrap();
    let canon_digest = proofpack::digest::Sha256Digest::of_bytes(&std::fs::read(&canon).unwrap());
    assert_eq!(v.subject("weights.manifest").unwrap().digest, canon_digest);
    // A directory is refused with the hint.
    let out = bin()
        .args(["attest", "engine", "--key"])
        .arg(&key)
        .arg("--predicate")
        .arg(&pf)
        .arg("--weights-manifest")
        .arg(&shard)
        .arg("-o")
        .arg(&out_env)
        .assert()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("proofpack manifest"));
    // Bad field values.
    for (flag, value, want) in [
        ("--image", "sha256:xyz", "engine.image"),
        ("--image", "abc", "engine.image"),
        ("--launched-at", "yesterday", "launched_at"),
        ("--accelerator-count", "0", "accelerator.count"),
        ("--parallelism", "tensor=0", "parallelism.tensor"),
        ("--parallelism", "tensor", "DIM=N"),
        ("--engine-name", " ", "engine.name is empty"),
    ] {
        let out = bin()
            .args(["attest", "engine", "--key"])
            .arg(&key)
            .arg("--predicate")
            .arg(&pf)
            .args([flag, value])
            .arg("-o")
            .arg(d.path().join("never.json"))
            .assert()
            .code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(err.contains(want), "{flag} {value}: {err}");
    }
    assert!(!d.path().join("never.json").exists());
}

#[test]
fn engine_predicate_from_statement_rules() {
    let st = engine_statement();
    assert!(attest::EnginePredicate::from_statement(&st).is_ok());
    let mut other = st.clone();
    other.predicate_type = attest::SEAL_PREDICATE_TYPE.into();
    assert!(matches!(
        attest::EnginePredicate::from_statement(&other),
        Err(AttestError::PredicateType { .. })
    ));
    for (path, value) in [
        (
            "/engine/image",
            json!(format!("sha256:{}", digest("i").to_hex().to_uppercase())),
        ),
        ("/generation", json!(-1)),
        ("/accelerator/count", json!("8")),
        ("/launched_at", json!("2026-02-30T00:00:00Z")),
    ] {
        let mut s = st.clone();
        *s.predicate.pointer_mut(path).unwrap() = value;
        assert!(
            attest::EnginePredicate::from_statement(&s).is_err(),
            "{path}"
        );
    }
    // v1.1: fields of other writers are ignored, integral floats are counts.
    let mut s = st.clone();
    s.predicate["engine"]["extra"] = json!("x");
    s.predicate["vendor"] = json!({"rack": 7});
    s.predicate["accelerator"]["count"] = json!(8.0);
    s.predicate["parallelism"]["tensor"] = json!(8.0);
    let p = attest::EnginePredicate::from_statement(&s).unwrap();
    assert_eq!((p.accelerator.count, p.parallelism["tensor"]), (8, 8));
    for bad in [json!(8.5), json!(-8.0), json!(1e300)] {
        let mut s = st.clone();
        s.predicate["accelerator"]["count"] = bad.clone();
        assert!(
            attest::EnginePredicate::from_statement(&s).is_err(),
            "{bad}"
        );
    }
}
