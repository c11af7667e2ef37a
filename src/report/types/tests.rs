//! The report's own rules: outcomes, reasons, strictness and the JSON.

use super::*;

#[test]
fn verdict_and_summary() {
    let mut r = Report::new("x");
    r.push(Check::pass("a", "fine"));
    r.push(Check::skip("b", "no pins given"));
    assert!(r.ok());
    assert_eq!(r.exit_code(), 0);
    r.push(Check::fail("c", "bad").with_values(1, 2));
    assert!(!r.ok());
    assert_eq!(r.exit_code(), 1);
    assert_eq!(
        r.summary(),
        Summary {
            passed: 1,
            failed: 1,
            skipped: 1,
            not_checkable: 0
        }
    );
    let v: Value = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(v["schema"], "proofpack/report/v1");
    assert_eq!(v["ok"], false);
    assert_eq!(v["checks"][1]["ok"], Value::Null);
    assert_eq!(v["checks"][1]["reason"], "not_asked_for");
    assert_eq!(v["checks"][2]["expected"], 1);
    assert!(v["checks"][0].get("expected").is_none());
    assert!(v["checks"][0].get("reason").is_none());
    assert_eq!(v["summary"]["failed"], 1);
}

#[test]
fn a_failure_whose_detail_reads_not_checkable_is_a_cause() {
    let mut r = Report::new("x");
    r.push(Check::fail(
        "a",
        format!("{NOT_CHECKABLE}but it failed on its own"),
    ));
    r.push(Check::not_checkable_by("b", "a", "a failed"));
    let s = r.summary();
    assert_eq!(s.failed, 2);
    assert_eq!(s.not_checkable, 1);
    assert_eq!(s.causes(), 1);
    let v: Value = serde_json::from_str(&r.to_json()).unwrap();
    assert!(v["checks"][0].get("reason").is_none());
    assert_eq!(v["checks"][1]["reason"], "not_checkable");
    assert_eq!(v["checks"][1]["cause"], "a");
}

#[test]
fn ok_and_summary_follow_the_checks() {
    // There is no way to set `ok` or `summary`: they are derived.
    let mut r = Report::new("x");
    assert!(r.ok());
    r.push(Check::not_checkable("a", "b failed"));
    assert!(!r.ok());
    let v: Value = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(v["ok"], false);
    assert_eq!(v["summary"]["not_checkable"], 1);
}

#[test]
fn areas_come_from_the_code_that_pushes() {
    let mut r = Report::new("x");
    r.push(Check::pass("bundle.sha256", ""));
    r.enter(Some("pins"));
    r.push(Check::pass("pin:weights", ""));
    r.push(Check::pass("x.y", "").in_area("other"));
    r.enter(None);
    r.push(Check::pass("run.tree", ""));
    let areas: Vec<&str> = r.checks().iter().map(Check::area).collect();
    assert_eq!(areas, ["bundle", "pins", "other", "run"]);
}

#[test]
fn reasons_round_trip_their_names() {
    for r in Reason::ALL {
        assert_eq!(Reason::parse(r.as_str()), Some(r));
    }
    assert_eq!(Reason::parse("not_checkable"), None);
}

#[test]
fn an_unshown_binding_is_not_checked_or_failed_when_strict() {
    let c =
        Check::unshown("hosts.weights_record", "names no weights record").marked(Mark::HostBinding);
    assert_eq!(c.reason(), Some(Reason::NoEvidence));
    assert_eq!(c.mark(), Some(Mark::HostBinding));
    let mut r = Report::new("x");
    r.push(c.clone());
    assert!(r.ok(), "not checked does not fail the verdict");
    assert_eq!(r.checks()[0].escalated(), None);
    let mut r = Report::new("x").requiring(Strictness::RequireAll);
    r.push(c);
    let c = &r.checks()[0];
    assert!(c.failed() && !c.is_not_checkable());
    assert_eq!(c.detail, "names no weights record (--require-all)");
    assert_eq!(c.mark(), None, "a failure is found by failing");
    assert_eq!(c.escalated(), Some(Reason::NoEvidence));
    assert!(!r.ok());
    // The mark is not part of the JSON report.
    let mut r = Report::new("x");
    r.push(Check::pass("a", "").marked(Mark::StatedConfig));
    assert!(!r.to_json().contains("mark"));
}

#[test]
fn a_check_that_says_what_it_becomes_becomes_it_only_where_all_is_required() {
    let held = || {
        Check::pass("p", "holds by the publisher's file")
            .or_fail("only the publisher's; --require-all")
    };
    let mut r = Report::new("x");
    r.push(held());
    assert!(r.checks()[0].passed());
    let mut r = Report::new("x").requiring(Strictness::RequireAll);
    r.push(held());
    r.push(
        Check::not_checked("q", Reason::NoEvidence, "not checked: q")
            .or_not_checkable_by("p", "q hangs on p"),
    );
    let (p, q) = (&r.checks()[0], &r.checks()[1]);
    assert!(p.failed());
    assert_eq!(p.escalated(), Some(Reason::StatedByPublisher));
    assert!(q.is_not_checkable() && q.detail == "q hangs on p");
    assert_eq!(q.escalated(), Some(Reason::NoEvidence));
    // A report that takes another's checks judges them under its own rule.
    let mut lenient = Report::new("sub");
    lenient.push(held());
    let mut strict = Report::new("x").requiring(Strictness::RequireAll);
    strict.extend(lenient);
    assert!(strict.checks()[0].failed());
}

/// The dependency rule: a check needing a failed one is not checkable
/// under it, through chains and prefixes; a check not checked stays so;
/// two checks failing on their own that need each other keep one cause.
#[test]
fn settled_needs_leave_one_cause() {
    let mut r = Report::new("x");
    r.push(Check::fail("records", "blank line"));
    r.push(Check::pass("host:a.time", "fine").needing(["records"]));
    r.push(Check::pass("host:a.config", "fine"));
    r.push(Check::pass("statement", "fine").needing(["host:*"]));
    r.push(Check::skip("unasked", "no pins").needing(["records"]));
    r.push(Check::pass("free", "fine").needing(["absent", "host:a.config"]));
    r.push(Check::fail("p", "own").needing(["q"]));
    r.push(Check::fail("q", "own").needing(["p"]));
    r.settle_needs();
    let cause = |id: &str| match &r.get(id).unwrap().outcome {
        Outcome::NotCheckable { cause } => cause.clone(),
        o => panic!("{id}: {o:?}"),
    };
    assert_eq!(cause("host:a.time").as_deref(), Some("records"));
    assert_eq!(cause("statement").as_deref(), Some("host:a.time"));
    assert!(r
        .get("statement")
        .unwrap()
        .detail
        .starts_with(NOT_CHECKABLE));
    assert_eq!(r.get("unasked").unwrap().ok(), None);
    assert_eq!(r.get("free").unwrap().ok(), Some(true));
    // One of the two stays a failure of its own: a cause remains.
    let own = ["p", "q"]
        .iter()
        .filter(|id| r.get(id).unwrap().outcome == Outcome::Fail)
        .count();
    assert_eq!(own, 1);
    assert_eq!(r.summary().failed - r.summary().not_checkable, 2);
}
