//! The differential harness: proofpack's bundle reader against the Rust tar
//! crate's reader (spec section 5, v1.1: a bundle proofpack accepts must be
//! read the same way by every mainstream reader). Shared by the cargo-fuzz
//! target `bundle_differential` and by tests/bundle_differential.rs, which
//! replays its corpus on stable and also compares with Python's tarfile and
//! GNU tar.
//!
//! "Accepted structurally" means: `bundle.gzip`, `bundle.tar`,
//! `bundle.root` and every `bundle.limit:*` check pass, and no
//! `bundle.entry:*` check failed as "rejected: ...". MANIFEST mismatches
//! (changed, unlisted, missing files) do not matter: they are about content,
//! not about how the archive is read. For such an input the tar crate must
//! list exactly the same regular files and directories, in the same order,
//! with the same sizes and SHA-256s.

use std::io::{self, Read};

use proofpack::bundle::{verify_bundle_reader, BundleVerification, EntryVisitor, Limits};
use proofpack::digest::Hasher;
use proofpack::progress::NoProgress;

#[path = "harness_common.rs"]
mod harness_common;
pub use harness_common::{fuzz_limits, input_bundle};

/// One regular file or directory as a reader lists it.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// Full path inside the archive (root included), without a trailing `/`.
    pub path: String,
    /// A directory (else a regular file).
    pub dir: bool,
    /// Content size (0 for directories).
    pub size: u64,
    /// Content SHA-256 in hex ("" for directories).
    pub sha256: String,
}

/// Streams `content` through SHA-256; returns (size, hex digest).
pub fn hash_reader(content: &mut dyn Read) -> io::Result<(u64, String)> {
    let mut h = Hasher::new();
    let mut buf = [0u8; 8192];
    let mut n = 0u64;
    loop {
        let k = content.read(&mut buf)?;
        if k == 0 {
            break;
        }
        h.update(&buf[..k]);
        n += k as u64;
    }
    Ok((n, h.finish().0.to_hex()))
}

/// Records every file (hashed) and directory the reader accepts.
#[derive(Default)]
struct Lister(Vec<Entry>);

impl EntryVisitor for Lister {
    fn wants(&mut self, _rel_path: &str) -> bool {
        true
    }
    fn visit(&mut self, rel_path: &str, content: &mut dyn Read) -> io::Result<()> {
        let (size, sha256) = hash_reader(content)?;
        self.0.push(Entry {
            path: rel_path.to_string(),
            dir: false,
            size,
            sha256,
        });
        Ok(())
    }
    fn dir(&mut self, rel_path: &str) {
        self.0.push(Entry {
            path: rel_path.to_string(),
            dir: true,
            size: 0,
            sha256: String::new(),
        });
    }
}

/// True if the report says the archive was read without any doubt about
/// its structure (see the module documentation).
pub fn structurally_accepted(v: &BundleVerification) -> bool {
    v.report.checks().iter().all(|c| {
        let passes = c.passed();
        match c.id.as_str() {
            "bundle.gzip" | "bundle.tar" | "bundle.root" => passes,
            id if id.starts_with("bundle.limit:") => passes,
            id if id.starts_with("bundle.entry:") => !c.detail.starts_with("rejected:"),
            _ => true,
        }
    })
}

/// proofpack's listing of `bundle` (archive order), or `None` when the
/// reader does not accept it structurally.
pub fn proofpack_listing(bundle: &[u8], limits: &Limits) -> Option<Vec<Entry>> {
    let mut lister = Lister::default();
    let v = verify_bundle_reader(
        bundle,
        "differential",
        limits,
        Some(&mut lister),
        &NoProgress,
    )
    .expect("reading from memory never fails");
    if !structurally_accepted(&v) {
        return None;
    }
    let root = v.root.expect("an accepted bundle has a root");
    Some(
        lister
            .0
            .into_iter()
            .map(|mut e| {
                e.path = if e.path.is_empty() {
                    root.clone()
                } else {
                    format!("{root}/{}", e.path)
                };
                e
            })
            .collect(),
    )
}

/// The tar crate's listing of `bundle`: regular files and directories in
/// archive order; any other entry type, or an error, is `Err`.
pub fn tar_crate_listing(bundle: &[u8]) -> Result<Vec<Entry>, String> {
    let mut ar = tar::Archive::new(flate2::read::GzDecoder::new(bundle));
    let mut out = Vec::new();
    for e in ar.entries().map_err(|e| format!("entries: {e}"))? {
        let mut e = e.map_err(|e| format!("entry: {e}"))?;
        let path = String::from_utf8(e.path_bytes().into_owned())
            .map_err(|_| "a path that is not UTF-8".to_string())?;
        let kind = e.header().entry_type();
        let dir = if kind.is_dir() {
            true
        } else if kind.is_file() {
            false
        } else {
            return Err(format!("{path}: entry type {kind:?}"));
        };
        let (size, sha256) = hash_reader(&mut e).map_err(|err| format!("{path}: {err}"))?;
        out.push(Entry {
            path: if dir {
                path.strip_suffix('/').unwrap_or(&path).to_string()
            } else {
                path
            },
            dir,
            size,
            sha256: if dir { String::new() } else { sha256 },
        });
    }
    Ok(out)
}

/// Runs one input; panics when proofpack accepts a bundle structurally and
/// the tar crate lists it differently (or fails on it).
pub fn run(data: &[u8]) {
    let Some(bundle) = input_bundle(data) else {
        return;
    };
    if let Some(ours) = proofpack_listing(&bundle, &fuzz_limits()) {
        let theirs = tar_crate_listing(&bundle);
        assert_eq!(
            Ok(&ours),
            theirs.as_ref(),
            "proofpack accepts this bundle but the tar crate reads it differently"
        );
    }
}
