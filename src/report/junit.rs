//! A report as a JUnit XML file, for CI systems that show test
//! results (contract section 7, "JUnit XML").
//!
//! One `<testsuite>` per area of the report ([`Check::area`]), in the order
//! the areas first appear; one `<testcase>` per check (`name` the check id,
//! `classname` the area with `.` as `_`), in the order the checks ran. A failed or not
//! checkable check holds a `<failure>`, a check that was not checked a
//! `<skipped>`; `errors` is always 0 (a verb that cannot do its job writes
//! no report at all). The counts of the file are the report's
//! [`Summary`]: `tests` all checks, `failures` = `failed`, `skipped` =
//! `skipped`.
//!
//! The shape follows the Jenkins xunit-plugin's `junit-10.xsd`, which
//! allows `tests`, `failures`, `errors`, `time` and `name` on the
//! `<testsuites>` root but not `skipped`: the skipped total is the sum of
//! the suites' `skipped`.
//!
//! Every string is escaped; characters XML 1.0 cannot carry at all (the C0
//! controls but tab, LF and CR; U+FFFE, U+FFFF) are replaced by U+FFFD, so
//! a hostile detail is shown as text and never ends the file early.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::types::{Check, Outcome, Report, Summary, REASON_NOT_CHECKABLE};

/// What the file says of the run itself, besides its checks: given by the
/// caller (the library reads no clock).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunInfo {
    /// The name of the root (`<testsuites name>`), e.g. the verb and its
    /// target.
    pub name: String,
    /// When the verification started (RFC 3339, UTC): each suite's
    /// `timestamp`.
    pub timestamp: Option<String>,
    /// How long the whole verb took, in seconds: the root's `time` (the
    /// checks are not timed one by one, so no testcase has a time).
    pub seconds: Option<f64>,
}

/// One area's testcases, already written.
#[derive(Debug, Default)]
struct Suite {
    name: String,
    cases: String,
    summary: Summary,
}

/// A JUnit file built one check at a time (a streaming verb pushes each
/// check as it comes; the file holds only its written testcases).
#[derive(Debug, Default)]
pub struct Junit {
    suites: Vec<Suite>,
    by_area: HashMap<String, usize>,
}

impl Junit {
    /// An empty file.
    pub fn new() -> Self {
        Junit::default()
    }

    /// Adds the testcase of `c`, under its area's suite.
    pub fn push(&mut self, c: &Check) {
        let area = c.area();
        let i = match self.by_area.get(area) {
            Some(&i) => i,
            None => {
                self.suites.push(Suite {
                    name: area.to_string(),
                    ..Suite::default()
                });
                self.by_area.insert(area.to_string(), self.suites.len() - 1);
                self.suites.len() - 1
            }
        };
        let suite = &mut self.suites[i];
        let one = Summary::of([c]);
        suite.summary.passed += one.passed;
        suite.summary.failed += one.failed;
        suite.summary.skipped += one.skipped;
        suite.summary.not_checkable += one.not_checkable;
        write_case(&mut suite.cases, c);
    }

    /// The counts of every check pushed so far.
    pub fn summary(&self) -> Summary {
        let mut s = Summary::default();
        for suite in &self.suites {
            s.passed += suite.summary.passed;
            s.failed += suite.summary.failed;
            s.skipped += suite.summary.skipped;
            s.not_checkable += suite.summary.not_checkable;
        }
        s
    }

    /// The whole file.
    pub fn finish(self, run: &RunInfo) -> String {
        let total = self.summary();
        let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        let _ = write!(
            out,
            "<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\"",
            attr(&run.name),
            tests(&total),
            total.failed
        );
        if let Some(s) = run.seconds {
            let _ = write!(out, " time=\"{}\"", seconds(s));
        }
        out.push_str(">\n");
        for suite in &self.suites {
            let s = &suite.summary;
            let _ = write!(
                out,
                "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\"",
                attr(&suite.name),
                tests(s),
                s.failed,
                s.skipped
            );
            if let Some(t) = &run.timestamp {
                let _ = write!(out, " timestamp=\"{}\"", attr(t));
            }
            out.push_str(">\n");
            out.push_str(&suite.cases);
            out.push_str("  </testsuite>\n");
        }
        out.push_str("</testsuites>\n");
        out
    }
}

/// The JUnit file of `report` (see the module doc).
pub fn render(report: &Report, run: &RunInfo) -> String {
    let mut j = Junit::new();
    for c in report.checks() {
        j.push(c);
    }
    j.finish(run)
}

fn tests(s: &Summary) -> usize {
    s.passed + s.failed + s.skipped
}

/// Seconds as the schema's time type takes them: digits, a dot, three
/// decimals (a negative or non-finite duration is shown as 0).
fn seconds(s: f64) -> String {
    if s.is_finite() && s > 0.0 {
        format!("{s:.3}")
    } else {
        "0.000".to_string()
    }
}

/// A case's `classname`: its area with each `.` as `_`. Jenkins reads a
/// classname as `package.Class`, so the area `point rate-0.5` showed as
/// the class `5` of a package `point rate-0`.
fn classname(area: &str) -> String {
    area.replace('.', "_")
}

fn write_case(out: &mut String, c: &Check) {
    let _ = write!(
        out,
        "    <testcase name=\"{}\" classname=\"{}\"",
        attr(&c.id),
        attr(&classname(c.area()))
    );
    let (tag, kind) = match &c.outcome {
        Outcome::Pass => {
            out.push_str("/>\n");
            return;
        }
        Outcome::Fail => ("failure", "failed"),
        Outcome::NotCheckable { .. } => ("failure", REASON_NOT_CHECKABLE),
        Outcome::NotChecked(r) => ("skipped", r.as_str()),
    };
    let _ = write!(
        out,
        ">\n      <{tag} type=\"{kind}\" message=\"{}\">",
        attr(&c.detail)
    );
    let mut body = c.detail.clone();
    if let Outcome::NotCheckable { cause: Some(cause) } = &c.outcome {
        let _ = write!(body, "\ncause: {cause}");
    }
    if let Some(e) = &c.expected {
        let _ = write!(body, "\nexpected: {e}");
    }
    if let Some(a) = &c.actual {
        let _ = write!(body, "\nfound: {a}");
    }
    out.push_str(&text(&body));
    let _ = writeln!(out, "</{tag}>\n    </testcase>");
}

/// True for a character XML 1.0 allows in a document.
fn allowed(ch: char) -> bool {
    matches!(ch, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        || ch >= '\u{10000}'
}

/// `s` escaped as character data.
fn text(s: &str) -> String {
    escape(s, false)
}

/// `s` escaped as a double-quoted attribute value (tab, LF and CR as
/// character references, so that a reader's attribute normalisation keeps
/// them).
fn attr(s: &str) -> String {
    escape(s, true)
}

fn escape(s: &str, attribute: bool) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for ch in s.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' if attribute => out.push_str("&quot;"),
            '\'' if attribute => out.push_str("&apos;"),
            '\t' if attribute => out.push_str("&#9;"),
            '\n' if attribute => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c if !allowed(c) => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Reason;

    #[test]
    fn suites_follow_areas_and_counts_follow_the_summary() {
        let mut r = Report::new("t");
        r.push(Check::pass("bundle.sha256", "ok"));
        r.push(Check::fail("pin:w", "differs").with_values("a", "b"));
        r.push(Check::not_checked(
            "bundle.seal",
            Reason::NoEvidence,
            "none",
        ));
        r.push(Check::not_checkable_by("run.x", "pin:w", "pin failed"));
        let x = render(&r, &RunInfo::default());
        assert!(
            x.contains("tests=\"4\" failures=\"2\" errors=\"0\">"),
            "{x}"
        );
        assert_eq!(x.matches("<testsuite ").count(), 3, "{x}");
        let bundle = x.find("name=\"bundle\"").unwrap();
        let pin = x.find("name=\"pin\"").unwrap();
        assert!(bundle < pin);
        assert!(x.contains("skipped=\"1\""));
        assert!(x.contains("expected: \"a\"\nfound: \"b\""), "{x}");
        assert!(x.contains("type=\"not_checkable\""));
        assert!(x.contains("cause: pin:w"));
        assert!(x.contains("<skipped type=\"no_evidence\" message=\"none\">"));
    }

    #[test]
    fn hostile_text_is_escaped_and_forbidden_characters_replaced() {
        let detail = "]]> <script>\"x\" & 'y'\u{0}\u{1}\u{FFFF}\t\r\n";
        let mut r = Report::new("t");
        r.push(Check::fail("a<b", detail));
        let x = render(&r, &RunInfo::default());
        assert!(!x.contains('\u{0}') && !x.contains('\u{1}') && !x.contains('\u{FFFF}'));
        assert!(!x.contains("<script>") && !x.contains("]]>"));
        assert!(x.contains("message=\"]]&gt; &lt;script&gt;&quot;x&quot; &amp; &apos;y&apos;\u{FFFD}\u{FFFD}\u{FFFD}&#9;&#13;&#10;\""), "{x}");
        assert!(x.contains("name=\"a&lt;b\""));
    }

    #[test]
    fn times_are_what_the_schema_takes() {
        assert_eq!(seconds(1.23456), "1.235");
        assert_eq!(seconds(f64::NAN), "0.000");
        assert_eq!(seconds(-1.0), "0.000");
    }
}
