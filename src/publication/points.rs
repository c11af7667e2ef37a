//! The measured-points rows: every header cell read by the column grammar
//! ([`grammar::header`]), every cell consumed completely (`<num> <unit>`,
//! or `a / b / c <unit>` for a percentile list, the unit in the cell or the
//! header's parentheses; the result form), one row per offered rate (or,
//! in a table with a `Point` column, per point name) across every
//! measured-points table, and no (point, column) published twice.

use std::collections::HashMap;
use std::sync::Arc;

use super::document::Table;
use super::grammar::{self, ColumnKind, Dim, Header, Qualifier, Slot};
use super::types::{Cell, CellValue, Metric, Per, PointRow, PublicationError};
use super::values::Decimal;

fn per(q: Option<Qualifier>) -> Per {
    match q {
        Some(Qualifier::PerGpu) => Per::Gpu,
        Some(Qualifier::PerEngine) => Per::Engine,
        _ => Per::Fleet,
    }
}

fn metrics(h: &Header) -> Vec<Metric> {
    match h.kind {
        ColumnKind::SentRate => vec![Metric::SentRate],
        ColumnKind::CompletedRate => vec![Metric::CompletedRate(per(h.qualifier))],
        ColumnKind::OutputThroughput => vec![Metric::OutputThroughput(per(h.qualifier))],
        ColumnKind::Ttft => h.percentiles.iter().map(|p| Metric::Ttft(*p)).collect(),
        ColumnKind::Tpot => h.percentiles.iter().map(|p| Metric::Tpot(*p)).collect(),
        ColumnKind::Point | ColumnKind::Offered | ColumnKind::Result => Vec::new(),
    }
}

/// The factor from `dim` to the metric's canonical unit, if it fits.
fn factor(metric: Metric, dim: Dim) -> Option<f64> {
    match (metric, dim) {
        (Metric::SentRate | Metric::CompletedRate(_), Dim::Rate) => Some(1.0),
        (Metric::OutputThroughput(_), Dim::Tokens) => Some(1.0),
        (Metric::Ttft(_), Dim::Seconds) => Some(1.0),
        (Metric::Ttft(_), Dim::Millis) => Some(0.001),
        (Metric::Tpot(_), Dim::Seconds) => Some(1000.0),
        (Metric::Tpot(_), Dim::Millis) => Some(1.0),
        _ => None,
    }
}

/// Splits "5.258 / 7.298 / 7.407 s" into its numbers and its unit.
type Numbers = (Vec<Decimal>, Option<(String, Dim)>);

fn numbers(cell: &str, n: usize) -> Result<Numbers, String> {
    // Only a percentile list (times: s or ms) is `/`-separated; a single
    // value keeps its unit whole ("request/s").
    let pieces: Vec<&str> = if n > 1 {
        cell.split('/').map(str::trim).collect()
    } else {
        vec![cell.trim()]
    };
    if pieces.len() != n {
        return Err(format!(
            "{} value(s) where the header names {n}",
            pieces.len()
        ));
    }
    let mut out = Vec::new();
    let mut unit = None;
    for (i, p) in pieces.iter().enumerate() {
        let mut w = p.split(' ');
        let num = w.next().unwrap_or("");
        let rest: Vec<&str> = w.collect();
        let d = Decimal::parse(num).ok_or_else(|| {
            grammar::abbreviated(num).unwrap_or_else(|| format!("{num:?} is not a number"))
        })?;
        if !rest.is_empty() {
            let u = rest.join(" ");
            if i + 1 != pieces.len() {
                return Err("a unit only after the last value".into());
            }
            let dim = grammar::unit(&u).ok_or_else(|| {
                format!("{u:?} is not understood: a cell holds the number and its unit (request/s, tokens/s, s, ms) only")
            })?;
            unit = Some((u, dim));
        }
        out.push(d);
    }
    Ok((out, unit))
}

fn result_cell(cell: &str) -> Result<CellValue, String> {
    let (lead, parts) = grammar::read_parts(cell, grammar::RESULT_FIRST, grammar::RESULT_FORMS)?;
    let lead = lead.unwrap_or_default();
    let n = |s: &Slot| match s {
        Slot::Num(d) => d.as_u64().unwrap_or(0),
        _ => 0,
    };
    let part = |k: usize| parts.iter().find(|p| p.form == k).map(|p| n(&p.slots[0]));
    Ok(CellValue::Result {
        within: n(&lead[0]),
        of: n(&lead[1]),
        failed: part(0),
        timed_out: part(1),
        cancelled: part(2),
    })
}

fn offered(cell: &str, unit: Option<&(String, Dim)>) -> Result<Decimal, String> {
    let (d, u) = numbers(cell, 1)?;
    match u.as_ref().or(unit) {
        Some((_, Dim::Rate)) => Ok(d[0].clone()),
        Some((u, _)) => Err(format!("{u:?} is not a rate (request/s)")),
        None => Err("no unit (request/s) in the cell or the header".into()),
    }
}

/// A `Point` cell: the name of the row's point, never empty.
fn point_name(cell: &str) -> Result<String, String> {
    if cell.is_empty() {
        return Err("the cell is empty: a point column names the run's point of each row".into());
    }
    Ok(cell.to_string())
}

/// A measured-points table's header cells, read, and the index of its
/// offered-rate column.
fn table_headers(t: &Table, origin: &str) -> Result<(Vec<Header>, usize), PublicationError> {
    let mut headers = Vec::new();
    for h in &t.header {
        headers.push(
            grammar::header(&h.text).map_err(|reason| PublicationError::BadHeader {
                origin: origin.into(),
                line: t.line,
                header: h.text.clone(),
                reason,
            })?,
        );
    }
    let Some(oi) = headers.iter().position(|h| h.kind == ColumnKind::Offered) else {
        return Err(PublicationError::BadHeader {
            origin: origin.into(),
            line: t.line,
            header: t.header.iter().map(|c| c.text.as_str()).collect::<Vec<_>>().join(" | "),
            reason: "a measured-points table needs an \"Offered rate\" column to say which point each row is".into(),
        });
    };
    Ok((headers, oi))
}

pub(super) fn point_rows(
    tables: &[&Table],
    origin: &str,
) -> Result<Vec<PointRow>, PublicationError> {
    let mut out: Vec<PointRow> = Vec::new();
    let mut by_rate: HashMap<String, usize> = HashMap::new();
    for t in tables {
        // One shared copy of each header's text for the cells of its column.
        let columns: Vec<Arc<str>> = t
            .header
            .iter()
            .map(|h| Arc::from(h.text.as_str()))
            .collect();
        let (headers, oi) = table_headers(t, origin)?;
        let pi = headers.iter().position(|h| h.kind == ColumnKind::Point);
        for row in &t.rows {
            let bad = |column: &str, cell: &str, reason: String| PublicationError::BadCell {
                origin: origin.into(),
                line: row.line,
                column: column.into(),
                cell: cell.into(),
                reason,
            };
            let text = |i: usize| row.cells.get(i).map_or("", |c| c.text.as_str());
            let oh = &t.header[oi].text;
            let rate = offered(text(oi), headers[oi].unit.as_ref()).map_err(|e| {
                let hint = if row.cells.iter().skip(1).all(|c| c.text.is_empty()) {
                    " (a line right after a table is one more row of it, as GitHub shows it: put a blank line between a table and the prose after it)"
                } else {
                    ""
                };
                bad(oh, text(oi), format!("{e}{hint}"))
            })?;
            let point = match pi {
                Some(pi) => Some(point_name(text(pi)).map_err(|e| bad(&t.header[pi].text, "", e))?),
                None => None,
            };
            let key = match &point {
                Some(name) => format!("point {name}"),
                None => format!("rate {}", rate.value),
            };
            let at = match by_rate.get(&key) {
                Some(i) => *i,
                None => {
                    out.push(PointRow {
                        line: row.line,
                        offered: rate.clone(),
                        point: point.clone(),
                        cells: Vec::new(),
                    });
                    by_rate.insert(key.clone(), out.len() - 1);
                    out.len() - 1
                }
            };
            if out[at].point.is_some() && out[at].offered.value != rate.value {
                return Err(bad(
                    oh,
                    text(oi),
                    format!(
                        "point {:?} is published at offered rate {} at line {}",
                        point.unwrap_or_default(),
                        out[at].offered.text,
                        out[at].line
                    ),
                ));
            }
            for (i, h) in headers.iter().enumerate() {
                if i == oi || Some(i) == pi {
                    continue;
                }
                let column = &columns[i];
                let cell = text(i);
                if cell.is_empty() {
                    return Err(bad(
                        column,
                        cell,
                        "the cell is empty: a measured-points table states every value of its row"
                            .into(),
                    ));
                }
                let mut new = Vec::new();
                if h.kind == ColumnKind::Result {
                    new.push(Cell {
                        column: Arc::clone(column),
                        line: row.line,
                        value: result_cell(cell).map_err(|e| bad(column, cell, e))?,
                    });
                } else {
                    let ms = metrics(h);
                    let (nums, unit) = numbers(cell, ms.len()).map_err(|e| bad(column, cell, e))?;
                    let (u, dim) = unit.or_else(|| h.unit.clone()).ok_or_else(|| {
                        bad(
                            column,
                            cell,
                            "no unit (request/s, tokens/s, s or ms) in the cell or the header"
                                .into(),
                        )
                    })?;
                    let u: Arc<str> = Arc::from(u);
                    for (m, value) in ms.into_iter().zip(nums) {
                        let f = factor(m, dim).ok_or_else(|| {
                            bad(column, cell, format!("unit {u:?} does not fit this column"))
                        })?;
                        new.push(Cell {
                            column: Arc::clone(column),
                            line: row.line,
                            value: CellValue::Number {
                                metric: m,
                                value,
                                factor: f,
                                unit: Arc::clone(&u),
                            },
                        });
                    }
                }
                // A rate states each value once: at most one cell per
                // metric and one result, so this scan is over a closed
                // set of at most 20 cells, not over the table.
                out[at].cells.reserve_exact(new.len());
                for c in new {
                    let states = c.states();
                    if let Some(prev) = out[at].cells.iter().find(|p| p.states() == states) {
                        return Err(bad(
                            column,
                            cell,
                            format!(
                                "the same value ({}, {}) is already published at line {}",
                                match &out[at].point {
                                    Some(n) => format!("point {n:?}, offered rate {}", rate.text),
                                    None => format!("offered rate {}", rate.text),
                                },
                                c.key(),
                                prev.line
                            ),
                        ));
                    }
                    out[at].cells.push(c);
                }
            }
        }
    }
    Ok(out)
}
