//! The evidence of one run as every check family reads it.
//!
//! A [`Run`] is what the pass over the evidence found (a run directory or a
//! bundle's verified stream, see [`crate::verify::evidence::collector`]): the qualification,
//! the files read whole or summarised, the files that cannot be used and
//! why, and the digest of the bundle's bytes when a bundle was verified.
//! The areas the families' checks are shown under are named here too.

use std::collections::BTreeMap;

use crate::digest::Sha256Digest;
use crate::run::qualification::Qualification;
use crate::verify::evidence::collector::{Collected, Plan};

/// The area of the pin checks.
pub const PINS_AREA: &str = "pins";
/// The area of the engine attestation checks.
pub const ATTESTATIONS_AREA: &str = "engine attestations";
/// The area of the host launch checks.
pub const HOSTS_AREA: &str = "host launch checks";

/// The area of the checks of the point named `name`.
pub fn point_area(name: &str) -> String {
    format!("point {name}")
}

/// The evidence of one run.
pub struct Run<'a> {
    /// Which files were read, and in what role (holds the qualification).
    pub plan: &'a Plan,
    /// What the pass over the evidence found.
    pub collected: &'a Collected,
    /// Files the qualification names that cannot be used, and why.
    pub unusable: &'a BTreeMap<String, String>,
    /// SHA-256 of the bundle's bytes, when a bundle was verified.
    pub bundle_digest: Option<Sha256Digest>,
    /// The verified bundle's file name, as given.
    pub bundle_name: Option<&'a str>,
}

impl<'a> Run<'a> {
    /// The qualification.
    pub fn q(&self) -> &'a Qualification {
        &self.plan.q
    }

    /// Why the file `rel` of the run cannot be used, if it cannot.
    pub fn problem(&self, rel: &str) -> Option<String> {
        file_problem(rel, self.collected, self.unusable)
    }

    /// The whole contents of the small file `rel` (an attestation, the
    /// plan, a fact file), or why it cannot be used.
    pub fn small_file(&self, rel: &str) -> Result<&'a [u8], String> {
        if let Some(p) = self.problem(rel) {
            return Err(p);
        }
        self.collected
            .small
            .get(rel)
            .map(Vec::as_slice)
            .ok_or_else(|| format!("{rel}: not in the run"))
    }
}

/// Why a file of the run cannot be used, if it cannot.
pub(crate) fn file_problem(
    rel: &str,
    collected: &Collected,
    unusable: &BTreeMap<String, String>,
) -> Option<String> {
    if let Some(why) = unusable.get(rel) {
        return Some(format!("{rel}: {why}"));
    }
    if let Some(why) = collected.too_large.get(rel) {
        return Some(format!("{rel}: {why}"));
    }
    None
}
