//! Output of the verbs that stream (`check`, `diff`): their checks
//! arrive one by one and are written as they come, but to a [`Spill`] (memory,
//! then an anonymous temporary file), not to stdout: nothing is printed
//! until the whole input was read and found readable (a manifest may turn
//! out malformed, or unsorted and to be read whole, at its last line).
//!
//! With `--json` the result is the report of contract section 7, byte for
//! byte what [`Report::to_json`] prints for the same checks (a test says
//! so), written without holding the checks: the head (schema, verdict,
//! target) and the summary are written around the spilled checks once the
//! counts are known.

use std::io::{self, Read, Seek, Write};

use proofpack::report::{Check, Summary, REPORT_SCHEMA};
use serde::Serialize;

/// Bytes kept in memory before a spill moves to a temporary file.
const SPILL_MEMORY: usize = 4 << 20;

/// Bytes written, in memory up to [`SPILL_MEMORY`], then in an anonymous
/// temporary file (unlinked from the start: nothing is left behind, even
/// on SIGKILL).
#[derive(Default)]
pub struct Spill {
    mem: Vec<u8>,
    file: Option<io::BufWriter<std::fs::File>>,
}

impl Write for Spill {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.file.is_none() && self.mem.len() + buf.len() > SPILL_MEMORY {
            let mut f = io::BufWriter::with_capacity(1 << 16, tempfile::tempfile()?);
            f.write_all(&self.mem)?;
            self.mem = Vec::new();
            self.file = Some(f);
        }
        match &mut self.file {
            Some(f) => f.write(buf),
            None => {
                self.mem.extend_from_slice(buf);
                Ok(buf.len())
            }
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl Spill {
    /// Copies everything written to `out`.
    pub fn copy_to(self, out: &mut dyn Write) -> io::Result<()> {
        match self.file {
            None => out.write_all(&self.mem),
            Some(f) => {
                let mut f = f.into_inner().map_err(|e| e.into_error())?;
                f.rewind()?;
                io::copy(&mut (&mut f).take(u64::MAX), out).map(|_| ())
            }
        }
    }
}

/// The summary of a report, counted as [`Summary::of`] counts it.
fn count(s: &mut Summary, c: &Check) {
    let one = Summary::of([c]);
    s.passed += one.passed;
    s.failed += one.failed;
    s.skipped += one.skipped;
    s.not_checkable += one.not_checkable;
}

/// A check as it stands in the report's `checks` array: pretty JSON
/// indented by two levels.
fn indented(c: &Check) -> String {
    let pretty = serde_json::to_string_pretty(c).expect("a check serialises");
    let mut s = String::with_capacity(pretty.len() + 64);
    for (i, line) in pretty.lines().enumerate() {
        if i > 0 {
            s.push('\n');
        }
        s.push_str("    ");
        s.push_str(line);
    }
    s
}

/// The fields of a report the streaming verbs write, in the order of
/// contract section 7 (the report's other fields are absent for them).
#[derive(Serialize)]
struct Shape<'a> {
    schema: &'static str,
    ok: bool,
    target: &'a str,
    checks: [(); 0],
    summary: Summary,
}

/// A report whose checks are written as they arrive (see the module doc),
/// either as the JSON report or as the lines a verb prints for them.
pub struct StreamedReport {
    json: bool,
    spill: Spill,
    summary: Summary,
    checks: u64,
}

impl StreamedReport {
    /// A report written as JSON (`json`) or as lines.
    pub fn new(json: bool) -> Self {
        StreamedReport {
            json,
            spill: Spill::default(),
            summary: Summary::default(),
            checks: 0,
        }
    }

    /// Adds a check; `line` is what the human output prints for it, if
    /// anything.
    pub fn push(&mut self, c: &Check, line: Option<&str>) -> io::Result<()> {
        count(&mut self.summary, c);
        if self.json {
            if self.checks > 0 {
                self.spill.write_all(b",\n")?;
            }
            self.spill.write_all(indented(c).as_bytes())?;
        } else if let Some(l) = line {
            self.spill.write_all(l.as_bytes())?;
            self.spill.write_all(b"\n")?;
        }
        self.checks += 1;
        Ok(())
    }

    /// True when no check failed.
    pub fn ok(&self) -> bool {
        self.summary.failed == 0
    }

    /// Writes the output to `out`: the JSON report about `target` with
    /// `first` before the streamed checks, or the lines (`first` counts,
    /// its line is `first_line`).
    pub fn finish(
        mut self,
        target: &str,
        first: Option<(Check, Option<String>)>,
        out: &mut dyn Write,
    ) -> io::Result<()> {
        if let Some((c, _)) = &first {
            count(&mut self.summary, c);
        }
        if !self.json {
            if let Some((_, Some(line))) = &first {
                writeln!(out, "{line}")?;
            }
            self.spill.copy_to(out)?;
            return out.flush();
        }
        let shape = serde_json::to_string_pretty(&Shape {
            schema: REPORT_SCHEMA,
            ok: self.summary.failed == 0,
            target,
            checks: [],
            summary: self.summary,
        })
        .expect("a report serialises");
        let (head, tail) = shape
            .split_once("\"checks\": []")
            .expect("the shape has a checks array");
        out.write_all(head.as_bytes())?;
        out.write_all(b"\"checks\": [")?;
        let streamed = self.checks > 0;
        if first.is_some() || streamed {
            out.write_all(b"\n")?;
            if let Some((c, _)) = &first {
                out.write_all(indented(c).as_bytes())?;
                if streamed {
                    out.write_all(b",\n")?;
                }
            }
            self.spill.copy_to(out)?;
            out.write_all(b"\n  ]")?;
        } else {
            out.write_all(b"]")?;
        }
        out.write_all(tail.as_bytes())?;
        out.write_all(b"\n")?;
        out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proofpack::report::Report;

    fn streamed(target: &str, first: Option<Check>, rest: &[Check]) -> String {
        let mut s = StreamedReport::new(true);
        for c in rest {
            s.push(c, None).unwrap();
        }
        let mut out = Vec::new();
        s.finish(target, first.map(|c| (c, None)), &mut out)
            .unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn json_is_the_reports_json() {
        let checks = [
            Check::pass("file:a", "OK"),
            Check::fail("file:b \"quoted\"\n", "changed: content differs").with_values("ab", "cd"),
            Check::not_checkable("file:ü", "why"),
            Check::skip("s", "not asked for"),
            Check::fail("diff:x", "added").with_values(serde_json::Value::Null, "ef"),
        ];
        for n in 0..=checks.len() {
            for with_first in [false, true] {
                let mut r = Report::new("t \"x\"");
                let first = with_first.then(|| Check::pass("manifest.digest", "1 unchanged"));
                if let Some(f) = &first {
                    r.push(f.clone());
                }
                for c in &checks[..n] {
                    r.push(c.clone());
                }
                let want = format!("{}\n", r.to_json());
                assert_eq!(
                    streamed("t \"x\"", first, &checks[..n]),
                    want,
                    "{n} {with_first}"
                );
            }
        }
    }

    #[test]
    fn a_spill_moves_to_a_file_and_reads_back() {
        let mut s = Spill::default();
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..6 {
            s.write_all(&chunk).unwrap();
        }
        assert!(s.file.is_some());
        let mut out = Vec::new();
        s.copy_to(&mut out).unwrap();
        assert_eq!(out.len(), 6 << 20);
    }
}
