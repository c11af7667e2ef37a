//! What the checks are told of the auditor's inputs ([`Options`]).

use crate::digest::Sha256Digest;
use crate::publication::Publication;
use crate::report::Strictness;
use crate::run::deriver;
use crate::run::qualification::Pins;
use crate::verify::checks::attested::EngineAttestationVerifier;
use crate::verify::checks::published;

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
    /// What the report requires of checks that cannot show what they
    /// check (the policy's `--require-all`).
    pub strictness: Strictness,
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
