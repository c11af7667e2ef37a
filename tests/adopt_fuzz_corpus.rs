//! Replays the corpora of the adopt_derive and adopt_journal fuzz targets
//! (seeds plus what the fuzzer kept, minimised) through the same harness as
//! the cargo-fuzz targets, on stable.

#[path = "../fuzz/harness_adopt.rs"]
mod harness_adopt;

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
    assert!(!files.is_empty(), "expected the seeds in {}", dir.display());
}

#[test]
fn adopt_derive_corpus_replays() {
    replay("adopt_derive", harness_adopt::run_derive);
}

#[test]
fn adopt_journal_corpus_replays() {
    replay("adopt_journal", harness_adopt::run_journal);
}
