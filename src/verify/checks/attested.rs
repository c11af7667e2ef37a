//! Engine attestations verified with the trust roots (the `attest` layer):
//! what a verified attestation says, the verifier interface the checks use,
//! and its implementation over a trust store.
//!
//! The qualification checks state what an attestation must say; this
//! adapter asks the attest layer whether a signature by a key trusted for
//! `engine` holds, and hands the verified Statement's facts back. A
//! signature by a key trusted only for `release`, by no trusted key, or
//! by an engine key restricted to other engine ids, is an error
//! here, never a pass.

use std::collections::BTreeMap;

use crate::attest::{verify_envelope, EnginePredicate};
use crate::digest::Sha256Digest;
use crate::keys::{Role, TrustStore};

/// What a verified engine attestation says, as far as a qualification cares.
#[derive(Debug, Clone)]
pub struct AttestedEngine {
    /// The Statement's `predicateType`.
    pub predicate_type: String,
    /// Subjects (name, sha256) in statement order.
    pub subjects: Vec<(String, Sha256Digest)>,
    /// The engine predicate's facts, or why it could not be read.
    pub predicate: Result<EngineFacts, String>,
    /// Key ids of the trusted signers whose signatures verified.
    pub signers: Vec<String>,
}

/// The engine predicate's facts a qualification checks.
#[derive(Debug, Clone)]
pub struct EngineFacts {
    /// `predicate.engine.id`.
    pub id: String,
    /// `predicate.engine.name`.
    pub name: String,
    /// `predicate.engine.version`.
    pub version: String,
    /// `predicate.model`.
    pub model: String,
    /// `predicate.engine.image` (`sha256:<hex>`).
    pub image: Option<String>,
    /// `predicate.host`.
    pub host: String,
    /// `predicate.accelerator.name`.
    pub accelerator: String,
    /// `predicate.accelerator.count`.
    pub accelerator_count: u64,
    /// `predicate.parallelism`.
    pub parallelism: BTreeMap<String, u64>,
    /// `predicate.launched_at` as written.
    pub launched_at: String,
    /// `predicate.launched_at` in unix seconds.
    pub launched_unix: f64,
}

impl EngineFacts {
    /// The facts of a checked engine predicate.
    pub fn from_predicate(p: &crate::attest::EnginePredicate) -> EngineFacts {
        EngineFacts {
            id: p.engine.id.clone(),
            name: p.engine.name.clone(),
            version: p.engine.version.clone(),
            model: p.model.clone(),
            image: Some(p.engine.image.clone()),
            host: p.host.clone(),
            accelerator: p.accelerator.name.clone(),
            accelerator_count: p.accelerator.count,
            parallelism: p.parallelism.clone(),
            launched_at: p.launched_at.clone(),
            // The predicate was validated, so the time parses.
            launched_unix: crate::timefmt::parse_rfc3339_utc(&p.launched_at).unwrap_or(f64::MAX),
        }
    }
}

/// Verifies a DSSE envelope under keys trusted for the `engine` role.
pub trait EngineAttestationVerifier {
    /// `Err` is an evidence failure (bad signature, untrusted key, a key
    /// restricted to other engines than `engine_id`, malformed envelope),
    /// explained for the report.
    fn verify_engine(
        &self,
        envelope: &[u8],
        origin: &str,
        engine_id: &str,
    ) -> Result<AttestedEngine, String>;

    /// Verifies a host launch-check report under keys trusted for
    /// the `host` role; `Err` explains why it does not count.
    fn verify_host_report(
        &self,
        envelope: &[u8],
    ) -> Result<crate::attest::Verified<crate::attest::Statement>, String>;

    /// False when no key is trusted for the `host` role, so that no host
    /// report can count (the failure then names the missing role once).
    fn trusts_hosts(&self) -> bool {
        true
    }
}

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
