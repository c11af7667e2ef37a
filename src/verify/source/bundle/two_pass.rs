//! A bundle in the v1 order, read in two passes: pass 1 verifies the
//! structure and keeps only `qualification.json`, pass 2 collects through
//! the same verifying reader, and its bytes are trusted only if its digest
//! and structural verdict equal pass 1's.

use std::path::Path;

use super::collecting::Collecting;
use super::conclude::Evidence;
use super::deferred::read_deferred;
use super::read_ahead::{Grabbed, QualificationGrab};
use super::stable::{bundle_stable, Compared, Watch};
use crate::bundle::{verify_bundle, BundleError, BundleVerification, Limits};
use crate::progress::{NoProgress, Progress};
use crate::verify::checks::options::Options;
use crate::verify::evidence::collector::Plan;
use crate::verify::verification::VerifyError;

/// Pass 1: the structure verified, and `qualification.json` if the pass
/// reached it.
pub(super) fn first_pass(
    path: &Path,
    limits: &Limits,
    progress: &dyn Progress,
) -> Result<(BundleVerification, Grabbed), BundleError> {
    let mut grab = QualificationGrab::default();
    let pass1 = verify_bundle(path, limits, Some(&mut grab), progress)?;
    Ok((pass1, grab.bytes))
}

/// Pass 2 collecting what `plan` names, the journals read again, and
/// `bundle.stable` over both passes.
pub(super) fn rest(
    plan: &Plan,
    path: &Path,
    limits: &Limits,
    opts: &Options<'_>,
    watch: &Watch<'_>,
    pass1: &BundleVerification,
) -> Result<Evidence, VerifyError> {
    let mut visitor = Collecting::new(plan, opts);
    let pass2 = verify_bundle(path, limits, Some(&mut visitor), &NoProgress)?;
    let Collecting {
        mut collector,
        seen,
        ..
    } = visitor;
    let again = read_deferred(path, limits, &mut collector)?;
    let stable = bundle_stable(&Compared::TwoPass { pass2: &pass2 }, pass1, watch, &again);
    let collected = collector.finish();
    Ok(Evidence {
        stable,
        collected,
        seen,
        pass: pass2,
    })
}
