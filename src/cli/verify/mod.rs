//! `verify`, the auditor's verb: loads the argument files, calls
//! [`proofpack::verify::verify`], prints the checklist or the report.

mod args;
mod checklist;

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use proofpack::keys::TrustStore;
use proofpack::run::qualification::Pins;
use proofpack::verify::inputs::{Inputs, Policy};
use proofpack::verify::outcome::page::PageContext;

pub use args::VerifyArgs;

use super::filekind::{read_as, Want};
use super::Ui;
use args::load;

/// Runs `proofpack verify`. When it cannot run (exit 2), the outputs named
/// on the command line (`--html`, `--vsa`, `--junit`) that an earlier run
/// left are removed, so that none of them speaks for this run: on any
/// exit, each is written for this run or is not there.
pub fn run_verify(args: VerifyArgs, ui: &Ui) -> Result<i32> {
    let outputs: Vec<PathBuf> = [&args.html, &args.vsa, &args.junit.junit]
        .into_iter()
        .flatten()
        .filter(|p| p.as_os_str() != "-")
        .cloned()
        .collect();
    let inputs: Vec<PathBuf> = [
        args.target.as_ref(),
        args.trust.as_ref(),
        args.pins.as_ref(),
        args.publication.as_ref(),
        args.seal.as_ref(),
        args.vsa_key.as_ref(),
    ]
    .into_iter()
    .flatten()
    .cloned()
    .collect();
    let result = verify_and_write(args, ui);
    if result.is_err() {
        for out in &outputs {
            remove_stale(out, &inputs)?;
        }
    }
    result
}

/// Removes `out`, an output an earlier run may have left, unless it is a
/// directory or one of the `inputs` (then it was never this verb's to
/// write). A link is removed itself, never what it points to.
fn remove_stale(out: &Path, inputs: &[PathBuf]) -> Result<()> {
    let Ok(meta) = std::fs::symlink_metadata(out) else {
        return Ok(());
    };
    let same = |p: &PathBuf| match (std::fs::canonicalize(p), std::fs::canonicalize(out)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if meta.is_dir() || inputs.iter().any(same) {
        return Ok(());
    }
    std::fs::remove_file(out).with_context(|| {
        format!(
            "{}: could not remove the output of an earlier run",
            out.display()
        )
    })
}

/// The target to verify, or (given only a write-up) the error naming the
/// bundle the write-up names: the evidence its reader must get.
fn the_target(args: &VerifyArgs) -> Result<PathBuf> {
    if let Some(t) = &args.target {
        return Ok(t.clone());
    }
    let w = args
        .publication
        .as_deref()
        .unwrap_or(Path::new("WRITEUP.md"));
    let named =
        proofpack::publication::Publication::read_as(w, args.publication_format.map(Into::into))
            .ok()
            .and_then(|p| p.named_bundle());
    match named {
        Some((file, sha)) => anyhow::bail!(
            "verify needs the evidence to check {} against: the write-up names the bundle {file} (SHA-256 {sha}); get that file (and its seal, {file}.seal.dsse.json) from the publisher and run: proofpack verify {file} --publication {} --trust TRUST",
            w.display(),
            w.display()
        ),
        None => anyhow::bail!(
            "verify needs the evidence to check {} against (a sealed bundle .tgz or a run directory), and the write-up names no bundle (\"The retained artifact bundle is <file> (SHA-256 <hex>)\")",
            w.display()
        ),
    }
}

fn verify_and_write(args: VerifyArgs, ui: &Ui) -> Result<i32> {
    let target = the_target(&args)?;
    target_is_evidence(&target)?;
    // The page's path is checked before the verification, not after it.
    if let Some(out) = &args.html {
        super::output::check_file(out, "--html - would mix the page with the verdict")?;
    }
    let vsa = super::vsa::prepare(args.vsa.as_deref(), args.vsa_key.as_deref(), &target)?;
    let junit = args.junit.start()?;
    let (pins, pins_digest) = load(args.pins.as_deref(), ("--pins", Want::Pins), |b, o| {
        Pins::parse(b, o).map_err(anyhow::Error::msg)
    })?;
    let (trust, trust_digest) = load(args.trust.as_deref(), ("--trust", Want::Trust), |b, o| {
        Ok(TrustStore::parse(b, o)?)
    })?;
    let publication = match &args.publication {
        None => None,
        Some(p) => Some(
            read_as(p, "--publication", Want::Publication, || {
                proofpack::publication::Publication::read_as(
                    p,
                    args.publication_format.map(Into::into),
                )
            })
            .context("cannot use the publication")?,
        ),
    };
    let shown = |p: &Option<std::path::PathBuf>| p.as_ref().map(|p| p.display().to_string());
    let page = PageContext {
        trust_sha256: trust_digest,
        trust: shown(&args.trust),
        publication: shown(&args.publication),
        pins: shown(&args.pins),
        verified_at: proofpack::timefmt::rfc3339_utc_now(),
    };
    let inputs = Inputs {
        pins: pins.as_ref(),
        trust: trust.as_ref(),
        publication: publication.as_ref(),
        deriver: Some(&proofpack::adopt::peer_deriver::PeerDeriver),
        seal: args.seal.as_deref(),
        limits: &args.limits.limits(),
        page: &page,
        policy: Policy::of_verify(args.strict, args.require_seal, args.structure_only),
    };
    let started = std::time::Instant::now();
    let progress = ui.bytes_progress("verifying");
    let v = proofpack::verify::verify(&target, &inputs, &progress)?;
    if let Some(out) = &args.html {
        let json: serde_json::Value = serde_json::from_str(&v.report.to_json())?;
        let html = proofpack::html::render(&json)?;
        super::output::write(out, html.as_bytes(), 0o644, true)?;
    }
    if let Some(vsa) = &vsa {
        let policy = super::vsa::PolicyInputs {
            trust: trust_digest,
            pins: pins_digest,
            publication: publication.as_ref().and_then(|p| p.source_sha256),
        };
        vsa.write(&v, &inputs, &policy, &page.verified_at, ui)?;
    }
    junit.write(&v.report, "verify")?;
    // The ledger entry; recording never changes the verdict or exit status.
    ui.record_verification(|| proofpack::catalog::VerificationRecord {
        target: target.display().to_string(),
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
    let (s, secs) = (v.report.summary(), started.elapsed().as_secs_f64());
    let n = v.report.checks().len();
    ui.note(&format!(
        "verify: {n} checks ({} passed, {} failed, {} skipped) in {secs:.2} s",
        s.passed, s.failed, s.skipped
    ));
    Ok(v.report.exit_code())
}

/// The target is a bundle, a run directory or a bag, or at least not a
/// file proofpack knows as something else: a write-up, a trust or pins
/// file, a key or a report given where the bundle goes is a usage error
/// (exit 2) naming where it goes, not a corrupt bundle (exit 1).
fn target_is_evidence(target: &Path) -> Result<()> {
    use super::filekind::{sniff, Kind};
    // Only a regular file is looked at: a pipe's bytes are read once, by
    // the verification.
    if !std::fs::metadata(target).is_ok_and(|m| m.is_file()) {
        return Ok(());
    }
    match sniff(target) {
        None | Some(Kind::Directory | Kind::Gzip | Kind::Unknown | Kind::Empty) => Ok(()),
        Some(kind) => anyhow::bail!(
            "{} is {}, not the run to verify (a sealed bundle .tgz, a run directory or a BagIt bag){}",
            target.display(),
            kind.noun(),
            kind.belongs()
                .map(|w| format!("; {w}"))
                .unwrap_or_default()
        ),
    }
}
