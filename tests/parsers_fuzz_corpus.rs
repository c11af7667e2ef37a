//! Replays the corpora of the parser fuzz targets (fuzz/corpus/manifest_parse.tgz,
//! envelope_verify and qualification_parse) through the same harnesses as the
//! cargo-fuzz targets, on stable: no input may panic or break an invariant.

#[path = "../fuzz/harness_parsers.rs"]
mod harness_parsers;

mod common;

use common::replay_corpus as replay;

#[test]
fn manifest_parse_corpus() {
    assert!(replay("manifest_parse", harness_parsers::manifest) >= 3);
}

#[test]
fn envelope_verify_corpus() {
    assert!(replay("envelope_verify", harness_parsers::envelope) >= 3);
}

#[test]
fn qualification_parse_corpus() {
    assert!(replay("qualification_parse", harness_parsers::qualification) >= 5);
}

#[test]
fn the_seed_envelope_verifies_under_the_fuzz_key() {
    // Guards the harness itself: if the seed stopped verifying, the fuzzer
    // would never reach the verified path.
    use proofpack::keys::{Role, TrustStore, TrustedKey};
    let key = ed25519_dalek::SigningKey::from_bytes(&[7u8; 32]);
    let t = TrustStore::from_keys(vec![TrustedKey::new(
        key.verifying_key(),
        vec![Role::Engine],
        None,
    )]);
    let seed = common::corpus::input("envelope_verify", "seed-valid");
    assert!(proofpack::attest::verify_envelope(&seed, &t, Role::Engine, 1).is_ok());
    assert!(proofpack::attest::verify_envelope(&seed, &t, Role::Release, 1).is_err());
}
