//! The recomputation shared by the vLLM and SGLang readers: every summary
//! field of a result object, recomputed from its per-request arrays by the
//! producing tool's definitions ([`ToolDef`]), one check per field.

use serde_json::{json, Value};

pub use super::stat_key::Family;
pub use super::tolerance::{close, REL_TOLERANCE};

use super::duration::{check_duration, ArraysState};
use super::json::{Scalar, RAGGED_KEPT_VALUES};
use super::results::{Arrays, ResultObject};
use super::stat_key::{family_values, parse_stat_key, Stat};
use crate::numpy::Stats;
use crate::report::Check;

/// How a throughput field is defined (all divide by `duration`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Formula {
    /// `completed / duration`.
    Completed,
    /// `total_input_tokens / duration`.
    Input,
    /// `total_output_tokens / duration`.
    Output,
    /// `(total_input_tokens + total_output_tokens) / duration`.
    InputPlusOutput,
}

impl Formula {
    fn text(self) -> &'static str {
        match self {
            Formula::Completed => "completed / duration",
            Formula::Input => "total_input_tokens / duration",
            Formula::Output => "total_output_tokens / duration",
            Formula::InputPlusOutput => "(total_input_tokens + total_output_tokens) / duration",
        }
    }
}

/// A benchmark client's definitions.
#[derive(Debug)]
pub struct ToolDef {
    /// The tool, for messages.
    pub name: &'static str,
    /// Where the definitions were read.
    pub source: &'static str,
    /// Throughput fields and their formulas.
    pub throughputs: &'static [(&'static str, Formula)],
    /// Metric names as they appear in `<stat>_<name>_ms` keys.
    pub families: &'static [(&'static str, Family)],
    /// Fields the file cannot support, with the reason.
    pub unsupported: &'static [(&'static str, &'static str)],
    /// Keys only this tool writes (format detection).
    pub markers: &'static [&'static str],
}

/// What was recomputed from one result's arrays (for the claims and row
/// cross-checks).
#[derive(Debug, Clone)]
pub struct Recomputed {
    /// Successful requests.
    pub completed: u64,
    /// Failed requests.
    pub failed: u64,
    /// Prompt tokens of successful requests.
    pub total_input: Option<f64>,
    /// Output tokens of successful requests.
    pub total_output: Option<f64>,
    /// Per family, its values (None: the arrays cannot support it, and why).
    pub stats: Vec<(Family, Result<Stats, String>)>,
}

impl Recomputed {
    /// The statistics of a family, if the arrays support it.
    pub fn family(&self, f: Family) -> Result<&Stats, &str> {
        match self.stats.iter().find(|(g, _)| *g == f) {
            Some((_, Ok(s))) => Ok(s),
            Some((_, Err(why))) => Err(why),
            None => Err("not recomputed"),
        }
    }
}

/// The outcome of checking one result object.
#[derive(Debug)]
pub struct Checked {
    /// The checks, one per field (plus the arrays and counts).
    pub checks: Vec<Check>,
    /// True when the object had no per-request arrays.
    pub summary_only: bool,
    /// What the arrays gave, when they were usable.
    pub recomputed: Option<Recomputed>,
}

/// Which requests succeeded, and how that was decided.
fn successes(obj: &ResultObject, n: usize) -> Result<(Vec<bool>, &'static str), String> {
    if let Some(s) = &obj.arrays.success {
        return Ok((s.clone(), "errors[i] empty"));
    }
    match obj.num("completed") {
        Some(c) if c == n as f64 => Ok((vec![true; n], "no errors array; completed equals the number of entries, so every entry counts as successful")),
        _ => Err("the errors array was not saved, so which requests succeeded is unknown".into()),
    }
}

fn stats_of(a: &Arrays, ok: &[bool]) -> Vec<(Family, Result<Stats, String>)> {
    let pick = |v: &Option<Vec<f64>>, name: &str| -> Result<Vec<f64>, String> {
        match v {
            Some(v) => Ok(v
                .iter()
                .zip(ok)
                .filter(|(_, s)| **s)
                .map(|(x, _)| *x)
                .collect()),
            None => Err(format!("the per-request array {name} was not saved")),
        }
    };
    let ttft = pick(&a.ttfts, "ttfts");
    let e2el = pick(&a.latencies, "latencies");
    let itl = match &a.itls {
        Some(r) if !r.values_kept() => Err(format!(
            "the file holds more than {RAGGED_KEPT_VALUES} inter-token latencies, which proofpack keeps only as each request's sum (its memory bound), so their statistics are not recomputed"
        )),
        Some(r) => {
            let mut v = Vec::new();
            for (i, s) in ok.iter().enumerate() {
                if *s {
                    v.extend_from_slice(r.row(i).unwrap_or_default());
                }
            }
            Ok(v)
        }
        None => Err("the per-request array itls was not saved".to_string()),
    };
    let tpot = match (&a.latencies, &a.ttfts, &a.output_lens) {
        (Some(l), Some(t), Some(o)) => {
            let mut v = Vec::new();
            for i in 0..ok.len() {
                if ok[i] && o[i] > 1.0 {
                    v.push((l[i] - t[i]) / (o[i] - 1.0));
                }
            }
            Ok(v)
        }
        (None, _, _) => Err("per-request end-to-end latencies (latencies) were not saved; TPOT = (latency - ttft) / (output_len - 1) needs them".to_string()),
        _ => Err("TPOT needs ttfts and output_lens, which were not saved".to_string()),
    };
    vec![
        (Family::Ttft, ttft.map(Stats::new)),
        (Family::Tpot, tpot.map(Stats::new)),
        (Family::Itl, itl.map(Stats::new)),
        (Family::E2el, e2el.map(Stats::new)),
    ]
}

// The check is the answer when there is no number: boxing it buys nothing.
#[allow(clippy::result_large_err)]
fn published(id: &str, key: &str, v: &Scalar) -> Result<f64, Check> {
    match v {
        Scalar::Num { value, .. } => Ok(*value),
        Scalar::Null => Err(Check::skip(
            id,
            format!("{key} is null in the file: nothing published to check"),
        )),
        other => Err(Check::fail(
            id,
            format!("{key} is {} in the file, not a number", other.kind()),
        )),
    }
}

/// True for a key that names a measured result (a throughput, a latency,
/// a token count) rather than a run parameter.
fn looks_like_result(key: &str) -> bool {
    let key = key.to_lowercase();
    const WORDS: [&str; 8] = [
        "throughput",
        "goodput",
        "latency",
        "ttft",
        "tpot",
        "itl",
        "e2el",
        "tokens",
    ];
    WORDS.iter().any(|w| key.contains(w)) || key.ends_with("_ms") || key.ends_with("_per_s")
}

/// A float as a reader wants it: shortest round-trip digits, in exponent
/// form when plain digits would run to dozens of zeros (1e-300, 1e300).
fn shown(x: f64) -> String {
    if x != 0.0 && x.is_finite() && !(1e-6..1e16).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

fn compare(id: &str, key: &str, formula: &str, recomputed: f64, file: f64, exact: bool) -> Check {
    let ok = if exact {
        recomputed == file
    } else {
        close(recomputed, file)
    };
    let tol = if exact {
        "exact"
    } else {
        "relative tolerance 1e-9"
    };
    let (r, f) = (shown(recomputed), shown(file));
    let detail = if ok {
        format!("{key} = {formula} = {r} ({tol})")
    } else {
        format!("{key} = {formula} = {r}, but the file has {f} ({tol})")
    };
    Check::outcome(id, ok, detail).with_values(json!(recomputed), json!(file))
}

/// The value of a `Result<T, Check>`, or the check pushed and the loop
/// continued.
macro_rules! or_push {
    ($e:expr, $checks:ident) => {
        match $e {
            Ok(v) => v,
            Err(c) => {
                $checks.push(c);
                continue;
            }
        }
    };
}

/// Checks one result object by `def`'s definitions; ids start with `prefix`.
pub fn check_object(obj: &ResultObject, def: &ToolDef, prefix: &str) -> Checked {
    let mut checks = Vec::new();
    let lens = obj.arrays.lengths();
    let summary_only = lens.is_empty();
    // Arrays: all one length.
    // A failed arrays check makes what needs the arrays "not checkable";
    // an unknown success per request (no errors array) makes it ok:null.
    let mut blocked: Option<String> = None;
    let mut unknown_success: Option<String> = None;
    let mut n = 0usize;
    if !summary_only {
        let mut counts: Vec<(usize, usize)> = Vec::new();
        for (_, l) in &lens {
            match counts.iter_mut().find(|(v, _)| v == l) {
                Some((_, c)) => *c += 1,
                None => counts.push((*l, 1)),
            }
        }
        n = counts
            .iter()
            .max_by_key(|(_, c)| *c)
            .map(|(v, _)| *v)
            .unwrap_or(0);
        let listed: Vec<String> = lens.iter().map(|(k, l)| format!("{k} {l}")).collect();
        let odd: Vec<&str> = lens
            .iter()
            .filter(|(_, l)| *l != n)
            .map(|(k, _)| *k)
            .collect();
        let id = format!("{prefix}.arrays");
        if odd.is_empty() {
            checks.push(Check::pass(
                id,
                format!("{} per-request arrays of {n} entries each", lens.len()),
            ));
        } else {
            let why = format!("per-request arrays differ in length ({}): {} differ from the {n} entries of the others; every array holds one entry per request", listed.join(", "), odd.join(", "));
            checks.push(Check::fail(&id, why));
            blocked = Some(format!("{id} failed: {} differ in length", odd.join(", ")));
        }
    }
    let ok = if summary_only || blocked.is_some() {
        None
    } else {
        match successes(obj, n) {
            Ok((s, how)) => Some((s, how)),
            Err(why) => {
                unknown_success = Some(why);
                None
            }
        }
    };
    let recomputed = ok.as_ref().map(|(s, _)| {
        let completed = s.iter().filter(|x| **x).count() as u64;
        let sum_ok = |v: &Option<Vec<f64>>| {
            v.as_ref().map(|v| {
                v.iter()
                    .zip(s)
                    .filter(|(_, k)| **k)
                    .map(|(x, _)| *x)
                    .sum::<f64>()
            })
        };
        Recomputed {
            completed,
            failed: s.len() as u64 - completed,
            total_input: sum_ok(&obj.arrays.input_lens),
            total_output: sum_ok(&obj.arrays.output_lens),
            stats: stats_of(&obj.arrays, s),
        }
    });
    let how = ok.as_ref().map_or("", |(_, h)| *h);
    let no_arrays = |id: &str, key: &str| -> Check {
        match (&blocked, &unknown_success) {
            (Some(why), _) => Check::not_checkable(id, why),
            (None, Some(why)) => Check::skip(id, format!("{key}: {why}")),
            _ => Check::skip(id, format!("summary only: {key} cannot be recomputed without the per-request arrays (saved with --save-detailed / --output-details)")),
        }
    };
    let duration = obj.num("duration");
    let completed_f = obj.num("completed");
    let failed_f = obj.num("failed");
    let arrays_state = match (&blocked, summary_only) {
        (Some(why), _) => ArraysState::Blocked(why),
        (None, true) => ArraysState::SummaryOnly,
        (None, false) => ArraysState::Usable(n),
    };
    let duration_check = |id: &str, key: &str, value: &Scalar| {
        let st = match &arrays_state {
            ArraysState::Blocked(w) => ArraysState::Blocked(w),
            ArraysState::SummaryOnly => ArraysState::SummaryOnly,
            ArraysState::Usable(n) => ArraysState::Usable(*n),
        };
        check_duration(id, key, value, &obj.arrays, st)
    };
    // The throughputs divide by `duration`: a duration the arrays refute
    // makes them not checkable (they would only echo it).
    let duration_failed = obj.get("duration").and_then(|v| {
        let c = duration_check(&format!("{prefix}.duration"), "duration", v);
        (c.failed() && !c.detail.starts_with(crate::report::NOT_CHECKABLE))
            .then(|| format!("{}.duration failed: the arrays refute the duration", prefix))
    });
    for (key, value) in &obj.fields {
        // Keys are matched case-insensitively: `P99_TTFT_MS` is
        // checked under its own id, never passed over.
        let written = key.strip_suffix(':').unwrap_or(key);
        let id = format!("{prefix}.{written}");
        let lower = written.to_lowercase();
        let canon = lower.as_str();
        let spelled = if canon != key {
            format!(" (spelled {key:?} in the file)")
        } else {
            String::new()
        };
        if canon == "duration" {
            checks.push(duration_check(&id, written, value));
            continue;
        }
        if let Some((_, why)) = def.unsupported.iter().find(|(k, _)| *k == canon) {
            checks.push(Check::skip(id, format!("{canon}{spelled}: {why}")));
            continue;
        }
        if let Some((stat, metric)) = parse_stat_key(canon) {
            if let Some((_, why)) = def.unsupported.iter().find(|(k, _)| *k == metric) {
                checks.push(Check::skip(id, format!("{canon}: {why}")));
                continue;
            }
            let Some((_, fam)) = def.families.iter().find(|(k, _)| *k == metric) else {
                checks.push(Check::skip(
                    id,
                    format!("{canon}: not a metric {} defines", def.name),
                ));
                continue;
            };
            let file = or_push!(published(&id, canon, value), checks);
            let Some(r) = &recomputed else {
                checks.push(no_arrays(&id, canon));
                continue;
            };
            match r.family(*fam) {
                Ok(s) => {
                    let formula = format!(
                        "{}({}) * 1000 over {} values",
                        stat.numpy(),
                        family_values(*fam),
                        s.len()
                    );
                    checks.push(compare(
                        &id,
                        &format!("{canon}{spelled}"),
                        &formula,
                        stat.apply(s) * 1000.0,
                        file,
                        false,
                    ));
                }
                Err(why) => checks.push(Check::skip(id, format!("{canon}: {why}"))),
            }
            continue;
        }
        match canon {
            "completed" | "failed" => {
                let file = or_push!(published(&id, canon, value), checks);
                let Some(r) = &recomputed else {
                    checks.push(no_arrays(&id, canon));
                    continue;
                };
                let (mine, what) = if canon == "completed" {
                    (r.completed, "successful")
                } else {
                    (r.failed, "failed")
                };
                let ok = mine as f64 == file;
                let detail = if ok {
                    format!("{canon} = {mine} {what} entries in the arrays ({how})")
                } else {
                    format!("{canon} is {file} in the file, but the arrays hold {mine} {what} requests ({how})")
                };
                checks.push(Check::outcome(id, ok, detail).with_values(mine, json!(file)));
            }
            "num_prompts" => {
                let file = or_push!(published(&id, canon, value), checks);
                let (c, f, src) = match (completed_f, failed_f, &recomputed) {
                    (Some(c), Some(f), _) => (c, f, "completed + failed from the file"),
                    (_, _, Some(r)) => (
                        r.completed as f64,
                        r.failed as f64,
                        "successful + failed entries of the arrays",
                    ),
                    _ => {
                        checks.push(Check::skip(id, "num_prompts: the file has neither a failed count nor per-request arrays to count against"));
                        continue;
                    }
                };
                let ok = c + f == file;
                let detail = format!(
                    "completed + failed = {c} + {f} = {} ({src}); num_prompts is {file}{}",
                    c + f,
                    if ok {
                        ""
                    } else {
                        ": requests are missing from the counts"
                    }
                );
                checks.push(Check::outcome(id, ok, detail).with_values(json!(c + f), json!(file)));
            }
            "total_input_tokens" | "total_output_tokens" => {
                let file = or_push!(published(&id, canon, value), checks);
                let Some(r) = &recomputed else {
                    checks.push(no_arrays(&id, canon));
                    continue;
                };
                let (mine, arr) = if canon == "total_input_tokens" {
                    (r.total_input, "input_lens")
                } else {
                    (r.total_output, "output_lens")
                };
                match mine {
                    Some(m) => checks.push(compare(
                        &id,
                        &format!("{canon}{spelled}"),
                        &format!("sum({arr} of successful requests)"),
                        m,
                        file,
                        true,
                    )),
                    None => checks.push(Check::skip(
                        id,
                        format!("{canon}: the per-request array {arr} was not saved"),
                    )),
                }
            }
            _ => {
                let Some((_, formula)) = def.throughputs.iter().find(|(k, _)| *k == canon) else {
                    // Configuration and metadata are not results; a number
                    // that reads as a result is named, never passed over.
                    if value.num().is_some() && looks_like_result(canon) {
                        checks.push(Check::skip(id, format!("{canon}{spelled}: a result field that the {} definitions proofpack follows ({}) do not define; not checked", def.name, def.source)));
                    }
                    continue;
                };
                let file = or_push!(published(&id, canon, value), checks);
                let Some(d) = duration else {
                    checks.push(Check::not_checkable(id, "the file has no numeric duration"));
                    continue;
                };
                if let Some(why) = &duration_failed {
                    checks.push(Check::not_checkable(id, why));
                    continue;
                }
                let (c, i, o, src) = match &recomputed {
                    Some(r) => (
                        Some(r.completed as f64),
                        r.total_input,
                        r.total_output,
                        "recomputed from the arrays",
                    ),
                    None => (
                        completed_f,
                        obj.num("total_input_tokens"),
                        obj.num("total_output_tokens"),
                        if summary_only {
                            "the file's own totals (summary only)"
                        } else {
                            "the file's own totals (the arrays are not usable)"
                        },
                    ),
                };
                let v = match formula {
                    Formula::Completed => c.map(|c| c / d),
                    Formula::Input => i.map(|i| i / d),
                    Formula::Output => o.map(|o| o / d),
                    Formula::InputPlusOutput => i.zip(o).map(|(i, o)| (i + o) / d),
                };
                match v {
                    Some(v) => checks.push(compare(
                        &id,
                        &format!("{canon}{spelled}"),
                        &format!("{} with {src}", formula.text()),
                        v,
                        file,
                        false,
                    )),
                    None => checks.push(Check::skip(
                        id,
                        format!(
                            "{canon}: {} needs a total the file does not have",
                            formula.text()
                        ),
                    )),
                }
            }
        }
    }
    if summary_only {
        order_checks(obj, def, prefix, &mut checks);
    }
    Checked {
        checks,
        summary_only,
        recomputed,
    }
}

/// Summary only: percentiles of one metric cannot decrease with p (the
/// median is the 50th).
fn order_checks(obj: &ResultObject, def: &ToolDef, prefix: &str, checks: &mut Vec<Check>) {
    for (name, _) in def.families {
        let mut pts: Vec<(f64, &str, f64)> = Vec::new();
        for (key, v) in &obj.fields {
            let lower = key.to_lowercase();
            if let (Some((stat, m)), Some(x)) = (parse_stat_key(&lower), v.num()) {
                if m == *name {
                    match stat {
                        Stat::Median => pts.push((50.0, key, x)),
                        Stat::P(p) => pts.push((p, key, x)),
                        _ => {}
                    }
                }
            }
        }
        if pts.len() < 2 {
            continue;
        }
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let bad: Vec<String> = pts
            .windows(2)
            .filter(|w| w[1].2 < w[0].2)
            .map(|w| format!("{} = {} > {} = {}", w[0].1, w[0].2, w[1].1, w[1].2))
            .collect();
        let id = format!("{prefix}.{name}.order");
        let listed: Vec<&str> = pts.iter().map(|p| p.1).collect();
        let c = if bad.is_empty() {
            Check::pass(
                id,
                format!(
                    "{} do not decrease with the percentile",
                    listed.join(" <= ")
                ),
            )
        } else {
            Check::fail(
                id,
                format!(
                    "a higher percentile is below a lower one: {}",
                    bad.join("; ")
                ),
            )
        };
        checks.push(c);
    }
}

/// The published value of `key` as JSON, for reports.
pub fn field_json(obj: &ResultObject, key: &str) -> Value {
    match obj.get(key) {
        Some(Scalar::Num { value, .. }) => json!(value),
        Some(Scalar::Str(s)) => json!(s),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_shown_values() {
        assert_eq!(
            parse_stat_key("p99.9_ttft_ms"),
            Some((Stat::P(99.9), "ttft"))
        );
        assert_eq!(
            parse_stat_key("median_e2e_latency_ms"),
            Some((Stat::Median, "e2e_latency"))
        );
        assert_eq!(parse_stat_key("p101_ttft_ms"), None);
        assert_eq!(parse_stat_key("mean_ttft"), None);
        assert!(looks_like_result("input_throughput"));
        assert!(looks_like_result("mean_decode_ms"));
        assert!(looks_like_result("Output_Throughput"));
        assert!(!looks_like_result("request_rate"));
        assert!(!looks_like_result("burstiness"));
        assert_eq!(shown(1e-300), "1e-300");
        assert_eq!(shown(2.5e20), "2.5e20");
        assert_eq!(shown(199.0), "199");
        assert_eq!(shown(0.000123), "0.000123");
    }
}
