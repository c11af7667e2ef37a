//! The `<stat>_<metric>_ms` keys of a result file (`p99_ttft_ms`,
//! `median_e2e_latency_ms`) and the numpy statistic each names.

use crate::numpy::Stats;

/// A per-request metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// Time to first token.
    Ttft,
    /// Time per output token after the first.
    Tpot,
    /// Inter-token (inter-chunk) latency, all gaps flattened.
    Itl,
    /// End-to-end latency.
    E2el,
}

/// A `<stat>` of a `<stat>_<metric>_ms` key.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Stat {
    /// `np.mean`.
    Mean,
    /// `np.median`.
    Median,
    /// `np.std`.
    Std,
    /// `np.max`.
    Max,
    /// `np.percentile(.., p)`.
    P(f64),
}

/// Splits `p99_ttft_ms` into `(P(99), "ttft")`.
pub fn parse_stat_key(key: &str) -> Option<(Stat, &str)> {
    let body = key.strip_suffix("_ms")?;
    let (stat, metric) = body.split_once('_')?;
    let stat = match stat {
        "mean" => Stat::Mean,
        "median" => Stat::Median,
        "std" => Stat::Std,
        "max" => Stat::Max,
        p => {
            let digits = p.strip_prefix('p')?;
            let ok = !digits.is_empty()
                && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
                && digits.bytes().filter(|b| *b == b'.').count() <= 1
                && !digits.starts_with('.')
                && !digits.ends_with('.');
            let v: f64 = if ok {
                digits.parse().ok()?
            } else {
                return None;
            };
            if !(0.0..=100.0).contains(&v) {
                return None;
            }
            Stat::P(v)
        }
    };
    Some((stat, metric))
}

impl Stat {
    /// The statistic of `s`.
    pub fn apply(self, s: &Stats) -> f64 {
        match self {
            Stat::Mean => s.mean(),
            Stat::Median => s.median(),
            Stat::Std => s.std(),
            Stat::Max => s.max(),
            Stat::P(p) => s.percentile(p),
        }
    }
    /// The numpy call, for details.
    pub fn numpy(self) -> String {
        match self {
            Stat::Mean => "np.mean".into(),
            Stat::Median => "np.median".into(),
            Stat::Std => "np.std".into(),
            Stat::Max => "np.max".into(),
            Stat::P(p) => format!("np.percentile(.., {p})"),
        }
    }
}

/// The values a family's statistic is over, for details.
pub fn family_values(f: Family) -> &'static str {
    match f {
        Family::Ttft => "ttfts of successful requests",
        Family::Tpot => {
            "(latencies - ttfts) / (output_lens - 1) of successful requests with output_lens > 1"
        }
        Family::Itl => "every itls entry of successful requests, flattened",
        Family::E2el => "latencies of successful requests",
    }
}
