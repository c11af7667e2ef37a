//! Ed25519 keys, key ids, the trust file and the strict signature check
//! (spec section 3).
//!
//! Why these rules:
//!
//! - **One algorithm.** proofpack signs with Ed25519 only. A PEM file holding
//!   any other key (RSA, P-256, an encrypted key) is refused with a message
//!   naming what was found, never "interpreted".
//! - **Key ids are derived, never trusted.** A key id is the SHA-256 of the
//!   key's 44-byte DER SubjectPublicKeyInfo, the same value
//!   `openssl pkey -pubin -outform DER | sha256sum` prints. The trust file
//!   repeats it so that a person can read and compare it, and the reader
//!   recomputes it and rejects the file on a mismatch: a hand-edited id can
//!   never make a different key trusted.
//! - **One encoding per key.** A public key must be the canonical encoding of
//!   its point and not of small order; otherwise one key could have two ids,
//!   or a "key" could verify signatures that nobody made.
//! - **Strict verification in one place.** [`verify_ed25519_strict`] is the only
//!   Ed25519 check in proofpack. The envelope verifier calls it, and the
//!   Wycheproof and speccheck vector tests call it, so the vectors test exactly
//!   what an auditor's verdict rests on. It rejects what RFC 8032's strict
//!   reading rejects: a signature that is not 64 bytes, `S >= L`, a
//!   non-canonical or small-order `R` or `A`; then it runs ed25519-dalek's
//!   `verify_strict` (cofactorless equation, encoded-R comparison).
//!
//! The module is split by concept: this file holds the re-exports; `error`
//! the file size limit and the error type; `verify` the strict Ed25519 check
//! and public key validation; `keyid` the SubjectPublicKeyInfo and key ids;
//! `pem` the PEM texts of public (SPKI) and private (PKCS#8) keys; `files`
//! reading, loading and generating key files; `trust` roles and the trust
//! file.

mod error;
mod files;
mod keyid;
mod pem;
mod trust;
mod verify;

pub use error::{KeyError, KEY_FILE_MAX_BYTES};
pub use files::{generate_keypair, load_public_key, load_signing_key, read_key_file, with_suffix};
pub use keyid::{key_id, spki_der};
pub use pem::{
    parse_public_key_pem, parse_signing_key_pem, private_key_pem, public_key_pem, SecretText,
};
pub use trust::{Role, TrustStore, TrustedKey, TRUST_SCHEMA};
pub use verify::{check_public_key_bytes, verify_ed25519_strict, SigError};

pub use crate::strictjson::reject_duplicate_json_keys;
