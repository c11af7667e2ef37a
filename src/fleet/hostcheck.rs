//! `host check`: one host's weights directory against the pinned manifest,
//! and the signed report of what was found.

use std::path::{Path, PathBuf};

use ed25519_dalek::SigningKey;

use super::types::{
    FleetError, HostCheckPredicate, Mode, ShardHeader, HOST_CHECK_PREDICATE_TYPE,
    MAX_NAMED_FAILURES,
};
use crate::attest::{self, Statement, Subject};
use crate::digest::Sha256Digest;
use crate::manifest::{self, BuildOptions, CheckOptions, Manifest};
use crate::progress::Progress;
use crate::report::{Check, Report};

/// Where the model config's digest comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigSource {
    /// A file on the host, hashed.
    File(PathBuf),
    /// A digest the operator states.
    Stated(Sha256Digest),
}

/// What a host check does.
#[derive(Debug, Clone)]
pub struct HostCheckOptions {
    /// The host's name as the fleet names it.
    pub host: String,
    /// Sizes only, or every byte hashed.
    pub mode: Mode,
    /// The model config, if checked.
    pub config: Option<ConfigSource>,
    /// Hashing threads for `--full` (0: one per core).
    pub threads: usize,
    /// The run the check is made for (the qualification's name).
    pub run: String,
    /// SHA-256 of the fleet file the host is checked for.
    pub fleet: Sha256Digest,
}

/// A host check's outcome.
#[derive(Debug, Clone)]
pub struct HostChecked {
    /// What the report states.
    pub predicate: HostCheckPredicate,
    /// Every check made (one per file, plus `config`).
    pub report: Report,
    /// The manifest's digest.
    pub manifest_digest: Sha256Digest,
    /// The config's digest, when found.
    pub config_digest: Option<Sha256Digest>,
}

/// Checks `root` against `manifest` (the closed-world check: every listed
/// file present with its size, or its content in full mode; nothing else),
/// in sizes-only mode every safetensors shard's header
/// ([`manifest::structure_check`]), and the config. `Err` only when the check could not run (a manifest
/// without sizes in sizes-only mode, an unreadable root).
pub fn host_check(
    root: &Path,
    manifest: &Manifest,
    origin: &str,
    opts: &HostCheckOptions,
    progress: &dyn Progress,
) -> Result<HostChecked, FleetError> {
    if opts.host.trim().is_empty() {
        return Err(FleetError::BadArgument("--host must name the host".into()));
    }
    if opts.run.trim().is_empty() {
        return Err(FleetError::BadArgument(
            "--run must name the run the check is for".into(),
        ));
    }
    if opts.mode == Mode::SizesOnly && manifest.has_sizes() {
        // Without the header digests a sizes-only check cannot tell
        // two equal-size shards swapped under each other's names.
        manifest.require_header_digests(origin)?;
    }
    let started_at = crate::timefmt::rfc3339_utc_now();
    let check_opts = CheckOptions {
        build: BuildOptions {
            excludes: Vec::new(),
            threads: opts.threads,
            // The hash cache is off: a launch check trusts nothing it did
            // not read now.
            cache: None,
        },
        sizes_only: opts.mode == Mode::SizesOnly,
    };
    let mut report = manifest::check(root, manifest, origin, &check_opts, progress)?;
    if opts.mode == Mode::SizesOnly {
        // Contract 2.1 and 10: the sizes-only launch check also reads
        // every safetensors shard's header (its structure, and the header
        // digest the manifest record pins), never the tensor data; a
        // truncated shard, a corrupt header or two equal-size shards
        // swapped fail it.
        report.extend(manifest::structure_check(root, manifest));
    }
    let config_digest = match &opts.config {
        None => None,
        Some(ConfigSource::Stated(d)) => {
            report.push(Check::pass("config", format!("{} (stated)", d.prefixed())));
            Some(*d)
        }
        Some(ConfigSource::File(p)) => match crate::digest::hash_file(p, progress) {
            Ok((d, _)) => {
                report.push(Check::pass(
                    "config",
                    format!("{}: {}", p.display(), d.prefixed()),
                ));
                Some(d)
            }
            Err(e) => {
                report.push(Check::fail(
                    "config",
                    format!("{}: cannot be read: {e}", p.display()),
                ));
                None
            }
        },
    };
    let shards = shard_headers(root, manifest);
    let failures: Vec<String> = report
        .failures()
        .take(MAX_NAMED_FAILURES)
        .map(|c| {
            let path = c.id.strip_prefix("file:").unwrap_or(&c.id);
            format!("{path}: {}", c.detail)
        })
        .collect();
    let predicate = HostCheckPredicate {
        host: opts.host.clone(),
        root: root.display().to_string(),
        mode: opts.mode,
        manifest: manifest.digest().prefixed(),
        files: manifest.len() as u64,
        bytes: manifest.total_bytes().unwrap_or(0),
        failed: report.summary().failed as u64,
        failures,
        config: config_digest.map(|d| d.prefixed()),
        config_source: opts.config.as_ref().map(|c| match c {
            ConfigSource::File(p) => format!("file {}", p.display()),
            ConfigSource::Stated(_) => "stated".into(),
        }),
        passed: report.ok(),
        started_at,
        finished_at: crate::timefmt::rfc3339_utc_now(),
        tool: crate::TOOL.into(),
        run: opts.run.clone(),
        fleet: opts.fleet.prefixed(),
        shards,
    };
    Ok(HostChecked {
        predicate,
        report,
        manifest_digest: manifest.digest(),
        config_digest,
    })
}

/// The header digest of every safetensors entry of `manifest` present
/// under `root`, as read on the host, in path order.
fn shard_headers(root: &Path, manifest: &Manifest) -> Vec<ShardHeader> {
    use rayon::prelude::*;
    let single = root.is_file();
    manifest
        .shard_specs()
        .into_par_iter()
        .filter_map(|s| {
            let abs = if single {
                root.to_path_buf()
            } else {
                root.join(&s.path)
            };
            if !std::fs::metadata(&abs).is_ok_and(|m| m.is_file()) {
                return None;
            }
            let digest = crate::safetensors::header_digest(&abs).ok().flatten();
            Some(ShardHeader {
                path: s.path,
                header_sha256: digest.map(|d| d.to_hex()),
            })
        })
        .collect()
}

/// The signed report: a DSSE envelope of an in-toto Statement whose
/// subjects are `weights.manifest` (the manifest checked against) and, when
/// found, `config.json`.
pub fn sign_report(h: &HostChecked, key: &SigningKey) -> Result<Vec<u8>, FleetError> {
    let mut subjects = vec![Subject {
        name: "weights.manifest".into(),
        digest: h.manifest_digest,
    }];
    if let Some(d) = h.config_digest {
        subjects.push(Subject {
            name: "config.json".into(),
            digest: d,
        });
    }
    let value = serde_json::to_value(&h.predicate).map_err(|e| FleetError::Sign(e.to_string()))?;
    let st = Statement::new(subjects, HOST_CHECK_PREDICATE_TYPE, value)
        .map_err(|e| FleetError::Sign(e.to_string()))?;
    Ok(attest::sign_statement(&st, &[key]))
}
