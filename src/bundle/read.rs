//! Streaming bundle verification, the driver: one pass over the gzip stream.
//!
//! [`Parser`] reads the tar stream from a [`Source`] (the decompressed,
//! hashed, limited input of source.rs) header by header: headers are decoded
//! by the tar module (which refuses whatever other tar readers would read
//! differently), paths and types judged by the rules of entries.rs, regular
//! files hashed as they stream past (and handed to a [`Sink`]: a visitor, or
//! `unpack`'s writer), MANIFEST parsed when it arrives. Everything found is
//! collected in a [`Walk`], which report.rs defines and turns into the
//! report. Nothing is ever written here.
//!
//! After the two end-of-archive blocks the rest of the decompressed stream
//! must be zeros, the gzip member must end, and the file must end with it:
//! bytes after the member (a second member or anything else) are rejected.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use super::entries::{classify_path, kind_name, type_name, Paths, Refusal};
use super::limits::{Limits, ECHOED_PATH_BYTES, MAX_REPORTED_ENTRY_FAILURES};
use super::report::{SeenFile, Walk};
use super::source::{EntryReader, Source};
use super::tar::{self, field, shown, typeflag, Header, PaxInfo, BLOCK};
use super::types::{
    entry_check_id, io_err, BundleError, BundleVerification, EntryVisitor, MANIFEST_NAME,
};
use crate::digest::{Hasher, Sha256Digest};
use crate::manifest::{self, Manifest};
use crate::progress::Progress;
use crate::report::Check;

/// Where entries go besides being hashed.
pub(crate) trait Sink {
    /// True if the regular file `rel` should be passed to [`Sink::file`].
    fn wants(&mut self, rel: &str) -> bool;
    /// Receives a regular file's content.
    fn file(&mut self, rel: &str, content: &mut dyn Read) -> io::Result<()>;
    /// A safe directory entry (relative to the root; "" for the root itself).
    fn dir(&mut self, _rel: &str) -> io::Result<()> {
        Ok(())
    }
    /// The SHA-256 of the file just given to [`Sink::file`], read whole.
    fn digested(&mut self, _rel: &str, _sha256: &Sha256Digest) {}
    /// True if an error from this sink must stop the run (unpack: the
    /// destination failed) rather than fail the entry's check (visitors).
    fn errors_are_fatal(&self) -> bool {
        false
    }
}

struct VisitorSink<'a>(Option<&'a mut dyn EntryVisitor>);
impl Sink for VisitorSink<'_> {
    fn wants(&mut self, rel: &str) -> bool {
        self.0.as_mut().is_some_and(|v| v.wants(rel))
    }
    fn file(&mut self, rel: &str, content: &mut dyn Read) -> io::Result<()> {
        match self.0.as_mut() {
            Some(v) => v.visit(rel, content),
            None => Ok(()),
        }
    }
    fn digested(&mut self, rel: &str, sha256: &Sha256Digest) {
        if let Some(v) = self.0.as_mut() {
            v.digested(rel, sha256);
        }
    }
    fn dir(&mut self, rel: &str) -> io::Result<()> {
        if let Some(v) = self.0.as_mut() {
            v.dir(rel);
        }
        Ok(())
    }
}

/// Metadata from the one PAX or GNU long-name header before the next entry.
#[derive(Default)]
struct Pending {
    pax: Option<PaxInfo>,
    long_name: Option<Vec<u8>>,
}

impl Pending {
    fn any(&self) -> bool {
        self.pax.is_some() || self.long_name.is_some()
    }
}

/// " (NAME)" for a message about a header, or "" when the name is empty.
fn named(name: &[u8]) -> String {
    if name.is_empty() {
        String::new()
    } else {
        format!(" ({})", shown(name, 200))
    }
}

/// Whether reading goes on after a header.
enum Step {
    Next,
    Stop,
}

struct Parser<'a> {
    limits: Limits,
    sink: &'a mut dyn Sink,
    w: Walk,
    paths: Paths,
    regular_files: u64,
    first_file: Option<String>,
}

impl Parser<'_> {
    /// A tar-level problem: reading stops.
    fn fail(&mut self, why: String) -> Step {
        self.w.tar_problem = Some(why);
        Step::Stop
    }

    /// A limit was exceeded: reading stops.
    fn limit(&mut self, name: &'static str, detail: String) -> Step {
        self.w.limit_stop = Some((name, detail));
        Step::Stop
    }

    /// Records a failed entry check under the best available id; past
    /// [`MAX_REPORTED_ENTRY_FAILURES`], only counts it.
    fn reject(&mut self, id_path: &str, why: String) {
        if self.w.reported_rejections >= MAX_REPORTED_ENTRY_FAILURES {
            self.w.unreported_rejections += 1;
            return;
        }
        self.w.reported_rejections += 1;
        self.w.shadowed.insert(id_path.to_string());
        self.w.entries.put(
            entry_check_id(id_path),
            Check::fail(entry_check_id(id_path), format!("rejected: {why}")),
        );
    }

    /// Skips `len` data bytes and their padding.
    fn skip(&mut self, src: &mut Source<'_>, len: u64) -> Step {
        match src
            .data(len, |_| {})
            .and_then(|ok| if ok { src.pad(len) } else { Ok(false) })
        {
            Err(()) => Step::Stop,
            Ok(false) => self.fail("the archive ends inside an entry (truncated)".into()),
            Ok(true) => Step::Next,
        }
    }

    /// Skips the padding after `len` data bytes.
    fn pad(&mut self, src: &mut Source<'_>, len: u64) -> Step {
        match src.pad(len) {
            Err(()) => Step::Stop,
            Ok(false) => self.fail("the archive ends inside padding (truncated)".into()),
            Ok(true) => Step::Next,
        }
    }

    fn run(&mut self, src: &mut Source<'_>) {
        let mut pending = Pending::default();
        let mut h = [0u8; BLOCK];
        loop {
            let off = src.offset();
            let got = match src.block(&mut h) {
                Ok(n) => n,
                Err(()) => return,
            };
            let step = if got == 0 {
                self.fail(
                    "the archive ends without the two end-of-archive blocks (truncated)".into(),
                )
            } else if got < BLOCK {
                self.fail("the archive ends inside a header block (truncated)".into())
            } else if h.iter().all(|b| *b == 0) {
                self.end_of_archive(src, &pending)
            } else {
                match tar::decode(&h) {
                    Err(why) => self.fail(format!(
                        "header at offset {off}{}: {why}",
                        named(tar::cstr(&h[field::NAME]))
                    )),
                    Ok(hd) if hd.typeflag == typeflag::GNU_LONG_LINK => self.fail(format!(
                        "GNU long link name ('K') header at offset {off}: links are not allowed in a bundle, and readers disagree on which entry a stray one applies to"
                    )),
                    Ok(hd) if hd.typeflag == typeflag::PAX_GLOBAL => self.fail(format!(
                        "PAX global header ('g') at offset {off}: GNU tar and Python apply its records to every later entry, the tar crate to none, so no later entry reads the same to all of them"
                    )),
                    Ok(hd) if matches!(hd.typeflag, typeflag::PAX | typeflag::GNU_LONG_NAME) => {
                        self.extension(src, off, &hd, &mut pending)
                    }
                    Ok(hd) => self.entry(src, off, hd, std::mem::take(&mut pending)),
                }
            };
            if let Step::Stop = step {
                return;
            }
        }
    }

    /// A zero block: the second one must follow, then the archive ends.
    fn end_of_archive(&mut self, src: &mut Source<'_>, pending: &Pending) -> Step {
        let mut h2 = [0u8; BLOCK];
        match src.block(&mut h2) {
            Err(()) => return Step::Stop,
            Ok(n) if n < BLOCK => {
                return self.fail("the archive ends after a single zero block (truncated)".into())
            }
            Ok(_) => {}
        }
        if h2.iter().any(|b| *b != 0) {
            return self.fail(
                "a single zero block inside the archive (expected a header or two zero blocks)"
                    .into(),
            );
        }
        if pending.any() {
            return self.fail("a PAX or GNU long-name header is not followed by an entry".into());
        }
        self.w.eoa = true;
        Step::Stop
    }

    /// A PAX (`x`) or GNU long-name (`L`) header for the next entry: at most
    /// one of them per entry.
    fn extension(
        &mut self,
        src: &mut Source<'_>,
        off: u64,
        hd: &Header,
        pending: &mut Pending,
    ) -> Step {
        let (t, hsize) = (hd.typeflag, hd.size);
        if hsize > self.limits.max_pax_record_bytes {
            return self.limit(
                "pax_record_bytes",
                format!(
                    "a {} record of {hsize} bytes exceeds the {}-byte limit; raise --max-pax-record-bytes if this is expected",
                    if t == typeflag::PAX { "PAX" } else { "GNU long-name" },
                    self.limits.max_pax_record_bytes
                ),
            );
        }
        self.w.max_pax = self.w.max_pax.max(hsize);
        // Sized by what arrives, not by the declared length.
        let mut data = Vec::new();
        match src.data(hsize, |b| data.extend_from_slice(b)) {
            Err(()) => return Step::Stop,
            Ok(false) => {
                return self
                    .fail("the archive ends inside a PAX or long-name record (truncated)".into())
            }
            Ok(true) => {}
        }
        if let Step::Stop = self.pad(src, hsize) {
            return Step::Stop;
        }
        if pending.any() {
            let first = if pending.pax.is_some() { 'x' } else { 'L' };
            return self.fail(if first == t as char {
                format!("two '{first}' headers for one entry (at offset {off})")
            } else {
                format!(
                    "a GNU long name and a PAX header for one entry ('{first}' then '{}' at offset {off}): the readers disagree on which name wins",
                    t as char
                )
            });
        }
        if t == typeflag::PAX {
            match tar::parse_pax(&data) {
                Ok(info) => pending.pax = Some(info),
                Err(why) => {
                    return self.fail(format!("malformed PAX header at offset {off}: {why}"))
                }
            }
        } else {
            match tar::parse_long_name(&data) {
                Ok(name) => pending.long_name = Some(name),
                Err(why) => {
                    return self.fail(format!(
                        "malformed GNU long-name header at offset {off}: {why}"
                    ))
                }
            }
        }
        Step::Next
    }

    /// An entry header (anything but an extension header), with what the
    /// extension header before it said.
    fn entry(&mut self, src: &mut Source<'_>, off: u64, hd: Header, pending: Pending) -> Step {
        let (t, hsize) = (hd.typeflag, hd.size);
        self.w.entry_count += 1;
        if self.w.entry_count > self.limits.max_entries {
            return self.limit(
                "entries",
                format!(
                    "more than {} entries; raise --max-entries if this is expected",
                    self.limits.max_entries
                ),
            );
        }
        let Pending { pax, long_name } = pending;
        let pax = pax.unwrap_or_default();
        let raw_path: Vec<u8> = pax.path.or(long_name).unwrap_or(hd.name);
        let regular_type = matches!(t, typeflag::REGULAR | typeflag::REGULAR_OLD);
        let size = match pax.size {
            Some(_) if !regular_type => {
                return self.fail(format!(
                    "a PAX size record on a {} entry at offset {off} ({}): readers disagree on whether data follows",
                    kind_name(t),
                    shown(&raw_path, 200)
                ))
            }
            Some(ps) if hsize != 0 && hsize != ps => {
                return self.fail(format!(
                    "the PAX size {ps} and the header's size field {hsize} disagree for the entry at offset {off} ({}): write 0 in the field or the same size",
                    shown(&raw_path, 200)
                ))
            }
            Some(ps) => ps,
            None => hsize,
        };
        if size != 0 && matches!(t, b'1' | b'2' | b'3' | b'4' | b'5' | b'6') {
            return self.fail(format!(
                "a {} entry with a non-zero size ({size}) at offset {off} ({}): Python and GNU tar read no data after it, the tar crate reads {size} bytes",
                kind_name(t),
                shown(&raw_path, 200)
            ));
        }
        let is_file = regular_type && !pax.sparse;
        let is_dir = t == typeflag::DIRECTORY;
        if size > self.limits.max_entry_bytes {
            return self.limit(
                "entry_bytes",
                format!(
                    "entry {} has {size} bytes, more than the {}-byte limit; raise --max-entry-bytes if this is expected",
                    shown(&raw_path, ECHOED_PATH_BYTES),
                    self.limits.max_entry_bytes
                ),
            );
        }
        self.w.max_entry = self.w.max_entry.max(size);
        self.w.max_path = self.w.max_path.max(raw_path.len());

        // Decide whether the entry is acceptable and its relative path.
        let mut problems: Vec<String> = Vec::new();
        if !is_file && !is_dir {
            problems.push(if pax.sparse && regular_type {
                "GNU sparse file (PAX sparse records)".to_string()
            } else {
                type_name(t)
            });
        }
        let mut id_path;
        let mut rel = None;
        let classified = if raw_path.len() > self.limits.max_path_bytes {
            // Echoed shortened, and judged no further.
            self.w.path_limit_fails += 1;
            problems.push(format!(
                "path of {} bytes exceeds the {}-byte limit",
                raw_path.len(),
                self.limits.max_path_bytes
            ));
            Err((shown(&raw_path, ECHOED_PATH_BYTES), String::new()))
        } else {
            classify_path(&raw_path, is_dir)
        };
        match classified {
            Err((shortened, why)) if why.is_empty() => id_path = shortened,
            Err((lossy, why)) => {
                id_path = lossy;
                problems.push(why);
            }
            Ok(full) => {
                id_path = full.clone();
                match self.w.root.split(&full) {
                    Err(why) => problems.push(why),
                    Ok(r) if r.is_empty() && !is_dir => {
                        problems.push("a file at the top level, outside the root directory".into());
                    }
                    Ok(r) => {
                        if !r.is_empty() {
                            id_path = r.clone();
                        }
                        rel = Some(r);
                    }
                }
            }
        }
        if let Some(r) = &rel {
            if problems.is_empty() {
                match self.paths.register(r, is_dir) {
                    Ok(()) => {}
                    Err(Refusal::Entry(why)) => problems.push(why),
                    Err(Refusal::Limit(detail)) => return self.limit("entries", detail),
                }
            }
        }
        let rel = match rel {
            Some(rel) if problems.is_empty() => rel,
            _ => {
                self.reject(&id_path, problems.join("; "));
                return self.skip(src, size);
            }
        };
        if is_dir {
            if let Err(e) = self.sink.dir(&rel) {
                if self.sink.errors_are_fatal() {
                    self.w.fatal = Some(io_err(&rel)(e));
                    return Step::Stop;
                }
            }
            return Step::Next;
        }
        self.regular_file(src, rel, size)
    }

    /// An accepted regular file: MANIFEST, or hashed (and given to the sink).
    fn regular_file(&mut self, src: &mut Source<'_>, rel: String, size: u64) -> Step {
        self.regular_files += 1;
        if self.first_file.is_none() {
            self.first_file = Some(rel.clone());
        }
        if rel == MANIFEST_NAME {
            return self.read_manifest(src, size, self.regular_files == 1);
        }
        let (digest, visit_err, ok) = if self.sink.wants(&rel) {
            let mut er = EntryReader::new(&mut *src, size);
            let r = self.sink.file(&rel, &mut er);
            er.drain();
            if er.stopped {
                return Step::Stop;
            }
            let visit_err = match r {
                Err(_) if er.truncated => None,
                Err(e) => {
                    if self.sink.errors_are_fatal() {
                        self.w.fatal = Some(io_err(&rel)(e));
                        return Step::Stop;
                    }
                    Some(e.to_string())
                }
                Ok(()) => None,
            };
            let ok = !er.truncated;
            let digest = er.digest();
            if ok {
                self.sink.digested(&rel, &digest);
            }
            (digest, visit_err, ok)
        } else {
            let mut hasher = Hasher::new();
            match src.data(size, |b| hasher.update(b)) {
                Err(()) => return Step::Stop,
                Ok(ok) => (hasher.finish().0, None, ok),
            }
        };
        if !ok {
            self.w.entries.put(
                entry_check_id(&rel),
                Check::not_checkable(entry_check_id(&rel), "the archive ends inside this entry"),
            );
            self.w.shadowed.insert(rel);
            return self.fail("the archive ends inside an entry (truncated)".into());
        }
        self.w.files.push(SeenFile {
            rel,
            sha256: digest,
            size,
            problem: visit_err.map(|e| format!("reading the entry failed: {e}")),
        });
        self.pad(src, size)
    }

    /// Reads MANIFEST.
    fn read_manifest(&mut self, src: &mut Source<'_>, size: u64, first: bool) -> Step {
        self.w.manifest_seen = true;
        let cap = manifest::MAX_MANIFEST_BYTES.min(self.limits.max_entry_bytes);
        if size > cap {
            return self.limit(
                "entry_bytes",
                format!("MANIFEST has {size} bytes, more than the {cap}-byte cap"),
            );
        }
        // Sized by what arrives, not by the declared length (a bundle of a
        // few bytes may declare a gigabyte).
        let mut data = Vec::new();
        match src.data(size, |b| data.extend_from_slice(b)) {
            Err(()) => return Step::Stop,
            Ok(false) => {
                self.w.manifest_problem = Some("MANIFEST is truncated".into());
                return self.fail("the archive ends inside MANIFEST (truncated)".into());
            }
            Ok(true) => {}
        }
        if self.sink.wants(MANIFEST_NAME) {
            if let Err(e) = self.sink.file(MANIFEST_NAME, &mut io::Cursor::new(&data)) {
                if self.sink.errors_are_fatal() {
                    self.w.fatal = Some(io_err(MANIFEST_NAME)(e));
                    return Step::Stop;
                }
                self.w.manifest_problem = Some(format!("reading MANIFEST failed: {e}"));
            }
        }
        let mut problems = Vec::new();
        if !first {
            problems.push(format!(
                "MANIFEST is not the first regular file (the first is {}); a reader cannot check entries as they stream past",
                self.first_file.as_deref().unwrap_or("?")
            ));
        }
        match Manifest::parse_canonical_strict(&data, MANIFEST_NAME) {
            Ok(m) => {
                if m.get(MANIFEST_NAME).is_some() {
                    problems.push("MANIFEST lists itself (it must list every other file)".into());
                }
                self.w.manifest = Some(m);
            }
            Err(e) => problems.push(format!("MANIFEST is not canonical: {e}")),
        }
        if !problems.is_empty() {
            self.w.manifest_problem = Some(problems.join("; "));
        }
        self.pad(src, size)
    }
}

/// Verifies a bundle file. `Err` only when it cannot be opened or read.
///
/// Besides the spec's rules, a `BUNDLE.sha256` sidecar beside the file, when
/// present, is compared with the computed digest (`bundle.sha256`).
pub fn verify_bundle(
    path: &Path,
    limits: &Limits,
    visitor: Option<&mut dyn EntryVisitor>,
    progress: &dyn Progress,
) -> Result<BundleVerification, BundleError> {
    let mut sink = VisitorSink(visitor);
    verify_path_with_sink(path, limits, &mut sink, progress)
}

pub(crate) fn verify_path_with_sink(
    path: &Path,
    limits: &Limits,
    sink: &mut dyn Sink,
    progress: &dyn Progress,
) -> Result<BundleVerification, BundleError> {
    let f = File::open(path).map_err(io_err(path))?;
    let meta = f.metadata().map_err(io_err(path))?;
    {
        // `/dev/zero` and the like never end; pipes and FIFOs are read
        // (with the trailing-data bound).
        use std::os::unix::fs::FileTypeExt;
        if meta.file_type().is_char_device() {
            return Err(BundleError::NotABundleFile {
                path: path.to_path_buf(),
            });
        }
    }
    let len = meta.len();
    progress.start(len, 0);
    let target = path.display().to_string();
    let mut v = verify_with_sink(f, &target, limits, sink, progress).map_err(|e| match e {
        BundleError::Io { source, .. } => BundleError::Io {
            path: path.to_path_buf(),
            source,
        },
        other => other,
    })?;
    progress.finish();
    let mut side = path.as_os_str().to_owned();
    side.push(".sha256");
    let side = std::path::PathBuf::from(side);
    if side.is_file() {
        let c = sidecar_check(&side, v.bundle_sha256);
        v.report.replace("bundle.sha256", c);
    }
    Ok(v)
}

fn sidecar_check(side: &Path, actual: Option<Sha256Digest>) -> Check {
    let id = "bundle.sha256";
    let name = side.display().to_string();
    let text = match crate::capped::read_capped(side, 1 << 16) {
        Ok(t) => t,
        Err(e) => return Check::fail(id, format!("{name} cannot be read: {e}")),
    };
    let parsed = Manifest::parse(&text, Some(manifest::Format::Sha256sum), &name);
    let want = match parsed {
        Ok((m, _)) if m.len() == 1 => m.entries()[0].sha256,
        Ok(_) => return Check::fail(id, format!("{name} must hold exactly one sha256sum line")),
        Err(e) => return Check::fail(id, format!("{name} is malformed: {e}")),
    };
    match actual {
        None => Check::not_checkable(id, "reading the bundle stopped before its end"),
        Some(a) => Check::outcome(
            id,
            a == want,
            if a == want {
                format!("{} (matches {name})", a.prefixed())
            } else {
                format!("the bundle's SHA-256 differs from {name}")
            },
        )
        .with_values(want.to_hex(), a.to_hex()),
    }
}

/// Verifies bundle bytes from any reader (tests, fuzzing). `target` names it
/// in the report. `Err` only when the reader fails with an I/O error.
pub fn verify_bundle_reader<R: Read + Send>(
    reader: R,
    target: &str,
    limits: &Limits,
    visitor: Option<&mut dyn EntryVisitor>,
    progress: &dyn Progress,
) -> Result<BundleVerification, BundleError> {
    let mut sink = VisitorSink(visitor);
    verify_with_sink(reader, target, limits, &mut sink, progress)
}

pub(crate) fn verify_with_sink<R: Read + Send>(
    reader: R,
    target: &str,
    limits: &Limits,
    sink: &mut dyn Sink,
    progress: &dyn Progress,
) -> Result<BundleVerification, BundleError> {
    // Decompression runs on its own thread, the tar
    // parser and the checks on this one.
    std::thread::scope(|scope| {
        let mut src = Source::spawn(scope, reader, limits, progress);
        let mut parser = Parser {
            limits: *limits,
            sink,
            w: Walk::default(),
            paths: Paths::new(limits.max_entries),
            regular_files: 0,
            first_file: None,
        };
        parser.run(&mut src);
        let mut w = parser.w;
        if let Some(e) = w.fatal.take() {
            return Err(e);
        }
        // The rest of the decompressed stream: zeros after end-of-archive; after
        // a tar-level problem, decompress on anyway to judge the gzip layer.
        if w.limit_stop.is_none() && !src.stopped() && (w.eoa || w.tar_problem.is_some()) {
            let nonzero = src.drain();
            if w.eoa {
                w.nonzero_after_eoa = nonzero;
            }
        }
        let end = src
            .finish(w.limit_stop.is_some())
            .map_err(|source| BundleError::Io {
                path: target.into(),
                source,
            })?;
        Ok(super::report::assemble(target, limits, w, end))
    })
}
