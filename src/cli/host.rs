//! `host check` (one host's weights against the pinned manifest, a signed
//! report out) and `fleet verify` (every host's report, one verdict).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use clap::ValueEnum;
use proofpack::digest::Sha256Digest;
use proofpack::fleet::{self, ConfigSource, FleetHosts, FleetRequirements, HostCheckOptions, Mode};
use proofpack::keys::{Role, TrustStore};
use proofpack::report::Mark;

use super::filekind::Want;
use super::junit::JunitArgs;
use super::{human_bytes, Ui};

/// `proofpack host`
#[derive(clap::Args, Debug)]
pub struct HostArgs {
    #[command(subcommand)]
    pub command: HostCommand,
}

/// `proofpack host ...`
#[derive(clap::Subcommand, Debug)]
pub enum HostCommand {
    /// Check this host's weights directory against the pinned manifest and
    /// write a signed report (also when the check fails: exit 1).
    Check(HostCheckArgs),
}

/// `proofpack host check`
#[derive(clap::Args, Debug)]
pub struct HostCheckArgs {
    /// The host's weights directory.
    pub root: PathBuf,
    /// The pinned weights manifest (any format for the full check; the JSON
    /// record, with sizes, for --sizes-only). Formerly --weights.
    #[arg(long = "weights-manifest", alias = "weights", value_name = "MANIFEST")]
    pub weights_manifest: PathBuf,
    /// The model config: a file on this host (hashed) or sha256:HEX (stated).
    #[arg(long, value_name = "FILE|sha256:HEX")]
    pub config: Option<String>,
    /// Presence, sizes and safetensors headers only; reads no tensor data
    /// (seconds on terabytes). `fleet verify` then needs `--mode sizes-only`.
    #[arg(long, conflicts_with = "full")]
    pub sizes_only: bool,
    /// Hash every file (the default; the hash cache is not used).
    #[arg(long)]
    pub full: bool,
    /// This host's name, as the fleet file names it.
    #[arg(long, value_name = "NAME")]
    pub host: String,
    /// The run the check is for (the qualification's name); the report is
    /// bound to it.
    #[arg(long, value_name = "NAME")]
    pub run: String,
    /// The fleet file the host is checked for (a qualified-fleet file, or
    /// {"hosts": [...]}); it must select --host, and the report carries its
    /// SHA-256.
    #[arg(long, value_name = "FLEET.json")]
    pub fleet: PathBuf,
    /// The host's signing key (PKCS#8 PEM), trusted for the `host` role.
    #[arg(long, value_name = "HOST_KEY")]
    pub key: PathBuf,
    /// The report to write (a DSSE envelope, written whole or not at all).
    #[arg(short, long, value_name = "REPORT.dsse.json")]
    pub output: PathBuf,
    /// Hashing threads for --full (default: one per core).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
    /// Print the check report (proofpack/report/v1) on stdout.
    #[arg(long)]
    pub json: bool,
}

/// `proofpack fleet`
#[derive(clap::Args, Debug)]
pub struct FleetArgs {
    #[command(subcommand)]
    pub command: FleetCommand,
}

/// `proofpack fleet ...`
#[derive(clap::Subcommand, Debug)]
pub enum FleetCommand {
    /// Verify the host reports of a fleet: one trusted, passing report per
    /// selected host, for the pinned manifest and config, in the required mode.
    Verify(FleetVerifyArgs),
}

/// Modes for `--mode`.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModeArg {
    /// Every byte hashed.
    Full,
    /// Sizes only.
    SizesOnly,
}

/// `proofpack fleet verify`
#[derive(clap::Args, Debug)]
pub struct FleetVerifyArgs {
    /// The host reports (DSSE envelopes written by `host check`).
    #[arg(required = true)]
    pub reports: Vec<PathBuf>,
    /// The fleet: {"hosts": [{"name": ...}]}, or a qualified-fleet file
    /// with {"engines": [{"host": ...}]}.
    #[arg(long, value_name = "FLEET.json")]
    pub fleet: PathBuf,
    /// Trust roots; reports count only if signed by a key trusted for `host`.
    #[arg(long, value_name = "TRUST")]
    pub trust: PathBuf,
    /// The pinned weights manifest: its published digest (sha256:HEX, or
    /// 64 hex), or a manifest file (its canonical digest). Formerly
    /// --weights-pin.
    #[arg(
        long = "weights-manifest",
        alias = "weights-pin",
        value_name = "sha256:HEX|MANIFEST"
    )]
    pub weights_manifest: String,
    /// The pinned model config: its published digest (sha256:HEX, or 64
    /// hex), or the config file (hashed). Formerly --config-pin.
    #[arg(long = "config", alias = "config-pin", value_name = "sha256:HEX|FILE")]
    pub config: Option<String>,
    /// The weights record (the JSON manifest record, with sizes and shard
    /// header digests) of the pinned manifest: the reports' totals and
    /// shard headers are compared with it. Needed for --mode sizes-only
    /// unless --weights-manifest names the record itself.
    #[arg(long, value_name = "RECORD.json")]
    pub weights_record: Option<PathBuf>,
    /// The run the reports must have been made for.
    #[arg(long, value_name = "NAME")]
    pub run: Option<String>,
    /// The least mode a report must have been made in: `full` (the
    /// default, as for `host check`) or `sizes-only`.
    #[arg(long, value_enum, default_value = "full")]
    pub mode: ModeArg,
    /// Print the report (proofpack/report/v1, with the host table) as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub junit: JunitArgs,
}

fn parse_digest(s: &str, what: &str) -> Result<Sha256Digest> {
    Sha256Digest::parse_hex(s.strip_prefix("sha256:").unwrap_or(s)).with_context(|| {
        format!("{what}: expected 64 hex characters (optionally sha256:), got {s:?}")
    })
}

/// `--weights-record`: the JSON manifest record of the pinned weights.
fn weights_record(path: &std::path::Path, pin: &Sha256Digest) -> Result<fleet::WeightsRecord> {
    let origin = path.display().to_string();
    let m = super::manifest::read_model_manifest(
        path,
        "--weights-record",
        Some(proofpack::manifest::Format::Json),
    )?;
    if m.digest() != *pin {
        anyhow::bail!(
            "--weights-record {origin}: the record of {}, not of the pinned weights manifest {}",
            m.digest().prefixed(),
            pin.prefixed()
        );
    }
    fleet::WeightsRecord::of(&m, &origin)
        .with_context(|| format!("--weights-record {origin}: the record has no file sizes"))
}

/// A digest given as `sha256:HEX`, as 64 bare hex (when no file has that
/// name), or as a file: `file` turns the file into its digest.
fn digest_or_file(
    s: &str,
    what: &str,
    file: impl FnOnce(&Path) -> Result<Sha256Digest>,
) -> Result<Sha256Digest> {
    let bare_hex = s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit());
    if s.starts_with("sha256:") || (bare_hex && !Path::new(s).exists()) {
        return parse_digest(s, what);
    }
    file(Path::new(s))
}

pub fn run_host(a: HostArgs, ui: &Ui) -> Result<i32> {
    let HostCommand::Check(a) = a.command;
    super::output::check_file(&a.output, "host check prints its checks on standard output")?;
    // The key first: a bad key fails before anything is read or written.
    let key = proofpack::keys::load_signing_key(&a.key)?;
    let m = super::manifest::read_model_manifest(&a.weights_manifest, "--weights-manifest", None)?;
    let config = match a.config.as_deref() {
        None => None,
        Some(s) if s.starts_with("sha256:") => {
            Some(ConfigSource::Stated(parse_digest(s, "--config")?))
        }
        Some(s) => Some(ConfigSource::File(PathBuf::from(s))),
    };
    let fleet_bytes = proofpack::capped::read_capped(&a.fleet, 16 << 20)
        .with_context(|| format!("cannot read the fleet file {}", a.fleet.display()))?;
    let fleet_hosts = FleetHosts::parse(&fleet_bytes, &a.fleet.display().to_string())?;
    if !fleet_hosts.hosts.contains(&a.host) {
        anyhow::bail!(
            "--host {}: {} does not select this host (it selects {}); a report for a host outside its fleet is bound to nothing",
            a.host,
            a.fleet.display(),
            fleet_hosts.hosts.join(", ")
        );
    }
    let opts = HostCheckOptions {
        run: a.run.clone(),
        fleet: Sha256Digest::of_bytes(&fleet_bytes),
        host: a.host.clone(),
        mode: if a.sizes_only {
            Mode::SizesOnly
        } else {
            Mode::Full
        },
        config,
        threads: a.threads,
    };
    let progress = ui.bytes_progress("host check");
    let h = fleet::host_check(
        &a.root,
        &m,
        &a.weights_manifest.display().to_string(),
        &opts,
        &progress,
    )?;
    let envelope = fleet::sign_report(&h, &key)?;
    super::output::write(&a.output, &envelope, 0o644, true)?;
    if a.json {
        println!("{}", h.report.to_json());
    } else {
        ui.print_checks(&h.report, "file:");
    }
    let p = &h.predicate;
    ui.note(&format!(
        "host check: {} on {}: {} files, {}, {} ({}), {} failed; report {}",
        if p.passed { "OK" } else { "FAILED" },
        p.host,
        p.files,
        human_bytes(p.bytes),
        p.mode.as_str(),
        p.manifest,
        p.failed,
        a.output.display()
    ));
    Ok(h.report.exit_code())
}

pub fn run_fleet(a: FleetArgs, ui: &Ui) -> Result<i32> {
    let FleetCommand::Verify(a) = a.command;
    let junit = a.junit.start()?;
    let trust = super::filekind::read_as(&a.trust, "--trust", Want::Trust, || {
        TrustStore::load(&a.trust)
    })
    .with_context(|| format!("cannot use the trust file {}", a.trust.display()))?;
    if trust.keys_for(Role::Host).next().is_none() {
        anyhow::bail!(
            "{}: no key is trusted for role host, so no host report can count; add the hosts' public keys (`proofpack key trust --from {} --host HOST.pub -o {}`)",
            a.trust.display(),
            a.trust.display(),
            a.trust.display()
        );
    }
    let fleet_bytes =
        proofpack::capped::read_capped(&a.fleet, 16 << 20).context("cannot read the fleet file")?;
    let hosts = super::filekind::read_as(&a.fleet, "--fleet", Want::Fleet, || {
        FleetHosts::parse(&fleet_bytes, &a.fleet.display().to_string())
    })?;
    // A manifest file given as --weights-manifest that is a JSON record
    // (with sizes) is also the record the reports are held to.
    let mut named_record = None;
    let weights = digest_or_file(&a.weights_manifest, "--weights-manifest", |p| {
        let m = super::manifest::read_model_manifest(p, "--weights-manifest", None)?;
        named_record = fleet::WeightsRecord::of(&m, &p.display().to_string());
        Ok(m.digest())
    })?;
    if weights == Sha256Digest::of_bytes(b"") {
        anyhow::bail!(
            "--weights-manifest {}: the manifest is empty (this is the digest of a manifest listing no file); pin the digest of the model's weights manifest",
            a.weights_manifest
        );
    }
    let record = match a.weights_record.as_deref() {
        Some(p) => Some(weights_record(p, &weights)?),
        None => named_record,
    };
    let mut req = FleetRequirements::pinned(
        weights,
        a.config
            .as_deref()
            .map(|c| {
                digest_or_file(c, "--config", |p| {
                    Ok(
                        proofpack::digest::hash_file(p, &proofpack::progress::NoProgress)
                            .with_context(|| format!("--config {}", p.display()))?
                            .0,
                    )
                })
            })
            .transpose()?,
        match a.mode {
            ModeArg::Full => Mode::Full,
            ModeArg::SizesOnly => Mode::SizesOnly,
        },
    );
    // The reports name the fleet file they were checked for.
    req.fleet = fleet::Expect::Is(Sha256Digest::of_bytes(&fleet_bytes));
    if let Some(r) = record {
        req.record = fleet::Expect::Is(r);
    }
    if let Some(run) = &a.run {
        req.run = fleet::Expect::Is(run.clone());
    }
    let v = fleet::verify_fleet_files(&hosts, &a.reports, &trust, &req)?;
    junit.write(&v.report, "fleet verify")?;
    if a.json {
        let mut j = serde_json::to_value(&v.report)?;
        j["hosts"] = serde_json::to_value(&v.rows)?;
        println!("{}", serde_json::to_string_pretty(&j)?);
    } else {
        ui.print_checks(&v.report, "");
        println!(
            "{:<32} {:<10} {:>8} {:>12} {:>9}  verdict",
            "host", "mode", "files", "bytes", "seconds"
        );
        for r in &v.rows {
            println!(
                "{:<32} {:<10} {:>8} {:>12} {:>9}  {}",
                r.host,
                r.mode.map_or("-", |m| m.as_str()),
                r.files.map_or("-".into(), |f| f.to_string()),
                r.bytes.map_or("-".into(), human_bytes),
                r.duration_s.map_or("-".into(), |d| format!("{d:.0}")),
                if r.ok {
                    ui.green("OK")
                } else {
                    ui.red("FAILED")
                }
            );
        }
    }
    let failed_hosts: Vec<&str> = v
        .rows
        .iter()
        .filter(|r| !r.ok)
        .map(|r| r.host.as_str())
        .collect();
    // What a green leaves out: configs only stated, not hashed on a host.
    let stated: Vec<&str> = v
        .report
        .checks()
        .iter()
        .filter(|c| c.mark() == Some(Mark::StatedConfig))
        .map(|c| c.id.trim_start_matches("host:").trim_end_matches(".config"))
        .collect();
    let stated_note = if stated.is_empty() {
        String::new()
    } else {
        format!(
            "; config NOT CHECKED on {} (stated, not hashed on the host)",
            stated.join(", ")
        )
    };
    ui.note(&if v.report.ok() {
        format!(
            "fleet verify: VERIFIED, all {} hosts checked {} at least, against {}{stated_note}",
            v.rows.len(),
            req.mode.as_str(),
            req.weights.prefixed()
        )
    } else if failed_hosts.is_empty() {
        format!(
            "fleet verify: FAILED: {} checks failed",
            v.report.summary().failed
        )
    } else {
        format!(
            "fleet verify: FAILED on {}: {} checks failed",
            failed_hosts.join(", "),
            v.report.summary().failed
        )
    });
    Ok(v.report.exit_code())
}
