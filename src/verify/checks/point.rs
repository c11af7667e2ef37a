//! The checks of one measured point (spec section 6): its client records,
//! the count invariants, the send rate and warmup order, the router
//! journal as a witness of every request and of its timing, and
//! every published claim recomputed.

use serde_json::json;

use crate::report::{Check, Reason, Report};
use crate::run::idmap::IdMap;
use crate::run::journal::{timing_problem, JournalSummary, PointEvents};
use crate::run::metrics::PointMetrics;
use crate::run::plan::Arrival;
use crate::run::qualification;
use crate::run::qualification::{Claim, Qualification, Status, MIN_SIGNIFICANT_DIGITS};
use crate::run::records::{ClientSummary, Problems};
use crate::verify::checks::plan::{rate_tolerance, PlanFacts};
use crate::verify::evidence::context::Run;

/// Checks that need readable client records, in report order.
const AFTER_RECORDS: [&str; 11] = [
    "count",
    "warmup",
    "warmup_order",
    "unique_ids",
    "offered_rate",
    "one_token",
    "tokens",
    "journal.terminal",
    "journal.orphans",
    "status",
    "journal.timing",
];

/// Runs every check of point `i`; returns its recomputed metrics when its
/// client records could be read.
pub fn point_checks(
    report: &mut Report,
    run: &Run<'_>,
    i: usize,
    plan: &PlanFacts,
) -> Option<PointMetrics> {
    let (q, collected) = (run.q(), run.collected);
    let p = &q.points[i];
    let base = format!("point:{}", p.name);
    let id = |s: &str| format!("{base}.{s}");
    report.push(claims_presence(&base, p));
    if p.source.is_some() && !matches!(collected.derived.get(&i), Some(Ok(_))) {
        // The raw file is the evidence: without the records it derives
        // to, the records file proves nothing (one cause, one failure).
        let why = format!(
            "no client records derive from the point's result file (see {})",
            id("source")
        );
        report.push(Check::not_checkable_by(id("records"), id("source"), &why));
        for n in AFTER_RECORDS {
            report.push(Check::not_checkable_by(id(n), id("source"), &why));
        }
        claim_checks_caused_by(report, &base, p, &id("source"), &why);
        return None;
    }
    let client = match (run.problem(&p.client_records), collected.clients.get(&i)) {
        (None, Some(c)) => c,
        (problem, _) => {
            let why = problem.unwrap_or_else(|| format!("{}: not in the run", p.client_records));
            report.push(Check::fail(id("records"), why));
            let why = format!(
                "the client records could not be read (see {})",
                id("records")
            );
            for n in AFTER_RECORDS {
                report.push(Check::not_checkable_by(id(n), id("records"), &why));
            }
            claim_checks_unavailable(report, &base, p, &why);
            return None;
        }
    };
    if !client.problems.is_empty() {
        // One malformed record makes every count, join and metric of the
        // point unreliable: report the cause once and the rest as not
        // checkable because of it, instead of blaming the wrong thing.
        report.push(Check::fail(
            id("records"),
            format!(
                "{}: {} malformed record(s): {}",
                p.client_records,
                client.problems.count,
                client.problems.summary()
            ),
        ));
        let why = format!(
            "{} has malformed records (see {})",
            p.client_records,
            id("records")
        );
        for n in AFTER_RECORDS {
            report.push(Check::not_checkable_by(id(n), id("records"), &why));
        }
        claim_checks_unavailable(report, &base, p, &why);
        return None;
    }
    report.push(Check::pass(
        id("records"),
        format!(
            "{}: {} records, all well-formed",
            p.client_records, client.records
        ),
    ));
    count_checks(report, &base, p, client);
    rate_check(report, &base, p, client, plan.arrival);
    let tolerance = q.clock_tolerance();
    report.push(crate::verify::checks::plausible::one_token_check(
        &base, p, client, tolerance,
    ));
    report.push(crate::verify::checks::plausible::tokens_check(
        &base, p, client, plan,
    ));
    match p.journal.as_deref() {
        None => {
            for (k, n) in JOURNAL_CHECKS.iter().enumerate() {
                let c = no_second_witness(id(n));
                // One cause, one failure: where the first fails, the rest
                // hang on it.
                report.push(if k > 0 {
                    c.or_not_checkable_by(
                        id(JOURNAL_CHECKS[0]),
                        format!("{NO_SECOND_WITNESS} (the point names no journal)"),
                    )
                } else {
                    c
                });
            }
        }
        Some(journal) => match (run.problem(journal), collected.journals.get(journal)) {
            (None, Some(j)) => journal_checks(report, &base, p, journal, client, j, tolerance),
            (problem, _) => {
                let why = problem.unwrap_or_else(|| format!("{journal}: not in the run"));
                report.push(Check::fail(id("journal.terminal"), why.clone()));
                let why = format!("{why} (see {})", id("journal.terminal"));
                for n in ["journal.orphans", "status", "journal.timing"] {
                    report.push(Check::not_checkable_by(id(n), id("journal.terminal"), &why));
                }
            }
        },
    }
    let m = &client.metrics;
    claim_checks(report, &base, q, p, m, &client.breaches);
    Some(m.clone())
}

/// The checks the router journal witnesses.
const JOURNAL_CHECKS: [&str; 4] = [
    "journal.terminal",
    "journal.orphans",
    "status",
    "journal.timing",
];

/// What stands for a journal check of a point without a journal:
/// not checked, or failed under `--require-all`.
pub const NO_SECOND_WITNESS: &str = "no independent journal witnesses the client records";

fn no_second_witness(id: String) -> Check {
    Check::not_checked(
        id,
        Reason::NoEvidence,
        format!("not checked: {NO_SECOND_WITNESS} (the point names no journal)"),
    )
    .or_fail(format!(
        "{NO_SECOND_WITNESS} (the point names no journal); --require-all"
    ))
}

/// `point:<name>.claims`: a point publishes something to check.
fn claims_presence(base: &str, p: &qualification::Point) -> Check {
    let id = format!("{base}.claims");
    let published = claim_keys(&p.claims)
        .iter()
        .filter(|(_, c)| c.is_some())
        .count()
        + usize::from(p.claims.within_limits.is_some());
    if published == 0 {
        Check::fail(
            id,
            "nothing published to check: the point declares no claims, so a verdict on it would say nothing about any published number",
        )
    } else {
        Check::pass(id, format!("{published} published value(s) to check"))
    }
}

fn count_checks(report: &mut Report, base: &str, p: &qualification::Point, client: &ClientSummary) {
    let id = |s: &str| format!("{base}.{s}");
    let want = p.requests + p.warmup;
    report.push(
        Check::outcome(
            id("count"),
            client.records == want,
            format!(
                "{}: requests + warmup = {} + {} client records",
                p.client_records, p.requests, p.warmup
            ),
        )
        .with_values(want, client.records),
    );
    report.push(
        Check::outcome(
            id("warmup"),
            client.warmups == p.warmup,
            format!("{}: records marked warmup", p.client_records),
        )
        .with_values(p.warmup, client.warmups),
    );
    report.push(match (&client.last_warmup, &client.first_measured) {
        (None, _) => Check::pass(id("warmup_order"), "no warmup requests"),
        (Some(_), None) => Check::pass(id("warmup_order"), "no measured requests"),
        (Some(w), Some(m)) if client.early_measured.is_empty() => Check::pass(
            id("warmup_order"),
            format!(
                "every warmup was sent before every measured request (last warmup {:.3} s before the first measured one)",
                m.at - w.at
            ),
        ),
        (Some(_), Some(_)) => Check::fail(
            id("warmup_order"),
            format!(
                "{} measured request(s) sent before the last warmup: warmups come first, a request sent mid-run cannot be one: {}",
                client.early_measured.count,
                client.early_measured.summary()
            ),
        ),
    });
    report.push(if client.duplicates.is_empty() {
        Check::pass(
            id("unique_ids"),
            format!(
                "{}: {} distinct request ids",
                p.client_records,
                client.ids.len()
            ),
        )
    } else {
        Check::fail(
            id("unique_ids"),
            format!("duplicate {}", client.duplicates.summary()),
        )
        .with_values(client.records, client.ids.len() as u64)
    });
}

/// `point:<name>.offered_rate`: the measured send rate against the declared
/// offered rate, within what the arrival process allows by chance.
fn rate_check(
    report: &mut Report,
    base: &str,
    p: &qualification::Point,
    client: &ClientSummary,
    arrival: Arrival,
) {
    let id = format!("{base}.offered_rate");
    let n = client.metrics.measured;
    report.push(match client.metrics.measured_rate {
        // The records themselves show no rate: a failure on the point's own
        // evidence, never "not checkable".
        None if n < 2 => Check::fail(
            id,
            format!(
                "{n} measured request(s): a send rate needs at least two sends, so the declared offered rate of {} request/s is not shown by the records",
                p.offered_rate
            ),
        )
        .with_values(json!({"offered_rate": p.offered_rate}), serde_json::Value::Null),
        None => Check::fail(
            id,
            format!(
                "all {n} measured requests share one send time ({}): no send rate to measure, so the declared offered rate of {} request/s is not shown by the records",
                client
                    .first_measured
                    .as_ref()
                    .map_or_else(|| "unknown".to_string(), |m| format!("sent_at {:.6}", m.at)),
                p.offered_rate
            ),
        )
        .with_values(json!({"offered_rate": p.offered_rate}), serde_json::Value::Null),
        Some(r) => {
            let tol = rate_tolerance(arrival, n);
            let off = r / p.offered_rate - 1.0;
            Check::outcome(
                &id,
                off.abs() <= tol,
                format!(
                    "measured send rate {r:.4} request/s over {n} requests, declared {} request/s: {:+.1}% (allowed ±{:.1}% for {} arrivals)",
                    p.offered_rate,
                    off * 100.0,
                    tol * 100.0,
                    arrival.describe()
                ),
            )
            .with_values(
                json!({"offered_rate": p.offered_rate, "relative_tolerance": tol}),
                r,
            )
        }
    });
}

fn journal_checks(
    report: &mut Report,
    base: &str,
    p: &qualification::Point,
    journal: &str,
    client: &ClientSummary,
    j: &JournalSummary,
    tolerance: f64,
) {
    let id = |s: &str| format!("{base}.{s}");
    let empty = PointEvents::Kept(IdMap::new());
    let events = j.points.get(&p.name).unwrap_or(&empty);
    let mut terminal = Problems::default();
    let mut status = Problems::default();
    let mut timing = Problems::default();
    // In file order, as the id map keeps them.
    for (k, (rid, c)) in client.ids.iter().enumerate() {
        // Where the record is, written only for a problem.
        let at = format_args!("{}:{}", p.client_records, c.line);
        let t = events.of(k, rid, c);
        match &t {
            None => terminal.push(format!("request {rid:?} ({at}) has no terminal event")),
            Some(t) if t.count == 0 => terminal.push(format!(
                "request {rid:?} ({at}) has no terminal event in {}",
                journal
            )),
            Some(t) if t.count > 1 => terminal.push(format!(
                "request {rid:?} has {} terminal events ({}:{} and line {})",
                t.count, journal, t.terminal_lines[0], t.terminal_lines[1]
            )),
            Some(t) => {
                if t.status != Some(c.status) {
                    status.push(format!(
                        "request {rid:?}: client status {} ({at}), terminal status {} ({}:{})",
                        c.status.as_str(),
                        t.status.map_or("none", Status::as_str),
                        journal,
                        t.terminal_lines[0]
                    ));
                }
            }
        }
        if let Some(why) = timing_problem(c, t.as_ref(), tolerance) {
            timing.push(format!("request {rid:?} ({at}; {}): {why}", journal));
        }
    }
    let mut orphans = Problems::default();
    // In the order of their first event.
    for (rid, line) in events.orphans(client) {
        orphans.push(format!(
            "request {rid:?} ({}:{line}) has no client record",
            journal
        ));
    }
    if !j.problems.is_empty() || j.needs_details() {
        let why = if j.problems.is_empty() {
            // Never so through `verify`, which reads it again.
            format!("{journal}: the lines and times its failures quote were not read again")
        } else {
            format!(
                "{} has {} malformed line(s): {}",
                journal,
                j.problems.count,
                j.problems.summary()
            )
        };
        report.push(Check::fail(id("journal.terminal"), why));
        let why = if j.problems.is_empty() {
            format!(
                "{} was not read again (see {})",
                journal,
                id("journal.terminal")
            )
        } else {
            format!("{} is malformed (see {})", journal, id("journal.terminal"))
        };
        for n in ["journal.orphans", "status", "journal.timing"] {
            report.push(Check::not_checkable_by(id(n), id("journal.terminal"), &why));
        }
        return;
    }
    report.push(if terminal.is_empty() {
        Check::pass(
            id("journal.terminal"),
            format!("{}: exactly one terminal event per request", journal),
        )
    } else {
        Check::fail(
            id("journal.terminal"),
            format!(
                "{} request(s) without exactly one terminal event: {}",
                terminal.count,
                terminal.summary()
            ),
        )
        .with_values(1, terminal.count)
    });
    report.push(if orphans.is_empty() {
        Check::pass(
            id("journal.orphans"),
            format!("{}: every event of the point has a client record", journal),
        )
    } else {
        Check::fail(
            id("journal.orphans"),
            format!(
                "{} journal request id(s) without a client record: {}",
                orphans.count,
                orphans.summary()
            ),
        )
    });
    report.push(if status.is_empty() {
        Check::pass(
            id("status"),
            "every terminal status equals the client status",
        )
    } else {
        Check::fail(
            id("status"),
            format!("{} status mismatch(es): {}", status.count, status.summary()),
        )
    });
    report.push(if timing.is_empty() {
        Check::pass(
            id("journal.timing"),
            format!(
                "{}: for all {} requests the journal's first event, first_token and terminal times agree with the client's within {tolerance} s, in time order",
                journal,
                client.ids.len()
            ),
        )
    } else {
        Check::fail(
            id("journal.timing"),
            format!(
                "{} request(s) whose times the journal does not witness (tolerance {tolerance} s): {}",
                timing.count,
                timing.summary()
            ),
        )
    });
}

/// The claims of a point whose client records cannot be read, each not
/// checkable because `point:<name>.records` failed.
fn claim_checks_unavailable(report: &mut Report, base: &str, p: &qualification::Point, why: &str) {
    claim_checks_caused_by(report, base, p, &format!("{base}.records"), why);
}

/// The claim checks of a point, not checkable because `cause` failed.
fn claim_checks_caused_by(
    report: &mut Report,
    base: &str,
    p: &qualification::Point,
    cause: &str,
    why: &str,
) {
    for (key, _) in claim_keys(&p.claims) {
        report.push(Check::not_checkable_by(format!("{base}.claim.{key}"), cause, why).claim());
    }
    report.push(Check::not_checkable_by(format!("{base}.within_limits"), cause, why).claim());
    report.push(Check::not_checkable_by(
        format!("{base}.attainment"),
        cause,
        why,
    ));
}

/// Every claim key in report order, with the claim if published.
pub fn claim_keys(c: &qualification::Claims) -> Vec<(String, Option<&Claim>)> {
    let mut v = vec![
        ("completed_rate".to_string(), c.completed_rate.as_ref()),
        (
            "output_throughput".to_string(),
            c.output_throughput.as_ref(),
        ),
    ];
    for (group, pc) in [
        ("ttft_s", c.ttft_s.as_ref()),
        ("tpot_ms", c.tpot_ms.as_ref()),
    ] {
        v.push((format!("{group}.p50"), pc.and_then(|x| x.p50.as_ref())));
        v.push((format!("{group}.p95"), pc.and_then(|x| x.p95.as_ref())));
        v.push((format!("{group}.p99"), pc.and_then(|x| x.p99.as_ref())));
    }
    v
}

/// The recomputed value for a claim key, and its unit for messages.
pub fn recomputed(m: &PointMetrics, key: &str) -> (Option<f64>, &'static str) {
    match key {
        "completed_rate" => (m.completed_rate, "requests/s"),
        "output_throughput" => (m.output_throughput, "tokens/s"),
        "ttft_s.p50" => (m.ttft_s[0], "s"),
        "ttft_s.p95" => (m.ttft_s[1], "s"),
        "ttft_s.p99" => (m.ttft_s[2], "s"),
        "tpot_ms.p50" => (m.tpot_ms[0], "ms"),
        "tpot_ms.p95" => (m.tpot_ms[1], "ms"),
        "tpot_ms.p99" => (m.tpot_ms[2], "ms"),
        _ => (None, ""),
    }
}

/// One published claim against its recomputed value: too coarse to check,
/// no data, or whether it rounds (spec section 6, significant-digits rule).
pub fn claim_check(id: String, claim: &Claim, value: Option<f64>, unit: &str) -> Check {
    let digits = claim.significant_digits();
    if digits < MIN_SIGNIFICANT_DIGITS {
        return Check::fail(
            id,
            format!(
                "published {:?} has {digits} significant digit(s), too coarse to check: a claim needs at least {MIN_SIGNIFICANT_DIGITS} (e.g. {}), since half a unit of its last digit would otherwise hide a difference of 5% or more",
                claim.text,
                value.map_or_else(|| "0.850".to_string(), |v| format!("{v:.3}"))
            ),
        )
        .with_values(claim.text.clone(), value.map_or(serde_json::Value::Null, |v| json!(v)));
    }
    match value {
        None => Check::fail(
            id,
            "no data: no ok requests (or no time window) to recompute this value from",
        )
        .with_values(claim.text.clone(), serde_json::Value::Null),
        Some(v) => {
            let holds = claim.holds(v);
            let detail = format!(
                "recomputed {v:.6} {unit} {} published {} (tolerance {})",
                if holds {
                    "rounds to"
                } else {
                    "does not round to"
                },
                claim.text,
                format_tolerance(claim.decimals)
            );
            Check::outcome(id, holds, detail).with_values(claim.text.clone(), v)
        }
    }
}

fn claim_checks(
    report: &mut Report,
    base: &str,
    q: &Qualification,
    p: &qualification::Point,
    m: &PointMetrics,
    breaches: &Problems,
) {
    for (key, claim) in claim_keys(&p.claims) {
        let id = format!("{base}.claim.{key}");
        let Some(claim) = claim else {
            report.push(
                Check::not_checked(
                    id,
                    Reason::NotClaimed,
                    "not claimed in qualification.json; not checked",
                )
                .claim(),
            );
            continue;
        };
        let (value, unit) = recomputed(m, &key);
        report.push(claim_check(id, claim, value, unit).claim());
    }
    let slo = &q.slo;
    let rule = format!(
        "non-warmup ok requests with TTFT <= {} s and TPOT <= {} s (TTFT alone when output_tokens <= 1)",
        slo.ttft_s, slo.tpot_s
    );
    let outside = if breaches.is_empty() {
        String::new()
    } else {
        format!("; outside the SLO: {}", breaches.summary())
    };
    report.push(
        match p.claims.within_limits {
            None => Check::not_checked(
                format!("{base}.within_limits"),
                Reason::NotClaimed,
                "within_limits not claimed; not checked",
            ),
            Some(n) => Check::outcome(
                format!("{base}.within_limits"),
                m.within_limits == n,
                format!("{} of {} {rule}{outside}", m.within_limits, p.requests),
            )
            .with_values(n, m.within_limits),
        }
        .claim(),
    );
    let share = m.within_limits as f64 / p.requests as f64;
    report.push(
        Check::outcome(
            format!("{base}.attainment"),
            share >= slo.attainment,
            format!(
                "{} / {} = {share:.4} within limits, SLO attainment {}",
                m.within_limits, p.requests, slo.attainment
            ),
        )
        .with_values(json!({"min": slo.attainment}), share),
    );
}

fn format_tolerance(decimals: u32) -> String {
    format!("±{}", 0.5 * 10f64.powi(-(decimals as i32)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::journal::{failures, read_journal_limited, read_journal_with, IdLimit};
    use crate::run::records;
    use proptest::prelude::*;

    /// A client record line (statuses other than ok may lack times).
    fn client_line(id: &str, status: usize, times: (u8, Option<u8>, Option<u8>)) -> String {
        let status = ["ok", "error", "timeout", "cancelled"][status];
        let t = |v: Option<u8>| v.map_or("null".to_string(), |v| format!("{}", f64::from(v) * 0.5));
        format!(
            "{{\"request_id\":\"{id}\",\"point\":\"p\",\"warmup\":false,\"status\":\"{status}\",\"sent_at\":{},\"first_token_at\":{},\"finished_at\":{},\"input_tokens\":5,\"output_tokens\":3}}\n",
            f64::from(times.0) * 0.5,
            t(times.1),
            t(times.2)
        )
    }

    fn event_line(id: &str, event: usize, at: u8, status: usize) -> String {
        let event = ["received", "first_token", "terminal"][event];
        let status = if event == "terminal" {
            format!(
                ",\"status\":\"{}\"",
                ["ok", "error", "timeout", "cancelled"][status]
            )
        } else {
            String::new()
        };
        format!(
            "{{\"at\":{},\"point\":\"p\",\"request_id\":\"{id}\",\"event\":\"{event}\"{status}}}\n",
            f64::from(at) * 0.5
        )
    }

    fn checks_of(
        client: &ClientSummary,
        j: &JournalSummary,
        tol: f64,
    ) -> (Report, Vec<Option<Status>>) {
        let p: qualification::Point = serde_json::from_value(json!({
            "name": "p", "offered_rate": 1.0, "requests": 3, "warmup": 0,
            "client_records": "c.jsonl", "journal": "j.jsonl", "claims": {}
        }))
        .unwrap();
        let mut report = Report::new("t");
        journal_checks(&mut report, "point:p", &p, "j.jsonl", client, j, tol);
        let mut statuses: Vec<Option<Status>> = j.points["p"].terminal_statuses(client).collect();
        statuses.sort_by_key(|s| s.map(Status::as_str));
        (report, statuses)
    }

    const IDS: [&str; 6] = ["a", "b", "c", "d", "x", "y"];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// A journal judged while it streams against the
        /// client records gives the checks the journal kept per request id
        /// gives, word for word (times on a half-second grid, tolerances of
        /// one and two steps, so every comparison meets its boundary).
        #[test]
        fn judged_while_streaming_equals_kept_per_id(
            clients in proptest::collection::vec(
                (0usize..4, 0usize..4, 0u8..6, proptest::option::of(0u8..8), proptest::option::of(0u8..10)),
                0..5),
            events in proptest::collection::vec((0usize..6, 0usize..3, 0u8..12, 0usize..4), 0..14),
            tol in prop_oneof![Just(0.5), Just(1.0)],
            limit_bites: bool,
        ) {
            let c: String = clients
                .iter()
                .map(|&(id, st, s, ft, fin)| client_line(IDS[id], st, (s, ft, fin)))
                .collect();
            let client = records::read_client_records(&mut c.as_bytes(), "c.jsonl", "p", 10.0, 1.0).unwrap();
            let j: String = events.iter().map(|&(id, ev, at, st)| event_line(IDS[id], ev, at, st)).collect();
            // A limit of distinct ids that bites in some cases, and none.
            let limit = if limit_bites { IdLimit::Fixed(3) } else { IdLimit::Fixed(u64::MAX) };
            let kept = read_journal_limited(&mut j.as_bytes(), "j.jsonl", &[("p", None)], tol, limit).unwrap();
            let judged = read_journal_limited(&mut j.as_bytes(), "j.jsonl", &[("p", Some(&client))], tol, limit).unwrap();
            prop_assert!(matches!(kept.points["p"], PointEvents::Kept(_)));
            prop_assert!(matches!(judged.points["p"], PointEvents::Judged(_)));
            prop_assert_eq!(kept.events, judged.events);
            prop_assert_eq!(checks_of(&client, &kept, tol), checks_of(&client, &judged, tol));
            // Past the full records (none, or one), a disagreeing request
            // keeps only what decides its checks: every request fails the
            // same checks from that alone, and once the quoted requests are
            // read again, the checks are the same word for word.
            for full in [0, 1] {
                let mut compact = read_journal_with(&mut j.as_bytes(), "j.jsonl", &[("p", Some(&client))], tol, limit, full).unwrap();
                for (k, (rid, c)) in client.ids.iter().enumerate() {
                    prop_assert_eq!(
                        failures(c, kept.points["p"].of(k, rid, c).as_ref(), tol),
                        failures(c, compact.points["p"].of(k, rid, c).as_ref(), tol),
                        "request {}", rid
                    );
                }
                if compact.needs_details() {
                    // Unread, the lines and times are not quoted: the
                    // journal's checks fail instead.
                    let (r, _) = checks_of(&client, &compact, tol);
                    prop_assert_eq!(r.get("point:p.journal.terminal").map(|c| c.outcome.clone()), Some(crate::report::Outcome::Fail));
                }
                compact.read_details(&mut j.as_bytes(), "j.jsonl", &[("p", Some(&client))], tol).unwrap();
                prop_assert!(!compact.needs_details());
                prop_assert_eq!(checks_of(&client, &kept, tol), checks_of(&client, &compact, tol));
            }
        }
    }

    /// The journal's limit counts distinct request ids, judged or kept, and
    /// more events of ids already seen are read.
    #[test]
    fn the_journal_limit_counts_distinct_ids_either_way() {
        let c = [
            client_line("a", 0, (0, Some(1), Some(2))),
            client_line("b", 0, (0, Some(1), Some(2))),
        ]
        .concat();
        let client =
            records::read_client_records(&mut c.as_bytes(), "c.jsonl", "p", 10.0, 1.0).unwrap();
        let text = [
            event_line("a", 0, 0, 0),
            event_line("b", 0, 0, 0),
            event_line("a", 1, 1, 0),
            event_line("c", 0, 1, 0),
            event_line("b", 1, 1, 0),
        ]
        .concat();
        for read in [None, Some(&client)] {
            let j = read_journal_limited(
                &mut text.as_bytes(),
                "j.jsonl",
                &[("p", read)],
                1.0,
                IdLimit::Fixed(2),
            )
            .unwrap();
            assert_eq!(j.events, 3, "{:?}", j.problems);
            assert!(
                j.problems.quoted[0].starts_with("j.jsonl:4: events of more than 2 request ids")
            );
            let j = read_journal_limited(
                &mut text.as_bytes(),
                "j.jsonl",
                &[("p", read)],
                1.0,
                IdLimit::Fixed(3),
            )
            .unwrap();
            assert!(j.problems.is_empty(), "{:?}", j.problems);
            assert_eq!(j.events, 5);
        }
    }
}
