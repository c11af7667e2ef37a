//! Hashing listed files and building a manifest: the digest cache interface
//! ([`HashCache`]), parallel hashing largest first ([`hash_files`]), and
//! [`build`], which also pins the header digest of every safetensors shard.

use std::fs;
use std::io;
use std::path::Path;

use rayon::prelude::*;

use crate::digest::Sha256Digest;
use crate::progress::Progress;

use super::types::{Entry, Manifest, ManifestError};
use super::walk::{scan, FileStat, FoundFile};

/// A cache of file digests keyed by stat facts. Implemented by the catalog;
/// the manifest layer only asks and tells. An implementation must return a
/// digest only when it is certain the content is unchanged.
pub trait HashCache: Sync {
    /// A cached digest for this file, if the cache can vouch for it.
    fn lookup(&self, file: &FoundFile) -> Option<Sha256Digest>;
    /// Records a digest computed for `file`. `opened` and `after` are the
    /// stat of the descriptor that was read (`fstat`), taken before its
    /// first byte was read and after its last; `started` is the wall clock
    /// read just before its content was first read (the moment the
    /// racy-clean rule compares timestamps against). An implementation
    /// stores the digest only when `file.stat`, `opened` and `after` are
    /// equal: the content hashed is then the file the scan found, unchanged.
    fn store(
        &self,
        file: &FoundFile,
        started: std::time::SystemTime,
        opened: &FileStat,
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
    let io_err = |source| ManifestError::Io {
        path: file.abs.clone(),
        source,
    };
    let started = std::time::SystemTime::now();
    // The descriptor is stat'ed, not the path: a parent directory swapped
    // between the scan and the read, or during it, makes the path name
    // another file than the one read, and only the descriptor says which
    // file was read.
    let f = fs::File::open(&file.abs).map_err(io_err)?;
    let meta = f.metadata().map_err(io_err)?;
    let opened = FileStat::from_metadata(&meta);
    if !meta.is_file() || opened.dev != file.stat.dev || opened.ino != file.stat.ino {
        return Err(ManifestError::ReplacedWhileHashing {
            path: file.abs.clone(),
        });
    }
    let cap = (file.stat.size as usize)
        .saturating_add(1)
        .clamp(4096, crate::digest::READ_BUFFER);
    let mut buf = vec![0u8; cap];
    let (digest, n) = crate::digest::hash_reader(&f, &mut buf, progress).map_err(io_err)?;
    if n != file.stat.size {
        return Err(ManifestError::ChangedWhileHashing {
            path: file.abs.clone(),
            expected: file.stat.size,
            actual: n,
        });
    }
    if let Some(c) = cache {
        let after = FileStat::from_metadata(&f.metadata().map_err(io_err)?);
        c.store(file, started, &opened, &after, digest);
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

/// The header digest (SHA-256 of the first 8 + N bytes) of every
/// safetensors shard among `files`, by manifest path. A shard without a
/// readable header gets none (the structural check names what is wrong).
pub fn header_digests(
    files: &[FoundFile],
    threads: usize,
) -> Result<Vec<(String, Sha256Digest)>, ManifestError> {
    let shards: Vec<&FoundFile> = files
        .iter()
        .filter(|f| crate::safetensors::is_shard_path(&f.rel))
        .collect();
    let digests = with_threads(threads, || {
        shards
            .par_iter()
            .map(|f| (f, crate::safetensors::header_digest(&f.abs)))
            .collect::<Vec<_>>()
    })?;
    let mut out = Vec::new();
    for (f, d) in digests {
        if let Some(d) = header_result(f, d)? {
            out.push((f.rel.clone(), d));
        }
    }
    Ok(out)
}

/// The header digest of shard `f`, or none when its header is not
/// readable; `Err` only on I/O errors.
pub(super) fn header_digest_of(f: &FoundFile) -> Result<Option<Sha256Digest>, ManifestError> {
    header_result(f, crate::safetensors::header_digest(&f.abs))
}

fn header_result(
    f: &FoundFile,
    d: Result<Option<Sha256Digest>, crate::safetensors::SafetensorsError>,
) -> Result<Option<Sha256Digest>, ManifestError> {
    match d {
        Ok(d) => Ok(d),
        Err(crate::safetensors::SafetensorsError::Io { path, source }) => {
            Err(ManifestError::Io { path, source })
        }
        Err(e) => Err(ManifestError::Io {
            path: f.abs.clone(),
            source: io::Error::other(e.to_string()),
        }),
    }
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
    // The header digest of every safetensors shard (its first 8 + N
    // bytes, read again after hashing: a few megabytes for a checkpoint).
    for (path, d) in header_digests(&files, opts.threads)? {
        m.set_header_sha256(&path, d, &origin)?;
    }
    Ok(m)
}
