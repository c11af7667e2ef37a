//! The measured-points table, recomputed, as `verify` prints it for a
//! reader (the Markdown table to paste into a publication is the one
//! `publish` writes, `adopt::publish::measured_markdown`). Failed,
//! timed-out and cancelled requests are always shown: a table that hides
//! failures is not the evidence.

pub use crate::run::metrics::PointRow;

/// Column headers, in the published order.
pub const HEADERS: [&str; 11] = [
    "Offered rate (req/s)",
    "Sent rate (req/s)",
    "Completed rate (req/s)",
    "Output throughput (tok/s)",
    "TTFT p50 (s)",
    "TTFT p95 (s)",
    "TTFT p99 (s)",
    "TPOT p50 (ms)",
    "TPOT p95 (ms)",
    "TPOT p99 (ms)",
    "Result",
];

fn num(v: Option<f64>, decimals: usize) -> String {
    v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.decimals$}"))
}

/// The result cell: "200/200 within limits", plus failures if any.
pub fn result_cell(r: &PointRow) -> String {
    let m = &r.metrics;
    let mut s = format!("{}/{} within limits", m.within_limits, r.requests);
    let mut bad = Vec::new();
    if m.errors > 0 {
        bad.push(format!("{} failed", m.errors));
    }
    if m.timeouts > 0 {
        bad.push(format!("{} timed out", m.timeouts));
    }
    if m.cancelled > 0 {
        bad.push(format!("{} cancelled", m.cancelled));
    }
    if bad.is_empty() {
        s.push_str(", 0 failed");
    } else {
        s.push_str(&format!(", {}", bad.join(", ")));
    }
    s
}

/// The cells of one row.
pub fn cells(r: &PointRow) -> Vec<String> {
    let m = &r.metrics;
    vec![
        format!("{}", r.offered_rate),
        num(r.measured_rate, 3),
        num(m.completed_rate, 3),
        num(m.output_throughput, 1),
        num(m.ttft_s[0], 3),
        num(m.ttft_s[1], 3),
        num(m.ttft_s[2], 3),
        num(m.tpot_ms[0], 1),
        num(m.tpot_ms[1], 1),
        num(m.tpot_ms[2], 1),
        result_cell(r),
    ]
}

/// Plain-text table with aligned columns.
pub fn render_text(rows: &[PointRow]) -> String {
    let body: Vec<Vec<String>> = rows.iter().map(cells).collect();
    let mut widths: Vec<usize> = HEADERS.iter().map(|h| h.len()).collect();
    for row in &body {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let line = |cells: Vec<&str>, out: &mut String| {
        let parts: Vec<String> = cells
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (c, w))| {
                if i + 1 == widths.len() {
                    c.to_string()
                } else {
                    format!("{c:>w$}")
                }
            })
            .collect();
        out.push_str(parts.join("  ").trim_end());
        out.push('\n');
    };
    line(HEADERS.to_vec(), &mut out);
    for row in &body {
        line(row.iter().map(String::as_str).collect(), &mut out);
    }
    out
}
