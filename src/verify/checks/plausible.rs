//! Records that no real run can produce: a one-token answer that
//! finished long after its only token, token counts beyond the workload's,
//! and points whose time windows overlap or run out of the plan's order.
//! Each is its own check, naming the first offending records file:line.
//!
//! These rules close ways to obtain `VERIFIED` with records that are
//! internally consistent but physically impossible: `output_tokens: 1`
//! takes a request out of the TPOT budget, `output_tokens: 1000000000`
//! gives any throughput, and the first point replayed inside the second
//! one's window passes both points' counts and rates.

use crate::report::{Check, Reason};
use crate::run::qualification::Point;
use crate::run::records::{ClientSummary, Problems};
use crate::verify::checks::plan::PlanFacts;
use crate::verify::evidence::context::Run;

/// `point:<name>.one_token`: a request with at most one output token ends
/// with its first token, so its `finished_at` is within the clock
/// tolerance of its `first_token_at` (warmups included). Such a request
/// has no TPOT and is judged on TTFT alone, so a long decode declared as
/// one token would otherwise leave the TPOT budget unchecked.
pub fn one_token_check(base: &str, p: &Point, client: &ClientSummary, tolerance: f64) -> Check {
    let id = format!("{base}.one_token");
    let mut bad = Problems::default();
    let mut short = 0u64;
    for (rid, c, (_, output_tokens)) in client.in_file_order() {
        if output_tokens > 1 {
            continue;
        }
        let (Some(ft), Some(fin)) = (c.first_token_at(), c.finished_at()) else {
            continue;
        };
        short += 1;
        if fin - ft > tolerance {
            bad.push(format!(
                "request {rid:?} ({}:{}): {} output token(s), finished {:.3} s after its first token",
                p.client_records,
                c.line,
                output_tokens,
                fin - ft
            ));
        }
    }
    if bad.is_empty() {
        Check::pass(
            id,
            format!(
                "{}: {short} record(s) with at most one output token, each finished within {tolerance} s of its first token",
                p.client_records
            ),
        )
    } else {
        Check::fail(
            id,
            format!(
                "{} request(s) with at most one output token that went on decoding after it (allowed {tolerance} s, the clock tolerance): a one-token answer ends with its token: {}",
                bad.count,
                bad.summary()
            ),
        )
        .with_values(tolerance, bad.count)
    }
}

/// `point:<name>.tokens`: every record's `input_tokens` and
/// `output_tokens` are within the workload's limits as the benchmark plan
/// states them (`max_input_tokens`, `max_output_tokens`).
pub fn tokens_check(base: &str, p: &Point, client: &ClientSummary, plan: &PlanFacts) -> Check {
    let id = format!("{base}.tokens");
    let limits = match plan.lengths {
        Ok(Some(l)) => l,
        Ok(None) => {
            return Check::not_checked(
                id,
                Reason::NoEvidence,
                "the benchmark plan states no token limits (see plan.lengths)",
            )
        }
        Err(cause) => {
            return Check::not_checkable_by(
                id,
                cause,
                format!("the workload's token limits are not known (see {cause})"),
            )
        }
    };
    let mut bad = Problems::default();
    for (rid, c, (input_tokens, output_tokens)) in client.in_file_order() {
        let at = format!("{}:{}", p.client_records, c.line);
        if input_tokens > limits.max_input_tokens {
            bad.push(format!(
                "request {rid:?} ({at}): input_tokens {input_tokens} > max_input_tokens {}",
                limits.max_input_tokens
            ));
        }
        if output_tokens > limits.max_output_tokens {
            bad.push(format!(
                "request {rid:?} ({at}): output_tokens {output_tokens} > max_output_tokens {}",
                limits.max_output_tokens
            ));
        }
    }
    if bad.is_empty() {
        Check::pass(
            id,
            format!(
                "{}: every record within the plan's {} input and {} output tokens",
                p.client_records, limits.max_input_tokens, limits.max_output_tokens
            ),
        )
    } else {
        Check::fail(
            id,
            format!(
                "{} token count(s) beyond the workload the plan states: the records count tokens the client never asked for: {}",
                bad.count,
                bad.summary()
            ),
        )
        .with_values(
            serde_json::json!({"max_input_tokens": limits.max_input_tokens, "max_output_tokens": limits.max_output_tokens}),
            bad.count,
        )
    }
}

/// One point's time window: its first send and its last time, with where
/// each is recorded.
struct Window {
    name: String,
    start: f64,
    start_at: String,
    end: f64,
    end_at: String,
}

fn window(p: &Point, client: &ClientSummary) -> Option<Window> {
    let mut start: Option<(f64, u32, &str)> = None;
    let mut end: Option<(f64, u32, &str)> = None;
    for (rid, c) in client.ids.iter() {
        if start.is_none_or(|(t, l, _)| c.sent_at < t || (c.sent_at == t && c.line < l)) {
            start = Some((c.sent_at, c.line, rid));
        }
        let last = c.last_at();
        if end.is_none_or(|(t, l, _)| last > t || (last == t && c.line < l)) {
            end = Some((last, c.line, rid));
        }
    }
    let ((s, sl, sid), (e, el, eid)) = (start?, end?);
    Some(Window {
        name: p.name.clone(),
        start: s,
        start_at: format!("request {sid:?}, {}:{sl}", p.client_records),
        end: e,
        end_at: format!("request {eid:?}, {}:{el}", p.client_records),
    })
}

/// `run.point_windows`: the points' time windows (first send to
/// last time recorded, warmups included) do not overlap and follow the
/// order of `qualification.json`, which `plan.points` holds to the plan's.
/// Points run one after another; a point replayed inside another's window
/// shows the engines serving more load than either point declares.
pub fn windows_check(run: &Run<'_>) -> Check {
    let id = "run.point_windows";
    let q = run.q();
    let mut windows = Vec::new();
    for (i, p) in q.points.iter().enumerate() {
        let cause = format!("point:{}.records", p.name);
        let client = match (
            run.problem(&p.client_records),
            run.collected.clients.get(&i),
        ) {
            (None, Some(c)) if c.problems.is_empty() => c,
            _ => {
                return Check::not_checkable_by(
                    id,
                    &cause,
                    format!(
                        "point {}'s client records cannot be read (see {cause})",
                        p.name
                    ),
                )
            }
        };
        if let Some(w) = window(p, client) {
            windows.push(w);
        }
    }
    let mut bad = Problems::default();
    for pair in windows.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        if a.end > b.start {
            bad.push(format!(
                "point {} (the plan's next) starts at {:.6} ({}), {:.3} s before point {} ends at {:.6} ({})",
                b.name,
                b.start,
                b.start_at,
                a.end - b.start,
                a.name,
                a.end,
                a.end_at
            ));
        }
    }
    if bad.is_empty() {
        let spans: Vec<String> = windows
            .iter()
            .map(|w| format!("{} {:.3}..{:.3}", w.name, w.start, w.end))
            .collect();
        Check::pass(
            id,
            format!(
                "the {} point(s) ran one after another in the plan's order: {}",
                windows.len(),
                spans.join(", ")
            ),
        )
    } else {
        Check::fail(
            id,
            format!(
                "points overlap in time or run out of the plan's order (each point's window is its first send to the last time its records state, warmups included): {}",
                bad.summary()
            ),
        )
    }
}
