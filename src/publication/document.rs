//! The write-up as a typed document: its rendered prose blocks and its
//! tables, each with its source line, from the one parse of [`markdown`].
//! A write-up with anything that can hide or fake content is refused here
//! (exit 2, naming line, column and what was found): raw HTML, footnotes,
//! struck-through text, images, task-list checkboxes, lines that render as
//! nothing (link reference definitions), table rows written with more
//! cells than their header (GitHub drops the extra ones), a pre-pass
//! heading that did not come out as a heading, and Unicode format
//! characters (category Cf: zero-width space and joiner, bidi controls,
//! soft hyphen, ...), control characters other than tab and line endings
//! (a NUL renders as U+FFFD, the others as nothing), a carriage
//! return not followed by a line feed or words mixing Latin with
//! Greek or Cyrillic letters anywhere in the rendered text. A non-breaking
//! space is a space.

use super::markdown::{self, BlockKind, Container, RawBlock};
use super::text_copy::{self, Form};
use super::types::PublicationError;

/// What a prose block is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProseKind {
    /// A paragraph (in a list item when [`Prose::in_list_item`]).
    Paragraph,
    /// A heading of this level.
    Heading(u8),
    /// A code block, verbatim.
    Code,
    /// A thematic break.
    Rule,
}

/// A rendered prose block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prose {
    /// What it is.
    pub kind: ProseKind,
    /// Its first line in the write-up.
    pub line: usize,
    /// Its last line.
    pub end_line: usize,
    /// The rendered text: inline text with runs of white space as one
    /// space (as a browser shows it), code blocks verbatim.
    pub text: String,
    /// Inside a list item.
    pub in_list_item: bool,
    /// Inside a block quote.
    pub in_quote: bool,
    /// Where the source lines of `text` start: (byte offset in `text`,
    /// line), ascending.
    pub marks: Vec<(usize, usize)>,
}

impl Prose {
    /// The source line of the text at byte `offset` of [`Prose::text`].
    pub fn line_at(&self, offset: usize) -> usize {
        // The marks are ascending: a binary search, not a scan (a
        // paragraph may hold a line per statement).
        match self.marks.partition_point(|m| m.0 <= offset) {
            0 => self.line,
            k => self.marks[k - 1].1,
        }
    }
}

/// A table cell: its rendered text (white space runs as one space,
/// trimmed) and where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// The text.
    pub text: String,
    /// Line (1-based).
    pub line: usize,
    /// Column (1-based, bytes).
    pub column: usize,
}

/// A table row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Its line.
    pub line: usize,
    /// Its cells, as many as the header's.
    pub cells: Vec<Cell>,
}

/// A rendered table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Table {
    /// Line of its header row.
    pub line: usize,
    /// The header cells.
    pub header: Vec<Cell>,
    /// The body rows.
    pub rows: Vec<Row>,
    /// The nearest heading before it, if any.
    pub heading: Option<String>,
    /// Inside a list item or block quote.
    pub nested: bool,
}

/// A block of the document, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// Prose.
    Prose(Prose),
    /// A table.
    Table(Table),
}

/// The write-up, parsed and checked for hidden content.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Document {
    /// Every rendered block, in order.
    pub blocks: Vec<Block>,
    /// The form it was read in.
    pub form: Form,
}

impl Document {
    /// The prose blocks, in order.
    pub fn prose(&self) -> impl Iterator<Item = &Prose> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Prose(p) => Some(p),
            Block::Table(_) => None,
        })
    }

    /// The tables, in order.
    pub fn tables(&self) -> impl Iterator<Item = &Table> {
        self.blocks.iter().filter_map(|b| match b {
            Block::Table(t) => Some(t),
            Block::Prose(_) => None,
        })
    }

    /// Parses and checks write-up text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Document, PublicationError> {
        Document::parse_owned(text.to_string(), origin, None)
    }

    /// [`Document::parse`] of text the caller gives up (the file as read):
    /// it is dropped as soon as the parser has its own copy. `form` is the
    /// form to read it in, or `None` for the contract's rule
    /// ([`text_copy::form_of`]).
    pub fn parse_owned(
        text: String,
        origin: &str,
        form: Option<Form>,
    ) -> Result<Document, PublicationError> {
        if let Some((line, column, what)) = literal_format_char(&text) {
            return Err(refused(origin, line, column, what));
        }
        let form = match form {
            Some(f) => f,
            None => text_copy::form_of(&text).map_err(|why| PublicationError::Unreadable {
                path: origin.into(),
                reason: why,
            })?,
        };
        let tree = match form {
            Form::Gfm => markdown::parse_owned(text),
            Form::Text => text_copy::parse(&text),
            Form::Html => {
                let copied = super::html_page::to_text(&text).map_err(|why| {
                    PublicationError::Unreadable {
                        path: origin.into(),
                        reason: format!("{why} (read as a rendered page's HTML)"),
                    }
                })?;
                // What the page's character references decoded to.
                if let Some((line, column, what)) = literal_format_char(&copied) {
                    return Err(refused(origin, line, column, what));
                }
                text_copy::parse(&copied)
            }
        };
        let mut doc = Document::of_tree(tree, origin)?;
        doc.form = form;
        Ok(doc)
    }

    fn of_tree(
        tree: Result<markdown::Tree, markdown::ParseError>,
        origin: &str,
    ) -> Result<Document, PublicationError> {
        let refuse = |line: usize, column: usize, what: String| refused(origin, line, column, what);
        let tree = tree.map_err(|e| PublicationError::Unreadable {
            path: origin.into(),
            reason: e.to_string(),
        })?;
        if let Some(f) = tree.findings.first() {
            return Err(refuse(
                f.line,
                f.column,
                format!("{}: a write-up shows only Markdown text and tables", f.what),
            ));
        }
        for l in &tree.prepass_lines {
            let heading = tree
                .blocks
                .iter()
                .any(|b| b.line == *l && matches!(b.kind, BlockKind::Heading(_)));
            if !heading {
                return Err(refuse(*l, 1, "a line ending in ¶ (a docs-site heading) that is not a heading once read as one (it is inside a code block or another block): remove the ¶".into()));
            }
        }
        let mut doc = Document::default();
        let mut heading: Option<String> = None;
        for b in tree.blocks {
            check_text(&b, origin)?;
            let in_item = b.containers.contains(&Container::Item);
            let in_quote = b.containers.contains(&Container::Quote);
            let prose = |kind, (text, marks)| {
                Block::Prose(Prose {
                    kind,
                    line: b.line,
                    end_line: b.end_line,
                    text,
                    in_list_item: in_item,
                    in_quote,
                    marks,
                })
            };
            match b.kind {
                BlockKind::Paragraph => doc.blocks.push(prose(
                    ProseKind::Paragraph,
                    squash_marked(&b.text, &b.marks),
                )),
                BlockKind::Heading(l) => {
                    let (t, marks) = squash_marked(&b.text, &b.marks);
                    heading = Some(t.clone());
                    doc.blocks.push(prose(ProseKind::Heading(l), (t, marks)));
                }
                BlockKind::Code => doc
                    .blocks
                    .push(prose(ProseKind::Code, code_as_read(&b.text, &b.marks))),
                BlockKind::Rule => doc
                    .blocks
                    .push(prose(ProseKind::Rule, (String::new(), Vec::new()))),
                BlockKind::Html => {
                    return Err(refuse(b.line, 1, "an HTML block".into()));
                }
                BlockKind::Table => {
                    let mut rows = b.rows.into_iter();
                    let Some(head) = rows.next() else { continue };
                    let width = head.cells.len();
                    let cells = |r: markdown::RawRow| -> Result<Row, PublicationError> {
                        if r.written > width {
                            return Err(refuse(r.line, 1, format!(
                                "this table row is written with {} cells under a header of {width}: GitHub does not show the cells past the header's",
                                r.written
                            )));
                        }
                        Ok(Row {
                            line: r.line,
                            cells: r
                                .cells
                                .into_iter()
                                .map(|c| Cell {
                                    text: squash(&c.text),
                                    line: c.line,
                                    column: c.column,
                                })
                                .collect(),
                        })
                    };
                    let header = cells(head)?;
                    let body = rows.map(cells).collect::<Result<Vec<_>, _>>()?;
                    doc.blocks.push(Block::Table(Table {
                        line: header.line,
                        header: header.cells,
                        rows: body,
                        heading: heading.clone(),
                        nested: in_item || in_quote,
                    }));
                }
            }
        }
        Ok(doc)
    }
}

fn refused(origin: &str, line: usize, column: usize, what: String) -> PublicationError {
    PublicationError::Refused {
        origin: origin.into(),
        line,
        column,
        what,
    }
}

/// Runs of white space (any Unicode white space, NBSP included) as one
/// space, trimmed, and the decimal digits of every script as ASCII digits
/// ([`super::glyphs::as_read`]): the text as a reader reads it.
pub fn squash(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.extend(w.chars().map(super::glyphs::as_read));
    }
    out
}

/// A code block's text with its digits as read ([`super::glyphs::as_read`]),
/// carrying `marks` over to offsets into the new text.
fn code_as_read(s: &str, marks: &[(usize, usize)]) -> (String, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(s.len());
    let mut at = marks.iter().peekable();
    let mut moved = Vec::with_capacity(marks.len());
    for (i, c) in s.char_indices() {
        while let Some(m) = at.next_if(|m| m.0 <= i) {
            moved.push((out.len(), m.1));
        }
        out.push(super::glyphs::as_read(c));
    }
    moved.extend(at.map(|m| (out.len(), m.1)));
    (out, moved)
}

/// [`squash`], carrying `marks` (byte offsets into `s`, with a line each)
/// over to offsets into the squashed text.
fn squash_marked(s: &str, marks: &[(usize, usize)]) -> (String, Vec<(usize, usize)>) {
    let mut out = String::with_capacity(s.len());
    let mut space = false;
    let mut at = marks.iter().peekable();
    let mut moved = Vec::with_capacity(marks.len());
    for (i, c) in s.char_indices() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        while let Some(m) = at.next_if(|m| m.0 <= i) {
            moved.push((out.len(), m.1));
        }
        out.push(super::glyphs::as_read(c));
    }
    (out, moved)
}

/// A character a reader does not see ([`glyphs::is_invisible`]): Cf or
/// default-ignorable.
pub fn is_format_char(c: char) -> bool {
    super::glyphs::is_invisible(c)
}

fn format_char(c: char) -> String {
    if c == '\r' {
        return "a carriage return not followed by a line feed (a lone CR, an old Mac OS line ending): readers disagree on where such lines end and what a code block holds; save the file with LF or CR LF line endings".into();
    }
    if is_control_char(c) {
        return format!("the control character U+{:04X} is not text a reader sees (a renderer shows NUL as U+FFFD and the others as nothing, so the page and the text differ); remove it", c as u32);
    }
    if super::glyphs::is_variation_selector(c) {
        return format!("the variation selector U+{:04X} after a letter, digit or ASCII character is drawn as nothing; remove it", c as u32);
    }
    if is_blank_lookalike(c) {
        return format!("the character U+{:04X} shows as blank space or as nothing (a Hangul filler, the blank braille pattern, or a line or paragraph separator that some readers break at and others do not), so what a reader sees and the text differ; remove it", c as u32);
    }
    format!("the invisible format character U+{:04X} (Unicode category Cf or a default-ignorable code point: zero-width, joiner, bidi control, soft hyphen, or a code point reserved for such) can hide or reorder what a reader sees; remove it", c as u32)
}

/// Characters that are neither Cf nor Cc but show as blank space or
/// as nothing: the Hangul fillers, the blank braille pattern, and the line
/// and paragraph separators (white space to some readers, a line break to
/// others, ordinary text to cmark-gfm).
pub fn is_blank_lookalike(c: char) -> bool {
    matches!(
        c as u32,
        0x115F | 0x1160 | 0x2028 | 0x2029 | 0x2800 | 0x3164 | 0xFFA0
    )
}

/// The first combining mark drawn over an ASCII character (a digit,
/// letter or sign with a mark on it reads as another character while the
/// text still holds the plain one): its byte offset, the mark and the base.
fn mark_over_ascii(text: &str) -> Option<(usize, char, char)> {
    let mut prev = None;
    for (i, c) in text.char_indices() {
        if let Some(base) = prev.filter(|b: &char| b.is_ascii() && !b.is_ascii_control()) {
            if unicode_normalization::char::is_combining_mark(c) {
                return Some((i, c, base));
            }
        }
        prev = Some(c);
    }
    None
}

fn mark_message(mark: char, base: char) -> String {
    format!("the combining mark U+{:04X} is drawn over {base:?}, so a reader sees another character than the text holds; remove it (or write the letter precomposed)", mark as u32)
}

/// A C0 control other than tab, line feed and carriage return, DEL,
/// or a C1 control (Unicode category Cc): refused like a format character.
pub fn is_control_char(c: char) -> bool {
    (c < ' ' && !matches!(c, '\t' | '\n' | '\r')) || ('\u{7f}'..='\u{9f}').contains(&c)
}

/// A character no write-up may hold: a format character (Cf) or a
/// control character (Cc) other than tab and line endings.
fn is_hidden_char(c: char) -> bool {
    is_format_char(c) || is_control_char(c) || is_blank_lookalike(c)
}

/// [`is_hidden_char`], or a variation selector after `prev` when `prev`
/// is not a symbol it can draw another way (an ASCII letter or digit, or
/// nothing): there it is drawn as nothing.
fn is_hidden_after(prev: Option<char>, c: char) -> bool {
    is_hidden_char(c)
        || (super::glyphs::is_variation_selector(c)
            && prev.is_none_or(|p| p.is_ascii() || p.is_alphanumeric()))
}

/// The first hidden character of `text` ([`is_hidden_after`]).
fn first_hidden(text: &str) -> Option<char> {
    let mut prev = None;
    for c in text.chars() {
        if is_hidden_after(prev, c) {
            return Some(c);
        }
        prev = Some(c);
    }
    None
}

/// The first Cf or Cc character written literally (also a blank
/// look-alike, or a combining mark over an ASCII character; a BOM at the very
/// start is allowed), or a CR not followed by LF: line (counted at
/// LF), column (bytes, 1-based) and the character.
fn literal_format_char(text: &str) -> Option<(usize, usize, String)> {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let skip = text.len() - body.len();
    let (mut line, mut start) = (1, 0);
    let lone_cr = |i: usize| body.as_bytes().get(i + 1) != Some(&b'\n');
    let mut prev = '\n';
    for (i, c) in body.char_indices() {
        let col = || i - start + 1 + if line == 1 { skip } else { 0 };
        if c == '\n' {
            line += 1;
            start = i + 1;
        } else if is_hidden_after(Some(prev), c) || (c == '\r' && lone_cr(i)) {
            return Some((line, col(), format_char(c)));
        } else if prev.is_ascii()
            && !prev.is_ascii_control()
            && unicode_normalization::char::is_combining_mark(c)
        {
            return Some((line, col(), mark_message(c, prev)));
        }
        prev = c;
    }
    None
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Latin,
    Greek,
    Cyrillic,
    Other,
}

fn script(c: char) -> Script {
    match c as u32 {
        0x41..=0x5A | 0x61..=0x7A | 0xC0..=0x24F | 0x1E00..=0x1EFF | 0xFF21..=0xFF5A => {
            if c == '\u{D7}' || c == '\u{F7}' {
                Script::Other
            } else {
                Script::Latin
            }
        }
        0x370..=0x3FF | 0x1F00..=0x1FFF => Script::Greek,
        0x400..=0x52F | 0x1C80..=0x1C8F | 0x2DE0..=0x2DFF | 0xA640..=0xA69F => Script::Cyrillic,
        _ => Script::Other,
    }
}

/// The first word mixing Latin with Greek or Cyrillic letters: the word
/// and the first letter not of the word's first script.
fn mixed_script(text: &str) -> Option<(String, char)> {
    for w in text.split(|c: char| !c.is_alphanumeric()) {
        let latin = w.chars().any(|c| script(c) == Script::Latin);
        let other = w
            .chars()
            .find(|c| matches!(script(*c), Script::Greek | Script::Cyrillic));
        if let (true, Some(c)) = (latin, other) {
            return Some((w.to_string(), c));
        }
    }
    None
}

fn check_text(b: &RawBlock, origin: &str) -> Result<(), PublicationError> {
    let refuse = |line: usize, column: usize, what: String| PublicationError::Refused {
        origin: origin.into(),
        line,
        column,
        what,
    };
    let check = |text: &str, line: usize, column: usize| -> Result<(), PublicationError> {
        if let Some(c) = first_hidden(text) {
            return Err(refuse(
                line,
                column,
                format!("{} (written as a character reference)", format_char(c)),
            ));
        }
        if let Some((_, mark, base)) = mark_over_ascii(text) {
            return Err(refuse(
                line,
                column,
                format!(
                    "{} (written as a character reference)",
                    mark_message(mark, base)
                ),
            ));
        }
        if let Some((w, c)) = mixed_script(text) {
            return Err(refuse(line, column, format!(
                "the word {w:?} mixes Latin with Greek or Cyrillic letters (U+{:04X} {c:?}): a look-alike letter makes a label or number that only seems to be the same",
                c as u32
            )));
        }
        Ok(())
    };
    check(&b.text, b.line, 1)?;
    for r in &b.rows {
        for c in &r.cells {
            check(&c.text, c.line, c.column)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(text: &str) -> String {
        match Document::parse(text, "w.md") {
            Err(e) => e.to_string(),
            Ok(d) => panic!("{text:?} was read: {d:?}"),
        }
    }

    #[test]
    fn hidden_or_look_alike_content_is_refused_with_line_column_and_code_point() {
        for (text, want) in [
            (
                "| a |\n|---|\n| 5\u{200b}.187 |\n",
                "w.md:3:4: the invisible format character U+200B",
            ),
            (
                "| a |\n|---|\n| 5&#8203;.187 |\n",
                "w.md:3:2: the invisible format character U+200B",
            ),
            (
                "| \u{415}ngine | x |\n|---|---|\n",
                "\"Еngine\" mixes Latin with Greek or Cyrillic letters (U+0415",
            ),
            ("<div hidden>\n| a |\n|---|\n\n", "w.md:1:1: an HTML block"),
            (
                "| a | b |\n|---|---|\n| 1 | 2 |¶\n",
                "w.md:3:1: this table row is written with 3 cells under a header of 2",
            ),
            ("```\nTitle¶\n```\n", "w.md:2:1: a line ending in ¶"),
            (
                "| a |\n|---|\n| 1\u{0}0 |\n",
                "w.md:3:4: the control character U+0000",
            ),
            (
                "Text\n\n```\nx\u{7}y\n```\n",
                "w.md:4:2: the control character U+0007",
            ),
            (
                "Text\n\n```\na\rb\n```\n",
                "w.md:4:2: a carriage return not followed by a line feed",
            ),
            (
                "| a |\n|---|\n| 1&#x85;0 |\n",
                "w.md:3:2: the control character U+0085 is not text a reader sees",
            ),
        ] {
            let e = refused(text);
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }

    #[test]
    fn nbsp_is_a_space_and_text_is_as_shown() {
        let d = Document::parse("Title¶\n\n| Input | Value |\n|---|---|\n| 8,192\u{a0}input  tokens | *x* `y` |\n\nA  para\nwith  lines.\n", "w.md").unwrap();
        let t = d.tables().next().unwrap();
        assert_eq!(t.heading.as_deref(), Some("Title"));
        assert_eq!(t.rows[0].cells[0].text, "8,192 input tokens");
        assert_eq!(t.rows[0].cells[1].text, "x y");
        let p: Vec<&Prose> = d.prose().collect();
        assert_eq!(p[1].text, "A para with lines.");
        assert_eq!((p[1].line, p[1].end_line), (7, 8));
    }
}
