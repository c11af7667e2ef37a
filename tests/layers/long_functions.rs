//! The functions of src/ over 150 lines (file, name, lines), checked by
//! tests/layers.rs: the list may only shrink. Regenerate with
//! `LAYERS_PRINT_LONG=1 cargo test --test layers print_long_functions -- --nocapture`.

/// (file, function, lines from its `fn` line to its closing brace).
pub const LONG_FUNCTIONS: &[(&str, &str, usize)] = &[
    ("src/bagit/read.rs", "check_bag", 181),
    ("src/bundle/report.rs", "assemble", 268),
    ("src/bundle/write.rs", "seal_impl", 249),
    ("src/fleet/verify.rs", "verify_fleet", 174),
    ("src/peers/serving.rs", "check_object", 303),
    ("src/run/qualification.rs", "validate", 160),
    ("src/run/records.rs", "read_records_ending", 155),
    ("src/safetensors/index.rs", "check", 243),
    ("src/verify/checks/pins.rs", "digest_pin", 156),
    ("src/verify/checks/published/points.rs", "point_checks", 204),
];
