//! The directory walk in manifest order, one directory's entries at a time:
//! what `check` merges with a sorted manifest without listing the
//! whole tree first.
//!
//! Manifest order is the byte order of the full paths. A depth-first walk
//! gives it when each directory's entries are sorted by their name, with a
//! `/` appended to a directory's name: every path below directory `d` starts
//! with `d/`, and no other name of the same directory contains a `/`, so the
//! keys of one directory order their subtrees exactly as the full paths
//! order. Entries are classified by the rules of [`super::walk`] (the same
//! exclusions, symlink and special-file rules, the same problem texts); the
//! files of one directory are `stat`ed in parallel.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::types::ManifestError;
use super::walk::{classify_entry, classify_stat, not_listable_root, root_file, Listing};
use super::walk::{Excludes, FileStat, FoundFile};

/// One item of the walk: a regular file, or a path that cannot be listed
/// and why.
#[derive(Debug, Clone)]
pub enum SortedEntry {
    /// A regular file (or a symlink to one).
    File(FoundFile),
    /// A path that cannot be listed, and why.
    Problem(String, String),
}

impl SortedEntry {
    /// The manifest path of the item.
    pub fn path(&self) -> &str {
        match self {
            SortedEntry::File(f) => &f.rel,
            SortedEntry::Problem(p, _) => p,
        }
    }
}

enum Child {
    Dir { rel: PathBuf, abs: PathBuf },
    Item(SortedEntry),
}

/// The regular files and unlistable paths under a root, in manifest order
/// (the byte order of their paths), one directory read at a time.
pub struct SortedWalk {
    ex: Excludes,
    /// The unvisited children of each directory on the current path,
    /// sorted, reversed (the next is last).
    stack: Vec<Vec<Child>>,
}

impl SortedWalk {
    /// Starts a walk of `root` (a directory, or a single file listed under
    /// its own name) leaving out `excludes`.
    pub fn new(root: &Path, excludes: &[String]) -> Result<Self, ManifestError> {
        let ex = Excludes::new(excludes)?;
        let meta = fs::metadata(root).map_err(|source| ManifestError::Io {
            path: root.to_path_buf(),
            source,
        })?;
        let mut w = SortedWalk {
            ex,
            stack: Vec::new(),
        };
        if meta.is_file() {
            w.stack.push(vec![Child::Item(SortedEntry::File(root_file(
                root, &meta,
            )?))]);
        } else if meta.is_dir() {
            let level = w.read_level(Path::new(""), root)?;
            w.stack.push(level);
        } else {
            return Err(not_listable_root(root));
        }
        Ok(w)
    }

    /// Reads, classifies, `stat`s and sorts the entries of one directory.
    fn read_level(&self, rel_dir: &Path, abs_dir: &Path) -> Result<Vec<Child>, ManifestError> {
        let io_err = |path: &Path, source| ManifestError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut keyed: Vec<(Vec<u8>, Child)> = Vec::new();
        let mut candidates: Vec<(Vec<u8>, String, PathBuf, bool)> = Vec::new();
        for entry in fs::read_dir(abs_dir).map_err(|e| io_err(abs_dir, e))? {
            let entry = entry.map_err(|e| io_err(abs_dir, e))?;
            let abs = entry.path();
            let ft = entry.file_type().map_err(|e| io_err(&abs, e))?;
            let relp = rel_dir.join(entry.file_name());
            let name = entry.file_name();
            match classify_entry(&relp, &abs, &ft, &self.ex, false) {
                Listing::Excluded => {}
                Listing::Descend => {
                    let mut key = name.as_encoded_bytes().to_vec();
                    key.push(b'/');
                    keyed.push((key, Child::Dir { rel: relp, abs }));
                }
                Listing::Problem(rel, why) => {
                    // A name that is not UTF-8 is keyed as it is shown.
                    let key = name.to_string_lossy().as_bytes().to_vec();
                    keyed.push((key, Child::Item(SortedEntry::Problem(rel, why))));
                }
                Listing::Candidate { rel, is_link } => {
                    candidates.push((name.as_encoded_bytes().to_vec(), rel, abs, is_link))
                }
            }
        }
        let stats: Vec<io::Result<fs::Metadata>> = candidates
            .par_iter()
            .map(|(_, _, abs, _)| fs::metadata(abs))
            .collect();
        for ((key, rel, abs, is_link), meta) in candidates.into_iter().zip(stats) {
            let item = match classify_stat(rel, &abs, is_link, meta)? {
                Ok((rel, meta)) => SortedEntry::File(FoundFile {
                    rel,
                    abs,
                    stat: FileStat::from_metadata(&meta),
                }),
                Err((rel, why)) => SortedEntry::Problem(rel, why),
            };
            keyed.push((key, Child::Item(item)));
        }
        keyed.sort_by(|a, b| b.0.cmp(&a.0));
        Ok(keyed.into_iter().map(|(_, c)| c).collect())
    }
}

impl Iterator for SortedWalk {
    type Item = Result<SortedEntry, ManifestError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let level = self.stack.last_mut()?;
            match level.pop() {
                None => {
                    self.stack.pop();
                }
                Some(Child::Item(item)) => return Some(Ok(item)),
                Some(Child::Dir { rel, abs }) => match self.read_level(&rel, &abs) {
                    Ok(level) => self.stack.push(level),
                    Err(e) => {
                        self.stack.clear();
                        return Some(Err(e));
                    }
                },
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn manifest_order_across_directories() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for p in [
            "a-c", "a/b", "a/b.x/c", "a/bz/z", "ab", "a.d/e", "B", "a/bz/-",
        ] {
            let f = r.join(p);
            fs::create_dir_all(f.parent().unwrap()).unwrap();
            fs::write(&f, p).unwrap();
        }
        std::fs::create_dir(r.join("empty")).unwrap();
        let got: Vec<String> = SortedWalk::new(r, &[])
            .unwrap()
            .map(|w| w.unwrap().path().to_string())
            .collect();
        let mut want = got.clone();
        want.sort_by(|a, b| a.as_bytes().cmp(b.as_bytes()));
        assert_eq!(got, want);
        assert_eq!(got.len(), 8, "{got:?}");
        // The same files as the unordered scan, with the same problems.
        let (mut files, _) = super::super::scan_all(r, &[]).unwrap();
        files.sort_by(|a, b| a.rel.as_bytes().cmp(b.rel.as_bytes()));
        let scanned: Vec<String> = files.into_iter().map(|f| f.rel).collect();
        assert_eq!(got, scanned);
    }
}
