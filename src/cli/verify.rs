//! `verify`: the structural bundle verification (spec section 5).
//! The qualification checks (pins, attestations, invariants) build on the
//! library call [`proofpack::bundle::verify_bundle`] used here.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Result};
use proofpack::bundle::{self, Limits};
use proofpack::keys::TrustStore;

use super::{human_bytes, human_rate, Ui};

/// Parses a byte count with an optional binary suffix (K, M, G, T, with or
/// without "iB"/"B"): `64G`, `16GiB`, `1048576`.
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let n: u64 = num
        .parse()
        .map_err(|_| format!("{s:?} is not a byte count (e.g. 1048576, 64G, 16GiB)"))?;
    let mult: u64 = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => {
            return Err(format!(
                "{s:?}: unknown unit {unit:?} (use K, M, G or T, powers of 1024)"
            ))
        }
    };
    n.checked_mul(mult)
        .ok_or_else(|| format!("{s:?} is too large"))
}

/// The reader's size limits; defaults are the spec's.
#[derive(clap::Args, Debug, Clone)]
pub struct LimitArgs {
    /// Most uncompressed bytes in total.
    #[arg(long, value_name = "BYTES", default_value = "64GiB", value_parser = parse_bytes)]
    pub max_total_bytes: u64,
    /// Most bytes in one entry.
    #[arg(long, value_name = "BYTES", default_value = "16GiB", value_parser = parse_bytes)]
    pub max_entry_bytes: u64,
    /// Most entries (files and directories).
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub max_entries: u64,
    /// Longest path, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 4096)]
    pub max_path_bytes: usize,
    /// Largest PAX header or GNU long-name record.
    #[arg(long, value_name = "BYTES", default_value = "1MiB", value_parser = parse_bytes)]
    pub max_pax_record_bytes: u64,
    /// Highest decompressed-to-compressed ratio (checked once past 1 MiB).
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub max_ratio: u64,
}

impl LimitArgs {
    pub fn limits(&self) -> Limits {
        Limits {
            max_total_bytes: self.max_total_bytes,
            max_entry_bytes: self.max_entry_bytes,
            max_entries: self.max_entries,
            max_path_bytes: self.max_path_bytes,
            max_pax_record_bytes: self.max_pax_record_bytes,
            max_ratio: self.max_ratio,
        }
    }
}

/// `proofpack verify`
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The bundle (.tgz) to verify.
    pub target: PathBuf,
    /// Print the verification report (JSON) on stdout.
    #[arg(long)]
    pub json: bool,
    /// Trust file: a seal beside the bundle is checked against its `release` keys.
    #[arg(long, value_name = "TRUST")]
    pub trust: Option<PathBuf>,
    /// The seal envelope (default: BUNDLE.tgz.seal.dsse.json beside the bundle).
    #[arg(long, value_name = "FILE")]
    pub seal: Option<PathBuf>,
    /// Fail unless a seal is present and verifies (needs --trust).
    #[arg(long)]
    pub require_seal: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run_verify(a: VerifyArgs, ui: &Ui) -> Result<i32> {
    let t = Instant::now();
    let meta =
        std::fs::metadata(&a.target).map_err(|e| anyhow::anyhow!("{}: {e}", a.target.display()))?;
    if meta.is_dir() {
        bail!(
            "{} is a directory; this build verifies bundles (.tgz) only, run directories need the qualification checks",
            a.target.display()
        );
    }
    if a.require_seal && a.trust.is_none() {
        bail!("--require-seal needs --trust TRUST (the release keys to check the seal against)");
    }
    let trust = match &a.trust {
        Some(p) => Some(TrustStore::load(p)?),
        None => None,
    };
    let progress = ui.bytes_progress("verifying");
    let mut v = bundle::verify_bundle(&a.target, &a.limits.limits(), None, &progress)?;
    let seal = bundle::seal_check(
        &a.target,
        a.seal.as_deref(),
        trust.as_ref(),
        a.require_seal,
        &v,
    )?;
    v.report.push(seal);
    if a.json {
        println!("{}", v.report.to_json());
    } else {
        ui.print_checks(&v.report, "");
    }
    let secs = t.elapsed().as_secs_f64();
    let s = v.report.summary;
    let digest = v
        .bundle_sha256
        .map_or_else(|| "sha256 not computed".to_string(), |d| d.prefixed());
    if v.report.ok {
        ui.note(&format!(
            "verify: OK, {} checks passed, {} skipped, {digest}, {}, {:.2} s, {}",
            s.passed,
            s.skipped,
            human_bytes(meta.len()),
            secs,
            human_rate(meta.len(), secs)
        ));
    } else {
        ui.note(&format!(
            "verify: FAILED, {} of {} checks failed, {digest}",
            s.failed,
            s.failed + s.passed
        ));
    }
    Ok(v.report.exit_code())
}
