//! What the shard and index checks share: the header limit and the error
//! type (re-exported by the module).

use std::io;
use std::path::PathBuf;

/// The reference reader's limit on the header length N (`MAX_HEADER_SIZE`).
pub const MAX_HEADER_BYTES: u64 = 100_000_000;

/// Errors that stop a shard check from running at all (a broken shard is a
/// failed check, never an error).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SafetensorsError {
    /// An I/O operation on an argument file (the index) failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The index is not a safetensors shard index.
    #[error("{}: invalid shard index: {reason}", path.display())]
    Index {
        /// The index file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// An argument file is larger than proofpack reads.
    #[error("{}: larger than the {limit}-byte limit for a shard index", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit.
        limit: u64,
    },
}
