//! The local catalog: a ledger of seals and verifications, named baseline
//! manifests, and a hash cache, in one SQLite file. This file owns the
//! [`Catalog`] handle (opening and creating the file, the connection and its
//! lock), [`CatalogError`], [`OpenOptions`] and the default location; the
//! parts live beside it, each an `impl Catalog` block of its own:
//!
//! - `schema`: the tables, their migrations and the header checks
//!   (`application_id`, `user_version`), run when a catalog is opened;
//! - `ledger`: records of seals and verifications, and the queries that
//!   select them;
//! - `baselines`: manifests stored under a name;
//! - `cache`: the stat-keyed hash cache and its racy-clean rule;
//! - `row`: reading stored values back without trusting them (a crafted or
//!   damaged row is a [`CatalogError::BadRow`] naming it, never a panic),
//!   and [`shown_value`], the bounded form in which they are displayed.
//!
//! # Why it exists, and why it is never the source of truth
//!
//! Release managers and CI want memory: what was sealed, what was verified,
//! when and with what verdict, which manifest is the accepted baseline of a
//! model directory, and no rehashing of terabytes of unchanged shards on
//! every run. All of that is convenience. Nothing proofpack decides depends
//! on the catalog being present or intact: a verdict is always computed from
//! the evidence, and the catalog only records it afterwards. When the catalog
//! is missing, locked for too long, corrupt or of a newer schema, callers get
//! a typed [`CatalogError`] and carry on without it; the binary prints a
//! warning and the exit status is the one the evidence gives.
//!
//! # Concurrency
//!
//! Parallel CI jobs share one catalog file. SQLite in WAL mode lets readers
//! run beside one writer; every write here is a short `BEGIN IMMEDIATE`
//! transaction (taking the write lock up front, so that a transaction never
//! has to upgrade a stale read snapshot, which SQLite would refuse without
//! waiting), and a busy timeout makes a second writer wait instead of
//! failing. A writer that is still locked out after the timeout gets
//! [`CatalogError::Busy`].
//!
//! # The hash cache
//!
//! A [`CacheSession`] implements [`HashCache`](crate::manifest::HashCache)
//! for one root. It vouches for a digest only when the file's stat (device,
//! inode, size, mtime, ctime) is unchanged and both timestamps are more than
//! [`RACY_MARGIN_NS`] older than the moment hashing started ([`is_settled`]);
//! why that is safe is set out in `cache.rs` and in docs/catalog.md.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use rusqlite::{Connection, ErrorCode, OpenFlags};

use crate::manifest::ManifestError;

mod baselines;
mod cache;
mod ledger;
mod row;
mod schema;

pub use baselines::{validate_baseline_name, BaselineInfo, MAX_BASELINE_NAME};
pub use cache::{is_settled, CacheSession, CacheStats, RACY_MARGIN_NS};
pub use ledger::{
    RecordKind, RecordSummary, RunRecord, SealRecord, StoredRecord, VerificationRecord,
};
pub use row::shown_value;
pub use schema::{APPLICATION_ID, SCHEMA_VERSION};

/// How long a writer waits for another process's write lock by default.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(15);

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

/// The default catalog location: `$PROOFPACK_CATALOG`, else
/// `$XDG_DATA_HOME/proofpack/catalog.db` (an absolute `XDG_DATA_HOME` only,
/// as the XDG spec says), else `$HOME/.local/share/proofpack/catalog.db`.
/// `None` when none of these is set.
pub fn default_path() -> Option<PathBuf> {
    let var = |k: &str| {
        std::env::var_os(k)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if let Some(p) = var("PROOFPACK_CATALOG") {
        return Some(p);
    }
    if let Some(x) = var("XDG_DATA_HOME").filter(|p| p.is_absolute()) {
        return Some(x.join("proofpack").join("catalog.db"));
    }
    var("HOME").map(|h| h.join(".local/share/proofpack/catalog.db"))
}

/// Formats a time as RFC 3339 UTC with whole seconds (`2026-11-29T21:58:01Z`).
pub fn rfc3339(t: SystemTime) -> String {
    crate::timefmt::rfc3339_system(t)
}

/// Options for [`Catalog::open_with`].
#[derive(Debug, Clone)]
pub struct OpenOptions {
    /// How long to wait for another process's write lock.
    pub busy_timeout: Duration,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            busy_timeout: DEFAULT_BUSY_TIMEOUT,
        }
    }
}

/// An open catalog. Cheap to share between threads (`&Catalog` is `Sync`).
pub struct Catalog {
    path: PathBuf,
    busy_timeout: Duration,
    conn: Mutex<Connection>,
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog").field("path", &self.path).finish()
    }
}

impl Catalog {
    /// Opens (creating if needed) the catalog at `path` with default options.
    pub fn open(path: &Path) -> Result<Catalog, CatalogError> {
        Self::open_with(path, &OpenOptions::default())
    }

    /// Opens (creating if needed) the catalog at `path`: creates the parent
    /// directory (mode 0700) and the file (mode 0600), switches to WAL,
    /// checks that the file is a proofpack catalog of a schema this version
    /// understands, and migrates an older schema.
    pub fn open_with(path: &Path, opts: &OpenOptions) -> Result<Catalog, CatalogError> {
        let io_err = |p: &Path, source| CatalogError::Io {
            path: p.to_path_buf(),
            source,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            if !parent.is_dir() {
                use std::os::unix::fs::DirBuilderExt;
                fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(parent)
                    .map_err(|e| io_err(parent, e))?;
            }
        }
        match fs::metadata(path) {
            Ok(m) if m.is_dir() => {
                return Err(io_err(
                    path,
                    io::Error::other("is a directory; --catalog takes a file path"),
                ));
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                use std::os::unix::fs::OpenOptionsExt;
                // Create it ourselves so that the mode is 0600 from the start.
                fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(false)
                    .mode(0o600)
                    .open(path)
                    .map_err(|e| io_err(path, e))?;
            }
            Err(e) => return Err(io_err(path, e)),
        }
        // No SQLITE_OPEN_CREATE (the file exists now) and no URI parsing.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags)
            .map_err(|e| sql_err(path, opts.busy_timeout, e))?;
        let cat = Catalog {
            path: path.to_path_buf(),
            busy_timeout: opts.busy_timeout,
            conn: Mutex::new(conn),
        };
        cat.init()?;
        Ok(cat)
    }

    /// Opens the catalog at `path` if the file exists, and `Ok(None)` if it
    /// does not: nothing is created. For the verbs that only read (and the
    /// bookkeeping of read-only verbs: recording a verification, the hash
    /// cache), which must not leave a catalog behind where there was none.
    pub fn open_existing_with(
        path: &Path,
        opts: &OpenOptions,
    ) -> Result<Option<Catalog>, CatalogError> {
        match fs::symlink_metadata(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            _ => Self::open_with(path, opts).map(Some),
        }
    }

    /// The catalog file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn err(&self, e: rusqlite::Error) -> CatalogError {
        sql_err(&self.path, self.busy_timeout, e)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave the connection in a
        // state worse than an aborted transaction, which SQLite rolls back.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The number of rows of one of the catalog's tables.
    fn count_rows(&self, table: &'static str) -> Result<u64, CatalogError> {
        let conn = self.lock();
        let n: i64 = conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        Ok(n as u64)
    }
}

fn sql_err(path: &Path, waited: Duration, e: rusqlite::Error) -> CatalogError {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    #[test]
    fn rfc3339_dates() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_secs(951_782_400)),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(
            rfc3339(UNIX_EPOCH + Duration::from_secs(1_795_989_481)),
            "2026-11-29T21:58:01Z"
        );
    }
}
