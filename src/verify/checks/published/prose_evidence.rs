//! What the statements about how the run was made are checked against
//! (contract section 9.6): the files the benchmark plan names (the
//! direct probes' report, the collector reports of its points, the
//! post-load report, earlier full manifests) and the profile samples the
//! qualified fleet's profile store names. Every number is recomputed from
//! the samples those files hold, at the precision written.

use serde_json::{json, Value};

use crate::publication::grammar::Slot;
use crate::publication::prose_run::Which;
use crate::publication::Decimal;
use crate::run::qualification::Status;
use crate::verify::checks::published::context::Context;
use crate::verify::checks::published::prose_facts::derived_input;
use crate::verify::checks::published::prose_found::{found, json_file, plan_of, precise, Found};

/// The direct probes' report the plan names: its path and its probes,
/// each `{"from", "to", "status", "first_token_s"}`.
fn probes(ctx: &Context<'_>) -> Result<(String, Vec<Value>), String> {
    let (plan_path, plan) = plan_of(ctx)?;
    let path = plan
        .probes
        .ok_or_else(|| format!("the benchmark plan {plan_path} names no probes report (probes)"))?;
    let v = json_file(ctx, &path)?;
    match v["probes"].as_array() {
        Some(a) if !a.is_empty() => Ok((path, a.clone())),
        _ => Err(format!("{path}: no probes (a non-empty \"probes\" array)")),
    }
}

fn first_tokens(probes: &[Value]) -> Vec<f64> {
    probes
        .iter()
        .filter_map(|p| p["first_token_s"].as_f64())
        .collect()
}

/// "Direct probes completed on every permitted path": the report lists at
/// least one probe and every probe's status is `ok` with a first-token
/// latency.
pub fn probes_completed(ctx: &Context<'_>) -> Found {
    let f = found(
        "every direct probe completed",
        "the probes report the benchmark plan names (probes)",
    );
    let (path, ps) = match probes(ctx) {
        Ok(p) => p,
        Err(e) => return f.fails(e),
    };
    let bad: Vec<String> = ps
        .iter()
        .filter(|p| p["status"] != "ok" || p["first_token_s"].as_f64().is_none())
        .map(|p| format!("{} -> {} ({})", p["from"], p["to"], p["status"]))
        .collect();
    f.unless(bad.is_empty(), || {
        format!("{path}: probes that did not complete: {}", bad.join(", "))
    })
    .values(json!({"probes": ps.len(), "status": "ok"}), json!(ps))
}

/// "First-token latency ranged from A to B s": the least and the greatest
/// first-token latency of the probes, at the precision written.
pub fn probe_range(min: &Decimal, max: &Decimal, ctx: &Context<'_>) -> Found {
    let what = format!(
        "the probes' first-token latency ranged from {} to {} s",
        min.text, max.text
    );
    let f = found(
        what,
        "the first_token_s of every probe in the probes report the plan names",
    );
    if let Err(why) = precise(&[(min, false), (max, false)]) {
        return f.fails(why);
    }
    let (path, ps) = match probes(ctx) {
        Ok(p) => p,
        Err(e) => return f.fails(e),
    };
    let t = first_tokens(&ps);
    let lo = t.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = t.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    f.unless(!t.is_empty() && min.holds(lo) && max.holds(hi), || {
        format!("{path}: the probes' first-token latencies range from {lo} to {hi} s")
    })
    .values(
        json!({"min": min.text, "max": max.text}),
        json!({"min": lo, "max": hi}),
    )
}

/// The profile samples the qualified fleet's profile store names, one per
/// profile: `(path, samples)`.
fn profile_samples(ctx: &Context<'_>) -> Result<Vec<(String, Value)>, String> {
    let (plan_path, plan) = plan_of(ctx)?;
    let fleet = plan
        .fleet
        .ok_or_else(|| format!("the benchmark plan {plan_path} names no fleet"))?;
    let fleet_v = json_file(ctx, &fleet)?;
    let store = fleet_v["profile_store"]
        .as_str()
        .ok_or_else(|| format!("the qualified fleet {fleet} names no profile store"))?
        .to_string();
    let store_v = json_file(ctx, &store)?;
    let profiles = store_v["profiles"]
        .as_array()
        .ok_or_else(|| format!("{store}: no profiles array"))?;
    let mut out = Vec::new();
    for (i, p) in profiles.iter().enumerate() {
        let path = p["samples"]
            .as_str()
            .ok_or_else(|| format!("{store}: profiles[{i}] names no samples file (samples)"))?;
        out.push((path.to_string(), json_file(ctx, path)?));
    }
    if out.is_empty() {
        return Err(format!("{store}: no profiles"));
    }
    Ok(out)
}

/// The intercept of the least-squares line through `(x, y)`.
fn intercept(pts: &[(f64, f64)]) -> Option<f64> {
    let n = pts.len() as f64;
    if pts.len() < 2 {
        return None;
    }
    let mx = pts.iter().map(|p| p.0).sum::<f64>() / n;
    let my = pts.iter().map(|p| p.1).sum::<f64>() / n;
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| my - sxy / sxx * mx)
}

/// Each profile's prefill median at `tokens` and its decode intercept:
/// `(samples path, median, intercept)`.
fn profile_values(ctx: &Context<'_>, tokens: u64) -> Result<Vec<(String, f64, f64)>, String> {
    let mut out = Vec::new();
    for (path, s) in profile_samples(ctx)? {
        let prefill: Vec<f64> = s["prefill"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|p| p["tokens"].as_u64() == Some(tokens))
            .filter_map(|p| p["seconds"].as_f64())
            .collect();
        let m = crate::numpy::percentile(&prefill, 50.0)
            .ok_or_else(|| format!("{path}: no prefill sample of {tokens} tokens"))?;
        let decode: Vec<(f64, f64)> = s["decode"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| {
                Some((
                    p["context_tokens"].as_f64()?,
                    p["seconds_per_token"].as_f64()?,
                ))
            })
            .collect();
        let b = intercept(&decode).ok_or_else(|| {
            format!("{path}: fewer than two decode samples of different contexts")
        })?;
        out.push((path, m, b));
    }
    Ok(out)
}

/// "Live profiles measured N-token prefill medians around X s and decode
/// intercepts from A to B s/token": every profile's median prefill time of
/// N-token prompts rounds to X, and the least and greatest intercept of the
/// least-squares line of its decode samples (seconds per token against the
/// context length) round to A and B.
pub fn profiles(
    tokens: u64,
    prefill: &Decimal,
    lo: &Decimal,
    hi: &Decimal,
    ctx: &Context<'_>,
) -> Found {
    let f = found(
        format!(
            "every live profile's {tokens}-token prefill median is about {} s, its decode intercepts from {} to {} s/token",
            prefill.text, lo.text, hi.text
        ),
        "the profile samples the qualified fleet's profile store names, recomputed",
    );
    if let Err(why) = precise(&[(prefill, true), (lo, false), (hi, false)]) {
        return f.fails(why);
    }
    let vals = match profile_values(ctx, tokens) {
        Ok(v) => v,
        Err(e) => return f.fails(e),
    };
    let least = vals.iter().map(|v| v.2).fold(f64::INFINITY, f64::min);
    let most = vals.iter().map(|v| v.2).fold(f64::NEG_INFINITY, f64::max);
    let off: Vec<String> = vals
        .iter()
        .filter(|v| !prefill.holds(v.1))
        .map(|v| format!("{}: prefill median {:.6} s", v.0, v.1))
        .collect();
    let actual: Vec<Value> = vals
        .iter()
        .map(|v| json!({"samples": v.0, "prefill_median_s": v.1, "decode_intercept_s_per_token": v.2}))
        .collect();
    f.unless(off.is_empty(), || off.join("; "))
        .unless(lo.holds(least) && hi.holds(most), || {
            format!("the decode intercepts range from {least:.6} to {most:.6} s/token")
        })
        .values(
            json!({"prefill_median_s": prefill.text, "decode_intercepts": [lo.text, hi.text]}),
            actual,
        )
}

/// "The qualified fleet copy changes only K to V s, above the observed
/// maximum[ and leaving about M s of the T s TTFT budget after the
/// measured prefill]": the derived-input rule; the deadline V above every
/// probe's first-token latency; T the TTFT budget of the run's SLO; and
/// T - V - P rounding to M, P the greatest of the profiles' prefill
/// medians at the plan's prompt length.
pub fn derived_bound(
    rule: &[Slot],
    margin: Option<&(Decimal, Decimal)>,
    ctx: &Context<'_>,
) -> Found {
    let mut f = derived_input(rule, ctx);
    let deadline = match (rule.get(1), rule.get(2)) {
        (Some(Slot::Num(d)), Some(Slot::Text(u))) => d.value * if u == "ms" { 0.001 } else { 1.0 },
        _ => f64::NAN,
    };
    f.what.push_str(&format!(
        ", above the probes' greatest first-token latency{}",
        match margin {
            Some((m, t)) => format!(
                ", leaving about {} s of the {} s TTFT budget after the measured prefill",
                m.text, t.text
            ),
            None => String::new(),
        }
    ));
    f.against
        .push_str("; the probes report, the SLO and the profile samples");
    if f.ok.is_err() {
        return f;
    }
    let max = match probes(ctx) {
        Ok((_, ps)) => first_tokens(&ps)
            .into_iter()
            .fold(f64::NEG_INFINITY, f64::max),
        Err(e) => return f.fails(e),
    };
    let mut actual = json!({"deadline_s": deadline, "probes_max_first_token_s": max});
    f = f.unless(deadline > max, || {
        format!("the deadline {deadline} s is not above the probes' greatest first-token latency, {max} s")
    });
    if let Some((m, t)) = margin {
        let budget = ctx.q.slo.ttft_s;
        let tokens = plan_of(ctx).ok().and_then(|(_, p)| p.max_input_tokens);
        let prefill = tokens
            .ok_or_else(|| {
                "the benchmark plan states no max_input_tokens (the prompt length of the prefill)"
                    .to_string()
            })
            .and_then(|n| profile_values(ctx, n))
            .map(|v| v.iter().map(|x| x.1).fold(f64::NEG_INFINITY, f64::max));
        match prefill {
            Err(e) => return f.fails(e),
            Ok(p) => {
                let left = budget - deadline - p;
                actual["ttft_budget_s"] = json!(budget);
                actual["prefill_median_s"] = json!(p);
                actual["margin_s"] = json!(left);
                f = f
                    .unless(precise(&[(m, true)]).is_ok(), || {
                        precise(&[(m, true)]).err().unwrap_or_default()
                    })
                    .unless((t.value - budget).abs() <= 1e-9, || {
                        format!("the run's TTFT budget is {budget} s, not {} s", t.text)
                    })
                    .unless(left > 0.0, || {
                        format!("{budget} s - {deadline} s - {p:.6} s (the greatest prefill median) leaves no time of the budget ({left:.6} s)")
                    })
                    .unless(m.holds(left), || {
                        format!("{budget} s - {deadline} s - {p:.6} s (the greatest prefill median) leaves {left:.6} s")
                    });
            }
        }
    }
    let expected = f.expected.take().unwrap_or(Value::Null);
    f.values(
        json!({"rule": expected, "margin_s": margin.map(|m| m.0.text.clone())}),
        actual,
    )
}

/// "[Earlier] full checkpoint manifests agree on all weight shard hashes":
/// the plan names at least two manifest records (`full_manifests`), and
/// every one lists the same `.safetensors` entries with the same SHA-256
/// as the run's weights record.
pub fn full_manifests(ctx: &Context<'_>) -> Found {
    let f = found(
        "the earlier full checkpoint manifests agree on every weight shard's hash",
        "the manifest records the plan names (full_manifests) and the run's weights record",
    );
    let plan = match plan_of(ctx) {
        Ok((_, p)) => p,
        Err(e) => return f.fails(e),
    };
    let Some(record) = ctx.q.weights_record.clone() else {
        return f.fails("qualification.json names no weights record to compare them with");
    };
    // Agreement of a record with itself is no agreement: two distinct
    // files, neither the weights record they are compared with.
    let distinct: std::collections::BTreeSet<&str> =
        plan.full_manifests.iter().map(String::as_str).collect();
    if distinct.contains(record.as_str()) {
        return f.fails(format!(
            "the benchmark plan names the run's own weights record {record} as an earlier full manifest: a record agrees with itself"
        ));
    }
    if distinct.len() < 2 {
        return f.fails(format!(
            "the benchmark plan names {} distinct full manifest(s) (full_manifests): at least two are needed to agree",
            distinct.len()
        ));
    }
    let shards = |path: &str| -> Result<Vec<(String, String)>, String> {
        let v = json_file(ctx, path)?;
        let mut out: Vec<(String, String)> = v["entries"]
            .as_array()
            .ok_or_else(|| format!("{path}: not a manifest record (no entries)"))?
            .iter()
            .filter_map(|e| {
                Some((
                    e["path"].as_str()?.to_string(),
                    e["sha256"].as_str()?.to_string(),
                ))
            })
            .filter(|(p, _)| p.ends_with(".safetensors"))
            .collect();
        out.sort();
        Ok(out)
    };
    let want = match shards(&record) {
        Ok(w) if !w.is_empty() => w,
        Ok(_) => return f.fails(format!("{record}: no .safetensors entry")),
        Err(e) => return f.fails(e),
    };
    let mut differ = Vec::new();
    for m in &plan.full_manifests {
        match shards(m) {
            Ok(got) if got == want => {}
            Ok(got) => differ.push(format!(
                "{m} ({} shard(s), {} differing from {record})",
                got.len(),
                got.iter().filter(|e| !want.contains(e)).count()
                    + want.iter().filter(|e| !got.contains(e)).count()
            )),
            Err(e) => return f.fails(e),
        }
    }
    f.unless(differ.is_empty(), || {
        format!("these do not agree: {}", differ.join(", "))
    })
    .values(
        json!({"manifests": plan.full_manifests, "shards": want.len()}),
        json!({"differ": differ}),
    )
}

fn same_rate(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

/// The point a statement names: its index in the run.
fn point_index(which: &Which, ctx: &Context<'_>) -> Result<usize, String> {
    let pts = &ctx.q.points;
    match which {
        Which::Lower | Which::Higher if pts.len() != 2 => Err(format!(
            "\"lower-rate\" or \"higher-rate\" point of a run of {} points",
            pts.len()
        )),
        Which::Lower | Which::Higher if same_rate(pts[0].offered_rate, pts[1].offered_rate) => {
            Err(format!(
                "\"lower-rate\" or \"higher-rate\" point of a run whose two points both have {} request/s",
                pts[0].offered_rate
            ))
        }
        Which::Lower | Which::Higher => {
            let lower = usize::from(pts[1].offered_rate < pts[0].offered_rate);
            Ok(if matches!(which, Which::Lower) {
                lower
            } else {
                1 - lower
            })
        }
        Which::Rate(d) => {
            let at: Vec<usize> = (0..pts.len())
                .filter(|i| same_rate(pts[*i].offered_rate, d.value))
                .collect();
            match at.as_slice() {
                [i] => Ok(*i),
                [] => Err(format!("no point of the run has {} request/s", d.text)),
                more => Err(format!(
                    "{} points of the run have {} request/s: \"the {} request/s point\" is no one point",
                    more.len(),
                    d.text,
                    d.text
                )),
            }
        }
    }
}

/// What the collector of point `i` recorded, recomputed from its samples.
struct Collected {
    /// Its report's path.
    path: String,
    /// The largest gap between scrapes (or the window's edges) over the
    /// scrape interval; coverage is complete when at most 1.5.
    worst_gap: f64,
    /// Counters declared but never sampled in the point's window.
    missing: Vec<String>,
    /// Client and journal terminal outcomes (ok, error, timeout,
    /// cancelled), warmups included.
    client: [u64; 4],
    journal: Option<[u64; 4]>,
}

impl Collected {
    fn complete(&self) -> bool {
        self.worst_gap <= 1.5
    }
    fn counts_match(&self) -> bool {
        self.journal == Some(self.client)
    }
}

fn status_index(s: Status) -> usize {
    match s {
        Status::Ok => 0,
        Status::Error => 1,
        Status::Timeout => 2,
        Status::Cancelled => 3,
    }
}

/// The scrape interval a coverage claim can rest on: the one the samples
/// themselves show (the median gap between consecutive scrape times), which
/// the collector's declared `scrape_interval_s` must agree with (within
/// 10%): a declared interval is the publisher's word, and a long one made
/// one scrape per point "complete coverage".
fn sampling_interval(samples: &[Value], declared: f64) -> Result<f64, String> {
    let mut t: Vec<f64> = samples.iter().filter_map(|s| s["t"].as_f64()).collect();
    t.sort_by(f64::total_cmp);
    t.dedup();
    if t.len() < 3 {
        return Err(format!(
            "{} distinct scrape time(s): at least 3 are needed to read the sampling interval from the scrapes",
            t.len()
        ));
    }
    let mut gaps: Vec<f64> = t.windows(2).map(|w| w[1] - w[0]).collect();
    gaps.sort_by(f64::total_cmp);
    let observed = gaps[gaps.len() / 2];
    if (observed - declared).abs() > 0.1 * declared {
        return Err(format!(
            "scrape_interval_s declares {declared} s, but the scrapes are a median {observed} s apart"
        ));
    }
    Ok(observed)
}

fn collected(i: usize, ctx: &Context<'_>) -> Result<Collected, String> {
    let p = &ctx.q.points[i];
    let (plan_path, plan) = plan_of(ctx)?;
    let path = plan
        .points
        .iter()
        .find(|pp| pp.name == p.name)
        .and_then(|pp| pp.collector.clone())
        .ok_or_else(|| format!("the benchmark plan {plan_path} names no collector report for point {} (points[].collector)", p.name))?;
    let c = ctx
        .collected
        .clients
        .get(&i)
        .ok_or_else(|| format!("point {}: its client records were not read", p.name))?;
    // The point's window: its first measured send to its last answer.
    let measured = c.ids.values().filter(|r| !r.warmup);
    let start = measured
        .clone()
        .map(|r| r.sent_at)
        .fold(f64::INFINITY, f64::min);
    let end = measured
        .map(|r| r.finished_at().or(r.first_token_at()).unwrap_or(r.sent_at))
        .fold(f64::NEG_INFINITY, f64::max);
    if !(start.is_finite() && end.is_finite()) {
        return Err(format!("point {}: no measured request", p.name));
    }
    let v = json_file(ctx, &path)?;
    let declared = v["scrape_interval_s"]
        .as_f64()
        .filter(|x| *x > 0.0)
        .ok_or_else(|| format!("{path}: scrape_interval_s must be a number > 0"))?;
    let samples = v["samples"]
        .as_array()
        .ok_or_else(|| format!("{path}: no samples array"))?;
    let interval = sampling_interval(samples, declared).map_err(|e| format!("{path}: {e}"))?;
    let mut times: Vec<f64> = samples
        .iter()
        .filter_map(|s| s["t"].as_f64())
        .filter(|t| *t >= start - interval && *t <= end + interval)
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup();
    let mut edges = vec![start];
    edges.extend(times.iter().copied().filter(|t| *t > start && *t < end));
    edges.push(end);
    let worst = edges
        .windows(2)
        .map(|w| (w[1] - w[0]) / interval)
        .fold(0.0, f64::max);
    let worst_gap = if times.is_empty() {
        f64::INFINITY
    } else {
        worst
    };
    let seen: std::collections::BTreeSet<&str> = samples
        .iter()
        .filter(|s| s["t"].as_f64().is_some_and(|t| t >= start && t <= end))
        .filter_map(|s| s["metric"].as_str())
        .collect();
    // One diagnostic per counter, however often the report declares it.
    let mut named = std::collections::HashSet::new();
    let missing = v["counters"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|m| !seen.contains(m) && named.insert(*m))
        .map(str::to_string)
        .collect();
    let mut client = [0u64; 4];
    for r in c.ids.values() {
        client[status_index(r.status)] += 1;
    }
    let journal = p
        .journal
        .as_deref()
        .and_then(|j| ctx.collected.journals.get(j))
        .and_then(|j| j.points.get(&p.name))
        .map(|m| {
            let mut out = [0u64; 4];
            for s in m.terminal_statuses(c).flatten() {
                out[status_index(s)] += 1;
            }
            out
        });
    Ok(Collected {
        path,
        worst_gap,
        missing,
        client,
        journal,
    })
}

fn collected_json(c: &Collected) -> Value {
    json!({"report": c.path, "worst_gap_intervals": c.worst_gap, "counter_missing": c.missing,
           "client_outcomes": c.client, "journal_outcomes": c.journal})
}

/// "Both|All intervals have complete scrape coverage[ and matching client
/// and journal outcome counts]": for every point, no gap between scrapes
/// (or the window's edges) of more than 1.5 scrape intervals in the
/// point's window, and the client records' terminal outcomes counted by
/// status equal the journal's.
pub fn coverage(both: bool, counts: bool, ctx: &Context<'_>) -> Found {
    let mut f = found(
        format!(
            "every point's interval has complete scrape coverage{}",
            if counts {
                " and the same outcome counts in the client records and the journal"
            } else {
                ""
            }
        ),
        "each point's collector report's samples (the plan's points[].collector) and its records",
    );
    if both {
        f = f.unless(ctx.q.points.len() == 2, || {
            format!(
                "\"both\" intervals, but the run has {} points",
                ctx.q.points.len()
            )
        });
    }
    let mut actual = Vec::new();
    for (i, p) in ctx.q.points.iter().enumerate() {
        match collected(i, ctx) {
            Err(e) => return f.fails(e),
            Ok(c) => {
                f = f.unless(c.complete(), || {
                    format!(
                        "point {}: a gap of {:.2} scrape intervals in {}",
                        p.name, c.worst_gap, c.path
                    )
                });
                if counts {
                    f = f.unless(c.counts_match(), || {
                        format!("point {}: client outcomes {:?}, journal {:?} (ok, error, timeout, cancelled)", p.name, c.client, c.journal)
                    });
                }
                actual.push(collected_json(&c));
            }
        }
    }
    f.values(json!({"complete": true, "matching_counts": counts}), actual)
}

/// "The lower-rate point records one counter_missing diagnostic for M":
/// recomputed, the point's collector report declares counter M and has no
/// sample of it in the point's window, and that is the one (N) such
/// diagnostic for M. Only `counter_missing` is a kind proofpack computes.
pub fn diagnostic(which: &Which, n: u64, kind: &str, metric: &str, ctx: &Context<'_>) -> Found {
    let f = found(
        format!("the point records {n} {kind} diagnostic(s) for {metric}"),
        "the point's collector report, its samples in the point's window",
    );
    if kind != "counter_missing" {
        return f.fails(format!(
            "{kind:?} is not a diagnostic proofpack computes (counter_missing)"
        ));
    }
    let c = match point_index(which, ctx).and_then(|i| collected(i, ctx)) {
        Ok(c) => c,
        Err(e) => return f.fails(e),
    };
    let got = c.missing.iter().filter(|m| *m == metric).count() as u64;
    f.unless(got == n, || {
        format!(
            "{}: counters without a sample in the window: {:?}",
            c.path, c.missing
        )
    })
    .values(
        json!({"kind": kind, "metric": metric, "count": n}),
        collected_json(&c),
    )
}

/// "The higher-rate point passed all collector checks": complete scrape
/// coverage, no declared counter without a sample, matching outcome counts.
pub fn collector_passed(which: &Which, ctx: &Context<'_>) -> Found {
    let f = found(
        "the point passed every collector check (scrape coverage, counters, outcome counts)",
        "the point's collector report, its samples and its records",
    );
    let c = match point_index(which, ctx).and_then(|i| collected(i, ctx)) {
        Ok(c) => c,
        Err(e) => return f.fails(e),
    };
    let mut why = Vec::new();
    if !c.complete() {
        why.push(format!("a gap of {:.2} scrape intervals", c.worst_gap));
    }
    if !c.missing.is_empty() {
        why.push(format!(
            "counters without a sample: {}",
            c.missing.join(", ")
        ));
    }
    if !c.counts_match() {
        why.push(format!(
            "client outcomes {:?}, journal {:?}",
            c.client, c.journal
        ));
    }
    f.unless(why.is_empty(), || format!("{}: {}", c.path, why.join("; ")))
        .values(json!("every collector check passed"), collected_json(&c))
}

/// "A post-load <name> check passed after the <n>th drain": the post-load
/// report the plan names has that name (any case), every one of its checks
/// passed, and it was made after the last answer of the run's n-th point.
pub fn post_load(name: &str, after: u64, ctx: &Context<'_>) -> Found {
    let f = found(
        format!(
            "the post-load {name} check passed after point #{} ended",
            if after == u64::MAX {
                "last".to_string()
            } else {
                after.to_string()
            }
        ),
        "the post-load report the plan names (post_load) and the points' records",
    );
    let (plan_path, plan) = match plan_of(ctx) {
        Ok(p) => p,
        Err(e) => return f.fails(e),
    };
    let Some(path) = plan.post_load else {
        return f.fails(format!(
            "the benchmark plan {plan_path} names no post-load report (post_load)"
        ));
    };
    let v = match json_file(ctx, &path) {
        Ok(v) => v,
        Err(e) => return f.fails(e),
    };
    let n = ctx.q.points.len();
    let k = if after == u64::MAX { n } else { after as usize };
    if k == 0 || k > n {
        return f.fails(format!("the run has {n} point(s), so no drain #{k}"));
    }
    let end = ctx
        .collected
        .clients
        .get(&(k - 1))
        .map(|c| {
            c.ids
                .values()
                .map(|r| r.finished_at().or(r.first_token_at()).unwrap_or(r.sent_at))
                .fold(f64::NEG_INFINITY, f64::max)
        })
        .unwrap_or(f64::NAN);
    let at = v["checked_at"]
        .as_str()
        .and_then(|s| crate::timefmt::parse_rfc3339_utc(s).ok());
    let checks = v["checks"].as_array().cloned().unwrap_or_default();
    let failed: Vec<String> = checks
        .iter()
        .filter(|c| c["ok"] != true)
        .map(|c| c["name"].as_str().unwrap_or("?").to_string())
        .collect();
    let named = v["name"].as_str().unwrap_or("");
    f.unless(named.eq_ignore_ascii_case(name), || format!("{path} is the post-load check {named:?}"))
        .unless(!checks.is_empty() && failed.is_empty(), || {
            format!("{path}: checks that did not pass: {}", if checks.is_empty() { "(none listed)".into() } else { failed.join(", ") })
        })
        .unless(at.is_some_and(|t| t > end), || {
            format!("{path}: checked_at {} is not after point #{k}'s last answer ({end})", v["checked_at"])
        })
        .values(json!({"name": name, "after_point": k}), json!({"report": path, "name": named, "checked_at": v["checked_at"], "point_end": end, "failed": failed}))
}
