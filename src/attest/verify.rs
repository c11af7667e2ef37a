//! Verification: every signature judged against the trusted keys of a
//! role, the threshold of distinct keys, and only then the payload; the
//! per-signature findings and their report checks; [`Verified`], which only
//! this module can construct, and [`Unverified`] for structure-only reads.

use std::collections::BTreeSet;
use std::ops::Deref;

use crate::keys::{
    reject_duplicate_json_keys, verify_ed25519_strict, Role, TrustStore, TrustedKey,
};
use crate::report::{Check, Report};

use super::dsse::{decode_base64, pae};
use super::dsse::{EnvelopeIn, SignatureIn};
use super::predicate::known_predicate_problem;
use super::statement::Statement;
use super::types::{
    AttestError, ENGINE_PREDICATE_TYPE, ENVELOPE_MAX_BYTES, IN_TOTO_PAYLOAD_TYPE, MAX_SIGNATURES,
    SEAL_PREDICATE_TYPE,
};
use super::vsa::VSA_PREDICATE_TYPE;

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
                let subjects: serde_json::Map<String, serde_json::Value> = st
                    .subjects
                    .iter()
                    .map(|s| (s.name.clone(), format!("sha256:{}", s.digest).into()))
                    .collect();
                let mut statement = Check::pass(
                    "statement",
                    format!(
                        "in-toto Statement v1, predicateType {}, {} subject(s)",
                        st.predicate_type,
                        st.subjects.len()
                    ),
                );
                statement.actual = Some(serde_json::json!({
                    "predicateType": st.predicate_type,
                    "subjects": subjects,
                    "signers": st.signers(),
                }));
                checks.push(statement);
                // A predicate of a type proofpack defines is checked as
                // `verify` checks it, so that both verbs give one answer.
                if let Some(p) = known_predicate_problem(st.get()) {
                    checks.push(Check::fail("predicate", p));
                } else if matches!(
                    st.predicate_type.as_str(),
                    ENGINE_PREDICATE_TYPE | SEAL_PREDICATE_TYPE | VSA_PREDICATE_TYPE
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
