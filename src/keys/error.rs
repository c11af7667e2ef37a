//! The key file size limit and the error type of the module (re-exported
//! by it).

use std::io;
use std::path::PathBuf;

use crate::atomic::AtomicError;

use super::verify::SigError;

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
