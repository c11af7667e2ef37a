//! Wycheproof Ed25519 and ed25519-speccheck vectors, run through
//! `verify_ed25519_strict`, the Ed25519 check of the envelope verifier.
//! Sources and licenses: testdata/vectors/README.md; the speccheck stance:
//! docs/ed25519-speccheck.md (the table below must match it).

use std::path::PathBuf;

use proofpack::keys::{verify_ed25519_strict, SigError};
use serde_json::Value;

fn vectors(name: &str) -> Value {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/vectors")
        .join(name);
    let text = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_slice(&text).unwrap()
}

fn hex(v: &Value) -> Vec<u8> {
    hex::decode(v.as_str().unwrap()).unwrap()
}

#[test]
fn wycheproof_valid_accepted_invalid_rejected() {
    let w = vectors("wycheproof-ed25519_test.json");
    assert_eq!(w["algorithm"], "EDDSA");
    let (mut valid, mut invalid) = (0, 0);
    let mut wrong = Vec::new();
    for g in w["testGroups"].as_array().unwrap() {
        assert_eq!(g["publicKey"]["curve"], "edwards25519");
        let pk = hex(&g["publicKey"]["pk"]);
        for t in g["tests"].as_array().unwrap() {
            let got = verify_ed25519_strict(&pk, &hex(&t["msg"]), &hex(&t["sig"]));
            match t["result"].as_str().unwrap() {
                "valid" => {
                    valid += 1;
                    if got.is_err() {
                        wrong.push(format!("tcId {} valid but rejected: {got:?}", t["tcId"]));
                    }
                }
                "invalid" => {
                    invalid += 1;
                    if got.is_ok() {
                        wrong.push(format!(
                            "tcId {} invalid but accepted ({})",
                            t["tcId"], t["comment"]
                        ));
                    }
                }
                other => panic!("tcId {}: unexpected result {other}", t["tcId"]),
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    assert_eq!((valid, invalid), (88, 63), "vector file changed");
    assert_eq!(
        valid + invalid,
        w["numberOfTests"].as_u64().unwrap() as usize
    );
}

/// proofpack's stance on each speccheck case, with the reason (the first
/// rule of `verify_ed25519_strict` that rejects). Same table as
/// docs/ed25519-speccheck.md.
const SPECCHECK: [(usize, Result<(), SigError>); 12] = [
    (0, Err(SigError::PublicKeySmallOrder)),
    (1, Err(SigError::PublicKeySmallOrder)),
    (2, Err(SigError::RSmallOrder)),
    (3, Ok(())),
    (4, Err(SigError::Mismatch)),
    (5, Err(SigError::Mismatch)),
    (6, Err(SigError::NonCanonicalS)),
    (7, Err(SigError::NonCanonicalS)),
    (8, Err(SigError::RNonCanonical)),
    (9, Err(SigError::RNonCanonical)),
    (10, Err(SigError::PublicKeyNonCanonical)),
    (11, Err(SigError::PublicKeyNonCanonical)),
];

#[test]
fn speccheck_cases_match_the_documented_stance() {
    let cases = vectors("ed25519-speccheck-cases.json");
    let cases = cases.as_array().unwrap();
    assert_eq!(cases.len(), 12);
    let mut got = Vec::new();
    for (i, c) in cases.iter().enumerate() {
        let r = verify_ed25519_strict(
            &hex(&c["pub_key"]),
            &hex(&c["message"]),
            &hex(&c["signature"]),
        );
        got.push((i, r));
    }
    assert_eq!(got, SPECCHECK.to_vec());
    let doc = std::fs::read_to_string(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/ed25519-speccheck.md"),
    )
    .expect("docs/ed25519-speccheck.md");
    for (i, r) in SPECCHECK {
        let verdict = if r.is_ok() { "accept" } else { "reject" };
        let row = format!("| {i} | {verdict} |");
        assert!(
            doc.contains(&row),
            "docs/ed25519-speccheck.md lacks the row starting {row:?}"
        );
    }
}
