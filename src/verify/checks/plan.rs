//! The benchmark plan's checks: the plan the benchmark client was told to
//! run (its format in [`crate::run::plan`]), against the qualification's
//! own declarations: `qualification.plan`, `plan.points`, `plan.slo` and
//! `plan.lengths`, and the tolerance of a measured send rate under the
//! plan's arrival process.

use crate::report::{Check, Mark, Reason, Report};
use crate::run::plan::{Arrival, BenchmarkPlan, Lengths};
use crate::run::qualification::Qualification;
use crate::verify::evidence::context::Run;

/// Standard errors of the measured send rate allowed by chance.
pub const RATE_SIGMAS: f64 = 4.0;
/// Relative tolerance of the send rate that no arrival process goes below
/// (timer jitter and rounding of send times).
pub const RATE_FLOOR: f64 = 0.01;

/// The relative tolerance of the measured send rate of `n` measured
/// requests: `RATE_SIGMAS * cv / sqrt(n - 1)`, at least [`RATE_FLOOR`].
///
/// With `n - 1` gaps of mean `1/rate` and coefficient of variation `cv`, the
/// span of send times has a relative standard deviation of `cv / sqrt(n -
/// 1)`, and so (to first order) has the measured rate `(n - 1) / span`.
pub fn rate_tolerance(arrival: Arrival, n: u64) -> f64 {
    let gaps = n.saturating_sub(1).max(1) as f64;
    (RATE_SIGMAS * arrival.gap_cv() / gaps.sqrt()).max(RATE_FLOOR)
}

/// What the checks after the plan's take from it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PlanFacts {
    /// The arrival process (Poisson when the plan cannot be read).
    pub arrival: Arrival,
    /// The workload's token limits (`None`: the plan states none, as
    /// older plans do), or the id of the check that failed
    /// so that they are unknown.
    pub lengths: Result<Option<Lengths>, &'static str>,
}

fn same_rate(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs())
}

/// `plan.points`: the plan's points and the qualification's are the same
/// points, in the same order, with the same rate, request and warmup counts.
pub fn points_check(q: &Qualification, plan: &BenchmarkPlan, path: &str) -> Check {
    let id = "plan.points";
    let mut problems = Vec::new();
    let n = q.points.len().max(plan.points.len());
    for i in 0..n {
        match (q.points.get(i), plan.points.get(i)) {
            (Some(qp), Some(pp)) => {
                if qp.name != pp.name {
                    problems.push(format!(
                        "point #{}: the plan runs {:?}, qualification.json declares {:?}",
                        i + 1,
                        pp.name,
                        qp.name
                    ));
                    continue;
                }
                if !same_rate(qp.offered_rate, pp.offered_rate) {
                    problems.push(format!(
                        "{}: offered_rate {} in the plan, {} declared",
                        qp.name, pp.offered_rate, qp.offered_rate
                    ));
                }
                if qp.requests != pp.requests {
                    problems.push(format!(
                        "{}: requests {} in the plan, {} declared",
                        qp.name, pp.requests, qp.requests
                    ));
                }
                if qp.warmup != pp.warmup {
                    problems.push(format!(
                        "{}: warmup {} in the plan, {} declared",
                        qp.name, pp.warmup, qp.warmup
                    ));
                }
            }
            (None, Some(pp)) => problems.push(format!(
                "the plan runs point {:?} ({} requests at {} request/s), which qualification.json does not declare",
                pp.name, pp.requests, pp.offered_rate
            )),
            (Some(qp), None) => problems.push(format!(
                "qualification.json declares point {:?}, which the plan does not run",
                qp.name
            )),
            (None, None) => {}
        }
    }
    if problems.is_empty() {
        Check::pass(
            id,
            format!(
                "{path}: the same {} point(s), in order, with the same offered rates, request and warmup counts",
                q.points.len()
            ),
        )
    } else {
        Check::fail(
            id,
            format!(
                "{path} disagrees with qualification.json: {}",
                problems.join("; ")
            ),
        )
    }
}

/// `plan.slo`: the plan's SLO, when it states one, is the qualification's.
pub fn slo_check(q: &Qualification, plan: &BenchmarkPlan, path: &str) -> Check {
    let id = "plan.slo";
    match &plan.slo {
        None => Check::not_checked(
            id,
            Reason::NotClaimed,
            format!("{path} states no SLO; not compared"),
        ),
        Some(s) => {
            let same = same_rate(s.ttft_s, q.slo.ttft_s)
                && same_rate(s.tpot_s, q.slo.tpot_s)
                && same_rate(s.attainment, q.slo.attainment);
            Check::outcome(
                id,
                same,
                if same {
                    format!("{path}: the same SLO as qualification.json")
                } else {
                    format!("{path} was written for another SLO than qualification.json judges by")
                },
            )
            .with_values(
                serde_json::json!({"ttft_s": s.ttft_s, "tpot_s": s.tpot_s, "attainment": s.attainment}),
                serde_json::json!({"ttft_s": q.slo.ttft_s, "tpot_s": q.slo.tpot_s, "attainment": q.slo.attainment}),
            )
        }
    }
}

/// `plan.lengths`: the plan states the workload's longest prompt
/// and completion, which every record's token counts must stay within.
///
/// A plan that states neither (as older plans do) leaves the
/// token counts unbounded: not checked for want of evidence, failed under
/// `--require-all`. A plan that states one and not the other fails.
pub fn lengths_check(
    plan: &BenchmarkPlan,
    path: &str,
) -> (Check, Result<Option<Lengths>, &'static str>) {
    let id = "plan.lengths";
    match (plan.max_input_tokens, plan.max_output_tokens) {
        (Some(i), Some(o)) => (
            Check::pass(
                id,
                format!("{path}: at most {i} input and {o} output tokens per request"),
            ),
            Ok(Some(Lengths {
                max_input_tokens: i,
                max_output_tokens: o,
            })),
        ),
        (None, None) => (
            Check::not_checked(
                id,
                Reason::NoEvidence,
                format!(
                    "{path} names no max_input_tokens and max_output_tokens (a plan written before these fields were defined): the records' token counts are bounded by nothing the plan states; state the longest prompt and the max_tokens the client sent"
                ),
            )
            .marked(Mark::TokenBound)
            .or_fail(lengths_missing(path, ["max_input_tokens", "max_output_tokens"].as_slice())),
            Ok(None),
        ),
        (i, o) => {
            let missing: Vec<&str> = [("max_input_tokens", i), ("max_output_tokens", o)]
                .into_iter()
                .filter(|(_, v)| v.is_none())
                .map(|(k, _)| k)
                .collect();
            (Check::fail(id, lengths_missing(path, &missing)), Err(id))
        }
    }
}

/// Why a plan that names `missing` of the workload's lengths fails.
fn lengths_missing(path: &str, missing: &[&str]) -> String {
    format!(
                        "{path} names no {}: without the workload's lengths a record's token counts bound nothing (output_tokens 1000000000 on every request would give a billion tokens/s); state the longest prompt and the max_tokens the client sent{}",
                        missing.join(" and "),
        if missing.len() == 2 { " (--require-all)" } else { "" }
    )
}

/// `qualification.plan`, `plan.points`, `plan.slo`, `plan.lengths`. Returns
/// what the later checks take from the plan.
pub fn plan_checks(report: &mut Report, run: &Run<'_>) -> PlanFacts {
    let q = run.q();
    let id = "qualification.plan";
    let unread = PlanFacts {
        arrival: Arrival::Poisson,
        lengths: Err(id),
    };
    let Some(path) = &run.plan.plan_file else {
        report.push(Check::fail(
            id,
            "qualification.json names no benchmark plan (\"plan\"): without it the request, warmup and rate counts are only the publisher's own declaration; name the plan the benchmark client ran, e.g. \"plan\": \"inputs/benchmark-plan.json\"",
        ));
        for n in PLAN_CHECKS {
            report.push(Check::not_checkable_by(
                n,
                id,
                "no benchmark plan is named (see qualification.plan)",
            ));
        }
        return unread;
    };
    match run
        .small_file(path)
        .and_then(|bytes| BenchmarkPlan::parse(bytes, path))
    {
        Err(why) => {
            report.push(Check::fail(id, why));
            for n in PLAN_CHECKS {
                report.push(Check::not_checkable_by(
                    n,
                    id,
                    format!("the benchmark plan {path} cannot be read (see qualification.plan)"),
                ));
            }
            unread
        }
        Ok(bp) => {
            report.push(Check::pass(
                id,
                format!(
                    "{path}: {} point(s), {} arrivals",
                    bp.points.len(),
                    bp.arrival.describe()
                ),
            ));
            report.push(points_check(q, &bp, path));
            report.push(slo_check(q, &bp, path));
            let (check, lengths) = lengths_check(&bp, path);
            report.push(check);
            // A plan that names no lengths fails where every check is
            // required: the token checks then hang on it.
            let failed = report.checks().last().is_some_and(|c| c.failed());
            let lengths = match lengths {
                Ok(None) if failed => Err("plan.lengths"),
                l => l,
            };
            PlanFacts {
                arrival: bp.arrival,
                lengths,
            }
        }
    }
}

/// The checks of the plan's contents, in report order.
const PLAN_CHECKS: [&str; 3] = ["plan.points", "plan.slo", "plan.lengths"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_tolerance_shrinks_with_more_requests() {
        assert!((rate_tolerance(Arrival::Poisson, 200) - 4.0 / 199f64.sqrt()).abs() < 1e-12);
        assert!(rate_tolerance(Arrival::Poisson, 100_000) < 0.013);
        assert_eq!(rate_tolerance(Arrival::Constant, 200), RATE_FLOOR);
        assert!(
            rate_tolerance(Arrival::Gamma { burstiness: 0.25 }, 200)
                > rate_tolerance(Arrival::Poisson, 200)
        );
    }
}
