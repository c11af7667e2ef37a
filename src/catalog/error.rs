//! The catalog's error type, and how a SQLite error becomes one (re-exported
//! by the module).

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::ErrorCode;

use crate::manifest::ManifestError;

use super::header::SCHEMA_VERSION;

/// Errors from the catalog. None of them may change a verdict: callers
/// report them and carry on without the catalog.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// A file-system operation on the catalog's path failed.
    #[error("catalog {}: {source}", path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// The file is not a SQLite database, or a page of it is damaged.
    #[error("catalog {}: the file is corrupt or not a SQLite database ({reason}); move it away to start a new catalog, or pass --catalog PATH", path.display())]
    Corrupt {
        /// The catalog file.
        path: PathBuf,
        /// What SQLite said.
        reason: String,
    },
    /// The file is a SQLite database of some other application.
    #[error("catalog {}: this SQLite database is not a proofpack catalog (application_id {found:#x}); pass --catalog PATH to use another file", path.display())]
    NotACatalog {
        /// The file.
        path: PathBuf,
        /// Its application_id.
        found: i32,
    },
    /// The catalog was written by a newer proofpack.
    #[error("catalog {}: schema version {found} was written by a newer proofpack (this one understands up to {SCHEMA_VERSION}); upgrade proofpack or pass --catalog PATH", path.display())]
    NewerSchema {
        /// The file.
        path: PathBuf,
        /// Its schema version.
        found: u32,
    },
    /// Another process held the catalog's write lock for longer than the busy timeout.
    #[error("catalog {}: locked by another process for more than {} ms; try again later", path.display(), waited.as_millis())]
    Busy {
        /// The file.
        path: PathBuf,
        /// How long proofpack waited.
        waited: Duration,
    },
    /// Any other SQLite failure.
    #[error("catalog {}: {source}", path.display())]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// What SQLite said.
        #[source]
        source: rusqlite::Error,
    },
    /// A stored row does not hold what proofpack wrote.
    #[error("catalog {}: {what} is damaged ({reason}); forget it and record it again", path.display())]
    BadRow {
        /// The file.
        path: PathBuf,
        /// Which row.
        what: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A baseline name is not acceptable.
    #[error("invalid baseline name {name:?}: {reason}")]
    BadName {
        /// The name.
        name: String,
        /// Why.
        reason: String,
    },
    /// A digest given to the catalog is malformed.
    #[error("invalid {field}: {reason}")]
    BadDigest {
        /// Which field.
        field: &'static str,
        /// Why.
        reason: String,
    },
    /// Nothing in the catalog matches a query.
    #[error("catalog {}: no record matches {query:?} (see proofpack catalog list)", path.display())]
    NoMatch {
        /// The file.
        path: PathBuf,
        /// The query.
        query: String,
    },
    /// A digest prefix matches records of several different digests.
    #[error("{query:?} is ambiguous: it starts {} different digests; give more characters", candidates.len())]
    Ambiguous {
        /// The query.
        query: String,
        /// The digests it matches.
        candidates: Vec<String>,
    },
    /// The named baseline does not exist.
    #[error("catalog {}: no baseline named {name:?}; restore the catalog that holds it, or import the committed baseline file: proofpack catalog import {name} BASELINE.manifest (recording the tree under test as its own baseline would accept whatever it holds now)", path.display())]
    NoBaseline {
        /// The file.
        path: PathBuf,
        /// The name.
        name: String,
    },
    /// There is no catalog file, so no baseline of that name.
    #[error("catalog {}: does not exist, so there is no baseline named {name:?}; restore the catalog that holds it, or import the committed baseline file: proofpack catalog import {name} BASELINE.manifest", path.display())]
    NoCatalog {
        /// Where the catalog was looked for.
        path: PathBuf,
        /// The name.
        name: String,
    },
    /// A baseline of that name exists and replacing it was not asked for.
    #[error("catalog {}: a baseline named {name:?} exists ({digest}); give --replace to replace it", path.display())]
    BaselineExists {
        /// The file.
        path: PathBuf,
        /// The name.
        name: String,
        /// Its digest (`sha256:<hex>`), or why it cannot be read.
        digest: String,
    },
    /// A baseline's manifest cannot be rendered or read.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
}

impl CatalogError {
    /// True for the errors that mean "the catalog itself is unusable"
    /// (as opposed to a bad query or name).
    pub fn is_unusable(&self) -> bool {
        matches!(
            self,
            CatalogError::Io { .. }
                | CatalogError::Corrupt { .. }
                | CatalogError::NotACatalog { .. }
                | CatalogError::NewerSchema { .. }
                | CatalogError::Busy { .. }
                | CatalogError::Sqlite { .. }
        )
    }
}

/// The catalog error a SQLite error on the catalog at `path` is (`waited`:
/// the busy timeout).
pub(super) fn sql_err(path: &Path, waited: Duration, e: rusqlite::Error) -> CatalogError {
    let path = path.to_path_buf();
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => {
            CatalogError::Busy { path, waited }
        }
        Some(ErrorCode::DatabaseCorrupt) | Some(ErrorCode::NotADatabase) => CatalogError::Corrupt {
            path,
            reason: e.to_string(),
        },
        _ => CatalogError::Sqlite { path, source: e },
    }
}
