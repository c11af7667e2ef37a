//! Tampering with a signed envelope, and signatures that must not count.

mod attest_support;

use attest_support::*;
use base64::Engine as _;
use proofpack::attest::{self, verify_envelope, AttestError, SignatureStatus};
use proofpack::keys::{key_id, Role};
use serde_json::Value;

fn parts(env: &[u8]) -> (String, Vec<u8>, Vec<(String, String)>) {
    let v: Value = serde_json::from_slice(env).unwrap();
    let payload = attest::decode_base64(v["payload"].as_str().unwrap()).unwrap();
    let sigs = v["signatures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["keyid"].as_str().unwrap().to_string(),
                s["sig"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    (
        v["payloadType"].as_str().unwrap().to_string(),
        payload,
        sigs,
    )
}

#[test]
fn untouched_envelope_verifies() {
    let k = test_key(1);
    let trust = trust_of(&[(&k, &[Role::Engine])]);
    let env = attest::sign_statement(&engine_statement(), &[&k]);
    let v = verify_envelope(&env, &trust, Role::Engine, 1).unwrap();
    assert_eq!(*v.get(), engine_statement());
    assert_eq!(v.signers(), [key_id(&k.verifying_key())]);
    assert!(v.ignored().is_empty());
}

#[test]
fn edited_payload_is_rejected() {
    let k = test_key(1);
    let trust = trust_of(&[(&k, &[Role::Engine])]);
    let env = attest::sign_statement(&engine_statement(), &[&k]);
    let (pt, payload, sigs) = parts(&env);
    let text = String::from_utf8(payload).unwrap();
    let edited = text.replace("moonshotai/Kimi-K3", "moonshotai/Kimi-K4");
    assert_ne!(text, edited);
    let bad = envelope(&pt, edited.as_bytes(), &sigs);
    let e = verify_envelope(&bad, &trust, Role::Engine, 1).unwrap_err();
    assert!(
        matches!(e, AttestError::Threshold { verified: 0, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("does not verify"), "{e}");
    // Every single-byte change of the payload is caught.
    let raw = text.as_bytes();
    for i in (0..raw.len()).step_by(7) {
        let mut p = raw.to_vec();
        p[i] ^= 0x01;
        let bad = envelope(&pt, &p, &sigs);
        assert!(
            verify_envelope(&bad, &trust, Role::Engine, 1).is_err(),
            "byte {i}"
        );
    }
}

#[test]
fn changed_payload_type_is_rejected() {
    let k = test_key(1);
    let trust = trust_of(&[(&k, &[Role::Engine])]);
    let env = attest::sign_statement(&engine_statement(), &[&k]);
    let (_, payload, sigs) = parts(&env);
    for pt in ["application/json", "application/vnd.in-toto+jsonx", ""] {
        let bad = envelope(pt, &payload, &sigs);
        let e = verify_envelope(&bad, &trust, Role::Engine, 1).unwrap_err();
        assert!(matches!(e, AttestError::Threshold { .. }), "{pt}: {e}");
    }
    // Signed over PAE with another type: the signature holds, the type does not.
    let other = "application/json";
    let bad = envelope(
        other,
        &payload,
        &[(key_id(&k.verifying_key()), sig_b64(&k, other, &payload))],
    );
    let e = verify_envelope(&bad, &trust, Role::Engine, 1).unwrap_err();
    assert!(matches!(e, AttestError::PayloadType { .. }), "{e}");
}

#[test]
fn untrusted_key_does_not_count() {
    let trusted = test_key(1);
    let stranger = test_key(2);
    let trust = trust_of(&[(&trusted, &[Role::Engine])]);
    let env = attest::sign_statement(&engine_statement(), &[&stranger]);
    let e = verify_envelope(&env, &trust, Role::Engine, 1).unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, AttestError::Threshold { verified: 0, .. }));
    assert!(msg.contains("is not in the trust file"), "{msg}");
    // Claiming the trusted key's id does not help: the id is only a hint.
    let (pt, payload, sigs) = parts(&env);
    let forged = envelope(
        &pt,
        &payload,
        &[(key_id(&trusted.verifying_key()), sigs[0].1.clone())],
    );
    let e = verify_envelope(&forged, &trust, Role::Engine, 1).unwrap_err();
    assert!(
        e.to_string().contains("does not verify under trusted key"),
        "{e}"
    );
}

#[test]
fn keyid_is_only_a_hint() {
    let k = test_key(1);
    let trust = trust_of(&[(&k, &[Role::Engine])]);
    let env = attest::sign_statement(&engine_statement(), &[&k]);
    let (pt, payload, sigs) = parts(&env);
    for hint in ["", "not-a-key-id", &"0".repeat(64)] {
        let e = envelope(&pt, &payload, &[(hint.to_string(), sigs[0].1.clone())]);
        let v = verify_envelope(&e, &trust, Role::Engine, 1).unwrap();
        assert_eq!(v.signers(), [key_id(&k.verifying_key())]);
    }
}

#[test]
fn trusted_key_of_the_wrong_role_does_not_count() {
    let release = test_key(1);
    let engine = test_key(2);
    let trust = trust_of(&[(&release, &[Role::Release]), (&engine, &[Role::Engine])]);
    let env = attest::sign_statement(&engine_statement(), &[&release]);
    let d = attest::verify_envelope_detailed(&env, &trust, Role::Engine, 1);
    assert!(matches!(
        d.signatures[0].status,
        SignatureStatus::WrongRole { .. }
    ));
    let e = d.result.unwrap_err();
    assert!(
        e.to_string()
            .contains("trusted for [release] but not for engine"),
        "{e}"
    );
    // The same envelope holds for the role the key has.
    assert!(verify_envelope(&env, &trust, Role::Release, 1).is_ok());
}

#[test]
fn duplicate_signatures_by_one_key_count_once() {
    let a = test_key(1);
    let b = test_key(2);
    let trust = trust_of(&[(&a, &[Role::Engine]), (&b, &[Role::Engine])]);
    let twice = attest::sign_statement(&engine_statement(), &[&a, &a]);
    assert_eq!(parts(&twice).2.len(), 2);
    let e = verify_envelope(&twice, &trust, Role::Engine, 2).unwrap_err();
    assert!(
        matches!(
            e,
            AttestError::Threshold {
                needed: 2,
                verified: 1,
                ..
            }
        ),
        "{e}"
    );
    assert!(e.to_string().contains("a key counts once"), "{e}");
    let one = verify_envelope(&twice, &trust, Role::Engine, 1).unwrap();
    assert_eq!(one.signers().len(), 1);
    assert_eq!(one.ignored().len(), 1);
    // Two distinct trusted keys meet a threshold of two.
    let both = attest::sign_statement(&engine_statement(), &[&a, &b]);
    let v = verify_envelope(&both, &trust, Role::Engine, 2).unwrap();
    assert_eq!(v.signers().len(), 2);
    assert!(verify_envelope(&both, &trust, Role::Engine, 3).is_err());
    // Same signature bytes, different hints: still one key.
    let (pt, payload, sigs) = parts(&attest::sign_statement(&engine_statement(), &[&a]));
    let dup = envelope(
        &pt,
        &payload,
        &[
            sigs[0].clone(),
            (key_id(&b.verifying_key()), sigs[0].1.clone()),
        ],
    );
    assert!(verify_envelope(&dup, &trust, Role::Engine, 2).is_err());
}

#[test]
fn threshold_zero_means_one() {
    let a = test_key(1);
    let trust = trust_of(&[(&a, &[Role::Engine])]);
    let env = attest::sign_statement(&engine_statement(), &[&test_key(9)]);
    assert!(verify_envelope(&env, &trust, Role::Engine, 0).is_err());
}

#[test]
fn malleated_signature_is_rejected() {
    // S + L verifies in a lax verifier; strict verification refuses it.
    let k = test_key(1);
    let trust = trust_of(&[(&k, &[Role::Engine])]);
    let env = attest::sign_statement(&engine_statement(), &[&k]);
    let (pt, payload, sigs) = parts(&env);
    let mut sig = attest::decode_base64(&sigs[0].1).unwrap();
    const L: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde,
        0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let mut carry = 0u16;
    for i in 0..32 {
        let s = sig[32 + i] as u16 + L[i] as u16 + carry;
        sig[32 + i] = s as u8;
        carry = s >> 8;
    }
    assert_eq!(carry, 0);
    let bad = envelope(&pt, &payload, &[(sigs[0].0.clone(), B64.encode(&sig))]);
    let e = verify_envelope(&bad, &trust, Role::Engine, 1).unwrap_err();
    assert!(e.to_string().contains("not reduced"), "{e}");
}

#[test]
fn cli_reports_tampering_with_exit_1() {
    let d = tempfile::tempdir().unwrap();
    let a = test_key(1);
    let release = test_key(2);
    let (_, _) = write_key(d.path(), "a", &a);
    let trust = write_trust(
        d.path(),
        "trust.json",
        &trust_of(&[(&a, &[Role::Engine]), (&release, &[Role::Release])]),
    );
    let env = attest::sign_statement(&engine_statement(), &[&a]);
    let (pt, payload, sigs) = parts(&env);
    let good = d.path().join("good.json");
    std::fs::write(&good, &env).unwrap();
    bin()
        .arg("attest")
        .arg("verify")
        .arg(&good)
        .arg("--trust")
        .arg(&trust)
        .assert()
        .code(0);

    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "edited",
            envelope(
                &pt,
                String::from_utf8(payload.clone())
                    .unwrap()
                    .replace("node-a", "node-b")
                    .as_bytes(),
                &sigs,
            ),
            "does not verify",
        ),
        (
            "type",
            envelope("text/plain", &payload, &sigs),
            "does not verify",
        ),
        (
            "untrusted",
            attest::sign_statement(&engine_statement(), &[&test_key(3)]),
            "not in the trust file",
        ),
        (
            "role",
            attest::sign_statement(&engine_statement(), &[&release]),
            "but not for engine",
        ),
    ];
    for (name, bytes, want) in cases {
        let p = d.path().join(format!("{name}.json"));
        std::fs::write(&p, bytes).unwrap();
        let out = bin()
            .arg("attest")
            .arg("verify")
            .arg(&p)
            .arg("--trust")
            .arg(&trust)
            .assert()
            .code(1);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(err.contains(want), "{name}: {err}");
        assert!(
            out.get_output().stdout.is_empty(),
            "{name}: nothing verified, nothing printed"
        );
        let out = bin()
            .args(["attest", "verify", "--json"])
            .arg(&p)
            .arg("--trust")
            .arg(&trust)
            .assert()
            .code(1);
        let r: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
        assert_eq!(r["ok"], false);
        let att = r["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == "attestation")
            .unwrap();
        assert_eq!(att["ok"], false, "{name}");
    }

    // Threshold 2 over a twice-signed envelope by one key.
    let p = d.path().join("twice.json");
    std::fs::write(&p, attest::sign_statement(&engine_statement(), &[&a, &a])).unwrap();
    let out = bin()
        .args(["attest", "verify", "--threshold", "2"])
        .arg(&p)
        .arg("--trust")
        .arg(&trust)
        .assert()
        .code(1);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("counts once"));
}

#[test]
fn extra_bad_signatures_are_reported_and_ignored() {
    let d = tempfile::tempdir().unwrap();
    let a = test_key(1);
    let trust = write_trust(d.path(), "trust.json", &trust_of(&[(&a, &[Role::Engine])]));
    let env = attest::sign_statement(&engine_statement(), &[&a]);
    let (pt, payload, mut sigs) = parts(&env);
    sigs.push(("junk".into(), B64.encode([1u8; 63])));
    sigs.push(("".into(), "not base64!".into()));
    sigs.push((
        key_id(&test_key(5).verifying_key()),
        sig_b64(&test_key(5), &pt, &payload),
    ));
    let p = d.path().join("env.json");
    std::fs::write(&p, envelope(&pt, &payload, &sigs)).unwrap();
    let out = bin()
        .args(["attest", "verify", "--json"])
        .arg(&p)
        .arg("--trust")
        .arg(&trust)
        .assert()
        .code(0);
    let r: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(r["ok"], true);
    // envelope, the trusted signature, attestation, statement, predicate.
    assert_eq!(r["summary"]["passed"], 5);
    assert_eq!(r["summary"]["skipped"], 3);
    let ids: Vec<&str> = r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    let a_id = format!("signature:{}", key_id(&a.verifying_key()));
    let k5 = format!("signature:{}", key_id(&test_key(5).verifying_key()));
    assert_eq!(
        ids,
        vec![
            "envelope",
            &a_id,
            "signature:junk",
            "signature:#3",
            &k5,
            "attestation",
            "statement",
            "predicate"
        ]
    );
    let out = bin()
        .args(["attest", "verify"])
        .arg(&p)
        .arg("--trust")
        .arg(&trust)
        .assert()
        .code(0);
    let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
    assert!(err.contains("sig is 63 bytes"), "{err}");
    assert!(err.contains("not in the trust file"), "{err}");
}
