//! `manifest --partition K/N` and `manifest merge`: one tree hashed in parts
//! on many machines.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use proofpack::manifest::BuildOptions;
use proofpack::partition::{self, Part};
use proofpack::report::EXIT_OK;

use super::formats::FormatArg;
use super::Ui;

/// `proofpack manifest merge`
#[derive(clap::Subcommand, Debug)]
pub enum ManifestCommand {
    /// Join the N parts of a partitioned manifest into the manifest of the
    /// whole tree (refusing overlaps, gaps, parts of other trees, a part
    /// count other than N).
    Merge(MergeArgs),
}

/// `proofpack manifest merge`
#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The part files (`manifest --partition K/N -o part-K.json`).
    #[arg(required = true)]
    pub parts: Vec<PathBuf>,
    /// Write the merged manifest here (atomically) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "canonical")]
    pub format: FormatArg,
    /// Accept parts hashed under different roots (the same tree mounted
    /// at different places); the stat list must still be one.
    #[arg(long)]
    pub allow_roots: bool,
}

fn write_out(out: Option<&Path>, text: &str) -> Result<()> {
    super::output::write_or_stdout(out, text.as_bytes())
}

pub fn run(c: ManifestCommand, ui: &Ui) -> Result<i32> {
    let ManifestCommand::Merge(a) = c;
    if let Some(out) = &a.output {
        super::output::check(out)?;
    }
    let mut parts = Vec::new();
    for p in &a.parts {
        let bytes = proofpack::capped::read_capped(p, proofpack::manifest::MAX_MANIFEST_BYTES * 4)
            .with_context(|| format!("cannot read the part {}", p.display()))?;
        parts.push((
            p.display().to_string(),
            Part::parse(&bytes, &p.display().to_string())?,
        ));
    }
    let m = partition::merge(&parts, a.allow_roots)?;
    let hosts: std::collections::BTreeSet<&str> =
        parts.iter().map(|(_, p)| p.host.as_str()).collect();
    write_out(a.output.as_deref(), &m.render(a.format.into())?)?;
    ui.note(&format!(
        "manifest merge: {} parts from {} host(s), {} files, {}",
        parts.len(),
        hosts.len(),
        m.len(),
        m.digest().prefixed()
    ));
    Ok(EXIT_OK)
}

pub fn run_part(
    root: &Path,
    spec: &str,
    out: Option<&Path>,
    build: BuildOptions<'_>,
    ui: &Ui,
) -> Result<i32> {
    let (k, n) = partition::parse_spec(spec)?;
    if let Some(out) = out {
        super::output::check(out)?;
    }
    let progress = ui.bytes_progress("hashing");
    let part = partition::build_part(root, k, n, &build, &progress)?;
    write_out(out, &part.to_json())?;
    ui.note(&format!(
        "manifest part {k}/{n}: {} of {} files, of list {}",
        part.entries.len(),
        part.list_files,
        part.list
    ));
    Ok(EXIT_OK)
}
