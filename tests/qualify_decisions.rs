//! Cases the contract decides (docs/spec/FORMATS.md, the v1.1 notes of
//! 2026-12-08), each through the binary on an edited, resealed sample.

mod qualify_support;

use qualify_support::*;

/// A journal with no event of a request witnesses none of its times:
/// `journal.timing` fails naming it (it has a `first_token` event exactly
/// when the client's `first_token_at` is not null), beside
/// `journal.terminal`.
#[test]
fn a_request_with_no_journal_event_fails_timing() {
    let c = fresh();
    c.edit_lines(J, |l| l.retain(|e| !e.contains("\"rate-1-000007\"")));
    let o = c.verify_sealed();
    o.assert_fails(
        "point:rate-1.journal.timing",
        "request \\\"rate-1-000007\\\"",
    );
    o.assert_fails(
        "point:rate-1.journal.timing",
        "the journal has no event of it: none of its times is witnessed",
    );
    o.assert_fails("point:rate-1.journal.terminal", "rate-1-000007");
    assert_eq!(o.check("point:rate-0.5.journal.timing")["ok"], true);
}

/// An empty journal cannot witness TTFT: every point's `journal.timing`
/// fails.
#[test]
fn an_empty_journal_fails_timing_for_every_point() {
    let c = fresh();
    std::fs::write(c.path(J), b"").unwrap();
    let o = c.verify_sealed();
    for p in ["rate-0.5", "rate-1"] {
        o.assert_fails(
            &format!("point:{p}.journal.timing"),
            "201 request(s) whose times the journal does not witness",
        );
    }
}

/// A second terminal event is `journal.terminal`'s finding alone (one
/// cause, one failure): `journal.timing` judges the events up to the first
/// terminal one.
#[test]
fn a_second_terminal_event_fails_terminal_alone() {
    let c = fresh();
    c.edit_lines(J, |l| {
        let at = l
            .iter()
            .position(|e| e.contains("\"rate-1-000003\"") && e.contains("\"terminal\""))
            .unwrap();
        let again = l[at].clone();
        l.insert(at + 1, again);
    });
    let o = c.verify_sealed();
    o.assert_fails("point:rate-1.journal.terminal", "has 2 terminal events");
    assert_eq!(o.check("point:rate-1.journal.timing")["ok"], true);
}
