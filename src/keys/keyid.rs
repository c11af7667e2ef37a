//! Key ids: the 44-byte DER SubjectPublicKeyInfo of an Ed25519 key and its
//! SHA-256, the id trust files repeat and every message names.

use ed25519_dalek::VerifyingKey;

use crate::digest::Sha256Digest;

/// DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): SEQUENCE {
/// SEQUENCE { OID 1.3.101.112 }, BIT STRING (33 bytes, 0 unused bits) }.
const ED25519_SPKI_PREFIX: [u8; 12] = [
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
];

/// The 44-byte DER SubjectPublicKeyInfo of an Ed25519 public key.
pub fn spki_der(key: &VerifyingKey) -> [u8; 44] {
    let mut out = [0u8; 44];
    out[..12].copy_from_slice(&ED25519_SPKI_PREFIX);
    out[12..].copy_from_slice(key.as_bytes());
    out
}

/// The key id: lowercase hex SHA-256 of the 44-byte DER SubjectPublicKeyInfo.
pub fn key_id(key: &VerifyingKey) -> String {
    Sha256Digest::of_bytes(&spki_der(key)).to_hex()
}
