//! `results check`: a vLLM or SGLang result file recomputed from its
//! per-request arrays, optionally with an InferenceX row (`--row`, either
//! layout) and proofpack claims (`--claims --point`) cross-checked.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};
use clap::ValueEnum;
use proofpack::peers::{self, claims, inferencex, Format};
use proofpack::run::qualification::{Qualification, MAX_SMALL_FILE};

use super::junit::JunitArgs;
use super::Ui;

/// `proofpack results`
#[derive(clap::Args, Debug)]
pub struct ResultsArgs {
    #[command(subcommand)]
    pub command: ResultsCommand,
}

/// `proofpack results ...`
#[derive(clap::Subcommand, Debug)]
pub enum ResultsCommand {
    /// Recompute every summary field of a benchmark client's result file
    /// from its per-request arrays, by the client's own definitions.
    Check(CheckArgs),
}

/// Which client wrote the file.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatArg {
    /// From the file's keys, per result object.
    Auto,
    /// vLLM `bench serve` / `benchmark_serving.py`.
    Vllm,
    /// SGLang `bench_serving` (JSON Lines).
    Sglang,
}

/// `proofpack results check`
#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The result file (vLLM JSON, SGLang JSON Lines).
    pub file: PathBuf,
    /// Which client wrote FILE (an input format, like --manifest-format;
    /// formerly --format, which elsewhere names an output format).
    #[arg(
        long = "results-format",
        alias = "format",
        value_enum,
        value_name = "FORMAT",
        default_value = "auto"
    )]
    pub results_format: FormatArg,
    /// InferenceX rows to recompute from FILE by utils/process_result.py's
    /// rules: a process_result.py row (agg_*.json, or an array of them) or
    /// InferenceX-app database rows (numbers under "metrics"); the row is
    /// chosen by FILE's max_concurrency and model_id.
    #[arg(long, value_name = "ROWS.json")]
    pub row: Option<PathBuf>,
    /// With --row: the input sequence length of the row, when several rows
    /// match the model and concurrency.
    #[arg(long, value_name = "N", requires = "row")]
    pub isl: Option<u64>,
    /// With --row: the output sequence length of the row, when several rows
    /// match the model and concurrency.
    #[arg(long, value_name = "N", requires = "row")]
    pub osl: Option<u64>,
    /// With --row: the GPU count the per-GPU throughputs divide by
    /// (default: the row's own tp, which the check then does not test).
    #[arg(long, value_name = "N", requires = "row", value_parser = clap::value_parser!(u64).range(1..))]
    pub gpus: Option<u64>,
    /// A proofpack qualification.json whose point's claims are
    /// cross-checked against FILE (with --point).
    #[arg(long, value_name = "qualification.json", requires = "point")]
    pub claims: Option<PathBuf>,
    /// The point of --claims.
    #[arg(long, value_name = "NAME", requires = "claims")]
    pub point: Option<String>,
    /// Print the report as one JSON object (proofpack/report/v1).
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub junit: JunitArgs,
}

pub fn run_results(a: ResultsArgs, ui: &Ui) -> Result<i32> {
    match a.command {
        ResultsCommand::Check(a) => check(a, ui),
    }
}

fn check(a: CheckArgs, ui: &Ui) -> Result<i32> {
    let junit = a.junit.start()?;
    let format = match a.results_format {
        FormatArg::Auto => Format::Auto,
        FormatArg::Vllm => Format::Vllm,
        FormatArg::Sglang => Format::Sglang,
    };
    let qualification = match &a.claims {
        None => None,
        Some(p) => {
            let bytes = proofpack::capped::read_capped(p, MAX_SMALL_FILE)
                .with_context(|| format!("cannot read the qualification {}", p.display()))?;
            Some(
                Qualification::parse(&bytes)
                    .map_err(anyhow::Error::msg)
                    .with_context(|| format!("cannot use {}", p.display()))?,
            )
        }
    };
    let mut rc =
        peers::check_results_file(&a.file, format).context("cannot check the result file")?;
    if (a.row.is_some() || qualification.is_some()) && rc.objects.len() != 1 {
        bail!(
            "{}: holds {} results; --row and --claims compare one result (split the file)",
            a.file.display(),
            rc.objects.len()
        );
    }
    if let Some(row_path) = &a.row {
        let query = inferencex::RowQuery {
            isl: a.isl,
            osl: a.osl,
        };
        let row =
            inferencex::read_row(row_path, &rc.objects[0], &query).context("cannot use the row")?;
        let checks = inferencex::check_row(&rc.objects[0], &row, a.gpus);
        rc.add(checks);
    }
    if let (Some(q), Some(name)) = (&qualification, &a.point) {
        let Some(point) = q.points.iter().find(|p| &p.name == name) else {
            let names: Vec<&str> = q.points.iter().map(|p| p.name.as_str()).collect();
            bail!(
                "the qualification has no point {name:?} (its points: {})",
                names.join(", ")
            );
        };
        let rec = rc.checked[0].1.recomputed.clone();
        let checks = claims::cross_check(point, &rc.objects[0], rec.as_ref());
        rc.add(checks);
    }
    let report = &rc.finish();
    junit.write(report, "results check")?;
    if a.json {
        println!("{}", report.to_json());
    } else {
        ui.print_checks(report, "");
        let v = report.verdict().unwrap_or_default();
        let line = if report.ok() { ui.green(v) } else { ui.red(v) };
        println!("{line}");
    }
    Ok(report.exit_code())
}
