//! Signed statements: DSSE envelopes around in-toto Statement v1 (spec
//! section 4), the engine predicate, and the only way to get a
//! [`Verified`] statement.
//!
//! Why it is built this way:
//!
//! - **Signature first, payload after.** The verifier decodes the envelope,
//!   checks every signature over PAE(payloadType, payload) against the
//!   auditor's trusted keys for the role, and only when enough distinct
//!   trusted keys verify does it look inside the payload. Nothing an attacker
//!   wrote is interpreted before it is known to be signed.
//! - **`Verified<T>` is a proof, not a flag.** Its fields are private and the
//!   only constructor is [`verify_envelope`], so code that receives a
//!   `Verified<Statement>` (bundle seal checks, qualification checks) cannot be
//!   handed an unverified statement by mistake.
//! - **Key ids are hints.** A signature counts if it verifies under a key the
//!   trust file trusts for the role that the check needs, whatever its
//!   `keyid` says; a key counts once however many of its signatures an
//!   envelope carries, so a threshold of two means two different keys.
//! - **One Ed25519 check.** Every signature goes through
//!   [`crate::keys::verify_ed25519_strict`], the function the Wycheproof and
//!   speccheck vectors exercise.
//! - **Strict JSON.** Envelope and payload are size-capped and refused when an
//!   object repeats a key; unknown envelope and Statement fields are ignored
//!   (spec), but the engine predicate is proofpack's own schema and rejects
//!   unknown fields: a signed claim the verifier does not understand is not
//!   a claim it can vouch for (new fields come with a new predicate type).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::{self, Read};
use std::ops::Deref;
use std::path::{Path, PathBuf};

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use ed25519_dalek::{Signer as _, SigningKey};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::digest::{DigestError, Sha256Digest};
use crate::keys::{
    key_id, reject_duplicate_json_keys, verify_ed25519_strict, Role, TrustStore, TrustedKey,
};
use crate::progress::Progress;
use crate::report::{Check, Report};

/// DSSE payload type of an in-toto Statement.
pub const IN_TOTO_PAYLOAD_TYPE: &str = "application/vnd.in-toto+json";
/// `_type` of an in-toto Statement v1.
pub const STATEMENT_TYPE: &str = "https://in-toto.io/Statement/v1";
/// Predicate type of an engine attestation.
pub const ENGINE_PREDICATE_TYPE: &str = "urn:proofpack:predicate:engine:v1";
/// Predicate type of a bundle seal.
pub const SEAL_PREDICATE_TYPE: &str = "urn:proofpack:predicate:seal:v1";

/// Largest envelope accepted (16 MiB). Real ones are a few KiB.
pub const ENVELOPE_MAX_BYTES: usize = 16 << 20;
/// Most signatures one envelope may carry.
pub const MAX_SIGNATURES: usize = 256;

/// Why a signed statement does not hold. Every variant is an evidence
/// failure (exit 1); some are also used when building a statement to sign.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AttestError {
    /// The envelope is larger than [`ENVELOPE_MAX_BYTES`].
    #[error("envelope is {size} bytes, more than the limit of {limit} bytes")]
    TooLarge {
        /// Size found (at least).
        size: usize,
        /// The limit.
        limit: usize,
    },
    /// The envelope is not a DSSE envelope (JSON, fields, base64).
    #[error("malformed DSSE envelope: {reason}")]
    MalformedEnvelope {
        /// What was wrong.
        reason: String,
    },
    /// Not enough distinct trusted keys of the role verified.
    #[error("{}", threshold_message(*role, *needed, *verified, notes))]
    Threshold {
        /// The role the check needs.
        role: Role,
        /// Distinct trusted keys needed.
        needed: usize,
        /// Distinct trusted keys whose signatures verified.
        verified: usize,
        /// One line per signature that did not count.
        notes: Vec<String>,
    },
    /// The payload type is not the in-toto one.
    #[error("payloadType is {found:?}, expected {IN_TOTO_PAYLOAD_TYPE:?}")]
    PayloadType {
        /// The type found.
        found: String,
    },
    /// The payload is not an in-toto Statement.
    #[error("payload is not an in-toto Statement v1: {reason}")]
    NotAStatement {
        /// What was wrong.
        reason: String,
    },
    /// The Statement lists no subjects.
    #[error("the Statement has no subjects; it must name what it attests (e.g. weights.manifest, config.json, engine-image)")]
    NoSubjects,
    /// A subject is unusable (no name, no or bad sha256 digest).
    #[error("subject #{index} ({name:?}): {reason}")]
    BadSubject {
        /// 1-based position in the subject list.
        index: usize,
        /// Its name, if any.
        name: String,
        /// What was wrong.
        reason: String,
    },
    /// Two subjects share a name, so a lookup by name would be ambiguous.
    #[error("subject name {name:?} appears more than once; a name must identify one digest")]
    DuplicateSubject {
        /// The repeated name.
        name: String,
    },
    /// The Statement's predicate type is not the one the caller needs.
    #[error("predicateType is {found:?}, expected {expected:?}")]
    PredicateType {
        /// The type needed.
        expected: String,
        /// The type found.
        found: String,
    },
    /// The predicate does not match its schema.
    #[error("invalid {predicate_type} predicate: {reason}")]
    BadPredicate {
        /// The predicate type.
        predicate_type: String,
        /// What was wrong.
        reason: String,
    },
}

fn threshold_message(role: Role, needed: usize, verified: usize, notes: &[String]) -> String {
    let mut s = format!(
        "not enough valid signatures by keys trusted for role {role}: need {needed} distinct key(s), found {verified}"
    );
    for n in notes {
        s.push_str("\n  - ");
        s.push_str(n);
    }
    if verified == 0 {
        s.push_str(&format!(
            "\n  (check that the signer's public key is in the trust file with role \"{role}\": `proofpack key id KEY.pub`)"
        ));
    }
    s
}

/// DSSE pre-authentication encoding:
/// `"DSSEv1" SP LEN(type) SP type SP LEN(payload) SP payload`.
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload_type.len() + payload.len() + 32);
    out.extend_from_slice(b"DSSEv1 ");
    out.extend_from_slice(payload_type.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload_type.as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload);
    out
}

const fn b64(alphabet: &base64::alphabet::Alphabet, padding: DecodePaddingMode) -> GeneralPurpose {
    GeneralPurpose::new(
        alphabet,
        GeneralPurposeConfig::new()
            .with_encode_padding(true)
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(padding),
    )
}

const B64_STD_PAD: GeneralPurpose = b64(
    &base64::alphabet::STANDARD,
    DecodePaddingMode::RequireCanonical,
);
const B64_STD_NOPAD: GeneralPurpose =
    b64(&base64::alphabet::STANDARD, DecodePaddingMode::RequireNone);
const B64_URL_PAD: GeneralPurpose = b64(
    &base64::alphabet::URL_SAFE,
    DecodePaddingMode::RequireCanonical,
);
const B64_URL_NOPAD: GeneralPurpose =
    b64(&base64::alphabet::URL_SAFE, DecodePaddingMode::RequireNone);

/// Decodes base64 as the spec allows: standard or URL-safe alphabet (not
/// mixed), with full padding or none. Refuses partial padding and
/// whitespace. v1.1: non-zero unused bits in the last character are
/// accepted (they decode to the same bytes), as Python's `base64` and
/// securesystemslib accept them; signatures are checked over the decoded
/// bytes, so the spelling of the text never matters to a verdict.
pub fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let std_chars = text.bytes().any(|b| b == b'+' || b == b'/');
    let url_chars = text.bytes().any(|b| b == b'-' || b == b'_');
    if std_chars && url_chars {
        return Err("base64 mixes the standard (+/) and URL-safe (-_) alphabets".into());
    }
    let padded = text.contains('=');
    let engine = match (url_chars, padded) {
        (false, true) => &B64_STD_PAD,
        (false, false) => &B64_STD_NOPAD,
        (true, true) => &B64_URL_PAD,
        (true, false) => &B64_URL_NOPAD,
    };
    engine.decode(text).map_err(|e| match e {
        base64::DecodeError::InvalidLastSymbol(_, _) => {
            "non-canonical base64 (the unused bits of the last character are not zero)".to_string()
        }
        base64::DecodeError::InvalidPadding => {
            "malformed base64 padding (use full '=' padding or none)".into()
        }
        base64::DecodeError::InvalidLength(_) => "base64 text has an impossible length".into(),
        base64::DecodeError::InvalidByte(i, b) => {
            format!("invalid base64 character {:?} at offset {i}", b as char)
        }
    })
}

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

#[derive(Serialize)]
struct EnvelopeOut {
    #[serde(rename = "payloadType")]
    payload_type: &'static str,
    payload: String,
    signatures: Vec<SignatureOut>,
}

#[derive(Serialize)]
struct SignatureOut {
    keyid: String,
    sig: String,
}

#[derive(Deserialize)]
struct EnvelopeIn {
    #[serde(rename = "payloadType")]
    payload_type: String,
    payload: String,
    signatures: Vec<SignatureIn>,
}

#[derive(Deserialize)]
struct SignatureIn {
    #[serde(default)]
    keyid: Option<String>,
    sig: String,
}

/// Signs a Statement with each key: a DSSE envelope (pretty JSON ending with
/// `\n`), payload and signatures in standard padded base64.
pub fn sign_statement(statement: &Statement, keys: &[&SigningKey]) -> Vec<u8> {
    let payload = statement.to_json_bytes();
    let message = pae(IN_TOTO_PAYLOAD_TYPE, &payload);
    let b64 = &base64::engine::general_purpose::STANDARD;
    let env = EnvelopeOut {
        payload_type: IN_TOTO_PAYLOAD_TYPE,
        payload: b64.encode(&payload),
        signatures: keys
            .iter()
            .map(|k| SignatureOut {
                keyid: key_id(&k.verifying_key()),
                sig: b64.encode(k.sign(&message).to_bytes()),
            })
            .collect(),
    };
    let mut out = serde_json::to_vec_pretty(&env).expect("envelope serialises");
    out.push(b'\n');
    out
}

/// A value whose signatures were verified. Only this module can make one.
#[derive(Debug, Clone)]
pub struct Verified<T> {
    value: T,
    signers: Vec<String>,
    ignored: Vec<String>,
}

impl<T> Verified<T> {
    /// The verified value.
    pub fn get(&self) -> &T {
        &self.value
    }
    /// Key ids of the trusted, verified, distinct signers (in envelope order).
    pub fn signers(&self) -> &[String] {
        &self.signers
    }
    /// One note per signature that did not count (untrusted, wrong role,
    /// invalid, duplicate).
    pub fn ignored(&self) -> &[String] {
        &self.ignored
    }
}

impl<T> Deref for Verified<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

/// What became of one signature of an envelope.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SignatureStatus {
    /// Verified under a key trusted for the role; counted.
    Counted {
        /// The trusted key.
        keyid: String,
        /// Its label.
        label: Option<String>,
    },
    /// Verified under a key that already counted; counted once.
    Duplicate {
        /// The key.
        keyid: String,
    },
    /// Verified under a trusted key that lacks the role.
    WrongRole {
        /// The key.
        keyid: String,
        /// The roles it has.
        roles: Vec<Role>,
    },
    /// Does not verify under any trusted key.
    NotTrusted {
        /// Why, in words.
        reason: String,
    },
    /// The signature field itself is malformed (base64, length).
    Malformed {
        /// Why.
        reason: String,
    },
}

/// One signature's outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignatureOutcome {
    /// 1-based position in `signatures`.
    pub index: usize,
    /// The envelope's `keyid`, if any (a hint only).
    pub keyid_hint: Option<String>,
    /// What happened.
    pub status: SignatureStatus,
}

impl SignatureOutcome {
    /// A one-line description.
    pub fn describe(&self, role: Role) -> String {
        let hint = match &self.keyid_hint {
            Some(h) if !h.is_empty() => format!(" (keyid {h})"),
            _ => String::new(),
        };
        let n = self.index;
        match &self.status {
            SignatureStatus::Counted { keyid, label } => {
                let l = label
                    .as_ref()
                    .map(|l| format!(" ({l})"))
                    .unwrap_or_default();
                format!("signature {n}: verified under key {keyid}{l}, trusted for {role}")
            }
            SignatureStatus::Duplicate { keyid } => {
                format!("signature {n}: another signature by key {keyid}; a key counts once")
            }
            SignatureStatus::WrongRole { keyid, roles } => {
                let r: Vec<&str> = roles.iter().map(|r| r.as_str()).collect();
                format!(
                    "signature {n}: verifies under key {keyid}, which is trusted for [{}] but not for {role}",
                    r.join(", ")
                )
            }
            // The reason already names the hinted key.
            SignatureStatus::NotTrusted { reason } => format!("signature {n}: {reason}"),
            SignatureStatus::Malformed { reason } => format!("signature {n}{hint}: {reason}"),
        }
    }

    /// The report check id: `signature:<keyid>` (the verified key, else the
    /// hint, else `#<index>`).
    fn check_id(&self) -> String {
        match &self.status {
            SignatureStatus::Counted { keyid, .. }
            | SignatureStatus::Duplicate { keyid }
            | SignatureStatus::WrongRole { keyid, .. } => format!("signature:{keyid}"),
            _ => match &self.keyid_hint {
                Some(h) if !h.is_empty() => format!("signature:{h}"),
                _ => format!("signature:#{}", self.index),
            },
        }
    }
}

/// Everything the verifier found, for reports.
#[derive(Debug)]
pub struct EnvelopeVerification {
    /// The role checked.
    pub role: Role,
    /// The threshold applied.
    pub threshold: usize,
    /// Envelope-level problem before signatures were checked, if any.
    pub envelope_error: Option<String>,
    /// Per-signature outcomes.
    pub signatures: Vec<SignatureOutcome>,
    /// The final verdict.
    pub result: Result<Verified<Statement>, AttestError>,
}

fn malformed(reason: impl Into<String>) -> AttestError {
    AttestError::MalformedEnvelope {
        reason: reason.into(),
    }
}

/// Checks one signature against the trusted keys.
fn judge_signature(
    index: usize,
    sig: &SignatureIn,
    message: &[u8],
    trust: &TrustStore,
    role: Role,
    counted: &mut Vec<String>,
) -> SignatureOutcome {
    let keyid_hint = sig.keyid.clone();
    let outcome = |status| SignatureOutcome {
        index,
        keyid_hint: keyid_hint.clone(),
        status,
    };
    let raw = match decode_base64(&sig.sig) {
        Ok(r) => r,
        Err(e) => {
            return outcome(SignatureStatus::Malformed {
                reason: format!("sig: {e}"),
            })
        }
    };
    if raw.len() != 64 {
        return outcome(SignatureStatus::Malformed {
            reason: format!(
                "sig is {} bytes; an Ed25519 signature is 64 bytes",
                raw.len()
            ),
        });
    }
    let hint = keyid_hint.as_deref().map(|h| h.to_ascii_lowercase());
    // Try the hinted key first, then every other key (the id is only a hint).
    let mut order: Vec<&TrustedKey> = trust.keys().iter().collect();
    order.sort_by_key(|k| Some(&k.keyid) != hint.as_ref());
    let mut hinted_error = None;
    for k in order {
        match verify_ed25519_strict(k.key.as_bytes(), message, &raw) {
            Ok(()) => {
                if !k.has_role(role) {
                    return outcome(SignatureStatus::WrongRole {
                        keyid: k.keyid.clone(),
                        roles: k.roles.clone(),
                    });
                }
                if counted.contains(&k.keyid) {
                    return outcome(SignatureStatus::Duplicate {
                        keyid: k.keyid.clone(),
                    });
                }
                counted.push(k.keyid.clone());
                return outcome(SignatureStatus::Counted {
                    keyid: k.keyid.clone(),
                    label: k.label.clone(),
                });
            }
            Err(e) => {
                if Some(&k.keyid) == hint.as_ref() {
                    hinted_error = Some(e);
                }
            }
        }
    }
    let reason = match (hinted_error, &hint) {
        (Some(e), Some(h)) => format!("does not verify under trusted key {h}: {e}"),
        (None, Some(h)) if !h.is_empty() => {
            format!(
                "key {h} is not in the trust file, and the signature verifies under no trusted key"
            )
        }
        _ => "verifies under no key in the trust file".to_string(),
    };
    outcome(SignatureStatus::NotTrusted { reason })
}

/// Verifies an envelope and keeps every finding (for reports).
/// See [`verify_envelope`] for the rules.
pub fn verify_envelope_detailed(
    envelope: &[u8],
    trust: &TrustStore,
    role: Role,
    threshold: usize,
) -> EnvelopeVerification {
    let threshold = threshold.max(1);
    let mut v = EnvelopeVerification {
        role,
        threshold,
        envelope_error: None,
        signatures: Vec::new(),
        result: Err(malformed("not checked")),
    };
    let fail = |mut v: EnvelopeVerification, e: AttestError| {
        v.envelope_error = Some(e.to_string());
        v.result = Err(e);
        v
    };
    if envelope.len() > ENVELOPE_MAX_BYTES {
        let e = AttestError::TooLarge {
            size: envelope.len(),
            limit: ENVELOPE_MAX_BYTES,
        };
        return fail(v, e);
    }
    if let Err(e) = reject_duplicate_json_keys(envelope) {
        return fail(v, malformed(format!("not valid JSON: {e}")));
    }
    let env: EnvelopeIn = match serde_json::from_slice(envelope) {
        Ok(e) => e,
        Err(e) => return fail(v, malformed(e.to_string())),
    };
    let payload = match decode_base64(&env.payload) {
        Ok(p) => p,
        Err(e) => return fail(v, malformed(format!("payload: {e}"))),
    };
    if env.signatures.is_empty() {
        return fail(v, malformed("no signatures"));
    }
    if env.signatures.len() > MAX_SIGNATURES {
        return fail(
            v,
            malformed(format!(
                "{} signatures, more than the limit of {MAX_SIGNATURES}",
                env.signatures.len()
            )),
        );
    }
    let message = pae(&env.payload_type, &payload);
    let mut counted = Vec::new();
    for (i, s) in env.signatures.iter().enumerate() {
        let o = judge_signature(i + 1, s, &message, trust, role, &mut counted);
        v.signatures.push(o);
    }
    let ignored: Vec<String> = v
        .signatures
        .iter()
        .filter(|o| !matches!(o.status, SignatureStatus::Counted { .. }))
        .map(|o| o.describe(role))
        .collect();
    if counted.len() < threshold {
        v.result = Err(AttestError::Threshold {
            role,
            needed: threshold,
            verified: counted.len(),
            notes: ignored,
        });
        return v;
    }
    // Signed: now, and only now, look at what was signed.
    if env.payload_type != IN_TOTO_PAYLOAD_TYPE {
        v.result = Err(AttestError::PayloadType {
            found: env.payload_type,
        });
        return v;
    }
    v.result = Statement::parse(&payload).map(|value| Verified {
        value,
        signers: counted,
        ignored,
    });
    v
}

/// An envelope's Statement read WITHOUT checking any signature: what the
/// envelope claims, to check its structure when no trust roots are given.
/// Nothing in it is trustworthy; only [`Verified`] is.
#[derive(Debug, Clone)]
pub struct Unverified<T> {
    /// What the envelope claims.
    pub claimed: T,
    /// Number of signatures (each well-formed base64 of 64 bytes).
    pub signatures: usize,
}

/// Parses an envelope as [`verify_envelope`] would, without checking a
/// signature: the envelope's JSON, its payload's base64, each signature's
/// encoding and length, the payload type and the Statement. `Err` names the
/// first structural problem.
pub fn inspect_envelope(envelope: &[u8]) -> Result<Unverified<Statement>, AttestError> {
    if envelope.len() > ENVELOPE_MAX_BYTES {
        return Err(AttestError::TooLarge {
            size: envelope.len(),
            limit: ENVELOPE_MAX_BYTES,
        });
    }
    reject_duplicate_json_keys(envelope).map_err(|e| malformed(format!("not valid JSON: {e}")))?;
    let env: EnvelopeIn = serde_json::from_slice(envelope).map_err(|e| malformed(e.to_string()))?;
    let payload = decode_base64(&env.payload).map_err(|e| malformed(format!("payload: {e}")))?;
    if env.signatures.is_empty() {
        return Err(malformed("no signatures"));
    }
    if env.signatures.len() > MAX_SIGNATURES {
        return Err(malformed(format!(
            "{} signatures, more than the limit of {MAX_SIGNATURES}",
            env.signatures.len()
        )));
    }
    for (i, sig) in env.signatures.iter().enumerate() {
        let raw = decode_base64(&sig.sig)
            .map_err(|e| malformed(format!("signature #{}: sig: {e}", i + 1)))?;
        if raw.len() != 64 {
            return Err(malformed(format!(
                "signature #{}: sig is {} bytes; an Ed25519 signature is 64 bytes",
                i + 1,
                raw.len()
            )));
        }
    }
    if env.payload_type != IN_TOTO_PAYLOAD_TYPE {
        return Err(AttestError::PayloadType {
            found: env.payload_type,
        });
    }
    Ok(Unverified {
        claimed: Statement::parse(&payload)?,
        signatures: env.signatures.len(),
    })
}

/// Verifies a DSSE envelope holding an in-toto Statement.
///
/// The envelope holds when signatures by at least `threshold` distinct keys
/// trusted for `role` verify (strict Ed25519 over PAE); a threshold of 0 is
/// treated as 1. Other signatures are noted in [`Verified::ignored`]. Only
/// then is the payload type checked and the payload parsed as a Statement.
pub fn verify_envelope(
    envelope: &[u8],
    trust: &TrustStore,
    role: Role,
    threshold: usize,
) -> Result<Verified<Statement>, AttestError> {
    verify_envelope_detailed(envelope, trust, role, threshold).result
}

impl EnvelopeVerification {
    /// The findings as report checks: `envelope`, one `signature:<keyid>` per
    /// signature (passed when counted; any other signature, malformed ones
    /// included, is reported as not counted and skipped),
    /// `attestation` (the threshold), and `statement` (payload type and
    /// Statement, "not checkable" when the signatures do not hold).
    pub fn to_checks(&self) -> Vec<Check> {
        let mut checks = Vec::new();
        match &self.envelope_error {
            Some(e) => {
                checks.push(Check::fail("envelope", e.clone()));
                checks.push(Check::not_checkable(
                    "attestation",
                    "the envelope is malformed",
                ));
                checks.push(Check::not_checkable(
                    "statement",
                    "the envelope is malformed",
                ));
                return checks;
            }
            None => checks.push(Check::pass(
                "envelope",
                format!("DSSE envelope with {} signature(s)", self.signatures.len()),
            )),
        }
        let mut used = BTreeSet::new();
        for o in &self.signatures {
            let mut id = o.check_id();
            if !used.insert(id.clone()) {
                id = format!("{id}#{}", o.index);
                used.insert(id.clone());
            }
            let text = o.describe(self.role);
            // Spec: signatures beyond the counted ones are reported and
            // otherwise ignored, so they are skipped, not failed; the
            // `attestation` check fails when too few count.
            checks.push(match o.status {
                SignatureStatus::Counted { .. } => Check::pass(id, text),
                _ => Check::skip(id, format!("not counted: {text}")),
            });
        }
        let verified = self
            .signatures
            .iter()
            .filter(|o| matches!(o.status, SignatureStatus::Counted { .. }))
            .count();
        let att = format!(
            "{verified} distinct key(s) trusted for {} verified; {} required",
            self.role, self.threshold
        );
        match &self.result {
            Err(AttestError::Threshold { .. }) => {
                checks.push(Check::fail("attestation", att).with_values(self.threshold, verified));
                checks.push(Check::not_checkable(
                    "statement",
                    "the payload is not read until its signatures hold",
                ));
            }
            Err(e) => {
                checks.push(Check::pass("attestation", att));
                checks.push(Check::fail("statement", e.to_string()));
            }
            Ok(st) => {
                checks.push(Check::pass("attestation", att));
                checks.push(Check::pass(
                    "statement",
                    format!(
                        "in-toto Statement v1, predicateType {}, {} subject(s)",
                        st.predicate_type,
                        st.subjects.len()
                    ),
                ));
                // A predicate of a type proofpack defines is checked as
                // `verify` checks it, so that both verbs give one answer.
                if let Some(p) = known_predicate_problem(st.get()) {
                    checks.push(Check::fail("predicate", p));
                } else if matches!(
                    st.predicate_type.as_str(),
                    ENGINE_PREDICATE_TYPE | SEAL_PREDICATE_TYPE
                ) {
                    checks.push(Check::pass(
                        "predicate",
                        format!("a valid {} predicate", st.predicate_type),
                    ));
                }
            }
        }
        checks
    }

    /// The findings as a report about `target`.
    pub fn to_report(&self, target: &str) -> Report {
        let mut r = Report::new(target);
        for c in self.to_checks() {
            r.push(c);
        }
        r
    }
}

/// Reads an envelope file, at most [`ENVELOPE_MAX_BYTES`] + 1 bytes (so that
/// an oversized file is reported by the verifier as too large).
pub fn read_envelope_file(path: &Path) -> io::Result<Vec<u8>> {
    let f = std::fs::File::open(path)?;
    if f.metadata()?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a directory, expected an envelope file",
        ));
    }
    let mut buf = Vec::new();
    f.take(ENVELOPE_MAX_BYTES as u64 + 1)
        .read_to_end(&mut buf)?;
    Ok(buf)
}

/// Errors from `NAME=PATH|NAME=sha256:HEX` subject arguments (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SubjectSpecError {
    /// The argument is not `NAME=VALUE`.
    #[error("--subject {spec:?}: {reason}")]
    BadSpec {
        /// The argument.
        spec: String,
        /// What was wrong.
        reason: String,
    },
    /// The path is a directory.
    #[error("--subject {name}={}: is a directory; a subject is one file. Build its manifest first (`proofpack manifest {} -o {name}.manifest`) and give `--subject {name}=<that file>`", path.display(), path.display())]
    Directory {
        /// The subject name.
        name: String,
        /// The directory.
        path: PathBuf,
    },
    /// Hashing the file failed.
    #[error("--subject {name}: {source}")]
    Digest {
        /// The subject name.
        name: String,
        /// The error.
        #[source]
        source: DigestError,
    },
}

/// Parses `NAME=sha256:HEX` (hex of either case) or `NAME=PATH` (the file is
/// hashed; a directory is an error). Write `NAME=./sha256:...` for a file
/// whose name starts with `sha256:`.
pub fn subject_from_spec(spec: &str, progress: &dyn Progress) -> Result<Subject, SubjectSpecError> {
    let bad = |reason: &str| SubjectSpecError::BadSpec {
        spec: spec.to_string(),
        reason: reason.to_string(),
    };
    let (name, value) = spec
        .split_once('=')
        .ok_or_else(|| bad("expected NAME=PATH or NAME=sha256:HEX"))?;
    if name.is_empty() {
        return Err(bad("empty subject name"));
    }
    if value.is_empty() {
        return Err(bad("empty value; expected a file path or sha256:<64 hex>"));
    }
    if let Some(hex) = value.strip_prefix("sha256:") {
        let digest = Sha256Digest::parse_hex(hex).map_err(|e| bad(&e.to_string()))?;
        return Ok(Subject {
            name: name.to_string(),
            digest,
        });
    }
    let path = Path::new(value);
    subject_from_file(name, path, progress)
}

/// A subject whose digest is the SHA-256 of a file's bytes.
pub fn subject_from_file(
    name: &str,
    path: &Path,
    progress: &dyn Progress,
) -> Result<Subject, SubjectSpecError> {
    if std::fs::metadata(path).map(|m| m.is_dir()).unwrap_or(false) {
        return Err(SubjectSpecError::Directory {
            name: name.to_string(),
            path: path.to_path_buf(),
        });
    }
    let (digest, _) =
        crate::digest::hash_file(path, progress).map_err(|source| SubjectSpecError::Digest {
            name: name.to_string(),
            source,
        })?;
    Ok(Subject {
        name: name.to_string(),
        digest,
    })
}

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
/// (`urn:proofpack:predicate:engine:v1`). v1.1: unknown fields are ignored
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
/// engine predicate (v1.1).
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

/// Why a Statement of a predicate type proofpack defines (engine, seal)
/// carries an invalid predicate, if it does; `None` for other types.
pub fn known_predicate_problem(st: &Statement) -> Option<String> {
    match st.predicate_type.as_str() {
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

pub use crate::timefmt::{check_rfc3339_utc, rfc3339_utc, rfc3339_utc_now};

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} sha256:{}", self.name, self.digest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pae_matches_the_spec_example() {
        assert_eq!(
            pae("http://example.com/HelloWorld", b"hello world"),
            b"DSSEv1 29 http://example.com/HelloWorld 11 hello world".to_vec()
        );
        assert_eq!(pae("", b""), b"DSSEv1 0  0 ".to_vec());
    }

    #[test]
    fn base64_rules() {
        // "hi" = aGk= ; trailing bits of 'k' are zero, 'l' is not canonical.
        assert_eq!(decode_base64("aGk=").unwrap(), b"hi");
        assert_eq!(decode_base64("aGk").unwrap(), b"hi");
        assert_eq!(decode_base64("aGl=").unwrap(), b"hi");
        assert_eq!(decode_base64("aGl").unwrap(), b"hi");
        assert!(decode_base64("aGk==").is_err());
        assert!(decode_base64("aG k=").is_err());
        assert_eq!(decode_base64("-_8=").unwrap(), vec![0xfb, 0xff]);
        assert_eq!(decode_base64("+/8").unwrap(), vec![0xfb, 0xff]);
        assert!(decode_base64("+_8=").unwrap_err().contains("mixes"));
    }

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
        // v1.1: other writers' extra fields and integral floats are read.
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
