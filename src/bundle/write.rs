//! Writing a bundle: deterministic ustar + PAX inside one gzip member.
//!
//! Determinism is the whole point, so every header byte is written here from
//! a short list of inputs (path, size, the fixed mtime) instead of by a tar
//! library that copies file attributes. Files are streamed (never buffered
//! whole) and hashed a second time while they are written; if a digest or a
//! size differs from what the manifest pass saw, the run directory changed
//! under us and sealing fails without leaving any output.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use flate2::{Compression, GzBuilder};

use super::entries::{Paths, Refusal};
use super::source::RatioBudget;
use super::{
    io_err, BundleError, Limits, SealOptions, Sealed, MANIFEST_NAME, MAX_MTIME, RATIO_BURST_BYTES,
};
use ed25519_dalek::SigningKey;

use crate::atomic::AtomicFile;
use crate::digest::{Hasher, Sha256Digest, READ_BUFFER};
use crate::manifest::{self, BuildOptions, Manifest};
use crate::progress::Progress;

const BLOCK: usize = 512;
/// Largest size a ustar size field holds (11 octal digits).
const MAX_USTAR_SIZE: u64 = 0o777_7777_7777;
/// Name of PAX extended headers (as Python's tarfile writes it).
const PAX_HEADER_NAME: &[u8] = b"././@PaxHeader";

/// `BUNDLE.seal.dsse.json` beside `BUNDLE`.
pub fn seal_path(bundle: &Path) -> PathBuf {
    let mut p = bundle.as_os_str().to_owned();
    p.push(".seal.dsse.json");
    PathBuf::from(p)
}

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
    // v1.1: the root is the first component of every path the reader
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
    let bytes = manifest::read_capped(&p, 64 << 20)?;
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

/// Writes `value` as zero-padded octal filling `field` but its last byte (NUL).
fn put_octal(field: &mut [u8], value: u64) {
    let w = field.len() - 1;
    let s = format!("{value:0w$o}");
    debug_assert_eq!(s.len(), w);
    field[..w].copy_from_slice(s.as_bytes());
    field[w] = 0;
}

/// A ustar header block.
fn ustar_header(name: &[u8], size: u64, mtime: u64, typeflag: u8) -> [u8; BLOCK] {
    let mut h = [0u8; BLOCK];
    let n = name.len().min(100);
    h[..n].copy_from_slice(&name[..n]);
    put_octal(&mut h[100..108], 0o644);
    put_octal(&mut h[108..116], 0);
    put_octal(&mut h[116..124], 0);
    put_octal(&mut h[124..136], size);
    put_octal(&mut h[136..148], mtime);
    h[156] = typeflag;
    h[257..263].copy_from_slice(b"ustar\0");
    h[263..265].copy_from_slice(b"00");
    put_octal(&mut h[329..337], 0);
    put_octal(&mut h[337..345], 0);
    h[148..156].fill(b' ');
    let sum: u64 = h.iter().map(|b| *b as u64).sum();
    let s = format!("{sum:06o}");
    h[148..154].copy_from_slice(s.as_bytes());
    h[154] = 0;
    h[155] = b' ';
    h
}

/// One PAX record `"<len> <key>=<value>\n"`, len counting itself.
fn pax_record(key: &str, value: &[u8]) -> Vec<u8> {
    let body = key.len() + value.len() + 3; // ' ', '=', '\n'
    let mut len = body + 1;
    while len != body + len.to_string().len() {
        len = body + len.to_string().len();
    }
    let mut r = Vec::with_capacity(len);
    r.extend_from_slice(len.to_string().as_bytes());
    r.push(b' ');
    r.extend_from_slice(key.as_bytes());
    r.push(b'=');
    r.extend_from_slice(value);
    r.push(b'\n');
    r
}

fn pad<W: Write>(w: &mut W, size: u64) -> io::Result<()> {
    let rem = (size % BLOCK as u64) as usize;
    if rem != 0 {
        w.write_all(&[0u8; BLOCK][..BLOCK - rem])?;
    }
    Ok(())
}

/// The PAX records written before a regular file's header: `path` when the
/// path is longer than 100 bytes or not ASCII, `size` when the size does not
/// fit in octal; `None` when neither.
fn pax_records(path: &str, size: u64) -> Option<Vec<u8>> {
    let long_path = path.len() > 100 || !path.is_ascii();
    let big = size > MAX_USTAR_SIZE;
    if !long_path && !big {
        return None;
    }
    let mut recs = Vec::new();
    if long_path {
        recs.extend(pax_record("path", path.as_bytes()));
    }
    if big {
        recs.extend(pax_record("size", size.to_string().as_bytes()));
    }
    Some(recs)
}

/// Bytes `n` data bytes take in the archive, padding included.
fn padded(n: u64) -> u64 {
    n.div_ceil(BLOCK as u64) * BLOCK as u64
}

/// Bytes one regular file takes in the archive: headers, data, padding.
fn entry_tar_bytes(path: &str, size: u64) -> u64 {
    let pax = pax_records(path, size).map_or(0, |r| BLOCK as u64 + padded(r.len() as u64));
    pax + BLOCK as u64 + padded(size)
}

/// Writes the header(s) of a regular file: a PAX header first when
/// [`pax_records`] says so.
fn write_file_header<W: Write>(w: &mut W, path: &str, size: u64, mtime: u64) -> io::Result<()> {
    let long_path = path.len() > 100 || !path.is_ascii();
    let big = size > MAX_USTAR_SIZE;
    if let Some(recs) = pax_records(path, size) {
        w.write_all(&ustar_header(
            PAX_HEADER_NAME,
            recs.len() as u64,
            mtime,
            b'x',
        ))?;
        w.write_all(&recs)?;
        pad(w, recs.len() as u64)?;
    }
    let name: Vec<u8> = if long_path {
        // For readers that ignore PAX: an ASCII stand-in, never used by us.
        path.bytes()
            .map(|b| if b.is_ascii() { b } else { b'_' })
            .take(100)
            .collect()
    } else {
        path.as_bytes().to_vec()
    };
    w.write_all(&ustar_header(
        &name,
        if big { 0 } else { size },
        mtime,
        b'0',
    ))
}

/// A writer that hashes and counts what passes through.
struct HashWriter<W: Write> {
    inner: W,
    hasher: Hasher,
    written: u64,
}

impl<W: Write> Write for HashWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hasher.update(&buf[..n]);
        self.written += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The gzip encoder, counting the tar bytes fed to it, so that the ratio
/// limit can be checked as the reader will check it: against the compressed
/// bytes produced so far (fewer than the reader will have read by then, so
/// the check errs on the side of refusing).
struct Metered<W: Write> {
    gz: GzEncoder<HashWriter<W>>,
    tar: u64,
    checked: u64,
    budget: RatioBudget,
}

impl<W: Write> Metered<W> {
    /// False once the tar bytes written exceed the reader's ratio allowance.
    fn within_ratio(&mut self) -> bool {
        let new = self.tar - self.checked;
        self.checked = self.tar;
        self.budget.take(self.gz.get_ref().written, new)
    }
}

impl<W: Write> Write for Metered<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.gz.write(buf)?;
        self.tar += n as u64;
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.gz.flush()
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
    // One writer of this output at a time; readers wait for it (v1.1).
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
    // Regular files only (v1.1): a symlink, special file or hard link to
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
        let have = manifest::read_capped(&p, manifest::MAX_MANIFEST_BYTES)?;
        if have != text.as_bytes() {
            return Err(BundleError::StaleManifest { path: p });
        }
    }
    let abs: HashMap<&str, (&Path, manifest::FileStat)> = files
        .iter()
        .map(|f| (f.rel.as_str(), (f.abs.as_path(), f.stat)))
        .collect();

    // What the reader would refuse is not written (v1.1).
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
        written: 0,
    };
    let out_err = io_err(out);
    let mut gz = Metered {
        gz: GzBuilder::new()
            .mtime(0)
            .write(hw, Compression::new(opts.level)),
        tar: 0,
        checked: 0,
        budget: RatioBudget::new(limits.max_ratio),
    };
    let ratio_exceeded = |path: &str, tar: u64, compressed: u64| {
        beyond(
            "ratio",
            format!(
                "{tar} archive bytes compress to {compressed} by the end of {path}: more than {RATIO_BURST_BYTES} bytes beyond {}:1",
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
    for e in m.entries() {
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
            if !gz.within_ratio() {
                return Err(ratio_exceeded(&e.path, gz.tar, gz.gz.get_ref().written));
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
    gz.write_all(&[0u8; 2 * BLOCK]).map_err(io_err(out))?;
    if !gz.within_ratio() {
        return Err(ratio_exceeded(
            "the archive",
            gz.tar,
            gz.gz.get_ref().written,
        ));
    }
    let hw = gz.gz.finish().map_err(io_err(out))?;
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

    #[test]
    fn pax_record_lengths() {
        for n in [0usize, 1, 5, 90, 91, 92, 93, 989, 990, 995, 9990] {
            let v = vec![b'a'; n];
            let r = pax_record("path", &v);
            let (len, _) = std::str::from_utf8(&r).unwrap().split_once(' ').unwrap();
            assert_eq!(len.parse::<usize>().unwrap(), r.len(), "n={n}");
        }
    }

    #[test]
    fn header_checksum_and_fields() {
        let h = ustar_header(b"root/a", 1234, 0, b'0');
        let mut c = h;
        c[148..156].fill(b' ');
        let sum: u64 = c.iter().map(|b| *b as u64).sum();
        let field = std::str::from_utf8(&h[148..154]).unwrap();
        assert_eq!(u64::from_str_radix(field, 8).unwrap(), sum);
        assert_eq!(&h[124..136], b"00000002322\0");
        assert_eq!(&h[100..108], b"0000644\0");
    }

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
