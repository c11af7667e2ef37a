//! Replays the publication_parse fuzz corpus (seeds: the excerpt,
//! the sample's write-up, a Markdown variant; plus what the fuzzer kept)
//! through the same harness as the cargo-fuzz target, on stable.

#[path = "../fuzz/harness_publication.rs"]
mod harness_publication;

use std::path::Path;

#[test]
fn publication_parse_corpus_replays_without_panics() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/publication_parse");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (the seed corpus is committed)", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for p in &files {
        let data = std::fs::read(p).unwrap();
        let r = std::panic::catch_unwind(|| harness_publication::run(&data));
        assert!(r.is_ok(), "corpus input {} panicked", p.display());
    }
    assert!(files.len() >= 3, "expected the seeds in {}", dir.display());
}
