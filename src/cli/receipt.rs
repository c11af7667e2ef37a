//! `receipt verify`: an InferenceX source measurement receipt directory
//! (receipt.json, receipt.sha256, one folder per artifact).

use std::path::PathBuf;

use anyhow::{Context, Result};
use proofpack::peers::receipt::verify_receipt_dir;

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
    /// Print the report as one JSON object (proofpack/report/v1).
    #[arg(long)]
    pub json: bool,
}

pub fn run_receipt(a: ReceiptArgs, ui: &Ui) -> Result<i32> {
    match a.command {
        ReceiptCommand::Verify(a) => verify(a, ui),
    }
}

fn verify(a: VerifyArgs, ui: &Ui) -> Result<i32> {
    let report = verify_receipt_dir(&a.dir).context("cannot verify the receipt")?;
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
