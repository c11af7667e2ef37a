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
//!
//! The module is split by concept: this file holds the constants and the
//! error type; `dsse` the envelope wire format, PAE and base64; `statement`
//! the in-toto Statement; `sign` signing; `verify` verification, thresholds
//! and [`Verified`]; `predicate` the engine and seal predicates;
//! `subject_spec` subjects given on the command line; `vsa` the
//! SLSA verification summary that `verify --vsa` signs.

use crate::keys::Role;

mod dsse;
mod predicate;
mod sign;
mod statement;
mod subject_spec;
mod verify;
mod vsa;

pub use dsse::{decode_base64, pae, read_envelope_file};
pub use predicate::{
    known_predicate_problem, Accelerator, EngineInfo, EnginePredicate, SealPredicate,
};
pub use sign::sign_statement;
pub use statement::{Statement, Subject};
pub use subject_spec::{subject_from_file, subject_from_spec, SubjectSpecError};
pub use verify::{
    inspect_envelope, verify_envelope, verify_envelope_detailed, EnvelopeVerification,
    SignatureOutcome, SignatureStatus, Unverified, Verified,
};
pub use vsa::{
    policy_digest, uri_reference, verifier_id, vsa_checks, vsa_predicate_problem, VsaSummary,
    FAILED, LEVEL_BUNDLE, LEVEL_BUNDLE_STRUCTURE, LEVEL_PINS, LEVEL_PUBLICATION,
    LEVEL_PUBLICATION_ALL, LEVEL_SEAL, PASSED, POLICY_INPUTS_FIELD, POLICY_URI, VERIFIER_ID_PREFIX,
    VSA_PREDICATE_TYPE,
};

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

pub use crate::timefmt::{check_rfc3339_utc, rfc3339_utc, rfc3339_utc_now};
