//! Replays the corpora of the adopt_derive and adopt_journal fuzz targets
//! (seeds plus what the fuzzer kept, minimised) through the same harness as
//! the cargo-fuzz targets, on stable.

#[path = "../fuzz/harness_adopt.rs"]
mod harness_adopt;

mod common;

fn replay(target: &str, run: fn(&[u8])) {
    let n = common::replay_corpus(target, run);
    assert!(n >= 1, "expected the seeds in fuzz/corpus/{target}");
}

#[test]
fn adopt_derive_corpus_replays() {
    replay("adopt_derive", harness_adopt::run_derive);
}

#[test]
fn adopt_journal_corpus_replays() {
    replay("adopt_journal", harness_adopt::run_journal);
}
