//! The identity of a file set: the manifest types, the path rules, the
//! canonical text and the error type (re-exported by the module).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io;
use std::path::PathBuf;

use crate::digest::{DigestError, Sha256Digest};

/// Schema tag of the JSON manifest record.
pub const MANIFEST_SCHEMA: &str = "proofpack/manifest/v1";

/// Largest manifest file proofpack reads (a million entries take ~100 MB).
pub const MAX_MANIFEST_BYTES: u64 = 1 << 30;

/// Errors from building, reading or writing manifests.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// An I/O operation on a path failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A file could not be hashed.
    #[error(transparent)]
    Digest(#[from] DigestError),
    /// One or more paths under the root cannot be listed in a manifest.
    #[error("{}", unlistable_message(problems))]
    Unlistable {
        /// Each path (relative to the root, lossily decoded) and why.
        problems: Vec<(String, String)>,
    },
    /// A file changed size while it was being hashed.
    #[error("{}: changed while it was being hashed (stat said {expected} bytes, read {actual}); rerun once it is stable", path.display())]
    ChangedWhileHashing {
        /// The file.
        path: PathBuf,
        /// Size from stat before hashing.
        expected: u64,
        /// Bytes actually hashed.
        actual: u64,
    },
    /// The path names another file than the scan found (replaced, or
    /// a parent directory swapped, between listing and reading).
    #[error("{}: replaced by another file since it was listed (the file opened is not the one found); rerun once the tree is stable", path.display())]
    ReplacedWhileHashing {
        /// The file.
        path: PathBuf,
    },
    /// A manifest file is malformed.
    #[error("{origin}: line {line}: {reason}")]
    Parse {
        /// The manifest file (or other origin label).
        origin: String,
        /// 1-based line number (0 when not line-based).
        line: usize,
        /// What was expected.
        reason: String,
    },
    /// A JSON manifest record is malformed or inconsistent.
    #[error("{origin}: invalid manifest record: {reason}")]
    Record {
        /// The manifest file.
        origin: String,
        /// What was wrong.
        reason: String,
    },
    /// A path occurs twice.
    #[error("{origin}: duplicate path {path:?}")]
    Duplicate {
        /// The manifest file.
        origin: String,
        /// The repeated path.
        path: String,
    },
    /// Sizes were needed but the manifest format carries none.
    #[error("{origin}: this manifest has no file sizes ({format} format); size checks need the JSON record (proofpack manifest --format json)")]
    NoSizes {
        /// The manifest file.
        origin: String,
        /// Its format.
        format: &'static str,
    },
    /// A sizes-only check against a record whose `.safetensors`
    /// entries lack header digests: it could not tell two equal-size shards
    /// swapped under each other's names.
    #[error("{origin}: this record has no header digests; sizes-only cannot detect swapped shards ({missing} of {shards} .safetensors entries have no header_sha256, the first {first:?}); write the record again with `proofpack manifest --format json`, or check in full mode")]
    NoHeaderDigests {
        /// The manifest file.
        origin: String,
        /// Safetensors entries without a header digest.
        missing: usize,
        /// Safetensors entries in all.
        shards: usize,
        /// The first of them.
        first: String,
    },
    /// A manifest file is larger than proofpack reads.
    #[error("{}: manifest is larger than the {MAX_MANIFEST_BYTES}-byte limit", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// An `--exclude` pattern is not a valid glob.
    #[error("invalid --exclude pattern {pattern:?}: {reason}")]
    BadGlob {
        /// The pattern.
        pattern: String,
        /// Why.
        reason: String,
    },
    /// The thread pool could not be created.
    #[error("cannot start {threads} hashing threads: {reason}")]
    Threads {
        /// Requested threads.
        threads: usize,
        /// Why.
        reason: String,
    },
}

// A capped file read says the manifest limit when a file is too large,
// as the manifest's own error does.
const _: () = assert!(crate::capped::NAMED_LIMIT == MAX_MANIFEST_BYTES);

impl From<crate::capped::CappedError> for ManifestError {
    fn from(e: crate::capped::CappedError) -> ManifestError {
        match e {
            crate::capped::CappedError::Io { path, source } => ManifestError::Io { path, source },
            crate::capped::CappedError::TooLarge { path, .. } => ManifestError::TooLarge { path },
        }
    }
}

/// `"path": why; ...` for at most 20 problems, then how many more.
pub fn describe_problems(problems: &[(String, String)]) -> String {
    let mut s = String::new();
    for (i, (p, why)) in problems.iter().enumerate().take(20) {
        if i > 0 {
            s.push_str("; ");
        }
        let _ = write!(s, "{p:?}: {why}");
    }
    if problems.len() > 20 {
        let _ = write!(s, "; and {} more", problems.len() - 20);
    }
    s
}

fn unlistable_message(problems: &[(String, String)]) -> String {
    let mut s = describe_problems(problems);
    s.push_str(
        " (nothing is skipped silently: fix or remove these, or leave them out with --exclude)",
    );
    s
}

/// Checks that a relative path can be written canonically (spec section 2).
/// Returns the reason when it cannot.
pub fn validate_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("empty path".into());
    }
    if path.starts_with('/') {
        return Err("absolute path (leading '/')".into());
    }
    if path.ends_with('/') {
        return Err("trailing '/'".into());
    }
    if let Some(c) = path.chars().find(|c| matches!(c, '\0' | '\n' | '\r')) {
        return Err(format!("contains {c:?}, which a manifest line cannot hold"));
    }
    for comp in path.split('/') {
        match comp {
            "" => return Err("empty path component ('//')".into()),
            "." => return Err("'.' component".into()),
            ".." => return Err("'..' component".into()),
            _ => {}
        }
    }
    Ok(())
}

/// One file of a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Path relative to the manifest root, valid per [`validate_path`].
    pub path: String,
    /// Size in bytes, when the source format carries it.
    pub size: Option<u64>,
    /// SHA-256 of the content.
    pub sha256: Sha256Digest,
}

/// A manifest: entries sorted by the UTF-8 bytes of their paths, each path once.
///
/// A manifest may also carry the header digest of its safetensors
/// entries ([`Manifest::header_sha256`]); like sizes, it is outside the
/// canonical text, so it changes neither the digest nor equality.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    pub(super) entries: Vec<Entry>,
    pub(super) headers: BTreeMap<String, Sha256Digest>,
}

impl PartialEq for Manifest {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl Eq for Manifest {}

impl Manifest {
    /// Builds a manifest from entries in any order. Paths must be valid and
    /// unique; `origin` names the source in errors.
    pub fn from_entries(mut entries: Vec<Entry>, origin: &str) -> Result<Self, ManifestError> {
        for e in &entries {
            validate_path(&e.path).map_err(|reason| ManifestError::Parse {
                origin: origin.to_string(),
                line: 0,
                reason: format!("path {:?}: {reason}", e.path),
            })?;
        }
        entries.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
        if let Some(w) = entries.windows(2).find(|w| w[0].path == w[1].path) {
            return Err(ManifestError::Duplicate {
                origin: origin.to_string(),
                path: w[0].path.clone(),
            });
        }
        Ok(Manifest {
            entries,
            headers: BTreeMap::new(),
        })
    }

    /// The pinned SHA-256 of a safetensors entry's header (its first
    /// 8 + N bytes), when the manifest carries one.
    pub fn header_sha256(&self, path: &str) -> Option<Sha256Digest> {
        self.headers.get(path).copied()
    }

    /// Records the header digest of the entry at `path`, which must be
    /// an entry of the manifest and a safetensors shard (`*.safetensors`).
    pub fn set_header_sha256(
        &mut self,
        path: &str,
        digest: Sha256Digest,
        origin: &str,
    ) -> Result<(), ManifestError> {
        let rerr = |reason: String| ManifestError::Record {
            origin: origin.to_string(),
            reason,
        };
        if self.get(path).is_none() {
            return Err(rerr(format!(
                "header_sha256 for {path:?}, which is not an entry"
            )));
        }
        if !crate::safetensors::is_shard_path(path) {
            return Err(rerr(format!(
                "header_sha256 on {path:?}: only safetensors shards (*.safetensors) carry a header digest"
            )));
        }
        self.headers.insert(path.to_string(), digest);
        Ok(())
    }

    /// `Err` unless every safetensors entry carries a header digest,
    /// as a sizes-only check needs (contract 2.1, 10): without them it cannot
    /// tell two equal-size shards swapped under each other's names.
    pub fn require_header_digests(&self, origin: &str) -> Result<(), ManifestError> {
        let shards = self.shard_specs();
        let missing: Vec<&crate::safetensors::ShardSpec> = shards
            .iter()
            .filter(|s| s.header_sha256.is_none())
            .collect();
        match missing.first() {
            None => Ok(()),
            Some(first) => Err(ManifestError::NoHeaderDigests {
                origin: origin.to_string(),
                missing: missing.len(),
                shards: shards.len(),
                first: first.path.clone(),
            }),
        }
    }

    /// The safetensors entries (`*.safetensors`), each with its pinned
    /// header digest if any: what [`structure_check`](super::structure_check)
    /// checks.
    pub fn shard_specs(&self) -> Vec<crate::safetensors::ShardSpec> {
        self.entries
            .iter()
            .filter(|e| crate::safetensors::is_shard_path(&e.path))
            .map(|e| crate::safetensors::ShardSpec {
                path: e.path.clone(),
                header_sha256: self.header_sha256(&e.path),
            })
            .collect()
    }

    /// The entries, sorted.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True for the empty file set.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Looks an entry up by path.
    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.entries
            .binary_search_by(|e| e.path.as_bytes().cmp(path.as_bytes()))
            .ok()
            .map(|i| &self.entries[i])
    }

    /// True when every entry carries its size.
    pub fn has_sizes(&self) -> bool {
        self.entries.iter().all(|e| e.size.is_some())
    }

    /// Sum of sizes, when every entry carries one.
    pub fn total_bytes(&self) -> Option<u64> {
        self.entries.iter().map(|e| e.size).sum()
    }

    /// The canonical `path:sha256\n` text.
    pub fn canonical_text(&self) -> String {
        let mut s = String::with_capacity(self.entries.len() * 100);
        for e in &self.entries {
            s.push_str(&e.path);
            s.push(':');
            s.push_str(&e.sha256.to_hex());
            s.push('\n');
        }
        s
    }

    /// The manifest digest: SHA-256 of the canonical text.
    pub fn digest(&self) -> Sha256Digest {
        Sha256Digest::of_bytes(self.canonical_text().as_bytes())
    }
}
