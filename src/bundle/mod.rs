//! Sealed qualification bundles (spec section 5): one deterministic `.tgz`
//! per run, verified by streaming and never trusted.
//!
//! A release manager publishes the SHA-256 of one file; an auditor, possibly
//! years later and possibly holding a bundle written by another tool, must be
//! able to check that file without extracting it and without trusting
//! anything inside it. That shapes both halves of this module:
//!
//! * [`seal`] writes bytes that depend on the content only. The MANIFEST
//!   comes first, then the files in manifest order, with normalised headers
//!   (mode 0644, owner 0, empty user and group names, one fixed mtime), PAX
//!   records only where a ustar field cannot hold the value, and a gzip
//!   header without time or name; the deflate data is written in fixed
//!   blocks on every core (pargz.rs), whose bytes do not depend on
//!   the number of threads. The same tree sealed twice, on any machine,
//!   under any umask, gives the same bytes, so the published digest can be
//!   recomputed by anyone holding the files.
//! * [`verify_bundle`] reads the gzip stream once. Every entry is hashed as it
//!   streams past and compared with the MANIFEST, which must come first; the
//!   bundle's own SHA-256 is computed from the raw bytes in the same pass.
//!   The tar parser is written here, not taken from a crate, so that every
//!   rejection rule of the spec and every size limit is under our control and
//!   nothing is ever written to disk. Every problem is a failed check in the
//!   [`Report`](crate::report::Report), named after the entry; `Err` means
//!   only that the tool could not run (the file could not be opened or read).
//! * [`unpack`] is the same verification with a sink that writes entries into
//!   a temporary directory inside the destination; the tree is renamed into
//!   place only when every check passed, so a failed unpack leaves nothing.
//! * [`seal_signed`] also writes the signed seal Statement beside the bundle;
//!   [`verify_seal`] / [`seal_check`] check it under a `release` key and
//!   match its subjects against the bytes actually read.

mod ahead;
mod entries;
mod limits;
mod pargz;
mod read;
mod report;
mod sealsig;
mod source;
mod tar;
mod types;
mod unpack;
mod write;

pub use ahead::read_ahead;
pub use limits::{
    Limits, DEFAULT_MAX_RATIO, ECHOED_PATH_BYTES, MAX_REPORTED_ENTRY_FAILURES, RATIO_BURST_BYTES,
    TRAILING_READ_LIMIT,
};
pub use read::{verify_bundle, verify_bundle_reader};
pub use sealsig::{
    seal_check, seal_path, seal_structure, verify_seal, SealOutcome, SEAL_CHECK_ID,
    SEAL_STRUCTURE_CHECK_ID,
};
pub use types::{
    entry_check_id, limit_check_id, BundleError, BundleVerification, EntryVisitor, SealOptions,
    Sealed, DEFAULT_LEVEL, ENTRY_CHECK_PREFIX, MANIFEST_NAME, MAX_MTIME,
};
pub use unpack::{unpack, unpack_with, UnpackLayout};
pub use write::{
    rfc3339_utc, root_name_for, seal, seal_signed, sealed_at_now, source_date_epoch,
    validate_root_name,
};
