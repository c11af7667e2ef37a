//! Replays the bundle_reader fuzz corpus (fuzz/corpus/bundle_reader.tgz,
//! seeds plus whatever the fuzzer kept) through the same harness as the fuzz
//! target, on stable: no input may panic or break the report's invariants.
//! See docs/fuzzing.md for running the fuzzer itself.

#[path = "../fuzz/harness.rs"]
mod harness;

mod common;

#[test]
fn fuzz_corpus_replays_without_panics() {
    let n = common::replay_corpus("bundle_reader", harness::run);
    assert!(
        n >= 10,
        "expected the seed corpus (regenerate seeds with fuzz/gen_seeds.py), found {n} inputs"
    );
}
