//! The bag's layout (file names, limits), the error type and what reading
//! and writing share (re-exported by the module).

use std::path::PathBuf;

/// The bag declaration proofpack writes.
pub const BAGIT_TXT: &str = "BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n";
/// The payload directory.
pub const DATA_DIR: &str = "data";
/// The SHA-256 payload manifest.
pub const MANIFEST_SHA256: &str = "manifest-sha256.txt";
/// The SHA-256 tag manifest.
pub const TAGMANIFEST_SHA256: &str = "tagmanifest-sha256.txt";
/// The bag metadata.
pub const BAG_INFO: &str = "bag-info.txt";
/// The bundle's release seal, kept as a tag file.
pub const SEAL_TAG_FILE: &str = "proofpack-seal.dsse.json";
/// Largest tag file read (manifests of a million files fit).
pub const MAX_TAG_FILE: u64 = 256 << 20;

/// Why a bag could not be written or read (the tool could not run).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BagError {
    /// Unpacking the bundle failed.
    #[error(transparent)]
    Bundle(#[from] crate::bundle::BundleError),
    /// The run verification could not run.
    /// An I/O operation on a path failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A bag (it holds `bagit.txt`) without a `data/` directory: there is
    /// no run to verify.
    #[error("{}: a BagIt bag (it holds bagit.txt) with no data/ directory: there is no run to verify", path.display())]
    NoPayload {
        /// The bag.
        path: PathBuf,
    },
    /// A payload path no BagIt manifest line holds the same for every
    /// reader.
    #[error("{path:?}: a BagIt manifest line cannot hold this path the same for every reader ({why}); unpack the bundle without --bagit")]
    Unencodable {
        /// The bundle path.
        path: String,
        /// Why.
        why: &'static str,
    },
}

/// Why a payload path cannot be written into a manifest line: RFC 8493
/// percent-encodes `%`, CR and LF, which bagit-python decodes differently
/// (it does not decode `%25`), so a path holding any of them would be read
/// as another path by one of them.
pub(crate) fn unencodable(path: &str) -> Option<&'static str> {
    if path.contains('%') {
        Some("it contains '%'")
    } else if path.contains(['\r', '\n']) {
        Some("it contains a line break")
    } else {
        None
    }
}

/// Maps an I/O error on `path` to [`BagError::Io`].
pub(super) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> BagError {
    let path = path.into();
    move |source| BagError::Io { path, source }
}
