//! `verify --vsa OUT --vsa-key KEY`, the signed SLSA verification
//! summary of a verification: its output and key are checked before the
//! verification starts, and it is written after it, PASSED or FAILED.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use ed25519_dalek::SigningKey;
use proofpack::attest::{self, VsaSummary};
use proofpack::digest::Sha256Digest;
use proofpack::keys;
use proofpack::verify::inputs::Inputs;
use proofpack::verify::verification::Verification;

use super::Ui;

/// Where the summary goes and the auditor key that signs it.
pub struct VsaRequest {
    out: PathBuf,
    key: SigningKey,
    bundle_name: String,
}

/// The flags' paths, checked and loaded before any verification: the
/// output (as `--html`'s), the key, and that the target is a bundle file.
pub fn prepare(
    out: Option<&Path>,
    key: Option<&Path>,
    target: &Path,
) -> Result<Option<VsaRequest>> {
    let (out, key) = match (out, key) {
        (None, None) => return Ok(None),
        (Some(_), None) => bail!(
            "--vsa needs --vsa-key KEY: the Ed25519 private key (PKCS#8 PEM, `proofpack key gen`) that signs the verification summary"
        ),
        (None, Some(_)) => bail!("--vsa-key is given without --vsa OUT: where should the verification summary go?"),
        (Some(o), Some(k)) => (o, k),
    };
    super::output::check_file(out, "--vsa - would mix the summary with the verdict")?;
    if target.is_dir() {
        bail!(
            "--vsa: {} is a directory; a verification summary is about a sealed bundle file (its SHA-256 is the subject)",
            target.display()
        );
    }
    let bundle_name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .with_context(|| format!("--vsa: {} names no file", target.display()))?;
    let key = keys::load_signing_key(key).context("cannot use the --vsa-key")?;
    Ok(Some(VsaRequest {
        out: out.to_path_buf(),
        key,
        bundle_name,
    }))
}

/// The auditor's inputs by role, as the summary lists them.
pub struct PolicyInputs {
    pub trust: Option<Sha256Digest>,
    pub pins: Option<Sha256Digest>,
    pub publication: Option<Sha256Digest>,
}

impl VsaRequest {
    /// Signs and writes the summary of `v` (verified at `time`).
    pub fn write(
        &self,
        v: &Verification,
        inputs: &Inputs<'_>,
        policy: &PolicyInputs,
        time: &str,
        ui: &Ui,
    ) -> Result<()> {
        let Some(bundle_sha256) = v.bundle_sha256 else {
            bail!(
                "--vsa: the bundle's SHA-256 was not computed, so no verification summary can name it"
            );
        };
        let policy_inputs = [
            ("trust", policy.trust),
            ("pins", policy.pins),
            ("publication", policy.publication),
        ]
        .into_iter()
        .filter_map(|(n, d)| d.map(|d| (n.to_string(), d)))
        .collect();
        let passed = v.report.ok();
        let levels: Vec<String> = v
            .summary_levels(inputs)
            .into_iter()
            .map(String::from)
            .collect();
        let summary = VsaSummary {
            bundle_name: self.bundle_name.clone(),
            bundle_sha256,
            time_verified: time.to_string(),
            policy_inputs,
            input_attestations: v.input_attestations.clone(),
            passed,
            levels: levels.clone(),
        };
        let st = summary.statement()?;
        let envelope = attest::sign_statement(&st, &[&self.key]);
        super::output::write(&self.out, &envelope, 0o644, true)?;
        ui.note(&format!(
            "verify: wrote {} (verification summary: {}{}), signed by {}",
            self.out.display(),
            if passed {
                attest::PASSED
            } else {
                attest::FAILED
            },
            if levels.is_empty() {
                String::new()
            } else {
                format!(", {}", levels.join(", "))
            },
            keys::key_id(&self.key.verifying_key())
        ));
        Ok(())
    }
}
