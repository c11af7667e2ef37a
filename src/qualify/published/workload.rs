//! The latency-budget and workload rows: budgets against the SLO and the
//! first-token deadline fact, workload parameters against facts, token
//! counts against every measured record, and the prompt token pool.

use serde_json::json;

use super::{fact_check, unmapped, Context};
use crate::publication::{Decimal, Workload};
use crate::qualify::facts::{same_number, FactValue};
use crate::report::{Check, Report};

pub(super) fn budgets(
    ctx: &Context<'_>,
    report: &mut Report,
    at: &str,
    slug: &str,
    ttft: &Option<(Decimal, f64)>,
    tpot: &Option<(Decimal, f64)>,
    deadline: &Option<(Decimal, f64)>,
) {
    let slo = &ctx.q.slo;
    for (part, v, want) in [("ttft", ttft, slo.ttft_s), ("tpot", tpot, slo.tpot_s)] {
        if let Some((d, f)) = v {
            let secs = d.value * f;
            report.push(
                Check::outcome(
                    format!("publication:pin:{slug}.{part}"),
                    same_number(secs, want),
                    format!(
                        "{at}: the {} budget {secs} s against slo.{part}_s {want} s",
                        part.to_uppercase()
                    ),
                )
                .with_values(secs, want),
            );
        }
    }
    if let Some((d, f)) = deadline {
        let secs = d.value * f;
        report.push(fact_check(
            ctx,
            format!("publication:pin:{slug}.first-token-deadline"),
            at,
            "first-token-deadline",
            "the first-token deadline",
            |fv| fv.as_f64().is_some_and(|x| same_number(x, secs)),
            json!(secs),
        ));
        let ttft_budget = ttft.as_ref().map_or(slo.ttft_s, |(d, f)| d.value * f);
        report.push(
            Check::outcome(
                format!("publication:pin:{slug}.deadline-below-ttft"),
                secs < ttft_budget && secs < slo.ttft_s,
                format!(
                    "{at}: the first-token deadline {secs} s {} the TTFT budget {ttft_budget} s",
                    if secs < ttft_budget && secs < slo.ttft_s {
                        "is below"
                    } else {
                        "is not below"
                    }
                ),
            )
            .with_values(json!({"below": ttft_budget}), secs),
        );
    }
}

pub(super) fn workload(ctx: &Context<'_>, report: &mut Report, at: &str, slug: &str, w: &Workload) {
    let id = |part: &str| format!("publication:pin:{slug}.{part}");
    let num = |name: &'static str, part: &str, what: &str, v: f64| {
        fact_check(
            ctx,
            id(part),
            at,
            name,
            what,
            move |f| f.as_f64().is_some_and(|x| same_number(x, v)),
            json!(v),
        )
    };
    if let Some(n) = w.input_tokens {
        report.push(num(
            "workload.input-tokens",
            "input-tokens",
            "the input length",
            n as f64,
        ));
        report.push(records_tokens(
            ctx,
            id("records-input-tokens"),
            at,
            n,
            "input_tokens",
            false,
        ));
    }
    if let Some(n) = w.output_tokens {
        report.push(num(
            "workload.output-tokens",
            "output-tokens",
            "the output length",
            n as f64,
        ));
        report.push(records_tokens(
            ctx,
            id("records-output-tokens"),
            at,
            n,
            "output_tokens",
            true,
        ));
    }
    if let Some(d) = &w.seed {
        report.push(num("workload.seed", "seed", "the seed", d.value));
    }
    if let Some(d) = &w.temperature {
        report.push(num(
            "workload.temperature",
            "temperature",
            "the temperature",
            d.value,
        ));
    }
    if let Some(b) = w.prefix_caching {
        report.push(fact_check(
            ctx,
            id("prefix-caching"),
            at,
            "workload.prefix-caching",
            "prefix caching",
            move |f| matches!(f, FactValue::Json(serde_json::Value::Bool(x)) if *x == b),
            json!(b),
        ));
    }
    if w.distinct_ids.is_some() || w.pool.is_some() {
        let cid = id("token-pool");
        report.push(match ctx.facts.get("workload.token-pool") {
            None => unmapped(
                ctx,
                cid,
                at,
                "the prompt token pool",
                "declare a fact named \"workload.token-pool\" (a JSON array of token ids)",
            ),
            Some(Err(why)) => Check::fail(cid, format!("{at}: fact workload.token-pool cannot be read: {why}")),
            Some(Ok(FactValue::Json(serde_json::Value::Array(ids)))) => {
                let mut distinct: Vec<String> = ids.iter().map(|v| v.to_string()).collect();
                distinct.sort();
                distinct.dedup();
                let (n, k) = (ids.len() as u64, distinct.len() as u64);
                let mut problems = Vec::new();
                if k == 1 && n > 1 {
                    problems.push(format!(
                        "every prompt repeats one token id ({}): the pool holds {n} copies of it (a pool taken from a completion whose output ids were all identical)",
                        distinct[0]
                    ));
                }
                if w.pool.is_some_and(|p| p != n) {
                    problems.push(format!("the pool holds {n} tokens, the publication says {}", w.pool.unwrap_or(0)));
                }
                if w.distinct_ids.is_some_and(|d| d != k) {
                    problems.push(format!("the pool has {k} distinct ids, the publication says {}", w.distinct_ids.unwrap_or(0)));
                }
                if problems.is_empty() {
                    Check::pass(cid, format!("{at}: {k} distinct ids in a {n}-token pool"))
                } else {
                    Check::fail(cid, format!("{at}: {}", problems.join("; ")))
                        .with_values(json!({"distinct": w.distinct_ids, "pool": w.pool}), json!({"distinct": k, "pool": n}))
                }
            }
            Some(Ok(other)) => Check::fail(cid, format!("{at}: fact workload.token-pool is {}, not an array of token ids", other.describe())),
        });
    }
}

/// Every measured record (ok ones for output tokens) of every point has
/// exactly `want` tokens.
fn records_tokens(
    ctx: &Context<'_>,
    id: String,
    at: &str,
    want: u64,
    field: &str,
    ok_only: bool,
) -> Check {
    let mut off = Vec::new();
    let mut read = 0;
    for (i, p) in ctx.q.points.iter().enumerate() {
        let Some(c) = ctx.collected.clients.get(&i) else {
            continue;
        };
        read += 1;
        let r = if ok_only {
            c.ok_output_tokens
        } else {
            c.input_tokens
        };
        for (v, line) in [r.min, r.max].into_iter().flatten() {
            if v != want {
                off.push(format!("{}:{line} has {field} {v}", p.client_records));
            }
        }
    }
    if read < ctx.q.points.len() {
        return Check::not_checkable(
            id,
            format!("{at}: the client records of some point could not be read"),
        );
    }
    off.dedup();
    let whose = if ok_only {
        "ok measured request"
    } else {
        "measured request"
    };
    if off.is_empty() {
        Check::pass(
            id,
            format!("{at}: every {whose} of every point has {field} {want}"),
        )
    } else {
        Check::fail(
            id,
            format!(
                "{at}: not every {whose} has {field} {want}: {}",
                off.join("; ")
            ),
        )
        .with_values(want, json!(off))
    }
}
