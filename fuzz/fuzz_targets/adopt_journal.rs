#![no_main]
//! cargo-fuzz target: see fuzz/harness_adopt.rs (run_journal).

#[path = "../harness_adopt.rs"]
mod harness_adopt;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness_adopt::run_journal(data));
