//! `run import` refuses what cannot become honest client records (exit 2,
//! naming the file and, where one is at fault, the request), and writes
//! nothing when it does: no start times, arrays of unequal length, a
//! summary that disagrees with its arrays, a latency that disagrees with
//! TTFT + ITLs, an unknown format, a result that is not the plan's point.
//! Also the forged runs `verify` stops: a source the records do not derive
//! from, a derivation parameter out of its bounds.

mod adopt_support;

use std::path::{Path, PathBuf};

use adopt_support::*;
use serde_json::Value;

/// A copy of `src` with `edit` applied to its JSON, in the tour's dir.
fn edited(t: &Tour, src: &Path, name: &str, edit: impl FnOnce(&mut Value)) -> PathBuf {
    let mut v: Value = serde_json::from_slice(&std::fs::read(src).unwrap()).unwrap();
    edit(&mut v);
    let p = t.path(name);
    std::fs::write(&p, serde_json::to_vec(&v).unwrap()).unwrap();
    p
}

/// `run import` of `file` into `point`: exit 2 and stderr holding every
/// needle; the run unchanged.
fn refused(t: &Tour, point: &str, file: &Path, extra: &[&str], needles: &[&str]) {
    let before = std::fs::read(t.in_run("qualification.json")).unwrap();
    let run = t.run();
    let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
        vec![&"run", &"import", &run, &"--point", &point];
    for e in extra {
        args.push(e);
    }
    args.push(&file);
    let (code, out, err) = pp(&args);
    assert_eq!(code, 2, "{out}\n{err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} not in: {err}");
    }
    assert_eq!(
        std::fs::read(t.in_run("qualification.json")).unwrap(),
        before
    );
    assert!(!t.in_run(&format!("points/{point}/client.jsonl")).exists());
    assert!(!t.in_run(&format!("inputs/{point}.vllm.json")).exists());
}

#[test]
fn import_refuses_what_cannot_become_records() {
    let t = Tour::new();
    // No start times: the 2024 file, the SGLang layout, an InferenceX raw file.
    refused(
        &t,
        "rate-5",
        &real_2024(),
        &[],
        &["lambdalabs-benchmark-serving-2024.json: no per-request start times"],
    );
    refused(
        &t,
        "rate-2",
        &generated_sglang(),
        &[],
        &["sglang-bench-serving-import.jsonl: detected as SGLang"],
    );
    refused(
        &t,
        "rate-2",
        &generated_sglang(),
        &["--format", "sglang"],
        &["read as SGLang", "no per-request send times"],
    );
    let ix = edited(&t, &real_vllm(), "ix.json", |v| {
        for k in ["ttfts", "itls", "start_times", "generated_texts", "errors"] {
            v.as_object_mut().unwrap().remove(k);
        }
    });
    refused(
        &t,
        "rate-5",
        &ix,
        &["--format", "inferencex"],
        &["ix.json: read as an InferenceX raw client file"],
    );
    // Arrays of unequal length.
    let short = edited(&t, &real_vllm(), "short.json", |v| {
        v["ttfts"].as_array_mut().unwrap().pop();
    });
    refused(
        &t,
        "rate-5",
        &short,
        &[],
        &[
            "short.json: the per-request arrays have different lengths",
            "ttfts 99",
            "start_times 100",
        ],
    );
    // A summary that disagrees with its own arrays.
    let summary = edited(&t, &real_vllm(), "summary.json", |v| {
        v["mean_ttft_ms"] = Value::from(v["mean_ttft_ms"].as_f64().unwrap() * 0.9);
    });
    refused(&t, "rate-5", &summary, &[], &["summary.json: its summary disagrees with its own per-request arrays (results check): result.mean_ttft_ms"]);
    // A latency shorter than its own TTFT + ITLs (by 10 microseconds): the
    // file contradicts itself.
    let lat = edited(&t, &generated_vllm(), "latency.json", |v| {
        let l = &mut v["latencies"][7];
        *l = Value::from(l.as_f64().unwrap() - 1e-5);
    });
    refused(
        &t,
        "rate-2",
        &lat,
        &[],
        &[
            "latency.json: request 7 (request id \"rate-2-7\"): latencies[7] = ",
            "shorter than the request's own token times",
            "import the result file the client wrote, unchanged",
        ],
    );
    // A stream that went on 2 s after its last token.
    let tail = edited(&t, &generated_vllm(), "tail.json", |v| {
        let l = &mut v["latencies"][7];
        *l = Value::from(l.as_f64().unwrap() + 2.0);
    });
    refused(
        &t,
        "rate-2",
        &tail,
        &[],
        &["latencies[7] = ", "more than the 1 s tail"],
    );
    // An unknown format.
    let unknown = t.path("unknown.json");
    std::fs::write(&unknown, b"{\"name\": \"not a benchmark result\"}").unwrap();
    refused(
        &t,
        "rate-5",
        &unknown,
        &[],
        &[
            "unknown.json: not a vLLM or SGLang benchmark result",
            "the format is unknown",
        ],
    );
    let (code, _, err) = pp(&[
        &"run",
        &"import",
        &t.run(),
        &"--point",
        &"rate-5",
        &"--format",
        &"guidellm",
        &real_vllm(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("guidellm"), "{err}");
    // Not the plan's point: 100 requests where the plan runs 60, a rate of
    // 5 where the plan offers 2.
    refused(&t, "rate-2", &real_vllm(), &[], &["tokenkaki-vllm-bench-serve-0.19.1.json: holds 100 requests; the point \"rate-2\" declares 60"]);
    let rate = edited(&t, &generated_vllm(), "rate.json", |v| {
        v["request_rate"] = Value::from(3.0)
    });
    refused(
        &t,
        "rate-2",
        &rate,
        &[],
        &["rate.json: was run at request_rate 3"],
    );
    // A successful request with no output token.
    let empty = edited(&t, &generated_vllm(), "empty.json", |v| {
        v["output_lens"][3] = Value::from(0)
    });
    refused(
        &t,
        "rate-2",
        &empty,
        &[],
        &["empty.json: request 3 (request id \"rate-2-3\"): succeeded with output_lens[3] = 0"],
    );
    // A point the run does not declare.
    let (code, _, err) = pp(&[
        &"run",
        &"import",
        &t.run(),
        &"--point",
        &"rate-9",
        &real_vllm(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("no point \"rate-9\""), "{err}");
    // And the same file imports once, then again only with --force.
    pp_ok(&[
        &"run",
        &"import",
        &t.run(),
        &"--point",
        &"rate-5",
        &real_vllm(),
    ]);
    let (code, _, err) = pp(&[
        &"run",
        &"import",
        &t.run(),
        &"--point",
        &"rate-5",
        &real_vllm(),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("was imported already"), "{err}");
    pp_ok(&[
        &"run",
        &"import",
        &t.run(),
        &"--point",
        &"rate-5",
        &real_vllm(),
        &"--force",
    ]);
}

#[test]
fn run_new_refuses_a_used_directory_and_bad_flags() {
    let t = Tour::new();
    let (code, _, err) = pp(&[
        &"run",
        &"new",
        &t.run(),
        &"--model",
        &"m",
        &"--slo",
        &"ttft=1,tpot=1,attainment=1",
        &"--point",
        &"a:rate=1,requests=1",
        &"--max-input-tokens",
        &"1",
        &"--max-output-tokens",
        &"1",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("exists and is not empty"), "{err}");
    // A plan written from the flags without the workload's lengths would
    // make a run whose token counts bound nothing (plan.lengths fails it).
    let (code, _, err) = pp(&[
        &"run",
        &"new",
        &t.path("no-lengths"),
        &"--model",
        &"m",
        &"--slo",
        &"ttft=1,tpot=1,attainment=1",
        &"--point",
        &"a:rate=1,requests=1",
        &"--max-input-tokens",
        &"1",
    ]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("give --max-input-tokens N"), "{err}");
    assert!(
        !t.path("no-lengths").exists(),
        "nothing is made on a refusal"
    );
    for (slo, point, needle) in [
        ("ttft=1,tpot=1", "a:rate=1,requests=1", "give ttft=SECONDS"),
        (
            "ttft=1,tpot=1,attainment=2",
            "a:rate=1,requests=1",
            "0 <= attainment <= 1",
        ),
        (
            "ttft=1,tpot=1,attainment=1",
            "a:rate=0,requests=1",
            "rate must be a number > 0",
        ),
        (
            "ttft=1,tpot=1,attainment=1",
            "a/b:rate=1,requests=1",
            "names files of the run",
        ),
    ] {
        let (code, _, err) = pp(&[
            &"run",
            &"new",
            &t.path("other"),
            &"--model",
            &"m",
            &"--slo",
            &slo,
            &"--point",
            &point,
            &"--max-input-tokens",
            &"1",
            &"--max-output-tokens",
            &"1",
        ]);
        assert_eq!(code, 2, "{slo} {point}");
        assert!(err.contains(needle), "{needle:?} not in {err}");
    }
}

#[test]
fn verify_stops_forged_sources() {
    let t = Tour::published();
    // The records of another point's file named as this point's source.
    let q = t.in_run("qualification.json");
    let mut v: Value = serde_json::from_slice(&std::fs::read(&q).unwrap()).unwrap();
    v["points"][0]["source"]["request_id_prefix"] = Value::from("bench-");
    std::fs::write(&q, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let o = t.verify(&t.run(), false);
    o.assert_fails(
        "point:rate-5.derived",
        "differs from the records derived from inputs/rate-5.vllm.json at line 1",
    );
    // An anchor moved by more than the date's precision is no run's.
    v["points"][0]["source"]["request_id_prefix"] = Value::from("rate-5-");
    v["points"][0]["source"]["anchor_adjust_s"] = Value::from(3600.0);
    std::fs::write(&q, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let o = t.verify(&t.run(), false);
    o.assert_fails("qualification.schema", "anchor_adjust_s is 3600");
    // A 2 MiB request-id prefix, copied into every derived record, is
    // refused by the schema before anything is derived.
    v["points"][0]["source"]["anchor_adjust_s"] = Value::from(0.0);
    v["points"][0]["source"]["request_id_prefix"] = Value::from("r".repeat(2 << 20));
    std::fs::write(&q, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let o = t.verify(&t.run(), false);
    o.assert_fails(
        "qualification.schema",
        "source.request_id_prefix of 2097152 bytes",
    );
    v["points"][0]["source"]["request_id_prefix"] = Value::from("rate-5-");
    // Derivation rules this proofpack does not know.
    v["points"][0]["source"]["rules"] = Value::from("proofpack/derive/v0");
    std::fs::write(&q, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    let o = t.verify(&t.run(), false);
    o.assert_fails("qualification.schema", "source.rules");
    // The raw file removed from the run.
    v["points"][0]["source"]["rules"] = Value::from("proofpack/derive/v1");
    std::fs::write(&q, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    std::fs::remove_file(t.in_run("inputs/rate-5.vllm.json")).unwrap();
    let o = t.verify(&t.run(), false);
    o.assert_fails(
        "point:rate-5.source",
        "inputs/rate-5.vllm.json: not in the run",
    );
    assert_eq!(
        o.check("point:rate-5.derived")["cause"],
        "point:rate-5.source"
    );
    // The records file left in the run proves nothing without the raw
    // file: every check of the point's records hangs on `.source`.
    for id in [
        "point:rate-5.records",
        "point:rate-5.count",
        "point:rate-5.claim.completed_rate",
    ] {
        assert_eq!(
            o.check(id)["cause"],
            "point:rate-5.source",
            "{id}: {}",
            o.check(id)
        );
        assert_eq!(o.check(id)["ok"], false);
    }
}

/// A failed request's latency of -1e15 s once widened the agreement
/// tolerance of every other request (it scaled with the file's largest
/// clock reading), so latencies 42 s shorter than their own token times
/// passed and a TPOT of 455 ms published as 30 ms. Each request's
/// tolerance now comes from its own readings, and readings no clock makes
/// are refused, failed requests included.
#[test]
fn one_request_cannot_widen_another_requests_tolerance() {
    let t = Tour::new();
    let shorter = |v: &mut Value, by: f64| {
        for i in 1..v["latencies"].as_array().unwrap().len() {
            let l = &mut v["latencies"][i];
            *l = Value::from((l.as_f64().unwrap() - by).max(0.0));
        }
    };
    let forged = edited(&t, &generated_vllm(), "forged.json", |v| {
        v["errors"][0] = Value::from("Traceback: ClientConnectorError");
        v["latencies"][0] = Value::from(-1e15);
        shorter(v, 42.0);
    });
    refused(
        &t,
        "rate-2",
        &forged,
        &[],
        &[
            "request 0",
            "latencies[0] = -1000000000000000 is not a duration",
        ],
    );
    let far = edited(&t, &generated_vllm(), "far.json", |v| {
        v["errors"][0] = Value::from("Traceback: ClientConnectorError");
        v["start_times"][0] = Value::from(1e15);
        shorter(v, 0.5);
    });
    refused(
        &t,
        "rate-2",
        &far,
        &[],
        &["start_times[0] = 1000000000000000 is not a clock reading"],
    );
    // Without the failed request, the shortened latencies are refused on
    // their own.
    let alone = edited(&t, &generated_vllm(), "alone.json", |v| shorter(v, 0.5));
    refused(
        &t,
        "rate-2",
        &alone,
        &[],
        &["request 1", "shorter than the request's own token times"],
    );
}

/// A decode of 2 ns a token is no model's: the point's mean time per
/// output token is bounded from below.
#[test]
fn a_decode_faster_than_any_serving_stack_is_refused() {
    let t = Tour::new();
    let fast = edited(&t, &generated_vllm(), "fast.json", |v| {
        let n = v["itls"].as_array().unwrap().len();
        for i in 0..n {
            let gaps: Vec<Value> = v["itls"][i]
                .as_array()
                .unwrap()
                .iter()
                .map(|_| Value::from(2e-9))
                .collect();
            let k = gaps.len() as f64;
            let ttft = v["ttfts"][i].as_f64().unwrap();
            v["itls"][i] = Value::Array(gaps);
            v["latencies"][i] = Value::from(ttft + 2e-9 * k);
        }
    });
    refused(
        &t,
        "rate-2",
        &fast,
        &[],
        &[
            "fast.json",
            "per output token on average",
            "not a measurement of a model",
        ],
    );
}

/// What honest clients write imports: a latency a few microseconds longer
/// than its token times (vLLM stops its clock after the stream's usage
/// chunk; its 0.19.1 files show about 11 µs). The summary fields computed
/// from latencies are left out, as the edit would change them.
#[test]
fn a_stream_tail_after_the_last_token_is_honest() {
    let t = Tour::new();
    let tail = edited(&t, &generated_vllm(), "rate-2.vllm.json", |v| {
        for i in 0..v["latencies"].as_array().unwrap().len() {
            let l = &mut v["latencies"][i];
            *l = Value::from(l.as_f64().unwrap() + 10.8e-6);
        }
        v.as_object_mut()
            .unwrap()
            .retain(|k, _| !(k.ends_with("_e2el_ms") || k.ends_with("_tpot_ms")));
    });
    pp_ok(&[&"run", &"import", &t.run(), &"--point", &"rate-2", &tail]);
}

/// A request that timed out at the end of the run has no end in the
/// client's file, so the records' last end came before the client stopped
/// waiting for it: the completed rate "including drain" was 17.7 times the
/// client's own. The window of such a point ends no earlier than the
/// client's end of the benchmark (its first send plus `duration`).
#[test]
fn a_trailing_failure_does_not_shorten_the_window() {
    let t = Tour::with_points(&["rate-2:rate=2,requests=60"]);
    let mut duration = 0.0;
    let file = edited(&t, &generated_vllm(), "rate-2.vllm.json", |v| {
        let starts: Vec<f64> = v["start_times"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_f64().unwrap())
            .collect();
        let last = (0..starts.len())
            .max_by(|a, b| starts[*a].total_cmp(&starts[*b]))
            .unwrap();
        v["errors"][last] = Value::from("Request Timeout");
        v["ttfts"][last] = Value::from(0.0);
        v["itls"][last] = Value::Array(vec![]);
        v["latencies"][last] = Value::from(0.0);
        duration = v["duration"].as_f64().unwrap() + 600.0;
        v["duration"] = Value::from(duration);
        // The summary the client computed from the original arrays is left
        // out: this is a file whose arrays alone speak.
        let keep = [
            "date",
            "duration",
            "backend",
            "model_id",
            "tokenizer_id",
            "num_prompts",
        ];
        v.as_object_mut()
            .unwrap()
            .retain(|k, x| x.is_array() || keep.contains(&k.as_str()));
    });
    pp_ok(&[&"run", &"import", &t.run(), &"--point", &"rate-2", &file]);
    t.attest();
    t.publish(false);
    let o = t.verify(&t.run(), false);
    assert_eq!(o.code, 0, "{}", o.stdout);
    // The table's completed rate is the client's own: ok / duration (57
    // ok of 60), not ok / (last end - first send), about 2 req/s.
    let row = &o.report["table"]["rows"][0];
    let rate: f64 = row[2].as_str().unwrap().parse().unwrap();
    assert!(
        (rate - 57.0 / duration).abs() <= 0.0005,
        "{rate} {}",
        o.report["table"]
    );
    let result = row[10].as_str().unwrap();
    assert!(result.contains("2 timed out"), "{result}");
}

/// `run import` checks what `verify` will: a request with more output
/// tokens than the plan's `--max-output-tokens` (128 in the tour) is
/// refused at import, naming it, rather than imported and failed later.
#[test]
fn import_refuses_token_counts_past_the_plans_lengths() {
    let t = Tour::new();
    let long = edited(&t, &generated_vllm(), "long.json", |v| {
        v["output_lens"][3] = Value::from(129);
        v.as_object_mut()
            .unwrap()
            .retain(|k, x| x.is_array() || ["date", "duration"].contains(&k.as_str()));
    });
    refused(
        &t,
        "rate-2",
        &long,
        &[],
        &["request 3 (request id \"rate-2-3\") has output_tokens 129, more than the plan's 128 (--max-output-tokens)"],
    );
}

/// The imported rate-2 point (60 requests) sealed with `hostile` as its
/// kept result file, verified under a peak-RSS measurement: the check
/// `point:rate-2.source` fails naming `needle`, in bounded memory.
fn hostile_source_is_refused_in_bounded_memory(hostile: &[u8], needle: &str) {
    let t = Tour::published();
    std::fs::write(t.in_run("inputs/rate-2.vllm.json"), hostile).unwrap();
    t.seal();
    let args: Vec<std::ffi::OsString> = vec![
        "verify".into(),
        t.bundle().into(),
        "--trust".into(),
        trust().into(),
        "--json".into(),
    ];
    let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let (code, stdout, stderr, peak_kib) = proofpack_measured(&refs);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let source = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "point:rate-2.source")
        .unwrap_or_else(|| panic!("no point:rate-2.source in {stdout}"));
    assert_eq!(source["ok"], false, "{source}");
    assert!(
        source.to_string().contains(needle),
        "{needle:?} not in {source}"
    );
    // 64 MiB and 64 bytes a declared request.
    let bound = 64 * 1024 + 64 * 60 / 1024;
    eprintln!(
        "hostile source ({} bytes, bundle {} bytes): peak RSS {peak_kib} KiB (bound {bound} KiB)",
        hostile.len(),
        std::fs::metadata(t.bundle()).unwrap().len()
    );
    assert!(peak_kib < bound, "peak RSS {peak_kib} KiB over {bound} KiB");
}

#[test]
fn a_kept_result_file_huge_in_values_is_refused_at_the_points_budget() {
    // One request's itls: 20,000,000 zeros (40 MB, a few hundred KB
    // compressed); the point declares 60 requests.
    let mut v: Value = serde_json::from_slice(&std::fs::read(generated_vllm()).unwrap()).unwrap();
    v["itls"][0] = serde_json::json!(["HOSTILE"]);
    let text = serde_json::to_string(&v).unwrap();
    let zeros = format!("[{}0]", "0,".repeat(20_000_000 - 1));
    let hostile = text.replacen("[\"HOSTILE\"]", &zeros, 1);
    hostile_source_is_refused_in_bounded_memory(
        hostile.as_bytes(),
        "point \\\"rate-2\\\" declares 60 request(s)",
    );
}

#[test]
fn a_kept_result_file_of_more_requests_than_declared_is_refused() {
    // 100,000 requests where the point declares 60: within the budget of
    // values, refused at the 62nd entry of an array, as it streams.
    let mut v: Value = serde_json::from_slice(&std::fs::read(generated_vllm()).unwrap()).unwrap();
    for key in [
        "input_lens",
        "output_lens",
        "ttfts",
        "latencies",
        "start_times",
        "errors",
        "generated_texts",
        "itls",
    ] {
        if let Some(a) = v[key].as_array() {
            let n = a.len();
            let more: Vec<Value> = (0..100_000)
                .map(|i| match key {
                    "itls" => serde_json::json!([]),
                    _ => a[i % n].clone(),
                })
                .collect();
            v[key] = Value::Array(more);
        }
    }
    hostile_source_is_refused_in_bounded_memory(
        &serde_json::to_vec(&v).unwrap(),
        "point \\\"rate-2\\\" declares 60 request(s) (requests + warmup), and its result file is read with at most one request more",
    );
}

/// The forged result files of the derivation's rules, put in a published
/// run after its import (the publisher edits the kept raw file): `verify`
/// derives the records again and fails `.source` (exit 1), never a plain
/// VERIFIED.
#[test]
fn verify_fails_the_forged_result_files_kept_in_a_run() {
    type Forgery = (&'static str, fn(&mut Value));
    let forgeries: [Forgery; 3] = [
        ("is not a duration", |v| {
            v["errors"][0] = Value::from("Traceback: ClientConnectorError");
            v["latencies"][0] = Value::from(-1e15);
        }),
        ("shorter than the request's own token times", |v| {
            for i in 0..v["latencies"].as_array().unwrap().len() {
                let l = &mut v["latencies"][i];
                *l = Value::from((l.as_f64().unwrap() - 0.5).max(0.0));
            }
        }),
        ("not a measurement of a model", |v| {
            for i in 0..v["itls"].as_array().unwrap().len() {
                let k = v["itls"][i].as_array().unwrap().len();
                let ttft = v["ttfts"][i].as_f64().unwrap();
                v["itls"][i] = Value::Array(vec![Value::from(2e-9); k]);
                v["latencies"][i] = Value::from(ttft + 2e-9 * k as f64);
            }
        }),
    ];
    for (what, forge) in forgeries {
        let t = Tour::published();
        let kept = t.in_run("inputs/rate-2.vllm.json");
        let mut v: Value = serde_json::from_slice(&std::fs::read(&kept).unwrap()).unwrap();
        forge(&mut v);
        std::fs::write(&kept, serde_json::to_vec(&v).unwrap()).unwrap();
        let o = t.verify(&t.run(), true);
        assert_eq!(o.code, 1, "{what}: {}", o.stdout);
        let source = o.check("point:rate-2.source");
        assert_eq!(source["ok"], false, "{what}");
        assert!(
            source["detail"].as_str().unwrap().contains(what),
            "{what}: {source}"
        );
        assert!(
            !o.report["verdict"]
                .as_str()
                .unwrap()
                .starts_with("VERIFIED"),
            "{what}"
        );
    }
}
