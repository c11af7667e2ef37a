//! What the run holds beyond what its points declare: no request records
//! outside the declared points (`run.undeclared`), and the files read whole
//! within their limits (`run.limit:captured_bytes`).

use crate::report::Check;
use crate::run::records;
use crate::verify::evidence::collector;
use crate::verify::evidence::collector::Collected;
use crate::verify::evidence::context::Run;

/// `run.limit:captured_bytes`: the files read whole stayed within their
/// limits.
pub fn captured_check(collected: &Collected) -> Check {
    let id = "run.limit:captured_bytes";
    if collected.too_large.is_empty() {
        Check::pass(
            id,
            format!(
                "within the limit ({} bytes of attestations and plan read whole, of {}; each at most {})",
                collected.captured_bytes,
                collector::MAX_CAPTURED_TOTAL,
                collector::MAX_CAPTURED
            ),
        )
    } else {
        let names: Vec<String> = collected
            .too_large
            .iter()
            .take(10)
            .map(|(p, why)| format!("{p} ({why})"))
            .collect();
        Check::fail(
            id,
            format!(
                "{} file(s) not read: {}{}",
                collected.too_large.len(),
                names.join("; "),
                if collected.too_large.len() > 10 {
                    "; ..."
                } else {
                    ""
                }
            ),
        )
    }
}

/// `run.undeclared`: no client records or journal events outside the
/// declared points.
pub fn undeclared_check(run: &Run<'_>) -> Check {
    let id = "run.undeclared";
    let collected = run.collected;
    let mut found = records::Problems::default();
    for (path, f) in &collected.undeclared {
        found.push(match &f.point {
            Some(point) => format!(
                "{path} holds request records (line {} names point {point:?}) but is no declared point's client records or journal",
                f.line
            ),
            None => format!(
                "{path}:{}: a line longer than {} bytes that begins like a request record, in no declared point's client records or journal",
                f.line,
                records::MAX_LINE
            ),
        });
    }
    let unnamed = collected.undeclared_files - collected.undeclared.len() as u64;
    if unnamed > 0 {
        found.push(format!("{unnamed} more such file(s)"));
    }
    for (path, j) in &collected.journals {
        for (point, (events, line)) in &j.undeclared {
            found.push(format!(
                "{path}: {events} event(s) of point {point:?} (the first at line {line}), which is not a declared point reading this journal"
            ));
        }
    }
    if found.is_empty() {
        Check::pass(
            id,
            format!(
                "every request record of the run belongs to one of the {} declared point(s)",
                run.q().points.len()
            ),
        )
    } else {
        Check::fail(
            id,
            format!(
                "{} record(s) or file(s) of points that qualification.json does not declare: evidence left out of the table: {}",
                found.count,
                found.summary()
            ),
        )
    }
}
