//! The catalog's schema: the tables and their migrations, the header that
//! marks a file as a proofpack catalog of a given version, and the checks
//! made when a catalog is opened (foreign and newer files are refused and
//! left untouched; older ones are migrated in one transaction).

use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, TransactionBehavior};

use super::error::CatalogError;
use super::handle::Catalog;
use super::header::{APPLICATION_ID, SCHEMA_VERSION};

/// Migration `i` brings the schema from version `i` to `i + 1`.
const MIGRATIONS: &[&str] = &[
    // 1: the ledger and the baselines.
    "CREATE TABLE records (
        id              INTEGER PRIMARY KEY AUTOINCREMENT,
        kind            TEXT NOT NULL CHECK (kind IN ('seal', 'verify')),
        recorded_at     TEXT NOT NULL,
        tool            TEXT NOT NULL,
        target          TEXT NOT NULL,
        run_name        TEXT,
        bundle_sha256   TEXT,
        manifest_sha256 TEXT,
        pins_sha256     TEXT,
        ok              INTEGER NOT NULL CHECK (ok IN (0, 1)),
        report_json     TEXT NOT NULL
     );
     CREATE INDEX records_bundle ON records(bundle_sha256);
     CREATE INDEX records_manifest ON records(manifest_sha256);
     CREATE INDEX records_run ON records(run_name);
     CREATE TABLE baselines (
        name            TEXT PRIMARY KEY,
        manifest_sha256 TEXT NOT NULL,
        files           INTEGER NOT NULL,
        bytes           INTEGER,
        format          TEXT NOT NULL CHECK (format IN ('json', 'canonical')),
        body            BLOB NOT NULL,
        source          TEXT NOT NULL,
        recorded_at     TEXT NOT NULL,
        tool            TEXT NOT NULL
     );",
    // 2: the hash cache.
    "CREATE TABLE hash_cache (
        path        BLOB PRIMARY KEY,
        dev         INTEGER NOT NULL,
        ino         INTEGER NOT NULL,
        size        INTEGER NOT NULL,
        mtime_ns    INTEGER NOT NULL,
        ctime_ns    INTEGER NOT NULL,
        sha256      BLOB NOT NULL,
        recorded_ns INTEGER NOT NULL
     ) WITHOUT ROWID;",
    // 3: a baseline's body is the last column, so that SQLite stores the
    // zero blob of a streamed import without building the row whole (as it
    // does for a blob followed by other columns). The rows are copied as
    // they are.
    "CREATE TABLE baselines_v3 (
        name            TEXT PRIMARY KEY,
        manifest_sha256 TEXT NOT NULL,
        files           INTEGER NOT NULL,
        bytes           INTEGER,
        format          TEXT NOT NULL CHECK (format IN ('json', 'canonical')),
        source          TEXT NOT NULL,
        recorded_at     TEXT NOT NULL,
        tool            TEXT NOT NULL,
        body            BLOB NOT NULL
     );
     INSERT INTO baselines_v3 (name, manifest_sha256, files, bytes, format, source, recorded_at, tool, body)
        SELECT name, manifest_sha256, files, bytes, format, source, recorded_at, tool, body FROM baselines;
     DROP TABLE baselines;
     ALTER TABLE baselines_v3 RENAME TO baselines;",
];

impl Catalog {
    pub(super) fn init(&self) -> Result<(), CatalogError> {
        let mut conn = self.lock();
        conn.busy_timeout(self.busy_timeout)
            .map_err(|e| self.err(e))?;
        // Look before touching: a newer or foreign file is left as it is.
        let version = self.check_header(&conn)?;
        // Switching to WAL needs a moment of exclusive access, which SQLite
        // does not always wait for; retry until the busy timeout.
        let deadline = Instant::now() + self.busy_timeout;
        loop {
            match conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0)) {
                // A file system without shared memory keeps the rollback
                // journal, which is just as safe, only slower to share.
                Ok(_) => break,
                Err(e) if is_busy(&e) && Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                Err(e) => return Err(self.err(e)),
            }
        }
        conn.execute_batch("PRAGMA synchronous=NORMAL")
            .map_err(|e| self.err(e))?;
        if version < SCHEMA_VERSION {
            let tx = conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(|e| self.err(e))?;
            // Another process may have migrated while we waited for the lock.
            let version = self.check_header(&tx)?;
            for (i, sql) in MIGRATIONS.iter().enumerate().skip(version as usize) {
                tx.execute_batch(sql).map_err(|e| self.err(e))?;
                tx.pragma_update(None, "user_version", (i + 1) as i64)
                    .map_err(|e| self.err(e))?;
            }
            tx.pragma_update(None, "application_id", APPLICATION_ID)
                .map_err(|e| self.err(e))?;
            tx.commit().map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Reads application_id and user_version; rejects foreign and newer files.
    /// The reads share one snapshot: read one by one, they could straddle
    /// another process's first migration and see its application_id unset
    /// but its tables present, and call a fresh catalog foreign.
    fn check_header(&self, conn: &Connection) -> Result<u32, CatalogError> {
        if !conn.is_autocommit() {
            return self.read_header(conn);
        }
        conn.execute_batch("BEGIN DEFERRED")
            .map_err(|e| self.err(e))?;
        let header = self.read_header(conn);
        let end = conn.execute_batch(if header.is_ok() { "COMMIT" } else { "ROLLBACK" });
        let version = header?;
        end.map_err(|e| self.err(e))?;
        Ok(version)
    }

    fn read_header(&self, conn: &Connection) -> Result<u32, CatalogError> {
        let app: i32 = conn
            .query_row("PRAGMA application_id", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if app != APPLICATION_ID {
            let tables: i64 = conn
                .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
                .map_err(|e| self.err(e))?;
            if app != 0 || tables != 0 || version != 0 {
                return Err(CatalogError::NotACatalog {
                    path: self.path.clone(),
                    found: app,
                });
            }
        }
        let version = u32::try_from(version).unwrap_or(u32::MAX);
        if version > SCHEMA_VERSION {
            return Err(CatalogError::NewerSchema {
                path: self.path.clone(),
                found: version,
            });
        }
        Ok(version)
    }

    /// The schema version of the open file.
    pub fn schema_version(&self) -> Result<u32, CatalogError> {
        let conn = self.lock();
        let v: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        Ok(v as u32)
    }

    /// Runs SQLite's `PRAGMA integrity_check`; `Ok(())` when it says "ok".
    pub fn integrity_check(&self) -> Result<(), CatalogError> {
        let conn = self.lock();
        let mut st = conn
            .prepare("PRAGMA integrity_check")
            .map_err(|e| self.err(e))?;
        let rows: Vec<String> = st
            .query_map([], |r| r.get(0))
            .and_then(|it| it.collect())
            .map_err(|e| self.err(e))?;
        if rows == ["ok"] {
            Ok(())
        } else {
            Err(CatalogError::Corrupt {
                path: self.path.clone(),
                reason: rows.join("; "),
            })
        }
    }
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked)
    )
}
