//! Verifying a bundle file: the seal checked, the way to read it chosen,
//! the qualification checked, and the verification concluded.

use std::ops::ControlFlow;
use std::path::Path;

use super::conclude::{conclude, Reported};
use super::one_pass::OnePass;
use super::read_ahead::{Ahead, Grabbed};
use super::stable::Watch;
use super::structure_only::structure_only;
use super::two_pass;
use crate::bundle::{seal_check, BundleError, BundleVerification, Limits};
use crate::keys::TrustStore;
use crate::progress::Progress;
use crate::report::{Check, Report};
use crate::run::qualification::{Qualification, QUALIFICATION_FILE};
use crate::verify::checks::options::Options;
use crate::verify::checks::order::{
    check_qualification, unverifiable_rest, Unverifiable, QUALIFICATION_INVALID,
};
use crate::verify::evidence::collector::{declared_requests_fit, Plan};
use crate::verify::verification::SealState;
use crate::verify::verification::{Source, Verification, VerifyError};

/// Where the release seal is and what to check it against.
#[derive(Default, Clone, Copy)]
pub struct SealRequest<'a> {
    /// The seal envelope; `None`: `BUNDLE.seal.dsse.json` beside the bundle.
    pub path: Option<&'a Path>,
    /// Trust roots (the seal needs a key trusted for `release`).
    pub trust: Option<&'a TrustStore>,
    /// Fail when no seal verifies.
    pub require: bool,
    /// Verify the structure and the seal only, not the qualification.
    pub structure_only: bool,
}

/// Errors from the bundle layer surface unchanged (exit 2).
impl From<BundleError> for VerifyError {
    fn from(e: BundleError) -> Self {
        VerifyError::Bundle(e)
    }
}

/// Verifies a sealed bundle end to end. `bundle_report` receives the
/// structural checks (`bundle.*`) of pass 1 first, so the report reads in
/// the order an auditor thinks: structure, qualification, pins,
/// attestations, points.
pub fn verify_bundle_file(
    path: &Path,
    limits: &Limits,
    seal: &SealRequest<'_>,
    opts: &Options<'_>,
    progress: &dyn Progress,
) -> Result<Verification, VerifyError> {
    // A seal of this path in progress finishes first, so that the bundle,
    // its sidecar and its seal are read as one set.
    crate::atomic::OutputLock::wait_for_writer(path);
    let watch = Watch::start(path, seal.path);
    // A bundle sealed with qualification.json right after MANIFEST
    // is read in one pass: the qualification is read ahead from the first
    // blocks, and the one verifying pass collects the evidence while it
    // checks every entry against MANIFEST (bundle.stable then holds the
    // qualification read ahead to the entry the pass verified). A bundle
    // in the v1 order is read in two passes.
    let ahead = if seal.structure_only {
        None
    } else {
        Ahead::read(path, opts)?
    };
    let mut one = ahead.as_ref().map(|a| OnePass::new(a, opts));
    let (pass1, qbytes) = match one.as_mut() {
        Some(one) => one.first_pass(path, limits, progress)?,
        None => two_pass::first_pass(path, limits, progress)?,
    };
    let Opened { checks, q, source } = match open(path, seal, opts, &pass1, qbytes)? {
        ControlFlow::Break(v) => return Ok(v),
        ControlFlow::Continue(o) => o,
    };
    match one {
        Some(one) => {
            let plan = one.plan();
            let evidence = one.rest(path, limits, &watch, pass1)?;
            let mut v = conclude(checks, plan, evidence, opts, &source);
            v.qualification = Some(q);
            Ok(v)
        }
        None => {
            // The plan is made from the qualification pass 1 verified.
            let plan = Plan::new(q, opts.pins, &opts.counted_digests());
            let evidence = two_pass::rest(&plan, path, limits, opts, &watch, &pass1)?;
            let mut v = conclude(checks, &plan, evidence, opts, &source);
            v.qualification = Some(plan.q);
            Ok(v)
        }
    }
}

/// What the evidence pass starts from.
struct Opened {
    /// What is reported before the evidence checks.
    checks: Reported,
    /// The qualification, as checked.
    q: Qualification,
    source: Source,
}

/// The checks before the evidence pass: the structure `pass1` verified,
/// the seal, then (unless only the structure is asked for) the
/// qualification `qbytes` holds, if reading reached it. `Break` when the
/// verification ends with them.
fn open(
    path: &Path,
    seal: &SealRequest<'_>,
    opts: &Options<'_>,
    pass1: &BundleVerification,
    qbytes: Grabbed,
) -> Result<ControlFlow<Verification, Opened>, VerifyError> {
    let mut report = Report::new(path.display().to_string()).requiring(opts.strictness);
    report.extend(pass1.report.clone());
    let seal_outcome = seal_check(path, seal.path, seal.trust, seal.require, pass1)?;
    let seal_state = match (seal_outcome.present, seal_outcome.signature_checked) {
        (false, _) => SealState::Absent,
        (true, false) => SealState::NotChecked,
        (true, true) => SealState::Checked,
    };
    let seal_checks = seal_outcome.checks;
    let mut source = Source {
        inputs: seal_outcome.envelope.into_iter().collect(),
        bundle_sha256: pass1.bundle_sha256,
        bundle_name: path.file_name().map(|n| n.to_string_lossy().into_owned()),
        manifest_digest: pass1.manifest.as_ref().map(|m| m.digest()),
        root: pass1.root.clone(),
        structure_only: seal.structure_only,
        seal: seal_state,
    };
    if seal.structure_only {
        structure_only(&mut report, seal_checks, pass1, opts);
        return Ok(ControlFlow::Break(Verification::new(report, opts, &source)));
    }
    if let (None, Some(cause)) = (&qbytes, pass1.stopped_by.as_deref()) {
        not_reached(&mut report, seal_checks, cause, opts);
        return Ok(ControlFlow::Break(Verification::new(report, opts, &source)));
    }
    let qbytes = qbytes.unwrap_or_else(|| {
        Err(format!(
            "{QUALIFICATION_FILE}: not in the bundle, so it is not a qualification run (pass --structure-only to verify only its structure and seal)"
        ))
    });
    // The qualification check is reported after `bundle.stable`, so that
    // the bundle's checks stay together.
    let mut qreport = Report::new("").requiring(opts.strictness);
    let Some(q) = check_qualification(&mut qreport, qbytes.as_deref().map_err(Clone::clone)) else {
        for c in seal_checks {
            report.push(c);
        }
        report.extend(qreport);
        unverifiable_rest(&mut report, opts, &QUALIFICATION_INVALID);
        return Ok(ControlFlow::Break(Verification::new(report, opts, &source)));
    };
    declared_requests_fit(&q).map_err(VerifyError::Usage)?;
    if let Some(p) = opts.publication {
        crate::verify::checks::published::locate_bindings(&q, p).map_err(VerifyError::Usage)?;
    }
    source.inputs.extend(bundled_inputs(&q, pass1));
    let checks = Reported {
        report,
        seal_checks,
        qreport,
    };
    Ok(ControlFlow::Continue(Opened { checks, q, source }))
}

/// Reading stopped before qualification.json: it was not reached, which
/// is not "not in the bundle".
fn not_reached(report: &mut Report, seal_checks: Vec<Check>, cause: &str, opts: &Options<'_>) {
    for c in seal_checks {
        report.push(c);
    }
    let why = format!("reading stopped before {QUALIFICATION_FILE} was reached");
    report.push(Check::not_checkable_by(
        "qualification.schema",
        cause,
        format!("{QUALIFICATION_FILE}: not reached: reading stopped before it (see {cause})"),
    ));
    unverifiable_rest(report, opts, &Unverifiable { cause, why: &why });
}

/// The engine attestations and host reports the qualification names, as
/// paths in the bundle with the digests MANIFEST lists for them.
fn bundled_inputs(
    q: &Qualification,
    pass1: &BundleVerification,
) -> Vec<(String, crate::digest::Sha256Digest)> {
    let Some(m) = &pass1.manifest else {
        return Vec::new();
    };
    let root = pass1.root.as_deref().unwrap_or_default();
    q.engines
        .iter()
        .map(|e| &e.attestation)
        .chain(q.host_checks.iter())
        .filter_map(|rel| m.get(rel).map(|e| (format!("{root}/{rel}"), e.sha256)))
        .collect()
}
