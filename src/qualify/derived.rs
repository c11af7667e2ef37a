//! Client records derived from the benchmark client's own result file
//! (v1.1, issue 24): `point:<name>.source` and `point:<name>.derived`.
//!
//! A point imported with `run import` names its source (a vLLM result file
//! kept in the run) and the parameters of the derivation. `verify` derives
//! the records again from the raw file and requires the run's client
//! records file to equal them byte for byte, so that the bundle's records
//! say exactly what the client wrote. The raw file is the primary
//! evidence: the point's counts and metrics are recomputed from the
//! records the raw file derives to (a changed TTFT in the raw file fails
//! the claims it changes), and a records file that differs from them fails
//! `.derived`, naming the first differing line.
//!
//! This layer states what must hold; how a result file becomes records is
//! the adoption layer's (`adopt::derive`), reached through
//! [`RecordDeriver`] as engine attestations are reached through
//! [`super::EngineAttestationVerifier`].

use std::io::{self, Read};

use super::context::Run;
use super::schema::{Point, PointSource};
use crate::digest::Sha256Digest;
use crate::report::{Check, Report};

/// What a deriver makes of a point's result file.
#[derive(Debug, Clone)]
pub struct Derived {
    /// The client records, exactly as `run import` writes them.
    pub records: Vec<u8>,
    /// How many records.
    pub count: u64,
    /// How the send times were anchored to wall-clock time, one clause.
    pub anchor: String,
    /// The file's own consistency (its summary fields recomputed from its
    /// per-request arrays): `Ok` with what was compared, or `Err` naming
    /// the fields that disagree.
    pub consistency: Result<String, String>,
}

/// Derives a point's client records from its source file.
pub trait RecordDeriver: Sync {
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

/// `point:<name>.source` and `point:<name>.derived` for point `i`, when it
/// names a source.
pub fn derived_checks(report: &mut Report, run: &Run<'_>, i: usize) {
    let q = run.q();
    let p = &q.points[i];
    let Some(src) = &p.source else {
        return;
    };
    let base = format!("point:{}", p.name);
    let source_id = format!("{base}.source");
    let derived_id = format!("{base}.derived");
    let d = match (run.problem(&src.file), run.collected.derived.get(&i)) {
        (Some(why), _) => {
            report.push(Check::fail(&source_id, why));
            report.push(Check::not_checkable_by(
                &derived_id,
                &source_id,
                format!("the result file {} cannot be read", src.file),
            ));
            return;
        }
        (None, None) => {
            report.push(Check::fail(
                &source_id,
                format!("{}: not in the run", src.file),
            ));
            report.push(Check::not_checkable_by(
                &derived_id,
                &source_id,
                format!("the result file {} is not in the run", src.file),
            ));
            return;
        }
        (None, Some(Err(why))) => {
            report.push(Check::fail(&source_id, why.clone()));
            report.push(Check::not_checkable_by(
                &derived_id,
                &source_id,
                format!("no client records can be derived from {}", src.file),
            ));
            return;
        }
        (None, Some(Ok(d))) => d,
    };
    report.push(match &d.consistency {
        Ok(what) => Check::pass(&source_id, format!("{}: {what}", src.file)),
        Err(what) => Check::fail(&source_id, format!("{}: {what}", src.file)),
    });
    let mut problems = Vec::new();
    let records_digest = match run.problem(&p.client_records) {
        Some(why) => {
            problems.push(why);
            None
        }
        None => run.collected.hashes.get(&p.client_records).copied(),
    };
    match records_digest {
        Some(h) if h == d.digest => {}
        Some(h) => problems.push(match &d.difference {
            Some(diff) => format!(
                "{} differs from the records derived from {} at line {}{}",
                p.client_records,
                src.file,
                diff.line,
                diff.request_id
                    .as_ref()
                    .map_or_else(String::new, |r| format!(" (request {r:?})"))
            ),
            None => format!(
                "{} (SHA-256 {}) is not the records derived from {} (SHA-256 {})",
                p.client_records,
                h.to_hex(),
                src.file,
                d.digest.to_hex()
            ),
        }),
        None if problems.is_empty() => {
            problems.push(format!("{}: not in the run", p.client_records))
        }
        None => {}
    }
    match q.plan.as_ref().map(|f| (f, run.collected.hashes.get(f))) {
        Some((_, Some(h))) if *h == src.plan_sha256 => {}
        Some((f, Some(h))) => problems.push(format!(
            "the point was imported under another benchmark plan (SHA-256 {}); {f} is now {}: the plan changed after the import",
            src.plan_sha256.to_hex(),
            h.to_hex()
        )),
        Some((f, None)) => problems.push(format!(
            "the benchmark plan {f} the import was checked against is not in the run"
        )),
        None => problems.push(
            "qualification.json names no benchmark plan, but the import was checked against one"
                .into(),
        ),
    }
    report.push(if problems.is_empty() {
        Check::pass(
            &derived_id,
            format!(
                "{} equals the {} records derived from {} by {} ({}); imported under the sealed benchmark plan",
                p.client_records, d.count, src.file, src.rules, d.anchor
            ),
        )
    } else {
        Check::fail(&derived_id, problems.join("; "))
    });
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
