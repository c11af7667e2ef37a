//! The adoption tour as test steps: a run directory made with `run new`
//! from the two real vLLM files' layouts (the real 0.19.1 file and a
//! generated `bench serve` file), the engine attestation and host check
//! signed with the sample's TEST-ONLY keys, and a LiteLLM request log
//! written from the records (for the journal import).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

#[path = "../common/mod.rs"]
mod common;
pub use common::*;

/// testdata/.
pub fn testdata(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata")
        .join(rel)
}

/// The real vLLM 0.19.1 `bench serve --save-detailed` file (start_times).
pub fn real_vllm() -> PathBuf {
    testdata("peers/real/tokenkaki-vllm-bench-serve-0.19.1.json")
}
/// The real 2024 `benchmark_serving.py` file (no start_times).
pub fn real_2024() -> PathBuf {
    testdata("peers/real/lambdalabs-benchmark-serving-2024.json")
}
/// The generated `bench serve` file of the second point.
pub fn generated_vllm() -> PathBuf {
    testdata("peers/generated/vllm-bench-serve-import.json")
}
/// The same requests as SGLang's `bench_serving --output-details` writes them.
pub fn generated_sglang() -> PathBuf {
    testdata("peers/generated/sglang-bench-serving-import.jsonl")
}
/// The trust file of the sample's TEST-ONLY keys.
pub fn trust() -> PathBuf {
    testdata("sample/trust.json")
}
pub fn key(role: &str) -> PathBuf {
    testdata(&format!("sample/keys/TEST-ONLY-{role}.key"))
}

/// Runs `proofpack --no-catalog ARGS`: (exit status, stdout, stderr).
pub fn pp(args: &[&dyn AsRef<std::ffi::OsStr>]) -> (i32, String, String) {
    let out = command()
        .arg("--no-catalog")
        .args(args.iter().map(|a| a.as_ref()))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// [`pp`] that must succeed.
pub fn pp_ok(args: &[&dyn AsRef<std::ffi::OsStr>]) -> String {
    let (code, out, err) = pp(args);
    assert_eq!(
        code,
        0,
        "{:?}\n{out}\n{err}",
        args.iter()
            .map(|a| a.as_ref().to_owned())
            .collect::<Vec<_>>()
    );
    out
}

/// A tour in a temporary directory.
pub struct Tour {
    pub dir: tempfile::TempDir,
}

impl Tour {
    /// `run new` with the two points (`rate-5`: 100 requests at 5/s, the
    /// real file; `rate-2`: 60 at 2/s, the generated one) and one host.
    pub fn new() -> Tour {
        Tour::with_points(&["rate-5:rate=5,requests=100", "rate-2:rate=2,requests=60"])
    }
    /// `run new` with these `--point` values and one host.
    pub fn with_points(points: &[&str]) -> Tour {
        let t = Tour {
            dir: tempfile::tempdir().unwrap(),
        };
        let run = t.run();
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> = vec![
            &"run",
            &"new",
            &run,
            &"--model",
            &"Qwen/Qwen3-8B",
            &"--slo",
            &"ttft=10,tpot=0.3,attainment=0.95",
        ];
        for p in points {
            args.push(&"--point");
            args.push(p);
        }
        args.extend([
            &"--max-input-tokens" as &dyn AsRef<std::ffi::OsStr>,
            &"256",
            &"--max-output-tokens",
            &"128",
            &"--host",
            &"node-0",
        ]);
        pp_ok(&args);
        t
    }
    pub fn run(&self) -> PathBuf {
        self.dir.path().join("run")
    }
    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }
    pub fn in_run(&self, rel: &str) -> PathBuf {
        self.run().join(rel)
    }
    /// `run import` of `file` as point `point`.
    pub fn import(&self, point: &str, file: &Path) {
        self.import_args(point, &[&file.to_path_buf()]);
    }
    /// `run import --journal` of the router log `log` for point `point`.
    pub fn import_journal(&self, point: &str, log: &Path) {
        self.import_args(point, &[&"--journal", &log.to_path_buf()]);
    }
    /// `run import RUN --point POINT REST...`, which must succeed: its
    /// stdout.
    pub fn import_args(&self, point: &str, rest: &[&dyn AsRef<std::ffi::OsStr>]) -> String {
        let run = self.run();
        let mut args: Vec<&dyn AsRef<std::ffi::OsStr>> =
            vec![&"run", &"import", &run, &"--point", &point];
        args.extend_from_slice(rest);
        pp_ok(&args)
    }
    /// `run import` of both points.
    pub fn import_both(&self) {
        pp_ok(&[
            &"run",
            &"import",
            &self.run(),
            &"--point",
            &"rate-5",
            &real_vllm(),
        ]);
        pp_ok(&[
            &"run",
            &"import",
            &self.run(),
            &"--point",
            &"rate-2",
            &generated_vllm(),
        ]);
    }
    /// The weights manifest under manifests/, the engine attestation and
    /// the host check, signed with the TEST-ONLY keys.
    pub fn attest(&self) {
        self.attest_weights(&testdata("sample/weights"));
    }
    /// [`Tour::attest`] of the weights in `weights`.
    pub fn attest_weights(&self, weights: &Path) {
        pp_ok(&[
            &"manifest",
            &weights.to_path_buf(),
            &"-o",
            &self.in_run("manifests/weights.manifest"),
        ]);
        pp_ok(&[
            &"manifest",
            &weights.to_path_buf(),
            &"--format",
            &"json",
            &"-o",
            &self.in_run("manifests/weights.manifest.json"),
        ]);
        std::fs::write(
            self.path("config.json"),
            b"{\"architectures\":[\"Qwen3ForCausalLM\"]}\n",
        )
        .unwrap();
        let image = format!("sha256:{}", "ab".repeat(32));
        pp_ok(&[
            &"attest",
            &"engine",
            &"--key",
            &key("engine"),
            &"-o",
            &self.in_run("attestations/engine-0.dsse.json"),
            &"--engine-id",
            &"engine-0",
            &"--engine-name",
            &"vllm",
            &"--engine-version",
            &"0.19.1",
            &"--image",
            &image,
            &"--host",
            &"node-0",
            &"--model",
            &"Qwen/Qwen3-8B",
            &"--accelerator",
            &"A100",
            &"--accelerator-count",
            &"1",
            &"--parallelism",
            &"tensor=1",
            &"--launched-at",
            &"2026-06-25T15:00:00Z",
            &"--weights-manifest",
            &self.in_run("manifests/weights.manifest"),
            &"--config",
            &self.path("config.json"),
        ]);
        pp_ok(&[
            &"host",
            &"check",
            &weights.to_path_buf(),
            &"--weights",
            &self.in_run("manifests/weights.manifest.json"),
            &"--config",
            &self.path("config.json"),
            &"--host",
            &"node-0",
            &"--run",
            &self.run_name(),
            &"--fleet",
            &self.in_run("inputs/fleet.json"),
            &"--key",
            &key("host"),
            &"-o",
            &self.in_run("host-checks/node-0.dsse.json"),
        ]);
        // The check stands for one made on the host before its engine
        // launched (15:00Z); a test running today can only date it today,
        // after the imported run, so the host key signs it again dated
        // 14:50Z..14:51Z (the host operator signs what it states).
        redate_host_report(
            &self.in_run("host-checks/node-0.dsse.json"),
            "2026-06-25T14:50:00Z",
            "2026-06-25T14:51:00Z",
        );
    }
    /// The qualification's name (as `run new` wrote it).
    pub fn run_name(&self) -> String {
        self.json("qualification.json")["name"]
            .as_str()
            .expect("the qualification has a name")
            .to_string()
    }
    /// `publish` (optionally `--bundle`) into PUBLICATION.md.
    pub fn publish(&self, bundle: bool) -> String {
        let out = self.path("PUBLICATION.md");
        if bundle {
            pp_ok(&[
                &"publish",
                &self.run(),
                &"--bundle",
                &self.bundle(),
                &"-o",
                &out,
            ])
        } else {
            pp_ok(&[&"publish", &self.run(), &"-o", &out])
        }
    }
    pub fn bundle(&self) -> PathBuf {
        self.path("run.tgz")
    }
    /// `seal` with the TEST-ONLY release key.
    pub fn seal(&self) {
        pp_ok(&[
            &"seal",
            &self.run(),
            &"-o",
            &self.bundle(),
            &"--key",
            &key("release"),
            &"--force",
        ]);
    }
    /// `verify TARGET --trust --publication [--require-all] --json`.
    pub fn verify(&self, target: &Path, require_all: bool) -> Outcome {
        let mut args: Vec<std::ffi::OsString> = vec![
            "verify".into(),
            target.into(),
            "--trust".into(),
            trust().into(),
            "--publication".into(),
            self.path("PUBLICATION.md").into(),
            "--json".into(),
        ];
        if require_all {
            args.push("--require-all".into());
        }
        let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
        Outcome::of(&refs)
    }
    /// The tour up to the published run directory (not sealed).
    pub fn published() -> Tour {
        let t = Tour::new();
        t.import_both();
        t.attest();
        t.publish(false);
        t
    }
    /// A LiteLLM StandardLoggingPayload log of point `point`'s requests as
    /// a router saw them (with the token counts of each answer), its clock
    /// `shift` seconds ahead of the records'
    /// anchor; plus a health check without an x-request-id and a request
    /// of another benchmark.
    pub fn litellm_log(&self, point: &str, shift: f64) -> PathBuf {
        let text =
            std::fs::read_to_string(self.in_run(&format!("points/{point}/client.jsonl"))).unwrap();
        let mut out = String::new();
        for (i, line) in text.lines().enumerate() {
            let r: Value = serde_json::from_str(line).unwrap();
            let sent = r["sent_at"].as_f64().unwrap() + shift;
            let ok = r["status"] == "ok";
            let end = r["finished_at"]
                .as_f64()
                .map_or(sent + 0.2, |f| f + shift - 0.0004);
            let mut v = json!({
                "id": format!("chatcmpl-{i}"), "call_type": "acompletion", "stream": true,
                "status": if ok { "success" } else { "failure" },
                "startTime": sent + 0.0015, "endTime": end,
                "completionStartTime": r["first_token_at"].as_f64().map(|f| f + shift - 0.0003),
                "model": "Qwen/Qwen3-8B",
                "metadata": {"requester_custom_headers": {"X-Request-Id": r["request_id"]}},
            });
            if ok {
                // The backend's count of the answer, as LiteLLM logs it.
                v["completion_tokens"] = r["output_tokens"].clone();
                v["prompt_tokens"] = r["input_tokens"].clone();
            }
            if r["status"] == "timeout" {
                v["error_information"] = json!({"error_class": "Timeout", "error_code": "408"});
            } else if !ok {
                v["error_information"] =
                    json!({"error_class": "InternalServerError", "error_code": "500"});
            }
            out.push_str(&v.to_string());
            out.push('\n');
        }
        out.push_str(&json!({"id": "h", "status": "success", "startTime": 1.0, "endTime": 1.1, "completionStartTime": null, "metadata": {}}).to_string());
        out.push('\n');
        out.push_str(&json!({"id": "o", "status": "success", "startTime": 1.0, "endTime": 1.1, "completionStartTime": 1.05, "metadata": {"requester_custom_headers": {"x-request-id": "other-bench-0"}}}).to_string());
        out.push('\n');
        let p = self.path(&format!("{point}.litellm.jsonl"));
        std::fs::write(&p, out).unwrap();
        p
    }
    /// Reads a JSON file of the run.
    pub fn json(&self, rel: &str) -> Value {
        serde_json::from_slice(&std::fs::read(self.in_run(rel)).unwrap()).unwrap()
    }
}

/// Re-dates a host launch-check report (`started_at`, `finished_at`) and
/// signs it again with the TEST-ONLY host key.
pub fn redate_host_report(path: &Path, started: &str, finished: &str) {
    let env = std::fs::read(path).unwrap();
    let mut st = proofpack::attest::inspect_envelope(&env).unwrap().claimed;
    st.predicate["started_at"] = json!(started);
    st.predicate["finished_at"] = json!(finished);
    let k = proofpack::keys::load_signing_key(&key("host")).unwrap();
    std::fs::write(path, proofpack::attest::sign_statement(&st, &[&k])).unwrap();
}
