//! A saved JSON report read back (the `report` verb, and the page drawn
//! from `verify --json`): its types checked and its verdict and counts
//! recomputed from its checks, so that a report whose parts disagree (an
//! `"ok": true` beside a failed check, a count of `1e20`, `"ok": "yes"`)
//! is refused instead of drawn as green.

use serde_json::Value;

use super::types::{Reason, Summary, NOT_CHECKABLE, REASON_NOT_CHECKABLE, REPORT_SCHEMA};

/// Why a saved report is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a proofpack report: {0}")]
pub struct SavedReportError(pub String);

fn bad(s: impl Into<String>) -> SavedReportError {
    SavedReportError(s.into())
}

fn count(summary: &Value, key: &str) -> Result<usize, SavedReportError> {
    match &summary[key] {
        Value::Number(n) if n.as_u64().is_some() => Ok(n.as_u64().unwrap_or(0) as usize),
        Value::Null if key == "not_checkable" => Ok(0),
        other => Err(bad(format!(
            "summary.{key} is {other}, not a count of checks"
        ))),
    }
}

/// Checks the types of a saved report and that its `ok`, `summary` and
/// verdict line are those its checks give. A report written by an older
/// proofpack names no `reason`; its not-checkable checks are then told by
/// the detail's "not checkable: " head, as such reports wrote them.
pub fn check_saved(report: &Value) -> Result<(), SavedReportError> {
    if report["schema"] != REPORT_SCHEMA {
        return Err(bad(format!("schema is {}", report["schema"])));
    }
    let Some(ok) = report["ok"].as_bool() else {
        return Err(bad(format!("ok is {}, not true or false", report["ok"])));
    };
    if !report["target"].is_string() {
        return Err(bad("target is not a string"));
    }
    let checks = report["checks"]
        .as_array()
        .ok_or_else(|| bad("no checks array"))?;
    let legacy = !checks.iter().any(|c| c.get("area").is_some());
    let mut s = Summary::default();
    for (i, c) in checks.iter().enumerate() {
        let at = |what: &str| bad(format!("checks[{i}]: {what}"));
        if !c.is_object() {
            return Err(at("not an object"));
        }
        let id = c["id"].as_str().ok_or_else(|| at("id is not a string"))?;
        let detail = c["detail"]
            .as_str()
            .ok_or_else(|| at(&format!("{id}: detail is not a string")))?;
        for key in ["area", "reason", "cause"] {
            if c.get(key).is_some_and(|v| !v.is_string()) {
                return Err(at(&format!("{id}: {key} is not a string")));
            }
        }
        let reason = c["reason"].as_str();
        match (&c["ok"], reason) {
            (Value::Bool(true), None) => s.passed += 1,
            (Value::Bool(false), None) if legacy && detail.starts_with(NOT_CHECKABLE) => {
                s.failed += 1;
                s.not_checkable += 1;
            }
            (Value::Bool(false), None) => s.failed += 1,
            (Value::Bool(false), Some(REASON_NOT_CHECKABLE)) => {
                s.failed += 1;
                s.not_checkable += 1;
            }
            (Value::Null, Some(r)) if Reason::parse(r).is_some() => s.skipped += 1,
            (Value::Null, None) if legacy => s.skipped += 1,
            (okv, r) => {
                return Err(at(&format!(
                    "{id}: ok {okv} with reason {}",
                    r.map_or("none".to_string(), |r| format!("{r:?}"))
                )))
            }
        }
    }
    let summary = &report["summary"];
    if !summary.is_object() {
        return Err(bad("no summary object"));
    }
    let stated = Summary {
        passed: count(summary, "passed")?,
        failed: count(summary, "failed")?,
        skipped: count(summary, "skipped")?,
        not_checkable: count(summary, "not_checkable")?,
    };
    if stated != s {
        return Err(bad(format!(
            "its summary ({} passed, {} failed, {} skipped, {} not checkable) is not what its checks give ({} passed, {} failed, {} skipped, {} not checkable)",
            stated.passed, stated.failed, stated.skipped, stated.not_checkable,
            s.passed, s.failed, s.skipped, s.not_checkable
        )));
    }
    if ok != (s.failed == 0) {
        return Err(bad(format!(
            "it says ok: {ok}, but {} of its checks failed",
            s.failed
        )));
    }
    match &report["verdict"] {
        Value::Null => {}
        Value::String(v) => {
            if v.starts_with("VERIFIED") != ok || (!ok && !v.starts_with("FAILED")) {
                return Err(bad(format!("its verdict line {v:?} contradicts ok: {ok}")));
            }
        }
        other => return Err(bad(format!("verdict is {other}, not a string"))),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Check, Report};
    use serde_json::json;

    fn good() -> Value {
        let mut r = Report::new("t");
        r.push(Check::pass("a", "fine"));
        r.push(Check::fail("b", "bad"));
        r.push(Check::not_checkable_by("c", "b", "b failed"));
        r.push(Check::skip("d", "not asked"));
        r.set_verdict("FAILED: 2 of 4 checks failed");
        serde_json::from_str(&r.to_json()).unwrap()
    }

    #[test]
    fn a_report_as_written_is_accepted() {
        check_saved(&good()).unwrap();
    }

    #[test]
    fn parts_that_disagree_are_refused() {
        type Edit = Box<dyn Fn(&mut Value)>;
        let cases: Vec<(&str, Edit)> = vec![
            ("ok: true", Box::new(|v| v["ok"] = json!(true))),
            ("ok is \"yes\"", Box::new(|v| v["ok"] = json!("yes"))),
            (
                "summary.passed",
                Box::new(|v| v["summary"]["passed"] = json!(1e20)),
            ),
            ("summary", Box::new(|v| v["summary"]["failed"] = json!(1))),
            (
                "checks[1]",
                Box::new(|v| v["checks"][1]["ok"] = json!("false")),
            ),
            (
                "checks[3]",
                Box::new(|v| v["checks"][3]["reason"] = json!("because")),
            ),
            (
                "verdict",
                Box::new(|v| v["verdict"] = json!("VERIFIED: all good")),
            ),
            ("schema", Box::new(|v| v["schema"] = json!("x"))),
        ];
        for (needle, edit) in cases {
            let mut v = good();
            edit(&mut v);
            let e = check_saved(&v).unwrap_err().to_string();
            assert!(
                e.contains(needle) || e.contains(&needle.replace('"', "")),
                "{needle}: {e}"
            );
        }
    }

    #[test]
    fn green_over_a_failed_check_is_refused() {
        let mut v = good();
        v["ok"] = json!(true);
        v["verdict"] = json!("VERIFIED");
        assert!(check_saved(&v).is_err());
    }
}
