//! The write-up `publish` writes: plain GitHub-flavoured Markdown, two
//! pipe tables under the headings "Pinned inputs" and "Measured points"
//! in the layout `verify --publication` reads (contract section 9), full
//! numbers, no raw HTML, and standard sentences ([`Statement`]).
//!
//! With a template (an author's write-up), only the two tables and the
//! standard sentences are replaced, each where the template has it: a
//! table under its heading (the table below the heading, or a new one
//! right after the heading when there is none), a sentence in the
//! paragraph that begins with its stem (appended at the end when the
//! template has none). Every other line stays the author's, byte for byte.
//! A template without one of the two headings is refused.

use super::AdoptError;
use crate::publication::markdown::{parse, BlockKind};

/// A row of the pinned-inputs table.
#[derive(Debug, Clone, PartialEq)]
pub struct PinnedRow {
    /// The label (the first cell).
    pub label: String,
    /// The value (the second cell).
    pub value: String,
}

/// A row of the measured-points table (every cell as written).
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredRow {
    /// The point's name, written in a first `Point` column when any row
    /// has one (two points at one offered rate).
    pub point: Option<String>,
    /// "5 request/s".
    pub offered: String,
    /// "4.787 request/s".
    pub completed: String,
    /// "306.4 tokens/s".
    pub throughput: String,
    /// "0.04797 / 0.05390 / 0.06551 s".
    pub ttft: String,
    /// "13.69 / 14.20 / 14.38 ms".
    pub tpot: String,
    /// "100/100 within limits".
    pub result: String,
}

/// A standard sentence of the write-up: found in a template by its stem
/// (the words it begins with), written whole. The statements issue adds
/// more (counts, warmups, plan, launch checks); each is one of these.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// The words the sentence begins with.
    pub stem: &'static str,
    /// The sentence.
    pub text: String,
}

/// The heading of the pinned-inputs table.
pub const PINNED: &str = "Pinned inputs";
/// The heading of the measured-points table.
pub const MEASURED: &str = "Measured points";
/// The measured-points header row.
pub const MEASURED_HEADER: [&str; 6] = [
    "Offered rate",
    "Completed rate including drain",
    "Output throughput including drain",
    "TTFT p50 / p95 / p99",
    "TPOT p50 / p95 / p99",
    "Result",
];

/// The header of the column that names each point, where two points have
/// one offered rate.
pub const POINT_COLUMN: &str = "Point";

/// A cell as GFM writes it: `|` escaped (cells never hold a newline).
fn cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

fn table(header: &[&str], rows: &[Vec<String>]) -> Vec<String> {
    let line = |cells: &[String]| format!("| {} |", cells.join(" | "));
    let mut out = vec![line(&header.iter().map(|h| cell(h)).collect::<Vec<_>>())];
    out.push(format!("|{}", "---|".repeat(header.len())));
    for r in rows {
        out.push(line(&r.iter().map(|c| cell(c)).collect::<Vec<_>>()));
    }
    out
}

/// The pinned-inputs table's lines.
pub fn pinned_table(rows: &[PinnedRow]) -> Vec<String> {
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| vec![r.label.clone(), r.value.clone()])
        .collect();
    table(&["Input", "Value"], &body)
}

/// The measured-points table's lines.
pub fn measured_table(rows: &[MeasuredRow]) -> Vec<String> {
    let named = rows.iter().any(|r| r.point.is_some());
    let body: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            let mut cells = vec![
                r.offered.clone(),
                r.completed.clone(),
                r.throughput.clone(),
                r.ttft.clone(),
                r.tpot.clone(),
                r.result.clone(),
            ];
            if named {
                cells.insert(0, r.point.clone().unwrap_or_default());
            }
            cells
        })
        .collect();
    if named {
        let mut header = vec![POINT_COLUMN];
        header.extend(MEASURED_HEADER);
        return table(&header, &body);
    }
    table(&MEASURED_HEADER, &body)
}

/// A write-up of proofpack's own layout.
pub fn default_writeup(
    pinned: &[PinnedRow],
    measured: &[MeasuredRow],
    statements: &[Statement],
) -> String {
    let mut out = vec![
        "# Benchmark qualification".to_string(),
        String::new(),
        format!("## {PINNED}"),
        String::new(),
    ];
    out.extend(pinned_table(pinned));
    out.push(String::new());
    out.push(format!("## {MEASURED}"));
    out.push(String::new());
    out.extend(measured_table(measured));
    for s in statements {
        out.push(String::new());
        out.push(s.text.clone());
    }
    out.push(String::new());
    out.join("\n")
}

fn heading_name(line: &str) -> Option<String> {
    let t = line.trim();
    if let Some(h) = t.strip_suffix('¶') {
        return Some(h.trim().trim_start_matches('#').trim().to_string());
    }
    let h = t.strip_prefix('#')?;
    Some(h.trim_start_matches('#').trim().to_string())
}

/// A table of the template as rendered: the heading above it, its lines.
struct TemplateTable {
    heading: Option<String>,
    line: usize,
    end_line: usize,
}

/// The template's tables, from the one GFM parse the verifier reads.
fn tables_of(template: &str, origin: &str) -> Result<Vec<TemplateTable>, AdoptError> {
    let tree = parse(template).map_err(|e| AdoptError::Usage(format!("{origin}: {e}")))?;
    let mut heading = None;
    let mut tables = Vec::new();
    for b in &tree.blocks {
        match b.kind {
            BlockKind::Heading(_) => heading = Some(b.text.clone()),
            BlockKind::Table => tables.push(TemplateTable {
                heading: heading.clone(),
                line: b.line,
                end_line: b.end_line,
            }),
            _ => {}
        }
    }
    Ok(tables)
}

/// The template with its two tables and its standard sentences replaced.
pub fn fill_template(
    template: &str,
    origin: &str,
    pinned: &[PinnedRow],
    measured: &[MeasuredRow],
    statements: &[Statement],
) -> Result<String, AdoptError> {
    let mut lines: Vec<String> = template.lines().map(String::from).collect();
    let tables = tables_of(template, origin)?;
    // Replace from the bottom up so that earlier line numbers stay valid.
    let mut edits: Vec<(usize, usize, Vec<String>)> = Vec::new();
    for (name, new) in [
        (PINNED, pinned_table(pinned)),
        (MEASURED, measured_table(measured)),
    ] {
        let heads: Vec<usize> = lines
            .iter()
            .enumerate()
            .filter(|(_, l)| heading_name(l).is_some_and(|h| h.eq_ignore_ascii_case(name)))
            .map(|(i, _)| i)
            .collect();
        let head = match heads.as_slice() {
            [h] => *h,
            [] => {
                return Err(AdoptError::Usage(format!(
                    "{origin}: no \"{name}\" heading; the template needs one for each table publish writes"
                )))
            }
            [a, b, ..] => {
                return Err(AdoptError::Usage(format!(
                    "{origin}: the heading \"{name}\" is there twice (lines {} and {})",
                    a + 1,
                    b + 1
                )))
            }
        };
        let under: Vec<_> = tables
            .iter()
            .filter(|t| {
                t.heading
                    .as_deref()
                    .is_some_and(|h| h.trim_end_matches('¶').trim().eq_ignore_ascii_case(name))
            })
            .collect();
        match under.as_slice() {
            [] => edits.push((head + 1, head + 1, {
                let mut v = vec![String::new()];
                v.extend(new);
                v.push(String::new());
                v
            })),
            [t] => {
                let (first, last) = (t.line - 1, t.end_line);
                edits.push((first, last, new));
            }
            _ => {
                return Err(AdoptError::Usage(format!(
                    "{origin}: more than one table under the heading \"{name}\""
                )))
            }
        }
    }
    let mut appended = Vec::new();
    for s in statements {
        match lines
            .iter()
            .position(|l| l.trim_start().starts_with(s.stem))
        {
            None => appended.push(s.text.clone()),
            Some(i) => {
                let mut end = i + 1;
                while end < lines.len() {
                    let l = lines[end].trim();
                    if l.is_empty() || l.starts_with('|') || heading_name(l).is_some() {
                        break;
                    }
                    end += 1;
                }
                edits.push((i, end, vec![s.text.clone()]));
            }
        }
    }
    edits.sort_by_key(|e| std::cmp::Reverse(e.0));
    for w in edits.windows(2) {
        if w[1].1 > w[0].0 {
            return Err(AdoptError::Usage(format!(
                "{origin}: a table and a standard sentence overlap at line {}",
                w[0].0 + 1
            )));
        }
    }
    for (from, to, new) in edits {
        lines.splice(from..to.min(lines.len()), new);
    }
    for a in appended {
        lines.push(String::new());
        lines.push(a);
    }
    let mut out = lines.join("\n");
    out.push('\n');
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows() -> (Vec<PinnedRow>, Vec<MeasuredRow>) {
        (
            vec![PinnedRow {
                label: "Model".into(),
                value: "org/m".into(),
            }],
            vec![MeasuredRow {
                point: None,
                offered: "5 request/s".into(),
                completed: "4.787 request/s".into(),
                throughput: "306.4 tokens/s".into(),
                ttft: "1.000 / 2.000 / 3.000 s".into(),
                tpot: "10.00 / 11.00 / 12.00 ms".into(),
                result: "9/9 within limits".into(),
            }],
        )
    }

    #[test]
    fn a_template_keeps_the_authors_prose() {
        let (p, m) = rows();
        let t = "# Mine\n\nMy words.\n\n## Pinned inputs\n\n| Input | Value |\n|---|---|\n| Old | x |\n\nMore words.\n\n## Measured points\n\nClosing words.\nThe sealed bundle is old.tgz\n(SHA-256 0).\n";
        let s = Statement {
            stem: "The sealed bundle is ",
            text: "The sealed bundle is b.tgz (SHA-256 x).".into(),
        };
        let out = fill_template(t, "t.md", &p, &m, &[s]).unwrap();
        assert!(out.contains("My words.\n"));
        assert!(out.contains("More words.\n"));
        assert!(out.contains("Closing words.\n"));
        assert!(!out.contains("| Old |"));
        assert!(out.contains("| Model | org/m |"));
        assert!(out.contains("| 5 request/s |"));
        assert!(out.contains("The sealed bundle is b.tgz (SHA-256 x).\n"));
        assert!(!out.contains("old.tgz"));
        assert!(fill_template("# x\n", "t.md", &p, &m, &[]).is_err());
    }
}
