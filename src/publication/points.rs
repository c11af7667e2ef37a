//! The measured-points rows: each column known by its header (offered
//! rate, TTFT/TPOT percentiles, rates, throughput, result), numbers read
//! with their unit from the cell or the header, and one row per offered
//! rate.

use super::find::{overlong, MEASURED};
use super::markdown::RawTable;
use super::{slug, values, Cell, CellValue, Decimal, Metric, PointRow, PublicationError};

/// Which column a header names.
#[derive(Debug, Clone, PartialEq)]
enum Column {
    Offered,
    Number(Vec<Metric>),
    Result,
    Other,
}

fn column(header: &str) -> Column {
    let h = header.to_ascii_lowercase();
    let percentiles = |mk: fn(u8) -> Metric| -> Vec<Metric> {
        let mut v = Vec::new();
        for p in [50u8, 90, 95, 99] {
            if h.contains(&format!("p{p}")) {
                v.push(mk(p));
            }
        }
        v
    };
    if h.contains("offered") {
        Column::Offered
    } else if h.contains("ttft") {
        Column::Number(percentiles(Metric::Ttft))
    } else if h.contains("tpot") {
        Column::Number(percentiles(Metric::Tpot))
    } else if h.contains("completed") {
        Column::Number(vec![Metric::CompletedRate])
    } else if h.contains("throughput") {
        Column::Number(vec![Metric::OutputThroughput])
    } else if h.contains("sent") && h.contains("rate") {
        Column::Number(vec![Metric::SentRate])
    } else if h.contains("result") {
        Column::Result
    } else {
        Column::Other
    }
}

/// The unit in a header's parentheses ("TTFT p50 (s)").
fn header_unit(header: &str) -> Option<String> {
    let open = header.rfind('(')?;
    let close = header[open..].find(')')? + open;
    Some(header[open + 1..close].trim().to_string())
}

/// The factor from `unit` to the metric's canonical unit, if it fits.
fn unit_factor(metric: Metric, unit: &str) -> Result<f64, String> {
    let u = unit.trim().to_ascii_lowercase();
    let rate = matches!(u.as_str(), "request/s" | "requests/s" | "req/s" | "rps");
    let tokens = matches!(u.as_str(), "tokens/s" | "token/s" | "tok/s");
    let secs = matches!(u.as_str(), "s" | "sec" | "seconds");
    let ms = u == "ms";
    if !(rate || tokens || secs || ms) {
        return Err(format!(
            "unknown unit {unit:?} (known: request/s, tokens/s, s, ms)"
        ));
    }
    let ok = match metric {
        Metric::SentRate | Metric::CompletedRate => rate.then_some(1.0),
        Metric::OutputThroughput => tokens.then_some(1.0),
        Metric::Ttft(_) => (secs || ms).then_some(if ms { 0.001 } else { 1.0 }),
        Metric::Tpot(_) => (secs || ms).then_some(if ms { 1.0 } else { 1000.0 }),
    };
    ok.ok_or(format!("unit {unit:?} does not fit this column"))
}

/// Splits "5.258 / 7.298 / 7.407 s" into the numbers and the unit.
fn numbers_and_unit(cell: &str, n: usize) -> Result<(Vec<String>, Option<String>), String> {
    let parts: Vec<&str> = if n > 1 {
        cell.split(" / ").map(str::trim).collect()
    } else {
        vec![cell.trim()]
    };
    if parts.len() != n {
        return Err(format!(
            "{} value(s) where the header names {n}",
            parts.len()
        ));
    }
    let mut nums = Vec::new();
    let mut unit = None;
    for (i, p) in parts.iter().enumerate() {
        let mut w = p.split_whitespace();
        let num = w.next().unwrap_or("").to_string();
        let rest: Vec<&str> = w.collect();
        if !rest.is_empty() {
            if i + 1 != parts.len() && n > 1 {
                return Err("a unit only after the last value".into());
            }
            unit = Some(rest.join(" "));
        }
        nums.push(num);
    }
    Ok((nums, unit))
}

fn result_cell(cell: &str) -> Result<CellValue, String> {
    let lc = cell.to_ascii_lowercase();
    let first = lc.split_whitespace().next().unwrap_or("");
    let (w, of) = first
        .split_once('/')
        .ok_or("expected \"<n>/<m> within limits\"")?;
    let num = |s: &str| -> Result<u64, String> {
        Decimal::parse(s)
            .and_then(|d| d.as_u64())
            .ok_or(format!("{s:?} is not a whole number"))
    };
    if !lc.contains("within limits") {
        return Err("expected \"<n>/<m> within limits\"".into());
    }
    let before = |word: &str| -> Result<Option<u64>, String> {
        values::number_before(&lc, word)
            .map(|d| {
                d.as_u64()
                    .ok_or(format!("the {word} count is not a whole number"))
            })
            .transpose()
    };
    Ok(CellValue::Result {
        within: num(w)?,
        of: num(of)?,
        failed: before("failed")?,
        timed_out: before("timed")?,
        cancelled: before("cancelled")?,
    })
}

pub(super) fn point_rows(t: &RawTable, origin: &str) -> Result<Vec<PointRow>, PublicationError> {
    overlong(t, origin, MEASURED)?;
    let columns: Vec<Column> = t.header.iter().map(|h| column(h)).collect();
    let Some(offered_at) = columns.iter().position(|c| *c == Column::Offered) else {
        return Err(PublicationError::MissingColumn {
            origin: origin.into(),
            what: MEASURED,
            line: t.line,
            column: "offered rate",
            header: t.header.clone(),
        });
    };
    for (h, c) in t.header.iter().zip(&columns) {
        if matches!(c, Column::Number(v) if v.is_empty()) {
            return Err(PublicationError::MissingColumn {
                origin: origin.into(),
                what: MEASURED,
                line: t.line,
                column: "percentile (p50, p95, p99) in a TTFT/TPOT",
                header: vec![h.clone()],
            });
        }
    }
    let mut out = Vec::new();
    for (line, cells) in &t.rows {
        if cells.iter().all(|c| c.is_empty()) {
            continue;
        }
        let bad = |column: &str, cell: &str, reason: String| PublicationError::BadCell {
            origin: origin.into(),
            line: *line,
            column: column.into(),
            cell: cell.into(),
            reason,
        };
        if cells.len() < t.header.len() || cells.iter().take(t.header.len()).any(|c| c.is_empty()) {
            let missing = t
                .header
                .iter()
                .enumerate()
                .find(|(i, _)| cells.get(*i).is_none_or(|c| c.is_empty()))
                .map(|(_, h)| h.clone())
                .unwrap_or_default();
            return Err(bad(&missing, "", "the cell is empty or missing".into()));
        }
        let oh = &t.header[offered_at];
        let ocell = &cells[offered_at];
        let (nums, unit) = numbers_and_unit(ocell, 1).map_err(|e| bad(oh, ocell, e))?;
        let offered =
            Decimal::parse(&nums[0]).ok_or_else(|| bad(oh, ocell, "not a number".into()))?;
        if let Some(u) = unit.or_else(|| header_unit(oh)) {
            unit_factor(Metric::CompletedRate, &u).map_err(|e| bad(oh, ocell, e))?;
        }
        let mut row = PointRow {
            line: *line,
            offered,
            cells: Vec::new(),
        };
        for (i, (h, c)) in t.header.iter().zip(&columns).enumerate() {
            let cell = &cells[i];
            match c {
                Column::Offered => {}
                Column::Result => row.cells.push(Cell {
                    column: h.clone(),
                    key: "result".into(),
                    value: result_cell(cell).map_err(|e| bad(h, cell, e))?,
                }),
                Column::Other => row.cells.push(Cell {
                    column: h.clone(),
                    key: slug(h),
                    value: CellValue::Unmapped(cell.clone()),
                }),
                Column::Number(metrics) => {
                    let (nums, unit) =
                        numbers_and_unit(cell, metrics.len()).map_err(|e| bad(h, cell, e))?;
                    let unit = unit.or_else(|| header_unit(h)).ok_or_else(|| {
                        bad(
                            h,
                            cell,
                            "no unit (request/s, tokens/s, s or ms) in the cell or the header"
                                .into(),
                        )
                    })?;
                    for (m, n) in metrics.iter().zip(nums) {
                        let value = Decimal::parse(&n)
                            .ok_or_else(|| bad(h, cell, format!("{n:?} is not a number")))?;
                        let factor = unit_factor(*m, &unit).map_err(|e| bad(h, cell, e))?;
                        row.cells.push(Cell {
                            column: h.clone(),
                            key: m.key(),
                            value: CellValue::Number {
                                metric: *m,
                                value,
                                factor,
                                unit: unit.clone(),
                            },
                        });
                    }
                }
            }
        }
        if let Some(prev) = out
            .iter()
            .find(|r: &&PointRow| r.offered.value == row.offered.value)
        {
            return Err(bad(
                oh,
                ocell,
                format!(
                    "the same offered rate is already published at line {}",
                    prev.line
                ),
            ));
        }
        out.push(row);
    }
    Ok(out)
}
