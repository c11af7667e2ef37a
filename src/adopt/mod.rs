//! From the benchmark people already run to a sealed, published,
//! verifiable result: `run new`, `run import`, `publish`.
//!
//! A release manager holds a result file of `vllm bench serve
//! --save-result --save-detailed` per point. This layer, above the
//! qualification ([`crate::verify`]) and the peer formats
//! ([`crate::peers`]), turns that into a run directory that `seal` and
//! `verify` take as they are:
//! - [`scaffold`]: `run new` writes `qualification.json`, the benchmark
//!   plan and the folders of a run;
//! - [`derive`]: the rules by which a result file's per-request arrays
//!   become client records (with [`clock`], the wall-clock anchor of its
//!   monotonic start times), and [`derive::PeerDeriver`], through which
//!   `verify` derives them again;
//! - [`import`]: `run import --point NAME FILE`, refusing what cannot
//!   become honest records; [`journal`]: `run import --journal`, a router's
//!   request log as the second witness;
//! - [`publish`] with [`writeup`]: the claims computed from the run and the
//!   write-up's tables (and standard sentences) in the layout `verify
//!   --publication` reads.
//!
//! [`runfile`] edits `qualification.json`. Nothing here prints or exits;
//! errors are [`AdoptError`], each an exit 2 for the binary.

pub mod clock;
pub mod derive;
pub mod import;
pub mod journal;
pub mod publish;
pub mod runfile;
pub mod scaffold;
mod sentences;
pub mod writeup;

use std::path::PathBuf;

/// Why an adoption verb could not do its job (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AdoptError {
    /// Bad flags or a request the run cannot take.
    #[error("{0}")]
    Usage(String),
    /// The run directory is not usable as it is.
    #[error("{0}")]
    Run(String),
    /// A file offered for import is refused, and why.
    #[error("{0}")]
    Refused(String),
    /// A result file cannot be read as its format.
    #[error(transparent)]
    Results(#[from] crate::peers::results::ResultsError),
    /// A result file's arrays cannot become client records.
    #[error(transparent)]
    Derive(#[from] derive::DeriveError),
    /// An I/O error.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
}
