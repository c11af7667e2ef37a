//! What the auditor brings to a verification ([`Inputs`]) and what the
//! checks are told of it ([`Options`]).

use std::path::Path;

use crate::bundle::Limits;
use crate::digest::Sha256Digest;
use crate::keys::TrustStore;
use crate::publication::Publication;
use crate::run::deriver;
use crate::run::qualification::Pins;
use crate::verify::checks::attested::EngineAttestationVerifier;
use crate::verify::checks::published;
use crate::verify::outcome::page::PageContext;

/// What the checks are told of the auditor's inputs.
#[derive(Default, Clone, Copy)]
pub struct Options<'a> {
    /// The published pins; `None` (and no publication) makes the verdict
    /// "unpinned".
    pub pins: Option<&'a Pins>,
    /// Trust roots for engine attestations; `None` fails the attestations.
    pub attestations: Option<&'a dyn EngineAttestationVerifier>,
    /// The published write-up, checked row by row and cell by cell.
    pub publication: Option<&'a Publication>,
    /// Rows of the publication that no evidence supports fail instead of
    /// being reported as not checked; so do the journal checks of a
    /// point without a journal.
    pub require_all_rows: bool,
    /// Re-derives client records from the points' source files;
    /// `None` fails `point:<name>.source` of every point that names one.
    pub deriver: Option<&'a dyn deriver::RecordDeriver>,
}

impl Options<'_> {
    /// True when published pins are compared: a pins file, or a
    /// publication that states at least one digest or commit (a
    /// write-up from which no pin could be taken leaves the verdict
    /// unpinned).
    pub fn pinned(&self) -> bool {
        self.pins.is_some()
            || self
                .publication
                .is_some_and(published::publication_has_pins)
    }

    /// Digests whose manifests under `manifests/` must be counted (the
    /// publication's manifest rows with a file count).
    pub fn counted_digests(&self) -> Vec<Sha256Digest> {
        self.publication
            .map(published::counted_digests)
            .unwrap_or_default()
    }
}

/// What the auditor brings to a verification.
#[derive(Clone, Copy)]
pub struct Inputs<'a> {
    /// The published pins.
    pub pins: Option<&'a Pins>,
    /// The auditor's trust roots (engine, host and release keys).
    pub trust: Option<&'a TrustStore>,
    /// The published write-up.
    pub publication: Option<&'a Publication>,
    /// Rows of the write-up that no evidence supports fail; so do the
    /// journal checks of a point without a journal.
    pub require_all: bool,
    /// Re-derives client records from the points' source files (the
    /// adoption layer's `adopt::derive::PeerDeriver`).
    pub deriver: Option<&'a dyn deriver::RecordDeriver>,
    /// Fail unless a release seal verifies under a key trusted for
    /// `release`.
    pub require_seal: bool,
    /// The seal envelope; `None`: `BUNDLE.seal.dsse.json` beside the bundle.
    pub seal: Option<&'a Path>,
    /// Verify only a bundle's structure and seal.
    pub structure_only: bool,
    /// Bundle reading limits.
    pub limits: &'a Limits,
    /// What the page says of the inputs (paths, digests, time).
    pub page: &'a PageContext,
    /// Refuse to run without `trust` (unless `structure_only`): `verify`
    /// does, since a signature nobody trusts proves nothing. `publish`
    /// does not: it reads the run to write it up and vouches for no
    /// signature (its readers verify with their own trust roots).
    pub trust_required: bool,
}
