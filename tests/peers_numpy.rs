//! proofpack's numpy statistics (src/peers/numpy.rs) against numpy itself:
//! `np.sum`, `np.mean`, `np.std`, `np.median` and `np.percentile` of the
//! same float64 values must agree to the last bit, for sizes around every
//! branch of numpy's pairwise summation (< 8, blocks of 8, 128, halving).

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use proofpack::numpy::Stats;

fn lcg(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let u = (*seed >> 11) as f64 / (1u64 << 53) as f64;
    // Latency-like values spanning several magnitudes.
    (u * 7.0 - 5.0).exp()
}

#[test]
fn statistics_match_numpy_bit_for_bit() {
    let sizes = [
        0usize, 1, 2, 3, 7, 8, 9, 15, 16, 17, 127, 128, 129, 130, 255, 256, 257, 1000, 1023, 4097,
        100_003,
    ];
    let mut seed = 42u64;
    let arrays: Vec<Vec<f64>> = sizes
        .iter()
        .map(|n| (0..*n).map(|_| lcg(&mut seed)).collect())
        .collect();
    let input = serde_json::to_vec(&arrays).unwrap();
    let mut child = Command::new(common::python())
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/peers_reference.py"
        ))
        .arg("stats")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(&input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "python failed");
    let got: Vec<serde_json::Value> = serde_json::from_slice(&out.stdout).unwrap();
    let pcts = [0.0, 1.0, 33.3, 50.0, 90.0, 99.0, 99.9, 100.0];
    let mut mismatches = Vec::new();
    for (a, np) in arrays.iter().zip(&got) {
        let s = Stats::new(a.clone());
        let n = a.len();
        let mut cmp = |what: &str, mine: f64, theirs: &serde_json::Value| {
            let t = theirs.as_f64().unwrap();
            if mine.to_bits() != t.to_bits() {
                mismatches.push(format!("n={n} {what}: proofpack {mine:?}, numpy {t:?}"));
            }
        };
        cmp("sum", proofpack::numpy::sum(a), &np["sum"]);
        cmp("mean", s.mean(), &np["mean"]);
        cmp("std", s.std(), &np["std"]);
        cmp("median", s.median(), &np["median"]);
        for (i, p) in pcts.iter().enumerate() {
            cmp(&format!("percentile {p}"), s.percentile(*p), &np["p"][i]);
        }
    }
    assert!(
        mismatches.is_empty(),
        "differences from numpy:\n{}",
        mismatches.join("\n")
    );
}
