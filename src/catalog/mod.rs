//! The local catalog: a ledger of seals and verifications, named baseline
//! manifests, and a hash cache, in one SQLite file.
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
//! # The hash cache and the racy-clean rule
//!
//! A [`CacheSession`] implements [`HashCache`] for one root. An entry keyed by
//! the file's absolute path holds the stat facts (device, inode, size, mtime
//! and ctime in nanoseconds), the digest, and `recorded_ns`: the wall clock
//! read just before the file's content was first read. The cache vouches for
//! a digest only when
//!
//! 1. the file's current stat equals the stored one in all five fields, and
//! 2. the stored mtime **and** ctime are both more than [`RACY_MARGIN_NS`]
//!    (3 s) older than `recorded_ns`;
//!
//! and an entry is stored only when the stat taken when the file was found
//! equals the stat taken after hashing (the file did not change while it was
//! read) and rule 2 already holds.
//!
//! Why this is safe: any write to a file's content sets its mtime and ctime
//! to the kernel's current time, truncated to the file system's timestamp
//! granularity (1 ns on ext4/XFS/btrfs, 1 s on ext3 and HFS+, 2 s on FAT)
//! and possibly lagging the wall clock by one timer tick. So a write that
//! happens after `recorded_ns` leaves a ctime of at least `recorded_ns - 3 s`
//! (for any granularity up to 2 s plus a second of lag or clock skew), which
//! cannot equal a stored ctime that is older than that. Hence, if the stored
//! stat satisfies rule 2, no write happened between the start of hashing and
//! the post-hash stat (the content hashed is the content the stat
//! describes), and any later write changes the ctime, so rule 1 fails and
//! the file is rehashed. This is git's "racy clean" rule made stricter: git
//! compares mtime with the index file's mtime; here both timestamps are
//! compared against the moment hashing started, with a margin that covers
//! coarse file systems. ctime matters because nobody but the kernel can set
//! it: `touch -d` or a tool restoring mtimes can fake an unchanged mtime,
//! not an unchanged ctime. A file modified in the last 3 s before hashing
//! is simply not cached and gets hashed again next time.
//!
//! What the rule assumes (the same as git, make and rsync): the clock that
//! stamps the files (the file server's, for NFS) agrees with this machine's
//! within about a second, and is not set back between runs; the file system
//! updates ctime on every content change. Where that cannot be assumed,
//! `--no-cache` or `check --full` rehash everything, and `verify` of a
//! bundle never uses the cache.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{params, Connection, ErrorCode, OpenFlags, OptionalExtension, TransactionBehavior};
use serde::Serialize;

use crate::digest::Sha256Digest;
use crate::manifest::{FileStat, Format, FoundFile, HashCache, Manifest, ManifestError};

/// The schema version this proofpack writes (SQLite `user_version`).
pub const SCHEMA_VERSION: u32 = 2;

/// SQLite `application_id` of a proofpack catalog ("PPKC").
pub const APPLICATION_ID: i32 = 0x5050_4B43;

/// How long a writer waits for another process's write lock by default.
pub const DEFAULT_BUSY_TIMEOUT: Duration = Duration::from_secs(15);

/// Both timestamps of a cached file must be this much older than the moment
/// its hashing started (see the module documentation).
pub const RACY_MARGIN_NS: i128 = 3_000_000_000;

/// Longest baseline name.
pub const MAX_BASELINE_NAME: usize = 128;

/// Cache entries written per transaction while hashing.
const CACHE_BATCH: usize = 2048;

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
];

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
    #[error("catalog {}: no baseline named {name:?} (record one with: proofpack manifest DIR --record {name})", path.display())]
    NoBaseline {
        /// The file.
        path: PathBuf,
        /// The name.
        name: String,
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

fn unix_ns(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

/// Checks a baseline name: 1 to 128 characters from `A-Z a-z 0-9 . _ - + @ /`,
/// starting with a letter or digit, no `..` and no trailing `/` (so that a
/// name is also a safe file name stem and reads well after `catalog:`).
pub fn validate_baseline_name(name: &str) -> Result<(), CatalogError> {
    let bad = |reason: &str| {
        Err(CatalogError::BadName {
            name: name.to_string(),
            reason: reason.to_string(),
        })
    };
    if name.is_empty() || name.len() > MAX_BASELINE_NAME {
        return bad("must be 1 to 128 characters");
    }
    if !name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric())
    {
        return bad("must start with a letter or digit");
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || "._-+@/".contains(*c)))
    {
        return bad(&format!(
            "{c:?} is not allowed (use letters, digits and . _ - + @ /)"
        ));
    }
    if name.contains("..") || name.ends_with('/') || name.contains("//") {
        return bad("no '..', '//' or trailing '/'");
    }
    Ok(())
}

/// Normalises a digest given by a caller (bare hex of either case, or
/// `sha256:<hex>`) to bare lowercase hex.
fn norm_digest(field: &'static str, v: &Option<String>) -> Result<Option<String>, CatalogError> {
    let Some(s) = v else { return Ok(None) };
    let d = match s.strip_prefix("sha256:") {
        Some(hex) => Sha256Digest::parse_hex(hex),
        None => Sha256Digest::parse_hex(s),
    }
    .map_err(|e| CatalogError::BadDigest {
        field,
        reason: e.to_string(),
    })?;
    Ok(Some(d.to_hex()))
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

/// What kind of event a record is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RecordKind {
    /// `proofpack seal`.
    Seal,
    /// `proofpack verify`.
    Verify,
}

impl RecordKind {
    /// The name stored and printed.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::Seal => "seal",
            RecordKind::Verify => "verify",
        }
    }
    fn parse(s: &str) -> Option<Self> {
        match s {
            "seal" => Some(RecordKind::Seal),
            "verify" => Some(RecordKind::Verify),
            _ => None,
        }
    }
}

/// What `proofpack seal` and `proofpack verify` record. Build it with
/// struct update syntax:
/// `RunRecord { target, bundle_sha256: Some(..), report_json, ..Default::default() }`.
#[derive(Debug, Clone)]
pub struct RunRecord {
    /// What was sealed or verified (the bundle or run directory path as given).
    pub target: String,
    /// SHA-256 of the .tgz (bare hex or `sha256:<hex>`), for a bundle.
    pub bundle_sha256: Option<String>,
    /// SHA-256 of the bundle's MANIFEST.
    pub manifest_sha256: Option<String>,
    /// The qualification's name.
    pub run_name: Option<String>,
    /// SHA-256 of the pins file given, if any.
    pub pins_sha256: Option<String>,
    /// True when the seal succeeded or the evidence holds.
    pub ok: bool,
    /// The full JSON report that the verb prints with `--json`.
    pub report_json: String,
    /// Tool and version (defaults to [`crate::TOOL`]).
    pub tool: String,
    /// When it happened (defaults to now).
    pub time: SystemTime,
}

impl Default for RunRecord {
    fn default() -> Self {
        RunRecord {
            target: String::new(),
            bundle_sha256: None,
            manifest_sha256: None,
            run_name: None,
            pins_sha256: None,
            ok: true,
            report_json: "{}".into(),
            tool: crate::TOOL.into(),
            time: SystemTime::now(),
        }
    }
}

/// What `proofpack seal` records.
pub type SealRecord = RunRecord;
/// What `proofpack verify` records.
pub type VerificationRecord = RunRecord;

/// A record as stored, without its report (for listings).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecordSummary {
    /// Record id (`id:N` in queries).
    pub id: i64,
    /// Seal or verify.
    pub kind: RecordKind,
    /// When (RFC 3339 UTC).
    pub time: String,
    /// Tool and version that wrote it.
    pub tool: String,
    /// What was sealed or verified.
    pub target: String,
    /// The qualification's name.
    pub run_name: Option<String>,
    /// Bundle digest (bare hex).
    pub bundle_sha256: Option<String>,
    /// MANIFEST digest (bare hex).
    pub manifest_sha256: Option<String>,
    /// Pins digest (bare hex).
    pub pins_sha256: Option<String>,
    /// The verdict.
    pub ok: bool,
}

/// A record with its stored report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredRecord {
    /// The listing fields.
    pub summary: RecordSummary,
    /// The JSON report exactly as recorded.
    pub report_json: String,
}

/// A baseline as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BaselineInfo {
    /// Its name (`catalog:NAME`).
    pub name: String,
    /// The manifest digest, `sha256:<hex>`.
    pub digest: String,
    /// Number of files.
    pub files: u64,
    /// Total bytes, when the manifest carries sizes.
    pub bytes: Option<u64>,
    /// What it was recorded from.
    pub source: String,
    /// When (RFC 3339 UTC).
    pub time: String,
    /// Tool and version that recorded it.
    pub tool: String,
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

/// A parsed `show`/`forget` query.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Query {
    Id(i64),
    Digest(String),
    Prefix(String),
    Name(String),
}

fn parse_query(q: &str) -> Result<Query, CatalogError> {
    if let Some(n) = q.strip_prefix("id:") {
        return n
            .parse()
            .map(Query::Id)
            .map_err(|_| CatalogError::BadDigest {
                field: "record id",
                reason: format!("{q:?}: expected id:<number>"),
            });
    }
    if let Some(hex) = q.strip_prefix("sha256:") {
        let d = Sha256Digest::parse_hex(hex).map_err(|e| CatalogError::BadDigest {
            field: "digest",
            reason: e.to_string(),
        })?;
        return Ok(Query::Digest(d.to_hex()));
    }
    let is_hex = !q.is_empty() && q.bytes().all(|b| b.is_ascii_hexdigit());
    if is_hex && q.len() == 64 {
        return Ok(Query::Digest(q.to_ascii_lowercase()));
    }
    if is_hex && q.len() >= 8 && q.len() < 64 {
        return Ok(Query::Prefix(q.to_ascii_lowercase()));
    }
    Ok(Query::Name(q.to_string()))
}

const RECORD_COLUMNS: &str = "id, kind, recorded_at, tool, target, run_name, bundle_sha256, manifest_sha256, pins_sha256, ok";

fn summary_from_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<(RecordSummary, String)> {
    let kind: String = r.get(1)?;
    Ok((
        RecordSummary {
            id: r.get(0)?,
            kind: RecordKind::parse(&kind).unwrap_or(RecordKind::Verify),
            time: r.get(2)?,
            tool: r.get(3)?,
            target: r.get(4)?,
            run_name: r.get(5)?,
            bundle_sha256: r.get(6)?,
            manifest_sha256: r.get(7)?,
            pins_sha256: r.get(8)?,
            ok: r.get::<_, i64>(9)? == 1,
        },
        kind,
    ))
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

    fn init(&self) -> Result<(), CatalogError> {
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

    fn insert_record(&self, kind: RecordKind, r: &RunRecord) -> Result<i64, CatalogError> {
        let bundle = norm_digest("bundle_sha256", &r.bundle_sha256)?;
        let manifest = norm_digest("manifest_sha256", &r.manifest_sha256)?;
        let pins = norm_digest("pins_sha256", &r.pins_sha256)?;
        let (target, run_name, ok, report_json, tool) =
            (&r.target, &r.run_name, r.ok, &r.report_json, &r.tool);
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        tx.execute(
            "INSERT INTO records (kind, recorded_at, tool, target, run_name, bundle_sha256, manifest_sha256, pins_sha256, ok, report_json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![kind.as_str(), rfc3339(r.time), tool, target, run_name, bundle, manifest, pins, ok as i64, report_json],
        )
        .map_err(|e| self.err(e))?;
        let id = tx.last_insert_rowid();
        tx.commit().map_err(|e| self.err(e))?;
        Ok(id)
    }

    /// Records a seal; returns the record id.
    pub fn record_seal(&self, r: &SealRecord) -> Result<i64, CatalogError> {
        self.insert_record(RecordKind::Seal, r)
    }

    /// Records a verification; returns the record id.
    pub fn record_verification(&self, r: &VerificationRecord) -> Result<i64, CatalogError> {
        self.insert_record(RecordKind::Verify, r)
    }

    /// All records, newest first (at most `limit` when given).
    pub fn list(&self, limit: Option<usize>) -> Result<Vec<RecordSummary>, CatalogError> {
        let conn = self.lock();
        let sql = format!("SELECT {RECORD_COLUMNS} FROM records ORDER BY id DESC LIMIT ?1");
        let limit = limit.map(|l| l.min(i64::MAX as usize) as i64).unwrap_or(-1);
        let mut st = conn.prepare(&sql).map_err(|e| self.err(e))?;
        let rows = st
            .query_map([limit], summary_from_row)
            .and_then(|it| it.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.err(e))?;
        rows.into_iter()
            .map(|(s, kind)| self.checked_kind(s, &kind))
            .collect()
    }

    fn checked_kind(&self, s: RecordSummary, kind: &str) -> Result<RecordSummary, CatalogError> {
        if RecordKind::parse(kind).is_none() {
            return Err(CatalogError::BadRow {
                path: self.path.clone(),
                what: format!("record id:{}", s.id),
                reason: format!("unknown kind {kind:?}"),
            });
        }
        Ok(s)
    }

    /// Ids of the records a query selects, newest first.
    fn select_ids(&self, conn: &Connection, query: &str) -> Result<Vec<i64>, CatalogError> {
        let q = parse_query(query)?;
        let collect = |sql: &str, p: &dyn rusqlite::ToSql| -> Result<Vec<i64>, CatalogError> {
            let mut st = conn.prepare(sql).map_err(|e| self.err(e))?;
            let ids = st
                .query_map([p], |r| r.get(0))
                .and_then(|it| it.collect::<Result<Vec<i64>, _>>())
                .map_err(|e| self.err(e))?;
            Ok(ids)
        };
        let by_name = |name: &str| {
            collect(
                "SELECT id FROM records WHERE run_name = ?1 OR target = ?1 ORDER BY id DESC",
                &name,
            )
        };
        match q {
            Query::Id(id) => collect("SELECT id FROM records WHERE id = ?1", &id),
            Query::Digest(d) => collect(
                "SELECT id FROM records WHERE bundle_sha256 = ?1 OR manifest_sha256 = ?1 ORDER BY id DESC",
                &d,
            ),
            Query::Prefix(p) => {
                let mut st = conn
                    .prepare(
                        "SELECT id, bundle_sha256, manifest_sha256 FROM records
                         WHERE substr(bundle_sha256, 1, length(?1)) = ?1 OR substr(manifest_sha256, 1, length(?1)) = ?1
                         ORDER BY id DESC",
                    )
                    .map_err(|e| self.err(e))?;
                let rows = st
                    .query_map([&p], |r| {
                        Ok((r.get::<_, i64>(0)?, r.get::<_, Option<String>>(1)?, r.get::<_, Option<String>>(2)?))
                    })
                    .and_then(|it| it.collect::<Result<Vec<_>, _>>())
                    .map_err(|e| self.err(e))?;
                let mut digests: Vec<String> = rows
                    .iter()
                    .flat_map(|(_, b, m)| [b.clone(), m.clone()])
                    .flatten()
                    .filter(|d| d.starts_with(&p))
                    .collect();
                digests.sort();
                digests.dedup();
                if digests.len() > 1 {
                    return Err(CatalogError::Ambiguous {
                        query: query.to_string(),
                        candidates: digests,
                    });
                }
                if rows.is_empty() {
                    // An all-hex run name is still a name.
                    return by_name(query);
                }
                Ok(rows.into_iter().map(|r| r.0).collect())
            }
            Query::Name(n) => by_name(&n),
        }
    }

    /// The records a query selects, newest first, with their reports.
    /// A query is `id:N`, a digest (`sha256:<hex>` or 64 hex) of a bundle or
    /// MANIFEST, a digest prefix of at least 8 hex characters, or a run name
    /// (or the target path as recorded). No match is [`CatalogError::NoMatch`].
    pub fn find(&self, query: &str) -> Result<Vec<StoredRecord>, CatalogError> {
        let conn = self.lock();
        let ids = self.select_ids(&conn, query)?;
        if ids.is_empty() {
            return Err(CatalogError::NoMatch {
                path: self.path.clone(),
                query: query.to_string(),
            });
        }
        let sql = format!("SELECT {RECORD_COLUMNS}, report_json FROM records WHERE id = ?1");
        let mut st = conn.prepare(&sql).map_err(|e| self.err(e))?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            let (s, kind, report) = st
                .query_row([id], |r| {
                    let (s, kind) = summary_from_row(r)?;
                    Ok((s, kind, r.get::<_, String>(10)?))
                })
                .map_err(|e| self.err(e))?;
            out.push(StoredRecord {
                summary: self.checked_kind(s, &kind)?,
                report_json: report,
            });
        }
        Ok(out)
    }

    /// The newest record a query selects (see [`Catalog::find`]).
    pub fn show(&self, query: &str) -> Result<StoredRecord, CatalogError> {
        Ok(self.find(query)?.remove(0))
    }

    /// Deletes every record each query selects, all or nothing: if any
    /// query matches nothing, nothing is deleted. Returns how many went.
    pub fn forget(&self, queries: &[String]) -> Result<usize, CatalogError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let mut ids = Vec::new();
        for q in queries {
            let found = self.select_ids(&tx, q)?;
            if found.is_empty() {
                return Err(CatalogError::NoMatch {
                    path: self.path.clone(),
                    query: q.clone(),
                });
            }
            ids.extend(found);
        }
        ids.sort_unstable();
        ids.dedup();
        for id in &ids {
            tx.execute("DELETE FROM records WHERE id = ?1", [id])
                .map_err(|e| self.err(e))?;
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(ids.len())
    }

    /// Stores `manifest` as the baseline `name`, replacing any earlier one;
    /// returns the digest of the baseline it replaced. `source` says what it
    /// was recorded from (a path), for listings.
    pub fn put_baseline(
        &self,
        name: &str,
        manifest: &Manifest,
        source: &str,
    ) -> Result<Option<Sha256Digest>, CatalogError> {
        validate_baseline_name(name)?;
        let (format, body) = if manifest.has_sizes() {
            ("json", manifest.to_json_record()?)
        } else {
            ("canonical", manifest.canonical_text())
        };
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let old: Option<String> = tx
            .query_row(
                "SELECT manifest_sha256 FROM baselines WHERE name = ?1",
                [name],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        tx.execute(
            "INSERT OR REPLACE INTO baselines (name, manifest_sha256, files, bytes, format, body, source, recorded_at, tool)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                name,
                manifest.digest().to_hex(),
                manifest.len() as i64,
                manifest.total_bytes().map(|b| b as i64),
                format,
                body.as_bytes(),
                source,
                rfc3339(SystemTime::now()),
                crate::TOOL
            ],
        )
        .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(old.and_then(|h| Sha256Digest::parse_hex(&h).ok()))
    }

    /// The baseline `name`, if there is one. Its stored digest is checked
    /// against its entries, so a damaged row is an error, never a wrong
    /// baseline.
    pub fn get_baseline(&self, name: &str) -> Result<Option<Manifest>, CatalogError> {
        let conn = self.lock();
        let row: Option<(String, String, Vec<u8>)> = conn
            .query_row(
                "SELECT manifest_sha256, format, body FROM baselines WHERE name = ?1",
                [name],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(|e| self.err(e))?;
        drop(conn);
        let Some((digest, format, body)) = row else {
            return Ok(None);
        };
        let bad = |reason: String| CatalogError::BadRow {
            path: self.path.clone(),
            what: format!("baseline {name:?}"),
            reason,
        };
        let format = match format.as_str() {
            "json" => Format::Json,
            "canonical" => Format::Canonical,
            other => return Err(bad(format!("unknown format {other:?}"))),
        };
        let (m, _) = Manifest::parse(&body, Some(format), &format!("catalog:{name}"))
            .map_err(|e| bad(e.to_string()))?;
        if m.digest().to_hex() != digest {
            return Err(bad(format!(
                "its entries give {} but the recorded digest is sha256:{digest}",
                m.digest().prefixed()
            )));
        }
        Ok(Some(m))
    }

    /// Like [`Catalog::get_baseline`], but a missing name is an error.
    pub fn require_baseline(&self, name: &str) -> Result<Manifest, CatalogError> {
        self.get_baseline(name)?
            .ok_or_else(|| CatalogError::NoBaseline {
                path: self.path.clone(),
                name: name.to_string(),
            })
    }

    /// The baseline `name` written as a plain manifest file in `format`
    /// (JSON needs sizes, i.e. a baseline recorded from a directory).
    pub fn export_baseline(&self, name: &str, format: Format) -> Result<String, CatalogError> {
        Ok(self.require_baseline(name)?.render(format)?)
    }

    /// All baselines, by name.
    pub fn baselines(&self) -> Result<Vec<BaselineInfo>, CatalogError> {
        let conn = self.lock();
        let mut st = conn
            .prepare("SELECT name, manifest_sha256, files, bytes, source, recorded_at, tool FROM baselines ORDER BY name")
            .map_err(|e| self.err(e))?;
        let rows = st
            .query_map([], |r| {
                Ok(BaselineInfo {
                    name: r.get(0)?,
                    digest: format!("sha256:{}", r.get::<_, String>(1)?),
                    files: r.get::<_, i64>(2)? as u64,
                    bytes: r.get::<_, Option<i64>>(3)?.map(|b| b as u64),
                    source: r.get(4)?,
                    time: r.get(5)?,
                    tool: r.get(6)?,
                })
            })
            .and_then(|it| it.collect::<Result<Vec<_>, _>>())
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    /// Deletes a baseline; false if there was none of that name.
    pub fn forget_baseline(&self, name: &str) -> Result<bool, CatalogError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let n = tx
            .execute("DELETE FROM baselines WHERE name = ?1", [name])
            .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(n > 0)
    }

    /// Number of hash-cache entries.
    pub fn cache_len(&self) -> Result<u64, CatalogError> {
        let conn = self.lock();
        let n: i64 = conn
            .query_row("SELECT count(*) FROM hash_cache", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        Ok(n as u64)
    }

    /// Drops hash-cache entries: all of them, or those for files under
    /// `under` (a directory or a file). Returns how many went.
    pub fn forget_cache(&self, under: Option<&Path>) -> Result<u64, CatalogError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let n = match under {
            None => tx.execute("DELETE FROM hash_cache", []),
            Some(p) => {
                let canon = fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
                let exact = canon.as_os_str().as_bytes().to_vec();
                let (lo, hi) = prefix_range(&exact);
                tx.execute(
                    "DELETE FROM hash_cache WHERE path = ?1 OR (path >= ?2 AND path < ?3)",
                    params![exact, lo, hi],
                )
            }
        }
        .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(n as u64)
    }

    /// Starts a hash-cache session for building manifests of `root` (the
    /// same path later given to `manifest::build`/`check`). Loads the cached
    /// rows under the root once, so lookups take no lock. With `lookups`
    /// false the session only stores (`check --full`: rehash everything but
    /// refresh the cache).
    pub fn hash_cache(&self, root: &Path, lookups: bool) -> Result<CacheSession<'_>, CatalogError> {
        let canon = fs::canonicalize(root).map_err(|e| CatalogError::Io {
            path: root.to_path_buf(),
            source: e,
        })?;
        let single_file = fs::metadata(&canon).map(|m| m.is_file()).unwrap_or(false);
        let mut prefix = canon.as_os_str().as_bytes().to_vec();
        let mut known = HashMap::new();
        if lookups {
            let conn = self.lock();
            let sql = "SELECT path, dev, ino, size, mtime_ns, ctime_ns, sha256, recorded_ns FROM hash_cache";
            let mut rows: Vec<(Vec<u8>, CacheRow)> = Vec::new();
            let map = |r: &rusqlite::Row<'_>| -> rusqlite::Result<Option<(Vec<u8>, CacheRow)>> {
                let sha: Vec<u8> = r.get(6)?;
                let Ok(sha) = <[u8; 32]>::try_from(sha.as_slice()) else {
                    return Ok(None);
                };
                Ok(Some((
                    r.get(0)?,
                    CacheRow {
                        stat: FileStat {
                            dev: r.get::<_, i64>(1)? as u64,
                            ino: r.get::<_, i64>(2)? as u64,
                            size: r.get::<_, i64>(3)? as u64,
                            mtime_ns: r.get::<_, i64>(4)? as i128,
                            ctime_ns: r.get::<_, i64>(5)? as i128,
                        },
                        sha256: Sha256Digest(sha),
                        recorded_ns: r.get::<_, i64>(7)? as i128,
                    },
                )))
            };
            let res = if single_file {
                conn.prepare(&format!("{sql} WHERE path = ?1"))
                    .and_then(|mut st| st.query_map([&prefix], map)?.collect::<Result<Vec<_>, _>>())
            } else {
                let (lo, hi) = prefix_range(&prefix);
                conn.prepare(&format!("{sql} WHERE path >= ?1 AND path < ?2"))
                    .and_then(|mut st| {
                        st.query_map(params![lo, hi], map)?
                            .collect::<Result<Vec<_>, _>>()
                    })
            };
            rows.extend(res.map_err(|e| self.err(e))?.into_iter().flatten());
            let skip = if single_file {
                prefix.len()
            } else {
                prefix_range(&prefix).0.len()
            };
            for (path, row) in rows {
                if let Ok(rel) = std::str::from_utf8(&path[skip..]) {
                    known.insert(rel.to_string(), row);
                }
            }
        }
        if !single_file {
            prefix = prefix_range(&prefix).0;
        }
        Ok(CacheSession {
            catalog: self,
            prefix,
            single_file,
            known,
            lookups,
            pending: Mutex::new(Vec::new()),
            failed: AtomicBool::new(false),
            error: Mutex::new(None),
            looked_up: AtomicU64::new(0),
            hits: AtomicU64::new(0),
            stored: AtomicU64::new(0),
            too_recent: AtomicU64::new(0),
            changed: AtomicU64::new(0),
        })
    }

    fn write_cache_rows(&self, rows: &[(Vec<u8>, CacheRow)]) -> Result<(), CatalogError> {
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        {
            let mut st = tx
                .prepare_cached(
                    "INSERT OR REPLACE INTO hash_cache (path, dev, ino, size, mtime_ns, ctime_ns, sha256, recorded_ns)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(|e| self.err(e))?;
            for (path, r) in rows {
                st.execute(params![
                    path,
                    r.stat.dev as i64,
                    r.stat.ino as i64,
                    r.stat.size as i64,
                    r.stat.mtime_ns as i64,
                    r.stat.ctime_ns as i64,
                    &r.sha256.0[..],
                    r.recorded_ns as i64
                ])
                .map_err(|e| self.err(e))?;
            }
        }
        tx.commit().map_err(|e| self.err(e))
    }
}

/// `[dir/, dir0)`: the byte range of paths strictly under `dir` (`0` is
/// the byte after `/`).
fn prefix_range(dir: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let mut lo = dir.to_vec();
    if lo.last() != Some(&b'/') {
        lo.push(b'/');
    }
    let mut hi = lo.clone();
    *hi.last_mut().expect("non-empty") = b'/' + 1;
    (lo, hi)
}

fn is_busy(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked)
    )
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

/// One cached digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CacheRow {
    stat: FileStat,
    sha256: Sha256Digest,
    recorded_ns: i128,
}

/// The racy-clean rule's second half: both timestamps are more than
/// [`RACY_MARGIN_NS`] older than `recorded_ns`, the moment hashing started.
pub fn is_settled(stat: &FileStat, recorded_ns: i128) -> bool {
    let limit = recorded_ns - RACY_MARGIN_NS;
    stat.mtime_ns < limit && stat.ctime_ns < limit
}

/// Counters of one [`CacheSession`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct CacheStats {
    /// Files asked about.
    pub looked_up: u64,
    /// Files whose digest came from the cache.
    pub hits: u64,
    /// New or refreshed entries written.
    pub stored: u64,
    /// Hashed but not cached: modified less than the racy margin before hashing.
    pub too_recent: u64,
    /// Hashed but not cached: the file's stat changed while it was hashed.
    pub changed: u64,
}

/// A hash cache bound to one root, backed by the catalog. Rayon threads call
/// it concurrently: lookups read a map loaded once; stores are queued and
/// written in batches, one transaction each.
pub struct CacheSession<'c> {
    catalog: &'c Catalog,
    /// The canonical root with a trailing `/` (directory), or the canonical
    /// file path (single-file root).
    prefix: Vec<u8>,
    single_file: bool,
    known: HashMap<String, CacheRow>,
    lookups: bool,
    pending: Mutex<Vec<(Vec<u8>, CacheRow)>>,
    failed: AtomicBool,
    error: Mutex<Option<CatalogError>>,
    looked_up: AtomicU64,
    hits: AtomicU64,
    stored: AtomicU64,
    too_recent: AtomicU64,
    changed: AtomicU64,
}

impl CacheSession<'_> {
    fn key(&self, file: &FoundFile) -> Vec<u8> {
        if self.single_file {
            self.prefix.clone()
        } else {
            let mut k = self.prefix.clone();
            k.extend_from_slice(file.rel.as_bytes());
            k
        }
    }

    fn flush(&self) {
        let batch = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|p| p.into_inner()));
        if batch.is_empty() || self.failed.load(Ordering::Relaxed) {
            return;
        }
        match self.catalog.write_cache_rows(&batch) {
            Ok(()) => {
                self.stored.fetch_add(batch.len() as u64, Ordering::Relaxed);
            }
            Err(e) => {
                // One failure (locked, disk full, corrupt) turns the cache
                // off for the rest of the run rather than waiting again.
                self.failed.store(true, Ordering::Relaxed);
                let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
                slot.get_or_insert(e);
            }
        }
    }

    /// Writes what is still queued and returns the counters, or the first
    /// error that stopped the cache from being written (the manifest built
    /// with it is still right: a failed store only means a later rehash).
    pub fn finish(self) -> Result<CacheStats, CatalogError> {
        self.flush();
        let err = self.error.lock().unwrap_or_else(|p| p.into_inner()).take();
        match err {
            Some(e) => Err(e),
            None => Ok(self.stats()),
        }
    }

    /// The counters so far.
    pub fn stats(&self) -> CacheStats {
        CacheStats {
            looked_up: self.looked_up.load(Ordering::Relaxed),
            hits: self.hits.load(Ordering::Relaxed),
            stored: self.stored.load(Ordering::Relaxed),
            too_recent: self.too_recent.load(Ordering::Relaxed),
            changed: self.changed.load(Ordering::Relaxed),
        }
    }
}

impl HashCache for CacheSession<'_> {
    fn lookup(&self, file: &FoundFile) -> Option<Sha256Digest> {
        self.looked_up.fetch_add(1, Ordering::Relaxed);
        if !self.lookups {
            return None;
        }
        // A single-file root's one row is under the empty relative key.
        let rel = if self.single_file {
            ""
        } else {
            file.rel.as_str()
        };
        let row = self.known.get(rel)?;
        if row.stat == file.stat && is_settled(&row.stat, row.recorded_ns) {
            self.hits.fetch_add(1, Ordering::Relaxed);
            Some(row.sha256)
        } else {
            None
        }
    }

    fn store(&self, file: &FoundFile, started: SystemTime, after: &FileStat, digest: Sha256Digest) {
        if self.failed.load(Ordering::Relaxed) {
            return;
        }
        if *after != file.stat {
            self.changed.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let recorded_ns = unix_ns(started);
        let fits = |v: i128| i64::try_from(v).is_ok();
        if !is_settled(after, recorded_ns)
            || !fits(after.mtime_ns)
            || !fits(after.ctime_ns)
            || !fits(recorded_ns)
        {
            self.too_recent.fetch_add(1, Ordering::Relaxed);
            return;
        }
        let row = CacheRow {
            stat: *after,
            sha256: digest,
            recorded_ns,
        };
        let full = {
            let mut p = self.pending.lock().unwrap_or_else(|p| p.into_inner());
            p.push((self.key(file), row));
            p.len() >= CACHE_BATCH
        };
        if full {
            self.flush();
        }
    }
}

impl Drop for CacheSession<'_> {
    fn drop(&mut self) {
        // A build that stopped on an error still leaves correct entries.
        self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stat(m: i128, c: i128) -> FileStat {
        FileStat {
            dev: 1,
            ino: 2,
            size: 3,
            mtime_ns: m,
            ctime_ns: c,
        }
    }

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

    #[test]
    fn settled_needs_both_times_older_than_the_margin() {
        let t = 100 * 1_000_000_000;
        assert!(is_settled(
            &stat(t - RACY_MARGIN_NS - 1, t - RACY_MARGIN_NS - 1),
            t
        ));
        assert!(!is_settled(
            &stat(t - RACY_MARGIN_NS, t - RACY_MARGIN_NS - 1),
            t
        ));
        assert!(!is_settled(
            &stat(t - RACY_MARGIN_NS - 1, t - RACY_MARGIN_NS),
            t
        ));
        // An mtime set far into the past does not help: ctime decides.
        assert!(!is_settled(&stat(0, t - 1), t));
    }

    #[test]
    fn queries() {
        let h = "ab".repeat(32);
        assert_eq!(parse_query("id:7").unwrap(), Query::Id(7));
        assert!(parse_query("id:x").is_err());
        assert_eq!(
            parse_query(&format!("sha256:{}", h.to_uppercase())).unwrap(),
            Query::Digest(h.clone())
        );
        assert_eq!(parse_query(&h).unwrap(), Query::Digest(h.clone()));
        assert_eq!(
            parse_query("ABABABAB").unwrap(),
            Query::Prefix("abababab".into())
        );
        assert_eq!(parse_query("abab").unwrap(), Query::Name("abab".into()));
        assert_eq!(
            parse_query("issue44-run").unwrap(),
            Query::Name("issue44-run".into())
        );
        assert!(parse_query("sha256:xyz").is_err());
    }

    #[test]
    fn names() {
        for ok in ["kimi-k3-weights", "a", "team/model@v1.2", "X_9+1"] {
            assert!(validate_baseline_name(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            "-x",
            ".x",
            "a b",
            "a..b",
            "a/",
            "a//b",
            "a:b",
            &"x".repeat(129),
        ] {
            assert!(validate_baseline_name(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn prefix_ranges() {
        assert_eq!(prefix_range(b"/m"), (b"/m/".to_vec(), b"/m0".to_vec()));
        assert_eq!(prefix_range(b"/"), (b"/".to_vec(), b"0".to_vec()));
    }
}
