//! What a verification summary (`verify --vsa`) may claim: the
//! levels that held, one per track, from the verification's own report.

use crate::attest::{
    LEVEL_BUNDLE, LEVEL_BUNDLE_QUALIFIED, LEVEL_BUNDLE_STRUCTURE, LEVEL_PINS, LEVEL_PUBLICATION,
    LEVEL_PUBLICATION_ALL, LEVEL_SEAL,
};
use crate::bundle::SEAL_CHECK_ID;
use crate::verify::inputs::Inputs;
use crate::verify::outcome::verdict::{no_second_witness, unbound};
use crate::verify::verification::SealState;
use crate::verify::verification::Verification;

impl Verification {
    /// The levels that held, one per track (bundle, seal, publication),
    /// each the highest of its track; none when the verification failed.
    ///
    /// - bundle: [`LEVEL_BUNDLE`] when the qualification was verified,
    ///   [`LEVEL_BUNDLE_QUALIFIED`] when its verdict is qualified by what the
    ///   evidence could not show (the qualifiers of
    ///   [`no_second_witness`] and [`unbound`]),
    ///   [`LEVEL_BUNDLE_STRUCTURE`] under `--structure-only`;
    /// - seal: [`LEVEL_SEAL`] when a seal's signature was checked against
    ///   the trust roots and the `seal` check passed;
    /// - publication: [`LEVEL_PUBLICATION_ALL`] with a publication and
    ///   `--require-all`, [`LEVEL_PUBLICATION`] with a publication,
    ///   [`LEVEL_PINS`] with pins only (never under `--structure-only`).
    pub fn summary_levels(&self, inputs: &Inputs<'_>) -> Vec<&'static str> {
        if !self.report.ok() {
            return Vec::new();
        }
        let qualified = no_second_witness(self).is_some() || !unbound(self).is_empty();
        let mut levels = vec![if self.structure_only {
            LEVEL_BUNDLE_STRUCTURE
        } else if qualified {
            LEVEL_BUNDLE_QUALIFIED
        } else {
            LEVEL_BUNDLE
        }];
        let seal_passed = self
            .report
            .checks()
            .iter()
            .any(|c| c.id == SEAL_CHECK_ID && c.passed());
        if self.seal == SealState::Checked && seal_passed {
            levels.push(LEVEL_SEAL);
        }
        if !self.structure_only {
            match (
                inputs.publication.is_some(),
                self.report.strictness() == crate::report::Strictness::RequireAll,
            ) {
                (true, true) => levels.push(LEVEL_PUBLICATION_ALL),
                (true, false) => levels.push(LEVEL_PUBLICATION),
                (false, _) if inputs.pins.is_some() => levels.push(LEVEL_PINS),
                (false, _) => {}
            }
        }
        levels
    }
}
