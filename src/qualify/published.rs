//! The publication as written, checked against the evidence (v1.1, issue
//! 11): every row of its "Pinned inputs" table and every cell of its
//! "Measured points" table becomes a check (`publication:pin:<slug>`,
//! `publication:point:<offered rate>.<column>`), each naming the row or cell
//! as published.
//!
//! A row is mapped to evidence by what it is (a digest of an attested
//! subject, the engine, the accelerator, the model, the SLO budgets, the
//! workload) or, for anything else, through the run's facts
//! ([`super::facts`]): a row whose slug names a fact is checked against it.
//! A row nothing in the run records is reported as not checked (`ok: null`)
//! and named, or fails with `--require-all-rows`; nothing published is
//! ignored silently.

use std::collections::BTreeMap;

use serde_json::json;

use super::evidence::Collected;
use super::facts::{same_number, FactValue, Facts};
use super::point::claim_keys;
use super::schema::{Point, Qualification};
use super::{file_problem, AttestedEngine, EngineFacts, PointRow};
use crate::digest::Sha256Digest;
use crate::publication::{CellValue, Decimal, Metric, Pinned, PinnedRow, Publication, Workload};
use crate::report::{Check, Report};

/// What the publication checks read.
pub struct Context<'a> {
    /// The qualification.
    pub q: &'a Qualification,
    /// The evidence read.
    pub collected: &'a Collected,
    /// Files the run lacks or cannot use.
    pub unusable: &'a BTreeMap<String, String>,
    /// The engine attestations, verified or not.
    pub attested: &'a BTreeMap<String, Result<AttestedEngine, String>>,
    /// The recomputed points.
    pub rows: &'a [PointRow],
    /// The run's facts.
    pub facts: &'a Facts,
    /// The bundle's SHA-256 (bundles only).
    pub bundle_digest: Option<Sha256Digest>,
    /// Unmapped rows fail instead of being skipped.
    pub require_all_rows: bool,
}

/// Digests whose manifests under `manifests/` a publication counts (its
/// manifest rows with a file count).
pub fn counted_digests(p: &Publication) -> Vec<Sha256Digest> {
    p.pinned
        .iter()
        .filter_map(|r| match r.kind {
            Pinned::Digest {
                digest,
                files: Some(_),
            } => Some(digest),
            _ => None,
        })
        .collect()
}

/// The prefix that names a row as published.
fn row_at(p: &Publication, r: &PinnedRow) -> String {
    format!("{}:{} \"{}\"", p.origin, r.line, r.label)
}

fn unmapped(ctx: &Context<'_>, id: String, at: &str, what: &str, how: &str) -> Check {
    let why = format!("{at}: no evidence in this run records {what} ({how})");
    if ctx.require_all_rows {
        Check::fail(id, format!("{why}; --require-all-rows"))
    } else {
        Check::skip(id, format!("not checked: {why}"))
    }
}

/// The verified attestations' facts, or why some engine's cannot be used.
fn engines<'c>(
    ctx: &'c Context<'_>,
) -> Result<Vec<(&'c str, &'c AttestedEngine, &'c EngineFacts)>, String> {
    let mut out = Vec::new();
    let mut bad = Vec::new();
    for e in &ctx.q.engines {
        match ctx.attested.get(&e.id) {
            Some(Ok(a)) => match &a.predicate {
                Ok(f) => out.push((e.id.as_str(), a, f)),
                Err(_) => bad.push(e.id.as_str()),
            },
            _ => bad.push(e.id.as_str()),
        }
    }
    if bad.is_empty() {
        Ok(out)
    } else {
        Err(format!(
            "the attestation of {} did not verify (see attestation:*)",
            bad.join(", ")
        ))
    }
}

/// Compares one value per engine; the detail names each disagreeing engine.
fn per_engine(
    ctx: &Context<'_>,
    id: String,
    at: &str,
    what: &str,
    published: &str,
    get: impl Fn(&EngineFacts) -> String,
    same: impl Fn(&str) -> bool,
) -> Check {
    match engines(ctx) {
        Err(why) => Check::not_checkable(id, format!("{at}: {why}")),
        Ok(list) => {
            let off: Vec<String> = list
                .iter()
                .filter(|(_, _, f)| !same(&get(f)))
                .map(|(e, _, f)| format!("{e} attests {}", get(f)))
                .collect();
            if off.is_empty() {
                Check::pass(
                    id,
                    format!(
                        "{at}: {what} {published} attested by all {} engines",
                        list.len()
                    ),
                )
            } else {
                Check::fail(
                    id,
                    format!("{at}: published {what} {published}, but {}", off.join("; ")),
                )
                .with_values(published, json!(off))
            }
        }
    }
}

/// Every engine's subject `name` is `want`.
fn subject_check(ctx: &Context<'_>, id: String, at: &str, name: &str, want: Sha256Digest) -> Check {
    match engines(ctx) {
        Err(why) => Check::not_checkable(id, format!("{at}: {why}")),
        Ok(list) => {
            let off: Vec<String> = list
                .iter()
                .filter_map(
                    |(e, a, _)| match a.subjects.iter().find(|(n, _)| n == name) {
                        Some((_, d)) if *d == want => None,
                        Some((_, d)) => Some(format!("{e} attests {name} {}", d.prefixed())),
                        None => Some(format!("{e} attests no {name}")),
                    },
                )
                .collect();
            if off.is_empty() {
                Check::pass(
                    id,
                    format!(
                        "{at}: {} is the {name} attested by all {} engines",
                        want.prefixed(),
                        list.len()
                    ),
                )
            } else {
                Check::fail(id, format!("{at}: {}", off.join("; ")))
                    .with_values(want.to_hex(), json!(off))
            }
        }
    }
}

fn digest_row(
    ctx: &Context<'_>,
    p: &Publication,
    r: &PinnedRow,
    digest: Sha256Digest,
    files: Option<u64>,
) -> Check {
    let id = format!("publication:pin:{}", r.slug);
    let at = row_at(p, r);
    let base = r
        .slug
        .trim_end_matches("-sha-256")
        .trim_end_matches("-sha256")
        .to_string();
    let subject = match base.as_str() {
        _ if files.is_some() => Some("weights.manifest"),
        "checkpoint-weights" | "weights" | "weights-manifest" | "checkpoint" => {
            Some("weights.manifest")
        }
        "model-config" | "config" | "config-json" => Some("config.json"),
        "engine-image" | "image" => Some("engine-image"),
        _ => None,
    };
    if let Some(name) = subject {
        let c = subject_check(ctx, id.clone(), &at, name, digest);
        let Some(files) = files else {
            return c;
        };
        if c.failed() {
            return c;
        }
        return match ctx.collected.manifest_lines.values().find(|(d, _)| *d == digest) {
            Some((_, lines)) if *lines == files => Check::pass(
                id,
                format!("{}; the manifest lists {files} files", c.detail),
            ),
            Some((_, lines)) => Check::fail(
                id,
                format!("{at}: the manifest with this digest lists {lines} files, the publication says {files}"),
            )
            .with_values(files, *lines),
            None => Check::fail(
                id,
                format!("{at}: no file under manifests/ has this digest, so the file count {files} cannot be verified"),
            )
            .with_values(files, serde_json::Value::Null),
        };
    }
    if matches!(base.as_str(), "benchmark-plan" | "plan") {
        let Some(plan) = &ctx.q.plan else {
            return Check::not_checkable(id, format!("{at}: qualification.json names no plan"));
        };
        return match (
            file_problem(plan, ctx.collected, ctx.unusable),
            ctx.collected.hashes.get(plan),
        ) {
            (Some(why), _) => Check::not_checkable(id, format!("{at}: {why}")),
            (None, None) => Check::not_checkable(id, format!("{at}: {plan} not in the run")),
            (None, Some(d)) => Check::outcome(
                id,
                *d == digest,
                format!("{at}: the benchmark plan {plan} is {}", d.prefixed()),
            )
            .with_values(digest.to_hex(), d.to_hex()),
        };
    }
    let name = if ctx.facts.contains_key(&base) {
        &base
    } else {
        &r.slug
    };
    match ctx.facts.get(name) {
        None => unmapped(
            ctx,
            id,
            &at,
            &format!("what {base} is"),
            &format!("declare a fact named {base:?} in qualification.json"),
        ),
        Some(Err(why)) => Check::fail(id, format!("{at}: fact {name} cannot be read: {why}")),
        Some(Ok(f)) => match f.as_digest() {
            Some(d) => Check::outcome(
                id,
                d == digest,
                format!("{at}: fact {name} of the run is {}", d.prefixed()),
            )
            .with_values(digest.to_hex(), d.to_hex()),
            None => Check::fail(
                id,
                format!("{at}: fact {name} is {}, not a digest", f.describe()),
            ),
        },
    }
}

fn fact_check(
    ctx: &Context<'_>,
    id: String,
    at: &str,
    name: &str,
    what: &str,
    holds: impl Fn(&FactValue) -> bool,
    published: serde_json::Value,
) -> Check {
    match ctx.facts.get(name) {
        None => unmapped(
            ctx,
            id,
            at,
            what,
            &format!("declare a fact named {name:?} in qualification.json"),
        ),
        Some(Err(why)) => Check::fail(id, format!("{at}: fact {name} cannot be read: {why}")),
        Some(Ok(f)) => {
            let ok = holds(f);
            Check::outcome(
                id,
                ok,
                if ok {
                    format!("{at}: {what} is {} (fact {name})", f.describe())
                } else {
                    format!(
                        "{at}: the run records {what} {} (fact {name})",
                        f.describe()
                    )
                },
            )
            .with_values(published, f.describe())
        }
    }
}

fn budgets(
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

fn workload(ctx: &Context<'_>, report: &mut Report, at: &str, slug: &str, w: &Workload) {
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

fn pinned_checks(report: &mut Report, p: &Publication, ctx: &Context<'_>) {
    for r in &p.pinned {
        let id = format!("publication:pin:{}", r.slug);
        let at = row_at(p, r);
        for (h, text) in &r.extra {
            report.push(unmapped(
                ctx,
                format!("{id}.{}", crate::publication::slug(h)),
                &format!("{at}, column \"{h}\": {text:?}"),
                &format!("what a {h:?} column says"),
                "only the Value column of the pinned-inputs table is checked",
            ));
        }
        match &r.kind {
            Pinned::Digest { digest, files } => report.push(digest_row(ctx, p, r, *digest, *files)),
            Pinned::Engine {
                name,
                version,
                image,
            } => {
                report.push(per_engine(
                    ctx,
                    format!("{id}.name"),
                    &at,
                    "engine",
                    name,
                    |f| f.name.clone(),
                    |v| v.eq_ignore_ascii_case(name),
                ));
                report.push(per_engine(
                    ctx,
                    format!("{id}.version"),
                    &at,
                    "engine version",
                    version,
                    |f| f.version.clone(),
                    |v| v == version,
                ));
                if let Some(img) = image {
                    report.push(subject_check(
                        ctx,
                        format!("{id}.image"),
                        &at,
                        "engine-image",
                        *img,
                    ));
                }
            }
            Pinned::Accelerator {
                name,
                count,
                tensor,
            } => {
                let norm = |s: &str| {
                    s.split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                        .to_ascii_lowercase()
                };
                report.push(per_engine(
                    ctx,
                    format!("{id}.name"),
                    &at,
                    "accelerator",
                    name,
                    |f| f.accelerator.clone(),
                    |v| norm(v) == norm(name),
                ));
                if let Some((n, word)) = count {
                    let n = *n;
                    report.push(per_engine(
                        ctx,
                        format!("{id}.count"),
                        &at,
                        "GPUs per engine",
                        &format!("{word} ({n})"),
                        |f| f.accelerator_count.to_string(),
                        |v| v == n.to_string(),
                    ));
                }
                if let Some(tp) = tensor {
                    let tp = *tp;
                    report.push(per_engine(
                        ctx,
                        format!("{id}.tensor-parallelism"),
                        &at,
                        "tensor parallelism",
                        &tp.to_string(),
                        |f| {
                            f.parallelism
                                .get("tensor")
                                .map_or("none".into(), |t| t.to_string())
                        },
                        |v| v == tp.to_string(),
                    ));
                }
            }
            Pinned::Model(m) => {
                report.push(
                    Check::outcome(
                        format!("{id}.qualification"),
                        &ctx.q.model == m,
                        format!("{at}: qualification.json's model is {}", ctx.q.model),
                    )
                    .with_values(m.clone(), ctx.q.model.clone()),
                );
                report.push(per_engine(
                    ctx,
                    format!("{id}.attestations"),
                    &at,
                    "model",
                    m,
                    |f| f.model.clone(),
                    |v| v == m,
                ));
            }
            Pinned::Commit(c) => {
                let c2 = c.clone();
                report.push(fact_check(
                    ctx,
                    id,
                    &at,
                    &r.slug,
                    &format!("the {} commit", r.label),
                    move |f| f.equals_text(&c2),
                    json!(c),
                ));
            }
            Pinned::Budgets {
                ttft,
                tpot,
                deadline,
            } => budgets(ctx, report, &at, &r.slug, ttft, tpot, deadline),
            Pinned::Workload(w) => workload(ctx, report, &at, &r.slug, w),
            Pinned::Text => {
                let v = r.value.clone();
                report.push(fact_check(
                    ctx,
                    id,
                    &at,
                    &r.slug,
                    &format!("\"{}\"", r.label),
                    move |f| f.equals_text(&v),
                    json!(r.value),
                ));
            }
        }
    }
}

/// The bundle's claim for a metric key, in its canonical unit.
fn claim_of(point: &Point, key: &str) -> Option<f64> {
    claim_keys(&point.claims)
        .into_iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, c)| c.map(|c| c.value))
}

fn recomputed(row: &PointRow, metric: Metric) -> Option<f64> {
    let m = &row.metrics;
    let pct = |p: u8| match p {
        50 => Some(0),
        95 => Some(1),
        99 => Some(2),
        _ => None,
    };
    match metric {
        Metric::SentRate => row.measured_rate,
        Metric::CompletedRate => m.completed_rate,
        Metric::OutputThroughput => m.output_throughput,
        Metric::Ttft(p) => pct(p).and_then(|i| m.ttft_s[i]),
        Metric::Tpot(p) => pct(p).and_then(|i| m.tpot_ms[i]),
    }
}

fn point_checks(report: &mut Report, p: &Publication, ctx: &Context<'_>) {
    // Every declared point is published and every published row is a point.
    let mut missing = Vec::new();
    for qp in &ctx.q.points {
        if !p
            .points
            .iter()
            .any(|r| same_number(r.offered.value, qp.offered_rate))
        {
            missing.push(format!("{} ({} request/s)", qp.name, qp.offered_rate));
        }
    }
    report.push(if missing.is_empty() {
        Check::pass(
            "publication:points",
            format!(
                "{}: the measured-points table has a row for each of the {} points of the run",
                p.origin,
                ctx.q.points.len()
            ),
        )
    } else {
        Check::fail(
            "publication:points",
            format!(
                "{}: the measured-points table leaves out point(s) the run measured: {}",
                p.origin,
                missing.join(", ")
            ),
        )
    });
    for row in &p.points {
        let rate = &row.offered.text;
        let base = format!("publication:point:{rate}");
        let at = format!("{}:{} (offered rate {rate} request/s)", p.origin, row.line);
        let found = ctx
            .q
            .points
            .iter()
            .enumerate()
            .find(|(_, qp)| same_number(qp.offered_rate, row.offered.value));
        let Some((_, qp)) = found else {
            report.push(Check::fail(
                format!("{base}.offered_rate"),
                format!("{at}: no point of the run declares this offered rate"),
            ));
            for c in &row.cells {
                report.push(Check::not_checkable(
                    format!("{base}.{}", c.key),
                    format!("{at}: the row is no point of the run"),
                ));
            }
            continue;
        };
        let rec = ctx.rows.iter().find(|r| r.name == qp.name);
        report.push(Check::pass(
            format!("{base}.offered_rate"),
            format!(
                "{at}: point {} declares {} request/s{}",
                qp.name,
                qp.offered_rate,
                rec.and_then(|r| r.measured_rate)
                    .map(|m| format!(", sent at {m:.3} (see point:{}.offered_rate)", qp.name))
                    .unwrap_or_default()
            ),
        ));
        for c in &row.cells {
            let id = format!("{base}.{}", c.key);
            let cell_at = format!("{at}, column \"{}\"", c.column);
            match &c.value {
                CellValue::Unmapped(text) => report.push(unmapped(
                    ctx,
                    id,
                    &format!("{cell_at}: {text:?}"),
                    &format!("a column called {:?}", c.column),
                    "proofpack checks offered rate, completed rate, output throughput, TTFT and TPOT percentiles, sent rate and the result",
                )),
                CellValue::Number { metric, value, factor, unit } => {
                    let Some(rec) = rec else {
                        report.push(Check::not_checkable(id, format!("{cell_at}: the point's records could not be read (see point:{})", qp.name)));
                        continue;
                    };
                    let got = recomputed(rec, *metric);
                    report.push(number_cell(id.clone(), &cell_at, value, *factor, unit, got));
                    if let Some(claim) = claim_of(qp, &metric.key()) {
                        let published = value.value * factor;
                        report.push(
                            Check::outcome(
                                format!("{id}.sealed_claim"),
                                same_number(claim, published),
                                if same_number(claim, published) {
                                    format!("{cell_at}: the bundle's claim is the published {} {unit}", value.text)
                                } else {
                                    format!("{cell_at}: the bundle was sealed with the claim {claim} for {}, the publication states {} {unit}", metric.key(), value.text)
                                },
                            )
                            .with_values(published, claim),
                        );
                    }
                }
                CellValue::Result { within, of, failed, timed_out, cancelled } => {
                    let Some(rec) = rec else {
                        report.push(Check::not_checkable(id, format!("{cell_at}: the point's records could not be read (see point:{})", qp.name)));
                        continue;
                    };
                    let m = &rec.metrics;
                    let mut off = Vec::new();
                    if *within != m.within_limits {
                        off.push(format!("{} within limits, the records give {}", within, m.within_limits));
                    }
                    if *of != qp.requests {
                        off.push(format!("out of {of}, the point measured {}", qp.requests));
                    }
                    for (what, stated, actual) in [("failed", failed, m.errors), ("timed out", timed_out, m.timeouts), ("cancelled", cancelled, m.cancelled)] {
                        if let Some(s) = stated {
                            if *s != actual {
                                off.push(format!("{s} {what}, the records give {actual}"));
                            }
                        }
                    }
                    report.push(if off.is_empty() {
                        Check::pass(id.clone(), format!("{cell_at}: {within}/{of} within limits, as recomputed"))
                    } else {
                        Check::fail(id.clone(), format!("{cell_at}: published {within}/{of}: {}", off.join("; ")))
                            .with_values(json!({"within": within, "of": of}), json!({"within": m.within_limits, "of": qp.requests}))
                    });
                    if let Some(claim) = qp.claims.within_limits {
                        report.push(
                            Check::outcome(
                                format!("{id}.sealed_claim"),
                                claim == *within,
                                format!("{cell_at}: the bundle's within_limits claim is {claim}"),
                            )
                            .with_values(*within, claim),
                        );
                    }
                }
            }
        }
    }
}

fn number_cell(
    id: String,
    at: &str,
    value: &Decimal,
    factor: f64,
    unit: &str,
    got: Option<f64>,
) -> Check {
    if value.significant < super::schema::MIN_SIGNIFICANT_DIGITS {
        return Check::fail(
            id,
            format!(
                "{at}: published {} has {} significant digit(s), too coarse to check: at least {} are needed",
                value.text,
                value.significant,
                super::schema::MIN_SIGNIFICANT_DIGITS
            ),
        );
    }
    match got {
        None => Check::fail(id, format!("{at}: no data to recompute this value from")),
        Some(v) => {
            let in_unit = v / factor;
            let holds = value.holds(in_unit);
            Check::outcome(
                id,
                holds,
                format!(
                    "{at}: recomputed {in_unit:.6} {unit} {} published {} (tolerance ±{})",
                    if holds {
                        "rounds to"
                    } else {
                        "does not round to"
                    },
                    value.text,
                    0.5 * 10f64.powi(-(value.decimals as i32))
                ),
            )
            .with_values(value.text.clone(), in_unit)
        }
    }
}

/// Appends every publication check: the bundle digest of its prose, each
/// pinned row, each measured cell.
pub fn check_publication(report: &mut Report, p: &Publication, ctx: &Context<'_>) {
    if let Some((d, line)) = p.bundle {
        let at = format!("{}:{}", p.origin, line);
        report.push(match ctx.bundle_digest {
            Some(b) => Check::outcome(
                "publication:bundle",
                b == d,
                format!("{at}: the bundle SHA-256 the publication states, against the .tgz bytes"),
            )
            .with_values(d.to_hex(), b.to_hex()),
            None => Check::fail(
                "publication:bundle",
                format!("{at}: the publication states a bundle SHA-256; a run directory has no bundle bytes: verify the sealed bundle"),
            ),
        });
    }
    pinned_checks(report, p, ctx);
    point_checks(report, p, ctx);
}

/// What `pins from-publication` made of one row.
#[derive(Debug, Clone, PartialEq)]
pub struct RowPins {
    /// The row's line.
    pub line: usize,
    /// The row's label (or "bundle" for the prose's bundle digest).
    pub label: String,
    /// The pins it became.
    pub pins: Vec<serde_json::Value>,
    /// Why it became no pin (or what of it is not a pin).
    pub note: Option<String>,
}

/// The pin name of a digest row (the name `verify --pins` checks it under).
fn digest_pin_name(slug: &str, files: Option<u64>) -> String {
    let base = slug
        .trim_end_matches("-sha-256")
        .trim_end_matches("-sha256");
    match base {
        _ if files.is_some() => "weights.manifest".into(),
        "checkpoint-weights" | "weights" | "weights-manifest" | "checkpoint" => {
            "weights.manifest".into()
        }
        "model-config" | "config" | "config-json" => "config.json".into(),
        "engine-image" | "image" => "engine-image".into(),
        other => other.into(),
    }
}

/// The pins a publication states (`proofpack/pins/v1`, v1.1 value pins for
/// commits), and row by row what each became.
pub fn pins_from_publication(p: &Publication) -> (serde_json::Value, Vec<RowPins>) {
    let mut rows = Vec::new();
    let mut all = Vec::new();
    for r in &p.pinned {
        let (pins, note) = match &r.kind {
            Pinned::Digest { digest, files } => {
                let mut pin = json!({"name": digest_pin_name(&r.slug, *files), "sha256": digest.to_hex()});
                if let Some(f) = files {
                    pin["files"] = json!(f);
                }
                (vec![pin], None)
            }
            Pinned::Engine { image, .. } => (
                image
                    .iter()
                    .map(|d| json!({"name": "engine-image", "sha256": d.to_hex()}))
                    .collect(),
                Some("the engine name and version are checked by verify --publication, not a pin".to_string()),
            ),
            Pinned::Commit(c) => (vec![json!({"name": r.slug, "value": c})], None),
            Pinned::Model(_) | Pinned::Accelerator { .. } | Pinned::Budgets { .. } | Pinned::Workload(_) => (
                Vec::new(),
                Some("not a digest or commit: checked by verify --publication".to_string()),
            ),
            Pinned::Text => (
                Vec::new(),
                Some("not a digest or commit, and a label proofpack does not know: verify --publication checks it against a fact of this name, if the run declares one".to_string()),
            ),
        };
        all.extend(pins.iter().cloned());
        rows.push(RowPins {
            line: r.line,
            label: r.label.clone(),
            pins,
            note,
        });
    }
    if let Some((d, line)) = p.bundle {
        let pin = json!({"name": "bundle", "sha256": d.to_hex()});
        all.push(pin.clone());
        rows.push(RowPins {
            line,
            label: "bundle (stated in prose)".into(),
            pins: vec![pin],
            note: None,
        });
    }
    // One pin per name: a row stating the same value twice is one pin; two
    // values under one name stay two, and the pins file then refuses them.
    let mut seen = Vec::new();
    all.retain(|p| {
        let keep = !seen.contains(p);
        seen.push(p.clone());
        keep
    });
    (
        json!({"schema": super::schema::PINS_SCHEMA, "pins": all}),
        rows,
    )
}
