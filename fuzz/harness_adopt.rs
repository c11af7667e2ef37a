//! Fuzz harness for the adoption layer (issue 24): a result file becomes
//! client records (`adopt::derive`), a router's log becomes journal events
//! (`adopt::journal`). Shared by the cargo-fuzz targets `adopt_derive` and
//! `adopt_journal` and by the stable replay test (tests/adopt_fuzz_corpus.rs).

use std::path::Path;

use proofpack::adopt::derive::{derive, Params};
use proofpack::adopt::journal::{events, parse_log};
use proofpack::peers::results;
use proofpack::run::qualification::{ClientRecord, JournalEvent};

fn params(warmup: u64) -> Params {
    Params {
        point: "p".into(),
        warmup,
        // Any count: the fuzzed files' own shapes are what is exercised.
        declared: u64::MAX,
        request_id_prefix: "p-".into(),
        utc_offset: "+00:00".into(),
        anchor_adjust_s: 0.0,
    }
}

/// A result file: when it derives, every record it derives to is one the
/// verifier accepts (strict JSON, every field, times in order, an ok
/// request with a first token, a finish and an output token), one per
/// request, in order, with the warmups asked for.
pub fn run_derive(data: &[u8]) {
    let Ok(objs) = results::parse_results_limited(data, Path::new("fuzz.json"), 100_000, u64::MAX)
    else {
        return;
    };
    let warmup = u64::from(data.last().copied().unwrap_or(0) % 3);
    let Ok(r) = derive(&objs[0], &params(warmup), "fuzz.json") else {
        return;
    };
    let bytes = r.render();
    let text = std::str::from_utf8(&bytes).expect("records are UTF-8");
    let mut n = 0usize;
    let mut warm = 0u64;
    for (i, line) in text.lines().enumerate() {
        let rec: ClientRecord = serde_json::from_str(line).expect("a derived record parses");
        rec.validate().expect("a derived record is valid");
        assert_eq!(rec.request_id, format!("p-{i}"));
        warm += u64::from(rec.warmup);
        n += 1;
    }
    assert_eq!(n, r.records.len());
    assert_eq!(warm, warmup.min(n as u64));
}

/// A LiteLLM log: when it reads, every event written is a valid journal
/// event of the point.
pub fn run_journal(data: &[u8]) {
    let Ok(log) = parse_log(Path::new("fuzz.jsonl"), data, "p-") else {
        return;
    };
    let (bytes, count) = events(&log, "p");
    let text = std::str::from_utf8(&bytes).expect("events are UTF-8");
    let mut n = 0u64;
    for line in text.lines() {
        let e: JournalEvent = serde_json::from_str(line).expect("an event parses");
        e.validate().expect("an event is valid");
        assert!(e.request_id.starts_with("p-"));
        n += 1;
    }
    assert_eq!(n, count);
}
