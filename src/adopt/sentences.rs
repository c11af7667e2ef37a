//! The standard sentences `publish` writes beside its tables: the
//! within-limits totals, the warmups, the terminal requests of the client
//! and the journal, the plan's points and the launch checks, each in a
//! form contract section 9.6 reads. A sentence is written only when it
//! holds: every candidate is checked by `verify --publication` itself
//! before it is kept, so a write-up `publish` writes verifies by
//! construction.

use super::writeup::Statement;
use crate::publication::Publication;
use crate::verify;
use crate::verify::inputs::Inputs;
use crate::verify::verification::Verification;

fn list(rates: &[String]) -> String {
    match rates {
        [] => String::new(),
        [one] => one.clone(),
        [head @ .., last] => format!("{} and {last}", head.join(", ")),
    }
}

fn rate(r: f64) -> String {
    let s = format!("{r}");
    s.strip_suffix(".0").map_or(s.clone(), str::to_string)
}

/// The sentences the run may support, from its verification.
pub fn candidates(v: &Verification) -> Vec<Statement> {
    let Some(q) = &v.qualification else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if !v.rows.is_empty() && v.rows.len() == q.points.len() {
        let sum = |f: &dyn Fn(&crate::verify::outcome::table::PointRow) -> u64| {
            v.rows.iter().map(f).sum::<u64>()
        };
        out.push(Statement {
            stem: "All points completed ",
            text: format!(
                "All points completed {}/{} within limits, {} failed, {} timed out, {} cancelled.",
                sum(&|r| r.metrics.within_limits),
                sum(&|r| r.requests),
                sum(&|r| r.metrics.errors),
                sum(&|r| r.metrics.timeouts),
                sum(&|r| r.metrics.cancelled),
            ),
        });
    }
    let same = |f: &dyn Fn(&crate::run::qualification::Point) -> u64| {
        let first = q.points.first().map(f)?;
        q.points.iter().all(|p| f(p) == first).then_some(first)
    };
    if let Some(w) = same(&|p| p.warmup).filter(|w| *w > 0) {
        out.push(Statement {
            stem: "The table excludes ",
            text: format!(
                "The table excludes {w} completed warmup {} per point.",
                if w == 1 { "request" } else { "requests" }
            ),
        });
    }
    if let Some(n) = same(&|p| p.requests + p.warmup) {
        if q.points.iter().all(|p| p.journal.is_some()) {
            out.push(Statement {
                stem: "The client and the router journal each recorded ",
                text: format!(
                    "The client and the router journal each recorded {n} terminal requests including the warmups."
                ),
            });
        }
    }
    if q.plan.is_some() {
        if let Some(n) = same(&|p| p.requests) {
            let rates: Vec<String> = q.points.iter().map(|p| rate(p.offered_rate)).collect();
            out.push(Statement {
                stem: "The benchmark plan declares ordered ",
                text: format!(
                    "The benchmark plan declares ordered {} request/s points, {n} requests each.",
                    list(&rates)
                ),
            });
        }
    }
    if !q.host_checks.is_empty() {
        out.push(Statement {
            stem: "The launch checks confirmed ",
            text: "The launch checks confirmed every shard's recorded size and the model config hash on every engine.".into(),
        });
    }
    out
}

/// The candidates whose statement check passes when `write(candidates)`
/// is verified against the run at `inputs` (a candidate that does not
/// hold, or that no form reads, is left out).
pub fn holding(
    root: &std::path::Path,
    inputs: &Inputs<'_>,
    candidates: Vec<Statement>,
    write: impl Fn(&[Statement]) -> String,
) -> Vec<Statement> {
    if candidates.is_empty() {
        return candidates;
    }
    let text = write(&candidates);
    let Ok(p) = Publication::parse(&text, "PUBLICATION.md") else {
        return Vec::new();
    };
    let inputs = Inputs {
        publication: Some(&p),
        ..*inputs
    };
    let Ok(v) = verify::verify(root, &inputs, &crate::progress::NoProgress) else {
        return Vec::new();
    };
    let passed: Vec<&str> = v
        .report
        .checks()
        .iter()
        .filter(|c| c.id.starts_with("publication:statement:") && c.passed())
        .filter_map(|c| c.statement().and_then(|s| s["text"].as_str()))
        .collect();
    candidates
        .into_iter()
        .filter(|s| passed.contains(&s.text.as_str()))
        .collect()
}
