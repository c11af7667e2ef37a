//! Reading ahead: the file a bundle sealed in proofpack's entry order
//! holds right after its MANIFEST, read from the first blocks of the
//! stream, so that a verifier knows what to collect before the one
//! verifying pass.
//! Nothing read here is trusted: the verifying pass hashes the same entry
//! against MANIFEST, and the caller compares the two.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use flate2::read::GzDecoder;

use super::tar::{decode, typeflag, Header, BLOCK};
use super::types::MANIFEST_NAME;
use super::write::READ_FIRST;

/// The largest MANIFEST read past (its bytes are skipped, not kept).
const MAX_SKIPPED_MANIFEST: u64 = 256 << 20;

/// The content of the second entry of the bundle at `path` when the first
/// is `<root>/MANIFEST` and the second `<root>/qualification.json`, both
/// regular files, the second at most `cap` bytes; `None` otherwise (a v1
/// bundle, another layout, anything unreadable: the caller reads the
/// bundle in two passes). The headers are read by the same decoder as the
/// verifying pass ([`super::tar::decode`]), raw: no PAX or GNU long-name
/// record is read (a hostile one could declare gigabytes); the two entries
/// proofpack writes first carry none, so any such record is a layout this
/// reader leaves to the two-pass verification.
pub fn read_ahead(path: &Path, cap: u64) -> Option<Vec<u8>> {
    let f = File::open(path).ok()?;
    let mut gz = GzDecoder::new(f);
    let first = next_header(&mut gz)?;
    let name = String::from_utf8(first.name).ok()?;
    let (root, file) = name.split_once('/')?;
    if file != MANIFEST_NAME
        || root.is_empty()
        || !is_regular(first.typeflag)
        || first.size > MAX_SKIPPED_MANIFEST
    {
        return None;
    }
    let padded = first.size.div_ceil(BLOCK as u64) * BLOCK as u64;
    let skipped = std::io::copy(&mut (&mut gz).take(padded), &mut std::io::sink()).ok()?;
    if skipped != padded {
        return None;
    }
    let second = next_header(&mut gz)?;
    if second.name != format!("{root}/{READ_FIRST}").as_bytes()
        || !is_regular(second.typeflag)
        || second.size > cap
    {
        return None;
    }
    let bytes = crate::capped::read_to_cap((&mut gz).take(second.size), cap).ok()??;
    (bytes.len() as u64 == second.size).then_some(bytes)
}

/// A regular file's typeflag: `'0'`, or NUL (the old tar's), as the
/// verifying pass reads them.
fn is_regular(t: u8) -> bool {
    matches!(t, typeflag::REGULAR | typeflag::REGULAR_OLD)
}

/// The next header block of `r`, decoded; `None` at the end, on a short
/// read or a header the decoder refuses.
fn next_header(r: &mut impl Read) -> Option<Header> {
    let mut block = [0u8; BLOCK];
    r.read_exact(&mut block).ok()?;
    if block.iter().all(|b| *b == 0) {
        return None;
    }
    decode(&block).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A gzip'd tar of raw 512-byte header blocks and contents.
    fn bundle(dir: &Path, entries: &[(&str, u8, u64, &[u8])]) -> std::path::PathBuf {
        let mut tar = Vec::new();
        for (name, kind, size, data) in entries {
            let mut h = tar::Header::new_ustar();
            h.set_path(name).unwrap();
            h.set_entry_type(tar::EntryType::new(*kind));
            h.set_size(*size);
            h.set_mode(0o644);
            h.set_uid(0);
            h.set_gid(0);
            h.set_mtime(0);
            h.set_cksum();
            tar.extend_from_slice(h.as_bytes());
            tar.extend_from_slice(data);
            tar.resize(tar.len().div_ceil(512) * 512, 0);
        }
        tar.resize(tar.len() + 1024, 0);
        let p = dir.join("b.tgz");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&tar).unwrap();
        std::fs::write(&p, gz.finish().unwrap()).unwrap();
        p
    }

    #[test]
    fn only_the_v1_1_layout_is_read_ahead_and_nothing_by_a_declared_size() {
        let d = tempfile::tempdir().unwrap();
        let q = br#"{"schema":"x"}"#;
        let m = b"qualification.json:00\n";
        let ok = bundle(
            d.path(),
            &[
                ("r/MANIFEST", b'0', m.len() as u64, m),
                ("r/qualification.json", b'0', q.len() as u64, q),
            ],
        );
        assert_eq!(read_ahead(&ok, 1 << 20).as_deref(), Some(&q[..]));
        // Larger than the cap: not read.
        assert_eq!(read_ahead(&ok, 4), None);
        // v1 order: another file second.
        let v1 = bundle(
            d.path(),
            &[
                ("r/MANIFEST", b'0', m.len() as u64, m),
                ("r/a.json", b'0', 2, b"{}"),
            ],
        );
        assert_eq!(read_ahead(&v1, 1 << 20), None);
        // A PAX header first declaring a gigabyte (its data cut short): not
        // read into memory, not the layout read ahead.
        let pax = bundle(
            d.path(),
            &[("r/PaxHeader", b'x', 1 << 30, b"30 path=r/MANIFEST\n")],
        );
        assert_eq!(read_ahead(&pax, 1 << 20), None);
        // Not a gzip stream at all.
        let junk = d.path().join("junk.tgz");
        std::fs::write(&junk, b"not gzip").unwrap();
        assert_eq!(read_ahead(&junk, 1 << 20), None);
    }
}
