//! Reading a run directory's files into a [`Collector`]: each opened only
//! if it is a regular file reached without a symlink, the evidence files
//! read with every journal last, and a journal that asks for it read again.

use std::collections::BTreeMap;
use std::fs;
use std::io;
use std::path::Path;

use crate::manifest::validate_path;
use crate::verify::evidence::collector::{is_chain_candidate, is_manifest_file, Collector};

pub use crate::verify::verification::RunDirError;

/// Why a run-directory file cannot be used as evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// No such file.
    Missing,
    /// Not a regular file, or resolves outside the run root.
    NotRegular(String),
}

/// Opens `rel` under `root` if it is a regular file inside the root reached
/// without any symlink (a run directory holds regular files only, the
/// same rule `seal` applies).
pub fn open_in_root(root: &Path, rel: &str) -> Result<Result<fs::File, Unusable>, RunDirError> {
    if let Err(why) = validate_path(rel) {
        return Ok(Err(Unusable::NotRegular(why)));
    }
    let io_err = |path: &Path, source| RunDirError::Io {
        path: path.to_path_buf(),
        source,
    };
    let path = root.join(rel);
    match fs::symlink_metadata(&path) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Err(Unusable::Missing)),
        Err(e) => return Ok(Err(Unusable::NotRegular(e.to_string()))),
        Ok(m) if m.file_type().is_symlink() => {
            return Ok(Err(Unusable::NotRegular(
                "a symlink (a run directory holds regular files only)".into(),
            )))
        }
        Ok(_) => {}
    }
    let canon_root = fs::canonicalize(root).map_err(|e| io_err(root, e))?;
    let canon = match fs::canonicalize(&path) {
        Ok(c) => c,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Ok(Err(Unusable::NotRegular("dangling symlink".into())))
        }
        Err(e) => return Err(io_err(&path, e)),
    };
    if canon != canon_root.join(rel) {
        return Ok(Err(Unusable::NotRegular(format!(
            "reached through a symlinked directory (it resolves to {}); a run directory holds regular files only",
            canon.display()
        ))));
    }
    let meta = fs::metadata(&canon).map_err(|e| io_err(&canon, e))?;
    if !meta.is_file() {
        return Ok(Err(Unusable::NotRegular("not a regular file".into())));
    }
    fs::File::open(&canon).map(Ok).map_err(|e| io_err(&path, e))
}

/// What a pass over a run directory found besides the evidence.
#[derive(Debug, Default)]
pub struct RunDirScan {
    /// Files the plan needs that could not be used, and why.
    pub unusable: BTreeMap<String, Unusable>,
    /// Paths of the tree that are not regular files inside it (symlinks,
    /// special files, hard links to outside, unlistable names), with why.
    pub tree_problems: Vec<(String, String)>,
    /// Regular files found.
    pub files: u64,
}

/// Feeds a collector every regular file of a run directory: the files it
/// wants as evidence, every other one to be sniffed. The whole tree is
/// listed under the rules `seal` applies ([`crate::manifest::scan_run_dir`]),
/// so a run directory and its bundle get the same answer.
pub fn collect_run_dir(
    root: &Path,
    collector: &mut Collector<'_>,
) -> Result<RunDirScan, RunDirError> {
    let (found, tree_problems) = crate::manifest::scan_run_dir(root)?;
    let plan = collector.plan();
    let mut wanted = plan.wanted();
    let mut scan = RunDirScan {
        files: found.len() as u64,
        tree_problems,
        ..Default::default()
    };
    for f in &found {
        let rel = f.rel.as_str();
        if wanted.contains(rel) || is_manifest_file(rel) || is_chain_candidate(rel) {
            continue;
        }
        if let Ok(mut file) = open_in_root(root, rel)? {
            collector
                .sniff(rel, &mut file)
                .map_err(|source| RunDirError::Io {
                    path: root.join(rel),
                    source,
                })?;
        }
    }
    for f in &found {
        if is_manifest_file(&f.rel) || is_chain_candidate(&f.rel) {
            wanted.insert(f.rel.clone());
        }
    }
    // Journals last: their events are then judged against
    // the client records as they stream, instead of kept per request id.
    let (journals, others): (Vec<String>, Vec<String>) = wanted
        .into_iter()
        .partition(|rel| plan.journals.contains_key(rel));
    for rel in others.into_iter().chain(journals) {
        match open_in_root(root, &rel)? {
            Ok(mut f) => {
                collector.out.offered += 1;
                collector
                    .visit(&rel, &mut f)
                    .map_err(|source| RunDirError::Io {
                        path: root.join(&rel),
                        source,
                    })?
            }
            Err(u) => {
                scan.unusable.insert(rel, u);
            }
        }
    }
    // A journal whose quoted failures must be read again:
    // opened again, its bytes compared with the first reading's.
    for (rel, why) in collector.take_deferred() {
        match open_in_root(root, &rel)? {
            Ok(mut f) => collector
                .reread(&rel, why, &mut f)
                .map_err(|source| RunDirError::Io {
                    path: root.join(&rel),
                    source,
                })?,
            Err(u) => {
                let what = match u {
                    Unusable::Missing => "it is gone".to_string(),
                    Unusable::NotRegular(why) => why,
                };
                collector.not_read_again(&rel, &what);
            }
        }
    }
    Ok(scan)
}
