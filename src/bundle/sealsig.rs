//! Seal signatures: the signed in-toto Statement beside a bundle
//! (`BUNDLE.tgz.seal.dsse.json`, spec section 4).
//!
//! The seal binds the bundle's bytes and its MANIFEST to a release key. Its
//! subjects are matched against what the verifier computed from the bytes it
//! actually read, never against anything the bundle says about itself: the
//! bundle subject by the digest of the `.tgz` (its name is informational,
//! since files get renamed), `MANIFEST` by the digest of the MANIFEST entry.
//! `files` and `bytes` of the predicate must equal those of the MANIFEST's
//! file set as found in the bundle.

use std::path::{Path, PathBuf};

use ed25519_dalek::SigningKey;

use super::types::{BundleError, BundleVerification, Sealed, MANIFEST_NAME};
use crate::attest::{self, SealPredicate, Statement, Subject, SEAL_PREDICATE_TYPE};
use crate::digest::Sha256Digest;
use crate::keys::{Role, TrustStore};
use crate::report::Check;

/// Report id of the seal check.
pub const SEAL_CHECK_ID: &str = "seal";

/// `BUNDLE.seal.dsse.json` beside `BUNDLE`.
pub fn seal_path(bundle: &Path) -> PathBuf {
    let mut p = bundle.as_os_str().to_owned();
    p.push(".seal.dsse.json");
    PathBuf::from(p)
}

/// The signed seal envelope for a sealed bundle named `bundle_name`.
pub(crate) fn sign_seal(
    sealed: &Sealed,
    bundle_name: &str,
    key: &SigningKey,
    sealed_at: &str,
) -> Result<Vec<u8>, BundleError> {
    if bundle_name == MANIFEST_NAME {
        return Err(BundleError::Sign(
            "a bundle file named MANIFEST would clash with the MANIFEST subject; choose another output name".into(),
        ));
    }
    attest::check_rfc3339_utc(sealed_at).map_err(BundleError::Sign)?;
    let predicate = SealPredicate {
        files: sealed.files,
        bytes: sealed.bytes,
        sealed_at: sealed_at.to_string(),
        tool: Some(crate::TOOL.to_string()),
    };
    let statement = Statement::new(
        vec![
            Subject {
                name: bundle_name.to_string(),
                digest: sealed.bundle_sha256,
            },
            Subject {
                name: MANIFEST_NAME.to_string(),
                digest: sealed.manifest_digest,
            },
        ],
        SEAL_PREDICATE_TYPE,
        predicate.to_value(),
    )
    .map_err(|e| BundleError::Sign(e.to_string()))?;
    Ok(attest::sign_statement(&statement, &[key]))
}

/// What a seal Statement must say of the bundle it seals, whether or not
/// its signature was checked: a subject with the bundle's SHA-256, a
/// `MANIFEST` subject equal to the bundle's MANIFEST and (when given) the
/// file count and byte total of the MANIFEST's file set. Returns every
/// disagreement.
fn consistency_problems(
    st: &Statement,
    pred: &SealPredicate,
    bundle_sha256: Option<Sha256Digest>,
    manifest_digest: Option<Sha256Digest>,
    files_and_bytes: Option<(u64, u64)>,
) -> Vec<String> {
    let mut problems = Vec::new();
    match bundle_sha256 {
        None => problems.push(
            "not checkable: the bundle's digest was not computed (reading stopped)".to_string(),
        ),
        Some(d) => {
            if !st
                .subjects
                .iter()
                .any(|s| s.name != MANIFEST_NAME && s.digest == d)
            {
                let named: Vec<String> = st
                    .subjects
                    .iter()
                    .filter(|s| s.name != MANIFEST_NAME)
                    .map(|s| format!("{} {}", s.name, s.digest))
                    .collect();
                problems.push(format!(
                    "no bundle subject has this bundle's SHA-256 {d} (the seal names {}): the seal is for other bytes",
                    if named.is_empty() { "none".to_string() } else { named.join(", ") }
                ));
            }
        }
    }
    match (st.subject(MANIFEST_NAME), manifest_digest) {
        (None, _) => problems.push("the seal has no MANIFEST subject".into()),
        (Some(_), None) => problems.push("not checkable: the bundle has no usable MANIFEST".into()),
        (Some(s), Some(d)) if s.digest != d => problems.push(format!(
            "MANIFEST subject {} differs from the bundle's MANIFEST {d}",
            s.digest
        )),
        _ => {}
    }
    if let Some((files, bytes)) = files_and_bytes {
        if pred.files != files || pred.bytes != bytes {
            problems.push(format!(
                "predicate says {} files, {} bytes; the bundle's MANIFEST file set has {files} files, {bytes} bytes",
                pred.files, pred.bytes
            ));
        }
    }
    problems
}

/// Checks a seal envelope against the trust roots and what was read from the
/// bundle: it must verify under a key trusted for `release`, be a seal
/// Statement, have a subject whose digest is `bundle_sha256` and a
/// `MANIFEST` subject equal to `manifest_digest`, and (when given) carry the
/// file count and byte total of the MANIFEST's file set. Returns the `seal`
/// check.
pub fn verify_seal(
    envelope: &[u8],
    trust: &TrustStore,
    bundle_sha256: Option<Sha256Digest>,
    manifest_digest: Option<Sha256Digest>,
    files_and_bytes: Option<(u64, u64)>,
) -> Check {
    let id = SEAL_CHECK_ID;
    let verified = match attest::verify_envelope(envelope, trust, Role::Release, 1) {
        Ok(v) => v,
        Err(e) => {
            return Check::fail(
                id,
                format!("the seal does not verify under a key trusted for release: {e}"),
            )
        }
    };
    let st = verified.get();
    let pred = match SealPredicate::from_statement(st) {
        Ok(p) => p,
        Err(e) => return Check::fail(id, format!("signed, but not a valid seal Statement: {e}")),
    };
    let problems = consistency_problems(st, &pred, bundle_sha256, manifest_digest, files_and_bytes);
    let signers = verified.signers().join(", ");
    if problems.is_empty() {
        Check::pass(
            id,
            format!(
                "signed by {signers} (release), sealed_at {}{}",
                pred.sealed_at,
                pred.tool
                    .as_deref()
                    .map(|t| format!(", by {t}"))
                    .unwrap_or_default()
            ),
        )
    } else {
        Check::fail(
            id,
            format!("signed by {signers} (release), but {}", problems.join("; ")),
        )
    }
}

/// Report id of the structural seal check made without trust roots.
pub const SEAL_STRUCTURE_CHECK_ID: &str = "seal.structure";

/// The structure of a seal whose signature cannot be checked (no trust
/// roots): a well-formed envelope holding a seal Statement that names
/// this bundle's bytes and MANIFEST. A malformed or mismatched seal beside a
/// bundle is evidence that does not hold, trusted or not.
pub fn seal_structure(
    envelope: &[u8],
    bundle_sha256: Option<Sha256Digest>,
    manifest_digest: Option<Sha256Digest>,
    files_and_bytes: Option<(u64, u64)>,
) -> Check {
    let id = SEAL_STRUCTURE_CHECK_ID;
    let unverified = match attest::inspect_envelope(envelope) {
        Ok(u) => u,
        Err(e) => return Check::fail(id, format!("the seal is not a well-formed envelope: {e}")),
    };
    let st = &unverified.claimed;
    let pred = match SealPredicate::from_statement(st) {
        Ok(p) => p,
        Err(e) => return Check::fail(id, format!("the seal is not a valid seal Statement: {e}")),
    };
    let problems = consistency_problems(st, &pred, bundle_sha256, manifest_digest, files_and_bytes);
    if problems.is_empty() {
        Check::pass(
            id,
            format!(
                "a seal Statement with {} signature(s) naming this bundle's SHA-256 and MANIFEST, sealed_at {} (signature not checked)",
                unverified.signatures, pred.sealed_at
            ),
        )
    } else {
        Check::fail(
            id,
            format!(
                "the seal does not match this bundle: {}",
                problems.join("; ")
            ),
        )
    }
}

/// What [`seal_check`] found.
#[derive(Debug, Clone)]
pub struct SealOutcome {
    /// The checks (`seal`, and `seal.structure` when there is no trust).
    pub checks: Vec<Check>,
    /// True when a seal is present.
    pub present: bool,
    /// True when its signature was checked against trust roots.
    pub signature_checked: bool,
    /// The seal file's name and the SHA-256 of the bytes checked,
    /// when a seal file was read (an input of a verification summary).
    pub envelope: Option<(String, Sha256Digest)>,
}

/// The seal checks for a verified bundle, as `verify` runs them:
///
/// * no seal file (`seal` or else `BUNDLE.seal.dsse.json` beside the
///   bundle): `seal` skipped, or failed when `require` is set;
/// * a seal file that is not a regular file: `seal` failed;
/// * a seal but no trust roots: `seal.structure` checks what it claims
///   ([`seal_structure`]) and `seal` is skipped as "signature not checked",
///   or failed when `require` is set;
/// * otherwise [`verify_seal`].
///
/// `Err` only when a seal file cannot be read.
pub fn seal_check(
    bundle: &Path,
    seal: Option<&Path>,
    trust: Option<&TrustStore>,
    require: bool,
    v: &BundleVerification,
) -> Result<SealOutcome, BundleError> {
    let id = SEAL_CHECK_ID;
    let default = seal_path(bundle);
    let one = |c: Check, present: bool| SealOutcome {
        checks: vec![c],
        present,
        signature_checked: false,
        envelope: None,
    };
    let path = match seal {
        Some(p) => p.to_path_buf(),
        None if std::fs::symlink_metadata(&default).is_ok() => default,
        None if require => {
            return Ok(one(
                Check::fail(
                    id,
                    format!(
                        "--require-seal: no seal given and none beside the bundle ({})",
                        default.display()
                    ),
                ),
                false,
            ))
        }
        None => {
            return Ok(one(
                Check::skip(
                    id,
                    format!("no seal beside the bundle ({})", default.display()),
                ),
                false,
            ))
        }
    };
    match std::fs::metadata(&path) {
        Ok(m) if !m.is_file() => {
            return Ok(one(
                Check::fail(
                    id,
                    format!(
                        "{} is not a regular file; a seal is a DSSE envelope file",
                        path.display()
                    ),
                ),
                true,
            ))
        }
        Ok(_) => {}
        Err(e) if seal.is_none() && e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(one(
                Check::fail(id, format!("{} is a dangling link", path.display())),
                true,
            ))
        }
        Err(source) => return Err(BundleError::Io { path, source }),
    }
    let bytes = attest::read_envelope_file(&path).map_err(|source| BundleError::Io {
        path: path.clone(),
        source,
    })?;
    let envelope = Some((
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string()),
        Sha256Digest::of_bytes(&bytes),
    ));
    let manifest_digest = v.manifest.as_ref().map(|m| m.digest());
    let totals = match (&v.manifest, v.listed_bytes) {
        (Some(m), Some(b)) => Some((m.len() as u64, b)),
        _ => None,
    };
    let Some(trust) = trust else {
        let why = format!(
            "{}: signature not checked: no --trust file given to check it against",
            path.display()
        );
        let structure = seal_structure(&bytes, v.bundle_sha256, manifest_digest, totals);
        return Ok(SealOutcome {
            checks: vec![
                structure,
                if require {
                    Check::fail(id, why)
                } else {
                    Check::skip(id, why)
                },
            ],
            present: true,
            signature_checked: false,
            envelope,
        });
    };
    Ok(SealOutcome {
        checks: vec![verify_seal(
            &bytes,
            trust,
            v.bundle_sha256,
            manifest_digest,
            totals,
        )],
        present: true,
        signature_checked: true,
        envelope,
    })
}
