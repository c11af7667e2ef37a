//! Replays the publication_parse fuzz corpus (seeds: the excerpt,
//! the sample's write-up, a Markdown variant; plus what the fuzzer kept)
//! through the same harness as the cargo-fuzz target, on stable.

#[path = "../fuzz/harness_publication.rs"]
mod harness_publication;

mod common;

#[test]
fn publication_parse_corpus_replays_without_panics() {
    let n = common::replay_corpus("publication_parse", harness_publication::run);
    assert!(n >= 3, "expected the seeds in the corpus, found {n} inputs");
}
