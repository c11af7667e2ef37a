//! The percentile and metric code against numpy (the reference every
//! published table was computed with): checked-in vectors produced by
//! scripts/gen-percentile-vectors.py, live numpy on fresh random data, and
//! the sample run's published claims recomputed by numpy independently.

#[path = "../examples/make_sample/gen.rs"]
mod gen;

use std::path::PathBuf;
use std::process::Command;

use proofpack::run::metrics::{percentile, percentile_sorted};
use serde_json::Value;

mod common;
use common::python;

fn run_python(script: &str, input: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let inp = dir.path().join("input.json");
    std::fs::write(&inp, input).unwrap();
    let out = Command::new(python())
        .arg("-c")
        .arg(script)
        .arg(&inp)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn checked_in_vectors_match_bit_for_bit() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/vectors/percentiles.json");
    let v: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let cases = v["cases"].as_array().unwrap();
    assert!(cases.len() >= 10);
    let mut compared = 0;
    for c in cases {
        let data: Vec<f64> = c["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        for (p, want) in c["percentiles"]
            .as_array()
            .unwrap()
            .iter()
            .zip(c["expected"].as_array().unwrap())
        {
            let got = percentile(&data, p.as_f64().unwrap()).unwrap();
            assert_eq!(
                got.to_bits(),
                want.as_f64().unwrap().to_bits(),
                "{} p{}: {got} vs numpy {want}",
                c["name"],
                p
            );
            compared += 1;
        }
    }
    assert!(compared > 100);
}

#[test]
fn live_numpy_on_random_data() {
    let mut rng = gen::Rng::new(0xDA7A);
    let mut sets = Vec::new();
    for n in [1usize, 2, 3, 6, 17, 64, 200, 201, 1000, 4321] {
        let data: Vec<f64> = (0..n)
            .map(|_| (rng.normal() * 3.0 + 5.0).exp() / 100.0)
            .collect();
        sets.push(data);
    }
    let ps = [0.0, 0.5, 12.5, 50.0, 66.6, 90.0, 95.0, 99.0, 99.99, 100.0];
    let input = serde_json::json!({"sets": sets, "ps": ps}).to_string();
    let script = r#"
import json, sys
import numpy as np
d = json.load(open(sys.argv[1]))
print(json.dumps([[float(np.percentile(np.array(s), p)) for p in d["ps"]] for s in d["sets"]]))
"#;
    let out: Vec<Vec<f64>> = serde_json::from_str(&run_python(script, &input)).unwrap();
    for (s, want) in sets.iter().zip(out) {
        let mut sorted = s.clone();
        sorted.sort_by(f64::total_cmp);
        for (p, w) in ps.iter().zip(want) {
            let got = percentile_sorted(&sorted, *p).unwrap();
            assert_eq!(
                got.to_bits(),
                w.to_bits(),
                "n={} p{p}: {got} vs numpy {w}",
                s.len()
            );
        }
    }
}

/// numpy recomputes the sample's published claims from its client records
/// with nothing but the spec's definitions, independently of proofpack.
#[test]
fn sample_claims_agree_with_numpy() {
    let dir = tempfile::tempdir().unwrap();
    let s = gen::generate(dir.path(), &gen::Params::default());
    let q: Value =
        serde_json::from_slice(&std::fs::read(s.run.join("qualification.json")).unwrap()).unwrap();
    let input = serde_json::json!({"run": s.run, "q": q}).to_string();
    let script = r#"
import json, sys
import numpy as np
d = json.load(open(sys.argv[1]))
q = d["q"]; out = {}
for p in q["points"]:
    recs = [json.loads(l) for l in open(d["run"] + "/" + p["client_records"])]
    m = [r for r in recs if not r["warmup"]]
    ok = [r for r in m if r["status"] == "ok"]
    window = max(r["finished_at"] for r in m if r["finished_at"] is not None) - min(r["sent_at"] for r in m)
    ttft = np.array([r["first_token_at"] - r["sent_at"] for r in ok])
    tpot = np.array([(r["finished_at"] - r["first_token_at"]) / (r["output_tokens"] - 1) * 1000 for r in ok if r["output_tokens"] > 1])
    slo = q["slo"]
    within = sum(1 for r in ok if r["first_token_at"] - r["sent_at"] <= slo["ttft_s"] and (r["output_tokens"] <= 1 or (r["finished_at"] - r["first_token_at"]) / (r["output_tokens"] - 1) <= slo["tpot_s"]))
    out[p["name"]] = {
        "completed_rate": "%.3f" % (len(ok) / window),
        "output_throughput": "%.1f" % (sum(r["output_tokens"] for r in ok) / window),
        "ttft_s": {k: "%.3f" % np.percentile(ttft, v) for k, v in (("p50", 50), ("p95", 95), ("p99", 99))},
        "tpot_ms": {k: "%.1f" % np.percentile(tpot, v) for k, v in (("p50", 50), ("p95", 95), ("p99", 99))},
        "within_limits": within,
    }
print(json.dumps(out))
"#;
    let got: Value = serde_json::from_str(&run_python(script, &input)).unwrap();
    let mut compared = 0;
    for p in q["points"].as_array().unwrap() {
        let name = p["name"].as_str().unwrap();
        let claims = &p["claims"];
        let mine = &got[name];
        for key in ["completed_rate", "output_throughput", "within_limits"] {
            assert_eq!(claims[key], mine[key], "{name}.{key}");
            compared += 1;
        }
        for g in ["ttft_s", "tpot_ms"] {
            for k in ["p50", "p95", "p99"] {
                assert_eq!(claims[g][k], mine[g][k], "{name}.{g}.{k}");
                compared += 1;
            }
        }
    }
    assert_eq!(compared, 18);
}

#[test]
fn sample_shards_are_valid_safetensors() {
    let dir = tempfile::tempdir().unwrap();
    let s = gen::generate(
        dir.path(),
        &gen::Params {
            requests: 5,
            ..Default::default()
        },
    );
    let shards: Vec<PathBuf> = std::fs::read_dir(&s.weights)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(shards.len(), gen::SHARDS);
    let input = serde_json::json!({"files": shards}).to_string();
    let script = r#"
import json, sys
import safetensors
d = json.load(open(sys.argv[1]))
n = 0
for f in d["files"]:
    tensors = safetensors.deserialize(open(f, "rb").read())
    assert len(tensors) == 1, f
    name, t = tensors[0]
    assert str(t["dtype"]).lower() in ("bfloat16", "bf16"), t["dtype"]
    assert list(t["shape"]) == [4, 4], t["shape"]
    assert len(t["data"]) == 32
    n += 1
print(n)
"#;
    assert_eq!(run_python(script, &input).trim(), gen::SHARDS.to_string());
}
