//! The interface through which `verify` re-derives a point's client
//! records from its source file, and the readers the evidence pass
//! uses while it does: [`RecordDeriver`] (implemented by the adoption
//! layer, `adopt::peer_deriver::PeerDeriver`), what the pass keeps of a
//! derivation ([`DerivedPoint`]), a reader that keeps the first I/O error
//! ([`IoGuard`]) and one that finds where the run's records first differ
//! from the derivation ([`Comparing`]). The checks are the verifier's
//! (`verify::checks::derived`).

use std::io::{self, Read};

use crate::digest::Sha256Digest;
use crate::run::qualification::{Point, PointSource};

/// What a deriver makes of a point's result file.
#[derive(Debug, Clone)]
pub struct Derived {
    /// The client records, exactly as `run import` writes them.
    pub records: Vec<u8>,
    /// How many records.
    pub count: u64,
    /// How the send times were anchored to wall-clock time, one clause.
    pub anchor: String,
    /// Where the file's failed requests have no end of their own, the
    /// client's end of the benchmark on the records' clock: the point's
    /// window ends no earlier.
    pub window_end: Option<f64>,
    /// The file's own consistency (its summary fields recomputed from its
    /// per-request arrays): `Ok` with what was compared, or `Err` naming
    /// the fields that disagree.
    pub consistency: Result<String, String>,
}

/// A point's journal derived from its router log.
#[derive(Debug, Clone, Default)]
pub struct DerivedJournal {
    /// The journal file's bytes, exactly as `run import --journal` writes
    /// them.
    pub events: Vec<u8>,
    /// What the log states of each successful request's answer: (request
    /// id, `completion_tokens` where the line states it, log line).
    pub completion_tokens: Vec<(String, Option<u64>, u64)>,
}

/// The requests whose records the router log does not witness: each
/// successful log line of an ok record must state the record's output
/// tokens as its `completion_tokens`. A line that states none is a
/// disagreement where any other line states one (a log states the count of
/// every answer or of none: a publisher who removes it from the answers
/// they inflated leaves the others as witnesses). Each as "request <id>:
/// ..."; and how many records the log states a count for.
pub fn token_disagreements(
    witnessed: &[(String, Option<u64>, u64)],
    records: impl Fn(&str) -> Option<u64>,
    log: &str,
) -> (Vec<String>, usize) {
    let mut off = Vec::new();
    let mut unstated = Vec::new();
    let mut compared = 0;
    for (id, tokens, line) in witnessed {
        let Some(recorded) = records(id) else {
            continue;
        };
        match tokens {
            None => unstated.push(format!(
                "request {id:?}: {recorded} output tokens in the records, no completion_tokens in {log}:{line} (the log states them for other answers)"
            )),
            Some(t) => {
                compared += 1;
                if recorded != *t {
                    off.push(format!(
                        "request {id:?}: {recorded} output tokens in the records, {t} in {log}:{line}"
                    ));
                }
            }
        }
    }
    if compared > 0 {
        off.extend(unstated);
    }
    (off, compared)
}

/// Derives a point's client records from its source file.
pub trait RecordDeriver: Sync {
    /// Derives the journal of `point` from `content`, the bytes of the
    /// router log `file` its `journal_source` names: the journal file's
    /// bytes, exactly as `run import --journal` writes them, and the
    /// answers' token counts the log states.
    fn derive_journal(
        &self,
        point: &Point,
        file: &str,
        content: &mut dyn Read,
    ) -> Result<DerivedJournal, String> {
        let _ = (point, content);
        Err(format!(
            "{file}: this verifier cannot derive a journal from a router log"
        ))
    }

    /// Derives the records of `point` from `content`, the bytes of its
    /// source file `file`. `Err` says why the file cannot be derived from
    /// (not a result file of the format, no start times, ...).
    fn derive(
        &self,
        point: &Point,
        source: &PointSource,
        file: &str,
        content: &mut dyn Read,
    ) -> Result<Derived, String>;
}

/// Where the run's client records first differ from the derivation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// Line of the client-records file (1-based).
    pub line: u64,
    /// The request the derivation has on that line, if any.
    pub request_id: Option<String>,
}

/// What the evidence pass kept of one point's derivation.
#[derive(Debug, Clone)]
pub struct DerivedPoint {
    /// SHA-256 of the derived records.
    pub digest: Sha256Digest,
    /// How many records.
    pub count: u64,
    /// How the send times were anchored.
    pub anchor: String,
    /// The source file's own consistency.
    pub consistency: Result<String, String>,
    /// The derived bytes, kept until the client-records file is compared.
    pub bytes: Option<Vec<u8>>,
    /// Where the client-records file first differs, when it was compared
    /// byte by byte (its bytes were read after the source's).
    pub difference: Option<Difference>,
}

impl DerivedPoint {
    /// What the pass keeps of `d`.
    pub fn of(d: Derived) -> DerivedPoint {
        DerivedPoint {
            digest: Sha256Digest::of_bytes(&d.records),
            count: d.count,
            anchor: d.anchor,
            consistency: d.consistency,
            bytes: Some(d.records),
            difference: None,
        }
    }
}

/// A reader that remembers the first I/O error of the reader it wraps, so
/// that an I/O error reading the evidence stops verification (exit 2)
/// instead of passing for a result file that cannot be derived from.
pub struct IoGuard<'r> {
    inner: &'r mut dyn Read,
    /// The first error met.
    pub error: Option<io::Error>,
}

impl<'r> IoGuard<'r> {
    /// Wraps `inner`.
    pub fn new(inner: &'r mut dyn Read) -> Self {
        IoGuard { inner, error: None }
    }
}

impl Read for IoGuard<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.inner.read(buf) {
            Ok(n) => Ok(n),
            Err(e) => {
                let copy = io::Error::new(e.kind(), e.to_string());
                self.error.get_or_insert(e);
                Err(copy)
            }
        }
    }
}

/// A reader that compares what it reads with the expected bytes and
/// remembers the first offset where they differ.
pub struct Comparing<'r> {
    inner: &'r mut dyn Read,
    expected: &'r [u8],
    pos: usize,
    /// The first differing offset.
    pub first_diff: Option<usize>,
}

impl<'r> Comparing<'r> {
    /// Compares `inner` with `expected`.
    pub fn new(inner: &'r mut dyn Read, expected: &'r [u8]) -> Self {
        Comparing {
            inner,
            expected,
            pos: 0,
            first_diff: None,
        }
    }

    /// Where the whole stream differs (a shorter or longer stream differs
    /// where the shorter one ends), once it has been read to the end.
    pub fn difference(&self) -> Option<Difference> {
        let at = self
            .first_diff
            .or((self.pos != self.expected.len()).then_some(self.pos.min(self.expected.len())))?;
        let before = &self.expected[..at.min(self.expected.len())];
        let line = before.iter().filter(|b| **b == b'\n').count() as u64 + 1;
        let start = before
            .iter()
            .rposition(|b| *b == b'\n')
            .map_or(0, |p| p + 1);
        let rest = &self.expected[start..];
        let text = &rest[..rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len())];
        let request_id = serde_json::from_slice::<serde_json::Value>(text)
            .ok()
            .and_then(|v| {
                v.get("request_id")
                    .and_then(|r| r.as_str())
                    .map(String::from)
            });
        Some(Difference { line, request_id })
    }
}

impl Read for Comparing<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if self.first_diff.is_none() {
            for (k, b) in buf[..n].iter().enumerate() {
                if self.expected.get(self.pos + k) != Some(b) {
                    self.first_diff = Some(self.pos + k);
                    break;
                }
            }
        }
        self.pos += n;
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_difference_names_the_line_and_request() {
        let expected = b"{\"request_id\":\"a\"}\n{\"request_id\":\"b\"}\n";
        for (got, line, id) in [
            (
                &b"{\"request_id\":\"a\"}\n{\"request_id\":\"c\"}\n"[..],
                2,
                Some("b"),
            ),
            (b"{\"request_id\":\"a\"}\n", 2, Some("b")),
            (
                b"{\"request_id\":\"x\"}\n{\"request_id\":\"b\"}\n",
                1,
                Some("a"),
            ),
        ] {
            let mut r = got;
            let mut c = Comparing::new(&mut r, expected);
            io::copy(&mut c, &mut io::sink()).unwrap();
            let d = c.difference().unwrap();
            assert_eq!(d.line, line);
            assert_eq!(d.request_id.as_deref(), id);
        }
        let mut r = &expected[..];
        let mut c = Comparing::new(&mut r, expected);
        io::copy(&mut c, &mut io::sink()).unwrap();
        assert_eq!(c.difference(), None);
    }
}
