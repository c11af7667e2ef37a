//! `receipt verify`: an InferenceX source measurement receipt directory
//! (receipt.json, receipt.sha256, one folder per artifact).

use std::path::PathBuf;

use anyhow::{Context, Result};
use proofpack::peers::receipt::{parse_pin, verify_receipt_dir};

use super::junit::JunitArgs;
use super::Ui;

/// `proofpack receipt`
#[derive(clap::Args, Debug)]
pub struct ReceiptArgs {
    #[command(subcommand)]
    pub command: ReceiptCommand,
}

/// `proofpack receipt ...`
#[derive(clap::Subcommand, Debug)]
pub enum ReceiptCommand {
    /// Verify a receipt directory: transport digest, receipt id, every
    /// member's size and SHA-256, no extra, missing or linked files, and
    /// each point's execution record (completed, client exit code 0).
    Verify(VerifyArgs),
}

/// `proofpack receipt verify`
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The receipt directory.
    pub dir: PathBuf,
    /// The receipt's published SHA-256 (of receipt.json's bytes, or its
    /// receipt_id): anchors the receipt to what was published. Without
    /// it the verdict says "unpinned": whoever holds the directory can
    /// change any file and re-derive every digest.
    #[arg(long, value_name = "SHA256")]
    pub pin: Option<String>,
    /// Print the report as one JSON object (proofpack/report/v1).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub junit: JunitArgs,
}

pub fn run_receipt(a: ReceiptArgs, ui: &Ui) -> Result<i32> {
    match a.command {
        ReceiptCommand::Verify(a) => verify(a, ui),
    }
}

fn verify(a: VerifyArgs, ui: &Ui) -> Result<i32> {
    let junit = a.junit.start()?;
    let pin = a
        .pin
        .as_deref()
        .map(parse_pin)
        .transpose()
        .map_err(anyhow::Error::msg)?;
    let report = verify_receipt_dir(&a.dir, pin.as_deref()).context("cannot verify the receipt")?;
    junit.write(&report, "receipt verify")?;
    let verdict = report.verdict().unwrap_or_default().to_string();
    if a.json {
        println!("{}", report.to_json());
    } else {
        ui.print_checks(&report, "");
        println!(
            "{}",
            if report.ok() {
                ui.green(&verdict)
            } else {
                ui.red(&verdict)
            }
        );
    }
    Ok(report.exit_code())
}
