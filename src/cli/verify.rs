//! `verify`: the auditor's verb. A sealed bundle or a run directory, the
//! published pins and the trust roots in; a checklist, a verdict and the
//! recomputed measured-points table out.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::ValueEnum;
use proofpack::keys::TrustStore;
use proofpack::qualify::attested::TrustVerifier;
use proofpack::qualify::bundled::{verify_bundle_file, SealRequest};
use proofpack::qualify::schema::{Pins, MAX_SMALL_FILE};
use proofpack::qualify::{self, table, Options, Verification};
use proofpack::report::{Check, Report};

use super::bundle_args::LimitArgs;
use super::{describe, Ui};

/// How to print the recomputed table.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFormat {
    /// Aligned plain text.
    Text,
    /// GitHub-flavoured Markdown, ready to paste into a publication.
    Markdown,
    /// No table.
    None,
}

/// `proofpack verify`
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The sealed bundle (.tgz), the run directory, or a BagIt bag of one
    /// (`unpack --bagit`) to verify.
    pub target: PathBuf,
    /// The published pins (proofpack/pins/v1). Without it the verdict is
    /// "unpinned": the run is checked for internal consistency only.
    #[arg(long, value_name = "PINS")]
    pub pins: Option<PathBuf>,
    /// Trust roots (proofpack/trust/v1). Without it the engine attestations
    /// fail: a signature that nobody trusts proves nothing.
    #[arg(long, value_name = "TRUST")]
    pub trust: Option<PathBuf>,
    /// Print the report as one JSON object (proofpack/report/v1) instead.
    #[arg(long)]
    pub json: bool,
    /// The release seal (default: BUNDLE.tgz.seal.dsse.json beside the bundle).
    #[arg(long, value_name = "FILE")]
    pub seal: Option<PathBuf>,
    /// Fail unless a release seal is present and verifies under a key of
    /// --trust trusted for `release`.
    #[arg(long)]
    pub require_seal: bool,
    /// Verify only the bundle's structure and seal, not the qualification
    /// (for a bundle that is not a qualification run). The verdict says so.
    #[arg(long)]
    pub structure_only: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Layout of the recomputed measured-points table.
    #[arg(long, value_enum, default_value = "text")]
    pub table: TableFormat,
    /// The published write-up (Markdown, or the text a docs site exports):
    /// every row of its "Pinned inputs" table and every cell of its
    /// "Measured points" table is checked against the evidence.
    #[arg(long, value_name = "WRITEUP.md")]
    pub publication: Option<PathBuf>,
    /// With --publication: a row that no evidence in the run supports fails
    /// (by default it is reported as not checked, and named).
    #[arg(long, requires = "publication")]
    pub require_all_rows: bool,
    /// Also write the report as one self-contained HTML page (verdict,
    /// checks, published inputs, recomputed table, latency plots).
    #[arg(long, value_name = "REPORT.html")]
    pub html: Option<PathBuf>,
}

fn read_arg_file(path: &std::path::Path, what: &str) -> Result<Vec<u8>> {
    proofpack::manifest::read_capped(path, MAX_SMALL_FILE)
        .with_context(|| format!("cannot read the {what} file"))
}

/// Runs `proofpack verify`.
pub fn run_verify(args: VerifyArgs, ui: &Ui) -> Result<i32> {
    let mut pins_digest = None;
    let pins = match &args.pins {
        None => None,
        Some(p) => {
            let bytes = read_arg_file(p, "pins")?;
            pins_digest = Some(proofpack::digest::Sha256Digest::of_bytes(&bytes));
            Some(Pins::parse(&bytes, &p.display().to_string()).map_err(anyhow::Error::msg)?)
        }
    };
    let trust = match &args.trust {
        None => None,
        Some(p) => Some(
            TrustStore::load(p)
                .with_context(|| format!("cannot use the trust file {}", p.display()))?,
        ),
    };
    let trust_digest = match &args.trust {
        Some(p) => Some(proofpack::digest::Sha256Digest::of_bytes(&read_arg_file(
            p, "trust",
        )?)),
        None => None,
    };
    let publication = match &args.publication {
        None => None,
        Some(p) => Some(
            proofpack::publication::Publication::read(p).context("cannot use the publication")?,
        ),
    };
    let verifier = trust.as_ref().map(|t| TrustVerifier { trust: t });
    let opts = Options {
        pins: pins.as_ref(),
        attestations: verifier
            .as_ref()
            .map(|v| v as &dyn qualify::EngineAttestationVerifier),
        publication: publication.as_ref(),
        require_all_rows: args.require_all_rows,
    };
    let started = std::time::Instant::now();
    let v = if args.target.is_dir() {
        if args.structure_only {
            anyhow::bail!("--structure-only applies to a bundle (.tgz); a run directory has no bundle structure");
        }
        // BagIt hook: a directory holding bagit.txt is a bag (its own
        // manifests, then data/ as the run); any other is the run itself.
        let mut v = proofpack::bagit::verify_run_dir_or_bag(&args.target, &opts, trust.as_ref())?;
        if args.require_seal {
            v.report.push(Check::fail(
                "seal",
                "--require-seal: a run directory has no release seal; verify the sealed bundle",
            ));
        }
        v
    } else {
        if args.require_seal && trust.is_none() {
            anyhow::bail!(
                "--require-seal needs --trust TRUST (the release keys to check the seal against)"
            );
        }
        let progress = ui.bytes_progress("verifying");
        let seal = SealRequest {
            path: args.seal.as_deref(),
            trust: trust.as_ref(),
            require: args.require_seal,
            structure_only: args.structure_only,
        };
        verify_bundle_file(&args.target, &args.limits.limits(), &seal, &opts, &progress)?
    };
    let mut v = v;
    v.report.verdict = Some(qualify::verdict::verdict(&v).line);
    let page = qualify::pagedata::PageContext {
        trust_sha256: trust_digest,
        trust: args.trust.as_ref().map(|p| p.display().to_string()),
        publication: args.publication.as_ref().map(|p| p.display().to_string()),
        pins: args.pins.as_ref().map(|p| p.display().to_string()),
        verified_at: proofpack::timefmt::rfc3339_utc_now(),
    };
    qualify::pagedata::enrich(&mut v, &page, publication.as_ref(), pins.as_ref());
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
        run_name: v
            .qualification
            .as_ref()
            .map(|q| q.name.clone())
            .or_else(|| v.root.clone()),
        pins_sha256: pins_digest.map(|d| d.to_hex()),
        ok: v.report.ok,
        report_json: v.report.to_json(),
        ..Default::default()
    });
    if args.json {
        println!("{}", v.report.to_json());
    } else {
        print_human(&v, &args, ui);
    }
    {
        ui.note(&format!(
            "verify: {} checks ({} passed, {} failed, {} skipped) in {:.2} s",
            v.report.checks.len(),
            v.report.summary.passed,
            v.report.summary.failed,
            v.report.summary.skipped,
            started.elapsed().as_secs_f64()
        ));
    }
    Ok(v.report.exit_code())
}

fn bold(ui: &Ui, s: &str) -> String {
    if ui.color_out {
        format!("\x1b[1m{s}\x1b[0m")
    } else {
        s.to_string()
    }
}

fn mark(ui: &Ui, c: &Check) -> String {
    match c.ok {
        Some(true) => ui.green("PASS"),
        Some(false) => ui.red("FAIL"),
        None => ui.yellow("SKIP"),
    }
}

fn print_human(v: &Verification, args: &VerifyArgs, ui: &Ui) {
    let r = &v.report;
    println!("{}", bold(ui, &format!("proofpack verify {}", r.target)));
    let mut current = String::new();
    let bundle_entries_ok = r
        .checks
        .iter()
        .filter(|c| c.id.starts_with("bundle.entry:"))
        .all(|c| c.ok == Some(true));
    let entries = r
        .checks
        .iter()
        .filter(|c| c.id.starts_with("bundle.entry:"))
        .count();
    let mut entries_summarised = false;
    let points: Vec<&str> = v
        .qualification
        .as_ref()
        .map(|q| q.points.iter().map(|p| p.name.as_str()).collect())
        .unwrap_or_default();
    for c in &r.checks {
        let a = Report::area(&c.id, &points);
        if a != current {
            println!("\n{}", bold(ui, &a));
            current = a;
        }
        // Hundreds of passing entry checks say nothing a summary does not.
        if c.id.starts_with("bundle.entry:") && bundle_entries_ok && !ui.verbose {
            if !entries_summarised {
                println!(
                    "  {} bundle.entry:*  all {entries} files match MANIFEST",
                    ui.green("PASS")
                );
                entries_summarised = true;
            }
            continue;
        }
        let detail = if c.ok == Some(false) {
            describe(c)
        } else {
            c.detail.clone()
        };
        println!("  {} {}  {}", mark(ui, c), c.id, detail);
    }
    println!();
    let unmapped: Vec<&Check> = r
        .checks
        .iter()
        .filter(|c| c.id.starts_with("publication:") && c.ok.is_none())
        .collect();
    if !unmapped.is_empty() {
        println!(
            "\n{}",
            bold(ui, "Published but not checked (no evidence in this run; --require-all-rows fails them):")
        );
        for c in unmapped {
            println!("  {} {}", c.id, c.detail);
        }
    }
    let line = r.verdict.clone().unwrap_or_default();
    if r.ok {
        println!("{}", ui.green(&bold(ui, &line)));
    } else {
        println!("{}", ui.red(&bold(ui, &line)));
    }
    if args.table != TableFormat::None && !v.rows.is_empty() {
        let q = v.qualification.as_ref();
        println!(
            "\nMeasured points of {} (recomputed from the client records{}):\n",
            q.map_or("the run", |q| q.name.as_str()),
            if r.ok {
                ""
            } else {
                "; the verdict above is FAILED"
            }
        );
        match args.table {
            TableFormat::Markdown => print!("{}", table::render_markdown(&v.rows)),
            _ => print!("{}", table::render_text(&v.rows)),
        }
    }
}
