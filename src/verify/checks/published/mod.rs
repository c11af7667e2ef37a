//! The publication as written, checked against the evidence (contract
//! section 9): every row of its pinned-inputs table and every cell of its
//! measured-points tables becomes a check (`publication:pin:<slug>`,
//! `publication:point:<offered rate>.<column>`), each naming the row or cell
//! as published; every table proofpack does not read is
//! `publication:table:<line>`, not checked.
//!
//! A row whose meaning proofpack knows is checked against the file the
//! evidence chain names ([`chain`]): the attested subjects (weights, config,
//! image), the benchmark plan and the workload, qualified fleet and
//! revisions it names, the profile store the fleet names. A row with no
//! chain is checked against a fact of `qualification.json` of its name
//! ([`crate::verify::checks::facts`]) and marked `"source": "publisher"`: it is counted
//! apart in the verdict, never as mapped to evidence. A row nothing records
//! is reported as not checked (`ok: null`) and named. `--require-all` makes
//! every table, row or cell not checked and every publisher-backed row
//! fail.
//!
//! The module is split by concept: this file holds the [`Context`] the
//! checks read, the helpers every row shares and [`check_publication`];
//! `chain` resolves the evidence chain; `pinned` checks the pinned-inputs
//! rows, with `attestations` comparing a row against every engine's
//! attestation and `workload` the budgets and workload rows; `points` checks
//! the measured-points cells; `row_pins` turns the rows into pins
//! ([`pins_from_publication`]); `statements` checks each statement of the
//! prose, as the publication layer's grammars read it
//! ([`crate::publication::prose`]), `prose` dispatching it to its check
//! and `prose_facts`, `prose_evidence` and `prose_inventory` comparing it
//! against the evidence, or `bindings` as the publisher binds it;
//! `summary` counts what the verdict says of the publication
//! ([`verdict_part`]).

use crate::digest::Sha256Digest;
use crate::publication::{Pinned, Publication};
use crate::report::{Check, Reason, Report};

mod attestations;
mod bindings;
mod chain;
pub mod context;
mod pinned;
mod points;
mod prose;
mod prose_evidence;
mod prose_facts;
mod prose_found;
mod prose_inventory;
mod row_pins;
mod statements;
mod summary;
mod workload;

pub use bindings::locate as locate_bindings;
pub use context::Context;
use pinned::pinned_checks;
use points::point_checks;
pub use row_pins::{pins_from_publication, publication_has_pins, RowPins};
pub use statements::statement_id as statement_check_id;
pub use summary::verdict_part;

/// Digests whose manifests under `manifests/` a publication counts (its
/// manifest rows with a file count).
pub fn counted_digests(p: &Publication) -> Vec<Sha256Digest> {
    p.pinned
        .iter()
        .filter_map(|r| match r.kind {
            Pinned::Digest {
                digest,
                files,
                shards,
            } if files.is_some() || shards.is_some() => Some(digest),
            _ => None,
        })
        .collect()
}

/// Appends every publication check: the bundle digest of its prose, each
/// pinned row, each measured cell, each table not read, each statement of
/// its prose.
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
    let chain = chain::Chain::resolve(ctx);
    pinned_checks(report, p, ctx, &chain);
    point_checks(report, p, ctx);
    for t in &p.unchecked_tables {
        let id = format!("publication:table:{}", t.line);
        let why = format!(
            "{}:{}: a table with header {:?} ({} rows) is neither a pinned-inputs table (| Input | Value |) nor a measured-points table: what it states is not checked",
            p.origin, t.line, t.header, t.rows
        );
        report.push(
            Check::not_checked(id, Reason::NotDefined, format!("not checked: {why}"))
                .or_fail(format!("{why}; --require-all")),
        );
    }
    statements::statement_checks(report, p, ctx);
}
