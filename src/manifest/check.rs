//! Checking a tree against a manifest: the closed-world [`check`] (every
//! listed file present and unchanged, nothing unlisted; `--sizes-only` reads
//! no content) and the safetensors [`structure_check`] of the launch check.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use crate::progress::Progress;
use crate::report::{Check, Report};

use super::{hash_files, scan_all, BuildOptions, FoundFile, Manifest, ManifestError};

/// v1.1: the structural check of the launch check (`check --sizes-only`,
/// and a host's launch check): every safetensors entry of `manifest`
/// present under `root` as a file is checked from its header, and against
/// its pinned header digest (checks `shard.<rule>:<path>`, see
/// [`crate::safetensors::RULES`]). Entries missing on disk are left to the
/// closed-world check, which reports them.
pub fn structure_check(root: &Path, manifest: &Manifest) -> Report {
    let present: Vec<crate::safetensors::ShardSpec> = manifest
        .shard_specs()
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
        return Err(ManifestError::NoSizes {
            origin: manifest_origin.to_string(),
            format: "canonical or sha256sum",
        });
    }
    let mut report = Report::new(format!("{} against {}", root.display(), manifest_origin));
    // Unlistable paths are drift, not a tool failure: they are reported as
    // failed checks and everything else is still checked.
    let (found, problems) = scan_all(root, &opts.build.excludes)?;
    let on_disk: BTreeMap<&str, &FoundFile> = found.iter().map(|f| (f.rel.as_str(), f)).collect();

    // Decide what needs hashing.
    let mut to_hash: Vec<FoundFile> = Vec::new();
    let mut results: BTreeMap<String, Check> = BTreeMap::new();
    for e in manifest.entries() {
        let id = file_check_id(&e.path);
        match on_disk.get(e.path.as_str()) {
            None => {
                results.insert(
                    e.path.clone(),
                    Check::fail(id, "missing: listed in the manifest but not on disk"),
                );
            }
            Some(f) => match e.size {
                Some(sz) if sz != f.stat.size => {
                    results.insert(
                        e.path.clone(),
                        Check::fail(
                            id,
                            format!(
                                "size mismatch: manifest says {sz} bytes, file has {}",
                                f.stat.size
                            ),
                        )
                        .with_values(sz, f.stat.size),
                    );
                }
                _ if opts.sizes_only => {
                    results.insert(
                        e.path.clone(),
                        Check::pass(id, "size matches (content not read)"),
                    );
                }
                _ => to_hash.push((*f).clone()),
            },
        }
    }
    let hashed = hash_files(&to_hash, &opts.build, progress)?;
    for h in hashed {
        let want = manifest.get(&h.path).expect("hashed only listed paths");
        let id = file_check_id(&h.path);
        let c = if want.sha256 == h.sha256 {
            Check::pass(id, "OK")
        } else {
            Check::fail(id, "changed: content differs from the manifest")
                .with_values(want.sha256.to_hex(), h.sha256.to_hex())
        };
        results.insert(h.path, c);
    }
    for f in &found {
        if manifest.get(&f.rel).is_none() {
            results.insert(
                f.rel.clone(),
                Check::fail(
                    file_check_id(&f.rel),
                    "unlisted: on disk but not in the manifest",
                ),
            );
        }
    }
    for (p, why) in problems {
        results.insert(
            p.clone(),
            Check::fail(file_check_id(&p), format!("cannot be listed: {why}")),
        );
    }
    for (_, c) in results {
        report.push(c);
    }
    Ok(report)
}
