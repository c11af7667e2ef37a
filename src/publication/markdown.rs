//! The write-up's text as tables: Markdown (GFM pipe tables, read by
//! `pulldown-cmark`) and the plain text a docs site exports or a browser
//! copies, where headings end in `¶` and tables are `| a | b |` lines with
//! prose right before and after them.
//!
//! The export is brought into Markdown's shape line by line, never
//! rewriting a cell: a line ending in `¶` becomes a heading, and a blank
//! line is put around every run of `|` lines (GFM would otherwise read the
//! prose line after a table as one more row). Every line keeps its number
//! in the original text, for error messages.

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};

/// A table as read: the heading above it, its header cells and rows, each
/// with the line it is on in the original text (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawTable {
    /// The nearest heading before the table (without `#` or `¶`), if any.
    pub heading: Option<String>,
    /// Header cells.
    pub header: Vec<String>,
    /// Line of the header row.
    pub line: usize,
    /// Body rows: their line and cells.
    pub rows: Vec<(usize, Vec<String>)>,
    /// Rows written with more cells than the header has (GFM drops the
    /// extra ones): line, cells written.
    pub overlong: Vec<(usize, usize)>,
}

/// Cells written in one table line (`|`-separated, outside code spans and
/// not escaped), leading and trailing pipes not counted as cells.
fn cells_written(line: &str) -> usize {
    let mut n = 0usize;
    let mut in_code = false;
    let mut prev = '\0';
    let t = line.trim();
    let body = t.strip_prefix('|').unwrap_or(t);
    let body = body
        .strip_suffix('|')
        .filter(|b| !b.ends_with('\\'))
        .unwrap_or(body);
    for c in body.chars() {
        match c {
            '`' => in_code = !in_code,
            '|' if !in_code && prev != '\\' => n += 1,
            _ => {}
        }
        prev = c;
    }
    n + 1
}

/// A paragraph of prose and its first line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prose {
    /// The text (soft breaks as spaces).
    pub text: String,
    /// Its first line in the original text.
    pub line: usize,
}

fn is_table_line(l: &str) -> bool {
    l.trim_start().starts_with('|')
}

/// The export normalised into Markdown, with the original line number of
/// every normalised line.
fn normalise(text: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len() + 64);
    let mut map = Vec::new();
    let mut prev_table = false;
    let mut prev_blank = true;
    let push = |out: &mut String, map: &mut Vec<usize>, line: &str, n: usize| {
        out.push_str(line);
        out.push('\n');
        map.push(n);
    };
    for (i, raw) in text.lines().enumerate() {
        let n = i + 1;
        let line = raw.trim_end();
        let table = is_table_line(line);
        if let Some(h) = line.strip_suffix('¶') {
            let h = h.trim();
            let h = h.trim_start_matches('#').trim();
            push(&mut out, &mut map, "", n);
            push(&mut out, &mut map, &format!("## {h}"), n);
            push(&mut out, &mut map, "", n);
            prev_table = false;
            prev_blank = true;
            continue;
        }
        if table != prev_table && !prev_blank && !line.is_empty() {
            push(&mut out, &mut map, "", n);
        }
        push(&mut out, &mut map, line, n);
        prev_table = table;
        prev_blank = line.is_empty();
    }
    (out, map)
}

/// Every table and paragraph of a write-up, in order.
pub fn read(text: &str) -> (Vec<RawTable>, Vec<Prose>) {
    let (md, map) = normalise(text);
    // Line starts of the normalised text, to turn offsets into lines.
    let mut starts = vec![0usize];
    for (i, b) in md.bytes().enumerate() {
        if b == b'\n' {
            starts.push(i + 1);
        }
    }
    let line_of = |off: usize| -> usize {
        let idx = match starts.binary_search(&off) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        map.get(idx)
            .copied()
            .unwrap_or_else(|| map.last().copied().unwrap_or(1))
    };
    let mut tables = Vec::new();
    let mut prose = Vec::new();
    let mut heading: Option<String> = None;
    let mut in_heading = false;
    let mut heading_text = String::new();
    let mut table: Option<RawTable> = None;
    let mut row: Option<(usize, Vec<String>)> = None;
    let mut cell: Option<String> = None;
    let mut in_head = false;
    let mut para: Option<Prose> = None;
    for (ev, range) in Parser::new_ext(&md, Options::ENABLE_TABLES).into_offset_iter() {
        match ev {
            Event::Start(Tag::Heading { .. }) => {
                in_heading = true;
                heading_text.clear();
            }
            Event::End(TagEnd::Heading(_)) => {
                in_heading = false;
                heading = Some(heading_text.trim().to_string());
            }
            Event::Start(Tag::Table(_)) => {
                table = Some(RawTable {
                    heading: heading.clone(),
                    header: Vec::new(),
                    line: line_of(range.start),
                    rows: Vec::new(),
                    overlong: Vec::new(),
                })
            }
            Event::End(TagEnd::Table) => {
                if let Some(t) = table.take() {
                    tables.push(t);
                }
            }
            Event::Start(Tag::TableHead) => in_head = true,
            Event::End(TagEnd::TableHead) => in_head = false,
            Event::Start(Tag::TableRow) => {
                let line = line_of(range.start);
                if let Some(t) = table.as_mut() {
                    let written = md.get(range.clone()).map_or(0, cells_written);
                    if written > t.header.len() {
                        t.overlong.push((line, written));
                    }
                }
                row = Some((line, Vec::new()))
            }
            Event::End(TagEnd::TableRow) => {
                if let (Some(t), Some(r)) = (table.as_mut(), row.take()) {
                    t.rows.push(r);
                }
            }
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                let c = cell.take().unwrap_or_default().trim().to_string();
                if in_head {
                    if let Some(t) = table.as_mut() {
                        t.header.push(c);
                    }
                } else if let Some(r) = row.as_mut() {
                    r.1.push(c);
                }
            }
            Event::Start(Tag::Paragraph) => {
                para = Some(Prose {
                    text: String::new(),
                    line: line_of(range.start),
                })
            }
            Event::End(TagEnd::Paragraph) => {
                if let Some(p) = para.take() {
                    prose.push(p);
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if in_heading {
                    heading_text.push_str(&t);
                } else if let Some(c) = cell.as_mut() {
                    c.push_str(&t);
                } else if let Some(p) = para.as_mut() {
                    p.text.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some(p) = para.as_mut() {
                    p.text.push(' ');
                } else if let Some(c) = cell.as_mut() {
                    c.push(' ');
                }
            }
            _ => {}
        }
    }
    (tables, prose)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn export_layout_becomes_tables_with_original_lines() {
        let text = "Title¶\nPinned inputs¶\n| Input | Value |\n|---|---|\n| Model | m |\nProse right after.\nMeasured points¶\nIntro.\n| Offered rate | Result |\n|:--|--:|\n| 0.5 request/s | 200/200 within limits |\nThe bundle (SHA-256 abc).\n";
        let (t, p) = read(text);
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].heading.as_deref(), Some("Pinned inputs"));
        assert_eq!(t[0].header, ["Input", "Value"]);
        assert_eq!(t[0].line, 3);
        assert_eq!(
            t[0].rows,
            vec![(5, vec!["Model".to_string(), "m".to_string()])]
        );
        assert_eq!(t[1].heading.as_deref(), Some("Measured points"));
        assert_eq!(t[1].rows[0].0, 11);
        assert!(p
            .iter()
            .any(|p| p.text == "Prose right after." && p.line == 6));
        assert!(p
            .iter()
            .any(|p| p.text.contains("SHA-256 abc") && p.line == 12));
    }

    #[test]
    fn markdown_headings_and_tables() {
        let text =
            "# Report\n\n## Pinned inputs\n\n| Input | Value |\n| --- | --- |\n| Model | `m` |\n";
        let (t, _) = read(text);
        assert_eq!(t[0].heading.as_deref(), Some("Pinned inputs"));
        assert_eq!(t[0].rows[0].1[1], "m");
    }
}
