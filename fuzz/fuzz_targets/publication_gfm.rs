#![no_main]

#[path = "../harness_gfm.rs"]
mod harness_gfm;

use std::sync::{Mutex, OnceLock};

static ORACLE: OnceLock<Mutex<harness_gfm::Oracle>> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let oracle = ORACLE.get_or_init(|| {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        Mutex::new(harness_gfm::Oracle::new(&root))
    });
    harness_gfm::run(&mut oracle.lock().unwrap(), data);
});
