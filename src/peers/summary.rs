//! The failed part of a peer result's verdict line.

/// "N of M checks (first ids, ...)": the failed part of a verdict line.
pub(crate) fn failed_checks(report: &crate::report::Report) -> String {
    let s = report.summary();
    let ids: Vec<&str> = report.failures().take(12).map(|c| c.id.as_str()).collect();
    format!(
        "{} of {} checks ({}{})",
        s.failed,
        s.passed + s.failed,
        ids.join(", "),
        if s.failed > 12 { ", ..." } else { "" }
    )
}
