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
    // A latency that disagrees with TTFT + ITLs (by 10 microseconds).
    let lat = edited(&t, &generated_vllm(), "latency.json", |v| {
        let l = &mut v["latencies"][7];
        *l = Value::from(l.as_f64().unwrap() + 1e-5);
    });
    refused(
        &t,
        "rate-2",
        &lat,
        &[],
        &[
            "latency.json: request 7 (request id \"rate-2-7\"): latencies[7] = ",
            "more than the file's precision allows",
        ],
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
    refused(&t, "rate-2", &real_vllm(), &[], &["tokenkaki-vllm-bench-serve-0.19.1.json: holds 100 requests; the plan's point \"rate-2\" runs 60"]);
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
    // Derivation rules this proofpack does not know.
    v["points"][0]["source"]["anchor_adjust_s"] = Value::from(0.0);
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
}
