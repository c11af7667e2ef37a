//! Reading ahead (v1.1): the file a bundle sealed in the v1.1 order holds
//! right after its MANIFEST, read from the first blocks of the stream, so
//! that a verifier knows what to collect before the one verifying pass.
//! Nothing read here is trusted: the verifying pass hashes the same entry
//! against MANIFEST, and the caller compares the two.

use std::fs::File;
use std::io::Read;
use std::path::Path;

use flate2::read::GzDecoder;

use super::write::READ_FIRST;
use super::MANIFEST_NAME;

/// The largest MANIFEST read past (its bytes are skipped, not kept).
const MAX_SKIPPED_MANIFEST: u64 = 256 << 20;

/// The content of the second entry of the bundle at `path` when the first
/// is `<root>/MANIFEST` and the second `<root>/qualification.json`, both
/// regular files, the second at most `cap` bytes; `None` otherwise (a v1
/// bundle, another layout, anything unreadable: the caller reads the
/// bundle in two passes).
pub fn read_ahead(path: &Path, cap: u64) -> Option<Vec<u8>> {
    let f = File::open(path).ok()?;
    let mut archive = tar::Archive::new(GzDecoder::new(f));
    let mut entries = archive.entries().ok()?;
    let first = entries.next()?.ok()?;
    let name = first.path().ok()?.to_string_lossy().into_owned();
    let (root, file) = name.split_once('/')?;
    if file != MANIFEST_NAME
        || root.is_empty()
        || first.header().entry_type() != tar::EntryType::Regular
        || first.header().size().ok()? > MAX_SKIPPED_MANIFEST
    {
        return None;
    }
    drop(first);
    let mut second = entries.next()?.ok()?;
    let name = second.path().ok()?.to_string_lossy().into_owned();
    if name != format!("{root}/{READ_FIRST}")
        || second.header().entry_type() != tar::EntryType::Regular
        || second.header().size().ok()? > cap
    {
        return None;
    }
    let mut out = Vec::new();
    (&mut second).take(cap + 1).read_to_end(&mut out).ok()?;
    (out.len() as u64 <= cap).then_some(out)
}
