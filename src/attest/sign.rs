//! Signing: a Statement wrapped in a DSSE envelope signed by each key
//! ([`sign_statement`]), and the envelope as it is written.

use base64::Engine as _;
use ed25519_dalek::{Signer as _, SigningKey};
use serde::Serialize;

use crate::keys::key_id;

use super::dsse::pae;
use super::statement::Statement;
use super::types::IN_TOTO_PAYLOAD_TYPE;

#[derive(Serialize)]
struct EnvelopeOut {
    #[serde(rename = "payloadType")]
    payload_type: &'static str,
    payload: String,
    signatures: Vec<SignatureOut>,
}

#[derive(Serialize)]
struct SignatureOut {
    keyid: String,
    sig: String,
}

/// Signs a Statement with each key: a DSSE envelope (pretty JSON ending with
/// `\n`), payload and signatures in standard padded base64.
pub fn sign_statement(statement: &Statement, keys: &[&SigningKey]) -> Vec<u8> {
    let payload = statement.to_json_bytes();
    let message = pae(IN_TOTO_PAYLOAD_TYPE, &payload);
    let b64 = &base64::engine::general_purpose::STANDARD;
    let env = EnvelopeOut {
        payload_type: IN_TOTO_PAYLOAD_TYPE,
        payload: b64.encode(&payload),
        signatures: keys
            .iter()
            .map(|k| SignatureOut {
                keyid: key_id(&k.verifying_key()),
                sig: b64.encode(k.sign(&message).to_bytes()),
            })
            .collect(),
    };
    let mut out = serde_json::to_vec_pretty(&env).expect("envelope serialises");
    out.push(b'\n');
    out
}
