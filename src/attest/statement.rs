//! The in-toto Statement v1: its subjects ([`Subject`]), the compact JSON
//! that gets signed, and the checked parse of a signed payload.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::digest::Sha256Digest;
use crate::keys::reject_duplicate_json_keys;

use super::types::{AttestError, STATEMENT_TYPE};

/// A subject of a Statement: a name and the SHA-256 of what it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subject {
    /// The name (`weights.manifest`, `config.json`, `engine-image`, a bundle file name ...).
    pub name: String,
    /// The SHA-256 digest of the named thing.
    pub digest: Sha256Digest,
}

/// An in-toto Statement v1 with a SHA-256 digest for every subject.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// The subjects, in the Statement's order; names are unique.
    pub subjects: Vec<Subject>,
    /// The predicate type URI.
    pub predicate_type: String,
    /// The predicate (JSON null when the Statement has none).
    pub predicate: Value,
}

#[derive(Serialize)]
struct DigestSetOut {
    sha256: String,
}

#[derive(Serialize)]
struct SubjectOut<'a> {
    name: &'a str,
    digest: DigestSetOut,
}

#[derive(Serialize)]
struct StatementOut<'a> {
    #[serde(rename = "_type")]
    type_: &'static str,
    subject: Vec<SubjectOut<'a>>,
    #[serde(rename = "predicateType")]
    predicate_type: &'a str,
    predicate: &'a Value,
}

#[derive(Deserialize)]
struct StatementIn {
    #[serde(rename = "_type")]
    type_: String,
    subject: Vec<SubjectIn>,
    #[serde(rename = "predicateType")]
    predicate_type: String,
    #[serde(default)]
    predicate: Option<Value>,
}

#[derive(Deserialize)]
struct SubjectIn {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    digest: Option<BTreeMap<String, Value>>,
}

impl Statement {
    /// A Statement, checked as a verifier would check it: at least one
    /// subject, unique non-empty names, a non-empty predicate type.
    pub fn new(
        subjects: Vec<Subject>,
        predicate_type: &str,
        predicate: Value,
    ) -> Result<Self, AttestError> {
        let s = Statement {
            subjects,
            predicate_type: predicate_type.to_string(),
            predicate,
        };
        s.validate()?;
        Ok(s)
    }

    fn validate(&self) -> Result<(), AttestError> {
        if self.subjects.is_empty() {
            return Err(AttestError::NoSubjects);
        }
        let mut names = BTreeSet::new();
        for (i, s) in self.subjects.iter().enumerate() {
            if s.name.is_empty() {
                return Err(AttestError::BadSubject {
                    index: i + 1,
                    name: String::new(),
                    reason: "empty name".into(),
                });
            }
            if !names.insert(s.name.as_str()) {
                return Err(AttestError::DuplicateSubject {
                    name: s.name.clone(),
                });
            }
        }
        if self.predicate_type.is_empty() {
            return Err(AttestError::NotAStatement {
                reason: "empty predicateType".into(),
            });
        }
        Ok(())
    }

    /// The subject with this name.
    pub fn subject(&self, name: &str) -> Option<&Subject> {
        self.subjects.iter().find(|s| s.name == name)
    }

    /// The Statement as compact JSON (the bytes that get signed).
    pub fn to_json_bytes(&self) -> Vec<u8> {
        let out = StatementOut {
            type_: STATEMENT_TYPE,
            subject: self
                .subjects
                .iter()
                .map(|s| SubjectOut {
                    name: &s.name,
                    digest: DigestSetOut {
                        sha256: s.digest.to_hex(),
                    },
                })
                .collect(),
            predicate_type: &self.predicate_type,
            predicate: &self.predicate,
        };
        serde_json::to_vec(&out).expect("statement serialises")
    }

    /// Parses a Statement payload (strict JSON; unknown fields ignored).
    /// Each subject needs a non-empty name and a `sha256` digest of 64
    /// lowercase hex characters; other digest algorithms are ignored.
    pub fn parse(payload: &[u8]) -> Result<Self, AttestError> {
        let not = |reason: String| AttestError::NotAStatement { reason };
        reject_duplicate_json_keys(payload).map_err(|e| not(e.to_string()))?;
        let v: StatementIn = serde_json::from_slice(payload).map_err(|e| not(e.to_string()))?;
        if v.type_ != STATEMENT_TYPE {
            return Err(not(format!(
                "_type is {:?}, expected {STATEMENT_TYPE:?}",
                v.type_
            )));
        }
        let mut subjects = Vec::with_capacity(v.subject.len());
        for (i, s) in v.subject.into_iter().enumerate() {
            let name = s.name.unwrap_or_default();
            let bad = |reason: String| AttestError::BadSubject {
                index: i + 1,
                name: name.clone(),
                reason,
            };
            let digest = s.digest.ok_or_else(|| bad("no digest".into()))?;
            let hex = match digest.get("sha256") {
                Some(Value::String(h)) => h,
                Some(other) => {
                    return Err(bad(format!(
                    "digest.sha256 is {other}, expected a string of 64 lowercase hex characters"
                )))
                }
                None => {
                    return Err(bad(
                        "no sha256 digest; proofpack needs {\"sha256\": \"<64 hex>\"}".into(),
                    ))
                }
            };
            let digest = Sha256Digest::parse_hex_canonical(hex)
                .map_err(|e| bad(format!("digest.sha256: {e}")))?;
            subjects.push(Subject { name, digest });
        }
        let st = Statement {
            subjects,
            predicate_type: v.predicate_type,
            predicate: v.predicate.unwrap_or(Value::Null),
        };
        st.validate()?;
        Ok(st)
    }
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} sha256:{}", self.name, self.digest)
    }
}
