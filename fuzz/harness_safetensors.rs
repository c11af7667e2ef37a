//! Fuzz harness for the safetensors header reader (issue 13): a shard is
//! untrusted bytes from anywhere. Shared by the cargo-fuzz target
//! `safetensors_header` and the stable replay test
//! (tests/safetensors_fuzz_corpus.rs).

use proofpack::digest::Sha256Digest;
use proofpack::safetensors::{self, header, reference, reference::Verdict, RULES};

/// Largest data section the harness appends in header mode.
const MAX_DATA: u64 = 1 << 20;

/// The first byte picks a mode: even, the rest is the whole file; odd, the
/// rest is header text, which the harness frames (length prefix, and as
/// many zero data bytes as the header's tensors end at, up to 1 MiB) so
/// that the fuzzer explores the header rules instead of the framing.
///
/// Invariants beyond "no panic, no hang, bounded memory": one check per
/// rule, in rule order, with the ids `shard.<rule>:fuzz`; a check that
/// cannot run says so; the header digest is the SHA-256 of the first
/// 8 + N bytes, and matches itself when pinned; and the verdict is the one
/// the plain transcription of the reference reader gives (where they are
/// meant to agree).
pub fn run(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let file = if mode & 1 == 1 {
        frame(rest)
    } else {
        rest.to_vec()
    };
    let found = safetensors::inspect_bytes("fuzz", &file, None);
    assert_eq!(found.checks.len(), RULES.len());
    for (c, rule) in found.checks.iter().zip(RULES) {
        assert_eq!(c.id, format!("shard.{rule}:fuzz"));
        assert!(c.ok().is_some(), "{c:?}");
    }
    let ok = found.ok();
    if let Some(d) = found.header_sha256 {
        let n = found.header_len.expect("a digest needs a length") as usize;
        assert_eq!(d, Sha256Digest::of_bytes(&file[..8 + n]));
        let again = safetensors::inspect_bytes("fuzz", &file, Some(d));
        assert_eq!(again.checks.last().map(|c| c.ok()), Some(Some(true)));
        assert_eq!(again.ok(), ok);
    }
    match reference::verdict(&file) {
        Verdict::Accepts => assert!(
            ok,
            "the reference accepts, proofpack refuses: {:?}",
            found.checks
        ),
        Verdict::Refuses => assert!(!ok, "the reference refuses, proofpack accepts"),
        Verdict::NotCompared(_) => {}
    }
}

/// Frames header text as a file: N, the text, then the data it describes.
fn frame(text: &[u8]) -> Vec<u8> {
    let mut f = (text.len() as u64).to_le_bytes().to_vec();
    f.extend_from_slice(text);
    let data = std::str::from_utf8(text)
        .ok()
        .and_then(|t| header::parse(t).ok())
        .and_then(|h| h.tensors.iter().map(|t| t.end).max())
        .filter(|&end| end <= MAX_DATA)
        .unwrap_or(0);
    f.resize(f.len() + data as usize, 0);
    f
}
