//! End-to-end verification of a qualification run (spec section 6).
//!
//! This is what an auditor runs: given a run (a sealed bundle or a run
//! directory), the published write-up or pins and the trust roots, does the
//! evidence support exactly what was published? Every check runs and is
//! reported; nothing stops at the first failure, so one report shows
//! everything that is wrong.
//!
//! [`verify`] is the one entry point: it takes the target and the
//! auditor's [`Inputs`], picks the bundle or run-directory path, applies the
//! seal rule, runs every check family, states the verdict and fills the
//! page data. Every front end (the CLI, a CI library user, a test) gets the
//! same answer from it.
//!
//! The modules, in the order the work flows:
//! - [`schema`]: `qualification.json`, the pins, client records and journal
//!   events as read (strict);
//! - [`evidence`]: which files a run needs and in what role, fed from a run
//!   directory or from a bundle's verified tar stream, so that the checks
//!   never know where the files came from; [`records`] streams JSON Lines
//!   with bounded memory;
//! - [`bundled`]: a sealed bundle through the bundle layer's verifying
//!   reader; [`rundir`]: a run directory;
//! - [`context`]: the evidence of one run ([`context::Run`]) as every check
//!   family reads it; [`run`]: the order the families run in
//!   ([`run::evaluate`]);
//! - the check families: [`plan`] (the benchmark plan), [`engines`] with
//!   [`attested`] (engine attestations and the verifier interface),
//!   [`facts`] and [`pins`] (published values), [`hosts`] (host launch
//!   checks), [`inventory`] (records outside the declared points, read
//!   limits), [`derived`] with [`deriver`] (v1.1: client records derived
//!   again from the benchmark client's result file), [`point`] with
//!   [`metrics`] (per-point invariants and every
//!   published number recomputed, numpy's percentile bit for bit),
//!   [`plausible`] (records no real run can produce), and
//!   [`published`] (the write-up's rows and cells);
//! - [`verdict`]: the one sentence that says what a green or red covers;
//!   [`table`]: the recomputed measured-points table; [`pagedata`]: what
//!   the HTML page needs besides the checks, with [`writeup`] the
//!   write-up's blocks, every statement and checked cell joined to its
//!   checks.
//!
//! Engine attestations are verified through [`EngineAttestationVerifier`],
//! so that this layer states *what* must hold of an attestation and the
//! attestation layer states how a signature is checked.

pub mod attested;
pub mod bundled;
pub mod context;
pub mod derived;
pub mod deriver;
pub mod engines;
pub mod evidence;
pub mod facts;
pub mod hosts;
pub mod idmap;
pub mod inventory;
pub mod journal;
pub mod metrics;
pub mod pagedata;
pub mod pins;
pub mod plan;
pub mod plausible;
pub mod point;
pub mod published;
pub mod records;
pub mod run;
pub mod rundir;
pub mod rundir_files;
pub mod schema;
pub mod sniff;
pub mod summary;
pub mod table;
pub mod verdict;
pub mod writeup;

use std::path::{Path, PathBuf};

use crate::bundle::Limits;
use crate::digest::Sha256Digest;
use crate::keys::TrustStore;
use crate::progress::Progress;
use crate::publication::Publication;
use crate::report::{Check, Report};

pub use attested::{AttestedEngine, EngineAttestationVerifier, EngineFacts, TrustVerifier};
pub use bundled::SealRequest;
pub(crate) use context::file_problem;
pub use pagedata::PageContext;
pub use run::{check_qualification, evaluate, unverifiable_rest};
pub use rundir::verify_run_dir;
use schema::{Pins, Qualification};
pub use table::PointRow;

/// The predicate type of engine attestations (spec section 4).
pub const ENGINE_PREDICATE_TYPE: &str = crate::attest::ENGINE_PREDICATE_TYPE;

/// The file every run root holds.
pub const QUALIFICATION_FILE: &str = "qualification.json";

/// Errors that stop verification from running at all (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum QualifyError {
    /// Reading the run directory failed.
    #[error(transparent)]
    RunDir(#[from] rundir_files::RunDirError),
    /// The bundle could not be read (I/O), or its seal file could not be read.
    #[error(transparent)]
    Bundle(crate::bundle::BundleError),
    /// The path given is neither a directory nor a file.
    #[error("{}: not a run directory or bundle file", path.display())]
    NotARun {
        /// The path.
        path: PathBuf,
    },
    /// The inputs ask for something the target cannot give.
    #[error("{0}")]
    Usage(String),
}

/// What the checks are told of the auditor's inputs.
#[derive(Default, Clone, Copy)]
pub struct Options<'a> {
    /// The published pins; `None` (and no publication) makes the verdict
    /// "unpinned".
    pub pins: Option<&'a Pins>,
    /// Trust roots for engine attestations; `None` fails the attestations.
    pub attestations: Option<&'a dyn EngineAttestationVerifier>,
    /// The published write-up, checked row by row and cell by cell.
    pub publication: Option<&'a Publication>,
    /// Rows of the publication that no evidence supports fail instead of
    /// being reported as not checked; v1.1: so do the journal checks of a
    /// point without a journal.
    pub require_all_rows: bool,
    /// v1.1: re-derives client records from the points' source files;
    /// `None` fails `point:<name>.source` of every point that names one.
    pub deriver: Option<&'a dyn deriver::RecordDeriver>,
}

impl Options<'_> {
    /// True when published pins are compared: a pins file, or a
    /// publication that states at least one digest or commit (v1.1: a
    /// write-up from which no pin could be taken leaves the verdict
    /// unpinned).
    pub fn pinned(&self) -> bool {
        self.pins.is_some()
            || self
                .publication
                .is_some_and(published::publication_has_pins)
    }

    /// Digests whose manifests under `manifests/` must be counted (the
    /// publication's manifest rows with a file count).
    pub fn counted_digests(&self) -> Vec<Sha256Digest> {
        self.publication
            .map(published::counted_digests)
            .unwrap_or_default()
    }
}

/// Where the evidence came from: the bundle's identity and what became of
/// its seal (all empty for a run directory).
#[derive(Debug, Clone, Default)]
pub struct Source {
    /// SHA-256 of the bundle bytes.
    pub bundle_sha256: Option<Sha256Digest>,
    /// Digest of the bundle's MANIFEST.
    pub manifest_digest: Option<Sha256Digest>,
    /// The bundle's top-level directory.
    pub root: Option<String>,
    /// Only the bundle's structure (and seal) was verified.
    pub structure_only: bool,
    /// What became of the release seal.
    pub seal: verdict::SealState,
    /// v1.1: the attestations read (see [`Verification::input_attestations`]).
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
    pub seal: verdict::SealState,
    /// v1.1: the attestations the verification read, for a verification
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

/// What the auditor brings to a verification.
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    /// The published pins.
    pub pins: Option<&'a Pins>,
    /// The auditor's trust roots (engine, host and release keys).
    pub trust: Option<&'a TrustStore>,
    /// The published write-up.
    pub publication: Option<&'a Publication>,
    /// Rows of the write-up that no evidence supports fail; v1.1: so do the
    /// journal checks of a point without a journal.
    pub require_all: bool,
    /// v1.1: re-derives client records from the points' source files (the
    /// adoption layer's `adopt::derive::PeerDeriver`).
    pub deriver: Option<&'a dyn deriver::RecordDeriver>,
    /// Fail unless a release seal verifies under a key trusted for
    /// `release`.
    pub require_seal: bool,
    /// The seal envelope; `None`: `BUNDLE.seal.dsse.json` beside the bundle.
    pub seal: Option<&'a Path>,
    /// Verify only a bundle's structure and seal.
    pub structure_only: bool,
    /// Bundle reading limits.
    pub limits: &'a Limits,
    /// What the page says of the inputs (paths, digests, time).
    pub page: &'a PageContext,
    /// Refuse to run without `trust` (unless `structure_only`): `verify`
    /// does, since a signature nobody trusts proves nothing. `publish`
    /// does not: it reads the run to write it up and vouches for no
    /// signature (its readers verify with their own trust roots).
    pub trust_required: bool,
}

/// Verifies the run at `target` (a sealed bundle or a run directory)
/// against the auditor's inputs: every check, the verdict line and the page
/// data. `progress` hears of the bytes read. `Err` means verification could
/// not run (exit 2), never that the evidence does not hold.
pub fn verify(
    target: &Path,
    inputs: &Inputs<'_>,
    progress: &dyn Progress,
) -> Result<Verification, QualifyError> {
    verify_with(target, inputs, progress, None)
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

/// [`verify`] of the run `target` found inside `outer`.
pub fn verify_with(
    target: &Path,
    inputs: &Inputs<'_>,
    progress: &dyn Progress,
    outer: Option<Outer>,
) -> Result<Verification, QualifyError> {
    // A qualification cannot be verified without trust roots: a missing
    // trust file is a usage error, as for `attest verify` and `fleet verify`.
    if inputs.trust.is_none() && !inputs.structure_only && inputs.trust_required {
        return Err(QualifyError::Usage(
            "verify needs --trust TRUST, the keys you trust for engine, release and host (a signature nobody trusts proves nothing); a trust file is made with `proofpack key trust --engine ENGINE.pub --release RELEASE.pub --host HOST.pub -o trust.json`. --structure-only checks a bundle's structure without it".into(),
        ));
    }
    let verifier = inputs.trust.map(|t| TrustVerifier { trust: t });
    let opts = Options {
        pins: inputs.pins,
        attestations: verifier
            .as_ref()
            .map(|v| v as &dyn EngineAttestationVerifier),
        publication: inputs.publication,
        require_all_rows: inputs.require_all,
        deriver: inputs.deriver,
    };
    let mut v = if target.is_dir() {
        if inputs.structure_only {
            return Err(QualifyError::Usage(
                "--structure-only applies to a bundle (.tgz); a run directory has no bundle structure".into(),
            ));
        }
        let mut v = verify_run_dir(target, &opts)?;
        if inputs.require_seal {
            v.report.push(Check::fail(
                "seal",
                "--require-seal: a run directory has no release seal; verify the sealed bundle",
            ));
        }
        v
    } else {
        if inputs.require_seal && inputs.trust.is_none() {
            return Err(QualifyError::Usage(
                "--require-seal needs --trust TRUST (the release keys to check the seal against)"
                    .into(),
            ));
        }
        let seal = SealRequest {
            path: inputs.seal,
            trust: inputs.trust,
            require: inputs.require_seal,
            structure_only: inputs.structure_only,
        };
        bundled::verify_bundle_file(target, inputs.limits, &seal, &opts, progress)?
    };
    if let Some(outer) = outer {
        let mut report = Report::new(outer.target);
        for c in outer.checks {
            report.push(c);
        }
        report.extend(std::mem::replace(&mut v.report, Report::new(String::new())));
        v.report = report;
    }
    v.report.set_verdict(verdict::verdict(&v).line);
    pagedata::enrich(&mut v, inputs.page, inputs.publication, inputs.pins);
    Ok(v)
}
