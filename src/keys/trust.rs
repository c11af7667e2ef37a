//! The trust file (`proofpack/trust/v1`): roles, trusted keys with their
//! optional engine restriction, and [`TrustStore`], the verifier's trust
//! roots, read strictly and written back.

use std::collections::BTreeSet;
use std::fmt;
use std::path::Path;
use std::str::FromStr;

use ed25519_dalek::VerifyingKey;
use serde::{Deserialize, Serialize};

use crate::digest::Sha256Digest;
use crate::strictjson::reject_duplicate_json_keys;

use super::error::KeyError;
use super::files::read_key_file;
use super::keyid::key_id;
use super::pem::{parse_public_key_pem, public_key_pem};

/// Schema tag of the trust file.
pub const TRUST_SCHEMA: &str = "proofpack/trust/v1";

/// What a key is trusted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Signs engine attestations (`urn:proofpack:predicate:engine:v1`).
    Engine,
    /// Signs bundle seals (`urn:proofpack:predicate:seal:v1`).
    Release,
    /// Signs host launch-check reports
    /// (`urn:proofpack:predicate:host-check:v1`).
    Host,
    /// Signs verification summaries (`verify --vsa`, predicate
    /// `https://slsa.dev/verification_summary/v1`). Counts for no other
    /// check: an auditor's key vouches for verdicts, not for evidence.
    Auditor,
}

impl Role {
    /// The role's name in trust files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Engine => "engine",
            Role::Release => "release",
            Role::Host => "host",
            Role::Auditor => "auditor",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = KeyError;
    fn from_str(s: &str) -> Result<Self, KeyError> {
        match s {
            "engine" => Ok(Role::Engine),
            "release" => Ok(Role::Release),
            "host" => Ok(Role::Host),
            "auditor" => Ok(Role::Auditor),
            other => Err(KeyError::UnknownRole {
                found: other.to_string(),
            }),
        }
    }
}

/// A key of the trust file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedKey {
    /// The key id (recomputed from `key`, lowercase hex).
    pub keyid: String,
    /// What the key is trusted for.
    pub roles: Vec<Role>,
    /// The public key.
    pub key: VerifyingKey,
    /// A person's name for the key, shown in messages.
    pub label: Option<String>,
    /// The engine ids this key may attest for (`None`: any engine).
    pub engines: Option<Vec<String>>,
}

impl TrustedKey {
    /// A trusted key with its id computed from `key`, for any engine.
    pub fn new(key: VerifyingKey, roles: Vec<Role>, label: Option<String>) -> Self {
        TrustedKey {
            keyid: key_id(&key),
            roles,
            key,
            label,
            engines: None,
        }
    }
    /// True if trusted for `role`.
    pub fn has_role(&self, role: Role) -> bool {
        self.roles.contains(&role)
    }
    /// True if the key may attest for the engine `id` (it is not restricted
    /// to other engines).
    pub fn allows_engine(&self, id: &str) -> bool {
        self.engines
            .as_ref()
            .is_none_or(|list| list.iter().any(|e| e == id))
    }
    /// `keyid` or `keyid (label)` for messages.
    pub fn describe(&self) -> String {
        match &self.label {
            Some(l) => format!("{} ({l})", self.keyid),
            None => self.keyid.clone(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustFileIn {
    schema: String,
    keys: Vec<TrustKeyIn>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustKeyIn {
    keyid: String,
    roles: Vec<String>,
    public_key: String,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    engines: Option<Vec<String>>,
}

#[derive(Serialize)]
struct TrustFileOut<'a> {
    schema: &'static str,
    keys: Vec<TrustKeyOut<'a>>,
}

#[derive(Serialize)]
struct TrustKeyOut<'a> {
    keyid: &'a str,
    roles: &'a [Role],
    public_key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    engines: &'a Option<Vec<String>>,
}

/// The verifier's trust roots: keys and the roles each is trusted for.
/// Never taken from inside a bundle; always an argument of the auditor's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustStore {
    keys: Vec<TrustedKey>,
}

impl TrustStore {
    /// Reads and parses a trust file.
    pub fn load(path: &Path) -> Result<Self, KeyError> {
        let bytes = read_key_file(path)?;
        Self::parse(&bytes, &path.display().to_string())
    }

    /// Parses a trust file: strict JSON of the schema, every key an Ed25519
    /// SPKI PEM, every key id recomputed and compared (either hex case is
    /// accepted and normalised), each key once, each role known and listed
    /// once, at least one role per key.
    pub fn parse(bytes: &[u8], origin: &str) -> Result<Self, KeyError> {
        let bad = |reason: String| KeyError::BadTrustFile {
            origin: origin.to_string(),
            reason,
        };
        reject_duplicate_json_keys(bytes).map_err(|e| bad(e.to_string()))?;
        let file: TrustFileIn = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
        if file.schema != TRUST_SCHEMA {
            return Err(bad(format!(
                "schema is {:?}, expected {TRUST_SCHEMA:?}",
                file.schema
            )));
        }
        let mut keys = Vec::with_capacity(file.keys.len());
        let mut seen = BTreeSet::new();
        for (i, k) in file.keys.into_iter().enumerate() {
            let n = i + 1;
            let key_origin = format!("{origin}: key #{n}");
            let key = parse_public_key_pem(&k.public_key, &key_origin)?;
            let computed = key_id(&key);
            let stated = Sha256Digest::parse_hex(&k.keyid)
                .map_err(|e| bad(format!("key #{n}: keyid: {e}")))?
                .to_hex();
            if stated != computed {
                return Err(KeyError::KeyIdMismatch {
                    origin: origin.to_string(),
                    index: n,
                    stated: k.keyid,
                    computed,
                });
            }
            if !seen.insert(computed.clone()) {
                return Err(KeyError::DuplicateKey {
                    origin: origin.to_string(),
                    keyid: computed,
                });
            }
            if k.roles.is_empty() {
                return Err(bad(format!(
                    "key #{n} ({computed}) has no roles; give \"engine\", \"release\", \"host\" and/or \"auditor\""
                )));
            }
            let mut roles = Vec::new();
            for r in &k.roles {
                let role: Role = r
                    .parse()
                    .map_err(|e: KeyError| bad(format!("key #{n}: {e}")))?;
                if roles.contains(&role) {
                    return Err(bad(format!("key #{n}: role {r:?} is listed twice")));
                }
                roles.push(role);
            }
            if let Some(list) = &k.engines {
                if list.is_empty() {
                    return Err(bad(format!(
                        "key #{n} ({computed}): \"engines\" is empty; list the engine ids the key may attest for, or leave the field out for any engine"
                    )));
                }
                let mut ids = BTreeSet::new();
                for e in list {
                    if e.is_empty() || !ids.insert(e.as_str()) {
                        return Err(bad(format!(
                            "key #{n} ({computed}): engine id {e:?} in \"engines\" is empty or listed twice"
                        )));
                    }
                }
                if !roles.contains(&Role::Engine) {
                    return Err(bad(format!(
                        "key #{n} ({computed}): \"engines\" restricts engine attestations, but the key is not trusted for the engine role"
                    )));
                }
            }
            keys.push(TrustedKey {
                keyid: computed,
                roles,
                key,
                label: k.label,
                engines: k.engines,
            });
        }
        Ok(TrustStore { keys })
    }

    /// A trust store from keys. Key ids are recomputed from the keys; a key
    /// given twice is merged into one entry (union of roles, first label).
    pub fn from_keys(keys: Vec<TrustedKey>) -> Self {
        let mut out: Vec<TrustedKey> = Vec::new();
        for mut k in keys {
            k.keyid = key_id(&k.key);
            if let Some(existing) = out.iter_mut().find(|e| e.keyid == k.keyid) {
                for r in k.roles {
                    if !existing.roles.contains(&r) {
                        existing.roles.push(r);
                    }
                }
                if existing.label.is_none() {
                    existing.label = k.label;
                }
            } else {
                let mut roles = Vec::new();
                for r in k.roles {
                    if !roles.contains(&r) {
                        roles.push(r);
                    }
                }
                k.roles = roles;
                out.push(k);
            }
        }
        TrustStore { keys: out }
    }

    /// Every key, in file order.
    pub fn keys(&self) -> &[TrustedKey] {
        &self.keys
    }

    /// The keys trusted for `role`.
    pub fn keys_for(&self, role: Role) -> impl Iterator<Item = &TrustedKey> {
        self.keys.iter().filter(move |k| k.has_role(role))
    }

    /// The key with this id (any role).
    pub fn get(&self, keyid: &str) -> Option<&TrustedKey> {
        self.keys.iter().find(|k| k.keyid == keyid)
    }

    /// True when no key is trusted.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The trust file text (pretty JSON, ending with `\n`).
    pub fn to_json(&self) -> String {
        let out = TrustFileOut {
            schema: TRUST_SCHEMA,
            keys: self
                .keys
                .iter()
                .map(|k| TrustKeyOut {
                    keyid: &k.keyid,
                    roles: &k.roles,
                    public_key: public_key_pem(&k.key),
                    label: &k.label,
                    engines: &k.engines,
                })
                .collect(),
        };
        let mut s = serde_json::to_string_pretty(&out).expect("trust file serialises");
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn role_names_round_trip() {
        for r in [Role::Engine, Role::Release, Role::Host, Role::Auditor] {
            assert_eq!(r.to_string().parse::<Role>().unwrap(), r);
        }
        assert!("Engine".parse::<Role>().is_err());
    }
}
