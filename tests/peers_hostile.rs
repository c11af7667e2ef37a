//! `results check` against the forgeries of the third hostile review: a
//! `duration` shrunk with the throughputs scaled to match (consistent with
//! itself, refuted by the file's own arrays), and result keys in another
//! case (`P99_TTFT_MS`), which used to be passed over.

use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

const GEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/peers/generated");

fn check_json(path: &Path) -> (i32, Value) {
    let o = Command::new(env!("CARGO_BIN_EXE_proofpack"))
        .args(["--no-catalog", "results", "check", "--json"])
        .arg(path)
        .output()
        .unwrap();
    let v = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|_| panic!("{}", String::from_utf8_lossy(&o.stderr)));
    (o.status.code().unwrap(), v)
}

fn get<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no {id}: {v:#}"))
}

fn detail(v: &Value, id: &str) -> String {
    get(v, id)["detail"].as_str().unwrap().to_string()
}

/// The file with `duration` replaced and every throughput recomputed from
/// it, so that the summary agrees with itself.
fn with_duration(src: &Value, d: f64) -> Value {
    let mut r = src.clone();
    let old = r["duration"].as_f64().unwrap();
    r["duration"] = json!(d);
    for k in [
        "request_throughput",
        "output_throughput",
        "total_token_throughput",
        "input_throughput",
        "total_throughput",
    ] {
        if let Some(x) = r[k].as_f64() {
            r[k] = json!(x * old / d);
        }
    }
    r
}

#[test]
fn a_duration_the_arrays_refute_fails_and_its_throughputs_are_not_checkable() {
    let tmp = tempfile::tempdir().unwrap();
    let src: Value = serde_json::from_slice(
        &std::fs::read(Path::new(GEN).join("vllm-bench-serve.json")).unwrap(),
    )
    .unwrap();
    // The honest file: the duration covers the requests' span.
    let honest = tmp.path().join("honest.json");
    std::fs::write(&honest, src.to_string()).unwrap();
    let (code, v) = check_json(&honest);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(get(&v, "result.duration")["ok"], true);
    assert!(detail(&v, "result.duration").contains("the span of the 30 requests"));

    let old = src["duration"].as_f64().unwrap();
    for d in [old / 10.0, 1e-300] {
        let forged = with_duration(&src, d);
        let p = tmp.path().join("forged.json");
        std::fs::write(&p, forged.to_string()).unwrap();
        let (code, v) = check_json(&p);
        assert_eq!(code, 1, "duration {d}: {v:#}");
        assert_eq!(get(&v, "result.duration")["ok"], false, "duration {d}");
        assert!(
            detail(&v, "result.duration").contains("need at least"),
            "{}",
            detail(&v, "result.duration")
        );
        for t in [
            "result.request_throughput",
            "result.output_throughput",
            "result.total_token_throughput",
        ] {
            assert!(
                detail(&v, t).starts_with("not checkable: result.duration failed"),
                "{t}: {}",
                detail(&v, t)
            );
        }
        // One cause: the duration.
        assert_eq!(
            v["summary"]["failed"].as_u64().unwrap()
                - v["summary"]["not_checkable"].as_u64().unwrap(),
            1
        );
        assert!(v["verdict"].as_str().unwrap().contains("result.duration"));
    }
}

#[test]
fn without_start_times_the_check_says_so_and_still_holds_the_longest_request() {
    let tmp = tempfile::tempdir().unwrap();
    // SGLang's layout: no start_times, no latencies.
    let text = std::fs::read_to_string(Path::new(GEN).join("sglang-bench-serving.jsonl")).unwrap();
    let first: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let honest = tmp.path().join("honest.jsonl");
    std::fs::write(&honest, format!("{first}\n")).unwrap();
    let (code, v) = check_json(&honest);
    assert_eq!(code, 0, "{v:#}");
    let d = detail(&v, "result.duration");
    assert!(d.contains("start_times were not saved"), "{d}");
    assert!(d.contains("ttfts + sum(itls)"), "{d}");
    let forged = with_duration(&first, first["duration"].as_f64().unwrap() / 10.0);
    let p = tmp.path().join("forged.jsonl");
    std::fs::write(&p, format!("{forged}\n")).unwrap();
    let (code, v) = check_json(&p);
    assert_eq!(code, 1);
    assert_eq!(get(&v, "result.duration")["ok"], false);
    // The 2024 vLLM layout (no start_times, no latencies) passes, saying so.
    let (code, v) = check_json(&Path::new(GEN).join("vllm-benchmark-serving-2024.json"));
    assert_eq!(code, 0);
    assert!(detail(&v, "result.duration").contains("start_times were not saved"));
    // Summary only: not checkable from the file, said so (ok: null).
    let (code, v) = check_json(&Path::new(GEN).join("vllm-summary-only.json"));
    assert_eq!(code, 0);
    assert_eq!(get(&v, "result.duration")["ok"], Value::Null);
}

#[test]
fn result_keys_in_another_case_are_checked_never_passed_over() {
    let tmp = tempfile::tempdir().unwrap();
    let src: Value = serde_json::from_slice(
        &std::fs::read(Path::new(GEN).join("vllm-bench-serve.json")).unwrap(),
    )
    .unwrap();
    let p99 = src["p99_ttft_ms"].as_f64().unwrap();
    let mut r = src.clone();
    r["P99_TTFT_MS"] = json!(p99);
    r["Output_Throughput"] = src["output_throughput"].clone();
    r["TTFT_Budget_S"] = json!(2.0);
    let p = tmp.path().join("upper.json");
    std::fs::write(&p, r.to_string()).unwrap();
    let (code, v) = check_json(&p);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(get(&v, "result.P99_TTFT_MS")["ok"], true);
    assert!(detail(&v, "result.P99_TTFT_MS").contains("spelled \"P99_TTFT_MS\""));
    assert_eq!(get(&v, "result.Output_Throughput")["ok"], true);
    // An unrecognised number that reads as a result is named, not checked.
    assert_eq!(get(&v, "result.TTFT_Budget_S")["ok"], Value::Null);
    assert!(detail(&v, "result.TTFT_Budget_S").contains("not checked"));

    // The forged upper-case value fails under its own id.
    r["P99_TTFT_MS"] = json!(p99 / 2.0);
    r["Output_Throughput"] = json!(1e9);
    std::fs::write(&p, r.to_string()).unwrap();
    let (code, v) = check_json(&p);
    assert_eq!(code, 1);
    assert_eq!(get(&v, "result.P99_TTFT_MS")["ok"], false);
    assert_eq!(get(&v, "result.Output_Throughput")["ok"], false);
}
