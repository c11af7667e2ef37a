//! Replays the bundle_reader fuzz corpus (fuzz/corpus/bundle_reader, seeds
//! plus whatever the fuzzer kept) through the same harness as the fuzz
//! target, on stable: no input may panic or break the report's invariants.
//! See docs/fuzzing.md for running the fuzzer itself.

#[path = "../fuzz/harness.rs"]
mod harness;

use std::path::Path;

#[test]
fn fuzz_corpus_replays_without_panics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/bundle_reader");
    let mut n = 0;
    let mut entries: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e} (the corpus is committed; regenerate seeds with fuzz/gen_seeds.py)",
                dir.display()
            )
        })
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        let data = std::fs::read(&p).unwrap();
        let r = std::panic::catch_unwind(|| harness::run(&data));
        assert!(r.is_ok(), "corpus input {} panicked", p.display());
        n += 1;
    }
    assert!(
        n >= 10,
        "expected the seed corpus in {}, found {n} files",
        dir.display()
    );
}
