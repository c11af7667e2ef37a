//! `verify`: the auditor's verb. A sealed bundle or a run directory, the
//! published write-up or pins and the trust roots in; a checklist, a
//! verdict and the recomputed measured-points table out. The verb loads
//! the argument files, calls [`proofpack::qualify::verify`] and prints.

mod args;
mod checklist;

use std::path::Path;

use anyhow::{Context, Result};
use proofpack::digest::Sha256Digest;
use proofpack::keys::TrustStore;
use proofpack::qualify::schema::{Pins, MAX_SMALL_FILE};
use proofpack::qualify::{self, Inputs, PageContext};

pub use args::VerifyArgs;

use super::Ui;

/// Reads an argument file whole: its bytes and their SHA-256.
fn read_arg_file(path: &Path, what: &str) -> Result<(Vec<u8>, Sha256Digest)> {
    let bytes = proofpack::manifest::read_capped(path, MAX_SMALL_FILE)
        .with_context(|| format!("cannot read the {what} file"))?;
    let digest = Sha256Digest::of_bytes(&bytes);
    Ok((bytes, digest))
}

/// Runs `proofpack verify`.
pub fn run_verify(args: VerifyArgs, ui: &Ui) -> Result<i32> {
    let (pins, pins_digest) = match &args.pins {
        None => (None, None),
        Some(p) => {
            let (bytes, digest) = read_arg_file(p, "pins")?;
            let pins = Pins::parse(&bytes, &p.display().to_string()).map_err(anyhow::Error::msg)?;
            (Some(pins), Some(digest))
        }
    };
    let (trust, trust_digest) = match &args.trust {
        None => (None, None),
        Some(p) => {
            let (bytes, digest) = read_arg_file(p, "trust")?;
            let trust = TrustStore::parse(&bytes, &p.display().to_string())
                .with_context(|| format!("cannot use the trust file {}", p.display()))?;
            (Some(trust), Some(digest))
        }
    };
    let publication = match &args.publication {
        None => None,
        Some(p) => Some(
            proofpack::publication::Publication::read(p).context("cannot use the publication")?,
        ),
    };
    let page = PageContext {
        trust_sha256: trust_digest,
        trust: args.trust.as_ref().map(|p| p.display().to_string()),
        publication: args.publication.as_ref().map(|p| p.display().to_string()),
        pins: args.pins.as_ref().map(|p| p.display().to_string()),
        verified_at: proofpack::timefmt::rfc3339_utc_now(),
    };
    let inputs = Inputs {
        pins: pins.as_ref(),
        trust: trust.as_ref(),
        publication: publication.as_ref(),
        require_all: args.require_all_rows,
        deriver: Some(&proofpack::adopt::derive::PeerDeriver),
        require_seal: args.require_seal,
        seal: args.seal.as_deref(),
        structure_only: args.structure_only,
        limits: &args.limits.limits(),
        page: &page,
    };
    let started = std::time::Instant::now();
    let progress = ui.bytes_progress("verifying");
    let v = qualify::verify(&args.target, &inputs, &progress)?;
    if let Some(out) = &args.html {
        let json: serde_json::Value = serde_json::from_str(&v.report.to_json())?;
        let html = proofpack::html::render(&json)?;
        proofpack::atomic::write_atomic(out, html.as_bytes(), 0o644, true)?;
    }
    // The ledger entry; recording never changes the verdict or exit status.
    ui.record_verification(&proofpack::catalog::VerificationRecord {
        target: args.target.display().to_string(),
        bundle_sha256: v.bundle_sha256.map(|d| d.to_hex()),
        manifest_sha256: v.manifest_digest.map(|d| d.to_hex()),
        run_name: (v.qualification.as_ref().map(|q| q.name.clone())).or_else(|| v.root.clone()),
        pins_sha256: pins_digest.map(|d| d.to_hex()),
        ok: v.report.ok(),
        report_json: v.report.to_json(),
        ..Default::default()
    });
    if args.json {
        println!("{}", v.report.to_json());
    } else {
        checklist::print(&v, args.table, ui);
    }
    let s = v.report.summary();
    ui.note(&format!(
        "verify: {} checks ({} passed, {} failed, {} skipped) in {:.2} s",
        v.report.checks().len(),
        s.passed,
        s.failed,
        s.skipped,
        started.elapsed().as_secs_f64()
    ));
    Ok(v.report.exit_code())
}
