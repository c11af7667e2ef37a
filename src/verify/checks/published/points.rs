//! The measured-points cells: every point of the run published and every
//! row a point, each number recomputed from the records and rounded to its
//! published precision, the result column, and each cell against the claim
//! the bundle was sealed with.

use serde_json::json;

use crate::publication::{CellValue, Decimal, Metric, Per, Publication};
use crate::report::{Check, Report};
use crate::run::metrics::percentile_sorted;
use crate::run::metrics::PointRow;
use crate::run::qualification::Point;
use crate::verify::checks::facts::same_number;
use crate::verify::checks::point::claim_keys;
use crate::verify::checks::published::attestations::engines;
use crate::verify::checks::published::context::Context;

/// The bundle's claim for a metric key, in its canonical unit.
fn claim_of(point: &Point, key: &str) -> Option<f64> {
    claim_keys(&point.claims)
        .into_iter()
        .find(|(k, _)| k == key)
        .and_then(|(_, c)| c.map(|c| c.value))
}

fn recomputed(row: &PointRow, metric: Metric) -> Option<f64> {
    let m = &row.metrics;
    let s = &row.series;
    let pct = |v: &[f64], p: u16| percentile_sorted(v, f64::from(p) / 100.0);
    match metric {
        Metric::SentRate => row.measured_rate,
        Metric::CompletedRate(_) => m.completed_rate,
        Metric::OutputThroughput(_) => m.output_throughput,
        Metric::Ttft(p) => pct(&s.ttft_s, p),
        Metric::Tpot(p) => pct(&s.tpot_ms, p),
    }
}

/// What a "per GPU" or "per engine" value is divided by: the GPUs every
/// verified attestation states, or the engines of the run.
fn divisor(ctx: &Context<'_>, metric: Metric) -> Result<Option<(f64, String)>, String> {
    let per = match metric {
        Metric::CompletedRate(p) | Metric::OutputThroughput(p) => p,
        _ => return Ok(None),
    };
    match per {
        Per::Fleet => Ok(None),
        Per::Engine => {
            let n = ctx.q.engines.len();
            Ok(Some((
                n as f64,
                format!("per engine: divided by the {n} engines of the run"),
            )))
        }
        Per::Gpu => {
            let list = engines(ctx)?;
            let gpus: u64 = list.iter().map(|(_, _, f)| f.accelerator_count).sum();
            if gpus == 0 {
                return Err("the attestations state no GPUs".into());
            }
            Ok(Some((
                gpus as f64,
                format!(
                    "per GPU: divided by the {gpus} GPUs the {} engines attest",
                    list.len()
                ),
            )))
        }
    }
}

pub(super) fn point_checks(report: &mut Report, p: &Publication, ctx: &Context<'_>) {
    if p.measured_tables.is_empty() && p.points.is_empty() {
        report.push(Check::fail(
            "publication:points",
            format!("{}: the write-up has no measured-points table: the {} points the run measured are not published", p.origin, ctx.q.points.len()),
        ));
        return;
    }
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
        let cell_line =
            |line: usize| format!("{}:{line} (offered rate {rate} request/s)", p.origin);
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
                    format!("{base}.{}", c.key()),
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
            let id = format!("{base}.{}", c.key());
            let cell_at = format!("{}, column \"{}\"", cell_line(c.line), c.column);
            match &c.value {
                CellValue::Number {
                    metric,
                    value,
                    factor,
                    unit,
                } => {
                    let Some(rec) = rec else {
                        report.push(Check::not_checkable(
                            id,
                            format!(
                                "{cell_at}: the point's records could not be read (see point:{})",
                                qp.name
                            ),
                        ));
                        continue;
                    };
                    let (got, how) = match divisor(ctx, *metric) {
                        Err(why) => {
                            report.push(Check::not_checkable(id, format!("{cell_at}: {why}")));
                            continue;
                        }
                        Ok(None) => (recomputed(rec, *metric), None),
                        Ok(Some((d, how))) => (recomputed(rec, *metric).map(|v| v / d), Some(how)),
                    };
                    let mut c = number_cell(id.clone(), &cell_at, value, *factor, unit, got);
                    if let Some(how) = how {
                        c.detail = format!("{} ({how})", c.detail);
                    }
                    report.push(c);
                    let claim = match metric {
                        Metric::CompletedRate(Per::Fleet)
                        | Metric::OutputThroughput(Per::Fleet)
                        | Metric::SentRate
                        | Metric::Ttft(_)
                        | Metric::Tpot(_) => claim_of(qp, &metric.key()),
                        _ => None,
                    };
                    if let Some(claim) = claim {
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
                CellValue::Result {
                    within,
                    of,
                    failed,
                    timed_out,
                    cancelled,
                } => {
                    let Some(rec) = rec else {
                        report.push(Check::not_checkable(
                            id,
                            format!(
                                "{cell_at}: the point's records could not be read (see point:{})",
                                qp.name
                            ),
                        ));
                        continue;
                    };
                    let m = &rec.metrics;
                    let mut off = Vec::new();
                    if *within != m.within_limits {
                        off.push(format!(
                            "{} within limits, the records give {}",
                            within, m.within_limits
                        ));
                    }
                    if *of != qp.requests {
                        off.push(format!("out of {of}, the point measured {}", qp.requests));
                    }
                    for (what, stated, actual) in [
                        ("failed", failed, m.errors),
                        ("timed out", timed_out, m.timeouts),
                        ("cancelled", cancelled, m.cancelled),
                    ] {
                        if let Some(s) = stated {
                            if *s != actual {
                                off.push(format!("{s} {what}, the records give {actual}"));
                            }
                        }
                    }
                    report.push(if off.is_empty() {
                        Check::pass(
                            id.clone(),
                            format!("{cell_at}: {within}/{of} within limits, as recomputed"),
                        )
                    } else {
                        Check::fail(
                            id.clone(),
                            format!("{cell_at}: published {within}/{of}: {}", off.join("; ")),
                        )
                        .with_values(
                            json!({"within": within, "of": of}),
                            json!({"within": m.within_limits, "of": qp.requests}),
                        )
                    });
                    let unstated: Vec<String> = [
                        ("failed", failed, m.errors),
                        ("timed out", timed_out, m.timeouts),
                        ("cancelled", cancelled, m.cancelled),
                    ]
                    .iter()
                    .filter(|(_, stated, actual)| stated.is_none() && *actual > 0)
                    .map(|(what, _, actual)| format!("{actual} {what}"))
                    .collect();
                    report.push(if unstated.is_empty() {
                        Check::pass(format!("{id}.unstated_failures"), format!("{cell_at}: every failed, timed-out and cancelled request of the point is stated ({} failed, {} timed out, {} cancelled in the records)", m.errors, m.timeouts, m.cancelled))
                    } else {
                        Check::fail(format!("{id}.unstated_failures"), format!("{cell_at}: the records have {} that the cell does not state: \"{within}/{of} within limits\" reads as if nothing failed", unstated.join(", ")))
                            .with_values(json!({"failed": failed, "timed_out": timed_out, "cancelled": cancelled}), json!({"failed": m.errors, "timed_out": m.timeouts, "cancelled": m.cancelled}))
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
    if value.significant < crate::run::qualification::MIN_SIGNIFICANT_DIGITS {
        return Check::fail(
            id,
            format!(
                "{at}: published {} has {} significant digit(s), too coarse to check: at least {} are needed",
                value.text,
                value.significant,
                crate::run::qualification::MIN_SIGNIFICANT_DIGITS
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
