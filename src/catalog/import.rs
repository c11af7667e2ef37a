//! `catalog import` of a manifest file, streamed: the file is read
//! twice, entry by entry, never parsed into a table of entries. The first
//! pass checks it (every rule of the manifest parser, see
//! [`crate::manifest::EntryStream`]) and measures the body the baseline
//! will store; the second writes that body into the row's blob as it reads
//! the file again, and must find the same manifest, or nothing is stored.
//! A file that cannot be streamed (entries out of order, say) is read whole,
//! then stored. The body is the baselines table's last column (schema 3),
//! so SQLite stores its zero blob without building the row whole, and
//! memory does not follow the body's size.

use std::io::Write;
use std::path::Path;

use rusqlite::blob::ZeroBlob;
use rusqlite::{DatabaseName, TransactionBehavior};

use super::baselines::{validate_baseline_name, BaselineRow};
use super::error::CatalogError;
use super::handle::Catalog;
use crate::digest::Sha256Digest;
use crate::manifest::{
    self, json_entry, json_head, json_tail, with_streams, EntryStream, Format, ManifestError,
    ManifestSource, Stopped, StreamEntry, Totals,
};

/// What an import stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Imported {
    /// The manifest digest.
    pub digest: Sha256Digest,
    /// Its number of files.
    pub files: u64,
    /// The digest of the baseline it replaced, if any.
    pub replaced: Option<Sha256Digest>,
}

/// The stored body's format: the JSON record when the entries carry sizes
/// (and for the empty set, as [`Catalog::put_baseline`] stores it).
fn stores_json(sizes: bool, files: u64) -> bool {
    sizes || files == 0
}

/// The piece of the body for entry `i`.
fn piece(json: bool, i: u64, e: &StreamEntry) -> String {
    if json {
        json_entry(i, &e.entry, e.header_sha256.as_ref())
    } else {
        manifest::canonical_line(&e.entry)
    }
}

/// Pass one: the totals and the body's length.
fn measure(stream: &mut EntryStream) -> Result<(Totals, u64), Stopped> {
    let sizes = stream.has_sizes();
    let mut len = 0u64;
    let mut i = 0u64;
    while let Some(e) = stream.next_entry().map_err(|_| Stopped::ReadWhole(0))? {
        len += piece(sizes, i, &e).len() as u64;
        i += 1;
    }
    let t = stream.finish().map_err(|_| Stopped::ReadWhole(0))?;
    if stores_json(sizes, t.files) {
        len += json_head(&t.digest, t.files, t.bytes.unwrap_or(0)).len() as u64;
        len += json_tail(t.files).len() as u64;
    }
    Ok((t, len))
}

/// The body being written into the row's blob, never past its length.
struct Body<W: Write> {
    w: W,
    written: u64,
    len: u64,
}

impl<W: Write> Body<W> {
    /// Writes `s`; false if it would go past the length measured before.
    fn put(&mut self, s: &str) -> std::io::Result<bool> {
        self.written += s.len() as u64;
        if self.written > self.len {
            return Ok(false);
        }
        self.w.write_all(s.as_bytes())?;
        Ok(true)
    }
}

fn changed(path: &Path) -> CatalogError {
    CatalogError::from(ManifestError::Parse {
        origin: path.display().to_string(),
        line: 0,
        reason: "changed while it was imported (it was read twice and differed); nothing was stored, import it again once it is stable".into(),
    })
}

impl Catalog {
    /// Stores the manifest file at `path` (in `format`, else detected) as
    /// the baseline `name`, replacing any earlier one, streamed (see the
    /// module doc). `source` says what it was recorded from.
    pub fn import_baseline(
        &self,
        name: &str,
        path: &Path,
        format: Option<Format>,
        source: &str,
    ) -> Result<Imported, CatalogError> {
        validate_baseline_name(name)?;
        let mut src = [ManifestSource::File(path.to_path_buf(), format)];
        let (totals, len) = with_streams(&mut src, |s| measure(&mut s[0]))?;
        if let ManifestSource::Loaded(m) = &src[0] {
            // Read whole (not in order): stored from memory, as before.
            let replaced = self.put_baseline(name, m, source)?;
            return Ok(Imported {
                digest: totals.digest,
                files: totals.files,
                replaced,
            });
        }
        let mut stream = EntryStream::open(path, format).map_err(|_| changed(path))?;
        let json = stores_json(stream.has_sizes(), totals.files);
        let bytes = if totals.files == 0 {
            Some(0)
        } else {
            totals.bytes
        };
        let blob_len = i32::try_from(len).map_err(|_| {
            CatalogError::from(ManifestError::TooLarge {
                path: path.to_path_buf(),
            })
        })?;
        let mut conn = self.lock();
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let old = self.replace_baseline_row(
            &tx,
            &BaselineRow {
                name,
                digest: &totals.digest,
                files: totals.files,
                bytes,
                format: if json { "json" } else { "canonical" },
                source,
            },
            &ZeroBlob(blob_len),
        )?;
        let rowid = tx.last_insert_rowid();
        {
            let blob = tx
                .blob_open(DatabaseName::Main, "baselines", "body", rowid, false)
                .map_err(|e| self.err(e))?;
            let mut body = Body {
                w: std::io::BufWriter::with_capacity(1 << 16, blob),
                written: 0,
                len,
            };
            let io = |source| CatalogError::Io {
                path: self.path.clone(),
                source,
            };
            let mut put = |s: &str| match body.put(s) {
                Ok(true) => Ok(()),
                Ok(false) => Err(changed(path)),
                Err(e) => Err(io(e)),
            };
            if json {
                put(&json_head(&totals.digest, totals.files, bytes.unwrap_or(0)))?;
            }
            let mut i = 0u64;
            while let Some(e) = stream.next_entry().map_err(|_| changed(path))? {
                put(&piece(json, i, &e))?;
                i += 1;
            }
            if json {
                put(json_tail(i))?;
            }
            let again = stream.finish().map_err(|_| changed(path))?;
            body.w.flush().map_err(io)?;
            if again != totals || body.written != len {
                return Err(changed(path));
            }
        }
        tx.commit().map_err(|e| self.err(e))?;
        Ok(Imported {
            digest: totals.digest,
            files: totals.files,
            replaced: old.and_then(|h| Sha256Digest::parse_hex(&h).ok()),
        })
    }
}
