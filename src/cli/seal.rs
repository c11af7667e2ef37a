//! `seal`: run directory -> deterministic bundle + `.sha256` sidecar.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use proofpack::bundle::{self, SealOptions, DEFAULT_LEVEL};
use proofpack::report::{EXIT_FAILED, EXIT_OK};

use super::{human_bytes, human_rate, Ui};

/// `proofpack seal`
#[derive(clap::Args, Debug)]
pub struct SealArgs {
    /// The run directory to seal.
    pub run_dir: PathBuf,
    /// The bundle to write (BUNDLE.tgz); BUNDLE.tgz.sha256 is written beside it.
    #[arg(short, long, value_name = "BUNDLE.tgz")]
    pub output: PathBuf,
    /// Top-level directory name inside the bundle (default: `name` of
    /// qualification.json, else the run directory's name).
    #[arg(long, value_name = "NAME")]
    pub name: Option<String>,
    /// gzip level, 0 (store) to 9 (smallest). The level is part of what makes
    /// a bundle byte-reproducible: seal with the same level to get the same bytes.
    #[arg(long, value_name = "0-9", default_value_t = DEFAULT_LEVEL, value_parser = clap::value_parser!(u32).range(0..=9))]
    pub level: u32,
    /// Sign the seal with this release key (PKCS#8 PEM): also writes
    /// BUNDLE.tgz.seal.dsse.json (sealed_at from SOURCE_DATE_EPOCH if set, else now).
    #[arg(long, value_name = "RELEASE_KEY")]
    pub key: Option<PathBuf>,
    /// Hashing and compression threads (default: one per core). The bundle's
    /// bytes are the same for any number (deflated in 128 KiB blocks).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Print the result as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Without --key: remove a seal left beside the output by an earlier
    /// signed seal (else seal refuses, since the old seal would sit beside
    /// other bytes).
    #[arg(long)]
    pub force: bool,
}

pub fn run_seal(a: SealArgs, ui: &Ui) -> Result<i32> {
    super::output::check_file(
        &a.output,
        "seal writes the bundle and its .sha256 (and .seal.dsse.json) beside it",
    )?;
    let t = Instant::now();
    let opts = SealOptions {
        name: a.name.clone(),
        level: a.level,
        mtime: bundle::source_date_epoch()?,
        threads: a.threads,
        replace_stale_seal: a.force,
    };
    // Load the key first: a bad key must fail before anything is written.
    let key = match &a.key {
        Some(p) => Some((
            proofpack::keys::load_signing_key(p)?,
            bundle::sealed_at_now()?,
        )),
        None => None,
    };
    let progress = ui.cancellable_progress("sealing");
    let sealed = match &key {
        Some((k, at)) => bundle::seal_signed(&a.run_dir, &a.output, &opts, k, at, &progress),
        None => bundle::seal(&a.run_dir, &a.output, &opts, &progress),
    };
    let s = match sealed {
        Ok(s) => s,
        // The run holds evidence that a bundle cannot carry faithfully:
        // that is a verdict on the evidence (exit 1), not a tool failure.
        Err(
            e @ (bundle::BundleError::Unsealable { .. }
            | bundle::BundleError::ExceedsReaderLimits { .. }),
        ) => {
            ui.error(&anyhow::Error::new(e));
            return Ok(EXIT_FAILED);
        }
        Err(e) => return Err(e.into()),
    };
    let seal_file = key.as_ref().map(|_| bundle::seal_path(&a.output));
    let v = serde_json::json!({
        "bundle": a.output.display().to_string(),
        "sha256": s.bundle_sha256.to_hex(),
        "manifest_digest": s.manifest_digest.prefixed(),
        "root": s.root,
        "files": s.files,
        "bytes": s.bytes,
        "seal": seal_file.as_ref().map(|p| p.display().to_string()),
    });
    let json = serde_json::to_string_pretty(&v)?;
    // The ledger entry: what `seal --json` prints. Never changes the result.
    ui.record_seal(&proofpack::catalog::SealRecord {
        target: a.output.display().to_string(),
        bundle_sha256: Some(s.bundle_sha256.to_hex()),
        manifest_sha256: Some(s.manifest_digest.to_hex()),
        run_name: Some(s.root.clone()),
        ok: true,
        report_json: json.clone(),
        ..Default::default()
    });
    if a.json {
        println!("{json}");
    } else {
        println!(
            "bundle   {}  {}",
            s.bundle_sha256.prefixed(),
            a.output.display()
        );
        println!(
            "MANIFEST {}  ({} files, {})",
            s.manifest_digest.prefixed(),
            s.files,
            human_bytes(s.bytes)
        );
        if let Some(p) = &seal_file {
            println!("seal     {}", p.display());
        }
    }
    let secs = t.elapsed().as_secs_f64();
    ui.note(&format!(
        "seal: {} files under {}/, {}, {:.2} s, {}",
        s.files,
        s.root,
        human_bytes(s.bytes),
        secs,
        human_rate(s.bytes, secs)
    ));
    Ok(EXIT_OK)
}
