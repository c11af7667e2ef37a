//! The write-up itself, for the page: every rendered block of the
//! publication in order, from the same parse the checks read, with each
//! statement of its prose and each cell of the tables proofpack reads
//! joined to the outcome of the checks about it. The page draws it first,
//! every claim marked pass, fail (with the recomputed value) or not
//! checked, each linked to its check; its text is the write-up's rendered
//! text, so nothing of the publication is left off the page.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::publication::document::{Block, ProseKind};
use crate::publication::Publication;
use crate::report::page::{self, Mark, Segment, Text};
use crate::report::{Check, Report};
use serde_json::Value;

/// The report's checks by id, sorted, so that a check and its family are
/// found by a search rather than a scan (a write-up may hold tens of
/// thousands of cells, each marked on the page). Every answer is in the
/// report's order, as a scan of the report would give it.
struct Index<'r> {
    checks: &'r [Check],
    /// id -> the positions of the checks with that id.
    by_id: BTreeMap<&'r str, Vec<usize>>,
}

impl<'r> Index<'r> {
    fn new(report: &'r Report) -> Index<'r> {
        let mut by_id: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, c) in report.checks().iter().enumerate() {
            by_id.entry(c.id.as_str()).or_default().push(i);
        }
        Index {
            checks: report.checks(),
            by_id,
        }
    }

    /// The checks whose id is one of `ids`, each once, in report order.
    fn checks(&self, ids: &[String]) -> Vec<&'r Check> {
        let unique: HashSet<&str> = ids.iter().map(String::as_str).collect();
        let mut at: Vec<usize> = unique
            .into_iter()
            .filter_map(|id| self.by_id.get(id))
            .flatten()
            .copied()
            .collect();
        at.sort_unstable();
        at.into_iter().map(|i| &self.checks[i]).collect()
    }

    /// The outcome of the checks with ids `ids`: any failed, `false`; all
    /// passed, `true`; else `None` (not checked).
    fn outcome(&self, ids: &[String]) -> Option<bool> {
        let cs = self.checks(ids);
        if cs.iter().any(|c| c.failed()) {
            Some(false)
        } else if !cs.is_empty() && cs.iter().all(|c| c.passed()) {
            Some(true)
        } else {
            None
        }
    }

    /// The ids of every check whose id is `id` or starts with `id.`, one
    /// per check, in report order (the ids that start with `id` are
    /// adjacent in the sorted index).
    fn family(&self, id: &str) -> Vec<String> {
        let mut at: Vec<usize> = self
            .by_id
            .range(id..)
            .take_while(|(k, _)| k.starts_with(id))
            .filter(|(k, _)| k.len() == id.len() || k[id.len()..].starts_with('.'))
            .flat_map(|(_, v)| v.iter().copied())
            .collect();
        at.sort_unstable();
        at.into_iter().map(|i| self.checks[i].id.clone()).collect()
    }

    /// A marked piece of text: its checks, their outcome and, when one
    /// failed, what the evidence gives.
    fn mark(&self, text: &str, ids: Vec<String>) -> Segment {
        let ok = self.outcome(&ids);
        let found = self
            .checks(&ids)
            .into_iter()
            .filter(|c| c.failed())
            .filter_map(|c| c.actual.as_ref().map(|a| found_label(&c.id, a)))
            .collect();
        let publisher = ok == Some(true)
            && self
                .checks(&ids)
                .iter()
                .any(|c| c.source() == Some("publisher"));
        Segment::Marked(Mark {
            checks: ids,
            found,
            ok,
            publisher,
            text: text.to_string(),
            parts: Vec::new(),
        })
    }
}

/// What the evidence gives for a failed check, labelled with what it is,
/// so that a cell of three numbers says which one failed and a second
/// value says it is the sealed claim: `TTFT p95, recomputed: 6.568698`,
/// `TTFT p95, the bundle's claim: 6.569`; an object of a statement as
/// `name value` pairs, never as raw JSON.
fn found_label(id: &str, actual: &Value) -> Value {
    let shown = match actual {
        Value::Object(m) => m
            .iter()
            .map(|(k, v)| format!("{k} {}", scalar(v)))
            .collect::<Vec<_>>()
            .join(", "),
        v => scalar(v),
    };
    let part = id.strip_prefix("publication:point:").and_then(|r| {
        let metrics = [
            "completed_rate",
            "output_throughput",
            "sent_rate",
            "ttft_s",
            "tpot_ms",
            "result",
        ];
        metrics
            .iter()
            .find_map(|m| r.find(&format!(".{m}")).map(|i| &r[i + 1..]))
    });
    let Some(part) = part else {
        return Value::from(shown);
    };
    let (metric, claim) = match part.strip_suffix(".sealed_claim") {
        Some(m) => (m, "the bundle's claim"),
        None => (part, "recomputed"),
    };
    let name = metric
        .replace("ttft_s.", "TTFT ")
        .replace("tpot_ms.", "TPOT ")
        .replace('_', " ");
    Value::from(format!("{name}, {claim}: {shown}"))
}

/// A JSON scalar as a reader writes it (a string without quotes).
fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(scalar).collect::<Vec<_>>().join(", "),
        v => v.to_string(),
    }
}

/// Text no check is about.
fn plain(text: &str) -> Segment {
    Segment::Plain(Text {
        text: text.to_string(),
    })
}

/// The write-up's blocks with their marks.
pub fn writeup(report: &Report, p: &Publication) -> Vec<page::Block> {
    let index = Index::new(report);
    let cells = CellIndex::new(p);
    let measured: HashSet<usize> = p.measured_tables.iter().copied().collect();
    // The statements are in block order: each block takes its own from
    // the front.
    let mut statements = p.statements.iter().peekable();
    let mut blocks = Vec::new();
    for (bi, b) in p.document.blocks.iter().enumerate() {
        while statements.next_if(|s| s.block < bi).is_some() {}
        match b {
            Block::Prose(pr) => {
                let mut segments = Vec::new();
                let mut at = 0;
                while let Some(s) = statements.next_if(|s| s.block == bi) {
                    let (from, to) = s.span;
                    if from < at || to > pr.text.len() {
                        continue;
                    }
                    if from > at {
                        segments.push(plain(&pr.text[at..from]));
                    }
                    let id = crate::verify::checks::published::statement_check_id(s);
                    segments.push(index.mark(&pr.text[from..to], vec![id]));
                    at = to;
                }
                if at < pr.text.len() {
                    segments.push(plain(&pr.text[at..]));
                }
                let line = pr.line;
                blocks.push(match pr.kind {
                    ProseKind::Paragraph => page::Block::Paragraph {
                        item: pr.in_list_item,
                        line,
                        quote: pr.in_quote,
                        segments,
                    },
                    ProseKind::Heading(level) => page::Block::Heading {
                        level,
                        line,
                        segments,
                    },
                    ProseKind::Code => page::Block::Code { line, segments },
                    ProseKind::Rule => page::Block::Rule { line, segments },
                });
            }
            Block::Table(t) => {
                let pinned = p
                    .pinned
                    .first()
                    .is_some_and(|r| t.rows.iter().any(|row| row.line == r.line));
                let header = t
                    .header
                    .iter()
                    .map(|c| Text {
                        text: c.text.clone(),
                    })
                    .collect();
                let rows = t
                    .rows
                    .iter()
                    .map(|row| {
                        row.cells
                            .iter()
                            .enumerate()
                            .map(|(ci, c)| {
                                let header = &t.header[ci].text;
                                let ids = cells.checks(&index, pinned, row.line, ci, header);
                                if ids.is_empty() {
                                    return plain(&c.text);
                                }
                                let mut m = index.mark(&c.text, ids);
                                if let Segment::Marked(mark) = &mut m {
                                    mark.parts = cells.numbers(&index, row.line, header, &c.text);
                                }
                                m
                            })
                            .collect()
                    })
                    .collect();
                let (checks, ok) = if !pinned && !measured.contains(&t.line) {
                    let id = format!("publication:table:{}", t.line);
                    let ok = index.outcome(std::slice::from_ref(&id));
                    (Some(vec![id]), ok)
                } else {
                    (None, None)
                };
                blocks.push(page::Block::Table {
                    checks,
                    header,
                    line: t.line,
                    ok,
                    rows,
                });
            }
        }
    }
    blocks
}

/// Where the checks of a table cell are found: the pinned rows by line,
/// the measured cells by line and column, the offered rates by line.
struct CellIndex<'p> {
    pinned: HashMap<usize, &'p str>,
    /// (line, column header) -> the check-id bases of the cell's values.
    measured: HashMap<(usize, &'p str), Vec<String>>,
    /// line -> the id part of the point row written there (its offered
    /// rate, and its name where a `Point` column gives it; the first, as a
    /// reader meets them).
    offered: HashMap<usize, String>,
}

impl<'p> CellIndex<'p> {
    fn new(p: &'p Publication) -> CellIndex<'p> {
        let mut pinned = HashMap::new();
        for r in &p.pinned {
            pinned.entry(r.line).or_insert(r.slug.as_str());
        }
        let mut measured: HashMap<(usize, &str), Vec<String>> = HashMap::new();
        let mut offered = HashMap::new();
        for row in &p.points {
            let key = row.key();
            offered.entry(row.line).or_insert_with(|| key.clone());
            for c in &row.cells {
                offered.entry(c.line).or_insert_with(|| key.clone());
                measured
                    .entry((c.line, &*c.column))
                    .or_default()
                    .push(format!("publication:point:{key}.{}", c.key()));
            }
        }
        CellIndex {
            pinned,
            measured,
            offered,
        }
    }

    /// A measured cell of several numbers (a percentile list), number by
    /// number: each marked with the checks of its own metric, the `/`
    /// and unit between them plain. Empty where the cell holds one value,
    /// or does not split into as many numbers as it has metrics.
    fn numbers(&self, index: &Index<'_>, line: usize, header: &str, text: &str) -> Vec<Segment> {
        let Some(bases) = self.measured.get(&(line, header)) else {
            return Vec::new();
        };
        let pieces: Vec<&str> = text.split('/').collect();
        if bases.len() < 2 || pieces.len() != bases.len() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (k, (piece, base)) in pieces.iter().zip(bases).enumerate() {
            if k > 0 {
                out.push(plain("/"));
            }
            let lead = &piece[..piece.len() - piece.trim_start().len()];
            let body = piece.trim_start();
            let end = body.find(char::is_whitespace).unwrap_or(body.len());
            if !lead.is_empty() {
                out.push(plain(lead));
            }
            out.push(index.mark(&body[..end], index.family(base)));
            if end < body.len() {
                out.push(plain(&body[end..]));
            }
        }
        out
    }

    /// The checks about one cell: a pinned row's value (column 1) has every
    /// check of its row; a measured cell the checks of its rate and column.
    fn checks(
        &self,
        index: &Index<'_>,
        pinned: bool,
        line: usize,
        col: usize,
        header: &str,
    ) -> Vec<String> {
        if pinned {
            if col != 1 {
                return Vec::new();
            }
            return self
                .pinned
                .get(&line)
                .map(|slug| index.family(&format!("publication:pin:{slug}")))
                .unwrap_or_default();
        }
        let mut ids = Vec::new();
        for base in self.measured.get(&(line, header)).into_iter().flatten() {
            ids.extend(index.family(base));
        }
        let h = header.to_ascii_lowercase();
        let offered = h.starts_with("offered") || h.trim() == "point";
        if ids.is_empty() && offered {
            if let Some(rate) = self.offered.get(&line) {
                ids = index.family(&format!("publication:point:{rate}.offered_rate"));
            }
        }
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the index answers equals a scan of the report, in the report's
    /// order, for ids that share prefixes with and without a dot.
    #[test]
    fn the_index_answers_as_a_scan_of_the_report() {
        let mut report = Report::new("t");
        for (id, ok) in [
            ("p:1.5.ttft_s.p99", true),
            ("p:1.5", true),
            ("p:1.50.result", false),
            ("p:1.5-x", true),
            ("p:1.5.result", false),
            ("p:1.5.ttft_s.p99.9", true),
            ("p:1.5", false),
            ("p:1", true),
        ] {
            report.push(if ok {
                Check::pass(id, "d")
            } else {
                Check::fail(id, "d")
            });
        }
        let index = Index::new(&report);
        let scan = |id: &str| -> Vec<String> {
            let dot = format!("{id}.");
            report
                .checks()
                .iter()
                .filter(|c| c.id == id || c.id.starts_with(&dot))
                .map(|c| c.id.clone())
                .collect()
        };
        for id in [
            "p:1.5",
            "p:1.5.ttft_s.p99",
            "p:1",
            "p:1.50",
            "p:2",
            "p:1.5.result",
        ] {
            assert_eq!(index.family(id), scan(id), "{id}");
        }
        assert_eq!(
            index.family("p:1.5"),
            [
                "p:1.5.ttft_s.p99",
                "p:1.5",
                "p:1.5.result",
                "p:1.5.ttft_s.p99.9",
                "p:1.5"
            ]
        );
        let ids = index.family("p:1.5.ttft_s.p99");
        assert_eq!(index.outcome(&ids), Some(true));
        assert_eq!(index.outcome(&index.family("p:1.5")), Some(false));
        assert_eq!(index.outcome(&["p:9".to_string()]), None);
        // Each check once, in report order, however often its id is named.
        let twice = vec!["p:1".to_string(), "p:1.5".to_string(), "p:1".to_string()];
        let got: Vec<&str> = index.checks(&twice).iter().map(|c| c.id.as_str()).collect();
        assert_eq!(got, ["p:1.5", "p:1.5", "p:1"]);
    }
}
