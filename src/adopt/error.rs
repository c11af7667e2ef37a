//! Why adoption could not do its job.

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
    Derive(#[from] super::derive::DeriveError),
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
