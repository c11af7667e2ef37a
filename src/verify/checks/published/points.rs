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

/// Where a line of a measured-points row is: `<origin>:<line> (offered
/// rate <r> request/s[, point "<name>"])`.
fn row_at(origin: &str, row: &crate::publication::PointRow, line: usize) -> String {
    let named = row
        .point
        .as_ref()
        .map(|n| format!(", point {n:?}"))
        .unwrap_or_default();
    format!(
        "{origin}:{line} (offered rate {} request/s{named})",
        row.offered.text
    )
}

/// The point of the run a measured-points row publishes: the one of its
/// name (at the row's offered rate) where a `Point` column names it, else
/// the one point that declares the row's offered rate.
fn row_point<'q>(
    row: &crate::publication::PointRow,
    ctx: &Context<'q>,
) -> Result<&'q Point, String> {
    let points = &ctx.q.points;
    if let Some(name) = &row.point {
        let qp = points
            .iter()
            .find(|qp| qp.name == *name)
            .ok_or_else(|| format!("no point of the run is named {name:?}"))?;
        if !same_number(qp.offered_rate, row.offered.value) {
            return Err(format!(
                "point {name:?} declares {} request/s, the row {}",
                qp.offered_rate, row.offered.text
            ));
        }
        return Ok(qp);
    }
    let at: Vec<_> = points
        .iter()
        .filter(|qp| same_number(qp.offered_rate, row.offered.value))
        .collect();
    match at.as_slice() {
        [] => Err("no point of the run declares this offered rate".into()),
        [qp] => Ok(qp),
        more => Err(format!(
            "the points {} all declare this offered rate: a \"Point\" column names which point each row is",
            more.iter()
                .map(|qp| format!("{:?}", qp.name))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// A row that is no one point of the run: its rate (or name) fails, its
/// cells are not checkable.
fn no_one_point(
    report: &mut Report,
    base: &str,
    at: &str,
    row: &crate::publication::PointRow,
    why: &str,
) {
    report.push(Check::fail(
        format!("{base}.offered_rate"),
        format!("{at}: {why}"),
    ));
    for c in &row.cells {
        report.push(Check::not_checkable(
            format!("{base}.{}", c.key()),
            format!("{at}: the row is no one point of the run (see {base}.offered_rate)"),
        ));
    }
}

/// Each measured cell reads its point's records (contract section 6, the
/// dependency rule): not checkable where they could not be read. `rows`
/// holds each row's id prefix (`publication:point:<key>.`) and its point.
fn cells_need_their_records(report: &mut Report, rows: &[(String, &Point)]) {
    report.add_needs(|c| {
        rows.iter()
            .find(|(prefix, _)| {
                c.id.starts_with(prefix.as_str()) && !c.id.ends_with(".offered_rate")
            })
            .map(|(_, qp)| crate::verify::needs::records_of(qp))
            .unwrap_or_default()
    });
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
        if !p.points.iter().any(|r| match &r.point {
            Some(name) => *name == qp.name,
            None => same_number(r.offered.value, qp.offered_rate),
        }) {
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
    let mut published = Vec::new();
    for row in &p.points {
        let base = format!("publication:point:{}", row.key());
        let cell_line = |line: usize| row_at(&p.origin, row, line);
        let at = cell_line(row.line);
        let qp = match row_point(row, ctx) {
            Ok(qp) => qp,
            Err(why) => {
                no_one_point(report, &base, &at, row, &why);
                continue;
            }
        };
        published.push((format!("{base}."), qp));
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
    cells_need_their_records(report, &published);
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
