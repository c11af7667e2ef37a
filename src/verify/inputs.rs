//! What the auditor brings to a verification ([`Inputs`]) and what the
//! policy asks of it ([`Policy`]); what the checks are told of them is
//! [`crate::verify::checks::options::Options`].

use std::path::Path;

use crate::bundle::Limits;
use crate::digest::Sha256Digest;
use crate::keys::TrustStore;
use crate::publication::Publication;
use crate::report::Strictness;
use crate::run::deriver;
use crate::run::qualification::Pins;
use crate::verify::verification::VerifyError;

/// What the auditor brings to a verification.
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    /// The published pins.
    pub pins: Option<&'a Pins>,
    /// The auditor's trust roots (engine, host and release keys).
    pub trust: Option<&'a TrustStore>,
    /// The published write-up.
    pub publication: Option<&'a Publication>,
    /// Re-derives client records from the points' source files (the
    /// adoption layer's `adopt::peer_deriver::PeerDeriver`).
    pub deriver: Option<&'a dyn deriver::RecordDeriver>,
    /// The seal envelope; `None`: `BUNDLE.seal.dsse.json` beside the bundle.
    pub seal: Option<&'a Path>,
    /// Bundle reading limits.
    pub limits: &'a Limits,
    /// What the page says of the inputs (paths, digests, time).
    pub page: &'a PageContext,
    /// What the auditor requires.
    pub policy: Policy,
}

/// What the auditor requires of a verification: read from the command
/// line once, checked against the target and the trust roots once
/// ([`Policy::check`]), and applied in one place each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Policy {
    /// `--require-all`: a check that cannot show what it checks (no
    /// evidence, no grammar, only the publisher's word) fails; what hangs
    /// on it is not checkable. Applied by the report itself
    /// ([`Policy::strictness`]).
    pub require_all: bool,
    /// `--require-seal`: fail unless a release seal verifies under a key
    /// trusted for `release`.
    pub require_seal: bool,
    /// `--structure-only`: verify only a bundle's structure and seal.
    pub structure_only: bool,
    /// Refuse to run without trust roots (unless `structure_only`):
    /// `verify` does, since a signature nobody trusts proves nothing.
    /// `publish` does not: it reads the run to write it up and vouches for
    /// no signature (its readers verify with their own trust roots).
    pub trust_required: bool,
}

impl Policy {
    /// What `verify` asks: `--require-all` (`strict`), `--require-seal`,
    /// `--structure-only`, and trust roots (a signature nobody trusts
    /// proves nothing).
    pub fn of_verify(strict: bool, require_seal: bool, structure_only: bool) -> Policy {
        Policy {
            require_all: strict,
            require_seal,
            structure_only,
            trust_required: true,
        }
    }

    /// What the report requires of checks that cannot show what they
    /// check.
    pub fn strictness(&self) -> Strictness {
        if self.require_all {
            Strictness::RequireAll
        } else {
            Strictness::Lenient
        }
    }

    /// Whether the policy can be applied to a run directory (`is_dir`) or
    /// a bundle with these trust roots: the usage errors, before anything
    /// is read.
    pub fn check(&self, is_dir: bool, has_trust: bool) -> Result<(), VerifyError> {
        if !has_trust && !self.structure_only && self.trust_required {
            return Err(VerifyError::Usage(
                "verify needs --trust TRUST, the keys you trust for engine, release and host (a signature nobody trusts proves nothing); a trust file is made with `proofpack key trust --engine ENGINE.pub --release RELEASE.pub --host HOST.pub -o trust.json`. --structure-only checks a bundle's structure without it".into(),
            ));
        }
        if is_dir && self.structure_only {
            return Err(VerifyError::Usage(
                "--structure-only applies to a bundle (.tgz); a run directory has no bundle structure".into(),
            ));
        }
        if !is_dir && self.require_seal && !has_trust {
            return Err(VerifyError::Usage(
                "--require-seal needs --trust TRUST (the release keys to check the seal against)"
                    .into(),
            ));
        }
        Ok(())
    }
}

/// What the caller knows of the verification beyond the library's result.
#[derive(Debug, Clone, Default)]
pub struct PageContext {
    /// SHA-256 of the trust file, when one was given.
    pub trust_sha256: Option<Sha256Digest>,
    /// The trust file's path.
    pub trust: Option<String>,
    /// The write-up's path, when one was given.
    pub publication: Option<String>,
    /// The pins file's path, when one was given.
    pub pins: Option<String>,
    /// When the verification ran, RFC 3339 UTC.
    pub verified_at: String,
}
