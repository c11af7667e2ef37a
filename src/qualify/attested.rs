//! Engine attestations verified with the trust roots (the `attest` layer).
//!
//! The qualification checks state what an attestation must say; this
//! adapter asks the attest layer whether a signature by a key trusted for
//! `engine` holds, and hands the verified Statement's facts back. A
//! signature by a key trusted only for `release`, by no trusted key, or
//! (v1.1) by an engine key restricted to other engine ids, is an error
//! here, never a pass.

use super::{AttestedEngine, EngineAttestationVerifier, EngineFacts};
use crate::attest::{verify_envelope, EnginePredicate};
use crate::keys::{Role, TrustStore};

/// Verifies engine attestations under a trust store's `engine` keys.
pub struct TrustVerifier<'a> {
    /// The auditor's trust roots.
    pub trust: &'a TrustStore,
}

impl EngineAttestationVerifier for TrustVerifier<'_> {
    fn trusts_hosts(&self) -> bool {
        self.trust.keys_for(Role::Host).next().is_some()
    }

    fn verify_host_report(
        &self,
        envelope: &[u8],
    ) -> Result<crate::attest::Verified<crate::attest::Statement>, String> {
        verify_envelope(envelope, self.trust, Role::Host, 1).map_err(|e| {
            e.to_string()
                .replace("\n  - ", "; ")
                .replace("\n  ", " ")
                .replace('\n', " ")
        })
    }

    fn verify_engine(
        &self,
        envelope: &[u8],
        _origin: &str,
        engine_id: &str,
    ) -> Result<AttestedEngine, String> {
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
        // A key restricted to other engines does not count for this one.
        let (allowed, refused): (Vec<&String>, Vec<&String>) = v.signers().iter().partition(|id| {
            self.trust
                .get(id)
                .is_some_and(|k| k.allows_engine(engine_id))
        });
        if allowed.is_empty() {
            let which: Vec<String> = refused
                .iter()
                .filter_map(|id| self.trust.get(id))
                .map(|k| {
                    format!(
                        "{} may attest only for {}",
                        k.describe(),
                        k.engines.as_deref().unwrap_or_default().join(", ")
                    )
                })
                .collect();
            return Err(format!(
                "signed only by engine keys restricted to other engines than {engine_id}: {}",
                which.join("; ")
            ));
        }
        let st = v.get();
        let predicate = EnginePredicate::from_statement(st)
            .map(|p| EngineFacts::from_predicate(&p))
            .map_err(|e| e.to_string());
        Ok(AttestedEngine {
            predicate_type: st.predicate_type.clone(),
            subjects: st
                .subjects
                .iter()
                .map(|s| (s.name.clone(), s.digest))
                .collect(),
            predicate,
            signers: allowed.into_iter().cloned().collect(),
        })
    }
}
