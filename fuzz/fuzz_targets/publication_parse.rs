#![no_main]

#[path = "../harness_publication.rs"]
mod harness_publication;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness_publication::run(data));
