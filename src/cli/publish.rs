//! `publish`: the claims and the write-up of a run, from its evidence.

use std::path::PathBuf;

use anyhow::{Context, Result};
use proofpack::adopt::publish::{publish, PublishRequest};
use proofpack::digest::Sha256Digest;
use proofpack::keys::TrustStore;
use proofpack::publication::MAX_PUBLICATION_BYTES;
use proofpack::report::EXIT_OK;
use proofpack::run::qualification::MAX_SMALL_FILE;

use super::Ui;

/// `proofpack publish`
#[derive(clap::Args, Debug)]
pub struct PublishArgs {
    /// The run directory.
    pub dir: PathBuf,
    /// Write the write-up here (atomically).
    #[arg(short, long, value_name = "PUBLICATION.md")]
    pub output: PathBuf,
    /// An existing write-up: only its "Pinned inputs" and "Measured points"
    /// tables (and its standard sentences) are replaced; its prose stays.
    #[arg(long, value_name = "WRITEUP.md")]
    pub template: Option<PathBuf>,
    /// The sealed bundle of this run: its SHA-256 is stated in the
    /// write-up; qualification.json is not changed (its claims must already
    /// be the ones publish computes).
    #[arg(long, value_name = "BUNDLE.tgz")]
    pub bundle: Option<PathBuf>,
    /// Check the engine attestations' signatures with these trust roots
    /// before their values are written (verify checks them in any case).
    #[arg(long, value_name = "TRUST")]
    pub trust: Option<PathBuf>,
    /// Print what was written as one JSON object instead (the notes are in
    /// it, not on stderr).
    #[arg(long)]
    pub json: bool,
}

pub fn run_publish(a: PublishArgs, ui: &Ui) -> Result<i32> {
    let template = match &a.template {
        None => None,
        Some(p) => {
            let bytes = proofpack::capped::read_capped(p, MAX_PUBLICATION_BYTES)
                .context("cannot read the template")?;
            let text = String::from_utf8(bytes)
                .map_err(|_| anyhow::anyhow!("{}: not UTF-8", p.display()))?;
            Some((text, p.display().to_string()))
        }
    };
    let bundle = match &a.bundle {
        None => None,
        Some(b) => {
            let (d, _) = proofpack::digest::hash_file(b, &proofpack::progress::NoProgress)
                .with_context(|| format!("cannot read the bundle {}", b.display()))?;
            let name = b
                .file_name()
                .and_then(|n| n.to_str())
                .ok_or_else(|| anyhow::anyhow!("{}: not a file name", b.display()))?
                .to_string();
            Some((name, d))
        }
    };
    let trust = match &a.trust {
        None => None,
        Some(p) => {
            let bytes = proofpack::capped::read_capped(p, MAX_SMALL_FILE)?;
            Some(
                TrustStore::parse(&bytes, &p.display().to_string())
                    .with_context(|| format!("cannot use the trust file {}", p.display()))?,
            )
        }
    };
    let req = PublishRequest {
        template: template.as_ref().map(|(t, o)| (t.as_str(), o.as_str())),
        bundle: bundle
            .as_ref()
            .map(|(n, d): &(String, Sha256Digest)| (n.as_str(), *d)),
        trust: trust.as_ref(),
    };
    // The write-up's file is started (its directory writable) before the
    // run's qualification.json is rewritten: all or nothing.
    let mut file = proofpack::atomic::AtomicFile::create(&a.output, 0o644, true)?;
    let (out, notes) = publish(&a.dir, &req)?;
    std::io::Write::write_all(&mut file, out.text.as_bytes())
        .with_context(|| format!("cannot write {}", a.output.display()))?;
    file.commit()?;
    if a.json {
        let v = serde_json::json!({
            "output": a.output.display().to_string(),
            "pinned_rows": out.pinned_rows,
            "points": out.points,
            "claims_written": out.claims_written,
            "qualification": a.dir.join("qualification.json").display().to_string(),
            "notes": notes,
        });
        println!("{v}");
        return Ok(EXIT_OK);
    }
    for n in &notes {
        ui.warn(n);
    }
    println!(
        "{}: {} pinned input(s), {} measured point(s){}",
        a.output.display(),
        out.pinned_rows,
        out.points,
        if out.claims_written {
            format!(
                "; the claims were written into {}",
                a.dir.join("qualification.json").display()
            )
        } else {
            "; qualification.json already held these claims".to_string()
        }
    );
    Ok(EXIT_OK)
}
