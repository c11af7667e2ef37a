//! `report`: a saved JSON report becomes a page only if its parts agree.
//! A report edited to say green beside a failed check, to carry a count
//! that is not a count, or `"ok": "yes"`, is refused (exit 2, naming the
//! field), never drawn as a green page.

mod common;

use serde_json::{json, Value};

/// The sample's run directory verified with --require-seal (a directory
/// has no seal): a failing report.
fn failing_report() -> Value {
    let out = common::command()
        .args(["--no-catalog", "verify", "testdata/sample/run", "--json"])
        .args(["--trust", "testdata/sample/trust.json", "--require-seal"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    serde_json::from_slice(&out.stdout).unwrap()
}

fn render(report: &Value) -> (i32, String, bool) {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("r.json");
    let html = d.path().join("r.html");
    std::fs::write(&json, serde_json::to_vec(report).unwrap()).unwrap();
    let out = common::command()
        .args(["--no-catalog", "report"])
        .arg(&json)
        .arg("-o")
        .arg(&html)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        html.exists(),
    )
}

#[test]
fn a_report_as_verify_wrote_it_renders() {
    let (code, stderr, written) = render(&failing_report());
    assert_eq!(code, 0, "{stderr}");
    assert!(written);
}

#[test]
fn green_beside_a_failed_check_is_refused() {
    let mut r = failing_report();
    r["ok"] = json!(true);
    let (code, stderr, written) = render(&r);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("it says ok: true, but"), "{stderr}");
    assert!(!written);
    // Green everywhere a reader looks, the failed checks still there.
    let first_failed = r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .position(|c| c["ok"] == false)
        .unwrap();
    r["verdict"] = json!("VERIFIED: every check passed");
    let (code, stderr, _) = render(&r);
    assert_eq!(code, 2, "{stderr}");
    r["checks"][first_failed]["ok"] = json!(true);
    let (code, stderr, _) = render(&r);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("summary"), "{stderr}");
}

#[test]
fn a_count_that_is_not_a_count_is_refused() {
    let mut r = failing_report();
    r["summary"]["passed"] = json!(1e20);
    let (code, stderr, written) = render(&r);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("summary.passed is 1e+20, not a count"),
        "{stderr}"
    );
    assert!(!written);
}

#[test]
fn ok_of_the_wrong_type_is_refused() {
    let mut r = failing_report();
    r["ok"] = json!("yes");
    let (code, stderr, _) = render(&r);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("ok is \"yes\""), "{stderr}");
    let mut r = failing_report();
    r["checks"][0]["ok"] = json!("true");
    let (code, stderr, _) = render(&r);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("checks[0]"), "{stderr}");
}

/// The page's count of checks not checked says why, by each check's own
/// reason: a check that had no evidence is not "not asked for".
#[test]
fn the_page_says_why_checks_were_not_checked() {
    let r = failing_report();
    let checks = r["checks"].as_array().unwrap();
    let unchecked: Vec<&Value> = checks.iter().filter(|c| c["ok"].is_null()).collect();
    assert!(!unchecked.is_empty());
    let reasons: std::collections::BTreeSet<String> = unchecked
        .iter()
        .map(|c| c["reason"].as_str().unwrap().replace('_', " "))
        .collect();
    let d = tempfile::tempdir().unwrap();
    let (json, html) = (d.path().join("r.json"), d.path().join("r.html"));
    std::fs::write(&json, serde_json::to_vec(&r).unwrap()).unwrap();
    let out = common::command()
        .args(["--no-catalog", "report"])
        .arg(&json)
        .arg("-o")
        .arg(&html)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let page = std::fs::read_to_string(&html).unwrap();
    let head = page.split("not checked").nth(1).unwrap_or_default();
    for reason in &reasons {
        assert!(
            head.starts_with(" (") && head.split(')').next().unwrap().contains(reason.as_str()),
            "{reason}: {head:.200}"
        );
    }
}
