//! The text a reader copies out of a rendered write-up (contract section
//! 9, the `text` form): what a browser puts on the clipboard from a page
//! (or a docs site exports). Its closed grammar, line by line:
//!
//! - a line holding a tab after other text is a table row, its cells
//!   between tabs (a browser copies a table so); consecutive rows are one
//!   table, the first its header; a row of fewer cells is padded with
//!   empty ones, one of more is refused (as in Markdown);
//! - a line ending in `¶` is a heading (a docs site's anchor mark);
//! - an empty line separates blocks;
//! - any other line is a paragraph of its own (a browser copies a
//!   paragraph as one line, and blocks with no blank line between them).
//!
//! It gives the same tree the Markdown reader gives, so that everything
//! above reads the three forms alike.

use super::markdown::{
    is_delimiter_row, BlockKind, ParseError, RawBlock, RawCell, RawRow, Tree, MAX_NODES,
};

/// The form a write-up is read in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Form {
    /// GitHub-flavoured Markdown source, as cmark-gfm renders it.
    #[default]
    Gfm,
    /// The text copied from a rendered page ([`self`]).
    Text,
    /// A rendered page's HTML, read into the text a reader copies out of
    /// it ([`super::html_page`]).
    Html,
}

impl Form {
    /// The form's name in the contract and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Form::Gfm => "gfm",
            Form::Text => "text",
            Form::Html => "html",
        }
    }
}

/// A line holds a tab after other text, and does not begin with `|` (a
/// Markdown table row may hold a tab): a copied table row.
fn is_tab_row(line: &str) -> bool {
    let t = line.trim_start();
    !t.starts_with('|') && t.find('\t').is_some_and(|i| i > 0)
}

/// The form of a write-up, by the contract's closed rule: a page's HTML
/// (beginning with `<!DOCTYPE html>`, `<html>`, `<head>` or `<body>`) is
/// the html form; tab rows
/// and no delimiter row, the text form; a delimiter row and no tab row, or
/// neither, Markdown; both, refused. `Err` says why it fits no form or two.
pub fn form_of(text: &str) -> Result<Form, String> {
    let head: String = text
        .trim_start_matches('\u{feff}')
        .trim_start()
        .chars()
        .take(16)
        .collect::<String>()
        .to_ascii_lowercase();
    if ["<!doctype html", "<html", "<head", "<body"]
        .iter()
        .any(|p| head.starts_with(p))
    {
        return Ok(Form::Html);
    }
    let lines = || text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let tab = lines().position(is_tab_row);
    let delimiter = lines().position(is_delimiter_row);
    match (tab, delimiter) {
        (Some(t), Some(d)) => Err(format!(
            "line {} is a tab-separated table row (text copied from a rendered page) and line {} a Markdown table's delimiter row (Markdown source): a write-up is one or the other; give --publication-format gfm or text",
            t + 1,
            d + 1
        )),
        (Some(_), None) => Ok(Form::Text),
        _ => Ok(Form::Gfm),
    }
}

/// Reads the text form into the tree the Markdown reader gives.
pub fn parse(text: &str) -> Result<Tree, ParseError> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut tree = Tree::default();
    let mut nodes = 0usize;
    let mut table: Option<RawBlock> = None;
    for (i, raw) in body.split('\n').enumerate() {
        let line = i + 1;
        let l = raw.strip_suffix('\r').unwrap_or(raw);
        if is_tab_row(l) {
            let row = tab_row(l, line);
            nodes += 1 + row.cells.len();
            let t = table.get_or_insert_with(|| block(BlockKind::Table, line, String::new()));
            t.end_line = line;
            t.rows.push(row);
        } else {
            if let Some(t) = table.take() {
                tree.blocks.push(pad(t));
            }
            let t = l.trim();
            if t.is_empty() {
                continue;
            }
            nodes += 1;
            let b = match t.strip_suffix('¶') {
                Some(h) if !h.trim().is_empty() => {
                    block(BlockKind::Heading(2), line, h.trim().to_string())
                }
                _ => block(BlockKind::Paragraph, line, t.to_string()),
            };
            tree.blocks.push(b);
        }
        if nodes > MAX_NODES {
            return Err(ParseError::TooComplex);
        }
    }
    if let Some(t) = table.take() {
        tree.blocks.push(pad(t));
    }
    Ok(tree)
}

fn block(kind: BlockKind, line: usize, text: String) -> RawBlock {
    let marks = if kind == BlockKind::Table {
        Vec::new()
    } else {
        vec![(0, line)]
    };
    RawBlock {
        kind,
        line,
        end_line: line,
        text,
        rows: Vec::new(),
        marks,
        containers: Vec::new(),
    }
}

fn tab_row(l: &str, line: usize) -> RawRow {
    let mut cells = Vec::new();
    let mut at = 0;
    for c in l.split('\t') {
        cells.push(RawCell {
            text: c.trim().to_string(),
            line,
            column: at + 1,
        });
        at += c.len() + 1;
    }
    // A browser may end a copied row with a tab after its last cell.
    if cells.len() > 1 && cells.last().is_some_and(|c| c.text.is_empty()) {
        cells.pop();
    }
    let written = cells.len();
    RawRow {
        line,
        cells,
        written,
    }
}

/// Every row with as many cells as the header: fewer are padded (as
/// cmark-gfm pads), more are kept and refused where the table is read.
fn pad(mut t: RawBlock) -> RawBlock {
    let width = t.rows.first().map_or(0, |h| h.cells.len());
    for r in &mut t.rows {
        while r.cells.len() < width {
            r.cells.push(RawCell {
                text: String::new(),
                line: r.line,
                column: 1,
            });
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_is_chosen_by_a_closed_rule() {
        assert_eq!(
            form_of("# T\n\n| a | b |\n|---|---|\n| 1 | 2 |\n"),
            Ok(Form::Gfm)
        );
        assert_eq!(form_of("T¶\na\tb\n1\t2\n"), Ok(Form::Text));
        assert_eq!(form_of("Just prose.\n"), Ok(Form::Gfm));
        assert_eq!(form_of("<!DOCTYPE html>\n<p>x</p>"), Ok(Form::Html));
        // An HTML block in Markdown is Markdown's to refuse, where it stands.
        assert_eq!(form_of("<div>\n\nText.\n"), Ok(Form::Gfm));
        assert_eq!(form_of("  <html><body>x</body></html>"), Ok(Form::Html));
        assert!(form_of("a\tb\n|---|---|\n")
            .unwrap_err()
            .contains("one or the other"));
        // A tab-indented code line, or a tab in a pipe row, is no tab row.
        assert_eq!(form_of("Text:\n\n\tcode\n"), Ok(Form::Gfm));
        assert_eq!(form_of("| a\t| b |\n|---|---|\n"), Ok(Form::Gfm));
    }

    #[test]
    fn tab_rows_are_tables_and_lines_are_blocks() {
        let t = parse("Title¶\nA line.\nInput\tValue\nModel\tm\n\nNext.\n").unwrap();
        let kinds: Vec<BlockKind> = t.blocks.iter().map(|b| b.kind).collect();
        assert_eq!(
            kinds,
            [
                BlockKind::Heading(2),
                BlockKind::Paragraph,
                BlockKind::Table,
                BlockKind::Paragraph
            ]
        );
        assert_eq!(t.blocks[0].text, "Title");
        assert_eq!(t.blocks[2].rows.len(), 2);
        assert_eq!(t.blocks[2].rows[1].cells[1].text, "m");
        assert_eq!(t.blocks[2].rows[1].line, 4);
        assert_eq!(t.blocks[3].line, 6);
    }
}
