//! The verification report (spec section 7) and exit codes.
//!
//! Every verifying operation in proofpack returns a [`Report`]: a list of
//! checks, each passed, failed or skipped, in the order they ran. A report is
//! the answer to "does the evidence hold?"; an `Err` from a library call means
//! the question could not be answered at all (bad argument file, I/O error).
//! Keeping the two apart is what lets an auditor trust exit status 0 and read
//! exit status 1 at once.

use serde::Serialize;
use serde_json::Value;

/// Schema tag of the JSON report.
pub const REPORT_SCHEMA: &str = "proofpack/report/v1";

/// How the detail of a check that could not run begins.
pub const NOT_CHECKABLE: &str = "not checkable: ";

/// Exit status: the evidence holds.
pub const EXIT_OK: i32 = 0;
/// Exit status: the evidence does not hold.
pub const EXIT_FAILED: i32 = 1;
/// Exit status: the tool could not do its job.
pub const EXIT_ERROR: i32 = 2;

/// One check of a report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    /// Stable, namespaced id (`bundle.sha256`, `pin:<name>`, ...).
    pub id: String,
    /// `Some(true)` passed, `Some(false)` failed, `None` skipped (not asked for).
    pub ok: Option<bool>,
    /// What was checked, or why it failed or was skipped.
    pub detail: String,
    /// The expected value, where one exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Value>,
    /// The actual value, where one exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual: Option<Value>,
    /// v1.1: set when the check compares a published value only with a
    /// file the publisher named for it (a fact), not with evidence the
    /// run's chain names; serialised as `"source": "publisher"` and
    /// `"stated_in"`.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub publisher: Option<Box<Publisher>>,
}

/// Where a publisher-backed check read its value (v1.1).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Publisher {
    /// Always `"publisher"`.
    pub source: &'static str,
    /// The fact it read: `{"fact", "file", "pointer"}`.
    pub stated_in: Value,
}

impl Check {
    /// A passed check.
    pub fn pass(id: impl Into<String>, detail: impl Into<String>) -> Self {
        Check {
            id: id.into(),
            ok: Some(true),
            detail: detail.into(),
            expected: None,
            actual: None,
            publisher: None,
        }
    }
    /// A failed check.
    pub fn fail(id: impl Into<String>, detail: impl Into<String>) -> Self {
        Check {
            id: id.into(),
            ok: Some(false),
            detail: detail.into(),
            expected: None,
            actual: None,
            publisher: None,
        }
    }
    /// A check that could not run because something it needs failed.
    pub fn not_checkable(id: impl Into<String>, why: impl AsRef<str>) -> Self {
        Check::fail(id, format!("{NOT_CHECKABLE}{}", why.as_ref()))
    }
    /// A check that was not asked for.
    pub fn skip(id: impl Into<String>, reason: impl Into<String>) -> Self {
        Check {
            id: id.into(),
            ok: None,
            detail: reason.into(),
            expected: None,
            actual: None,
            publisher: None,
        }
    }
    /// A passed or failed check depending on `ok`.
    pub fn outcome(id: impl Into<String>, ok: bool, detail: impl Into<String>) -> Self {
        if ok {
            Check::pass(id, detail)
        } else {
            Check::fail(id, detail)
        }
    }
    /// Attaches expected and actual values.
    pub fn with_values(mut self, expected: impl Into<Value>, actual: impl Into<Value>) -> Self {
        self.expected = Some(expected.into());
        self.actual = Some(actual.into());
        self
    }
    /// Marks the check as backed only by a file the publisher named for it
    /// (v1.1): `fact` of `qualification.json`, read from `file` at
    /// `pointer`.
    pub fn stated_by_publisher(mut self, fact: &str, file: &str, pointer: Option<&str>) -> Self {
        self.publisher = Some(Box::new(Publisher {
            source: "publisher",
            stated_in: serde_json::json!({"fact": fact, "file": file, "pointer": pointer}),
        }));
        self
    }
    /// `Some("publisher")` for a check backed only by the publisher's file.
    pub fn source(&self) -> Option<&'static str> {
        self.publisher.as_ref().map(|p| p.source)
    }
    /// True if the check failed.
    pub fn failed(&self) -> bool {
        self.ok == Some(false)
    }
}

/// Counts of checks by outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Checks that passed.
    pub passed: usize,
    /// Checks that failed.
    pub failed: usize,
    /// Checks that were not asked for.
    pub skipped: usize,
    /// v1.1: failed checks that could not run because another failed
    /// ("not checkable: ..."); counted in `failed` too. `failed -
    /// not_checkable` is the number of causes.
    pub not_checkable: usize,
}

impl Summary {
    /// Failed checks that are causes, not echoes of another failure.
    pub fn causes(&self) -> usize {
        self.failed - self.not_checkable
    }
}

/// A verification report.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    /// Always [`REPORT_SCHEMA`].
    pub schema: &'static str,
    /// True when no check failed.
    pub ok: bool,
    /// What was verified.
    pub target: String,
    /// Every check, in the order it ran.
    pub checks: Vec<Check>,
    /// Counts by outcome.
    pub summary: Summary,
    /// v1.1: the verdict line, where the verb states one (`verify`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<String>,
    /// v1.1: what was verified with what (tool, time, digests, seal, trust,
    /// publication), for the HTML page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<Value>,
    /// v1.1: the recomputed measured-points table (headers and cells).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<Value>,
    /// v1.1: the published inputs (the write-up's rows, or the pins), each
    /// with the ids and outcomes of its checks.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<Value>,
    /// v1.1: per point, the latency series for plots (downsampled).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plots: Option<Value>,
}

impl Report {
    /// An empty report about `target`.
    pub fn new(target: impl Into<String>) -> Self {
        Report {
            schema: REPORT_SCHEMA,
            ok: true,
            target: target.into(),
            checks: Vec::new(),
            summary: Summary::default(),
            verdict: None,
            context: None,
            table: None,
            published: None,
            plots: None,
        }
    }

    /// Appends a check and updates the verdict and the summary.
    pub fn push(&mut self, check: Check) {
        match check.ok {
            Some(true) => self.summary.passed += 1,
            Some(false) => {
                self.summary.failed += 1;
                if check.detail.starts_with(NOT_CHECKABLE) {
                    self.summary.not_checkable += 1;
                }
                self.ok = false;
            }
            None => self.summary.skipped += 1,
        }
        self.checks.push(check);
    }

    /// Appends every check of another report (its target is dropped).
    pub fn extend(&mut self, other: Report) {
        for c in other.checks {
            self.push(c);
        }
    }

    /// The failed checks.
    pub fn failures(&self) -> impl Iterator<Item = &Check> {
        self.checks.iter().filter(|c| c.failed())
    }

    /// Looks a check up by id.
    pub fn get(&self, id: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.id == id)
    }

    /// Exit status for this report: 0 when it holds, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        if self.ok {
            EXIT_OK
        } else {
            EXIT_FAILED
        }
    }

    /// The area a check belongs to, for grouping a checklist: `point NAME`
    /// for `point:NAME.*` (`points` are the declared point names, which may
    /// contain '.'), else a word for the id's head (`bundle`, `pins`,
    /// `engine attestations`, ...).
    pub fn area(id: &str, points: &[&str]) -> String {
        if let Some(rest) = id.strip_prefix("point:") {
            let name = points
                .iter()
                .filter(|n| rest.strip_prefix(**n).is_some_and(|r| r.starts_with('.')))
                .max_by_key(|n| n.len())
                .copied()
                .unwrap_or_else(|| rest.split('.').next().unwrap_or(rest));
            return format!("point {name}");
        }
        let head = id.split([':', '.']).next().unwrap_or(id);
        match head {
            "pin" => "pins".into(),
            "attestation" | "attestations" => "engine attestations".into(),
            "host" | "hosts" => "host launch checks".into(),
            other => other.into(),
        }
    }

    /// The report as one JSON object (spec section 7).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("report serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_and_summary() {
        let mut r = Report::new("x");
        r.push(Check::pass("a", "fine"));
        r.push(Check::skip("b", "no pins given"));
        assert!(r.ok);
        assert_eq!(r.exit_code(), 0);
        r.push(Check::fail("c", "bad").with_values(1, 2));
        assert!(!r.ok);
        assert_eq!(r.exit_code(), 1);
        assert_eq!(
            r.summary,
            Summary {
                passed: 1,
                failed: 1,
                skipped: 1,
                not_checkable: 0
            }
        );
        let v: Value = serde_json::from_str(&r.to_json()).unwrap();
        assert_eq!(v["schema"], "proofpack/report/v1");
        assert_eq!(v["checks"][1]["ok"], Value::Null);
        assert_eq!(v["checks"][2]["expected"], 1);
        assert!(v["checks"][0].get("expected").is_none());
    }
}
