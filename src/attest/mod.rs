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
//! The module is split by concept: `types` holds the constants and the
//! error type; `dsse` the envelope wire format, PAE and base64; `statement`
//! the in-toto Statement; `sign` signing; `verify` verification, thresholds
//! and [`Verified`]; `predicate` the engine and seal predicates;
//! `subject_spec` subjects given on the command line; `vsa` the
//! SLSA verification summary that `verify --vsa` signs.

mod dsse;
mod predicate;
mod sign;
mod statement;
mod subject_spec;
mod types;
mod verify;
mod vsa;

pub use dsse::{decode_base64, pae, read_envelope_file};
pub use predicate::{
    known_predicate_problem, Accelerator, EngineInfo, EnginePredicate, SealPredicate,
};
pub use sign::sign_statement;
pub use statement::{Statement, Subject};
pub use subject_spec::{subject_from_file, subject_from_spec, SubjectSpecError};
pub use types::{
    AttestError, ENGINE_PREDICATE_TYPE, ENVELOPE_MAX_BYTES, IN_TOTO_PAYLOAD_TYPE, MAX_SIGNATURES,
    SEAL_PREDICATE_TYPE, STATEMENT_TYPE,
};
pub use verify::{
    inspect_envelope, verify_envelope, verify_envelope_detailed, EnvelopeVerification,
    SignatureOutcome, SignatureStatus, Unverified, Verified,
};
pub use vsa::{
    policy_digest, uri_reference, verifier_id, vsa_checks, vsa_predicate_problem, VsaSummary,
    FAILED, LEVEL_BUNDLE, LEVEL_BUNDLE_QUALIFIED, LEVEL_BUNDLE_STRUCTURE, LEVEL_PINS,
    LEVEL_PUBLICATION, LEVEL_PUBLICATION_ALL, LEVEL_SEAL, PASSED, POLICY_INPUTS_FIELD, POLICY_URI,
    VERIFIER_ID_PREFIX, VSA_PREDICATE_TYPE,
};

pub use crate::timefmt::{check_rfc3339_utc, rfc3339_utc, rfc3339_utc_now};
