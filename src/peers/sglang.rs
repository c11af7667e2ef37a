//! SGLang's `python -m sglang.bench_serving` results: JSON Lines, one
//! object per run, by the definitions of `calculate_metrics` and
//! `benchmark` in sgl-project/sglang `python/sglang/bench_serving.py` (read
//! at commit 0033168); see docs/peers.md.
//!
//! - The same per-request arrays as vLLM's (`input_lens`, `output_lens`,
//!   `ttfts`, `itls`, `generated_texts`, `errors`) with `--output-details`,
//!   but no `latencies`: TPOT (`(latency - ttft) / (output_len - 1)`), E2E
//!   latency and `concurrency` (`sum(latencies) / duration`) cannot be
//!   recomputed and are reported as not checkable from the file.
//! - `output_lens` are the server-reported output lengths; the
//!   `*_retokenized` fields re-tokenize the generated text with the model's
//!   tokenizer, which proofpack does not have.
//! - Statistics are numpy's as in vLLM, over successful requests;
//!   throughputs divide by `duration`; there is no `failed` field.

use super::serving::{Family, Formula, ToolDef};

/// SGLang's definitions.
pub const SGLANG: ToolDef = ToolDef {
    name: "SGLang bench_serving",
    source: "sgl-project/sglang python/sglang/bench_serving.py (calculate_metrics, benchmark) at 0033168",
    throughputs: &[
        ("request_throughput", Formula::Completed),
        ("input_throughput", Formula::Input),
        ("output_throughput", Formula::Output),
        ("total_throughput", Formula::InputPlusOutput),
        ("total_token_throughput", Formula::InputPlusOutput),
    ],
    families: &[
        ("ttft", Family::Ttft),
        ("tpot", Family::Tpot),
        ("itl", Family::Itl),
        ("e2e_latency", Family::E2el),
    ],
    unsupported: &[
        ("total_output_tokens_retokenized", "re-tokenizes the generated texts with the model's tokenizer, which proofpack does not have"),
        ("output_throughput_retokenized", "re-tokenizes the generated texts with the model's tokenizer, which proofpack does not have"),
        ("total_throughput_retokenized", "re-tokenizes the generated texts with the model's tokenizer, which proofpack does not have"),
        ("concurrency", "sum of end-to-end latencies / duration: SGLang does not save per-request latencies"),
        ("accept_length", "speculative-decoding acceptance reported by the server, not by the client's records"),
    ],
    markers: &[
        "total_output_tokens_retokenized",
        "input_throughput",
        "accept_length",
        "mean_e2e_latency_ms",
        "concurrency",
        "random_range_ratio",
    ],
};
