//! Deterministic generator of a realistic qualification run (shared by the
//! `make_sample` example and the qualify tests).
//!
//! Everything is derived from fixed seeds and fixed timestamps, so running it
//! twice writes identical bytes. The keys it writes are TEST-ONLY keys,
//! derived from public seeds: anyone can sign with them.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use base64::Engine as _;
use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
use ed25519_dalek::pkcs8::EncodePublicKey;
use ed25519_dalek::{Signer, SigningKey};
use proofpack::digest::Sha256Digest;
use proofpack::manifest::{self, BuildOptions, Manifest};
use proofpack::progress::NoProgress;
use proofpack::run::metrics::MetricsAccumulator;
use proofpack::run::qualification::Status;
use serde_json::{json, Value};

#[path = "evidence.rs"]
mod evidence;
#[path = "writeup.rs"]
mod writeup;
// Not every crate that includes this file writes the write-up.
#[allow(unused_imports)]
pub use writeup::publication;

/// Name of the sample qualification (and the bundle's root directory).
pub const NAME: &str = "kimi-k3-mi355x-20260923-sample";
/// Model id.
pub const MODEL: &str = "moonshotai/Kimi-K3";
/// Unix time the first point starts (2026-09-23T08:20:00Z).
pub const BASE_TIME: f64 = 1_790_151_600.0;
/// SOURCE_DATE_EPOCH for sealing (2026-09-23T12:00:00Z).
pub const SEAL_EPOCH: u64 = 1_790_164_800;
/// SLO.
pub const SLO_TTFT_S: f64 = 10.0;
/// SLO.
pub const SLO_TPOT_S: f64 = 0.3;
/// SLO.
pub const SLO_ATTAINMENT: f64 = 0.95;
/// Engines in the qualified fleet.
pub const ENGINES: usize = 4;
/// Weight shards.
pub const SHARDS: usize = 96;
/// Prompt length of every request (the workload fixes it).
pub const INPUT_TOKENS: u64 = 8192;
/// Output length of every completed request (ignore_eos, max_tokens).
pub const OUTPUT_TOKENS: u64 = 128;
/// The workload's seed.
pub const WORKLOAD_SEED: u64 = 1729;
/// The fleet's first-token deadline, seconds.
pub const FIRST_TOKEN_DEADLINE_S: f64 = 8.5;
/// Commit of the router the run went through (synthetic).
pub const ROUTER_COMMIT: &str = "3f9a1c0d5e7b2a4c6d8e0f1a3b5c7d9e1f2a4b6c";
/// Commit of the benchmark client (synthetic).
pub const CLIENT_COMMIT: &str = "b7e2d4f6a8c0e1d3f5a7b9c1d2e4f6a8b0c2d4e6";
/// Engine name and version as the publication writes them.
pub const ENGINE_NAME: &str = "vllm";
/// Engine version.
pub const ENGINE_VERSION: &str = "0.11.2+rocm7.0";
/// The options the benchmark client ran every point with (v1.1: recorded
/// in the plan, `client.args`).
pub const CLIENT_ARGS: [&str; 8] = [
    "--ttft",
    "10",
    "--tpot",
    "0.3",
    "--attainment",
    "0.95",
    "--timeout",
    "600",
];

/// What to generate.
#[derive(Clone, Debug)]
pub struct Params {
    /// Measured requests per point.
    pub requests: u64,
    /// Warmup requests per point.
    pub warmup: u64,
    /// (name, offered rate) per point.
    pub points: Vec<(String, f64)>,
    /// Write workload.jsonl (one line per request).
    pub workload: bool,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            requests: 200,
            warmup: 1,
            points: vec![("rate-0.5".into(), 0.5), ("rate-1".into(), 1.0)],
            workload: true,
        }
    }
}

/// SplitMix64: tiny, fixed, good enough for synthetic latencies.
pub struct Rng(u64);

impl Rng {
    /// A generator with a fixed seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }
    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    pub fn f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
    /// Standard normal (Box-Muller).
    pub fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.f64();
        let u2 = self.f64();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }
    /// Exponential with the given rate.
    pub fn exp(&mut self, rate: f64) -> f64 {
        -(1.0 - self.f64()).ln() / rate
    }
}

/// A deterministic TEST-ONLY key from a label.
pub fn test_key(label: &str) -> SigningKey {
    SigningKey::from_bytes(
        &Sha256Digest::of_bytes(format!("proofpack TEST-ONLY key: {label}").as_bytes()).0,
    )
}

/// Key id: SHA-256 of the DER SubjectPublicKeyInfo.
pub fn key_id(k: &SigningKey) -> String {
    let der = k
        .verifying_key()
        .to_public_key_der()
        .expect("encode public key");
    Sha256Digest::of_bytes(der.as_bytes()).to_hex()
}

/// The engine key and the release key of the sample.
pub fn engine_key() -> SigningKey {
    test_key("engine")
}
/// The release key of the sample.
pub fn release_key() -> SigningKey {
    test_key("release")
}
/// The host key of the sample's launch checks (one for its four hosts).
pub fn host_key() -> SigningKey {
    test_key("host")
}

/// The host of engine `i`.
pub fn host_name(i: usize) -> String {
    format!("mi355x-node-{:02}.qual.example", i + 1)
}

/// Seals a sample run directory exactly as the committed sample was sealed
/// (root name, mtime and seal time fixed, one thread, the test release key),
/// so that the generator and the tests cannot drift apart.
pub fn seal_sample(
    run: &Path,
    out: &Path,
) -> Result<proofpack::bundle::Sealed, proofpack::bundle::BundleError> {
    proofpack::bundle::seal_signed(
        run,
        out,
        &proofpack::bundle::SealOptions {
            name: Some(NAME.into()),
            mtime: SEAL_EPOCH,
            threads: 1,
            ..Default::default()
        },
        &release_key(),
        &proofpack::timefmt::rfc3339_utc(SEAL_EPOCH),
        &NoProgress,
    )
}

/// DSSE pre-authentication encoding.
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut v = format!(
        "DSSEv1 {} {payload_type} {} ",
        payload_type.len(),
        payload.len()
    )
    .into_bytes();
    v.extend_from_slice(payload);
    v
}

/// A DSSE envelope over an in-toto Statement, signed by `keys`.
pub fn sign_envelope(statement: &Value, keys: &[&SigningKey]) -> Vec<u8> {
    let payload_type = "application/vnd.in-toto+json";
    let payload = serde_json::to_vec(statement).expect("statement serialises");
    let b64 = base64::engine::general_purpose::STANDARD;
    let sigs: Vec<Value> = keys
        .iter()
        .map(|k| json!({"keyid": key_id(k), "sig": b64.encode(k.sign(&pae(payload_type, &payload)).to_bytes())}))
        .collect();
    let env =
        json!({"payloadType": payload_type, "payload": b64.encode(&payload), "signatures": sigs});
    let mut out = serde_json::to_vec_pretty(&env).expect("envelope serialises");
    out.push(b'\n');
    out
}

/// An engine attestation Statement.
pub fn engine_statement(
    engine: usize,
    subjects: &[(&str, Sha256Digest)],
    image: &Sha256Digest,
    model: &str,
) -> Value {
    let subject: Vec<Value> = subjects
        .iter()
        .map(|(n, d)| json!({"name": n, "digest": {"sha256": d.to_hex()}}))
        .collect();
    json!({
        "_type": "https://in-toto.io/Statement/v1",
        "subject": subject,
        "predicateType": "urn:proofpack:predicate:engine:v1",
        "predicate": {
            "engine": {"id": format!("engine-{engine}"), "name": ENGINE_NAME, "version": ENGINE_VERSION, "image": image.prefixed()},
            "host": host_name(engine),
            "model": model,
            "accelerator": {"name": "AMD Instinct MI355X", "count": 8},
            "parallelism": {"tensor": 8},
            "launched_at": format!("2026-09-23T07:{:02}:00Z", 40 + engine),
            "generation": 1
        }
    })
}

fn write(path: &Path, bytes: &[u8]) {
    if let Some(d) = path.parent() {
        fs::create_dir_all(d).unwrap_or_else(|e| panic!("mkdir {}: {e}", d.display()));
    }
    fs::write(path, bytes).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

fn pretty(v: &Value) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(v).expect("json");
    out.push(b'\n');
    out
}

/// One tiny but valid safetensors file.
pub fn safetensors_shard(i: usize, rng: &mut Rng) -> Vec<u8> {
    let name = format!("model.layers.{i}.mlp.experts.gate_proj.weight");
    let n = 16usize; // 4x4 bf16 = 32 bytes
    let header = json!({
        "__metadata__": {"format": "pt"},
        name: {"dtype": "BF16", "shape": [4, 4], "data_offsets": [0, n * 2]}
    });
    let mut h = serde_json::to_vec(&header).expect("json");
    while !h.len().is_multiple_of(8) {
        h.push(b' ');
    }
    let mut out = (h.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(&h);
    for _ in 0..n {
        let x = (rng.normal() * 0.02) as f32;
        out.extend_from_slice(&((x.to_bits() >> 16) as u16).to_le_bytes());
    }
    out
}

fn t6(x: f64) -> f64 {
    format!("{x:.6}").parse().expect("number")
}

fn opt6(x: Option<f64>) -> String {
    x.map_or_else(|| "null".into(), |v| format!("{v:.6}"))
}

/// Paths of a generated sample.
pub struct Sample {
    /// The run directory.
    pub run: PathBuf,
    /// The weights directory.
    pub weights: PathBuf,
    /// Digest of manifests/weights.manifest.
    pub weights_manifest: Sha256Digest,
    /// Digest of inputs/config.json.
    pub config: Sha256Digest,
    /// Digest of inputs/fleet-qualified.json.
    pub fleet: Sha256Digest,
    /// The engine image digest.
    pub image: Sha256Digest,
}

/// Writes the weights and the run directory under `out` (`out/weights`,
/// `out/run/<NAME>`), replacing earlier ones.
pub fn generate(out: &Path, p: &Params) -> Sample {
    let weights = out.join("weights");
    let run = out.join("run").join(NAME);
    for d in [&weights, &out.join("run")] {
        if d.exists() {
            fs::remove_dir_all(d).unwrap_or_else(|e| panic!("remove {}: {e}", d.display()));
        }
    }
    let mut rng = Rng::new(0x5EED_0001);
    for i in 1..=SHARDS {
        write(
            &weights.join(format!("model-{i:05}-of-{SHARDS:05}.safetensors")),
            &safetensors_shard(i, &mut rng),
        );
    }
    let wm = manifest::build(
        &weights,
        &BuildOptions {
            excludes: vec![],
            threads: 1,
            cache: None,
        },
        &NoProgress,
    )
    .expect("weights manifest");
    let wm_text = wm.canonical_text();
    write(&run.join("manifests/weights.manifest"), wm_text.as_bytes());
    let weights_manifest = Sha256Digest::of_bytes(wm_text.as_bytes());

    let config = pretty(&json!({
        "architectures": ["KimiK3ForCausalLM"],
        "model_type": "kimi_k3",
        "hidden_size": 7168,
        "intermediate_size": 18432,
        "moe_intermediate_size": 2048,
        "num_hidden_layers": 61,
        "num_attention_heads": 64,
        "num_key_value_heads": 64,
        "n_routed_experts": 384,
        "n_shared_experts": 1,
        "num_experts_per_tok": 8,
        "max_position_embeddings": 262144,
        "vocab_size": 163840,
        "rope_theta": 50000.0,
        "torch_dtype": "bfloat16",
        "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "weight_block_size": [128, 128]}
    }));
    write(&run.join("inputs/config.json"), &config);
    let image =
        Sha256Digest::of_bytes(b"sample engine image: rocm/vllm:0.11.2-rocm7.0 (synthetic)");
    let mut fleet_v = json!({
        "fleet": "mi355x-qualification",
        "model": MODEL,
        "first_token_deadline_s": FIRST_TOKEN_DEADLINE_S,
        "profile_store": "inputs/profile-store.json",
        "engines": (0..ENGINES).map(|i| json!({
            "id": format!("engine-{i}"),
            "host": format!("mi355x-node-{:02}.qual.example", i + 1),
            "image": image.prefixed(),
            "accelerator": {"name": "AMD Instinct MI355X", "count": 8},
            "parallelism": {"tensor": 8}
        })).collect::<Vec<_>>()
    });
    let fleet = pretty(&fleet_v);
    write(&run.join("inputs/fleet-qualified.json"), &fleet);
    // The fleet as packaged: the qualified copy raises only the deadline.
    fleet_v["first_token_deadline_s"] = json!(2.0);
    write(&run.join("inputs/fleet-packaged.json"), &pretty(&fleet_v));
    write(
        &run.join("inputs/benchmark-plan.json"),
        &pretty(&json!({
            "plan": "kimi-k3-serving-qualification",
            "router": {"name": "narwhal", "revision": ROUTER_COMMIT},
            "client": {"name": "proofpack-sample-client", "revision": CLIENT_COMMIT, "args": CLIENT_ARGS},
            "workload": "inputs/workload.json",
            "fleet": "inputs/fleet-qualified.json",
            "packaged_fleet": "inputs/fleet-packaged.json",
            "preflight": "preflight.json",
            "probes": "probes/probes.json",
            "post_load": "post-load.json",
            "full_manifests": (0..ENGINES).map(|e| format!("manifests/hosts/{}.manifest.json", host_name(e))).collect::<Vec<_>>(),
            "arrival": "poisson",
            "max_input_tokens": INPUT_TOKENS,
            "max_output_tokens": OUTPUT_TOKENS,
            "seed": 20260923,
            "points": p.points.iter().map(|(n, r)| json!({"name": n, "offered_rate": r, "requests": p.requests, "warmup": p.warmup, "collector": format!("benchmark/{n}/collector.json")})).collect::<Vec<_>>(),
            "slo": {"ttft_s": SLO_TTFT_S, "tpot_s": SLO_TPOT_S, "attainment": SLO_ATTAINMENT},
            "request_timeout_s": 600
        })),
    );
    // The workload description: what every prompt is built from. 28 pool
    // entries, 20 distinct token ids.
    let pool: Vec<u64> = (0..28u64).map(|i| 1000 + (i * 7) % 20 * 13).collect();
    write(
        &run.join("inputs/workload.json"),
        &pretty(&json!({
            "input_tokens": INPUT_TOKENS,
            "output_tokens": OUTPUT_TOKENS,
            "ignore_eos": true,
            "seed": WORKLOAD_SEED,
            "temperature": 0,
            "prefix_caching": false,
            "token_pool": pool,
        })),
    );
    write(
        &run.join("inputs/profile-store.json"),
        &pretty(&json!({
            "profiles": (0..ENGINES).map(|e| json!({"engine": "vllm", "version": "0.11.2+rocm7.0", "model": MODEL,
                          "id": format!("engine-{e}"),
                          "args": ["--tensor-parallel-size", "8", "--max-model-len", "131072", "--kv-cache-dtype", "fp8", "--max-num-seqs", "64"],
                          "samples": format!("profiles/engine-{e}.json")})).collect::<Vec<_>>()
        })),
    );
    // v1.1: the live profiles' samples, the direct probes (section 9.6).
    for e in 0..ENGINES {
        write(
            &run.join(format!("profiles/engine-{e}.json")),
            &pretty(&evidence::profile_samples(e, ENGINES, INPUT_TOKENS)),
        );
    }
    write(
        &run.join("probes/probes.json"),
        &pretty(&evidence::probes(ENGINES)),
    );
    write(
        &run.join("preflight.json"),
        &pretty(&json!({
            "checked_at": "2026-09-23T08:05:00Z",
            "checks": [
                {"name": "weights-manifest", "ok": true, "detail": format!("{SHARDS} shards match {}", weights_manifest.prefixed())},
                {"name": "engine-images", "ok": true, "detail": format!("{ENGINES} engines run {}", image.prefixed())},
                {"name": "health", "ok": true, "detail": "all engines answer /health"},
                {"name": "clock-skew", "ok": true, "detail": "max skew 3 ms"}
            ]
        })),
    );

    let mut workload = String::new();
    let mut journal: Vec<(f64, u64, String)> = Vec::new();
    let mut seq = 0u64;
    let mut points_json = Vec::new();
    // Points run one after another: the next one's warmup is sent at least
    // two minutes after the last time the previous one recorded.
    let mut previous_end = f64::MIN;
    for (k, (pname, rate)) in p.points.iter().enumerate() {
        let mut rng = Rng::new(0xC11E_0000 + k as u64);
        let mut client = String::new();
        let mut acc = MetricsAccumulator::default();
        let t0 = (BASE_TIME + 3600.0 * k as f64).max((previous_end + 180.0).ceil());
        let load = rate / 1.0; // heavier load, slower first tokens
        let mut t = t0;
        // The point's window as its collector saw it: first measured send
        // to last answer.
        let (mut window_start, mut window_end) = (f64::INFINITY, f64::NEG_INFINITY);
        for i in 0..(p.warmup + p.requests) {
            let warm = i < p.warmup;
            let rid = if warm {
                format!("{pname}-warmup-{i:03}")
            } else {
                format!("{pname}-{:06}", i - p.warmup)
            };
            let sent = if warm {
                t0 - 60.0 + 5.0 * i as f64
            } else {
                t += rng.exp(*rate);
                t
            };
            // The workload fixes both lengths; the draws are kept so that
            // the latencies below stay those of earlier samples.
            let _ = (rng.f64(), rng.f64());
            let input_tokens = INPUT_TOKENS;
            let max_tokens = OUTPUT_TOKENS;
            let ttft = (4.6 + 1.2 * load + 0.9 * rng.normal()).clamp(2.2, 9.4);
            let tpot = (0.2565 + 0.004 * load + 0.0006 * rng.normal()).clamp(0.24, 0.29);
            // A few requests fail at the heavier point; the table shows them.
            let n = i.saturating_sub(p.warmup);
            let status = if !warm && *rate >= 1.0 && n % 97 == 41 {
                Status::Error
            } else if !warm && *rate >= 1.0 && n % 151 == 88 {
                Status::Timeout
            } else {
                Status::Ok
            };
            let (first, fin, out_tok) = match status {
                Status::Ok => {
                    let f = t6(sent + ttft);
                    (
                        Some(f),
                        Some(t6(f + tpot * (max_tokens - 1) as f64)),
                        max_tokens,
                    )
                }
                Status::Error => (None, Some(t6(sent + 0.731)), 0),
                _ => (Some(t6(sent + ttft)), None, 17),
            };
            let sent = t6(sent);
            if p.workload {
                let _ = writeln!(workload, "{{\"request_id\":\"{rid}\",\"input_tokens\":{input_tokens},\"max_tokens\":{max_tokens}}}");
            }
            let _ = writeln!(
                client,
                "{{\"request_id\":\"{rid}\",\"point\":\"{pname}\",\"warmup\":{warm},\"status\":\"{}\",\"sent_at\":{sent:.6},\"first_token_at\":{},\"finished_at\":{},\"input_tokens\":{input_tokens},\"output_tokens\":{out_tok}}}",
                status.as_str(),
                opt6(first),
                opt6(fin)
            );
            if !warm {
                let _ = acc.add(status, sent, first, fin, out_tok, SLO_TTFT_S, SLO_TPOT_S);
                window_start = window_start.min(sent);
                window_end = window_end.max(fin.or(first).unwrap_or(sent));
            }
            let engine = (i as usize) % ENGINES;
            let mut ev = |at: f64, text: String| {
                seq += 1;
                journal.push((at, seq, text));
            };
            ev(sent + 0.0004, format!("{{\"request_id\":\"{rid}\",\"point\":\"{pname}\",\"event\":\"received\",\"at\":{:.6}}}", sent + 0.0004));
            ev(
                sent + 0.0011,
                format!("{{\"request_id\":\"{rid}\",\"point\":\"{pname}\",\"event\":\"routed\",\"at\":{:.6},\"engine\":\"engine-{engine}\"}}", sent + 0.0011),
            );
            if let Some(f) = first {
                ev(f, format!("{{\"request_id\":\"{rid}\",\"point\":\"{pname}\",\"event\":\"first_token\",\"at\":{f:.6}}}"));
            }
            let end = fin.unwrap_or(sent + 600.0);
            previous_end = previous_end.max(end);
            ev(
                end + 0.0002,
                format!(
                    "{{\"request_id\":\"{rid}\",\"point\":\"{pname}\",\"event\":\"terminal\",\"at\":{:.6},\"status\":\"{}\"}}",
                    end + 0.0002,
                    status.as_str()
                ),
            );
        }
        let file = format!("benchmark/{pname}/client.jsonl");
        write(&run.join(&file), client.as_bytes());
        // One scrape every 5 s (longer for long points, so that a
        // collector report stays a few thousand scrapes); the lowest-rate
        // point's collector never saw router_flips_total.
        let interval = 5.0 * (p.requests as f64 / 200.0).max(1.0).ceil();
        let lowest = p.points.iter().all(|(_, r)| r >= rate);
        write(
            &run.join(format!("benchmark/{pname}/collector.json")),
            &pretty(&evidence::collector(
                window_start,
                window_end,
                interval,
                !lowest,
            )),
        );
        let m = acc.finish();
        let f3 = |v: Option<f64>| format!("{:.3}", v.expect("metric"));
        let f1 = |v: Option<f64>| format!("{:.1}", v.expect("metric"));
        points_json.push(json!({
            "name": pname, "offered_rate": rate, "requests": p.requests, "warmup": p.warmup,
            "client_records": file, "journal": "router-journal.jsonl",
            "claims": {
                "completed_rate": f3(m.completed_rate),
                "output_throughput": f1(m.output_throughput),
                "ttft_s": {"p50": f3(m.ttft_s[0]), "p95": f3(m.ttft_s[1]), "p99": f3(m.ttft_s[2])},
                "tpot_ms": {"p50": f1(m.tpot_ms[0]), "p95": f1(m.tpot_ms[1]), "p99": f1(m.tpot_ms[2])},
                "within_limits": m.within_limits
            }
        }));
    }
    if p.workload {
        write(&run.join("inputs/workload.jsonl"), workload.as_bytes());
    }
    journal.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let mut jtext = String::with_capacity(journal.len() * 100);
    for (_, _, line) in journal {
        jtext.push_str(&line);
        jtext.push('\n');
    }
    write(&run.join("router-journal.jsonl"), jtext.as_bytes());
    // The post-load check, two minutes after the last point's last answer.
    write(
        &run.join("post-load.json"),
        &pretty(&evidence::post_load(&proofpack::timefmt::rfc3339_utc(
            (previous_end + 120.0).ceil() as u64,
        ))),
    );

    let config_d = Sha256Digest::of_bytes(&config);
    let ek = engine_key();
    let mut engines = Vec::new();
    for e in 0..ENGINES {
        let st = engine_statement(
            e,
            &[
                ("weights.manifest", weights_manifest),
                ("config.json", config_d),
                ("engine-image", image),
            ],
            &image,
            MODEL,
        );
        let path = format!("attestations/engine-{e}.dsse.json");
        write(&run.join(&path), &sign_envelope(&st, &[&ek]));
        engines.push(json!({"id": format!("engine-{e}"), "attestation": path}));
    }
    // The record of the weights, with sizes and shard header digests, is
    // part of the run (v1.1): the host reports are held to it.
    let record_json = wm.to_json_record().expect("record");
    write(
        &run.join("manifests/weights.manifest.json"),
        record_json.as_bytes(),
    );
    // v1.1: each host's earlier full checkpoint manifest, one record per
    // host, every shard hashed: they agree with the weights record.
    for e in 0..ENGINES {
        write(
            &run.join(format!("manifests/hosts/{}.manifest.json", host_name(e))),
            record_json.as_bytes(),
        );
    }
    let fleet_digest = Sha256Digest::of_bytes(&fleet);
    // The launch check of every engine's host, sizes only, against the
    // weights manifest, with the config: what the write-up says was done.
    let record = Manifest::parse(record_json.as_bytes(), None, "weights")
        .expect("record parses")
        .0;
    let mut host_checks = Vec::new();
    for e in 0..ENGINES {
        let host = host_name(e);
        let mut h = proofpack::fleet::host_check(
            &weights,
            &record,
            "weights.manifest.json",
            &proofpack::fleet::HostCheckOptions {
                host: host.clone(),
                mode: proofpack::fleet::Mode::SizesOnly,
                // The config is hashed on the host, not stated: the
                // write-up says the launch checks confirmed its hash.
                config: Some(proofpack::fleet::ConfigSource::File(
                    run.join("inputs/config.json"),
                )),
                threads: 1,
                run: NAME.into(),
                fleet: fleet_digest,
            },
            &NoProgress,
        )
        .expect("host check");
        assert!(
            h.predicate.passed,
            "the sample's weights match their manifest"
        );
        // Fixed, so that the sample is byte-reproducible.
        h.predicate.root = "/models/moonshotai/Kimi-K3".into();
        h.predicate.config_source = Some("file /models/moonshotai/Kimi-K3/config.json".into());
        h.predicate.started_at = format!("2026-09-23T07:{:02}:10Z", 30 + e);
        h.predicate.finished_at = format!("2026-09-23T07:{:02}:12Z", 30 + e);
        let path = format!("hosts/{host}.dsse.json");
        write(
            &run.join(&path),
            &proofpack::fleet::sign_report(&h, &host_key()).expect("sign"),
        );
        host_checks.push(path);
    }
    let q = json!({
        "schema": "proofpack/qualification/v1",
        "name": NAME,
        "model": MODEL,
        "slo": {"ttft_s": SLO_TTFT_S, "tpot_s": SLO_TPOT_S, "attainment": SLO_ATTAINMENT},
        "engines": engines,
        "required_subjects": ["weights.manifest", "config.json", "engine-image"],
        "plan": "inputs/benchmark-plan.json",
        "facts": facts(),
        "host_checks": host_checks,
        "qualified_fleet": "inputs/fleet-qualified.json",
        "weights_record": "manifests/weights.manifest.json",
        "roles": {
            "client records": ["benchmark/*/client.jsonl"],
            "router journal": ["router-journal.jsonl"],
            "engine attestations": ["attestations/*.dsse.json"],
            "benchmark plan": ["inputs/benchmark-plan.json"],
            "collector reports": ["benchmark/*/collector.json"],
            "profile samples": ["profiles/*.json"],
            "preflight report": ["preflight.json"],
            "post-load check": ["post-load.json"],
            "inputs pinned above": ["inputs/*.json", "manifests/*"]
        },
        "points": points_json
    });
    write(&run.join("qualification.json"), &pretty(&q));
    Sample {
        run,
        weights,
        weights_manifest,
        config: config_d,
        fleet: Sha256Digest::of_bytes(&fleet),
        image,
    }
}

/// The facts of the sample's qualification.json (v1.1): none. Every row
/// of its write-up is checked through the evidence chain (the plan names
/// the workload, the qualified fleet and the revisions; the fleet names the
/// profile store), so nothing rests on a pointer the publisher chose.
pub fn facts() -> Value {
    json!([])
}

/// PEM files of a key pair.
pub fn write_keys(dir: &Path, prefix: &str, k: &SigningKey) {
    // PKCS#8 v1 (RFC 8410), as `proofpack key gen` writes: OpenSSL 3.0 and
    // Python's cryptography do not read the v2 form ed25519-dalek writes.
    let private = proofpack::keys::private_key_pem(k);
    let public = k
        .verifying_key()
        .to_public_key_pem(LineEnding::LF)
        .expect("spki");
    write(&dir.join(format!("{prefix}.key")), private.as_bytes());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = fs::set_permissions(
            dir.join(format!("{prefix}.key")),
            fs::Permissions::from_mode(0o600),
        );
    }
    write(&dir.join(format!("{prefix}.pub")), public.as_bytes());
}

/// A trust file for the given (key, roles, label) triples.
pub fn trust_json(keys: &[(&SigningKey, &[&str], &str)]) -> Vec<u8> {
    let ks: Vec<Value> = keys
        .iter()
        .map(|(k, roles, label)| {
            json!({
                "keyid": key_id(k),
                "roles": roles,
                "public_key": k.verifying_key().to_public_key_pem(LineEnding::LF).expect("spki"),
                "label": label
            })
        })
        .collect();
    pretty(&json!({"schema": "proofpack/trust/v1", "keys": ks}))
}

/// The pins file for a sample (bundle digest optional: run-dir tests).
pub fn pins_json(s: &Sample, bundle: Option<Sha256Digest>) -> Vec<u8> {
    let mut pins = Vec::new();
    if let Some(b) = bundle {
        pins.push(json!({"name": "bundle", "sha256": b.to_hex()}));
    }
    pins.push(
        json!({"name": "weights.manifest", "sha256": s.weights_manifest.to_hex(), "files": SHARDS}),
    );
    pins.push(json!({"name": "config.json", "sha256": s.config.to_hex()}));
    pins.push(json!({"name": "qualified-fleet", "path": "inputs/fleet-qualified.json", "sha256": s.fleet.to_hex()}));
    pins.push(json!({"name": "engine-image", "sha256": s.image.to_hex()}));
    pretty(&json!({"schema": "proofpack/pins/v1", "pins": pins}))
}
