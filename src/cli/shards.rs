//! `shards check`: the structure of every safetensors shard under a root,
//! and its Hugging Face index, from the headers alone.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use proofpack::manifest::{self, Manifest};
use proofpack::report::Check;
use proofpack::safetensors::{self, index::SetSource, IndexArgs, ShardSpec};

use super::formats::FormatArg;
use super::{human_bytes, Ui};

/// `proofpack shards`
#[derive(clap::Args, Debug)]
pub struct ShardsArgs {
    #[command(subcommand)]
    pub command: ShardsCommand,
}

/// Shard subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum ShardsCommand {
    /// Check every safetensors shard's header (the reference reader's rules,
    /// one check per shard and rule) and, with --index, the shard index
    /// against the shards. Reads the headers only, never the tensor data.
    Check(CheckArgs),
}

/// `proofpack shards check`
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The checkpoint directory (or one .safetensors file).
    pub root: PathBuf,
    /// The shard index to check against the shards
    /// (model.safetensors.index.json); its file names are relative to its
    /// own directory.
    #[arg(long, value_name = "FILE")]
    pub index: Option<PathBuf>,
    /// Check the shards this manifest lists (its *.safetensors entries)
    /// instead of those found under ROOT, and the header digests a JSON
    /// record pins.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Override format detection of --manifest.
    #[arg(long, value_enum, value_name = "FORMAT", requires = "manifest")]
    pub manifest_format: Option<FormatArg>,
    /// Print the verification report (JSON) on stdout.
    #[arg(long)]
    pub json: bool,
}

pub fn run(a: ShardsArgs, ui: &Ui) -> Result<i32> {
    match a.command {
        ShardsCommand::Check(c) => run_check(c, ui),
    }
}

/// The shards under ROOT: every `*.safetensors` file a manifest of ROOT
/// would list; an unlistable path with that suffix (a dangling link, a
/// special file) is a shard that fails `shard.read`.
fn scanned(root: &Path) -> Result<(Vec<ShardSpec>, Vec<Check>)> {
    let (found, problems) =
        manifest::scan_all(root, &[]).with_context(|| format!("cannot list {}", root.display()))?;
    let specs = found
        .iter()
        .filter(|f| safetensors::is_shard_path(&f.rel))
        .map(|f| ShardSpec::new(f.rel.clone()))
        .collect();
    let bad = problems
        .into_iter()
        .filter(|(p, _)| safetensors::is_shard_path(p))
        .map(|(p, why)| {
            Check::fail(
                safetensors::check_id("read", &p),
                format!("cannot be read as a file: {why}"),
            )
        })
        .collect();
    Ok((specs, bad))
}

fn run_check(a: CheckArgs, ui: &Ui) -> Result<i32> {
    let t = Instant::now();
    let meta =
        std::fs::metadata(&a.root).with_context(|| format!("cannot read {}", a.root.display()))?;
    // A single file is checked under its own name, beside which it lies.
    let (root, single) = if meta.is_file() {
        let name = a
            .root
            .file_name()
            .and_then(|n| n.to_str())
            .context("the file name is not UTF-8")?
            .to_string();
        let parent = a.root.parent().unwrap_or(Path::new("")).to_path_buf();
        (parent, Some(name))
    } else {
        (a.root.clone(), None)
    };
    let (specs, unlistable, source) = match (&a.manifest, &single) {
        (Some(m), _) => {
            let (m, _) = Manifest::read_file(m, a.manifest_format.map(Into::into))?;
            (m.shard_specs(), Vec::new(), SetSource::Manifest)
        }
        (None, Some(name)) => (
            vec![ShardSpec::new(name.clone())],
            Vec::new(),
            SetSource::Scanned,
        ),
        (None, None) => {
            let (s, bad) = scanned(&root)?;
            (s, bad, SetSource::Scanned)
        }
    };
    let idx = a.index.as_deref().map(|path| IndexArgs { path, source });
    let (mut report, stats) = safetensors::check_checkpoint(&root, &specs, idx)?;
    for c in unlistable {
        report.push(c);
    }
    if a.index.is_none() && single.is_none() {
        let beside = root.join("model.safetensors.index.json");
        if beside.is_file() {
            report.push(Check::skip(
                "index",
                format!(
                    "not checked: {} exists; pass --index to check it against the shards",
                    beside.display()
                ),
            ));
        }
    }
    if a.json {
        println!("{}", report.to_json());
    } else {
        ui.print_checks(&report, "");
    }
    let secs = t.elapsed().as_secs_f64();
    let s = report.summary();
    let facts = format!(
        "{} shards, {} tensors, {} of tensor data; {} of headers read in {secs:.2} s",
        stats.shards,
        stats.tensors,
        human_bytes(u64::try_from(stats.tensor_bytes).unwrap_or(u64::MAX)),
        human_bytes(stats.bytes_read),
    );
    if report.ok() {
        ui.note(&format!("shards: OK, {facts}"));
    } else {
        ui.note(&format!(
            "shards: FAILED, {} of {} checks failed ({} causes); {facts}",
            s.failed,
            s.failed + s.passed,
            s.causes()
        ));
    }
    Ok(report.exit_code())
}
