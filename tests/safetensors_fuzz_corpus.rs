//! Replays the safetensors_header fuzz corpus (the named seeds written by
//! fuzz/gen_safetensors_seeds.py, plus what the fuzzer kept) through the
//! same harness as the cargo-fuzz target, on stable.

#[path = "../fuzz/harness_safetensors.rs"]
mod harness_safetensors;

use std::path::Path;

#[test]
fn safetensors_header_corpus_replays_without_panics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/safetensors_header");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (the seed corpus is committed)", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let mut seeds = 0;
    for p in &files {
        let data = std::fs::read(p).unwrap();
        let r = std::panic::catch_unwind(|| harness_safetensors::run(&data));
        assert!(r.is_ok(), "corpus input {} panicked", p.display());
        seeds += usize::from(
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("seed-"),
        );
    }
    assert!(seeds >= 10, "expected the named seeds in {}", dir.display());
}
