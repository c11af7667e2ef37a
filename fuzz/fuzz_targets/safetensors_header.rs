#![no_main]

#[path = "../harness_safetensors.rs"]
mod harness_safetensors;

libfuzzer_sys::fuzz_target!(|data: &[u8]| harness_safetensors::run(data));
