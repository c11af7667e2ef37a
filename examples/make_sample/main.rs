//! Writes the sample qualification run of testdata/sample (deterministic).
//!
//!     cargo run --release --example make_sample -- testdata/sample
//!
//! Rerunning reproduces identical bytes: fixed seeds, fixed timestamps,
//! TEST-ONLY keys derived from public seeds, SOURCE_DATE_EPOCH fixed for the
//! seal.

mod gen;

use std::path::PathBuf;

fn main() {
    let out: PathBuf = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| "testdata/sample".into());
    let sample = gen::generate(&out, &gen::Params::default());
    let keys = out.join("keys");
    gen::write_keys(&keys, "TEST-ONLY-engine", &gen::engine_key());
    gen::write_keys(&keys, "TEST-ONLY-release", &gen::release_key());
    std::fs::write(
        out.join("trust.json"),
        gen::trust_json(&[
            (
                &gen::engine_key(),
                &["engine"],
                "TEST-ONLY engine key (public seed; never trust outside tests)",
            ),
            (
                &gen::release_key(),
                &["release"],
                "TEST-ONLY release key (public seed; never trust outside tests)",
            ),
        ]),
    )
    .expect("write trust.json");
    std::fs::write(out.join("pins.json"), gen::pins_json(&sample, None)).expect("write pins.json");
    eprintln!("make_sample: wrote {}", sample.run.display());
}
