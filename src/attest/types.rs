//! The payload and predicate types, the envelope limits and the error type
//! of the module (re-exported by it).

use crate::keys::Role;

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
