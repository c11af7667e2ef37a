//! The bundle-reader fuzz harness, shared by the cargo-fuzz target and the
//! stable `cargo test` that replays the corpus (tests/bundle_fuzz_corpus.rs).
//!
//! The first input byte picks the mode: odd = the rest is a tar stream that
//! the harness wraps in one gzip member (so that the fuzzer explores the tar
//! parser instead of fighting CRCs); even = the rest is the raw bundle file
//! (gzip layer, trailing data, truncation). Limits are small so that one
//! input cannot make an execution slow, and a visitor reads some entries to
//! exercise the streaming-content path.

use std::io::Read;

use proofpack::bundle::{verify_bundle_reader, EntryVisitor};
use proofpack::progress::NoProgress;

#[path = "harness_common.rs"]
mod harness_common;

struct ReadSome(u8);

impl EntryVisitor for ReadSome {
    fn wants(&mut self, rel_path: &str) -> bool {
        self.0 = self.0.wrapping_add(1);
        rel_path.len().is_multiple_of(2) || self.0.is_multiple_of(3)
    }
    fn visit(&mut self, _rel_path: &str, content: &mut dyn Read) -> std::io::Result<()> {
        let mut buf = [0u8; 7];
        let n = content.read(&mut buf)?;
        if n > 0 && buf[0] == b'!' {
            return Err(std::io::Error::other("visitor rejects '!'"));
        }
        Ok(())
    }
}

/// Runs one input; panics only on a broken invariant.
pub fn run(data: &[u8]) {
    let Some(bytes) = harness_common::input_bundle(data) else {
        return;
    };
    let limits = harness_common::fuzz_limits();
    let mut visitor = ReadSome(data[0]);
    let v = verify_bundle_reader(&bytes[..], "fuzz", &limits, Some(&mut visitor), &NoProgress)
        .expect("reading from memory never fails");
    let r = &v.report;
    assert_eq!(r.ok(), r.checks().iter().all(|c| !c.failed()));
    assert_eq!(
        r.summary().failed + r.summary().passed + r.summary().skipped,
        r.checks().len()
    );
    if r.ok() {
        assert!(v.root.is_some());
        assert!(v.manifest.is_some());
        // v1.1: what verifies extracts to the same files everywhere.
        let m = v.manifest.as_ref().expect("checked above");
        let paths = || m.entries().iter().map(|e| e.path.as_str());
        assert!(paths().all(|p| proofpack::manifest::portable::path_problem(p).is_none()));
        assert!(proofpack::manifest::portable::collisions(paths()).is_empty());
    }
    if let Some(d) = v.bundle_sha256 {
        assert_eq!(d, proofpack::digest::Sha256Digest::of_bytes(&bytes));
    }
    let mut ids = std::collections::HashSet::new();
    for c in r.checks() {
        assert!(ids.insert(c.id.as_str()), "duplicate check id {}", c.id);
    }
}
