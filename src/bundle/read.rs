//! Streaming bundle verification: one pass over the gzip stream.
//!
//! Layers, from the file up: [`RawIn`] hashes every byte read from the file
//! (the bundle's SHA-256) and notes I/O errors so that they are not mistaken
//! for a malformed bundle; [`Counted`] counts the compressed bytes the
//! decoder consumed (for the ratio limit); flate2's single-member
//! `bufread::GzDecoder` inflates and checks CRC and length; [`Source`] keeps a
//! window of decompressed bytes and enforces the total and ratio limits on
//! every refill. The tar parser on top reads 512-byte headers itself, so every
//! rule of spec section 5 is explicit here and nothing is ever extracted
//! (extraction is a [`Sink`], used by `unpack`).
//!
//! After the two end-of-archive blocks the rest of the decompressed stream
//! must be zeros, the gzip member must end, and the file must end with it:
//! bytes after the member (a second member or anything else) are rejected.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::Path;

use flate2::bufread::GzDecoder;

use super::header::{self, shown, PaxInfo, BLOCK};
use super::{
    entry_check_id, io_err, limit_check_id, BundleError, BundleVerification, EntryVisitor, Limits,
    MANIFEST_NAME, RATIO_GRACE_BYTES,
};
use crate::digest::{Hasher, Sha256Digest};
use crate::manifest::{self, Manifest};
use crate::progress::Progress;
use crate::report::{Check, Report};

const WINDOW: usize = 1 << 18;

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
    fn dir(&mut self, rel: &str) -> io::Result<()> {
        if let Some(v) = self.0.as_mut() {
            v.dir(rel);
        }
        Ok(())
    }
}

/// Hashes and counts every byte read from the raw file; remembers I/O errors.
struct RawIn<'p, R> {
    inner: R,
    hasher: Hasher,
    io_error: Option<io::ErrorKind>,
    progress: &'p dyn Progress,
}

impl<R: Read> Read for RawIn<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.inner.read(buf) {
                Ok(n) => {
                    self.hasher.update(&buf[..n]);
                    self.progress.advance(n as u64);
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.io_error = Some(e.kind());
                    return Err(e);
                }
            }
        }
    }
}

/// Counts bytes consumed by the decoder.
struct Counted<B> {
    inner: B,
    consumed: u64,
}

impl<B: BufRead> Read for Counted<B> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed += n as u64;
        Ok(n)
    }
}

impl<B: BufRead> BufRead for Counted<B> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.consumed += amt as u64;
        self.inner.consume(amt)
    }
}

type Decoder<'p, R> = GzDecoder<Counted<BufReader<RawIn<'p, R>>>>;

/// Why reading the decompressed stream stopped for good.
#[derive(Debug)]
enum Stop {
    /// The underlying file could not be read (the tool cannot run).
    RawIo(io::Error),
    /// The gzip stream is corrupt or truncated.
    Gzip(String),
    /// A limit was exceeded.
    Limit(&'static str, String),
}

/// Decompressed bytes with limits enforced on every refill.
struct Source<'p, R> {
    dec: Decoder<'p, R>,
    win: Vec<u8>,
    pos: usize,
    len: usize,
    /// Decompressed bytes produced so far.
    out_total: u64,
    /// The gzip member ended (CRC and length checked).
    member_end: bool,
    stop: Option<Stop>,
    limits: Limits,
}

impl<'p, R: Read> Source<'p, R> {
    /// Ensures decompressed bytes are available; returns how many (0 at the
    /// end of the member). `Err(())` means reading stopped; see `self.stop`.
    fn fill(&mut self) -> Result<usize, ()> {
        if self.pos < self.len {
            return Ok(self.len - self.pos);
        }
        if self.stop.is_some() {
            return Err(());
        }
        if self.member_end {
            return Ok(0);
        }
        loop {
            match self.dec.read(&mut self.win) {
                Ok(0) => {
                    self.member_end = true;
                    self.pos = 0;
                    self.len = 0;
                    return Ok(0);
                }
                Ok(n) => {
                    self.pos = 0;
                    self.len = n;
                    self.out_total += n as u64;
                    if self.out_total > self.limits.max_total_bytes {
                        self.stop = Some(Stop::Limit(
                            "total_bytes",
                            format!(
                                "the archive decompresses to more than {} bytes; raise --max-total-bytes if this bundle is expected to be that large",
                                self.limits.max_total_bytes
                            ),
                        ));
                        return Err(());
                    }
                    let consumed = self.dec.get_ref().consumed.max(1);
                    if self.out_total > RATIO_GRACE_BYTES
                        && self.out_total > self.limits.max_ratio.saturating_mul(consumed)
                    {
                        self.stop = Some(Stop::Limit(
                            "ratio",
                            format!(
                                "{} compressed bytes decompress to {} (more than {}:1), a decompression bomb or highly repetitive content; raise --max-ratio if this is expected",
                                consumed, self.out_total, self.limits.max_ratio
                            ),
                        ));
                        return Err(());
                    }
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let raw = self.dec.get_ref().inner.get_ref().io_error;
                    self.stop = Some(match raw {
                        Some(_) => Stop::RawIo(e),
                        None if e.kind() == io::ErrorKind::UnexpectedEof => {
                            Stop::Gzip("the gzip stream ends early: the file is truncated".into())
                        }
                        None => Stop::Gzip(format!("the gzip stream is corrupt: {e}")),
                    });
                    return Err(());
                }
            }
        }
    }

    /// Offset in the decompressed stream of the next byte to be consumed.
    fn offset(&self) -> u64 {
        self.out_total - (self.len - self.pos) as u64
    }

    fn avail(&self) -> &[u8] {
        &self.win[self.pos..self.len]
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
    }

    /// Reads one block. `Ok(n)` with n < 512 means the stream ended after n bytes.
    fn block(&mut self, out: &mut [u8; BLOCK]) -> Result<usize, ()> {
        let mut got = 0;
        while got < BLOCK {
            let n = self.fill()?;
            if n == 0 {
                return Ok(got);
            }
            let take = n.min(BLOCK - got);
            out[got..got + take].copy_from_slice(&self.avail()[..take]);
            self.consume(take);
            got += take;
        }
        Ok(got)
    }

    /// Feeds the next `n` bytes to `f`. `Ok(false)` if the stream ended first.
    fn data(&mut self, mut n: u64, mut f: impl FnMut(&[u8])) -> Result<bool, ()> {
        while n > 0 {
            let a = self.fill()?;
            if a == 0 {
                return Ok(false);
            }
            let take = (a as u64).min(n) as usize;
            f(&self.avail()[..take]);
            self.consume(take);
            n -= take as u64;
        }
        Ok(true)
    }

    /// Skips the padding after `size` data bytes.
    fn pad(&mut self, size: u64) -> Result<bool, ()> {
        let rem = size % BLOCK as u64;
        if rem == 0 {
            Ok(true)
        } else {
            self.data(BLOCK as u64 - rem, |_| {})
        }
    }
}

/// An entry's content as a reader, hashed as it is read.
struct EntryReader<'s, 'p, R> {
    src: &'s mut Source<'p, R>,
    left: u64,
    hasher: Hasher,
    truncated: bool,
    stopped: bool,
}

impl<R: Read> Read for EntryReader<'_, '_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let a = match self.src.fill() {
            Ok(a) => a,
            Err(()) => {
                self.stopped = true;
                return Err(io::Error::other("reading the bundle stopped"));
            }
        };
        if a == 0 {
            self.truncated = true;
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the archive ends inside this entry",
            ));
        }
        let n = (a as u64).min(self.left).min(buf.len() as u64) as usize;
        buf[..n].copy_from_slice(&self.src.avail()[..n]);
        self.hasher.update(&buf[..n]);
        self.src.consume(n);
        self.left -= n as u64;
        Ok(n)
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

/// One regular file seen in the archive.
struct SeenFile {
    rel: String,
    sha256: Sha256Digest,
    size: u64,
    problem: Option<String>,
}

/// Per-entry results, keyed by check id, in archive order; a second problem
/// with the same id is merged into the first check.
#[derive(Default)]
struct EntryChecks {
    order: Vec<String>,
    checks: HashMap<String, Check>,
}

impl EntryChecks {
    fn put(&mut self, id: String, c: Check) {
        match self.checks.get_mut(&id) {
            Some(old) => {
                if c.failed() {
                    if old.failed() {
                        old.detail = format!("{}; {}", old.detail, c.detail);
                    } else {
                        *old = c;
                    }
                }
            }
            None => {
                self.order.push(id.clone());
                self.checks.insert(id, c);
            }
        }
    }
}

fn type_name(t: u8) -> String {
    match t {
        b'1' => "hard link".into(),
        b'2' => "symbolic link".into(),
        b'3' => "character device".into(),
        b'4' => "block device".into(),
        b'6' => "FIFO".into(),
        b'7' => "contiguous file".into(),
        b'S' => "GNU sparse file".into(),
        b'g' => "PAX global header".into(),
        b'V' => "GNU volume label".into(),
        b'M' => "GNU multi-volume continuation".into(),
        b'D' => "GNU dump directory".into(),
        t if t.is_ascii_graphic() => format!("unsupported entry type '{}'", t as char),
        t => format!("unsupported entry type 0x{t:02x}"),
    }
}

/// What an entry of typeflag `t` is, for messages.
fn kind_name(t: u8) -> String {
    match t {
        b'0' | 0 => "regular file".into(),
        b'5' => "directory".into(),
        t => type_name(t),
    }
}

/// The tar-level verdict and everything collected.
struct Walk {
    tar_problem: Option<String>,
    /// The end-of-archive blocks were seen.
    eoa: bool,
    nonzero_after_eoa: u64,
    root: Option<String>,
    outside_root: u64,
    manifest: Option<Manifest>,
    manifest_problem: Option<String>,
    manifest_seen: bool,
    files: Vec<SeenFile>,
    entries: EntryChecks,
    /// Listed paths that appeared as unsafe or non-file entries (so they are
    /// not also reported missing).
    shadowed: HashSet<String>,
    path_limit_fails: u64,
    entry_count: u64,
    max_entry: u64,
    max_path: usize,
    max_pax: u64,
    limit_stop: Option<(&'static str, String)>,
    fatal: Option<BundleError>,
}

struct Parser<'a> {
    limits: Limits,
    sink: &'a mut dyn Sink,
    w: Walk,
    seen_paths: HashSet<String>,
    file_paths: HashSet<String>,
    dir_paths: HashSet<String>,
    regular_files: u64,
    first_file: Option<String>,
}

fn classify_path(raw: &[u8], is_dir: bool) -> Result<String, (String, String)> {
    let lossy = String::from_utf8_lossy(raw).into_owned();
    let s = std::str::from_utf8(raw)
        .map_err(|_| (lossy.clone(), "path is not valid UTF-8".to_string()))?;
    let mut p = s;
    if is_dir {
        p = p.strip_suffix('/').unwrap_or(p);
    }
    if p.is_empty() {
        return Err((lossy, "empty path".into()));
    }
    if p.starts_with('/') {
        return Err((lossy, "absolute path".into()));
    }
    if let Some(c) = p.chars().find(|c| matches!(c, '\0' | '\n' | '\r')) {
        return Err((lossy, format!("path contains {c:?}")));
    }
    for comp in p.split('/') {
        match comp {
            "" => return Err((lossy, "empty path component ('//' or trailing '/')".into())),
            "." => return Err((lossy, "'.' component (a leading './' is one)".into())),
            ".." => return Err((lossy, "'..' component (path escapes the root)".into())),
            _ => {}
        }
    }
    Ok(p.to_string())
}

impl<'a> Parser<'a> {
    /// Splits a safe full path into (root, rel), fixing the root on first use.
    fn under_root(&mut self, full: &str) -> Result<String, String> {
        let (first, rest) = match full.split_once('/') {
            Some((a, b)) => (a, b),
            None => (full, ""),
        };
        match &self.w.root {
            None => self.w.root = Some(first.to_string()),
            Some(r) if r != first => {
                self.w.outside_root += 1;
                return Err(format!("outside the root directory {r}/"));
            }
            _ => {}
        }
        Ok(rest.to_string())
    }

    /// Records a failed entry check under the best available id.
    fn reject(&mut self, id_path: &str, why: String) {
        self.w.shadowed.insert(id_path.to_string());
        self.w.entries.put(
            entry_check_id(id_path),
            Check::fail(entry_check_id(id_path), format!("rejected: {why}")),
        );
    }

    /// Duplicate and file/directory conflict checks; registers the path.
    fn register(&mut self, rel: &str, is_dir: bool) -> Result<(), String> {
        if !self.seen_paths.insert(rel.to_string()) {
            return Err("duplicate path (the same path appears twice in the archive)".into());
        }
        if is_dir {
            if self.file_paths.contains(rel) {
                return Err("duplicate path (a file and a directory)".into());
            }
        } else if self.dir_paths.contains(rel) {
            return Err(
                "duplicate path (a file and a directory, or a file used as a parent directory)"
                    .into(),
            );
        }
        let mut prefix_conflict = None;
        let mut idx = 0;
        while let Some(i) = rel[idx..].find('/') {
            let pre = &rel[..idx + i];
            if self.file_paths.contains(pre) {
                prefix_conflict = Some(pre.to_string());
            }
            self.dir_paths.insert(pre.to_string());
            idx += i + 1;
        }
        if is_dir {
            self.dir_paths.insert(rel.to_string());
        } else {
            self.file_paths.insert(rel.to_string());
        }
        if let Some(pre) = prefix_conflict {
            return Err(format!(
                "path conflict: {pre} is a regular file but is used as a directory here"
            ));
        }
        Ok(())
    }

    fn run<R: Read>(&mut self, src: &mut Source<'_, R>) {
        let mut pending = Pending::default();
        let mut h = [0u8; BLOCK];
        loop {
            let off = src.offset();
            let got = match src.block(&mut h) {
                Ok(n) => n,
                Err(()) => return,
            };
            if got == 0 {
                self.w.tar_problem = Some(
                    "the archive ends without the two end-of-archive blocks (truncated)".into(),
                );
                return;
            }
            if got < BLOCK {
                self.w.tar_problem =
                    Some("the archive ends inside a header block (truncated)".into());
                return;
            }
            if h.iter().all(|b| *b == 0) {
                let mut h2 = [0u8; BLOCK];
                match src.block(&mut h2) {
                    Err(()) => return,
                    Ok(n) if n < BLOCK => {
                        self.w.tar_problem =
                            Some("the archive ends after a single zero block (truncated)".into());
                        return;
                    }
                    Ok(_) => {}
                }
                if h2.iter().any(|b| *b != 0) {
                    self.w.tar_problem = Some("a single zero block inside the archive (expected a header or two zero blocks)".into());
                    return;
                }
                if pending.any() {
                    self.w.tar_problem =
                        Some("a PAX or GNU long-name header is not followed by an entry".into());
                    return;
                }
                self.w.eoa = true;
                return;
            }
            let hd = match header::decode(&h) {
                Ok(hd) => hd,
                Err(why) => {
                    self.w.tar_problem = Some(format!(
                        "header at offset {off}{}: {why}",
                        named(header::cstr(&h[..100]))
                    ));
                    return;
                }
            };
            let t = hd.typeflag;
            let hsize = hd.size;
            if t == b'K' {
                self.w.tar_problem = Some(format!(
                    "GNU long link name ('K') header at offset {off}: links are not allowed in a bundle, and readers disagree on which entry a stray one applies to"
                ));
                return;
            }
            // Extension headers for the next entry: at most one, PAX or GNU.
            if matches!(t, b'x' | b'L') {
                if hsize > self.limits.max_pax_record_bytes {
                    self.w.limit_stop = Some((
                        "pax_record_bytes",
                        format!(
                            "a {} record of {hsize} bytes exceeds the {}-byte limit; raise --max-pax-record-bytes if this is expected",
                            if t == b'x' { "PAX" } else { "GNU long-name" },
                            self.limits.max_pax_record_bytes
                        ),
                    ));
                    return;
                }
                self.w.max_pax = self.w.max_pax.max(hsize);
                // Sized by what arrives, not by the declared length.
                let mut data = Vec::new();
                match src.data(hsize, |b| data.extend_from_slice(b)) {
                    Err(()) => return,
                    Ok(false) => {
                        self.w.tar_problem = Some(
                            "the archive ends inside a PAX or long-name record (truncated)".into(),
                        );
                        return;
                    }
                    Ok(true) => {}
                }
                match src.pad(hsize) {
                    Err(()) => return,
                    Ok(false) => {
                        self.w.tar_problem =
                            Some("the archive ends inside padding (truncated)".into());
                        return;
                    }
                    Ok(true) => {}
                }
                if pending.any() {
                    let first = if pending.pax.is_some() { 'x' } else { 'L' };
                    self.w.tar_problem = Some(if first == t as char {
                        format!("two '{first}' headers for one entry (at offset {off})")
                    } else {
                        format!(
                            "a GNU long name and a PAX header for one entry ('{first}' then '{}' at offset {off}): the readers disagree on which name wins",
                            t as char
                        )
                    });
                    return;
                }
                if t == b'x' {
                    match header::parse_pax(&data) {
                        Ok(info) => pending.pax = Some(info),
                        Err(why) => {
                            self.w.tar_problem =
                                Some(format!("malformed PAX header at offset {off}: {why}"));
                            return;
                        }
                    }
                } else {
                    match header::parse_long_name(&data) {
                        Ok(name) => pending.long_name = Some(name),
                        Err(why) => {
                            self.w.tar_problem = Some(format!(
                                "malformed GNU long-name header at offset {off}: {why}"
                            ));
                            return;
                        }
                    }
                }
                continue;
            }
            // A real entry.
            self.w.entry_count += 1;
            if self.w.entry_count > self.limits.max_entries {
                self.w.limit_stop = Some((
                    "entries",
                    format!(
                        "more than {} entries; raise --max-entries if this is expected",
                        self.limits.max_entries
                    ),
                ));
                return;
            }
            let Pending { pax, long_name } = std::mem::take(&mut pending);
            let pax = pax.unwrap_or_default();
            let raw_path: Vec<u8> = pax.path.or(long_name).unwrap_or(hd.name);
            let regular_type = matches!(t, b'0' | 0);
            let size = match pax.size {
                Some(_) if !regular_type => {
                    self.w.tar_problem = Some(format!(
                        "a PAX size record on a {} entry at offset {off} ({}): readers disagree on whether data follows",
                        kind_name(t),
                        shown(&raw_path, 200)
                    ));
                    return;
                }
                Some(ps) if hsize != 0 && hsize != ps => {
                    self.w.tar_problem = Some(format!(
                        "the PAX size {ps} and the header's size field {hsize} disagree for the entry at offset {off} ({}): write 0 in the field or the same size",
                        shown(&raw_path, 200)
                    ));
                    return;
                }
                Some(ps) => ps,
                None => hsize,
            };
            if size != 0 && matches!(t, b'1' | b'2' | b'3' | b'4' | b'5' | b'6') {
                self.w.tar_problem = Some(format!(
                    "a {} entry with a non-zero size ({size}) at offset {off} ({}): Python and GNU tar read no data after it, the tar crate reads {size} bytes",
                    kind_name(t),
                    shown(&raw_path, 200)
                ));
                return;
            }
            let is_file = regular_type && !pax.sparse;
            let is_dir = t == b'5';
            let data_len = size;
            if data_len > self.limits.max_entry_bytes {
                self.w.limit_stop = Some((
                    "entry_bytes",
                    format!(
                        "entry {} has {data_len} bytes, more than the {}-byte limit; raise --max-entry-bytes if this is expected",
                        String::from_utf8_lossy(&raw_path),
                        self.limits.max_entry_bytes
                    ),
                ));
                return;
            }
            self.w.max_entry = self.w.max_entry.max(data_len);
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
            if raw_path.len() > self.limits.max_path_bytes {
                self.w.path_limit_fails += 1;
                problems.push(format!(
                    "path of {} bytes exceeds the {}-byte limit",
                    raw_path.len(),
                    self.limits.max_path_bytes
                ));
            }
            let mut id_path;
            let mut rel = None;
            match classify_path(&raw_path, is_dir) {
                Err((lossy, why)) => {
                    id_path = lossy;
                    problems.push(why);
                }
                Ok(full) => {
                    id_path = full.clone();
                    match self.under_root(&full) {
                        Err(why) => problems.push(why),
                        Ok(r) if r.is_empty() && !is_dir => {
                            problems
                                .push("a file at the top level, outside the root directory".into());
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
                    if let Err(why) = self.register(r, is_dir) {
                        problems.push(why);
                    }
                }
            }
            if !problems.is_empty() || rel.is_none() {
                self.reject(&id_path, problems.join("; "));
                match src.data(data_len, |_| {}).and_then(|ok| {
                    if ok {
                        src.pad(data_len)
                    } else {
                        Ok(false)
                    }
                }) {
                    Err(()) => return,
                    Ok(false) => {
                        self.w.tar_problem =
                            Some("the archive ends inside an entry (truncated)".into());
                        return;
                    }
                    Ok(true) => continue,
                }
            }
            let rel = rel.expect("checked above");
            if is_dir {
                if let Err(e) = self.sink.dir(&rel) {
                    if self.sink.errors_are_fatal() {
                        self.w.fatal = Some(io_err(&rel)(e));
                        return;
                    }
                }
                continue;
            }
            // A regular file.
            self.regular_files += 1;
            if self.first_file.is_none() {
                self.first_file = Some(rel.clone());
            }
            if rel == MANIFEST_NAME {
                if !self.read_manifest(src, size, self.regular_files == 1) {
                    return;
                }
                continue;
            }
            let wants = self.sink.wants(&rel);
            let (digest, visit_err, ok) = if wants {
                let mut er = EntryReader {
                    src: &mut *src,
                    left: size,
                    hasher: Hasher::new(),
                    truncated: false,
                    stopped: false,
                };
                let r = self.sink.file(&rel, &mut er);
                // Drain whatever the sink left.
                let mut sink_buf = [0u8; 8192];
                while er.left > 0 && !er.truncated && !er.stopped {
                    let _ = er.read(&mut sink_buf);
                }
                if er.stopped {
                    return;
                }
                let visit_err = match r {
                    Err(_) if er.truncated => None,
                    Err(e) => {
                        if self.sink.errors_are_fatal() {
                            self.w.fatal = Some(io_err(&rel)(e));
                            return;
                        }
                        Some(e.to_string())
                    }
                    Ok(()) => None,
                };
                let ok = !er.truncated;
                (er.hasher.finish().0, visit_err, ok)
            } else {
                let mut hasher = Hasher::new();
                match src.data(size, |b| hasher.update(b)) {
                    Err(()) => return,
                    Ok(ok) => (hasher.finish().0, None, ok),
                }
            };
            if !ok {
                self.w.entries.put(
                    entry_check_id(&rel),
                    Check::not_checkable(
                        entry_check_id(&rel),
                        "the archive ends inside this entry",
                    ),
                );
                self.w.shadowed.insert(rel);
                self.w.tar_problem = Some("the archive ends inside an entry (truncated)".into());
                return;
            }
            self.w.files.push(SeenFile {
                rel,
                sha256: digest,
                size,
                problem: visit_err.map(|e| format!("reading the entry failed: {e}")),
            });
            match src.pad(size) {
                Err(()) => return,
                Ok(false) => {
                    self.w.tar_problem = Some("the archive ends inside padding (truncated)".into());
                    return;
                }
                Ok(true) => {}
            }
        }
    }

    /// Reads MANIFEST; returns false if reading must stop.
    fn read_manifest<R: Read>(&mut self, src: &mut Source<'_, R>, size: u64, first: bool) -> bool {
        self.w.manifest_seen = true;
        let cap = manifest::MAX_MANIFEST_BYTES.min(self.limits.max_entry_bytes);
        if size > cap {
            self.w.limit_stop = Some((
                "entry_bytes",
                format!("MANIFEST has {size} bytes, more than the {cap}-byte cap"),
            ));
            return false;
        }
        let mut data = Vec::with_capacity(size as usize);
        match src.data(size, |b| data.extend_from_slice(b)) {
            Err(()) => return false,
            Ok(false) => {
                self.w.tar_problem = Some("the archive ends inside MANIFEST (truncated)".into());
                self.w.manifest_problem = Some("MANIFEST is truncated".into());
                return false;
            }
            Ok(true) => {}
        }
        if self.sink.wants(MANIFEST_NAME) {
            if let Err(e) = self.sink.file(MANIFEST_NAME, &mut io::Cursor::new(&data)) {
                if self.sink.errors_are_fatal() {
                    self.w.fatal = Some(io_err(MANIFEST_NAME)(e));
                    return false;
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
        match src.pad(size) {
            Err(()) => false,
            Ok(false) => {
                self.w.tar_problem = Some("the archive ends inside padding (truncated)".into());
                false
            }
            Ok(true) => true,
        }
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
    let len = f.metadata().map_err(io_err(path))?.len();
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
        let idx = v.report.checks.iter().position(|c| c.id == "bundle.sha256");
        let mut r = Report::new(v.report.target.clone());
        for (i, old) in v.report.checks.drain(..).enumerate() {
            if Some(i) == idx {
                r.push(c.clone());
            } else {
                r.push(old);
            }
        }
        v.report = r;
    }
    Ok(v)
}

fn sidecar_check(side: &Path, actual: Option<Sha256Digest>) -> Check {
    let id = "bundle.sha256";
    let name = side.display().to_string();
    let text = match manifest::read_capped(side, 1 << 16) {
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
pub fn verify_bundle_reader<R: Read>(
    reader: R,
    target: &str,
    limits: &Limits,
    visitor: Option<&mut dyn EntryVisitor>,
    progress: &dyn Progress,
) -> Result<BundleVerification, BundleError> {
    let mut sink = VisitorSink(visitor);
    verify_with_sink(reader, target, limits, &mut sink, progress)
}

pub(crate) fn verify_with_sink<R: Read>(
    reader: R,
    target: &str,
    limits: &Limits,
    sink: &mut dyn Sink,
    progress: &dyn Progress,
) -> Result<BundleVerification, BundleError> {
    let raw = RawIn {
        inner: reader,
        hasher: Hasher::new(),
        io_error: None,
        progress,
    };
    let counted = Counted {
        inner: BufReader::with_capacity(1 << 16, raw),
        consumed: 0,
    };
    let mut src = Source {
        dec: GzDecoder::new(counted),
        win: vec![0u8; WINDOW],
        pos: 0,
        len: 0,
        out_total: 0,
        member_end: false,
        stop: None,
        limits: *limits,
    };
    let mut parser = Parser {
        limits: *limits,
        sink,
        w: Walk {
            tar_problem: None,
            eoa: false,
            nonzero_after_eoa: 0,
            root: None,
            outside_root: 0,
            manifest: None,
            manifest_problem: None,
            manifest_seen: false,
            files: Vec::new(),
            entries: EntryChecks::default(),
            shadowed: HashSet::new(),
            path_limit_fails: 0,
            entry_count: 0,
            max_entry: 0,
            max_path: 0,
            max_pax: 0,
            limit_stop: None,
            fatal: None,
        },
        seen_paths: HashSet::new(),
        file_paths: HashSet::new(),
        dir_paths: HashSet::new(),
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
    let tar_stopped = w.tar_problem.is_some();
    if w.limit_stop.is_none() && src.stop.is_none() && (w.eoa || tar_stopped) {
        loop {
            match src.fill() {
                Ok(0) | Err(()) => break,
                Ok(n) => {
                    if w.eoa {
                        w.nonzero_after_eoa +=
                            src.avail().iter().filter(|b| **b != 0).count() as u64;
                    }
                    src.consume(n);
                }
            }
        }
    }
    let mut gzip_error = None;
    match src.stop.take() {
        Some(Stop::Limit(name, detail)) => w.limit_stop = Some((name, detail)),
        Some(Stop::RawIo(e)) => {
            return Err(BundleError::Io {
                path: target.into(),
                source: e,
            })
        }
        Some(Stop::Gzip(s)) => gzip_error = Some(s),
        None => {}
    }
    let member_end = src.member_end;
    let reached_end = member_end || gzip_error.is_some();

    // After the member: nothing may follow. Read the rest of the file for
    // the bundle's digest (unless a limit stopped us).
    let mut trailing: u64 = 0;
    let mut second_member = false;
    let mut bundle_sha256 = None;
    let counted = src.dec.into_inner();
    let mut buffered = counted.inner;
    if w.limit_stop.is_none() && reached_end {
        loop {
            let chunk = match buffered.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    return Err(BundleError::Io {
                        path: target.into(),
                        source: e,
                    })
                }
            };
            if chunk.is_empty() {
                break;
            }
            if member_end && trailing == 0 && chunk.len() >= 2 && chunk[..2] == [0x1f, 0x8b] {
                second_member = true;
            }
            let n = chunk.len();
            if member_end {
                trailing += n as u64;
            }
            buffered.consume(n);
        }
        bundle_sha256 = Some(buffered.into_inner().hasher.finish().0);
    }

    // Assemble the report.
    let mut report = Report::new(target);
    report.push(match (&w.limit_stop, bundle_sha256) {
        (_, Some(d)) => Check::pass("bundle.sha256", d.prefixed())
            .with_values(serde_json::Value::Null, d.to_hex()),
        (Some((name, _)), None) => Check::not_checkable(
            "bundle.sha256",
            format!("reading stopped at the {name} limit before the end of the file"),
        ),
        (None, None) => Check::not_checkable(
            "bundle.sha256",
            "reading stopped before the end of the file",
        ),
    });
    let gz = if let Some(e) = &gzip_error {
        Check::fail("bundle.gzip", e.clone())
    } else if second_member {
        Check::fail("bundle.gzip", format!("a second gzip member follows the first ({trailing} bytes); a bundle is exactly one member"))
    } else if trailing > 0 {
        Check::fail(
            "bundle.gzip",
            format!("{trailing} bytes of trailing data after the gzip member"),
        )
    } else if w.limit_stop.is_some() {
        Check::not_checkable("bundle.gzip", "reading stopped at a limit")
    } else if member_end {
        Check::pass(
            "bundle.gzip",
            "one gzip member, CRC and length match, nothing after it",
        )
    } else {
        Check::not_checkable("bundle.gzip", "the stream was not read to its end")
    };
    report.push(gz);
    let tar = if let Some(p) = &w.tar_problem {
        Check::fail("bundle.tar", p.clone())
    } else if w.nonzero_after_eoa > 0 {
        Check::fail(
            "bundle.tar",
            format!(
                "{} non-zero bytes after the end-of-archive blocks (only zeros may follow them)",
                w.nonzero_after_eoa
            ),
        )
    } else if w.eoa {
        Check::pass(
            "bundle.tar",
            format!("{} entries, ends with two zero blocks", w.entry_count),
        )
    } else if gzip_error.is_some() {
        Check::not_checkable(
            "bundle.tar",
            "the gzip stream could not be read to the end of the archive",
        )
    } else if w.limit_stop.is_some() {
        Check::not_checkable("bundle.tar", "reading stopped at a limit")
    } else {
        Check::fail(
            "bundle.tar",
            "the archive ends without end-of-archive blocks (truncated)",
        )
    };
    report.push(tar);
    report.push(match (&w.root, w.outside_root) {
        (None, _) => Check::fail(
            "bundle.root",
            "no entry under a top-level directory (empty or unreadable archive)",
        ),
        (Some(r), 0) => Check::pass("bundle.root", format!("every entry is under {r}/")),
        (Some(r), n) => Check::fail("bundle.root", format!("{n} entries are outside {r}/")),
    });
    let stopped_early =
        w.limit_stop.is_some() || gzip_error.is_some() || (!w.eoa && w.tar_problem.is_some());
    report.push(match (&w.manifest_problem, w.manifest_seen) {
        (Some(p), _) => Check::fail("bundle.manifest", p.clone()),
        (None, true) => Check::pass(
            "bundle.manifest",
            format!(
                "MANIFEST first and canonical, {} files, {}",
                w.manifest.as_ref().map_or(0, |m| m.len()),
                w.manifest
                    .as_ref()
                    .map_or_else(String::new, |m| m.digest().prefixed())
            ),
        ),
        (None, false) if stopped_early => Check::not_checkable(
            "bundle.manifest",
            "reading stopped before a MANIFEST was found",
        ),
        (None, false) => Check::fail(
            "bundle.manifest",
            "no MANIFEST: the first regular file must be <root>/MANIFEST",
        ),
    });

    // Limits: a failure for the one that stopped reading and for over-long
    // paths; the others pass with what was observed.
    let limit_rows: [(&str, String, bool); 6] = [
        (
            "total_bytes",
            format!("{} of {} bytes", src.out_total, limits.max_total_bytes),
            false,
        ),
        (
            "entry_bytes",
            format!(
                "largest entry {} of {} bytes",
                w.max_entry, limits.max_entry_bytes
            ),
            false,
        ),
        (
            "entries",
            format!("{} of {} entries", w.entry_count, limits.max_entries),
            false,
        ),
        (
            "path_bytes",
            format!(
                "longest path {} of {} bytes",
                w.max_path, limits.max_path_bytes
            ),
            w.path_limit_fails > 0,
        ),
        (
            "pax_record_bytes",
            format!(
                "largest record {} of {} bytes",
                w.max_pax, limits.max_pax_record_bytes
            ),
            false,
        ),
        (
            "ratio",
            format!(
                "{} bytes from {} compressed (limit {}:1)",
                src.out_total, counted.consumed, limits.max_ratio
            ),
            false,
        ),
    ];
    for (name, observed, path_fail) in limit_rows {
        let id = limit_check_id(name);
        let c = match &w.limit_stop {
            Some((n, detail)) if *n == name => Check::fail(id, detail.clone()),
            _ if path_fail => Check::fail(
                id,
                format!(
                    "{} paths exceed the {}-byte limit; raise --max-path-bytes if this is expected",
                    w.path_limit_fails, limits.max_path_bytes
                ),
            ),
            Some(_) => Check::pass(
                id,
                format!("within the limit up to where reading stopped ({observed})"),
            ),
            None => Check::pass(id, format!("within the limit ({observed})")),
        };
        report.push(c);
    }

    // Entries, in archive order, then missing ones in manifest order.
    let mut listed_seen: HashSet<&str> = HashSet::new();
    let mut checks = std::mem::take(&mut w.entries);
    for f in &w.files {
        let id = entry_check_id(&f.rel);
        let c = match &w.manifest {
            _ if f.problem.is_some() => Check::fail(&id, f.problem.clone().unwrap_or_default()),
            None => Check::not_checkable(&id, "no usable MANIFEST to check against"),
            Some(m) => match m.get(&f.rel) {
                None => Check::fail(&id, "unlisted: present in the bundle but not in MANIFEST")
                    .with_values(serde_json::Value::Null, f.sha256.to_hex()),
                Some(e) => {
                    listed_seen.insert(e.path.as_str());
                    if e.sha256 == f.sha256 {
                        Check::pass(&id, format!("{} bytes, matches MANIFEST", f.size))
                    } else {
                        Check::fail(&id, "changed: content differs from MANIFEST")
                            .with_values(e.sha256.to_hex(), f.sha256.to_hex())
                    }
                }
            },
        };
        checks.put(id, c);
    }
    if let Some(m) = &w.manifest {
        for e in m.entries() {
            if listed_seen.contains(e.path.as_str())
                || w.shadowed.contains(&e.path)
                || checks.checks.contains_key(&entry_check_id(&e.path))
            {
                continue;
            }
            let id = entry_check_id(&e.path);
            let c = if stopped_early || !w.eoa {
                Check::not_checkable(
                    &id,
                    "not reached: reading stopped before the end of the archive",
                )
            } else {
                Check::fail(&id, "missing: listed in MANIFEST but not in the bundle")
                    .with_values(e.sha256.to_hex(), serde_json::Value::Null)
            };
            checks.put(id, c);
        }
    }
    let EntryChecks {
        order,
        checks: mut map,
    } = checks;
    for id in order {
        if let Some(c) = map.remove(&id) {
            report.push(c);
        }
    }
    let listed_bytes = w.manifest.as_ref().map(|m| {
        w.files
            .iter()
            .filter(|f| m.get(&f.rel).is_some())
            .map(|f| f.size)
            .sum()
    });
    Ok(BundleVerification {
        report,
        bundle_sha256,
        root: w.root,
        manifest: w.manifest,
        listed_bytes,
    })
}
