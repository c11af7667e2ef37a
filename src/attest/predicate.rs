//! The predicates proofpack defines: the engine attestation
//! ([`EnginePredicate`], with [`EngineInfo`] and [`Accelerator`]) and the
//! bundle seal ([`SealPredicate`]), their field rules, the lenient integer
//! reading of other writers' counts, and [`known_predicate_problem`].

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::digest::Sha256Digest;
use crate::timefmt::check_rfc3339_utc;

use super::statement::{Statement, Subject};
use super::types::{AttestError, ENGINE_PREDICATE_TYPE, SEAL_PREDICATE_TYPE};

/// The engine of an engine attestation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EngineInfo {
    /// The engine's id in the qualification (`engine-0`).
    pub id: String,
    /// The serving engine (`vllm`, `sglang` ...).
    pub name: String,
    /// Its version.
    pub version: String,
    /// The engine image digest, `sha256:<64 lowercase hex>`.
    pub image: String,
}

/// The accelerators an engine ran on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accelerator {
    /// Model name (`MI355X`, `H200` ...).
    pub name: String,
    /// How many (at least 1).
    #[serde(deserialize_with = "count::de_u64")]
    pub count: u64,
}

/// The predicate of an engine attestation
/// (`urn:proofpack:predicate:engine:v1`). Unknown fields are ignored
/// and integer fields accept integral floats (`8.0`), as other writers (in-toto's
/// protobuf JSON among them) emit them; the fields proofpack reads stay
/// strictly typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EnginePredicate {
    /// The engine.
    pub engine: EngineInfo,
    /// The host it ran on.
    pub host: String,
    /// The model served (`moonshotai/Kimi-K3`).
    pub model: String,
    /// The accelerators.
    pub accelerator: Accelerator,
    /// Parallelism degrees by dimension (`{"tensor": 8}`), each at least 1.
    #[serde(deserialize_with = "count::de_u64_map")]
    pub parallelism: BTreeMap<String, u64>,
    /// Launch time, RFC 3339 UTC (`2026-09-23T10:00:00Z`).
    pub launched_at: String,
    /// Restart generation of the engine (0 for the first launch).
    #[serde(deserialize_with = "count::de_u64")]
    pub generation: u64,
}

impl EnginePredicate {
    /// The engine predicate of a Statement whose predicate type is the
    /// engine type, checked: non-empty strings, `engine.image` a canonical
    /// `sha256:<hex>`, counts and degrees at least 1, `launched_at` RFC 3339
    /// UTC. (Whether the `engine-image` subject matches is a qualification
    /// check, spec section 6.)
    pub fn from_statement(s: &Statement) -> Result<Self, AttestError> {
        if s.predicate_type != ENGINE_PREDICATE_TYPE {
            return Err(AttestError::PredicateType {
                expected: ENGINE_PREDICATE_TYPE.into(),
                found: s.predicate_type.clone(),
            });
        }
        Self::from_value(&s.predicate)
    }

    /// Parses and checks a predicate value.
    pub fn from_value(v: &Value) -> Result<Self, AttestError> {
        let p: EnginePredicate =
            serde_json::from_value(v.clone()).map_err(|e| bad_engine(e.to_string()))?;
        p.validate()?;
        Ok(p)
    }

    /// Checks the field rules (see [`EnginePredicate::from_statement`]).
    pub fn validate(&self) -> Result<(), AttestError> {
        for (field, value) in [
            ("engine.id", &self.engine.id),
            ("engine.name", &self.engine.name),
            ("engine.version", &self.engine.version),
            ("host", &self.host),
            ("model", &self.model),
            ("accelerator.name", &self.accelerator.name),
        ] {
            if value.trim().is_empty() {
                return Err(bad_engine(format!("{field} is empty")));
            }
        }
        self.image_digest()?;
        if self.accelerator.count == 0 {
            return Err(bad_engine("accelerator.count must be at least 1".into()));
        }
        for (k, v) in &self.parallelism {
            if k.is_empty() {
                return Err(bad_engine("parallelism has an empty dimension name".into()));
            }
            if *v == 0 {
                return Err(bad_engine(format!("parallelism.{k} must be at least 1")));
            }
        }
        check_rfc3339_utc(&self.launched_at)
            .map_err(|e| bad_engine(format!("launched_at: {e}")))?;
        Ok(())
    }

    /// `engine.image` as a digest (must be `sha256:<64 lowercase hex>`).
    pub fn image_digest(&self) -> Result<Sha256Digest, AttestError> {
        let hex = self.engine.image.strip_prefix("sha256:").ok_or_else(|| {
            bad_engine(format!(
                "engine.image is {:?}, expected \"sha256:<64 lowercase hex>\"",
                self.engine.image
            ))
        })?;
        Sha256Digest::parse_hex_canonical(hex).map_err(|e| bad_engine(format!("engine.image: {e}")))
    }

    /// The predicate as JSON.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("predicate serialises")
    }

    /// An engine Statement: the given subjects plus `engine-image` from
    /// `engine.image` (if `engine-image` is given too, it must agree).
    pub fn statement(&self, mut subjects: Vec<Subject>) -> Result<Statement, AttestError> {
        self.validate()?;
        let image = self.image_digest()?;
        match subjects.iter().find(|s| s.name == "engine-image") {
            Some(s) if s.digest != image => {
                return Err(bad_engine(format!(
                    "subject engine-image is sha256:{} but engine.image is {}; they must name the same image",
                    s.digest, self.engine.image
                )))
            }
            Some(_) => {}
            None => subjects.push(Subject {
                name: "engine-image".into(),
                digest: image,
            }),
        }
        Statement::new(subjects, ENGINE_PREDICATE_TYPE, self.to_value())
    }
}

/// The predicate of a bundle seal (`urn:proofpack:predicate:seal:v1`):
/// totals of the bundle MANIFEST's file set (MANIFEST itself excluded), the
/// sealing time and, as proofpack writes it, the tool that sealed.
/// Unknown fields are ignored and counts may be integral floats, as for the
/// engine predicate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SealPredicate {
    /// Number of files listed in MANIFEST.
    #[serde(deserialize_with = "count::de_u64")]
    pub files: u64,
    /// Sum of their sizes.
    #[serde(deserialize_with = "count::de_u64")]
    pub bytes: u64,
    /// Sealing time, RFC 3339 UTC.
    pub sealed_at: String,
    /// `proofpack <version>` (optional for readers).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
}

impl SealPredicate {
    /// The seal predicate of a Statement whose predicate type is the seal
    /// type, checked (`sealed_at` RFC 3339 UTC).
    pub fn from_statement(s: &Statement) -> Result<Self, AttestError> {
        let bad = |reason: String| AttestError::BadPredicate {
            predicate_type: SEAL_PREDICATE_TYPE.into(),
            reason,
        };
        if s.predicate_type != SEAL_PREDICATE_TYPE {
            return Err(AttestError::PredicateType {
                expected: SEAL_PREDICATE_TYPE.into(),
                found: s.predicate_type.clone(),
            });
        }
        let p: SealPredicate =
            serde_json::from_value(s.predicate.clone()).map_err(|e| bad(e.to_string()))?;
        check_rfc3339_utc(&p.sealed_at).map_err(|e| bad(format!("sealed_at: {e}")))?;
        Ok(p)
    }

    /// The predicate as JSON.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).expect("predicate serialises")
    }
}

/// Integer fields of predicates written by other tools: a JSON integer, or
/// a float with no fractional part (in-toto's protobuf JSON writes `8.0`).
mod count {
    use serde::{Deserialize, Deserializer};
    use std::collections::BTreeMap;

    /// Largest integral float taken as a count (2^53: beyond it floats skip
    /// integers, so the value would not be the one written).
    const MAX_EXACT: f64 = 9_007_199_254_740_992.0;

    fn from_value<E: serde::de::Error>(v: &serde_json::Value) -> Result<u64, E> {
        if let Some(n) = v.as_u64() {
            return Ok(n);
        }
        match v.as_f64() {
            Some(f) if f >= 0.0 && f.fract() == 0.0 && f <= MAX_EXACT => Ok(f as u64),
            _ => Err(E::custom(format!(
                "expected a non-negative integer, found {v}"
            ))),
        }
    }

    pub fn de_u64<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
        from_value(&serde_json::Value::deserialize(d)?)
    }

    pub fn de_u64_map<'de, D: Deserializer<'de>>(d: D) -> Result<BTreeMap<String, u64>, D::Error> {
        let m = BTreeMap::<String, serde_json::Value>::deserialize(d)?;
        m.into_iter()
            .map(|(k, v)| from_value(&v).map(|n| (k, n)))
            .collect()
    }
}

/// Why a Statement of a predicate type proofpack defines or writes (engine,
/// seal, the verification summary) carries an invalid predicate, if it
/// does; `None` for other types.
pub fn known_predicate_problem(st: &Statement) -> Option<String> {
    match st.predicate_type.as_str() {
        super::vsa::VSA_PREDICATE_TYPE => super::vsa::vsa_predicate_problem(st)
            .map(|e| format!("invalid {} predicate: {e}", super::vsa::VSA_PREDICATE_TYPE)),
        ENGINE_PREDICATE_TYPE => EnginePredicate::from_statement(st)
            .err()
            .map(|e| e.to_string()),
        SEAL_PREDICATE_TYPE => SealPredicate::from_statement(st)
            .err()
            .map(|e| e.to_string()),
        _ => None,
    }
}

fn bad_engine(reason: String) -> AttestError {
    AttestError::BadPredicate {
        predicate_type: ENGINE_PREDICATE_TYPE.into(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_predicate() {
        let st = Statement::new(
            vec![Subject {
                name: "MANIFEST".into(),
                digest: Sha256Digest::of_bytes(b""),
            }],
            SEAL_PREDICATE_TYPE,
            serde_json::json!({"files": 2, "bytes": 10, "sealed_at": "2026-09-23T10:00:00Z"}),
        )
        .unwrap();
        let p = SealPredicate::from_statement(&st).unwrap();
        assert_eq!((p.files, p.bytes, p.tool.as_deref()), (2, 10, None));
        // Other writers' extra fields and integral floats are read.
        let mut other = st.clone();
        other.predicate["extra"] = serde_json::json!(1);
        other.predicate["files"] = serde_json::json!(2.0);
        assert_eq!(SealPredicate::from_statement(&other).unwrap().files, 2);
        let mut bad = st.clone();
        bad.predicate["files"] = serde_json::json!(2.5);
        assert!(SealPredicate::from_statement(&bad).is_err());
        bad = st.clone();
        bad.predicate["sealed_at"] = serde_json::json!("now");
        assert!(SealPredicate::from_statement(&bad).is_err());
        bad = st;
        bad.predicate_type = ENGINE_PREDICATE_TYPE.into();
        assert!(matches!(
            SealPredicate::from_statement(&bad),
            Err(AttestError::PredicateType { .. })
        ));
    }
}
