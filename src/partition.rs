//! Hashing one tree on many machines: on a shared file
//! system every host sees the same files, so `manifest --partition K/N`
//! hashes a deterministic 1/N of them and `manifest merge` joins the parts.
//!
//! Every part carries the digest of the whole file list (sorted `path`,
//! size), so parts of different lists are never mixed; also the
//! digest of the tree's stat list (`path`, size, mtime), of the host name
//! and of the root it was hashed on, so that two trees that only share a
//! path/size list are refused too (`merge` requires one stat list, and one
//! root unless told that the tree is mounted at different places); and the
//! header digest of every safetensors shard, which the merged manifest
//! keeps as a single run does. Files are assigned
//! to parts by size (largest first, each to the least-loaded part, ties to
//! the lowest part, then by path), which is stable for the same list and
//! balances bytes. `merge` recomputes the assignment from the union of the
//! parts and refuses overlaps, gaps, parts of other lists, a part count
//! other than N, a part given twice, and a file in the wrong part; the
//! merged manifest is the one a single machine computes.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::digest::{Hasher, Sha256Digest};
use crate::manifest::{self, BuildOptions, Entry, Manifest, ManifestError};
use crate::progress::Progress;

/// Schema tag of a manifest part.
pub const PART_SCHEMA: &str = "proofpack/manifest-part/v1";

/// Errors of partitioned hashing and merging (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PartitionError {
    /// Listing or hashing failed.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// `--partition` is not `K/N` with 1 <= K <= N.
    #[error("--partition {0:?}: expected K/N with 1 <= K <= N (e.g. 2/8)")]
    BadSpec(String),
    /// A part file cannot be read as a part.
    #[error("{origin}: not a manifest part: {reason}")]
    BadPart {
        /// The part file.
        origin: String,
        /// Why.
        reason: String,
    },
    /// The parts do not form one whole.
    #[error("cannot merge: {0}")]
    Mismatch(String),
}

/// One part: the files of a partition and the list they were taken from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Part {
    /// Always [`PART_SCHEMA`].
    pub schema: String,
    /// This part, 1-based.
    pub part: u64,
    /// How many parts the list is split into.
    pub parts: u64,
    /// `sha256:<hex>` of the whole sorted file list (`path NUL size LF`).
    pub list: String,
    /// Files in the whole list.
    pub list_files: u64,
    /// Bytes in the whole list.
    pub list_bytes: u64,
    /// `sha256:<hex>` of the tree's stat list (sorted `path NUL size
    /// NUL mtime_ns LF`, mtime in nanoseconds since the epoch).
    pub stat_list: String,
    /// `sha256:<hex>` of the name of the host that hashed the part.
    pub host: String,
    /// `sha256:<hex>` of the root's absolute path on that host.
    pub root: String,
    /// This part's entries, sorted by path.
    pub entries: Vec<PartEntry>,
}

/// A file of a part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PartEntry {
    /// Path relative to the root.
    pub path: String,
    /// Size in bytes.
    pub size: u64,
    /// SHA-256, lowercase hex.
    pub sha256: Sha256Digest,
    /// A safetensors shard's header digest (its first 8 + N bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub header_sha256: Option<Sha256Digest>,
}

/// Parses `K/N`.
pub fn parse_spec(s: &str) -> Result<(u64, u64), PartitionError> {
    let bad = || PartitionError::BadSpec(s.to_string());
    let (k, n) = s.split_once('/').ok_or_else(bad)?;
    let (k, n): (u64, u64) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || n == 0 || k > n || n > 1_000_000 {
        return Err(bad());
    }
    Ok((k, n))
}

/// The digest of a sorted list of (path, size).
fn list_digest(list: &[(&str, u64)]) -> Sha256Digest {
    let mut h = Hasher::new();
    for (p, s) in list {
        h.update(p.as_bytes());
        h.update(b"\0");
        h.update(s.to_string().as_bytes());
        h.update(b"\n");
    }
    h.finish().0
}

/// The digest of a sorted stat list (path, size, mtime in ns).
fn stat_digest(list: &[(&str, u64, i128)]) -> Sha256Digest {
    let mut h = Hasher::new();
    for (p, s, m) in list {
        h.update(p.as_bytes());
        h.update(b"\0");
        h.update(s.to_string().as_bytes());
        h.update(b"\0");
        h.update(m.to_string().as_bytes());
        h.update(b"\n");
    }
    h.finish().0
}

/// This machine's host name (Linux: the kernel's), for the part's `host`.
fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .ok()
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_default()
}

/// The part (1-based) of every file of a sorted list.
pub fn assign(list: &[(&str, u64)], parts: u64) -> Vec<u64> {
    let mut order: Vec<usize> = (0..list.len()).collect();
    order.sort_by(|a, b| list[*b].1.cmp(&list[*a].1).then(list[*a].0.cmp(list[*b].0)));
    let mut load = vec![0u128; parts as usize];
    let mut count = vec![0u64; parts as usize];
    let mut out = vec![0u64; list.len()];
    for i in order {
        let k = (0..parts as usize)
            .min_by_key(|k| (load[*k], count[*k], *k))
            .unwrap_or(0);
        load[k] += list[i].1 as u128;
        count[k] += 1;
        out[i] = k as u64 + 1;
    }
    out
}

/// Hashes part `k` of `n` of the tree at `root` (the walk rules of
/// `manifest`, excludes included).
pub fn build_part(
    root: &Path,
    k: u64,
    n: u64,
    opts: &BuildOptions<'_>,
    progress: &dyn Progress,
) -> Result<Part, PartitionError> {
    let mut files = manifest::scan(root, &opts.excludes)?;
    files.sort_by(|a, b| a.rel.as_bytes().cmp(b.rel.as_bytes()));
    let list: Vec<(&str, u64)> = files
        .iter()
        .map(|f| (f.rel.as_str(), f.stat.size))
        .collect();
    let owner = assign(&list, n);
    let digest = list_digest(&list);
    let mine: Vec<manifest::FoundFile> = files
        .iter()
        .zip(&owner)
        .filter(|(_, o)| **o == k)
        .map(|(f, _)| f.clone())
        .collect();
    let total: u64 = list.iter().map(|(_, s)| s).sum();
    let stats: Vec<(&str, u64, i128)> = files
        .iter()
        .map(|f| (f.rel.as_str(), f.stat.size, f.stat.mtime_ns))
        .collect();
    let abs_root = std::fs::canonicalize(root).map_err(|source| ManifestError::Io {
        path: root.to_path_buf(),
        source,
    })?;
    progress.start(mine.iter().map(|f| f.stat.size).sum(), mine.len() as u64);
    let mut entries = manifest::hash_files(&mine, opts, progress)?;
    progress.finish();
    let headers: BTreeMap<String, Sha256Digest> = manifest::header_digests(&mine, opts.threads)?
        .into_iter()
        .collect();
    entries.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
    Ok(Part {
        schema: PART_SCHEMA.into(),
        part: k,
        parts: n,
        list: digest.prefixed(),
        list_files: list.len() as u64,
        list_bytes: total,
        stat_list: stat_digest(&stats).prefixed(),
        host: Sha256Digest::of_bytes(host_name().as_bytes()).prefixed(),
        root: Sha256Digest::of_bytes(abs_root.as_os_str().as_encoded_bytes()).prefixed(),
        entries: entries
            .into_iter()
            .map(|e| PartEntry {
                size: e.size.unwrap_or(0),
                header_sha256: headers.get(&e.path).copied(),
                path: e.path,
                sha256: e.sha256,
            })
            .collect(),
    })
}

impl Part {
    /// Parses a part file.
    pub fn parse(bytes: &[u8], origin: &str) -> Result<Part, PartitionError> {
        let bad = |reason: String| PartitionError::BadPart {
            origin: origin.into(),
            reason,
        };
        crate::strictjson::reject_duplicate_json_keys(bytes).map_err(|e| bad(e.to_string()))?;
        let p: Part = serde_json::from_slice(bytes).map_err(|e| {
            let mut m = e.to_string();
            if ["stat_list", "host", "root"]
                .iter()
                .any(|f| m.contains(&format!("missing field `{f}`")))
            {
                m.push_str(" (a part written by an older proofpack carries no stat list, host or root: hash it again with this version)");
            }
            bad(m)
        })?;
        if p.schema != PART_SCHEMA {
            return Err(bad(format!(
                "schema is {:?}, expected {PART_SCHEMA:?}",
                p.schema
            )));
        }
        if p.part == 0 || p.part > p.parts {
            return Err(bad(format!("part {} of {}", p.part, p.parts)));
        }
        for (field, v) in [
            ("stat_list", &p.stat_list),
            ("host", &p.host),
            ("root", &p.root),
        ] {
            Sha256Digest::parse_prefixed(v).map_err(|e| bad(format!("{field}: {e}")))?;
        }
        // Each path says what is wrong with it, before any list comparison
        // could blame a gap.
        for (i, e) in p.entries.iter().enumerate() {
            manifest::validate_path(&e.path)
                .map_err(|why| bad(format!("entries[{i}]: path {:?}: {why}", e.path)))?;
        }
        Ok(p)
    }

    /// The part as JSON text (pretty, ending with a newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a part serialises");
        s.push('\n');
        s
    }
}

/// Joins parts into the manifest of the whole tree, refusing anything that
/// is not exactly the N parts of one tree: one list, one stat list, and one
/// root unless `allow_roots` (the same tree mounted at different places).
pub fn merge(parts: &[(String, Part)], allow_roots: bool) -> Result<Manifest, PartitionError> {
    let mm = |s: String| PartitionError::Mismatch(s);
    let Some((first_origin, first)) = parts.first() else {
        return Err(mm("no parts given".into()));
    };
    for (o, p) in parts {
        if p.parts != first.parts
            || p.list != first.list
            || p.list_files != first.list_files
            || p.list_bytes != first.list_bytes
        {
            return Err(mm(format!(
                "{o} is part {}/{} of list {}, {first_origin} is part {}/{} of list {}: parts of different file lists",
                p.part, p.parts, p.list, first.part, first.parts, first.list
            )));
        }
    }
    for (o, p) in parts {
        if p.stat_list != first.stat_list {
            return Err(mm(format!(
                "{o} was hashed from stat list {}, {first_origin} from {}: the parts share a path/size list but not the files' times, so they were hashed on different trees (copies must keep their mtimes)",
                p.stat_list, first.stat_list
            )));
        }
        if p.root != first.root && !allow_roots {
            return Err(mm(format!(
                "{o} was hashed under root {}, {first_origin} under {}: parts of different roots (if the same tree is mounted at different places, pass --allow-roots)",
                p.root, first.root
            )));
        }
    }
    let mut seen: BTreeMap<u64, &str> = BTreeMap::new();
    for (o, p) in parts {
        if let Some(prev) = seen.insert(p.part, o) {
            return Err(mm(format!(
                "part {} is given twice ({prev} and {o})",
                p.part
            )));
        }
    }
    if parts.len() as u64 != first.parts {
        let missing: Vec<String> = (1..=first.parts)
            .filter(|k| !seen.contains_key(k))
            .map(|k| k.to_string())
            .collect();
        return Err(mm(format!(
            "{} part(s) given, the list is split into {}; missing part(s) {}",
            parts.len(),
            first.parts,
            missing.join(", ")
        )));
    }
    let mut all: BTreeMap<&str, (&PartEntry, u64, &str)> = BTreeMap::new();
    for (o, p) in parts {
        for e in &p.entries {
            if let Some((_, k, prev)) = all.insert(e.path.as_str(), (e, p.part, o)) {
                return Err(mm(format!(
                    "{} is in part {k} ({prev}) and part {} ({o}): parts overlap",
                    e.path, p.part
                )));
            }
        }
    }
    let list: Vec<(&str, u64)> = all.iter().map(|(p, (e, _, _))| (*p, e.size)).collect();
    if list_digest(&list).prefixed() != first.list || list.len() as u64 != first.list_files {
        return Err(mm(format!(
            "the parts hold {} files, the list they were split from has {}: a part is missing files (a gap), or holds other files than its list",
            list.len(),
            first.list_files
        )));
    }
    let owner = assign(&list, first.parts);
    for ((path, (_, k, o)), want) in all.iter().zip(&owner) {
        if k != want {
            return Err(mm(format!(
                "{path} is in part {k} ({o}) but belongs to part {want}"
            )));
        }
    }
    let headers: Vec<(String, Sha256Digest)> = all
        .values()
        .filter_map(|(e, _, _)| e.header_sha256.map(|h| (e.path.clone(), h)))
        .collect();
    let entries: Vec<Entry> = all
        .into_values()
        .map(|(e, _, _)| Entry {
            path: e.path.clone(),
            sha256: e.sha256,
            size: Some(e.size),
        })
        .collect();
    let mut m = Manifest::from_entries(entries, "merged parts")?;
    for (path, h) in headers {
        m.set_header_sha256(&path, h, "merged parts")?;
    }
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignment_is_balanced_and_stable() {
        let list = [("a", 10), ("b", 9), ("c", 1), ("d", 1), ("e", 0)];
        let a = assign(&list, 2);
        assert_eq!(a, assign(&list, 2));
        let load = |k| {
            list.iter()
                .zip(&a)
                .filter(|(_, o)| **o == k)
                .map(|(e, _)| e.1)
                .sum::<u64>()
        };
        assert_eq!((load(1), load(2)), (11, 10));
        assert!(assign(&list, 1).iter().all(|k| *k == 1));
        assert_eq!(parse_spec("2/8").unwrap(), (2, 8));
        for bad in ["0/2", "3/2", "x/2", "2", "1/0"] {
            assert!(parse_spec(bad).is_err(), "{bad}");
        }
    }
}
