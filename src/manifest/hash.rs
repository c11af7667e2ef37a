//! Hashing listed files and building a manifest: the digest cache interface
//! ([`HashCache`]), parallel hashing largest first ([`hash_files`]), and
//! [`build`], which also pins the header digest of every safetensors shard.

use std::fs;
use std::io;
use std::path::Path;

use rayon::prelude::*;

use crate::digest::Sha256Digest;
use crate::progress::Progress;

use super::{scan, Entry, FileStat, FoundFile, Manifest, ManifestError};

/// A cache of file digests keyed by stat facts. Implemented by the catalog;
/// the manifest layer only asks and tells. An implementation must return a
/// digest only when it is certain the content is unchanged.
pub trait HashCache: Sync {
    /// A cached digest for this file, if the cache can vouch for it.
    fn lookup(&self, file: &FoundFile) -> Option<Sha256Digest>;
    /// Records a digest computed for `file`, whose stat was `file.stat` when
    /// it was found and `after` once hashing ended; `started` is the wall
    /// clock read just before its content was first read (the moment the
    /// racy-clean rule compares timestamps against).
    fn store(
        &self,
        file: &FoundFile,
        started: std::time::SystemTime,
        after: &FileStat,
        digest: Sha256Digest,
    );
}

/// Options for walking and hashing a directory.
#[derive(Clone, Default)]
pub struct BuildOptions<'a> {
    /// Glob patterns to leave out (see [`Excludes`](super::Excludes)).
    pub excludes: Vec<String>,
    /// Hashing threads; 0 means one per core.
    pub threads: usize,
    /// Optional digest cache.
    pub cache: Option<&'a dyn HashCache>,
}

/// Hashes one found file, using and feeding the cache if there is one.
pub fn hash_found(
    file: &FoundFile,
    cache: Option<&dyn HashCache>,
    progress: &dyn Progress,
) -> Result<Sha256Digest, ManifestError> {
    if let Some(c) = cache {
        if let Some(d) = c.lookup(file) {
            progress.advance(file.stat.size);
            return Ok(d);
        }
    }
    let started = std::time::SystemTime::now();
    let (digest, n) = crate::digest::hash_file_sized(&file.abs, Some(file.stat.size), progress)?;
    if n != file.stat.size {
        return Err(ManifestError::ChangedWhileHashing {
            path: file.abs.clone(),
            expected: file.stat.size,
            actual: n,
        });
    }
    if let Some(c) = cache {
        if let Ok(m) = fs::metadata(&file.abs) {
            c.store(file, started, &FileStat::from_metadata(&m), digest);
        }
    }
    Ok(digest)
}

/// Runs `f` on a rayon pool of `threads` threads (0 = one per core).
pub fn with_threads<T: Send>(
    threads: usize,
    f: impl FnOnce() -> T + Send,
) -> Result<T, ManifestError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| ManifestError::Threads {
            threads,
            reason: e.to_string(),
        })?;
    Ok(pool.install(f))
}

/// Hashes found files in parallel on the current thread pool, largest
/// first; returns their digests in the order of `files`.
pub(super) fn hash_in_pool(
    files: &[&FoundFile],
    cache: Option<&dyn HashCache>,
    progress: &dyn Progress,
) -> Result<Vec<Sha256Digest>, ManifestError> {
    let mut order: Vec<usize> = (0..files.len()).collect();
    order.sort_by(|&a, &b| {
        files[b]
            .stat
            .size
            .cmp(&files[a].stat.size)
            .then_with(|| files[a].rel.cmp(&files[b].rel))
    });
    let hashed = order
        .par_iter()
        .with_max_len(1)
        .map(|&i| {
            let d = hash_found(files[i], cache, progress)?;
            progress.item_done();
            Ok((i, d))
        })
        .collect::<Result<Vec<(usize, Sha256Digest)>, ManifestError>>()?;
    let mut digests = vec![Sha256Digest([0; 32]); files.len()];
    for (i, d) in hashed {
        digests[i] = d;
    }
    Ok(digests)
}

/// Hashes found files in parallel, largest first; returns the entries (in
/// the order of `files`).
pub fn hash_files(
    files: &[FoundFile],
    opts: &BuildOptions<'_>,
    progress: &dyn Progress,
) -> Result<Vec<Entry>, ManifestError> {
    progress.start(files.iter().map(|f| f.stat.size).sum(), files.len() as u64);
    let refs: Vec<&FoundFile> = files.iter().collect();
    let result = with_threads(opts.threads, || hash_in_pool(&refs, opts.cache, progress))?;
    progress.finish();
    let digests = result?;
    Ok(files
        .iter()
        .zip(digests)
        .map(|(f, d)| Entry {
            path: f.rel.clone(),
            size: Some(f.stat.size),
            sha256: d,
        })
        .collect())
}

/// Builds the manifest of a directory (or of a single file).
pub fn build(
    root: &Path,
    opts: &BuildOptions<'_>,
    progress: &dyn Progress,
) -> Result<Manifest, ManifestError> {
    let files = scan(root, &opts.excludes)?;
    let entries = hash_files(&files, opts, progress)?;
    let origin = root.display().to_string();
    let mut m = Manifest::from_entries(entries, &origin)?;
    // v1.1: the header digest of every safetensors shard (its first 8 + N
    // bytes, read again after hashing: a few megabytes for a checkpoint).
    let shards: Vec<&FoundFile> = files
        .iter()
        .filter(|f| crate::safetensors::is_shard_path(&f.rel))
        .collect();
    let digests = with_threads(opts.threads, || {
        shards
            .par_iter()
            .map(|f| (f, crate::safetensors::header_digest(&f.abs)))
            .collect::<Vec<_>>()
    })?;
    for (f, d) in digests {
        match d {
            Ok(Some(d)) => m.set_header_sha256(&f.rel, d, &origin)?,
            // No readable header: the entry carries no header digest, and
            // the structural check names what is wrong with the shard.
            Ok(None) => {}
            Err(crate::safetensors::SafetensorsError::Io { path, source }) => {
                return Err(ManifestError::Io { path, source })
            }
            Err(e) => {
                return Err(ManifestError::Io {
                    path: f.abs.clone(),
                    source: io::Error::other(e.to_string()),
                })
            }
        }
    }
    Ok(m)
}
