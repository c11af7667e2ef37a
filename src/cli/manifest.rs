//! `manifest`, `check` and `diff`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::ValueEnum;
use proofpack::manifest::{self, BuildOptions, CheckOptions, Format, Manifest};
use proofpack::report::EXIT_OK;

use super::{human_bytes, human_rate, Ui};

/// Output/input manifest formats on the command line.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum FormatArg {
    /// `path:sha256` lines, sorted: the identity of the set.
    Canonical,
    /// JSON record with sizes and totals.
    Json,
    /// coreutils `sha256sum` lines.
    Sha256sum,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Canonical => Format::Canonical,
            FormatArg::Json => Format::Json,
            FormatArg::Sha256sum => Format::Sha256sum,
        }
    }
}

/// Options for walking and hashing.
#[derive(clap::Args, Debug, Clone)]
pub struct WalkArgs {
    /// Leave out paths matching this glob (repeatable). Without '/', the
    /// pattern matches any single path component (`*.tmp`, `.git`); with
    /// '/', the whole relative path (`logs/*.txt`). `*` stops at '/', `**`
    /// does not.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Hashing threads (default: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
}

impl WalkArgs {
    fn build_options(&self) -> BuildOptions<'static> {
        BuildOptions {
            excludes: self.exclude.clone(),
            threads: self.threads,
            cache: None,
        }
    }
}

/// `proofpack manifest`
#[derive(clap::Args, Debug)]
pub struct ManifestArgs {
    /// Directory (or single file) to list.
    pub path: PathBuf,
    /// Write the manifest here (atomically) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "canonical")]
    pub format: FormatArg,
    #[command(flatten)]
    pub walk: WalkArgs,
}

/// `proofpack check`
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// Directory to check.
    pub path: PathBuf,
    /// The manifest to check against (canonical, JSON record or sha256sum; detected).
    #[arg(long, value_name = "FILE")]
    pub manifest: PathBuf,
    /// Override format detection of --manifest.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub manifest_format: Option<FormatArg>,
    /// Check presence and sizes only, reading no file contents (needs a JSON record).
    #[arg(long)]
    pub sizes_only: bool,
    /// Print the verification report (JSON) on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub walk: WalkArgs,
}

/// `proofpack diff`
#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// The old side: a manifest file (any format) or a directory.
    pub old: PathBuf,
    /// The new side: a manifest file (any format) or a directory.
    pub new: PathBuf,
    /// Print the report (JSON) on stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub walk: WalkArgs,
}

fn summary_line(verb: &str, m: &Manifest, secs: f64) -> String {
    let bytes = m.total_bytes().unwrap_or(0);
    format!(
        "{verb}: {} files, {}, {}, {:.2} s, {}",
        m.len(),
        human_bytes(bytes),
        m.digest().prefixed(),
        secs,
        human_rate(bytes, secs)
    )
}

pub fn run_manifest(a: ManifestArgs, ui: &Ui) -> Result<i32> {
    let t = Instant::now();
    let progress = ui.bytes_progress("hashing");
    let m = manifest::build(&a.path, &a.walk.build_options(), &progress)?;
    let text = m.render(a.format.into())?;
    match &a.output {
        Some(out) => proofpack::atomic::write_atomic(out, text.as_bytes(), 0o644, true)?,
        None => {
            let mut so = std::io::stdout().lock();
            so.write_all(text.as_bytes()).context("writing to stdout")?;
            so.flush().context("writing to stdout")?;
        }
    }
    ui.note(&summary_line("manifest", &m, t.elapsed().as_secs_f64()));
    Ok(EXIT_OK)
}

/// Loads one side of a comparison: a directory is hashed, a file is read as a manifest.
fn load_side(p: &Path, walk: &WalkArgs, ui: &Ui) -> Result<Manifest> {
    let meta = std::fs::metadata(p).with_context(|| format!("cannot read {}", p.display()))?;
    if meta.is_dir() {
        let progress = ui.bytes_progress(&format!("hashing {}", p.display()));
        Ok(manifest::build(p, &walk.build_options(), &progress)?)
    } else {
        Ok(Manifest::read_file(p, None)?.0)
    }
}

pub fn run_check(a: CheckArgs, ui: &Ui) -> Result<i32> {
    let t = Instant::now();
    let origin = a.manifest.display().to_string();
    let (m, _) = Manifest::read_file(&a.manifest, a.manifest_format.map(Into::into))?;
    let opts = CheckOptions {
        build: a.walk.build_options(),
        sizes_only: a.sizes_only,
    };
    let progress = ui.bytes_progress("checking");
    let report = manifest::check(&a.path, &m, &origin, &opts, &progress)?;
    if a.json {
        println!("{}", report.to_json());
    } else {
        ui.print_checks(&report, "file:");
    }
    let s = report.summary;
    let secs = t.elapsed().as_secs_f64();
    let what = if a.sizes_only { "sizes" } else { "contents" };
    if report.ok {
        ui.note(&format!(
            "check: OK, {} files match {origin} ({what}, {secs:.2} s)",
            s.passed
        ));
    } else {
        ui.note(&format!(
            "check: FAILED, {} of {} paths differ from {origin} ({what}, {secs:.2} s)",
            s.failed,
            s.failed + s.passed
        ));
    }
    Ok(report.exit_code())
}

pub fn run_diff(a: DiffArgs, ui: &Ui) -> Result<i32> {
    let old = load_side(&a.old, &a.walk, ui)?;
    let new = load_side(&a.new, &a.walk, ui)?;
    let d = manifest::diff(&old, &new);
    let target = format!("{} -> {}", a.old.display(), a.new.display());
    let report = d.to_report(&target, &old, &new);
    if a.json {
        println!("{}", report.to_json());
    } else {
        for c in report
            .checks
            .iter()
            .filter(|c| c.failed() && c.id.starts_with("diff:"))
        {
            println!("{}: {}", c.detail, &c.id["diff:".len()..]);
        }
    }
    if d.is_empty() {
        ui.note(&format!(
            "diff: no drift, {} files, {}",
            d.unchanged,
            new.digest().prefixed()
        ));
    } else {
        ui.note(&format!(
            "diff: DRIFT, {} added, {} removed, {} changed, {} unchanged ({} -> {})",
            d.added.len(),
            d.removed.len(),
            d.changed.len(),
            d.unchanged,
            old.digest().prefixed(),
            new.digest().prefixed()
        ));
    }
    Ok(report.exit_code())
}
