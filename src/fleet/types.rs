//! The host launch-check report's predicate, its fields and types, and the
//! error type of the module (re-exported by it).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::digest::Sha256Digest;

/// The predicate type of a host launch-check report (bound to a run, a
/// fleet and the shard headers found).
pub const HOST_CHECK_PREDICATE_TYPE: &str = "urn:proofpack:predicate:host-check:v1.1";

/// The predicate type of older host reports, which name no run, no fleet
/// and no shard headers: refused with that reason.
pub const HOST_CHECK_PREDICATE_TYPE_V1: &str = "urn:proofpack:predicate:host-check:v1";

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
    /// The run the check was made for (the qualification's `name`).
    pub run: String,
    /// `sha256:<hex>` of the fleet file the host was checked for (a
    /// qualification's qualified fleet).
    pub fleet: String,
    /// Every safetensors entry of the manifest found on the host, with
    /// the SHA-256 of its header as read there (null when it has none).
    pub shards: Vec<ShardHeader>,
}

/// One shard's header digest as a host found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ShardHeader {
    /// The entry's path.
    pub path: String,
    /// SHA-256 hex of its first 8 + N bytes; null when it has no readable
    /// header.
    pub header_sha256: Option<String>,
}

impl HostCheckPredicate {
    /// Checks the fields whose form the contract fixes; `Err` says which.
    pub fn validate(&self) -> Result<(), String> {
        if self.host.trim().is_empty() || self.run.trim().is_empty() {
            return Err("host and run must not be empty".into());
        }
        for (k, v) in [("manifest", &self.manifest), ("fleet", &self.fleet)] {
            parse_prefixed(v).map_err(|e| format!("{k}: {e}"))?;
        }
        if let Some(c) = &self.config {
            parse_prefixed(c).map_err(|e| format!("config: {e}"))?;
        }
        let mut last: Option<&str> = None;
        for sh in &self.shards {
            if let Some(h) = &sh.header_sha256 {
                Sha256Digest::parse_hex(h)
                    .map_err(|e| format!("shards: {:?}: header_sha256: {e}", sh.path))?;
            }
            if last.is_some_and(|l| l.as_bytes() >= sh.path.as_bytes()) {
                return Err(format!(
                    "shards: {:?} is out of order or listed twice (paths sorted, each once)",
                    sh.path
                ));
            }
            last = Some(&sh.path);
        }
        Ok(())
    }

    /// True when the report says the config digest was stated by the
    /// operator, not hashed from a file on the host.
    pub fn config_stated(&self) -> bool {
        self.config_source.as_deref() == Some("stated")
    }
}

/// `sha256:<hex>` as a digest.
pub fn parse_prefixed(s: &str) -> Result<Sha256Digest, String> {
    let hex = s
        .strip_prefix("sha256:")
        .ok_or_else(|| format!("{s:?} is not sha256:<hex>"))?;
    Sha256Digest::parse_hex(hex).map_err(|e| e.to_string())
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
