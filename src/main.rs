//! The `proofpack` binary: parses arguments, calls the library, prints.
//! Exit status: 0 the evidence holds, 1 it does not, 2 the tool could not run.

mod cli;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Make the evidence behind a published GPU-serving benchmark verifiable,
/// offline: content-addressed manifests, signed engine attestations, sealed
/// qualification bundles and end-to-end verification.
///
/// Exit status: 0 the evidence holds (no drift), 1 it does not, 2 proofpack
/// could not do its job (bad flags, unreadable argument file, I/O error).
#[derive(Parser)]
#[command(
    name = "proofpack",
    version,
    propagate_version = true,
    max_term_width = 100
)]
struct Cli {
    #[command(flatten)]
    global: cli::GlobalArgs,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build the manifest (sorted path:sha256 lines) of a directory or file.
    Manifest(cli::manifest::ManifestArgs),
    /// Check a directory against a manifest: changed, missing, unlisted files.
    Check(cli::manifest::CheckArgs),
    /// Compare two manifests or directories; exit 1 on any drift (the CI gate).
    Diff(cli::manifest::DiffArgs),
    /// Ed25519 keys: generate a pair, print a key id, write a trust file.
    Key(cli::key::KeyArgs),
    /// Signed statements: sign (any predicate, or an engine attestation) and verify.
    Attest(cli::attest::AttestArgs),
    /// Seal a run directory into a deterministic bundle (BUNDLE.tgz + .sha256).
    Seal(cli::seal::SealArgs),
    /// Verify a qualification end to end: bundle, seal, pins, engine
    /// attestations, count invariants and every published claim, recomputed.
    Verify(cli::verify::VerifyArgs),
    /// A host's launch check against the pinned manifest, signed: `host check`.
    Host(cli::host::HostArgs),
    /// The fleet-wide verdict over host reports: `fleet verify`.
    Fleet(cli::host::FleetArgs),
    /// safetensors shards and their index, checked from the headers alone.
    Shards(cli::shards::ShardsArgs),
    /// Shell completions (bash, zsh, fish), generated from these definitions.
    Completions(cli::docs::CompletionsArgs),
    /// Man pages (proofpack.1 and one per verb), generated from these definitions.
    Man(cli::docs::ManArgs),
    /// Render a saved JSON report as the self-contained HTML page.
    Report(cli::report::ReportArgs),
    /// Pins from a published write-up: `pins from-publication WRITEUP.md`.
    Pins(cli::pins::PinsArgs),
    /// Verify a bundle while extracting it; the tree lands only if all holds.
    Unpack(cli::unpack::UnpackArgs),
    /// Benchmark client results (vLLM, SGLang) recomputed from their
    /// per-request arrays; InferenceX rows and claims cross-checked.
    Results(cli::results::ResultsArgs),
    /// InferenceX source measurement receipts: verify a receipt directory.
    Receipt(cli::receipt::ReceiptArgs),
    /// The local catalog: recorded seals and verifications, baselines, hash cache.
    Catalog(cli::catalog::CatalogArgs),
    /// A run directory from benchmark client results: `run new`, `run import`.
    Run(cli::run::RunArgs),
    /// The claims and the write-up of a run, computed from its evidence.
    Publish(cli::publish::PublishArgs),
}

/// The exit status of a program whose standard output was closed by its
/// reader (`| head`): what a shell shows for SIGPIPE.
const EXIT_CLOSED_PIPE: u8 = 141;

/// True for the panic of a write to a standard stream its reader closed
/// (std's print macros, or a library that expects its write to succeed).
fn closed_pipe(message: &str) -> bool {
    message.contains("Broken pipe") || message.contains("BrokenPipe")
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

fn main() -> ExitCode {
    // A closed pipe ends the program quietly: the print's panic unwinds
    // (temporary files are removed on the way) and says nothing.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !closed_pipe(&panic_message(info.payload())) {
            default_hook(info);
        }
    }));
    match std::panic::catch_unwind(run) {
        Ok(code) => code,
        Err(payload) if closed_pipe(&panic_message(payload.as_ref())) => {
            ExitCode::from(EXIT_CLOSED_PIPE)
        }
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

fn run() -> ExitCode {
    let cli = Cli::parse();
    let ui = cli::Ui::new(&cli.global);
    let result = match ui.check_catalog_path() {
        Err(e) => Err(e),
        Ok(()) => dispatch(cli.command, &ui),
    };
    match result {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            ui.error(&e);
            ExitCode::from(proofpack::report::EXIT_ERROR as u8)
        }
    }
}

fn dispatch(command: Command, ui: &cli::Ui) -> anyhow::Result<i32> {
    match command {
        Command::Manifest(a) => cli::manifest::run_manifest(a, ui),
        Command::Check(a) => cli::manifest::run_check(a, ui),
        Command::Diff(a) => cli::manifest::run_diff(a, ui),
        Command::Key(a) => cli::key::run_key(a, ui),
        Command::Attest(a) => cli::attest::run_attest(a, ui),
        Command::Seal(a) => cli::seal::run_seal(a, ui),
        Command::Verify(a) => cli::verify::run_verify(a, ui),
        Command::Unpack(a) => cli::unpack::run_unpack(a, ui),
        Command::Pins(a) => cli::pins::run_pins(a, ui),
        Command::Shards(a) => cli::shards::run(a, ui),
        Command::Host(a) => cli::host::run_host(a, ui),
        Command::Report(a) => cli::report::run_report(a, ui),
        Command::Completions(a) => {
            cli::docs::completions(a, <Cli as clap::CommandFactory>::command())
        }
        Command::Man(a) => cli::docs::man(a, <Cli as clap::CommandFactory>::command(), ui),
        Command::Fleet(a) => cli::host::run_fleet(a, ui),
        Command::Catalog(a) => cli::catalog::run_catalog(a, ui),
        Command::Results(a) => cli::results::run_results(a, ui),
        Command::Receipt(a) => cli::receipt::run_receipt(a, ui),
        Command::Run(a) => cli::run::run_run(a, ui),
        Command::Publish(a) => cli::publish::run_publish(a, ui),
    }
}
