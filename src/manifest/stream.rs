//! Reading a manifest one entry at a time, for the verbs that only
//! need to walk it in order: `check` and `diff` merge it with another
//! sorted sequence, `catalog import` copies it. Memory stays that of one
//! entry, whatever the manifest's size.
//!
//! A stream gives exactly what [`Manifest::read_file`] gives, or gives up:
//! each entry is checked as it arrives (the same line, record and path
//! rules), and so is the order: every path must sort after the one before
//! it, which also rules out duplicates. The JSON record's `digest`, `files`
//! and `bytes` are compared with what the entries gave once the record
//! ends. Whenever anything is not as the canonical writer writes it (a
//! malformed line, entries out of order, a record whose totals disagree, a
//! file that is not a regular file), the stream stops with [`ReadWhole`]:
//! the caller drops what it built from the stream and reads the manifest
//! whole with [`Manifest::read_file`], which returns the same error as
//! before for a malformed manifest and accepts, in memory, the unsorted
//! input the lenient formats allow (sha256sum lines of an unsorted `find`).
//! The errors a user sees therefore come from one parser only.

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::JoinHandle;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};

use crate::digest::{Hasher, Sha256Digest};

use super::parse::{sha256sum_prefix, unescape_sha256sum, Format, RecordEntryJson};
use super::types::{
    validate_path, Entry, Manifest, ManifestError, MANIFEST_SCHEMA, MAX_MANIFEST_BYTES,
};

/// A stream gave up: read the manifest whole instead (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadWhole;

/// One entry of a streamed manifest, with its header digest (JSON
/// records only).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamEntry {
    /// The entry.
    pub entry: Entry,
    /// Its `header_sha256`, when the record pins one.
    pub header_sha256: Option<Sha256Digest>,
}

/// What a whole stream amounted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// The manifest digest (SHA-256 of the canonical text).
    pub digest: Sha256Digest,
    /// Number of entries.
    pub files: u64,
    /// Sum of sizes, when the entries carry sizes.
    pub bytes: Option<u64>,
}

/// A reader that fails past `left` bytes (the manifest size cap), so that
/// a file that grows while it is read is never taken for a shorter one.
struct Capped<R> {
    inner: R,
    left: u64,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.left = self
            .left
            .checked_sub(n as u64)
            .ok_or_else(|| io::Error::other("larger than the manifest size cap"))?;
        Ok(n)
    }
}

/// Bytes read to recognise the format (the first line's start is enough).
const SNIFF: u64 = 4096;
/// Entries sent at a time by the JSON reader thread.
const BATCH: usize = 512;

enum Kind {
    Lines {
        reader: Box<dyn BufRead + Send>,
        format: Format,
        line: Vec<u8>,
    },
    Json {
        rx: Receiver<Msg>,
        batch: std::vec::IntoIter<StreamEntry>,
        head: Option<Head>,
        thread: Option<JoinHandle<()>>,
    },
    Memory {
        manifest: Arc<Manifest>,
        next: usize,
    },
}

/// A manifest read in order, entry by entry (see the module doc).
pub struct EntryStream {
    kind: Kind,
    format: Format,
    prev: Option<String>,
    text: Hasher,
    files: u64,
    bytes: u64,
    sizes: bool,
    ended: bool,
}

impl EntryStream {
    /// Opens the manifest file at `path` (in `format`, else the detected
    /// one) as a stream; [`ReadWhole`] when it is not a regular file or its
    /// start is not recognisable from its first bytes.
    pub fn open(path: &Path, format: Option<Format>) -> Result<Self, ReadWhole> {
        let file = File::open(path).map_err(|_| ReadWhole)?;
        let meta = file.metadata().map_err(|_| ReadWhole)?;
        // A pipe could not be read a second time; a file over the cap is
        // refused as too large by the whole read.
        if !meta.is_file() || meta.len() > MAX_MANIFEST_BYTES {
            return Err(ReadWhole);
        }
        EntryStream::from_reader(file, format)
    }

    /// A stream over manifest bytes from `reader` (see [`EntryStream::open`]).
    /// More than the manifest size cap makes it give up.
    pub fn from_reader<R: Read + Send + 'static>(
        reader: R,
        format: Option<Format>,
    ) -> Result<Self, ReadWhole> {
        let mut reader = Capped {
            inner: reader,
            left: MAX_MANIFEST_BYTES,
        };
        let mut start = Vec::new();
        (&mut reader)
            .take(SNIFF)
            .read_to_end(&mut start)
            .map_err(|_| ReadWhole)?;
        let at_end = (start.len() as u64) < SNIFF;
        let format = match format {
            Some(f) => f,
            None => detect_prefix(&start, at_end)?,
        };
        let reader = BufReader::with_capacity(1 << 16, io::Cursor::new(start).chain(reader));
        let kind = match format {
            Format::Json => json_kind(reader),
            _ => Kind::Lines {
                reader: Box::new(reader),
                format,
                line: Vec::new(),
            },
        };
        Ok(EntryStream::new(kind, format, format == Format::Json))
    }

    /// A stream over a manifest already in memory (a directory hashed, a
    /// catalog baseline, a manifest read whole).
    pub fn of_manifest(manifest: Arc<Manifest>) -> Self {
        let sizes = manifest.has_sizes();
        EntryStream::new(Kind::Memory { manifest, next: 0 }, Format::Canonical, sizes)
    }

    fn new(kind: Kind, format: Format, sizes: bool) -> Self {
        EntryStream {
            kind,
            format,
            prev: None,
            text: Hasher::new(),
            files: 0,
            bytes: 0,
            sizes,
            ended: false,
        }
    }

    /// The format being read (`Canonical` for a manifest in memory).
    pub fn format(&self) -> Format {
        self.format
    }

    /// True when the entries carry sizes.
    pub fn has_sizes(&self) -> bool {
        self.sizes
    }

    /// The next entry in path order, `None` at the end.
    pub fn next_entry(&mut self) -> Result<Option<StreamEntry>, ReadWhole> {
        if self.ended {
            return Ok(None);
        }
        let next = match &mut self.kind {
            Kind::Memory { manifest, next } => {
                let e = manifest.entries().get(*next).cloned();
                *next += 1;
                // Already checked and sorted: counted, not judged again.
                return Ok(e.map(|entry| {
                    self.files += 1;
                    self.bytes += entry.size.unwrap_or(0);
                    StreamEntry {
                        header_sha256: manifest.header_sha256(&entry.path),
                        entry,
                    }
                }));
            }
            Kind::Lines {
                reader,
                format,
                line,
            } => next_line(reader.as_mut(), *format, line)?,
            Kind::Json {
                rx, batch, head, ..
            } => loop {
                if let Some(e) = batch.next() {
                    break Some(e);
                }
                match rx.recv() {
                    Ok(Msg::Batch(b)) => *batch = b.into_iter(),
                    Ok(Msg::End(h)) => {
                        *head = Some(h);
                        break None;
                    }
                    Ok(Msg::Failed) | Err(_) => return Err(ReadWhole),
                }
            },
        };
        let Some(e) = next else {
            self.ended = true;
            return Ok(None);
        };
        // In order, each path once.
        if let Some(prev) = &self.prev {
            if prev.as_bytes() >= e.entry.path.as_bytes() {
                return Err(ReadWhole);
            }
        }
        if e.header_sha256.is_some() && !crate::safetensors::is_shard_path(&e.entry.path) {
            return Err(ReadWhole);
        }
        self.text.update(e.entry.path.as_bytes());
        self.text.update(b":");
        self.text.update(&e.entry.sha256.hex_bytes());
        self.text.update(b"\n");
        self.files += 1;
        self.bytes += e.entry.size.unwrap_or(0);
        self.prev = Some(e.entry.path.clone());
        Ok(Some(e))
    }

    /// Reads to the end and checks what only the end can tell (the JSON
    /// record's totals); the digest, count and bytes of the whole manifest.
    pub fn finish(&mut self) -> Result<Totals, ReadWhole> {
        while self.next_entry()?.is_some() {}
        let bytes = self.sizes.then_some(self.bytes);
        if let Kind::Memory { manifest, .. } = &self.kind {
            return Ok(Totals {
                digest: manifest.digest(),
                files: self.files,
                bytes,
            });
        }
        let digest = std::mem::take(&mut self.text).finish().0;
        if let Kind::Json { head, .. } = &self.kind {
            let h = head.as_ref().ok_or(ReadWhole)?;
            let declared = Sha256Digest::parse_prefixed(&h.digest).map_err(|_| ReadWhole)?;
            if h.schema != MANIFEST_SCHEMA
                || declared != digest
                || h.files != self.files
                || h.bytes != self.bytes
            {
                return Err(ReadWhole);
            }
        }
        Ok(Totals {
            digest,
            files: self.files,
            bytes,
        })
    }
}

impl Drop for EntryStream {
    fn drop(&mut self) {
        if let Kind::Json { rx, thread, .. } = &mut self.kind {
            // Dropping the receiver makes the reader thread's next send fail.
            let (_, empty) = mpsc::sync_channel(1);
            drop(std::mem::replace(rx, empty));
            if let Some(t) = thread.take() {
                let _ = t.join();
            }
        }
    }
}

/// [`Format::detect`] on the first bytes of a file; [`ReadWhole`] when they
/// do not decide it (all blank, or a first line longer than them that could
/// still start like a sha256sum line).
fn detect_prefix(start: &[u8], at_end: bool) -> Result<Format, ReadWhole> {
    if !at_end && start.iter().all(u8::is_ascii_whitespace) {
        return Err(ReadWhole);
    }
    let first_line_done = at_end || start.contains(&b'\n') || start.len() >= 67;
    if !first_line_done {
        return Err(ReadWhole);
    }
    Ok(Format::detect(start))
}

/// The next line's entry, `None` at the end of the input.
fn next_line(
    reader: &mut dyn BufRead,
    format: Format,
    line: &mut Vec<u8>,
) -> Result<Option<StreamEntry>, ReadWhole> {
    line.clear();
    let n = reader.read_until(b'\n', line).map_err(|_| ReadWhole)?;
    if n == 0 {
        return Ok(None);
    }
    let body = match line.strip_suffix(b"\n") {
        Some(b) => b,
        // Canonical text ends every line with '\n'; sha256sum lines may
        // leave it off the last (read whole, as its parser decides).
        None if format == Format::Canonical => return Err(ReadWhole),
        None => &line[..],
    };
    let entry = match format {
        Format::Canonical => canonical_line(body),
        _ => sha256sum_line(body),
    }
    .ok_or(ReadWhole)?;
    Ok(Some(StreamEntry {
        entry,
        header_sha256: None,
    }))
}

/// One `path:hex` line as the lenient parser reads it, or `None`.
fn canonical_line(line: &[u8]) -> Option<Entry> {
    let line = std::str::from_utf8(line).ok()?;
    if line.is_empty() || line.contains('\r') {
        return None;
    }
    let (path, hex) = line.rsplit_once(':')?;
    let sha256 = Sha256Digest::parse_hex(hex).ok()?;
    validate_path(path).ok()?;
    Some(Entry {
        path: path.to_string(),
        size: None,
        sha256,
    })
}

/// One `hex  path` line as the sha256sum parser reads it, or `None`.
fn sha256sum_line(line: &[u8]) -> Option<Entry> {
    let (escaped, hex, rest) = sha256sum_prefix(line)?;
    let sha256 = Sha256Digest::parse_hex(std::str::from_utf8(hex).ok()?).ok()?;
    let raw = std::str::from_utf8(rest).ok()?;
    let path = if escaped {
        unescape_sha256sum(raw).ok()?
    } else {
        raw.to_string()
    };
    validate_path(&path).ok()?;
    Some(Entry {
        path,
        size: None,
        sha256,
    })
}

/// The record's fields other than `entries`.
struct Head {
    schema: String,
    digest: String,
    files: u64,
    bytes: u64,
}

enum Msg {
    Batch(Vec<StreamEntry>),
    End(Head),
    Failed,
}

fn json_kind<R: Read + Send + 'static>(reader: R) -> Kind {
    let (tx, rx) = mpsc::sync_channel::<Msg>(4);
    let thread = std::thread::spawn(move || {
        let mut de = serde_json::Deserializer::from_reader(reader);
        let head = de::Deserializer::deserialize_map(&mut de, RecordVisitor { tx: &tx })
            .and_then(|h| de.end().map(|()| h));
        let _ = tx.send(match head {
            Ok(h) => Msg::End(h),
            Err(_) => Msg::Failed,
        });
    });
    Kind::Json {
        rx,
        batch: Vec::new().into_iter(),
        head: None,
        thread: Some(thread),
    }
}

const FIELDS: &[&str] = &["schema", "digest", "files", "bytes", "entries"];

struct RecordVisitor<'a> {
    tx: &'a SyncSender<Msg>,
}

impl<'de> Visitor<'de> for RecordVisitor<'_> {
    type Value = Head;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a manifest record")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Head, A::Error> {
        let (mut schema, mut digest, mut files, mut bytes) = (None, None, None, None);
        let mut entries = false;
        fn once<T, E: de::Error>(slot: &mut Option<T>, v: T, name: &'static str) -> Result<(), E> {
            if slot.replace(v).is_some() {
                return Err(E::duplicate_field(name));
            }
            Ok(())
        }
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "schema" => once(&mut schema, map.next_value::<String>()?, "schema")?,
                "digest" => once(&mut digest, map.next_value::<String>()?, "digest")?,
                "files" => once(&mut files, map.next_value::<u64>()?, "files")?,
                "bytes" => once(&mut bytes, map.next_value::<u64>()?, "bytes")?,
                "entries" => {
                    if entries {
                        return Err(de::Error::duplicate_field("entries"));
                    }
                    entries = true;
                    map.next_value_seed(EntriesSeed { tx: self.tx })?;
                }
                other => return Err(de::Error::unknown_field(other, FIELDS)),
            }
        }
        if !entries {
            return Err(de::Error::missing_field("entries"));
        }
        Ok(Head {
            schema: schema.ok_or_else(|| de::Error::missing_field("schema"))?,
            digest: digest.ok_or_else(|| de::Error::missing_field("digest"))?,
            files: files.ok_or_else(|| de::Error::missing_field("files"))?,
            bytes: bytes.ok_or_else(|| de::Error::missing_field("bytes"))?,
        })
    }
}

struct EntriesSeed<'a> {
    tx: &'a SyncSender<Msg>,
}

impl<'de> DeserializeSeed<'de> for EntriesSeed<'_> {
    type Value = ();
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for EntriesSeed<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("manifest entries")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut batch = Vec::with_capacity(BATCH);
        let send = |b: Vec<StreamEntry>| {
            self.tx
                .send(Msg::Batch(b))
                .map_err(|_| de::Error::custom("the reader stopped"))
        };
        while let Some(e) = seq.next_element::<RecordEntryJson>()? {
            let bad = |_| de::Error::custom("invalid entry");
            validate_path(&e.path).map_err(|_| de::Error::custom("invalid path"))?;
            let sha256 = Sha256Digest::parse_hex(&e.sha256).map_err(bad)?;
            let header_sha256 = match &e.header_sha256 {
                Some(h) => Some(Sha256Digest::parse_hex(h).map_err(bad)?),
                None => None,
            };
            batch.push(StreamEntry {
                entry: Entry {
                    path: e.path,
                    size: Some(e.size),
                    sha256,
                },
                header_sha256,
            });
            if batch.len() == BATCH {
                send(std::mem::replace(&mut batch, Vec::with_capacity(BATCH)))?;
            }
        }
        if !batch.is_empty() {
            send(batch)?;
        }
        Ok(())
    }
}

/// Where a manifest comes from, for a verb that may have to read it again:
/// a file (streamed while it can be), or a manifest in memory.
#[derive(Clone)]
pub enum ManifestSource {
    /// A manifest file, in a format or detected.
    File(PathBuf, Option<Format>),
    /// A manifest already read or built.
    Loaded(Arc<Manifest>),
}

impl ManifestSource {
    /// A stream over the source; a file that cannot be streamed is read
    /// whole (and this source becomes [`ManifestSource::Loaded`]).
    pub fn open(&mut self) -> Result<EntryStream, ManifestError> {
        if let ManifestSource::File(path, format) = self {
            match EntryStream::open(path, *format) {
                Ok(s) => return Ok(s),
                Err(ReadWhole) => self.read_whole()?,
            }
        }
        match self {
            ManifestSource::Loaded(m) => Ok(EntryStream::of_manifest(Arc::clone(m))),
            ManifestSource::File(..) => unreachable!("read whole above"),
        }
    }

    /// Reads a file source whole (after a stream of it gave up); the
    /// manifest parser's error if it is malformed.
    pub fn read_whole(&mut self) -> Result<(), ManifestError> {
        if let ManifestSource::File(path, format) = self {
            let (m, _) = Manifest::read_file(path, *format)?;
            *self = ManifestSource::Loaded(Arc::new(m));
        }
        Ok(())
    }

    /// True for a manifest in memory.
    pub fn is_loaded(&self) -> bool {
        matches!(self, ManifestSource::Loaded(_))
    }
}

/// Runs `f` over streams of `sources`, in order; when one of them gives up
/// ([`ReadWhole`]), reads the sources that gave up whole and runs `f`
/// again. `f` must build its result from the streams only (it may be run
/// twice; a second run sees the same entries).
pub fn with_streams<T>(
    sources: &mut [ManifestSource],
    mut f: impl FnMut(&mut [EntryStream]) -> Result<T, Stopped>,
) -> Result<T, ManifestError> {
    loop {
        let mut streams = sources
            .iter_mut()
            .map(ManifestSource::open)
            .collect::<Result<Vec<_>, _>>()?;
        match f(&mut streams) {
            Ok(t) => return Ok(t),
            Err(Stopped::Error(e)) => return Err(e),
            Err(Stopped::ReadWhole(i)) => {
                drop(streams);
                match sources.get_mut(i) {
                    Some(s) if !s.is_loaded() => s.read_whole()?,
                    // A manifest in memory never gives up: no second run.
                    _ => {
                        return Err(ManifestError::Record {
                            origin: format!("manifest {i}"),
                            reason: "read whole, and still not readable in order".into(),
                        })
                    }
                }
            }
        }
    }
}

/// Why a run over streams stopped early.
#[derive(Debug)]
pub enum Stopped {
    /// Stream `i` gave up: read it whole and run again.
    ReadWhole(usize),
    /// Another error (I/O of a file checked, a cancelled run).
    Error(ManifestError),
}

impl From<ManifestError> for Stopped {
    fn from(e: ManifestError) -> Self {
        Stopped::Error(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::tests::e;
    use std::fs;

    /// Everything a stream of `bytes` gives, or `ReadWhole`.
    fn streamed(bytes: &[u8]) -> Result<(Vec<StreamEntry>, Totals), ReadWhole> {
        let mut s = EntryStream::from_reader(io::Cursor::new(bytes.to_vec()), None)?;
        let mut v = Vec::new();
        while let Some(e) = s.next_entry()? {
            v.push(e);
        }
        Ok((v, s.finish()?))
    }

    /// The stream agrees with the parser: the same entries and digest, or
    /// it gives up; it never accepts what the parser refuses.
    fn agrees(bytes: &[u8]) -> bool {
        let parsed = Manifest::parse(bytes, None, "t");
        match (streamed(bytes), parsed) {
            (Err(ReadWhole), _) => false,
            (Ok(_), Err(e)) => panic!("streamed what the parser refuses ({e}): {bytes:?}"),
            (Ok((entries, totals)), Ok((m, _))) => {
                let got: Vec<&Entry> = entries.iter().map(|e| &e.entry).collect();
                let want: Vec<&Entry> = m.entries().iter().collect();
                assert_eq!(got, want);
                for e in &entries {
                    assert_eq!(e.header_sha256, m.header_sha256(&e.entry.path));
                }
                assert_eq!(totals.digest, m.digest());
                assert_eq!(totals.files, m.len() as u64);
                true
            }
        }
    }

    #[test]
    fn sorted_manifests_stream_in_every_format() {
        let mut m = Manifest::from_entries(
            vec![
                e("a", b"1"),
                e("b/c:d", b"2"),
                e("back\\slash", b"3"),
                e("ü", b"4"),
                e("model.safetensors", b"5"),
            ],
            "t",
        )
        .unwrap();
        m.set_header_sha256("model.safetensors", Sha256Digest::of_bytes(b"header"), "t")
            .unwrap();
        for f in [Format::Canonical, Format::Json, Format::Sha256sum] {
            let text = m.render(f).unwrap();
            assert!(agrees(text.as_bytes()), "{f:?} did not stream:\n{text}");
        }
        // Upper-case hex is read and normalised, as by the parser.
        let upper = m.canonical_text().replace(
            &Sha256Digest::of_bytes(b"1").to_hex(),
            &Sha256Digest::of_bytes(b"1").to_hex().to_uppercase(),
        );
        assert!(agrees(upper.as_bytes()));
        // sha256sum lines may leave the final newline off.
        assert!(agrees(m.to_sha256sum().trim_end().as_bytes()));
        // The empty set.
        assert!(agrees(b""));
        assert!(agrees(
            Manifest::default().to_json_record().unwrap().as_bytes()
        ));
    }

    #[test]
    fn what_is_not_as_written_is_read_whole() {
        let m = Manifest::from_entries(vec![e("a", b"1"), e("b", b"2")], "t").unwrap();
        let canon = m.canonical_text();
        let json = m.to_json_record().unwrap();
        let (la, lb) = canon.split_once('\n').unwrap();
        let unsorted = format!("{lb}{la}\n");
        let dup = format!("{la}\n{la}\n");
        let cases = [
            unsorted.clone(),
            dup.clone(),
            canon.trim_end().to_string(),
            canon.replace('\n', "\r\n"),
            format!("{canon}\n"),
            json.replace("\"files\": 2", "\"files\": 3"),
            json.replace("\"bytes\": 2", "\"bytes\": 9"),
            json.replacen('{', "{\"extra\": 1, ", 1),
            json.replacen(
                "\"schema\": \"proofpack/manifest/v1\"",
                "\"schema\": \"x\"",
                1,
            ),
            format!("{json} x"),
            json.replace(
                &m.digest().prefixed(),
                &Sha256Digest::of_bytes(b"").prefixed(),
            ),
            m.to_sha256sum().replace("  a", "  ../a"),
            format!("{}\n", " ".repeat(5000)),
        ];
        for c in cases {
            assert!(!agrees(c.as_bytes()), "streamed: {c:?}");
        }
        // The parser still reads the unsorted set (in memory).
        assert!(Manifest::parse(unsorted.as_bytes(), None, "t").is_ok());
        assert!(Manifest::parse(dup.as_bytes(), None, "t").is_err());
    }

    #[test]
    fn a_source_that_gives_up_is_read_whole_with_the_parsers_error() {
        let d = tempfile::tempdir().unwrap();
        let m = Manifest::from_entries(vec![e("a", b"1"), e("b", b"2")], "t").unwrap();
        let (la, lb) = m
            .canonical_text()
            .split_once('\n')
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .unwrap();
        let p = d.path().join("unsorted");
        fs::write(&p, format!("{lb}{la}\n")).unwrap();
        let mut src = [ManifestSource::File(p.clone(), None)];
        let n = with_streams(&mut src, |s| {
            let mut n = 0;
            while s[0]
                .next_entry()
                .map_err(|_| Stopped::ReadWhole(0))?
                .is_some()
            {
                n += 1;
            }
            Ok(n)
        })
        .unwrap();
        assert_eq!(n, 2);
        assert!(src[0].is_loaded());
        let bad = d.path().join("bad");
        fs::write(&bad, format!("{la}\nnot a line\n")).unwrap();
        let mut src = [ManifestSource::File(bad.clone(), None)];
        let err = with_streams(&mut src, |s| {
            while s[0]
                .next_entry()
                .map_err(|_| Stopped::ReadWhole(0))?
                .is_some()
            {}
            Ok(())
        })
        .unwrap_err();
        let want = Manifest::read_file(&bad, None).unwrap_err();
        assert_eq!(err.to_string(), want.to_string());
    }
}
