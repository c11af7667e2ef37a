//! The [`Catalog`] handle: opening and creating the file, the connection and
//! its lock; [`OpenOptions`] and the default location (re-exported by the
//! module).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use rusqlite::{Connection, OpenFlags};

use super::error::{sql_err, CatalogError};

/// How long a writer waits for another process's write lock by default.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(15);

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
    pub(super) path: PathBuf,
    pub(super) busy_timeout: Duration,
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
            Ok(m) if !m.is_file() => {
                return Err(io_err(
                    path,
                    io::Error::other(
                        "is not a regular file (a device, a FIFO or a socket); a catalog is a file",
                    ),
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

    pub(super) fn err(&self, e: rusqlite::Error) -> CatalogError {
        sql_err(&self.path, self.busy_timeout, e)
    }

    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave the connection in a
        // state worse than an aborted transaction, which SQLite rolls back.
        self.conn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The number of rows of one of the catalog's tables.
    pub(super) fn count_rows(&self, table: &'static str) -> Result<u64, CatalogError> {
        let conn = self.lock();
        let n: i64 = conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        Ok(n as u64)
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
