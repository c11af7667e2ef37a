//! Replays the corpora of the peers_results, peers_row and peers_receipt
//! fuzz targets (seeds plus what the fuzzer kept, minimised) through the
//! same harness as the cargo-fuzz targets, on stable.

#[path = "../fuzz/harness_peers.rs"]
mod harness_peers;

use std::path::Path;

fn replay(target: &str, run: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (the corpus is committed)", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for p in &files {
        let data = std::fs::read(p).unwrap();
        let r = std::panic::catch_unwind(|| run(&data));
        assert!(r.is_ok(), "corpus input {} panicked", p.display());
    }
    assert!(files.len() >= 2, "expected the seeds in {}", dir.display());
}

#[test]
fn peers_results_corpus_replays() {
    replay("peers_results", harness_peers::run_results);
}

#[test]
fn peers_row_corpus_replays() {
    replay("peers_row", harness_peers::run_row);
}

#[test]
fn peers_receipt_corpus_replays() {
    replay("peers_receipt", harness_peers::run_receipt);
}
