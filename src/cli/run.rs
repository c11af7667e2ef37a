//! `run new` and `run import`: a run directory from a benchmark client's
//! result files (the library's `adopt` layer does the work).

use std::path::PathBuf;

use anyhow::Result;
use clap::ValueEnum;
use proofpack::adopt::import::{import_results, ImportFormat, ImportResults};
use proofpack::adopt::journal::import_journal;
use proofpack::adopt::scaffold::{new_run, parse_point, parse_slo, NewRun, PlanSource};
use proofpack::report::EXIT_OK;
use proofpack::run::plan::Arrival;
use proofpack::run::qualification::{Slo, MAX_SMALL_FILE};

use super::Ui;

/// `proofpack run`
#[derive(clap::Args, Debug)]
pub struct RunArgs {
    #[command(subcommand)]
    pub command: RunCommand,
}

/// Run-directory subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum RunCommand {
    /// Scaffold a run directory: qualification.json, the benchmark plan
    /// (given, or written from --point flags before any point is
    /// imported), and the folders points/, attestations/, host-checks/,
    /// inputs/, manifests/.
    New(NewArgs),
    /// Import a point's evidence: a benchmark client's result file (vLLM
    /// `bench serve --save-result --save-detailed`) as its client records,
    /// or with --journal a router's request log as its journal.
    Import(ImportArgs),
}

fn slo_arg(s: &str) -> Result<Slo, String> {
    parse_slo(s)
}

/// `proofpack run new`
#[derive(clap::Args, Debug)]
pub struct NewArgs {
    /// The run directory to make (must not exist, or be empty).
    pub dir: PathBuf,
    /// The model every engine serves (e.g. Qwen/Qwen3-8B).
    #[arg(long)]
    pub model: String,
    /// The SLO: ttft=SECONDS,tpot=SECONDS,attainment=SHARE.
    #[arg(long, value_name = "ttft=S,tpot=S,attainment=X", value_parser = slo_arg)]
    pub slo: Slo,
    /// The benchmark plan the harness wrote (copied byte for byte).
    #[arg(long, value_name = "PLAN.json", conflicts_with_all = ["point", "arrival"])]
    pub plan: Option<PathBuf>,
    /// A planned point, in order: NAME:rate=R,requests=N[,warmup=W]
    /// (repeatable; without --plan the plan is written from these).
    #[arg(long, value_name = "NAME:rate=R,requests=N[,warmup=W]")]
    pub point: Vec<String>,
    /// The longest prompt of the workload, tokens (written into the plan;
    /// needed with --point: verify holds every record's input_tokens to it).
    #[arg(long, value_name = "N", conflicts_with = "plan")]
    pub max_input_tokens: Option<u64>,
    /// The max_tokens the client sent, tokens (written into the plan;
    /// needed with --point: verify holds every record's output_tokens to it).
    #[arg(long, value_name = "N", conflicts_with = "plan")]
    pub max_output_tokens: Option<u64>,
    /// How the client sends requests (written into the plan).
    #[arg(long, value_enum)]
    pub arrival: Option<ArrivalArg>,
    /// The gamma shape with --arrival gamma (vLLM's --burstiness).
    #[arg(long, value_name = "B", requires = "arrival")]
    pub burstiness: Option<f64>,
    /// An engine of the qualified fleet (repeatable; default engine-0). Its
    /// attestation goes to attestations/<ID>.dsse.json.
    #[arg(long, value_name = "ID")]
    pub engine: Vec<String>,
    /// A host of the fleet whose launch-check report goes to
    /// host-checks/<HOST>.dsse.json (repeatable). The hosts are written
    /// into the qualified fleet inputs/fleet.json, the file each report is
    /// made for (`host check --run NAME --fleet DIR/inputs/fleet.json`).
    #[arg(long, value_name = "HOST")]
    pub host: Vec<String>,
    /// The qualification's name (default: the directory's name).
    #[arg(long)]
    pub name: Option<String>,
}

/// Arrival processes.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrivalArg {
    /// Exponential gaps (vLLM's default, burstiness 1).
    Poisson,
    /// Gamma gaps (with --burstiness).
    Gamma,
    /// Evenly spaced.
    Constant,
}

/// Result-file formats.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatArg {
    /// Detected from the file's keys.
    Auto,
    /// vLLM bench serve / benchmark_serving.py.
    Vllm,
    /// SGLang bench_serving (refused: no per-request send times).
    Sglang,
    /// An InferenceX raw client file (refused: no per-request send times).
    Inferencex,
}

/// `proofpack run import`
#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// The run directory.
    pub dir: PathBuf,
    /// The point the evidence is of.
    #[arg(long, value_name = "NAME")]
    pub point: String,
    /// The benchmark client's result file.
    #[arg(
        value_name = "FILE",
        required_unless_present = "journal",
        conflicts_with = "journal"
    )]
    pub file: Option<PathBuf>,
    /// Import a router's request log (LiteLLM StandardLoggingPayload JSON
    /// Lines) as the point's journal instead.
    #[arg(long, value_name = "LOG")]
    pub journal: Option<PathBuf>,
    /// How to read FILE.
    #[arg(long, value_enum, default_value = "auto")]
    pub format: FormatArg,
    /// The --request-id-prefix the client ran with (default: "<point>-"):
    /// request i's id is the prefix and i.
    #[arg(long, value_name = "PREFIX")]
    pub request_id_prefix: Option<String>,
    /// The UTC offset of the file's date, which the client writes in local
    /// time without a zone (+HH:MM or -HH:MM).
    #[arg(
        long,
        value_name = "+HH:MM",
        default_value = "+00:00",
        allow_hyphen_values = true
    )]
    pub utc_offset: String,
    /// Replace an earlier import of the point.
    #[arg(long)]
    pub force: bool,
    /// Print what was imported as one JSON object instead.
    #[arg(long)]
    pub json: bool,
}

pub fn run_run(a: RunArgs, ui: &Ui) -> Result<i32> {
    match a.command {
        RunCommand::New(n) => run_new(n, ui),
        RunCommand::Import(i) => run_import(i, ui),
    }
}

fn run_new(a: NewArgs, ui: &Ui) -> Result<i32> {
    let plan = match &a.plan {
        Some(p) => PlanSource::Given {
            bytes: proofpack::capped::read_capped(p, MAX_SMALL_FILE)?,
            origin: p.display().to_string(),
        },
        None => {
            let points = a
                .point
                .iter()
                .map(|p| parse_point(p))
                .collect::<std::result::Result<Vec<_>, _>>()
                .map_err(anyhow::Error::msg)?;
            let arrival = match (a.arrival, a.burstiness) {
                (None | Some(ArrivalArg::Poisson), None) => Arrival::Poisson,
                (Some(ArrivalArg::Constant), None) => Arrival::Constant,
                (Some(ArrivalArg::Gamma), Some(b)) if b.is_finite() && b > 0.0 => {
                    Arrival::Gamma { burstiness: b }
                }
                (Some(ArrivalArg::Gamma), _) => {
                    anyhow::bail!("--arrival gamma needs --burstiness B with B > 0")
                }
                (_, Some(_)) => anyhow::bail!("--burstiness goes with --arrival gamma"),
            };
            let lengths = match (a.max_input_tokens, a.max_output_tokens) {
                (Some(i), Some(o)) if i > 0 && o > 0 => (i, o),
                (Some(_), Some(_)) => {
                    anyhow::bail!("--max-input-tokens and --max-output-tokens must be > 0")
                }
                _ => anyhow::bail!(
                    "--point writes the benchmark plan, and the plan states the workload's lengths (verify's plan.lengths holds every record's token counts to them): give --max-input-tokens N (the longest prompt) and --max-output-tokens N (the max_tokens the client sent), e.g. vLLM's --random-input-len and --random-output-len"
                ),
            };
            PlanSource::Points {
                points,
                arrival,
                lengths,
            }
        }
    };
    let req = NewRun {
        name: a.name.clone(),
        model: a.model.clone(),
        slo: a.slo.clone(),
        plan,
        engines: a.engine.clone(),
        hosts: a.host.clone(),
        now: proofpack::timefmt::rfc3339_utc_now(),
    };
    let out = new_run(&a.dir, &req)?;
    println!(
        "run {}: {} point(s) planned ({}); the plan {} {}",
        a.dir.display(),
        out.points.len(),
        out.points
            .iter()
            .map(|p| format!(
                "{} at {} request/s, {} requests + {} warmup",
                p.name, p.offered_rate, p.requests, p.warmup
            ))
            .collect::<Vec<_>>()
            .join("; "),
        if out.plan_written {
            "was written from the flags into"
        } else {
            "was copied into"
        },
        proofpack::adopt::scaffold::PLAN_FILE
    );
    if !a.host.is_empty() {
        ui.note(&format!(
            "the qualified fleet ({} host(s)) was written into {}; keep the weights' JSON record at {} (proofpack manifest WEIGHTS --format json -o ...) and, on each host, before its engine launches: proofpack host check WEIGHTS --weights-manifest {} --config WEIGHTS/config.json --host HOST --run {} --fleet {} --key HOST.key -o {}",
            a.host.len(),
            proofpack::adopt::scaffold::FLEET_FILE,
            proofpack::adopt::scaffold::WEIGHTS_RECORD_FILE,
            a.dir.join(proofpack::adopt::scaffold::WEIGHTS_RECORD_FILE).display(),
            out.name,
            a.dir.join(proofpack::adopt::scaffold::FLEET_FILE).display(),
            a.dir.join("host-checks/HOST.dsse.json").display()
        ));
    }
    ui.note(&format!(
        "next: proofpack run import {} --point NAME RESULT.json (for each point), then the engine attestations into attestations/, then proofpack publish",
        a.dir.display()
    ));
    Ok(EXIT_OK)
}

fn run_import(a: ImportArgs, ui: &Ui) -> Result<i32> {
    if let Some(log) = &a.journal {
        let j = import_journal(&a.dir, &a.point, log)?;
        if a.json {
            let v = serde_json::json!({"point": a.point, "journal": j});
            println!("{v}");
            return Ok(EXIT_OK);
        }
        println!(
            "point {}: {} events from {} log lines into {} (log kept as {}); anchor moved to {:+} s{}",
            a.point,
            j.events,
            j.lines,
            j.journal,
            j.raw,
            j.adjust_s,
            if j.other + j.without_id > 0 {
                format!(
                    "; left out: {} line(s) of other requests, {} without an x-request-id",
                    j.other, j.without_id
                )
            } else {
                String::new()
            }
        );
        return Ok(EXIT_OK);
    }
    let file = a
        .file
        .as_ref()
        .expect("clap requires FILE without --journal");
    let format = match a.format {
        FormatArg::Auto => ImportFormat::Auto,
        FormatArg::Vllm => ImportFormat::Vllm,
        FormatArg::Sglang => ImportFormat::Sglang,
        FormatArg::Inferencex => ImportFormat::Inferencex,
    };
    let r = ImportResults {
        point: &a.point,
        file,
        format,
        request_id_prefix: a.request_id_prefix.clone(),
        utc_offset: a.utc_offset.clone(),
        force: a.force,
    };
    let out = import_results(&a.dir, &r)?;
    if a.json {
        let v = serde_json::json!({"point": a.point, "result_file": out});
        println!("{v}");
        return Ok(EXIT_OK);
    }
    println!(
        "point {}: {} client records ({} ok, {} error, {} timeout) into {}; result file kept as {}",
        a.point, out.records, out.ok, out.errors, out.timeouts, out.records_file, out.source
    );
    println!("  {}", out.anchor);
    println!("  {}", out.consistency);
    ui.note("the point's claims are cleared: proofpack publish writes them from the evidence");
    Ok(EXIT_OK)
}
