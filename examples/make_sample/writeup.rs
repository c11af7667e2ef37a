//! The sample's write-up (`PUBLICATION.md`), written from the same data
//! as the run: every number, digest and sentence a reader sees is one the
//! run's evidence holds.

use std::fmt::Write as _;
use std::fs;

use proofpack::digest::Sha256Digest;
use serde_json::Value;

use super::evidence;
use super::*;

/// The sample's write-up, in the layout of real qualification write-ups
/// exported from a docs site (headings ending in `¶`, pipe tables, prose
/// between them), every value taken from the run and its bundle.
pub fn publication(s: &Sample, bundle: &Sha256Digest) -> String {
    let q: Value = serde_json::from_slice(
        &fs::read(s.run.join("qualification.json")).expect("read qualification.json"),
    )
    .expect("qualification.json");
    let digest_of = |rel: &str| {
        Sha256Digest::of_bytes(&fs::read(s.run.join(rel)).expect("read an input")).to_hex()
    };
    let mut t = String::new();
    // Every sentence is one proofpack reads (section 9.6): the title is
    // checked against the run's model; that the numbers are synthetic is
    // said in testdata/sample/README.md, where no sentence is checked.
    let _ = writeln!(t, "Kimi-K3 GPU benchmark qualification¶");
    let _ = writeln!(t);
    let _ = writeln!(t, "Pinned inputs¶");
    let _ = writeln!(t, "| Input | Value |");
    let _ = writeln!(t, "|---|---|");
    let _ = writeln!(t, "| Narwhal router source | {ROUTER_COMMIT} |");
    let _ = writeln!(t, "| Benchmark client source | {CLIENT_COMMIT} |");
    let _ = writeln!(t, "| Model | {MODEL} |");
    let _ = writeln!(
        t,
        "| Engine | vLLM {ENGINE_VERSION}, image {} |",
        s.image.prefixed()
    );
    let _ = writeln!(
        t,
        "| Accelerator per engine | AMD Instinct MI355X, eight GPUs, tensor parallelism 8 |"
    );
    let _ = writeln!(
        t,
        "| Checkpoint weights | {SHARDS} safetensors shards; SHA-256 of the sorted path:sha256 manifest is {} |",
        s.weights_manifest.to_hex()
    );
    let _ = writeln!(t, "| Model config SHA-256 | {} |", s.config.to_hex());
    let _ = writeln!(
        t,
        "| Fleet latency budgets | {} s TTFT, {} s TPOT; first-token deadline {FIRST_TOKEN_DEADLINE_S} s |",
        SLO_TTFT_S, SLO_TPOT_S
    );
    let _ = writeln!(
        t,
        "| Workload | 8,192 input tokens, {OUTPUT_TOKENS} output tokens, seed {WORKLOAD_SEED}, temperature 0, prefix caching disabled; 20 distinct IDs in a 28-token pool |"
    );
    let _ = writeln!(
        t,
        "| Profile store SHA-256 | {} |",
        digest_of("inputs/profile-store.json")
    );
    let _ = writeln!(t, "| Qualified fleet SHA-256 | {} |", s.fleet.to_hex());
    let _ = writeln!(
        t,
        "| Benchmark plan SHA-256 | {} |",
        digest_of("inputs/benchmark-plan.json")
    );
    let _ = writeln!(
        t,
        "| Workload SHA-256 | {} |",
        digest_of("inputs/workload.json")
    );
    let _ = writeln!(t);
    // The prose states what the evidence files of the run hold, each
    // sentence in a form contract section 9.6 reads (v1.1).
    let prefill = (0..ENGINES)
        .map(evidence::prefill_median)
        .fold(f64::NEG_INFINITY, f64::max);
    let margin = SLO_TTFT_S - FIRST_TOKEN_DEADLINE_S - prefill;
    let _ = writeln!(t, "The launch checks confirmed every shard's recorded size and the model config hash on every engine. Earlier full checkpoint manifests agree on all weight shard hashes. Live profiles measured 8,192-token prefill medians around {prefill:.2} s and decode intercepts from {:.4} to {:.4} s/token.", evidence::decode_intercept(0, ENGINES), evidence::decode_intercept(ENGINES - 1, ENGINES));
    let _ = writeln!(t);
    let _ = writeln!(t, "Direct probes with a wider observation window completed on every permitted path; first-token latency ranged from {} to {} s. The qualified fleet copy changes only first_token_deadline_s to {FIRST_TOKEN_DEADLINE_S} s, above the observed maximum and leaving about {margin:.2} s of the {SLO_TTFT_S} s TTFT budget after the measured prefill if the deadline is exhausted. The preflight passed its weights-manifest, engine-images, health and clock-skew gates.", evidence::PROBE_MIN_S, evidence::PROBE_MAX_S);
    let _ = writeln!(t);
    let _ = writeln!(t, "The benchmark plan declares ordered 0.5 and 1 request/s points, 200 requests each. It points to the qualified fleet copy and records the pinned benchmark client revision. Both points use the client with {}.", CLIENT_ARGS.join(" "));
    let _ = writeln!(t, "Measured points¶");
    let (mut rows, mut total) = (String::new(), [0; 4]);
    for p in q["points"].as_array().expect("points") {
        let c = &p["claims"];
        let st = |v: &Value| v.as_str().expect("claim").to_string();
        let rate = p["offered_rate"].as_f64().expect("rate");
        let within = c["within_limits"].as_u64().expect("within");
        let requests = p["requests"].as_u64().expect("requests");
        let file = p["client_records"].as_str().expect("file");
        let text = fs::read_to_string(s.run.join(file)).expect("records");
        let count = |status: &str| {
            text.lines()
                .filter(|l| {
                    l.contains("\"warmup\":false")
                        && l.contains(&format!("\"status\":\"{status}\""))
                })
                .count() as u64
        };
        let mut result = format!("{within}/{requests} within limits");
        let (failed, timed_out) = (count("error"), count("timeout"));
        if failed + timed_out > 0 {
            result.push_str(&format!(", {failed} failed, {timed_out} timed out"));
        }
        for (t, v) in total.iter_mut().zip([within, requests, failed, timed_out]) {
            *t += v;
        }
        let _ = writeln!(
            rows,
            "| {rate} request/s | {} request/s | {} tokens/s | {} / {} / {} s | {} / {} / {} ms | {result} |",
            st(&c["completed_rate"]),
            st(&c["output_throughput"]),
            st(&c["ttft_s"]["p50"]),
            st(&c["ttft_s"]["p95"]),
            st(&c["ttft_s"]["p99"]),
            st(&c["tpot_ms"]["p50"]),
            st(&c["tpot_ms"]["p95"]),
            st(&c["tpot_ms"]["p99"]),
        );
    }
    let [w, n, f, to] = total;
    let _ = writeln!(
        t,
        "Both points completed {w}/{n} within limits, {f} failed, {to} timed out. The table excludes one completed warmup request per point; the client and the router journal each recorded 201 terminal requests including that warmup."
    );
    let _ = writeln!(t);
    let _ = writeln!(
        t,
        "Both intervals have complete scrape coverage and matching client and journal outcome counts. The lower-rate point records one counter_missing diagnostic for router_flips_total. The higher-rate point passed all collector checks. A post-load KV ring check passed after the second drain."
    );
    let _ = writeln!(t);
    let _ = writeln!(t, "| Offered rate | Completed rate including drain | Output throughput including drain | TTFT p50 / p95 / p99 | TPOT p50 / p95 / p99 | Result |");
    let _ = writeln!(t, "|---|---|---|---|---|---|");
    t.push_str(&rows);
    let _ = writeln!(t);
    let _ = writeln!(
        t,
        "The retained artifact bundle is {NAME}.tgz (SHA-256 {}). It contains the client records, the router journal, the engine attestations, the benchmark plan, the collector reports, the profile samples, the preflight report, the post-load check and the inputs pinned above.",
        bundle.to_hex()
    );
    t
}
