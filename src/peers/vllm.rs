//! vLLM's `vllm bench serve` (formerly `benchmarks/benchmark_serving.py`)
//! result files, by the definitions of `calculate_metrics` in
//! vllm-project/vllm `vllm/benchmarks/serve.py` (read at commit 009e6d4)
//! and of the older `benchmarks/benchmark_serving.py`; see docs/peers.md.
//!
//! - A request succeeded when its `errors` entry is empty (the client sets
//!   the error text only on failure); `completed` counts those, `failed`
//!   the others, and every statistic is over successful requests only.
//! - TTFT: `ttfts[i]`; E2EL: `latencies[i]`; TPOT: `(latencies[i] -
//!   ttfts[i]) / (output_lens[i] - 1)` for requests with `output_lens[i] >
//!   1`; ITL: every entry of `itls[i]` of every successful request, in
//!   order, flattened.
//! - `mean`/`median`/`std`/`pN` are `np.mean`, `np.median`, `np.std`
//!   (population) and `np.percentile` (linear) of `values or 0`, times
//!   1000 (milliseconds).
//! - Throughputs divide by `duration`, the whole benchmark's wall time,
//!   failed requests included: request throughput `completed / duration`,
//!   output `sum(output_lens) / duration`, total `(total_input +
//!   total_output) / duration`, where `total_input` sums the prompt lengths
//!   of successful requests only.

use super::serving::{Family, Formula, ToolDef};

/// vLLM's definitions.
pub const VLLM: ToolDef = ToolDef {
    name: "vLLM bench serve",
    source: "vllm-project/vllm vllm/benchmarks/serve.py (calculate_metrics, benchmark) at 009e6d4",
    throughputs: &[
        ("request_throughput", Formula::Completed),
        ("output_throughput", Formula::Output),
        ("total_token_throughput", Formula::InputPlusOutput),
    ],
    families: &[
        ("ttft", Family::Ttft),
        ("tpot", Family::Tpot),
        ("itl", Family::Itl),
        ("e2el", Family::E2el),
        // benchmark_serving.py forks (and early versions) name E2EL "latency".
        ("latency", Family::E2el),
    ],
    unsupported: &[
        ("request_goodput", "goodput counts requests within the --goodput SLOs, which the result file does not record"),
        ("max_output_tokens_per_s", "peak output tokens per one-second bucket: its bucketing changed between vLLM versions and is not recomputed"),
        ("max_concurrent_requests", "peak concurrency: its definition changed between vLLM versions (bucketed, then a sweep line) and is not recomputed"),
        ("rtfx", "needs the audio durations of the inputs, which the file does not record"),
        ("client_queue_time", "client queue times are saved only as queue_times, which proofpack does not recompute"),
        ("e2el_including_client_queue", "needs client queue times (queue_times), which proofpack does not recompute"),
    ],
    markers: &[
        "num_prompts",
        "failed",
        "total_token_throughput",
        "endpoint_type",
        "burstiness",
        "latencies",
        "start_times",
        "request_goodput",
        "request_goodput:",
        "max_concurrent_requests",
    ],
};

#[cfg(test)]
mod tests {
    use super::VLLM;
    use crate::peers::results::parse_results;
    use crate::peers::serving::{check_object, Checked};

    fn checked(text: &str) -> Checked {
        let objs = parse_results(text.as_bytes(), std::path::Path::new("t.json")).unwrap();
        check_object(&objs[0], &VLLM, "result")
    }

    #[test]
    fn missing_success() {
        // No errors array and completed != entries: success per request is
        // unknown, so the array fields are ok:null, not failures.
        let c = checked(
            r#"{"duration": 2.0, "completed": 1, "ttfts": [0.1, 0.2], "mean_ttft_ms": 150.0, "request_throughput": 0.5}"#,
        );
        let get = |c: &Checked, id: &str| c.checks.iter().find(|x| x.id == id).unwrap().ok();
        assert_eq!(get(&c, "result.mean_ttft_ms"), None);
        assert_eq!(get(&c, "result.request_throughput"), Some(true));
        // completed equal to the entries: all successful, recomputed.
        let c = checked(
            r#"{"duration": 2.0, "completed": 2, "ttfts": [0.1, 0.2], "mean_ttft_ms": 150.0}"#,
        );
        assert_eq!(get(&c, "result.mean_ttft_ms"), Some(true));
    }
}
