//! The write-up parsed once, as GitHub renders it: `comrak` (a port of
//! cmark-gfm, GitHub's renderer) with GitHub's extensions (tables,
//! strikethrough, autolinks, footnotes), chosen over pulldown-cmark by a
//! differential test against cmark-gfm itself (docs/format-notes.md,
//! tests/publication_gfm.rs).
//!
//! The only change made to the text before parsing is the docs-site
//! pre-pass ([`prepass`]): a line that a docs site exports as a heading
//! ("Pinned inputs¶") becomes an ATX heading (`## Pinned inputs`). Every
//! line keeps its number. Nothing is split or joined by hand after that:
//! the [`Tree`] is the parser's document, flattened into its rendered
//! blocks (paragraphs, headings, code blocks, HTML blocks, rules, tables)
//! in order, each with its source line, its rendered text and the
//! containers it sits in. What the parse finds that can hide or fake
//! content (raw HTML, footnotes, strikethrough, images, task-list
//! checkboxes, source lines that render as nothing, such as link reference
//! definitions) is recorded as a [`Finding`]; the document layer refuses
//! a write-up with any.

use std::borrow::Cow;

use comrak::nodes::{AstNode, NodeValue};
use serde_json::{json, Value};

/// Most nodes (blocks, rows, cells and inline spans) a write-up may parse
/// into (contract section 9). The parser's
/// arena grows in doubling chunks of about 140 bytes a node, and every
/// table cell becomes checks of the verification, so this bounds both: an
/// 8 MiB write-up of any shape is read in under 64 MiB
/// (scripts/bench-publication.sh, docs/performance.md). A write-up states
/// a few thousand nodes at most; the sample parses into about 600.
pub const MAX_NODES: usize = 100_000;

/// A container a block sits in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// A block quote (`> ...`).
    Quote,
    /// A list item.
    Item,
    /// A footnote definition.
    Footnote,
}

/// What a rendered block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockKind {
    /// A paragraph.
    Paragraph,
    /// A heading of this level.
    Heading(u8),
    /// A code block (fenced or indented): its text verbatim.
    Code,
    /// A raw HTML block: its text verbatim.
    Html,
    /// A thematic break.
    Rule,
    /// A table.
    Table,
}

/// A table cell as rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawCell {
    /// The rendered text (entities decoded, emphasis and code marks gone),
    /// whitespace as rendered.
    pub text: String,
    /// Line and column (1-based, bytes) where the cell starts.
    pub line: usize,
    /// Column of the cell.
    pub column: usize,
}

/// A table row as rendered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawRow {
    /// Its line.
    pub line: usize,
    /// Its cells (as many as the header has: cmark-gfm pads and drops).
    pub cells: Vec<RawCell>,
    /// Cells written in the source line (more than the header has are
    /// dropped by cmark-gfm and never shown).
    pub written: usize,
}

/// A rendered block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawBlock {
    /// What it is.
    pub kind: BlockKind,
    /// Its first line.
    pub line: usize,
    /// Its last line.
    pub end_line: usize,
    /// The rendered text (paragraphs, headings: inline text with soft and
    /// hard breaks as spaces; code and HTML blocks: verbatim).
    pub text: String,
    /// Rows of a table, the header first.
    pub rows: Vec<RawRow>,
    /// Where the source lines of `text` start: (byte offset in `text`,
    /// line), ascending, for paragraphs, headings and code blocks.
    pub marks: Vec<(usize, usize)>,
    /// The containers it sits in, outermost first.
    pub containers: Vec<Container>,
}

/// Something the parse found that can hide or fake content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// Line (1-based).
    pub line: usize,
    /// Column (1-based, bytes).
    pub column: usize,
    /// What it is, for the refusal.
    pub what: String,
}

/// The parsed write-up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tree {
    /// Rendered blocks, in order.
    pub blocks: Vec<RawBlock>,
    /// What can hide or fake content, in order of position.
    pub findings: Vec<Finding>,
    /// Lines the pre-pass turned into headings.
    pub prepass_lines: Vec<usize>,
}

/// The parse gave up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// More than [`MAX_NODES`] nodes.
    #[error("the write-up parses into more than {MAX_NODES} blocks, cells and inline spans; this is not a write-up proofpack reads")]
    TooComplex,
}

/// True if `line` is one the docs-site pre-pass turns into a heading: its
/// last character other than white space is `¶`, it starts with a letter,
/// a digit or `#`, and it has no `|` (a `|…|¶` line is a table row, as
/// cmark-gfm renders it).
pub fn prepass_qualifies(line: &str) -> bool {
    let t = line.trim_end();
    let Some(body) = t.strip_suffix('¶') else {
        return false;
    };
    let first = t.chars().next().unwrap_or(' ');
    !body.trim().is_empty() && (first.is_alphanumeric() || first == '#') && !t.contains('|')
}

/// A GFM table delimiter row (cells of `-`, `:` at either end allowed,
/// at least one `|`).
pub fn is_delimiter_row(line: &str) -> bool {
    let t = line.trim();
    if !t.contains('|') || t.len() > 4096 {
        return false;
    }
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    !t.is_empty()
        && t.split('|').all(|c| {
            let c = c.trim();
            let c = c.strip_prefix(':').unwrap_or(c);
            let c = c.strip_suffix(':').unwrap_or(c);
            !c.is_empty() && c.bytes().all(|b| b == b'-')
        })
}

/// The docs-site pre-pass: every line that [`prepass_qualifies`] becomes
/// `## <text>` (its `¶`, leading `#`s and surrounding space removed),
/// unless a table delimiter row follows it (it is then a one-column
/// table's header, as GitHub shows it); every other byte is kept. Returns the text and the lines changed.
pub fn prepass(text: &str) -> (Cow<'_, str>, Vec<usize>) {
    let mut changed = Vec::new();
    let mut lines = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .peekable();
    let mut i = 0;
    while let Some(l) = lines.next() {
        i += 1;
        // Above a table's delimiter row the line is the header of a
        // one-column table, as GitHub shows it: Markdown source, not a
        // docs-site copy (a browser copies no delimiter row).
        let header = lines.peek().is_some_and(|n| is_delimiter_row(n));
        if prepass_qualifies(l) && !header {
            changed.push(i);
        }
    }
    if changed.is_empty() {
        return (Cow::Borrowed(text), changed);
    }
    let mut out = String::with_capacity(text.len() + 2 * changed.len());
    let mut next = changed.iter().peekable();
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if next.peek() == Some(&&(i + 1)) {
            next.next();
            let (body, eol) = match l.strip_suffix("\r\n") {
                Some(b) => (b, "\r\n"),
                None => match l.strip_suffix('\n') {
                    Some(b) => (b, "\n"),
                    None => (l, ""),
                },
            };
            let h = body.trim_end().trim_end_matches('¶').trim();
            let h = h.trim_start_matches('#').trim();
            out.push_str("## ");
            out.push_str(h);
            out.push_str(eol);
        } else {
            out.push_str(l);
        }
    }
    (Cow::Owned(out), changed)
}

fn options() -> comrak::Options<'static> {
    let mut o = comrak::Options::default();
    o.extension.table = true;
    o.extension.strikethrough = true;
    o.extension.autolink = true;
    o.extension.footnotes = true;
    o
}

struct Builder<'s> {
    lines: Vec<&'s str>,
    tree: Tree,
    /// Lines covered by a leaf block.
    covered: Vec<bool>,
    /// Lines of code blocks (verbatim: no autolinks in them).
    code: Vec<bool>,
    /// (offset in the text being rendered, source line) of each inline
    /// text run, for the block being built.
    marks: Vec<(usize, usize)>,
    /// The number the next item of the ordered list being read shows
    /// (an HTML `<ol start>` numbers its items on from its first).
    list_next: Option<usize>,
    /// The number of the ordered-list item whose first block is next.
    item_number: Option<usize>,
}

fn find(b: &mut Builder<'_>, line: usize, column: usize, what: impl Into<String>) {
    b.tree.findings.push(Finding {
        line,
        column,
        what: what.into(),
    });
}

fn inline<'a>(b: &mut Builder<'_>, n: &'a AstNode<'a>, out: &mut String) {
    for c in n.children() {
        let d = c.data.borrow();
        let (line, col) = (d.sourcepos.start.line, d.sourcepos.start.column);
        if b.marks.last().is_none_or(|m| m.1 < line) {
            b.marks.push((out.len(), line));
        }
        match &d.value {
            NodeValue::Text(t) => out.push_str(t),
            NodeValue::Code(code) => out.push_str(&code.literal),
            NodeValue::SoftBreak | NodeValue::LineBreak => out.push(' '),
            NodeValue::HtmlInline(h) => {
                find(b, line, col, format!("inline HTML {:?}", short(h)));
                out.push_str(h);
            }
            NodeValue::FootnoteReference(f) => {
                find(b, line, col, format!("a footnote reference [^{}]", f.name));
                out.push_str(&format!("[^{}]", f.name));
            }
            NodeValue::Strikethrough => {
                find(
                    b,
                    line,
                    col,
                    "struck-through text (~~...~~): GitHub shows it as withdrawn",
                );
                drop(d);
                inline(b, c, out);
            }
            NodeValue::Image(_) => {
                find(b, line, col, "an image: what it shows cannot be read");
                drop(d);
                inline(b, c, out);
            }
            NodeValue::Emph | NodeValue::Strong | NodeValue::Link(_) => {
                drop(d);
                inline(b, c, out);
            }
            other => {
                find(
                    b,
                    line,
                    col,
                    format!(
                        "an inline {} that proofpack does not read",
                        kind_name(other)
                    ),
                );
                drop(d);
                inline(b, c, out);
            }
        }
    }
}

fn short(s: &str) -> String {
    let s = s.trim();
    match s.char_indices().nth(40) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s.to_string(),
    }
}

fn kind_name(v: &NodeValue) -> &'static str {
    match v {
        NodeValue::FrontMatter(_) => "front matter",
        NodeValue::DescriptionList | NodeValue::DescriptionItem(_) => "description list",
        NodeValue::Math(_) => "math span",
        _ => "construct",
    }
}

/// Source lines a paragraph's inline content spans: one, plus each line
/// break between its top-level inlines, plus the lines an inline itself
/// spans (a code span or link written over several lines).
fn content_lines<'a>(n: &'a AstNode<'a>) -> usize {
    let mut lines = 1;
    for c in n.children() {
        let d = c.data.borrow();
        match d.value {
            NodeValue::SoftBreak | NodeValue::LineBreak => lines += 1,
            _ => lines += d.sourcepos.end.line.saturating_sub(d.sourcepos.start.line),
        }
    }
    lines
}

fn cover(b: &mut Builder<'_>, from: usize, to: usize) {
    for l in from..=to.max(from) {
        if let Some(c) = b.covered.get_mut(l) {
            *c = true;
        }
    }
}

/// A task-list marker at the start of an item's first text: GitHub shows a
/// checkbox (the tasklist extension is not enabled, so it stays text here).
fn task_marker(text: &str) -> bool {
    let t = text.trim_start();
    let b = t.as_bytes();
    b.len() >= 3
        && b[0] == b'['
        && matches!(b[1], b' ' | b'x' | b'X')
        && b[2] == b']'
        && b.get(3).is_none_or(|c| c.is_ascii_whitespace())
}

/// The rendered text of a paragraph or heading `c` spanning source lines
/// `at.0..=at.1` (its first column `at.2`) and its marks; `first` when it
/// is the first block of a list item, `number` that item's number when the
/// list is ordered (a reader sees it before the text).
fn paragraph<'a>(
    b: &mut Builder<'_>,
    c: &'a AstNode<'a>,
    kind: BlockKind,
    at: (usize, usize, usize),
    first: bool,
    number: Option<usize>,
) -> (String, Vec<(usize, usize)>) {
    let (line, end, column) = at;
    let mut text = String::new();
    b.marks.clear();
    inline(b, c, &mut text);
    let mut marks = std::mem::take(&mut b.marks);
    // Link reference definitions at the start of a paragraph are
    // consumed by the parser: the paragraph then spans more source lines
    // than its inline content does.
    if kind == BlockKind::Paragraph && end.saturating_sub(line) + 1 > content_lines(c) {
        find(
            b,
            line,
            column,
            "a line that renders as nothing (a link reference definition)",
        );
    }
    if first && task_marker(&text) {
        find(b, line, column, "a task-list checkbox ([ ] or [x])");
    }
    if let Some(n) = number {
        let lead = format!("{n}. ");
        for m in &mut marks {
            m.0 += lead.len();
        }
        marks.insert(0, (0, line));
        text.insert_str(0, &lead);
    }
    cover(b, line, end);
    (text, marks)
}

fn block<'a>(
    b: &mut Builder<'_>,
    n: &'a AstNode<'a>,
    ctx: &mut Vec<Container>,
    first_in_item: bool,
) {
    let mut first = first_in_item;
    for c in n.children() {
        // An ordered-list item's number belongs to its first block only.
        let number = if first { b.item_number.take() } else { None };
        let d = c.data.borrow();
        let sp = d.sourcepos;
        let (line, end) = (sp.start.line, sp.end.line);
        let mk = |kind, text: String, rows, marks| RawBlock {
            kind,
            line,
            end_line: end,
            text,
            rows,
            marks,
            containers: ctx.clone(),
        };
        match &d.value {
            NodeValue::Paragraph | NodeValue::Heading(_) => {
                let kind = match &d.value {
                    NodeValue::Heading(h) => BlockKind::Heading(h.level),
                    _ => BlockKind::Paragraph,
                };
                drop(d);
                let (text, marks) =
                    paragraph(b, c, kind, (line, end, sp.start.column), first, number);
                b.tree.blocks.push(mk(kind, text, Vec::new(), marks));
            }
            NodeValue::CodeBlock(cb) => {
                // Its lines end as cmark-gfm writes them: a CR LF is a LF
                // (a lone CR is refused before the parse).
                let text = cb.literal.replace("\r\n", "\n");
                // A fenced block's content starts on the line after the fence.
                let first = line + usize::from(cb.fenced);
                let mut marks = vec![(0, first)];
                for (i, _) in text.match_indices('\n') {
                    if i + 1 < text.len() {
                        marks.push((i + 1, first + marks.len()));
                    }
                }
                cover(b, line, end);
                for l in line..=end.max(line) {
                    if let Some(c) = b.code.get_mut(l) {
                        *c = true;
                    }
                }
                b.tree
                    .blocks
                    .push(mk(BlockKind::Code, text, Vec::new(), marks));
            }
            NodeValue::HtmlBlock(h) => {
                find(
                    b,
                    line,
                    sp.start.column,
                    format!("an HTML block {:?}", short(&h.literal)),
                );
                let text = h.literal.clone();
                cover(b, line, end);
                b.tree
                    .blocks
                    .push(mk(BlockKind::Html, text, Vec::new(), Vec::new()));
            }
            NodeValue::ThematicBreak => {
                cover(b, line, end);
                b.tree
                    .blocks
                    .push(mk(BlockKind::Rule, String::new(), Vec::new(), Vec::new()));
            }
            NodeValue::Table(_) => {
                drop(d);
                let mut rows = Vec::new();
                for r in c.children() {
                    let (rl, rc) = {
                        let p = r.data.borrow().sourcepos.start;
                        (p.line, p.column)
                    };
                    let mut cells = Vec::new();
                    for cell in r.children() {
                        let cp = cell.data.borrow().sourcepos.start;
                        let mut text = String::new();
                        inline(b, cell, &mut text);
                        if first && rows.is_empty() && cells.is_empty() && task_marker(&text) {
                            find(b, rl, cp.column, "a task-list checkbox ([ ] or [x])");
                        }
                        cells.push(RawCell {
                            text,
                            line: cp.line,
                            column: cp.column,
                        });
                    }
                    let written = b.lines.get(rl.saturating_sub(1)).map_or(0, |l| {
                        cells_written(l.get(rc.saturating_sub(1)..).unwrap_or(l))
                    });
                    rows.push(RawRow {
                        line: rl,
                        cells,
                        written,
                    });
                }
                cover(b, line, end);
                b.tree
                    .blocks
                    .push(mk(BlockKind::Table, String::new(), rows, Vec::new()));
            }
            NodeValue::BlockQuote | NodeValue::Item(_) | NodeValue::FootnoteDefinition(_) => {
                let container = match &d.value {
                    NodeValue::BlockQuote => Container::Quote,
                    NodeValue::Item(_) => Container::Item,
                    _ => {
                        find(b, line, sp.start.column, "a footnote definition");
                        Container::Footnote
                    }
                };
                let item = container == Container::Item;
                drop(d);
                if item {
                    b.item_number = b.list_next;
                    b.list_next = b.list_next.map(|n| n.saturating_add(1));
                }
                ctx.push(container);
                block(b, c, ctx, item);
                ctx.pop();
            }
            NodeValue::List(l) => {
                let start = (l.list_type == comrak::nodes::ListType::Ordered).then_some(l.start);
                drop(d);
                let outer = std::mem::replace(&mut b.list_next, start);
                block(b, c, ctx, false);
                b.list_next = outer;
            }
            other => {
                let what = format!("a block {} that proofpack does not read", kind_name(other));
                find(b, line, sp.start.column, what);
                drop(d);
                block(b, c, ctx, false);
            }
        }
        first = false;
    }
}

/// Parses a write-up (after [`prepass`]) into its rendered blocks.
pub fn parse(text: &str) -> Result<Tree, ParseError> {
    // cmark-gfm skips a byte order mark at the start.
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (mut md, prepass_lines) = prepass(body);
    if md.contains("\r\n") {
        md = Cow::Owned(md.replace("\r\n", "\n"));
    }
    if needs_final_line_feed(&md) {
        md.to_mut().push('\n');
    }
    parse_prepared(&md, prepass_lines)
}

/// [`parse`] of text the caller gives up: the text is changed in place
/// where it can be, and the original is dropped once the pre-pass has
/// copied it, so that a large write-up is never held twice.
pub fn parse_owned(mut text: String) -> Result<Tree, ParseError> {
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    let (rewritten, prepass_lines) = match prepass(&text) {
        (Cow::Owned(s), lines) => (Some(s), lines),
        (Cow::Borrowed(_), lines) => (None, lines),
    };
    let mut md = match rewritten {
        Some(s) => {
            drop(text);
            s
        }
        None => text,
    };
    // A CR LF is one line ending to cmark-gfm everywhere; comrak counts
    // two in a code span (found by publication_gfm), so the reader
    // parses line feeds (a lone CR is refused before the parse).
    if md.contains("\r\n") {
        md = md.replace("\r\n", "\n");
    }
    if needs_final_line_feed(&md) {
        md.reserve_exact(1);
        md.push('\n');
    }
    parse_prepared(&md, prepass_lines)
}

/// The end of the input ends its last line (CommonMark 2.1); comrak reads
/// a last line without its line feed otherwise than cmark-gfm in places
/// ("2." after a table is a row to one, an empty list to the other), so
/// the line feed is added.
fn needs_final_line_feed(md: &str) -> bool {
    !md.is_empty() && !md.ends_with('\n')
}

fn parse_prepared(md: &str, prepass_lines: Vec<usize>) -> Result<Tree, ParseError> {
    let arena = comrak::Arena::new();
    let too_many = || arena.len() > MAX_NODES;
    let root = comrak::try_parse_document(&arena, md, &options(), &too_many)
        .map_err(|_| ParseError::TooComplex)?;
    if arena.len() > MAX_NODES {
        return Err(ParseError::TooComplex);
    }
    let lines: Vec<&str> = md.split('\n').collect();
    let n = lines.len();
    let mut b = Builder {
        lines,
        tree: Tree {
            prepass_lines,
            ..Tree::default()
        },
        covered: vec![false; n + 2],
        code: vec![false; n + 2],
        marks: Vec::new(),
        list_next: None,
        item_number: None,
    };
    block(&mut b, root, &mut Vec::new(), false);
    uncovered_lines(&mut b);
    for (line, column, what) in ambiguous::lines(&b.lines, &b.code) {
        find(&mut b, line, column, what);
    }
    b.tree.findings.sort_by_key(|f| (f.line, f.column));
    Ok(b.tree)
}

/// The cells of a table row as GFM splits its source line: at every `|`
/// not escaped by a backslash, a leading pipe and trailing white space after
/// the last pipe not counted.
pub fn cells_written(line: &str) -> usize {
    let s = line.trim_end_matches('\r').trim_matches([' ', '\t']);
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'|'));
    let (mut n, mut pending) = (0, false);
    while i < b.len() {
        match b[i] {
            b'\\' if i + 1 < b.len() => {
                pending = true;
                i += 2;
                continue;
            }
            b'|' => {
                n += 1;
                pending = false;
            }
            b' ' | b'\t' => {}
            _ => pending = true,
        }
        i += 1;
    }
    n + usize::from(pending)
}

/// True for a line of container markers only (`>`, list markers, space).
fn markers_only(line: &str) -> bool {
    ambiguous::after_markers(line).is_empty()
}

/// A source line that no rendered block covers and that is not blank or
/// container markers only: the parser consumed it without rendering it
/// (link reference definitions, footnote definitions cmark-gfm drops).
fn uncovered_lines(b: &mut Builder<'_>) {
    let mut found = Vec::new();
    for (i, l) in b.lines.iter().enumerate() {
        let n = i + 1;
        if b.covered.get(n).copied().unwrap_or(false) {
            continue;
        }
        let l = l.strip_suffix('\r').unwrap_or(l);
        if !markers_only(l) {
            found.push(n);
        }
    }
    for n in found {
        find(b, n, 1, "a line that renders as nothing (a link reference definition, or text the parser consumed)");
    }
}

impl Tree {
    /// The rendered document as the differential test compares it with
    /// cmark-gfm's (tests/gfm_view.py prints the same shape): per block its
    /// kind, line, containers and text, per table its rows of cell texts.
    pub fn view(&self) -> Value {
        let blocks: Vec<Value> = self
            .blocks
            .iter()
            .map(|b| {
                let ctx: Vec<&str> = b
                    .containers
                    .iter()
                    .map(|c| match c {
                        Container::Quote => "quote",
                        Container::Item => "item",
                        Container::Footnote => "footnote",
                    })
                    .collect();
                let (t, level) = match b.kind {
                    BlockKind::Paragraph => ("paragraph", None),
                    BlockKind::Heading(l) => ("heading", Some(l)),
                    BlockKind::Code => ("code_block", None),
                    BlockKind::Html => ("html_block", None),
                    BlockKind::Rule => ("thematic_break", None),
                    BlockKind::Table => ("table", None),
                };
                let mut v = json!({"t": t, "line": b.line, "ctx": ctx});
                if let Some(l) = level {
                    v["level"] = json!(l);
                }
                if b.kind == BlockKind::Table {
                    v["rows"] = b
                        .rows
                        .iter()
                        .map(|r| json!({"line": r.line, "cells": r.cells.iter().map(|c| c.text.as_str()).collect::<Vec<_>>()}))
                        .collect();
                } else if b.kind != BlockKind::Rule {
                    v["text"] = json!(b.text);
                }
                v
            })
            .collect();
        Value::Array(blocks)
    }
}

mod ambiguous;
#[cfg(test)]
mod tests;
