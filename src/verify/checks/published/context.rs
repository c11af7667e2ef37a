//! What the publication's checks are given ([`Context`]), and the shapes
//! its row checks share: a row's place, a row no evidence records, and a
//! row checked against a fact the publisher declared.

use crate::digest::Sha256Digest;
use crate::publication::{PinnedRow, Publication};
use crate::report::{Check, Reason};
use crate::run::metrics::PointRow;
use crate::run::qualification::Qualification;
use crate::verify::checks::attested::AttestedEngine;
use crate::verify::checks::facts::{FactValue, Facts};
use crate::verify::evidence::collector::Collected;
use std::collections::BTreeMap;

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
    /// The verified bundle's file name, as given (bundles only).
    pub bundle_name: Option<&'a str>,
    /// The host launch checks (`host:*`) as they came out, for the prose
    /// statements about them.
    pub host_checks: &'a [Check],
}

impl crate::verify::evidence::chain::Sources for Context<'_> {
    fn q(&self) -> &Qualification {
        self.q
    }
    fn collected(&self) -> &Collected {
        self.collected
    }
    fn unusable(&self) -> &BTreeMap<String, String> {
        self.unusable
    }
}

/// The prefix that names a row as published.
pub(super) fn row_at(p: &Publication, r: &PinnedRow) -> String {
    format!("{}:{} \"{}\"", p.origin, r.line, r.label)
}

pub(super) fn unmapped(id: String, at: &str, what: &str, how: &str) -> Check {
    let why = format!("{at}: no evidence in this run records {what} ({how})");
    Check::not_checked(id, Reason::NoEvidence, format!("not checked: {why}"))
        .or_fail(format!("{why}; --require-all"))
}

/// A row checked against a fact the publisher declared for it: the value
/// holds or not, and either way the check says it is backed only by the
/// publisher's own file (and fails under `--require-all`).
pub(super) fn fact_check(
    ctx: &Context<'_>,
    id: String,
    at: &str,
    name: &str,
    what: &str,
    holds: impl Fn(&FactValue) -> bool,
    published: serde_json::Value,
) -> Check {
    let decl = ctx.q.facts.iter().find(|f| f.name == name);
    let (file, pointer) = decl.map_or(("", None), |f| (f.file.as_str(), f.pointer.as_deref()));
    let whence = match pointer {
        Some(p) => format!("{file} at {p}"),
        None => format!("the SHA-256 of {file}"),
    };
    let c = match ctx.facts.get(name) {
        None => {
            return unmapped(id,
                at,
                what,
                &format!("no chain of evidence names it; a fact named {name:?} in qualification.json would be the publisher's own statement"),
            )
        }
        Some(Err(why)) => Check::fail(id, format!("{at}: fact {name} cannot be read: {why}")),
        Some(Ok(f)) => {
            let ok = holds(f);
            let tail = format!("stated by the publisher: fact {name}, {whence}; no chain of evidence names this file");
            let c = if !ok {
                Check::fail(id, format!("{at}: the publisher's fact gives {what} {} ({tail})", f.describe()))
            } else {
                Check::pass(id, format!("{at}: {what} is {} ({tail})", f.describe()))
                    .or_fail(format!("{at}: {what} is {} only by the publisher's own file ({tail}); --require-all", f.describe()))
            };
            c.with_values(published, f.describe())
        }
    };
    c.stated_by_publisher(name, file, pointer)
}
