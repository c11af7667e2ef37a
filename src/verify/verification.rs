//! What a verification answers ([`Verification`]), where its evidence came
//! from ([`Source`]), the checks of a container around the run ([`Outer`]),
//! and the errors that stop it from running at all ([`VerifyError`]).

use std::path::PathBuf;

use crate::digest::Sha256Digest;
use crate::report::{Check, Report};
use crate::run::metrics::PointRow;
use crate::run::qualification::Qualification;
use crate::verify::checks::options::Options;

/// Errors that stop verification from running at all (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum VerifyError {
    /// Reading the run directory failed.
    #[error(transparent)]
    RunDir(#[from] RunDirError),
    /// The bundle could not be read (I/O), or its seal file could not be read.
    #[error(transparent)]
    Bundle(crate::bundle::BundleError),
    /// The path given is neither a directory nor a file.
    #[error("{}: not a run directory or bundle file", path.display())]
    NotARun {
        /// The path.
        path: PathBuf,
    },
    /// A BagIt bag could not be read as one.
    #[error(transparent)]
    Bag(#[from] crate::bagit::BagError),
    /// The inputs ask for something the target cannot give.
    #[error("{0}")]
    Usage(String),
}

/// Where the evidence came from: the bundle's identity and what became of
/// its seal (all empty for a run directory).
#[derive(Debug, Clone, Default)]
pub struct Source {
    /// SHA-256 of the bundle bytes.
    pub bundle_sha256: Option<Sha256Digest>,
    /// The verified bundle's file name, as given.
    pub bundle_name: Option<String>,
    /// Digest of the bundle's MANIFEST.
    pub manifest_digest: Option<Sha256Digest>,
    /// The bundle's top-level directory.
    pub root: Option<String>,
    /// Only the bundle's structure (and seal) was verified.
    pub structure_only: bool,
    /// What became of the release seal.
    pub seal: SealState,
    /// The attestations read (see [`Verification::input_attestations`]).
    pub inputs: Vec<(String, Sha256Digest)>,
}

/// The outcome of verifying a run.
#[derive(Debug, Clone)]
pub struct Verification {
    /// Every check.
    pub report: Report,
    /// The recomputed table (points whose records could be read).
    pub rows: Vec<PointRow>,
    /// True when pins were given.
    pub pinned: bool,
    /// The qualification, when it parsed.
    pub qualification: Option<Qualification>,
    /// SHA-256 of the bundle bytes (bundles only).
    pub bundle_sha256: Option<Sha256Digest>,
    /// Digest of the bundle's MANIFEST (bundles only).
    pub manifest_digest: Option<Sha256Digest>,
    /// The bundle's top-level directory (bundles only).
    pub root: Option<String>,
    /// Only the bundle's structure (and seal) was verified.
    pub structure_only: bool,
    /// What became of the release seal.
    pub seal: SealState,
    /// The attestations the verification read, for a verification
    /// summary: the seal (its file name, the SHA-256 of the bytes checked)
    /// and, once the qualification parsed, each engine attestation and host
    /// report (its path in the bundle, its digest in MANIFEST, which the
    /// entry checks compare with the bytes).
    pub input_attestations: Vec<(String, Sha256Digest)>,
}

impl Verification {
    /// A verification of `source` whose checks are `report`, with no
    /// recomputed table and no qualification yet.
    pub fn new(report: Report, opts: &Options<'_>, source: &Source) -> Verification {
        Verification {
            report,
            rows: Vec::new(),
            pinned: opts.pinned(),
            qualification: None,
            bundle_sha256: source.bundle_sha256,
            manifest_digest: source.manifest_digest,
            root: source.root.clone(),
            structure_only: source.structure_only,
            seal: source.seal,
            input_attestations: source.inputs.clone(),
        }
    }
}

/// Checks a layer above made of the container the run came in (a BagIt
/// bag's own manifests and seal), reported first and counted in the
/// verdict like every other check.
pub struct Outer {
    /// What the report names as verified (the bag's directory).
    pub target: String,
    /// The container's checks.
    pub checks: Vec<Check>,
}

/// What became of the release seal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SealState {
    /// No seal (or a run directory, which has none).
    #[default]
    Absent,
    /// A seal is present but its signature was not checked (no trust roots).
    NotChecked,
    /// The seal was checked (see the `seal` check for the outcome).
    Checked,
}

/// Errors reading a run directory.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunDirError {
    /// An I/O operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// Listing the run directory failed.
    #[error(transparent)]
    Scan(#[from] crate::manifest::ManifestError),
}
