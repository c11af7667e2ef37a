//! End-to-end verification of a qualification run (spec section 6).
//!
//! This is what an auditor runs: given a run (a sealed bundle, a run
//! directory or a BagIt bag holding one), the published write-up or pins
//! and the trust roots, does the evidence support exactly what was
//! published? Every check runs and is reported; nothing stops at the first
//! failure, so one report shows everything that is wrong.
//!
//! [`verify`] is the one entry point: it takes the target and the
//! auditor's [`Inputs`], opens a bag, applies the policy once
//! ([`Policy::check`]), picks the bundle or run-directory source, runs
//! every check family, states the verdict and fills the page data. Every
//! front end (the CLI, `publish`, a CI library user, a test) gets the same
//! answer from it.
//!
//! The modules, in the order the work flows:
//! - [`inputs`]: what the auditor brings ([`Inputs`]) and what the
//!   policy asks ([`Policy`]);
//! - [`source`]: the ways evidence arrives: a sealed bundle through the
//!   bundle layer's verifying reader, a run directory, a BagIt bag;
//! - [`evidence`]: which files a run needs and in what role, collected
//!   from whichever source, so that the checks never know where the files
//!   came from, and the run as every check family reads it;
//! - [`checks`]: the check families, in the order
//!   [`checks::order::evaluate`] gives, and what they are told of the
//!   inputs ([`Options`]);
//! - [`outcome`]: the verdict line, the recomputed table, the page's data
//!   and what a verification summary may claim;
//! - [`verification`]: the answer ([`Verification`]) and the errors that
//!   stop a verification from running ([`VerifyError`]).
//!
//! Engine attestations are verified through [`EngineAttestationVerifier`],
//! so that this layer states *what* must hold of an attestation and the
//! attestation layer states how a signature is checked. `--require-all` is
//! applied by the report itself ([`Policy::strictness`]).

pub mod checks;
pub mod evidence;
pub mod inputs;
pub mod needs;
pub mod outcome;
pub mod source;
pub mod verification;

use std::path::Path;

use crate::progress::Progress;
use crate::report::{Check, Report};

pub use checks::attested::{AttestedEngine, EngineAttestationVerifier, EngineFacts, TrustVerifier};
pub use checks::options::Options;
pub use inputs::{Inputs, Policy};
pub use outcome::page::PageContext;
pub use outcome::table::PointRow;
pub use verification::{Outer, Source, Verification, VerifyError};

use source::bundle::SealRequest;
use source::rundir::verify_run_dir;

/// Verifies the run at `target` (a sealed bundle, a run directory or a
/// BagIt bag holding one)
/// against the auditor's inputs: every check, the verdict line and the page
/// data. `progress` hears of the bytes read. `Err` means verification could
/// not run (exit 2), never that the evidence does not hold.
pub fn verify(
    target: &Path,
    inputs: &Inputs<'_>,
    progress: &dyn Progress,
) -> Result<Verification, VerifyError> {
    // A directory holding bagit.txt is a BagIt bag: its own checks, then
    // data/ as the run.
    match source::bag::open(target, inputs.trust)? {
        Some((data, outer)) => verify_with(&data, inputs, progress, Some(outer)),
        None => verify_with(target, inputs, progress, None),
    }
}

/// [`verify`] of the run `target` found inside `outer`.
pub fn verify_with(
    target: &Path,
    inputs: &Inputs<'_>,
    progress: &dyn Progress,
    outer: Option<Outer>,
) -> Result<Verification, VerifyError> {
    let policy = inputs.policy;
    let is_dir = target.is_dir();
    // A qualification cannot be verified without trust roots: a missing
    // trust file is a usage error, as for `attest verify` and `fleet verify`.
    policy.check(is_dir, inputs.trust.is_some())?;
    let verifier = inputs.trust.map(|t| TrustVerifier { trust: t });
    let opts = Options {
        pins: inputs.pins,
        attestations: verifier
            .as_ref()
            .map(|v| v as &dyn EngineAttestationVerifier),
        publication: inputs.publication,
        strictness: policy.strictness(),
        deriver: inputs.deriver,
    };
    let mut v = if is_dir {
        let mut v = verify_run_dir(target, &opts)?;
        if policy.require_seal {
            v.report.push(Check::fail(
                "seal",
                "--require-seal: a run directory has no release seal; verify the sealed bundle",
            ));
        }
        v
    } else {
        let seal = SealRequest {
            path: inputs.seal,
            trust: inputs.trust,
            require: policy.require_seal,
            structure_only: policy.structure_only,
        };
        source::bundle::verify_bundle_file(target, inputs.limits, &seal, &opts, progress)?
    };
    if let Some(outer) = outer {
        let mut report = Report::new(outer.target).requiring(v.report.strictness());
        for c in outer.checks {
            report.push(c);
        }
        report.extend(std::mem::replace(&mut v.report, Report::new(String::new())));
        v.report = report;
    }
    if let Some(q) = &v.qualification {
        needs::settle(&mut v.report, q);
    }
    v.report.set_verdict(outcome::verdict::verdict(&v).line);
    outcome::page::enrich(&mut v, inputs.page, inputs.publication, inputs.pins);
    Ok(v)
}
