//! Engine attestations verified with the trust roots (the `attest` layer).
//!
//! The qualification checks state what an attestation must say; this
//! adapter asks the attest layer whether a signature by a key trusted for
//! `engine` holds, and hands the verified Statement's facts back. A
//! signature by a key trusted only for `release`, or by no trusted key, is
//! an error here, never a pass.

use super::{AttestedEngine, EngineAttestationVerifier, EngineFacts};
use crate::attest::{verify_envelope, EnginePredicate};
use crate::keys::{Role, TrustStore};

/// Verifies engine attestations under a trust store's `engine` keys.
pub struct TrustVerifier<'a> {
    /// The auditor's trust roots.
    pub trust: &'a TrustStore,
}

impl EngineAttestationVerifier for TrustVerifier<'_> {
    fn verify_engine(&self, envelope: &[u8], _origin: &str) -> Result<AttestedEngine, String> {
        let trusted = self.trust.keys_for(Role::Engine).count();
        if trusted == 0 {
            return Err("the trust file has no key trusted for the engine role".into());
        }
        // The error lists why each signature did not count (untrusted key,
        // a key trusted only for another role, a signature that does not
        // verify because the payload was edited); keep it on one line.
        let v = verify_envelope(envelope, self.trust, Role::Engine, 1).map_err(|e| {
            e.to_string()
                .replace("\n  - ", "; ")
                .replace("\n  ", " ")
                .replace('\n', " ")
        })?;
        let st = v.get();
        let predicate = EnginePredicate::from_statement(st)
            .map(|p| EngineFacts {
                id: p.engine.id.clone(),
                model: p.model.clone(),
                image: Some(p.engine.image.clone()),
            })
            .map_err(|e| e.to_string());
        Ok(AttestedEngine {
            predicate_type: st.predicate_type.clone(),
            subjects: st
                .subjects
                .iter()
                .map(|s| (s.name.clone(), s.digest))
                .collect(),
            predicate,
            signers: v.signers().to_vec(),
        })
    }
}
