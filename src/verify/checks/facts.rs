//! Facts: the named values of a run that a publication's rows and a
//! pins file's value pins are checked against.
//!
//! The link from a published label to a value inside the run is data in
//! `qualification.json` (`{"name", "file", "pointer"}`), not code: a fact
//! without `pointer` is the SHA-256 of its file; with one, the JSON value
//! the RFC 6901 pointer names in that file.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::digest::Sha256Digest;
use crate::strictjson::reject_duplicate_json_keys;
use crate::verify::evidence::context::Run;

/// What a fact names.
#[derive(Debug, Clone, PartialEq)]
pub enum FactValue {
    /// The SHA-256 of a file of the run.
    FileDigest(Sha256Digest),
    /// A value inside a JSON file of the run.
    Json(Value),
}

impl FactValue {
    /// The value for messages.
    pub fn describe(&self) -> String {
        match self {
            FactValue::FileDigest(d) => d.prefixed(),
            FactValue::Json(Value::String(s)) => s.clone(),
            FactValue::Json(v) => v.to_string(),
        }
    }

    /// The fact as a digest: a file's, or a JSON string `sha256:<hex>` or
    /// `<hex>`.
    pub fn as_digest(&self) -> Option<Sha256Digest> {
        match self {
            FactValue::FileDigest(d) => Some(*d),
            FactValue::Json(Value::String(s)) => {
                Sha256Digest::parse_hex(s.strip_prefix("sha256:").unwrap_or(s)).ok()
            }
            FactValue::Json(_) => None,
        }
    }

    /// The fact as a number.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            FactValue::Json(v) => v.as_f64(),
            FactValue::FileDigest(_) => None,
        }
    }

    /// True if the fact is the published text `s`: the same string (case
    /// and surrounding space aside), or the same number.
    pub fn equals_text(&self, s: &str) -> bool {
        let s = s.trim();
        match self {
            FactValue::Json(Value::String(t)) => t.trim().eq_ignore_ascii_case(s),
            FactValue::Json(Value::Number(n)) => {
                let t: String = s.chars().filter(|c| *c != ',').collect();
                match (n.as_f64(), t.parse::<f64>()) {
                    (Some(a), Ok(b)) => same_number(a, b),
                    _ => false,
                }
            }
            FactValue::Json(Value::Bool(b)) => {
                s.eq_ignore_ascii_case(if *b { "true" } else { "false" })
            }
            FactValue::FileDigest(d) => {
                Sha256Digest::parse_hex(s.strip_prefix("sha256:").unwrap_or(s)).ok() == Some(*d)
            }
            FactValue::Json(_) => false,
        }
    }
}

/// Two numbers that are the same value as written (relative 1e-9).
pub fn same_number(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

/// Every fact of the qualification, resolved against the evidence read.
pub type Facts = BTreeMap<String, Result<FactValue, String>>;

/// Resolves every fact; an `Err` says why a fact cannot be read.
pub fn resolve(run: &Run<'_>) -> Facts {
    let collected = run.collected;
    let mut out = BTreeMap::new();
    for f in &run.q().facts {
        let v = if let Some(p) = run.problem(&f.file) {
            Err(p)
        } else {
            match &f.pointer {
                None => collected
                    .hashes
                    .get(&f.file)
                    .map(|d| FactValue::FileDigest(*d))
                    .ok_or_else(|| format!("{}: not in the run", f.file)),
                Some(pointer) => match collected.small.get(&f.file) {
                    None => Err(format!("{}: not in the run", f.file)),
                    Some(bytes) => json_at(bytes, &f.file, pointer),
                },
            }
        };
        out.insert(f.name.clone(), v);
    }
    out
}

fn json_at(bytes: &[u8], file: &str, pointer: &str) -> Result<FactValue, String> {
    reject_duplicate_json_keys(bytes).map_err(|e| format!("{file}: {e}"))?;
    let v: Value = serde_json::from_slice(bytes).map_err(|e| format!("{file}: not JSON: {e}"))?;
    v.pointer(pointer)
        .cloned()
        .map(FactValue::Json)
        .ok_or_else(|| format!("{file}: nothing at JSON pointer {pointer:?}"))
}
