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
//! The module is split by concept: this file holds the file size limit, the
//! error type and the re-exports; `verify` the strict Ed25519 check and
//! public key validation; `keyid` the SubjectPublicKeyInfo and key ids; `pem`
//! the PEM texts of public (SPKI) and private (PKCS#8) keys; `files` reading,
//! loading and generating key files; `trust` roles and the trust file.

use std::io;
use std::path::PathBuf;

use crate::atomic::AtomicError;

mod files;
mod keyid;
mod pem;
mod trust;
mod verify;

pub use files::{generate_keypair, load_public_key, load_signing_key, read_key_file, with_suffix};
pub use keyid::{key_id, spki_der};
pub use pem::{
    parse_public_key_pem, parse_signing_key_pem, private_key_pem, public_key_pem, SecretText,
};
pub use trust::{Role, TrustStore, TrustedKey, TRUST_SCHEMA};
pub use verify::{check_public_key_bytes, verify_ed25519_strict, SigError};

/// Largest trust file or PEM key file read (1 MiB): far above any real one,
/// small enough that a wrong path (a weights shard) fails fast.
pub const KEY_FILE_MAX_BYTES: u64 = 1 << 20;

/// Errors about keys and trust files. All of them mean "the tool could not
/// run" (exit 2) when the file was an argument.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A key or trust file is larger than [`KEY_FILE_MAX_BYTES`].
    #[error("{}: larger than {} bytes; this is not a key or trust file", path.display(), KEY_FILE_MAX_BYTES)]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// An output file exists and `--force` was not given.
    #[error("{} already exists; refusing to overwrite a key (pass --force to replace it)", path.display())]
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// The text is not a PEM document of the expected kind.
    #[error("{origin}: {reason}")]
    BadPem {
        /// Where the text came from.
        origin: String,
        /// What was wrong and what was expected.
        reason: String,
    },
    /// A well-formed key of another algorithm.
    #[error("{origin}: this is {algorithm} key; proofpack uses Ed25519 keys only (create one with `proofpack key gen -o PREFIX`)")]
    WrongAlgorithm {
        /// Where the key came from.
        origin: String,
        /// A description of what was found ("an RSA", "a P-256 (EC)" ...).
        algorithm: String,
    },
    /// The Ed25519 public key bytes are unusable.
    #[error("{origin}: unusable Ed25519 public key: {reason}")]
    BadPublicKey {
        /// Where the key came from.
        origin: String,
        /// Why.
        reason: SigError,
    },
    /// The trust file is not valid JSON of the trust schema.
    #[error("{origin}: not a proofpack/trust/v1 file: {reason}")]
    BadTrustFile {
        /// Where the trust file came from.
        origin: String,
        /// What was wrong.
        reason: String,
    },
    /// A trust file entry's key id is not the id of its key.
    #[error("{origin}: key #{index} says keyid {stated} but its public_key has keyid {computed}; fix the keyid (`proofpack key id KEY.pub` prints it) or the key")]
    KeyIdMismatch {
        /// Where the trust file came from.
        origin: String,
        /// 1-based entry number.
        index: usize,
        /// The key id written in the file.
        stated: String,
        /// The key id recomputed from the key.
        computed: String,
    },
    /// The same key appears twice in a trust file.
    #[error("{origin}: key {keyid} is listed twice; list each key once with all its roles")]
    DuplicateKey {
        /// Where the trust file came from.
        origin: String,
        /// The repeated key id.
        keyid: String,
    },
    /// A role name other than `engine`, `release`, `host` or `auditor`.
    #[error("unknown role {found:?}; roles are \"engine\", \"release\", \"host\" and \"auditor\"")]
    UnknownRole {
        /// The name found.
        found: String,
    },
    /// Writing a key file failed.
    #[error(transparent)]
    Write(#[from] AtomicError),
}

pub use crate::strictjson::reject_duplicate_json_keys;
