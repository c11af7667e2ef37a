//! The visitor of the pass that collects the evidence (the one pass, or
//! the second of two): every entry is offered to the collector, and the
//! digest of `qualification.json` kept.

use std::collections::BTreeSet;
use std::io::{self, Read};

use crate::bundle::EntryVisitor;
use crate::digest::Sha256Digest;
use crate::run::qualification::QUALIFICATION_FILE;
use crate::verify::checks::options::Options;
use crate::verify::evidence::collector::{Collector, Plan};

/// The collector of a pass, and what the pass saw.
pub(super) struct Collecting<'p> {
    pub(super) collector: Collector<'p>,
    /// Every entry the pass visited.
    pub(super) seen: BTreeSet<String>,
    /// The SHA-256 of the qualification.json entry this pass read.
    pub(super) qualification: Option<Sha256Digest>,
}

impl<'p> Collecting<'p> {
    /// A collector for `plan`, its digests taken from the verifying reader,
    /// its journals read again when a pass asks for it.
    pub(super) fn new(plan: &'p Plan, opts: &Options<'p>) -> Self {
        Collecting {
            collector: Collector::new(plan)
                .with_deriver(opts.deriver)
                .hashed_by_reader()
                .deferring_journals(),
            seen: BTreeSet::new(),
            qualification: None,
        }
    }
}

impl EntryVisitor for Collecting<'_> {
    fn wants(&mut self, _rel: &str) -> bool {
        // Every file: the evidence is read, every other file is sniffed for
        // records of undeclared points.
        true
    }
    fn visit(&mut self, rel: &str, content: &mut dyn Read) -> io::Result<()> {
        self.seen.insert(rel.to_string());
        if rel == QUALIFICATION_FILE {
            // Its digest comes from the reader (`digested`).
            io::copy(content, &mut io::sink())?;
            return Ok(());
        }
        self.collector.offer(rel, content)
    }
    fn digested(&mut self, rel: &str, sha256: &Sha256Digest) {
        if rel == QUALIFICATION_FILE {
            self.qualification = Some(*sha256);
        } else {
            self.collector.digested(rel, *sha256);
        }
    }
}
