//! Fuzz harness for the peer readers (issue 14): benchmark-client result
//! files, InferenceX rows and measurement receipts come from anywhere.
//! Shared by the cargo-fuzz targets `peers_results`, `peers_row` and
//! `peers_receipt` and by the stable replay test
//! (tests/peers_fuzz_corpus.rs).

use std::path::Path;

use proofpack::peers::{self, inferencex, receipt, results, Format};

/// A result file: read with a small value limit, then checked. Invariants
/// beyond "no panic, no hang": reading from memory never fails with an I/O
/// error, and the report's summary agrees with its checks.
pub fn run_results(data: &[u8]) {
    let objs = match results::parse_results_limited(data, Path::new("fuzz.json"), 100_000, u64::MAX)
    {
        Ok(o) => o,
        Err(results::ResultsError::Io { .. }) => panic!("reading from memory gave an I/O error"),
        Err(_) => return,
    };
    for fmt in [Format::Auto, Format::Vllm, Format::Sglang] {
        if let Ok(rc) = peers::check_objects(objs.clone(), fmt, Path::new("fuzz.json")) {
            let r = rc.finish();
            assert!(r.verdict().is_some());
            assert_eq!(
                r.ok(),
                r.verdict().is_some_and(|v| v.starts_with("VERIFIED"))
            );
        }
    }
}

/// A raw file and a row file, split at the first 0xFF byte; the byte after
/// it picks a GPU count and whether `--isl 1024` is given.
pub fn run_row(data: &[u8]) {
    let (raw, rest) = match data.iter().position(|b| *b == 0xff) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    // The low 7 bits of the byte after 0xFF: the GPU count (0: none); its
    // top bit asks for the row of isl 1024.
    let g = rest.first().copied().unwrap_or(0);
    let gpus = Some(u64::from(g & 0x7f)).filter(|g| *g > 0);
    let row = rest.get(1..).unwrap_or(&[]);
    let Ok(objs) = results::parse_results_limited(raw, Path::new("raw.json"), 100_000, u64::MAX)
    else {
        return;
    };
    let query = inferencex::RowQuery {
        isl: (g & 0x80 != 0).then_some(1024),
        osl: None,
    };
    if let Ok(m) = inferencex::parse_row(row, &objs[0], &query, "row.json") {
        let checks = inferencex::check_row(&objs[0], &m, gpus);
        assert!(checks.iter().any(|c| c.id == "row.gpus"));
        if m.layout == inferencex::RowLayout::AppDatabase {
            // Every published metric is its own check.
            for k in m.metrics.keys() {
                assert!(checks.iter().any(|c| c.id == format!("row.{k}")), "{k}");
            }
        }
    }
}

/// A receipt.json (and, after a 0xFF byte, a receipt.sha256). Invariants:
/// the canonical form is JSON that canonicalises to itself, the transport
/// digest holds exactly when the sidecar names the bytes' hash, and a pin
/// holds for the bytes' own SHA-256 and fails for another digest.
pub fn run_receipt(data: &[u8]) {
    let (body, sha) = match data.iter().position(|b| *b == 0xff) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    if let Ok(c) = receipt::canonical_bytes(body) {
        let again = receipt::canonical_bytes(c.as_bytes()).expect("canonical JSON parses");
        assert_eq!(again, c);
    }
    let own = proofpack::digest::Sha256Digest::of_bytes(body).to_hex();
    for s in [sha, Some(own.as_bytes())] {
        if let Ok((checks, r)) = receipt::check_receipt_bytes(body, s) {
            let t = checks
                .iter()
                .find(|c| c.id == "receipt.transport_digest")
                .expect("transport check");
            if s == Some(own.as_bytes()) {
                assert_eq!(t.ok(), Some(true));
            }
            assert_eq!(receipt::checks::pin(Some(&own), &own, &r).ok(), Some(true));
            let other = "0".repeat(64);
            if other != own && r.receipt_id.str() != Some(other.as_str()) {
                assert_eq!(
                    receipt::checks::pin(Some(&other), &own, &r).ok(),
                    Some(false)
                );
            }
            assert_eq!(receipt::checks::pin(None, &own, &r).ok(), None);
        }
    }
}
