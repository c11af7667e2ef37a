//! The checks after the evidence pass, one path for both ways of reading
//! the bundle.

use std::collections::{BTreeMap, BTreeSet};

use crate::bundle::BundleVerification;
use crate::report::{Check, Report};
use crate::verify::checks::options::Options;
use crate::verify::checks::order::{evaluate, unverifiable_rest, Unverifiable};
use crate::verify::evidence::collector::{Collected, Plan};
use crate::verify::evidence::context::Run;
use crate::verify::verification::{Source, Verification};

/// What is reported before `bundle.stable`: the bundle's structure, then
/// (after `bundle.stable`) the seal's checks and the qualification's.
pub(super) struct Reported {
    pub(super) report: Report,
    pub(super) seal_checks: Vec<Check>,
    pub(super) qreport: Report,
}

/// What the reading that collected the evidence gives.
pub(super) struct Evidence {
    /// `bundle.stable`, and whether it holds.
    pub(super) stable: (Check, bool),
    pub(super) collected: Collected,
    /// Every entry the collecting pass visited.
    pub(super) seen: BTreeSet<String>,
    /// The collecting pass.
    pub(super) pass: BundleVerification,
}

/// The checks after the evidence pass, in the order an auditor reads them:
/// what `checks` reports, with `bundle.stable` after the bundle's
/// structure; then, when the bundle was stable, the files the plan names
/// that the pass did not see (not in the bundle, or not reached when
/// reading stopped early) and every family of checks, and otherwise every
/// content check not checkable because of `bundle.stable`.
pub(super) fn conclude(
    checks: Reported,
    plan: &Plan,
    evidence: Evidence,
    opts: &Options<'_>,
    source: &Source,
) -> Verification {
    let Reported {
        mut report,
        seal_checks,
        qreport,
    } = checks;
    let Evidence {
        stable: (stable_check, stable),
        collected,
        seen,
        pass,
    } = evidence;
    report.push(stable_check);
    for c in seal_checks {
        report.push(c);
    }
    report.extend(qreport);
    if !stable {
        unverifiable_rest(
            &mut report,
            opts,
            &Unverifiable {
                cause: "bundle.stable",
                why: "the bundle changed while it was read",
            },
        );
        return Verification::new(report, opts, source);
    }
    let unusable = not_seen(plan, &seen, &pass);
    let run = Run {
        plan,
        collected: &collected,
        unusable: &unusable,
        bundle_digest: pass.bundle_sha256,
        bundle_name: source.bundle_name.as_deref(),
    };
    let rows = evaluate(&mut report, &run, opts);
    let mut v = Verification::new(report, opts, source);
    v.rows = rows;
    v
}

/// Each file the plan names but `pass` did not see, and why.
fn not_seen(
    plan: &Plan,
    seen: &BTreeSet<String>,
    pass: &BundleVerification,
) -> BTreeMap<String, String> {
    let missing = match pass.stopped_by.as_deref() {
        Some(cause) => format!("not reached: reading stopped before it (see {cause})"),
        None => "not in the bundle".to_string(),
    };
    let mut unusable = BTreeMap::new();
    for rel in plan
        .clients
        .keys()
        .chain(plan.journals.keys())
        .chain(plan.attestations.iter())
        .chain(plan.pin_paths.iter())
        .chain(plan.plan_file.iter())
        .chain(plan.fact_files.keys())
        .chain(plan.sources.keys())
    {
        if !seen.contains(rel) {
            unusable.insert(rel.clone(), missing.clone());
        }
    }
    unusable
}
