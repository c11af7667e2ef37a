//! The sample's evidence of how the run was made (contract v1.1, section
//! 9.6): the direct probes' report, each engine's live profile samples,
//! each point's collector report with its metric samples, and the
//! post-load check. Deterministic, so that the sample is byte-reproducible;
//! the write-up's sentences about them are written from the same values.

use serde_json::{json, Value};

/// The probes' least and greatest first-token latency, as the write-up
/// states them.
pub const PROBE_MIN_S: &str = "0.401";
/// See [`PROBE_MIN_S`].
pub const PROBE_MAX_S: &str = "5.102";

/// The direct probes between the engines (every ordered pair is a permitted
/// KV-handoff path), each completed, with a first-token latency; the first
/// and the last are the least and the greatest.
pub fn probes(engines: usize) -> Value {
    let mut out = Vec::new();
    let pairs: Vec<(usize, usize)> = (0..engines)
        .flat_map(|a| (0..engines).filter(move |b| *b != a).map(move |b| (a, b)))
        .collect();
    let n = pairs.len();
    let lo: f64 = PROBE_MIN_S.parse().expect("number");
    let hi: f64 = PROBE_MAX_S.parse().expect("number");
    for (k, (a, b)) in pairs.into_iter().enumerate() {
        // Spread between the two ends, the ends exactly as written.
        let t = if k == 0 {
            lo
        } else if k + 1 == n {
            hi
        } else {
            let x = lo + (hi - lo) * ((k * 7) % n) as f64 / n as f64;
            (x * 1000.0).round() / 1000.0
        };
        out.push(json!({"from": format!("engine-{a}"), "to": format!("engine-{b}"), "status": "ok", "first_token_s": t}));
    }
    json!({"window_s": 20.0, "probes": out})
}

/// The prefill median (seconds, 8,192-token prompts) engine `e`'s samples
/// give; the greatest of them is what the margin sentence subtracts.
pub fn prefill_median(e: usize) -> f64 {
    0.876 + 0.002 * e as f64
}

/// The decode intercept (seconds per token) of engine `e` out of `n`: from
/// 0.2391 to 0.2399.
pub fn decode_intercept(e: usize, n: usize) -> f64 {
    0.2391 + 0.0008 * e as f64 / (n.max(2) - 1) as f64
}

/// Engine `e`'s live profile samples: five prefills of `tokens`-token
/// prompts around its median, and decode times per token at four context
/// lengths on a straight line of its intercept.
pub fn profile_samples(e: usize, n: usize, tokens: u64) -> Value {
    let m = prefill_median(e);
    let prefill: Vec<Value> = [-0.004, -0.002, 0.0, 0.001, 0.003]
        .iter()
        .map(|d| json!({"tokens": tokens, "seconds": ((m + d) * 1e6).round() / 1e6}))
        .collect();
    let b = decode_intercept(e, n);
    let decode: Vec<Value> = [8192u64, 8256, 8320, 8384]
        .iter()
        .map(|c| json!({"context_tokens": c, "seconds_per_token": ((b + 2.0e-7 * *c as f64) * 1e9).round() / 1e9}))
        .collect();
    json!({"engine": format!("engine-{e}"), "prefill": prefill, "decode": decode})
}

/// The counters every point's collector scrapes.
pub const COUNTERS: [&str; 3] = [
    "router_requests_total",
    "router_kv_handoffs_total",
    "router_flips_total",
];

/// A point's collector report: a scrape every `interval` seconds from
/// before the point's first measured send to after its last answer, each
/// scrape a sample of every counter (`router_flips_total` left out when
/// `flips` is false: one counter_missing diagnostic).
pub fn collector(start: f64, end: f64, interval: f64, flips: bool) -> Value {
    let mut samples = Vec::new();
    let mut t = (start / interval).floor() * interval - interval;
    let mut k = 0u64;
    while t <= end + interval {
        for (i, c) in COUNTERS.iter().enumerate() {
            if !flips && *c == "router_flips_total" {
                continue;
            }
            samples.push(json!({"t": t, "metric": c, "value": k * (i as u64 + 1)}));
        }
        t += interval;
        k += 1;
    }
    json!({"scrape_interval_s": interval, "counters": COUNTERS, "samples": samples})
}

/// The post-load check, made at `checked_at`.
pub fn post_load(checked_at: &str) -> Value {
    json!({
        "name": "KV ring",
        "checked_at": checked_at,
        "checks": [
            {"name": "kv-ring-intact", "ok": true},
            {"name": "no-leaked-blocks", "ok": true}
        ]
    })
}
