//! Content-addressed manifests of file sets (spec section 2).
//!
//! A manifest is the identity of a set of regular files: one `path:sha256`
//! line per file, sorted by the UTF-8 bytes of the path. Its SHA-256 is the
//! value that gets published, so every rule that shapes those bytes lives here
//! and nowhere else: which paths are representable ([`validate_path`]), how the
//! three interchange formats are written and read, and how a directory becomes
//! a manifest ([`build`]).
//!
//! Building is the part that must run at terabyte scale. SHA-256 cannot be
//! split inside one file, so the ceiling is one core's SHA-NI rate per file
//! times the cores across files. [`build`] therefore stats everything first,
//! then hashes files in parallel, largest first, so that one huge shard
//! started last cannot leave the other cores idle at the end.
//!
//! Nothing is skipped silently: a dangling symlink, a symlink to a directory,
//! a socket, FIFO or device, and a name that cannot be written canonically are
//! all errors that name the path. Only `--exclude` removes files, and only
//! because the user said so.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::digest::{DigestError, Sha256Digest};
use crate::progress::Progress;
use crate::report::{Check, Report};

/// Schema tag of the JSON manifest record.
pub const MANIFEST_SCHEMA: &str = "proofpack/manifest/v1";

/// Largest manifest file proofpack reads (a million entries take ~100 MB).
pub const MAX_MANIFEST_BYTES: u64 = 1 << 30;

/// Errors from building, reading or writing manifests.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestError {
    /// An I/O operation on a path failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path involved.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A file could not be hashed.
    #[error(transparent)]
    Digest(#[from] DigestError),
    /// One or more paths under the root cannot be listed in a manifest.
    #[error("{}", unlistable_message(problems))]
    Unlistable {
        /// Each path (relative to the root, lossily decoded) and why.
        problems: Vec<(String, String)>,
    },
    /// A file changed size while it was being hashed.
    #[error("{}: changed while it was being hashed (stat said {expected} bytes, read {actual}); rerun once it is stable", path.display())]
    ChangedWhileHashing {
        /// The file.
        path: PathBuf,
        /// Size from stat before hashing.
        expected: u64,
        /// Bytes actually hashed.
        actual: u64,
    },
    /// A manifest file is malformed.
    #[error("{origin}: line {line}: {reason}")]
    Parse {
        /// The manifest file (or other origin label).
        origin: String,
        /// 1-based line number (0 when not line-based).
        line: usize,
        /// What was expected.
        reason: String,
    },
    /// A JSON manifest record is malformed or inconsistent.
    #[error("{origin}: invalid manifest record: {reason}")]
    Record {
        /// The manifest file.
        origin: String,
        /// What was wrong.
        reason: String,
    },
    /// A path occurs twice.
    #[error("{origin}: duplicate path {path:?}")]
    Duplicate {
        /// The manifest file.
        origin: String,
        /// The repeated path.
        path: String,
    },
    /// Sizes were needed but the manifest format carries none.
    #[error("{origin}: this manifest has no file sizes ({format} format); size checks need the JSON record (proofpack manifest --format json)")]
    NoSizes {
        /// The manifest file.
        origin: String,
        /// Its format.
        format: &'static str,
    },
    /// A manifest file is larger than proofpack reads.
    #[error("{}: manifest is larger than the {MAX_MANIFEST_BYTES}-byte limit", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// An `--exclude` pattern is not a valid glob.
    #[error("invalid --exclude pattern {pattern:?}: {reason}")]
    BadGlob {
        /// The pattern.
        pattern: String,
        /// Why.
        reason: String,
    },
    /// The thread pool could not be created.
    #[error("cannot start {threads} hashing threads: {reason}")]
    Threads {
        /// Requested threads.
        threads: usize,
        /// Why.
        reason: String,
    },
}

/// `"path": why; ...` for at most 20 problems, then how many more.
pub fn describe_problems(problems: &[(String, String)]) -> String {
    let mut s = String::new();
    for (i, (p, why)) in problems.iter().enumerate().take(20) {
        if i > 0 {
            s.push_str("; ");
        }
        let _ = write!(s, "{p:?}: {why}");
    }
    if problems.len() > 20 {
        let _ = write!(s, "; and {} more", problems.len() - 20);
    }
    s
}

fn unlistable_message(problems: &[(String, String)]) -> String {
    let mut s = describe_problems(problems);
    s.push_str(
        " (nothing is skipped silently: fix or remove these, or leave them out with --exclude)",
    );
    s
}

/// Checks that a relative path can be written canonically (spec section 2).
/// Returns the reason when it cannot.
pub fn validate_path(path: &str) -> Result<(), String> {
    if path.is_empty() {
        return Err("empty path".into());
    }
    if path.starts_with('/') {
        return Err("absolute path (leading '/')".into());
    }
    if path.ends_with('/') {
        return Err("trailing '/'".into());
    }
    if let Some(c) = path.chars().find(|c| matches!(c, '\0' | '\n' | '\r')) {
        return Err(format!("contains {c:?}, which a manifest line cannot hold"));
    }
    for comp in path.split('/') {
        match comp {
            "" => return Err("empty path component ('//')".into()),
            "." => return Err("'.' component".into()),
            ".." => return Err("'..' component".into()),
            _ => {}
        }
    }
    Ok(())
}

/// One file of a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Path relative to the manifest root, valid per [`validate_path`].
    pub path: String,
    /// Size in bytes, when the source format carries it.
    pub size: Option<u64>,
    /// SHA-256 of the content.
    pub sha256: Sha256Digest,
}

/// The three interchange formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `path:sha256` lines, the identity of the set.
    Canonical,
    /// The JSON record with sizes and totals.
    Json,
    /// coreutils `sha256sum` lines.
    Sha256sum,
}

impl Format {
    /// The format's name as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Canonical => "canonical",
            Format::Json => "json",
            Format::Sha256sum => "sha256sum",
        }
    }

    /// Guesses the format of manifest bytes by their start (spec section 2).
    pub fn detect(bytes: &[u8]) -> Format {
        if let Some(b) = bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            if *b == b'{' {
                return Format::Json;
            }
        }
        let first = bytes.split(|b| *b == b'\n').next().unwrap_or(&[]);
        if sha256sum_prefix(first).is_some() {
            Format::Sha256sum
        } else {
            Format::Canonical
        }
    }
}

/// If `line` starts like a sha256sum line, returns (escaped, hex, rest).
fn sha256sum_prefix(line: &[u8]) -> Option<(bool, &[u8], &[u8])> {
    let (escaped, l) = match line.first() {
        Some(b'\\') => (true, &line[1..]),
        _ => (false, line),
    };
    if l.len() < 66 || !l[..64].iter().all(u8::is_ascii_hexdigit) || l[64] != b' ' {
        return None;
    }
    if l[65] != b' ' && l[65] != b'*' {
        return None;
    }
    Some((escaped, &l[..64], &l[66..]))
}

/// A manifest: entries sorted by the UTF-8 bytes of their paths, each path once.
///
/// v1.1: a manifest may also carry the header digest of its safetensors
/// entries ([`Manifest::header_sha256`]); like sizes, it is outside the
/// canonical text, so it changes neither the digest nor equality.
#[derive(Debug, Clone, Default)]
pub struct Manifest {
    entries: Vec<Entry>,
    headers: BTreeMap<String, Sha256Digest>,
}

impl PartialEq for Manifest {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries
    }
}

impl Eq for Manifest {}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordJson {
    schema: String,
    digest: String,
    files: u64,
    bytes: u64,
    entries: Vec<RecordEntryJson>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordEntryJson {
    path: String,
    size: u64,
    sha256: String,
    /// v1.1: SHA-256 of a safetensors entry's first 8 + N bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    header_sha256: Option<String>,
}

impl Manifest {
    /// Builds a manifest from entries in any order. Paths must be valid and
    /// unique; `origin` names the source in errors.
    pub fn from_entries(mut entries: Vec<Entry>, origin: &str) -> Result<Self, ManifestError> {
        for e in &entries {
            validate_path(&e.path).map_err(|reason| ManifestError::Parse {
                origin: origin.to_string(),
                line: 0,
                reason: format!("path {:?}: {reason}", e.path),
            })?;
        }
        entries.sort_by(|a, b| a.path.as_bytes().cmp(b.path.as_bytes()));
        if let Some(w) = entries.windows(2).find(|w| w[0].path == w[1].path) {
            return Err(ManifestError::Duplicate {
                origin: origin.to_string(),
                path: w[0].path.clone(),
            });
        }
        Ok(Manifest {
            entries,
            headers: BTreeMap::new(),
        })
    }

    /// v1.1: the pinned SHA-256 of a safetensors entry's header (its first
    /// 8 + N bytes), when the manifest carries one.
    pub fn header_sha256(&self, path: &str) -> Option<Sha256Digest> {
        self.headers.get(path).copied()
    }

    /// v1.1: records the header digest of the entry at `path`, which must be
    /// an entry of the manifest and a safetensors shard (`*.safetensors`).
    pub fn set_header_sha256(
        &mut self,
        path: &str,
        digest: Sha256Digest,
        origin: &str,
    ) -> Result<(), ManifestError> {
        let rerr = |reason: String| ManifestError::Record {
            origin: origin.to_string(),
            reason,
        };
        if self.get(path).is_none() {
            return Err(rerr(format!(
                "header_sha256 for {path:?}, which is not an entry"
            )));
        }
        if !crate::safetensors::is_shard_path(path) {
            return Err(rerr(format!(
                "header_sha256 on {path:?}: only safetensors shards (*.safetensors) carry a header digest"
            )));
        }
        self.headers.insert(path.to_string(), digest);
        Ok(())
    }

    /// The safetensors entries (`*.safetensors`), each with its pinned
    /// header digest if any: what [`structure_check`] checks.
    pub fn shard_specs(&self) -> Vec<crate::safetensors::ShardSpec> {
        self.entries
            .iter()
            .filter(|e| crate::safetensors::is_shard_path(&e.path))
            .map(|e| crate::safetensors::ShardSpec {
                path: e.path.clone(),
                header_sha256: self.header_sha256(&e.path),
            })
            .collect()
    }

    /// The entries, sorted.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Number of files.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True for the empty file set.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Looks an entry up by path.
    pub fn get(&self, path: &str) -> Option<&Entry> {
        self.entries
            .binary_search_by(|e| e.path.as_bytes().cmp(path.as_bytes()))
            .ok()
            .map(|i| &self.entries[i])
    }

    /// True when every entry carries its size.
    pub fn has_sizes(&self) -> bool {
        self.entries.iter().all(|e| e.size.is_some())
    }

    /// Sum of sizes, when every entry carries one.
    pub fn total_bytes(&self) -> Option<u64> {
        self.entries.iter().map(|e| e.size).sum()
    }

    /// The canonical `path:sha256\n` text.
    pub fn canonical_text(&self) -> String {
        let mut s = String::with_capacity(self.entries.len() * 100);
        for e in &self.entries {
            s.push_str(&e.path);
            s.push(':');
            s.push_str(&e.sha256.to_hex());
            s.push('\n');
        }
        s
    }

    /// The manifest digest: SHA-256 of the canonical text.
    pub fn digest(&self) -> Sha256Digest {
        Sha256Digest::of_bytes(self.canonical_text().as_bytes())
    }

    /// coreutils `sha256sum` lines, with its backslash escaping.
    pub fn to_sha256sum(&self) -> String {
        let mut s = String::with_capacity(self.entries.len() * 100);
        for e in &self.entries {
            if e.path.contains('\\') {
                s.push('\\');
                s.push_str(&e.sha256.to_hex());
                s.push_str("  ");
                s.push_str(&e.path.replace('\\', "\\\\"));
            } else {
                s.push_str(&e.sha256.to_hex());
                s.push_str("  ");
                s.push_str(&e.path);
            }
            s.push('\n');
        }
        s
    }

    /// The JSON record; needs sizes on every entry.
    pub fn to_json_record(&self) -> Result<String, ManifestError> {
        let total = self.total_bytes().ok_or(ManifestError::NoSizes {
            origin: "manifest".into(),
            format: "canonical",
        })?;
        let mut s = String::with_capacity(self.entries.len() * 130 + 200);
        let _ = write!(
            s,
            "{{\"schema\": \"{MANIFEST_SCHEMA}\",\n \"digest\": \"{}\",\n \"files\": {}, \"bytes\": {},\n \"entries\": [",
            self.digest().prefixed(),
            self.entries.len(),
            total
        );
        for (i, e) in self.entries.iter().enumerate() {
            s.push_str(if i == 0 { "\n  " } else { ",\n  " });
            let _ = write!(
                s,
                "{{\"path\": {}, \"size\": {}, \"sha256\": \"{}\"",
                serde_json::to_string(&e.path).expect("string serialises"),
                e.size.unwrap_or(0),
                e.sha256.to_hex()
            );
            if let Some(h) = self.headers.get(&e.path) {
                let _ = write!(s, ", \"header_sha256\": \"{}\"", h.to_hex());
            }
            s.push('}');
        }
        s.push_str(if self.entries.is_empty() {
            "]}\n"
        } else {
            "\n ]}\n"
        });
        Ok(s)
    }

    /// Writes the manifest in a format.
    pub fn render(&self, format: Format) -> Result<String, ManifestError> {
        match format {
            Format::Canonical => Ok(self.canonical_text()),
            Format::Json => self.to_json_record(),
            Format::Sha256sum => Ok(self.to_sha256sum()),
        }
    }

    /// Reads a manifest that a person or another tool wrote, in `format` or,
    /// when `None`, the detected format. Hex of either case is accepted and
    /// normalised; entries may come in any order; duplicates are an error.
    pub fn parse(
        bytes: &[u8],
        format: Option<Format>,
        origin: &str,
    ) -> Result<(Self, Format), ManifestError> {
        let format = format.unwrap_or_else(|| Format::detect(bytes));
        let m = match format {
            Format::Canonical => Self::parse_canonical_lines(bytes, origin, false)?,
            Format::Json => Self::parse_json(bytes, origin)?,
            Format::Sha256sum => Self::parse_sha256sum(bytes, origin)?,
        };
        Ok((m, format))
    }

    /// Reads a manifest that must already be canonical byte for byte (a
    /// bundle's MANIFEST): lowercase hex, sorted, unique, final newline.
    pub fn parse_canonical_strict(bytes: &[u8], origin: &str) -> Result<Self, ManifestError> {
        let m = Self::parse_canonical_lines(bytes, origin, true)?;
        if m.canonical_text().as_bytes() != bytes {
            return Err(ManifestError::Parse {
                origin: origin.to_string(),
                line: 0,
                reason: "not canonical: lines must be sorted by path bytes, each path once, each line ending in '\\n'".into(),
            });
        }
        Ok(m)
    }

    fn parse_canonical_lines(
        bytes: &[u8],
        origin: &str,
        strict: bool,
    ) -> Result<Self, ManifestError> {
        let perr = |line: usize, reason: String| ManifestError::Parse {
            origin: origin.to_string(),
            line,
            reason,
        };
        if bytes.is_empty() {
            return Ok(Manifest::default());
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count()
                + 1;
            perr(line, "not valid UTF-8".into())
        })?;
        if !text.ends_with('\n') {
            let n = text.split('\n').count();
            return Err(perr(n, "missing final newline".into()));
        }
        let mut entries = Vec::new();
        for (i, line) in text[..text.len() - 1].split('\n').enumerate() {
            let ln = i + 1;
            if line.is_empty() {
                return Err(perr(ln, "blank line; expected <path>:<64 hex>".into()));
            }
            if line.contains('\r') {
                return Err(perr(
                    ln,
                    "carriage return in line (CRLF line endings?); lines end with '\\n' only"
                        .into(),
                ));
            }
            let (path, hex) = line
                .rsplit_once(':')
                .ok_or_else(|| perr(ln, format!("expected <path>:<64 hex>, found {line:?}")))?;
            let sha256 = if strict {
                Sha256Digest::parse_hex_canonical(hex)
            } else {
                Sha256Digest::parse_hex(hex)
            }
            .map_err(|e| perr(ln, format!("path {path:?}: {e}")))?;
            validate_path(path).map_err(|r| perr(ln, format!("path {path:?}: {r}")))?;
            entries.push(Entry {
                path: path.to_string(),
                size: None,
                sha256,
            });
        }
        Self::from_entries(entries, origin)
    }

    fn parse_sha256sum(bytes: &[u8], origin: &str) -> Result<Self, ManifestError> {
        let perr = |line: usize, reason: String| ManifestError::Parse {
            origin: origin.to_string(),
            line,
            reason,
        };
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let mut entries = Vec::new();
        if body.is_empty() {
            return Ok(Manifest::default());
        }
        for (i, line) in body.split(|b| *b == b'\n').enumerate() {
            let ln = i + 1;
            let (escaped, hex, rest) = sha256sum_prefix(line)
                .ok_or_else(|| perr(ln, "expected '<64 hex>  <path>' (sha256sum format)".into()))?;
            let hex = std::str::from_utf8(hex).expect("hex digits are ASCII");
            let sha256 = Sha256Digest::parse_hex(hex).map_err(|e| perr(ln, e.to_string()))?;
            let raw = std::str::from_utf8(rest)
                .map_err(|_| perr(ln, "path is not valid UTF-8".into()))?;
            let path = if escaped {
                unescape_sha256sum(raw).map_err(|r| perr(ln, r))?
            } else {
                raw.to_string()
            };
            validate_path(&path).map_err(|r| perr(ln, format!("path {path:?}: {r}")))?;
            entries.push(Entry {
                path,
                size: None,
                sha256,
            });
        }
        Self::from_entries(entries, origin)
    }

    fn parse_json(bytes: &[u8], origin: &str) -> Result<Self, ManifestError> {
        let rerr = |reason: String| ManifestError::Record {
            origin: origin.to_string(),
            reason,
        };
        let rec: RecordJson = serde_json::from_slice(bytes).map_err(|e| rerr(e.to_string()))?;
        if rec.schema != MANIFEST_SCHEMA {
            return Err(rerr(format!(
                "schema is {:?}, expected {MANIFEST_SCHEMA:?}",
                rec.schema
            )));
        }
        let mut entries = Vec::with_capacity(rec.entries.len());
        let mut headers = Vec::new();
        for (i, e) in rec.entries.into_iter().enumerate() {
            validate_path(&e.path)
                .map_err(|r| rerr(format!("entries[{i}]: path {:?}: {r}", e.path)))?;
            let sha256 = Sha256Digest::parse_hex(&e.sha256)
                .map_err(|x| rerr(format!("entries[{i}] ({:?}): {x}", e.path)))?;
            if let Some(h) = &e.header_sha256 {
                let h = Sha256Digest::parse_hex(h).map_err(|x| {
                    rerr(format!("entries[{i}] ({:?}): header_sha256: {x}", e.path))
                })?;
                headers.push((e.path.clone(), h));
            }
            entries.push(Entry {
                path: e.path,
                size: Some(e.size),
                sha256,
            });
        }
        let mut m = Self::from_entries(entries, origin)?;
        for (p, h) in headers {
            m.set_header_sha256(&p, h, origin)?;
        }
        let digest =
            Sha256Digest::parse_prefixed(&rec.digest).map_err(|e| rerr(format!("digest: {e}")))?;
        if digest != m.digest() {
            return Err(rerr(format!(
                "digest says {}, but the entries give {}",
                rec.digest,
                m.digest().prefixed()
            )));
        }
        if rec.files != m.len() as u64 {
            return Err(rerr(format!(
                "files says {}, but there are {} entries",
                rec.files,
                m.len()
            )));
        }
        let total = m.total_bytes().unwrap_or(0);
        if rec.bytes != total {
            return Err(rerr(format!(
                "bytes says {}, but the entries' sizes add up to {total}",
                rec.bytes
            )));
        }
        Ok(m)
    }

    /// Reads a manifest file (any format, or the given one).
    pub fn read_file(path: &Path, format: Option<Format>) -> Result<(Self, Format), ManifestError> {
        let bytes = read_capped(path, MAX_MANIFEST_BYTES)?;
        Self::parse(&bytes, format, &path.display().to_string())
    }
}

fn unescape_sha256sum(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('\\') => out.push('\\'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                other => {
                    return Err(format!(
                        "unknown escape '\\{}' in sha256sum path",
                        other.map(String::from).unwrap_or_default()
                    ))
                }
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

/// Reads a whole file, refusing one larger than `cap` bytes.
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, ManifestError> {
    use std::io::Read;
    let io_err = |source| ManifestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let f = fs::File::open(path).map_err(io_err)?;
    let mut buf = Vec::new();
    f.take(cap + 1).read_to_end(&mut buf).map_err(io_err)?;
    if buf.len() as u64 > cap {
        return Err(ManifestError::TooLarge {
            path: path.to_path_buf(),
        });
    }
    Ok(buf)
}

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

/// A cache of file digests keyed by stat facts. Implemented by the catalog;
/// the manifest layer only asks and tells. An implementation must return a
/// digest only when it is certain the content is unchanged.
pub trait HashCache: Sync {
    /// A cached digest for this file, if the cache can vouch for it.
    fn lookup(&self, file: &FoundFile) -> Option<Sha256Digest>;
    /// Records a digest computed for `file`, whose stat was `file.stat` when
    /// it was found and `after` once hashing ended; `started` is the wall
    /// clock read just before its content was first read (the moment the
    /// racy-clean rule compares timestamps against).
    fn store(
        &self,
        file: &FoundFile,
        started: std::time::SystemTime,
        after: &FileStat,
        digest: Sha256Digest,
    );
}

/// Options for walking and hashing a directory.
#[derive(Clone, Default)]
pub struct BuildOptions<'a> {
    /// Glob patterns to leave out (see [`Excludes`]).
    pub excludes: Vec<String>,
    /// Hashing threads; 0 means one per core.
    pub threads: usize,
    /// Optional digest cache.
    pub cache: Option<&'a dyn HashCache>,
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
/// instead of failing on them (for [`check`], where they are drift).
pub fn scan_all(
    root: &Path,
    excludes: &[String],
) -> Result<(Vec<FoundFile>, Problems), ManifestError> {
    scan_impl(root, excludes, false)
}

/// Lists a run directory under the stricter rules of sealed evidence
/// (v1.1): regular files only. A symlink (wherever it points), a special
/// file, a non-UTF-8 name and a hard link whose other links lie outside the
/// directory are problems, each named: what a bundle holds is exactly the
/// bytes that lie in the directory, the same whether it is sealed or
/// verified in place. Excludes nothing.
pub fn scan_run_dir(root: &Path) -> Result<(Vec<FoundFile>, Problems), ManifestError> {
    scan_impl(root, &[], true)
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
        files.push(FoundFile {
            rel: name.to_string(),
            abs: root.to_path_buf(),
            stat: FileStat::from_metadata(&root_meta),
        });
        return Ok((files, Vec::new()));
    }
    if !root_meta.is_dir() {
        return Err(ManifestError::Unlistable {
            problems: vec![(
                root.display().to_string(),
                "not a regular file or directory".into(),
            )],
        });
    }
    let mut candidates: Vec<(String, PathBuf, bool)> = Vec::new();
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
                return Err(io_err(&p, source));
            }
        };
        let relp = entry
            .path()
            .strip_prefix(root)
            .expect("walkdir yields paths under the root");
        if ex.is_excluded_path(relp) {
            if entry.file_type().is_dir() {
                it.skip_current_dir();
            }
            continue;
        }
        let rel = match relp.to_str() {
            Some(s) => s.to_string(),
            None => {
                problems.push((
                    relp.to_string_lossy().into_owned(),
                    "name is not valid UTF-8".into(),
                ));
                if entry.file_type().is_dir() {
                    it.skip_current_dir();
                }
                continue;
            }
        };
        let ft = entry.file_type();
        if ft.is_dir() {
            continue;
        }
        if let Err(r) = validate_path(&rel) {
            problems.push((rel, r));
            continue;
        }
        if !ft.is_symlink() && !ft.is_file() {
            problems.push((rel, special_kind(&ft).to_string()));
            continue;
        }
        if strict && ft.is_symlink() {
            let target = fs::read_link(entry.path())
                .map(|t| format!(" to {}", t.display()))
                .unwrap_or_default();
            problems.push((
                rel,
                format!("symlink{target} (a run directory holds regular files only: replace the link with the file itself)"),
            ));
            continue;
        }
        candidates.push((rel, entry.into_path(), ft.is_symlink()));
    }
    // stat in parallel: on trees of many small files the walk's stat calls
    // are a large share of the time, and they need no order.
    let stats: Vec<io::Result<fs::Metadata>> = candidates
        .par_iter()
        .map(|(_, abs, _)| fs::metadata(abs))
        .collect();
    let mut links: std::collections::BTreeMap<(u64, u64), (u64, Vec<String>)> =
        std::collections::BTreeMap::new();
    for ((rel, abs, is_link), meta) in candidates.into_iter().zip(stats) {
        let meta = match meta {
            Ok(m) if m.is_file() => m,
            Ok(m) if is_link && m.is_dir() => {
                problems.push((rel, "symlink to a directory (only regular files are listed; give the target directory its own manifest or --exclude the link)".into()));
                continue;
            }
            Ok(m) if is_link => {
                problems.push((
                    rel,
                    format!("symlink to a {}", special_kind(&m.file_type())),
                ));
                continue;
            }
            Ok(m) => {
                // Replaced by something else since the directory was read.
                problems.push((rel, special_kind(&m.file_type()).to_string()));
                continue;
            }
            Err(e) if is_link && e.kind() == io::ErrorKind::NotFound => {
                problems.push((rel, "dangling symlink (its target does not exist)".into()));
                continue;
            }
            Err(e) if is_link => {
                problems.push((rel, format!("symlink cannot be followed: {e}")));
                continue;
            }
            Err(e) => return Err(io_err(&abs, e)),
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
        let bad: std::collections::BTreeSet<&str> =
            problems.iter().map(|(p, _)| p.as_str()).collect();
        files.retain(|f| !bad.contains(f.rel.as_str()));
    }
    problems.sort();
    Ok((files, problems))
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

/// Hashes one found file, using and feeding the cache if there is one.
pub fn hash_found(
    file: &FoundFile,
    cache: Option<&dyn HashCache>,
    progress: &dyn Progress,
) -> Result<Sha256Digest, ManifestError> {
    if let Some(c) = cache {
        if let Some(d) = c.lookup(file) {
            progress.advance(file.stat.size);
            return Ok(d);
        }
    }
    let started = std::time::SystemTime::now();
    let (digest, n) = crate::digest::hash_file_sized(&file.abs, Some(file.stat.size), progress)?;
    if n != file.stat.size {
        return Err(ManifestError::ChangedWhileHashing {
            path: file.abs.clone(),
            expected: file.stat.size,
            actual: n,
        });
    }
    if let Some(c) = cache {
        if let Ok(m) = fs::metadata(&file.abs) {
            c.store(file, started, &FileStat::from_metadata(&m), digest);
        }
    }
    Ok(digest)
}

/// Runs `f` on a rayon pool of `threads` threads (0 = one per core).
pub fn with_threads<T: Send>(
    threads: usize,
    f: impl FnOnce() -> T + Send,
) -> Result<T, ManifestError> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| ManifestError::Threads {
            threads,
            reason: e.to_string(),
        })?;
    Ok(pool.install(f))
}

/// Hashes found files in parallel, largest first; returns the entries.
pub fn hash_files(
    files: &[FoundFile],
    opts: &BuildOptions<'_>,
    progress: &dyn Progress,
) -> Result<Vec<Entry>, ManifestError> {
    let mut order: Vec<&FoundFile> = files.iter().collect();
    order.sort_by(|a, b| {
        b.stat
            .size
            .cmp(&a.stat.size)
            .then_with(|| a.rel.cmp(&b.rel))
    });
    progress.start(files.iter().map(|f| f.stat.size).sum(), files.len() as u64);
    let cache = opts.cache;
    let result = with_threads(opts.threads, || {
        order
            .par_iter()
            .with_max_len(1)
            .map(|f| {
                let d = hash_found(f, cache, progress)?;
                progress.item_done();
                Ok(Entry {
                    path: f.rel.clone(),
                    size: Some(f.stat.size),
                    sha256: d,
                })
            })
            .collect::<Result<Vec<Entry>, ManifestError>>()
    })?;
    progress.finish();
    result
}

/// Builds the manifest of a directory (or of a single file).
pub fn build(
    root: &Path,
    opts: &BuildOptions<'_>,
    progress: &dyn Progress,
) -> Result<Manifest, ManifestError> {
    let files = scan(root, &opts.excludes)?;
    let entries = hash_files(&files, opts, progress)?;
    let origin = root.display().to_string();
    let mut m = Manifest::from_entries(entries, &origin)?;
    // v1.1: the header digest of every safetensors shard (its first 8 + N
    // bytes, read again after hashing: a few megabytes for a checkpoint).
    let shards: Vec<&FoundFile> = files
        .iter()
        .filter(|f| crate::safetensors::is_shard_path(&f.rel))
        .collect();
    let digests = with_threads(opts.threads, || {
        shards
            .par_iter()
            .map(|f| (f, crate::safetensors::header_digest(&f.abs)))
            .collect::<Vec<_>>()
    })?;
    for (f, d) in digests {
        match d {
            Ok(Some(d)) => m.set_header_sha256(&f.rel, d, &origin)?,
            // No readable header: the entry carries no header digest, and
            // the structural check names what is wrong with the shard.
            Ok(None) => {}
            Err(crate::safetensors::SafetensorsError::Io { path, source }) => {
                return Err(ManifestError::Io { path, source })
            }
            Err(e) => {
                return Err(ManifestError::Io {
                    path: f.abs.clone(),
                    source: io::Error::other(e.to_string()),
                })
            }
        }
    }
    Ok(m)
}

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

/// The difference between two manifests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diff {
    /// In the new set only.
    pub added: Vec<Entry>,
    /// In the old set only.
    pub removed: Vec<Entry>,
    /// In both, with different content (old, new).
    pub changed: Vec<(Entry, Entry)>,
    /// In both and equal.
    pub unchanged: usize,
}

impl Diff {
    /// True when nothing drifted.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }

    /// The diff as a report: one check comparing the manifest digests and
    /// one failed check per drifted path (`diff:<path>`), in path order.
    pub fn to_report(&self, target: &str, old: &Manifest, new: &Manifest) -> Report {
        let mut r = Report::new(target);
        let (od, nd) = (old.digest(), new.digest());
        r.push(
            Check::outcome(
                "manifest.digest",
                od == nd,
                format!(
                    "{} unchanged, {} added, {} removed, {} changed",
                    self.unchanged,
                    self.added.len(),
                    self.removed.len(),
                    self.changed.len()
                ),
            )
            .with_values(od.prefixed(), nd.prefixed()),
        );
        let mut rows: Vec<(&str, Check)> = Vec::new();
        for e in &self.added {
            rows.push((
                &e.path,
                Check::fail(format!("diff:{}", e.path), "added")
                    .with_values(serde_json::Value::Null, e.sha256.to_hex()),
            ));
        }
        for e in &self.removed {
            rows.push((
                &e.path,
                Check::fail(format!("diff:{}", e.path), "removed")
                    .with_values(e.sha256.to_hex(), serde_json::Value::Null),
            ));
        }
        for (o, n) in &self.changed {
            let detail = match (o.size, n.size) {
                (Some(a), Some(b)) if a != b => format!("changed (size {a} -> {b})"),
                _ => "changed".to_string(),
            };
            rows.push((
                &o.path,
                Check::fail(format!("diff:{}", o.path), detail)
                    .with_values(o.sha256.to_hex(), n.sha256.to_hex()),
            ));
        }
        rows.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        for (_, c) in rows {
            r.push(c);
        }
        r
    }
}

/// Compares two manifests path by path.
pub fn diff(old: &Manifest, new: &Manifest) -> Diff {
    let mut d = Diff::default();
    let (mut i, mut j) = (0, 0);
    let (a, b) = (old.entries(), new.entries());
    while i < a.len() || j < b.len() {
        let ord = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.path.as_bytes().cmp(y.path.as_bytes()),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match ord {
            std::cmp::Ordering::Less => {
                d.removed.push(a[i].clone());
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                d.added.push(b[j].clone());
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                let size_differs = matches!((a[i].size, b[j].size), (Some(x), Some(y)) if x != y);
                if a[i].sha256 != b[j].sha256 || size_differs {
                    d.changed.push((a[i].clone(), b[j].clone()));
                } else {
                    d.unchanged += 1;
                }
                i += 1;
                j += 1;
            }
        }
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(p: &str, c: &[u8]) -> Entry {
        Entry {
            path: p.into(),
            size: Some(c.len() as u64),
            sha256: Sha256Digest::of_bytes(c),
        }
    }

    #[test]
    fn path_rules() {
        for ok in ["a", "a/b", "a b/c:d", "ü/ñ", "a\\b", "..a", "a.."] {
            assert!(validate_path(ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "/a", "a/", "a//b", "./a", "a/./b", "../a", "a/..", "a\nb", "a\rb", "a\0b",
        ] {
            assert!(validate_path(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn sorted_by_bytes_and_unique() {
        let m = Manifest::from_entries(
            vec![e("b", b"1"), e("a/z", b"2"), e("a", b"3"), e("B", b"4")],
            "t",
        )
        .unwrap();
        let paths: Vec<_> = m.entries().iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["B", "a", "a/z", "b"]);
        assert!(matches!(
            Manifest::from_entries(vec![e("a", b"1"), e("a", b"2")], "t"),
            Err(ManifestError::Duplicate { .. })
        ));
    }

    #[test]
    fn formats_round_trip() {
        let m = Manifest::from_entries(
            vec![
                e("x:y", b"1"),
                e("sp ace", b""),
                e("back\\slash", b"z"),
                e("ü", b"q"),
            ],
            "t",
        )
        .unwrap();
        for f in [Format::Canonical, Format::Json, Format::Sha256sum] {
            let text = m.render(f).unwrap();
            assert_eq!(Format::detect(text.as_bytes()), f, "{text}");
            let (back, got) = Manifest::parse(text.as_bytes(), None, "t").unwrap();
            assert_eq!(got, f);
            assert_eq!(back.canonical_text(), m.canonical_text());
            assert_eq!(back.digest(), m.digest());
        }
        assert!(
            m.to_sha256sum().contains("\\")
                && m.to_sha256sum().lines().any(|l| l.starts_with('\\'))
        );
    }

    #[test]
    fn strict_canonical() {
        let good = format!(
            "a:{}\nb:{}\n",
            Sha256Digest::of_bytes(b"a"),
            Sha256Digest::of_bytes(b"b")
        );
        assert!(Manifest::parse_canonical_strict(good.as_bytes(), "M").is_ok());
        let unsorted = format!(
            "b:{}\na:{}\n",
            Sha256Digest::of_bytes(b"b"),
            Sha256Digest::of_bytes(b"a")
        );
        assert!(Manifest::parse_canonical_strict(unsorted.as_bytes(), "M").is_err());
        assert!(Manifest::parse(unsorted.as_bytes(), None, "M").is_ok());
        assert!(Manifest::parse_canonical_strict(
            good.to_uppercase()
                .replace("A:", "a:")
                .replace("B:", "b:")
                .as_bytes(),
            "M"
        )
        .is_err());
        assert!(Manifest::parse_canonical_strict(good.trim_end().as_bytes(), "M").is_err());
        assert!(Manifest::parse_canonical_strict(b"", "M")
            .unwrap()
            .is_empty());
        assert!(Manifest::parse(good.replace('\n', "\r\n").as_bytes(), None, "M").is_err());
    }

    #[test]
    fn json_record_is_checked() {
        let m = Manifest::from_entries(vec![e("a", b"1")], "t").unwrap();
        let j = m.to_json_record().unwrap();
        let bad_bytes = j.replace("\"bytes\": 1", "\"bytes\": 2");
        assert!(Manifest::parse(bad_bytes.as_bytes(), None, "t").is_err());
        let bad_files = j.replace("\"files\": 1", "\"files\": 2");
        assert!(Manifest::parse(bad_files.as_bytes(), None, "t").is_err());
        let extra = j.replacen('{', "{\"extra\": 1, ", 1);
        assert!(Manifest::parse(extra.as_bytes(), None, "t").is_err());
    }

    #[test]
    fn header_digests_ride_along_in_the_json_record_only() {
        let mut m = Manifest::from_entries(
            vec![e("model-00001.safetensors", b"1"), e("config.json", b"2")],
            "t",
        )
        .unwrap();
        let plain = m.clone();
        let h = Sha256Digest::of_bytes(b"header");
        m.set_header_sha256("model-00001.safetensors", h, "t")
            .unwrap();
        assert!(m.set_header_sha256("config.json", h, "t").is_err());
        assert!(m.set_header_sha256("absent.safetensors", h, "t").is_err());
        assert_eq!(m, plain, "equality is the file set's");
        assert_eq!(m.digest(), plain.digest());
        assert_eq!(m.canonical_text(), plain.canonical_text());
        let j = m.to_json_record().unwrap();
        assert!(j.contains(&format!("\"header_sha256\": \"{}\"", h.to_hex())));
        let (back, _) = Manifest::parse(j.as_bytes(), None, "t").unwrap();
        assert_eq!(back.header_sha256("model-00001.safetensors"), Some(h));
        assert_eq!(back.header_sha256("config.json"), None);
        let specs = back.shard_specs();
        assert_eq!(specs.len(), 1);
        assert_eq!(specs[0].header_sha256, Some(h));
        let upper = j.replace(&h.to_hex(), &h.to_hex().to_uppercase());
        assert_eq!(
            Manifest::parse(upper.as_bytes(), None, "t")
                .unwrap()
                .0
                .header_sha256("model-00001.safetensors"),
            Some(h)
        );
        let bad = j.replace(&h.to_hex(), "abc");
        assert!(Manifest::parse(bad.as_bytes(), None, "t").is_err());
        let misplaced = plain.to_json_record().unwrap().replace(
            &format!(
                "\"sha256\": \"{}\"}}",
                Sha256Digest::of_bytes(b"2").to_hex()
            ),
            &format!(
                "\"sha256\": \"{}\", \"header_sha256\": \"{}\"}}",
                Sha256Digest::of_bytes(b"2").to_hex(),
                h.to_hex()
            ),
        );
        assert!(misplaced.contains("header_sha256"));
        let err = Manifest::parse(misplaced.as_bytes(), None, "t").unwrap_err();
        assert!(err.to_string().contains("only safetensors shards"), "{err}");
    }

    #[test]
    fn excludes() {
        let ex = Excludes::new(&["*.tmp".into(), ".git".into(), "logs/*.txt".into()]).unwrap();
        assert!(ex.is_excluded("a/b.tmp"));
        assert!(ex.is_excluded(".git"));
        assert!(ex.is_excluded("logs/x.txt"));
        assert!(!ex.is_excluded("logs/sub/x.txt"));
        assert!(!ex.is_excluded("a/b.tmpx"));
    }

    #[test]
    fn diff_kinds() {
        let old =
            Manifest::from_entries(vec![e("a", b"1"), e("b", b"2"), e("c", b"3")], "o").unwrap();
        let new =
            Manifest::from_entries(vec![e("a", b"1"), e("b", b"X"), e("d", b"4")], "n").unwrap();
        let d = diff(&old, &new);
        assert_eq!(d.unchanged, 1);
        assert_eq!(d.added.iter().map(|e| &e.path).collect::<Vec<_>>(), ["d"]);
        assert_eq!(d.removed.iter().map(|e| &e.path).collect::<Vec<_>>(), ["c"]);
        assert_eq!(d.changed.len(), 1);
        let r = d.to_report("t", &old, &new);
        assert_eq!(r.summary.failed, 4);
        assert!(diff(&old, &old).is_empty());
    }
}
