//! The SLSA Verification Summary Attestation (VSA) that `verify
//! --vsa` writes: an in-toto Statement v1 whose subject is the verified
//! bundle and whose predicate (`https://slsa.dev/verification_summary/v1`)
//! says who verified it, when, under which policy and inputs, with which
//! result and levels ([`VsaSummary`]); and the field rules a reader checks
//! ([`vsa_predicate_problem`], [`vsa_checks`]).
//!
//! The field names and types are the VSA v1 specification's; the levels,
//! the verifier and policy URIs and the extension field are proofpack's
//! own (docs/spec/FORMATS.md section 13).

use serde_json::{json, Map, Value};

use crate::digest::Sha256Digest;
use crate::keys::Role;
use crate::report::Check;
use crate::timefmt::check_rfc3339_utc;

use super::statement::{Statement, Subject};
use super::types::AttestError;

/// Predicate type of a SLSA Verification Summary Attestation, v1.
pub const VSA_PREDICATE_TYPE: &str = "https://slsa.dev/verification_summary/v1";
/// `verifier.id` is this prefix followed by proofpack's version.
pub const VERIFIER_ID_PREFIX: &str = "https://proofpack.dev/verifier/v";
/// `policy.uri`: the verification policy of `verify`, the contract
/// (docs/spec/FORMATS.md) at the version the URI names.
pub const POLICY_URI: &str = "https://proofpack.dev/policy/verify/v1.1";
/// The extension field (a URI, as the VSA parsing rules allow) listing the
/// auditor's inputs: the trust file, the pins, the publication.
pub const POLICY_INPUTS_FIELD: &str = "https://proofpack.dev/vsa/policyInputs/v1";
/// `verificationResult` of a verification that held.
pub const PASSED: &str = "PASSED";
/// `verificationResult` (and the one level) of one that did not.
pub const FAILED: &str = "FAILED";

/// The bundle track: every check of the bundle and its qualification held.
pub const LEVEL_BUNDLE: &str = "PROOFPACK_BUNDLE";
/// The bundle track when the verdict is qualified by what the run's
/// evidence could not show (client records with no second witness, host
/// launch checks not bound to the run, token counts not bounded): every
/// check that ran held, and those were not checked.
pub const LEVEL_BUNDLE_QUALIFIED: &str = "PROOFPACK_BUNDLE_QUALIFIED";
/// The bundle track with `--structure-only`: the bundle's structure (and
/// seal) held; the qualification was not verified.
pub const LEVEL_BUNDLE_STRUCTURE: &str = "PROOFPACK_BUNDLE_STRUCTURE";
/// The seal track: a release seal verified under a key trusted for `release`.
pub const LEVEL_SEAL: &str = "PROOFPACK_SEAL";
/// The publication track: the published pins (`--pins`) held.
pub const LEVEL_PINS: &str = "PROOFPACK_PINS";
/// The publication track: every row, cell and statement of the write-up
/// that proofpack checks held (rows it cannot check are only reported).
pub const LEVEL_PUBLICATION: &str = "PROOFPACK_PUBLICATION";
/// The publication track with `--require-all`: every table, row, cell and
/// statement of the write-up was checked against evidence and held.
pub const LEVEL_PUBLICATION_ALL: &str = "PROOFPACK_PUBLICATION_ALL";

/// The contract (docs/spec/FORMATS.md) this build verifies by: the policy
/// document whose SHA-256 is `policy.digest.sha256`.
const POLICY_DOCUMENT: &str = include_str!("../../docs/spec/FORMATS.md");

/// `verifier.id` of this build.
pub fn verifier_id() -> String {
    format!("{VERIFIER_ID_PREFIX}{}", env!("CARGO_PKG_VERSION"))
}

/// SHA-256 of the policy document (the contract this build carries).
pub fn policy_digest() -> Sha256Digest {
    Sha256Digest::of_bytes(POLICY_DOCUMENT.as_bytes())
}

/// What a verification summary says.
#[derive(Debug, Clone, PartialEq)]
pub struct VsaSummary {
    /// The bundle's file name (the subject's name and `resourceUri`).
    pub bundle_name: String,
    /// SHA-256 of the bundle bytes verified.
    pub bundle_sha256: Sha256Digest,
    /// When the verification ran, RFC 3339 UTC.
    pub time_verified: String,
    /// The auditor's inputs by role (`trust`, `pins`, `publication`).
    pub policy_inputs: Vec<(String, Sha256Digest)>,
    /// The attestations used: URI (path in the bundle, or the seal's file
    /// name) and SHA-256.
    pub input_attestations: Vec<(String, Sha256Digest)>,
    /// True when the verification held.
    pub passed: bool,
    /// The levels that held (ignored when `passed` is false).
    pub levels: Vec<String>,
}

/// `name` as a relative URI reference: RFC 3986 unreserved characters as
/// they are, every other byte percent-encoded.
pub fn uri_reference(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn digest_set(d: &Sha256Digest) -> Value {
    json!({ "sha256": d.to_hex() })
}

impl VsaSummary {
    /// The predicate as JSON.
    pub fn predicate(&self) -> Value {
        let levels: Vec<&str> = if self.passed {
            self.levels.iter().map(String::as_str).collect()
        } else {
            vec![FAILED]
        };
        let inputs: Vec<Value> = self
            .input_attestations
            .iter()
            .map(|(uri, d)| json!({ "uri": uri_reference(uri), "digest": digest_set(d) }))
            .collect();
        let policy_inputs: Vec<Value> = self
            .policy_inputs
            .iter()
            .map(|(name, d)| json!({ "name": name, "digest": digest_set(d) }))
            .collect();
        let mut p = Map::new();
        p.insert("verifier".into(), json!({ "id": verifier_id() }));
        p.insert("timeVerified".into(), json!(self.time_verified));
        p.insert(
            "resourceUri".into(),
            json!(uri_reference(&self.bundle_name)),
        );
        p.insert(
            "policy".into(),
            json!({ "uri": POLICY_URI, "digest": digest_set(&policy_digest()) }),
        );
        p.insert("inputAttestations".into(), Value::Array(inputs));
        p.insert(
            "verificationResult".into(),
            json!(if self.passed { PASSED } else { FAILED }),
        );
        p.insert("verifiedLevels".into(), json!(levels));
        p.insert(POLICY_INPUTS_FIELD.into(), Value::Array(policy_inputs));
        Value::Object(p)
    }

    /// The Statement to sign (checked as a reader checks it).
    pub fn statement(&self) -> Result<Statement, AttestError> {
        let st = Statement::new(
            vec![Subject {
                name: self.bundle_name.clone(),
                digest: self.bundle_sha256,
            }],
            VSA_PREDICATE_TYPE,
            self.predicate(),
        )?;
        match vsa_predicate_problem(&st) {
            Some(reason) => Err(AttestError::BadPredicate {
                predicate_type: VSA_PREDICATE_TYPE.into(),
                reason,
            }),
            None => Ok(st),
        }
    }
}

fn string_map(v: &Value, field: &str) -> Result<(), String> {
    let m = v
        .as_object()
        .ok_or_else(|| format!("{field} is {v}, expected an object of strings"))?;
    for (k, x) in m {
        if !x.is_string() {
            return Err(format!("{field}.{k} is {x}, expected a string"));
        }
    }
    Ok(())
}

fn digest_map(v: &Value, field: &str) -> Result<(), String> {
    string_map(v, field)?;
    if v.as_object().is_some_and(Map::is_empty) {
        return Err(format!(
            "{field} is empty; a digest set names at least one digest"
        ));
    }
    if let Some(h) = v.get("sha256").and_then(Value::as_str) {
        Sha256Digest::parse_hex_canonical(h).map_err(|e| format!("{field}.sha256: {e}"))?;
    }
    Ok(())
}

fn nonempty_str<'a>(p: &'a Map<String, Value>, field: &str) -> Result<Option<&'a str>, String> {
    match p.get(field) {
        None => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(s)),
        Some(other) => Err(format!("{field} is {other}, expected a non-empty string")),
    }
}

fn check_predicate(v: &Value) -> Result<(), String> {
    let p = v
        .as_object()
        .ok_or_else(|| format!("the predicate is {v}, expected an object"))?;
    let verifier = p
        .get("verifier")
        .and_then(Value::as_object)
        .ok_or("verifier is missing or not an object")?;
    nonempty_str(verifier, "id")
        .map_err(|e| format!("verifier.{e}"))?
        .ok_or("verifier.id is missing")?;
    if let Some(version) = verifier.get("version") {
        string_map(version, "verifier.version")?;
    }
    if let Some(t) = nonempty_str(p, "timeVerified")? {
        check_rfc3339_utc(t).map_err(|e| format!("timeVerified: {e}"))?;
    }
    nonempty_str(p, "resourceUri")?.ok_or("resourceUri is missing")?;
    let policy = p
        .get("policy")
        .and_then(Value::as_object)
        .ok_or("policy is missing or not an object")?;
    nonempty_str(policy, "uri")
        .map_err(|e| format!("policy.{e}"))?
        .ok_or("policy.uri is missing")?;
    if let Some(d) = policy.get("digest") {
        digest_map(d, "policy.digest")?;
    }
    if let Some(list) = p.get("inputAttestations") {
        let list = list
            .as_array()
            .ok_or_else(|| format!("inputAttestations is {list}, expected an array"))?;
        for (i, a) in list.iter().enumerate() {
            let field = format!("inputAttestations[{i}]");
            let a = a
                .as_object()
                .ok_or_else(|| format!("{field} is not an object"))?;
            nonempty_str(a, "uri").map_err(|e| format!("{field}.{e}"))?;
            let d = a
                .get("digest")
                .ok_or_else(|| format!("{field}.digest is missing"))?;
            digest_map(d, &format!("{field}.digest"))?;
        }
    }
    let result = match p.get("verificationResult") {
        Some(Value::String(s)) if s == PASSED || s == FAILED => s.as_str(),
        Some(other) => {
            return Err(format!(
                "verificationResult is {other}, expected \"PASSED\" or \"FAILED\""
            ))
        }
        None => return Err("verificationResult is missing".into()),
    };
    let levels = p
        .get("verifiedLevels")
        .and_then(Value::as_array)
        .ok_or("verifiedLevels is missing or not an array")?;
    for (i, l) in levels.iter().enumerate() {
        match l.as_str() {
            Some(s) if !s.is_empty() => {
                if result == PASSED && s == FAILED {
                    return Err(
                        "verificationResult is PASSED but verifiedLevels says FAILED".into(),
                    );
                }
                if result == FAILED && s != FAILED {
                    return Err(format!(
                        "verificationResult is FAILED but verifiedLevels claims {s:?}"
                    ));
                }
            }
            _ => return Err(format!("verifiedLevels[{i}] is {l}, expected a level name")),
        }
    }
    if let Some(d) = p.get("dependencyLevels") {
        let m = d
            .as_object()
            .ok_or_else(|| format!("dependencyLevels is {d}, expected an object"))?;
        for (k, n) in m {
            if !n.is_u64() {
                return Err(format!(
                    "dependencyLevels.{k} is {n}, expected a non-negative integer"
                ));
            }
        }
    }
    if let Some(s) = p.get("slsaVersion") {
        if !s.is_string() {
            return Err(format!("slsaVersion is {s}, expected a string"));
        }
    }
    Ok(())
}

/// Why a Statement of the VSA predicate type carries an invalid predicate,
/// if it does (the required fields and their types; `None` for a valid one
/// and for other predicate types).
pub fn vsa_predicate_problem(st: &Statement) -> Option<String> {
    if st.predicate_type != VSA_PREDICATE_TYPE {
        return None;
    }
    check_predicate(&st.predicate).err()
}

/// The checks `attest verify` adds for a verified Statement: `vsa.type`
/// (under the `auditor` role the predicate type is the VSA's, and a VSA
/// holds only under that role), `vsa.result` for a VSA (it records a
/// verification that PASSED) and, when `subject` (the SHA-256 of the
/// bundle given with `--subject`) is given, `vsa.subject`.
pub fn vsa_checks(st: &Statement, role: Role, subject: Option<Sha256Digest>) -> Vec<Check> {
    let is_vsa = st.predicate_type == VSA_PREDICATE_TYPE;
    let mut checks = Vec::new();
    if is_vsa || role == Role::Auditor {
        checks.push(match (is_vsa, role == Role::Auditor) {
            (true, true) => Check::pass(
                "vsa.type",
                format!("a verification summary ({VSA_PREDICATE_TYPE}) signed under the auditor role"),
            ),
            (false, _) => Check::fail(
                "vsa.type",
                format!(
                    "predicateType is {:?}; a key trusted for auditor signs only verification summaries ({VSA_PREDICATE_TYPE})",
                    st.predicate_type
                ),
            )
            .with_values(VSA_PREDICATE_TYPE, st.predicate_type.as_str()),
            (true, false) => Check::fail(
                "vsa.type",
                format!("a verification summary holds only under --role auditor, not {role}"),
            )
            .with_values("auditor", role.as_str()),
        });
    }
    // An invalid predicate fails `predicate`; its result is not read.
    if is_vsa && vsa_predicate_problem(st).is_none() {
        let result = st.predicate["verificationResult"]
            .as_str()
            .unwrap_or_default();
        checks.push(
            Check::outcome(
                "vsa.result",
                result == PASSED,
                if result == PASSED {
                    "the summary records a verification that PASSED".to_string()
                } else {
                    format!("the summary records a verification that did not pass ({result})")
                },
            )
            .with_values(PASSED, result),
        );
    }
    if let Some(d) = subject {
        let names: Vec<String> = st.subjects.iter().map(|s| s.to_string()).collect();
        let found = st.subjects.iter().any(|s| s.digest == d);
        checks.push(
            Check::outcome(
                "vsa.subject",
                found,
                if found {
                    format!("the bundle's SHA-256 {d} is the summary's subject")
                } else {
                    format!(
                        "the bundle's SHA-256 is {d}, but the summary is about {}",
                        names.join(", ")
                    )
                },
            )
            .with_values(d.to_hex(), names.join(", ")),
        );
    }
    checks
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(passed: bool) -> VsaSummary {
        VsaSummary {
            bundle_name: "run 1.tgz".into(),
            bundle_sha256: Sha256Digest::of_bytes(b"bundle"),
            time_verified: "2026-09-23T10:00:00Z".into(),
            policy_inputs: vec![("trust".into(), Sha256Digest::of_bytes(b"t"))],
            input_attestations: vec![(
                "run/attestations/engine-0.dsse.json".into(),
                Sha256Digest::of_bytes(b"a"),
            )],
            passed,
            levels: vec![LEVEL_BUNDLE.into()],
        }
    }

    #[test]
    fn written_summaries_are_valid_and_failed_claims_no_level() {
        let st = summary(true).statement().unwrap();
        assert_eq!(st.predicate["resourceUri"], "run%201.tgz");
        assert_eq!(st.predicate["verifiedLevels"], json!([LEVEL_BUNDLE]));
        let failed = summary(false).statement().unwrap();
        assert_eq!(failed.predicate["verificationResult"], FAILED);
        assert_eq!(failed.predicate["verifiedLevels"], json!([FAILED]));
    }

    #[test]
    fn field_rules() {
        let st = summary(true).statement().unwrap();
        for (field, value) in [
            ("verificationResult", json!("OK")),
            ("verifiedLevels", json!("PROOFPACK_BUNDLE")),
            ("verifiedLevels", json!([FAILED])),
            ("timeVerified", json!("yesterday")),
            ("resourceUri", json!(7)),
            ("policy", json!({"digest": {"sha256": "00"}})),
            ("inputAttestations", json!([{"uri": "x"}])),
            ("dependencyLevels", json!({"X": -1})),
        ] {
            let mut bad = st.clone();
            bad.predicate[field] = value;
            assert!(vsa_predicate_problem(&bad).is_some(), "{field}");
        }
        let mut bad = st.clone();
        bad.predicate.as_object_mut().unwrap().remove("verifier");
        assert!(vsa_predicate_problem(&bad).unwrap().contains("verifier"));
        assert!(vsa_checks(&st, Role::Engine, None)[0].failed());
        assert!(vsa_checks(&st, Role::Auditor, None)[0].passed());
        let other = Sha256Digest::of_bytes(b"other");
        let checks = vsa_checks(&st, Role::Auditor, Some(other));
        assert_eq!(checks[1].id, "vsa.result");
        assert!(checks[1].passed() && checks[2].failed());
        let failed = summary(false).statement().unwrap();
        assert!(vsa_checks(&failed, Role::Auditor, None)[1].failed());
    }
}
