//! InferenceX "source measurement receipts" (`receipt.json`,
//! `receipt.sha256`, one folder per artifact), verified by the rules of
//! SemiAnalysisAI/InferenceX-app `packages/db/src/lib/measurement-receipt.ts`
//! (`parseMeasurementReceipt`, `verifyMeasurementSnapshot`, read at commit
//! 481a862) and its fixture `fixtures/measurement-receipt/`; see
//! docs/peers.md. Each rule is its own check, so that every kind of tamper
//! names itself.
//!
//! Layout: [`model`] (the documents as types), [`canonical`] (the
//! receipt's canonical JSON), [`checks`] (`receipt.json` on its own, one
//! function per check id), [`folder`] (the directory against it) and
//! [`points`] (each point's execution record and normalized row).

pub mod canonical;
pub mod checks;
pub mod folder;
pub mod model;
pub mod points;

use std::path::{Path, PathBuf};

use serde_json::Value;

pub use canonical::{canonical, canonical_bytes};
pub use model::{safe_path, Receipt};

use crate::digest::Sha256Digest;
use crate::report::{Check, Report};
use crate::strictjson::reject_duplicate_json_keys;

/// Largest `receipt.json` read.
pub const MAX_RECEIPT: u64 = 16 << 20;
pub use folder::MAX_ENTRIES;

/// Why a receipt could not be verified at all.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ReceiptError {
    /// `receipt.json` or `receipt.sha256` could not be read (unreadable, or
    /// over its size limit).
    #[error("{}: cannot read: {message}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The cause, as the reader states it.
        message: String,
    },
    /// `receipt.json` is not JSON (or repeats a key, or is too large).
    #[error("{}: not a JSON receipt: {message}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The argument is not a directory holding `receipt.json`.
    #[error("{}: not a receipt directory (no receipt.json)", path.display())]
    NotAReceipt {
        /// The directory.
        path: PathBuf,
    },
}

/// A receipt's published digest (`--pin`): 64 lowercase hex, with or
/// without `sha256:`.
pub fn parse_pin(s: &str) -> Result<String, String> {
    let hex = s.strip_prefix("sha256:").unwrap_or(s).to_ascii_lowercase();
    if hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(hex)
    } else {
        Err(format!(
            "--pin {s:?}: expected the receipt's SHA-256 (64 hex digits, optionally sha256:)"
        ))
    }
}

/// The checks of `receipt.json`'s bytes on their own (no file system):
/// transport digest, contract, receipt id, source, points, artifacts.
/// `sha_text` is `receipt.sha256`'s content, if present. Returns the
/// checks and the receipt as read.
pub fn check_receipt_bytes(
    bytes: &[u8],
    sha_text: Option<&[u8]>,
) -> Result<(Vec<Check>, Receipt), String> {
    reject_duplicate_json_keys(bytes).map_err(|e| e.to_string())?;
    let v: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if !v.is_object() {
        return Err("receipt.json is not a JSON object".into());
    }
    let r: Receipt = model::typed(&v);
    let actual = Sha256Digest::of_bytes(bytes).to_hex();
    let (points, required) = checks::points(&r);
    let out = vec![
        checks::transport_digest(&actual, sha_text),
        checks::contract(&r),
        checks::receipt_id(&v, &r),
        checks::source(&r),
        points,
        checks::artifacts(&r, &required),
    ];
    Ok((out, r))
}

fn read_err(path: &Path) -> impl Fn(crate::capped::CappedError) -> ReceiptError + '_ {
    move |e| ReceiptError::Read {
        path: path.to_path_buf(),
        message: e.to_string(),
    }
}

/// Verifies a receipt directory; `Err` only when `receipt.json` cannot be
/// read or is not JSON. `pin` (from [`parse_pin`]) is the receipt's
/// published digest; without it the verdict says that nothing outside the
/// receipt anchors it.
pub fn verify_receipt_dir(dir: &Path, pin: Option<&str>) -> Result<Report, ReceiptError> {
    let rpath = dir.join("receipt.json");
    if !rpath.is_file() {
        return Err(ReceiptError::NotAReceipt {
            path: dir.to_path_buf(),
        });
    }
    let bytes = crate::capped::read_capped(&rpath, MAX_RECEIPT).map_err(read_err(&rpath))?;
    let spath = dir.join("receipt.sha256");
    let sha = match std::fs::symlink_metadata(&spath) {
        Ok(m) if m.is_file() => {
            Some(crate::capped::read_capped(&spath, 4096).map_err(read_err(&spath))?)
        }
        _ => None,
    };
    let (checks, r) =
        check_receipt_bytes(&bytes, sha.as_deref()).map_err(|message| ReceiptError::Json {
            path: rpath.clone(),
            message,
        })?;
    let mut report = Report::new(dir.display().to_string());
    for c in checks {
        report.push(c);
    }
    let actual = Sha256Digest::of_bytes(&bytes).to_hex();
    report.push(checks::pin(pin, &actual, &r));
    let arts: Vec<model::Artifact> = r.artifacts.items().iter().map(|a| a.or_default()).collect();
    let names = folder::usable_names(&arts);
    report.push(folder::root(dir, &names));
    for a in &arts {
        if let Some(name) = a.name.str().filter(|n| names.contains(*n)) {
            folder::artifact(dir, name, a, &mut report);
        }
    }
    points::check_executions(dir, &r, &names, &mut report);
    let s = report.summary();
    let line = if s.passed == 0 && s.failed == 0 {
        report.push(Check::fail(
            "receipt.compared",
            "nothing in the receipt could be compared with the files beside it",
        ));
        format!(
            "FAILED: nothing in receipt {} could be compared ({} checks not applicable)",
            dir.display(),
            s.skipped
        )
    } else if !report.ok() {
        format!("FAILED: {}", super::failed_checks(&report))
    } else if pin.is_none() {
        format!(
            "VERIFIED (unpinned: nothing outside the receipt anchors it): receipt {} ({} checks passed, {} not applicable; --pin the receipt's published SHA-256 to anchor it)",
            dir.display(),
            s.passed,
            s.skipped
        )
    } else {
        format!(
            "VERIFIED: receipt {}, pinned by --pin ({} checks passed, {} not applicable)",
            dir.display(),
            s.passed,
            s.skipped
        )
    };
    report.set_verdict(line);
    Ok(report)
}
