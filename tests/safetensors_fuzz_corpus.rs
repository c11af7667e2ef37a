//! Replays the safetensors_header fuzz corpus (the named seeds written by
//! fuzz/gen_safetensors_seeds.py, plus what the fuzzer kept) through the
//! same harness as the cargo-fuzz target, on stable.

#[path = "../fuzz/harness_safetensors.rs"]
mod harness_safetensors;

mod common;

#[test]
fn safetensors_header_corpus_replays_without_panics() {
    let n = common::replay_corpus("safetensors_header", harness_safetensors::run);
    let seeds = common::corpus::inputs("safetensors_header")
        .iter()
        .filter(|(name, _)| name.starts_with("seed-"))
        .count();
    assert!(seeds >= 10, "expected the named seeds among the {n} inputs");
}
