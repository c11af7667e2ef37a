//! The order in which the check families run over one run's evidence
//! ([`evaluate`]): the benchmark plan, the engine attestations, the pins,
//! the host launch checks, the run's inventory, every point, and the
//! publication; and what is reported when the qualification cannot be read.

use std::collections::BTreeMap;

use crate::report::{Check, Reason, Report};
use crate::run::metrics;
use crate::run::metrics::PointRow;
use crate::run::qualification::Qualification;
use crate::run::qualification::QUALIFICATION_FILE;
use crate::verify::checks::attested::AttestedEngine;
use crate::verify::checks::facts;
use crate::verify::checks::facts::Facts;
use crate::verify::checks::options::Options;
use crate::verify::checks::plan::PlanFacts;
use crate::verify::checks::{
    derived, engines, hosts, inventory, pins, plan, plausible, point, published,
};
use crate::verify::evidence::context::{point_area, Run, ATTESTATIONS_AREA, HOSTS_AREA, PINS_AREA};

/// Parses `qualification.json` into the report (`qualification.schema`).
pub fn check_qualification(
    report: &mut Report,
    bytes: Result<&[u8], String>,
) -> Option<Qualification> {
    let id = "qualification.schema";
    match bytes.and_then(Qualification::parse) {
        Ok(q) => {
            report.push(Check::pass(
                id,
                format!(
                    "{QUALIFICATION_FILE}: {} points, {} engines, model {}",
                    q.points.len(),
                    q.engines.len(),
                    q.model
                ),
            ));
            Some(q)
        }
        Err(e) => {
            report.push(Check::fail(id, e));
            None
        }
    }
}

/// The `pin:*` line of a verification that compares no pins.
pub(crate) fn no_pins(detail: &str) -> Check {
    Check::not_checked("pin:*", Reason::NotAskedFor, detail).in_area(PINS_AREA)
}

/// Runs every check after the evidence pass, family by family. Returns the
/// recomputed table (the points whose records could be read).
pub fn evaluate(report: &mut Report, run: &Run<'_>, opts: &Options<'_>) -> Vec<PointRow> {
    report.enter(None);
    let plan_facts = plan::plan_checks(report, run);
    report.enter(Some(ATTESTATIONS_AREA));
    let attested = engines::check_engines(report, run, opts);
    let facts = facts::resolve(run);
    report.enter(Some(PINS_AREA));
    match opts.pins {
        None if opts.publication.is_some() => {}
        None => report.push(no_pins(
            "neither --publication nor --pins given: published values not compared (verdict is unpinned)",
        )),
        Some(p) => pins::check_pins(report, p, run, &attested, &facts),
    }
    report.enter(Some(HOSTS_AREA));
    hosts::host_checks(report, run, &attested, opts);
    report.enter(None);
    report.push(inventory::undeclared_check(run));
    report.push(inventory::captured_check(run.collected));
    // With the run's other checks (the page groups them by area, so the
    // JSON's order is the page's).
    report.push(plausible::windows_check(run));
    let rows = points(report, run, &plan_facts);
    report.enter(None);
    if let Some(publication) = opts.publication {
        publication_checks(report, publication, run, &attested, &rows, &facts);
    }
    rows
}

/// Every point's checks, each under its own area.
fn points(report: &mut Report, run: &Run<'_>, plan: &PlanFacts) -> Vec<PointRow> {
    let q = run.q();
    let mut rows = Vec::new();
    for (i, p) in q.points.iter().enumerate() {
        report.enter(Some(&point_area(&p.name)));
        derived::derived_checks(report, run, i);
        derived::journal_source_check(report, run, i);
        derived::journal_tokens_check(report, run, i);
        if let Some(m) = point::point_checks(report, run, i, plan) {
            rows.push(PointRow {
                name: p.name.clone(),
                offered_rate: p.offered_rate,
                measured_rate: m.measured_rate,
                requests: p.requests,
                metrics: m,
                series: run
                    .collected
                    .clients
                    .get(&i)
                    .map(|c| c.series.clone())
                    .unwrap_or_default(),
                timeline: run
                    .collected
                    .clients
                    .get(&i)
                    .map(|c| {
                        metrics::sample_timeline(
                            || c.timeline_records(),
                            metrics::MAX_TIMELINE_POINTS,
                        )
                    })
                    .unwrap_or_default(),
            });
        }
    }
    rows
}

/// The publication's checks, each counted as a row, cell or statement of
/// the write-up.
fn publication_checks(
    report: &mut Report,
    publication: &crate::publication::Publication,
    run: &Run<'_>,
    attested: &BTreeMap<String, Result<AttestedEngine, String>>,
    rows: &[PointRow],
    facts: &Facts,
) {
    let host_checks: Vec<Check> = report
        .checks()
        .iter()
        .filter(|c| c.area() == HOSTS_AREA)
        .cloned()
        .collect();
    let ctx = published::Context {
        host_checks: &host_checks,
        q: run.q(),
        collected: run.collected,
        unusable: run.unusable,
        attested,
        rows,
        facts,
        bundle_digest: run.bundle_digest,
        bundle_name: run.bundle_name,
    };
    let mut sub = Report::new("").requiring(report.strictness());
    published::check_publication(&mut sub, publication, &ctx);
    for c in sub.into_checks() {
        report.push(c.publication());
    }
}

/// Why the checks after the qualification cannot run: the id of the check
/// that failed, and what that means for them.
pub struct Unverifiable<'a> {
    /// The failed check.
    pub cause: &'a str,
    /// Its consequence, e.g. "qualification.json is not valid".
    pub why: &'a str,
}

/// The qualification could not be read.
pub const QUALIFICATION_INVALID: Unverifiable<'static> = Unverifiable {
    cause: "qualification.schema",
    why: "qualification.json is not valid",
};

/// Reports the checks that need the run's evidence as not checkable,
/// because of `u`.
pub fn unverifiable_rest(report: &mut Report, opts: &Options<'_>, u: &Unverifiable<'_>) {
    let (cause, why) = (u.cause, u.why);
    match opts.pins {
        // The publication's checks stand for the pins (named below).
        None if opts.publication.is_some() => {}
        None => report.push(no_pins(
            "neither --publication nor --pins given: published values not compared (verdict is unpinned)",
        )),
        Some(p) => {
            for pin in &p.pins {
                report.push(
                    Check::not_checkable_by(format!("pin:{}", pin.name), cause, why)
                        .in_area(PINS_AREA),
                );
            }
        }
    }
    report.push(
        Check::not_checkable_by(
            "attestation:*",
            cause,
            format!("{why}: the engines are unknown"),
        )
        .in_area(ATTESTATIONS_AREA),
    );
    if opts.publication.is_some() {
        report.push(
            Check::not_checkable_by(
                "publication:*",
                cause,
                format!("{why}: nothing in the run can be matched to the publication's rows"),
            )
            .publication(),
        );
    }
    report.push(
        Check::not_checkable_by("point:*", cause, format!("{why}: the points are unknown"))
            .in_area(point_area("*")),
    );
}
