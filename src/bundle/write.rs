//! Writing a bundle: deterministic ustar + PAX inside one gzip member.
//!
//! Determinism is the whole point, so every header byte is written by
//! [`super::tar`] from a short list of inputs (path, size, the fixed mtime)
//! instead of by a tar library that copies file attributes. Files are streamed (never buffered
//! whole) and hashed a second time while they are written; if a digest or a
//! size differs from what the manifest pass saw, the run directory changed
//! under us and sealing fails without leaving any output.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use super::entries::{Paths, Refusal};
use super::limits::{Limits, RATIO_BURST_BYTES};
use super::pargz::{ParGz, RatioExceeded, DEFLATE_BLOCK};
use super::sealsig::seal_path;
use super::tar::{self, entry_tar_bytes, pad, pax_records, write_file_header, BLOCK};
use super::types::{io_err, BundleError, SealOptions, Sealed, MANIFEST_NAME, MAX_MTIME};
use ed25519_dalek::SigningKey;

use crate::atomic::AtomicFile;
use crate::capped::read_capped;
use crate::digest::{Hasher, Sha256Digest, READ_BUFFER};
use crate::manifest::{self, BuildOptions, Manifest, ManifestError};
use crate::progress::Progress;

pub use crate::timefmt::rfc3339_utc;

/// The seal time: `SOURCE_DATE_EPOCH` when set (validated as for the mtime),
/// else now, as RFC 3339 UTC.
pub fn sealed_at_now() -> Result<String, BundleError> {
    match std::env::var_os("SOURCE_DATE_EPOCH") {
        Some(v) if !v.is_empty() => Ok(rfc3339_utc(source_date_epoch()?)),
        _ => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0);
            Ok(rfc3339_utc(now))
        }
    }
}

/// Reads `SOURCE_DATE_EPOCH`: unset or empty gives 0; otherwise it must be
/// decimal seconds no larger than [`MAX_MTIME`].
pub fn source_date_epoch() -> Result<u64, BundleError> {
    match std::env::var_os("SOURCE_DATE_EPOCH") {
        None => Ok(0),
        Some(v) if v.is_empty() => Ok(0),
        Some(v) => {
            let s = v.to_string_lossy().into_owned();
            let bad = |reason: &str| BundleError::BadSourceDateEpoch {
                value: s.clone(),
                reason: reason.to_string(),
            };
            if !s.bytes().all(|b| b.is_ascii_digit()) {
                return Err(bad("not a non-negative decimal integer"));
            }
            let n: u64 = s.parse().map_err(|_| bad("too large"))?;
            if n > MAX_MTIME {
                return Err(bad("later than a ustar header can hold"));
            }
            Ok(n)
        }
    }
}

/// Checks that a root name is one safe path component.
pub fn validate_root_name(name: &str) -> Result<(), BundleError> {
    let bad = |reason: &str| BundleError::BadRootName {
        name: name.to_string(),
        reason: reason.to_string(),
    };
    if name.is_empty() {
        return Err(bad("empty"));
    }
    if name == "." || name == ".." {
        return Err(bad("'.' and '..' are not directory names"));
    }
    if name.contains('/') {
        return Err(bad("contains '/'; it must be a single path component"));
    }
    if name.chars().any(|c| c.is_control()) {
        return Err(bad("contains a control character"));
    }
    if name.len() > 255 {
        return Err(bad("longer than 255 bytes"));
    }
    // The root is the first component of every path the reader
    // holds to the portable-name rule.
    if let Some(why) = manifest::portable::component_problem(name) {
        return Err(bad(&format!("not a portable name: {why}")));
    }
    Ok(())
}

/// The `name` field of `qualification.json`, parsed leniently (only that
/// field matters here; the qualification checks parse the file strictly).
fn qualification_name(run_dir: &Path) -> Result<Option<String>, BundleError> {
    let p = run_dir.join("qualification.json");
    if !p.is_file() {
        return Ok(None);
    }
    let bytes = read_capped(&p, 64 << 20).map_err(ManifestError::from)?;
    let v: serde_json::Value = match serde_json::from_slice(&bytes) {
        Ok(v) => v,
        Err(_) => return Ok(None),
    };
    Ok(v.get("name").and_then(|n| n.as_str()).map(str::to_string))
}

/// The root name [`seal`] uses: `name` if given, else `qualification.json`'s
/// `name`, else the directory's own name; validated.
pub fn root_name_for(run_dir: &Path, name: Option<&str>) -> Result<String, BundleError> {
    let name = match name {
        Some(n) => n.to_string(),
        None => match qualification_name(run_dir)? {
            Some(n) => n,
            None => {
                let abs = std::fs::canonicalize(run_dir).map_err(io_err(run_dir))?;
                match abs.file_name().and_then(|n| n.to_str()) {
                    Some(n) => n.to_string(),
                    None => {
                        return Err(BundleError::BadRootName {
                            name: abs.display().to_string(),
                            reason: "the directory name is not valid UTF-8 (or is '/')".into(),
                        })
                    }
                }
            }
        },
    };
    validate_root_name(&name)?;
    Ok(name)
}

/// A writer that hashes what passes through.
struct HashWriter<W: Write> {
    inner: W,
    hasher: Hasher,
}

impl<W: Write> Write for HashWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The entry whose bytes hold archive offset `offset` (for the ratio
/// limit's message): MANIFEST, a file's path, or the end blocks.
/// The file a verifier reads first, right after MANIFEST.
pub const READ_FIRST: &str = "qualification.json";

/// The order entries are written in after MANIFEST: `READ_FIRST`
/// first when the run has one, so that a verifier knows what to read
/// before the rest of the stream passes and reads the bundle once; then
/// every other file in MANIFEST's (path) order.
pub(crate) fn seal_order(m: &Manifest) -> impl Iterator<Item = &crate::manifest::Entry> {
    let first = m.entries().iter().filter(|e| e.path == READ_FIRST);
    first.chain(m.entries().iter().filter(|e| e.path != READ_FIRST))
}

fn entry_at(root: &str, m: &Manifest, manifest_len: u64, offset: u64) -> String {
    let mut end = entry_tar_bytes(&format!("{root}/{MANIFEST_NAME}"), manifest_len);
    if offset < end {
        return MANIFEST_NAME.to_string();
    }
    for e in seal_order(m) {
        end += entry_tar_bytes(&format!("{root}/{}", e.path), e.size.unwrap_or(0));
        if offset < end {
            return e.path.clone();
        }
    }
    "the end-of-archive blocks".to_string()
}

/// Compression threads for `threads` (0: one per core).
fn compression_threads(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// The first default reader limit (spec section 5) the bundle of `m` would
/// exceed, but the ratio (checked while writing): (limit, what exceeds it).
/// Uses the reader's own path registry for the directory bound.
fn exceeds_reader_limits(
    root: &str,
    m: &Manifest,
    manifest_len: u64,
    limits: &Limits,
) -> Option<(&'static str, String)> {
    /// (limit, "WHAT: VALUE, more than MAX") when VALUE exceeds MAX.
    fn over(
        limit: &'static str,
        what: &str,
        value: u64,
        max: u64,
    ) -> Option<(&'static str, String)> {
        (value > max).then(|| (limit, format!("{what}: {value}, more than {max}")))
    }
    let cap = manifest::MAX_MANIFEST_BYTES.min(limits.max_entry_bytes);
    if let Some(o) = over(
        "entries",
        "entries with MANIFEST",
        m.len() as u64 + 1,
        limits.max_entries,
    )
    .or_else(|| over("entry_bytes", "bytes of MANIFEST", manifest_len, cap))
    {
        return Some(o);
    }
    let mut total =
        2 * BLOCK as u64 + entry_tar_bytes(&format!("{root}/{MANIFEST_NAME}"), manifest_len);
    let mut paths = Paths::new(limits.max_entries);
    for e in m.entries() {
        let size = e.size.unwrap_or(0);
        let full = format!("{root}/{}", e.path);
        let pax = pax_records(&full, size).map_or(0, |r| r.len() as u64);
        let p = &e.path;
        if let Some(o) = over(
            "entry_bytes",
            &format!("bytes of {p}"),
            size,
            limits.max_entry_bytes,
        )
        .or_else(|| {
            let what = format!("bytes in the path of {p}");
            over(
                "path_bytes",
                &what,
                full.len() as u64,
                limits.max_path_bytes as u64,
            )
        })
        .or_else(|| {
            let what = format!("bytes of PAX records for {p}");
            over("pax_record_bytes", &what, pax, limits.max_pax_record_bytes)
        }) {
            return Some(o);
        }
        if let Err(Refusal::Limit(detail)) = paths.register(p, false) {
            return Some(("entries", detail));
        }
        total += entry_tar_bytes(&full, size);
    }
    over(
        "total_bytes",
        "archive bytes",
        total,
        limits.max_total_bytes,
    )
}

/// Forwards byte progress but not start/finish (seal reports both passes as one).
struct Passthrough<'a>(&'a dyn Progress);
impl Progress for Passthrough<'_> {
    fn advance(&self, bytes: u64) {
        self.0.advance(bytes)
    }
    fn cancelled(&self) -> bool {
        self.0.cancelled()
    }
}

fn canonical_parent(out: &Path) -> Result<PathBuf, BundleError> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::canonicalize(parent).map_err(io_err(parent))
}

/// The sidecar line `<hex>  <name>` with coreutils escaping.
fn sidecar_line(digest: &Sha256Digest, name: &str) -> String {
    if name.contains('\\') || name.contains('\n') {
        format!(
            "\\{}  {}\n",
            digest.to_hex(),
            name.replace('\\', "\\\\").replace('\n', "\\n")
        )
    } else {
        format!("{}  {}\n", digest.to_hex(), name)
    }
}

/// Seals `run_dir` into the bundle `out` (and `out.sha256`), atomically.
///
/// The manifest is built first (parallel hashing); then MANIFEST and every
/// file in manifest order are streamed into the archive while being hashed
/// again. A file that changed in between fails the seal. A top-level
/// `MANIFEST` already in the run directory (a run unpacked from a bundle) is
/// left out if it lists exactly the other files, and refused otherwise.
pub fn seal(
    run_dir: &Path,
    out: &Path,
    opts: &SealOptions,
    progress: &dyn Progress,
) -> Result<Sealed, BundleError> {
    seal_impl(run_dir, out, opts, None, progress)
}

/// Like [`seal`], and also writes `out.seal.dsse.json`: the seal Statement
/// (spec section 4) signed with `key`, `sealed_at` as its time (RFC 3339
/// UTC, see [`rfc3339_utc`]). The three files are committed together, after
/// everything was written, so a failure leaves none of them.
pub fn seal_signed(
    run_dir: &Path,
    out: &Path,
    opts: &SealOptions,
    key: &SigningKey,
    sealed_at: &str,
    progress: &dyn Progress,
) -> Result<Sealed, BundleError> {
    seal_impl(run_dir, out, opts, Some((key, sealed_at)), progress)
}

fn seal_impl(
    run_dir: &Path,
    out: &Path,
    opts: &SealOptions,
    sign: Option<(&SigningKey, &str)>,
    progress: &dyn Progress,
) -> Result<Sealed, BundleError> {
    if opts.level > 9 {
        return Err(BundleError::BadOption(format!(
            "compression level {} is out of range; use 0 (none) to 9 (best)",
            opts.level
        )));
    }
    if opts.mtime > MAX_MTIME {
        return Err(BundleError::BadOption(format!(
            "mtime {} is later than a ustar header can hold (max {MAX_MTIME})",
            opts.mtime
        )));
    }
    let meta = std::fs::metadata(run_dir).map_err(io_err(run_dir))?;
    if !meta.is_dir() {
        return Err(BundleError::NotADirectory {
            path: run_dir.to_path_buf(),
        });
    }
    // One writer of this output at a time; readers wait for it.
    let _lock = crate::atomic::OutputLock::exclusive(out)?;
    let stale_seal = seal_path(out);
    let stale = sign.is_none() && std::fs::symlink_metadata(&stale_seal).is_ok();
    if stale && !opts.replace_stale_seal {
        return Err(BundleError::StaleSeal { path: stale_seal });
    }
    let root = root_name_for(run_dir, opts.name.as_deref())?;
    let run_abs = std::fs::canonicalize(run_dir).map_err(io_err(run_dir))?;
    if canonical_parent(out)?.starts_with(&run_abs) {
        return Err(BundleError::OutputInsideRunDir {
            out: out.to_path_buf(),
            run_dir: run_dir.to_path_buf(),
        });
    }
    let out_name = out
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| {
            BundleError::BadOption(format!(
                "{}: the output needs a UTF-8 file name",
                out.display()
            ))
        })?
        .to_string();

    // Pass 1: list and hash.
    // Regular files only: a symlink, special file or hard link to
    // outside the run is refused, exactly as `verify RUN_DIR` refuses it.
    let (mut files, problems) = manifest::scan_run_dir(run_dir)?;
    if !problems.is_empty() {
        return Err(BundleError::Unsealable {
            run_dir: run_dir.to_path_buf(),
            problems,
        });
    }
    let mut existing_manifest = None;
    files.retain(|f| {
        if f.rel == MANIFEST_NAME {
            existing_manifest = Some(f.abs.clone());
            false
        } else {
            true
        }
    });
    let total: u64 = files.iter().map(|f| f.stat.size).sum();
    progress.start(total * 2, files.len() as u64);
    let build = BuildOptions {
        excludes: Vec::new(),
        threads: opts.threads,
        cache: None,
    };
    let entries = match manifest::hash_files(&files, &build, &Passthrough(progress)) {
        Err(_) if progress.cancelled() => return Err(BundleError::Interrupted),
        r => r?,
    };
    let m = Manifest::from_entries(entries, &run_dir.display().to_string())?;
    let text = m.canonical_text();
    if let Some(p) = existing_manifest {
        let have = read_capped(&p, manifest::MAX_MANIFEST_BYTES).map_err(ManifestError::from)?;
        if have != text.as_bytes() {
            return Err(BundleError::StaleManifest { path: p });
        }
    }
    let abs: HashMap<&str, (&Path, manifest::FileStat)> = files
        .iter()
        .map(|f| (f.rel.as_str(), (f.abs.as_path(), f.stat)))
        .collect();

    // What the reader would refuse is not written.
    let limits = Limits::default();
    let beyond = |limit: &'static str, detail: String| BundleError::ExceedsReaderLimits {
        run_dir: run_dir.to_path_buf(),
        limit,
        detail,
    };
    if let Some((limit, detail)) = exceeds_reader_limits(&root, &m, text.len() as u64, &limits) {
        return Err(beyond(limit, detail));
    }

    // Pass 2: archive.
    let atomic = AtomicFile::create(out, 0o644, true)?;
    let hw = HashWriter {
        inner: BufWriter::with_capacity(1 << 18, atomic),
        hasher: Hasher::new(),
    };
    let out_err = io_err(out);
    // Deflated in independent blocks on every core (pargz.rs); the
    // bytes do not depend on the number of threads.
    let mut gz = ParGz::new(
        hw,
        opts.level,
        compression_threads(opts.threads),
        limits.max_ratio,
    )
    .map_err(io_err(out))?;
    let manifest_len = text.len() as u64;
    let ratio_exceeded = |r: RatioExceeded| {
        let within = entry_at(&root, &m, manifest_len, r.tar - 1);
        beyond(
            "ratio",
            format!(
                "{} archive bytes (through the {} KiB deflate block holding part of {within}) against {} compressed bytes before that block: more than {RATIO_BURST_BYTES} bytes beyond {}:1",
                r.tar,
                DEFLATE_BLOCK >> 10,
                r.compressed,
                limits.max_ratio
            ),
        )
    };
    let mtime = opts.mtime;
    (|| -> io::Result<()> {
        let mp = format!("{root}/{MANIFEST_NAME}");
        write_file_header(&mut gz, &mp, text.len() as u64, mtime)?;
        gz.write_all(text.as_bytes())?;
        pad(&mut gz, text.len() as u64)
    })()
    .map_err(io_err(out))?;
    let mut buf = vec![0u8; READ_BUFFER];
    for e in seal_order(&m) {
        let (src, stat) = abs[e.path.as_str()];
        let size = e.size.expect("built manifests carry sizes");
        let changed = |reason: String| BundleError::ChangedWhileSealing {
            path: src.to_path_buf(),
            reason,
        };
        let mut f = File::open(src).map_err(io_err(src))?;
        {
            // The file opened is the one listed (not a link swapped in since).
            use std::os::unix::fs::MetadataExt;
            let m = f.metadata().map_err(io_err(src))?;
            if !m.is_file() || m.dev() != stat.dev || m.ino() != stat.ino {
                return Err(changed(
                    "replaced by another file or a link since it was listed".into(),
                ));
            }
        }
        write_file_header(&mut gz, &format!("{root}/{}", e.path), size, mtime)
            .map_err(io_err(out))?;
        let mut h = Hasher::new();
        let mut left = size;
        while left > 0 {
            let want = (buf.len() as u64).min(left) as usize;
            let n = match f.read(&mut buf[..want]) {
                Ok(0) => return Err(changed(format!("now shorter than the {size} bytes hashed"))),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(io_err(src)(e)),
            };
            h.update(&buf[..n]);
            gz.write_all(&buf[..n]).map_err(io_err(out))?;
            if let Some(r) = gz.ratio_exceeded() {
                return Err(ratio_exceeded(r));
            }
            progress.advance(n as u64);
            if progress.cancelled() {
                return Err(BundleError::Interrupted);
            }
            left -= n as u64;
        }
        let mut one = [0u8; 1];
        if f.read(&mut one).map_err(io_err(src))? != 0 {
            return Err(changed(format!("now longer than the {size} bytes hashed")));
        }
        let (d, _) = h.finish();
        if d != e.sha256 {
            return Err(changed(format!(
                "content hashed to {} first, now {}",
                e.sha256, d
            )));
        }
        pad(&mut gz, size).map_err(io_err(out))?;
        progress.item_done();
    }
    gz.write_all(&tar::END_OF_ARCHIVE).map_err(io_err(out))?;
    let (hw, ratio) = gz.finish().map_err(io_err(out))?;
    if let Some(r) = ratio {
        return Err(ratio_exceeded(r));
    }
    let HashWriter { inner, hasher, .. } = hw;
    let atomic = inner.into_inner().map_err(|e| out_err(e.into_error()))?;
    let (bundle_sha256, _) = hasher.finish();

    let mut sidecar_path = out.as_os_str().to_owned();
    sidecar_path.push(".sha256");
    let sidecar_path = PathBuf::from(sidecar_path);
    let mut sidecar = AtomicFile::create(&sidecar_path, 0o644, true)?;
    sidecar
        .write_all(sidecar_line(&bundle_sha256, &out_name).as_bytes())
        .map_err(io_err(&sidecar_path))?;
    let sealed = Sealed {
        bundle_sha256,
        manifest_digest: Sha256Digest::of_bytes(text.as_bytes()),
        root,
        files: m.len() as u64,
        bytes: total,
        manifest: m,
    };
    let envelope = match sign {
        Some((key, sealed_at)) => {
            let bytes = super::sealsig::sign_seal(&sealed, &out_name, key, sealed_at)?;
            let path = seal_path(out);
            let mut f = AtomicFile::create(&path, 0o644, true)?;
            f.write_all(&bytes).map_err(io_err(&path))?;
            Some(f)
        }
        None => None,
    };
    if progress.cancelled() {
        return Err(BundleError::Interrupted);
    }
    if stale {
        // --force: the old seal goes first, so that no moment shows it
        // beside the new bytes.
        std::fs::remove_file(&stale_seal).map_err(io_err(&stale_seal))?;
    }
    atomic.commit()?;
    sidecar.commit()?;
    if let Some(f) = envelope {
        f.commit()?;
    }
    progress.finish();
    Ok(sealed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn manifest_of(files: &[(&str, u64)]) -> Manifest {
        let entries = files
            .iter()
            .map(|(path, size)| manifest::Entry {
                path: path.to_string(),
                size: Some(*size),
                sha256: Sha256Digest::of_bytes(path.as_bytes()),
            })
            .collect();
        Manifest::from_entries(entries, "test").unwrap()
    }

    #[test]
    fn reader_limits_are_checked_before_writing() {
        let check = |m: &Manifest, manifest_len: u64, limits: Limits| {
            exceeds_reader_limits("run", m, manifest_len, &limits).map(|(limit, _)| limit)
        };
        let fine = Limits::default();
        let m = manifest_of(&[("a/b/c.json", 10), ("a/d.json", 700), ("e.json", 0)]);
        assert_eq!(check(&m, 300, fine), None);
        for (limits, exceeded) in [
            // Three files and MANIFEST are four entries.
            (
                Limits {
                    max_entries: 3,
                    ..fine
                },
                Some("entries"),
            ),
            (
                Limits {
                    max_entries: 4,
                    ..fine
                },
                None,
            ),
            (
                Limits {
                    max_entry_bytes: 699,
                    ..fine
                },
                Some("entry_bytes"),
            ),
            // MANIFEST (300 bytes) is an entry too.
            (
                Limits {
                    max_entry_bytes: 299,
                    ..fine
                },
                Some("entry_bytes"),
            ),
            (
                Limits {
                    max_path_bytes: 13,
                    ..fine
                },
                Some("path_bytes"),
            ),
            // MANIFEST 512+512, a/b/c.json 512+512, a/d.json 512+1024,
            // e.json 512, end 1024: 5120 bytes.
            (
                Limits {
                    max_total_bytes: 5119,
                    ..fine
                },
                Some("total_bytes"),
            ),
            (
                Limits {
                    max_total_bytes: 5120,
                    ..fine
                },
                None,
            ),
        ] {
            assert_eq!(check(&m, 300, limits), exceeded, "{limits:?}");
        }
        // Five directories against a bound of four (the entries limit):
        // the same registry as the reader's.
        let deep = manifest_of(&[("a/b/c/d/e/f", 1)]);
        assert_eq!(
            check(
                &deep,
                10,
                Limits {
                    max_entries: 4,
                    ..fine
                }
            ),
            Some("entries")
        );
        let long = format!("{}/x", "d".repeat(3000));
        let m = manifest_of(&[(long.as_str(), 1)]);
        let pax = Limits {
            max_pax_record_bytes: 1000,
            ..fine
        };
        assert_eq!(check(&m, 10, pax), Some("pax_record_bytes"));
    }

    #[test]
    fn rfc3339() {
        assert_eq!(rfc3339_utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339_utc(1_700_000_000), "2023-11-14T22:13:20Z");
        assert_eq!(rfc3339_utc(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339_utc(MAX_MTIME), "2242-03-16T12:56:31Z");
    }

    #[test]
    fn root_names() {
        assert!(validate_root_name("run-1").is_ok());
        assert!(validate_root_name("ünï").is_ok());
        for bad in ["", ".", "..", "a/b", "a\nb"] {
            assert!(validate_root_name(bad).is_err(), "{bad:?}");
        }
    }
}
