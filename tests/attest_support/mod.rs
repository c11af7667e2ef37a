//! Helpers shared by the attest_* and keys_* integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use base64::Engine as _;
use ed25519_dalek::{Signer as _, SigningKey};
use proofpack::attest::{pae, Statement, Subject, ENGINE_PREDICATE_TYPE, IN_TOTO_PAYLOAD_TYPE};
use proofpack::digest::Sha256Digest;
use proofpack::keys::{self, Role, TrustStore, TrustedKey};
use serde_json::{json, Value};

pub const B64: base64::engine::GeneralPurpose = base64::engine::general_purpose::STANDARD;

/// The built binary.
pub fn bin() -> assert_cmd::Command {
    let mut c = common::proofpack();
    c.env("NO_COLOR", "1");
    // Tests never touch ~/.local: no catalog (it has its own tests).
    c.arg("--no-catalog");
    c
}

#[path = "../common/mod.rs"]
mod common;
#[allow(unused_imports)] // not every test of this support module runs Python
pub use common::run_python;

/// A deterministic signing key for tests.
pub fn test_key(seed: u8) -> SigningKey {
    SigningKey::from_bytes(&[seed; 32])
}

/// Writes KEY.key/KEY.pub for a test key under `dir`, returns (key path, pub path).
pub fn write_key(dir: &Path, name: &str, sk: &SigningKey) -> (PathBuf, PathBuf) {
    let k = dir.join(format!("{name}.key"));
    let p = dir.join(format!("{name}.pub"));
    std::fs::write(&k, keys::private_key_pem(sk).as_bytes()).unwrap();
    std::fs::write(&p, keys::public_key_pem(&sk.verifying_key())).unwrap();
    (k, p)
}

pub fn trust_of(entries: &[(&SigningKey, &[Role])]) -> TrustStore {
    TrustStore::from_keys(
        entries
            .iter()
            .map(|(k, r)| TrustedKey::new(k.verifying_key(), r.to_vec(), None))
            .collect(),
    )
}

pub fn write_trust(dir: &Path, name: &str, t: &TrustStore) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, t.to_json()).unwrap();
    p
}

pub fn digest(s: &str) -> Sha256Digest {
    Sha256Digest::of_bytes(s.as_bytes())
}

pub fn engine_predicate() -> Value {
    json!({
        "engine": {"id": "engine-0", "name": "vllm", "version": "0.11.0",
                   "image": digest("image").prefixed()},
        "host": "node-a", "model": "moonshotai/Kimi-K3",
        "accelerator": {"name": "MI355X", "count": 8},
        "parallelism": {"tensor": 8},
        "launched_at": "2026-09-23T10:00:00Z", "generation": 0
    })
}

pub fn engine_statement() -> Statement {
    Statement::new(
        vec![
            Subject {
                name: "weights.manifest".into(),
                digest: digest("weights"),
            },
            Subject {
                name: "config.json".into(),
                digest: digest("config"),
            },
            Subject {
                name: "engine-image".into(),
                digest: digest("image"),
            },
        ],
        ENGINE_PREDICATE_TYPE,
        engine_predicate(),
    )
    .unwrap()
}

/// A raw signature over PAE, standard base64.
pub fn sig_b64(sk: &SigningKey, payload_type: &str, payload: &[u8]) -> String {
    B64.encode(sk.sign(&pae(payload_type, payload)).to_bytes())
}

/// An envelope from parts (any payload; signatures as (keyid, sig text)).
pub fn envelope(payload_type: &str, payload: &[u8], sigs: &[(String, String)]) -> Vec<u8> {
    let sigs: Vec<Value> = sigs
        .iter()
        .map(|(k, s)| json!({"keyid": k, "sig": s}))
        .collect();
    serde_json::to_vec(&json!({
        "payloadType": payload_type,
        "payload": B64.encode(payload),
        "signatures": sigs,
    }))
    .unwrap()
}

/// An in-toto envelope over `payload`, signed by `sk` with its true key id.
pub fn signed_payload(sk: &SigningKey, payload: &[u8]) -> Vec<u8> {
    envelope(
        IN_TOTO_PAYLOAD_TYPE,
        payload,
        &[(
            keys::key_id(&sk.verifying_key()),
            sig_b64(sk, IN_TOTO_PAYLOAD_TYPE, payload),
        )],
    )
}
