//! The write-up itself, for the page (v1.1): every rendered block of the
//! publication in order, from the same parse the checks read, with each
//! statement of its prose and each cell of the tables proofpack reads
//! joined to the outcome of the checks about it. The page draws it first,
//! every claim marked pass, fail (with the recomputed value) or not
//! checked, each linked to its check; its text is the write-up's rendered
//! text, so nothing of the publication is left off the page.

use serde_json::{json, Value};

use crate::publication::document::{Block, ProseKind};
use crate::publication::Publication;
use crate::report::Report;

/// The outcome of the checks with ids `ids`: any failed, `false`; all
/// passed, `true`; else `null` (not checked).
fn outcome(report: &Report, ids: &[String]) -> Value {
    let cs: Vec<_> = report
        .checks()
        .iter()
        .filter(|c| ids.contains(&c.id))
        .collect();
    if cs.iter().any(|c| c.failed()) {
        json!(false)
    } else if !cs.is_empty() && cs.iter().all(|c| c.passed()) {
        json!(true)
    } else {
        Value::Null
    }
}

/// The ids of every check whose id is `id` or starts with `id.`.
fn family(report: &Report, id: &str) -> Vec<String> {
    let dot = format!("{id}.");
    report
        .checks()
        .iter()
        .filter(|c| c.id == id || c.id.starts_with(&dot))
        .map(|c| c.id.clone())
        .collect()
}

/// A marked piece of text: its checks, their outcome and, when one
/// failed, what the evidence gives.
fn mark(report: &Report, text: &str, ids: Vec<String>) -> Value {
    let ok = outcome(report, &ids);
    let found: Vec<Value> = report
        .checks()
        .iter()
        .filter(|c| c.failed() && ids.contains(&c.id))
        .filter_map(|c| c.actual.clone())
        .collect();
    json!({"text": text, "checks": ids, "ok": ok, "found": found})
}

/// The write-up's blocks with their marks.
pub fn writeup(report: &Report, p: &Publication) -> Value {
    let mut blocks = Vec::new();
    for (bi, b) in p.document.blocks.iter().enumerate() {
        match b {
            Block::Prose(pr) => {
                let mut segs = Vec::new();
                let mut at = 0;
                for s in p.statements.iter().filter(|s| s.block == bi) {
                    let (from, to) = s.span;
                    if from < at || to > pr.text.len() {
                        continue;
                    }
                    if from > at {
                        segs.push(json!({"text": &pr.text[at..from]}));
                    }
                    let id = crate::qualify::published::statement_check_id(s);
                    segs.push(mark(report, &pr.text[from..to], vec![id]));
                    at = to;
                }
                if at < pr.text.len() {
                    segs.push(json!({"text": &pr.text[at..]}));
                }
                let kind = match pr.kind {
                    ProseKind::Paragraph => {
                        json!({"kind": "p", "item": pr.in_list_item, "quote": pr.in_quote})
                    }
                    ProseKind::Heading(l) => json!({"kind": "h", "level": l}),
                    ProseKind::Code => json!({"kind": "code"}),
                    ProseKind::Rule => json!({"kind": "rule"}),
                };
                let mut v = kind;
                v["line"] = json!(pr.line);
                v["segments"] = json!(segs);
                blocks.push(v);
            }
            Block::Table(t) => {
                let pinned = p
                    .pinned
                    .first()
                    .is_some_and(|r| t.rows.iter().any(|row| row.line == r.line));
                let header: Vec<Value> = t.header.iter().map(|c| json!({"text": c.text})).collect();
                let rows: Vec<Value> = t
                    .rows
                    .iter()
                    .map(|row| {
                        let cells: Vec<Value> = row
                            .cells
                            .iter()
                            .enumerate()
                            .map(|(ci, c)| {
                                let ids = cell_checks(
                                    report,
                                    p,
                                    pinned,
                                    row.line,
                                    ci,
                                    &t.header[ci].text,
                                );
                                if ids.is_empty() {
                                    json!({"text": c.text})
                                } else {
                                    mark(report, &c.text, ids)
                                }
                            })
                            .collect();
                        json!(cells)
                    })
                    .collect();
                let mut v =
                    json!({"kind": "table", "line": t.line, "header": header, "rows": rows});
                if !pinned && !p.measured_tables.contains(&t.line) {
                    v["checks"] = json!([format!("publication:table:{}", t.line)]);
                    v["ok"] = outcome(report, &[format!("publication:table:{}", t.line)]);
                }
                blocks.push(v);
            }
        }
    }
    json!(blocks)
}

/// The checks about one cell: a pinned row's value (column 1) has every
/// check of its row; a measured cell the checks of its rate and column.
fn cell_checks(
    report: &Report,
    p: &Publication,
    pinned: bool,
    line: usize,
    col: usize,
    header: &str,
) -> Vec<String> {
    if pinned {
        if col != 1 {
            return Vec::new();
        }
        return p
            .pinned
            .iter()
            .find(|r| r.line == line)
            .map(|r| family(report, &format!("publication:pin:{}", r.slug)))
            .unwrap_or_default();
    }
    let mut ids = Vec::new();
    for row in &p.points {
        for c in row
            .cells
            .iter()
            .filter(|c| c.line == line && c.column == header)
        {
            ids.extend(family(
                report,
                &format!("publication:point:{}.{}", row.offered.text, c.key),
            ));
        }
    }
    let offered = header.to_ascii_lowercase().starts_with("offered");
    if ids.is_empty() && offered {
        if let Some(row) = p
            .points
            .iter()
            .find(|r| r.line == line || r.cells.iter().any(|c| c.line == line))
        {
            ids = family(
                report,
                &format!("publication:point:{}.offered_rate", row.offered.text),
            );
        }
    }
    ids
}
