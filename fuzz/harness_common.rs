//! What the two bundle fuzz harnesses (harness.rs for bundle_reader,
//! harness_differential.rs for bundle_differential) share, so that they read
//! each other's corpora the same way: the mode byte and the limits.

use std::io::Write;

use proofpack::bundle::Limits;

/// The bundle bytes of a fuzz input. The first byte picks the mode: odd, the
/// rest is a tar stream, wrapped here in one gzip member (so that the fuzzer
/// explores the tar parser instead of fighting CRC-32); even, the rest is
/// the bundle file itself (gzip layer, trailing bytes, truncation).
pub fn input_bundle(data: &[u8]) -> Option<Vec<u8>> {
    let (&mode, rest) = data.split_first()?;
    Some(if mode & 1 == 1 {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(rest).expect("in-memory write");
        e.finish().expect("in-memory write")
    } else {
        rest.to_vec()
    })
}

/// Small limits, so that one input cannot make an execution slow.
pub fn fuzz_limits() -> Limits {
    Limits {
        max_total_bytes: 8 << 20,
        max_entry_bytes: 4 << 20,
        max_entries: 10_000,
        max_path_bytes: 4096,
        max_pax_record_bytes: 64 << 10,
        max_ratio: 1000,
    }
}
