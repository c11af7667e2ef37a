//! Structure of safetensors shards and of their Hugging Face index, checked
//! from the headers alone (docs/safetensors.md; contract section 2.1).
//!
//! A shard is `N` (8 bytes, little-endian u64), `N` bytes of UTF-8 JSON
//! (the header: tensor name to dtype, shape and data offsets, plus an
//! optional `__metadata__` map of strings), then the tensor data. The rules
//! are those of the reference reader, huggingface/safetensors
//! (`safetensors/src/tensor.rs`: `SafeTensors::read_metadata`,
//! `Metadata::validate`), each reported as its own check so that a failure
//! names the rule, the shard and the tensor: see [`RULES`].
//!
//! Cost: 8 + N bytes read per shard, N at most 100,000,000 and checked
//! against the file size before anything is allocated for it; the data is
//! never read. [`check_files`] is what `check --sizes-only` (and a host's
//! launch check) runs on every shard it covers.

pub mod header;
pub mod index;
pub mod reference;
mod shard;
mod types;

use std::fs;
use std::io;
use std::path::Path;

use rayon::prelude::*;

use crate::digest::Sha256Digest;
use crate::report::{Check, Report};

pub use header::{Dtype, Header, Tensor};
pub use index::Index;
pub use shard::{check_id, inspect, Inspected, RULES};
pub use types::{SafetensorsError, MAX_HEADER_BYTES};

/// What names a safetensors shard.
pub const SHARD_SUFFIX: &str = ".safetensors";

/// True for a path that names a safetensors shard (`*.safetensors`).
pub fn is_shard_path(path: &str) -> bool {
    path.ends_with(SHARD_SUFFIX)
}

/// One shard to check: its path relative to the root (as check ids name
/// it) and, when a manifest pins one, the digest of its header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardSpec {
    /// Path relative to the root, `/`-separated.
    pub path: String,
    /// Expected SHA-256 of the file's first 8 + N bytes.
    pub header_sha256: Option<Sha256Digest>,
}

impl ShardSpec {
    /// A shard with no pinned header digest.
    pub fn new(path: impl Into<String>) -> Self {
        ShardSpec {
            path: path.into(),
            header_sha256: None,
        }
    }
}

/// Reads and checks the shard at `abs`, named `path` in check ids. A file
/// that cannot be opened fails `shard.read` (the other rules are then not
/// checkable).
pub fn inspect_file(abs: &Path, path: &str, expected: Option<Sha256Digest>) -> Inspected {
    // stat first: opening a FIFO would wait for a writer.
    let opened = fs::metadata(abs)
        .and_then(|m| {
            if m.is_file() {
                Ok(())
            } else {
                Err(io::Error::other("not a regular file"))
            }
        })
        .and_then(|()| fs::File::open(abs))
        .and_then(|f| {
            let m = f.metadata()?;
            if m.is_file() {
                Ok((f, m.len()))
            } else {
                Err(io::Error::other("not a regular file"))
            }
        });
    match opened {
        Ok((mut f, size)) => shard::inspect(path, size, &mut f, expected),
        Err(e) => {
            let why = if e.kind() == io::ErrorKind::NotFound {
                "missing: no such file".to_string()
            } else {
                format!("cannot be read: {e}")
            };
            let mut checks = vec![Check::fail(check_id("read", path), why)];
            for rule in &RULES[1..] {
                checks.push(Check::not_checkable(
                    check_id(rule, path),
                    "the shard could not be read (shard.read failed)",
                ));
            }
            if expected.is_some() {
                checks.push(Check::not_checkable(
                    check_id("header_sha256", path),
                    "the shard could not be read (shard.read failed)",
                ));
            }
            Inspected {
                checks,
                ..Inspected::default()
            }
        }
    }
}

/// Checks a whole shard held in memory (the fuzz target and tests).
pub fn inspect_bytes(path: &str, bytes: &[u8], expected: Option<Sha256Digest>) -> Inspected {
    shard::inspect(path, bytes.len() as u64, &mut &bytes[..], expected)
}

/// SHA-256 of a shard's first 8 + N bytes (its length prefix and header as
/// stored), the `header_sha256` of a manifest entry. `None` when the file
/// has no readable header: shorter than 8 bytes, N above the limit, or
/// fewer than 8 + N bytes. Reads only those bytes.
pub fn header_digest(abs: &Path) -> Result<Option<Sha256Digest>, SafetensorsError> {
    let io_err = |source| SafetensorsError::Io {
        path: abs.to_path_buf(),
        source,
    };
    let mut f = fs::File::open(abs).map_err(io_err)?;
    let size = f.metadata().map_err(io_err)?.len();
    let found = shard::inspect("", size, &mut f, None);
    Ok(found.header_sha256)
}

/// Totals over the shards checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Shards checked.
    pub shards: usize,
    /// Shards all of whose checks passed.
    pub shards_ok: usize,
    /// Tensors in the headers that parsed.
    pub tensors: u64,
    /// Bytes of tensor data those headers describe.
    pub tensor_bytes: u128,
    /// Bytes read (length prefixes and headers).
    pub bytes_read: u64,
}

/// Inspects every shard (in parallel, in path order) under `root`.
fn inspect_all(root: &Path, shards: &[ShardSpec]) -> Vec<(ShardSpec, Inspected)> {
    let mut specs: Vec<ShardSpec> = shards.to_vec();
    specs.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    specs.dedup_by(|a, b| a.path == b.path);
    specs
        .into_par_iter()
        .with_max_len(1)
        .map(|s| {
            let found = inspect_file(&root.join(&s.path), &s.path, s.header_sha256);
            (s, found)
        })
        .collect()
}

fn stats_of(found: &[(ShardSpec, Inspected)]) -> Stats {
    let mut st = Stats::default();
    for (_, f) in found {
        st.shards += 1;
        st.shards_ok += usize::from(f.ok());
        st.bytes_read += f.bytes_read;
        if let Some(h) = &f.header {
            st.tensors += h.tensors.len() as u64;
            st.tensor_bytes += h
                .tensors
                .iter()
                .map(|t| u128::from(t.end.saturating_sub(t.begin)))
                .sum::<u128>();
        }
    }
    st
}

/// The structural check of `shards` under `root`: one check per shard and
/// rule ([`RULES`], ids `shard.<rule>:<path>`), plus
/// `shard.header_sha256:<path>` where a digest is pinned. Reads only the
/// headers. A missing or unreadable shard fails `shard.read`, so pass the
/// shards that are present when another check already reports missing
/// files (`manifest::structure_check` does).
pub fn check_files(root: &Path, shards: &[ShardSpec]) -> Report {
    check_files_stats(root, shards).0
}

/// [`check_files`] with its totals.
pub fn check_files_stats(root: &Path, shards: &[ShardSpec]) -> (Report, Stats) {
    let found = inspect_all(root, shards);
    let stats = stats_of(&found);
    let mut report = Report::new(format!("safetensors shards under {}", root.display()));
    for (_, f) in found {
        for c in f.checks {
            report.push(c);
        }
    }
    (report, stats)
}

/// What `shards check` compares with an index.
#[derive(Debug, Clone, Copy)]
pub struct IndexArgs<'a> {
    /// The index file.
    pub path: &'a Path,
    /// Where the shard list came from.
    pub source: index::SetSource,
}

/// `shards check`: the structural check of every shard, then, with an
/// index, the index against the shards' headers (ids `index.*`). `Err` only
/// when the index cannot be read or is not an index (exit 2).
pub fn check_checkpoint(
    root: &Path,
    shards: &[ShardSpec],
    idx: Option<IndexArgs<'_>>,
) -> Result<(Report, Stats), SafetensorsError> {
    let index = match idx {
        Some(a) => Some((Index::read(a.path)?, a)),
        None => None,
    };
    let found = inspect_all(root, shards);
    let stats = stats_of(&found);
    let mut report = Report::new(format!("safetensors shards under {}", root.display()));
    if found.is_empty() {
        report.push(Check::fail(
            "shards.found",
            "no .safetensors shard to check",
        ));
    }
    for (_, f) in &found {
        for c in &f.checks {
            report.push(c.clone());
        }
    }
    if let Some((index, a)) = index {
        let dir = index_dir(root, a.path);
        let states: Vec<index::ShardState<'_>> = found
            .iter()
            .map(|(s, f)| index::ShardState {
                path: s.path.as_str(),
                readable: f.checks.first().is_some_and(Check::passed),
                header: f.header.as_ref(),
            })
            .collect();
        let on_disk = |p: &str| root.join(p).is_file();
        for c in index::check(&index, &dir, &states, a.source, &on_disk) {
            report.push(c);
        }
    }
    Ok((report, stats))
}

/// The index's directory relative to `root` ("" for the root itself, and
/// for an index outside the root, whose names are then read relative to
/// the root).
fn index_dir(root: &Path, index: &Path) -> String {
    let (Ok(r), Some(Ok(d))) = (
        fs::canonicalize(root),
        index.parent().map(|p| {
            fs::canonicalize(if p.as_os_str().is_empty() {
                Path::new(".")
            } else {
                p
            })
        }),
    ) else {
        return String::new();
    };
    match d.strip_prefix(&r) {
        Ok(rel) => rel.to_string_lossy().into_owned(),
        Err(_) => String::new(),
    }
}
