//! Access to a run's files, the same for a run directory and a bundle.
//!
//! Verification needs two kinds of files: small ones read whole (the
//! attestations, the manifests under `manifests/`) and large ones streamed
//! once (client records, journals). A [`Collector`] says which paths it
//! wants and consumes each as a reader; a run directory feeds it from disk
//! and a bundle feeds it from the verified tar stream, so the checks never
//! know which one they got. Every file is hashed while it is read, which is
//! what the pins with a `path` are compared against.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use super::records::{read_client_records, read_journal, ClientSummary, JournalSummary};
use super::schema::{Pins, Qualification};
use crate::digest::{Hasher, Sha256Digest};
use crate::manifest::validate_path;

/// Largest small file (attestation, manifest) read whole.
pub const MAX_CAPTURED: u64 = 64 << 20;

/// Which files of a run verification reads, and in what role.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The qualification.
    pub q: Qualification,
    /// Client records path -> point index.
    pub clients: BTreeMap<String, usize>,
    /// Journal path -> names of the points reading it.
    pub journals: BTreeMap<String, Vec<String>>,
    /// Attestation paths.
    pub attestations: BTreeSet<String>,
    /// Paths named by pins.
    pub pin_paths: BTreeSet<String>,
}

impl Plan {
    /// The plan for a parsed qualification and optional pins.
    pub fn new(q: Qualification, pins: Option<&Pins>) -> Plan {
        let mut clients = BTreeMap::new();
        let mut journals: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (i, p) in q.points.iter().enumerate() {
            clients.insert(p.client_records.clone(), i);
            journals
                .entry(p.journal.clone())
                .or_default()
                .push(p.name.clone());
        }
        let attestations = q.engines.iter().map(|e| e.attestation.clone()).collect();
        let pin_paths = pins
            .map(|p| p.pins.iter().filter_map(|p| p.path.clone()).collect())
            .unwrap_or_default();
        Plan {
            q,
            clients,
            journals,
            attestations,
            pin_paths,
        }
    }
}

/// True for the files under `manifests/` (kept whole, for pins with `files`).
pub fn is_manifest_file(rel: &str) -> bool {
    rel.starts_with("manifests/")
}

/// What the pass over the evidence found.
#[derive(Debug, Default)]
pub struct Collected {
    /// Whole contents of attestations and `manifests/*` files.
    pub small: BTreeMap<String, Vec<u8>>,
    /// Files too large to keep whole.
    pub too_large: BTreeSet<String>,
    /// SHA-256 of every file read.
    pub hashes: BTreeMap<String, Sha256Digest>,
    /// Point index -> its client records.
    pub clients: BTreeMap<usize, ClientSummary>,
    /// Journal path -> what it holds.
    pub journals: BTreeMap<String, JournalSummary>,
}

/// Reads the files a [`Plan`] needs as they are offered.
pub struct Collector<'a> {
    plan: &'a Plan,
    /// The result so far.
    pub out: Collected,
}

struct HashingReader<'r> {
    inner: &'r mut dyn Read,
    hasher: Hasher,
}

impl Read for HashingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
}

impl<'a> Collector<'a> {
    /// A collector for `plan`.
    pub fn new(plan: &'a Plan) -> Self {
        Collector {
            plan,
            out: Collected::default(),
        }
    }

    /// True if verification reads `rel`.
    pub fn wants(&self, rel: &str) -> bool {
        self.plan.clients.contains_key(rel)
            || self.plan.journals.contains_key(rel)
            || self.plan.attestations.contains(rel)
            || self.plan.pin_paths.contains(rel)
            || is_manifest_file(rel)
    }

    /// Consumes one file. `Err` only on I/O errors; malformed content is
    /// recorded for the checks.
    pub fn visit(&mut self, rel: &str, content: &mut dyn Read) -> io::Result<()> {
        let mut r = HashingReader {
            inner: content,
            hasher: Hasher::new(),
        };
        if let Some(&i) = self.plan.clients.get(rel) {
            let p = &self.plan.q.points[i];
            let s = read_client_records(
                &mut r,
                rel,
                &p.name,
                self.plan.q.slo.ttft_s,
                self.plan.q.slo.tpot_s,
            )?;
            self.out.clients.insert(i, s);
        } else if let Some(names) = self.plan.journals.get(rel) {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let s = read_journal(&mut r, rel, &names)?;
            self.out.journals.insert(rel.to_string(), s);
        } else if self.plan.attestations.contains(rel) || is_manifest_file(rel) {
            let mut buf = Vec::new();
            (&mut r).take(MAX_CAPTURED + 1).read_to_end(&mut buf)?;
            if buf.len() as u64 > MAX_CAPTURED {
                self.out.too_large.insert(rel.to_string());
            } else {
                self.out.small.insert(rel.to_string(), buf);
            }
        }
        io::copy(&mut r, &mut io::sink())?;
        let (digest, _) = r.hasher.finish();
        self.out.hashes.insert(rel.to_string(), digest);
        Ok(())
    }
}

/// Errors reading a run directory.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunDirError {
    /// An I/O operation failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

/// Why a run-directory file cannot be used as evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// No such file.
    Missing,
    /// Not a regular file, or resolves outside the run root.
    NotRegular(String),
}

/// Opens `rel` under `root` if it is a regular file that resolves inside the
/// root (symlinks that escape are refused).
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
    if !canon.starts_with(&canon_root) {
        return Ok(Err(Unusable::NotRegular(format!(
            "resolves outside the run directory, to {}",
            canon.display()
        ))));
    }
    let meta = fs::metadata(&canon).map_err(|e| io_err(&canon, e))?;
    if !meta.is_file() {
        return Ok(Err(Unusable::NotRegular("not a regular file".into())));
    }
    fs::File::open(&canon).map(Ok).map_err(|e| io_err(&path, e))
}

/// Feeds a collector every file it wants from a run directory. Returns the
/// paths that could not be used (missing, not regular, escaping the root).
pub fn collect_run_dir(
    root: &Path,
    collector: &mut Collector<'_>,
) -> Result<BTreeMap<String, Unusable>, RunDirError> {
    let mut wanted: BTreeSet<String> = BTreeSet::new();
    let plan = collector.plan;
    wanted.extend(plan.clients.keys().cloned());
    wanted.extend(plan.journals.keys().cloned());
    wanted.extend(plan.attestations.iter().cloned());
    wanted.extend(plan.pin_paths.iter().cloned());
    let mdir = root.join("manifests");
    if let Ok(rd) = fs::read_dir(&mdir) {
        for e in rd {
            let e = e.map_err(|source| RunDirError::Io {
                path: mdir.clone(),
                source,
            })?;
            if let Some(name) = e.file_name().to_str() {
                wanted.insert(format!("manifests/{name}"));
            }
        }
    }
    let mut unusable = BTreeMap::new();
    for rel in wanted {
        match open_in_root(root, &rel)? {
            Ok(mut f) => collector
                .visit(&rel, &mut f)
                .map_err(|source| RunDirError::Io {
                    path: root.join(&rel),
                    source,
                })?,
            Err(u) => {
                if !(is_manifest_file(&rel)
                    && matches!(u, Unusable::NotRegular(_))
                    && root.join(&rel).is_dir())
                {
                    unusable.insert(rel, u);
                }
            }
        }
    }
    Ok(unusable)
}
