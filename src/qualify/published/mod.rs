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
//!
//! The module is split by concept: this file holds the [`Context`] the
//! checks read, the helpers every row shares (where a row is, a row nothing
//! records, a row checked against a fact) and [`check_publication`];
//! `pinned` checks the pinned-inputs rows, with `attestations` comparing a
//! row against every engine's attestation and `workload` the budgets and
//! workload rows; `points` checks the measured-points cells; `row_pins`
//! turns the rows into pins ([`pins_from_publication`]).

use std::collections::BTreeMap;

use super::evidence::Collected;
use super::facts::{FactValue, Facts};
use super::schema::Qualification;
use super::{AttestedEngine, PointRow};
use crate::digest::Sha256Digest;
use crate::publication::{Pinned, PinnedRow, Publication};
use crate::report::{Check, Reason, Report};

mod attestations;
mod pinned;
mod points;
mod row_pins;
mod workload;

use pinned::pinned_checks;
use points::point_checks;
pub use row_pins::{pins_from_publication, RowPins};

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
        Check::not_checked(id, Reason::NoEvidence, format!("not checked: {why}"))
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
