//! What sealing, verifying and unpacking share: the format's constants, check
//! ids, the options and outcomes, the entry visitor and the error type
//! (re-exported by the module).

use std::io;
use std::path::PathBuf;

use crate::digest::Sha256Digest;
use crate::manifest::{Manifest, ManifestError};
use crate::report::Report;

/// Default gzip compression level of [`seal`](super::seal) (part of the
/// reproducibility contract: a different level gives different bytes).
pub const DEFAULT_LEVEL: u32 = 6;

/// Largest mtime a ustar header holds (11 octal digits); later times would
/// need a PAX record, which proofpack does not write.
pub const MAX_MTIME: u64 = 0o777_7777_7777;

/// Name of the manifest entry directly under the bundle's root.
pub const MANIFEST_NAME: &str = "MANIFEST";

/// Report id of one entry (path relative to the root, or as found when it is
/// not under the root).
pub fn entry_check_id(path: &str) -> String {
    format!("{ENTRY_CHECK_PREFIX}{path}")
}

/// The head of every entry check's id.
pub const ENTRY_CHECK_PREFIX: &str = "bundle.entry:";

/// Report id of one limit.
pub fn limit_check_id(name: &str) -> String {
    format!("bundle.limit:{name}")
}

/// Options of [`seal`](super::seal).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SealOptions {
    /// Name of the bundle's top-level directory; `None`: the `name` of
    /// `qualification.json`, else the run directory's name.
    pub name: Option<String>,
    /// gzip level 0..=9 ([`DEFAULT_LEVEL`] by default).
    pub level: u32,
    /// mtime written into every header (`SOURCE_DATE_EPOCH`, else 0; see
    /// [`source_date_epoch`](super::source_date_epoch)).
    pub mtime: u64,
    /// Hashing and compression threads; 0 means one per core. The bytes
    /// written do not depend on it.
    pub threads: usize,
    /// An unsigned seal may remove a seal left beside the output by an
    /// earlier signed seal (`seal --force`); without it, it refuses.
    pub replace_stale_seal: bool,
}

impl Default for SealOptions {
    fn default() -> Self {
        SealOptions {
            name: None,
            level: DEFAULT_LEVEL,
            mtime: 0,
            threads: 0,
            replace_stale_seal: false,
        }
    }
}

/// What [`seal`](super::seal) wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sealed {
    /// SHA-256 of the `.tgz` bytes (also written to `OUT.sha256`).
    pub bundle_sha256: Sha256Digest,
    /// The manifest of the run's files (MANIFEST itself excluded).
    pub manifest: Manifest,
    /// SHA-256 of the MANIFEST entry.
    pub manifest_digest: Sha256Digest,
    /// Name of the top-level directory.
    pub root: String,
    /// Number of files listed in MANIFEST.
    pub files: u64,
    /// Sum of their sizes.
    pub bytes: u64,
}

/// Lets a caller read the content of chosen entries while they stream past
/// (the reader yields the entry's bytes; whatever the visitor does not read is
/// drained and still hashed).
///
/// The content is not yet verified when the visitor sees it: it becomes
/// trustworthy only if the final report holds. A visitor that returns `Err`
/// makes that entry's check fail with the error as the reason.
pub trait EntryVisitor {
    /// True if the visitor wants to read the regular file `rel_path` (relative
    /// to the root; `MANIFEST` included).
    fn wants(&mut self, rel_path: &str) -> bool;
    /// Reads (part of) the entry's content.
    fn visit(&mut self, rel_path: &str, content: &mut dyn io::Read) -> io::Result<()>;
    /// The SHA-256 of every byte of the entry just visited (what the reader
    /// hashed as it passed, drained bytes included), so that a visitor
    /// need not hash it again. Not called when the archive
    /// ends inside the entry or reading stops there. The default ignores it.
    fn digested(&mut self, _rel_path: &str, _sha256: &Sha256Digest) {}
    /// A directory entry the reader accepted (relative to the root; "" for
    /// the root itself). Directories carry no content; the default ignores
    /// them.
    fn dir(&mut self, _rel_path: &str) {}
}

/// The outcome of verifying a bundle.
#[derive(Debug, Clone)]
pub struct BundleVerification {
    /// Every check (`bundle.*`).
    pub report: Report,
    /// SHA-256 of the bundle's bytes; `None` only if the file could not be
    /// read to the end (reading stopped at a limit).
    pub bundle_sha256: Option<Sha256Digest>,
    /// The top-level directory's name, when one could be determined.
    pub root: Option<String>,
    /// The MANIFEST, when it was present and canonical.
    pub manifest: Option<Manifest>,
    /// Sum of the sizes of the regular files found in the bundle that MANIFEST
    /// lists (what a seal's `bytes` must equal), when MANIFEST was usable.
    pub listed_bytes: Option<u64>,
    /// The id of the check whose failure stopped reading before the
    /// end of the archive (`bundle.gzip`, `bundle.tar`, a `bundle.limit:*`),
    /// when reading stopped early: what was not reached is not absent.
    pub stopped_by: Option<String>,
}

/// Errors that stop sealing, verifying or unpacking (the tool could not run).
/// A bundle that is malformed or unsafe is not an error: it is a failed check.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BundleError {
    /// An I/O operation on a path failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// Building or reading a manifest failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// Writing an output file failed.
    #[error(transparent)]
    Atomic(#[from] crate::atomic::AtomicError),
    /// The run directory is not a directory.
    #[error("{}: not a directory; seal takes a run directory", path.display())]
    NotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// The bundle's root name is not a single safe path component.
    #[error("bundle root name {name:?} is not usable: {reason}; pass --name NAME with a plain directory name")]
    BadRootName {
        /// The name.
        name: String,
        /// Why.
        reason: String,
    },
    /// `SOURCE_DATE_EPOCH` is set but not a usable time.
    #[error("SOURCE_DATE_EPOCH={value:?} is not usable: {reason}; set it to whole seconds since 1970 (0..={MAX_MTIME}) or unset it")]
    BadSourceDateEpoch {
        /// The value.
        value: String,
        /// Why.
        reason: String,
    },
    /// An option is out of range.
    #[error("{0}")]
    BadOption(String),
    /// The output would land inside the directory being sealed.
    #[error("output {} is inside the run directory {}; write the bundle elsewhere so that it does not seal itself", out.display(), run_dir.display())]
    OutputInsideRunDir {
        /// The output path.
        out: PathBuf,
        /// The run directory.
        run_dir: PathBuf,
    },
    /// The run directory holds a top-level MANIFEST that does not list its files.
    #[error("{}: a MANIFEST file is in the run directory but does not match its files (seal writes its own MANIFEST); remove it or bring it up to date with `proofpack manifest`", path.display())]
    StaleManifest {
        /// The MANIFEST file.
        path: PathBuf,
    },
    /// A file changed between hashing and archiving.
    #[error("{}: changed while sealing ({reason}); nothing was written, rerun once the run directory is stable", path.display())]
    ChangedWhileSealing {
        /// The file.
        path: PathBuf,
        /// What differed.
        reason: String,
    },
    /// The unpack destination already holds the bundle's root.
    #[error("{} already exists; unpack never overwrites, remove it or choose another -C directory", path.display())]
    DestinationExists {
        /// The path that exists.
        path: PathBuf,
    },
    /// The run directory holds something that is not a regular file inside
    /// it: the evidence cannot be sealed as it lies (exit 1).
    #[error("{}: cannot be sealed: {}", run_dir.display(), crate::manifest::describe_problems(problems))]
    Unsealable {
        /// The run directory.
        run_dir: PathBuf,
        /// Each offending path (relative to the run) and why.
        problems: Vec<(String, String)>,
    },
    /// The operation was interrupted (SIGINT/SIGTERM); nothing was left.
    #[error(
        "interrupted by a signal; nothing was written (no bundle, sidecar, seal or temporary file)"
    )]
    Interrupted,
    /// An unsigned seal would leave an earlier seal beside other bytes.
    #[error("{} is a seal of an earlier bundle at this path; sealing without --key would leave it beside other bytes, where every verify fails: pass --key to sign the new bundle, or --force to remove the old seal", path.display())]
    StaleSeal {
        /// The old seal file.
        path: PathBuf,
    },
    /// The bundle path is a character device (such as `/dev/zero`), not a
    /// bundle file.
    #[error("{}: a character device, not a bundle file; give the path of the .tgz file", path.display())]
    NotABundleFile {
        /// The path given.
        path: PathBuf,
    },
    /// The bundle `seal` would write exceeds a default reader limit: `verify`
    /// would reject it, so nothing was written (exit 1).
    #[error("{}: not sealed, the bundle would exceed the reader's {limit} limit ({detail}); `verify` with its default limits would reject it, so nothing was written", run_dir.display())]
    ExceedsReaderLimits {
        /// The run directory.
        run_dir: PathBuf,
        /// The limit (`entries`, `entry_bytes`, `total_bytes`, `path_bytes`,
        /// `pax_record_bytes`, `ratio`).
        limit: &'static str,
        /// What exceeded it.
        detail: String,
    },
    /// A seal signature could not be made.
    #[error("cannot sign the seal: {0}")]
    Sign(String),
}

pub(crate) fn io_err(path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> BundleError {
    let path = path.into();
    move |source| BundleError::Io { path, source }
}
