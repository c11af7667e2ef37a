//! `verify`: the structural bundle verification (spec section 5).
//! The qualification checks (pins, attestations, invariants) build on the
//! library call [`proofpack::bundle::verify_bundle`] used here.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Result};
use proofpack::bundle;
use proofpack::keys::TrustStore;

use super::bundle_args::LimitArgs;
use super::{human_bytes, human_rate, Ui};

/// `proofpack verify`
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The bundle (.tgz) to verify.
    pub target: PathBuf,
    /// Print the verification report (JSON) on stdout.
    #[arg(long)]
    pub json: bool,
    /// Trust file: a seal beside the bundle is checked against its `release` keys.
    #[arg(long, value_name = "TRUST")]
    pub trust: Option<PathBuf>,
    /// The seal envelope (default: BUNDLE.tgz.seal.dsse.json beside the bundle).
    #[arg(long, value_name = "FILE")]
    pub seal: Option<PathBuf>,
    /// Fail unless a seal is present and verifies (needs --trust).
    #[arg(long)]
    pub require_seal: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run_verify(a: VerifyArgs, ui: &Ui) -> Result<i32> {
    let t = Instant::now();
    let meta =
        std::fs::metadata(&a.target).map_err(|e| anyhow::anyhow!("{}: {e}", a.target.display()))?;
    if meta.is_dir() {
        bail!(
            "{} is a directory; this build verifies bundles (.tgz) only, run directories need the qualification checks",
            a.target.display()
        );
    }
    if a.require_seal && a.trust.is_none() {
        bail!("--require-seal needs --trust TRUST (the release keys to check the seal against)");
    }
    let trust = match &a.trust {
        Some(p) => Some(TrustStore::load(p)?),
        None => None,
    };
    let progress = ui.bytes_progress("verifying");
    let mut v = bundle::verify_bundle(&a.target, &a.limits.limits(), None, &progress)?;
    let seal = bundle::seal_check(
        &a.target,
        a.seal.as_deref(),
        trust.as_ref(),
        a.require_seal,
        &v,
    )?;
    v.report.push(seal);
    // The ledger entry; recording never changes the verdict or exit status.
    ui.record_verification(&proofpack::catalog::VerificationRecord {
        target: a.target.display().to_string(),
        bundle_sha256: v.bundle_sha256.map(|d| d.to_hex()),
        manifest_sha256: v.manifest.as_ref().map(|m| m.digest().to_hex()),
        run_name: v.root.clone(),
        pins_sha256: None,
        ok: v.report.ok,
        report_json: v.report.to_json(),
        ..Default::default()
    });
    if a.json {
        println!("{}", v.report.to_json());
    } else {
        ui.print_checks(&v.report, "");
    }
    let secs = t.elapsed().as_secs_f64();
    let s = v.report.summary;
    let digest = v
        .bundle_sha256
        .map_or_else(|| "sha256 not computed".to_string(), |d| d.prefixed());
    if v.report.ok {
        ui.note(&format!(
            "verify: OK, {} checks passed, {} skipped, {digest}, {}, {:.2} s, {}",
            s.passed,
            s.skipped,
            human_bytes(meta.len()),
            secs,
            human_rate(meta.len(), secs)
        ));
    } else {
        ui.note(&format!(
            "verify: FAILED, {} of {} checks failed, {digest}",
            s.failed,
            s.failed + s.passed
        ));
    }
    Ok(v.report.exit_code())
}
