//! The write-up on the page: the publication's rendered blocks from
//! the report's `published.writeup`, each statement and each checked cell
//! marked pass (green), fail (red, the evidence's value shown beside it by
//! the style sheet, from `data-found`) or not checked (grey), and naming
//! its row in "Every check" (`data-row` is the row's `id`; the page has no
//! links, so it references nothing, not even itself). The text of `div.writeup` is the write-up's
//! rendered text and nothing else (marks and recomputed values are drawn
//! by CSS, never added as text), so the page leaves nothing of the
//! publication out and adds nothing to it.

use std::fmt::Write as _;

use super::text::{esc, show};
use crate::report::page::{Block, Published, Segment};

/// Styles of the write-up section.
pub const STYLE: &str = r#"
.writeup { border: 1px solid var(--line, #ccc); padding: .5rem 1rem; }
.writeup p.item::before { content: "• "; }
.writeup p.quote { border-left: 3px solid #bbb; padding-left: .6rem; }
.writeup .claim { border-bottom: 2px solid; padding: 0 .1rem; }
.writeup .claim.pass { background: #e6f4ea; border-color: #1e7e34; }
.writeup .claim.fail { background: #fdecea; border-color: #b00020; }
.writeup .claim.skip { background: #eee; border-color: #888; }
.writeup .claim.publisher { background: #fff4e0; border-color: #b36b00; border-style: dashed; }
.writeup .claim.fail[data-found]::after { content: " ⟵ evidence: " attr(data-found); color: #b00020; font-size: .85em; }
.writeup table.claim-table .skip { background: #eee; }
"#;

fn class(ok: Option<bool>) -> &'static str {
    match ok {
        Some(true) => "pass",
        Some(false) => "fail",
        None => "skip",
    }
}

fn segment(out: &mut String, seg: &Segment, statement: bool) {
    let m = match seg {
        Segment::Plain(t) => {
            out.push_str(&esc(&t.text));
            return;
        }
        Segment::Marked(m) if !m.parts.is_empty() => {
            // Number by number: each part carries its own mark.
            for p in &m.parts {
                segment(out, p, statement);
            }
            return;
        }
        Segment::Marked(m) => m,
    };
    let ids: Vec<&str> = m.checks.iter().map(String::as_str).collect();
    let cls = if m.publisher {
        "publisher"
    } else {
        class(m.ok)
    };
    let found: Vec<String> = m.found.iter().map(show).collect();
    let found = if found.is_empty() {
        String::new()
    } else {
        format!(" data-found=\"{}\"", esc(&found.join("; ")))
    };
    let first = ids.first().copied().unwrap_or("");
    let attr = if statement {
        "data-statement"
    } else {
        "data-checks"
    };
    let _ = write!(
        out,
        "<span class=\"claim {cls}\" data-row=\"check-{}\" {attr}=\"{}\"{found} title=\"{}\">{}</span>",
        esc(first),
        esc(&ids.join(" ")),
        esc(&format!(
            "{} — {}",
            ids.join(", "),
            match cls {
                "pass" => "held",
                "publisher" => "held only by what the publisher wrote for it, not by evidence",
                "fail" => "did not hold",
                _ => "not checked",
            }
        )),
        esc(&m.text)
    );
}

/// Appends the write-up section, when the report carries one.
pub fn writeup(out: &mut String, p: &Published) {
    let Some(blocks) = &p.writeup else {
        return;
    };
    let _ = writeln!(
        out,
        "<style>{STYLE}</style><section id=\"writeup\"><h2>The write-up as published</h2><p class=\"note\">{}, as GitHub renders it. Every statement and value proofpack checks is marked: green held, amber dashed held only by what the publisher wrote for it (a binding or a file of its own, not evidence), red did not (the value the evidence gives beside it), grey not checked; hover for the check's id, listed under “Every check”.</p><div class=\"writeup\">",
        esc(&p.source)
    );
    let segs = |out: &mut String, segments: &[Segment]| {
        for s in segments {
            segment(out, s, true);
        }
    };
    for (i, b) in blocks.iter().enumerate() {
        match b {
            Block::Heading {
                level, segments, ..
            } => {
                let l = (u64::from(*level) + 2).min(6);
                let _ = write!(out, "<h{l} data-block=\"{i}\">");
                segs(out, segments);
                let _ = writeln!(out, "</h{l}>");
            }
            Block::Paragraph {
                item,
                quote,
                segments,
                ..
            } => {
                let mut cls = Vec::new();
                if *item {
                    cls.push("item");
                }
                if *quote {
                    cls.push("quote");
                }
                let _ = write!(out, "<p class=\"{}\" data-block=\"{i}\">", cls.join(" "));
                segs(out, segments);
                out.push_str("</p>\n");
            }
            Block::Code { segments, .. } => {
                let _ = write!(out, "<pre data-block=\"{i}\">");
                segs(out, segments);
                out.push_str("</pre>\n");
            }
            Block::Rule { .. } => {
                let _ = writeln!(out, "<hr data-block=\"{i}\">");
            }
            Block::Table {
                checks,
                header,
                rows,
                ..
            } => {
                // A table proofpack does not read names the check that
                // says so.
                let unread = checks
                    .as_ref()
                    .map(|c| c.first().map_or("", String::as_str));
                let _ = write!(
                    out,
                    "<table class=\"claim-table{}\" data-block=\"{i}\"{}><thead><tr>",
                    if unread.is_some() { " skip" } else { "" },
                    match unread {
                        Some(id) => format!(" data-checks=\"{}\"", esc(id)),
                        None => String::new(),
                    }
                );
                for h in header {
                    let _ = write!(out, "<th>{}</th>", esc(&h.text));
                }
                out.push_str("</tr></thead><tbody>");
                for r in rows {
                    out.push_str("<tr>");
                    for c in r {
                        out.push_str("<td>");
                        segment(out, c, false);
                        out.push_str("</td>");
                    }
                    out.push_str("</tr>");
                }
                out.push_str("</tbody></table>\n");
            }
            Block::Unknown => {}
        }
    }
    out.push_str("</div></section>\n");
}
