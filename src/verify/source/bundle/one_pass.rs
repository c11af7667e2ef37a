//! A bundle sealed with `qualification.json` right after MANIFEST, read in
//! one pass: the plan made from the qualification read ahead, the one
//! verifying pass checks every entry against MANIFEST while it collects the
//! evidence, and `bundle.stable` holds the qualification read ahead to the
//! entry the pass verified.

use std::path::Path;

use super::collecting::Collecting;
use super::conclude::Evidence;
use super::deferred::read_deferred;
use super::read_ahead::{Ahead, Grabbed};
use super::stable::{bundle_stable, Compared, Watch};
use crate::bundle::{verify_bundle, BundleError, BundleVerification, Limits};
use crate::digest::Sha256Digest;
use crate::progress::Progress;
use crate::verify::checks::options::Options;
use crate::verify::evidence::collector::Plan;
use crate::verify::verification::VerifyError;

/// A reading in one pass, over what was read ahead.
pub(super) struct OnePass<'p> {
    ahead: &'p Ahead,
    pass: Collecting<'p>,
}

impl<'p> OnePass<'p> {
    pub(super) fn new(ahead: &'p Ahead, opts: &Options<'p>) -> Self {
        OnePass {
            ahead,
            pass: Collecting::new(&ahead.plan, opts),
        }
    }

    /// The plan made from the qualification read ahead.
    pub(super) fn plan(&self) -> &'p Plan {
        &self.ahead.plan
    }

    /// The one verifying pass, and the qualification it is checked with:
    /// the one read ahead.
    pub(super) fn first_pass(
        &mut self,
        path: &Path,
        limits: &Limits,
        progress: &dyn Progress,
    ) -> Result<(BundleVerification, Grabbed), BundleError> {
        let pass1 = verify_bundle(path, limits, Some(&mut self.pass), progress)?;
        Ok((pass1, Some(Ok(self.ahead.bytes.clone()))))
    }

    /// The journals read again, and `bundle.stable` over `pass1`.
    pub(super) fn rest(
        self,
        path: &Path,
        limits: &Limits,
        watch: &Watch<'_>,
        pass1: BundleVerification,
    ) -> Result<Evidence, VerifyError> {
        let Collecting {
            mut collector,
            seen,
            qualification: verified,
        } = self.pass;
        let again = read_deferred(path, limits, &mut collector)?;
        let collected = collector.finish();
        let read_ahead = Sha256Digest::of_bytes(&self.ahead.bytes);
        let compared = Compared::OnePass {
            read_ahead,
            verified,
        };
        let stable = bundle_stable(&compared, &pass1, watch, &again);
        Ok(Evidence {
            stable,
            collected,
            seen,
            pass: pass1,
        })
    }
}
