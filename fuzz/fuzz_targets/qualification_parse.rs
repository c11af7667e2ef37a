#![no_main]

#[path = "../harness_parsers.rs"]
mod harness_parsers;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness_parsers::qualification(data));
