//! Property tests: sign/verify round trips, base64 spellings, bit flips.

mod attest_support;

use attest_support::*;
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine as _;
use ed25519_dalek::SigningKey;
use proofpack::attest::{self, decode_base64, verify_envelope, Statement, Subject};
use proofpack::digest::Sha256Digest;
use proofpack::keys::{self, Role};
use proptest::prelude::*;
use serde_json::{json, Value};

fn statement_strategy() -> impl Strategy<Value = Statement> {
    (
        proptest::collection::btree_map("[a-zA-Z0-9._/:-]{1,24}", any::<[u8; 32]>(), 1..6),
        "[a-z]{1,8}:[a-z0-9:./-]{1,30}",
        proptest::collection::btree_map("[a-z_]{1,8}", any::<i64>(), 0..5),
        "\\PC{0,20}",
    )
        .prop_map(|(subjects, pt, fields, text)| {
            let mut pred: serde_json::Map<String, Value> =
                fields.into_iter().map(|(k, v)| (k, json!(v))).collect();
            pred.insert("text".into(), json!(text));
            Statement::new(
                subjects
                    .into_iter()
                    .map(|(name, d)| Subject {
                        name,
                        digest: Sha256Digest(d),
                    })
                    .collect(),
                &pt,
                Value::Object(pred),
            )
            .unwrap()
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn sign_then_verify_returns_the_statement(st in statement_strategy(), seeds in proptest::collection::vec(any::<[u8; 32]>(), 1..4)) {
        let signers: Vec<SigningKey> = seeds.iter().map(SigningKey::from_bytes).collect();
        let refs: Vec<&SigningKey> = signers.iter().collect();
        let trust = trust_of(&signers.iter().map(|k| (k, &[Role::Engine][..])).collect::<Vec<_>>());
        let env = attest::sign_statement(&st, &refs);
        prop_assert!(env.ends_with(b"\n"));
        let distinct = trust.keys().len();
        let v = verify_envelope(&env, &trust, Role::Engine, distinct).unwrap();
        prop_assert_eq!(v.get(), &st);
        prop_assert_eq!(v.signers().len(), distinct);
        prop_assert!(verify_envelope(&env, &trust, Role::Engine, distinct + 1).is_err());
        prop_assert!(verify_envelope(&env, &trust, Role::Release, 1).is_err());
        // The payload re-parses to the same statement.
        prop_assert_eq!(Statement::parse(&st.to_json_bytes()).unwrap(), st);
    }

    #[test]
    fn every_base64_spelling_decodes_the_same(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        for e in [&STANDARD, &STANDARD_NO_PAD, &URL_SAFE, &URL_SAFE_NO_PAD] {
            prop_assert_eq!(decode_base64(&e.encode(&bytes)).unwrap(), bytes.clone());
        }
    }

    #[test]
    fn any_flipped_signature_bit_is_rejected(bit in 0usize..512, seed in any::<[u8; 32]>()) {
        let k = SigningKey::from_bytes(&seed);
        let trust = trust_of(&[(&k, &[Role::Engine])]);
        let st = engine_statement();
        let payload = st.to_json_bytes();
        let mut sig = STANDARD.decode(sig_b64(&k, attest::IN_TOTO_PAYLOAD_TYPE, &payload)).unwrap();
        sig[bit / 8] ^= 1 << (bit % 8);
        let env = envelope(
            attest::IN_TOTO_PAYLOAD_TYPE,
            &payload,
            &[(keys::key_id(&k.verifying_key()), STANDARD.encode(&sig))],
        );
        prop_assert!(verify_envelope(&env, &trust, Role::Engine, 1).is_err());
    }

    #[test]
    fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let trust = trust_of(&[(&test_key(1), &[Role::Engine])]);
        prop_assert!(verify_envelope(&bytes, &trust, Role::Engine, 1).is_err());
        let _ = Statement::parse(&bytes);
        let _ = keys::TrustStore::parse(&bytes, "fuzz");
        let _ = keys::parse_public_key_pem(&String::from_utf8_lossy(&bytes), "fuzz");
    }
}
