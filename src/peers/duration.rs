//! `<prefix>.duration`: the wall time a result states is at least
//! the time its own per-request arrays span. Every throughput divides by
//! `duration`, so a duration divided by ten, recomputed consistently into
//! the throughputs, would otherwise verify: the arrays are what bounds it.
//!
//! A request ends at `start_times[i] + latencies[i]`; without `latencies`,
//! at `start_times[i] + ttfts[i] + sum(itls[i])`, which is at most its
//! latency (the last chunk arrives at the end, and ITLs are the gaps after
//! the first token), so the bound stays a lower bound. The span is the
//! latest end minus the earliest start, over every request (failed ones
//! too: the benchmark waited for them). Without `start_times` the span
//! cannot be computed and the check says so: `duration` is then only held
//! to the longest single request.

use super::json::Scalar;
use super::results::Arrays;
use super::tolerance::close;
use crate::report::Check;

/// The per-request time each request took (a lower bound when it is
/// rebuilt from TTFT and ITLs), and how it was computed.
fn request_times(a: &Arrays, n: usize) -> Option<(Vec<f64>, &'static str)> {
    if let Some(l) = &a.latencies {
        return Some((l.clone(), "latencies"));
    }
    let t = a.ttfts.as_ref()?;
    let mut v = t.clone();
    if let Some(itls) = &a.itls {
        for (i, x) in v.iter_mut().enumerate().take(n) {
            *x += itls.sum(i);
        }
        Some((
            v,
            "ttfts + sum(itls), a lower bound of each latency (latencies were not saved)",
        ))
    } else {
        Some((
            v,
            "ttfts, a lower bound of each latency (neither latencies nor itls were saved)",
        ))
    }
}

/// How the arrays stand for this check: usable, summary only, or not
/// checkable because the arrays check failed (its reason).
pub enum ArraysState<'a> {
    /// One entry per request in every array.
    Usable(usize),
    /// No per-request arrays.
    SummaryOnly,
    /// `<prefix>.arrays` failed.
    Blocked(&'a str),
}

/// The check of the duration field `key` (as written) with value `value`.
pub fn check_duration(id: &str, key: &str, value: &Scalar, a: &Arrays, st: ArraysState) -> Check {
    let d = match value {
        Scalar::Num { value, .. } => *value,
        Scalar::Null => {
            return Check::skip(id, format!("{key} is null in the file: nothing to check"))
        }
        other => {
            return Check::fail(
                id,
                format!("{key} is {} in the file, not a number", other.kind()),
            )
        }
    };
    let n = match st {
        ArraysState::SummaryOnly => {
            return Check::skip(
                id,
                format!("summary only: {key} cannot be held to the requests' span without the per-request arrays (saved with --save-detailed / --output-details)"),
            )
        }
        ArraysState::Blocked(why) => return Check::not_checkable(id, why),
        ArraysState::Usable(n) => n,
    };
    if d <= 0.0 {
        return Check::fail(
            id,
            format!("{key} is {d} s: a benchmark's wall time is positive"),
        );
    }
    if n == 0 {
        return Check::skip(id, format!("{key}: no requests in the arrays to bound it"));
    }
    let Some((times, src)) = request_times(a, n) else {
        return Check::skip(
            id,
            format!(
                "{key}: neither latencies nor ttfts were saved, so no request's time bounds it"
            ),
        );
    };
    let (bound, what) = match &a.start_times {
        Some(s) => {
            let first = s.iter().copied().fold(f64::INFINITY, f64::min);
            let last = s
                .iter()
                .zip(&times)
                .map(|(s, t)| s + t)
                .fold(f64::NEG_INFINITY, f64::max);
            (
                last - first,
                format!("the span of the {n} requests (latest start_times[i] + time[i] minus earliest start_times[i]; time = {src})"),
            )
        }
        None => (
            times.iter().copied().fold(0.0, f64::max),
            format!("the longest of the {n} requests (time = {src}); start_times were not saved, so the span of the requests cannot be computed and only the longest request bounds {key}"),
        ),
    };
    let ok = d >= bound || close(d, bound);
    let detail = if ok {
        format!("{key} = {d} s is at least {bound} s, {what}")
    } else {
        format!("{key} is {d} s, but the file's own arrays need at least {bound} s: {what}; every throughput divides by this duration")
    };
    Check::outcome(id, ok, detail).with_values(bound, d)
}
