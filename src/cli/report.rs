//! `report`: a saved JSON report rendered as the HTML page (the same page
//! `verify --html` writes, from the same JSON).

use std::path::PathBuf;

use anyhow::{Context, Result};
use proofpack::report::EXIT_OK;

use super::Ui;

/// `proofpack report`
#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// A JSON report (`verify --json`).
    pub report: PathBuf,
    /// The page to write (atomically; `-` for standard output).
    #[arg(short, long, value_name = "REPORT.html")]
    pub output: PathBuf,
}

pub fn run_report(a: ReportArgs, ui: &Ui) -> Result<i32> {
    super::output::check(&a.output)?;
    let bytes =
        proofpack::capped::read_capped(&a.report, 256 << 20).context("cannot read the report")?;
    let json: serde_json::Value = serde_json::from_slice(&bytes)
        .with_context(|| format!("{}: not JSON", a.report.display()))?;
    let html = proofpack::html::render(&json).with_context(|| a.report.display().to_string())?;
    super::output::write(&a.output, html.as_bytes(), 0o644, true)?;
    ui.note(&format!(
        "report: {} ({} bytes) from {}",
        a.output.display(),
        html.len(),
        a.report.display()
    ));
    Ok(EXIT_OK)
}
