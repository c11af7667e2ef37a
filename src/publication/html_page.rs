//! A write-up's rendered page, its HTML read by an HTML5 parser (html5ever,
//! the tree builder of the HTML standard) into the text a reader copies out
//! of it: a block a line, a heading ending in `¶`, a table row its cells
//! between tabs, an ordered item its number first (contract section 9, the
//! `html` form). That text is then read as the `text` form
//! ([`super::text_copy`]), so the three forms share everything above.
//!
//! The grammar is closed: the page's elements are of a listed set (the
//! ones cmark-gfm writes, and the containers of a docs site's page); an
//! element outside it, an inline `style`, a `hidden` or `dir` attribute, a style
//! sheet, a script or a comment that a browser would not show is refused,
//! naming it: anything that can show a reader other than the text is not
//! read. Lines of an HTML write-up are the lines of that text.

use html5ever::tendril::TendrilSink;
use markup5ever_rcdom::{Handle, NodeData, RcDom};

/// Most bytes of text the page may give (the write-up's own cap bounds
/// its HTML; this bounds what the walk builds).
const MAX_TEXT: usize = 16 << 20;

/// Deepest nesting of elements read (a write-up's page nests a dozen; the
/// walk is recursive, so a hostile page's depth is refused, not followed).
const MAX_DEPTH: usize = 128;

/// Elements whose content is the page's structure, read through.
const CONTAINERS: &[&str] = &[
    "html", "body", "div", "section", "article", "main", "header", "footer", "span", "a", "em",
    "strong", "b", "i", "code", "small", "mark", "abbr", "tbody", "thead",
];

/// The page as the text a reader copies out of it, or what was not read.
pub fn to_text(html: &str) -> Result<String, String> {
    let dom = html5ever::parse_document(RcDom::default(), Default::default())
        .from_utf8()
        .read_from(&mut html.as_bytes())
        .map_err(|e| format!("the HTML cannot be read: {e}"))?;
    let mut w = Walk::default();
    w.node(&dom.document)?;
    w.end_line();
    Ok(w.lines.join("\n") + "\n")
}

#[derive(Default)]
struct Walk {
    lines: Vec<String>,
    line: String,
    size: usize,
    depth: usize,
    /// An ordered item's number, shown before its first text.
    marker: Option<String>,
}

fn name(h: &Handle) -> Option<String> {
    match &h.data {
        NodeData::Element { name, .. } => Some(name.local.to_string()),
        _ => None,
    }
}

fn attr(h: &Handle, key: &str) -> Option<String> {
    match &h.data {
        NodeData::Element { attrs, .. } => attrs
            .borrow()
            .iter()
            .find(|a| &*a.name.local == key)
            .map(|a| a.value.to_string()),
        _ => None,
    }
}

impl Walk {
    fn push(&mut self, s: &str) -> Result<(), String> {
        self.size += s.len();
        if self.size > MAX_TEXT {
            return Err(format!("the page gives more than {MAX_TEXT} bytes of text"));
        }
        // White space runs as one space, as a browser lays text out: a
        // space only where the text has white space.
        let space = |line: &mut String| {
            if !line.is_empty() && !line.ends_with([' ', '\t']) {
                line.push(' ');
            }
        };
        if !s.trim().is_empty() {
            if let Some(m) = self.marker.take() {
                if self.line.trim().is_empty() {
                    self.line = m;
                }
            }
        }
        if s.starts_with(char::is_whitespace) {
            space(&mut self.line);
        }
        for (k, w) in s.split_whitespace().enumerate() {
            if k > 0 {
                self.line.push(' ');
            }
            self.line.push_str(w);
        }
        if s.ends_with(char::is_whitespace) {
            space(&mut self.line);
        }
        Ok(())
    }

    fn end_line(&mut self) {
        let l = self.line.trim().to_string();
        if !l.is_empty() {
            self.lines.push(l);
        }
        self.line.clear();
    }

    fn children(&mut self, h: &Handle) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("elements nested more than {MAX_DEPTH} deep"));
        }
        for c in h.children.borrow().iter() {
            self.node(c)?;
        }
        self.depth -= 1;
        Ok(())
    }

    fn node(&mut self, h: &Handle) -> Result<(), String> {
        match &h.data {
            NodeData::Document => self.children(h),
            NodeData::Doctype { .. } => Ok(()),
            NodeData::Text { contents } => {
                let t = contents.borrow().to_string();
                self.push(&t)
            }
            NodeData::Comment { .. } => {
                Err("an HTML comment: proofpack reads only what a reader sees".into())
            }
            NodeData::ProcessingInstruction { .. } => Err("a processing instruction".into()),
            NodeData::Element { .. } => self.element(h),
        }
    }

    fn element(&mut self, h: &Handle) -> Result<(), String> {
        let tag = name(h).unwrap_or_default();
        for a in ["style", "hidden", "dir"] {
            if attr(h, a).is_some() {
                return Err(format!(
                    "a <{tag}> with a {a} attribute: it can hide, reorder or change what a reader sees"
                ));
            }
        }
        match tag.as_str() {
            "head" => self.head(h),
            t if CONTAINERS.contains(&t) => self.children(h),
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                self.end_line();
                self.children(h)?;
                let t = self.line.trim_end().to_string();
                self.line = if t.ends_with('¶') { t } else { format!("{t}¶") };
                self.end_line();
                Ok(())
            }
            "p" | "blockquote" | "ul" => {
                self.end_line();
                self.children(h)?;
                self.end_line();
                Ok(())
            }
            "ol" => self.ordered(h),
            "li" => {
                self.end_line();
                self.children(h)?;
                self.end_line();
                Ok(())
            }
            "pre" => self.pre(h),
            "br" => {
                self.end_line();
                Ok(())
            }
            "hr" => {
                self.end_line();
                Ok(())
            }
            "table" => self.table(h),
            other => Err(format!(
                "a <{other}> element, which proofpack does not read in a write-up's page (it reads headings, paragraphs, lists, quotes, code blocks, tables and their inline text)"
            )),
        }
    }

    /// The page's head: its title is not the write-up; a style sheet or a
    /// script could change what the body shows.
    fn head(&mut self, h: &Handle) -> Result<(), String> {
        for c in h.children.borrow().iter() {
            match name(c).as_deref() {
                Some("style") => {
                    return Err("a <style> sheet: it can hide or change what a reader sees".into())
                }
                Some("script") => return Err("a <script>: it can change what a reader sees".into()),
                Some("link") if attr(c, "rel").is_some_and(|r| r.contains("stylesheet")) => {
                    return Err(
                        "a linked style sheet: it can hide or change what a reader sees".into(),
                    )
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// An ordered list: each item's first line is its number, as a browser
    /// numbers them from the list's `start`.
    fn ordered(&mut self, h: &Handle) -> Result<(), String> {
        self.end_line();
        let mut n: u64 = attr(h, "start")
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(1);
        for c in h.children.borrow().iter() {
            if name(c).as_deref() == Some("li") {
                self.end_line();
                self.marker = Some(format!("{n}. "));
                n = n.saturating_add(1);
                self.children(c)?;
                self.marker = None;
                self.end_line();
            } else {
                self.node(c)?;
            }
        }
        self.end_line();
        Ok(())
    }

    /// A code block: its lines as they are (each a line of the text).
    fn pre(&mut self, h: &Handle) -> Result<(), String> {
        self.end_line();
        let mut text = String::new();
        collect_text(h, &mut text, self.depth)?;
        self.size += text.len();
        if self.size > MAX_TEXT {
            return Err(format!("the page gives more than {MAX_TEXT} bytes of text"));
        }
        for l in text.lines() {
            if !l.trim().is_empty() {
                self.lines.push(l.trim_end().to_string());
            }
        }
        Ok(())
    }

    /// A table: its caption a line, then a row a line, its cells between
    /// tabs (as a browser copies it); anything else in it is refused.
    fn table(&mut self, h: &Handle) -> Result<(), String> {
        self.end_line();
        for c in h.children.borrow().iter() {
            match name(c).as_deref() {
                Some("caption") => {
                    self.children(c)?;
                    self.end_line();
                }
                Some("tr") => self.row(c)?,
                Some("thead" | "tbody" | "tfoot") => {
                    for r in c.children.borrow().iter() {
                        match name(r).as_deref() {
                            Some("tr") => self.row(r)?,
                            Some(other) => return Err(format!("a <{other}> inside a table")),
                            None => blank(r)?,
                        }
                    }
                }
                Some("colgroup" | "col") => {}
                Some(other) => return Err(format!("a <{other}> inside a table")),
                None => blank(c)?,
            }
        }
        Ok(())
    }

    /// A table row: its cells between tabs, each one block.
    fn row(&mut self, r: &Handle) -> Result<(), String> {
        let mut cells = Vec::new();
        for c in r.children.borrow().iter() {
            match name(c).as_deref() {
                Some("th" | "td") => {
                    let mut w = Walk {
                        depth: self.depth,
                        ..Walk::default()
                    };
                    w.children(c)?;
                    w.end_line();
                    if w.lines.len() > 1 {
                        return Err("a table cell holding more than one block".into());
                    }
                    cells.push(w.lines.pop().unwrap_or_default());
                }
                Some(other) => return Err(format!("a <{other}> inside a table row")),
                None => blank(c)?,
            }
        }
        self.lines.push(cells.join("\t"));
        Ok(())
    }
}

/// What stands between a table's parts: white space only (a comment is
/// refused there as anywhere).
fn blank(h: &Handle) -> Result<(), String> {
    match &h.data {
        NodeData::Text { contents } if contents.borrow().trim().is_empty() => Ok(()),
        NodeData::Comment { .. } => {
            Err("an HTML comment: proofpack reads only what a reader sees".into())
        }
        _ => Err("text inside a table outside its cells".into()),
    }
}

/// The text of a code block: text nodes only, inline code marks through.
fn collect_text(h: &Handle, out: &mut String, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("elements nested more than {MAX_DEPTH} deep"));
    }
    for c in h.children.borrow().iter() {
        match &c.data {
            NodeData::Text { contents } => out.push_str(&contents.borrow()),
            NodeData::Element { .. } => {
                let tag = name(c).unwrap_or_default();
                if tag != "code" && tag != "span" {
                    return Err(format!("a <{tag}> inside a code block"));
                }
                collect_text(c, out, depth + 1)?;
            }
            _ => return Err("a comment inside a code block".into()),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_reads_as_its_text_copy() {
        let t = to_text("<!DOCTYPE html><body><h2>Pinned inputs<a class=\"headerlink\" href=\"#x\">¶</a></h2><p>Both <em>points</em>\ncompleted.</p><table><thead><tr><th>Input</th><th>Value</th></tr></thead><tbody><tr><td>Model</td><td>m</td></tr></tbody></table><ol start=\"200\"><li>higher-rate point</li></ol></body>").unwrap();
        assert_eq!(t, "Pinned inputs¶\nBoth points completed.\nInput\tValue\nModel\tm\n200. higher-rate point\n");
    }

    #[test]
    fn a_table_caption_is_read_as_a_browser_copies_it() {
        let t = to_text("<body><table><caption>All 400 within limits</caption><tr><th>a</th></tr><tr><td>1</td></tr></table></body>").unwrap();
        assert_eq!(t, "All 400 within limits\na\n1\n");
    }

    #[test]
    fn deep_nesting_is_refused_not_followed() {
        let page = format!("<body>{}x</body>", "<span>".repeat(200_000));
        assert!(to_text(&page).unwrap_err().contains("nested more than"));
    }

    #[test]
    fn what_can_hide_text_is_refused() {
        for (page, want) in [
            (
                "<body><p style=\"display:none\">x</p></body>",
                "style attribute",
            ),
            ("<body><p hidden>x</p></body>", "hidden attribute"),
            ("<body><p dir=\"rtl\">x</p></body>", "dir attribute"),
            (
                "<head><style>p{}</style></head><body><p>x</p></body>",
                "<style> sheet",
            ),
            ("<body><!-- 400/400 --><p>x</p></body>", "comment"),
            (
                "<body><details><p>x</p></details></body>",
                "<details> element",
            ),
            ("<body><del>x</del></body>", "<del> element"),
            (
                "<body><table><tr><!-- 400/400 --><td>x</td></tr></table></body>",
                "comment",
            ),
        ] {
            let e = to_text(page).unwrap_err();
            assert!(e.contains(want), "{page}: {e}");
        }
    }
}
