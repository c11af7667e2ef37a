//! The stat-keyed hash cache: [`CacheSession`] (a [`HashCache`] for one
//! root, loaded once and written in batches), counting and forgetting
//! entries, and the racy-clean rule that decides what it may vouch for.
//!
//! # The racy-clean rule
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
//! equals the `fstat` of the descriptor that was read, taken both before its
//! first byte was read and after its last (the file read is the file
//! found, and it did not change while it was read), and rule 2 already
//! holds. The descriptor matters: a stat by path before and after reading
//! says nothing about which file was read if a parent directory was
//! swapped between them (renaming a directory leaves its files' ctime
//! alone).
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
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

use rusqlite::{params, TransactionBehavior};
use serde::Serialize;

use super::error::CatalogError;
use super::handle::Catalog;
use crate::digest::Sha256Digest;
use crate::manifest::{FileStat, FoundFile, HashCache};

/// Both timestamps of a cached file must be this much older than the moment
/// its hashing started (see the module documentation).
pub const RACY_MARGIN_NS: i128 = 3_000_000_000;

/// Cache entries written per transaction while hashing.
const CACHE_BATCH: usize = 2048;

fn unix_ns(t: SystemTime) -> i128 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

impl Catalog {
    /// Number of hash-cache entries.
    pub fn cache_len(&self) -> Result<u64, CatalogError> {
        self.count_rows("hash_cache")
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
            // A row that does not hold what proofpack writes is passed over:
            // it is never vouched for, and the file is hashed again.
            let map = |r: &rusqlite::Row<'_>| Ok(cache_row(r));
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
                if let Some(Ok(rel)) = path.get(skip..).map(std::str::from_utf8) {
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

/// One cached digest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CacheRow {
    stat: FileStat,
    sha256: Sha256Digest,
    recorded_ns: i128,
}

/// Reads one hash-cache row, or `None` if it does not hold what
/// [`Catalog::write_cache_rows`] writes (a BLOB path, integers, 32 bytes).
fn cache_row(r: &rusqlite::Row<'_>) -> Option<(Vec<u8>, CacheRow)> {
    let sha: Vec<u8> = r.get(6).ok()?;
    let int = |i: usize| r.get::<_, i64>(i).ok();
    Some((
        r.get(0).ok()?,
        CacheRow {
            // dev, ino and size are stored as the bits of a u64.
            stat: FileStat {
                dev: int(1)? as u64,
                ino: int(2)? as u64,
                size: int(3)? as u64,
                mtime_ns: int(4)?.into(),
                ctime_ns: int(5)?.into(),
            },
            sha256: Sha256Digest(<[u8; 32]>::try_from(sha.as_slice()).ok()?),
            recorded_ns: int(7)?.into(),
        },
    ))
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

    fn store(
        &self,
        file: &FoundFile,
        started: SystemTime,
        opened: &FileStat,
        after: &FileStat,
        digest: Sha256Digest,
    ) {
        if self.failed.load(Ordering::Relaxed) {
            return;
        }
        // The file read (its descriptor, before and after) must be the file
        // the scan found, in all five stat fields.
        if *opened != file.stat || *after != file.stat {
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
    fn prefix_ranges() {
        assert_eq!(prefix_range(b"/m"), (b"/m/".to_vec(), b"/m0".to_vec()));
        assert_eq!(prefix_range(b"/"), (b"/".to_vec(), b"0".to_vec()));
    }
}
