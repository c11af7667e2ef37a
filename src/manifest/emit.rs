//! The manifest of a tree written as it is hashed: the
//! tree is listed in manifest order one directory at a time
//! ([`SortedWalk`]), its files hashed in batches of [`HASH_BATCH`] (in
//! parallel, largest first) and handed on in path order, so that what is
//! kept is one directory's listing and one batch, not a table of every
//! entry. The bytes written are those [`super::Manifest::render`] writes
//! for [`super::build`]'s manifest of the same tree (a test says so).

use crate::digest::{Hasher, Sha256Digest};
use crate::progress::Progress;

use super::check::HASH_BATCH;
use super::hash::{hash_in_pool, header_digest_of};
use super::hash::{with_threads, BuildOptions};
use super::render::canonical_line;
use super::sorted_walk::{SortedEntry, SortedWalk};
use super::types::{Entry, ManifestError};
use super::walk::FoundFile;

/// What was written: the manifest's digest, files and bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Emitted {
    /// SHA-256 of the canonical text.
    pub digest: Sha256Digest,
    /// Entries.
    pub files: u64,
    /// Sum of the sizes.
    pub bytes: u64,
}

/// Lists and hashes `root` (a directory, or one file) and calls `each`
/// with every entry, in manifest order, and the header digest of a
/// safetensors shard. A path that cannot be listed makes it fail, naming
/// every such path, as [`super::build`] does; `each` has then seen some
/// entries, which the caller discards.
pub fn build_each(
    root: &std::path::Path,
    opts: &BuildOptions<'_>,
    progress: &dyn Progress,
    each: &mut (dyn FnMut(&Entry, Option<&Sha256Digest>) -> std::io::Result<()> + Send),
) -> Result<Emitted, ManifestError> {
    let walk = SortedWalk::new(root, &opts.excludes)?;
    with_threads(opts.threads, || {
        let mut e = Emitter {
            root,
            opts,
            progress,
            each,
            batch: Vec::new(),
            problems: Vec::new(),
            hasher: Hasher::new(),
            files: 0,
            bytes: 0,
            started: (0, 0),
        };
        for item in walk {
            match item? {
                SortedEntry::File(f) => {
                    e.batch.push(f);
                    if e.batch.len() >= HASH_BATCH {
                        e.flush()?;
                    }
                }
                SortedEntry::Problem(path, why) => e.problems.push((path, why)),
            }
        }
        e.flush()?;
        progress.finish();
        if !e.problems.is_empty() {
            e.problems.sort();
            return Err(ManifestError::Unlistable {
                problems: e.problems,
            });
        }
        Ok(Emitted {
            digest: e.hasher.finish().0,
            files: e.files,
            bytes: e.bytes,
        })
    })?
}

struct Emitter<'a, 'o> {
    root: &'a std::path::Path,
    opts: &'a BuildOptions<'o>,
    progress: &'a dyn Progress,
    each: &'a mut (dyn FnMut(&Entry, Option<&Sha256Digest>) -> std::io::Result<()> + Send),
    batch: Vec<FoundFile>,
    problems: Vec<(String, String)>,
    hasher: Hasher,
    files: u64,
    bytes: u64,
    /// Bytes and files announced to the progress bar so far.
    started: (u64, u64),
}

impl Emitter<'_, '_> {
    /// Hashes the batch and hands its entries on, in order. Once a path
    /// cannot be listed nothing more is hashed: the manifest will not be
    /// written.
    fn flush(&mut self) -> Result<(), ManifestError> {
        let batch = std::mem::take(&mut self.batch);
        if batch.is_empty() || !self.problems.is_empty() {
            return Ok(());
        }
        // The bar grows batch by batch: the total is not known in advance.
        self.started.0 += batch.iter().map(|f| f.stat.size).sum::<u64>();
        self.started.1 += batch.len() as u64;
        self.progress.start(self.started.0, self.started.1);
        let refs: Vec<&FoundFile> = batch.iter().collect();
        let digests = hash_in_pool(&refs, self.opts.cache, self.progress)?;
        for (f, sha256) in batch.into_iter().zip(digests) {
            let header = if crate::safetensors::is_shard_path(&f.rel) {
                header_digest_of(&f)?
            } else {
                None
            };
            let entry = Entry {
                path: f.rel,
                size: Some(f.stat.size),
                sha256,
            };
            self.hasher.update(canonical_line(&entry).as_bytes());
            self.files += 1;
            self.bytes = self
                .bytes
                .checked_add(f.stat.size)
                .ok_or_else(|| ManifestError::Io {
                    path: f.abs.clone(),
                    source: std::io::Error::other("the sizes of the files add up past 2^64 bytes"),
                })?;
            // What `each` writes to failed, not the file read.
            (self.each)(&entry, header.as_ref()).map_err(|e| ManifestError::Io {
                path: self.root.to_path_buf(),
                source: std::io::Error::new(e.kind(), format!("writing its manifest: {e}")),
            })?;
        }
        Ok(())
    }
}
