#![no_main]
//! cargo-fuzz target: see fuzz/harness_peers.rs (run_receipt).

#[path = "../harness_peers.rs"]
mod harness_peers;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness_peers::run_receipt(data));
