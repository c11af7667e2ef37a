//! Replays the corpora of the peers_results, peers_row and peers_receipt
//! fuzz targets (seeds plus what the fuzzer kept, minimised) through the
//! same harness as the cargo-fuzz targets, on stable.

#[path = "../fuzz/harness_peers.rs"]
mod harness_peers;

mod common;

fn replay(target: &str, run: fn(&[u8])) {
    let n = common::replay_corpus(target, run);
    assert!(n >= 2, "expected the seeds in fuzz/corpus/{target}");
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
