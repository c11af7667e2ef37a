//! Checking a tree against a manifest: the closed-world [`check`] (every
//! listed file present and unchanged, nothing unlisted; `--sizes-only` reads
//! no content) and the safetensors [`structure_check`] of the launch check.
//!
//! The check is a merge of two sequences in path order, the
//! manifest's entries ([`EntryStream`]) and the tree's files
//! ([`SortedWalk`], one directory at a time), so that neither side is held
//! whole: what is kept is the files waiting to be hashed (in batches of
//! [`HASH_BATCH`], hashed in parallel, largest first) and the checks
//! between them, which leave in path order.

use std::collections::VecDeque;
use std::fs;
use std::path::Path;
use std::sync::Arc;

use crate::digest::Sha256Digest;
use crate::progress::Progress;
use crate::report::{Check, Report};
use crate::safetensors::ShardSpec;

use super::hash::hash_in_pool;
use super::hash::{with_threads, BuildOptions};
use super::sorted_walk::{SortedEntry, SortedWalk};
use super::stream::{with_streams, EntryStream, ManifestSource, Stopped, Totals};
use super::types::{Manifest, ManifestError};
use super::walk::FoundFile;

/// Files hashed together (in parallel, largest first).
pub const HASH_BATCH: usize = 4096;

/// Checks waiting for the files before them to be hashed, at most.
const MAX_WAITING: usize = 4 * HASH_BATCH;

/// The structural check of the launch check (`check --sizes-only`,
/// and a host's launch check): every safetensors entry of `manifest`
/// present under `root` as a file is checked from its header, and against
/// its pinned header digest (checks `shard.<rule>:<path>`, see
/// [`crate::safetensors::RULES`]). Entries missing on disk are left to the
/// closed-world check, which reports them.
pub fn structure_check(root: &Path, manifest: &Manifest) -> Report {
    structure_check_shards(root, manifest.shard_specs())
}

/// [`structure_check`] of the safetensors entries `shards` (those of a
/// streamed manifest, as [`check_streamed`] returns them).
pub fn structure_check_shards(root: &Path, shards: Vec<ShardSpec>) -> Report {
    let present: Vec<ShardSpec> = shards
        .into_iter()
        .filter(|s| {
            let abs = if root.is_file() {
                root.to_path_buf()
            } else {
                root.join(&s.path)
            };
            fs::metadata(abs).is_ok_and(|m| m.is_file())
        })
        .collect();
    if root.is_file() {
        // A single-file root is listed under its own name.
        let parent = root.parent().unwrap_or(Path::new(""));
        return crate::safetensors::check_files(parent, &present);
    }
    crate::safetensors::check_files(root, &present)
}

/// Options for [`check`].
#[derive(Clone, Default)]
pub struct CheckOptions<'a> {
    /// Walking and hashing options.
    pub build: BuildOptions<'a>,
    /// Compare presence and sizes only; read no content.
    pub sizes_only: bool,
}

/// Report id of the check for one path.
pub fn file_check_id(path: &str) -> String {
    format!("file:{path}")
}

/// Closed-world check of a directory against a manifest: every listed file
/// present and unchanged, nothing unlisted. Returns a report with one check
/// per path; `Err` only when the check could not run (I/O error, or sizes
/// asked for but the manifest has none).
pub fn check(
    root: &Path,
    manifest: &Manifest,
    manifest_origin: &str,
    opts: &CheckOptions<'_>,
    progress: &dyn Progress,
) -> Result<Report, ManifestError> {
    if opts.sizes_only && !manifest.has_sizes() {
        return Err(no_sizes(manifest_origin));
    }
    let mut report = Report::new(format!("{} against {}", root.display(), manifest_origin));
    let mut sources = [ManifestSource::Loaded(Arc::new(manifest.clone()))];
    with_streams(&mut sources, |s| {
        check_streamed(root, &mut s[0], manifest_origin, opts, progress, &mut |c| {
            report.push(c)
        })
    })?;
    Ok(report)
}

fn no_sizes(origin: &str) -> ManifestError {
    ManifestError::NoSizes {
        origin: origin.to_string(),
        format: "canonical or sha256sum",
    }
}

/// What [`check_streamed`] found besides its checks.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The manifest's digest, count and bytes.
    pub manifest: Totals,
    /// Its safetensors entries, for [`structure_check_shards`].
    pub shards: Vec<ShardSpec>,
}

/// One file or check in path order, waiting for earlier files to be hashed.
enum Waiting {
    Ready(Check),
    Hash(FoundFile, Sha256Digest),
}

/// The checks between hash batches.
struct Queue<'a, 's> {
    items: VecDeque<Waiting>,
    to_hash: usize,
    opts: &'a CheckOptions<'a>,
    progress: &'a dyn Progress,
    sink: &'s mut (dyn FnMut(Check) + Send),
    hashed_bytes: u64,
    hashed_files: u64,
}

impl Queue<'_, '_> {
    fn push(&mut self, w: Waiting) -> Result<(), ManifestError> {
        if matches!(w, Waiting::Hash(..)) {
            self.to_hash += 1;
        }
        self.items.push_back(w);
        if self.to_hash >= HASH_BATCH || self.items.len() >= MAX_WAITING {
            self.flush()?;
        }
        Ok(())
    }

    /// Hashes the waiting files and hands every waiting check on, in order.
    fn flush(&mut self) -> Result<(), ManifestError> {
        let files: Vec<&FoundFile> = self
            .items
            .iter()
            .filter_map(|w| match w {
                Waiting::Hash(f, _) => Some(f),
                Waiting::Ready(_) => None,
            })
            .collect();
        // The bar grows batch by batch: the total is not known in advance.
        self.hashed_bytes += files.iter().map(|f| f.stat.size).sum::<u64>();
        self.hashed_files += files.len() as u64;
        self.progress.start(self.hashed_bytes, self.hashed_files);
        let digests = hash_in_pool(&files, self.opts.build.cache, self.progress)?;
        let mut digests = digests.into_iter();
        for w in self.items.drain(..) {
            let c = match w {
                Waiting::Ready(c) => c,
                Waiting::Hash(f, want) => {
                    let got = digests.next().expect("one digest per file");
                    let id = file_check_id(&f.rel);
                    if want == got {
                        Check::pass(id, "OK")
                    } else {
                        Check::fail(id, "changed: content differs from the manifest")
                            .with_values(want.to_hex(), got.to_hex())
                    }
                }
            };
            (self.sink)(c);
        }
        self.to_hash = 0;
        Ok(())
    }
}

/// The next item of the walk, two items of one path (names that are not
/// UTF-8 can show the same) taken as one: a problem over a file, and the
/// last of two problems, as the check always reported them.
fn next_walked(
    walk: &mut std::iter::Peekable<SortedWalk>,
) -> Result<Option<SortedEntry>, ManifestError> {
    let Some(mut cur) = walk.next().transpose()? else {
        return Ok(None);
    };
    while let Some(Ok(n)) = walk.peek() {
        if n.path() != cur.path() {
            break;
        }
        let n = walk.next().expect("peeked").expect("peeked Ok");
        cur = match (cur, n) {
            (SortedEntry::Problem(p, a), SortedEntry::Problem(_, b)) => {
                SortedEntry::Problem(p, a.max(b))
            }
            (p @ SortedEntry::Problem(..), SortedEntry::File(_)) | (SortedEntry::File(_), p) => p,
        };
    }
    Ok(Some(cur))
}

/// [`check`] of a streamed manifest: the checks go to `sink` one by one, in
/// path order (`Err(Stopped::ReadWhole)` when the stream gave up: see
/// [`with_streams`]). `origin` names the manifest in errors.
pub fn check_streamed(
    root: &Path,
    manifest: &mut EntryStream,
    origin: &str,
    opts: &CheckOptions<'_>,
    progress: &dyn Progress,
    sink: &mut (dyn FnMut(Check) + Send),
) -> Result<Checked, Stopped> {
    let whole = |_| Stopped::ReadWhole(0);
    let first = manifest.next_entry().map_err(whole)?;
    if opts.sizes_only && first.as_ref().is_some_and(|e| e.entry.size.is_none()) {
        return Err(no_sizes(origin).into());
    }
    let walk = SortedWalk::new(root, &opts.build.excludes)?;
    let run = || -> Result<Vec<ShardSpec>, Stopped> {
        let mut walk = walk.peekable();
        let mut q = Queue {
            items: VecDeque::new(),
            to_hash: 0,
            opts,
            progress,
            sink,
            hashed_bytes: 0,
            hashed_files: 0,
        };
        let mut shards = Vec::new();
        let mut m = first;
        let mut d = next_walked(&mut walk)?;
        loop {
            use std::cmp::Ordering::*;
            let ord = match (&m, &d) {
                (None, None) => break,
                (Some(_), None) => Less,
                (None, Some(_)) => Greater,
                (Some(m), Some(d)) => m.entry.path.as_bytes().cmp(d.path().as_bytes()),
            };
            if ord != Greater {
                let e = m.as_ref().expect("a manifest entry");
                if crate::safetensors::is_shard_path(&e.entry.path) {
                    shards.push(ShardSpec {
                        path: e.entry.path.clone(),
                        header_sha256: e.header_sha256,
                    });
                }
            }
            let item = match ord {
                Less => {
                    let e = m.as_ref().expect("a manifest entry");
                    Waiting::Ready(Check::fail(
                        file_check_id(&e.entry.path),
                        "missing: listed in the manifest but not on disk",
                    ))
                }
                // A path that cannot be listed is reported as such, listed
                // in the manifest or not.
                _ => match d.take().expect("an item of the walk") {
                    SortedEntry::Problem(p, why) => Waiting::Ready(Check::fail(
                        file_check_id(&p),
                        format!("cannot be listed: {why}"),
                    )),
                    SortedEntry::File(f) if ord == Greater => Waiting::Ready(Check::fail(
                        file_check_id(&f.rel),
                        "unlisted: on disk but not in the manifest",
                    )),
                    SortedEntry::File(f) => {
                        let e = m.as_ref().expect("a manifest entry");
                        match e.entry.size {
                            Some(sz) if sz != f.stat.size => Waiting::Ready(
                                Check::fail(
                                    file_check_id(&f.rel),
                                    format!(
                                        "size mismatch: manifest says {sz} bytes, file has {}",
                                        f.stat.size
                                    ),
                                )
                                .with_values(sz, f.stat.size),
                            ),
                            _ if opts.sizes_only => Waiting::Ready(Check::pass(
                                file_check_id(&f.rel),
                                "size matches (content not read)",
                            )),
                            _ => Waiting::Hash(f, e.entry.sha256),
                        }
                    }
                },
            };
            q.push(item)?;
            if ord != Greater {
                m = manifest.next_entry().map_err(whole)?;
            }
            if ord != Less {
                d = next_walked(&mut walk)?;
            }
        }
        q.flush()?;
        Ok(shards)
    };
    let shards = with_threads(opts.build.threads, run)??;
    progress.finish();
    let manifest = manifest.finish().map_err(whole)?;
    Ok(Checked { manifest, shards })
}

/// [`Manifest::require_header_digests`] over a manifest read one
/// entry at a time (memory of one entry): a record with sizes whose
/// `.safetensors` entries do not all pin a header digest is refused
/// (sizes-only cannot tell swapped shards without them). A manifest
/// without sizes (a line format) pins none and is not refused here.
pub fn require_header_digests_streamed(
    source: &mut ManifestSource,
    origin: &str,
) -> Result<(), ManifestError> {
    let (sized, shards, missing, first) = with_streams(std::slice::from_mut(source), |s| {
        let (mut sized, mut shards, mut missing, mut first) = (false, 0usize, 0usize, None);
        while let Some(e) = s[0].next_entry().map_err(|_| Stopped::ReadWhole(0))? {
            sized |= e.entry.size.is_some();
            if crate::safetensors::is_shard_path(&e.entry.path) {
                shards += 1;
                if e.header_sha256.is_none() {
                    missing += 1;
                    first.get_or_insert(e.entry.path);
                }
            }
        }
        Ok((sized, shards, missing, first))
    })?;
    match first {
        Some(first) if sized => Err(ManifestError::NoHeaderDigests {
            origin: origin.to_string(),
            missing,
            shards,
            first,
        }),
        _ => Ok(()),
    }
}
