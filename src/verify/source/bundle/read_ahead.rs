//! `qualification.json` before the evidence is collected: read ahead from
//! the bundle's first blocks when it comes right after MANIFEST (with the
//! plan made from it), or grabbed by the first pass of a bundle in the v1
//! order.

use std::io::{self, Read};
use std::path::Path;

use crate::bundle::EntryVisitor;
use crate::run::qualification::{Qualification, MAX_SMALL_FILE, QUALIFICATION_FILE};
use crate::verify::checks::options::Options;
use crate::verify::evidence::collector::{declared_requests_fit, Plan};
use crate::verify::verification::VerifyError;

/// The qualification read ahead (untrusted until the verifying pass has
/// read the same entry) and the plan made from it.
pub(super) struct Ahead {
    /// The bytes of `qualification.json` as read ahead.
    pub(super) bytes: Vec<u8>,
    /// The plan made from them.
    pub(super) plan: Plan,
}

impl Ahead {
    /// The qualification read ahead from the bundle at `path` and its plan;
    /// `None` when it does not come right after MANIFEST or does not parse
    /// (the bundle is then read in two passes). A qualification whose
    /// declared requests exceed the limits, or that binds a statement the
    /// write-up does not hold exactly once, cannot be verified.
    pub(super) fn read(path: &Path, opts: &Options<'_>) -> Result<Option<Ahead>, VerifyError> {
        let Some(bytes) = crate::bundle::read_ahead(path, MAX_SMALL_FILE) else {
            return Ok(None);
        };
        let Ok(q) = Qualification::parse(&bytes) else {
            return Ok(None);
        };
        declared_requests_fit(&q).map_err(VerifyError::Usage)?;
        if let Some(p) = opts.publication {
            crate::verify::checks::published::locate_bindings(&q, p).map_err(VerifyError::Usage)?;
        }
        let plan = Plan::new(q, opts.pins, &opts.counted_digests());
        Ok(Some(Ahead { bytes, plan }))
    }
}

/// The bytes of `qualification.json` the verification is to check, or why
/// they cannot be used; `None` when the first pass did not reach it.
pub(super) type Grabbed = Option<Result<Vec<u8>, String>>;

/// The visitor of the first of two passes: keeps only `qualification.json`.
#[derive(Default)]
pub(super) struct QualificationGrab {
    /// Its bytes (or why they cannot be used), once the pass reached it.
    pub(super) bytes: Grabbed,
}

impl EntryVisitor for QualificationGrab {
    fn wants(&mut self, rel: &str) -> bool {
        rel == QUALIFICATION_FILE
    }
    fn visit(&mut self, _rel: &str, content: &mut dyn Read) -> io::Result<()> {
        self.bytes = Some(
            crate::capped::read_to_cap(&mut *content, MAX_SMALL_FILE)?
                .ok_or_else(|| format!("{QUALIFICATION_FILE}: larger than {MAX_SMALL_FILE} bytes")),
        );
        io::copy(content, &mut io::sink())?;
        Ok(())
    }
}
