//! Listing a tree without reading content: the regular files under a root
//! with their stat facts ([`FileStat`], [`FoundFile`]), `--exclude` patterns
//! ([`Excludes`]), and the symlink, special-file and name rules that make
//! every unlistable path a named problem ([`scan`], [`scan_all`],
//! [`scan_run_dir`]).

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use rayon::prelude::*;

use super::types::{validate_path, ManifestError};

/// `stat` facts about a file found by a scan, enough to key a hash cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileStat {
    /// Device id.
    pub dev: u64,
    /// Inode number.
    pub ino: u64,
    /// Size in bytes.
    pub size: u64,
    /// Modification time, nanoseconds since the epoch.
    pub mtime_ns: i128,
    /// Status-change time, nanoseconds since the epoch.
    pub ctime_ns: i128,
}

impl FileStat {
    /// Extracts the stat facts from metadata (of the file itself, links followed).
    pub fn from_metadata(m: &fs::Metadata) -> Self {
        use std::os::unix::fs::MetadataExt;
        FileStat {
            dev: m.dev(),
            ino: m.ino(),
            size: m.len(),
            mtime_ns: m.mtime() as i128 * 1_000_000_000 + m.mtime_nsec() as i128,
            ctime_ns: m.ctime() as i128 * 1_000_000_000 + m.ctime_nsec() as i128,
        }
    }
}

/// A regular file found under a root.
#[derive(Debug, Clone)]
pub struct FoundFile {
    /// Manifest path, relative to the root.
    pub rel: String,
    /// Path on disk.
    pub abs: PathBuf,
    /// Its stat facts (through symlinks).
    pub stat: FileStat,
}

/// Compiled `--exclude` patterns. A pattern with a `/` matches the whole
/// relative path; one without matches any single path component (so `*.tmp`
/// matches at any depth and `.git` leaves out the whole `.git` directory).
/// `*` does not cross `/`; `**` does.
pub struct Excludes {
    full: GlobSet,
    component: GlobSet,
}

impl Excludes {
    /// Compiles patterns.
    pub fn new(patterns: &[String]) -> Result<Self, ManifestError> {
        let mut full = GlobSetBuilder::new();
        let mut component = GlobSetBuilder::new();
        for p in patterns {
            let g = GlobBuilder::new(p.trim_end_matches('/'))
                .literal_separator(true)
                .build()
                .map_err(|e| ManifestError::BadGlob {
                    pattern: p.clone(),
                    reason: e.kind().to_string(),
                })?;
            if p.trim_end_matches('/').contains('/') {
                full.add(g);
            } else {
                component.add(g);
            }
        }
        let build = |b: GlobSetBuilder| {
            b.build().map_err(|e| ManifestError::BadGlob {
                pattern: patterns.join(" "),
                reason: e.to_string(),
            })
        };
        Ok(Excludes {
            full: build(full)?,
            component: build(component)?,
        })
    }

    /// True when a relative path (file or directory) is excluded.
    pub fn is_excluded(&self, rel: &str) -> bool {
        self.is_excluded_path(Path::new(rel))
    }

    /// [`Excludes::is_excluded`] on the path's bytes as they are, so that a
    /// name that is not UTF-8 can be excluded too.
    pub fn is_excluded_path(&self, rel: &Path) -> bool {
        self.full.is_match(rel) || rel.file_name().is_some_and(|c| self.component.is_match(c))
    }
}

/// Lists the regular files under `root` (or `root` itself if it is a file),
/// applying the spec's symlink and special-file rules. Reads no content.
/// Any path that cannot be listed makes it fail with
/// [`ManifestError::Unlistable`], naming every such path.
pub fn scan(root: &Path, excludes: &[String]) -> Result<Vec<FoundFile>, ManifestError> {
    let (files, problems) = scan_all(root, excludes)?;
    if !problems.is_empty() {
        return Err(ManifestError::Unlistable { problems });
    }
    Ok(files)
}

/// Paths that cannot be listed, with the reason for each.
pub type Problems = Vec<(String, String)>;

/// Like [`scan`], but returns the unlistable paths beside the listable files
/// instead of failing on them (for [`check`](super::check()), where they are drift).
pub fn scan_all(
    root: &Path,
    excludes: &[String],
) -> Result<(Vec<FoundFile>, Problems), ManifestError> {
    scan_impl(root, excludes, false)
}

/// Lists a run directory under the stricter rules of sealed evidence:
/// regular files only. A symlink (wherever it points), a special
/// file, a non-UTF-8 name and a hard link whose other links lie outside the
/// directory are problems, each named: what a bundle holds is exactly the
/// bytes that lie in the directory, the same whether it is sealed or
/// verified in place. Excludes nothing.
pub fn scan_run_dir(root: &Path) -> Result<(Vec<FoundFile>, Problems), ManifestError> {
    scan_impl(root, &[], true)
}

/// How the walk treats one directory entry, before any `stat` (shared by
/// [`scan_impl`] and the sorted walk of [`super::sorted_walk`]).
pub(super) enum Listing {
    /// Left out by `--exclude` (a directory is not entered).
    Excluded,
    /// A directory to enter.
    Descend,
    /// Cannot be listed; a directory is not entered.
    Problem(String, String),
    /// A file or symlink to `stat` (through the link).
    Candidate { rel: String, is_link: bool },
}

/// Classifies the entry at `relp` (relative to the root) of type `ft`.
pub(super) fn classify_entry(
    relp: &Path,
    abs: &Path,
    ft: &fs::FileType,
    ex: &Excludes,
    strict: bool,
) -> Listing {
    if ex.is_excluded_path(relp) {
        return Listing::Excluded;
    }
    let Some(rel) = relp.to_str() else {
        return Listing::Problem(
            relp.to_string_lossy().into_owned(),
            "name is not valid UTF-8".into(),
        );
    };
    let rel = rel.to_string();
    if ft.is_dir() {
        return Listing::Descend;
    }
    if let Err(r) = validate_path(&rel) {
        return Listing::Problem(rel, r);
    }
    if !ft.is_symlink() && !ft.is_file() {
        return Listing::Problem(rel, special_kind(ft).to_string());
    }
    if strict && ft.is_symlink() {
        let target = fs::read_link(abs)
            .map(|t| format!(" to {}", t.display()))
            .unwrap_or_default();
        return Listing::Problem(
            rel,
            format!("symlink{target} (a run directory holds regular files only: replace the link with the file itself)"),
        );
    }
    Listing::Candidate {
        rel,
        is_link: ft.is_symlink(),
    }
}

/// A candidate that is a regular file (its path and metadata), or the path
/// and why it cannot be listed.
pub(super) type Stated = Result<(String, fs::Metadata), (String, String)>;

/// What `stat` (through links) of a candidate says: a regular file, or why
/// it cannot be listed. `Err` for a file that cannot be `stat`ed at all.
pub(super) fn classify_stat(
    rel: String,
    abs: &Path,
    is_link: bool,
    meta: io::Result<fs::Metadata>,
) -> Result<Stated, ManifestError> {
    Ok(match meta {
        Ok(m) if m.is_file() => Ok((rel, m)),
        Ok(m) if is_link && m.is_dir() => Err((rel, "symlink to a directory (only regular files are listed; give the target directory its own manifest or --exclude the link)".into())),
        Ok(m) if is_link => Err((rel, format!("symlink to a {}", special_kind(&m.file_type())))),
        // Replaced by something else since the directory was read.
        Ok(m) => Err((rel, special_kind(&m.file_type()).to_string())),
        Err(e) if is_link && e.kind() == io::ErrorKind::NotFound => {
            Err((rel, "dangling symlink (its target does not exist)".into()))
        }
        Err(e) if is_link => Err((rel, format!("symlink cannot be followed: {e}"))),
        Err(e) => {
            return Err(ManifestError::Io {
                path: abs.to_path_buf(),
                source: e,
            })
        }
    })
}

/// The root when it is a regular file: listed under its own name.
pub(super) fn root_file(root: &Path, meta: &fs::Metadata) -> Result<FoundFile, ManifestError> {
    let name =
        root.file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| ManifestError::Unlistable {
                problems: vec![(
                    root.display().to_string(),
                    "file name is not valid UTF-8".into(),
                )],
            })?;
    validate_path(name).map_err(|r| ManifestError::Unlistable {
        problems: vec![(name.to_string(), r)],
    })?;
    Ok(FoundFile {
        rel: name.to_string(),
        abs: root.to_path_buf(),
        stat: FileStat::from_metadata(meta),
    })
}

/// The root must be a regular file or a directory.
pub(super) fn not_listable_root(root: &Path) -> ManifestError {
    ManifestError::Unlistable {
        problems: vec![(
            root.display().to_string(),
            "not a regular file or directory".into(),
        )],
    }
}

fn scan_impl(
    root: &Path,
    excludes: &[String],
    strict: bool,
) -> Result<(Vec<FoundFile>, Problems), ManifestError> {
    let ex = Excludes::new(excludes)?;
    let io_err = |path: &Path, source| ManifestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let root_meta = fs::metadata(root).map_err(|e| io_err(root, e))?;
    let mut problems: Vec<(String, String)> = Vec::new();
    let mut files = Vec::new();
    if root_meta.is_file() {
        files.push(root_file(root, &root_meta)?);
        return Ok((files, Vec::new()));
    }
    if !root_meta.is_dir() {
        return Err(not_listable_root(root));
    }
    let mut candidates: Vec<(String, PathBuf, bool)> = Vec::new();
    walk_tree(root, &ex, None, |w| match w {
        Walked::File { rel, abs } => candidates.push((rel, abs, false)),
        Walked::Symlink { rel, abs } if strict => {
            let target = fs::read_link(&abs)
                .map(|t| format!(" to {}", t.display()))
                .unwrap_or_default();
            problems.push((
                rel,
                format!("symlink{target} (a run directory holds regular files only: replace the link with the file itself)"),
            ));
        }
        Walked::Symlink { rel, abs } => candidates.push((rel, abs, true)),
        Walked::Special { rel, kind } => problems.push((rel, kind.to_string())),
        Walked::BadName { rel, why } => problems.push((rel, why)),
    })?;
    // stat in parallel: on trees of many small files the walk's stat calls
    // are a large share of the time, and they need no order.
    let stats: Vec<io::Result<fs::Metadata>> = candidates
        .par_iter()
        .map(|(_, abs, _)| fs::metadata(abs))
        .collect();
    let mut links: std::collections::BTreeMap<(u64, u64), (u64, Vec<String>)> =
        std::collections::BTreeMap::new();
    for ((rel, abs, is_link), meta) in candidates.into_iter().zip(stats) {
        let (rel, meta) = match classify_stat(rel, &abs, is_link, meta)? {
            Ok(found) => found,
            Err(problem) => {
                problems.push(problem);
                continue;
            }
        };
        if strict {
            use std::os::unix::fs::MetadataExt;
            if meta.nlink() > 1 {
                links
                    .entry((meta.dev(), meta.ino()))
                    .or_insert_with(|| (meta.nlink(), Vec::new()))
                    .1
                    .push(rel.clone());
            }
        }
        files.push(FoundFile {
            rel,
            abs,
            stat: FileStat::from_metadata(&meta),
        });
    }
    for (nlink, rels) in links.into_values() {
        if (rels.len() as u64) < nlink {
            for rel in &rels {
                problems.push((
                    rel.clone(),
                    format!(
                        "hard link with {nlink} links, {} of them inside the run directory (its content can change from outside: copy the file instead)",
                        rels.len()
                    ),
                ));
            }
        }
    }
    if strict {
        portable_problems(&files, &mut problems);
        let bad: std::collections::BTreeSet<&str> =
            problems.iter().map(|(p, _)| p.as_str()).collect();
        files.retain(|f| !bad.contains(f.rel.as_str()));
    }
    problems.sort();
    Ok((files, problems))
}

/// The portable-name rule of sealed evidence (contract section
/// 5.1, [`super::portable`]): every path that holds a name macOS or
/// Windows would read as another file, and every path equal to an earlier
/// one (in byte order) after NFC and case folding, naming both.
fn portable_problems(files: &[FoundFile], problems: &mut Problems) {
    let mut rels: Vec<&str> = files.iter().map(|f| f.rel.as_str()).collect();
    rels.sort_unstable();
    let mut seen = super::portable::Collisions::default();
    for rel in rels {
        if let Some(why) = super::portable::path_problem(rel) {
            problems.push((rel.to_string(), format!("not a portable name: {why}")));
        } else if let Some(other) = seen.register(rel) {
            problems.push((
                rel.to_string(),
                format!("not a portable name: {rel} and {other} are one file on macOS and Windows (equal after Unicode NFC and case folding)"),
            ));
        }
    }
}

/// One entry found by [`walk_tree`] (directories are walked into, not
/// reported; symbolic links are reported, not followed).
#[derive(Debug)]
pub enum Walked {
    /// A regular file.
    File {
        /// Path relative to the root.
        rel: String,
        /// Path on disk.
        abs: PathBuf,
    },
    /// A symbolic link, wherever it points.
    Symlink {
        /// Path relative to the root.
        rel: String,
        /// Path on disk.
        abs: PathBuf,
    },
    /// A FIFO, socket or device.
    Special {
        /// Path relative to the root.
        rel: String,
        /// What it is ("FIFO (named pipe)", "socket", ...).
        kind: &'static str,
    },
    /// A name that cannot be a listed path: not UTF-8 (shown lossily, and
    /// not walked into when a directory), or refused by [`validate_path`].
    BadName {
        /// The path relative to the root, lossily decoded when not UTF-8.
        rel: String,
        /// Why.
        why: String,
    },
}

/// Walks the directory `root` without following symbolic links, giving
/// every entry not `excluded` to `visit`; reads no content. With `max`,
/// stops after that many entries and returns true (the walk was cut
/// short). The one walker of a tree: [`scan`] and the receipt's artifact
/// folders use it.
pub fn walk_tree(
    root: &Path,
    excluded: &Excludes,
    max: Option<usize>,
    mut visit: impl FnMut(Walked),
) -> Result<bool, ManifestError> {
    let mut seen = 0usize;
    let mut it = walkdir::WalkDir::new(root)
        .follow_links(false)
        .min_depth(1)
        .into_iter();
    while let Some(next) = it.next() {
        let entry = match next {
            Ok(e) => e,
            Err(e) => {
                let p = e.path().unwrap_or(root).to_path_buf();
                let source = e
                    .into_io_error()
                    .unwrap_or_else(|| io::Error::other("directory walk failed"));
                return Err(ManifestError::Io { path: p, source });
            }
        };
        let relp = entry
            .path()
            .strip_prefix(root)
            .expect("walkdir yields paths under the root");
        if excluded.is_excluded_path(relp) {
            if entry.file_type().is_dir() {
                it.skip_current_dir();
            }
            continue;
        }
        if max.is_some_and(|m| seen >= m) {
            return Ok(true);
        }
        seen += 1;
        let ft = entry.file_type();
        let rel = match relp.to_str() {
            Some(s) => s.to_string(),
            None => {
                if ft.is_dir() {
                    it.skip_current_dir();
                }
                visit(Walked::BadName {
                    rel: relp.to_string_lossy().into_owned(),
                    why: "name is not valid UTF-8".into(),
                });
                continue;
            }
        };
        if ft.is_dir() {
            continue;
        }
        if let Err(why) = validate_path(&rel) {
            visit(Walked::BadName { rel, why });
            continue;
        }
        if ft.is_symlink() {
            visit(Walked::Symlink {
                rel,
                abs: entry.into_path(),
            });
        } else if ft.is_file() {
            visit(Walked::File {
                rel,
                abs: entry.into_path(),
            });
        } else {
            visit(Walked::Special {
                rel,
                kind: special_kind(&ft),
            });
        }
    }
    Ok(false)
}

fn special_kind(ft: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if ft.is_socket() {
        "socket"
    } else if ft.is_fifo() {
        "FIFO (named pipe)"
    } else if ft.is_block_device() {
        "block device"
    } else if ft.is_char_device() {
        "character device"
    } else if ft.is_dir() {
        "directory"
    } else {
        "special file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excludes() {
        let ex = Excludes::new(&["*.tmp".into(), ".git".into(), "logs/*.txt".into()]).unwrap();
        assert!(ex.is_excluded("a/b.tmp"));
        assert!(ex.is_excluded(".git"));
        assert!(ex.is_excluded("logs/x.txt"));
        assert!(!ex.is_excluded("logs/sub/x.txt"));
        assert!(!ex.is_excluded("a/b.tmpx"));
    }
}
