//! `pins from-publication`: the pins a published write-up states, as a pins
//! file, and row by row what each row became.

use std::path::PathBuf;

use anyhow::{Context, Result};
use proofpack::publication::Publication;
use proofpack::report::EXIT_OK;
use proofpack::run::qualification::Pins;
use proofpack::verify::checks::published::pins_from_publication;

use super::Ui;

/// `proofpack pins`
#[derive(clap::Args, Debug)]
pub struct PinsArgs {
    #[command(subcommand)]
    pub command: PinsCommand,
}

/// `proofpack pins ...`
#[derive(clap::Subcommand, Debug)]
pub enum PinsCommand {
    /// Write the pins a write-up states (its SHA-256 rows, the engine image,
    /// the shard count, source commits, the bundle digest of its prose).
    FromPublication(FromPublicationArgs),
}

/// `proofpack pins from-publication`
#[derive(clap::Args, Debug)]
pub struct FromPublicationArgs {
    /// The write-up (Markdown, or the text copied from its rendered page).
    pub publication: PathBuf,
    /// Read the write-up in this form (by default: tab-separated table
    /// rows and no Markdown delimiter row are the text form, else gfm).
    #[arg(long, value_enum, value_name = "FORM")]
    pub publication_format: Option<super::formats::PublicationFormatArg>,
    /// Write the pins file here (atomically) instead of stdout.
    #[arg(short, long, value_name = "PINS.json")]
    pub output: Option<PathBuf>,
    /// Replace an existing output file.
    #[arg(long)]
    pub force: bool,
}

pub fn run_pins(a: PinsArgs, ui: &Ui) -> Result<i32> {
    match a.command {
        PinsCommand::FromPublication(a) => from_publication(a, ui),
    }
}

fn from_publication(a: FromPublicationArgs, ui: &Ui) -> Result<i32> {
    if let Some(out) = &a.output {
        super::output::check(out)?;
    }
    let p = Publication::read_as(&a.publication, a.publication_format.map(Into::into))
        .context("cannot use the publication")?;
    let (pins, rows) = pins_from_publication(&p);
    let mut text = serde_json::to_string_pretty(&pins)?;
    text.push('\n');
    // What is written must be a pins file verify accepts.
    Pins::parse(text.as_bytes(), &a.publication.display().to_string())
        .map_err(anyhow::Error::msg)
        .context("the pins this write-up states do not form a usable pins file")?;
    for r in &rows {
        let became: Vec<String> = r
            .pins
            .iter()
            .map(|p| {
                let name = p["name"].as_str().unwrap_or("?");
                match (p.get("sha256"), p.get("value"), p.get("files")) {
                    (Some(d), _, Some(f)) => {
                        format!("pin {name} sha256 {} files {f}", d.as_str().unwrap_or(""))
                    }
                    (Some(d), _, None) => format!("pin {name} sha256 {}", d.as_str().unwrap_or("")),
                    (None, Some(v), _) => format!("pin {name} value {}", v.as_str().unwrap_or("")),
                    _ => format!("pin {name}"),
                }
            })
            .collect();
        let mut line = format!("{}:{} {}: ", p.origin, r.line, r.label);
        if became.is_empty() {
            line.push_str("no pin");
        } else {
            line.push_str(&became.join("; "));
        }
        if let Some(n) = &r.note {
            line.push_str(&format!(" ({n})"));
        }
        ui.note(&line);
    }
    let n = pins["pins"].as_array().map_or(0, |a| a.len());
    match &a.output {
        Some(out) => {
            super::output::write(out, text.as_bytes(), 0o644, a.force)?;
            ui.note(&format!(
                "pins from-publication: {n} pins written to {}",
                out.display()
            ));
        }
        None => print!("{text}"),
    }
    Ok(EXIT_OK)
}
