//! The journals a pass asked to read again, read in more passes through
//! the verifying reader.

use std::io::{self, Read};
use std::path::Path;

use crate::bundle::{verify_bundle, BundleError, BundleVerification, EntryVisitor, Limits};
use crate::progress::NoProgress;
use crate::verify::evidence::collector::{Collector, Reread};

/// Another reading of the journals a pass asked to read again (see
/// [`Reread`]).
struct Deferred<'a, 'p> {
    collector: &'a mut Collector<'p>,
    now: Vec<(String, Reread)>,
}

impl EntryVisitor for Deferred<'_, '_> {
    fn wants(&mut self, rel: &str) -> bool {
        self.now.iter().any(|(d, _)| d == rel)
    }
    fn visit(&mut self, rel: &str, content: &mut dyn Read) -> io::Result<()> {
        let why = self
            .now
            .iter()
            .find(|(d, _)| d == rel)
            .map_or(Reread::Details, |(_, w)| *w);
        self.collector.reread(rel, why, content)
    }
}

/// Reads the journals `collector` asks to read again, one more pass through
/// the verifying reader at a time, until it asks for none (at most two: a
/// journal read after its records may then ask for its details). The
/// passes' outcomes are for [`SecondReading::same_as`].
pub(super) fn read_deferred(
    path: &Path,
    limits: &Limits,
    collector: &mut Collector<'_>,
) -> Result<SecondReading, BundleError> {
    let mut passes = Vec::new();
    for _ in 0..2 {
        let now = collector.take_deferred();
        if now.is_empty() {
            break;
        }
        let said: Vec<String> = now
            .iter()
            .map(|(rel, why)| format!("{rel} ({})", why.why()))
            .collect();
        let mut v = Deferred { collector, now };
        let pass = verify_bundle(path, limits, Some(&mut v), &NoProgress)?;
        passes.push((said.join("; "), pass));
    }
    // None is left: a reading after the records asks at most for details.
    for (rel, _) in collector.take_deferred() {
        collector.not_read_again(&rel, "a third reading was asked for");
    }
    Ok(SecondReading(passes))
}

/// The passes that read journals again, each with what it read and why.
pub(super) struct SecondReading(Vec<(String, BundleVerification)>);

impl SecondReading {
    /// Whether every pass read the bytes `first` verified.
    pub(super) fn same_as(&self, first: &BundleVerification) -> bool {
        self.0.iter().all(|(_, p)| {
            p.bundle_sha256.is_some()
                && p.bundle_sha256 == first.bundle_sha256
                && p.report == first.report
        })
    }

    /// What each pass read again and why, one pass after another.
    pub(super) fn journals(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(journals, _)| journals.as_str())
    }
}
