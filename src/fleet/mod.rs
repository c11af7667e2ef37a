//! Launch checks on every host of a fleet (issue 12, contract v1.1): signed
//! host reports and a fleet-wide verdict.
//!
//! A fleet serves from many hosts, and one host with a stale or truncated
//! shard silently changes the result. [`host_check`] runs the closed-world
//! check of a host's weights directory against the pinned manifest (sizes
//! only, or every byte hashed) and the model config's digest, and
//! [`sign_report`] turns the outcome into a DSSE envelope holding an
//! in-toto Statement of type [`HOST_CHECK_PREDICATE_TYPE`], signed by the
//! host's key. The report records a failure as faithfully as a pass.
//!
//! [`verify_fleet`] is the other end: for every host the fleet selects,
//! exactly one report, signed by a key trusted for the `host` role, for the
//! pinned manifest, in at least the required mode, passed, and with the
//! pinned config; and no report for a host outside the fleet. It is used
//! by `fleet verify` and by `verify` for the host reports a qualification
//! lists. How the hosts are reached is the orchestrator's business
//! (Ansible, Slurm, Kubernetes: see `deploy/` and docs/fleet.md).

mod hostcheck;
mod verify;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

pub use hostcheck::{host_check, sign_report, ConfigSource, HostCheckOptions, HostChecked};
pub use verify::{
    verify_fleet, verify_fleet_files, FleetHosts, FleetRequirements, FleetVerification, HostRow,
    ReportIn,
};

/// The predicate type of a host launch-check report.
pub const HOST_CHECK_PREDICATE_TYPE: &str = "urn:proofpack:predicate:host-check:v1";

/// How much of the weights a host check read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Presence and sizes only (no content read: seconds on terabytes).
    SizesOnly,
    /// Every byte hashed.
    Full,
}

impl Mode {
    /// The name as written in reports and flags.
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::SizesOnly => "sizes-only",
            Mode::Full => "full",
        }
    }
}

/// The predicate of a host launch-check report. Unknown fields are ignored
/// (other writers may record more); the fields proofpack reads are strict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HostCheckPredicate {
    /// The host's name, as the fleet file and the engine attestations name it.
    pub host: String,
    /// The weights directory checked, as given on the host.
    pub root: String,
    /// What was read.
    pub mode: Mode,
    /// `sha256:<hex>` of the canonical manifest checked against.
    pub manifest: String,
    /// Files the manifest lists.
    pub files: u64,
    /// Bytes the manifest lists.
    pub bytes: u64,
    /// Paths that did not match (missing, unlisted, changed, unreadable).
    pub failed: u64,
    /// The first few of them, each `path: why`.
    pub failures: Vec<String>,
    /// `sha256:<hex>` of the model config, as found (hashed) or stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    /// Whether `config` was hashed from a file on the host or stated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub config_source: Option<String>,
    /// True when every file matched.
    pub passed: bool,
    /// When the check started, RFC 3339 UTC.
    pub started_at: String,
    /// When it ended, RFC 3339 UTC.
    pub finished_at: String,
    /// `proofpack <version>`.
    pub tool: String,
}

/// How many failing paths a report names (the count is always complete).
pub const MAX_NAMED_FAILURES: usize = 10;

/// Errors that stop a host check or a fleet verification (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FleetError {
    /// An I/O operation on a path failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The manifest or the weights directory could not be used.
    #[error(transparent)]
    Manifest(#[from] crate::manifest::ManifestError),
    /// Writing the report failed.
    #[error(transparent)]
    Atomic(#[from] crate::atomic::AtomicError),
    /// The fleet file is not usable.
    #[error("{origin}: {reason}")]
    BadFleet {
        /// The fleet file.
        origin: String,
        /// What was expected.
        reason: String,
    },
    /// An argument is not usable.
    #[error("{0}")]
    BadArgument(String),
    /// The report could not be signed.
    #[error("cannot sign the host report: {0}")]
    Sign(String),
}
