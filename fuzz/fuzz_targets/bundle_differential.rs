#![no_main]

#[path = "../harness_differential.rs"]
mod harness_differential;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness_differential::run(data));
