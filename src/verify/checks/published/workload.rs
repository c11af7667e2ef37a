//! The latency-budget and workload rows: budgets against the SLO and the
//! first-token deadline of the qualified fleet the plan names, workload
//! parameters against the workload file the plan names, token counts
//! against every measured record, and the prompt token pool.

use serde_json::{json, Value};

use crate::publication::{Decimal, Workload};
use crate::report::{Check, Report};
use crate::verify::checks::facts::same_number;
use crate::verify::checks::published::chain::{missing, Chain, Link};
use crate::verify::checks::published::context::Context;

/// Compares a published value with the value at `pointer` of the file the
/// chain names.
#[allow(clippy::too_many_arguments)]
fn chained(
    ctx: &Context<'_>,
    chain: &Chain,
    id: String,
    at: &str,
    link: Link,
    pointer: &str,
    what: &str,
    holds: impl Fn(&Value) -> bool,
    published: Value,
) -> Check {
    match chain.value(ctx, link, pointer) {
        Err(m) => missing(id, at, what, m),
        Ok((path, None)) => Check::fail(
            id,
            format!("{at}: {path} has no {pointer:?}, so it does not record {what}"),
        ),
        Ok((path, Some(v))) => {
            let ok = holds(&v);
            Check::outcome(
                id,
                ok,
                if ok {
                    format!("{at}: {what} is {v} ({path} {pointer})")
                } else {
                    format!("{at}: {path} records {what} {v} ({pointer})")
                },
            )
            .with_values(published, v)
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn budgets(
    ctx: &Context<'_>,
    chain: &Chain,
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
        report.push(chained(
            ctx,
            chain,
            format!("publication:pin:{slug}.first-token-deadline"),
            at,
            Link::Fleet,
            "/first_token_deadline_s",
            "the first-token deadline",
            |v| v.as_f64().is_some_and(|x| same_number(x, secs)),
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

pub(super) fn workload(
    ctx: &Context<'_>,
    chain: &Chain,
    report: &mut Report,
    at: &str,
    slug: &str,
    w: &Workload,
) {
    let id = |part: &str| format!("publication:pin:{slug}.{part}");
    let num = |pointer: &str, part: &str, what: &str, v: f64| {
        chained(
            ctx,
            chain,
            id(part),
            at,
            Link::Workload,
            pointer,
            what,
            move |x| x.as_f64().is_some_and(|x| same_number(x, v)),
            json!(v),
        )
    };
    if let Some(n) = w.input_tokens {
        report.push(num(
            "/input_tokens",
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
            "/output_tokens",
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
        report.push(num("/seed", "seed", "the seed", d.value));
    }
    if let Some(d) = &w.temperature {
        report.push(num(
            "/temperature",
            "temperature",
            "the temperature",
            d.value,
        ));
    }
    if let Some(b) = w.prefix_caching {
        report.push(chained(
            ctx,
            chain,
            id("prefix-caching"),
            at,
            Link::Workload,
            "/prefix_caching",
            "prefix caching",
            move |v| v.as_bool() == Some(b),
            json!(b),
        ));
    }
    if w.distinct_ids.is_some() || w.pool.is_some() {
        let cid = id("token-pool");
        report.push(match chain.value(ctx, Link::Workload, "/token_pool") {
            Err(m) => missing(cid, at, "the prompt token pool", m),
            Ok((path, None)) => Check::fail(cid, format!("{at}: {path} has no \"/token_pool\", so it does not record the prompt token pool")),
            Ok((path, Some(Value::Array(ids)))) => {
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
                    Check::pass(cid, format!("{at}: {k} distinct ids in a {n}-token pool ({path} /token_pool)"))
                } else {
                    Check::fail(cid, format!("{at}: {}", problems.join("; ")))
                        .with_values(json!({"distinct": w.distinct_ids, "pool": w.pool}), json!({"distinct": k, "pool": n}))
                }
            }
            Ok((path, Some(other))) => Check::fail(cid, format!("{at}: {path} /token_pool is {other}, not an array of token ids")),
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
