//! The receipt's documents as types: `receipt.json` ([`Receipt`], its
//! [`Point`]s and [`Artifact`]s) and a point's `execution.json`
//! ([`Execution`]), with the value rules measurement-receipt.ts applies
//! ([`is_digest`], [`positive`], [`run_id`], [`safe_path`]).
//!
//! Every field is a [`Loose`]: it keeps the value as written and the typed
//! value when the JSON has the expected type, so that a field of the wrong
//! type is a named problem of its check (exit 1), never a parse error that
//! hides the other checks. Unknown fields are ignored, as the app ignores
//! them; repeated keys were refused before (strictjson).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

/// A field as written (`raw`, `None` when absent) and as `T` when it has
/// that type.
#[derive(Debug, Clone)]
pub struct Loose<T> {
    raw: Option<Value>,
    val: Option<T>,
}

impl<T> Default for Loose<T> {
    fn default() -> Self {
        Loose {
            raw: None,
            val: None,
        }
    }
}

impl<'de, T: DeserializeOwned> Deserialize<'de> for Loose<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = Value::deserialize(d)?;
        let val = T::deserialize(&raw).ok();
        Ok(Loose {
            raw: Some(raw),
            val,
        })
    }
}

impl<T> Loose<T> {
    /// The typed value, when the field is present with the expected type.
    pub fn get(&self) -> Option<&T> {
        self.val.as_ref()
    }
    /// The value as written, when present.
    pub fn raw(&self) -> Option<&Value> {
        self.raw.as_ref()
    }
}

impl Loose<String> {
    /// The string, when the field is one.
    pub fn str(&self) -> Option<&str> {
        self.val.as_deref()
    }
}

impl<T: Clone> Loose<Vec<T>> {
    /// The elements, when the field is an array (empty otherwise).
    pub fn items(&self) -> &[T] {
        self.val.as_deref().unwrap_or(&[])
    }
}

impl<T: Default + Clone> Loose<T> {
    /// The typed value, or its default when absent or of another type (an
    /// array element that is not an object reads as an empty object).
    pub fn or_default(&self) -> T {
        self.val.clone().unwrap_or_default()
    }
}

/// A 64-character lowercase hex SHA-256.
pub fn is_digest<T>(v: &Loose<T>) -> bool {
    v.raw().and_then(Value::as_str).is_some_and(|s| {
        s.len() == 64
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// A positive safe integer.
pub fn positive<T>(v: &Loose<T>) -> bool {
    v.raw()
        .and_then(Value::as_u64)
        .is_some_and(|n| n > 0 && n < (1 << 53))
}

/// A positive decimal string without leading zeros.
pub fn run_id<T>(v: &Loose<T>) -> bool {
    v.raw().and_then(Value::as_str).is_some_and(|s| {
        !s.is_empty() && !s.starts_with('0') && s.bytes().all(|b| b.is_ascii_digit())
    })
}

/// The receipt's rule for a member or artifact path.
pub fn safe_path(p: &str) -> bool {
    let drive = p.len() >= 2 && p.as_bytes()[0].is_ascii_alphabetic() && p.as_bytes()[1] == b':';
    let bad = p.is_empty() || p.contains('\\') || p.contains('\0') || p.starts_with('/') || drive;
    !bad && p.split('/').all(|c| !c.is_empty() && c != "." && c != "..")
}

/// `receipt.json`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Receipt {
    /// `"source-measurement-receipt"`.
    pub kind: Loose<String>,
    /// 1.
    pub version: Loose<u64>,
    /// `{raw, normalized, publication}`.
    pub contracts: Loose<Map<String, Value>>,
    /// SHA-256 of the canonical receipt without this field.
    pub receipt_id: Loose<String>,
    /// `OWNER/NAME`.
    pub repository: Loose<String>,
    /// The source workflow run.
    pub source_run_id: Loose<Value>,
    /// Its attempt.
    pub source_attempt: Loose<u64>,
    /// The source commit.
    pub source_head_sha: Loose<Value>,
    /// The bundle's digest.
    pub bundle_digest: Loose<String>,
    /// The measured points.
    pub points: Loose<Vec<Loose<Point>>>,
    /// The artifacts the points name.
    pub artifacts: Loose<Vec<Loose<Artifact>>>,
}

/// A point's topology.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Topology {
    /// `"aggregate"`.
    pub kind: Loose<String>,
    /// 1.
    pub nodes: Loose<u64>,
    /// Tensor parallelism.
    pub tp: Loose<u64>,
    /// Expert parallelism.
    pub ep: Loose<u64>,
    /// GPUs serving.
    pub serving_gpus: Loose<u64>,
}

/// One measured point of a receipt.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
#[allow(missing_docs)] // the app's field names (docs/peers.md)
pub struct Point {
    pub point_id: Loose<String>,
    pub bundle_digest: Loose<String>,
    pub execution_id: Loose<String>,
    pub concurrency: Loose<u64>,
    pub source_attempt: Loose<u64>,
    pub source_run_id: Loose<Value>,
    pub kind: Loose<String>,
    pub topology: Loose<Topology>,
    pub artifact_ids: Loose<Vec<Value>>,
    pub normalized_artifact_id: Loose<u64>,
    pub normalized_path: Loose<String>,
    pub normalized_format: Loose<String>,
    pub metadata_path: Loose<String>,
    pub required_metrics: Loose<Vec<Value>>,
    pub execution_artifact_id: Loose<u64>,
    pub execution_path: Loose<String>,
    pub native_manifest_sha256: Loose<String>,
    pub config: Loose<Map<String, Value>>,
    pub task: Loose<String>,
    pub sample_count: Loose<u64>,
    pub filters: Loose<Vec<Value>>,
    pub samples_artifact_id: Loose<u64>,
    pub samples_path: Loose<String>,
}

impl Point {
    /// The point id's first 12 characters (check ids), `?` without one.
    pub fn short_id(&self) -> &str {
        let pid = self.point_id.str().unwrap_or("?");
        pid.get(..12).unwrap_or(pid)
    }
    /// True when `artifact_ids` names `id`.
    pub fn names_artifact(&self, id: u64) -> bool {
        self.artifact_ids
            .items()
            .iter()
            .any(|x| x.as_u64() == Some(id))
    }
}

/// One file of an artifact.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
#[allow(missing_docs)] // the app's field names (docs/peers.md)
pub struct Member {
    pub path: Loose<String>,
    pub size: Loose<u64>,
    pub sha256: Loose<String>,
}

/// One artifact (a folder of the receipt directory, or its archive).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
#[allow(missing_docs)] // the app's field names (docs/peers.md)
pub struct Artifact {
    pub id: Loose<u64>,
    pub name: Loose<String>,
    pub sha256: Loose<String>,
    pub run_id: Loose<Value>,
    pub members: Loose<Vec<Loose<Member>>>,
}

/// `execution.json`'s `source`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
#[allow(missing_docs)] // the app's field names (docs/peers.md)
pub struct ExecSource {
    pub repository: Loose<Value>,
    pub attempt: Loose<Value>,
    pub head_sha: Loose<Value>,
    pub run_id: Loose<Value>,
}

/// `execution.json`'s `native_receipt`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
#[allow(missing_docs)] // the app's field names (docs/peers.md)
pub struct NativeReceipt {
    pub manifest_sha256: Loose<Value>,
    pub state: Loose<String>,
    pub job_id: Loose<Value>,
}

/// A point's `execution.json`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
#[allow(missing_docs)] // the app's field names (docs/peers.md)
pub struct Execution {
    pub schema_version: Loose<u64>,
    pub point_id: Loose<Value>,
    pub execution_id: Loose<Value>,
    pub bundle_digest: Loose<Value>,
    pub mode: Loose<Value>,
    pub source: Loose<ExecSource>,
    pub native_receipt: Loose<NativeReceipt>,
    pub client_exit_code: Loose<Value>,
}

/// A document read as `T`; a JSON value that is not an object reads as an
/// empty one (every field then absent).
pub fn typed<T: DeserializeOwned + Default>(v: &Value) -> T {
    T::deserialize(v).unwrap_or_default()
}
